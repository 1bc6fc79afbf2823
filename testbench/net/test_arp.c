// SPDX-License-Identifier: MIT
/*
 * Bench of arp (with arp_rx, arp_cache and arp_tx inside), at 64 and 512 bits.
 *
 * A C model of the block is the scoreboard: the cache entry by entry (the same choice of
 * where a new address goes), the host's lookup result, the counters, and the frames each
 * event must send, built with the C wire library (sim/wire/net_wire.c). The bench applies
 * one event at a time — a frame in, a lookup, a jump of the time input — lets the block
 * settle with the time held, and holds everything that came out to the model: frames
 * byte for byte, the result register, every counter, and the deadline it reports (the
 * earliest time a PENDING entry is due: exact once the block settled). Streams have idle
 * cycles and
 * back-pressure from the seed. Directed cases check the facts the model could share a
 * mistake with; a burst checks what is dropped when requests come faster than answered.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axis.h"
#include "bench.h"
#include "hroce_contract.h"
#include "net_oracle.h"
#include "net_wire.h"
#include "pcap.h"

extern const struct vmodel_ops vmodel_Varp_w64, vmodel_Varp_w512;

#define ENTRIES HROCE_ARP_CACHE_ENTRIES
#define NPEERS 24 /* more than the cache holds */
#define MAX_OUT 64
#define HANG_CYCLES 5000
/* quiet long enough for the scan to visit every entry, twice */
#define SETTLE_CYCLES (ENTRIES * 8 + 64)

enum { NONE = HROCE_ARP_STATE_NONE, PENDING, RESOLVED, FAILED };

/* The counters, in NET_COUNTER order from ARP_ANSWERED. */
enum {
	C_ANSWERED,
	C_LEARNED,
	C_IGNORED,
	C_MALFORMED,
	C_OVERFLOW,
	C_UNSOLICITED,
	C_REQUEST_SENT,
	C_FAILED,
	C_EXPIRED,
	NCOUNTERS
};
static const char *const stat_ports[NCOUNTERS] = {
	"stat_answered",    "stat_learned",	 "stat_ignored", "stat_malformed", "stat_overflow",
	"stat_unsolicited", "stat_request_sent", "stat_failed",	 "stat_expired",
};

struct arp_cfg {
	uint8_t mac[6];
	uint32_t ip;
	uint64_t lifetime;
	uint32_t interval;
	unsigned int tries;
};

struct entry {
	int state;
	uint32_t ip;
	uint8_t mac[6];
	uint64_t stamp;
	unsigned int tries;
};

/* What the block must be: its cache, its answer to the host, its counters. */
struct model {
	struct arp_cfg cfg;
	struct entry e[ENTRIES];
	unsigned int rr;
	int result_state;
	uint8_t result_mac[6];
	uint8_t result_seq;
	uint32_t result_ip;
	uint64_t count[NCOUNTERS];
	uint8_t out[MAX_OUT][NET_MIN_FRAME]; /* frames the last event must send */
	unsigned int nout;
};

struct peer {
	uint8_t mac[6];
	uint32_t ip;
};

struct arp_env {
	struct bench *b;
	struct dut dut;
	struct axis_source in;
	struct axis_sink out;
	const struct vmodel_port *stat[NCOUNTERS], *time_now, *lookup_ip, *lookup_valid, *result;
	const struct vmodel_port *deadline;
	uint64_t count[NCOUNTERS];
	uint64_t now;
	int lookup_pending; /* cycles the lookup pulse still has to wait: -1 none */
	uint32_t lookup_addr;
	struct model m;
	struct peer peers[NPEERS];
	struct pcap_file *pcap; /* every frame in and out, for tshark */
	size_t captured;
	char error[256];
};

static const uint8_t broadcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* --- the model --- */

static int match(const struct model *m, uint32_t ip)
{
	for (int i = 0; i < ENTRIES; i++)
		if (m->e[i].state != NONE && m->e[i].ip == ip)
			return i;
	return -1;
}

/* Where a new address goes: a free entry, else a FAILED one, else the entries in turn. */
static int victim(struct model *m)
{
	for (int i = 0; i < ENTRIES; i++)
		if (m->e[i].state == NONE)
			return i;
	for (int i = 0; i < ENTRIES; i++)
		if (m->e[i].state == FAILED)
			return i;
	return (int)(m->rr++ % ENTRIES);
}

static void model_send(struct model *m, bool reply, const uint8_t mac[6], uint32_t ip)
{
	struct arp_pkt a = { .op = reply ? NET_ARP_REPLY : NET_ARP_REQUEST, .tpa = ip };

	memcpy(a.eth_dst, reply ? mac : broadcast, 6);
	memcpy(a.eth_src, m->cfg.mac, 6);
	memcpy(a.sha, m->cfg.mac, 6);
	a.spa = m->cfg.ip;
	if (reply)
		memcpy(a.tha, mac, 6);
	if (m->nout < MAX_OUT)
		arp_build(&a, m->out[m->nout++]);
}

static void model_resolve(struct model *m, uint32_t ip, const uint8_t mac[6])
{
	if (m->result_state == PENDING && m->result_ip == ip) {
		m->result_state = RESOLVED;
		memcpy(m->result_mac, mac, 6);
	}
}

static void model_frame(struct model *m, const uint8_t *f, size_t len, uint64_t now)
{
	struct arp_pkt a;
	int i;

	if (!arp_parse(f, len, &a)) {
		m->count[C_MALFORMED]++;
		return;
	}
	if ((memcmp(a.eth_dst, m->cfg.mac, 6) && memcmp(a.eth_dst, broadcast, 6)) || !m->cfg.ip ||
	    a.tpa != m->cfg.ip) {
		m->count[C_IGNORED]++;
		return;
	}
	i = match(m, a.spa);
	if (a.op == NET_ARP_REQUEST) {
		m->count[C_ANSWERED]++;
		if (a.spa) {
			if (i < 0)
				i = victim(m);
			m->e[i] = (struct entry){ RESOLVED, a.spa, { 0 }, now, 0 };
			memcpy(m->e[i].mac, a.sha, 6);
			model_resolve(m, a.spa, a.sha);
		}
		model_send(m, true, a.sha, a.spa);
	} else if (i >= 0) {
		m->count[C_LEARNED]++;
		m->e[i].state = RESOLVED;
		memcpy(m->e[i].mac, a.sha, 6);
		m->e[i].stamp = now;
		m->e[i].tries = 0;
		model_resolve(m, a.spa, a.sha);
	} else {
		m->count[C_UNSOLICITED]++;
	}
}

static void model_lookup(struct model *m, uint32_t ip, uint64_t now)
{
	int i;

	m->result_seq++;
	m->result_ip = ip;
	memset(m->result_mac, 0, 6);
	if (m->cfg.ip && ip == m->cfg.ip) {
		m->result_state = RESOLVED;
		memcpy(m->result_mac, m->cfg.mac, 6);
		return;
	}
	if (!ip) {
		m->result_state = FAILED;
		return;
	}
	m->result_state = PENDING;
	i = match(m, ip);
	if (i >= 0 && m->e[i].state == RESOLVED && now - m->e[i].stamp < m->cfg.lifetime) {
		m->result_state = RESOLVED;
		memcpy(m->result_mac, m->e[i].mac, 6);
		return;
	}
	if (i >= 0 && m->e[i].state == PENDING)
		return;
	if (i >= 0 && m->e[i].state == RESOLVED)
		m->count[C_EXPIRED]++;
	if (i < 0)
		i = victim(m);
	m->e[i].state = PENDING;
	m->e[i].ip = ip;
	m->e[i].stamp = now;
	m->e[i].tries = 1;
	m->count[C_REQUEST_SENT]++;
	model_send(m, false, NULL, ip);
}

/* What the scan does to every entry once the time has moved to now. */
static void model_scan(struct model *m, uint64_t now)
{
	unsigned int max = m->cfg.tries ? m->cfg.tries : 1;

	for (int i = 0; i < ENTRIES; i++) {
		struct entry *e = &m->e[i];
		uint64_t age = now - e->stamp;

		if (e->state == PENDING && age >= m->cfg.interval) {
			e->stamp = now;
			if (e->tries >= max) {
				e->state = FAILED;
				m->count[C_FAILED]++;
				if (m->result_state == PENDING && m->result_ip == e->ip)
					m->result_state = FAILED;
			} else {
				e->tries++;
				m->count[C_REQUEST_SENT]++;
				model_send(m, false, NULL, e->ip);
			}
		} else if ((e->state == RESOLVED || e->state == FAILED) && age >= m->cfg.lifetime) {
			if (e->state == RESOLVED)
				m->count[C_EXPIRED]++;
			e->state = NONE;
		}
	}
}

/*
 * When the block next needs the time to move: the earliest due time of a PENDING entry
 * (the sum wraps as the block's does: the bench starts the clock anywhere), or all ones.
 */
static uint64_t model_deadline(const struct model *m)
{
	uint64_t d = UINT64_MAX;

	for (int i = 0; i < ENTRIES; i++)
		if (m->e[i].state == PENDING && m->e[i].stamp + m->cfg.interval < d)
			d = m->e[i].stamp + m->cfg.interval;
	return d;
}

/* --- the bench --- */

/* The first difference a check finds, kept in e->error. */
#define fail(e, ...) bench_first_error((e)->error, sizeof((e)->error), __VA_ARGS__)

static void drive(void *ctx)
{
	struct arp_env *e = ctx;

	vport_set(e->time_now, e->now);
	vport_set(e->lookup_valid, 0);
	if (e->lookup_pending > 0) {
		e->lookup_pending--;
	} else if (e->lookup_pending == 0) {
		vport_set(e->lookup_ip, e->lookup_addr);
		vport_set(e->lookup_valid, 1);
		e->lookup_pending = -1;
		e->dut.pending--;
		e->dut.transfers++;
	}
}

static void sample(void *ctx)
{
	struct arp_env *e = ctx;

	for (int c = 0; c < NCOUNTERS; c++)
		e->count[c] += vport_get(e->stat[c]);
}

static void env_open(struct arp_env *e, struct bench *b, const struct vmodel_ops *ops,
		     const struct arp_cfg *cfg, unsigned int idle_pct, unsigned int busy_pct)
{
	memset(e, 0, sizeof(*e));
	e->b = b;
	e->lookup_pending = -1;
	e->m.cfg = *cfg;
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
	vport_set(dut_port(&e->dut, "cfg_mac"), bench_mac_value(cfg->mac));
	vport_set(dut_port(&e->dut, "cfg_ipv4"), cfg->ip);
	vport_set(dut_port(&e->dut, "cfg_lifetime"), cfg->lifetime);
	vport_set(dut_port(&e->dut, "cfg_retry_interval"), cfg->interval);
	vport_set(dut_port(&e->dut, "cfg_retry_tries"), cfg->tries);
	/* any start: the block only ever subtracts times */
	e->now = bench_rand(b);
	dut_add_agent(&e->dut, drive, sample, e);
	dut_reset(&e->dut, 4);
	for (int i = 0; i < NPEERS; i++) {
		bench_random_mac(b, e->peers[i].mac);
		e->peers[i].ip = 0x0a000100 + (uint32_t)i;
	}
}

static void env_close(struct arp_env *e)
{
	axis_source_free(&e->in);
	axis_sink_free(&e->out);
	dut_close(&e->dut);
}

/* Well-formed frames of the Ethernet minimum go into the capture tshark reads. */
static void capture(struct arp_env *e, const void *f, size_t len)
{
	struct arp_pkt a;

	if (e->pcap && len == NET_MIN_FRAME && arp_parse(f, len, &a) &&
	    !pcap_write(e->pcap, e->captured * 1000, f, len))
		e->captured++;
}

static uint64_t field(uint64_t v, unsigned int lsb, unsigned int width)
{
	return v >> lsb & ((UINT64_C(1) << width) - 1);
}
#define RESULT(r, f) field(r, HROCE_ARP_RESULT_##f##_LSB, HROCE_ARP_RESULT_##f##_WIDTH)

static int cmp_frame(const void *a, const void *b)
{
	return memcmp(a, b, NET_MIN_FRAME);
}

/*
 * Runs until the block is quiet with the time held, then holds the frames, counters and
 * result against the model; false (with e->error) on the first difference.
 */
static bool settle(struct arp_env *e, const char *what)
{
	uint8_t got[MAX_OUT][NET_MIN_FRAME];
	unsigned int ngot = 0;
	struct axis_frame f;
	uint64_t r;

	if (!dut_run(&e->dut, SETTLE_CYCLES, HANG_CYCLES)) {
		fail(e, "%s: hang", what);
		return false;
	}
	while (axis_sink_pop(&e->out, &f)) {
		if (f.len != NET_MIN_FRAME)
			fail(e, "%s: a frame of %zu bytes", what, f.len);
		else if (ngot < MAX_OUT)
			memcpy(got[ngot++], f.data, NET_MIN_FRAME);
		capture(e, f.data, f.len);
		free(f.data);
	}
	if (e->error[0])
		return false;
	/* the scan sends its requests in the order it meets the entries */
	qsort(got, ngot, NET_MIN_FRAME, cmp_frame);
	qsort(e->m.out, e->m.nout, NET_MIN_FRAME, cmp_frame);
	if (ngot != e->m.nout) {
		fail(e, "%s: %u frames sent, want %u", what, ngot, e->m.nout);
		return false;
	}
	for (unsigned int i = 0; i < ngot; i++) {
		if (memcmp(got[i], e->m.out[i], NET_MIN_FRAME)) {
			struct arp_pkt a, w;

			arp_parse(got[i], NET_MIN_FRAME, &a);
			arp_parse(e->m.out[i], NET_MIN_FRAME, &w);
			fail(e, "%s: frame %u differs: op %u tpa %08x, want op %u tpa %08x", what,
			     i, a.op, a.tpa, w.op, w.tpa);
			return false;
		}
	}
	e->m.nout = 0;
	for (int c = 0; c < NCOUNTERS; c++) {
		if (e->count[c] != e->m.count[c]) {
			fail(e, "%s: counter %s is %llu, want %llu", what,
			     hroce_net_counter_name(HROCE_NET_COUNTER_ARP_ANSWERED +
						    (unsigned int)c),
			     (unsigned long long)e->count[c], (unsigned long long)e->m.count[c]);
			return false;
		}
	}
	r = vport_get(e->result);
	if (RESULT(r, STATE) != (uint64_t)e->m.result_state || RESULT(r, SEQ) != e->m.result_seq ||
	    RESULT(r, MAC) != bench_mac_value(e->m.result_mac)) {
		fail(e, "%s: result %016llx, want state %d seq %u mac %012llx", what,
		     (unsigned long long)r, e->m.result_state, e->m.result_seq,
		     (unsigned long long)bench_mac_value(e->m.result_mac));
		return false;
	}
	if (vport_get(e->deadline) != model_deadline(&e->m)) {
		fail(e, "%s: deadline %016llx, want %016llx", what,
		     (unsigned long long)vport_get(e->deadline),
		     (unsigned long long)model_deadline(&e->m));
		return false;
	}
	if (e->out.protocol_errors) {
		fail(e, "AXI-Stream protocol: %.160s", e->out.first_error);
		return false;
	}
	return true;
}

static bool ev_frame(struct arp_env *e, const uint8_t *f, size_t len)
{
	model_frame(&e->m, f, len, e->now);
	capture(e, f, len);
	axis_source_push(&e->in, f, len, -1);
	return settle(e, "frame");
}

static bool ev_lookup(struct arp_env *e, uint32_t ip)
{
	model_lookup(&e->m, ip, e->now);
	e->lookup_addr = ip;
	e->lookup_pending = (int)bench_range(e->b, 0, 3);
	e->dut.pending++;
	return settle(e, "lookup");
}

static bool ev_time(struct arp_env *e, uint64_t delta)
{
	e->now += delta;
	model_scan(&e->m, e->now);
	return settle(e, "time jump");
}

static uint32_t result_state(struct arp_env *e)
{
	return (uint32_t)RESULT(vport_get(e->result), STATE);
}

static uint64_t result_mac(struct arp_env *e)
{
	return RESULT(vport_get(e->result), MAC);
}

/* An ARP frame from a peer (request for target, or reply to us). */
static size_t peer_frame(struct arp_env *e, const struct peer *p, uint16_t op, uint32_t target,
			 uint8_t *f)
{
	struct arp_pkt a = { .op = op, .spa = p->ip, .tpa = target };

	memcpy(a.eth_dst, op == NET_ARP_REQUEST ? broadcast : e->m.cfg.mac, 6);
	memcpy(a.eth_src, p->mac, 6);
	memcpy(a.sha, p->mac, 6);
	if (op == NET_ARP_REPLY)
		memcpy(a.tha, e->m.cfg.mac, 6);
	return arp_build(&a, f);
}

static void random_cfg(struct bench *b, struct arp_cfg *c)
{
	bench_random_mac(b, c->mac);
	c->ip = 0x0a000002;
	c->lifetime = bench_chance(b, 50) ? 1000 : bench_range(b, 1, 100000);
	c->interval = (uint32_t)(bench_chance(b, 50) ? 100 : bench_range(b, 1, 20000));
	c->tries = (unsigned int)(bench_chance(b, 50) ? 3 : bench_range(b, 0, 15));
}

/* A broken or foreign ARP frame, or an ordinary one. */
static size_t mangle(struct arp_env *e, uint8_t *f, size_t len)
{
	struct bench *b = e->b;

	switch (bench_range(b, 0, 9)) {
	case 0: /* truncated */
		return (size_t)bench_range(b, 0, NET_ARP_LEN - 1);
	case 1: /* wrong hardware type, protocol type, sizes or operation */
		f[14 + bench_range(b, 0, 7)] ^= (uint8_t)(1u << bench_range(b, 0, 7));
		return len;
	case 2: /* to another station */
		f[bench_range(b, 0, 5)] ^= 0x20;
		f[0] &= 0xfe;
		return len;
	case 3: /* shorter than the minimum, still whole */
		return NET_ARP_LEN;
	case 4: /* longer */
		memset(f + len, 0xa5, 20);
		return len + (size_t)bench_range(b, 1, 20);
	default:
		return len;
	}
}

static void test_random(struct bench *b, const struct vmodel_ops *ops, const char *name,
			const char *pcap_path)
{
	unsigned int events = b->quick ? 300 : 2500;
	struct arp_cfg cfg;
	struct arp_env e;
	uint8_t f[NET_MIN_FRAME + 32];

	random_cfg(b, &cfg);
	env_open(&e, b, ops, &cfg, 20, 20);
	bench_log(b, "%s: lifetime %llu, interval %u, tries %u", name,
		  (unsigned long long)cfg.lifetime, cfg.interval, cfg.tries);
	e.pcap = pcap_path ? pcap_open_write(pcap_path, true) : NULL;
	for (unsigned int n = 0; n < events && !e.error[0]; n++) {
		struct peer *p = &e.peers[bench_range(b, 0, NPEERS - 1)];
		unsigned int kind = (unsigned int)bench_range(b, 0, 99);
		size_t len;

		if (kind < 25) { /* a request for us */
			if (bench_chance(b, 5))
				bench_random_mac(b, p->mac); /* a peer with a new card */
			len = peer_frame(&e, p, NET_ARP_REQUEST, cfg.ip, f);
			if (bench_chance(b, 5))
				memset(f + 28, 0, 4); /* a probe from 0.0.0.0 */
			ev_frame(&e, f, mangle(&e, f, len));
		} else if (kind < 45) { /* a reply to us: asked for or not */
			int i;

			for (i = 0; i < ENTRIES && bench_chance(b, 70); i++)
				if (e.m.e[i].state == PENDING)
					break;
			if (i < ENTRIES && e.m.e[i].state == PENDING) {
				for (int k = 0; k < NPEERS; k++)
					if (e.peers[k].ip == e.m.e[i].ip)
						p = &e.peers[k];
			}
			len = peer_frame(&e, p, NET_ARP_REPLY, cfg.ip, f);
			ev_frame(&e, f, mangle(&e, f, len));
		} else if (kind < 52) { /* for someone else */
			len = peer_frame(&e, p,
					 bench_chance(b, 50) ? NET_ARP_REQUEST : NET_ARP_REPLY,
					 cfg.ip + (uint32_t)bench_range(b, 1, 9), f);
			ev_frame(&e, f, len);
		} else if (kind < 75) { /* a lookup */
			uint32_t ip = p->ip;

			if (bench_chance(b, 8))
				ip = cfg.ip;
			else if (bench_chance(b, 4))
				ip = 0;
			else if (bench_chance(b, 15))
				ip = 0xc0a80000 + (uint32_t)bench_range(b, 0, 3); /* nobody */
			ev_lookup(&e, ip);
		} else { /* time passes */
			uint64_t d;

			uint64_t dl = vport_get(e.deadline);

			switch (bench_range(b, 0, 5)) {
			case 5: /* to the deadline, as a simulation does: an entry is due */
				d = dl != UINT64_MAX && dl > e.now ? dl - e.now : 0;
				break;
			case 0:
				d = bench_range(b, 0, cfg.interval);
				break;
			case 1:
				d = cfg.interval + bench_range(b, 0, cfg.interval);
				break;
			case 2:
				d = cfg.lifetime - 1 + bench_range(b, 0, 2);
				break;
			case 3:
				d = UINT64_C(1) << bench_range(b, 20, 62);
				break;
			default:
				d = bench_range(b, 0, 2 * cfg.lifetime);
				break;
			}
			ev_time(&e, d);
		}
	}
	bench_result(b, name, !e.error[0], "%s", e.error);
	bench_log(
		b,
		"%s: %llu answered, %llu learned, %llu ignored, %llu malformed, %llu unsolicited, "
		"%llu requests, %llu failed, %llu expired",
		name, (unsigned long long)e.count[C_ANSWERED],
		(unsigned long long)e.count[C_LEARNED], (unsigned long long)e.count[C_IGNORED],
		(unsigned long long)e.count[C_MALFORMED],
		(unsigned long long)e.count[C_UNSOLICITED],
		(unsigned long long)e.count[C_REQUEST_SENT], (unsigned long long)e.count[C_FAILED],
		(unsigned long long)e.count[C_EXPIRED]);
	if (e.pcap) {
		char tname[96];

		pcap_close(e.pcap);
		snprintf(tname, sizeof(tname), "%s_tshark", name);
		net_oracle_tshark(b, tname, pcap_path, e.captured);
	}
	env_close(&e);
}

/* The facts, one by one. */
static void test_directed(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	struct arp_cfg cfg = { .ip = 0x0a000002, .lifetime = 10000, .interval = 500, .tries = 3 };
	const uint32_t nobody = 0x0a0000fe;
	struct arp_env e;
	uint8_t f[NET_MIN_FRAME];
	struct peer *p;
	uint64_t sent;
	bool ok;

	random_cfg(b, &cfg);
	cfg.lifetime = 10000;
	cfg.interval = 500;
	cfg.tries = 3;
	env_open(&e, b, ops, &cfg, 10, 10);
	p = &e.peers[0];

	ok = ev_lookup(&e, cfg.ip) && result_state(&e) == RESOLVED &&
	     result_mac(&e) == bench_mac_value(cfg.mac);
	bench_result(b, name, ok, "own address: %s, state %u", e.error, result_state(&e));
	ok = ev_lookup(&e, 0) && result_state(&e) == FAILED && e.count[C_REQUEST_SENT] == 0;
	bench_result(b, name, ok, "0.0.0.0: %s, state %u", e.error, result_state(&e));

	ok = ev_lookup(&e, p->ip) && result_state(&e) == PENDING && e.count[C_REQUEST_SENT] == 1;
	ok = ok && ev_frame(&e, f, peer_frame(&e, p, NET_ARP_REPLY, cfg.ip, f)) &&
	     result_state(&e) == RESOLVED && result_mac(&e) == bench_mac_value(p->mac) &&
	     e.count[C_LEARNED] == 1;
	bench_result(b, name, ok, "resolve a peer: %s, state %u", e.error, result_state(&e));

	sent = e.count[C_REQUEST_SENT];
	ok = ev_time(&e, cfg.lifetime - 1) && ev_lookup(&e, p->ip) &&
	     result_state(&e) == RESOLVED && e.count[C_REQUEST_SENT] == sent;
	bench_result(b, name, ok, "a cached peer answers at once: %s", e.error);
	ok = ev_time(&e, 1) && e.count[C_EXPIRED] == 1 && ev_lookup(&e, p->ip) &&
	     result_state(&e) == PENDING && e.count[C_REQUEST_SENT] == sent + 1;
	ok = ok && ev_frame(&e, f, peer_frame(&e, p, NET_ARP_REPLY, cfg.ip, f)) &&
	     result_state(&e) == RESOLVED;
	bench_result(b, name, ok, "an old entry is asked again: %s", e.error);

	sent = e.count[C_REQUEST_SENT];
	ok = vport_get(e.deadline) == UINT64_MAX && ev_lookup(&e, nobody) &&
	     result_state(&e) == PENDING;
	/* each retry is due at the deadline the block reports, not a cycle earlier */
	for (unsigned int i = 0; ok && i < cfg.tries; i++) {
		uint64_t before = e.count[C_REQUEST_SENT] + e.count[C_FAILED];

		ok = vport_get(e.deadline) == e.now + cfg.interval &&
		     ev_time(&e, cfg.interval - 1) &&
		     e.count[C_REQUEST_SENT] + e.count[C_FAILED] == before && ev_time(&e, 1) &&
		     e.count[C_REQUEST_SENT] + e.count[C_FAILED] == before + 1;
	}
	ok = ok && result_state(&e) == FAILED && e.count[C_REQUEST_SENT] == sent + cfg.tries &&
	     e.count[C_FAILED] == 1 && vport_get(e.deadline) == UINT64_MAX;
	bench_result(b, name, ok, "nobody answers: %s, state %u, %llu requests", e.error,
		     result_state(&e), (unsigned long long)(e.count[C_REQUEST_SENT] - sent));

	ok = ev_frame(&e, f, peer_frame(&e, &e.peers[1], NET_ARP_REQUEST, cfg.ip, f)) &&
	     e.count[C_ANSWERED] == 1 && ev_lookup(&e, e.peers[1].ip) &&
	     result_state(&e) == RESOLVED && result_mac(&e) == bench_mac_value(e.peers[1].mac);
	bench_result(b, name, ok, "a request for us is answered and learned: %s", e.error);

	ok = ev_frame(&e, f, peer_frame(&e, &e.peers[2], NET_ARP_REPLY, cfg.ip, f)) &&
	     e.count[C_UNSOLICITED] == 1;
	ok = ok && ev_frame(&e, f, peer_frame(&e, &e.peers[2], NET_ARP_REQUEST, cfg.ip + 1, f)) &&
	     e.count[C_IGNORED] == 1;
	f[15] = 6; /* hardware type 6: IEEE 802 */
	ok = ok && ev_frame(&e, f, NET_MIN_FRAME) && ev_frame(&e, f, NET_ARP_LEN - 1) &&
	     e.count[C_MALFORMED] == 2;
	bench_result(b, name, ok, "unsolicited, foreign and malformed ARP: %s", e.error);
	env_close(&e);
}

/*
 * Every entry PENDING, asked at different times, and the time moved only ever to the
 * deadline the block reports, as a simulation that skips idle cycles moves it: each jump
 * must find exactly one entry due (a request sent, or the lookup failed), until none
 * waits and the deadline is all ones.
 */
static void test_deadline(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	struct arp_cfg cfg;
	struct arp_env e;
	unsigned int jumps = 0, max;
	bool ok = true;

	random_cfg(b, &cfg);
	cfg.lifetime = UINT64_C(1) << 40;
	cfg.interval = (uint32_t)bench_range(b, 2 * ENTRIES, 100000);
	cfg.tries = (unsigned int)bench_range(b, 1, 4);
	max = ENTRIES * cfg.tries;
	env_open(&e, b, ops, &cfg, 10, 10);
	for (int i = 0; ok && i < ENTRIES; i++)
		ok = ev_lookup(&e, 0xc0a80000 + (uint32_t)i) &&
		     ev_time(&e, bench_range(b, 1, cfg.interval / ENTRIES - 1));
	while (ok && vport_get(e.deadline) != UINT64_MAX && jumps <= max) {
		uint64_t before = e.count[C_REQUEST_SENT] + e.count[C_FAILED];

		ok = vport_get(e.deadline) > e.now && ev_time(&e, vport_get(e.deadline) - e.now) &&
		     e.count[C_REQUEST_SENT] + e.count[C_FAILED] == before + 1;
		jumps++;
	}
	bench_result(b, name, ok && jumps == max && e.count[C_FAILED] == ENTRIES,
		     "%s; %u jumps to the deadline, want %u; %llu failed, want %d", e.error, jumps,
		     max, (unsigned long long)e.count[C_FAILED], ENTRIES);
	env_close(&e);
}

/*
 * Requests for us back to back while the replies are held back: those the block has no
 * room for are counted, the others answered in order; a lookup then finds exactly the
 * senders answered in the cache.
 */
static void test_burst(struct bench *b, const struct vmodel_ops *ops, const char *name)
{
	struct arp_cfg cfg;
	struct arp_env e;
	uint8_t f[NET_MIN_FRAME];
	bool answered[ENTRIES] = { false };
	struct axis_frame o;
	unsigned int next = 0, replies = 0;
	bool ok = true;

	random_cfg(b, &cfg);
	cfg.lifetime = UINT64_C(1) << 40;
	cfg.interval = 1u << 30;
	env_open(&e, b, ops, &cfg, 0, 85);
	for (int i = 0; i < ENTRIES; i++)
		axis_source_push(&e.in, f, peer_frame(&e, &e.peers[i], NET_ARP_REQUEST, cfg.ip, f),
				 -1);
	ok = dut_run(&e.dut, SETTLE_CYCLES, HANG_CYCLES);
	while (ok && axis_sink_pop(&e.out, &o)) {
		struct arp_pkt a;

		/* in order: the reply to the next request answered */
		while (next < ENTRIES &&
		       (!arp_parse(o.data, o.len, &a) || a.op != NET_ARP_REPLY ||
			a.tpa != e.peers[next].ip || memcmp(a.tha, e.peers[next].mac, 6)))
			next++;
		if (next < ENTRIES)
			answered[next++] = true;
		else
			ok = false;
		replies++;
		free(o.data);
	}
	ok = ok && replies == e.count[C_ANSWERED] &&
	     e.count[C_ANSWERED] + e.count[C_OVERFLOW] == ENTRIES && e.count[C_OVERFLOW] > 0;
	bench_result(b, name, ok, "%u replies in order, %llu answered, %llu dropped of %d", replies,
		     (unsigned long long)e.count[C_ANSWERED],
		     (unsigned long long)e.count[C_OVERFLOW], ENTRIES);
	for (int i = 0; ok && i < ENTRIES; i++) {
		uint64_t sent = e.count[C_REQUEST_SENT];

		e.lookup_addr = e.peers[i].ip;
		e.lookup_pending = 0;
		e.dut.pending++;
		ok = dut_run(&e.dut, SETTLE_CYCLES, HANG_CYCLES);
		while (axis_sink_pop(&e.out, &o))
			free(o.data);
		if (answered[i])
			ok = ok && result_state(&e) == RESOLVED &&
			     result_mac(&e) == bench_mac_value(e.peers[i].mac) &&
			     e.count[C_REQUEST_SENT] == sent;
		else
			ok = ok && result_state(&e) == PENDING &&
			     e.count[C_REQUEST_SENT] == sent + 1;
		if (!ok)
			bench_result(b, name, false, "peer %d (%s): result state %u", i,
				     answered[i] ? "answered" : "dropped", result_state(&e));
	}
	if (ok)
		bench_result(b, name, true, "the cache holds the senders answered");
	env_close(&e);
}

int main(int argc, char **argv)
{
	static const struct {
		const struct vmodel_ops *ops;
		const char *tag;
	} widths[] = { { &vmodel_Varp_w64, "w64" }, { &vmodel_Varp_w512, "w512" } };
	struct bench b;
	char name[64], path[128];

	bench_init(&b, "test_arp", argc, argv);
	for (size_t w = 0; w < 2; w++) {
		snprintf(name, sizeof(name), "arp_directed_%s", widths[w].tag);
		test_directed(&b, widths[w].ops, name);
		snprintf(name, sizeof(name), "arp_random_%s", widths[w].tag);
		snprintf(path, sizeof(path), "build/arp-%s.pcap", widths[w].tag);
		test_random(&b, widths[w].ops, name, path);
		snprintf(name, sizeof(name), "arp_burst_%s", widths[w].tag);
		test_burst(&b, widths[w].ops, name);
		snprintf(name, sizeof(name), "arp_deadline_%s", widths[w].tag);
		test_deadline(&b, widths[w].ops, name);
	}
	return bench_finish(&b);
}
