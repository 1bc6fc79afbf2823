// SPDX-License-Identifier: MIT
/*
 * Tests of icrc_check.py, the independent ICRC check of the interop captures: every capture
 * of rxe in testbench/data passes; a copy with one byte flipped in a frame's payload or in
 * its ICRC fails and names that frame; a copy with the TTL (IPv4) or hop limit (IPv6), or
 * the UDP checksum, changed still passes, since the ICRC does not cover them; a capture
 * with no RoCEv2 frame fails.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "bench.h"
#include "pcap.h"

#define CHECK "/usr/bin/python3 testbench/interop/icrc_check.py"
#define COPY "build/test-icrc-check.pcap"
#define ROCE_PORT 4791
#define ETH_HDR 14
#define UDP_HDR 8
#define BTH_LEN 12
#define ICRC_LEN 4
/* a frame whose last bytes before the ICRC are payload: more than any header chain */
#define MIN_PAYLOAD 32

enum damage { DAMAGE_PAYLOAD, DAMAGE_ICRC, DAMAGE_TTL, DAMAGE_UDP_CSUM };

static const char *const damage_names[] = { "payload", "icrc", "ttl", "udp_checksum" };

/* Runs a command; returns its exit status and the last line that contains want, if any. */
static int run(const char *cmd, const char *want, char *line, size_t size)
{
	char buf[512];
	FILE *p = popen(cmd, "r");
	int status;

	line[0] = 0;
	if (!p)
		return -1;
	while (fgets(buf, sizeof(buf), p))
		if (want && strstr(buf, want))
			snprintf(line, size, "%s", buf);
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static unsigned int be16(const uint8_t *p)
{
	return (unsigned int)p[0] << 8 | p[1];
}

/*
 * The offsets in a RoCEv2 frame that carries at least MIN_PAYLOAD bytes of payload: the IP
 * header, its TTL or hop limit, the UDP header and the ICRC. False for any other frame.
 */
static bool roce_offsets(const uint8_t *f, size_t len, size_t *ttl, size_t *udp, size_t *icrc)
{
	size_t ip = ETH_HDR, end;
	unsigned int type;

	if (len < ETH_HDR + 40)
		return false;
	type = be16(f + 12);
	if (type == 0x8100) {
		ip += 4;
		type = be16(f + 16);
	}
	if (type == 0x0800 && f[ip + 9] == 17) {
		*ttl = ip + 8;
		*udp = ip + (f[ip] & 0xfu) * 4;
		end = ip + be16(f + ip + 2);
	} else if (type == 0x86dd && f[ip + 6] == 17) {
		*ttl = ip + 7;
		*udp = ip + 40;
		end = *udp + be16(f + ip + 4);
	} else {
		return false;
	}
	if (end > len || *udp + UDP_HDR + BTH_LEN + MIN_PAYLOAD + ICRC_LEN > end ||
	    be16(f + *udp + 2) != ROCE_PORT)
		return false;
	*icrc = end - ICRC_LEN;
	return true;
}

/* Copies a capture with one byte of its first RoCEv2 frame with payload changed; returns
 * that frame's number (from 1), or 0 if there was none or a file failed. */
static unsigned int damage_copy(const char *from, const char *to, enum damage what)
{
	struct pcap_file *in = pcap_open_read(from), *out = pcap_open_write(to, true);
	static struct pcap_packet pkt;
	unsigned int damaged = 0;
	size_t ttl, udp, icrc;
	bool ok = in && out;

	for (unsigned int n = 1; ok && pcap_read(in, &pkt) == 0; n++) {
		if (!damaged && roce_offsets(pkt.data, pkt.len, &ttl, &udp, &icrc)) {
			size_t at[] = { icrc - 1, icrc, ttl, udp + 6 };

			pkt.data[at[what]] ^= 0x5a;
			damaged = n;
		}
		ok = pcap_write(out, pkt.ts_ns, pkt.data, pkt.len) == 0;
	}
	if (in)
		pcap_close(in);
	if (out && pcap_close(out) != 0)
		ok = false;
	return ok ? damaged : 0;
}

static void check_damaged(struct bench *b, const char *capture, enum damage what, bool passes)
{
	char name[128], cmd[512], want[64], line[512];
	unsigned int frame = damage_copy(capture, COPY, what);
	int status;

	snprintf(name, sizeof(name), "%s_%s", strrchr(capture, '/') + 1, damage_names[what]);
	if (frame == 0) {
		bench_result(b, name, false, "no RoCEv2 frame with payload in %s", capture);
		return;
	}
	snprintf(want, sizeof(want), "frame %u:", frame);
	snprintf(cmd, sizeof(cmd), CHECK " %s 2>&1", COPY);
	status = run(cmd, passes ? " bad" : want, line, sizeof(line));
	if (passes)
		bench_result(b, name, status == 0 && strstr(line, ", 0 bad"),
			     "a change the ICRC does not cover failed (exit %d): %s", status, line);
	else
		bench_result(b, name, status == 1 && strstr(line, "ICRC"),
			     "frame %u damaged, yet exit %d and no failure for it: %s", frame,
			     status, line);
}

int main(int argc, char **argv)
{
	char cmd[512], line[512];
	struct bench b;
	glob_t data;
	int status;

	bench_init(&b, "test_icrc_check", argc, argv);

	if (glob("testbench/data/rxe-*.pcap", 0, NULL, &data) != 0)
		data.gl_pathc = 0;
	bench_result(&b, "data_found", data.gl_pathc > 0, "no capture in testbench/data");
	for (size_t i = 0; i < data.gl_pathc; i++) {
		const char *path = data.gl_pathv[i];
		unsigned long frames = 0, good = 0;
		const char *counts;

		snprintf(cmd, sizeof(cmd), CHECK " %s 2>&1", path);
		status = run(cmd, " RoCEv2 frames ", line, sizeof(line));
		counts = strstr(line, "): ");
		if (counts)
			sscanf(counts, "): %lu good", &good);
		sscanf(line + strlen(path), ": %lu", &frames);
		bench_result(&b, strrchr(path, '/') + 1,
			     status == 0 && frames > 0 && good == frames, "exit %d: %s", status,
			     line);
	}
	globfree(&data);

	check_damaged(&b, "testbench/data/rxe-send.pcap", DAMAGE_PAYLOAD, false);
	check_damaged(&b, "testbench/data/rxe-send.pcap", DAMAGE_ICRC, false);
	check_damaged(&b, "testbench/data/rxe-send.pcap", DAMAGE_TTL, true);
	check_damaged(&b, "testbench/data/rxe-send.pcap", DAMAGE_UDP_CSUM, true);
	check_damaged(&b, "testbench/data/rxe-ipv6-write-bw.pcap", DAMAGE_PAYLOAD, false);
	check_damaged(&b, "testbench/data/rxe-ipv6-write-bw.pcap", DAMAGE_ICRC, false);
	check_damaged(&b, "testbench/data/rxe-ipv6-write-bw.pcap", DAMAGE_TTL, true);

	/* a capture with no RoCEv2 frame checks nothing: that is a failure */
	struct pcap_file *empty = pcap_open_write(COPY, true);

	status = -1;
	if (empty && pcap_close(empty) == 0)
		status = run(CHECK " " COPY " 2>&1", "no RoCEv2", line, sizeof(line));
	bench_result(&b, "no_roce_frame", status == 1 && line[0], "exit %d: %s", status, line);

	remove(COPY);
	return bench_finish(&b);
}
