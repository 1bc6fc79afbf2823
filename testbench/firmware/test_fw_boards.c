// SPDX-License-Identifier: MIT
/*
 * Test of the board folders (firmware/boards), as far as a machine without Vivado goes:
 * - every board's top (the board folder's top.v, else the common one) through Verilator
 *   lint -Wall and Icarus, with the shell, the core and the stubs of the vendor IP;
 * - every board's build (firmware/boards/common/build.tcl with its board.tcl) under tclsh
 *   with Vivado's commands recorded (testbench/firmware/vivado_mock.tcl): files that
 *   exist, ports the .xdc names, IPs that have stubs, generics the top has, and the flow
 *   to the bitstream and the flash images;
 * - a build script with a typo in a constraint must fail (the mock can see a mistake);
 * - the shell through Yosys synth_xilinx -family xcup with the core as a black box
 *   (scripts/synth_shell.sh), whose figures are printed.
 * Run from the project's root, after make generated build/gen.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define RTL_INC "-Irtl/lib -Irtl/net -Irtl/mem -Irtl/host -Irtl/transport -Ibuild/gen"
#define RTL_SRC "rtl/*.v rtl/lib/*.v rtl/net/*.v rtl/mem/*.v rtl/host/*.v rtl/transport/*.v"
#define FW_SRC "firmware/rtl/*.v firmware/stubs/*.v"
#define VLT "rtl/hroce.vlt firmware/rtl/firmware.vlt firmware/stubs/stubs.vlt"
#define LOGS "build/test-logs/fw_boards"

static struct bench *B;

/* Runs a shell command, its output in log; returns its exit status. */
static int sh(const char *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int sh(const char *log, const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int n, st;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	snprintf(cmd + n, sizeof(cmd) - (size_t)n, " > %s/%s 2>&1", LOGS, log);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool log_has(const char *log, const char *what)
{
	char path[512], line[1024];
	FILE *f;
	bool found = false;

	snprintf(path, sizeof(path), "%s/%s", LOGS, log);
	f = fopen(path, "r");
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, what) != NULL;
	if (f)
		fclose(f);
	return found;
}

static void print_log_line(const char *log, const char *prefix)
{
	char path[512], line[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", LOGS, log);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, prefix, strlen(prefix)))
			bench_log(B, "%.*s", (int)strcspn(line, "\n"), line);
	if (f)
		fclose(f);
}

static void test_board(const char *board)
{
	char top[256], vlt[256], log[128], name[128];
	struct stat st;
	int rc;

	snprintf(top, sizeof(top), "firmware/boards/%.64s/top.v", board);
	if (stat(top, &st))
		snprintf(top, sizeof(top), "firmware/boards/common/hroce_board_top.v");
	snprintf(vlt, sizeof(vlt), "firmware/boards/common/board.vlt");
	snprintf(log, sizeof(log), "%.64s_lint.log", board);
	rc = sh(log, "verilator --lint-only -Wall %s %s %s --top-module hroce_board_top %s %s %s",
		VLT, vlt, RTL_INC, top, FW_SRC, RTL_SRC);
	snprintf(name, sizeof(name), "board_%.64s_verilator_lint", board);
	bench_result(B, name, rc == 0, "status %d (log: %s/%s)", rc, LOGS, log);
	snprintf(log, sizeof(log), "%.64s_icarus.log", board);
	rc = sh(log,
		"iverilog -g2005 -Wall -Wno-timescale -o /dev/null %s -s hroce_board_top %s %s %s",
		RTL_INC, top, FW_SRC, RTL_SRC);
	snprintf(name, sizeof(name), "board_%.64s_icarus", board);
	bench_result(B, name, rc == 0, "status %d (log: %s/%s)", rc, LOGS, log);

	snprintf(log, sizeof(log), "%.64s_build_tcl.log", board);
	rc = sh(log,
		"tclsh testbench/firmware/vivado_mock.tcl %s firmware/stubs "
		"firmware/boards/common/build.tcl firmware/boards/%s %s/%s_out build/gen 1234abcd "
		"1700000000",
		top, board, LOGS, board);
	snprintf(name, sizeof(name), "board_%.64s_build_tcl", board);
	bench_result(B, name, rc == 0 && log_has(log, "mock: flow complete"),
		     "status %d (log: %s/%s)", rc, LOGS, log);
}

/* A board whose constraints name a port the top does not have: the mock must say so. */
static void test_mock_catches_typo(void)
{
	int rc;

	rc = sh("typo_setup.log",
		"rm -rf %s/typo && mkdir -p %s/typo && "
		"sed 's/qsfp0_lpmode/qsfp0_lpmod/' firmware/boards/u200/u200.xdc > %s/typo/u200.xdc && "
		"cp firmware/boards/u200/board.tcl %s/typo/",
		LOGS, LOGS, LOGS, LOGS);
	rc = rc
		     ?: sh("typo_build_tcl.log",
			   "tclsh testbench/firmware/vivado_mock.tcl "
			   "firmware/boards/common/hroce_board_top.v firmware/stubs "
			   "firmware/boards/common/build.tcl %s/typo %s/typo_out build/gen 1234abcd 1",
			   LOGS, LOGS);
	bench_result(B, "board_mock_catches_typo",
		     rc != 0 && log_has("typo_build_tcl.log", "no port qsfp0_lpmod"),
		     "a constraint on a missing port went through (status %d)", rc);
}

int main(int argc, char **argv)
{
	struct bench b;
	struct dirent *e;
	DIR *d;
	unsigned int boards = 0;
	int rc;

	bench_init(&b, "test_fw_boards", argc, argv);
	B = &b;
	if (access("firmware/boards/common/build.tcl", R_OK) || access("build/gen", R_OK)) {
		fprintf(stderr, "test_fw_boards: run from the project's root after make\n");
		return 1;
	}
	if (system("mkdir -p " LOGS))
		return 1;
	d = opendir("firmware/boards");
	while (d && (e = readdir(d))) {
		char path[300];

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "common"))
			continue;
		snprintf(path, sizeof(path), "firmware/boards/%s/board.tcl", e->d_name);
		if (access(path, R_OK))
			continue;
		test_board(e->d_name);
		boards++;
	}
	if (d)
		closedir(d);
	bench_result(&b, "boards_found", boards > 0, "no board folder with a board.tcl");
	test_mock_catches_typo();

	rc = sh("synth_shell.log", "scripts/synth_shell.sh build/synth/shell");
	bench_result(&b, "shell_yosys_xcup", rc == 0 && log_has("synth_shell.log", " LUT, "),
		     "status %d (log: %s/synth_shell.log)", rc, LOGS);
	print_log_line("synth_shell.log", "hroce_shell");
	return bench_finish(&b);
}
