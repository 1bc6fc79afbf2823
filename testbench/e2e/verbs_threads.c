// SPDX-License-Identifier: MIT
/*
 * Threads posting at once, each on its own QP and CQs (the provider locks per queue, not
 * per context, and pushes WQEs on the QP's own slot of the doorbell pages): every thread
 * WRITEs random lengths, inline (a WQE pushed as its doorbell) or from an MR, and checks
 * every byte and the guard bytes behind them after each completion. Then the same with
 * every thread on one shared send CQ, each polling it and handing completions to their
 * owner; then every thread posting chains of 1 to 8 WRITEs at once (one doorbell a chain,
 * the last WQE pushed when it fits), each to its own part of the target, every completion
 * and every byte checked.
 * Run under hroce-run by test_verbs_threads (verbs_run.c).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "verbs_pair.h"

#define THREADS 4
#define ITERS 150
#define BUF 4096
#define GUARD 64
#define WAIT_MS 20000
#define CHAIN_MAX 8
#define CHAIN_SLOT (BUF / CHAIN_MAX) /* each WRITE of a chain has its own part of dst */

struct worker {
	unsigned int id;
	struct vp_dev *da, *db;
	struct ibv_cq *cq; /* its own, or the shared one */
	struct ibv_qp *a, *b;
	struct ibv_mr *src_mr, *dst_mr;
	uint8_t *src, *dst;
	unsigned int seed;
	bool shared, chains;
	_Atomic unsigned int *mailbox; /* shared CQ: completions by owner */
	char why[256];
	bool ok;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Waits for this worker's next completion (from its own CQ, or through the mailboxes). */
static bool wait_completion(struct worker *w, uint64_t wr_id)
{
	uint64_t end = now_ms() + WAIT_MS;
	struct ibv_wc wc;

	while (now_ms() < end) {
		int n;

		if (w->shared && atomic_load(&w->mailbox[w->id])) {
			atomic_fetch_sub(&w->mailbox[w->id], 1);
			return true;
		}
		n = ibv_poll_cq(w->cq, 1, &wc);
		if (n < 0) {
			snprintf(w->why, sizeof(w->why), "poll_cq failed");
			return false;
		}
		if (!n)
			continue;
		if (wc.status != IBV_WC_SUCCESS) {
			snprintf(w->why, sizeof(w->why), "completion status %s",
				 ibv_wc_status_str(wc.status));
			return false;
		}
		if (!w->shared) {
			if (wc.wr_id != wr_id) {
				snprintf(w->why, sizeof(w->why), "wr_id %llu, not %llu",
					 (unsigned long long)wc.wr_id, (unsigned long long)wr_id);
				return false;
			}
			return true;
		}
		/* the shared CQ: the owner is in the wr_id's high bits */
		atomic_fetch_add(&w->mailbox[wc.wr_id >> 32], 1);
	}
	snprintf(w->why, sizeof(w->why), "no completion in %d ms", WAIT_MS);
	return false;
}

/* Chains of WRITEs, each WR to its own slot of dst, checked once all completed. */
static void work_chains(struct worker *w)
{
	for (unsigned int it = 0; it < ITERS / 4 && w->ok; it++) {
		unsigned int n = 1 + (unsigned int)rand_r(&w->seed) % CHAIN_MAX;
		struct ibv_sge sge[CHAIN_MAX];
		struct ibv_send_wr wr[CHAIN_MAX], *bad;
		uint32_t len[CHAIN_MAX];
		uint8_t fill = (uint8_t)(w->id * 53 + it);

		memset(w->dst, 0, BUF + GUARD);
		memset(wr, 0, sizeof(wr));
		for (unsigned int k = 0; k < n; k++) {
			bool inl = rand_r(&w->seed) % 2;
			uint8_t *src = w->src + k * CHAIN_SLOT;

			len[k] = 1 + (uint32_t)rand_r(&w->seed) % (inl ? 48 : CHAIN_SLOT - GUARD);
			for (uint32_t i = 0; i < len[k]; i++)
				src[i] = (uint8_t)(fill + k + i);
			sge[k] = (struct ibv_sge){ (uintptr_t)src, len[k], w->src_mr->lkey };
			wr[k].wr_id = (uint64_t)w->id << 32 | (it * CHAIN_MAX + k);
			wr[k].next = k + 1 < n ? &wr[k + 1] : NULL;
			wr[k].sg_list = &sge[k];
			wr[k].num_sge = 1;
			wr[k].opcode = IBV_WR_RDMA_WRITE;
			wr[k].send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0);
			wr[k].wr.rdma.remote_addr = (uintptr_t)(w->dst + k * CHAIN_SLOT);
			wr[k].wr.rdma.rkey = w->dst_mr->rkey;
		}
		if (ibv_post_send(w->a, wr, &bad)) {
			snprintf(w->why, sizeof(w->why), "post_send of a chain of %u failed at %u",
				 n, it);
			w->ok = false;
			break;
		}
		for (unsigned int k = 0; k < n && w->ok; k++)
			w->ok = wait_completion(w, wr[k].wr_id);
		for (unsigned int k = 0; k < n && w->ok; k++) {
			for (uint32_t i = 0; i < CHAIN_SLOT && w->ok; i++) {
				uint8_t want = i < len[k] ? (uint8_t)(fill + k + i) : 0;
				uint8_t got = w->dst[k * CHAIN_SLOT + i];

				if (got != want) {
					snprintf(w->why, sizeof(w->why),
						 "chain %u, WRITE %u of %u (%u bytes): byte %u is "
						 "0x%02x, not 0x%02x",
						 it, k, n, len[k], i, got, want);
					w->ok = false;
				}
			}
		}
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;

	w->ok = true;
	if (w->chains) {
		work_chains(w);
		return NULL;
	}
	for (unsigned int it = 0; it < ITERS && w->ok; it++) {
		uint32_t len = 1 + (uint32_t)rand_r(&w->seed) % BUF;
		bool inl = rand_r(&w->seed) % 2;
		struct ibv_sge sge;
		struct ibv_send_wr wr = { 0 }, *bad;
		uint8_t fill = (uint8_t)(w->id * 37 + it);

		if (inl)
			len = 1 + len % 48; /* inline and pushed */
		for (uint32_t i = 0; i < len; i++)
			w->src[i] = (uint8_t)(fill + i);
		memset(w->dst, 0, BUF + GUARD);
		sge = (struct ibv_sge){ (uintptr_t)w->src, len, w->src_mr->lkey };
		wr.wr_id = (uint64_t)w->id << 32 | it;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0);
		wr.wr.rdma.remote_addr = (uintptr_t)w->dst;
		wr.wr.rdma.rkey = w->dst_mr->rkey;
		if (ibv_post_send(w->a, &wr, &bad)) {
			snprintf(w->why, sizeof(w->why), "post_send failed at %u", it);
			w->ok = false;
			break;
		}
		if (!wait_completion(w, wr.wr_id)) {
			w->ok = false;
			break;
		}
		for (uint32_t i = 0; i < len + GUARD && w->ok; i++) {
			uint8_t want = i < len ? (uint8_t)(fill + i) : 0;

			if (w->dst[i] != want) {
				snprintf(w->why, sizeof(w->why),
					 "WRITE %u of %u bytes%s: byte %u is 0x%02x, not 0x%02x",
					 it, len, inl ? " (inline)" : "", i, w->dst[i], want);
				w->ok = false;
			}
		}
	}
	return NULL;
}

static bool setup(struct worker *w, struct vp_dev *da, struct vp_dev *db, struct ibv_cq *cq)
{
	w->da = da;
	w->db = db;
	w->cq = cq ? cq : ibv_create_cq(da->ctx, 64, NULL, NULL, 0);
	w->src = calloc(1, BUF);
	w->dst = calloc(1, BUF + GUARD);
	if (!w->cq || !w->src || !w->dst)
		return false;
	w->src_mr = ibv_reg_mr(da->pd, w->src, BUF, IBV_ACCESS_LOCAL_WRITE);
	w->dst_mr = ibv_reg_mr(db->pd, w->dst, BUF + GUARD,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	w->a = ibv_create_qp(da->pd, &(struct ibv_qp_init_attr){
					     .send_cq = w->cq,
					     .recv_cq = w->cq,
					     .cap = { .max_send_wr = 16,
						      .max_recv_wr = 1,
						      .max_send_sge = 1,
						      .max_recv_sge = 1,
						      .max_inline_data = 64 },
					     .qp_type = IBV_QPT_RC,
				     });
	w->b = vp_create_qp(db, NULL);
	return w->src_mr && w->dst_mr && w->a && w->b && !vp_connect(w->a, da, w->b, db);
}

static void teardown(struct worker *w, bool own_cq)
{
	if (w->a)
		ibv_destroy_qp(w->a);
	if (w->b)
		ibv_destroy_qp(w->b);
	if (w->src_mr)
		ibv_dereg_mr(w->src_mr);
	if (w->dst_mr)
		ibv_dereg_mr(w->dst_mr);
	if (own_cq && w->cq)
		ibv_destroy_cq(w->cq);
	free(w->src);
	free(w->dst);
}

static void run(const char *name, struct vp_dev *da, struct vp_dev *db, bool shared, bool chains)
{
	struct worker w[THREADS] = { 0 };
	pthread_t t[THREADS];
	_Atomic unsigned int mailbox[THREADS] = { 0 };
	struct ibv_cq *cq = shared ? ibv_create_cq(da->ctx, 4 * THREADS, NULL, NULL, 0) : NULL;
	char why[300] = "";
	bool ok = !shared || cq;

	for (unsigned int i = 0; i < THREADS && ok; i++) {
		w[i].id = i;
		w[i].seed = 1234 + i;
		w[i].shared = shared;
		w[i].chains = chains;
		w[i].mailbox = mailbox;
		ok = setup(&w[i], da, db, cq);
		if (!ok)
			snprintf(why, sizeof(why), "set-up of worker %u failed", i);
	}
	for (unsigned int i = 0; i < THREADS && ok; i++)
		pthread_create(&t[i], NULL, work, &w[i]);
	for (unsigned int i = 0; i < THREADS && ok; i++)
		pthread_join(t[i], NULL);
	for (unsigned int i = 0; i < THREADS && ok; i++) {
		if (!w[i].ok) {
			snprintf(why, sizeof(why), "worker %u: %s", i, w[i].why);
			ok = false;
		}
	}
	for (unsigned int i = 0; i < THREADS; i++)
		teardown(&w[i], !shared);
	if (cq)
		ibv_destroy_cq(cq);
	vp_result(name, ok, "%s", why);
}

int main(void)
{
	struct vp_dev da = { 0 }, db = { 0 };

	if (!vp_open(&da, "hroce0") || !vp_open(&db, "hroce1"))
		return vp_finish();
	run("threads_own_cqs", &da, &db, false, false);
	run("threads_shared_cq", &da, &db, true, false);
	run("threads_chains", &da, &db, false, true);
	vp_fresh_pair_check("threads_after", &da, &db);
	vp_close(&da);
	vp_close(&db);
	return vp_finish();
}
