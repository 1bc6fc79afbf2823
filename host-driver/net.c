// SPDX-License-Identifier: MIT
/*
 * The core's network blocks: peers' MAC addresses from its ARP cache, through
 * REG_ARP_LOOKUP and REG_ARP_RESULT (the core answers a cached address at once, and
 * otherwise broadcasts who-has requests, REG_ARP_RETRY says how many and how far apart,
 * until a reply comes or the last one goes unanswered), and their counters.
 */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "hroce_priv.h"

/* cycles the driver waits beyond the core's last request before it calls the core hung */
#define ARP_SLACK_CYCLES 100000
/*
 * The wait: polls back to back first (a peer that answers does so within a few thousand
 * cycles), then sleeps that double from 1 to 64 ms. A simulated NIC that is left alone
 * goes quiet and jumps its clock to the core's next ARP retry instead of evaluating the
 * second between; a poll would keep it awake.
 */
#define ARP_FAST_POLLS 32
#define ARP_SLEEP_FIRST_NS 1000000u
#define ARP_SLEEP_MAX_NS 64000000u
/*
 * And a bound in wall-clock time, for a device whose clock cannot jump (a simulated NIC
 * whose wire's peer keeps it in step): this long at least, or the wait in cycles at
 * 100 MHz, the slowest clock a board runs the core at.
 */
#define ARP_WALL_MIN_NS (UINT64_C(30) * 1000000000u)
#define ARP_WALL_NS_PER_CYCLE 10

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void ip_text(uint32_t ip, char s[16])
{
	snprintf(s, 16, "%u.%u.%u.%u", ip >> 24, ip >> 16 & 0xff, ip >> 8 & 0xff, ip & 0xff);
}

int hroce_resolve_mac(struct hroce_dev *dev, uint32_t ipv4, uint8_t mac[6])
{
	uint64_t result, retry, start, now, limit, wall_limit, wall_end;
	uint64_t sleep_ns = ARP_SLEEP_FIRST_NS;
	unsigned int tries, state, polls = 0;
	char ip[16];
	uint8_t seq;

	ip_text(ipv4, ip);
	result = hroce_mmio_read64(dev, HROCE_REG_ARP_RESULT);
	retry = hroce_mmio_read64(dev, HROCE_REG_ARP_RETRY);
	start = hroce_mmio_read64(dev, HROCE_REG_TIME);
	if (result == ~UINT64_C(0) || start == ~UINT64_C(0)) {
		hroce_log(HROCE_LOG_ERR, "%s: ARP lookup of %s: no answer from the device",
			  dev->name, ip);
		return ETIMEDOUT;
	}
	/* the answer is to the lookup that moves SEQ on by one */
	seq = (uint8_t)(HROCE_REG_FIELD(result, ARP_RESULT, SEQ) + 1);
	tries = (unsigned int)HROCE_REG_FIELD(retry, ARP_RETRY, TRIES);
	if (!tries)
		tries = 1;
	limit = (tries + 1) * HROCE_REG_FIELD(retry, ARP_RETRY, INTERVAL) + ARP_SLACK_CYCLES;
	wall_limit = limit * ARP_WALL_NS_PER_CYCLE > ARP_WALL_MIN_NS ? limit * ARP_WALL_NS_PER_CYCLE
								     : ARP_WALL_MIN_NS;
	wall_end = wall_ns() + wall_limit;
	hroce_mmio_write64(dev, HROCE_REG_ARP_LOOKUP, ipv4);
	for (;;) {
		result = hroce_mmio_read64(dev, HROCE_REG_ARP_RESULT);
		state = (unsigned int)HROCE_REG_FIELD(result, ARP_RESULT, STATE);
		if (result != ~UINT64_C(0) && HROCE_REG_FIELD(result, ARP_RESULT, SEQ) == seq &&
		    state != HROCE_ARP_STATE_PENDING)
			break;
		now = hroce_mmio_read64(dev, HROCE_REG_TIME);
		if (result == ~UINT64_C(0) || now == ~UINT64_C(0) || now - start > limit) {
			hroce_log(HROCE_LOG_ERR,
				  "%s: ARP lookup of %s: the device gave no answer in %llu cycles",
				  dev->name, ip, (unsigned long long)limit);
			return ETIMEDOUT;
		}
		if (wall_ns() > wall_end) {
			hroce_log(HROCE_LOG_ERR,
				  "%s: ARP lookup of %s: no answer in %llu s of wall-clock time, "
				  "in which the device's clock moved %llu of the %llu cycles the "
				  "lookup may take (a simulated NIC that a busy wire peer keeps in "
				  "step cannot jump to its next ARP request)",
				  dev->name, ip, (unsigned long long)(wall_limit / 1000000000u),
				  (unsigned long long)(now - start), (unsigned long long)limit);
			return ETIMEDOUT;
		}
		if (polls < ARP_FAST_POLLS) {
			polls++;
			hroce_idle(dev);
			continue;
		}
		hroce_pause(dev, sleep_ns);
		if (sleep_ns < ARP_SLEEP_MAX_NS)
			sleep_ns *= 2;
	}
	if (state != HROCE_ARP_STATE_RESOLVED) {
		hroce_log(HROCE_LOG_ERR,
			  "%s: no ARP reply from %s after %u requests %llu cycles apart: "
			  "host unreachable",
			  dev->name, ip, tries,
			  (unsigned long long)HROCE_REG_FIELD(retry, ARP_RETRY, INTERVAL));
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
