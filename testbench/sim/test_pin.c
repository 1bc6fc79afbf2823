// SPDX-License-Identifier: MIT
/*
 * The sim backend's page checks and pinning (sim/platform/sim_pin.c), against what a
 * board's VFIO driver does with get_user_pages: a hole, a never-mapped address, a page
 * without the protection the access needs, or a mapping that is no memory is refused
 * with EFAULT; past RLIMIT_MEMLOCK without CAP_IPC_LOCK with ENOMEM; pinned pages stay
 * the NIC's when the application unmaps, replaces or protects its range; a shared
 * mapping is shared with the NIC; a child of fork() never writes its parent's pages; a
 * driver's own memory counts against the limit with the rest.
 * And the IOMMU refuses a device write to a mapping made for reading.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "sim_iommu.h"
#include "sim_pin.h"

#define PAGE 4096u
#define NEVER_MAPPED 0x10000u

static uint8_t *map_pages(unsigned int n, int prot, int flags)
{
	void *p = mmap(NULL, (size_t)n * PAGE, prot, flags | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void test_check(struct bench *b)
{
	uint8_t *p = map_pages(4, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	uintptr_t a = (uintptr_t)p;
	uint64_t bad = 0;
	int err;

	if (!bench_result(b, "check_mmap", p != NULL, "%s", strerror(errno)))
		return;
	bench_result(b, "check_rw_ok", !sim_pin_check(a, 4 * PAGE, true, NULL), "refused");
	munmap(p + 2 * PAGE, PAGE);
	err = sim_pin_check(a, 4 * PAGE, false, &bad);
	bench_result(b, "check_hole", err == EFAULT && bad == 2 * PAGE,
		     "errno %d, first bad page at +0x%llx (expected EFAULT at +0x2000)", err,
		     (unsigned long long)bad);
	err = sim_pin_check(NEVER_MAPPED, PAGE, false, NULL);
	bench_result(b, "check_never_mapped", err == EFAULT, "errno %d", err);
	err = sim_pin_check(a, UINT64_C(1) << 40, true, &bad);
	bench_result(b, "check_past_the_buffer", err == EFAULT && bad == 2 * PAGE,
		     "errno %d, bad at +0x%llx", err, (unsigned long long)bad);
	mprotect(p, PAGE, PROT_READ);
	mprotect(p + PAGE, PAGE, PROT_NONE);
	bench_result(b, "check_read_only",
		     sim_pin_check(a, PAGE, true, NULL) == EFAULT &&
			     !sim_pin_check(a, PAGE, false, NULL),
		     "a PROT_READ page: write %d, read %d (expected EFAULT, 0)",
		     sim_pin_check(a, PAGE, true, NULL), sim_pin_check(a, PAGE, false, NULL));
	err = sim_pin_check(a + PAGE, PAGE, false, NULL);
	bench_result(b, "check_prot_none", err == EFAULT, "errno %d", err);
	err = sim_pin_check(getauxval(AT_SYSINFO_EHDR), PAGE, false, NULL);
	bench_result(b, "check_vdso", err == EFAULT, "errno %d", err);
	bench_result(b, "check_unaligned",
		     sim_pin_check(a + 1, PAGE, false, NULL) == EINVAL &&
			     sim_pin_check(a, 100, false, NULL) == EINVAL &&
			     sim_pin_check(~(uintptr_t)PAGE + 1, 2 * PAGE, false, NULL) == EINVAL,
		     "an unaligned or wrapping range accepted");
	munmap(p, 4 * PAGE);
}

/* Pinned private pages stay the NIC's through munmap, MAP_FIXED and mprotect. */
static void test_private(struct bench *b)
{
	uint8_t *p = map_pages(3, PROT_READ | PROT_WRITE, MAP_PRIVATE), *fresh;
	uint64_t before = sim_pinned_pages();
	struct sim_pin *pin = NULL;
	int err;

	if (!bench_result(b, "private_mmap", p != NULL, "%s", strerror(errno)))
		return;
	bench_fill(b, p, 3 * PAGE);
	err = sim_pin((uintptr_t)p, 3 * PAGE, true, &pin);
	if (!bench_result(b, "private_pin", !err, "%s", strerror(err)))
		return;
	bench_result(b, "private_same_bytes", !memcmp(pin->vaddr, p, 3 * PAGE),
		     "the pinned pages do not hold the application's bytes");
	p[5] = 0xa5;
	pin->vaddr[PAGE + 7] = 0x5a;
	bench_result(b, "private_both_ways", pin->vaddr[5] == 0xa5 && p[PAGE + 7] == 0x5a,
		     "a store through one mapping is not seen through the other");
	bench_result(b, "private_counted", sim_pinned_pages() == before + 3,
		     "%llu pages pinned, %llu expected", (unsigned long long)sim_pinned_pages(),
		     (unsigned long long)before + 3);
	/* the application replaces page 1 and unmaps page 2: the NIC keeps both */
	fresh = mmap(p + PAGE, PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	munmap(p + 2 * PAGE, PAGE);
	mprotect(p, PAGE, PROT_NONE);
	memset(pin->vaddr, 0x77, 3 * PAGE); /* would fault if the pages had gone */
	bench_result(b, "private_replaced",
		     fresh == p + PAGE && p[PAGE] == 0 && p[2 * PAGE - 1] == 0,
		     "the NIC's store reached the pages mapped after registration");
	mprotect(p, PAGE, PROT_READ);
	bench_result(b, "private_kept", p[0] == 0x77,
		     "the page still mapped at registration's address is not the pinned one");
	sim_unpin(pin);
	bench_result(b, "private_released", sim_pinned_pages() == before,
		     "%llu pages pinned after unpin", (unsigned long long)sim_pinned_pages());
	munmap(p, 2 * PAGE);
}

/* A shared mapping, and a range over two mappings of different kinds. */
static void test_shared(struct bench *b)
{
	uint8_t *p = map_pages(4, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	struct sim_pin *pin = NULL;
	int err;

	if (!bench_result(b, "shared_mmap", p != NULL, "%s", strerror(errno)))
		return;
	if (mmap(p + 2 * PAGE, 2 * PAGE, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != p + 2 * PAGE) {
		bench_result(b, "shared_mmap_fixed", false, "%s", strerror(errno));
		munmap(p, 4 * PAGE);
		return;
	}
	memset(p, 1, 2 * PAGE);
	memset(p + 2 * PAGE, 2, 2 * PAGE);
	err = sim_pin((uintptr_t)p + PAGE, 2 * PAGE, true, &pin);
	if (!bench_result(b, "shared_pin", !err, "%s", strerror(err)))
		return;
	pin->vaddr[0] = 3;
	pin->vaddr[PAGE] = 4;
	bench_result(b, "shared_both_kinds",
		     p[PAGE] == 3 && p[2 * PAGE] == 4 && pin->vaddr[1] == 1 &&
			     pin->vaddr[PAGE + 1] == 2,
		     "a range over a private and a shared mapping is not pinned as one");
	sim_unpin(pin);
	munmap(p, 4 * PAGE);
}

/* A child's writes to a pinned buffer stay the child's. */
static void test_fork(struct bench *b)
{
	uint8_t *p = map_pages(2, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	struct sim_pin *pin = NULL;
	int err, status = 0;
	pid_t pid;

	if (!bench_result(b, "fork_mmap", p != NULL, "%s", strerror(errno)))
		return;
	memset(p, 0x11, 2 * PAGE);
	err = sim_pin((uintptr_t)p, 2 * PAGE, true, &pin);
	if (!bench_result(b, "fork_pin", !err, "%s", strerror(err)))
		return;
	pid = fork();
	if (pid == 0) {
		memset(p, 0x22, 2 * PAGE);
		pin->vaddr[PAGE] = 0x33;
		_exit(p[0] == 0x22 && sim_pinned_pages() == 0 ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	bench_result(b, "fork_child_private",
		     WIFEXITED(status) && !WEXITSTATUS(status) && p[0] == 0x11 && p[PAGE] == 0x11 &&
			     pin->vaddr[0] == 0x11,
		     "child status %d; parent sees 0x%02x 0x%02x", status, p[0], p[PAGE]);
	sim_unpin(pin);
	munmap(p, 2 * PAGE);
}

/* In a child without CAP_IPC_LOCK and with a memlock limit of 4 pages. */
static int memlock_child(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct cap[_LINUX_CAPABILITY_U32S_3];
	struct rlimit rl = { 4 * PAGE, 4 * PAGE };
	uint8_t *p = map_pages(8, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	struct sim_pin *pin = NULL;

	if (!p || syscall(SYS_capget, &hdr, cap))
		return 10;
	cap[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	if (syscall(SYS_capset, &hdr, cap) || setrlimit(RLIMIT_MEMLOCK, &rl))
		return 11;
	if (sim_pin((uintptr_t)p, 8 * PAGE, true, &pin) != ENOMEM)
		return 1;
	if (sim_pin((uintptr_t)p, 2 * PAGE, true, &pin))
		return 2;
	munmap(p + 3 * PAGE, PAGE);
	/* one good page, then a hole: VFIO reaches the hole before the limit */
	if (sim_pin((uintptr_t)p + 2 * PAGE, 2 * PAGE, true, &pin) != EFAULT)
		return 3;
	/* three good pages would pass the limit before the hole */
	munmap(p + 7 * PAGE, PAGE);
	if (sim_pin((uintptr_t)p + 4 * PAGE, 4 * PAGE, true, &pin) != ENOMEM)
		return 4;
	/* a driver's own memory counts too: 2 pinned + 3 > 4, 2 + 2 fits, then nothing */
	if (sim_pin_account(3) != ENOMEM || sim_pin_account(2))
		return 5;
	if (sim_pin((uintptr_t)p, PAGE, false, &pin) != ENOMEM)
		return 6;
	sim_pin_unaccount(2);
	if (sim_pin((uintptr_t)p, PAGE, false, &pin))
		return 7;
	return 0;
}

static void test_memlock(struct bench *b)
{
	int status = 0;
	pid_t pid = fork();

	if (pid == 0)
		_exit(memlock_child());
	waitpid(pid, &status, 0);
	bench_result(b, "memlock_enomem", WIFEXITED(status) && !WEXITSTATUS(status),
		     "child step %d failed (10, 11: could not set the child up)",
		     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static void test_iommu_read_only(struct bench *b)
{
	static uint8_t mem[3 * PAGE] __attribute__((aligned(PAGE)));
	struct sim_iommu m;
	struct sim_pin *pin = (struct sim_pin *)&m; /* any token: the IOMMU only hands it back */
	struct sim_pin *back = NULL;
	const char *why = NULL;

	sim_iommu_init(&m);
	if (sim_iommu_map_pinned(&m, mem, 0x10000, PAGE, false, NULL) ||
	    sim_iommu_map_pinned(&m, mem + PAGE, 0x20000, 2 * PAGE, true, pin))
		why = "map refused";
	else if (sim_iommu_translate(&m, 0x10000, 8, true) ||
		 sim_iommu_translate(&m, 0x10000, 8, false) != mem)
		why = "a read-only mapping translates a write, or refuses a read";
	else if (sim_iommu_unmap(&m, 0x20000, 2 * PAGE, NULL) != EINVAL ||
		 sim_iommu_unmap(&m, 0x20000, PAGE, &back) != EINVAL)
		why = "a pinned mapping unmapped without handing its pin back, or in part";
	else if (sim_iommu_unmap(&m, 0x20000, 2 * PAGE, &back) || back != pin)
		why = "a pinned mapping's pin not handed back";
	bench_result(b, "iommu_read_only_and_pins", !why, "%s", why);
	sim_iommu_fini(&m);
}

int main(int argc, char **argv)
{
	struct bench b;

	bench_init(&b, "test_pin", argc, argv);
	test_check(&b);
	test_private(&b);
	test_shared(&b);
	test_fork(&b);
	test_memlock(&b);
	test_iommu_read_only(&b);
	return bench_finish(&b);
}
