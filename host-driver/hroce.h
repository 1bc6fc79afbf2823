/* SPDX-License-Identifier: MIT */
/*
 * libhroce: the host driver of a HardRoCE NIC.
 *
 * A device is opened from a spec string naming its bus backend: "sim:NAME" for a
 * simulated NIC (libhroce-sim: one this process created, else the one the configuration
 * describes, which hroce_open creates and runs in a thread of its own, on its
 * shared-memory wire; see hroce_config.h), "vfio:DDDD:BB:DD.F" for a board. Above
 * the bus everything is the same code: the context tables, rings and mailbox live in DMA
 * memory the driver owns and maps into the device's IOVA space, commands go through the
 * mailbox, work is posted into rings and announced by doorbells, completions are polled
 * from CQ rings.
 *
 * The API is shaped after libibverbs (PDs, MRs, CQs, RC QPs, work requests, work
 * completions), with its numbering for states, access flags, opcodes and statuses, so
 * that a verbs provider is a thin layer over it.
 *
 * Functions returning int return 0 or a positive errno; pointer-returning ones return NULL
 * and set errno. Posting on a QP's SQ, posting on its RQ, and polling or arming a CQ may
 * each go on in a thread of its own (one thread per queue at a time, and not while the QP
 * or CQ is created, modified or destroyed); everything else is one thread per device at a
 * time.
 */
#ifndef HROCE_H
#define HROCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hroce_dev;
struct hroce_pd;
struct hroce_mr;
struct hroce_cq;
struct hroce_qp;

/* Device */

/* IPv6 addresses a device may have besides its link-local one (the core's REG_IPV6) */
#define HROCE_DEV_IPV6_MAX 4

struct hroce_dev_params {
	uint8_t mac[6];
	uint32_t ipv4;			      /* host order: 10.0.0.1 is 0x0a000001 */
	uint8_t ipv6[HROCE_DEV_IPV6_MAX][16]; /* the first nipv6, in network order */
	unsigned int nipv6;
	unsigned int log_qps; /* table sizes; 0: defaults (1024 QPs, 1024 CQs, 4096 MRs) */
	unsigned int log_cqs;
	unsigned int log_mrs;
};

/* The limits the core reports (REG_CAPS) and the driver's own. */
struct hroce_dev_attr {
	uint32_t core_id, core_version;
	unsigned int max_qp, max_cq, max_mr;
	unsigned int max_qp_wr; /* per SQ or RQ */
	unsigned int max_cqe;
	unsigned int max_sge;		  /* send and receive */
	unsigned int max_inline;	  /* bytes */
	unsigned int max_qp_rd_atom;	  /* READs a responder QP serves at once (its queue) */
	unsigned int max_qp_init_rd_atom; /* READs a requester QP has outstanding (a counter) */
	uint64_t max_mr_size;
	uint32_t max_msg_sz;
	unsigned int qp_cache_lines, mr_cache_lines;
	uint8_t mac[6];
	uint32_t ipv4;
	unsigned int gid_tbl_len; /* hroce_query_gid's indexes: 2 + the IPv6 addresses */
};

/*
 * params NULL, or with neither MAC nor IPv4 set: those of the configuration's device of
 * that spec (hroce_config.h), if it has one (its IPv6 addresses with them).
 * Configured IPv6 addresses must be unicast (not ::, ::1, multicast, IPv4-mapped, or the
 * device's own link-local address) and distinct: otherwise EINVAL.
 *
 * A device open already in this process is not opened again: the call returns the same
 * device (its first open's params stand), and each hroce_close undoes one open. Its QPNs,
 * CQNs, MR keys and IOVAs are the device's, allocated for all its opens; objects made
 * through one open are that open's caller's to use and destroy (each context of
 * libibverbs has its own).
 */
struct hroce_dev *hroce_open(const char *spec, const struct hroce_dev_params *params);
void hroce_close(struct hroce_dev *dev);
int hroce_query_dev(struct hroce_dev *dev, struct hroce_dev_attr *attr);
const char *hroce_dev_name(const struct hroce_dev *dev);
/* A core counter (CORE_COUNTER_*) or RX counter (ROCE_RX_DROP_*) of the contract. */
uint64_t hroce_core_counter(struct hroce_dev *dev, unsigned int index);
uint64_t hroce_rx_counter(struct hroce_dev *dev, unsigned int index);
/* A counter of the ARP, ICMP and ND blocks (NET_COUNTER_*). */
uint64_t hroce_net_counter(struct hroce_dev *dev, unsigned int index);
/*
 * Nothing to do now: let the device run a while. Polling loops call it when they find
 * nothing. A board's backend just returns; the sim backend steps a simulation that the
 * caller steps by hand, and waits (without using the CPU) for a few cycles of one that
 * runs in its own thread (a NIC that hroce_open created, see hroce_config.h), or up to
 * a millisecond while that NIC sleeps.
 */
void hroce_idle(struct hroce_dev *dev);

/*
 * Lockstep: a simulated NIC of this process run reproducibly ($HROCE_LOCKSTEP=1, see
 * hroce_sim.h and the README's "Reproducible runs"), which must see the program's
 * out-of-band TCP connection to its peer and its blocking waits. The preloaded shim tells
 * it: sent (n bytes or connects before the write or connect, minus what was not sent
 * after), wait (until some of the peer's is there to take, at a boundary of the
 * simulated clock), taken (what the read or accept took), wait_poll (a blocking poll of
 * descriptors the NIC's interrupts make ready: a completion channel, the event thread's). lockstep:
 * whether a device of this process runs so; without one every call returns at once (false).
 */
enum hroce_oob {
	HROCE_OOB_BYTES,
	HROCE_OOB_CONNECTS,
};
bool hroce_lockstep(void);
void hroce_oob_sent(enum hroce_oob kind, int64_t n);
bool hroce_oob_wait(enum hroce_oob kind);
void hroce_oob_taken(enum hroce_oob kind, uint64_t n);
struct pollfd;
bool hroce_wait_poll(struct pollfd *fds, unsigned int n);

/*
 * The MAC of an IPv4 address (host order) on the device's link, from the core's ARP
 * cache: at once if the address is cached and younger than REG_ARP_LIFETIME, else after
 * who-has requests (REG_ARP_RETRY.TRIES of them, INTERVAL cycles apart: by default three,
 * a second apart at 250 MHz). The device's own address gives its own MAC. Polls with
 * hroce_idle() between reads a few times, then sleeps between them (1 ms doubling up to
 * 64 ms), so that a simulated NIC left alone jumps its clock to the core's next request.
 * 0 with mac filled; EHOSTUNREACH if no reply came to any request (or ipv4 is 0.0.0.0);
 * ETIMEDOUT if the device gave no answer in time (it should always answer within
 * TRIES + 1 intervals of its clock), or none within 30 s of wall-clock time (a simulated
 * NIC whose clock could not jump). One lookup at a time per device.
 */
int hroce_resolve_mac(struct hroce_dev *dev, uint32_t ipv4, uint8_t mac[6]);

/*
 * The MAC of an IPv6 address (ip6, network order) on the device's link, from the core's
 * neighbour discovery cache, with hroce_resolve_mac()'s contract: at once if cached, else
 * after neighbour solicitations to the address's solicited-node group, under the same
 * REG_ARP_RETRY and REG_ARP_LIFETIME. The port's own addresses (its link-local fe80::
 * EUI-64 address and those REG_IPV6_VALID enables) give its own MAC; :: and multicast
 * addresses are EHOSTUNREACH at once. One lookup at a time per device.
 */
int hroce_resolve_mac6(struct hroce_dev *dev, const uint8_t ip6[16], uint8_t mac[6]);

/*
 * The device's GID table, as Linux lays out rxe's: index 0 the link-local IPv6 address
 * (fe80:: and the modified EUI-64 of the MAC), index 1 the IPv4 address as ::ffff:a.b.c.d,
 * then the configured IPv6 addresses in their order; every one RoCE v2. 0 with gid filled
 * (network order), or EINVAL past the end (hroce_dev_attr.gid_tbl_len).
 */
enum {
	HROCE_GID_INDEX_LINK_LOCAL = 0,
	HROCE_GID_INDEX_IPV4 = 1,
	HROCE_GID_INDEX_IPV6 = 2, /* the first configured IPv6 address */
};
int hroce_query_gid(struct hroce_dev *dev, unsigned int index, uint8_t gid[16]);
/* Whether a GID is an IPv4 address (::ffff:a.b.c.d), and that address in host order. */
bool hroce_gid_is_ipv4(const uint8_t gid[16], uint32_t *ipv4);
/* ::ffff:a.b.c.d of an IPv4 address in host order. */
void hroce_gid_from_ipv4(uint32_t ipv4, uint8_t gid[16]);
/* The link-local address of a MAC (GID index 0): fe80:: and the MAC's modified EUI-64. */
void hroce_link_local(const uint8_t mac[6], uint8_t gid[16]);

/* Log messages of the library go to one handler; by default errors go to stderr. */
enum hroce_log_level {
	HROCE_LOG_ERR,
	HROCE_LOG_WARN,
	HROCE_LOG_INFO,
	HROCE_LOG_DEBUG,
};
void hroce_set_log(void (*fn)(void *ctx, enum hroce_log_level level, const char *msg), void *ctx);

/* Protection domains and memory regions */

enum hroce_access {
	HROCE_ACCESS_LOCAL_WRITE = 1,
	HROCE_ACCESS_REMOTE_WRITE = 2,
	HROCE_ACCESS_REMOTE_READ = 4,
	HROCE_ACCESS_REMOTE_ATOMIC = 8,
};

struct hroce_pd *hroce_alloc_pd(struct hroce_dev *dev);
int hroce_dealloc_pd(struct hroce_pd *pd);
uint32_t hroce_pd_num(const struct hroce_pd *pd);

/*
 * Registers [addr, addr + len) with the access flags (HROCE_ACCESS_*; a remote write
 * needs local write too). log_page_size: the page size of the MR's translation table
 * (12..47); 0 lets the driver choose (the smallest power of two that holds the whole
 * region in one page).
 */
struct hroce_mr *hroce_reg_mr(struct hroce_pd *pd, void *addr, size_t len, unsigned int access,
			      unsigned int log_page_size);
int hroce_dereg_mr(struct hroce_mr *mr);
uint32_t hroce_mr_lkey(const struct hroce_mr *mr);
uint32_t hroce_mr_rkey(const struct hroce_mr *mr);
/* Where the device sees the region: the IOVA range its pages are mapped at. */
void hroce_mr_mapping(const struct hroce_mr *mr, uint64_t *iova, uint64_t *len);

/* Completion queues */

enum hroce_wc_status {
	HROCE_WC_SUCCESS,
	HROCE_WC_LOC_LEN_ERR,
	HROCE_WC_LOC_QP_OP_ERR,
	HROCE_WC_LOC_EEC_OP_ERR,
	HROCE_WC_LOC_PROT_ERR,
	HROCE_WC_WR_FLUSH_ERR,
	HROCE_WC_MW_BIND_ERR,
	HROCE_WC_BAD_RESP_ERR,
	HROCE_WC_LOC_ACCESS_ERR,
	HROCE_WC_REM_INV_REQ_ERR,
	HROCE_WC_REM_ACCESS_ERR,
	HROCE_WC_REM_OP_ERR,
	HROCE_WC_RETRY_EXC_ERR,
	HROCE_WC_RNR_RETRY_EXC_ERR,
};

enum hroce_wc_opcode {
	HROCE_WC_SEND = 0,
	HROCE_WC_RDMA_WRITE = 1,
	HROCE_WC_RDMA_READ = 2,
	HROCE_WC_RECV = 128,
	HROCE_WC_RECV_RDMA_WITH_IMM = 129,
};

enum hroce_wc_flags {
	HROCE_WC_WITH_IMM = 1,
	HROCE_WC_SOLICITED = 2, /* not in libibverbs: the message had the SE bit */
};

struct hroce_wc {
	uint64_t wr_id;
	enum hroce_wc_status status;
	enum hroce_wc_opcode opcode;
	uint32_t byte_len;
	uint32_t imm_data; /* network byte order, as libibverbs has it */
	uint32_t qp_num;
	unsigned int wc_flags;
};

/*
 * A CQ of at least cqe entries; vector: the interrupt vector of its events (0..62; 63 is
 * HROCE_ASYNC_VECTOR's). Completions beyond the ring's size before they are polled are
 * not written over older ones: the CQ overruns (an HROCE_ASYNC_CQ_ERR) and stays in error.
 */
struct hroce_cq *hroce_create_cq(struct hroce_dev *dev, unsigned int cqe, unsigned int vector);
int hroce_destroy_cq(struct hroce_cq *cq);
unsigned int hroce_cq_size(const struct hroce_cq *cq);
/*
 * Up to n completions into wc; returns how many (0: none now). Never blocks. Tells the
 * device how far the ring was read when it took completions.
 */
int hroce_poll_cq(struct hroce_cq *cq, int n, struct hroce_wc *wc);
/* An interrupt on the next completion (solicited_only: on a solicited or failed one). */
int hroce_req_notify_cq(struct hroce_cq *cq, bool solicited_only);
/*
 * The interrupts of the device so far, one bit per vector (0..63), cleared by the call.
 * The sim backend records them as the core raises them; with VFIO they are eventfds.
 */
uint64_t hroce_take_irqs(struct hroce_dev *dev);
/*
 * A file descriptor to poll(2) or epoll: readable once an interrupt vector fired, until
 * hroce_take_irqs() takes the vectors. It belongs to the device (do not close it).
 * Returns -1 with errno set (EOPNOTSUPP) if the bus has none.
 */
int hroce_irq_fd(struct hroce_dev *dev);

/* Asynchronous events: errors of an object rather than of a work request. */

/* The interrupt vector of asynchronous events (the device's event queue). */
#define HROCE_ASYNC_VECTOR 63

enum hroce_event_type {
	HROCE_ASYNC_CQ_ERR = 0, /* libibverbs' IBV_EVENT_CQ_ERR: the CQ overran */
};

struct hroce_async_event {
	enum hroce_event_type type;
	struct hroce_cq *cq; /* CQ_ERR: the CQ */
};

/*
 * The next asynchronous event of the device: 1 with ev filled, 0 if there is none now.
 * Call it when HROCE_ASYNC_VECTOR fired, or any time. HROCE_ASYNC_CQ_ERR is a CQ that got
 * more completions than its ring holds unpolled: the ones that did not fit are lost, the CQ
 * writes nothing any more, and before the event is returned every QP on that CQ (send or
 * receive side) not in RESET was moved to ERR, as IBTA wants for a CQ overrun.
 */
int hroce_get_async_event(struct hroce_dev *dev, struct hroce_async_event *ev);

/* DMA accesses of the device its IOMMU refused (0 where the bus cannot tell: VFIO). */
uint64_t hroce_iova_faults(struct hroce_dev *dev);
/* The bus's own figures, one emit per "name value" (a simulated NIC: sim.*, wire.*). */
void hroce_bus_stats(struct hroce_dev *dev,
		     void (*emit)(void *ctx, const char *name, uint64_t value), void *ctx);

/* Queue pairs (RC) */

enum hroce_qp_state {
	HROCE_QPS_RESET,
	HROCE_QPS_INIT,
	HROCE_QPS_RTR,
	HROCE_QPS_RTS,
	HROCE_QPS_SQD,
	HROCE_QPS_SQE,
	HROCE_QPS_ERR,
};

enum hroce_mtu {
	HROCE_MTU_256 = 1,
	HROCE_MTU_512 = 2,
	HROCE_MTU_1024 = 3,
	HROCE_MTU_2048 = 4,
	HROCE_MTU_4096 = 5,
};

struct hroce_qp_cap {
	unsigned int max_send_wr, max_recv_wr;
	unsigned int max_send_sge, max_recv_sge;
	unsigned int max_inline_data;
};

struct hroce_qp_init_attr {
	struct hroce_cq *send_cq, *recv_cq;
	struct hroce_qp_cap cap; /* what is asked; the QP gets at least as much */
	bool sq_sig_all;
};

/*
 * Which attributes a modify sets: libibverbs' IBV_QP_* bits. The ones marked "not served"
 * are known to the transition table (IBTA allows them) and refused with EOPNOTSUPP.
 */
enum hroce_qp_attr_mask {
	HROCE_QP_STATE = 1 << 0,
	HROCE_QP_CUR_STATE = 1 << 1,
	HROCE_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2, /* not served */
	HROCE_QP_ACCESS_FLAGS = 1 << 3,
	HROCE_QP_PKEY_INDEX = 1 << 4,
	HROCE_QP_PORT = 1 << 5,
	HROCE_QP_QKEY = 1 << 6, /* UD only: never allowed on RC */
	HROCE_QP_AV = 1 << 7,
	HROCE_QP_PATH_MTU = 1 << 8,
	HROCE_QP_TIMEOUT = 1 << 9,
	HROCE_QP_RETRY_CNT = 1 << 10,
	HROCE_QP_RNR_RETRY = 1 << 11,
	HROCE_QP_RQ_PSN = 1 << 12,
	HROCE_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	HROCE_QP_ALT_PATH = 1 << 14, /* not served */
	HROCE_QP_MIN_RNR_TIMER = 1 << 15,
	HROCE_QP_SQ_PSN = 1 << 16,
	HROCE_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	HROCE_QP_PATH_MIG_STATE = 1 << 18, /* not served */
	HROCE_QP_CAP = 1 << 19,		   /* never allowed on RC */
	HROCE_QP_DEST_QPN = 1 << 20,
};

/*
 * Where the peer is: its GID (an IPv6 address, or ::ffff:a.b.c.d for RoCEv2 over IPv4)
 * and MAC, and which of the device's GIDs (hroce_query_gid) the QP sends from: both of one
 * family, else EINVAL. A modify that sets the path with a dmac of all zeros has the driver
 * find it (hroce_resolve_mac() or hroce_resolve_mac6() of dgid), as Linux resolves the
 * destination MAC of a RoCE QP at modify time.
 */
struct hroce_ah_attr {
	uint8_t dmac[6];
	uint8_t dgid[16];
	uint8_t sgid_index;
	uint32_t flow_label; /* IPv6 only: 20 bits */
	uint8_t hop_limit;   /* 0: 64 */
	uint8_t traffic_class;
	uint16_t udp_sport; /* 0: derived from the QPNs, as Linux does */
};

struct hroce_qp_attr {
	enum hroce_qp_state qp_state, cur_qp_state;
	enum hroce_mtu path_mtu;
	unsigned int qp_access_flags;
	uint16_t pkey_index;
	uint8_t port_num; /* the device has one port: 1 */
	struct hroce_ah_attr ah_attr;
	uint32_t dest_qp_num;
	uint32_t rq_psn, sq_psn;
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	struct hroce_qp_cap cap; /* query: what the QP has */
};

struct hroce_qp *hroce_create_qp(struct hroce_pd *pd, const struct hroce_qp_init_attr *attr);
int hroce_destroy_qp(struct hroce_qp *qp);
uint32_t hroce_qp_num(const struct hroce_qp *qp);
/*
 * Changes the QP's state and attributes. mask must hold what the transition requires and
 * nothing it does not allow (IBTA 10.3.1 for RC, as the kernel's ib_modify_qp_is_ok has
 * it), each value in the range the device reports (hroce_qp_check_modify); otherwise
 * EINVAL and the QP is unchanged.
 */
int hroce_modify_qp(struct hroce_qp *qp, const struct hroce_qp_attr *attr, unsigned int mask);
/*
 * The checks of hroce_modify_qp for a QP in state cur, without a QP: 0, EINVAL (a
 * transition IBTA does not allow, an attribute missing, not allowed or out of range) or
 * EOPNOTSUPP (allowed by IBTA, not served: alternate paths, a path to the device's own
 * address). why (if not NULL) gets a sentence saying
 * what is wrong, or NULL.
 */
int hroce_qp_check_modify(struct hroce_dev *dev, enum hroce_qp_state cur,
			  const struct hroce_qp_attr *attr, unsigned int mask, const char **why);
/* The QP as the core has it now (a state the core moved it to, ERR, included). */
int hroce_query_qp(struct hroce_qp *qp, struct hroce_qp_attr *attr);

enum hroce_wr_opcode {
	HROCE_WR_RDMA_WRITE,
	HROCE_WR_RDMA_WRITE_WITH_IMM,
	HROCE_WR_SEND,
	HROCE_WR_SEND_WITH_IMM,
	HROCE_WR_RDMA_READ,
};

enum hroce_send_flags {
	HROCE_SEND_FENCE = 1,
	HROCE_SEND_SIGNALED = 2,
	HROCE_SEND_SOLICITED = 4,
	HROCE_SEND_INLINE = 8,
};

struct hroce_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

struct hroce_send_wr {
	uint64_t wr_id;
	struct hroce_send_wr *next;
	struct hroce_sge *sg_list;
	int num_sge;
	enum hroce_wr_opcode opcode;
	unsigned int send_flags;
	uint32_t imm_data; /* network byte order */
	uint64_t remote_addr;
	uint32_t rkey;
};

struct hroce_recv_wr {
	uint64_t wr_id;
	struct hroce_recv_wr *next;
	struct hroce_sge *sg_list;
	int num_sge;
};

/* Posts a chain of work requests; on an error *bad is the first one not posted. */
int hroce_post_send(struct hroce_qp *qp, struct hroce_send_wr *wr, struct hroce_send_wr **bad);

/*
 * Posting straight into the send ring, as rdma-core's providers post: the caller holds its
 * own lock of this QP's send queue across both calls, and nothing else is locked, so that
 * threads posting to different QPs never wait on each other. hroce_sq_build writes the
 * WQE of one request into the next free slot (EINVAL: the QP is not in RTS, SQD or ERR, or
 * the request is bad; ENOMEM: the ring is full; nothing is posted then); hroce_sq_ring
 * tells the core of every WQE built since the last ring with one doorbell (none if there
 * is none): the last WQE itself, written whole to the doorbell pages, when it fits in
 * HROCE_DB_PUSH_BYTES and the bus has the pages, else an 8-byte doorbell.
 */
struct hroce_send_req {
	enum hroce_wr_opcode opcode;
	unsigned int send_flags;
	const struct hroce_sge *sg_list;
	int num_sge;
	uint32_t imm_data; /* network byte order */
	uint64_t remote_addr;
	uint32_t rkey;
};
int hroce_sq_build(struct hroce_qp *qp, uint64_t wr_id, const struct hroce_send_req *req);
void hroce_sq_ring(struct hroce_qp *qp);
int hroce_post_recv(struct hroce_qp *qp, struct hroce_recv_wr *wr, struct hroce_recv_wr **bad);

#endif /* HROCE_H */
