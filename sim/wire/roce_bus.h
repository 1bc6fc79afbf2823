/* SPDX-License-Identifier: MIT */
/* The header bus of contract/hroce.contract (ROCE_HDR) to and from struct roce_hdr. */
#ifndef HROCE_ROCE_BUS_H
#define HROCE_ROCE_BUS_H

#include <stdint.h>

#include "hroce_contract.h"
#include "roce_wire.h"

typedef uint32_t roce_bus_t[HROCE_ROCE_HDR_WORDS];

/* The bytes of a bus value that the port holds (a stream beat of the header bus). */
#define ROCE_BUS_BYTES ((HROCE_ROCE_HDR_BITS + 7) / 8)

void roce_hdr_to_bus(const struct roce_hdr *h, uint32_t src_qpn, roce_bus_t bus);
void roce_hdr_from_bus(const roce_bus_t bus, struct roce_hdr *h, uint32_t *src_qpn);

#endif /* HROCE_ROCE_BUS_H */
