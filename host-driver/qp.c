// SPDX-License-Identifier: MIT
/*
 * RC queue pairs: the context's static beat (written through MODIFY_QP commands), the send
 * and receive rings, and the posting of work requests.
 *
 * Posting writes each WQE straight into its ring slot (hroce_sq_build), under the caller's
 * lock of that queue only, and rings once per batch (hroce_sq_ring). When the batch's last
 * WQE fits in 64 bytes, the doorbell is that WQE, written whole to the QP's slot of the
 * doorbell pages (one write-combined TLP on a board): the core need not read it from memory
 * before sending. It is in the ring all the same, because the core reads it again when the
 * WQE's acknowledgement comes back; its DB_INDEX says which producer counter it rings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>

#include "hroce_priv.h"

#define SQ_HDR_BYTES HROCE_SQ_WQE_SGE_OFFSET
#define RQ_HDR_BYTES HROCE_RQ_WQE_SGE_OFFSET
#define MAX_LOG_STRIDE 3 /* WQEs of 64 to 512 bytes */
#define PKEY_DEFAULT 0xffff
#define TTL_DEFAULT 64

/* the core's caches write back what the contract's QPC says each engine owns */
_Static_assert(HROCE_QPC_REQ_BYTE * 8 == HROCE_QPC_SQ_PI_LSB &&
		       HROCE_QPC_RESP_BYTE * 8 == HROCE_QPC_RQ_PI_LSB,
	       "QPC_REQ_BYTE and QPC_RESP_BYTE are where SQ_PI and RQ_PI start");

/* The smallest stride (log2 of 64-byte units) that holds bytes. */
static int stride_for(uint64_t bytes)
{
	for (int s = 0; s <= MAX_LOG_STRIDE; s++)
		if (UINT64_C(64) << s >= bytes)
			return s;
	return -1;
}

/* The smallest ring (log2 of entries, at least 2) that holds wr, or -1 past max_log. */
static int log_ring(unsigned int wr, unsigned int max_log)
{
	for (unsigned int log = 1; log <= max_log && log < 64; log++)
		if (UINT64_C(1) << log >= wr)
			return (int)log;
	return -1;
}

/* The bytes a WQE of sges scatter-gather entries takes; 64-bit, so any count fits. */
static uint64_t wqe_bytes(unsigned int hdr, unsigned int sges)
{
	return hdr + (uint64_t)HROCE_SGE_BYTES * (sges ? sges : 1);
}

static int wq_alloc(struct hroce_dev *dev, struct hroce_wq *wq, unsigned int log_size,
		    unsigned int log_stride)
{
	int err;

	wq->log_size = log_size;
	wq->log_stride = log_stride;
	err = hroce_dma_alloc(dev, (size_t)64 << (log_size + log_stride), HROCE_PAGE, &wq->ring);
	if (err)
		return err;
	wq->wr_id = calloc(1u << log_size, sizeof(*wq->wr_id));
	if (!wq->wr_id) {
		hroce_dma_free(dev, &wq->ring);
		return ENOMEM;
	}
	return 0;
}

static void wq_free(struct hroce_dev *dev, struct hroce_wq *wq)
{
	free(wq->wr_id);
	hroce_dma_free(dev, &wq->ring);
}

static uint8_t *wq_slot(struct hroce_wq *wq, uint16_t index)
{
	return (uint8_t *)wq->ring.vaddr +
	       ((size_t)(index & ((1u << wq->log_size) - 1)) << (6 + wq->log_stride));
}

static unsigned int wq_room(const struct hroce_wq *wq)
{
	return (1u << wq->log_size) -
	       (uint16_t)(wq->pi - atomic_load_explicit(&wq->cc, memory_order_acquire));
}

/* What the QP can take given its strides. */
static void qp_caps(struct hroce_qp *qp)
{
	unsigned int sq_bytes = 64u << qp->sq.log_stride, rq_bytes = 64u << qp->rq.log_stride;

	qp->cap.max_send_wr = 1u << qp->sq.log_size;
	qp->cap.max_recv_wr = 1u << qp->rq.log_size;
	qp->cap.max_send_sge = (sq_bytes - SQ_HDR_BYTES) / HROCE_SGE_BYTES;
	qp->cap.max_recv_sge = (rq_bytes - RQ_HDR_BYTES) / HROCE_SGE_BYTES;
	qp->cap.max_inline_data = sq_bytes - SQ_HDR_BYTES;
	if (qp->cap.max_inline_data > HROCE_MAX_INLINE)
		qp->cap.max_inline_data = HROCE_MAX_INLINE;
}

struct hroce_qp *hroce_create_qp(struct hroce_pd *pd, const struct hroce_qp_init_attr *attr)
{
	struct hroce_dev *dev = pd->dev;
	const struct hroce_qp_cap *cap = &attr->cap;
	unsigned int max_log = HROCE_REG_FIELD(dev->caps, CAPS, LOG_MAX_WQE);
	unsigned int n = 1u << dev->params.log_qps;
	uint64_t sq_bytes, rq_bytes;
	int sq_stride, rq_stride, sq_log, rq_log, err;
	struct hroce_qp *qp;
	uint32_t qpn;

	if (!attr->send_cq || !attr->recv_cq || cap->max_inline_data > HROCE_MAX_INLINE) {
		errno = EINVAL;
		return NULL;
	}
	/* a CQ of another device: the core would write its completions into this one's table */
	if (attr->send_cq->dev != dev || attr->recv_cq->dev != dev) {
		errno = EINVAL;
		return NULL;
	}
	sq_bytes = wqe_bytes(SQ_HDR_BYTES, cap->max_send_sge);
	if (sq_bytes < SQ_HDR_BYTES + cap->max_inline_data)
		sq_bytes = SQ_HDR_BYTES + cap->max_inline_data;
	rq_bytes = wqe_bytes(RQ_HDR_BYTES, cap->max_recv_sge);
	sq_stride = stride_for(sq_bytes);
	rq_stride = stride_for(rq_bytes);
	sq_log = log_ring(cap->max_send_wr, max_log);
	rq_log = log_ring(cap->max_recv_wr, max_log);
	if (sq_stride < 0 || rq_stride < 0 || sq_log < 0 || rq_log < 0) {
		errno = EINVAL;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	/* the QPN is claimed at once: another open of the device may be looking too */
	pthread_mutex_lock(&dev->lock);
	/* QPNs 0 and 1 are InfiniBand's special QPs */
	for (qpn = 2; qpn < n && dev->qps[qpn]; qpn++)
		;
	if (qpn < n)
		dev->qps[qpn] = qp;
	pthread_mutex_unlock(&dev->lock);
	if (qpn >= n) {
		err = ENOMEM;
		goto err_free;
	}
	qp->dev = dev;
	qp->pd = pd;
	qp->qpn = qpn;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->sq_sig_all = attr->sq_sig_all;
	err = wq_alloc(dev, &qp->sq, sq_log, sq_stride);
	if (err)
		goto err_qpn;
	err = wq_alloc(dev, &qp->rq, rq_log, rq_stride);
	if (err)
		goto err_sq;
	qp_caps(qp);

	HROCE_QPC_SET(qp->ctx, STATE, HROCE_QP_STATE_RESET);
	HROCE_QPC_SET(qp->ctx, PATH_MTU, HROCE_MTU_1024);
	HROCE_QPC_SET(qp->ctx, PD, pd->pdn);
	HROCE_QPC_SET(qp->ctx, SEND_CQN, attr->send_cq->cqn);
	HROCE_QPC_SET(qp->ctx, RECV_CQN, attr->recv_cq->cqn);
	HROCE_QPC_SET(qp->ctx, LOG_SQ_SIZE, sq_log);
	HROCE_QPC_SET(qp->ctx, LOG_SQ_STRIDE, sq_stride);
	HROCE_QPC_SET(qp->ctx, LOG_RQ_SIZE, rq_log);
	HROCE_QPC_SET(qp->ctx, LOG_RQ_STRIDE, rq_stride);
	HROCE_QPC_SET(qp->ctx, TTL, TTL_DEFAULT);
	HROCE_QPC_SET(qp->ctx, PKEY, PKEY_DEFAULT);
	HROCE_QPC_SET(qp->ctx, SQ_BASE, qp->sq.ring.iova);
	HROCE_QPC_SET(qp->ctx, RQ_BASE, qp->rq.ring.iova);
	err = hroce_cmd(dev, HROCE_CMD_OP_CREATE_QP, qpn, 0, qp->ctx, sizeof(qp->ctx), NULL, 0);
	if (err)
		goto err_rq;
	qp->state = HROCE_QPS_RESET;
	pd->users++;
	attr->send_cq->users++;
	attr->recv_cq->users++;
	return qp;

err_rq:
	wq_free(dev, &qp->rq);
err_sq:
	wq_free(dev, &qp->sq);
err_qpn:
	pthread_mutex_lock(&dev->lock);
	dev->qps[qpn] = NULL;
	pthread_mutex_unlock(&dev->lock);
err_free:
	free(qp);
	errno = err;
	return NULL;
}

int hroce_destroy_qp(struct hroce_qp *qp)
{
	struct hroce_dev *dev = qp->dev;
	int err;

	err = hroce_cmd(dev, HROCE_CMD_OP_DESTROY_QP, qp->qpn, 0, NULL, 0, NULL, 0);
	if (err)
		return err;
	/* the core makes no CQE for it any more: those not polled yet go (its QPN is reused) */
	hroce_cq_clean(qp->send_cq, qp->qpn);
	if (qp->recv_cq != qp->send_cq)
		hroce_cq_clean(qp->recv_cq, qp->qpn);
	pthread_mutex_lock(&dev->lock);
	dev->qps[qp->qpn] = NULL;
	pthread_mutex_unlock(&dev->lock);
	qp->pd->users--;
	qp->send_cq->users--;
	qp->recv_cq->users--;
	wq_free(dev, &qp->rq);
	wq_free(dev, &qp->sq);
	free(qp);
	return 0;
}

uint32_t hroce_qp_num(const struct hroce_qp *qp)
{
	return qp->qpn;
}

static void apply_attrs(struct hroce_qp *qp, uint8_t *ctx, const struct hroce_qp_attr *attr,
			unsigned int mask)
{
	if (mask & HROCE_QP_ACCESS_FLAGS)
		HROCE_QPC_SET(ctx, ACCESS, attr->qp_access_flags & 0xf);
	if (mask & HROCE_QP_PATH_MTU)
		HROCE_QPC_SET(ctx, PATH_MTU, attr->path_mtu);
	if (mask & HROCE_QP_DEST_QPN)
		HROCE_QPC_SET(ctx, DEST_QPN, attr->dest_qp_num);
	if (mask & HROCE_QP_RQ_PSN)
		HROCE_QPC_SET(ctx, RQ_PSN, attr->rq_psn);
	if (mask & HROCE_QP_SQ_PSN)
		HROCE_QPC_SET(ctx, SQ_PSN, attr->sq_psn);
	if (mask & HROCE_QP_AV) {
		const struct hroce_ah_attr *ah = &attr->ah_attr;
		uint8_t sgid[16];
		uint64_t dmac = 0;

		for (int i = 0; i < 6; i++)
			dmac = dmac << 8 | ah->dmac[i];
		HROCE_QPC_SET(ctx, DMAC, dmac);
		/* hroce_qp_check_modify made sure the index is in the table */
		hroce_query_gid(qp->dev, ah->sgid_index, sgid);
		HROCE_QPC_SET_BE(ctx, SGID, sgid);
		HROCE_QPC_SET_BE(ctx, DGID, ah->dgid);
		HROCE_QPC_SET(ctx, IP6, !hroce_gid_is_ipv4(ah->dgid, NULL));
		HROCE_QPC_SET(ctx, FLOW_LABEL, ah->flow_label);
		HROCE_QPC_SET(ctx, TTL, ah->hop_limit ? ah->hop_limit : TTL_DEFAULT);
		HROCE_QPC_SET(ctx, DSCP, ah->traffic_class >> 2);
		HROCE_QPC_SET(ctx, UDP_SPORT, ah->udp_sport);
	}
	if (mask & HROCE_QP_TIMEOUT)
		HROCE_QPC_SET(ctx, TIMEOUT, attr->timeout);
	if (mask & HROCE_QP_RETRY_CNT)
		HROCE_QPC_SET(ctx, RETRY_CNT, attr->retry_cnt);
	if (mask & HROCE_QP_RNR_RETRY)
		HROCE_QPC_SET(ctx, RNR_RETRY, attr->rnr_retry);
	if (mask & HROCE_QP_MIN_RNR_TIMER)
		HROCE_QPC_SET(ctx, MIN_RNR_TIMER, attr->min_rnr_timer);
	if (mask & HROCE_QP_MAX_QP_RD_ATOMIC)
		HROCE_QPC_SET(ctx, MAX_RD_ATOMIC, attr->max_rd_atomic);
	if (mask & HROCE_QP_MAX_DEST_RD_ATOMIC)
		HROCE_QPC_SET(ctx, MAX_DEST_RD_ATOMIC, attr->max_dest_rd_atomic);
}

int hroce_modify_qp(struct hroce_qp *qp, const struct hroce_qp_attr *attr, unsigned int mask)
{
	enum hroce_qp_state cur, next;
	static const uint8_t no_mac[6];
	struct hroce_qp_attr resolved;
	uint8_t ctx[sizeof(qp->ctx)];
	const char *why;
	int err;

	/* nothing reaches the core unless the table allows it: a refusal changes nothing */
	err = hroce_qp_check_modify(qp->dev, qp->state, attr, mask, &why);
	if (err) {
		/*
		 * a bad value is the caller's to see (EINVAL); what is not served is said, and
		 * so is a path that cannot be used (a GID index, families that differ)
		 */
		hroce_log(err == EOPNOTSUPP || (mask & HROCE_QP_AV) ? HROCE_LOG_ERR
								    : HROCE_LOG_INFO,
			  "%s: modify_qp of QP %u refused: %s", qp->dev->name, qp->qpn,
			  why ? why : strerror(err));
		return err;
	}
	cur = (mask & HROCE_QP_CUR_STATE) ? attr->cur_qp_state : qp->state;
	next = (mask & HROCE_QP_STATE) ? attr->qp_state : cur;
	if ((mask & HROCE_QP_AV) && !memcmp(attr->ah_attr.dmac, no_mac, 6)) {
		/* no MAC given: ARP or neighbour discovery finds it, as the kernel does */
		uint32_t dip;

		resolved = *attr;
		if (hroce_gid_is_ipv4(attr->ah_attr.dgid, &dip))
			err = hroce_resolve_mac(qp->dev, dip, resolved.ah_attr.dmac);
		else
			err = hroce_resolve_mac6(qp->dev, attr->ah_attr.dgid,
						 resolved.ah_attr.dmac);
		if (err)
			return err;
		attr = &resolved;
	}
	memcpy(ctx, qp->ctx, sizeof(ctx));
	apply_attrs(qp, ctx, attr, mask);
	HROCE_QPC_SET(ctx, STATE, next);
	err = hroce_cmd(qp->dev, HROCE_CMD_OP_MODIFY_QP, qp->qpn, cur, ctx, sizeof(ctx), NULL, 0);
	if (err == EINVAL && !(mask & HROCE_QP_CUR_STATE) &&
	    (next == HROCE_QPS_RESET || next == HROCE_QPS_ERR)) {
		/* the core may have moved the QP to ERR itself: any state may go there */
		struct hroce_qp_attr now;

		if (!hroce_query_qp(qp, &now) && now.qp_state != cur)
			err = hroce_cmd(qp->dev, HROCE_CMD_OP_MODIFY_QP, qp->qpn, now.qp_state, ctx,
					sizeof(ctx), NULL, 0);
	}
	if (err)
		return err;
	memcpy(qp->ctx, ctx, sizeof(ctx));
	qp->state = next;
	if (next == HROCE_QPS_RESET) {
		qp->sq.pi = qp->sq.cc = qp->sq.rung = 0;
		qp->rq.pi = qp->rq.cc = 0;
	} else if (next == HROCE_QPS_ERR) {
		/* the engines flush what is posted when they next look at the QP */
		hroce_doorbell(qp->dev, HROCE_REG_DB_SQ, qp->qpn, qp->sq.pi);
		hroce_doorbell(qp->dev, HROCE_REG_DB_RQ, qp->qpn, qp->rq.pi);
	}
	return 0;
}

int hroce_query_qp(struct hroce_qp *qp, struct hroce_qp_attr *attr)
{
	uint8_t ctx[HROCE_QPC_BYTES], sgid[16];
	uint64_t dmac;
	int err, gid_index;

	err = hroce_cmd(qp->dev, HROCE_CMD_OP_QUERY_QP, qp->qpn, 0, NULL, 0, ctx, sizeof(ctx));
	if (err)
		return err;
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = HROCE_QPC_GET(ctx, STATE);
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = HROCE_QPC_GET(ctx, PATH_MTU);
	attr->qp_access_flags = HROCE_QPC_GET(ctx, ACCESS);
	attr->dest_qp_num = HROCE_QPC_GET(ctx, DEST_QPN);
	attr->rq_psn = HROCE_QPC_GET(ctx, RQ_PSN);
	attr->sq_psn = HROCE_QPC_GET(ctx, SQ_PSN);
	dmac = HROCE_QPC_GET(ctx, DMAC);
	for (int i = 5; i >= 0; i--, dmac >>= 8)
		attr->ah_attr.dmac[i] = dmac & 0xff;
	HROCE_QPC_GET_BE(ctx, SGID, sgid);
	HROCE_QPC_GET_BE(ctx, DGID, attr->ah_attr.dgid);
	gid_index = hroce_gid_index(qp->dev, sgid);
	/* a QP before its path has none: its SGID is zero */
	attr->ah_attr.sgid_index = gid_index < 0 ? 0 : (uint8_t)gid_index;
	attr->ah_attr.flow_label = HROCE_QPC_GET(ctx, FLOW_LABEL);
	attr->ah_attr.hop_limit = HROCE_QPC_GET(ctx, TTL);
	attr->ah_attr.traffic_class = HROCE_QPC_GET(ctx, DSCP) << 2;
	attr->ah_attr.udp_sport = HROCE_QPC_GET(ctx, UDP_SPORT);
	attr->timeout = HROCE_QPC_GET(ctx, TIMEOUT);
	attr->retry_cnt = HROCE_QPC_GET(ctx, RETRY_CNT);
	attr->rnr_retry = HROCE_QPC_GET(ctx, RNR_RETRY);
	attr->min_rnr_timer = HROCE_QPC_GET(ctx, MIN_RNR_TIMER);
	attr->max_rd_atomic = HROCE_QPC_GET(ctx, MAX_RD_ATOMIC);
	attr->max_dest_rd_atomic = HROCE_QPC_GET(ctx, MAX_DEST_RD_ATOMIC);
	attr->cap = qp->cap;
	return 0;
}

/* The send WQE of a request into slot; its bytes in use (at most the stride). */
static int build_send_wqe(struct hroce_qp *qp, const struct hroce_send_req *req, uint8_t *wqe,
			  uint16_t index, unsigned int *used)
{
	unsigned int flags = 0, stride = 64u << qp->sq.log_stride;
	bool inl = (req->send_flags & HROCE_SEND_INLINE) && req->opcode != HROCE_WR_RDMA_READ;
	uint64_t length = 0;

	/* the SGE count first: the list is read only as far as a WQE can take it */
	if (req->opcode > HROCE_WR_RDMA_READ || req->num_sge < 0 ||
	    (!inl && (unsigned int)req->num_sge > qp->cap.max_send_sge))
		return EINVAL;
	for (int i = 0; i < req->num_sge && length <= UINT32_C(1) << 31; i++)
		length += req->sg_list[i].length;
	if (length > UINT32_C(1) << 31)
		return EINVAL;
	if ((req->send_flags & HROCE_SEND_SIGNALED) || qp->sq_sig_all)
		flags |= HROCE_WR_SIGNALED;
	if (req->send_flags & HROCE_SEND_SOLICITED)
		flags |= HROCE_WR_SOLICITED;
	if (req->send_flags & HROCE_SEND_FENCE)
		flags |= HROCE_WR_FENCE;
	if (inl && length > qp->cap.max_inline_data)
		return EINVAL;
	memset(wqe, 0, stride);
	if (inl) {
		uint8_t *p = wqe + SQ_HDR_BYTES;

		flags |= HROCE_WR_INLINE;
		for (int i = 0; i < req->num_sge; i++) {
			memcpy(p, (const void *)(uintptr_t)req->sg_list[i].addr,
			       req->sg_list[i].length);
			p += req->sg_list[i].length;
		}
		*used = SQ_HDR_BYTES + (unsigned int)length;
	} else {
		for (int i = 0; i < req->num_sge; i++) {
			uint8_t *sge = wqe + SQ_HDR_BYTES + HROCE_SGE_BYTES * i;

			HROCE_SGE_SET(sge, ADDR, req->sg_list[i].addr);
			HROCE_SGE_SET(sge, LENGTH, req->sg_list[i].length);
			HROCE_SGE_SET(sge, LKEY, req->sg_list[i].lkey);
		}
		HROCE_SQ_WQE_SET(wqe, NUM_SGE, req->num_sge);
		*used = SQ_HDR_BYTES + HROCE_SGE_BYTES * req->num_sge;
	}
	/* the core's WR_OPCODE numbering is libibverbs' for these five */
	HROCE_SQ_WQE_SET(wqe, OPCODE, req->opcode);
	HROCE_SQ_WQE_SET(wqe, FLAGS, flags);
	HROCE_SQ_WQE_SET(wqe, LENGTH, length);
	HROCE_SQ_WQE_SET(wqe, IMM, be32toh(req->imm_data));
	HROCE_SQ_WQE_SET(wqe, QPN, qp->qpn);
	HROCE_SQ_WQE_SET(wqe, RADDR, req->remote_addr);
	HROCE_SQ_WQE_SET(wqe, RKEY, req->rkey);
	HROCE_SQ_WQE_SET(wqe, DB_INDEX, (uint16_t)(index + 1));
	return 0;
}

int hroce_sq_build(struct hroce_qp *qp, uint64_t wr_id, const struct hroce_send_req *req)
{
	enum hroce_qp_state state = qp->state;
	uint16_t index = qp->sq.pi;
	unsigned int used;
	int err;

	if (state != HROCE_QPS_RTS && state != HROCE_QPS_SQD && state != HROCE_QPS_ERR)
		return EINVAL;
	if (!wq_room(&qp->sq))
		return ENOMEM;
	err = build_send_wqe(qp, req, wq_slot(&qp->sq, index), index, &used);
	if (err)
		return err;
	qp->sq.wr_id[index & ((1u << qp->sq.log_size) - 1)] = wr_id;
	qp->sq.last_used = used;
	qp->sq.pi = (uint16_t)(index + 1);
	return 0;
}

void hroce_sq_ring(struct hroce_qp *qp)
{
	struct hroce_bus *bus = qp->dev->bus;
	uint16_t pi = qp->sq.pi;

	if (pi == qp->sq.rung)
		return;
	qp->sq.rung = pi;
	if (qp->sq.last_used > HROCE_DB_PUSH_BYTES || !bus->db_size) {
		hroce_doorbell(qp->dev, HROCE_REG_DB_SQ, qp->qpn, pi);
		return;
	}
	/* the WQEs before it are in memory before the core learns of them */
	atomic_thread_fence(memory_order_release);
	bus->ops->mmio_write_wc(bus, (uint64_t)(qp->qpn % HROCE_DB_SLOTS) * HROCE_DB_PUSH_BYTES,
				wq_slot(&qp->sq, (uint16_t)(pi - 1)), HROCE_DB_PUSH_BYTES);
}

int hroce_post_send(struct hroce_qp *qp, struct hroce_send_wr *wr, struct hroce_send_wr **bad)
{
	int err = 0;

	for (; wr; wr = wr->next) {
		const struct hroce_send_req req = {
			.opcode = wr->opcode,
			.send_flags = wr->send_flags,
			.sg_list = wr->sg_list,
			.num_sge = wr->num_sge,
			.imm_data = wr->imm_data,
			.remote_addr = wr->remote_addr,
			.rkey = wr->rkey,
		};

		err = hroce_sq_build(qp, wr->wr_id, &req);
		if (err) {
			*bad = wr;
			break;
		}
	}
	hroce_sq_ring(qp);
	return err;
}

int hroce_post_recv(struct hroce_qp *qp, struct hroce_recv_wr *wr, struct hroce_recv_wr **bad)
{
	bool posted = false;
	int err = 0;

	if (qp->state == HROCE_QPS_RESET) {
		*bad = wr;
		return EINVAL;
	}
	for (; wr; wr = wr->next) {
		uint8_t *wqe = wq_slot(&qp->rq, qp->rq.pi);

		if (!wq_room(&qp->rq)) {
			err = ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || (unsigned int)wr->num_sge > qp->cap.max_recv_sge) {
			err = EINVAL;
			break;
		}
		memset(wqe, 0, 64u << qp->rq.log_stride);
		HROCE_RQ_WQE_SET(wqe, NUM_SGE, wr->num_sge);
		for (int i = 0; i < wr->num_sge; i++) {
			uint8_t *sge = wqe + RQ_HDR_BYTES + HROCE_SGE_BYTES * i;

			HROCE_SGE_SET(sge, ADDR, wr->sg_list[i].addr);
			HROCE_SGE_SET(sge, LENGTH, wr->sg_list[i].length);
			HROCE_SGE_SET(sge, LKEY, wr->sg_list[i].lkey);
		}
		qp->rq.wr_id[qp->rq.pi & ((1u << qp->rq.log_size) - 1)] = wr->wr_id;
		qp->rq.pi++;
		posted = true;
	}
	if (err)
		*bad = wr;
	if (posted)
		hroce_doorbell(qp->dev, HROCE_REG_DB_RQ, qp->qpn, qp->rq.pi);
	return err;
}
