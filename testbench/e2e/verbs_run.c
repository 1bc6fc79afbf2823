// SPDX-License-Identifier: MIT
/*
 * Runs a verbs test program of build/bin (VERBS_PROG, set at build time) under hroce-run,
 * with two simulated NICs of a configuration of its own on a wire of its own, and relays
 * its "ok" / "not ok" lines. The program must exit within RUN_TIMEOUT_S, with status 0
 * exactly when it reported no failure; the wire is removed from /dev/shm afterwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef VERBS_PROG
#error "VERBS_PROG names the verbs program to run"
#endif

#define RUN_TIMEOUT_S 120

static pid_t child;

/* a hung program is killed: its output closes and the relay below ends */
static void on_alarm(int sig)
{
	(void)sig;
	kill(child, SIGKILL);
}

int main(void)
{
	char self[PATH_MAX], bindir[PATH_MAX], logdir[PATH_MAX + 32], config[PATH_MAX + 64];
	char run[PATH_MAX + 16], prog[PATH_MAX + 64], wire[64], line[1024];
	unsigned int ok = 0, bad = 0;
	time_t deadline;
	int pipefd[2], status = 0;
	bool timed_out = false;
	ssize_t len;
	FILE *f;
	pid_t pid;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return 1;
	self[len] = 0;
	snprintf(bindir, sizeof(bindir), "%s", dirname(self));
	snprintf(logdir, sizeof(logdir), "%s/../test-logs", bindir);
	mkdir(logdir, 0755);
	snprintf(config, sizeof(config), "%s/%s.conf", logdir, VERBS_PROG);
	snprintf(wire, sizeof(wire), "hroce-%s-%d", VERBS_PROG, (int)getpid());
	f = fopen(config, "w");
	if (!f) {
		printf("not ok %s: cannot write %s: %s\n", VERBS_PROG, config, strerror(errno));
		return 1;
	}
	for (int d = 0; d < 2; d++)
		fprintf(f,
			"[hroce%d]\nmac = 02:00:0a:00:00:0%d\nipv4 = 10.0.0.%d\nwire = %s\n"
			"port = %d\n\n",
			d, d + 1, d + 1, wire, d);
	fclose(f);
	snprintf(run, sizeof(run), "%s/hroce-run", bindir);
	snprintf(prog, sizeof(prog), "%s/%s", bindir, VERBS_PROG);
	if (pipe(pipefd))
		return 1;
	fflush(stdout);
	pid = fork();
	child = pid;
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		setenv("HROCE_CONFIG", config, 1);
		execl(run, run, prog, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	deadline = time(NULL) + RUN_TIMEOUT_S;
	f = fdopen(pipefd[0], "r");
	/* the child's stdout closes when it exits; a hung child is killed at the deadline */
	signal(SIGALRM, on_alarm);
	alarm(RUN_TIMEOUT_S);
	while (f && fgets(line, sizeof(line), f)) {
		fputs(line, stdout);
		if (!strncmp(line, "ok ", 3))
			ok++;
		else if (!strncmp(line, "not ok ", 7))
			bad++;
		if (time(NULL) > deadline)
			break;
	}
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (time(NULL) > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			timed_out = true;
			break;
		}
		usleep(20000);
	}
	if (f)
		fclose(f);
	shm_unlink(wire);
	if (timed_out)
		printf("not ok %s: did not finish in %d s\n", VERBS_PROG, RUN_TIMEOUT_S);
	else if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0) != (bad != 0))
		printf("not ok %s: exit status %d with %u failures reported\n", VERBS_PROG, status,
		       bad);
	else if (!ok && !bad)
		printf("not ok %s: it reported nothing\n", VERBS_PROG);
	else
		printf("ok %s: %u checks passed\n", VERBS_PROG, ok);
	return timed_out || bad || !WIFEXITED(status) || WEXITSTATUS(status) ? 1 : 0;
}
