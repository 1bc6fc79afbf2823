// SPDX-License-Identifier: MIT
/*
 * Protection domains and memory regions.
 *
 * A region's pages are mapped into the device's IOVA space in one contiguous range, so
 * its translation table can use any page size: the range starts at an IOVA congruent to
 * the region's first page modulo the page size, and entry i of the table is the IOVA of
 * page i of the region (counted from its VA rounded down to the page size).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hroce_priv.h"

#define ACCESS_ALL                                                                         \
	(HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE | HROCE_ACCESS_REMOTE_READ | \
	 HROCE_ACCESS_REMOTE_ATOMIC)

struct hroce_pd *hroce_alloc_pd(struct hroce_dev *dev)
{
	struct hroce_pd *pd = calloc(1, sizeof(*pd));

	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pd->dev = dev;
	pthread_mutex_lock(&dev->lock);
	pd->pdn = dev->next_pdn++ & ((1u << HROCE_MRC_PD_WIDTH) - 1);
	pthread_mutex_unlock(&dev->lock);
	return pd;
}

int hroce_dealloc_pd(struct hroce_pd *pd)
{
	if (pd->users)
		return EBUSY;
	free(pd);
	return 0;
}

uint32_t hroce_pd_num(const struct hroce_pd *pd)
{
	return pd->pdn;
}

/* The page size that holds [addr, addr + len) in one page. */
static unsigned int whole_page_log(uint64_t addr, uint64_t len)
{
	unsigned int log = 12;

	while (log < HROCE_MR_LOG_PAGE_MAX &&
	       (addr & ~((UINT64_C(1) << log) - 1)) + (UINT64_C(1) << log) < addr + len)
		log++;
	return log;
}

/* Claims a free MR index (its key's tag with it), for this open of the device or another. */
static int claim_mr_index(struct hroce_dev *dev, uint32_t *index, uint32_t *key)
{
	uint32_t n = 1u << dev->params.log_mrs;
	int err = ENOMEM;

	pthread_mutex_lock(&dev->lock);
	/* index 0 is never used: a key of 0 is never valid */
	for (uint32_t i = 1; i < n; i++) {
		if (!dev->mr_used[i]) {
			dev->mr_used[i] = 1;
			*index = i;
			*key = i << 8 | dev->mr_tag[i]++;
			err = 0;
			break;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	return err;
}

static void release_mr_index(struct hroce_dev *dev, uint32_t index)
{
	pthread_mutex_lock(&dev->lock);
	dev->mr_used[index] = 0;
	pthread_mutex_unlock(&dev->lock);
}

struct hroce_mr *hroce_reg_mr(struct hroce_pd *pd, void *addr, size_t len, unsigned int access,
			      unsigned int log_page_size)
{
	struct hroce_dev *dev = pd->dev;
	uint64_t va = (uintptr_t)addr, first, end, page, base, entries;
	uint8_t mrc[HROCE_MRC_BYTES] = { 0 };
	struct hroce_mr *mr;
	uint64_t *pt;
	int err;

	/* a range that wraps, or that no MR can be, is refused before anything is pinned */
	if (!len || len > HROCE_MAX_MR_SIZE || va + len < va ||
	    va + len > UINT64_MAX - HROCE_PAGE || (access & ~ACCESS_ALL) ||
	    ((access & (HROCE_ACCESS_REMOTE_WRITE | HROCE_ACCESS_REMOTE_ATOMIC)) &&
	     !(access & HROCE_ACCESS_LOCAL_WRITE)) ||
	    (log_page_size &&
	     (log_page_size < HROCE_MR_LOG_PAGE_MIN || log_page_size > HROCE_MR_LOG_PAGE_MAX))) {
		errno = EINVAL;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		errno = ENOMEM;
		return NULL;
	}
	err = claim_mr_index(dev, &mr->index, &mr->key);
	if (err)
		goto err_free;
	mr->pd = pd;
	mr->access = access;

	if (!log_page_size)
		log_page_size = whole_page_log(va, len);
	page = UINT64_C(1) << log_page_size;
	first = va & ~(uint64_t)(HROCE_PAGE - 1);
	end = (va + len + HROCE_PAGE - 1) & ~(uint64_t)(HROCE_PAGE - 1);
	mr->map_len = end - first;
	mr->map_iova = hroce_iova_alloc(dev, mr->map_len, page, first & (page - 1));
	/* the pages are pinned for writing if anyone may write the MR, as ib_umem_get does */
	err = dev->bus->ops->dma_map(dev->bus, (void *)(uintptr_t)first, mr->map_iova, mr->map_len,
				     HROCE_BUS_DMA_USER | (access & (HROCE_ACCESS_LOCAL_WRITE |
								     HROCE_ACCESS_REMOTE_WRITE |
								     HROCE_ACCESS_REMOTE_ATOMIC)
								   ? HROCE_BUS_DMA_WRITE
								   : 0));
	if (err) {
		/* an application's mistake (EFAULT, ENOMEM): its errno says it */
		hroce_log(HROCE_LOG_DEBUG, "%s: cannot pin the %llu bytes of an MR at %p: %s",
			  dev->name, (unsigned long long)mr->map_len, addr, strerror(err));
		goto err_iova;
	}

	/* entry i: page i from va rounded down to the page size */
	base = mr->map_iova - (first & (page - 1));
	entries = ((va + len - 1) - (va & ~(page - 1))) / page + 1;
	err = hroce_dma_alloc(dev, entries * sizeof(uint64_t), HROCE_PAGE, &mr->pt);
	if (err)
		goto err_unmap;
	pt = mr->pt.vaddr;
	for (uint64_t i = 0; i < entries; i++)
		hroce_mem_set(&pt[i], 0, 64, base + i * page);

	HROCE_MRC_SET(mrc, ACCESS, access);
	HROCE_MRC_SET(mrc, LOG_PAGE_SIZE, log_page_size);
	HROCE_MRC_SET(mrc, PD, pd->pdn);
	HROCE_MRC_SET(mrc, KEY, mr->key);
	HROCE_MRC_SET(mrc, VA, va);
	HROCE_MRC_SET(mrc, LENGTH, len);
	HROCE_MRC_SET(mrc, PT_BASE, mr->pt.iova);
	err = hroce_cmd(dev, HROCE_CMD_OP_CREATE_MR, mr->index, 0, mrc, sizeof(mrc), NULL, 0);
	if (err)
		goto err_pt;
	pd->users++;
	return mr;

err_pt:
	hroce_dma_free(dev, &mr->pt);
err_unmap:
	dev->bus->ops->dma_unmap(dev->bus, mr->map_iova, mr->map_len);
err_iova:
	hroce_iova_free(dev, mr->map_iova, mr->map_len);
	release_mr_index(dev, mr->index);
err_free:
	free(mr);
	errno = err;
	return NULL;
}

int hroce_dereg_mr(struct hroce_mr *mr)
{
	struct hroce_dev *dev = mr->pd->dev;
	int err;

	err = hroce_cmd(dev, HROCE_CMD_OP_DESTROY_MR, mr->index, 0, NULL, 0, NULL, 0);
	if (err)
		return err;
	release_mr_index(dev, mr->index);
	hroce_dma_free(dev, &mr->pt);
	dev->bus->ops->dma_unmap(dev->bus, mr->map_iova, mr->map_len);
	mr->pd->users--;
	free(mr);
	return 0;
}

uint32_t hroce_mr_lkey(const struct hroce_mr *mr)
{
	return mr->key;
}

uint32_t hroce_mr_rkey(const struct hroce_mr *mr)
{
	return mr->key;
}

void hroce_mr_mapping(const struct hroce_mr *mr, uint64_t *iova, uint64_t *len)
{
	*iova = mr->map_iova;
	*len = mr->map_len;
}
