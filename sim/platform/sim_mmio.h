/* SPDX-License-Identifier: MIT */
/*
 * The host's side of BAR0: an AXI4-Lite master that plays the host's MMIO accesses into the
 * core in the order they were issued, each no earlier than the cycle it reaches the NIC.
 * A write is one 64-bit word with its byte strobes (AW and W offered together); a read is
 * one AR, with at most one in flight (the host waits for it). B and R are always taken.
 *
 * Or the same host accesses on a 32-bit AXI4-Lite BAR (sim_mmio_init32: the board shell's,
 * whose bridge makes 64-bit registers of them): each 64-bit word written is its low half
 * then its high half (a half without a byte to write is left out), so a 64-byte WQE push is
 * sixteen 32-bit writes in order; a 64-bit read is a read of the low half (the bridge reads
 * the core's whole register and keeps its high half) then of the high half (answered from
 * what it kept), nothing between them.
 *
 * And the doorbell pages (sim_mmio_attach_db: the core's s_axi_db_*, write only, 512 bits):
 * a host write there of up to 64 bytes inside one 64-byte line is one posted TLP, played as
 * one AXI4 burst of one beat (AWADDR the write's first byte, AWSIZE 64 bytes, the bytes
 * written strobed), in the same order as the BAR0 accesses around it.
 */
#ifndef HROCE_SIM_MMIO_H
#define HROCE_SIM_MMIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hroce_sim.h"
#include "sim_bus.h"

#define SIM_MMIO_BAR_SIZE 0x10000u
#define SIM_MMIO_MAX_WRITE 64
#define SIM_MMIO_DB_SIZE 0x10000u /* the doorbell pages: 16-bit addresses */
#define SIM_MMIO_DB_LINE 64	  /* a TLP of the doorbell pages stays inside one line */

struct sim_mmio_op {
	uint64_t arrive; /* the cycle it reaches the core */
	uint64_t data;
	uint8_t line[SIM_MMIO_DB_LINE]; /* db: the line, bytes outside strb_line zero */
	uint64_t strb_line;
	uint32_t addr;	   /* of the word, 8-byte aligned */
	uint32_t call_off; /* the host call it ends (end set): its offset and length */
	uint16_t call_len;
	uint8_t strb;
	bool read;
	bool end;
	bool low;    /* a 32-bit bus: the low half of a 64-bit read (its answer is kept) */
	bool single; /* a 32-bit bus: a 32-bit read alone */
	bool db;     /* a write to the doorbell pages */
};

struct sim_mmio_hooks {
	void (*event)(void *ctx, enum hroce_sim_event_kind kind, uint64_t cycle, uint64_t addr,
		      uint64_t len);
	void *ctx;
};

struct sim_mmio {
	struct sim_axil_bus bus;
	struct sim_axil32_bus bus32;
	bool narrow; /* on bus32 */
	struct sim_axi_db_bus db;
	bool has_db;	   /* the doorbell pages are attached */
	bool db_busy;	   /* a write of them is on the bus */
	uint32_t bar_size; /* bytes */
	struct sim_mmio_hooks hooks;
	struct sim_mmio_op *ops; /* a ring: [head, tail) */
	uint64_t cap, head, tail;
	bool driving;	      /* the head is on the bus */
	bool aw_done, w_done; /* halves of the head write already taken */
	bool read_busy;	      /* an AR was taken, R not back yet */
	bool read_low;	      /* it is the low half of a 64-bit read (32-bit bus) */
	bool read_single;     /* it is a 32-bit read alone */
	uint32_t read_lo;     /* that half's answer */
	uint8_t read_lo_resp;
	/* the last read's answer */
	uint64_t reads_done;
	uint64_t read_data;
	uint64_t read_cycle; /* the cycle R was taken */
	uint8_t read_resp;
	uint64_t write_errors; /* B other than OKAY */
	uint64_t db_writes;    /* writes of the doorbell pages played */
};

int sim_mmio_init(struct sim_mmio *m, const struct sim_axil_bus *bus,
		  const struct sim_mmio_hooks *hooks);
/* The same on a 32-bit bus, whose BAR has bar_size bytes (a multiple of 8). */
int sim_mmio_init32(struct sim_mmio *m, const struct sim_axil32_bus *bus, uint32_t bar_size,
		    const struct sim_mmio_hooks *hooks);
void sim_mmio_fini(struct sim_mmio *m);
/* The model's doorbell pages, played by the same queue as BAR0 (valids cleared, B taken). */
void sim_mmio_attach_db(struct sim_mmio *m, const struct sim_axi_db_bus *bus);
/*
 * Queues a host write of len bytes (1 to SIM_MMIO_DB_LINE, inside one line) at offset of
 * the doorbell pages, reaching the core at cycle arrive as one beat. EINVAL outside the
 * pages, across a line, or without pages attached; ENOMEM.
 */
int sim_mmio_write_db(struct sim_mmio *m, uint64_t arrive, uint64_t offset, const void *data,
		      size_t len);
/*
 * Queues a host write of len bytes (1 to SIM_MMIO_MAX_WRITE) at offset as 64-bit words
 * that reach the core at cycle arrive (halves of them on a 32-bit bus). EINVAL outside
 * BAR0, ENOMEM.
 */
int sim_mmio_write(struct sim_mmio *m, uint64_t arrive, uint64_t offset, const void *data,
		   size_t len);
/*
 * Queues a read of the 64-bit word at offset (size 8), or on a 32-bit bus of the 32-bit
 * word at offset alone (size 4: one read, its answer in the low half); its answer will
 * count in reads_done. EINVAL: outside the BAR, misaligned, or size 4 on a 64-bit bus.
 */
int sim_mmio_read(struct sim_mmio *m, uint64_t arrive, uint64_t offset, unsigned int size);

static inline bool sim_mmio_busy(const struct sim_mmio *m)
{
	return m->head != m->tail || m->read_busy;
}

void sim_mmio_drive(struct sim_mmio *m, uint64_t now);
void sim_mmio_sample(struct sim_mmio *m, uint64_t now);

#endif /* HROCE_SIM_MMIO_H */
