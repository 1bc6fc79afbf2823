// SPDX-License-Identifier: MIT
/*
 * Bench of req_build, the requester's packet build stage, alone.
 *
 * The bench is everything around it: a C req_tx control that pushes the jobs of several
 * QPs' turns as the contract says (a packet only with room for it and a SENT after it, a
 * SENT alone that ends a turn part of the way through a message, FLUSH and ERROR messages
 * on s_msg only while msg_count is below 6, no packet of a QP while m_fail reports it);
 * wqe_fetch's window slots that hold each turn's WQEs (read combinationally; a slot is
 * written again only when slot_busy says no held job reads it, and slots nobody may read
 * are scribbled over now and then); the MR translator (walk_model.c's C model of
 * mr_translate, answering late and in bursts); the DMA reader of host memory (a byte of
 * host memory is a function of its address; several requests in flight, each served
 * after its own latency, as a byte stream packed from lane 0); and the link, which takes
 * headers, payloads and messages with back-pressure of its own.
 *
 * The WQEs: SENDs and WRITEs of 0 to 30 SGEs (zero-length ones among them) read by DMA,
 * inline ones (their bytes from byte 32 of the WQE), READ requests (no payload), messages
 * of one to many packets (MTU 256 to 4096), resumed part of the way through on a later
 * turn. In the runs with violations, one SGE of some WQEs has a key no MR has, a key of
 * another PD, bounds past its MR, or a page whose table entry cannot be read, or the
 * message is longer than its SGEs.
 *
 * A C reference says, at each push, what must come out of the job: walk_model's walk from
 * the packet's offset gives its translation requests and, if it succeeds, its DMA reads
 * and payload bytes (inline: the WQE's bytes); a failing walk gives an ERROR message
 * (LOC_PROT_ERR, or LOC_LEN_ERR for a message longer than its SGEs) and an m_fail report
 * of its QP, and drops the QP's jobs pushed after it until the control saw the report.
 * Every stream is checked field by field and in order, never by cycle: the translation
 * requests, the DMA read requests, the headers (bit for bit the job's), the payload beats
 * (bytes under tkeep, tkeep, tlast, tuser as the DMA stream gave it), the failed QPs, and
 * the messages in job order, where a SENT may be missing if the next message of the
 * stage is a SENT of the same QP and generation (fifo_merge replaces the one waiting),
 * and SENTs equal to the one just taken may come again or not (merged into it);
 * the direct messages in their own order, anywhere among those. At the end everything
 * expected came, the job queue is empty and the stage is idle. A hang (no handshake for
 * HANG_CYCLES) fails the run and says what was still expected. An output offered must
 * hold until taken, and idle must never be high with a job or a message held.
 *
 * The failed QP: the control ends its turn when it sees the report, takes the report
 * after a random delay, and creates the QP again later (a new generation, new WQEs), so
 * that jobs of it follow others of it that were dropped. A direct message may go in the
 * cycle of a job (req_tx never does both: the ports allow it). The runs: clean, with
 * violations, with heavy back-pressure everywhere, with idle gaps in the control's
 * pushes, with req_ack slow and two QPs (SENTs replaced); those with violations also on
 * a tiny model (2 slots, 4 packets to the link, 8 jobs). Each run fails if a kind of job
 * (DMA, continued, inline, empty, SENT alone, resumed), or in a run with violations a
 * LOC_PROT_ERR, a LOC_LEN_ERR or a dropped job, never came.
 *
 * Not covered: a cont job whose offset disagrees with the walk it continues (the control
 * always gives both right, so a stage that walked from the offset alone would pass), DMA
 * read errors beyond tuser passing through, parameters other than the two models'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "hroce_contract.h"
#include "req_msg.h" /* req_tx and req_ack's messages, from rtl/transport/req_msg.vh */
#include "pay_stream.h"
#include "walk_model.h"

extern const struct vmodel_ops vmodel_Vreq_build, vmodel_Vreq_build_tiny;

/* wqe_fetch's slots at most (the jobs queued and the slots are the model's: its ports say) */
#define MAX_SLOTS 8u
#define SLOT_BEATS 8
#define BEAT 64
/* the control sends a direct message only below this count (req_build.v's header) */
#define MSG_ROOM 6

#define MAX_QPS 8
#define MAX_PKT 4096
#define HANG_CYCLES 20000u
#define RING 8192
#define PAY_RING 256
#define TXM_WORDS ((REQ_TXM_WIDTH + 31) / 32)

struct scenario {
	const char *name;
	unsigned int qps, jobs;
	unsigned int bad_pct;	    /* DMA WQEs with a violation */
	unsigned int ready_pct;	    /* the link's, the DMA's and the translator's */
	unsigned int msg_ready_pct; /* req_ack's */
	unsigned int dma_lat_max;   /* cycles from a DMA request to its data */
	unsigned int mr_lat_max;    /* cycles from a translation request to its answer */
	unsigned int gap_pct;	    /* the control idles (a gap of 1..gap_max cycles) */
	unsigned int gap_max;
	unsigned int fail_delay_max; /* cycles before the control takes m_fail */
	unsigned int direct_pct;     /* a direct FLUSH or ERROR in a cycle */
};

/* ---------------------------------------------------------------------------------------
 * QPs, WQEs, turns
 */

struct wqe {
	uint8_t img[SLOT_BEATS * BEAT]; /* 64 << stride bytes of it are the WQE */
	bool is_inline, is_read;
	uint32_t len;
	unsigned int num_sge, npkts;
	struct sge list[32];
};

struct qp {
	uint32_t qpn;
	unsigned int pd, stride, log_mtu, gen;
	uint16_t ci;
	uint32_t npsn, pkt; /* PSN of the WQE at ci, and its next packet */
	struct wqe w[SLOT_BEATS];
	unsigned int nw; /* WQEs made from ci on */
	bool doomed;	 /* a job pushed whose walk fails, its report not seen yet */
	bool dead;	 /* its report seen: nothing of it until it is created again */
	bool flush_due;
	bool taken; /* the control took its report */
	uint64_t reborn_at;
};

struct turn {
	bool active;
	unsigned int q, slot, nw, at; /* WQEs in the window (from ci on), the one sent */
	unsigned int base[SLOT_BEATS];
	bool first; /* the next packet is the first of its WQE in this turn */
};

/* ---------------------------------------------------------------------------------------
 * The expected outputs, each a FIFO
 */

struct hdr_exp {
	uint32_t w[HROCE_ROCE_HDR_WORDS];
	unsigned int job, len;
};

struct pay_exp {
	unsigned int job, len;
	bool dma;
	uint8_t byte[MAX_PKT];
};

struct msg_exp {
	uint32_t w[TXM_WORDS];
	unsigned int job;
};

struct chunk_exp {
	struct chunk c;
	unsigned int job;
};

struct fail_exp {
	uint32_t qpn;
	unsigned int job;
};

struct env {
	struct bench *b;
	const struct scenario *sc;
	struct dut dut;
	struct mr mrs[WALK_NUM_MRS];
	struct qp qp[MAX_QPS];
	unsigned int njobs, nslots;		  /* the stage's job queue and wqe_fetch's slots */
	uint8_t mem[MAX_SLOTS][SLOT_BEATS][BEAT]; /* the slots */
	struct turn t;
	struct walk w; /* scratch of the reference */
	char err[512];

	struct bench_ring hdrs, pays, msgs, dmsgs, chunks, fails, tusers;
	struct pay_stream ps; /* the DMA reader */
	struct walk_xlator xl;
	unsigned int pay_pos;  /* bytes of the head payload taken */
	unsigned int hdr_pays; /* headers taken whose payload the link may take now */

	/* the DMA stream: the bytes of its current packet, and the beat offered */
	bool sbeat_user; /* the beat offered's tuser */
	/* the translator's answer offered */
	/* the control */
	unsigned int gap, jobs, fail_delay;
	bool fail_seen;
	/* the link's rule: the previous cycle's outputs, to check they held */
	uint32_t last_hdr[HROCE_ROCE_HDR_WORDS], last_msg[TXM_WORDS];
	bool hdr_held, msg_held, rd_held, fail_held;
	uint64_t last_rd_addr, last_rd_len, last_fail_qpn;
	/* SENTs equal to the last message taken, counted as merged into it: each may still
	 * come on its own (it reached fifo_merge after the first had left for the output) */
	uint32_t dup_msg[TXM_WORDS];
	unsigned int dup_left;

	uint64_t last_progress;
	/* what the run did */
	unsigned int n_dma, n_inline, n_zero, n_msg_jobs, n_cont, n_drop, n_prot, n_len, n_merged,
		n_direct, n_poison, n_turns, n_resumed, n_checks;
	uint64_t pay_bytes;

	const struct vmodel_port *idle, *j_pkt, *j_hdr, *j_len, *j_inline, *j_off, *j_cont,
		*j_num_sge, *j_pd, *j_slot, *j_base, *j_index, *j_msg, *j_msg_valid, *j_valid,
		*job_count, *slot_busy, *sm_data, *sm_valid, *msg_count, *f_qpn, *f_valid, *f_ready;
	const struct vmodel_port *sge_addr, *sge_data, *inl_addr_0, *inl_hi_0, *inl_addr_1,
		*inl_lo_1;
	const struct vmodel_port *rq_addr, *rq_len, *rq_last, *rq_valid, *rq_ready, *rd_data,
		*rd_keep, *rd_valid, *rd_ready, *rd_last, *rd_user;
	const struct vmodel_port *mm_data, *mm_valid, *mm_ready, *hdr_data, *hdr_valid, *hdr_ready,
		*ax_data, *ax_keep, *ax_valid, *ax_ready, *ax_last, *ax_user;
};

#define FAIL(e, ...) bench_first_error((e)->err, sizeof((e)->err), __VA_ARGS__)

/* a new entry at the tail (zeroed), or NULL with the run failed */
static void *ring_add(struct env *e, struct bench_ring *r, const char *what)
{
	return bench_ring_add_or_fail(r, e->err, sizeof(e->err), what);
}

static void progress(struct env *e)
{
	e->last_progress = e->dut.cycle;
}

/* ---------------------------------------------------------------------------------------
 * WQEs
 */

static unsigned int wqe_bytes(const struct qp *p)
{
	return 64u << p->stride;
}

static void make_wqe(struct env *e, struct qp *p, struct wqe *w)
{
	struct bench *b = e->b;
	unsigned int bytes = wqe_bytes(p), max_sge = (4u << p->stride) - 2;
	unsigned int kind = (unsigned int)bench_range(b, 0, 99);
	uint64_t total = 0;

	memset(w, 0, sizeof(*w));
	bench_fill(b, w->img, sizeof(w->img));
	w->num_sge = (unsigned int)bench_range(b, 0, 255); /* what an inline WQE's says */
	if (kind < 15) {
		/* a READ request: no payload, its PSNs those of the response */
		w->is_read = true;
		w->len = (uint32_t)bench_range(b, 0, 20000);
		w->npkts = w->len ? (w->len - 1) / (1u << p->log_mtu) + 1 : 1;
		return;
	}
	if (kind < 35) {
		unsigned int most = bytes - 32 < HROCE_MAX_INLINE ? bytes - 32 : HROCE_MAX_INLINE;

		w->is_inline = true;
		w->len = (uint32_t)bench_range(b, 0, most);
		w->npkts = 1;
		return;
	}
	w->num_sge = (unsigned int)(bench_chance(b, 10) ? 0 : bench_range(b, 1, max_sge));
	for (unsigned int i = 0; i < w->num_sge; i++) {
		w->list[i] = walk_good_sge(b, e->mrs, p->pd, 0, 3000);
		total += w->list[i].len;
	}
	w->len = (uint32_t)(bench_chance(b, 60) ? total : bench_range(b, 0, total));
	if (w->len > 16384)
		w->len = (uint32_t)bench_range(b, 0, 16384);
	if (bench_chance(b, e->sc->bad_pct)) {
		if (bench_chance(b, 25) || !w->num_sge) {
			w->len = (uint32_t)(total + bench_range(b, 1, 3000));
		} else {
			unsigned int i = (unsigned int)bench_range(b, 0, w->num_sge - 1);

			w->list[i] = walk_bad_sge(b, e->mrs, p->pd, 0);
		}
	}
	for (unsigned int i = 0; i < w->num_sge; i++) {
		uint8_t *s = &w->img[HROCE_SQ_WQE_SGE_OFFSET + HROCE_SGE_BYTES * i];

		HROCE_SGE_SET(s, ADDR, w->list[i].addr);
		HROCE_SGE_SET(s, LENGTH, w->list[i].len);
		HROCE_SGE_SET(s, LKEY, w->list[i].key);
	}
	w->npkts = w->len ? (w->len - 1) / (1u << p->log_mtu) + 1 : 1;
}

static void setup_qps(struct env *e)
{
	struct bench *b = e->b;
	static const uint32_t qpns[MAX_QPS] = { 0x11,  0x2a5, 0x10011, 0xabcdef,
						0x400, 0x12,  0x7fff,  0x800001 };

	for (unsigned int q = 0; q < e->sc->qps; q++) {
		struct qp *p = &e->qp[q];

		memset(p, 0, sizeof(*p));
		p->qpn = qpns[q];
		p->pd = q % WALK_PDS;
		p->stride = (unsigned int)bench_range(b, 0, 3);
		p->log_mtu = (unsigned int)bench_range(b, 8, 12);
		p->gen = (unsigned int)bench_range(b, 0, 255);
		p->ci = (uint16_t)bench_rand(b);
		p->npsn = (uint32_t)bench_range(b, 0, 0xffffff);
	}
}

/* ---------------------------------------------------------------------------------------
 * The control: turns of the QPs, their jobs, and what each job must give
 */

static void txm_make(uint32_t *m, const struct qp *p, unsigned int kind, uint16_t ci, uint32_t npsn,
		     uint32_t pkt, uint32_t pi, unsigned int status)
{
	memset(m, 0, TXM_WORDS * 4);
	hroce_bus_set(m, REQ_TXM_QPN, p->qpn);
	hroce_bus_set(m, REQ_TXM_KIND, kind);
	hroce_bus_set(m, REQ_TXM_GEN, p->gen & 0xff);
	hroce_bus_set(m, REQ_TXM_CI, ci);
	hroce_bus_set(m, REQ_TXM_NPSN, npsn & 0xffffff);
	hroce_bus_set(m, REQ_TXM_PKT, pkt & 0xffffff);
	hroce_bus_set(m, REQ_TXM_PI, pi);
	hroce_bus_set(m, REQ_TXM_STATUS, status);
}

struct job {
	bool pkt, is_inline, cont, msg_valid;
	uint32_t hdr[HROCE_ROCE_HDR_WORDS];
	unsigned int len, num_sge, pd, slot, base;
	uint32_t off;
	uint16_t index;
	uint32_t msg[TXM_WORDS];
};

static void expect_msg(struct env *e, const uint32_t *m)
{
	struct msg_exp *x = ring_add(e, &e->msgs, "messages");

	if (x) {
		memcpy(x->w, m, sizeof(x->w));
		x->job = e->jobs;
	}
}

/* what the job pushed now must give, from the reference */
static void expect_job(struct env *e, struct qp *p, const struct job *j, const struct wqe *w)
{
	if (p->doomed) {
		/* the QP failed a packet before: dropped (the control has not seen the report) */
		e->n_drop++;
		return;
	}
	if (!j->pkt) {
		e->n_msg_jobs++;
		expect_msg(e, j->msg);
		return;
	}
	bool dma = j->len && !j->is_inline;

	if (dma) {
		struct walk *k = &e->w;

		memset(k, 0, sizeof(*k));
		k->sge = 0;
		k->off = j->off;
		k->len = j->len;
		k->num_sge = j->num_sge;
		k->pd = j->pd;
		k->access = 0;
		memcpy(k->list, w->list, sizeof(k->list));
		walk_reference(e->mrs, k);
		if (!walk_xlator_expect(&e->xl, k, e->jobs))
			FAIL(e, "bench FIFO of translation requests overflows");
		if (k->is_short || k->status != HROCE_MR_XLATE_OK) {
			uint32_t m[TXM_WORDS];
			struct fail_exp *f = ring_add(e, &e->fails, "failures");

			memcpy(m, j->msg, sizeof(m));
			hroce_bus_set(m, REQ_TXM_KIND, REQ_TXM_ERROR);
			hroce_bus_set(m, REQ_TXM_CI, j->index);
			hroce_bus_set(m, REQ_TXM_STATUS,
				      k->is_short ? HROCE_WC_STATUS_LOC_LEN_ERR
						  : HROCE_WC_STATUS_LOC_PROT_ERR);
			expect_msg(e, m);
			if (f)
				*f = (struct fail_exp){ p->qpn, e->jobs };
			p->doomed = true;
			if (k->is_short)
				e->n_len++;
			else
				e->n_prot++;
			return;
		}
		for (unsigned int i = 0; i < k->nchunk; i++) {
			struct chunk_exp *c = ring_add(e, &e->chunks, "DMA reads");

			if (c)
				*c = (struct chunk_exp){ k->chunk[i], e->jobs };
		}
	}
	struct hdr_exp *h = ring_add(e, &e->hdrs, "headers");

	if (h) {
		memcpy(h->w, j->hdr, sizeof(h->w));
		h->job = e->jobs;
		h->len = j->len;
	}
	if (j->len) {
		struct pay_exp *x = ring_add(e, &e->pays, "payloads");

		if (x) {
			x->job = e->jobs;
			x->len = j->len;
			x->dma = dma;
			if (dma) {
				unsigned int n = 0;

				for (unsigned int i = 0; i < e->w.nchunk; i++)
					for (unsigned int k = 0; k < e->w.chunk[i].len; k++)
						x->byte[n++] =
							pay_host_byte(e->w.chunk[i].iova + k);
			} else {
				memcpy(x->byte, &w->img[HROCE_SQ_WQE_SGE_OFFSET], j->len);
			}
		}
		e->pay_bytes += j->len;
	}
	if (j->is_inline)
		e->n_inline++;
	else if (j->len)
		e->n_dma++;
	else
		e->n_zero++;
	if (j->msg_valid)
		expect_msg(e, j->msg);
}

static void push_job(struct env *e, struct qp *p, const struct job *j, const struct wqe *w)
{
	if (vport_get(e->job_count) >= e->njobs) {
		FAIL(e, "bench: a job pushed into a full queue");
		return;
	}
	vport_set(e->j_pkt, j->pkt);
	vport_write(e->j_hdr, j->hdr, sizeof(j->hdr));
	vport_set(e->j_len, j->len);
	vport_set(e->j_inline, j->is_inline);
	vport_set(e->j_off, j->off);
	vport_set(e->j_cont, j->cont);
	vport_set(e->j_num_sge, j->num_sge);
	vport_set(e->j_pd, j->pd);
	vport_set(e->j_slot, j->slot);
	vport_set(e->j_base, j->base);
	vport_set(e->j_index, j->index);
	vport_write(e->j_msg, j->msg, sizeof(j->msg));
	vport_set(e->j_msg_valid, j->msg_valid);
	vport_set(e->j_valid, 1);
	expect_job(e, p, j, w);
	e->jobs++;
	progress(e);
}

/* the next packet of the turn's WQE */
static void push_packet(struct env *e)
{
	struct bench *b = e->b;
	struct turn *t = &e->t;
	struct qp *p = &e->qp[t->q];
	struct wqe *w = &p->w[t->at];
	uint16_t ci = (uint16_t)(p->ci + t->at);
	uint32_t mtu = 1u << p->log_mtu, off = p->pkt << p->log_mtu;
	struct job j = { .pkt = true,
			 .is_inline = w->is_inline,
			 .cont = !t->first,
			 .num_sge = w->num_sge,
			 .pd = p->pd,
			 .slot = t->slot,
			 .base = t->base[t->at],
			 .off = off,
			 .index = ci };
	/* (a READ request is one packet, whatever PSNs its responses take) */
	bool last = w->is_read || p->pkt + 1 >= w->npkts;

	if (w->is_read)
		j.len = 0;
	else
		j.len = w->len - off < mtu ? w->len - off : mtu;
	for (unsigned int i = 0; i < HROCE_ROCE_HDR_WORDS; i++)
		j.hdr[i] = (uint32_t)bench_rand(b);
	j.hdr[HROCE_ROCE_HDR_WORDS - 1] &= (1u << (HROCE_ROCE_HDR_BITS % 32)) - 1;
	if (last) {
		txm_make(j.msg, p, REQ_TXM_SENT, (uint16_t)(ci + 1), p->npsn + w->npkts, 0,
			 (uint16_t)bench_rand(b), 0);
		j.msg_valid = true;
	} else {
		/* what the control has on the message bus anyway; sent if an ACK is asked for */
		txm_make(j.msg, p, REQ_TXM_SENT, ci, p->npsn, p->pkt + 1, (uint16_t)bench_rand(b),
			 0);
		j.msg_valid = bench_chance(b, 30);
	}
	if (j.cont)
		e->n_cont++;
	push_job(e, p, &j, w);
	t->first = false;
	if (last) {
		/* the WQE is sent: the QP's ring moves on */
		p->npsn += w->npkts;
		p->pkt = 0;
		t->at++;
		t->first = true;
	} else {
		p->pkt++;
	}
}

/* the turn ends: a SENT alone says how far a WQE went that it left part of the way */
static void end_turn(struct env *e, bool with_msg)
{
	struct turn *t = &e->t;
	struct qp *p = &e->qp[t->q];

	if (with_msg && p->pkt) {
		struct job j = { .pkt = false,
				 .slot = t->slot,
				 .index = (uint16_t)(p->ci + t->at) };

		txm_make(j.msg, p, REQ_TXM_SENT, (uint16_t)(p->ci + t->at), p->npsn, p->pkt,
			 (uint16_t)bench_rand(e->b), 0);
		j.msg_valid = true;
		for (unsigned int i = 0; i < HROCE_ROCE_HDR_WORDS; i++)
			j.hdr[i] = (uint32_t)bench_rand(e->b);
		j.hdr[HROCE_ROCE_HDR_WORDS - 1] &= (1u << (HROCE_ROCE_HDR_BITS % 32)) - 1;
		push_job(e, p, &j, NULL);
	}
	/* the WQEs sent leave the QP's list */
	p->ci = (uint16_t)(p->ci + t->at);
	memmove(&p->w[0], &p->w[t->at], sizeof(p->w[0]) * (p->nw - t->at));
	p->nw -= t->at;
	t->active = false;
}

/* a turn of a QP: its next WQEs into a window slot no held job reads */
static void start_turn(struct env *e, uint32_t busy)
{
	struct bench *b = e->b;
	unsigned int free_slots[MAX_SLOTS], nfree = 0, alive[MAX_QPS], nalive = 0;

	for (unsigned int s = 0; s < e->nslots; s++)
		if (!(busy >> s & 1))
			free_slots[nfree++] = s;
	for (unsigned int q = 0; q < e->sc->qps; q++)
		if (!e->qp[q].dead)
			alive[nalive++] = q;
	if (!nfree || !nalive)
		return;

	struct turn *t = &e->t;
	struct qp *p = &e->qp[alive[bench_range(b, 0, nalive - 1)]];
	unsigned int per = SLOT_BEATS >> p->stride;
	unsigned int k0 = (unsigned int)bench_range(b, 0, per - 1);

	memset(t, 0, sizeof(*t));
	t->active = true;
	t->q = (unsigned int)(p - e->qp);
	t->slot = free_slots[bench_range(b, 0, nfree - 1)];
	t->nw = (unsigned int)bench_range(b, 1, per - k0);
	t->first = true;
	if (p->pkt)
		e->n_resumed++;
	for (unsigned int i = 0; i < t->nw; i++) {
		if (i >= p->nw)
			make_wqe(e, p, &p->w[p->nw++]);
		t->base[i] = (k0 + i) << p->stride;
		memcpy(e->mem[t->slot][t->base[i]], p->w[i].img, wqe_bytes(p));
	}
	e->n_turns++;
}

/* the report of a failed QP, the first cycle the control sees it */
static void fail_report(struct env *e, uint32_t qpn)
{
	struct fail_exp *f = bench_ring_at(&e->fails, 0);
	struct qp *p = NULL;

	for (unsigned int q = 0; q < e->sc->qps; q++)
		if (e->qp[q].qpn == qpn)
			p = &e->qp[q];
	if (!f || f->qpn != qpn || !p) {
		FAIL(e, "m_fail reports QP 0x%x, want %s 0x%x (job %u)", qpn, f ? "QP" : "none",
		     f ? f->qpn : 0, f ? f->job : 0);
		return;
	}
	bench_ring_pop(&e->fails);
	e->n_checks++;
	p->doomed = false;
	p->dead = true;
	if (e->t.active && &e->qp[e->t.q] == p)
		end_turn(e, false);
	progress(e);
}

/* the control takes the report: the QP is in error, and is created again later */
static void fail_taken(struct env *e, uint32_t qpn)
{
	struct bench *b = e->b;

	for (unsigned int q = 0; q < e->sc->qps; q++) {
		struct qp *p = &e->qp[q];

		if (p->qpn != qpn)
			continue;
		p->flush_due = bench_chance(b, 50);
		p->taken = true;
		p->reborn_at = e->dut.cycle + bench_range(b, 0, 300);
	}
}

static void reborn(struct env *e)
{
	for (unsigned int q = 0; q < e->sc->qps; q++) {
		struct qp *p = &e->qp[q];

		if (!p->dead || !p->taken || p->reborn_at > e->dut.cycle)
			continue;
		/* its WQEs are gone with it; the new one starts with a new generation */
		p->dead = false;
		p->taken = false;
		p->nw = 0;
		p->pkt = 0;
		p->ci = (uint16_t)(p->ci + 1);
		p->gen = (p->gen + 1) & 0xff;
	}
}

static void control(struct env *e)
{
	struct bench *b = e->b;
	struct turn *t = &e->t;
	unsigned int count = (unsigned int)vport_get(e->job_count);
	uint32_t busy = (uint32_t)vport_get(e->slot_busy);

	vport_set(e->j_valid, 0);
	vport_set(e->sm_valid, 0);

	/* slots nobody may read are scribbled over: a read of one gives wrong bytes */
	if (bench_chance(b, 10)) {
		unsigned int s = (unsigned int)bench_range(b, 0, e->nslots - 1);

		if (!(busy >> s & 1) && !(t->active && t->slot == s)) {
			bench_fill(b, e->mem[s], sizeof(e->mem[s]));
			e->n_poison++;
		}
	}

	/* a direct FLUSH (a QP in error) or ERROR (a WQE the control failed) */
	if (e->jobs < e->sc->jobs && vport_get(e->msg_count) < MSG_ROOM) {
		struct qp *p = &e->qp[bench_range(b, 0, e->sc->qps - 1)];

		if (p->flush_due || bench_chance(b, e->sc->direct_pct)) {
			struct msg_exp *x = ring_add(e, &e->dmsgs, "direct messages");
			bool flush = p->flush_due || bench_chance(b, 50);

			if (x) {
				txm_make(x->w, p, flush ? REQ_TXM_FLUSH : REQ_TXM_ERROR,
					 (uint16_t)bench_rand(b), (uint32_t)bench_rand(b),
					 (uint32_t)bench_rand(b), (uint16_t)bench_rand(b),
					 flush ? 0 : HROCE_WC_STATUS_LOC_QP_OP_ERR);
				x->job = e->jobs;
				vport_write(e->sm_data, x->w, sizeof(x->w));
				vport_set(e->sm_valid, 1);
				e->n_direct++;
			}
			p->flush_due = false;
		}
	}

	reborn(e);
	if (e->gap) {
		e->gap--;
		return;
	}
	if (bench_chance(b, e->sc->gap_pct)) {
		e->gap = (unsigned int)bench_range(b, 0, e->sc->gap_max);
		return;
	}
	if (!t->active) {
		if (e->jobs < e->sc->jobs && count < e->njobs - 1)
			start_turn(e, busy);
		return;
	}
	if (t->at == t->nw) {
		end_turn(e, false);
	} else if (count >= e->njobs - 1) {
		/* no room for a packet and a SENT after it: give way */
		end_turn(e, true);
	} else if (t->first && t->at && (e->jobs >= e->sc->jobs || bench_chance(b, 10))) {
		/* the turn ends between WQEs */
		end_turn(e, false);
	} else {
		push_packet(e);
	}
}

/* ---------------------------------------------------------------------------------------
 * The WQE read ports, the translator, the DMA reader
 */

static void wqe_answer(struct env *e)
{
	unsigned int a = (unsigned int)vport_get(e->sge_addr);
	unsigned int a0 = (unsigned int)vport_get(e->inl_addr_0);
	unsigned int a1 = (unsigned int)vport_get(e->inl_addr_1);

	vport_write(e->sge_data, e->mem[(a >> 3) % e->nslots][a & 7], BEAT);
	vport_write(e->inl_hi_0, &e->mem[(a0 >> 3) % e->nslots][a0 & 7][32], 32);
	vport_write(e->inl_lo_1, &e->mem[(a1 >> 3) % e->nslots][a1 & 7][0], 32);
}

/* the read ports are combinational: answer the addresses the model settles on */
static void wqe_settle(struct env *e)
{
	for (unsigned int i = 0; i < 8; i++) {
		uint64_t a = vport_get(e->sge_addr), a0 = vport_get(e->inl_addr_0),
			 a1 = vport_get(e->inl_addr_1);

		wqe_answer(e);
		e->dut.vm.ops->eval(e->dut.vm.model);
		if (vport_get(e->sge_addr) == a && vport_get(e->inl_addr_0) == a0 &&
		    vport_get(e->inl_addr_1) == a1)
			return;
	}
	FAIL(e, "the WQE read addresses do not settle");
}

static void dma_drive(struct env *e)
{
	struct bench *b = e->b;

	vport_set(e->rq_ready, bench_chance(b, e->sc->ready_pct));
	if (pay_stream_offer(&e->ps, b, e->dut.cycle, e->sc->ready_pct))
		e->sbeat_user = bench_chance(b, 2);

	uint8_t data[BEAT];
	uint64_t keep;
	bool last;

	pay_stream_beat(&e->ps, b, data, &keep, &last);
	vport_write(e->rd_data, data, sizeof(data));
	vport_set(e->rd_keep, keep);
	vport_set(e->rd_last, last);
	vport_set(e->rd_user, e->ps.beat_valid ? e->sbeat_user : bench_rand(b) & 1);
	vport_set(e->rd_valid, e->ps.beat_valid);
}

static void drive(void *ctx)
{
	struct env *e = ctx;
	struct bench *b = e->b;
	const struct scenario *sc = e->sc;

	/* the control sees a failure report (m_fail is a register: valid at once) */
	if (vport_get(e->f_valid) && !e->fail_seen) {
		e->fail_seen = true;
		e->fail_delay = (unsigned int)bench_range(b, 0, sc->fail_delay_max);
		fail_report(e, (uint32_t)vport_get(e->f_qpn));
	}
	control(e);
	if (e->fail_delay)
		e->fail_delay--;
	vport_set(e->f_ready, e->fail_seen && !e->fail_delay);
	walk_xlator_drive(&e->xl, e->dut.cycle, sc->ready_pct);
	dma_drive(e);
	vport_set(e->hdr_ready, bench_chance(b, sc->ready_pct));
	vport_set(e->ax_ready, e->hdr_pays && bench_chance(b, sc->ready_pct));
	vport_set(e->mm_ready, bench_chance(b, sc->msg_ready_pct));
	wqe_answer(e);
}

/* ---------------------------------------------------------------------------------------
 * The checks of what comes out
 */

static void check_hdr(struct env *e)
{
	uint32_t h[HROCE_ROCE_HDR_WORDS];
	struct hdr_exp *x = bench_ring_at(&e->hdrs, 0);

	vport_read(e->hdr_data, h, sizeof(h));
	if (!x) {
		FAIL(e, "a header out that no job gave (word 0 0x%08x)", h[0]);
		return;
	}
	for (unsigned int i = 0; i < HROCE_ROCE_HDR_WORDS; i++)
		if (h[i] != x->w[i]) {
			FAIL(e, "job %u: header word %u is 0x%08x, want 0x%08x", x->job, i, h[i],
			     x->w[i]);
			return;
		}
	if (x->len)
		e->hdr_pays++;
	bench_ring_pop(&e->hdrs);
	e->n_checks++;
}

static void check_beat(struct env *e)
{
	struct pay_exp *x = bench_ring_at(&e->pays, 0);
	uint8_t d[BEAT];
	uint64_t keep = vport_get(e->ax_keep);
	bool last = vport_get(e->ax_last) != 0, user = vport_get(e->ax_user) != 0;

	vport_read(e->ax_data, d, sizeof(d));
	if (!x || !e->hdr_pays) {
		FAIL(e, "a payload beat out before its header (%s)",
		     x ? "a payload expected" : "none expected");
		return;
	}
	unsigned int n = x->len - e->pay_pos < BEAT ? x->len - e->pay_pos : BEAT;
	uint64_t want_keep = n == BEAT ? UINT64_MAX : (1ull << n) - 1;
	bool want_last = e->pay_pos + n == x->len;

	if (keep != want_keep || last != want_last) {
		FAIL(e,
		     "job %u: payload beat at byte %u of %u: tkeep 0x%016llx tlast %u, want "
		     "0x%016llx %u",
		     x->job, e->pay_pos, x->len, (unsigned long long)keep, last,
		     (unsigned long long)want_keep, want_last);
		return;
	}
	for (unsigned int i = 0; i < n; i++)
		if (d[i] != x->byte[e->pay_pos + i]) {
			FAIL(e, "job %u (%s): payload byte %u of %u is 0x%02x, want 0x%02x", x->job,
			     x->dma ? "DMA" : "inline", e->pay_pos + i, x->len, d[i],
			     x->byte[e->pay_pos + i]);
			return;
		}
	if (x->dma) {
		bool *u = bench_ring_at(&e->tusers, 0);

		if (!u) {
			FAIL(e, "job %u: a DMA payload beat out that the DMA stream did not give",
			     x->job);
			return;
		}
		if (user != *u)
			FAIL(e, "job %u: payload beat at byte %u: tuser %u, the DMA stream's %u",
			     x->job, e->pay_pos, user, *u);
		bench_ring_pop(&e->tusers);
	} else if (user) {
		FAIL(e, "job %u: inline payload beat with tuser", x->job);
	}
	e->pay_pos += n;
	if (last) {
		bench_ring_pop(&e->pays);
		e->pay_pos = 0;
		e->hdr_pays--;
		e->n_checks++;
	}
}

static void check_msg(struct env *e)
{
	uint32_t m[TXM_WORDS];
	struct msg_exp *d = bench_ring_at(&e->dmsgs, 0);

	vport_read(e->mm_data, m, sizeof(m));
	if (d && !memcmp(m, d->w, sizeof(m))) {
		bench_ring_pop(&e->dmsgs);
		e->n_checks++;
		return;
	}
	if (e->dup_left && !memcmp(m, e->dup_msg, sizeof(m))) {
		e->dup_left--;
		e->n_merged--;
		e->n_checks++;
		return;
	}
	/* in job order; a SENT may have been replaced by the next, a SENT of its key */
	for (unsigned int i = 0;; i++) {
		struct msg_exp *x = bench_ring_at(&e->msgs, i),
			       *next = bench_ring_at(&e->msgs, i + 1);

		if (!x)
			break;
		if (!memcmp(m, x->w, sizeof(m))) {
			e->n_merged += i;
			for (unsigned int k = 0; k <= i; k++)
				bench_ring_pop(&e->msgs);
			/* the SENTs after it that say the same (a packet's, then the one that
			 * ends the turn) are merged into it or come next: either is right */
			e->dup_left = 0;
			memcpy(e->dup_msg, m, sizeof(m));
			while (hroce_bus_get(m, REQ_TXM_KIND) == REQ_TXM_SENT &&
			       (x = bench_ring_at(&e->msgs, 0)) && !memcmp(m, x->w, sizeof(m))) {
				bench_ring_pop(&e->msgs);
				e->dup_left++;
				e->n_merged++;
			}
			e->n_checks++;
			return;
		}
		if (!next || hroce_bus_get(x->w, REQ_TXM_KIND) != REQ_TXM_SENT ||
		    hroce_bus_get(x->w, 0, REQ_TXM_KEY_WIDTH) !=
			    hroce_bus_get(next->w, 0, REQ_TXM_KEY_WIDTH))
			break;
	}
	struct msg_exp *x = bench_ring_at(&e->msgs, 0);

	if (!x)
		FAIL(e, "a message out that none gave: QP 0x%x kind %u CI %u",
		     (unsigned int)hroce_bus_get(m, REQ_TXM_QPN),
		     (unsigned int)hroce_bus_get(m, REQ_TXM_KIND),
		     (unsigned int)hroce_bus_get(m, REQ_TXM_CI));
	else
		FAIL(e,
		     "message QP 0x%x kind %u gen %u CI %u NPSN %u PKT %u PI %u status %u; want "
		     "(job %u) QP 0x%x kind %u gen %u CI %u NPSN %u PKT %u PI %u status %u%s",
		     (unsigned int)hroce_bus_get(m, REQ_TXM_QPN),
		     (unsigned int)hroce_bus_get(m, REQ_TXM_KIND),
		     (unsigned int)hroce_bus_get(m, REQ_TXM_GEN),
		     (unsigned int)hroce_bus_get(m, REQ_TXM_CI),
		     (unsigned int)hroce_bus_get(m, REQ_TXM_NPSN),
		     (unsigned int)hroce_bus_get(m, REQ_TXM_PKT),
		     (unsigned int)hroce_bus_get(m, REQ_TXM_PI),
		     (unsigned int)hroce_bus_get(m, REQ_TXM_STATUS), x->job,
		     (unsigned int)hroce_bus_get(x->w, REQ_TXM_QPN),
		     (unsigned int)hroce_bus_get(x->w, REQ_TXM_KIND),
		     (unsigned int)hroce_bus_get(x->w, REQ_TXM_GEN),
		     (unsigned int)hroce_bus_get(x->w, REQ_TXM_CI),
		     (unsigned int)hroce_bus_get(x->w, REQ_TXM_NPSN),
		     (unsigned int)hroce_bus_get(x->w, REQ_TXM_PKT),
		     (unsigned int)hroce_bus_get(x->w, REQ_TXM_PI),
		     (unsigned int)hroce_bus_get(x->w, REQ_TXM_STATUS),
		     d ? ", or a direct message" : "");
}

static void check_rd_req(struct env *e)
{
	struct chunk got = { vport_get(e->rq_addr), (unsigned int)vport_get(e->rq_len),
			     vport_get(e->rq_last) != 0 };
	struct chunk_exp *x = bench_ring_at(&e->chunks, 0);

	if (!x) {
		FAIL(e, "a DMA read that no packet makes: 0x%llx len %u",
		     (unsigned long long)got.iova, got.len);
		return;
	}
	if (got.iova != x->c.iova || got.len != x->c.len || got.last != x->c.last) {
		FAIL(e, "job %u: DMA read 0x%llx len %u last %u, want 0x%llx %u %u", x->job,
		     (unsigned long long)got.iova, got.len, got.last, (unsigned long long)x->c.iova,
		     x->c.len, x->c.last);
		return;
	}
	bench_ring_pop(&e->chunks);
	e->n_checks++;
	struct pay_req *r = ring_add(e, &e->ps.reqs, "DMA requests in flight");

	if (r)
		*r = (struct pay_req){ got.iova,
				       e->dut.cycle + bench_range(e->b, 1, e->sc->dma_lat_max),
				       got.len, got.last };
}

/* an output offered and not taken holds, the same, to the next cycle */
static void check_held(struct env *e)
{
	uint32_t h[HROCE_ROCE_HDR_WORDS], m[TXM_WORDS];

	vport_read(e->hdr_data, h, sizeof(h));
	vport_read(e->mm_data, m, sizeof(m));
	if (e->hdr_held && (!vport_get(e->hdr_valid) || memcmp(h, e->last_hdr, sizeof(h))))
		FAIL(e, "m_hdr dropped or changed before it was taken");
	if (e->msg_held && (!vport_get(e->mm_valid) || memcmp(m, e->last_msg, sizeof(m))))
		FAIL(e, "m_msg dropped or changed before it was taken");
	if (e->rd_held && (!vport_get(e->rq_valid) || vport_get(e->rq_addr) != e->last_rd_addr ||
			   vport_get(e->rq_len) != e->last_rd_len))
		FAIL(e, "m_pay_rd_req dropped or changed before it was taken");
	if (e->fail_held && (!vport_get(e->f_valid) || vport_get(e->f_qpn) != e->last_fail_qpn))
		FAIL(e, "m_fail dropped or changed before it was taken");
	e->hdr_held = vport_get(e->hdr_valid) && !vport_get(e->hdr_ready);
	e->msg_held = vport_get(e->mm_valid) && !vport_get(e->mm_ready);
	e->rd_held = vport_get(e->rq_valid) && !vport_get(e->rq_ready);
	e->fail_held = vport_get(e->f_valid) && !vport_get(e->f_ready);
	memcpy(e->last_hdr, h, sizeof(h));
	memcpy(e->last_msg, m, sizeof(m));
	e->last_rd_addr = vport_get(e->rq_addr);
	e->last_rd_len = vport_get(e->rq_len);
	e->last_fail_qpn = vport_get(e->f_qpn);
}

static void sample(void *ctx)
{
	struct env *e = ctx;

	wqe_settle(e);
	check_held(e);
	if (vport_get(e->idle) &&
	    (vport_get(e->job_count) || vport_get(e->mm_valid) || vport_get(e->f_valid)))
		FAIL(e, "idle with %u jobs held, m_msg_valid %u, m_fail_valid %u",
		     (unsigned int)vport_get(e->job_count), (unsigned int)vport_get(e->mm_valid),
		     (unsigned int)vport_get(e->f_valid));
	/* (a DMA beat taken is the payload beat out the same cycle or later) */
	if (vport_get(e->rd_valid) && vport_get(e->rd_ready)) {
		bool *u = ring_add(e, &e->tusers, "DMA beats");

		if (u)
			*u = e->sbeat_user;
		pay_stream_taken(&e->ps);
		progress(e);
	}
	if (vport_get(e->hdr_valid) && vport_get(e->hdr_ready)) {
		check_hdr(e);
		progress(e);
	}
	if (vport_get(e->ax_valid) && vport_get(e->ax_ready)) {
		check_beat(e);
		progress(e);
	}
	if (vport_get(e->mm_valid) && vport_get(e->mm_ready)) {
		check_msg(e);
		progress(e);
	}
	/* the translator: a request checked and answered, an answer taken */
	struct walk_ans taken;
	unsigned int moved = walk_xlator_sample(&e->xl, e->dut.cycle, e->sc->mr_lat_max, &taken,
						e->err, sizeof(e->err));

	if (moved & WALK_XLATOR_REQ)
		e->n_checks++;
	if (moved)
		progress(e);
	if (vport_get(e->rq_valid) && vport_get(e->rq_ready)) {
		check_rd_req(e);
		progress(e);
	}
	if (vport_get(e->f_valid) && vport_get(e->f_ready)) {
		fail_taken(e, (uint32_t)vport_get(e->f_qpn));
		e->fail_seen = false;
		progress(e);
	}
	if (vport_get(e->sm_valid))
		progress(e);
}

/* ---------------------------------------------------------------------------------------
 * Runs
 */

static void open_ports(struct env *e)
{
	static const struct dut_port_ref ports[] = {
#define P(field, name) DUT_PORT(struct env, field, name)
		P(idle, "idle"),
		P(j_pkt, "s_job_pkt"),
		P(j_hdr, "s_job_hdr"),
		P(j_len, "s_job_len"),
		P(j_inline, "s_job_inline"),
		P(j_off, "s_job_off"),
		P(j_cont, "s_job_cont"),
		P(j_num_sge, "s_job_num_sge"),
		P(j_pd, "s_job_pd"),
		P(j_slot, "s_job_slot"),
		P(j_base, "s_job_base"),
		P(j_index, "s_job_index"),
		P(j_msg, "s_job_msg"),
		P(j_msg_valid, "s_job_msg_valid"),
		P(j_valid, "s_job_valid"),
		P(job_count, "job_count"),
		P(slot_busy, "slot_busy"),
		P(sm_data, "s_msg_data"),
		P(sm_valid, "s_msg_valid"),
		P(msg_count, "msg_count"),
		P(f_qpn, "m_fail_qpn"),
		P(f_valid, "m_fail_valid"),
		P(f_ready, "m_fail_ready"),
		P(sge_addr, "wqe_sge_addr"),
		P(sge_data, "wqe_sge_data"),
		P(inl_addr_0, "wqe_inl_addr_0"),
		P(inl_hi_0, "wqe_inl_hi_0"),
		P(inl_addr_1, "wqe_inl_addr_1"),
		P(inl_lo_1, "wqe_inl_lo_1"),
		P(rq_addr, "m_pay_rd_req_addr"),
		P(rq_len, "m_pay_rd_req_len"),
		P(rq_last, "m_pay_rd_req_last"),
		P(rq_valid, "m_pay_rd_req_valid"),
		P(rq_ready, "m_pay_rd_req_ready"),
		P(rd_data, "s_pay_rd_axis_tdata"),
		P(rd_keep, "s_pay_rd_axis_tkeep"),
		P(rd_valid, "s_pay_rd_axis_tvalid"),
		P(rd_ready, "s_pay_rd_axis_tready"),
		P(rd_last, "s_pay_rd_axis_tlast"),
		P(rd_user, "s_pay_rd_axis_tuser"),
		P(mm_data, "m_msg_data"),
		P(mm_valid, "m_msg_valid"),
		P(mm_ready, "m_msg_ready"),
		P(hdr_data, "m_hdr_data"),
		P(hdr_valid, "m_hdr_valid"),
		P(hdr_ready, "m_hdr_ready"),
		P(ax_data, "m_axis_tdata"),
		P(ax_keep, "m_axis_tkeep"),
		P(ax_valid, "m_axis_tvalid"),
		P(ax_ready, "m_axis_tready"),
		P(ax_last, "m_axis_tlast"),
		P(ax_user, "m_axis_tuser"),
#undef P
	};

	dut_ports(&e->dut, e, ports, sizeof(ports) / sizeof(ports[0]));
}

static bool all_out(struct env *e)
{
	return e->jobs >= e->sc->jobs && !e->t.active && !e->hdrs.n && !e->pays.n && !e->msgs.n &&
	       !e->dmsgs.n && !e->chunks.n && !e->xl.want.n && !e->fails.n &&
	       pay_stream_empty(&e->ps) && !e->xl.ans.n && !e->tusers.n &&
	       !vport_get(e->job_count) && !vport_get(e->f_valid) && !vport_get(e->sm_valid);
}

static void hang_report(struct env *e)
{
	struct hdr_exp *h = bench_ring_at(&e->hdrs, 0);
	struct msg_exp *m = bench_ring_at(&e->msgs, 0);
	struct chunk_exp *c = bench_ring_at(&e->chunks, 0);
	const struct walk_xreq_exp *x = bench_ring_at(&e->xl.want, 0);

	FAIL(e,
	     "no progress for %u cycles (cycle %llu): %u jobs held, msg_count %u, idle %u; "
	     "still expected: %u headers (job %d), %u payloads (%u bytes of the first taken), "
	     "%u messages (job %d), %u direct messages, %u translation requests (job %d), %u "
	     "DMA reads (job %d), %u failure reports; %u DMA requests unanswered, %u "
	     "translation beats",
	     HANG_CYCLES, (unsigned long long)e->dut.cycle, (unsigned int)vport_get(e->job_count),
	     (unsigned int)vport_get(e->msg_count), (unsigned int)vport_get(e->idle), e->hdrs.n,
	     h ? (int)h->job : -1, e->pays.n, e->pay_pos, e->msgs.n, m ? (int)m->job : -1,
	     e->dmsgs.n, e->xl.want.n, x ? (int)x->job : -1, e->chunks.n, c ? (int)c->job : -1,
	     e->fails.n, e->ps.reqs.n, e->xl.ans.n);
}

/* a scenario on a model; tag names the model in the result (empty: the core's size) */
static void run(struct bench *b, const struct scenario *sc, const struct vmodel_ops *ops,
		const char *tag)
{
	char name[96];
	static struct env env;
	struct env *e = &env;
	struct scenario s = *sc;

	if (b->quick)
		s.jobs /= 4;
	snprintf(name, sizeof(name), "%s%s", sc->name, tag);
	s.name = name;
	memset(e, 0, sizeof(*e));
	e->b = b;
	e->sc = &s;
	bench_ring_init(&e->hdrs, sizeof(struct hdr_exp), RING);
	bench_ring_init(&e->pays, sizeof(struct pay_exp), PAY_RING);
	bench_ring_init(&e->msgs, sizeof(struct msg_exp), RING);
	bench_ring_init(&e->dmsgs, sizeof(struct msg_exp), RING);
	bench_ring_init(&e->chunks, sizeof(struct chunk_exp), RING);
	bench_ring_init(&e->fails, sizeof(struct fail_exp), RING);
	pay_stream_init(&e->ps, RING);
	bench_ring_init(&e->tusers, sizeof(bool), RING);
	walk_make_mrs(b, e->mrs);
	setup_qps(e);
	bench_fill(b, e->mem, sizeof(e->mem));
	dut_open(&e->dut, b, ops);
	open_ports(e);
	walk_xlator_open(&e->xl, &e->dut, e->mrs, RING);
	e->njobs = 1u << (e->job_count->width - 1);
	e->nslots = e->slot_busy->width;
	if (e->nslots > MAX_SLOTS || e->njobs < 2) {
		fprintf(stderr,
			"test_req_build: %s has %u slots, %u jobs: 1..%u slots, 2 jobs or more\n",
			ops->name, e->nslots, e->njobs, MAX_SLOTS);
		exit(2);
	}
	dut_reset(&e->dut, 4);
	dut_add_agent(&e->dut, drive, sample, e);
	progress(e);
	unsigned int quiet = 0;

	while (!e->err[0] && quiet < 100) {
		dut_step(&e->dut);
		quiet = all_out(e) ? quiet + 1 : 0;
		if (e->dut.cycle - e->last_progress > HANG_CYCLES)
			hang_report(e);
	}
	if (!e->err[0] && !vport_get(e->idle))
		FAIL(e, "everything out, and the stage is not idle");
	if (!e->err[0] &&
	    (vport_get(e->hdr_valid) || vport_get(e->ax_valid) || vport_get(e->mm_valid) ||
	     vport_get(e->xl.req_valid) || vport_get(e->rq_valid) || vport_get(e->slot_busy)))
		FAIL(e,
		     "everything out, and still: m_hdr %u m_axis %u m_msg %u m_mr_req %u "
		     "m_pay_rd_req %u slot_busy 0x%x",
		     (unsigned int)vport_get(e->hdr_valid), (unsigned int)vport_get(e->ax_valid),
		     (unsigned int)vport_get(e->mm_valid), (unsigned int)vport_get(e->xl.req_valid),
		     (unsigned int)vport_get(e->rq_valid), (unsigned int)vport_get(e->slot_busy));
	bench_log(b,
		  "%s: %u jobs in %llu cycles: %u DMA packets (%u continued, %llu bytes in all), "
		  "%u inline, %u empty, %u SENTs alone, %u turns (%u resumed); %u failed (%u "
		  "LOC_PROT_ERR, %u LOC_LEN_ERR), %u dropped; %u direct messages, %u SENTs "
		  "replaced, %u slots scribbled; %u checks",
		  s.name, e->jobs, (unsigned long long)e->dut.cycle, e->n_dma, e->n_cont,
		  (unsigned long long)e->pay_bytes, e->n_inline, e->n_zero, e->n_msg_jobs,
		  e->n_turns, e->n_resumed, e->n_prot + e->n_len, e->n_prot, e->n_len, e->n_drop,
		  e->n_direct, e->n_merged, e->n_poison, e->n_checks);
	if (!e->err[0] && (!e->n_dma || !e->n_inline || !e->n_zero || !e->n_msg_jobs ||
			   !e->n_cont || !e->n_resumed))
		FAIL(e, "a kind of job never came: the stimulus is too thin");
	if (!e->err[0] && s.bad_pct && (!e->n_prot || !e->n_len || !e->n_drop))
		FAIL(e, "a run with violations and no LOC_PROT_ERR, LOC_LEN_ERR or drop");
	if (!e->err[0] && !s.bad_pct && e->n_prot + e->n_len)
		FAIL(e, "a run without violations failed a walk");
	bench_result(b, s.name, !e->err[0], "%s", e->err);
	dut_close(&e->dut);
	bench_ring_free(&e->hdrs);
	bench_ring_free(&e->pays);
	bench_ring_free(&e->msgs);
	bench_ring_free(&e->dmsgs);
	bench_ring_free(&e->chunks);
	bench_ring_free(&e->fails);
	pay_stream_free(&e->ps);
	walk_xlator_close(&e->xl);
	bench_ring_free(&e->tusers);
}

int main(int argc, char **argv)
{
	static const struct scenario scenarios[] = {
		{ .name = "req_build_clean",
		  .qps = 8,
		  .jobs = 20000,
		  .ready_pct = 70,
		  .msg_ready_pct = 70,
		  .dma_lat_max = 20,
		  .mr_lat_max = 6,
		  .fail_delay_max = 10,
		  .direct_pct = 2 },
		{ .name = "req_build_violations",
		  .qps = 8,
		  .jobs = 20000,
		  .bad_pct = 20,
		  .ready_pct = 70,
		  .msg_ready_pct = 70,
		  .dma_lat_max = 20,
		  .mr_lat_max = 6,
		  .fail_delay_max = 30,
		  .direct_pct = 2 },
		{ .name = "req_build_backpressure",
		  .qps = 8,
		  .jobs = 10000,
		  .bad_pct = 10,
		  .ready_pct = 20,
		  .msg_ready_pct = 20,
		  .dma_lat_max = 200,
		  .mr_lat_max = 40,
		  .fail_delay_max = 200,
		  .direct_pct = 1 },
		{ .name = "req_build_gaps",
		  .qps = 8,
		  .jobs = 15000,
		  .bad_pct = 10,
		  .ready_pct = 90,
		  .msg_ready_pct = 90,
		  .dma_lat_max = 10,
		  .mr_lat_max = 3,
		  .gap_pct = 30,
		  .gap_max = 40,
		  .fail_delay_max = 20,
		  .direct_pct = 1 },
		/* req_ack slow and few QPs: SENTs wait, and newer ones of their QP replace them */
		{ .name = "req_build_slow_req_ack",
		  .qps = 2,
		  .jobs = 10000,
		  .bad_pct = 5,
		  .ready_pct = 90,
		  .msg_ready_pct = 8,
		  .dma_lat_max = 10,
		  .mr_lat_max = 3,
		  .fail_delay_max = 20,
		  .direct_pct = 1 },
	};
	struct bench b;

	bench_init(&b, "test_req_build", argc, argv);
	for (unsigned int i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		run(&b, &scenarios[i], &vmodel_Vreq_build, "");
	/* two slots, four packets to the link, eight jobs: every turn waits for a slot */
	for (unsigned int i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		if (scenarios[i].bad_pct)
			run(&b, &scenarios[i], &vmodel_Vreq_build_tiny, "_tiny");
	return bench_finish(&b);
}
