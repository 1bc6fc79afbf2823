// SPDX-License-Identifier: MIT
/*
 * Bad attributes through the real libibverbs API (run under hroce-run): every create_qp
 * and modify_qp that IBTA or the device's reported limits forbid is refused with its
 * errno, the QP is unchanged afterwards (ibv_query_qp), a QP that was refused along its
 * way still connects and moves data, and so does a fresh pair at the end. A path to the
 * device's own address (loopback, which the core cannot serve) is refused with EOPNOTSUPP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hroce_contract.h"
#include "verbs_pair.h"

static struct vp_dev d0, d1;

/* create_qp with one change to good defaults: NULL and errno EINVAL expected. */
static void create_refused(const char *name, struct ibv_qp_init_attr ia)
{
	struct ibv_qp *qp;

	errno = 0;
	qp = ibv_create_qp(d0.pd, &ia);
	vp_result(name, !qp && errno == EINVAL, "%s (errno %d, %s)", qp ? "created" : "refused",
		  errno, strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
}

static struct ibv_qp_init_attr good_init(void)
{
	return (struct ibv_qp_init_attr){
		.send_cq = d0.cq,
		.recv_cq = d0.cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
}

static void create_cases(void)
{
	struct ibv_qp_init_attr ia;
	const unsigned int max_wr = (unsigned int)d0.attr.max_qp_wr;
	const unsigned int max_sge = (unsigned int)d0.attr.max_sge;

	ia = good_init();
	ia.cap.max_send_wr = max_wr + 1;
	create_refused("create_qp_send_wr_above_max", ia);
	ia = good_init();
	ia.cap.max_recv_wr = max_wr + 1;
	create_refused("create_qp_recv_wr_above_max", ia);
	ia = good_init();
	ia.cap.max_send_wr = 0xffffffff;
	create_refused("create_qp_send_wr_ffffffff", ia);
	ia = good_init();
	ia.cap.max_recv_wr = 0xffffffff;
	create_refused("create_qp_recv_wr_ffffffff", ia);
	ia = good_init();
	ia.cap.max_send_sge = max_sge + 1;
	create_refused("create_qp_send_sge_above_max", ia);
	ia = good_init();
	ia.cap.max_recv_sge = max_sge + 1;
	create_refused("create_qp_recv_sge_above_max", ia);
	ia = good_init();
	ia.cap.max_recv_sge = 0xffffffff;
	create_refused("create_qp_recv_sge_ffffffff", ia);
	ia = good_init();
	ia.cap.max_inline_data = HROCE_MAX_INLINE + 1;
	create_refused("create_qp_inline_above_max", ia);
	ia = good_init();
	ia.send_cq = d1.cq;
	create_refused("create_qp_send_cq_of_other_device", ia);
	ia = good_init();
	ia.recv_cq = d1.cq;
	create_refused("create_qp_recv_cq_of_other_device", ia);

	/* the largest sizes the device reports are accepted */
	ia = good_init();
	ia.cap.max_send_sge = max_sge;
	ia.cap.max_recv_sge = max_sge;
	ia.cap.max_inline_data = HROCE_MAX_INLINE;
	{
		struct ibv_qp *qp = ibv_create_qp(d0.pd, &ia);

		vp_result("create_qp_at_the_limits", qp != NULL, "%s", strerror(errno));
		if (qp)
			ibv_destroy_qp(qp);
	}
}

/* A snapshot of what a refused modify must not change. */
struct qp_view {
	enum ibv_qp_state state;
	enum ibv_mtu mtu;
	uint32_t dest_qp_num, rq_psn, sq_psn;
	unsigned int access;
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer, max_rd_atomic, max_dest_rd_atomic;
};

static bool view_of(struct ibv_qp *qp, struct qp_view *v)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	memset(v, 0, sizeof(*v));
	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return false;
	v->state = a.qp_state;
	v->mtu = a.path_mtu;
	v->dest_qp_num = a.dest_qp_num;
	v->rq_psn = a.rq_psn;
	v->sq_psn = a.sq_psn;
	v->access = a.qp_access_flags;
	v->timeout = a.timeout;
	v->retry_cnt = a.retry_cnt;
	v->rnr_retry = a.rnr_retry;
	v->min_rnr_timer = a.min_rnr_timer;
	v->max_rd_atomic = a.max_rd_atomic;
	v->max_dest_rd_atomic = a.max_dest_rd_atomic;
	return true;
}

/* A modify that must fail with err, leaving the QP as it was (and in state). */
static void modify_refused(const char *name, struct ibv_qp *qp, struct ibv_qp_attr a, int mask,
			   int want)
{
	struct qp_view before, after;
	int err;

	if (!view_of(qp, &before)) {
		vp_result(name, false, "query_qp before failed");
		return;
	}
	err = ibv_modify_qp(qp, &a, mask);
	if (!view_of(qp, &after)) {
		vp_result(name, false, "query_qp after failed");
		return;
	}
	if (err != want) {
		vp_result(name, false, "modify gave %d (%s), %d (%s) expected", err, strerror(err),
			  want, strerror(want));
		return;
	}
	vp_result(name, !memcmp(&before, &after, sizeof(before)) && qp->state == before.state,
		  "the QP changed: state %d -> %d, mtu %d -> %d, dest %u -> %u", before.state,
		  after.state, before.mtu, after.mtu, before.dest_qp_num, after.dest_qp_num);
}

static struct ibv_qp_attr init_attr(void)
{
	return (struct ibv_qp_attr){
		.qp_state = IBV_QPS_INIT,
		.port_num = VP_PORT,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
	};
}
#define INIT_MASK (IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS)

static struct ibv_qp_attr rtr_attr(uint32_t remote_qpn)
{
	return (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = remote_qpn,
		.rq_psn = 0x100,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1,
			.port_num = VP_PORT,
			.grh = { .dgid = d1.gid, .sgid_index = VP_GID_INDEX, .hop_limit = 64 },
		},
	};
}
#define RTR_MASK                                                                        \
	(IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | \
	 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)

static struct ibv_qp_attr rts_attr(void)
{
	return (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS,
		.sq_psn = 0x200,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = 1,
	};
}
#define RTS_MASK                                                                               \
	(IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | \
	 IBV_QP_MAX_QP_RD_ATOMIC)

static void modify_cases(void)
{
	struct ibv_qp *a = vp_create_qp(&d0, NULL), *b = vp_create_qp(&d1, NULL);
	struct ibv_qp_attr x;
	char why[160] = "";
	int err;

	if (!vp_result("modify_qp_setup", a && b, "create_qp: %s", strerror(errno)))
		goto out;

	/* RESET -> INIT */
	x = init_attr();
	x.sq_psn = 5;
	modify_refused("reset_init_extra_sq_psn", a, x, INIT_MASK | IBV_QP_SQ_PSN, EINVAL);
	modify_refused("reset_init_without_port", a, init_attr(), INIT_MASK & ~IBV_QP_PORT, EINVAL);
	x = init_attr();
	x.port_num = 2;
	modify_refused("reset_init_port_2", a, x, INIT_MASK, EINVAL);
	x = init_attr();
	x.pkey_index = 1;
	modify_refused("reset_init_pkey_index_1", a, x, INIT_MASK, EINVAL);
	x = init_attr();
	x.qp_access_flags |= 1 << 12;
	modify_refused("reset_init_unknown_access_bit", a, x, INIT_MASK, EINVAL);
	modify_refused("reset_rtr", a, rtr_attr(b->qp_num), RTR_MASK, EINVAL);
	modify_refused("reset_err", a, (struct ibv_qp_attr){ .qp_state = IBV_QPS_ERR },
		       IBV_QP_STATE, EINVAL);
	x = init_attr();
	x.qp_state = 9;
	modify_refused("reset_state_9", a, x, INIT_MASK, EINVAL);
	modify_refused("reset_init_unknown_mask_bit", a, init_attr(), INIT_MASK | (1 << 30),
		       EINVAL);
	err = vp_to_init(a);
	err = err ?: vp_to_init(b);
	if (!vp_result("reset_init_after_refusals", !err, "%s", strerror(err)))
		goto out;

	/* INIT -> RTR */
	x = rtr_attr(b->qp_num);
	x.dest_qp_num = 1u << 24;
	modify_refused("init_rtr_dest_qpn_25_bits", a, x, RTR_MASK, EINVAL);
	x = rtr_attr(b->qp_num);
	x.min_rnr_timer = 32;
	modify_refused("init_rtr_min_rnr_timer_32", a, x, RTR_MASK, EINVAL);
	x = rtr_attr(b->qp_num);
	x.max_dest_rd_atomic = (uint8_t)(d0.attr.max_qp_rd_atom + 1);
	modify_refused("init_rtr_max_dest_rd_atomic_above_max", a, x, RTR_MASK, EINVAL);
	x = rtr_attr(b->qp_num);
	x.path_mtu = (enum ibv_mtu)(d0.port.active_mtu + 1);
	modify_refused("init_rtr_mtu_above_active", a, x, RTR_MASK, EINVAL);
	x = rtr_attr(b->qp_num);
	x.path_mtu = (enum ibv_mtu)0;
	modify_refused("init_rtr_mtu_0", a, x, RTR_MASK, EINVAL);
	modify_refused("init_rtr_without_rq_psn", a, rtr_attr(b->qp_num), RTR_MASK & ~IBV_QP_RQ_PSN,
		       EINVAL);
	modify_refused("init_rtr_extra_timeout", a, rtr_attr(b->qp_num), RTR_MASK | IBV_QP_TIMEOUT,
		       EINVAL);
	modify_refused("init_rtr_alt_path", a, rtr_attr(b->qp_num), RTR_MASK | IBV_QP_ALT_PATH,
		       EOPNOTSUPP);
	modify_refused("init_rts", a, rts_attr(), RTS_MASK, EINVAL);
	/* the core has no internal loopback: a path to its own address is refused, said why */
	x = rtr_attr(b->qp_num);
	x.ah_attr.grh.dgid = d0.gid;
	modify_refused("init_rtr_loopback", a, x, RTR_MASK, EOPNOTSUPP);
	err = vp_to_rtr(a, &d1, b->qp_num, 0x100);
	err = err ?: vp_to_rtr(b, &d0, a->qp_num, 0x200);
	if (!vp_result("init_rtr_after_refusals", !err, "%s", strerror(err)))
		goto out;

	/* RTR -> RTS */
	x = rts_attr();
	x.timeout = 32;
	modify_refused("rtr_rts_timeout_32", a, x, RTS_MASK, EINVAL);
	x = rts_attr();
	x.retry_cnt = 8;
	modify_refused("rtr_rts_retry_cnt_8", a, x, RTS_MASK, EINVAL);
	x = rts_attr();
	x.rnr_retry = 8;
	modify_refused("rtr_rts_rnr_retry_8", a, x, RTS_MASK, EINVAL);
	x = rts_attr();
	x.max_rd_atomic = (uint8_t)(d0.attr.max_qp_init_rd_atom + 1);
	modify_refused("rtr_rts_max_rd_atomic_above_max", a, x, RTS_MASK, EINVAL);
	modify_refused("rtr_rts_extra_dest_qpn", a, rts_attr(), RTS_MASK | IBV_QP_DEST_QPN, EINVAL);
	err = vp_to_rts(a, 0x200);
	err = err ?: vp_to_rts(b, 0x100);
	if (!vp_result("rtr_rts_after_refusals", !err, "%s", strerror(err)))
		goto out;

	/* RTS -> RTS: what the path is cannot change any more */
	x = rtr_attr(b->qp_num);
	x.qp_state = IBV_QPS_RTS;
	x.path_mtu = IBV_MTU_4096;
	modify_refused("rts_rts_path_mtu", a, x, IBV_QP_STATE | IBV_QP_PATH_MTU, EINVAL);
	x.dest_qp_num = b->qp_num + 1;
	modify_refused("rts_rts_dest_qpn", a, x, IBV_QP_STATE | IBV_QP_DEST_QPN, EINVAL);
	modify_refused("rts_init", a, init_attr(), IBV_QP_STATE, EINVAL);
	x = rts_attr();
	x.min_rnr_timer = 14;
	err = ibv_modify_qp(a, &x, IBV_QP_STATE | IBV_QP_MIN_RNR_TIMER);
	vp_result("rts_rts_min_rnr_timer_allowed", !err, "%s", strerror(err));

	/* the QP refused all along its way moves data */
	vp_result("refused_qp_moves_data", vp_write_check(a, &d0, b, &d1, 3000, why, sizeof(why)),
		  "%s", why);
out:
	if (a)
		ibv_destroy_qp(a);
	if (b)
		ibv_destroy_qp(b);
}

int main(void)
{
	if (!vp_open(&d0, "hroce0") || !vp_open(&d1, "hroce1"))
		return vp_finish() | 1;
	create_cases();
	vp_fresh_pair_check("fresh_pair_after_create_refusals", &d0, &d1);
	modify_cases();
	vp_fresh_pair_check("fresh_pair_after_modify_refusals", &d0, &d1);
	vp_close(&d0);
	vp_close(&d1);
	return vp_finish();
}
