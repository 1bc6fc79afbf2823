// SPDX-License-Identifier: MIT
#include "roce_bus.h"

#include <stddef.h>
#include <string.h>

/* Where each bus field lives in struct roce_hdr: an unsigned integer (or bool) member. */
struct bus_field {
	unsigned int lsb, width;
	size_t off, size;
};

#define FIELD(name, member)                                                                       \
	{                                                                                         \
		HROCE_ROCE_HDR_##name##_LSB, HROCE_ROCE_HDR_##name##_WIDTH,                       \
			offsetof(struct roce_hdr, member), sizeof(((struct roce_hdr *)0)->member) \
	}

static const struct bus_field fields[] = {
	FIELD(VLAN_VALID, vlan_valid),
	FIELD(VLAN_TCI, vlan_tci),
	FIELD(IP_DSCP, ip_dscp),
	FIELD(IP_ECN, ip_ecn),
	FIELD(IP_ID, ip_id),
	FIELD(IP_FLAGS, ip_flags),
	FIELD(IP_TTL, ip_ttl),
	FIELD(IP_SRC, ip_src),
	FIELD(IP_DST, ip_dst),
	FIELD(UDP_SPORT, udp_sport),
	FIELD(BTH_OPCODE, opcode),
	FIELD(BTH_SE, se),
	FIELD(BTH_MIGREQ, migreq),
	FIELD(BTH_PAD, pad),
	FIELD(BTH_TVER, tver),
	FIELD(BTH_PKEY, pkey),
	FIELD(BTH_FECN, fecn),
	FIELD(BTH_BECN, becn),
	FIELD(BTH_DQPN, dqpn),
	FIELD(BTH_ACKREQ, ackreq),
	FIELD(BTH_PSN, psn),
	FIELD(RETH_VA, reth_va),
	FIELD(RETH_RKEY, reth_rkey),
	FIELD(RETH_DMA_LEN, reth_dma_len),
	FIELD(AETH_SYNDROME, aeth_syndrome),
	FIELD(AETH_MSN, aeth_msn),
	FIELD(IMMDT, immdt),
	FIELD(IETH_RKEY, ieth_rkey),
	FIELD(ATOMIC_VA, atomic_va),
	FIELD(ATOMIC_RKEY, atomic_rkey),
	FIELD(ATOMIC_SWAP_ADD, atomic_swap_add),
	FIELD(ATOMIC_COMPARE, atomic_compare),
	FIELD(ATOMICACK_ORIG, atomicack_orig),
	FIELD(DETH_QKEY, deth_qkey),
	FIELD(DETH_SRC_QP, deth_src_qp),
	FIELD(PAYLOAD_LEN, payload_len),
	FIELD(IP6, ip6),
	FIELD(IP6_FLOW_LABEL, flow_label),
};

static uint64_t member_get(const struct roce_hdr *h, const struct bus_field *f)
{
	uint64_t v = 0;

	/* little-endian host: the member's low bytes come first */
	memcpy(&v, (const uint8_t *)h + f->off, f->size);
	return v;
}

static void member_set(struct roce_hdr *h, const struct bus_field *f, uint64_t v)
{
	memcpy((uint8_t *)h + f->off, &v, f->size);
}

/* As every bus field: a number whose most significant byte is the first on the wire. */
static uint64_t mac_to_u64(const uint8_t *mac)
{
	uint64_t v = 0;

	for (int i = 0; i < 6; i++)
		v = v << 8 | mac[i];
	return v;
}

static void mac_from_u64(uint64_t v, uint8_t *mac)
{
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)(v >> (8 * (5 - i)));
}

/* An IPv6 address, its first byte the field's most significant. */
static void ip6_to_bus(const uint8_t *a, unsigned int lsb, roce_bus_t bus)
{
	for (unsigned int i = 0; i < 16; i++)
		hroce_bus_set(bus, lsb + 8 * (15 - i), 8, a[i]);
}

static void ip6_from_bus(const roce_bus_t bus, unsigned int lsb, uint8_t *a)
{
	for (unsigned int i = 0; i < 16; i++)
		a[i] = (uint8_t)hroce_bus_get(bus, lsb + 8 * (15 - i), 8);
}

void roce_hdr_to_bus(const struct roce_hdr *h, uint32_t src_qpn, roce_bus_t bus)
{
	memset(bus, 0, sizeof(roce_bus_t));
	HROCE_ROCE_HDR_SET(bus, ETH_DST, mac_to_u64(h->eth_dst));
	HROCE_ROCE_HDR_SET(bus, ETH_SRC, mac_to_u64(h->eth_src));
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		hroce_bus_set(bus, fields[i].lsb, fields[i].width, member_get(h, &fields[i]));
	ip6_to_bus(h->ip6_src, HROCE_ROCE_HDR_IP6_SRC_LSB, bus);
	ip6_to_bus(h->ip6_dst, HROCE_ROCE_HDR_IP6_DST_LSB, bus);
	HROCE_ROCE_HDR_SET(bus, SRC_QPN, src_qpn);
}

void roce_hdr_from_bus(const roce_bus_t bus, struct roce_hdr *h, uint32_t *src_qpn)
{
	memset(h, 0, sizeof(*h));
	mac_from_u64(HROCE_ROCE_HDR_GET(bus, ETH_DST), h->eth_dst);
	mac_from_u64(HROCE_ROCE_HDR_GET(bus, ETH_SRC), h->eth_src);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		member_set(h, &fields[i], hroce_bus_get(bus, fields[i].lsb, fields[i].width));
	ip6_from_bus(bus, HROCE_ROCE_HDR_IP6_SRC_LSB, h->ip6_src);
	ip6_from_bus(bus, HROCE_ROCE_HDR_IP6_DST_LSB, h->ip6_dst);
	if (src_qpn)
		*src_qpn = (uint32_t)HROCE_ROCE_HDR_GET(bus, SRC_QPN);
}
