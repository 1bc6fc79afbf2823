/* SPDX-License-Identifier: MIT */
/*
 * The environment of the system benches: simulated NICs in one world, each opened through
 * libhroce, joined by links, with buffers of process memory registered as MRs, and RC QP
 * pairs connected between them.
 */
#ifndef RC_ENV_H
#define RC_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"
#include "hroce.h"
#include "hroce_sim.h"

#define ENV_MHZ 250

struct env_params {
	uint32_t pcie_read_ns, pcie_write_ns, pcie_gbps; /* 0 gbps: as fast as the bus */
	uint32_t pcie_reads, pcie_writes; /* bursts in flight at the bridge; 0: 32, a board's */
	uint32_t link_ns, link_gbps;
	const char *pcap_path;	       /* NULL: none */
	enum hroce_sim_model model[2]; /* each node's (0: the core alone) */
	unsigned int log_qps;	       /* log2 of each node's QP table (0: 6, 64 QPNs) */
	uint32_t mhz;		       /* the cores' clock (0: ENV_MHZ) */
};

struct node {
	const char *name;
	struct hroce_sim *sim;
	struct hroce_dev *dev;
	struct hroce_pd *pd;
	struct hroce_cq *scq, *rcq;
	uint8_t mac[6];
	uint32_t ipv4;
};

/* What QPs connected from now on get (env_open: timeout 14, 7 retries, min RNR 12). */
struct env_timers {
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
};

struct env {
	struct bench *b;
	struct hroce_sim_world *w;
	struct node n[2];
	struct hroce_sim_link *link;
	struct env_params p;
	struct env_timers t;
	/*
	 * The GID index QPs connected from now on use at both ends (env_open: the IPv4 one;
	 * each node also has its link-local address, 0, and fd00::1 or fd00::2, 2)
	 */
	unsigned int gid_index;
	uint32_t flow_label; /* of their paths (IPv6 only) */
};

/* The two NICs on one link; exits with a message if that fails. */
void env_open(struct env *e, struct bench *b, const struct env_params *p);
void env_close(struct env *e);
/* Let the world run (what a polling loop does when it finds nothing). */
void env_idle(struct env *e);
uint64_t env_ns(const struct env *e);

/* An RC QP on each node, connected to each other, in RTS. */
struct qp_pair {
	struct hroce_qp *qp[2];
	enum hroce_mtu mtu;
};
struct qp_caps {
	unsigned int send_wr, recv_wr, send_sge, recv_sge, inline_data;
};
int qp_pair_open(struct env *e, struct qp_pair *qp, enum hroce_mtu mtu, const struct qp_caps *caps,
		 unsigned int access);
/* The two QPs back to RESET and up again to RTS, with new PSNs. */
int qp_pair_reconnect(struct env *e, struct qp_pair *qp, uint32_t psn0, uint32_t psn1);
void qp_pair_close(struct qp_pair *qp);

/* Page-aligned memory that is freed with free(). */
void *env_alloc(size_t len);

/* Polls a CQ until n completions came or the world ran limit_ns more; returns how many. */
int env_poll(struct env *e, struct hroce_cq *cq, int n, struct hroce_wc *wc, uint64_t limit_ns);

/* IOVA faults of both NICs so far. */
uint64_t env_faults(const struct env *e);

/* A buffer of process memory registered on a node, filled with POISON; exits on failure. */
#define POISON 0xa5
struct buf {
	uint8_t *p;
	size_t len;
	struct hroce_mr *mr;
};
void buf_open(struct env *e, struct buf *b, int node, size_t len, unsigned int access,
	      unsigned int log_page);
void buf_close(struct buf *b);

/* Wall-clock seconds (monotonic), for the speed a run states. */
double env_wall_s(void);

/* The next completion of cq, within limit_ns of simulated time, is wr_id's with that
 * status (and opcode if it succeeded); otherwise a failed result, and false. */
bool env_expect_wc(struct env *e, const char *test, struct hroce_cq *cq, uint64_t wr_id,
		   enum hroce_wc_opcode op, enum hroce_wc_status status, uint64_t limit_ns);

/* A completion is wr_id's, with that status (and opcode if it succeeded); else a result. */
bool wc_ok(struct bench *b, const char *test, const struct hroce_wc *wc, uint64_t wr_id,
	   enum hroce_wc_opcode op, enum hroce_wc_status status);

#endif /* RC_ENV_H */
