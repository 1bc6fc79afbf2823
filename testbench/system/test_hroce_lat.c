// SPDX-License-Identifier: MIT
/*
 * hroce-lat, run as a user runs it (build/bin/hroce-lat):
 *
 * - sweep: WRITE one way over two PCIe latencies: a point a value in points.csv, a row a
 *   message in samples.csv, each point's stages adding up to its mean, the latency growing
 *   with PCIe's, and the plots there: PNG files that are PNG images and SVG files that are
 *   SVG, none empty.
 * - reproducible: the same run again gives the same points.csv and samples.csv, byte for
 *   byte (one process: the simulated times do not depend on the machine's).
 * - scenarios: a SEND over several packets, a READ and a SEND ping-pong, over two QPs.
 * - a file of parameters (-f), with comments and spaces.
 * - bad input: an unknown scenario or parameter, a value that is not a number, two swept
 *   parameters: exit status 2 and a message, nothing run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define LAT "%s/hroce-lat"
#define ARRAY_LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

static char dir[64];
static char bin[256]; /* the directory of this program, and of hroce-lat */

/* The whole of a file of the run's directory into buf (NUL-terminated); its length or -1. */
static long slurp(const char *d, const char *name, char *buf, size_t size)
{
	char path[256];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", d, name);
	f = fopen(path, "rb");
	if (!f)
		return -1;
	n = fread(buf, 1, size - 1, f);
	buf[n] = 0;
	fclose(f);
	return (long)n;
}

/* points.csv's data rows: the swept value, the median and mean, the steps' sum. */
struct row {
	double x, median, mean, steps;
};

static int rows_of(const char *csv, struct row *r, int max)
{
	const char *line = strchr(csv, '\n');
	int n = 0;

	while (line && line[1] && n < max) {
		char *p;

		line++;
		p = strchr(line, ',') + 1; /* past the parameter's name */
		r[n].x = strtod(p, &p);
		strtod(p + 1, &p); /* messages */
		strtod(p + 1, &p); /* min */
		r[n].median = strtod(p + 1, &p);
		strtod(p + 1, &p); /* p99 */
		strtod(p + 1, &p); /* max */
		r[n].mean = strtod(p + 1, &p);
		r[n].steps = 0;
		while (*p == ',')
			r[n].steps += strtod(p + 1, &p);
		n++;
		line = strchr(line, '\n');
	}
	return n;
}

static void test_sweep(struct bench *b)
{
	static char csv[1 << 16], again[1 << 16], img[1 << 20];
	char cmd[1024], line[256], err[256] = "";
	char dir2[80];
	struct row r[4];
	int n = 0, st;
	bool ok;

	snprintf(cmd, sizeof(cmd), LAT " -o %s -n 5 write pcie_ns=100,300 2>&1", bin, dir);
	st = bench_run_cmd(cmd, "plots:", line, sizeof(line));
	ok = st == 0 && line[0];
	if (!ok)
		snprintf(err, sizeof(err), "exit %d, no plots line", st);
	if (ok &&
	    (slurp(dir, "points.csv", csv, sizeof(csv)) < 0 || (n = rows_of(csv, r, 4)) != 2)) {
		snprintf(err, sizeof(err), "points.csv: %d rows, want 2", n);
		ok = false;
	}
	for (int i = 0; i < n && ok; i++)
		if (r[i].x != (i ? 300 : 100) || r[i].steps < r[i].mean - 1 ||
		    r[i].steps > r[i].mean + 1) {
			snprintf(err, sizeof(err), "point %g: stages sum to %.1f, mean %.1f",
				 r[i].x, r[i].steps, r[i].mean);
			ok = false;
		}
	if (ok && !(r[1].median > r[0].median)) {
		snprintf(err, sizeof(err), "median %.1f at 300 ns of PCIe, %.1f at 100",
			 r[1].median, r[0].median);
		ok = false;
	}
	if (ok && slurp(dir, "samples.csv", again, sizeof(again)) < 0) {
		snprintf(err, sizeof(err), "no samples.csv");
		ok = false;
	}
	if (ok) {
		int lines = 0;

		for (const char *p = again; *p; p++)
			lines += *p == '\n';
		if (lines != 1 + 2 * 5) {
			snprintf(err, sizeof(err), "samples.csv: %d lines, want 11", lines);
			ok = false;
		}
	}
	bench_result(b, "sweep", ok, "%s", err);

	ok = true;
	err[0] = 0;
	for (int i = 0; i < 3 && ok; i++) {
		static const char *const names[3] = { "latency", "stages", "cdf" };
		char name[32];
		long len;

		snprintf(name, sizeof(name), "%s.png", names[i]);
		len = slurp(dir, name, img, sizeof(img));
		if (len < 1000 || memcmp(img, "\x89PNG\r\n\x1a\n", 8)) {
			snprintf(err, sizeof(err), "%s: %ld bytes, not a PNG image", name, len);
			ok = false;
			break;
		}
		snprintf(name, sizeof(name), "%s.svg", names[i]);
		len = slurp(dir, name, img, sizeof(img));
		if (len < 1000 || !strstr(img, "<svg")) {
			snprintf(err, sizeof(err), "%s: %ld bytes, not an SVG image", name, len);
			ok = false;
		}
	}
	bench_result(b, "plots", ok, "%s", err);

	/* the same run again, into another directory, without plots */
	snprintf(dir2, sizeof(dir2), "%s/again", dir);
	snprintf(cmd, sizeof(cmd), LAT " -o %s -n 5 --no-plot write pcie_ns=100,300 2>&1", bin,
		 dir2);
	st = bench_run_cmd(cmd, NULL, line, sizeof(line));
	ok = st == 0 && slurp(dir2, "points.csv", again, sizeof(again)) >= 0 && !strcmp(csv, again);
	if (ok) {
		static char s1[1 << 16];

		ok = slurp(dir, "samples.csv", s1, sizeof(s1)) >= 0 &&
		     slurp(dir2, "samples.csv", again, sizeof(again)) >= 0 && !strcmp(s1, again);
	}
	bench_result(b, "reproducible", ok, "exit %d, or the second run's CSV differ", st);
}

static void test_scenarios(struct bench *b)
{
	static const char *const runs[3] = { "send size=3000 mtu=1024 qps=2",
					     "read size=5000 mtu=2048 qps=2",
					     "pingpong size=2000 mtu=1024 qps=2" };
	static const char *const names[3] = { "send", "read", "pingpong" };

	for (int i = 0; i < 3; i++) {
		static char csv[1 << 14];
		char cmd[1024], line[256];
		struct row r[2];
		int st, n = 0;
		bool ok;

		snprintf(cmd, sizeof(cmd), LAT " -o %s/s%d -n 4 --no-plot %s 2>&1", bin, dir, i,
			 runs[i]);
		st = bench_run_cmd(cmd, NULL, line, sizeof(line));
		snprintf(cmd, sizeof(cmd), "%s/s%d", dir, i);
		ok = st == 0 && slurp(cmd, "points.csv", csv, sizeof(csv)) > 0 &&
		     (n = rows_of(csv, r, 2)) == 1 && r[0].steps > r[0].mean - 1 &&
		     r[0].steps < r[0].mean + 1;
		bench_result(b, names[i], ok, "%s: exit %d, %d rows", runs[i], st, n);
	}
}

/*
 * The perftest scenario: ib_send_lat between two processes in lockstep, a sweep of two
 * sizes run twice; the same CSVs both times, and the stages adding up to each point.
 */
static void test_perftest(struct bench *b)
{
	static char csv[2][1 << 14], samples[2][1 << 16];
	char cmd[1024], line[256], out[2][96];
	struct row r[2] = { { 0 } };
	int st = 0, n = 0;
	bool ok = true;

	for (int k = 0; k < 2 && ok; k++) {
		snprintf(out[k], sizeof(out[k]), "%s/perftest%d", dir, k);
		snprintf(cmd, sizeof(cmd), LAT " -o %s -n 5 --no-plot perftest size=8,64 2>&1", bin,
			 out[k]);
		st = bench_run_cmd(cmd, NULL, line, sizeof(line));
		ok = st == 0 && slurp(out[k], "points.csv", csv[k], sizeof(csv[k])) > 0 &&
		     slurp(out[k], "samples.csv", samples[k], sizeof(samples[k])) > 0;
	}
	if (ok)
		n = rows_of(csv[0], r, 2);
	for (int i = 0; i < n; i++)
		ok = ok && r[i].mean > 0 && r[i].steps > r[i].mean - 1 &&
		     r[i].steps < r[i].mean + 1;
	bench_result(b, "perftest",
		     ok && n == 2 && !strcmp(csv[0], csv[1]) && !strcmp(samples[0], samples[1]),
		     "exit %d (%s), %d rows, or the second run's CSV differ", st, line, n);
}

/* The parameters from a file: comments, spaces around '=' and after commas. */
static void test_file(struct bench *b)
{
	static char csv[1 << 14];
	char cmd[1024], line[256], path[96], out[96];
	struct row r[4] = { { 0 } };
	FILE *f;
	int st = -1, n = 0;

	snprintf(path, sizeof(path), "%s/study.conf", dir);
	snprintf(out, sizeof(out), "%s/file", dir);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "# an 8-byte and a 64-byte WRITE\nsize = 8, 64\n\tmtu=1024   # MTU\n");
		fclose(f);
		snprintf(cmd, sizeof(cmd), LAT " -o %s -n 3 --no-plot -f %s write 2>&1", bin, out,
			 path);
		st = bench_run_cmd(cmd, NULL, line, sizeof(line));
	}
	if (st == 0 && slurp(out, "points.csv", csv, sizeof(csv)) > 0)
		n = rows_of(csv, r, 4);
	bench_result(b, "file", n == 2 && r[0].x == 8 && r[1].x == 64, "exit %d, %d rows", st, n);
}

static void test_bad_input(struct bench *b)
{
	static const struct {
		const char *args, *want;
	} cases[] = {
		{ "nosuch", "no scenario" },
		{ "write colour=5", "not NAME=VALUE" },
		{ "write mtu=big", "not a number" },
		{ "write pcie_ns=100,200 size=8,64", "sweep one parameter at a time" },
	};

	for (int i = 0; i < ARRAY_LEN(cases); i++) {
		char cmd[1024], line[256], bad[96];
		int st;

		snprintf(bad, sizeof(bad), "%s/bad", dir);
		snprintf(cmd, sizeof(cmd), LAT " -o %s %s 2>&1", bin, bad, cases[i].args);
		st = bench_run_cmd(cmd, cases[i].want, line, sizeof(line));
		bench_result(b, "bad_input", st == 2 && line[0] && access(bad, F_OK) != 0,
			     "hroce-lat %s: exit %d, message \"%s\"", cases[i].args, st, line);
	}
}

int main(int argc, char **argv)
{
	struct bench b;
	char cmd[128];

	bench_init(&b, "test_hroce_lat", argc, argv);
	snprintf(bin, sizeof(bin), "%s", argv[0]);
	if (strrchr(bin, '/'))
		*strrchr(bin, '/') = 0;
	else
		snprintf(bin, sizeof(bin), ".");
	snprintf(dir, sizeof(dir), "/tmp/hroce-lat-test-%d", (int)getpid());
	test_sweep(&b);
	test_scenarios(&b);
	test_file(&b);
	test_perftest(&b);
	test_bad_input(&b);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		bench_log(&b, "could not remove %s", dir);
	return bench_finish(&b);
}
