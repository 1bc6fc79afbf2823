// SPDX-License-Identifier: MIT
/* Two devices, connected RC QPs and a data check, through the real libibverbs API. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "verbs_pair.h"

#define GUARD 64
#define GUARD_BYTE 0xa5
#define MAX_WRITE 65536u
#define COMPLETION_MS 20000

struct vp_results vp_results;

bool vp_result(const char *name, bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("ok %s\n", name);
		vp_results.passed++;
	} else {
		printf("not ok %s: ", name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
		vp_results.failed++;
	}
	fflush(stdout);
	return ok;
}

int vp_finish(void)
{
	printf("# %u passed, %u failed\n", vp_results.passed, vp_results.failed);
	return vp_results.failed ? 1 : 0;
}

bool vp_open(struct vp_dev *d, const char *name)
{
	struct ibv_device **list;
	int n;

	memset(d, 0, sizeof(*d));
	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			d->ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!d->ctx)
		return vp_result("open", false, "cannot open %s: %s", name, strerror(errno));
	d->pd = ibv_alloc_pd(d->ctx);
	d->cq = ibv_create_cq(d->ctx, VP_CQE, NULL, NULL, 0);
	if (!d->pd || !d->cq || ibv_query_device(d->ctx, &d->attr) ||
	    ibv_query_port(d->ctx, VP_PORT, &d->port) ||
	    ibv_query_gid(d->ctx, VP_PORT, VP_GID_INDEX, &d->gid))
		return vp_result("open", false, "%s: PD, CQ or queries failed", name);
	return true;
}

void vp_close(struct vp_dev *d)
{
	if (d->cq)
		ibv_destroy_cq(d->cq);
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->ctx)
		ibv_close_device(d->ctx);
	memset(d, 0, sizeof(*d));
}

struct ibv_qp *vp_create_qp(struct vp_dev *d, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq ? cq : d->cq,
		.recv_cq = cq ? cq : d->cq,
		.cap = { .max_send_wr = 16,
			 .max_recv_wr = 16,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(d->pd, &ia);
}

int vp_to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = VP_PORT,
		.pkey_index = 0,
		.qp_access_flags =
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};

	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS);
}

int vp_to_rtr(struct ibv_qp *qp, const struct vp_dev *peer, uint32_t remote_qpn, uint32_t psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = remote_qpn,
		.rq_psn = psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1,
			.port_num = VP_PORT,
			.grh = { .dgid = peer->gid, .sgid_index = VP_GID_INDEX, .hop_limit = 64 },
		},
	};

	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				     IBV_QP_MIN_RNR_TIMER);
}

int vp_to_rts(struct ibv_qp *qp, uint32_t psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = psn,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = 1,
	};

	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

int vp_connect(struct ibv_qp *a, struct vp_dev *da, struct ibv_qp *b, struct vp_dev *db)
{
	int err;

	err = vp_to_init(a);
	err = err ?: vp_to_init(b);
	err = err ?: vp_to_rtr(a, db, b->qp_num, 0x100);
	err = err ?: vp_to_rtr(b, da, a->qp_num, 0x200);
	err = err ?: vp_to_rts(a, 0x200);
	err = err ?: vp_to_rts(b, 0x100);
	return err;
}

int vp_poll_one(struct ibv_cq *cq, struct ibv_wc *wc, unsigned int timeout_ms)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n)
			return n < 0 ? -1 : 1;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 >
		    (long)timeout_ms)
			return 0;
	}
}

bool vp_write_check(struct ibv_qp *a, struct vp_dev *da, struct ibv_qp *b, struct vp_dev *db,
		    uint32_t len, char *why, size_t why_len)
{
	uint8_t *src = calloc(1, MAX_WRITE), *dst = malloc(MAX_WRITE + 2 * GUARD);
	struct ibv_mr *smr = NULL, *dmr = NULL;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_wc wc;
	bool ok = false;
	int err, n;

	(void)b;
	if (!src || !dst || len > MAX_WRITE) {
		snprintf(why, why_len, "no memory");
		goto out;
	}
	for (uint32_t i = 0; i < len; i++)
		src[i] = (uint8_t)(i * 7 + len);
	memset(dst, GUARD_BYTE, MAX_WRITE + 2 * GUARD);
	smr = ibv_reg_mr(da->pd, src, MAX_WRITE, IBV_ACCESS_LOCAL_WRITE);
	dmr = ibv_reg_mr(db->pd, dst + GUARD, MAX_WRITE,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!smr || !dmr) {
		snprintf(why, why_len, "reg_mr: %s", strerror(errno));
		goto out;
	}
	sge = (struct ibv_sge){ .addr = (uintptr_t)src, .length = len, .lkey = smr->lkey };
	wr.wr_id = 0x5157;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)(dst + GUARD);
	wr.wr.rdma.rkey = dmr->rkey;
	err = ibv_post_send(a, &wr, &bad);
	if (err) {
		snprintf(why, why_len, "post_send: %s", strerror(err));
		goto out;
	}
	n = vp_poll_one(a->send_cq, &wc, COMPLETION_MS);
	if (n != 1 || wc.status != IBV_WC_SUCCESS || wc.wr_id != 0x5157) {
		snprintf(why, why_len, "completion: %s, status %s, wr_id 0x%llx",
			 n == 1 ? "polled"
			 : n	? "poll error"
				: "none in time",
			 n == 1 ? ibv_wc_status_str(wc.status) : "-",
			 n == 1 ? (unsigned long long)wc.wr_id : 0ull);
		goto out;
	}
	if (memcmp(dst + GUARD, src, len)) {
		snprintf(why, why_len, "the written bytes differ");
		goto out;
	}
	for (uint32_t i = 0; i < MAX_WRITE + 2 * GUARD; i++) {
		if ((i < GUARD || i >= GUARD + len) && dst[i] != GUARD_BYTE) {
			snprintf(why, why_len, "byte %d past the written range changed",
				 (int)i - GUARD);
			goto out;
		}
	}
	ok = true;
out:
	if (smr)
		ibv_dereg_mr(smr);
	if (dmr)
		ibv_dereg_mr(dmr);
	free(src);
	free(dst);
	return ok;
}

bool vp_fresh_pair_check(const char *name, struct vp_dev *da, struct vp_dev *db)
{
	struct ibv_qp *a = vp_create_qp(da, NULL), *b = vp_create_qp(db, NULL);
	char why[160] = "";
	bool ok = false;
	int err;

	if (!a || !b) {
		snprintf(why, sizeof(why), "create_qp: %s", strerror(errno));
		goto out;
	}
	err = vp_connect(a, da, b, db);
	if (err) {
		snprintf(why, sizeof(why), "connect: %s", strerror(err));
		goto out;
	}
	ok = vp_write_check(a, da, b, db, 4096 + 123, why, sizeof(why));
out:
	if (a)
		ibv_destroy_qp(a);
	if (b)
		ibv_destroy_qp(b);
	return vp_result(name, ok, "%s", why);
}
