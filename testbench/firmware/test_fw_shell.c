// SPDX-License-Identifier: MIT
/*
 * Bench of the board shell: hroce_shell with the core inside, driven as the PCIe bridge
 * drives it (32-bit AXI4-Lite on BAR0 and BAR2, the core's AXI4 master on the platform's
 * host-memory model, MSI-X messages taken with back-pressure, the flash and ICAP models on
 * the vendor pins); and the BAR0 bridge alone, to see exactly what reaches the core.
 *
 * The bridge alone (axil_reg_bridge): random 32-bit reads and writes (whole and partial
 * 64-bit registers, the board block), with random delays on every
 * channel of both sides; a C model of the bridge says which 64-bit transactions must
 * reach the core, in which order, with which data and strobes, and what every read
 * returns; the core's side is a C register file.
 *
 * The shell: the core's ID through the bridge; random 64-bit registers written as two
 * halves and read back against a shadow (lone halves are ignored, as the core ignores
 * partial writes); 64-bit reads of the time register while it crosses 2^32 (a read never
 * tears); the board block at BAR0 + 0x10000 (identity, the flash's JEDEC ID through the
 * SPI controller, the reload seen by the ICAP model); WQEs pushed on the doorbell pages
 * (BAR4: one well-formed, counted as pushed; malformed ones counted and dropped); and a
 * CQ arm doorbell (two halves) whose interrupt leaves as the MSI-X message of its vector.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "fw_axil.h"
#include "fw_flash.h"
#include "fw_sim.h"
#include "hroce_contract.h"
#include "sim_pcie.h"

extern const struct vmodel_ops vmodel_Vfw_shell, vmodel_Vfw_bridge;

/* ===================================================================================== */
/* The bridge alone */

#define CORE_WORDS 64 /* the core's register file in the bench: 64 words, wrapping */
#define MAX_TX 4096

struct core_tx {
	bool write;
	uint32_t addr;
	uint64_t data;
	uint8_t strb;
};

struct bridge_tb {
	struct dut d;
	struct fw_axil host;
	/* the core's side */
	const struct vmodel_port *awaddr, *awvalid, *awready, *wdata, *wstrb, *wvalid, *wready;
	const struct vmodel_port *bvalid, *bready, *bresp, *araddr, *arvalid, *arready;
	const struct vmodel_port *rdata, *rvalid, *rready, *rresp;
	const struct vmodel_port *board_addr, *board_wdata, *board_wstrb, *board_wr, *board_rdata;
	uint64_t regs[CORE_WORDS];
	/* an AW and a W taken, waiting for the write to be applied */
	bool have_aw, have_w, b_pending, r_pending;
	uint32_t aw, ar;
	uint64_t w;
	uint8_t ws;
	unsigned int b_delay, r_delay;
	struct core_tx seen[MAX_TX];
	unsigned int nseen;
	/* board writes seen */
	struct core_tx board[MAX_TX];
	unsigned int nboard;
};

static uint32_t board_value(uint32_t addr)
{
	return 0xb0a00000u | (addr & 0xff) * 0x101u;
}

static void bridge_drive(void *ctx)
{
	struct bridge_tb *t = ctx;
	struct bench *b = t->d.bench;

	vport_set(t->awready, !t->have_aw && bench_chance(b, 60));
	vport_set(t->wready, !t->have_w && bench_chance(b, 60));
	vport_set(t->arready, !t->r_pending && bench_chance(b, 60));
	vport_set(t->bvalid, t->b_pending && !t->b_delay);
	vport_set(t->bresp, 0);
	vport_set(t->rvalid, t->r_pending && !t->r_delay);
	vport_set(t->rdata, t->regs[(t->ar >> 3) % CORE_WORDS]);
	vport_set(t->rresp, 0);
	vport_set(t->board_rdata, board_value((uint32_t)vport_get(t->board_addr)));
}

static void bridge_sample(void *ctx)
{
	struct bridge_tb *t = ctx;
	struct bench *b = t->d.bench;

	vport_set(t->board_rdata, board_value((uint32_t)vport_get(t->board_addr)));
	if (vport_get(t->board_wr) && t->nboard < MAX_TX)
		t->board[t->nboard++] = (struct core_tx){ true, (uint32_t)vport_get(t->board_addr),
							  vport_get(t->board_wdata),
							  (uint8_t)vport_get(t->board_wstrb) };
	if (vport_get(t->bvalid) && vport_get(t->bready))
		t->b_pending = false;
	else if (t->b_delay)
		t->b_delay--;
	if (vport_get(t->rvalid) && vport_get(t->rready))
		t->r_pending = false;
	else if (t->r_delay)
		t->r_delay--;
	if (vport_get(t->awvalid) && vport_get(t->awready)) {
		t->have_aw = true;
		t->aw = (uint32_t)vport_get(t->awaddr);
	}
	if (vport_get(t->wvalid) && vport_get(t->wready)) {
		t->have_w = true;
		t->w = vport_get(t->wdata);
		t->ws = (uint8_t)vport_get(t->wstrb);
	}
	if (t->have_aw && t->have_w && !t->b_pending) {
		uint64_t *r = &t->regs[(t->aw >> 3) % CORE_WORDS];

		for (unsigned int i = 0; i < 8; i++)
			if (t->ws >> i & 1)
				*r = (*r & ~(UINT64_C(0xff) << (8 * i))) |
				     (t->w & UINT64_C(0xff) << (8 * i));
		if (t->nseen < MAX_TX)
			t->seen[t->nseen++] = (struct core_tx){ true, t->aw, t->w, t->ws };
		t->have_aw = t->have_w = false;
		t->b_pending = true;
		t->b_delay = (unsigned int)bench_range(b, 0, 5);
	}
	if (vport_get(t->arvalid) && vport_get(t->arready)) {
		t->ar = (uint32_t)vport_get(t->araddr);
		if (t->nseen < MAX_TX)
			t->seen[t->nseen++] = (struct core_tx){ false, t->ar, 0, 0 };
		t->r_pending = true;
		t->r_delay = (unsigned int)bench_range(b, 0, 5);
	}
}

/* The bridge's C model: what a 32-bit access must do. */
struct bridge_model {
	bool lo_valid, hi_valid;
	uint32_t lo_word, hi_word, lo_data, hi_data;
	uint64_t regs[CORE_WORDS];
	struct core_tx expect[MAX_TX];
	unsigned int nexpect;
	struct core_tx board[MAX_TX];
	unsigned int nboard;
};

static void model_core_write(struct bridge_model *m, uint32_t addr, uint64_t data, uint8_t strb)
{
	uint64_t *r = &m->regs[(addr >> 3) % CORE_WORDS];

	for (unsigned int i = 0; i < 8; i++)
		if (strb >> i & 1)
			*r = (*r & ~(UINT64_C(0xff) << (8 * i))) |
			     (data & UINT64_C(0xff) << (8 * i));
	m->expect[m->nexpect++] = (struct core_tx){ true, addr, data, strb };
}

static void model_write(struct bridge_model *m, uint32_t addr, uint32_t data, uint8_t strb)
{
	uint32_t word = (addr & 0xffff) >> 3;
	bool high = addr & 4, lo_match = m->lo_valid && m->lo_word == word && strb == 0xf;

	m->lo_valid = m->hi_valid = false;
	if (addr >= 0x10000) {
		m->board[m->nboard++] = (struct core_tx){ true, addr & 0xff, data, strb };
	} else if (!high) {
		m->lo_valid = strb == 0xf;
		m->lo_word = word;
		m->lo_data = data;
	} else if (lo_match) {
		model_core_write(m, word << 3, (uint64_t)data << 32 | m->lo_data, 0xff);
	} else {
		model_core_write(m, word << 3, (uint64_t)data << 32, (uint8_t)(strb << 4));
	}
}

static uint32_t model_read(struct bridge_model *m, uint32_t addr)
{
	uint32_t word = (addr & 0xffff) >> 3;
	bool high = addr & 4, hi_match = high && m->hi_valid && m->hi_word == word;
	uint64_t v;

	m->lo_valid = m->hi_valid = false;
	if (addr >= 0x10000)
		return board_value(addr & 0xff);
	if (hi_match)
		return m->hi_data;
	m->expect[m->nexpect++] = (struct core_tx){ false, word << 3, 0, 0 };
	v = m->regs[word % CORE_WORDS];
	if (!high) {
		m->hi_valid = true;
		m->hi_word = word;
		m->hi_data = (uint32_t)(v >> 32);
	}
	return high ? (uint32_t)(v >> 32) : (uint32_t)v;
}

static const struct vmodel_port *bp(struct bridge_tb *t, const char *name)
{
	return dut_port(&t->d, name);
}

static uint32_t random_addr(struct bench *b, uint32_t last)
{
	switch (bench_range(b, 0, 7)) {
	case 0: /* the high half of the word just used */
		return (last & ~7u) | 4;
	case 1: /* the board block */
		return 0x10000 + (uint32_t)bench_range(b, 0, 63) * 4;
	default: /* a few core registers, so that halves meet */
		return (uint32_t)bench_range(b, 0, 15) * 4;
	}
}

static void test_bridge(struct bench *b)
{
	struct bridge_tb *t = calloc(1, sizeof(*t));
	struct bridge_model *m = calloc(1, sizeof(*m));
	unsigned int ops = b->quick ? 400 : 2000, bad_reads = 0, first_bad = 0;
	uint32_t last = 0;
	bool ok;

	if (!t || !m)
		exit(1);
	dut_open(&t->d, b, &vmodel_Vfw_bridge);
	fw_axil_bind(&t->host, &t->d, "s_axil");
	t->awaddr = bp(t, "m_axil_awaddr");
	t->awvalid = bp(t, "m_axil_awvalid");
	t->awready = bp(t, "m_axil_awready");
	t->wdata = bp(t, "m_axil_wdata");
	t->wstrb = bp(t, "m_axil_wstrb");
	t->wvalid = bp(t, "m_axil_wvalid");
	t->wready = bp(t, "m_axil_wready");
	t->bvalid = bp(t, "m_axil_bvalid");
	t->bready = bp(t, "m_axil_bready");
	t->bresp = bp(t, "m_axil_bresp");
	t->araddr = bp(t, "m_axil_araddr");
	t->arvalid = bp(t, "m_axil_arvalid");
	t->arready = bp(t, "m_axil_arready");
	t->rdata = bp(t, "m_axil_rdata");
	t->rvalid = bp(t, "m_axil_rvalid");
	t->rready = bp(t, "m_axil_rready");
	t->rresp = bp(t, "m_axil_rresp");
	t->board_addr = bp(t, "board_addr");
	t->board_wdata = bp(t, "board_wdata");
	t->board_wstrb = bp(t, "board_wstrb");
	t->board_wr = bp(t, "board_wr");
	t->board_rdata = bp(t, "board_rdata");
	dut_add_agent(&t->d, bridge_drive, bridge_sample, t);
	dut_reset(&t->d, 4);

	for (unsigned int k = 0; k < ops && m->nexpect < MAX_TX - 20; k++) {
		uint32_t addr = random_addr(b, last);

		last = addr;
		if (bench_chance(b, 50)) {
			uint32_t d = (uint32_t)bench_rand(b);
			uint8_t s = bench_chance(b, 85) ? 0xf : (uint8_t)bench_range(b, 0, 15);

			fw_axil_write(&t->host, addr, d, s);
			model_write(m, addr, d, s);
		} else {
			uint32_t got = fw_axil_read(&t->host, addr), want = model_read(m, addr);

			if (got != want && !bad_reads++)
				first_bad = k;
		}
	}
	ok = t->nseen == m->nexpect &&
	     !memcmp(t->seen, m->expect, m->nexpect * sizeof(struct core_tx)) &&
	     t->nboard == m->nboard &&
	     !memcmp(t->board, m->board, m->nboard * sizeof(struct core_tx));
	if (!ok) {
		unsigned int i = 0;

		while (i < t->nseen && i < m->nexpect &&
		       !memcmp(&t->seen[i], &m->expect[i], sizeof(struct core_tx)))
			i++;
		bench_result(b, "bridge_core_transactions", false,
			     "%u seen, %u expected; first difference at %u (%s %#x %016llx/%02x)",
			     t->nseen, m->nexpect, i,
			     i < t->nseen ? (t->seen[i].write ? "write" : "read") : "none",
			     i < t->nseen ? t->seen[i].addr : 0,
			     i < t->nseen ? (unsigned long long)t->seen[i].data : 0ull,
			     i < t->nseen ? t->seen[i].strb : 0);
	} else {
		bench_result(b, "bridge_core_transactions", true, "ok");
	}
	bench_result(b, "bridge_reads", !bad_reads && !t->host.errors,
		     "%u reads returned another value (first at op %u), %u bus errors", bad_reads,
		     first_bad, t->host.errors);
	bench_log(b, "bridge: %u core transactions, %u board writes, %llu cycles", m->nexpect,
		  m->nboard, (unsigned long long)t->d.cycle);
	dut_close(&t->d);
	free(t);
	free(m);
}

/* ===================================================================================== */
/* The shell with the core */

#define HOST_BYTES (64u << 10)
#define IOVA_BASE UINT64_C(0x0000001234500000)
#define CQC_OFF 0x1000u /* the CQ context table in host memory */
#define TIME_START UINT64_C(0xfffff000)
#define BAR2_PBA 0x800u

struct msix_msg {
	uint64_t addr;
	uint32_t data;
};

struct shell_tb {
	struct dut d;
	struct fw_axil bar0, bar2;
	uint8_t *mem;
	struct sim_iommu mmu;
	struct sim_axi_bus bus;
	struct sim_pcie pcie;
	struct fw_pins pins;
	struct flash_model flash;
	uint8_t *flash_mem;
	struct icap_model icap;
	const struct vmodel_port *time_now, *mac_clk, *mac_rst, *msix_enable, *msix_fmask;
	const struct vmodel_port *msix_addr, *msix_data, *msix_valid, *msix_ready;
	const struct vmodel_port *mac_tx_valid, *mac_tx_ready, *mac_rx_valid;
	const struct vmodel_port *db_awaddr, *db_awlen, *db_awsize, *db_awvalid, *db_awready;
	const struct vmodel_port *db_wdata, *db_wstrb, *db_wlast, *db_wvalid, *db_wready;
	const struct vmodel_port *db_bready;
	struct msix_msg msgs[64];
	unsigned int nmsgs;
	uint64_t mac_tx_beats;
};

static void shell_drive(void *ctx)
{
	struct shell_tb *t = ctx;

	vport_set(t->time_now, TIME_START + t->d.cycle);
	vport_set(t->mac_clk, t->d.cycle & 1); /* the MAC's clock: another one, half as fast */
	vport_set(t->msix_ready, bench_chance(t->d.bench, 50));
	vport_set(t->mac_tx_ready, 1);
	sim_pcie_drive(&t->pcie, t->d.cycle);
}

static void shell_sample(void *ctx)
{
	struct shell_tb *t = ctx;

	sim_pcie_sample(&t->pcie, t->d.cycle);
	fw_pins_eval(&t->pins, t->d.cycle * FW_SIM_NS_PER_CYCLE);
	if (vport_get(t->msix_valid) && vport_get(t->msix_ready) && t->nmsgs < 64)
		t->msgs[t->nmsgs++] = (struct msix_msg){ vport_get(t->msix_addr),
							 (uint32_t)vport_get(t->msix_data) };
	if (vport_get(t->mac_tx_valid) && vport_get(t->mac_clk))
		t->mac_tx_beats++;
}

static void w64(struct shell_tb *t, uint32_t off, uint64_t v)
{
	fw_axil_write(&t->bar0, off, (uint32_t)v, 0xf);
	fw_axil_write(&t->bar0, off + 4, (uint32_t)(v >> 32), 0xf);
}

static uint64_t r64(struct shell_tb *t, uint32_t off)
{
	uint64_t lo = fw_axil_read(&t->bar0, off);

	return lo | (uint64_t)fw_axil_read(&t->bar0, off + 4) << 32;
}

static uint32_t shell_board_read(void *ctx, uint32_t off)
{
	return fw_axil_read(&((struct shell_tb *)ctx)->bar0, FW_BOARD_BASE + off);
}

static void shell_board_write(void *ctx, uint32_t off, uint32_t v)
{
	fw_axil_write(&((struct shell_tb *)ctx)->bar0, FW_BOARD_BASE + off, v, 0xf);
}

static void shell_open(struct shell_tb *t, struct bench *b)
{
	/* the bridge's limits: the defaults (SIM_PCIE_READS, SIM_PCIE_WRITES), as on the board */
	struct sim_pcie_timing tm = { 100, 100, 0, 250, 0, 0, 0 };
	int err;

	t->mem = aligned_alloc(4096, HOST_BYTES);
	t->flash_mem = malloc(FLASH_MT25QU01G_BYTES);
	if (!t->mem || !t->flash_mem)
		exit(1);
	memset(t->mem, 0, HOST_BYTES);
	memset(t->flash_mem, 0xff, FLASH_MT25QU01G_BYTES);
	flash_model_init(&t->flash, t->flash_mem, FLASH_MT25QU01G_BYTES);
	icap_model_init(&t->icap);
	sim_iommu_init(&t->mmu);
	dut_open(&t->d, b, &vmodel_Vfw_shell);
	err = sim_iommu_map(&t->mmu, t->mem, IOVA_BASE, HOST_BYTES)
		      ?: sim_axi_bus_bind(&t->bus, &t->d.vm, "m_axi_")
		      ?: sim_pcie_init(&t->pcie, &t->bus, &t->mmu, &tm, NULL)
		      ?: fw_pins_bind(&t->pins, &t->d.vm, &t->flash, &t->icap);
	if (err) {
		fprintf(stderr, "test_fw_shell: setting up the shell: %s\n", strerror(err));
		exit(1);
	}
	fw_axil_bind(&t->bar0, &t->d, "s_axil");
	fw_axil_bind(&t->bar2, &t->d, "s_axil_msix");
	t->time_now = dut_port(&t->d, "time_now");
	t->mac_clk = dut_port(&t->d, "mac_clk");
	t->mac_rst = dut_port(&t->d, "mac_rst");
	t->msix_enable = dut_port(&t->d, "cfg_msix_enable");
	t->msix_fmask = dut_port(&t->d, "cfg_msix_function_mask");
	t->msix_addr = dut_port(&t->d, "m_msix_addr");
	t->msix_data = dut_port(&t->d, "m_msix_data");
	t->msix_valid = dut_port(&t->d, "m_msix_valid");
	t->msix_ready = dut_port(&t->d, "m_msix_ready");
	t->mac_tx_valid = dut_port(&t->d, "m_axis_mac_tx_tvalid");
	t->mac_tx_ready = dut_port(&t->d, "m_axis_mac_tx_tready");
	t->mac_rx_valid = dut_port(&t->d, "s_axis_mac_rx_tvalid");
	t->db_awaddr = dut_port(&t->d, "s_axi_db_awaddr");
	t->db_awlen = dut_port(&t->d, "s_axi_db_awlen");
	t->db_awsize = dut_port(&t->d, "s_axi_db_awsize");
	t->db_awvalid = dut_port(&t->d, "s_axi_db_awvalid");
	t->db_awready = dut_port(&t->d, "s_axi_db_awready");
	t->db_wdata = dut_port(&t->d, "s_axi_db_wdata");
	t->db_wstrb = dut_port(&t->d, "s_axi_db_wstrb");
	t->db_wlast = dut_port(&t->d, "s_axi_db_wlast");
	t->db_wvalid = dut_port(&t->d, "s_axi_db_wvalid");
	t->db_wready = dut_port(&t->d, "s_axi_db_wready");
	t->db_bready = dut_port(&t->d, "s_axi_db_bready");
	dut_add_agent(&t->d, shell_drive, shell_sample, t);
	vport_set(t->mac_rst, 1);
	dut_reset(&t->d, 16);
	vport_set(t->mac_rst, 0);
	vport_set(t->msix_enable, 1);
}

static void shell_close(struct shell_tb *t)
{
	sim_pcie_fini(&t->pcie);
	dut_close(&t->d);
	sim_iommu_fini(&t->mmu);
	free(t->mem);
	free(t->flash_mem);
}

static void test_shell_regs(struct bench *b, struct shell_tb *t)
{
	static const struct {
		uint32_t off;
		uint64_t mask;
	} rw[] = {
		{ HROCE_REG_MAC, UINT64_C(0xffffffffffff) },
		{ HROCE_REG_IPV4, UINT64_C(0xffffffff) },
		{ HROCE_REG_QPC_BASE, ~UINT64_C(0) },
		{ HROCE_REG_MRC_BASE, ~UINT64_C(0) },
		{ HROCE_REG_CMD_MAILBOX, ~UINT64_C(0) },
		{ HROCE_REG_CMD_ARG, ~UINT64_C(0) },
	};
	const unsigned int n = sizeof(rw) / sizeof(rw[0]);
	uint64_t shadow[sizeof(rw) / sizeof(rw[0])] = { 0 };
	unsigned int bad = 0, ops = b->quick ? 60 : 240;
	int held = -1; /* the register whose low half the bridge holds */
	uint32_t held_lo = 0;
	uint64_t id = r64(t, HROCE_REG_ID), ver = r64(t, HROCE_REG_VERSION);
	char why[128] = "";

	bench_result(b, "shell_core_id", id == HROCE_CORE_ID && ver == HROCE_CORE_VERSION,
		     "REG_ID %#llx, REG_VERSION %#llx", (unsigned long long)id,
		     (unsigned long long)ver);
	for (unsigned int i = 0; i < n; i++)
		shadow[i] = r64(t, rw[i].off);
	for (unsigned int k = 0; k < ops; k++) {
		unsigned int i = (unsigned int)bench_range(b, 0, n - 1);
		uint64_t v = bench_rand(b);

		int was_held = held;

		held = -1;
		switch (bench_range(b, 0, 5)) {
		case 0: /* a lone low half: held by the bridge */
			fw_axil_write(&t->bar0, rw[i].off, (uint32_t)v, 0xf);
			held = (int)i;
			held_lo = (uint32_t)v;
			break;
		case 1: /* a lone high half: ignored, unless it follows its low half */
			fw_axil_write(&t->bar0, rw[i].off + 4, (uint32_t)v, 0xf);
			if (was_held == (int)i)
				shadow[i] = ((uint64_t)(uint32_t)v << 32 | held_lo) & rw[i].mask;
			break;
		case 2:
		case 3:
			w64(t, rw[i].off, v);
			shadow[i] = v & rw[i].mask;
			break;
		default: {
			uint64_t got = r64(t, rw[i].off);

			if (got != shadow[i] && !bad++)
				snprintf(why, sizeof(why), "register %#x: %#llx, want %#llx",
					 rw[i].off, (unsigned long long)got,
					 (unsigned long long)shadow[i]);
			break;
		}
		}
	}
	bench_result(b, "shell_regs_64bit_halves", !bad && !t->bar0.errors, "%u bad reads: %s", bad,
		     why);

	/* the time crosses 2^32 meanwhile: a 64-bit read is one read of the core */
	bad = 0;
	for (unsigned int k = 0; k < 40; k++) {
		uint64_t before = TIME_START + t->d.cycle, v = r64(t, HROCE_REG_TIME);
		uint64_t after = TIME_START + t->d.cycle;

		if ((v < before || v > after) && !bad++)
			snprintf(why, sizeof(why), "%#llx read between %#llx and %#llx",
				 (unsigned long long)v, (unsigned long long)before,
				 (unsigned long long)after);
		for (unsigned int c = 0; c < 100; c++)
			dut_step(&t->d);
	}
	bench_result(b, "shell_time_read_whole",
		     !bad && TIME_START + t->d.cycle > UINT64_C(0x100000000), "%s", why);
}

static void test_shell_board(struct bench *b, struct shell_tb *t)
{
	struct fw_regs r = { .ctx = t,
			     .read = shell_board_read,
			     .write = shell_board_write,
			     .spi_div = 0,
			     .poll_limit = 100000 };
	struct fw_board_info info;
	uint8_t id[3] = { 0 };
	int err;

	fw_board_info(&r, &info);
	bench_result(b, "shell_board_block", !fw_board_check(&info) && info.idcode == 0x04b37093,
		     "magic %#x idcode %#x", info.magic, info.idcode);
	err = fw_flash_read_id(&r, id);
	bench_result(b, "shell_flash_jedec",
		     !err && id[0] == 0x20 && id[1] == 0xbb && id[2] == 0x21, "%s: %02x %02x %02x",
		     strerror(err), id[0], id[1], id[2]);
	shell_board_write(t, FW_REG_RELOAD_ADDR, info.update_off);
	shell_board_write(t, FW_REG_RELOAD, FW_RELOAD_KEY);
	for (unsigned int c = 0; c < 100; c++)
		dut_step(&t->d);
	bench_result(b, "shell_reload",
		     t->icap.iprogs == 1 && t->icap.iprog_wbstar == info.update_off,
		     "%u IPROGs, WBSTAR %#x", t->icap.iprogs, t->icap.iprog_wbstar);
}

/* One write of the doorbell pages as the bridge's wide master gives it; false: not taken. */
static bool db_write(struct shell_tb *t, uint32_t addr, const uint8_t *line, uint64_t strb)
{
	bool aw = false, w = false;

	vport_set(t->db_awaddr, addr);
	vport_set(t->db_awlen, 0);
	vport_set(t->db_awsize, 6);
	vport_write(t->db_wdata, line, HROCE_DB_PUSH_BYTES);
	vport_set(t->db_wstrb, strb);
	vport_set(t->db_wlast, 1);
	vport_set(t->db_bready, 1);
	for (unsigned int c = 0; c < 1000 && !(aw && w); c++) {
		vport_set(t->db_awvalid, !aw);
		vport_set(t->db_wvalid, !w);
		t->d.vm.ops->eval(t->d.vm.model);
		aw = aw || vport_get(t->db_awready);
		w = w || vport_get(t->db_wready);
		dut_step(&t->d);
	}
	vport_set(t->db_awvalid, 0);
	vport_set(t->db_wvalid, 0);
	return aw && w;
}

static uint64_t core_counter(struct shell_tb *t, unsigned int which)
{
	return r64(t, HROCE_REG_CORE_COUNTERS + 8 * which);
}

/*
 * WQEs on the doorbell pages: one for QP 1 at QP 1's slot (pushed), one at another QP's
 * slot and one with a byte not strobed (both malformed: counted, dropped); the port takes
 * every one, and the registers still answer after them.
 */
static void test_shell_push(struct bench *b, struct shell_tb *t)
{
	uint8_t wqe[HROCE_DB_PUSH_BYTES];
	unsigned int errors = t->bar0.errors;
	uint64_t mac = bench_rand(b) & UINT64_C(0xffffffffffff);
	uint64_t pushed = core_counter(t, HROCE_CORE_COUNTER_DB_PUSHED);
	uint64_t bad = core_counter(t, HROCE_CORE_COUNTER_DB_MALFORMED);
	bool taken;

	bench_fill(b, wqe, sizeof(wqe));
	HROCE_SQ_WQE_SET(wqe, QPN, 1);
	HROCE_SQ_WQE_SET(wqe, DB_INDEX, 1);
	taken = db_write(t, 1 * HROCE_DB_PUSH_BYTES, wqe, ~UINT64_C(0));
	taken = db_write(t, 2 * HROCE_DB_PUSH_BYTES, wqe, ~UINT64_C(0)) && taken;
	taken = db_write(t, 1 * HROCE_DB_PUSH_BYTES, wqe, ~UINT64_C(0) >> 8) && taken;
	for (unsigned int c = 0; c < 20; c++)
		dut_step(&t->d);
	/* the bridge still serves registers after it */
	w64(t, HROCE_REG_MAC, mac);
	bench_result(b, "shell_wqe_push",
		     taken && t->bar0.errors == errors && r64(t, HROCE_REG_MAC) == mac &&
			     core_counter(t, HROCE_CORE_COUNTER_DB_PUSHED) == pushed + 1 &&
			     core_counter(t, HROCE_CORE_COUNTER_DB_MALFORMED) == bad + 2,
		     "taken %d, %u bus errors, %llu pushed, %llu malformed", taken,
		     t->bar0.errors - errors,
		     (unsigned long long)(core_counter(t, HROCE_CORE_COUNTER_DB_PUSHED) - pushed),
		     (unsigned long long)(core_counter(t, HROCE_CORE_COUNTER_DB_MALFORMED) - bad));
}

static void test_shell_irq(struct bench *b, struct shell_tb *t)
{
	const unsigned int cqn = 3, vector = (unsigned int)bench_range(b, 1, 63);
	uint8_t *cqc = t->mem + CQC_OFF + cqn * HROCE_CQC_BYTES;
	uint64_t addr = UINT64_C(0xfee00000) | (uint64_t)vector << 4;
	uint32_t data = 0x4000 | vector, db[HROCE_DOORBELL_WORDS] = { 0 };
	uint64_t irqs;

	/* a CQ whose driver says it consumed one completion more than the core wrote */
	HROCE_CQC_SET(cqc, VALID, 1);
	HROCE_CQC_SET(cqc, LOG_SIZE, 4);
	HROCE_CQC_SET(cqc, IRQ_VECTOR, vector);
	HROCE_CQC_SET(cqc, BASE, IOVA_BASE);
	w64(t, HROCE_REG_CQC_BASE, IOVA_BASE + CQC_OFF);
	w64(t, HROCE_REG_CQC_LOG, 4);
	fw_axil_write(&t->bar2, vector * 16, (uint32_t)addr, 0xf);
	fw_axil_write(&t->bar2, vector * 16 + 4, (uint32_t)(addr >> 32), 0xf);
	fw_axil_write(&t->bar2, vector * 16 + 8, data, 0xf);
	fw_axil_write(&t->bar2, vector * 16 + 12, 0, 0xf);
	HROCE_DOORBELL_SET(db, NUM, cqn);
	HROCE_DOORBELL_SET(db, INDEX, 1);
	/* the high half alone is ignored: no interrupt */
	fw_axil_write(&t->bar0, HROCE_REG_DB_CQ + 4, db[1], 0xf);
	for (unsigned int c = 0; c < 2000; c++)
		dut_step(&t->d);
	bench_result(b, "shell_lone_half_doorbell", t->nmsgs == 0, "%u messages", t->nmsgs);
	/* the arm doorbell whole: PI (0) != CI (1), so the interrupt goes at once */
	w64(t, HROCE_REG_DB_CQ, (uint64_t)db[1] << 32 | db[0]);
	for (unsigned int c = 0; c < 5000 && !t->nmsgs; c++)
		dut_step(&t->d);
	irqs = r64(t, HROCE_REG_CORE_COUNTERS + 8 * HROCE_CORE_COUNTER_IRQ);
	bench_result(
		b, "shell_irq_to_msix",
		t->nmsgs == 1 && t->msgs[0].addr == addr && t->msgs[0].data == data && irqs == 1,
		"%u messages (addr %#llx data %#x), want one to %#llx with %#x; core IRQ count %llu",
		t->nmsgs, t->nmsgs ? (unsigned long long)t->msgs[0].addr : 0ull,
		t->nmsgs ? t->msgs[0].data : 0, (unsigned long long)addr, data,
		(unsigned long long)irqs);
	bench_result(b, "shell_pba_clear",
		     fw_axil_read(&t->bar2, BAR2_PBA) == 0 &&
			     fw_axil_read(&t->bar2, BAR2_PBA + 4) == 0,
		     "a pending bit left after the message");
}

int main(int argc, char **argv)
{
	struct bench b;
	struct shell_tb *t;

	bench_init(&b, "test_fw_shell", argc, argv);
	test_bridge(&b);

	t = calloc(1, sizeof(*t));
	if (!t)
		return 1;
	shell_open(t, &b);
	test_shell_regs(&b, t);
	test_shell_board(&b, t);
	test_shell_push(&b, t);
	test_shell_irq(&b, t);
	bench_result(&b, "shell_no_dma_fault", t->mmu.faults == 0 && t->pcie.protocol_errors == 0,
		     "%llu IOMMU faults, %llu protocol errors", (unsigned long long)t->mmu.faults,
		     (unsigned long long)t->pcie.protocol_errors);
	bench_log(&b, "shell: %llu cycles", (unsigned long long)t->d.cycle);
	shell_close(t);
	free(t);
	return bench_finish(&b);
}
