// SPDX-License-Identifier: MIT
/*
 * System bench of the core's trace port: two simulated NICs in one process on one link,
 * driven through libhroce, their stage events (HROCE_SIM_STAGE) watched by an observer.
 *
 * Each case posts one operation on a QP pair connected at known PSNs and checks, on both
 * NICs, the stage events of that operation alone: each stage once per packet (or per WQE),
 * with the local QPN, the PSN or WQE index and the AUX the contract gives it, in the order
 * the packet goes through the stages, at non-decreasing times, and in step with the
 * NICs' own events (a request's header before its frame's first beat, its frame's first
 * beat at the other NIC before its header reaches the responder, a payload's DMA write
 * issued between its PLACED and its ANSWERED), and the frames' events carry their BTH
 * (the WRITE's and its ACK's, both ways).
 *
 * - write: an 8-byte WRITE, inline, pushed on the doorbell pages.
 * - send: a SEND of three packets into a posted RECV, its PSNs wrapping past 2^24.
 * - read: an 8-byte READ (a response in the place of an ACK, no placement).
 * - bad_icrc: a WRITE whose first frame has a bit flipped on the link: the responder's
 *   verdict on it is bad and nothing of it is placed; the request sent again is.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "hroce_contract.h"
#include "lat_points.h"
#include "rc_env.h"

#define WAIT_NS 200000000ull /* an ACK timeout (14: 67 ms) and more */
#define PSN0 0xfffffeu
#define PSN1 0x000100u

static const struct qp_caps caps = { 16, 16, 2, 2, 64 };

static struct ev_log logs[2];

/*
 * One expected stage event: on which node, which stage, its QPN, tag and AUX (~0u: any),
 * and the expected event it cannot come before (-1: none).
 */
struct want {
	int node;
	unsigned int stage;
	uint32_t qpn, tag, aux;
	int after;
};

struct rig {
	struct env *e;
	struct qp_pair qp;
	uint8_t *buf[2];
	struct hroce_mr *mr[2];
	uint32_t qpn[2];
};

/*
 * The stage events of both logs must be the wanted ones, each once, and none other; each
 * no earlier than the one it comes after. Returns false with the first difference in err.
 */
static bool match(const struct want *w, int nw, char *err, size_t size)
{
	const struct hroce_sim_event *got[64] = { 0 };
	int stages = 0;

	for (int i = 0; i < nw; i++) {
		const struct ev_log *l = &logs[w[i].node];

		for (int k = 0; k < l->n && !got[i]; k++) {
			const struct hroce_sim_event *ev = &l->ev[k];
			bool taken = false;

			if (ev->kind != HROCE_SIM_STAGE || ev->stage != w[i].stage ||
			    ev->qpn != w[i].qpn || ev->tag != w[i].tag)
				continue;
			for (int j = 0; j < i; j++)
				taken = taken || got[j] == ev;
			if (!taken)
				got[i] = ev;
		}
		if (!got[i]) {
			snprintf(err, size, "node %d: no %s of QP 0x%x, tag 0x%x", w[i].node,
				 hroce_trace_name(w[i].stage), w[i].qpn, w[i].tag);
			return false;
		}
		if (w[i].aux != ~0u && got[i]->aux != w[i].aux) {
			snprintf(err, size, "node %d: %s of tag 0x%x: AUX %u, not %u", w[i].node,
				 hroce_trace_name(w[i].stage), w[i].tag, got[i]->aux, w[i].aux);
			return false;
		}
		if (w[i].after >= 0 && got[i]->time_ns < got[w[i].after]->time_ns) {
			snprintf(err, size, "node %d: %s of tag 0x%x at %llu ns, before %s at %llu",
				 w[i].node, hroce_trace_name(w[i].stage), w[i].tag,
				 (unsigned long long)got[i]->time_ns,
				 hroce_trace_name(w[w[i].after].stage),
				 (unsigned long long)got[w[i].after]->time_ns);
			return false;
		}
	}
	for (int n = 0; n < 2; n++)
		for (int k = 0; k < logs[n].n; k++)
			stages += logs[n].ev[k].kind == HROCE_SIM_STAGE;
	if (stages != nw) {
		for (int n = 0; n < 2; n++)
			for (int k = 0; k < logs[n].n; k++) {
				const struct hroce_sim_event *ev = &logs[n].ev[k];
				bool wanted = false;

				for (int i = 0; i < nw; i++)
					wanted = wanted || got[i] == ev;
				if (ev->kind == HROCE_SIM_STAGE && !wanted) {
					snprintf(err, size,
						 "node %d: one stage event too many: %s of QP "
						 "0x%x, tag 0x%x",
						 n, hroce_trace_name(ev->stage), ev->qpn, ev->tag);
					return false;
				}
			}
	}
	return true;
}

/* The time of the nth (from 0) stage event of a node, or ~0. */
static uint64_t stage_time(int node, unsigned int stage, uint32_t tag, int nth)
{
	for (int i = 0; i < logs[node].n; i++) {
		const struct hroce_sim_event *ev = &logs[node].ev[i];

		if (ev->kind == HROCE_SIM_STAGE && ev->stage == stage && ev->tag == tag &&
		    nth-- == 0)
			return ev->time_ns;
	}
	return ~0ull;
}

/* The time of the first event of a kind of a node at or after t (addr matched unless ~0). */
static uint64_t kind_time(int node, enum hroce_sim_event_kind kind, uint64_t t, uint64_t addr)
{
	for (int i = 0; i < logs[node].n; i++) {
		const struct hroce_sim_event *ev = &logs[node].ev[i];

		if (ev->kind == kind && ev->time_ns >= t && (addr == ~0ull || ev->addr == addr))
			return ev->time_ns;
	}
	return ~0ull;
}

static bool rig_open(struct env *e, struct rig *r)
{
	const unsigned int access =
		HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE | HROCE_ACCESS_REMOTE_READ;

	memset(r, 0, sizeof(*r));
	r->e = e;
	for (int i = 0; i < 2; i++) {
		r->buf[i] = env_alloc(8192);
		memset(r->buf[i], 0x20 + i, 8192);
		r->mr[i] = hroce_reg_mr(e->n[i].pd, r->buf[i], 8192, access, 0);
		if (!r->mr[i])
			return false;
	}
	if (qp_pair_open(e, &r->qp, HROCE_MTU_1024, &caps, access) ||
	    qp_pair_reconnect(e, &r->qp, PSN0, PSN1))
		return false;
	for (int i = 0; i < 2; i++) {
		r->qpn[i] = hroce_qp_num(r->qp.qp[i]);
		hroce_sim_set_observer(e->n[i].sim, ev_observe, &logs[i]);
	}
	return true;
}

static void rig_close(struct rig *r)
{
	for (int i = 0; i < 2; i++)
		hroce_sim_set_observer(r->e->n[i].sim, NULL, NULL);
	qp_pair_close(&r->qp);
	for (int i = 0; i < 2; i++) {
		hroce_dereg_mr(r->mr[i]);
		free(r->buf[i]);
	}
}

/* The logs emptied with both NICs quiet, wr posted on node 0, its completion awaited. */
static bool run_one(struct rig *r, struct hroce_send_wr *wr, char *err, size_t size)
{
	struct hroce_send_wr *bad;
	struct hroce_wc wc;
	uint64_t end;
	int got;

	for (int i = 0; i < 200; i++)
		env_idle(r->e);
	logs[0].n = logs[1].n = 0;
	if (hroce_post_send(r->qp.qp[0], wr, &bad)) {
		snprintf(err, size, "post_send: %s", strerror(errno));
		return false;
	}
	end = env_ns(r->e) + WAIT_NS;
	while ((got = hroce_poll_cq(r->e->n[0].scq, 1, &wc)) == 0 && env_ns(r->e) < end)
		env_idle(r->e);
	if (got != 1 || wc.status != HROCE_WC_SUCCESS) {
		snprintf(err, size, "no successful completion (%d, status %d)", got,
			 got == 1 ? (int)wc.status : -1);
		return false;
	}
	/* what follows the completion (nothing should) has the time to show */
	for (int i = 0; i < 200; i++)
		env_idle(r->e);
	if (logs[0].full || logs[1].full) {
		snprintf(err, size, "more than %d events", EV_MAX);
		return false;
	}
	return true;
}

/* Adds a wanted event, returns its index. */
static int want(struct want *w, int *n, int node, unsigned int stage, uint32_t qpn, uint32_t tag,
		uint32_t aux, int after)
{
	w[*n] = (struct want){ node, stage, qpn, tag, aux, after };
	return (*n)++;
}

/*
 * A request packet's way through the responder, at PSN psn of QP r->qpn[1], after its
 * header left the requester (event hdr): returns the index of its ANSWERED.
 */
static int request_path(const struct rig *r, struct want *w, int *n, uint32_t psn,
			unsigned int opcode, bool list, int hdr)
{
	int k = want(w, n, 1, HROCE_TRACE_REQ_IN, r->qpn[1], psn, opcode, hdr);

	k = want(w, n, 1, HROCE_TRACE_VERDICT, r->qpn[1], psn, 1, k);
	k = want(w, n, 1, HROCE_TRACE_PLACE, r->qpn[1], psn, list, k);
	k = want(w, n, 1, HROCE_TRACE_PLACED, r->qpn[1], psn, 0, k);
	return want(w, n, 1, HROCE_TRACE_ANSWERED, r->qpn[1], psn, 0, k);
}

/* The request's frame leaves after its header, reaches node 1 before its header does. */
static bool frame_order(uint32_t psn, char *err, size_t size)
{
	uint64_t hdr = stage_time(0, HROCE_TRACE_REQ_HDR, psn, 0);
	uint64_t tx = kind_time(0, HROCE_SIM_TX_START, hdr, ~0ull);
	uint64_t rx = kind_time(1, HROCE_SIM_RX_START, tx, ~0ull);
	uint64_t in = stage_time(1, HROCE_TRACE_REQ_IN, psn, 0);

	if (hdr == ~0ull || tx == ~0ull || rx == ~0ull || in == ~0ull || in < rx) {
		snprintf(err, size,
			 "PSN 0x%x: header %llu, frame out %llu, in %llu, header in %llu", psn,
			 (unsigned long long)hdr, (unsigned long long)tx, (unsigned long long)rx,
			 (unsigned long long)in);
		return false;
	}
	return true;
}

/*
 * Node 1's DMA write of a payload at iova issued between its PLACED and its ANSWERED (the
 * bridge's answer to a posted write: the data reaches memory a PCIe write later).
 */
static bool write_order(uint32_t psn, uint64_t iova, char *err, size_t size)
{
	uint64_t placed = stage_time(1, HROCE_TRACE_PLACED, psn, 0);
	uint64_t aw = kind_time(1, HROCE_SIM_DMA_WRITE, placed, iova);
	uint64_t done = kind_time(1, HROCE_SIM_DMA_WRITE_DONE, aw, iova);
	uint64_t answered = stage_time(1, HROCE_TRACE_ANSWERED, psn, 0);

	if (placed == ~0ull || aw == ~0ull || done == ~0ull || answered < aw) {
		snprintf(err, size, "PSN 0x%x: placed %llu, write %llu, done %llu, answered %llu",
			 psn, (unsigned long long)placed, (unsigned long long)aw,
			 (unsigned long long)done, (unsigned long long)answered);
		return false;
	}
	return true;
}

/*
 * The node's frame events of a direction (kind: its START; its END follows in the enum),
 * one frame's two, carry its BTH: destination QP, PSN, opcode.
 */
static bool frame_bth_dir(int node, enum hroce_sim_event_kind kind, uint32_t psn, uint32_t dqpn,
			  unsigned int opcode, char *err, size_t size)
{
	int seen = 0;

	for (int i = 0; i < logs[node].n; i++) {
		const struct hroce_sim_event *ev = &logs[node].ev[i];

		if (ev->kind != kind && ev->kind != kind + 1)
			continue;
		seen++;
		if (!ev->bth || ev->tag != psn || ev->qpn != dqpn || ev->aux != opcode) {
			snprintf(err, size,
				 "node %d: frame event %d: BTH %d, QP 0x%x PSN 0x%x opcode %u; "
				 "want QP 0x%x PSN 0x%x opcode %u",
				 node, ev->kind, ev->bth, ev->qpn, ev->tag, ev->aux, dqpn, psn,
				 opcode);
			return false;
		}
	}
	if (seen != 2) {
		snprintf(err, size, "node %d: %d events of frames (kind %d), want 2", node, seen,
			 kind);
		return false;
	}
	return true;
}

static uint64_t iova_of(const struct rig *r, int node, size_t off)
{
	uint64_t iova, len;

	hroce_mr_mapping(r->mr[node], &iova, &len);
	return iova + ((uintptr_t)r->buf[node] & 4095) + off;
}

static void test_write(struct bench *b, struct env *e)
{
	char err[256] = "";
	struct rig r;
	bool ok = rig_open(e, &r);

	if (ok) {
		struct hroce_sge sge = { (uintptr_t)r.buf[0], 8, hroce_mr_lkey(r.mr[0]) };
		struct hroce_send_wr wr = {
			.wr_id = 1,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = HROCE_WR_RDMA_WRITE,
			.send_flags = HROCE_SEND_SIGNALED | HROCE_SEND_INLINE,
			.remote_addr = (uintptr_t)r.buf[1] + 64,
			.rkey = hroce_mr_rkey(r.mr[1]),
		};
		struct want w[16];
		int n = 0, k;

		k = want(w, &n, 0, HROCE_TRACE_SQ_DB, r.qpn[0], 1, 1, -1);
		k = want(w, &n, 0, HROCE_TRACE_WQE, r.qpn[0], 0, 0, k);
		k = want(w, &n, 0, HROCE_TRACE_REQ_HDR, r.qpn[0], PSN0, HROCE_RC_OP_WRITE_ONLY, k);
		k = request_path(&r, w, &n, PSN0, HROCE_RC_OP_WRITE_ONLY, false, k);
		k = want(w, &n, 1, HROCE_TRACE_RESP_HDR, r.qpn[1], PSN0, HROCE_RC_OP_ACK, k);
		k = want(w, &n, 0, HROCE_TRACE_RESP_IN, r.qpn[0], PSN0, HROCE_RC_OP_ACK, k);
		want(w, &n, 0, HROCE_TRACE_SQ_CQE, r.qpn[0], 0, HROCE_WC_STATUS_SUCCESS, k);
		ok = run_one(&r, &wr, err, sizeof(err)) && match(w, n, err, sizeof(err)) &&
		     frame_order(PSN0, err, sizeof(err)) &&
		     write_order(PSN0, iova_of(&r, 1, 64), err, sizeof(err));
		/* node 0 sends the request and receives the ACK, node 1 the other way */
		ok = ok &&
		     frame_bth_dir(0, HROCE_SIM_TX_START, PSN0, r.qpn[1], HROCE_RC_OP_WRITE_ONLY,
				   err, sizeof(err)) &&
		     frame_bth_dir(1, HROCE_SIM_RX_START, PSN0, r.qpn[1], HROCE_RC_OP_WRITE_ONLY,
				   err, sizeof(err)) &&
		     frame_bth_dir(1, HROCE_SIM_TX_START, PSN0, r.qpn[0], HROCE_RC_OP_ACK, err,
				   sizeof(err)) &&
		     frame_bth_dir(0, HROCE_SIM_RX_START, PSN0, r.qpn[0], HROCE_RC_OP_ACK, err,
				   sizeof(err));
		if (ok && memcmp(r.buf[1] + 64, r.buf[0], 8)) {
			snprintf(err, sizeof(err), "the 8 bytes did not arrive");
			ok = false;
		}
		rig_close(&r);
	}
	bench_result(b, "write", ok, "%s", err[0] ? err : "rig setup failed");
}

static void test_send(struct bench *b, struct env *e)
{
	char err[256] = "";
	struct rig r;
	bool ok = rig_open(e, &r);

	if (ok) {
		const uint32_t len = 3000; /* three packets at MTU 1024 */
		struct hroce_sge rsge = { (uintptr_t)r.buf[1], 4096, hroce_mr_lkey(r.mr[1]) };
		struct hroce_recv_wr rwr = { 7, NULL, &rsge, 1 }, *rbad;
		struct hroce_sge sge = { (uintptr_t)r.buf[0], len, hroce_mr_lkey(r.mr[0]) };
		struct hroce_send_wr wr = {
			.wr_id = 2,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = HROCE_WR_SEND,
			.send_flags = HROCE_SEND_SIGNALED,
		};
		static const unsigned int ops[3] = { HROCE_RC_OP_SEND_FIRST,
						     HROCE_RC_OP_SEND_MIDDLE,
						     HROCE_RC_OP_SEND_LAST };
		const uint32_t last = (PSN0 + 2) & 0xffffff;
		struct want w[40];
		int n = 0, db, hdr = -1, answered = -1, k;

		for (uint32_t i = 0; i < len; i++)
			r.buf[0][i] = (uint8_t)(i * 7 + 1);
		if (hroce_post_recv(r.qp.qp[1], &rwr, &rbad)) {
			snprintf(err, sizeof(err), "post_recv: %s", strerror(errno));
			ok = false;
		}
		/* the WQE of 64 bytes rides in its doorbell unless it is longer */
		db = want(w, &n, 0, HROCE_TRACE_SQ_DB, r.qpn[0], 1, ~0u, -1);
		hdr = db;
		for (int p = 0; p < 3; p++) {
			hdr = want(w, &n, 0, HROCE_TRACE_REQ_HDR, r.qpn[0], (PSN0 + p) & 0xffffff,
				   ops[p], hdr);
			answered =
				request_path(&r, w, &n, (PSN0 + p) & 0xffffff, ops[p], true, hdr);
		}
		/* the control hands the last packet on before the build stage sends its header */
		want(w, &n, 0, HROCE_TRACE_WQE, r.qpn[0], 0, 0, db);
		want(w, &n, 1, HROCE_TRACE_RQ_CQE, r.qpn[1], 0, HROCE_WC_STATUS_SUCCESS, answered);
		k = want(w, &n, 1, HROCE_TRACE_RESP_HDR, r.qpn[1], last, HROCE_RC_OP_ACK, answered);
		k = want(w, &n, 0, HROCE_TRACE_RESP_IN, r.qpn[0], last, HROCE_RC_OP_ACK, k);
		want(w, &n, 0, HROCE_TRACE_SQ_CQE, r.qpn[0], 0, HROCE_WC_STATUS_SUCCESS, k);
		ok = ok && run_one(&r, &wr, err, sizeof(err)) && match(w, n, err, sizeof(err));
		for (int p = 0; p < 3 && ok; p++)
			ok = frame_order((PSN0 + p) & 0xffffff, err, sizeof(err));
		if (ok && (stage_time(0, HROCE_TRACE_WQE, 0, 0) >
			   stage_time(0, HROCE_TRACE_REQ_HDR, last, 0))) {
			snprintf(err, sizeof(err), "the WQE's last packet's header before the WQE");
			ok = false;
		}
		if (ok && memcmp(r.buf[1], r.buf[0], len)) {
			snprintf(err, sizeof(err), "the SEND's bytes did not arrive");
			ok = false;
		}
		rig_close(&r);
	}
	bench_result(b, "send", ok, "%s", err[0] ? err : "rig setup failed");
}

static void test_read(struct bench *b, struct env *e)
{
	char err[256] = "";
	struct rig r;
	bool ok = rig_open(e, &r);

	if (ok) {
		struct hroce_sge sge = { (uintptr_t)r.buf[0] + 128, 8, hroce_mr_lkey(r.mr[0]) };
		struct hroce_send_wr wr = {
			.wr_id = 3,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = HROCE_WR_RDMA_READ,
			.send_flags = HROCE_SEND_SIGNALED,
			.remote_addr = (uintptr_t)r.buf[1] + 256,
			.rkey = hroce_mr_rkey(r.mr[1]),
		};
		struct want w[16];
		int n = 0, k;

		memcpy(r.buf[1] + 256, "8 bytes!", 8);
		k = want(w, &n, 0, HROCE_TRACE_SQ_DB, r.qpn[0], 1, ~0u, -1);
		k = want(w, &n, 0, HROCE_TRACE_WQE, r.qpn[0], 0, 0, k);
		k = want(w, &n, 0, HROCE_TRACE_REQ_HDR, r.qpn[0], PSN0, HROCE_RC_OP_READ_REQUEST,
			 k);
		k = want(w, &n, 1, HROCE_TRACE_REQ_IN, r.qpn[1], PSN0, HROCE_RC_OP_READ_REQUEST, k);
		k = want(w, &n, 1, HROCE_TRACE_VERDICT, r.qpn[1], PSN0, 1, k);
		k = want(w, &n, 1, HROCE_TRACE_RESP_HDR, r.qpn[1], PSN0, HROCE_RC_OP_READ_RESP_ONLY,
			 k);
		k = want(w, &n, 0, HROCE_TRACE_RESP_IN, r.qpn[0], PSN0, HROCE_RC_OP_READ_RESP_ONLY,
			 k);
		want(w, &n, 0, HROCE_TRACE_SQ_CQE, r.qpn[0], 0, HROCE_WC_STATUS_SUCCESS, k);
		ok = run_one(&r, &wr, err, sizeof(err)) && match(w, n, err, sizeof(err)) &&
		     frame_order(PSN0, err, sizeof(err));
		if (ok && memcmp(r.buf[0] + 128, "8 bytes!", 8)) {
			snprintf(err, sizeof(err), "the 8 bytes were not read");
			ok = false;
		}
		rig_close(&r);
	}
	bench_result(b, "read", ok, "%s", err[0] ? err : "rig setup failed");
}

/*
 * Every frame node 0 sends has a bit flipped until the responder took a verdict: the
 * WRITE's first frame is dropped by its ICRC (this seed flips a bit its ICRC covers, not
 * one of its IP header), and the WRITE sent again after the ACK timeout is placed.
 */
static void test_bad_icrc(struct bench *b, struct env *e)
{
	char err[256] = "";
	struct rig r;
	bool ok = rig_open(e, &r);

	if (ok) {
		struct hroce_sge sge = { (uintptr_t)r.buf[0], 1000, hroce_mr_lkey(r.mr[0]) };
		struct hroce_send_wr wr = {
			.wr_id = 4,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = HROCE_WR_RDMA_WRITE,
			.send_flags = HROCE_SEND_SIGNALED,
			.remote_addr = (uintptr_t)r.buf[1] + 4096,
			.rkey = hroce_mr_rkey(r.mr[1]),
		};
		struct hroce_sim_frame_faults f = { .seed = 5, .flip = 1.0 };
		struct hroce_send_wr *bad;
		struct hroce_wc wc;
		uint64_t end;
		int got = 0, verdicts = 0, good = 0;

		for (int i = 0; i < 1000; i++)
			r.buf[0][i] = (uint8_t)(i * 13 + 5);
		for (int i = 0; i < 200; i++)
			env_idle(e);
		logs[0].n = logs[1].n = 0;
		if (hroce_sim_link_set_faults(e->link, e->n[0].sim, &f) ||
		    hroce_post_send(r.qp.qp[0], &wr, &bad)) {
			snprintf(err, sizeof(err), "faults or post_send: %s", strerror(errno));
			ok = false;
		}
		end = env_ns(e) + WAIT_NS;
		while (ok && env_ns(e) < end && (got = hroce_poll_cq(e->n[0].scq, 1, &wc)) == 0) {
			env_idle(e);
			if (stage_time(1, HROCE_TRACE_VERDICT, PSN0, 0) != ~0ull)
				hroce_sim_link_set_faults(e->link, e->n[0].sim, NULL);
		}
		hroce_sim_link_set_faults(e->link, e->n[0].sim, NULL);
		if (ok && (got != 1 || wc.status != HROCE_WC_SUCCESS)) {
			snprintf(err, sizeof(err), "no successful completion");
			ok = false;
		}
		for (int i = 0; i < logs[1].n && ok; i++) {
			const struct hroce_sim_event *ev = &logs[1].ev[i];

			if (ev->kind != HROCE_SIM_STAGE)
				continue;
			if (ev->stage == HROCE_TRACE_VERDICT) {
				verdicts++;
				good += ev->aux == 1;
			}
			/* nothing of the first frame is placed */
			if (ev->stage == HROCE_TRACE_PLACE && good == 0) {
				snprintf(err, sizeof(err),
					 "a payload placed before a good verdict");
				ok = false;
			}
		}
		if (ok && (verdicts != 2 || good != 1 ||
			   stage_time(1, HROCE_TRACE_REQ_IN, PSN0, 1) == ~0ull)) {
			snprintf(err, sizeof(err), "%d verdicts (%d good) for PSN 0x%x, want 2 (1)",
				 verdicts, good, PSN0);
			ok = false;
		}
		if (ok && memcmp(r.buf[1] + 4096, r.buf[0], 1000)) {
			snprintf(err, sizeof(err), "the WRITE's bytes did not arrive");
			ok = false;
		}
		rig_close(&r);
	}
	bench_result(b, "bad_icrc", ok, "%s", err[0] ? err : "rig setup failed");
}

int main(int argc, char **argv)
{
	struct env_params p = { .pcie_read_ns = 200, .pcie_write_ns = 200, .link_ns = 100 };
	struct bench b;
	struct env e;

	bench_init(&b, "test_trace", argc, argv);
	env_open(&e, &b, &p);
	test_write(&b, &e);
	test_send(&b, &e);
	test_read(&b, &e);
	test_bad_icrc(&b, &e);
	env_close(&e);
	return bench_finish(&b);
}
