/* SPDX-License-Identifier: MIT */
/*
 * The bench library: options, seeded randomness, results, and a clocked device under test
 * with agents (stream drivers and monitors) that run every cycle.
 *
 * Every bench takes --seed N (replay), --trace FILE.fst (models built with TRACE=1) and
 * --quick (fewer iterations). Results are printed as "ok NAME" / "not ok NAME: why";
 * the test runner counts them.
 */
#ifndef HROCE_BENCH_H
#define HROCE_BENCH_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmodel.h"

struct bench {
	const char *name;
	const char *argv0;
	uint64_t seed;
	uint64_t rng;
	const char *trace_path;
	bool quick;
	unsigned int traces; /* models traced so far */
	unsigned int passed, failed;
};

/*
 * Runs the program again, once, with address-space randomisation off, so that its buffers
 * lie at the same addresses run after run (bench_init does it first).
 */
void bench_same_addresses(char **argv);
/* Parses the common options; exits with a usage message on a bad one. */
void bench_init(struct bench *b, const char *name, int argc, char **argv);
/* Starts the bench's randomness again from seed (which the replay line then names). */
void bench_seed(struct bench *b, uint64_t seed);
/* Prints "ok NAME" or "not ok NAME: why (replay: ...)" and counts it; returns ok. */
bool bench_result(struct bench *b, const char *test, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Prints a closing line and returns the process exit status. */
int bench_finish(struct bench *b);
void bench_log(struct bench *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Runs a shell command; returns its exit status (-1 if it did not exit) and, in line, the
 * last line of its output that contains want (empty if none, or want is NULL).
 */
int bench_run_cmd(const char *cmd, const char *want, char *line, size_t size);

uint64_t bench_rand(struct bench *b);
/* Uniform in [lo, hi]. */
uint64_t bench_range(struct bench *b, uint64_t lo, uint64_t hi);
/* True with a probability of pct percent. */
bool bench_chance(struct bench *b, unsigned int pct);
void bench_fill(struct bench *b, void *buf, size_t len);
/* A random locally administered station MAC (not a group), and a MAC as a 48-bit port. */
void bench_random_mac(struct bench *b, uint8_t mac[6]);
uint64_t bench_mac_value(const uint8_t mac[6]);
/* Keeps the first of many failures: formats into err (size bytes) only if it is empty. */
void bench_first_error(char *err, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * A FIFO of fixed-size items in a ring, for a bench's expected outputs: add returns a new
 * zeroed item at the tail, or NULL when the ring is full; at(i) is the i-th from the head.
 */
struct bench_ring {
	void *item;
	size_t size;
	unsigned int head, n, cap;
};

/* Exits on want of memory. */
void bench_ring_init(struct bench_ring *r, size_t size, unsigned int cap);
void bench_ring_free(struct bench_ring *r);
void *bench_ring_add(struct bench_ring *r);
/* bench_ring_add, and a full ring fails the run (the first error in err) naming what it holds */
void *bench_ring_add_or_fail(struct bench_ring *r, char *err, size_t size, const char *what);
void *bench_ring_at(const struct bench_ring *r, unsigned int i);
void bench_ring_pop(struct bench_ring *r);

struct dut_agent {
	void (*drive)(void *ctx);  /* set inputs for the coming clock edge */
	void (*sample)(void *ctx); /* read outputs just before the edge */
	void *ctx;
};

#define DUT_MAX_AGENTS 16

/* A clocked Verilated model with its agents. */
struct dut {
	struct bench *bench;
	struct vmodel vm;
	const struct vmodel_port *clk, *rst;
	uint64_t cycle;
	struct dut_agent agents[DUT_MAX_AGENTS];
	unsigned int nagents;
	uint64_t transfers; /* beats the agents moved, all streams together */
	uint64_t pending;   /* frames the agents still have to send */
};

/* Opens the model and its trace if the bench asked for one; exits on failure. */
void dut_open(struct dut *d, struct bench *b, const struct vmodel_ops *ops);
void dut_close(struct dut *d);
/* The port, or exit with a message naming it. */
const struct vmodel_port *dut_port(struct dut *d, const char *name);
/* The port if the model has it, else NULL. */
const struct vmodel_port *dut_port_opt(struct dut *d, const char *name);
/*
 * A bench's table of the ports it keeps: the offset of each pointer in its environment
 * (DUT_PORT(struct env, field, "name")) and the port's name.
 */
struct dut_port_ref {
	size_t off;
	const char *name;
};
#define DUT_PORT(type, field, name)         \
	{                                   \
		offsetof(type, field), name \
	}
/* Finds every port of the table (or exits naming the one missing) and stores it in env. */
void dut_ports(struct dut *d, void *env, const struct dut_port_ref *refs, size_t n);
void dut_add_agent(struct dut *d, void (*drive)(void *), void (*sample)(void *), void *ctx);
/* One clock cycle: agents drive, model settles, agents sample, rising edge. */
void dut_step(struct dut *d);
void dut_reset(struct dut *d, unsigned int cycles);
/*
 * Steps until the agents have sent everything and no beat has moved for settle cycles:
 * true. False if no beat moved for hang cycles while frames were still to be sent.
 */
bool dut_run(struct dut *d, unsigned int settle, unsigned int hang);

#endif /* HROCE_BENCH_H */
