/* SPDX-License-Identifier: MIT */
/*
 * The C reference of the RoCEv2 wire format: Ethernet II (with or without one 802.1Q tag),
 * IPv4 without options, UDP to port 4791, and the InfiniBand transport headers (BTH and
 * every extension header of the RC, UC and UD opcodes), with the ICRC of IBTA Annex A17.
 *
 * roce_parse()'s verdicts, and their order of precedence, are the RTL receive path's
 * (contract/hroce.contract, ROCE_RX_DROP): the benches hold the two to each other.
 */
#ifndef HROCE_ROCE_WIRE_H
#define HROCE_ROCE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ROCE_UDP_PORT 4791
#define ROCE_MAX_FRAME 4224	   /* bytes without FCS: 4096 B MTU, every header, one tag */
#define ROCE_MIN_FRAME 60	   /* Ethernet's minimum without FCS */
#define ROCE_ICRC_SEED 0xdebb20e3u /* CRC state after 0xffffffff and the masked LRH */

/* Every header field, host byte order. Fields the opcode does not carry are zero. */
struct roce_hdr {
	uint8_t eth_dst[6], eth_src[6];
	bool vlan_valid;
	uint16_t vlan_tci;
	uint8_t ip_dscp, ip_ecn;
	uint16_t ip_id;
	uint8_t ip_flags; /* the 3 flag bits: 0x2 is DF, 0x1 MF */
	uint8_t ip_ttl;
	uint32_t ip_src, ip_dst;
	uint16_t udp_sport;
	uint16_t udp_csum; /* parse only: what the frame carried; build writes 0 */
	uint8_t opcode;
	bool se, migreq;
	uint8_t pad; /* build computes it from payload_len */
	uint8_t tver;
	uint16_t pkey;
	bool fecn, becn;
	uint32_t dqpn;
	bool ackreq;
	uint32_t psn;
	uint64_t reth_va;
	uint32_t reth_rkey, reth_dma_len;
	uint8_t aeth_syndrome;
	uint32_t aeth_msn;
	uint32_t immdt;
	uint32_t ieth_rkey;
	uint64_t atomic_va;
	uint32_t atomic_rkey;
	uint64_t atomic_swap_add, atomic_compare;
	uint64_t atomicack_orig;
	uint32_t deth_qkey, deth_src_qp;
	uint16_t payload_len;
};

/* Extension headers after the BTH, in the order IBTA puts them. */
enum roce_ext {
	ROCE_EXT_DETH = 1 << 0,	     /* 8 bytes */
	ROCE_EXT_RETH = 1 << 1,	     /* 16 */
	ROCE_EXT_ATOMIC = 1 << 2,    /* AtomicETH, 28 */
	ROCE_EXT_AETH = 1 << 3,	     /* 4 */
	ROCE_EXT_ATOMICACK = 1 << 4, /* AtomicAckETH, 8 */
	ROCE_EXT_IMMDT = 1 << 5,     /* 4 */
	ROCE_EXT_IETH = 1 << 6,	     /* 4 */
};

struct roce_opcode_info {
	const char *name; /* "RC_SEND_ONLY", ... */
	unsigned int ext; /* enum roce_ext bits */
	unsigned int ext_len;
	bool has_payload;
};

/* NULL for an opcode this NIC does not know. */
const struct roce_opcode_info *roce_opcode_info(uint8_t opcode);

/* The same order as the RTL's counters (ROCE_RX_DROP); runt and giant are the RTL's too. */
enum roce_verdict {
	ROCE_OK,
	ROCE_NOT_ROCE,	  /* not IPv4/UDP/4791: not an error */
	ROCE_TRUNCATED,	  /* ends before its headers or its IP total length */
	ROCE_IP_HEADER,	  /* not version 4 with IHL 5, or a fragment */
	ROCE_IP_CHECKSUM, /* IPv4 header checksum */
	ROCE_LENGTH,	  /* IP, UDP, pad and frame lengths disagree */
	ROCE_BAD_OPCODE,  /* unknown opcode or TVer not 0 */
	ROCE_ICRC,	  /* invariant CRC */
	ROCE_RUNT,	  /* shorter than its Ethernet header */
	ROCE_GIANT,	  /* longer than ROCE_MAX_FRAME */
	ROCE_VERDICTS
};

const char *roce_verdict_name(enum roce_verdict v);

/* Bytes from the frame's start to the payload's. */
size_t roce_hdr_len(const struct roce_hdr *h);

/*
 * Builds the frame without FCS: lengths, IPv4 checksum, pad count and ICRC computed, UDP
 * checksum 0; padded with zeros to ROCE_MIN_FRAME if pad_to_min. 0, or EINVAL for an
 * unknown opcode or a payload over 8191 bytes, or ENOSPC if cap is too small.
 */
int roce_build_frame(const struct roce_hdr *h, const void *payload, bool pad_to_min, uint8_t *frame,
		     size_t cap, size_t *len);
static inline int roce_build(const struct roce_hdr *h, const void *payload, uint8_t *frame,
			     size_t cap, size_t *len)
{
	return roce_build_frame(h, payload, false, frame, cap, len);
}

/*
 * Parses a frame. Fills *h as far as the verdict allows (completely for ROCE_OK) and
 * *payload with the payload's start (NULL unless ROCE_OK); returns the verdict.
 */
enum roce_verdict roce_parse(const uint8_t *frame, size_t len, struct roce_hdr *h,
			     const uint8_t **payload);

/*
 * The headers of a frame of which only the start is known (its first beat on a link): if
 * its first len bytes hold Ethernet (one tag at most), IPv4, UDP to port 4791 and a BTH,
 * fills *h up to the BTH (not the extension headers), *ip_off with the IP header's offset
 * and *ip_len with the IP total length the header gives, and returns ROCE_OK; else
 * ROCE_RUNT, ROCE_NOT_ROCE, or ROCE_TRUNCATED (too short to tell). Checks nothing else:
 * roce_parse may still refuse the whole frame.
 */
enum roce_verdict roce_parse_start(const uint8_t *frame, size_t len, struct roce_hdr *h,
				   size_t *ip_off, size_t *ip_len);

/*
 * Whether any change to byte off of an IPv4 RoCEv2 packet of ip_len bytes makes
 * roce_parse refuse it as RoCE (a verdict other than ROCE_OK and ROCE_NOT_ROCE): bytes
 * the IPv4 header checksum or the ICRC covers (CRC-32 and the Internet checksum catch
 * any one flipped bit), except the IP protocol and the UDP destination port (a change
 * there makes it another protocol's packet), the UDP checksum and the BTH byte the ICRC
 * masks (nothing checks them), and bytes past ip_len (Ethernet padding).
 */
bool roce_byte_checked(size_t off, size_t ip_len);

/* Raw reflected CRC-32 (poly 0xedb88320) over n bytes: no initial value, no final xor. */
uint32_t roce_crc32_update(uint32_t state, const void *p, size_t n);
/*
 * The ICRC of an IPv4 RoCEv2 packet (ip_len bytes from the IP header, ICRC included),
 * as the value whose little-endian bytes are the packet's last four.
 */
uint32_t roce_icrc(const uint8_t *ip_packet, size_t ip_len);

/* The UDP source port Linux derives from the flow label of a QP pair. */
uint16_t roce_udp_sport(uint32_t lqpn, uint32_t rqpn);

/* One line for tools: opcode name, QPN, PSN, payload length. */
int roce_hdr_format(const struct roce_hdr *h, char *buf, size_t size);

#endif /* HROCE_ROCE_WIRE_H */
