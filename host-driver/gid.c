// SPDX-License-Identifier: MIT
/*
 * The device's GID table (hroce.h, hroce_query_gid) and the checks of the IPv6 addresses a
 * device is given. A GID is an address as the wire has it, network order: an IPv6 address,
 * or an IPv4 one mapped as ::ffff:a.b.c.d.
 */
#include <errno.h>
#include <string.h>

#include "hroce_priv.h"

static const uint8_t v4_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

bool hroce_gid_is_ipv4(const uint8_t gid[16], uint32_t *ipv4)
{
	if (memcmp(gid, v4_prefix, sizeof(v4_prefix)))
		return false;
	if (ipv4)
		*ipv4 = (uint32_t)gid[12] << 24 | (uint32_t)gid[13] << 16 | (uint32_t)gid[14] << 8 |
			gid[15];
	return true;
}

void hroce_gid_from_ipv4(uint32_t ipv4, uint8_t gid[16])
{
	memcpy(gid, v4_prefix, sizeof(v4_prefix));
	for (int i = 0; i < 4; i++)
		gid[12 + i] = (uint8_t)(ipv4 >> (24 - 8 * i));
}

void hroce_link_local(const uint8_t mac[6], uint8_t gid[16])
{
	/* fe80:: and the modified EUI-64 (RFC 4291 appendix A): ff:fe in the middle, U/L flipped */
	memset(gid, 0, 16);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	gid[8] = mac[0] ^ 0x02;
	gid[9] = mac[1];
	gid[10] = mac[2];
	gid[11] = 0xff;
	gid[12] = 0xfe;
	gid[13] = mac[3];
	gid[14] = mac[4];
	gid[15] = mac[5];
}

const char *hroce_ipv6_unusable(const uint8_t a[16])
{
	static const uint8_t zero[16], loopback[16] = { [15] = 1 };

	if (!memcmp(a, zero, 16))
		return "the unspecified address ::";
	if (!memcmp(a, loopback, 16))
		return "the loopback address ::1";
	if (a[0] == 0xff)
		return "a multicast address";
	if (hroce_gid_is_ipv4(a, NULL))
		return "an IPv4-mapped address (ipv4 = gives the IPv4 one)";
	return NULL;
}

int hroce_query_gid(struct hroce_dev *dev, unsigned int index, uint8_t gid[16])
{
	if (index == HROCE_GID_INDEX_LINK_LOCAL)
		hroce_link_local(dev->params.mac, gid);
	else if (index == HROCE_GID_INDEX_IPV4)
		hroce_gid_from_ipv4(dev->params.ipv4, gid);
	else if (index - HROCE_GID_INDEX_IPV6 < dev->params.nipv6)
		memcpy(gid, dev->params.ipv6[index - HROCE_GID_INDEX_IPV6], 16);
	else
		return EINVAL;
	return 0;
}

int hroce_gid_index(struct hroce_dev *dev, const uint8_t gid[16])
{
	uint8_t g[16];

	for (unsigned int i = 0; !hroce_query_gid(dev, i, g); i++)
		if (!memcmp(g, gid, 16))
			return (int)i;
	return -1;
}
