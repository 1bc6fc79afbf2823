// SPDX-License-Identifier: MIT
/*
 * Bench of icmp_echo, the ICMP echo responder, at 64 and 512 bits, for IPv4 (IPV6 clear)
 * and ICMPv6 (IPV6 set).
 *
 * The C reference (icmp_echo_answer() in sim/wire/net_wire.c) is the scoreboard: for
 * every frame sent in it gives the verdict the RTL must count, and for an echo request to
 * us the reply, built from scratch with checksums summed over whole headers. The RTL's
 * verdict pulses must come one per frame, in frame order, each the reference's, except
 * that an answered request may be an overflow when the replies are held back; the replies
 * that come out must be the reference's for the answered frames, in order, byte for byte.
 * tshark then reads the requests and replies and checks both checksums of every frame.
 *
 * For ICMPv6 the reference is icmp6_echo_answer() (sim/wire/nd_wire.c): the port's
 * addresses are its link-local one and a configured one; ICMPv6 that is not an echo
 * request is nd's and must get no verdict at all; malformed, foreign, multicast, too long
 * and overflowing requests are counted, the others answered byte for byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axis.h"
#include "bench.h"
#include "hroce_contract.h"
#include "net_oracle.h"
#include "nd_wire.h"
#include "net_wire.h"
#include "pcap.h"

extern const struct vmodel_ops vmodel_Vicmp_echo_w64, vmodel_Vicmp_echo_w512;
extern const struct vmodel_ops vmodel_Vicmp6_echo_w64, vmodel_Vicmp6_echo_w512;

#define MAX_FRAME HROCE_ICMP_MAX_FRAME
#define CAP 2048
#define HANG_CYCLES 20000

static const uint8_t my_mac[6] = { 0x02, 0x00, 0x5e, 0x10, 0x20, 0x30 };
static const uint32_t my_ip = 0x0a000002;
static const uint8_t peer_mac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
static const uint32_t peer_ip = 0x0a000001;
/* IPv6: the configured address (the link-local one is my_mac's) */
static const uint8_t my_ip6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x02 };

struct expect {
	enum icmp_verdict verdict;
	uint8_t *frame, *reply;
	size_t len, reply_len;
};

struct icmp_env {
	struct bench *b;
	struct dut dut;
	struct axis_source in;
	struct axis_sink out;
	const struct vmodel_port *stat[ICMP_VERDICTS];
	struct expect *x;
	size_t nx, cap;
	enum icmp_verdict *seen; /* verdict pulses, in the order they came */
	size_t nseen;
	unsigned int double_pulses;
	bool v6;
	uint8_t addrs[2][16]; /* IPv6: link-local, configured */
};

static const char *const stat_ports[ICMP_VERDICTS] = {
	"stat_answered",  "stat_ignored",  "stat_not_ours",
	"stat_malformed", "stat_too_long", "stat_overflow",
};

static void count_verdicts(void *ctx)
{
	struct icmp_env *e = ctx;
	unsigned int n = 0;

	for (unsigned int v = 0; v < ICMP_VERDICTS; v++) {
		if (!vport_get(e->stat[v]))
			continue;
		if (n++) {
			e->double_pulses++;
			continue;
		}
		e->seen = realloc(e->seen, (e->nseen + 1) * sizeof(*e->seen));
		if (!e->seen) {
			perror("realloc");
			exit(1);
		}
		e->seen[e->nseen++] = (enum icmp_verdict)v;
	}
}

static void env_open(struct icmp_env *e, struct bench *b, const struct vmodel_ops *ops,
		     unsigned int idle_pct, unsigned int busy_pct)
{
	uint8_t ports[HROCE_IPV6_ADDRS * 16] = { 0 };
	uint64_t mac = 0;

	memset(e, 0, sizeof(*e));
	e->b = b;
	e->v6 = ops == &vmodel_Vicmp6_echo_w64 || ops == &vmodel_Vicmp6_echo_w512;
	nd_link_local(my_mac, e->addrs[0]);
	memcpy(e->addrs[1], my_ip6, 16);
	/* address 0 at bits 127:0, its first byte the most significant */
	for (int i = 0; i < 16; i++)
		ports[15 - i] = my_ip6[i];
	dut_open(&e->dut, b, ops);
	axis_source_init(&e->in, &e->dut, "s_axis", idle_pct);
	axis_sink_init(&e->out, &e->dut, "m_axis", busy_pct);
	for (unsigned int v = 0; v < ICMP_VERDICTS; v++)
		e->stat[v] = dut_port(&e->dut, stat_ports[v]);
	for (int i = 0; i < 6; i++)
		mac = mac << 8 | my_mac[i];
	vport_set(dut_port(&e->dut, "cfg_mac"), mac);
	vport_set(dut_port(&e->dut, "cfg_ipv4"), my_ip);
	vport_write(dut_port(&e->dut, "cfg_ip6"), ports, sizeof(ports));
	vport_set(dut_port(&e->dut, "cfg_ip6_valid"), e->v6);
	dut_add_agent(&e->dut, NULL, count_verdicts, e);
	dut_reset(&e->dut, 4);
}

static void env_close(struct icmp_env *e)
{
	for (size_t i = 0; i < e->nx; i++) {
		free(e->x[i].frame);
		free(e->x[i].reply);
	}
	free(e->x);
	free(e->seen);
	axis_source_free(&e->in);
	axis_sink_free(&e->out);
	dut_close(&e->dut);
}

/* The IPv4 verdict an ICMPv6 one is counted as (the same outputs of the block). */
static enum icmp_verdict verdict6(enum icmp6_verdict v)
{
	static const enum icmp_verdict as[ICMP6_FOREIGN] = {
		[ICMP6_ANSWERED] = ICMP_ANSWERED,   [ICMP6_NOT_OURS] = ICMP_NOT_OURS,
		[ICMP6_MALFORMED] = ICMP_MALFORMED, [ICMP6_TOO_LONG] = ICMP_TOO_LONG,
		[ICMP6_OVERFLOW] = ICMP_OVERFLOW,
	};

	return as[v];
}

static void send_frame(struct icmp_env *e, const uint8_t *f, size_t len)
{
	struct expect *x;
	uint8_t *reply;
	size_t reply_len = 0;
	enum icmp_verdict v;

	reply = malloc(CAP);
	if (!reply) {
		perror("malloc");
		exit(1);
	}
	if (e->v6) {
		enum icmp6_verdict v6 =
			icmp6_echo_answer(f, len, my_mac, (const uint8_t(*)[16])e->addrs, 2,
					  MAX_FRAME, reply, &reply_len);

		/* nd's: no verdict expected here */
		if (v6 == ICMP6_FOREIGN) {
			free(reply);
			axis_source_push(&e->in, f, len, -1);
			return;
		}
		v = verdict6(v6);
	} else {
		v = icmp_echo_answer(f, len, my_mac, my_ip, MAX_FRAME, reply, &reply_len);
	}

	if (e->nx == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 256;
		e->x = realloc(e->x, e->cap * sizeof(*e->x));
		if (!e->x) {
			perror("realloc");
			exit(1);
		}
	}
	x = &e->x[e->nx++];
	x->frame = malloc(len ? len : 1);
	x->reply = reply;
	x->reply_len = reply_len;
	memcpy(x->frame, f, len);
	x->len = len;
	x->verdict = v;
	axis_source_push(&e->in, f, len, -1);
}

/* A good echo request to us with random fields and len bytes of random data. */
static struct icmp_frame random_request(struct bench *b)
{
	struct icmp_frame h = {
		.tos = (uint8_t)bench_rand(b),
		.ip_id = (uint16_t)bench_rand(b),
		.df = bench_chance(b, 50),
		.ttl = (uint8_t)bench_range(b, 1, 255),
		.ip_src = bench_chance(b, 80) ? peer_ip : (uint32_t)bench_rand(b),
		.ip_dst = my_ip,
		.type = NET_ICMP_ECHO_REQUEST,
		.id = (uint16_t)bench_rand(b),
		.seq = (uint16_t)bench_rand(b),
	};

	memcpy(h.eth_dst, my_mac, 6);
	memcpy(h.eth_src, peer_mac, 6);
	if (bench_chance(b, 20)) {
		bench_fill(b, h.eth_src, 6);
		h.eth_src[0] &= 0xfe; /* a station, not a group */
	}
	return h;
}

/* Data lengths that favour small pings, beat edges and the longest answered. */
static size_t random_data_len(struct bench *b, unsigned int bytes)
{
	size_t max = MAX_FRAME - NET_ICMP_HDR;

	switch (bench_range(b, 0, 5)) {
	case 0:
		return (size_t)bench_range(b, 0, 20);
	case 1:
		return 56; /* ping's default */
	case 2:		   /* the frame ends near a beat edge */
		return (size_t)bench_range(b, NET_ICMP_HDR / bytes + 1, MAX_FRAME / bytes) * bytes -
		       NET_ICMP_HDR + (size_t)bench_range(b, 0, 2) - 1;
	case 3:
		return max - (size_t)bench_range(b, 0, 3);
	default:
		return (size_t)bench_range(b, 0, max);
	}
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The IP header checksum made right again after a change to the header. */
static void fix_ip_csum(uint8_t *f)
{
	unsigned int ihl = (f[14] & 0xf) * 4;

	put16(f + 24, 0);
	put16(f + 24, net_csum(f + 14, ihl >= 20 ? ihl : 20));
}

/* One random frame: a good echo request, or broken in one of many ways. */
static void random_frame(struct icmp_env *e)
{
	struct bench *b = e->b;
	struct icmp_frame h = random_request(b);
	uint8_t data[9000], f[9100];
	size_t dlen = random_data_len(b, e->in.p.bytes), len;

	bench_fill(b, data, sizeof(data));
	switch (bench_range(b, 0, 23)) {
	case 0: /* another address */
		h.ip_dst = bench_chance(b, 50) ? my_ip ^ (1u << bench_range(b, 0, 31)) : 0xffffffff;
		break;
	case 1: /* another MAC (broadcast, say) */
		memset(h.eth_dst, 0xff, 6);
		if (bench_chance(b, 50))
			h.eth_dst[bench_range(b, 0, 5)] ^= 0x10;
		break;
	case 2: /* not an echo request: replies, unreachables, a code */
		h.type = (uint8_t)(bench_chance(b, 50) ? NET_ICMP_ECHO_REPLY
						       : bench_range(b, 1, 20));
		if (bench_chance(b, 30)) {
			h.type = NET_ICMP_ECHO_REQUEST;
			h.code = (uint8_t)bench_range(b, 1, 255);
		}
		break;
	case 3: /* too long */
		dlen = (size_t)bench_range(b, MAX_FRAME - NET_ICMP_HDR + 1, 3000);
		break;
	default:
		break;
	}
	len = icmp_build(&h, data, dlen, f, sizeof(f));
	switch (bench_range(b, 0, 15)) {
	case 0: /* a bit of the IP header */
		f[14 + bench_range(b, 0, 19)] ^= (uint8_t)(1u << bench_range(b, 0, 7));
		break;
	case 1: /* a bit of the ICMP message */
		f[34 + bench_range(b, 0, 7 + dlen)] ^= (uint8_t)(1u << bench_range(b, 0, 7));
		break;
	case 2: /* cut short */
		len = (size_t)bench_range(b, 0, len - 1);
		break;
	case 3: /* bytes after the IP packet */
		for (unsigned int n = (unsigned int)bench_range(b, 1, 70); n; n--)
			f[len++] = (uint8_t)bench_rand(b);
		break;
	case 4: /* IP options claimed, or a fragment */
		if (bench_chance(b, 50))
			f[14] = 0x46;
		else
			put16(f + 20,
			      (uint16_t)(bench_chance(b, 50) ? 0x2000 : bench_range(b, 1, 0x1fff)));
		fix_ip_csum(f);
		break;
	case 5: /* an IP total length the frame does not hold, or too short for ICMP */
		put16(f + 16, (uint16_t)(bench_chance(b, 50) ? bench_range(b, 0, 27)
							     : len - 14 + bench_range(b, 1, 9)));
		fix_ip_csum(f);
		break;
	case 6: /* not ICMP, or not IPv4 */
		if (bench_chance(b, 50)) {
			f[23] = (uint8_t)(bench_chance(b, 50) ? 17 : 6);
			fix_ip_csum(f);
		} else {
			f[14] = 0x65;
		}
		break;
	case 7: /* the IP packet ends before the Ethernet minimum, unpadded */
		if (14 + dlen + 28 < NET_MIN_FRAME)
			len = 14 + 28 + dlen;
		break;
	default:
		break;
	}
	send_frame(e, f, len);
}

/* An ICMPv6 echo request from a peer's link-local address to one of ours. */
static size_t request6(struct icmp_env *e, const uint8_t *data, size_t dlen, uint8_t *f)
{
	struct bench *b = e->b;
	uint8_t src[16];

	nd_link_local(peer_mac, src);
	if (bench_chance(b, 20))
		bench_fill(b, src + 8, 8);
	return icmp6_build_echo(my_mac, peer_mac, src, e->addrs[bench_range(b, 0, 1)],
				ND_ECHO_REQUEST, (uint16_t)bench_rand(b), (uint16_t)bench_rand(b),
				data, dlen, f, CAP);
}

/* The ICMPv6 checksum made right again after a change to the packet. */
static void fix_csum6(uint8_t *f, size_t len)
{
	size_t plen = (size_t)f[18] << 8 | f[19];

	if (len < ND_ECHO_HDR || 54 + plen > len)
		return;
	put16(f + 56, 0);
	put16(f + 56, nd_icmp6_csum(f + 22, f + 38, f + 54, plen));
}

/* One random ICMPv6 frame: a good echo request, or broken in one of many ways. */
static void random_frame6(struct icmp_env *e)
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	struct bench *b = e->b;
	uint8_t data[3000], f[3100];
	size_t dlen = random_data_len(b, e->in.p.bytes) + 42 - ND_ECHO_HDR, len;

	if (dlen > MAX_FRAME - ND_ECHO_HDR)
		dlen = MAX_FRAME - ND_ECHO_HDR;
	/* too long to answer, but within what the frame buffer (CAP) holds */
	if (bench_chance(b, 4))
		dlen = (size_t)bench_range(b, MAX_FRAME - ND_ECHO_HDR + 1, CAP - ND_ECHO_HDR);
	bench_fill(b, data, sizeof(data));
	len = request6(e, data, dlen, f);
	switch (bench_range(b, 0, 19)) {
	case 0: /* another address, or all nodes at their group MAC */
		if (bench_chance(b, 50)) {
			f[38 + bench_range(b, 0, 15)] ^= (uint8_t)(1u << bench_range(b, 0, 7));
		} else {
			memcpy(f + 38, all_nodes, 16);
			nd_multicast_mac(all_nodes, f);
		}
		fix_csum6(f, len);
		break;
	case 1: /* another MAC */
		f[bench_range(b, 0, 5)] ^= 0x10;
		break;
	case 2: /* a code, or another type (a reply, a solicitation: not the block's) */
		if (bench_chance(b, 50))
			f[55] = (uint8_t)bench_range(b, 1, 255);
		else
			f[54] = (uint8_t)(bench_chance(b, 50) ? ND_ECHO_REPLY
							      : bench_range(b, 130, 140));
		fix_csum6(f, len);
		break;
	case 3: /* a bit anywhere */
		f[bench_range(b, 0, len - 1)] ^= (uint8_t)(1u << bench_range(b, 0, 7));
		break;
	case 4: /* cut short */
		len = (size_t)bench_range(b, 0, len - 1);
		break;
	case 5: /* bytes after the IPv6 packet */
		for (unsigned int n = (unsigned int)bench_range(b, 1, 70); n; n--)
			f[len++] = (uint8_t)bench_rand(b);
		break;
	case 6: /* a payload length under 8, or beyond the frame */
		put16(f + 18, (uint16_t)(bench_chance(b, 50) ? bench_range(b, 0, 7)
							     : len - 54 + bench_range(b, 1, 9)));
		break;
	case 7: /* not ICMPv6, or not IPv6 */
		if (bench_chance(b, 50))
			f[20] = 17;
		else
			f[14] = 0x45;
		break;
	default:
		break;
	}
	send_frame(e, f, len);
}

/* Requests whose checksums are the corner cases of one's complement: 0x0000 and 0xffff. */
static void corner_frames(struct icmp_env *e)
{
	struct icmp_frame h = random_request(e->b);
	uint8_t f[CAP], ones[64];
	size_t len;

	memset(ones, 0xff, sizeof(ones));
	/* id 0, seq 0, no data: the request's checksum is 0xf7ff, the reply's 0xffff */
	h.id = 0;
	h.seq = 0;
	len = icmp_build(&h, NULL, 0, f, sizeof(f));
	send_frame(e, f, len);
	/* words summing to 0xffff before the type: the request's checksum is 0x0000 */
	h.id = 0xf7ff;
	len = icmp_build(&h, NULL, 0, f, sizeof(f));
	send_frame(e, f, len);
	/* data of all ones, odd and even lengths */
	h.id = 0xffff;
	h.seq = 0xffff;
	for (size_t n = 0; n < 6; n++) {
		len = icmp_build(&h, ones, n, f, sizeof(f));
		send_frame(e, f, len);
	}
	/* from a group source MAC (802.3 forbids it): not answered, malformed */
	len = icmp_build(&h, NULL, 0, f, sizeof(f));
	f[6] |= 1;
	send_frame(e, f, len);
	/* the shortest frames: 42 bytes unpadded, and 41 */
	len = icmp_build(&h, NULL, 0, f, sizeof(f));
	send_frame(e, f, NET_ICMP_HDR);
	send_frame(e, f, NET_ICMP_HDR - 1);
	/* exactly the longest answered, and one byte more */
	len = icmp_build(&h, NULL, 0, f, sizeof(f));
	{
		static uint8_t data[MAX_FRAME];

		bench_fill(e->b, data, sizeof(data));
		len = icmp_build(&h, data, MAX_FRAME - NET_ICMP_HDR, f, sizeof(f));
		send_frame(e, f, len);
		len = icmp_build(&h, data, MAX_FRAME - NET_ICMP_HDR + 1, f, sizeof(f));
		send_frame(e, f, len);
	}
}

/* Everything that came out against the reference; true if all agree. */
static bool check(struct icmp_env *e, char *why, size_t whylen)
{
	struct axis_frame f;
	size_t answered = 0;

	why[0] = 0;
	if (e->double_pulses) {
		snprintf(why, whylen, "%u cycles with two verdict pulses", e->double_pulses);
		return false;
	}
	if (e->nseen != e->nx) {
		snprintf(why, whylen, "%zu verdicts for %zu frames", e->nseen, e->nx);
		return false;
	}
	for (size_t i = 0; i < e->nx; i++) {
		struct expect *x = &e->x[i];
		enum icmp_verdict got = e->seen[i];

		if (got != x->verdict && !(x->verdict == ICMP_ANSWERED && got == ICMP_OVERFLOW)) {
			snprintf(why, whylen, "frame %zu (%zu bytes): verdict %s, want %s", i,
				 x->len, icmp_verdict_name(got), icmp_verdict_name(x->verdict));
			return false;
		}
		if (got != ICMP_ANSWERED)
			continue;
		answered++;
		if (!axis_sink_pop(&e->out, &f)) {
			snprintf(why, whylen, "frame %zu: no reply came out", i);
			return false;
		}
		if (f.len != x->reply_len || memcmp(f.data, x->reply, f.len)) {
			size_t at = 0;

			while (at < f.len && at < x->reply_len && f.data[at] == x->reply[at])
				at++;
			snprintf(why, whylen,
				 "frame %zu: reply of %zu bytes, want %zu; first difference at "
				 "byte %zu",
				 i, f.len, x->reply_len, at);
			free(f.data);
			return false;
		}
		free(f.data);
	}
	if (axis_sink_count(&e->out)) {
		snprintf(why, whylen, "%zu replies more than the %zu answered",
			 axis_sink_count(&e->out), answered);
		return false;
	}
	if (e->out.protocol_errors) {
		snprintf(why, whylen, "AXI-Stream protocol: %.160s", e->out.first_error);
		return false;
	}
	return true;
}

static bool finish(struct icmp_env *e, const char *name)
{
	char why[256];
	bool ok = dut_run(&e->dut, 300, HANG_CYCLES);

	if (!ok)
		snprintf(why, sizeof(why), "hang: no progress for %d cycles", HANG_CYCLES);
	else
		ok = check(e, why, sizeof(why));
	return bench_result(e->b, name, ok, "%s", why);
}

static size_t count_verdict(const struct icmp_env *e, enum icmp_verdict v)
{
	size_t n = 0;

	for (size_t i = 0; i < e->nseen; i++)
		n += e->seen[i] == v;
	return n;
}

/* The answered requests and their replies into a capture, and tshark over it. */
static void tshark_pairs(struct icmp_env *e, const char *name, const char *pcap_path)
{
	struct pcap_file *pf = pcap_open_write(pcap_path, true);
	int err = pf ? 0 : -1;
	size_t pairs = 0;
	char tname[96];

	for (size_t i = 0; pf && i < e->nx; i++) {
		if (e->seen[i] != ICMP_ANSWERED)
			continue;
		err = err ?: pcap_write(pf, 2 * i * 1000, e->x[i].frame, e->x[i].len);
		err = err ?: pcap_write(pf, (2 * i + 1) * 1000, e->x[i].reply, e->x[i].reply_len);
		pairs++;
	}
	err = pf ? (pcap_close(pf) ?: err) : err;
	snprintf(tname, sizeof(tname), "%s_tshark", name);
	if (err)
		bench_result(e->b, tname, false, "cannot write %s", pcap_path);
	else
		net_oracle_tshark(e->b, tname, pcap_path, 2 * pairs);
}

static void test_corners(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	struct icmp_env e;

	env_open(&e, b, ops, 0, 0);
	corner_frames(&e);
	finish(&e, name);
	env_close(&e);
}

/*
 * Random frames with idle cycles and back-pressure; the requests and the replies go into
 * a capture for tshark.
 */
static void test_random(struct bench *b, const struct vmodel_ops *ops, const char *name,
			const char *pcap_path)
{
	unsigned int frames = b->quick ? 300 : 3000;
	struct icmp_env e;

	env_open(&e, b, ops, 20, 20);
	corner_frames(&e);
	for (unsigned int i = 0; i < frames; i++)
		random_frame(&e);
	if (!finish(&e, name) || !pcap_path)
		goto out;
	bench_log(b,
		  "%s: %zu answered, %zu ignored, %zu not ours, %zu malformed, %zu too long, "
		  "%zu overflow",
		  name, count_verdict(&e, ICMP_ANSWERED), count_verdict(&e, ICMP_IGNORED),
		  count_verdict(&e, ICMP_NOT_OURS), count_verdict(&e, ICMP_MALFORMED),
		  count_verdict(&e, ICMP_TOO_LONG), count_verdict(&e, ICMP_OVERFLOW));
	tshark_pairs(&e, name, pcap_path);
out:
	env_close(&e);
}

/*
 * Good requests back to back, replies taken at once: every one is answered (the buffer
 * keeps up with the line), none overflows.
 */
static void test_line_rate(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	unsigned int frames = b->quick ? 100 : 400;
	uint8_t data[MAX_FRAME], f[CAP];
	struct icmp_env e;

	env_open(&e, b, ops, 0, 0);
	for (unsigned int i = 0; i < frames; i++) {
		struct icmp_frame h = random_request(b);
		size_t len;

		bench_fill(b, data, sizeof(data));
		len = icmp_build(&h, data, random_data_len(b, e.in.p.bytes), f, sizeof(f));
		send_frame(&e, f, len);
	}
	if (finish(&e, name))
		bench_result(b, name, count_verdict(&e, ICMP_OVERFLOW) == 0,
			     "%zu requests overflowed", count_verdict(&e, ICMP_OVERFLOW));
	env_close(&e);
}

/*
 * The longest requests back to back while the replies are mostly held back: some must be
 * dropped and counted, the rest answered whole, and the input never refused.
 */
static void test_overflow(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	uint8_t data[MAX_FRAME], f[CAP];
	struct icmp_env e;

	env_open(&e, b, ops, 0, 90);
	for (unsigned int i = 0; i < 12; i++) {
		struct icmp_frame h = random_request(b);
		size_t len;

		memcpy(h.eth_src, peer_mac, 6);
		h.ip_dst = my_ip;
		bench_fill(b, data, sizeof(data));
		len = icmp_build(&h, data, MAX_FRAME - NET_ICMP_HDR, f, sizeof(f));
		send_frame(&e, f, len);
	}
	if (finish(&e, name))
		bench_result(b, name,
			     count_verdict(&e, ICMP_OVERFLOW) > 0 &&
				     count_verdict(&e, ICMP_ANSWERED) > 0,
			     "%zu answered, %zu overflowed", count_verdict(&e, ICMP_ANSWERED),
			     count_verdict(&e, ICMP_OVERFLOW));
	env_close(&e);
}

/*
 * Random ICMPv6 frames with idle cycles and back-pressure, then the longest requests with
 * the replies mostly held back; the answered pairs go to tshark.
 */
static void test_random6(struct bench *b, const struct vmodel_ops *ops, const char *name,
			 const char *pcap_path)
{
	unsigned int frames = b->quick ? 300 : 3000;
	static uint8_t data[MAX_FRAME], f[CAP];
	struct icmp_env e;
	char tname[96];

	env_open(&e, b, ops, 20, 20);
	/* from a group source MAC (802.3 forbids it): not answered, malformed */
	bench_fill(b, data, 56);
	{
		size_t len = request6(&e, data, 56, f);

		f[6] |= 1;
		send_frame(&e, f, len);
	}
	for (unsigned int i = 0; i < frames; i++)
		random_frame6(&e);
	if (!finish(&e, name))
		goto out;
	bench_log(b, "%s: %zu answered, %zu not ours, %zu malformed, %zu too long, %zu overflow",
		  name, count_verdict(&e, ICMP_ANSWERED), count_verdict(&e, ICMP_NOT_OURS),
		  count_verdict(&e, ICMP_MALFORMED), count_verdict(&e, ICMP_TOO_LONG),
		  count_verdict(&e, ICMP_OVERFLOW));
	bench_result(b, name, count_verdict(&e, ICMP_ANSWERED) > frames / 4, "only %zu answered",
		     count_verdict(&e, ICMP_ANSWERED));
	tshark_pairs(&e, name, pcap_path);
out:
	env_close(&e);

	snprintf(tname, sizeof(tname), "%s_overflow", name);
	env_open(&e, b, ops, 0, 90);
	bench_fill(b, data, sizeof(data));
	for (unsigned int i = 0; i < 12; i++)
		send_frame(&e, f, request6(&e, data, MAX_FRAME - ND_ECHO_HDR, f));
	if (finish(&e, tname))
		bench_result(b, tname,
			     count_verdict(&e, ICMP_OVERFLOW) > 0 &&
				     count_verdict(&e, ICMP_ANSWERED) > 0,
			     "%zu answered, %zu overflowed", count_verdict(&e, ICMP_ANSWERED),
			     count_verdict(&e, ICMP_OVERFLOW));
	env_close(&e);
}

int main(int argc, char **argv)
{
	static const struct {
		const struct vmodel_ops *ops;
		const char *tag;
	} widths[] = { { &vmodel_Vicmp_echo_w64, "w64" }, { &vmodel_Vicmp_echo_w512, "w512" } };
	struct bench b;
	char name[64], pcap_path[128];

	bench_init(&b, "test_icmp", argc, argv);
	for (size_t w = 0; w < 2; w++) {
		snprintf(name, sizeof(name), "icmp_corners_%s", widths[w].tag);
		test_corners(&b, widths[w].ops, name);
		snprintf(name, sizeof(name), "icmp_random_%s", widths[w].tag);
		snprintf(pcap_path, sizeof(pcap_path), "build/icmp-%s.pcap", widths[w].tag);
		test_random(&b, widths[w].ops, name, pcap_path);
		snprintf(name, sizeof(name), "icmp_line_rate_%s", widths[w].tag);
		test_line_rate(&b, widths[w].ops, name);
		snprintf(name, sizeof(name), "icmp_overflow_%s", widths[w].tag);
		test_overflow(&b, widths[w].ops, name);
		snprintf(name, sizeof(name), "icmp6_random_%s", widths[w].tag);
		snprintf(pcap_path, sizeof(pcap_path), "build/icmp6-%s.pcap", widths[w].tag);
		test_random6(&b, w ? &vmodel_Vicmp6_echo_w512 : &vmodel_Vicmp6_echo_w64, name,
			     pcap_path);
	}
	return bench_finish(&b);
}
