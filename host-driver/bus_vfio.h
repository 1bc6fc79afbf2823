/* SPDX-License-Identifier: MIT */
/*
 * The steps of opening a board through VFIO that need no VFIO to run, so that tests can
 * reach them: the PCI address, the IOMMU group in sysfs, the container and group nodes,
 * and the advice given when a step fails. The sysfs root and the VFIO directory are
 * parameters: "/sys" and "/dev/vfio" on a real system.
 *
 * Errors (each step logs what it found and what to do):
 *   EINVAL  the address is not DDDD:BB:DD.F or BB:DD.F
 *   ENODEV  no PCI device at the address, or no driver bound to it
 *   ENXIO   the device is in no IOMMU group (the IOMMU is off), or its group is in VFIO's
 *           no-IOMMU mode, which cannot map DMA
 *   EBUSY   the device is bound to a driver other than vfio-pci; the group is held by
 *           another process; or the group is not viable (another of its devices is
 *           bound to a host driver)
 *   ENOENT  no VFIO container node (VFIO is not loaded) or no node for the group
 *   EACCES  no permission on the group's node
 *   ENOTTY  a node that is not a VFIO container or group
 *   others  as the system call that failed returned them
 */
#ifndef HROCE_BUS_VFIO_H
#define HROCE_BUS_VFIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hroce_bus.h"

#define HROCE_SYSFS_ROOT "/sys"
#define HROCE_VFIO_DIR "/dev/vfio"

struct hroce_pci_addr {
	unsigned int domain; /* up to 0xffffffff (domains past 0xffff exist, e.g. behind VMD) */
	unsigned int bus, dev, fn;
};

/* "DDDD:BB:DD.F" with the domain as sysfs prints it, lower case. */
#define HROCE_PCI_ADDR_LEN sizeof("ffffffff:ff:1f.7")

/*
 * "DDDD:BB:DD.F" (domain of 4 to 8 hex digits) or "BB:DD.F" (domain 0), hex digits of
 * either case, nothing around them. 0 or EINVAL (logged).
 */
int hroce_vfio_parse_addr(const char *s, struct hroce_pci_addr *addr);
void hroce_vfio_format_addr(const struct hroce_pci_addr *addr, char *buf, size_t len);

/*
 * The IOMMU group of the device named addr (canonical form) under sysfs_root, checking
 * that vfio-pci drives it. name prefixes the messages.
 */
int hroce_vfio_find_group(const char *name, const char *sysfs_root, const char *addr,
			  unsigned int *group);

/*
 * Opens vfio_dir/vfio, checks the API version and picks the type 1 IOMMU (v2 if the
 * kernel has it): *fd and *iommu_type on success.
 */
int hroce_vfio_open_container(const char *name, const char *vfio_dir, int *fd, int *iommu_type);

/* Opens vfio_dir/GROUP and checks that the group is viable: *fd on success. */
int hroce_vfio_open_group(const char *name, const char *vfio_dir, unsigned int group, int *fd);

/* Where a VFIO step can fail with an errno that has a remedy. */
enum hroce_vfio_step {
	HROCE_VFIO_STEP_CONTAINER, /* opening the container node */
	HROCE_VFIO_STEP_GROUP,	   /* opening the group node */
	HROCE_VFIO_STEP_ATTACH,	   /* VFIO_GROUP_SET_CONTAINER */
	HROCE_VFIO_STEP_DEVICE,	   /* VFIO_GROUP_GET_DEVICE_FD */
	HROCE_VFIO_STEP_DMA_MAP,   /* VFIO_IOMMU_MAP_DMA */
};

/* What to do about err at that step, or NULL when there is nothing specific to say. */
const char *hroce_vfio_hint(enum hroce_vfio_step step, int err);

/*
 * Interrupts: an eventfd per vector for the kernel to signal (VFIO_DEVICE_SET_IRQS), and
 * an epoll fd over them, readable while a vector has fired and not been taken: the bus's
 * irq_fd.
 */
#define HROCE_VFIO_MAX_VECTORS 64

struct hroce_vfio_irqs {
	unsigned int n;
	int fd[HROCE_VFIO_MAX_VECTORS];
	int epoll_fd;
};

/* n vectors (0 to 64; with none the epoll fd is never readable). 0 or errno. */
int hroce_vfio_irqs_init(struct hroce_vfio_irqs *irqs, unsigned int n);
void hroce_vfio_irqs_free(struct hroce_vfio_irqs *irqs);
/* The vectors that fired since the last call, one bit each; never blocks. */
uint64_t hroce_vfio_irqs_take(struct hroce_vfio_irqs *irqs);

/*
 * BAR0 as the process maps it (VFIO's region mmap), and the bus's MMIO on it: a write of
 * 8-byte words (up to 64 bytes) or of one 4-byte word, a read of one 8-byte or
 * 4-byte word, each a single store or load of that width in the device's byte order
 * (little-endian), offsets aligned to it. An access outside the mapping or misaligned is
 * logged with name and not made; such a read returns all ones. Any mapping will do: the
 * tests run them on memory.
 */
struct hroce_vfio_bar {
	volatile uint8_t *base;
	uint64_t size;
	const char *name;
};

void hroce_vfio_bar_write(const struct hroce_vfio_bar *bar, uint64_t offset, const void *data,
			  size_t len);
uint64_t hroce_vfio_bar_read64(const struct hroce_vfio_bar *bar, uint64_t offset);
void hroce_vfio_bar_write32(const struct hroce_vfio_bar *bar, uint64_t offset, uint32_t value);
uint32_t hroce_vfio_bar_read32(const struct hroce_vfio_bar *bar, uint64_t offset);

/*
 * The doorbell pages (BAR HROCE_DB_BAR, when the board has it): a pushed WQE is one write of
 * HROCE_DB_PUSH_BYTES that must leave the CPU as one PCIe TLP. How this CPU can store it:
 * MOVDIR64B is one 64-byte direct store on any mapping (VFIO maps a BAR uncached, where
 * only it will do); on a write-combining mapping, two 32-byte AVX or four 16-byte SSE
 * stores fill one WC buffer, which the store fence after them sends as one TLP. NONE: no
 * way here; the driver then rings 8-byte doorbells and pushes nothing.
 */
enum hroce_vfio_wc {
	HROCE_VFIO_WC_NONE,
	HROCE_VFIO_WC_SSE,
	HROCE_VFIO_WC_AVX,
	HROCE_VFIO_WC_MOVDIR64B,
};
/* Whether this CPU has the store; the best it has for a mapping write-combining or not. */
bool hroce_vfio_wc_supported(enum hroce_vfio_wc how);
enum hroce_vfio_wc hroce_vfio_wc_best(bool wc_mapping);
/*
 * One write of len bytes (HROCE_DB_PUSH_BYTES) at offset (aligned to len, inside the
 * mapping) with the store how (one this CPU has), then a store fence; anything else is
 * logged with the bar's name and not made.
 */
void hroce_vfio_bar_write_wc(const struct hroce_vfio_bar *bar, enum hroce_vfio_wc how,
			     uint64_t offset, const void *data, size_t len);

/* hroce_bus_vfio_open() with another sysfs root and VFIO directory. */
int hroce_bus_vfio_open_at(const char *sysfs_root, const char *vfio_dir, const char *arg,
			   struct hroce_bus **bus);

#endif /* HROCE_BUS_VFIO_H */
