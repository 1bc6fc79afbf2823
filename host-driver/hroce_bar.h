/* SPDX-License-Identifier: MIT */
/*
 * libhroce for tools: a HardRoCE device's BAR0 without its transport.
 *
 * A tool that needs a device's registers but not RDMA (hroce-fw: the board register block
 * at BAR0 + 0x10000, its flash controller and reload) opens the device's bus the way
 * hroce_open does, from the same spec and through the same backends ("vfio:DDDD:BB:DD.F":
 * the board bound to vfio-pci; "sim:NAME": a simulated NIC, one this process created or
 * the one the configuration describes, see hroce_config.h), and nothing above it: no
 * context tables, no DMA memory, no register of the core written. The device is as the
 * bus found it (a simulated NIC the open creates comes out of its reset).
 *
 * A device is opened once per process, here or by hroce_open: a board's VFIO group, or a
 * simulated NIC that an open created, is EBUSY while it is open (a NIC the process created
 * itself, as the benches do, is not). Errors are logged through hroce_set_log's handler
 * (by default to stderr). One thread per open at a time.
 */
#ifndef HROCE_BAR_H
#define HROCE_BAR_H

#include <stdint.h>

struct hroce_bar;

/* 0, or ENODEV (no backend for the spec, no such device) or the backend's errno. */
int hroce_bar_open(const char *spec, struct hroce_bar **bar);
void hroce_bar_close(struct hroce_bar *bar);
/* The device's name as its bus gives it: "vfio:0000:65:00.0", "sim:NAME". */
const char *hroce_bar_name(const struct hroce_bar *bar);
/*
 * The 32-bit register at a BAR0 offset (4-byte aligned): one 4-byte access each, the
 * writes posted and reaching the device in the order they were made, a read returning
 * once the device answered (so after every write before it). Misaligned or outside BAR0:
 * logged, nothing written, and a read gives all ones, as from a device that is gone.
 */
uint32_t hroce_bar_read32(struct hroce_bar *bar, uint64_t offset);
void hroce_bar_write32(struct hroce_bar *bar, uint64_t offset, uint32_t value);
/*
 * The bus's own figures, one emit per "name value", as hroce_bus_stats gives them for an
 * open device: nothing for a board; a simulated NIC's clock and wire, and a shell NIC's
 * models (shell.iprogs and shell.iprog_wbstar: the reloads its ICAP model saw, and the
 * flash address of the last).
 */
void hroce_bar_stats(struct hroce_bar *bar,
		     void (*emit)(void *ctx, const char *name, uint64_t value), void *ctx);

#endif /* HROCE_BAR_H */
