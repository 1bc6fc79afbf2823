/* SPDX-License-Identifier: MIT */
/*
 * The IOMMU of a simulated NIC: the table of IOVA ranges the driver mapped onto process
 * memory (what VFIO_IOMMU_MAP_DMA fills on a board), and the record of the accesses that
 * fell outside it.
 */
#ifndef HROCE_SIM_IOMMU_H
#define HROCE_SIM_IOMMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_PAGE_SIZE 4096u

struct sim_pin;

struct sim_iommu_map {
	uint64_t iova;
	uint64_t len;
	uint8_t *vaddr;
	bool write;	     /* the device may write (VFIO_DMA_MAP_FLAG_WRITE) */
	struct sim_pin *pin; /* application pages pinned for it, released with it */
};

struct sim_iommu_fault {
	uint64_t iova;
	uint64_t len;
	bool write;
	uint64_t cycle;
};

struct sim_iommu {
	struct sim_iommu_map *maps; /* sorted by iova, never overlapping */
	size_t n, cap;
	size_t hint; /* the mapping the last translation hit */
	uint64_t faults;
	struct sim_iommu_fault last;
};

void sim_iommu_init(struct sim_iommu *m);
void sim_iommu_fini(struct sim_iommu *m);
/* vaddr, iova and len 4 KiB aligned (EINVAL), len > 0; EEXIST if iova overlaps a mapping. */
int sim_iommu_map(struct sim_iommu *m, void *vaddr, uint64_t iova, uint64_t len);
/*
 * The same for a mapping the device may only read (write false), or that holds pinned
 * application pages (pin not NULL: vaddr is pin's, and unmap hands the pin back).
 */
int sim_iommu_map_pinned(struct sim_iommu *m, void *vaddr, uint64_t iova, uint64_t len, bool write,
			 struct sim_pin *pin);
/*
 * Unmaps [iova, iova + len), which may cover several mappings and split the ones at its
 * ends; ENOENT (and nothing unmapped) if a page of it is not mapped. A mapping of pinned
 * pages goes whole or not at all (EINVAL); its pin is then in *pin (NULL if none; pin
 * may be NULL when the range holds no pinned mapping, else EINVAL).
 */
int sim_iommu_unmap(struct sim_iommu *m, uint64_t iova, uint64_t len, struct sim_pin **pin);
/*
 * Where [iova, iova + len) is in process memory if one mapping holds it all and allows
 * the access (write), else NULL.
 */
uint8_t *sim_iommu_translate(struct sim_iommu *m, uint64_t iova, uint64_t len, bool write);
/* Counts and records an access that could not be translated. */
void sim_iommu_fault(struct sim_iommu *m, uint64_t iova, uint64_t len, bool write, uint64_t cycle);

#endif /* HROCE_SIM_IOMMU_H */
