// SPDX-License-Identifier: MIT
/*
 * ARP, ICMP echo and IPv6 neighbour discovery between two simulated NICs on one link,
 * driven through libhroce.
 *
 * Each NIC resolves the other's MAC with hroce_resolve_mac() (the second without a
 * request of its own: it learned the first from the request it answered), its own, an
 * address nobody has (EHOSTUNREACH after the configured requests), a cached address again
 * (no request), and an address whose entry outlived its lifetime (a request again). Echo
 * requests injected on the link are answered byte for byte as the C reference says; bad
 * ones, and frames nobody serves, are counted and dropped. An RC QP pair connected with no
 * MAC given (the driver resolves it at RTR) moves data while pings cross the link.
 *
 * The same for IPv6 with hroce_resolve_mac6(): a peer's link-local and configured global
 * addresses are resolved by solicitations and advertisements, the second NIC learns the
 * first from its solicitation, an unanswered address fails with EHOSTUNREACH (the NICs'
 * clocks jump to the retries: seconds of wall time at most), an expired entry is asked
 * again. A host's solicitation to the NIC's solicited-node group is answered as the C
 * reference says and its sender learned; frames to other multicast groups are counted and
 * dropped; ping -6 of both addresses is answered as the reference says. Last, every ARP, ICMP and
 * ICMPv6 frame of the run goes through tshark, and on each NIC every non-RoCE frame the RX path
 * handed on is counted once by the network blocks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hroce_contract.h"
#include "net_oracle.h"
#include "nd_wire.h"
#include "net_wire.h"
#include "pcap.h"
#include "rc_env.h"

#define PCAP_PATH "build/test-net.pcap"
#define NOBODY 0x0a000063 /* 10.0.0.99 */
/* ARP timing for the test: requests 4 us apart, three of them, entries live 100 us */
#define INTERVAL_CYCLES 1000
#define TRIES 3
#define LIFETIME_CYCLES 25000
#define POLL_NS 2000000
#define MAX_SEEN 64

/* A host that is not a NIC of the simulation: the test speaks for it on the wire. */
static const uint8_t host_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x50 };
static const uint32_t host_ip = 0x0a000050;

struct seen {
	const struct hroce_sim *from;
	uint8_t *data;
	size_t len;
};

struct net_test {
	struct bench *b;
	char last_log[512]; /* libhroce's last message */
	struct env e;
	struct seen seen[MAX_SEEN]; /* ARP and ICMP frames the NICs sent, oldest first */
	size_t nseen;
	struct pcap_file *pcap; /* the ARP and ICMP frames of the run, for tshark */
	size_t captured;
};

static void log_to(void *ctx, enum hroce_log_level level, const char *msg)
{
	struct net_test *t = ctx;

	snprintf(t->last_log, sizeof(t->last_log), "%s", msg);
	if (level <= HROCE_LOG_WARN)
		fprintf(stderr, "# libhroce: %s\n", msg);
}

static bool is_net_frame(const uint8_t *f, size_t len)
{
	unsigned int type = len >= 14 ? (unsigned int)f[12] << 8 | f[13] : 0;

	return type == NET_ETH_TYPE_ARP ||
	       (type == NET_ETH_TYPE_IPV4 && len >= 34 && f[23] == NET_IP_PROTO_ICMP) ||
	       (type == ND_ETH_TYPE_IPV6 && len >= 54 && f[20] == ND_IP_PROTO_ICMPV6);
}

static void capture(struct net_test *t, const void *f, size_t len)
{
	if (t->pcap && !pcap_write(t->pcap, hroce_sim_world_ns(t->e.w), f, len))
		t->captured++;
}

static void tap(void *ctx, const struct hroce_sim *from, const void *frame, size_t len)
{
	struct net_test *t = ctx;

	if (!is_net_frame(frame, len))
		return;
	capture(t, frame, len);
	if (t->nseen == MAX_SEEN)
		return;
	t->seen[t->nseen].from = from;
	t->seen[t->nseen].len = len;
	t->seen[t->nseen].data = malloc(len);
	if (t->seen[t->nseen].data)
		memcpy(t->seen[t->nseen++].data, frame, len);
}

static void forget_seen(struct net_test *t)
{
	for (size_t i = 0; i < t->nseen; i++)
		free(t->seen[i].data);
	t->nseen = 0;
}

/* A frame on the wire toward a NIC; a good one also into the capture for tshark. */
static void inject(struct net_test *t, int to, const uint8_t *f, size_t len, bool good)
{
	int err = hroce_sim_link_inject(t->e.link, t->e.n[to].sim, f, len);

	if (err) {
		fprintf(stderr, "not ok environment: inject: %s\n", strerror(err));
		exit(1);
	}
	if (good)
		capture(t, f, len);
}

/* Lets the world run for ns of simulated time. */
static void run_ns(struct net_test *t, uint64_t ns)
{
	uint64_t end = env_ns(&t->e) + ns;

	while (env_ns(&t->e) < end)
		env_idle(&t->e);
}

static uint64_t net(struct net_test *t, int node, unsigned int counter)
{
	return hroce_net_counter(t->e.n[node].dev, counter);
}

static void mac_text(const uint8_t m[6], char *s)
{
	snprintf(s, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* ===================================================================================== */

static void test_resolve(struct net_test *t)
{
	struct bench *b = t->b;
	struct node *a = &t->e.n[0], *c = &t->e.n[1];
	uint8_t mac[6] = { 0 };
	char got[18], want[18];
	uint64_t sent_a = net(t, 0, HROCE_NET_COUNTER_ARP_REQUEST_SENT);
	int err;

	err = hroce_resolve_mac(a->dev, c->ipv4, mac);
	mac_text(mac, got);
	mac_text(c->mac, want);
	bench_result(b, "resolve_peer",
		     !err && !memcmp(mac, c->mac, 6) &&
			     net(t, 0, HROCE_NET_COUNTER_ARP_REQUEST_SENT) == sent_a + 1 &&
			     net(t, 1, HROCE_NET_COUNTER_ARP_ANSWERED) == 1 &&
			     net(t, 0, HROCE_NET_COUNTER_ARP_LEARNED) == 1,
		     "%s: %s, want %s", strerror(err), got, want);

	/* the peer learned us from our request: it asks nobody */
	memset(mac, 0, 6);
	err = hroce_resolve_mac(c->dev, a->ipv4, mac);
	mac_text(mac, got);
	mac_text(a->mac, want);
	bench_result(b, "resolve_learned",
		     !err && !memcmp(mac, a->mac, 6) &&
			     net(t, 1, HROCE_NET_COUNTER_ARP_REQUEST_SENT) == 0,
		     "%s: %s, want %s; %llu requests", strerror(err), got, want,
		     (unsigned long long)net(t, 1, HROCE_NET_COUNTER_ARP_REQUEST_SENT));

	memset(mac, 0, 6);
	err = hroce_resolve_mac(a->dev, a->ipv4, mac);
	bench_result(b, "resolve_self", !err && !memcmp(mac, a->mac, 6), "%s", strerror(err));

	sent_a = net(t, 0, HROCE_NET_COUNTER_ARP_REQUEST_SENT);
	err = hroce_resolve_mac(a->dev, c->ipv4, mac);
	bench_result(b, "resolve_cached",
		     !err && !memcmp(mac, c->mac, 6) &&
			     net(t, 0, HROCE_NET_COUNTER_ARP_REQUEST_SENT) == sent_a,
		     "%s; %llu new requests", strerror(err),
		     (unsigned long long)(net(t, 0, HROCE_NET_COUNTER_ARP_REQUEST_SENT) - sent_a));

	sent_a = net(t, 0, HROCE_NET_COUNTER_ARP_REQUEST_SENT);
	t->last_log[0] = 0;
	err = hroce_resolve_mac(a->dev, NOBODY, mac);
	bench_result(b, "resolve_nobody",
		     err == EHOSTUNREACH && strstr(t->last_log, "no ARP reply from 10.0.0.99") &&
			     net(t, 0, HROCE_NET_COUNTER_ARP_REQUEST_SENT) == sent_a + TRIES &&
			     net(t, 0, HROCE_NET_COUNTER_ARP_FAILED) == 1 &&
			     net(t, 1, HROCE_NET_COUNTER_ARP_IGNORED) == TRIES,
		     "%s, %llu requests, the peer ignored %llu", strerror(err),
		     (unsigned long long)(net(t, 0, HROCE_NET_COUNTER_ARP_REQUEST_SENT) - sent_a),
		     (unsigned long long)net(t, 1, HROCE_NET_COUNTER_ARP_IGNORED));

	/* past the lifetime the entry is gone: asked again */
	run_ns(t, (uint64_t)LIFETIME_CYCLES * 1000 / ENV_MHZ + 1000);
	sent_a = net(t, 0, HROCE_NET_COUNTER_ARP_REQUEST_SENT);
	err = hroce_resolve_mac(a->dev, c->ipv4, mac);
	bench_result(b, "resolve_expired",
		     !err && !memcmp(mac, c->mac, 6) &&
			     net(t, 0, HROCE_NET_COUNTER_ARP_REQUEST_SENT) == sent_a + 1 &&
			     net(t, 0, HROCE_NET_COUNTER_ARP_EXPIRED) >= 1,
		     "%s; %llu new requests, %llu expired", strerror(err),
		     (unsigned long long)(net(t, 0, HROCE_NET_COUNTER_ARP_REQUEST_SENT) - sent_a),
		     (unsigned long long)net(t, 0, HROCE_NET_COUNTER_ARP_EXPIRED));
}

/* ===================================================================================== */

static uint64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A configured IPv6 address of node i: 2001:db8::i+1 (REG_IPV6 slot 0). */
static void global_ip6(int i, uint8_t ip[16])
{
	static const uint8_t prefix[4] = { 0x20, 0x01, 0x0d, 0xb8 };

	memset(ip, 0, 16);
	memcpy(ip, prefix, 4);
	ip[15] = (uint8_t)(i + 1);
}

static void set_global_ip6(struct net_test *t, int i)
{
	uint64_t hi = 0, lo = 0;
	uint8_t ip[16];

	global_ip6(i, ip);
	for (int k = 0; k < 8; k++) {
		hi = hi << 8 | ip[k];
		lo = lo << 8 | ip[8 + k];
	}
	/* the lead's driver writes these from the configuration; the test writes BAR0 */
	hroce_sim_mmio_write64(t->e.n[i].sim, HROCE_REG_IPV6, hi);
	hroce_sim_mmio_write64(t->e.n[i].sim, HROCE_REG_IPV6 + 8, lo);
	hroce_sim_mmio_write64(t->e.n[i].sim, HROCE_REG_IPV6_VALID, 1);
}

#define ND_SENT(node) net(t, node, HROCE_NET_COUNTER_ND_SOLICIT_SENT)

static void test_resolve6(struct net_test *t)
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	static const uint8_t nobody[16] = { 0xfe, 0x80, [14] = 0x00, [15] = 0x99 };
	struct bench *b = t->b;
	struct node *a = &t->e.n[0], *c = &t->e.n[1];
	uint8_t a_ll[16], c_ll[16], c_global[16], mac[6] = { 0 };
	char got[18], want[18];
	uint64_t sent_a = ND_SENT(0), start;
	int err;

	nd_link_local(a->mac, a_ll);
	nd_link_local(c->mac, c_ll);
	err = hroce_resolve_mac6(a->dev, c_ll, mac);
	mac_text(mac, got);
	mac_text(c->mac, want);
	bench_result(b, "resolve6_peer",
		     !err && !memcmp(mac, c->mac, 6) && ND_SENT(0) == sent_a + 1 &&
			     net(t, 1, HROCE_NET_COUNTER_ND_ANSWERED) == 1 &&
			     net(t, 0, HROCE_NET_COUNTER_ND_LEARNED) == 1,
		     "%s: %s, want %s", strerror(err), got, want);

	/* the peer learned us from our solicitation's source link-layer option */
	memset(mac, 0, 6);
	err = hroce_resolve_mac6(c->dev, a_ll, mac);
	bench_result(b, "resolve6_learned", !err && !memcmp(mac, a->mac, 6) && ND_SENT(1) == 0,
		     "%s; %llu solicitations", strerror(err), (unsigned long long)ND_SENT(1));

	memset(mac, 0, 6);
	err = hroce_resolve_mac6(a->dev, a_ll, mac);
	bench_result(b, "resolve6_self", !err && !memcmp(mac, a->mac, 6), "%s", strerror(err));

	sent_a = ND_SENT(0);
	err = hroce_resolve_mac6(a->dev, c_ll, mac);
	bench_result(b, "resolve6_cached", !err && !memcmp(mac, c->mac, 6) && ND_SENT(0) == sent_a,
		     "%s; %llu new solicitations", strerror(err),
		     (unsigned long long)(ND_SENT(0) - sent_a));

	set_global_ip6(t, 1);
	global_ip6(1, c_global);
	memset(mac, 0, 6);
	sent_a = ND_SENT(0);
	err = hroce_resolve_mac6(a->dev, c_global, mac);
	bench_result(b, "resolve6_global",
		     !err && !memcmp(mac, c->mac, 6) && ND_SENT(0) == sent_a + 1 &&
			     net(t, 1, HROCE_NET_COUNTER_ND_ANSWERED) == 2,
		     "%s; %llu new solicitations", strerror(err),
		     (unsigned long long)(ND_SENT(0) - sent_a));

	sent_a = ND_SENT(0);
	t->last_log[0] = 0;
	start = wall_ms();
	err = hroce_resolve_mac6(a->dev, nobody, mac);
	bench_result(b, "resolve6_nobody",
		     err == EHOSTUNREACH &&
			     strstr(t->last_log, "no neighbour advertisement from fe80::99") &&
			     ND_SENT(0) == sent_a + TRIES &&
			     net(t, 0, HROCE_NET_COUNTER_ND_FAILED) == 1 &&
			     net(t, 1, HROCE_NET_COUNTER_ND_NOT_OURS) == TRIES,
		     "%s (%s), %llu solicitations, the peer found %llu not its own", strerror(err),
		     t->last_log, (unsigned long long)(ND_SENT(0) - sent_a),
		     (unsigned long long)net(t, 1, HROCE_NET_COUNTER_ND_NOT_OURS));
	bench_log(b, "resolve6_nobody: EHOSTUNREACH after %llu ms of wall time",
		  (unsigned long long)(wall_ms() - start));

	sent_a = ND_SENT(0);
	err = hroce_resolve_mac6(a->dev, all_nodes, mac);
	bench_result(b, "resolve6_multicast", err == EHOSTUNREACH && ND_SENT(0) == sent_a,
		     "%s; %llu solicitations", strerror(err),
		     (unsigned long long)(ND_SENT(0) - sent_a));

	/* past the lifetime the entry is gone: asked again */
	run_ns(t, (uint64_t)LIFETIME_CYCLES * 1000 / ENV_MHZ + 1000);
	sent_a = ND_SENT(0);
	err = hroce_resolve_mac6(a->dev, c_ll, mac);
	bench_result(b, "resolve6_expired",
		     !err && !memcmp(mac, c->mac, 6) && ND_SENT(0) == sent_a + 1 &&
			     net(t, 0, HROCE_NET_COUNTER_ND_EXPIRED) >= 1,
		     "%s; %llu new solicitations, %llu expired", strerror(err),
		     (unsigned long long)(ND_SENT(0) - sent_a),
		     (unsigned long long)net(t, 0, HROCE_NET_COUNTER_ND_EXPIRED));
}

/* Waits up to 100 us of simulated time for n frames from the NICs. */
static void wait_seen(struct net_test *t, size_t n)
{
	uint64_t end = env_ns(&t->e) + 100000;

	while (t->nseen < n && env_ns(&t->e) < end)
		env_idle(&t->e);
}

/*
 * A host's solicitation of the second NIC, to its solicited-node group: the advertisement
 * the reference gives, and the host learned. Then multicast that is not the NIC's.
 */
static void test_nd_frames(struct net_test *t)
{
	struct bench *b = t->b;
	const struct node *c = &t->e.n[1];
	uint8_t host_ll[16], c_ll[16], other[16], f[ND_FRAME_LEN], want[ND_FRAME_LEN], mac[6];
	uint64_t ignored, not_ours, rx_other;
	int err;

	nd_link_local(host_mac, host_ll);
	nd_link_local(c->mac, c_ll);
	nd_build_solicit(host_mac, host_ll, c_ll, f);
	forget_seen(t);
	if (nd_answer(f, ND_FRAME_LEN, c->mac, (const uint8_t(*)[16])c_ll, 1, want) !=
	    ND_ANSWERED) {
		bench_result(b, "nd_solicitation_answered", false, "the reference does not answer");
		return;
	}
	inject(t, 1, f, ND_FRAME_LEN, true);
	wait_seen(t, 1);
	bench_result(b, "nd_solicitation_answered",
		     t->nseen == 1 && t->seen[0].from == c->sim && t->seen[0].len == ND_FRAME_LEN &&
			     !memcmp(t->seen[0].data, want, ND_FRAME_LEN),
		     "%zu frames back, the first of %zu bytes", t->nseen,
		     t->nseen ? t->seen[0].len : 0);
	memset(mac, 0, 6);
	err = hroce_resolve_mac6(c->dev, host_ll, mac);
	bench_result(b, "nd_solicitation_learned",
		     !err && !memcmp(mac, host_mac, 6) && ND_SENT(1) == 0, "%s; %llu solicitations",
		     strerror(err), (unsigned long long)ND_SENT(1));

	/* a solicitation to another solicited-node group, for an address not the NIC's */
	forget_seen(t);
	memcpy(other, c_ll, 16);
	other[13] ^= 0x5a;
	not_ours = net(t, 1, HROCE_NET_COUNTER_ND_NOT_OURS);
	ignored = net(t, 1, HROCE_NET_COUNTER_ND_IGNORED);
	rx_other = net(t, 1, HROCE_NET_COUNTER_RX_OTHER);
	nd_build_solicit(host_mac, host_ll, other, f);
	inject(t, 1, f, ND_FRAME_LEN, true);
	/*
	 * a router solicitation (type 133) to all routers, ff02::2: reserved, then the source
	 * link-layer option; the solicitation's frame cut to that
	 */
	nd_build_solicit(host_mac, host_ll, c_ll, f);
	memcpy(f, "\x33\x33\x00\x00\x00\x02", 6);
	f[19] = 16;
	memset(f + 38, 0, 16);
	f[38] = 0xff;
	f[39] = 0x02;
	f[53] = 0x02;
	f[54] = 133;
	memcpy(f + 62, "\x01\x01", 2);
	memcpy(f + 64, host_mac, 6);
	f[56] = f[57] = 0;
	{
		uint16_t cs = nd_icmp6_csum(f + 22, f + 38, f + 54, 16);

		f[56] = (uint8_t)(cs >> 8);
		f[57] = (uint8_t)cs;
	}
	inject(t, 1, f, 70, true);
	/* mDNS: UDP to ff02::fb at 33:33:00:00:00:fb */
	memset(f, 0, sizeof(f));
	memcpy(f, "\x33\x33\x00\x00\x00\xfb", 6);
	memcpy(f + 6, host_mac, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	f[14] = 0x60;
	f[19] = 8;
	f[20] = 17;
	f[21] = 255;
	memcpy(f + 22, host_ll, 16);
	f[38] = 0xff;
	f[39] = 0x02;
	f[53] = 0xfb;
	f[54] = f[56] = 0x14;
	f[55] = f[57] = 0xe9;
	f[59] = 8;
	inject(t, 1, f, 62, false);
	run_ns(t, 20000);
	bench_result(b, "nd_multicast_dropped",
		     t->nseen == 0 && net(t, 1, HROCE_NET_COUNTER_ND_NOT_OURS) == not_ours + 1 &&
			     net(t, 1, HROCE_NET_COUNTER_ND_IGNORED) == ignored + 1 &&
			     net(t, 1, HROCE_NET_COUNTER_RX_OTHER) == rx_other + 1,
		     "%zu frames sent back; %llu not ours, %llu ignored, %llu others", t->nseen,
		     (unsigned long long)(net(t, 1, HROCE_NET_COUNTER_ND_NOT_OURS) - not_ours),
		     (unsigned long long)(net(t, 1, HROCE_NET_COUNTER_ND_IGNORED) - ignored),
		     (unsigned long long)(net(t, 1, HROCE_NET_COUNTER_RX_OTHER) - rx_other));
}

/* ===================================================================================== */

static size_t echo_request(int to_node, struct net_test *t, const uint8_t src_mac[6],
			   uint32_t src_ip, size_t data_len, uint16_t seq, uint8_t *f, size_t cap)
{
	struct node *n = &t->e.n[to_node];
	struct icmp_frame h = {
		.tos = 0,
		.ip_id = (uint16_t)(0x1000 + seq),
		.df = true,
		.ttl = 64,
		.ip_src = src_ip,
		.ip_dst = n->ipv4,
		.type = NET_ICMP_ECHO_REQUEST,
		.id = 0x4242,
		.seq = seq,
	};
	uint8_t data[HROCE_ICMP_MAX_FRAME];

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + seq);
	memcpy(h.eth_dst, n->mac, 6);
	memcpy(h.eth_src, src_mac, 6);
	return icmp_build(&h, data, data_len, f, cap);
}

/* Pings injected toward the second NIC: each answered as the reference says. */
static void test_ping(struct net_test *t)
{
	static const size_t lens[] = { 0, 1, 56, 57, 1000, HROCE_ICMP_MAX_FRAME - NET_ICMP_HDR };
	struct bench *b = t->b;
	const struct node *c = &t->e.n[1];
	uint8_t f[2048], want[2048];
	size_t want_len;
	uint64_t other;
	bool ok = true;

	for (size_t i = 0; ok && i < sizeof(lens) / sizeof(lens[0]); i++) {
		size_t len =
			echo_request(1, t, host_mac, host_ip, lens[i], (uint16_t)i, f, sizeof(f));
		uint64_t end;

		forget_seen(t);
		if (icmp_echo_answer(f, len, c->mac, c->ipv4, HROCE_ICMP_MAX_FRAME, want,
				     &want_len) != ICMP_ANSWERED) {
			ok = bench_result(b, "ping", false, "the reference does not answer");
			break;
		}
		inject(t, 1, f, len, true);
		end = env_ns(&t->e) + 100000;
		while (!t->nseen && env_ns(&t->e) < end)
			env_idle(&t->e);
		ok = t->nseen == 1 && t->seen[0].from == c->sim && t->seen[0].len == want_len &&
		     !memcmp(t->seen[0].data, want, want_len);
		if (!ok)
			bench_result(
				b, "ping", false,
				"%zu bytes of data: %zu frames back, the first of %zu bytes, want "
				"%zu",
				lens[i], t->nseen, t->nseen ? t->seen[0].len : 0, want_len);
	}
	if (ok)
		bench_result(b, "ping", net(t, 1, HROCE_NET_COUNTER_ICMP_ANSWERED) == 6,
			     "%llu echo requests answered",
			     (unsigned long long)net(t, 1, HROCE_NET_COUNTER_ICMP_ANSWERED));
	/* the replies went to the host's MAC: the first NIC saw them and let them be */
	bench_result(b, "ping_not_ours", net(t, 0, HROCE_NET_COUNTER_ICMP_NOT_OURS) == 6,
		     "%llu replies counted as not ours by the other NIC",
		     (unsigned long long)net(t, 0, HROCE_NET_COUNTER_ICMP_NOT_OURS));

	/* a bad checksum, another address, a fragment, and frames nobody serves */
	forget_seen(t);
	other = net(t, 1, HROCE_NET_COUNTER_RX_OTHER);
	{
		size_t len = echo_request(1, t, host_mac, host_ip, 100, 77, f, sizeof(f));

		f[60] ^= 1; /* the ICMP checksum no longer holds */
		inject(t, 1, f, len, false);
		len = echo_request(1, t, host_mac, host_ip, 100, 78, f, sizeof(f));
		f[33] ^= 1; /* another destination (the IP checksum is wrong too: malformed) */
		inject(t, 1, f, len, false);
		len = echo_request(1, t, host_mac, host_ip, 64, 79, f, sizeof(f));
		f[20] |= 0x20; /* more fragments */
		inject(t, 1, f, len, false);
		/* IPv6 TCP (an all-zero IPv6 header would be a hop-by-hop header, dropped) */
		memset(f, 0, 80);
		memcpy(f, c->mac, 6);
		memcpy(f + 6, host_mac, 6);
		f[12] = 0x86;
		f[13] = 0xdd;
		f[14] = 0x60;
		f[14 + 6] = 6;
		inject(t, 1, f, 80, false);
	}
	run_ns(t, 20000);
	bench_result(b, "ping_dropped",
		     t->nseen == 0 && net(t, 1, HROCE_NET_COUNTER_ICMP_MALFORMED) == 3 &&
			     net(t, 1, HROCE_NET_COUNTER_RX_OTHER) == other + 1,
		     "%zu frames sent back, %llu malformed, %llu others", t->nseen,
		     (unsigned long long)net(t, 1, HROCE_NET_COUNTER_ICMP_MALFORMED),
		     (unsigned long long)(net(t, 1, HROCE_NET_COUNTER_RX_OTHER) - other));
}

/*
 * ping -6 of the second NIC, its link-local and its configured address: every request
 * answered as the reference says; one to all nodes, one with a bad checksum, counted.
 */
static void test_ping6(struct net_test *t)
{
	static const size_t lens[] = { 0, 1, 56, 1000, HROCE_ICMP_MAX_FRAME - ND_ECHO_HDR };
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	struct bench *b = t->b;
	const struct node *c = &t->e.n[1];
	uint8_t addrs[2][16], host_ll[16], data[HROCE_ICMP_MAX_FRAME], f[2048], want[2048];
	uint64_t not_ours = net(t, 1, HROCE_NET_COUNTER_ICMP6_NOT_OURS);
	uint64_t malformed = net(t, 1, HROCE_NET_COUNTER_ICMP6_MALFORMED);
	size_t want_len, len;
	bool ok = true;

	nd_link_local(c->mac, addrs[0]);
	global_ip6(1, addrs[1]);
	nd_link_local(host_mac, host_ll);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 11 + 3);
	for (size_t i = 0; ok && i < 2 * sizeof(lens) / sizeof(lens[0]); i++) {
		len = icmp6_build_echo(c->mac, host_mac, host_ll, addrs[i & 1], ND_ECHO_REQUEST,
				       0x6666, (uint16_t)i, data, lens[i / 2], f, sizeof(f));
		forget_seen(t);
		if (icmp6_echo_answer(f, len, c->mac, (const uint8_t(*)[16])addrs, 2,
				      HROCE_ICMP_MAX_FRAME, want, &want_len) != ICMP6_ANSWERED) {
			ok = bench_result(b, "ping6", false, "the reference does not answer");
			break;
		}
		inject(t, 1, f, len, true);
		wait_seen(t, 1);
		ok = t->nseen == 1 && t->seen[0].from == c->sim && t->seen[0].len == want_len &&
		     !memcmp(t->seen[0].data, want, want_len);
		if (!ok)
			bench_result(b, "ping6", false,
				     "%zu bytes of data to address %zu: %zu frames back, the first "
				     "of %zu bytes, want %zu",
				     lens[i / 2], i & 1, t->nseen, t->nseen ? t->seen[0].len : 0,
				     want_len);
	}
	if (ok)
		bench_result(b, "ping6", net(t, 1, HROCE_NET_COUNTER_ICMP6_ANSWERED) == 10,
			     "%llu echo requests answered",
			     (unsigned long long)net(t, 1, HROCE_NET_COUNTER_ICMP6_ANSWERED));

	forget_seen(t);
	len = icmp6_build_echo((const uint8_t *)"\x33\x33\x00\x00\x00\x01", host_mac, host_ll,
			       all_nodes, ND_ECHO_REQUEST, 0x6666, 100, data, 56, f, sizeof(f));
	inject(t, 1, f, len, true);
	len = icmp6_build_echo(c->mac, host_mac, host_ll, addrs[0], ND_ECHO_REQUEST, 0x6666, 101,
			       data, 56, f, sizeof(f));
	f[70] ^= 1; /* the checksum no longer holds */
	inject(t, 1, f, len, false);
	run_ns(t, 20000);
	bench_result(
		b, "ping6_dropped",
		t->nseen == 0 && net(t, 1, HROCE_NET_COUNTER_ICMP6_NOT_OURS) == not_ours + 1 &&
			net(t, 1, HROCE_NET_COUNTER_ICMP6_MALFORMED) == malformed + 1,
		"%zu frames sent back; %llu not ours, %llu malformed", t->nseen,
		(unsigned long long)(net(t, 1, HROCE_NET_COUNTER_ICMP6_NOT_OURS) - not_ours),
		(unsigned long long)(net(t, 1, HROCE_NET_COUNTER_ICMP6_MALFORMED) - malformed));
}

/* ===================================================================================== */

/* INIT, RTR with no MAC given, RTS. */
static int connect_auto(struct hroce_qp *qp, struct hroce_qp *peer, uint32_t dip, uint32_t sq_psn,
			uint32_t rq_psn)
{
	struct hroce_qp_attr a = { 0 };
	int err;

	a.qp_state = HROCE_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE;
	err = hroce_modify_qp(qp, &a,
			      HROCE_QP_STATE | HROCE_QP_PKEY_INDEX | HROCE_QP_PORT |
				      HROCE_QP_ACCESS_FLAGS);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = HROCE_QPS_RTR;
	a.path_mtu = HROCE_MTU_1024;
	a.dest_qp_num = hroce_qp_num(peer);
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 12;
	hroce_gid_from_ipv4(dip, a.ah_attr.dgid); /* dmac all zero: the driver asks ARP */
	a.ah_attr.sgid_index = HROCE_GID_INDEX_IPV4;
	err = hroce_modify_qp(qp, &a,
			      HROCE_QP_STATE | HROCE_QP_AV | HROCE_QP_PATH_MTU | HROCE_QP_DEST_QPN |
				      HROCE_QP_RQ_PSN | HROCE_QP_MAX_DEST_RD_ATOMIC |
				      HROCE_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = HROCE_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 16;
	return hroce_modify_qp(qp, &a,
			       HROCE_QP_STATE | HROCE_QP_SQ_PSN | HROCE_QP_TIMEOUT |
				       HROCE_QP_RETRY_CNT | HROCE_QP_RNR_RETRY |
				       HROCE_QP_MAX_QP_RD_ATOMIC);
}

/*
 * RC traffic on a QP pair whose MACs the driver found, SENDs and WRITEs, with pings toward
 * both NICs injected while it runs: every byte and completion right, every ping answered.
 */
static void test_rc_with_pings(struct net_test *t)
{
	enum { MSGS = 24, LEN = 3000 };
	struct bench *b = t->b;
	struct env *e = &t->e;
	struct qp_caps caps = { 64, 64, 1, 1, 0 };
	struct hroce_qp *qp[2] = { NULL, NULL };
	struct hroce_qp_attr qa;
	uint8_t *src = env_alloc(MSGS * LEN), *dst = env_alloc(2 * MSGS * LEN);
	struct hroce_mr *smr =
		hroce_reg_mr(e->n[0].pd, src, MSGS * LEN, HROCE_ACCESS_LOCAL_WRITE, 0);
	struct hroce_mr *dmr =
		hroce_reg_mr(e->n[1].pd, dst, 2 * MSGS * LEN,
			     HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE, 0);
	uint64_t answered0 = net(t, 0, HROCE_NET_COUNTER_ICMP_ANSWERED) +
			     net(t, 1, HROCE_NET_COUNTER_ICMP_ANSWERED);
	struct hroce_wc wc[2 * MSGS];
	char why[200] = "";
	int err = 0, got, pings = 0;

	if (!smr || !dmr) {
		bench_result(b, "rc_connect_arp", false, "reg_mr: %s", strerror(errno));
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		struct hroce_qp_init_attr ia = {
			.send_cq = e->n[i].scq,
			.recv_cq = e->n[i].rcq,
			.cap = { caps.send_wr, caps.recv_wr, caps.send_sge, caps.recv_sge, 0 },
		};

		qp[i] = hroce_create_qp(e->n[i].pd, &ia);
		if (!qp[i])
			err = errno;
	}
	err = err ?: connect_auto(qp[0], qp[1], e->n[1].ipv4, 100, 200);
	err = err ?: connect_auto(qp[1], qp[0], e->n[0].ipv4, 200, 100);
	err = err ?: hroce_query_qp(qp[0], &qa);
	if (!bench_result(b, "rc_connect_arp", !err && !memcmp(qa.ah_attr.dmac, e->n[1].mac, 6),
			  "%s", strerror(err)))
		goto out;

	for (size_t i = 0; i < MSGS * LEN; i++)
		src[i] = (uint8_t)(i * 13 + 5);
	memset(dst, 0, 2 * MSGS * LEN);
	for (int m = 0; m < MSGS && !err; m++) {
		struct hroce_sge rs = { (uintptr_t)dst + (size_t)m * LEN, LEN, hroce_mr_lkey(dmr) };
		struct hroce_recv_wr rwr = { .wr_id = (uint64_t)m, .sg_list = &rs, .num_sge = 1 };
		struct hroce_recv_wr *rbad;

		err = hroce_post_recv(qp[1], &rwr, &rbad);
	}
	for (int m = 0; m < MSGS && !err; m++) {
		struct hroce_sge s = { (uintptr_t)src + (size_t)m * LEN, LEN, hroce_mr_lkey(smr) };
		struct hroce_send_wr wr = {
			.wr_id = (uint64_t)m,
			.sg_list = &s,
			.num_sge = 1,
			.opcode = m & 1 ? HROCE_WR_RDMA_WRITE : HROCE_WR_SEND,
			.send_flags = HROCE_SEND_SIGNALED,
			.remote_addr = (uintptr_t)dst + (size_t)(MSGS + m) * LEN,
			.rkey = hroce_mr_rkey(dmr),
		};
		struct hroce_send_wr *bad;
		uint8_t f[2048];

		err = hroce_post_send(qp[0], &wr, &bad);
		/* a ping to each NIC now and then, in the middle of the traffic */
		if (m % 4 == 0) {
			inject(t, 1, f,
			       echo_request(1, t, host_mac, host_ip, 200, (uint16_t)m, f,
					    sizeof(f)),
			       true);
			inject(t, 0, f,
			       echo_request(0, t, host_mac, host_ip, 200, (uint16_t)m, f,
					    sizeof(f)),
			       true);
			pings += 2;
		}
		env_idle(e);
	}
	if (err) {
		bench_result(b, "rc_with_pings", false, "post: %s", strerror(err));
		goto out;
	}
	got = env_poll(e, e->n[0].scq, MSGS, wc, POLL_NS);
	for (int k = 0; k < got && !why[0]; k++)
		if (wc[k].status != HROCE_WC_SUCCESS || wc[k].wr_id != (uint64_t)k)
			snprintf(why, sizeof(why), "send completion %d: wr_id %llu status %s", k,
				 (unsigned long long)wc[k].wr_id,
				 hroce_wc_status_name(wc[k].status));
	if (!why[0] && got != MSGS)
		snprintf(why, sizeof(why), "%d send completions of %d", got, MSGS);
	got = why[0] ? 0 : env_poll(e, e->n[1].rcq, MSGS / 2, wc, POLL_NS);
	if (!why[0] && got != MSGS / 2)
		snprintf(why, sizeof(why), "%d receive completions of %d", got, MSGS / 2);
	for (int m = 0; m < MSGS && !why[0]; m++) {
		const uint8_t *at = dst + (size_t)(m & 1 ? MSGS + m : m / 2) * LEN;

		if (memcmp(at, src + (size_t)m * LEN, LEN))
			snprintf(why, sizeof(why), "message %d (%s): data differs", m,
				 m & 1 ? "WRITE" : "SEND");
	}
	run_ns(t, 20000);
	if (!why[0] && net(t, 0, HROCE_NET_COUNTER_ICMP_ANSWERED) +
				       net(t, 1, HROCE_NET_COUNTER_ICMP_ANSWERED) !=
			       answered0 + (uint64_t)pings)
		snprintf(why, sizeof(why), "%llu of %d pings answered",
			 (unsigned long long)(net(t, 0, HROCE_NET_COUNTER_ICMP_ANSWERED) +
					      net(t, 1, HROCE_NET_COUNTER_ICMP_ANSWERED) -
					      answered0),
			 pings);
	bench_result(b, "rc_with_pings", !why[0], "%s", why);
out:
	for (int i = 0; i < 2; i++)
		if (qp[i])
			hroce_destroy_qp(qp[i]);
	if (smr)
		hroce_dereg_mr(smr);
	if (dmr)
		hroce_dereg_mr(dmr);
	free(src);
	free(dst);
}

/* ===================================================================================== */

/* Every frame the RX path handed on as not RoCE is counted once by the network blocks. */
static void check_counters(struct net_test *t)
{
	static const unsigned int rx_verdicts[] = {
		HROCE_NET_COUNTER_ARP_ANSWERED,	  HROCE_NET_COUNTER_ARP_LEARNED,
		HROCE_NET_COUNTER_ARP_IGNORED,	  HROCE_NET_COUNTER_ARP_MALFORMED,
		HROCE_NET_COUNTER_ARP_OVERFLOW,	  HROCE_NET_COUNTER_ARP_UNSOLICITED,
		HROCE_NET_COUNTER_ICMP_ANSWERED,  HROCE_NET_COUNTER_ICMP_IGNORED,
		HROCE_NET_COUNTER_ICMP_NOT_OURS,  HROCE_NET_COUNTER_ICMP_MALFORMED,
		HROCE_NET_COUNTER_ICMP_TOO_LONG,  HROCE_NET_COUNTER_ICMP_OVERFLOW,
		HROCE_NET_COUNTER_RX_OTHER,	  HROCE_NET_COUNTER_ND_ANSWERED,
		HROCE_NET_COUNTER_ND_IGNORED,	  HROCE_NET_COUNTER_ND_NOT_OURS,
		HROCE_NET_COUNTER_ND_MALFORMED,	  HROCE_NET_COUNTER_ND_TOO_LONG,
		HROCE_NET_COUNTER_ND_OVERFLOW,	  HROCE_NET_COUNTER_ND_LEARNED,
		HROCE_NET_COUNTER_ND_UNSOLICITED, HROCE_NET_COUNTER_ICMP6_ANSWERED,
		HROCE_NET_COUNTER_ICMP6_NOT_OURS, HROCE_NET_COUNTER_ICMP6_MALFORMED,
		HROCE_NET_COUNTER_ICMP6_TOO_LONG, HROCE_NET_COUNTER_ICMP6_OVERFLOW,
	};

	for (int i = 0; i < 2; i++) {
		struct hroce_dev *dev = t->e.n[i].dev;
		uint64_t sum = 0, not_roce = hroce_rx_counter(dev, HROCE_ROCE_RX_DROP_NOT_ROCE);

		for (size_t k = 0; k < sizeof(rx_verdicts) / sizeof(rx_verdicts[0]); k++)
			sum += hroce_net_counter(dev, rx_verdicts[k]);
		bench_result(t->b, i ? "net_counters_b" : "net_counters_a",
			     sum == not_roce && not_roce > 0 &&
				     hroce_net_counter(dev, HROCE_NET_COUNTER_ARP_OVERFLOW) == 0 &&
				     hroce_net_counter(dev, HROCE_NET_COUNTER_ICMP_OVERFLOW) == 0 &&
				     hroce_net_counter(dev, HROCE_NET_COUNTER_ND_OVERFLOW) == 0 &&
				     hroce_net_counter(dev, HROCE_NET_COUNTER_ICMP6_OVERFLOW) == 0,
			     "%llu non-RoCE frames, %llu counted by the network blocks",
			     (unsigned long long)not_roce, (unsigned long long)sum);
	}
}

int main(int argc, char **argv)
{
	struct env_params p = { .pcie_read_ns = 100, .pcie_write_ns = 100, .link_ns = 50 };
	struct net_test t;
	struct bench b;

	memset(&t, 0, sizeof(t));
	t.b = &b;
	bench_init(&b, "test_net", argc, argv);
	p.pcap_path = getenv("HROCE_PCAP"); /* both directions of the link, for debugging */
	hroce_set_log(log_to, &t);
	env_open(&t.e, &b, &p);
	for (int i = 0; i < 2; i++) {
		struct hroce_sim *s = t.e.n[i].sim;
		uint64_t retry = (uint64_t)INTERVAL_CYCLES << HROCE_ARP_RETRY_INTERVAL_LSB |
				 (uint64_t)TRIES << HROCE_ARP_RETRY_TRIES_LSB;

		/* the driver has no call for these: the test writes BAR0 itself */
		hroce_sim_mmio_write64(s, HROCE_REG_ARP_RETRY, retry);
		hroce_sim_mmio_write64(s, HROCE_REG_ARP_LIFETIME, LIFETIME_CYCLES);
	}
	t.pcap = pcap_open_write(PCAP_PATH, true);
	hroce_sim_link_set_tap(t.e.link, tap, &t);
	test_resolve(&t);
	test_resolve6(&t);
	test_nd_frames(&t);
	test_ping(&t);
	test_ping6(&t);
	test_rc_with_pings(&t);
	check_counters(&t);
	hroce_sim_link_set_tap(t.e.link, NULL, NULL);
	forget_seen(&t);
	if (t.pcap && !pcap_close(t.pcap))
		net_oracle_tshark(&b, "tshark", PCAP_PATH, t.captured);
	else
		bench_result(&b, "tshark", false, "cannot write %s", PCAP_PATH);
	env_close(&t.e);
	return bench_finish(&b);
}
