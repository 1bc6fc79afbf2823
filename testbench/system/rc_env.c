// SPDX-License-Identifier: MIT
#include "hroce_contract.h"
#include "rc_env.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void die(const char *what, int err)
{
	fprintf(stderr, "not ok environment: %s: %s\n", what, strerror(err));
	exit(1);
}

void env_open(struct env *e, struct bench *b, const struct env_params *p)
{
	static const char *const names[2] = { "bench-a", "bench-b" };

	memset(e, 0, sizeof(*e));
	e->b = b;
	e->p = *p;
	e->t = (struct env_timers){
		.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 12
	};
	e->gid_index = HROCE_GID_INDEX_IPV4;
	e->w = hroce_sim_world_create(p->mhz ? p->mhz : ENV_MHZ);
	if (!e->w)
		die("world", errno);
	for (int i = 0; i < 2; i++) {
		struct node *n = &e->n[i];
		struct hroce_sim_params sp = {
			.name = names[i],
			.pcie = { p->pcie_read_ns, p->pcie_write_ns, p->pcie_gbps, p->pcie_reads,
				  p->pcie_writes },
			.model = p->model[i],
		};
		struct hroce_dev_params dp = {
			.mac = { 0x02, 0x00, 0x00, 0x00, 0x00, (uint8_t)(i + 1) },
			.ipv4 = 0x0a000001 + (uint32_t)i,
			/* one global IPv6 address each: fd00::1 and fd00::2 (GID index 2) */
			.ipv6 = { { 0xfd, [15] = (uint8_t)(i + 1) } },
			.nipv6 = 1,
			.log_qps = p->log_qps ? p->log_qps : 6,
			.log_cqs = 4,
			.log_mrs = 8,
		};

		n->name = names[i];
		n->sim = hroce_sim_create(e->w, &sp);
		if (!n->sim)
			die("hroce_sim_create", errno);
		memcpy(n->mac, dp.mac, 6);
		n->ipv4 = dp.ipv4;
		char spec[64];

		snprintf(spec, sizeof(spec), "sim:%s", names[i]);
		n->dev = hroce_open(spec, &dp);
		if (!n->dev)
			die("hroce_open", errno);
		n->pd = hroce_alloc_pd(n->dev);
		n->scq = hroce_create_cq(n->dev, 4096, 0);
		n->rcq = hroce_create_cq(n->dev, 4096, 1);
		if (!n->pd || !n->scq || !n->rcq)
			die("PD and CQs", errno);
	}
	struct hroce_sim_link_params lp = { p->link_ns, p->link_gbps, p->pcap_path };

	e->link = hroce_sim_link_connect(e->n[0].sim, e->n[1].sim, &lp);
	if (!e->link)
		die("link", errno);
}

void env_close(struct env *e)
{
	for (int i = 0; i < 2; i++) {
		struct node *n = &e->n[i];

		hroce_destroy_cq(n->scq);
		hroce_destroy_cq(n->rcq);
		hroce_dealloc_pd(n->pd);
		hroce_close(n->dev);
	}
	hroce_sim_world_destroy(e->w);
}

void env_idle(struct env *e)
{
	hroce_idle(e->n[0].dev);
}

uint64_t env_ns(const struct env *e)
{
	return hroce_sim_world_ns(e->w);
}

void *env_alloc(size_t len)
{
	void *p = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);

	if (!p)
		die("aligned_alloc", ENOMEM);
	return p;
}

uint64_t env_faults(const struct env *e)
{
	return hroce_sim_faults(e->n[0].sim, NULL) + hroce_sim_faults(e->n[1].sim, NULL);
}

int env_poll(struct env *e, struct hroce_cq *cq, int n, struct hroce_wc *wc, uint64_t limit_ns)
{
	uint64_t end = env_ns(e) + limit_ns;
	int got = 0;

	while (got < n && env_ns(e) < end) {
		int k = hroce_poll_cq(cq, n - got, wc + got);

		if (k > 0)
			got += k;
		else
			env_idle(e);
	}
	return got;
}

static int connect_one(struct env *e, int i, struct hroce_qp *qp, struct hroce_qp *peer,
		       enum hroce_mtu mtu, unsigned int access, uint32_t sq_psn, uint32_t rq_psn)
{
	const struct node *other = &e->n[1 - i];
	struct hroce_qp_attr a = { 0 };
	int err;

	a.qp_state = HROCE_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = access;
	err = hroce_modify_qp(qp, &a,
			      HROCE_QP_STATE | HROCE_QP_PKEY_INDEX | HROCE_QP_PORT |
				      HROCE_QP_ACCESS_FLAGS);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = HROCE_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = hroce_qp_num(peer);
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = e->t.min_rnr_timer;
	memcpy(a.ah_attr.dmac, other->mac, 6);
	err = hroce_query_gid(other->dev, e->gid_index, a.ah_attr.dgid);
	if (err)
		return err;
	a.ah_attr.sgid_index = (uint8_t)e->gid_index;
	a.ah_attr.flow_label = e->flow_label;
	err = hroce_modify_qp(qp, &a,
			      HROCE_QP_STATE | HROCE_QP_AV | HROCE_QP_PATH_MTU | HROCE_QP_DEST_QPN |
				      HROCE_QP_RQ_PSN | HROCE_QP_MAX_DEST_RD_ATOMIC |
				      HROCE_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = HROCE_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = e->t.timeout;
	a.retry_cnt = e->t.retry_cnt;
	a.rnr_retry = e->t.rnr_retry;
	a.max_rd_atomic = 16;
	return hroce_modify_qp(qp, &a,
			       HROCE_QP_STATE | HROCE_QP_SQ_PSN | HROCE_QP_TIMEOUT |
				       HROCE_QP_RETRY_CNT | HROCE_QP_RNR_RETRY |
				       HROCE_QP_MAX_QP_RD_ATOMIC);
}

static unsigned int pair_access;

int qp_pair_open(struct env *e, struct qp_pair *qp, enum hroce_mtu mtu, const struct qp_caps *caps,
		 unsigned int access)
{
	uint32_t psn0 = (uint32_t)bench_range(e->b, 0, 0xffffff);
	uint32_t psn1 = (uint32_t)bench_range(e->b, 0, 0xffffff);
	int err;

	memset(qp, 0, sizeof(*qp));
	qp->mtu = mtu;
	for (int i = 0; i < 2; i++) {
		struct node *n = &e->n[i];
		struct hroce_qp_init_attr ia = {
			.send_cq = n->scq,
			.recv_cq = n->rcq,
			.cap = { caps->send_wr, caps->recv_wr, caps->send_sge, caps->recv_sge,
				 caps->inline_data },
		};

		qp->qp[i] = hroce_create_qp(n->pd, &ia);
		if (!qp->qp[i])
			return errno;
	}
	pair_access = access;
	err = connect_one(e, 0, qp->qp[0], qp->qp[1], mtu, access, psn0, psn1);
	return err ?: connect_one(e, 1, qp->qp[1], qp->qp[0], mtu, access, psn1, psn0);
}

int qp_pair_reconnect(struct env *e, struct qp_pair *qp, uint32_t psn0, uint32_t psn1)
{
	struct hroce_qp_attr a = { .qp_state = HROCE_QPS_RESET };
	int err;

	for (int i = 0; i < 2; i++) {
		err = hroce_modify_qp(qp->qp[i], &a, HROCE_QP_STATE);
		if (err)
			return err;
	}
	err = connect_one(e, 0, qp->qp[0], qp->qp[1], qp->mtu, pair_access, psn0, psn1);
	return err ?: connect_one(e, 1, qp->qp[1], qp->qp[0], qp->mtu, pair_access, psn1, psn0);
}

void qp_pair_close(struct qp_pair *qp)
{
	for (int i = 0; i < 2; i++)
		if (qp->qp[i])
			hroce_destroy_qp(qp->qp[i]);
}

void buf_open(struct env *e, struct buf *b, int node, size_t len, unsigned int access,
	      unsigned int log_page)
{
	b->len = len;
	b->p = env_alloc(len);
	memset(b->p, POISON, len);
	b->mr = hroce_reg_mr(e->n[node].pd, b->p, len, access, log_page);
	if (!b->mr) {
		fprintf(stderr, "not ok environment: reg_mr: %s\n", strerror(errno));
		exit(1);
	}
}

void buf_close(struct buf *b)
{
	hroce_dereg_mr(b->mr);
	free(b->p);
}

bool wc_ok(struct bench *b, const char *test, const struct hroce_wc *wc, uint64_t wr_id,
	   enum hroce_wc_opcode op, enum hroce_wc_status status)
{
	if (wc->wr_id != wr_id || wc->status != status || (status == 0 && wc->opcode != op)) {
		bench_result(
			b, test, false,
			"completion wr_id %llu opcode %u status %s, expected wr_id %llu opcode %u "
			"status %s",
			(unsigned long long)wc->wr_id, wc->opcode, hroce_wc_status_name(wc->status),
			(unsigned long long)wr_id, op, hroce_wc_status_name(status));
		return false;
	}
	return true;
}

double env_wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool env_expect_wc(struct env *e, const char *test, struct hroce_cq *cq, uint64_t wr_id,
		   enum hroce_wc_opcode op, enum hroce_wc_status status, uint64_t limit_ns)
{
	struct hroce_wc wc;

	if (env_poll(e, cq, 1, &wc, limit_ns) != 1)
		return bench_result(e->b, test, false, "no completion of wr_id %llu",
				    (unsigned long long)wr_id);
	return wc_ok(e->b, test, &wc, wr_id, op, status);
}
