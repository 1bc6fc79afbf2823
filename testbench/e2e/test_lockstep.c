// SPDX-License-Identifier: MIT
/*
 * Lockstep ($HROCE_LOCKSTEP=1): Debian's unmodified perftest, a server on hroce0 and a
 * client on hroce1 in two processes on a shared-memory wire, run twice; both NICs' pcaps
 * (simulated-ns timestamps) must be the same run after run: every frame at the same
 * nanosecond, of the same length, with the same headers.
 *
 * What may differ is what the program itself draws at random: perftest takes its PSNs
 * from lrand48() seeded with its pid and the time, and sends buffers it never cleared.
 * So a frame's bytes are compared up to its BTH's PSN (Ethernet, IP, UDP, the BTH's
 * opcode, flags, P_Key and destination QP); its time and length in full.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "e2e_proc.h"
#include "pcap.h"

#define RUN_TIMEOUT_S 240
/* the BTH's PSN: Ethernet 14, IPv4 20, UDP 8, then 9 bytes of the BTH */
#define PSN_OFFSET 51
#define MAX_FRAMES 100000

static struct bench b;
static char bindir[1024], tmpdir[2048];
static unsigned int port_base, run_no;

struct frame {
	uint64_t ns;
	size_t len;
	uint8_t head[PSN_OFFSET];
};

struct capture {
	struct frame *f;
	size_t n;
};

static bool load(const char *path, struct capture *c)
{
	static struct pcap_packet pkt;
	struct pcap_file *pf = pcap_open_read(path);

	c->n = 0;
	c->f = calloc(MAX_FRAMES, sizeof(*c->f));
	if (!pf || !c->f) {
		if (pf)
			pcap_close(pf);
		return false;
	}
	while (c->n < MAX_FRAMES && pcap_read(pf, &pkt) == 0) {
		struct frame *f = &c->f[c->n++];

		f->ns = pkt.ts_ns;
		f->len = pkt.orig_len;
		memcpy(f->head, pkt.data, pkt.len < PSN_OFFSET ? pkt.len : PSN_OFFSET);
	}
	pcap_close(pf);
	return true;
}

/* The first difference between two captures into why; true if there is none. */
static bool same(const struct capture *x, const struct capture *y, char *why, size_t len)
{
	size_t n = x->n < y->n ? x->n : y->n;

	for (size_t i = 0; i < n; i++) {
		const struct frame *a = &x->f[i], *c = &y->f[i];

		if (a->ns != c->ns || a->len != c->len || memcmp(a->head, c->head, PSN_OFFSET)) {
			snprintf(
				why, len,
				"frame %zu: %llu ns, %zu bytes in one run; %llu ns, %zu bytes%s in "
				"the other",
				i + 1, (unsigned long long)a->ns, a->len, (unsigned long long)c->ns,
				c->len,
				memcmp(a->head, c->head, PSN_OFFSET) ? ", other headers" : "");
			return false;
		}
	}
	if (x->n != y->n) {
		snprintf(why, len, "%zu frames in one run, %zu in the other", x->n, y->n);
		return false;
	}
	return true;
}

/* Both devices on a wire of their own, each with its pcap: run id's configuration. */
static bool write_config(unsigned int id, char *config, size_t len, char *wire, size_t wire_len)
{
	FILE *f;

	snprintf(config, len, "%s/run%u.conf", tmpdir, id);
	snprintf(wire, wire_len, "hroce-lockstep-%d-%u", (int)getpid(), id);
	f = fopen(config, "w");
	if (!f)
		return false;
	for (int d = 0; d < 2; d++)
		fprintf(f,
			"[hroce%d]\nmac = 02:00:0a:00:00:0%d\nipv4 = 10.0.0.%d\nwire = %s\n"
			"port = %d\npcap = %s/run%u-%d.pcap\n\n",
			d, d + 1, d + 1, wire, d, tmpdir, id, d);
	return fclose(f) == 0;
}

/* One run of the pair; its pcaps' paths into pcap[2]; false (why filled) if it failed. */
static bool run_once(const char *const *argv, const char *report, char pcap[2][PATH_MAX], char *why,
		     size_t why_len)
{
	struct e2e_side side[2] = { 0 };
	char config[PATH_MAX], wire[64], port[16], *out[2];
	unsigned int id = run_no++;
	bool ok = true;

	if (!write_config(id, config, sizeof(config), wire, sizeof(wire))) {
		snprintf(why, why_len, "cannot write the configuration of run %u", id);
		return false;
	}
	snprintf(port, sizeof(port), "%u", port_base + id);
	for (int d = 0; d < 2; d++) {
		unsigned int n = 0;

		for (; argv[n]; n++)
			side[d].argv[n] = argv[n];
		side[d].argv[n++] = "-d";
		side[d].argv[n++] = d ? "hroce1" : "hroce0";
		side[d].argv[n++] = "-p";
		side[d].argv[n++] = port;
		if (d)
			side[d].argv[n++] = "127.0.0.1";
		snprintf(side[d].out, sizeof(side[d].out), "%s/run%u-%d.out", tmpdir, id, d);
		snprintf(side[d].stats, sizeof(side[d].stats), "%s/run%u-%d.stats", tmpdir, id, d);
		snprintf(pcap[d], PATH_MAX, "%s/run%u-%d.pcap", tmpdir, id, d);
		unlink(pcap[d]);
	}
	e2e_spawn(bindir, &side[0], config);
	usleep(500000); /* perftest's client does not retry its TCP connect */
	e2e_spawn(bindir, &side[1], config);
	e2e_reap(&side[1], time(NULL) + RUN_TIMEOUT_S);
	e2e_reap(&side[0], time(NULL) + (side[1].timed_out ? 1 : 30));
	shm_unlink(wire);
	for (int d = 0; d < 2; d++) {
		out[d] = e2e_slurp(side[d].out);
		if (ok && (side[d].timed_out || !WIFEXITED(side[d].status) ||
			   WEXITSTATUS(side[d].status))) {
			snprintf(why, why_len, "%s: exit status %d%s", d ? "client" : "server",
				 side[d].status, side[d].timed_out ? " (timed out)" : "");
			ok = false;
		} else if (ok && !strstr(out[d], report)) {
			snprintf(why, why_len, "%s: no \"%s\" in its report",
				 d ? "client" : "server", report);
			ok = false;
		}
	}
	if (!ok) {
		e2e_show_tail("server", side[0].out);
		e2e_show_tail("client", side[1].out);
	}
	free(out[0]);
	free(out[1]);
	return ok;
}

/* A pair run twice in lockstep: both NICs' captures the same in both runs. */
static void run_twice(const char *name, const char *const *argv, const char *report)
{
	char pcap[2][2][PATH_MAX], why[512] = "";
	struct capture c[2][2] = { 0 };
	bool ok = run_once(argv, report, pcap[0], why, sizeof(why)) &&
		  run_once(argv, report, pcap[1], why, sizeof(why));

	for (int r = 0; ok && r < 2; r++)
		for (int d = 0; d < 2 && ok; d++)
			if (!load(pcap[r][d], &c[r][d]) || c[r][d].n < 4) {
				snprintf(why, sizeof(why),
					 "run %d: hroce%d's pcap is unreadable or nearly empty",
					 r + 1, d);
				ok = false;
			}
	for (int d = 0; d < 2 && ok; d++) {
		char what[400];

		if (!same(&c[0][d], &c[1][d], what, sizeof(what))) {
			snprintf(why, sizeof(why), "hroce%d's captures: %s", d, what);
			ok = false;
		}
	}
	if (ok) {
		const struct capture *x = &c[0][1];

		/* the comparison itself must see a nanosecond: one frame moved by one */
		x->f[x->n / 2].ns++;
		ok = !same(&c[0][1], &c[1][1], why, sizeof(why));
		x->f[x->n / 2].ns--;
		if (!ok)
			snprintf(why, sizeof(why), "a frame moved by 1 ns went unnoticed");
		else
			printf("# %s: %zu + %zu frames, the same in both runs to the ns; the "
			       "client's last at %llu ns\n",
			       name, c[0][0].n, c[0][1].n, (unsigned long long)x->f[x->n - 1].ns);
	}
	for (int r = 0; r < 2; r++)
		for (int d = 0; d < 2; d++)
			free(c[r][d].f);
	bench_result(&b, name, ok, "%s", why);
}

/*
 * A peer that vanishes: the server of a long ib_write_bw killed while the client writes.
 * The client, alone in lockstep, must still end (its retries exhausted, its timers jumped
 * to), not wait for a peer that will never come to a boundary.
 */
static void peer_killed(void)
{
	struct e2e_side side[2] = { 0 };
	char config[PATH_MAX], wire[64], port[16], why[256] = "";
	unsigned int id = run_no++;
	time_t t0;
	bool ok;

	if (!write_config(id, config, sizeof(config), wire, sizeof(wire))) {
		bench_result(&b, "peer_killed", false, "cannot write the configuration");
		return;
	}
	snprintf(port, sizeof(port), "%u", port_base + id);
	for (int d = 0; d < 2; d++) {
		const char *const args[] = { "ib_write_bw",
					     "-d",
					     d ? "hroce1" : "hroce0",
					     "-s",
					     "4096",
					     "-n",
					     "1000000",
					     "-F",
					     "-p",
					     port,
					     d ? "127.0.0.1" : NULL,
					     NULL };

		memcpy(side[d].argv, args, sizeof(args));
		snprintf(side[d].out, sizeof(side[d].out), "%s/run%u-%d.out", tmpdir, id, d);
		snprintf(side[d].stats, sizeof(side[d].stats), "%s/run%u-%d.stats", tmpdir, id, d);
	}
	e2e_spawn(bindir, &side[0], config);
	usleep(500000);
	e2e_spawn(bindir, &side[1], config);
	sleep(3); /* well into the test: a million WRITEs take an hour */
	kill(side[0].pid, SIGKILL);
	t0 = time(NULL);
	e2e_reap(&side[0], t0 + 10);
	e2e_reap(&side[1], t0 + RUN_TIMEOUT_S);
	shm_unlink(wire);
	ok = !side[1].timed_out && WIFEXITED(side[1].status) && WEXITSTATUS(side[1].status);
	if (!ok) {
		snprintf(why, sizeof(why), "client: exit status %d%s", side[1].status,
			 side[1].timed_out ? " (timed out)" : " (0: it did not see the loss)");
		e2e_show_tail("client", side[1].out);
	} else {
		printf("# peer_killed: the client gave up %ld s after its server died\n",
		       (long)(time(NULL) - t0));
	}
	bench_result(&b, "peer_killed", ok, "%s", why);
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

int main(int argc, char **argv)
{
	bench_init(&b, "test_lockstep", argc, argv);
	if (!e2e_dirs(bindir, sizeof(bindir), tmpdir, sizeof(tmpdir), "lockstep"))
		return 1;
	port_base = 20000 + ((getpid() + 7919) % 20000);
	setenv("HROCE_LOCKSTEP", "1", 1);

	run_twice("ib_send_lat-s8", ARGS("ib_send_lat", "-s", "8", "-n", "100", "-F"), "t_avg");
	run_twice("ib_write_bw-s65536", ARGS("ib_write_bw", "-s", "65536", "-n", "50", "-F"),
		  "BW average");
	/* completion channels: the provider's event thread waits at boundaries too */
	run_twice("ib_send_bw-s4096-e", ARGS("ib_send_bw", "-s", "4096", "-n", "100", "-F", "-e"),
		  "BW average");
	peer_killed();
	return bench_finish(&b);
}
