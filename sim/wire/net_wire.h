/* SPDX-License-Identifier: MIT */
/*
 * The C reference of the two protocols the core answers besides RoCEv2: ARP for IPv4 over
 * Ethernet, and ICMP echo (ping) over IPv4, on untagged Ethernet II frames without FCS.
 *
 * icmp_echo_answer() is what the RTL's icmp_echo must do with a frame: its verdicts, and
 * their order of precedence, are the RTL's (contract NET_COUNTER, ICMP_*); the reply is
 * built from scratch here, checksums summed over the whole header and message (RFC 1071),
 * where the RTL sums as the beats come.
 */
#ifndef HROCE_NET_WIRE_H
#define HROCE_NET_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NET_ETH_TYPE_IPV4 0x0800
#define NET_ETH_TYPE_ARP 0x0806
#define NET_IP_PROTO_ICMP 1
#define NET_MIN_FRAME 60 /* Ethernet's minimum without FCS */
#define NET_ARP_LEN 42	 /* Ethernet header and the ARP packet */
#define NET_ICMP_HDR 42	 /* Ethernet, IPv4 without options, the ICMP echo header */
#define NET_REPLY_TTL 64 /* the TTL of the core's echo replies */
#define NET_ARP_REQUEST 1
#define NET_ARP_REPLY 2
#define NET_ICMP_ECHO_REPLY 0
#define NET_ICMP_ECHO_REQUEST 8

/* An ARP packet for IPv4 over Ethernet and the Ethernet header around it. */
struct arp_pkt {
	uint8_t eth_dst[6], eth_src[6];
	uint16_t op;
	uint8_t sha[6];
	uint32_t spa; /* host order */
	uint8_t tha[6];
	uint32_t tpa;
};

/* The frame, zero padded to NET_MIN_FRAME; returns its length (NET_MIN_FRAME). */
size_t arp_build(const struct arp_pkt *a, uint8_t frame[NET_MIN_FRAME]);
/*
 * True for a well-formed ARP packet for IPv4 over Ethernet (type ARP, hardware 1, protocol
 * IPv4, sizes 6 and 4, operation request or reply, at least NET_ARP_LEN bytes), with *a
 * filled; false otherwise.
 */
bool arp_parse(const uint8_t *frame, size_t len, struct arp_pkt *a);

/* The Internet checksum (RFC 1071) of len bytes: the value to put in a checksum field. */
uint16_t net_csum(const void *p, size_t len);

/* An ICMP message in IPv4 in Ethernet, as icmp_build() makes it. */
struct icmp_frame {
	uint8_t eth_dst[6], eth_src[6];
	uint8_t tos;
	uint16_t ip_id;
	bool df;
	uint8_t ttl;
	uint32_t ip_src, ip_dst; /* host order */
	uint8_t type, code;
	uint16_t id, seq;
};

/*
 * Builds the frame with the data after the 8-byte ICMP header, both checksums computed;
 * zero padded to NET_MIN_FRAME. Returns its length, or 0 if cap is too small.
 */
size_t icmp_build(const struct icmp_frame *h, const void *data, size_t len, uint8_t *frame,
		  size_t cap);

/* What the core does with an ICMP frame, in NET_COUNTER order from ICMP_ANSWERED. */
enum icmp_verdict {
	ICMP_ANSWERED,
	ICMP_IGNORED,	/* good, to us, not an echo request */
	ICMP_NOT_OURS,	/* another IPv4 or MAC address */
	ICMP_MALFORMED, /* lengths, IP version/options/fragment, not ICMP, checksums */
	ICMP_TOO_LONG,	/* longer than max_frame */
	ICMP_OVERFLOW,	/* the RTL's alone: no room for the reply */
	ICMP_VERDICTS
};

const char *icmp_verdict_name(enum icmp_verdict v);

/*
 * The verdict on an IPv4 frame addressed to mac/ip, and for ICMP_ANSWERED the reply the
 * core sends (at most max_frame bytes, at least NET_MIN_FRAME) in reply, its length in
 * *reply_len.
 */
enum icmp_verdict icmp_echo_answer(const uint8_t *frame, size_t len, const uint8_t mac[6],
				   uint32_t ip, size_t max_frame, uint8_t *reply,
				   size_t *reply_len);

#endif /* HROCE_NET_WIRE_H */
