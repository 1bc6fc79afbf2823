/* SPDX-License-Identifier: MIT */
/*
 * The HardRoCE verbs provider: libibverbs objects wrapping libhroce's.
 *
 * Devices are built by the provider itself, with no sysfs and no kernel character device
 * (as rdma-core's mlx5 VFIO devices are), listed by the preloaded shim (shim.c) and opened
 * through the normal ibv_open_device(). libhroce is not thread-safe: every call into it
 * holds the context's lock, because libibverbs lets several threads share a context and
 * the provider's own event thread turns interrupts into completion events.
 */
#ifndef HROCE_VERBS_H
#define HROCE_VERBS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "hroce.h"
#include "verbs_abi.h"

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

struct hroce_vcq;

/*
 * Completion events of a device, shared by its contexts (libhroce opens a device once
 * per process; its interrupts are taken for all the contexts at once): the CQ vectors
 * (63, HROCE_ASYNC_VECTOR, is the event queue's), the CQs, and the thread that turns
 * interrupts into completion events and async events.
 */
struct hroce_vevents {
	pthread_mutex_t lock; /* everything below, and each CQ's armed flag */
	unsigned int next_vector;
	struct hroce_vcq *cqs;	   /* the CQs with a channel */
	struct hroce_vcq *all_cqs; /* every CQ, for the async events that name one */
	struct hroce_dev *dev;	   /* the thread's, while it runs */
	pthread_t thread;
	bool running;
	int stop_pipe[2];
	/*
	 * The contexts of the device: the thread holds all their locks (in this list's
	 * order) while it takes an async event, which may move QPs of any of them to ERR.
	 * contexts_lock is taken before any context's lock and before lock.
	 */
	pthread_mutex_t contexts_lock;
	struct hroce_vctx *contexts;
};

/* A device of the configuration. */
struct hroce_vdev {
	struct verbs_device vdev;
	char spec[128]; /* libhroce's device spec: sim:NAME or vfio:ADDRESS */
	struct hroce_dev_params params;
	__be64 node_guid;
	struct hroce_vevents events;
	unsigned int contexts; /* open, in this process (under events.lock) */
};

/* CQs take interrupt vectors 0..62 round robin; 63 is HROCE_ASYNC_VECTOR */
#define HROCE_MAX_CQ_VECTORS HROCE_ASYNC_VECTOR

struct hroce_vctx {
	struct verbs_context vctx;
	struct hroce_dev *dev;
	pthread_mutex_t lock; /* every libhroce call */
	/*
	 * async_fd is the read end: the event thread writes the records ibv_get_async_event()
	 * reads (struct ib_uverbs_async_event_desc); the write end never blocks
	 */
	int async_pipe[2];
	pid_t owner;		 /* the process that opened it: a child of fork() only has a copy */
	struct hroce_vctx *next; /* in hroce_vevents.contexts */
};

struct hroce_vpd {
	struct ibv_pd ibv_pd;
	struct hroce_pd *pd;
};

struct hroce_vmr {
	struct verbs_mr vmr;
	struct hroce_mr *mr;
};

struct hroce_vcq {
	struct verbs_cq vcq;
	struct hroce_cq *cq;
	pthread_mutex_t lock; /* polls and arms: one thread at a time, others' queues go on */
	unsigned int vector;
	bool armed;		      /* req_notify_cq since the last event */
	struct hroce_vcq *next_event; /* in hroce_vevents.cqs */
	struct hroce_vcq *next_cq;    /* in hroce_vevents.all_cqs */
};

/* Posts on the SQ and on the RQ take their queue's lock only, as rdma-core's providers do. */
struct hroce_vqp {
	struct verbs_qp vqp;
	struct hroce_qp *qp;
	pthread_mutex_t sq_lock, rq_lock;
};

static inline struct hroce_vdev *to_hdev(struct ibv_device *d)
{
	return container_of(d, struct hroce_vdev, vdev.device);
}
static inline struct hroce_vctx *to_hctx(struct ibv_context *c)
{
	return container_of(c, struct hroce_vctx, vctx.context);
}
static inline struct hroce_vpd *to_hpd(struct ibv_pd *pd)
{
	return container_of(pd, struct hroce_vpd, ibv_pd);
}
static inline struct hroce_vcq *to_hcq(struct ibv_cq *cq)
{
	return container_of(cq, struct hroce_vcq, vcq.cq);
}
static inline struct hroce_vqp *to_hqp(struct ibv_qp *qp)
{
	return container_of(qp, struct hroce_vqp, vqp.qp);
}

/* Log to stderr, prefixed "hroce: ", up to the level in $HROCE_LOG (default: errors). */
void hroce_verbs_log(enum hroce_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* device.c: the devices of the configuration (NULL-terminated), built once. */
struct hroce_vdev **hroce_verbs_devices(int *num);
/* Is this one of ours (a device, a context)? */
bool hroce_is_device(const struct ibv_device *device);
bool hroce_is_context(const struct ibv_context *context);
/*
 * The GID table of a context's device (libhroce's, hroce_query_gid): its length, and the
 * GID at an index (0, or EINVAL past the end).
 */
unsigned int hroce_context_gid_len(struct ibv_context *context);
int hroce_context_gid(struct ibv_context *context, unsigned int index, union ibv_gid *gid);

/* device.c: the context's ops for the device and its port */
void hroce_free_context(struct ibv_context *context);
int hroce_query_device_ex(struct ibv_context *context,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size);
int hroce_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *attr);
void hroce_async_event(struct ibv_context *context, struct ibv_async_event *event);

/* verbs.c: the context's ops */
extern const struct verbs_context_ops hroce_ctx_ops;
/* The device's event thread (completion and async events): started with the device's first
 * context, stopped with its last. */
int hroce_verbs_start_events(struct hroce_vctx *ctx);
void hroce_verbs_stop_events(struct hroce_vdev *hd);

/* shim.c: the write end of a completion channel of ours (-1 if not ours). */
int hroce_channel_write_fd(const struct ibv_comp_channel *channel);

#endif /* HROCE_VERBS_H */
