// SPDX-License-Identifier: MIT
/*
 * The external port (sim/platform/port_ext.c) on its own: a simulated NIC whose port is a
 * UDP socket, and this test on the other end of it with a socket of its own, playing the
 * outside world one datagram a frame.
 *
 * - ARP both ways: the test's who-has is answered; the NIC's who-has (hroce_resolve_mac)
 *   leaves as a datagram and the test's reply resolves it.
 * - ping: the echo reply is the one the C reference (net_wire.c) builds.
 * - Bad input from outside: an empty datagram and one over HROCE_SIM_EXT_FRAME_MAX are
 *   counted by the port; a runt, a giant and a ping for another MAC reach the core, which
 *   counts and drops them; the NIC still answers afterwards.
 * - The queue's bound: with the world standing still, datagrams beyond
 *   HROCE_SIM_EXT_QUEUE_FRAMES are dropped and counted, none lost uncounted; stepping
 *   then feeds the queued ones to the core.
 * - The pcap: both directions, simulated-ns timestamps in order.
 * - The configuration: endpoints that are not one fail with EINVAL and say why.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "hroce.h"
#include "hroce_config.h"
#include "hroce_contract.h"
#include "hroce_sim.h"
#include "nd_wire.h"
#include "net_wire.h"
#include "pcap.h"

#define NIC_IP 0x0a000001u   /* 10.0.0.1 */
#define PEER_IP 0x0a000063u  /* 10.0.0.99: the test's end */
#define PEER3_IP 0x0a000061u /* 10.0.0.97: nobody */
#define PEER2_IP 0x0a000062u /* 10.0.0.98: also the test's, not yet known to the NIC */
#define WAIT_MS 5000	     /* wall-clock bound on any one answer */
static const uint8_t nic_mac[6] = { 0x02, 0x00, 0x0a, 0x00, 0x00, 0x01 };
static const uint8_t peer_mac[6] = { 0x02, 0x00, 0x0a, 0x00, 0x00, 0x63 };
static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* Checks named after the case they belong to: NAME, NAME.2, NAME.3... */
static const char *case_name;
static unsigned int case_checks;

static void t_case(struct bench *b, const char *name)
{
	(void)b;
	case_name = name;
	case_checks = 0;
}

__attribute__((format(printf, 3, 4))) static bool t_check(struct bench *b, bool ok, const char *fmt,
							  ...)
{
	char name[96], msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (case_checks++)
		snprintf(name, sizeof(name), "%s.%u", case_name, case_checks);
	else
		snprintf(name, sizeof(name), "%s", case_name);
	return bench_result(b, name, ok, "%s", msg);
}

#define t_fail(b, ...) t_check(b, false, __VA_ARGS__)

struct env {
	struct bench *b;
	int sock;		/* the outside's socket */
	struct sockaddr_in nic; /* where the NIC's port receives */
	struct hroce_dev *dev;
	char dir[64], conf[96], pcap[96];
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int udp_socket(uint16_t *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int size = 8 << 20;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len)) {
		close(fd);
		return -1;
	}
	*port = ntohs(sa.sin_port);
	return fd;
}

static void send_to_nic(struct env *e, const void *frame, size_t len)
{
	if (sendto(e->sock, frame, len, 0, (struct sockaddr *)&e->nic, sizeof(e->nic)) !=
	    (ssize_t)len)
		t_fail(e->b, "sendto the NIC's port: %s", strerror(errno));
}

/* The next datagram the NIC sends that match() accepts (others are skipped): its length, or 0. */
static size_t recv_from_nic(struct env *e, uint8_t *buf, size_t cap,
			    bool (*match)(const uint8_t *f, size_t n, const void *arg),
			    const void *arg)
{
	uint64_t end = now_ms() + WAIT_MS;

	for (;;) {
		struct pollfd p = { e->sock, POLLIN, 0 };
		uint64_t t = now_ms();
		ssize_t n;

		if (t >= end || poll(&p, 1, (int)(end - t)) <= 0)
			return 0;
		n = recv(e->sock, buf, cap, 0);
		if (n > 0 && (!match || match(buf, (size_t)n, arg)))
			return (size_t)n;
	}
}

static bool is_arp_op(const uint8_t *f, size_t n, const void *arg)
{
	struct arp_pkt a;

	return arp_parse(f, n, &a) && a.op == *(const uint16_t *)arg;
}

static bool is_ipv4(const uint8_t *f, size_t n, const void *arg)
{
	(void)arg;
	return n >= 14 && f[12] == 0x08 && f[13] == 0x00;
}

struct stat_find {
	const char *name;
	uint64_t value;
	bool found;
};

static void stat_emit(void *ctx, const char *name, uint64_t value)
{
	struct stat_find *s = ctx;

	if (!strcmp(name, s->name)) {
		s->value = value;
		s->found = true;
	}
}

static uint64_t port_stat(struct env *e, const char *name)
{
	struct stat_find s = { name, 0, false };

	hroce_bus_stats(e->dev, stat_emit, &s);
	if (!s.found)
		t_fail(e->b, "the bus has no statistic %s", name);
	return s.value;
}

/* A counter that should reach want: the core counts as the frame goes in, a little later. */
static bool wait_counter(struct env *e, uint64_t (*get)(struct hroce_dev *, unsigned int),
			 unsigned int index, uint64_t want)
{
	uint64_t end = now_ms() + WAIT_MS;

	while (get(e->dev, index) < want && now_ms() < end)
		hroce_idle(e->dev);
	return get(e->dev, index) >= want;
}

static bool wait_stat(struct env *e, const char *name, uint64_t want)
{
	uint64_t end = now_ms() + WAIT_MS;

	while (port_stat(e, name) < want && now_ms() < end)
		hroce_idle(e->dev);
	return port_stat(e, name) >= want;
}

static size_t ping_frame(uint8_t *frame, size_t cap, const uint8_t dst[6], uint16_t seq)
{
	struct icmp_frame h = {
		.ttl = 64,
		.ip_src = PEER_IP,
		.ip_dst = NIC_IP,
		.type = NET_ICMP_ECHO_REQUEST,
		.id = 0x4242,
		.seq = seq,
		.ip_id = seq,
	};
	uint8_t data[56];

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + seq);
	memcpy(h.eth_dst, dst, 6);
	memcpy(h.eth_src, peer_mac, 6);
	return icmp_build(&h, data, sizeof(data), frame, cap);
}

/* ------------------------------------------------------------------------------------- */

static void case_arp_in(struct env *e)
{
	struct arp_pkt req = { .op = NET_ARP_REQUEST, .spa = PEER_IP, .tpa = NIC_IP }, rep;
	uint8_t frame[NET_MIN_FRAME], buf[2048];
	uint16_t want = NET_ARP_REPLY;
	size_t n;

	t_case(e->b, "arp_answered");
	memcpy(req.eth_dst, bcast, 6);
	memcpy(req.eth_src, peer_mac, 6);
	memcpy(req.sha, peer_mac, 6);
	send_to_nic(e, frame, arp_build(&req, frame));
	n = recv_from_nic(e, buf, sizeof(buf), is_arp_op, &want);
	if (!n) {
		t_fail(e->b, "no ARP reply within %d ms", WAIT_MS);
		return;
	}
	arp_parse(buf, n, &rep);
	t_check(e->b,
		!memcmp(rep.sha, nic_mac, 6) && rep.spa == NIC_IP &&
			!memcmp(rep.tha, peer_mac, 6) && rep.tpa == PEER_IP &&
			!memcmp(rep.eth_dst, peer_mac, 6),
		"the reply says %08x is at %02x:..:%02x, to %08x", rep.spa, rep.sha[0], rep.sha[5],
		rep.tpa);
}

/* The test's end answering the NIC's next who-has for ip (touches only the socket). */
struct answerer {
	struct env *e;
	uint32_t ip;
	struct arp_pkt reply;
	bool answered;
};

static void *answer_who_has(void *arg)
{
	struct answerer *a = arg;
	uint8_t buf[2048], frame[NET_MIN_FRAME];
	uint16_t want = NET_ARP_REQUEST;
	struct arp_pkt q;
	size_t n = recv_from_nic(a->e, buf, sizeof(buf), is_arp_op, &want);

	if (n && arp_parse(buf, n, &q) && q.tpa == a->ip) {
		send_to_nic(a->e, frame, arp_build(&a->reply, frame));
		a->answered = true;
	}
	return NULL;
}

/* The NIC resolves an address of the test's end: its who-has leaves through the port. */
static void case_arp_out(struct env *e)
{
	struct arp_pkt rep = { .op = NET_ARP_REPLY, .spa = PEER2_IP, .tpa = NIC_IP };
	uint64_t learned = hroce_net_counter(e->dev, HROCE_NET_COUNTER_ARP_LEARNED);
	struct answerer ans = { e, PEER2_IP, rep, false };
	uint8_t mac[6] = { 0 };
	pthread_t t;
	int rc;

	t_case(e->b, "arp_resolved");
	memcpy(ans.reply.eth_dst, nic_mac, 6);
	memcpy(ans.reply.eth_src, peer_mac, 6);
	memcpy(ans.reply.sha, peer_mac, 6);
	memcpy(ans.reply.tha, nic_mac, 6);
	if (pthread_create(&t, NULL, answer_who_has, &ans)) {
		t_fail(e->b, "pthread_create");
		return;
	}
	rc = hroce_resolve_mac(e->dev, PEER2_IP, mac);
	pthread_join(t, NULL);
	t_check(e->b, ans.answered, "no who-has for 10.0.0.98 came out of the port");
	t_check(e->b, rc == 0 && !memcmp(mac, peer_mac, 6),
		"resolve returned %d (%s) and %02x:..:%02x", rc, strerror(rc), mac[0], mac[5]);
	t_check(e->b, hroce_net_counter(e->dev, HROCE_NET_COUNTER_ARP_LEARNED) == learned + 1,
		"ARP_LEARNED went from %llu to %llu", (unsigned long long)learned,
		(unsigned long long)hroce_net_counter(e->dev, HROCE_NET_COUNTER_ARP_LEARNED));
}

/*
 * Nobody answers: the NIC's tries leave as datagrams, spaced on the wall clock (a world
 * with an external port does not jump past its ARP timer), and the lookup fails.
 */
static void case_arp_silent(struct env *e)
{
	uint64_t sent = hroce_net_counter(e->dev, HROCE_NET_COUNTER_ARP_REQUEST_SENT);
	uint64_t t0 = now_ms(), took;
	uint8_t buf[2048], mac[6];
	uint16_t want = NET_ARP_REQUEST;
	unsigned int who_has = 0;
	struct arp_pkt q;
	size_t n;
	int rc;

	t_case(e->b, "arp_silent");
	rc = hroce_resolve_mac(e->dev, PEER3_IP, mac);
	took = now_ms() - t0;
	while ((n = recv_from_nic(e, buf, sizeof(buf), is_arp_op, &want)) != 0 && who_has < 16)
		who_has += arp_parse(buf, n, &q) && q.tpa == PEER3_IP;
	t_check(e->b, rc == EHOSTUNREACH, "resolve of a silent address returned %d (%s)", rc,
		strerror(rc));
	t_check(e->b,
		who_has >= 2 &&
			who_has == hroce_net_counter(e->dev, HROCE_NET_COUNTER_ARP_REQUEST_SENT) -
					   sent,
		"%u who-has came out of the port, the core counts %llu", who_has,
		(unsigned long long)(hroce_net_counter(e->dev, HROCE_NET_COUNTER_ARP_REQUEST_SENT) -
				     sent));
	bench_log(e->b, "arp_silent: EHOSTUNREACH after %llu ms of wall time, %u requests",
		  (unsigned long long)took, who_has);
}

static bool ping_once(struct env *e, uint16_t seq)
{
	uint8_t frame[256], want[256], buf[2048];
	size_t len = ping_frame(frame, sizeof(frame), nic_mac, seq), want_len = 0, n;

	if (icmp_echo_answer(frame, len, nic_mac, NIC_IP, 1514, want, &want_len) != ICMP_ANSWERED) {
		t_fail(e->b, "the reference does not answer its own ping");
		return false;
	}
	send_to_nic(e, frame, len);
	n = recv_from_nic(e, buf, sizeof(buf), is_ipv4, NULL);
	if (!n) {
		t_fail(e->b, "ping %u: no reply within %d ms", seq, WAIT_MS);
		return false;
	}
	return t_check(e->b, n == want_len && !memcmp(buf, want, n),
		       "ping %u: the reply (%zu bytes) is not the reference's (%zu)", seq, n,
		       want_len);
}

static void case_ping(struct env *e)
{
	t_case(e->b, "ping");
	for (uint16_t seq = 1; seq <= 4; seq++)
		if (!ping_once(e, seq))
			return;
}

static void case_bad_input(struct env *e)
{
	uint8_t frame[256], *big = calloc(1, HROCE_SIM_EXT_FRAME_MAX + 100);
	uint64_t empty = port_stat(e, "port.rx_empty");
	uint64_t oversize = port_stat(e, "port.rx_oversize");
	uint64_t runt = hroce_rx_counter(e->dev, HROCE_ROCE_RX_DROP_RUNT);
	uint64_t giant = hroce_rx_counter(e->dev, HROCE_ROCE_RX_DROP_GIANT);
	uint64_t not_ours = hroce_net_counter(e->dev, HROCE_NET_COUNTER_ICMP_NOT_OURS);
	static const uint8_t other_mac[6] = { 0x02, 0x00, 0x0a, 0x00, 0x00, 0x77 };
	size_t len;

	if (!big) {
		t_fail(e->b, "no memory");
		return;
	}
	t_case(e->b, "bad_input_port");
	send_to_nic(e, frame, 0);
	send_to_nic(e, big, HROCE_SIM_EXT_FRAME_MAX + 1);
	t_check(e->b, wait_stat(e, "port.rx_empty", empty + 1),
		"an empty datagram was not counted");
	t_check(e->b, wait_stat(e, "port.rx_oversize", oversize + 1),
		"a datagram of %d bytes was not counted", HROCE_SIM_EXT_FRAME_MAX + 1);

	t_case(e->b, "bad_input_core");
	/* 10 bytes: not even an Ethernet header */
	memcpy(frame, nic_mac, 6);
	memcpy(frame + 6, peer_mac, 4);
	send_to_nic(e, frame, 10);
	/* 12 000 bytes of an IPv4 frame to us: longer than the core takes */
	memcpy(big, nic_mac, 6);
	memcpy(big + 6, peer_mac, 6);
	big[12] = 0x08;
	send_to_nic(e, big, 12000);
	/* a good ping, to another MAC */
	len = ping_frame(frame, sizeof(frame), other_mac, 99);
	send_to_nic(e, frame, len);
	t_check(e->b, wait_counter(e, hroce_rx_counter, HROCE_ROCE_RX_DROP_RUNT, runt + 1),
		"the runt was not counted (RUNT %llu)",
		(unsigned long long)hroce_rx_counter(e->dev, HROCE_ROCE_RX_DROP_RUNT));
	t_check(e->b, wait_counter(e, hroce_rx_counter, HROCE_ROCE_RX_DROP_GIANT, giant + 1),
		"the giant was not counted (GIANT %llu)",
		(unsigned long long)hroce_rx_counter(e->dev, HROCE_ROCE_RX_DROP_GIANT));
	t_check(e->b,
		wait_counter(e, hroce_net_counter, HROCE_NET_COUNTER_ICMP_NOT_OURS, not_ours + 1),
		"the ping for another MAC was not counted");

	/* 200 datagrams of random bytes and lengths: whatever they are, nothing breaks */
	srand(7);
	for (int i = 0; i < 200; i++) {
		size_t n = 1 + (size_t)rand() % 1600;

		for (size_t k = 0; k < n; k++)
			big[k] = (uint8_t)rand();
		send_to_nic(e, big, n);
	}
	t_case(e->b, "bad_input_after");
	ping_once(e, 100);
	free(big);
}

/* The capture of the port: the pings of case_ping both ways, stamped in simulated time. */
static void case_pcap(struct env *e)
{
	struct pcap_file *pf;
	static struct pcap_packet r;
	uint64_t last = 0, in = 0, out = 0;
	bool ordered = true;
	int err;

	t_case(e->b, "pcap");
	/* the capture is flushed when the device closes */
	hroce_close(e->dev);
	e->dev = NULL;
	pf = pcap_open_read(e->pcap);
	if (!pf) {
		t_fail(e->b, "cannot read %s: %s", e->pcap, strerror(errno));
		return;
	}
	while ((err = pcap_read(pf, &r)) == 0) {
		if (r.ts_ns < last)
			ordered = false;
		last = r.ts_ns;
		if (r.len >= 12 && !memcmp(r.data + 6, nic_mac, 6))
			out++;
		else if (r.len >= 12 && !memcmp(r.data + 6, peer_mac, 6))
			in++;
	}
	pcap_close(pf);
	t_check(e->b, err == -1, "reading %s: %s", e->pcap, strerror(err));
	t_check(e->b, in >= 5 && out >= 5, "the capture has %llu frames in, %llu out",
		(unsigned long long)in, (unsigned long long)out);
	t_check(e->b, ordered && last > 0, "timestamps not in order, or all 0 (last %llu ns)",
		(unsigned long long)last);
}

/* With the world standing still, the queue fills and the rest is dropped and counted. */
static void case_queue_bound(struct bench *b)
{
	enum { SENT = HROCE_SIM_EXT_QUEUE_FRAMES + 1000 };
	struct hroce_sim_world *w = hroce_sim_world_create(250);
	struct hroce_sim_params sp = { .name = "port-queue" };
	struct hroce_sim_ext_stats st;
	struct hroce_sim_ext *x = NULL;
	struct hroce_sim *s = w ? hroce_sim_create(w, &sp) : NULL;
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	uint8_t frame[NET_MIN_FRAME] = { 0x02, 0, 0x0a, 0, 0, 0x55 };
	char endpoint[96];
	uint16_t my_port;
	int fd = udp_socket(&my_port);
	uint64_t end;

	t_case(b, "queue_bound");
	if (!s || fd < 0) {
		t_fail(b, "cannot create the NIC or the socket: %s", strerror(errno));
		goto out;
	}
	snprintf(endpoint, sizeof(endpoint), "udp:127.0.0.1:0,127.0.0.1:%u", my_port);
	x = hroce_sim_ext_attach(s, &(struct hroce_sim_ext_params){ endpoint, 100, 100, NULL });
	if (!x) {
		t_fail(b, "attach %s: %s", endpoint, strerror(errno));
		goto out;
	}
	to.sin_port = htons((uint16_t)hroce_sim_ext_local_port(x));
	for (int i = 0; i < SENT; i++) {
		frame[14] = (uint8_t)i;
		while (sendto(fd, frame, sizeof(frame), 0, (struct sockaddr *)&to, sizeof(to)) <
			       0 &&
		       errno == ENOBUFS)
			usleep(100);
	}
	/* the port's thread reads them all (or the kernel drops some, and says so) */
	end = now_ms() + WAIT_MS;
	do {
		hroce_sim_ext_stats(x, &st);
	} while (st.rx_datagrams + st.rx_socket_drops < SENT && now_ms() < end && !usleep(1000));
	t_check(b, st.rx_datagrams + st.rx_socket_drops == SENT,
		"%d sent, %llu read and %llu dropped by the kernel", SENT,
		(unsigned long long)st.rx_datagrams, (unsigned long long)st.rx_socket_drops);
	t_check(b, st.rx_queued == HROCE_SIM_EXT_QUEUE_FRAMES && st.rx_frames == 0,
		"%llu queued, %llu given to the core, with the world standing still",
		(unsigned long long)st.rx_queued, (unsigned long long)st.rx_frames);
	t_check(b, st.rx_queue_full == st.rx_datagrams - HROCE_SIM_EXT_QUEUE_FRAMES,
		"%llu read, %llu dropped for a full queue", (unsigned long long)st.rx_datagrams,
		(unsigned long long)st.rx_queue_full);
	/* a frame of 60 bytes takes a beat: the queue empties within a few cycles a frame */
	hroce_sim_world_step(w, 4 * HROCE_SIM_EXT_QUEUE_FRAMES);
	hroce_sim_ext_stats(x, &st);
	t_check(b, st.rx_queued == 0 && st.rx_frames == HROCE_SIM_EXT_QUEUE_FRAMES,
		"after stepping: %llu queued, %llu given to the core",
		(unsigned long long)st.rx_queued, (unsigned long long)st.rx_frames);
out:
	if (fd >= 0)
		close(fd);
	hroce_sim_world_destroy(w);
}

static void case_config(struct bench *b)
{
	static const char *const bad[] = {
		"udp:127.0.0.1:0",		   /* no remote */
		"udp:127.0.0.1:0,127.0.0.1:0",	   /* remote port 0 */
		"udp:127.0.0.1:70000,127.0.0.1:1", /* not a port */
		"udp:no-such-host.invalid:1,127.0.0.1:2",
		"udp:,",
		"tap:",
		"tap:a/b",
		"tap:this-name-is-far-too-long",
	};
	char path[] = "/tmp/hroce-port-XXXXXX";
	int fd = mkstemp(path);

	t_case(b, "config_endpoints");
	if (fd < 0) {
		t_fail(b, "mkstemp: %s", strerror(errno));
		return;
	}
	close(fd);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hroce_config *cfg = NULL;
		FILE *f = fopen(path, "w");
		int err;

		fprintf(f, "[p]\nmac = 02:00:0a:00:00:01\nipv4 = 10.0.0.1\nwire = %s\n", bad[i]);
		fclose(f);
		err = hroce_config_load_file(path, &cfg);
		t_check(b, err == EINVAL, "wire = %s: load returned %d, not EINVAL", bad[i], err);
		hroce_config_free(cfg);
	}
	{
		struct hroce_config *cfg = NULL;
		FILE *f = fopen(path, "w");
		const struct hroce_config_dev *d;
		int err;

		fprintf(f, "[p]\nmac = 02:00:0a:00:00:01\nipv4 = 10.0.0.1\n"
			   "wire = udp:localhost:4000,127.0.0.1:4001\n");
		fclose(f);
		err = hroce_config_load_file(path, &cfg);
		d = err ? NULL : hroce_config_dev(cfg, 0);
		t_check(b, d && !strcmp(d->wire, "udp:localhost:4000,127.0.0.1:4001"),
			"a good endpoint: load returned %d", err);
		hroce_config_free(cfg);
	}
	unlink(path);
	{
		struct hroce_config *cfg = NULL;
		int err = hroce_config_load_file("host-driver/hroce-rxe.conf.example", &cfg);
		const struct hroce_config_dev *d = err ? NULL : hroce_config_dev(cfg, 0);

		t_check(b, d && hroce_sim_ext_is_endpoint(d->wire),
			"host-driver/hroce-rxe.conf.example: load returned %d", err);
		hroce_config_free(cfg);
	}
}

/* A TAP needs root and /dev/net/tun: either it opens, or the error says why. */
static void case_tap(struct bench *b)
{
	struct hroce_sim_world *w = hroce_sim_world_create(250);
	struct hroce_sim_params sp = { .name = "port-tap" };
	struct hroce_sim *s = w ? hroce_sim_create(w, &sp) : NULL;
	struct hroce_sim_ext *x;
	int err;

	t_case(b, "tap_open");
	if (!s) {
		t_fail(b, "cannot create the NIC: %s", strerror(errno));
		hroce_sim_world_destroy(w);
		return;
	}
	x = hroce_sim_ext_attach(
		s, &(struct hroce_sim_ext_params){ "tap:hroce-test0", 100, 100, NULL });
	err = x ? 0 : errno;
	t_check(b, x || err == EPERM || err == EACCES || err == ENOENT || err == ENODEV,
		"tap: attach failed with %d (%s)", err, strerror(err));
	if (x) {
		/* a second port on the same NIC is refused */
		t_check(b,
			!hroce_sim_ext_attach(
				s, &(struct hroce_sim_ext_params){ "udp:127.0.0.1:0,127.0.0.1:9", 1,
								   0, NULL }) &&
				errno == EBUSY,
			"a second port was not refused with EBUSY");
		hroce_sim_ext_detach(x);
	}
	hroce_sim_world_destroy(w);
}

/*
 * Linux's own stack on the other side of a TAP: in a network namespace of its own (so
 * nothing of this machine's network changes), the kernel pings the NIC through the TAP,
 * resolving it by ARP first, then pings its link-local IPv6 address (ping -6 fe80::...%tap),
 * resolving it by neighbour discovery first. The child's exit status: 0 pass, 1 fail (said
 * on stderr), 77 no privilege to make a namespace or a TAP.
 */
static void print_port_stat(void *ctx, const char *name, uint64_t value)
{
	(void)ctx;
	if (!strncmp(name, "port.", 5))
		fprintf(stderr, "  %s %llu\n", name, (unsigned long long)value);
}

/*
 * An ICMPv6 echo from the kernel to the NIC's link-local address through the TAP (the
 * kernel sums the checksum of a raw ICMPv6 socket); 0 when the reply came and the core
 * counted the solicitation and the echo it answered.
 */
static int tap_linux_ping6(struct hroce_dev *dev, const uint8_t mac[6])
{
	struct sockaddr_in6 to = { .sin6_family = AF_INET6 };
	uint8_t pkt[64] = { ND_ECHO_REQUEST }, buf[256];
	char text[INET6_ADDRSTRLEN] = "";
	uint64_t end;
	int raw;

	nd_link_local(mac, to.sin6_addr.s6_addr);
	inet_ntop(AF_INET6, &to.sin6_addr, text, sizeof(text));
	to.sin6_scope_id = if_nametoindex("hroce-tap0");
	raw = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMPV6);
	if (raw < 0 || !to.sin6_scope_id) {
		fprintf(stderr, "an ICMPv6 socket on hroce-tap0: %s\n", strerror(errno));
		return 1;
	}
	pkt[4] = 0x16; /* id */
	pkt[7] = 6;    /* seq */
	memset(pkt + 8, 0x6a, sizeof(pkt) - 8);
	/* the TAP's own link-local address is tentative for a second or two (DAD) */
	end = now_ms() + 3 * WAIT_MS;
	while (now_ms() < end) {
		struct pollfd p = { raw, POLLIN, 0 };
		ssize_t n;

		if (sendto(raw, pkt, sizeof(pkt), 0, (struct sockaddr *)&to, sizeof(to)) < 0)
			usleep(200000);
		if (poll(&p, 1, 500) != 1)
			continue;
		n = recv(raw, buf, sizeof(buf), 0);
		/* the ICMPv6 message alone: an echo reply with our id and seq */
		if (n >= 8 && buf[0] == ND_ECHO_REPLY && buf[4] == 0x16 && buf[7] == 6) {
			uint64_t echo = hroce_net_counter(dev, HROCE_NET_COUNTER_ICMP6_ANSWERED);
			uint64_t nd = hroce_net_counter(dev, HROCE_NET_COUNTER_ND_ANSWERED);

			close(raw);
			if (echo >= 1 && nd >= 1)
				return 0;
			fprintf(stderr,
				"a reply from %s, but ICMP6_ANSWERED %llu, ND_ANSWERED %llu\n",
				text, (unsigned long long)echo, (unsigned long long)nd);
			return 1;
		}
	}
	close(raw);
	fprintf(stderr,
		"no ICMPv6 echo reply from %s through the TAP in %d ms (ND answered %llu, echo "
		"answered %llu, ND not ours %llu, echo not ours %llu)\n",
		text, 3 * WAIT_MS,
		(unsigned long long)hroce_net_counter(dev, HROCE_NET_COUNTER_ND_ANSWERED),
		(unsigned long long)hroce_net_counter(dev, HROCE_NET_COUNTER_ICMP6_ANSWERED),
		(unsigned long long)hroce_net_counter(dev, HROCE_NET_COUNTER_ND_NOT_OURS),
		(unsigned long long)hroce_net_counter(dev, HROCE_NET_COUNTER_ICMP6_NOT_OURS));
	return 1;
}

static int tap_linux_child(const char *dir)
{
	char conf[128];
	struct ifreq ifr = { 0 };
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
	uint8_t pkt[64] = { NET_ICMP_ECHO_REQUEST }, buf[256];
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(NIC_IP) };
	struct hroce_dev *dev;
	uint64_t end;
	int fd, raw;
	uint16_t sum;
	FILE *f;

	if (unshare(CLONE_NEWNET))
		return 77;
	snprintf(conf, sizeof(conf), "%s/tap.conf", dir);
	f = fopen(conf, "w");
	if (!f)
		return 1;
	fprintf(f, "[tap0]\nspec = sim:tap0\nmac = 02:00:0a:00:00:01\nipv4 = 10.0.0.1\n"
		   "wire = tap:hroce-tap0\n");
	fclose(f);
	setenv(HROCE_CONFIG_ENV, conf, 1);
	dev = hroce_open("sim:tap0", NULL);
	if (!dev)
		return errno == EPERM || errno == EACCES ? 77 : 1;
	/* the TAP's side: 10.0.0.99/24, up */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "hroce-tap0");
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(PEER_IP);
	if (ioctl(fd, SIOCSIFADDR, &ifr)) {
		fprintf(stderr, "SIOCSIFADDR: %s\n", strerror(errno));
		return 1;
	}
	sin->sin_addr.s_addr = htonl(0xffffff00u);
	ioctl(fd, SIOCSIFNETMASK, &ifr);
	ioctl(fd, SIOCGIFFLAGS, &ifr);
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr)) {
		fprintf(stderr, "SIOCSIFFLAGS: %s\n", strerror(errno));
		return 1;
	}
	close(fd);
	/* an echo request of the kernel's stack: it resolves 10.0.0.1 through the TAP first */
	raw = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
	if (raw < 0)
		return 77;
	pkt[4] = 0x12; /* id */
	pkt[7] = 1;    /* seq */
	memset(pkt + 8, 0x5a, sizeof(pkt) - 8);
	sum = net_csum(pkt, sizeof(pkt));
	pkt[2] = (uint8_t)(sum >> 8);
	pkt[3] = (uint8_t)sum;
	end = now_ms() + WAIT_MS;
	while (now_ms() < end) {
		struct pollfd p = { raw, POLLIN, 0 };
		ssize_t n;

		if (sendto(raw, pkt, sizeof(pkt), 0, (struct sockaddr *)&to, sizeof(to)) < 0)
			usleep(100000);
		if (poll(&p, 1, 500) != 1)
			continue;
		n = recv(raw, buf, sizeof(buf), 0);
		/* the IPv4 header, then ICMP: an echo reply with our id and seq */
		if (n >= 20 + 8 && buf[20] == NET_ICMP_ECHO_REPLY && buf[24] == 0x12 &&
		    buf[27] == 1) {
			uint64_t answered = hroce_net_counter(dev, HROCE_NET_COUNTER_ICMP_ANSWERED);
			uint64_t arp = hroce_net_counter(dev, HROCE_NET_COUNTER_ARP_ANSWERED);
			int ret;

			if (answered < 1 || arp < 1) {
				fprintf(stderr,
					"a reply, but ICMP_ANSWERED %llu, ARP_ANSWERED %llu\n",
					(unsigned long long)answered, (unsigned long long)arp);
				hroce_close(dev);
				return 1;
			}
			ret = tap_linux_ping6(dev, nic_mac);
			hroce_close(dev);
			return ret;
		}
	}
	fprintf(stderr,
		"no echo reply from 10.0.0.1 through the TAP in %d ms (ARP answered %llu, echo "
		"answered %llu)\n",
		WAIT_MS, (unsigned long long)hroce_net_counter(dev, HROCE_NET_COUNTER_ARP_ANSWERED),
		(unsigned long long)hroce_net_counter(dev, HROCE_NET_COUNTER_ICMP_ANSWERED));
	hroce_bus_stats(dev, print_port_stat, NULL);
	return 1;
}

static void case_tap_linux(struct bench *b, const char *dir)
{
	int status = 0;
	pid_t pid;

	t_case(b, "tap_linux_ping");
	pid = fork();
	if (pid == 0)
		_exit(tap_linux_child(dir));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		t_fail(b, "the child did not end normally (status 0x%x)", status);
		return;
	}
	if (WEXITSTATUS(status) == 77) {
		/* a TAP and a namespace need root: said, and counted as not run */
		printf("# tap_linux_ping: not run: no privilege for a network namespace and a TAP\n");
		return;
	}
	t_check(b, WEXITSTATUS(status) == 0, "the kernel's ping through the TAP failed (exit %d)",
		WEXITSTATUS(status));
}

static void setup(struct env *e)
{
	uint16_t my_port;
	FILE *f;
	struct hroce_sim_ext *x;

	snprintf(e->dir, sizeof(e->dir), "/tmp/hroce-port-%d", (int)getpid());
	mkdir(e->dir, 0700);
	snprintf(e->conf, sizeof(e->conf), "%s/hroce.conf", e->dir);
	snprintf(e->pcap, sizeof(e->pcap), "%s/port.pcap", e->dir);
	e->sock = udp_socket(&my_port);
	if (e->sock < 0)
		return;
	f = fopen(e->conf, "w");
	if (!f)
		return;
	fprintf(f,
		"[port0]\nspec = sim:port0\nmac = 02:00:0a:00:00:01\nipv4 = 10.0.0.1\n"
		"wire = udp:127.0.0.1:0,127.0.0.1:%u\nlink_ns = 100\nlink_gbps = 100\npcap = %s\n",
		my_port, e->pcap);
	fclose(f);
	setenv(HROCE_CONFIG_ENV, e->conf, 1);
	e->dev = hroce_open("sim:port0", NULL);
	if (!e->dev)
		return;
	x = hroce_sim_ext_of(hroce_sim_find("port0"));
	e->nic = (struct sockaddr_in){ .sin_family = AF_INET,
				       .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				       .sin_port = htons((uint16_t)hroce_sim_ext_local_port(x)) };
}

int main(int argc, char **argv)
{
	struct bench bench, *b = &bench;
	struct env e = { .b = b, .sock = -1 };

	bench_init(b, "test_port", argc, argv);

	case_config(b);
	case_queue_bound(b);
	case_tap(b);
	setup(&e);
	t_case(b, "open");
	if (t_check(b, e.dev && e.nic.sin_port, "cannot open sim:port0 on a UDP port: %s",
		    strerror(errno))) {
		case_arp_in(&e);
		case_ping(&e);
		case_arp_out(&e);
		case_arp_silent(&e);
		case_bad_input(&e);
		case_pcap(&e);
	}
	case_tap_linux(b, e.dir);
	if (e.dev)
		hroce_close(e.dev);
	if (e.sock >= 0)
		close(e.sock);
	unlink(e.conf);
	unlink(e.pcap);
	snprintf(e.conf, sizeof(e.conf), "%s/tap.conf", e.dir);
	unlink(e.conf);
	rmdir(e.dir);
	return bench_finish(b);
}
