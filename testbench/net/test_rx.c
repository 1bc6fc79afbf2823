// SPDX-License-Identifier: MIT
/*
 * Bench of roce_rx, the RoCEv2 receive path, at 64 and 512 bits.
 *
 * The C wire-format library is the scoreboard: for every frame sent in, roce_parse() says
 * what must come out — a header and payload, a whole non-RoCE frame, or a drop under one
 * reason — and the RTL's outputs and counters must say the same, in order.
 *
 * With EARLY_HDR (the models roce_rx_early_*), a frame whose ICRC alone is wrong gives its
 * header too (the one the frame would have with its ICRC right), and every header is
 * followed by its verdict, good or bad, never before the header; the payload only for
 * good ones.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axis.h"
#include "bench.h"
#include "hroce_contract.h"
#include "pcap.h"
#include "roce_bus.h"
#include "roce_random.h"
#include "roce_wire.h"

extern const struct vmodel_ops vmodel_Vroce_rx_w64, vmodel_Vroce_rx_w512;
extern const struct vmodel_ops vmodel_Vroce_rx_early_w64, vmodel_Vroce_rx_early_w512;

#define DATA_DIR "testbench/data"
#define MAX_FRAME 4224
#define HANG_CYCLES 20000

struct expect_frame {
	unsigned int verdict; /* HROCE_ROCE_RX_DROP_* */
	uint8_t *frame;
	size_t len;
	struct roce_hdr hdr;
	size_t payload_off;
	bool early; /* EARLY_HDR: its header comes out (good, or bad by its ICRC alone) */
};

/* EARLY_HDR's verdicts, with the headers out before each (it must not come before its own) */
struct verdict {
	bool good;
	size_t headers_before;
};

struct rx_env {
	struct bench *b;
	struct dut dut;
	struct axis_source in;
	struct axis_sink hdr, pay, other;
	const struct vmodel_port *stat, *in_valid, *in_ready;
	const struct vmodel_port *other_valid, *other_ready, *other_last, *other_dest;
	unsigned int *kinds; /* m_other_tdest of each non-RoCE frame, as it left */
	size_t nkinds;
	unsigned int bytes;
	struct expect_frame *expect;
	size_t nexpect, cap;
	uint64_t counts[HROCE_ROCE_RX_DROP_COUNT];
	uint64_t stalls; /* cycles the input offered a beat and was refused */
	bool early;	 /* the model has EARLY_HDR */
	const struct vmodel_port *verdict_good, *verdict_valid, *verdict_ready;
	unsigned int busy_pct;
	struct verdict *verdicts;
	size_t nverdicts;
};

/* The verdict output's consumer: busy at random, every verdict taken recorded. */
static void verdict_drive(void *ctx)
{
	struct rx_env *e = ctx;

	vport_set(e->verdict_ready, !bench_chance(e->b, e->busy_pct));
}

static void verdict_sample(void *ctx)
{
	struct rx_env *e = ctx;

	if (!vport_get(e->verdict_valid) || !vport_get(e->verdict_ready))
		return;
	e->verdicts = realloc(e->verdicts, (e->nverdicts + 1) * sizeof(*e->verdicts));
	if (!e->verdicts) {
		perror("realloc");
		exit(1);
	}
	/* a header taken in this very cycle is counted by its sink's sample, which ran */
	e->verdicts[e->nverdicts++] =
		(struct verdict){ vport_get(e->verdict_good) != 0, axis_sink_count(&e->hdr) };
}

static void count_stalls(void *ctx)
{
	struct rx_env *e = ctx;

	if (vport_get(e->in_valid) && !vport_get(e->in_ready))
		e->stalls++;
}

/* m_other_tdest, sampled with each frame's last beat */
static void sample_kind(void *ctx)
{
	struct rx_env *e = ctx;

	if (!vport_get(e->other_valid) || !vport_get(e->other_ready) || !vport_get(e->other_last))
		return;
	e->kinds = realloc(e->kinds, (e->nkinds + 1) * sizeof(*e->kinds));
	if (!e->kinds) {
		perror("realloc");
		exit(1);
	}
	e->kinds[e->nkinds++] = (unsigned int)vport_get(e->other_dest);
}

/* What roce_rx must say of a non-RoCE frame: ARP, ICMP, ICMPv6 (untagged only) or other. */
static unsigned int expected_kind(const uint8_t *f, size_t len)
{
	unsigned int type = len >= 14 ? (unsigned int)f[12] << 8 | f[13] : 0;

	if (type == 0x0806)
		return HROCE_NET_FRAME_ARP;
	if (type == 0x0800 && len >= 14 + 24 && f[14 + 9] == 1)
		return HROCE_NET_FRAME_ICMP;
	if (type == 0x86dd && len >= 14 + 7 && f[14 + 6] == 58)
		return HROCE_NET_FRAME_ICMPV6;
	return HROCE_NET_FRAME_OTHER;
}

static void env_open(struct rx_env *e, struct bench *b, const struct vmodel_ops *ops,
		     unsigned int idle_pct, unsigned int busy_pct)
{
	memset(e, 0, sizeof(*e));
	e->b = b;
	e->early = ops == &vmodel_Vroce_rx_early_w64 || ops == &vmodel_Vroce_rx_early_w512;
	e->busy_pct = busy_pct;
	dut_open(&e->dut, b, ops);
	axis_source_init(&e->in, &e->dut, "s_axis", idle_pct);
	axis_sink_init(&e->hdr, &e->dut, "m_hdr", busy_pct);
	axis_sink_init(&e->pay, &e->dut, "m_axis", busy_pct);
	axis_sink_init(&e->other, &e->dut, "m_other", busy_pct);
	e->stat = dut_port(&e->dut, "stat_count");
	e->in_valid = dut_port(&e->dut, "s_axis_tvalid");
	e->in_ready = dut_port(&e->dut, "s_axis_tready");
	e->bytes = e->in.p.bytes;
	e->other_valid = dut_port(&e->dut, "m_other_tvalid");
	e->other_ready = dut_port(&e->dut, "m_other_tready");
	e->other_last = dut_port(&e->dut, "m_other_tlast");
	e->other_dest = dut_port(&e->dut, "m_other_tdest");
	dut_add_agent(&e->dut, NULL, count_stalls, e);
	dut_add_agent(&e->dut, NULL, sample_kind, e);
	e->verdict_good = dut_port(&e->dut, "m_verdict_good");
	e->verdict_valid = dut_port(&e->dut, "m_verdict_valid");
	e->verdict_ready = dut_port(&e->dut, "m_verdict_ready");
	dut_add_agent(&e->dut, verdict_drive, verdict_sample, e);
	dut_reset(&e->dut, 4);
}

static void env_close(struct rx_env *e)
{
	for (size_t i = 0; i < e->nexpect; i++)
		free(e->expect[i].frame);
	free(e->expect);
	free(e->kinds);
	free(e->verdicts);
	axis_source_free(&e->in);
	axis_sink_free(&e->hdr);
	axis_sink_free(&e->pay);
	axis_sink_free(&e->other);
	dut_close(&e->dut);
}

/* What the RTL must do with a frame: the C model's verdict, plus what only the MAC knows. */
static unsigned int expected_verdict(const uint8_t *f, size_t len, bool mac_error,
				     struct roce_hdr *h, size_t *payload_off)
{
	const uint8_t *payload;
	enum roce_verdict v;

	memset(h, 0, sizeof(*h));
	*payload_off = 0;
	v = roce_parse(f, len, h, &payload);
	if (payload)
		*payload_off = (size_t)(payload - f);
	/* a runt is a runt whatever the MAC says; any other flagged frame is the MAC's */
	if (mac_error && v != ROCE_RUNT)
		return HROCE_ROCE_RX_DROP_MAC_ERROR;
	switch (v) {
	case ROCE_RUNT:
		return HROCE_ROCE_RX_DROP_RUNT;
	case ROCE_GIANT:
		return HROCE_ROCE_RX_DROP_GIANT;
	default:
		/* the rest share their order with the RTL's counters */
		return (unsigned int)v;
	}
}

/*
 * The header EARLY_HDR gives for a frame bad by its ICRC alone: the frame's own, with the
 * payload length it would have; found by parsing a copy with its ICRC made right.
 */
static void header_of_bad_icrc(const uint8_t *f, size_t len, const struct roce_hdr *h,
			       struct roce_hdr *out)
{
	size_t l2 = h->vlan_valid ? 18 : 14;
	uint8_t *copy = malloc(len);
	const uint8_t *ip, *payload;
	size_t ip_total;
	uint32_t icrc;

	if (!copy) {
		perror("malloc");
		exit(1);
	}
	memcpy(copy, f, len);
	ip = copy + l2;
	ip_total = h->ip6 ? 40u + ((size_t)ip[4] << 8 | ip[5]) : ((size_t)ip[2] << 8 | ip[3]);
	icrc = roce_icrc(ip, ip_total);
	for (int k = 0; k < 4; k++)
		copy[l2 + ip_total - 4 + (size_t)k] = (uint8_t)(icrc >> (8 * k));
	if (roce_parse(copy, len, out, &payload) != ROCE_OK) {
		fprintf(stderr, "test_rx: a frame bad by its ICRC is not good with it right\n");
		exit(1);
	}
	free(copy);
}

static void send_frame(struct rx_env *e, const uint8_t *f, size_t len, int err_beat)
{
	struct expect_frame *x;

	if (e->nexpect == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 256;
		e->expect = realloc(e->expect, e->cap * sizeof(*e->expect));
		if (!e->expect) {
			perror("realloc");
			exit(1);
		}
	}
	x = &e->expect[e->nexpect++];
	x->verdict = expected_verdict(f, len, err_beat >= 0, &x->hdr, &x->payload_off);
	x->early = e->early &&
		   (x->verdict == HROCE_ROCE_RX_DROP_OK || x->verdict == HROCE_ROCE_RX_DROP_ICRC);
	if (x->early && x->verdict == HROCE_ROCE_RX_DROP_ICRC)
		header_of_bad_icrc(f, len, &x->hdr, &x->hdr);
	x->frame = malloc(len ? len : 1);
	memcpy(x->frame, f, len);
	x->len = len;
	e->counts[x->verdict]++;
	axis_source_push(&e->in, f, len, err_beat);
}

static const char *verdict_name(unsigned int v)
{
	return hroce_roce_rx_drop_name(v);
}

/* Compares everything that came out with the expectations; true if all agree. */
static bool check(struct rx_env *e, char *why, size_t whylen)
{
	uint32_t stat[HROCE_ROCE_RX_DROP_COUNT];
	struct axis_frame f;
	size_t nother = 0, nhdr = 0;
	bool ok = true;

	why[0] = 0;
	for (size_t i = 0; i < e->nexpect && ok; i++) {
		struct expect_frame *x = &e->expect[i];

		if (x->early) {
			const struct verdict *v = nhdr < e->nverdicts ? &e->verdicts[nhdr] : NULL;
			bool good = x->verdict == HROCE_ROCE_RX_DROP_OK;

			if (!v || v->good != good || v->headers_before < nhdr + 1) {
				snprintf(why, whylen,
					 "frame %zu: verdict %s (after %zu headers), want %s after "
					 "its header (%zu)",
					 i,
					 !v	   ? "missing"
					 : v->good ? "good"
						   : "bad",
					 v ? v->headers_before : 0, good ? "good" : "bad",
					 nhdr + 1);
				return false;
			}
			nhdr++;
		}
		if (x->verdict == HROCE_ROCE_RX_DROP_OK || x->early) {
			roce_bus_t want;
			roce_bus_t got;

			if (!axis_sink_pop(&e->hdr, &f)) {
				snprintf(why, whylen, "frame %zu: no header came out", i);
				return false;
			}
			roce_hdr_to_bus(&x->hdr, 0, want);
			memset(got, 0, sizeof(got));
			memcpy(got, f.data, f.len < sizeof(got) ? f.len : sizeof(got));
			free(f.data);
			if (memcmp(want, got, sizeof(got))) {
				struct roce_hdr h;

				roce_hdr_from_bus(got, &h, NULL);
				snprintf(
					why, whylen,
					"frame %zu: header differs (opcode %#x/%#x psn %u/%u len %u/%u)",
					i, h.opcode, x->hdr.opcode, h.psn, x->hdr.psn,
					h.payload_len, x->hdr.payload_len);
				return false;
			}
			if (!x->hdr.payload_len || x->verdict != HROCE_ROCE_RX_DROP_OK)
				continue;
			if (!axis_sink_pop(&e->pay, &f)) {
				snprintf(why, whylen, "frame %zu: no payload came out", i);
				return false;
			}
			ok = f.len == x->hdr.payload_len &&
			     !memcmp(f.data, x->frame + x->payload_off, f.len);
			if (!ok)
				snprintf(why, whylen,
					 "frame %zu: payload differs (%zu bytes, want %u)", i,
					 f.len, x->hdr.payload_len);
			free(f.data);
		} else if (x->verdict == HROCE_ROCE_RX_DROP_NOT_ROCE) {
			if (!axis_sink_pop(&e->other, &f)) {
				snprintf(why, whylen, "frame %zu: non-RoCE frame did not come out",
					 i);
				return false;
			}
			ok = f.len == x->len && !memcmp(f.data, x->frame, f.len);
			if (!ok)
				snprintf(why, whylen, "frame %zu: non-RoCE frame differs", i);
			free(f.data);
			if (ok && (nother >= e->nkinds ||
				   e->kinds[nother] != expected_kind(x->frame, x->len))) {
				snprintf(why, whylen,
					 "frame %zu: non-RoCE frame marked %s, want %s", i,
					 nother < e->nkinds ? hroce_net_frame_name(e->kinds[nother])
							    : "nothing",
					 hroce_net_frame_name(expected_kind(x->frame, x->len)));
				ok = false;
			}
			nother++;
		}
	}
	if (!ok)
		return false;
	if (axis_sink_count(&e->hdr) || axis_sink_count(&e->pay) || axis_sink_count(&e->other) ||
	    e->nverdicts != nhdr) {
		snprintf(why, whylen,
			 "extra output: %zu headers, %zu payloads, %zu frames, %zu verdicts",
			 axis_sink_count(&e->hdr), axis_sink_count(&e->pay),
			 axis_sink_count(&e->other), e->nverdicts - nhdr);
		return false;
	}
	vport_read(e->stat, stat, sizeof(stat));
	for (unsigned int v = 0; v < HROCE_ROCE_RX_DROP_COUNT; v++) {
		if (stat[v] != e->counts[v]) {
			snprintf(why, whylen, "counter %s is %u, want %llu", verdict_name(v),
				 stat[v], (unsigned long long)e->counts[v]);
			return false;
		}
	}
	if (e->hdr.protocol_errors + e->pay.protocol_errors + e->other.protocol_errors) {
		const struct axis_sink *k = e->hdr.protocol_errors   ? &e->hdr
					    : e->pay.protocol_errors ? &e->pay
								     : &e->other;

		snprintf(why, whylen, "AXI-Stream protocol: %.160s", k->first_error);
		return false;
	}
	return true;
}

static void finish(struct rx_env *e, const char *name)
{
	char why[256];
	/* quiet for longer than it takes to drop a largest frame unseen */
	bool ok = dut_run(&e->dut, 3 * MAX_FRAME / e->bytes + 100, HANG_CYCLES);

	if (!ok)
		snprintf(why, sizeof(why), "hang: no progress for %d cycles", HANG_CYCLES);
	else
		ok = check(e, why, sizeof(why));
	bench_result(e->b, name, ok, "%s", why);
}

/* Every frame of every capture in testbench/data. */
static void test_pcap(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	struct rx_env e;
	struct dirent **list;
	unsigned int roce = 0;
	int n;

	env_open(&e, b, ops, 10, 10);
	n = scandir(DATA_DIR, &list, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char path[512];
		struct pcap_file *pf;
		struct pcap_packet pkt;

		if (!strstr(list[i]->d_name, ".pcap")) {
			free(list[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", DATA_DIR, list[i]->d_name);
		free(list[i]);
		pf = pcap_open_read(path);
		if (!pf) {
			bench_result(b, name, false, "cannot read %s", path);
			continue;
		}
		while (pcap_read(pf, &pkt) == 0) {
			send_frame(&e, pkt.data, pkt.len, -1);
			roce += e.expect[e.nexpect - 1].verdict == HROCE_ROCE_RX_DROP_OK;
		}
		pcap_close(pf);
	}
	free(list);
	bench_log(b, "%s: %zu frames, %u RoCE", name, e.nexpect, roce);
	/* IPv6 frames with extension headers (MLD reports) are dropped unread */
	if (!roce || e.counts[HROCE_ROCE_RX_DROP_OK] + e.counts[HROCE_ROCE_RX_DROP_NOT_ROCE] +
				     e.counts[HROCE_ROCE_RX_DROP_IP6_EXT_HEADER] !=
			     e.nexpect) {
		bench_result(b, name, false, "the captures hold %u good RoCE frames of %zu", roce,
			     e.nexpect);
		env_close(&e);
		return;
	}
	finish(&e, name);
	env_close(&e);
}

static size_t build(const struct roce_hdr *h, struct bench *b, uint8_t *frame, size_t cap)
{
	uint8_t payload[8192];
	size_t len = 0;

	bench_fill(b, payload, h->payload_len);
	if (roce_build(h, payload, frame, cap, &len)) {
		fprintf(stderr, "roce_build failed for opcode %#x\n", h->opcode);
		exit(1);
	}
	return len;
}

static void flip_bit(struct bench *b, uint8_t *f, size_t from, size_t to)
{
	size_t at = (size_t)bench_range(b, from, to - 1);

	f[at] ^= (uint8_t)(1u << bench_range(b, 0, 7));
}

/* One random frame, good or broken in one of many ways. */
static void random_frame(struct rx_env *e)
{
	struct bench *b = e->b;
	uint8_t f[MAX_FRAME + 256];
	struct roce_hdr h;
	size_t len, l2, iph;
	int err_beat = -1;

	roce_random_hdr(b, &h, roce_random_opcode(b), e->bytes, 4096);
	len = build(&h, b, f, sizeof(f));
	l2 = h.vlan_valid ? 18 : 14;
	iph = h.ip6 ? 40 : 20;
	switch (bench_range(b, 0, 23)) {
	case 0: /* a bit of the IP header */
		flip_bit(b, f, l2, l2 + iph);
		break;
	case 1: /* a bit of UDP, BTH, the extension headers or the payload */
		flip_bit(b, f, l2 + iph, len);
		break;
	case 2: /* cut short */
		len = (size_t)bench_range(b, 0, len - 1);
		break;
	case 3: /* bytes after the ICRC */
		for (unsigned int n = (unsigned int)bench_range(b, 1, 9); n; n--)
			f[len++] = (uint8_t)bench_rand(b);
		break;
	case 4: /* IP options claimed (IPv4), version 4 in an IPv6 frame */
		f[l2] = 0x46;
		break;
	case 5: /* an opcode nobody knows */
		f[l2 + iph + 8] =
			(uint8_t)(bench_chance(b, 50) ? 0x15 : bench_range(b, 0x18, 0x1f));
		break;
	case 6: /* the MAC saw an error */
		err_beat = (int)bench_range(b, 0, (len - 1) / e->bytes);
		break;
	case 7: /* not RoCE: ARP-sized (tagged or not), or another UDP port, or TCP, or ICMP */
		if (bench_chance(b, 50)) {
			f[l2 - 2] = 0x08;
			f[l2 - 1] = 0x06;
			len = (size_t)bench_range(b, 42, 120);
		} else {
			/* ICMP (ICMPv6), TCP, or UDP to another port */
			f[l2 + (h.ip6 ? 6 : 9)] = (uint8_t)(bench_chance(b, 33)	  ? (h.ip6 ? 58 : 1)
							    : bench_chance(b, 50) ? 6
										  : 17);
			f[l2 + iph + 2] ^= 0x40;
		}
		break;
	case 8: /* runt */
		len = (size_t)bench_range(b, 0, 13);
		break;
	case 9: /* giant */
		while (len <= MAX_FRAME)
			f[len++] = (uint8_t)bench_rand(b);
		len += (size_t)bench_range(b, 0, 100);
		break;
	case 10: /* padded to the Ethernet minimum */
		while (len < 60)
			f[len++] = 0;
		break;
	case 11: /* IPv6: hop limit 0 */
		if (h.ip6)
			f[l2 + 7] = 0;
		break;
	case 12: /* IPv6: an extension header (hop-by-hop, routing, fragment, options) */
		if (h.ip6)
			f[l2 + 6] = (uint8_t)(bench_chance(b, 50)   ? 0
					      : bench_chance(b, 50) ? 44
								    : 60);
		break;
	case 13: /* IPv6: a payload length 4 bytes off, either way, or anything */
		if (h.ip6) {
			unsigned int plen = (unsigned int)f[l2 + 4] << 8 | f[l2 + 5];

			plen = bench_chance(b, 25)   ? (unsigned int)bench_rand(b)
			       : bench_chance(b, 50) ? plen + 4
						     : plen - 4;
			f[l2 + 4] = (uint8_t)(plen >> 8);
			f[l2 + 5] = (uint8_t)plen;
		}
		break;
	default:
		break;
	}
	send_frame(e, f, len, err_beat);
}

static void test_random(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	struct rx_env e;
	unsigned int frames = b->quick ? 300 : 10000;

	unsigned int good6 = 0;

	env_open(&e, b, ops, 20, 20);
	for (unsigned int i = 0; i < frames; i++)
		random_frame(&e);
	for (size_t i = 0; i < e.nexpect; i++)
		good6 += e.expect[i].verdict == HROCE_ROCE_RX_DROP_OK && e.expect[i].hdr.ip6;
	bench_log(b,
		  "%s: %zu frames, %llu good, %u of them IPv6; %llu ICRC, %llu IP6_EXT_HEADER, "
		  "%llu IP6_HOP_LIMIT",
		  name, e.nexpect, (unsigned long long)e.counts[HROCE_ROCE_RX_DROP_OK], good6,
		  (unsigned long long)e.counts[HROCE_ROCE_RX_DROP_ICRC],
		  (unsigned long long)e.counts[HROCE_ROCE_RX_DROP_IP6_EXT_HEADER],
		  (unsigned long long)e.counts[HROCE_ROCE_RX_DROP_IP6_HOP_LIMIT]);
	finish(&e, name);
	env_close(&e);
}

/*
 * Good frames back to back, nothing idle, nothing held: the input is never refused, so the
 * path keeps up with the line at one beat per cycle.
 */
static void test_line_rate(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	struct rx_env e;
	unsigned int frames = b->quick ? 100 : 400;
	uint8_t f[MAX_FRAME];
	struct roce_hdr h;

	env_open(&e, b, ops, 0, 0);
	for (unsigned int i = 0; i < frames; i++) {
		roce_random_hdr(b, &h, roce_random_opcode(b), e.bytes, 4096);
		send_frame(&e, f, build(&h, b, f, sizeof(f)), -1);
	}
	finish(&e, name);
	bench_result(b, name, e.stalls == 0, "the input was refused in %llu cycles",
		     (unsigned long long)e.stalls);
	env_close(&e);
}

/* Frames that end the path's way of framing: a giant cut short, runts, empty frames. */
static void test_directed(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	uint8_t f[MAX_FRAME + 256];
	struct rx_env e;
	struct roce_hdr h;
	size_t len;

	env_open(&e, b, ops, 0, 0);
	for (unsigned int i = 0; i < 3; i++) {
		roce_random_hdr(b, &h, 0x04, e.bytes, 4096);
		h.payload_len = 4096;
		len = build(&h, b, f, sizeof(f));
		while (len <= MAX_FRAME + 8 * i)
			f[len++] = (uint8_t)i;
		send_frame(&e, f, len, -1);
		roce_random_hdr(b, &h, 0x0a, e.bytes, 4096);
		h.payload_len = (uint16_t)(60 + i);
		send_frame(&e, f, build(&h, b, f, sizeof(f)), -1);
		send_frame(&e, f, 9 - 4 * i, -1);
	}
	finish(&e, name);
	env_close(&e);
}

int main(int argc, char **argv)
{
	static const struct {
		const struct vmodel_ops *ops;
		const char *width;
	} models[] = { { &vmodel_Vroce_rx_w64, "w64" },
		       { &vmodel_Vroce_rx_w512, "w512" },
		       { &vmodel_Vroce_rx_early_w64, "early_w64" },
		       { &vmodel_Vroce_rx_early_w512, "early_w512" } };
	struct bench b;
	char name[64];

	bench_init(&b, "test_rx", argc, argv);
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		snprintf(name, sizeof(name), "rx_directed_%s", models[i].width);
		test_directed(&b, models[i].ops, name);
		snprintf(name, sizeof(name), "rx_pcap_%s", models[i].width);
		test_pcap(&b, models[i].ops, name);
		snprintf(name, sizeof(name), "rx_random_%s", models[i].width);
		test_random(&b, models[i].ops, name);
		snprintf(name, sizeof(name), "rx_line_rate_%s", models[i].width);
		test_line_rate(&b, models[i].ops, name);
	}
	return bench_finish(&b);
}
