// SPDX-License-Identifier: MIT
/*
 * Bench of sg_walk, the scatter-gather walker every payload engine uses, alone.
 *
 * The bench is the walker's owner and its MR translation: it offers walks over random SGE
 * lists (read by index, as an engine's WQE memory answers) and answers the translation
 * requests from a C model of mr_translate's contract (a table of MRs with a PD, rights,
 * bounds, pages of their own size at scattered IOVAs, and pages whose table entry cannot
 * be read). A C reference of the walk over the same lists and MRs gives, for every walk,
 * the requests it must make, the chunks it must give and its end (status, short, end
 * position); every one is compared. Every handshake is held back at random: the command,
 * the request, each response beat, each chunk and the done.
 *
 * Walks start anywhere in their list (a resumed message: the SGEs before the offset are
 * skipped), take 0 to 4 KiB, and meet zero-length SGEs, lists shorter than the walk, and
 * every verdict; the bench fails if a kind of end was never seen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "hroce_contract.h"
#include "walk_model.h"

extern const struct vmodel_ops vmodel_Vsg_walk;

#define MAX_SGE 30
#define MAX_WALK 4096
#define HANG_CYCLES 2000

enum end_kind {
	END_OK,
	END_EMPTY,
	END_SHORT,
	END_KEY,
	END_PD,
	END_ACCESS,
	END_BOUNDS,
	END_DMA,
	END_KINDS
};

static const char *const end_names[END_KINDS] = { "ok",	    "empty",  "short",	"bad key",
						  "bad pd", "access", "bounds", "dma error" };

struct env {
	struct bench *b;
	struct dut dut;
	struct mr mrs[WALK_NUM_MRS];
	struct walk w;
	bool active, offered;
	unsigned int gap;
	unsigned int req_at, beat_at, chunk_at;
	bool req_out; /* a request taken whose beats are not all given */
	unsigned int walks;
	uint64_t last_progress;
	unsigned int seen[END_KINDS];
	char err[256];
	const struct vmodel_port *cmd_sge, *cmd_off, *cmd_len, *cmd_num_sge, *cmd_pd, *cmd_access,
		*cmd_valid, *cmd_ready, *busy;
	const struct vmodel_port *sge_index, *sge_addr, *sge_len, *sge_key;
	const struct vmodel_port *rq_key, *rq_pd, *rq_va, *rq_len, *rq_access, *rq_valid, *rq_ready;
	const struct vmodel_port *rs_iova, *rs_len, *rs_last, *rs_status, *rs_valid, *rs_ready;
	const struct vmodel_port *ch_iova, *ch_len, *ch_last, *ch_valid, *ch_ready;
	const struct vmodel_port *dn_status, *dn_short, *dn_sge, *dn_off, *dn_valid, *dn_ready;
};

static enum end_kind end_kind(const struct walk *w)
{
	if (w->is_short)
		return END_SHORT;
	switch (w->status) {
	case HROCE_MR_XLATE_BAD_KEY:
		return END_KEY;
	case HROCE_MR_XLATE_BAD_PD:
		return END_PD;
	case HROCE_MR_XLATE_BAD_ACCESS:
		return END_ACCESS;
	case HROCE_MR_XLATE_BAD_BOUNDS:
		return END_BOUNDS;
	case HROCE_MR_XLATE_DMA_ERROR:
		return END_DMA;
	default:
		return w->len == 0 ? END_EMPTY : END_OK;
	}
}

/* A random walk: mostly over good MRs, so that long lists get walked whole. */
static void make_walk(struct env *e)
{
	struct bench *b = e->b;
	struct walk *w = &e->w;
	uint64_t total = 0;

	w->num_sge = (unsigned int)(bench_chance(b, 20) ? bench_range(b, 0, 2)
							: bench_range(b, 1, MAX_SGE));
	w->pd = (unsigned int)bench_range(b, 0, WALK_PDS - 1);
	w->access = (unsigned int)bench_range(b, 0, 15);
	for (unsigned int i = 0; i < 32; i++) {
		struct sge *s = &w->list[i];
		/* mostly an MR of the walk's PD */
		unsigned int k =
			(unsigned int)bench_range(b, 0, WALK_NUM_MRS / WALK_PDS - 1) * WALK_PDS +
			w->pd;
		const struct mr *m =
			&e->mrs[bench_chance(b, 97) ? k : bench_range(b, 0, WALK_NUM_MRS - 1)];

		if (i >= w->num_sge) {
			*s = (struct sge){ bench_rand(b), (uint32_t)bench_rand(b),
					   (uint32_t)bench_rand(b) };
			continue;
		}
		/* most SGEs fit their MR and ask what it grants; some do not */
		s->key = bench_chance(b, 3) ? (uint32_t)bench_rand(b) : m->key;
		s->len = bench_chance(b, 10) ? 0 : (uint32_t)bench_range(b, 1, 3000);
		if (bench_chance(b, 2))
			s->len = (uint32_t)bench_range(b, 1, UINT32_MAX);
		uint64_t room = m->len > s->len ? m->len - s->len : 0;

		s->addr = m->va + bench_range(b, 0, room);
		if (bench_chance(b, 2))
			s->addr = m->va + m->len - bench_range(b, 0, 100);
		total += s->len;
	}
	w->sge = (unsigned int)(bench_chance(b, 70) ? 0 : bench_range(b, 0, w->num_sge));
	w->off = (uint32_t)(bench_chance(b, 40) ? 0
						: bench_range(b, 0, total > 20000 ? 20000 : total));
	w->len = (unsigned int)(bench_chance(b, 5) ? 0 : bench_range(b, 1, MAX_WALK));
	walk_reference(e->mrs, w);
}

/* ---------------------------------------------------------------------------------------
 * The agent: owner and translation, both held back at random
 */

#define FAIL(e, ...) bench_first_error((e)->err, sizeof((e)->err), __VA_ARGS__)

static void drive(void *ctx)
{
	struct env *e = ctx;
	struct bench *b = e->b;
	struct walk *w = &e->w;

	if (!e->active && !e->offered) {
		if (e->gap) {
			e->gap--;
		} else {
			make_walk(e);
			e->offered = true;
		}
	}
	vport_set(e->cmd_valid, e->offered);
	vport_set(e->cmd_sge, w->sge);
	vport_set(e->cmd_off, w->off);
	vport_set(e->cmd_len, w->len);
	vport_set(e->cmd_num_sge, w->num_sge);
	vport_set(e->cmd_pd, w->pd);
	vport_set(e->cmd_access, w->access);

	unsigned int idx = (unsigned int)vport_get(e->sge_index);

	vport_set(e->sge_addr, w->list[idx & 31].addr);
	vport_set(e->sge_len, w->list[idx & 31].len);
	vport_set(e->sge_key, w->list[idx & 31].key);

	vport_set(e->rq_ready, !e->req_out && bench_chance(b, 60));
	bool beat = e->req_out && e->beat_at < w->first_beat[e->req_at] && bench_chance(b, 70);

	if (beat) {
		const struct beat *bt = &w->beat[e->beat_at];

		vport_set(e->rs_iova, bt->iova);
		vport_set(e->rs_len, bt->len);
		vport_set(e->rs_last, bt->last);
		vport_set(e->rs_status, bt->status);
	} else {
		vport_set(e->rs_iova, bench_rand(b));
		vport_set(e->rs_len, bench_rand(b) & 0xffff);
		vport_set(e->rs_last, bench_rand(b) & 1);
		vport_set(e->rs_status, bench_rand(b) & 7);
	}
	vport_set(e->rs_valid, beat);
	vport_set(e->ch_ready, bench_chance(b, 75));
	vport_set(e->dn_ready, bench_chance(b, 75));
}

static void sample(void *ctx)
{
	struct env *e = ctx;
	struct bench *b = e->b;
	struct walk *w = &e->w;

	if (vport_get(e->cmd_ready) != !vport_get(e->busy))
		FAIL(e, "cycle %llu: s_cmd_ready %u with busy %u", (unsigned long long)e->dut.cycle,
		     (unsigned int)vport_get(e->cmd_ready), (unsigned int)vport_get(e->busy));
	if (e->offered && vport_get(e->cmd_ready)) {
		if (e->active)
			FAIL(e, "walk %u: a command taken while one was under way", e->walks);
		e->offered = false;
		e->active = true;
		e->req_at = e->beat_at = e->chunk_at = 0;
		e->last_progress = e->dut.cycle;
	}
	if (vport_get(e->rq_valid) && vport_get(e->rq_ready)) {
		const struct xreq *r = &w->req[e->req_at];
		struct xreq got = { (uint32_t)vport_get(e->rq_key), (uint32_t)vport_get(e->rq_pd),
				    vport_get(e->rq_va), (uint32_t)vport_get(e->rq_len),
				    (unsigned int)vport_get(e->rq_access) };

		if (!e->active || e->req_at >= w->nreq)
			FAIL(e, "walk %u: request %u not expected (va 0x%llx len %u)", e->walks,
			     e->req_at, (unsigned long long)got.va, got.len);
		else if (memcmp(&got, r, sizeof(got)))
			FAIL(e,
			     "walk %u request %u: key 0x%x pd %u va 0x%llx len %u access %u, want "
			     "key 0x%x pd %u va 0x%llx len %u access %u",
			     e->walks, e->req_at, got.key, got.pd, (unsigned long long)got.va,
			     got.len, got.access, r->key, r->pd, (unsigned long long)r->va, r->len,
			     r->access);
		e->req_at++;
		e->req_out = true;
	}
	if (vport_get(e->rs_valid) && vport_get(e->rs_ready)) {
		e->beat_at++;
		if (e->beat_at == w->first_beat[e->req_at])
			e->req_out = false;
		e->last_progress = e->dut.cycle;
	}
	if (vport_get(e->ch_valid) && vport_get(e->ch_ready)) {
		struct chunk got = { vport_get(e->ch_iova), (unsigned int)vport_get(e->ch_len),
				     vport_get(e->ch_last) != 0 };

		if (e->chunk_at >= w->nchunk)
			FAIL(e, "walk %u: chunk %u not expected (iova 0x%llx len %u)", e->walks,
			     e->chunk_at, (unsigned long long)got.iova, got.len);
		else if (got.iova != w->chunk[e->chunk_at].iova ||
			 got.len != w->chunk[e->chunk_at].len ||
			 got.last != w->chunk[e->chunk_at].last)
			FAIL(e, "walk %u chunk %u: iova 0x%llx len %u last %u, want 0x%llx %u %u",
			     e->walks, e->chunk_at, (unsigned long long)got.iova, got.len, got.last,
			     (unsigned long long)w->chunk[e->chunk_at].iova,
			     w->chunk[e->chunk_at].len, w->chunk[e->chunk_at].last);
		e->chunk_at++;
	}
	if (vport_get(e->dn_valid) && vport_get(e->dn_ready)) {
		unsigned int status = (unsigned int)vport_get(e->dn_status);
		bool is_short = vport_get(e->dn_short) != 0;
		bool ok = status == HROCE_MR_XLATE_OK && !is_short;

		if (!e->active)
			FAIL(e, "walk %u: done without a walk", e->walks);
		else if (status != w->status || is_short != w->is_short)
			FAIL(e, "walk %u: done status %u short %u, want %u %u", e->walks, status,
			     is_short, w->status, w->is_short);
		else if (e->req_at != w->nreq || e->beat_at != w->first_beat[w->nreq] ||
			 e->chunk_at != w->nchunk)
			FAIL(e, "walk %u: done after %u/%u requests, %u/%u beats, %u/%u chunks",
			     e->walks, e->req_at, w->nreq, e->beat_at, w->first_beat[w->nreq],
			     e->chunk_at, w->nchunk);
		else if (ok &&
			 (vport_get(e->dn_sge) != w->end_sge || vport_get(e->dn_off) != w->end_off))
			FAIL(e, "walk %u: ends at SGE %u offset %u, want %u %u", e->walks,
			     (unsigned int)vport_get(e->dn_sge), (unsigned int)vport_get(e->dn_off),
			     w->end_sge, w->end_off);
		e->seen[end_kind(w)]++;
		e->active = false;
		e->walks++;
		e->gap = bench_chance(b, 50) ? 0 : (unsigned int)bench_range(b, 1, 5);
		e->last_progress = e->dut.cycle;
	}
}

static void port(struct env *e, const struct vmodel_port **p, const char *name)
{
	*p = dut_port(&e->dut, name);
}

static void open_env(struct env *e, struct bench *b)
{
	memset(e, 0, sizeof(*e));
	e->b = b;
	dut_open(&e->dut, b, &vmodel_Vsg_walk);
	port(e, &e->cmd_sge, "s_cmd_sge");
	port(e, &e->cmd_off, "s_cmd_off");
	port(e, &e->cmd_len, "s_cmd_len");
	port(e, &e->cmd_num_sge, "s_cmd_num_sge");
	port(e, &e->cmd_pd, "s_cmd_pd");
	port(e, &e->cmd_access, "s_cmd_access");
	port(e, &e->cmd_valid, "s_cmd_valid");
	port(e, &e->cmd_ready, "s_cmd_ready");
	port(e, &e->busy, "busy");
	port(e, &e->sge_index, "sge_index");
	port(e, &e->sge_addr, "sge_addr");
	port(e, &e->sge_len, "sge_len");
	port(e, &e->sge_key, "sge_key");
	port(e, &e->rq_key, "m_mr_req_key");
	port(e, &e->rq_pd, "m_mr_req_pd");
	port(e, &e->rq_va, "m_mr_req_va");
	port(e, &e->rq_len, "m_mr_req_len");
	port(e, &e->rq_access, "m_mr_req_access");
	port(e, &e->rq_valid, "m_mr_req_valid");
	port(e, &e->rq_ready, "m_mr_req_ready");
	port(e, &e->rs_iova, "s_mr_resp_iova");
	port(e, &e->rs_len, "s_mr_resp_len");
	port(e, &e->rs_last, "s_mr_resp_last");
	port(e, &e->rs_status, "s_mr_resp_status");
	port(e, &e->rs_valid, "s_mr_resp_valid");
	port(e, &e->rs_ready, "s_mr_resp_ready");
	port(e, &e->ch_iova, "m_chunk_iova");
	port(e, &e->ch_len, "m_chunk_len");
	port(e, &e->ch_last, "m_chunk_last");
	port(e, &e->ch_valid, "m_chunk_valid");
	port(e, &e->ch_ready, "m_chunk_ready");
	port(e, &e->dn_status, "m_done_status");
	port(e, &e->dn_short, "m_done_short");
	port(e, &e->dn_sge, "m_done_sge");
	port(e, &e->dn_off, "m_done_off");
	port(e, &e->dn_valid, "m_done_valid");
	port(e, &e->dn_ready, "m_done_ready");
	dut_reset(&e->dut, 4);
	dut_add_agent(&e->dut, drive, sample, e);
	e->last_progress = e->dut.cycle;
}

static void test_random(struct bench *b)
{
	static struct env env;
	struct env *e = &env;
	unsigned int walks = b->quick ? 2000 : 20000;

	open_env(e, b);
	walk_make_mrs(b, e->mrs);
	while (e->walks < walks && !e->err[0]) {
		dut_step(&e->dut);
		if (e->dut.cycle - e->last_progress > HANG_CYCLES)
			FAIL(e, "walk %u: no progress for %u cycles (%u/%u requests, %u/%u beats)",
			     e->walks, HANG_CYCLES, e->req_at, e->w.nreq, e->beat_at,
			     e->w.first_beat[e->w.nreq]);
	}
	for (unsigned int k = 0; k < END_KINDS && !e->err[0]; k++)
		if (!e->seen[k])
			FAIL(e, "no walk ended %s in %u walks", end_names[k], e->walks);
	bench_log(b,
		  "%u walks in %llu cycles: ok %u, empty %u, short %u, key %u, pd %u, "
		  "access %u, bounds %u, dma %u",
		  e->walks, (unsigned long long)e->dut.cycle, e->seen[END_OK], e->seen[END_EMPTY],
		  e->seen[END_SHORT], e->seen[END_KEY], e->seen[END_PD], e->seen[END_ACCESS],
		  e->seen[END_BOUNDS], e->seen[END_DMA]);
	bench_result(b, "sg_walk_random", !e->err[0], "%s", e->err);
	dut_close(&e->dut);
}

int main(int argc, char **argv)
{
	struct bench b;

	bench_init(&b, "test_sg_walk", argc, argv);
	test_random(&b);
	return bench_finish(&b);
}
