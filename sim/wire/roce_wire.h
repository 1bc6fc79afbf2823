/* SPDX-License-Identifier: MIT */
/*
 * The C reference of the RoCEv2 wire format: Ethernet II (with or without one 802.1Q tag),
 * IPv4 without options or IPv6 without extension headers, UDP to port 4791, and the
 * InfiniBand transport headers (BTH and every extension header of the RC, UC and UD
 * opcodes), with the ICRC of IBTA Annex A17.
 *
 * The UDP checksum is built as zero and not checked, over IPv4 and IPv6 alike, as Linux
 * rxe does: the ICRC covers every byte the checksum would (the IPv6 pseudo-header's
 * addresses, length and next header included), and a real checksum would hold each frame
 * back until its whole payload had been summed.
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
	bool ip6; /* IPv6: ip6_*, flow_label; else IPv4: ip_id, ip_flags, ip_src, ip_dst */
	uint8_t ip_dscp, ip_ecn; /* IPv6: the traffic class's two parts */
	uint16_t ip_id;
	uint8_t ip_flags; /* the 3 flag bits: 0x2 is DF, 0x1 MF */
	uint8_t ip_ttl;	  /* IPv6: the hop limit */
	uint32_t ip_src, ip_dst;
	uint32_t flow_label; /* 20 bits */
	uint8_t ip6_src[16], ip6_dst[16];
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
	ROCE_NOT_ROCE,	     /* not IPv4 or IPv6/UDP/4791: not an error */
	ROCE_TRUNCATED,	     /* ends before its headers or its IP total (IPv6: payload) length */
	ROCE_IP_HEADER,	     /* not version 4 with IHL 5, or a fragment; IPv6 not version 6 */
	ROCE_IP_CHECKSUM,    /* IPv4 header checksum */
	ROCE_LENGTH,	     /* IP, UDP, pad and frame lengths disagree */
	ROCE_BAD_OPCODE,     /* unknown opcode or TVer not 0 */
	ROCE_ICRC,	     /* invariant CRC */
	ROCE_RUNT,	     /* shorter than its Ethernet header */
	ROCE_GIANT,	     /* longer than ROCE_MAX_FRAME */
	ROCE_MAC_ERROR,	     /* the RTL's alone: the MAC flagged the frame; never returned */
	ROCE_IP6_EXT_HEADER, /* IPv6 whose next header is an extension header */
	ROCE_IP6_HOP_LIMIT,  /* IPv6 UDP/4791 with hop limit 0 */
	ROCE_VERDICTS
};

/* True for the IPv6 next-header values that are extension headers (RFC 8200, IANA). */
bool roce_ip6_ext_header(uint8_t next_header);
/*
 * Walks the extension headers of an IPv6 frame (tagged or not), which the core does not:
 * the upper-layer protocol they lead to and its offset in the frame. False if the frame is
 * not IPv6, or its chain leaves the frame or goes through ESP (encrypted beyond).
 */
bool roce_ip6_upper(const uint8_t *frame, size_t len, uint8_t *proto, size_t *off);

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
 * its first len bytes hold Ethernet (one tag at most), IPv4 or IPv6, and UDP to port 4791
 * as far as the destination port, sets *ip_off to the IP header's offset and *ip_len to
 * the IP packet's length the header gives (IPv6's: 40 bytes more than its payload
 * length), *bth to whether those bytes hold the BTH too (an IPv6 one ends at byte 74, past
 * a 64-byte beat), fills *h with the Ethernet fields and, if *bth, those up to the BTH (not
 * the extension headers), else only h->ip6, and returns ROCE_OK; else ROCE_RUNT,
 * ROCE_NOT_ROCE, ROCE_IP6_EXT_HEADER, or ROCE_TRUNCATED (too short to tell). Checks
 * nothing else: roce_parse may still refuse the whole frame.
 */
enum roce_verdict roce_parse_start(const uint8_t *frame, size_t len, struct roce_hdr *h,
				   size_t *ip_off, size_t *ip_len, bool *bth);

/*
 * Whether any change to byte off of a RoCEv2 packet (IPv6 if ip6, else IPv4) of ip_len
 * bytes makes roce_parse refuse it as RoCE (a verdict other than ROCE_OK and
 * ROCE_NOT_ROCE): bytes the IPv4 header checksum or the ICRC covers (CRC-32 and the
 * Internet checksum catch any one flipped bit), except the IP protocol or IPv6 next header
 * and the UDP destination port (a change there makes it another protocol's packet), the
 * fields the ICRC masks that nothing else checks (the UDP checksum, the BTH's byte 4, and
 * of IPv6, which has no header checksum, the bytes holding traffic class, flow label and
 * hop limit), and bytes past ip_len (Ethernet padding).
 */
bool roce_byte_checked(bool ip6, size_t off, size_t ip_len);

/* Raw reflected CRC-32 (poly 0xedb88320) over n bytes: no initial value, no final xor. */
uint32_t roce_crc32_update(uint32_t state, const void *p, size_t n);
/*
 * The ICRC of a RoCEv2 packet (ip_len bytes from the IP header, ICRC included; IPv4 or
 * IPv6 by the version in its first byte), as the value whose little-endian bytes are the
 * packet's last four.
 */
uint32_t roce_icrc(const uint8_t *ip_packet, size_t ip_len);

/* The UDP source port Linux derives from the flow label of a QP pair. */
uint16_t roce_udp_sport(uint32_t lqpn, uint32_t rqpn);

/* One line for tools: opcode name, QPN, PSN, payload length. */
int roce_hdr_format(const struct roce_hdr *h, char *buf, size_t size);

#endif /* HROCE_ROCE_WIRE_H */
