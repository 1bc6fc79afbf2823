// SPDX-License-Identifier: MIT
#include "net_oracle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void net_oracle_tshark(struct bench *b, const char *name, const char *path, size_t nframes)
{
	char cmd[600], line[512], bad[300] = "";
	size_t frames = 0, arp = 0, icmp = 0, icmp6 = 0;
	FILE *p;
	int status;

	snprintf(cmd, sizeof(cmd),
		 "tshark -r %s -o ip.check_checksum:TRUE -T fields -E separator=/t "
		 "-e frame.number -e frame.protocols -e ip.checksum.status "
		 "-e icmp.checksum.status -e icmpv6.checksum.status -e _ws.expert.severity "
		 "-e _ws.expert.group 2>/dev/null",
		 path);
	p = popen(cmd, "r");
	if (!p) {
		bench_result(b, name, false, "popen: %s", strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), p)) {
		char protos[128] = "", ipcs[16] = "", icmpcs[16] = "", icmp6cs[16] = "";
		unsigned long idx = 0;
		char *f[7] = { NULL };
		char *s = line, *sev, *grp;

		line[strcspn(line, "\n")] = 0;
		for (int i = 0; i < 7; i++)
			f[i] = strsep(&s, "\t");
		if (!f[1] || sscanf(f[0], "%lu", &idx) != 1) {
			if (!bad[0])
				snprintf(bad, sizeof(bad), "tshark: %.200s; ", line);
			continue;
		}
		snprintf(protos, sizeof(protos), "%s", f[1]);
		snprintf(ipcs, sizeof(ipcs), "%s", f[2] ? f[2] : "");
		snprintf(icmpcs, sizeof(icmpcs), "%s", f[3] ? f[3] : "");
		snprintf(icmp6cs, sizeof(icmp6cs), "%s", f[4] ? f[4] : "");
		frames++;
		/* checksum status 1 is good */
		if (!strcmp(protos, "eth:ethertype:arp")) {
			arp++;
		} else if (!strncmp(protos, "eth:ethertype:ip:icmp", 21) && !strcmp(ipcs, "1") &&
			   !strcmp(icmpcs, "1")) {
			icmp++;
		} else if (!strncmp(protos, "eth:ethertype:ipv6:icmpv6", 25) &&
			   !strcmp(icmp6cs, "1")) {
			icmp6++;
		} else if (!bad[0]) {
			snprintf(bad, sizeof(bad),
				 "frame %lu: %s, IP checksum status '%s', ICMP checksum status "
				 "'%s'; ",
				 idx, protos, ipcs, icmpcs);
		}
		/*
		 * expert info of warning severity (0x600000) and up is a complaint, notes are
		 * not; nor is the sequence group (0x02000000: an address that moved to another
		 * MAC, which the benches do on purpose)
		 */
		sev = f[5];
		grp = f[6];
		while (sev && *sev && grp && *grp) {
			unsigned long sv = strtoul(sev, &sev, 0), gv = strtoul(grp, &grp, 0);

			if (!bad[0] && sv >= 0x600000 && gv != 0x02000000)
				snprintf(bad, sizeof(bad),
					 "frame %lu: expert severity %#lx group %#lx; ", idx, sv,
					 gv);
			sev += *sev == ',';
			grp += *grp == ',';
		}
	}
	status = pclose(p);
	if (status) {
		bench_result(b, name, false, "tshark exited with status %d: is it installed?",
			     status);
		return;
	}
	bench_result(b, name,
		     !bad[0] && nframes && frames == nframes && arp + icmp + icmp6 == frames,
		     "%s%zu frames of %zu decoded: %zu ARP, %zu ICMP, %zu ICMPv6 with good "
		     "checksums",
		     bad, frames, nframes, arp, icmp, icmp6);
}
