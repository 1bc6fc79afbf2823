// SPDX-License-Identifier: MIT
/*
 * Bench of roce_tx, the RoCEv2 transmit path, at 64 and 512 bits.
 *
 * The C builder (roce_build_frame) is the scoreboard: every frame must come out byte for
 * byte as it builds it from the same header and payload. Headers carry random values in
 * the fields their opcode does not use: the RTL must ignore them.
 */
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

#define HANG_CYCLES 20000
#define SAMPLE "build/test-tx-sample.pcap"

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
	size_t nexpect, cap;
	uint64_t frames_seen, errors_seen;
};

static void count_stats(void *ctx)
{
	struct tx_env *e = ctx;

	e->frames_seen += vport_get(e->stat_frame);
	e->errors_seen += vport_get(e->stat_error);
}

static void env_open(struct tx_env *e, struct bench *b, const struct vmodel_ops *ops,
		     unsigned int idle_pct, unsigned int busy_pct)
{
	memset(e, 0, sizeof(*e));
	e->b = b;
	dut_open(&e->dut, b, ops);
	axis_source_init(&e->hdr, &e->dut, "s_hdr", idle_pct);
	axis_source_init(&e->pay, &e->dut, "s_axis", idle_pct);
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
	axis_source_free(&e->hdr);
	axis_source_free(&e->pay);
	axis_sink_free(&e->out);
	dut_close(&e->dut);
}

/*
 * Queues a frame: the header, and a payload of sent_len bytes (PAYLOAD_LEN unless the test
 * lies); the C builder says what must come out, zeros standing in for missing bytes.
 */
static void send_frame(struct tx_env *e, const struct roce_hdr *h, uint32_t src_qpn,
		       const uint8_t *payload, size_t sent_len)
{
	static uint8_t full[8192];
	struct roce_hdr c = *h;
	struct expect_frame *x;
	roce_bus_t bus;
	uint8_t frame[8400];
	size_t len;

	if (e->nexpect == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 256;
		e->expect = realloc(e->expect, e->cap * sizeof(*e->expect));
		if (!e->expect) {
			perror("realloc");
			exit(1);
		}
	}
	memset(full, 0, h->payload_len);
	memcpy(full, payload, sent_len < h->payload_len ? sent_len : h->payload_len);
	if (!c.udp_sport)
		c.udp_sport = roce_udp_sport(src_qpn, h->dqpn);
	roce_hdr_canonical(&c);
	if (roce_build_frame(&c, full, true, frame, sizeof(frame), &len)) {
		fprintf(stderr, "roce_build_frame failed for opcode %#x\n", c.opcode);
		exit(1);
	}
	x = &e->expect[e->nexpect++];
	x->frame = malloc(len);
	memcpy(x->frame, frame, len);
	x->len = len;
	x->error = sent_len != h->payload_len;
	roce_hdr_to_bus(h, src_qpn, bus);
	axis_source_push(&e->hdr, bus, ROCE_BUS_BYTES, -1);
	if (sent_len)
		axis_source_push(&e->pay, payload, sent_len, -1);
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
		if (!ok) {
			size_t at = 0;

			while (at < f.len && at < x->len && f.data[at] == x->frame[at])
				at++;
			snprintf(why, whylen,
				 "frame %zu: %zu bytes (want %zu), first difference at byte %zu, "
				 "tuser %u (want %u)",
				 i, f.len, x->len, at, f.user, x->error);
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
	if (e->frames_seen != e->nexpect) {
		snprintf(why, whylen, "stat_frame pulsed %llu times for %zu frames",
			 (unsigned long long)e->frames_seen, e->nexpect);
		return false;
	}
	return true;
}

static void finish(struct tx_env *e, const char *name)
{
	char why[256] = "";
	bool ok = dut_run(&e->dut, 200, HANG_CYCLES);

	if (!ok)
		snprintf(why, sizeof(why), "hang: no progress for %d cycles", HANG_CYCLES);
	else
		ok = check(e, why, sizeof(why));
	bench_result(e->b, name, ok, "%s", why);
}

static void random_frame(struct tx_env *e, unsigned int max_len)
{
	static uint8_t payload[4096];
	struct roce_hdr h;

	roce_random_hdr(e->b, &h, roce_random_opcode(e->b), e->bytes, max_len);
	if (bench_chance(e->b, 50))
		h.udp_sport = 0; /* the path derives it from the QPNs */
	bench_fill(e->b, payload, h.payload_len);
	send_frame(e, &h, (uint32_t)bench_rand(e->b) & 0xffffff, payload, h.payload_len);
}

static void test_random(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	struct tx_env e;

	env_open(&e, b, ops, 20, 20);
	for (unsigned int i = 0; i < (b->quick ? 300 : 10000); i++)
		random_frame(&e, 4096);
	finish(&e, name);
	env_close(&e);
}

/*
 * Back to back, nothing idle, nothing held: from the second frame's first beat out to the
 * last beat, every cycle carries a beat, so frames leave at one beat per cycle with no gap
 * between them. (The first frame waits once for its ICRC: the pipeline filling.)
 */
static void test_line_rate(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	struct tx_env e;
	uint64_t beats = 0, first = 0, last = 0;
	char why[256] = "";
	bool ok;

	env_open(&e, b, ops, 0, 0);
	for (unsigned int i = 0; i < (b->quick ? 100 : 400); i++)
		random_frame(&e, bench_chance(b, 50) ? 4096 : 200);
	for (size_t i = 1; i < e.nexpect; i++)
		beats += (e.expect[i].len + e.bytes - 1) / e.bytes;
	while (e.out.frames < e.nexpect && e.dut.cycle < 100 * beats + 1000) {
		uint64_t before = e.out.frames;

		dut_step(&e.dut);
		if (!first && before == 0 && e.out.frames == 1)
			first = e.dut.cycle + 1;
		if (e.out.frames == e.nexpect && !last)
			last = e.dut.cycle;
	}
	ok = check(&e, why, sizeof(why));
	bench_result(b, name, ok, "%s", why);
	snprintf(why, sizeof(why), "%s_no_gap", name);
	bench_result(b, why, ok && last - first + 1 == beats,
		     "%llu beats took %llu cycles from the first to the last",
		     (unsigned long long)beats, (unsigned long long)(last - first + 1));
	env_close(&e);
}

/* Payloads shorter and longer than PAYLOAD_LEN: flagged, framed right, no harm after. */
static void test_bad_payload(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	static uint8_t payload[4200];
	struct tx_env e;
	struct roce_hdr h;

	env_open(&e, b, ops, 10, 10);
	bench_fill(b, payload, sizeof(payload));
	for (unsigned int i = 0; i < 60; i++) {
		roce_random_hdr(b, &h, 0x04, e.bytes, 0);
		h.payload_len = (uint16_t)bench_range(b, 1, 600);
		switch (i % 3) {
		case 0: /* short by at least one beat */
			if (h.payload_len > e.bytes) {
				send_frame(&e, &h, 1, payload,
					   bench_range(b, 1, h.payload_len - e.bytes));
				break;
			}
			/* fall through */
		case 1: /* long by at least one beat */
			send_frame(&e, &h, 1, payload,
				   h.payload_len + bench_range(b, e.bytes, 3 * e.bytes));
			break;
		default:
			send_frame(&e, &h, 1, payload, h.payload_len);
			break;
		}
	}
	finish(&e, name);
	bench_result(b, name, e.errors_seen == 40 || e.errors_seen == e.frames_seen - 20,
		     "stat_payload_error pulsed %llu times", (unsigned long long)e.errors_seen);
	env_close(&e);
}

/*
 * Every RoCE frame of the Soft-RoCE captures, rebuilt by the RTL from its parsed fields
 * and payload (with the capture's UDP source port): the bytes equal the original frame.
 */
static void test_pcap_rebuild(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	static const char *const captures[] = { "rxe-atomic.pcap", "rxe-read.pcap", "rxe-send.pcap",
						"rxe-write.pcap" };
	struct tx_env e;
	char path[256], why[256] = "";
	bool ok;

	env_open(&e, b, ops, 10, 10);
	for (size_t i = 0; i < sizeof(captures) / sizeof(captures[0]); i++) {
		struct roce_capture c;

		snprintf(path, sizeof(path), "testbench/data/%s", captures[i]);
		roce_capture_load(path, &c);
		for (size_t k = 0; k < c.count; k++) {
			const uint8_t *payload;
			struct roce_hdr h;

			if (roce_parse(c.frames[k].data, c.frames[k].len, &h, &payload) != ROCE_OK)
				continue;
			send_frame(&e, &h, 0, payload, h.payload_len);
			/* the expectation is the capture itself, not the C builder's frame */
			free(e.expect[e.nexpect - 1].frame);
			e.expect[e.nexpect - 1].frame = malloc(c.frames[k].len);
			memcpy(e.expect[e.nexpect - 1].frame, c.frames[k].data, c.frames[k].len);
			e.expect[e.nexpect - 1].len = c.frames[k].len;
		}
		roce_capture_free(&c);
	}
	ok = dut_run(&e.dut, 200, HANG_CYCLES);
	if (!ok)
		snprintf(why, sizeof(why), "hang: no progress for %d cycles", HANG_CYCLES);
	else
		ok = check(&e, why, sizeof(why));
	bench_result(b, name, ok && e.nexpect > 900, "%s (%zu frames)", why, e.nexpect);
	env_close(&e);
}

/* RTL-built frames of every opcode in a pcap: tshark and scapy read them as RoCE. */
static void test_decoders(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	char sub[96];
	struct tx_env e;
	struct pcap_file *pf;
	struct axis_frame f;
	size_t n = 0;

	env_open(&e, b, ops, 0, 0);
	for (unsigned int i = 0; i < 200; i++) {
		static uint8_t payload[4096];
		struct roce_hdr h;

		roce_random_hdr(b, &h, roce_random_opcode(b), e.bytes, 1500);
		h.udp_sport = 0;
		/* tshark guesses at payloads (Ethernet, RPC, ...): give it nothing to guess from */
		memset(payload, 0, sizeof(payload));
		send_frame(&e, &h, (uint32_t)bench_range(b, 1, 0xffffff), payload, h.payload_len);
	}
	dut_run(&e.dut, 200, HANG_CYCLES);
	pf = pcap_open_write(SAMPLE, true);
	while (pf && axis_sink_pop(&e.out, &f)) {
		pcap_write(pf, f.first_cycle * 4, f.data, f.len);
		free(f.data);
		n++;
	}
	if (pf)
		pcap_close(pf);
	bench_result(b, name, n == e.nexpect, "%zu of %zu frames came out", n, e.nexpect);
	snprintf(sub, sizeof(sub), "%s_tshark", name);
	roce_oracle_tshark(b, sub, SAMPLE);
	snprintf(sub, sizeof(sub), "%s_scapy", name);
	roce_oracle_scapy(b, sub, SAMPLE);
	env_close(&e);
}

int main(int argc, char **argv)
{
	static const struct {
		const struct vmodel_ops *ops;
		const char *width;
	} models[] = { { &vmodel_Vroce_tx_w64, "w64" }, { &vmodel_Vroce_tx_w512, "w512" } };
	struct bench b;
	char name[64];

	bench_init(&b, "test_tx", argc, argv);
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		snprintf(name, sizeof(name), "tx_pcap_rebuild_%s", models[i].width);
		test_pcap_rebuild(&b, models[i].ops, name);
		snprintf(name, sizeof(name), "tx_random_%s", models[i].width);
		test_random(&b, models[i].ops, name);
		snprintf(name, sizeof(name), "tx_line_rate_%s", models[i].width);
		test_line_rate(&b, models[i].ops, name);
		snprintf(name, sizeof(name), "tx_bad_payload_%s", models[i].width);
		test_bad_payload(&b, models[i].ops, name);
		snprintf(name, sizeof(name), "tx_decoders_%s", models[i].width);
		test_decoders(&b, models[i].ops, name);
	}
	return bench_finish(&b);
}
