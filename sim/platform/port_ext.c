// SPDX-License-Identifier: MIT
/*
 * An external port: a NIC's Ethernet port on a UDP socket, one frame per datagram (the
 * format of QEMU's -netdev dgram and -netdev socket,udp=), or on a TAP device, instead of
 * a link or a shared-memory wire.
 *
 * The outside runs on wall-clock time and the NIC on simulated time; the NIC never waits
 * for the outside.
 * - Out: the core's frames cross a sim_channel (the rate, latency, faults and pcap of any
 *   link) to a sink that takes a beat every cycle; a frame leaves as a datagram when its
 *   last beat reaches the far end. A frame the core aborted (tuser) is not sent.
 * - In: a thread of the port receives datagrams into a queue of at most
 *   HROCE_SIM_EXT_QUEUE_FRAMES frames (beyond that they are dropped and counted) and wakes
 *   the world. The world puts the oldest onto a channel toward the core once the previous
 *   one has gone in, so a frame enters at the NIC's simulated time of the moment it is
 *   taken, at one beat a cycle. What the frame holds is the core's to judge: runts,
 *   giants, garbage and frames for other MACs go in as they came, and the core counts and
 *   drops them. Only what cannot be a frame stays here: an empty datagram, or one over
 *   HROCE_SIM_EXT_FRAME_MAX bytes.
 * - Time: a world with an external port never jumps its clock faster than the wall clock
 *   (world_run.c): its core's timers (retransmission, ARP) then mean what they say to the
 *   peer outside, which measures them in wall-clock time.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sim_futex.h"
#include "sim_internal.h"

/* a socket buffer for the bursts a peer sends while the world is busy (what rmem_max allows) */
#define EXT_SOCKET_BUFFER (4u << 20)

enum ext_kind {
	EXT_UDP,
	EXT_TAP,
};

struct ext_endpoint {
	enum ext_kind kind;
	struct sockaddr_in local, remote; /* udp */
	char ifname[IFNAMSIZ];		  /* tap */
};

struct ext_frame {
	size_t len;
	uint8_t data[];
};

struct hroce_sim_ext {
	struct hroce_sim *s;
	struct ext_endpoint ep;
	char *desc; /* the endpoint as configured, for messages */
	int fd, stop_fd;
	pthread_t thread;
	bool thread_started;

	/* frames from the receive thread to the world */
	pthread_mutex_t qlock;
	struct ext_frame *queue[HROCE_SIM_EXT_QUEUE_FRAMES];
	unsigned int qhead;
	_Atomic uint32_t qlen;

	/* out: the core's TX into a sink; in: a source (injected frames only) into the core's RX */
	struct sim_channel out, in;
	struct sim_axis_wires sink_w, source_w;
	struct sim_axis_bus sink, source;
	struct pcap_file *pcap;
	uint8_t *frame; /* the frame reaching the sink */
	size_t frame_len;

	/* counters the receive thread keeps */
	_Atomic uint64_t rx_datagrams, rx_queue_full, rx_socket_drops, rx_empty, rx_oversize,
		rx_errors;
	/* and the world's */
	uint64_t tx_frames, tx_errors, tx_aborted, tx_oversize, rx_frames;
};

/* ------------------------------------------------------------------------------------- */
/* The endpoint: udp:LHOST:LPORT,RHOST:RPORT or tap:NAME */

static int parse_host_port(const char *s, size_t n, struct sockaddr_in *sa, char *why,
			   size_t why_len)
{
	char buf[256], *colon, *end;
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM };
	struct addrinfo *res;
	unsigned long port;
	int rc;

	if (n >= sizeof(buf)) {
		snprintf(why, why_len, "address too long");
		return EINVAL;
	}
	memcpy(buf, s, n);
	buf[n] = 0;
	colon = strrchr(buf, ':');
	if (!colon || colon == buf || !colon[1]) {
		snprintf(why, why_len, "\"%s\" is not HOST:PORT", buf);
		return EINVAL;
	}
	*colon = 0;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (*end || errno || port > 65535) {
		snprintf(why, why_len, "port \"%s\" is not 0 to 65535", colon + 1);
		return EINVAL;
	}
	rc = getaddrinfo(buf, NULL, &hints, &res);
	if (rc) {
		snprintf(why, why_len, "host \"%s\": %s", buf, gai_strerror(rc));
		return EINVAL;
	}
	*sa = *(struct sockaddr_in *)res->ai_addr;
	sa->sin_port = htons((uint16_t)port);
	freeaddrinfo(res);
	return 0;
}

static int parse_endpoint(const char *spec, struct ext_endpoint *ep, char *why, size_t why_len)
{
	const char *comma;
	int err;

	memset(ep, 0, sizeof(*ep));
	if (!strncmp(spec, "tap:", 4)) {
		size_t n = strlen(spec + 4);

		if (!n || n >= IFNAMSIZ || strpbrk(spec + 4, "/: \t")) {
			snprintf(why, why_len,
				 "tap:NAME takes an interface name of 1 to %d characters",
				 IFNAMSIZ - 1);
			return EINVAL;
		}
		ep->kind = EXT_TAP;
		memcpy(ep->ifname, spec + 4, n + 1);
		return 0;
	}
	if (strncmp(spec, "udp:", 4)) {
		snprintf(why, why_len,
			 "an external port is udp:LHOST:LPORT,RHOST:RPORT or tap:NAME");
		return EINVAL;
	}
	spec += 4;
	comma = strchr(spec, ',');
	if (!comma) {
		snprintf(why, why_len, "udp: takes LHOST:LPORT,RHOST:RPORT");
		return EINVAL;
	}
	ep->kind = EXT_UDP;
	err = parse_host_port(spec, (size_t)(comma - spec), &ep->local, why, why_len);
	if (!err)
		err = parse_host_port(comma + 1, strlen(comma + 1), &ep->remote, why, why_len);
	if (!err && !ep->remote.sin_port) {
		snprintf(why, why_len, "the remote port must not be 0");
		err = EINVAL;
	}
	return err;
}

int hroce_sim_ext_check(const char *endpoint, char *why, size_t why_len)
{
	struct ext_endpoint ep;

	return parse_endpoint(endpoint, &ep, why, why_len);
}

bool hroce_sim_ext_is_endpoint(const char *s)
{
	return !strncmp(s, "udp:", 4) || !strncmp(s, "tap:", 4);
}

static int open_udp(struct hroce_sim_ext *x)
{
	int one = 1, size = EXT_SOCKET_BUFFER;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return errno;
	/* the kernel counts the datagrams it dropped for want of room: so do we */
	setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&x->ep.local, sizeof(x->ep.local))) {
		int err = errno;

		close(fd);
		return err;
	}
	x->fd = fd;
	return 0;
}

static int open_tap(struct hroce_sim_ext *x)
{
	struct ifreq ifr;
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return errno;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	memcpy(ifr.ifr_name, x->ep.ifname, sizeof(ifr.ifr_name));
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		int err = errno;

		close(fd);
		return err;
	}
	x->fd = fd;
	return 0;
}

/* ------------------------------------------------------------------------------------- */
/* The receive thread */

static void queue_push(struct hroce_sim_ext *x, const uint8_t *data, size_t len)
{
	struct ext_frame *f;

	/* this thread alone adds to the queue: what it sees can only have shrunk since */
	if (atomic_load(&x->qlen) == HROCE_SIM_EXT_QUEUE_FRAMES) {
		atomic_fetch_add(&x->rx_queue_full, 1);
		return;
	}
	f = malloc(sizeof(*f) + len);
	if (!f) {
		atomic_fetch_add(&x->rx_errors, 1);
		return;
	}
	f->len = len;
	memcpy(f->data, data, len);
	pthread_mutex_lock(&x->qlock);
	x->queue[(x->qhead + atomic_load(&x->qlen)) % HROCE_SIM_EXT_QUEUE_FRAMES] = f;
	atomic_fetch_add(&x->qlen, 1);
	pthread_mutex_unlock(&x->qlock);
	/* a sleeping world wakes for it (the word is published before the queue is looked at) */
	sim_futex_poke(x->s->w->wake_word);
}

static struct ext_frame *queue_pop(struct hroce_sim_ext *x)
{
	struct ext_frame *f = NULL;

	pthread_mutex_lock(&x->qlock);
	if (atomic_load(&x->qlen)) {
		f = x->queue[x->qhead];
		x->qhead = (x->qhead + 1) % HROCE_SIM_EXT_QUEUE_FRAMES;
		atomic_fetch_sub(&x->qlen, 1);
	}
	pthread_mutex_unlock(&x->qlock);
	return f;
}

/* One datagram or TAP frame: false when there is nothing more to read now. */
static bool receive_one(struct hroce_sim_ext *x, uint8_t *buf, size_t cap)
{
	char control[CMSG_SPACE(sizeof(uint32_t))];
	struct iovec iov = { buf, cap };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (x->ep.kind == EXT_UDP) {
		msg.msg_control = control;
		msg.msg_controllen = sizeof(control);
		n = recvmsg(x->fd, &msg, MSG_TRUNC);
	} else {
		n = read(x->fd, buf, cap);
	}
	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			atomic_fetch_add(&x->rx_errors, 1);
		return errno == EINTR;
	}
	for (struct cmsghdr *c = x->ep.kind == EXT_UDP ? CMSG_FIRSTHDR(&msg) : NULL; c;
	     c = CMSG_NXTHDR(&msg, c)) {
		uint32_t drops;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SO_RXQ_OVFL)
			continue;
		memcpy(&drops, CMSG_DATA(c), sizeof(drops));
		atomic_store(&x->rx_socket_drops, drops); /* the kernel's total so far */
	}
	atomic_fetch_add(&x->rx_datagrams, 1);
	if (!n)
		atomic_fetch_add(&x->rx_empty, 1);
	else if ((size_t)n > HROCE_SIM_EXT_FRAME_MAX || (msg.msg_flags & MSG_TRUNC))
		atomic_fetch_add(&x->rx_oversize, 1);
	else
		queue_push(x, buf, (size_t)n);
	return true;
}

static void *receive(void *arg)
{
	struct hroce_sim_ext *x = arg;
	struct pollfd pfd[2] = { { x->fd, POLLIN, 0 }, { x->stop_fd, POLLIN, 0 } };
	/* one byte more than a frame may have, so that a longer one shows */
	size_t cap = HROCE_SIM_EXT_FRAME_MAX + 1;
	uint8_t *buf = malloc(cap);

	if (!buf) {
		sim_log(HROCE_SIM_LOG_ERR, "%s: port %s: no memory to receive", x->s->name,
			x->desc);
		return NULL;
	}
	for (;;) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;
		if (pfd[0].revents & (POLLERR | POLLNVAL)) {
			/* a UDP socket reports ICMP port unreachable here: read it and go on */
			int soerr;
			socklen_t len = sizeof(soerr);

			getsockopt(x->fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
		}
		while (receive_one(x, buf, cap))
			;
	}
	free(buf);
	return NULL;
}

/* ------------------------------------------------------------------------------------- */
/* What the world does with the port, each cycle */

static void send_frame(struct hroce_sim_ext *x)
{
	ssize_t n;

	if (x->ep.kind == EXT_UDP)
		n = sendto(x->fd, x->frame, x->frame_len, MSG_DONTWAIT,
			   (struct sockaddr *)&x->ep.remote, sizeof(x->ep.remote));
	else
		n = write(x->fd, x->frame, x->frame_len);
	/* a peer not there yet (ECONNREFUSED), or a full socket: the frame is lost, as on a wire */
	if (n == (ssize_t)x->frame_len)
		x->tx_frames++;
	else
		x->tx_errors++;
}

void sim_ext_drive(struct hroce_sim_ext *x, uint64_t now)
{
	/* the previous frame went in whole: the next one goes on the channel toward the core */
	if (atomic_load_explicit(&x->qlen, memory_order_relaxed) && sim_channel_quiet(&x->in)) {
		struct ext_frame *f = queue_pop(x);

		if (f) {
			if (sim_channel_inject(&x->in, f->data, f->len))
				atomic_fetch_add(&x->rx_errors, 1);
			else
				x->rx_frames++;
			free(f);
		}
	}
	sim_channel_tx_drive(&x->in, now);
	sim_channel_rx_drive(&x->out, now);
}

void sim_ext_sample(struct hroce_sim_ext *x, uint64_t now)
{
	sim_channel_tx_sample(&x->in, now);
	if (*x->sink.tvalid) {
		const uint8_t *data = (const uint8_t *)x->sink.tdata;

		for (uint64_t keep = *x->sink.tkeep; keep; keep &= keep - 1) {
			if (x->frame_len < HROCE_SIM_EXT_FRAME_MAX)
				x->frame[x->frame_len] = data[__builtin_ctzll(keep)];
			x->frame_len++;
		}
		if (*x->sink.tlast) {
			if (*x->sink.tuser)
				x->tx_aborted++;
			else if (x->frame_len > HROCE_SIM_EXT_FRAME_MAX)
				x->tx_oversize++;
			else
				send_frame(x);
			x->frame_len = 0;
		}
	}
	sim_channel_rx_sample(&x->out, now);
}

bool sim_ext_pending(const struct hroce_sim_ext *x)
{
	return atomic_load(&x->qlen) != 0;
}

/* ------------------------------------------------------------------------------------- */
/* Attach and detach */

static void ext_free(struct hroce_sim_ext *x)
{
	struct ext_frame *f;

	if (x->thread_started) {
		uint64_t one = 1;

		if (write(x->stop_fd, &one, sizeof(one)) != sizeof(one))
			sim_log(HROCE_SIM_LOG_ERR, "port %s: cannot stop its thread", x->desc);
		pthread_join(x->thread, NULL);
	}
	while ((f = queue_pop(x)))
		free(f);
	if (x->fd >= 0)
		close(x->fd);
	if (x->stop_fd >= 0)
		close(x->stop_fd);
	sim_channel_fini(&x->out);
	sim_channel_fini(&x->in);
	if (x->pcap) {
		int err = pcap_close(x->pcap);

		if (err)
			sim_log(HROCE_SIM_LOG_ERR, "port %s: pcap: %s", x->desc, strerror(err));
	}
	pthread_mutex_destroy(&x->qlock);
	free(x->frame);
	free(x->desc);
	free(x);
}

static int ext_open(struct hroce_sim_ext *x, const struct hroce_sim_ext_params *p)
{
	struct hroce_sim *s = x->s;
	struct sim_channel_params cp = {
		.latency = sim_ns_to_cycles(s->w, p->latency_ns),
		.gbps = p->gbps,
		.clock_mhz = s->w->clock_mhz,
	};
	struct sim_channel_hooks out_hooks = { sim_nic_frame_sent, NULL, s, NULL };
	struct sim_channel_hooks in_hooks = { NULL, sim_nic_frame_received, NULL, s };
	int err;

	if (p->pcap_path) {
		x->pcap = pcap_open_write(p->pcap_path, true);
		if (!x->pcap) {
			err = errno;
			sim_log(HROCE_SIM_LOG_ERR, "%s: port %s: cannot open %s: %s", s->name,
				x->desc, p->pcap_path, strerror(err));
			return err;
		}
	}
	cp.pcap = x->pcap;
	if (!cp.latency)
		cp.latency = 1;
	sim_axis_bus_wire(&x->sink, &x->sink_w);
	sim_axis_bus_wire(&x->source, &x->source_w);
	err = sim_channel_init(&x->out, &s->tx, &x->sink, &cp, &out_hooks);
	if (err)
		return err;
	/* frames from outside went over their wire already: they enter at once, a beat a cycle */
	cp.latency = 1;
	cp.gbps = 0;
	err = sim_channel_init(&x->in, &x->source, &s->rx, &cp, &in_hooks);
	if (err)
		return err;
	x->sink_w.tready = 1;
	x->frame = malloc(HROCE_SIM_EXT_FRAME_MAX);
	if (!x->frame)
		return ENOMEM;
	x->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (x->stop_fd < 0)
		return errno;
	err = x->ep.kind == EXT_UDP ? open_udp(x) : open_tap(x);
	if (err) {
		sim_log(HROCE_SIM_LOG_ERR, "%s: port %s: %s%s", s->name, x->desc, strerror(err),
			x->ep.kind == EXT_TAP && (err == EPERM || err == ENOENT)
				? " (a TAP needs root, or CAP_NET_ADMIN, and /dev/net/tun)"
				: "");
		return err;
	}
	err = pthread_create(&x->thread, NULL, receive, x);
	if (err)
		return err;
	x->thread_started = true;
	return 0;
}

struct hroce_sim_ext *hroce_sim_ext_attach(struct hroce_sim *s,
					   const struct hroce_sim_ext_params *p)
{
	struct hroce_sim_ext *x;
	char why[160];
	int err;

	if (!s || !p || !p->endpoint) {
		errno = EINVAL;
		return NULL;
	}
	if (s->w->running || s->w->stepping) {
		sim_log(HROCE_SIM_LOG_ERR, "%s: attach a port while the world stands still",
			s->name);
		errno = EINVAL;
		return NULL;
	}
	if (s->link || s->wire || s->ext || s->w->nwires) {
		sim_log(HROCE_SIM_LOG_ERR,
			"%s: the port has a link or a wire already (or a NIC of its world has a "
			"wire: a world with an external port runs on the wall clock)",
			s->name);
		errno = EBUSY;
		return NULL;
	}
	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->s = s;
	x->fd = x->stop_fd = -1;
	pthread_mutex_init(&x->qlock, NULL);
	x->desc = strdup(p->endpoint);
	err = parse_endpoint(p->endpoint, &x->ep, why, sizeof(why));
	if (err)
		sim_log(HROCE_SIM_LOG_ERR, "%s: port %s: %s", s->name, p->endpoint, why);
	else if (!x->desc)
		err = ENOMEM;
	else
		err = ext_open(x, p);
	if (err) {
		if (x->desc)
			ext_free(x);
		else
			free(x);
		errno = err;
		return NULL;
	}
	s->ext = x;
	s->tx_ch = &x->out;
	s->rx_ch = &x->in;
	s->w->nexts++;
	return x;
}

void sim_ext_detach_locked(struct hroce_sim_ext *x)
{
	struct hroce_sim *s = x->s;

	s->ext = NULL;
	s->tx_ch = s->rx_ch = NULL;
	*s->tx.tready = 1;
	*s->rx.tvalid = 0;
	s->w->nexts--;
	ext_free(x);
}

void hroce_sim_ext_detach(struct hroce_sim_ext *x)
{
	struct hroce_sim_world *w;
	bool running;

	if (!x)
		return;
	w = x->s->w;
	running = w->running;
	hroce_sim_world_stop(w);
	sim_ext_detach_locked(x);
	if (running)
		hroce_sim_world_start(w);
}

struct hroce_sim_ext *hroce_sim_ext_of(struct hroce_sim *s)
{
	return s ? s->ext : NULL;
}

int hroce_sim_ext_local_port(const struct hroce_sim_ext *x)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);

	if (!x || x->ep.kind != EXT_UDP || getsockname(x->fd, (struct sockaddr *)&sa, &len))
		return -1;
	return ntohs(sa.sin_port);
}

void hroce_sim_ext_stats(struct hroce_sim_ext *x, struct hroce_sim_ext_stats *st)
{
	struct hroce_sim_world *w = x->s->w;

	sim_world_lock(w);
	*st = (struct hroce_sim_ext_stats){
		.tx_frames = x->tx_frames,
		.tx_errors = x->tx_errors,
		.tx_aborted = x->tx_aborted,
		.tx_oversize = x->tx_oversize,
		.rx_frames = x->rx_frames,
		.rx_queued = atomic_load(&x->qlen),
	};
	sim_world_unlock(w);
	st->rx_datagrams = atomic_load(&x->rx_datagrams);
	st->rx_queue_full = atomic_load(&x->rx_queue_full);
	st->rx_socket_drops = atomic_load(&x->rx_socket_drops);
	st->rx_empty = atomic_load(&x->rx_empty);
	st->rx_oversize = atomic_load(&x->rx_oversize);
	st->rx_errors = atomic_load(&x->rx_errors);
}

int hroce_sim_ext_set_faults(struct hroce_sim_ext *x, const struct hroce_sim_frame_faults *f)
{
	char why[128];
	int err;

	if (!x)
		return EINVAL;
	if (f && sim_faults_check(f, why, sizeof(why))) {
		sim_log(HROCE_SIM_LOG_ERR, "port %s: faults: %s", x->desc, why);
		return EINVAL;
	}
	sim_world_lock(x->s->w);
	err = sim_faults_set(&x->out.faults, f);
	sim_world_unlock(x->s->w);
	return err;
}

void hroce_sim_ext_fault_stats(struct hroce_sim_ext *x, struct hroce_sim_frame_fault_stats *st)
{
	sim_world_lock(x->s->w);
	*st = x->out.faults.st;
	sim_world_unlock(x->s->w);
}
