// SPDX-License-Identifier: MIT
/*
 * rkey_probe: what a wrong R_Key does to an RC connection, between two processes on any
 * two verbs devices (rxe in a guest, HardRoCE under hroce-run, ...). libibverbs only.
 *
 * The two sides connect an RC QP each, exchanging their addresses over TCP as
 * ibv_rc_pingpong does (the side given no address listens). The requester then posts one
 * RDMA WRITE or READ to the responder's buffer with an R_Key that is not the responder's
 * (all its bits flipped). As the IBTA specifies an R_Key violation on RC, the responder
 * NAKs it with Remote Access Error and its QP goes to the error state; the requester's
 * work request completes with IBV_WC_REM_ACCESS_ERR (and its QP goes to error too). The
 * two sides tell each other what they saw over TCP, and each prints, one per line:
 *   rkey_probe side=client|server role=requester|responder op=write|read
 *   rkey_probe requester wc_status=NAME (N) [qp_state=NAME]
 *   rkey_probe responder qp_state=NAME
 *   rkey_probe result=pass|fail
 * "pass" (exit 0) when the requester saw REM_ACCESS_ERR and the responder's QP is in ERR;
 * "fail" (exit 1) otherwise; exit 2 for a bad option or a set-up failure.
 *
 * usage: rkey_probe -d DEV -g GIDX [-p PORT] [-i IBPORT] [-o write|read]
 *                   [-r client|server] [-t SECONDS] [SERVER_ADDR]
 *   -d DEV      the verbs device (rxe0, hroce0, ...)
 *   -g GIDX     the GID index (the same meaning as ibv_rc_pingpong's -g)
 *   -p PORT     TCP port of the exchange (default 18515)
 *   -i IBPORT   the device's port (default 1)
 *   -o OP       the operation with the wrong R_Key: write (default) or read
 *   -r SIDE     the side that sends it, the requester: client (default) or server
 *   -t SECONDS  how long to wait for the completion and the peer (default 30)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <infiniband/verbs.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUF_SIZE 4096
#define XFER_SIZE 64
#define CQ_DEPTH 4
#define PSN_MASK 0xffffff
#define HOP_LIMIT 64
/* the local ACK timeout (4.096 us * 2^14: 67 ms) and retries of ibv_rc_pingpong */
#define ACK_TIMEOUT 14
#define RETRY_COUNT 7
#define MIN_RNR_TIMER 12
#define CONNECT_RETRY_MS 100
#define STATE_WAIT_MS 2000
/* "qpn psn rkey addr gid\n" in hex, fixed widths */
#define MSG_ADDR_LEN (6 + 1 + 6 + 1 + 8 + 1 + 16 + 1 + 32 + 1)
#define MSG_STATUS_LEN 12 /* "%11d\n" */

struct peer_addr {
	uint32_t qpn, psn, rkey;
	uint64_t addr;
	union ibv_gid gid;
};

struct probe {
	const char *dev_name, *server, *port;
	int gid_index, ib_port, timeout_s;
	bool read, server_requests;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	enum ibv_mtu mtu;
	void *buf;
	int sock;
};

static const char *const wc_status_names[] = {
	[IBV_WC_SUCCESS] = "SUCCESS",
	[IBV_WC_LOC_LEN_ERR] = "LOC_LEN_ERR",
	[IBV_WC_LOC_QP_OP_ERR] = "LOC_QP_OP_ERR",
	[IBV_WC_LOC_EEC_OP_ERR] = "LOC_EEC_OP_ERR",
	[IBV_WC_LOC_PROT_ERR] = "LOC_PROT_ERR",
	[IBV_WC_WR_FLUSH_ERR] = "WR_FLUSH_ERR",
	[IBV_WC_MW_BIND_ERR] = "MW_BIND_ERR",
	[IBV_WC_BAD_RESP_ERR] = "BAD_RESP_ERR",
	[IBV_WC_LOC_ACCESS_ERR] = "LOC_ACCESS_ERR",
	[IBV_WC_REM_INV_REQ_ERR] = "REM_INV_REQ_ERR",
	[IBV_WC_REM_ACCESS_ERR] = "REM_ACCESS_ERR",
	[IBV_WC_REM_OP_ERR] = "REM_OP_ERR",
	[IBV_WC_RETRY_EXC_ERR] = "RETRY_EXC_ERR",
	[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR_RETRY_EXC_ERR",
	[IBV_WC_LOC_RDD_VIOL_ERR] = "LOC_RDD_VIOL_ERR",
	[IBV_WC_REM_INV_RD_REQ_ERR] = "REM_INV_RD_REQ_ERR",
	[IBV_WC_REM_ABORT_ERR] = "REM_ABORT_ERR",
	[IBV_WC_INV_EECN_ERR] = "INV_EECN_ERR",
	[IBV_WC_INV_EEC_STATE_ERR] = "INV_EEC_STATE_ERR",
	[IBV_WC_FATAL_ERR] = "FATAL_ERR",
	[IBV_WC_RESP_TIMEOUT_ERR] = "RESP_TIMEOUT_ERR",
	[IBV_WC_GENERAL_ERR] = "GENERAL_ERR",
};

static const char *const qp_state_names[] = {
	[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT", [IBV_QPS_RTR] = "RTR",
	[IBV_QPS_RTS] = "RTS",	   [IBV_QPS_SQD] = "SQD",   [IBV_QPS_SQE] = "SQE",
	[IBV_QPS_ERR] = "ERR",
};

static const char *wc_status_name(int status)
{
	if (status >= 0 && (size_t)status < sizeof(wc_status_names) / sizeof(wc_status_names[0]) &&
	    wc_status_names[status])
		return wc_status_names[status];
	return "UNKNOWN";
}

static const char *qp_state_name(int state)
{
	if (state >= 0 && (size_t)state < sizeof(qp_state_names) / sizeof(qp_state_names[0]) &&
	    qp_state_names[state])
		return qp_state_names[state];
	return "UNKNOWN";
}

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "rkey_probe: %s%s%s\n", what, errno ? ": " : "",
		errno ? strerror(errno) : "");
	exit(2);
}

static void usage(void)
{
	fprintf(stderr, "usage: rkey_probe -d DEV -g GIDX [-p PORT] [-i IBPORT] [-o write|read] "
			"[-r client|server] [-t SECONDS] [SERVER_ADDR]\n");
	exit(2);
}

static int parse_int(const char *s, int lo, int hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < lo || v > hi) {
		fprintf(stderr, "rkey_probe: %s: want a number from %d to %d\n", s, lo, hi);
		usage();
	}
	return (int)v;
}

static void parse_args(struct probe *p, int argc, char **argv)
{
	int c;

	p->port = "18515";
	p->ib_port = 1;
	p->timeout_s = 30;
	p->gid_index = -1;
	while ((c = getopt(argc, argv, "d:g:p:i:o:r:t:")) != -1) {
		switch (c) {
		case 'd':
			p->dev_name = optarg;
			break;
		case 'g':
			p->gid_index = parse_int(optarg, 0, 65535);
			break;
		case 'p':
			parse_int(optarg, 1, 65535);
			p->port = optarg;
			break;
		case 'i':
			p->ib_port = parse_int(optarg, 1, 255);
			break;
		case 'o':
			if (strcmp(optarg, "write") && strcmp(optarg, "read"))
				usage();
			p->read = !strcmp(optarg, "read");
			break;
		case 'r':
			if (strcmp(optarg, "client") && strcmp(optarg, "server"))
				usage();
			p->server_requests = !strcmp(optarg, "server");
			break;
		case 't':
			p->timeout_s = parse_int(optarg, 1, 3600);
			break;
		default:
			usage();
		}
	}
	if (!p->dev_name || p->gid_index < 0 || argc - optind > 1)
		usage();
	p->server = optind < argc ? argv[optind] : NULL;
}

static void open_device(struct probe *p)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_port_attr port;

	if (!list)
		die("ibv_get_device_list");
	for (int i = 0; list[i] && !p->ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), p->dev_name))
			p->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	errno = 0;
	if (!p->ctx)
		die("no such device, or it would not open");
	if (ibv_query_port(p->ctx, p->ib_port, &port))
		die("ibv_query_port");
	p->mtu = port.active_mtu;
	p->pd = ibv_alloc_pd(p->ctx);
	p->buf = calloc(1, BUF_SIZE);
	if (!p->pd || !p->buf)
		die("ibv_alloc_pd");
	p->mr = ibv_reg_mr(p->pd, p->buf, BUF_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ);
	p->cq = ibv_create_cq(p->ctx, CQ_DEPTH, NULL, NULL, 0);
	if (!p->mr || !p->cq)
		die("ibv_reg_mr or ibv_create_cq");

	struct ibv_qp_init_attr init = {
		.send_cq = p->cq,
		.recv_cq = p->cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	p->qp = ibv_create_qp(p->pd, &init);
	if (!p->qp)
		die("ibv_create_qp");

	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = p->ib_port,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};
	if (ibv_modify_qp(p->qp, &attr,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("ibv_modify_qp to INIT");
}

/* The TCP connection of the exchange: the server accepts one, the client retries its
 * connect until the server listens or the timeout passes. */
static void connect_peer(struct probe *p)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	int one = 1, rc;

	if (!p->server)
		hints.ai_flags = AI_PASSIVE;
	rc = getaddrinfo(p->server, p->port, &hints, &res);
	if (rc) {
		fprintf(stderr, "rkey_probe: %s:%s: %s\n", p->server ? p->server : "*", p->port,
			gai_strerror(rc));
		exit(2);
	}
	if (!p->server) {
		int ls = socket(res->ai_family, res->ai_socktype, 0);

		if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
		    bind(ls, res->ai_addr, res->ai_addrlen) || listen(ls, 1))
			die("listen");
		p->sock = accept(ls, NULL, NULL);
		close(ls);
		if (p->sock < 0)
			die("accept");
	} else {
		for (int waited = 0;; waited += CONNECT_RETRY_MS) {
			p->sock = socket(res->ai_family, res->ai_socktype, 0);
			if (p->sock < 0)
				die("socket");
			if (!connect(p->sock, res->ai_addr, res->ai_addrlen))
				break;
			close(p->sock);
			if (waited >= p->timeout_s * 1000)
				die("connect");
			usleep(CONNECT_RETRY_MS * 1000);
		}
	}
	freeaddrinfo(res);
}

static void send_all(struct probe *p, const char *msg, size_t len)
{
	while (len) {
		ssize_t n = write(p->sock, msg, len);

		if (n <= 0)
			die("the exchange: write");
		msg += n;
		len -= (size_t)n;
	}
}

static void recv_all(struct probe *p, char *msg, size_t len)
{
	while (len) {
		ssize_t n = read(p->sock, msg, len);

		if (n <= 0) {
			if (n == 0)
				errno = ECONNRESET;
			die("the exchange: read");
		}
		msg += n;
		len -= (size_t)n;
	}
	*msg = 0;
}

static void exchange_addr(struct probe *p, struct peer_addr *peer)
{
	char msg[MSG_ADDR_LEN + 1], gid[33];
	union ibv_gid own_gid;
	uint32_t psn = (uint32_t)lrand48() & PSN_MASK;
	unsigned long long addr;

	if (ibv_query_gid(p->ctx, p->ib_port, p->gid_index, &own_gid))
		die("ibv_query_gid");
	for (int i = 0; i < 16; i++)
		sprintf(gid + 2 * i, "%02x", own_gid.raw[i]);
	snprintf(msg, sizeof(msg), "%06x %06x %08x %016llx %s\n", p->qp->qp_num, psn, p->mr->rkey,
		 (unsigned long long)(uintptr_t)p->buf, gid);
	send_all(p, msg, MSG_ADDR_LEN);
	recv_all(p, msg, MSG_ADDR_LEN);
	if (sscanf(msg, "%6x %6x %8x %16llx %32s", &peer->qpn, &peer->psn, &peer->rkey, &addr,
		   gid) != 5) {
		errno = 0;
		die("the exchange: the peer is not an rkey_probe");
	}
	peer->addr = addr;
	for (int i = 0; i < 16; i++) {
		unsigned int byte;

		sscanf(gid + 2 * i, "%2x", &byte);
		peer->gid.raw[i] = (uint8_t)byte;
	}

	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = p->mtu,
		.dest_qp_num = peer->qpn,
		.rq_psn = peer->psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = MIN_RNR_TIMER,
		.ah_attr = {
			.is_global = 1,
			.grh = { .dgid = peer->gid, .sgid_index = (uint8_t)p->gid_index,
				 .hop_limit = HOP_LIMIT },
			.port_num = (uint8_t)p->ib_port,
		},
	};
	if (ibv_modify_qp(p->qp, &attr,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("ibv_modify_qp to RTR");
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = psn;
	attr.timeout = ACK_TIMEOUT;
	attr.retry_cnt = RETRY_COUNT;
	attr.rnr_retry = RETRY_COUNT;
	attr.max_rd_atomic = 1;
	if (ibv_modify_qp(p->qp, &attr,
			  IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		die("ibv_modify_qp to RTS");
}

static int qp_state(struct probe *p)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	if (ibv_query_qp(p->qp, &attr, IBV_QP_STATE, &init))
		die("ibv_query_qp");
	return attr.qp_state;
}

/* The responder's state once it settled: the NAK may leave before the QP is moved to ERR */
static int responder_state(struct probe *p)
{
	int state = qp_state(p);

	for (int waited = 0; state != IBV_QPS_ERR && waited < STATE_WAIT_MS; waited++) {
		usleep(1000);
		state = qp_state(p);
	}
	return state;
}

/* Posts the WRITE or READ with the wrong R_Key; returns its completion's status, or -1 if
 * none came within the timeout. */
static int request(struct probe *p, const struct peer_addr *peer)
{
	struct ibv_sge sge = { .addr = (uintptr_t)p->buf,
			       .length = XFER_SIZE,
			       .lkey = p->mr->lkey };
	struct ibv_send_wr wr = {
		.opcode = p->read ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE,
		.sg_list = &sge,
		.num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = peer->addr, .rkey = ~peer->rkey },
	};
	struct ibv_send_wr *bad;
	struct timespec start, now;
	struct ibv_wc wc;
	int n;

	if (ibv_post_send(p->qp, &wr, &bad))
		die("ibv_post_send");
	clock_gettime(CLOCK_MONOTONIC, &start);
	while ((n = ibv_poll_cq(p->cq, 1, &wc)) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= p->timeout_s)
			return -1;
		usleep(1000);
	}
	if (n < 0)
		die("ibv_poll_cq");
	return wc.status;
}

int main(int argc, char **argv)
{
	struct probe p = { .sock = -1 };
	struct peer_addr peer;
	bool requester, pass;
	char msg[MSG_STATUS_LEN + 1];
	int status, state;

	parse_args(&p, argc, argv);
	requester = (p.server != NULL) != p.server_requests;
	srand48(getpid() * time(NULL));
	open_device(&p);
	connect_peer(&p);
	exchange_addr(&p, &peer);
	printf("rkey_probe side=%s role=%s op=%s\n", p.server ? "client" : "server",
	       requester ? "requester" : "responder", p.read ? "read" : "write");
	fflush(stdout);

	/* both QPs are ready to receive before the request goes */
	send_all(&p, "ready\n", 6);
	recv_all(&p, msg, 6);

	if (requester) {
		status = request(&p, &peer);
		state = qp_state(&p);
		printf("rkey_probe requester wc_status=%s (%d) qp_state=%s\n",
		       status < 0 ? "NONE" : wc_status_name(status), status, qp_state_name(state));
		snprintf(msg, sizeof(msg), "%11d\n", status);
		send_all(&p, msg, MSG_STATUS_LEN);
		recv_all(&p, msg, MSG_STATUS_LEN);
		state = atoi(msg);
	} else {
		recv_all(&p, msg, MSG_STATUS_LEN);
		status = atoi(msg);
		state = responder_state(&p);
		printf("rkey_probe requester wc_status=%s (%d)\n",
		       status < 0 ? "NONE" : wc_status_name(status), status);
		snprintf(msg, sizeof(msg), "%11d\n", state);
		send_all(&p, msg, MSG_STATUS_LEN);
	}
	printf("rkey_probe responder qp_state=%s\n", qp_state_name(state));
	pass = status == IBV_WC_REM_ACCESS_ERR && state == IBV_QPS_ERR;
	printf("rkey_probe result=%s\n", pass ? "pass" : "fail");

	close(p.sock);
	ibv_destroy_qp(p.qp);
	ibv_destroy_cq(p.cq);
	ibv_dereg_mr(p.mr);
	ibv_dealloc_pd(p.pd);
	ibv_close_device(p.ctx);
	free(p.buf);
	return pass ? 0 : 1;
}
