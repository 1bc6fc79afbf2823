/* SPDX-License-Identifier: MIT */
/*
 * Host memory behind PCIe, as the core's AXI4 master sees it: an AXI4 slave that serves
 * INCR bursts from process memory through the IOMMU.
 *
 * Reads: an AR is taken while fewer than max_reads bursts are in flight (from the AR to
 * the last beat of R: the bridge's tags).
 * The request reaches the host read_latency later, where memory is read at once (after
 * every write posted before the AR landed: a read does not pass a posted write), and the
 * completion is back read_latency after that: the burst's first beat goes 2 * read_latency
 * after its AR, then beats stream at the bandwidth. Bursts of different IDs interleave by
 * chunks of chunk_beats (completions of at most that size), round robin; those of one ID
 * come in order.
 *
 * Writes: W beats are taken at the bandwidth (before their AW too). Once a burst has its
 * AW and its last beat it is posted: its B comes the next cycle, as a PCIe bridge answers
 * a posted write once it has sent it, and the burst lands in memory write_latency after,
 * bursts in AW order. An AW is taken while fewer than max_writes bursts are in the
 * bridge (from the AW to its B taken). Interrupts are posted writes too (MSI-X): one raised after a
 * burst was posted reaches the host after that burst landed.
 *
 * Errors: a burst the IOMMU cannot translate gets DECERR on every beat (zeros for data) or
 * in its B, and is a fault; a write never lands anywhere else. A burst that breaks the
 * rules (not INCR, wider than the bus, crossing 4 KiB) gets SLVERR, is a fault too, and is
 * logged. A write mapped at its AW and unmapped before it lands is a fault and is dropped.
 */
#ifndef HROCE_SIM_PCIE_H
#define HROCE_SIM_PCIE_H

#include <stdbool.h>
#include <stdint.h>

#include "hroce_sim.h"
#include "sim_bus.h"
#include "sim_credit.h"
#include "sim_iommu.h"

#define SIM_PCIE_READS 256  /* read bursts in flight, at most */
#define SIM_PCIE_WRITES 256 /* write bursts from AW until landed and answered, at most */
#define SIM_PCIE_IRQS 64    /* interrupts on their way to the host */
_Static_assert(SIM_PCIE_READS == HROCE_SIM_PCIE_BURSTS_MAX &&
		       SIM_PCIE_WRITES == HROCE_SIM_PCIE_BURSTS_MAX,
	       "the limits a NIC may be given are what the model holds");
#define SIM_PCIE_MAX_BURST 4096

struct sim_pcie_timing {
	uint32_t read_latency;	/* cycles, one way */
	uint32_t write_latency; /* cycles, one way */
	uint32_t gbps;		/* each direction, 0: unlimited (a beat a cycle) */
	uint32_t clock_mhz;
	uint32_t chunk_beats; /* interleaving granularity of read data; 0: 4 (256 bytes) */
	uint32_t max_reads;   /* read bursts the bridge keeps in flight; 0: SIM_PCIE_READS */
	uint32_t max_writes;  /* write bursts from AW to B; 0: SIM_PCIE_WRITES */
};

/* What the model tells its owner; any may be NULL. */
struct sim_pcie_hooks {
	void (*event)(void *ctx, enum hroce_sim_event_kind kind, uint64_t cycle, uint64_t addr,
		      uint64_t len);
	void (*irq)(void *ctx, unsigned int vector, uint64_t cycle);
	void *ctx;
};

struct sim_pcie_read {
	uint64_t addr;
	uint64_t snap;		/* the cycle the request reaches the host */
	uint64_t ready;		/* the cycle its first beat may go */
	uint64_t posted_before; /* writes posted before its AR */
	uint64_t next_same_id;	/* seq of the next read of its ID, or SIM_PCIE_NONE */
	uint32_t bytes;
	uint16_t beats, sent;
	uint8_t id, size, resp;
	bool done;
};

struct sim_pcie_write {
	uint64_t addr;
	uint64_t first; /* its first beat, counted over all beats taken */
	uint64_t b_due; /* the cycle its B may go */
	uint64_t land;	/* the cycle it reaches memory */
	uint32_t bytes;
	uint16_t beats;
	uint8_t id, size, resp;
};

struct sim_pcie_beat {
	uint8_t data[SIM_DATA_BYTES];
	uint64_t strb;
	bool last;
};

struct sim_pcie_irq {
	uint64_t due;
	uint64_t posted_before;
	unsigned int vector;
};

#define SIM_PCIE_NONE UINT64_MAX

struct sim_pcie {
	struct sim_axi_bus bus;
	struct sim_iommu *iommu;
	struct sim_pcie_timing t;
	struct sim_pcie_hooks hooks;
	struct sim_credit down, up; /* host to NIC (read data), NIC to host (write data) */

	/* reads, by seq: [rd_head, rd_tail) in flight, [rd_snap, rd_tail) not at the host yet */
	struct sim_pcie_read *rd;
	uint8_t (*rd_data)[SIM_PCIE_MAX_BURST];
	uint64_t rd_head, rd_snap, rd_tail;
	uint64_t id_head[256], id_tail[256]; /* oldest and newest unfinished read of an ID */
	uint64_t r_cur;			     /* the burst on R, or SIM_PCIE_NONE */
	uint64_t r_last;		     /* the burst served last (round robin) */
	uint32_t r_chunk;		     /* beats left in its chunk */
	bool r_presented;		     /* a beat is on R, not taken yet */

	/* writes, by seq: [wr_landed, wr_posted) posted, [wr_posted, wr_tail) waiting for W */
	struct sim_pcie_write *wr;
	uint64_t wr_tail, wr_posted, wr_landed, wr_answered;
	struct sim_pcie_beat *beats; /* a ring of W beats */
	uint64_t beats_cap, beats_in, beats_bound, beats_freed;
	bool b_presented;

	/* bursts the bridge holds: reads from AR to their last beat, writes from AW to B */
	uint32_t reads_active, writes_active;

	struct sim_pcie_irq irqs[SIM_PCIE_IRQS];
	uint64_t irq_head, irq_tail;

	uint64_t protocol_errors;
	uint64_t read_bytes, write_bytes;
};

int sim_pcie_init(struct sim_pcie *p, const struct sim_axi_bus *bus, struct sim_iommu *iommu,
		  const struct sim_pcie_timing *t, const struct sim_pcie_hooks *hooks);
void sim_pcie_fini(struct sim_pcie *p);

/* Anything in flight? */
static inline bool sim_pcie_busy(const struct sim_pcie *p)
{
	return p->rd_head != p->rd_tail || p->wr_answered != p->wr_tail ||
	       p->wr_landed != p->wr_tail || p->beats_in != p->beats_freed ||
	       p->irq_head != p->irq_tail;
}

/* Before the cycle's first evaluation: lands writes, delivers interrupts, drives R, B, ready. */
void sim_pcie_drive(struct sim_pcie *p, uint64_t now);
/* After it: the handshakes of the cycle. */
void sim_pcie_sample(struct sim_pcie *p, uint64_t now);
/* An interrupt the core raised in cycle now; false if SIM_PCIE_IRQS are on their way. */
bool sim_pcie_irq(struct sim_pcie *p, uint64_t now, unsigned int vector);
static inline bool sim_pcie_irq_room(const struct sim_pcie *p)
{
	return p->irq_tail - p->irq_head < SIM_PCIE_IRQS;
}

#endif /* HROCE_SIM_PCIE_H */
