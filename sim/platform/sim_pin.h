/* SPDX-License-Identifier: MIT */
/*
 * Pinning application memory for a simulated NIC, as a board's IOMMU driver pins it
 * (VFIO_IOMMU_MAP_DMA, get_user_pages): the pages of a range are checked when it is
 * registered, and the NIC keeps reaching the pages it registered whatever the
 * application later maps, unmaps or protects at their addresses.
 *
 * The pages are held through a second mapping of the simulator's own. A shared mapping
 * (a file, shared memory) is mapped a second time as it is; a private one cannot be (Linux
 * gives private pages no second mapping), so its pages are first moved into a memfd that
 * replaces them at the same address with the same protections and contents, then mapped
 * a second time. Through that second mapping the simulator's accesses never fault.
 * A child of fork() gets private copies of what was moved (what a pinned private page
 * gives a child on Linux), so that it never writes into its parent's memory.
 */
#ifndef HROCE_SIM_PIN_H
#define HROCE_SIM_PIN_H

#include <stdbool.h>
#include <stdint.h>

struct sim_pin {
	uintptr_t addr; /* the application's range, page-aligned */
	uint64_t len;	/* a multiple of the page */
	uint8_t *vaddr; /* the simulator's mapping of the same pages */
	bool write;	/* pinned for writing */
};

/*
 * What get_user_pages would say of [addr, addr + len), both page-aligned: 0 if every page
 * is mapped, readable, and writable if write; else EFAULT, and *bad (if not NULL) the
 * offset of the first page that is not. Mappings that are no memory ([vvar], [vdso],
 * [vsyscall]) fail too. EINVAL for a range that is not page-aligned or wraps.
 */
int sim_pin_check(uintptr_t addr, uint64_t len, bool write, uint64_t *bad);

/*
 * Checks as sim_pin_check, then pins. ENOMEM if the pages pinned in this process would
 * pass RLIMIT_MEMLOCK and the process lacks CAP_IPC_LOCK (as VFIO and ib_umem_get
 * refuse), or if a mapping could not be made; nothing is pinned on error.
 */
int sim_pin(uintptr_t addr, uint64_t len, bool write, struct sim_pin **out);
void sim_unpin(struct sim_pin *p);

/*
 * Memory the caller keeps mapped (a driver's rings and tables), which a board pins all
 * the same: counted against RLIMIT_MEMLOCK with the rest (ENOMEM past it), then given
 * back. pages: whole pages.
 */
int sim_pin_account(uint64_t pages);
void sim_pin_unaccount(uint64_t pages);

/* Pages pinned by this process now (what counts against RLIMIT_MEMLOCK). */
uint64_t sim_pinned_pages(void);

#endif /* HROCE_SIM_PIN_H */
