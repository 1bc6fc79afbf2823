/* SPDX-License-Identifier: MIT */
/* What the parts of libhroce share: the objects behind the API's handles. */
#ifndef HROCE_PRIV_H
#define HROCE_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "hroce.h"
#include "hroce_bus.h"
#include "hroce_contract.h"

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#define HROCE_PAGE 4096u
/* The largest memory region (ibv_device_attr.max_mr_size): 40 bits of length. */
#define HROCE_MAX_MR_SIZE (UINT64_C(1) << 40)

/* Memory the device reaches: page-aligned process memory mapped at an IOVA. */
struct hroce_dma {
	void *vaddr;
	uint64_t iova;
	size_t len; /* a multiple of the page */
};

/*
 * A device, open once per process: a second hroce_open of its spec gets the same one (as
 * libibverbs' contexts of one device share it), counted in opens. The lock serialises what
 * the opens share: the mailbox and commands, the IOVA space and the tables' allocation.
 */
struct hroce_dev {
	struct hroce_bus *bus;
	pid_t owner; /* the process that opened it: a child of fork() only has a copy */
	unsigned int opens;
	struct hroce_dev *next_open; /* the process's open devices */
	pthread_mutex_t lock;
	char name[64];
	struct hroce_dev_params params;
	uint64_t caps;
	uint32_t core_id, core_version;
	uint16_t cmd_seq; /* commands finished, as REG_CMD counts them */
	uint64_t iova_next;
	uint64_t iova_before_last; /* iova_next before the last range was handed out */
	struct hroce_dma qpc, cqc, mrc, mailbox;
	struct hroce_dma eq; /* the event queue: one EQE per CQ at most (event.c) */
	unsigned int eq_log;
	uint32_t eq_ci;	       /* the next EQE to look at */
	struct hroce_qp **qps; /* by QPN */
	struct hroce_cq **cqs; /* by CQN */
	uint8_t *mr_used;      /* by MR index */
	uint8_t *mr_tag;       /* the low byte of the next key of each index */
	uint32_t next_pdn;
};

struct hroce_pd {
	struct hroce_dev *dev;
	uint32_t pdn;
	unsigned int users; /* MRs and QPs on it */
};

struct hroce_mr {
	struct hroce_pd *pd;
	uint32_t index, key;
	unsigned int access;
	uint64_t map_iova, map_len; /* the region's pages in the IOVA space */
	struct hroce_dma pt;	    /* its page table */
};

struct hroce_cq {
	struct hroce_dev *dev;
	uint32_t cqn;
	unsigned int log_size;
	unsigned int vector;
	uint32_t ci; /* the next CQE to look at */
	struct hroce_dma ring;
	unsigned int users; /* QPs on it */
};

/* A work queue: a ring of WQEs of 64 << log_stride bytes, and the wr_ids posted. */
struct hroce_wq {
	struct hroce_dma ring;
	unsigned int log_size, log_stride;
	uint16_t pi;   /* posted */
	uint16_t rung; /* SQ: pi as the last doorbell told it */
	/* SQ: bytes the last WQE built uses (a WQE of up to HROCE_DB_PUSH_BYTES is pushed) */
	unsigned int last_used;
	/*
	 * completed (SQ: up to the last CQE's WQE; RQ: CQEs taken): written by whoever polls
	 * the CQ, read by whoever posts, each under its own lock
	 */
	_Atomic uint16_t cc;
	uint64_t *wr_id;
};

struct hroce_qp {
	struct hroce_dev *dev;
	struct hroce_pd *pd;
	uint32_t qpn;
	struct hroce_cq *send_cq, *recv_cq;
	struct hroce_wq sq, rq;
	struct hroce_qp_cap cap;
	bool sq_sig_all;
	_Atomic enum hroce_qp_state state; /* as the driver last set it (read by posts) */
	uint8_t ctx[HROCE_QPC_BYTES / 2];  /* the static half of the context, as last written */
};

void hroce_log(enum hroce_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* DMA memory of at least len bytes, zeroed, at an IOVA aligned to align (a power of 2). */
int hroce_dma_alloc(struct hroce_dev *dev, size_t len, uint64_t align, struct hroce_dma *dma);
void hroce_dma_free(struct hroce_dev *dev, struct hroce_dma *dma);
/* An IOVA range of len bytes whose start is offset bytes past a multiple of align. */
uint64_t hroce_iova_alloc(struct hroce_dev *dev, uint64_t len, uint64_t align, uint64_t offset);
/*
 * Gives back a range hroce_iova_alloc handed out, if none was handed out after it (a
 * registration that failed): failed registrations of huge ranges do not use the space up.
 */
void hroce_iova_free(struct hroce_dev *dev, uint64_t iova, uint64_t len);

void hroce_mmio_write64(struct hroce_dev *dev, uint64_t offset, uint64_t value);
uint64_t hroce_mmio_read64(struct hroce_dev *dev, uint64_t offset);
/* A wait that found nothing many times: the device runs about ns without the CPU. */
void hroce_pause(struct hroce_dev *dev, uint64_t ns);
/* A doorbell of a work queue (REG_DB_SQ or REG_DB_RQ): the QPN and the producer counter. */
void hroce_doorbell(struct hroce_dev *dev, uint64_t reg, uint32_t num, uint16_t index);

/*
 * Runs a command: in (up to 128 bytes) into the mailbox's input half, out (up to 128
 * bytes) from its output half. Returns 0 or the errno of the core's CMD_RESULT.
 */
/* gid.c: why an IPv6 address cannot be a device's (NULL: it can); the index of one of the
 * device's GIDs, or -1. */
const char *hroce_ipv6_unusable(const uint8_t a[16]);
int hroce_gid_index(struct hroce_dev *dev, const uint8_t gid[16]);
int hroce_cmd(struct hroce_dev *dev, unsigned int op, uint32_t num, uint64_t arg, const void *in,
	      size_t in_len, void *out, size_t out_len);

/* QPN 1 (InfiniBand's GSI QP, never handed out) marks a CQE cleaned out of its ring. */
#define CQE_QPN_CLEANED 1
/* Marks the CQEs of a QP not polled yet as cleaned (the QP is being destroyed). */
void hroce_cq_clean(struct hroce_cq *cq, uint32_t qpn);

/* event.c: the event queue, set up with the tables and stopped before they go. */
int hroce_eq_setup(struct hroce_dev *dev);
void hroce_eq_stop(struct hroce_dev *dev);
/* The events of a CQ not taken yet are dropped (the CQ is being destroyed). */
void hroce_eq_clean(struct hroce_dev *dev, uint32_t cqn);

/* Completions of a QP's CQE: the QP of a QPN, for poll_cq. */
struct hroce_qp *hroce_dev_qp(struct hroce_dev *dev, uint32_t qpn);

/* A field of a register value laid out as a contract bus (CMD_STATUS, CAPS...). */
static inline uint64_t hroce_field(uint64_t v, unsigned int lsb, unsigned int width)
{
	return (v >> lsb) & (width >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << width) - 1);
}
#define HROCE_REG_FIELD(v, bus, f) \
	hroce_field(v, HROCE_##bus##_##f##_LSB, HROCE_##bus##_##f##_WIDTH)

#endif /* HROCE_PRIV_H */
