/* SPDX-License-Identifier: MIT */
/*
 * libibverbs' private provider interface, as HardRoCE uses it.
 *
 * rdma-core does not install the header that defines these structures (driver.h), so they
 * are declared here, for the private ABI whose symbols are versioned IBVERBS_PRIVATE_34:
 * rdma-core 34 to 56 (Debian bookworm ships 44). Only the layout matters to libibverbs:
 * the members HardRoCE never sets are declared with a generic function type. The layout is
 * checked twice: by the static assertions below (sizes and offsets measured on rdma-core
 * 44), and at run time after verbs_set_ops() (see hroce_verbs_abi_check()).
 */
#ifndef HROCE_VERBS_ABI_H
#define HROCE_VERBS_ABI_H

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#define HROCE_VERBS_PRIVATE_ABI 34
#define HROCE_VERBS_PRIVATE_VERSION "IBVERBS_PRIVATE_34"

/* An op HardRoCE does not provide: libibverbs keeps its own default for a NULL. */
typedef void (*hroce_no_op)(void);

struct hroce_list_node {
	struct hroce_list_node *next, *prev;
};

struct verbs_sysfs_dev; /* HardRoCE devices have none */

struct verbs_device_ops {
	const char *name;
	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const void *match_table;
	const struct verbs_device_ops **static_providers;
	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);
	struct verbs_context *(*alloc_context)(struct ibv_device *device, int cmd_fd,
					       void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device, int cmd_fd);
	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

struct verbs_device {
	struct ibv_device device; /* first: libibverbs converts between the two */
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct hroce_list_node entry;
	struct verbs_sysfs_dev *sysfs; /* NULL: opened without a kernel device */
	uint64_t core_support;
};

/* ibv_reg_mr keeps the optional access bits only if the device says it takes them. */
#define HROCE_CORE_SUPPORT_OPTIONAL_MR_ACCESS 1

enum verbs_mr_type {
	VERBS_MR_TYPE_MR,
	VERBS_MR_TYPE_NULL_MR,
	VERBS_MR_TYPE_IMPORTED_MR,
	VERBS_MR_TYPE_DMABUF_MR,
};

struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum verbs_mr_type mr_type;
	int access;
};

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;
	void *xrcd;
};

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

/* Every op a provider may give, in libibverbs' order (alphabetical). */
struct verbs_context_ops {
	hroce_no_op advise_mr, alloc_dm, alloc_mw, alloc_null_mr, alloc_parent_domain;
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	hroce_no_op alloc_td;
	void (*async_event)(struct ibv_context *context, struct ibv_async_event *event);
	hroce_no_op attach_counters_point_flow, attach_mcast, bind_mw, close_xrcd;
	void (*cq_event)(struct ibv_cq *cq);
	hroce_no_op create_ah, create_counters;
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel, int comp_vector);
	hroce_no_op create_cq_ex, create_flow, create_flow_action_esp;
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
	hroce_no_op create_qp_ex, create_rwq_ind_table, create_srq, create_srq_ex, create_wq;
	hroce_no_op dealloc_mw;
	int (*dealloc_pd)(struct ibv_pd *pd);
	hroce_no_op dealloc_td;
	int (*dereg_mr)(struct verbs_mr *vmr);
	hroce_no_op destroy_ah, destroy_counters;
	int (*destroy_cq)(struct ibv_cq *cq);
	hroce_no_op destroy_flow, destroy_flow_action;
	int (*destroy_qp)(struct ibv_qp *qp);
	hroce_no_op destroy_rwq_ind_table, destroy_srq, destroy_wq, detach_mcast;
	void (*free_context)(struct ibv_context *context);
	hroce_no_op free_dm, get_srq_num, import_dm, import_mr, import_pd, modify_cq;
	hroce_no_op modify_flow_action_esp;
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
	hroce_no_op modify_qp_rate_limit, modify_srq, modify_wq, open_qp, open_xrcd;
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);
	hroce_no_op post_srq_ops, post_srq_recv;
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr, size_t attr_size);
	hroce_no_op query_ece;
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
			struct ibv_qp_init_attr *init_attr);
	hroce_no_op query_qp_data_in_order, query_rt_values, query_srq, read_counters;
	hroce_no_op reg_dm_mr, reg_dmabuf_mr;
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length, uint64_t hca_va,
				 int access);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	hroce_no_op rereg_mr, resize_cq, set_ece, unimport_dm, unimport_mr, unimport_pd;
};

/* Measured on rdma-core 44 (ABI 34); rdma-core 65 has 744 and 552. */
static_assert(sizeof(struct verbs_context_ops) == 608, "verbs_context_ops: not ABI 34");
static_assert(offsetof(struct verbs_context_ops, query_device_ex) == 464,
	      "verbs_context_ops: not ABI 34");
static_assert(sizeof(struct verbs_qp) == 368, "verbs_qp: not ABI 34");

/*
 * The private functions, resolved at run time by their versioned names so that another
 * ABI gives a message instead of a loader error or a corrupted context.
 */
struct hroce_verbs_private {
	void *(*init_and_alloc_context)(struct ibv_device *device, int cmd_fd, size_t alloc_size,
					struct verbs_context *context_offset, uint32_t driver_id);
	void (*set_ops)(struct verbs_context *vctx, const struct verbs_context_ops *ops);
	void (*uninit_context)(struct verbs_context *context);
};

#endif /* HROCE_VERBS_ABI_H */
