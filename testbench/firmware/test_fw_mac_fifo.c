// SPDX-License-Identifier: MIT
/*
 * Bench of axis_async_frame_fifo, the MAC-side FIFOs of the shell, with two unrelated
 * clocks (random periods and phase per run, from the seed).
 *
 * RX build (DROP_WHEN_FULL): the writer (the MAC) never waits and tready must always be 1;
 * the reader (the core) takes beats with random back-pressure. Every frame out must be a
 * whole frame in, in order (no partial frame, no mix); frames missing are drops, and the
 * drop count read on the reader's clock must equal them; a frame longer than the FIFO is
 * always dropped.
 * TX build: the writer (the core) is held back and inserts idle cycles; every frame that
 * fits arrives, and the reader (the MAC) never sees a gap inside a frame (no underflow);
 * frames longer than the FIFO are dropped and counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

extern const struct vmodel_ops vmodel_Vfw_fifo_rx, vmodel_Vfw_fifo_tx;

#define DEPTH 32 /* beats (bench.mk: DEPTH_LOG=5) */
#define MAX_FRAMES 400
#define MAX_BEATS (DEPTH + 8)

struct frame {
	unsigned int beats;
	uint64_t data[MAX_BEATS];
	uint8_t keep_last;
	bool user;
};

struct fifo_tb {
	struct bench *b;
	struct vmodel vm;
	const struct vmodel_port *s_clk, *s_rst, *m_clk, *m_rst;
	const struct vmodel_port *s_tdata, *s_tkeep, *s_tvalid, *s_tready, *s_tlast, *s_tuser;
	const struct vmodel_port *m_tdata, *m_tkeep, *m_tvalid, *m_tready, *m_tlast, *m_tuser;
	const struct vmodel_port *drops;
	bool drop_mode;
	struct frame *in;
	unsigned int nin;
	/* writer */
	unsigned int w_frame, w_beat;
	unsigned int idle_pct;
	/* reader */
	unsigned int r_frame; /* next input frame that may come out */
	unsigned int r_beat;
	struct frame cur;
	bool in_frame;
	unsigned int ready_pct;
	/* results */
	unsigned int out_frames, dropped, errors, underflows, not_ready;
	char why[200];
};

static void fail(struct fifo_tb *t, const char *what)
{
	if (!t->errors++)
		snprintf(t->why, sizeof(t->why), "%s", what);
}

static const struct vmodel_port *port(struct fifo_tb *t, const char *name)
{
	const struct vmodel_port *p = vmodel_port(&t->vm, name);

	if (!p) {
		fprintf(stderr, "no port %s\n", name);
		exit(1);
	}
	return p;
}

static void drive_writer(struct fifo_tb *t)
{
	const struct frame *f;

	if (t->w_frame >= t->nin || (t->w_beat == 0 && bench_chance(t->b, t->idle_pct))) {
		vport_set(t->s_tvalid, 0);
		return;
	}
	f = &t->in[t->w_frame];
	vport_set(t->s_tvalid, 1);
	vport_set(t->s_tdata, f->data[t->w_beat]);
	vport_set(t->s_tlast, t->w_beat == f->beats - 1);
	vport_set(t->s_tkeep, t->w_beat == f->beats - 1 ? f->keep_last : 0xff);
	vport_set(t->s_tuser, t->w_beat == f->beats - 1 && f->user);
}

/* The reader took a whole frame: it must be the next input frame that was not dropped. */
static void frame_out(struct fifo_tb *t)
{
	while (t->r_frame < t->nin) {
		const struct frame *f = &t->in[t->r_frame++];

		if (f->beats == t->cur.beats && f->keep_last == t->cur.keep_last &&
		    f->user == t->cur.user &&
		    !memcmp(f->data, t->cur.data, f->beats * sizeof(uint64_t))) {
			if (f->beats > DEPTH)
				fail(t, "a frame longer than the FIFO came out");
			t->out_frames++;
			return;
		}
		t->dropped++;
		if (!t->drop_mode && f->beats <= DEPTH)
			fail(t, "TX lost a frame that fits");
	}
	fail(t, "a frame out matches no frame in (partial or mixed)");
}

static void rising_s(struct fifo_tb *t)
{
	if (vport_get(t->s_tvalid) && vport_get(t->s_tready)) {
		if (++t->w_beat == t->in[t->w_frame].beats) {
			t->w_beat = 0;
			t->w_frame++;
		}
	}
	if (t->drop_mode && !vport_get(t->s_tready))
		t->not_ready++;
}

static void rising_m(struct fifo_tb *t)
{
	bool valid = vport_get(t->m_tvalid);

	if (t->in_frame && !valid)
		t->underflows++;
	if (!valid || !vport_get(t->m_tready))
		return;
	if (t->r_beat >= MAX_BEATS) {
		fail(t, "a frame out is longer than any frame in");
		t->r_beat = 0;
	}
	t->cur.data[t->r_beat++] = vport_get(t->m_tdata);
	t->in_frame = true;
	if (vport_get(t->m_tlast)) {
		t->cur.beats = t->r_beat;
		t->cur.keep_last = (uint8_t)vport_get(t->m_tkeep);
		t->cur.user = vport_get(t->m_tuser);
		frame_out(t);
		t->r_beat = 0;
		t->in_frame = false;
	} else if (vport_get(t->m_tkeep) != 0xff) {
		fail(t, "a partial tkeep inside a frame");
	}
}

static void make_frames(struct fifo_tb *t, unsigned int n)
{
	t->nin = n;
	for (unsigned int i = 0; i < n; i++) {
		struct frame *f = &t->in[i];

		/* mostly short frames; some near the depth, a few longer than it */
		f->beats = bench_chance(t->b, 5)
				   ? (unsigned int)bench_range(t->b, DEPTH + 1, MAX_BEATS)
			   : bench_chance(t->b, 20)
				   ? (unsigned int)bench_range(t->b, DEPTH / 2, DEPTH)
				   : (unsigned int)bench_range(t->b, 1, 6);
		for (unsigned int k = 0; k < f->beats; k++)
			f->data[k] = bench_rand(t->b) ^ ((uint64_t)i << 48);
		f->keep_last = (uint8_t)((1u << bench_range(t->b, 1, 8)) - 1);
		f->user = bench_chance(t->b, 10);
	}
}

static void run(struct bench *b, const struct vmodel_ops *ops, bool drop_mode, unsigned int r)
{
	struct fifo_tb t;
	unsigned int sp = (unsigned int)bench_range(b, 2, 9) * 2; /* periods in ticks, even */
	unsigned int mp = (unsigned int)bench_range(b, 2, 9) * 2;
	uint64_t s_next = sp + bench_range(b, 0, sp - 1), m_next = mp + bench_range(b, 0, mp - 1);
	uint64_t tick = 0, quiet = 0;
	char name[64];

	memset(&t, 0, sizeof(t));
	t.b = b;
	t.drop_mode = drop_mode;
	t.idle_pct = (unsigned int)bench_range(b, 0, 60);
	t.ready_pct = (unsigned int)bench_range(b, drop_mode ? 20 : 100, 100);
	t.in = calloc(MAX_FRAMES, sizeof(*t.in));
	if (!t.in || vmodel_open(&t.vm, ops)) {
		fprintf(stderr, "cannot open the model\n");
		exit(1);
	}
	t.s_clk = port(&t, "s_clk");
	t.s_rst = port(&t, "s_rst");
	t.m_clk = port(&t, "m_clk");
	t.m_rst = port(&t, "m_rst");
	t.s_tdata = port(&t, "s_axis_tdata");
	t.s_tkeep = port(&t, "s_axis_tkeep");
	t.s_tvalid = port(&t, "s_axis_tvalid");
	t.s_tready = port(&t, "s_axis_tready");
	t.s_tlast = port(&t, "s_axis_tlast");
	t.s_tuser = port(&t, "s_axis_tuser");
	t.m_tdata = port(&t, "m_axis_tdata");
	t.m_tkeep = port(&t, "m_axis_tkeep");
	t.m_tvalid = port(&t, "m_axis_tvalid");
	t.m_tready = port(&t, "m_axis_tready");
	t.m_tlast = port(&t, "m_axis_tlast");
	t.m_tuser = port(&t, "m_axis_tuser");
	t.drops = port(&t, "m_status_drop_count");
	make_frames(&t, b->quick ? MAX_FRAMES / 4 : MAX_FRAMES);

	/* both resets, over a few edges of each clock */
	vport_set(t.s_rst, 1);
	vport_set(t.m_rst, 1);
	for (int i = 1; i <= 8; i++) {
		vport_set(t.s_clk, i & 1);
		vport_set(t.m_clk, i & 1);
		t.vm.ops->eval(t.vm.model);
	}
	vport_set(t.s_rst, 0);
	vport_set(t.m_rst, 0);
	drive_writer(&t);
	t.vm.ops->eval(t.vm.model);

	/* event loop over the two clocks' edges; stops when everything settled */
	while (quiet < 64 * (sp + mp) && tick < 50000000) {
		bool s_rise = tick == s_next, m_rise = tick == m_next;
		bool s_fall = tick == s_next - sp / 2;
		bool m_fall = tick == m_next - mp / 2;

		if (s_fall)
			vport_set(t.s_clk, 0);
		if (m_fall)
			vport_set(t.m_clk, 0);
		if (s_fall || m_fall)
			t.vm.ops->eval(t.vm.model);
		if (s_rise || m_rise) {
			unsigned int before = t.w_frame + t.out_frames + t.r_beat;

			if (s_rise)
				rising_s(&t);
			if (m_rise)
				rising_m(&t);
			if (s_rise) {
				vport_set(t.s_clk, 1);
				s_next += sp;
			}
			if (m_rise) {
				vport_set(t.m_clk, 1);
				m_next += mp;
			}
			t.vm.ops->eval(t.vm.model);
			if (s_rise)
				drive_writer(&t);
			if (m_rise)
				vport_set(t.m_tready, bench_chance(b, t.ready_pct));
			t.vm.ops->eval(t.vm.model);
			quiet = before == t.w_frame + t.out_frames + t.r_beat && t.w_frame >= t.nin
					? quiet + 1
					: 0;
		}
		tick++;
	}
	/* frames never seen at the end were dropped */
	while (t.r_frame < t.nin) {
		if (!drop_mode && t.in[t.r_frame].beats <= DEPTH)
			fail(&t, "TX lost a frame that fits (at the end)");
		t.r_frame++;
		t.dropped++;
	}
	snprintf(name, sizeof(name), "%s_run%u", drop_mode ? "rx" : "tx", r);
	if (t.w_frame < t.nin)
		fail(&t, "the writer could not send everything");
	if (vport_get(t.drops) != t.dropped)
		fail(&t, "the drop count differs from the frames missing");
	if (t.not_ready)
		fail(&t, "RX held the MAC back");
	if (t.underflows)
		fail(&t, "a gap inside a frame (underflow)");
	bench_result(b, name, !t.errors,
		     "%s (s period %u, m period %u, %u frames in, %u out, %u dropped, count %llu, "
		     "%u gaps)",
		     t.why, sp, mp, t.nin, t.out_frames, t.dropped,
		     (unsigned long long)vport_get(t.drops), t.underflows);
	bench_log(b, "%s: s period %u, m period %u: %u frames in, %u out, %u dropped", name, sp, mp,
		  t.nin, t.out_frames, t.dropped);
	vmodel_close(&t.vm);
	free(t.in);
}

int main(int argc, char **argv)
{
	struct bench b;

	bench_init(&b, "test_fw_mac_fifo", argc, argv);
	for (unsigned int r = 0; r < 4; r++)
		run(&b, &vmodel_Vfw_fifo_rx, true, r);
	for (unsigned int r = 0; r < 4; r++)
		run(&b, &vmodel_Vfw_fifo_tx, false, r);
	return bench_finish(&b);
}
