// SPDX-License-Identifier: MIT
/*
 * The verbs: protection domains, memory regions, completion queues (with events), RC
 * queue pairs, posting and polling, each a thin layer over libhroce, whose API uses
 * libibverbs' numbering for states, access flags, opcodes and statuses.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hroce_verbs.h"

/* Work requests go to libhroce in batches of this many. */
#define POST_BATCH 16

static_assert(sizeof(struct ibv_sge) == sizeof(struct hroce_sge) &&
		      offsetof(struct ibv_sge, lkey) == offsetof(struct hroce_sge, lkey),
	      "an ibv_sge is a hroce_sge");
static_assert((int)IBV_WR_RDMA_WRITE == (int)HROCE_WR_RDMA_WRITE &&
		      (int)IBV_WR_SEND == (int)HROCE_WR_SEND &&
		      (int)IBV_WR_RDMA_WRITE_WITH_IMM == (int)HROCE_WR_RDMA_WRITE_WITH_IMM &&
		      (int)IBV_WR_SEND_WITH_IMM == (int)HROCE_WR_SEND_WITH_IMM &&
		      (int)IBV_WR_RDMA_READ == (int)HROCE_WR_RDMA_READ,
	      "work request opcodes are libibverbs'");
static_assert((int)IBV_SEND_FENCE == (int)HROCE_SEND_FENCE &&
		      (int)IBV_SEND_SIGNALED == (int)HROCE_SEND_SIGNALED &&
		      (int)IBV_SEND_SOLICITED == (int)HROCE_SEND_SOLICITED &&
		      (int)IBV_SEND_INLINE == (int)HROCE_SEND_INLINE,
	      "send flags are libibverbs'");
static_assert(IBV_WC_RNR_RETRY_EXC_ERR == (int)HROCE_WC_RNR_RETRY_EXC_ERR &&
		      IBV_WC_RECV_RDMA_WITH_IMM == (int)HROCE_WC_RECV_RDMA_WITH_IMM,
	      "completion statuses and opcodes are libibverbs'");
static_assert(IBV_QPS_ERR == (int)HROCE_QPS_ERR && IBV_MTU_4096 == (int)HROCE_MTU_4096 &&
		      IBV_QP_DEST_QPN == (int)HROCE_QP_DEST_QPN &&
		      IBV_QP_EN_SQD_ASYNC_NOTIFY == (int)HROCE_QP_EN_SQD_ASYNC_NOTIFY &&
		      IBV_QP_QKEY == (int)HROCE_QP_QKEY &&
		      IBV_QP_ALT_PATH == (int)HROCE_QP_ALT_PATH &&
		      IBV_QP_PATH_MIG_STATE == (int)HROCE_QP_PATH_MIG_STATE &&
		      IBV_QP_CAP == (int)HROCE_QP_CAP &&
		      IBV_ACCESS_REMOTE_ATOMIC == (int)HROCE_ACCESS_REMOTE_ATOMIC,
	      "QP states, MTUs, attribute bits and access bits are libibverbs'");

static struct hroce_vctx *ctx_of(struct ibv_context *c)
{
	return to_hctx(c);
}

/* ---------------------------------------------------------------------------------------
 * Protection domains and memory regions
 */

static struct ibv_pd *alloc_pd(struct ibv_context *context)
{
	struct hroce_vctx *ctx = ctx_of(context);
	struct hroce_vpd *vpd = calloc(1, sizeof(*vpd));

	if (!vpd)
		return NULL;
	pthread_mutex_lock(&ctx->lock);
	vpd->pd = hroce_alloc_pd(ctx->dev);
	pthread_mutex_unlock(&ctx->lock);
	if (!vpd->pd) {
		free(vpd);
		return NULL;
	}
	vpd->ibv_pd.handle = hroce_pd_num(vpd->pd);
	return &vpd->ibv_pd;
}

static int dealloc_pd(struct ibv_pd *pd)
{
	struct hroce_vctx *ctx = ctx_of(pd->context);
	struct hroce_vpd *vpd = to_hpd(pd);
	int err;

	pthread_mutex_lock(&ctx->lock);
	err = hroce_dealloc_pd(vpd->pd);
	pthread_mutex_unlock(&ctx->lock);
	if (!err)
		free(vpd);
	return err;
}

#define ACCESS_SUPPORTED                                                             \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
	 IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_HUGETLB)

static struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t length, uint64_t hca_va,
			     int access)
{
	struct hroce_vctx *ctx = ctx_of(pd->context);
	unsigned int hw = access & (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	struct hroce_vmr *vmr;

	/* the optional range (relaxed ordering...) are hints a device may ignore */
	access &= ~IBV_ACCESS_OPTIONAL_RANGE;
	if (access & ~ACCESS_SUPPORTED) {
		hroce_verbs_log(HROCE_LOG_INFO, "reg_mr: access flags 0x%x not supported",
				access & ~ACCESS_SUPPORTED);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (hca_va != (uintptr_t)addr) {
		/* the core translates the process's own addresses */
		hroce_verbs_log(HROCE_LOG_INFO, "reg_mr: an IOVA other than the address");
		errno = EOPNOTSUPP;
		return NULL;
	}
	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	pthread_mutex_lock(&ctx->lock);
	vmr->mr = hroce_reg_mr(to_hpd(pd)->pd, addr, length, hw, 0);
	pthread_mutex_unlock(&ctx->lock);
	if (!vmr->mr) {
		free(vmr);
		return NULL;
	}
	vmr->vmr.mr_type = VERBS_MR_TYPE_MR;
	vmr->vmr.access = access;
	vmr->vmr.ibv_mr.lkey = hroce_mr_lkey(vmr->mr);
	vmr->vmr.ibv_mr.rkey = hroce_mr_rkey(vmr->mr);
	vmr->vmr.ibv_mr.handle = vmr->vmr.ibv_mr.lkey;
	// cppcheck-suppress memleak ; freed by dereg_mr through container_of
	return &vmr->vmr.ibv_mr;
}

static int dereg_mr(struct verbs_mr *v)
{
	struct hroce_vmr *vmr = container_of(v, struct hroce_vmr, vmr);
	struct hroce_vctx *ctx = ctx_of(v->ibv_mr.context);
	int err;

	pthread_mutex_lock(&ctx->lock);
	err = hroce_dereg_mr(vmr->mr);
	pthread_mutex_unlock(&ctx->lock);
	if (!err)
		free(vmr);
	return err;
}

/* ---------------------------------------------------------------------------------------
 * Completion queues and their events
 */

static void unlist_cq(struct hroce_vevents *ev, struct hroce_vcq *vcq)
{
	pthread_mutex_lock(&ev->lock);
	for (struct hroce_vcq **p = &ev->cqs; *p; p = &(*p)->next_event) {
		if (*p == vcq) {
			*p = vcq->next_event;
			break;
		}
	}
	for (struct hroce_vcq **p = &ev->all_cqs; *p; p = &(*p)->next_cq) {
		if (*p == vcq) {
			*p = vcq->next_cq;
			break;
		}
	}
	pthread_mutex_unlock(&ev->lock);
}

static void set_armed(struct hroce_vevents *ev, struct hroce_vcq *vcq, bool armed)
{
	pthread_mutex_lock(&ev->lock);
	vcq->armed = armed;
	pthread_mutex_unlock(&ev->lock);
}

static struct ibv_cq *create_cq(struct ibv_context *context, int cqe,
				struct ibv_comp_channel *channel, int comp_vector)
{
	struct hroce_vctx *ctx = ctx_of(context);
	struct hroce_vevents *ev = &to_hdev(context->device)->events;
	struct hroce_vcq *vcq;
	int err;

	if (cqe <= 0 || comp_vector < 0 || comp_vector >= context->num_comp_vectors) {
		errno = EINVAL;
		return NULL;
	}
	if (channel && hroce_channel_write_fd(channel) < 0) {
		hroce_verbs_log(HROCE_LOG_ERR, "create_cq: the completion channel is not one "
					       "of a HardRoCE device");
		errno = EINVAL;
		return NULL;
	}
	vcq = calloc(1, sizeof(*vcq));
	if (!vcq)
		return NULL;
	pthread_mutex_init(&vcq->lock, NULL);
	/* a vector per CQ of the device (the core has 64): an interrupt tells which CQ */
	pthread_mutex_lock(&ev->lock);
	vcq->vector = ev->next_vector++ % HROCE_MAX_CQ_VECTORS;
	pthread_mutex_unlock(&ev->lock);
	pthread_mutex_lock(&ctx->lock);
	vcq->cq = hroce_create_cq(ctx->dev, cqe, vcq->vector);
	err = vcq->cq ? 0 : errno;
	pthread_mutex_unlock(&ctx->lock);
	if (!err) {
		pthread_mutex_lock(&ev->lock);
		vcq->next_cq = ev->all_cqs;
		ev->all_cqs = vcq;
		if (channel) {
			vcq->next_event = ev->cqs;
			ev->cqs = vcq;
		}
		pthread_mutex_unlock(&ev->lock);
	}
	if (err)
		goto err_free;
	if (channel) {
		err = hroce_verbs_start_events(ctx);
		if (err)
			goto err_destroy;
	}
	vcq->vcq.cq.cqe = hroce_cq_size(vcq->cq);
	return &vcq->vcq.cq;

err_destroy:
	unlist_cq(ev, vcq);
	pthread_mutex_lock(&ctx->lock);
	hroce_destroy_cq(vcq->cq);
	pthread_mutex_unlock(&ctx->lock);
err_free:
	pthread_mutex_destroy(&vcq->lock);
	free(vcq);
	errno = err;
	return NULL;
}

static int destroy_cq(struct ibv_cq *cq)
{
	struct hroce_vctx *ctx = ctx_of(cq->context);
	struct hroce_vcq *vcq = to_hcq(cq);
	int err;

	pthread_mutex_lock(&ctx->lock);
	err = hroce_destroy_cq(vcq->cq);
	pthread_mutex_unlock(&ctx->lock);
	if (!err) {
		unlist_cq(&to_hdev(cq->context->device)->events, vcq);
		pthread_mutex_destroy(&vcq->lock);
		free(vcq);
	}
	return err;
}

static int poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	struct hroce_vctx *ctx = ctx_of(cq->context);
	struct hroce_wc hw[POST_BATCH];
	int n, total = 0;

	if (num_entries < 0)
		return -EINVAL;
	pthread_mutex_lock(&to_hcq(cq)->lock);
	while (total < num_entries) {
		int want = num_entries - total < POST_BATCH ? num_entries - total : POST_BATCH;

		n = hroce_poll_cq(to_hcq(cq)->cq, want, hw);
		if (n < 0) {
			if (!total)
				total = -1;
			break;
		}
		for (int i = 0; i < n; i++) {
			struct ibv_wc *w = &wc[total + i];

			memset(w, 0, sizeof(*w));
			w->wr_id = hw[i].wr_id;
			w->status = (enum ibv_wc_status)hw[i].status;
			w->opcode = (enum ibv_wc_opcode)hw[i].opcode;
			w->byte_len = hw[i].byte_len;
			w->qp_num = hw[i].qp_num;
			if (hw[i].wc_flags & HROCE_WC_WITH_IMM) {
				w->wc_flags |= IBV_WC_WITH_IMM;
				w->imm_data = hw[i].imm_data;
			}
		}
		total += n;
		if (n < want)
			break;
	}
	pthread_mutex_unlock(&to_hcq(cq)->lock);
	/*
	 * found nothing: let the device move (a simulated NIC advances a little), without
	 * the lock, which the event thread and other pollers need meanwhile
	 */
	if (!total)
		hroce_idle(ctx->dev);
	return total;
}

static int req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	struct hroce_vcq *vcq = to_hcq(cq);
	int err;

	pthread_mutex_lock(&vcq->lock);
	set_armed(&to_hdev(cq->context->device)->events, vcq, true);
	err = hroce_req_notify_cq(vcq->cq, solicited_only);
	pthread_mutex_unlock(&vcq->lock);
	return err;
}

static void cq_event(struct ibv_cq *cq)
{
	(void)cq; /* libibverbs counts the events itself */
}

/* What ibv_get_async_event() reads from async_fd (the kernel's ib_uverbs_async_event_desc). */
struct async_record {
	uint64_t element; /* the ibv_cq (or ibv_qp...) the event is about */
	uint32_t event_type;
	uint32_t reserved;
};

/*
 * The device's async events into the async_fd of the context of the CQ each names. Taking
 * one may move QPs to ERR (an overrun CQ's), of any context of the device: every context's
 * lock is held meanwhile, taken in the list's order after contexts_lock.
 */
static void async_events(struct hroce_vevents *ev)
{
	struct hroce_async_event ae;

	pthread_mutex_lock(&ev->contexts_lock);
	for (struct hroce_vctx *x = ev->contexts; x; x = x->next)
		pthread_mutex_lock(&x->lock);
	while (hroce_get_async_event(ev->dev, &ae) == 1) {
		struct async_record rec = { 0 };
		struct hroce_vcq *c;
		int fd = -1;

		pthread_mutex_lock(&ev->lock);
		for (c = ev->all_cqs; c && c->cq != ae.cq; c = c->next_cq)
			;
		if (c && ae.type == HROCE_ASYNC_CQ_ERR) {
			rec.element = (uintptr_t)&c->vcq.cq;
			rec.event_type = IBV_EVENT_CQ_ERR;
			fd = ctx_of(c->vcq.cq.context)->async_pipe[1];
		}
		pthread_mutex_unlock(&ev->lock);
		if (fd < 0)
			continue;
		/* nobody reading async events must not stop this thread: a full pipe drops */
		if (write(fd, &rec, sizeof(rec)) != sizeof(rec))
			hroce_verbs_log(HROCE_LOG_ERR, "async event CQ_ERR lost: %s",
					strerror(errno));
	}
	for (struct hroce_vctx *x = ev->contexts; x; x = x->next)
		pthread_mutex_unlock(&x->lock);
	pthread_mutex_unlock(&ev->contexts_lock);
}

/*
 * The event thread of a device: waits for its interrupts; for the async vector, turns the
 * device's events into records on the async_fd of the context of the CQ they name; for
 * the others, writes one record per armed CQ of the vectors that fired, whichever context
 * the CQ is of, into the CQ's completion channel, the record ibv_get_cq_event() reads
 * (struct ib_uverbs_comp_event_desc: the CQ's handle).
 */
static void *event_thread(void *arg)
{
	struct hroce_vevents *ev = arg;
	struct pollfd fds[2];

	fds[0].fd = hroce_irq_fd(ev->dev);
	fds[0].events = POLLIN;
	fds[1].fd = ev->stop_pipe[0];
	fds[1].events = POLLIN;
	for (;;) {
		uint64_t irqs;

		/* in lockstep, at the boundaries of the simulated clock (hroce.h) */
		if (!hroce_wait_poll(fds, 2) && poll(fds, 2, -1) < 0 && errno != EINTR)
			break;
		if (fds[1].revents)
			break;
		if (!(fds[0].revents & POLLIN))
			continue;
		pthread_mutex_lock(&ev->lock);
		irqs = hroce_take_irqs(ev->dev);
		for (struct hroce_vcq *c = ev->cqs; c; c = c->next_event) {
			uint64_t handle = (uintptr_t)&c->vcq.cq;
			int fd = hroce_channel_write_fd(c->vcq.cq.channel);

			if (!(irqs >> c->vector & 1) || !c->armed || fd < 0)
				continue;
			c->armed = false;
			if (write(fd, &handle, sizeof(handle)) != sizeof(handle))
				hroce_verbs_log(HROCE_LOG_ERR, "completion channel: %s",
						strerror(errno));
		}
		pthread_mutex_unlock(&ev->lock);
		if (irqs >> HROCE_ASYNC_VECTOR & 1)
			async_events(ev);
	}
	return NULL;
}

int hroce_verbs_start_events(struct hroce_vctx *ctx)
{
	struct hroce_vevents *ev = &to_hdev(ctx->vctx.context.device)->events;
	int err = 0;

	pthread_mutex_lock(&ev->lock);
	if (ev->running)
		goto out;
	if (hroce_irq_fd(ctx->dev) < 0) {
		err = EOPNOTSUPP;
		goto out;
	}
	if (pipe2(ev->stop_pipe, O_CLOEXEC)) {
		err = errno;
		goto out;
	}
	ev->dev = ctx->dev; /* every context of the device has the same */
	err = pthread_create(&ev->thread, NULL, event_thread, ev);
	if (err) {
		close(ev->stop_pipe[0]);
		close(ev->stop_pipe[1]);
		goto out;
	}
	ev->running = true;
out:
	pthread_mutex_unlock(&ev->lock);
	return err;
}

void hroce_verbs_stop_events(struct hroce_vdev *hd)
{
	struct hroce_vevents *ev = &hd->events;

	if (!ev->running)
		return;
	if (write(ev->stop_pipe[1], "", 1) != 1)
		return;
	pthread_join(ev->thread, NULL);
	close(ev->stop_pipe[0]);
	close(ev->stop_pipe[1]);
	ev->running = false;
	ev->dev = NULL;
}

/* ---------------------------------------------------------------------------------------
 * Queue pairs
 */

/*
 * What create_qp must refuse before libhroce sees it: sizes above what query_device
 * reports, and CQs of another context (their completions would land in another device's
 * ring, or in none).
 */
static int check_qp_init_attr(struct ibv_pd *pd, const struct ibv_qp_init_attr *attr)
{
	struct hroce_vctx *ctx = ctx_of(pd->context);
	const struct ibv_qp_cap *cap = &attr->cap;
	struct hroce_dev_attr da;
	const char *bad = NULL;
	int err;

	if (!attr->send_cq || !attr->recv_cq)
		bad = "a send and a receive CQ are needed";
	else if (attr->send_cq->context != pd->context || attr->recv_cq->context != pd->context)
		bad = "a CQ of another device context than the PD's";
	if (bad)
		goto invalid;
	pthread_mutex_lock(&ctx->lock);
	err = hroce_query_dev(ctx->dev, &da);
	pthread_mutex_unlock(&ctx->lock);
	if (err)
		return err;
	if (cap->max_send_wr > da.max_qp_wr || cap->max_recv_wr > da.max_qp_wr)
		bad = "max_send_wr or max_recv_wr above the device's max_qp_wr";
	else if (cap->max_send_sge > da.max_sge || cap->max_recv_sge > da.max_sge)
		bad = "max_send_sge or max_recv_sge above the device's max_sge";
	else if (cap->max_inline_data > da.max_inline)
		bad = "max_inline_data above what the device inlines";
	if (!bad)
		return 0;
invalid:
	hroce_verbs_log(HROCE_LOG_INFO, "create_qp: %s", bad);
	return EINVAL;
}

static struct ibv_qp *create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct hroce_vctx *ctx = ctx_of(pd->context);
	struct hroce_qp_init_attr ia = { 0 };
	struct hroce_qp_attr qa;
	struct hroce_vqp *vqp;
	struct ibv_qp *qp;
	int err;

	if (attr->qp_type != IBV_QPT_RC) {
		hroce_verbs_log(HROCE_LOG_ERR, "create_qp: only RC QPs (type %d asked)",
				attr->qp_type);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->srq) {
		hroce_verbs_log(HROCE_LOG_ERR, "create_qp: no shared receive queues");
		errno = EOPNOTSUPP;
		return NULL;
	}
	err = check_qp_init_attr(pd, attr);
	if (err) {
		errno = err;
		return NULL;
	}
	vqp = calloc(1, sizeof(*vqp));
	if (!vqp)
		return NULL;
	ia.send_cq = to_hcq(attr->send_cq)->cq;
	ia.recv_cq = to_hcq(attr->recv_cq)->cq;
	ia.cap.max_send_wr = attr->cap.max_send_wr;
	ia.cap.max_recv_wr = attr->cap.max_recv_wr;
	ia.cap.max_send_sge = attr->cap.max_send_sge;
	ia.cap.max_recv_sge = attr->cap.max_recv_sge;
	ia.cap.max_inline_data = attr->cap.max_inline_data;
	ia.sq_sig_all = attr->sq_sig_all;
	pthread_mutex_lock(&ctx->lock);
	vqp->qp = hroce_create_qp(to_hpd(pd)->pd, &ia);
	if (vqp->qp)
		hroce_query_qp(vqp->qp, &qa);
	pthread_mutex_unlock(&ctx->lock);
	if (!vqp->qp) {
		free(vqp);
		return NULL;
	}
	/* what the QP got */
	attr->cap.max_send_wr = qa.cap.max_send_wr;
	attr->cap.max_recv_wr = qa.cap.max_recv_wr;
	attr->cap.max_send_sge = qa.cap.max_send_sge;
	attr->cap.max_recv_sge = qa.cap.max_recv_sge;
	attr->cap.max_inline_data = qa.cap.max_inline_data;
	qp = &vqp->vqp.qp;
	qp->context = pd->context;
	qp->qp_context = attr->qp_context;
	qp->pd = pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = NULL;
	qp->handle = hroce_qp_num(vqp->qp);
	qp->qp_num = hroce_qp_num(vqp->qp);
	qp->state = IBV_QPS_RESET;
	qp->qp_type = IBV_QPT_RC;
	qp->events_completed = 0;
	pthread_mutex_init(&vqp->sq_lock, NULL);
	pthread_mutex_init(&vqp->rq_lock, NULL);
	pthread_mutex_init(&qp->mutex, NULL);
	pthread_cond_init(&qp->cond, NULL);
	return qp;
}

static int destroy_qp(struct ibv_qp *qp)
{
	struct hroce_vctx *ctx = ctx_of(qp->context);
	struct hroce_vqp *vqp = to_hqp(qp);
	int err;

	/* no poll of its CQs may look the QP up while it goes, nor their rings while cleaned */
	pthread_mutex_lock(&ctx->lock);
	pthread_mutex_lock(&to_hcq(qp->send_cq)->lock);
	if (qp->recv_cq != qp->send_cq)
		pthread_mutex_lock(&to_hcq(qp->recv_cq)->lock);
	err = hroce_destroy_qp(vqp->qp);
	if (qp->recv_cq != qp->send_cq)
		pthread_mutex_unlock(&to_hcq(qp->recv_cq)->lock);
	pthread_mutex_unlock(&to_hcq(qp->send_cq)->lock);
	pthread_mutex_unlock(&ctx->lock);
	if (err)
		return err;
	pthread_mutex_destroy(&vqp->sq_lock);
	pthread_mutex_destroy(&vqp->rq_lock);
	pthread_cond_destroy(&qp->cond);
	pthread_mutex_destroy(&qp->mutex);
	free(vqp);
	return 0;
}

/*
 * The path of a RoCE QP: the GRH's destination GID (an IPv6 address, or ::ffff:a.b.c.d
 * for IPv4) and source GID index; libhroce checks that both are of one family. The MAC is
 * left zero: hroce_modify_qp finds it by ARP or neighbour discovery, as the kernel does.
 */
static int address_of(const struct ibv_ah_attr *ah, struct hroce_ah_attr *out)
{
	if (!ah->is_global) {
		hroce_verbs_log(HROCE_LOG_ERR, "modify_qp: a RoCE path needs a GRH (is_global) "
					       "with the peer's GID");
		return EINVAL;
	}
	memset(out, 0, sizeof(*out));
	memcpy(out->dgid, ah->grh.dgid.raw, 16);
	out->sgid_index = ah->grh.sgid_index;
	out->flow_label = ah->grh.flow_label;
	out->hop_limit = ah->grh.hop_limit;
	out->traffic_class = ah->grh.traffic_class;
	return 0;
}

/* The attribute bits libibverbs defines that a modify of an RC QP may carry at all. */
#define QP_MASK_KNOWN                                                                         \
	(IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY | IBV_QP_ACCESS_FLAGS | \
	 IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY | IBV_QP_AV | IBV_QP_PATH_MTU |        \
	 IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_RQ_PSN |               \
	 IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_ALT_PATH | IBV_QP_MIN_RNR_TIMER | IBV_QP_SQ_PSN |   \
	 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_PATH_MIG_STATE | IBV_QP_CAP | IBV_QP_DEST_QPN)

/*
 * The transition's rules and every value's range are libhroce's one table
 * (hroce_qp_check_modify, run by hroce_modify_qp before anything reaches the core); here
 * only what libhroce cannot see: bits outside its numbering, and the verbs address.
 */
static int modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	struct hroce_vctx *ctx = ctx_of(qp->context);
	struct hroce_qp_attr qa;
	const char *why;
	int err, av_err;

	if ((unsigned int)mask & ~(unsigned int)QP_MASK_KNOWN) {
		hroce_verbs_log(HROCE_LOG_INFO, "modify_qp: unknown attribute bits 0x%x",
				(unsigned int)mask & ~(unsigned int)QP_MASK_KNOWN);
		return EINVAL;
	}
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = (enum hroce_qp_state)attr->qp_state;
	qa.cur_qp_state = (enum hroce_qp_state)attr->cur_qp_state;
	qa.path_mtu = (enum hroce_mtu)attr->path_mtu;
	qa.qp_access_flags = attr->qp_access_flags;
	qa.pkey_index = attr->pkey_index;
	qa.port_num = attr->port_num;
	qa.dest_qp_num = attr->dest_qp_num;
	qa.rq_psn = attr->rq_psn;
	qa.sq_psn = attr->sq_psn;
	qa.timeout = attr->timeout;
	qa.retry_cnt = attr->retry_cnt;
	qa.rnr_retry = attr->rnr_retry;
	qa.min_rnr_timer = attr->min_rnr_timer;
	qa.max_rd_atomic = attr->max_rd_atomic;
	qa.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	pthread_mutex_lock(&ctx->lock);
	/* the table first: an AV the transition does not allow is refused as such */
	av_err = (mask & IBV_QP_AV) ? address_of(&attr->ah_attr, &qa.ah_attr) : 0;
	err = hroce_qp_check_modify(ctx->dev, (enum hroce_qp_state)qp->state, &qa,
				    av_err ? mask & ~IBV_QP_AV : mask, &why);
	if (err)
		/* a path that cannot be used is said; other bad values are the caller's */
		hroce_verbs_log(why && !strncmp(why, "ah_attr", 7) ? HROCE_LOG_ERR : HROCE_LOG_INFO,
				"modify_qp: %s", why ? why : strerror(err));
	err = err ?: av_err;
	if (!err)
		err = hroce_modify_qp(to_hqp(qp)->qp, &qa, mask);
	pthread_mutex_unlock(&ctx->lock);
	return err;
}

static int query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		    struct ibv_qp_init_attr *init_attr)
{
	struct hroce_vctx *ctx = ctx_of(qp->context);
	struct hroce_qp_attr qa;
	int err;

	(void)mask; /* everything is filled in */
	pthread_mutex_lock(&ctx->lock);
	err = hroce_query_qp(to_hqp(qp)->qp, &qa);
	pthread_mutex_unlock(&ctx->lock);
	if (err)
		return err;
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = (enum ibv_qp_state)qa.qp_state;
	attr->cur_qp_state = (enum ibv_qp_state)qa.qp_state;
	attr->path_mtu = (enum ibv_mtu)qa.path_mtu;
	attr->path_mig_state = IBV_MIG_MIGRATED;
	attr->qp_access_flags = qa.qp_access_flags;
	attr->dest_qp_num = qa.dest_qp_num;
	attr->rq_psn = qa.rq_psn;
	attr->sq_psn = qa.sq_psn;
	attr->timeout = qa.timeout;
	attr->retry_cnt = qa.retry_cnt;
	attr->rnr_retry = qa.rnr_retry;
	attr->min_rnr_timer = qa.min_rnr_timer;
	attr->max_rd_atomic = qa.max_rd_atomic;
	attr->max_dest_rd_atomic = qa.max_dest_rd_atomic;
	attr->port_num = 1;
	attr->ah_attr.is_global = 1;
	attr->ah_attr.port_num = 1;
	attr->ah_attr.grh.sgid_index = qa.ah_attr.sgid_index;
	attr->ah_attr.grh.flow_label = qa.ah_attr.flow_label;
	attr->ah_attr.grh.hop_limit = qa.ah_attr.hop_limit;
	attr->ah_attr.grh.traffic_class = qa.ah_attr.traffic_class;
	memcpy(attr->ah_attr.grh.dgid.raw, qa.ah_attr.dgid, 16);
	attr->cap.max_send_wr = qa.cap.max_send_wr;
	attr->cap.max_recv_wr = qa.cap.max_recv_wr;
	attr->cap.max_send_sge = qa.cap.max_send_sge;
	attr->cap.max_recv_sge = qa.cap.max_recv_sge;
	attr->cap.max_inline_data = qa.cap.max_inline_data;
	if (init_attr) {
		memset(init_attr, 0, sizeof(*init_attr));
		init_attr->qp_context = qp->qp_context;
		init_attr->send_cq = qp->send_cq;
		init_attr->recv_cq = qp->recv_cq;
		init_attr->qp_type = IBV_QPT_RC;
		init_attr->cap = attr->cap;
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------
 * Posting
 */

/*
 * Each request's WQE is built straight into its ring slot under the QP's own send lock
 * (no lock of the context: threads posting to different QPs do not meet), and the chain
 * rings the core once, after its last WQE (or before the first bad one: those before it
 * are posted, as ibv_post_send says).
 */
static int post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	struct hroce_vqp *vqp = to_hqp(qp);
	int err = 0;

	pthread_mutex_lock(&vqp->sq_lock);
	for (; wr; wr = wr->next) {
		struct hroce_send_req req = {
			.opcode = (enum hroce_wr_opcode)wr->opcode,
			.send_flags = wr->send_flags,
			.sg_list = (const struct hroce_sge *)wr->sg_list,
			.num_sge = wr->num_sge,
			.imm_data = wr->imm_data,
			.remote_addr = wr->wr.rdma.remote_addr,
			.rkey = wr->wr.rdma.rkey,
		};

		if (wr->opcode > IBV_WR_RDMA_READ ||
		    (wr->send_flags &
		     ~(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_INLINE)))
			err = EINVAL;
		else
			err = hroce_sq_build(vqp->qp, wr->wr_id, &req);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	hroce_sq_ring(vqp->qp);
	pthread_mutex_unlock(&vqp->sq_lock);
	return err;
}

static int post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	struct hroce_vqp *vqp = to_hqp(qp);
	struct hroce_recv_wr hw[POST_BATCH], *hbad;
	struct ibv_recv_wr *first = wr;
	int err = 0;

	pthread_mutex_lock(&vqp->rq_lock);
	while (wr && !err) {
		int n = 0;

		first = wr;
		for (; wr && n < POST_BATCH; wr = wr->next, n++) {
			if (wr->num_sge < 0) {
				err = EINVAL;
				break;
			}
			hw[n] = (struct hroce_recv_wr){
				.wr_id = wr->wr_id,
				.next = NULL,
				.sg_list = (struct hroce_sge *)wr->sg_list,
				.num_sge = wr->num_sge,
			};
			if (n)
				hw[n - 1].next = &hw[n];
		}
		if (n) {
			int perr = hroce_post_recv(vqp->qp, hw, &hbad);

			if (perr) {
				for (struct hroce_recv_wr *h = hw; h != hbad; h = h->next)
					first = first->next;
				wr = first;
				err = perr;
				break;
			}
		}
		if (err)
			first = wr;
	}
	pthread_mutex_unlock(&vqp->rq_lock);
	if (err)
		*bad_wr = first;
	return err;
}

const struct verbs_context_ops hroce_ctx_ops = {
	.alloc_pd = alloc_pd,
	.async_event = hroce_async_event,
	.cq_event = cq_event,
	.create_cq = create_cq,
	.create_qp = create_qp,
	.dealloc_pd = dealloc_pd,
	.dereg_mr = dereg_mr,
	.destroy_cq = destroy_cq,
	.destroy_qp = destroy_qp,
	.free_context = hroce_free_context,
	.modify_qp = modify_qp,
	.poll_cq = poll_cq,
	.post_recv = post_recv,
	.post_send = post_send,
	.query_device_ex = hroce_query_device_ex,
	.query_port = hroce_query_port,
	.query_qp = query_qp,
	.reg_mr = reg_mr,
	.req_notify_cq = req_notify_cq,
};
