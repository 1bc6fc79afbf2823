// SPDX-License-Identifier: MIT
/*
 * Bench of the fault model of links and wires (sim/platform/sim_faults.c), on its own:
 * frames in, fates and deliveries out, the way sim_channel.c and wire_shm.c drive it.
 *
 * - determinism: the same seed gives the same fates and deliveries, another seed others;
 * - rates: each random fault alone, over many frames, within six standard deviations of
 *   its probability (a correct model fails that about once in 10^9 runs);
 * - Gilbert-Elliott: loss comes in bursts whose mean length is 1 / burst_leave, and the
 *   loss rate is the chain's stationary one;
 * - flips: every flipped frame of many random RoCEv2 frames is one roce_parse (the RTL's
 *   verdicts) refuses as RoCE, the frame otherwise unchanged but for one bit;
 * - deliveries: lost frames never come, the others once in order, a copy right behind its
 *   frame, a frame held back right after the depth-th later frame or at its deadline;
 * - directed rules: the nth match of each rule, and only it, once;
 * - bad parameters are refused.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "roce_random.h"
#include "roce_wire.h"
#include "sim_faults.h"

#define BEAT 64		 /* what sim_faults_begin sees of a frame, as on a link */
#define SIGMAS 6.0	 /* the bound of the statistical checks */
#define NO_DEADLINE 1e18 /* hold deadlines the tests do not reach */

struct frame {
	uint8_t data[ROCE_MAX_FRAME];
	size_t len;
	bool roce;
};

/* A RoCEv2 frame that roce_parse accepts, or now and then an ARP-sized frame of noise. */
static void random_frame(struct bench *b, struct frame *f, uint32_t id, bool only_roce)
{
	uint8_t payload[4096];
	struct roce_hdr h;
	int err;

	if (!only_roce && bench_chance(b, 10)) {
		bench_fill(b, f->data, 60);
		f->data[12] = 0x08;
		f->data[13] = 0x06; /* ARP */
		f->len = 60;
		f->roce = false;
		return;
	}
	do {
		roce_random_hdr(b, &h, roce_random_opcode(b), 64, 1024);
		h.ip_flags = 2; /* DF: not a fragment */
		h.tver = 0;
		h.psn = id & 0xffffff;
		bench_fill(b, payload, h.payload_len);
		err = roce_build_frame(&h, payload, true, f->data, sizeof(f->data), &f->len);
	} while (err || roce_parse(f->data, f->len, &h, &(const uint8_t *){ NULL }) != ROCE_OK);
	f->roce = true;
}

/* A small RoCE frame of the given opcode, PSN and QPN (the directed tests). */
static void plain_frame(struct frame *f, uint8_t opcode, uint32_t psn, uint32_t dqpn)
{
	struct roce_hdr h = { .opcode = opcode, .psn = psn, .dqpn = dqpn, .ip_ttl = 64 };
	uint8_t payload[16] = { 0 };

	h.payload_len = roce_opcode_info(opcode)->has_payload ? sizeof(payload) : 0;
	h.ip_src = 0x0a000001;
	h.ip_dst = 0x0a000002;
	h.udp_sport = 0xc000;
	h.pkey = 0xffff;
	roce_build_frame(&h, payload, true, f->data, sizeof(f->data), &f->len);
	f->roce = true;
}

/* ===================================================================================== */
/* A transport of frames: what a link does, one frame per time unit */

struct out {
	uint32_t id; /* the frame it is (a copy's too) */
	bool copy;   /* delivered by the model (a duplicate or a frame held back) */
	size_t len;
	uint8_t *data;
};

struct run {
	struct sim_faults m;
	struct sim_fate *fates;
	struct out *out;
	size_t nout, cap;
	char error[256];
};

static void record(struct run *r, uint32_t id, bool copy, const uint8_t *data, size_t len)
{
	if (r->nout == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->out = realloc(r->out, r->cap * sizeof(*r->out));
	}
	r->out[r->nout].id = id;
	r->out[r->nout].copy = copy;
	r->out[r->nout].len = len;
	r->out[r->nout].data = malloc(len);
	memcpy(r->out[r->nout].data, data, len);
	r->nout++;
}

/* The frame a copy is, by its bytes (a flip may have hit any field): frames[id] or none. */
static uint32_t identify(const struct frame *frames, size_t n, const struct sim_fate *fates,
			 const uint8_t *data, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		size_t diff = 0;

		if (frames[i].len != len)
			continue;
		for (size_t k = 0; k < len && diff < 2; k++)
			diff += frames[i].data[k] != data[k];
		if (diff == 0 && !fates[i].flip_mask)
			return (uint32_t)i;
		if (diff == 1 && fates[i].flip_mask &&
		    (frames[i].data[fates[i].flip_off] ^ fates[i].flip_mask) ==
			    data[fates[i].flip_off])
			return (uint32_t)i;
	}
	return UINT32_MAX;
}

/* Frames through the model: the sender's order, deliveries between frames. */
static void run_frames(struct run *r, const struct hroce_sim_frame_faults *p,
		       const struct frame *frames, size_t n, uint64_t hold)
{
	uint8_t *buf = malloc(ROCE_MAX_FRAME);
	const struct sim_faults_frame *fr;
	uint64_t now;

	memset(r, 0, sizeof(*r));
	sim_faults_init(&r->m);
	if (sim_faults_set(&r->m, p))
		snprintf(r->error, sizeof(r->error), "parameters refused");
	r->fates = calloc(n, sizeof(*r->fates));
	for (now = 0; now < n; now++) {
		const struct frame *f = &frames[now];
		struct sim_fate *fate = &r->fates[now];

		sim_faults_begin(&r->m, f->data, f->len < BEAT ? f->len : BEAT, fate);
		if (!fate->drop && !fate->hold) {
			memcpy(buf, f->data, f->len);
			if (fate->flip_mask)
				buf[fate->flip_off] ^= fate->flip_mask;
			record(r, (uint32_t)now, false, buf, f->len);
		}
		sim_faults_end(&r->m, fate, f->data, f->len, false, now + hold);
		while ((fr = sim_faults_peek(&r->m, now))) {
			struct sim_faults_frame *x = sim_faults_pop(&r->m);

			record(r, identify(frames, n, r->fates, x->data, x->len), true, x->data,
			       x->len);
			free(x);
		}
	}
	/* the end of the traffic: what is still held goes at its deadline */
	while (sim_faults_peek(&r->m, UINT64_MAX)) {
		struct sim_faults_frame *x = sim_faults_pop(&r->m);

		record(r, identify(frames, n, r->fates, x->data, x->len), true, x->data, x->len);
		free(x);
	}
	free(buf);
}

static void run_free(struct run *r)
{
	for (size_t i = 0; i < r->nout; i++)
		free(r->out[i].data);
	free(r->out);
	free(r->fates);
	sim_faults_fini(&r->m);
}

static bool fates_equal(const struct sim_fate *a, const struct sim_fate *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].drop != b[i].drop || a[i].hold != b[i].hold || a[i].dup != b[i].dup ||
		    a[i].flip_mask != b[i].flip_mask || a[i].flip_off != b[i].flip_off)
			return false;
	return true;
}

static struct hroce_sim_frame_faults all_faults(uint64_t seed)
{
	return (struct hroce_sim_frame_faults){
		.seed = seed,
		.drop = 0.03,
		.burst_enter = 0.01,
		.burst_leave = 0.3,
		.burst_loss = 0.8,
		.flip = 0.03,
		.dup = 0.04,
		.reorder = 0.04,
		.reorder_depth = 3,
	};
}

/* ===================================================================================== */

static void test_determinism(struct bench *b, const struct frame *frames, size_t n)
{
	struct hroce_sim_frame_faults p = all_faults(b->seed);
	struct run r1, r2, r3;
	bool same_out;

	run_frames(&r1, &p, frames, n, (uint64_t)NO_DEADLINE);
	run_frames(&r2, &p, frames, n, (uint64_t)NO_DEADLINE);
	p.seed = b->seed + 1;
	run_frames(&r3, &p, frames, n, (uint64_t)NO_DEADLINE);
	same_out = r1.nout == r2.nout;
	for (size_t i = 0; same_out && i < r1.nout; i++)
		same_out = r1.out[i].len == r2.out[i].len &&
			   !memcmp(r1.out[i].data, r2.out[i].data, r1.out[i].len);
	bench_result(b, "faults_same_seed",
		     fates_equal(r1.fates, r2.fates, n) && same_out &&
			     !memcmp(&r1.m.st, &r2.m.st, sizeof(r1.m.st)),
		     "two runs of seed %llu differ", (unsigned long long)b->seed);
	/* thousands of frames with faults of a few percent: equal by chance never */
	bench_result(b, "faults_other_seed", !fates_equal(r1.fates, r3.fates, n),
		     "seeds %llu and %llu gave the same fates", (unsigned long long)b->seed,
		     (unsigned long long)p.seed);
	run_free(&r1);
	run_free(&r2);
	run_free(&r3);
}

/* count out of n with probability p, within SIGMAS standard deviations */
static bool within(uint64_t count, uint64_t n, double p, char *why, size_t len, const char *what)
{
	double mean = (double)n * p, sd = sqrt((double)n * p * (1 - p));

	if (fabs((double)count - mean) <= SIGMAS * sd)
		return true;
	snprintf(why, len, "%s: %llu of %llu frames, %.0f +- %.0f expected", what,
		 (unsigned long long)count, (unsigned long long)n, mean, SIGMAS * sd);
	return false;
}

static void test_rates(struct bench *b, const struct frame *frames, size_t n)
{
	const uint64_t total = b->quick ? 100000 : 400000;
	struct hroce_sim_frame_faults p;
	struct sim_faults m;
	struct sim_fate fate;
	uint64_t roce = 0;
	char why[256] = "";
	struct {
		const char *name;
		double prob;
		double *field;
		const uint64_t *count;
	} cases[] = {
		{ "drop", 0.1, &p.drop, &m.st.dropped_random },
		{ "dup", 0.05, &p.dup, &m.st.duplicated },
		{ "reorder", 0.02, &p.reorder, &m.st.reordered },
		{ "flip", 0.03, &p.flip, &m.st.flipped },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]) && !why[0]; c++) {
		memset(&p, 0, sizeof(p));
		p.seed = b->seed + c;
		p.reorder_depth = 2;
		*cases[c].field = cases[c].prob;
		sim_faults_init(&m);
		sim_faults_set(&m, &p);
		roce = 0;
		for (uint64_t i = 0; i < total; i++) {
			const struct frame *f = &frames[i % n];

			sim_faults_begin(&m, f->data, BEAT, &fate);
			sim_faults_end(&m, &fate, f->data, f->len, false, i + 100);
			free(sim_faults_pop(&m));
			roce += f->roce;
		}
		while (sim_faults_busy(&m)) {
			sim_faults_peek(&m, UINT64_MAX);
			free(sim_faults_pop(&m));
		}
		/* flips only hit RoCE frames */
		within(*cases[c].count, c == 3 ? roce : total, cases[c].prob, why, sizeof(why),
		       cases[c].name);
		if (!why[0] && m.st.frames != total)
			snprintf(why, sizeof(why), "%s: %llu frames seen of %llu", cases[c].name,
				 (unsigned long long)m.st.frames, (unsigned long long)total);
		sim_faults_fini(&m);
	}
	bench_result(b, "faults_rates", !why[0], "%s", why);
}

/* Gilbert-Elliott with loss in the bad state only: loss runs are the bad state's stays. */
static void test_burst(struct bench *b, const struct frame *frames, size_t n)
{
	const uint64_t total = b->quick ? 200000 : 800000;
	const double enter = 0.01, leave = 0.25;
	struct hroce_sim_frame_faults p = {
		.seed = b->seed, .burst_enter = enter, .burst_leave = leave, .burst_loss = 1.0
	};
	uint64_t lost = 0, bursts = 0, run = 0;
	double mean, want = 1 / leave, sd, rate, pi = enter / (enter + leave), rho, rate_sd;
	struct sim_faults m;
	struct sim_fate fate;
	char why[256] = "";

	sim_faults_init(&m);
	sim_faults_set(&m, &p);
	for (uint64_t i = 0; i < total; i++) {
		const struct frame *f = &frames[i % n];

		sim_faults_begin(&m, f->data, BEAT, &fate);
		sim_faults_end(&m, &fate, f->data, f->len, false, 0);
		if (fate.drop) {
			lost++;
			run++;
		} else if (run) {
			bursts++;
			run = 0;
		}
	}
	mean = bursts ? (double)(lost - run) / (double)bursts : 0;
	/* a burst's length is geometric: variance (1 - leave) / leave^2 */
	sd = sqrt((1 - leave) / (leave * leave) / (double)(bursts ? bursts : 1));
	rate = (double)lost / (double)total;
	/* the chain's states are correlated, rho = 1 - enter - leave apart from one frame on */
	rho = 1 - enter - leave;
	rate_sd = sqrt(pi * (1 - pi) * (1 + rho) / (1 - rho) / (double)total);
	if (m.st.dropped_burst != lost || m.st.dropped_random)
		snprintf(why, sizeof(why), "counted %llu burst losses, saw %llu",
			 (unsigned long long)m.st.dropped_burst, (unsigned long long)lost);
	else if (fabs(mean - want) > SIGMAS * sd)
		snprintf(why, sizeof(why), "mean burst %.3f frames over %llu bursts, %.3f +- %.3f",
			 mean, (unsigned long long)bursts, want, SIGMAS * sd);
	else if (fabs(rate - pi) > SIGMAS * rate_sd)
		snprintf(why, sizeof(why), "loss rate %.5f, %.5f +- %.5f", rate, pi,
			 SIGMAS * rate_sd);
	bench_result(b, "faults_gilbert_elliott", !why[0], "%s", why);
	bench_log(b, "Gilbert-Elliott p=%.2f r=%.2f: %llu losses in %llu bursts, mean %.3f (%.3f)",
		  enter, leave, (unsigned long long)lost, (unsigned long long)bursts, mean, want);
	sim_faults_fini(&m);
}

/* Every flip lands where the receiver's checks see it. */
static void test_flips(struct bench *b)
{
	const unsigned int total = b->quick ? 3000 : 20000;
	struct hroce_sim_frame_faults p = { .seed = b->seed, .flip = 1.0 };
	unsigned int verdicts[ROCE_VERDICTS] = { 0 }, flipped = 0;
	struct frame *f = malloc(sizeof(*f));
	uint8_t *copy = malloc(ROCE_MAX_FRAME);
	struct sim_faults m;
	struct sim_fate fate;
	struct roce_hdr h;
	char why[256] = "";

	sim_faults_init(&m);
	sim_faults_set(&m, &p);
	for (unsigned int i = 0; i < total && !why[0]; i++) {
		enum roce_verdict v;

		random_frame(b, f, i, false);
		sim_faults_begin(&m, f->data, BEAT, &fate);
		sim_faults_end(&m, &fate, f->data, f->len, false, 0);
		if (!f->roce) {
			if (fate.flip_mask)
				snprintf(why, sizeof(why), "a frame that is not RoCE was flipped");
			continue;
		}
		if (!fate.flip_mask || fate.flip_off >= f->len || fate.flip_off < 14 ||
		    __builtin_popcount(fate.flip_mask) != 1) {
			snprintf(why, sizeof(why), "frame %u of %zu bytes: flip 0x%02x at %zu", i,
				 f->len, fate.flip_mask, fate.flip_off);
			continue;
		}
		memcpy(copy, f->data, f->len);
		copy[fate.flip_off] ^= fate.flip_mask;
		v = roce_parse(copy, f->len, &h, &(const uint8_t *){ NULL });
		verdicts[v]++;
		flipped++;
		if (v == ROCE_OK || v == ROCE_NOT_ROCE)
			snprintf(why, sizeof(why),
				 "frame %u of %zu bytes with bit 0x%02x of byte %zu flipped: %s", i,
				 f->len, fate.flip_mask, fate.flip_off, roce_verdict_name(v));
	}
	if (!why[0] && m.st.flipped != flipped)
		snprintf(why, sizeof(why), "counted %llu flips of %u",
			 (unsigned long long)m.st.flipped, flipped);
	bench_result(b, "faults_flip_caught", !why[0], "%s", why);
	bench_log(b,
		  "flips: %u frames: ip_header %u, ip_checksum %u, length %u, bad_opcode %u, "
		  "icrc %u, truncated %u",
		  flipped, verdicts[ROCE_IP_HEADER], verdicts[ROCE_IP_CHECKSUM],
		  verdicts[ROCE_LENGTH], verdicts[ROCE_BAD_OPCODE], verdicts[ROCE_ICRC],
		  verdicts[ROCE_TRUNCATED]);
	sim_faults_fini(&m);
	free(copy);
	free(f);
}

/* What came out against the fates: order, copies, holds, bytes. */
static void check_deliveries(const struct run *r, size_t n, uint32_t depth, char *why, size_t len)
{
	size_t *first = malloc(n * sizeof(*first)), *count = calloc(n, sizeof(*count));
	uint32_t last_passed = 0;
	bool any_passed = false;

	for (size_t i = 0; i < n; i++)
		first[i] = SIZE_MAX;
	for (size_t k = 0; k < r->nout && !why[0]; k++) {
		const struct out *o = &r->out[k];
		const struct sim_fate *fate;

		if (o->id == UINT32_MAX) {
			snprintf(why, len, "delivery %zu is no frame that was sent", k);
			break;
		}
		fate = &r->fates[o->id];
		if (!count[o->id]++)
			first[o->id] = k;
		if (fate->drop)
			snprintf(why, len, "frame %u was lost, yet delivered", o->id);
		else if (count[o->id] > 1u + fate->dup)
			snprintf(why, len, "frame %u delivered %zu times", o->id, count[o->id]);
		else if (count[o->id] == 2 && (k == 0 || r->out[k - 1].id != o->id || !o->copy))
			snprintf(why, len, "the copy of frame %u is not right behind it", o->id);
		if (why[0] || fate->hold || count[o->id] > 1)
			continue;
		if (any_passed && o->id < last_passed)
			snprintf(why, len, "frame %u after frame %u", o->id, last_passed);
		last_passed = o->id;
		any_passed = true;
	}
	for (size_t i = 0; i < n && !why[0]; i++) {
		const struct sim_fate *fate = &r->fates[i];
		size_t later = 0, after = 0, k;

		if (!fate->drop && !count[i])
			snprintf(why, len, "frame %zu never delivered", i);
		if (why[0] || !fate->hold)
			continue;
		/*
		 * the sender's later frames that went ahead: depth of them, or all there were
		 * (at the end of the traffic it went at its deadline)
		 */
		for (k = 0; k < r->nout; k++) {
			bool passed = r->out[k].id > i && !r->out[k].copy;

			later += passed && k < first[i];
			after += passed;
		}
		if (later != (after < depth ? after : depth))
			snprintf(why, len,
				 "frame %zu, held back, came after %zu of the %zu later frames, "
				 "not %u",
				 i, later, after, depth);
	}
	free(first);
	free(count);
}

static void test_deliveries(struct bench *b, const struct frame *frames, size_t n)
{
	struct hroce_sim_frame_faults p = all_faults(b->seed);
	struct run r;
	char why[256] = "";

	run_frames(&r, &p, frames, n, (uint64_t)NO_DEADLINE);
	check_deliveries(&r, n, p.reorder_depth, why, sizeof(why));
	if (!why[0] && (!r.m.st.duplicated || !r.m.st.reordered || !r.m.st.flipped))
		snprintf(why, sizeof(why), "faults that never happened: %llu dups, %llu held",
			 (unsigned long long)r.m.st.duplicated,
			 (unsigned long long)r.m.st.reordered);
	bench_result(b, "faults_deliveries", !why[0], "%s", why);
	run_free(&r);

	/* a frame held back with nothing behind it goes at its deadline, not before */
	memset(&p, 0, sizeof(p));
	p.reorder = 1.0;
	p.reorder_depth = 5;
	sim_faults_init(&r.m);
	sim_faults_set(&r.m, &p);
	{
		struct sim_fate fate;
		const struct sim_faults_frame *early, *due;

		sim_faults_begin(&r.m, frames[0].data, BEAT, &fate);
		sim_faults_end(&r.m, &fate, frames[0].data, frames[0].len, false, 1000);
		early = sim_faults_peek(&r.m, 999);
		due = sim_faults_peek(&r.m, 1000);
		bench_result(b, "faults_hold_deadline",
			     fate.hold && !early && due && due->len == frames[0].len &&
				     !memcmp(due->data, frames[0].data, due->len),
			     "held %d, out before the deadline %d, at it %d", fate.hold, !!early,
			     !!due);
		free(sim_faults_pop(&r.m));
	}
	sim_faults_fini(&r.m);
}

static void test_directed(struct bench *b)
{
	const uint32_t qa = 0x11, qb = 0x22;
	const size_t n = 40;
	struct frame *frames = calloc(n, sizeof(*frames));
	struct hroce_sim_frame_faults p = { .seed = b->seed, .nrules = 3 };
	struct run r;
	char why[256] = "";
	size_t i;

	/* SEND_ONLY to qa and qb in turn, PSN i; PSN 7 goes twice (the second one is i 30) */
	for (i = 0; i < n; i++)
		plain_frame(&frames[i], i % 5 == 4 ? 0x0a : 0x04, i == 30 ? 7 : (uint32_t)i,
			    i % 2 ? qb : qa);
	/* the 3rd frame to qb (i 5); PSN 7, the first time; the 2nd WRITE_ONLY (i 9), 3 back */
	p.rules[0] = (struct hroce_sim_fault_rule){ HROCE_SIM_FAULT_DROP, 3,  HROCE_SIM_FAULT_ANY,
						    HROCE_SIM_FAULT_ANY,  qb, 0 };
	p.rules[1] = (struct hroce_sim_fault_rule){ HROCE_SIM_FAULT_DUP, 1, HROCE_SIM_FAULT_ANY, 7,
						    HROCE_SIM_FAULT_ANY, 0 };
	p.rules[2] =
		(struct hroce_sim_fault_rule){ HROCE_SIM_FAULT_DELAY, 2, 0x0a, HROCE_SIM_FAULT_ANY,
					       HROCE_SIM_FAULT_ANY,   3 };
	run_frames(&r, &p, frames, n, (uint64_t)NO_DEADLINE);
	for (i = 0; i < n && !why[0]; i++) {
		const struct sim_fate *f = &r.fates[i];
		bool drop = i == 5, dup = i == 7, hold = i == 9;

		if (f->drop != drop || f->dup != dup || f->hold != hold ||
		    f->directed != drop + dup + hold)
			snprintf(why, sizeof(why), "frame %zu: drop %d dup %d hold %d rules %u", i,
				 f->drop, f->dup, f->hold, f->directed);
	}
	if (!why[0])
		check_deliveries(&r, n, 3, why, sizeof(why));
	/* frame 9 held back: it comes after 10, 11 and 12 */
	for (i = 0; i < r.nout && !why[0]; i++)
		if (r.out[i].id == 9 && (!i || r.out[i - 1].id != 12))
			snprintf(why, sizeof(why), "frame 9 delivered after frame %u",
				 i ? r.out[i - 1].id : 0);
	if (!why[0] && (r.m.st.directed != 3 || r.m.st.dropped_random || r.m.st.duplicated ||
			r.m.st.reordered))
		snprintf(why, sizeof(why), "counted %llu directed faults",
			 (unsigned long long)r.m.st.directed);
	bench_result(b, "faults_directed", !why[0], "%s", why);
	run_free(&r);
	free(frames);
}

static void test_refused(struct bench *b)
{
	struct hroce_sim_frame_faults ok = { .drop = 1.0, .reorder = 0.5, .reorder_depth = 1 };
	struct hroce_sim_frame_faults bad[4];
	const char *why = NULL;
	struct sim_faults m;

	for (int i = 0; i < 4; i++)
		bad[i] = ok;
	bad[0].drop = 1.5;
	bad[1].flip = NAN;
	bad[2].reorder_depth = 0;
	bad[3].nrules = 1;
	bad[3].rules[0].nth = 0;
	sim_faults_init(&m);
	if (sim_faults_set(&m, &ok))
		why = "good parameters refused";
	for (int i = 0; i < 4 && !why; i++)
		if (sim_faults_set(&m, &bad[i]) != EINVAL)
			why = "bad parameters taken";
	if (!why && (sim_faults_set(&m, NULL) || m.active))
		why = "no faults is not no faults";
	bench_result(b, "faults_refused", !why, "%s", why);
	sim_faults_fini(&m);
}

int main(int argc, char **argv)
{
	const size_t n = 3000;
	struct frame *frames;
	struct bench b;

	bench_init(&b, "test_faults", argc, argv);
	frames = malloc(n * sizeof(*frames));
	for (size_t i = 0; i < n; i++)
		random_frame(&b, &frames[i], (uint32_t)i, false);
	test_determinism(&b, frames, n);
	test_rates(&b, frames, n);
	test_burst(&b, frames, n);
	test_flips(&b);
	test_deliveries(&b, frames, n);
	test_directed(&b);
	test_refused(&b);
	free(frames);
	return bench_finish(&b);
}
