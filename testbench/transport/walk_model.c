// SPDX-License-Identifier: MIT
/* C models of the scatter-gather walk and of its MR translation: see walk_model.h. */
#include "walk_model.h"

#include <string.h>

#include "hroce_contract.h"

void walk_make_mrs(struct bench *b, struct mr *mrs)
{
	for (unsigned int i = 0; i < WALK_NUM_MRS; i++) {
		struct mr *m = &mrs[i];

		m->key = (uint32_t)(0x100u * (i + 1) + bench_range(b, 0, 0xff));
		/* every PD has MRs; one MR in four (one in each PD) lacks some right */
		m->pd = i % WALK_PDS;
		m->access = i % 4 == 1 ? (unsigned int)bench_range(b, 0, 14) : 15;
		m->page_log = (unsigned int)bench_range(b, 12, 14);
		m->len = bench_range(b, 1, (bench_chance(b, 70) ? 4ull : 64ull) << m->page_log);
		/* page-aligned VAs, some near the top of the address space */
		m->va = bench_chance(b, 10)
				? UINT64_MAX - (64ull << m->page_log) - bench_range(b, 0, 1000)
				: bench_range(b, 0, 1ull << 40);
		m->va &= ~((1ull << m->page_log) - 1);
		for (unsigned int p = 0; p < 64; p++)
			m->iova[p] = bench_range(b, 1, 1ull << 30) << m->page_log;
		/* one MR in four (one in each PD) has an unreadable page-table entry: its last page
		 */
		m->bad_page = i % 4 == 0 ? (int)((m->len - 1) >> m->page_log) : -1;
	}
}

const struct mr *walk_find_mr(const struct mr *mrs, uint32_t key)
{
	for (unsigned int i = 0; i < WALK_NUM_MRS; i++)
		if (mrs[i].key == key)
			return &mrs[i];
	return NULL;
}

unsigned int walk_translate(const struct mr *mrs, const struct xreq *r, struct beat *beat,
			    unsigned int *nbeats)
{
	const struct mr *m = walk_find_mr(mrs, r->key);
	unsigned int status = HROCE_MR_XLATE_OK;

	if (!m)
		status = HROCE_MR_XLATE_BAD_KEY;
	else if (m->pd != r->pd)
		status = HROCE_MR_XLATE_BAD_PD;
	else if ((m->access & r->access) != r->access)
		status = HROCE_MR_XLATE_BAD_ACCESS;
	else if (r->va < m->va || r->va - m->va > m->len || r->len > m->len - (r->va - m->va))
		status = HROCE_MR_XLATE_BAD_BOUNDS;
	if (status != HROCE_MR_XLATE_OK) {
		beat[(*nbeats)++] = (struct beat){ 0, 0, status, true };
		return status;
	}
	uint64_t off = r->va - m->va, left = r->len;
	uint64_t page = 1ull << m->page_log;

	while (left) {
		uint64_t p = off >> m->page_log; /* the MR starts on a page */
		uint64_t in_page = (m->va + off) & (page - 1);
		uint64_t n = page - in_page < left ? page - in_page : left;

		if ((int)p == m->bad_page) {
			/* the pieces given so far are the client's to discard */
			beat[(*nbeats)++] = (struct beat){ 0, 0, HROCE_MR_XLATE_DMA_ERROR, true };
			return HROCE_MR_XLATE_DMA_ERROR;
		}
		left -= n;
		beat[(*nbeats)++] = (struct beat){ m->iova[p] + in_page, (unsigned int)n,
						   HROCE_MR_XLATE_OK, left == 0 };
		off += n;
	}
	return HROCE_MR_XLATE_OK;
}

void walk_reference(const struct mr *mrs, struct walk *w)
{
	unsigned int sge = w->sge, left = w->len, nbeats = 0;
	uint32_t off = w->off;

	w->nreq = 0;
	w->nchunk = 0;
	w->status = HROCE_MR_XLATE_OK;
	w->is_short = false;
	for (;;) {
		if (left == 0)
			break;
		if (sge >= w->num_sge) {
			w->is_short = true;
			break;
		}
		const struct sge *s = &w->list[sge];

		if (off >= s->len) {
			off -= s->len;
			sge++;
			continue;
		}
		unsigned int piece = s->len - off < left ? s->len - off : left;
		struct xreq *r = &w->req[w->nreq];

		*r = (struct xreq){ s->key, w->pd, s->addr + off, piece, w->access };
		w->first_beat[w->nreq++] = nbeats;
		unsigned int first = nbeats;

		w->status = walk_translate(mrs, r, w->beat, &nbeats);
		for (unsigned int i = first; i < nbeats; i++)
			if (w->beat[i].status == HROCE_MR_XLATE_OK && w->beat[i].len)
				w->chunk[w->nchunk++] =
					(struct chunk){ w->beat[i].iova, w->beat[i].len,
							w->beat[i].last && piece == left };
		if (w->status != HROCE_MR_XLATE_OK)
			break;
		off += piece;
		left -= piece;
	}
	w->first_beat[w->nreq] = nbeats;
	w->end_sge = sge;
	w->end_off = off;
}

const struct mr *walk_good_mr(struct bench *b, const struct mr *mrs, unsigned int pd,
			      unsigned int access)
{
	for (;;) {
		const struct mr *m = &mrs[bench_range(b, 0, WALK_NUM_MRS - 1)];

		if (m->pd == pd && m->bad_page < 0 && (m->access & access) == access)
			return m;
	}
}

struct sge walk_good_sge(struct bench *b, const struct mr *mrs, unsigned int pd,
			 unsigned int access, uint32_t most)
{
	const struct mr *m = walk_good_mr(b, mrs, pd, access);
	uint64_t top = m->len < most ? m->len : most;
	struct sge s = { 0, 0, m->key };

	s.len = bench_chance(b, 10) ? 0 : (uint32_t)bench_range(b, 1, top);
	s.addr = m->va + bench_range(b, 0, m->len - s.len);
	return s;
}

struct sge walk_bad_sge(struct bench *b, const struct mr *mrs, unsigned int pd, unsigned int access)
{
	struct sge s = walk_good_sge(b, mrs, pd, access, 3000);
	const struct mr *m, *lacking[WALK_NUM_MRS];
	unsigned int nlacking = 0, how = (unsigned int)bench_range(b, 0, access ? 4 : 3);

	if (!s.len)
		s.len = 1;
	for (unsigned int i = 0; i < WALK_NUM_MRS; i++)
		if (mrs[i].pd == pd && (mrs[i].access & access) != access)
			lacking[nlacking++] = &mrs[i];
	if (how == 4 && !nlacking)
		how = 0;
	switch (how) {
	case 0: /* no MR has the key */
		s.key = WALK_BAD_KEY_BASE + (uint32_t)bench_range(b, 0, 0xffffff);
		break;
	case 1: /* an MR of another PD */
		do
			m = &mrs[bench_range(b, 0, WALK_NUM_MRS - 1)];
		while (m->pd == pd);
		s.key = m->key;
		s.addr = m->va;
		break;
	case 2: /* past its MR's end */
		m = walk_find_mr(mrs, s.key);
		s.addr = m->va + m->len - bench_range(b, 0, m->len < 100 ? m->len : 100);
		s.len = (uint32_t)bench_range(b, 101, 3000);
		break;
	case 3: /* the MR of the PD whose last page's table entry cannot be read */
		for (unsigned int i = 0; i < WALK_NUM_MRS; i++) {
			m = &mrs[i];
			if (m->pd == pd && m->bad_page >= 0) {
				uint64_t start = (uint64_t)m->bad_page << m->page_log;

				s.key = m->key;
				s.addr = m->va + start + bench_range(b, 0, m->len - start - 1);
				s.len = (uint32_t)bench_range(b, 1,
							      m->len - (s.addr - m->va) < 3000
								      ? m->len - (s.addr - m->va)
								      : 3000);
				break;
			}
		}
		break;
	default: /* an MR of the PD without a right asked for */
		m = lacking[bench_range(b, 0, nlacking - 1)];
		s.key = m->key;
		s.len = (uint32_t)bench_range(b, 1, m->len < 3000 ? m->len : 3000);
		s.addr = m->va + bench_range(b, 0, m->len - s.len);
		break;
	}
	return s;
}

void walk_xlator_open(struct walk_xlator *x, struct dut *d, const struct mr *mrs, unsigned int cap)
{
	static const struct dut_port_ref ports[] = {
#define P(field, name) DUT_PORT(struct walk_xlator, field, name)
		P(req_key, "m_mr_req_key"),	    P(req_pd, "m_mr_req_pd"),
		P(req_va, "m_mr_req_va"),	    P(req_len, "m_mr_req_len"),
		P(req_access, "m_mr_req_access"),   P(req_valid, "m_mr_req_valid"),
		P(req_ready, "m_mr_req_ready"),	    P(resp_iova, "s_mr_resp_iova"),
		P(resp_len, "s_mr_resp_len"),	    P(resp_last, "s_mr_resp_last"),
		P(resp_status, "s_mr_resp_status"), P(resp_valid, "s_mr_resp_valid"),
		P(resp_ready, "s_mr_resp_ready"),
#undef P
	};

	memset(x, 0, sizeof(*x));
	x->b = d->bench;
	x->mrs = mrs;
	bench_ring_init(&x->want, sizeof(struct walk_xreq_exp), cap);
	bench_ring_init(&x->ans, sizeof(struct walk_ans), cap);
	dut_ports(d, x, ports, sizeof(ports) / sizeof(ports[0]));
}

void walk_xlator_close(struct walk_xlator *x)
{
	bench_ring_free(&x->want);
	bench_ring_free(&x->ans);
}

void walk_xlator_answer_any(struct walk_xlator *x, unsigned int access)
{
	x->any = true;
	x->any_access = access;
}

bool walk_xlator_expect(struct walk_xlator *x, const struct walk *w, unsigned int job)
{
	for (unsigned int i = 0; i < w->nreq; i++) {
		struct walk_xreq_exp *r = bench_ring_add(&x->want);

		if (!r)
			return false;
		*r = (struct walk_xreq_exp){ w->req[i], job };
	}
	return true;
}

bool walk_xlator_other(struct walk_xlator *x, const struct beat *b, uint64_t at)
{
	struct walk_ans *a = bench_ring_add(&x->ans);

	if (a)
		*a = (struct walk_ans){ *b, at, 0, true };
	return a != NULL;
}

void walk_xlator_drive(struct walk_xlator *x, uint64_t cycle, unsigned int ready_pct)
{
	struct bench *b = x->b;
	const struct walk_ans *a = bench_ring_at(&x->ans, 0);

	if (!x->valid && a && a->at <= cycle && bench_chance(b, ready_pct))
		x->valid = true;
	if (x->valid) {
		vport_set(x->resp_iova, a->b.iova);
		vport_set(x->resp_len, a->b.len);
		vport_set(x->resp_last, a->b.last);
		vport_set(x->resp_status, a->b.status);
	} else {
		vport_set(x->resp_iova, bench_rand(b));
		vport_set(x->resp_len, bench_rand(b));
		vport_set(x->resp_last, bench_rand(b) & 1);
		vport_set(x->resp_status, bench_rand(b) & 7);
	}
	vport_set(x->resp_valid, x->valid);
	vport_set(x->req_ready, bench_chance(b, ready_pct));
}

/* a request taken: the next a walk makes, answered from the request as it came */
static void xlator_request(struct walk_xlator *x, const struct xreq *got, uint64_t cycle,
			   unsigned int lat_max, char *err, size_t size)
{
	const struct walk_xreq_exp *w = bench_ring_at(&x->want, 0);
	struct beat beats[WALK_MAX_BEATS];
	unsigned int n = 0, job = 0;

	if (x->any) {
		if (got->access != x->any_access) {
			bench_first_error(err, size,
					  "a translation request for access 0x%x, want 0x%x",
					  got->access, x->any_access);
			return;
		}
	} else {
		if (!w) {
			bench_first_error(err, size,
					  "a translation request that no walk makes: key 0x%x va "
					  "0x%llx len %u",
					  got->key, (unsigned long long)got->va, got->len);
			return;
		}
		if (memcmp(got, &w->r, sizeof(*got))) {
			bench_first_error(
				err, size,
				"job %u: translation request key 0x%x pd %u va 0x%llx len "
				"%u access %u, want key 0x%x pd %u va 0x%llx len %u access %u",
				w->job, got->key, got->pd, (unsigned long long)got->va, got->len,
				got->access, w->r.key, w->r.pd, (unsigned long long)w->r.va,
				w->r.len, w->r.access);
			return;
		}
		job = w->job;
		bench_ring_pop(&x->want);
	}
	walk_translate(x->mrs, got, beats, &n);
	uint64_t at = cycle;

	for (unsigned int i = 0; i < n; i++) {
		struct walk_ans *a = bench_ring_add(&x->ans);

		at += bench_range(x->b, i ? 0 : 1, lat_max);
		if (!a) {
			bench_first_error(err, size, "bench FIFO of translation answers overflows");
			return;
		}
		*a = (struct walk_ans){ beats[i], at, job, false };
	}
}

unsigned int walk_xlator_sample(struct walk_xlator *x, uint64_t cycle, unsigned int lat_max,
				struct walk_ans *taken, char *err, size_t size)
{
	struct xreq got = { (uint32_t)vport_get(x->req_key), (uint32_t)vport_get(x->req_pd),
			    vport_get(x->req_va), (uint32_t)vport_get(x->req_len),
			    (unsigned int)vport_get(x->req_access) };
	bool req_valid = vport_get(x->req_valid) != 0, req_ready = vport_get(x->req_ready) != 0;
	bool resp_ready = vport_get(x->resp_ready) != 0;
	const struct walk_ans *a = bench_ring_at(&x->ans, 0);
	unsigned int moved = 0;

	if (x->held && (!req_valid || memcmp(&got, &x->last, sizeof(got))))
		bench_first_error(err, size, "m_mr_req dropped or changed before it was taken");
	x->held = req_valid && !req_ready;
	x->last = got;
	if (x->valid && a && (resp_ready || a->other)) {
		if (a->other && resp_ready)
			bench_first_error(
				err, size,
				"the walker takes a translation answer that is not its own");
		*taken = *a;
		bench_ring_pop(&x->ans);
		x->valid = false;
		moved |= WALK_XLATOR_ANS;
	}
	if (req_valid && req_ready) {
		xlator_request(x, &got, cycle, lat_max, err, size);
		moved |= WALK_XLATOR_REQ;
	}
	return moved;
}
