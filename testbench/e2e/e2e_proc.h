/* SPDX-License-Identifier: MIT */
/*
 * What the end-to-end tests share: unmodified programs run through hroce-run as child
 * processes (their output to a file, their NIC's counters written at close through
 * $HROCE_STATS), waited for with a deadline, and the counters read back.
 */
#ifndef HROCE_E2E_PROC_H
#define HROCE_E2E_PROC_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#define E2E_MAX_ARGS 24

struct e2e_side {
	const char *argv[E2E_MAX_ARGS]; /* the program and its arguments, NULL-terminated */
	char out[PATH_MAX], stats[PATH_MAX];
	pid_t pid;
	int status;
	bool timed_out;
};

/*
 * Starts bindir/hroce-run with s->argv, stdout and stderr to s->out, the counters to
 * s->stats at close, and $HROCE_CONFIG set to config ("": unset).
 */
pid_t e2e_spawn(const char *bindir, struct e2e_side *s, const char *config);
/* Waits for a side until the deadline; kills it past it (timed_out). */
void e2e_reap(struct e2e_side *s, time_t deadline);
/* A whole file, NUL-terminated ("" if it cannot be read); free() it. */
char *e2e_slurp(const char *path);
/* A counter of a stats file ("NAME VALUE" lines); -1 if absent. */
long long e2e_stat_of(const char *stats, const char *name);
/* Prints the end of a file as comment lines, for a failure's context. */
void e2e_show_tail(const char *what, const char *path);
/*
 * The counters every good run must show: nothing dropped, refused or faulted; on a lossy
 * wire the sequence errors, NAKs and stale responses that losses cause are allowed.
 * False with why filled otherwise.
 */
bool e2e_stats_clean(const char *stats, bool lossy, char *why, size_t len);

#endif /* HROCE_E2E_PROC_H */
