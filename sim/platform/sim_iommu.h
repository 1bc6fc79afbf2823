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

struct sim_iommu_map {
	uint64_t iova;
	uint64_t len;
	uint8_t *vaddr;
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
 * Unmaps [iova, iova + len), which may cover several mappings and split the ones at its
 * ends; ENOENT (and nothing unmapped) if a page of it is not mapped.
 */
int sim_iommu_unmap(struct sim_iommu *m, uint64_t iova, uint64_t len);
/* Where [iova, iova + len) is in process memory if one mapping holds it all, else NULL. */
uint8_t *sim_iommu_translate(struct sim_iommu *m, uint64_t iova, uint64_t len);
/* Counts and records an access that could not be translated. */
void sim_iommu_fault(struct sim_iommu *m, uint64_t iova, uint64_t len, bool write, uint64_t cycle);

#endif /* HROCE_SIM_IOMMU_H */
