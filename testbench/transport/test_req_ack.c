// SPDX-License-Identifier: MIT
/*
 * Bench of req_ack, the requester's acknowledging engine, alone.
 *
 * The bench is everything around it: the QP contexts (it owns bytes QPC_ACK_BYTE..+31 of
 * them; the others must come back as they were), the host's send queues (WQEs read by DMA,
 * or answered from wqe_info's facts), the MR translator and host memory of the READ
 * targets (pages scattered over a host buffer), the DMA writer, the CQ, the retry timers,
 * and a closed loop of a requester and a responder: a C req_tx sends the WQEs' packets and
 * tells req_ack with SENT messages (and ERROR / FLUSH), applies the rewinds, waits and
 * stops req_ack sends back; a C responder executes them in PSN order and answers as RC
 * does (coalesced ACKs, ACKs asked for within long messages, sequence NAKs, RNR NAKs,
 * error NAKs, READ responses); the wire between them loses and duplicates packets.
 *
 * A C reference of the requester's acknowledging contract (the header of req_ack.v) takes
 * every event in the order req_ack takes it, at the time it takes it (time_now stands
 * still while req_ack works on an event), and says which CQEs, messages to req_tx, timer
 * updates and errors must come out, in order, field by field, and what the owned bytes of
 * each context update must hold. Independently of it, every byte req_ack writes to host
 * memory must be a READ's byte at its place, every READ completed must be in memory whole
 * when its CQE comes out, every WQE must complete exactly once and in order, and the host
 * buffer outside the READs' targets must end as it began. Every handshake is held back at
 * random, in both directions, and hold is raised now and then.
 *
 * Runs: clean (8 QPs, every kind of WQE, 0 to 3000 bytes, MTUs 256..1024, wqe_info hits
 * and misses); lossy (requests and responses lost or duplicated, RNR NAKs: sequence NAKs,
 * implicit NAKs, timeouts and RNR waits must all happen); errors (an error NAK on one QP,
 * an ERROR message from req_tx on another, then FLUSH messages for WQEs posted later, a
 * READ with an SGE no MR backs on a third: nothing of the response that reaches it may be
 * written), the same over the lossy wire; retries exceeded (a SEND RNR-NAKed for ever, a
 * responder gone silent). Not covered: DMA read and write errors, the other translation
 * refusals (sg_walk's own bench covers them), contexts not valid or not in RTS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "hroce_contract.h"
#include "req_msg.h" /* req_tx and req_ack's messages, from rtl/transport/req_msg.vh */

extern const struct vmodel_ops vmodel_Vreq_ack;

#define MAX_QPS 8u
#define MAX_WQES 1000u
#define MAX_SGE 4
#define LOG_SQ 4
#define HOST_PAGES 1024
#define MR_PAGES 96
#define PAGE 4096u
#define QUEUE 8192
#define HANG_CYCLES 200000u
#define ACK_UNIT 64
#define RNR_UNIT 16
#define SQ_BASE0 0x4000000000ull
#define BAD_KEY 0xdead00u /* no MR has it */

#define INFO_WIDTH 184

#define PSN_MASK 0xffffffu

static uint32_t psn_add(uint32_t a, uint32_t b)
{
	return (a + b) & PSN_MASK;
}

/* a <= b in 24-bit serial arithmetic */
static bool psn_le(uint32_t a, uint32_t b)
{
	return !(((b - a) & PSN_MASK) & 0x800000u);
}

/* ---------------------------------------------------------------------------------------
 * The scenario, the QPs and their WQEs
 */

struct scenario {
	const char *name;
	unsigned int qps, wqes;
	unsigned int drop_pct, dup_pct, rnr_pct; /* the wire and the responder's RNR NAKs */
	bool error_nak; /* one QP's responder answers a WQE with an error */
	bool tx_error;	/* one QP's req_tx fails a WQE before it goes */
	bool cover;	/* fail unless every kind of rewind happened */
	bool bad_mr;	/* one QP's READ has an SGE whose key no MR has */
	bool exhaust;	/* one QP's responder RNR-NAKs a SEND for ever, another's goes silent */
	unsigned int log_mtu_max;
	unsigned int max_len;
};

struct sge {
	uint64_t va;
	uint32_t len, key;
};

struct wqe {
	unsigned int op; /* WR_OPCODE */
	bool signaled;
	uint32_t len;
	unsigned int nsge;
	struct sge sge[MAX_SGE];
	uint32_t bad_start, bad_end; /* a READ's bytes behind the bad SGE, or 0, 0 */
	uint32_t psn;		     /* its first PSN */
	unsigned int npkts;	     /* its PSNs */
	bool completed;
};

/* the reference of req_ack's bytes of one context */
struct ackref {
	uint16_t cc, ack_pi, out_ci;
	bool err, rnr_wait, impl_nak;
	unsigned int rnr_timer, gen, rd_done, retry_left, rnr_left;
	uint32_t una, out_npsn, out_pkt, cc_acked;
	uint64_t timer_start;
};

/* the C requester's sending side */
struct txmodel {
	uint16_t ci, pi;
	uint32_t npsn, pkt;
	unsigned int gen;
	bool wait, stopped, flush_due;
	unsigned int burst_pkts;
};

/* the C responder */
struct respmodel {
	uint32_t epsn;
	bool nak_sent, err, ack_due;
	unsigned int rnr_naks[MAX_WQES];
};

struct qp {
	uint32_t qpn, cqn, pd, key;
	unsigned int log_mtu, stride, timeout, retry_cnt, rnr_retry;
	uint16_t base;	   /* index of WQE 0 */
	uint32_t psn0;	   /* its first PSN */
	unsigned int nwqe; /* WQEs posted so far */
	uint64_t mr_va;
	unsigned int frame[MR_PAGES];
	uint64_t mr_next; /* bump allocator of READ targets in the MR */
	struct wqe w[MAX_WQES];
	uint8_t ctx[HROCE_QPC_BYTES]; /* the context memory */
	uint8_t ring[(1u << LOG_SQ) * 256];
	struct ackref ref;
	struct txmodel tx;
	struct respmodel rs;
	/* host side: WQEs it knows completed (from CQEs), the next CQE it must see */
	unsigned int known_done, next_cqe;
	bool failed_seen;
	unsigned int errors, error_status;
	int error_nak_at, tx_error_at; /* WQE numbers, or -1 */
	int rnr_always_at, silent_at, bad_mr_at;
	unsigned int drops_in_row;
	bool armed;
	uint64_t deadline;
};

static uint8_t remote_byte(unsigned int q, unsigned int j, uint32_t off)
{
	uint32_t x = (q * 0x9e3779b1u) ^ (j * 0x85ebca6bu) ^ (off * 0xc2b2ae35u);

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	return (uint8_t)x;
}

/* ---------------------------------------------------------------------------------------
 * Queues
 */

struct pkt {
	unsigned int q, j;
	uint32_t psn, k; /* k: packet of the WQE, or a READ's first response */
	bool ackreq, last;
};

struct resp {
	unsigned int q, j;
	unsigned int opcode, syndrome;
	uint32_t psn, off, len;
	uint64_t seq; /* the message that must be taken first */
};

struct txmsg {
	uint32_t w[4];
};

struct cqe_want {
	uint32_t cqn, qpn;
	unsigned int index, opcode, status, q, j;
	uint32_t len;
};

struct ackm_want {
	uint32_t qpn, ci, npsn, pkt;
	bool rewind, wait, stop;
	unsigned int rd_done;
};

struct tmr_want {
	uint32_t qpn;
	bool arm;
	uint64_t deadline;
};

#define QDEF(name, type)              \
	struct name {                 \
		type item[QUEUE];     \
		unsigned int head, n; \
	}
QDEF(resp_q, struct resp);
QDEF(txm_q, struct txmsg);
QDEF(cqe_q, struct cqe_want);
QDEF(ackm_q, struct ackm_want);
QDEF(tmr_q, struct tmr_want);
QDEF(u32_q, uint32_t);

#define Q_PUSH(env, qu, v)                                                  \
	do {                                                                \
		if ((qu)->n == QUEUE)                                       \
			FAIL(env, "bench queue " #qu " overflows");         \
		else                                                        \
			(qu)->item[((qu)->head + (qu)->n++) % QUEUE] = (v); \
	} while (0)
#define Q_HEAD(qu) ((qu)->item[(qu)->head])
#define Q_POP(qu) ((qu)->head = ((qu)->head + 1) % QUEUE, (qu)->n--)

struct payload {
	unsigned int q, j;
	uint32_t off, len;
};
QDEF(payload_q, struct payload);

struct wr_req {
	uint64_t addr;
	uint32_t len;
};
QDEF(wr_q, struct wr_req);

struct rd_req {
	uint64_t addr;
	uint32_t len;
};
QDEF(rd_q, struct rd_req);

struct mr_beat {
	uint64_t iova;
	uint32_t len;
	bool last;
	unsigned int status;
};
QDEF(mr_q, struct mr_beat);

/* ---------------------------------------------------------------------------------------
 * The environment
 */

struct env {
	struct bench *b;
	const struct scenario *sc;
	struct dut dut;
	struct qp qp[MAX_QPS];
	uint8_t *host, *orig;
	uint32_t *owner; /* per host byte: 0, or 1 + (q << 24 | j << 14 | offset) */
	uint64_t time;
	bool took;
	char err[512];

	struct resp_q resps;
	struct payload_q payloads;
	uint32_t pay_beat; /* bytes of the head payload given */
	struct txm_q txms;
	uint64_t txm_taken;
	struct cqe_q cqes;
	struct ackm_q ackms;
	struct tmr_q tmrs;
	struct u32_q kicks;
	struct wr_q wrs;
	uint64_t wr_stream; /* bytes of the write stream consumed by requests */
	uint32_t wr_pos;    /* bytes of the head request written */
	struct u32_q dones; /* cycles at which a write's done is due */
	struct rd_q rds;
	uint32_t rd_pos;
	struct mr_q mrs;

	/* the context port */
	bool lookup_out;
	uint32_t lookup_qpn;
	unsigned int lookup_delay;
	/* wqe_info's answer to the cycle before's address */
	uint32_t info_qpn;
	uint16_t info_index;
	bool info_hit_next;
	/* the timer hand-back offered */
	int tmr_offer;
	unsigned int hold_left;

	uint64_t last_progress;
	unsigned int cqes_seen, rewinds, timeouts, rnrs, implicit, seq_naks, dup_drops;
	unsigned int rnr_always;
	unsigned int reads_placed, write_bytes, info_hits, wqe_reads, hold_cycles;

	const struct vmodel_port *hold, *idle, *time_now, *ack_unit, *rnr_unit;
	const struct vmodel_port *st_qpn, *st_valid, *st_ready, *mt_qpn, *mt_arm, *mt_deadline,
		*mt_valid, *mt_ready;
	const struct vmodel_port *err_qpn, *err_valid, *err_ready;
	const struct vmodel_port *sm_data, *sm_valid, *sm_ready, *mm_data, *mm_valid, *mm_ready;
	const struct vmodel_port *info_qpn_p, *info_index_p, *info_data, *info_hit;
	const struct vmodel_port *hdr_data, *hdr_valid, *hdr_ready, *ax_data, *ax_keep, *ax_valid,
		*ax_ready, *ax_last;
	const struct vmodel_port *cl_index, *cl_valid, *cl_ready, *cr_data, *cr_status, *cr_valid,
		*cr_ready, *cu_index, *cu_data, *cu_valid, *cu_ready;
	const struct vmodel_port *mq_key, *mq_pd, *mq_va, *mq_len, *mq_access, *mq_valid, *mq_ready,
		*ms_iova, *ms_len, *ms_last, *ms_status, *ms_valid, *ms_ready;
	const struct vmodel_port *rq_addr, *rq_len, *rq_valid, *rq_ready, *rd_data, *rd_valid,
		*rd_ready, *rd_last, *rd_user;
	const struct vmodel_port *wq_addr, *wq_len, *wq_valid, *wq_ready, *wd_data, *wd_keep,
		*wd_valid, *wd_ready, *wd_last, *wdone_valid, *wdone_error;
	const struct vmodel_port *cq_cqn, *cq_data, *cq_valid, *cq_ready;
};

#define FAIL(e, ...) bench_first_error((e)->err, sizeof((e)->err), __VA_ARGS__)

static unsigned int wqe_pkts(const struct qp *p, const struct wqe *w)
{
	return w->len == 0 ? 1 : (w->len - 1) / (1u << p->log_mtu) + 1;
}

static struct qp *qp_of(struct env *e, uint32_t qpn)
{
	for (unsigned int q = 0; q < e->sc->qps; q++)
		if (e->qp[q].qpn == qpn)
			return &e->qp[q];
	return NULL;
}

/* the WQE number (from the QP's first) of a ring counter */
static unsigned int wqe_num(const struct qp *p, uint16_t index)
{
	return (uint16_t)(index - p->base);
}

/* ---------------------------------------------------------------------------------------
 * Setup: contexts, MRs, WQEs
 */

static void setup_qps(struct env *e)
{
	struct bench *b = e->b;
	static const uint32_t qpns[MAX_QPS] = { 0x11,  0x2a5, 0x10011, 0xabcdef,
						0x400, 0x12,  0x7fff,  0x800001 };
	unsigned int frames[HOST_PAGES];

	for (unsigned int i = 0; i < HOST_PAGES; i++)
		frames[i] = i;
	for (unsigned int i = HOST_PAGES - 1; i > 0; i--) {
		unsigned int k = (unsigned int)bench_range(b, 0, i), t = frames[i];

		frames[i] = frames[k];
		frames[k] = t;
	}
	for (unsigned int q = 0; q < e->sc->qps; q++) {
		struct qp *p = &e->qp[q];
		uint8_t *c = p->ctx;

		memset(p, 0, sizeof(*p));
		p->qpn = qpns[q];
		p->cqn = 0x100 + q * 7;
		p->pd = (uint32_t)bench_range(b, 1, 0xffffff);
		p->key = (uint32_t)(0x1000u * (q + 1) + bench_range(b, 0, 0xff));
		p->log_mtu = (unsigned int)bench_range(b, 8, e->sc->log_mtu_max);
		p->stride = (unsigned int)bench_range(b, 0, 1);
		p->timeout = (unsigned int)bench_range(b, 3, 4);
		p->retry_cnt = 7;
		p->rnr_retry = bench_chance(b, 50) ? 7 : 6;
		p->base = bench_chance(b, 30) ? (uint16_t)(0x10000 - bench_range(b, 1, 40))
					      : (uint16_t)bench_rand(b);
		p->psn0 = bench_chance(b, 30) ? (uint32_t)(0x1000000 - bench_range(b, 1, 100))
					      : (uint32_t)bench_rand(b) & PSN_MASK;
		p->mr_va = (0x7f0000000000ull + ((uint64_t)q << 32)) | bench_range(b, 0, 15) << 20;
		for (unsigned int i = 0; i < MR_PAGES; i++)
			p->frame[i] = frames[q * MR_PAGES + i];
		p->error_nak_at = p->tx_error_at = p->rnr_always_at = p->silent_at = -1;
		p->bad_mr_at = -1;
		/* the context: random bytes, then the fields req_ack reads */
		bench_fill(b, c, sizeof(p->ctx));
		HROCE_QPC_SET(c, STATE, HROCE_QP_STATE_RTS);
		HROCE_QPC_SET(c, PATH_MTU, p->log_mtu - 7);
		HROCE_QPC_SET(c, VALID, 1);
		HROCE_QPC_SET(c, PD, p->pd);
		HROCE_QPC_SET(c, SEND_CQN, p->cqn);
		HROCE_QPC_SET(c, LOG_SQ_SIZE, LOG_SQ);
		HROCE_QPC_SET(c, LOG_SQ_STRIDE, p->stride);
		HROCE_QPC_SET(c, TIMEOUT, p->timeout);
		HROCE_QPC_SET(c, RETRY_CNT, p->retry_cnt);
		HROCE_QPC_SET(c, RNR_RETRY, p->rnr_retry);
		HROCE_QPC_SET(c, SQ_BASE, SQ_BASE0 + ((uint64_t)q << 24));
		p->ref = (struct ackref){ .cc = p->base,
					  .ack_pi = p->base,
					  .out_ci = p->base,
					  .gen = (unsigned int)bench_range(b, 0, 255),
					  .rd_done = (unsigned int)bench_range(b, 0, 255),
					  .retry_left = p->retry_cnt,
					  .rnr_left = p->rnr_retry,
					  .una = p->psn0,
					  .out_npsn = p->psn0,
					  .timer_start = 0 };
		HROCE_QPC_SET(c, SQ_CC, p->ref.cc);
		HROCE_QPC_SET(c, ACK_PI, p->ref.ack_pi);
		HROCE_QPC_SET(c, REQ_ERR, 0);
		HROCE_QPC_SET(c, RNR_WAIT, 0);
		HROCE_QPC_SET(c, RNR_TIMER, 0);
		HROCE_QPC_SET(c, IMPL_NAK, 0);
		HROCE_QPC_SET(c, ACK_GEN, p->ref.gen);
		HROCE_QPC_SET(c, UNA_PSN, p->ref.una);
		HROCE_QPC_SET(c, RD_DONE, p->ref.rd_done);
		HROCE_QPC_SET(c, OUT_CI, p->ref.out_ci);
		HROCE_QPC_SET(c, RETRY_LEFT, p->ref.retry_left);
		HROCE_QPC_SET(c, RNR_LEFT, p->ref.rnr_left);
		HROCE_QPC_SET(c, OUT_NPSN, p->ref.out_npsn);
		HROCE_QPC_SET(c, OUT_PKT, 0);
		HROCE_QPC_SET(c, TIMER_START, 0);
		HROCE_QPC_SET(c, CC_ACKED, 0);
		p->tx = (struct txmodel){
			.ci = p->base, .pi = p->base, .npsn = p->psn0, .gen = p->ref.gen
		};
		p->rs.epsn = p->psn0;
		bench_fill(b, p->ring, sizeof(p->ring));
	}
}

/* A READ's target: SGEs in the QP's MR, unaligned, sometimes empty ones between. */
static bool place_read(struct env *e, struct qp *p, unsigned int j, struct wqe *w)
{
	struct bench *b = e->b;
	unsigned int room = p->stride ? 6 : 2, n;
	uint32_t left = w->len;

	n = (unsigned int)bench_range(b, 1, room < MAX_SGE ? room : MAX_SGE);
	w->nsge = n;
	for (unsigned int i = 0; i < n; i++) {
		uint32_t len = i == n - 1 ? left : (uint32_t)bench_range(b, 0, left);

		if (bench_chance(b, 10) && i != n - 1)
			len = 0;
		p->mr_next += bench_range(b, 0, 200);
		if (p->mr_next + len > (uint64_t)MR_PAGES * PAGE)
			return false;
		w->sge[i] = (struct sge){ p->mr_va + p->mr_next, len, p->key };
		for (uint32_t k = 0; k < len; k++) {
			uint64_t off = p->mr_next + k;
			uint64_t addr = (uint64_t)p->frame[off / PAGE] * PAGE + off % PAGE;

			e->owner[addr] = 1u + ((unsigned int)(p - e->qp) << 24 | j << 14 |
					       (w->len - left + k));
		}
		p->mr_next += len;
		left -= len;
	}
	return true;
}

/*
 * One SGE of a READ gets a key no MR has: the response that reaches it fails, and nothing
 * of that response (nor of later ones) may reach memory, whatever SGE its bytes are for.
 */
static void spoil_read(struct env *e, struct qp *p, struct wqe *w)
{
	uint32_t start = 0, mtu = 1u << p->log_mtu;
	unsigned int i = (unsigned int)bench_range(e->b, 0, w->nsge - 1);

	while (!w->sge[i].len)
		i = (i + 1) % w->nsge;
	for (unsigned int k = 0; k < i; k++)
		start += w->sge[k].len;
	w->sge[i].key = BAD_KEY;
	w->bad_start = start;
	w->bad_end = start + w->sge[i].len;
	start -= start % mtu;
	for (unsigned int k = 0, off = 0; k < w->nsge; k++)
		for (uint32_t n = 0; n < w->sge[k].len; n++, off++) {
			uint64_t m = w->sge[k].va - p->mr_va + n;

			if (off >= start)
				e->owner[(uint64_t)p->frame[m / PAGE] * PAGE + m % PAGE] = 0;
		}
}

static void write_ring(struct qp *p, unsigned int j)
{
	const struct wqe *w = &p->w[j];
	unsigned int bytes = 64u << p->stride;
	uint8_t *s = &p->ring[((p->base + j) & ((1u << LOG_SQ) - 1)) * bytes];

	memset(s, 0, bytes);
	HROCE_SQ_WQE_SET(s, OPCODE, w->op);
	HROCE_SQ_WQE_SET(s, FLAGS, w->signaled ? HROCE_WR_SIGNALED : 0);
	HROCE_SQ_WQE_SET(s, NUM_SGE, w->nsge);
	HROCE_SQ_WQE_SET(s, LENGTH, w->len);
	HROCE_SQ_WQE_SET(s, QPN, p->qpn);
	HROCE_SQ_WQE_SET(s, RADDR, 0x5000 + j);
	for (unsigned int i = 0; i < w->nsge; i++) {
		uint8_t *g = s + HROCE_SQ_WQE_SGE_OFFSET + 16 * i;

		HROCE_SGE_SET(g, ADDR, w->sge[i].va);
		HROCE_SGE_SET(g, LENGTH, w->sge[i].len);
		HROCE_SGE_SET(g, LKEY, w->sge[i].key);
	}
}

/* Posts up to n WQEs where the ring has room (as the host knows it), the last signaled. */
static void post(struct env *e, struct qp *p, unsigned int n)
{
	struct bench *b = e->b;
	unsigned int j0 = p->nwqe;

	while (n-- && p->nwqe < e->sc->wqes && p->nwqe < p->known_done + (1u << LOG_SQ)) {
		unsigned int j = p->nwqe;
		struct wqe *w = &p->w[j];
		unsigned int kind = (unsigned int)bench_range(b, 0, 2);
		uint32_t mtu = 1u << p->log_mtu;

		memset(w, 0, sizeof(*w));
		w->op = kind == 0   ? HROCE_WR_OPCODE_RDMA_READ
			: kind == 1 ? (bench_chance(b, 50) ? HROCE_WR_OPCODE_SEND
							   : HROCE_WR_OPCODE_SEND_WITH_IMM)
				    : (bench_chance(b, 50) ? HROCE_WR_OPCODE_RDMA_WRITE
							   : HROCE_WR_OPCODE_RDMA_WRITE_WITH_IMM);
		if ((int)j == p->rnr_always_at)
			w->op = HROCE_WR_OPCODE_SEND;
		w->signaled = bench_chance(b, 60);
		w->len = bench_chance(b, 8)    ? 0
			 : bench_chance(b, 40) ? (uint32_t)bench_range(b, 1, mtu)
					       : (uint32_t)bench_range(b, 1, e->sc->max_len);
		if ((int)j == p->bad_mr_at) {
			w->op = HROCE_WR_OPCODE_RDMA_READ;
			w->len = (uint32_t)bench_range(b, 1, e->sc->max_len);
		}
		if (w->op == HROCE_WR_OPCODE_RDMA_READ) {
			if (!place_read(e, p, j, w)) {
				w->op = HROCE_WR_OPCODE_RDMA_WRITE;
				w->nsge = 0;
				if ((int)j == p->bad_mr_at)
					FAIL(e, "QP 0x%x: no room in the MR for the READ", p->qpn);
			} else if ((int)j == p->bad_mr_at) {
				spoil_read(e, p, w);
			}
		} else {
			/* garbage SGEs: req_ack has no business with them */
			w->nsge = (unsigned int)bench_range(b, 0, 2);
			for (unsigned int i = 0; i < w->nsge; i++)
				w->sge[i] = (struct sge){ bench_rand(b), (uint32_t)bench_rand(b),
							  (uint32_t)bench_rand(b) };
		}
		w->psn = j ? psn_add(p->w[j - 1].psn, p->w[j - 1].npkts) : p->psn0;
		w->npkts = wqe_pkts(p, w);
		p->nwqe++;
		write_ring(p, j);
	}
	if (p->nwqe > j0) {
		p->w[p->nwqe - 1].signaled = true;
		write_ring(p, p->nwqe - 1);
		p->tx.pi = (uint16_t)(p->base + p->nwqe);
	}
}

/* ---------------------------------------------------------------------------------------
 * The reference: req_ack's contract, one event at a time
 */

static void want_cqe(struct env *e, struct qp *p, uint16_t index, unsigned int status)
{
	unsigned int j = wqe_num(p, index);
	const struct wqe *w = &p->w[j];
	bool ok = status == HROCE_WC_STATUS_SUCCESS;
	unsigned int opcode =
		w->op == HROCE_WR_OPCODE_RDMA_READ ? HROCE_CQE_OP_RDMA_READ
		: w->op == HROCE_WR_OPCODE_SEND || w->op == HROCE_WR_OPCODE_SEND_WITH_IMM
			? HROCE_CQE_OP_SEND
			: HROCE_CQE_OP_RDMA_WRITE;

	if (j >= p->nwqe) {
		FAIL(e, "QP 0x%x: reference completes WQE %u of %u posted", p->qpn, j, p->nwqe);
		return;
	}
	if (ok && !w->signaled)
		return;
	Q_PUSH(e, &e->cqes,
	       ((struct cqe_want){ p->cqn, p->qpn, index, ok ? opcode : 0, status,
				   (unsigned int)(p - e->qp), j, ok ? w->len : 0 }));
}

static void want_ackm(struct env *e, struct qp *p, bool rewind, bool stop)
{
	const struct ackref *r = &p->ref;

	Q_PUSH(e, &e->ackms,
	       ((struct ackm_want){ p->qpn, r->out_ci, r->out_npsn, r->out_pkt, rewind, r->rnr_wait,
				    stop, r->rd_done }));
}

static void want_tmr(struct env *e, struct qp *p, bool arm, uint64_t deadline)
{
	Q_PUSH(e, &e->tmrs, ((struct tmr_want){ p->qpn, arm, arm ? deadline : 0 }));
}

static uint64_t ack_period(const struct qp *p)
{
	return (uint64_t)ACK_UNIT << p->timeout;
}

/* IBTA table 45, in units of 10 us */
static uint64_t rnr_period(unsigned int code)
{
	static const unsigned int t[32] = { 65536, 1,	 2,    3,     4,     6,	    8,	   12,
					    16,	   24,	 32,   48,    64,    96,    128,   192,
					    256,   384,	 512,  768,   1024,  1536,  2048,  3072,
					    4096,  6144, 8192, 12288, 16384, 24576, 32768, 49152 };

	return (uint64_t)RNR_UNIT * t[code & 31];
}

static uint16_t out_end(const struct ackref *r)
{
	return (uint16_t)(r->out_ci + (r->out_pkt != 0));
}

static void progress(struct qp *p, uint64_t now)
{
	p->ref.timer_start = now;
	p->ref.retry_left = p->retry_cnt;
	p->ref.rnr_left = p->rnr_retry;
	p->ref.impl_nak = false;
}

static void ref_rewind(struct env *e, struct qp *p, uint64_t now)
{
	struct ackref *r = &p->ref;

	r->out_ci = r->cc;
	r->out_npsn = r->una;
	r->out_pkt = r->cc_acked;
	r->gen = (r->gen + 1) & 0xff;
	r->timer_start = now;
	e->rewinds++;
}

/* every WQE up to ACK_PI: the one at err_index with status, the others flushed */
static void flush(struct env *e, struct qp *p, bool has_err, uint16_t err_index,
		  unsigned int status, bool stop)
{
	struct ackref *r = &p->ref;

	while (r->cc != r->ack_pi) {
		want_cqe(e, p, r->cc,
			 has_err && err_index == r->cc ? status : HROCE_WC_STATUS_WR_FLUSH_ERR);
		r->cc++;
	}
	r->err = true;
	if (has_err)
		Q_PUSH(e, &e->kicks, p->qpn);
	want_tmr(e, p, false, 0);
	if (stop)
		want_ackm(e, p, false, true);
}

static void ref_txm(struct env *e, const uint32_t *m, uint64_t now)
{
	struct qp *p = qp_of(e, (uint32_t)hroce_bus_get(m, REQ_TXM_QPN));
	struct ackref *r;
	unsigned int kind = (unsigned int)hroce_bus_get(m, REQ_TXM_KIND);
	uint16_t ci = (uint16_t)hroce_bus_get(m, REQ_TXM_CI);
	uint32_t pkt = (uint32_t)hroce_bus_get(m, REQ_TXM_PKT);

	if (!p)
		return;
	r = &p->ref;
	r->ack_pi = (uint16_t)hroce_bus_get(m, REQ_TXM_PI);
	if (kind != REQ_TXM_SENT || r->err) {
		bool has_err = kind == REQ_TXM_ERROR && !r->err;

		flush(e, p, has_err, ci, (unsigned int)hroce_bus_get(m, REQ_TXM_STATUS), false);
		return;
	}
	if (hroce_bus_get(m, REQ_TXM_GEN) != r->gen)
		return;
	bool was_idle = r->cc == out_end(r);

	r->out_ci = ci;
	r->out_npsn = (uint32_t)hroce_bus_get(m, REQ_TXM_NPSN);
	r->out_pkt = pkt;
	if (was_idle && (ci != r->cc || pkt != 0) && !r->rnr_wait) {
		r->timer_start = now;
		if (p->timeout)
			want_tmr(e, p, true, now + ack_period(p));
	}
}

static void complete(struct env *e, struct qp *p, const struct wqe *w, uint64_t now)
{
	struct ackref *r = &p->ref;

	want_cqe(e, p, r->cc, HROCE_WC_STATUS_SUCCESS);
	progress(p, now);
	r->cc++;
	r->una = psn_add(w->psn, w->npkts);
	r->cc_acked = 0;
	if (w->op == HROCE_WR_OPCODE_RDMA_READ)
		r->rd_done = (r->rd_done + 1) & 0xff;
}

static unsigned int nak_status(unsigned int code)
{
	switch (code) {
	case HROCE_AETH_NAK_INV_REQ:
		return HROCE_WC_STATUS_REM_INV_REQ_ERR;
	case HROCE_AETH_NAK_REM_ACCESS:
		return HROCE_WC_STATUS_REM_ACCESS_ERR;
	case HROCE_AETH_NAK_REM_OP:
		return HROCE_WC_STATUS_REM_OP_ERR;
	default:
		return HROCE_WC_STATUS_BAD_RESP_ERR;
	}
}

static void ref_rx(struct env *e, const struct resp *x, uint64_t now)
{
	struct qp *p = &e->qp[x->q];
	struct ackref *r = &p->ref;
	unsigned int type = x->syndrome >> 5, code = x->syndrome & 31;
	bool is_ack = x->opcode == HROCE_RC_OP_ACK;
	bool pos_ack = is_ack && type == HROCE_AETH_TYPE_ACK;
	bool nak = is_ack && type == HROCE_AETH_TYPE_NAK,
	     rnr = is_ack && type == HROCE_AETH_TYPE_RNR;
	uint32_t acked = pos_ack ? x->psn : psn_add(x->psn, PSN_MASK); /* last PSN acknowledged */

	if (r->err || r->cc == out_end(r) ||
	    !psn_le(x->psn, psn_add(r->out_npsn, r->out_pkt + PSN_MASK)) ||
	    (is_ack && !pos_ack && !nak && !rnr))
		return; /* dropped */
	/* the SENDs and WRITEs it acknowledges whole */
	const struct wqe *w;

	for (;;) {
		w = &p->w[wqe_num(p, r->cc)];
		if (w->op == HROCE_WR_OPCODE_RDMA_READ ||
		    !psn_le(psn_add(w->psn, w->npkts - 1), acked))
			break;
		complete(e, p, w, now);
		if (r->cc == out_end(r)) {
			want_tmr(e, p, false, 0);
			return; /* nothing is left it could be about */
		}
	}
	bool is_read = w->op == HROCE_WR_OPCODE_RDMA_READ;
	uint32_t last = psn_add(w->psn, w->npkts - 1);
	bool in_wqe = !is_read && psn_le(r->una, x->psn) && psn_le(x->psn, last);

	if (pos_ack) {
		if (is_read && psn_le(r->una, x->psn) && !r->impl_nak) {
			/* implicit NAK: responses of the READ at SQ_CC were lost */
			ref_rewind(e, p, now);
			r->impl_nak = true;
			e->implicit++;
			want_ackm(e, p, true, false);
		} else if (in_wqe) {
			/* packets of the message at SQ_CC acknowledged (an ACK asked for) */
			progress(p, now);
			if (!psn_le(x->psn, psn_add(r->una, r->cc_acked + PSN_MASK)))
				r->cc_acked = ((x->psn - r->una) & PSN_MASK) + 1;
		}
		return;
	}
	if (rnr || nak) {
		if (rnr && p->rnr_retry != 7 && r->rnr_left == 0) {
			flush(e, p, true, r->cc, HROCE_WC_STATUS_RNR_RETRY_EXC_ERR, true);
			return;
		}
		if (nak && code != HROCE_AETH_NAK_PSN_SEQ) {
			flush(e, p, true, r->cc, nak_status(code), true);
			return;
		}
		if (in_wqe)
			r->cc_acked = (x->psn - r->una) & PSN_MASK;
		ref_rewind(e, p, now);
		if (rnr) {
			r->rnr_wait = true;
			r->rnr_timer = code;
			if (p->rnr_retry != 7)
				r->rnr_left--;
			want_tmr(e, p, true, now + rnr_period(code));
			e->rnrs++;
		} else {
			e->seq_naks++;
		}
		want_ackm(e, p, true, false);
		return;
	}
	/* a READ response */
	uint32_t next = psn_add(r->una, r->cc_acked);

	if (!is_read || !psn_le(r->una, x->psn)) {
		return; /* matches nothing outstanding */
	}
	if (!psn_le(next, x->psn)) {
		e->dup_drops++;
		return; /* received already */
	}
	if (x->psn != next) {
		if (!r->impl_nak) {
			ref_rewind(e, p, now);
			r->impl_nak = true;
			e->implicit++;
			want_ackm(e, p, true, false);
		}
		return;
	}
	/* the response a READ resumed at it would get: FIRST (or ONLY) there, else in turn */
	uint32_t index = (x->psn - r->una) & PSN_MASK, mtu = 1u << p->log_mtu;
	uint32_t left = w->len - index * mtu;
	bool at_last = index == w->npkts - 1;
	bool op_ok = index == 0 && w->npkts == 1 ? x->opcode == HROCE_RC_OP_READ_RESP_ONLY
		     : index == 0		 ? x->opcode == HROCE_RC_OP_READ_RESP_FIRST
		     : at_last			 ? x->opcode == HROCE_RC_OP_READ_RESP_LAST ||
					 x->opcode == HROCE_RC_OP_READ_RESP_ONLY
			       : x->opcode == HROCE_RC_OP_READ_RESP_MIDDLE ||
					 x->opcode == HROCE_RC_OP_READ_RESP_FIRST;

	if (!op_ok || x->len != (left > mtu ? mtu : left))
		return; /* a bad response */
	if (w->bad_end && x->len && x->off + x->len > w->bad_start && x->off < w->bad_end) {
		/* the walk reaches the SGE no MR backs: nothing of this response is placed */
		flush(e, p, true, r->cc, HROCE_WC_STATUS_LOC_PROT_ERR, true);
		return;
	}
	if (x->psn != last) {
		progress(p, now);
		r->cc_acked++;
		return;
	}
	complete(e, p, w, now);
	if (r->cc == out_end(r))
		want_tmr(e, p, false, 0);
	want_ackm(e, p, false, false);
}

static void ref_tmr(struct env *e, struct qp *p, uint64_t now)
{
	struct ackref *r = &p->ref;
	uint64_t deadline =
		r->timer_start + (r->rnr_wait ? rnr_period(r->rnr_timer) : ack_period(p));

	if (r->err || (r->cc == out_end(r) && !r->rnr_wait) || (!r->rnr_wait && !p->timeout)) {
		want_tmr(e, p, false, 0);
	} else if (now < deadline) {
		want_tmr(e, p, true, deadline);
	} else if (r->rnr_wait) {
		/* the ACK timer runs again for the requests sent again */
		want_tmr(e, p, p->timeout != 0, now + ack_period(p));
		r->rnr_wait = false;
		r->timer_start = now;
		want_ackm(e, p, false, false);
	} else if (r->retry_left == 0) {
		flush(e, p, true, r->cc, HROCE_WC_STATUS_RETRY_EXC_ERR, true);
	} else {
		ref_rewind(e, p, now);
		r->retry_left--;
		e->timeouts++;
		want_tmr(e, p, true, now + ack_period(p));
		want_ackm(e, p, true, false);
	}
}

/* ---------------------------------------------------------------------------------------
 * The closed loop: the C req_tx, the wire and the C responder
 */

static void push_txm(struct env *e, struct qp *p, unsigned int kind, unsigned int status)
{
	struct txmsg m = { { 0 } };
	const struct txmodel *t = &p->tx;

	hroce_bus_set(m.w, REQ_TXM_QPN, p->qpn);
	hroce_bus_set(m.w, REQ_TXM_KIND, kind);
	hroce_bus_set(m.w, REQ_TXM_GEN, t->gen);
	hroce_bus_set(m.w, REQ_TXM_CI, t->ci);
	hroce_bus_set(m.w, REQ_TXM_NPSN, t->npsn);
	hroce_bus_set(m.w, REQ_TXM_PKT, t->pkt);
	hroce_bus_set(m.w, REQ_TXM_PI, t->pi);
	hroce_bus_set(m.w, REQ_TXM_STATUS, status);
	Q_PUSH(e, &e->txms, m);
}

/* the wire loses a packet now and then, never more than two of a QP in a row */
static bool wire_drops(struct env *e, struct qp *p)
{
	if (e->sc->drop_pct && p->drops_in_row < 2 && bench_chance(e->b, e->sc->drop_pct)) {
		p->drops_in_row++;
		return true;
	}
	p->drops_in_row = 0;
	return false;
}

static void send_resp(struct env *e, struct qp *p, struct resp r)
{
	if (wire_drops(e, p))
		return;
	r.q = (unsigned int)(p - e->qp);
	Q_PUSH(e, &e->resps, r);
	if (e->sc->dup_pct && bench_chance(e->b, e->sc->dup_pct))
		Q_PUSH(e, &e->resps, r);
}

static void send_ack(struct env *e, struct qp *p, uint32_t psn, unsigned int syndrome, uint64_t seq)
{
	send_resp(
		e, p,
		(struct resp){
			.opcode = HROCE_RC_OP_ACK, .syndrome = syndrome, .psn = psn, .seq = seq });
}

/* the responses of a READ from its response k on, at PSN psn */
static void send_read(struct env *e, struct qp *p, unsigned int j, uint32_t k, uint32_t psn,
		      uint64_t seq)
{
	const struct wqe *w = &p->w[j];
	uint32_t mtu = 1u << p->log_mtu;

	for (uint32_t i = k; i < w->npkts; i++) {
		uint32_t off = i * mtu, len = w->len - off > mtu ? mtu : w->len - off;
		unsigned int op = k + 1 == w->npkts   ? HROCE_RC_OP_READ_RESP_ONLY
				  : i == k	      ? HROCE_RC_OP_READ_RESP_FIRST
				  : i + 1 == w->npkts ? HROCE_RC_OP_READ_RESP_LAST
						      : HROCE_RC_OP_READ_RESP_MIDDLE;

		send_resp(e, p,
			  (struct resp){ .j = j,
					 .opcode = op,
					 .psn = psn_add(psn, i - k),
					 .off = off,
					 .len = len,
					 .seq = seq });
	}
}

/* The responder takes one request packet, as RC does. */
static void respond(struct env *e, struct qp *p, const struct pkt *k, uint64_t seq)
{
	struct respmodel *rs = &p->rs;
	const struct wqe *w = &p->w[k->j];
	bool is_read = w->op == HROCE_WR_OPCODE_RDMA_READ;
	bool is_send = w->op == HROCE_WR_OPCODE_SEND || w->op == HROCE_WR_OPCODE_SEND_WITH_IMM;

	if (rs->err || wire_drops(e, p) || (p->silent_at >= 0 && (int)k->j >= p->silent_at))
		return;
	if (k->psn == rs->epsn) {
		rs->nak_sent = false;
		if ((int)k->j == p->rnr_always_at && k->k == 0) {
			send_ack(e, p, k->psn, HROCE_AETH_TYPE_RNR << 5 | 1, seq);
			rs->nak_sent = true;
			e->rnr_always++;
			return;
		}
		if ((int)k->j == p->error_nak_at) {
			send_ack(e, p, k->psn, HROCE_AETH_TYPE_NAK << 5 | HROCE_AETH_NAK_REM_ACCESS,
				 seq);
			rs->err = true;
			return;
		}
		if (is_send && k->k == 0 && e->sc->rnr_pct && rs->rnr_naks[k->j] < 2 &&
		    bench_chance(e->b, e->sc->rnr_pct)) {
			rs->rnr_naks[k->j]++;
			send_ack(e, p, k->psn,
				 HROCE_AETH_TYPE_RNR << 5 | (unsigned int)bench_range(e->b, 1, 5),
				 seq);
			rs->nak_sent = true;
			return;
		}
		if (is_read) {
			rs->epsn = psn_add(rs->epsn, w->npkts - k->k);
			rs->ack_due = false;
			send_read(e, p, k->j, k->k, k->psn, seq);
			return;
		}
		rs->epsn = psn_add(rs->epsn, 1);
		rs->ack_due = true;
		if (k->ackreq) {
			send_ack(e, p, k->psn, HROCE_AETH_CREDIT_INVALID, seq);
			rs->ack_due = false;
		}
	} else if (psn_le(k->psn, psn_add(rs->epsn, PSN_MASK))) {
		/* a duplicate: a READ is answered again, the rest acknowledged again */
		if (is_read) {
			send_read(e, p, k->j, k->k, k->psn, seq);
		} else if (k->ackreq || k->last) {
			send_ack(e, p, psn_add(rs->epsn, PSN_MASK), HROCE_AETH_CREDIT_INVALID, seq);
			rs->ack_due = false;
		}
	} else if (!rs->nak_sent) {
		send_ack(e, p, rs->epsn, HROCE_AETH_TYPE_NAK << 5 | HROCE_AETH_NAK_PSN_SEQ, seq);
		rs->nak_sent = true;
	}
}

/* req_tx gives the QP a turn: a few packets, then the SENT message that tells of them. */
static void tx_turn(struct env *e, struct qp *p)
{
	struct bench *b = e->b;
	struct txmodel *t = &p->tx;
	struct pkt pk[8];
	unsigned int n = 0, want = (unsigned int)bench_range(b, 1, 6);

	if (t->stopped) {
		if (t->flush_due) {
			push_txm(e, p, REQ_TXM_FLUSH, 0);
			t->flush_due = false;
		}
		return;
	}
	if (t->wait)
		return;
	while (n < want && t->ci != t->pi) {
		unsigned int j = wqe_num(p, t->ci);
		const struct wqe *w = &p->w[j];

		if ((int)j == p->tx_error_at) {
			/* the WQE fails before it goes: req_tx sends nothing more */
			if (n)
				break;
			push_txm(e, p, REQ_TXM_ERROR, HROCE_WC_STATUS_LOC_LEN_ERR);
			t->stopped = true;
			return;
		}
		if (w->op == HROCE_WR_OPCODE_RDMA_READ) {
			pk[n++] = (struct pkt){ (unsigned int)(p - e->qp),
						j,
						psn_add(w->psn, t->pkt),
						t->pkt,
						true,
						true };
			t->pkt = w->npkts;
		} else {
			bool last = t->pkt + 1 == w->npkts;

			pk[n++] = (struct pkt){ (unsigned int)(p - e->qp),
						j,
						psn_add(w->psn, t->pkt),
						t->pkt,
						last ? bench_chance(b, 50) : t->pkt % 4 == 3,
						last };
			t->pkt++;
		}
		if (t->pkt == w->npkts) {
			t->ci++;
			t->npsn = psn_add(w->psn, w->npkts);
			t->pkt = 0;
		}
	}
	if (!n)
		return;
	push_txm(e, p, REQ_TXM_SENT, 0);
	uint64_t seq = e->txm_taken + e->txms.n; /* the SENT message just queued, numbered */

	for (unsigned int i = 0; i < n; i++)
		respond(e, p, &pk[i], seq);
	if (p->rs.ack_due && !p->rs.err && (t->ci == t->pi || bench_chance(b, 60))) {
		send_ack(e, p, psn_add(p->rs.epsn, PSN_MASK), HROCE_AETH_CREDIT_INVALID, seq);
		p->rs.ack_due = false;
	}
}

/* ---------------------------------------------------------------------------------------
 * The agent: everything around req_ack, each handshake held back at random
 */

static void drive_info(struct env *e)
{
	uint8_t info[24] = { 0 }, sge[16] = { 0 };
	struct qp *p = qp_of(e, e->info_qpn);
	bool hit = false;

	if (p && e->info_hit_next) {
		unsigned int j = wqe_num(p, e->info_index);

		if (j < p->nwqe) {
			const struct wqe *w = &p->w[j];

			if (w->nsge) {
				HROCE_SGE_SET(sge, ADDR, w->sge[0].va);
				HROCE_SGE_SET(sge, LENGTH, w->sge[0].len);
				HROCE_SGE_SET(sge, LKEY, w->sge[0].key);
			}
			memcpy(info, sge, 16);
			hroce_mem_set(info, 128, 8, w->nsge);
			hroce_mem_set(info, 136, 32, w->len);
			hroce_mem_set(info, 168, 8, w->signaled ? HROCE_WR_SIGNALED : 0);
			hroce_mem_set(info, 176, 8, w->op);
			hit = true;
			e->info_hits++;
		}
	}
	if (!hit)
		bench_fill(e->b, info, sizeof(info));
	vport_write(e->info_data, info, sizeof(info));
	vport_set(e->info_hit, hit);
}

static void build_hdr(const struct env *e, const struct resp *r, uint32_t *h)
{
	memset(h, 0, HROCE_ROCE_HDR_WORDS * 4);
	HROCE_ROCE_HDR_SET(h, BTH_OPCODE, r->opcode);
	HROCE_ROCE_HDR_SET(h, BTH_DQPN, e->qp[r->q].qpn);
	HROCE_ROCE_HDR_SET(h, BTH_PSN, r->psn);
	HROCE_ROCE_HDR_SET(h, AETH_SYNDROME, r->syndrome);
	HROCE_ROCE_HDR_SET(h, PAYLOAD_LEN, r->len);
}

static void drive(void *ctx)
{
	struct env *e = ctx;
	struct bench *b = e->b;
	struct dut *d = &e->dut;

	/* the host posts, req_tx takes turns */
	if (bench_chance(b, 4)) {
		struct qp *p = &e->qp[bench_range(b, 0, e->sc->qps - 1)];
		unsigned int before = p->nwqe;

		post(e, p, (unsigned int)bench_range(b, 1, 6));
		if (p->nwqe != before && p->tx.stopped)
			p->tx.flush_due = true;
	}
	if (bench_chance(b, 30) && e->resps.n < QUEUE - 100 && e->txms.n < 64)
		tx_turn(e, &e->qp[bench_range(b, 0, e->sc->qps - 1)]);

	if (e->hold_left) {
		e->hold_left--;
		e->hold_cycles++;
	} else if (bench_chance(b, 1) && bench_chance(b, 30)) {
		e->hold_left = (unsigned int)bench_range(b, 1, 30);
	}
	vport_set(e->hold, e->hold_left != 0);
	vport_set(e->time_now, e->time);
	vport_set(e->ack_unit, ACK_UNIT);
	vport_set(e->rnr_unit, RNR_UNIT);

	/* messages from req_tx (held once offered) */
	if (!vport_get(e->sm_valid) || !e->txms.n)
		vport_set(e->sm_valid, e->txms.n && bench_chance(b, 60));
	if (e->txms.n)
		vport_write(e->sm_data, Q_HEAD(&e->txms).w, 16);
	vport_set(e->mm_ready, bench_chance(b, 70));

	/* responses: only once req_tx's message of their packets was taken */
	bool can = e->resps.n && Q_HEAD(&e->resps).seq <= e->txm_taken;

	if (!vport_get(e->hdr_valid) || !can)
		vport_set(e->hdr_valid, can && bench_chance(b, 60));
	if (e->resps.n) {
		uint32_t h[HROCE_ROCE_HDR_WORDS];

		build_hdr(e, &Q_HEAD(&e->resps), h);
		vport_write(e->hdr_data, h, sizeof(h));
	}
	if (e->payloads.n) {
		const struct payload *pl = &Q_HEAD(&e->payloads);
		uint8_t beat[64];
		uint32_t n = pl->len - e->pay_beat > 64 ? 64 : pl->len - e->pay_beat;

		bench_fill(b, beat, sizeof(beat));
		for (uint32_t i = 0; i < n; i++)
			beat[i] = remote_byte(pl->q, pl->j, pl->off + e->pay_beat + i);
		vport_write(e->ax_data, beat, sizeof(beat));
		vport_set(e->ax_keep, n == 64 ? UINT64_MAX : (1ull << n) - 1);
		vport_set(e->ax_last, e->pay_beat + n == pl->len);
		if (!vport_get(e->ax_valid))
			vport_set(e->ax_valid, bench_chance(b, 70));
	} else {
		vport_set(e->ax_valid, 0);
	}

	/* timers: a QP whose deadline passed is handed back */
	if (e->tmr_offer < 0 && bench_chance(b, 50)) {
		unsigned int q0 = (unsigned int)bench_range(b, 0, e->sc->qps - 1);

		for (unsigned int i = 0; i < e->sc->qps; i++) {
			struct qp *p = &e->qp[(q0 + i) % e->sc->qps];

			if (p->armed && e->time >= p->deadline) {
				e->tmr_offer = (int)(p - e->qp);
				break;
			}
		}
	}
	vport_set(e->st_valid, e->tmr_offer >= 0);
	vport_set(e->st_qpn, e->tmr_offer >= 0 ? e->qp[e->tmr_offer].qpn : bench_rand(b));
	vport_set(e->mt_ready, bench_chance(b, 70));
	vport_set(e->err_ready, bench_chance(b, 70));

	/* the context port */
	vport_set(e->cl_ready, !e->lookup_out && bench_chance(b, 70));
	if (e->lookup_out && e->lookup_delay)
		e->lookup_delay--;
	if (e->lookup_out && !e->lookup_delay) {
		struct qp *p = qp_of(e, e->lookup_qpn);
		uint8_t none[HROCE_QPC_BYTES] = { 0 };

		vport_write(e->cr_data, p ? p->ctx : none, HROCE_QPC_BYTES);
		vport_set(e->cr_status, 0);
		vport_set(e->cr_valid, 1);
	} else {
		vport_set(e->cr_valid, 0);
	}
	vport_set(e->cu_ready, bench_chance(b, 70));

	drive_info(e);

	/* the MR translator */
	vport_set(e->mq_ready, e->mrs.n < 64 && bench_chance(b, 60));
	if (e->mrs.n) {
		const struct mr_beat *m = &Q_HEAD(&e->mrs);

		vport_set(e->ms_iova, m->iova);
		vport_set(e->ms_len, m->len);
		vport_set(e->ms_last, m->last);
		vport_set(e->ms_status, m->status);
		if (!vport_get(e->ms_valid))
			vport_set(e->ms_valid, bench_chance(b, 70));
	} else {
		vport_set(e->ms_valid, 0);
	}

	/* the WQE reads */
	vport_set(e->rq_ready, e->rds.n < 4 && bench_chance(b, 60));
	if (e->rds.n) {
		const struct rd_req *r = &Q_HEAD(&e->rds);
		unsigned int q = (unsigned int)((r->addr - SQ_BASE0) >> 24);
		uint32_t off = (uint32_t)(r->addr & 0xffffff) + e->rd_pos;

		vport_write(e->rd_data, &e->qp[q].ring[off], 64);
		vport_set(e->rd_last, e->rd_pos + 64 >= r->len);
		vport_set(e->rd_user, 0);
		if (!vport_get(e->rd_valid))
			vport_set(e->rd_valid, bench_chance(b, 70));
	} else {
		vport_set(e->rd_valid, 0);
	}

	/* the DMA writer */
	vport_set(e->wq_ready, e->wrs.n < 32 && bench_chance(b, 60));
	vport_set(e->wd_ready, bench_chance(b, 70));
	vport_set(e->wdone_valid, e->dones.n && Q_HEAD(&e->dones) <= d->cycle);
	vport_set(e->wdone_error, 0);

	vport_set(e->cq_ready, bench_chance(b, 70));
}

/* The translation of one request, from the QP's MR: a beat per page, or a refusal. */
static void translate(struct env *e)
{
	uint32_t key = (uint32_t)vport_get(e->mq_key), pd = (uint32_t)vport_get(e->mq_pd);
	uint64_t va = vport_get(e->mq_va);
	uint32_t len = (uint32_t)vport_get(e->mq_len);
	unsigned int access = (unsigned int)vport_get(e->mq_access);
	const struct qp *p = NULL;

	for (unsigned int q = 0; q < e->sc->qps; q++)
		if (e->qp[q].key == key)
			p = &e->qp[q];
	unsigned int status = !p				 ? HROCE_MR_XLATE_BAD_KEY
			      : p->pd != pd			 ? HROCE_MR_XLATE_BAD_PD
			      : access != HROCE_PERM_LOCAL_WRITE ? HROCE_MR_XLATE_BAD_ACCESS
			      : va < p->mr_va || va - p->mr_va + len > (uint64_t)MR_PAGES * PAGE
				      ? HROCE_MR_XLATE_BAD_BOUNDS
				      : HROCE_MR_XLATE_OK;

	if (status != HROCE_MR_XLATE_OK) {
		if (key != BAD_KEY)
			FAIL(e, "translation of key 0x%x pd 0x%x va 0x%llx len %u access %u: %s",
			     key, pd, (unsigned long long)va, len, access,
			     hroce_mr_xlate_name(status));
		Q_PUSH(e, &e->mrs, ((struct mr_beat){ 0, 0, true, status }));
		return;
	}
	uint64_t off = va - p->mr_va;

	if (!len)
		Q_PUSH(e, &e->mrs, ((struct mr_beat){ 0, 0, true, status }));
	while (len) {
		uint32_t n =
			PAGE - (uint32_t)(off % PAGE) < len ? PAGE - (uint32_t)(off % PAGE) : len;

		len -= n;
		Q_PUSH(e, &e->mrs,
		       ((struct mr_beat){ (uint64_t)p->frame[off / PAGE] * PAGE + off % PAGE, n,
					  len == 0, status }));
		off += n;
	}
}

/* the write stream's bytes not yet written, and where its packets end */
static uint8_t wr_bytes[1u << 16];
static uint64_t wr_in, wr_ends[64];
static unsigned int wr_nends;

static void write_host(struct env *e)
{
	while (e->wrs.n && wr_in > e->wr_stream) {
		const struct wr_req *w = &Q_HEAD(&e->wrs);
		uint64_t addr = w->addr + e->wr_pos;
		uint8_t v = wr_bytes[e->wr_stream % sizeof(wr_bytes)];
		uint32_t o = addr < (uint64_t)HOST_PAGES * PAGE ? e->owner[addr] : 0;

		if (!o) {
			FAIL(e, "a byte written at 0x%llx, no READ's target",
			     (unsigned long long)addr);
		} else {
			o--;
			unsigned int q = o >> 24, j = (o >> 14) & 1023;
			uint32_t off = o & 0x3fff;
			uint8_t want = remote_byte(q, j, off);

			if (v != want)
				FAIL(e,
				     "QP 0x%x WQE %u byte %u written 0x%02x at 0x%llx, want 0x%02x",
				     e->qp[q].qpn, j, off, v, (unsigned long long)addr, want);
			e->host[addr] = v;
			e->write_bytes++;
		}
		e->wr_stream++;
		if (++e->wr_pos == w->len) {
			uint64_t start = e->wr_stream - w->len;

			for (unsigned int i = 0; i < wr_nends; i++)
				if (wr_ends[i] > start && wr_ends[i] < e->wr_stream)
					FAIL(e, "a write of %u bytes at 0x%llx spans two packets",
					     w->len, (unsigned long long)w->addr);
			while (wr_nends && wr_ends[0] <= e->wr_stream) {
				memmove(wr_ends, wr_ends + 1, --wr_nends * sizeof(wr_ends[0]));
			}
			Q_PUSH(e, &e->dones, (uint32_t)(e->dut.cycle + bench_range(e->b, 1, 20)));
			e->wr_pos = 0;
			Q_POP(&e->wrs);
		}
	}
}

static void check_read_placed(struct env *e, const struct qp *p, unsigned int j)
{
	const struct wqe *w = &p->w[j];
	uint32_t off = 0;

	for (unsigned int i = 0; i < w->nsge; i++)
		for (uint32_t k = 0; k < w->sge[i].len; k++, off++) {
			uint64_t m = w->sge[i].va - p->mr_va + k;
			uint64_t addr = (uint64_t)p->frame[m / PAGE] * PAGE + m % PAGE;
			uint8_t want = remote_byte((unsigned int)(p - e->qp), j, off);

			if (e->host[addr] != want) {
				FAIL(e,
				     "QP 0x%x READ WQE %u completed, byte %u at 0x%llx is 0x%02x, "
				     "want 0x%02x",
				     p->qpn, j, off, (unsigned long long)addr, e->host[addr], want);
				return;
			}
		}
	e->reads_placed++;
}

static void check_cqe(struct env *e)
{
	uint8_t c[32];
	uint32_t cqn = (uint32_t)vport_get(e->cq_cqn);

	vport_read(e->cq_data, c, sizeof(c));
	unsigned int index = (unsigned int)HROCE_CQE_GET(c, WQE_INDEX);
	unsigned int opcode = (unsigned int)HROCE_CQE_GET(c, OPCODE);
	unsigned int status = (unsigned int)HROCE_CQE_GET(c, STATUS);
	uint32_t len = (uint32_t)HROCE_CQE_GET(c, BYTE_LEN), qpn = (uint32_t)HROCE_CQE_GET(c, QPN);
	struct qp *p = qp_of(e, qpn);

	if (!e->cqes.n) {
		FAIL(e, "a CQE not expected: QP 0x%x index %u status %s", qpn, index,
		     hroce_wc_status_name(status));
		return;
	}
	const struct cqe_want *x = &Q_HEAD(&e->cqes);

	if (cqn != x->cqn || qpn != x->qpn || index != x->index || opcode != x->opcode ||
	    status != x->status || len != x->len || !HROCE_CQE_GET(c, FROM_SQ) ||
	    HROCE_CQE_GET(c, WITH_IMM) || HROCE_CQE_GET(c, IMM))
		FAIL(e,
		     "CQE: CQ 0x%x QP 0x%x index %u opcode %u %s len %u, want CQ 0x%x QP 0x%x "
		     "index %u opcode %u %s len %u",
		     cqn, qpn, index, opcode, hroce_wc_status_name(status), len, x->cqn, x->qpn,
		     x->index, x->opcode, hroce_wc_status_name(x->status), x->len);
	Q_POP(&e->cqes);
	if (!p)
		return;
	/* in order, once each: the WQEs skipped were unsignaled and completed well */
	unsigned int j = wqe_num(p, (uint16_t)index);

	if (j < p->next_cqe || j >= p->nwqe) {
		FAIL(e, "QP 0x%x: CQE of WQE %u, next is %u of %u posted", qpn, j, p->next_cqe,
		     p->nwqe);
		return;
	}
	for (unsigned int i = p->next_cqe; i < j; i++)
		if (p->w[i].signaled || p->failed_seen)
			FAIL(e, "QP 0x%x: WQE %u (signaled %u) has no CQE before WQE %u's", qpn, i,
			     p->w[i].signaled, j);
	/* once one failed, the others flush (the failed one may come after the flushed WQEs
	 * that were in flight before it) */
	if (p->failed_seen && status == HROCE_WC_STATUS_SUCCESS)
		FAIL(e, "QP 0x%x: WQE %u completes well after a failed one", qpn, j);
	if (status != HROCE_WC_STATUS_SUCCESS && status != HROCE_WC_STATUS_WR_FLUSH_ERR &&
	    p->errors++)
		FAIL(e, "QP 0x%x: WQE %u fails with %s, a second error", qpn, j,
		     hroce_wc_status_name(status));
	if (status != HROCE_WC_STATUS_SUCCESS && status != HROCE_WC_STATUS_WR_FLUSH_ERR)
		p->error_status = status;
	if (status != HROCE_WC_STATUS_SUCCESS)
		p->failed_seen = true;
	if (status == HROCE_WC_STATUS_SUCCESS && p->w[j].op == HROCE_WR_OPCODE_RDMA_READ)
		check_read_placed(e, p, j);
	p->next_cqe = p->known_done = j + 1;
	e->cqes_seen++;
	e->last_progress = e->dut.cycle;
}

static void check_ctx_update(struct env *e)
{
	uint8_t c[HROCE_QPC_BYTES];
	struct qp *p = qp_of(e, (uint32_t)vport_get(e->cu_index));

	vport_read(e->cu_data, c, sizeof(c));
	if (!p) {
		FAIL(e, "update of QP 0x%x's context, no such QP",
		     (unsigned int)vport_get(e->cu_index));
		return;
	}
	for (unsigned int i = 0; i < HROCE_QPC_BYTES; i++)
		if ((i < HROCE_QPC_ACK_BYTE || i >= HROCE_QPC_ACK_BYTE + 32) && c[i] != p->ctx[i]) {
			FAIL(e, "QP 0x%x: context byte %u written 0x%02x, was 0x%02x", p->qpn, i,
			     c[i], p->ctx[i]);
			return;
		}
	const struct ackref *r = &p->ref;
	struct {
		const char *name;
		uint64_t got, want;
	} f[] = {
		{ "SQ_CC", HROCE_QPC_GET(c, SQ_CC), r->cc },
		{ "ACK_PI", HROCE_QPC_GET(c, ACK_PI), r->ack_pi },
		{ "REQ_ERR", HROCE_QPC_GET(c, REQ_ERR), r->err },
		{ "RNR_WAIT", HROCE_QPC_GET(c, RNR_WAIT), r->rnr_wait },
		{ "IMPL_NAK", HROCE_QPC_GET(c, IMPL_NAK), r->impl_nak },
		{ "ACK_GEN", HROCE_QPC_GET(c, ACK_GEN), r->gen },
		{ "UNA_PSN", HROCE_QPC_GET(c, UNA_PSN), r->una },
		{ "RD_DONE", HROCE_QPC_GET(c, RD_DONE), r->rd_done },
		{ "OUT_CI", HROCE_QPC_GET(c, OUT_CI), r->out_ci },
		{ "RETRY_LEFT", HROCE_QPC_GET(c, RETRY_LEFT), r->retry_left },
		{ "RNR_LEFT", HROCE_QPC_GET(c, RNR_LEFT), r->rnr_left },
		{ "OUT_NPSN", HROCE_QPC_GET(c, OUT_NPSN), r->out_npsn },
		{ "OUT_PKT", HROCE_QPC_GET(c, OUT_PKT), r->out_pkt },
		{ "TIMER_START", HROCE_QPC_GET(c, TIMER_START), r->timer_start },
		{ "CC_ACKED", HROCE_QPC_GET(c, CC_ACKED), r->cc_acked },
	};

	for (unsigned int i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (f[i].got != f[i].want) {
			FAIL(e, "QP 0x%x: context update %s 0x%llx, want 0x%llx", p->qpn, f[i].name,
			     (unsigned long long)f[i].got, (unsigned long long)f[i].want);
			return;
		}
	if (r->rnr_wait && HROCE_QPC_GET(c, RNR_TIMER) != r->rnr_timer)
		FAIL(e, "QP 0x%x: context update RNR_TIMER %u, want %u", p->qpn,
		     (unsigned int)HROCE_QPC_GET(c, RNR_TIMER), r->rnr_timer);
	memcpy(p->ctx + HROCE_QPC_ACK_BYTE, c + HROCE_QPC_ACK_BYTE, 32);
}

/* a message to req_tx: as the reference says, then applied by the C req_tx */
static void take_ackm(struct env *e)
{
	uint32_t m[4] = { 0 };

	vport_read(e->mm_data, m, 16);
	struct ackm_want got = { (uint32_t)hroce_bus_get(m, REQ_ACKM_QPN),
				 (uint32_t)hroce_bus_get(m, REQ_ACKM_CI),
				 (uint32_t)hroce_bus_get(m, REQ_ACKM_NPSN),
				 (uint32_t)hroce_bus_get(m, REQ_ACKM_PKT),
				 hroce_bus_get(m, REQ_ACKM_REWIND) != 0,
				 hroce_bus_get(m, REQ_ACKM_WAIT) != 0,
				 hroce_bus_get(m, REQ_ACKM_STOP) != 0,
				 (unsigned int)hroce_bus_get(m, REQ_ACKM_RD_DONE) };
	struct qp *p = qp_of(e, got.qpn);

	if (!e->ackms.n) {
		FAIL(e, "a message to req_tx not expected: QP 0x%x rewind %u to %u/0x%x/%u",
		     got.qpn, got.rewind, got.ci, got.npsn, got.pkt);
		return;
	}
	const struct ackm_want *x = &Q_HEAD(&e->ackms);

	if (got.qpn != x->qpn || got.rewind != x->rewind || got.wait != x->wait ||
	    got.stop != x->stop || got.rd_done != x->rd_done ||
	    (got.rewind && (got.ci != x->ci || got.npsn != x->npsn || got.pkt != x->pkt)))
		FAIL(e,
		     "message to req_tx: QP 0x%x rewind %u wait %u stop %u to CI %u NPSN 0x%x "
		     "PKT %u RD_DONE %u, want QP 0x%x rewind %u wait %u stop %u to %u 0x%x %u %u",
		     got.qpn, got.rewind, got.wait, got.stop, got.ci, got.npsn, got.pkt,
		     got.rd_done, x->qpn, x->rewind, x->wait, x->stop, x->ci, x->npsn, x->pkt,
		     x->rd_done);
	Q_POP(&e->ackms);
	e->last_progress = e->dut.cycle;
	if (!p)
		return;
	struct txmodel *t = &p->tx;

	if (got.rewind) {
		/* the model's own view: back to the first packet not acknowledged */
		unsigned int j = wqe_num(p, (uint16_t)got.ci);

		if (j >= p->nwqe || got.npsn != p->w[j].psn || got.pkt >= p->w[j].npkts)
			FAIL(e, "QP 0x%x: rewind to WQE %u PSN 0x%x packet %u, not a packet sent",
			     p->qpn, j, got.npsn, got.pkt);
		else if (!t->stopped) {
			t->ci = (uint16_t)got.ci;
			t->npsn = got.npsn;
			t->pkt = got.pkt;
			t->gen = (t->gen + 1) & 0xff;
		}
	}
	t->wait = got.wait;
	if (got.stop && !t->stopped) {
		t->stopped = true;
		t->flush_due = true;
	}
}

static void take_tmr_update(struct env *e)
{
	struct tmr_want got = { (uint32_t)vport_get(e->mt_qpn), vport_get(e->mt_arm) != 0,
				vport_get(e->mt_deadline) };
	struct qp *p = qp_of(e, got.qpn);

	if (!got.arm)
		got.deadline = 0;
	if (!e->tmrs.n) {
		FAIL(e, "a timer update not expected: QP 0x%x arm %u", got.qpn, got.arm);
		return;
	}
	const struct tmr_want *x = &Q_HEAD(&e->tmrs);

	if (got.qpn != x->qpn || got.arm != x->arm || got.deadline != x->deadline)
		FAIL(e, "timer update QP 0x%x arm %u deadline %llu, want QP 0x%x arm %u %llu",
		     got.qpn, got.arm, (unsigned long long)got.deadline, x->qpn, x->arm,
		     (unsigned long long)x->deadline);
	Q_POP(&e->tmrs);
	if (p) {
		p->armed = got.arm;
		p->deadline = got.deadline;
	}
}

static void sample(void *ctx)
{
	struct env *e = ctx;
	struct dut *d = &e->dut;
	unsigned int takes = 0;

	if (vport_get(e->sm_valid) && vport_get(e->sm_ready)) {
		ref_txm(e, Q_HEAD(&e->txms).w, e->time);
		Q_POP(&e->txms);
		e->txm_taken++;
		takes++;
	}
	if (vport_get(e->hdr_valid) && vport_get(e->hdr_ready)) {
		const struct resp *r = &Q_HEAD(&e->resps);

		ref_rx(e, r, e->time);
		if (r->len)
			Q_PUSH(e, &e->payloads, ((struct payload){ r->q, r->j, r->off, r->len }));
		Q_POP(&e->resps);
		takes++;
	}
	if (vport_get(e->st_valid) && vport_get(e->st_ready)) {
		struct qp *p = &e->qp[e->tmr_offer];

		p->armed = false;
		ref_tmr(e, p, e->time);
		e->tmr_offer = -1;
		takes++;
	}
	if (takes > 1)
		FAIL(e, "cycle %llu: %u events taken at once", (unsigned long long)d->cycle, takes);
	if (takes)
		e->last_progress = d->cycle;
	if (vport_get(e->ax_valid) && vport_get(e->ax_ready)) {
		const struct payload *pl = &Q_HEAD(&e->payloads);

		e->pay_beat += pl->len - e->pay_beat > 64 ? 64 : pl->len - e->pay_beat;
		if (e->pay_beat == pl->len) {
			Q_POP(&e->payloads);
			e->pay_beat = 0;
		}
	}
	if (vport_get(e->mm_valid) && vport_get(e->mm_ready))
		take_ackm(e);
	if (vport_get(e->mt_valid) && vport_get(e->mt_ready))
		take_tmr_update(e);
	if (vport_get(e->err_valid) && vport_get(e->err_ready)) {
		uint32_t qpn = (uint32_t)vport_get(e->err_qpn);

		if (!e->kicks.n || Q_HEAD(&e->kicks) != qpn)
			FAIL(e, "QP 0x%x put in error for the responder, want %s 0x%x", qpn,
			     e->kicks.n ? "QP" : "none", e->kicks.n ? Q_HEAD(&e->kicks) : 0);
		if (e->kicks.n)
			Q_POP(&e->kicks);
	}
	if (vport_get(e->cq_valid) && vport_get(e->cq_ready))
		check_cqe(e);

	/* the context port */
	if (vport_get(e->cl_valid) && vport_get(e->cl_ready)) {
		e->lookup_out = true;
		e->lookup_qpn = (uint32_t)vport_get(e->cl_index);
		e->lookup_delay = (unsigned int)bench_range(e->b, 0, 3);
	}
	if (vport_get(e->cr_valid) && vport_get(e->cr_ready))
		e->lookup_out = false;
	if (vport_get(e->cu_valid) && vport_get(e->cu_ready))
		check_ctx_update(e);
	e->info_qpn = (uint32_t)vport_get(e->info_qpn_p);
	e->info_index = (uint16_t)vport_get(e->info_index_p);
	e->info_hit_next = bench_chance(e->b, 50);

	/* MR translation */
	if (vport_get(e->mq_valid) && vport_get(e->mq_ready))
		translate(e);
	if (vport_get(e->ms_valid) && vport_get(e->ms_ready))
		Q_POP(&e->mrs);

	/* WQE reads */
	if (vport_get(e->rq_valid) && vport_get(e->rq_ready)) {
		uint64_t addr = vport_get(e->rq_addr);
		uint32_t len = (uint32_t)vport_get(e->rq_len);
		unsigned int q = (unsigned int)((addr - SQ_BASE0) >> 24);
		uint32_t off = (uint32_t)(addr & 0xffffff);

		if (addr < SQ_BASE0 || q >= e->sc->qps || off % 64 || !len || len % 64 ||
		    off + len > (64u << e->qp[q].stride) << LOG_SQ) {
			FAIL(e, "WQE read of %u bytes at 0x%llx: not in a send queue", len,
			     (unsigned long long)addr);
		} else {
			Q_PUSH(e, &e->rds, ((struct rd_req){ addr, len }));
			e->wqe_reads++;
		}
	}
	if (vport_get(e->rd_valid) && vport_get(e->rd_ready)) {
		e->rd_pos += 64;
		if (e->rd_pos >= Q_HEAD(&e->rds).len) {
			Q_POP(&e->rds);
			e->rd_pos = 0;
		}
	}

	/* READ data to host memory */
	if (vport_get(e->wq_valid) && vport_get(e->wq_ready)) {
		uint32_t len = (uint32_t)vport_get(e->wq_len);

		if (!len)
			FAIL(e, "a write of 0 bytes");
		Q_PUSH(e, &e->wrs, ((struct wr_req){ vport_get(e->wq_addr), len }));
	}
	if (vport_get(e->wd_valid) && vport_get(e->wd_ready)) {
		uint8_t beat[64];
		uint64_t keep = vport_get(e->wd_keep);
		unsigned int n = 0;

		vport_read(e->wd_data, beat, sizeof(beat));
		while (n < 64 && (keep >> n & 1))
			n++;
		if (n < 64 && keep >> n)
			FAIL(e, "write beat keep 0x%llx not contiguous from lane 0",
			     (unsigned long long)keep);
		for (unsigned int i = 0; i < n; i++)
			wr_bytes[(wr_in + i) % sizeof(wr_bytes)] = beat[i];
		wr_in += n;
		if (vport_get(e->wd_last)) {
			if (wr_nends == 64)
				FAIL(e, "too many write packets waiting");
			else
				wr_ends[wr_nends++] = wr_in;
		}
	}
	write_host(e);
	if (vport_get(e->wdone_valid))
		Q_POP(&e->dones);

	/* time stands still while req_ack works on an event */
	if (!takes && vport_get(e->idle))
		e->time++;
}

/* ---------------------------------------------------------------------------------------
 * Scenarios
 */

static void open_ports(struct env *e)
{
	static const struct dut_port_ref ports[] = {
#define P(field, name) DUT_PORT(struct env, field, name)
		P(hold, "hold"),
		P(idle, "idle"),
		P(time_now, "time_now"),
		P(ack_unit, "cfg_ack_unit"),
		P(rnr_unit, "cfg_rnr_unit"),
		P(st_qpn, "s_tmr_qpn"),
		P(st_valid, "s_tmr_valid"),
		P(st_ready, "s_tmr_ready"),
		P(mt_qpn, "m_tmr_qpn"),
		P(mt_arm, "m_tmr_arm"),
		P(mt_deadline, "m_tmr_deadline"),
		P(mt_valid, "m_tmr_valid"),
		P(mt_ready, "m_tmr_ready"),
		P(err_qpn, "m_err_qpn"),
		P(err_valid, "m_err_valid"),
		P(err_ready, "m_err_ready"),
		P(sm_data, "s_msg_data"),
		P(sm_valid, "s_msg_valid"),
		P(sm_ready, "s_msg_ready"),
		P(mm_data, "m_msg_data"),
		P(mm_valid, "m_msg_valid"),
		P(mm_ready, "m_msg_ready"),
		P(info_qpn_p, "m_info_qpn"),
		P(info_index_p, "m_info_index"),
		P(info_data, "s_info_data"),
		P(info_hit, "s_info_hit"),
		P(hdr_data, "s_hdr_data"),
		P(hdr_valid, "s_hdr_valid"),
		P(hdr_ready, "s_hdr_ready"),
		P(ax_data, "s_axis_tdata"),
		P(ax_keep, "s_axis_tkeep"),
		P(ax_valid, "s_axis_tvalid"),
		P(ax_ready, "s_axis_tready"),
		P(ax_last, "s_axis_tlast"),
		P(cl_index, "m_ctx_lookup_index"),
		P(cl_valid, "m_ctx_lookup_valid"),
		P(cl_ready, "m_ctx_lookup_ready"),
		P(cr_data, "s_ctx_lookup_data"),
		P(cr_status, "s_ctx_lookup_status"),
		P(cr_valid, "s_ctx_lookup_valid"),
		P(cr_ready, "s_ctx_lookup_ready"),
		P(cu_index, "m_ctx_update_index"),
		P(cu_data, "m_ctx_update_data"),
		P(cu_valid, "m_ctx_update_valid"),
		P(cu_ready, "m_ctx_update_ready"),
		P(mq_key, "m_mr_req_key"),
		P(mq_pd, "m_mr_req_pd"),
		P(mq_va, "m_mr_req_va"),
		P(mq_len, "m_mr_req_len"),
		P(mq_access, "m_mr_req_access"),
		P(mq_valid, "m_mr_req_valid"),
		P(mq_ready, "m_mr_req_ready"),
		P(ms_iova, "s_mr_resp_iova"),
		P(ms_len, "s_mr_resp_len"),
		P(ms_last, "s_mr_resp_last"),
		P(ms_status, "s_mr_resp_status"),
		P(ms_valid, "s_mr_resp_valid"),
		P(ms_ready, "s_mr_resp_ready"),
		P(rq_addr, "m_wqe_rd_req_addr"),
		P(rq_len, "m_wqe_rd_req_len"),
		P(rq_valid, "m_wqe_rd_req_valid"),
		P(rq_ready, "m_wqe_rd_req_ready"),
		P(rd_data, "s_wqe_rd_axis_tdata"),
		P(rd_valid, "s_wqe_rd_axis_tvalid"),
		P(rd_ready, "s_wqe_rd_axis_tready"),
		P(rd_last, "s_wqe_rd_axis_tlast"),
		P(rd_user, "s_wqe_rd_axis_tuser"),
		P(wq_addr, "m_wr_req_addr"),
		P(wq_len, "m_wr_req_len"),
		P(wq_valid, "m_wr_req_valid"),
		P(wq_ready, "m_wr_req_ready"),
		P(wd_data, "m_wr_axis_tdata"),
		P(wd_keep, "m_wr_axis_tkeep"),
		P(wd_valid, "m_wr_axis_tvalid"),
		P(wd_ready, "m_wr_axis_tready"),
		P(wd_last, "m_wr_axis_tlast"),
		P(wdone_valid, "s_wr_done_valid"),
		P(wdone_error, "s_wr_done_error"),
		P(cq_cqn, "m_cqe_cqn"),
		P(cq_data, "m_cqe_data"),
		P(cq_valid, "m_cqe_valid"),
		P(cq_ready, "m_cqe_ready"),
#undef P
	};

	dut_ports(&e->dut, e, ports, sizeof(ports) / sizeof(ports[0]));
}

static bool all_done(struct env *e)
{
	for (unsigned int q = 0; q < e->sc->qps; q++) {
		const struct qp *p = &e->qp[q];

		if (p->nwqe < e->sc->wqes || p->ref.cc != (uint16_t)(p->base + p->nwqe) ||
		    p->tx.flush_due)
			return false;
	}
	return !e->resps.n && !e->payloads.n && !e->txms.n && !e->cqes.n && !e->ackms.n &&
	       !e->tmrs.n && !e->kicks.n && !e->wrs.n && !e->dones.n && !e->rds.n && !e->mrs.n &&
	       wr_in == e->wr_stream && vport_get(e->idle) && !vport_get(e->mt_valid) &&
	       !vport_get(e->err_valid);
}

/* at the end: every signaled WQE's CQE came, every READ done is in memory, nothing else */
static void final_checks(struct env *e)
{
	for (unsigned int q = 0; q < e->sc->qps && !e->err[0]; q++) {
		const struct qp *p = &e->qp[q];

		if (p->next_cqe != p->nwqe)
			FAIL(e, "QP 0x%x: last CQE for WQE %u of %u", p->qpn, p->next_cqe, p->nwqe);
		if (p->armed)
			FAIL(e, "QP 0x%x: its timer still armed with nothing in flight", p->qpn);
		/* the error the responder or req_tx gave, and no other */
		unsigned int want = p->bad_mr_at >= 0	    ? HROCE_WC_STATUS_LOC_PROT_ERR
				    : p->error_nak_at >= 0  ? HROCE_WC_STATUS_REM_ACCESS_ERR
				    : p->tx_error_at >= 0   ? HROCE_WC_STATUS_LOC_LEN_ERR
				    : p->rnr_always_at >= 0 ? HROCE_WC_STATUS_RNR_RETRY_EXC_ERR
				    : p->silent_at >= 0	    ? HROCE_WC_STATUS_RETRY_EXC_ERR
							    : 0;

		/* an error NAK lost leaves a responder in error silent: the retries run out */
		if (p->error_nak_at >= 0 && e->sc->drop_pct &&
		    p->error_status == HROCE_WC_STATUS_RETRY_EXC_ERR)
			want = HROCE_WC_STATUS_RETRY_EXC_ERR;
		if (p->errors != (want != 0) || (want && p->error_status != want))
			FAIL(e, "QP 0x%x: %u errors (%s), want %s", p->qpn, p->errors,
			     hroce_wc_status_name(p->error_status),
			     want ? hroce_wc_status_name(want) : "none");
	}
	for (uint64_t a = 0; a < (uint64_t)HOST_PAGES * PAGE && !e->err[0]; a++) {
		uint32_t o = e->owner[a];

		if (!o) {
			if (e->host[a] != e->orig[a])
				FAIL(e, "host byte 0x%llx changed, no READ's target",
				     (unsigned long long)a);
			continue;
		}
		o--;
		unsigned int q = o >> 24, j = (o >> 14) & 1023;
		const struct qp *p = &e->qp[q];
		uint8_t want = remote_byte(q, j, o & 0x3fff);

		/* a READ flushed may have placed some of its data (each byte written was checked
		 * as it came), the others all of it */
		if (e->host[a] != want && !(p->failed_seen && e->host[a] == e->orig[a]))
			FAIL(e, "QP 0x%x READ WQE %u byte %u at 0x%llx is 0x%02x, want 0x%02x",
			     p->qpn, j, o & 0x3fff, (unsigned long long)a, e->host[a], want);
	}
}

static void run(struct bench *b, const struct scenario *sc)
{
	static struct env env;
	struct env *e = &env;
	unsigned int wqes_quick = sc->wqes / 4 > 10 ? sc->wqes / 4 : 10;
	struct scenario s = *sc;

	if (b->quick)
		s.wqes = wqes_quick;
	if (s.qps > MAX_QPS || s.qps < 2 || s.wqes > MAX_WQES || s.wqes < 10) {
		fprintf(stderr, "test_req_ack: %s: %u QPs x %u WQEs: 2..%u QPs, 10..%u WQEs\n",
			s.name, s.qps, s.wqes, MAX_QPS, MAX_WQES);
		exit(2);
	}
	memset(e, 0, sizeof(*e));
	e->b = b;
	e->sc = &s;
	e->tmr_offer = -1;
	wr_in = 0;
	wr_nends = 0;
	e->host = malloc((size_t)HOST_PAGES * PAGE);
	e->orig = malloc((size_t)HOST_PAGES * PAGE);
	e->owner = calloc((size_t)HOST_PAGES * PAGE, sizeof(uint32_t));
	if (!e->host || !e->orig || !e->owner) {
		fprintf(stderr, "test_req_ack: out of memory\n");
		exit(1);
	}
	bench_fill(b, e->host, (size_t)HOST_PAGES * PAGE);
	memcpy(e->orig, e->host, (size_t)HOST_PAGES * PAGE);
	setup_qps(e);
	if (s.error_nak)
		e->qp[0].error_nak_at = (int)bench_range(b, 2, s.wqes - 2);
	if (s.tx_error)
		e->qp[1].tx_error_at = (int)bench_range(b, 2, s.wqes - 2);
	if (s.bad_mr)
		e->qp[2].bad_mr_at = (int)bench_range(b, 2, s.wqes - 2);
	if (s.exhaust) {
		/* RNR_RETRY 2: the third RNR NAK in a row fails the WQE */
		struct qp *p = &e->qp[0];

		p->rnr_always_at = (int)bench_range(b, 2, s.wqes - 2);
		p->rnr_retry = p->ref.rnr_left = 2;
		HROCE_QPC_SET(p->ctx, RNR_RETRY, 2);
		HROCE_QPC_SET(p->ctx, RNR_LEFT, 2);
		e->qp[1].silent_at = (int)bench_range(b, 2, s.wqes - 2);
	}
	for (unsigned int q = 0; q < s.qps; q++)
		post(e, &e->qp[q], (unsigned int)bench_range(b, 1, 8));
	dut_open(&e->dut, b, &vmodel_Vreq_ack);
	open_ports(e);
	dut_reset(&e->dut, 4);
	dut_add_agent(&e->dut, drive, sample, e);
	e->last_progress = e->dut.cycle;
	while (!e->err[0] && !all_done(e)) {
		dut_step(&e->dut);
		if (e->dut.cycle - e->last_progress > HANG_CYCLES) {
			FAIL(e, "no progress for %u cycles", HANG_CYCLES);
			for (unsigned int q = 0; q < s.qps; q++) {
				const struct qp *p = &e->qp[q];

				bench_log(
					b,
					"QP 0x%x: %u posted, ref CC %u, tx CI %u stopped %u wait %u, "
					"next CQE %u, armed %u; ref OUT %u/%u gen %u/%u, RNR wait %u, "
					"implicit NAK %u, retries %u",
					p->qpn, p->nwqe, wqe_num(p, p->ref.cc),
					wqe_num(p, p->tx.ci), p->tx.stopped, p->tx.wait,
					p->next_cqe, p->armed, wqe_num(p, p->ref.out_ci),
					p->ref.out_pkt, p->ref.gen, p->tx.gen, p->ref.rnr_wait,
					p->ref.impl_nak, p->ref.retry_left);
			}
		}
	}
	if (!e->err[0])
		final_checks(e);
	bench_log(b,
		  "%s: %u QPs x %u WQEs in %llu cycles: %u CQEs, %u READs checked in place, "
		  "%u bytes written; %u rewinds (%u timeouts, %u RNR, %u implicit, %u sequence "
		  "NAKs), %u duplicate responses dropped; %u WQE reads, %u wqe_info hits "
		  "offered, %u cycles on hold",
		  s.name, s.qps, s.wqes, (unsigned long long)e->dut.cycle, e->cqes_seen,
		  e->reads_placed, e->write_bytes, e->rewinds, e->timeouts, e->rnrs, e->implicit,
		  e->seq_naks, e->dup_drops, e->wqe_reads, e->info_hits, e->hold_cycles);
	if (!e->err[0] && (!e->cqes_seen || !e->wqe_reads || !e->info_hits))
		FAIL(e, "%u CQEs, %u WQE reads, %u wqe_info hits: the paths were not all taken",
		     e->cqes_seen, e->wqe_reads, e->info_hits);
	if (!e->err[0] && s.cover && (!e->timeouts || !e->implicit || !e->seq_naks))
		FAIL(e, "a lossy run without a timeout, an implicit NAK or a sequence NAK");
	if (!e->err[0] && s.exhaust && e->rnr_always < 3)
		FAIL(e, "%u RNR NAKs for the SEND that never finds a RECV", e->rnr_always);
	if (!e->err[0] && s.cover && !e->rnrs)
		FAIL(e, "a run with RNR NAKs and none came");
	bench_result(b, s.name, !e->err[0], "%s", e->err);
	dut_close(&e->dut);
	free(e->host);
	free(e->orig);
	free(e->owner);
}

int main(int argc, char **argv)
{
	static const struct scenario scenarios[] = {
		{ .name = "req_ack_clean",
		  .qps = 8,
		  .wqes = 400,
		  .log_mtu_max = 10,
		  .max_len = 3000 },
		{ .name = "req_ack_lossy",
		  .qps = 6,
		  .wqes = 800,
		  .drop_pct = 4,
		  .dup_pct = 3,
		  .rnr_pct = 5,
		  .cover = true,
		  .log_mtu_max = 9,
		  .max_len = 2000 },
		{ .name = "req_ack_errors",
		  .qps = 4,
		  .wqes = 100,
		  .error_nak = true,
		  .tx_error = true,
		  .bad_mr = true,
		  .log_mtu_max = 10,
		  .max_len = 3000 },
		{ .name = "req_ack_retries_exceeded",
		  .qps = 3,
		  .wqes = 60,
		  .exhaust = true,
		  .log_mtu_max = 10,
		  .max_len = 3000 },
		{ .name = "req_ack_errors_lossy",
		  .qps = 4,
		  .wqes = 100,
		  .drop_pct = 3,
		  .dup_pct = 2,
		  .rnr_pct = 3,
		  .error_nak = true,
		  .tx_error = true,
		  .bad_mr = true,
		  .log_mtu_max = 9,
		  .max_len = 2000 },
	};
	struct bench b;

	bench_init(&b, "test_req_ack", argc, argv);
	for (unsigned int i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		run(&b, &scenarios[i]);
	return bench_finish(&b);
}
