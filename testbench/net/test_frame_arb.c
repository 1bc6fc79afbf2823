// SPDX-License-Identifier: MIT
/*
 * Bench of axis_frame_arb, the frame arbiter in front of the core's link (five sources,
 * as the core has it: RoCE, ARP, ICMP, ND, ICMPv6), at 64 and 512 bits.
 *
 * Each source sends random frames (1 byte to 4 KiB, a few with tuser on a beat) with idle
 * cycles, also inside frames; the output is held back at random. Every frame must come
 * out whole and unmixed, each source's in its order, tuser with it; with every source
 * always offering, the grants must go round (0, 1, 2, 3, 4, 0, ...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axis.h"
#include "bench.h"

extern const struct vmodel_ops vmodel_Vaxis_frame_arb_w64, vmodel_Vaxis_frame_arb_w512;

#define SOURCES 5
#define MAX_LEN 4096
#define HANG_CYCLES 20000

struct src_frame {
	uint8_t *data;
	size_t len;
	int err_beat;
};

struct source {
	struct src_frame *q;
	size_t n, head, offset;
	unsigned int beat;
	bool offering;
};

struct arb_env {
	struct bench *b;
	struct dut dut;
	struct axis_sink out;
	const struct vmodel_port *tdata, *tkeep, *tvalid, *tready, *tlast, *tuser;
	unsigned int bytes, idle_pct;
	struct source src[SOURCES];
	size_t matched[SOURCES]; /* frames of each source seen at the output */
	uint8_t *data;		 /* all sources' tdata, as the port holds it */
};

static void drive(void *ctx)
{
	struct arb_env *e = ctx;
	uint64_t keep[SOURCES] = { 0 };
	unsigned int valid = 0, last = 0, user = 0;

	for (int i = 0; i < SOURCES; i++) {
		struct source *s = &e->src[i];
		struct src_frame *f = s->head < s->n ? &s->q[s->head] : NULL;
		size_t n;

		/* an offered beat stays offered; idle cycles come before and inside frames */
		if (!f || (!s->offering && bench_chance(e->b, e->idle_pct)))
			continue;
		n = f->len - s->offset < e->bytes ? f->len - s->offset : e->bytes;
		memset(e->data + i * e->bytes, 0, e->bytes);
		memcpy(e->data + i * e->bytes, f->data + s->offset, n);
		keep[i] = n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
		valid |= 1u << i;
		last |= (unsigned int)(s->offset + n >= f->len) << i;
		user |= (unsigned int)(f->err_beat >= 0 && (unsigned int)f->err_beat == s->beat)
			<< i;
		s->offering = true;
	}
	vport_write(e->tdata, e->data, SOURCES * e->bytes);
	if (e->bytes == 64) {
		vport_write(e->tkeep, keep, sizeof(keep));
	} else {
		uint64_t k = 0;

		for (int i = 0; i < SOURCES; i++)
			k |= keep[i] << (i * e->bytes);
		vport_set(e->tkeep, k);
	}
	vport_set(e->tvalid, valid);
	vport_set(e->tlast, last);
	vport_set(e->tuser, user);
}

static void sample(void *ctx)
{
	struct arb_env *e = ctx;
	uint64_t valid = vport_get(e->tvalid), ready = vport_get(e->tready);

	for (int i = 0; i < SOURCES; i++) {
		struct source *s = &e->src[i];

		if (!(valid >> i & 1) || !(ready >> i & 1))
			continue;
		s->offering = false;
		e->dut.transfers++;
		s->offset += e->bytes;
		s->beat++;
		if (s->offset >= s->q[s->head].len) {
			s->head++;
			s->offset = 0;
			s->beat = 0;
			e->dut.pending--;
		}
	}
}

static void env_open(struct arb_env *e, struct bench *b, const struct vmodel_ops *ops,
		     unsigned int idle_pct, unsigned int busy_pct)
{
	memset(e, 0, sizeof(*e));
	e->b = b;
	e->idle_pct = idle_pct;
	dut_open(&e->dut, b, ops);
	e->tdata = dut_port(&e->dut, "s_axis_tdata");
	e->tkeep = dut_port(&e->dut, "s_axis_tkeep");
	e->tvalid = dut_port(&e->dut, "s_axis_tvalid");
	e->tready = dut_port(&e->dut, "s_axis_tready");
	e->tlast = dut_port(&e->dut, "s_axis_tlast");
	e->tuser = dut_port(&e->dut, "s_axis_tuser");
	e->bytes = e->tdata->width / 8 / SOURCES;
	e->data = calloc(SOURCES, e->bytes);
	dut_add_agent(&e->dut, drive, sample, e);
	axis_sink_init(&e->out, &e->dut, "m_axis", busy_pct);
	dut_reset(&e->dut, 4);
}

static void env_close(struct arb_env *e)
{
	for (int i = 0; i < SOURCES; i++) {
		for (size_t k = 0; k < e->src[i].n; k++)
			free(e->src[i].q[k].data);
		free(e->src[i].q);
	}
	free(e->data);
	axis_sink_free(&e->out);
	dut_close(&e->dut);
}

/* A frame of len bytes that names its source and number in its first bytes. */
static void push(struct arb_env *e, int i, size_t len)
{
	struct source *s = &e->src[i];
	struct src_frame *f;

	s->q = realloc(s->q, (s->n + 1) * sizeof(*s->q));
	if (!s->q) {
		perror("realloc");
		exit(1);
	}
	f = &s->q[s->n];
	f->len = len;
	f->data = malloc(len);
	bench_fill(e->b, f->data, len);
	f->data[0] = (uint8_t)i;
	if (len >= 5)
		memcpy(f->data + 1, &s->n, 4);
	f->err_beat = bench_chance(e->b, 10) ? (int)bench_range(e->b, 0, (len - 1) / e->bytes) : -1;
	s->n++;
	e->dut.pending++;
}

/* Which source an output frame is, if it is the next one of that source; -1 if none. */
static int match(struct arb_env *e, const struct axis_frame *f)
{
	for (int i = 0; i < SOURCES; i++) {
		struct source *s = &e->src[i];
		struct src_frame *x;

		if (e->matched[i] == s->n)
			continue;
		x = &s->q[e->matched[i]];
		if (f->len == x->len && !memcmp(f->data, x->data, f->len) &&
		    !!f->user == (x->err_beat >= 0)) {
			e->matched[i]++;
			return i;
		}
	}
	return -1;
}

static void run(struct arb_env *e, const char *name, bool round_robin)
{
	struct axis_frame f;
	size_t frames = 0;
	int prev = -1;
	char why[200] = "";

	if (!dut_run(&e->dut, 50, HANG_CYCLES))
		snprintf(why, sizeof(why), "hang");
	while (!why[0] && axis_sink_pop(&e->out, &f)) {
		int i = match(e, &f);

		if (i < 0)
			snprintf(why, sizeof(why),
				 "output frame %zu (%zu bytes) is no source's next", frames, f.len);
		else if (round_robin && prev >= 0 && i != (prev + 1) % SOURCES &&
			 e->matched[(prev + 1) % SOURCES] < e->src[(prev + 1) % SOURCES].n)
			snprintf(why, sizeof(why), "frame %zu from source %d after source %d",
				 frames, i, prev);
		prev = i;
		frames++;
		free(f.data);
	}
	for (int i = 0; !why[0] && i < SOURCES; i++)
		if (e->matched[i] != e->src[i].n)
			snprintf(why, sizeof(why), "source %d: %zu of %zu frames came out", i,
				 e->matched[i], e->src[i].n);
	if (!why[0] && e->out.protocol_errors)
		snprintf(why, sizeof(why), "AXI-Stream protocol: %.160s", e->out.first_error);
	bench_log(e->b, "%s: %zu frames in %llu cycles", name, frames,
		  (unsigned long long)e->dut.cycle);
	bench_result(e->b, name, !why[0], "%s", why);
}

static void test_random(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	unsigned int frames = b->quick ? 100 : 600;
	struct arb_env e;

	env_open(&e, b, ops, 30, 30);
	for (unsigned int n = 0; n < frames; n++) {
		size_t len =
			bench_chance(b, 70) ? bench_range(b, 1, 200) : bench_range(b, 1, MAX_LEN);

		push(&e, (int)bench_range(b, 0, SOURCES - 1), len);
	}
	run(&e, name, false);
	env_close(&e);
}

static void test_round_robin(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	struct arb_env e;

	env_open(&e, b, ops, 0, 30);
	for (unsigned int n = 0; n < 30; n++)
		push(&e, (int)(n % SOURCES), bench_range(b, 1, 300));
	run(&e, name, true);
	env_close(&e);
}

int main(int argc, char **argv)
{
	static const struct {
		const struct vmodel_ops *ops;
		const char *tag;
	} widths[] = { { &vmodel_Vaxis_frame_arb_w64, "w64" },
		       { &vmodel_Vaxis_frame_arb_w512, "w512" } };
	struct bench b;
	char name[64];

	bench_init(&b, "test_frame_arb", argc, argv);
	for (size_t w = 0; w < 2; w++) {
		snprintf(name, sizeof(name), "frame_arb_random_%s", widths[w].tag);
		test_random(&b, widths[w].ops, name);
		snprintf(name, sizeof(name), "frame_arb_round_robin_%s", widths[w].tag);
		test_round_robin(&b, widths[w].ops, name);
	}
	return bench_finish(&b);
}
