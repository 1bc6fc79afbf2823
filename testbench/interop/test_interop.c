// SPDX-License-Identifier: MIT
/*
 * Interop with Linux Soft-RoCE: a simulated HardRoCE NIC and a Linux rxe guest on one
 * Ethernet link, unmodified tools on both sides, in both directions.
 *
 * The HardRoCE side is a program under hroce-run whose NIC's port is a UDP socket
 * (wire = udp:..., sim/platform/port_ext.c); the guest (testbench/interop/rxe-guest: Debian's
 * kernel with rdma_rxe in QEMU) has its data NIC on the other end (-netdev dgram). The
 * out-of-band TCP exchange of the tools goes through the guest's second NIC (QEMU's user
 * network): a host client reaches a guest server through a forwarded port, a guest client
 * reaches a host server at 10.0.2.100.
 *
 * A boot runs one list of steps. Each step is one tool run on both sides, HardRoCE as client
 * (the guest's server started first) or as server (the guest's client retries until the
 * host's server listens). Each must exit 0 on both sides with its report, leave our NIC's
 * counters clean (no drops, NAKs or faults, but where the step is about them), and its
 * capture must pass hroce-pcap check and an independent ICRC check (icrc_check.py, scapy).
 *
 * Boots: the path MTU rxe negotiates on a 1500-byte NIC (1024) with HardRoCE as client,
 * then as server (with ping from the guest, and wrong R_Keys from each side); 4096 on a
 * 4200-byte NIC; and a link that flips a bit in one frame in 20 that we send, which rxe drops
 * (the guest's capture shows the bad ICRCs) and our retransmission recovers, and RoCEv2 over
 * IPv6 by both link-local GIDs (index 0, what the Soft-RoCE tutorials type), each side's
 * MAC found by neighbour discovery, with ping -6 from the guest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "e2e_proc.h"
#include "pcap.h"
#include "roce_wire.h"

#define HOST_IP "192.0.2.10"
#define HOST_LL "fe80::c0ff:fe00:20a" /* HOST_MAC's link-local address */
#define HOST_MAC "02:00:c0:00:02:0a"
#define GUEST_IP "192.0.2.1/24"
#define GUEST_SERVER_PORT 18515u /* a guest server listens here */
#define GUEST_CLIENT_PORT 18516u /* a guest client connects to 10.0.2.100 here */
#define GUEST_GO_PORT 18517u	 /* a guest client waits here for our server to listen */
#define STEP_TIMEOUT_S 150
#define BOOT_TIMEOUT_S 60
#define MAX_STEPS 12

static struct bench b;
static char bindir[1024], srcdir[1040], tmpdir[1100], interop[1040];
static unsigned int port_base;

enum side_of_host {
	HOST_CLIENT, /* the guest serves; we connect */
	HOST_SERVER, /* we serve; the guest connects (and retries until we listen) */
};

struct step {
	const char *name;
	enum side_of_host host;
	const char *prog;	/* the same tool on both sides */
	const char *args;	/* arguments of both sides */
	const char *host_args;	/* of our side only */
	const char *guest_args; /* of the guest's only */
	const char *report;	/* what both outputs hold; NULL: nothing asked */
	bool report_client_only;
	bool ping_first; /* HOST_SERVER: the guest pings us first, while our server waits */
	bool naks;	 /* the step is about errors: NAKs and a QP in error are the point */
};

struct boot {
	const char *name;
	unsigned int mtu;
	const char *faults; /* config lines of our port's faults, or NULL */
	const struct step *steps;
	size_t nsteps;
	unsigned int min_frame; /* a RoCE frame at least this long must cross (the MTU) */
	bool ipv6; /* RoCEv2 over IPv6 by both link-local GIDs (index 0), the guest's IPv6 on */
};

/* ------------------------------------------------------------------------------------- */

static bool contains(const char *path, const char *needle)
{
	char *text = e2e_slurp(path);
	bool found = strstr(text, needle) != NULL;

	free(text);
	return found;
}

/* The guest's exit status for command k, once its console says so; -1 if not yet. */
static int guest_rc(const char *log, unsigned int k)
{
	char *text = e2e_slurp(log), needle[64], *p;
	int rc = -1;

	snprintf(needle, sizeof(needle), "HROCE-GUEST cmd %u rc=", k);
	p = strstr(text, needle);
	if (p)
		rc = atoi(p + strlen(needle));
	free(text);
	return rc;
}

/* Waits until the guest's console has needle, or the guest ended, or the deadline. */
static bool wait_console(pid_t guest, const char *log, const char *needle, time_t deadline)
{
	while (time(NULL) < deadline) {
		if (contains(log, needle))
			return true;
		if (waitpid(guest, NULL, WNOHANG) == guest)
			return contains(log, needle);
		usleep(100000);
	}
	return false;
}

static int run_tool(const char *const *argv, const char *out)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* The longest RoCEv2 frame of a capture (UDP port 4791), 0 if none. */
static size_t longest_roce(const char *path)
{
	static struct pcap_packet pkt;
	struct pcap_file *pf = pcap_open_read(path);
	size_t longest = 0;

	if (!pf)
		return 0;
	while (!pcap_read(pf, &pkt)) {
		struct roce_hdr h;
		const uint8_t *payload;

		/* IPv4 or IPv6, and a good frame: ICRC and lengths checked */
		if (roce_parse(pkt.data, pkt.len, &h, &payload) == ROCE_OK && pkt.len > longest)
			longest = pkt.len;
	}
	pcap_close(pf);
	return longest;
}

/* Does something listen on TCP port of this machine (/proc/net/tcp and tcp6, state 0A)? */
static bool tcp_listening(unsigned int port)
{
	static const char *const tables[] = { "/proc/net/tcp", "/proc/net/tcp6" };

	for (size_t t = 0; t < 2; t++) {
		FILE *f = fopen(tables[t], "r");
		char line[512];

		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':'), *local, *st;

			/* "  N: ADDR:PORT REMADDR:PORT ST ..." */
			local = colon ? strchr(colon + 1, ':') : NULL;
			st = local ? strchr(local + 1, ' ') : NULL;
			st = st ? strchr(st + 1, ' ') : NULL;
			if (local && st && strtoul(local + 1, NULL, 16) == port &&
			    !strncmp(st + 1, "0A", 2)) {
				fclose(f);
				return true;
			}
		}
		fclose(f);
	}
	return false;
}

/*
 * Tells a guest client to go: it waits in "nc -l" behind a forwarded port and sends "go"
 * to whoever connects. QEMU's user network accepts our connection before it reaches the
 * guest, so only the word says the guest got it.
 */
static bool signal_guest(unsigned int port, time_t deadline)
{
	while (time(NULL) < deadline) {
		struct sockaddr_in sa = { .sin_family = AF_INET,
					  .sin_port = htons((uint16_t)port),
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		char word[4] = "";
		bool got = false;

		if (fd >= 0 && !connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			struct pollfd p = { fd, POLLIN, 0 };

			got = poll(&p, 1, 2000) == 1 && read(fd, word, 2) == 2 &&
			      !memcmp(word, "go", 2);
		}
		if (fd >= 0)
			close(fd);
		if (got)
			return true;
		usleep(200000);
	}
	return false;
}

/* ------------------------------------------------------------------------------------- */

struct step_files {
	char config[PATH_MAX], pcap[PATH_MAX];
	struct e2e_side host;
};

static bool write_config(const struct boot *bt, struct step_files *f, unsigned int lport,
			 unsigned int gport)
{
	FILE *c = fopen(f->config, "w");

	if (!c)
		return false;
	fprintf(c,
		"[hroce0]\nspec = sim:hroce0\nmac = %s\nipv4 = %s\n"
		"wire = udp:127.0.0.1:%u,127.0.0.1:%u\npcap = %s\n",
		HOST_MAC, HOST_IP, lport, gport, f->pcap);
	if (bt->faults)
		fprintf(c, "%s\n", bt->faults);
	return fclose(c) == 0;
}

/*
 * The GID of the IPv4 address, index 1 on both sides, or of the link-local IPv6 address,
 * index 0: perftest says -x, the others -g.
 */
static const char *gid_option(const struct boot *bt, const struct step *st)
{
	if (bt->ipv6)
		return strncmp(st->prog, "ib_", 3) ? "-g 0" : "-x 0";
	return strncmp(st->prog, "ib_", 3) ? "-g 1" : "-x 1";
}

/* argv of our side of a step into h->argv (its strings kept in store). */
static void host_argv(const struct boot *bt, const struct step *st, struct e2e_side *h, char *store,
		      size_t len, unsigned int tcp_port)
{
	bool ours = !strcmp(st->prog, "rkey_probe"); /* a program of the project's */
	char *p = store;
	int n = 0;

	snprintf(store, len, "%s%s%s -d hroce0 %s %s %s -p %u%s", ours ? bindir : "",
		 ours ? "/" : "", st->prog, gid_option(bt, st), st->args,
		 st->host_args ? st->host_args : "", tcp_port,
		 st->host == HOST_CLIENT ? " 127.0.0.1" : "");
	/* split on spaces in place */
	while (*p && n < E2E_MAX_ARGS - 1) {
		while (*p == ' ')
			*p++ = 0;
		if (!*p)
			break;
		h->argv[n++] = p;
		while (*p && *p != ' ')
			p++;
	}
	h->argv[n] = NULL;
}

/* The guest's command of a step, in rxe-guest's options (appended to argv). */
static void guest_cmd(const struct boot *bt, const struct step *st, char *cmd, size_t len)
{
	char tool[256];

	snprintf(tool, sizeof(tool), "%s -d rxe0 %s %s%s%s", st->prog, gid_option(bt, st), st->args,
		 st->guest_args ? " " : "", st->guest_args ? st->guest_args : "");
	if (st->host == HOST_CLIENT)
		snprintf(cmd, len, "%s -p %u", tool, GUEST_SERVER_PORT);
	else
		snprintf(cmd, len, "echo go|nc -l -p %u;%s%s -p %u 10.0.2.100", GUEST_GO_PORT,
			 !st->ping_first ? ""
			 : bt->ipv6 ? "until ping -6 -c 3 -W 1 " HOST_LL "%eth0;do sleep 1;done;"
				    : "until ping -c 3 -W 1 " HOST_IP ";do sleep 1;done;",
			 tool, GUEST_CLIENT_PORT);
}

static bool step_check(const struct boot *bt, const struct step *st, struct step_files *f,
		       int guest_status, const char *guest_log, char *why, size_t len)
{
	char *stats = e2e_slurp(f->host.stats);
	bool ok = false;
	/* IPv6 finds MACs by neighbour discovery and answers ping -6 */
	const char *pings = bt->ipv6 ? "net.icmp6_answered" : "net.icmp_answered";
	const char *asked = bt->ipv6 ? "net.nd_solicit_sent" : "net.arp_request_sent";
	const char *learned = bt->ipv6 ? "net.nd_learned" : "net.arp_learned";
	const char *answered = bt->ipv6 ? "net.nd_answered" : "net.arp_answered";

	if (f->host.timed_out)
		snprintf(why, len, "our side timed out");
	else if (!WIFEXITED(f->host.status) || WEXITSTATUS(f->host.status))
		snprintf(why, len, "our side exited with status 0x%x", f->host.status);
	else if (guest_status != 0)
		snprintf(why, len, "the guest's side exited %d", guest_status);
	else if (st->report && (st->host == HOST_CLIENT || !st->report_client_only) &&
		 !contains(f->host.out, st->report))
		snprintf(why, len, "no \"%s\" in our output", st->report);
	else if (st->report && (st->host == HOST_SERVER || !st->report_client_only) &&
		 !contains(guest_log, st->report))
		snprintf(why, len, "no \"%s\" in the guest's output", st->report);
	else if (!st->naks && !e2e_stats_clean(stats, bt->faults != NULL, why, len))
		;
	else if (e2e_stat_of(stats, "port.rx_queue_full") != 0 ||
		 e2e_stat_of(stats, "port.rx_socket_drops") != 0)
		snprintf(why, len,
			 "the port dropped frames: %lld for a full queue, %lld in the socket",
			 e2e_stat_of(stats, "port.rx_queue_full"),
			 e2e_stat_of(stats, "port.rx_socket_drops"));
	else if (e2e_stat_of(stats, "port.tx_frames") < 1 ||
		 e2e_stat_of(stats, "port.rx_frames") < 1)
		snprintf(why, len, "nothing crossed the port (%lld out, %lld in)",
			 e2e_stat_of(stats, "port.tx_frames"),
			 e2e_stat_of(stats, "port.rx_frames"));
	else if (st->ping_first && e2e_stat_of(stats, pings) < 3)
		snprintf(why, len, "the guest's pings were not answered (%s %lld)", pings,
			 e2e_stat_of(stats, pings));
	else if (e2e_stat_of(stats, asked) < 1 &&
		 e2e_stat_of(stats, learned) + e2e_stat_of(stats, answered) < 1)
		snprintf(why, len, "no %s exchange with the guest",
			 bt->ipv6 ? "neighbour discovery" : "ARP");
	else
		ok = true;
	if (ok)
		bench_log(
			&b,
			"%s: %lld frames out, %lld in; %lld flipped on our side, %lld ACK timeouts "
			"and %lld NAKs received",
			st->name, e2e_stat_of(stats, "port.tx_frames"),
			e2e_stat_of(stats, "port.rx_frames"),
			e2e_stat_of(stats, "port.fault_flipped"),
			e2e_stat_of(stats, "core.retry_timeout"),
			e2e_stat_of(stats, "core.rx_nak"));
	free(stats);
	return ok;
}

/*
 * One boot: the guest with every step's command, then our side of each step in turn,
 * then the captures.
 */
static void run_boot(const struct boot *bt, unsigned int boot_no)
{
	unsigned int lport = port_base + boot_no * 8, gport = lport + 1, hostfwd = lport + 2;
	char dir[1200], log[PATH_MAX + 16], gpcap[PATH_MAX + 16], runner[PATH_MAX + 32];
	char cmds[MAX_STEPS][512], opt_ip[64], opt[MAX_STEPS + 1][32], arg[6][32];
	struct step_files files[MAX_STEPS];
	const char *argv[64];
	size_t ran = 0;
	int n = 0;
	pid_t guest;
	time_t deadline;
	char name[96];

	snprintf(dir, sizeof(dir), "%s/%s", tmpdir, bt->name);
	mkdir(dir, 0755);
	snprintf(log, sizeof(log), "%s/guest.log", dir);
	snprintf(gpcap, sizeof(gpcap), "%s/guest.pcap", dir);
	snprintf(runner, sizeof(runner), "%s/testbench/interop/rxe-guest", srcdir);
	snprintf(arg[0], sizeof(arg[0]), "%u", gport);
	snprintf(arg[1], sizeof(arg[1]), "%u", lport);
	snprintf(arg[2], sizeof(arg[2]), "%u", bt->mtu);
	snprintf(arg[3], sizeof(arg[3]), "%u:%u", hostfwd, GUEST_SERVER_PORT);
	snprintf(arg[4], sizeof(arg[4]), "%u:%u", GUEST_CLIENT_PORT, hostfwd + 1);
	snprintf(arg[5], sizeof(arg[5]), "%u:%u", hostfwd + 3, GUEST_GO_PORT);
	snprintf(opt_ip, sizeof(opt_ip), "%s", GUEST_IP);
	argv[n++] = runner;
	argv[n++] = "--local-port";
	argv[n++] = arg[0];
	argv[n++] = "--remote-port";
	argv[n++] = arg[1];
	argv[n++] = "--ip";
	argv[n++] = opt_ip;
	argv[n++] = "--mtu";
	argv[n++] = arg[2];
	if (bt->ipv6) {
		argv[n++] = "--ipv6";
		argv[n++] = "on";
	}
	argv[n++] = "--hostfwd";
	argv[n++] = arg[3];
	argv[n++] = "--guestfwd";
	argv[n++] = arg[4];
	argv[n++] = "--hostfwd";
	argv[n++] = arg[5];
	argv[n++] = "--timeout";
	argv[n++] = "900";
	argv[n++] = "--dir";
	argv[n++] = interop;
	argv[n++] = "--pcap";
	argv[n++] = gpcap;
	argv[n++] = "--log";
	argv[n++] = log;
	for (size_t i = 0; i < bt->nsteps; i++) {
		const struct step *st = &bt->steps[i];

		guest_cmd(bt, st, cmds[i], sizeof(cmds[i]));
		if (st->host == HOST_CLIENT) {
			snprintf(opt[i], sizeof(opt[i]), "%u", GUEST_SERVER_PORT);
			argv[n++] = "--server";
			argv[n++] = opt[i];
		} else {
			argv[n++] = "--run";
		}
		argv[n++] = cmds[i];
	}
	argv[n] = NULL;

	unlink(log);
	guest = fork();
	if (guest == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		execv(runner, (char *const *)argv);
		_exit(127);
	}
	snprintf(name, sizeof(name), "%s_boot", bt->name);
	deadline = time(NULL) + BOOT_TIMEOUT_S;
	if (!bench_result(&b, name, wait_console(guest, log, "HROCE-GUEST ready", deadline),
			  "the guest did not come up in %d s (console: %s)", BOOT_TIMEOUT_S, log)) {
		e2e_show_tail("guest console", log);
		kill(guest, SIGKILL);
		waitpid(guest, NULL, 0);
		return;
	}

	for (size_t i = 0; i < bt->nsteps; i++) {
		const struct step *st = &bt->steps[i];
		struct step_files *f = &files[i];
		char store[1600], marker[96], why[256] = "";
		int grc = -1;
		bool ok;

		memset(f, 0, sizeof(*f));
		snprintf(name, sizeof(name), "%s_%s", bt->name, st->name);
		snprintf(f->config, sizeof(f->config), "%s/step%zu.conf", dir, i);
		snprintf(f->pcap, sizeof(f->pcap), "%s/step%zu.pcap", dir, i);
		snprintf(f->host.out, sizeof(f->host.out), "%s/step%zu.out", dir, i);
		snprintf(f->host.stats, sizeof(f->host.stats), "%s/step%zu.stats", dir, i);
		if (!write_config(bt, f, lport, gport)) {
			bench_result(&b, name, false, "cannot write %s", f->config);
			continue;
		}
		host_argv(bt, st, &f->host, store, sizeof(store),
			  st->host == HOST_CLIENT ? hostfwd : hostfwd + 1);
		deadline = time(NULL) + STEP_TIMEOUT_S;
		if (st->host == HOST_CLIENT) {
			snprintf(marker, sizeof(marker), "HROCE-GUEST cmd %zu listening tcp %u",
				 i + 1, GUEST_SERVER_PORT);
			if (!wait_console(guest, log, marker, deadline)) {
				bench_result(&b, name, false, "the guest's server did not listen");
				e2e_show_tail("guest console", log);
				break;
			}
		}
		e2e_spawn(bindir, &f->host, f->config);
		ran++;
		if (st->host == HOST_SERVER) {
			/* once our server listens, the guest's client may start */
			while (!tcp_listening(hostfwd + 1) && time(NULL) < deadline &&
			       waitpid(f->host.pid, &f->host.status, WNOHANG) == 0)
				usleep(50000);
			if (!signal_guest(hostfwd + 3, deadline))
				bench_log(&b, "%s: the guest's client did not take the go", name);
		}
		e2e_reap(&f->host, deadline);
		snprintf(marker, sizeof(marker), "HROCE-GUEST cmd %zu rc=", i + 1);
		if (wait_console(guest, log, marker, f->host.timed_out ? time(NULL) + 1 : deadline))
			grc = guest_rc(log, (unsigned int)i + 1);
		ok = step_check(bt, st, f, grc, log, why, sizeof(why));
		if (!ok) {
			e2e_show_tail("our side", f->host.out);
			e2e_show_tail("guest console", log);
		}
		bench_result(&b, name, ok, "%s", why);
		if (grc < 0)
			break; /* the guest is stuck in this step: the rest cannot run */
	}

	/* the guest powers off after its last command */
	if (!wait_console(guest, log, "HROCE-GUEST done", time(NULL) + 30))
		kill(guest, SIGKILL);
	waitpid(guest, NULL, 0);

	/* every frame of our captures, through our receive path and an independent ICRC check */
	{
		const char *pc[MAX_STEPS + 3], *ic[MAX_STEPS + 3];
		char hp[PATH_MAX + 16], icrc[PATH_MAX + 32], out[PATH_MAX + 16];
		size_t longest = 0;
		int rc;

		if (!ran)
			return;
		snprintf(hp, sizeof(hp), "%s/hroce-pcap", bindir);
		snprintf(icrc, sizeof(icrc), "%s/testbench/interop/icrc_check.py", srcdir);
		pc[0] = hp;
		pc[1] = "check";
		ic[0] = icrc;
		for (size_t i = 0; i < ran; i++) {
			size_t l = longest_roce(files[i].pcap);

			pc[2 + i] = ic[1 + i] = files[i].pcap;
			longest = l > longest ? l : longest;
		}
		pc[2 + ran] = ic[1 + ran] = NULL;
		snprintf(name, sizeof(name), "%s_hroce_pcap_check", bt->name);
		snprintf(out, sizeof(out), "%s/hroce-pcap.out", dir);
		rc = run_tool(pc, out);
		if (!bench_result(&b, name, rc == 0, "hroce-pcap check exited %d (%s)", rc, out))
			e2e_show_tail("hroce-pcap", out);
		snprintf(name, sizeof(name), "%s_icrc_check", bt->name);
		snprintf(out, sizeof(out), "%s/icrc_check.out", dir);
		rc = run_tool(ic, out);
		if (!bench_result(&b, name, rc == 0, "icrc_check.py exited %d (%s)", rc, out))
			e2e_show_tail("icrc_check.py", out);
		snprintf(name, sizeof(name), "%s_path_mtu", bt->name);
		bench_result(&b, name, longest >= bt->min_frame && longest <= bt->mtu + 14u,
			     "the longest RoCE frame was %zu bytes: not between %u and %u", longest,
			     bt->min_frame, bt->mtu + 14);
		if (bt->faults) {
			/* rxe dropped what we flipped: the guest's own capture shows bad ICRCs */
			const char *g[] = { icrc, gpcap, NULL };

			snprintf(name, sizeof(name), "%s_rxe_saw_bad_icrc", bt->name);
			snprintf(out, sizeof(out), "%s/icrc_guest.out", dir);
			rc = run_tool(g, out);
			bench_result(&b, name, rc == 1,
				     "icrc_check.py on the guest's capture exited %d", rc);
		}
	}
}

/* HardRoCE as client: the guest serves every tool */
static const struct step as_client[] = {
	{ "rc_pingpong_1pkt", HOST_CLIENT, "ibv_rc_pingpong", "-s 1024 -n 5 -c", NULL, NULL,
	  "iters in", false, false, false },
	{ "rc_pingpong_8pkt", HOST_CLIENT, "ibv_rc_pingpong", "-s 8192 -n 5 -c", NULL, NULL,
	  "iters in", false, false, false },
	{ "write_bw", HOST_CLIENT, "ib_write_bw", "-s 4096 -n 10", NULL, NULL, "BW average", false,
	  false, false },
	{ "read_bw", HOST_CLIENT, "ib_read_bw", "-s 4096 -n 10", NULL, NULL, "BW average", false,
	  false, false },
	{ "send_bw", HOST_CLIENT, "ib_send_bw", "-s 4096 -n 10", NULL, NULL, "BW average", false,
	  false, false },
	{ "write_lat", HOST_CLIENT, "ib_write_lat", "-s 64 -n 10", NULL, NULL, "t_avg", false,
	  false, false },
	{ "read_lat", HOST_CLIENT, "ib_read_lat", "-s 64 -n 10", NULL, NULL, "t_avg", true, false,
	  false },
	{ "send_lat", HOST_CLIENT, "ib_send_lat", "-s 64 -n 10", NULL, NULL, "t_avg", false, false,
	  false },
	/* we WRITE with a wrong R_Key: rxe NAKs, its QP goes to error */
	{ "rkey_we_write", HOST_CLIENT, "rkey_probe", "-o write", NULL, NULL,
	  "rkey_probe result=pass", false, false, true },
	/* rxe READs from us with a wrong R_Key: we NAK, our QP goes to error */
	{ "rkey_rxe_reads", HOST_CLIENT, "rkey_probe", "-o read -r server", NULL, NULL,
	  "rkey_probe result=pass", false, false, true },
};

/* HardRoCE as server: the guest's clients connect to us */
static const struct step as_server[] = {
	{ "rc_pingpong_1pkt", HOST_SERVER, "ibv_rc_pingpong", "-s 1024 -n 5 -c", NULL, NULL,
	  "iters in", false, true, false },
	{ "rc_pingpong_8pkt", HOST_SERVER, "ibv_rc_pingpong", "-s 8192 -n 5 -c", NULL, NULL,
	  "iters in", false, false, false },
	{ "write_bw", HOST_SERVER, "ib_write_bw", "-s 4096 -n 10", NULL, NULL, "BW average", false,
	  false, false },
	{ "read_bw", HOST_SERVER, "ib_read_bw", "-s 4096 -n 10", NULL, NULL, "BW average", false,
	  false, false },
	{ "send_bw", HOST_SERVER, "ib_send_bw", "-s 4096 -n 10", NULL, NULL, "BW average", false,
	  false, false },
	{ "write_lat", HOST_SERVER, "ib_write_lat", "-s 64 -n 10", NULL, NULL, "t_avg", false,
	  false, false },
	{ "read_lat", HOST_SERVER, "ib_read_lat", "-s 64 -n 10", NULL, NULL, "t_avg", true, false,
	  false },
	{ "send_lat", HOST_SERVER, "ib_send_lat", "-s 64 -n 10", NULL, NULL, "t_avg", false, false,
	  false },
	/* rxe WRITEs to us with a wrong R_Key; we READ from rxe with one */
	{ "rkey_rxe_writes", HOST_SERVER, "rkey_probe", "-o write", NULL, NULL,
	  "rkey_probe result=pass", false, false, true },
	{ "rkey_we_read", HOST_SERVER, "rkey_probe", "-o read -r server", NULL, NULL,
	  "rkey_probe result=pass", false, false, true },
};

/* A 4200-byte guest NIC: rxe's active MTU is 4096 */
static const struct step mtu4096[] = {
	{ "rc_pingpong_client", HOST_CLIENT, "ibv_rc_pingpong", "-m 4096 -s 16384 -n 5 -c", NULL,
	  NULL, "iters in", false, false, false },
	{ "rc_pingpong_server", HOST_SERVER, "ibv_rc_pingpong", "-m 4096 -s 16384 -n 5 -c", NULL,
	  NULL, "iters in", false, false, false },
	{ "write_bw", HOST_CLIENT, "ib_write_bw", "-s 16384 -n 10", NULL, NULL, "BW average", false,
	  false, false },
};

/* One frame in 20 that we send has a bit flipped where the ICRC sees it */
static const struct step flips[] = {
	{ "rc_pingpong_client", HOST_CLIENT, "ibv_rc_pingpong", "-s 8192 -n 20 -c", NULL, NULL,
	  "iters in", false, false, false },
	{ "write_bw", HOST_CLIENT, "ib_write_bw", "-s 4096 -n 50", NULL, NULL, "BW average", false,
	  false, false },
	{ "rc_pingpong_server", HOST_SERVER, "ibv_rc_pingpong", "-s 8192 -n 20 -c", NULL, NULL,
	  "iters in", false, false, false },
};

/* RoCEv2 over IPv6 by both link-local GIDs: neighbour discovery both ways, ping -6 */
static const struct step ipv6[] = {
	{ "rc_pingpong_client", HOST_CLIENT, "ibv_rc_pingpong", "-s 8192 -n 5 -c", NULL, NULL,
	  "iters in", false, false, false },
	{ "rc_pingpong_server", HOST_SERVER, "ibv_rc_pingpong", "-s 8192 -n 5 -c", NULL, NULL,
	  "iters in", false, true, false },
	{ "write_bw", HOST_CLIENT, "ib_write_bw", "-s 4096 -n 10", NULL, NULL, "BW average", false,
	  false, false },
	{ "read_bw", HOST_SERVER, "ib_read_bw", "-s 4096 -n 10", NULL, NULL, "BW average", false,
	  false, false },
	{ "send_lat", HOST_CLIENT, "ib_send_lat", "-s 64 -n 10", NULL, NULL, "t_avg", false, false,
	  false },
};

#define BOOT(name, mtu, faults, steps, min_frame, ipv6)                                     \
	{                                                                                   \
		name, mtu, faults, steps, sizeof(steps) / sizeof(steps[0]), min_frame, ipv6 \
	}

int main(int argc, char **argv)
{
	static const struct boot boots[] = {
		BOOT("mtu1024_client", 1500, NULL, as_client, 1024, false),
		BOOT("mtu1024_server", 1500, NULL, as_server, 1024, false),
		BOOT("mtu4096", 4200, NULL, mtu4096, 4096, false),
		BOOT("flips", 1500, "flip = 0.05\nfault_seed = 3", flips, 1024, false),
		BOOT("ipv6", 1500, NULL, ipv6, 1024, true),
	};
	bench_init(&b, "test_interop", argc, argv);
	if (!e2e_dirs(bindir, sizeof(bindir), tmpdir, sizeof(tmpdir), "interop"))
		return 1;
	snprintf(srcdir, sizeof(srcdir), "%s/../..", bindir);
	snprintf(interop, sizeof(interop), "%s/../interop", bindir);
	port_base = 30000 + (unsigned int)(getpid() % 2000) * 16;
	for (size_t i = 0; i < sizeof(boots) / sizeof(boots[0]); i++)
		run_boot(&boots[i], (unsigned int)i);
	return bench_finish(&b);
}
