/* SPDX-License-Identifier: MIT */
/*
 * The C reference of IPv6 neighbour discovery (RFC 4861) and ICMPv6 echo (RFC 4443) as a
 * RoCE NIC needs them: the addresses a port derives from its MAC (the EUI-64 link-local
 * address, rxe's GID index 0), the solicited-node multicast group and MAC of an address,
 * the solicitation the port sends to resolve a neighbour, the advertisement it answers a
 * solicitation for one of its addresses with, and its echo replies. Untagged Ethernet II
 * frames without FCS, IPv6 without extension headers.
 *
 * nd_answer()'s verdicts are what a hardware responder beside ARP must do with an ICMPv6
 * frame; the golden pair is Linux's (testbench/data/rxe-ipv6-rc-pingpong.pcap, frames 21
 * and 22).
 */
#ifndef HROCE_ND_WIRE_H
#define HROCE_ND_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ND_ETH_TYPE_IPV6 0x86dd
#define ND_IP_PROTO_ICMPV6 58
#define ND_HOP_LIMIT 255 /* sent and required: a neighbour is on the link */
#define ND_SOLICIT 135
#define ND_ADVERT 136
#define ND_OPT_SLLA 1	/* source link-layer address */
#define ND_OPT_TLLA 2	/* target link-layer address */
#define ND_FRAME_LEN 86 /* Ethernet, IPv6, the 24-byte message and one address option */

/* fe80::/64 with the modified EUI-64 of the MAC (universal/local bit flipped, ff:fe). */
void nd_link_local(const uint8_t mac[6], uint8_t ip[16]);
/* ff02::1:ffXX:XXXX, the last 24 bits of ip. */
void nd_solicited_node(const uint8_t ip[16], uint8_t group[16]);
/* 33:33 and the last 32 bits of a multicast address (RFC 2464). */
void nd_multicast_mac(const uint8_t group[16], uint8_t mac[6]);
/* The ICMPv6 checksum of len bytes of message between src and dst (RFC 8200 8.1). */
uint16_t nd_icmp6_csum(const uint8_t src[16], const uint8_t dst[16], const uint8_t *msg,
		       size_t len);

/*
 * The solicitation that resolves target from the port (mac, src): to target's
 * solicited-node group, with the source link-layer option. Returns ND_FRAME_LEN.
 */
size_t nd_build_solicit(const uint8_t mac[6], const uint8_t src[16], const uint8_t target[16],
			uint8_t frame[ND_FRAME_LEN]);

/*
 * The advertisement a neighbour (mac, src) answers with: from src to dst (Ethernet eth_dst),
 * target src, flags (ND_FLAG_*), with the target link-layer option. Returns ND_FRAME_LEN.
 */
#define ND_FLAG_SOLICITED 0x40000000u
#define ND_FLAG_OVERRIDE 0x20000000u
size_t nd_build_advert(const uint8_t eth_dst[6], const uint8_t mac[6], const uint8_t src[16],
		       const uint8_t dst[16], uint32_t flags, uint8_t frame[ND_FRAME_LEN]);

#define ND_MAX_MSG 32 /* the longest solicitation read: the message and one option */

/* In the order of precedence the RTL (rtl/net/nd.v) shares. */
enum nd_verdict {
	ND_ANSWERED,   /* a solicitation for one of our addresses: advertised */
	ND_IGNORED,    /* ICMPv6 that is neither a solicitation nor an advertisement */
	ND_NOT_OURS,   /* a good solicitation for another address, or to another MAC; a good
			* advertisement not to our MAC or all nodes, or not to us or all nodes */
	ND_MALFORMED,  /* not IPv6/ICMPv6, lengths, checksum, or RFC 4861 7.1.1/7.1.2's checks */
	ND_TOO_LONG,   /* a message with more than one option (over ND_MAX_MSG bytes) */
	ND_ADVERTISED, /* a good advertisement to us: its target is learned */
	ND_ECHO,       /* an echo request: icmp6_echo_answer()'s to judge */
	ND_VERDICTS
};

const char *nd_verdict_name(enum nd_verdict v);

/*
 * What a neighbour cache learns from a frame nd_answer() judged v: for ND_ADVERTISED the
 * target at its target link-layer address (else the frame's source MAC), *request false;
 * for ND_ANSWERED from a unicast source with a source link-layer option, the source at that
 * address, *request true. Returns false when nothing is learned.
 */
bool nd_learned(const uint8_t *frame, size_t len, enum nd_verdict v, uint8_t addr[16],
		uint8_t mac[6], bool *request);

/*
 * What the port (mac, its addresses) does with a frame; for ND_ANSWERED the advertisement
 * (ND_FRAME_LEN bytes): from the target address, solicited (S) unless the solicitation
 * came from :: (duplicate address detection: then to all nodes, ff02::1), override (O) set,
 * with the target link-layer option.
 */
enum nd_verdict nd_answer(const uint8_t *frame, size_t len, const uint8_t mac[6],
			  const uint8_t (*addrs)[16], size_t naddrs, uint8_t reply[ND_FRAME_LEN]);

/*
 * ICMPv6 echo (RFC 4443), as the RTL's icmp_echo (IPV6 set) answers it. Verdicts in the
 * order of NET_COUNTER ICMP6_*; ICMP6_FOREIGN is ICMPv6 that is not an echo request (nd's).
 */
#define ND_ECHO_REQUEST 128
#define ND_ECHO_REPLY 129
#define ND_ECHO_HOP_LIMIT 64 /* of the replies: Linux's default */
#define ND_ECHO_HDR 62	     /* Ethernet, IPv6, the echo header (type to sequence) */

enum icmp6_verdict {
	ICMP6_ANSWERED,
	ICMP6_NOT_OURS,	 /* not to one of our addresses, or not to our MAC */
	ICMP6_MALFORMED, /* payload length, code, checksum */
	ICMP6_TOO_LONG,	 /* longer than max_frame */
	ICMP6_OVERFLOW,	 /* the RTL's alone: no room for the reply */
	ICMP6_FOREIGN,	 /* not an ICMPv6 echo request: no verdict of the echo block */
	ICMP6_VERDICTS
};

const char *icmp6_verdict_name(enum icmp6_verdict v);

/* An echo request (type 128) or reply with len bytes of data, checksum computed. */
size_t icmp6_build_echo(const uint8_t eth_dst[6], const uint8_t eth_src[6], const uint8_t src[16],
			const uint8_t dst[16], uint8_t type, uint16_t id, uint16_t seq,
			const void *data, size_t len, uint8_t *frame, size_t cap);

/*
 * The verdict on a frame to the port (mac, its addresses) and for ICMP6_ANSWERED the reply
 * (*reply_len bytes, at most max_frame): the request's IPv6 packet with the addresses
 * swapped, hop limit ND_ECHO_HOP_LIMIT, type 129, the checksum anew.
 */
enum icmp6_verdict icmp6_echo_answer(const uint8_t *frame, size_t len, const uint8_t mac[6],
				     const uint8_t (*addrs)[16], size_t naddrs, size_t max_frame,
				     uint8_t *reply, size_t *reply_len);

#endif /* HROCE_ND_WIRE_H */
