/* SPDX-License-Identifier: MIT */
/* Random RoCEv2 headers and payload sizes for the net benches. */
#ifndef HROCE_ROCE_RANDOM_H
#define HROCE_ROCE_RANDOM_H

#include <stdint.h>

#include "bench.h"
#include "roce_wire.h"

/* A random known opcode: RC, UC or UD. */
uint8_t roce_random_opcode(struct bench *b);
/*
 * Random header for the opcode, IPv4 or (two times in five) IPv6, every field random
 * (fields the opcode or the IP version does not carry too);
 * a payload length that favours small sizes and beat boundaries of beat_bytes, 0..max_len,
 * zero for opcodes without payload.
 */
void roce_random_hdr(struct bench *b, struct roce_hdr *h, uint8_t opcode, unsigned int beat_bytes,
		     unsigned int max_len);

/*
 * Makes the header IPv6: random addresses (link-local at times), flow label and hop limit
 * (never 0); the IPv4-only fields zero.
 */
void roce_random_ip6(struct bench *b, struct roce_hdr *h);

/*
 * Zeroes the fields the opcode does not carry and sets the pad count, as roce_parse()
 * returns a header.
 */
void roce_hdr_canonical(struct roce_hdr *h);

#endif /* HROCE_ROCE_RANDOM_H */
