// SPDX-License-Identifier: MIT
/*
 * End to end: Debian's unmodified verbs programs (ibverbs-utils, perftest) run through
 * hroce-run, a server on hroce0 and a client on hroce1, in two processes whose simulated
 * NICs share a wire; the out-of-band exchange is perftest's own TCP on loopback.
 *
 * Each run must exit 0 on both sides, print its report, and leave the NICs' counters
 * (written by the provider at close, $HROCE_STATS) with the packets it implies, no ICRC or
 * other receive errors, no protection NAKs, no DMA errors and no IOVA faults. Options the
 * core cannot serve must fail cleanly (an exit status, not a hang).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "e2e_proc.h"

#define RUN_TIMEOUT_S 240

static struct bench b;
/* short enough that every path made from them fits PATH_MAX */
static char bindir[1024], tmpdir[2048];
static unsigned int port_base, run_no;

/*
 * The two default devices, on a wire of run id only: its configuration file; with loss,
 * each device's port loses that share of what it sends.
 */
static bool write_config(unsigned int id, double loss, char *config, size_t config_len, char *wire,
			 size_t wire_len)
{
	FILE *f;

	snprintf(config, config_len, "%s/run%u.conf", tmpdir, id);
	snprintf(wire, wire_len, "hroce-test-%d-%u", (int)getpid(), id);
	f = fopen(config, "w");
	if (!f)
		return false;
	for (int d = 0; d < 2; d++) {
		/* GIDs: 0 fe80::0:aff:fe00:N (link-local), 1 ::ffff:10.0.0.N, 2 fd00::N */
		fprintf(f,
			"[hroce%d]\nmac = 02:00:0a:00:00:0%d\nipv4 = 10.0.0.%d\nipv6 = fd00::%d\n"
			"wire = %s\nport = %d\n",
			d, d + 1, d + 1, d + 1, wire, d);
		if (loss > 0)
			fprintf(f, "loss = %g\nfault_seed = %u\n", loss,
				id * 2 + (unsigned int)d + 1);
		fprintf(f, "\n");
	}
	return fclose(f) == 0;
}

struct expect {
	const char *report;   /* a line of the output that must be there */
	long long min_frames; /* frames the client must have sent at least */
	bool must_fail;	      /* an unsupported option: both exit non-zero, no hang */
	bool client_report;   /* only the client prints a report (ib_read_lat) */
	double loss;	      /* the wire loses this share of the frames each way */
	bool ipv6;	      /* over IPv6: neighbour discovery, not ARP, finds the MACs */
};

/*
 * Runs a server and a client; argv lists end with NULL; the client's gets the server's
 * address appended. Returns true when everything expected was seen.
 */
static bool run_pair(const char *name, const char *const *server, const char *const *client,
		     const struct expect *e)
{
	struct e2e_side s = { 0 }, c = { 0 };
	char config[PATH_MAX], port[16], why[256] = "", wire[64];
	char *s_stats = NULL, *c_stats = NULL, *c_out = NULL, *s_out = NULL;
	unsigned int n = 0, id = run_no++;
	bool ok = true;
	const char *asked = e->ipv6 ? "net.nd_solicit_sent" : "net.arp_request_sent";
	const char *answered = e->ipv6 ? "net.nd_answered" : "net.arp_answered";

	snprintf(port, sizeof(port), "%u", port_base + id);
	if (!write_config(id, e->loss, config, sizeof(config), wire, sizeof(wire)))
		return bench_result(&b, name, false, "cannot write %s", config);
	for (n = 0; server[n]; n++)
		s.argv[n] = server[n];
	if (strncmp(server[0], "ibv_", 4) || !strcmp(server[0], "ibv_rc_pingpong")) {
		s.argv[n++] = "-p";
		s.argv[n++] = port;
	}
	for (n = 0; client[n]; n++)
		c.argv[n] = client[n];
	c.argv[n++] = "-p";
	c.argv[n++] = port;
	c.argv[n++] = "127.0.0.1";
	snprintf(s.out, sizeof(s.out), "%s/run%u-server.out", tmpdir, id);
	snprintf(c.out, sizeof(c.out), "%s/run%u-client.out", tmpdir, id);
	snprintf(s.stats, sizeof(s.stats), "%s/run%u-server.stats", tmpdir, id);
	snprintf(c.stats, sizeof(c.stats), "%s/run%u-client.stats", tmpdir, id);
	e2e_spawn(bindir, &s, config);
	usleep(500000); /* perftest's client does not retry its TCP connect for long */
	e2e_spawn(bindir, &c, config);
	e2e_reap(&c, time(NULL) + RUN_TIMEOUT_S);
	e2e_reap(&s, time(NULL) + (c.timed_out ? 1 : 30));
	shm_unlink(wire); /* wires stay in /dev/shm until removed */
	s_out = e2e_slurp(s.out);
	c_out = e2e_slurp(c.out);
	s_stats = e2e_slurp(s.stats);
	c_stats = e2e_slurp(c.stats);
	if (s.timed_out || c.timed_out) {
		snprintf(why, sizeof(why), "%s timed out", c.timed_out ? "client" : "server");
		ok = false;
	} else if (e->must_fail) {
		if (WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0) {
			snprintf(why, sizeof(why),
				 "the client exited 0 with an unsupported option");
			ok = false;
		}
	} else if (!WIFEXITED(s.status) || WEXITSTATUS(s.status) || !WIFEXITED(c.status) ||
		   WEXITSTATUS(c.status)) {
		snprintf(why, sizeof(why), "exit status: server %d, client %d", s.status, c.status);
		ok = false;
	} else if (e->report && (!strstr(c_out, e->report) ||
				 (!e->client_report && !strstr(s_out, e->report)))) {
		snprintf(why, sizeof(why), "no \"%s\" in the reports", e->report);
		ok = false;
	} else if (!e2e_stats_clean(s_stats, e->loss > 0, why, sizeof(why)) ||
		   !e2e_stats_clean(c_stats, e->loss > 0, why, sizeof(why))) {
		ok = false;
	} else if (e2e_stat_of(c_stats, asked) + e2e_stat_of(s_stats, asked) < 1 ||
		   e2e_stat_of(c_stats, answered) + e2e_stat_of(s_stats, answered) < 1) {
		/*
		 * whichever side reached RTR first found the other's MAC by ARP or neighbour
		 * discovery (the other learned it from the request, as Linux does)
		 */
		snprintf(why, sizeof(why),
			 "no %s exchange: requests %lld + %lld, answers %lld + %lld",
			 e->ipv6 ? "neighbour discovery" : "ARP", e2e_stat_of(c_stats, asked),
			 e2e_stat_of(s_stats, asked), e2e_stat_of(c_stats, answered),
			 e2e_stat_of(s_stats, answered));
		ok = false;
	} else if (e2e_stat_of(c_stats, "core.tx_frames") < e->min_frames ||
		   e2e_stat_of(s_stats, "rx.ok") < 1) {
		snprintf(why, sizeof(why),
			 "client sent %lld frames (at least %lld expected), "
			 "server received %lld",
			 e2e_stat_of(c_stats, "core.tx_frames"), e->min_frames,
			 e2e_stat_of(s_stats, "rx.ok"));
		ok = false;
	}
	if (!ok) {
		e2e_show_tail("server", s.out);
		e2e_show_tail("client", c.out);
	} else {
		printf("# %s: client sent %lld frames, received %lld; the wire lost %lld + %lld, "
		       "recovered by %lld + %lld ACK timeouts and %lld + %lld NAKs\n",
		       name, e2e_stat_of(c_stats, "core.tx_frames"), e2e_stat_of(c_stats, "rx.ok"),
		       e2e_stat_of(c_stats, "wire.fault_dropped_random"),
		       e2e_stat_of(s_stats, "wire.fault_dropped_random"),
		       e2e_stat_of(c_stats, "core.retry_timeout"),
		       e2e_stat_of(s_stats, "core.retry_timeout"),
		       e2e_stat_of(c_stats, "core.rx_nak"), e2e_stat_of(s_stats, "core.rx_nak"));
	}
	free(s_out);
	free(c_out);
	free(s_stats);
	free(c_stats);
	return bench_result(&b, name, ok, "%s", why);
}

/* A single program (ibv_devices, ibv_devinfo): exit 0 and every needle in its output. */
static void run_one(const char *name, const char *const *argv, const char *const *needles)
{
	struct e2e_side s = { 0 };
	char config[PATH_MAX], wire[64];
	char *out;
	bool ok = true;
	char why[256] = "";

	/* not the default wire, which a user's own runs may hold */
	if (!write_config(run_no++, 0, config, sizeof(config), wire, sizeof(wire))) {
		bench_result(&b, name, false, "cannot write %s", config);
		return;
	}
	for (int i = 0; argv[i]; i++)
		s.argv[i] = argv[i];
	snprintf(s.out, sizeof(s.out), "%s/%s.out", tmpdir, name);
	snprintf(s.stats, sizeof(s.stats), "%s/%s.stats", tmpdir, name);
	e2e_spawn(bindir, &s, config);
	e2e_reap(&s, time(NULL) + 60);
	shm_unlink(wire);
	out = e2e_slurp(s.out);
	if (s.timed_out || !WIFEXITED(s.status) || WEXITSTATUS(s.status)) {
		snprintf(why, sizeof(why), "exit status %d%s", s.status,
			 s.timed_out ? " (timed out)" : "");
		ok = false;
	}
	for (int i = 0; ok && needles[i]; i++) {
		if (!strstr(out, needles[i])) {
			snprintf(why, sizeof(why), "no \"%s\" in the output", needles[i]);
			ok = false;
		}
	}
	if (!ok)
		e2e_show_tail(name, s.out);
	free(out);
	bench_result(&b, name, ok, "%s", why);
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

int main(int argc, char **argv)
{
	bench_init(&b, "test_perftest", argc, argv);
	if (!e2e_dirs(bindir, sizeof(bindir), tmpdir, sizeof(tmpdir), "perftest"))
		return 1;
	port_base = 20000 + (getpid() % 20000);

	run_one("ibv_devices", ARGS("ibv_devices"), ARGS("hroce0", "hroce1"));
	run_one("ibv_devinfo", ARGS("ibv_devinfo", "-v", "-d", "hroce0"),
		ARGS("hca_id:\throce0", "PORT_ACTIVE", "Ethernet", "::ffff:10.0.0.1",
		     "fe80::aff:fe00:1", "fd00::1", "RoCE v2", "max_qp_rd_atom"));

	/* RoCEv2 over IPv6: the link-local GID (what the Soft-RoCE tutorials type), and a
	 * configured global one; the peer's MAC found by neighbour discovery */
	run_pair("ibv_rc_pingpong-g0",
		 ARGS("ibv_rc_pingpong", "-d", "hroce0", "-g", "0", "-n", "20"),
		 ARGS("ibv_rc_pingpong", "-d", "hroce1", "-g", "0", "-n", "20"),
		 &(struct expect){ "iters in", 20, false, false, 0, true });
	run_pair("ibv_rc_pingpong-g0-c-s8192",
		 ARGS("ibv_rc_pingpong", "-d", "hroce0", "-g", "0", "-n", "20", "-s", "8192", "-c"),
		 ARGS("ibv_rc_pingpong", "-d", "hroce1", "-g", "0", "-n", "20", "-s", "8192", "-c"),
		 &(struct expect){ "iters in", 20, false, false, 0, true });
	run_pair("ibv_rc_pingpong-g2",
		 ARGS("ibv_rc_pingpong", "-d", "hroce0", "-g", "2", "-n", "20", "-s", "8192"),
		 ARGS("ibv_rc_pingpong", "-d", "hroce1", "-g", "2", "-n", "20", "-s", "8192"),
		 &(struct expect){ "iters in", 20, false, false, 0, true });
	static const struct {
		const char *prog, *size, *iters, *report, *gid;
	} perf6[] = {
		{ "ib_write_bw", "65536", "100", "BW average", "0" },
		{ "ib_read_bw", "65536", "100", "BW average", "0" },
		{ "ib_send_lat", "8", "100", "t_avg", "0" },
		{ "ib_write_bw", "65536", "100", "BW average", "2" },
		{ "ib_send_lat", "8", "100", "t_avg", "2" },
	};
	for (size_t i = 0; i < sizeof(perf6) / sizeof(perf6[0]); i++) {
		char name[96];

		snprintf(name, sizeof(name), "%s-s%s-x%s", perf6[i].prog, perf6[i].size,
			 perf6[i].gid);
		run_pair(name,
			 ARGS(perf6[i].prog, "-d", "hroce0", "-s", perf6[i].size, "-n",
			      perf6[i].iters, "-F", "-x", perf6[i].gid),
			 ARGS(perf6[i].prog, "-d", "hroce1", "-s", perf6[i].size, "-n",
			      perf6[i].iters, "-F", "-x", perf6[i].gid),
			 &(struct expect){ perf6[i].report, atoll(perf6[i].iters), false, false, 0,
					   true });
	}

	run_pair("ibv_rc_pingpong",
		 ARGS("ibv_rc_pingpong", "-d", "hroce0", "-g", "1", "-n", "50", "-s", "8192", "-c"),
		 ARGS("ibv_rc_pingpong", "-d", "hroce1", "-g", "1", "-n", "50", "-s", "8192", "-c"),
		 &(struct expect){ "iters in", 50, false, false, 0, false });

	static const struct {
		const char *prog, *size, *iters, *report;
		bool events;
	} perf[] = {
		{ "ib_write_bw", "64", "500", "BW average", false },
		{ "ib_write_bw", "65536", "200", "BW average", false },
		{ "ib_read_bw", "64", "500", "BW average", false },
		{ "ib_read_bw", "65536", "200", "BW average", false },
		{ "ib_send_bw", "64", "500", "BW average", false },
		{ "ib_send_bw", "65536", "200", "BW average", false },
		{ "ib_write_lat", "8", "200", "t_avg", false },
		{ "ib_write_lat", "16384", "100", "t_avg", false },
		{ "ib_read_lat", "8", "200", "t_avg", false },
		{ "ib_read_lat", "16384", "100", "t_avg", false },
		{ "ib_send_lat", "8", "200", "t_avg", false },
		{ "ib_send_lat", "16384", "100", "t_avg", false },
		{ "ib_send_bw", "4096", "200", "BW average", true },
		{ "ib_read_bw", "4096", "200", "BW average", true },
	};
	for (size_t i = 0; i < sizeof(perf) / sizeof(perf[0]); i++) {
		char name[96];
		const char *ev = perf[i].events ? "-e" : NULL;

		snprintf(name, sizeof(name), "%s-s%s%s", perf[i].prog, perf[i].size,
			 perf[i].events ? "-e" : "");
		run_pair(name,
			 ARGS(perf[i].prog, "-d", "hroce0", "-s", perf[i].size, "-n", perf[i].iters,
			      "-F", ev),
			 ARGS(perf[i].prog, "-d", "hroce1", "-s", perf[i].size, "-n", perf[i].iters,
			      "-F", ev),
			 &(struct expect){ perf[i].report, atoll(perf[i].iters), false,
					   !strcmp(perf[i].prog, "ib_read_lat"), 0, false });
	}
	/* at 0.1 % loss each way: the core's retransmission gets every run through */
	static const char *const lossy[][3] = {
		{ "ib_write_bw", "65536", "200" },
		{ "ib_read_bw", "65536", "200" },
		{ "ib_send_bw", "65536", "200" },
	};
	for (size_t i = 0; i < sizeof(lossy) / sizeof(lossy[0]); i++) {
		char name[96];

		snprintf(name, sizeof(name), "%s-s%s-loss0.1%%", lossy[i][0], lossy[i][1]);
		run_pair(name,
			 ARGS(lossy[i][0], "-d", "hroce0", "-s", lossy[i][1], "-n", lossy[i][2],
			      "-F"),
			 ARGS(lossy[i][0], "-d", "hroce1", "-s", lossy[i][1], "-n", lossy[i][2],
			      "-F"),
			 &(struct expect){ "BW average", atoll(lossy[i][2]), false, false, 0.001,
					   false });
	}
	run_pair("ibv_rc_pingpong-loss0.1%",
		 ARGS("ibv_rc_pingpong", "-d", "hroce0", "-g", "1", "-n", "50", "-s", "8192", "-c"),
		 ARGS("ibv_rc_pingpong", "-d", "hroce1", "-g", "1", "-n", "50", "-s", "8192", "-c"),
		 &(struct expect){ "iters in", 50, false, false, 0.001, false });
	/* rdma_cm needs the kernel's rdma_ucm: refused, not hung */
	run_pair("ib_write_bw-R-refused", ARGS("ib_write_bw", "-d", "hroce0", "-R"),
		 ARGS("ib_write_bw", "-d", "hroce1", "-R"),
		 &(struct expect){ NULL, 0, true, false, 0, false });
	return bench_finish(&b);
}
