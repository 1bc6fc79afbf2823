// SPDX-License-Identifier: MIT
/*
 * The core's network blocks: peers' MAC addresses from its ARP cache, through
 * REG_ARP_LOOKUP and REG_ARP_RESULT (the core answers a cached address at once, and
 * otherwise broadcasts who-has requests, REG_ARP_RETRY says how many and how far apart,
 * until a reply comes or the last one goes unanswered), and their counters.
 */
#include <errno.h>

#include "hroce_priv.h"

/* cycles the driver waits beyond the core's last request before it calls the core hung */
#define ARP_SLACK_CYCLES 100000

int hroce_resolve_mac(struct hroce_dev *dev, uint32_t ipv4, uint8_t mac[6])
{
	uint64_t result, retry, start, now, limit;
	unsigned int tries, state;
	uint8_t seq;

	result = hroce_mmio_read64(dev, HROCE_REG_ARP_RESULT);
	retry = hroce_mmio_read64(dev, HROCE_REG_ARP_RETRY);
	start = hroce_mmio_read64(dev, HROCE_REG_TIME);
	if (result == ~UINT64_C(0) || start == ~UINT64_C(0)) {
		hroce_log(HROCE_LOG_ERR, "%s: ARP lookup of %u.%u.%u.%u: no answer from the device",
			  dev->name, ipv4 >> 24, ipv4 >> 16 & 0xff, ipv4 >> 8 & 0xff, ipv4 & 0xff);
		return ETIMEDOUT;
	}
	/* the answer is to the lookup that moves SEQ on by one */
	seq = (uint8_t)(HROCE_REG_FIELD(result, ARP_RESULT, SEQ) + 1);
	tries = (unsigned int)HROCE_REG_FIELD(retry, ARP_RETRY, TRIES);
	if (!tries)
		tries = 1;
	limit = (tries + 1) * HROCE_REG_FIELD(retry, ARP_RETRY, INTERVAL) + ARP_SLACK_CYCLES;
	hroce_mmio_write64(dev, HROCE_REG_ARP_LOOKUP, ipv4);
	for (;;) {
		result = hroce_mmio_read64(dev, HROCE_REG_ARP_RESULT);
		state = (unsigned int)HROCE_REG_FIELD(result, ARP_RESULT, STATE);
		if (result != ~UINT64_C(0) && HROCE_REG_FIELD(result, ARP_RESULT, SEQ) == seq &&
		    state != HROCE_ARP_STATE_PENDING)
			break;
		now = hroce_mmio_read64(dev, HROCE_REG_TIME);
		if (result == ~UINT64_C(0) || now == ~UINT64_C(0) || now - start > limit) {
			hroce_log(
				HROCE_LOG_ERR,
				"%s: ARP lookup of %u.%u.%u.%u: the device gave no answer in %llu "
				"cycles",
				dev->name, ipv4 >> 24, ipv4 >> 16 & 0xff, ipv4 >> 8 & 0xff,
				ipv4 & 0xff, (unsigned long long)limit);
			return ETIMEDOUT;
		}
		hroce_idle(dev);
	}
	if (state != HROCE_ARP_STATE_RESOLVED) {
		hroce_log(HROCE_LOG_ERR,
			  "%s: no ARP reply from %u.%u.%u.%u after %u requests %llu cycles apart: "
			  "host unreachable",
			  dev->name, ipv4 >> 24, ipv4 >> 16 & 0xff, ipv4 >> 8 & 0xff, ipv4 & 0xff,
			  tries, (unsigned long long)HROCE_REG_FIELD(retry, ARP_RETRY, INTERVAL));
		return EHOSTUNREACH;
	}
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)(HROCE_REG_FIELD(result, ARP_RESULT, MAC) >> (40 - 8 * i));
	return 0;
}

uint64_t hroce_net_counter(struct hroce_dev *dev, unsigned int index)
{
	return hroce_mmio_read64(dev, HROCE_REG_NET_COUNTERS + 8 * (uint64_t)index);
}
