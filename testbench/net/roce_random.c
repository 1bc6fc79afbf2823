// SPDX-License-Identifier: MIT
#include "roce_random.h"

#include <string.h>

static const uint8_t known_opcodes[] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
	0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17,	/* RC */
	0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x2b, /* UC */
	0x64, 0x65,								/* UD */
};

uint8_t roce_random_opcode(struct bench *b)
{
	return known_opcodes[bench_range(b, 0, sizeof(known_opcodes) - 1)];
}

static unsigned int random_len(struct bench *b, unsigned int beat_bytes, unsigned int max_len)
{
	unsigned int n;

	switch (bench_range(b, 0, 9)) {
	case 0 ... 4:
		n = (unsigned int)bench_range(b, 0, 80);
		break;
	case 5 ... 6: /* around a beat boundary */
		n = beat_bytes * (unsigned int)bench_range(b, 1, 8) +
		    (unsigned int)bench_range(b, 0, 6) - 3;
		break;
	default:
		n = (unsigned int)bench_range(b, 0, max_len);
		break;
	}
	return n > max_len ? max_len : n;
}

void roce_random_hdr(struct bench *b, struct roce_hdr *h, uint8_t opcode, unsigned int beat_bytes,
		     unsigned int max_len)
{
	const struct roce_opcode_info *info = roce_opcode_info(opcode);

	memset(h, 0, sizeof(*h));
	bench_fill(b, h->eth_dst, sizeof(h->eth_dst));
	bench_fill(b, h->eth_src, sizeof(h->eth_src));
	h->eth_src[0] &= 0xfe; /* a source address is never a group address */
	h->vlan_valid = bench_chance(b, 30);
	h->vlan_tci = (uint16_t)bench_rand(b);
	h->ip_dscp = (uint8_t)bench_range(b, 0, 63);
	h->ip_ecn = (uint8_t)bench_range(b, 0, 3);
	h->ip_id = (uint16_t)bench_rand(b);
	h->ip_flags = bench_chance(b, 80) ? 0x2 : 0x0; /* DF or nothing: never MF */
	h->ip_ttl = (uint8_t)bench_rand(b);
	h->ip_src = (uint32_t)bench_rand(b);
	h->ip_dst = (uint32_t)bench_rand(b);
	/* RoCEv2 source ports come from the flow label: 0xc000 and up */
	h->udp_sport = (uint16_t)bench_range(b, 0xc000, 0xffff);
	h->opcode = opcode;
	h->se = bench_chance(b, 50);
	h->migreq = bench_chance(b, 50);
	h->tver = 0;
	h->pkey = (uint16_t)bench_rand(b);
	h->fecn = bench_chance(b, 20);
	h->becn = bench_chance(b, 20);
	h->dqpn = (uint32_t)bench_rand(b) & 0xffffff;
	h->ackreq = bench_chance(b, 50);
	h->psn = (uint32_t)bench_rand(b) & 0xffffff;
	h->reth_va = bench_rand(b);
	h->reth_rkey = (uint32_t)bench_rand(b);
	h->reth_dma_len = (uint32_t)bench_rand(b);
	h->aeth_syndrome = (uint8_t)bench_rand(b);
	h->aeth_msn = (uint32_t)bench_rand(b) & 0xffffff;
	h->immdt = (uint32_t)bench_rand(b);
	h->ieth_rkey = (uint32_t)bench_rand(b);
	h->atomic_va = bench_rand(b);
	h->atomic_rkey = (uint32_t)bench_rand(b);
	h->atomic_swap_add = bench_rand(b);
	h->atomic_compare = bench_rand(b);
	h->atomicack_orig = bench_rand(b);
	h->deth_qkey = (uint32_t)bench_rand(b);
	h->deth_src_qp = (uint32_t)bench_rand(b) & 0xffffff;
	h->payload_len = info && info->has_payload ? random_len(b, beat_bytes, max_len) : 0;
	if (bench_chance(b, 40))
		roce_random_ip6(b, h);
}

void roce_random_ip6(struct bench *b, struct roce_hdr *h)
{
	h->ip6 = true;
	h->ip_id = 0;
	h->ip_flags = 0;
	h->ip_src = h->ip_dst = 0;
	h->flow_label = (uint32_t)bench_rand(b) & 0xfffff;
	h->ip_ttl = (uint8_t)bench_range(b, 1, 255); /* hop limit 0 is dropped */
	bench_fill(b, h->ip6_src, sizeof(h->ip6_src));
	bench_fill(b, h->ip6_dst, sizeof(h->ip6_dst));
	if (bench_chance(b, 30)) {
		/* link-local, as GID index 0 of rxe: fe80::/64 and an interface id */
		memcpy(h->ip6_src, "\xfe\x80\0\0\0\0\0\0", 8);
		memcpy(h->ip6_dst, "\xfe\x80\0\0\0\0\0\0", 8);
	}
}

void roce_hdr_canonical(struct roce_hdr *h)
{
	const struct roce_opcode_info *info = roce_opcode_info(h->opcode);
	unsigned int ext = info ? info->ext : 0;

	h->pad = (uint8_t)((4 - h->payload_len % 4) % 4);
	h->udp_csum = 0;
	if (h->ip6) {
		h->ip_id = 0;
		h->ip_flags = 0;
		h->ip_src = h->ip_dst = 0;
	} else {
		h->flow_label = 0;
		memset(h->ip6_src, 0, sizeof(h->ip6_src));
		memset(h->ip6_dst, 0, sizeof(h->ip6_dst));
	}
	if (!h->vlan_valid)
		h->vlan_tci = 0;
	if (!(ext & ROCE_EXT_DETH))
		h->deth_qkey = h->deth_src_qp = 0;
	if (!(ext & ROCE_EXT_RETH)) {
		h->reth_va = 0;
		h->reth_rkey = h->reth_dma_len = 0;
	}
	if (!(ext & ROCE_EXT_ATOMIC)) {
		h->atomic_va = h->atomic_swap_add = h->atomic_compare = 0;
		h->atomic_rkey = 0;
	}
	if (!(ext & ROCE_EXT_AETH)) {
		h->aeth_syndrome = 0;
		h->aeth_msn = 0;
	}
	if (!(ext & ROCE_EXT_ATOMICACK))
		h->atomicack_orig = 0;
	if (!(ext & ROCE_EXT_IMMDT))
		h->immdt = 0;
	if (!(ext & ROCE_EXT_IETH))
		h->ieth_rkey = 0;
}
