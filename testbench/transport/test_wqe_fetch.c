// SPDX-License-Identifier: MIT
/*
 * Bench of wqe_fetch, the requester's windows on the send queues, alone: with 8 slots (the
 * core's) and with 2, where every fill and push takes a window another QP may want.
 *
 * The bench is the stage's user and its DMA client. The user is random but legal: a few
 * QPs whose indices stay near a base that moves on (two near the 16-bit wrap); fills only
 * on fill_ok and new pushes only on alloc_ok, never both in a cycle, none while hold;
 * appends only on the append lookup's hit, and with a fill only if the fill takes another
 * slot (nothing tells a user which slot the append goes to: the bench knows it from the
 * model); c_wake only on the slot a lookup of its QP found pending; releases, retires,
 * holds, a protected slot. The DMA client is a memory that takes the requests at random,
 * answers them in order after a random latency with gaps between beats, and fails some
 * (tuser on the last beat, and on some before it).
 *
 * A C model of the contract keeps each slot's tags and beats and the reads in flight, and
 * says every cycle what the lookups (a ready window first, any of those that hold the
 * index), the allocation (never a pending, reserved or protected slot; a free one if there
 * is one), the request, s_rd_axis_tready, the wakes (one per read with a wake, with its
 * QPN, the last beat held while m_wake_ready is low), the beat reads and idle must be.
 * Phases change the rates: DMA and wake consumer fast or slow, the user busy or idle. The
 * bench fails if a case it must cover (a wake the cycle c_wake comes with the last beat,
 * a held wake, a failed read, a dropped read, a victim taken, no slot to take) never came.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

extern const struct vmodel_ops vmodel_Vwqe_fetch, vmodel_Vwqe_fetch_tiny;

#define MAX_SLOTS 8
#define BEAT_BYTES 64
#define NUM_QPS 6
#define DMA_DEPTH 32
#define HANG_CYCLES 3000
#define DRAIN_CYCLES 5000

struct slot {
	bool valid, pend, err, resv, spent;
	uint32_t qpn;
	uint16_t first;
	unsigned int count;
};

struct beat {
	bool written;
	uint8_t data[BEAT_BYTES];
};

/* a fill, from its command to its last beat (in issue order) */
struct read {
	unsigned int slot;
	uint32_t qpn;
	bool wake, drop;
};

/* a request the DMA took, answered in order */
struct dma_read {
	uint64_t addr, serial, ready_at;
	unsigned int beats, sent;
	bool err;
};

struct qp {
	uint32_t qpn;
	uint16_t base; /* the indices used are near it */
};

struct cover {
	unsigned long hits, errs, pends, misses, app_hits, fills, fill_wakes, pushes, appends,
		wakes, c_wakes, wake_races, wake_held, dma_errs, holds, dropped, victims, no_alloc,
		retired, max_inflight, req_held, wakes_taken;
};

struct env {
	struct bench *b;
	struct dut d;
	unsigned int slot_log, slots;
	struct slot slot[MAX_SLOTS];
	struct beat mem[MAX_SLOTS * 8];
	struct read reads[MAX_SLOTS];
	unsigned int nreads;
	/* the request waiting for m_rd_req_ready */
	bool req_waiting;
	uint64_t req_addr;
	unsigned int req_len;
	/* the DMA side */
	struct dma_read dma[DMA_DEPTH];
	unsigned int ndma;
	uint64_t dma_serial;
	bool tvalid; /* a beat offered, held until taken */
	uint8_t tdata[BEAT_BYTES];
	bool tlast, tuser;
	struct qp qps[NUM_QPS];
	/* phases */
	unsigned int dma_pct, req_pct, wake_pct, cmd_pct;
	bool draining;
	unsigned int hold_left;
	/* this cycle's inputs */
	bool hold, fill, fill_wake, push_new, append, wake, release, retire;
	bool wake_ready, req_ready;
	unsigned int wake_slot, protect, alloc_slot, append_slot, push_beat, fill_count;
	unsigned int fill_len, r_addr[4];
	uint32_t qpn;
	uint16_t fill_index, push_index, retire_ci;
	uint64_t fill_addr;
	uint8_t push_data[BEAT_BYTES];
	uint64_t last_progress;
	struct cover cov;
	char err[320];
	const struct vmodel_port *hold_p, *idle, *l_qpn, *l_index, *l_hit, *l_err, *l_pend, *l_slot,
		*l_first, *l_count, *a_qpn, *a_index, *a_max, *a_hit, *a_count, *protect_p,
		*alloc_ok, *alloc_free, *alloc_slot_p, *fill_ok, *c_qpn, *c_fill, *c_fill_index,
		*c_fill_count, *c_fill_addr, *c_fill_len, *c_fill_wake, *c_push_new, *c_push_append,
		*c_push_index, *c_push_beat, *c_push_data, *c_wake, *c_wake_slot, *c_release,
		*c_retire, *c_retire_ci, *r_addr_p[4], *r_data[4], *m_wake_qpn, *m_wake_valid,
		*m_wake_ready, *rq_addr, *rq_len, *rq_valid, *rq_ready, *tdata_p, *tvalid_p,
		*tready, *tlast_p, *tuser_p;
};

#define FAIL(e, ...) bench_first_error((e)->err, sizeof((e)->err), __VA_ARGS__)

static void random_beat(struct bench *b, uint8_t *data)
{
	bench_fill(b, data, BEAT_BYTES);
}

/* The data the DMA gives for beat i of read serial: a function of both, so misrouted
 * beats differ. */
static void dma_beat_data(uint64_t serial, unsigned int i, uint8_t *data)
{
	uint64_t x = serial * 0x9e3779b97f4a7c15ull + i * 0xbf58476d1ce4e5b9ull + 1;

	for (unsigned int k = 0; k < BEAT_BYTES; k += 8) {
		x ^= x >> 31;
		x *= 0x94d049bb133111ebull;
		x ^= x >> 29;
		memcpy(data + k, &x, 8);
	}
}

/* ---------------------------------------------------------------------------------------
 * The model's answers
 */

static bool holds(const struct slot *s, uint32_t qpn, uint16_t index)
{
	return s->qpn == qpn && (uint16_t)(index - s->first) < s->count;
}

static bool protected_slot(const struct env *e, unsigned int s)
{
	return (e->protect >> s) & 1;
}

static bool is_free(const struct env *e, unsigned int s)
{
	return (!e->slot[s].valid || e->slot[s].spent) && !e->slot[s].pend && !protected_slot(e, s);
}

static bool takeable(const struct env *e, unsigned int s)
{
	const struct slot *t = &e->slot[s];

	return !t->pend && !(t->valid && t->resv) && !protected_slot(e, s);
}

/* The slots whose ready window ends just before index, of QP qpn, with room below max. */
static unsigned int append_set(const struct env *e, uint32_t qpn, uint16_t index, unsigned int max)
{
	unsigned int set = 0;

	for (unsigned int s = 0; s < e->slots; s++) {
		const struct slot *t = &e->slot[s];

		if (t->valid && !t->err && t->qpn == qpn &&
		    (uint16_t)(index - t->first) == t->count && t->count < max)
			set |= 1u << s;
	}
	return set;
}

static struct read *read_of(struct env *e, unsigned int slot)
{
	for (unsigned int i = 0; i < e->nreads; i++)
		if (e->reads[i].slot == slot)
			return &e->reads[i];
	return NULL;
}

static bool one_bit(unsigned int set)
{
	return set && !(set & (set - 1));
}

/* ---------------------------------------------------------------------------------------
 * The user and the DMA client
 */

static void pick_phase(struct env *e)
{
	struct bench *b = e->b;
	static const unsigned int rates[] = { 10, 40, 80, 100 };

	e->dma_pct = rates[bench_range(b, 0, 3)];
	e->req_pct = rates[bench_range(b, 0, 3)];
	e->wake_pct = rates[bench_range(b, 0, 3)];
	/* some phases are quiet: the user idle most cycles */
	e->cmd_pct = bench_chance(b, 25) ? 5 : 100;
}

static uint16_t near(struct env *e, const struct qp *q)
{
	return (uint16_t)(q->base + bench_range(e->b, 0, 23));
}

static const struct qp *qp_of(const struct env *e, uint32_t qpn)
{
	for (unsigned int i = 0; i < NUM_QPS; i++)
		if (e->qps[i].qpn == qpn)
			return &e->qps[i];
	return &e->qps[0];
}

/* A random slot of QP qpn that is ready (or pending, if pend), or -1. */
static int slot_of_qp(struct env *e, uint32_t qpn, bool pend)
{
	unsigned int n = 0, pick[MAX_SLOTS];

	for (unsigned int s = 0; s < e->slots; s++)
		if (e->slot[s].qpn == qpn && (pend ? e->slot[s].pend : e->slot[s].valid))
			pick[n++] = s;
	return n ? (int)pick[bench_range(e->b, 0, n - 1)] : -1;
}

static void set_dma_inputs(struct env *e)
{
	struct bench *b = e->b;

	if (!e->tvalid && e->ndma && e->dma[0].ready_at <= e->d.cycle &&
	    bench_chance(b, e->dma_pct)) {
		struct dma_read *r = &e->dma[0];

		dma_beat_data(r->serial, r->sent, e->tdata);
		e->tlast = r->sent + 1 == r->beats;
		/* a failed read says so on its last beat, maybe on earlier ones */
		e->tuser = r->err && (e->tlast || bench_chance(b, 30));
		e->tvalid = true;
	}
	if (e->tvalid) {
		vport_write(e->tdata_p, e->tdata, BEAT_BYTES);
		vport_set(e->tlast_p, e->tlast);
		vport_set(e->tuser_p, e->tuser);
	} else {
		/* what is on the bus without tvalid means nothing */
		uint8_t junk[BEAT_BYTES];

		random_beat(b, junk);
		vport_write(e->tdata_p, junk, BEAT_BYTES);
		vport_set(e->tlast_p, bench_rand(b) & 1);
		vport_set(e->tuser_p, bench_rand(b) & 1);
	}
	vport_set(e->tvalid_p, e->tvalid);
	e->req_ready = bench_chance(b, e->req_pct);
	vport_set(e->rq_ready, e->req_ready);
	e->wake_ready = bench_chance(b, e->wake_pct);
	vport_set(e->m_wake_ready, e->wake_ready);
}

static void check_lookup(struct env *e, uint32_t qpn, uint16_t index)
{
	unsigned int ready = 0, pend = 0;
	bool hit = vport_get(e->l_hit) != 0, pending = vport_get(e->l_pend) != 0;
	unsigned int slot = (unsigned int)vport_get(e->l_slot);
	const struct slot *t = &e->slot[slot];

	for (unsigned int s = 0; s < e->slots; s++)
		if (holds(&e->slot[s], qpn, index)) {
			if (e->slot[s].valid)
				ready |= 1u << s;
			if (e->slot[s].pend)
				pend |= 1u << s;
		}
	if (hit != (ready != 0) || pending != (!ready && pend)) {
		FAIL(e, "cycle %llu: lookup QPN 0x%x index %u: hit %u pend %u, want %u %u",
		     (unsigned long long)e->d.cycle, qpn, index, hit, pending, ready != 0,
		     !ready && pend);
		return;
	}
	if (!hit && !pending) {
		e->cov.misses++;
		return;
	}
	if (!((hit ? ready : pend) >> slot & 1)) {
		FAIL(e, "cycle %llu: lookup QPN 0x%x index %u: slot %u, want one of 0x%x",
		     (unsigned long long)e->d.cycle, qpn, index, slot, hit ? ready : pend);
		return;
	}
	if (vport_get(e->l_first) != t->first || vport_get(e->l_count) != t->count ||
	    (hit && (vport_get(e->l_err) != 0) != t->err))
		FAIL(e,
		     "cycle %llu: lookup QPN 0x%x index %u, slot %u: first %u count %u err %u, "
		     "want %u %u %u",
		     (unsigned long long)e->d.cycle, qpn, index, slot,
		     (unsigned int)vport_get(e->l_first), (unsigned int)vport_get(e->l_count),
		     (unsigned int)vport_get(e->l_err), t->first, t->count, t->err);
	if (hit)
		t->err ? e->cov.errs++ : e->cov.hits++;
	else
		e->cov.pends++;
}

static void check_append(struct env *e, uint32_t qpn, uint16_t index, unsigned int max,
			 unsigned int set)
{
	bool hit = vport_get(e->a_hit) != 0;
	unsigned int count = (unsigned int)vport_get(e->a_count);
	bool count_ok = false;

	for (unsigned int s = 0; s < e->slots; s++)
		if (set >> s & 1 && e->slot[s].count == count)
			count_ok = true;
	if (hit != (set != 0) || (hit && !count_ok))
		FAIL(e,
		     "cycle %llu: append lookup QPN 0x%x index %u max %u: hit %u count %u, "
		     "want hit %u (slots 0x%x)",
		     (unsigned long long)e->d.cycle, qpn, index, max, hit, count, set != 0, set);
	e->cov.app_hits += hit;
}

static void check_alloc(struct env *e)
{
	unsigned int take = 0, free = 0;
	bool ok = vport_get(e->alloc_ok) != 0, is_free_slot = vport_get(e->alloc_free) != 0;
	bool fill_ok = vport_get(e->fill_ok) != 0;
	unsigned int slot = (unsigned int)vport_get(e->alloc_slot_p);

	for (unsigned int s = 0; s < e->slots; s++) {
		take |= (unsigned int)takeable(e, s) << s;
		free |= (unsigned int)is_free(e, s) << s;
	}
	if (ok != (take != 0) || is_free_slot != (free != 0) ||
	    fill_ok != (ok && !e->req_waiting) || (ok && !((free ? free : take) >> slot & 1))) {
		const struct slot *t = &e->slot[slot];

		FAIL(e,
		     "cycle %llu: alloc_ok %u alloc_free %u fill_ok %u slot %u (valid %u pend %u "
		     "resv %u protected %u); want %u %u %u, a slot of 0x%x",
		     (unsigned long long)e->d.cycle, ok, is_free_slot, fill_ok, slot, t->valid,
		     t->pend, t->resv, protected_slot(e, slot), take != 0, free != 0,
		     take != 0 && !e->req_waiting, free ? free : take);
	}
	e->alloc_slot = slot;
	e->cov.no_alloc += !ok;
}

static void clear_commands(struct env *e)
{
	e->fill = e->fill_wake = e->push_new = e->append = e->wake = false;
	e->release = e->retire = false;
	vport_set(e->c_fill, 0);
	vport_set(e->c_push_new, 0);
	vport_set(e->c_push_append, 0);
	vport_set(e->c_wake, 0);
	vport_set(e->c_release, 0);
	vport_set(e->c_retire, 0);
}

/* Beat reads: mostly of beats written, so that a beat gone to the wrong place is seen. */
static void set_reads(struct env *e)
{
	struct bench *b = e->b;

	for (unsigned int p = 0; p < 4; p++) {
		unsigned int a = (unsigned int)bench_range(b, 0, e->slots * 8 - 1);

		for (unsigned int tries = 0; tries < 4 && !e->mem[a].written; tries++)
			a = (unsigned int)bench_range(b, 0, e->slots * 8 - 1);
		e->r_addr[p] = a;
		vport_set(e->r_addr_p[p], a);
	}
}

static void drive(void *ctx)
{
	struct env *e = ctx;
	struct bench *b = e->b;
	const struct qp *q = &e->qps[bench_range(b, 0, NUM_QPS - 1)];
	uint32_t lq, aq;
	uint16_t li, ai;
	unsigned int amax, aset;
	bool busy = !e->draining && bench_chance(b, e->cmd_pct);
	bool race = false;

	if (e->d.cycle % 1000 == 0)
		pick_phase(e);
	if (!e->hold_left && !e->draining && bench_chance(b, 1) && bench_chance(b, 10)) {
		e->hold_left = (unsigned int)bench_range(b, 1, 4);
		e->cov.holds++;
	}
	e->hold = e->hold_left > 0;
	vport_set(e->hold_p, e->hold);
	set_dma_inputs(e);

	/* the last beat of a read no one waits for: often its QP looks for it now */
	if (e->tvalid && e->tlast && e->nreads && !e->reads[0].wake && bench_chance(b, 50))
		q = qp_of(e, e->reads[0].qpn), race = true;
	e->qpn = q->qpn;

	/* the lookups: mostly of the QP of the commands, often of an index a window holds */
	lq = bench_chance(b, 80) ? q->qpn : e->qps[bench_range(b, 0, NUM_QPS - 1)].qpn;
	li = near(e, qp_of(e, lq));
	int s = slot_of_qp(e, lq, bench_chance(b, 30));

	/* the commands' QP has no window: often it is one that has */
	if (s < 0 && !race && bench_chance(b, 60)) {
		unsigned int k = (unsigned int)bench_range(b, 0, e->slots - 1);

		if (e->slot[k].valid || e->slot[k].pend) {
			q = qp_of(e, e->slot[k].qpn);
			e->qpn = lq = q->qpn;
			s = (int)k;
		}
	}
	if (race) {
		const struct slot *t = &e->slot[e->reads[0].slot];

		lq = q->qpn;
		li = (uint16_t)(t->first + bench_range(b, 0, t->count - 1));
	} else if (s >= 0 && bench_chance(b, 80)) {
		li = (uint16_t)(e->slot[s].first + bench_range(b, 0, e->slot[s].count));
	}
	aq = bench_chance(b, 80) ? q->qpn : e->qps[bench_range(b, 0, NUM_QPS - 1)].qpn;
	ai = near(e, qp_of(e, aq));
	s = slot_of_qp(e, aq, false);
	if (s >= 0 && bench_chance(b, 60))
		ai = (uint16_t)(e->slot[s].first + e->slot[s].count);
	amax = bench_chance(b, 70) ? 8 : (unsigned int)bench_range(b, 1, 8);
	vport_set(e->l_qpn, lq);
	vport_set(e->l_index, li);
	vport_set(e->a_qpn, aq);
	vport_set(e->a_index, ai);
	vport_set(e->a_max, amax);

	/* the slot a turn sends from (often a ready one), and slots the build stage reads */
	e->protect = 0;
	if (bench_chance(b, 50)) {
		s = slot_of_qp(e, q->qpn, false);
		if (s < 0 || bench_chance(b, 50))
			s = (int)bench_range(b, 0, e->slots - 1);
		e->protect |= 1u << s;
	}
	if (bench_chance(b, 20))
		e->protect |= (unsigned int)bench_range(b, 0, (1 << e->slots) - 1);
	vport_set(e->protect_p, e->protect);

	clear_commands(e);
	vport_set(e->c_qpn, q->qpn);
	set_reads(e);
	e->d.vm.ops->eval(e->d.vm.model);

	/* what the lookups and the allocation say, before any command */
	check_lookup(e, lq, li);
	aset = append_set(e, aq, ai, amax);
	check_append(e, aq, ai, amax, aset);
	check_alloc(e);
	if (e->err[0])
		return;

	/* the commands, as a legal user gives them */
	bool fill_ok = vport_get(e->fill_ok) != 0, alloc_ok = vport_get(e->alloc_ok) != 0;
	bool l_pend = vport_get(e->l_pend) != 0, a_hit = vport_get(e->a_hit) != 0;

	if (busy && !e->hold) {
		if (fill_ok && bench_chance(b, 20)) {
			unsigned int stride = (unsigned int)bench_range(b, 0, 3);

			e->fill = true;
			e->fill_wake = bench_chance(b, 50);
			e->fill_count = (unsigned int)bench_range(b, 1, 8u >> stride);
			e->fill_len = e->fill_count << (6 + stride);
			e->fill_index = bench_chance(b, 50) && lq == q->qpn ? li : near(e, q);
			e->fill_addr = bench_rand(b) & ~63ull;
		} else if (alloc_ok && bench_chance(b, 10)) {
			e->push_new = true;
			e->push_index = bench_chance(b, 50) && aq == q->qpn ? ai : near(e, q);
			random_beat(b, e->push_data);
		}
		/* the append's slot is the lookup's, never the fill's (a spent window may be
		 * both: the bench knows from the model), and only where one window can be
		 * meant */
		if (!e->push_new && a_hit && aq == q->qpn && one_bit(aset) &&
		    (!e->fill || !(aset >> e->alloc_slot & 1)) && bench_chance(b, 40)) {
			e->append = true;
			e->append_slot = (unsigned int)__builtin_ctz(aset);
			e->push_index = ai;
			e->push_beat = bench_chance(b, 90) ? (unsigned int)vport_get(e->a_count)
							   : (unsigned int)bench_range(b, 0, 7);
			random_beat(b, e->push_data);
		}
	}
	if (busy && l_pend && lq == q->qpn && bench_chance(b, race ? 90 : 30)) {
		e->wake = true;
		e->wake_slot = (unsigned int)vport_get(e->l_slot);
	}
	if (busy) {
		e->release = bench_chance(b, alloc_ok ? 15 : 50);
		/* (a push is never behind the consumer index) */
		if (!e->append && bench_chance(b, 8)) {
			e->retire = true;
			s = slot_of_qp(e, q->qpn, false);
			e->retire_ci = near(e, q);
			if (s >= 0 && bench_chance(b, 50))
				e->retire_ci = (uint16_t)(e->slot[s].first + e->slot[s].count +
							  bench_range(b, 0, 2));
			else if (bench_chance(b, 10))
				e->retire_ci = (uint16_t)bench_rand(b);
		}
	}
	vport_set(e->c_fill, e->fill);
	vport_set(e->c_fill_index, e->fill_index);
	vport_set(e->c_fill_count, e->fill_count);
	vport_set(e->c_fill_addr, e->fill_addr);
	vport_set(e->c_fill_len, e->fill_len);
	vport_set(e->c_fill_wake, e->fill_wake);
	vport_set(e->c_push_new, e->push_new);
	vport_set(e->c_push_append, e->append);
	vport_set(e->c_push_index, e->push_index);
	vport_set(e->c_push_beat, e->push_beat);
	vport_write(e->c_push_data, e->push_data, BEAT_BYTES);
	vport_set(e->c_wake, e->wake);
	vport_set(e->c_wake_slot, e->wake_slot);
	vport_set(e->c_release, e->release);
	vport_set(e->c_retire, e->retire);
	vport_set(e->c_retire_ci, e->retire_ci);
}

/* ---------------------------------------------------------------------------------------
 * The checks of the cycle's outputs, and the clock edge in the model
 */

static void check_outputs(struct env *e)
{
	bool push_wr = e->push_new || e->append;
	const struct read *head = e->nreads ? &e->reads[0] : NULL;
	bool head_wake = head && (head->wake || (e->wake && e->wake_slot == head->slot));
	bool want_tready = head && !push_wr && (!e->tlast || !head_wake || e->wake_ready);
	bool want_wake = head && !push_wr && e->tvalid && e->tlast && head_wake;
	bool idle = !e->nreads && !e->req_waiting;
	unsigned long long c = (unsigned long long)e->d.cycle;

	if (e->tvalid && (vport_get(e->tready) != 0) != want_tready)
		FAIL(e, "cycle %llu: s_rd_axis_tready %u, want %u (last %u, wake %u, push %u)", c,
		     (unsigned int)vport_get(e->tready), want_tready, e->tlast, head_wake, push_wr);
	if ((vport_get(e->m_wake_valid) != 0) != want_wake)
		FAIL(e, "cycle %llu: m_wake_valid %u, want %u", c,
		     (unsigned int)vport_get(e->m_wake_valid), want_wake);
	else if (want_wake && vport_get(e->m_wake_qpn) != head->qpn)
		FAIL(e, "cycle %llu: wake of QPN 0x%x, want 0x%x", c,
		     (unsigned int)vport_get(e->m_wake_qpn), head->qpn);
	if ((vport_get(e->rq_valid) != 0) != e->req_waiting)
		FAIL(e, "cycle %llu: m_rd_req_valid %u, want %u", c,
		     (unsigned int)vport_get(e->rq_valid), e->req_waiting);
	else if (e->req_waiting &&
		 (vport_get(e->rq_addr) != e->req_addr || vport_get(e->rq_len) != e->req_len))
		FAIL(e, "cycle %llu: request 0x%llx len %u, want 0x%llx %u", c,
		     (unsigned long long)vport_get(e->rq_addr), (unsigned int)vport_get(e->rq_len),
		     (unsigned long long)e->req_addr, e->req_len);
	if ((vport_get(e->idle) != 0) != idle)
		FAIL(e, "cycle %llu: idle %u, want %u (%u reads in flight, request %u)", c,
		     (unsigned int)vport_get(e->idle), idle, e->nreads, e->req_waiting);
	for (unsigned int p = 0; p < 4; p++) {
		const struct beat *bt = &e->mem[e->r_addr[p]];
		uint8_t got[BEAT_BYTES];

		if (!bt->written)
			continue;
		vport_read(e->r_data[p], got, BEAT_BYTES);
		if (memcmp(got, bt->data, BEAT_BYTES))
			FAIL(e,
			     "cycle %llu: read port %u, slot %u beat %u: not the last data written",
			     c, p, e->r_addr[p] >> 3, e->r_addr[p] & 7);
	}
	if (want_wake && !e->wake_ready)
		e->cov.wake_held++;
	if (vport_get(e->m_wake_valid) && e->wake_ready)
		e->cov.wakes_taken++;
	if (e->req_waiting && !e->req_ready)
		e->cov.req_held++;
}

static void edge(struct env *e)
{
	struct bench *b = e->b;
	bool beat = e->tvalid && vport_get(e->tready);

	/* the request taken: the DMA reads it */
	if (e->req_waiting && e->req_ready) {
		struct dma_read *r;

		if (e->ndma == DMA_DEPTH) {
			FAIL(e, "more than %u reads at the DMA", DMA_DEPTH);
			return;
		}
		r = &e->dma[e->ndma++];
		r->addr = e->req_addr;
		r->beats = (e->req_len + BEAT_BYTES - 1) / BEAT_BYTES;
		r->sent = 0;
		r->serial = e->dma_serial++;
		r->err = bench_chance(b, 6);
		/* (a read waits for those before it anyway) */
		r->ready_at = e->d.cycle + bench_range(b, 1, bench_chance(b, 20) ? 120 : 20);
		e->req_waiting = false;
	}
	if (e->release)
		for (unsigned int s = 0; s < e->slots; s++)
			if (e->slot[s].valid && e->slot[s].qpn == e->qpn)
				e->slot[s].resv = false;
	if (e->retire)
		for (unsigned int s = 0; s < e->slots; s++) {
			struct slot *t = &e->slot[s];
			uint16_t k = (uint16_t)(e->retire_ci - t->first);

			/* wholly before the consumer index, within half the ring */
			if (t->valid && t->qpn == e->qpn && k >= t->count && k < 0x8000) {
				t->spent = true;
				t->resv = false;
				e->cov.retired++;
			}
		}
	if (e->wake) {
		struct read *r = read_of(e, e->wake_slot);

		if (!r) {
			FAIL(e, "cycle %llu: the bench woke slot %u, not pending",
			     (unsigned long long)e->d.cycle, e->wake_slot);
			return;
		}
		if (beat && e->tlast && r == &e->reads[0] && !r->wake)
			e->cov.wake_races++;
		r->wake = true;
		e->slot[e->wake_slot].resv = true;
		e->cov.c_wakes++;
	}
	if (beat) {
		struct read *r = &e->reads[0];
		struct dma_read *dr = &e->dma[0];
		struct beat *bt = &e->mem[r->slot * 8 + dr->sent % 8];

		bt->written = true;
		memcpy(bt->data, e->tdata, BEAT_BYTES);
		dr->sent++;
		e->tvalid = false;
		e->last_progress = e->d.cycle;
		if (e->tlast) {
			struct slot *t = &e->slot[r->slot];

			t->pend = false;
			t->valid = !r->drop && !e->hold;
			t->err = e->tuser;
			e->cov.wakes += r->wake;
			e->cov.dma_errs += e->tuser;
			e->cov.dropped += !t->valid;
			memmove(e->reads, e->reads + 1, --e->nreads * sizeof(e->reads[0]));
			memmove(e->dma, e->dma + 1, --e->ndma * sizeof(e->dma[0]));
		}
	}
	if (e->fill || e->push_new) {
		struct slot *t = &e->slot[e->alloc_slot];

		e->cov.victims += t->valid;
		if (e->fill) {
			*t = (struct slot){ .pend = true,
					    .resv = e->fill_wake,
					    .qpn = e->qpn,
					    .first = e->fill_index,
					    .count = e->fill_count };
			e->reads[e->nreads++] =
				(struct read){ e->alloc_slot, e->qpn, e->fill_wake, false };
			e->req_waiting = true;
			e->req_addr = e->fill_addr;
			e->req_len = e->fill_len;
			e->cov.fills++;
			e->cov.fill_wakes += e->fill_wake;
			if (e->nreads > e->cov.max_inflight)
				e->cov.max_inflight = e->nreads;
		} else {
			*t = (struct slot){
				.valid = true, .qpn = e->qpn, .first = e->push_index, .count = 1
			};
			e->mem[e->alloc_slot * 8].written = true;
			memcpy(e->mem[e->alloc_slot * 8].data, e->push_data, BEAT_BYTES);
			e->cov.pushes++;
		}
	}
	if (e->append) {
		struct beat *bt = &e->mem[e->append_slot * 8 + e->push_beat];

		e->slot[e->append_slot].count++;
		e->slot[e->append_slot].spent = false;
		bt->written = true;
		memcpy(bt->data, e->push_data, BEAT_BYTES);
		e->cov.appends++;
	}
	if (e->hold) {
		for (unsigned int s = 0; s < e->slots; s++)
			e->slot[s].valid = e->slot[s].resv = e->slot[s].spent = false;
		for (unsigned int i = 0; i < e->nreads; i++)
			e->reads[i].drop = true;
		e->hold_left--;
	}
	/* the QPs move on now and then: old windows are left behind */
	if (bench_chance(b, 1) && bench_chance(b, 20)) {
		struct qp *q = &e->qps[bench_range(b, 0, NUM_QPS - 1)];

		q->base = (uint16_t)(q->base + bench_range(b, 1, 24));
	}
}

static void sample(void *ctx)
{
	struct env *e = ctx;

	if (e->err[0])
		return;
	check_outputs(e);
	if (!e->err[0])
		edge(e);
}

/* ---------------------------------------------------------------------------------------
 * The runs
 */

static void port(struct env *e, const struct vmodel_port **p, const char *name)
{
	*p = dut_port(&e->d, name);
}

static void open_env(struct env *e, struct bench *b, const struct vmodel_ops *ops,
		     unsigned int slot_log)
{
	static const uint32_t qpns[NUM_QPS] = { 0x11, 0x12, 0x10011, 0x2a5, 0xabcdef, 0x400 };
	char name[16];

	memset(e, 0, sizeof(*e));
	e->b = b;
	e->slot_log = slot_log;
	e->slots = 1u << slot_log;
	for (unsigned int i = 0; i < NUM_QPS; i++) {
		e->qps[i].qpn = qpns[i];
		/* two QPs near the 16-bit wrap */
		e->qps[i].base =
			i < 2 ? (uint16_t)(0xfff0 + bench_range(b, 0, 8)) : (uint16_t)bench_rand(b);
	}
	dut_open(&e->d, b, ops);
	port(e, &e->hold_p, "hold");
	port(e, &e->idle, "idle");
	port(e, &e->l_qpn, "l_qpn");
	port(e, &e->l_index, "l_index");
	port(e, &e->l_hit, "l_hit");
	port(e, &e->l_err, "l_err");
	port(e, &e->l_pend, "l_pend");
	port(e, &e->l_slot, "l_slot");
	port(e, &e->l_first, "l_first");
	port(e, &e->l_count, "l_count");
	port(e, &e->a_qpn, "a_qpn");
	port(e, &e->a_index, "a_index");
	port(e, &e->a_max, "a_max");
	port(e, &e->a_hit, "a_hit");
	port(e, &e->a_count, "a_count");
	port(e, &e->protect_p, "protect");
	port(e, &e->alloc_ok, "alloc_ok");
	port(e, &e->alloc_free, "alloc_free");
	port(e, &e->alloc_slot_p, "alloc_slot");
	port(e, &e->fill_ok, "fill_ok");
	port(e, &e->c_qpn, "c_qpn");
	port(e, &e->c_fill, "c_fill");
	port(e, &e->c_fill_index, "c_fill_index");
	port(e, &e->c_fill_count, "c_fill_count");
	port(e, &e->c_fill_addr, "c_fill_addr");
	port(e, &e->c_fill_len, "c_fill_len");
	port(e, &e->c_fill_wake, "c_fill_wake");
	port(e, &e->c_push_new, "c_push_new");
	port(e, &e->c_push_append, "c_push_append");
	port(e, &e->c_push_index, "c_push_index");
	port(e, &e->c_push_beat, "c_push_beat");
	port(e, &e->c_push_data, "c_push_data");
	port(e, &e->c_wake, "c_wake");
	port(e, &e->c_wake_slot, "c_wake_slot");
	port(e, &e->c_release, "c_release");
	port(e, &e->c_retire, "c_retire");
	port(e, &e->c_retire_ci, "c_retire_ci");
	for (unsigned int p = 0; p < 4; p++) {
		snprintf(name, sizeof(name), "r_addr_%u", p);
		port(e, &e->r_addr_p[p], name);
		snprintf(name, sizeof(name), "r_data_%u", p);
		port(e, &e->r_data[p], name);
	}
	port(e, &e->m_wake_qpn, "m_wake_qpn");
	port(e, &e->m_wake_valid, "m_wake_valid");
	port(e, &e->m_wake_ready, "m_wake_ready");
	port(e, &e->rq_addr, "m_rd_req_addr");
	port(e, &e->rq_len, "m_rd_req_len");
	port(e, &e->rq_valid, "m_rd_req_valid");
	port(e, &e->rq_ready, "m_rd_req_ready");
	port(e, &e->tdata_p, "s_rd_axis_tdata");
	port(e, &e->tvalid_p, "s_rd_axis_tvalid");
	port(e, &e->tready, "s_rd_axis_tready");
	port(e, &e->tlast_p, "s_rd_axis_tlast");
	port(e, &e->tuser_p, "s_rd_axis_tuser");
	dut_reset(&e->d, 4);
	dut_add_agent(&e->d, drive, sample, e);
	e->last_progress = e->d.cycle;
	pick_phase(e);
}

static void test_random(struct bench *b, const struct vmodel_ops *ops, unsigned int slot_log,
			const char *name)
{
	static struct env env;
	struct env *e = &env;
	unsigned int cycles = b->quick ? 20000 : 500000;
	const struct cover *v = &e->cov;

	open_env(e, b, ops, slot_log);
	while (e->d.cycle < cycles && !e->err[0]) {
		dut_step(&e->d);
		if (e->nreads && e->d.cycle - e->last_progress > HANG_CYCLES)
			FAIL(e, "cycle %llu: no beat taken for %u cycles, %u reads in flight",
			     (unsigned long long)e->d.cycle, HANG_CYCLES, e->nreads);
	}
	/* the reads in flight complete, and the stage says idle */
	e->draining = true;
	for (unsigned int i = 0; i < DRAIN_CYCLES && !e->err[0] && (e->nreads || e->hold_left); i++)
		dut_step(&e->d);
	if (!e->err[0] && (e->nreads || !vport_get(e->idle)))
		FAIL(e, "not idle after draining: %u reads in flight, idle %u", e->nreads,
		     (unsigned int)vport_get(e->idle));
	/* one wake for each read a QP waited for */
	if (!e->err[0] && v->wakes_taken != v->wakes)
		FAIL(e, "%lu wakes taken, want %lu", v->wakes_taken, v->wakes);
	bench_log(b,
		  "%s: %llu cycles; lookups: %lu ready, %lu failed, %lu pending, %lu missed, "
		  "%lu append hits; %lu fills (%lu with a wake, at most %lu in flight), %lu "
		  "new pushes, %lu appends, %lu victims taken, %lu cycles without a slot, %lu "
		  "windows retired",
		  name, (unsigned long long)e->d.cycle, v->hits, v->errs, v->pends, v->misses,
		  v->app_hits, v->fills, v->fill_wakes, v->max_inflight, v->pushes, v->appends,
		  v->victims, v->no_alloc, v->retired);
	bench_log(b,
		  "%s: %lu wakes (%lu c_wake, %lu with the last beat, %lu cycles held), %lu "
		  "failed reads, %lu holds, %lu reads dropped, %lu cycles of request held",
		  name, v->wakes, v->c_wakes, v->wake_races, v->wake_held, v->dma_errs, v->holds,
		  v->dropped, v->req_held);
	if (!e->err[0] &&
	    (!v->hits || !v->errs || !v->pends || !v->misses || !v->app_hits || !v->appends ||
	     !v->pushes || !v->victims || !v->no_alloc || !v->retired || !v->wake_races ||
	     !v->wake_held || !v->dma_errs || !v->dropped || v->max_inflight < e->slots / 2 + 1))
		FAIL(e, "a case was never covered (see the counts above)");
	bench_result(b, name, !e->err[0], "%s", e->err);
	dut_close(&e->d);
}

int main(int argc, char **argv)
{
	struct bench b;

	bench_init(&b, "test_wqe_fetch", argc, argv);
	test_random(&b, &vmodel_Vwqe_fetch, 3, "wqe_fetch_8");
	test_random(&b, &vmodel_Vwqe_fetch_tiny, 1, "wqe_fetch_2");
	return bench_finish(&b);
}
