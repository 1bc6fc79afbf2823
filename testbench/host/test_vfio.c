// SPDX-License-Identifier: MIT
/*
 * The vfio backend, as far as a machine without VFIO can take it: PCI addresses (valid,
 * invalid, random round trips), the IOMMU group lookup on directory trees shaped like sysfs
 * (symbolic links as the kernel makes them) and on this machine's /sys, the container and
 * group nodes missing or not VFIO's, the advice of each failing step, the interrupt
 * eventfds and their epoll fd, the MMIO accesses on BAR0 (8-byte words and 4-byte ones) on
 * shared memory mapped as VFIO maps a BAR, and hroce_open() and hroce_bar_open() of a
 * "vfio:" device failing cleanly: the errno and message each case documents, and no file
 * descriptor or heap memory left behind.
 *
 * Nothing here imitates VFIO's ioctls: a node that is a plain file makes the first ioctl
 * really fail, and that failure is what is checked.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "bus_vfio.h"
#include "hroce.h"
#include "hroce_bar.h"
#include "hroce_contract.h"

/* ---------------------------------------------------------------------------------------
 * What the library logged since the last reset
 */

static char logged[8192];

static void capture_log(void *ctx, enum hroce_log_level level, const char *msg)
{
	size_t used = strlen(logged);

	(void)ctx;
	if (level <= HROCE_LOG_WARN)
		snprintf(logged + used, sizeof(logged) - used, "%s\n", msg);
}

/* True if every one of the NULL-terminated strings is in the log. */
static bool log_has_all(const char *const *want)
{
	for (; *want; want++)
		if (!strstr(logged, *want))
			return false;
	return true;
}

/* ---------------------------------------------------------------------------------------
 * Resources held by the process: what a failing open must give back
 */

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static size_t heap_in_use(void)
{
	return mallinfo2().uordblks;
}

struct held {
	int fds;
	size_t heap;
};

static struct held held_now(void)
{
	return (struct held){ count_fds(), heap_in_use() };
}

/* One call that must fail, and what it answered. */
struct attempt {
	enum { OPEN_CONTAINER, OPEN_GROUP, OPEN_BUS, OPEN_DEV, OPEN_BAR } call;
	const char *sysfs, *vfio_dir; /* OPEN_BUS: both; OPEN_CONTAINER, OPEN_GROUP: vfio_dir */
	const char *arg;	      /* OPEN_BUS: the address; OPEN_DEV, OPEN_BAR: the spec */
	unsigned int group;	      /* OPEN_GROUP */
	int err;
	bool gave; /* it gave a file descriptor, a bus or a device (then closed) */
};

static void attempt_run(struct attempt *a)
{
	struct hroce_bus *bus = NULL;
	struct hroce_dev *dev = NULL;
	struct hroce_bar *bar = NULL;
	int fd = -1, type;

	logged[0] = 0;
	switch (a->call) {
	case OPEN_CONTAINER:
		a->err = hroce_vfio_open_container("vfio:test", a->vfio_dir, &fd, &type);
		break;
	case OPEN_GROUP:
		a->err = hroce_vfio_open_group("vfio:test", a->vfio_dir, a->group, &fd);
		break;
	case OPEN_BUS:
		a->err = hroce_bus_vfio_open_at(a->sysfs, a->vfio_dir, a->arg, &bus);
		break;
	case OPEN_DEV:
		errno = 0;
		dev = hroce_open(a->arg, NULL);
		a->err = dev ? 0 : errno;
		break;
	case OPEN_BAR:
		a->err = hroce_bar_open(a->arg, &bar);
		break;
	}
	a->gave = fd >= 0 || bus || dev || bar;
	if (fd >= 0)
		close(fd);
	if (bus)
		bus->ops->close(bus);
	hroce_close(dev);
	hroce_bar_close(bar);
}

/*
 * Freed blocks stay in the C library's caches (glibc's tcache keeps 7 per size and counts
 * them as in use): the attempt runs until those are full, then LEAK_RUNS more times, which
 * must leave as many file descriptors open and heap bytes in use as before them.
 */
#define WARM_RUNS 8
#define LEAK_RUNS 16

static bool attempt_leaks_nothing(struct attempt *a, char *why, size_t len)
{
	struct held before, after;

	for (int i = 0; i < WARM_RUNS; i++)
		attempt_run(a);
	before = held_now();
	for (int i = 0; i < LEAK_RUNS; i++)
		attempt_run(a);
	after = held_now();
	if (after.fds != before.fds) {
		snprintf(why, len, "%d file descriptors open before %d attempts, %d after",
			 before.fds, LEAK_RUNS, after.fds);
		return false;
	}
	if (after.heap != before.heap) {
		snprintf(why, len, "%zu heap bytes in use before %d attempts, %zu after",
			 before.heap, LEAK_RUNS, after.heap);
		return false;
	}
	return true;
}

/* The attempt fails with want_err, logs every string of want, and leaks nothing. */
static void check_attempt(struct bench *b, const char *name, struct attempt *a, int want_err,
			  const char *const *want)
{
	char why[160] = "no leak";
	bool clean = attempt_leaks_nothing(a, why, sizeof(why));

	bench_result(b, name, a->err == want_err && !a->gave && log_has_all(want) && clean,
		     "%s: error %s (want %s), %s, %s, log \"%s\"", a->arg ? a->arg : a->vfio_dir,
		     strerrorname_np(a->err), strerrorname_np(want_err),
		     a->gave ? "gave a handle" : "gave nothing", why, logged);
}

/* ---------------------------------------------------------------------------------------
 * Directory trees shaped like sysfs and /dev/vfio
 */

static void die(const char *what)
{
	printf("not ok environment: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void mkdirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0755) && errno != EEXIST)
			die(buf);
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		die(buf);
}

/* A path into buf; a path too long for it stops the test. */
static void __attribute__((format(printf, 3, 4))) pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		die(fmt);
	}
}

static void __attribute__((format(printf, 2, 3)))
make_link(const char *target, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (symlink(target, path))
		die(path);
}

static void make_file(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		die(path);
	close(fd);
}

/*
 * A PCI device behind bridge 0000:00:02.0, as the kernel lays it out: the device under
 * devices/, a link to it in bus/pci/devices/, and in the device its iommu_group link (to
 * kernel/iommu_groups/GROUP, which links back) and its driver link (to
 * bus/pci/drivers/DRIVER). group and driver NULL: no such link.
 */
static void add_device(const char *root, const char *addr, const char *group, const char *driver)
{
	char dev[PATH_MAX], rel[PATH_MAX], target[PATH_MAX];

	pathf(rel, sizeof(rel), "devices/pci0000:00/0000:00:02.0/%s", addr);
	pathf(dev, sizeof(dev), "%s/%s", root, rel);
	mkdirs(dev);
	pathf(target, sizeof(target), "%s/bus/pci/devices", root);
	mkdirs(target);
	pathf(target, sizeof(target), "../../../%s", rel);
	make_link(target, "%s/bus/pci/devices/%s", root, addr);
	if (group) {
		pathf(target, sizeof(target), "%s/kernel/iommu_groups/%s/devices", root, group);
		mkdirs(target);
		pathf(target, sizeof(target), "../../../../%s", rel);
		make_link(target, "%s/kernel/iommu_groups/%s/devices/%s", root, group, addr);
		pathf(target, sizeof(target), "../../../../kernel/iommu_groups/%s", group);
		make_link(target, "%s/iommu_group", dev);
	}
	if (driver) {
		pathf(target, sizeof(target), "%s/bus/pci/drivers/%s", root, driver);
		mkdirs(target);
		pathf(target, sizeof(target), "../../../../bus/pci/drivers/%s", driver);
		make_link(target, "%s/driver", dev);
	}
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tree(const char *root)
{
	if (nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS))
		printf("# could not remove %s: %s\n", root, strerror(errno));
}

/* ---------------------------------------------------------------------------------------
 * This machine
 */

static bool machine_has_iommu_groups(void)
{
	DIR *d = opendir(HROCE_SYSFS_ROOT "/kernel/iommu_groups");
	struct dirent *e;
	bool any = false;

	while (d && !any && (e = readdir(d)))
		any = e->d_name[0] != '.';
	if (d)
		closedir(d);
	return any;
}

/* The name of a PCI device of this machine into buf; false if it shows none. */
static bool machine_pci_device(char *buf, size_t len)
{
	DIR *d = opendir(HROCE_SYSFS_ROOT "/bus/pci/devices");
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(buf, len, "%s", e->d_name);
		found = true;
	}
	if (d)
		closedir(d);
	return found;
}

/* ---------------------------------------------------------------------------------------
 * Addresses
 */

static void test_parse_valid(struct bench *b)
{
	static const struct {
		const char *in, *canonical;
		struct hroce_pci_addr want;
	} cases[] = {
		{ "0000:65:00.0", "0000:65:00.0", { 0, 0x65, 0, 0 } },
		{ "65:00.0", "0000:65:00.0", { 0, 0x65, 0, 0 } },
		{ "0000:00:1f.7", "0000:00:1f.7", { 0, 0, 0x1f, 7 } },
		{ "ffff:FF:1F.7", "ffff:ff:1f.7", { 0xffff, 0xff, 0x1f, 7 } },
		{ "10000:e1:00.3", "10000:e1:00.3", { 0x10000, 0xe1, 0, 3 } },
		{ "ffffffff:00:00.0", "ffffffff:00:00.0", { 0xffffffff, 0, 0, 0 } },
		{ "0001:3b:00.1", "0001:3b:00.1", { 1, 0x3b, 0, 1 } },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hroce_pci_addr a;
		char name[64], text[HROCE_PCI_ADDR_LEN];
		int err;

		memset(&a, 0xa5, sizeof(a));
		logged[0] = 0;
		err = hroce_vfio_parse_addr(cases[i].in, &a);
		hroce_vfio_format_addr(&a, text, sizeof(text));
		snprintf(name, sizeof(name), "parse_valid %s", cases[i].in);
		bench_result(b, name,
			     !err && !memcmp(&a, &cases[i].want, sizeof(a)) &&
				     !strcmp(text, cases[i].canonical) && !logged[0],
			     "error %d, got %s, want %s, log \"%s\"", err, err ? "-" : text,
			     cases[i].canonical, logged);
	}
}

static void test_parse_invalid(struct bench *b)
{
	static const char *const cases[] = {
		"",		     /* nothing */
		"65",		     /* a bus alone */
		"0000:65:00",	     /* no function */
		"0000:65.00.0",	     /* dot for a colon */
		"65:00:0",	     /* colon for the dot */
		"0000:65:20.0",	     /* device past 1f */
		"0000:65:00.8",	     /* function past 7 */
		"0000:065:00.0",     /* three digits of bus */
		"0000:65:0.0",	     /* one digit of device */
		"000:65:00.0",	     /* three digits of domain */
		"100000000:65:00.0", /* nine digits of domain */
		"0000:65:00.0 ",     /* trailing space */
		" 0000:65:00.0",     /* leading space */
		"0000:65:00.0\n",    /* a newline, as read from a file */
		"0000:g5:00.0",	     /* not hex */
		"+000:65:00.0",	     /* a sign */
		"0x00:65:00.0",	     /* a C prefix */
		":65:00.0",	     /* empty domain */
		"0000:65:00.00",     /* two digits of function */
		"0000:0000:65:00.0", /* three colons */
		"sim:a",	     /* another backend's name */
	};
	struct hroce_pci_addr a = { 1, 2, 3, 4 };
	const struct hroce_pci_addr untouched = { 1, 2, 3, 4 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		static const char *const want[] = { "not a PCI address", "DDDD:BB:DD.F", NULL };
		char name[64];
		int err;

		logged[0] = 0;
		err = hroce_vfio_parse_addr(cases[i], &a);
		snprintf(name, sizeof(name), "parse_invalid \"%s\"", cases[i]);
		for (char *p = name; *p; p++)
			if (*p == '\n')
				*p = '~';
		bench_result(b, name,
			     err == EINVAL && log_has_all(want) &&
				     !memcmp(&a, &untouched, sizeof(a)),
			     "error %d (want EINVAL), address changed %d, log \"%s\"", err,
			     memcmp(&a, &untouched, sizeof(a)) != 0, logged);
	}
	logged[0] = 0;
	bench_result(b, "parse_invalid NULL", hroce_vfio_parse_addr(NULL, &a) == EINVAL,
		     "NULL accepted");
}

/* Random addresses, in random case, with the domain left out when it is 0, come back. */
static void test_parse_random(struct bench *b)
{
	unsigned int n = b->quick ? 1000 : 20000, bad = 0;
	char first[128] = "";

	for (unsigned int i = 0; i < n; i++) {
		struct hroce_pci_addr want = {
			.domain = bench_chance(b, 50) ? 0 : (uint32_t)bench_rand(b),
			.bus = (unsigned int)bench_range(b, 0, 0xff),
			.dev = (unsigned int)bench_range(b, 0, 0x1f),
			.fn = (unsigned int)bench_range(b, 0, 7),
		}, got;
		char text[64], canonical[HROCE_PCI_ADDR_LEN];

		if (!want.domain && bench_chance(b, 50))
			snprintf(text, sizeof(text), "%02x:%02x.%x", want.bus, want.dev, want.fn);
		else
			snprintf(text, sizeof(text), "%0*x:%02x:%02x.%x", (int)bench_range(b, 4, 8),
				 want.domain, want.bus, want.dev, want.fn);
		for (char *p = text; *p; p++)
			if (bench_chance(b, 50) && *p >= 'a' && *p <= 'f')
				*p = (char)(*p - 'a' + 'A');
		if (hroce_vfio_parse_addr(text, &got) || memcmp(&got, &want, sizeof(got))) {
			if (!bad++)
				snprintf(first, sizeof(first), "%s", text);
			continue;
		}
		hroce_vfio_format_addr(&got, canonical, sizeof(canonical));
		if (hroce_vfio_parse_addr(canonical, &got) || memcmp(&got, &want, sizeof(got))) {
			if (!bad++)
				snprintf(first, sizeof(first), "%s (canonical %s)", text,
					 canonical);
		}
	}
	bench_result(b, "parse_random", !bad, "%u of %u addresses did not come back, first %s", bad,
		     n, first);
}

/* ---------------------------------------------------------------------------------------
 * The IOMMU group in sysfs
 */

struct group_case {
	const char *name, *addr;
	int err;
	unsigned int group;
	const char *want[4]; /* in the log */
};

static void check_group(struct bench *b, const char *root, const struct group_case *c)
{
	unsigned int group = 12345;
	char name[96];
	int err;

	logged[0] = 0;
	err = hroce_vfio_find_group("vfio:test", root, c->addr, &group);
	snprintf(name, sizeof(name), "find_group %s", c->name);
	bench_result(b, name,
		     err == c->err && (err || group == c->group) && (!err || group == 12345) &&
			     log_has_all(c->want),
		     "%s: error %d (want %d), group %u (want %u), log \"%s\"", c->addr, err, c->err,
		     group, c->group, logged);
}

static void test_find_group(struct bench *b, const char *root)
{
	static const struct group_case cases[] = {
		{ "bound", "0000:65:00.0", 0, 42, { NULL } },
		{ "bound_domain", "10000:e1:00.0", 0, 7, { NULL } },
		{ "absent",
		  "0000:70:00.0",
		  ENODEV,
		  0,
		  { "no PCI device 0000:70:00.0", "lspci", NULL } },
		{ "no_iommu",
		  "0000:66:00.0",
		  ENXIO,
		  0,
		  { "no IOMMU group", "intel_iommu=on", NULL } },
		{ "other_driver",
		  "0000:67:00.0",
		  EBUSY,
		  0,
		  { "bound to mlx5_core", "driver_override", "drivers_probe", NULL } },
		{ "no_driver",
		  "0000:68:00.0",
		  ENODEV,
		  0,
		  { "no driver", "modprobe vfio-pci", "driver_override", NULL } },
		{ "bad_group_link", "0000:69:00.0", EIO, 0, { "not to a group number", NULL } },
	};

	add_device(root, "0000:65:00.0", "42", "vfio-pci");
	add_device(root, "10000:e1:00.0", "7", "vfio-pci");
	add_device(root, "0000:66:00.0", NULL, NULL);
	add_device(root, "0000:67:00.0", "8", "mlx5_core");
	add_device(root, "0000:68:00.0", "9", NULL);
	add_device(root, "0000:69:00.0", "4x", "vfio-pci");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_group(b, root, &cases[i]);
}

/* This machine's /sys: an address no machine has, and a real device when no IOMMU is on. */
static void test_find_group_sys(struct bench *b)
{
	static const struct group_case absent = {
		"sys_absent", "ffff:ff:1f.7", ENODEV, 0, { "no PCI device", NULL }
	};
	char addr[256];

	check_group(b, HROCE_SYSFS_ROOT, &absent);
	if (machine_has_iommu_groups()) {
		bench_log(b, "this machine has IOMMU groups: no check of a device without one");
	} else if (machine_pci_device(addr, sizeof(addr))) {
		struct group_case c = {
			"sys_no_iommu", addr, ENXIO, 0, { "no IOMMU group", NULL }
		};

		check_group(b, HROCE_SYSFS_ROOT, &c);
	} else {
		bench_log(b, "this machine shows no PCI device: no check of a real one");
	}
}

/* ---------------------------------------------------------------------------------------
 * The container and group nodes
 */

static void test_container(struct bench *b, const char *tmp)
{
	char empty[PATH_MAX], file[PATH_MAX];
	struct stat st;

	if (stat(HROCE_VFIO_DIR, &st) && errno == ENOENT) {
		static const char *const want[] = { HROCE_VFIO_DIR " does not exist",
						    "modprobe vfio-pci", NULL };
		struct attempt a = { .call = OPEN_CONTAINER, .vfio_dir = HROCE_VFIO_DIR };

		check_attempt(b, "container_dev_vfio_missing", &a, ENOENT, want);
	} else {
		bench_log(b, "%s exists here: no check of a machine without VFIO", HROCE_VFIO_DIR);
	}

	/* the directory without its container node */
	pathf(empty, sizeof(empty), "%s/vfio-empty", tmp);
	mkdirs(empty);
	{
		static const char *const want[] = { "vfio-empty/vfio: No such file or directory",
						    "modprobe vfio-pci", NULL };
		struct attempt a = { .call = OPEN_CONTAINER, .vfio_dir = empty };

		check_attempt(b, "container_node_missing", &a, ENOENT, want);
	}

	/* a node that is not VFIO's: the API version ioctl fails, the fd is closed */
	pathf(file, sizeof(file), "%s/vfio-file", tmp);
	mkdirs(file);
	make_file(file, "vfio");
	{
		static const char *const want[] = { "is not a VFIO container", NULL };
		struct attempt a = { .call = OPEN_CONTAINER, .vfio_dir = file };

		check_attempt(b, "container_not_vfio", &a, ENOTTY, want);
	}
}

static void test_group_node(struct bench *b, const char *tmp)
{
	char missing[PATH_MAX], noiommu[PATH_MAX], file[PATH_MAX];

	pathf(missing, sizeof(missing), "%s/group-missing", tmp);
	mkdirs(missing);
	{
		static const char *const want[] = { "group-missing/42: No such file or directory",
						    "bind the device to vfio-pci", NULL };
		struct attempt a = { .call = OPEN_GROUP, .vfio_dir = missing, .group = 42 };

		check_attempt(b, "group_node_missing", &a, ENOENT, want);
	}

	/* VFIO's no-IOMMU mode names the node noiommu-N: no DMA mapping there */
	pathf(noiommu, sizeof(noiommu), "%s/group-noiommu", tmp);
	mkdirs(noiommu);
	make_file(noiommu, "noiommu-42");
	{
		static const char *const want[] = { "no-IOMMU mode", "needs the IOMMU on", NULL };
		struct attempt a = { .call = OPEN_GROUP, .vfio_dir = noiommu, .group = 42 };

		check_attempt(b, "group_noiommu", &a, ENXIO, want);
	}

	/* a node that is not VFIO's: the status ioctl fails, the fd is closed */
	pathf(file, sizeof(file), "%s/group-file", tmp);
	mkdirs(file);
	make_file(file, "42");
	{
		static const char *const want[] = { "is not a VFIO group", NULL };
		struct attempt a = { .call = OPEN_GROUP, .vfio_dir = file, .group = 42 };

		check_attempt(b, "group_not_vfio", &a, ENOTTY, want);
	}
}

/* Every errno a step documents a remedy for gets it; others get none. */
static void test_hints(struct bench *b)
{
	static const struct {
		enum hroce_vfio_step step;
		int err;
		const char *want; /* NULL: no hint */
	} cases[] = {
		{ HROCE_VFIO_STEP_CONTAINER, ENOENT, "modprobe vfio-pci" },
		{ HROCE_VFIO_STEP_CONTAINER, EACCES, "0666" },
		{ HROCE_VFIO_STEP_CONTAINER, EIO, NULL },
		{ HROCE_VFIO_STEP_GROUP, ENOENT, "vfio-pci" },
		{ HROCE_VFIO_STEP_GROUP, EBUSY, "another process" },
		{ HROCE_VFIO_STEP_GROUP, EACCES, "udev rule" },
		{ HROCE_VFIO_STEP_GROUP, EPERM, "run as root" },
		{ HROCE_VFIO_STEP_GROUP, ENOMEM, NULL },
		{ HROCE_VFIO_STEP_ATTACH, EBUSY, "every device of the group" },
		{ HROCE_VFIO_STEP_DEVICE, EBUSY, "already open" },
		{ HROCE_VFIO_STEP_DEVICE, EPERM, "every device of the IOMMU group" },
		{ HROCE_VFIO_STEP_DMA_MAP, ENOMEM, "ulimit -l" },
		{ HROCE_VFIO_STEP_DMA_MAP, ENOSPC, "dma_entry_limit" },
		{ HROCE_VFIO_STEP_DMA_MAP, EFAULT, NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *hint = hroce_vfio_hint(cases[i].step, cases[i].err);
		char name[64];

		snprintf(name, sizeof(name), "hint step %d %s", cases[i].step,
			 strerrorname_np(cases[i].err));
		bench_result(b, name, cases[i].want ? hint && strstr(hint, cases[i].want) : !hint,
			     "hint \"%s\", want %s", hint ? hint : "(none)",
			     cases[i].want ? cases[i].want : "none");
	}
}

/* ---------------------------------------------------------------------------------------
 * Interrupts: the eventfds VFIO signals, written here as the kernel writes them
 */

static bool irq_fd_readable(const struct hroce_vfio_irqs *irqs)
{
	struct pollfd p = { .fd = irqs->epoll_fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* Random vectors fire (some several times) between takes: each take gets exactly them. */
static void test_irqs(struct bench *b)
{
	unsigned int rounds = b->quick ? 50 : 500, bad = 0;
	struct hroce_vfio_irqs irqs;
	char first[160] = "";
	int fds = count_fds(), err;

	err = hroce_vfio_irqs_init(&irqs, HROCE_VFIO_MAX_VECTORS + 1);
	bench_result(b, "irqs_too_many", err == EINVAL && count_fds() == fds,
		     "65 vectors: error %d, %d fds before, %d after", err, fds, count_fds());

	err = hroce_vfio_irqs_init(&irqs, 0);
	if (!bench_result(b, "irqs_none_init", !err, "%s", strerror(err)))
		return;
	bench_result(b, "irqs_none", !irq_fd_readable(&irqs) && !hroce_vfio_irqs_take(&irqs),
		     "without vectors the fd is readable or something was taken");
	hroce_vfio_irqs_free(&irqs);

	for (unsigned int r = 0; r < rounds; r++) {
		unsigned int n = (unsigned int)bench_range(b, 1, HROCE_VFIO_MAX_VECTORS);
		uint64_t valid = n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
		uint64_t fire = bench_rand(b) & bench_rand(b) & valid, got, again;
		bool readable;

		if (bench_chance(b, 10))
			fire = 0;
		err = hroce_vfio_irqs_init(&irqs, n);
		if (err) {
			bench_result(b, "irqs_init", false, "%u vectors: %s", n, strerror(err));
			return;
		}
		for (unsigned int v = 0; v < n; v++) {
			unsigned int times = fire >> v & 1 ? (unsigned int)bench_range(b, 1, 3) : 0;

			for (unsigned int k = 0; k < times; k++)
				if (eventfd_write(irqs.fd[v], 1))
					die("eventfd_write");
		}
		readable = irq_fd_readable(&irqs);
		got = hroce_vfio_irqs_take(&irqs);
		again = hroce_vfio_irqs_take(&irqs);
		if (got != fire || again || readable != (fire != 0) || irq_fd_readable(&irqs)) {
			if (!bad++)
				snprintf(first, sizeof(first),
					 "%u vectors, fired 0x%016llx, took 0x%016llx then 0x%llx, "
					 "readable before %d",
					 n, (unsigned long long)fire, (unsigned long long)got,
					 (unsigned long long)again, readable);
		}
		hroce_vfio_irqs_free(&irqs);
	}
	bench_result(b, "irqs_random", !bad, "%u of %u rounds wrong, first: %s", bad, rounds,
		     first);
	bench_result(b, "irqs_no_fd_left", count_fds() == fds, "%d fds before, %d after", fds,
		     count_fds());
}

/* ---------------------------------------------------------------------------------------
 * BAR0: the backend's accesses on shared memory (a memfd mapped twice, MAP_SHARED as VFIO
 * maps a BAR): one mapping is the BAR the accesses go through, the other shows what
 * reached the "device", checked against a model of its bytes after every access.
 */

#define BAR_BYTES (128u << 10) /* the board shell's BAR0 */

struct bar_env {
	struct hroce_vfio_bar bar;
	uint8_t *dev, *model;
};

static uint64_t le_bytes(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = n; i--;)
		v = v << 8 | p[i];
	return v;
}

/* One random access that the backend must make, the model following it; false if wrong. */
static bool bar_access(struct bench *b, struct bar_env *e, char *why, size_t why_len)
{
	unsigned int kind = (unsigned int)bench_range(b, 0, 3);
	uint64_t v = bench_rand(b), got = 0, want = 0;
	uint64_t off;

	switch (kind) {
	case 0: /* a 4-byte write */
		off = (uint64_t)bench_range(b, 0, BAR_BYTES / 4 - 1) * 4;
		hroce_vfio_bar_write32(&e->bar, off, (uint32_t)v);
		for (unsigned int i = 0; i < 4; i++)
			e->model[off + i] = (uint8_t)(v >> (8 * i));
		break;
	case 1: /* a 4-byte read */
		off = (uint64_t)bench_range(b, 0, BAR_BYTES / 4 - 1) * 4;
		got = hroce_vfio_bar_read32(&e->bar, off);
		want = le_bytes(e->model + off, 4);
		break;
	case 2: { /* a write of 1 to 8 words (a WQE push is 8) */
		uint8_t data[64];
		size_t len = 8 * (size_t)bench_range(b, 1, 8);

		off = (uint64_t)bench_range(b, 0, (BAR_BYTES - len) / 8) * 8;
		bench_fill(b, data, len);
		hroce_vfio_bar_write(&e->bar, off, data, len);
		memcpy(e->model + off, data, len);
		break;
	}
	default: /* an 8-byte read */
		off = (uint64_t)bench_range(b, 0, BAR_BYTES / 8 - 1) * 8;
		got = hroce_vfio_bar_read64(&e->bar, off);
		want = le_bytes(e->model + off, 8);
		break;
	}
	if (got == want && !memcmp(e->dev, e->model, BAR_BYTES))
		return true;
	snprintf(why, why_len, "access %u at 0x%llx: read 0x%llx, want 0x%llx, or the BAR differs",
		 kind, (unsigned long long)off, (unsigned long long)got, (unsigned long long)want);
	return false;
}

/* An access the backend must refuse: logged with the bus's name, nothing written. */
struct bar_refused {
	const char *name;
	unsigned int kind; /* as bar_access: 0 write32, 1 read32, 2 write, 3 read64 */
	uint64_t off;
	size_t len; /* kind 2 */
};

static void test_bar(struct bench *b)
{
	static const struct bar_refused refused[] = {
		{ "bar_write32_misaligned", 0, 0x10002, 0 },
		{ "bar_write32_past_end", 0, BAR_BYTES, 0 },
		{ "bar_write32_straddles_end", 0, BAR_BYTES - 2, 0 },
		{ "bar_write32_wraps", 0, UINT64_MAX - 3, 0 },
		{ "bar_read32_misaligned", 1, 0x10001, 0 },
		{ "bar_read32_past_end", 1, BAR_BYTES, 0 },
		{ "bar_read32_wraps", 1, UINT64_MAX - 3, 0 },
		{ "bar_read64_half_word", 3, 0x10004, 0 },
		{ "bar_read64_past_end", 3, BAR_BYTES, 0 },
		{ "bar_write_half_word", 2, 0x10004, 8 },
		{ "bar_write_odd_length", 2, 0x10000, 4 },
		{ "bar_write_past_end", 2, BAR_BYTES - 8, 16 },
		{ "bar_write_too_long", 2, 0, 72 },
	};
	unsigned int rounds = b->quick ? 2000 : 20000, bad = 0;
	const uint8_t id[4] = { 0x57, 0x46, 0x52, 0x48 };
	char first[200] = "";
	struct bar_env e;
	void *cpu;
	int fd = memfd_create("bar0", 0);

	if (fd < 0 || ftruncate(fd, BAR_BYTES))
		die("memfd");
	cpu = mmap(NULL, BAR_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	e.dev = mmap(NULL, BAR_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	e.model = malloc(BAR_BYTES);
	if (cpu == MAP_FAILED || e.dev == MAP_FAILED || !e.model)
		die("mmap");
	e.bar = (struct hroce_vfio_bar){ .base = cpu, .size = BAR_BYTES, .name = "vfio:test" };
	bench_fill(b, e.dev, BAR_BYTES);
	memcpy(e.model, e.dev, BAR_BYTES);

	/* the board block's ID register as the device sees it: little-endian */
	hroce_vfio_bar_write32(&e.bar, 0x10000, 0x48524657);
	memcpy(e.model + 0x10000, id, 4);
	bench_result(b, "bar_write32_bytes",
		     !memcmp(e.dev + 0x10000, id, 4) && !memcmp(e.dev, e.model, BAR_BYTES) &&
			     hroce_vfio_bar_read32(&e.bar, 0x10000) == 0x48524657,
		     "the word is %02x %02x %02x %02x, or a byte beside it changed", e.dev[0x10000],
		     e.dev[0x10001], e.dev[0x10002], e.dev[0x10003]);
	/* the last word of the BAR is inside it */
	hroce_vfio_bar_write32(&e.bar, BAR_BYTES - 4, 0xa5a5a5a5);
	memset(e.model + BAR_BYTES - 4, 0xa5, 4);
	bench_result(b, "bar_last_word",
		     !memcmp(e.dev, e.model, BAR_BYTES) &&
			     hroce_vfio_bar_read32(&e.bar, BAR_BYTES - 4) == 0xa5a5a5a5 &&
			     hroce_vfio_bar_read64(&e.bar, BAR_BYTES - 8) >> 32 == 0xa5a5a5a5,
		     "the last word of BAR0 was not written or read back");

	for (unsigned int r = 0; r < rounds; r++) {
		char why[200];

		if (!bar_access(b, &e, why, sizeof(why)) && !bad++)
			snprintf(first, sizeof(first), "%s", why);
	}
	bench_result(b, "bar_random", !bad, "%u of %u accesses wrong, first: %s", bad, rounds,
		     first);

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		const struct bar_refused *t = &refused[i];
		uint8_t data[80] = { 0 };
		uint64_t got = 0, want = 0;

		logged[0] = 0;
		if (t->kind == 0)
			hroce_vfio_bar_write32(&e.bar, t->off, 0);
		else if (t->kind == 1)
			got = hroce_vfio_bar_read32(&e.bar, t->off), want = UINT32_MAX;
		else if (t->kind == 2)
			hroce_vfio_bar_write(&e.bar, t->off, data, t->len);
		else
			got = hroce_vfio_bar_read64(&e.bar, t->off), want = UINT64_MAX;
		bench_result(b, t->name,
			     got == want && strstr(logged, "vfio:test: MMIO") &&
				     !memcmp(e.dev, e.model, BAR_BYTES),
			     "read 0x%llx (want all ones), logged \"%s\", or the BAR changed",
			     (unsigned long long)got, logged);
	}
	munmap(cpu, BAR_BYTES);
	munmap(e.dev, BAR_BYTES);
	free(e.model);
}

/*
 * The doorbell pages' 64-byte store, with every way this CPU has (SSE and AVX stores for a
 * write-combining mapping, MOVDIR64B for any): random lines on memory that stands for the
 * pages, checked against a model; misaligned, short, outside and lacking ones refused.
 */
#define DB_BYTES (UINT64_C(1) << HROCE_DB_ADDR_WIDTH)

static void test_bar_wc(struct bench *b)
{
	static const char *const names[] = { "none", "sse", "avx", "movdir64b" };
	unsigned int rounds = b->quick ? 500 : 5000;
	struct hroce_vfio_bar bar;
	uint8_t *model = malloc(DB_BYTES), *dev;
	uint8_t line[HROCE_DB_PUSH_BYTES + 1];
	char name[64];
	void *cpu;
	int fd = memfd_create("db", 0);

	if (fd < 0 || ftruncate(fd, (off_t)DB_BYTES) || !model)
		die("memfd");
	cpu = mmap(NULL, DB_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	dev = mmap(NULL, DB_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (cpu == MAP_FAILED || dev == MAP_FAILED)
		die("mmap");
	bar = (struct hroce_vfio_bar){ .base = cpu, .size = DB_BYTES, .name = "vfio:db" };
	bench_fill(b, dev, DB_BYTES);
	memcpy(model, dev, DB_BYTES);

	bench_result(b, "wc_best",
		     hroce_vfio_wc_supported(hroce_vfio_wc_best(true)) &&
			     (hroce_vfio_wc_best(false) == HROCE_VFIO_WC_NONE ||
			      hroce_vfio_wc_best(false) == HROCE_VFIO_WC_MOVDIR64B),
		     "best stores: %s on a WC mapping, %s on an uncached one",
		     names[hroce_vfio_wc_best(true)], names[hroce_vfio_wc_best(false)]);
	for (int how = HROCE_VFIO_WC_SSE; how <= HROCE_VFIO_WC_MOVDIR64B; how++) {
		bool have = hroce_vfio_wc_supported((enum hroce_vfio_wc)how);
		unsigned int bad = 0;

		bench_log(b, "doorbell page store %s: %s on this CPU", names[how],
			  have ? "present" : "absent");
		snprintf(name, sizeof(name), "wc_%s_%s", names[how], have ? "lines" : "refused");
		for (unsigned int r = 0; r < (have ? rounds : 1); r++) {
			/* a source not aligned to anything, as a WQE copy may be */
			uint8_t *src = line + (r & 1);
			uint64_t off = bench_range(b, 0, DB_BYTES / HROCE_DB_PUSH_BYTES - 1) *
				       HROCE_DB_PUSH_BYTES;

			bench_fill(b, src, HROCE_DB_PUSH_BYTES);
			logged[0] = 0;
			hroce_vfio_bar_write_wc(&bar, (enum hroce_vfio_wc)how, off, src,
						HROCE_DB_PUSH_BYTES);
			if (have)
				memcpy(model + off, src, HROCE_DB_PUSH_BYTES);
			else if (!strstr(logged, "vfio:db: doorbell page write"))
				bad++;
			if (memcmp(dev, model, DB_BYTES))
				bad++;
		}
		bench_result(b, name, !bad, "%u of the writes wrong", bad);
	}
	{
		static const struct {
			const char *name;
			uint64_t off;
			size_t len;
		} refused[] = {
			{ "wc_misaligned", 32, HROCE_DB_PUSH_BYTES },
			{ "wc_short", 0, 32 },
			{ "wc_long", 0, HROCE_DB_PUSH_BYTES + 1 },
			{ "wc_past_end", DB_BYTES, HROCE_DB_PUSH_BYTES },
			{ "wc_wraps", UINT64_MAX - 63, HROCE_DB_PUSH_BYTES },
		};
		enum hroce_vfio_wc how = hroce_vfio_wc_best(true);

		for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
			logged[0] = 0;
			hroce_vfio_bar_write_wc(&bar, how, refused[i].off, line, refused[i].len);
			bench_result(b, refused[i].name,
				     strstr(logged, "vfio:db: doorbell page write") &&
					     !memcmp(dev, model, DB_BYTES),
				     "logged \"%s\", or the pages changed", logged);
		}
	}
	munmap(cpu, DB_BYTES);
	munmap(dev, DB_BYTES);
	free(model);
}

/* ---------------------------------------------------------------------------------------
 * Opening: the whole path, failing at each step this machine can reach
 */

/* On the sysfs tree test_find_group() made and the nodes test_container() made. */
static void test_open_at(struct bench *b, const char *tmp)
{
	static const struct {
		const char *name, *arg;
		bool vfio_file; /* VFIO's directory holds a plain file for the container */
		int err;
		const char *want[4];
	} cases[] = {
		{ "bad_address", "65:00", false, EINVAL, { "not a PCI address", NULL } },
		{ "no_device",
		  "0000:70:00.0",
		  false,
		  ENODEV,
		  { "vfio:0000:70:00.0: no PCI device", NULL } },
		{ "no_iommu",
		  "66:00.0",
		  false,
		  ENXIO,
		  { "vfio:0000:66:00.0: the device is in no IOMMU group", NULL } },
		{ "other_driver", "0000:67:00.0", false, EBUSY, { "bound to mlx5_core", NULL } },
		/* the device is ready; VFIO is not loaded */
		{ "vfio_missing",
		  "0000:65:00.0",
		  false,
		  ENOENT,
		  { "vfio:0000:65:00.0: ", "no-such-dir does not exist", "modprobe vfio-pci",
		    NULL } },
		/* the device is ready; the container node is not VFIO's */
		{ "container_not_vfio",
		  "65:00.0",
		  true,
		  ENOTTY,
		  { "vfio:0000:65:00.0: ", "is not a VFIO container", NULL } },
	};
	char sysfs[PATH_MAX], absent[PATH_MAX], file[PATH_MAX];

	pathf(sysfs, sizeof(sysfs), "%s/sys", tmp);
	pathf(absent, sizeof(absent), "%s/no-such-dir", tmp);
	pathf(file, sizeof(file), "%s/vfio-file", tmp);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct attempt a = {
			.call = OPEN_BUS,
			.sysfs = sysfs,
			.vfio_dir = cases[i].vfio_file ? file : absent,
			.arg = cases[i].arg,
		};
		char name[96];

		snprintf(name, sizeof(name), "open_at %s", cases[i].name);
		check_attempt(b, name, &a, cases[i].err, cases[i].want);
	}
}

/* hroce_open() of "vfio:..." specs on this machine's /sys and /dev/vfio. */
static void test_hroce_open(struct bench *b)
{
	static const struct {
		const char *name, *spec;
		int err;
		const char *want[3];
	} cases[] = {
		{ "empty", "vfio:", EINVAL, { "vfio:: not a PCI address", NULL } },
		{ "bad_address",
		  "vfio:65:00:0",
		  EINVAL,
		  { "vfio:65:00:0: not a PCI address", NULL } },
		{ "no_device",
		  "vfio:ffff:ff:1f.7",
		  ENODEV,
		  { "vfio:ffff:ff:1f.7: no PCI device", "lspci -D", NULL } },
	};
	char addr[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct attempt a = { .call = OPEN_DEV, .arg = cases[i].spec };
		struct attempt t = { .call = OPEN_BAR, .arg = cases[i].spec };
		char name[96];

		snprintf(name, sizeof(name), "hroce_open %s", cases[i].name);
		check_attempt(b, name, &a, cases[i].err, cases[i].want);
		/* a tool's open of the bus alone goes the same way */
		snprintf(name, sizeof(name), "hroce_bar_open %s", cases[i].name);
		check_attempt(b, name, &t, cases[i].err, cases[i].want);
	}
	if (!machine_has_iommu_groups() && machine_pci_device(addr, sizeof(addr))) {
		static const char *const want[] = { "no IOMMU group", "intel_iommu=on", NULL };
		char spec[300];
		struct attempt a = { .call = OPEN_DEV, .arg = spec };

		snprintf(spec, sizeof(spec), "vfio:%s", addr);
		check_attempt(b, "hroce_open no_iommu", &a, ENXIO, want);
	} else {
		bench_log(b, "IOMMU groups or no PCI device here: no hroce_open of a real device");
	}
}

int main(int argc, char **argv)
{
	char tmp[] = "/tmp/test_vfio-XXXXXX", sysfs[PATH_MAX];
	struct bench b;

	bench_init(&b, "test_vfio", argc, argv);
	hroce_set_log(capture_log, NULL);
	if (!mkdtemp(tmp))
		die("mkdtemp");
	snprintf(sysfs, sizeof(sysfs), "%s/sys", tmp);

	test_parse_valid(&b);
	test_parse_invalid(&b);
	test_parse_random(&b);
	test_find_group(&b, sysfs);
	test_find_group_sys(&b);
	test_container(&b, tmp);
	test_group_node(&b, tmp);
	test_hints(&b);
	test_irqs(&b);
	test_bar(&b);
	test_bar_wc(&b);
	test_open_at(&b, tmp);
	test_hroce_open(&b);

	remove_tree(tmp);
	return bench_finish(&b);
}
