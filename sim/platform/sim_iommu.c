// SPDX-License-Identifier: MIT
#include "sim_iommu.h"

#include "sim_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_MASK ((uint64_t)SIM_PAGE_SIZE - 1)

void sim_iommu_init(struct sim_iommu *m)
{
	memset(m, 0, sizeof(*m));
}

void sim_iommu_fini(struct sim_iommu *m)
{
	free(m->maps);
	memset(m, 0, sizeof(*m));
}

/* The number of mappings that start at or below iova. */
static size_t upper(const struct sim_iommu *m, uint64_t iova)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->maps[mid].iova <= iova)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int reserve(struct sim_iommu *m, size_t n)
{
	struct sim_iommu_map *maps;
	size_t cap = m->cap ? m->cap : 16;

	if (n <= m->cap)
		return 0;
	while (cap < n)
		cap *= 2;
	maps = realloc(m->maps, cap * sizeof(*maps));
	if (!maps)
		return ENOMEM;
	m->maps = maps;
	m->cap = cap;
	return 0;
}

int sim_iommu_map(struct sim_iommu *m, void *vaddr, uint64_t iova, uint64_t len)
{
	return sim_iommu_map_pinned(m, vaddr, iova, len, true, NULL);
}

int sim_iommu_map_pinned(struct sim_iommu *m, void *vaddr, uint64_t iova, uint64_t len, bool write,
			 struct sim_pin *pin)
{
	size_t p;
	int err;

	if (!vaddr || !len || (iova & PAGE_MASK) || (len & PAGE_MASK) ||
	    ((uintptr_t)vaddr & PAGE_MASK) || iova + len < iova)
		return EINVAL;
	p = upper(m, iova);
	if (p && m->maps[p - 1].iova + m->maps[p - 1].len > iova)
		return EEXIST;
	if (p < m->n && m->maps[p].iova < iova + len)
		return EEXIST;
	err = reserve(m, m->n + 1);
	if (err)
		return err;
	memmove(&m->maps[p + 1], &m->maps[p], (m->n - p) * sizeof(*m->maps));
	m->maps[p] = (struct sim_iommu_map){ iova, len, vaddr, write, pin };
	m->n++;
	m->hint = 0;
	return 0;
}

int sim_iommu_unmap(struct sim_iommu *m, uint64_t iova, uint64_t len, struct sim_pin **pin)
{
	struct sim_pin *found = NULL;
	struct sim_iommu_map keep[2];
	uint64_t end = iova + len, pos;
	size_t i, j, k = 0;
	int err;

	if (!len || (iova & PAGE_MASK) || (len & PAGE_MASK) || end < iova)
		return EINVAL;
	i = upper(m, iova);
	if (!i || m->maps[i - 1].iova + m->maps[i - 1].len <= iova)
		return ENOENT;
	i--;
	/* maps[i, j) must cover the range without a hole */
	pos = m->maps[i].iova + m->maps[i].len;
	for (j = i + 1; pos < end; j++) {
		if (j == m->n || m->maps[j].iova != pos)
			return ENOENT;
		pos = m->maps[j].iova + m->maps[j].len;
	}
	/* pinned pages go back whole: one pin per call */
	for (size_t x = i; x < j; x++) {
		if (!m->maps[x].pin)
			continue;
		if (found || !pin || m->maps[x].iova < iova ||
		    m->maps[x].iova + m->maps[x].len > end)
			return EINVAL;
		found = m->maps[x].pin;
	}
	if (m->maps[i].iova < iova)
		keep[k++] = (struct sim_iommu_map){ m->maps[i].iova, iova - m->maps[i].iova,
						    m->maps[i].vaddr, m->maps[i].write, NULL };
	if (pos > end)
		keep[k++] =
			(struct sim_iommu_map){ end, pos - end,
						m->maps[j - 1].vaddr + (end - m->maps[j - 1].iova),
						m->maps[j - 1].write, NULL };
	err = reserve(m, m->n - (j - i) + k);
	if (err)
		return err;
	memmove(&m->maps[i + k], &m->maps[j], (m->n - j) * sizeof(*m->maps));
	memcpy(&m->maps[i], keep, k * sizeof(*keep));
	m->n = m->n - (j - i) + k;
	m->hint = 0;
	if (pin)
		*pin = found;
	return 0;
}

uint8_t *sim_iommu_translate(struct sim_iommu *m, uint64_t iova, uint64_t len, bool write)
{
	const struct sim_iommu_map *map;
	size_t i;

	if (m->hint < m->n) {
		map = &m->maps[m->hint];
		if (iova >= map->iova && iova - map->iova < map->len &&
		    len <= map->len - (iova - map->iova) && (map->write || !write))
			return map->vaddr + (iova - map->iova);
	}
	i = upper(m, iova);
	if (!i)
		return NULL;
	map = &m->maps[i - 1];
	if (iova - map->iova >= map->len || len > map->len - (iova - map->iova) ||
	    (write && !map->write))
		return NULL;
	m->hint = i - 1;
	return map->vaddr + (iova - map->iova);
}

void sim_iommu_fault(struct sim_iommu *m, uint64_t iova, uint64_t len, bool write, uint64_t cycle)
{
	m->faults++;
	m->last = (struct sim_iommu_fault){ iova, len, write, cycle };
	sim_log(HROCE_SIM_LOG_INFO, "IOVA fault: DMA %s of %llu bytes at 0x%llx, cycle %llu",
		write ? "write" : "read", (unsigned long long)len, (unsigned long long)iova,
		(unsigned long long)cycle);
}
