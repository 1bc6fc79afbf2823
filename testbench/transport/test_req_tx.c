// SPDX-License-Identifier: MIT
/*
 * Bench of req_tx, the RC requester's sending side, alone.
 *
 * The bench is everything around it, as its neighbours in the core guarantee (and no
 * more): the QP context memory (lookups answered after a random latency with the whole
 * context; each update may change only the bytes req_tx owns, QPC_REQ_BYTE..+31, and
 * only those are applied); the host, which posts WQEs of the project's format into each
 * QP's send ring (SEND, SEND_IMM, WRITE, WRITE_IMM, READ; inline or by 0..N SGEs;
 * signalled, solicited, fenced or not; one to many MTUs) and rings doorbells, some
 * carrying the last WQE (pushed), and reuses a ring slot only once its WQE is
 * acknowledged; the DMA reader of the rings (aligned) and of payload (byte stream), each
 * with several requests in flight answered after their own latency; the MR translator
 * (walk_model.c's C model, late and in bursts); req_ack as a C model (it takes every
 * message, acknowledges what went on the link, answers READs, gives turns, rewinds to
 * the oldest packet not acknowledged, asks for RNR waits and stops); the responder's error
 * input; hold, raised now and then until the engine is idle (as the command engine
 * does); and the link, taking headers and payload beats with back-pressure.
 *
 * A C reference requester says, per QP, which packets must go on the link and in which
 * order: from SQ_CI on, each WQE told of by a doorbell in max(1, ceil(len / MTU)) packets
 * (a READ in one request for as many PSNs as its responses), PSNs in sequence, each
 * header bit for bit (opcode FIRST/MIDDLE/LAST/ONLY with or without immediate, AckReq at
 * a message's end and every 64 packets, SE, RETH with the READ's moved on when resumed,
 * immediate, destination QP, the path from the context, payload length) and its payload
 * bytes (the SGEs' walk through the translator over host memory, or the inline bytes),
 * up to the first WQE that fails: a malformed one (ERROR LOC_QP_OP_ERR), or the packet
 * whose walk fails (ERROR LOC_PROT_ERR or LOC_LEN_ERR). QPs interleave freely on the
 * link; each QP's stream is checked in order, field by field, never by cycle. After a
 * rewind req_ack asked for, the packets already built may still come, then the QP must
 * send again from the rewind's packet (every rewind's restart must be seen, unless a later
 * rewind superseded it). The messages to req_ack: every SENT must name a point of the
 * QP's sequence (NPSN that of CI, PKT inside the WQE, never past a failure), in a rewind
 * generation req_ack gave, never going back within its generation, and must be out no
 * later than the last packet of a WQE or a packet with AckReq it tells of (checked
 * whenever no message is offered: the two enter their FIFOs together); an ERROR must
 * name a failing WQE with its status; a FLUSH only a QP in error; the last message of a
 * QP must carry the SQ_PI of its last doorbell. wqe_info must get each WQE sent whole, in
 * order (again from a rewind's WQE after one), with its facts. A QP stopped (req_ack's
 * STOP, the responder's error) or waiting out an RNR NAK may send only what was already
 * built (PIPE_PKTS packets at most). No READ leaves with more READs unanswered than the
 * context allows, no fenced WQE with any. With several QPs busy, between two turns of a
 * QP that still had work, no other QP has more than FAIR_TURNS turns (runs on the link)
 * nor sends more than FAIR_TURNS windows of WQEs. At the end every
 * WQE told of was sent, or its QP is in error, nothing expected is left, every context's
 * SQ_PI, SQ_CI and NPSN are where the reference says, and the engine is idle. A hang
 * (no progress for HANG_CYCLES) fails the run and says what was still expected. Every
 * output offered must hold until taken.
 *
 * Runs: clean; violations (bad keys, bounds, messages longer than their SGEs, malformed
 * WQEs, doorbells of QPs not valid, STOPs, responder errors); heavy back-pressure; gaps
 * (idle doorbells, hold); pushed WQEs (two QPs, small WQEs, doorbell streams); rewinds
 * (rewinds, RNR waits, READ windows); many QPs (the fairness bound); and violations,
 * rewinds and pushes again on a tiny model (2 windows, 4 packets to the link, a work
 * FIFO of 8); fairness with three QPs of small WQEs. Each run fails if a kind of event
 * it should exercise never happened.
 *
 * Not covered: DMA read errors (tuser) on WQE or payload reads, and stat_dma_error; a
 * context that changes under the engine (hold is raised as a command would, nothing is
 * changed), and that nothing new starts while hold is up; the exact time a waiting or
 * stopped QP stops sending (bounded by PIPE_PKTS, not by cycle); the translation and
 * payload DMA requests one by one (the payload bytes, a hash of their address, and the
 * walks' failures stand for them); how many FLUSHes come (each must be allowed, one must
 * come after a stop); rewinds while a restart is still pending, or into WQEs already
 * acknowledged; the order of messages across QPs; fairness on the tiny model, and a turn
 * that goes on into the next window when it is already read (a mutation doing so was not
 * caught: turns end on the link's room far more often than on a window's end).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "hroce_contract.h"
#include "req_msg.h" /* req_tx and req_ack's messages, from rtl/transport/req_msg.vh */
#include "pay_stream.h"
#include "walk_model.h"

extern const struct vmodel_ops vmodel_Vreq_tx, vmodel_Vreq_tx_tiny;

#define MAX_QPS 8u
#define MAX_WQES 1024u /* per QP and run */
#define BEAT 64u
#define MAX_PKT 4096u
#define RING 8192u
#define HANG_CYCLES 30000u
/* a run that goes on without an end (a livelock: lookups and turns, nothing sent) */
#define MAX_CYCLES 3000000u
#define MSG_WORDS ((REQ_TXM_WIDTH + 31) / 32) /* (the longer of the two messages) */
#define PSN_MASK 0xffffffu
/* a long message asks for an ACK every 64 packets (req_tx.v: ACK_INTERVAL_LOG) */
#define ACK_INTERVAL 64u
/*
 * Packets of a QP that may still leave once it is stopped or waits: those already in the
 * build stage (its jobs, 2^JOB_LOG = 4, and its packets to the link, 2^PKT_LOG = 16 at
 * most), with a few more in its output registers.
 */
#define PIPE_PKTS 24u
/*
 * Turns another QP may take between two of a QP that had work all along (one window a
 * turn; the work FIFO holds each QP once): one while it waits in line; its turn may end
 * with no slot free to read its window into (back in line: one more), then end again
 * waiting for that read (one more while it is in flight, and one more in line after its
 * wake puts the QP at the back).
 */
#define FAIR_TURNS 4u
#define GHOST_QPN 0x3333u /* a QPN whose context is not valid */
#define FAR_QPN 0x7ffff0u /* a QPN past the table (the lookup's status says so) */
#define SQ_BASE0 0x5000000000ull

struct scenario {
	const char *name;
	unsigned int qps, wqes;	    /* QPs, WQEs posted in all */
	unsigned int read_pct;	    /* of the WQEs, READs */
	unsigned int bad_pct;	    /* WQEs with a violation */
	unsigned int push_pct;	    /* doorbells that carry their WQE, if it fits */
	unsigned int small_pct;	    /* WQEs of one beat (inline <= 32 bytes, <= 2 SGEs) */
	unsigned int ready_pct;	    /* the link's, the DMA's, the translator's, the context's */
	unsigned int msg_ready_pct; /* req_ack's, for req_tx's messages */
	unsigned int lat_max;	    /* DMA, translation and lookup latencies */
	unsigned int post_pct;	    /* the host posts in a cycle */
	unsigned int db_idle_pct;   /* a doorbell held back in a cycle */
	unsigned int rewind_pct;    /* per packet seen, a rewind of its QP asked for */
	unsigned int wait_pct;	    /* per packet seen, an RNR wait */
	unsigned int stop_pct;	    /* req_ack stops a QP (its SPOIL_STOP one) */
	unsigned int err_pct;	    /* per 10000 cycles, the responder's error of a QP */
	unsigned int hold_pct;	    /* per 10000 cycles, a command holds the engine */
	unsigned int ghost_pct;	    /* doorbells of a QP not valid, or past the table */
	unsigned int turn_pct;	    /* per 1000 cycles, req_ack gives a QP a turn for nothing */
	bool fair;		    /* check the fairness bound (no READ waits, no rewinds) */
};

struct wqe {
	uint8_t img[512];
	unsigned int opcode, flags, num_sge, used, npkts;
	uint32_t len, imm, rkey, psn, qpn_field;
	uint64_t raddr;
	bool is_inline, is_read, malformed;
	int fail_pkt; /* the first packet whose walk fails, or -1 */
	unsigned int fail_status;
	struct sge list[32];
};

/* a point of a QP's sequence: WQE ci (relative to the QP's first) and its packet */
struct point {
	unsigned int ci, pkt;
};

struct restart {
	struct point at;
	unsigned int gen;
};

struct qp {
	uint32_t qpn;
	uint8_t ctx[HROCE_QPC_BYTES];
	unsigned int pd, stride, log_sq, log_mtu;
	uint64_t sq_base;
	uint16_t ci0;
	uint8_t gen0, rd0;
	uint32_t npsn0;
	struct wqe *w; /* MAX_WQES + 1 (the last: the PSN after the posted ones) */
	unsigned int nposted, rung_posted; /* WQEs posted, and told of by doorbells queued */
	unsigned int rung;		   /* told of by doorbells taken */
	unsigned int acked;		   /* WQEs acknowledged (the host may reuse their slots) */
	unsigned int acked_pkt;		   /* packets of the WQE at acked acknowledged */
	unsigned int fail_ci;		   /* the first failing WQE (or MAX_WQES) */
	struct point cur;		   /* the next packet expected on the link */
	unsigned int cur_gen;		   /* the rewind generation of the packets expected */
	struct restart restart[8];
	unsigned int nrestart;
	unsigned int gen; /* rewinds asked for (the generation now) */
	struct point sent[256];
	bool sent_valid[256];
	unsigned int msg_gen; /* the generation of the last message */
	unsigned int info_next;
	bool stopped;	      /* STOP or the responder's error taken */
	bool in_error;	      /* an ERROR or FLUSH came */
	bool flushed;	      /* a FLUSH or ERROR came since it was stopped */
	bool waiting;	      /* an RNR wait taken, not yet over */
	bool offering;	      /* a message of req_ack for it is offered */
	bool turn_due;	      /* a READ was answered: req_ack owes it a message */
	unsigned int stop_at; /* WQEs sent before req_ack stops it (SPOIL_STOP) */
	uint64_t wait_end;
	unsigned int quiet_pkts; /* packets since it stopped or began to wait */
	/* SQ_PI of the last message that came through the build stage (SENT, a walk's
	 * ERROR), and of the last that went past it (FLUSH, the control's ERROR) */
	unsigned int last_pi, last_pi_direct;
	bool any_msg;
	unsigned int ring_bytes;
	uint8_t *ring;
	/* fairness: turns (runs on the link) of the others since its last, if it had work */
	bool fair_armed;
	unsigned int other_runs[MAX_QPS], other_wqes[MAX_QPS];
};

struct pay_exp {
	unsigned int len, q;
	uint8_t byte[MAX_PKT];
};

struct wqe_read {
	uint64_t at;
	unsigned int beats, q;
	uint8_t data[512];
};

struct doorbell {
	uint32_t qpn;
	uint16_t index;
	bool push;
	uint8_t data[BEAT];
	unsigned int q, rel; /* the QP (MAX_QPS: a ghost) and the WQEs it tells of */
};

/* a packet left: the SENT that tells of it must be out by the time m_msg is empty */
struct sent_due {
	unsigned int q, gen;
	struct point upto;
};

struct env {
	struct bench *b;
	const struct scenario *sc;
	struct dut dut;
	struct mr mrs[WALK_NUM_MRS];
	struct qp qp[MAX_QPS];
	uint64_t cfg_mac;
	struct walk w; /* scratch of the reference */
	char err[768];

	struct bench_ring pays, wreads, dbs, dues;
	struct walk_xlator xl; /* the translator: answers every request as it comes */
	struct pay_stream ps;  /* the payload's DMA reader */
	unsigned int pay_pos, hdr_pays;
	/* the payload DMA stream */
	/* the WQE DMA stream */
	unsigned int wbeat;
	bool wvalid;
	/* the translator */
	/* context lookups */
	bool lk_pending, lk_valid;
	uint64_t lk_at;
	uint32_t lk_qpn;
	/* req_ack's message offered */
	bool am_valid;
	uint32_t am[MSG_WORDS];
	unsigned int am_q;
	/* the responder's error offered */
	bool er_valid;
	unsigned int er_q;
	/* hold */
	bool holding;
	unsigned int hold_left;
	/* a doorbell offered */
	bool db_valid;
	/* outputs held */
	uint32_t last_hdr[HROCE_ROCE_HDR_WORDS], last_msg[MSG_WORDS];
	uint8_t last_upd[HROCE_QPC_BYTES], last_ax[BEAT];
	bool hdr_held, msg_held, upd_held, lkq_held, wrq_held, prq_held, ax_held;
	uint64_t last_upd_idx, last_lk_idx, last_wrq_addr, last_wrq_len, last_prq_addr,
		last_prq_len, last_ax_keep, last_ax_last;

	unsigned int posted, last_run_q;
	uint64_t last_progress;
	/* what the run did */
	unsigned int n_pkts, n_first, n_middle, n_last, n_only, n_imm, n_read, n_read_resumed,
		n_inline, n_dma, n_zero, n_ackreq_mid, n_sent, n_flush, n_error, n_prot, n_len,
		n_op_err, n_push, n_db, n_ghost, n_rewind, n_restart, n_wait, n_stop, n_resp_err,
		n_hold, n_turn_msgs, n_info, n_lookups, n_updates, n_fair, n_checks, max_fair,
		max_fair_wqes;
	uint64_t pay_bytes;

	const struct vmodel_port *cfg_mac_p, *hold, *idle, *db_qpn, *db_index, *db_push, *db_data,
		*db_valid_p, *db_ready, *er_qpn, *er_valid_p, *er_ready, *mm_data, *mm_valid,
		*mm_ready, *sm_data, *sm_valid, *sm_ready, *info_qpn, *info_index, *info_data,
		*info_valid, *lk_index, *lk_valid_p, *lk_ready, *lk_data, *lk_status, *lk_rvalid,
		*lk_rready, *up_index, *up_data, *up_valid, *up_ready;
	const struct vmodel_port *wrq_addr, *wrq_len, *wrq_valid, *wrq_ready, *wr_data, *wr_valid,
		*wr_ready, *wr_last, *wr_user;
	const struct vmodel_port *prq_addr, *prq_len, *prq_last, *prq_valid, *prq_ready, *pr_data,
		*pr_keep, *pr_valid, *pr_ready, *pr_last, *pr_user;
	const struct vmodel_port *hdr_data, *hdr_valid, *hdr_ready, *ax_data, *ax_keep, *ax_valid,
		*ax_ready, *ax_last, *ax_user;
};

#define FAIL(e, ...) bench_first_error((e)->err, sizeof((e)->err), __VA_ARGS__)

static void progress(struct env *e)
{
	e->last_progress = e->dut.cycle;
}

static void *ring_add(struct env *e, struct bench_ring *r, const char *what)
{
	return bench_ring_add_or_fail(r, e->err, sizeof(e->err), what);
}

static int point_cmp(struct point a, struct point b)
{
	if (a.ci != b.ci)
		return a.ci < b.ci ? -1 : 1;
	return a.pkt < b.pkt ? -1 : a.pkt > b.pkt;
}

static struct qp *qp_of(struct env *e, uint32_t qpn)
{
	for (unsigned int q = 0; q < e->sc->qps; q++)
		if (e->qp[q].qpn == qpn)
			return &e->qp[q];
	return NULL;
}

static unsigned int rel_of(const struct qp *p, uint32_t index)
{
	return (uint16_t)(index - p->ci0);
}

/* ---------------------------------------------------------------------------------------
 * The reference requester: WQEs, their packets and where a QP's sequence ends
 */

/*
 * In the runs with violations, each kind has its QPs (a QP in error sends no more): 1
 * posts malformed WQEs, 3 WQEs with a bad SGE, 5 messages longer than their SGEs, 6 is
 * stopped by req_ack, 7 by the responder; 0, 2 and 4 stay clean.
 */
enum { SPOIL_NONE, SPOIL_MALFORMED, SPOIL_SGE, SPOIL_LENGTH, SPOIL_STOP, SPOIL_RESP };

static unsigned int qp_spoil(const struct env *e, const struct qp *p)
{
	static const unsigned int kind[MAX_QPS] = { SPOIL_NONE, SPOIL_MALFORMED, SPOIL_NONE,
						    SPOIL_SGE,	SPOIL_NONE,	 SPOIL_LENGTH,
						    SPOIL_STOP, SPOIL_RESP };

	return e->sc->bad_pct ? kind[p - e->qp] : SPOIL_NONE;
}

static unsigned int wqe_bytes(const struct qp *p)
{
	return 64u << p->stride;
}

/* the packet after the one at pt */
static struct point next_point(const struct qp *p, struct point pt)
{
	const struct wqe *w = &p->w[pt.ci];

	if (w->is_read || pt.pkt + 1 >= w->npkts)
		return (struct point){ pt.ci + 1, 0 };
	return (struct point){ pt.ci, pt.pkt + 1 };
}

/* the first point the QP cannot send: the end of what doorbells told, or its failure */
static struct point end_point(const struct qp *p)
{
	if (p->fail_ci < p->rung) {
		const struct wqe *w = &p->w[p->fail_ci];

		return (struct point){ p->fail_ci, w->malformed ? 0 : (unsigned int)w->fail_pkt };
	}
	return (struct point){ p->rung, 0 };
}

static unsigned int pkt_len(const struct qp *p, struct point pt)
{
	const struct wqe *w = &p->w[pt.ci];
	uint32_t mtu = 1u << p->log_mtu, off = pt.pkt << p->log_mtu;

	if (w->is_read)
		return 0;
	return w->len - off < mtu ? w->len - off : mtu;
}

static bool pkt_ackreq(const struct qp *p, struct point pt)
{
	const struct wqe *w = &p->w[pt.ci];

	return !w->is_read && (pt.pkt + 1 == w->npkts || pt.pkt % ACK_INTERVAL == ACK_INTERVAL - 1);
}

static void want_hdr(const struct env *e, const struct qp *p, struct point pt, uint32_t *h)
{
	const struct wqe *w = &p->w[pt.ci];
	const uint8_t *c = p->ctx;
	bool last = w->is_read || pt.pkt + 1 == w->npkts, first = pt.pkt == 0;
	bool send = w->opcode == HROCE_WR_OPCODE_SEND || w->opcode == HROCE_WR_OPCODE_SEND_WITH_IMM;
	bool imm = w->opcode == HROCE_WR_OPCODE_SEND_WITH_IMM ||
		   w->opcode == HROCE_WR_OPCODE_RDMA_WRITE_WITH_IMM;
	unsigned int op;
	uint32_t off = pt.pkt << p->log_mtu;

	if (w->is_read)
		op = HROCE_RC_OP_READ_REQUEST;
	else if (w->npkts == 1)
		op = send ? (imm ? HROCE_RC_OP_SEND_ONLY_IMM : HROCE_RC_OP_SEND_ONLY)
			  : (imm ? HROCE_RC_OP_WRITE_ONLY_IMM : HROCE_RC_OP_WRITE_ONLY);
	else if (first)
		op = send ? HROCE_RC_OP_SEND_FIRST : HROCE_RC_OP_WRITE_FIRST;
	else if (last)
		op = send ? (imm ? HROCE_RC_OP_SEND_LAST_IMM : HROCE_RC_OP_SEND_LAST)
			  : (imm ? HROCE_RC_OP_WRITE_LAST_IMM : HROCE_RC_OP_WRITE_LAST);
	else
		op = send ? HROCE_RC_OP_SEND_MIDDLE : HROCE_RC_OP_WRITE_MIDDLE;

	memset(h, 0, HROCE_ROCE_HDR_WORDS * 4);
	HROCE_ROCE_HDR_SET(h, ETH_DST, HROCE_QPC_GET(c, DMAC));
	HROCE_ROCE_HDR_SET(h, ETH_SRC, e->cfg_mac);
	HROCE_ROCE_HDR_SET(h, IP_DSCP, HROCE_QPC_GET(c, DSCP));
	HROCE_ROCE_HDR_SET(h, IP_FLAGS, 2);
	HROCE_ROCE_HDR_SET(h, IP_TTL, HROCE_QPC_GET(c, TTL));
	HROCE_ROCE_HDR_SET(h, IP_SRC, hroce_mem_get(c, HROCE_QPC_SGID_LSB, 32));
	HROCE_ROCE_HDR_SET(h, IP_DST, hroce_mem_get(c, HROCE_QPC_DGID_LSB, 32));
	HROCE_ROCE_HDR_SET(h, IP6, HROCE_QPC_GET(c, IP6));
	HROCE_ROCE_HDR_SET(h, IP6_FLOW_LABEL, HROCE_QPC_GET(c, FLOW_LABEL));
	for (unsigned int i = 0; i < 128; i += 64) {
		hroce_bus_set(h, HROCE_ROCE_HDR_IP6_SRC_LSB + i, 64,
			      hroce_mem_get(c, HROCE_QPC_SGID_LSB + i, 64));
		hroce_bus_set(h, HROCE_ROCE_HDR_IP6_DST_LSB + i, 64,
			      hroce_mem_get(c, HROCE_QPC_DGID_LSB + i, 64));
	}
	HROCE_ROCE_HDR_SET(h, UDP_SPORT, HROCE_QPC_GET(c, UDP_SPORT));
	HROCE_ROCE_HDR_SET(h, BTH_OPCODE, op);
	HROCE_ROCE_HDR_SET(h, BTH_SE,
			   last && (w->flags & HROCE_WR_SOLICITED) &&
				   (send || w->opcode == HROCE_WR_OPCODE_RDMA_WRITE_WITH_IMM));
	HROCE_ROCE_HDR_SET(h, BTH_PKEY, HROCE_QPC_GET(c, PKEY));
	HROCE_ROCE_HDR_SET(h, BTH_DQPN, HROCE_QPC_GET(c, DEST_QPN));
	HROCE_ROCE_HDR_SET(h, BTH_ACKREQ, pkt_ackreq(p, pt));
	HROCE_ROCE_HDR_SET(h, BTH_PSN, (w->psn + pt.pkt) & PSN_MASK);
	if (w->is_read) {
		/* a READ sent again from response pkt on asks for the rest only */
		HROCE_ROCE_HDR_SET(h, RETH_VA, w->raddr + off);
		HROCE_ROCE_HDR_SET(h, RETH_RKEY, w->rkey);
		HROCE_ROCE_HDR_SET(h, RETH_DMA_LEN, w->len - off);
	} else if (first && !send) {
		HROCE_ROCE_HDR_SET(h, RETH_VA, w->raddr);
		HROCE_ROCE_HDR_SET(h, RETH_RKEY, w->rkey);
		HROCE_ROCE_HDR_SET(h, RETH_DMA_LEN, w->len);
	}
	if (last && imm)
		HROCE_ROCE_HDR_SET(h, IMMDT, w->imm);
	HROCE_ROCE_HDR_SET(h, PAYLOAD_LEN, pkt_len(p, pt));
	HROCE_ROCE_HDR_SET(h, SRC_QPN, p->qpn);
}

/* the walk of a packet's payload from its offset */
static void walk_pkt(struct env *e, const struct qp *p, const struct wqe *w, unsigned int pkt)
{
	struct walk *k = &e->w;
	uint32_t mtu = 1u << p->log_mtu, off = pkt << p->log_mtu;

	memset(k, 0, sizeof(*k));
	k->off = off;
	k->len = w->len - off < mtu ? w->len - off : mtu;
	k->num_sge = w->num_sge;
	k->pd = p->pd;
	memcpy(k->list, w->list, sizeof(k->list));
	walk_reference(e->mrs, k);
}

static void make_wqe(struct env *e, struct qp *p, unsigned int rel)
{
	struct bench *b = e->b;
	const struct scenario *sc = e->sc;
	struct wqe *w = &p->w[rel];
	unsigned int bytes = wqe_bytes(p), max_sge = (4u << p->stride) - 2;
	unsigned int inl_most = bytes - 32 < HROCE_MAX_INLINE ? bytes - 32 : HROCE_MAX_INLINE;
	bool small = bench_chance(b, sc->small_pct);
	unsigned int spoil = qp_spoil(e, p);
	/* a walk's violation wants a SEND or WRITE by SGEs */
	bool bad =
		spoil >= SPOIL_MALFORMED && spoil <= SPOIL_LENGTH && bench_chance(b, sc->bad_pct);
	bool by_sge = bad && spoil != SPOIL_MALFORMED;
	uint64_t total = 0;

	memset(w, 0, sizeof(*w));
	w->fail_pkt = -1;
	bench_fill(b, w->img, sizeof(w->img));
	w->flags = (bench_chance(b, 50) ? HROCE_WR_SIGNALED : 0) |
		   (bench_chance(b, 30) ? HROCE_WR_SOLICITED : 0) |
		   (bench_chance(b, 5) ? HROCE_WR_FENCE : 0);
	w->imm = (uint32_t)bench_rand(b);
	w->raddr = bench_rand(b);
	w->rkey = (uint32_t)bench_rand(b);
	if (!by_sge && bench_chance(b, sc->read_pct)) {
		w->opcode = HROCE_WR_OPCODE_RDMA_READ;
		w->is_read = true;
		w->num_sge = (unsigned int)bench_range(b, 0, small ? 2 : max_sge);
		w->len = (uint32_t)bench_range(b, 0, small ? 300 : 20000);
	} else {
		w->opcode = (unsigned int)bench_range(b, 0, 3);
		if (!by_sge && bench_chance(b, 25)) {
			w->is_inline = true;
			w->flags |= HROCE_WR_INLINE;
			w->num_sge = (unsigned int)bench_range(b, 0, 255); /* not looked at */
			w->len = (uint32_t)bench_range(b, 0, small ? 32 : inl_most);
		} else {
			w->num_sge =
				(unsigned int)(!by_sge && bench_chance(b, 10)
						       ? 0
						       : bench_range(b, 1, small ? 2 : max_sge));
		}
	}
	if (!w->is_inline) {
		for (unsigned int i = 0; i < w->num_sge; i++) {
			w->list[i] = walk_good_sge(b, e->mrs, p->pd, 0, 3000);
			total += w->list[i].len;
		}
		if (!w->is_read) {
			w->len = (uint32_t)(bench_chance(b, 60) ? total : bench_range(b, 0, total));
			if (w->len > 20000)
				w->len = (uint32_t)bench_range(b, 0, 20000);
		}
	}
	if (bad) {
		unsigned int how = (unsigned int)bench_range(b, 0, 3);

		if (spoil == SPOIL_MALFORMED) {
			/* req_tx fails it before it goes */
			w->malformed = true;
			if (how == 0) {
				w->opcode =
					(unsigned int)bench_range(b, HROCE_WR_OPCODE_COUNT, 255);
			} else if (how == 1 && !w->is_inline && !w->is_read) {
				w->num_sge = (unsigned int)bench_range(b, max_sge + 1, 255);
			} else if (how == 1) {
				w->len = HROCE_MAX_INLINE + (uint32_t)bench_range(b, 1, 100);
				w->flags |= HROCE_WR_INLINE;
				w->is_inline = true;
			} else if (how == 2) {
				/* another QP's WQE in this QP's ring */
				w->qpn_field = p->qpn ^ 0x100;
			} else {
				w->malformed = false;
			}
		} else {
			if (spoil == SPOIL_LENGTH || !w->num_sge) {
				w->len = (uint32_t)(total + bench_range(b, 1, 3000));
			} else {
				/* (the whole message: the walk reaches every byte of the SGE) */
				unsigned int i = (unsigned int)bench_range(b, 0, w->num_sge - 1);

				total -= w->list[i].len;
				w->list[i] = walk_bad_sge(b, e->mrs, p->pd, 0);
				w->len = (uint32_t)(total + w->list[i].len);
			}
		}
	}
	HROCE_SQ_WQE_SET(w->img, OPCODE, w->opcode);
	HROCE_SQ_WQE_SET(w->img, FLAGS, w->flags);
	HROCE_SQ_WQE_SET(w->img, NUM_SGE, w->num_sge);
	HROCE_SQ_WQE_SET(w->img, LENGTH, w->len);
	HROCE_SQ_WQE_SET(w->img, IMM, w->imm);
	HROCE_SQ_WQE_SET(w->img, QPN, w->qpn_field ? w->qpn_field : p->qpn);
	HROCE_SQ_WQE_SET(w->img, RADDR, w->raddr);
	HROCE_SQ_WQE_SET(w->img, RKEY, w->rkey);
	HROCE_SQ_WQE_SET(w->img, DB_INDEX, (uint16_t)(p->ci0 + rel + 1));
	if (w->is_inline) {
		w->used = 32 + (w->len < bytes - 32 ? w->len : bytes - 32);
	} else {
		for (unsigned int i = 0; i < w->num_sge && i < max_sge; i++) {
			uint8_t *s = &w->img[HROCE_SQ_WQE_SGE_OFFSET + HROCE_SGE_BYTES * i];

			HROCE_SGE_SET(s, ADDR, w->list[i].addr);
			HROCE_SGE_SET(s, LENGTH, w->list[i].len);
			HROCE_SGE_SET(s, LKEY, w->list[i].key);
		}
		w->used = 32 + HROCE_SGE_BYTES * (w->num_sge < max_sge ? w->num_sge : max_sge);
	}
	w->npkts = w->len ? (w->len - 1) / (1u << p->log_mtu) + 1 : 1;
	w->psn = rel ? (p->w[rel - 1].psn + p->w[rel - 1].npkts) & PSN_MASK : p->npsn0;
	if (!w->malformed && !w->is_inline && !w->is_read && w->len) {
		for (unsigned int k = 0; k < w->npkts; k++) {
			walk_pkt(e, p, w, k);
			if (e->w.is_short || e->w.status != HROCE_MR_XLATE_OK) {
				w->fail_pkt = (int)k;
				w->fail_status = e->w.is_short ? HROCE_WC_STATUS_LOC_LEN_ERR
							       : HROCE_WC_STATUS_LOC_PROT_ERR;
				break;
			}
		}
	}
	if (w->malformed)
		w->fail_status = HROCE_WC_STATUS_LOC_QP_OP_ERR;
	if ((w->malformed || w->fail_pkt >= 0) && p->fail_ci > rel)
		p->fail_ci = rel;
	/* the host writes it into its ring slot */
	unsigned int slot = (uint16_t)(p->ci0 + rel) & ((1u << p->log_sq) - 1);

	memcpy(&p->ring[slot * bytes], w->img, bytes);
}

static void setup_qps(struct env *e)
{
	struct bench *b = e->b;
	static const uint32_t qpns[MAX_QPS] = { 0x11,  0x2a5, 0x10011, 0xabcdef,
						0x400, 0x12,  0x7fff,  0x800001 };

	for (unsigned int q = 0; q < e->sc->qps; q++) {
		struct qp *p = &e->qp[q];
		uint8_t *c = p->ctx;
		struct wqe *w = p->w;
		uint8_t *ring = p->ring;

		memset(p, 0, sizeof(*p));
		p->w = w;
		p->ring = ring;
		p->qpn = qpns[q];
		p->pd = q % WALK_PDS;
		p->stride = (unsigned int)bench_range(b, 0, 3);
		p->log_sq = (unsigned int)bench_range(b, 3, 6);
		p->log_mtu = (unsigned int)bench_range(b, 8, 12);
		p->sq_base = SQ_BASE0 + ((uint64_t)q << 24);
		p->ci0 = (uint16_t)(bench_chance(b, 30) ? 0x10000 - bench_range(b, 1, 40)
							: bench_rand(b));
		p->npsn0 = (uint32_t)(bench_chance(b, 30) ? 0x1000000 - bench_range(b, 1, 200)
							  : bench_range(b, 0, PSN_MASK));
		p->gen0 = (uint8_t)bench_rand(b);
		p->rd0 = (uint8_t)bench_rand(b);
		p->fail_ci = MAX_WQES;
		p->stop_at = (unsigned int)bench_range(b, 5, 40);
		p->ring_bytes = wqe_bytes(p) << p->log_sq;
		/* the context as a command left it, then req_tx's bytes */
		bench_fill(b, c, HROCE_QPC_BYTES);
		memset(c + HROCE_QPC_REQ_BYTE, 0, 32);
		HROCE_QPC_SET(c, STATE, HROCE_QP_STATE_RTS);
		HROCE_QPC_SET(c, PATH_MTU, p->log_mtu - 7);
		HROCE_QPC_SET(c, VALID, 1);
		HROCE_QPC_SET(c, PD, p->pd);
		HROCE_QPC_SET(c, LOG_SQ_SIZE, p->log_sq);
		HROCE_QPC_SET(c, LOG_SQ_STRIDE, p->stride);
		HROCE_QPC_SET(c, SQ_BASE, p->sq_base);
		HROCE_QPC_SET(c, MAX_RD_ATOMIC, bench_range(b, 0, 4));
		HROCE_QPC_SET(c, SQ_PI, p->ci0);
		HROCE_QPC_SET(c, SQ_CI, p->ci0);
		HROCE_QPC_SET(c, NPSN, p->npsn0);
		HROCE_QPC_SET(c, TX_GEN, p->gen0);
		HROCE_QPC_SET(c, RD_SENT, p->rd0);
		HROCE_QPC_SET(c, TX_RD_DONE, p->rd0);
		p->cur_gen = 0;
		p->w[0].psn = p->npsn0;
	}
}

/* READs among the WQEs acknowledged, as req_ack counts them (mod 256) */
static uint8_t rd_done(const struct qp *p)
{
	unsigned int n = p->rd0;

	for (unsigned int i = 0; i < p->acked; i++)
		n += p->w[i].is_read;
	return (uint8_t)n;
}

/* ---------------------------------------------------------------------------------------
 * The host: posts WQEs and rings doorbells
 */

static void host_post(struct env *e)
{
	struct bench *b = e->b;
	const struct scenario *sc = e->sc;

	if (e->posted >= sc->wqes || e->dbs.n >= 16 || !bench_chance(b, sc->post_pct))
		return;
	if (sc->ghost_pct && bench_chance(b, sc->ghost_pct)) {
		struct doorbell *d = ring_add(e, &e->dbs, "doorbells");

		if (d) {
			d->qpn = bench_chance(b, 50) ? GHOST_QPN : FAR_QPN;
			d->index = (uint16_t)bench_rand(b);
			d->push = bench_chance(b, 50);
			bench_fill(b, d->data, BEAT);
			d->q = MAX_QPS;
		}
		return;
	}
	/* a QP with room in its ring; one in error only now and then, to be flushed */
	unsigned int cand[MAX_QPS], ncand = 0;
	bool dead_too = bench_chance(b, 10);

	for (unsigned int q = 0; q < sc->qps; q++) {
		const struct qp *o = &e->qp[q];

		if (o->nposted - o->acked < (1u << o->log_sq) && o->nposted < MAX_WQES &&
		    (dead_too || !(o->in_error || o->stopped)))
			cand[ncand++] = q;
	}
	if (!ncand)
		return;
	struct qp *p = &e->qp[cand[bench_range(b, 0, ncand - 1)]];

	unsigned int room = (1u << p->log_sq) - (p->nposted - p->acked);
	unsigned int n = (unsigned int)bench_range(b, 1, 4);

	if (n > room)
		n = room;
	if (n > MAX_WQES - p->nposted)
		n = MAX_WQES - p->nposted;
	if (n > sc->wqes - e->posted)
		n = sc->wqes - e->posted;
	if (!n)
		return;
	for (unsigned int i = 0; i < n; i++)
		make_wqe(e, p, p->nposted + i);
	p->nposted += n;
	e->posted += n;
	/* the PSN after the last: SENT messages may name the end */
	p->w[p->nposted].psn = (p->w[p->nposted - 1].psn + p->w[p->nposted - 1].npkts) & PSN_MASK;

	struct doorbell *d = ring_add(e, &e->dbs, "doorbells");
	const struct wqe *last = &p->w[p->nposted - 1];

	if (!d)
		return;
	d->qpn = p->qpn;
	d->index = (uint16_t)(p->ci0 + p->nposted);
	d->push = last->used <= BEAT && bench_chance(b, sc->push_pct);
	memcpy(d->data, last->img, BEAT);
	d->q = (unsigned int)(p - e->qp);
	d->rel = p->nposted;
	p->rung_posted = p->nposted;
}

/* ---------------------------------------------------------------------------------------
 * req_ack: acknowledges, answers READs, gives turns, rewinds, waits and stops
 */

static bool restart_pending(const struct qp *p)
{
	return p->nrestart != 0;
}

static void ackm_make(struct env *e, struct qp *p, bool rewind, bool wait, bool stop,
		      struct point at)
{
	struct bench *b = e->b;
	uint32_t *m = e->am;

	memset(m, 0, sizeof(e->am));
	hroce_bus_set(m, REQ_ACKM_QPN, p->qpn);
	hroce_bus_set(m, REQ_ACKM_REWIND, rewind);
	hroce_bus_set(m, REQ_ACKM_WAIT, wait);
	hroce_bus_set(m, REQ_ACKM_STOP, stop);
	if (rewind) {
		hroce_bus_set(m, REQ_ACKM_CI, (uint16_t)(p->ci0 + at.ci));
		hroce_bus_set(m, REQ_ACKM_NPSN, (p->w[at.ci].psn) & PSN_MASK);
		hroce_bus_set(m, REQ_ACKM_PKT, at.pkt);
	} else {
		/* not looked at without a rewind */
		hroce_bus_set(m, REQ_ACKM_CI, bench_rand(b));
		hroce_bus_set(m, REQ_ACKM_NPSN, bench_rand(b));
		hroce_bus_set(m, REQ_ACKM_PKT, bench_rand(b));
	}
	hroce_bus_set(m, REQ_ACKM_RD_DONE, rd_done(p));
	e->am_valid = true;
	e->am_q = (unsigned int)(p - e->qp);
	p->offering = true;
}

/*
 * A loss: the packets from one seen on the link on are acknowledged no further, and
 * req_ack rewinds to the oldest packet not acknowledged (none pending)
 */
static bool make_rewind(struct env *e, struct qp *p)
{
	struct bench *b = e->b;
	struct point at, acked = { p->acked, p->acked_pkt };

	if (restart_pending(p) || p->stopped || p->in_error || point_cmp(acked, p->cur) >= 0)
		return false;
	at.ci = (unsigned int)bench_range(b, p->acked, p->cur.ci);
	if (at.ci == p->cur.ci && !p->cur.pkt)
		at.ci--;
	{
		const struct wqe *w = &p->w[at.ci];
		unsigned int lo = at.ci == p->acked ? p->acked_pkt : 0;
		unsigned int hi = at.ci == p->cur.ci ? p->cur.pkt - 1 : w->npkts - 1;

		at.pkt = bench_chance(b, 40) ? lo : (unsigned int)bench_range(b, lo, hi);
	}
	p->acked = at.ci;
	p->acked_pkt = at.pkt;
	ackm_make(e, p, true, false, false, at);
	return true;
}

/* what req_ack decides in a cycle, if it offers nothing yet */
static void ack_model(struct env *e)
{
	struct bench *b = e->b;
	const struct scenario *sc = e->sc;

	/* acknowledgements, and the turns they give (a READ answered frees the window) */
	for (unsigned int q = 0; q < sc->qps; q++) {
		struct qp *p = &e->qp[q];
		unsigned int upto = p->cur.ci;

		if (p->in_error) {
			/* flushed: every WQE told of completes, its ring slot is free */
			p->acked = p->rung;
			p->acked_pkt = 0;
			continue;
		}
		if (p->offering || restart_pending(p) || upto <= p->acked || !bench_chance(b, 5))
			continue;
		uint8_t before = rd_done(p);

		p->acked = (unsigned int)bench_range(b, p->acked + 1, upto);
		p->acked_pkt = 0;
		p->turn_due |= rd_done(p) != before;
	}
	for (unsigned int q = 0; q < sc->qps && !e->am_valid; q++) {
		struct qp *p = &e->qp[q];

		if (p->turn_due) {
			ackm_make(e, p, false, p->waiting, false, (struct point){ 0, 0 });
			p->turn_due = false;
		}
	}
	/* the end of an RNR wait */
	for (unsigned int q = 0; q < sc->qps && !e->am_valid; q++) {
		struct qp *p = &e->qp[q];

		if (p->waiting && p->wait_end <= e->dut.cycle)
			ackm_make(e, p, false, false, false, (struct point){ 0, 0 });
	}
	if (!e->am_valid && e->posted < sc->wqes && bench_chance(b, sc->turn_pct) &&
	    bench_chance(b, 10)) {
		struct qp *p = &e->qp[bench_range(b, 0, sc->qps - 1)];

		if (!p->offering)
			ackm_make(e, p, false, p->waiting, false, (struct point){ 0, 0 });
		e->n_turn_msgs++;
	}
}

/* req_ack's decisions on a packet of QP p seen on the link */
static void ack_on_packet(struct env *e, struct qp *p)
{
	struct bench *b = e->b;
	const struct scenario *sc = e->sc;

	if (e->am_valid || p->offering)
		return;
	if (sc->rewind_pct && bench_chance(b, sc->rewind_pct) && !p->waiting) {
		make_rewind(e, p);
	} else if (sc->wait_pct && bench_chance(b, sc->wait_pct) && !p->waiting && !p->stopped) {
		ackm_make(e, p, false, true, false, (struct point){ 0, 0 });
	} else if (qp_spoil(e, p) == SPOIL_STOP && sc->stop_pct && p->cur.ci >= p->stop_at &&
		   !p->stopped) {
		ackm_make(e, p, false, p->waiting, true, (struct point){ 0, 0 });
	}
}

/* req_tx took req_ack's message: what it changes in the reference */
static void ackm_taken(struct env *e)
{
	struct qp *p = &e->qp[e->am_q];
	const uint32_t *m = e->am;

	p->offering = false;
	e->am_valid = false;
	if (hroce_bus_get(m, REQ_ACKM_REWIND)) {
		struct restart *r;

		if (p->nrestart == 8) {
			FAIL(e, "bench: too many rewinds pending");
			return;
		}
		r = &p->restart[p->nrestart++];
		p->gen++;
		r->at = (struct point){ rel_of(p, (uint32_t)hroce_bus_get(m, REQ_ACKM_CI)),
					(unsigned int)hroce_bus_get(m, REQ_ACKM_PKT) };
		r->gen = p->gen;
		p->info_next = r->at.ci;
		e->n_rewind++;
	}
	if (hroce_bus_get(m, REQ_ACKM_WAIT) && !p->waiting) {
		p->waiting = true;
		p->wait_end = e->dut.cycle + bench_range(e->b, 50, 2000);
		p->quiet_pkts = 0;
		e->n_wait++;
	} else if (!hroce_bus_get(m, REQ_ACKM_WAIT)) {
		p->waiting = false;
	}
	if (hroce_bus_get(m, REQ_ACKM_STOP) && !p->stopped) {
		p->stopped = true;
		p->flushed = false;
		p->quiet_pkts = 0;
		e->n_stop++;
	}
}

/* ---------------------------------------------------------------------------------------
 * The checks of what comes out
 */

static void check_held(struct env *e)
{
	uint32_t h[HROCE_ROCE_HDR_WORDS], m[MSG_WORDS];
	uint8_t u[HROCE_QPC_BYTES], ax[BEAT];

	vport_read(e->hdr_data, h, sizeof(h));
	vport_read(e->mm_data, m, sizeof(m));
	vport_read(e->up_data, u, sizeof(u));
	vport_read(e->ax_data, ax, sizeof(ax));
	if (e->hdr_held && (!vport_get(e->hdr_valid) || memcmp(h, e->last_hdr, sizeof(h))))
		FAIL(e, "m_hdr dropped or changed before it was taken");
	if (e->msg_held && (!vport_get(e->mm_valid) || memcmp(m, e->last_msg, sizeof(m))))
		FAIL(e, "m_msg dropped or changed before it was taken");
	if (e->upd_held && (!vport_get(e->up_valid) || memcmp(u, e->last_upd, sizeof(u)) ||
			    vport_get(e->up_index) != e->last_upd_idx))
		FAIL(e, "m_ctx_update dropped or changed before it was taken");
	if (e->lkq_held && (!vport_get(e->lk_valid_p) || vport_get(e->lk_index) != e->last_lk_idx))
		FAIL(e, "m_ctx_lookup dropped or changed before it was taken");
	if (e->wrq_held &&
	    (!vport_get(e->wrq_valid) || vport_get(e->wrq_addr) != e->last_wrq_addr ||
	     vport_get(e->wrq_len) != e->last_wrq_len))
		FAIL(e, "m_wqe_rd_req dropped or changed before it was taken");
	if (e->prq_held &&
	    (!vport_get(e->prq_valid) || vport_get(e->prq_addr) != e->last_prq_addr ||
	     vport_get(e->prq_len) != e->last_prq_len))
		FAIL(e, "m_pay_rd_req dropped or changed before it was taken");
	if (e->ax_held) {
		/* (the bytes under tkeep: the others are nobody's) */
		uint64_t keep = vport_get(e->ax_keep);
		bool same = vport_get(e->ax_valid) && keep == e->last_ax_keep &&
			    vport_get(e->ax_last) == e->last_ax_last;

		for (unsigned int i = 0; same && i < BEAT; i++)
			same = !(keep >> i & 1) || ax[i] == e->last_ax[i];
		if (!same)
			FAIL(e, "m_axis dropped or changed before it was taken");
	}
	e->hdr_held = vport_get(e->hdr_valid) && !vport_get(e->hdr_ready);
	e->msg_held = vport_get(e->mm_valid) && !vport_get(e->mm_ready);
	e->upd_held = vport_get(e->up_valid) && !vport_get(e->up_ready);
	e->lkq_held = vport_get(e->lk_valid_p) && !vport_get(e->lk_ready);
	e->wrq_held = vport_get(e->wrq_valid) && !vport_get(e->wrq_ready);
	e->prq_held = vport_get(e->prq_valid) && !vport_get(e->prq_ready);
	e->ax_held = vport_get(e->ax_valid) && !vport_get(e->ax_ready);
	memcpy(e->last_hdr, h, sizeof(h));
	memcpy(e->last_msg, m, sizeof(m));
	memcpy(e->last_upd, u, sizeof(u));
	memcpy(e->last_ax, ax, sizeof(ax));
	e->last_upd_idx = vport_get(e->up_index);
	e->last_lk_idx = vport_get(e->lk_index);
	e->last_wrq_addr = vport_get(e->wrq_addr);
	e->last_wrq_len = vport_get(e->wrq_len);
	e->last_prq_addr = vport_get(e->prq_addr);
	e->last_prq_len = vport_get(e->prq_len);
	e->last_ax_keep = vport_get(e->ax_keep);
	e->last_ax_last = vport_get(e->ax_last);
}

/* the rewind generation (absolute) of a message's 8 bits, or -1 if req_ack gave none */
static int msg_gen(const struct qp *p, unsigned int g8)
{
	for (unsigned int g = p->msg_gen; g <= p->gen; g++)
		if (((p->gen0 + g) & 0xff) == g8)
			return (int)g;
	return -1;
}

/* a packet of p on the link (the last of its WQE or not): the others' waits */
static void fairness(struct env *e, struct qp *p, bool wqe_end)
{
	unsigned int x = (unsigned int)(p - e->qp), window = 8u >> p->stride;

	if (!e->sc->fair)
		return;
	for (unsigned int q = 0; q < e->sc->qps && wqe_end; q++) {
		/* a turn sends one window: 8 WQEs of 64 bytes at most, fewer of more */
		struct qp *o = &e->qp[q];

		if (q == x || !o->fair_armed)
			continue;
		if (++o->other_wqes[x] > e->max_fair_wqes)
			e->max_fair_wqes = o->other_wqes[x];
		if (o->other_wqes[x] > FAIR_TURNS * window)
			FAIL(e,
			     "QP 0x%x had work and waited while QP 0x%x sent %u WQEs (%u turns "
			     "of a window of %u at most)",
			     o->qpn, p->qpn, o->other_wqes[x], FAIR_TURNS, window);
	}
	if (x != e->last_run_q) {
		/* a turn of x begins: one more for every QP with work that waits */
		for (unsigned int q = 0; q < e->sc->qps; q++) {
			struct qp *o = &e->qp[q];

			if (q == x || !o->fair_armed)
				continue;
			if (++o->other_runs[x] > e->max_fair)
				e->max_fair = o->other_runs[x];
			if (o->other_runs[x] > FAIR_TURNS)
				FAIL(e,
				     "QP 0x%x had work and waited while QP 0x%x took %u turns "
				     "(at most %u)",
				     o->qpn, p->qpn, o->other_runs[x], FAIR_TURNS);
		}
		e->last_run_q = x;
		e->n_fair++;
	}
	memset(p->other_runs, 0, sizeof(p->other_runs));
	memset(p->other_wqes, 0, sizeof(p->other_wqes));
	p->fair_armed = point_cmp(p->cur, end_point(p)) < 0;
}

static void check_hdr(struct env *e)
{
	uint32_t h[HROCE_ROCE_HDR_WORDS], want[HROCE_ROCE_HDR_WORDS];
	uint32_t qpn;
	struct qp *p;

	vport_read(e->hdr_data, h, sizeof(h));
	qpn = (uint32_t)HROCE_ROCE_HDR_GET(h, SRC_QPN);
	p = qp_of(e, qpn);
	if (!p) {
		FAIL(e, "a packet of QP 0x%x, which no doorbell told of", qpn);
		return;
	}
	struct point end = end_point(p);
	bool ok = false;

	if (point_cmp(p->cur, end) < 0) {
		want_hdr(e, p, p->cur, want);
		ok = !memcmp(h, want, sizeof(h));
	}
	for (unsigned int k = 0; !ok && k < p->nrestart; k++) {
		/* sent again from a rewind's packet */
		want_hdr(e, p, p->restart[k].at, want);
		if (!memcmp(h, want, sizeof(h))) {
			ok = true;
			p->cur = p->restart[k].at;
			p->cur_gen = p->restart[k].gen;
			memmove(&p->restart[0], &p->restart[k + 1],
				sizeof(p->restart[0]) * (p->nrestart - k - 1));
			p->nrestart -= k + 1;
			e->n_restart++;
			if (p->w[p->cur.ci].is_read && p->cur.pkt)
				e->n_read_resumed++;
		}
	}
	if (!ok) {
		if (point_cmp(p->cur, end) < 0)
			want_hdr(e, p, p->cur, want);
		else
			memset(want, 0, sizeof(want));
		for (unsigned int i = 0; i < HROCE_ROCE_HDR_WORDS; i++)
			if (h[i] != want[i]) {
				FAIL(e,
				     "QP 0x%x: packet opcode %u PSN 0x%06x len %u ackreq %u; want "
				     "WQE %u (of %u told) packet %u: opcode %u PSN 0x%06x len %u "
				     "ackreq %u%s (header word %u: 0x%08x, want 0x%08x; %u rewinds "
				     "pending)",
				     qpn, (unsigned int)HROCE_ROCE_HDR_GET(h, BTH_OPCODE),
				     (unsigned int)HROCE_ROCE_HDR_GET(h, BTH_PSN),
				     (unsigned int)HROCE_ROCE_HDR_GET(h, PAYLOAD_LEN),
				     (unsigned int)HROCE_ROCE_HDR_GET(h, BTH_ACKREQ), p->cur.ci,
				     p->rung, p->cur.pkt,
				     (unsigned int)HROCE_ROCE_HDR_GET(want, BTH_OPCODE),
				     (unsigned int)HROCE_ROCE_HDR_GET(want, BTH_PSN),
				     (unsigned int)HROCE_ROCE_HDR_GET(want, PAYLOAD_LEN),
				     (unsigned int)HROCE_ROCE_HDR_GET(want, BTH_ACKREQ),
				     point_cmp(p->cur, end) < 0 ? "" : " (none: the QP's end)", i,
				     h[i], want[i], p->nrestart);
				return;
			}
		FAIL(e, "QP 0x%x: a packet past the QP's end", qpn);
		return;
	}
	/* the packet is the reference's at p->cur */
	const struct wqe *w = &p->w[p->cur.ci];
	unsigned int reads = 0, max_rd = (unsigned int)HROCE_QPC_GET(p->ctx, MAX_RD_ATOMIC);

	/* the READs before it not yet answered: req_tx knows of fewer answered, never more */
	for (unsigned int i = p->acked; i < p->cur.ci; i++)
		reads += p->w[i].is_read;
	if (w->is_read && reads >= (max_rd ? max_rd : 1))
		FAIL(e, "QP 0x%x: READ of WQE %u sent with %u READs unanswered (at most %u)",
		     p->qpn, p->cur.ci, reads, max_rd ? max_rd : 1);
	if ((w->flags & HROCE_WR_FENCE) && reads)
		FAIL(e, "QP 0x%x: fenced WQE %u sent with %u READs unanswered", p->qpn, p->cur.ci,
		     reads);
	unsigned int len = pkt_len(p, p->cur);
	bool last = w->is_read || p->cur.pkt + 1 == w->npkts;
	struct point next = next_point(p, p->cur);

	if (last || pkt_ackreq(p, p->cur)) {
		/* req_ack must know of it once the messages built with it are out */
		struct sent_due *d = ring_add(e, &e->dues, "SENTs due");

		if (d)
			*d = (struct sent_due){ (unsigned int)(p - e->qp), p->cur_gen, next };
	}
	if (len) {
		struct pay_exp *x = ring_add(e, &e->pays, "payloads");

		if (x) {
			x->len = len;
			x->q = (unsigned int)(p - e->qp);
			if (w->is_inline) {
				memcpy(x->byte, &w->img[HROCE_SQ_WQE_SGE_OFFSET], len);
				e->n_inline++;
			} else {
				unsigned int n = 0;

				walk_pkt(e, p, w, p->cur.pkt);
				for (unsigned int i = 0; i < e->w.nchunk; i++)
					for (unsigned int k = 0; k < e->w.chunk[i].len; k++)
						x->byte[n++] =
							pay_host_byte(e->w.chunk[i].iova + k);
				if (n != len)
					FAIL(e, "bench: the walk gives %u bytes of %u", n, len);
				e->n_dma++;
			}
		}
		e->hdr_pays++;
		e->pay_bytes += len;
	} else {
		e->n_zero++;
	}
	unsigned int op = (unsigned int)HROCE_ROCE_HDR_GET(h, BTH_OPCODE);

	if (w->is_read)
		e->n_read++;
	else if (w->npkts == 1)
		e->n_only++;
	else if (!p->cur.pkt)
		e->n_first++;
	else if (last)
		e->n_last++;
	else
		e->n_middle++;
	if (op == HROCE_RC_OP_SEND_LAST_IMM || op == HROCE_RC_OP_SEND_ONLY_IMM ||
	    op == HROCE_RC_OP_WRITE_LAST_IMM || op == HROCE_RC_OP_WRITE_ONLY_IMM)
		e->n_imm++;
	if (!last && pkt_ackreq(p, p->cur))
		e->n_ackreq_mid++;
	p->cur = next;
	e->n_pkts++;
	e->n_checks++;
	if (p->stopped || p->waiting) {
		if (++p->quiet_pkts > PIPE_PKTS)
			FAIL(e, "QP 0x%x: %u packets since it %s (at most %u were built)", p->qpn,
			     p->quiet_pkts, p->stopped ? "stopped" : "began to wait", PIPE_PKTS);
	}
	fairness(e, p, last);
	ack_on_packet(e, p);
}

/*
 * The SENT message and the header of a packet enter their FIFOs together, and the link
 * may take headers while req_ack holds messages back: once no message is offered, every
 * one built with a packet that left has been taken, and must have told of it.
 */
static void check_dues(struct env *e)
{
	struct sent_due *d;

	if (vport_get(e->mm_valid))
		return;
	while ((d = bench_ring_at(&e->dues, 0))) {
		struct qp *p = &e->qp[d->q];
		unsigned int g = d->gen & 0xff;

		if (!p->sent_valid[g] || point_cmp(p->sent[g], d->upto) < 0) {
			FAIL(e,
			     "QP 0x%x: the packets up to WQE %u packet %u left, and no SENT told "
			     "of them (the last SENT of their generation: %s WQE %u packet %u)",
			     p->qpn, d->upto.ci, d->upto.pkt, p->sent_valid[g] ? "" : "none,",
			     p->sent[g].ci, p->sent[g].pkt);
			return;
		}
		bench_ring_pop(&e->dues);
		e->n_checks++;
	}
}

static void check_beat(struct env *e)
{
	struct pay_exp *x = bench_ring_at(&e->pays, 0);
	uint8_t d[BEAT];
	uint64_t keep = vport_get(e->ax_keep);
	bool last = vport_get(e->ax_last) != 0;

	vport_read(e->ax_data, d, sizeof(d));
	if (!x || !e->hdr_pays) {
		FAIL(e, "a payload beat before its header");
		return;
	}
	unsigned int n = x->len - e->pay_pos < BEAT ? x->len - e->pay_pos : BEAT;
	uint64_t want_keep = n == BEAT ? UINT64_MAX : (1ull << n) - 1;
	bool want_last = e->pay_pos + n == x->len;

	if (keep != want_keep || last != want_last || vport_get(e->ax_user)) {
		FAIL(e,
		     "QP 0x%x: payload beat at byte %u of %u: tkeep 0x%016llx tlast %u tuser %u, "
		     "want 0x%016llx %u 0",
		     e->qp[x->q].qpn, e->pay_pos, x->len, (unsigned long long)keep, last,
		     (unsigned int)vport_get(e->ax_user), (unsigned long long)want_keep, want_last);
		return;
	}
	for (unsigned int i = 0; i < n; i++)
		if (d[i] != x->byte[e->pay_pos + i]) {
			FAIL(e, "QP 0x%x: payload byte %u of %u is 0x%02x, want 0x%02x",
			     e->qp[x->q].qpn, e->pay_pos + i, x->len, d[i],
			     x->byte[e->pay_pos + i]);
			return;
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
	uint32_t m[MSG_WORDS];
	struct qp *p;

	vport_read(e->mm_data, m, sizeof(m));
	p = qp_of(e, (uint32_t)hroce_bus_get(m, REQ_TXM_QPN));
	if (!p) {
		FAIL(e, "a message of QP 0x%x, which no doorbell told of",
		     (unsigned int)hroce_bus_get(m, REQ_TXM_QPN));
		return;
	}
	unsigned int kind = (unsigned int)hroce_bus_get(m, REQ_TXM_KIND);
	int g = msg_gen(p, (unsigned int)hroce_bus_get(m, REQ_TXM_GEN));
	struct point pt = { rel_of(p, (uint32_t)hroce_bus_get(m, REQ_TXM_CI)),
			    (unsigned int)hroce_bus_get(m, REQ_TXM_PKT) };
	uint32_t npsn = (uint32_t)hroce_bus_get(m, REQ_TXM_NPSN);
	unsigned int pi = rel_of(p, (uint32_t)hroce_bus_get(m, REQ_TXM_PI));
	unsigned int status = (unsigned int)hroce_bus_get(m, REQ_TXM_STATUS);
	static const char *const kinds[] = { "SENT", "FLUSH", "ERROR", "kind 3" };

	if (g < 0) {
		FAIL(e, "QP 0x%x: %s of rewind generation %u (req_ack gave %u..%u)", p->qpn,
		     kinds[kind], (unsigned int)hroce_bus_get(m, REQ_TXM_GEN),
		     (p->gen0 + p->msg_gen) & 0xff, (p->gen0 + p->gen) & 0xff);
		return;
	}
	p->msg_gen = (unsigned int)g;
	bool direct = kind == REQ_TXM_FLUSH ||
		      (kind == REQ_TXM_ERROR && status == HROCE_WC_STATUS_LOC_QP_OP_ERR);
	unsigned int *last_pi = direct ? &p->last_pi_direct : &p->last_pi;

	if (pi > p->rung || pi < *last_pi) {
		FAIL(e,
		     "QP 0x%x: %s with SQ_PI %u, the doorbells told %u (the last message on "
		     "its way %u)",
		     p->qpn, kinds[kind], pi, p->rung, *last_pi);
		return;
	}
	*last_pi = pi;
	p->any_msg = true;
	if (kind == REQ_TXM_ERROR) {
		const struct wqe *w = &p->w[pt.ci];

		if (pt.ci >= p->rung || pt.ci < p->fail_ci || (!w->malformed && w->fail_pkt < 0) ||
		    status != w->fail_status) {
			FAIL(e,
			     "QP 0x%x: ERROR of WQE %u status %u; the first failing WQE is %u "
			     "(status %u)",
			     p->qpn, pt.ci, status, p->fail_ci,
			     p->fail_ci < p->rung ? p->w[p->fail_ci].fail_status : 0);
			return;
		}
		if (status == HROCE_WC_STATUS_LOC_QP_OP_ERR)
			e->n_op_err++;
		else if (status == HROCE_WC_STATUS_LOC_LEN_ERR)
			e->n_len++;
		else
			e->n_prot++;
		p->in_error = true;
		p->flushed = true;
		e->n_error++;
		e->n_checks++;
		return;
	}
	if (pt.ci > p->rung || (pt.ci < p->rung && pt.pkt >= p->w[pt.ci].npkts) ||
	    (pt.ci == p->rung && pt.pkt) || npsn != p->w[pt.ci].psn) {
		FAIL(e,
		     "QP 0x%x: %s CI %u (relative) NPSN 0x%06x PKT %u names no point of its "
		     "sequence (%u WQEs told, NPSN of CI 0x%06x)",
		     p->qpn, kinds[kind], pt.ci, npsn, pt.pkt, p->rung,
		     pt.ci <= p->rung ? p->w[pt.ci].psn : 0);
		return;
	}
	if (kind == REQ_TXM_FLUSH) {
		if (!p->stopped && !p->in_error && p->fail_ci >= p->rung) {
			FAIL(e, "QP 0x%x: FLUSH of a QP not in error", p->qpn);
			return;
		}
		p->in_error = true;
		p->flushed = true;
		e->n_flush++;
		e->n_checks++;
		return;
	}
	if (kind != REQ_TXM_SENT) {
		FAIL(e, "QP 0x%x: a message of kind %u", p->qpn, kind);
		return;
	}
	struct point end = end_point(p);

	if (point_cmp(pt, end) > 0) {
		FAIL(e,
		     "QP 0x%x: SENT up to WQE %u packet %u, past the QP's end (WQE %u packet "
		     "%u)",
		     p->qpn, pt.ci, pt.pkt, end.ci, end.pkt);
		return;
	}
	unsigned int g8 = (unsigned int)g & 0xff;

	if (p->sent_valid[g8] && point_cmp(pt, p->sent[g8]) < 0) {
		FAIL(e, "QP 0x%x: SENT up to WQE %u packet %u after one up to WQE %u packet %u",
		     p->qpn, pt.ci, pt.pkt, p->sent[g8].ci, p->sent[g8].pkt);
		return;
	}
	p->sent[g8] = pt;
	p->sent_valid[g8] = true;
	e->n_sent++;
	e->n_checks++;
}

static void check_info(struct env *e)
{
	uint32_t d[6];
	struct qp *p = qp_of(e, (uint32_t)vport_get(e->info_qpn));

	vport_read(e->info_data, d, sizeof(d));
	if (!p) {
		FAIL(e, "wqe_info of QP 0x%x", (unsigned int)vport_get(e->info_qpn));
		return;
	}
	unsigned int rel = rel_of(p, (uint32_t)vport_get(e->info_index));
	const struct wqe *w = &p->w[p->info_next];

	if (rel != p->info_next || rel >= p->rung) {
		FAIL(e, "QP 0x%x: wqe_info of WQE %u, want %u (%u told)", p->qpn, rel, p->info_next,
		     p->rung);
		return;
	}
	/* {opcode, flags, length, SGE count, the WQE's bytes 32..47} */
	uint32_t want[6];

	memset(want, 0, sizeof(want));
	memcpy(want, &w->img[HROCE_SQ_WQE_SGE_OFFSET], 16);
	hroce_bus_set(want, 128, 8, w->num_sge);
	hroce_bus_set(want, 136, 32, w->len);
	hroce_bus_set(want, 168, 8, w->flags);
	hroce_bus_set(want, 176, 8, w->opcode);
	if (memcmp(d, want, 23)) {
		FAIL(e,
		     "QP 0x%x: wqe_info of WQE %u: opcode %u flags 0x%x len %u SGEs %u, want %u "
		     "0x%x %u %u (or its first SGE)",
		     p->qpn, rel, (unsigned int)hroce_bus_get(d, 176, 8),
		     (unsigned int)hroce_bus_get(d, 168, 8),
		     (unsigned int)hroce_bus_get(d, 136, 32),
		     (unsigned int)hroce_bus_get(d, 128, 8), w->opcode, w->flags, w->len,
		     w->num_sge);
		return;
	}
	p->info_next++;
	e->n_info++;
	e->n_checks++;
}

static void check_update(struct env *e)
{
	uint8_t u[HROCE_QPC_BYTES];
	struct qp *p = qp_of(e, (uint32_t)vport_get(e->up_index));

	vport_read(e->up_data, u, sizeof(u));
	if (!p) {
		FAIL(e, "a context update of QP 0x%x, whose context is not valid",
		     (unsigned int)vport_get(e->up_index));
		return;
	}
	for (unsigned int i = 0; i < HROCE_QPC_BYTES; i++) {
		if (i >= HROCE_QPC_REQ_BYTE && i < HROCE_QPC_REQ_BYTE + 32)
			continue;
		if (u[i] != p->ctx[i]) {
			FAIL(e,
			     "QP 0x%x: a context update changes byte 0x%x (0x%02x -> 0x%02x), "
			     "not req_tx's",
			     p->qpn, i, p->ctx[i], u[i]);
			return;
		}
	}
	memcpy(p->ctx + HROCE_QPC_REQ_BYTE, u + HROCE_QPC_REQ_BYTE, 32);
	e->n_updates++;
}

/* ---------------------------------------------------------------------------------------
 * The agents: context memory, DMA of the rings and of payload, translator, req_ack,
 * doorbells, the responder's errors, hold, the link
 */

static void ctx_drive(struct env *e)
{
	struct bench *b = e->b;
	uint8_t data[HROCE_QPC_BYTES];

	vport_set(e->lk_ready, bench_chance(b, e->sc->ready_pct));
	vport_set(e->up_ready, bench_chance(b, e->sc->ready_pct));
	if (e->lk_pending && !e->lk_valid && e->lk_at <= e->dut.cycle)
		e->lk_valid = true;
	bench_fill(b, data, sizeof(data));
	vport_set(e->lk_status, 0);
	if (e->lk_valid) {
		struct qp *p = qp_of(e, e->lk_qpn);

		if (p) {
			memcpy(data, p->ctx, sizeof(data));
		} else if (e->lk_qpn == FAR_QPN) {
			vport_set(e->lk_status, 1);
		} else {
			hroce_mem_set(data, HROCE_QPC_VALID_LSB, 1, 0);
		}
	}
	vport_write(e->lk_data, data, sizeof(data));
	vport_set(e->lk_rvalid, e->lk_valid);
}

static void wqe_dma_drive(struct env *e)
{
	struct bench *b = e->b;
	struct wqe_read *r = bench_ring_at(&e->wreads, 0);
	uint8_t data[BEAT];

	vport_set(e->wrq_ready, bench_chance(b, e->sc->ready_pct));
	if (!e->wvalid && r && r->at <= e->dut.cycle && bench_chance(b, e->sc->ready_pct))
		e->wvalid = true;
	bench_fill(b, data, sizeof(data));
	if (e->wvalid)
		memcpy(data, &r->data[e->wbeat * BEAT], BEAT);
	vport_write(e->wr_data, data, sizeof(data));
	vport_set(e->wr_valid, e->wvalid);
	vport_set(e->wr_last, e->wvalid ? e->wbeat + 1 == r->beats : bench_rand(b) & 1);
	vport_set(e->wr_user, 0);
}

static void wqe_dma_request(struct env *e)
{
	uint64_t addr = vport_get(e->wrq_addr);
	unsigned int len = (unsigned int)vport_get(e->wrq_len);
	struct wqe_read *r;

	for (unsigned int q = 0; q < e->sc->qps; q++) {
		struct qp *p = &e->qp[q];

		if (addr < p->sq_base || addr + len > p->sq_base + p->ring_bytes)
			continue;
		if (!len || len % BEAT || len > 512 || (addr - p->sq_base) % wqe_bytes(p)) {
			FAIL(e, "QP 0x%x: WQE read of 0x%llx len %u: not whole WQEs of %u bytes",
			     p->qpn, (unsigned long long)addr, len, wqe_bytes(p));
			return;
		}
		r = ring_add(e, &e->wreads, "WQE reads");
		if (!r)
			return;
		r->at = e->dut.cycle + bench_range(e->b, 1, e->sc->lat_max);
		r->beats = len / BEAT;
		r->q = q;
		memcpy(r->data, &p->ring[addr - p->sq_base], len);
		return;
	}
	FAIL(e, "a WQE read of 0x%llx len %u, in no send ring", (unsigned long long)addr, len);
}

static void pay_dma_drive(struct env *e)
{
	struct bench *b = e->b;

	vport_set(e->prq_ready, bench_chance(b, e->sc->ready_pct));
	pay_stream_offer(&e->ps, b, e->dut.cycle, e->sc->ready_pct);

	uint8_t data[BEAT];
	uint64_t keep;
	bool last;

	pay_stream_beat(&e->ps, b, data, &keep, &last);
	vport_write(e->pr_data, data, sizeof(data));
	vport_set(e->pr_keep, keep);
	vport_set(e->pr_last, last);
	vport_set(e->pr_user, 0);
	vport_set(e->pr_valid, e->ps.beat_valid);
}

static void db_drive(struct env *e)
{
	struct bench *b = e->b;
	struct doorbell *d = bench_ring_at(&e->dbs, 0);
	uint8_t data[BEAT];

	if (!e->db_valid && d && !bench_chance(b, e->sc->db_idle_pct))
		e->db_valid = true;
	bench_fill(b, data, sizeof(data));
	if (e->db_valid)
		memcpy(data, d->data, BEAT);
	vport_set(e->db_qpn, e->db_valid ? d->qpn : bench_rand(b));
	vport_set(e->db_index, e->db_valid ? d->index : bench_rand(b));
	vport_set(e->db_push, e->db_valid ? d->push : bench_rand(b) & 1);
	vport_write(e->db_data, data, sizeof(data));
	vport_set(e->db_valid_p, e->db_valid);
}

static void db_taken(struct env *e)
{
	struct doorbell *d = bench_ring_at(&e->dbs, 0);

	if (d->q < MAX_QPS) {
		struct qp *p = &e->qp[d->q];

		p->rung = d->rel;
		e->n_db++;
		e->n_push += d->push;
	} else {
		e->n_ghost++;
	}
	bench_ring_pop(&e->dbs);
	e->db_valid = false;
}

static void misc_drive(struct env *e)
{
	struct bench *b = e->b;
	const struct scenario *sc = e->sc;

	/* the responder puts a QP in error */
	if (!e->er_valid && sc->err_pct && bench_range(b, 0, 9999) < sc->err_pct) {
		/* the QP that is stopped by the responder, once it sent something; or another,
		 * once it is in error anyway (nothing changes) */
		e->er_q = (unsigned int)bench_range(b, 0, sc->qps - 1);
		e->er_valid = qp_spoil(e, &e->qp[e->er_q]) == SPOIL_RESP
				      ? e->qp[e->er_q].cur.ci > 20
				      : e->qp[e->er_q].stopped;
	}
	vport_set(e->er_qpn, e->er_valid ? e->qp[e->er_q].qpn : bench_rand(b));
	vport_set(e->er_valid_p, e->er_valid);
	/* a command holds the engine until it is idle */
	if (!e->holding && sc->hold_pct && bench_range(b, 0, 9999) < sc->hold_pct) {
		e->holding = true;
		e->hold_left = (unsigned int)bench_range(b, 0, 30);
		e->n_hold++;
	}
	vport_set(e->hold, e->holding);
	/* req_ack */
	if (!e->am_valid)
		ack_model(e);
	vport_write(e->sm_data, e->am, sizeof(e->am));
	vport_set(e->sm_valid, e->am_valid);
	vport_set(e->mm_ready, bench_chance(b, sc->msg_ready_pct));
}

static void drive(void *ctx)
{
	struct env *e = ctx;
	struct bench *b = e->b;

	host_post(e);
	db_drive(e);
	misc_drive(e);
	ctx_drive(e);
	wqe_dma_drive(e);
	pay_dma_drive(e);
	walk_xlator_drive(&e->xl, e->dut.cycle, e->sc->ready_pct);
	vport_set(e->hdr_ready, bench_chance(b, e->sc->ready_pct));
	vport_set(e->ax_ready, e->hdr_pays && bench_chance(b, e->sc->ready_pct));
}

static void sample(void *ctx)
{
	struct env *e = ctx;

	check_held(e);
	if (e->lk_valid && vport_get(e->lk_rready)) {
		e->lk_valid = false;
		e->lk_pending = false;
		progress(e);
	}
	if (vport_get(e->lk_valid_p) && vport_get(e->lk_ready)) {
		if (e->lk_pending)
			FAIL(e, "a context lookup before the last one was answered");
		e->lk_pending = true;
		e->lk_qpn = (uint32_t)vport_get(e->lk_index);
		e->lk_at = e->dut.cycle + bench_range(e->b, 1, e->sc->lat_max);
		e->n_lookups++;
		progress(e);
	}
	if (vport_get(e->up_valid) && vport_get(e->up_ready)) {
		check_update(e);
		progress(e);
	}
	if (e->db_valid && vport_get(e->db_ready)) {
		db_taken(e);
		progress(e);
	}
	if (e->er_valid && vport_get(e->er_ready)) {
		struct qp *p = &e->qp[e->er_q];

		if (!p->stopped) {
			p->stopped = true;
			p->flushed = false;
			p->quiet_pkts = 0;
		}
		e->er_valid = false;
		e->n_resp_err++;
		progress(e);
	}
	if (e->am_valid && vport_get(e->sm_ready)) {
		ackm_taken(e);
		progress(e);
	}
	if (e->holding && vport_get(e->idle) && (!e->hold_left || !--e->hold_left))
		e->holding = false;
	/* the messages before the headers: a SENT may come in the cycle of its packet */
	if (vport_get(e->mm_valid) && vport_get(e->mm_ready)) {
		check_msg(e);
		progress(e);
	}
	if (vport_get(e->info_valid)) {
		check_info(e);
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
	check_dues(e);
	struct walk_ans taken;

	if (walk_xlator_sample(&e->xl, e->dut.cycle, e->sc->lat_max, &taken, e->err,
			       sizeof(e->err)))
		progress(e);
	if (vport_get(e->wrq_valid) && vport_get(e->wrq_ready)) {
		wqe_dma_request(e);
		progress(e);
	}
	if (e->wvalid && vport_get(e->wr_ready)) {
		struct wqe_read *r = bench_ring_at(&e->wreads, 0);

		if (++e->wbeat == r->beats) {
			bench_ring_pop(&e->wreads);
			e->wbeat = 0;
		}
		e->wvalid = false;
		progress(e);
	}
	if (vport_get(e->prq_valid) && vport_get(e->prq_ready)) {
		struct pay_req *r = ring_add(e, &e->ps.reqs, "DMA reads in flight");

		if (r)
			*r = (struct pay_req){ vport_get(e->prq_addr),
					       e->dut.cycle + bench_range(e->b, 1, e->sc->lat_max),
					       (unsigned int)vport_get(e->prq_len),
					       vport_get(e->prq_last) != 0 };
		progress(e);
	}
	if (e->ps.beat_valid && vport_get(e->pr_ready)) {
		pay_stream_taken(&e->ps);
		progress(e);
	}
}

/* ---------------------------------------------------------------------------------------
 * Runs
 */

static void open_ports(struct env *e)
{
	static const struct dut_port_ref ports[] = {
#define P(field, name) DUT_PORT(struct env, field, name)
		P(cfg_mac_p, "cfg_mac"),
		P(hold, "hold"),
		P(idle, "idle"),
		P(db_qpn, "s_db_qpn"),
		P(db_index, "s_db_index"),
		P(db_push, "s_db_push"),
		P(db_data, "s_db_push_data"),
		P(db_valid_p, "s_db_valid"),
		P(db_ready, "s_db_ready"),
		P(er_qpn, "s_err_qpn"),
		P(er_valid_p, "s_err_valid"),
		P(er_ready, "s_err_ready"),
		P(mm_data, "m_msg_data"),
		P(mm_valid, "m_msg_valid"),
		P(mm_ready, "m_msg_ready"),
		P(sm_data, "s_msg_data"),
		P(sm_valid, "s_msg_valid"),
		P(sm_ready, "s_msg_ready"),
		P(info_qpn, "m_info_qpn"),
		P(info_index, "m_info_index"),
		P(info_data, "m_info_data"),
		P(info_valid, "m_info_valid"),
		P(lk_index, "m_ctx_lookup_index"),
		P(lk_valid_p, "m_ctx_lookup_valid"),
		P(lk_ready, "m_ctx_lookup_ready"),
		P(lk_data, "s_ctx_lookup_data"),
		P(lk_status, "s_ctx_lookup_status"),
		P(lk_rvalid, "s_ctx_lookup_valid"),
		P(lk_rready, "s_ctx_lookup_ready"),
		P(up_index, "m_ctx_update_index"),
		P(up_data, "m_ctx_update_data"),
		P(up_valid, "m_ctx_update_valid"),
		P(up_ready, "m_ctx_update_ready"),
		P(wrq_addr, "m_wqe_rd_req_addr"),
		P(wrq_len, "m_wqe_rd_req_len"),
		P(wrq_valid, "m_wqe_rd_req_valid"),
		P(wrq_ready, "m_wqe_rd_req_ready"),
		P(wr_data, "s_wqe_rd_axis_tdata"),
		P(wr_valid, "s_wqe_rd_axis_tvalid"),
		P(wr_ready, "s_wqe_rd_axis_tready"),
		P(wr_last, "s_wqe_rd_axis_tlast"),
		P(wr_user, "s_wqe_rd_axis_tuser"),
		P(prq_addr, "m_pay_rd_req_addr"),
		P(prq_len, "m_pay_rd_req_len"),
		P(prq_last, "m_pay_rd_req_last"),
		P(prq_valid, "m_pay_rd_req_valid"),
		P(prq_ready, "m_pay_rd_req_ready"),
		P(pr_data, "s_pay_rd_axis_tdata"),
		P(pr_keep, "s_pay_rd_axis_tkeep"),
		P(pr_valid, "s_pay_rd_axis_tvalid"),
		P(pr_ready, "s_pay_rd_axis_tready"),
		P(pr_last, "s_pay_rd_axis_tlast"),
		P(pr_user, "s_pay_rd_axis_tuser"),
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

/* every QP sent what it had to, and nothing is left on the way */
static bool all_done(struct env *e)
{
	if (e->posted < e->sc->wqes || e->dbs.n || e->db_valid || e->am_valid || e->er_valid ||
	    e->holding || e->pays.n || e->dues.n || !pay_stream_empty(&e->ps) || e->wreads.n ||
	    e->xl.ans.n || e->lk_pending)
		return false;
	for (unsigned int q = 0; q < e->sc->qps; q++) {
		const struct qp *p = &e->qp[q];

		if (p->waiting)
			return false;
		if (p->stopped || p->in_error)
			continue;
		if (p->rung != p->nposted || restart_pending(p) ||
		    point_cmp(p->cur, end_point(p)) < 0)
			return false;
		if (p->fail_ci < p->rung && !p->in_error)
			return false;
	}
	return true;
}

static void report_qps(struct env *e)
{
	char *s = e->err + strlen(e->err);
	size_t left = sizeof(e->err) - strlen(e->err);

	for (unsigned int q = 0; q < e->sc->qps && left > 80; q++) {
		const struct qp *p = &e->qp[q];
		int n = snprintf(s, left,
				 "; QP 0x%x: at WQE %u pkt %u of %u told (%u posted, end %u), %u "
				 "rewinds pending%s%s%s",
				 p->qpn, p->cur.ci, p->cur.pkt, p->rung, p->nposted,
				 end_point(p).ci, p->nrestart, p->waiting ? ", waiting" : "",
				 p->stopped ? ", stopped" : "", p->in_error ? ", in error" : "");

		if (n < 0 || (size_t)n >= left)
			break;
		s += n;
		left -= (size_t)n;
	}
}

static void final_checks(struct env *e)
{
	for (unsigned int q = 0; q < e->sc->qps && !e->err[0]; q++) {
		struct qp *p = &e->qp[q];
		const uint8_t *c = p->ctx;
		bool err = p->stopped || p->in_error;

		unsigned int told = p->last_pi > p->last_pi_direct ? p->last_pi : p->last_pi_direct;

		if (p->any_msg && told != p->rung)
			FAIL(e, "QP 0x%x: req_ack was told SQ_PI %u at most, the doorbells told %u",
			     p->qpn, told, p->rung);
		else if (p->stopped && !p->flushed)
			FAIL(e, "QP 0x%x: stopped, and no FLUSH or ERROR came", p->qpn);
		else if (p->fail_ci < p->rung && !err)
			FAIL(e, "QP 0x%x: WQE %u failed, and no ERROR came", p->qpn, p->fail_ci);
		else if (HROCE_QPC_GET(c, SQ_PI) != (uint16_t)(p->ci0 + p->rung))
			FAIL(e, "QP 0x%x: the context's SQ_PI is %u, want %u", p->qpn,
			     (unsigned int)HROCE_QPC_GET(c, SQ_PI), (uint16_t)(p->ci0 + p->rung));
		else if (!err &&
			 (HROCE_QPC_GET(c, SQ_CI) != (uint16_t)(p->ci0 + p->rung) ||
			  HROCE_QPC_GET(c, NPSN) != p->w[p->rung].psn || HROCE_QPC_GET(c, SQ_PKT) ||
			  HROCE_QPC_GET(c, SCHEDULED) || HROCE_QPC_GET(c, TX_ERR)))
			FAIL(e,
			     "QP 0x%x: the context ends with SQ_CI %u NPSN 0x%06x SQ_PKT %u "
			     "SCHEDULED %u TX_ERR %u; want %u 0x%06x 0 0 0",
			     p->qpn, (unsigned int)HROCE_QPC_GET(c, SQ_CI),
			     (unsigned int)HROCE_QPC_GET(c, NPSN),
			     (unsigned int)HROCE_QPC_GET(c, SQ_PKT),
			     (unsigned int)HROCE_QPC_GET(c, SCHEDULED),
			     (unsigned int)HROCE_QPC_GET(c, TX_ERR), (uint16_t)(p->ci0 + p->rung),
			     p->w[p->rung].psn);
		else if (err && !HROCE_QPC_GET(c, TX_ERR))
			FAIL(e, "QP 0x%x: in error, and its context's TX_ERR is clear", p->qpn);
		else if (!err && p->info_next != p->rung)
			FAIL(e, "QP 0x%x: wqe_info got WQEs up to %u of %u", p->qpn, p->info_next,
			     p->rung);
	}
	if (!e->err[0] && !vport_get(e->idle))
		FAIL(e, "everything sent, and the engine is not idle");
	if (!e->err[0] &&
	    (vport_get(e->hdr_valid) || vport_get(e->ax_valid) || vport_get(e->mm_valid) ||
	     vport_get(e->xl.req_valid) || vport_get(e->prq_valid) || vport_get(e->wrq_valid)))
		FAIL(e, "everything sent, and an output is still offered");
}

static void run(struct bench *b, const struct scenario *sc, const struct vmodel_ops *ops,
		const char *tag)
{
	static struct env env;
	static struct wqe wqes[MAX_QPS][MAX_WQES + 1];
	static uint8_t rings[MAX_QPS][512u << 6];
	struct env *e = &env;
	struct scenario s = *sc;
	char name[96];

	if (b->quick)
		s.wqes /= 4;
	snprintf(name, sizeof(name), "%s%s", sc->name, tag);
	s.name = name;
	memset(e, 0, sizeof(*e));
	e->b = b;
	e->sc = &s;
	for (unsigned int q = 0; q < MAX_QPS; q++) {
		e->qp[q].w = wqes[q];
		e->qp[q].ring = rings[q];
	}
	bench_ring_init(&e->pays, sizeof(struct pay_exp), 256);
	pay_stream_init(&e->ps, RING);
	bench_ring_init(&e->wreads, sizeof(struct wqe_read), 256);
	bench_ring_init(&e->dbs, sizeof(struct doorbell), 64);
	bench_ring_init(&e->dues, sizeof(struct sent_due), RING);
	walk_make_mrs(b, e->mrs);
	setup_qps(e);
	e->last_run_q = MAX_QPS;
	{
		uint8_t mac[6];

		bench_random_mac(b, mac);
		e->cfg_mac = bench_mac_value(mac);
	}
	dut_open(&e->dut, b, ops);
	open_ports(e);
	/* (the payload is read: translations for no access) */
	walk_xlator_open(&e->xl, &e->dut, e->mrs, RING);
	walk_xlator_answer_any(&e->xl, 0);
	vport_set(e->cfg_mac_p, e->cfg_mac);
	dut_reset(&e->dut, 4);
	dut_add_agent(&e->dut, drive, sample, e);
	progress(e);
	unsigned int quiet = 0;

	while (!e->err[0] && quiet < 200) {
		dut_step(&e->dut);
		quiet = all_done(e) ? quiet + 1 : 0;
		if (e->dut.cycle - e->last_progress > HANG_CYCLES || e->dut.cycle > MAX_CYCLES) {
			FAIL(e,
			     "no progress for %u cycles, or no end (cycle %llu): %u doorbells, "
			     "%u payloads %s expected, idle %u",
			     HANG_CYCLES, (unsigned long long)e->dut.cycle, e->dbs.n, e->pays.n,
			     e->am_valid ? "and a message of req_ack offered" : "",
			     (unsigned int)vport_get(e->idle));
			report_qps(e);
		}
	}
	if (!e->err[0])
		final_checks(e);
	bench_log(b,
		  "%s: %u WQEs in %llu cycles: %u packets (%u only, %u first, %u middle, %u last, "
		  "%u with immediate, %u READ requests, %u resumed; %u DMA, %u inline, %u empty; "
		  "%u AckReq mid-message, %llu bytes); %u doorbells (%u pushed, %u of no QP); "
		  "%u SENT, %u FLUSH, %u ERROR (%u LOC_QP_OP_ERR, %u LOC_PROT_ERR, %u "
		  "LOC_LEN_ERR); %u rewinds (%u resent), %u waits, %u stops, %u responder "
		  "errors, %u holds, %u turns for nothing; %u wqe_info, %u lookups, %u updates; "
		  "%u turns, the most another took while a QP waited %u (%u WQEs); %u checks",
		  s.name, e->posted, (unsigned long long)e->dut.cycle, e->n_pkts, e->n_only,
		  e->n_first, e->n_middle, e->n_last, e->n_imm, e->n_read, e->n_read_resumed,
		  e->n_dma, e->n_inline, e->n_zero, e->n_ackreq_mid,
		  (unsigned long long)e->pay_bytes, e->n_db, e->n_push, e->n_ghost, e->n_sent,
		  e->n_flush, e->n_error, e->n_op_err, e->n_prot, e->n_len, e->n_rewind,
		  e->n_restart, e->n_wait, e->n_stop, e->n_resp_err, e->n_hold, e->n_turn_msgs,
		  e->n_info, e->n_lookups, e->n_updates, e->n_fair, e->max_fair, e->max_fair_wqes,
		  e->n_checks);
	/* (a run of small WQEs only may have no message of several packets) */
	if (!e->err[0] && s.small_pct < 100 &&
	    (!e->n_only || !e->n_first || !e->n_middle || !e->n_last || !e->n_imm || !e->n_dma ||
	     !e->n_zero || !e->n_sent || !e->n_info || (s.read_pct && !e->n_read) ||
	     (s.small_pct && !e->n_inline)))
		FAIL(e, "a kind of packet never came: the stimulus is too thin");
	if (!e->err[0] && s.bad_pct && (!e->n_op_err || !e->n_prot || !e->n_len || !e->n_ghost))
		FAIL(e, "a run with violations and no LOC_QP_OP_ERR, LOC_PROT_ERR, LOC_LEN_ERR "
			"or doorbell of no QP"),
			report_qps(e);
	if (!e->err[0] && !s.bad_pct && e->n_error)
		FAIL(e, "a run without violations had an ERROR");
	if (!e->err[0] && s.push_pct && !e->n_push)
		FAIL(e, "a run with pushed WQEs and none pushed");
	if (!e->err[0] && s.rewind_pct &&
	    (!e->n_rewind || !e->n_restart || (s.rewind_pct > 1 && !e->n_read_resumed)))
		FAIL(e, "a run with rewinds and no rewind, resend or READ resumed");
	if (!e->err[0] && s.wait_pct && !e->n_wait)
		FAIL(e, "a run with RNR waits and none");
	if (!e->err[0] && (s.stop_pct || s.err_pct) &&
	    (!e->n_stop || !e->n_resp_err || !e->n_flush))
		FAIL(e, "a run with stops and no STOP, responder error or FLUSH"), report_qps(e);
	if (!e->err[0] && s.hold_pct && !e->n_hold)
		FAIL(e, "a run with holds and none");
	if (!e->err[0] && s.fair && !e->n_fair)
		FAIL(e, "a fairness run without turns");
	bench_result(b, s.name, !e->err[0], "%s", e->err);
	dut_close(&e->dut);
	bench_ring_free(&e->pays);
	pay_stream_free(&e->ps);
	bench_ring_free(&e->wreads);
	walk_xlator_close(&e->xl);
	bench_ring_free(&e->dbs);
	bench_ring_free(&e->dues);
}

int main(int argc, char **argv)
{
	static const struct scenario scenarios[] = {
		{ .name = "req_tx_clean",
		  .qps = 8,
		  .wqes = 4000,
		  .read_pct = 15,
		  .push_pct = 30,
		  .small_pct = 30,
		  .ready_pct = 80,
		  .msg_ready_pct = 80,
		  .lat_max = 20,
		  .post_pct = 10,
		  .db_idle_pct = 20,
		  .turn_pct = 5 },
		{ .name = "req_tx_violations",
		  .qps = 8,
		  .wqes = 3000,
		  .read_pct = 15,
		  .bad_pct = 10,
		  .push_pct = 30,
		  .small_pct = 30,
		  .ready_pct = 80,
		  .msg_ready_pct = 80,
		  .lat_max = 20,
		  .post_pct = 10,
		  .db_idle_pct = 20,
		  .stop_pct = 1,
		  .err_pct = 20,
		  .ghost_pct = 2,
		  .turn_pct = 5 },
		{ .name = "req_tx_backpressure",
		  .qps = 8,
		  .wqes = 1500,
		  .read_pct = 15,
		  .push_pct = 30,
		  .small_pct = 30,
		  .ready_pct = 25,
		  .msg_ready_pct = 20,
		  .lat_max = 150,
		  .post_pct = 10,
		  .db_idle_pct = 50,
		  .rewind_pct = 1,
		  .turn_pct = 5 },
		{ .name = "req_tx_gaps",
		  .qps = 4,
		  .wqes = 2000,
		  .read_pct = 15,
		  .push_pct = 30,
		  .small_pct = 30,
		  .ready_pct = 90,
		  .msg_ready_pct = 90,
		  .lat_max = 10,
		  .post_pct = 2,
		  .db_idle_pct = 80,
		  .hold_pct = 30,
		  .turn_pct = 5 },
		/* two QPs, small WQEs pushed with their doorbells, a stream of them */
		{ .name = "req_tx_pushed",
		  .qps = 2,
		  .wqes = 1800,
		  .read_pct = 5,
		  .push_pct = 90,
		  .small_pct = 90,
		  .ready_pct = 90,
		  .msg_ready_pct = 90,
		  .lat_max = 30,
		  .post_pct = 40,
		  .turn_pct = 5 },
		{ .name = "req_tx_rewinds",
		  .qps = 6,
		  .wqes = 3000,
		  .read_pct = 30,
		  .push_pct = 20,
		  .small_pct = 30,
		  .ready_pct = 80,
		  .msg_ready_pct = 70,
		  .lat_max = 20,
		  .post_pct = 10,
		  .db_idle_pct = 20,
		  .rewind_pct = 4,
		  .wait_pct = 1,
		  .turn_pct = 5 },
		/* every QP busy: no QP waits more than FAIR_TURNS turns of another */
		{ .name = "req_tx_many_qps",
		  .qps = 8,
		  .wqes = 5000,
		  .ready_pct = 90,
		  .msg_ready_pct = 90,
		  .lat_max = 4,
		  .post_pct = 60,
		  .fair = true },
		/* three QPs busy with small WQEs: windows free, so each turn reads the next
		 * one ahead, and a turn ends with its window more often than on the link */
		{ .name = "req_tx_fair",
		  .qps = 3,
		  .wqes = 3000,
		  .small_pct = 100,
		  .ready_pct = 90,
		  .msg_ready_pct = 90,
		  .lat_max = 4,
		  .post_pct = 60,
		  .fair = true },
	};
	struct bench b;

	bench_init(&b, "test_req_tx", argc, argv);
	for (unsigned int i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		run(&b, &scenarios[i], &vmodel_Vreq_tx, "");
	/* two windows, four packets to the link, a work FIFO of 8 */
	for (unsigned int i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		if (scenarios[i].bad_pct || scenarios[i].rewind_pct > 1 ||
		    scenarios[i].push_pct > 50)
			run(&b, &scenarios[i], &vmodel_Vreq_tx_tiny, "_tiny");
	return bench_finish(&b);
}
