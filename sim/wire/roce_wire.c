// SPDX-License-Identifier: MIT
#include "roce_wire.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define ETH_TYPE_IPV4 0x0800
#define ETH_TYPE_IPV6 0x86dd
#define ETH_TYPE_VLAN 0x8100
#define BTH_LEN 12
#define ICRC_LEN 4
#define IP4_LEN 20
#define IP6_LEN 40
#define UDP_LEN 8
/* from the IP header's start, for an IP header of iph bytes: UDP, BTH, extension headers */
#define UDP_OFF(iph) (iph)
#define BTH_OFF(iph) ((iph) + UDP_LEN)
#define EXT_OFF(iph) ((iph) + UDP_LEN + BTH_LEN)

#define OP(op, n, e, p) [op] = { n, e, 0, p }

static struct roce_opcode_info opcodes[256] = {
	OP(0x00, "RC_SEND_FIRST", 0, true),
	OP(0x01, "RC_SEND_MIDDLE", 0, true),
	OP(0x02, "RC_SEND_LAST", 0, true),
	OP(0x03, "RC_SEND_LAST_WITH_IMMEDIATE", ROCE_EXT_IMMDT, true),
	OP(0x04, "RC_SEND_ONLY", 0, true),
	OP(0x05, "RC_SEND_ONLY_WITH_IMMEDIATE", ROCE_EXT_IMMDT, true),
	OP(0x06, "RC_RDMA_WRITE_FIRST", ROCE_EXT_RETH, true),
	OP(0x07, "RC_RDMA_WRITE_MIDDLE", 0, true),
	OP(0x08, "RC_RDMA_WRITE_LAST", 0, true),
	OP(0x09, "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", ROCE_EXT_IMMDT, true),
	OP(0x0a, "RC_RDMA_WRITE_ONLY", ROCE_EXT_RETH, true),
	OP(0x0b, "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", ROCE_EXT_RETH | ROCE_EXT_IMMDT, true),
	OP(0x0c, "RC_RDMA_READ_REQUEST", ROCE_EXT_RETH, false),
	OP(0x0d, "RC_RDMA_READ_RESPONSE_FIRST", ROCE_EXT_AETH, true),
	OP(0x0e, "RC_RDMA_READ_RESPONSE_MIDDLE", 0, true),
	OP(0x0f, "RC_RDMA_READ_RESPONSE_LAST", ROCE_EXT_AETH, true),
	OP(0x10, "RC_RDMA_READ_RESPONSE_ONLY", ROCE_EXT_AETH, true),
	OP(0x11, "RC_ACKNOWLEDGE", ROCE_EXT_AETH, false),
	OP(0x12, "RC_ATOMIC_ACKNOWLEDGE", ROCE_EXT_AETH | ROCE_EXT_ATOMICACK, false),
	OP(0x13, "RC_COMPARE_SWAP", ROCE_EXT_ATOMIC, false),
	OP(0x14, "RC_FETCH_ADD", ROCE_EXT_ATOMIC, false),
	OP(0x16, "RC_SEND_LAST_WITH_INVALIDATE", ROCE_EXT_IETH, true),
	OP(0x17, "RC_SEND_ONLY_WITH_INVALIDATE", ROCE_EXT_IETH, true),
	OP(0x20, "UC_SEND_FIRST", 0, true),
	OP(0x21, "UC_SEND_MIDDLE", 0, true),
	OP(0x22, "UC_SEND_LAST", 0, true),
	OP(0x23, "UC_SEND_LAST_WITH_IMMEDIATE", ROCE_EXT_IMMDT, true),
	OP(0x24, "UC_SEND_ONLY", 0, true),
	OP(0x25, "UC_SEND_ONLY_WITH_IMMEDIATE", ROCE_EXT_IMMDT, true),
	OP(0x26, "UC_RDMA_WRITE_FIRST", ROCE_EXT_RETH, true),
	OP(0x27, "UC_RDMA_WRITE_MIDDLE", 0, true),
	OP(0x28, "UC_RDMA_WRITE_LAST", 0, true),
	OP(0x29, "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE", ROCE_EXT_IMMDT, true),
	OP(0x2a, "UC_RDMA_WRITE_ONLY", ROCE_EXT_RETH, true),
	OP(0x2b, "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", ROCE_EXT_RETH | ROCE_EXT_IMMDT, true),
	OP(0x64, "UD_SEND_ONLY", ROCE_EXT_DETH, true),
	OP(0x65, "UD_SEND_ONLY_WITH_IMMEDIATE", ROCE_EXT_DETH | ROCE_EXT_IMMDT, true),
};

static const unsigned int ext_sizes[] = { 8, 16, 28, 4, 8, 4, 4 };

const struct roce_opcode_info *roce_opcode_info(uint8_t opcode)
{
	struct roce_opcode_info *o = &opcodes[opcode];

	if (!o->name)
		return NULL;
	if (o->ext && !o->ext_len)
		for (unsigned int i = 0; i < 7; i++)
			o->ext_len += (o->ext >> i & 1) * ext_sizes[i];
	return o;
}

const char *roce_verdict_name(enum roce_verdict v)
{
	static const char *const names[] = {
		"ok",	     "not_roce",       "truncated",	"ip_header", "ip_checksum",
		"length",    "bad_opcode",     "icrc",		"runt",	     "giant",
		"mac_error", "ip6_ext_header", "ip6_hop_limit",
	};

	return v < ROCE_VERDICTS ? names[v] : "unknown";
}

/* Big-endian fields, n bytes. */
static void put_be(uint8_t *p, uint64_t v, unsigned int n)
{
	while (n--) {
		p[n] = (uint8_t)v;
		v >>= 8;
	}
}

static uint64_t get_be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

uint32_t roce_crc32_update(uint32_t state, const void *p, size_t n)
{
	static uint32_t table[256];
	const uint8_t *b = p;

	if (!table[1]) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c >> 1 ^ (c & 1 ? 0xedb88320u : 0);
			table[i] = c;
		}
	}
	while (n--)
		state = table[(state ^ *b++) & 0xff] ^ state >> 8;
	return state;
}

bool roce_ip6_ext_header(uint8_t nh)
{
	switch (nh) {
	case 0:	  /* hop-by-hop options */
	case 43:  /* routing */
	case 44:  /* fragment */
	case 50:  /* ESP */
	case 51:  /* AH */
	case 60:  /* destination options */
	case 135: /* mobility */
	case 139: /* HIP */
	case 140: /* shim6 */
	case 253:
	case 254: /* experiments */
		return true;
	default:
		return false;
	}
}

bool roce_ip6_upper(const uint8_t *f, size_t len, uint8_t *proto, size_t *off)
{
	size_t l2 = len >= 14 && get_be(f + 12, 2) == ETH_TYPE_VLAN ? 18 : 14, at = l2 + IP6_LEN;
	uint8_t nh;

	if (len < at || get_be(f + l2 - 2, 2) != ETH_TYPE_IPV6)
		return false;
	nh = f[l2 + 6];
	while (roce_ip6_ext_header(nh)) {
		size_t hlen;

		if (nh == 50 || at + 8 > len)
			return false;
		if (nh == 44)
			hlen = 8; /* fragment: fixed */
		else if (nh == 51)
			hlen = ((size_t)f[at + 1] + 2) * 4; /* AH counts 4-byte words */
		else
			hlen = ((size_t)f[at + 1] + 1) * 8;
		nh = f[at];
		at += hlen;
	}
	if (at > len)
		return false;
	*proto = nh;
	*off = at;
	return true;
}

uint32_t roce_icrc(const uint8_t *ip, size_t ip_len)
{
	size_t iph = ip[0] >> 4 == 6 ? IP6_LEN : IP4_LEN;
	uint8_t masked[EXT_OFF(IP6_LEN)];
	uint32_t crc;

	memcpy(masked, ip, EXT_OFF(iph));
	if (iph == IP6_LEN) {
		/* the variant fields read as ones: traffic class, flow label, hop limit */
		masked[0] |= 0x0f;
		masked[1] = masked[2] = masked[3] = 0xff;
		masked[7] = 0xff;
	} else {
		/* TOS, TTL, IP checksum */
		masked[1] = 0xff;
		masked[8] = 0xff;
		masked[10] = masked[11] = 0xff;
	}
	/* and the UDP checksum, and the BTH byte with FECN and BECN */
	masked[UDP_OFF(iph) + 6] = masked[UDP_OFF(iph) + 7] = 0xff;
	masked[BTH_OFF(iph) + 4] = 0xff;
	crc = roce_crc32_update(ROCE_ICRC_SEED, masked, EXT_OFF(iph));
	crc = roce_crc32_update(crc, ip + EXT_OFF(iph), ip_len - EXT_OFF(iph) - ICRC_LEN);
	return ~crc;
}

uint16_t roce_udp_sport(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t v = (uint64_t)lqpn * rqpn;
	uint32_t fl;

	v ^= v >> 20;
	v ^= v >> 40;
	fl = (uint32_t)v & 0xfffff;
	return (uint16_t)(0xc000 | ((fl & 0x3fff) ^ (fl >> 14)));
}

static uint16_t ip_checksum(const uint8_t *ip)
{
	uint32_t sum = 0;

	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)get_be(ip + i, 2);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

size_t roce_hdr_len(const struct roce_hdr *h)
{
	const struct roce_opcode_info *o = roce_opcode_info(h->opcode);

	return (h->vlan_valid ? 18 : 14) + EXT_OFF(h->ip6 ? IP6_LEN : IP4_LEN) +
	       (o ? o->ext_len : 0);
}

/* Writes (or, with !write, reads) the extension headers the opcode carries at p. */
static void ext_headers(struct roce_hdr *h, unsigned int ext, uint8_t *p, bool write)
{
#define FIELD(f, off, n)                             \
	do {                                         \
		if (write)                           \
			put_be(p + (off), h->f, n);  \
		else                                 \
			h->f = get_be(p + (off), n); \
	} while (0)
	if (ext & ROCE_EXT_DETH) {
		FIELD(deth_qkey, 0, 4);
		FIELD(deth_src_qp, 5, 3);
		if (write)
			p[4] = 0;
		p += 8;
	}
	if (ext & ROCE_EXT_RETH) {
		FIELD(reth_va, 0, 8);
		FIELD(reth_rkey, 8, 4);
		FIELD(reth_dma_len, 12, 4);
		p += 16;
	}
	if (ext & ROCE_EXT_ATOMIC) {
		FIELD(atomic_va, 0, 8);
		FIELD(atomic_rkey, 8, 4);
		FIELD(atomic_swap_add, 12, 8);
		FIELD(atomic_compare, 20, 8);
		p += 28;
	}
	if (ext & ROCE_EXT_AETH) {
		FIELD(aeth_syndrome, 0, 1);
		FIELD(aeth_msn, 1, 3);
		p += 4;
	}
	if (ext & ROCE_EXT_ATOMICACK) {
		FIELD(atomicack_orig, 0, 8);
		p += 8;
	}
	if (ext & ROCE_EXT_IMMDT) {
		FIELD(immdt, 0, 4);
		p += 4;
	}
	if (ext & ROCE_EXT_IETH)
		FIELD(ieth_rkey, 0, 4);
#undef FIELD
}

int roce_build_frame(const struct roce_hdr *h, const void *payload, bool pad_to_min, uint8_t *frame,
		     size_t cap, size_t *len)
{
	const struct roce_opcode_info *o = roce_opcode_info(h->opcode);
	unsigned int pad = (4 - h->payload_len % 4) % 4;
	size_t l2 = h->vlan_valid ? 18 : 14, iph = h->ip6 ? IP6_LEN : IP4_LEN, ip_len, total;
	uint8_t tclass = (uint8_t)(h->ip_dscp << 2 | (h->ip_ecn & 3));
	struct roce_hdr copy = *h;
	uint8_t *ip, *bth;

	if (!o || h->payload_len > 8191)
		return EINVAL;
	ip_len = EXT_OFF(iph) + o->ext_len + h->payload_len + pad + ICRC_LEN;
	total = l2 + ip_len;
	if (pad_to_min && total < ROCE_MIN_FRAME)
		total = ROCE_MIN_FRAME;
	if (total > cap)
		return ENOSPC;
	memset(frame, 0, total);
	memcpy(frame, h->eth_dst, 6);
	memcpy(frame + 6, h->eth_src, 6);
	if (h->vlan_valid) {
		put_be(frame + 12, ETH_TYPE_VLAN, 2);
		put_be(frame + 14, h->vlan_tci, 2);
	}
	put_be(frame + l2 - 2, h->ip6 ? ETH_TYPE_IPV6 : ETH_TYPE_IPV4, 2);

	ip = frame + l2;
	if (h->ip6) {
		put_be(ip, 6u << 28 | (uint32_t)tclass << 20 | (h->flow_label & 0xfffff), 4);
		put_be(ip + 4, ip_len - IP6_LEN, 2);
		ip[6] = 17;
		ip[7] = h->ip_ttl;
		memcpy(ip + 8, h->ip6_src, 16);
		memcpy(ip + 24, h->ip6_dst, 16);
	} else {
		ip[0] = 0x45;
		ip[1] = tclass;
		put_be(ip + 2, ip_len, 2);
		put_be(ip + 4, h->ip_id, 2);
		put_be(ip + 6, (uint16_t)(h->ip_flags & 7) << 13, 2);
		ip[8] = h->ip_ttl;
		ip[9] = 17;
		put_be(ip + 12, h->ip_src, 4);
		put_be(ip + 16, h->ip_dst, 4);
		put_be(ip + 10, ip_checksum(ip), 2);
	}

	put_be(ip + UDP_OFF(iph), h->udp_sport, 2);
	put_be(ip + UDP_OFF(iph) + 2, ROCE_UDP_PORT, 2);
	put_be(ip + UDP_OFF(iph) + 4, ip_len - UDP_OFF(iph), 2);

	bth = ip + BTH_OFF(iph);
	bth[0] = h->opcode;
	bth[1] = (uint8_t)(h->se << 7 | h->migreq << 6 | pad << 4 | (h->tver & 0xf));
	put_be(bth + 2, h->pkey, 2);
	bth[4] = (uint8_t)(h->fecn << 7 | h->becn << 6);
	put_be(bth + 5, h->dqpn, 3);
	bth[8] = (uint8_t)(h->ackreq << 7);
	put_be(bth + 9, h->psn, 3);
	ext_headers(&copy, o->ext, ip + EXT_OFF(iph), true);
	if (h->payload_len)
		memcpy(ip + EXT_OFF(iph) + o->ext_len, payload, h->payload_len);
	put_be(ip + ip_len - ICRC_LEN, __builtin_bswap32(roce_icrc(ip, ip_len)), 4);
	*len = total;
	return 0;
}

/* The UDP and BTH fields, at ip + iph (not the extension headers behind them). */
static void bth_fields(const uint8_t *ip, size_t iph, struct roce_hdr *h)
{
	const uint8_t *bth = ip + BTH_OFF(iph);

	h->udp_sport = (uint16_t)get_be(ip + UDP_OFF(iph), 2);
	h->udp_csum = (uint16_t)get_be(ip + UDP_OFF(iph) + 6, 2);
	h->opcode = bth[0];
	h->se = bth[1] >> 7;
	h->migreq = bth[1] >> 6 & 1;
	h->pad = bth[1] >> 4 & 3;
	h->tver = bth[1] & 0xf;
	h->pkey = (uint16_t)get_be(bth + 2, 2);
	h->fecn = bth[4] >> 7;
	h->becn = bth[4] >> 6 & 1;
	h->dqpn = (uint32_t)get_be(bth + 5, 3);
	h->ackreq = bth[8] >> 7;
	h->psn = (uint32_t)get_be(bth + 9, 3);
}

/* The IP header's fields (iph bytes: IPv4 or IPv6), then the UDP and BTH ones. */
static void ip_bth_fields(const uint8_t *ip, size_t iph, struct roce_hdr *h)
{
	if (iph == IP6_LEN) {
		h->ip6 = true;
		h->ip_dscp = (uint8_t)(get_be(ip, 2) >> 6 & 0x3f);
		h->ip_ecn = ip[1] >> 4 & 3;
		h->flow_label = (uint32_t)get_be(ip, 4) & 0xfffff;
		h->ip_ttl = ip[7];
		memcpy(h->ip6_src, ip + 8, 16);
		memcpy(h->ip6_dst, ip + 24, 16);
	} else {
		h->ip_dscp = ip[1] >> 2;
		h->ip_ecn = ip[1] & 3;
		h->ip_id = (uint16_t)get_be(ip + 4, 2);
		h->ip_flags = ip[6] >> 5;
		h->ip_ttl = ip[8];
		h->ip_src = (uint32_t)get_be(ip + 12, 4);
		h->ip_dst = (uint32_t)get_be(ip + 16, 4);
	}
	bth_fields(ip, iph, h);
}

/* The IP packet's length its header gives (IPv6's counts what follows the header). */
static size_t ip_total_len(const uint8_t *ip, size_t iph)
{
	return iph == IP6_LEN ? IP6_LEN + get_be(ip + 4, 2) : get_be(ip + 2, 2);
}

/*
 * Ethernet (one tag at most), IPv4 or IPv6, UDP to port 4791: ROCE_OK with the IP header's
 * offset in *l2 and its length in *iph (the Ethernet fields in h), else why not.
 */
static enum roce_verdict roce_start(const uint8_t *f, size_t len, struct roce_hdr *h, size_t *l2,
				    size_t *iph)
{
	const uint8_t *ip;
	uint64_t type;

	*l2 = len >= 14 && get_be(f + 12, 2) == ETH_TYPE_VLAN ? 18 : 14;
	if (len < *l2)
		return ROCE_RUNT;
	memcpy(h->eth_dst, f, 6);
	memcpy(h->eth_src, f + 6, 6);
	if (*l2 == 18) {
		h->vlan_valid = true;
		h->vlan_tci = (uint16_t)get_be(f + 14, 2);
	}
	ip = f + *l2;
	type = get_be(f + *l2 - 2, 2);
	if (type == ETH_TYPE_IPV4) {
		*iph = IP4_LEN;
		if (len < *l2 + IP4_LEN + 4)
			return ROCE_TRUNCATED; /* IPv4, but too short to tell whether RoCE */
		if (ip[9] != 17)
			return ROCE_NOT_ROCE;
	} else if (type == ETH_TYPE_IPV6) {
		*iph = IP6_LEN;
		/* the next header, and the UDP destination port behind it */
		if (len < *l2 + IP6_LEN + 4)
			return ROCE_TRUNCATED;
		if (roce_ip6_ext_header(ip[6]))
			return ROCE_IP6_EXT_HEADER;
		if (ip[6] != 17)
			return ROCE_NOT_ROCE;
	} else {
		return ROCE_NOT_ROCE;
	}
	if (get_be(ip + UDP_OFF(*iph) + 2, 2) != ROCE_UDP_PORT)
		return ROCE_NOT_ROCE;
	return ROCE_OK;
}

enum roce_verdict roce_parse_start(const uint8_t *f, size_t len, struct roce_hdr *h, size_t *ip_off,
				   size_t *ip_len, bool *bth)
{
	enum roce_verdict v;
	size_t l2, iph;

	memset(h, 0, sizeof(*h));
	v = roce_start(f, len, h, &l2, &iph);
	if (v != ROCE_OK)
		return v;
	*bth = len >= l2 + EXT_OFF(iph);
	if (*bth)
		ip_bth_fields(f + l2, iph, h);
	else
		h->ip6 = iph == IP6_LEN;
	*ip_off = l2;
	*ip_len = ip_total_len(f + l2, iph);
	return ROCE_OK;
}

bool roce_byte_checked(bool ip6, size_t off, size_t ip_len)
{
	size_t iph = ip6 ? IP6_LEN : IP4_LEN;

	if (!ip6 && off < UDP_OFF(iph)) /* the IPv4 header checksum covers the whole header */
		return off != 9;	/* the protocol: another one's packet */
	/*
	 * IPv6 has no header checksum: the ICRC covers it but traffic class and flow label
	 * (bytes 0 to 3: the version shares a byte with them) and hop limit (7), and a
	 * changed next header (6) makes it another protocol's packet
	 */
	if (ip6 && off < UDP_OFF(iph))
		return off >= 4 && off != 6 && off != 7;
	if (off >= ip_len)
		return false;
	/* the ICRC covers the rest but the fields it masks that nothing else checks */
	return off != UDP_OFF(iph) + 2 && off != UDP_OFF(iph) + 3 && off != UDP_OFF(iph) + 6 &&
	       off != UDP_OFF(iph) + 7 && off != BTH_OFF(iph) + 4;
}

/*
 * The checks both families share once their IP header passed: opcode, lengths (the IP
 * packet's, ip_total bytes), ICRC.
 */
static enum roce_verdict check_roce(const uint8_t *f, size_t len, size_t l2, size_t iph,
				    size_t ip_total, const struct roce_opcode_info *o,
				    struct roce_hdr *h, const uint8_t **payload)
{
	const uint8_t *ip = f + l2;
	long payload_len;

	if (!o || h->tver)
		return ROCE_BAD_OPCODE;
	payload_len = (long)ip_total - (long)EXT_OFF(iph) - (long)o->ext_len - h->pad - ICRC_LEN;
	/* the pad count aligns the payload: the IP packet is a multiple of 4 bytes */
	if (get_be(ip + UDP_OFF(iph) + 4, 2) != ip_total - UDP_OFF(iph) || payload_len < 0 ||
	    ip_total % 4 || payload_len > 8191 || (len != l2 + ip_total && len != ROCE_MIN_FRAME) ||
	    (!o->has_payload && payload_len))
		return ROCE_LENGTH;
	/* the ICRC goes on the wire least significant byte first */
	if (__builtin_bswap32(roce_icrc(ip, ip_total)) != get_be(ip + ip_total - ICRC_LEN, 4))
		return ROCE_ICRC;
	h->payload_len = (uint16_t)payload_len;
	*payload = ip + EXT_OFF(iph) + o->ext_len;
	return ROCE_OK;
}

enum roce_verdict roce_parse(const uint8_t *f, size_t len, struct roce_hdr *h,
			     const uint8_t **payload)
{
	const struct roce_opcode_info *o;
	size_t l2, iph, ip_total;
	enum roce_verdict v;
	const uint8_t *ip;

	memset(h, 0, sizeof(*h));
	*payload = NULL;
	if (len > ROCE_MAX_FRAME) /* never a runt either */
		return ROCE_GIANT;
	v = roce_start(f, len, h, &l2, &iph);
	if (v != ROCE_OK)
		return v;
	if (len < l2 + EXT_OFF(iph))
		return ROCE_TRUNCATED;
	ip = f + l2;
	o = roce_opcode_info(ip[BTH_OFF(iph)]);
	ip_total = ip_total_len(ip, iph);
	if (len < l2 + EXT_OFF(iph) + (o ? o->ext_len : 0) || len < l2 + ip_total)
		return ROCE_TRUNCATED;

	ip_bth_fields(ip, iph, h);
	if (o)
		ext_headers(h, o->ext, (uint8_t *)ip + EXT_OFF(iph), false);
	if (iph == IP4_LEN) {
		if (ip[0] != 0x45 || (ip[6] & 0x20) || (get_be(ip + 6, 2) & 0x1fff))
			return ROCE_IP_HEADER;
		if (ip_checksum(ip))
			return ROCE_IP_CHECKSUM;
	} else {
		if (ip[0] >> 4 != 6)
			return ROCE_IP_HEADER;
		if (!ip[7])
			return ROCE_IP6_HOP_LIMIT;
	}
	return check_roce(f, len, l2, iph, ip_total, o, h, payload);
}

int roce_hdr_format(const struct roce_hdr *h, char *buf, size_t size)
{
	const struct roce_opcode_info *o = roce_opcode_info(h->opcode);

	return snprintf(buf, size, "%-34s qpn %#08x psn %8u payload %4u B", o ? o->name : "unknown",
			h->dqpn, h->psn, h->payload_len);
}
