// SPDX-License-Identifier: MIT
#include "roce_bus.h"

#include <string.h>

static uint64_t mac_to_u64(const uint8_t *mac)
{
	uint64_t v = 0;

	/* as every bus field: a number whose most significant byte is the first on the wire */
	for (int i = 0; i < 6; i++)
		v = v << 8 | mac[i];
	return v;
}

static void mac_from_u64(uint64_t v, uint8_t *mac)
{
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)(v >> (8 * (5 - i)));
}

#define BUS_FIELDS(X)                                                                             \
	X(VLAN_VALID, vlan_valid)                                                                 \
	X(VLAN_TCI, vlan_tci) X(IP_DSCP, ip_dscp) X(IP_ECN, ip_ecn) X(IP_ID, ip_id) X(            \
		IP_FLAGS, ip_flags) X(IP_TTL, ip_ttl) X(IP_SRC, ip_src) X(IP_DST, ip_dst)         \
		X(UDP_SPORT, udp_sport) X(BTH_OPCODE, opcode) X(BTH_SE, se) X(                    \
			BTH_MIGREQ, migreq) X(BTH_PAD, pad) X(BTH_TVER, tver) X(BTH_PKEY, pkey)   \
			X(BTH_FECN, fecn) X(BTH_BECN, becn) X(BTH_DQPN, dqpn) X(                  \
				BTH_ACKREQ, ackreq) X(BTH_PSN, psn) X(RETH_VA, reth_va)           \
				X(RETH_RKEY, reth_rkey) X(RETH_DMA_LEN, reth_dma_len) X(          \
					AETH_SYNDROME, aeth_syndrome) X(AETH_MSN, aeth_msn)       \
					X(IMMDT, immdt) X(IETH_RKEY, ieth_rkey) X(                \
						ATOMIC_VA, atomic_va) X(ATOMIC_RKEY, atomic_rkey) \
						X(ATOMIC_SWAP_ADD, atomic_swap_add) X(            \
							ATOMIC_COMPARE, atomic_compare)           \
							X(ATOMICACK_ORIG,                         \
							  atomicack_orig) X(DETH_QKEY, deth_qkey) \
								X(DETH_SRC_QP, deth_src_qp) X(    \
									PAYLOAD_LEN, payload_len)

void roce_hdr_to_bus(const struct roce_hdr *h, uint32_t src_qpn, roce_bus_t bus)
{
	memset(bus, 0, sizeof(roce_bus_t));
	HROCE_ROCE_HDR_SET(bus, ETH_DST, mac_to_u64(h->eth_dst));
	HROCE_ROCE_HDR_SET(bus, ETH_SRC, mac_to_u64(h->eth_src));
#define X(F, m) HROCE_ROCE_HDR_SET(bus, F, h->m);
	BUS_FIELDS(X)
#undef X
	HROCE_ROCE_HDR_SET(bus, SRC_QPN, src_qpn);
}

void roce_hdr_from_bus(const roce_bus_t bus, struct roce_hdr *h, uint32_t *src_qpn)
{
	memset(h, 0, sizeof(*h));
	mac_from_u64(HROCE_ROCE_HDR_GET(bus, ETH_DST), h->eth_dst);
	mac_from_u64(HROCE_ROCE_HDR_GET(bus, ETH_SRC), h->eth_src);
#define X(F, m) h->m = HROCE_ROCE_HDR_GET(bus, F);
	BUS_FIELDS(X)
#undef X
	if (src_qpn)
		*src_qpn = (uint32_t)HROCE_ROCE_HDR_GET(bus, SRC_QPN);
}
