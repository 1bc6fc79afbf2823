// SPDX-License-Identifier: MIT
/*
 * Bench of mr_translate, the MR checks and VA -> IOVA translation with on-chip caches, with
 * the product caches and with tiny ones (two lines each, 4 KiB pieces) that conflict all
 * the time.
 *
 * The bench is the host memory: an MR context table and one page-table slot per MR index,
 * in a byte array at a random IOVA. It serves the block's DMA reads from it, in order, each
 * after a random latency, with an error (tuser) for beats outside the array or marked bad.
 * The scoreboard is a C reference of the contract over that memory (ref_translate): every
 * request's responses must be its pieces, or its one verdict, exactly. MRs change between
 * requests, followed by an invalidation; a change without one leaves the MR's results
 * unchecked until its next invalidation (the cached context may be used, or not).
 *
 * A request may read only its own context (never one outside the table), and page-table
 * beats of its own range only if it passed its checks outside check mode. Cache hits are
 * reported as DMA read counts, not asserted.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "hroce_contract.h"

extern const struct vmodel_ops vmodel_Vmr_translate, vmodel_Vmr_translate_tiny;

struct model_desc {
	const struct vmodel_ops *ops;
	const char *name;
	unsigned int piece_log; /* the model's MAX_PIECE_LOG (see the Makefile) */
};

static const struct model_desc models[] = {
	{ &vmodel_Vmr_translate, "default", 15 },
	{ &vmodel_Vmr_translate_tiny, "tiny", 12 },
};

#define BEAT 64u
#define MEM_SIZE (2u << 20)
#define TABLE_LOG_MAX 6
#define SLOT_BASE 4096u	       /* page tables after the table (64 entries at most) */
#define SLOT_BYTES (18u << 10) /* one page-table slot per MR index */
#define PT_MAX_ENTRIES 2100    /* with PT_BASE up to 1 KiB into its slot */
#define MR_MAX_LEN (8u << 20)  /* an ordinary MR; some are far larger, with large pages */
#define PIECE_REQ_MAX 100000u  /* the longest request outside check mode */
#define MAX_PIECES 64
#define PENDING_DEPTH 8
#define DMA_DEPTH 32
#define HANG_CYCLES 5000
#define SETTLE_CYCLES 32
#define PDS 3

struct xreq {
	uint32_t key;
	uint32_t pd;
	uint64_t va;
	uint32_t len;
	unsigned int access;
	bool check;
	int want; /* the verdict a directed request must end with, or -1 */
};

enum op_kind { OP_REQ, OP_CHANGE, OP_CFG };

/* how a request is made: as written, or when it is about to go (for the MRs of then) */
enum req_gen { GEN_FIXED, GEN_RANDOM, GEN_INDEX };

struct op {
	enum op_kind kind;
	enum req_gen gen;   /* OP_REQ */
	bool made;	    /* OP_REQ: req is made */
	struct xreq req;    /* OP_REQ */
	unsigned int index; /* OP_REQ with GEN_INDEX: its MR; OP_CHANGE: the MR that changes */
	bool inval;	    /* OP_CHANGE: invalidated afterwards */
	unsigned int log;   /* OP_CFG: the new cfg_mrc_log */
};

struct piece {
	uint64_t iova;
	uint32_t len;
	unsigned int status;
	bool last;
};

/* what the reference says a request must give, and which DMA reads it may make */
struct expect {
	struct piece p[MAX_PIECES];
	unsigned int n;
	bool ctx_read;
	uint64_t ctx_addr;
	uint64_t pt_lo, pt_hi; /* page-table beats it may read; none if pt_lo > pt_hi */
};

/* a request the block took */
struct taken {
	struct xreq req;
	struct expect want;
	bool checked;
	unsigned int got;
	uint64_t cycle, last_cycle;
	size_t op;
};

struct mr_desc {
	bool valid;
	uint8_t tag;
	uint32_t pd;
	unsigned int access;
	uint64_t va, length;
	unsigned int lps;
	uint64_t pt_base;
	bool stale; /* changed without an invalidation */
};

struct dma_read {
	uint64_t addr;
	uint64_t due;
};

struct mr_env {
	struct bench *b;
	const struct model_desc *md;
	struct dut dut;
	const struct vmodel_port *cfg_base_port, *cfg_log_port;
	const struct vmodel_port *req_key, *req_pd, *req_va, *req_len, *req_access, *req_check,
		*req_valid, *req_ready;
	const struct vmodel_port *resp_iova, *resp_len, *resp_last, *resp_status, *resp_valid,
		*resp_ready;
	const struct vmodel_port *inv_num, *inv_valid, *inv_ready, *inv_done;
	const struct vmodel_port *rd_addr, *rd_len, *rd_valid, *rd_ready, *rd_data, *rd_tvalid,
		*rd_tready, *rd_tlast, *rd_tuser;
	bool resetting;

	/* host memory */
	uint64_t mem_base;
	uint8_t *mem;
	bool *bad; /* per beat */
	uint64_t mrc_base;
	unsigned int log;     /* the table's size */
	unsigned int cfg_log; /* what cfg_mrc_log says */
	uint32_t pds[PDS];
	struct mr_desc mr[1u << TABLE_LOG_MAX];

	/* knobs */
	unsigned int gap_pct, stall_pct, rd_stall_pct, dma_max;

	/* the script, and where it is */
	struct op *ops;
	size_t nops, cap, next_op;
	bool req_on, inv_on, inv_wait;
	unsigned int inv_index;
	bool resp_rdy, rd_rdy, beat_on;
	struct taken pend[PENDING_DEPTH];
	unsigned int pend_head, pend_n;
	struct dma_read dma[DMA_DEPTH];
	unsigned int dma_head, dma_n;
	uint64_t dma_last_due;
	uint8_t beat[BEAT];

	/* outputs offered and not taken must stay as they are */
	bool resp_held, rd_held;
	uint64_t held_iova, held_resp, held_rd_addr;

	/* figures */
	uint64_t progress;
	uint64_t requests, pieces, ctx_reads, pt_reads, invals;
	uint64_t verdicts[HROCE_MR_XLATE_COUNT], unchecked;
	uint64_t first_min, first_max, gap_max, req_first, req_last;

	char error[512];
};

static void fail(struct mr_env *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Keeps the first failure: the later ones usually follow from it. */
static void fail(struct mr_env *e, const char *fmt, ...)
{
	va_list ap;

	if (e->error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(e->error, sizeof(e->error), fmt, ap);
	va_end(ap);
}

/*
 * Host memory
 */

static bool beat_bad(const struct mr_env *e, uint64_t beat)
{
	if (beat < e->mem_base || beat - e->mem_base >= MEM_SIZE)
		return true;
	return e->bad[(beat - e->mem_base) / BEAT];
}

static uint8_t *mem_at(const struct mr_env *e, uint64_t addr)
{
	return e->mem + (addr - e->mem_base);
}

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t ctx_addr(const struct mr_env *e, unsigned int index)
{
	return e->mrc_base + (uint64_t)index * HROCE_MRC_BYTES;
}

static uint64_t slot_addr(const struct mr_env *e, unsigned int index)
{
	return e->mem_base + SLOT_BASE + (uint64_t)index * SLOT_BYTES;
}

static bool in_slot(const struct mr_env *e, unsigned int index, uint64_t addr)
{
	return addr >= slot_addr(e, index) && addr - slot_addr(e, index) < SLOT_BYTES;
}

static uint64_t page_mask(unsigned int lps)
{
	return (UINT64_C(1) << lps) - 1;
}

/* VA + LENGTH, or 2^64 if the MR would run past it */
static unsigned __int128 mr_end(const struct mr_desc *d)
{
	unsigned __int128 end = (unsigned __int128)d->va + d->length;
	unsigned __int128 top = (unsigned __int128)1 << 64;

	return end > top ? top : end;
}

static uint64_t mr_entries(const struct mr_desc *d, unsigned int lps)
{
	uint64_t start = d->va & ~page_mask(lps);

	if (!d->length)
		return 0;
	return (uint64_t)((mr_end(d) - 1 - start) >> lps) + 1;
}

/* Writes MR index's context (reserved bits random) and page table from its description. */
static void mr_store(struct mr_env *e, unsigned int index)
{
	const struct mr_desc *d = &e->mr[index];
	uint8_t *c = mem_at(e, ctx_addr(e, index));
	uint64_t n = mr_entries(d, d->lps), slot = slot_addr(e, index);

	bench_fill(e->b, c, HROCE_MRC_BYTES);
	HROCE_MRC_SET(c, VALID, d->valid);
	HROCE_MRC_SET(c, ACCESS, d->access);
	HROCE_MRC_SET(c, LOG_PAGE_SIZE, d->lps);
	HROCE_MRC_SET(c, PD, d->pd);
	HROCE_MRC_SET(c, KEY, (uint64_t)index << 8 | d->tag);
	HROCE_MRC_SET(c, VA, d->va);
	HROCE_MRC_SET(c, LENGTH, d->length);
	HROCE_MRC_SET(c, PT_BASE, d->pt_base);
	e->bad[(ctx_addr(e, index) - e->mem_base) / BEAT] = false;
	for (uint64_t off = 0; off < SLOT_BYTES; off += BEAT)
		e->bad[(slot + off - e->mem_base) / BEAT] = false;
	if (!in_slot(e, index, d->pt_base))
		return;
	for (uint64_t i = 0; i < n; i++)
		put_le64(mem_at(e, d->pt_base + 8 * i), bench_rand(e->b) & ~page_mask(d->lps));
}

/* A random MR at index, in memory, with now and then a context or page-table beat bad. */
static void mr_random(struct mr_env *e, unsigned int index)
{
	struct bench *b = e->b;
	struct mr_desc *d = &e->mr[index];
	unsigned int kind = (unsigned int)bench_range(b, 0, 99);
	uint64_t n;

	d->valid = bench_chance(b, 90);
	d->tag = (uint8_t)bench_rand(b);
	d->pd = e->pds[bench_range(b, 0, PDS - 1)];
	d->access = (unsigned int)bench_rand(b) & 15;
	if (kind < 65) {
		d->length = bench_range(b, 1, MR_MAX_LEN);
		d->va = bench_rand(b) >> bench_range(b, 0, 40);
	} else if (kind < 75) {
		/* beyond 4 GiB, for check mode's longest ranges */
		d->length = bench_range(b, UINT64_C(1) << 32, UINT64_C(1) << 40);
		d->va = bench_rand(b) >> bench_range(b, 1, 40);
	} else if (kind < 85) {
		/* at the top of the address space, or running past it */
		d->length = bench_range(b, 1, MR_MAX_LEN);
		if (bench_chance(b, 50))
			d->va = 0 - d->length - bench_range(b, 0, 65536);
		else
			d->va = 0 - bench_range(b, 1, d->length);
	} else if (kind < 90) {
		d->length = 0;
		d->va = bench_rand(b);
	} else {
		d->length = bench_range(b, 1, 10000);
		d->va = bench_rand(b);
	}
	/* 4 KiB pages often, else any size up to beyond the whole MR */
	d->lps = bench_chance(b, 50) ? 12 : (unsigned int)bench_range(b, 12, 47);
	while (d->lps < 47 && mr_entries(d, d->lps) > PT_MAX_ENTRIES)
		d->lps++;
	if (bench_chance(b, 3))
		d->pt_base = e->mem_base + MEM_SIZE + 8 * bench_range(b, 0, 1u << 20);
	else
		d->pt_base = slot_addr(e, index) + 8 * bench_range(b, 0, 127);
	mr_store(e, index);
	n = mr_entries(d, d->lps);
	if (bench_chance(b, 4))
		e->bad[(ctx_addr(e, index) - e->mem_base) / BEAT] = true;
	if (n && in_slot(e, index, d->pt_base) && bench_chance(b, 6)) {
		uint64_t pte = d->pt_base + 8 * bench_range(b, 0, n - 1);

		e->bad[(pte - e->mem_base) / BEAT] = true;
	}
	d->stale = false;
}

/*
 * The reference: the contract's checks and page walk, over the bench's memory
 */

static void verdict(struct expect *x, unsigned int status)
{
	x->p[x->n++] = (struct piece){ .status = status, .last = true };
}

static void ref_translate(const struct mr_env *e, const struct xreq *r, struct expect *x)
{
	uint32_t index = r->key >> 8;
	const uint8_t *c;
	uint64_t va0, pt, start, cur;
	unsigned int lps, slog;
	uint32_t left;

	memset(x, 0, sizeof(*x));
	x->pt_lo = 1;
	if (!e->cfg_log || index >= 1u << e->cfg_log)
		return verdict(x, HROCE_MR_XLATE_BAD_KEY);
	x->ctx_read = true;
	x->ctx_addr = ctx_addr(e, index);
	if (beat_bad(e, x->ctx_addr))
		return verdict(x, HROCE_MR_XLATE_DMA_ERROR);
	c = mem_at(e, x->ctx_addr);
	if (!HROCE_MRC_GET(c, VALID) || HROCE_MRC_GET(c, KEY) != r->key)
		return verdict(x, HROCE_MR_XLATE_BAD_KEY);
	if (HROCE_MRC_GET(c, PD) != r->pd)
		return verdict(x, HROCE_MR_XLATE_BAD_PD);
	if (r->access & ~HROCE_MRC_GET(c, ACCESS))
		return verdict(x, HROCE_MR_XLATE_BAD_ACCESS);
	{
		struct mr_desc d = { .va = HROCE_MRC_GET(c, VA),
				     .length = HROCE_MRC_GET(c, LENGTH) };

		if (r->len && (r->va < d.va || (unsigned __int128)r->va + r->len > mr_end(&d)))
			return verdict(x, HROCE_MR_XLATE_BAD_BOUNDS);
	}
	if (r->check || !r->len)
		return verdict(x, HROCE_MR_XLATE_OK);

	va0 = HROCE_MRC_GET(c, VA);
	lps = (unsigned int)HROCE_MRC_GET(c, LOG_PAGE_SIZE);
	slog = lps < e->md->piece_log ? lps : e->md->piece_log;
	pt = HROCE_MRC_GET(c, PT_BASE);
	start = va0 & ~page_mask(lps);
	x->pt_lo = UINT64_MAX;
	for (cur = r->va, left = r->len; left;) {
		uint64_t off = cur & page_mask(lps);
		uint64_t room = (UINT64_C(1) << slog) - (off & page_mask(slog));
		uint32_t plen = left < room ? left : (uint32_t)room;
		uint64_t pte = pt + ((cur - start) >> lps) * 8;
		uint64_t beat = pte & ~(uint64_t)(BEAT - 1);

		x->pt_lo = beat < x->pt_lo ? beat : x->pt_lo;
		x->pt_hi = beat > x->pt_hi ? beat : x->pt_hi;
		if (beat_bad(e, beat))
			return verdict(x, HROCE_MR_XLATE_DMA_ERROR);
		if (x->n == MAX_PIECES) {
			fprintf(stderr, "test_mr: a request of more than %d pieces\n", MAX_PIECES);
			exit(1);
		}
		x->p[x->n++] = (struct piece){ get_le64(mem_at(e, pte)) + off, plen,
					       HROCE_MR_XLATE_OK, left == plen };
		cur += plen;
		left -= plen;
	}
}

/*
 * The agents: requests and invalidations from the script, responses against the
 * reference, the DMA reads served from memory
 */

static bool quiet(const struct mr_env *e)
{
	return !e->req_on && !e->pend_n && !e->inv_on && !e->inv_wait;
}

static void req_for(struct mr_env *e, unsigned int index, struct xreq *r);
static void req_random(struct mr_env *e, struct xreq *r);

/*
 * Starts what the script may start now: a request (after a random gap; not for an MR whose
 * invalidation is under way), or, once everything before is answered, a change.
 */
static void script_step(struct mr_env *e)
{
	while (!e->req_on && e->next_op < e->nops) {
		struct op *o = &e->ops[e->next_op];

		if (o->kind == OP_REQ) {
			if (!o->made && o->gen == GEN_RANDOM)
				req_random(e, &o->req);
			else if (!o->made && o->gen == GEN_INDEX)
				req_for(e, o->index, &o->req);
			o->made = true;
			if ((e->inv_on || e->inv_wait) && o->req.key >> 8 == e->inv_index)
				return;
			if (!bench_chance(e->b, e->gap_pct))
				e->req_on = true;
			return;
		}
		if (!quiet(e))
			return;
		if (o->kind == OP_CFG) {
			e->cfg_log = o->log;
		} else {
			mr_random(e, o->index);
			if (o->inval) {
				e->inv_on = true;
				e->inv_index = o->index;
			} else {
				e->mr[o->index].stale = true;
			}
		}
		e->next_op++;
	}
}

static void drive(void *ctx)
{
	struct mr_env *e = ctx;
	struct bench *b = e->b;

	if (!e->resetting)
		script_step(e);
	vport_set(e->cfg_base_port, e->mrc_base);
	vport_set(e->cfg_log_port, e->cfg_log);

	if (e->req_on && !e->resetting) {
		const struct xreq *r = &e->ops[e->next_op].req;

		vport_set(e->req_key, r->key);
		vport_set(e->req_pd, r->pd);
		vport_set(e->req_va, r->va);
		vport_set(e->req_len, r->len);
		vport_set(e->req_access, r->access);
		vport_set(e->req_check, r->check);
		vport_set(e->req_valid, 1);
	} else {
		vport_set(e->req_key, bench_rand(b));
		vport_set(e->req_pd, bench_rand(b));
		vport_set(e->req_va, bench_rand(b));
		vport_set(e->req_len, bench_rand(b));
		vport_set(e->req_access, bench_rand(b));
		vport_set(e->req_check, bench_rand(b));
		vport_set(e->req_valid, 0);
	}
	vport_set(e->inv_num, e->inv_on ? e->inv_index : bench_rand(b));
	vport_set(e->inv_valid, e->inv_on && !e->resetting);

	e->resp_rdy = !bench_chance(b, e->stall_pct);
	vport_set(e->resp_ready, e->resp_rdy);
	e->rd_rdy = e->dma_n < DMA_DEPTH && !bench_chance(b, e->rd_stall_pct);
	vport_set(e->rd_ready, e->rd_rdy);

	e->beat_on = e->dma_n && e->dma[e->dma_head].due <= e->dut.cycle && !e->resetting;
	if (e->beat_on) {
		uint64_t addr = e->dma[e->dma_head].addr;
		bool bad = beat_bad(e, addr);

		if (bad)
			bench_fill(b, e->beat, BEAT);
		else
			memcpy(e->beat, mem_at(e, addr), BEAT);
		vport_write(e->rd_data, e->beat, BEAT);
		vport_set(e->rd_tlast, 1);
		vport_set(e->rd_tuser, bad);
	} else {
		bench_fill(b, e->beat, BEAT);
		vport_write(e->rd_data, e->beat, BEAT);
		vport_set(e->rd_tlast, bench_rand(b));
		vport_set(e->rd_tuser, bench_rand(b));
	}
	vport_set(e->rd_tvalid, e->beat_on);
}

static const char *status_name(unsigned int s)
{
	return hroce_mr_xlate_name(s);
}

static void describe(const struct taken *t, char *buf, size_t len)
{
	const struct xreq *r = &t->req;

	snprintf(buf, len, "request %zu (key %#x pd %#x va %#llx len %u access %#x%s)", t->op,
		 r->key, r->pd, (unsigned long long)r->va, r->len, r->access,
		 r->check ? " check" : "");
}

static void take_request(struct mr_env *e)
{
	const struct xreq *r = &e->ops[e->next_op].req;
	unsigned int index = r->key >> 8;
	struct taken *t;
	unsigned int end;

	if (e->pend_n == PENDING_DEPTH) {
		fail(e, "%d requests taken and not answered", PENDING_DEPTH);
		return;
	}
	t = &e->pend[(e->pend_head + e->pend_n++) % PENDING_DEPTH];
	t->req = *r;
	t->got = 0;
	t->cycle = e->dut.cycle;
	t->op = e->next_op;
	ref_translate(e, r, &t->want);
	t->checked = !(index < 1u << e->log && e->mr[index].stale);
	end = t->want.p[t->want.n - 1].status;
	if (r->want >= 0 && end != (unsigned int)r->want) {
		char what[200];

		describe(t, what, sizeof(what));
		fail(e, "bench: the reference ends %s with %s, the directed test wants %s", what,
		     status_name(end), status_name((unsigned int)r->want));
	}
	if (!e->requests)
		e->req_first = e->dut.cycle;
	e->req_last = e->dut.cycle;
	e->requests++;
	e->next_op++;
	e->req_on = false;
	e->progress++;
}

static void check_response(struct mr_env *e)
{
	uint64_t iova, word, cycle = e->dut.cycle;
	unsigned int len, status;
	bool last;
	struct taken *t;
	char what[200];

	if (!vport_get(e->resp_valid)) {
		if (e->resp_held)
			fail(e, "a response offered in cycle %llu was withdrawn",
			     (unsigned long long)cycle - 1);
		e->resp_held = false;
		return;
	}
	iova = vport_get(e->resp_iova);
	len = (unsigned int)vport_get(e->resp_len);
	last = vport_get(e->resp_last);
	status = (unsigned int)vport_get(e->resp_status);
	word = (uint64_t)len << 4 | (uint64_t)last << 3 | status;
	if (e->resp_held && (iova != e->held_iova || word != e->held_resp))
		fail(e, "a response changed while it waited for m_resp_ready (cycle %llu)",
		     (unsigned long long)cycle);
	e->resp_held = !e->resp_rdy;
	e->held_iova = iova;
	e->held_resp = word;
	if (!e->resp_rdy)
		return;
	e->progress++;
	if (!e->pend_n) {
		fail(e, "a response (%s, len %u, last %d) with no request (cycle %llu)",
		     status_name(status), len, last, (unsigned long long)cycle);
		return;
	}
	t = &e->pend[e->pend_head];
	if (!t->got) {
		uint64_t lat = cycle - t->cycle;

		e->first_min = lat < e->first_min ? lat : e->first_min;
		e->first_max = lat > e->first_max ? lat : e->first_max;
	} else if (cycle - t->last_cycle > e->gap_max) {
		e->gap_max = cycle - t->last_cycle;
	}
	t->last_cycle = cycle;
	if (t->checked) {
		const struct piece *w = &t->want.p[t->got];

		if (t->got >= t->want.n) {
			describe(t, what, sizeof(what));
			fail(e, "%s: more than its %u responses", what, t->want.n);
			return;
		}
		if (status != w->status || last != w->last || len != w->len ||
		    (status == HROCE_MR_XLATE_OK && len && iova != w->iova)) {
			describe(t, what, sizeof(what));
			fail(e,
			     "%s: response %u is {%s, iova %#llx, len %u, last %d}, want {%s, "
			     "iova %#llx, len %u, last %d}",
			     what, t->got, status_name(status), (unsigned long long)iova, len, last,
			     status_name(w->status), (unsigned long long)w->iova, w->len, w->last);
			return;
		}
	}
	if (status == HROCE_MR_XLATE_OK && len)
		e->pieces++;
	t->got++;
	if (last && !t->checked)
		e->unchecked++;
	else if (last && status < HROCE_MR_XLATE_COUNT)
		e->verdicts[status]++;
	if (last) {
		e->pend_head = (e->pend_head + 1) % PENDING_DEPTH;
		e->pend_n--;
	}
}

/* A DMA read must be one the request under way may make. */
static void check_read(struct mr_env *e, uint64_t addr)
{
	const struct taken *t;
	char what[200];

	if (!e->pend_n) {
		fail(e, "a DMA read of %#llx with no request under way", (unsigned long long)addr);
		return;
	}
	/* one request at a time: the newest is the one under way */
	t = &e->pend[(e->pend_head + e->pend_n - 1) % PENDING_DEPTH];
	if (!t->checked) {
		if (addr - e->mrc_base < (uint64_t)HROCE_MRC_BYTES << e->log)
			e->ctx_reads++;
		else
			e->pt_reads++;
		return;
	}
	if (t->want.ctx_read && addr == t->want.ctx_addr) {
		e->ctx_reads++;
		return;
	}
	if (addr >= t->want.pt_lo && addr <= t->want.pt_hi) {
		e->pt_reads++;
		return;
	}
	describe(t, what, sizeof(what));
	fail(e, "%s: a DMA read of %#llx it has no reason to make", what, (unsigned long long)addr);
}

static void dma_sample(struct mr_env *e)
{
	uint64_t cycle = e->dut.cycle;

	if (vport_get(e->rd_valid)) {
		uint64_t addr = vport_get(e->rd_addr);
		unsigned int len = (unsigned int)vport_get(e->rd_len);

		if (e->rd_held && addr != e->held_rd_addr)
			fail(e, "a DMA read request changed while it waited (cycle %llu)",
			     (unsigned long long)cycle);
		e->rd_held = !e->rd_rdy;
		e->held_rd_addr = addr;
		if (e->rd_rdy) {
			struct dma_read *d = &e->dma[(e->dma_head + e->dma_n++) % DMA_DEPTH];
			uint64_t due = cycle + bench_range(e->b, 1, e->dma_max);

			if (len != BEAT || addr % BEAT)
				fail(e, "a DMA read of %u bytes at %#llx: want 64, aligned", len,
				     (unsigned long long)addr);
			check_read(e, addr);
			/* answers come in order */
			d->due = due > e->dma_last_due ? due : e->dma_last_due + 1;
			d->addr = addr;
			e->dma_last_due = d->due;
			e->progress++;
		}
	} else {
		if (e->rd_held)
			fail(e, "a DMA read request was withdrawn (cycle %llu)",
			     (unsigned long long)cycle);
		e->rd_held = false;
	}
	if (e->beat_on && vport_get(e->rd_tready)) {
		e->dma_head = (e->dma_head + 1) % DMA_DEPTH;
		e->dma_n--;
		e->progress++;
	}
}

static void sample(void *ctx)
{
	struct mr_env *e = ctx;

	if (e->resetting)
		return;
	if (e->req_on && vport_get(e->req_ready))
		take_request(e);
	if (e->inv_on && vport_get(e->inv_ready)) {
		e->inv_on = false;
		e->inv_wait = true;
		e->invals++;
		e->progress++;
	}
	if (vport_get(e->inv_done)) {
		if (!e->inv_wait)
			fail(e, "inval_done with no invalidation under way (cycle %llu)",
			     (unsigned long long)e->dut.cycle);
		e->inv_wait = false;
		e->mr[e->inv_index].stale = false;
		e->progress++;
	}
	check_response(e);
	dma_sample(e);
}

/*
 * Environment
 */

static void env_open(struct mr_env *e, struct bench *b, const struct model_desc *md)
{
	memset(e, 0, sizeof(*e));
	e->b = b;
	e->md = md;
	e->mem = malloc(MEM_SIZE);
	e->bad = calloc(MEM_SIZE / BEAT, sizeof(*e->bad));
	if (!e->mem || !e->bad) {
		perror("malloc");
		exit(1);
	}
	dut_open(&e->dut, b, md->ops);
	e->cfg_base_port = dut_port(&e->dut, "cfg_mrc_base");
	e->cfg_log_port = dut_port(&e->dut, "cfg_mrc_log");
	e->req_key = dut_port(&e->dut, "s_req_key");
	e->req_pd = dut_port(&e->dut, "s_req_pd");
	e->req_va = dut_port(&e->dut, "s_req_va");
	e->req_len = dut_port(&e->dut, "s_req_len");
	e->req_access = dut_port(&e->dut, "s_req_access");
	e->req_check = dut_port(&e->dut, "s_req_check");
	e->req_valid = dut_port(&e->dut, "s_req_valid");
	e->req_ready = dut_port(&e->dut, "s_req_ready");
	e->resp_iova = dut_port(&e->dut, "m_resp_iova");
	e->resp_len = dut_port(&e->dut, "m_resp_len");
	e->resp_last = dut_port(&e->dut, "m_resp_last");
	e->resp_status = dut_port(&e->dut, "m_resp_status");
	e->resp_valid = dut_port(&e->dut, "m_resp_valid");
	e->resp_ready = dut_port(&e->dut, "m_resp_ready");
	e->inv_num = dut_port(&e->dut, "s_inval_num");
	e->inv_valid = dut_port(&e->dut, "s_inval_valid");
	e->inv_ready = dut_port(&e->dut, "s_inval_ready");
	e->inv_done = dut_port(&e->dut, "inval_done");
	e->rd_addr = dut_port(&e->dut, "m_rd_req_addr");
	e->rd_len = dut_port(&e->dut, "m_rd_req_len");
	e->rd_valid = dut_port(&e->dut, "m_rd_req_valid");
	e->rd_ready = dut_port(&e->dut, "m_rd_req_ready");
	e->rd_data = dut_port(&e->dut, "s_rd_axis_tdata");
	e->rd_tvalid = dut_port(&e->dut, "s_rd_axis_tvalid");
	e->rd_tready = dut_port(&e->dut, "s_rd_axis_tready");
	e->rd_tlast = dut_port(&e->dut, "s_rd_axis_tlast");
	e->rd_tuser = dut_port(&e->dut, "s_rd_axis_tuser");
	dut_add_agent(&e->dut, drive, sample, e);
}

static void env_close(struct mr_env *e)
{
	dut_close(&e->dut);
	free(e->ops);
	free(e->mem);
	free(e->bad);
}

/* A new table of 2^log random MRs in fresh memory at a random IOVA, and a reset block. */
static void env_table(struct mr_env *e, unsigned int log)
{
	struct bench *b = e->b;

	e->mem_base = (bench_rand(b) >> bench_range(b, 1, 40)) & ~UINT64_C(0xffff);
	e->mrc_base = e->mem_base;
	e->log = e->cfg_log = log;
	bench_fill(b, e->mem, MEM_SIZE);
	memset(e->bad, 0, MEM_SIZE / BEAT * sizeof(*e->bad));
	for (unsigned int i = 0; i < PDS; i++)
		e->pds[i] = (uint32_t)bench_rand(b) & 0xffffff;
	for (unsigned int i = 0; i < 1u << log; i++)
		mr_random(e, i);
	e->resetting = true;
	e->req_on = e->inv_on = e->inv_wait = false;
	e->pend_n = e->dma_n = 0;
	e->resp_held = e->rd_held = false;
	dut_reset(&e->dut, 4);
	e->dma_last_due = e->dut.cycle;
	e->resetting = false;
}

static void env_knobs(struct mr_env *e, unsigned int gap, unsigned int stall, unsigned int rd_stall,
		      unsigned int dma_max)
{
	e->gap_pct = gap;
	e->stall_pct = stall;
	e->rd_stall_pct = rd_stall;
	e->dma_max = dma_max;
}

static void env_random_knobs(struct mr_env *e)
{
	static const unsigned int pcts[] = { 0, 0, 20, 50, 80 };
	static const unsigned int lat[] = { 2, 20, 200, 200 };
	struct bench *b = e->b;

	env_knobs(e, pcts[bench_range(b, 0, 4)], pcts[bench_range(b, 0, 4)],
		  pcts[bench_range(b, 0, 3)], lat[bench_range(b, 0, 3)]);
}

static struct op *op_push(struct mr_env *e, enum op_kind kind)
{
	struct op *o;

	if (e->nops == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 1024;
		e->ops = realloc(e->ops, e->cap * sizeof(*e->ops));
		if (!e->ops) {
			perror("realloc");
			exit(1);
		}
	}
	o = &e->ops[e->nops++];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->req.want = -1;
	return o;
}

static void op_req(struct mr_env *e, struct xreq r)
{
	op_push(e, OP_REQ)->req = r;
}

static void op_gen(struct mr_env *e, enum req_gen gen, unsigned int index)
{
	struct op *o = op_push(e, OP_REQ);

	o->gen = gen;
	o->index = index;
}

static void op_change(struct mr_env *e, unsigned int index, bool inval)
{
	struct op *o = op_push(e, OP_CHANGE);

	o->index = index;
	o->inval = inval;
}

static void stats_clear(struct mr_env *e)
{
	e->requests = e->pieces = e->ctx_reads = e->pt_reads = e->invals = e->unchecked = 0;
	memset(e->verdicts, 0, sizeof(e->verdicts));
	e->first_min = UINT64_MAX;
	e->first_max = e->gap_max = 0;
}

/* Runs the script until everything is answered and quiet; true if all was right. */
static bool env_run(struct mr_env *e)
{
	uint64_t last = e->progress, idle = 0;
	unsigned int settle = 0;

	while (!e->error[0]) {
		dut_step(&e->dut);
		idle = e->progress != last ? 0 : idle + 1;
		last = e->progress;
		if (e->next_op == e->nops && quiet(e) && !e->dma_n)
			settle++;
		else
			settle = 0;
		if (settle > SETTLE_CYCLES)
			break;
		if (idle > HANG_CYCLES)
			fail(e,
			     "nothing moved for %d cycles: op %zu of %zu, %u requests unanswered, "
			     "%u DMA reads unanswered, invalidation %s",
			     HANG_CYCLES, e->next_op, e->nops, e->pend_n, e->dma_n,
			     e->inv_on	   ? "offered"
			     : e->inv_wait ? "without done"
					   : "none");
	}
	e->nops = e->next_op = 0;
	return !e->error[0];
}

static void result(struct mr_env *e, const char *test)
{
	char name[64];

	snprintf(name, sizeof(name), "%s_%s", test, e->md->name);
	bench_result(e->b, name, !e->error[0], "%s", e->error);
	e->error[0] = 0;
}

static void report(struct mr_env *e, const char *test)
{
	char ends[256];
	int len = 0;

	for (unsigned int s = 0; s < HROCE_MR_XLATE_COUNT; s++)
		len += snprintf(ends + len, sizeof(ends) - (size_t)len, " %s %llu",
				hroce_mr_xlate_name(s), (unsigned long long)e->verdicts[s]);
	bench_log(e->b,
		  "%s_%s: %llu requests, %llu pieces, %llu invalidations; DMA reads: %llu "
		  "contexts, %llu page-table beats; ends:%s; unchecked (stale MR) %llu",
		  test, e->md->name, (unsigned long long)e->requests, (unsigned long long)e->pieces,
		  (unsigned long long)e->invals, (unsigned long long)e->ctx_reads,
		  (unsigned long long)e->pt_reads, ends, (unsigned long long)e->unchecked);
}

/*
 * Requests
 */

/* A request for MR index: mostly a valid one, else with one thing or another wrong. */
static void req_for(struct mr_env *e, unsigned int index, struct xreq *r)
{
	struct bench *b = e->b;
	const struct mr_desc *d = &e->mr[index];
	unsigned __int128 end = mr_end(d);
	uint8_t tag = d->tag;
	unsigned int where = (unsigned int)bench_range(b, 0, 99);

	memset(r, 0, sizeof(*r));
	r->want = -1;
	if (bench_chance(b, 5))
		tag ^= (uint8_t)bench_range(b, 1, 255);
	r->key = index << 8 | tag;
	r->pd = bench_chance(b, 92) ? d->pd : e->pds[bench_range(b, 0, PDS - 1)];
	r->access = (unsigned int)bench_rand(b) & (bench_chance(b, 90) ? d->access : 15);
	r->check = bench_chance(b, 20);
	if (r->check) {
		uint64_t max = d->length < UINT32_MAX ? d->length : UINT32_MAX;

		switch (bench_range(b, 0, 9)) {
		case 0:
			r->len = 0;
			break;
		case 1:
			r->len = UINT32_MAX;
			break;
		case 2:
			r->len = (uint32_t)bench_rand(b);
			break;
		default:
			r->len = (uint32_t)bench_range(b, 1, max ? max : 1);
		}
	} else if (bench_chance(b, 4)) {
		r->len = 0;
	} else {
		r->len = (uint32_t)(bench_chance(b, 85) ? bench_range(b, 1, 4096)
							: bench_range(b, 4097, PIECE_REQ_MAX));
	}
	if (where < 80 && r->len <= d->length) {
		uint64_t slack = d->length - r->len;

		if (where < 8)
			slack = 0;
		r->va = d->va + (where < 16 && where >= 8 ? slack : bench_range(b, 0, slack));
	} else if (where < 90) {
		/* sticks out below */
		r->va = d->va - bench_range(b, 1, 5000);
	} else {
		/* sticks out above */
		r->va = (uint64_t)(end - r->len + bench_range(b, 1, 5000));
	}
}

/* A request for any MR, or now and then for an index beyond the table. */
static void req_random(struct mr_env *e, struct xreq *r)
{
	struct bench *b = e->b;
	unsigned int n = 1u << e->log;

	req_for(e, (unsigned int)bench_range(b, 0, n - 1), r);
	if (bench_chance(b, 4))
		r->key = (uint32_t)bench_range(b, n, 0xffffff) << 8 | (r->key & 0xff);
}

/*
 * Tests
 */

static void test_random(struct mr_env *e, unsigned int phases, unsigned int reqs)
{
	struct bench *b = e->b;

	stats_clear(e);
	for (unsigned int p = 0; p < phases && !e->error[0]; p++) {
		env_table(e, (unsigned int)bench_range(b, 1, TABLE_LOG_MAX));
		env_random_knobs(e);
		for (unsigned int i = 0; i < reqs; i++) {
			if (bench_chance(b, 3))
				op_change(e, (unsigned int)bench_range(b, 0, (1u << e->log) - 1),
					  bench_chance(b, 85));
			else
				op_gen(e, GEN_RANDOM, 0);
		}
		env_run(e);
	}
	result(e, "random");
	report(e, "random");
}

/* MRs change all the time, every change invalidated: each request must see the new MR. */
static void test_inval(struct mr_env *e, unsigned int rounds)
{
	struct bench *b = e->b;

	stats_clear(e);
	env_table(e, 3);
	env_random_knobs(e);
	for (unsigned int i = 0; i < rounds; i++) {
		unsigned int index = (unsigned int)bench_range(b, 0, 7);

		/* the MR that is about to change, so that it is in the caches, and another */
		op_gen(e, GEN_INDEX, index);
		op_gen(e, GEN_INDEX, index);
		op_gen(e, GEN_INDEX, (unsigned int)bench_range(b, 0, 7));
		op_change(e, index, true);
		/* right after the change: it must be seen through the new context and page table */
		op_gen(e, GEN_INDEX, index);
		op_gen(e, GEN_INDEX, index);
	}
	env_run(e);
	result(e, "inval");
	report(e, "inval");
}

static struct xreq directed(uint32_t key, uint32_t pd, uint64_t va, uint32_t len,
			    unsigned int access, bool check, int want)
{
	return (struct xreq){ key, pd, va, len, access, check, want };
}

static void set_mr(struct mr_env *e, unsigned int index, bool valid, uint64_t va, uint64_t length,
		   unsigned int lps)
{
	struct mr_desc *d = &e->mr[index];

	d->valid = valid;
	d->tag = (uint8_t)(0x40 + index);
	d->pd = e->pds[0];
	d->access = HROCE_PERM_LOCAL_WRITE | HROCE_PERM_REMOTE_WRITE;
	d->va = va;
	d->length = length;
	d->lps = lps;
	d->pt_base = slot_addr(e, index) + 8 * (index % 8);
	mr_store(e, index);
}

static uint32_t key_of(const struct mr_env *e, unsigned int index)
{
	return index << 8 | e->mr[index].tag;
}

/* Every check and its order, one at a time, on a table built for them. */
static void test_checks(struct mr_env *e)
{
	const unsigned int ok = HROCE_MR_XLATE_OK, key = HROCE_MR_XLATE_BAD_KEY,
			   pd = HROCE_MR_XLATE_BAD_PD, acc = HROCE_MR_XLATE_BAD_ACCESS,
			   bnd = HROCE_MR_XLATE_BAD_BOUNDS, dma = HROCE_MR_XLATE_DMA_ERROR;
	const unsigned int lw = HROCE_PERM_LOCAL_WRITE, rr = HROCE_PERM_REMOTE_READ;
	const uint64_t va1 = UINT64_C(0x00007f0012345678), len1 = 1u << 20;
	const uint64_t va3 = UINT64_C(1) << 32, top = 0;
	uint32_t k1, pd0, pd1;

	stats_clear(e);
	env_table(e, 4);
	env_knobs(e, 30, 30, 30, 200);
	pd0 = e->pds[0];
	pd1 = pd0 ^ 1;
	set_mr(e, 1, true, va1, len1, 12);
	set_mr(e, 2, false, va1, len1, 12);
	set_mr(e, 3, true, va3, UINT64_C(1) << 33, 30);
	set_mr(e, 4, true, top - (2u << 20), 2u << 20, 21);
	set_mr(e, 5, true, va1, len1, 12);
	e->bad[(ctx_addr(e, 5) - e->mem_base) / BEAT] = true;
	set_mr(e, 6, true, va1, len1, 12);
	/* PT_BASE is 48 bytes into its slot: entries 2..9 are in its second beat, 10..17 in
	 * the third, which fails: the request gets pieces 6..9, then the error */
	e->bad[(e->mr[6].pt_base + 8 * 10 - e->mem_base) / BEAT] = true;
	set_mr(e, 7, true, va1, len1, 12);
	e->mr[7].pt_base = e->mem_base + MEM_SIZE + 4096;
	mr_store(e, 7);
	set_mr(e, 8, true, va1, 0, 12);
	set_mr(e, 9, true, top - 4096, 8192, 12);
	set_mr(e, 10, true, UINT64_C(0x40000000), 64u << 20, 21);
	k1 = key_of(e, 1);

	op_req(e, directed(k1, pd0, va1 + 100, 4096, lw, false, ok));
	op_req(e, directed(k1 ^ 1, pd0, va1 + 100, 4096, lw, false, key));
	op_req(e, directed(20 << 8 | 1, pd0, va1, 1, 0, false, key));
	op_req(e, directed(key_of(e, 2), pd0, va1, 1, 0, false, key));
	op_req(e, directed(k1, pd1, va1, 1, 0, false, pd));
	op_req(e, directed(k1, pd0, va1, 1, rr, false, acc));
	/* the order of the checks */
	op_req(e, directed(k1 ^ 1, pd1, va1, 1, 0, false, key));
	op_req(e, directed(k1, pd1, va1 - 1, 2, rr, false, pd));
	op_req(e, directed(k1, pd0, va1 - 1, 2, rr, false, acc));
	/* bounds: one byte out on either side, exactly the MR, nothing at all */
	op_req(e, directed(k1, pd0, va1 - 1, 1, 0, false, bnd));
	op_req(e, directed(k1, pd0, va1 + len1 - 10, 11, 0, false, bnd));
	op_req(e, directed(k1, pd0, va1 + len1 - 10, 10, lw, false, ok));
	op_req(e, directed(k1, pd0, va1, (uint32_t)len1, lw, true, ok));
	op_req(e, directed(k1, pd0, 0, 0, 0, false, ok));
	op_req(e, directed(k1, pd0, 0, 0, 0, true, ok));
	/* check mode's longest ranges, and the end of the address space */
	op_req(e, directed(key_of(e, 3), pd0, va3, UINT32_MAX, 0, true, ok));
	op_req(e, directed(key_of(e, 3), pd0, va3 + (UINT64_C(1) << 32) + 2, UINT32_MAX, 0, true,
			   bnd));
	op_req(e, directed(key_of(e, 4), pd0, top - 10, 10, 0, false, ok));
	op_req(e, directed(key_of(e, 4), pd0, top - 10, 11, 0, false, bnd));
	op_req(e, directed(key_of(e, 4), pd0, top - 10, UINT32_MAX, 0, true, bnd));
	op_req(e, directed(key_of(e, 9), pd0, top - 5, 5, 0, false, ok));
	op_req(e, directed(key_of(e, 9), pd0, top - 5, 6, 0, true, bnd));
	/* DMA errors: a context (twice: not cached), a page table mid-way, one out of memory */
	op_req(e, directed(key_of(e, 5), pd0, va1, 1, 0, false, dma));
	op_req(e, directed(key_of(e, 5), pd0, va1, 1, 0, true, dma));
	op_req(e, directed(key_of(e, 6), pd0, va1 + 4096 * 6, 4 * 4096, 0, false, dma));
	op_req(e, directed(key_of(e, 6), pd0, va1 + 4096 * 6, 4 * 4096, 0, true, ok));
	op_req(e, directed(key_of(e, 7), pd0, va1, 100, 0, false, dma));
	op_req(e, directed(key_of(e, 7), pd0, va1, 100, 0, true, ok));
	/* an empty MR, and a page of 2 MiB cut into pieces of 2^MAX_PIECE_LOG */
	op_req(e, directed(key_of(e, 8), pd0, va1, 0, 0, false, ok));
	op_req(e, directed(key_of(e, 8), pd0, va1, 1, 0, false, bnd));
	op_req(e, directed(key_of(e, 10), pd0, 0x40000000 + (2u << 20) - 70000, PIECE_REQ_MAX, 0,
			   false, ok));
	/* no table, then the table again */
	op_push(e, OP_CFG)->log = 0;
	op_req(e, directed(k1, pd0, va1 + 100, 4096, lw, false, key));
	op_push(e, OP_CFG)->log = 4;
	op_req(e, directed(k1, pd0, va1 + 100, 4096, lw, false, ok));
	env_run(e);
	result(e, "checks");
	report(e, "checks");
}

/*
 * Back-to-back requests that hit both caches, with no back-pressure: the figures of the
 * fast path (reported, not asserted).
 */
static void test_hits(struct mr_env *e)
{
	const uint64_t va = UINT64_C(0x00007f0000000000) + 0x345;
	const unsigned int reqs = 64;

	env_table(e, 4);
	env_knobs(e, 0, 0, 0, 200);
	set_mr(e, 1, true, va, 1u << 20, 12);
	/* a warm-up pass fills the caches; then pieces, then check-mode verdicts */
	for (unsigned int pass = 0; pass < 3; pass++) {
		stats_clear(e);
		/* a window of 8 pages: two page-table beats */
		for (unsigned int i = 0; i < reqs; i++)
			op_req(e, directed(key_of(e, 1), e->pds[0], va + 4096 * (i % 7), 4096, 0,
					   pass == 2, HROCE_MR_XLATE_OK));
		if (!env_run(e) || !pass)
			continue;
		bench_log(
			e->b,
			"hits_%s: %llu requests %s with %llu DMA reads; first response %llu..%llu "
			"cycles after the request, next pieces at most %llu cycles apart, %.2f cycles "
			"per request",
			e->md->name, (unsigned long long)e->requests,
			pass == 1 ? "of 2 pieces" : "in check mode (verdicts)",
			(unsigned long long)(e->ctx_reads + e->pt_reads),
			(unsigned long long)e->first_min, (unsigned long long)e->first_max,
			(unsigned long long)e->gap_max,
			(double)(e->req_last - e->req_first) / (double)(e->requests - 1));
	}
	result(e, "hits");
}

int main(int argc, char **argv)
{
	struct bench b;
	struct mr_env *e = malloc(sizeof(*e));

	if (!e) {
		perror("malloc");
		return 1;
	}
	bench_init(&b, "test_mr", argc, argv);
	for (size_t m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
		env_open(e, &b, &models[m]);
		test_checks(e);
		test_hits(e);
		test_inval(e, b.quick ? 100 : 400);
		test_random(e, b.quick ? 4 : 24, b.quick ? 500 : 2000);
		env_close(e);
	}
	free(e);
	return bench_finish(&b);
}
