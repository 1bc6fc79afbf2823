// SPDX-License-Identifier: MIT
#include "roce_wire.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define ETH_TYPE_IPV4 0x0800
#define ETH_TYPE_VLAN 0x8100
#define BTH_LEN 12
#define ICRC_LEN 4
#define UDP_OFF 20
#define BTH_OFF 28
#define EXT_OFF 40 /* extension headers, from the IP header's start */

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
		"ok",	  "not_roce",	"truncated", "ip_header", "ip_checksum",
		"length", "bad_opcode", "icrc",	     "runt",	  "giant",
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

uint32_t roce_icrc(const uint8_t *ip, size_t ip_len)
{
	uint8_t masked[EXT_OFF];
	uint32_t crc;

	/* the variant fields read as ones: TOS, TTL, IP checksum, UDP checksum, BTH byte 4 */
	memcpy(masked, ip, sizeof(masked));
	masked[1] = 0xff;
	masked[8] = 0xff;
	masked[10] = masked[11] = 0xff;
	masked[UDP_OFF + 6] = masked[UDP_OFF + 7] = 0xff;
	masked[BTH_OFF + 4] = 0xff;
	crc = roce_crc32_update(ROCE_ICRC_SEED, masked, sizeof(masked));
	crc = roce_crc32_update(crc, ip + EXT_OFF, ip_len - EXT_OFF - ICRC_LEN);
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

	return (h->vlan_valid ? 18 : 14) + EXT_OFF + (o ? o->ext_len : 0);
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
	size_t l2 = h->vlan_valid ? 18 : 14, ip_len, total;
	struct roce_hdr copy = *h;
	uint8_t *ip, *bth;

	if (!o || h->payload_len > 8191)
		return EINVAL;
	ip_len = EXT_OFF + o->ext_len + h->payload_len + pad + ICRC_LEN;
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
	put_be(frame + l2 - 2, ETH_TYPE_IPV4, 2);

	ip = frame + l2;
	ip[0] = 0x45;
	ip[1] = (uint8_t)(h->ip_dscp << 2 | (h->ip_ecn & 3));
	put_be(ip + 2, ip_len, 2);
	put_be(ip + 4, h->ip_id, 2);
	put_be(ip + 6, (uint16_t)(h->ip_flags & 7) << 13, 2);
	ip[8] = h->ip_ttl;
	ip[9] = 17;
	put_be(ip + 12, h->ip_src, 4);
	put_be(ip + 16, h->ip_dst, 4);
	put_be(ip + 10, ip_checksum(ip), 2);

	put_be(ip + UDP_OFF, h->udp_sport, 2);
	put_be(ip + UDP_OFF + 2, ROCE_UDP_PORT, 2);
	put_be(ip + UDP_OFF + 4, ip_len - UDP_OFF, 2);

	bth = ip + BTH_OFF;
	bth[0] = h->opcode;
	bth[1] = (uint8_t)(h->se << 7 | h->migreq << 6 | pad << 4 | (h->tver & 0xf));
	put_be(bth + 2, h->pkey, 2);
	bth[4] = (uint8_t)(h->fecn << 7 | h->becn << 6);
	put_be(bth + 5, h->dqpn, 3);
	bth[8] = (uint8_t)(h->ackreq << 7);
	put_be(bth + 9, h->psn, 3);
	ext_headers(&copy, o->ext, ip + EXT_OFF, true);
	if (h->payload_len)
		memcpy(ip + EXT_OFF + o->ext_len, payload, h->payload_len);
	put_be(ip + ip_len - ICRC_LEN, __builtin_bswap32(roce_icrc(ip, ip_len)), 4);
	*len = total;
	return 0;
}

/* The IPv4, UDP and BTH fields of a RoCEv2 packet whose first EXT_OFF bytes are there. */
static void ip_bth_fields(const uint8_t *ip, struct roce_hdr *h)
{
	h->ip_dscp = ip[1] >> 2;
	h->ip_ecn = ip[1] & 3;
	h->ip_id = (uint16_t)get_be(ip + 4, 2);
	h->ip_flags = ip[6] >> 5;
	h->ip_ttl = ip[8];
	h->ip_src = (uint32_t)get_be(ip + 12, 4);
	h->ip_dst = (uint32_t)get_be(ip + 16, 4);
	h->udp_sport = (uint16_t)get_be(ip + UDP_OFF, 2);
	h->udp_csum = (uint16_t)get_be(ip + UDP_OFF + 6, 2);
	h->opcode = ip[BTH_OFF];
	h->se = ip[BTH_OFF + 1] >> 7;
	h->migreq = ip[BTH_OFF + 1] >> 6 & 1;
	h->pad = ip[BTH_OFF + 1] >> 4 & 3;
	h->tver = ip[BTH_OFF + 1] & 0xf;
	h->pkey = (uint16_t)get_be(ip + BTH_OFF + 2, 2);
	h->fecn = ip[BTH_OFF + 4] >> 7;
	h->becn = ip[BTH_OFF + 4] >> 6 & 1;
	h->dqpn = (uint32_t)get_be(ip + BTH_OFF + 5, 3);
	h->ackreq = ip[BTH_OFF + 8] >> 7;
	h->psn = (uint32_t)get_be(ip + BTH_OFF + 9, 3);
}

/* Ethernet (one tag at most), IPv4, UDP 4791: the IP header's offset, or 0 with why not. */
static size_t roce_l2(const uint8_t *f, size_t len, struct roce_hdr *h, enum roce_verdict *v)
{
	size_t l2 = len >= 14 && get_be(f + 12, 2) == ETH_TYPE_VLAN ? 18 : 14;

	if (len < l2) {
		*v = ROCE_RUNT;
		return 0;
	}
	memcpy(h->eth_dst, f, 6);
	memcpy(h->eth_src, f + 6, 6);
	if (l2 == 18) {
		h->vlan_valid = true;
		h->vlan_tci = (uint16_t)get_be(f + 14, 2);
	}
	*v = ROCE_NOT_ROCE;
	if (get_be(f + l2 - 2, 2) != ETH_TYPE_IPV4)
		return 0;
	*v = ROCE_TRUNCATED; /* IPv4, but too short to tell whether RoCE */
	if (len < l2 + 24)
		return 0;
	*v = ROCE_NOT_ROCE;
	if (f[l2 + 9] != 17 || get_be(f + l2 + UDP_OFF + 2, 2) != ROCE_UDP_PORT)
		return 0;
	*v = ROCE_OK;
	return l2;
}

enum roce_verdict roce_parse_start(const uint8_t *f, size_t len, struct roce_hdr *h, size_t *ip_off,
				   size_t *ip_len)
{
	enum roce_verdict v;
	size_t l2;

	memset(h, 0, sizeof(*h));
	l2 = roce_l2(f, len, h, &v);
	if (!l2)
		return v;
	if (len < l2 + EXT_OFF)
		return ROCE_TRUNCATED;
	ip_bth_fields(f + l2, h);
	*ip_off = l2;
	*ip_len = get_be(f + l2 + 2, 2);
	return ROCE_OK;
}

bool roce_byte_checked(size_t off, size_t ip_len)
{
	if (off < UDP_OFF)	 /* the IPv4 header checksum covers the whole header */
		return off != 9; /* the protocol: another one's packet */
	if (off >= ip_len)
		return false;
	/* the ICRC covers the rest but the fields it masks that nothing else checks */
	return off != UDP_OFF + 2 && off != UDP_OFF + 3 && off != UDP_OFF + 6 &&
	       off != UDP_OFF + 7 && off != BTH_OFF + 4;
}

enum roce_verdict roce_parse(const uint8_t *f, size_t len, struct roce_hdr *h,
			     const uint8_t **payload)
{
	const struct roce_opcode_info *o;
	size_t l2, ip_total, payload_off, ext_len;
	const uint8_t *ip;
	long payload_len;
	unsigned int pad;

	enum roce_verdict v;

	memset(h, 0, sizeof(*h));
	*payload = NULL;
	if (len < (len >= 14 && get_be(f + 12, 2) == ETH_TYPE_VLAN ? 18u : 14u))
		return ROCE_RUNT;
	if (len > ROCE_MAX_FRAME)
		return ROCE_GIANT;
	l2 = roce_l2(f, len, h, &v);
	if (!l2)
		return v;
	ip = f + l2;
	if (len < l2 + EXT_OFF)
		return ROCE_TRUNCATED;
	o = roce_opcode_info(ip[BTH_OFF]);
	ext_len = o ? o->ext_len : 0;
	payload_off = l2 + EXT_OFF + ext_len;
	ip_total = get_be(ip + 2, 2);
	if (len < payload_off || len < l2 + ip_total)
		return ROCE_TRUNCATED;

	ip_bth_fields(ip, h);
	pad = h->pad;
	if (o)
		ext_headers(h, o->ext, (uint8_t *)ip + EXT_OFF, false);

	if (ip[0] != 0x45 || (ip[6] & 0x20) || (get_be(ip + 6, 2) & 0x1fff))
		return ROCE_IP_HEADER;
	if (ip_checksum(ip))
		return ROCE_IP_CHECKSUM;
	if (!o || h->tver)
		return ROCE_BAD_OPCODE;
	payload_len = (long)ip_total - EXT_OFF - (long)ext_len - pad - ICRC_LEN;
	/* the pad count aligns the payload: the IP packet is a multiple of 4 bytes */
	if (get_be(ip + UDP_OFF + 4, 2) != ip_total - UDP_OFF || payload_len < 0 || ip_total % 4 ||
	    payload_len > 8191 || (len != l2 + ip_total && len != ROCE_MIN_FRAME) ||
	    (!o->has_payload && payload_len))
		return ROCE_LENGTH;
	/* the ICRC goes on the wire least significant byte first */
	if (__builtin_bswap32(roce_icrc(ip, ip_total)) != get_be(ip + ip_total - ICRC_LEN, 4))
		return ROCE_ICRC;
	h->payload_len = (uint16_t)payload_len;
	*payload = f + payload_off;
	return ROCE_OK;
}

int roce_hdr_format(const struct roce_hdr *h, char *buf, size_t size)
{
	const struct roce_opcode_info *o = roce_opcode_info(h->opcode);

	return snprintf(buf, size, "%-34s qpn %#08x psn %8u payload %4u B", o ? o->name : "unknown",
			h->dqpn, h->psn, h->payload_len);
}
