// SPDX-License-Identifier: MIT
/*
 * Bench of resp_place, the responder's placement stage, alone.
 *
 * The bench is everything around it: a C resp_engine control that takes the requests of
 * several QPs in order and gives each one with payload as a job, as resp_engine does: a
 * WRITE packet is a job of its remote range (REMOTE_WRITE), a SEND packet a list job (the
 * RECV WQE's SGEs from the message's offset, LOCAL_WRITE, read through sge_ref and
 * sge_index from a list the control keeps by reference until list_pop), each pushed only
 * while job_count < JOBS and fault_room; a request the control drops is a drop job. Idle
 * gaps between requests. Before some requests the control checks a range on the shared
 * translator as resp_engine does: it raises xl_hold, waits for xl_busy low, sends its own
 * request and takes its answer, then lets go. The control pops faults after random delays
 * and asks, every cycle, whether two QPs (random ones) have a fault waiting.
 *
 * Around it: the list jobs' SGE lists (read combinationally at sge_ref and sge_index;
 * garbage in the fields a job's kind does not use); the MR translator (walk_model.c's
 * mr_translate, answering late and in bursts, with keys, PDs, rights, bounds and table
 * entries that fail in the runs with violations); the payload stream (the payload of every
 * request that has one, queued as soon as the control knows the request, offered with
 * gaps); and a DMA writer into a host memory model, which takes write requests and data
 * with back-pressure, pairs them (a request's bytes from one packet, of its own job), and
 * answers every request in order once its bytes are written, after a random delay, now and
 * then with an error (a write the host refused).
 *
 * A C reference, checked in order and never by cycle: the translation requests are the
 * walk_model reference's walks of the jobs not dropped; the write requests and the bytes
 * written are the chunks and payloads of the jobs committed, and the host memory at the end
 * is the reference's (nothing written outside them, nothing of a failed or dropped job);
 * every payload in the stream is consumed. The faults: the bench keeps
 * resp_place's table from what it saw (a walk's fault goes in as its job retires, a refused
 * packet's at its last answer while fewer than WRITE_FAULTS wait, as resp_place does; out
 * as the control pops it) and checks against it every cycle m_fault_*, q_faulted_0/1, the
 * PSN query of QP q_qpn_2 (a fault before q_first_2, one of q_first_2..q_last_2, a list
 * job's, short), fault_room and job_count; a job is dropped (never walked nor written) if,
 * when it is pushed, an earlier job of its QP fails its walk and is not retired yet, or a
 * fault of its QP waits. placed_count counts retired jobs, each with list_pop and its
 * reference if it is a list job; wr_committed covers at least the chunks of the jobs
 * retired, at most those committed, and no fewer than the writes handed out; wr_answered
 * counts the answers; an ACK probe waits as resp_engine does (placed_count reaches the jobs
 * pushed, wr_committed taken then, wr_answered reaches it) and must then find every write
 * of those jobs answered. idle and drained only when nothing is queued or walked (and,
 * drained, every write handed out and answered); both at the end. No walk starts while
 * xl_hold; xl_busy is high while the stage uses the translator; the control's check answer
 * is never taken by the stage. Outputs offered hold until taken. A hang (no progress for
 * HANG_CYCLES) fails the run.
 *
 * The runs: clean, with violations (failed walks, short SENDs, jobs dropped after a fault
 * of their QP), with refused writes (faults past WRITE_FAULTS lost), with heavy
 * back-pressure, with gaps, with the payload slow and the writer's requests waiting for
 * their bytes (committed chunks stay in the chunk FIFO while the next walks fill it), and
 * with two QPs and a control often slower than the stage (a job pushed in the cycle a
 * failed job of its QP leaves); each fails if the kinds of events it is meant to cover did
 * not occur (a --quick run checks only its kinds of job). Some SENDs walk as many SGEs as a
 * RECV WQE holds, each small and across a page (two chunks each). All but the clean and the
 * gaps also on a tiny model (two jobs, 32 chunks, four packets' writes tracked, eight
 * faults): there a SEND walks at most 16 SGEs, as a walk's chunks (two per SGE at most)
 * must fit the chunk FIFO.
 *
 * Not covered: jobs of no payload (resp_engine gives none), DMA write answers earlier than
 * a cycle after the request's last byte, fault_room low at the core's size (a QP's jobs are
 * dropped while its fault waits, so the table rarely holds more than a fault a QP: only the
 * tiny model's fills up).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "hroce_contract.h"
#include "walk_model.h"

extern const struct vmodel_ops vmodel_Vresp_place, vmodel_Vresp_place_tiny;

#define BEAT 64
#define MAX_QPS 8
#define MAX_PKT 4096
#define HANG_CYCLES 20000u
#define RING 8192
#define PAY_RING 64
#define MEM_LINES (1u << 18) /* lines of 64 bytes each host memory model holds */

enum job_kind { J_WRITE, J_SEND, J_DROP };

/* a list job's reference: where the control holds its SGE list */
#define REFS 128

/* why a job is dropped at its push */
enum drop_cause {
	DROP_NONE,
	DROP_AT_HEAD, /* the failing job is walked at the head */
	DROP_FAILED,  /* its walk failed: it leaves, its fault goes in (this cycle, or soon) */
	DROP_QUEUED,  /* it waits behind the head */
	DROP_WALK_FAULT,
	DROP_WRITE_FAULT,
	DROP_CAUSES
};

/* resp_place's parameters the ports do not tell */
struct model {
	const struct vmodel_ops *ops;
	const char *tag;
	unsigned int fault_log, write_faults, chunk_log;
};

struct scenario {
	const char *name;
	unsigned int jobs, qps;
	unsigned int bad_pct;	       /* walks made to fail */
	unsigned int refuse_pct;       /* write answers with an error */
	unsigned int ready_pct;	       /* the translator's, the stream's, the writer's */
	unsigned int mr_lat_max;       /* cycles from a translation request to its answer */
	unsigned int wr_lat_max;       /* cycles from a write's last byte to its answer */
	unsigned int gap_pct, gap_max; /* the control idles between requests */
	unsigned int fault_delay_max;  /* cycles before the control pops a fault */
	unsigned int stream_pct;       /* the payload stream's beats (0: ready_pct) */
	bool req_waits_data;	       /* the writer takes a request once its bytes came */
	unsigned int hold_pct;	       /* requests checked on the translator first */
	bool tiny;		       /* run on the tiny model too */
	bool corners;	  /* jobs pushed as a job of their QP leaves, its walk failed */
	bool refused_run; /* faults of refused writes past WRITE_FAULTS, jobs dropped after one */
};

struct qp {
	uint32_t qpn, psn;
	unsigned int pd, mtu;
};

/* a request and its job */
struct job {
	unsigned int kind, q;
	uint32_t qpn, psn, len, off, num_sge, pd, access, key;
	uint64_t va;
	bool dropped; /* marked at its push: not walked */
	bool fails;   /* its walk fails (status or short) */
	unsigned int status;
	bool is_short;
	bool committed;
	unsigned int nchunk, answered;
	bool refused;
};

struct chunk_exp {
	struct chunk c;
	unsigned int job;
};

struct pay {
	unsigned int job, len, pos; /* pos: bytes taken (stream) or paired (writer) */
	bool done;		    /* writer: its last beat came */
	uint8_t byte[MAX_PKT];
};

struct wreq {
	uint64_t addr;
	unsigned int len, pos, job;
};

struct answer {
	uint64_t at;
	unsigned int job;
};

struct fault {
	uint32_t qpn, psn;
	unsigned int status;
	bool is_short, list, write;
};

struct line {
	uint64_t tag; /* line address + 1; 0: free */
	uint64_t mask;
	uint8_t d[64];
};

struct mem {
	struct line *t;
	unsigned int n;
};

enum check_state { CHK_NONE, CHK_HOLD, CHK_RESP };

struct env {
	struct bench *b;
	const struct scenario *sc;
	const struct model *md;
	struct dut dut;
	struct mr mrs[WALK_NUM_MRS];
	struct qp qp[MAX_QPS];
	unsigned int njobs, nfaults, max_sge;
	struct job *job;
	char err[512];

	/* the control */
	unsigned int created, pushed, retired, gap;
	bool up_checked;	    /* the next request had its range check */
	int walk_failed;	    /* the last job whose translation the stage saw fail */
	struct sge list[32];	    /* the list of the next request */
	struct sge lists[REFS][32]; /* the list jobs' lists, by reference */
	enum check_state chk;
	unsigned int fault_delay;
	bool fault_seen;
	struct {
		bool active, known;
		unsigned int n;
		uint16_t need;
		uint64_t need_model;
	} ack;
	struct walk w; /* scratch of the reference */

	/* the stage's fault table, as the bench saw it fill and empty */
	struct bench_ring faults;
	bool write_push; /* a refused packet's fault pushed this cycle */
	struct fault write_fault;

	/* the expected and the pending */
	struct walk_xlator xl;
	struct bench_ring chunks, wpays, stream, wdata, wreqs, answers;
	bool s_valid;
	unsigned int s_len;
	bool s_last;
	struct mem want, got;

	/* counts (the model's, full width) */
	uint64_t commit_all, commit_retired, taken, answers_given;
	unsigned int last_placed;
	bool last_hold, last_busy;
	bool list_popped; /* list_pop the cycle before, with its reference */
	unsigned int list_popped_ref;

	/* the held outputs */
	bool wrq_held;
	uint64_t last_wrq_addr, last_wrq_len;

	uint64_t last_progress;
	/* what the run did */
	unsigned int n_own, n_write, n_send, n_drop, n_committed, n_write_fail, n_send_fail,
		n_short, n_why[DROP_CAUSES], n_refused, n_write_faults, n_lost, n_holds, n_acks,
		n_pops, n_no_fault_room, n_checks;
	uint64_t bytes;
	unsigned int max_chunks; /* of a walk */

	const struct vmodel_port *idle, *drained, *j_walk, *j_qpn, *j_psn, *j_off, *j_len,
		*j_num_sge, *j_pd, *j_access, *j_va, *j_key, *j_valid, *job_count, *fault_room,
		*sge_index, *sge_addr, *sge_len, *sge_key, *j_list, *j_ref, *sge_ref, *list_pop,
		*f_short, *f_list, *q_own_list_2, *q_own_short_2, *placed, *committed, *answered,
		*f_qpn, *f_psn, *f_status, *f_write, *f_valid, *f_ready, *q_qpn_0, *q_faulted_0,
		*q_qpn_1, *q_faulted_1, *q_qpn_2, *q_first_2, *q_last_2, *q_before_2, *q_own_2,
		*xl_hold, *xl_busy;
	const struct vmodel_port *sx_data, *sx_keep, *sx_valid, *sx_ready, *sx_last, *wq_addr,
		*wq_len, *wq_valid, *wq_ready, *wx_data, *wx_keep, *wx_valid, *wx_ready, *wx_last,
		*wd_valid, *wd_error;
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
 * Host memory: the bytes written, by 64-byte line
 */

static struct line *mem_line(struct env *e, struct mem *m, uint64_t la, bool add)
{
	uint64_t h = (la + 1) * 0x9e3779b97f4a7c15ull;

	for (unsigned int i = (unsigned int)(h >> 45) % MEM_LINES;; i = (i + 1) % MEM_LINES) {
		struct line *l = &m->t[i];

		if (l->tag == la + 1)
			return l;
		if (!l->tag) {
			if (!add)
				return NULL;
			if (m->n >= MEM_LINES / 4 * 3) {
				FAIL(e, "bench host memory model full (%u lines)", m->n);
				return NULL;
			}
			l->tag = la + 1;
			m->n++;
			return l;
		}
	}
}

static void mem_write(struct env *e, struct mem *m, uint64_t addr, const uint8_t *p, unsigned int n)
{
	while (n) {
		struct line *l = mem_line(e, m, addr >> 6, true);
		unsigned int at = (unsigned int)(addr & 63), k = 64 - at < n ? 64 - at : n;

		if (!l)
			return;
		for (unsigned int i = 0; i < k; i++) {
			l->d[at + i] = p[i];
			l->mask |= 1ull << (at + i);
		}
		addr += k;
		p += k;
		n -= k;
	}
}

/* the host memory the writer made is the reference's */
static void mem_compare(struct env *e)
{
	if (e->got.n != e->want.n)
		FAIL(e, "host memory: %u lines written, the reference writes %u", e->got.n,
		     e->want.n);
	for (unsigned int i = 0; i < MEM_LINES && !e->err[0]; i++) {
		const struct line *g = &e->got.t[i], *w;

		if (!g->tag)
			continue;
		w = mem_line(e, &e->want, g->tag - 1, false);
		if (!w || w->mask != g->mask) {
			FAIL(e, "host memory line 0x%llx: bytes 0x%016llx written, want 0x%016llx",
			     (unsigned long long)((g->tag - 1) << 6), (unsigned long long)g->mask,
			     (unsigned long long)(w ? w->mask : 0));
			return;
		}
		for (unsigned int k = 0; k < 64; k++)
			if ((g->mask >> k & 1) && g->d[k] != w->d[k]) {
				FAIL(e, "host memory byte 0x%llx is 0x%02x, want 0x%02x",
				     (unsigned long long)(((g->tag - 1) << 6) + k), g->d[k],
				     w->d[k]);
				return;
			}
		e->n_checks++;
	}
}

/* ---------------------------------------------------------------------------------------
 * The fault table (resp_place's, as the bench saw it)
 */

static bool table_has(const struct env *e, uint32_t qpn)
{
	for (unsigned int i = 0; i < e->faults.n; i++)
		if (((struct fault *)bench_ring_at(&e->faults, i))->qpn == qpn)
			return true;
	return false;
}

/*
 * The faults of QP q_qpn_2 by PSN against the message q_first_2..q_last_2: one before it
 * (within half the PSN space), one of its packets (of a list job, short)
 */
static void query_psns(struct env *e)
{
	uint32_t qpn = (uint32_t)vport_get(e->q_qpn_2), first = (uint32_t)vport_get(e->q_first_2);
	uint32_t span = ((uint32_t)vport_get(e->q_last_2) - first) & 0xffffff;
	bool before = false, own = false, own_list = false, own_short = false;

	for (unsigned int i = 0; i < e->faults.n; i++) {
		const struct fault *f = bench_ring_at(&e->faults, i);
		uint32_t to = (first - f->psn) & 0xffffff, from = (f->psn - first) & 0xffffff;

		if (f->qpn != qpn)
			continue;
		before |= to && to < 0x800000;
		if (from <= span) {
			own = true;
			own_list |= f->list;
			own_short |= f->list && f->is_short;
		}
	}
	if ((vport_get(e->q_before_2) != 0) != before || (vport_get(e->q_own_2) != 0) != own ||
	    (vport_get(e->q_own_list_2) != 0) != own_list ||
	    (vport_get(e->q_own_short_2) != 0) != own_short)
		FAIL(e,
		     "QP 0x%x PSNs 0x%x..+%u: q_before_2 %u q_own_2 %u q_own_list_2 %u "
		     "q_own_short_2 %u, want %u %u %u %u (%u faults waiting)",
		     qpn, first, span, (unsigned int)vport_get(e->q_before_2),
		     (unsigned int)vport_get(e->q_own_2), (unsigned int)vport_get(e->q_own_list_2),
		     (unsigned int)vport_get(e->q_own_short_2), before, own, own_list, own_short,
		     e->faults.n);
	else if (own)
		e->n_own++;
}

static void table_push(struct env *e, const struct fault *f)
{
	struct fault *x;

	if (e->faults.n >= e->nfaults) {
		FAIL(e, "fault of QP 0x%x PSN 0x%x pushed into a full table (%u)", f->qpn, f->psn,
		     e->nfaults);
		return;
	}
	x = ring_add(e, &e->faults, "faults");
	if (x)
		*x = *f;
}

/* ---------------------------------------------------------------------------------------
 * The requests
 */

static void setup_qps(struct env *e)
{
	static const uint32_t qpns[MAX_QPS] = { 0x11,  0x2a5, 0x10011, 0xabcdef,
						0x400, 0x12,  0x7fff,  0x800001 };

	for (unsigned int q = 0; q < MAX_QPS; q++) {
		struct qp *p = &e->qp[q];

		p->qpn = qpns[q];
		p->pd = q % WALK_PDS;
		p->mtu = 256u << bench_range(e->b, 0, 4);
		p->psn = (uint32_t)bench_range(e->b, 0xfffff0, 0xffffff + 0x20) & 0xffffff;
	}
}

/* a packet's length: a whole MTU (a middle packet) or less (a last one) */
static uint32_t pkt_len(struct env *e, const struct qp *p)
{
	return bench_chance(e->b, 40) ? p->mtu : (uint32_t)bench_range(e->b, 1, p->mtu);
}

/* a remote range: inside an MR of the QP's PD granting REMOTE_WRITE, or made to fail */
static void make_range(struct env *e, struct job *j, const struct qp *p, bool bad)
{
	if (bad) {
		struct sge s = walk_bad_sge(e->b, e->mrs, p->pd, HROCE_PERM_REMOTE_WRITE);

		j->va = s.addr;
		j->key = s.key;
		j->len = s.len;
		return;
	}
	const struct mr *m = walk_good_mr(e->b, e->mrs, p->pd, HROCE_PERM_REMOTE_WRITE);

	j->len = pkt_len(e, p);
	if (j->len > m->len)
		j->len = (uint32_t)m->len;
	j->va = m->va + bench_range(e->b, 0, m->len - j->len);
	j->key = m->key;
}

/* a small SGE across a page boundary of an MR of PD pd (two chunks), if one has two pages */
static struct sge split_sge(struct env *e, unsigned int pd)
{
	struct bench *b = e->b;
	const struct mr *can[WALK_NUM_MRS], *m;
	unsigned int n = 0;

	for (unsigned int i = 0; i < WALK_NUM_MRS; i++) {
		m = &e->mrs[i];
		if (m->pd == pd && m->bad_page < 0 && (m->access & HROCE_PERM_LOCAL_WRITE) &&
		    m->len > (1ull << m->page_log) + 130)
			can[n++] = m;
	}
	if (!n)
		return walk_good_sge(b, e->mrs, pd, HROCE_PERM_LOCAL_WRITE, 130);
	m = can[bench_range(b, 0, n - 1)];

	uint64_t page = 1ull << m->page_log;
	uint64_t cross = m->va + page * bench_range(b, 1, (m->len - 131) / page);
	struct sge s = { 0, (uint32_t)bench_range(b, 2, 130), m->key };

	s.addr = cross - bench_range(b, 1, s.len - 1);
	return s;
}

/* a SEND packet: the RECV WQE's SGEs, the message's offset in them, its length */
static void make_send(struct env *e, struct job *j, const struct qp *p, bool bad)
{
	struct bench *b = e->b;
	uint32_t total = 0, start = 0;
	unsigned int n = (unsigned int)(bench_chance(b, 5) ? 0 : bench_range(b, 1, e->max_sge));
	unsigned int badi = n ? (unsigned int)bench_range(b, 0, n - 1) : 0;
	bool is_short = bad && (!n || bench_chance(b, 30));
	/* now and then every SGE small and across a page: a walk of two chunks an SGE */
	bool split = !bad && bench_chance(b, 5);

	if (split)
		n = e->max_sge;
	bench_fill(b, e->list, sizeof(e->list));
	for (unsigned int i = 0; i < n; i++) {
		if (split) {
			e->list[i] = split_sge(e, p->pd);
		} else if (bad && !is_short && i == badi) {
			e->list[i] = walk_bad_sge(b, e->mrs, p->pd, HROCE_PERM_LOCAL_WRITE);
			start = total;
		} else {
			e->list[i] = walk_good_sge(b, e->mrs, p->pd, HROCE_PERM_LOCAL_WRITE, 3000);
		}
		total += e->list[i].len;
	}
	if (!total && !is_short) {
		/* nothing to place a byte in: one SGE of one byte at least */
		n = n ? n : 1;
		e->list[0] = walk_good_sge(b, e->mrs, p->pd, HROCE_PERM_LOCAL_WRITE, 3000);
		if (!e->list[0].len)
			e->list[0].len = 1;
		total = e->list[0].len;
		bad = false;
	}
	j->num_sge = n;
	if (is_short) {
		/* the message goes past the end of the SGEs */
		j->off = (uint32_t)bench_range(b, total > 2000 ? total - 2000 : 0, total);
		j->len = (uint32_t)(total - j->off + bench_range(b, 1, 2000));
	} else if (bad) {
		/* the walk reaches the bad SGE */
		j->off = (uint32_t)bench_range(b, start > p->mtu ? start - p->mtu + 1 : 0, start);
		j->len = pkt_len(e, p);
		if (j->len < start - j->off + 1)
			j->len = start - j->off + 1;
		if (j->len > total - j->off)
			j->len = total - j->off;
	} else if (split) {
		/* through every SGE */
		j->off = 0;
		j->len = total < MAX_PKT ? total : MAX_PKT;
	} else {
		j->off = (uint32_t)bench_range(b, 0, total - 1);
		j->len = pkt_len(e, p);
		if (j->len > total - j->off)
			j->len = total - j->off;
	}
}

/* the next request, known to the control: its payload (if any) queued in the stream */
static void create_request(struct env *e)
{
	struct bench *b = e->b;
	const struct scenario *sc = e->sc;
	unsigned int q = (unsigned int)bench_range(b, 0, sc->qps - 1);
	struct qp *p = &e->qp[q];
	struct job *j = &e->job[e->created];
	unsigned int k = (unsigned int)bench_range(b, 0, 99);
	bool bad = bench_chance(b, sc->bad_pct);

	memset(j, 0, sizeof(*j));
	j->kind = k < 50 ? J_WRITE : k < 82 ? J_SEND : J_DROP;
	j->q = q;
	j->qpn = p->qpn;
	j->psn = p->psn;
	p->psn = (p->psn + 1) & 0xffffff;
	j->pd = p->pd;
	/* the fields a kind does not use are garbage */
	j->off = (uint32_t)bench_rand(b);
	j->num_sge = (uint32_t)bench_range(b, 0, 255);
	j->va = bench_rand(b);
	j->key = (uint32_t)bench_rand(b);
	j->access = (unsigned int)bench_range(b, 0, 15);
	bench_fill(b, e->list, sizeof(e->list));
	switch (j->kind) {
	case J_WRITE:
		j->access = HROCE_PERM_REMOTE_WRITE;
		make_range(e, j, p, bad);
		break;
	case J_SEND:
		j->access = HROCE_PERM_LOCAL_WRITE;
		make_send(e, j, p, bad);
		break;
	default:
		j->len = pkt_len(e, p);
		break;
	}
	{
		struct pay *x = ring_add(e, &e->stream, "payloads in the stream");

		if (x) {
			x->job = e->created;
			x->len = j->len;
			bench_fill(b, x->byte, j->len);
		}
	}
	e->up_checked = !bench_chance(b, sc->hold_pct);
	e->created++;
}

/* the payload of job n in the stream (not taken yet: the stage waits for its act) */
static const struct pay *stream_pay(struct env *e, unsigned int n)
{
	for (unsigned int i = 0; i < e->stream.n; i++) {
		const struct pay *x = bench_ring_at(&e->stream, i);

		if (x->job == n)
			return x;
	}
	FAIL(e, "job %u: its payload left the stream before it was committed", n);
	return NULL;
}

/* job n is committed: its chunks, its bytes, the memory they make */
static void commit_job(struct env *e, unsigned int n, const struct walk *w)
{
	struct job *j = &e->job[n];
	const struct pay *x = stream_pay(e, n);
	struct pay *y = ring_add(e, &e->wpays, "payloads to write");
	unsigned int pos = 0;

	if (!x || !y)
		return;
	j->committed = true;
	j->nchunk = w->nchunk;
	e->commit_all += w->nchunk;
	for (unsigned int i = 0; i < w->nchunk; i++) {
		struct chunk_exp *c = ring_add(e, &e->chunks, "write requests");

		if (c)
			*c = (struct chunk_exp){ w->chunk[i], n };
		mem_write(e, &e->want, w->chunk[i].iova, x->byte + pos, w->chunk[i].len);
		pos += w->chunk[i].len;
	}
	if (pos != j->len)
		FAIL(e, "bench: job %u's chunks hold %u bytes of %u", n, pos, j->len);
	*y = *x;
	y->pos = 0;
	e->n_committed++;
	e->bytes += j->len;
}

/* the walk of job n, from its command and list, as the stage must do it */
static void reference(struct env *e, unsigned int n, const struct sge *list)
{
	struct job *j = &e->job[n];
	struct walk *w = &e->w;
	bool is_list = j->kind == J_SEND;

	memset(w, 0, sizeof(*w));
	w->sge = 0;
	w->off = is_list ? j->off : 0;
	w->len = j->len;
	w->num_sge = is_list ? j->num_sge : 1;
	w->pd = j->pd;
	w->access = j->access;
	if (is_list)
		memcpy(w->list, list, sizeof(w->list));
	else
		w->list[0] = (struct sge){ j->va, 0xffffffffu, j->key };
	walk_reference(e->mrs, w);
	if (!walk_xlator_expect(&e->xl, w, n))
		FAIL(e, "bench FIFO of translation requests overflows");
	j->status = w->status;
	j->is_short = w->is_short;
	if (w->nchunk > e->max_chunks)
		e->max_chunks = w->nchunk;
	j->fails = w->is_short || w->status != HROCE_MR_XLATE_OK;
}

/*
 * Whether a job of QP qpn pushed now is dropped: an earlier job of its QP fails its
 * walk and has not retired (at the head, or queued), or a fault of its QP waits
 */
static enum drop_cause drop_mark(struct env *e, uint32_t qpn)
{
	for (unsigned int i = e->retired; i < e->pushed; i++) {
		const struct job *f = &e->job[i];

		if (f->qpn == qpn && f->kind != J_DROP && !f->dropped && f->fails)
			return i != e->retired		  ? DROP_QUEUED
			       : e->walk_failed == (int)i ? DROP_FAILED
							  : DROP_AT_HEAD;
	}
	for (unsigned int i = 0; i < e->faults.n; i++) {
		const struct fault *f = bench_ring_at(&e->faults, i);

		if (f->qpn == qpn)
			return f->write ? DROP_WRITE_FAULT : DROP_WALK_FAULT;
	}
	return DROP_NONE;
}

static void push_job(struct env *e)
{
	unsigned int n = e->pushed;
	struct job *j = &e->job[n];
	bool walk = j->kind != J_DROP, is_list = j->kind == J_SEND;
	enum drop_cause why = walk ? drop_mark(e, j->qpn) : DROP_NONE;

	vport_set(e->j_walk, walk);
	vport_set(e->j_list, is_list);
	vport_set(e->j_ref, n % REFS);
	if (is_list)
		memcpy(e->lists[n % REFS], e->list, sizeof(e->list));
	vport_set(e->j_qpn, j->qpn);
	vport_set(e->j_psn, j->psn);
	vport_set(e->j_off, j->off);
	vport_set(e->j_len, j->len);
	vport_set(e->j_num_sge, j->num_sge);
	vport_set(e->j_pd, j->pd);
	vport_set(e->j_access, j->access);
	vport_set(e->j_va, j->va);
	vport_set(e->j_key, j->key);
	vport_set(e->j_valid, 1);

	j->dropped = why != DROP_NONE;
	e->n_why[why]++;
	switch (j->kind) {
	case J_WRITE:
	case J_SEND:
		if (j->kind == J_WRITE)
			e->n_write++;
		else
			e->n_send++;
		if (!j->dropped) {
			reference(e, n, e->lists[n % REFS]);
			if (!j->fails)
				commit_job(e, n, &e->w);
			else if (j->kind == J_WRITE)
				e->n_write_fail++;
			else if (j->is_short)
				e->n_short++;
			else
				e->n_send_fail++;
		}
		break;
	default:
		e->n_drop++;
		break;
	}
	e->pushed++;
	progress(e);
}

/* ---------------------------------------------------------------------------------------
 * The control, each cycle
 */

static void control(struct env *e)
{
	struct bench *b = e->b;
	const struct scenario *sc = e->sc;
	unsigned int count = (unsigned int)vport_get(e->job_count);

	vport_set(e->j_valid, 0);
	/* garbage on the job's ports while no job goes */
	vport_set(e->j_walk, bench_rand(b) & 1);
	vport_set(e->j_list, bench_rand(b) & 1);
	vport_set(e->j_ref, bench_rand(b));
	vport_set(e->j_qpn, e->qp[bench_range(b, 0, MAX_QPS - 1)].qpn);
	vport_set(e->j_len, bench_rand(b));
	vport_set(e->xl_hold, e->chk != CHK_NONE);

	if (e->chk == CHK_HOLD) {
		/* the translator is the control's once no walk is under way */
		if (!vport_get(e->xl_busy) && vport_get(e->xl.req_ready)) {
			struct beat a = { bench_rand(b), (unsigned int)bench_rand(b) & 0xffff,
					  bench_chance(b, 80) ? HROCE_MR_XLATE_OK
							      : HROCE_MR_XLATE_BAD_BOUNDS,
					  true };

			if (!walk_xlator_other(&e->xl, &a,
					       e->dut.cycle + bench_range(b, 1, sc->mr_lat_max)))
				FAIL(e, "bench FIFO of translation answers overflows");
			e->chk = CHK_RESP;
		}
		return;
	}
	if (e->chk == CHK_RESP)
		return;
	if (e->gap) {
		e->gap--;
		return;
	}
	if (e->pushed == e->created)
		return;
	if (!e->up_checked) {
		e->up_checked = true;
		e->chk = CHK_HOLD;
		e->n_holds++;
		vport_set(e->xl_hold, 1);
		return;
	}
	const struct job *j = &e->job[e->pushed];
	bool room = count < e->njobs && (j->kind == J_DROP || vport_get(e->fault_room));

	if (count < e->njobs && !room)
		e->n_no_fault_room++;
	if (!room)
		return;
	push_job(e);
	if (e->created < e->sc->jobs)
		create_request(e);
	if (bench_chance(b, sc->gap_pct))
		e->gap = (unsigned int)bench_range(b, 1, sc->gap_max);
}

/* ---------------------------------------------------------------------------------------
 * What the bench sees each cycle of the stage's registers
 */

static void retire(struct env *e)
{
	unsigned int placed = (unsigned int)vport_get(e->placed);
	unsigned int delta = (placed - e->last_placed) & 0xff;

	e->last_placed = placed;
	if (!delta) {
		if (e->list_popped)
			FAIL(e, "list_pop with no job retired (ref %u)", e->list_popped_ref);
		return;
	}
	if (delta > 1 || e->retired >= e->pushed) {
		FAIL(e, "placed_count went %u up to %u with %u jobs pushed, %u retired", delta,
		     placed, e->pushed, e->retired);
		return;
	}
	struct job *j = &e->job[e->retired];

	bool is_list = j->kind == J_SEND;

	/* (list_pop is seen the cycle after, with placed_count) */
	if (e->list_popped != is_list || (is_list && e->list_popped_ref != e->retired % REFS)) {
		FAIL(e, "job %u (kind %u) retired with list_pop %u ref %u", e->retired, j->kind,
		     e->list_popped, e->list_popped_ref);
		return;
	}
	if (j->kind != J_DROP && !j->dropped && j->fails) {
		/* its fault takes an entry as it retires */
		struct fault f = { j->qpn, j->psn, j->status, j->is_short, is_list, false };

		table_push(e, &f);
	}
	if (j->committed)
		e->commit_retired += j->nchunk;
	e->retired++;
	progress(e);
}

static void check_regs(struct env *e)
{
	unsigned int count = (unsigned int)vport_get(e->job_count);
	bool valid = vport_get(e->f_valid) != 0;
	uint16_t committed = (uint16_t)vport_get(e->committed);
	bool room;

	if (e->write_push) {
		table_push(e, &e->write_fault);
		e->write_push = false;
	}
	retire(e);
	if (e->err[0])
		return;
	/* (a job pushed the last cycle is counted from this one) */
	if (count != e->pushed - e->retired)
		FAIL(e, "job_count %u with %u jobs pushed, %u retired", count, e->pushed,
		     e->retired);
	room = e->faults.n + count < e->nfaults - e->md->write_faults;
	if ((vport_get(e->fault_room) != 0) != room)
		FAIL(e, "fault_room %u with %u faults waiting, %u jobs queued",
		     (unsigned int)vport_get(e->fault_room), e->faults.n, count);
	if (valid != (e->faults.n != 0))
		FAIL(e, "m_fault_valid %u with %u faults waiting", valid, e->faults.n);
	if (valid && e->faults.n) {
		const struct fault *f = bench_ring_at(&e->faults, 0);

		if (vport_get(e->f_qpn) != f->qpn || vport_get(e->f_psn) != f->psn ||
		    vport_get(e->f_status) != f->status ||
		    (vport_get(e->f_write) != 0) != f->write ||
		    (vport_get(e->f_list) != 0) != f->list ||
		    (vport_get(e->f_short) != 0) != f->is_short)
			FAIL(e,
			     "fault QP 0x%x PSN 0x%x status %u short %u list %u write %u, want QP "
			     "0x%x PSN 0x%x status %u short %u list %u write %u",
			     (unsigned int)vport_get(e->f_qpn), (unsigned int)vport_get(e->f_psn),
			     (unsigned int)vport_get(e->f_status),
			     (unsigned int)vport_get(e->f_short),
			     (unsigned int)vport_get(e->f_list),
			     (unsigned int)vport_get(e->f_write), f->qpn, f->psn, f->status,
			     f->is_short, f->list, f->write);
	}
	if ((uint16_t)vport_get(e->answered) != (uint16_t)e->answers_given)
		FAIL(e, "wr_answered %u, %llu answers given", (unsigned int)vport_get(e->answered),
		     (unsigned long long)e->answers_given);
	if ((int16_t)(committed - (uint16_t)e->commit_retired) < 0 ||
	    (int16_t)((uint16_t)e->commit_all - committed) < 0 ||
	    (int16_t)(committed - (uint16_t)e->taken) < 0)
		FAIL(e,
		     "wr_committed %u: the jobs retired committed %llu chunks, all jobs %llu, "
		     "%llu writes handed out",
		     committed, (unsigned long long)e->commit_retired,
		     (unsigned long long)e->commit_all, (unsigned long long)e->taken);
	bool idle = vport_get(e->idle) != 0, busy = vport_get(e->xl_busy) != 0;

	if (idle && (e->retired != e->pushed || busy))
		FAIL(e, "idle with %u jobs pushed, %u retired, xl_busy %u", e->pushed, e->retired,
		     busy);
	if (vport_get(e->drained) &&
	    (!idle || e->taken != e->commit_all || e->answers_given != e->taken))
		FAIL(e,
		     "drained with idle %u, %llu chunks committed, %llu handed out, %llu "
		     "answered",
		     idle, (unsigned long long)e->commit_all, (unsigned long long)e->taken,
		     (unsigned long long)e->answers_given);
	if (e->last_hold && !e->last_busy && busy)
		FAIL(e, "a walk started while xl_hold was high");
	e->n_checks++;
}

/* the ACK of the jobs pushed so far waits as resp_engine's does, then checks */
static void ack_probe(struct env *e)
{
	if (!e->ack.active) {
		if (e->pushed && e->pushed < e->sc->jobs && bench_chance(e->b, 3)) {
			e->ack.active = true;
			e->ack.known = false;
			e->ack.n = e->pushed;
		}
		return;
	}
	if (!e->ack.known) {
		if (vport_get(e->placed) == (e->ack.n & 0xff)) {
			e->ack.known = true;
			e->ack.need = (uint16_t)vport_get(e->committed);
			e->ack.need_model = e->commit_retired;
		}
		return;
	}
	if ((int16_t)((uint16_t)vport_get(e->answered) - e->ack.need) < 0)
		return;
	if (e->answers_given < e->ack.need_model)
		FAIL(e, "the ACK of jobs 0..%u goes with %llu writes answered, they made %llu",
		     e->ack.n - 1, (unsigned long long)e->answers_given,
		     (unsigned long long)e->ack.need_model);
	e->ack.active = false;
	e->n_acks++;
	e->n_checks++;
}

/* ---------------------------------------------------------------------------------------
 * The SGE list, the translator, the payload stream, the DMA writer
 */

static void sge_answer(struct env *e)
{
	unsigned int i = (unsigned int)vport_get(e->sge_index) & 31;
	const struct sge *l = e->lists[vport_get(e->sge_ref) % REFS];

	vport_set(e->sge_addr, l[i].addr);
	vport_set(e->sge_len, l[i].len);
	vport_set(e->sge_key, l[i].key);
}

/* the list is combinational: answer the index the model settles on */
static void sge_settle(struct env *e)
{
	for (unsigned int i = 0; i < 4; i++) {
		uint64_t at = vport_get(e->sge_index);

		sge_answer(e);
		e->dut.vm.ops->eval(e->dut.vm.model);
		if (vport_get(e->sge_index) == at)
			return;
	}
	FAIL(e, "sge_index does not settle");
}

static void stream_drive(struct env *e)
{
	struct bench *b = e->b;
	struct pay *x = bench_ring_at(&e->stream, 0);
	uint8_t data[BEAT];

	if (!e->s_valid && x &&
	    bench_chance(b, e->sc->stream_pct ? e->sc->stream_pct : e->sc->ready_pct)) {
		e->s_valid = true;
		e->s_len = x->len - x->pos < BEAT ? x->len - x->pos : BEAT;
		e->s_last = x->pos + e->s_len == x->len;
	}
	bench_fill(b, data, sizeof(data));
	if (e->s_valid)
		memcpy(data, x->byte + x->pos, e->s_len);
	vport_write(e->sx_data, data, sizeof(data));
	vport_set(e->sx_keep, !e->s_valid	 ? bench_rand(b)
			      : e->s_len == BEAT ? UINT64_MAX
						 : (1ull << e->s_len) - 1);
	vport_set(e->sx_last, e->s_valid ? e->s_last : bench_rand(b) & 1);
	vport_set(e->sx_valid, e->s_valid);
}

/* a write answered: its packet's bookkeeping, and a fault if one of its writes was
 * refused while fewer than WRITE_FAULTS faults wait */
static void answer(struct env *e)
{
	struct answer *a = bench_ring_at(&e->answers, 0);
	bool error = false;

	if (a && a->at <= e->dut.cycle) {
		struct job *j = &e->job[a->job];

		error = bench_chance(e->b, e->sc->refuse_pct);
		j->answered++;
		j->refused = j->refused || error;
		if (error)
			e->n_refused++;
		if (j->answered == j->nchunk && j->refused) {
			if (e->faults.n < e->md->write_faults) {
				e->write_push = true;
				e->write_fault = (struct fault){ .qpn = j->qpn,
								 .psn = j->psn,
								 .write = true };
				e->n_write_faults++;
			} else {
				e->n_lost++;
			}
		}
		bench_ring_pop(&e->answers);
		e->answers_given++;
		vport_set(e->wd_valid, 1);
		vport_set(e->wd_error, error);
		progress(e);
		return;
	}
	vport_set(e->wd_valid, 0);
	vport_set(e->wd_error, bench_rand(e->b) & 1);
}

/* the writer pairs its requests with the bytes of the stream, in order */
static void writer_pair(struct env *e)
{
	for (;;) {
		struct wreq *r = bench_ring_at(&e->wreqs, 0);
		struct pay *p = bench_ring_at(&e->wdata, 0);

		if (p && p->done && p->pos == p->len) {
			bench_ring_pop(&e->wdata);
			continue;
		}
		if (!r || !p)
			return;
		if (p->job != r->job) {
			FAIL(e, "a write request of job %u takes bytes of job %u's payload", r->job,
			     p->job);
			return;
		}
		unsigned int n =
			r->len - r->pos < p->len - p->pos ? r->len - r->pos : p->len - p->pos;

		mem_write(e, &e->got, r->addr + r->pos, p->byte + p->pos, n);
		r->pos += n;
		p->pos += n;
		if (r->pos == r->len) {
			struct answer *a = ring_add(e, &e->answers, "write answers");
			struct answer *last = e->answers.n > 1
						      ? bench_ring_at(&e->answers, e->answers.n - 2)
						      : NULL;

			if (a) {
				a->job = r->job;
				a->at = e->dut.cycle + bench_range(e->b, 1, e->sc->wr_lat_max);
				if (last && last->at > a->at)
					a->at = last->at;
			}
			bench_ring_pop(&e->wreqs);
			continue;
		}
		if (p->done && p->pos == p->len) {
			FAIL(e, "job %u: a write request goes past its payload's end", r->job);
			return;
		}
		if (p->pos == p->len)
			return;
	}
}

/* the writer has the bytes of the request offered (as dma_wr_client, which issues a burst
 * once its beats are in its buffer) */
static bool wq_data(struct env *e)
{
	uint64_t have = 0, need = vport_get(e->wq_len);

	for (unsigned int i = 0; i < e->wdata.n; i++) {
		const struct pay *p = bench_ring_at(&e->wdata, i);

		have += p->len - p->pos;
	}
	for (unsigned int i = 0; i < e->wreqs.n; i++) {
		const struct wreq *r = bench_ring_at(&e->wreqs, i);

		need += r->len - r->pos;
	}
	return have >= need;
}

static void drive(void *ctx)
{
	struct env *e = ctx;
	struct bench *b = e->b;
	const struct scenario *sc = e->sc;

	check_regs(e);
	ack_probe(e);
	/* the control pops a fault some cycles after it saw it */
	if (vport_get(e->f_valid) && !e->fault_seen) {
		e->fault_seen = true;
		e->fault_delay = (unsigned int)bench_range(b, 0, sc->fault_delay_max);
	}
	if (e->fault_delay)
		e->fault_delay--;
	vport_set(e->f_ready, e->fault_seen && !e->fault_delay);
	/* (the control's check reads the translator's ready) */
	walk_xlator_drive(&e->xl, e->dut.cycle, sc->ready_pct);
	control(e);
	sge_answer(e);
	stream_drive(e);
	answer(e);
	vport_set(e->wq_ready,
		  bench_chance(b, sc->ready_pct) && (!sc->req_waits_data || wq_data(e)));
	vport_set(e->wx_ready, bench_chance(b, sc->ready_pct));
	vport_set(e->q_qpn_0, bench_chance(b, 80) ? e->qp[bench_range(b, 0, sc->qps - 1)].qpn
						  : bench_rand(b) & 0xffffff);
	vport_set(e->q_qpn_1, bench_chance(b, 80) ? e->qp[bench_range(b, 0, sc->qps - 1)].qpn
						  : bench_rand(b) & 0xffffff);
	/* the PSNs of a message: mostly around a fault's, some across the PSN space's wrap */
	uint32_t first = (uint32_t)bench_rand(b);

	if (e->faults.n && bench_chance(b, 80)) {
		const struct fault *f =
			bench_ring_at(&e->faults, (unsigned int)bench_range(b, 0, e->faults.n - 1));

		vport_set(e->q_qpn_2, f->qpn);
		first = f->psn + (uint32_t)bench_range(b, 0, 6) - 3;
	} else {
		vport_set(e->q_qpn_2, bench_chance(b, 80)
					      ? e->qp[bench_range(b, 0, sc->qps - 1)].qpn
					      : bench_rand(b) & 0xffffff);
	}
	vport_set(e->q_first_2, first & 0xffffff);
	vport_set(e->q_last_2, (first + (uint32_t)bench_range(b, 0, 3)) & 0xffffff);
}

/* ---------------------------------------------------------------------------------------
 * The checks of what comes out
 */

static void check_wr_req(struct env *e)
{
	uint64_t addr = vport_get(e->wq_addr);
	unsigned int len = (unsigned int)vport_get(e->wq_len);
	struct chunk_exp *x = bench_ring_at(&e->chunks, 0);
	struct wreq *r;

	if (!x) {
		FAIL(e, "a write request that no committed job makes: 0x%llx len %u",
		     (unsigned long long)addr, len);
		return;
	}
	if (addr != x->c.iova || len != x->c.len) {
		FAIL(e, "job %u: write request 0x%llx len %u, want 0x%llx len %u", x->job,
		     (unsigned long long)addr, len, (unsigned long long)x->c.iova, x->c.len);
		return;
	}
	r = ring_add(e, &e->wreqs, "write requests taken");
	if (r)
		*r = (struct wreq){ addr, len, 0, x->job };
	bench_ring_pop(&e->chunks);
	e->taken++;
	e->n_checks++;
}

static void check_wr_beat(struct env *e)
{
	struct pay *x = bench_ring_at(&e->wpays, 0);
	uint8_t d[BEAT];
	uint64_t keep = vport_get(e->wx_keep);
	bool last = vport_get(e->wx_last) != 0;

	vport_read(e->wx_data, d, sizeof(d));
	if (!x) {
		FAIL(e, "a payload beat written that no committed job has");
		return;
	}
	unsigned int n = x->len - x->pos < BEAT ? x->len - x->pos : BEAT;
	uint64_t want_keep = n == BEAT ? UINT64_MAX : (1ull << n) - 1;
	bool want_last = x->pos + n == x->len;

	if (keep != want_keep || last != want_last) {
		FAIL(e,
		     "job %u: write beat at byte %u of %u: tkeep 0x%016llx tlast %u, want "
		     "0x%016llx %u",
		     x->job, x->pos, x->len, (unsigned long long)keep, last,
		     (unsigned long long)want_keep, want_last);
		return;
	}
	for (unsigned int i = 0; i < n; i++)
		if (d[i] != x->byte[x->pos + i]) {
			FAIL(e, "job %u: written byte %u of %u is 0x%02x, want 0x%02x", x->job,
			     x->pos + i, x->len, d[i], x->byte[x->pos + i]);
			return;
		}
	/* the writer's copy of the packet */
	struct pay *p = e->wdata.n ? bench_ring_at(&e->wdata, e->wdata.n - 1) : NULL;

	if (!p || p->done) {
		p = ring_add(e, &e->wdata, "payloads in the writer");
		if (!p)
			return;
		p->job = x->job;
	}
	memcpy(p->byte + p->len, d, n);
	p->len += n;
	p->done = last;
	x->pos += n;
	if (last) {
		bench_ring_pop(&e->wpays);
		e->n_checks++;
	}
}

/* an output offered and not taken holds, the same, to the next cycle */
static void check_held(struct env *e)
{
	if (e->wrq_held && (!vport_get(e->wq_valid) || vport_get(e->wq_addr) != e->last_wrq_addr ||
			    vport_get(e->wq_len) != e->last_wrq_len))
		FAIL(e,
		     "cycle %llu: m_wr_req 0x%llx len %u (valid %u) the cycle after 0x%llx len %u "
		     "was offered and not taken",
		     (unsigned long long)e->dut.cycle, (unsigned long long)vport_get(e->wq_addr),
		     (unsigned int)vport_get(e->wq_len), (unsigned int)vport_get(e->wq_valid),
		     (unsigned long long)e->last_wrq_addr, (unsigned int)e->last_wrq_len);
	e->wrq_held = vport_get(e->wq_valid) && !vport_get(e->wq_ready);
	e->last_wrq_addr = vport_get(e->wq_addr);
	e->last_wrq_len = vport_get(e->wq_len);
}

static void sample(void *ctx)
{
	struct env *e = ctx;
	bool busy = vport_get(e->xl_busy) != 0;
	const struct walk_ans *a = bench_ring_at(&e->xl.ans, 0);
	bool req = vport_get(e->xl.req_valid) != 0;
	struct walk_ans taken;
	unsigned int moved;

	sge_settle(e);
	check_held(e);
	/* the table as it is this cycle (a fault popped now is still in it) */
	for (unsigned int i = 0; i < 2; i++) {
		uint32_t q = (uint32_t)vport_get(i ? e->q_qpn_1 : e->q_qpn_0);
		bool hit = vport_get(i ? e->q_faulted_1 : e->q_faulted_0) != 0;

		if (hit != table_has(e, q))
			FAIL(e, "q_faulted_%u %u for QP 0x%x, with %u faults waiting", i, hit, q,
			     e->faults.n);
	}
	query_psns(e);
	e->list_popped = vport_get(e->list_pop) != 0;
	e->list_popped_ref = (unsigned int)vport_get(e->sge_ref);
	if ((req || vport_get(e->xl.resp_ready)) && !busy)
		FAIL(e, "the stage uses the translator with xl_busy low");
	if (!busy && a && !a->other)
		FAIL(e, "xl_busy low with %u translation answers due to the stage", e->xl.ans.n);
	if (e->chk != CHK_NONE && !busy && req)
		FAIL(e,
		     "a translation request of the stage while the control holds the translator");
	/* (the answer of the control's check is the control's: the stage must leave it) */
	moved = walk_xlator_sample(&e->xl, e->dut.cycle, e->sc->mr_lat_max, &taken, e->err,
				   sizeof(e->err));
	if (moved & WALK_XLATOR_REQ)
		e->n_checks++;
	if ((moved & WALK_XLATOR_ANS) && taken.other)
		e->chk = CHK_NONE;
	else if ((moved & WALK_XLATOR_ANS) && taken.b.status != HROCE_MR_XLATE_OK)
		e->walk_failed = (int)taken.job;
	if (moved)
		progress(e);
	if (vport_get(e->sx_valid) && vport_get(e->sx_ready)) {
		struct pay *x = bench_ring_at(&e->stream, 0);

		x->pos += e->s_len;
		if (e->s_last)
			bench_ring_pop(&e->stream);
		e->s_valid = false;
		progress(e);
	}
	if (vport_get(e->wq_valid) && vport_get(e->wq_ready)) {
		check_wr_req(e);
		progress(e);
	}
	if (vport_get(e->wx_valid) && vport_get(e->wx_ready)) {
		check_wr_beat(e);
		progress(e);
	}
	writer_pair(e);
	if (vport_get(e->f_valid) && vport_get(e->f_ready)) {
		/* (its fields were checked against the table this cycle) */
		if (e->faults.n)
			bench_ring_pop(&e->faults);
		e->fault_seen = false;
		e->n_pops++;
		progress(e);
	}
	e->last_hold = vport_get(e->xl_hold) != 0;
	e->last_busy = busy;
}

/* ---------------------------------------------------------------------------------------
 * Runs
 */

static void open_ports(struct env *e)
{
	static const struct dut_port_ref ports[] = {
#define P(field, name) DUT_PORT(struct env, field, name)
		P(idle, "idle"),
		P(drained, "drained"),
		P(j_walk, "s_job_walk"),
		P(j_qpn, "s_job_qpn"),
		P(j_psn, "s_job_psn"),
		P(j_off, "s_job_off"),
		P(j_len, "s_job_len"),
		P(j_num_sge, "s_job_num_sge"),
		P(j_pd, "s_job_pd"),
		P(j_access, "s_job_access"),
		P(j_va, "s_job_va"),
		P(j_key, "s_job_key"),
		P(j_valid, "s_job_valid"),
		P(job_count, "job_count"),
		P(fault_room, "fault_room"),
		P(sge_index, "sge_index"),
		P(sge_addr, "sge_addr"),
		P(sge_len, "sge_len"),
		P(sge_key, "sge_key"),
		P(sge_ref, "sge_ref"),
		P(list_pop, "list_pop"),
		P(j_list, "s_job_list"),
		P(j_ref, "s_job_ref"),
		P(f_short, "m_fault_short"),
		P(f_list, "m_fault_list"),
		P(q_own_list_2, "q_own_list_2"),
		P(q_own_short_2, "q_own_short_2"),
		P(placed, "placed_count"),
		P(committed, "wr_committed"),
		P(answered, "wr_answered"),
		P(f_qpn, "m_fault_qpn"),
		P(f_psn, "m_fault_psn"),
		P(f_status, "m_fault_status"),
		P(f_write, "m_fault_write"),
		P(f_valid, "m_fault_valid"),
		P(f_ready, "m_fault_ready"),
		P(q_qpn_0, "q_qpn_0"),
		P(q_faulted_0, "q_faulted_0"),
		P(q_qpn_1, "q_qpn_1"),
		P(q_faulted_1, "q_faulted_1"),
		P(q_qpn_2, "q_qpn_2"),
		P(q_first_2, "q_first_2"),
		P(q_last_2, "q_last_2"),
		P(q_before_2, "q_before_2"),
		P(q_own_2, "q_own_2"),
		P(xl_hold, "xl_hold"),
		P(xl_busy, "xl_busy"),
		P(sx_data, "s_axis_tdata"),
		P(sx_keep, "s_axis_tkeep"),
		P(sx_valid, "s_axis_tvalid"),
		P(sx_ready, "s_axis_tready"),
		P(sx_last, "s_axis_tlast"),
		P(wq_addr, "m_wr_req_addr"),
		P(wq_len, "m_wr_req_len"),
		P(wq_valid, "m_wr_req_valid"),
		P(wq_ready, "m_wr_req_ready"),
		P(wx_data, "m_wr_axis_tdata"),
		P(wx_keep, "m_wr_axis_tkeep"),
		P(wx_valid, "m_wr_axis_tvalid"),
		P(wx_ready, "m_wr_axis_tready"),
		P(wx_last, "m_wr_axis_tlast"),
		P(wd_valid, "s_wr_done_valid"),
		P(wd_error, "s_wr_done_error"),
#undef P
	};

	dut_ports(&e->dut, e, ports, sizeof(ports) / sizeof(ports[0]));
}

static bool all_out(struct env *e)
{
	return e->pushed == e->sc->jobs && e->retired == e->pushed && e->chk == CHK_NONE &&
	       !e->ack.active && !e->xl.want.n && !e->xl.ans.n && !e->chunks.n && !e->wpays.n &&
	       !e->stream.n && !e->wdata.n && !e->wreqs.n && !e->answers.n && !e->faults.n &&
	       !e->write_push;
}

static void hang_report(struct env *e)
{
	FAIL(e,
	     "no progress for %u cycles (cycle %llu): %u of %u jobs pushed, %u retired, "
	     "check %u, job_count %u, idle %u, drained %u, "
	     "xl_busy %u; still expected: %u translation requests, %u write requests, %u "
	     "payloads to write, %u in the stream, %u writes unanswered, %u faults",
	     HANG_CYCLES, (unsigned long long)e->dut.cycle, e->pushed, e->sc->jobs, e->retired,
	     e->chk, (unsigned int)vport_get(e->job_count), (unsigned int)vport_get(e->idle),
	     (unsigned int)vport_get(e->drained), (unsigned int)vport_get(e->xl_busy), e->xl.want.n,
	     e->chunks.n, e->wpays.n, e->stream.n, e->wreqs.n + e->answers.n, e->faults.n);
}

/* the kinds of events the run is meant to cover came (a --quick run: its kinds of job) */
static void coverage(struct env *e)
{
	const struct scenario *sc = e->sc;
	bool full = !e->b->quick;

	if (!e->n_write || !e->n_send || !e->n_drop || !e->n_committed || !e->n_acks ||
	    (sc->hold_pct && !e->n_holds))
		FAIL(e, "a kind of job, an ACK or a range check never came: the stimulus is thin");
	else if (!sc->bad_pct && !sc->refuse_pct &&
		 (e->n_write_fail || e->n_send_fail || e->n_short || e->n_pops))
		FAIL(e, "a run without violations failed a walk or made a fault");
	else if (!full)
		return;
	else if (e->max_chunks < 2 * e->max_sge - 4)
		FAIL(e, "no walk of SGEs across pages: at most %u chunks", e->max_chunks);
	else if (sc->bad_pct && (!e->n_write_fail || !e->n_send_fail || !e->n_short || !e->n_own ||
				 !e->n_why[DROP_WALK_FAULT]))
		FAIL(e,
		     "a run with violations without a failed WRITE or SEND walk, a short SEND, a "
		     "fault of a queried message, or a job dropped after a walk's fault");
	else if (sc->bad_pct >= 10 &&
		 (!e->n_why[DROP_AT_HEAD] || (e->njobs > 2 && !e->n_why[DROP_QUEUED])))
		FAIL(e, "no job came as a failing one of its QP was walked at the head, or queued");
	else if (sc->corners && !e->n_why[DROP_FAILED])
		FAIL(e, "no job came as a failed one of its QP left");
	else if (sc->refuse_pct && (!e->n_refused || !e->n_write_faults))
		FAIL(e, "a run with refused writes without a fault for one");
	else if (sc->refused_run && (!e->n_lost || !e->n_why[DROP_WRITE_FAULT]))
		FAIL(e, "no refused write found WRITE_FAULTS faults waiting, or no job was dropped "
			"after a refused write's fault");
}

static void run(struct bench *b, const struct scenario *sc, const struct model *md)
{
	char name[96];
	static struct env env;
	struct env *e = &env;
	struct scenario s = *sc;
	static struct line *lines[2];

	if (b->quick)
		s.jobs /= 4;
	snprintf(name, sizeof(name), "%s%s", sc->name, md->tag);
	s.name = name;
	memset(e, 0, sizeof(*e));
	e->b = b;
	e->sc = &s;
	e->md = md;
	e->walk_failed = -1;
	e->job = calloc(s.jobs, sizeof(*e->job));
	for (unsigned int i = 0; i < 2; i++) {
		if (!lines[i])
			lines[i] = malloc(sizeof(struct line) * MEM_LINES);
		if (!e->job || !lines[i]) {
			fprintf(stderr, "test_resp_place: out of memory\n");
			exit(1);
		}
		memset(lines[i], 0, sizeof(struct line) * MEM_LINES);
	}
	e->want.t = lines[0];
	e->got.t = lines[1];
	bench_ring_init(&e->faults, sizeof(struct fault), 64);
	bench_ring_init(&e->chunks, sizeof(struct chunk_exp), RING);
	bench_ring_init(&e->wpays, sizeof(struct pay), PAY_RING);
	bench_ring_init(&e->stream, sizeof(struct pay), PAY_RING);
	bench_ring_init(&e->wdata, sizeof(struct pay), PAY_RING);
	bench_ring_init(&e->wreqs, sizeof(struct wreq), RING);
	bench_ring_init(&e->answers, sizeof(struct answer), RING);
	walk_make_mrs(b, e->mrs);
	setup_qps(e);
	dut_open(&e->dut, b, md->ops);
	open_ports(e);
	walk_xlator_open(&e->xl, &e->dut, e->mrs, RING);
	e->njobs = 1u << (e->job_count->width - 1);
	e->nfaults = 1u << md->fault_log;
	e->max_sge = (1u << md->chunk_log) / 2 < 31 ? (1u << md->chunk_log) / 2 : 31;
	if (e->nfaults <= md->write_faults + e->njobs || e->nfaults > 64) {
		fprintf(stderr, "test_resp_place: %s: %u faults for %u of writes and %u jobs\n",
			md->ops->name, e->nfaults, md->write_faults, e->njobs);
		exit(2);
	}
	dut_reset(&e->dut, 4);
	dut_add_agent(&e->dut, drive, sample, e);
	create_request(e);
	progress(e);
	unsigned int quiet = 0;

	while (!e->err[0] && quiet < 100) {
		dut_step(&e->dut);
		quiet = all_out(e) ? quiet + 1 : 0;
		if (e->dut.cycle - e->last_progress > HANG_CYCLES)
			hang_report(e);
	}
	if (!e->err[0] && (!vport_get(e->idle) || !vport_get(e->drained)))
		FAIL(e, "everything out, and the stage is not idle (%u) and drained (%u)",
		     (unsigned int)vport_get(e->idle), (unsigned int)vport_get(e->drained));
	if (!e->err[0] &&
	    (vport_get(e->wq_valid) || vport_get(e->xl.req_valid) || vport_get(e->f_valid)))
		FAIL(e, "everything out, and still: m_wr_req %u m_mr_req %u m_fault %u",
		     (unsigned int)vport_get(e->wq_valid), (unsigned int)vport_get(e->xl.req_valid),
		     (unsigned int)vport_get(e->f_valid));
	if (!e->err[0])
		mem_compare(e);
	bench_log(
		b,
		"%s: %u jobs in %llu cycles: %u WRITE, %u SEND, %u drop; %u committed (%llu "
		"bytes, %u lines, a walk's chunks up to %u); walks failed: %u WRITE, %u SEND (%u "
		"more short); dropped after a failing job at the head %u, failed %u, queued %u, "
		"a walk's fault %u, a write's %u; %u writes refused, %u write faults, %u lost; %u "
		"faults popped, %u of a queried message; %u range checks, %u ACKs; cycles "
		"without room for a fault %u; %u checks",
		s.name, e->pushed, (unsigned long long)e->dut.cycle, e->n_write, e->n_send,
		e->n_drop, e->n_committed, (unsigned long long)e->bytes, e->want.n, e->max_chunks,
		e->n_write_fail, e->n_send_fail, e->n_short, e->n_why[DROP_AT_HEAD],
		e->n_why[DROP_FAILED], e->n_why[DROP_QUEUED], e->n_why[DROP_WALK_FAULT],
		e->n_why[DROP_WRITE_FAULT], e->n_refused, e->n_write_faults, e->n_lost, e->n_pops,
		e->n_own, e->n_holds, e->n_acks, e->n_no_fault_room, e->n_checks);
	if (!e->err[0])
		coverage(e);
	bench_result(b, s.name, !e->err[0], "%s", e->err);
	dut_close(&e->dut);
	free(e->job);
	bench_ring_free(&e->faults);
	walk_xlator_close(&e->xl);
	bench_ring_free(&e->chunks);
	bench_ring_free(&e->wpays);
	bench_ring_free(&e->stream);
	bench_ring_free(&e->wdata);
	bench_ring_free(&e->wreqs);
	bench_ring_free(&e->answers);
}

int main(int argc, char **argv)
{
	static const struct scenario scenarios[] = {
		{ .name = "resp_place_clean",
		  .jobs = 6000,
		  .qps = 8,
		  .ready_pct = 70,
		  .mr_lat_max = 6,
		  .wr_lat_max = 20,
		  .fault_delay_max = 10,
		  .hold_pct = 10 },
		{ .name = "resp_place_violations",
		  .jobs = 6000,
		  .qps = 8,
		  .bad_pct = 20,
		  .ready_pct = 70,
		  .mr_lat_max = 6,
		  .wr_lat_max = 20,
		  .fault_delay_max = 60,
		  .tiny = true,
		  .hold_pct = 10 },
		{ .name = "resp_place_refused",
		  .jobs = 6000,
		  .qps = 8,
		  .bad_pct = 3,
		  .refuse_pct = 10,
		  .ready_pct = 80,
		  .mr_lat_max = 4,
		  .wr_lat_max = 30,
		  .fault_delay_max = 1000,
		  .tiny = true,
		  .hold_pct = 5,
		  .refused_run = true },
		{ .name = "resp_place_backpressure",
		  .jobs = 3000,
		  .qps = 8,
		  .bad_pct = 10,
		  .refuse_pct = 1,
		  .ready_pct = 20,
		  .mr_lat_max = 40,
		  .wr_lat_max = 200,
		  .fault_delay_max = 200,
		  .tiny = true,
		  .hold_pct = 10 },
		{ .name = "resp_place_gaps",
		  .jobs = 5000,
		  .qps = 8,
		  .bad_pct = 10,
		  .refuse_pct = 1,
		  .ready_pct = 95,
		  .mr_lat_max = 2,
		  .wr_lat_max = 4,
		  .gap_pct = 30,
		  .gap_max = 40,
		  .fault_delay_max = 20,
		  .hold_pct = 10 },
		/* the payload slow, the writer's requests waiting for their bytes: the committed
		 * chunks stay, and walks (SENDs of up to 62 chunks) find the chunk FIFO half full
		 */
		{ .name = "resp_place_slow_stream",
		  .jobs = 3000,
		  .qps = 8,
		  .refuse_pct = 1,
		  .ready_pct = 90,
		  .stream_pct = 8,
		  .req_waits_data = true,
		  .mr_lat_max = 2,
		  .wr_lat_max = 10,
		  .fault_delay_max = 20,
		  .tiny = true,
		  .hold_pct = 5 },
		/* two QPs, the translator and the writer quick: a job often comes in the cycle a
		 * job of its QP fails, or a fault of its QP goes */
		{ .name = "resp_place_two_qps",
		  .jobs = 5000,
		  .qps = 2,
		  .bad_pct = 15,
		  .refuse_pct = 2,
		  .ready_pct = 95,
		  .mr_lat_max = 2,
		  .wr_lat_max = 4,
		  .gap_pct = 60,
		  .gap_max = 8,
		  .fault_delay_max = 4,
		  .tiny = true,
		  .corners = true,
		  .hold_pct = 5 },
	};
	static const struct model core = { &vmodel_Vresp_place, "", 4, 4, 6 };
	/* two jobs, 32 chunks, four packets' writes tracked, eight faults (four of writes) */
	static const struct model tiny = { &vmodel_Vresp_place_tiny, "_tiny", 3, 4, 5 };
	struct bench b;

	bench_init(&b, "test_resp_place", argc, argv);
	for (unsigned int i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		run(&b, &scenarios[i], &core);
	for (unsigned int i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		if (scenarios[i].tiny)
			run(&b, &scenarios[i], &tiny);
	return bench_finish(&b);
}
