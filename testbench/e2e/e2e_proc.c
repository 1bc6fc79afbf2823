// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "e2e_proc.h"

#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

pid_t e2e_spawn(const char *bindir, struct e2e_side *s, const char *config)
{
	pid_t pid = fork();

	if (pid == 0) {
		char run[PATH_MAX + 16];
		const char *argv[E2E_MAX_ARGS + 2];
		int fd = open(s->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int n = 0;

		if (fd < 0)
			_exit(126);
		dup2(fd, 1);
		dup2(fd, 2);
		if (*config)
			setenv("HROCE_CONFIG", config, 1);
		else
			unsetenv("HROCE_CONFIG");
		setenv("HROCE_STATS", s->stats, 1);
		snprintf(run, sizeof(run), "%s/hroce-run", bindir);
		argv[n++] = run;
		for (int i = 0; s->argv[i]; i++)
			argv[n++] = s->argv[i];
		argv[n] = NULL;
		execv(run, (char *const *)argv);
		_exit(127);
	}
	s->pid = pid;
	return pid;
}

void e2e_reap(struct e2e_side *s, time_t deadline)
{
	for (;;) {
		pid_t r = waitpid(s->pid, &s->status, WNOHANG);

		if (r == s->pid)
			return;
		if (time(NULL) > deadline) {
			kill(s->pid, SIGKILL);
			waitpid(s->pid, &s->status, 0);
			s->timed_out = true;
			return;
		}
		usleep(20000);
	}
}

char *e2e_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long len;

	if (!f)
		return strdup("");
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = calloc(1, len + 1);
	if (!buf) {
		fclose(f);
		return strdup("");
	}
	if (fread(buf, 1, len, f) != (size_t)len)
		buf[0] = 0;
	fclose(f);
	return buf;
}

long long e2e_stat_of(const char *stats, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = stats; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == ' ')
			return atoll(p + n + 1);
	return -1;
}

void e2e_show_tail(const char *what, const char *path)
{
	char *text = e2e_slurp(path);
	size_t len = strlen(text);
	const char *start = len > 1500 ? text + len - 1500 : text;

	printf("# --- %s (%s), last lines:\n", what, path);
	for (const char *p = start; *p;) {
		const char *nl = strchr(p, '\n');
		int l = nl ? (int)(nl - p) : (int)strlen(p);

		printf("#   %.*s\n", l, p);
		p += l + (nl != NULL);
	}
	free(text);
}

bool e2e_stats_clean(const char *stats, bool lossy, char *why, size_t len)
{
	static const char *const loss_made[] = {
		"core.rx_bad_response",
		"core.rx_out_of_sequence",
		"core.tx_nak",
		"core.rx_nak",
	};
	static const char *const zero[] = {
		"rx.truncated",
		"rx.ip_header",
		"rx.ip_checksum",
		"rx.length",
		"rx.bad_opcode",
		"rx.icrc",
		"rx.runt",
		"rx.giant",
		"rx.mac_error",
		"core.rx_bad_response",
		"core.dma_read_error",
		"core.dma_write_error",
		"core.rx_out_of_sequence",
		"core.tx_nak", /* protection, sequence and RNR NAKs */
		"core.rx_nak",
		"net.arp_malformed",
		"net.arp_failed",
		"net.icmp_malformed",
		"net.nd_malformed",
		"net.nd_failed",
		"iova_faults",
	};

	if (e2e_stat_of(stats, "core.tx_frames") < 0) {
		snprintf(why, len, "no counters written at close");
		return false;
	}
	for (size_t i = 0; i < sizeof(zero) / sizeof(zero[0]); i++) {
		long long v = e2e_stat_of(stats, zero[i]);
		bool allowed = false;

		for (size_t k = 0; lossy && k < sizeof(loss_made) / sizeof(loss_made[0]); k++)
			allowed = allowed || !strcmp(zero[i], loss_made[k]);
		if (v != 0 && !allowed) {
			snprintf(why, len, "%s is %lld", zero[i], v);
			return false;
		}
	}
	return true;
}

bool e2e_dirs(char *bindir, size_t bindir_len, char *tmpdir, size_t tmpdir_len, const char *sub)
{
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len <= 0)
		return false;
	self[len] = 0;
	snprintf(bindir, bindir_len, "%s", dirname(self));
	snprintf(tmpdir, tmpdir_len, "%s/../test-logs", bindir);
	mkdir(tmpdir, 0755);
	if (sub) {
		size_t n = strlen(tmpdir);

		snprintf(tmpdir + n, tmpdir_len - n, "/%s", sub);
		mkdir(tmpdir, 0755);
	}
	return true;
}
