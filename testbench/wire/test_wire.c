// SPDX-License-Identifier: MIT
/*
 * Tests of the C wire-format library (sim/wire), against the Linux Soft-RoCE captures and
 * two independent decoders: scapy's RoCE layer (scripts/roce_oracle.py) for the ICRC, and
 * tshark's InfiniBand dissector for the headers.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "pcap.h"
#include "roce_bus.h"
#include "roce_oracle.h"
#include "roce_random.h"
#include "roce_wire.h"

#define DATA_DIR "testbench/data"
#define SAMPLE "build/test-wire-sample.pcap"

static bool equal_hdr(const struct roce_hdr *a, const struct roce_hdr *b)
{
	roce_bus_t x, y;

	roce_hdr_to_bus(a, 0, x);
	roce_hdr_to_bus(b, 0, y);
	return !memcmp(x, y, sizeof(x));
}

/*
 * Every RoCE frame parses with a good ICRC and is rebuilt byte for byte from its fields.
 * IPv6 frames with extension headers (MLD reports behind a hop-by-hop header) are dropped
 * unread by the core: walked here, none may lead to RoCE.
 */
static unsigned int check_capture(struct bench *b, const char *name, const struct roce_capture *c)
{
	unsigned int roce = 0;

	for (size_t i = 0; i < c->count; i++) {
		const struct roce_frame *f = &c->frames[i];
		struct roce_hdr h;
		const uint8_t *payload;
		uint8_t again[ROCE_MAX_FRAME], proto;
		size_t len, off;
		enum roce_verdict v = roce_parse(f->data, f->len, &h, &payload);

		if (v == ROCE_NOT_ROCE)
			continue;
		if (v == ROCE_IP6_EXT_HEADER && roce_ip6_upper(f->data, f->len, &proto, &off) &&
		    !(proto == 17 && off + 4 <= f->len && f->data[off + 2] == ROCE_UDP_PORT >> 8 &&
		      f->data[off + 3] == (ROCE_UDP_PORT & 0xff)))
			continue;
		if (v != ROCE_OK) {
			bench_result(b, name, false, "frame %zu: %s", i + 1, roce_verdict_name(v));
			return 0;
		}
		roce++;
		if (roce_build(&h, payload, again, sizeof(again), &len) || len != f->len ||
		    memcmp(again, f->data, len)) {
			bench_result(b, name, false, "frame %zu: rebuilt differently", i + 1);
			return 0;
		}
	}
	bench_result(b, name, roce > 0, "no RoCE frame in the capture");
	return roce;
}

/* The same source (or destination) address, of the same family. */
static bool same_ip(const struct roce_hdr *a, bool a_src, const struct roce_hdr *b, bool b_src)
{
	if (a->ip6 != b->ip6)
		return false;
	if (a->ip6)
		return !memcmp(a_src ? a->ip6_src : a->ip6_dst, b_src ? b->ip6_src : b->ip6_dst,
			       16);
	return (a_src ? a->ip_src : a->ip_dst) == (b_src ? b->ip_src : b->ip_dst);
}

/*
 * The Linux flow-label hash: A's frames to QP B carry sport(A's QPN, B). A's QPN is a
 * destination QP of some frame going the other way. A lone frame (a late ACK of an earlier
 * connection, say) has no such frame and is skipped.
 */
static void check_sport(struct bench *b, const char *name, const struct roce_capture *c)
{
	unsigned int checked = 0;

	for (size_t i = 0; i < c->count; i++) {
		struct roce_hdr h, r;
		const uint8_t *p;
		bool found = false;

		unsigned int same = 0;

		if (roce_parse(c->frames[i].data, c->frames[i].len, &h, &p) != ROCE_OK)
			continue;
		for (size_t j = 0; j < c->count; j++)
			same += roce_parse(c->frames[j].data, c->frames[j].len, &r, &p) ==
					ROCE_OK &&
				same_ip(&r, true, &h, true) && r.dqpn == h.dqpn;
		if (same < 2)
			continue;
		for (size_t j = 0; j < c->count && !found; j++)
			found = roce_parse(c->frames[j].data, c->frames[j].len, &r, &p) ==
					ROCE_OK &&
				same_ip(&r, true, &h, false) && same_ip(&r, false, &h, true) &&
				roce_udp_sport(r.dqpn, h.dqpn) == h.udp_sport;
		if (!found) {
			bench_result(b, name, false, "frame %zu: no QP pair hashes to sport %#x",
				     i + 1, h.udp_sport);
			return;
		}
		checked++;
	}
	bench_result(b, name, checked > 0, "no RoCE frame");
}

/* Random frames of every opcode: parse(build(h)) == h; single-bit damage is caught. */
static void check_random(struct bench *b)
{
	unsigned int n = b->quick ? 2000 : 20000, bad_roundtrip = 0, missed = 0;
	static uint8_t payload[8192], f[ROCE_MAX_FRAME + 64];
	struct pcap_file *out = pcap_open_write(SAMPLE, true);

	for (unsigned int i = 0; i < n; i++) {
		struct roce_hdr h, g;
		const uint8_t *p;
		size_t len, l2, at;

		roce_random_hdr(b, &h, roce_random_opcode(b), 64, 4096);
		roce_hdr_canonical(&h);
		bench_fill(b, payload, h.payload_len);
		/* tshark guesses at payloads (Ethernet, RPC, ...): give it nothing to guess from */
		memset(payload, 0, h.payload_len < 16 ? h.payload_len : 16);
		if (roce_build(&h, payload, f, sizeof(f), &len) ||
		    roce_parse(f, len, &g, &p) != ROCE_OK || !equal_hdr(&h, &g) ||
		    memcmp(p, payload, h.payload_len)) {
			bad_roundtrip++;
			continue;
		}
		if (out && i < 300)
			pcap_write(out, i * 1000ull, f, len);
		/*
		 * one bit flipped anywhere the IPv4 checksum or the ICRC covers, but in the
		 * variant fields the ICRC reads as ones
		 */
		l2 = h.vlan_valid ? 18 : 14;
		do {
			at = (size_t)bench_range(b, l2, len - 1) - l2;
		} while (h.ip6 ? at <= 3 || at == 7 || at == 46 || at == 47 || at == 52
			       : at == 1 || at == 8 || at == 26 || at == 27 || at == 32);
		at += l2;
		f[at] ^= (uint8_t)(1u << bench_range(b, 0, 7));
		missed += roce_parse(f, len, &g, &p) == ROCE_OK;
	}
	if (out)
		pcap_close(out);
	bench_result(b, "wire_random_roundtrip", !bad_roundtrip, "%u of %u frames differ",
		     bad_roundtrip, n);
	bench_result(b, "wire_random_damage", !missed, "%u damaged frames passed as good", missed);
	roce_oracle_scapy(b, "wire_sample_scapy", SAMPLE);
	roce_oracle_tshark(b, "wire_sample_tshark", SAMPLE);
}

/* Directed verdicts, one each, in the order of precedence the RTL shares. */
static void check_verdicts(struct bench *b)
{
	static const uint8_t payload[64];
	uint8_t f[256];
	struct roce_hdr h, g;
	const uint8_t *p;
	size_t len;
	bool ok = true;

	memset(&h, 0, sizeof(h));
	h.opcode = 0x04;
	h.ip_ttl = 64;
	h.payload_len = 5;
	roce_build(&h, payload, f, sizeof(f), &len);
#define EXPECT(v, what)                                                                       \
	do {                                                                                  \
		enum roce_verdict got = roce_parse(f, len, &g, &p);                           \
		if (got != (v) && ok)                                                         \
			ok = bench_result(b, "wire_verdicts", false, "%s: %s, want %s", what, \
					  roce_verdict_name(got), roce_verdict_name(v));      \
	} while (0)
	EXPECT(ROCE_OK, "good");
	f[14 + 28 + 1] ^= 0x01; /* TVer 1 */
	EXPECT(ROCE_BAD_OPCODE, "transport version");
	f[14 + 28 + 1] ^= 0x01;
	f[14 + 28] = 0x15;
	EXPECT(ROCE_BAD_OPCODE, "opcode 0x15");
	f[14 + 28] = 0x04;
	f[len - 1] ^= 0x80;
	EXPECT(ROCE_ICRC, "ICRC");
	f[len - 1] ^= 0x80;
	f[14 + 32] = 0xc0; /* FECN and BECN: masked from the ICRC */
	EXPECT(ROCE_OK, "FECN/BECN set");
	f[14 + 10] ^= 0x01;
	EXPECT(ROCE_IP_CHECKSUM, "IP checksum");
	f[14 + 10] ^= 0x01;
	f[14] = 0x46;
	EXPECT(ROCE_IP_HEADER, "IHL 6");
	f[14] = 0x45;
	len -= 1;
	EXPECT(ROCE_TRUNCATED, "cut by one");
	len += 1;
	f[len++] = 0;
	EXPECT(ROCE_LENGTH, "a byte after the ICRC");
	h.payload_len = 0;
	roce_build_frame(&h, payload, true, f, sizeof(f), &len);
	EXPECT(ROCE_OK, "Ethernet padding");
	f[len++] = 0;
	EXPECT(ROCE_LENGTH, "padding past the Ethernet minimum");
	len = 13;
	EXPECT(ROCE_RUNT, "13 bytes");
	f[12] = 0x08;
	f[13] = 0x06;
	len = 60;
	EXPECT(ROCE_NOT_ROCE, "ARP");

	/* IPv6: the same frame, and what only IPv6 has */
	h.ip6 = true;
	h.payload_len = 5;
	h.flow_label = 0x12345;
	roce_build(&h, payload, f, sizeof(f), &len);
	EXPECT(ROCE_OK, "IPv6");
	f[14 + 1] ^= 0xff; /* traffic class and flow label: masked from the ICRC */
	f[14 + 3] ^= 0x5a;
	EXPECT(ROCE_OK, "IPv6 traffic class and flow label changed");
	f[14 + 46] = 0x12; /* a UDP checksum: neither built nor checked */
	EXPECT(ROCE_OK, "IPv6 UDP checksum not zero");
	f[14 + 7] = 0;
	EXPECT(ROCE_IP6_HOP_LIMIT, "IPv6 hop limit 0");
	f[14 + 7] = 64;
	f[14] = 0x46;
	EXPECT(ROCE_IP_HEADER, "IPv6 type, version 4");
	f[14] = 0x60;
	f[14 + 6] = 0;
	EXPECT(ROCE_IP6_EXT_HEADER, "IPv6 hop-by-hop header");
	f[14 + 6] = 44;
	EXPECT(ROCE_IP6_EXT_HEADER, "IPv6 fragment header");
	f[14 + 6] = 58;
	EXPECT(ROCE_NOT_ROCE, "ICMPv6");
	f[14 + 6] = 17;
	f[14 + 5] += 4;
	EXPECT(ROCE_TRUNCATED, "IPv6 payload length past the frame");
	f[14 + 5] -= 8;
	EXPECT(ROCE_LENGTH, "IPv6 payload length short of the frame");
	f[14 + 5] += 4;
	f[len - 2] ^= 0x10;
	EXPECT(ROCE_ICRC, "IPv6 ICRC");
	f[len - 2] ^= 0x10;
	f[14 + 24] ^= 0x01; /* the destination address: covered */
	EXPECT(ROCE_ICRC, "IPv6 destination address");
	f[14 + 24] ^= 0x01;
	len = 14 + 43;
	EXPECT(ROCE_TRUNCATED, "IPv6 without its UDP ports");
#undef EXPECT
	if (ok)
		bench_result(b, "wire_verdicts", true, "%s", "");
}

int main(int argc, char **argv)
{
	struct dirent **list;
	struct bench b;
	int n;

	bench_init(&b, "test_wire", argc, argv);
	n = scandir(DATA_DIR, &list, NULL, alphasort);
	if (n <= 0)
		bench_result(&b, "wire_captures", false, "no captures in %s", DATA_DIR);
	for (int i = 0; i < n; i++) {
		char path[512], name[300];
		struct roce_capture c;

		if (!strstr(list[i]->d_name, ".pcap")) {
			free(list[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", DATA_DIR, list[i]->d_name);
		roce_capture_load(path, &c);
		snprintf(name, sizeof(name), "wire_capture_%s", list[i]->d_name);
		bench_log(&b, "%s: %zu frames, %u RoCE", path, c.count,
			  check_capture(&b, name, &c));
		snprintf(name, sizeof(name), "wire_sport_%s", list[i]->d_name);
		check_sport(&b, name, &c);
		snprintf(name, sizeof(name), "wire_scapy_%s", list[i]->d_name);
		roce_oracle_scapy(&b, name, path);
		snprintf(name, sizeof(name), "wire_tshark_%s", list[i]->d_name);
		roce_oracle_tshark(&b, name, path);
		roce_capture_free(&c);
		free(list[i]);
	}
	free(list);
	check_verdicts(&b);
	check_random(&b);
	return bench_finish(&b);
}
