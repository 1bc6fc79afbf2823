/* SPDX-License-Identifier: MIT */
/*
 * What the verbs test programs share: two devices of one process (hroce0 and hroce1 of
 * $HROCE_CONFIG, one wire), RC QPs connected between them through the real libibverbs
 * API, and a check that a pair moves data (a WRITE whose bytes, and the guard bytes
 * around them, are compared). The programs run under hroce-run and print "ok NAME" /
 * "not ok NAME: why" lines; their exit status is non-zero if one failed.
 */
#ifndef VERBS_PAIR_H
#define VERBS_PAIR_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* A device with a PD and a CQ of VP_CQE entries its QPs use by default. */
struct vp_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	union ibv_gid gid; /* the IPv4-mapped one, index VP_GID_INDEX */
};

#define VP_CQE 64
#define VP_GID_INDEX 1
#define VP_PORT 1

struct vp_results {
	unsigned int passed, failed;
};

extern struct vp_results vp_results;

/* Prints "ok NAME" or "not ok NAME: why" and counts it; returns ok. */
bool vp_result(const char *name, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The exit status: 0 if nothing failed. */
int vp_finish(void);

/* Opens the device of that name with its PD and CQ; false (reported) on failure. */
bool vp_open(struct vp_dev *d, const char *name);
void vp_close(struct vp_dev *d);

/* An RC QP on d with both CQs cq (d->cq if NULL) and small default sizes. */
struct ibv_qp *vp_create_qp(struct vp_dev *d, struct ibv_cq *cq);
/* The three modifies of a connection toward QP remote_qpn of device peer; 0 or errno. */
int vp_to_init(struct ibv_qp *qp);
int vp_to_rtr(struct ibv_qp *qp, const struct vp_dev *peer, uint32_t remote_qpn, uint32_t psn);
int vp_to_rts(struct ibv_qp *qp, uint32_t psn);
/* Connects a (on da) and b (on db) both ways; 0 or errno. */
int vp_connect(struct ibv_qp *a, struct vp_dev *da, struct ibv_qp *b, struct vp_dev *db);

/*
 * A WRITE of len bytes (up to 64 KiB) from a to b, signaled; true when it completed with
 * success within the time limit and every byte, and the guard bytes around the target,
 * are right. why gets the reason otherwise.
 */
bool vp_write_check(struct ibv_qp *a, struct vp_dev *da, struct ibv_qp *b, struct vp_dev *db,
		    uint32_t len, char *why, size_t why_len);
/* A fresh QP pair on da and db, connected, moves data; reported as NAME. */
bool vp_fresh_pair_check(const char *name, struct vp_dev *da, struct vp_dev *db);

/* Polls cq for one completion within timeout_ms: 1 found, 0 none, -1 poll error. */
int vp_poll_one(struct ibv_cq *cq, struct ibv_wc *wc, unsigned int timeout_ms);

#endif /* VERBS_PAIR_H */
