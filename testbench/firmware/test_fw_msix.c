// SPDX-License-Identifier: MIT
/*
 * Bench of msix_table: the MSI-X table and PBA in BAR2, and the messages that the core's
 * interrupt requests become.
 *
 * A C model of the pending bits is the scoreboard: a request sets its vector's bit; every
 * message must be for a vector whose bit is set and that is not masked, with MSI-X enabled
 * and the function not masked, and carry that vector's address and data; it clears the
 * bit (a request in the same cycle as the message sets it again). Requests come at random
 * from random vectors (and vectors above the table), messages are taken with random
 * back-pressure, and the host rewrites entries and masks at random meanwhile. Directed:
 * the table after reset (every vector masked), PBA bits of masked vectors, and nothing
 * sent while MSI-X is disabled or the function is masked; at the end, every request has
 * been followed by its message.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "fw_axil.h"

extern const struct vmodel_ops vmodel_Vfw_msix;

#define VECTORS 64
#define PBA 0x800

struct msix_tb {
	struct dut d;
	struct fw_axil bar;
	const struct vmodel_port *irq_vector, *irq_valid, *irq_ready, *enable, *fmask;
	const struct vmodel_port *addr, *data, *valid, *ready;
	/* the host's view of the table (what it wrote) */
	uint64_t t_addr[VECTORS];
	uint32_t t_data[VECTORS];
	bool t_mask[VECTORS];
	bool t_changing[VECTORS]; /* a write of the mask is on its way */
	/* the message on the port, checked when it first appeared */
	bool presented;
	/* the model */
	bool pending[VECTORS];
	bool req_since_msg[VECTORS]; /* a request not yet followed by a message */
	unsigned int irq_pct, ready_pct;
	uint64_t requests, messages, irq_not_ready;
	unsigned int errors;
	char why[160];
};

static void fail(struct msix_tb *t, const char *what, unsigned int v)
{
	if (!t->errors++)
		snprintf(t->why, sizeof(t->why), "%s (vector %u, cycle %llu)", what, v,
			 (unsigned long long)t->d.cycle);
}

static void drive(void *ctx)
{
	struct msix_tb *t = ctx;

	vport_set(t->irq_valid, bench_chance(t->d.bench, t->irq_pct));
	vport_set(t->irq_vector, bench_range(t->d.bench, 0, 2 * VECTORS - 1));
	vport_set(t->ready, bench_chance(t->d.bench, t->ready_pct));
}

static void sample(void *ctx)
{
	struct msix_tb *t = ctx;

	uint32_t data = (uint32_t)vport_get(t->data);
	unsigned int v = data >> 24; /* the bench puts the vector in the data's top byte */

	/* a message is decided when it appears; it may leave after its vector was masked */
	if (vport_get(t->valid) && !t->presented) {
		t->presented = true;
		if (v >= VECTORS) {
			fail(t, "a message whose data is no vector's", v);
		} else {
			if ((t->t_mask[v] && !t->t_changing[v]) || !vport_get(t->enable) ||
			    vport_get(t->fmask))
				fail(t, "a message while masked or disabled", v);
			if (vport_get(t->addr) != t->t_addr[v] || data != t->t_data[v])
				fail(t, "a message with another vector's address or data", v);
		}
	}
	if (vport_get(t->valid) && vport_get(t->ready)) {
		t->presented = false;
		t->messages++;
		if (v < VECTORS) {
			if (!t->pending[v])
				fail(t, "a message for a vector not pending", v);
			t->pending[v] = false;
			t->req_since_msg[v] = false;
		}
	}
	if (vport_get(t->irq_valid)) {
		unsigned int v = (unsigned int)vport_get(t->irq_vector) % VECTORS;

		if (!vport_get(t->irq_ready))
			t->irq_not_ready++;
		t->pending[v] = true;
		t->req_since_msg[v] = true;
		t->requests++;
	}
}

static void write_entry(struct msix_tb *t, unsigned int v)
{
	t->t_addr[v] = (bench_rand(t->d.bench) & ~UINT64_C(3)) | UINT64_C(0xfee00000);
	t->t_data[v] = (uint32_t)v << 24 | (uint32_t)bench_range(t->d.bench, 0, 0xffffff);
	fw_axil_write(&t->bar, v * 16, (uint32_t)t->t_addr[v], 0xf);
	fw_axil_write(&t->bar, v * 16 + 4, (uint32_t)(t->t_addr[v] >> 32), 0xf);
	fw_axil_write(&t->bar, v * 16 + 8, t->t_data[v], 0xf);
}

static void set_mask(struct msix_tb *t, unsigned int v, bool mask)
{
	t->t_changing[v] = true;
	fw_axil_write(&t->bar, v * 16 + 12, mask, 0xf);
	t->t_mask[v] = mask;
	t->t_changing[v] = false;
}

static void run_cycles(struct msix_tb *t, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		dut_step(&t->d);
}

int main(int argc, char **argv)
{
	struct bench b;
	struct msix_tb t;
	bool ok;
	unsigned int v, rounds;
	uint32_t pba[2];

	bench_init(&b, "test_fw_msix", argc, argv);
	memset(&t, 0, sizeof(t));
	dut_open(&t.d, &b, &vmodel_Vfw_msix);
	fw_axil_bind(&t.bar, &t.d, "s_axil");
	t.irq_vector = dut_port(&t.d, "s_irq_vector");
	t.irq_valid = dut_port(&t.d, "s_irq_valid");
	t.irq_ready = dut_port(&t.d, "s_irq_ready");
	t.enable = dut_port(&t.d, "cfg_msix_enable");
	t.fmask = dut_port(&t.d, "cfg_msix_function_mask");
	t.addr = dut_port(&t.d, "m_msix_addr");
	t.data = dut_port(&t.d, "m_msix_data");
	t.valid = dut_port(&t.d, "m_msix_valid");
	t.ready = dut_port(&t.d, "m_msix_ready");
	dut_add_agent(&t.d, drive, sample, &t);
	dut_reset(&t.d, 4);

	/* after reset: every vector masked, nothing pending */
	ok = true;
	for (v = 0; v < VECTORS; v++)
		ok &= fw_axil_read(&t.bar, v * 16 + 12) == 1;
	ok &= fw_axil_read(&t.bar, PBA) == 0 && fw_axil_read(&t.bar, PBA + 4) == 0;
	bench_result(&b, "msix_reset_masked", ok && !t.bar.errors, "table or PBA after reset");

	/* the table reads back what was written */
	for (v = 0; v < VECTORS; v++) {
		t.t_mask[v] = true;
		write_entry(&t, v);
	}
	ok = true;
	for (v = 0; v < VECTORS; v++)
		ok &= fw_axil_read(&t.bar, v * 16) == (uint32_t)t.t_addr[v] &&
		      fw_axil_read(&t.bar, v * 16 + 4) == (uint32_t)(t.t_addr[v] >> 32) &&
		      fw_axil_read(&t.bar, v * 16 + 8) == t.t_data[v];
	bench_result(&b, "msix_table_readback", ok && !t.bar.errors, "an entry read back differs");

	/* everything masked: requests only set PBA bits */
	vport_set(t.enable, 1);
	t.irq_pct = 20;
	t.ready_pct = 100;
	run_cycles(&t, 300);
	t.irq_pct = 0;
	run_cycles(&t, 4);
	pba[0] = fw_axil_read(&t.bar, PBA);
	pba[1] = fw_axil_read(&t.bar, PBA + 4);
	ok = t.messages == 0 && t.requests > 0;
	for (v = 0; v < VECTORS; v++)
		ok &= (bool)(pba[v / 32] >> (v % 32) & 1) == t.pending[v];
	bench_result(&b, "msix_masked_pba", ok && !t.errors, "%llu messages, PBA %08x%08x %s",
		     (unsigned long long)t.messages, pba[1], pba[0], t.why);

	/* unmasked but MSI-X disabled, then the function masked: still nothing */
	vport_set(t.enable, 0);
	for (v = 0; v < VECTORS; v++)
		set_mask(&t, v, false);
	run_cycles(&t, 200);
	vport_set(t.enable, 1);
	vport_set(t.fmask, 1);
	run_cycles(&t, 200);
	bench_result(&b, "msix_disabled_silent", t.messages == 0 && !t.errors,
		     "%llu messages while disabled or function-masked",
		     (unsigned long long)t.messages);

	/* random traffic with the host rewriting entries and masks */
	vport_set(t.fmask, 0);
	t.ready_pct = 70;
	rounds = b.quick ? 100 : 400;
	for (unsigned int r = 0; r < rounds; r++) {
		t.irq_pct = (unsigned int)bench_range(&b, 0, 30);
		v = (unsigned int)bench_range(&b, 0, VECTORS - 1);
		switch (bench_range(&b, 0, 3)) {
		case 0:
			set_mask(&t, v, true);
			write_entry(&t, v);
			set_mask(&t, v, false);
			break;
		case 1:
			set_mask(&t, v, !t.t_mask[v]);
			break;
		default:
			run_cycles(&t, (unsigned int)bench_range(&b, 1, 100));
			break;
		}
	}
	/* drain: everything unmasked, no more requests; each must have got its message */
	t.irq_pct = 0;
	for (v = 0; v < VECTORS; v++)
		if (t.t_mask[v])
			set_mask(&t, v, false);
	run_cycles(&t, 4 * VECTORS + 200);
	ok = true;
	for (v = 0; v < VECTORS; v++)
		if (t.req_since_msg[v] || t.pending[v]) {
			ok = false;
			fail(&t, "a request never followed by a message", v);
		}
	pba[0] = fw_axil_read(&t.bar, PBA);
	pba[1] = fw_axil_read(&t.bar, PBA + 4);
	bench_result(&b, "msix_random", ok && !t.errors && !pba[0] && !pba[1] && !t.bar.errors,
		     "%s; %llu requests, %llu messages, PBA %08x%08x", t.why,
		     (unsigned long long)t.requests, (unsigned long long)t.messages, pba[1],
		     pba[0]);
	bench_result(&b, "msix_never_holds_core", t.irq_not_ready == 0, "%llu requests refused",
		     (unsigned long long)t.irq_not_ready);
	bench_log(&b, "%llu requests, %llu messages, %llu cycles", (unsigned long long)t.requests,
		  (unsigned long long)t.messages, (unsigned long long)t.d.cycle);
	dut_close(&t.d);
	return bench_finish(&b);
}
