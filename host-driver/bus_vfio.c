// SPDX-License-Identifier: MIT
/*
 * The vfio backend: a HardRoCE board bound to vfio-pci. BAR0 is mapped into the process
 * and written with plain stores, DMA mappings go into the IOMMU through the type 1 VFIO
 * container, and each MSI-X vector signals an eventfd. One process holds an IOMMU group
 * at a time; each process that drives a board opens its own.
 *
 * The order of acquisition, undone in reverse on close or failure: container, group (set
 * to the container, IOMMU chosen), device, BAR0 mapping, bus mastering, interrupts.
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/pci_regs.h>
#include <linux/vfio.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include "bus_vfio.h"
#include "hroce_priv.h"

#if UINTPTR_MAX != UINT64_MAX
#error "the vfio backend writes registers with 64-bit stores: a 64-bit target is needed"
#endif

/* BAR0 holds the registers of the contract: AXIL_ADDR_WIDTH bits of byte address */
#define BAR0_MIN_BYTES (UINT64_C(1) << HROCE_AXIL_ADDR_WIDTH)
#define SEE_README "see the README, \"Running on a board: VFIO\""

struct vfio_bus {
	struct hroce_bus bus;
	int container, group, device;
	int iommu_type;
	struct hroce_vfio_bar bar0;
	struct hroce_vfio_bar db; /* the doorbell pages, if mapped (base NULL: not) */
	enum hroce_vfio_wc db_store;
	uint64_t config_offset; /* of the config space region in the device fd */
	uint16_t command;	/* the PCI command register as we found it */
	struct hroce_vfio_irqs irqs;
};

static struct vfio_bus *to_vfio(struct hroce_bus *bus)
{
	return container_of(bus, struct vfio_bus, bus);
}

/*
 * Barriers between the CPU and the device, as rdma-core's util/udma_barrier.h has them:
 * stores to memory the device reads are visible before the MMIO stores that follow; a
 * burst of MMIO stores leaves the CPU (write-combining buffers included) before anything
 * after it; a value read from a register is read before the memory reads that follow.
 */
static inline void mmio_before_writes(void)
{
#if defined(__aarch64__)
	__asm__ volatile("dmb oshst" ::: "memory");
#elif defined(__x86_64__)
	__asm__ volatile("" ::: "memory");
#else
	atomic_thread_fence(memory_order_seq_cst);
#endif
}

static inline void mmio_flush_writes(void)
{
#if defined(__aarch64__)
	__asm__ volatile("dsb st" ::: "memory");
#elif defined(__x86_64__)
	__asm__ volatile("sfence" ::: "memory");
#else
	atomic_thread_fence(memory_order_seq_cst);
#endif
}

static inline void mmio_after_read(void)
{
#if defined(__aarch64__)
	__asm__ volatile("dmb oshld" ::: "memory");
#elif defined(__x86_64__)
	__asm__ volatile("" ::: "memory");
#else
	atomic_thread_fence(memory_order_seq_cst);
#endif
}

static inline void cpu_relax(void)
{
#if defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#elif defined(__x86_64__)
	__asm__ volatile("pause" ::: "memory");
#endif
}

/* ---------------------------------------------------------------------------------------
 * The address, sysfs, and the advice: no VFIO needed
 */

/* Between min and max hex digits at *p into *v; advances *p. */
static bool parse_hex(const char **p, unsigned int min, unsigned int max, unsigned int *v)
{
	unsigned int n = 0;

	*v = 0;
	while (isxdigit((unsigned char)**p)) {
		if (++n > max)
			return false;
		*v = *v << 4 | (unsigned int)(isdigit((unsigned char)**p)
						      ? **p - '0'
						      : tolower((unsigned char)**p) - 'a' + 10);
		(*p)++;
	}
	return n >= min;
}

static bool parse_char(const char **p, char c)
{
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

int hroce_vfio_parse_addr(const char *s, struct hroce_pci_addr *addr)
{
	const char *p = s;
	const char *colon = s ? strchr(s, ':') : NULL;
	struct hroce_pci_addr a = { 0 };

	/* with two colons the first field is the domain */
	if (colon && strchr(colon + 1, ':')) {
		if (!parse_hex(&p, 4, 8, &a.domain) || !parse_char(&p, ':'))
			goto bad;
	}
	if (!colon || !parse_hex(&p, 2, 2, &a.bus) || !parse_char(&p, ':') ||
	    !parse_hex(&p, 2, 2, &a.dev) || !parse_char(&p, '.') || !parse_hex(&p, 1, 1, &a.fn) ||
	    *p || a.dev > 0x1f || a.fn > 7)
		goto bad;
	*addr = a;
	return 0;
bad:
	hroce_log(HROCE_LOG_ERR,
		  "vfio:%s: not a PCI address: a board is vfio:DDDD:BB:DD.F or vfio:BB:DD.F "
		  "(domain, bus, device 00-1f, function 0-7, in hex as lspci -D prints them)",
		  s ? s : "(null)");
	return EINVAL;
}

void hroce_vfio_format_addr(const struct hroce_pci_addr *addr, char *buf, size_t len)
{
	snprintf(buf, len, "%04x:%02x:%02x.%x", addr->domain, addr->bus, addr->dev, addr->fn);
}

/* A path into buf; ENAMETOOLONG (logged) when it does not fit. */
static int __attribute__((format(printf, 4, 5)))
make_path(const char *name, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len) {
		hroce_log(HROCE_LOG_ERR, "%s: a path under %s is too long", name, buf);
		return ENAMETOOLONG;
	}
	return 0;
}

/* The last component of the target of the symbolic link at path; 0 or errno. */
static int link_name(const char *path, char *buf, size_t len)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	const char *base;

	if (n < 0)
		return errno;
	target[n] = 0;
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (strlen(base) >= len)
		return ENAMETOOLONG;
	strcpy(buf, base);
	return 0;
}

int hroce_vfio_find_group(const char *name, const char *sysfs_root, const char *addr,
			  unsigned int *group)
{
	char dev[PATH_MAX], path[PATH_MAX], link[NAME_MAX + 1], *end;
	unsigned long num;
	struct stat st;
	int err;

	err = make_path(name, dev, sizeof(dev), "%s/bus/pci/devices/%s", sysfs_root, addr);
	if (err)
		return err;
	if (stat(dev, &st)) {
		err = errno;
		if (err == ENOENT) {
			hroce_log(HROCE_LOG_ERR,
				  "%s: no PCI device %s (%s): lspci -D lists the devices, with "
				  "their addresses",
				  name, addr, dev);
			return ENODEV;
		}
		hroce_log(HROCE_LOG_ERR, "%s: %s: %s", name, dev, strerror(err));
		return err;
	}

	err = make_path(name, path, sizeof(path), "%s/iommu_group", dev);
	err = err ?: link_name(path, link, sizeof(link));
	if (err == ENOENT) {
		hroce_log(HROCE_LOG_ERR,
			  "%s: the device is in no IOMMU group: the IOMMU is off or absent. Enable "
			  "VT-d or AMD-Vi in the firmware and boot Linux with intel_iommu=on on "
			  "Intel (AMD's is on by default); %s/kernel/iommu_groups/ then lists the "
			  "groups (" SEE_README ")",
			  name, sysfs_root);
		return ENXIO;
	}
	if (err) {
		hroce_log(HROCE_LOG_ERR, "%s: %s: %s", name, path, strerror(err));
		return err;
	}
	errno = 0;
	num = strtoul(link, &end, 10);
	if (!isdigit((unsigned char)link[0]) || *end || errno || num > UINT_MAX) {
		hroce_log(HROCE_LOG_ERR, "%s: %s points to \"%s\", not to a group number", name,
			  path, link);
		return EIO;
	}

	err = make_path(name, path, sizeof(path), "%s/driver", dev);
	err = err ?: link_name(path, link, sizeof(link));
	if (err == ENOENT) {
		hroce_log(HROCE_LOG_ERR,
			  "%s: no driver is bound to the device: modprobe vfio-pci, then echo "
			  "vfio-pci > %s/driver_override and echo %s > %s/bus/pci/drivers_probe "
			  "(" SEE_README ")",
			  name, dev, addr, sysfs_root);
		return ENODEV;
	}
	if (err) {
		hroce_log(HROCE_LOG_ERR, "%s: %s: %s", name, path, strerror(err));
		return err;
	}
	if (strcmp(link, "vfio-pci")) {
		hroce_log(HROCE_LOG_ERR,
			  "%s: the device is bound to %s, not to vfio-pci: echo vfio-pci > "
			  "%s/driver_override, echo %s > %s/driver/unbind, then echo %s > "
			  "%s/bus/pci/drivers_probe (" SEE_README ")",
			  name, link, dev, addr, dev, addr, sysfs_root);
		return EBUSY;
	}
	*group = (unsigned int)num;
	return 0;
}

const char *hroce_vfio_hint(enum hroce_vfio_step step, int err)
{
	switch (step) {
	case HROCE_VFIO_STEP_CONTAINER:
		if (err == ENOENT || err == ENODEV || err == ENXIO)
			return "VFIO is not loaded: modprobe vfio-pci (the kernel needs "
			       "CONFIG_VFIO_PCI, and CONFIG_VFIO_CONTAINER or "
			       "CONFIG_IOMMUFD_VFIO_CONTAINER)";
		if (err == EACCES || err == EPERM)
			return "the container node gives no access by itself and is normally "
			       "mode 0666: check its permissions";
		break;
	case HROCE_VFIO_STEP_GROUP:
		if (err == ENOENT)
			return "no VFIO node for the group: bind the device to vfio-pci";
		if (err == EBUSY)
			return "another process holds the group (a libhroce program, QEMU, "
			       "DPDK...): VFIO gives a group to one process at a time";
		if (err == EACCES || err == EPERM)
			return "run as root, or give your user the group's node: chown it, or a "
			       "udev rule such as SUBSYSTEM==\"vfio\", OWNER=\"you\"";
		break;
	case HROCE_VFIO_STEP_ATTACH:
		if (err == EBUSY || err == EPERM)
			return "another device of the IOMMU group is bound to a host driver: "
			       "bind every device of the group to vfio-pci, or to no driver";
		break;
	case HROCE_VFIO_STEP_DEVICE:
		if (err == EBUSY)
			return "the device is already open, or another device of its IOMMU "
			       "group is bound to a host driver";
		if (err == EPERM)
			return "every device of the IOMMU group must be bound to vfio-pci, or "
			       "to no driver";
		break;
	case HROCE_VFIO_STEP_DMA_MAP:
		if (err == ENOMEM)
			return "the pinned memory would pass RLIMIT_MEMLOCK: raise ulimit -l "
			       "(memlock in /etc/security/limits.conf), or run as root";
		if (err == ENOSPC)
			return "too many DMA mappings (vfio_iommu_type1's dma_entry_limit)";
		if (err == EEXIST)
			return "the IOVA range overlaps a mapping";
		if (err == EINVAL)
			return "not page-aligned, or outside the IOMMU's IOVA ranges";
		break;
	}
	return NULL;
}

/* "NAME: WHAT: ERROR: HINT", the hint when there is one */
static void log_failure(const char *name, const char *what, int err, const char *hint)
{
	hroce_log(HROCE_LOG_ERR, "%s: %s: %s%s%s", name, what, strerror(err), hint ? ": " : "",
		  hint ? hint : "");
}

/* ---------------------------------------------------------------------------------------
 * Container and group
 */

int hroce_vfio_open_container(const char *name, const char *vfio_dir, int *fd, int *iommu_type)
{
	const char *hint = hroce_vfio_hint(HROCE_VFIO_STEP_CONTAINER, ENOENT);
	char path[PATH_MAX];
	struct stat st;
	int c, err, version;

	if (stat(vfio_dir, &st) && errno == ENOENT) {
		hroce_log(HROCE_LOG_ERR, "%s: %s does not exist: %s (" SEE_README ")", name,
			  vfio_dir, hint);
		return ENOENT;
	}
	err = make_path(name, path, sizeof(path), "%s/vfio", vfio_dir);
	if (err)
		return err;
	c = open(path, O_RDWR | O_CLOEXEC);
	if (c < 0) {
		err = errno;
		log_failure(name, path, err, hroce_vfio_hint(HROCE_VFIO_STEP_CONTAINER, err));
		return err;
	}
	version = ioctl(c, VFIO_GET_API_VERSION);
	if (version < 0) {
		err = errno;
		hroce_log(HROCE_LOG_ERR, "%s: %s is not a VFIO container (%s)", name, path,
			  strerror(err));
		goto err_close;
	}
	if (version != VFIO_API_VERSION) {
		hroce_log(HROCE_LOG_ERR, "%s: VFIO API version %d, this driver knows %d", name,
			  version, VFIO_API_VERSION);
		err = ENOTSUP;
		goto err_close;
	}
	if (ioctl(c, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU) > 0) {
		*iommu_type = VFIO_TYPE1v2_IOMMU;
	} else if (ioctl(c, VFIO_CHECK_EXTENSION, VFIO_TYPE1_IOMMU) > 0) {
		*iommu_type = VFIO_TYPE1_IOMMU;
	} else {
		hroce_log(HROCE_LOG_ERR,
			  "%s: VFIO has no type 1 IOMMU: modprobe vfio_iommu_type1 (an x86 or "
			  "Arm system with its IOMMU on has it)",
			  name);
		err = ENOTSUP;
		goto err_close;
	}
	*fd = c;
	return 0;

err_close:
	close(c);
	return err;
}

int hroce_vfio_open_group(const char *name, const char *vfio_dir, unsigned int group, int *fd)
{
	struct vfio_group_status status = { .argsz = sizeof(status) };
	char path[PATH_MAX];
	struct stat st;
	int g, err;

	err = make_path(name, path, sizeof(path), "%s/%u", vfio_dir, group);
	if (err)
		return err;
	g = open(path, O_RDWR | O_CLOEXEC);
	if (g < 0) {
		err = errno;
		if (err == ENOENT) {
			char noiommu[PATH_MAX];

			if (!make_path(name, noiommu, sizeof(noiommu), "%s/noiommu-%u", vfio_dir,
				       group) &&
			    !stat(noiommu, &st)) {
				hroce_log(HROCE_LOG_ERR,
					  "%s: the group is in VFIO's no-IOMMU mode (%s), where "
					  "DMA cannot be mapped: libhroce needs the IOMMU on",
					  name, noiommu);
				return ENXIO;
			}
		}
		log_failure(name, path, err, hroce_vfio_hint(HROCE_VFIO_STEP_GROUP, err));
		return err;
	}
	if (ioctl(g, VFIO_GROUP_GET_STATUS, &status)) {
		err = errno;
		hroce_log(HROCE_LOG_ERR, "%s: %s is not a VFIO group (%s)", name, path,
			  strerror(err));
		goto err_close;
	}
	if (!(status.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		hroce_log(HROCE_LOG_ERR,
			  "%s: IOMMU group %u is not viable: every device in "
			  "/sys/kernel/iommu_groups/%u/devices must be bound to vfio-pci or to no "
			  "driver (bridges excepted)",
			  name, group, group);
		err = EBUSY;
		goto err_close;
	}
	*fd = g;
	return 0;

err_close:
	close(g);
	return err;
}

/* The group into the container, and the container's IOMMU set up. */
static int vfio_attach(struct vfio_bus *vb)
{
	struct vfio_iommu_type1_info info = { .argsz = sizeof(info) };
	int err;

	if (ioctl(vb->group, VFIO_GROUP_SET_CONTAINER, &vb->container)) {
		err = errno;
		log_failure(vb->bus.name, "VFIO_GROUP_SET_CONTAINER", err,
			    hroce_vfio_hint(HROCE_VFIO_STEP_ATTACH, err));
		return err;
	}
	if (ioctl(vb->container, VFIO_SET_IOMMU, vb->iommu_type)) {
		err = errno;
		log_failure(vb->bus.name, "VFIO_SET_IOMMU", err, NULL);
		goto err_unset;
	}
	if (ioctl(vb->container, VFIO_IOMMU_GET_INFO, &info)) {
		err = errno;
		log_failure(vb->bus.name, "VFIO_IOMMU_GET_INFO", err, NULL);
		goto err_unset;
	}
	/* the driver maps in pages of HROCE_PAGE: the IOMMU's smallest must not be larger */
	if ((info.flags & VFIO_IOMMU_INFO_PGSIZES) &&
	    (info.iova_pgsizes & -info.iova_pgsizes) > HROCE_PAGE) {
		hroce_log(HROCE_LOG_ERR,
			  "%s: the IOMMU's smallest page is %llu bytes; libhroce maps %u-byte "
			  "pages",
			  vb->bus.name,
			  (unsigned long long)(info.iova_pgsizes & -info.iova_pgsizes), HROCE_PAGE);
		err = ENOTSUP;
		goto err_unset;
	}
	return 0;

err_unset:
	ioctl(vb->group, VFIO_GROUP_UNSET_CONTAINER);
	return err;
}

static void vfio_detach(struct vfio_bus *vb)
{
	ioctl(vb->group, VFIO_GROUP_UNSET_CONTAINER);
}

/* ---------------------------------------------------------------------------------------
 * The device: its fd, BAR0, config space, MSI-X
 */

static int vfio_open_device(struct vfio_bus *vb, const char *addr)
{
	struct vfio_device_info info = { .argsz = sizeof(info) };
	int err;

	vb->device = ioctl(vb->group, VFIO_GROUP_GET_DEVICE_FD, addr);
	if (vb->device < 0) {
		err = errno;
		log_failure(vb->bus.name, "VFIO_GROUP_GET_DEVICE_FD", err,
			    hroce_vfio_hint(HROCE_VFIO_STEP_DEVICE, err));
		return err;
	}
	if (ioctl(vb->device, VFIO_DEVICE_GET_INFO, &info)) {
		err = errno;
		log_failure(vb->bus.name, "VFIO_DEVICE_GET_INFO", err, NULL);
		goto err_close;
	}
	if (!(info.flags & VFIO_DEVICE_FLAGS_PCI) ||
	    info.num_regions <= VFIO_PCI_CONFIG_REGION_INDEX ||
	    info.num_irqs <= VFIO_PCI_MSIX_IRQ_INDEX) {
		hroce_log(HROCE_LOG_ERR,
			  "%s: VFIO does not present it as a PCI device (flags 0x%x, %u regions, "
			  "%u interrupt kinds)",
			  vb->bus.name, info.flags, info.num_regions, info.num_irqs);
		err = ENODEV;
		goto err_close;
	}
	return 0;

err_close:
	close(vb->device);
	vb->device = -1;
	return err;
}

static int region_info(struct vfio_bus *vb, unsigned int index, struct vfio_region_info *r)
{
	int err;

	memset(r, 0, sizeof(*r));
	r->argsz = sizeof(*r);
	r->index = index;
	if (ioctl(vb->device, VFIO_DEVICE_GET_REGION_INFO, r)) {
		err = errno;
		hroce_log(HROCE_LOG_ERR, "%s: VFIO_DEVICE_GET_REGION_INFO %u: %s", vb->bus.name,
			  index, strerror(err));
		return err;
	}
	return 0;
}

static int vfio_map_bar0(struct vfio_bus *vb)
{
	struct vfio_region_info r;
	void *p;
	int err;

	err = region_info(vb, VFIO_PCI_BAR0_REGION_INDEX, &r);
	if (err)
		return err;
	if (r.size < BAR0_MIN_BYTES) {
		hroce_log(HROCE_LOG_ERR,
			  "%s: BAR0 is %llu bytes, the core's registers take %llu: not a "
			  "HardRoCE board, or a shell that does not give the core all of BAR0",
			  vb->bus.name, (unsigned long long)r.size,
			  (unsigned long long)BAR0_MIN_BYTES);
		return ENODEV;
	}
	if (!(r.flags & VFIO_REGION_INFO_FLAG_MMAP)) {
		hroce_log(HROCE_LOG_ERR, "%s: VFIO does not let BAR0 be mapped (flags 0x%x)",
			  vb->bus.name, r.flags);
		return ENOTSUP;
	}
	p = mmap(NULL, r.size, PROT_READ | PROT_WRITE, MAP_SHARED, vb->device, (off_t)r.offset);
	if (p == MAP_FAILED) {
		err = errno;
		hroce_log(HROCE_LOG_ERR,
			  "%s: mapping BAR0 (%llu bytes): %s (a board must keep its MSI-X table "
			  "out of BAR0 on kernels that cannot map around it)",
			  vb->bus.name, (unsigned long long)r.size, strerror(err));
		return err;
	}
	vb->bar0 = (struct hroce_vfio_bar){ .base = p, .size = r.size, .name = vb->bus.name };
	return 0;
}

static void vfio_unmap_bar0(struct vfio_bus *vb)
{
	munmap((void *)vb->bar0.base, vb->bar0.size);
}

/*
 * The doorbell pages, if the board has them and this CPU can write them: VFIO maps a BAR
 * uncached, where only MOVDIR64B makes one TLP of 64 bytes. Without either, SQ doorbells
 * go through BAR0 and no WQE is pushed (not an error).
 */
static void vfio_map_db(struct vfio_bus *vb)
{
	struct vfio_region_info r;
	enum hroce_vfio_wc how = hroce_vfio_wc_best(false);
	void *p;

	if (region_info(vb, VFIO_PCI_BAR0_REGION_INDEX + HROCE_DB_BAR, &r) ||
	    r.size < (UINT64_C(1) << HROCE_DB_ADDR_WIDTH) ||
	    !(r.flags & VFIO_REGION_INFO_FLAG_MMAP)) {
		hroce_log(HROCE_LOG_INFO, "%s: no doorbell pages (BAR%u): WQEs are not pushed",
			  vb->bus.name, HROCE_DB_BAR);
		return;
	}
	if (how == HROCE_VFIO_WC_NONE) {
		hroce_log(HROCE_LOG_INFO,
			  "%s: the CPU has no MOVDIR64B for the uncached doorbell pages: WQEs "
			  "are not pushed",
			  vb->bus.name);
		return;
	}
	p = mmap(NULL, r.size, PROT_WRITE, MAP_SHARED, vb->device, (off_t)r.offset);
	if (p == MAP_FAILED) {
		hroce_log(HROCE_LOG_WARN, "%s: mapping the doorbell pages: %s", vb->bus.name,
			  strerror(errno));
		return;
	}
	vb->db = (struct hroce_vfio_bar){ .base = p, .size = r.size, .name = vb->bus.name };
	vb->db_store = how;
	vb->bus.db_size = r.size;
}

static void vfio_unmap_db(struct vfio_bus *vb)
{
	if (vb->db.base)
		munmap((void *)vb->db.base, vb->db.size);
	vb->db.base = NULL;
	vb->bus.db_size = 0;
}

/* Config space is little-endian; a short transfer is EIO. */
static int config_read16(struct vfio_bus *vb, unsigned int reg, uint16_t *value)
{
	uint16_t le;
	ssize_t n = pread(vb->device, &le, sizeof(le), (off_t)(vb->config_offset + reg));

	if (n != sizeof(le))
		return n < 0 ? errno : EIO;
	*value = le16toh(le);
	return 0;
}

static int config_write16(struct vfio_bus *vb, unsigned int reg, uint16_t value)
{
	uint16_t le = htole16(value);
	ssize_t n = pwrite(vb->device, &le, sizeof(le), (off_t)(vb->config_offset + reg));

	if (n != sizeof(le))
		return n < 0 ? errno : EIO;
	return 0;
}

/* The device may master the bus (its DMA) and answer on BAR0. */
static int vfio_enable_device(struct vfio_bus *vb)
{
	struct vfio_region_info r;
	int err;

	err = region_info(vb, VFIO_PCI_CONFIG_REGION_INDEX, &r);
	if (err)
		return err;
	vb->config_offset = r.offset;
	err = config_read16(vb, PCI_COMMAND, &vb->command);
	if (err) {
		hroce_log(HROCE_LOG_ERR, "%s: reading the PCI command register: %s", vb->bus.name,
			  strerror(err));
		return err;
	}
	err = config_write16(vb, PCI_COMMAND,
			     vb->command | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	if (err) {
		hroce_log(HROCE_LOG_ERR, "%s: enabling bus mastering: %s", vb->bus.name,
			  strerror(err));
		return err;
	}
	return 0;
}

/* No more DMA from the device: before the memory it could reach goes. */
static void vfio_disable_device(struct vfio_bus *vb)
{
	if (config_write16(vb, PCI_COMMAND, vb->command & ~PCI_COMMAND_MASTER))
		hroce_log(HROCE_LOG_WARN, "%s: disabling bus mastering failed", vb->bus.name);
}

/*
 * The eventfds the kernel signals, one per vector, and the epoll fd that is readable
 * while one of them is: no VFIO needed.
 */
int hroce_vfio_irqs_init(struct hroce_vfio_irqs *irqs, unsigned int n)
{
	unsigned int v;
	int err;

	if (n > HROCE_VFIO_MAX_VECTORS)
		return EINVAL;
	irqs->n = 0;
	irqs->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (irqs->epoll_fd < 0)
		return errno;
	for (v = 0; v < n; v++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = v };

		irqs->fd[v] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (irqs->fd[v] < 0) {
			err = errno;
			goto err_close;
		}
		if (epoll_ctl(irqs->epoll_fd, EPOLL_CTL_ADD, irqs->fd[v], &ev)) {
			err = errno;
			close(irqs->fd[v]);
			goto err_close;
		}
	}
	irqs->n = n;
	return 0;

err_close:
	while (v--)
		close(irqs->fd[v]);
	close(irqs->epoll_fd);
	irqs->epoll_fd = -1;
	return err;
}

void hroce_vfio_irqs_free(struct hroce_vfio_irqs *irqs)
{
	for (unsigned int v = 0; v < irqs->n; v++)
		close(irqs->fd[v]);
	close(irqs->epoll_fd);
	irqs->n = 0;
	irqs->epoll_fd = -1;
}

uint64_t hroce_vfio_irqs_take(struct hroce_vfio_irqs *irqs)
{
	struct epoll_event ev[HROCE_VFIO_MAX_VECTORS];
	uint64_t taken = 0, count;
	int n;

	if (!irqs->n)
		return 0;
	n = epoll_wait(irqs->epoll_fd, ev, HROCE_VFIO_MAX_VECTORS, 0);
	for (int i = 0; i < n; i++) {
		unsigned int v = ev[i].data.u32;

		/* reading clears the eventfd; EAGAIN: another thread took it first */
		if (read(irqs->fd[v], &count, sizeof(count)) == sizeof(count))
			taken |= UINT64_C(1) << v;
	}
	return taken;
}

/* Sets the first n vectors to signal their eventfds, or (n = 0) disables them all. */
static int set_vectors(struct vfio_bus *vb, unsigned int n)
{
	size_t size = sizeof(struct vfio_irq_set) + n * sizeof(int32_t);
	struct vfio_irq_set *set = calloc(1, size);
	int err = 0;

	if (!set)
		return ENOMEM;
	set->argsz = (uint32_t)size;
	set->flags = VFIO_IRQ_SET_ACTION_TRIGGER |
		     (n ? VFIO_IRQ_SET_DATA_EVENTFD : VFIO_IRQ_SET_DATA_NONE);
	set->index = VFIO_PCI_MSIX_IRQ_INDEX;
	set->start = 0;
	set->count = n;
	memcpy(set->data, vb->irqs.fd, n * sizeof(int32_t));
	if (ioctl(vb->device, VFIO_DEVICE_SET_IRQS, set))
		err = errno;
	free(set);
	return err;
}

static int vfio_setup_irqs(struct vfio_bus *vb)
{
	struct vfio_irq_info irq = { .argsz = sizeof(irq), .index = VFIO_PCI_MSIX_IRQ_INDEX };
	unsigned int n;
	int err;

	if (ioctl(vb->device, VFIO_DEVICE_GET_IRQ_INFO, &irq)) {
		err = errno;
		hroce_log(HROCE_LOG_ERR, "%s: VFIO_DEVICE_GET_IRQ_INFO (MSI-X): %s", vb->bus.name,
			  strerror(err));
		return err;
	}
	n = irq.flags & VFIO_IRQ_INFO_EVENTFD ? irq.count : 0;
	if (n > HROCE_VFIO_MAX_VECTORS)
		n = HROCE_VFIO_MAX_VECTORS;
	if (!n)
		hroce_log(HROCE_LOG_WARN,
			  "%s: the device has no MSI-X vectors: completions can be polled, not "
			  "waited for",
			  vb->bus.name);
	err = hroce_vfio_irqs_init(&vb->irqs, n);
	if (err) {
		hroce_log(HROCE_LOG_ERR, "%s: eventfds for %u MSI-X vectors: %s", vb->bus.name, n,
			  strerror(err));
		return err;
	}
	if (!n)
		return 0;
	err = set_vectors(vb, n);
	if (err) {
		hroce_log(HROCE_LOG_ERR, "%s: VFIO_DEVICE_SET_IRQS (%u MSI-X vectors): %s",
			  vb->bus.name, n, strerror(err));
		hroce_vfio_irqs_free(&vb->irqs);
		return err;
	}
	return 0;
}

static void vfio_free_irqs(struct vfio_bus *vb)
{
	if (vb->irqs.n)
		set_vectors(vb, 0);
	hroce_vfio_irqs_free(&vb->irqs);
}

/* ---------------------------------------------------------------------------------------
 * The bus operations
 */

static void vfio_close(struct hroce_bus *bus)
{
	struct vfio_bus *vb = to_vfio(bus);

	vfio_free_irqs(vb);
	vfio_disable_device(vb);
	vfio_unmap_db(vb);
	vfio_unmap_bar0(vb);
	close(vb->device);
	vfio_detach(vb);
	close(vb->group);
	close(vb->container);
	free(vb);
}

/*
 * BAR0 through the process's mapping of it (bus_vfio.h): each access one load or store of
 * its width, in the device's byte order (little-endian), between the barriers a device
 * needs.
 */
void hroce_vfio_bar_write(const struct hroce_vfio_bar *bar, uint64_t offset, const void *data,
			  size_t len)
{
	const uint8_t *src = data;

	if ((offset | len) & 7 || !len || len > HROCE_DB_PUSH_BYTES || offset >= bar->size ||
	    len > bar->size - offset) {
		hroce_log(HROCE_LOG_ERR,
			  "%s: MMIO write of %zu bytes at 0x%llx: not 8-byte words "
			  "inside BAR0, up to %u bytes",
			  bar->name, len, (unsigned long long)offset, HROCE_DB_PUSH_BYTES);
		return;
	}
	mmio_before_writes();
	for (size_t i = 0; i < len; i += 8) {
		uint64_t word;

		memcpy(&word, src + i, sizeof(word));
		/* the bytes in memory order, as the device (little-endian) sees them */
		*(volatile uint64_t *)(bar->base + offset + i) = word;
	}
	mmio_flush_writes();
}

bool hroce_vfio_wc_supported(enum hroce_vfio_wc how)
{
#if defined(__x86_64__)
	unsigned int eax, ebx, ecx, edx;

	switch (how) {
	case HROCE_VFIO_WC_SSE:
		return true; /* SSE2 is x86-64's baseline */
	case HROCE_VFIO_WC_AVX:
		return __builtin_cpu_supports("avx");
	case HROCE_VFIO_WC_MOVDIR64B:
		/* CPUID.(EAX=7,ECX=0):ECX bit 28 */
		return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ecx >> 28 & 1);
	default:
		return false;
	}
#else
	(void)how;
	return false;
#endif
}

enum hroce_vfio_wc hroce_vfio_wc_best(bool wc_mapping)
{
	if (hroce_vfio_wc_supported(HROCE_VFIO_WC_MOVDIR64B))
		return HROCE_VFIO_WC_MOVDIR64B;
	if (!wc_mapping)
		return HROCE_VFIO_WC_NONE;
	if (hroce_vfio_wc_supported(HROCE_VFIO_WC_AVX))
		return HROCE_VFIO_WC_AVX;
	return hroce_vfio_wc_supported(HROCE_VFIO_WC_SSE) ? HROCE_VFIO_WC_SSE : HROCE_VFIO_WC_NONE;
}

#if defined(__x86_64__)
static void store64_sse(volatile uint8_t *dst, const void *src)
{
	const __m128i *s = src;
	__m128i a = _mm_loadu_si128(s), b = _mm_loadu_si128(s + 1);
	__m128i c = _mm_loadu_si128(s + 2), d = _mm_loadu_si128(s + 3);

	/* the line in address order, so that the WC buffer fills and nothing splits it */
	_mm_store_si128((__m128i *)dst, a);
	_mm_store_si128((__m128i *)(dst + 16), b);
	_mm_store_si128((__m128i *)(dst + 32), c);
	_mm_store_si128((__m128i *)(dst + 48), d);
}

__attribute__((target("avx"))) static void store64_avx(volatile uint8_t *dst, const void *src)
{
	const __m256i *s = src;
	__m256i a = _mm256_loadu_si256(s), b = _mm256_loadu_si256(s + 1);

	_mm256_store_si256((__m256i *)dst, a);
	_mm256_store_si256((__m256i *)(dst + 32), b);
}

static void store64_movdir64b(volatile uint8_t *dst, const void *src)
{
	/* MOVDIR64B (%rdx) to [%rax]: older assemblers do not know the mnemonic */
	__asm__ volatile(".byte 0x66, 0x0f, 0x38, 0xf8, 0x02"
			 :
			 : "a"(dst), "d"(src), "m"(*(const uint8_t(*)[64])src)
			 : "memory");
}
#endif

void hroce_vfio_bar_write_wc(const struct hroce_vfio_bar *bar, enum hroce_vfio_wc how,
			     uint64_t offset, const void *data, size_t len)
{
	if (len != HROCE_DB_PUSH_BYTES || offset % HROCE_DB_PUSH_BYTES || offset >= bar->size ||
	    len > bar->size - offset || !hroce_vfio_wc_supported(how)) {
		hroce_log(HROCE_LOG_ERR,
			  "%s: doorbell page write of %zu bytes at 0x%llx (store %d): not one "
			  "aligned %u-byte line inside the pages, or a store this CPU lacks",
			  bar->name, len, (unsigned long long)offset, (int)how,
			  HROCE_DB_PUSH_BYTES);
		return;
	}
	mmio_before_writes();
#if defined(__x86_64__)
	if (how == HROCE_VFIO_WC_MOVDIR64B)
		store64_movdir64b(bar->base + offset, data);
	else if (how == HROCE_VFIO_WC_AVX)
		store64_avx(bar->base + offset, data);
	else
		store64_sse(bar->base + offset, data);
#endif
	/* the WC buffer (or the direct store) leaves now, before any later doorbell */
	mmio_flush_writes();
}

uint64_t hroce_vfio_bar_read64(const struct hroce_vfio_bar *bar, uint64_t offset)
{
	uint64_t v;

	if (offset & 7 || offset >= bar->size || bar->size - offset < 8) {
		hroce_log(HROCE_LOG_ERR, "%s: MMIO read of 8 bytes at 0x%llx: outside BAR0",
			  bar->name, (unsigned long long)offset);
		return ~UINT64_C(0);
	}
	v = le64toh(*(volatile uint64_t *)(bar->base + offset));
	mmio_after_read();
	return v;
}

void hroce_vfio_bar_write32(const struct hroce_vfio_bar *bar, uint64_t offset, uint32_t value)
{
	if (offset & 3 || offset >= bar->size || bar->size - offset < 4) {
		hroce_log(HROCE_LOG_ERR,
			  "%s: MMIO write of 4 bytes at 0x%llx: not an aligned word inside BAR0",
			  bar->name, (unsigned long long)offset);
		return;
	}
	mmio_before_writes();
	*(volatile uint32_t *)(bar->base + offset) = htole32(value);
	mmio_flush_writes();
}

uint32_t hroce_vfio_bar_read32(const struct hroce_vfio_bar *bar, uint64_t offset)
{
	uint32_t v;

	if (offset & 3 || offset >= bar->size || bar->size - offset < 4) {
		hroce_log(HROCE_LOG_ERR,
			  "%s: MMIO read of 4 bytes at 0x%llx: not an aligned word inside BAR0",
			  bar->name, (unsigned long long)offset);
		return ~UINT32_C(0);
	}
	v = le32toh(*(volatile uint32_t *)(bar->base + offset));
	mmio_after_read();
	return v;
}

static void vfio_mmio_write(struct hroce_bus *bus, uint64_t offset, const void *data, size_t len)
{
	hroce_vfio_bar_write(&to_vfio(bus)->bar0, offset, data, len);
}

static void vfio_mmio_write_wc(struct hroce_bus *bus, uint64_t offset, const void *data, size_t len)
{
	struct vfio_bus *vb = to_vfio(bus);

	if (!vb->db.base) {
		hroce_log(HROCE_LOG_ERR, "%s: no doorbell pages", bus->name);
		return;
	}
	hroce_vfio_bar_write_wc(&vb->db, vb->db_store, offset, data, len);
}

static uint64_t vfio_mmio_read64(struct hroce_bus *bus, uint64_t offset)
{
	return hroce_vfio_bar_read64(&to_vfio(bus)->bar0, offset);
}

static void vfio_mmio_write32(struct hroce_bus *bus, uint64_t offset, uint32_t value)
{
	hroce_vfio_bar_write32(&to_vfio(bus)->bar0, offset, value);
}

static uint32_t vfio_mmio_read32(struct hroce_bus *bus, uint64_t offset)
{
	return hroce_vfio_bar_read32(&to_vfio(bus)->bar0, offset);
}

static int vfio_dma_map(struct hroce_bus *bus, void *vaddr, uint64_t iova, uint64_t len,
			unsigned int flags)
{
	struct vfio_bus *vb = to_vfio(bus);
	/* without WRITE the kernel pins for reading only: read-only pages can be registered */
	struct vfio_iommu_type1_dma_map map = {
		.argsz = sizeof(map),
		.flags = VFIO_DMA_MAP_FLAG_READ |
			 (flags & HROCE_BUS_DMA_WRITE ? VFIO_DMA_MAP_FLAG_WRITE : 0),
		.vaddr = (uintptr_t)vaddr,
		.iova = iova,
		.size = len,
	};
	char what[64];
	int err;

	if (!ioctl(vb->container, VFIO_IOMMU_MAP_DMA, &map))
		return 0;
	err = errno;
	snprintf(what, sizeof(what), "mapping %llu bytes at IOVA 0x%llx", (unsigned long long)len,
		 (unsigned long long)iova);
	log_failure(bus->name, what, err, hroce_vfio_hint(HROCE_VFIO_STEP_DMA_MAP, err));
	return err;
}

static int vfio_dma_unmap(struct hroce_bus *bus, uint64_t iova, uint64_t len)
{
	struct vfio_bus *vb = to_vfio(bus);
	struct vfio_iommu_type1_dma_unmap unmap = {
		.argsz = sizeof(unmap),
		.iova = iova,
		.size = len,
	};
	int err;

	if (ioctl(vb->container, VFIO_IOMMU_UNMAP_DMA, &unmap)) {
		err = errno;
		hroce_log(HROCE_LOG_ERR, "%s: unmapping %llu bytes at IOVA 0x%llx: %s", bus->name,
			  (unsigned long long)len, (unsigned long long)iova, strerror(err));
		return err;
	}
	/* the kernel answers with the size it unmapped */
	if (unmap.size != len) {
		hroce_log(HROCE_LOG_ERR,
			  "%s: unmapping %llu bytes at IOVA 0x%llx removed %llu: not one mapping",
			  bus->name, (unsigned long long)len, (unsigned long long)iova,
			  (unsigned long long)unmap.size);
		return EINVAL;
	}
	return 0;
}

static void vfio_idle(struct hroce_bus *bus)
{
	(void)bus;
	cpu_relax();
}

static uint64_t vfio_take_irqs(struct hroce_bus *bus)
{
	return hroce_vfio_irqs_take(&to_vfio(bus)->irqs);
}

static int vfio_irq_fd(struct hroce_bus *bus)
{
	return to_vfio(bus)->irqs.epoll_fd;
}

static const struct hroce_bus_ops vfio_bus_ops = {
	.name = "vfio",
	.close = vfio_close,
	.mmio_write = vfio_mmio_write,
	.mmio_write_wc = vfio_mmio_write_wc,
	.mmio_read64 = vfio_mmio_read64,
	.mmio_write32 = vfio_mmio_write32,
	.mmio_read32 = vfio_mmio_read32,
	.dma_map = vfio_dma_map,
	.dma_unmap = vfio_dma_unmap,
	.idle = vfio_idle,
	.take_irqs = vfio_take_irqs,
	.irq_fd = vfio_irq_fd,
};

int hroce_bus_vfio_open_at(const char *sysfs_root, const char *vfio_dir, const char *arg,
			   struct hroce_bus **bus)
{
	struct hroce_pci_addr pci;
	char addr[HROCE_PCI_ADDR_LEN];
	struct vfio_bus *vb;
	unsigned int group;
	int err;

	err = hroce_vfio_parse_addr(arg, &pci);
	if (err)
		return err;
	hroce_vfio_format_addr(&pci, addr, sizeof(addr));
	vb = calloc(1, sizeof(*vb));
	if (!vb)
		return ENOMEM;
	vb->bus.ops = &vfio_bus_ops;
	snprintf(vb->bus.name, sizeof(vb->bus.name), "vfio:%s", addr);
	vb->container = vb->group = vb->device = vb->irqs.epoll_fd = -1;

	err = hroce_vfio_find_group(vb->bus.name, sysfs_root, addr, &group);
	if (err)
		goto err_free;
	err = hroce_vfio_open_container(vb->bus.name, vfio_dir, &vb->container, &vb->iommu_type);
	if (err)
		goto err_free;
	err = hroce_vfio_open_group(vb->bus.name, vfio_dir, group, &vb->group);
	if (err)
		goto err_container;
	err = vfio_attach(vb);
	if (err)
		goto err_group;
	err = vfio_open_device(vb, addr);
	if (err)
		goto err_detach;
	err = vfio_map_bar0(vb);
	if (err)
		goto err_device;
	err = vfio_enable_device(vb);
	if (err)
		goto err_bar0;
	err = vfio_setup_irqs(vb);
	if (err)
		goto err_disable;
	vfio_map_db(vb);
	hroce_log(HROCE_LOG_INFO, "%s: IOMMU group %u, BAR0 %llu bytes, %u MSI-X vectors",
		  vb->bus.name, group, (unsigned long long)vb->bar0.size, vb->irqs.n);
	*bus = &vb->bus;
	return 0;

err_disable:
	vfio_disable_device(vb);
err_bar0:
	vfio_unmap_bar0(vb);
err_device:
	close(vb->device);
err_detach:
	vfio_detach(vb);
err_group:
	close(vb->group);
err_container:
	close(vb->container);
err_free:
	free(vb);
	return err;
}

int hroce_bus_vfio_open(const char *arg, struct hroce_bus **bus)
{
	return hroce_bus_vfio_open_at(HROCE_SYSFS_ROOT, HROCE_VFIO_DIR, arg, bus);
}
