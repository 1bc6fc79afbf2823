// SPDX-License-Identifier: MIT
/*
 * CQ overrun, through libhroce on two simulated NICs in one process: the core never
 * writes a CQE over one the driver has not polled. A CQ that gets more completions than
 * its ring holds unpolled overruns: the CQE in the ring is the first one (not a later one
 * written over it), an HROCE_ASYNC_CQ_ERR comes through the event queue with an interrupt
 * on HROCE_ASYNC_VECTOR, the QP on it goes to ERR, the completions that did not fit are
 * counted (CORE_COUNTER_CQE_OVERRUN) and nothing more is written. A CQ kept exactly full
 * by a careful consumer (the driver reports its consumer counter after each poll) never
 * overruns, and a fresh pair on healthy CQs works afterwards.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hroce_contract.h"
#include "rc_env.h"

#define MSG_BYTES 512
#define WRITES 8
#define GUARD 256
#define GUARD_BYTE 0x5a
#define LIMIT_NS 2000000 /* 2 ms of simulated time for a few small WRITEs */

static struct bench b;
static struct env e;

/* A buffer with guards: rc_env.h's struct buf has none. */
struct gbuf {
	uint8_t *p;
	size_t len;
	struct hroce_mr *mr;
};

/* A registered buffer of len bytes with GUARD bytes outside the MR on each side. */
static void gbuf_open(struct gbuf *x, int node, size_t len)
{
	x->len = len;
	x->p = env_alloc(len + 2 * GUARD);
	memset(x->p, GUARD_BYTE, len + 2 * GUARD);
	x->mr = hroce_reg_mr(e.n[node].pd, x->p + GUARD, len,
			     HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE, 0);
	if (!x->mr) {
		bench_result(&b, "reg_mr", false, "%s", strerror(errno));
		exit(bench_finish(&b));
	}
}

static void gbuf_close(struct gbuf *x)
{
	hroce_dereg_mr(x->mr);
	free(x->p);
}

static bool guards_intact(const struct gbuf *x)
{
	for (size_t i = 0; i < GUARD; i++)
		if (x->p[i] != GUARD_BYTE || x->p[GUARD + x->len + i] != GUARD_BYTE)
			return false;
	return true;
}

/* A signaled WRITE of message k of src into the same place of dst. */
static int post_write(struct hroce_qp *qp, struct gbuf *src, struct gbuf *dst, unsigned int k)
{
	struct hroce_sge sge = {
		.addr = (uintptr_t)src->p + GUARD + (size_t)k * MSG_BYTES,
		.length = MSG_BYTES,
		.lkey = hroce_mr_lkey(src->mr),
	};
	struct hroce_send_wr wr = {
		.wr_id = 1000 + k,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = HROCE_WR_RDMA_WRITE,
		.send_flags = HROCE_SEND_SIGNALED,
		.remote_addr = (uintptr_t)dst->p + GUARD + (size_t)k * MSG_BYTES,
		.rkey = hroce_mr_rkey(dst->mr),
	};
	struct hroce_send_wr *bad;

	return hroce_post_send(qp, &wr, &bad);
}

/* A QP pair whose node-0 QP completes into cq (send and receive side). */
static int pair_on(struct qp_pair *qp, struct hroce_cq *cq)
{
	static const struct qp_caps caps = { 16, 16, 1, 1, 0 };
	struct hroce_cq *scq = e.n[0].scq, *rcq = e.n[0].rcq;
	int err;

	e.n[0].scq = e.n[0].rcq = cq;
	err = qp_pair_open(&e, qp, HROCE_MTU_1024, &caps,
			   HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE);
	e.n[0].scq = scq;
	e.n[0].rcq = rcq;
	return err;
}

static uint64_t overruns(void)
{
	return hroce_core_counter(e.n[0].dev, HROCE_CORE_COUNTER_CQE_OVERRUN);
}

/* One WRITE at a time into a CQ of one entry, each polled before the next: no overrun. */
static void test_one_entry_polled(void)
{
	struct hroce_cq *cq = hroce_create_cq(e.n[0].dev, 1, 2);
	struct hroce_async_event ev;
	struct gbuf src, dst;
	struct qp_pair qp;
	struct hroce_wc wc;
	unsigned int done = 0;
	int err;

	if (!bench_result(&b, "one_entry_cq", cq && hroce_cq_size(cq) == 1, "%s", strerror(errno)))
		return;
	err = pair_on(&qp, cq);
	if (!bench_result(&b, "one_entry_pair", !err, "%s", strerror(err)))
		return;
	gbuf_open(&src, 0, WRITES * MSG_BYTES);
	gbuf_open(&dst, 1, WRITES * MSG_BYTES);
	bench_fill(&b, src.p + GUARD, src.len);
	for (unsigned int i = 0; i < 4 * WRITES; i++) {
		if (post_write(qp.qp[0], &src, &dst, i % WRITES) ||
		    env_poll(&e, cq, 1, &wc, LIMIT_NS) != 1 || wc.status != HROCE_WC_SUCCESS ||
		    wc.wr_id != 1000 + i % WRITES)
			break;
		done++;
	}
	bench_result(&b, "one_entry_cq_polled_as_it_goes",
		     done == 4 * WRITES && !hroce_get_async_event(e.n[0].dev, &ev) &&
			     overruns() == 0 && !memcmp(src.p + GUARD, dst.p + GUARD, src.len),
		     "%u of %u WRITEs completed, %llu overruns", done, 4 * WRITES,
		     (unsigned long long)overruns());
	qp_pair_close(&qp);
	gbuf_close(&src);
	gbuf_close(&dst);
	hroce_destroy_cq(cq);
}

/* Rounds of as many WRITEs as the CQ holds, all posted, then all polled: never an overrun. */
static void test_exactly_full(void)
{
	struct hroce_cq *cq = hroce_create_cq(e.n[0].dev, WRITES, 2);
	struct hroce_wc wc[WRITES];
	struct hroce_async_event ev;
	struct gbuf src, dst;
	struct qp_pair qp;
	unsigned int rounds = 0;
	int err;

	err = cq ? pair_on(&qp, cq) : errno;
	if (!bench_result(&b, "full_cq_pair", !err && hroce_cq_size(cq) == WRITES, "%s",
			  strerror(err)))
		return;
	gbuf_open(&src, 0, WRITES * MSG_BYTES);
	gbuf_open(&dst, 1, WRITES * MSG_BYTES);
	for (; rounds < 5; rounds++) {
		bool ok = true;

		for (unsigned int k = 0; k < WRITES; k++)
			ok = ok && !post_write(qp.qp[0], &src, &dst, k);
		/* let all of them complete before polling: the ring is full, not over */
		for (int i = 0; i < 2000; i++)
			env_idle(&e);
		ok = ok && env_poll(&e, cq, WRITES, wc, LIMIT_NS) == WRITES;
		for (unsigned int k = 0; ok && k < WRITES; k++)
			ok = wc[k].status == HROCE_WC_SUCCESS && wc[k].wr_id == 1000 + k;
		if (!ok)
			break;
	}
	bench_result(&b, "cq_exactly_full_no_overrun",
		     rounds == 5 && !hroce_get_async_event(e.n[0].dev, &ev) && overruns() == 0,
		     "%u of 5 rounds, %llu overruns", rounds, (unsigned long long)overruns());
	qp_pair_close(&qp);
	gbuf_close(&src);
	gbuf_close(&dst);
	hroce_destroy_cq(cq);
}

/* Eight signaled WRITEs into a CQ of one entry, nobody polling: the CQ overruns. */
static void test_overrun(void)
{
	struct hroce_cq *cq = hroce_create_cq(e.n[0].dev, 1, 2);
	struct hroce_async_event ev = { 0 };
	struct hroce_qp_attr qa0, qa1;
	struct hroce_wc wc[WRITES];
	struct gbuf src, dst;
	struct qp_pair qp;
	uint64_t end, irqs = 0;
	int got = 0, err;

	err = cq ? pair_on(&qp, cq) : errno;
	if (!bench_result(&b, "overrun_pair", !err, "%s", strerror(err)))
		return;
	gbuf_open(&src, 0, WRITES * MSG_BYTES);
	gbuf_open(&dst, 1, WRITES * MSG_BYTES);
	bench_fill(&b, src.p + GUARD, src.len);
	hroce_take_irqs(e.n[0].dev);
	for (unsigned int k = 0; k < WRITES; k++)
		post_write(qp.qp[0], &src, &dst, k);
	end = env_ns(&e) + LIMIT_NS;
	while (env_ns(&e) < end && !hroce_get_async_event(e.n[0].dev, &ev))
		env_idle(&e);
	/* the interrupt follows the EQE once its write is posted */
	while (env_ns(&e) < end && !(irqs >> HROCE_ASYNC_VECTOR & 1)) {
		irqs |= hroce_take_irqs(e.n[0].dev);
		env_idle(&e);
	}
	bench_result(&b, "overrun_event_cq_err",
		     ev.type == HROCE_ASYNC_CQ_ERR && ev.cq == cq &&
			     (irqs >> HROCE_ASYNC_VECTOR & 1),
		     "event %d on CQ %p (%p expected), interrupts 0x%llx", ev.type, (void *)ev.cq,
		     (void *)cq, (unsigned long long)irqs);
	/* the engines finish whatever was under way: nothing may reach the ring any more */
	for (int i = 0; i < 5000; i++)
		env_idle(&e);
	got = hroce_poll_cq(cq, WRITES, wc);
	bench_result(&b, "overrun_first_cqe_kept",
		     got == 1 && wc[0].wr_id == 1000 && wc[0].status == HROCE_WC_SUCCESS,
		     "%d CQEs polled, the first wr_id %llu status %d", got,
		     got ? (unsigned long long)wc[0].wr_id : 0ull, got ? (int)wc[0].status : -1);
	bench_result(&b, "overrun_counted", overruns() >= WRITES - 1,
		     "%llu completions counted as lost, at least %d expected",
		     (unsigned long long)overruns(), WRITES - 1);
	err = hroce_query_qp(qp.qp[0], &qa0);
	err = err ?: hroce_query_qp(qp.qp[1], &qa1);
	bench_result(&b, "overrun_qp_to_err",
		     !err && qa0.qp_state == HROCE_QPS_ERR && qa1.qp_state == HROCE_QPS_RTS,
		     "states %d and %d (%s)", qa0.qp_state, qa1.qp_state, strerror(err));
	bench_result(&b, "overrun_data_and_guards",
		     !memcmp(src.p + GUARD, dst.p + GUARD, MSG_BYTES) && guards_intact(&dst),
		     "the first WRITE's bytes or the guards around the target differ");
	bench_result(&b, "overrun_one_event", !hroce_get_async_event(e.n[0].dev, &ev),
		     "a second event");
	qp_pair_close(&qp);
	err = hroce_destroy_cq(cq);
	bench_result(&b, "overrun_cq_destroyed", !err, "%s", strerror(err));
	gbuf_close(&src);
	gbuf_close(&dst);
}

/* After all this, a fresh pair on the environment's CQs moves data. */
static void test_fresh_pair(void)
{
	static const struct qp_caps caps = { 16, 16, 1, 1, 0 };
	struct gbuf src, dst;
	struct qp_pair qp;
	struct hroce_wc wc;
	int err;

	err = qp_pair_open(&e, &qp, HROCE_MTU_4096, &caps,
			   HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE);
	if (!bench_result(&b, "fresh_pair", !err, "%s", strerror(err)))
		return;
	gbuf_open(&src, 0, WRITES * MSG_BYTES);
	gbuf_open(&dst, 1, WRITES * MSG_BYTES);
	bench_fill(&b, src.p + GUARD, src.len);
	err = post_write(qp.qp[0], &src, &dst, 3);
	bench_result(&b, "fresh_pair_moves_data",
		     !err && env_poll(&e, e.n[0].scq, 1, &wc, LIMIT_NS) == 1 &&
			     wc.status == HROCE_WC_SUCCESS &&
			     !memcmp(src.p + GUARD + 3 * MSG_BYTES, dst.p + GUARD + 3 * MSG_BYTES,
				     MSG_BYTES) &&
			     guards_intact(&dst),
		     "the WRITE did not complete, or its bytes differ");
	qp_pair_close(&qp);
	gbuf_close(&src);
	gbuf_close(&dst);
}

int main(int argc, char **argv)
{
	struct env_params p = { .pcie_read_ns = 200, .pcie_write_ns = 200, .link_ns = 100 };

	bench_init(&b, "test_cq_overrun", argc, argv);
	env_open(&e, &b, &p);
	test_one_entry_polled();
	test_exactly_full();
	test_overrun();
	test_fresh_pair();
	env_close(&e);
	return bench_finish(&b);
}
