// SPDX-License-Identifier: MIT
/* hroce-lat's perftest scenario (lat_perftest.h). */
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

#include "e2e_proc.h"
#include "lat_perftest.h"
#include "pcap.h"

#define RUN_TIMEOUT_S 600
#define MAX_SENDS 100000

const struct point lat_perftest_points[] = {
	{ .name = "the client's SEND out" },
	{ .name = "the server's SEND out" },
	{ .name = "the client's next SEND out" },
};
const int lat_perftest_npoints = ARRAY_LEN(lat_perftest_points);

static const uint8_t client_mac[6] = { 0x02, 0x00, 0x0a, 0x00, 0x00, 0x02 };

static bool write_config(const char *path, const char *wire, const char *dir, int k,
			 const struct lat_perftest_setup *s)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return false;
	for (int d = 0; d < 2; d++)
		fprintf(f,
			"[hroce%d]\nmac = 02:00:0a:00:00:0%d\nipv4 = 10.0.0.%d\nwire = %s\n"
			"port = %d\nclock_mhz = %u\npcie_read_ns = %u\npcie_write_ns = %u\n"
			"pcie_gbps = %u\nlink_ns = %u\nlink_gbps = %u\npcap = %s/perftest-%d-%d.pcap"
			"\n\n",
			d, d + 1, d + 1, wire, d, s->mhz, s->pcie_read_ns, s->pcie_write_ns,
			s->pcie_gbps, s->link_ns, s->link_gbps, dir, k, d);
	return fclose(f) == 0;
}

/* The directory of this program, where hroce-run is (false if unreadable). */
static bool bindir_of(char *dir, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", dir, len - 1);

	if (n <= 0)
		return false;
	dir[n] = 0;
	*strrchr(dir, '/') = 0;
	return true;
}

/* Children inherit lockstep, and its quantum (0: link_ns). */
static void lockstep_env(unsigned int quantum_ns)
{
	char q[16];

	setenv("HROCE_LOCKSTEP", "1", 1);
	snprintf(q, sizeof(q), "%u", quantum_ns);
	if (quantum_ns)
		setenv("HROCE_LOCKSTEP_NS", q, 1);
	else
		unsetenv("HROCE_LOCKSTEP_NS");
}

/* A SEND's first (or only) packet: its departure and whether the client sent it. */
struct send_at {
	uint64_t ns;
	bool client;
};

static int sends_of(const char *path, struct send_at *out, int max)
{
	static struct pcap_packet pkt;
	struct pcap_file *pf = pcap_open_read(path);
	int n = 0;

	if (!pf)
		return -1;
	while (n < max && pcap_read(pf, &pkt) == 0) {
		size_t bth = 0;
		uint8_t op;

		if (pkt.len > 14 && pkt.data[12] == 0x08 && pkt.data[13] == 0x00)
			bth = 14 + 20 + 8;
		else if (pkt.len > 14 && pkt.data[12] == 0x86 && pkt.data[13] == 0xdd)
			bth = 14 + 40 + 8;
		if (!bth || pkt.len < bth + 12 || pkt.data[bth - 6] != 0x12 ||
		    pkt.data[bth - 5] != 0xb7) /* UDP 4791 */
			continue;
		op = pkt.data[bth];
		/* RC SEND_FIRST, SEND_ONLY, SEND_ONLY with immediate */
		if (op != 0x00 && op != 0x04 && op != 0x05)
			continue;
		out[n].ns = pkt.ts_ns;
		out[n].client = !memcmp(pkt.data + 6, client_mac, 6);
		n++;
	}
	pcap_close(pf);
	return n;
}

bool lat_perftest_run(const char *dir, int k, const struct lat_perftest_setup *s, int warm, int n,
		      double *total, double *steps)
{
	char config[PATH_MAX], wire[64], pcap[PATH_MAX], port[16], bindir[PATH_MAX];
	char iters[16], size[16], mtu[16];
	struct send_at *at = calloc(MAX_SENDS, sizeof(*at));
	struct e2e_side side[2] = { 0 };
	bool ok[2];
	int got;

	if (!at)
		return false;
	snprintf(config, sizeof(config), "%s/perftest-%d.conf", dir, k);
	snprintf(wire, sizeof(wire), "hroce-lat-%d-%d", (int)getpid(), k);
	snprintf(port, sizeof(port), "%d", 20000 + (int)((getpid() + k * 7) % 20000));
	snprintf(iters, sizeof(iters), "%d", warm + n + 1);
	snprintf(size, sizeof(size), "%u", s->size);
	snprintf(mtu, sizeof(mtu), "%u", s->mtu);
	if (!bindir_of(bindir, sizeof(bindir)) || !write_config(config, wire, dir, k, s)) {
		fprintf(stderr, "hroce-lat: cannot write %s: %s\n", config, strerror(errno));
		free(at);
		return false;
	}
	lockstep_env(s->quantum_ns);
	for (int d = 0; d < 2; d++) {
		const char *const args[] = { "ib_send_lat", "-d", d ? "hroce1" : "hroce0",
					     "-s",	    size, "-n",
					     iters,	    "-m", mtu,
					     "-F",	    "-p", port };
		int a = (int)(sizeof(args) / sizeof(args[0]));

		memcpy(side[d].argv, args, sizeof(args));
		if (s->no_inline) {
			side[d].argv[a++] = "-I";
			side[d].argv[a++] = "0";
		}
		if (d)
			side[d].argv[a++] = "127.0.0.1";
		snprintf(side[d].out, sizeof(side[d].out), "%s/perftest-%d-%s.out", dir, k,
			 d ? "client" : "server");
		snprintf(side[d].stats, sizeof(side[d].stats), "%s/perftest-%d-%s.stats", dir, k,
			 d ? "client" : "server");
		e2e_spawn(bindir, &side[d], config);
		if (!d)
			usleep(500000); /* the client does not retry its TCP connect */
	}
	unsetenv("HROCE_LOCKSTEP");
	e2e_reap(&side[1], time(NULL) + RUN_TIMEOUT_S);
	e2e_reap(&side[0], time(NULL) + (side[1].timed_out ? 1 : 30));
	shm_unlink(wire);
	for (int d = 0; d < 2; d++)
		ok[d] = !side[d].timed_out && WIFEXITED(side[d].status) &&
			!WEXITSTATUS(side[d].status);
	if (!ok[0] || !ok[1]) {
		fprintf(stderr, "hroce-lat: ib_send_lat failed (%s): see %s\n",
			ok[1] ? "server" : "client", side[ok[1] ? 0 : 1].out);
		free(at);
		return false;
	}
	snprintf(pcap, sizeof(pcap), "%s/perftest-%d-1.pcap", dir, k);
	got = sends_of(pcap, at, MAX_SENDS);
	/* client, server, client...: message m is the client's SEND m to its SEND m + 1 */
	for (int i = 0; i < got; i++) {
		if (at[i].client != !(i & 1)) {
			fprintf(stderr, "hroce-lat: %s: SEND %d is not the %s's\n", pcap, i + 1,
				i & 1 ? "server" : "client");
			got = -1;
			break;
		}
	}
	if (got < 2 * (warm + n) + 1) {
		if (got >= 0)
			fprintf(stderr, "hroce-lat: %s: %d SENDs, %d expected\n", pcap, got,
				2 * (warm + n) + 1);
		free(at);
		return false;
	}
	for (int m = 0; m < n; m++) {
		const struct send_at *c = &at[2 * (warm + m)];

		total[m] = (double)(c[2].ns - c[0].ns);
		steps[m * MAX_POINTS + 1] = (double)(c[1].ns - c[0].ns);
		steps[m * MAX_POINTS + 2] = (double)(c[2].ns - c[1].ns);
	}
	free(at);
	return true;
}
