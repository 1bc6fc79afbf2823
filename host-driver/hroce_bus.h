/* SPDX-License-Identifier: MIT */
/*
 * The bus under a HardRoCE device: what differs between a board (VFIO) and a simulated
 * NIC (libhroce-sim). Everything above these operations is the same code.
 */
#ifndef HROCE_BUS_H
#define HROCE_BUS_H

#include <stddef.h>
#include <stdint.h>

struct hroce_bus;

/* dma_map: the device may write the pages (else it only reads them) */
#define HROCE_BUS_DMA_WRITE (1u << 0)
/* dma_map: the application's memory (an MR), not the driver's own */
#define HROCE_BUS_DMA_USER (1u << 1)

struct hroce_bus_ops {
	const char *name;
	void (*close)(struct hroce_bus *bus);
	/*
	 * BAR0: posted writes of 8 bytes, or up to 64 bytes in 8-byte words, reaching the
	 * device in the order they were issued; a read returns once the device answered.
	 */
	void (*mmio_write)(struct hroce_bus *bus, uint64_t offset, const void *data, size_t len);
	/*
	 * The doorbell pages (the contract's DB_*), when the bus has them (db_size): one
	 * posted write of len bytes (HROCE_DB_PUSH_BYTES) at offset (aligned to len) that
	 * reaches the device as one PCIe TLP, as a write-combining mapping gives it (a
	 * 64-byte store sequence, then a store fence), in order with the BAR0 writes before
	 * and after it. Threads may call it at once. A board's bus logs anything else and
	 * writes nothing; a simulated NIC's carries any write of 1 to 64 bytes inside one
	 * line as it is (what a broken writer would send: the tests' malformed writes).
	 */
	void (*mmio_write_wc)(struct hroce_bus *bus, uint64_t offset, const void *data, size_t len);
	uint64_t (*mmio_read64)(struct hroce_bus *bus, uint64_t offset);
	/*
	 * BAR0 4 bytes at a time, offset 4-byte aligned: registers behind a 32-bit bus (the
	 * board shell's block at BAR0 + 0x10000, firmware/rtl/board_regs.v), which an 8-byte
	 * access would reach as two. The write is posted in order with mmio_write's; the read
	 * returns once the device answered. Outside BAR0 or misaligned: logged, nothing
	 * written, all ones read (as from a device that is gone).
	 */
	void (*mmio_write32)(struct hroce_bus *bus, uint64_t offset, uint32_t value);
	uint32_t (*mmio_read32)(struct hroce_bus *bus, uint64_t offset);
	/*
	 * The IOMMU: page-aligned process memory at page-aligned IOVAs (flags below). Every
	 * page is pinned as get_user_pages pins it: EFAULT if one is not mapped, not
	 * readable, or not writable with HROCE_BUS_DMA_WRITE; ENOMEM past RLIMIT_MEMLOCK
	 * without CAP_IPC_LOCK; the device keeps the pages pinned here until the unmap.
	 */
	int (*dma_map)(struct hroce_bus *bus, void *vaddr, uint64_t iova, uint64_t len,
		       unsigned int flags);
	int (*dma_unmap)(struct hroce_bus *bus, uint64_t iova, uint64_t len);
	/* Nothing to do: let the device run a while. */
	void (*idle)(struct hroce_bus *bus);
	/*
	 * Nothing to do for a while (a wait that polled many times for nothing): let the
	 * device run for about ns of wall-clock time without using the CPU. A device that
	 * runs by itself is left alone (a simulated NIC then goes quiet and may jump its
	 * clock to its next timer); one the caller steps is stepped as idle steps it. NULL:
	 * the caller sleeps.
	 */
	void (*pause)(struct hroce_bus *bus, uint64_t ns);
	/* The interrupt vectors raised since the last call, one bit each (0..63). */
	uint64_t (*take_irqs)(struct hroce_bus *bus);
	/*
	 * A file descriptor that polls readable once a vector fired (and take_irqs has not
	 * cleared it since), owned by the bus; -1 with errno if there is none.
	 */
	int (*irq_fd)(struct hroce_bus *bus);
	/*
	 * DMA accesses the IOMMU refused so far. NULL: the bus cannot count them (with VFIO
	 * the kernel logs IOMMU faults; a process does not see them).
	 */
	uint64_t (*iova_faults)(struct hroce_bus *bus);
	/* What the bus knows about itself (a simulation: its clock and wire), "name value". */
	void (*stats)(struct hroce_bus *bus,
		      void (*emit)(void *ctx, const char *name, uint64_t value), void *ctx);
};

struct hroce_bus {
	const struct hroce_bus_ops *ops;
	char name[64];
	/* bytes of the doorbell pages; 0: none (mmio_write_wc must not be called) */
	uint64_t db_size;
};

/*
 * The bus of the device spec names ("sim:NAME", "vfio:DDDD:BB:DD.F"), by its backend:
 * 0, or ENODEV for a spec of no backend (logged), or the backend's error.
 */
int hroce_bus_open(const char *spec, struct hroce_bus **bus);
/* Backends: each opens the device its argument names (after "sim:" or "vfio:"). */
int hroce_bus_sim_open(const char *arg, struct hroce_bus **bus);
/* A board bound to vfio-pci, "DDDD:BB:DD.F" or "BB:DD.F" (errors: bus_vfio.h). */
int hroce_bus_vfio_open(const char *arg, struct hroce_bus **bus);

#endif /* HROCE_BUS_H */
