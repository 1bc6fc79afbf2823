// SPDX-License-Identifier: MIT
/*
 * Bench of nd, the IPv6 neighbour discovery frames, at 64 and 512 bits.
 *
 * The C reference (nd_answer() in sim/wire/nd_wire.c, held to Linux's frames by test_wire)
 * is the scoreboard: for every frame sent in it gives the verdict the RTL must count, and
 * for a solicitation of one of the port's addresses the advertisement. The verdict pulses
 * must come one per frame, in order, each the reference's, except that an answered
 * solicitation may be an overflow when advertisements are held back; the advertisements
 * that come out must be the reference's, byte for byte. Linux's own solicitation
 * (rxe-ipv6-rc-pingpong.pcap, frame 21) must get Linux's own advertisement (frame 22).
 * What the cache learns (m_learn_*) must be nd_learned()'s, record for record; the
 * solicitations asked for (s_solicit_*) must come out as nd_build_solicit() builds them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axis.h"
#include "bench.h"
#include "nd_wire.h"
#include "pcap.h"

extern const struct vmodel_ops vmodel_Vnd_w64, vmodel_Vnd_w512;

#define ADDRS 2 /* the RTL's default: configured addresses besides the link-local one */
#define CAP 256
#define HANG_CYCLES 20000
#define GOLDEN "testbench/data/rxe-ipv6-rc-pingpong.pcap"

struct expect {
	enum nd_verdict verdict;
	uint8_t reply[ND_FRAME_LEN];
	size_t len;
	bool learn, request; /* what the cache learns: addr at mac */
	uint8_t addr[16], mac[6];
};

/* A record the RTL gave the cache. */
struct learn {
	bool request;
	uint8_t addr[16], mac[6];
};

struct nd_env {
	struct bench *b;
	struct dut dut;
	struct axis_source in;
	struct axis_sink out;
	const struct vmodel_port *stat[ND_VERDICTS + 1];
	uint8_t mac[6];
	uint8_t addrs[1 + ADDRS][16]; /* the link-local one first */
	size_t naddrs;
	struct expect *x;
	size_t nx, cap;
	int *seen; /* verdict pulses in order: enum nd_verdict, or ND_VERDICTS for overflow */
	size_t nseen;
	unsigned int double_pulses;
	const struct vmodel_port *learn_valid, *learn_request, *learn_addr, *learn_mac;
	struct learn *learned;
	size_t nlearned;
	/* solicitations to ask for: targets, 16 bytes each */
	const struct vmodel_port *sol_valid, *sol_ready, *sol_target;
	uint8_t (*targets)[16];
	size_t ntargets, next_target;
};

static const char *const stat_ports[ND_VERDICTS + 1] = {
	"stat_answered", "stat_ignored", "stat_not_ours", "stat_malformed",
	"stat_too_long", "stat_advert",	 "stat_echo",	  "stat_overflow",
};

static void *grow(void *p, size_t n, size_t size)
{
	p = realloc(p, n * size);
	if (!p) {
		perror("realloc");
		exit(1);
	}
	return p;
}

/* An address as the RTL holds it (first byte most significant) from or to bytes. */
static void addr_swap(uint8_t *dst, const uint8_t *src)
{
	for (int i = 0; i < 16; i++)
		dst[i] = src[15 - i];
}

static void drive_solicit(void *ctx)
{
	struct nd_env *e = ctx;
	uint8_t port[16];

	if (e->next_target < e->ntargets) {
		addr_swap(port, e->targets[e->next_target]);
		vport_write(e->sol_target, port, 16);
	}
	vport_set(e->sol_valid, e->next_target < e->ntargets);
}

static const char *verdict_name(int v)
{
	return v == ND_VERDICTS ? "overflow" : nd_verdict_name((enum nd_verdict)v);
}

static void count_verdicts(void *ctx)
{
	struct nd_env *e = ctx;
	unsigned int n = 0;

	for (int v = 0; v <= ND_VERDICTS; v++) {
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
		e->seen[e->nseen++] = v;
	}
	if (vport_get(e->learn_valid)) {
		struct learn *l;
		uint8_t port[16];
		uint64_t m = vport_get(e->learn_mac);

		e->learned = grow(e->learned, e->nlearned + 1, sizeof(*e->learned));
		l = &e->learned[e->nlearned++];
		l->request = vport_get(e->learn_request);
		vport_read(e->learn_addr, port, 16);
		addr_swap(l->addr, port);
		for (int i = 5; i >= 0; i--, m >>= 8)
			l->mac[i] = (uint8_t)m;
	}
	if (vport_get(e->sol_valid) && vport_get(e->sol_ready))
		e->next_target++;
}

/* The port: mac, and configured addresses (the first nconf of ADDRS enabled). */
static void env_open(struct nd_env *e, struct bench *b, const struct vmodel_ops *ops,
		     const uint8_t mac[6], const uint8_t (*conf)[16], size_t nconf,
		     unsigned int idle_pct, unsigned int busy_pct)
{
	uint8_t ports[ADDRS * 16] = { 0 };
	uint64_t m = 0;

	memset(e, 0, sizeof(*e));
	e->b = b;
	memcpy(e->mac, mac, 6);
	nd_link_local(mac, e->addrs[0]);
	for (size_t k = 0; k < nconf; k++) {
		memcpy(e->addrs[1 + k], conf[k], 16);
		/* address k at [k*128 +: 128], its first byte the most significant */
		for (int i = 0; i < 16; i++)
			ports[k * 16 + 15 - i] = conf[k][i];
	}
	e->naddrs = 1 + nconf;
	dut_open(&e->dut, b, ops);
	axis_source_init(&e->in, &e->dut, "s_axis", idle_pct);
	axis_sink_init(&e->out, &e->dut, "m_axis", busy_pct);
	for (int v = 0; v <= ND_VERDICTS; v++)
		e->stat[v] = dut_port(&e->dut, stat_ports[v]);
	e->learn_valid = dut_port(&e->dut, "m_learn_valid");
	e->learn_request = dut_port(&e->dut, "m_learn_request");
	e->learn_addr = dut_port(&e->dut, "m_learn_addr");
	e->learn_mac = dut_port(&e->dut, "m_learn_mac");
	e->sol_valid = dut_port(&e->dut, "s_solicit_valid");
	e->sol_ready = dut_port(&e->dut, "s_solicit_ready");
	e->sol_target = dut_port(&e->dut, "s_solicit_target");
	for (int i = 0; i < 6; i++)
		m = m << 8 | mac[i];
	vport_set(dut_port(&e->dut, "cfg_mac"), m);
	vport_write(dut_port(&e->dut, "cfg_ip6"), ports, sizeof(ports));
	vport_set(dut_port(&e->dut, "cfg_ip6_valid"), (1u << nconf) - 1);
	dut_add_agent(&e->dut, drive_solicit, count_verdicts, e);
	dut_reset(&e->dut, 4);
}

static void env_close(struct nd_env *e)
{
	free(e->x);
	free(e->seen);
	free(e->learned);
	free(e->targets);
	axis_source_free(&e->in);
	axis_sink_free(&e->out);
	dut_close(&e->dut);
}

static void send_frame(struct nd_env *e, const uint8_t *f, size_t len)
{
	struct expect *x;

	if (e->nx == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 256;
		e->x = realloc(e->x, e->cap * sizeof(*e->x));
		if (!e->x) {
			perror("realloc");
			exit(1);
		}
	}
	x = &e->x[e->nx++];
	x->verdict = nd_answer(f, len, e->mac, (const uint8_t(*)[16])e->addrs, e->naddrs, x->reply);
	x->len = ND_FRAME_LEN;
	x->learn = nd_learned(f, len, x->verdict, x->addr, x->mac, &x->request);
	axis_source_push(&e->in, f, len, -1);
}

static void fix_csum(uint8_t *f)
{
	size_t plen = (size_t)f[18] << 8 | f[19];
	uint16_t c;

	f[56] = f[57] = 0;
	c = nd_icmp6_csum(f + 22, f + 38, f + 54, plen);
	f[56] = (uint8_t)(c >> 8);
	f[57] = (uint8_t)c;
}

/* A solicitation, good or broken in one of many ways; its length. */
static size_t random_frame(struct nd_env *e, uint8_t *f)
{
	struct bench *b = e->b;
	uint8_t peer_mac[6], peer[16], target[16];
	size_t len;

	bench_fill(b, peer_mac, 6);
	peer_mac[0] &= 0xfe;
	nd_link_local(peer_mac, peer);
	if (bench_chance(b, 30))
		bench_fill(b, peer, 16);
	if (bench_chance(b, 75)) {
		memcpy(target, e->addrs[bench_range(b, 0, e->naddrs - 1)], 16);
	} else {
		bench_fill(b, target, 16);
		target[0] &= 0xfe; /* not multicast, unless broken below */
	}
	len = nd_build_solicit(peer_mac, peer, target, f);
	switch (bench_range(b, 0, 23)) {
	case 20: /* an advertisement to us, solicited, or to all nodes (not solicited) */
	case 21: {
		static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
		uint8_t dst[16], eth_dst[6];
		bool multicast = bench_chance(b, 25);

		memcpy(dst, multicast ? all_nodes : e->addrs[bench_range(b, 0, e->naddrs - 1)], 16);
		if (multicast)
			nd_multicast_mac(all_nodes, eth_dst);
		else
			memcpy(eth_dst, e->mac, 6);
		len = nd_build_advert(eth_dst, peer_mac, peer, dst,
				      ND_FLAG_OVERRIDE | (multicast ? 0 : ND_FLAG_SOLICITED), f);
		switch (bench_range(b, 0, 5)) {
		case 0: /* without the option: the frame's source is the neighbour's MAC */
			f[19] = 24;
			len = 78;
			fix_csum(f);
			break;
		case 1: /* solicited, yet to all nodes */
			f[58] |= 0x40;
			fix_csum(f);
			break;
		case 2: /* another MAC, or another destination */
			if (bench_chance(b, 50))
				f[bench_range(b, 0, 5)] ^= 0x10;
			else
				f[53] ^= 0x10;
			fix_csum(f);
			break;
		case 3: /* a bit anywhere */
			f[bench_range(b, 0, len - 1)] ^= (uint8_t)(1u << bench_range(b, 0, 7));
			break;
		default:
			break;
		}
		return len;
	}
	case 0: /* to our MAC instead of the group's, and to the target itself */
		memcpy(f, e->mac, 6);
		memcpy(f + 38, target, 16);
		fix_csum(f);
		break;
	case 1: /* duplicate address detection: from ::, without the option */
		memset(f + 22, 0, 16);
		f[19] = 24;
		len = 78;
		fix_csum(f);
		break;
	case 2: /* DAD with a nonce option (type 14) */
		memset(f + 22, 0, 16);
		f[78] = 14;
		bench_fill(b, f + 80, 6);
		fix_csum(f);
		break;
	case 3: /* a bit anywhere */
		f[bench_range(b, 0, len - 1)] ^= (uint8_t)(1u << bench_range(b, 0, 7));
		break;
	case 4: /* hop limit, code, multicast target, option length: then a good checksum */
		switch (bench_range(b, 0, 3)) {
		case 0:
			f[21] = (uint8_t)bench_range(b, 0, 254);
			break;
		case 1:
			f[55] = (uint8_t)bench_range(b, 1, 255);
			break;
		case 2:
			f[62] = 0xff;
			break;
		default:
			f[79] = bench_chance(b, 50) ? 0 : (uint8_t)bench_range(b, 2, 255);
			break;
		}
		fix_csum(f);
		break;
	case 5: /* another type: an advertisement, echo, router solicitation */
		f[54] = (uint8_t)(bench_chance(b, 50) ? ND_ADVERT : bench_range(b, 128, 134));
		fix_csum(f);
		break;
	case 6: /* cut short, or bytes after */
		if (bench_chance(b, 50)) {
			len = (size_t)bench_range(b, 0, len - 1);
		} else {
			for (unsigned int n = (unsigned int)bench_range(b, 1, 40); n; n--)
				f[len++] = (uint8_t)bench_rand(b);
		}
		break;
	case 7: /* a second option (too long to read), or a payload length off */
		if (bench_chance(b, 50)) {
			memcpy(f + 86, "\x0e\x01\x01\x02\x03\x04\x05\x06", 8);
			f[19] = 40;
			len = 94;
		} else {
			f[19] = (uint8_t)bench_range(b, 0, 48);
		}
		fix_csum(f);
		break;
	case 8: /* not ICMPv6, or not IPv6 */
		if (bench_chance(b, 50))
			f[20] = (uint8_t)(bench_chance(b, 50) ? 17 : 0);
		else
			f[14] = 0x45;
		break;
	default:
		break;
	}
	return len;
}

/* Everything that came out against the reference; true if all agree. */
static bool check(struct nd_env *e, char *why, size_t whylen)
{
	struct axis_frame f;
	size_t nlearn;

	why[0] = 0;
	if (e->double_pulses) {
		snprintf(why, whylen, "%u cycles with two verdict pulses", e->double_pulses);
		return false;
	}
	if (e->nseen != e->nx) {
		snprintf(why, whylen, "%zu verdicts for %zu frames", e->nseen, e->nx);
		return false;
	}
	nlearn = 0;
	for (size_t i = 0; i < e->nx; i++) {
		struct expect *x = &e->x[i];
		struct learn *l;

		if (!x->learn)
			continue;
		if (nlearn >= e->nlearned) {
			snprintf(why, whylen, "frame %zu: nothing learned", i);
			return false;
		}
		l = &e->learned[nlearn++];
		if (l->request != x->request || memcmp(l->addr, x->addr, 16) ||
		    memcmp(l->mac, x->mac, 6)) {
			snprintf(why, whylen, "frame %zu: learned another record (request %d)", i,
				 l->request);
			return false;
		}
	}
	if (nlearn != e->nlearned) {
		snprintf(why, whylen, "%zu records learned, %zu expected", e->nlearned, nlearn);
		return false;
	}
	for (size_t i = 0; i < e->nx; i++) {
		struct expect *x = &e->x[i];
		int got = e->seen[i];

		if (got != (int)x->verdict && !(x->verdict == ND_ANSWERED && got == ND_VERDICTS)) {
			snprintf(why, whylen, "frame %zu: verdict %s, want %s", i,
				 verdict_name(got), verdict_name(x->verdict));
			return false;
		}
		if (got != ND_ANSWERED)
			continue;
		if (!axis_sink_pop(&e->out, &f)) {
			snprintf(why, whylen, "frame %zu: no advertisement came out", i);
			return false;
		}
		if (f.len != x->len || memcmp(f.data, x->reply, f.len)) {
			size_t at = 0;

			while (at < f.len && at < x->len && f.data[at] == x->reply[at])
				at++;
			snprintf(
				why, whylen,
				"frame %zu: advertisement of %zu bytes; first difference at byte %zu",
				i, f.len, at);
			free(f.data);
			return false;
		}
		free(f.data);
	}
	if (axis_sink_count(&e->out)) {
		snprintf(why, whylen, "%zu advertisements too many", axis_sink_count(&e->out));
		return false;
	}
	if (e->out.protocol_errors) {
		snprintf(why, whylen, "AXI-Stream protocol: %.160s", e->out.first_error);
		return false;
	}
	return true;
}

static bool finish(struct nd_env *e, const char *name)
{
	char why[256];
	bool ok = dut_run(&e->dut, 300, HANG_CYCLES);

	if (!ok)
		snprintf(why, sizeof(why), "hang: no progress for %d cycles", HANG_CYCLES);
	else
		ok = check(e, why, sizeof(why));
	return bench_result(e->b, name, ok, "%s", why);
}

static size_t count_verdict(const struct nd_env *e, int v)
{
	size_t n = 0;

	for (size_t i = 0; i < e->nseen; i++)
		n += e->seen[i] == v;
	return n;
}

/* Linux's solicitation of b, to a port with b's MAC: Linux's advertisement, exactly. */
static void test_golden(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	struct pcap_file *pf = pcap_open_read(GOLDEN);
	static struct pcap_packet pkt;
	uint8_t ns[CAP], na[CAP];
	struct axis_frame f;
	struct nd_env e;
	bool ok;

	for (unsigned int i = 1; pf && pcap_read(pf, &pkt) == 0 && i <= 22; i++) {
		if (i == 21)
			memcpy(ns, pkt.data, ND_FRAME_LEN);
		if (i == 22)
			memcpy(na, pkt.data, ND_FRAME_LEN);
	}
	if (pf)
		pcap_close(pf);
	env_open(&e, b, ops, na + 6, NULL, 0, 0, 0);
	axis_source_push(&e.in, ns, ND_FRAME_LEN, -1);
	dut_run(&e.dut, 300, HANG_CYCLES);
	ok = axis_sink_pop(&e.out, &f);
	bench_result(b, name, ok && f.len == ND_FRAME_LEN && !memcmp(f.data, na, ND_FRAME_LEN),
		     "%s", ok ? "the advertisement differs from Linux's" : "no advertisement");
	if (ok)
		free(f.data);
	env_close(&e);
}

/* Random solicitations with idle cycles and back-pressure, two configured addresses. */
static void test_random(struct bench *b, const struct vmodel_ops *ops, const char *name,
			unsigned int busy_pct)
{
	unsigned int frames = b->quick ? 300 : 3000;
	uint8_t mac[6], conf[ADDRS][16], f[CAP];
	struct nd_env e;

	bench_fill(b, mac, 6);
	mac[0] &= 0xfe;
	bench_fill(b, conf, sizeof(conf));
	conf[0][0] = 0x20; /* a global address, 2000::/3 */
	conf[1][0] = 0xfd; /* a unique local one */
	env_open(&e, b, ops, mac, (const uint8_t(*)[16])conf, bench_chance(b, 50) ? 2 : 1, 20,
		 busy_pct);
	for (unsigned int i = 0; i < frames; i++)
		send_frame(&e, f, random_frame(&e, f));
	if (finish(&e, name))
		bench_log(b,
			  "%s: %zu answered, %zu ignored, %zu not ours, %zu malformed, %zu too "
			  "long, %zu advertisements, %zu overflow, %zu learned",
			  name, count_verdict(&e, ND_ANSWERED), count_verdict(&e, ND_IGNORED),
			  count_verdict(&e, ND_NOT_OURS), count_verdict(&e, ND_MALFORMED),
			  count_verdict(&e, ND_TOO_LONG), count_verdict(&e, ND_ADVERTISED),
			  count_verdict(&e, ND_VERDICTS), e.nlearned);
	if (busy_pct < 90)
		bench_result(b, name, count_verdict(&e, ND_ADVERTISED) > frames / 50,
			     "only %zu advertisements learned", count_verdict(&e, ND_ADVERTISED));
	if (busy_pct >= 90)
		bench_result(b, name, count_verdict(&e, ND_VERDICTS) > 0,
			     "nothing overflowed with the output held back");
	else
		bench_result(b, name, count_verdict(&e, ND_ANSWERED) > frames / 10,
			     "only %zu answered", count_verdict(&e, ND_ANSWERED));
	env_close(&e);
}

/* Solicitations asked for back to back, the output held back: each as the reference builds it. */
static void test_solicit(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	unsigned int n = b->quick ? 40 : 400;
	uint8_t mac[6], ll[16], want[ND_FRAME_LEN];
	struct axis_frame f;
	struct nd_env e;
	char why[160] = "";
	bool ok;

	bench_fill(b, mac, 6);
	mac[0] &= 0xfe;
	nd_link_local(mac, ll);
	env_open(&e, b, ops, mac, NULL, 0, 0, 30);
	e.targets = grow(NULL, n, 16);
	e.ntargets = n;
	bench_fill(b, e.targets, 16 * (size_t)n);
	ok = dut_run(&e.dut, 300, HANG_CYCLES) && e.next_target == n;
	if (!ok)
		snprintf(why, sizeof(why), "%zu of %u solicitations taken", e.next_target, n);
	for (unsigned int i = 0; ok && i < n; i++) {
		nd_build_solicit(mac, ll, e.targets[i], want);
		if (!axis_sink_pop(&e.out, &f)) {
			snprintf(why, sizeof(why), "solicitation %u did not come out", i);
			ok = false;
			break;
		}
		if (f.len != ND_FRAME_LEN || memcmp(f.data, want, ND_FRAME_LEN)) {
			snprintf(why, sizeof(why), "solicitation %u differs from the reference", i);
			ok = false;
		}
		free(f.data);
	}
	if (ok && (axis_sink_count(&e.out) || e.out.protocol_errors)) {
		snprintf(why, sizeof(why), "frames too many, or AXI-Stream protocol errors");
		ok = false;
	}
	bench_result(b, name, ok, "%s", why);
	env_close(&e);
}

int main(int argc, char **argv)
{
	static const struct {
		const struct vmodel_ops *ops;
		const char *tag;
	} widths[] = { { &vmodel_Vnd_w64, "w64" }, { &vmodel_Vnd_w512, "w512" } };
	struct bench b;
	char name[64];

	bench_init(&b, "test_nd", argc, argv);
	for (size_t w = 0; w < 2; w++) {
		snprintf(name, sizeof(name), "nd_golden_%s", widths[w].tag);
		test_golden(&b, widths[w].ops, name);
		snprintf(name, sizeof(name), "nd_random_%s", widths[w].tag);
		test_random(&b, widths[w].ops, name, 20);
		snprintf(name, sizeof(name), "nd_overflow_%s", widths[w].tag);
		test_random(&b, widths[w].ops, name, 95);
		snprintf(name, sizeof(name), "nd_solicit_%s", widths[w].tag);
		test_solicit(&b, widths[w].ops, name);
	}
	return bench_finish(&b);
}
