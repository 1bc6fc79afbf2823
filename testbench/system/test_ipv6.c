// SPDX-License-Identifier: MIT
/*
 * System bench of RoCEv2 over IPv6: two simulated NICs in one process on one link, driven
 * through libhroce.
 *
 * - the GID table: the link-local address (fe80:: and the MAC's modified EUI-64), the
 *   IPv4-mapped address, the configured IPv6 address, nothing past them.
 * - a QP pair connected by each GID index (0, 2, and 1 as the control) carries a SEND, a
 *   WRITE with immediate and a READ of several packets each way; the bytes are checked.
 * - the path a QP reports (query) is the one it was given.
 * - a device given an IPv6 address it cannot have (its own link-local one, a multicast
 *   one) is not opened.
 * - paths libhroce must refuse with EINVAL: source and destination GIDs of different
 *   families, a GID index past the table, a multicast destination, a flow label wider
 *   than 20 bits; the QP stays where it was.
 * - a path to an address nobody has: neighbour discovery gives up, modify to RTR is
 *   EHOSTUNREACH.
 * - every frame on the link (captured to a pcap, parsed by the C wire model, not the RTL):
 *   a good RoCE frame (ICRC included), of the family its QP pair was connected with, from
 *   and to the two GIDs of that pair, with the pair's flow label.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "hroce_contract.h"
#include "pcap.h"
#include "rc_env.h"
#include "roce_wire.h"

#define POLL_NS 2000000
#define MSG_LEN 3000 /* three packets at MTU 1024 */
#define BUF_LEN 16384
#define ACCESS_ALL (HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE | HROCE_ACCESS_REMOTE_READ)
#define FLOW_LABEL 0x12345

static const struct qp_caps caps = { 16, 16, 2, 2, 64 };

/* What the frames of a QP pair must show: its QPNs on each node, its GIDs, its flow label. */
struct pair_rec {
	unsigned int gid_index;
	uint32_t qpn[2];
	uint8_t gid[2][16];
	uint32_t flow_label;
	unsigned int frames;
	struct qp_pair qp; /* open to the end: the next pair's QPNs are not its */
};

static struct pair_rec recs[4];
static unsigned int nrecs;

static void test_gid_table(struct bench *b, struct env *e)
{
	static const uint8_t ll[16] = { 0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 0x01 };
	static const uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, [12] = 10, [15] = 1 };
	static const uint8_t global[16] = { 0xfd, [15] = 0x01 };
	struct hroce_dev_attr da;
	uint8_t g[3][16], past[16];
	int err = 0;

	for (unsigned int i = 0; i < 3 && !err; i++)
		err = hroce_query_gid(e->n[0].dev, i, g[i]);
	bench_result(
		b, "gid_table",
		!err && !memcmp(g[0], ll, 16) && !memcmp(g[1], v4, 16) && !memcmp(g[2], global, 16),
		"err %d, or a GID differs from fe80::ff:fe00:1, ::ffff:10.0.0.1, fd00::1", err);
	err = hroce_query_dev(e->n[0].dev, &da);
	bench_result(b, "gid_table_end",
		     !err && da.gid_tbl_len == 3 && hroce_query_gid(e->n[0].dev, 3, past) == EINVAL,
		     "gid_tbl_len %u", da.gid_tbl_len);
}

static char last_log[400];

static void keep_log(void *ctx, enum hroce_log_level level, const char *msg)
{
	(void)ctx;
	if (level == HROCE_LOG_ERR)
		snprintf(last_log, sizeof(last_log), "%s", msg);
}

/* A device given an IPv6 address it cannot have is not opened: EINVAL, and a message. */
static void test_bad_address(struct bench *b, struct env *e)
{
	static const struct {
		const char *name;
		uint8_t a[16];
	} cases[] = {
		/* 02:00:00:00:00:03's own link-local address */
		{ "open_refuses_own_link_local",
		  { 0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 0x03 } },
		{ "open_refuses_multicast", { 0xff, 0x02, [15] = 0x01 } },
	};
	struct hroce_sim_params sp = { .name = "bench-c" };
	struct hroce_sim *sim = hroce_sim_create(e->w, &sp);

	if (!bench_result(b, "open_third_nic", sim, "%s", strerror(errno)))
		return;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct hroce_dev_params dp = { .mac = { 0x02, [5] = 0x03 }, .ipv4 = 0x0a000003 };
		struct hroce_dev *dev;

		memcpy(dp.ipv6[0], cases[k].a, 16);
		dp.nipv6 = 1;
		last_log[0] = 0;
		hroce_set_log(keep_log, NULL);
		errno = 0;
		dev = hroce_open("sim:bench-c", &dp);
		hroce_set_log(NULL, NULL);
		bench_result(b, cases[k].name, !dev && errno == EINVAL && strstr(last_log, "IPv6"),
			     "open %s (errno %d), log \"%s\"", dev ? "succeeded" : "failed", errno,
			     last_log);
		if (dev)
			hroce_close(dev);
	}
	hroce_sim_destroy(sim);
}

/* One operation from node `from` on the pair; true if its bytes arrived whole. */
static bool one_op(struct bench *b, struct env *e, struct qp_pair *qp, int from,
		   enum hroce_wr_opcode op, uint8_t *src, struct hroce_mr *smr, uint8_t *dst,
		   struct hroce_mr *dmr, const char **why)
{
	struct hroce_sge sge = { (uintptr_t)src, MSG_LEN, hroce_mr_lkey(smr) };
	struct hroce_sge rsge = { (uintptr_t)dst, BUF_LEN, hroce_mr_lkey(dmr) };
	struct hroce_send_wr wr = { .wr_id = 1,
				    .sg_list = &sge,
				    .num_sge = 1,
				    .opcode = op,
				    .send_flags = HROCE_SEND_SIGNALED,
				    .imm_data = htobe32(0x600d),
				    .remote_addr = (uintptr_t)dst,
				    .rkey = hroce_mr_rkey(dmr) };
	struct hroce_recv_wr rwr = { .wr_id = 2, .sg_list = &rsge, .num_sge = 1 };
	bool recv = op != HROCE_WR_RDMA_READ && op != HROCE_WR_RDMA_WRITE;
	struct node *n = &e->n[from], *peer = &e->n[1 - from];
	struct hroce_send_wr *bad;
	struct hroce_recv_wr *rbad;
	struct hroce_wc wc;

	memset(src, 0, BUF_LEN);
	memset(dst, 0, BUF_LEN);
	bench_fill(b, op == HROCE_WR_RDMA_READ ? dst : src, MSG_LEN);
	if ((recv && hroce_post_recv(qp->qp[1 - from], &rwr, &rbad)) ||
	    hroce_post_send(qp->qp[from], &wr, &bad)) {
		*why = "post failed";
		return false;
	}
	if (env_poll(e, n->scq, 1, &wc, POLL_NS) != 1 || wc.status != HROCE_WC_SUCCESS) {
		*why = "no good send completion";
		return false;
	}
	if (recv && (env_poll(e, peer->rcq, 1, &wc, POLL_NS) != 1 ||
		     wc.status != HROCE_WC_SUCCESS || wc.byte_len != MSG_LEN)) {
		*why = "no good receive completion";
		return false;
	}
	*why = "data differs";
	return !memcmp(src, dst, MSG_LEN);
}

static void test_path(struct bench *b, struct env *e, unsigned int gid_index, const char *name)
{
	static const enum hroce_wr_opcode ops[] = { HROCE_WR_SEND, HROCE_WR_RDMA_WRITE_WITH_IMM,
						    HROCE_WR_RDMA_READ };
	uint8_t *buf[2] = { env_alloc(BUF_LEN), env_alloc(BUF_LEN) };
	struct hroce_mr *mr[2];
	struct pair_rec *r = &recs[nrecs];
	struct hroce_qp_attr qa;
	struct qp_pair *qp = &r->qp;
	const char *why = "";
	char label[64];
	bool ok = true;
	int err;

	for (int i = 0; i < 2; i++)
		mr[i] = hroce_reg_mr(e->n[i].pd, buf[i], BUF_LEN, ACCESS_ALL, 0);
	e->gid_index = gid_index;
	e->flow_label = gid_index == HROCE_GID_INDEX_IPV4 ? 0 : FLOW_LABEL;
	err = qp_pair_open(e, qp, HROCE_MTU_1024, &caps, ACCESS_ALL);
	snprintf(label, sizeof(label), "%s_connect", name);
	if (!bench_result(b, label, !err && mr[0] && mr[1], "%s", strerror(err ?: errno)))
		goto out;
	r->gid_index = gid_index;
	r->flow_label = e->flow_label;
	for (int i = 0; i < 2; i++) {
		r->qpn[i] = hroce_qp_num(qp->qp[i]);
		hroce_query_gid(e->n[i].dev, gid_index, r->gid[i]);
	}
	nrecs++;
	for (int from = 0; from < 2 && ok; from++)
		for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]) && ok; k++)
			ok = one_op(b, e, qp, from, ops[k], buf[from], mr[from], buf[1 - from],
				    mr[1 - from], &why);
	snprintf(label, sizeof(label), "%s_ops", name);
	bench_result(b, label, ok, "%s", why);
	err = hroce_query_qp(qp->qp[0], &qa);
	snprintf(label, sizeof(label), "%s_query", name);
	bench_result(b, label,
		     !err && qa.ah_attr.sgid_index == gid_index &&
			     !memcmp(qa.ah_attr.dgid, r->gid[1], 16) &&
			     qa.ah_attr.flow_label == r->flow_label,
		     "err %d, sgid_index %u, flow label 0x%x", err, qa.ah_attr.sgid_index,
		     qa.ah_attr.flow_label);
out:
	e->gid_index = HROCE_GID_INDEX_IPV4;
	e->flow_label = 0;
	for (int i = 0; i < 2; i++) {
		if (mr[i])
			hroce_dereg_mr(mr[i]);
		free(buf[i]);
	}
}

static void test_refused(struct bench *b, struct env *e)
{
	static const uint8_t mcast[16] = { 0xff, 0x02, [15] = 1 };
	struct node *n = &e->n[0];
	struct hroce_qp_init_attr ia = { .send_cq = n->scq,
					 .recv_cq = n->rcq,
					 .cap = { 4, 4, 1, 1 } };
	struct hroce_qp *qp = hroce_create_qp(n->pd, &ia);
	const unsigned int rtr = HROCE_QP_STATE | HROCE_QP_AV | HROCE_QP_PATH_MTU |
				 HROCE_QP_DEST_QPN | HROCE_QP_RQ_PSN | HROCE_QP_MAX_DEST_RD_ATOMIC |
				 HROCE_QP_MIN_RNR_TIMER;
	struct hroce_qp_attr a = { .qp_state = HROCE_QPS_INIT, .port_num = 1 };
	struct {
		const char *name;
		unsigned int sgid_index, dgid_from; /* dgid: node 1's GID at that index */
		const uint8_t *dgid;		    /* or this one */
		uint32_t flow_label;
		const char *says; /* in the message the library logs */
	} cases[] = {
		{ "refuse_v4_to_v6", HROCE_GID_INDEX_IPV4, HROCE_GID_INDEX_LINK_LOCAL, NULL, 0,
		  "one family" },
		{ "refuse_v6_to_v4", HROCE_GID_INDEX_LINK_LOCAL, HROCE_GID_INDEX_IPV4, NULL, 0,
		  "one family" },
		{ "refuse_gid_past_table", 3, HROCE_GID_INDEX_IPV6, NULL, 0, "sgid_index" },
		{ "refuse_multicast", HROCE_GID_INDEX_IPV6, 0, mcast, 0, "unicast" },
		{ "refuse_flow_label", HROCE_GID_INDEX_IPV6, HROCE_GID_INDEX_IPV6, NULL, 1u << 20,
		  "flow_label" },
	};
	int err;

	if (!bench_result(b, "refuse_setup",
			  qp && !hroce_modify_qp(qp, &a,
						 HROCE_QP_STATE | HROCE_QP_PKEY_INDEX |
							 HROCE_QP_PORT | HROCE_QP_ACCESS_FLAGS),
			  "a QP in INIT: %s", strerror(errno)))
		return;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct hroce_qp_attr q;

		memset(&a, 0, sizeof(a));
		a.qp_state = HROCE_QPS_RTR;
		a.path_mtu = HROCE_MTU_1024;
		a.dest_qp_num = 1;
		memcpy(a.ah_attr.dmac, e->n[1].mac, 6);
		a.ah_attr.sgid_index = (uint8_t)cases[k].sgid_index;
		a.ah_attr.flow_label = cases[k].flow_label;
		if (cases[k].dgid)
			memcpy(a.ah_attr.dgid, cases[k].dgid, 16);
		else
			hroce_query_gid(e->n[1].dev, cases[k].dgid_from, a.ah_attr.dgid);
		last_log[0] = 0;
		hroce_set_log(keep_log, NULL);
		err = hroce_modify_qp(qp, &a, rtr);
		hroce_set_log(NULL, NULL);
		bench_result(b, cases[k].name,
			     err == EINVAL && !hroce_query_qp(qp, &q) &&
				     q.qp_state == HROCE_QPS_INIT &&
				     strstr(last_log, cases[k].says),
			     "modify gave %d (%s), want EINVAL, the QP still in INIT, and a "
			     "message with \"%s\": \"%s\"",
			     err, strerror(err), cases[k].says, last_log);
	}
	hroce_destroy_qp(qp);
}

/*
 * A path to an IPv6 address nobody on the link has, with no MAC given: neighbour
 * discovery asks and gives up, and modify to RTR fails with EHOSTUNREACH, the QP still in
 * INIT. This world is stepped by hand, cycle by cycle: the solicitations are made 4 us
 * apart here (REG_ARP_RETRY), not a second (test_perftest's runs, in NICs of their own
 * that jump their clocks, keep the default).
 */
static void test_unanswered(struct bench *b, struct env *e)
{
	static const uint8_t nobody[16] = { 0xfd, [15] = 0x99 };
	struct node *n = &e->n[0];
	struct hroce_qp_init_attr ia = { .send_cq = n->scq,
					 .recv_cq = n->rcq,
					 .cap = { 4, 4, 1, 1 } };
	struct hroce_qp *qp = hroce_create_qp(n->pd, &ia);
	struct hroce_qp_attr a = { .qp_state = HROCE_QPS_INIT, .port_num = 1 }, q;
	uint64_t sent = hroce_net_counter(n->dev, HROCE_NET_COUNTER_ND_SOLICIT_SENT);
	uint64_t failed = hroce_net_counter(n->dev, HROCE_NET_COUNTER_ND_FAILED);
	struct timespec t0, t1;
	int err;

	if (!bench_result(b, "unanswered_setup",
			  qp && !hroce_modify_qp(qp, &a,
						 HROCE_QP_STATE | HROCE_QP_PKEY_INDEX |
							 HROCE_QP_PORT | HROCE_QP_ACCESS_FLAGS),
			  "a QP in INIT: %s", strerror(errno)))
		return;
	memset(&a, 0, sizeof(a));
	a.qp_state = HROCE_QPS_RTR;
	a.path_mtu = HROCE_MTU_1024;
	a.dest_qp_num = 1;
	a.ah_attr.sgid_index = HROCE_GID_INDEX_IPV6;
	memcpy(a.ah_attr.dgid, nobody, 16);
	hroce_sim_mmio_write64(n->sim, HROCE_REG_ARP_RETRY,
			       (uint64_t)1000 << HROCE_ARP_RETRY_INTERVAL_LSB |
				       (uint64_t)3 << HROCE_ARP_RETRY_TRIES_LSB);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = hroce_modify_qp(qp, &a,
			      HROCE_QP_STATE | HROCE_QP_AV | HROCE_QP_PATH_MTU | HROCE_QP_DEST_QPN |
				      HROCE_QP_RQ_PSN | HROCE_QP_MAX_DEST_RD_ATOMIC |
				      HROCE_QP_MIN_RNR_TIMER);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	hroce_sim_mmio_write64(
		n->sim, HROCE_REG_ARP_RETRY,
		(uint64_t)HROCE_ARP_INTERVAL_DEFAULT << HROCE_ARP_RETRY_INTERVAL_LSB |
			(uint64_t)HROCE_ARP_TRIES_DEFAULT << HROCE_ARP_RETRY_TRIES_LSB);
	sent = hroce_net_counter(n->dev, HROCE_NET_COUNTER_ND_SOLICIT_SENT) - sent;
	failed = hroce_net_counter(n->dev, HROCE_NET_COUNTER_ND_FAILED) - failed;
	bench_result(b, "unanswered_ehostunreach",
		     err == EHOSTUNREACH && !hroce_query_qp(qp, &q) &&
			     q.qp_state == HROCE_QPS_INIT && sent == 3 && failed == 1,
		     "modify gave %d (%s), %llu solicitations, %llu failed", err, strerror(err),
		     (unsigned long long)sent, (unsigned long long)failed);
	bench_log(b, "unanswered: %llu solicitations, given up after %.2f s of wall time",
		  (unsigned long long)sent,
		  (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	hroce_destroy_qp(qp);
}

/* Every frame of the capture, checked against the pair its QPN belongs to. */
static void check_capture(struct bench *b, const char *path)
{
	static struct pcap_packet pkt;
	struct pcap_file *pf = pcap_open_read(path);
	unsigned int frames = 0, bad = 0, other = 0;
	char first_bad[160] = "";

	if (!bench_result(b, "capture_open", pf, "%s: %s", path, strerror(errno)))
		return;
	while (!pcap_read(pf, &pkt)) {
		struct roce_hdr h;
		const uint8_t *payload;
		enum roce_verdict v = roce_parse(pkt.data, pkt.len, &h, &payload);
		const struct pair_rec *r = NULL;
		int to = -1;

		if (v == ROCE_NOT_ROCE) {
			other++; /* ARP and the like */
			continue;
		}
		frames++;
		/* the frame goes to node `to`: its destination QPN is that node's */
		for (unsigned int i = 0; i < nrecs && !r; i++)
			for (int k = 0; k < 2 && !r; k++)
				if (recs[i].qpn[k] == h.dqpn && h.eth_dst[5] == k + 1) {
					r = &recs[i];
					to = k;
				}
		const char *what = v != ROCE_OK ? roce_verdict_name(v)
				   : !r		? "a QPN of no pair"
				   : h.ip6 != (r->gid_index != HROCE_GID_INDEX_IPV4)
					   ? "the wrong family"
				   : h.ip6 && (memcmp(h.ip6_dst, r->gid[to], 16) ||
					       memcmp(h.ip6_src, r->gid[1 - to], 16))
					   ? "IPv6 addresses not the pair's GIDs"
				   : h.ip6 && h.flow_label != r->flow_label ? "the wrong flow label"
				   : !h.ip6 && (h.ip_dst != (0x0a000001u + (uint32_t)to) ||
						h.ip_src != (0x0a000002u - (uint32_t)to))
					   ? "IPv4 addresses not the pair's"
					   : NULL;
		if (what) {
			if (!bad++)
				snprintf(first_bad, sizeof(first_bad), "frame %u: %s", frames,
					 what);
		} else {
			recs[r - recs].frames++;
		}
	}
	pcap_close(pf);
	bench_result(b, "capture_frames", frames > 0 && !bad, "%u RoCE frames, %u bad (%s)", frames,
		     bad, first_bad);
	for (unsigned int i = 0; i < nrecs; i++) {
		char label[48];

		snprintf(label, sizeof(label), "capture_gid%u_frames", recs[i].gid_index);
		bench_result(b, label, recs[i].frames >= 12, "%u frames of the pair",
			     recs[i].frames);
	}
	bench_log(b, "%u RoCE frames checked, %u other frames", frames, other);
}

int main(int argc, char **argv)
{
	struct env_params p = { .pcie_read_ns = 100, .pcie_write_ns = 100, .link_ns = 50 };
	char path[] = "/tmp/hroce-test-ipv6-XXXXXX";
	struct bench b;
	struct env e;
	int fd;

	bench_init(&b, "test_ipv6", argc, argv);
	fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	p.pcap_path = path;
	env_open(&e, &b, &p);
	test_gid_table(&b, &e);
	test_bad_address(&b, &e);
	test_path(&b, &e, HROCE_GID_INDEX_LINK_LOCAL, "link_local");
	test_path(&b, &e, HROCE_GID_INDEX_IPV6, "global");
	test_path(&b, &e, HROCE_GID_INDEX_IPV4, "ipv4");
	test_refused(&b, &e);
	test_unanswered(&b, &e);
	for (unsigned int i = 0; i < nrecs; i++)
		qp_pair_close(&recs[i].qp);
	env_close(&e);
	check_capture(&b, path);
	unlink(path);
	return bench_finish(&b);
}
