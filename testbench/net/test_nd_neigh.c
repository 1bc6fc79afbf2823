// SPDX-License-Identifier: MIT
/*
 * Bench of nd_neigh (nd beside neigh_engine, ARP's engine with 128-bit addresses), the
 * core's IPv6 neighbour discovery, at 64 and 512 bits.
 *
 * The engine's cache policy is held to test_arp's C model at 32 bits (it is one engine);
 * nd's frames to nd_wire's reference by test_nd. This bench holds what joins them:
 *
 * - directed: the port's own addresses resolve to its MAC, :: and multicast fail at once;
 *   a lookup sends the solicitation nd_build_solicit() builds (its addresses, group MAC
 *   and checksum), a peer's advertisement resolves it, a cached address answers at once,
 *   an expired one is asked again, an unanswered one is asked REG_ARP_RETRY.TRIES times at
 *   the deadline the block reports and fails; a solicitation's sender is learned; an
 *   unsolicited, foreign or broken advertisement is counted and changes nothing;
 * - deadline: every entry pending, the time moved only to the reported deadline, exactly
 *   one entry due at each jump;
 * - random: lookups of more peers than the cache holds, peers that answer or not, time
 *   jumps, idle cycles and back-pressure: every answer is the asked peer's MAC or FAILED
 *   for a silent one, every frame out a good solicitation to a peer's group, each counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axis.h"
#include "bench.h"
#include "hroce_contract.h"
#include "nd_wire.h"

extern const struct vmodel_ops vmodel_Vnd_neigh_w64, vmodel_Vnd_neigh_w512;

#define ENTRIES HROCE_ARP_CACHE_ENTRIES
#define ADDRS HROCE_IPV6_ADDRS
#define NPEERS 24 /* more than the cache holds */
#define HANG_CYCLES 5000
/* quiet long enough for the scan to visit every entry, twice */
#define SETTLE_CYCLES (ENTRIES * 8 + 64)
#define MAX_OUT 64

enum { NONE = HROCE_ARP_STATE_NONE, PENDING, RESOLVED, FAILED };

/* The counters, in NET_COUNTER order from ND_ANSWERED. */
enum {
	C_ANSWERED,
	C_IGNORED,
	C_NOT_OURS,
	C_MALFORMED,
	C_TOO_LONG,
	C_OVERFLOW,
	C_LEARNED,
	C_UNSOLICITED,
	C_SOLICIT_SENT,
	C_FAILED,
	C_EXPIRED,
	NCOUNTERS
};
static const char *const stat_ports[NCOUNTERS] = {
	"stat_answered",     "stat_ignored",  "stat_not_ours", "stat_malformed",
	"stat_too_long",     "stat_overflow", "stat_learned",  "stat_unsolicited",
	"stat_solicit_sent", "stat_failed",   "stat_expired",
};

struct peer {
	uint8_t mac[6], ip[16];
};

struct nn_env {
	struct bench *b;
	struct dut dut;
	struct axis_source in;
	struct axis_sink out;
	const struct vmodel_port *stat[NCOUNTERS], *time_now, *lookup_ip, *lookup_valid;
	const struct vmodel_port *result, *deadline;
	uint64_t count[NCOUNTERS];
	uint64_t now;
	int lookup_pending; /* cycles the lookup pulse still has to wait: -1 none */
	uint8_t lookup_addr[16];
	uint8_t mac[6], ll[16], conf[16];
	uint32_t interval;
	unsigned int tries;
	uint64_t lifetime;
	struct peer peers[NPEERS];
	uint8_t got[MAX_OUT][ND_FRAME_LEN]; /* frames out since the last settle */
	unsigned int nout;
	char error[256];
};

/* The first difference a check finds, kept in e->error. */
#define fail(e, ...) bench_first_error((e)->error, sizeof((e)->error), __VA_ARGS__)

/* An address as the RTL holds it (first byte most significant) from bytes. */
static void addr_port(uint8_t port[16], const uint8_t ip[16])
{
	for (int i = 0; i < 16; i++)
		port[i] = ip[15 - i];
}

static void drive(void *ctx)
{
	struct nn_env *e = ctx;
	uint8_t port[16];

	vport_set(e->time_now, e->now);
	vport_set(e->lookup_valid, 0);
	if (e->lookup_pending > 0) {
		e->lookup_pending--;
	} else if (e->lookup_pending == 0) {
		addr_port(port, e->lookup_addr);
		vport_write(e->lookup_ip, port, 16);
		vport_set(e->lookup_valid, 1);
		e->lookup_pending = -1;
		e->dut.pending--;
		e->dut.transfers++;
	}
}

static void sample(void *ctx)
{
	struct nn_env *e = ctx;

	for (int c = 0; c < NCOUNTERS; c++)
		e->count[c] += vport_get(e->stat[c]);
}

static void env_open(struct nn_env *e, struct bench *b, const struct vmodel_ops *ops,
		     uint64_t lifetime, uint32_t interval, unsigned int tries,
		     unsigned int idle_pct, unsigned int busy_pct)
{
	uint8_t ports[ADDRS * 16] = { 0 };

	memset(e, 0, sizeof(*e));
	e->b = b;
	e->lookup_pending = -1;
	e->lifetime = lifetime;
	e->interval = interval;
	e->tries = tries;
	bench_random_mac(b, e->mac);
	nd_link_local(e->mac, e->ll);
	bench_fill(b, e->conf, 16);
	e->conf[0] = 0x20; /* a global address, 2000::/3 */
	dut_open(&e->dut, b, ops);
	axis_source_init(&e->in, &e->dut, "s_axis", idle_pct);
	axis_sink_init(&e->out, &e->dut, "m_axis", busy_pct);
	for (int c = 0; c < NCOUNTERS; c++)
		e->stat[c] = dut_port(&e->dut, stat_ports[c]);
	e->time_now = dut_port(&e->dut, "time_now");
	e->lookup_ip = dut_port(&e->dut, "s_lookup_ip");
	e->lookup_valid = dut_port(&e->dut, "s_lookup_valid");
	e->result = dut_port(&e->dut, "m_result");
	e->deadline = dut_port(&e->dut, "m_deadline");
	vport_set(dut_port(&e->dut, "cfg_mac"), bench_mac_value(e->mac));
	/* the configured address in the last of the slots, the others off */
	addr_port(ports + (ADDRS - 1) * 16, e->conf);
	vport_write(dut_port(&e->dut, "cfg_ip6"), ports, sizeof(ports));
	vport_set(dut_port(&e->dut, "cfg_ip6_valid"), 1u << (ADDRS - 1));
	vport_set(dut_port(&e->dut, "cfg_lifetime"), lifetime);
	vport_set(dut_port(&e->dut, "cfg_retry_interval"), interval);
	vport_set(dut_port(&e->dut, "cfg_retry_tries"), tries);
	/* any start: the block only ever subtracts times */
	e->now = bench_rand(b);
	dut_add_agent(&e->dut, drive, sample, e);
	dut_reset(&e->dut, 4);
	for (int i = 0; i < NPEERS; i++) {
		bench_random_mac(b, e->peers[i].mac);
		nd_link_local(e->peers[i].mac, e->peers[i].ip);
		if (i & 1) { /* half of them by a global address */
			memcpy(e->peers[i].ip, e->conf, 8);
			e->peers[i].ip[15] = (uint8_t)(0x80 + i);
		}
	}
}

static void env_close(struct nn_env *e)
{
	axis_source_free(&e->in);
	axis_sink_free(&e->out);
	dut_close(&e->dut);
}

static uint64_t field(uint64_t v, unsigned int lsb, unsigned int width)
{
	return v >> lsb & ((UINT64_C(1) << width) - 1);
}
#define RESULT(r, f) field(r, HROCE_ARP_RESULT_##f##_LSB, HROCE_ARP_RESULT_##f##_WIDTH)

/* Runs until quiet with the time held; the frames that came out go to e->out. */
static bool settle(struct nn_env *e, const char *what)
{
	struct axis_frame f;

	e->nout = 0;
	if (!dut_run(&e->dut, SETTLE_CYCLES, HANG_CYCLES)) {
		fail(e, "%s: hang", what);
		return false;
	}
	while (axis_sink_pop(&e->out, &f)) {
		if (f.len != ND_FRAME_LEN)
			fail(e, "%s: a frame of %zu bytes", what, f.len);
		else if (e->nout < MAX_OUT)
			memcpy(e->got[e->nout++], f.data, ND_FRAME_LEN);
		free(f.data);
	}
	if (e->out.protocol_errors)
		fail(e, "AXI-Stream protocol: %.160s", e->out.first_error);
	return !e->error[0];
}

static bool ev_frame(struct nn_env *e, const uint8_t *f, size_t len)
{
	axis_source_push(&e->in, f, len, -1);
	return settle(e, "frame");
}

static bool ev_lookup(struct nn_env *e, const uint8_t ip[16])
{
	memcpy(e->lookup_addr, ip, 16);
	e->lookup_pending = (int)bench_range(e->b, 0, 3);
	e->dut.pending++;
	return settle(e, "lookup");
}

static bool ev_time(struct nn_env *e, uint64_t delta)
{
	e->now += delta;
	return settle(e, "time jump");
}

static unsigned int result_state(struct nn_env *e)
{
	return (unsigned int)RESULT(vport_get(e->result), STATE);
}

static uint64_t result_mac(struct nn_env *e)
{
	return RESULT(vport_get(e->result), MAC);
}

/* Whether frame i out is the solicitation for ip, as the reference builds it. */
static bool solicited(struct nn_env *e, unsigned int i, const uint8_t ip[16])
{
	uint8_t want[ND_FRAME_LEN];

	nd_build_solicit(e->mac, e->ll, ip, want);
	return i < e->nout && !memcmp(e->got[i], want, ND_FRAME_LEN) &&
	       nd_icmp6_csum(e->got[i] + 22, e->got[i] + 38, e->got[i] + 54, 32) == 0;
}

/* The advertisement peer p answers a solicitation of ours with. */
static size_t advert(struct nn_env *e, const struct peer *p, uint8_t *f)
{
	return nd_build_advert(e->mac, p->mac, p->ip, e->ll, ND_FLAG_SOLICITED | ND_FLAG_OVERRIDE,
			       f);
}

/* The facts, one by one. */
static void test_directed(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	static const uint8_t unspecified[16], all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	uint8_t nobody[16], f[128], want[ND_FRAME_LEN];
	struct nn_env e;
	struct peer *p;
	uint64_t sent;
	bool ok;

	env_open(&e, b, ops, 10000, 500, 3, 10, 10);
	p = &e.peers[0];
	memcpy(nobody, e.conf, 16);
	nobody[15] ^= 0x55;

	ok = ev_lookup(&e, e.ll) && result_state(&e) == RESOLVED &&
	     result_mac(&e) == bench_mac_value(e.mac) && ev_lookup(&e, e.conf) &&
	     result_state(&e) == RESOLVED && result_mac(&e) == bench_mac_value(e.mac) && !e.nout;
	bench_result(b, name, ok, "own addresses: %s, state %u", e.error, result_state(&e));
	ok = ev_lookup(&e, unspecified) && result_state(&e) == FAILED && ev_lookup(&e, all_nodes) &&
	     result_state(&e) == FAILED && e.count[C_SOLICIT_SENT] == 0 && !e.nout;
	bench_result(b, name, ok, ":: and ff02::1: %s, state %u", e.error, result_state(&e));

	ok = ev_lookup(&e, p->ip) && result_state(&e) == PENDING && e.count[C_SOLICIT_SENT] == 1 &&
	     e.nout == 1 && solicited(&e, 0, p->ip);
	bench_result(b, name, ok, "a solicitation to the peer's group: %s, %u frames", e.error,
		     e.nout);
	ok = ev_frame(&e, f, advert(&e, p, f)) && result_state(&e) == RESOLVED &&
	     result_mac(&e) == bench_mac_value(p->mac) && e.count[C_LEARNED] == 1 && !e.nout;
	bench_result(b, name, ok, "the advertisement resolves it: %s, state %u", e.error,
		     result_state(&e));

	sent = e.count[C_SOLICIT_SENT];
	ok = ev_time(&e, e.lifetime - 1) && ev_lookup(&e, p->ip) && result_state(&e) == RESOLVED &&
	     e.count[C_SOLICIT_SENT] == sent;
	bench_result(b, name, ok, "a cached peer answers at once: %s", e.error);
	ok = ev_time(&e, 1) && e.count[C_EXPIRED] == 1 && ev_lookup(&e, p->ip) &&
	     result_state(&e) == PENDING && e.count[C_SOLICIT_SENT] == sent + 1 &&
	     solicited(&e, 0, p->ip);
	/* answered this time without the option: the frame's source MAC is the peer's */
	advert(&e, p, f);
	f[19] = 24;
	f[56] = f[57] = 0;
	{
		uint16_t c = nd_icmp6_csum(f + 22, f + 38, f + 54, 24);

		f[56] = (uint8_t)(c >> 8);
		f[57] = (uint8_t)c;
	}
	ok = ok && ev_frame(&e, f, 78) && result_state(&e) == RESOLVED &&
	     result_mac(&e) == bench_mac_value(p->mac);
	bench_result(b, name, ok, "an old entry is asked again: %s", e.error);

	sent = e.count[C_SOLICIT_SENT];
	ok = vport_get(e.deadline) == UINT64_MAX && ev_lookup(&e, nobody) &&
	     result_state(&e) == PENDING && solicited(&e, 0, nobody);
	for (unsigned int i = 0; ok && i < e.tries; i++) {
		uint64_t before = e.count[C_SOLICIT_SENT] + e.count[C_FAILED];

		ok = vport_get(e.deadline) == e.now + e.interval && ev_time(&e, e.interval - 1) &&
		     e.count[C_SOLICIT_SENT] + e.count[C_FAILED] == before && ev_time(&e, 1) &&
		     e.count[C_SOLICIT_SENT] + e.count[C_FAILED] == before + 1 &&
		     (i + 1 == e.tries || solicited(&e, 0, nobody));
	}
	ok = ok && result_state(&e) == FAILED && e.count[C_SOLICIT_SENT] == sent + e.tries &&
	     e.count[C_FAILED] == 1 && vport_get(e.deadline) == UINT64_MAX;
	bench_result(b, name, ok, "nobody answers: %s, state %u, %llu solicitations", e.error,
		     result_state(&e), (unsigned long long)(e.count[C_SOLICIT_SENT] - sent));

	/* a solicitation for our global address: answered as the reference says, and learned */
	p = &e.peers[1];
	nd_build_solicit(p->mac, p->ip, e.conf, f);
	ok = nd_answer(f, ND_FRAME_LEN, e.mac, (const uint8_t(*)[16])e.conf, 1, want) ==
		     ND_ANSWERED &&
	     ev_frame(&e, f, ND_FRAME_LEN) && e.count[C_ANSWERED] == 1 && e.nout == 1 &&
	     !memcmp(e.got[0], want, ND_FRAME_LEN);
	sent = e.count[C_SOLICIT_SENT];
	ok = ok && ev_lookup(&e, p->ip) && result_state(&e) == RESOLVED &&
	     result_mac(&e) == bench_mac_value(p->mac) && e.count[C_SOLICIT_SENT] == sent;
	bench_result(b, name, ok, "a solicitation for us is answered and learned: %s", e.error);

	p = &e.peers[2];
	ok = ev_frame(&e, f, advert(&e, p, f)) && e.count[C_UNSOLICITED] == 1;
	advert(&e, p, f);
	f[5] ^= 1; /* to another MAC */
	ok = ok && ev_frame(&e, f, ND_FRAME_LEN) && e.count[C_NOT_OURS] == 1;
	advert(&e, p, f);
	f[60] ^= 1; /* the checksum no longer holds */
	ok = ok && ev_frame(&e, f, ND_FRAME_LEN) && e.count[C_MALFORMED] == 1;
	ok = ok && ev_lookup(&e, p->ip) && result_state(&e) == PENDING;
	bench_result(b, name, ok, "unsolicited, foreign and broken advertisements: %s", e.error);
	env_close(&e);
}

/*
 * Every entry PENDING, asked at different times, and the time moved only ever to the
 * deadline the block reports: each jump must find exactly one entry due.
 */
static void test_deadline(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	uint32_t interval = (uint32_t)bench_range(b, 2 * ENTRIES, 100000);
	unsigned int tries = (unsigned int)bench_range(b, 1, 4), jumps = 0, max = ENTRIES * tries;
	struct nn_env e;
	bool ok = true;

	env_open(&e, b, ops, UINT64_C(1) << 40, interval, tries, 10, 10);
	for (int i = 0; ok && i < ENTRIES; i++)
		ok = ev_lookup(&e, e.peers[i].ip) &&
		     ev_time(&e, bench_range(b, 1, interval / ENTRIES - 1));
	while (ok && vport_get(e.deadline) != UINT64_MAX && jumps <= max) {
		uint64_t before = e.count[C_SOLICIT_SENT] + e.count[C_FAILED];

		ok = vport_get(e.deadline) > e.now && ev_time(&e, vport_get(e.deadline) - e.now) &&
		     e.count[C_SOLICIT_SENT] + e.count[C_FAILED] == before + 1;
		jumps++;
	}
	bench_result(b, name, ok && jumps == max && e.count[C_FAILED] == ENTRIES,
		     "%s; %u jumps to the deadline, want %u; %llu failed, want %d", e.error, jumps,
		     max, (unsigned long long)e.count[C_FAILED], ENTRIES);
	env_close(&e);
}

/*
 * Random lookups of more peers than the cache holds; peers that answer (those of even
 * index) advertise back to every solicitation for them, the others never do. Each answer
 * must be the peer's MAC, or FAILED for a silent one; every frame out a good solicitation
 * for one of the peers, counted.
 */
static void test_random(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	unsigned int events = b->quick ? 300 : 3000, frames_out = 0, nqueue;
	static uint8_t queue[MAX_OUT][ND_FRAME_LEN];
	struct nn_env e;
	uint8_t f[128];
	bool ok = true;

	env_open(&e, b, ops, (uint64_t)bench_range(b, 2000, 60000),
		 (uint32_t)bench_range(b, 2 * ENTRIES, 400), (unsigned int)bench_range(b, 1, 4), 20,
		 20);
	for (unsigned int n = 0; ok && n < events; n++) {
		unsigned int what = (unsigned int)bench_range(b, 0, 9);
		int k = (int)bench_range(b, 0, NPEERS - 1);

		if (what < 5) {
			ok = ev_lookup(&e, e.peers[k].ip);
		} else if (what < 7) {
			/* a peer's own solicitation for our address: answered, and learned */
			nd_build_solicit(e.peers[k].mac, e.peers[k].ip,
					 bench_chance(b, 50) ? e.ll : e.conf, f);
			ok = ev_frame(&e, f, ND_FRAME_LEN) && e.nout == 1;
			if (!ok)
				fail(&e, "a solicitation for us: %u frames back", e.nout);
			continue;
		} else {
			ok = ev_time(&e, bench_range(b, 1, 3 * e.interval));
		}
		/* the frames out: solicitations, answered by the peers that answer */
		memcpy(queue, e.got, (size_t)e.nout * ND_FRAME_LEN);
		nqueue = e.nout;
		while (ok && nqueue) {
			int who = -1;

			nqueue--;
			memcpy(e.got[0], queue[nqueue], ND_FRAME_LEN);
			e.nout = 1;
			for (int j = 0; j < NPEERS && who < 0; j++)
				if (solicited(&e, 0, e.peers[j].ip))
					who = j;
			if (who < 0) {
				fail(&e, "a frame out is no solicitation for a peer");
				ok = false;
				break;
			}
			frames_out++;
			if (who & 1)
				continue;
			axis_source_push(&e.in, f, advert(&e, &e.peers[who], f), -1);
			ok = settle(&e, "advertisement");
			for (unsigned int i = 0; ok && i < e.nout && nqueue < MAX_OUT; i++)
				memcpy(queue[nqueue++], e.got[i], ND_FRAME_LEN);
		}
		if (ok && what < 5) {
			unsigned int s = result_state(&e);

			if (s == RESOLVED && result_mac(&e) != bench_mac_value(e.peers[k].mac)) {
				fail(&e, "peer %d resolved to %012llx", k,
				     (unsigned long long)result_mac(&e));
				ok = false;
			}
			if ((s == FAILED && !(k & 1)) || s == NONE) {
				fail(&e, "peer %d: state %u", k, s);
				ok = false;
			}
		}
	}
	ok = ok && e.count[C_SOLICIT_SENT] == frames_out && e.count[C_OVERFLOW] == 0;
	if (!e.error[0] && !ok)
		fail(&e, "%llu solicitations counted, %u seen",
		     (unsigned long long)e.count[C_SOLICIT_SENT], frames_out);
	bench_result(b, name, ok, "%s", e.error);
	bench_log(b,
		  "%s: %llu solicitations, %llu learned, %llu answered, %llu failed, %llu expired",
		  name, (unsigned long long)e.count[C_SOLICIT_SENT],
		  (unsigned long long)e.count[C_LEARNED], (unsigned long long)e.count[C_ANSWERED],
		  (unsigned long long)e.count[C_FAILED], (unsigned long long)e.count[C_EXPIRED]);
	env_close(&e);
}

int main(int argc, char **argv)
{
	static const struct {
		const struct vmodel_ops *ops;
		const char *tag;
	} widths[] = { { &vmodel_Vnd_neigh_w64, "w64" }, { &vmodel_Vnd_neigh_w512, "w512" } };
	struct bench b;
	char name[64];

	bench_init(&b, "test_nd_neigh", argc, argv);
	for (size_t w = 0; w < 2; w++) {
		snprintf(name, sizeof(name), "nd_neigh_directed_%s", widths[w].tag);
		test_directed(&b, widths[w].ops, name);
		snprintf(name, sizeof(name), "nd_neigh_deadline_%s", widths[w].tag);
		test_deadline(&b, widths[w].ops, name);
		snprintf(name, sizeof(name), "nd_neigh_random_%s", widths[w].tag);
		test_random(&b, widths[w].ops, name);
	}
	return bench_finish(&b);
}
