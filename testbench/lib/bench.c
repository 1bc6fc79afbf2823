// SPDX-License-Identifier: MIT
#include "bench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [--seed N] [--trace FILE.fst] [--quick]\n", argv0);
	exit(2);
}

/*
 * A run replays from its seed only if its buffers lie at the same addresses: they decide
 * where a transfer crosses an MR's pages, so the simulated timing, so the random choices
 * the test makes as it polls. The program runs itself again, once, with address-space
 * randomisation off; where that is refused (a sandbox's seccomp), it goes on as it is.
 */
void bench_same_addresses(char **argv)
{
	int p = personality(0xffffffff);

	if (p == -1 || (p & ADDR_NO_RANDOMIZE) || getenv("HROCE_RANDOM_ADDRESSES"))
		return;
	if (personality((unsigned long)p | ADDR_NO_RANDOMIZE) == -1)
		return;
	fflush(NULL);
	execv("/proc/self/exe", argv);
	personality((unsigned long)p); /* exec failed: on as it is */
}

void bench_init(struct bench *b, const char *name, int argc, char **argv)
{
	bench_same_addresses(argv);
	memset(b, 0, sizeof(*b));
	b->name = name;
	b->argv0 = argv[0];
	b->seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 20);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			b->seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--trace") && i + 1 < argc)
			b->trace_path = argv[++i];
		else if (!strcmp(argv[i], "--quick"))
			b->quick = true;
		else
			usage(argv[0]);
	}
	if (getenv("HROCE_SEED"))
		b->seed = strtoull(getenv("HROCE_SEED"), NULL, 0);
	if (!b->trace_path)
		b->trace_path = getenv("HROCE_TRACE");
	if (getenv("HROCE_QUICK"))
		b->quick = true;
	bench_seed(b, b->seed);
	printf("# %s: seed %llu\n", name, (unsigned long long)b->seed);
}

void bench_seed(struct bench *b, uint64_t seed)
{
	b->seed = seed;
	b->rng = seed ? seed : 1;
}

bool bench_result(struct bench *b, const char *test, bool ok, const char *fmt, ...)
{
	if (ok) {
		b->passed++;
		printf("ok %s\n", test);
	} else {
		va_list ap;

		b->failed++;
		printf("not ok %s: ", test);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf(" (replay: %s --seed %llu)\n", b->argv0, (unsigned long long)b->seed);
	}
	fflush(stdout);
	return ok;
}

void bench_log(struct bench *b, const char *fmt, ...)
{
	va_list ap;

	printf("# %s: ", b->name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

int bench_finish(struct bench *b)
{
	printf("# %s: %u passed, %u failed (seed %llu)\n", b->name, b->passed, b->failed,
	       (unsigned long long)b->seed);
	return b->failed ? 1 : 0;
}

uint64_t bench_rand(struct bench *b)
{
	/* xorshift64*: small, fast and good enough for stimulus */
	b->rng ^= b->rng >> 12;
	b->rng ^= b->rng << 25;
	b->rng ^= b->rng >> 27;
	return b->rng * UINT64_C(2685821657736338717);
}

uint64_t bench_range(struct bench *b, uint64_t lo, uint64_t hi)
{
	/* the whole 64-bit range has no span that fits: every value is in it */
	if (hi - lo + 1 == 0)
		return bench_rand(b);
	return lo + bench_rand(b) % (hi - lo + 1);
}

bool bench_chance(struct bench *b, unsigned int pct)
{
	return pct && bench_rand(b) % 100 < pct;
}

void bench_fill(struct bench *b, void *buf, size_t len)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(bench_rand(b) >> 32);
}

void bench_ring_init(struct bench_ring *r, size_t size, unsigned int cap)
{
	r->item = calloc(cap, size);
	if (!r->item) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	r->size = size;
	r->cap = cap;
	r->head = r->n = 0;
}

void bench_ring_free(struct bench_ring *r)
{
	free(r->item);
	r->item = NULL;
}

void *bench_ring_add(struct bench_ring *r)
{
	if (r->n == r->cap)
		return NULL;
	void *p = (char *)r->item + (size_t)((r->head + r->n++) % r->cap) * r->size;

	memset(p, 0, r->size);
	return p;
}

void *bench_ring_add_or_fail(struct bench_ring *r, char *err, size_t size, const char *what)
{
	void *p = bench_ring_add(r);

	if (!p)
		bench_first_error(err, size, "bench FIFO of %s overflows (%u entries)", what,
				  r->cap);
	return p;
}

void *bench_ring_at(const struct bench_ring *r, unsigned int i)
{
	return i < r->n ? (char *)r->item + (size_t)((r->head + i) % r->cap) * r->size : NULL;
}

void bench_ring_pop(struct bench_ring *r)
{
	r->head = (r->head + 1) % r->cap;
	r->n--;
}

void bench_random_mac(struct bench *b, uint8_t mac[6])
{
	bench_fill(b, mac, 6);
	mac[0] = (uint8_t)((mac[0] & 0xfe) | 0x02);
}

uint64_t bench_mac_value(const uint8_t mac[6])
{
	uint64_t v = 0;

	for (int i = 0; i < 6; i++)
		v = v << 8 | mac[i];
	return v;
}

void bench_first_error(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (err[0])
		return;
	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
}

void dut_open(struct dut *d, struct bench *b, const struct vmodel_ops *ops)
{
	int err;

	memset(d, 0, sizeof(*d));
	d->bench = b;
	err = vmodel_open(&d->vm, ops);
	if (err) {
		fprintf(stderr, "%s: cannot create model %s: %s\n", b->name, ops->name,
			strerror(err));
		exit(1);
	}
	d->clk = dut_port(d, "clk");
	d->rst = dut_port_opt(d, "rst");
	if (b->trace_path) {
		if (!ops->has_trace) {
			fprintf(stderr,
				"%s: %s was built without tracing; rebuild with 'make TRACE=1' "
				"and run the bench from build/trace/\n",
				b->name, ops->name);
			exit(1);
		}
		/* one file per model opened: FILE.fst, then FILE-2.fst, FILE-3.fst, ... */
		char path[512];
		const char *dot = strrchr(b->trace_path, '.');
		int stem = dot ? (int)(dot - b->trace_path) : (int)strlen(b->trace_path);

		if (++b->traces == 1)
			snprintf(path, sizeof(path), "%s", b->trace_path);
		else
			snprintf(path, sizeof(path), "%.*s-%u%s", stem, b->trace_path, b->traces,
				 dot ? dot : "");
		err = ops->trace_open(d->vm.model, path);
		if (err) {
			fprintf(stderr, "%s: cannot open trace %s: %s\n", b->name, path,
				strerror(err));
			exit(1);
		}
		bench_log(b, "tracing %s (cycle %llu) into %s", ops->name,
			  (unsigned long long)d->cycle, path);
		d->vm.tracing = true;
	}
}

void dut_close(struct dut *d)
{
	vmodel_close(&d->vm);
}

const struct vmodel_port *dut_port_opt(struct dut *d, const char *name)
{
	return vmodel_port(&d->vm, name);
}

const struct vmodel_port *dut_port(struct dut *d, const char *name)
{
	const struct vmodel_port *p = vmodel_port(&d->vm, name);

	if (!p) {
		fprintf(stderr, "%s: model %s has no port %s\n", d->bench->name, d->vm.ops->name,
			name);
		exit(1);
	}
	return p;
}

void dut_ports(struct dut *d, void *env, const struct dut_port_ref *refs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		*(const struct vmodel_port **)((char *)env + refs[i].off) =
			dut_port(d, refs[i].name);
}

void dut_add_agent(struct dut *d, void (*drive)(void *), void (*sample)(void *), void *ctx)
{
	if (d->nagents == DUT_MAX_AGENTS) {
		fprintf(stderr, "%s: too many agents\n", d->bench->name);
		exit(1);
	}
	d->agents[d->nagents++] = (struct dut_agent){ drive, sample, ctx };
}

void dut_step(struct dut *d)
{
	unsigned int i;

	vport_set(d->clk, 0);
	for (i = 0; i < d->nagents; i++)
		if (d->agents[i].drive)
			d->agents[i].drive(d->agents[i].ctx);
	d->vm.ops->eval(d->vm.model);
	for (i = 0; i < d->nagents; i++)
		if (d->agents[i].sample)
			d->agents[i].sample(d->agents[i].ctx);
	if (d->vm.tracing)
		d->vm.ops->trace_dump(d->vm.model, 2 * d->cycle);
	vport_set(d->clk, 1);
	d->vm.ops->eval(d->vm.model);
	if (d->vm.tracing)
		d->vm.ops->trace_dump(d->vm.model, 2 * d->cycle + 1);
	d->cycle++;
}

void dut_reset(struct dut *d, unsigned int cycles)
{
	if (d->rst)
		vport_set(d->rst, 1);
	for (unsigned int i = 0; i < cycles; i++)
		dut_step(d);
	if (d->rst)
		vport_set(d->rst, 0);
}

bool dut_run(struct dut *d, unsigned int settle, unsigned int hang)
{
	uint64_t quiet = 0, last = d->transfers;

	for (;;) {
		dut_step(d);
		quiet = d->transfers != last ? 0 : quiet + 1;
		last = d->transfers;
		if (!d->pending && quiet >= settle)
			return true;
		if (quiet > hang)
			return false;
	}
}

int bench_run_cmd(const char *cmd, const char *want, char *line, size_t size)
{
	char buf[512];
	FILE *p = popen(cmd, "r");
	int status;

	line[0] = 0;
	if (!p)
		return -1;
	while (fgets(buf, sizeof(buf), p))
		if (want && strstr(buf, want))
			snprintf(line, size, "%s", buf);
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
