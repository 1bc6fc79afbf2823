// SPDX-License-Identifier: MIT
/*
 * Bench of roce_tx, the RoCEv2 transmit path, at 64 and 512 bits (and 128 and 256 when a
 * build links those models too).
 *
 * The C builder (roce_build_frame) is the scoreboard: every frame must come out byte for
 * byte as it builds it from the same header and payload. Headers carry random values in
 * the fields their opcode does not use, and the payload stream carries garbage in the lanes
 * its tkeep leaves out: the RTL must ignore both.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axis.h"
#include "bench.h"
#include "pcap.h"
#include "roce_bus.h"
#include "roce_oracle.h"
#include "roce_random.h"
#include "roce_wire.h"

extern const struct vmodel_ops vmodel_Vroce_tx_w64, vmodel_Vroce_tx_w512;
/* Widths the Makefile does not build: tested only by a build that links them. */
extern const struct vmodel_ops vmodel_Vroce_tx_w128 __attribute__((weak));
extern const struct vmodel_ops vmodel_Vroce_tx_w256 __attribute__((weak));

#define HANG_CYCLES 20000
#define SAMPLE "build/tx-sample.pcap"
#define MAX_PAYLOAD 8191 /* the 13-bit PAYLOAD_LEN */
#define MAX_FRAME 8400

struct expect_frame {
	uint8_t *frame;
	size_t len;
	bool error;
};

struct tx_env {
	struct bench *b;
	struct dut dut;
	struct axis_source hdr, pay;
	struct axis_sink out;
	const struct vmodel_port *stat_frame, *stat_error;
	unsigned int bytes;
	struct expect_frame *expect;
	size_t nexpect, cap, nerrors;
	uint64_t frames_seen, errors_seen;
	struct pcap_file *capture; /* if set, check() records the frames it takes */
	uint64_t pay_pushed;	   /* payload frames queued */
	struct thin_beat {	   /* a payload beat offered with fewer lanes than it has */
		uint64_t frame;	   /* which payload frame, counted from 0 */
		unsigned int beat; /* which of its beats */
		unsigned int lanes;
	} * thin;
	size_t nthin, thin_done;
};

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		perror("malloc");
		exit(1);
	}
	return p;
}

static void count_stats(void *ctx)
{
	struct tx_env *e = ctx;

	e->frames_seen += vport_get(e->stat_frame);
	e->errors_seen += vport_get(e->stat_error);
}

/*
 * Lanes the payload's tkeep leaves out carry garbage (AXI-Stream says they are undefined);
 * the beats listed in e->thin lose their top lanes.
 */
static void garble_null_lanes(void *ctx)
{
	struct tx_env *e = ctx;
	const struct axis_ports *p = &e->pay.p;
	uint8_t *data = p->tdata->ptr;
	uint64_t keep;

	if (!vport_get(p->tvalid))
		return;
	while (e->thin_done < e->nthin && e->thin[e->thin_done].frame < e->pay.frames)
		e->thin_done++;
	if (e->thin_done < e->nthin && e->thin[e->thin_done].frame == e->pay.frames &&
	    e->thin[e->thin_done].beat == e->pay.beat)
		vport_set(p->tkeep, (UINT64_C(1) << e->thin[e->thin_done].lanes) - 1);
	keep = vport_get(p->tkeep);
	for (unsigned int i = 0; i < p->bytes; i++)
		if (!((keep >> i) & 1))
			data[i] = (uint8_t)(0xa5 ^ i);
}

static void env_open(struct tx_env *e, struct bench *b, const struct vmodel_ops *ops,
		     unsigned int idle_pct, unsigned int busy_pct)
{
	memset(e, 0, sizeof(*e));
	e->b = b;
	dut_open(&e->dut, b, ops);
	axis_source_init(&e->hdr, &e->dut, "s_hdr", idle_pct);
	axis_source_init(&e->pay, &e->dut, "s_axis", idle_pct);
	/* after the payload source's drive, so that it sees the beat being offered */
	dut_add_agent(&e->dut, garble_null_lanes, NULL, e);
	axis_sink_init(&e->out, &e->dut, "m_axis", busy_pct);
	e->stat_frame = dut_port(&e->dut, "stat_frame");
	e->stat_error = dut_port(&e->dut, "stat_payload_error");
	e->bytes = e->pay.p.bytes;
	dut_add_agent(&e->dut, NULL, count_stats, e);
	dut_reset(&e->dut, 4);
}

static void env_close(struct tx_env *e)
{
	for (size_t i = 0; i < e->nexpect; i++)
		free(e->expect[i].frame);
	free(e->expect);
	free(e->thin);
	axis_source_free(&e->hdr);
	axis_source_free(&e->pay);
	axis_sink_free(&e->out);
	dut_close(&e->dut);
}

/*
 * The frame the path must build for an opcode it does not know: BTH only, then the
 * payload. The C builder refuses such opcodes, so build an RC SEND_ONLY and patch it.
 */
static void build_unknown(const struct roce_hdr *h, const uint8_t *payload, uint8_t *frame,
			  size_t *len)
{
	struct roce_hdr c = *h;
	size_t l2 = h->vlan_valid ? 18 : 14, iph = h->ip6 ? 40 : 20, ip_len;
	uint8_t *ip = frame + l2;
	uint32_t icrc;

	c.opcode = 0x04;
	if (roce_build_frame(&c, payload, true, frame, MAX_FRAME, len)) {
		fprintf(stderr, "roce_build_frame failed for an unknown opcode\n");
		exit(1);
	}
	ip[iph + 8] = h->opcode;
	/* IPv4's total length, or IPv6's payload length after its header */
	ip_len = h->ip6 ? 40 + ((size_t)ip[4] << 8 | ip[5]) : (size_t)ip[2] << 8 | ip[3];
	icrc = roce_icrc(ip, ip_len);
	for (unsigned int k = 0; k < 4; k++)
		ip[ip_len - 4 + k] = (uint8_t)(icrc >> (8 * k));
}

/*
 * Queues a frame: the header, and a payload of sent_len bytes (PAYLOAD_LEN unless the test
 * lies); the C builder says what must come out, zeros standing in for missing bytes.
 */
static void send_frame(struct tx_env *e, const struct roce_hdr *h, uint32_t src_qpn,
		       const uint8_t *payload, size_t sent_len)
{
	static uint8_t full[MAX_PAYLOAD + 1];
	struct roce_hdr c = *h;
	struct expect_frame *x;
	roce_bus_t bus;
	uint8_t frame[MAX_FRAME];
	size_t len;

	if (e->nexpect == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 256;
		e->expect = realloc(e->expect, e->cap * sizeof(*e->expect));
		if (!e->expect) {
			perror("realloc");
			exit(1);
		}
	}
	/* with PAYLOAD_LEN 0 the path takes no beat: a stray one would be the next frame's */
	if (!h->payload_len && sent_len) {
		fprintf(stderr, "send_frame: payload for a frame without one\n");
		exit(1);
	}
	memset(full, 0, h->payload_len);
	memcpy(full, payload, sent_len < h->payload_len ? sent_len : h->payload_len);
	if (!c.udp_sport)
		c.udp_sport = roce_udp_sport(src_qpn, h->dqpn);
	roce_hdr_canonical(&c);
	if (roce_opcode_info(c.opcode)) {
		if (roce_build_frame(&c, full, true, frame, sizeof(frame), &len)) {
			fprintf(stderr, "roce_build_frame failed for opcode %#x\n", c.opcode);
			exit(1);
		}
	} else {
		build_unknown(&c, full, frame, &len);
	}
	x = &e->expect[e->nexpect++];
	x->frame = xmalloc(len);
	memcpy(x->frame, frame, len);
	x->len = len;
	x->error = sent_len != h->payload_len;
	e->nerrors += x->error;
	roce_hdr_to_bus(h, src_qpn, bus);
	axis_source_push(&e->hdr, bus, ROCE_BUS_BYTES, -1);
	if (sent_len) {
		axis_source_push(&e->pay, payload, sent_len, -1);
		e->pay_pushed++;
	}
}

/*
 * A frame whose payload has the right length but a beat before its last with only lanes
 * of its lanes kept: the missing bytes come out as zeros, and the frame is flagged.
 */
static void send_thin_frame(struct tx_env *e, const struct roce_hdr *h, const uint8_t *payload,
			    unsigned int beat, unsigned int lanes)
{
	static uint8_t thinned[MAX_PAYLOAD];

	memcpy(thinned, payload, h->payload_len);
	memset(thinned + beat * e->bytes + lanes, 0, e->bytes - lanes);
	e->thin = realloc(e->thin, (e->nthin + 1) * sizeof(*e->thin));
	if (!e->thin) {
		perror("realloc");
		exit(1);
	}
	e->thin[e->nthin++] =
		(struct thin_beat){ .frame = e->pay_pushed, .beat = beat, .lanes = lanes };
	send_frame(e, h, 1, thinned, h->payload_len);
	e->expect[e->nexpect - 1].error = true;
	e->nerrors++;
}

static bool check(struct tx_env *e, char *why, size_t whylen)
{
	struct axis_frame f;

	for (size_t i = 0; i < e->nexpect; i++) {
		struct expect_frame *x = &e->expect[i];
		bool ok;

		if (!axis_sink_pop(&e->out, &f)) {
			snprintf(why, whylen, "frame %zu did not come out", i);
			return false;
		}
		ok = f.len == x->len && !memcmp(f.data, x->frame, f.len) && !!f.user == x->error;
		if (e->capture && pcap_write(e->capture, f.first_cycle * 4, f.data, f.len)) {
			perror("pcap_write");
			exit(1);
		}
		if (!ok) {
			size_t at = 0;

			while (at < f.len && at < x->len && f.data[at] == x->frame[at])
				at++;
			snprintf(why, whylen,
				 "frame %zu (opcode %#x): %zu bytes (want %zu), first difference "
				 "at byte %zu, tuser %u (want %u)",
				 i, x->len > 34 ? x->frame[x->frame[12] == 0x81 ? 46 : 42] : 0,
				 f.len, x->len, at, f.user, x->error);
		}
		free(f.data);
		if (!ok)
			return false;
	}
	if (axis_sink_count(&e->out)) {
		snprintf(why, whylen, "%zu extra frames", axis_sink_count(&e->out));
		return false;
	}
	if (e->out.protocol_errors) {
		snprintf(why, whylen, "AXI-Stream protocol: %.160s", e->out.first_error);
		return false;
	}
	if (e->frames_seen != e->nexpect || e->errors_seen != e->nerrors) {
		snprintf(why, whylen,
			 "stat_frame pulsed %llu times for %zu frames, stat_payload_error %llu "
			 "times for %zu",
			 (unsigned long long)e->frames_seen, e->nexpect,
			 (unsigned long long)e->errors_seen, e->nerrors);
		return false;
	}
	return true;
}

static void finish(struct tx_env *e, const char *name)
{
	char why[300] = "";
	bool ok = dut_run(&e->dut, 200, HANG_CYCLES);

	if (!ok)
		snprintf(why, sizeof(why), "hang: no progress for %d cycles", HANG_CYCLES);
	else
		ok = check(e, why, sizeof(why));
	bench_result(e->b, name, ok, "%s (%zu frames)", why, e->nexpect);
}

static void random_frame(struct tx_env *e, unsigned int max_len)
{
	static uint8_t payload[MAX_PAYLOAD];
	struct roce_hdr h;

	roce_random_hdr(e->b, &h, roce_random_opcode(e->b), e->bytes, max_len);
	if (bench_chance(e->b, 50))
		h.udp_sport = 0; /* the path derives it from the QPNs */
	bench_fill(e->b, payload, h.payload_len);
	send_frame(e, &h, (uint32_t)bench_rand(e->b) & 0xffffff, payload, h.payload_len);
}

/*
 * Random frames of every opcode under three regimes: idle cycles on both inputs and
 * back-pressure on the output; the output mostly stalled; the inputs mostly idle.
 */
static void test_random(struct bench *b, const struct vmodel_ops *ops, const char *width)
{
	static const struct {
		const char *name;
		unsigned int idle, busy, frames;
	} regimes[] = { { "random", 20, 20, 10000 },
			{ "random_backpressure", 0, 75, 1000 },
			{ "random_starved", 75, 0, 1000 } };
	char name[96];

	for (size_t r = 0; r < sizeof(regimes) / sizeof(regimes[0]); r++) {
		struct tx_env e;
		unsigned int n = b->quick ? regimes[r].frames / 20 : regimes[r].frames;

		env_open(&e, b, ops, regimes[r].idle, regimes[r].busy);
		for (unsigned int i = 0; i < n; i++)
			random_frame(&e, 4096);
		snprintf(name, sizeof(name), "tx_%s_%s", regimes[r].name, width);
		finish(&e, name);
		env_close(&e);
	}
}

/* PAYLOAD_LEN up to the bus's 8191: beyond any MTU, but the frame is still right. */
static void test_long_payload(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	static uint8_t payload[MAX_PAYLOAD];
	struct tx_env e;

	env_open(&e, b, ops, 10, 10);
	bench_fill(b, payload, sizeof(payload));
	for (unsigned int i = 0; i < (b->quick ? 12 : 60); i++) {
		struct roce_hdr h;

		roce_random_hdr(b, &h, i % 2 ? 0x04 : roce_random_opcode(b), e.bytes, 0);
		if (i < 8)
			h.payload_len = (uint16_t)(MAX_PAYLOAD - i); /* the top of the range */
		else if (i < 12)
			h.payload_len = (uint16_t)(MAX_PAYLOAD + 1 - e.bytes * (i - 7) + i % 3);
		else
			h.payload_len = (uint16_t)bench_range(b, 4097, MAX_PAYLOAD);
		if (!roce_opcode_info(h.opcode)->has_payload)
			h.payload_len = 0;
		send_frame(&e, &h, (uint32_t)bench_rand(b) & 0xffffff, payload, h.payload_len);
	}
	finish(&e, name);
	env_close(&e);
}

/*
 * Opcodes outside RC/UC/UD's: the transport never asks for them, but if it did the frame
 * would carry the BTH and no extension header, and the path would go on undisturbed.
 */
static void test_unknown_opcode(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	static uint8_t payload[600];
	struct tx_env e;

	env_open(&e, b, ops, 10, 10);
	for (unsigned int i = 0; i < 200; i++) {
		struct roce_hdr h;
		uint8_t op = roce_random_opcode(b);

		/* unknown and known opcodes in turn */
		while (i % 2 && roce_opcode_info(op))
			op = (uint8_t)bench_rand(b);
		roce_random_hdr(b, &h, op, e.bytes, 0);
		h.payload_len = bench_chance(b, 50) ? (uint16_t)bench_range(b, 0, 600) : 0;
		if (roce_opcode_info(op) && !roce_opcode_info(op)->has_payload)
			h.payload_len = 0;
		bench_fill(b, payload, h.payload_len);
		send_frame(&e, &h, (uint32_t)bench_rand(b) & 0xffffff, payload, h.payload_len);
	}
	finish(&e, name);
	env_close(&e);
}

/* When the output beats of a run went, cycles counted from the run's start. */
struct beat_times {
	uint64_t first;	       /* the first beat's cycle */
	uint64_t second_frame; /* the second frame's first beat */
	uint64_t last;	       /* the last beat's; 0 if not every frame came out */
	uint64_t idle;	       /* cycles without a beat from second_frame to last */
};

/* Runs with nothing idle and nothing held until every frame is out, or limit cycles. */
static void run_timed(struct tx_env *e, uint64_t limit, struct beat_times *t)
{
	uint64_t start = e->dut.cycle;

	memset(t, 0, sizeof(*t));
	while (e->out.frames < e->nexpect && e->dut.cycle - start < limit) {
		uint64_t beats = e->out.beats, frames = e->out.frames, now = e->dut.cycle - start;

		dut_step(&e->dut);
		if (e->out.beats == beats) {
			t->idle += frames >= 1 && t->second_frame;
			continue;
		}
		if (!beats)
			t->first = now;
		if (frames == 1 && !t->second_frame)
			t->second_frame = now;
		t->last = now;
	}
	if (e->out.frames != e->nexpect)
		t->last = 0;
	/* the status pulses follow the last beat */
	for (unsigned int i = 0; i < 4; i++)
		dut_step(&e->dut);
}

/*
 * Full throughput: nothing idle, nothing held. The run takes the beats the frames need
 * (ceil(len / KEEP_WIDTH) each) and a constant, the latency of its first frame (which
 * waits for its ICRC): the same frame run alone takes the constant plus its own beats.
 * From the second frame on, every cycle carries a beat.
 */
static void test_line_rate(struct bench *b, const struct vmodel_ops *ops, const char *width)
{
	static uint8_t payload[4096];
	uint64_t beats = 0, bytes = 0, first_beats, cycles, alone_cycles;
	struct beat_times t, alone_t;
	struct roce_hdr first;
	struct tx_env e, alone;
	char name[96], why[300] = "";
	bool ok;

	roce_random_hdr(b, &first, 0x04, 8, 200);
	bench_fill(b, payload, first.payload_len);
	env_open(&alone, b, ops, 0, 0);
	send_frame(&alone, &first, 5, payload, first.payload_len);
	run_timed(&alone, 1000, &alone_t);
	first_beats = (alone.expect[0].len + alone.bytes - 1) / alone.bytes;
	alone_cycles = alone_t.last + 1;
	env_close(&alone);

	env_open(&e, b, ops, 0, 0);
	send_frame(&e, &first, 5, payload, first.payload_len);
	for (unsigned int i = 0; i < (b->quick ? 200 : 2000); i++)
		random_frame(&e, bench_chance(b, 20) ? 4096 : 200);
	for (size_t i = 0; i < e.nexpect; i++) {
		beats += (e.expect[i].len + e.bytes - 1) / e.bytes;
		bytes += e.expect[i].len;
	}
	run_timed(&e, 100 * beats + 1000, &t);
	cycles = t.last + 1;
	ok = alone_t.last && t.last;
	if (!ok)
		snprintf(why, sizeof(why), "hang: not every frame came out");
	else
		ok = check(&e, why, sizeof(why));
	snprintf(name, sizeof(name), "tx_line_rate_%s", width);
	bench_result(b, name, ok, "%s", why);

	snprintf(name, sizeof(name), "tx_line_rate_beats_%s", width);
	bench_result(b, name, t.last && e.out.beats == beats,
		     "%llu beats out, the frames need %llu", (unsigned long long)e.out.beats,
		     (unsigned long long)beats);
	snprintf(name, sizeof(name), "tx_line_rate_no_idle_%s", width);
	bench_result(b, name, t.last && !t.idle, "%llu idle cycles after the first frame",
		     (unsigned long long)t.idle);
	snprintf(name, sizeof(name), "tx_line_rate_cycles_%s", width);
	bench_result(b, name,
		     t.last && alone_t.last && cycles == alone_cycles + beats - first_beats,
		     "%llu cycles for %llu beats; the first frame alone took %llu for %llu",
		     (unsigned long long)cycles, (unsigned long long)beats,
		     (unsigned long long)alone_cycles, (unsigned long long)first_beats);
	if (ok)
		bench_log(
			b,
			"%s: %zu frames, %llu bytes in %llu cycles: %.2f bytes/cycle, %.2f from the "
			"second frame on (of %u); a lone frame: first beat %llu cycles after its "
			"header, last beat (of %llu) %llu after",
			width, e.nexpect, (unsigned long long)bytes, (unsigned long long)cycles,
			(double)bytes / (double)cycles,
			(double)(bytes - e.expect[0].len) / (double)(t.last - t.second_frame + 1),
			e.bytes, (unsigned long long)alone_t.first, (unsigned long long)first_beats,
			(unsigned long long)alone_t.last);
	env_close(&e);
}

/*
 * Payload streams that disagree with PAYLOAD_LEN: short by beats (tlast early) or by bytes
 * (a thin last beat), long by bytes (a fat last beat) or by beats (beats after the last),
 * down to one byte; or of the right length with a beat before the last short of lanes.
 * Each gives a frame of the header's length, zeros for what is missing, tuser on its last
 * beat and a stat_payload_error pulse; the good frames around are intact.
 */
static void test_bad_payload(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	static uint8_t payload[4096 + 8 * 64];
	struct tx_env e;
	unsigned int kinds[7] = { 0 };
	char why[300] = "";

	env_open(&e, b, ops, 10, 10);
	bench_fill(b, payload, sizeof(payload));
	for (unsigned int i = 0; i < (b->quick ? 120 : 1200); i++) {
		unsigned int K = e.bytes, kind = (unsigned int)bench_range(b, 0, 6);
		unsigned int len, tail;
		size_t sent = 0;
		struct roce_hdr h;

		roce_random_hdr(b, &h, 0x04, K, 0);
		h.payload_len = (uint16_t)(bench_chance(b, 50) ? bench_range(b, 1, 4 * K)
							       : bench_range(b, 1, 4096));
		len = h.payload_len;
		tail = (len - 1) % K + 1; /* bytes in the last beat */
		switch (kind) {
		case 0: /* right */
			sent = len;
			break;
		case 1: /* short by one beat or more */
			if (len <= K)
				continue;
			sent = bench_range(b, 1, len - tail);
			break;
		case 2: /* short within the last beat */
			if (tail == 1)
				continue;
			sent = len - bench_range(b, 1, tail - 1);
			break;
		case 3: /* long within the last beat */
			if (tail == K)
				continue;
			sent = len + bench_range(b, 1, K - tail);
			break;
		case 4: /* long by one beat or more */
			sent = len + (K - tail) + bench_range(b, 1, 3 * K);
			break;
		case 5: /* one byte */
			if (len == 1)
				continue;
			sent = 1;
			break;
		default: /* a beat before the last short of lanes */
			if (len <= K)
				continue;
			kinds[kind]++;
			send_thin_frame(&e, &h, payload,
					(unsigned int)bench_range(b, 0, (len - 1) / K - 1),
					(unsigned int)bench_range(b, 1, K - 1));
			continue;
		}
		kinds[kind]++;
		send_frame(&e, &h, 1, payload, sent);
	}
	finish(&e, name);
	snprintf(why, sizeof(why), "%s_kinds", name);
	bench_result(b, why,
		     kinds[0] && kinds[1] && kinds[2] && kinds[3] && kinds[4] && kinds[5] &&
			     kinds[6],
		     "cases run: %u right, %u short, %u thin last beat, %u fat last beat, %u long, "
		     "%u one byte, %u thin middle beat",
		     kinds[0], kinds[1], kinds[2], kinds[3], kinds[4], kinds[5], kinds[6]);
	env_close(&e);
}

/*
 * Every RoCE frame of the Soft-RoCE captures, rebuilt by the RTL from its parsed fields
 * and payload (with the capture's UDP source port): the bytes equal the original frame.
 */
static void test_pcap_rebuild(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	static const char *const captures[] = { "rxe-atomic.pcap",
						"rxe-read.pcap",
						"rxe-send.pcap",
						"rxe-write.pcap",
						"rxe-ipv6-rc-pingpong.pcap",
						"rxe-ipv6-write-bw.pcap" };
	struct tx_env e;
	char path[256], why[300] = "";
	bool ok;

	env_open(&e, b, ops, 10, 10);
	for (size_t i = 0; i < sizeof(captures) / sizeof(captures[0]); i++) {
		struct roce_capture c;

		snprintf(path, sizeof(path), "testbench/data/%s", captures[i]);
		roce_capture_load(path, &c);
		for (size_t k = 0; k < c.count; k++) {
			const uint8_t *payload;
			struct roce_hdr h;
			struct expect_frame *x;

			if (roce_parse(c.frames[k].data, c.frames[k].len, &h, &payload) != ROCE_OK)
				continue;
			send_frame(&e, &h, 0, payload, h.payload_len);
			/* the expectation is the capture itself, not the C builder's frame */
			x = &e.expect[e.nexpect - 1];
			free(x->frame);
			x->frame = xmalloc(c.frames[k].len);
			memcpy(x->frame, c.frames[k].data, c.frames[k].len);
			x->len = c.frames[k].len;
		}
		roce_capture_free(&c);
	}
	ok = dut_run(&e.dut, 200, HANG_CYCLES);
	if (!ok)
		snprintf(why, sizeof(why), "hang: no progress for %d cycles", HANG_CYCLES);
	else
		ok = check(&e, why, sizeof(why));
	bench_result(b, name, ok && e.nexpect > 1200, "%s (%zu frames)", why, e.nexpect);
	env_close(&e);
}

/* The known opcodes (RC, UC, UD) in order; returns how many. */
static unsigned int known_opcodes(uint8_t ops[256])
{
	unsigned int n = 0;

	for (unsigned int k = 0; k < 256; k++)
		if (roce_opcode_info((uint8_t)k))
			ops[n++] = (uint8_t)k;
	return n;
}

/*
 * RTL-built frames of every opcode, VLAN and not, into a pcap: the scoreboard agrees with
 * them, and tshark and scapy read them as RoCE.
 */
static void test_decoders(struct bench *b, const struct vmodel_ops *ops, const char *width)
{
	static uint8_t payload[1500];
	char name[96];
	struct tx_env e;
	uint8_t opcodes[256];
	unsigned int nops = known_opcodes(opcodes);

	env_open(&e, b, ops, 10, 10);
	e.capture = pcap_open_write(SAMPLE, true);
	if (!e.capture) {
		perror(SAMPLE);
		exit(1);
	}
	/* tshark guesses at payloads (Ethernet, RPC, ...): give it nothing to guess from */
	memset(payload, 0, sizeof(payload));
	for (unsigned int i = 0; i < 2 * nops; i++) {
		struct roce_hdr h;

		roce_random_hdr(b, &h, opcodes[i % nops], e.bytes, 1500);
		h.vlan_valid = i >= nops;
		/* half of each in IPv6 */
		if (i % 2 && !h.ip6)
			roce_random_ip6(b, &h);
		else if (!(i % 2))
			h.ip6 = false;
		if (bench_chance(b, 50))
			h.udp_sport = 0;
		send_frame(&e, &h, (uint32_t)bench_range(b, 1, 0xffffff), payload, h.payload_len);
	}
	snprintf(name, sizeof(name), "tx_sample_%s", width);
	finish(&e, name);
	pcap_close(e.capture);
	e.capture = NULL;
	snprintf(name, sizeof(name), "tx_sample_%s_tshark_V", width);
	roce_oracle_tshark_verbose(b, name, SAMPLE, e.nexpect);
	snprintf(name, sizeof(name), "tx_sample_%s_tshark", width);
	roce_oracle_tshark(b, name, SAMPLE);
	snprintf(name, sizeof(name), "tx_sample_%s_scapy", width);
	roce_oracle_scapy(b, name, SAMPLE);
	env_close(&e);
}

int main(int argc, char **argv)
{
	const struct {
		const struct vmodel_ops *ops;
		const char *width;
	} models[] = { { &vmodel_Vroce_tx_w64, "w64" },
		       { &vmodel_Vroce_tx_w128, "w128" },
		       { &vmodel_Vroce_tx_w256, "w256" },
		       { &vmodel_Vroce_tx_w512, "w512" } };
	struct bench b;
	char name[96];

	bench_init(&b, "test_tx", argc, argv);
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		const char *w = models[i].width;

		if (!models[i].ops)
			continue;
		snprintf(name, sizeof(name), "tx_pcap_rebuild_%s", w);
		test_pcap_rebuild(&b, models[i].ops, name);
		test_random(&b, models[i].ops, w);
		snprintf(name, sizeof(name), "tx_long_payload_%s", w);
		test_long_payload(&b, models[i].ops, name);
		snprintf(name, sizeof(name), "tx_unknown_opcode_%s", w);
		test_unknown_opcode(&b, models[i].ops, name);
		test_line_rate(&b, models[i].ops, w);
		snprintf(name, sizeof(name), "tx_bad_payload_%s", w);
		test_bad_payload(&b, models[i].ops, name);
		test_decoders(&b, models[i].ops, w);
	}
	return bench_finish(&b);
}
