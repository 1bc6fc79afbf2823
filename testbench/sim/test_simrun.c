// SPDX-License-Identifier: MIT
/*
 * Simulated NICs as applications get them: each process calls hroce_open("sim:hroceN")
 * with a configuration file ($HROCE_CONFIG) and gets a NIC of its own, run by a thread,
 * whose port is on a shared-memory wire to the other process's NIC. Every scenario runs
 * in child processes (fork) on a wire of its own (/dev/shm/hroce-t<pid>-<scenario>,
 * removed at the end); the processes exchange QP numbers, keys and addresses through a
 * socketpair, as perftest does over TCP, and use the peer's MAC and address from the
 * configuration.
 *
 * - traffic: RC WRITE, SEND (its completion taken through the interrupt fd) and READ
 *   across, every byte checked; a stream of WRITEs for the simulation speed of two
 *   processes; the pcap of the wire; the CPU both use once idle.
 * - late: the second process starts when the first one's NIC sleeps; its clock joins.
 * - exit: the peer is killed (SIGKILL) after some traffic: the link goes down, what is
 *   sent is dropped and counted, the WRITE fails with RETRY_EXC_ERR after retry_cnt + 1
 *   ACK timeouts of simulated time (jumped, not waited for) and the next is flushed; a new
 *   process takes the dead one's port and traffic works again; it exits without closing
 *   its device, and its NIC stops cleanly.
 * - segments: a stale segment (garbage, another version, empty), a wire of other
 *   parameters, a port held by a live process: each refused with a clear message.
 * - idle: the CPU a process with a lone idle NIC uses, asleep and busy-polling.
 * - lossy: hroce0's configuration gives its wire faults (loss, bursts, flips, copies,
 *   reordering, a directed copy); it sends WRITEs to a QP hroce1 does not have (so that nothing
 * answers and what it sends does not depend on timing). hroce1 gets what the faults let through: as
 * many frames as hroce0's fault counters say, and its core counts each as roce_parse judges it in
 * hroce1's own capture (flipped ones dropped by ICRC or IP checks, never taken). Run twice with the
 * same seed, the counters are the same.
 *
 * HROCE_SIMRUN_ONLY=NAME runs one scenario.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "hroce_contract.h"
#include "hroce.h"
#include "hroce_config.h"
#include "hroce_sim.h"
#include "pcap.h"
#include "roce_wire.h"

#define PAGE 4096u
#define BUF_BYTES (512u * 1024)
#define WRITE_LEN (64u * 1024)
#define SEND_LEN 1000u
#define READ_LEN (32u * 1024)
#define RECV_OFF (256u * 1024) /* where the RECVs land in the responder's buffer */
#define READ_OFF (384u * 1024) /* what the READ fetches from it */
#define READ_DST (128u * 1024) /* where it lands in the requester's */
#define STREAM_WRITES 16
#define CHILD_WALL_S 120.0 /* a scenario that takes longer hangs */
#define WC_WALL_S 30.0	   /* a completion that takes longer will not come */
#define CPU_BOUND 0.20	   /* of one core: sleeping must cost about nothing */
/* the QPs' ACK timeout and retries (perftest's): 67 ms, 8 tries before RETRY_EXC_ERR */
#define EXIT_TIMEOUT 14
#define EXIT_RETRY_CNT 7

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* ===================================================================================== */
/* A child process: one side */

struct side {
	const char *scenario;
	int role; /* 0: hroce0, the requester; 1: hroce1, the responder */
	char name[16];
	int sock;      /* to the peer */
	int status_fd; /* to the parent: milestones */
	uint64_t seed;
	struct hroce_config *cfg;
	const struct hroce_config_dev *me, *peer;
	struct hroce_dev *dev;
	struct hroce_pd *pd;
	struct hroce_cq *scq, *rcq;
	struct hroce_qp *qp;
	uint8_t *buf;
	struct hroce_mr *mr;
	struct hroce_sim *sim;
	struct hroce_sim_world *w;
	struct hroce_sim_wire *wire;
	uint32_t peer_rkey;
	uint64_t peer_addr;
	char why[512];
};

/* What the two sides tell each other. */
struct msg {
	uint32_t kind, qpn, rkey, psn;
	uint64_t addr, value;
};

enum {
	MSG_QP = 1,
	MSG_READY,
	MSG_CHECKED,
	MSG_STREAM_START,
	MSG_STREAM_END,
	MSG_CLOCK,
	MSG_DONE,
	MSG_DYING,
	MSG_BYE,
};

static char last_log[2][512];

/*
 * When frames left this NIC and reached it (simulated ns of their first beat), as the
 * observer sees them from the world's thread.
 */
#define FRAMES_KEPT 1024
static uint64_t tx_ns[FRAMES_KEPT], rx_ns[FRAMES_KEPT];
static _Atomic unsigned int tx_frames, rx_frames;

static void observe(void *ctx, const struct hroce_sim *sim, const struct hroce_sim_event *ev)
{
	unsigned int n;

	(void)ctx;
	(void)sim;
	if (ev->kind == HROCE_SIM_TX_START) {
		n = atomic_load(&tx_frames);
		if (n < FRAMES_KEPT) {
			tx_ns[n] = ev->time_ns;
			atomic_store(&tx_frames, n + 1);
		}
	} else if (ev->kind == HROCE_SIM_RX_START) {
		n = atomic_load(&rx_frames);
		if (n < FRAMES_KEPT) {
			rx_ns[n] = ev->time_ns;
			atomic_store(&rx_frames, n + 1);
		}
	}
}

static bool fail(struct side *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(struct side *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	return false;
}

/* Raw bytes over the socket, all of them. */
static bool send_all(struct side *s, const void *p, size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = write(s->sock, (const uint8_t *)p + done, len - done);

		if (n <= 0)
			return fail(s, "socket write: %s", strerror(errno));
		done += (size_t)n;
	}
	return true;
}

static bool recv_all(struct side *s, void *p, size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = read(s->sock, (uint8_t *)p + done, len - done);

		if (n <= 0)
			return fail(s, "the peer hung up");
		done += (size_t)n;
	}
	return true;
}

static void log_msg(void *ctx, int which, int level, const char *msg)
{
	(void)ctx;
	snprintf(last_log[which], sizeof(last_log[which]), "%s", msg);
	if (level <= 1)
		printf("#   (%s) %s\n", which ? "libhroce-sim" : "libhroce", msg);
}

static void log_hroce(void *ctx, enum hroce_log_level level, const char *msg)
{
	log_msg(ctx, 0, (int)level, msg);
}

static void log_sim(void *ctx, enum hroce_sim_log_level level, const char *msg)
{
	log_msg(ctx, 1, (int)level, msg);
}

static void milestone(struct side *s, char c)
{
	if (write(s->status_fd, &c, 1) != 1)
		perror("status pipe");
}

static bool send_msg(struct side *s, const struct msg *m)
{
	if (write(s->sock, m, sizeof(*m)) != (ssize_t)sizeof(*m))
		return fail(s, "socket write: %s", strerror(errno));
	return true;
}

/* The next message, which must be of that kind. */
static bool recv_msg(struct side *s, uint32_t kind, struct msg *m)
{
	struct pollfd pfd = { s->sock, POLLIN, 0 };

	if (poll(&pfd, 1, (int)(CHILD_WALL_S * 1000)) != 1)
		return fail(s, "no message %u from the peer", kind);
	if (read(s->sock, m, sizeof(*m)) != (ssize_t)sizeof(*m))
		return fail(s, "the peer hung up (waiting for message %u)", kind);
	if (m->kind != kind)
		return fail(s, "message %u from the peer, expected %u", m->kind, kind);
	return true;
}

static uint8_t pattern(unsigned int role, unsigned int what, size_t i)
{
	return (uint8_t)(i * 131 + (i >> 9) * 7 + role * 61 + what * 17 + 1);
}

static bool side_open(struct side *s)
{
	struct hroce_dev_attr attr;
	char spec[32];
	int err;

	snprintf(s->name, sizeof(s->name), "hroce%d", s->role);
	snprintf(spec, sizeof(spec), "sim:%s", s->name);
	hroce_set_log(log_hroce, NULL);
	hroce_sim_set_log(log_sim, NULL);
	err = hroce_config_load(&s->cfg);
	if (err)
		return fail(s, "configuration: %s", strerror(err));
	s->me = hroce_config_find(s->cfg, s->name);
	s->peer = hroce_config_find(s->cfg, s->role ? "hroce0" : "hroce1");
	if (!s->me || !s->peer)
		return fail(s, "hroce0 or hroce1 missing from the configuration");
	/* no parameters: the addresses are the configuration's */
	s->dev = hroce_open(spec, NULL);
	if (!s->dev)
		return fail(s, "hroce_open(%s): %s (%s)", spec, strerror(errno), last_log[1]);
	hroce_query_dev(s->dev, &attr);
	if (memcmp(attr.mac, s->me->mac, 6) || attr.ipv4 != s->me->ipv4)
		return fail(s, "the device's MAC and address are not the configuration's");
	s->sim = hroce_sim_find(s->name);
	s->w = s->sim ? hroce_sim_world_of(s->sim) : NULL;
	s->wire = s->sim ? hroce_sim_wire_of(s->sim) : NULL;
	if (!s->w || !s->wire || !hroce_sim_world_running(s->w))
		return fail(s, "the NIC hroce_open made is not running on a wire");
	s->pd = hroce_alloc_pd(s->dev);
	s->scq = hroce_create_cq(s->dev, 256, 0);
	s->rcq = hroce_create_cq(s->dev, 256, 1);
	s->buf = aligned_alloc(PAGE, BUF_BYTES);
	if (!s->pd || !s->scq || !s->rcq || !s->buf)
		return fail(s, "PD, CQs, buffer: %s", strerror(errno));
	for (size_t i = 0; i < BUF_BYTES; i++)
		s->buf[i] = pattern((unsigned int)s->role, 0, i);
	s->mr = hroce_reg_mr(
		s->pd, s->buf, BUF_BYTES,
		HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE | HROCE_ACCESS_REMOTE_READ, 0);
	if (!s->mr)
		return fail(s, "reg_mr: %s", strerror(errno));
	return true;
}

/* A QP of ours, connected to the peer's (which the peer makes at the same time). */
static bool side_connect(struct side *s)
{
	struct hroce_qp_init_attr ia = {
		.send_cq = s->scq,
		.recv_cq = s->rcq,
		.cap = { 64, 64, 4, 4, 128 },
	};
	struct msg mine = { .kind = MSG_QP }, theirs;
	struct hroce_qp_attr a = { 0 };
	int err;

	s->qp = hroce_create_qp(s->pd, &ia);
	if (!s->qp)
		return fail(s, "create_qp: %s", strerror(errno));
	s->seed = s->seed * 6364136223846793005ull + 1442695040888963407ull;
	mine.qpn = hroce_qp_num(s->qp);
	mine.rkey = hroce_mr_rkey(s->mr);
	mine.addr = (uintptr_t)s->buf;
	mine.psn = (uint32_t)(s->seed >> 40) & 0xffffff;
	if (!send_msg(s, &mine) || !recv_msg(s, MSG_QP, &theirs))
		return false;
	a.qp_state = HROCE_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags =
		HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE | HROCE_ACCESS_REMOTE_READ;
	err = hroce_modify_qp(s->qp, &a,
			      HROCE_QP_STATE | HROCE_QP_PKEY_INDEX | HROCE_QP_PORT |
				      HROCE_QP_ACCESS_FLAGS);
	if (err)
		return fail(s, "to INIT: %s", strerror(err));
	memset(&a, 0, sizeof(a));
	a.qp_state = HROCE_QPS_RTR;
	a.path_mtu = HROCE_MTU_4096;
	a.dest_qp_num = theirs.qpn;
	a.rq_psn = theirs.psn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 12;
	memcpy(a.ah_attr.dmac, s->peer->mac, 6);
	hroce_gid_from_ipv4(s->peer->ipv4, a.ah_attr.dgid);
	a.ah_attr.sgid_index = HROCE_GID_INDEX_IPV4;
	err = hroce_modify_qp(s->qp, &a,
			      HROCE_QP_STATE | HROCE_QP_AV | HROCE_QP_PATH_MTU | HROCE_QP_DEST_QPN |
				      HROCE_QP_RQ_PSN | HROCE_QP_MAX_DEST_RD_ATOMIC |
				      HROCE_QP_MIN_RNR_TIMER);
	if (err)
		return fail(s, "to RTR: %s", strerror(err));
	memset(&a, 0, sizeof(a));
	a.qp_state = HROCE_QPS_RTS;
	a.sq_psn = mine.psn;
	a.timeout = EXIT_TIMEOUT;
	a.retry_cnt = EXIT_RETRY_CNT;
	a.rnr_retry = 7;
	a.max_rd_atomic = 16;
	err = hroce_modify_qp(s->qp, &a,
			      HROCE_QP_STATE | HROCE_QP_SQ_PSN | HROCE_QP_TIMEOUT |
				      HROCE_QP_RETRY_CNT | HROCE_QP_RNR_RETRY |
				      HROCE_QP_MAX_QP_RD_ATOMIC);
	if (err)
		return fail(s, "to RTS: %s", strerror(err));
	/* what the requester needs of the responder's memory */
	s->peer_rkey = theirs.rkey;
	s->peer_addr = theirs.addr;
	return true;
}

static void side_close(struct side *s)
{
	if (s->qp)
		hroce_destroy_qp(s->qp);
	if (s->mr)
		hroce_dereg_mr(s->mr);
	if (s->scq)
		hroce_destroy_cq(s->scq);
	if (s->rcq)
		hroce_destroy_cq(s->rcq);
	if (s->pd)
		hroce_dealloc_pd(s->pd);
	hroce_close(s->dev);
	free(s->buf);
	hroce_config_free(s->cfg);
	s->qp = NULL;
	s->mr = NULL;
	s->scq = s->rcq = NULL;
	s->pd = NULL;
	s->dev = NULL;
	s->buf = NULL;
	s->cfg = NULL;
}

/* A completion of cq within wall_s seconds of wall time, polling as an application does. */
static bool wait_wc(struct side *s, struct hroce_cq *cq, struct hroce_wc *wc, double wall_s)
{
	double end = wall() + wall_s;

	while (wall() < end) {
		int n = hroce_poll_cq(cq, 1, wc);

		if (n < 0)
			return fail(s, "poll_cq: %s", strerror(-n));
		if (n == 1)
			return true;
		hroce_idle(s->dev);
	}
	return fail(s, "no completion in %.1f s of wall time", wall_s);
}

static bool expect_wc(struct side *s, struct hroce_cq *cq, uint64_t wr_id, enum hroce_wc_opcode op)
{
	struct hroce_wc wc;

	if (!wait_wc(s, cq, &wc, WC_WALL_S))
		return false;
	if (wc.status != HROCE_WC_SUCCESS || wc.wr_id != wr_id || wc.opcode != op)
		return fail(s, "completion: status %s, wr_id %llu, opcode %d (wanted %llu, %d)",
			    hroce_wc_status_name(wc.status), (unsigned long long)wc.wr_id,
			    wc.opcode, (unsigned long long)wr_id, op);
	return true;
}

static bool post(struct side *s, enum hroce_wr_opcode op, uint64_t wr_id, uint32_t off,
		 uint32_t len, uint64_t remote_off)
{
	struct hroce_sge sge = { (uintptr_t)s->buf + off, len, hroce_mr_lkey(s->mr) };
	struct hroce_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = HROCE_SEND_SIGNALED,
		.remote_addr = s->peer_addr + remote_off,
		.rkey = s->peer_rkey,
	};
	struct hroce_send_wr *bad;
	int err = hroce_post_send(s->qp, &wr, &bad);

	return err ? fail(s, "post_send: %s", strerror(err)) : true;
}

/* p holds pattern(role) from offset from on, for len bytes; else says where not. */
static bool holds(struct side *s, const uint8_t *p, unsigned int role, size_t from, size_t len,
		  const char *what)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != pattern(role, 0, from + i))
			return fail(s, "%s: byte %zu is 0x%02x, not 0x%02x", what, i, p[i],
				    pattern(role, 0, from + i));
	return true;
}

/*
 * The requester's round: WRITE, SEND, READ, each byte checked (the responder checks its
 * and says so), then done.
 */
static bool round_requester(struct side *s)
{
	unsigned int peer = (unsigned int)s->role ^ 1;
	struct msg m;

	if (!recv_msg(s, MSG_READY, &m))
		return false;
	if (!post(s, HROCE_WR_RDMA_WRITE, 1, 0, WRITE_LEN, 0) ||
	    !expect_wc(s, s->scq, 1, HROCE_WC_RDMA_WRITE))
		return false;
	if (!post(s, HROCE_WR_SEND, 2, 70000, SEND_LEN, 0) ||
	    !expect_wc(s, s->scq, 2, HROCE_WC_SEND))
		return false;
	memset(s->buf + READ_DST, 0, READ_LEN);
	if (!post(s, HROCE_WR_RDMA_READ, 3, READ_DST, READ_LEN, READ_OFF) ||
	    !expect_wc(s, s->scq, 3, HROCE_WC_RDMA_READ) ||
	    !holds(s, s->buf + READ_DST, peer, READ_OFF, READ_LEN, "READ data"))
		return false;
	if (!recv_msg(s, MSG_CHECKED, &m))
		return false;
	if (m.value)
		return fail(s, "the responder found the data wrong");
	m = (struct msg){ .kind = MSG_DONE };
	return send_msg(s, &m);
}

/* The responder's: a RECV for the SEND, whose completion comes as an interrupt. */
static bool round_responder(struct side *s)
{
	unsigned int peer = (unsigned int)s->role ^ 1;
	struct hroce_sge sge = { (uintptr_t)s->buf + RECV_OFF, 4096, hroce_mr_lkey(s->mr) };
	struct hroce_recv_wr rwr = { .wr_id = 10, .sg_list = &sge, .num_sge = 1 }, *bad;
	struct msg m = { .kind = MSG_READY };
	struct pollfd pfd = { hroce_irq_fd(s->dev), POLLIN, 0 };
	struct hroce_wc wc;
	uint64_t irqs;
	bool ok;
	int err;

	if (pfd.fd < 0)
		return fail(s, "irq_fd: %s", strerror(errno));
	hroce_take_irqs(s->dev);
	err = hroce_post_recv(s->qp, &rwr, &bad);
	err = err ?: hroce_req_notify_cq(s->rcq, false);
	if (err)
		return fail(s, "post_recv, arm: %s", strerror(err));
	if (!send_msg(s, &m))
		return false;
	/* no polling: the process sleeps in poll() until the CQ's vector fires */
	if (poll(&pfd, 1, (int)(WC_WALL_S * 1000)) != 1)
		return fail(s, "the interrupt fd never became readable");
	irqs = hroce_take_irqs(s->dev);
	if (!(irqs & 2))
		return fail(s, "interrupts 0x%llx: not the receive CQ's vector 1",
			    (unsigned long long)irqs);
	if (poll(&pfd, 1, 0) != 0)
		return fail(s, "the interrupt fd stays readable after take_irqs");
	if (hroce_poll_cq(s->rcq, 1, &wc) != 1)
		return fail(s, "an interrupt, but no completion in the CQ");
	if (wc.status != HROCE_WC_SUCCESS || wc.opcode != HROCE_WC_RECV || wc.wr_id != 10 ||
	    wc.byte_len != SEND_LEN)
		return fail(s, "RECV completion: status %s, opcode %d, wr_id %llu, %u bytes",
			    hroce_wc_status_name(wc.status), wc.opcode,
			    (unsigned long long)wc.wr_id, wc.byte_len);
	/* the WRITE went before the SEND on the QP: it is in memory too */
	ok = holds(s, s->buf + RECV_OFF, peer, 70000, SEND_LEN, "SEND data") &&
	     holds(s, s->buf, peer, 0, WRITE_LEN, "WRITE data");
	m = (struct msg){ .kind = MSG_CHECKED, .value = !ok };
	/* the requester's READ comes after: stay until it is done */
	return send_msg(s, &m) && ok && recv_msg(s, MSG_DONE, &m);
}

/* Until the world's thread sleeps; false after wall_s. */
static bool wait_asleep(struct side *s, double wall_s, double *took)
{
	struct hroce_sim_world_stats st;
	double t0 = wall();

	do {
		hroce_sim_world_stats(s->w, &st);
		if (st.asleep) {
			*took = wall() - t0;
			return true;
		}
		usleep(5000);
	} while (wall() - t0 < wall_s);
	return fail(s, "the NIC did not fall asleep in %.0f s", wall_s);
}

/* The share of a core the process used over wall_s; the thread asleep, or busy-polling. */
static double cpu_share(struct side *s, double wall_s, bool busy_poll)
{
	double c0 = cpu(), t0 = wall(), t;
	struct hroce_wc wc;

	if (!busy_poll) {
		usleep((useconds_t)(wall_s * 1e6));
	} else {
		while (wall() - t0 < wall_s)
			if (hroce_poll_cq(s->rcq, 1, &wc) == 0)
				hroce_idle(s->dev);
	}
	t = wall() - t0;
	return (cpu() - c0) / t;
}

static void print_world(struct side *s, const char *when)
{
	struct hroce_sim_world_stats st;
	struct hroce_sim_wire_stats ws;

	hroce_sim_world_stats(s->w, &st);
	hroce_sim_wire_stats(s->wire, &ws);
	printf("# %s %s %s: clock %llu cycles (%llu evaluated, %llu skipped), %llu sleeps, "
	       "%llu waits for the peer (%.1f ms); frames %llu sent, %llu received, %llu "
	       "dropped, %llu cut short; link %s, %llu ups, %llu downs\n",
	       s->scenario, s->name, when, (unsigned long long)st.cycles,
	       (unsigned long long)st.cycles_run, (unsigned long long)st.cycles_skipped,
	       (unsigned long long)st.sleeps, (unsigned long long)ws.waits, ws.wait_ns / 1e6,
	       (unsigned long long)ws.frames_sent, (unsigned long long)ws.frames_received,
	       (unsigned long long)ws.frames_dropped, (unsigned long long)ws.frames_aborted,
	       ws.peer_up ? "up" : "down", (unsigned long long)ws.link_ups,
	       (unsigned long long)ws.link_downs);
}

/* ===================================================================================== */
/* Scenarios, one function per side */

/* Both sides idle: each NIC falls asleep and the process costs next to nothing. */
static bool idle_share(struct side *s)
{
	double took, share;

	if (!wait_asleep(s, 10, &took))
		return false;
	share = cpu_share(s, 1.0, false);
	printf("# %s %s: asleep %.0f ms after the traffic; then %.2f%% of a core over 1 s\n",
	       s->scenario, s->name, took * 1e3, share * 100);
	return share < CPU_BOUND ? true : fail(s, "%.1f%% of a core while idle", share * 100);
}

static bool stream_requester(struct side *s)
{
	struct hroce_sim_world_stats a, b;
	struct msg m = { .kind = MSG_STREAM_START };
	double t0, c0, t;

	if (!send_msg(s, &m))
		return false;
	hroce_sim_world_stats(s->w, &a);
	t0 = wall();
	c0 = cpu();
	for (int i = 0; i < STREAM_WRITES; i++)
		if (!post(s, HROCE_WR_RDMA_WRITE, 100 + (uint64_t)i, 0, WRITE_LEN, 0))
			return false;
	for (int i = 0; i < STREAM_WRITES; i++)
		if (!expect_wc(s, s->scq, 100 + (uint64_t)i, HROCE_WC_RDMA_WRITE))
			return false;
	t = wall() - t0;
	hroce_sim_world_stats(s->w, &b);
	m = (struct msg){ .kind = MSG_STREAM_END };
	if (!send_msg(s, &m))
		return false;
	printf("# %s %s: %d WRITEs of %u KiB took %.1f us of simulated time (%.1f Gb/s) and "
	       "%.2f s of wall time: %.0f cycles/s evaluated in this process, which used %.2f "
	       "cores (the world's thread, and the application polling its CQ)\n",
	       s->scenario, s->name, STREAM_WRITES, WRITE_LEN / 1024,
	       (double)(b.cycles - a.cycles) * 1e-3 * 4, /* 250 MHz: 4 ns a cycle */
	       (double)STREAM_WRITES * WRITE_LEN * 8 / ((double)(b.cycles - a.cycles) * 4), t,
	       (double)(b.cycles_run - a.cycles_run) / t, (cpu() - c0) / t);
	return true;
}

static bool stream_responder(struct side *s)
{
	struct hroce_sim_world_stats a, b;
	struct msg m;
	double t0, c0, t;

	if (!recv_msg(s, MSG_STREAM_START, &m))
		return false;
	hroce_sim_world_stats(s->w, &a);
	t0 = wall();
	c0 = cpu();
	if (!recv_msg(s, MSG_STREAM_END, &m))
		return false;
	t = wall() - t0;
	hroce_sim_world_stats(s->w, &b);
	printf("# %s %s: meanwhile %.0f cycles/s evaluated in this process, which used %.2f "
	       "cores\n",
	       s->scenario, s->name, (double)(b.cycles_run - a.cycles_run) / t, (cpu() - c0) / t);
	return true;
}

/* The pcap of hroce0's side of the wire: the frames of the run, in simulated time. */
static bool check_pcap(struct side *s, const char *path, uint64_t end_ns)
{
	struct pcap_packet *pkt = malloc(sizeof(*pkt));
	struct pcap_file *pf = pcap_open_read(path);
	unsigned int frames = 0, roce = 0;
	uint64_t last = 0;
	int err;

	if (!pf || !pkt) {
		free(pkt);
		return fail(s, "pcap %s: %s", path, strerror(errno));
	}
	while (!(err = pcap_read(pf, pkt))) {
		frames++;
		/* Ethernet, IPv4, UDP to 4791 */
		if (pkt->len > 42 && pkt->data[12] == 0x08 && pkt->data[13] == 0 &&
		    pkt->data[36] == 0x12 && pkt->data[37] == 0xb7)
			roce++;
		if (pkt->ts_ns > last)
			last = pkt->ts_ns;
	}
	pcap_close(pf);
	free(pkt);
	printf("# %s %s: pcap: %u frames (%u RoCEv2), the last at %llu ns\n", s->scenario, s->name,
	       frames, roce, (unsigned long long)last);
	/* the WRITEs alone are 16 + 16 * 16 frames of 4 KiB, plus their ACKs */
	if (err > 0 || roce < (1 + STREAM_WRITES) * (WRITE_LEN / 4096) || roce != frames ||
	    last > end_ns || !last)
		return fail(s, "pcap: %u frames, %u RoCEv2, last at %llu ns of %llu", frames, roce,
			    (unsigned long long)last, (unsigned long long)end_ns);
	return true;
}

/*
 * Every frame reached the other NIC exactly the link's latency after it left (the same
 * frames in the same order): the two clocks agree, and neither side ran past a frame
 * that was on its way to it. The responder sends its times, the requester compares.
 */
static bool frame_times(struct side *s)
{
	static uint64_t peer_tx[FRAMES_KEPT], peer_rx[FRAMES_KEPT];
	unsigned int mine[2] = { atomic_load(&tx_frames), atomic_load(&rx_frames) }, theirs[2];
	uint64_t want = s->me->link_ns, worst = 0;

	if (s->role)
		return send_all(s, mine, sizeof(mine)) && send_all(s, tx_ns, sizeof(tx_ns)) &&
		       send_all(s, rx_ns, sizeof(rx_ns));
	if (!recv_all(s, theirs, sizeof(theirs)) || !recv_all(s, peer_tx, sizeof(peer_tx)) ||
	    !recv_all(s, peer_rx, sizeof(peer_rx)))
		return false;
	if (mine[0] != theirs[1] || mine[1] != theirs[0] || !mine[0] || !mine[1] ||
	    mine[0] == FRAMES_KEPT || mine[1] == FRAMES_KEPT)
		return fail(s, "frames: %u sent here, %u received there; %u sent there, %u here",
			    mine[0], theirs[1], theirs[0], mine[1]);
	for (unsigned int i = 0; i < mine[0] + mine[1]; i++) {
		uint64_t sent = i < mine[0] ? tx_ns[i] : peer_tx[i - mine[0]];
		uint64_t got = i < mine[0] ? peer_rx[i] : rx_ns[i - mine[0]];

		if (got < sent + want)
			return fail(s, "a frame sent at %llu ns arrived at %llu ns: early",
				    (unsigned long long)sent, (unsigned long long)got);
		if (got - sent > worst)
			worst = got - sent;
	}
	printf("# %s %s: %u frames one way, %u the other, each arrived %llu ns after it left "
	       "(the most: %llu ns)\n",
	       s->scenario, s->name, mine[0], mine[1], (unsigned long long)want,
	       (unsigned long long)worst);
	return worst == want ? true
			     : fail(s, "a frame took %llu ns, the link %llu ns",
				    (unsigned long long)worst, (unsigned long long)want);
}

static bool traffic(struct side *s)
{
	char pcap[256];
	uint64_t end_ns;
	bool ok;

	if (!side_open(s))
		return false;
	hroce_sim_set_observer(s->sim, observe, NULL);
	if (!side_connect(s))
		return false;
	ok = s->role ? round_responder(s) && stream_responder(s)
		     : round_requester(s) && stream_requester(s);
	ok = ok && frame_times(s);
	ok = ok && idle_share(s);
	if (ok && !s->role) {
		double share = cpu_share(s, 1.0, true);

		printf("# %s %s: busy-polling its CQ (poll_cq, idle) for 1 s: %.2f%% of a "
		       "core\n",
		       s->scenario, s->name, share * 100);
		if (share >= CPU_BOUND)
			ok = fail(s, "%.1f%% of a core busy-polling an idle NIC", share * 100);
	}
	print_world(s, "at the end");
	end_ns = hroce_sim_world_ns(s->w);
	snprintf(pcap, sizeof(pcap), "%s", s->me->pcap);
	side_close(s);
	if (ok && pcap[0])
		ok = check_pcap(s, pcap, end_ns);
	return ok;
}

/* The requester starts alone and sleeps; the responder comes later and joins its clock. */
static bool late(struct side *s)
{
	struct hroce_sim_world_stats st;
	struct msg m = { .kind = MSG_CLOCK };
	double took;
	bool ok;

	if (!side_open(s))
		return false;
	if (!s->role) {
		if (!wait_asleep(s, 10, &took))
			return false;
		m.value = hroce_sim_world_cycles(s->w);
		printf("# %s %s: alone, asleep at %llu ns after %.0f ms\n", s->scenario, s->name,
		       (unsigned long long)m.value * 4, took * 1e3);
		milestone(s, 'r');
		ok = send_msg(s, &m) && side_connect(s) && round_requester(s);
	} else {
		hroce_sim_world_stats(s->w, &st);
		if (!recv_msg(s, MSG_CLOCK, &m))
			return false;
		printf("# %s %s: opened at %llu ns (skipped %llu cycles); the peer slept at %llu "
		       "ns\n",
		       s->scenario, s->name, (unsigned long long)st.cycles * 4,
		       (unsigned long long)st.cycles_skipped, (unsigned long long)m.value * 4);
		if (st.cycles < m.value || !st.cycles_skipped)
			return fail(s, "joined at cycle %llu, behind the peer's %llu",
				    (unsigned long long)st.cycles, (unsigned long long)m.value);
		ok = side_connect(s) && round_responder(s);
	}
	print_world(s, "at the end");
	side_close(s);
	return ok;
}

/* Until the wire says the peer is up or down (as wanted); false after wall_s. */
static bool wait_link(struct side *s, bool up, double wall_s, struct hroce_sim_wire_stats *ws)
{
	double t0 = wall();

	do {
		hroce_sim_wire_stats(s->wire, ws);
		if (ws->peer_up == up)
			return true;
		usleep(5000);
	} while (wall() - t0 < wall_s);
	return fail(s, "the link did not go %s in %.0f s", up ? "up" : "down", wall_s);
}

/* The requester's side of exit: its peer dies, then another one takes the port. */
static bool exit_requester(struct side *s, int sock2)
{
	uint64_t sim0, waited_ns;
	struct hroce_sim_wire_stats ws;
	struct hroce_qp_attr qa;
	struct hroce_wc wc;
	struct msg m;
	double t0;
	char buf;

	if (!side_open(s) || !side_connect(s) || !round_requester(s) || !recv_msg(s, MSG_DYING, &m))
		return false;
	/* its end of the socket closes when it is gone */
	if (read(s->sock, &buf, 1) != 0)
		return fail(s, "the peer did not die");
	/*
	 * Two WRITEs to the dead peer: the first is sent retry_cnt + 1 times, one ACK timeout
	 * apart, then fails with RETRY_EXC_ERR, and the second is flushed; the simulated NIC
	 * jumps from one timeout to the next, so that this takes little wall time.
	 */
	t0 = wall();
	sim0 = hroce_sim_world_ns(s->w);
	if (!post(s, HROCE_WR_RDMA_WRITE, 7, 0, WRITE_LEN, 0) ||
	    !post(s, HROCE_WR_RDMA_WRITE, 8, 0, WRITE_LEN, 0))
		return false;
	if (!wait_wc(s, s->scq, &wc, WC_WALL_S))
		return false;
	if (wc.wr_id != 7 || wc.status != HROCE_WC_RETRY_EXC_ERR)
		return fail(s, "a WRITE to a dead peer: wr_id %llu completed with %s",
			    (unsigned long long)wc.wr_id, hroce_wc_status_name(wc.status));
	waited_ns = hroce_sim_world_ns(s->w) - sim0;
	/* (retry_cnt + 1) timeouts of 4.096 us << timeout, and no more than one more */
	if (waited_ns < (EXIT_RETRY_CNT + 1) * (4096ull << EXIT_TIMEOUT) ||
	    waited_ns > (EXIT_RETRY_CNT + 2) * (4096ull << EXIT_TIMEOUT))
		return fail(s,
			    "RETRY_EXC_ERR after %llu ns of simulated time, wanted %d timeouts "
			    "of %llu ns",
			    (unsigned long long)waited_ns, EXIT_RETRY_CNT + 1,
			    4096ull << EXIT_TIMEOUT);
	if (!wait_wc(s, s->scq, &wc, WC_WALL_S))
		return false;
	if (wc.wr_id != 8 || wc.status != HROCE_WC_WR_FLUSH_ERR)
		return fail(s, "the WRITE behind it: wr_id %llu completed with %s",
			    (unsigned long long)wc.wr_id, hroce_wc_status_name(wc.status));
	if (!wait_link(s, false, 5, &ws))
		return false;
	if (ws.link_downs < 1 || ws.frames_dropped < 1)
		return fail(s, "the peer died: %llu link downs, %llu frames dropped",
			    (unsigned long long)ws.link_downs,
			    (unsigned long long)ws.frames_dropped);
	/* the NIC itself still answers */
	if (hroce_query_qp(s->qp, &qa))
		return fail(s, "query_qp after the peer died");
	printf("# %s %s: the peer was killed; its WRITE failed with RETRY_EXC_ERR after %.1f ms "
	       "of simulated time, the link went down, %llu frames dropped, %.2f s of wall time\n",
	       s->scenario, s->name, (double)waited_ns / 1e6, (unsigned long long)ws.frames_dropped,
	       wall() - t0);
	print_world(s, "after the peer died");
	if (hroce_destroy_qp(s->qp))
		return fail(s, "destroy_qp of the orphaned QP");
	s->qp = NULL;
	milestone(s, 'd');
	/* a new process on the dead one's port */
	close(s->sock);
	s->sock = sock2;
	if (!side_connect(s) || !round_requester(s) || !recv_msg(s, MSG_BYE, &m))
		return false;
	if (!wait_link(s, false, 10, &ws))
		return false;
	print_world(s, "after the new peer left");
	if (ws.link_ups < 2 || ws.link_downs < 2)
		return fail(s, "%llu link ups and %llu downs, wanted 2 each",
			    (unsigned long long)ws.link_ups, (unsigned long long)ws.link_downs);
	t0 = wall();
	side_close(s);
	printf("# %s %s: closed in %.2f s\n", s->scenario, s->name, wall() - t0);
	return true;
}

static bool exit_responder(struct side *s, bool die)
{
	struct msg m = { .kind = die ? MSG_DYING : MSG_BYE };

	if (!side_open(s) || !side_connect(s) || !round_responder(s) || !send_msg(s, &m))
		return false;
	fflush(stdout);
	if (die)
		raise(SIGKILL);
	/* without closing anything: libhroce's exit handler stops the NIC, the link goes down */
	exit(0);
}

/* A file of len bytes in /dev/shm: what a crashed or foreign program left there. */
static bool plant_segment(struct side *s, const char *name, const void *head, size_t head_len,
			  size_t len)
{
	char path[128];
	uint8_t *junk = calloc(1, len + 1);
	int fd;
	bool ok;

	snprintf(path, sizeof(path), "/%s", name);
	fd = shm_open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || !junk)
		return fail(s, "shm_open %s: %s", path, strerror(errno));
	memset(junk, 0x5a, len);
	memcpy(junk, head, head_len);
	ok = write(fd, junk, len) == (ssize_t)len;
	close(fd);
	free(junk);
	return ok ? true : fail(s, "writing %s", path);
}

static void write_config(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
	setenv(HROCE_CONFIG_ENV, path, 1);
}

/* hroce_open(spec) must fail with err and a message holding says (and says2). */
static bool refused(struct side *s, const char *spec, int err, const char *says, const char *says2)
{
	struct hroce_dev *dev;

	last_log[0][0] = last_log[1][0] = 0;
	dev = hroce_open(spec, NULL);
	if (dev) {
		hroce_close(dev);
		return fail(s, "%s opened (wanted %s: %s)", spec, strerror(err), says);
	}
	if (errno != err || (!strstr(last_log[1], says) && !strstr(last_log[0], says)) ||
	    (says2 && !strstr(last_log[1], says2) && !strstr(last_log[0], says2)))
		return fail(s, "%s: %s, messages \"%s\" / \"%s\" (wanted %s: %s)", spec,
			    strerror(errno), last_log[1], last_log[0], strerror(err), says);
	printf("# %s: %s refused: %s\n", s->scenario, spec,
	       strstr(last_log[1], says) ? last_log[1] : last_log[0]);
	return true;
}

static bool segments(struct side *s, const char *conf, const char *wire)
{
	static const char dev_fmt[] = "[%s]\nmac = 02:00:0a:00:00:0%d\nipv4 = 10.0.0.%d\n"
				      "wire = %s\nport = %d\nlink_ns = %d\n";
	const uint64_t magic = 0x3130455249575248ull; /* "HRWIRE01" */
	uint8_t head[12];
	char text[512], w[4][160], msg[200];
	struct hroce_dev *a, *b;
	bool ok;

	hroce_set_log(log_hroce, NULL);
	hroce_sim_set_log(log_sim, NULL);
	for (int i = 0; i < 4; i++)
		snprintf(w[i], sizeof(w[i]), "%s-%d", wire, i);
	/* garbage */
	snprintf(text, sizeof(text), dev_fmt, "hroce0", 1, 1, w[0], 0, 100);
	write_config(conf, text);
	snprintf(msg, sizeof(msg), "rm /dev/shm/%s", w[0]);
	ok = plant_segment(s, w[0], "garbage", 7, 4096) &&
	     refused(s, "sim:hroce0", EPROTO, "is not a HardRoCE wire", msg);
	/* a wire of another version */
	memcpy(head, &magic, 8);
	memcpy(head + 8, &(uint32_t){ 99 }, 4);
	snprintf(text, sizeof(text), dev_fmt, "hroce0", 1, 1, w[1], 0, 100);
	write_config(conf, text);
	ok = ok && plant_segment(s, w[1], head, sizeof(head), 8192) &&
	     refused(s, "sim:hroce0", EPROTO, "a wire of version 99", NULL);
	/* empty: its creator never wrote it */
	snprintf(text, sizeof(text), dev_fmt, "hroce0", 1, 1, w[2], 0, 100);
	write_config(conf, text);
	ok = ok && plant_segment(s, w[2], "", 0, 0) &&
	     refused(s, "sim:hroce0", EPROTO, "empty", NULL);
	if (!ok)
		return false;
	/* a good wire: other parameters, a port held, then free again */
	snprintf(text, sizeof(text), dev_fmt, "hroce0", 1, 1, w[3], 0, 100);
	write_config(conf, text);
	a = hroce_open("sim:hroce0", NULL);
	if (!a)
		return fail(s, "sim:hroce0 on a new wire: %s", strerror(errno));
	snprintf(text, sizeof(text), dev_fmt, "hroce1", 2, 2, w[3], 1, 200);
	write_config(conf, text);
	ok = refused(s, "sim:hroce1", EINVAL, "this side asks", NULL);
	snprintf(text, sizeof(text), dev_fmt, "hroce1", 2, 2, w[3], 0, 100);
	write_config(conf, text);
	ok = ok && refused(s, "sim:hroce1", EBUSY, "is held by pid", "(this process)");
	hroce_close(a);
	b = hroce_open("sim:hroce1", NULL);
	if (!b && ok)
		ok = fail(s, "the port, once left, cannot be taken: %s", strerror(errno));
	hroce_close(b);
	for (int i = 0; i < 4; i++)
		hroce_sim_wire_unlink(w[i]);
	return ok;
}

/* A lone NIC, idle: asleep, the process costs next to nothing, even busy-polling. */
static bool idle(struct side *s)
{
	struct hroce_sim_world_stats a, b;
	double took, asleep, polling;
	bool ok = true;

	if (!side_open(s) || !wait_asleep(s, 10, &took))
		return false;
	hroce_sim_world_stats(s->w, &a);
	asleep = cpu_share(s, 2.0, false);
	polling = cpu_share(s, 2.0, true);
	hroce_sim_world_stats(s->w, &b);
	printf("# %s %s: asleep %.0f ms after hroce_open returned; over 2 s of wall time the "
	       "process then used %.2f%% of a core, and %.2f%% busy-polling its CQ (poll_cq, "
	       "idle) for 2 s; %llu cycles evaluated meanwhile\n",
	       s->scenario, s->name, took * 1e3, asleep * 100, polling * 100,
	       (unsigned long long)(b.cycles_run - a.cycles_run));
	if (asleep >= CPU_BOUND || polling >= CPU_BOUND)
		ok = fail(s, "%.1f%% and %.1f%% of a core", asleep * 100, polling * 100);
	else if (b.cycles_run != a.cycles_run)
		ok = fail(s, "a sleeping NIC evaluated %llu cycles",
			  (unsigned long long)(b.cycles_run - a.cycles_run));
	side_close(s);
	return ok;
}

/* ===================================================================================== */
/* The parent: writes the configuration, starts the sides, judges how they ended */

static char conf_path[512], wire_name[128];
static uint64_t seed;

/* ===================================================================================== */
/* lossy: faults on hroce0's side of the wire */

#define LOSSY_WQES 60
#define LOSSY_QPN 0x123 /* a QP hroce1 does not have: its core drops, and nothing answers */
/* message lengths, in turn: 3, 3, 1 and 4 frames of MTU 4096 */
static const uint32_t lossy_len[4] = { 12000, 12000, 100, 16000 };

struct lossy_report {
	struct hroce_sim_frame_fault_stats faults;
	uint64_t rx[HROCE_ROCE_RX_DROP_COUNT];
	uint64_t no_qp, received;
};

static unsigned int lossy_frames(void)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < LOSSY_WQES; i++)
		n += (lossy_len[i % 4] + 4095) / 4096;
	return n;
}

/* hroce0: WRITEs into the void, through the faults the configuration gave its wire. */
static bool lossy_requester(struct side *s)
{
	struct hroce_qp_init_attr ia = { .send_cq = s->scq,
					 .recv_cq = s->rcq,
					 .cap = { 64, 64, 4, 4, 128 } };
	struct hroce_sim_frame_fault_stats fs;
	struct hroce_sim_wire_stats ws;
	struct hroce_qp_attr a = { 0 };
	struct hroce_send_wr *bad;
	struct msg m = { .kind = MSG_DONE };
	double end;
	int err;

	s->qp = hroce_create_qp(s->pd, &ia);
	if (!s->qp)
		return fail(s, "create_qp: %s", strerror(errno));
	a.qp_state = HROCE_QPS_INIT;
	a.port_num = 1;
	err = hroce_modify_qp(s->qp, &a,
			      HROCE_QP_STATE | HROCE_QP_PKEY_INDEX | HROCE_QP_PORT |
				      HROCE_QP_ACCESS_FLAGS);
	a.qp_state = HROCE_QPS_RTR;
	a.path_mtu = HROCE_MTU_4096;
	a.dest_qp_num = LOSSY_QPN;
	memcpy(a.ah_attr.dmac, s->peer->mac, 6);
	hroce_gid_from_ipv4(s->peer->ipv4, a.ah_attr.dgid);
	a.ah_attr.sgid_index = HROCE_GID_INDEX_IPV4;
	err = err
		      ?: hroce_modify_qp(s->qp, &a,
					 HROCE_QP_STATE | HROCE_QP_AV | HROCE_QP_PATH_MTU |
						 HROCE_QP_DEST_QPN | HROCE_QP_RQ_PSN |
						 HROCE_QP_MAX_DEST_RD_ATOMIC |
						 HROCE_QP_MIN_RNR_TIMER);
	memset(&a, 0, sizeof(a));
	a.qp_state = HROCE_QPS_RTS;
	a.timeout = 0; /* no answer will come: never retransmit */
	err = err
		      ?: hroce_modify_qp(s->qp, &a,
					 HROCE_QP_STATE | HROCE_QP_SQ_PSN | HROCE_QP_TIMEOUT |
						 HROCE_QP_RETRY_CNT | HROCE_QP_RNR_RETRY |
						 HROCE_QP_MAX_QP_RD_ATOMIC);
	if (err)
		return fail(s, "QP to RTS: %s", strerror(err));
	for (unsigned int i = 0; i < LOSSY_WQES; i++) {
		struct hroce_sge sge = { (uintptr_t)s->buf, lossy_len[i % 4],
					 hroce_mr_lkey(s->mr) };
		struct hroce_send_wr wr = { .wr_id = i,
					    .sg_list = &sge,
					    .num_sge = 1,
					    .opcode = HROCE_WR_RDMA_WRITE,
					    .remote_addr = 0x10000,
					    .rkey = 0x1234 };

		err = hroce_post_send(s->qp, &wr, &bad);
		if (err)
			return fail(s, "post_send %u: %s", i, strerror(err));
	}
	/* until every frame left (and those held back went), in wall time */
	end = wall() + WC_WALL_S;
	do {
		hroce_idle(s->dev);
		hroce_sim_wire_stats(s->wire, &ws);
		hroce_sim_wire_fault_stats(s->wire, &fs);
	} while (ws.frames_sent < lossy_frames() && wall() < end);
	if (ws.frames_sent != lossy_frames() || fs.frames != lossy_frames())
		return fail(s, "%llu frames sent, %llu through the faults, %u expected",
			    (unsigned long long)ws.frames_sent, (unsigned long long)fs.frames,
			    lossy_frames());
	/* and the rule (a copy of the second WRITE_FIRST) fired once */
	if (!fs.dropped_random || !fs.dropped_burst || !fs.flipped || !fs.duplicated ||
	    !fs.reordered || fs.directed != 1)
		return fail(s,
			    "faults that did not happen: %llu lost, %llu in bursts, %llu "
			    "flipped, %llu copied, %llu held back",
			    (unsigned long long)fs.dropped_random,
			    (unsigned long long)fs.dropped_burst, (unsigned long long)fs.flipped,
			    (unsigned long long)fs.duplicated, (unsigned long long)fs.reordered);
	m.value = fs.frames - fs.dropped_random - fs.dropped_burst + fs.duplicated + fs.directed;
	if (!send_msg(s, &m) || !send_all(s, &fs, sizeof(fs)) || !recv_msg(s, MSG_BYE, &m))
		return false;
	return true;
}

/* hroce1: what came, counted by its core, against its own capture. */
static bool lossy_responder(struct side *s, int run)
{
	struct pcap_packet *pkt = malloc(sizeof(*pkt));
	uint64_t want[HROCE_ROCE_RX_DROP_COUNT] = { 0 }, captured = 0;
	struct lossy_report rep = { 0 };
	struct hroce_sim_wire_stats ws;
	struct msg m = { .kind = MSG_BYE };
	char path[600];
	struct pcap_file *pf;
	struct roce_hdr h;
	double end;
	FILE *f;
	int err;

	if (!pkt || !recv_msg(s, MSG_DONE, &m) || !recv_all(s, &rep.faults, sizeof(rep.faults)))
		return fail(s, "no word from hroce0");
	end = wall() + WC_WALL_S;
	do {
		hroce_idle(s->dev);
		hroce_sim_wire_stats(s->wire, &ws);
	} while (ws.frames_received < m.value && wall() < end);
	for (unsigned int i = 0; i < HROCE_ROCE_RX_DROP_COUNT; i++)
		rep.rx[i] = hroce_rx_counter(s->dev, i);
	rep.no_qp = hroce_core_counter(s->dev, HROCE_CORE_COUNTER_RX_NO_QP);
	rep.received = ws.frames_received;
	/* the capture is complete once the wire is closed */
	side_close(s);
	snprintf(path, sizeof(path), "%s.pcap", conf_path);
	pf = pcap_open_read(path);
	if (!pf)
		return fail(s, "pcap %s: %s", path, strerror(errno));
	while (!(err = pcap_read(pf, pkt))) {
		captured++;
		want[roce_parse(pkt->data, pkt->len, &h, &(const uint8_t *){ NULL })]++;
	}
	pcap_close(pf);
	free(pkt);
	printf("# lossy hroce1: %llu of %llu frames came (%llu lost, %llu in bursts, %llu copies, "
	       "%llu held back): %llu taken (no QP), dropped: %llu icrc, %llu ip_checksum, %llu "
	       "others\n",
	       (unsigned long long)rep.received, (unsigned long long)rep.faults.frames,
	       (unsigned long long)rep.faults.dropped_random,
	       (unsigned long long)rep.faults.dropped_burst,
	       (unsigned long long)rep.faults.duplicated, (unsigned long long)rep.faults.reordered,
	       (unsigned long long)rep.rx[0], (unsigned long long)rep.rx[HROCE_ROCE_RX_DROP_ICRC],
	       (unsigned long long)rep.rx[HROCE_ROCE_RX_DROP_IP_CHECKSUM],
	       (unsigned long long)(rep.received - rep.rx[0] - rep.rx[HROCE_ROCE_RX_DROP_ICRC] -
				    rep.rx[HROCE_ROCE_RX_DROP_IP_CHECKSUM]));
	if (err > 0 || rep.received != m.value || captured != m.value)
		return fail(s, "%llu frames received, %llu captured, %llu sent through the faults",
			    (unsigned long long)rep.received, (unsigned long long)captured,
			    (unsigned long long)m.value);
	for (unsigned int i = 0; i < HROCE_ROCE_RX_DROP_COUNT; i++)
		if (rep.rx[i] != want[i])
			return fail(s, "rx.%s: the core counted %llu, its capture says %llu",
				    hroce_roce_rx_drop_name(i), (unsigned long long)rep.rx[i],
				    (unsigned long long)want[i]);
	if (rep.no_qp != want[ROCE_OK] ||
	    rep.rx[HROCE_ROCE_RX_DROP_ICRC] + rep.rx[HROCE_ROCE_RX_DROP_IP_CHECKSUM] == 0)
		return fail(s, "%llu frames taken, %llu dropped for no QP, no flip caught",
			    (unsigned long long)want[ROCE_OK], (unsigned long long)rep.no_qp);
	/* each flipped frame came damaged, and so did its copy if it had one */
	if (rep.received - want[ROCE_OK] < rep.faults.flipped ||
	    rep.received - want[ROCE_OK] > rep.faults.flipped + rep.faults.duplicated)
		return fail(s, "%llu damaged frames came, %llu were flipped (%llu copies)",
			    (unsigned long long)(rep.received - want[ROCE_OK]),
			    (unsigned long long)rep.faults.flipped,
			    (unsigned long long)rep.faults.duplicated);
	/* what the parent compares between two runs of one seed */
	snprintf(path, sizeof(path), "%s.lossy%d", conf_path, run);
	f = fopen(path, "w");
	if (!f || fwrite(&rep, sizeof(rep), 1, f) != 1 || fclose(f))
		return fail(s, "%s: %s", path, strerror(errno));
	return send_msg(s, &(struct msg){ .kind = MSG_BYE });
}

static bool lossy_side(struct side *s, int run)
{
	bool ok;

	s->scenario = "lossy";
	if (!side_open(s))
		return false;
	ok = s->role ? lossy_responder(s, run) : lossy_requester(s);
	side_close(s);
	return ok;
}

typedef bool (*side_fn)(struct side *s, int arg);

static void write_pair_config(const char *scenario, bool pcap)
{
	bool lossy = !strcmp(scenario, "lossy");
	FILE *f;

	snprintf(wire_name, sizeof(wire_name), "hroce-t%d-%s", (int)getpid(), scenario);
	f = fopen(conf_path, "w");
	if (!f) {
		perror(conf_path);
		exit(1);
	}
	/* PCIe quicker than a real bus, as test_rc has it, so that the test runs fast */
	for (int i = 0; i < 2; i++) {
		fprintf(f,
			"[hroce%d]\nmac = 02:00:0a:00:00:0%d\nipv4 = 10.0.0.%d\nwire = %s\n"
			"port = %d\npcie_read_ns = 100\npcie_write_ns = 100\nlink_ns = 100\n"
			"link_gbps = 100\n",
			i, i + 1, i + 1, wire_name, i);
		if (pcap && i == lossy)
			fprintf(f, "pcap = %s.pcap\n", conf_path);
		/* hroce0's frames meet every kind of fault, each at least once but once in 10^8
		 * runs */
		if (lossy && !i)
			fprintf(f,
				"loss = 0.15\nloss_burst = 0.12 0.4 0.8\nflip = 0.25\ndup = 0.25\n"
				"reorder = 0.2 2\nfault_seed = %llu\n"
				"fault_rules = dup 2 opcode=0x06\n",
				(unsigned long long)seed);
	}
	if (fclose(f)) {
		perror(conf_path);
		exit(1);
	}
}

/* A side in a child process; it closes the descriptors that are not its own. */
static pid_t spawn(const char *scenario, int role, int sock, int arg, int status_fd,
		   const int *others, int nothers, side_fn fn)
{
	struct side s = {
		.scenario = scenario, .role = role, .sock = sock, .status_fd = status_fd
	};
	pid_t pid;
	bool ok;

	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	for (int i = 0; i < nothers; i++)
		close(others[i]);
	s.seed = seed ^ ((uint64_t)(role + 1) << 32) ^ (uint64_t)getpid();
	setenv(HROCE_CONFIG_ENV, conf_path, 1);
	ok = fn(&s, arg);
	if (!ok)
		printf("# %s %s: %s\n", scenario, s.name[0] ? s.name : "side", s.why);
	fflush(stdout);
	_exit(ok ? 0 : 1);
}

/* How a child ended: WEXITSTATUS 0 is what a side that passed does. */
static const char *ended(pid_t pid, double deadline, bool killed_expected)
{
	static char why[128];
	int status = 0;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 || wall() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return "hung (killed after the time limit)";
		}
		usleep(10000);
	}
	if (killed_expected)
		return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? NULL : "did not die";
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return NULL;
	if (WIFSIGNALED(status))
		snprintf(why, sizeof(why), "killed by signal %d", WTERMSIG(status));
	else
		snprintf(why, sizeof(why), "failed (exit %d)", WEXITSTATUS(status));
	return why;
}

static bool wait_milestone(int fd, char want)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	char c;

	return poll(&pfd, 1, (int)(CHILD_WALL_S * 1000)) == 1 && read(fd, &c, 1) == 1 && c == want;
}

static void result(struct bench *b, const char *test, const char *a, const char *bb)
{
	bench_result(b, test, !a && !bb, "hroce0 %s, hroce1 %s (see the lines above)",
		     a ? a : "passed", bb ? bb : "passed");
}

static bool traffic_side(struct side *s, int arg)
{
	(void)arg;
	return traffic(s);
}

static bool late_side(struct side *s, int arg)
{
	(void)arg;
	return late(s);
}

static bool exit_side(struct side *s, int arg)
{
	return s->role ? exit_responder(s, arg) : exit_requester(s, arg);
}

static bool segments_side(struct side *s, int arg)
{
	char conf[600];

	(void)arg;
	snprintf(conf, sizeof(conf), "%s.seg", conf_path);
	s->scenario = "segments";
	snprintf(s->name, sizeof(s->name), "process");
	return segments(s, conf, wire_name);
}

static bool idle_side(struct side *s, int arg)
{
	(void)arg;
	return idle(s);
}

static void run_pair(struct bench *b, const char *scenario, bool pcap, bool late_start)
{
	int sv[2], st[2];
	pid_t pa, pb;
	double deadline;
	const char *ra, *rb;
	char test[64];

	write_pair_config(scenario, pcap);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || pipe(st)) {
		perror("socketpair");
		exit(1);
	}
	deadline = wall() + CHILD_WALL_S;
	pa = spawn(scenario, 0, sv[0], 0, st[1], (const int[]){ sv[1], st[0] }, 2,
		   late_start ? late_side : traffic_side);
	if (late_start && !wait_milestone(st[0], 'r'))
		printf("# %s: hroce0 never fell asleep alone\n", scenario);
	pb = spawn(scenario, 1, sv[1], 0, st[1], (const int[]){ sv[0], st[0] }, 2,
		   late_start ? late_side : traffic_side);
	close(sv[0]);
	close(sv[1]);
	close(st[1]);
	ra = ended(pa, deadline, false);
	rb = ended(pb, deadline, false);
	close(st[0]);
	snprintf(test, sizeof(test), "simrun_%s", scenario);
	result(b, test, ra, rb);
	hroce_sim_wire_unlink(wire_name);
	if (pcap) {
		char path[600];

		snprintf(path, sizeof(path), "%s.pcap", conf_path);
		unlink(path);
	}
}

static void run_exit(struct bench *b)
{
	int sv1[2], sv2[2], st[2];
	pid_t pa, pb, pc;
	double deadline;
	const char *ra, *rb, *rc;

	write_pair_config("exit", false);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv1) || socketpair(AF_UNIX, SOCK_STREAM, 0, sv2) ||
	    pipe(st)) {
		perror("socketpair");
		exit(1);
	}
	deadline = wall() + CHILD_WALL_S;
	pa = spawn("exit", 0, sv1[0], sv2[0], st[1], (const int[]){ sv1[1], sv2[1], st[0] }, 3,
		   exit_side);
	pb = spawn("exit", 1, sv1[1], true, st[1], (const int[]){ sv1[0], sv2[0], sv2[1], st[0] },
		   4, exit_side);
	close(sv1[0]);
	close(sv1[1]);
	close(sv2[0]);
	rb = ended(pb, deadline, true);
	if (!rb && !wait_milestone(st[0], 'd'))
		rb = "died, but hroce0 did not get past it";
	/* the dead one's successor, on its port */
	pc = spawn("exit", 1, sv2[1], false, st[1], (const int[]){ st[0] }, 1, exit_side);
	close(sv2[1]);
	close(st[1]);
	ra = ended(pa, deadline, false);
	rc = ended(pc, deadline, false);
	close(st[0]);
	bench_result(b, "simrun_exit", !ra && !rb && !rc,
		     "hroce0 %s, the hroce1 killed %s, the hroce1 after it %s", ra ? ra : "passed",
		     rb ? rb : "passed", rc ? rc : "passed");
	hroce_sim_wire_unlink(wire_name);
}

/* lossy, twice with one seed: the same faults, the same counters on the other side. */
static void run_lossy(struct bench *b)
{
	char path[2][600];
	uint8_t rep[2][sizeof(struct lossy_report)];
	const char *why = NULL;

	for (int run = 0; run < 2; run++) {
		int sv[2];
		pid_t pa, pb;
		double deadline;
		const char *ra, *rb;
		FILE *f;

		write_pair_config("lossy", true);
		snprintf(path[run], sizeof(path[run]), "%s.lossy%d", conf_path, run);
		unlink(path[run]);
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
			perror("socketpair");
			exit(1);
		}
		deadline = wall() + CHILD_WALL_S;
		pa = spawn("lossy", 0, sv[0], run, -1, (const int[]){ sv[1] }, 1, lossy_side);
		pb = spawn("lossy", 1, sv[1], run, -1, (const int[]){ sv[0] }, 1, lossy_side);
		close(sv[0]);
		close(sv[1]);
		ra = ended(pa, deadline, false);
		rb = ended(pb, deadline, false);
		result(b, run ? "simrun_lossy_again" : "simrun_lossy", ra, rb);
		hroce_sim_wire_unlink(wire_name);
		snprintf(path[run], sizeof(path[run]), "%s.pcap", conf_path);
		unlink(path[run]);
		snprintf(path[run], sizeof(path[run]), "%s.lossy%d", conf_path, run);
		f = fopen(path[run], "r");
		if (!f || fread(rep[run], sizeof(rep[run]), 1, f) != 1)
			why = "a run left no counters";
		if (f)
			fclose(f);
		unlink(path[run]);
	}
	if (!why && memcmp(rep[0], rep[1], sizeof(rep[0])))
		why = "two runs of one seed counted differently";
	bench_result(b, "simrun_lossy_same_seed", !why, "%s", why);
}

static void run_one(struct bench *b, const char *scenario, side_fn fn)
{
	const char *r;
	char test[64];
	pid_t pid;

	write_pair_config(scenario, false);
	pid = spawn(scenario, 0, -1, 0, -1, NULL, 0, fn);
	r = ended(pid, wall() + CHILD_WALL_S, false);
	snprintf(test, sizeof(test), "simrun_%s", scenario);
	bench_result(b, test, !r, "the process %s (see the lines above)", r);
	hroce_sim_wire_unlink(wire_name);
}

int main(int argc, char **argv)
{
	struct bench b;
	const char *dir = getenv("HROCE_TEST_TMP") ? getenv("HROCE_TEST_TMP") : "build";
	const char *only = getenv("HROCE_SIMRUN_ONLY"); /* one scenario, by name */
	char seg[600];

	setvbuf(stdout, NULL, _IOLBF, 0);
	bench_init(&b, "test_simrun", argc, argv);
	seed = b.seed;
	snprintf(conf_path, sizeof(conf_path), "%s/test_simrun-%d.conf", dir, (int)getpid());
	if (!only || !strcmp(only, "segments"))
		run_one(&b, "segments", segments_side);
	if (!only || !strcmp(only, "idle"))
		run_one(&b, "idle", idle_side);
	if (!only || !strcmp(only, "traffic"))
		run_pair(&b, "traffic", true, false);
	if (!only || !strcmp(only, "late"))
		run_pair(&b, "late", false, true);
	if (!only || !strcmp(only, "exit"))
		run_exit(&b);
	if (!only || !strcmp(only, "lossy"))
		run_lossy(&b);
	unlink(conf_path);
	snprintf(seg, sizeof(seg), "%s.seg", conf_path);
	unlink(seg);
	return bench_finish(&b);
}
