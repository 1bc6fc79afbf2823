/* SPDX-License-Identifier: MIT */
/*
 * Independent decoders as oracles for the benches: scapy's RoCE layer
 * (scripts/roce_oracle.py) and tshark's InfiniBand dissector. Each reports one result
 * through bench_result() under the given name.
 */
#ifndef HROCE_ROCE_ORACLE_H
#define HROCE_ROCE_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#include "bench.h"

/* Every frame of a capture, in memory. */
struct roce_capture {
	struct roce_frame {
		uint8_t *data;
		size_t len;
	} * frames;
	size_t count;
};

/* Exits with a message if the file cannot be read. */
void roce_capture_load(const char *path, struct roce_capture *c);
void roce_capture_free(struct roce_capture *c);

/* scapy's ICRC, opcode, QP and PSN agree with roce_parse() on every RoCE frame. */
void roce_oracle_scapy(struct bench *b, const char *name, const char *path);
/*
 * tshark decodes every RoCE frame as InfiniBand over UDP with roce_parse()'s opcode, QP
 * and PSN, a good IPv4 checksum, and no warning or error (malformed packets included).
 */
void roce_oracle_tshark(struct bench *b, const char *name, const char *path);
/*
 * tshark's full decode (-V) of a capture of nframes frames: every frame InfiniBand, a good
 * checksum on each IPv4 one, nothing malformed and no expert error.
 */
void roce_oracle_tshark_verbose(struct bench *b, const char *name, const char *path,
				size_t nframes);

#endif /* HROCE_ROCE_ORACLE_H */
