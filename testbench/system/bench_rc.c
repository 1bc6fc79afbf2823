// SPDX-License-Identifier: MIT
/*
 * make bench: figures of the RC transport between two simulated NICs, in simulated time.
 *
 * Setup (printed with the figures): the core at 250 MHz with its 512-bit datapath; PCIe
 * with 200 ns one-way read and write latency and the bandwidth of the AXI bus (512 bits a
 * cycle each way); a 100 Gb/s link of 100 ns (MAC, PHY and cable) counting the frame's
 * bytes (no preamble or inter-frame gap). Everything is driven through libhroce, the
 * way an application drives a real NIC: WQEs in host memory, doorbells over MMIO,
 * completions polled from the CQ.
 *
 *  - WRITE goodput: 64 KiB WRITEs at MTU 4096 on one QP, 16 in flight;
 *  - message rate: 64 B inline WRITEs on 1 and on 8 QPs, 64 in flight per QP, one in 16
 *    signaled; and 64 B WRITEs from an SGE, whose WQE is small enough to be pushed, on 1
 *    QP with 128 in flight (perftest's default depth: with 64, one QP's rate is bound by
 *    what is in flight over a WRITE's round trip, not by the NIC) and on 8 QPs with 64;
 *  - one-way latency of an 8 B WRITE: from the host's doorbell write to the data in the
 *    remote host's memory, from the NICs' event streams, split into its stages; with the
 *    WQE pushed in the doorbell and the data inline (the fast path), and without (the WQE
 *    and the payload fetched by DMA);
 *  - simulation speed: world cycles (both NICs) per second of wall time under load;
 *  - WRITE and READ goodput against the DMA bursts the PCIe bridge keeps in flight each
 *    way (pcie_reads, pcie_writes: 32 on a board, AMD's XDMA bridge);
 *  - 4 KiB WRITE goodput with 1, 1024 and 16382 QPs active, and the context caches' hits,
 *    misses and write-backs meanwhile (BENCH_MANY_QPS=N in the environment: only that, up
 *    to N QPs).
 *
 * BENCH_LATENCY=1 in the environment: only the latencies (8 B READ round trip, 8 B WRITE
 * one way), in a few seconds. BENCH_EVENTS=1 also prints the last WRITE's event streams.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hroce_contract.h"
#include "lat_points.h"
#include "rc_env.h"
#include "roce_wire.h"

#define PCIE_NS 200u
#define LINK_NS 100u
#define LINK_GBPS 100u

static const struct qp_caps bench_caps = { 256, 16, 4, 4, 128 };
/* SENDs: the receiver keeps RECV_POSTED RECVs posted per QP */
#define RECV_POSTED 200
static const struct qp_caps send_caps = { 256, 256, 4, 4, 128 };

/* RECVs of len bytes into buf on qp, n of them, wr_id (q << 32) | k from k on. */
static bool post_recvs(struct hroce_qp *qp, int q, int k, int n, void *buf, uint32_t len,
		       uint32_t lkey)
{
	for (int i = 0; i < n; i++) {
		struct hroce_sge sge = { (uintptr_t)buf, len, lkey };
		struct hroce_recv_wr wr = { ((uint64_t)q << 32) | (uint64_t)(k + i), NULL, &sge,
					    1 };
		struct hroce_recv_wr *bad;

		if (hroce_post_recv(qp, &wr, &bad)) {
			printf("not ok bench: post_recv: %s\n", strerror(errno));
			return false;
		}
	}
	return true;
}

/* What a CQ holds now, up to n; else the world runs until something comes (or limit_ns). */
static int poll_some(struct env *e, struct hroce_cq *cq, int n, struct hroce_wc *wc,
		     uint64_t limit_ns)
{
	uint64_t end = env_ns(e) + limit_ns;
	int got;

	while ((got = hroce_poll_cq(cq, n, wc)) == 0 && env_ns(e) < end)
		env_idle(e);
	return got;
}

/* The first n completions of a CQ, all successful; false (and a message) otherwise. */
static bool wait_wcs(struct env *e, struct hroce_cq *cq, int n, const char *what)
{
	struct hroce_wc wc[32];

	while (n > 0) {
		int got = poll_some(e, cq, n < 32 ? n : 32, wc, 2000000);

		if (got <= 0) {
			printf("not ok %s: no completion for 2 ms of simulated time\n", what);
			return false;
		}
		for (int i = 0; i < got; i++)
			if (wc[i].status != HROCE_WC_SUCCESS) {
				printf("not ok %s: completion status %d\n", what, wc[i].status);
				return false;
			}
		n -= got;
	}
	return true;
}

struct stream_run {
	int nqps;
	uint32_t len;
	enum hroce_mtu mtu;
	int window;	  /* WQEs in flight per QP */
	int signal_every; /* one WQE in this many is signaled */
	bool inline_data;
	int messages; /* per QP, after the warm-up */
	bool read;    /* READs of node 1's memory instead of WRITEs to it */
	bool send;    /* SENDs into RECVs node 1 keeps posted, instead of WRITEs */
};

struct stream_result {
	double ns;	   /* simulated time of the measured messages */
	uint64_t messages; /* measured */
	uint64_t cycles;   /* world cycles of the whole run */
	double wall;	   /* its wall time */
};

/*
 * WRITEs of one size on nqps QPs as fast as the window lets them go. Every QP posts its
 * signaled WQEs at fixed positions, so a completion frees signal_every slots.
 */
static bool stream(struct env *e, const struct stream_run *r, struct stream_result *res)
{
	struct qp_pair qp[8];
	struct hroce_mr *src, *dst;
	uint8_t *sbuf, *dbuf;
	size_t size = (size_t)r->len * 4 + 4096;
	const int warm = r->window;
	int total = warm + r->messages, posted[8] = { 0 }, done[8] = { 0 };
	uint64_t c0 = hroce_sim_world_cycles(e->w), t_meas = 0;
	double w0 = env_wall_s();
	bool ok = true, measuring = false;
	uint64_t measured0 = 0;

	sbuf = env_alloc(size);
	dbuf = env_alloc(size);
	memset(sbuf, 0x5a, size);
	src = hroce_reg_mr(e->n[0].pd, sbuf, size, HROCE_ACCESS_LOCAL_WRITE, 0);
	dst = hroce_reg_mr(
		e->n[1].pd, dbuf, size,
		HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE | HROCE_ACCESS_REMOTE_READ, 0);
	if (!src || !dst) {
		printf("not ok bench: MRs: %s\n", strerror(errno));
		return false;
	}
	for (int q = 0; q < r->nqps; q++)
		if (qp_pair_open(e, &qp[q], r->mtu, r->send ? &send_caps : &bench_caps,
				 HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE |
					 HROCE_ACCESS_REMOTE_READ) ||
		    (r->send && !post_recvs(qp[q].qp[1], q, 0, RECV_POSTED, dbuf, r->len,
					    hroce_mr_lkey(dst)))) {
			printf("not ok bench: QPs: %s\n", strerror(errno));
			return false;
		}
	for (;;) {
		bool all = true;
		struct hroce_wc wc[64], rwc[64];
		int got;

		for (int q = 0; q < r->nqps; q++) {
			while (posted[q] < total && posted[q] - done[q] < r->window) {
				int k = posted[q];
				struct hroce_sge sge = { (uintptr_t)sbuf + (size_t)(k % 4) * r->len,
							 r->len, hroce_mr_lkey(src) };
				struct hroce_send_wr wr = {
					.wr_id = ((uint64_t)q << 32) | (uint64_t)k,
					.sg_list = &sge,
					.num_sge = 1,
					.opcode = r->read   ? HROCE_WR_RDMA_READ
						  : r->send ? HROCE_WR_SEND
							    : HROCE_WR_RDMA_WRITE,
					.send_flags =
						((k + 1) % r->signal_every == 0 || k == total - 1
							 ? HROCE_SEND_SIGNALED
							 : 0) |
						(r->inline_data ? HROCE_SEND_INLINE : 0),
					.remote_addr = (uintptr_t)dbuf + (size_t)(k % 4) * r->len,
					.rkey = hroce_mr_rkey(dst),
				};
				struct hroce_send_wr *bad;

				if (hroce_post_send(qp[q].qp[0], &wr, &bad)) {
					printf("not ok bench: post_send: %s\n", strerror(errno));
					return false;
				}
				posted[q]++;
			}
			if (done[q] < total)
				all = false;
		}
		if (all)
			break;
		got = poll_some(e, e->n[0].scq, 64, wc, 200000000);
		if (got <= 0) {
			printf("not ok bench: no completion for 200 ms of simulated time\n");
			ok = false;
			break;
		}
		/* the receiver posts a RECV again for each one consumed */
		for (int n; ok && r->send && (n = hroce_poll_cq(e->n[1].rcq, 64, rwc)) > 0;)
			for (int i = 0; i < n && ok; i++) {
				int q = (int)(rwc[i].wr_id >> 32);

				ok = rwc[i].status == HROCE_WC_SUCCESS &&
				     post_recvs(qp[q].qp[1], q, 0, 1, dbuf, r->len,
						hroce_mr_lkey(dst));
				if (!ok)
					printf("not ok bench: RECV completion status %d\n",
					       rwc[i].status);
			}
		for (int i = 0; i < got; i++) {
			int q = (int)(wc[i].wr_id >> 32), k = (int)(uint32_t)wc[i].wr_id;

			if (wc[i].status != HROCE_WC_SUCCESS) {
				printf("not ok bench: completion status %d\n", wc[i].status);
				ok = false;
			}
			done[q] = k + 1;
			/* the measured span starts when every QP is past its warm-up */
			if (!measuring) {
				bool warm_all = true;

				for (int j = 0; j < r->nqps; j++)
					warm_all = warm_all && done[j] >= warm;
				if (warm_all) {
					measuring = true;
					t_meas = env_ns(e);
					for (int j = 0; j < r->nqps; j++)
						measured0 += (uint64_t)done[j];
				}
			}
		}
		if (!ok)
			break;
	}
	res->ns = (double)(env_ns(e) - t_meas);
	res->messages = (uint64_t)total * (uint64_t)r->nqps - measured0;
	res->cycles = hroce_sim_world_cycles(e->w) - c0;
	res->wall = env_wall_s() - w0;
	for (int q = 0; q < r->nqps; q++)
		qp_pair_close(&qp[q]);
	hroce_dereg_mr(src);
	hroce_dereg_mr(dst);
	free(sbuf);
	free(dbuf);
	return ok;
}

/* ------------------------------------------------------------------------------------- */
/* Latency from the NICs' events */

/* The time of the first event of a kind at or after t (and matching addr unless ~0). */
static uint64_t ev_find(const struct ev_log *log, enum hroce_sim_event_kind kind, uint64_t t,
			uint64_t addr)
{
	for (int i = 0; i < log->n; i++)
		if (log->ev[i].kind == kind && log->ev[i].time_ns >= t &&
		    (addr == ~0ull || log->ev[i].addr == addr))
			return log->ev[i].time_ns;
	return 0;
}

static uint64_t ev_last(const struct ev_log *log, enum hroce_sim_event_kind kind, uint64_t before)
{
	uint64_t t = 0;

	for (int i = 0; i < log->n; i++)
		if (log->ev[i].kind == kind && log->ev[i].time_ns <= before)
			t = log->ev[i].time_ns;
	return t;
}

/* The time the core spent reading host memory between a and b: from the first read
 * issued to the last one done (the WQE read, then the payload's). */
static uint64_t ev_reads(const struct ev_log *log, uint64_t a, uint64_t b)
{
	uint64_t first = 0, last = 0;

	for (int i = 0; i < log->n; i++) {
		const struct hroce_sim_event *r = &log->ev[i];

		if (r->time_ns < a || r->time_ns > b)
			continue;
		if (r->kind == HROCE_SIM_DMA_READ && !first)
			first = r->time_ns;
		if (r->kind == HROCE_SIM_DMA_READ_DONE && first)
			last = r->time_ns;
	}
	return last > first ? last - first : 0;
}

struct lat {
	double total, doorbell, fetch, pipeline_tx, wire, pipeline_rx, dma_write;
	double step_ns[MAX_POINTS]; /* summed over the operations, lat_write_points' steps */
};

/* One operation at a time between a QP pair, watched through the NICs' events. */
struct one_op {
	struct qp_pair qp;
	struct ev_log *la, *lb; /* node 0's events, node 1's */
	uint8_t *buf[2];	/* 4 KiB on each node, registered */
	struct hroce_mr *mr[2];
	uint64_t iova[2]; /* where buf[i] is in its node's IOVA space */
};

/* Node 0's buffer of byte fill0 (local write), node 1's of fill1 (access remote too). */
static bool one_open(struct env *e, struct one_op *o, unsigned int remote, int fill0, int fill1)
{
	static struct ev_log logs[2];
	uint64_t len;

	o->la = &logs[0];
	o->lb = &logs[1];
	for (int i = 0; i < 2; i++) {
		o->buf[i] = env_alloc(4096);
		memset(o->buf[i], i ? fill1 : fill0, 4096);
		o->mr[i] = hroce_reg_mr(e->n[i].pd, o->buf[i], 4096,
					HROCE_ACCESS_LOCAL_WRITE | (i ? remote : 0), 0);
		if (!o->mr[i]) {
			printf("not ok bench: latency setup: %s\n", strerror(errno));
			return false;
		}
		hroce_mr_mapping(o->mr[i], &o->iova[i], &len);
		o->iova[i] += (uintptr_t)o->buf[i] & 4095;
	}
	if (qp_pair_open(e, &o->qp, HROCE_MTU_4096, &bench_caps,
			 HROCE_ACCESS_LOCAL_WRITE | remote)) {
		printf("not ok bench: latency setup: %s\n", strerror(errno));
		return false;
	}
	hroce_sim_set_observer(e->n[0].sim, ev_observe, o->la);
	hroce_sim_set_observer(e->n[1].sim, ev_observe, o->lb);
	return true;
}

/* The NICs quiet (nothing of the last round in the logs), then wr and its completion. */
static bool one_run(struct env *e, struct one_op *o, struct hroce_send_wr *wr, const char *what)
{
	struct hroce_send_wr *bad;

	for (int i = 0; i < 200; i++)
		env_idle(e);
	o->la->n = o->lb->n = 0;
	if (hroce_post_send(o->qp.qp[0], wr, &bad)) {
		printf("not ok bench: post_send: %s\n", strerror(errno));
		return false;
	}
	return wait_wcs(e, e->n[0].scq, 1, what);
}

static void one_close(struct env *e, struct one_op *o)
{
	hroce_sim_set_observer(e->n[0].sim, NULL, NULL);
	hroce_sim_set_observer(e->n[1].sim, NULL, NULL);
	qp_pair_close(&o->qp);
	for (int i = 0; i < 2; i++) {
		hroce_dereg_mr(o->mr[i]);
		free(o->buf[i]);
	}
}

/* One 8 B WRITE at a time, n times: the average of each stage. */
static bool latency(struct env *e, bool fast, int n, struct lat *out)
{
	struct one_op o;
	uint8_t *sbuf;
	bool ok;

	memset(out, 0, sizeof(*out));
	ok = one_open(e, &o, HROCE_ACCESS_REMOTE_WRITE, 0x11, 0);
	sbuf = o.buf[0];
	for (int it = 0; it < n + 4 && ok; it++) {
		struct ev_log *la = o.la, *lb = o.lb;
		uint64_t dst_iova = o.iova[1];
		uint32_t lkey = hroce_mr_lkey(o.mr[0]);

		/* the slow path: the 8 bytes in 3 SGEs make an 80-byte WQE, too big to push */
		struct hroce_sge sge[3] = { { (uintptr_t)sbuf + 64, fast ? 8 : 4, lkey },
					    { (uintptr_t)sbuf + 68, 2, lkey },
					    { (uintptr_t)sbuf + 70, 2, lkey } };
		struct hroce_send_wr wr = {
			.wr_id = (uint64_t)it,
			.sg_list = sge,
			.num_sge = fast ? 1 : 3,
			.opcode = HROCE_WR_RDMA_WRITE,
			.send_flags = HROCE_SEND_SIGNALED | (fast ? HROCE_SEND_INLINE : 0),
			.remote_addr = (uintptr_t)o.buf[1] + 64,
			.rkey = hroce_mr_rkey(o.mr[1]),
		};
		uint64_t t_db, t_arrive, t_tx, t_tx_end, t_rx, t_rx_end, t_aw, t_done, fetch;
		uint64_t points[MAX_POINTS];

		if (!one_run(e, &o, &wr, "latency"))
			return false;
		t_db = ev_find(la, HROCE_SIM_MMIO_WRITE, 0, ~0ull);
		t_tx = ev_find(la, HROCE_SIM_TX_START, 0, ~0ull);
		t_tx_end = ev_find(la, HROCE_SIM_TX_END, t_tx, ~0ull);
		t_arrive = ev_last(la, HROCE_SIM_MMIO_ARRIVE, t_tx);
		t_rx = ev_find(lb, HROCE_SIM_RX_START, 0, ~0ull);
		t_rx_end = ev_find(lb, HROCE_SIM_RX_END, t_rx, ~0ull);
		t_aw = ev_find(lb, HROCE_SIM_DMA_WRITE, t_rx, dst_iova + 64);
		t_done = ev_find(lb, HROCE_SIM_DMA_WRITE_DONE, t_aw, dst_iova + 64);
		if (!t_db || !t_arrive || !t_tx || !t_rx || !t_aw || !t_done) {
			printf("not ok bench: latency: an event is missing\n");
			ok = false;
			break;
		}
		if (!t_tx_end || !t_rx_end) {
			printf("not ok bench: latency: a frame did not end\n");
			ok = false;
			break;
		}
		if (it < 4)
			continue; /* warm caches, as a running application has them */
		if (getenv("BENCH_EVENTS") && it == n + 3)
			for (int k = 0; k < 2; k++) {
				const struct ev_log *l = k ? lb : la;

				for (int i = 0; i < l->n; i++)
					printf("# %s %llu ns: event %d addr 0x%llx len %llu\n",
					       k ? "b" : "a", (unsigned long long)l->ev[i].time_ns,
					       l->ev[i].kind, (unsigned long long)l->ev[i].addr,
					       (unsigned long long)l->ev[i].len);
			}
		/*
		 * Each side to its frame's last beat: a header leaves as soon as its payload's
		 * reads are committed, and its payload follows when they return (on a board
		 * the shell sends a frame only whole), and a short frame's last beat waits
		 * for its ICRC. Counted from the first beats, the sender's waits fell to the
		 * receiver's pipeline.
		 */
		if (!lat_find((struct ev_log *[2]){ la, lb }, lat_write_points, lat_write_npoints,
			      (struct lat_range[2]){ { 0, 0 }, { dst_iova + 64, 8 } }, points)) {
			printf("not ok bench: latency: a stage event is missing\n");
			ok = false;
			break;
		}
		for (int i = 1; i < lat_write_npoints; i++)
			out->step_ns[i] += (double)(points[i] - points[i - 1]);
		fetch = ev_reads(la, t_arrive, t_tx_end);
		out->total += (double)(t_done - t_db);
		out->doorbell += (double)(t_arrive - t_db);
		out->fetch += (double)fetch;
		out->pipeline_tx += (double)(t_tx_end - t_arrive - fetch);
		out->wire += (double)(t_rx_end - t_tx_end);
		out->pipeline_rx += (double)(t_aw - t_rx_end);
		out->dma_write += (double)(t_done - t_aw);
	}
	if (ok) {
		out->total /= n;
		out->doorbell /= n;
		out->fetch /= n;
		out->pipeline_tx /= n;
		out->wire /= n;
		out->pipeline_rx /= n;
		out->dma_write /= n;
	}
	one_close(e, &o);
	return ok;
}

struct rd_lat {
	double total, doorbell, request_tx, wire_out, responder, wire_back, requester_rx;
	double step_ns[MAX_POINTS]; /* lat_read_points' steps */
};

/*
 * One 8 B READ at a time, n times, from the doorbell write to the data in the requester's
 * memory: the average of each stage (the responder's includes its DMA read of the data).
 */
static bool read_latency(struct env *e, int n, struct rd_lat *out)
{
	struct one_op o;
	uint8_t *lbuf;
	bool ok;

	memset(out, 0, sizeof(*out));
	ok = one_open(e, &o, HROCE_ACCESS_REMOTE_READ, 0, 0x22);
	lbuf = o.buf[0];
	for (int it = 0; it < n + 4 && ok; it++) {
		struct ev_log *la = o.la, *lb = o.lb;
		struct hroce_sge sge = { (uintptr_t)lbuf + 64, 8, hroce_mr_lkey(o.mr[0]) };
		struct hroce_send_wr wr = {
			.wr_id = (uint64_t)it,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = HROCE_WR_RDMA_READ,
			.send_flags = HROCE_SEND_SIGNALED,
			.remote_addr = (uintptr_t)o.buf[1] + 64,
			.rkey = hroce_mr_rkey(o.mr[1]),
		};
		uint64_t t_db, t_arrive, t_req_out, t_req_in, t_resp_out, t_resp_in, t_done;
		uint64_t points[MAX_POINTS];

		if (!one_run(e, &o, &wr, "READ latency"))
			return false;
		/* each stage to a frame's last beat (request out and in, response out and in), as
		 * for the WRITE */
		t_db = ev_find(la, HROCE_SIM_MMIO_WRITE, 0, ~0ull);
		t_req_out = ev_find(la, HROCE_SIM_TX_END, 0, ~0ull);
		t_arrive = ev_last(la, HROCE_SIM_MMIO_ARRIVE, t_req_out);
		t_req_in = ev_find(lb, HROCE_SIM_RX_END, 0, ~0ull);
		t_resp_out = ev_find(lb, HROCE_SIM_TX_END, t_req_in, ~0ull);
		t_resp_in = ev_find(la, HROCE_SIM_RX_END, t_req_out, ~0ull);
		t_done = ev_find(la, HROCE_SIM_DMA_WRITE_DONE, t_resp_in, o.iova[0] + 64);
		if (!t_db || !t_arrive || !t_req_out || !t_req_in || !t_resp_out || !t_resp_in ||
		    !t_done) {
			printf("not ok bench: READ latency: an event is missing\n");
			ok = false;
			break;
		}
		if (lbuf[64] != 0x22 || lbuf[71] != 0x22) {
			printf("not ok bench: READ latency: the data did not arrive\n");
			ok = false;
			break;
		}
		memset(lbuf + 64, 0, 8);
		if (it < 4)
			continue;
		if (!lat_find((struct ev_log *[2]){ la, lb }, lat_read_points, lat_read_npoints,
			      (struct lat_range[2]){ { o.iova[0] + 64, 8 }, { 0, 0 } }, points)) {
			printf("not ok bench: READ latency: a stage event is missing\n");
			ok = false;
			break;
		}
		for (int i = 1; i < lat_read_npoints; i++)
			out->step_ns[i] += (double)(points[i] - points[i - 1]);
		out->total += (double)(t_done - t_db);
		out->doorbell += (double)(t_arrive - t_db);
		out->request_tx += (double)(t_req_out - t_arrive);
		out->wire_out += (double)(t_req_in - t_req_out);
		out->responder += (double)(t_resp_out - t_req_in);
		out->wire_back += (double)(t_resp_in - t_resp_out);
		out->requester_rx += (double)(t_done - t_resp_in);
	}
	if (ok) {
		out->total /= n;
		out->doorbell /= n;
		out->request_tx /= n;
		out->wire_out /= n;
		out->responder /= n;
		out->wire_back /= n;
		out->requester_rx /= n;
	}
	one_close(e, &o);
	return ok;
}

static void print_lat(const char *what, const struct lat *l)
{
	printf("  %-34s %6.0f ns = doorbell %.0f + WQE/payload DMA reads %.0f + TX pipeline %.0f"
	       " + wire %.0f + RX pipeline %.0f + remote DMA write %.0f\n",
	       what, l->total, l->doorbell, l->fetch, l->pipeline_tx, l->wire, l->pipeline_rx,
	       l->dma_write);
}

/* ------------------------------------------------------------------------------------- */
/* Goodput on a lossy link */

/*
 * 64 KiB WRITEs and READs at MTU 4096, 16 in flight per QP, on 1 and 8 QPs, over a link
 * that loses frames at random in both directions. The QPs' ACK timeout is 4.096 us << 8 =
 * 1 ms: with 8 QPs' 128 READs of 64 KiB in flight (8 MiB, 671 us of link), a READ may
 * wait its turn at the responder longer than a shorter timeout, and a timeout that fires
 * early asks again for READs already queued, which only adds to the queue. The
 * retransmitted share: of the data packets sent (requests of a WRITE, responses of a
 * READ), those beyond the ones the messages need.
 */
static bool loss_sweep(struct env *e)
{
	static const double losses[] = { 0.0, 0.0001, 0.001, 0.01 };
	const uint8_t timeout = 8;

	printf("goodput on a lossy link (random loss both ways, ACK timeout %.0f us):\n",
	       4.096 * (1 << timeout));
	for (int rd = 0; rd < 2; rd++) {
		for (int nq = 1; nq <= 8; nq += 7) {
			for (size_t i = 0; i < sizeof(losses) / sizeof(losses[0]); i++) {
				struct stream_run run = { nq,	65536, HROCE_MTU_4096,	   16,
							  4,	false, nq == 1 ? 256 : 48, rd == 1,
							  false };
				struct hroce_sim_frame_faults f = { .seed = 1 + i,
								    .drop = losses[i] };
				struct hroce_sim_frame_fault_stats st;
				struct stream_result r;
				uint64_t need;

				for (int n = 0; n < 2; n++)
					hroce_sim_link_set_faults(e->link, e->n[n].sim, &f);
				e->t.timeout = timeout;
				if (!stream(e, &run, &r))
					return false;
				e->t.timeout = 14;
				/* the data direction: requests of a WRITE, responses of a READ */
				hroce_sim_link_fault_stats(e->link, e->n[rd ? 1 : 0].sim, &st);
				for (int n = 0; n < 2; n++)
					hroce_sim_link_set_faults(e->link, e->n[n].sim, NULL);
				need = (uint64_t)(run.window + run.messages) * (uint64_t)nq * 16;
				printf("  %-5s %d QP%s, loss %6.2f %%: %5.1f Gb/s, %4.1f %% of the data "
				       "packets sent again\n",
				       rd ? "READ" : "WRITE", nq, nq > 1 ? "s" : " ",
				       losses[i] * 100, (double)r.messages * run.len * 8 / r.ns,
				       st.frames > need ? 100.0 * (double)(st.frames - need) /
								  (double)st.frames
							: 0.0);
			}
		}
	}
	return true;
}

/* ------------------------------------------------------------------------------------- */
/* From a lost frame to its retransmission */

struct resend_tap {
	struct env *e;
	const struct hroce_sim *from;
	uint32_t psn;
	int seen;
	uint64_t first_ns, again_ns;
};

static void resend_observe(void *ctx, const struct hroce_sim *from, const void *frame, size_t len)
{
	struct resend_tap *t = ctx;
	struct roce_hdr h;
	const uint8_t *payload;

	if (from != t->from || roce_parse(frame, len, &h, &payload) != ROCE_OK || h.psn != t->psn ||
	    h.opcode == 0x11)
		return;
	if (t->seen++ == 0)
		t->first_ns = env_ns(t->e);
	else if (t->seen == 2)
		t->again_ns = env_ns(t->e);
}

/*
 * The third packet of an 8-packet WRITE lost (the next one brings a sequence NAK), the
 * third response of an 8-packet READ lost (the next one is an implicit NAK), and a
 * one-packet WRITE lost (only the ACK timer, at 4.096 us << 6): the simulated time from
 * the lost frame leaving the sender to the same PSN leaving it again.
 */
static bool resend_times(struct env *e)
{
	static const char *const what[] = { "sequence NAK (WRITE, 3rd of 8 packets)",
					    "implicit NAK (READ, 3rd of 8 responses)",
					    "ACK timer, timeout 6 (262 us) (WRITE of 1 packet)" };

	printf("from a lost frame to its retransmission (MTU 1024):\n");
	for (int k = 0; k < 3; k++) {
		const bool read = k == 1;
		const uint32_t len = k == 2 ? 512 : 8 * 1024;
		struct hroce_sim_frame_faults f = { .seed = 1, .nrules = 1 };
		struct resend_tap t = { .e = e, .from = e->n[read ? 1 : 0].sim };
		uint8_t *sbuf = env_alloc(len), *dbuf = env_alloc(len);
		struct hroce_mr *src =
			hroce_reg_mr(e->n[0].pd, sbuf, len, HROCE_ACCESS_LOCAL_WRITE, 0);
		struct hroce_mr *dst =
			hroce_reg_mr(e->n[1].pd, dbuf, len,
				     HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE |
					     HROCE_ACCESS_REMOTE_READ,
				     0);
		struct hroce_sge sge = { (uintptr_t)sbuf, len, src ? hroce_mr_lkey(src) : 0 };
		struct hroce_send_wr wr = { .wr_id = 1,
					    .sg_list = &sge,
					    .num_sge = 1,
					    .opcode =
						    read ? HROCE_WR_RDMA_READ : HROCE_WR_RDMA_WRITE,
					    .send_flags = HROCE_SEND_SIGNALED,
					    .remote_addr = (uintptr_t)dbuf,
					    .rkey = dst ? hroce_mr_rkey(dst) : 0 };
		struct hroce_send_wr *bad;
		struct hroce_qp_attr qa;
		struct qp_pair qp;
		struct hroce_wc wc;

		e->t.timeout = 6;
		if (!src || !dst ||
		    qp_pair_open(e, &qp, HROCE_MTU_1024, &bench_caps,
				 HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE |
					 HROCE_ACCESS_REMOTE_READ)) {
			printf("not ok bench: resend setup: %s\n", strerror(errno));
			return false;
		}
		e->t.timeout = 14;
		hroce_query_qp(qp.qp[0], &qa);
		t.psn = (qa.sq_psn + (k == 2 ? 0 : 2)) & 0xffffff;
		f.rules[0] = (struct hroce_sim_fault_rule){ HROCE_SIM_FAULT_DROP, 1,
							    HROCE_SIM_FAULT_ANY,  t.psn,
							    HROCE_SIM_FAULT_ANY,  0 };
		hroce_sim_link_set_faults(e->link, t.from, &f);
		hroce_sim_link_set_tap(e->link, resend_observe, &t);
		hroce_post_send(qp.qp[0], &wr, &bad);
		if (!wait_wcs(e, e->n[0].scq, 1, "resend") || t.seen < 2) {
			printf("not ok bench: no retransmission seen\n");
			return false;
		}
		printf("  %-50s %8.0f ns\n", what[k], (double)(t.again_ns - t.first_ns));
		hroce_sim_link_set_tap(e->link, NULL, NULL);
		hroce_sim_link_set_faults(e->link, t.from, NULL);
		while (hroce_poll_cq(e->n[0].scq, 1, &wc))
			;
		qp_pair_close(&qp);
		hroce_dereg_mr(src);
		hroce_dereg_mr(dst);
		free(sbuf);
		free(dbuf);
	}
	return true;
}

/* ------------------------------------------------------------------------------------- */
/* Many QPs active: the context caches */

/* every QPN of a table of 2^14 (the most CAPS.LOG_MAX_QP allows) but the 2 reserved */
#define MANY_LOG_QPS 14
#define MANY_MAX_QPS ((1 << MANY_LOG_QPS) - 2)
#define MANY_LEN 4096u
#define MANY_WINDOW 64 /* WRITEs in flight, over all the QPs */

/* each cache's lookups that hit, that missed, and the dirty lines it wrote back */
static const unsigned int cache_counters[3][3] = {
	{ HROCE_CORE_COUNTER_QPC_REQ_HIT, HROCE_CORE_COUNTER_QPC_REQ_MISS,
	  HROCE_CORE_COUNTER_QPC_REQ_WRITEBACK },
	{ HROCE_CORE_COUNTER_QPC_RESP_HIT, HROCE_CORE_COUNTER_QPC_RESP_MISS,
	  HROCE_CORE_COUNTER_QPC_RESP_WRITEBACK },
	{ HROCE_CORE_COUNTER_CQC_HIT, HROCE_CORE_COUNTER_CQC_MISS,
	  HROCE_CORE_COUNTER_CQC_WRITEBACK },
};

static void cache_counts(const struct env *e, uint64_t c[3][3])
{
	for (int k = 0; k < 3; k++)
		for (int j = 0; j < 3; j++)
			c[k][j] = hroce_core_counter(e->n[0].dev, cache_counters[k][j]) +
				  hroce_core_counter(e->n[1].dev, cache_counters[k][j]);
}

/*
 * 4 KiB WRITEs on the first nqps of the QP pairs, posted round-robin (WRITE i on QP
 * i % nqps), MANY_WINDOW in flight in all, every one signaled; the goodput from the
 * completion of the first warm (a round over every QP, so that what is measured is the
 * steady state) to the last, and what the context caches of both NICs counted meanwhile.
 */
static bool many_run(struct env *e, struct qp_pair *qp, int nqps, int warm, int messages,
		     const struct buf *src, const struct buf *dst, double *gbps, uint64_t d[3][3])
{
	int posted = 0, done = 0;
	uint64_t t0 = 0, c0[3][3] = { { 0 } }, c1[3][3];
	struct hroce_wc wc[64];

	while (done < messages) {
		int got;

		for (; posted < messages && posted - done < MANY_WINDOW; posted++) {
			uintptr_t off = (uintptr_t)(posted % MANY_WINDOW) * MANY_LEN;
			struct hroce_sge sge = { (uintptr_t)src->p + off, MANY_LEN,
						 hroce_mr_lkey(src->mr) };
			struct hroce_send_wr wr = {
				.wr_id = (uint64_t)posted,
				.sg_list = &sge,
				.num_sge = 1,
				.opcode = HROCE_WR_RDMA_WRITE,
				.send_flags = HROCE_SEND_SIGNALED,
				.remote_addr = (uintptr_t)dst->p + off,
				.rkey = hroce_mr_rkey(dst->mr),
			};
			struct hroce_send_wr *bad;

			if (hroce_post_send(qp[posted % nqps].qp[0], &wr, &bad)) {
				printf("not ok bench: many QPs: post_send: %s\n", strerror(errno));
				return false;
			}
		}
		got = poll_some(e, e->n[0].scq, 64, wc, 200000000);
		if (got <= 0) {
			printf("not ok bench: many QPs: no completion for 200 ms of simulated "
			       "time\n");
			return false;
		}
		for (int i = 0; i < got; i++)
			if (wc[i].status != HROCE_WC_SUCCESS) {
				printf("not ok bench: many QPs: completion status %d\n",
				       wc[i].status);
				return false;
			}
		if (done < warm && done + got >= warm) {
			t0 = env_ns(e);
			cache_counts(e, c0);
		}
		done += got;
	}
	cache_counts(e, c1);
	for (int k = 0; k < 3; k++)
		for (int j = 0; j < 3; j++)
			d[k][j] = c1[k][j] - c0[k][j];
	*gbps = (double)(done - warm) * MANY_LEN * 8 / (double)(env_ns(e) - t0);
	return true;
}

/*
 * 4 KiB WRITE goodput with 1, 1024 and 16382 QPs active (or up to max): a fresh pair of
 * NICs with QP tables of 2^14 entries, every QP pair opened first; after a round over
 * every QP, each QP active takes two WRITEs more (2048 WRITEs at least), so that every
 * context is touched again after all the others.
 */
static bool many_qps(struct bench *b, const struct env_params *base, int max)
{
	/* 1, 1024 and max QPs (or 1 and max, if max is 1024 or fewer) */
	const int counts[] = { 1, max > 1024 ? 1024 : max, max };
	/* the first QP takes the whole window when it is alone; the others one at a time */
	static const struct qp_caps caps = { 4, 1, 1, 1, 0 }, caps0 = { MANY_WINDOW, 1, 1, 1, 0 };
	struct env_params p = *base;
	struct qp_pair *qp = calloc(MANY_MAX_QPS, sizeof(*qp));
	struct buf src, dst;
	double one = 0;
	struct env e;
	int opened = 0;
	bool ok = qp != NULL;

	p.log_qps = MANY_LOG_QPS;
	env_open(&e, b, &p);
	buf_open(&e, &src, 0, (size_t)MANY_WINDOW * MANY_LEN, HROCE_ACCESS_LOCAL_WRITE, 0);
	buf_open(&e, &dst, 1, (size_t)MANY_WINDOW * MANY_LEN,
		 HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE, 0);
	printf("4 KiB WRITE goodput by QPs active (MTU 4096; WRITE i on QP i %% QPs, %d in flight "
	       "in all, each signaled; QP tables of 2^%d; after a warm-up round over every QP; the "
	       "caches' counts are of both NICs during the measured span):\n",
	       MANY_WINDOW, MANY_LOG_QPS);
	for (size_t i = 0; ok && i < sizeof(counts) / sizeof(counts[0]); i++) {
		int n = counts[i], warm = n > MANY_WINDOW ? n : MANY_WINDOW;
		int messages = warm + (2 * n > 2048 ? 2 * n : 2048);
		double w0 = env_wall_s(), open_s;
		uint64_t d[3][3];
		double gbps;

		if (i && n <= counts[i - 1])
			continue;
		/* the QP pairs this count needs (each a few commands: minutes for thousands) */
		for (; opened < n; opened++)
			if (qp_pair_open(&e, &qp[opened], HROCE_MTU_4096, opened ? &caps : &caps0,
					 HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE)) {
				printf("not ok bench: many QPs: %d QP pairs opened: %s\n", opened,
				       strerror(errno));
				ok = false;
				break;
			}
		open_s = env_wall_s() - w0;
		w0 = env_wall_s();
		ok = ok && many_run(&e, qp, n, warm, messages, &src, &dst, &gbps, d);
		if (!ok)
			break;
		if (n == 1)
			one = gbps;
		printf("  %5d QP%s: %5.1f Gb/s (%3.0f %% of 1 QP; %d WRITEs after %d; %.0f s, QPs "
		       "opened in %.0f s); hits / misses / write-backs: QPC requester %" PRIu64
		       " / %" PRIu64 " / %" PRIu64 ", responder %" PRIu64 " / %" PRIu64
		       " / %" PRIu64 ", CQC %" PRIu64 " / %" PRIu64 " / %" PRIu64 "\n",
		       n, n > 1 ? "s" : " ", gbps, 100 * gbps / one, messages - warm, warm,
		       env_wall_s() - w0, open_s, d[0][0], d[0][1], d[0][2], d[1][0], d[1][1],
		       d[1][2], d[2][0], d[2][1], d[2][2]);
	}
	/*
	 * The QPs are not destroyed one by one (thousands of commands more): they go with
	 * the device, whose tables hroce_close frees.
	 */
	buf_close(&src);
	buf_close(&dst);
	free(qp);
	env_close(&e);
	return ok;
}

/* ------------------------------------------------------------------------------------- */
/* The PCIe bridge's limits */

/*
 * Goodput against the bursts the bridge keeps in flight each way: a fresh pair of NICs
 * for each limit, 64 KiB WRITEs, then READs, at MTU 4096 on one QP, 16 in flight.
 */
static bool bridge_limits(struct bench *b, const struct env_params *base)
{
	static const uint32_t limits[] = { 1, 2, 4, 8, 16, HROCE_SIM_PCIE_BRIDGE_BURSTS, 256 };

	printf("goodput by the DMA bursts the PCIe bridge keeps in flight each way (64 KiB, "
	       "MTU 4096, 1 QP, 16 in flight; a board's bridge: %u):\n",
	       HROCE_SIM_PCIE_BRIDGE_BURSTS);
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		struct stream_run wr = { 1, 65536, HROCE_MTU_4096, 16, 4, false, 64, false, false };
		struct stream_run rd = { 1, 65536, HROCE_MTU_4096, 16, 4, false, 64, true, false };
		struct env_params p = *base;
		struct stream_result rw, rr;
		struct env e;

		p.pcie_reads = p.pcie_writes = limits[i];
		env_open(&e, b, &p);
		if (!stream(&e, &wr, &rw) || !stream(&e, &rd, &rr))
			return false;
		printf("  %3u bursts: WRITE %5.1f Gb/s, READ %5.1f Gb/s\n", limits[i],
		       (double)rw.messages * wr.len * 8 / rw.ns,
		       (double)rr.messages * rd.len * 8 / rr.ns);
		env_close(&e);
	}
	return true;
}

/* The 8 B READ round trip, printed with its stages. */
static bool read_latencies(struct env *e)
{
	struct rd_lat rd;

	if (!read_latency(e, 20, &rd))
		return false;
	printf("8 B READ round trip, doorbell write to data in local memory (WQE pushed, average of "
	       "20): %.0f ns = doorbell %.0f + request TX pipeline %.0f + wire %.0f + responder "
	       "(with its DMA read) %.0f + wire %.0f + RX pipeline and DMA write %.0f\n",
	       rd.total, rd.doorbell, rd.request_tx, rd.wire_out, rd.responder, rd.wire_back,
	       rd.requester_rx);
	lat_print_steps(lat_read_points, lat_read_npoints, rd.step_ns, 20, ENV_MHZ);
	return true;
}

/* The 8 B WRITE one-way latencies, fast and slow path, over IPv4 then IPv6. */
static bool write_latencies(struct env *e)
{
	struct lat fast, slow;

	if (!latency(e, true, 20, &fast) || !latency(e, false, 20, &slow))
		return false;
	printf("8 B WRITE one-way latency, doorbell write to data in remote memory (average of "
	       "20):\n");
	print_lat("WQE pushed in the doorbell, inline:", &fast);
	lat_print_steps(lat_write_points, lat_write_npoints, fast.step_ns, 20, ENV_MHZ);
	print_lat("WQE (3 SGEs) and payload read by DMA:", &slow);
	lat_print_steps(lat_write_points, lat_write_npoints, slow.step_ns, 20, ENV_MHZ);
	/* the same over IPv6: GID index 0, the link-local addresses; 20 more bytes of header */
	e->gid_index = HROCE_GID_INDEX_LINK_LOCAL;
	if (!latency(e, true, 20, &fast) || !latency(e, false, 20, &slow))
		return false;
	e->gid_index = HROCE_GID_INDEX_IPV4;
	printf("the same over IPv6 (GID index 0, link-local addresses):\n");
	print_lat("WQE pushed in the doorbell, inline:", &fast);
	print_lat("WQE (3 SGEs) and payload read by DMA:", &slow);
	return true;
}

int main(int argc, char **argv)
{
	struct bench b;
	struct env e;
	struct env_params p = {
		.pcie_read_ns = PCIE_NS,
		.pcie_write_ns = PCIE_NS,
		.link_ns = LINK_NS,
		.link_gbps = LINK_GBPS,
	};
	struct stream_run goodput = { 1, 65536, HROCE_MTU_4096, 16, 4, false, 64, false, false };
	struct stream_run rate1 = { 1, 64, HROCE_MTU_4096, 64, 16, true, 2048, false, false };
	struct stream_run rate8 = { 8, 64, HROCE_MTU_4096, 64, 16, true, 512, false, false };
	struct stream_run rate1_push = {
		1, 64, HROCE_MTU_4096, 128, 16, false, 2048, false, false
	};
	struct stream_run rate8_push = { 8, 64, HROCE_MTU_4096, 64, 16, false, 512, false, false };
	struct stream_run send8 = { 8, 64, HROCE_MTU_4096, 64, 16, false, 512, false, true };
	struct stream_result r;
	double mhz = ENV_MHZ;

	bench_init(&b, "bench_rc", argc, argv);
	if (getenv("BENCH_MANY_QPS")) {
		int max = atoi(getenv("BENCH_MANY_QPS"));

		if (max < 1 || max > MANY_MAX_QPS) {
			fprintf(stderr, "bench_rc: BENCH_MANY_QPS is the most QPs, 1 to %d\n",
				MANY_MAX_QPS);
			return 2;
		}
		return many_qps(&b, &p, max) ? 0 : 1;
	}
	env_open(&e, &b, &p);
	printf("# bench_rc: two NICs at %.0f MHz (512-bit datapath); PCIe %u ns one way, bus "
	       "bandwidth, %u DMA bursts in flight each way; link %u Gb/s, %u ns\n",
	       mhz, PCIE_NS, HROCE_SIM_PCIE_BRIDGE_BURSTS, LINK_GBPS, LINK_NS);
	if (getenv("BENCH_LATENCY")) {
		bool ok = read_latencies(&e) && write_latencies(&e);

		env_close(&e);
		return ok ? 0 : 1;
	}

	/* BENCH_RATES=1: the message rates alone */
	if (getenv("BENCH_RATES"))
		goto rates;
	if (!stream(&e, &goodput, &r))
		return 1;
	printf("WRITE goodput, 64 KiB messages, MTU 4096, 1 QP, 16 in flight: %.1f Gb/s "
	       "(%" PRIu64 " messages in %.1f us)\n",
	       (double)r.messages * goodput.len * 8 / r.ns, r.messages, r.ns / 1000);
	printf("simulation speed, two NICs under that load: %.0f world cycles/s (%.2f M NIC "
	       "cycles/s; %" PRIu64 " cycles in %.1f s)\n",
	       (double)r.cycles / r.wall, 2 * (double)r.cycles / r.wall / 1e6, r.cycles, r.wall);

rates:
	if (!stream(&e, &rate1, &r))
		return 1;
	printf("64 B inline WRITE message rate, 1 QP, 64 in flight: %.2f Mpps (%" PRIu64
	       " messages in %.1f us)\n",
	       (double)r.messages * 1000 / r.ns, r.messages, r.ns / 1000);
	if (!stream(&e, &rate8, &r))
		return 1;
	printf("64 B inline WRITE message rate, 8 QPs, 64 in flight each: %.2f Mpps (%" PRIu64
	       " messages in %.1f us)\n",
	       (double)r.messages * 1000 / r.ns, r.messages, r.ns / 1000);

	if (!stream(&e, &rate1_push, &r))
		return 1;
	printf("64 B WRITE message rate (one SGE: the 48-byte WQE rides in its doorbell), 1 QP, "
	       "128 in flight: %.2f Mpps (%" PRIu64 " messages in %.1f us)\n",
	       (double)r.messages * 1000 / r.ns, r.messages, r.ns / 1000);

	if (!stream(&e, &rate8_push, &r))
		return 1;
	printf("64 B WRITE message rate (one SGE: the 48-byte WQE rides in its doorbell), 8 QPs, "
	       "64 in flight each: %.2f Mpps (%" PRIu64 " messages in %.1f us)\n",
	       (double)r.messages * 1000 / r.ns, r.messages, r.ns / 1000);

	if (!stream(&e, &send8, &r))
		return 1;
	printf("64 B SEND message rate (the WQE in its doorbell; the receiver consumes a RECV each), "
	       "8 QPs, 64 in flight each: %.2f Mpps (%" PRIu64 " messages in %.1f us)\n",
	       (double)r.messages * 1000 / r.ns, r.messages, r.ns / 1000);
	if (getenv("BENCH_RATES")) {
		env_close(&e);
		return 0;
	}

	if (!read_latencies(&e))
		return 1;

	if (!resend_times(&e) || !loss_sweep(&e))
		return 1;

	if (!write_latencies(&e))
		return 1;
	env_close(&e);
	return bridge_limits(&b, &p) && many_qps(&b, &p, MANY_MAX_QPS) ? 0 : 1;
}
