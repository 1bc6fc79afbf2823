// SPDX-License-Identifier: MIT
/*
 * System bench of reliable delivery: two simulated NICs in one process on a link that
 * loses, duplicates and delays frames on purpose (hroce_sim_link_set_faults), driven
 * through libhroce as an application would.
 *
 * - directed: for SEND, SEND with immediate, WRITE, WRITE with immediate and READ, of one
 *   packet and of four: the first, a middle and the last request packet lost; the ACK
 *   lost; the last packet and then its ACK lost; a READ response lost at the start, in the
 *   middle and at the end; each of those packets duplicated, and delayed behind a later
 *   frame. Every byte (and the bytes around them), every completion (status, opcode,
 *   length, immediate) and the absence of any second completion are checked, and where
 *   the protocol fixes them, the packets sent again and the recoveries the core counted.
 * - RNR: a RECV posted late (RNR NAKs, then the SEND goes through); rnr_retry used up
 *   (RNR_RETRY_EXC_ERR after exactly rnr_retry waits); rnr_retry 7 waits as long as it
 *   must.
 * - peer gone: the peer's QP stops answering: RETRY_EXC_ERR after retry_cnt + 1 ACK
 *   timeouts of simulated time, the WQE behind it flushed.
 * - bad ICRC: a request with a bit flipped leaves no trace at the responder, which starts
 *   on a request before its ICRC is known.
 *
 * The random mix over a lossy link is test_rc's (random_mix_lossy).
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "hroce_contract.h"
#include "rc_env.h"
#include "roce_wire.h"

#define ACCESS_ALL (HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE | HROCE_ACCESS_REMOTE_READ)
#define MTU_BYTES 1024
#define GUARD 64
#define LONG_LEN (4 * MTU_BYTES - 100) /* four packets */
#define SHORT_LEN 700		       /* one */
/* the ACK timeout of the directed cases: 4.096 us << 3, well above a round trip here */
#define DIRECTED_TIMEOUT 3
#define TIMEOUT_NS(t) (4096ull << (t))
#define POLL_NS 20000000ull
/* after the completions, this long without a second one */
#define QUIET_NS 200000ull

static struct env_params test_params(void)
{
	return (struct env_params){
		.pcie_read_ns = 100,
		.pcie_write_ns = 100,
		.link_ns = 50,
	};
}

static const struct qp_caps caps = { 64, 64, 4, 4, 128 };

struct op_kind {
	const char *name;
	enum hroce_wr_opcode op;
	enum hroce_wc_opcode sq_op, rq_op;
	bool recv, imm, read;
	/* BTH opcodes of its request packets: first, middle, last, only */
	uint8_t first, middle, last, only;
};

static const struct op_kind ops[] = {
	{ "send", HROCE_WR_SEND, HROCE_WC_SEND, HROCE_WC_RECV, true, false, false,
	  HROCE_RC_OP_SEND_FIRST, HROCE_RC_OP_SEND_MIDDLE, HROCE_RC_OP_SEND_LAST,
	  HROCE_RC_OP_SEND_ONLY },
	{ "send_imm", HROCE_WR_SEND_WITH_IMM, HROCE_WC_SEND, HROCE_WC_RECV, true, true, false,
	  HROCE_RC_OP_SEND_FIRST, HROCE_RC_OP_SEND_MIDDLE, HROCE_RC_OP_SEND_LAST_IMM,
	  HROCE_RC_OP_SEND_ONLY_IMM },
	{ "write", HROCE_WR_RDMA_WRITE, HROCE_WC_RDMA_WRITE, 0, false, false, false,
	  HROCE_RC_OP_WRITE_FIRST, HROCE_RC_OP_WRITE_MIDDLE, HROCE_RC_OP_WRITE_LAST,
	  HROCE_RC_OP_WRITE_ONLY },
	{ "write_imm", HROCE_WR_RDMA_WRITE_WITH_IMM, HROCE_WC_RDMA_WRITE,
	  HROCE_WC_RECV_RDMA_WITH_IMM, true, true, false, HROCE_RC_OP_WRITE_FIRST,
	  HROCE_RC_OP_WRITE_MIDDLE, HROCE_RC_OP_WRITE_LAST_IMM, HROCE_RC_OP_WRITE_ONLY_IMM },
	{ "read", HROCE_WR_RDMA_READ, HROCE_WC_RDMA_READ, 0, false, false, true,
	  HROCE_RC_OP_READ_REQUEST, HROCE_RC_OP_READ_REQUEST, HROCE_RC_OP_READ_REQUEST,
	  HROCE_RC_OP_READ_REQUEST },
};

/* Which packet a directed case hits */
enum target {
	REQ_FIRST,    /* the first request packet (a READ's request) */
	REQ_MIDDLE,   /* the second of four */
	REQ_LAST,     /* the last (the only one of a one-packet message) */
	ACK,	      /* the ACK of a SEND or WRITE */
	LAST_AND_ACK, /* the last request packet, then the ACK of its retransmission */
	RESP_FIRST,   /* a READ's first response */
	RESP_MIDDLE,  /* its second of four */
	RESP_LAST,    /* its last (the only one) */
};

static const char *const target_names[] = {
	"first", "middle", "last", "ack", "last_and_ack", "resp_first", "resp_middle", "resp_last"
};

/*
 * What the protocol fixes for a lost packet of a message sent alone (n packets): the
 * request packets sent (retransmissions included), the responses, and how the requester
 * found out (ACK timeouts, implicit NAKs, sequence NAKs). -1: not fixed (when a sequence
 * NAK comes back depends on how many packets were out by then).
 */
struct expect {
	int req_frames, resp_frames, timeouts, implicit, seq_naks;
};

static struct expect expect_lost(const struct op_kind *k, enum target t, int n)
{
	struct expect x = { -1, -1, 0, 0, 0 };

	if (k->read) {
		x.req_frames = 2;
		switch (t) {
		case REQ_FIRST: /* the request: the timer sends it again */
			x.resp_frames = n;
			x.timeouts = 1;
			break;
		case RESP_FIRST: /* the second response shows it: asked again from the first */
			x.resp_frames = 2 * n;
			x.implicit = 1;
			break;
		case RESP_MIDDLE: /* the third shows it: asked again from the second */
			x.resp_frames = n + n - 1;
			x.implicit = 1;
			break;
		default: /* the last: nothing comes after it but the timer */
			x.resp_frames = n + 1;
			x.timeouts = 1;
			break;
		}
		return x;
	}
	switch (t) {
	case REQ_LAST: /* the message is sent again; its first n - 1 packets are duplicates */
		x.req_frames = 2 * n;
		x.resp_frames = n; /* an ACK of each duplicate, and the one of the end */
		x.timeouts = 1;
		break;
	case ACK: /* sent again, all duplicates, each acknowledged */
		x.req_frames = 2 * n;
		x.resp_frames = 1 + n;
		x.timeouts = 1;
		break;
	case LAST_AND_ACK:
		/* twice the timer: the last packet lost, the message sent again (the ACKs of its
		 * duplicates acknowledge all but the last), then that one's ACK lost: the last
		 * packet alone is sent a third time */
		x.req_frames = 2 * n + 1;
		x.resp_frames = n + 1;
		x.timeouts = 2;
		break;
	default: /* first or middle of several: the packet after it brings a sequence NAK */
		if (n == 1) {
			x.req_frames = 2;
			x.resp_frames = 1;
			x.timeouts = 1;
		} else {
			x.seq_naks = 1;
		}
		break;
	}
	return x;
}

static uint8_t target_opcode(const struct op_kind *k, enum target t, int n, bool *resp_dir)
{
	*resp_dir = t == ACK || t >= RESP_FIRST;
	switch (t) {
	case REQ_FIRST:
		return n == 1 ? k->only : k->first;
	case REQ_MIDDLE:
		return k->middle;
	case REQ_LAST:
	case LAST_AND_ACK:
		return n == 1 ? k->only : k->last;
	case ACK:
		return HROCE_RC_OP_ACK;
	case RESP_FIRST:
		return n == 1 ? HROCE_RC_OP_READ_RESP_ONLY : HROCE_RC_OP_READ_RESP_FIRST;
	case RESP_MIDDLE:
		return HROCE_RC_OP_READ_RESP_MIDDLE;
	default:
		return n == 1 ? HROCE_RC_OP_READ_RESP_ONLY : HROCE_RC_OP_READ_RESP_LAST;
	}
}

static uint64_t counter(struct env *e, int node, unsigned int c)
{
	return hroce_core_counter(e->n[node].dev, c);
}

struct counts {
	uint64_t timeouts, implicit, naks, rnr, exceeded;
};

static struct counts counts_of(struct env *e, int node)
{
	return (struct counts){
		counter(e, node, HROCE_CORE_COUNTER_RETRY_TIMEOUT),
		counter(e, node, HROCE_CORE_COUNTER_RETRY_IMPLICIT),
		counter(e, node, HROCE_CORE_COUNTER_RX_NAK),
		counter(e, node, HROCE_CORE_COUNTER_RETRY_RNR),
		counter(e, node, HROCE_CORE_COUNTER_RETRY_EXCEEDED),
	};
}

/* No completion on either node's CQs for QUIET_NS: a second CQE is a defect. */
static bool no_more_cqes(struct env *e, char *why, size_t len)
{
	struct hroce_wc wc;

	for (int node = 0; node < 2; node++) {
		if (env_poll(e, e->n[node].scq, 1, &wc, node ? 0 : QUIET_NS) ||
		    env_poll(e, e->n[node].rcq, 1, &wc, 0)) {
			snprintf(why, len, "a completion too many on node %d: wr_id %llu status %s",
				 node, (unsigned long long)wc.wr_id,
				 hroce_wc_status_name(wc.status));
			return false;
		}
	}
	return true;
}

enum fate { LOST, DUPLICATED, DELAYED };

/* The buffers of a message between node 0 and node 1 */
struct msg_bufs {
	struct buf src;	 /* node 0's source (a READ's destination) */
	struct buf dst;	 /* node 1's target (a READ's source) */
	struct buf rbuf; /* node 1's RECV buffer */
};

/* A message of k, len bytes GUARD bytes into the buffers, wr_id 1 (its RECV: 2). */
static bool post_message(struct qp_pair *qp, const struct op_kind *k, struct msg_bufs *m,
			 uint32_t len, uint32_t imm)
{
	struct hroce_sge sge = { (uintptr_t)m->src.p + GUARD, len, hroce_mr_lkey(m->src.mr) };
	struct hroce_sge rsge = { (uintptr_t)m->rbuf.p + GUARD, len, hroce_mr_lkey(m->rbuf.mr) };
	struct hroce_send_wr wr = { .wr_id = 1,
				    .sg_list = &sge,
				    .num_sge = 1,
				    .opcode = k->op,
				    .send_flags = HROCE_SEND_SIGNALED,
				    .imm_data = htobe32(imm),
				    .remote_addr = (uintptr_t)m->dst.p + GUARD,
				    .rkey = hroce_mr_rkey(m->dst.mr) };
	struct hroce_recv_wr rwr = { .wr_id = 2, .sg_list = &rsge, .num_sge = 1 };
	struct hroce_send_wr *bad;
	struct hroce_recv_wr *rbad;

	return !(k->recv && hroce_post_recv(qp->qp[1], &rwr, &rbad)) &&
	       !hroce_post_send(qp->qp[0], &wr, &bad);
}

/*
 * The QP pair of a case (ACK timeout DIRECTED_TIMEOUT) and its buffers (len bytes and
 * GUARD on each side), the source filled; returns a copy of the source as it is, or NULL
 * with why.
 */
static uint8_t *message_open(struct bench *b, struct env *e, const struct op_kind *k,
			     struct qp_pair *qp, struct msg_bufs *m, uint32_t len, char *why,
			     size_t whylen)
{
	size_t size = len + 2 * GUARD;
	uint8_t *snap;
	int err;

	e->t.timeout = DIRECTED_TIMEOUT;
	err = qp_pair_open(e, qp, HROCE_MTU_1024, &caps, ACCESS_ALL);
	e->t.timeout = 14;
	if (err) {
		snprintf(why, whylen, "connect: %s", strerror(err));
		return NULL;
	}
	buf_open(e, &m->src, 0, size, ACCESS_ALL, 0);
	buf_open(e, &m->dst, 1, size, ACCESS_ALL, 0);
	buf_open(e, &m->rbuf, 1, size, ACCESS_ALL, 0);
	bench_fill(b, (k->read ? m->dst.p : m->src.p) + GUARD, len);
	snap = malloc(size);
	if (!snap) {
		perror("malloc");
		exit(1);
	}
	memcpy(snap, k->read ? m->dst.p : m->src.p, size);
	return snap;
}

/* The end of a case: a clean link again, the QPs, the buffers and the source's copy gone */
static void message_close(struct env *e, struct qp_pair *qp, struct msg_bufs *m, uint8_t *snap)
{
	hroce_sim_link_set_faults(e->link, e->n[0].sim, NULL);
	hroce_sim_link_set_faults(e->link, e->n[1].sim, NULL);
	qp_pair_close(qp);
	buf_close(&m->src);
	buf_close(&m->dst);
	buf_close(&m->rbuf);
	free(snap);
}

/* Where a message of k puts its bytes */
static const uint8_t *message_target(const struct op_kind *k, const struct msg_bufs *m)
{
	if (k->read)
		return m->src.p;
	return k->op == HROCE_WR_SEND || k->op == HROCE_WR_SEND_WITH_IMM ? m->rbuf.p : m->dst.p;
}

/*
 * The message posted by post_message landed: its completions (status, opcode, length,
 * immediate) and no other, the bytes of from (a copy of the source as it was) where they
 * go, and nothing around them. False with why.
 */
static bool message_landed(struct env *e, const struct op_kind *k, const struct msg_bufs *m,
			   uint32_t len, uint32_t imm, const uint8_t *from, char *why,
			   size_t whylen)
{
	const uint8_t *to = message_target(k, m);
	struct hroce_wc wc;

	if (env_poll(e, e->n[0].scq, 1, &wc, POLL_NS) != 1) {
		snprintf(why, whylen, "no send completion");
		return false;
	}
	if (wc.wr_id != 1 || wc.status != HROCE_WC_SUCCESS || wc.opcode != k->sq_op) {
		snprintf(why, whylen, "send completion: wr_id %llu status %s opcode %u",
			 (unsigned long long)wc.wr_id, hroce_wc_status_name(wc.status),
			 (unsigned int)wc.opcode);
		return false;
	}
	if (k->recv) {
		if (env_poll(e, e->n[1].rcq, 1, &wc, POLL_NS) != 1) {
			snprintf(why, whylen, "no receive completion");
			return false;
		}
		if (wc.wr_id != 2 || wc.status != HROCE_WC_SUCCESS || wc.opcode != k->rq_op ||
		    wc.byte_len != len || !!(wc.wc_flags & HROCE_WC_WITH_IMM) != k->imm ||
		    (k->imm && wc.imm_data != htobe32(imm))) {
			snprintf(why, whylen,
				 "receive completion: wr_id %llu status %s opcode %u length %u "
				 "flags %u imm 0x%x",
				 (unsigned long long)wc.wr_id, hroce_wc_status_name(wc.status),
				 (unsigned int)wc.opcode, wc.byte_len, wc.wc_flags,
				 be32toh(wc.imm_data));
			return false;
		}
	}
	if (!no_more_cqes(e, why, whylen))
		return false;
	if (memcmp(from + GUARD, to + GUARD, len)) {
		snprintf(why, whylen, "the data differs");
		return false;
	}
	for (size_t i = 0; i < GUARD; i++) {
		if (to[i] != POISON || to[GUARD + len + i] != POISON) {
			snprintf(why, whylen, "a guard byte changed");
			return false;
		}
	}
	return true;
}

/*
 * One message of k, n packets long, from node 0 to node 1 (a READ: from node 1's memory to
 * node 0's), with fate applied to the packet t. Returns the failure, or NULL.
 */
static const char *one_message(struct bench *b, struct env *e, const struct op_kind *k, int n,
			       enum target t, enum fate fate, char *why, size_t whylen)
{
	uint32_t len = n == 1 ? SHORT_LEN : LONG_LEN;
	size_t size = len + 2 * GUARD;
	uint32_t imm = 0x5eed0000u | (uint32_t)n;
	struct msg_bufs m;
	struct hroce_sim_frame_faults fq = { .seed = b->seed }, fr = { .seed = b->seed };
	struct hroce_sim_frame_fault_stats sq, sr;
	struct hroce_sim_fault_rule rule = { 0 };
	struct counts c0 = counts_of(e, 0), c1;
	struct qp_pair qp;
	struct hroce_qp_attr qa;
	struct expect x;
	uint32_t psn0;
	bool resp_dir;
	uint8_t *snap;

	why[0] = 0;
	snap = message_open(b, e, k, &qp, &m, len, why, whylen);
	if (!snap)
		return why;
	hroce_query_qp(qp.qp[0], &qa);
	psn0 = qa.sq_psn;

	rule.action = fate == LOST	   ? HROCE_SIM_FAULT_DROP
		      : fate == DUPLICATED ? HROCE_SIM_FAULT_DUP
					   : HROCE_SIM_FAULT_DELAY;
	rule.nth = 1;
	rule.opcode = target_opcode(k, t, n, &resp_dir);
	rule.psn = HROCE_SIM_FAULT_ANY;
	rule.dqpn = hroce_qp_num(qp.qp[resp_dir ? 0 : 1]);
	rule.depth = 1;
	/* the ACK of the message (not one of a duplicate) carries its last PSN */
	if (t == ACK)
		rule.psn = (psn0 + (uint32_t)n - 1) & 0xffffff;
	if (t == LAST_AND_ACK) {
		fq.rules[fq.nrules++] = rule;
		rule.opcode = HROCE_RC_OP_ACK;
		rule.psn = (psn0 + (uint32_t)n - 1) & 0xffffff;
		rule.dqpn = hroce_qp_num(qp.qp[0]);
		fr.rules[fr.nrules++] = rule;
	} else if (resp_dir) {
		fr.rules[fr.nrules++] = rule;
	} else {
		fq.rules[fq.nrules++] = rule;
	}
	if (hroce_sim_link_set_faults(e->link, e->n[0].sim, &fq) ||
	    hroce_sim_link_set_faults(e->link, e->n[1].sim, &fr)) {
		snprintf(why, whylen, "set_faults: %s", strerror(errno));
		goto out;
	}

	if (!post_message(&qp, k, &m, len, imm)) {
		snprintf(why, whylen, "post failed");
		goto out;
	}
	if (!message_landed(e, k, &m, len, imm, k->read ? snap : m.src.p, why, whylen))
		goto out;
	if (k->read && memcmp(snap, m.dst.p, size)) {
		snprintf(why, whylen, "the READ's source changed");
		goto out;
	}
	/* the fault was applied, and what the protocol fixes */
	hroce_sim_link_fault_stats(e->link, e->n[0].sim, &sq);
	hroce_sim_link_fault_stats(e->link, e->n[1].sim, &sr);
	if (sq.directed != fq.nrules || sr.directed != fr.nrules) {
		snprintf(why, whylen, "the rules fired %llu and %llu times, wanted %u and %u",
			 (unsigned long long)sq.directed, (unsigned long long)sr.directed,
			 fq.nrules, fr.nrules);
		goto out;
	}
	c1 = counts_of(e, 0);
	if (fate == LOST) {
		x = expect_lost(k, t, n);
		if ((x.req_frames >= 0 && sq.frames != (uint64_t)x.req_frames) ||
		    (x.resp_frames >= 0 && sr.frames != (uint64_t)x.resp_frames) ||
		    c1.timeouts - c0.timeouts != (uint64_t)x.timeouts ||
		    c1.implicit - c0.implicit != (uint64_t)x.implicit ||
		    (x.seq_naks && c1.naks - c0.naks != (uint64_t)x.seq_naks)) {
			snprintf(why, whylen,
				 "%llu request and %llu response frames, %llu timeouts, %llu "
				 "implicit and %llu sequence NAKs; wanted %d, %d, %d, %d, %d",
				 (unsigned long long)sq.frames, (unsigned long long)sr.frames,
				 (unsigned long long)(c1.timeouts - c0.timeouts),
				 (unsigned long long)(c1.implicit - c0.implicit),
				 (unsigned long long)(c1.naks - c0.naks), x.req_frames,
				 x.resp_frames, x.timeouts, x.implicit, x.seq_naks);
			goto out;
		}
	}
	if (c1.exceeded != c0.exceeded) {
		snprintf(why, whylen, "a WQE failed its retries");
		goto out;
	}
out:
	message_close(e, &qp, &m, snap);
	return why[0] ? why : NULL;
}

static void test_directed(struct bench *b, struct env *e)
{
	static const enum fate fates[] = { LOST, DUPLICATED, DELAYED };
	static const char *const fate_names[] = { "lose", "dup", "delay" };

	for (size_t ki = 0; ki < sizeof(ops) / sizeof(ops[0]); ki++) {
		const struct op_kind *k = &ops[ki];

		for (int n = 1; n <= 4; n += 3) {
			for (int t = REQ_FIRST; t <= RESP_LAST; t++) {
				bool multi_only = t == REQ_MIDDLE || t == RESP_MIDDLE;

				if (k->read ? (t != REQ_FIRST && t < RESP_FIRST) : t >= RESP_FIRST)
					continue;
				if (multi_only && n == 1)
					continue;
				if (n == 1 && (t == REQ_FIRST || t == RESP_FIRST) &&
				    (!k->read || t == RESP_FIRST))
					continue; /* the only packet: the same as its last */
				for (size_t f = 0; f < 3; f++) {
					char name[96], why[300];
					const char *err;

					if (t == LAST_AND_ACK && fates[f] != LOST)
						continue;
					snprintf(name, sizeof(name), "%s_%s_%s_%s", fate_names[f],
						 k->name, n == 1 ? "one" : "four", target_names[t]);
					err = one_message(b, e, k, n, (enum target)t, fates[f], why,
							  sizeof(why));
					bench_result(b, name, !err, "%s", err ? err : "");
				}
			}
		}
	}
}

/* ===================================================================================== */
/* A long message resumes where it was lost, not at its start */

static void test_long_message(struct bench *b, struct env *e)
{
	static const struct {
		const char *name;
		enum hroce_wr_opcode op;
		bool ack; /* lose the ACK asked for within the message, not a request packet */
	} cases[] = {
		{ "lose_write_long_middle", HROCE_WR_RDMA_WRITE, false },
		{ "lose_send_long_middle", HROCE_WR_SEND, false },
		{ "lose_write_long_mid_ack", HROCE_WR_RDMA_WRITE, true },
	};
	const uint32_t npkts = 200, lost = 100, len = npkts * 256;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *name = cases[i].name;
		struct hroce_sim_frame_faults fq = { .seed = b->seed }, fr = { .seed = b->seed };
		struct hroce_sim_frame_fault_stats sq;
		struct hroce_sim_fault_rule rule = { .action = HROCE_SIM_FAULT_DROP, .nth = 1 };
		struct counts c0 = counts_of(e, 0), c1;
		struct buf src, dst;
		struct qp_pair qp;
		struct hroce_qp_attr qa;
		struct hroce_sge sge, rsge;
		struct hroce_send_wr wr = { .wr_id = 1,
					    .sg_list = &sge,
					    .num_sge = 1,
					    .opcode = cases[i].op,
					    .send_flags = HROCE_SEND_SIGNALED };
		struct hroce_recv_wr rwr = { .wr_id = 2, .sg_list = &rsge, .num_sge = 1 };
		struct hroce_send_wr *bad;
		struct hroce_recv_wr *rbad;
		uint64_t want;
		int err;

		buf_open(e, &src, 0, len, ACCESS_ALL, 0);
		buf_open(e, &dst, 1, len, ACCESS_ALL, 0);
		bench_fill(b, src.p, len);
		e->t.timeout = DIRECTED_TIMEOUT + 2;
		err = qp_pair_open(e, &qp, HROCE_MTU_256, &caps, ACCESS_ALL);
		e->t.timeout = 14;
		if (err) {
			bench_result(b, name, false, "connect: %s", strerror(err));
			goto free;
		}
		hroce_query_qp(qp.qp[0], &qa);
		rule.opcode = HROCE_SIM_FAULT_ANY;
		if (cases[i].ack) {
			/* the ACK of packet 63, asked for within the message */
			rule.psn = (qa.sq_psn + 63) & 0xffffff;
			rule.dqpn = hroce_qp_num(qp.qp[0]);
			fr.rules[fr.nrules++] = rule;
		} else {
			rule.psn = (qa.sq_psn + lost) & 0xffffff;
			rule.dqpn = hroce_qp_num(qp.qp[1]);
			fq.rules[fq.nrules++] = rule;
		}
		hroce_sim_link_set_faults(e->link, e->n[0].sim, &fq);
		hroce_sim_link_set_faults(e->link, e->n[1].sim, &fr);
		sge = (struct hroce_sge){ (uintptr_t)src.p, len, hroce_mr_lkey(src.mr) };
		rsge = (struct hroce_sge){ (uintptr_t)dst.p, len, hroce_mr_lkey(dst.mr) };
		wr.remote_addr = (uintptr_t)dst.p;
		wr.rkey = hroce_mr_rkey(dst.mr);
		if (cases[i].op == HROCE_WR_SEND)
			hroce_post_recv(qp.qp[1], &rwr, &rbad);
		hroce_post_send(qp.qp[0], &wr, &bad);
		if (!env_expect_wc(e, name, e->n[0].scq, 1,
				   cases[i].op == HROCE_WR_SEND ? HROCE_WC_SEND
								: HROCE_WC_RDMA_WRITE,
				   HROCE_WC_SUCCESS, POLL_NS))
			goto close;
		if (cases[i].op == HROCE_WR_SEND &&
		    !env_expect_wc(e, name, e->n[1].rcq, 2, HROCE_WC_RECV, HROCE_WC_SUCCESS,
				   POLL_NS))
			goto close;
		hroce_sim_link_fault_stats(e->link, e->n[0].sim, &sq);
		c1 = counts_of(e, 0);
		/*
		 * A lost request packet: the responder NAKs the next one, and the requester goes
		 * back to the lost one, not to packet 0: at most npkts + (npkts - lost) packets.
		 * A lost ACK changes nothing: the next one (packet 127's) acknowledges it too.
		 */
		want = cases[i].ack ? npkts : npkts + (npkts - lost);
		bench_result(
			b, name,
			!memcmp(src.p, dst.p, len) &&
				(cases[i].ack ? sq.frames == want
					      : sq.frames > npkts && sq.frames <= want) &&
				c1.timeouts == c0.timeouts &&
				c1.naks - c0.naks == (cases[i].ack ? 0u : 1u),
			"%llu request packets (wanted at most %llu), %llu timeouts, %llu NAKs, data %s",
			(unsigned long long)sq.frames, (unsigned long long)want,
			(unsigned long long)(c1.timeouts - c0.timeouts),
			(unsigned long long)(c1.naks - c0.naks),
			memcmp(src.p, dst.p, len) ? "differs" : "right");
	close:
		hroce_sim_link_set_faults(e->link, e->n[0].sim, NULL);
		hroce_sim_link_set_faults(e->link, e->n[1].sim, NULL);
		qp_pair_close(&qp);
	free:
		buf_close(&src);
		buf_close(&dst);
	}
}

/* ===================================================================================== */
/* RNR */

static void test_rnr(struct bench *b, struct env *e)
{
	const uint32_t len = 3000;
	struct buf src, dst;
	struct qp_pair qp;
	struct hroce_wc wc;
	int err;

	buf_open(e, &src, 0, 16384, ACCESS_ALL, 0);
	buf_open(e, &dst, 1, 16384, ACCESS_ALL, 0);
	bench_fill(b, src.p, 16384);

	/* three cases: a RECV late (rnr_retry 3), never (rnr_retry 3), late after long (7) */
	for (int c = 0; c < 3; c++) {
		static const char *const names[] = { "rnr_late_recv", "rnr_retry_exceeded",
						     "rnr_retry_forever" };
		struct hroce_sge sge = { (uintptr_t)src.p, len, hroce_mr_lkey(src.mr) };
		struct hroce_sge rsge = { (uintptr_t)dst.p + 100, len, hroce_mr_lkey(dst.mr) };
		struct hroce_send_wr wr = { .wr_id = 1,
					    .sg_list = &sge,
					    .num_sge = 1,
					    .opcode = HROCE_WR_SEND,
					    .send_flags = HROCE_SEND_SIGNALED };
		struct hroce_send_wr wr2 = wr;
		struct hroce_recv_wr rwr = { .wr_id = 2, .sg_list = &rsge, .num_sge = 1 };
		struct hroce_send_wr *bad;
		struct hroce_recv_wr *rbad;
		struct counts c0 = counts_of(e, 0), c1;
		/* min_rnr_timer 3: 30 us; the RECV comes after one and a half of them (while
		 * retries are left), or after 200 (forever) */
		uint64_t wait_ns = c == 2 ? 200 * 30000ull : 45000;
		uint64_t t0;
		bool ok;

		e->t.rnr_retry = c == 2 ? 7 : 3;
		e->t.min_rnr_timer = 3;
		err = qp_pair_open(e, &qp, HROCE_MTU_1024, &caps, ACCESS_ALL);
		e->t.rnr_retry = 7;
		e->t.min_rnr_timer = 12;
		if (err) {
			bench_result(b, names[c], false, "connect: %s", strerror(err));
			continue;
		}
		memset(dst.p, POISON, 16384);
		wr2.wr_id = 3;
		wr2.opcode = HROCE_WR_RDMA_WRITE;
		wr2.remote_addr = (uintptr_t)dst.p + 8000;
		wr2.rkey = hroce_mr_rkey(dst.mr);
		wr.next = &wr2;
		hroce_post_send(qp.qp[0], &wr, &bad);
		t0 = env_ns(e);
		if (c == 1) {
			/* 3 RNR waits, then RNR_RETRY_EXC_ERR; the WRITE behind it flushed */
			ok = env_expect_wc(e, names[c], e->n[0].scq, 1, HROCE_WC_SEND,
					   HROCE_WC_RNR_RETRY_EXC_ERR, POLL_NS) &&
			     env_expect_wc(e, names[c], e->n[0].scq, 3, HROCE_WC_RDMA_WRITE,
					   HROCE_WC_WR_FLUSH_ERR, POLL_NS);
			c1 = counts_of(e, 0);
			if (ok)
				bench_result(b, names[c],
					     c1.rnr - c0.rnr == 3 && c1.naks - c0.naks == 4 &&
						     c1.exceeded - c0.exceeded == 1 &&
						     dst.p[100] == POISON && dst.p[8000] == POISON,
					     "%llu RNR waits, %llu NAKs, %llu retries exceeded",
					     (unsigned long long)(c1.rnr - c0.rnr),
					     (unsigned long long)(c1.naks - c0.naks),
					     (unsigned long long)(c1.exceeded - c0.exceeded));
		} else {
			/* nothing completes while no RECV is there */
			if (env_poll(e, e->n[0].scq, 1, &wc, wait_ns)) {
				bench_result(b, names[c], false,
					     "completed without a RECV: status %s",
					     hroce_wc_status_name(wc.status));
				goto next;
			}
			hroce_post_recv(qp.qp[1], &rwr, &rbad);
			ok = env_expect_wc(e, names[c], e->n[0].scq, 1, HROCE_WC_SEND,
					   HROCE_WC_SUCCESS, POLL_NS) &&
			     env_expect_wc(e, names[c], e->n[0].scq, 3, HROCE_WC_RDMA_WRITE,
					   HROCE_WC_SUCCESS, POLL_NS) &&
			     env_expect_wc(e, names[c], e->n[1].rcq, 2, HROCE_WC_RECV,
					   HROCE_WC_SUCCESS, POLL_NS);
			c1 = counts_of(e, 0);
			if (ok)
				bench_result(b, names[c],
					     !memcmp(src.p, dst.p + 100, len) &&
						     !memcmp(src.p, dst.p + 8000, len) &&
						     c1.rnr - c0.rnr >= (c == 2 ? 100u : 1u) &&
						     c1.exceeded == c0.exceeded,
					     "data differs, or %llu RNR waits in %.0f us",
					     (unsigned long long)(c1.rnr - c0.rnr),
					     (double)(env_ns(e) - t0) / 1000.0);
		}
	next:
		qp_pair_close(&qp);
		while (hroce_poll_cq(e->n[0].scq, 1, &wc) || hroce_poll_cq(e->n[1].rcq, 1, &wc))
			;
	}
	buf_close(&src);
	buf_close(&dst);
}

/* ===================================================================================== */
/* The peer stops answering */

static void test_peer_gone(struct bench *b, struct env *e)
{
	const char *name = "peer_gone";
	const uint8_t timeout = 4, retries = 3;
	struct buf src, dst;
	struct qp_pair qp;
	struct hroce_wc wc;
	struct hroce_qp_attr a = { .qp_state = HROCE_QPS_ERR };
	struct counts c0 = counts_of(e, 0), c1;
	uint64_t t0, waited;
	int err;

	buf_open(e, &src, 0, 16384, ACCESS_ALL, 0);
	buf_open(e, &dst, 1, 16384, ACCESS_ALL, 0);
	e->t.timeout = timeout;
	e->t.retry_cnt = retries;
	err = qp_pair_open(e, &qp, HROCE_MTU_1024, &caps, ACCESS_ALL);
	e->t.timeout = 14;
	e->t.retry_cnt = 7;
	if (err) {
		bench_result(b, name, false, "connect: %s", strerror(err));
		goto out;
	}
	/* the responder's QP in error: it answers nothing any more */
	hroce_modify_qp(qp.qp[1], &a, HROCE_QP_STATE);
	while (hroce_poll_cq(e->n[1].rcq, 1, &wc))
		;
	{
		struct hroce_sge sge = { (uintptr_t)src.p, 5000, hroce_mr_lkey(src.mr) };
		struct hroce_send_wr wr2 = { .wr_id = 2,
					     .sg_list = &sge,
					     .num_sge = 1,
					     .opcode = HROCE_WR_RDMA_READ,
					     .send_flags = HROCE_SEND_SIGNALED,
					     .remote_addr = (uintptr_t)dst.p,
					     .rkey = hroce_mr_rkey(dst.mr) };
		struct hroce_send_wr wr = wr2;
		struct hroce_send_wr *bad;

		wr.wr_id = 1;
		wr.opcode = HROCE_WR_RDMA_WRITE;
		wr.next = &wr2;
		t0 = env_ns(e);
		hroce_post_send(qp.qp[0], &wr, &bad);
	}
	if (!env_expect_wc(e, name, e->n[0].scq, 1, 0, HROCE_WC_RETRY_EXC_ERR, POLL_NS))
		goto close;
	waited = env_ns(e) - t0;
	if (!env_expect_wc(e, name, e->n[0].scq, 2, 0, HROCE_WC_WR_FLUSH_ERR, POLL_NS))
		goto close;
	c1 = counts_of(e, 0);
	hroce_query_qp(qp.qp[0], &a);
	/* (retries + 1) timeouts in simulated time: the core's timer, not a wall clock */
	bench_result(b, name,
		     a.qp_state == HROCE_QPS_ERR && c1.timeouts - c0.timeouts == retries &&
			     c1.exceeded - c0.exceeded == 1 &&
			     waited >= (retries + 1) * TIMEOUT_NS(timeout) &&
			     waited <= (retries + 2) * TIMEOUT_NS(timeout),
		     "state %d, %llu timeouts, failed after %llu ns (timeout %llu ns)", a.qp_state,
		     (unsigned long long)(c1.timeouts - c0.timeouts), (unsigned long long)waited,
		     TIMEOUT_NS(timeout));
close:
	qp_pair_close(&qp);
out:
	buf_close(&src);
	buf_close(&dst);
}

/* ===================================================================================== */
/* Responses nobody asked for, while a WRITE is outstanding (its responder no longer answers) */

static bool inject_response(struct env *e, uint32_t dqpn, uint8_t opcode, uint32_t psn,
			    uint8_t syndrome, uint16_t payload_len)
{
	static uint8_t payload[256];
	struct roce_hdr h = { 0 };
	uint8_t frame[512];
	size_t len;

	memcpy(h.eth_dst, e->n[0].mac, 6);
	memcpy(h.eth_src, e->n[1].mac, 6);
	h.ip_flags = 0x2;
	h.ip_ttl = 64;
	h.ip_src = e->n[1].ipv4;
	h.ip_dst = e->n[0].ipv4;
	h.udp_sport = 0xc000;
	h.opcode = opcode;
	h.pkey = 0xffff;
	h.dqpn = dqpn;
	h.psn = psn & 0xffffff;
	h.aeth_syndrome = syndrome;
	h.payload_len = payload_len;
	return !roce_build_frame(&h, payload, true, frame, sizeof(frame), &len) &&
	       !hroce_sim_link_inject(e->link, e->n[0].sim, frame, len);
}

static void test_bad_responses(struct bench *b, struct env *e)
{
	static const struct {
		const char *name;
		uint8_t opcode, syndrome;
		int32_t psn_off; /* from the WRITE's PSN */
		uint16_t len;
	} cases[] = {
		/* an ACK for a PSN never sent would complete the WRITE if it were believed */
		{ "bad_ack_never_sent", HROCE_RC_OP_ACK, 0x1f, 100, 0 },
		{ "bad_ack_far_ahead", HROCE_RC_OP_ACK, 0x1f, 0x400000, 0 },
		/* the AETH syndrome type 010 is reserved */
		{ "bad_aeth_reserved", HROCE_RC_OP_ACK, 0x40, 0, 0 },
		/* a READ response when the WQE outstanding is a WRITE */
		{ "bad_read_resp_no_read", HROCE_RC_OP_READ_RESP_ONLY, 0x1f, 0, 200 },
	};
	struct buf src, dst;
	struct qp_pair qp;
	struct hroce_wc wc;
	struct hroce_qp_attr a = { .qp_state = HROCE_QPS_ERR }, qa;
	uint32_t psn;
	int err;

	buf_open(e, &src, 0, 16384, ACCESS_ALL, 0);
	buf_open(e, &dst, 1, 16384, ACCESS_ALL, 0);
	e->t.timeout = 10; /* 4.2 ms: the responses come well before the timer */
	e->t.retry_cnt = 0;
	err = qp_pair_open(e, &qp, HROCE_MTU_1024, &caps, ACCESS_ALL);
	e->t.timeout = 14;
	e->t.retry_cnt = 7;
	if (err) {
		bench_result(b, "bad_response_connect", false, "%s", strerror(err));
		goto out;
	}
	hroce_query_qp(qp.qp[0], &qa);
	psn = qa.sq_psn;
	hroce_modify_qp(qp.qp[1], &a, HROCE_QP_STATE);
	while (hroce_poll_cq(e->n[1].rcq, 1, &wc))
		;
	{
		struct hroce_sge sge = { (uintptr_t)src.p, 3000, hroce_mr_lkey(src.mr) };
		struct hroce_send_wr wr = { .wr_id = 1,
					    .sg_list = &sge,
					    .num_sge = 1,
					    .opcode = HROCE_WR_RDMA_WRITE,
					    .send_flags = HROCE_SEND_SIGNALED,
					    .remote_addr = (uintptr_t)dst.p,
					    .rkey = hroce_mr_rkey(dst.mr) };
		struct hroce_send_wr *bad;

		hroce_post_send(qp.qp[0], &wr, &bad);
	}
	env_poll(e, e->n[0].scq, 1, &wc, 20000); /* the WRITE is out */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t bad0 = counter(e, 0, HROCE_CORE_COUNTER_RX_BAD_RESPONSE);
		int n;

		if (!inject_response(e, hroce_qp_num(qp.qp[0]), cases[i].opcode,
				     psn + (uint32_t)cases[i].psn_off, cases[i].syndrome,
				     cases[i].len)) {
			bench_result(b, cases[i].name, false, "cannot build or inject the frame");
			continue;
		}
		n = env_poll(e, e->n[0].scq, 1, &wc, 50000);
		hroce_query_qp(qp.qp[0], &qa);
		bench_result(
			b, cases[i].name,
			n == 0 && qa.qp_state == HROCE_QPS_RTS &&
				counter(e, 0, HROCE_CORE_COUNTER_RX_BAD_RESPONSE) == bad0 + 1,
			"%d completions (status %s), QP state %d, %llu bad responses counted", n,
			n ? hroce_wc_status_name(wc.status) : "-", qa.qp_state,
			(unsigned long long)(counter(e, 0, HROCE_CORE_COUNTER_RX_BAD_RESPONSE) -
					     bad0));
	}
	/* the WRITE itself still fails as it must: its responder never answered */
	bench_result(b, "bad_response_write_fails",
		     env_poll(e, e->n[0].scq, 1, &wc, POLL_NS) == 1 && wc.wr_id == 1 &&
			     wc.status == HROCE_WC_RETRY_EXC_ERR,
		     "the WRITE completed with %s", hroce_wc_status_name(wc.status));
	qp_pair_close(&qp);
out:
	buf_close(&src);
	buf_close(&dst);
}

/* ===================================================================================== */

/* ===================================================================================== */
/* A request with a bit flipped leaves no trace */

#define FLIP_LEN 8   /* headers are most of the bits a flip may hit */
#define FLIP_SEEDS 8 /* of each kind of request */
#define FLIP_IMM 0xf11bu

/*
 * One 8-byte message of k from node 0 to node 1 (a READ: from node 1's memory to node
 * 0's) whose request has a bit flipped the first time it is sent (anywhere the receiver's
 * checks cover: seed picks it), and is sent again after the ACK timeout. The responder
 * starts on a request before its ICRC is known (context lookup, checks, translation,
 * the RECV WQE's read), so this checks that it commits nothing of one that turns out bad:
 * the receiving core took exactly one good request (the second), the retransmission met
 * the responder as if the first never came (no duplicate, no sequence NAK, no QP error,
 * no drop for a QP), one completion each side, the bytes in place and nothing around them
 * touched. icrc: the ICRC is what caught the flipped request (not the IP checks).
 */
static const char *one_flipped(struct bench *b, struct env *e, const struct op_kind *k,
			       uint64_t seed, bool *icrc, char *why, size_t whylen)
{
	static const unsigned int quiet[] = {
		HROCE_CORE_COUNTER_RX_DUPLICATE, HROCE_CORE_COUNTER_RX_OUT_OF_SEQUENCE,
		HROCE_CORE_COUNTER_RX_NO_QP,	 HROCE_CORE_COUNTER_RX_NO_ROOM,
		HROCE_CORE_COUNTER_RX_NOT_OURS,	 HROCE_CORE_COUNTER_RX_UNSUPPORTED,
	};
	size_t size = FLIP_LEN + 2 * GUARD;
	struct hroce_sim_frame_faults f = { .seed = seed, .flip = 1.0 };
	struct hroce_sim_frame_fault_stats st;
	struct counts c0 = counts_of(e, 0), c1;
	uint64_t before[sizeof(quiet) / sizeof(quiet[0])];
	uint64_t good0 = hroce_rx_counter(e->n[1].dev, HROCE_ROCE_RX_DROP_OK);
	uint64_t icrc0 = hroce_rx_counter(e->n[1].dev, HROCE_ROCE_RX_DROP_ICRC);
	uint64_t end;
	struct msg_bufs m;
	struct qp_pair qp;
	const uint8_t *to;
	uint8_t *snap;

	why[0] = 0;
	*icrc = false;
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		before[i] = counter(e, 1, quiet[i]);
	snap = message_open(b, e, k, &qp, &m, FLIP_LEN, why, whylen);
	if (!snap)
		return why;
	if (hroce_sim_link_set_faults(e->link, e->n[0].sim, &f)) {
		snprintf(why, whylen, "set_faults: %s", strerror(errno));
		goto out;
	}
	if (!post_message(&qp, k, &m, FLIP_LEN, FLIP_IMM)) {
		snprintf(why, whylen, "post failed");
		goto out;
	}
	/* the request flipped, then a clean link for its retransmission */
	end = env_ns(e) + TIMEOUT_NS(DIRECTED_TIMEOUT) / 2;
	do {
		env_idle(e);
		hroce_sim_link_fault_stats(e->link, e->n[0].sim, &st);
	} while (!st.frames && env_ns(e) < end);
	hroce_sim_link_set_faults(e->link, e->n[0].sim, NULL);
	if (st.flipped != 1) {
		snprintf(why, whylen, "%llu frames flipped before the ACK timeout, wanted 1",
			 (unsigned long long)st.flipped);
		goto out;
	}
	if (!message_landed(e, k, &m, FLIP_LEN, FLIP_IMM, k->read ? snap : m.src.p, why, whylen))
		goto out;
	to = message_target(k, &m);
	/* nothing else of node 1's memory that the request could name */
	for (size_t i = 0; i < size; i++) {
		if ((to != m.dst.p && !k->read && m.dst.p[i] != POISON) ||
		    (to != m.rbuf.p && m.rbuf.p[i] != POISON)) {
			snprintf(why, whylen, "a byte of another buffer changed");
			goto out;
		}
	}
	if (hroce_rx_counter(e->n[1].dev, HROCE_ROCE_RX_DROP_OK) - good0 != 1) {
		snprintf(why, whylen, "%llu good requests taken, wanted 1",
			 (unsigned long long)(hroce_rx_counter(e->n[1].dev, HROCE_ROCE_RX_DROP_OK) -
					      good0));
		goto out;
	}
	*icrc = hroce_rx_counter(e->n[1].dev, HROCE_ROCE_RX_DROP_ICRC) - icrc0 == 1;
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++) {
		if (counter(e, 1, quiet[i]) != before[i]) {
			snprintf(why, whylen, "the responder counted %s (core counter %u)",
				 "a request that was never good", quiet[i]);
			goto out;
		}
	}
	c1 = counts_of(e, 0);
	if (c1.naks != c0.naks || c1.timeouts - c0.timeouts != 1 || c1.exceeded != c0.exceeded) {
		snprintf(why, whylen, "%llu NAKs and %llu ACK timeouts, wanted none and one",
			 (unsigned long long)(c1.naks - c0.naks),
			 (unsigned long long)(c1.timeouts - c0.timeouts));
		goto out;
	}
out:
	message_close(e, &qp, &m, snap);
	return why[0] ? why : NULL;
}

static void test_bad_icrc(struct bench *b, struct env *e)
{
	for (size_t ki = 0; ki < sizeof(ops) / sizeof(ops[0]); ki++) {
		const struct op_kind *k = &ops[ki];
		int by_icrc = 0;
		char name[64], why[300];
		const char *err = NULL;

		int n = 0;

		/* a flip lands in the IP header (checked before the ICRC) about one time in
		 * three: more seeds until the ICRC caught one, which is what this is about */
		while (!err && (n < FLIP_SEEDS || (!by_icrc && n < 8 * FLIP_SEEDS))) {
			bool icrc;

			err = one_flipped(b, e, k, b->seed * 8 * FLIP_SEEDS + (uint64_t)n, &icrc,
					  why, sizeof(why));
			by_icrc += icrc;
			n++;
		}
		snprintf(name, sizeof(name), "bad_icrc_%s", k->name);
		if (!err && !by_icrc)
			err = "no flipped request was caught by its ICRC";
		bench_result(b, name, !err, "%s (%d of %d caught by the ICRC)", err ? err : "",
			     by_icrc, n);
	}
}

int main(int argc, char **argv)
{
	struct bench b;
	struct env e;
	struct env_params p = test_params();

	bench_init(&b, "test_retry", argc, argv);
	p.pcap_path = getenv("HROCE_PCAP");
	env_open(&e, &b, &p);
	test_directed(&b, &e);
	test_long_message(&b, &e);
	test_rnr(&b, &e);
	test_peer_gone(&b, &e);
	test_bad_responses(&b, &e);
	test_bad_icrc(&b, &e);
	env_close(&e);
	return bench_finish(&b);
}
