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
#include "nd_wire.h"
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

/*
 * The bytes roce_byte_checked picks for a lossy wire's flips (IP header offset l2): a flip of
 * any bit of any of them is refused as RoCE; IPv6's header bytes that the ICRC masks in
 * part or whole (0 to 3, hop limit 7) and its next header (6) are never picked. 0 or why.
 */
static int check_flip_bytes(struct bench *b, const struct roce_hdr *h, uint8_t *f, size_t len,
			    size_t l2, char *why, size_t why_len)
{
	size_t ip_len = len - l2, picked = 0;
	struct roce_hdr g;
	const uint8_t *p;

	if (len == ROCE_MIN_FRAME)
		return 0; /* padded: ip_len is the header's, not the frame's */
	for (size_t off = 0; off < ip_len; off++) {
		enum roce_verdict v;
		unsigned int bit;

		if (!roce_byte_checked(h->ip6, off, ip_len))
			continue;
		picked++;
		if (h->ip6 && (off <= 3 || off == 6 || off == 7)) {
			snprintf(why, why_len, "IPv6 header byte %zu picked", off);
			return 1;
		}
		bit = (unsigned int)bench_range(b, 0, 7);
		f[l2 + off] ^= (uint8_t)(1u << bit);
		v = roce_parse(f, len, &g, &p);
		f[l2 + off] ^= (uint8_t)(1u << bit);
		if (v == ROCE_OK || v == ROCE_NOT_ROCE) {
			snprintf(why, why_len, "IPv%d byte %zu bit %u flipped: %s", h->ip6 ? 6 : 4,
				 off, bit, roce_verdict_name(v));
			return 1;
		}
	}
	if (!picked) {
		snprintf(why, why_len, "no byte picked of %zu", ip_len);
		return 1;
	}
	return 0;
}

/* Random frames of every opcode: parse(build(h)) == h; single-bit damage is caught. */
static void check_random(struct bench *b)
{
	unsigned int n = b->quick ? 2000 : 20000, bad_roundtrip = 0, missed = 0, flips[2] = { 0 };
	char flip_why[128] = "";
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
		l2 = h.vlan_valid ? 18 : 14;
		if (!flip_why[0] && len <= 512 && flips[h.ip6] < 100)
			flips[h.ip6] +=
				!check_flip_bytes(b, &h, f, len, l2, flip_why, sizeof(flip_why));
		/*
		 * one bit flipped anywhere the IPv4 checksum or the ICRC covers, but in the
		 * variant fields the ICRC reads as ones
		 */
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
	if (!flip_why[0] && (!flips[0] || !flips[1]))
		snprintf(flip_why, sizeof(flip_why), "%u IPv4 and %u IPv6 frames checked", flips[0],
			 flips[1]);
	bench_result(b, "wire_flip_bytes", !flip_why[0], "%s", flip_why);
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

/* Recomputes an ND frame's ICMPv6 checksum after a change. */
static void nd_fix_csum(uint8_t *f)
{
	size_t plen = (size_t)f[18] << 8 | f[19];

	f[56] = f[57] = 0;
	f[56] = (uint8_t)(nd_icmp6_csum(f + 22, f + 38, f + 54, plen) >> 8);
	f[57] = (uint8_t)nd_icmp6_csum(f + 22, f + 38, f + 54, plen);
}

/*
 * Neighbour discovery against Linux: in rxe-ipv6-rc-pingpong.pcap host a (…:0a) solicits
 * b's link-local address (frame 21) and b advertises it (frame 22); frame 8 is b's own
 * duplicate address detection. Then RFC 4861's checks, one at a time, and tshark's reading
 * of what the reference builds.
 */
static void check_nd(struct bench *b)
{
	static const char path[] = DATA_DIR "/rxe-ipv6-rc-pingpong.pcap",
			  out[] = "build/test-wire-nd.pcap";
	uint8_t ll[16], f[ND_FRAME_LEN], reply[ND_FRAME_LEN], addr_b[1][16];
	const uint8_t *ns, *na, *dad;
	struct roce_capture c;
	struct pcap_file *pf;
	char cmd[400], line[256];
	unsigned int good = 0;
	bool ok = true;
	FILE *p;

	roce_capture_load(path, &c);
	if (c.count < 22 || c.frames[20].len != ND_FRAME_LEN || c.frames[21].len != ND_FRAME_LEN) {
		bench_result(b, "wire_nd_capture", false, "%s: not the capture expected", path);
		roce_capture_free(&c);
		return;
	}
	ns = c.frames[20].data;
	na = c.frames[21].data;
	dad = c.frames[7].data;
	nd_link_local(na + 6, ll);
	bench_result(b, "wire_nd_link_local", !memcmp(ll, na + 22, 16),
		     "the EUI-64 address of b's MAC is not the one b advertises from");
	memcpy(addr_b[0], ll, 16);
	nd_build_solicit(ns + 6, ns + 22, ns + 62, f);
	bench_result(b, "wire_nd_solicit", !memcmp(f, ns, ND_FRAME_LEN),
		     "the solicitation differs from Linux's");
	bench_result(b, "wire_nd_advert",
		     nd_answer(ns, ND_FRAME_LEN, na + 6, addr_b, 1, reply) == ND_ANSWERED &&
			     !memcmp(reply, na, ND_FRAME_LEN),
		     "the advertisement differs from Linux's");
	ok = nd_answer(dad, c.frames[7].len, na + 6, addr_b, 1, reply) == ND_ANSWERED &&
	     !memcmp(reply, "\x33\x33\0\0\0\x01", 6) && reply[38] == 0xff && reply[53] == 1 &&
	     reply[58] == 0x20;
	bench_result(b, "wire_nd_dad", ok, "duplicate address detection not answered to all nodes");

#define EXPECT(v, what)                                                                          \
	do {                                                                                     \
		enum nd_verdict got = nd_answer(f, ND_FRAME_LEN, na + 6, addr_b, 1, reply);      \
		if (got != (v) && ok)                                                            \
			ok = bench_result(b, "wire_nd_verdicts", false, "%s: %s, want %s", what, \
					  nd_verdict_name(got), nd_verdict_name(v));             \
		memcpy(f, ns, ND_FRAME_LEN);                                                     \
	} while (0)
	ok = true;
	memcpy(f, ns, ND_FRAME_LEN);
	EXPECT(ND_ANSWERED, "Linux's solicitation");
	f[21] = 254;
	EXPECT(ND_MALFORMED, "hop limit 254");
	f[57] ^= 1;
	EXPECT(ND_MALFORMED, "checksum");
	f[55] = 1;
	nd_fix_csum(f);
	EXPECT(ND_MALFORMED, "code 1");
	f[62] = 0xff;
	nd_fix_csum(f);
	EXPECT(ND_MALFORMED, "multicast target");
	f[79] = 0;
	nd_fix_csum(f);
	EXPECT(ND_MALFORMED, "an option of length 0");
	f[77] ^= 1;
	nd_fix_csum(f);
	EXPECT(ND_NOT_OURS, "another target");
	f[5] ^= 1;
	EXPECT(ND_NOT_OURS, "another MAC");
	memset(f + 22, 0, 16); /* from :: with a source link-layer option */
	nd_fix_csum(f);
	EXPECT(ND_MALFORMED, "from :: with a link-layer option");
	memcpy(f, na, ND_FRAME_LEN);
	EXPECT(ND_NOT_OURS, "an advertisement to another port");
	f[54] = 128;
	nd_fix_csum(f);
	EXPECT(ND_ECHO, "an echo request");
	memcpy(f, c.frames[0].data,
	       c.frames[0].len < ND_FRAME_LEN ? c.frames[0].len : ND_FRAME_LEN);
	EXPECT(ND_MALFORMED, "MLD behind a hop-by-hop header");
#undef EXPECT
	if (ok)
		bench_result(b, "wire_nd_verdicts", true, "%s", "");

	/* Linux's advertisement to a, the port that asked: b's address and MAC learned */
	{
		uint8_t addr_a[1][16], learned[16], mac[6];
		enum nd_verdict v;
		bool request = true;

		memcpy(addr_a[0], ns + 22, 16);
		v = nd_answer(na, ND_FRAME_LEN, ns + 6, addr_a, 1, reply);
		bench_result(
			b, "wire_nd_learned",
			v == ND_ADVERTISED &&
				nd_learned(na, ND_FRAME_LEN, v, learned, mac, &request) &&
				!request && !memcmp(learned, ll, 16) && !memcmp(mac, na + 6, 6) &&
				nd_learned(ns, ND_FRAME_LEN, ND_ANSWERED, learned, mac, &request) &&
				request && !memcmp(learned, ns + 22, 16) && !memcmp(mac, ns + 6, 6),
			"Linux's advertisement: %s, or what it teaches differs",
			nd_verdict_name(v));
	}

	/* tshark: good ICMPv6 checksums, nothing it complains of */
	pf = pcap_open_write(out, true);
	if (pf) {
		nd_build_solicit(ns + 6, ns + 22, ll, f);
		pcap_write(pf, 0, f, ND_FRAME_LEN);
		nd_answer(ns, ND_FRAME_LEN, na + 6, addr_b, 1, reply);
		pcap_write(pf, 1000, reply, ND_FRAME_LEN);
		nd_answer(dad, c.frames[7].len, na + 6, addr_b, 1, reply);
		pcap_write(pf, 2000, reply, ND_FRAME_LEN);
		pcap_close(pf);
	}
	snprintf(cmd, sizeof(cmd),
		 "tshark -r %s -T fields -e icmpv6.type "
		 "-e icmpv6.checksum.status -e _ws.expert.severity 2>/dev/null",
		 out);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		unsigned int type = 0, status = 0;
		char rest[64] = "";

		if (sscanf(line, "%u\t%u\t%63s", &type, &status, rest) >= 2 && status == 1 &&
		    (type == 135 || type == 136) && strtoul(rest, NULL, 0) < 0x600000)
			good++;
	}
	if (p)
		pclose(p);
	bench_result(b, "wire_nd_tshark", good == 3, "tshark read %u of 3 ND frames as good", good);
	roce_capture_free(&c);
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
	check_nd(&b);
	check_random(&b);
	return bench_finish(&b);
}
