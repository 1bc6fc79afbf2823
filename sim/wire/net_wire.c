// SPDX-License-Identifier: MIT
#include "net_wire.h"

#include <string.h>

#define ETH_LEN 14
#define IP_LEN 20

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

size_t arp_build(const struct arp_pkt *a, uint8_t frame[NET_MIN_FRAME])
{
	memset(frame, 0, NET_MIN_FRAME);
	memcpy(frame, a->eth_dst, 6);
	memcpy(frame + 6, a->eth_src, 6);
	put_be(frame + 12, NET_ETH_TYPE_ARP, 2);
	put_be(frame + 14, 1, 2);
	put_be(frame + 16, NET_ETH_TYPE_IPV4, 2);
	frame[18] = 6;
	frame[19] = 4;
	put_be(frame + 20, a->op, 2);
	memcpy(frame + 22, a->sha, 6);
	put_be(frame + 28, a->spa, 4);
	memcpy(frame + 32, a->tha, 6);
	put_be(frame + 38, a->tpa, 4);
	return NET_MIN_FRAME;
}

bool arp_parse(const uint8_t *f, size_t len, struct arp_pkt *a)
{
	memset(a, 0, sizeof(*a));
	if (len < NET_ARP_LEN)
		return false;
	memcpy(a->eth_dst, f, 6);
	memcpy(a->eth_src, f + 6, 6);
	a->op = (uint16_t)get_be(f + 20, 2);
	memcpy(a->sha, f + 22, 6);
	a->spa = (uint32_t)get_be(f + 28, 4);
	memcpy(a->tha, f + 32, 6);
	a->tpa = (uint32_t)get_be(f + 38, 4);
	return get_be(f + 12, 2) == NET_ETH_TYPE_ARP && get_be(f + 14, 2) == 1 &&
	       get_be(f + 16, 2) == NET_ETH_TYPE_IPV4 && f[18] == 6 && f[19] == 4 &&
	       (a->op == NET_ARP_REQUEST || a->op == NET_ARP_REPLY);
}

uint16_t net_csum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)b[i] << 8 | b[i + 1];
	if (len & 1)
		sum += (uint32_t)b[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

size_t icmp_build(const struct icmp_frame *h, const void *data, size_t len, uint8_t *f, size_t cap)
{
	size_t ip_total = IP_LEN + 8 + len;
	size_t flen = ETH_LEN + ip_total;
	uint8_t *ip = f + ETH_LEN, *icmp = ip + IP_LEN;

	if (flen < NET_MIN_FRAME)
		flen = NET_MIN_FRAME;
	if (flen > cap || ip_total > 0xffff)
		return 0;
	memset(f, 0, flen);
	memcpy(f, h->eth_dst, 6);
	memcpy(f + 6, h->eth_src, 6);
	put_be(f + 12, NET_ETH_TYPE_IPV4, 2);
	ip[0] = 0x45;
	ip[1] = h->tos;
	put_be(ip + 2, ip_total, 2);
	put_be(ip + 4, h->ip_id, 2);
	put_be(ip + 6, h->df ? 0x4000 : 0, 2);
	ip[8] = h->ttl;
	ip[9] = NET_IP_PROTO_ICMP;
	put_be(ip + 12, h->ip_src, 4);
	put_be(ip + 16, h->ip_dst, 4);
	put_be(ip + 10, net_csum(ip, IP_LEN), 2);
	icmp[0] = h->type;
	icmp[1] = h->code;
	put_be(icmp + 4, h->id, 2);
	put_be(icmp + 6, h->seq, 2);
	if (len)
		memcpy(icmp + 8, data, len);
	put_be(icmp + 2, net_csum(icmp, 8 + len), 2);
	return flen;
}

const char *icmp_verdict_name(enum icmp_verdict v)
{
	static const char *const names[] = {
		"answered", "ignored", "not_ours", "malformed", "too_long", "overflow",
	};

	return v < ICMP_VERDICTS ? names[v] : "unknown";
}

enum icmp_verdict icmp_echo_answer(const uint8_t *f, size_t len, const uint8_t mac[6],
				   uint32_t my_ip, size_t max_frame, uint8_t *reply,
				   size_t *reply_len)
{
	const uint8_t *ip = f + ETH_LEN, *icmp = ip + IP_LEN;
	size_t ip_total, frame_len;
	uint16_t frag;
	uint8_t *rip, *ricmp;

	*reply_len = 0;
	if (len < NET_ICMP_HDR || get_be(f + 12, 2) != NET_ETH_TYPE_IPV4 || ip[0] != 0x45)
		return ICMP_MALFORMED;
	frag = (uint16_t)get_be(ip + 6, 2);
	ip_total = (size_t)get_be(ip + 2, 2);
	if ((frag & 0x2000) || (frag & 0x1fff) || ip_total < IP_LEN + 8 ||
	    len < ETH_LEN + ip_total || ip[9] != NET_IP_PROTO_ICMP || net_csum(ip, IP_LEN))
		return ICMP_MALFORMED;
	if (!my_ip || get_be(ip + 16, 4) != my_ip || memcmp(f, mac, 6))
		return ICMP_NOT_OURS;
	if (icmp[0] != NET_ICMP_ECHO_REQUEST || icmp[1] != 0)
		return ICMP_IGNORED;
	if (f[6] & 1) /* a group source MAC: the reply would go to the whole group */
		return ICMP_MALFORMED;
	if (ETH_LEN + ip_total > max_frame)
		return ICMP_TOO_LONG;
	if (net_csum(icmp, ip_total - IP_LEN))
		return ICMP_MALFORMED;

	/* the reply: the IP packet as it came, then every field the reply changes */
	frame_len = ETH_LEN + ip_total < NET_MIN_FRAME ? NET_MIN_FRAME : ETH_LEN + ip_total;
	memset(reply, 0, frame_len);
	memcpy(reply, f, ETH_LEN + ip_total);
	rip = reply + ETH_LEN;
	ricmp = rip + IP_LEN;
	memcpy(reply, f + 6, 6);
	memcpy(reply + 6, mac, 6);
	rip[8] = NET_REPLY_TTL;
	put_be(rip + 10, 0, 2);
	put_be(rip + 12, my_ip, 4);
	memcpy(rip + 16, ip + 12, 4);
	put_be(rip + 10, net_csum(rip, IP_LEN), 2);
	ricmp[0] = NET_ICMP_ECHO_REPLY;
	ricmp[1] = 0;
	put_be(ricmp + 2, 0, 2);
	put_be(ricmp + 2, net_csum(ricmp, ip_total - IP_LEN), 2);
	*reply_len = frame_len;
	return ICMP_ANSWERED;
}
