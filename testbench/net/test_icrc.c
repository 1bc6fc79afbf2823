// SPDX-License-Identifier: MIT
/*
 * Bench of roce_icrc, the pipelined ICRC engine, at 64 and 512 bits.
 *
 * The C wire library is the scoreboard: each frame's result must be the CRC of its covered
 * bytes from the ICRC seed, ~roce_crc32_update(ROCE_ICRC_SEED, bytes, n), come exactly
 * 3 + log2(lanes) cycles after the frame's last beat, in frame order, and no result may
 * come without a frame. Uncovered lanes carry random bytes (or the frame's own), which the
 * engine must ignore; so do all inputs but s_valid on idle cycles.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "pcap.h"
#include "roce_wire.h"

extern const struct vmodel_ops vmodel_Vroce_icrc_w64, vmodel_Vroce_icrc_w512;

#define MAX_COVERED 4200
/* the engine takes a beat whenever one is offered: only a bench bug could stall it */
#define HANG_CYCLES 1000
#define PCAP_NAME "rxe-send.pcap"
/* the capture, in the repository, or where the project's captures come from */
static const char *const pcap_dirs[] = { "testbench/data", "../shared/pcap" };

/*
 * A frame as the engine sees it: beats cut from buf at multiples of the beat size, the
 * covered bytes being buf[begin, end); the lanes outside carry whatever buf holds.
 */
struct feed {
	uint8_t *buf;
	size_t begin, end;
	bool empty_last;     /* one more beat, with no lane covered, carries s_last */
	uint32_t icrc;	     /* the result it must give */
	uint64_t last_cycle; /* the cycle its last beat went in */
};

struct icrc_env {
	struct bench *b;
	struct dut dut;
	const struct vmodel_port *data, *keep, *valid, *first, *last, *m_icrc, *m_valid;
	unsigned int bytes, latency, idle_pct;
	uint8_t *junk; /* an idle cycle's s_data */
	struct feed *feeds;
	size_t nfeeds, cap;
	size_t next;  /* the frame being driven */
	size_t beat;  /* its next beat, counted from buf[0] */
	bool started; /* its first beat went in */
	size_t results;
	uint64_t first_result, last_result; /* cycles of this batch's first and last results */
	uint64_t frames, beats;		    /* over all batches, for the figure */
	char error[256];
};

static size_t first_beat(const struct icrc_env *e, const struct feed *f)
{
	return f->begin / e->bytes;
}

static size_t final_beat(const struct icrc_env *e, const struct feed *f)
{
	size_t covered_last = f->end > f->begin ? (f->end - 1) / e->bytes : f->begin / e->bytes;

	return covered_last + f->empty_last;
}

static void fail(struct icrc_env *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Keeps the first failure of a batch: the later ones usually follow from it. */
static void fail(struct icrc_env *e, const char *fmt, ...)
{
	va_list ap;

	if (e->error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(e->error, sizeof(e->error), fmt, ap);
	va_end(ap);
}

static void drive(void *ctx)
{
	struct icrc_env *e = ctx;
	struct feed *f;
	uint64_t keep = 0;
	size_t base;
	bool last;

	if (e->next == e->nfeeds || bench_chance(e->b, e->idle_pct)) {
		bench_fill(e->b, e->junk, e->bytes);
		vport_write(e->data, e->junk, e->bytes);
		vport_set(e->keep, bench_rand(e->b));
		vport_set(e->first, bench_rand(e->b));
		vport_set(e->last, bench_rand(e->b));
		vport_set(e->valid, 0);
		return;
	}
	f = &e->feeds[e->next];
	if (!e->started) {
		e->beat = first_beat(e, f);
		e->started = true;
	}
	base = e->beat * e->bytes;
	for (unsigned int i = 0; i < e->bytes; i++)
		if (base + i >= f->begin && base + i < f->end)
			keep |= UINT64_C(1) << i;
	last = e->beat == final_beat(e, f);
	vport_write(e->data, f->buf + base, e->bytes);
	vport_set(e->keep, keep);
	vport_set(e->first, e->beat == first_beat(e, f));
	vport_set(e->last, last);
	vport_set(e->valid, 1);
	e->beats++;
	e->dut.transfers++;
	e->beat++;
	if (last) {
		f->last_cycle = e->dut.cycle;
		free(f->buf);
		f->buf = NULL;
		e->next++;
		e->dut.pending--;
		e->started = false;
	}
}

static void sample(void *ctx)
{
	struct icrc_env *e = ctx;
	uint64_t cycle = e->dut.cycle;
	uint32_t got;
	struct feed *f;

	if (!vport_get(e->m_valid))
		return;
	got = (uint32_t)vport_get(e->m_icrc);
	e->dut.transfers++;
	if (e->results == e->next) {
		fail(e, "a result (%08x) in cycle %llu, %zu frames in, all answered", got,
		     (unsigned long long)cycle, e->next);
		return;
	}
	if (!e->results)
		e->first_result = cycle;
	e->last_result = cycle;
	f = &e->feeds[e->results];
	if (got != f->icrc)
		fail(e, "frame %zu (%zu bytes from lane %zu): ICRC %08x, want %08x", e->results,
		     f->end - f->begin, f->begin % e->bytes, got, f->icrc);
	else if (cycle - f->last_cycle != e->latency)
		fail(e, "frame %zu: result %llu cycles after its last beat, want %u", e->results,
		     (unsigned long long)(cycle - f->last_cycle), e->latency);
	e->results++;
}

static void env_open(struct icrc_env *e, struct bench *b, const struct vmodel_ops *ops)
{
	memset(e, 0, sizeof(*e));
	e->b = b;
	dut_open(&e->dut, b, ops);
	e->data = dut_port(&e->dut, "s_data");
	e->keep = dut_port(&e->dut, "s_keep");
	e->valid = dut_port(&e->dut, "s_valid");
	e->first = dut_port(&e->dut, "s_first");
	e->last = dut_port(&e->dut, "s_last");
	e->m_icrc = dut_port(&e->dut, "m_icrc");
	e->m_valid = dut_port(&e->dut, "m_valid");
	e->bytes = e->keep->width;
	/* the loop's three stages and the two that undo trailing lanes, at every width */
	e->latency = 5;
	e->junk = malloc(e->bytes);
	if (!e->junk) {
		perror("malloc");
		exit(1);
	}
	dut_reset(&e->dut, 4);
	dut_add_agent(&e->dut, drive, sample, e);
}

/* Forgets the last batch's frames; the engine carries on from where it is. */
static void env_clear(struct icrc_env *e)
{
	for (size_t i = 0; i < e->nfeeds; i++)
		free(e->feeds[i].buf);
	e->nfeeds = e->next = e->results = 0;
	e->dut.pending = 0;
	e->started = false;
	e->error[0] = 0;
}

static void env_close(struct icrc_env *e)
{
	env_clear(e);
	free(e->feeds);
	free(e->junk);
	dut_close(&e->dut);
}

/*
 * Queues a frame covering [begin, end) of a buffer that starts with src (random bytes
 * when src is NULL) and is padded with random bytes to whole beats.
 */
static void push(struct icrc_env *e, const uint8_t *src, size_t src_len, size_t begin, size_t end,
		 bool empty_last)
{
	struct feed *f;
	size_t len;

	if (e->nfeeds == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 256;
		e->feeds = realloc(e->feeds, e->cap * sizeof(*e->feeds));
		if (!e->feeds) {
			perror("realloc");
			exit(1);
		}
	}
	f = &e->feeds[e->nfeeds];
	*f = (struct feed){ .begin = begin, .end = end, .empty_last = empty_last };
	len = (final_beat(e, f) + 1) * e->bytes;
	f->buf = malloc(len);
	if (!f->buf) {
		perror("malloc");
		exit(1);
	}
	bench_fill(e->b, f->buf, len);
	if (src)
		memcpy(f->buf, src, src_len < len ? src_len : len);
	f->icrc = ~roce_crc32_update(ROCE_ICRC_SEED, f->buf + begin, end - begin);
	e->nfeeds++;
	e->frames++;
	e->dut.pending++;
}

/* A random frame of n covered bytes from lane lead of its first beat. */
static void push_random(struct icrc_env *e, size_t lead, size_t n, bool empty_last)
{
	push(e, NULL, 0, lead, lead + n, empty_last);
}

/* Runs the queued frames through with idle_pct % idle cycles; true if all came out right. */
static bool run(struct icrc_env *e, unsigned int idle_pct)
{
	e->idle_pct = idle_pct;
	/* quiet long enough for every result, and for one that should not be there */
	if (!dut_run(&e->dut, 2 * e->latency + 8, HANG_CYCLES))
		fail(e, "no beat went in for %u cycles, %zu frames to go", HANG_CYCLES,
		     e->nfeeds - e->next);
	if (!e->error[0] && e->results != e->nfeeds)
		fail(e, "%zu results for %zu frames", e->results, e->nfeeds);
	return !e->error[0];
}

/* Runs the queued frames and reports them as one result. */
static void result(struct icrc_env *e, const char *test, unsigned int idle_pct)
{
	char name[64];

	snprintf(name, sizeof(name), "%s_w%u", test, 8 * e->bytes);
	bench_result(e->b, name, run(e, idle_pct), "%s", e->error);
	env_clear(e);
}

static void test_random(struct icrc_env *e, unsigned int frames)
{
	struct bench *b = e->b;

	for (unsigned int i = 0; i < frames; i++)
		push_random(e, bench_range(b, 0, e->bytes - 1), bench_range(b, 1, MAX_COVERED),
			    false);
	result(e, "random_gaps", 30);

	/* short frames too, so that the loop often restarts right after a last beat */
	for (unsigned int i = 0; i < frames; i++) {
		size_t max = bench_chance(b, 50) ? 3 * e->bytes : MAX_COVERED;

		push_random(e, bench_range(b, 0, e->bytes - 1), bench_range(b, 1, max), false);
	}
	result(e, "random_back_to_back", 0);
}

static void test_directed(struct icrc_env *e)
{
	struct bench *b = e->b;
	unsigned int w = e->bytes;

	push_random(e, 0, 1, false);
	push_random(e, w / 2 - 1, 1, false);
	push_random(e, w - 1, 1, false);
	result(e, "single_byte", 20);

	push_random(e, 1, w - 2, false);
	push_random(e, 3, 2, false);
	push_random(e, w / 2, 1 + w / 4, false);
	result(e, "partial_beat", 20);

	push_random(e, 0, w, false);
	push_random(e, 0, w, false);
	result(e, "full_beat", 20);

	for (unsigned int k = 1; k <= 6; k++) {
		push_random(e, 0, k * w, false);
		push_random(e, bench_range(b, 1, w - 1), k * w, false);
	}
	push_random(e, 0, MAX_COVERED / w * w, false);
	result(e, "whole_beats", 20);

	/* a beat with no covered lane changes nothing: it may end a frame after a full beat */
	for (unsigned int i = 0; i < 16; i++) {
		size_t lead = bench_range(b, 0, w - 1);

		push_random(e, lead, bench_range(b, 1, 3) * w - lead, true);
	}
	push_random(e, bench_range(b, 0, w - 1), 0, false);
	push_random(e, 0, 0, true);
	result(e, "uncovered_beats", 20);
}

/* Frames of one beat each, every cycle: one result per cycle. */
static void test_throughput(struct icrc_env *e, unsigned int frames)
{
	struct bench *b = e->b;
	char name[64];
	bool ok;

	for (unsigned int i = 0; i < frames; i++) {
		size_t lead = bench_range(b, 0, e->bytes - 1);

		push_random(e, lead, bench_range(b, 1, e->bytes - lead), false);
	}
	ok = run(e, 0);
	if (ok && e->last_result - e->first_result != frames - 1)
		fail(e, "%u results over %llu cycles", frames,
		     (unsigned long long)(e->last_result - e->first_result + 1));
	snprintf(name, sizeof(name), "one_beat_frames_w%u", 8 * e->bytes);
	bench_result(b, name, !e->error[0], "%s", e->error);
	env_clear(e);
}

static struct pcap_file *open_capture(char *path, size_t len)
{
	for (size_t i = 0; i < sizeof(pcap_dirs) / sizeof(pcap_dirs[0]); i++) {
		struct pcap_file *pf;

		snprintf(path, len, "%s/%s", pcap_dirs[i], PCAP_NAME);
		pf = pcap_open_read(path);
		if (pf)
			return pf;
	}
	return NULL;
}

static uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/*
 * The first RoCEv2 frame of a capture (untagged IPv4, no IP options), masked and fed from
 * frame byte 0, so that the Ethernet header fills uncovered leading lanes and the ICRC
 * uncovered trailing ones: the result must be the ICRC the frame carries.
 */
static void test_capture(struct icrc_env *e)
{
	struct pcap_packet pkt;
	struct pcap_file *pf;
	char path[256], name[64];
	uint8_t *frame = NULL;
	size_t ip_len = 0, len = 0;
	uint32_t carried;

	snprintf(name, sizeof(name), "capture_w%u", 8 * e->bytes);
	pf = open_capture(path, sizeof(path));
	if (!pf) {
		bench_result(e->b, name, false, "cannot read %s", PCAP_NAME);
		return;
	}
	while (pcap_read(pf, &pkt) == 0) {
		const uint8_t *ip = pkt.data + 14;

		if (pkt.len < 14 + 20 + 8 + 12 + 4 || get_be16(pkt.data + 12) != 0x0800 ||
		    ip[0] != 0x45 || ip[9] != 17 || get_be16(ip + 22) != 4791)
			continue;
		ip_len = get_be16(ip + 2);
		len = 14 + ip_len;
		if (len > pkt.len)
			continue;
		frame = malloc(len);
		if (frame)
			memcpy(frame, pkt.data, len);
		break;
	}
	pcap_close(pf);
	if (!frame) {
		bench_result(e->b, name, false, "no RoCEv2 frame in %s", path);
		return;
	}
	carried = (uint32_t)frame[len - 4] | (uint32_t)frame[len - 3] << 8 |
		  (uint32_t)frame[len - 2] << 16 | (uint32_t)frame[len - 1] << 24;
	/* the invariant mask: IP TOS, TTL and checksum, UDP checksum, BTH byte 4 */
	frame[14 + 1] = 0xff;
	frame[14 + 8] = 0xff;
	memset(frame + 14 + 10, 0xff, 2);
	memset(frame + 14 + 20 + 6, 0xff, 2);
	frame[14 + 28 + 4] = 0xff;
	push(e, frame, len, 14, len - 4, false);
	e->feeds[e->nfeeds - 1].icrc = carried;
	free(frame);
	result(e, "capture", 0);
}

int main(int argc, char **argv)
{
	static const struct vmodel_ops *const models[] = { &vmodel_Vroce_icrc_w64,
							   &vmodel_Vroce_icrc_w512 };
	unsigned long long frames = 0, beats = 0, cycles = 0;
	struct bench b;

	bench_init(&b, "test_icrc", argc, argv);
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		struct icrc_env e;

		env_open(&e, &b, models[i]);
		test_random(&e, b.quick ? 100 : 1000);
		test_directed(&e);
		test_throughput(&e, b.quick ? 64 : 512);
		test_capture(&e);
		frames += e.frames;
		beats += e.beats;
		cycles += e.dut.cycle;
		env_close(&e);
	}
	bench_log(&b, "%llu frames, %llu beats in %llu cycles (64 and 512 bits)", frames, beats,
		  cycles);
	return bench_finish(&b);
}
