// SPDX-License-Identifier: MIT
#include "nd_wire.h"

#include <string.h>

#define ETH_LEN 14
#define IP6_LEN 40
#define ND_MSG_LEN 24 /* type, code, checksum, flags or reserved, target */

static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
static const uint8_t unspecified[16];

static void put_be(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t get_be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

void nd_link_local(const uint8_t mac[6], uint8_t ip[16])
{
	memset(ip, 0, 16);
	ip[0] = 0xfe;
	ip[1] = 0x80;
	ip[8] = mac[0] ^ 0x02;
	ip[9] = mac[1];
	ip[10] = mac[2];
	ip[11] = 0xff;
	ip[12] = 0xfe;
	memcpy(ip + 13, mac + 3, 3);
}

void nd_solicited_node(const uint8_t ip[16], uint8_t group[16])
{
	static const uint8_t prefix[13] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };

	memcpy(group, prefix, 13);
	memcpy(group + 13, ip + 13, 3);
}

void nd_multicast_mac(const uint8_t group[16], uint8_t mac[6])
{
	mac[0] = mac[1] = 0x33;
	memcpy(mac + 2, group + 12, 4);
}

uint16_t nd_icmp6_csum(const uint8_t src[16], const uint8_t dst[16], const uint8_t *msg, size_t len)
{
	uint64_t sum = 0;

	for (int i = 0; i < 16; i += 2)
		sum += get_be(src + i, 2) + get_be(dst + i, 2);
	sum += len + ND_IP_PROTO_ICMPV6; /* the pseudo-header's length and next header */
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += get_be(msg + i, 2);
	if (len & 1)
		sum += (uint64_t)msg[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* An ND frame of one message and one link-layer option, checksum computed. */
static size_t build(const uint8_t eth_dst[6], const uint8_t mac[6], const uint8_t src[16],
		    const uint8_t dst[16], uint8_t type, uint32_t flags, const uint8_t target[16],
		    uint8_t opt, uint8_t *f)
{
	uint8_t *ip = f + ETH_LEN, *msg = ip + IP6_LEN;

	memset(f, 0, ND_FRAME_LEN);
	memcpy(f, eth_dst, 6);
	memcpy(f + 6, mac, 6);
	put_be(f + 12, ND_ETH_TYPE_IPV6, 2);
	ip[0] = 0x60;
	put_be(ip + 4, ND_MSG_LEN + 8, 2);
	ip[6] = ND_IP_PROTO_ICMPV6;
	ip[7] = ND_HOP_LIMIT;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	msg[0] = type;
	put_be(msg + 4, flags, 4);
	memcpy(msg + 8, target, 16);
	msg[24] = opt;
	msg[25] = 1; /* 8 bytes */
	memcpy(msg + 26, mac, 6);
	put_be(msg + 2, nd_icmp6_csum(src, dst, msg, ND_MSG_LEN + 8), 2);
	return ND_FRAME_LEN;
}

size_t nd_build_solicit(const uint8_t mac[6], const uint8_t src[16], const uint8_t target[16],
			uint8_t frame[ND_FRAME_LEN])
{
	uint8_t group[16], eth_dst[6];

	nd_solicited_node(target, group);
	nd_multicast_mac(group, eth_dst);
	return build(eth_dst, mac, src, group, ND_SOLICIT, 0, target, ND_OPT_SLLA, frame);
}

size_t nd_build_advert(const uint8_t eth_dst[6], const uint8_t mac[6], const uint8_t src[16],
		       const uint8_t dst[16], uint32_t flags, uint8_t frame[ND_FRAME_LEN])
{
	return build(eth_dst, mac, src, dst, ND_ADVERT, flags, src, ND_OPT_TLLA, frame);
}

const char *nd_verdict_name(enum nd_verdict v)
{
	static const char *const names[] = { "answered", "ignored", "not_ours", "malformed",
					     "too_long", "advert",  "echo" };

	return v < ND_VERDICTS ? names[v] : "unknown";
}

enum nd_verdict nd_answer(const uint8_t *f, size_t len, const uint8_t mac[6],
			  const uint8_t (*addrs)[16], size_t naddrs, uint8_t reply[ND_FRAME_LEN])
{
	const uint8_t *ip = f + ETH_LEN, *msg = ip + IP6_LEN, *src, *dst, *target, *slla = NULL;
	uint8_t group[16], group_mac[6], eth_dst[6];
	bool from_unspecified, ours = false;
	size_t plen;

	if (len < ETH_LEN + IP6_LEN + 4 || get_be(f + 12, 2) != ND_ETH_TYPE_IPV6 ||
	    ip[0] >> 4 != 6 || ip[6] != ND_IP_PROTO_ICMPV6)
		return ND_MALFORMED;
	if (msg[0] == ND_ECHO_REQUEST)
		return ND_ECHO;
	plen = (size_t)get_be(ip + 4, 2);
	src = ip + 8;
	dst = ip + 24;
	if (plen < 4 || len < ETH_LEN + IP6_LEN + plen)
		return ND_MALFORMED;
	if (msg[0] != ND_SOLICIT && msg[0] != ND_ADVERT)
		return ND_IGNORED;
	if (plen > ND_MAX_MSG)
		return ND_TOO_LONG;
	if (nd_icmp6_csum(src, dst, msg, plen))
		return ND_MALFORMED;
	/* RFC 4861 7.1.1 */
	if (ip[7] != ND_HOP_LIMIT || msg[1] != 0 || plen < ND_MSG_LEN || msg[8] == 0xff)
		return ND_MALFORMED;
	for (size_t at = ND_MSG_LEN; at < plen; at += (size_t)msg[at + 1] * 8) {
		if (at + 2 > plen || !msg[at + 1] || at + (size_t)msg[at + 1] * 8 > plen)
			return ND_MALFORMED;
		if (msg[at] == ND_OPT_SLLA && msg[at + 1] == 1)
			slla = msg + at + 2;
	}
	target = msg + 8;
	if (msg[0] == ND_ADVERT) {
		uint8_t all_nodes_mac[6];

		/* RFC 4861 7.1.2: solicited answers are never multicast */
		if (dst[0] == 0xff && msg[4] & 0x40)
			return ND_MALFORMED;
		nd_multicast_mac(all_nodes, all_nodes_mac);
		ours = !memcmp(dst, all_nodes, 16);
		for (size_t i = 0; i < naddrs && !ours; i++)
			ours = !memcmp(addrs[i], dst, 16);
		if ((memcmp(f, mac, 6) && memcmp(f, all_nodes_mac, 6)) || !ours)
			return ND_NOT_OURS;
		return ND_ADVERTISED;
	}
	nd_solicited_node(target, group);
	from_unspecified = !memcmp(src, unspecified, 16);
	if (from_unspecified && (memcmp(dst, group, 16) || slla))
		return ND_MALFORMED;

	/* to us: our MAC or the target's group, and the target itself or its group */
	nd_multicast_mac(group, group_mac);
	for (size_t i = 0; i < naddrs && !ours; i++)
		ours = !memcmp(addrs[i], target, 16);
	if (!ours || (memcmp(f, mac, 6) && memcmp(f, group_mac, 6)) ||
	    (memcmp(dst, target, 16) && memcmp(dst, group, 16)))
		return ND_NOT_OURS;

	if (from_unspecified) {
		nd_multicast_mac(all_nodes, eth_dst);
		build(eth_dst, mac, target, all_nodes, ND_ADVERT, 0x20000000, target, ND_OPT_TLLA,
		      reply);
	} else {
		memcpy(eth_dst, slla ? slla : f + 6, 6);
		build(eth_dst, mac, target, src, ND_ADVERT, 0x60000000, target, ND_OPT_TLLA, reply);
	}
	return ND_ANSWERED;
}

bool nd_learned(const uint8_t *frame, size_t len, enum nd_verdict v, uint8_t addr[16],
		uint8_t mac[6], bool *request)
{
	const uint8_t *msg = frame + ETH_LEN + IP6_LEN, *opt = msg + ND_MSG_LEN;
	/* the verdicts below were given to messages of one option at most */
	bool lla = len >= ETH_LEN + IP6_LEN + ND_MAX_MSG &&
		   get_be(frame + ETH_LEN + 4, 2) == ND_MAX_MSG && opt[1] == 1;

	if (v == ND_ADVERTISED) {
		memcpy(addr, msg + 8, 16);
		memcpy(mac, lla && opt[0] == ND_OPT_TLLA ? opt + 2 : frame + 6, 6);
		*request = false;
		return true;
	}
	if (v != ND_ANSWERED || !lla || opt[0] != ND_OPT_SLLA ||
	    !memcmp(frame + ETH_LEN + 8, unspecified, 16))
		return false;
	memcpy(addr, frame + ETH_LEN + 8, 16);
	memcpy(mac, opt + 2, 6);
	*request = true;
	return true;
}

const char *icmp6_verdict_name(enum icmp6_verdict v)
{
	static const char *const names[] = { "answered", "not_ours", "malformed",
					     "too_long", "overflow", "foreign" };

	return v < ICMP6_VERDICTS ? names[v] : "unknown";
}

size_t icmp6_build_echo(const uint8_t eth_dst[6], const uint8_t eth_src[6], const uint8_t src[16],
			const uint8_t dst[16], uint8_t type, uint16_t id, uint16_t seq,
			const void *data, size_t len, uint8_t *f, size_t cap)
{
	uint8_t *ip = f + ETH_LEN, *msg = ip + IP6_LEN;
	size_t plen = 8 + len;

	if (ND_ECHO_HDR + len > cap)
		return 0;
	memcpy(f, eth_dst, 6);
	memcpy(f + 6, eth_src, 6);
	put_be(f + 12, ND_ETH_TYPE_IPV6, 2);
	memset(ip, 0, IP6_LEN);
	ip[0] = 0x60;
	put_be(ip + 4, plen, 2);
	ip[6] = ND_IP_PROTO_ICMPV6;
	ip[7] = ND_ECHO_HOP_LIMIT;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	msg[0] = type;
	msg[1] = 0;
	msg[2] = msg[3] = 0;
	put_be(msg + 4, id, 2);
	put_be(msg + 6, seq, 2);
	if (len)
		memcpy(msg + 8, data, len);
	put_be(msg + 2, nd_icmp6_csum(src, dst, msg, plen), 2);
	return ND_ECHO_HDR + len;
}

enum icmp6_verdict icmp6_echo_answer(const uint8_t *f, size_t len, const uint8_t mac[6],
				     const uint8_t (*addrs)[16], size_t naddrs, size_t max_frame,
				     uint8_t *reply, size_t *reply_len)
{
	const uint8_t *ip = f + ETH_LEN, *msg = ip + IP6_LEN;
	uint8_t *rip = reply + ETH_LEN, *rmsg = rip + IP6_LEN;
	size_t plen;
	bool ours = false;

	if (len < ETH_LEN + IP6_LEN + 4 || get_be(f + 12, 2) != ND_ETH_TYPE_IPV6 ||
	    ip[0] >> 4 != 6 || ip[6] != ND_IP_PROTO_ICMPV6 || msg[0] != ND_ECHO_REQUEST)
		return ICMP6_FOREIGN;
	plen = (size_t)get_be(ip + 4, 2);
	if (plen < 8 || len < ETH_LEN + IP6_LEN + plen)
		return ICMP6_MALFORMED;
	for (size_t i = 0; i < naddrs && !ours; i++)
		ours = !memcmp(addrs[i], ip + 24, 16);
	if (!ours || memcmp(f, mac, 6))
		return ICMP6_NOT_OURS;
	if (msg[1] != 0 || (f[6] & 1)) /* a code, or a group source MAC */
		return ICMP6_MALFORMED;
	if (ETH_LEN + IP6_LEN + plen > max_frame)
		return ICMP6_TOO_LONG;
	if (nd_icmp6_csum(ip + 8, ip + 24, msg, plen))
		return ICMP6_MALFORMED;
	*reply_len = ETH_LEN + IP6_LEN + plen;
	memcpy(reply, f, *reply_len);
	memcpy(reply, f + 6, 6);
	memcpy(reply + 6, mac, 6);
	rip[7] = ND_ECHO_HOP_LIMIT;
	memcpy(rip + 8, ip + 24, 16);
	memcpy(rip + 24, ip + 8, 16);
	rmsg[0] = ND_ECHO_REPLY;
	rmsg[2] = rmsg[3] = 0;
	put_be(rmsg + 2, nd_icmp6_csum(rip + 8, rip + 24, rmsg, plen), 2);
	return ICMP6_ANSWERED;
}
