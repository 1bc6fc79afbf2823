// SPDX-License-Identifier: MIT
/*
 * Bench of ctx_cache, the set-associative cache of contexts in front of a host-memory
 * table, with small caches (a few sets) over tables of thousands of entries, so that most
 * lookups miss and most misses evict a dirty line.
 *
 * The bench is the engine and the host memory. The engine works as the core's do: a
 * lookup, then (mostly) an update of the same entry that changes only the bytes it owns;
 * now and then an update without a lookup (the cache installs it), and, while nothing is
 * under way, an invalidation after which the "command engine" rewrites the entry in memory.
 * The memory serves the block's DMA reads in order after a random latency (a beat of an
 * entry marked bad with an error), takes its writes and answers each after a random
 * latency; every stream moves with idle cycles and back-pressure.
 *
 * The scoreboard is the entry as the engine last left it (expect): every lookup must
 * answer it exactly (or the error or no-entry status the contract says); every write-back
 * must be the owned bytes of the entry at WB_OFFSET, holding the engine's last update; no
 * read of an entry may be issued while a write-back of it is unanswered; an invalidation is
 * done only when the entry's owned bytes are in memory; and the hit, miss and write-back
 * pulses must match the lookups, the DMA reads and the DMA writes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

extern const struct vmodel_ops vmodel_Vctx_cache_qp2, vmodel_Vctx_cache_qp4, vmodel_Vctx_cache_cq2;

struct model_desc {
	const struct vmodel_ops *ops;
	const char *name;
	/* its parameters (see the Makefile) */
	unsigned int line_bytes, wb_offset, wb_bytes, lines;
};

static const struct model_desc models[] = {
	{ &vmodel_Vctx_cache_qp2, "qp 2-way", 256, 160, 32, 16 },
	{ &vmodel_Vctx_cache_qp4, "qp 4-way", 256, 128, 32, 8 },
	{ &vmodel_Vctx_cache_cq2, "cq 2-way", 64, 0, 64, 4 },
};

#define BEAT 64u
#define TABLE_LOG 12
#define ENTRIES (1u << TABLE_LOG)
#define MAX_LINE 256u
#define QUEUE 64
#define HANG_CYCLES 20000

enum engine_state { ENG_IDLE, ENG_LOOKUP, ENG_ANSWER, ENG_UPDATE, ENG_INVAL, ENG_INVAL_WAIT };

struct dma_op {
	unsigned int index;
	uint64_t due;
};

struct ctx_env {
	struct bench *b;
	const struct model_desc *md;
	struct dut dut;
	const struct vmodel_port *cfg_base, *cfg_log;
	const struct vmodel_port *lk_index, *lk_valid, *lk_ready, *lk_data, *lk_status, *lk_rvalid,
		*lk_rready;
	const struct vmodel_port *up_index, *up_data, *up_valid, *up_ready;
	const struct vmodel_port *inv_num, *inv_valid, *inv_ready, *inv_done;
	const struct vmodel_port *rd_addr, *rd_len, *rd_valid, *rd_ready, *rd_data, *rd_tvalid,
		*rd_tready, *rd_tlast, *rd_tuser;
	const struct vmodel_port *wr_addr, *wr_len, *wr_valid, *wr_ready, *wr_data, *wr_tkeep,
		*wr_tvalid, *wr_tready, *wr_tlast, *wr_done_valid, *wr_done_error;
	const struct vmodel_port *st_hit, *st_miss, *st_wb;

	/* host memory: the table, what the engine last left in each entry, bad entries */
	uint64_t base;
	unsigned int log; /* cfg_log: the entries the table has */
	uint8_t *mem, *expect, *prev;
	bool *bad;
	unsigned int *wb_out; /* write-backs of an entry not answered yet */

	/* the engine */
	enum engine_state es;
	unsigned int index, working_set, window;
	bool updated_since_inval;
	uint8_t line[MAX_LINE];
	unsigned int lk_rdy, rd_rdy, wr_rdy, wr_trdy, beat_on;
	unsigned int ops_left;

	/* DMA reads: requests taken, the one being served and its beat */
	struct dma_op rd[QUEUE];
	unsigned int rd_head, rd_n, rd_beat;
	/*
	 * DMA writes: requests and data beats not paired yet (either may come first), and the
	 * writes waiting for their answer
	 */
	struct dma_op wreq[QUEUE], wdone[QUEUE];
	uint8_t wdata[QUEUE][BEAT];
	unsigned int wreq_head, wreq_n, wdata_head, wdata_n, wdone_head, wdone_n;

	/* knobs */
	unsigned int stall_pct, latency_max;

	/* figures and the block's pulses */
	uint64_t lookups, in_table, updates, installs, invals, errors, no_entry;
	uint64_t reads, writes, hits, misses, wbs, progress;
	char error[512];
};

/* Keeps the first failure: the later ones usually follow from it. */
#define fail(e, ...) bench_first_error((e)->error, sizeof((e)->error), __VA_ARGS__)

static uint8_t *mem_of(const struct ctx_env *e, unsigned int index)
{
	return e->mem + (size_t)index * e->md->line_bytes;
}

static uint8_t *expect_of(const struct ctx_env *e, unsigned int index)
{
	return e->expect + (size_t)index * e->md->line_bytes;
}

static uint8_t *prev_of(const struct ctx_env *e, unsigned int index)
{
	return e->prev + (size_t)index * e->md->wb_bytes;
}

static bool stalled(struct ctx_env *e)
{
	return bench_chance(e->b, e->stall_pct);
}

/* the index the engine works on next: mostly from a moving window of the table */
static unsigned int pick_index(struct ctx_env *e)
{
	if (bench_chance(e->b, 2))
		return (unsigned int)bench_range(e->b, 0, (1u << 24) - 1); /* often not in it */
	return (e->window + (unsigned int)bench_range(e->b, 0, e->working_set - 1)) % ENTRIES;
}

/*
 * The engine
 */

static void engine_drive(struct ctx_env *e)
{
	struct bench *b = e->b;
	const struct model_desc *md = e->md;

	vport_set(e->lk_valid, e->es == ENG_LOOKUP);
	vport_set(e->up_valid, e->es == ENG_UPDATE);
	vport_set(e->inv_valid, e->es == ENG_INVAL);
	e->lk_rdy = !stalled(e);
	vport_set(e->lk_rready, e->lk_rdy);
	if (e->es != ENG_IDLE || e->error[0])
		return;
	if (!e->ops_left || bench_chance(b, 20))
		return; /* an idle cycle */
	e->ops_left--;
	if (bench_chance(b, 1) && !e->rd_n) {
		/* only while the engine is quiet, as the command engine does */
		e->index = pick_index(e) % ENTRIES;
		e->es = ENG_INVAL;
		vport_set(e->inv_num, e->index);
		vport_set(e->inv_valid, 1);
	} else if (bench_chance(b, 4)) {
		/* an update without a lookup: the owned bytes new, the rest as expected */
		do
			e->index = pick_index(e) % ENTRIES;
		while (e->bad[e->index] || e->index >> e->log);
		memcpy(e->line, expect_of(e, e->index), md->line_bytes);
		bench_fill(b, e->line + md->wb_offset, md->wb_bytes);
		e->installs++;
		e->es = ENG_UPDATE;
		vport_set(e->up_index, e->index);
		vport_write(e->up_data, e->line, md->line_bytes);
		vport_set(e->up_valid, 1);
	} else {
		e->index = pick_index(e);
		e->es = ENG_LOOKUP;
		vport_set(e->lk_index, e->index);
		vport_set(e->lk_valid, 1);
	}
	if (bench_chance(b, 1))
		e->window = (e->window + (unsigned int)bench_range(b, 1, ENTRIES)) % ENTRIES;
}

static void check_answer(struct ctx_env *e)
{
	const struct model_desc *md = e->md;
	unsigned int status = (unsigned int)vport_get(e->lk_status);
	unsigned int want = 0;

	if (e->index >> e->log)
		want = 2;
	else if (e->bad[e->index])
		want = 1;
	if (status != want) {
		fail(e, "lookup of entry %u: status %u, expected %u", e->index, status, want);
		return;
	}
	if (want) {
		e->errors += want == 1;
		e->no_entry += want == 2;
		e->es = ENG_IDLE;
		return;
	}
	vport_read(e->lk_data, e->line, md->line_bytes);
	if (memcmp(e->line, expect_of(e, e->index), md->line_bytes)) {
		unsigned int at = 0;

		while (e->line[at] == expect_of(e, e->index)[at])
			at++;
		fail(e, "lookup of entry %u: byte %u is 0x%02x, expected 0x%02x", e->index, at,
		     e->line[at], expect_of(e, e->index)[at]);
		return;
	}
	if (bench_chance(e->b, 80)) {
		bench_fill(e->b, e->line + md->wb_offset, md->wb_bytes);
		e->es = ENG_UPDATE;
	} else {
		e->es = ENG_IDLE;
	}
}

static void engine_sample(struct ctx_env *e)
{
	const struct model_desc *md = e->md;

	switch (e->es) {
	case ENG_LOOKUP:
		if (vport_get(e->lk_ready)) {
			e->lookups++;
			e->in_table += !(e->index >> e->log);
			e->es = ENG_ANSWER;
		}
		break;
	case ENG_ANSWER:
		if (vport_get(e->lk_rvalid) && e->lk_rdy) {
			e->progress++;
			check_answer(e);
			if (e->es == ENG_UPDATE) {
				vport_set(e->up_index, e->index);
				vport_write(e->up_data, e->line, md->line_bytes);
			}
		}
		break;
	case ENG_UPDATE:
		if (vport_get(e->up_ready)) {
			memcpy(prev_of(e, e->index), expect_of(e, e->index) + md->wb_offset,
			       md->wb_bytes);
			memcpy(expect_of(e, e->index), e->line, md->line_bytes);
			e->updates++;
			e->progress++;
			e->es = ENG_IDLE;
		}
		break;
	case ENG_INVAL:
		if (vport_get(e->inv_ready))
			e->es = ENG_INVAL_WAIT;
		break;
	case ENG_INVAL_WAIT:
		if (vport_get(e->inv_done)) {
			uint8_t *m = mem_of(e, e->index);

			if (e->wb_out[e->index])
				fail(e,
				     "invalidation of entry %u done before its write-back was "
				     "answered",
				     e->index);
			else if (memcmp(m + md->wb_offset, expect_of(e, e->index) + md->wb_offset,
					md->wb_bytes))
				fail(e,
				     "invalidation of entry %u done without its owned bytes in "
				     "memory (%s)",
				     e->index,
				     memcmp(m + md->wb_offset, prev_of(e, e->index), md->wb_bytes)
					     ? "nor the update before"
					     : "the update before is");
			/* the command engine rewrites the entry (and may make it bad or good) */
			bench_fill(e->b, m, md->line_bytes);
			memcpy(expect_of(e, e->index), m, md->line_bytes);
			e->bad[e->index] = bench_chance(e->b, 10);
			e->invals++;
			e->progress++;
			e->es = ENG_IDLE;
		}
		break;
	default:
		break;
	}
	if (vport_get(e->st_hit))
		e->hits++;
	if (vport_get(e->st_miss))
		e->misses++;
	if (vport_get(e->st_wb))
		e->wbs++;
}

/*
 * Host memory: DMA reads and writes
 */

/* A read only of an entry in the table as it is now; a write-back of one it ever had. */
static unsigned int entry_of(struct ctx_env *e, uint64_t addr, uint64_t off, bool read,
			     const char *what)
{
	uint64_t rel = addr - e->base - off;

	if (addr < e->base + off || rel % e->md->line_bytes || rel / e->md->line_bytes >= ENTRIES ||
	    (read && (rel / e->md->line_bytes) >> e->log)) {
		fail(e, "%s at 0x%llx: not an entry of the table", what, (unsigned long long)addr);
		return 0;
	}
	return (unsigned int)(rel / e->md->line_bytes);
}

static void mem_drive(struct ctx_env *e)
{
	const struct model_desc *md = e->md;
	bool beat = false;

	e->rd_rdy = !stalled(e);
	e->wr_rdy = !stalled(e);
	e->wr_trdy = !stalled(e);
	vport_set(e->rd_ready, e->rd_rdy && e->rd_n < QUEUE);
	vport_set(e->wr_ready, e->wr_rdy && e->wreq_n < QUEUE);
	vport_set(e->wr_tready, e->wr_trdy);

	if (e->rd_n && e->rd[e->rd_head].due <= e->dut.cycle && !stalled(e)) {
		unsigned int index = e->rd[e->rd_head].index;
		unsigned int beats = md->line_bytes / BEAT;
		uint8_t data[BEAT];

		memcpy(data, mem_of(e, index) + e->rd_beat * BEAT, BEAT);
		vport_write(e->rd_data, data, BEAT);
		vport_set(e->rd_tlast, e->rd_beat == beats - 1);
		vport_set(e->rd_tuser, e->bad[index] && e->rd_beat == beats - 1);
		beat = true;
	}
	e->beat_on = beat;
	vport_set(e->rd_tvalid, beat);

	/* a write-back's answer */
	vport_set(e->wr_done_valid, 0);
	vport_set(e->wr_done_error, 0);
	if (e->wdone_n && e->wdone[e->wdone_head].due <= e->dut.cycle) {
		unsigned int index = e->wdone[e->wdone_head].index;

		vport_set(e->wr_done_valid, 1);
		e->wdone_head = (e->wdone_head + 1) % QUEUE;
		e->wdone_n--;
		e->wb_out[index]--;
	}
}

static void mem_sample(struct ctx_env *e)
{
	const struct model_desc *md = e->md;

	if (vport_get(e->rd_valid) && e->rd_rdy && e->rd_n < QUEUE) {
		unsigned int index = entry_of(e, vport_get(e->rd_addr), 0, true, "a DMA read");

		if (vport_get(e->rd_len) != md->line_bytes)
			fail(e, "a DMA read of %llu bytes",
			     (unsigned long long)vport_get(e->rd_len));
		if (e->wb_out[index])
			fail(e, "a read of entry %u passed its write-back", index);
		e->rd[(e->rd_head + e->rd_n++) % QUEUE] =
			(struct dma_op){ index,
					 e->dut.cycle + bench_range(e->b, 1, e->latency_max) };
		e->reads++;
	}
	if (e->beat_on && vport_get(e->rd_tready)) {
		e->dut.transfers++;
		if (++e->rd_beat == md->line_bytes / BEAT) {
			e->rd_beat = 0;
			e->rd_head = (e->rd_head + 1) % QUEUE;
			e->rd_n--;
		}
	}
	if (vport_get(e->wr_valid) && e->wr_rdy && e->wreq_n < QUEUE) {
		unsigned int index =
			entry_of(e, vport_get(e->wr_addr), md->wb_offset, false, "a write-back");

		if (vport_get(e->wr_len) != md->wb_bytes)
			fail(e, "a write-back of %llu bytes",
			     (unsigned long long)vport_get(e->wr_len));
		e->wreq[(e->wreq_head + e->wreq_n++) % QUEUE] = (struct dma_op){ index, 0 };
		e->wb_out[index]++;
		e->writes++;
	}
	if (vport_get(e->wr_tvalid) && e->wr_trdy) {
		if (e->wdata_n == QUEUE) {
			fail(e, "write-back data without requests");
			return;
		}
		e->dut.transfers++;
		vport_read(e->wr_data, e->wdata[(e->wdata_head + e->wdata_n++) % QUEUE], BEAT);
		if (!vport_get(e->wr_tlast) ||
		    vport_get(e->wr_tkeep) != ~0ull >> (64 - md->wb_bytes))
			fail(e, "a write-back beat without tlast, or with keep 0x%llx",
			     (unsigned long long)vport_get(e->wr_tkeep));
	}
	while (e->wreq_n && e->wdata_n) {
		const uint8_t *data = e->wdata[e->wdata_head];
		unsigned int index = e->wreq[e->wreq_head].index;

		e->wreq_head = (e->wreq_head + 1) % QUEUE;
		e->wreq_n--;
		e->wdata_head = (e->wdata_head + 1) % QUEUE;
		e->wdata_n--;
		/* the engine's last update, or the one before if it came after the eviction */
		if (memcmp(data, expect_of(e, index) + md->wb_offset, md->wb_bytes) &&
		    memcmp(data, prev_of(e, index), md->wb_bytes))
			fail(e, "the write-back of entry %u is not the engine's last update",
			     index);
		memcpy(mem_of(e, index) + md->wb_offset, data, md->wb_bytes);
		e->wdone[(e->wdone_head + e->wdone_n++) % QUEUE] =
			(struct dma_op){ index,
					 e->dut.cycle + bench_range(e->b, 1, e->latency_max) };
	}
}

static void agent_drive(void *ctx)
{
	struct ctx_env *e = ctx;

	engine_drive(e);
	mem_drive(e);
}

static void agent_sample(void *ctx)
{
	struct ctx_env *e = ctx;

	mem_sample(e);
	engine_sample(e);
}

#define PORT(field, name) e->field = dut_port(&e->dut, name)

static void env_open(struct ctx_env *e, struct bench *b, const struct model_desc *md)
{
	memset(e, 0, sizeof(*e));
	e->b = b;
	e->md = md;
	dut_open(&e->dut, b, md->ops);
	PORT(cfg_base, "cfg_base");
	PORT(cfg_log, "cfg_log");
	PORT(lk_index, "s_lookup_index");
	PORT(lk_valid, "s_lookup_valid");
	PORT(lk_ready, "s_lookup_ready");
	PORT(lk_data, "m_lookup_data");
	PORT(lk_status, "m_lookup_status");
	PORT(lk_rvalid, "m_lookup_valid");
	PORT(lk_rready, "m_lookup_ready");
	PORT(up_index, "s_update_index");
	PORT(up_data, "s_update_data");
	PORT(up_valid, "s_update_valid");
	PORT(up_ready, "s_update_ready");
	PORT(inv_num, "s_inval_num");
	PORT(inv_valid, "s_inval_valid");
	PORT(inv_ready, "s_inval_ready");
	PORT(inv_done, "inval_done");
	PORT(rd_addr, "m_rd_req_addr");
	PORT(rd_len, "m_rd_req_len");
	PORT(rd_valid, "m_rd_req_valid");
	PORT(rd_ready, "m_rd_req_ready");
	PORT(rd_data, "s_rd_axis_tdata");
	PORT(rd_tvalid, "s_rd_axis_tvalid");
	PORT(rd_tready, "s_rd_axis_tready");
	PORT(rd_tlast, "s_rd_axis_tlast");
	PORT(rd_tuser, "s_rd_axis_tuser");
	PORT(wr_addr, "m_wr_req_addr");
	PORT(wr_len, "m_wr_req_len");
	PORT(wr_valid, "m_wr_req_valid");
	PORT(wr_ready, "m_wr_req_ready");
	PORT(wr_data, "m_wr_axis_tdata");
	PORT(wr_tkeep, "m_wr_axis_tkeep");
	PORT(wr_tvalid, "m_wr_axis_tvalid");
	PORT(wr_tready, "m_wr_axis_tready");
	PORT(wr_tlast, "m_wr_axis_tlast");
	PORT(wr_done_valid, "s_wr_done_valid");
	PORT(wr_done_error, "s_wr_done_error");
	PORT(st_hit, "stat_hit");
	PORT(st_miss, "stat_miss");
	PORT(st_wb, "stat_writeback");
	e->mem = calloc(ENTRIES, md->line_bytes);
	e->expect = calloc(ENTRIES, md->line_bytes);
	e->prev = calloc(ENTRIES, md->wb_bytes);
	e->bad = calloc(ENTRIES, sizeof(*e->bad));
	e->wb_out = calloc(ENTRIES, sizeof(*e->wb_out));
	if (!e->mem || !e->expect || !e->prev || !e->bad || !e->wb_out) {
		fprintf(stderr, "test_ctx: out of memory\n");
		exit(1);
	}
	bench_fill(b, e->mem, (size_t)ENTRIES * md->line_bytes);
	memcpy(e->expect, e->mem, (size_t)ENTRIES * md->line_bytes);
	for (unsigned int i = 0; i < ENTRIES; i++)
		e->bad[i] = bench_chance(b, 3);
	e->base = (bench_rand(b) & ~((uint64_t)1 << 63)) & ~(uint64_t)(md->line_bytes - 1);
	dut_add_agent(&e->dut, agent_drive, agent_sample, e);
}

static void env_close(struct ctx_env *e)
{
	dut_close(&e->dut);
	free(e->mem);
	free(e->expect);
	free(e->prev);
	free(e->bad);
	free(e->wb_out);
}

/* Runs until the engine has done its operations and the memory is quiet. */
static bool run(struct ctx_env *e, unsigned int ops)
{
	uint64_t last = e->progress, since = e->dut.cycle;

	e->ops_left = ops;
	while (!e->error[0]) {
		dut_step(&e->dut);
		if (e->progress != last) {
			last = e->progress;
			since = e->dut.cycle;
		}
		if (!e->ops_left && e->es == ENG_IDLE && !e->rd_n && !e->wreq_n && !e->wdata_n &&
		    !e->wdone_n)
			return true;
		if (e->dut.cycle - since > HANG_CYCLES) {
			fail(e,
			     "no progress for %d cycles (engine state %d, %u reads, %u writes "
			     "queued)",
			     HANG_CYCLES, e->es, e->rd_n, e->wreq_n + e->wdone_n);
			break;
		}
	}
	return false;
}

/* Invalidates every entry: the owned bytes of each must then be in memory (ENG_INVAL_WAIT). */
static void flush_all(struct ctx_env *e)
{
	for (unsigned int i = 0; i < ENTRIES && !e->error[0]; i++) {
		uint64_t since = e->dut.cycle;

		e->index = i;
		vport_set(e->inv_num, i);
		e->es = ENG_INVAL;
		while (e->es != ENG_IDLE && !e->error[0] && e->dut.cycle - since < HANG_CYCLES)
			dut_step(&e->dut);
		if (e->es != ENG_IDLE)
			fail(e, "the invalidation of entry %u never finished", i);
	}
}

static void run_model(struct bench *b, const struct model_desc *md)
{
	static const struct {
		const char *name;
		unsigned int working_set, stall_pct, latency_max;
	} phases[] = {
		{ "fits", 4, 0, 4 },
		{ "twice the lines", 0, 20, 30 },
		{ "many indices", ENTRIES, 30, 60 },
		{ "back-pressure", 64, 60, 200 },
	};
	struct ctx_env e;
	char test[96];
	unsigned int ops = b->quick ? 1500 : 6000;

	env_open(&e, b, md);
	e.log = TABLE_LOG;
	vport_set(e.cfg_base, e.base);
	vport_set(e.cfg_log, e.log);
	dut_reset(&e.dut, 4);
	for (size_t p = 0; p < sizeof(phases) / sizeof(phases[0]); p++) {
		uint64_t c0 = e.dut.cycle, l0 = e.in_table, r0 = e.reads, w0 = e.writes;

		e.working_set = phases[p].working_set ? phases[p].working_set : 2 * md->lines;
		e.stall_pct = phases[p].stall_pct;
		e.latency_max = phases[p].latency_max;
		run(&e, ops);
		snprintf(test, sizeof(test), "ctx_%s_%s", md->name, phases[p].name);
		for (char *c = test; *c; c++)
			*c = *c == ' ' || *c == '-' ? '_' : *c;
		bench_result(b, test, !e.error[0], "%s", e.error);
		bench_log(b,
			  "%s, %s: %llu lookups in the table, %llu reads, %llu write-backs, %llu "
			  "cycles",
			  md->name, phases[p].name, (unsigned long long)(e.in_table - l0),
			  (unsigned long long)(e.reads - r0), (unsigned long long)(e.writes - w0),
			  (unsigned long long)(e.dut.cycle - c0));
	}
	/* the table halved: entries beyond it answer "no entry", and are never read */
	if (!e.error[0]) {
		e.log = TABLE_LOG - 1;
		vport_set(e.cfg_log, e.log);
		e.working_set = ENTRIES;
		e.stall_pct = 10;
		e.latency_max = 20;
		run(&e, ops / 2);
	}
	flush_all(&e);
	snprintf(test, sizeof(test), "ctx_%s_flush", md->name);
	for (char *c = test; *c; c++)
		*c = *c == ' ' || *c == '-' ? '_' : *c;
	bench_result(b, test, !e.error[0], "%s", e.error);
	snprintf(test, sizeof(test), "ctx_%s_counters", md->name);
	for (char *c = test; *c; c++)
		*c = *c == ' ' || *c == '-' ? '_' : *c;
	/* a lookup of a bad entry misses and reads, like any other miss */
	bench_result(b, test,
		     e.hits + e.misses == e.in_table && e.misses == e.reads && e.wbs == e.writes &&
			     e.writes > 0 && e.hits > 0,
		     "%llu hits + %llu misses for %llu lookups in the table, %llu reads; %llu "
		     "write-back pulses for %llu writes",
		     (unsigned long long)e.hits, (unsigned long long)e.misses,
		     (unsigned long long)e.in_table, (unsigned long long)e.reads,
		     (unsigned long long)e.wbs, (unsigned long long)e.writes);
	bench_log(b,
		  "%s: %llu lookups (%llu hits, %llu misses, %llu errors, %llu not in the "
		  "table), %llu updates (%llu without a lookup), %llu invalidations, %llu "
		  "write-backs",
		  md->name, (unsigned long long)e.lookups, (unsigned long long)e.hits,
		  (unsigned long long)e.misses, (unsigned long long)e.errors,
		  (unsigned long long)e.no_entry, (unsigned long long)e.updates,
		  (unsigned long long)e.installs, (unsigned long long)e.invals,
		  (unsigned long long)e.writes);
	env_close(&e);
}

int main(int argc, char **argv)
{
	struct bench b;

	bench_init(&b, "test_ctx", argc, argv);
	for (size_t m = 0; m < sizeof(models) / sizeof(models[0]); m++)
		run_model(&b, &models[m]);
	return bench_finish(&b);
}
