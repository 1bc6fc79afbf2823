/* SPDX-License-Identifier: MIT */
/*
 * Futexes on 32-bit words. A wait returns when the word no longer holds the value it was
 * given, when woken, on a signal, or after timeout_ns (0: no timeout). The plain ones
 * work on words shared between processes; the _private ones (cheaper) only on words of
 * this process, and a word is always used with the one kind.
 */
#ifndef HROCE_SIM_FUTEX_H
#define HROCE_SIM_FUTEX_H

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static inline int futex_wait_op(_Atomic uint32_t *word, int op, uint32_t seen, uint64_t timeout_ns)
{
	struct timespec ts = { (time_t)(timeout_ns / 1000000000u),
			       (long)(timeout_ns % 1000000000u) };

	if (!syscall(SYS_futex, (uint32_t *)word, op, seen, timeout_ns ? &ts : NULL, NULL, 0))
		return 0;
	return errno == ETIMEDOUT || errno == EINTR ? errno : 0;
}

/* 0 (woken, or the word had changed already), ETIMEDOUT or EINTR. */
static inline int sim_futex_wait(_Atomic uint32_t *word, uint32_t seen, uint64_t timeout_ns)
{
	return futex_wait_op(word, FUTEX_WAIT, seen, timeout_ns);
}

static inline int sim_futex_wait_private(_Atomic uint32_t *word, uint32_t seen, uint64_t timeout_ns)
{
	return futex_wait_op(word, FUTEX_WAIT_PRIVATE, seen, timeout_ns);
}

static inline void sim_futex_wake(_Atomic uint32_t *word)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static inline void sim_futex_wake_private(_Atomic uint32_t *word)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Something changed for whoever waits on word: bump it and wake them. */
static inline void sim_futex_poke(_Atomic uint32_t *word)
{
	atomic_fetch_add(word, 1);
	sim_futex_wake(word);
}

static inline void sim_futex_poke_private(_Atomic uint32_t *word)
{
	atomic_fetch_add(word, 1);
	sim_futex_wake_private(word);
}

#endif /* HROCE_SIM_FUTEX_H */
