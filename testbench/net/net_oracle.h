/* SPDX-License-Identifier: MIT */
/*
 * tshark as an independent reader of the ARP, ICMP and ICMPv6 frames the benches capture: its
 * dissectors check what the C reference (sim/wire/net_wire.h) and the RTL might both get
 * wrong the same way.
 */
#ifndef HROCE_NET_ORACLE_H
#define HROCE_NET_ORACLE_H

#include <stddef.h>

#include "bench.h"

/*
 * Every one of the nframes frames of the capture decodes as ARP, as ICMP in IPv4 with good
 * IPv4 and ICMP checksums (tshark checks both), or as ICMPv6 with a good checksum (neighbour
 * discovery, echo), and none draws a warning or an error
 * from tshark's expert info. One result named name.
 */
void net_oracle_tshark(struct bench *b, const char *name, const char *path, size_t nframes);

#endif /* HROCE_NET_ORACLE_H */
