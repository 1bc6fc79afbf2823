// SPDX-License-Identifier: MIT
/*
 * Bench of db_pages, the doorbell pages: the write-only AXI4 slave where a 64-byte WQE
 * written as one beat is its SQ's doorbell.
 *
 * A C model says what each write is: a doorbell (one beat of 64 bytes, AWLEN 0, AWSIZE 6,
 * every byte strobed, WLAST, at the slot of its WQE's QPN) or malformed (another slot, a
 * byte not strobed, an address inside a line, a narrower size, a burst of several beats,
 * WLAST missing). Writes of every kind are sent in random order, AW and W each with idle
 * cycles of their own (W may come before its AW), with the doorbell output and B held
 * back at random and the register file's hold raised at random. Checked: every doorbell
 * comes out once, in order, with its QPN, counter and WQE; nothing else comes out; every
 * write gets one B (OKAY); the pushed and malformed pulses count the model's verdicts; no
 * beat is taken while hold is up, and db_busy is up while a doorbell waits inside.
 * A run without idle cycles or back-pressure reports the doorbells per cycle.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "hroce_contract.h"

extern const struct vmodel_ops vmodel_Vdb_pages;

#define LINE HROCE_DB_PUSH_BYTES
#define MAX_BEATS 4
#define HANG_CYCLES 20000

enum kind { GOOD, BAD_SLOT, BAD_STRB, BAD_ALIGN, BAD_SIZE, BAD_BURST, BAD_LAST, KINDS };

struct wr {
	uint32_t addr;
	unsigned int len; /* AWLEN */
	unsigned int size;
	uint8_t beat[MAX_BEATS][LINE];
	uint64_t strb[MAX_BEATS];
	bool last[MAX_BEATS];
	bool good;
};

struct env {
	struct bench *b;
	struct dut dut;
	const struct vmodel_port *awaddr, *awlen, *awsize, *awvalid, *awready;
	const struct vmodel_port *wdata, *wstrb, *wlast, *wvalid, *wready;
	const struct vmodel_port *bresp, *bvalid, *bready;
	const struct vmodel_port *qpn, *index, *wqe, *valid, *ready;
	const struct vmodel_port *hold, *busy, *pushed, *malformed;
	unsigned int idle_pct, busy_pct, hold_pct;
	struct wr *w;
	size_t n;
	size_t aw_head, w_head;	  /* the next write whose AW, whose beat, goes */
	unsigned int w_beat;	  /* of the write at w_head */
	bool aw_offer, w_offer;	  /* held offered until taken */
	size_t db_seen, good;	  /* doorbells out, and expected */
	size_t *good_list;	  /* the good writes, in order */
	uint64_t bs, pushes, bad; /* B taken, pulses */
	unsigned int hold_left;
	char why[200];
};

static void fail(struct env *e, const char *fmt, const char *what, size_t at)
{
	if (!e->why[0])
		snprintf(e->why, sizeof(e->why), fmt, what, at);
}

static void drive(void *ctx)
{
	struct env *e = ctx;

	if (!e->aw_offer && e->aw_head < e->n && !bench_chance(e->b, e->idle_pct))
		e->aw_offer = true;
	if (e->aw_offer) {
		const struct wr *w = &e->w[e->aw_head];

		vport_set(e->awaddr, w->addr);
		vport_set(e->awlen, w->len);
		vport_set(e->awsize, w->size);
	}
	vport_set(e->awvalid, e->aw_offer);
	if (!e->w_offer && e->w_head < e->n && !bench_chance(e->b, e->idle_pct))
		e->w_offer = true;
	if (e->w_offer) {
		const struct wr *w = &e->w[e->w_head];

		vport_write(e->wdata, w->beat[e->w_beat], LINE);
		vport_set(e->wstrb, w->strb[e->w_beat]);
		vport_set(e->wlast, w->last[e->w_beat]);
	}
	vport_set(e->wvalid, e->w_offer);
	vport_set(e->ready, !bench_chance(e->b, e->busy_pct));
	vport_set(e->bready, !bench_chance(e->b, e->busy_pct));
	if (e->hold_left)
		e->hold_left--;
	else if (bench_chance(e->b, e->hold_pct))
		e->hold_left = (unsigned int)bench_range(e->b, 1, 8);
	vport_set(e->hold, e->hold_left != 0);
}

static void sample(void *ctx)
{
	struct env *e = ctx;

	if (vport_get(e->awvalid) && vport_get(e->awready)) {
		e->aw_offer = false;
		e->aw_head++;
		e->dut.transfers++;
	}
	if (vport_get(e->wvalid) && vport_get(e->wready)) {
		if (vport_get(e->hold))
			fail(e, "%s: a beat taken while hold was up (write %zu)", "hold",
			     e->w_head);
		e->w_offer = false;
		e->dut.transfers++;
		if (++e->w_beat > e->w[e->w_head].len) {
			e->w_beat = 0;
			e->w_head++;
		}
	}
	if (vport_get(e->bvalid) && vport_get(e->bready)) {
		if (vport_get(e->bresp))
			fail(e, "%s: B response not OKAY (B %zu)", "bresp", (size_t)e->bs);
		e->bs++;
		e->dut.pending--;
		e->dut.transfers++;
	}
	if (vport_get(e->valid) && !vport_get(e->busy))
		fail(e, "%s: a doorbell waits and db_busy is down (%zu out)", "busy", e->db_seen);
	if (vport_get(e->valid) && vport_get(e->ready)) {
		uint8_t wqe[LINE];

		vport_read(e->wqe, wqe, LINE);
		if (e->db_seen >= e->good) {
			fail(e, "%s: doorbell %zu comes from no good write", "extra", e->db_seen);
		} else {
			const struct wr *w = &e->w[e->good_list[e->db_seen]];

			if (vport_get(e->qpn) != HROCE_SQ_WQE_GET(w->beat[0], QPN) ||
			    vport_get(e->index) != HROCE_SQ_WQE_GET(w->beat[0], DB_INDEX) ||
			    memcmp(wqe, w->beat[0], LINE))
				fail(e, "%s: doorbell %zu differs from its write", "data",
				     e->db_seen);
		}
		e->db_seen++;
		e->dut.pending--;
		e->dut.transfers++;
	}
	e->pushes += vport_get(e->pushed);
	e->bad += vport_get(e->malformed);
}

static void env_open(struct env *e, struct bench *b, unsigned int idle, unsigned int busy,
		     unsigned int hold)
{
	memset(e, 0, sizeof(*e));
	e->b = b;
	e->idle_pct = idle;
	e->busy_pct = busy;
	e->hold_pct = hold;
	dut_open(&e->dut, b, &vmodel_Vdb_pages);
	e->awaddr = dut_port(&e->dut, "s_axi_db_awaddr");
	e->awlen = dut_port(&e->dut, "s_axi_db_awlen");
	e->awsize = dut_port(&e->dut, "s_axi_db_awsize");
	e->awvalid = dut_port(&e->dut, "s_axi_db_awvalid");
	e->awready = dut_port(&e->dut, "s_axi_db_awready");
	e->wdata = dut_port(&e->dut, "s_axi_db_wdata");
	e->wstrb = dut_port(&e->dut, "s_axi_db_wstrb");
	e->wlast = dut_port(&e->dut, "s_axi_db_wlast");
	e->wvalid = dut_port(&e->dut, "s_axi_db_wvalid");
	e->wready = dut_port(&e->dut, "s_axi_db_wready");
	e->bresp = dut_port(&e->dut, "s_axi_db_bresp");
	e->bvalid = dut_port(&e->dut, "s_axi_db_bvalid");
	e->bready = dut_port(&e->dut, "s_axi_db_bready");
	e->qpn = dut_port(&e->dut, "m_db_qpn");
	e->index = dut_port(&e->dut, "m_db_index");
	e->wqe = dut_port(&e->dut, "m_db_wqe");
	e->valid = dut_port(&e->dut, "m_db_valid");
	e->ready = dut_port(&e->dut, "m_db_ready");
	e->hold = dut_port(&e->dut, "hold");
	e->busy = dut_port(&e->dut, "db_busy");
	e->pushed = dut_port(&e->dut, "stat_pushed");
	e->malformed = dut_port(&e->dut, "stat_malformed");
	dut_add_agent(&e->dut, drive, sample, e);
	dut_reset(&e->dut, 4);
}

/* A write of the kind asked, its verdict by the model's rules. */
static void add(struct env *e, enum kind k)
{
	struct wr *w;
	uint32_t qpn = (uint32_t)bench_range(e->b, 0, (1u << 24) - 1);

	e->w = realloc(e->w, (e->n + 1) * sizeof(*e->w));
	e->good_list = realloc(e->good_list, (e->n + 1) * sizeof(*e->good_list));
	if (!e->w || !e->good_list) {
		perror("realloc");
		exit(1);
	}
	w = &e->w[e->n];
	memset(w, 0, sizeof(*w));
	w->addr = qpn % HROCE_DB_SLOTS * LINE;
	w->size = 6;
	for (unsigned int i = 0; i < MAX_BEATS; i++) {
		bench_fill(e->b, w->beat[i], LINE);
		HROCE_SQ_WQE_SET(w->beat[i], QPN, qpn);
		w->strb[i] = ~UINT64_C(0);
	}
	switch (k) {
	case BAD_SLOT:
		w->addr = (qpn + (uint32_t)bench_range(e->b, 1, HROCE_DB_SLOTS - 1)) %
			  HROCE_DB_SLOTS * LINE;
		break;
	case BAD_STRB:
		w->strb[0] &= ~(UINT64_C(1) << bench_range(e->b, 0, 63));
		break;
	case BAD_ALIGN:
		w->addr += (uint32_t)bench_range(e->b, 1, LINE - 1);
		break;
	case BAD_SIZE:
		w->size = (unsigned int)bench_range(e->b, 0, 5);
		break;
	case BAD_BURST:
		w->len = (unsigned int)bench_range(e->b, 1, MAX_BEATS - 1);
		break;
	default:
		break;
	}
	/* WLAST on the burst's last beat, except where the kind says otherwise */
	w->last[w->len] = k != BAD_LAST;
	w->good = k == GOOD;
	if (w->good)
		e->good_list[e->good++] = e->n;
	e->n++;
	e->dut.pending += 1 + w->good; /* its B, and its doorbell */
}

/* The cycles it took. */
static uint64_t run(struct env *e, const char *name)
{
	size_t bad = e->n - e->good;
	uint64_t cycles;

	if (!dut_run(&e->dut, 50, HANG_CYCLES))
		fail(e, "%s: hang (%zu writes answered)", "hang", (size_t)e->bs);
	if (!e->why[0] && (e->bs != e->n || e->db_seen != e->good))
		snprintf(e->why, sizeof(e->why), "%llu of %zu B, %zu of %zu doorbells",
			 (unsigned long long)e->bs, e->n, e->db_seen, e->good);
	if (!e->why[0] && (e->pushes != e->good || e->bad != bad))
		snprintf(e->why, sizeof(e->why),
			 "pushed pulses %llu (want %zu), malformed %llu "
			 "(want %zu)",
			 (unsigned long long)e->pushes, e->good, (unsigned long long)e->bad, bad);
	cycles = e->dut.cycle;
	bench_log(e->b, "%s: %zu writes (%zu doorbells) in %llu cycles", name, e->n, e->good,
		  (unsigned long long)cycles);
	bench_result(e->b, name, !e->why[0], "%s", e->why);
	free(e->w);
	free(e->good_list);
	dut_close(&e->dut);
	return cycles;
}

static void test_random(struct bench *b)
{
	unsigned int writes = b->quick ? 400 : 3000;
	struct env e;

	env_open(&e, b, 30, 30, 5);
	for (unsigned int i = 0; i < writes; i++)
		add(&e, bench_chance(b, 50) ? GOOD : (enum kind)bench_range(b, 1, KINDS - 1));
	run(&e, "db_pages_random");
}

/* Every kind of malformed write alone, then a good one: each counted, none a doorbell. */
static void test_each_malformed(struct bench *b)
{
	struct env e;

	env_open(&e, b, 0, 0, 0);
	for (int k = 1; k < KINDS; k++) {
		add(&e, (enum kind)k);
		add(&e, GOOD);
	}
	run(&e, "db_pages_each_malformed");
}

static void test_full_rate(struct bench *b)
{
	unsigned int writes = 1000;
	uint64_t start, end;
	struct env e;

	env_open(&e, b, 0, 0, 0);
	start = e.dut.cycle;
	for (unsigned int i = 0; i < writes; i++)
		add(&e, GOOD);
	end = run(&e, "db_pages_full_rate");
	/* the run's end includes dut_run's settle cycles: the figure is a bound from below */
	bench_log(b,
		  "db_pages: %u doorbells without idle or back-pressure: %.2f per cycle "
		  "(at least)",
		  writes, (double)writes / (double)(end - start));
}

int main(int argc, char **argv)
{
	struct bench b;

	bench_init(&b, "test_db_pages", argc, argv);
	test_each_malformed(&b);
	test_random(&b);
	test_full_rate(&b);
	return bench_finish(&b);
}
