// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "sim_pin.h"

#include "sim_log.h"

#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PIN_PAGE 4096u
#define PIN_PAGE_MASK ((uint64_t)PIN_PAGE - 1)
/* the name of the memfds that hold pinned private pages, as /proc/self/maps shows it */
#define PIN_MEMFD_NAME "hroce-pin"
#define PIN_MEMFD_PATH "/memfd:" PIN_MEMFD_NAME
/* CAP_IPC_LOCK lets a process pin past RLIMIT_MEMLOCK (linux/capability.h) */
#define PIN_CAP_BIT CAP_IPC_LOCK

/* One line of /proc/self/maps that meets the range. */
struct vma {
	uintptr_t start, end;
	int prot;
	bool shared;
	bool special; /* not memory get_user_pages can pin */
};

static pthread_mutex_t pin_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t pinned_pages;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static bool parse_line(const char *line, struct vma *v)
{
	unsigned long long start, end;
	char perms[5] = "";
	int path = 0;

	if (sscanf(line, "%llx-%llx %4s %*s %*s %*s %n", &start, &end, perms, &path) < 3)
		return false;
	v->start = (uintptr_t)start;
	v->end = (uintptr_t)end;
	v->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	v->shared = perms[3] == 's';
	v->special =
		path && (!strncmp(line + path, "[vvar", 5) || !strncmp(line + path, "[vdso]", 6) ||
			 !strncmp(line + path, "[vsyscall]", 10));
	return true;
}

/*
 * The mappings that meet [addr, end), in address order, into *out (malloc'd). 0, or the
 * errno of reading the maps.
 */
static int read_vmas(uintptr_t addr, uintptr_t end, struct vma **out, size_t *n)
{
	FILE *f = fopen("/proc/self/maps", "re");
	struct vma *vmas = NULL, v;
	size_t cap = 0, len = 0, k = 0;
	char *line = NULL;

	if (!f)
		return errno;
	while (getline(&line, &len, f) > 0) {
		if (!parse_line(line, &v) || v.end <= addr)
			continue;
		if (v.start >= end)
			break;
		if (k == cap) {
			struct vma *bigger = realloc(vmas, (cap ? 2 * cap : 8) * sizeof(*vmas));

			if (!bigger) {
				free(vmas);
				free(line);
				fclose(f);
				return ENOMEM;
			}
			vmas = bigger;
			cap = cap ? 2 * cap : 8;
		}
		vmas[k++] = v;
	}
	free(line);
	fclose(f);
	*out = vmas;
	*n = k;
	return 0;
}

/* The offset of the first page of [addr, end) get_user_pages would refuse, or end - addr. */
static uint64_t first_bad(uintptr_t addr, uintptr_t end, bool write, const struct vma *vmas,
			  size_t n)
{
	uintptr_t pos = addr;

	for (size_t i = 0; i < n && pos < end; i++) {
		if (vmas[i].start > pos)
			break; /* a hole */
		if (vmas[i].special || !(vmas[i].prot & PROT_READ) ||
		    (write && !(vmas[i].prot & PROT_WRITE)))
			break;
		pos = vmas[i].end;
	}
	return (pos < end ? pos : end) - addr;
}

static bool range_ok(uintptr_t addr, uint64_t len)
{
	return len && !(addr & PIN_PAGE_MASK) && !(len & PIN_PAGE_MASK) && addr + len > addr;
}

int sim_pin_check(uintptr_t addr, uint64_t len, bool write, uint64_t *bad)
{
	struct vma *vmas;
	uint64_t good;
	size_t n;
	int err;

	if (!range_ok(addr, len))
		return EINVAL;
	err = read_vmas(addr, addr + len, &vmas, &n);
	if (err)
		return err;
	good = first_bad(addr, addr + len, write, vmas, n);
	free(vmas);
	if (bad)
		*bad = good;
	return good == len ? 0 : EFAULT;
}

static bool can_lock_unlimited(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[CAP_TO_INDEX(PIN_CAP_BIT)].effective & CAP_TO_MASK(PIN_CAP_BIT);
}

/* The pages this process may pin in all, as the kernel counts them (RLIMIT_MEMLOCK). */
static uint64_t memlock_pages(void)
{
	struct rlimit rl;

	if (can_lock_unlimited() || getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	return rl.rlim_cur / PIN_PAGE;
}

/* A private mapping's pages moved into a memfd mapped at both places. */
static int move_private(const struct vma *v, uintptr_t s, uintptr_t e, uint8_t *side)
{
	size_t len = e - s;
	void *p;
	int fd, err = 0;

	fd = memfd_create(PIN_MEMFD_NAME, MFD_CLOEXEC);
	if (fd < 0)
		return errno;
	if (ftruncate(fd, (off_t)len)) {
		err = errno;
		goto out;
	}
	p = mmap(side, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_POPULATE, fd, 0);
	if (p == MAP_FAILED) {
		err = errno;
		goto out;
	}
	memcpy(side, (const void *)s, len);
	p = mmap((void *)s, len, v->prot, MAP_SHARED | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED)
		err = errno; /* the application's pages are untouched */
out:
	close(fd);
	return err;
}

/*
 * A child of fork() shares the memfds with its parent: it gets private copies instead, as
 * it would get of its parent's pinned private pages, and the pages it inherits pinned by
 * its parent's NICs count for nothing here.
 */
static void unshare_in_child(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char *line = NULL;
	size_t len = 0;

	pinned_pages = 0;
	pthread_mutex_init(&pin_lock, NULL);
	if (!f)
		return;
	while (getline(&line, &len, f) > 0) {
		struct vma v;
		size_t size;
		void *copy;

		if (!strstr(line, PIN_MEMFD_PATH) || !parse_line(line, &v))
			continue;
		size = v.end - v.start;
		copy = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (copy == MAP_FAILED)
			continue;
		if (!(v.prot & PROT_READ))
			mprotect((void *)v.start, size, PROT_READ);
		memcpy(copy, (const void *)v.start, size);
		mprotect(copy, size, v.prot);
		if (mremap(copy, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)v.start) ==
		    MAP_FAILED)
			munmap(copy, size);
	}
	free(line);
	fclose(f);
}

static void hook_fork(void)
{
	pthread_atfork(NULL, NULL, unshare_in_child);
}

int sim_pin(uintptr_t addr, uint64_t len, bool write, struct sim_pin **out)
{
	uintptr_t end = addr + len;
	struct sim_pin *p;
	struct vma *vmas;
	uint64_t good, pages = len / PIN_PAGE;
	uint8_t *side;
	size_t n;
	int err;

	if (!range_ok(addr, len))
		return EINVAL;
	pthread_once(&fork_once, hook_fork);
	p = calloc(1, sizeof(*p));
	if (!p)
		return ENOMEM;
	pthread_mutex_lock(&pin_lock);
	err = read_vmas(addr, end, &vmas, &n);
	if (err)
		goto err_unlock;
	/* VFIO pins page by page, counting each against the limit: which error comes first */
	good = first_bad(addr, end, write, vmas, n);
	if (pinned_pages + good / PIN_PAGE + (good < len) > memlock_pages()) {
		err = ENOMEM;
		goto err_vmas;
	}
	if (good < len) {
		err = EFAULT;
		goto err_vmas;
	}
	side = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (side == MAP_FAILED) {
		err = ENOMEM;
		goto err_vmas;
	}
	for (size_t i = 0; i < n; i++) {
		uintptr_t s = vmas[i].start > addr ? vmas[i].start : addr;
		uintptr_t e = vmas[i].end < end ? vmas[i].end : end;

		if (vmas[i].shared) {
			if (mremap((void *)s, 0, e - s, MREMAP_MAYMOVE | MREMAP_FIXED,
				   side + (s - addr)) == MAP_FAILED)
				err = errno;
		} else {
			err = move_private(&vmas[i], s, e, side + (s - addr));
		}
		if (err) {
			sim_log(HROCE_SIM_LOG_WARN, "pinning 0x%llx..0x%llx: %s",
				(unsigned long long)s, (unsigned long long)e, strerror(err));
			goto err_side;
		}
	}
	pinned_pages += pages;
	pthread_mutex_unlock(&pin_lock);
	free(vmas);
	*p = (struct sim_pin){ addr, len, side, write };
	*out = p;
	return 0;

err_side:
	munmap(side, len);
err_vmas:
	free(vmas);
err_unlock:
	pthread_mutex_unlock(&pin_lock);
	free(p);
	return err;
}

void sim_unpin(struct sim_pin *p)
{
	if (!p)
		return;
	munmap(p->vaddr, p->len);
	pthread_mutex_lock(&pin_lock);
	pinned_pages -= pinned_pages < p->len / PIN_PAGE ? pinned_pages : p->len / PIN_PAGE;
	pthread_mutex_unlock(&pin_lock);
	free(p);
}

int sim_pin_account(uint64_t pages)
{
	int err = 0;

	pthread_mutex_lock(&pin_lock);
	if (pinned_pages + pages > memlock_pages())
		err = ENOMEM;
	else
		pinned_pages += pages;
	pthread_mutex_unlock(&pin_lock);
	return err;
}

void sim_pin_unaccount(uint64_t pages)
{
	pthread_mutex_lock(&pin_lock);
	pinned_pages -= pinned_pages < pages ? pinned_pages : pages;
	pthread_mutex_unlock(&pin_lock);
}

uint64_t sim_pinned_pages(void)
{
	uint64_t n;

	pthread_mutex_lock(&pin_lock);
	n = pinned_pages;
	pthread_mutex_unlock(&pin_lock);
	return n;
}
