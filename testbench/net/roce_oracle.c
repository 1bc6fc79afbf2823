// SPDX-License-Identifier: MIT
#include "roce_oracle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcap.h"
#include "roce_wire.h"

#define ORACLE "scripts/roce_oracle.py"
/*
 * tshark guesses at InfiniBand payloads (RPC, iSER, EoIB, ...) and calls a random payload
 * a malformed RPC: those guessers are off, so that its verdict is on our headers.
 */
#define PAYLOAD_GUESSERS                                                                      \
	"--disable-protocol rpcordma --disable-protocol infiniband.eoib "                     \
	"--disable-protocol fcoib --disable-protocol infiniband_sdp --disable-protocol iser " \
	"--disable-protocol lnet --disable-protocol nvme-rdma --disable-protocol smb_direct " \
	"--disable-protocol smc "
/*
 * A zero UDP checksum over IPv6 is what rxe sends and what RoCEv2 allows (the ICRC covers
 * the packet; RFC 6935/6936 let tunnels do this): tshark flags it as an error unless told
 */
#define TSHARK_PREFS "-o ip.check_checksum:TRUE -o udp.ignore_ipv6_zero_checksum:TRUE "

void roce_capture_load(const char *path, struct roce_capture *c)
{
	struct pcap_file *pf = pcap_open_read(path);
	static struct pcap_packet pkt;

	memset(c, 0, sizeof(*c));
	if (!pf) {
		perror(path);
		exit(1);
	}
	while (pcap_read(pf, &pkt) == 0) {
		c->frames = realloc(c->frames, (c->count + 1) * sizeof(*c->frames));
		c->frames[c->count].data = malloc(pkt.len);
		memcpy(c->frames[c->count].data, pkt.data, pkt.len);
		c->frames[c->count++].len = pkt.len;
	}
	pcap_close(pf);
}

void roce_capture_free(struct roce_capture *c)
{
	for (size_t i = 0; i < c->count; i++)
		free(c->frames[i].data);
	free(c->frames);
}

/* scapy's ICRC and header reading agree with ours on every RoCE frame of the file. */
void roce_oracle_scapy(struct bench *b, const char *name, const char *path)
{
	char cmd[600], line[256];
	struct roce_capture c;
	unsigned int agreed = 0;
	bool ok = true;
	FILE *p;

	roce_capture_load(path, &c);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s %s 2>&1", ORACLE, path);
	p = popen(cmd, "r");
	while (ok && p && fgets(line, sizeof(line), p)) {
		unsigned long idx, op, qpn, psn;
		char icrc[16], found[16], want[16];
		struct roce_hdr h;
		const uint8_t *payload;
		const struct roce_frame *f;
		size_t ip_end;

		if (sscanf(line, "%lu %lu %lu %lu %15s %15s", &idx, &op, &qpn, &psn, icrc, found) !=
		    6)
			continue;
		if (idx < 1 || idx > c.count) {
			ok = bench_result(b, name, false, "oracle: %s", line);
			break;
		}
		f = &c.frames[idx - 1];
		if (roce_parse(f->data, f->len, &h, &payload) != ROCE_OK)
			continue;
		ip_end = (h.vlan_valid ? 18 : 14) + (payload - f->data) - (h.vlan_valid ? 18 : 14) +
			 h.payload_len + h.pad + 4;
		snprintf(want, sizeof(want), "%02x%02x%02x%02x", f->data[ip_end - 4],
			 f->data[ip_end - 3], f->data[ip_end - 2], f->data[ip_end - 1]);
		if (op != h.opcode || qpn != h.dqpn || psn != h.psn || strcmp(icrc, want) ||
		    strcmp(found, want)) {
			ok = bench_result(
				b, name, false,
				"frame %lu: scapy says opcode %lu qpn %lu psn %lu icrc %s, "
				"we say %u %u %u %s",
				idx, op, qpn, psn, icrc, h.opcode, h.dqpn, h.psn, want);
			break;
		}
		agreed++;
	}
	if (!p || (pclose(p) != 0 && ok))
		ok = bench_result(b, name, false,
				  "%s failed: is python3-scapy installed? run make deps", ORACLE);
	if (ok)
		bench_result(b, name, agreed > 0,
			     "scapy found no RoCE frame (is python3-scapy there?)");
	roce_capture_free(&c);
}

/*
 * tshark decodes every frame as InfiniBand over UDP, with our fields, and nothing malformed.
 */
void roce_oracle_tshark(struct bench *b, const char *name, const char *path)
{
	char cmd[600], line[512];
	struct roce_capture c;
	unsigned int decoded = 0, roce = 0;
	bool ok = true;
	FILE *p;

	roce_capture_load(path, &c);
	for (size_t i = 0; i < c.count; i++) {
		struct roce_hdr h;
		const uint8_t *payload;

		roce += roce_parse(c.frames[i].data, c.frames[i].len, &h, &payload) == ROCE_OK;
	}
	snprintf(cmd, sizeof(cmd),
		 "tshark -r %s " TSHARK_PREFS PAYLOAD_GUESSERS "-Y udp.dstport==4791 -T fields "
		 "-E separator=/t "
		 "-e frame.number -e frame.protocols -e infiniband.bth.opcode "
		 "-e infiniband.bth.destqp -e infiniband.bth.psn -e ip.checksum.status "
		 "-e _ws.expert.severity 2>/dev/null",
		 path);
	p = popen(cmd, "r");
	while (ok && p && fgets(line, sizeof(line), p)) {
		unsigned long idx, op, qpn, psn;
		char *field[7] = { NULL }, *cur = line, *protos, *rest;
		unsigned int csum;
		bool ip6;
		struct roce_hdr h;
		const uint8_t *payload;

		/* tab-separated, and IPv6 has no checksum: the field is empty */
		line[strcspn(line, "\n")] = 0;
		for (unsigned int k = 0; k < 7 && cur; k++)
			field[k] = strsep(&cur, "\t");
		if (!field[5]) {
			ok = bench_result(b, name, false, "tshark: %s", line);
			break;
		}
		idx = strtoul(field[0], NULL, 10);
		protos = field[1];
		op = strtoul(field[2], NULL, 10);
		qpn = strtoul(field[3], NULL, 16);
		psn = strtoul(field[4], NULL, 10);
		csum = (unsigned int)strtoul(field[5], NULL, 10);
		rest = field[6] ? field[6] : "";
		if (idx < 1 || idx > c.count ||
		    roce_parse(c.frames[idx - 1].data, c.frames[idx - 1].len, &h, &payload) !=
			    ROCE_OK) {
			ok = bench_result(b, name, false, "frame %lu: not ours", idx);
			break;
		}
		/*
		 * ip.checksum.status 1 is good (IPv6 has none); expert info of warning
		 * (0x600000) or error (0x800000) severity is a complaint, notes (a low TTL, say)
		 * are not
		 */
		ip6 = h.ip6;
		if (strncmp(protos,
			    ip6 ? "eth:ethertype:ipv6:udp:infiniband"
				: "eth:ethertype:ip:udp:infiniband",
			    ip6 ? 33 : 31) &&
		    strncmp(protos,
			    ip6 ? "eth:ethertype:vlan:ethertype:ipv6:udp:infiniband"
				: "eth:ethertype:vlan:ethertype:ip:udp:infiniband",
			    ip6 ? 48 : 46)) {
			ok = bench_result(b, name, false, "frame %lu: decoded as %s", idx, protos);
		} else if (op != h.opcode || qpn != h.dqpn || psn != h.psn ||
			   (ip6 ? field[5][0] != 0 : csum != 1) ||
			   strtoul(rest, NULL, 0) >= 0x600000) {
			ok = bench_result(b, name, false,
					  "frame %lu: tshark says opcode %lu qpn %#lx psn %lu ip "
					  "checksum status '%s' expert '%s'",
					  idx, op, qpn, psn, field[5], rest);
		}
		decoded++;
	}
	if (!p || (pclose(p) != 0 && ok))
		ok = bench_result(b, name, false, "tshark failed: is it installed? run make deps");
	if (ok)
		bench_result(b, name, decoded == roce, "tshark decoded %u of %u RoCE frames",
			     decoded, roce);
	roce_capture_free(&c);
}

/*
 * tshark's full decode (-V) of a capture: every frame InfiniBand, a good IPv4 checksum on
 * each IPv4 one, nothing malformed and no expert error.
 */
void roce_oracle_tshark_verbose(struct bench *b, const char *name, const char *path, size_t nframes)
{
	char cmd[600], line[512], bad[300] = "";
	size_t frames = 0, ib = 0, csum_good = 0, ip6 = 0;
	FILE *p;
	int status;

	snprintf(cmd, sizeof(cmd), "tshark -r %s " TSHARK_PREFS PAYLOAD_GUESSERS "-V 2>&1", path);
	p = popen(cmd, "r");
	if (!p) {
		bench_result(b, name, false, "popen: %s", strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), p)) {
		if (!strncmp(line, "Frame ", 6) && strstr(line, " bytes on wire"))
			frames++;
		else if (!strcmp(line, "InfiniBand\n"))
			ib++;
		else if (strstr(line, "[Header checksum status: Good]"))
			csum_good++;
		else if (!strncmp(line, "Internet Protocol Version 6,", 28))
			ip6++;
		if (!bad[0] && (strstr(line, "Malformed") || strstr(line, "[Expert Info (Error")))
			snprintf(bad, sizeof(bad), "frame %zu: %.200s", frames, line);
	}
	status = pclose(p);
	if (status)
		bench_result(b, name, false, "tshark exited with status %d: is it installed?",
			     status);
	else
		bench_result(
			b, name,
			nframes && !bad[0] && frames == nframes && ib == nframes &&
				csum_good + ip6 == nframes,
			"%s%zu frames of %zu decoded, %zu as InfiniBand, %zu good IPv4 checksums, "
			"%zu IPv6",
			bad, frames, nframes, ib, csum_good, ip6);
}
