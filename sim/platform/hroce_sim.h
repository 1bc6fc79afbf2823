/* SPDX-License-Identifier: MIT */
/*
 * libhroce-sim: simulated HardRoCE NICs in one process.
 *
 * A world is one clock domain: every NIC (the Verilated hroce_core with its host-memory,
 * IOMMU and PCIe models) and every link between NIC ports in a process. Nothing moves
 * unless someone steps the world; the driver's sim backend steps it while it waits.
 * Time is simulated: cycles of the core clock, and nanoseconds derived from them.
 *
 * Host memory is process memory: the driver maps buffers into a NIC's IOVA table with
 * hroce_sim_dma_map() (what VFIO_IOMMU_MAP_DMA is on a board); the core reaches it only
 * through its AXI4 master, and an access outside the table is a fault, counted and
 * reported, that returns an error response instead of data.
 *
 * Functions returning int return 0 or a positive errno; pointer-returning ones return
 * NULL and set errno.
 */
#ifndef HROCE_SIM_H
#define HROCE_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hroce_sim_world;
struct hroce_sim;
struct hroce_sim_link;

/* PCIe between host and NIC: one-way latencies and bandwidth per direction. */
struct hroce_sim_pcie {
	uint32_t read_latency_ns;  /* a DMA read: request to first data, one way each */
	uint32_t write_latency_ns; /* posted writes (DMA writes, MMIO writes), one way */
	uint32_t gbps;		   /* each direction; 0 = unlimited */
};

struct hroce_sim_params {
	const char *name; /* unique in the process; libhroce opens "sim:NAME" */
	struct hroce_sim_pcie pcie;
	const char *trace_path; /* FST waveform (trace build only); NULL: $HROCE_TRACE */
};

/* clock_mhz: the core clock (250 for the product configuration). */
struct hroce_sim_world *hroce_sim_world_create(uint32_t clock_mhz);
void hroce_sim_world_destroy(struct hroce_sim_world *w);
/* Advances every NIC and link by cycles clock cycles. */
void hroce_sim_world_step(struct hroce_sim_world *w, uint64_t cycles);
uint64_t hroce_sim_world_cycles(const struct hroce_sim_world *w);
uint64_t hroce_sim_world_ns(const struct hroce_sim_world *w);

struct hroce_sim *hroce_sim_create(struct hroce_sim_world *w, const struct hroce_sim_params *p);
void hroce_sim_destroy(struct hroce_sim *s);
/* The NIC of that name in this process (ENOENT if none). */
struct hroce_sim *hroce_sim_find(const char *name);
struct hroce_sim_world *hroce_sim_world_of(struct hroce_sim *s);
const char *hroce_sim_name(const struct hroce_sim *s);

/* IOMMU: iova and len 4 KiB aligned; EEXIST on overlap, EINVAL on alignment. */
int hroce_sim_dma_map(struct hroce_sim *s, void *vaddr, uint64_t iova, uint64_t len);
int hroce_sim_dma_unmap(struct hroce_sim *s, uint64_t iova, uint64_t len);

struct hroce_sim_fault {
	uint64_t iova;
	uint64_t len;
	bool write;
	uint64_t time_ns;
};
/* Faults so far; the last one in *last if not NULL. */
uint64_t hroce_sim_faults(const struct hroce_sim *s, struct hroce_sim_fault *last);

/*
 * BAR0. Writes are posted: they reach the core write_latency_ns later, in order, and the
 * call returns at once (len: 8, or up to 64 bytes for the WQE push window, in 8-byte
 * words). A read steps the world until its answer is back (a round trip).
 */
void hroce_sim_mmio_write(struct hroce_sim *s, uint64_t offset, const void *data, size_t len);
void hroce_sim_mmio_write64(struct hroce_sim *s, uint64_t offset, uint64_t value);
uint64_t hroce_sim_mmio_read64(struct hroce_sim *s, uint64_t offset);

/* Called (from inside a step) when an interrupt vector fires. */
void hroce_sim_set_irq_handler(struct hroce_sim *s, void (*fn)(void *ctx, unsigned int vector),
			       void *ctx);

/* A full-duplex Ethernet link between two NICs' ports. */
struct hroce_sim_link_params {
	uint32_t latency_ns;   /* MAC + PHY + cable, one way */
	uint32_t gbps;	       /* 0: as fast as the ports (one beat per cycle) */
	const char *pcap_path; /* both directions, simulated-ns timestamps; NULL: none */
};
struct hroce_sim_link *hroce_sim_link_connect(struct hroce_sim *a, struct hroce_sim *b,
					      const struct hroce_sim_link_params *p);
void hroce_sim_link_destroy(struct hroce_sim_link *l);

/*
 * Frames of the process on a link (a test's hand on the wire). inject: a frame toward
 * the port of to, one of the link's NICs, as if its peer had sent it; it goes on the wire
 * between the peer's own frames and arrives after the link's latency (and is in the
 * pcap). 0, EINVAL (to is not on the link, or len is 0 or over 65535) or ENOMEM.
 * The tap sees each frame a NIC of the link sends, whole, as its last beat leaves (not
 * the injected ones, nor frames the NIC aborted); fn NULL removes it. Both are called
 * from inside a step: they must not step the world.
 */
int hroce_sim_link_inject(struct hroce_sim_link *l, const struct hroce_sim *to, const void *frame,
			  size_t len);
void hroce_sim_link_set_tap(struct hroce_sim_link *l,
			    void (*fn)(void *ctx, const struct hroce_sim *from, const void *frame,
				       size_t len),
			    void *ctx);

/*
 * What happened and when, for latency studies: an observer sees every event of a NIC
 * as it happens (times in simulated ns).
 */
enum hroce_sim_event_kind {
	HROCE_SIM_MMIO_WRITE,	  /* the host issued an MMIO write (addr = offset) */
	HROCE_SIM_MMIO_ARRIVE,	  /* it reached the core */
	HROCE_SIM_DMA_READ,	  /* the core issued a read burst (AR) */
	HROCE_SIM_DMA_READ_DONE,  /* its last data beat reached the core */
	HROCE_SIM_DMA_WRITE,	  /* the core issued a write burst (AW) */
	HROCE_SIM_DMA_WRITE_DONE, /* the burst is in host memory */
	HROCE_SIM_TX_START,	  /* first beat of a frame left the core (len = frame bytes) */
	HROCE_SIM_TX_END,
	HROCE_SIM_RX_START, /* first beat of a frame reached the core */
	HROCE_SIM_RX_END,
	HROCE_SIM_IRQ, /* addr = vector */
};
struct hroce_sim_event {
	enum hroce_sim_event_kind kind;
	uint64_t time_ns;
	uint64_t addr;
	uint64_t len;
};
void hroce_sim_set_observer(struct hroce_sim *s,
			    void (*fn)(void *ctx, const struct hroce_sim *s,
				       const struct hroce_sim_event *ev),
			    void *ctx);

/*
 * Messages of the library (faults, protocol errors, traces opened) go to one handler;
 * by default those up to WARN (or to the level in $HROCE_SIM_LOG) go to stderr.
 */
enum hroce_sim_log_level {
	HROCE_SIM_LOG_ERR,
	HROCE_SIM_LOG_WARN,
	HROCE_SIM_LOG_INFO,
	HROCE_SIM_LOG_DEBUG,
};
void hroce_sim_set_log(void (*fn)(void *ctx, enum hroce_sim_log_level level, const char *msg),
		       void *ctx);

#endif /* HROCE_SIM_H */
