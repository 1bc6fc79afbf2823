// SPDX-License-Identifier: MIT
/*
 * Bench of libhroce-sim.
 *
 * The host-memory/PCIe model and the link channel are driven without the core: a small C
 * AXI4 master issues random bursts (random IDs, sizes, unaligned starts, strobes, valid
 * gaps and ready back-pressure, W before AW) against a shadow of host memory and checks
 * every beat, the order per ID, the latencies, the bandwidth, interleaving and the faults
 * of unmapped or illegal bursts; a C stream source and sink push random frames through a
 * channel and check the beats, their order, the latency, the rate, the pauses and the pcap.
 * Then the API is checked on the Verilated hroce_core: MMIO through the PCIe model,
 * registers, events, the IOMMU calls, links and their pcap, determinism, faults on a link
 * (the receiving core counts flipped frames as roce_parse says, and never takes them),
 * and the simulation speed is reported.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "hroce_contract.h"
#include "hroce_sim.h"
#include "pcap.h"
#include "roce_random.h"
#include "roce_wire.h"
#include "sim_channel.h"
#include "sim_internal.h"
#include "sim_pcie.h"

#define MHZ 250
#define PAGE 4096u

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *page_alloc(size_t len)
{
	void *p = aligned_alloc(PAGE, len);

	if (!p) {
		perror("aligned_alloc");
		exit(1);
	}
	return p;
}

/* ===================================================================================== */
/* A C AXI4 master for the PCIe model */

struct tb_read {
	struct tb_read *next;
	uint64_t addr;
	unsigned int id, len, size, burst;
	uint8_t resp; /* expected on every beat */
	uint32_t bytes;
	uint8_t *expect; /* bytes of [addr, addr + bytes) */
	uint64_t accept, first, last;
	unsigned int beats;
	int tag; /* the test's */
};

struct tb_write {
	struct tb_write *aw_next, *w_next, *b_next;
	uint64_t addr;
	unsigned int id, len, size, burst;
	uint8_t resp;
	uint8_t (*data)[64];
	uint64_t *strb;
	unsigned int w_sent;
	uint64_t accept, last_w, b;
	int tag;
};

struct axi_tb {
	struct bench *b;
	struct sim_axi_wires w;
	struct sim_axi_bus bus;
	struct sim_iommu mmu;
	struct sim_pcie pcie;
	struct sim_pcie_timing t;
	uint64_t now;
	struct tb_read *ar_head, *ar_tail;
	struct tb_write *aw_head, *aw_tail, *w_head, *w_tail;
	struct tb_read *rq_head[256], *rq_tail[256];
	struct tb_write *bq_head[256], *bq_tail[256];
	unsigned int valid_pct, ready_pct;
	bool ar_fired, aw_fired, w_fired; /* handshakes of the last cycle */
	struct tb_read *last_beat_of;	  /* the burst the last R beat was of */
	/* bursts in flight as the master sees them: AR to last R beat, AW to B; and peaks */
	unsigned int reads_out, writes_out, reads_peak, writes_peak;
	uint64_t interleaves, reads_done, writes_done, r_beats, r_bytes;
	void (*read_done)(struct axi_tb *tb, struct tb_read *r);
	void (*write_done)(struct axi_tb *tb, struct tb_write *w);
	void (*irq)(struct axi_tb *tb, unsigned int vector);
	void *ctx;
	uint64_t events[HROCE_SIM_STAGE + 1];
	uint64_t event_cycle[HROCE_SIM_STAGE + 1];
	char error[320];
};

static void tb_fail(struct axi_tb *tb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tb_fail(struct axi_tb *tb, const char *fmt, ...)
{
	va_list ap;

	if (tb->error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(tb->error, sizeof(tb->error), fmt, ap);
	va_end(ap);
}

static void tb_event(void *ctx, enum hroce_sim_event_kind kind, uint64_t cycle, uint64_t addr,
		     uint64_t len)
{
	struct axi_tb *tb = ctx;

	(void)addr;
	(void)len;
	tb->events[kind]++;
	tb->event_cycle[kind] = cycle;
}

static void tb_irq(void *ctx, unsigned int vector, uint64_t cycle)
{
	struct axi_tb *tb = ctx;

	(void)cycle;
	if (tb->irq)
		tb->irq(tb, vector);
}

static void tb_open(struct axi_tb *tb, struct bench *b, uint32_t rl, uint32_t wl, uint32_t gbps)
{
	struct sim_pcie_hooks hooks = { tb_event, tb_irq, tb };
	int err;

	memset(tb, 0, sizeof(*tb));
	tb->b = b;
	sim_axi_bus_wire(&tb->bus, &tb->w);
	sim_iommu_init(&tb->mmu);
	tb->t = (struct sim_pcie_timing){
		.read_latency = rl, .write_latency = wl, .gbps = gbps, .clock_mhz = MHZ
	};
	err = sim_pcie_init(&tb->pcie, &tb->bus, &tb->mmu, &tb->t, &hooks);
	if (err) {
		fprintf(stderr, "sim_pcie_init: %s\n", strerror(err));
		exit(1);
	}
	tb->valid_pct = tb->ready_pct = 100;
}

static void tb_close(struct axi_tb *tb)
{
	sim_pcie_fini(&tb->pcie);
	sim_iommu_fini(&tb->mmu);
}

/* Beat k of an INCR burst, as the AXI specification has it. */
static void tb_beat(uint64_t addr, unsigned int size, unsigned int k, uint64_t *baddr,
		    unsigned int *lo, unsigned int *hi)
{
	uint64_t sb = 1ull << size, aligned = addr / sb * sb;

	*baddr = k ? aligned + k * sb : addr;
	*lo = *baddr % 64;
	*hi = (unsigned int)((aligned + k * sb) % 64 + sb - 1);
}

static uint32_t burst_bytes(uint64_t addr, unsigned int len, unsigned int size)
{
	uint64_t sb = 1ull << size;

	return (uint32_t)(addr / sb * sb + (len + 1) * sb - addr);
}

static struct tb_read *tb_issue_read(struct axi_tb *tb, uint64_t addr, unsigned int id,
				     unsigned int len, unsigned int size, uint8_t resp,
				     const uint8_t *expect)
{
	struct tb_read *r = calloc(1, sizeof(*r));

	r->addr = addr;
	r->id = id;
	r->len = len;
	r->size = size;
	r->burst = SIM_AXI_BURST_INCR;
	r->resp = resp;
	r->bytes = burst_bytes(addr, len, size);
	r->expect = calloc(1, r->bytes);
	if (expect && resp == SIM_AXI_OKAY)
		memcpy(r->expect, expect, r->bytes);
	if (tb->ar_tail)
		tb->ar_tail->next = r;
	else
		tb->ar_head = r;
	tb->ar_tail = r;
	return r;
}

static struct tb_write *tb_issue_write(struct axi_tb *tb, uint64_t addr, unsigned int id,
				       unsigned int len, unsigned int size, uint8_t resp)
{
	struct tb_write *w = calloc(1, sizeof(*w));

	w->addr = addr;
	w->id = id;
	w->len = len;
	w->size = size;
	w->burst = SIM_AXI_BURST_INCR;
	w->resp = resp;
	w->data = calloc(len + 1, sizeof(*w->data));
	w->strb = calloc(len + 1, sizeof(*w->strb));
	if (tb->aw_tail)
		tb->aw_tail->aw_next = w;
	else
		tb->aw_head = w;
	tb->aw_tail = w;
	if (tb->w_tail)
		tb->w_tail->w_next = w;
	else
		tb->w_head = w;
	tb->w_tail = w;
	return w;
}

/* Fills a write's beats from src (the bytes of its range) with all or random strobes. */
static void tb_write_fill(struct axi_tb *tb, struct tb_write *w, const uint8_t *src, bool random)
{
	for (unsigned int k = 0; k <= w->len; k++) {
		uint64_t baddr, lanes;
		unsigned int lo, hi;

		tb_beat(w->addr, w->size, k, &baddr, &lo, &hi);
		lanes = (~0ull >> (63 - hi)) & (~0ull << lo);
		bench_fill(tb->b, w->data[k], 64);
		for (unsigned int l = lo; l <= hi; l++)
			w->data[k][l] = src[baddr - w->addr + l - lo];
		w->strb[k] = random && bench_chance(tb->b, 30) ? bench_rand(tb->b) & lanes : lanes;
	}
}

/* What memory holds after the write (the bytes of its range, from what it held). */
static void tb_write_apply(const struct tb_write *w, uint8_t *mem)
{
	for (unsigned int k = 0; k <= w->len; k++) {
		uint64_t baddr;
		unsigned int lo, hi;

		tb_beat(w->addr, w->size, k, &baddr, &lo, &hi);
		for (unsigned int l = lo; l <= hi; l++)
			if (w->strb[k] >> l & 1)
				mem[baddr - w->addr + l - lo] = w->data[k][l];
	}
}

static void tb_check_beat(struct axi_tb *tb)
{
	struct sim_axi_wires *w = &tb->w;
	struct tb_read *r = tb->rq_head[w->rid];
	uint8_t expect[64] = { 0 };
	unsigned int lo, hi, k;
	uint64_t baddr, min_first;

	if (!r) {
		tb_fail(tb, "cycle %llu: R beat of ID %u with no read in flight",
			(unsigned long long)tb->now, w->rid);
		return;
	}
	k = r->beats++;
	tb_beat(r->addr, r->size, k, &baddr, &lo, &hi);
	if (r->resp == SIM_AXI_OKAY)
		memcpy(expect + lo, r->expect + (baddr - r->addr), hi - lo + 1);
	if (memcmp(expect, w->rdata, 64))
		tb_fail(tb, "cycle %llu: read 0x%llx ID %u beat %u: wrong data",
			(unsigned long long)tb->now, (unsigned long long)r->addr, r->id, k);
	if (w->rresp != r->resp)
		tb_fail(tb, "cycle %llu: read 0x%llx beat %u: RRESP %u, expected %u",
			(unsigned long long)tb->now, (unsigned long long)r->addr, k, w->rresp,
			r->resp);
	if (w->rlast != (k == r->len))
		tb_fail(tb, "cycle %llu: read 0x%llx beat %u of %u: RLAST %u",
			(unsigned long long)tb->now, (unsigned long long)r->addr, k, r->len + 1,
			w->rlast);
	if (tb->last_beat_of && tb->last_beat_of != r && tb->last_beat_of->beats &&
	    tb->last_beat_of->beats <= tb->last_beat_of->len)
		tb->interleaves++;
	tb->last_beat_of = r;
	tb->r_beats++;
	tb->r_bytes += hi - lo + 1;
	if (!k) {
		r->first = tb->now;
		min_first = r->accept + (tb->t.read_latency ? 2 * tb->t.read_latency : 1);
		if (r->first < min_first)
			tb_fail(tb,
				"read 0x%llx: first beat %llu cycles after AR, less than 2 x %u",
				(unsigned long long)r->addr,
				(unsigned long long)(r->first - r->accept), tb->t.read_latency);
	}
	if (k < r->len)
		return;
	r->last = tb->now;
	tb->reads_out--;
	tb->rq_head[r->id] = r->next;
	if (!r->next)
		tb->rq_tail[r->id] = NULL;
	tb->reads_done++;
	if (tb->read_done)
		tb->read_done(tb, r);
	if (tb->last_beat_of == r)
		tb->last_beat_of = NULL;
	free(r->expect);
	free(r);
}

static void tb_check_b(struct axi_tb *tb)
{
	struct tb_write *wr = tb->bq_head[tb->w.bid];

	if (!wr) {
		tb_fail(tb, "cycle %llu: B of ID %u with no write in flight",
			(unsigned long long)tb->now, tb->w.bid);
		return;
	}
	if (wr->w_sent <= wr->len || tb->now <= wr->last_w)
		tb_fail(tb, "write 0x%llx: B before its last W beat", (unsigned long long)wr->addr);
	if (tb->w.bresp != wr->resp)
		tb_fail(tb, "write 0x%llx: BRESP %u, expected %u", (unsigned long long)wr->addr,
			tb->w.bresp, wr->resp);
	wr->b = tb->now;
	tb->writes_out--;
	tb->bq_head[wr->id] = wr->b_next;
	if (!wr->b_next)
		tb->bq_tail[wr->id] = NULL;
	tb->writes_done++;
	if (tb->write_done)
		tb->write_done(tb, wr);
	free(wr->data);
	free(wr->strb);
	free(wr);
}

static void tb_cycle(struct axi_tb *tb)
{
	struct sim_axi_wires *w = &tb->w;
	struct bench *b = tb->b;

	/* the master drives: what the last cycle's handshakes took goes first */
	if (tb->ar_fired)
		w->arvalid = 0;
	if (tb->aw_fired)
		w->awvalid = 0;
	if (tb->w_fired)
		w->wvalid = 0;
	tb->ar_fired = tb->aw_fired = tb->w_fired = false;
	if (!w->arvalid && tb->ar_head && bench_chance(b, tb->valid_pct)) {
		struct tb_read *r = tb->ar_head;

		w->arid = (uint8_t)r->id;
		w->araddr = r->addr;
		w->arlen = (uint8_t)r->len;
		w->arsize = (uint8_t)r->size;
		w->arburst = (uint8_t)r->burst;
		w->arvalid = 1;
	}
	if (!w->awvalid && tb->aw_head && bench_chance(b, tb->valid_pct)) {
		struct tb_write *wr = tb->aw_head;

		w->awid = (uint8_t)wr->id;
		w->awaddr = wr->addr;
		w->awlen = (uint8_t)wr->len;
		w->awsize = (uint8_t)wr->size;
		w->awburst = (uint8_t)wr->burst;
		w->awvalid = 1;
	}
	if (!w->wvalid && tb->w_head && bench_chance(b, tb->valid_pct)) {
		struct tb_write *wr = tb->w_head;

		memcpy(w->wdata, wr->data[wr->w_sent], 64);
		w->wstrb = wr->strb[wr->w_sent];
		w->wlast = wr->w_sent == wr->len;
		w->wvalid = 1;
	}
	w->rready = bench_chance(b, tb->ready_pct);
	w->bready = bench_chance(b, tb->ready_pct);

	sim_pcie_drive(&tb->pcie, tb->now);

	/* both sample the cycle's handshakes */
	if (w->arvalid && w->arready) {
		struct tb_read *r = tb->ar_head;

		tb->ar_head = r->next;
		if (!tb->ar_head)
			tb->ar_tail = NULL;
		r->next = NULL;
		r->accept = tb->now;
		if (tb->rq_tail[r->id])
			tb->rq_tail[r->id]->next = r;
		else
			tb->rq_head[r->id] = r;
		tb->rq_tail[r->id] = r;
		tb->ar_fired = true; /* valid stays up until the model sampled it too */
		if (++tb->reads_out > tb->reads_peak)
			tb->reads_peak = tb->reads_out;
	}
	if (w->rvalid && w->rready)
		tb_check_beat(tb);
	if (w->awvalid && w->awready) {
		struct tb_write *wr = tb->aw_head;

		tb->aw_head = wr->aw_next;
		if (!tb->aw_head)
			tb->aw_tail = NULL;
		wr->accept = tb->now;
		if (tb->bq_tail[wr->id])
			tb->bq_tail[wr->id]->b_next = wr;
		else
			tb->bq_head[wr->id] = wr;
		tb->bq_tail[wr->id] = wr;
		tb->aw_fired = true;
		if (++tb->writes_out > tb->writes_peak)
			tb->writes_peak = tb->writes_out;
	}
	if (w->wvalid && w->wready) {
		struct tb_write *wr = tb->w_head;

		if (++wr->w_sent > wr->len) {
			wr->last_w = tb->now;
			tb->w_head = wr->w_next;
			if (!tb->w_head)
				tb->w_tail = NULL;
		}
		tb->w_fired = true;
	}
	if (w->bvalid && w->bready)
		tb_check_b(tb);
	sim_pcie_sample(&tb->pcie, tb->now);
	tb->now++;
}

static bool tb_idle(const struct axi_tb *tb)
{
	for (unsigned int i = 0; i < 256; i++)
		if (tb->rq_head[i] || tb->bq_head[i])
			return false;
	return !tb->ar_head && !tb->aw_head && !tb->w_head;
}

/* Steps until everything issued is answered; false after limit cycles. */
static bool tb_drain(struct axi_tb *tb, uint64_t limit)
{
	for (uint64_t end = tb->now + limit; tb->now < end && !tb->error[0];)
		if (tb_idle(tb) && !sim_pcie_busy(&tb->pcie))
			return true;
		else
			tb_cycle(tb);
	if (!tb->error[0])
		tb_fail(tb, "not done after %llu cycles", (unsigned long long)limit);
	return false;
}

/* ------------------------------------------------------------------------------------- */
/* The PCIe model, random */

#define RAND_BASE 0x10000000ull
#define RAND_RREGION (RAND_BASE)	   /* 64 KiB read only */
#define RAND_WREGION (RAND_BASE + 0x10000) /* 64 KiB written in 1 KiB slots */
#define RAND_HOLE (RAND_BASE + 0x20000)	   /* 64 KiB not mapped */
#define RAND_GUARD 0x1000
#define SLOTS 64

struct rand_env {
	struct axi_tb tb;
	uint8_t *host; /* guard | R | W | guard */
	uint8_t *rmem, *wmem;
	uint8_t *rinit, *shadow;
	bool slot_busy[SLOTS];
	unsigned int reads_left, writes_left, in_flight;
	uint64_t expect_faults, expect_protocol;
};

static void rand_read_done(struct axi_tb *tb, struct tb_read *r)
{
	struct rand_env *e = tb->ctx;

	if (r->tag >= 0)
		e->slot_busy[r->tag] = false;
	e->in_flight--;
}

static void rand_write_done(struct axi_tb *tb, struct tb_write *w)
{
	struct rand_env *e = tb->ctx;
	uint64_t base;
	struct tb_read *r;

	e->in_flight--;
	if (w->tag < 0)
		return;
	/* read the slot back: it must hold what the shadow holds */
	base = RAND_WREGION + (uint64_t)w->tag * 1024;
	r = tb_issue_read(tb, base, (unsigned int)bench_range(tb->b, 0, 7), 15, 6, SIM_AXI_OKAY,
			  e->shadow + (base - RAND_WREGION));
	r->tag = w->tag;
	e->in_flight++;
}

/* A random legal burst [addr, ...) within [lo, lo + span), not crossing 4 KiB. */
static void rand_burst(struct bench *b, uint64_t lo, uint64_t span, uint64_t *addr,
		       unsigned int *len, unsigned int *size)
{
	uint64_t sb, aligned, room, max_beats;

	*size = bench_chance(b, 75) ? 6 : (unsigned int)bench_range(b, 0, 6);
	sb = 1ull << *size;
	*addr = lo + bench_range(b, 0, span - 1);
	aligned = *addr / sb * sb;
	room = (*addr | (PAGE - 1)) + 1; /* the page's end */
	if (room > lo + span)
		room = lo + span;
	max_beats = (room - aligned) / sb;
	if (max_beats > 256)
		max_beats = 256;
	if (max_beats > 32 && bench_chance(b, 70))
		max_beats = 32;
	*len = (unsigned int)bench_range(b, 0, max_beats - 1);
}

static void rand_issue_read(struct rand_env *e)
{
	struct bench *b = e->tb.b;
	unsigned int id = (unsigned int)bench_range(b, 0, 7), len, size;
	uint64_t addr;
	struct tb_read *r;

	if (bench_chance(b, 4)) { /* unmapped */
		rand_burst(b, RAND_HOLE, 0x10000, &addr, &len, &size);
		r = tb_issue_read(&e->tb, addr, id, len, size, SIM_AXI_DECERR, NULL);
		e->expect_faults++;
	} else if (bench_chance(b, 2)) { /* crossing 4 KiB */
		addr = RAND_RREGION + PAGE * bench_range(b, 1, 15) - bench_range(b, 1, 64 * 8);
		r = tb_issue_read(&e->tb, addr, id, (unsigned int)bench_range(b, 8, 20), 6,
				  SIM_AXI_SLVERR, NULL);
		e->expect_faults++;
		e->expect_protocol++;
	} else {
		rand_burst(b, RAND_RREGION, 0x10000, &addr, &len, &size);
		r = tb_issue_read(&e->tb, addr, id, len, size, SIM_AXI_OKAY,
				  e->rinit + (addr - RAND_RREGION));
	}
	r->tag = -1;
	e->reads_left--;
	e->in_flight++;
}

static void rand_issue_write(struct rand_env *e)
{
	struct bench *b = e->tb.b;
	unsigned int id = (unsigned int)bench_range(b, 0, 7), len, size, slot;
	uint64_t addr;
	struct tb_write *w;
	uint8_t junk[PAGE * 2];

	if (bench_chance(b, 4)) { /* unmapped */
		rand_burst(b, RAND_HOLE, 0x10000, &addr, &len, &size);
		w = tb_issue_write(&e->tb, addr, id, len, size, SIM_AXI_DECERR);
		bench_fill(b, junk, sizeof(junk));
		tb_write_fill(&e->tb, w, junk, true);
		w->tag = -1;
		e->expect_faults++;
	} else if (bench_chance(b, 2)) { /* crossing 4 KiB, over the read-only region */
		addr = RAND_RREGION + PAGE * bench_range(b, 1, 15) - bench_range(b, 1, 64 * 8);
		w = tb_issue_write(&e->tb, addr, id, (unsigned int)bench_range(b, 8, 20), 6,
				   SIM_AXI_SLVERR);
		bench_fill(b, junk, sizeof(junk));
		tb_write_fill(&e->tb, w, junk, false);
		w->tag = -1;
		e->expect_faults++;
		e->expect_protocol++;
	} else {
		slot = (unsigned int)bench_range(b, 0, SLOTS - 1);
		if (e->slot_busy[slot])
			return;
		e->slot_busy[slot] = true;
		rand_burst(b, RAND_WREGION + slot * 1024, 1024, &addr, &len, &size);
		w = tb_issue_write(&e->tb, addr, id, len, size, SIM_AXI_OKAY);
		bench_fill(b, junk, sizeof(junk));
		tb_write_fill(&e->tb, w, junk, true);
		tb_write_apply(w, e->shadow + (addr - RAND_WREGION));
		w->tag = (int)slot;
	}
	e->writes_left--;
	e->in_flight++;
}

static void test_pcie_random(struct bench *b, unsigned int round)
{
	static const uint32_t lat[][3] = {
		{ 0, 0, 0 }, { 50, 30, 0 }, { 13, 100, 64 }, { 3, 5, 20 }
	};
	struct rand_env *e = calloc(1, sizeof(*e));
	struct axi_tb *tb = &e->tb;
	size_t host_len = RAND_GUARD * 2 + 0x20000;
	unsigned int max_in_flight = (unsigned int)bench_range(b, 1, 200);
	char name[64];
	bool ok;

	snprintf(name, sizeof(name), "pcie_random_%u", round);
	tb_open(tb, b, lat[round % 4][0], lat[round % 4][1], lat[round % 4][2]);
	tb->ctx = e;
	tb->read_done = rand_read_done;
	tb->write_done = rand_write_done;
	tb->valid_pct = (unsigned int)bench_range(b, 30, 100);
	tb->ready_pct = (unsigned int)bench_range(b, 30, 100);
	e->host = page_alloc(host_len);
	bench_fill(b, e->host, host_len);
	e->rmem = e->host + RAND_GUARD;
	e->wmem = e->rmem + 0x10000;
	e->rinit = malloc(0x20000 + 2 * RAND_GUARD);
	memcpy(e->rinit, e->rmem, 0x10000);
	e->shadow = e->rinit + 0x10000;
	memcpy(e->shadow, e->wmem, 0x10000);
	/* map the regions in pieces, so that translations cross mappings */
	for (uint64_t off = 0; off < 0x20000; off += 0x4000)
		if (sim_iommu_map(&tb->mmu, e->rmem + off, RAND_BASE + off, 0x4000))
			tb_fail(tb, "sim_iommu_map failed");
	e->reads_left = b->quick ? 600 : 3000;
	e->writes_left = b->quick ? 400 : 2000;
	while ((e->reads_left || e->writes_left) && !tb->error[0]) {
		if (e->in_flight < max_in_flight && e->reads_left && bench_chance(b, 40))
			rand_issue_read(e);
		if (e->in_flight < max_in_flight && e->writes_left && bench_chance(b, 30))
			rand_issue_write(e);
		tb_cycle(tb);
		if (tb->now > 5000000)
			tb_fail(tb, "still issuing after 5M cycles");
	}
	tb_drain(tb, 1000000);
	if (!tb->error[0] && memcmp(e->rmem, e->rinit, 0x10000))
		tb_fail(tb, "the read-only region changed");
	if (!tb->error[0] && memcmp(e->wmem, e->shadow, 0x10000))
		tb_fail(tb, "the written region differs from its shadow");
	if (!tb->error[0] && tb->mmu.faults != e->expect_faults)
		tb_fail(tb, "%llu faults, expected %llu", (unsigned long long)tb->mmu.faults,
			(unsigned long long)e->expect_faults);
	if (!tb->error[0] && tb->pcie.protocol_errors != e->expect_protocol)
		tb_fail(tb, "%llu protocol errors, expected %llu",
			(unsigned long long)tb->pcie.protocol_errors,
			(unsigned long long)e->expect_protocol);
	if (!tb->error[0] && max_in_flight > 8 && tb->t.chunk_beats && !tb->interleaves)
		tb_fail(tb, "bursts of different IDs never interleaved");
	ok = !tb->error[0];
	bench_result(b, name, ok,
		     "%s (latencies %u/%u cycles, %u Gb/s, in flight %u, valid %u%%, ready %u%%)",
		     tb->error, tb->t.read_latency, tb->t.write_latency, tb->t.gbps, max_in_flight,
		     tb->valid_pct, tb->ready_pct);
	if (ok)
		bench_log(b, "%s: %llu reads, %llu writes in %llu cycles, %llu interleavings", name,
			  (unsigned long long)tb->reads_done, (unsigned long long)tb->writes_done,
			  (unsigned long long)tb->now, (unsigned long long)tb->interleaves);
	tb_close(tb);
	free(e->host);
	free(e->rinit);
	free(e);
}

/* ------------------------------------------------------------------------------------- */
/* The PCIe model, directed */

#define DIR_IOVA 0x40000000ull

struct dir_env {
	struct axi_tb tb;
	uint8_t *mem;
	size_t len;
};

static void dir_open(struct dir_env *e, struct bench *b, uint32_t rl, uint32_t wl, uint32_t gbps,
		     size_t len)
{
	tb_open(&e->tb, b, rl, wl, gbps);
	e->tb.ctx = e;
	e->len = len;
	e->mem = page_alloc(len);
	bench_fill(b, e->mem, len);
	if (sim_iommu_map(&e->tb.mmu, e->mem, DIR_IOVA, len))
		tb_fail(&e->tb, "sim_iommu_map failed");
}

static void dir_close(struct dir_env *e)
{
	tb_close(&e->tb);
	free(e->mem);
}

static struct tb_read *last_read;
static struct tb_write *last_write;
static uint64_t done_first, done_last, done_accept, done_b, done_last_w;

static void dir_read_done(struct axi_tb *tb, struct tb_read *r)
{
	(void)tb;
	last_read = r;
	done_first = r->first;
	done_last = r->last;
	done_accept = r->accept;
}

static void dir_write_done(struct axi_tb *tb, struct tb_write *w)
{
	(void)tb;
	last_write = w;
	done_b = w->b;
	done_last_w = w->last_w;
	done_accept = w->accept;
}

/* A lone read: first beat exactly 2 x latency after AR, then a beat a cycle. */
static void test_pcie_read_latency(struct bench *b)
{
	struct dir_env e;
	const uint32_t rl = 25;

	dir_open(&e, b, rl, 10, 0, 2 * PAGE);
	e.tb.read_done = dir_read_done;
	tb_issue_read(&e.tb, DIR_IOVA + 0x40, 3, 7, 6, SIM_AXI_OKAY, e.mem + 0x40);
	tb_drain(&e.tb, 10000);
	if (!e.tb.error[0] && done_first != done_accept + 2 * rl)
		tb_fail(&e.tb, "first beat %llu cycles after AR, expected %u",
			(unsigned long long)(done_first - done_accept), 2 * rl);
	if (!e.tb.error[0] && done_last != done_first + 7)
		tb_fail(&e.tb, "8 beats over %llu cycles",
			(unsigned long long)(done_last - done_first + 1));
	if (!e.tb.error[0] &&
	    (e.tb.events[HROCE_SIM_DMA_READ] != 1 || e.tb.events[HROCE_SIM_DMA_READ_DONE] != 1 ||
	     e.tb.event_cycle[HROCE_SIM_DMA_READ] != done_accept ||
	     e.tb.event_cycle[HROCE_SIM_DMA_READ_DONE] != done_last))
		tb_fail(&e.tb, "DMA_READ/DMA_READ_DONE events missing or mistimed");
	bench_result(b, "pcie_read_latency", !e.tb.error[0], "%s", e.tb.error);
	dir_close(&e);
}

/* Memory is read when the request reaches the host: read_latency after AR. */
static void test_pcie_read_snapshot(struct bench *b)
{
	const uint32_t rl = 20;
	bool ok = true;
	char why[400] = "";

	for (int before = 0; before < 2 && ok; before++) {
		struct dir_env e;
		uint8_t expect[64];
		struct tb_read *r;

		dir_open(&e, b, rl, 10, 0, PAGE);
		memcpy(expect, e.mem, 64);
		r = tb_issue_read(&e.tb, DIR_IOVA, 1, 0, 6, SIM_AXI_OKAY, NULL);
		while (!e.tb.error[0] && !e.tb.rq_head[1])
			tb_cycle(&e.tb);
		/* AR taken in cycle now - 1: the host reads memory in cycle now - 1 + rl */
		while (e.tb.now < r->accept + rl + (before ? 0 : 1))
			tb_cycle(&e.tb);
		/* a host write between two cycles: the read sees it if it came first */
		memset(e.mem, 0xa5, 64);
		if (before)
			memset(expect, 0xa5, 64);
		memcpy(r->expect, expect, 64);
		tb_drain(&e.tb, 10000);
		if (e.tb.error[0]) {
			ok = false;
			snprintf(why, sizeof(why), "host write %s the request arrived: %s",
				 before ? "before" : "after", e.tb.error);
		}
		dir_close(&e);
	}
	bench_result(b, "pcie_read_snapshot", ok, "%s", why);
}

/* A write lands write_latency after its last beat, B comes the cycle after that beat. */
static void test_pcie_write_land(struct bench *b)
{
	struct dir_env e;
	const uint32_t wl = 30;
	struct tb_write *w;
	uint8_t before[256], after[256];
	uint64_t landed = 0;

	dir_open(&e, b, 10, wl, 0, PAGE);
	e.tb.write_done = dir_write_done;
	memcpy(before, e.mem + 0x100, sizeof(before));
	memcpy(after, before, sizeof(after));
	w = tb_issue_write(&e.tb, DIR_IOVA + 0x100, 9, 3, 6, SIM_AXI_OKAY);
	{
		uint8_t src[256];

		bench_fill(b, src, sizeof(src));
		tb_write_fill(&e.tb, w, src, false);
	}
	tb_write_apply(w, after);
	while (!e.tb.error[0] && e.tb.now < 1000) {
		tb_cycle(&e.tb);
		if (!landed && memcmp(e.mem + 0x100, before, sizeof(before))) {
			landed = e.tb.now - 1; /* the cycle whose drive wrote it */
			if (memcmp(e.mem + 0x100, after, sizeof(after)))
				tb_fail(&e.tb, "memory holds something else than the write");
		}
	}
	if (!e.tb.error[0] && done_b != done_last_w + 1)
		tb_fail(&e.tb, "B %llu cycles after the last W beat",
			(unsigned long long)(done_b - done_last_w));
	if (!e.tb.error[0] && landed != done_last_w + wl)
		tb_fail(&e.tb, "landed %lld cycles after the last W beat, expected %u",
			(long long)(landed - done_last_w), wl);
	if (!e.tb.error[0] && (e.tb.events[HROCE_SIM_DMA_WRITE_DONE] != 1 ||
			       e.tb.event_cycle[HROCE_SIM_DMA_WRITE_DONE] != landed ||
			       e.tb.event_cycle[HROCE_SIM_DMA_WRITE] != done_accept))
		tb_fail(&e.tb, "DMA_WRITE/DMA_WRITE_DONE events missing or mistimed");
	bench_result(b, "pcie_write_land", !e.tb.error[0], "%s", e.tb.error);
	dir_close(&e);
}

/*
 * Posted writes land in AW order, and a read issued after a B sees the write even when
 * the write latency is longer than the read's.
 */
static void test_pcie_write_order(struct bench *b)
{
	struct dir_env e;
	struct tb_write *w1, *w2;
	uint8_t src[64], final[64];
	struct tb_read *r;

	dir_open(&e, b, 5, 200, 0, PAGE);
	e.tb.write_done = dir_write_done;
	w1 = tb_issue_write(&e.tb, DIR_IOVA, 1, 0, 6, SIM_AXI_OKAY);
	bench_fill(b, src, 64);
	tb_write_fill(&e.tb, w1, src, false);
	w2 = tb_issue_write(&e.tb, DIR_IOVA, 2, 0, 6, SIM_AXI_OKAY);
	bench_fill(b, src, 64);
	tb_write_fill(&e.tb, w2, src, true);
	memcpy(final, e.mem, 64);
	tb_write_apply(w1, final);
	tb_write_apply(w2, final);
	last_write = NULL;
	while (!e.tb.error[0] && e.tb.writes_done < 2 && e.tb.now < 1000)
		tb_cycle(&e.tb);
	r = tb_issue_read(&e.tb, DIR_IOVA, 4, 0, 6, SIM_AXI_OKAY, final);
	(void)r;
	tb_drain(&e.tb, 10000);
	if (!e.tb.error[0] && memcmp(e.mem, final, 64))
		tb_fail(&e.tb, "the writes landed out of order");
	bench_result(b, "pcie_write_order", !e.tb.error[0], "%s", e.tb.error);
	dir_close(&e);
}

/* More than 64 reads in flight; the 257th waits for a tag. */
static void test_pcie_outstanding(struct bench *b)
{
	struct dir_env e;
	unsigned int taken_by = 0;

	dir_open(&e, b, 100, 10, 0, 64 * PAGE);
	e.tb.ready_pct = 0;
	for (unsigned int i = 0; i < SIM_PCIE_READS + 10; i++) {
		uint64_t off = (uint64_t)i * 256;

		tb_issue_read(&e.tb, DIR_IOVA + off, i % 16, 3, 6, SIM_AXI_OKAY, e.mem + off);
	}
	for (unsigned int c = 0; c < 2 * SIM_PCIE_READS + 100 && !e.tb.error[0]; c++) {
		tb_cycle(&e.tb);
		if (e.tb.ar_fired)
			taken_by++;
	}
	if (taken_by != SIM_PCIE_READS)
		tb_fail(&e.tb, "%u reads taken while R was held, expected %u", taken_by,
			SIM_PCIE_READS);
	e.tb.ready_pct = 100;
	tb_drain(&e.tb, 100000);
	bench_result(b, "pcie_outstanding", !e.tb.error[0], "%s", e.tb.error);
	dir_close(&e);
}

/*
 * The bridge's limits (max_reads, max_writes): random traffic of reads and writes with R
 * and B held back at random, against limits from 1 to 8 each way. Counted where the
 * master sees them (AR to the last R beat, AW to B), the bursts in flight never pass the
 * limit, and reach it (the traffic pressed against it); every beat is still checked.
 * Limits past what the model holds are refused.
 */
static void test_pcie_limits(struct bench *b)
{
	const char *why = NULL;
	char detail[160] = "";

	for (unsigned int round = 0; round < (b->quick ? 4u : 12u) && !why; round++) {
		struct sim_pcie_hooks hooks = { tb_event, tb_irq, NULL };
		uint32_t reads = (uint32_t)bench_range(b, 1, 8);
		uint32_t writes = (uint32_t)bench_range(b, 1, 8);
		struct dir_env e;

		dir_open(&e, b, (uint32_t)bench_range(b, 0, 60), (uint32_t)bench_range(b, 0, 60), 0,
			 16 * PAGE);
		hooks.ctx = &e.tb;
		sim_pcie_fini(&e.tb.pcie);
		e.tb.t.max_reads = reads;
		e.tb.t.max_writes = writes;
		if (sim_pcie_init(&e.tb.pcie, &e.tb.bus, &e.tb.mmu, &e.tb.t, &hooks)) {
			why = "sim_pcie_init refused limits of 1 to 8";
			dir_close(&e);
			break;
		}
		e.tb.valid_pct = (unsigned int)bench_range(b, 50, 100);
		for (unsigned int i = 0; i < 200; i++) {
			uint64_t off = bench_range(b, 0, 15) * PAGE + bench_range(b, 0, 60) * 64;
			unsigned int len = (unsigned int)bench_range(b, 0, 3); /* within the page */

			/* R and B held back in stretches, so that bursts pile up */
			if (i % 25 == 0)
				e.tb.ready_pct = bench_chance(b, 50) ? 0 : 100;
			if (bench_chance(b, 50)) {
				tb_issue_read(&e.tb, DIR_IOVA + off,
					      (unsigned int)bench_range(b, 0, 7), len, 6,
					      SIM_AXI_OKAY, e.mem + off);
			} else {
				struct tb_write *w = tb_issue_write(
					&e.tb, DIR_IOVA + off, (unsigned int)bench_range(b, 0, 7),
					len, 6, SIM_AXI_OKAY);

				tb_write_fill(&e.tb, w, e.mem + off, false);
			}
			for (unsigned int c = (unsigned int)bench_range(b, 0, 6); c; c--)
				tb_cycle(&e.tb);
		}
		e.tb.ready_pct = 100;
		tb_drain(&e.tb, 1000000);
		snprintf(detail, sizeof(detail),
			 "round %u: limits %u reads, %u writes; peaks %u, %u; %.80s", round, reads,
			 writes, e.tb.reads_peak, e.tb.writes_peak, e.tb.error);
		if (e.tb.error[0])
			why = "a burst answered wrong";
		else if (e.tb.reads_peak > reads || e.tb.writes_peak > writes)
			why = "more bursts in flight than the limit";
		else if (e.tb.reads_peak < reads || e.tb.writes_peak < writes)
			why = "the traffic never reached the limit";
		dir_close(&e);
	}
	if (!why) {
		struct dir_env e;
		struct sim_pcie_hooks hooks = { NULL, NULL, NULL };

		dir_open(&e, b, 10, 10, 0, PAGE);
		sim_pcie_fini(&e.tb.pcie);
		e.tb.t.max_reads = SIM_PCIE_READS + 1;
		if (sim_pcie_init(&e.tb.pcie, &e.tb.bus, &e.tb.mmu, &e.tb.t, &hooks) != EINVAL)
			why = "a limit past what the model holds was taken";
		e.tb.t.max_reads = 0;
		sim_pcie_init(&e.tb.pcie, &e.tb.bus, &e.tb.mmu, &e.tb.t, &hooks);
		dir_close(&e);
	}
	bench_result(b, "pcie_limits", !why, "%s (%s)", why, detail);
}

/* 64 Gb/s at 250 MHz is 32 bytes a cycle, each way. */
static void test_pcie_bandwidth(struct bench *b)
{
	struct dir_env e;
	const unsigned int bursts = 64;
	double rd, wr;
	uint64_t start, cycles;

	dir_open(&e, b, 10, 10, 64, 64 * PAGE);
	for (unsigned int i = 0; i < bursts; i++)
		tb_issue_read(&e.tb, DIR_IOVA + (uint64_t)i * PAGE, i % 8, 63, 6, SIM_AXI_OKAY,
			      e.mem + (uint64_t)i * PAGE);
	tb_drain(&e.tb, 100000);
	cycles = e.tb.now - 2 * 10;
	rd = (double)e.tb.r_bytes / (double)cycles;
	start = e.tb.now;
	for (unsigned int i = 0; i < bursts; i++) {
		struct tb_write *w = tb_issue_write(&e.tb, DIR_IOVA + (uint64_t)i * PAGE, i % 8, 63,
						    6, SIM_AXI_OKAY);

		tb_write_fill(&e.tb, w, e.mem + (uint64_t)i * PAGE, false);
	}
	tb_drain(&e.tb, 100000);
	cycles = e.tb.now - start - 10;
	wr = (double)bursts * PAGE / (double)cycles;
	if (!e.tb.error[0] && (rd < 31.0 || rd > 32.5 || wr < 31.0 || wr > 32.5))
		tb_fail(&e.tb, "%.2f bytes a cycle read, %.2f written, expected 32", rd, wr);
	bench_result(b, "pcie_bandwidth", !e.tb.error[0], "%s", e.tb.error);
	bench_log(b, "PCIe at 64 Gb/s: %.2f B/cycle read, %.2f written (32 expected)", rd, wr);
	dir_close(&e);
}

/* Unmapped reads and writes: DECERR, counted, recorded, memory untouched. */
static void test_pcie_faults(struct bench *b)
{
	struct dir_env e;
	uint8_t *copy;
	struct tb_write *w;
	uint8_t src[PAGE];

	dir_open(&e, b, 10, 50, 0, 4 * PAGE);
	copy = malloc(4 * PAGE);
	tb_issue_read(&e.tb, DIR_IOVA + 4 * PAGE + 0x80, 1, 3, 6, SIM_AXI_DECERR, NULL);
	tb_drain(&e.tb, 10000);
	if (!e.tb.error[0] &&
	    (e.tb.mmu.faults != 1 || e.tb.mmu.last.write ||
	     e.tb.mmu.last.iova != DIR_IOVA + 4 * PAGE + 0x80 || e.tb.mmu.last.len != 256))
		tb_fail(&e.tb, "unmapped read: fault not recorded");
	w = tb_issue_write(&e.tb, DIR_IOVA - 0x200, 2, 1, 6, SIM_AXI_DECERR);
	bench_fill(b, src, sizeof(src));
	tb_write_fill(&e.tb, w, src, false);
	tb_drain(&e.tb, 10000);
	if (!e.tb.error[0] && (e.tb.mmu.faults != 2 || !e.tb.mmu.last.write ||
			       e.tb.mmu.last.iova != DIR_IOVA - 0x200))
		tb_fail(&e.tb, "unmapped write: fault not recorded");
	/* unmapped while in flight: B said OKAY, the write is dropped at the host */
	memcpy(copy, e.mem, 4 * PAGE);
	w = tb_issue_write(&e.tb, DIR_IOVA + PAGE, 3, 3, 6, SIM_AXI_OKAY);
	tb_write_fill(&e.tb, w, src, false);
	while (!e.tb.error[0] && e.tb.writes_done < 2 && e.tb.now < 100000)
		tb_cycle(&e.tb);
	if (sim_iommu_unmap(&e.tb.mmu, DIR_IOVA + PAGE, PAGE, NULL))
		tb_fail(&e.tb, "sim_iommu_unmap failed");
	tb_drain(&e.tb, 10000);
	if (!e.tb.error[0] && (e.tb.mmu.faults != 3 || !e.tb.mmu.last.write))
		tb_fail(&e.tb, "write unmapped in flight: %llu faults, expected 3",
			(unsigned long long)e.tb.mmu.faults);
	if (!e.tb.error[0] && memcmp(copy, e.mem, 4 * PAGE))
		tb_fail(&e.tb, "a faulting write changed memory");
	bench_result(b, "pcie_faults", !e.tb.error[0], "%s", e.tb.error);
	free(copy);
	dir_close(&e);
}

/* An interrupt raised after a write was posted reaches the host after the write landed. */
static bool irq_saw_write;
static const uint8_t *irq_mem;
static uint64_t irq_cycle;

static void dir_irq(struct axi_tb *tb, unsigned int vector)
{
	irq_saw_write = vector == 7 && irq_mem[0] == 0x5a && irq_mem[63] == 0x5a;
	irq_cycle = tb->now;
}

static void test_pcie_irq_order(struct bench *b)
{
	struct dir_env e;
	struct tb_write *w;
	uint8_t src[64];

	dir_open(&e, b, 10, 40, 0, PAGE);
	e.tb.irq = dir_irq;
	e.tb.write_done = dir_write_done;
	irq_mem = e.mem;
	memset(src, 0x5a, sizeof(src));
	w = tb_issue_write(&e.tb, DIR_IOVA, 1, 0, 6, SIM_AXI_OKAY);
	tb_write_fill(&e.tb, w, src, false);
	while (!e.tb.error[0] && !e.tb.writes_done)
		tb_cycle(&e.tb);
	if (!sim_pcie_irq(&e.tb.pcie, e.tb.now - 1, 7))
		tb_fail(&e.tb, "no room for an interrupt");
	tb_drain(&e.tb, 1000);
	if (!e.tb.error[0] && (!irq_saw_write || irq_cycle != done_b + 40))
		tb_fail(&e.tb, "interrupt %s the write, at %llu (expected %llu)",
			irq_saw_write ? "after" : "before", (unsigned long long)irq_cycle,
			(unsigned long long)(done_b + 40));
	bench_result(b, "pcie_irq_order", !e.tb.error[0], "%s", e.tb.error);
	dir_close(&e);
}

/* ===================================================================================== */
/* The IOMMU */

static void test_iommu(struct bench *b)
{
	struct sim_iommu m;
	uint8_t *mem = page_alloc(16 * PAGE);
	const char *why = NULL;

	sim_iommu_init(&m);
	if (sim_iommu_map(&m, mem, 0x1000, 0) != EINVAL ||
	    sim_iommu_map(&m, mem, 0x1001, PAGE) != EINVAL ||
	    sim_iommu_map(&m, mem, 0x1000, 100) != EINVAL ||
	    sim_iommu_map(&m, mem + 8, 0x1000, PAGE) != EINVAL ||
	    sim_iommu_map(&m, mem, ~0ull & ~0xfffull, 2 * PAGE) != EINVAL)
		why = "bad alignment or length accepted";
	else if (sim_iommu_map(&m, mem, 0x10000, 4 * PAGE) ||
		 sim_iommu_map(&m, mem + 8 * PAGE, 0x20000, 4 * PAGE))
		why = "a good mapping refused";
	else if (sim_iommu_map(&m, mem, 0x10000, PAGE) != EEXIST ||
		 sim_iommu_map(&m, mem, 0xf000, 2 * PAGE) != EEXIST ||
		 sim_iommu_map(&m, mem, 0x13000, 2 * PAGE) != EEXIST ||
		 sim_iommu_map(&m, mem, 0x8000, 0x20000) != EEXIST)
		why = "an overlap accepted";
	else if (sim_iommu_map(&m, mem + 4 * PAGE, 0x14000, PAGE))
		why = "an adjacent mapping refused";
	else if (sim_iommu_translate(&m, 0x10010, 16, true) != mem + 0x10 ||
		 sim_iommu_translate(&m, 0x14000, PAGE, true) != mem + 4 * PAGE ||
		 sim_iommu_translate(&m, 0x13ff0, 0x20, true) ||
		 sim_iommu_translate(&m, 0x15000, 1, true) ||
		 sim_iommu_translate(&m, 0xfff, 2, true))
		why = "wrong translation";
	else if (sim_iommu_unmap(&m, 0x30000, PAGE, NULL) != ENOENT ||
		 sim_iommu_unmap(&m, 0x14000, 2 * PAGE, NULL) != ENOENT ||
		 sim_iommu_unmap(&m, 0x14000, 5, NULL) != EINVAL)
		why = "a bad unmap accepted";
	else if (!sim_iommu_translate(&m, 0x14000, 1, true))
		why = "a refused unmap changed the table";
	else if (sim_iommu_unmap(&m, 0x11000, PAGE, NULL))
		why = "unmapping a middle page refused";
	else if (sim_iommu_translate(&m, 0x11000, 1, true) ||
		 sim_iommu_translate(&m, 0x10000, 1, true) != mem ||
		 sim_iommu_translate(&m, 0x12000, 1, true) != mem + 2 * PAGE)
		why = "a split mapping translates wrong";
	else if (sim_iommu_unmap(&m, 0x12000, 3 * PAGE, NULL) ||
		 sim_iommu_translate(&m, 0x14000, 1, true) ||
		 sim_iommu_translate(&m, 0x12000, 1, true) || m.n != 2)
		why = "an unmap over two mappings failed";
	else if (sim_iommu_unmap(&m, 0x10000, PAGE, NULL) ||
		 sim_iommu_unmap(&m, 0x20000, 4 * PAGE, NULL) || m.n)
		why = "could not unmap everything";
	bench_result(b, "iommu_map_unmap", !why, "%s", why);
	sim_iommu_fini(&m);
	free(mem);
}

/* ===================================================================================== */
/* The link channel */

struct ch_beat {
	uint8_t data[64];
	uint64_t keep;
	uint8_t last, user;
	uint64_t tx, rx;
};

struct ch_frame {
	uint64_t start;
	size_t len;
	bool user;
	uint8_t *bytes;
};

struct ch_tb {
	struct bench *b;
	struct sim_axis_wires txw, rxw;
	struct sim_axis_bus tx, rx;
	struct sim_channel ch;
	struct sim_channel_params p;
	uint64_t now;
	struct ch_beat *beats;
	size_t nbeats, cap, sent, recv;
	struct ch_frame *frames;
	size_t nframes, fcap;
	unsigned int valid_pct, ready_pct;
	bool ar_fired, aw_fired, w_fired; /* handshakes of the last cycle */
	uint64_t tx_stalls;		  /* cycles the source had a beat and tready was low */
	bool tx_fired;			  /* the last cycle's handshake took a beat */
	/* collect: the frames that come out are kept whole, not checked beat by beat */
	bool collect;
	struct ch_frame *got;
	size_t ngot, gcap, rx_len;
	uint8_t *rx_bytes;
	char error[256];
};

static void ch_open(struct ch_tb *c, struct bench *b, uint32_t latency, uint32_t gbps,
		    const char *pcap_path)
{
	int err;

	memset(c, 0, sizeof(*c));
	c->b = b;
	sim_axis_bus_wire(&c->tx, &c->txw);
	sim_axis_bus_wire(&c->rx, &c->rxw);
	c->p = (struct sim_channel_params){ latency, gbps, MHZ, NULL };
	if (pcap_path) {
		c->p.pcap = pcap_open_write(pcap_path, true);
		if (!c->p.pcap) {
			perror(pcap_path);
			exit(1);
		}
	}
	err = sim_channel_init(&c->ch, &c->tx, &c->rx, &c->p, NULL);
	if (err) {
		fprintf(stderr, "sim_channel_init: %s\n", strerror(err));
		exit(1);
	}
	c->valid_pct = c->ready_pct = 100;
}

static void ch_close(struct ch_tb *c)
{
	sim_channel_fini(&c->ch);
	if (c->p.pcap)
		pcap_close(c->p.pcap);
	for (size_t i = 0; i < c->nframes; i++)
		free(c->frames[i].bytes);
	free(c->frames);
	for (size_t i = 0; i < c->ngot; i++)
		free(c->got[i].bytes);
	free(c->got);
	free(c->rx_bytes);
	free(c->beats);
}

/* A frame of len kept bytes, with a partial beat mid-frame now and then. */
static void ch_frame_of(struct ch_tb *c, size_t len, bool user, const uint8_t *bytes);

static void ch_frame(struct ch_tb *c, size_t len, bool user)
{
	ch_frame_of(c, len, user, NULL);
}

/* A frame of those bytes (random ones if NULL). */
static void ch_frame_of(struct ch_tb *c, size_t len, bool user, const uint8_t *bytes)
{
	struct bench *b = c->b;
	struct ch_frame *f;
	size_t done = 0;

	if (c->nframes == c->fcap) {
		c->fcap = c->fcap ? 2 * c->fcap : 64;
		c->frames = realloc(c->frames, c->fcap * sizeof(*c->frames));
	}
	f = &c->frames[c->nframes++];
	f->len = len;
	f->user = user;
	f->bytes = malloc(len);
	while (done < len) {
		struct ch_beat *bt;
		size_t n = len - done < 64 ? len - done : 64;

		if (c->nbeats == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 256;
			c->beats = realloc(c->beats, c->cap * sizeof(*c->beats));
		}
		bt = &c->beats[c->nbeats++];
		memset(bt, 0, sizeof(*bt));
		bench_fill(b, bt->data, 64);
		if (n == 64 && done + 64 < len && bench_chance(b, 5))
			n = bench_range(b, 1, 63);
		bt->keep = n == 64 ? ~0ull : (1ull << n) - 1;
		/* now and then the kept lanes are not the low ones */
		if (n < 64 && bench_chance(b, 20))
			bt->keep <<= bench_range(b, 0, 64 - n);
		for (uint64_t k = bt->keep, i = 0; k; k &= k - 1, i++) {
			if (bytes)
				bt->data[__builtin_ctzll(k)] = bytes[done + i];
			f->bytes[done + i] = bt->data[__builtin_ctzll(k)];
		}
		done += n;
		bt->last = done == len;
		bt->user = bt->last && user;
	}
}

static void ch_cycle(struct ch_tb *c)
{
	struct bench *b = c->b;

	/* a beat the last cycle's handshake took: valid stayed up until the channel sampled */
	if (c->tx_fired)
		c->txw.tvalid = 0;
	c->tx_fired = false;
	if (!c->txw.tvalid && c->sent < c->nbeats && bench_chance(b, c->valid_pct)) {
		const struct ch_beat *bt = &c->beats[c->sent];

		memcpy(c->txw.tdata, bt->data, 64);
		c->txw.tkeep = bt->keep;
		c->txw.tlast = bt->last;
		c->txw.tuser = bt->user;
		c->txw.tvalid = 1;
	}
	c->rxw.tready = bench_chance(b, c->ready_pct);
	sim_channel_tx_drive(&c->ch, c->now);
	sim_channel_rx_drive(&c->ch, c->now);
	if (c->txw.tvalid && !c->txw.tready)
		c->tx_stalls++;
	if (c->txw.tvalid && c->txw.tready) {
		c->beats[c->sent++].tx = c->now;
		c->tx_fired = true;
	}
	if (c->rxw.tvalid && c->rxw.tready && c->collect) {
		for (uint64_t k = c->rxw.tkeep; k && c->rx_len < 65536; k &= k - 1)
			c->rx_bytes[c->rx_len++] =
				((const uint8_t *)c->rxw.tdata)[__builtin_ctzll(k)];
		if (c->rxw.tlast) {
			if (c->ngot == c->gcap) {
				c->gcap = c->gcap ? 2 * c->gcap : 64;
				c->got = realloc(c->got, c->gcap * sizeof(*c->got));
			}
			c->got[c->ngot].len = c->rx_len;
			c->got[c->ngot].bytes = malloc(c->rx_len);
			memcpy(c->got[c->ngot++].bytes, c->rx_bytes, c->rx_len);
			c->rx_len = 0;
		}
	} else if (c->rxw.tvalid && c->rxw.tready) {
		struct ch_beat *bt = &c->beats[c->recv];

		if (c->recv >= c->sent) {
			snprintf(c->error, sizeof(c->error), "a beat came out that was not sent");
		} else if (memcmp(bt->data, c->rxw.tdata, 64) || bt->keep != c->rxw.tkeep ||
			   bt->last != c->rxw.tlast || bt->user != c->rxw.tuser) {
			if (!c->error[0])
				snprintf(c->error, sizeof(c->error), "beat %zu differs", c->recv);
		} else if (c->now < bt->tx + c->p.latency) {
			if (!c->error[0])
				snprintf(c->error, sizeof(c->error),
					 "beat %zu came %llu cycles after it left, latency %u",
					 c->recv, (unsigned long long)(c->now - bt->tx),
					 c->p.latency);
		}
		bt->rx = c->now;
		c->recv++;
	}
	sim_channel_tx_sample(&c->ch, c->now);
	sim_channel_rx_sample(&c->ch, c->now);
	c->now++;
}

static void ch_run(struct ch_tb *c, uint64_t limit)
{
	for (uint64_t end = c->now + limit; c->recv < c->nbeats && c->now < end && !c->error[0];)
		ch_cycle(c);
	if (!c->error[0] && c->recv < c->nbeats)
		snprintf(c->error, sizeof(c->error), "%zu of %zu beats through after %llu cycles",
			 c->recv, c->nbeats, (unsigned long long)limit);
}

/* The pcap must hold every frame not aborted, stamped with its first beat's time. */
static void ch_check_pcap(struct ch_tb *c, const char *path)
{
	struct pcap_file *pf = pcap_open_read(path);
	struct pcap_packet *pkt = malloc(sizeof(*pkt));
	size_t beat = 0;

	if (!pf) {
		snprintf(c->error, sizeof(c->error), "cannot read back %.200s", path);
		free(pkt);
		return;
	}
	for (size_t i = 0; i < c->nframes && !c->error[0]; i++) {
		const struct ch_frame *f = &c->frames[i];
		uint64_t start = c->beats[beat].tx;

		while (!c->beats[beat].last)
			beat++;
		beat++;
		if (f->user)
			continue;
		if (pcap_read(pf, pkt))
			snprintf(c->error, sizeof(c->error), "pcap: frame %zu missing", i);
		else if (pkt->len != f->len || memcmp(pkt->data, f->bytes, f->len))
			snprintf(c->error, sizeof(c->error), "pcap: frame %zu differs", i);
		else if (pkt->ts_ns != start * 1000 / MHZ)
			snprintf(c->error, sizeof(c->error),
				 "pcap: frame %zu at %llu ns, left at %llu", i,
				 (unsigned long long)pkt->ts_ns,
				 (unsigned long long)(start * 1000 / MHZ));
	}
	if (!c->error[0] && pcap_read(pf, pkt) != -1)
		snprintf(c->error, sizeof(c->error), "pcap: more frames than sent");
	pcap_close(pf);
	free(pkt);
}

static void test_link_random(struct bench *b, const char *dir)
{
	struct ch_tb c;
	char path[512];
	uint32_t latency = (uint32_t)bench_range(b, 1, 300);
	unsigned int frames = b->quick ? 300 : 1500, aborted = 0;

	snprintf(path, sizeof(path), "%s/test-sim-channel.pcap", dir);
	ch_open(&c, b, latency, 0, path);
	c.valid_pct = (unsigned int)bench_range(b, 20, 100);
	c.ready_pct = (unsigned int)bench_range(b, 20, 100);
	for (unsigned int i = 0; i < frames; i++) {
		bool user = bench_chance(b, 5);

		aborted += user;
		ch_frame(&c,
			 bench_chance(b, 70) ? bench_range(b, 60, 1514) : bench_range(b, 1, 9100),
			 user);
	}
	ch_run(&c, 10000000);
	if (!c.error[0] &&
	    (c.ch.frames != frames - aborted || c.ch.aborted != aborted || c.ch.received != frames))
		snprintf(c.error, sizeof(c.error),
			 "counted %llu frames, %llu aborted, %llu received",
			 (unsigned long long)c.ch.frames, (unsigned long long)c.ch.aborted,
			 (unsigned long long)c.ch.received);
	sim_channel_fini(&c.ch);
	pcap_close(c.p.pcap);
	c.p.pcap = NULL;
	memset(&c.ch, 0, sizeof(c.ch));
	if (!c.error[0])
		ch_check_pcap(&c, path);
	bench_result(b, "link_random", !c.error[0], "%s (latency %u, valid %u%%, ready %u%%)",
		     c.error, latency, c.valid_pct, c.ready_pct);
	ch_close(&c);
}

/* Without back-pressure every beat takes exactly the latency. */
static void test_link_latency(struct bench *b)
{
	struct ch_tb c;
	const uint32_t latency = 37;

	ch_open(&c, b, latency, 0, NULL);
	c.valid_pct = 60;
	for (unsigned int i = 0; i < 100; i++)
		ch_frame(&c, bench_range(b, 60, 2000), false);
	ch_run(&c, 1000000);
	for (size_t i = 0; i < c.nbeats && !c.error[0]; i++)
		if (c.beats[i].rx != c.beats[i].tx + latency)
			snprintf(c.error, sizeof(c.error), "beat %zu took %llu cycles", i,
				 (unsigned long long)(c.beats[i].rx - c.beats[i].tx));
	bench_result(b, "link_latency", !c.error[0], "%s", c.error);
	ch_close(&c);
}

/* A receiver that stops for long loses nothing; the sender is paused instead. */
static void test_link_lossless(struct bench *b)
{
	struct ch_tb c;
	const uint32_t latency = 50;

	ch_open(&c, b, latency, 0, NULL);
	for (unsigned int i = 0; i < 200; i++)
		ch_frame(&c, 4096, false);
	c.ready_pct = 0;
	for (unsigned int i = 0; i < 5000; i++)
		ch_cycle(&c);
	if (c.sent != latency + SIM_CHANNEL_BUFFER)
		snprintf(c.error, sizeof(c.error), "%zu beats taken while the receiver was stopped",
			 c.sent);
	c.ready_pct = 100;
	if (!c.error[0])
		ch_run(&c, 100000);
	bench_result(b, "link_lossless", !c.error[0] && c.tx_stalls > 0, "%s", c.error);
	ch_close(&c);
}

/* 100 Gb/s: a 1500-byte frame and its 24 bytes of overhead every 121.92 ns. */
static void test_link_rate(struct bench *b)
{
	struct ch_tb c;
	const unsigned int frames = 400;
	double ns, expect = frames * (1500.0 + SIM_ETH_OVERHEAD) * 8 / 100.0;

	ch_open(&c, b, 10, 100, NULL);
	for (unsigned int i = 0; i < frames; i++)
		ch_frame(&c, 1500, false);
	ch_run(&c, 1000000);
	ns = (double)(c.beats[c.nbeats - 1].tx - c.beats[0].tx) * 1000.0 / MHZ;
	if (!c.error[0] && (ns < expect * 0.99 || ns > expect * 1.01))
		snprintf(c.error, sizeof(c.error), "%u frames in %.0f ns, expected %.0f", frames,
			 ns, expect);
	bench_result(b, "link_rate", !c.error[0], "%s", c.error);
	ch_close(&c);
}

/* ===================================================================================== */
/* The API on the Verilated core */

extern const struct vmodel_ops vmodel_Vhroce_core;

static struct hroce_sim_params nic_params(const char *name, uint32_t rl, uint32_t wl)
{
	return (struct hroce_sim_params){
		.name = name, .pcie = { .read_latency_ns = rl, .write_latency_ns = wl, .gbps = 0 }
	};
}

static struct hroce_sim *nic_create(struct bench *b, struct hroce_sim_world *w, const char *name,
				    uint32_t rl, uint32_t wl)
{
	struct hroce_sim_params p = nic_params(name, rl, wl);
	struct hroce_sim *s = hroce_sim_create(w, &p);

	if (!s) {
		bench_result(b, "nic_create", false, "hroce_sim_create(%s): %s", name,
			     strerror(errno));
		exit(bench_finish(b));
	}
	return s;
}

struct obs {
	uint64_t count[HROCE_SIM_STAGE + 1];
	struct hroce_sim_event last[HROCE_SIM_STAGE + 1];
	bool read_inside;
	uint64_t read_inside_value;
	struct hroce_sim *s;
};

static void observe(void *ctx, const struct hroce_sim *s, const struct hroce_sim_event *ev)
{
	struct obs *o = ctx;

	(void)s;
	o->count[ev->kind]++;
	o->last[ev->kind] = *ev;
	if (o->read_inside && ev->kind == HROCE_SIM_MMIO_ARRIVE) {
		o->read_inside = false;
		o->read_inside_value = hroce_sim_mmio_read64(o->s, HROCE_REG_ID);
	}
}

static unsigned int log_errors;

static void count_log(void *ctx, enum hroce_sim_log_level level, const char *msg)
{
	(void)ctx;
	(void)msg;
	if (level == HROCE_SIM_LOG_ERR)
		log_errors++;
}

static void test_core_mmio(struct bench *b)
{
	const uint32_t rl = 400, wl = 200; /* ns */
	struct hroce_sim_world *w = hroce_sim_world_create(MHZ);
	struct hroce_sim *s = nic_create(b, w, "mmio0", rl, wl);
	uint64_t t0, t1, id, v, time_reg;
	struct obs o = { 0 };
	char why[256] = "";

	hroce_sim_world_step(w, 10);
	t0 = hroce_sim_world_ns(w);
	id = hroce_sim_mmio_read64(s, HROCE_REG_ID);
	t1 = hroce_sim_world_ns(w);
	bench_result(b, "core_reg_id", id == HROCE_CORE_ID, "REG_ID read 0x%llx",
		     (unsigned long long)id);
	/* a request and a completion, and the register file's two cycles in between */
	bench_result(b, "core_mmio_read_rtt", t1 - t0 >= 2 * rl && t1 - t0 <= 2 * rl + 5 * 4,
		     "the read took %llu ns, latency %u ns", (unsigned long long)(t1 - t0), rl);
	bench_log(b, "MMIO read round trip: %llu ns with %u ns each way",
		  (unsigned long long)(t1 - t0), rl);
	v = hroce_sim_mmio_read64(s, HROCE_REG_VERSION);
	bench_result(b, "core_reg_version", v == HROCE_CORE_VERSION, "REG_VERSION read 0x%llx",
		     (unsigned long long)v);

	/* every configuration register holds what was written, within its width */
	{
		static const struct {
			uint64_t reg;
			unsigned int bits;
		} regs[] = {
			{ HROCE_REG_MAC, 48 },	       { HROCE_REG_IPV4, 32 },
			{ HROCE_REG_QPC_BASE, 64 },    { HROCE_REG_QPC_LOG, 5 },
			{ HROCE_REG_CQC_BASE, 64 },    { HROCE_REG_CQC_LOG, 5 },
			{ HROCE_REG_MRC_BASE, 64 },    { HROCE_REG_MRC_LOG, 5 },
			{ HROCE_REG_CMD_MAILBOX, 64 }, { HROCE_REG_CMD_ARG, 64 },
		};
		uint64_t vals[sizeof(regs) / sizeof(regs[0])];

		for (int round = 0; round < 4 && !why[0]; round++) {
			for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
				vals[i] = bench_rand(b);
				hroce_sim_mmio_write64(s, regs[i].reg, vals[i]);
			}
			/* reads do not pass the posted writes before them */
			for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]) && !why[0]; i++) {
				uint64_t mask =
					regs[i].bits == 64 ? ~0ull : (1ull << regs[i].bits) - 1;

				v = hroce_sim_mmio_read64(s, regs[i].reg);
				if (v != (vals[i] & mask))
					snprintf(why, sizeof(why),
						 "register 0x%llx read 0x%llx after 0x%llx",
						 (unsigned long long)regs[i].reg,
						 (unsigned long long)v,
						 (unsigned long long)(vals[i] & mask));
			}
		}
		bench_result(b, "core_regs_read_back", !why[0], "%s", why);
	}

	/* a 4-byte write carries 4 strobes: the register file takes only whole words */
	{
		uint32_t half = 0xdeadbeef;
		uint64_t before = hroce_sim_mmio_read64(s, HROCE_REG_MAC);

		hroce_sim_mmio_write(s, HROCE_REG_MAC, &half, sizeof(half));
		v = hroce_sim_mmio_read64(s, HROCE_REG_MAC);
		bench_result(b, "core_partial_write", v == before,
			     "a 4-byte write changed REG_MAC from 0x%llx to 0x%llx",
			     (unsigned long long)before, (unsigned long long)v);
	}

	/* time_now is the world's cycle count */
	t0 = hroce_sim_world_cycles(w);
	time_reg = hroce_sim_mmio_read64(s, HROCE_REG_TIME);
	t1 = hroce_sim_world_cycles(w);
	bench_result(b, "core_time", time_reg >= t0 + rl * MHZ / 1000 && time_reg < t1,
		     "REG_TIME %llu, read between cycles %llu and %llu",
		     (unsigned long long)time_reg, (unsigned long long)t0, (unsigned long long)t1);

	/*
	 * events: a write of the doorbell pages issued, then arriving write_latency later as
	 * one beat; its WQE names QP 1 at QP 0's slot, so the core counts it malformed
	 */
	hroce_sim_set_observer(s, observe, &o);
	{
		uint8_t wqe[HROCE_DB_PUSH_BYTES];
		uint64_t bad0 = hroce_sim_mmio_read64(
			s, HROCE_REG_CORE_COUNTERS + 8 * HROCE_CORE_COUNTER_DB_MALFORMED);

		bench_fill(b, wqe, sizeof(wqe));
		HROCE_SQ_WQE_SET(wqe, QPN, 1);
		t0 = hroce_sim_world_ns(w);
		hroce_sim_db_write(s, 0, wqe, sizeof(wqe));
		hroce_sim_world_step(w, (wl + 200) * MHZ / 1000);
		bench_result(b, "core_db_malformed_counted",
			     hroce_sim_mmio_read64(
				     s, HROCE_REG_CORE_COUNTERS +
						8 * HROCE_CORE_COUNTER_DB_MALFORMED) == bad0 + 1,
			     "DB_MALFORMED did not count the write");
	}
	bench_result(b, "core_mmio_events",
		     o.count[HROCE_SIM_MMIO_WRITE] == 1 && o.count[HROCE_SIM_MMIO_ARRIVE] == 1 &&
			     o.last[HROCE_SIM_MMIO_WRITE].time_ns == t0 &&
			     o.last[HROCE_SIM_MMIO_WRITE].len == 64 &&
			     o.last[HROCE_SIM_MMIO_ARRIVE].addr == HROCE_SIM_DB_EVENT_BASE &&
			     o.last[HROCE_SIM_MMIO_ARRIVE].time_ns >= t0 + wl &&
			     o.last[HROCE_SIM_MMIO_ARRIVE].time_ns <= t0 + wl + 2 * 4,
		     "%llu writes, %llu arrivals, written at %llu ns, arrived at %llu ns",
		     (unsigned long long)o.count[HROCE_SIM_MMIO_WRITE],
		     (unsigned long long)o.count[HROCE_SIM_MMIO_ARRIVE], (unsigned long long)t0,
		     (unsigned long long)o.last[HROCE_SIM_MMIO_ARRIVE].time_ns);

	/* a read from inside a step cannot step: all ones and an error */
	hroce_sim_set_log(count_log, NULL);
	log_errors = 0;
	o.read_inside = true;
	o.s = s;
	hroce_sim_mmio_write64(s, HROCE_REG_CMD_ARG, 1);
	hroce_sim_world_step(w, 1000);
	bench_result(b, "core_read_inside_step", o.read_inside_value == ~0ull && log_errors == 1,
		     "read 0x%llx, %u errors logged", (unsigned long long)o.read_inside_value,
		     log_errors);
	/* nothing was answered wrong: the core's next read is still right */
	id = hroce_sim_mmio_read64(s, HROCE_REG_ID);
	hroce_sim_set_log(NULL, NULL);
	bench_result(b, "core_read_after_refused", id == HROCE_CORE_ID, "REG_ID read 0x%llx",
		     (unsigned long long)id);
	hroce_sim_world_destroy(w);
}

/* A NIC's bridge limits reach its PCIe model: the bridge's 32 by default, refused past 256. */
static void test_core_pcie_limits(struct bench *b)
{
	struct hroce_sim_world *w = hroce_sim_world_create(MHZ);
	struct hroce_sim_params p = nic_params("limits0", 100, 100);
	struct hroce_sim *s = hroce_sim_create(w, &p), *s2;
	const char *why = NULL;

	p.name = "limits1";
	p.pcie.reads = 5;
	p.pcie.writes = 7;
	s2 = hroce_sim_create(w, &p);
	if (!s || !s2)
		why = "a NIC was not created";
	else if (s->pcie.t.max_reads != HROCE_SIM_PCIE_BRIDGE_BURSTS ||
		 s->pcie.t.max_writes != HROCE_SIM_PCIE_BRIDGE_BURSTS)
		why = "the default is not the bridge's";
	else if (s2->pcie.t.max_reads != 5 || s2->pcie.t.max_writes != 7)
		why = "the limits given did not reach the model";
	p.name = "limits2";
	p.pcie.reads = HROCE_SIM_PCIE_BURSTS_MAX + 1;
	if (!why && (hroce_sim_create(w, &p) || errno != EINVAL))
		why = "a limit past what the model holds was taken";
	bench_result(b, "core_pcie_limits", !why, "%s", why);
	hroce_sim_world_destroy(w);
}

static void test_core_dma_api(struct bench *b)
{
	struct hroce_sim_world *w = hroce_sim_world_create(MHZ);
	struct hroce_sim *s = nic_create(b, w, "dma0", 100, 100);
	uint8_t *mem = page_alloc(8 * PAGE);
	struct hroce_sim_fault f;
	const char *why = NULL;

	if (hroce_sim_dma_map(s, mem, 0x100000, 4 * PAGE))
		why = "a good mapping refused";
	else if (hroce_sim_dma_map(s, mem, 0x101000, PAGE) != EEXIST ||
		 hroce_sim_dma_map(s, mem, 0xff000, 2 * PAGE) != EEXIST)
		why = "an overlap was not EEXIST";
	else if (hroce_sim_dma_map(s, mem, 0x200800, PAGE) != EINVAL ||
		 hroce_sim_dma_map(s, mem, 0x200000, 100) != EINVAL ||
		 hroce_sim_dma_map(s, mem + 1, 0x200000, PAGE) != EINVAL)
		why = "a misaligned mapping was not EINVAL";
	else if (hroce_sim_dma_unmap(s, 0x300000, PAGE) != ENOENT ||
		 hroce_sim_dma_unmap(s, 0x100800, PAGE) != EINVAL)
		why = "a bad unmap was not ENOENT or EINVAL";
	else if (hroce_sim_dma_unmap(s, 0x100000, 4 * PAGE) ||
		 hroce_sim_dma_map(s, mem + 4 * PAGE, 0x100000, 4 * PAGE))
		why = "could not map again after an unmap";
	else if (hroce_sim_faults(s, &f) != 0)
		why = "faults without any DMA";
	bench_result(b, "core_dma_map_errors", !why, "%s", why);
	hroce_sim_world_destroy(w);
	free(mem);
}

static void test_core_registry(struct bench *b)
{
	struct hroce_sim_world *w = hroce_sim_world_create(MHZ);
	struct hroce_sim *s = nic_create(b, w, "reg0", 100, 100);
	struct hroce_sim_params p = nic_params("reg0", 100, 100);
	struct hroce_sim *dup;
	const char *why = NULL;

	errno = 0;
	dup = hroce_sim_create(w, &p);
	if (dup || errno != EEXIST)
		why = "a second NIC of the same name";
	else if (hroce_sim_find("reg0") != s || hroce_sim_world_of(s) != w ||
		 strcmp(hroce_sim_name(s), "reg0"))
		why = "find, world_of or name wrong";
	else if (hroce_sim_find("nope") || errno != ENOENT)
		why = "found a NIC that does not exist";
	if (!why && !vmodel_Vhroce_core.has_trace) {
		p.name = "reg1";
		p.trace_path = "/tmp/never.fst";
		errno = 0;
		hroce_sim_set_log(count_log, NULL);
		dup = hroce_sim_create(w, &p);
		hroce_sim_set_log(NULL, NULL);
		if (dup || errno != ENOTSUP)
			why = "a trace asked of a model built without tracing";
	}
	hroce_sim_destroy(s);
	if (!why && hroce_sim_find("reg0"))
		why = "a destroyed NIC is still found";
	bench_result(b, "core_registry", !why, "%s", why);
	if (!hroce_sim_world_create(0) && errno == EINVAL)
		bench_result(b, "world_bad_clock", true, " ");
	else
		bench_result(b, "world_bad_clock", false, "a world of 0 MHz was created");
	hroce_sim_world_destroy(w);
}

static void test_core_link(struct bench *b, const char *dir)
{
	struct hroce_sim_world *w = hroce_sim_world_create(MHZ);
	struct hroce_sim *x = nic_create(b, w, "link0", 100, 100);
	struct hroce_sim *y = nic_create(b, w, "link1", 100, 100);
	struct hroce_sim *z = nic_create(b, w, "link2", 100, 100);
	struct hroce_sim_link_params lp = { .latency_ns = 500, .gbps = 0 };
	struct hroce_sim_link *l, *l2;
	struct pcap_file *pf;
	struct pcap_packet *pkt = malloc(sizeof(*pkt));
	char path[512];
	const char *why = NULL;

	snprintf(path, sizeof(path), "%s/test-sim-link.pcap", dir);
	lp.pcap_path = path;
	unlink(path);
	l = hroce_sim_link_connect(x, y, &lp);
	if (!l) {
		why = "hroce_sim_link_connect failed";
	} else {
		errno = 0;
		lp.pcap_path = NULL;
		l2 = hroce_sim_link_connect(y, z, &lp);
		if (l2 || errno != EBUSY)
			why = "a port connected twice";
		hroce_sim_world_step(w, 20000);
		if (!why && hroce_sim_mmio_read64(y, HROCE_REG_ID) != HROCE_CORE_ID)
			why = "REG_ID wrong on a linked NIC";
		hroce_sim_link_destroy(l);
		pf = pcap_open_read(path);
		if (!why && !pf)
			why = "no pcap, or not a valid one";
		/* the core sends nothing yet; whatever it sends must read back */
		while (!why && pf) {
			int err = pcap_read(pf, pkt);

			if (err == -1)
				break;
			if (err)
				why = "a damaged pcap record";
		}
		if (pf)
			pcap_close(pf);
		if (!why && !hroce_sim_link_connect(y, z, &lp))
			why = "could not connect a port after its link was destroyed";
	}
	lp.pcap_path = "/nonexistent-dir/x.pcap";
	if (!why) {
		hroce_sim_set_log(count_log, NULL);
		if (hroce_sim_link_connect(x, x, &lp) || !errno)
			why = "a link with an unwritable pcap";
		hroce_sim_set_log(NULL, NULL);
	}
	bench_result(b, "core_link_pcap", !why, "%s", why);
	hroce_sim_world_destroy(w); /* destroys y-z's link too */
	free(pkt);
}

static struct hroce_sim_frame_faults all_kinds_of_faults(uint64_t seed)
{
	return (struct hroce_sim_frame_faults){
		.seed = seed,
		.drop = 0.1,
		.burst_enter = 0.05,
		.burst_leave = 0.5,
		.burst_loss = 0.7,
		.flip = 0.3,
		.dup = 0.1,
		.reorder = 0.1,
		.reorder_depth = 2,
	};
}

/* A frame the core's RX path takes (roce_parse says ROCE_OK): random headers and payload. */
static size_t good_frame(struct bench *b, uint8_t *frame, size_t cap)
{
	uint8_t payload[1024];
	struct roce_hdr h;
	size_t len;

	do {
		roce_random_hdr(b, &h, roce_random_opcode(b), 64, sizeof(payload));
		h.ip_flags = 2; /* DF: not a fragment */
		h.tver = 0;
		bench_fill(b, payload, h.payload_len);
	} while (roce_build_frame(&h, payload, true, frame, cap, &len) ||
		 roce_parse(frame, len, &h, &(const uint8_t *){ NULL }) != ROCE_OK);
	return len;
}

/*
 * Faults on a channel, frames given beat by beat with gaps, partial beats and
 * back-pressure (what a core's TX does): what comes out is what the fault model, replayed
 * on the same frames (their first beats, as the channel shows it), says: the same frames,
 * in the same order, each flipped bit where the model put it.
 */
static void test_link_faults(struct bench *b)
{
	const unsigned int frames = b->quick ? 150 : 600;
	struct hroce_sim_frame_faults p = all_kinds_of_faults(b->seed);
	struct ch_frame *want = calloc(4 * frames, sizeof(*want));
	const struct sim_faults_frame *fr;
	size_t nwant = 0, first_beat = 0;
	uint8_t *frame = malloc(ROCE_MAX_FRAME);
	struct sim_faults ref;
	struct sim_fate fate;
	struct ch_tb c;
	uint64_t idle = 0;

	ch_open(&c, b, (uint32_t)bench_range(b, 1, 300), 0, NULL);
	c.valid_pct = (unsigned int)bench_range(b, 20, 100);
	c.ready_pct = (unsigned int)bench_range(b, 50, 100);
	c.collect = true;
	c.rx_bytes = malloc(65536);
	sim_faults_init(&ref);
	sim_faults_set(&ref, &p);
	sim_faults_set(&c.ch.faults, &p);
	for (unsigned int i = 0; i < frames; i++) {
		size_t len = good_frame(b, frame, ROCE_MAX_FRAME), seen = 0;
		const struct ch_beat *bt;

		ch_frame_of(&c, len, false, frame);
		bt = &c.beats[first_beat];
		seen = (size_t)__builtin_popcountll(bt->keep);
		first_beat = c.nbeats;
		/* what the channel will do: the model sees the first beat's bytes */
		sim_faults_begin(&ref, frame, seen, &fate);
		if (!fate.drop && !fate.hold) {
			want[nwant].len = len;
			want[nwant].bytes = malloc(len);
			memcpy(want[nwant].bytes, frame, len);
			if (fate.flip_mask)
				want[nwant].bytes[fate.flip_off] ^= fate.flip_mask;
			nwant++;
		}
		sim_faults_end(&ref, &fate, frame, len, false, UINT64_MAX);
		while ((fr = sim_faults_peek(&ref, 0))) {
			want[nwant].len = fr->len;
			want[nwant].bytes = malloc(fr->len);
			memcpy(want[nwant++].bytes, fr->data, fr->len);
			free(sim_faults_pop(&ref));
		}
	}
	while ((fr = sim_faults_peek(&ref, UINT64_MAX))) {
		want[nwant].len = fr->len;
		want[nwant].bytes = malloc(fr->len);
		memcpy(want[nwant++].bytes, fr->data, fr->len);
		free(sim_faults_pop(&ref));
	}
	/* until everything went and the channel stood empty for a while */
	while (!c.error[0] && idle < 4000 && c.now < 5000000) {
		ch_cycle(&c);
		idle = c.sent == c.nbeats && sim_channel_quiet(&c.ch) ? idle + 1 : 0;
	}
	for (size_t i = 0; i < nwant && !c.error[0]; i++)
		if (i >= c.ngot || c.got[i].len != want[i].len ||
		    memcmp(c.got[i].bytes, want[i].bytes, want[i].len))
			snprintf(c.error, sizeof(c.error),
				 "delivery %zu of %zu: %zu bytes, %zu expected (%s)", i, nwant,
				 i < c.ngot ? c.got[i].len : 0, want[i].len,
				 i < c.ngot ? "other bytes" : "missing");
	if (!c.error[0] && c.ngot != nwant)
		snprintf(c.error, sizeof(c.error), "%zu frames came, %zu expected", c.ngot, nwant);
	if (!c.error[0] && memcmp(&c.ch.faults.st, &ref.st, sizeof(ref.st)))
		snprintf(c.error, sizeof(c.error),
			 "the channel's fault counters are not the model's");
	bench_result(b, "link_faults", !c.error[0], "%s (latency %u, valid %u%%, ready %u%%)",
		     c.error, c.p.latency, c.valid_pct, c.ready_pct);
	for (size_t i = 0; i < nwant; i++)
		free(want[i].bytes);
	free(want);
	free(frame);
	sim_faults_fini(&ref);
	ch_close(&c);
}

/*
 * Faults on the direction from x to y: frames x's side puts on the link meet them; y's
 * core counts each frame it gets by its RX verdict. The same model, replayed here on the
 * same frames, says which frames arrive, how many times and with which bit flipped;
 * roce_parse (the RTL's verdicts) says how y must count each: y takes every intact frame,
 * and drops and counts every damaged one, never taking it.
 */
static void test_core_faults(struct bench *b)
{
	const unsigned int frames = b->quick ? 120 : 400;
	struct hroce_sim_world *w = hroce_sim_world_create(MHZ);
	struct hroce_sim *x = nic_create(b, w, "fault0", 100, 100);
	struct hroce_sim *y = nic_create(b, w, "fault1", 100, 100);
	struct hroce_sim_link_params lp = { .latency_ns = 200 };
	struct hroce_sim_frame_faults p = {
		.seed = b->seed,
		.drop = 0.1,
		.flip = 0.3,
		.dup = 0.1,
		.reorder = 0.1,
		.reorder_depth = 2,
	};
	struct hroce_sim_frame_fault_stats st, st_back;
	uint64_t want[ROCE_VERDICTS] = { 0 }, got[ROCE_VERDICTS], delivered = 0;
	uint8_t *frame = malloc(ROCE_MAX_FRAME), *copy = malloc(ROCE_MAX_FRAME);
	const struct sim_faults_frame *fr;
	struct hroce_sim_link *l;
	struct sim_faults ref;
	struct sim_fate fate;
	struct roce_hdr h;
	char why[256] = "";

	l = hroce_sim_link_connect(x, y, &lp);
	sim_faults_init(&ref);
	p.flip = 1.5;
	hroce_sim_set_log(count_log, NULL);
	if (!l || hroce_sim_link_set_faults(l, x, &p) != EINVAL ||
	    hroce_sim_link_set_faults(l, NULL, NULL) != EINVAL)
		snprintf(why, sizeof(why), "bad faults, or a NIC not on the link, taken");
	hroce_sim_set_log(NULL, NULL);
	p.flip = 0.3;
	if (!why[0] && (hroce_sim_link_set_faults(l, x, &p) || sim_faults_set(&ref, &p)))
		snprintf(why, sizeof(why), "faults refused");
	for (unsigned int i = 0; i < frames && !why[0]; i++) {
		size_t len = good_frame(b, frame, ROCE_MAX_FRAME);

		if (hroce_sim_link_inject(l, y, frame, len))
			snprintf(why, sizeof(why), "inject failed");
		/* what the link will do with it */
		sim_faults_begin(&ref, frame, len < 64 ? len : 64, &fate);
		memcpy(copy, frame, len);
		if (fate.flip_mask)
			copy[fate.flip_off] ^= fate.flip_mask;
		if (!fate.drop && !fate.hold) {
			want[roce_parse(copy, len, &h, &(const uint8_t *){ NULL })]++;
			delivered++;
		}
		sim_faults_end(&ref, &fate, frame, len, false, UINT64_MAX);
		while ((fr = sim_faults_peek(&ref, 0))) {
			want[roce_parse(fr->data, fr->len, &h, &(const uint8_t *){ NULL })]++;
			delivered++;
			free(sim_faults_pop(&ref));
		}
		/* a frame or two at a time, so that frames held back meet later ones */
		hroce_sim_world_step(w, bench_range(b, 0, 40));
	}
	/* the frames still held back go at their deadline */
	while ((fr = sim_faults_peek(&ref, UINT64_MAX))) {
		want[roce_parse(fr->data, fr->len, &h, &(const uint8_t *){ NULL })]++;
		delivered++;
		free(sim_faults_pop(&ref));
	}
	hroce_sim_world_step(w, 20000);
	for (unsigned int v = 0; v < ROCE_VERDICTS && !why[0]; v++) {
		got[v] = hroce_sim_mmio_read64(y, HROCE_REG_RX_COUNTERS + 8 * v);
		if (got[v] != want[v])
			snprintf(why, sizeof(why), "%s: y counted %llu frames, %llu expected",
				 roce_verdict_name(v), (unsigned long long)got[v],
				 (unsigned long long)want[v]);
	}
	if (!why[0] &&
	    (hroce_sim_link_fault_stats(l, x, &st) || hroce_sim_link_fault_stats(l, y, &st_back)))
		snprintf(why, sizeof(why), "no fault statistics");
	if (!why[0] && (memcmp(&st, &ref.st, sizeof(st)) || st.frames != frames))
		snprintf(why, sizeof(why),
			 "the link counted %llu frames, %llu lost, %llu flipped, %llu copied, %llu "
			 "held; %llu, %llu, %llu, %llu, %llu expected",
			 (unsigned long long)st.frames, (unsigned long long)st.dropped_random,
			 (unsigned long long)st.flipped, (unsigned long long)st.duplicated,
			 (unsigned long long)st.reordered, (unsigned long long)ref.st.frames,
			 (unsigned long long)ref.st.dropped_random,
			 (unsigned long long)ref.st.flipped, (unsigned long long)ref.st.duplicated,
			 (unsigned long long)ref.st.reordered);
	if (!why[0] && (!st.dropped_random || !st.flipped || st_back.frames))
		snprintf(why, sizeof(why), "no frame lost or flipped, or faults the other way");
	bench_result(b, "core_link_faults", !why[0], "%s", why);
	bench_log(b,
		  "link faults: %u frames sent, %llu delivered: %llu taken, %llu ip_checksum, "
		  "%llu icrc, %llu others dropped by the core",
		  frames, (unsigned long long)delivered, (unsigned long long)want[ROCE_OK],
		  (unsigned long long)want[ROCE_IP_CHECKSUM], (unsigned long long)want[ROCE_ICRC],
		  (unsigned long long)(delivered - want[ROCE_OK] - want[ROCE_IP_CHECKSUM] -
				       want[ROCE_ICRC]));
	sim_faults_fini(&ref);
	hroce_sim_world_destroy(w);
	free(frame);
	free(copy);
}

/* The same calls give the same cycles and values. */
static uint64_t determinism_run(uint64_t seed, uint64_t *values)
{
	struct hroce_sim_world *w = hroce_sim_world_create(MHZ);
	struct hroce_sim_params pa = nic_params("det0", 300, 150);
	struct hroce_sim_params pb = nic_params("det1", 250, 170);
	struct hroce_sim *a = hroce_sim_create(w, &pa), *bb = hroce_sim_create(w, &pb);
	struct hroce_sim_link_params lp = { .latency_ns = 300 };
	uint64_t rng = seed, cycles;

	hroce_sim_link_connect(a, bb, &lp);
	for (int i = 0; i < 50; i++) {
		struct hroce_sim *s = (rng >> 7) & 1 ? a : bb;

		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		hroce_sim_mmio_write64(s, HROCE_REG_QPC_BASE, rng);
		hroce_sim_world_step(w, (rng >> 40) % 50);
		values[i] = hroce_sim_mmio_read64(s, (rng >> 20) & 1 ? HROCE_REG_TIME
								     : HROCE_REG_QPC_BASE);
	}
	cycles = hroce_sim_world_cycles(w);
	hroce_sim_world_destroy(w);
	return cycles;
}

static void test_core_determinism(struct bench *b)
{
	uint64_t v1[50], v2[50], c1, c2;

	c1 = determinism_run(b->seed, v1);
	c2 = determinism_run(b->seed, v2);
	bench_result(b, "core_determinism", c1 == c2 && !memcmp(v1, v2, sizeof(v1)),
		     "runs took %llu and %llu cycles", (unsigned long long)c1,
		     (unsigned long long)c2);
}

/* Figures: cycles a second, idle and under MMIO traffic. */
static void bench_speed(struct bench *b)
{
	struct hroce_sim_world *w = hroce_sim_world_create(MHZ);
	struct hroce_sim *x = nic_create(b, w, "speed0", 400, 200);
	struct hroce_sim *y = nic_create(b, w, "speed1", 400, 200);
	struct hroce_sim_link_params lp = { .latency_ns = 500 };
	uint64_t cycles = b->quick ? 300000 : 2000000, start;
	double t, one, two, mmio;
	uint64_t reads = 0, writes = 0;

	hroce_sim_link_connect(x, y, &lp);
	t = seconds();
	hroce_sim_world_step(w, cycles);
	t = seconds() - t;
	two = (double)cycles / t;
	/* MMIO: posted writes back to back, a read now and then */
	start = hroce_sim_world_cycles(w);
	t = seconds();
	while (hroce_sim_world_cycles(w) - start < cycles) {
		for (int i = 0; i < 16; i++, writes++)
			hroce_sim_mmio_write64(i & 1 ? x : y, HROCE_REG_CMD_ARG, writes);
		hroce_sim_world_step(w, 32);
		if (!(writes & 255)) {
			hroce_sim_mmio_read64(x, HROCE_REG_CMD_ARG);
			reads++;
		}
	}
	t = seconds() - t;
	mmio = (double)(hroce_sim_world_cycles(w) - start) / t;
	hroce_sim_destroy(y);
	t = seconds();
	hroce_sim_world_step(w, cycles);
	t = seconds() - t;
	one = (double)cycles / t;
	bench_log(b,
		  "speed: 1 idle NIC %.2f M cycles/s; 2 idle NICs linked %.2f M world cycles/s "
		  "(%.2f M NIC cycles/s); 2 NICs under MMIO (a write every 2 cycles, a read "
		  "every 256 writes) %.2f M world cycles/s (%llu writes, %llu reads)",
		  one / 1e6, two / 1e6, 2 * two / 1e6, mmio / 1e6, (unsigned long long)writes,
		  (unsigned long long)reads);
	hroce_sim_world_destroy(w);
}

int main(int argc, char **argv)
{
	struct bench b;
	const char *dir = getenv("HROCE_TEST_TMP") ? getenv("HROCE_TEST_TMP") : "build";

	bench_init(&b, "test_sim", argc, argv);
	test_iommu(&b);
	test_pcie_read_latency(&b);
	test_pcie_read_snapshot(&b);
	test_pcie_write_land(&b);
	test_pcie_write_order(&b);
	test_pcie_outstanding(&b);
	test_pcie_limits(&b);
	test_pcie_bandwidth(&b);
	test_pcie_faults(&b);
	test_pcie_irq_order(&b);
	for (unsigned int i = 0; i < 4; i++)
		test_pcie_random(&b, i);
	test_link_latency(&b);
	test_link_lossless(&b);
	test_link_rate(&b);
	test_link_random(&b, dir);
	test_core_mmio(&b);
	test_core_dma_api(&b);
	test_core_pcie_limits(&b);
	test_core_registry(&b);
	test_core_link(&b, dir);
	test_link_faults(&b);
	test_core_faults(&b);
	test_core_determinism(&b);
	bench_speed(&b);
	return bench_finish(&b);
}
