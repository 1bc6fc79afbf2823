// SPDX-License-Identifier: MIT
/*
 * CQ overrun through the real libibverbs API (run under hroce-run): a CQ of one entry
 * given eight signaled WRITEs that nobody polls. ibv_get_async_event() must return
 * IBV_EVENT_CQ_ERR on that CQ (with no completion channel anywhere), the CQ must still
 * hold the first completion (not a later one written over it) and nothing after it, the
 * QP must be in ERR (ibv_query_qp), the bytes of the first WRITE must have landed with the
 * guard bytes around the target untouched, and the peer QP must stay in RTS. A CQ of one
 * entry polled after each WRITE never overruns, and a fresh pair moves data afterwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_pair.h"

#define MSG_BYTES 512
#define WRITES 8
#define GUARD 256
#define GUARD_BYTE 0x3c
#define EVENT_MS 20000
#define SETTLE_MS 300

static struct vp_dev d0, d1;

struct buf {
	uint8_t *p;
	size_t len;
	struct ibv_mr *mr;
};

static bool buf_open(struct buf *x, struct vp_dev *d, size_t len)
{
	x->len = len;
	x->p = malloc(len + 2 * GUARD);
	if (!x->p)
		return false;
	memset(x->p, GUARD_BYTE, len + 2 * GUARD);
	x->mr = ibv_reg_mr(d->pd, x->p + GUARD, len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	return x->mr != NULL;
}

static void buf_close(struct buf *x)
{
	if (x->mr)
		ibv_dereg_mr(x->mr);
	free(x->p);
}

static bool guards_intact(const struct buf *x)
{
	for (size_t i = 0; i < GUARD; i++)
		if (x->p[i] != GUARD_BYTE || x->p[GUARD + x->len + i] != GUARD_BYTE)
			return false;
	return true;
}

static int post_write(struct ibv_qp *qp, struct buf *src, struct buf *dst, unsigned int k)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)src->p + GUARD + (size_t)k * MSG_BYTES,
		.length = MSG_BYTES,
		.lkey = src->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1000 + k,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)dst->p + GUARD + (size_t)k * MSG_BYTES;
	wr.wr.rdma.rkey = dst->mr->rkey;
	return ibv_post_send(qp, &wr, &bad);
}

static enum ibv_qp_state state_of(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	return ibv_query_qp(qp, &a, IBV_QP_STATE, &ia) ? (enum ibv_qp_state) - 1 : a.qp_state;
}

/* The CQ polled after each WRITE: the driver tells the core of the room each time. */
static void one_entry_polled(void)
{
	struct ibv_cq *cq = ibv_create_cq(d0.ctx, 1, NULL, NULL, 0);
	struct ibv_qp *a = NULL, *b = NULL;
	struct buf src = { 0 }, dst = { 0 };
	struct pollfd pfd = { .fd = d0.ctx->async_fd, .events = POLLIN };
	struct ibv_wc wc;
	unsigned int done = 0;

	if (!vp_result("one_entry_cq", cq != NULL, "create_cq: %s", strerror(errno)))
		return;
	a = vp_create_qp(&d0, cq);
	b = vp_create_qp(&d1, NULL);
	if (!vp_result("one_entry_pair",
		       a && b && !vp_connect(a, &d0, b, &d1) &&
			       buf_open(&src, &d0, WRITES * MSG_BYTES) &&
			       buf_open(&dst, &d1, WRITES * MSG_BYTES),
		       "QPs, connection or MRs failed"))
		goto out;
	for (unsigned int i = 0; i < 3 * WRITES; i++) {
		if (post_write(a, &src, &dst, i % WRITES) || vp_poll_one(cq, &wc, EVENT_MS) != 1 ||
		    wc.status != IBV_WC_SUCCESS || wc.wr_id != 1000 + i % WRITES)
			break;
		done++;
	}
	vp_result("one_entry_cq_polled_as_it_goes",
		  done == 3 * WRITES && poll(&pfd, 1, 0) == 0 && state_of(a) == IBV_QPS_RTS,
		  "%u of %u WRITEs completed; an async event: %s", done, 3 * WRITES,
		  poll(&pfd, 1, 0) ? "yes" : "no");
out:
	if (a)
		ibv_destroy_qp(a);
	if (b)
		ibv_destroy_qp(b);
	buf_close(&src);
	buf_close(&dst);
	ibv_destroy_cq(cq);
}

static void overrun(void)
{
	struct ibv_cq *cq = ibv_create_cq(d0.ctx, 1, NULL, NULL, 0);
	struct ibv_qp *a = NULL, *b = NULL;
	struct buf src = { 0 }, dst = { 0 };
	struct pollfd pfd = { .fd = d0.ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev = { 0 };
	struct ibv_wc wc[WRITES];
	bool got_event = false;
	int n = 0, more = 0;

	if (!vp_result("overrun_cq", cq != NULL, "create_cq: %s", strerror(errno)))
		return;
	a = vp_create_qp(&d0, cq);
	b = vp_create_qp(&d1, NULL);
	if (!vp_result("overrun_pair",
		       a && b && !vp_connect(a, &d0, b, &d1) &&
			       buf_open(&src, &d0, WRITES * MSG_BYTES) &&
			       buf_open(&dst, &d1, WRITES * MSG_BYTES),
		       "QPs, connection or MRs failed"))
		goto out;
	for (size_t i = 0; i < src.len; i++)
		src.p[GUARD + i] = (uint8_t)(i * 13 + 1);
	for (unsigned int k = 0; k < WRITES; k++)
		post_write(a, &src, &dst, k);
	/* nobody polls: the event must come by itself, on async_fd */
	if (poll(&pfd, 1, EVENT_MS) == 1 && !ibv_get_async_event(d0.ctx, &ev)) {
		got_event = true;
		ibv_ack_async_event(&ev);
	}
	vp_result("overrun_async_event_cq_err",
		  got_event && ev.event_type == IBV_EVENT_CQ_ERR && ev.element.cq == cq,
		  "%s: %s on %p (CQ %p)", got_event ? "event" : "no event in time",
		  got_event ? ibv_event_type_str(ev.event_type) : "-",
		  got_event ? (void *)ev.element.cq : NULL, (void *)cq);
	/* whatever was under way finishes: nothing may reach the ring any more */
	poll(NULL, 0, SETTLE_MS);
	n = ibv_poll_cq(cq, WRITES, wc);
	for (int i = 0; i < 20; i++)
		more += ibv_poll_cq(cq, WRITES, wc + (n > 0 ? n : 0));
	vp_result("overrun_first_completion_kept",
		  n == 1 && more == 0 && wc[0].wr_id == 1000 && wc[0].status == IBV_WC_SUCCESS,
		  "%d completions polled (then %d), the first wr_id %llu status %s", n, more,
		  n > 0 ? (unsigned long long)wc[0].wr_id : 0ull,
		  n > 0 ? ibv_wc_status_str(wc[0].status) : "-");
	vp_result("overrun_qp_in_err", state_of(a) == IBV_QPS_ERR && state_of(b) == IBV_QPS_RTS,
		  "states %d (ERR expected) and %d (RTS expected)", state_of(a), state_of(b));
	vp_result("overrun_data_and_guards",
		  !memcmp(src.p + GUARD, dst.p + GUARD, MSG_BYTES) && guards_intact(&dst),
		  "the first WRITE's bytes or the guard bytes around the target differ");
	vp_result("overrun_one_event", poll(&pfd, 1, 0) == 0, "a second async event");
out:
	if (a)
		ibv_destroy_qp(a);
	if (b)
		ibv_destroy_qp(b);
	buf_close(&src);
	buf_close(&dst);
	vp_result("overrun_cq_destroyed", !ibv_destroy_cq(cq), "destroy_cq failed");
}

int main(void)
{
	if (!vp_open(&d0, "hroce0") || !vp_open(&d1, "hroce1"))
		return vp_finish() | 1;
	one_entry_polled();
	overrun();
	vp_fresh_pair_check("fresh_pair_after_overrun", &d0, &d1);
	vp_close(&d0);
	vp_close(&d1);
	return vp_finish();
}
