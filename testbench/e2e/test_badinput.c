// SPDX-License-Identifier: MIT
/*
 * End to end: badinput_verbs (a verbs program of careless and hostile input, built from
 * testbench/e2e/badinput_verbs.c) run through hroce-run against two simulated NICs on a
 * wire of this run's own, both in its one process. Its "ok"/"not ok" lines are passed on;
 * this driver adds what the program cannot say of itself: that it exited by itself, and
 * not on a signal (a fault caused by what the wire carried) nor past the deadline (a hang).
 *
 * --valgrind: the same program under valgrind (registrations, pages gone behind live MRs,
 * sizes and a fresh QP pair), which must report no error; `make check-valgrind` runs it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "e2e_proc.h"

#define RUN_TIMEOUT_S 240
/* valgrind runs the simulated NICs some fifty times slower */
#define VALGRIND_TIMEOUT_S 900
#define VALGRIND_ERROR_STATUS 99

static struct bench b;
static char bindir[1024], tmpdir[2048];

/* hroce0 and hroce1 on a wire of this run only. */
static bool write_config(const char *config, const char *wire)
{
	FILE *f = fopen(config, "w");

	if (!f)
		return false;
	for (int d = 0; d < 2; d++)
		fprintf(f,
			"[hroce%d]\nmac = 02:00:0a:00:00:0%d\nipv4 = 10.0.0.%d\nwire = %s\n"
			"port = %d\n\n",
			d, d + 1, d + 1, wire, d);
	return fclose(f) == 0;
}

/* Passes the program's result lines on; the number of "not ok" among them. */
static unsigned int relay(const char *path, unsigned int *oks)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	unsigned int bad = 0;

	*oks = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "ok ", 3)) {
			(*oks)++;
		} else if (!strncmp(line, "not ok ", 7)) {
			bad++;
		} else if (line[0] != '#') {
			/* the program's and the libraries' own messages, as comments */
			printf("#   %s", line);
			continue;
		}
		fputs(line, stdout);
	}
	fclose(f);
	return bad;
}

static void run(bool valgrind)
{
	char config[PATH_MAX], wire[64], out[PATH_MAX], run_path[PATH_MAX], prog[PATH_MAX];
	char seed[32];
	int status = 0;
	bool timed_out = false;
	unsigned int oks, bad;
	time_t deadline = time(NULL) + (valgrind ? VALGRIND_TIMEOUT_S : RUN_TIMEOUT_S);
	pid_t pid;

	snprintf(config, sizeof(config), "%s/badinput%s.conf", tmpdir, valgrind ? "-vg" : "");
	snprintf(out, sizeof(out), "%s/badinput%s.out", tmpdir, valgrind ? "-vg" : "");
	snprintf(wire, sizeof(wire), "hroce-badinput-%d", (int)getpid());
	snprintf(run_path, sizeof(run_path), "%s/hroce-run", bindir);
	snprintf(prog, sizeof(prog), "%s/badinput_verbs", bindir);
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)b.seed);
	if (!write_config(config, wire)) {
		bench_result(&b, "badinput_config", false, "cannot write %s", config);
		return;
	}
	pid = fork();
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0)
			_exit(126);
		dup2(fd, 1);
		dup2(fd, 2);
		setenv("HROCE_CONFIG", config, 1);
		if (valgrind) {
			char vg_status[32];

			snprintf(vg_status, sizeof(vg_status), "--error-exitcode=%d",
				 VALGRIND_ERROR_STATUS);
			execl(run_path, run_path, "valgrind", "-q", vg_status,
			      "--trace-children=no", prog, "--seed", seed, "--cases",
			      "reg,pages,sizes,fresh", (char *)NULL);
		} else {
			execl(run_path, run_path, prog, "--seed", seed, (char *)NULL);
		}
		_exit(127);
	}
	for (;;) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		if (time(NULL) > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			timed_out = true;
			break;
		}
		usleep(20000);
	}
	shm_unlink(wire); /* wires stay in /dev/shm until removed */
	bad = relay(out, &oks);
	if (timed_out)
		bench_result(&b, valgrind ? "valgrind_in_time" : "badinput_in_time", false,
			     "killed after %d s (a hang); output in %s",
			     valgrind ? VALGRIND_TIMEOUT_S : RUN_TIMEOUT_S, out);
	else if (WIFSIGNALED(status))
		bench_result(&b, valgrind ? "valgrind_no_signal" : "badinput_no_signal", false,
			     "killed by signal %d (%s); output in %s", WTERMSIG(status),
			     strsignal(WTERMSIG(status)), out);
	else if (valgrind)
		bench_result(&b, "valgrind_no_error",
			     WEXITSTATUS(status) != VALGRIND_ERROR_STATUS && !bad && oks,
			     "exit status %d (%d: valgrind found errors), %u failed, %u passed; "
			     "output in %s",
			     WEXITSTATUS(status), VALGRIND_ERROR_STATUS, bad, oks, out);
	else
		bench_result(&b, "badinput_exit", WEXITSTATUS(status) == (bad ? 1 : 0) && oks,
			     "exit status %d with %u failed, %u passed; output in %s",
			     WEXITSTATUS(status), bad, oks, out);
	b.failed += bad;
	b.passed += oks;
}

int main(int argc, char **argv)
{
	bool valgrind = false;
	int n = 0;

	/* --valgrind is this driver's; the rest are the bench's */
	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], "--valgrind"))
			argv[n++] = argv[i];
		else
			valgrind = true;
	bench_init(&b, "test_badinput", n, argv);
	if (!e2e_dirs(bindir, sizeof(bindir), tmpdir, sizeof(tmpdir), NULL))
		return 1;
	run(valgrind);
	return bench_finish(&b);
}
