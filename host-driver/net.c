// SPDX-License-Identifier: MIT
/*
 * The core's network blocks: peers' MAC addresses from its ARP cache, through
 * REG_ARP_LOOKUP and REG_ARP_RESULT (the core answers a cached address at once, and
 * otherwise broadcasts who-has requests, REG_ARP_RETRY says how many and how far apart,
 * until a reply comes or the last one goes unanswered), IPv6 neighbours' the same way
 * from its ND cache (REG_ND_LOOKUP_HI, REG_ND_LOOKUP, REG_ND_RESULT: solicitations to the
 * address's solicited-node group, under the same REG_ARP_RETRY), and their counters.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
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

/* What differs between resolving an IPv4 address (ARP) and an IPv6 one (ND). */
struct neigh_proto {
	const char *name;    /* "ARP", "ND" */
	const char *request; /* what the core sends: "who-has request", "solicitation" */
	const char *answer;  /* what it waits for: "ARP reply", "advertisement" */
	uint64_t result_reg;
};

static const struct neigh_proto arp_proto = { "ARP", "who-has request", "ARP reply",
					      HROCE_REG_ARP_RESULT };
static const struct neigh_proto nd_proto = { "ND", "solicitation", "neighbour advertisement",
					     HROCE_REG_ND_RESULT };

/* A register write that starts a lookup (the last one of a list does). */
struct reg_write {
	uint64_t reg, value;
};

/*
 * The lookup of ip (text for the messages): the writes start it, then the result register
 * is polled as the file's header says until its answer comes.
 */
static int resolve(struct hroce_dev *dev, const struct neigh_proto *p, const char *ip,
		   const struct reg_write *writes, size_t nwrites, uint8_t mac[6])
{
	uint64_t result, retry, start, now, limit, wall_limit, wall_end;
	uint64_t sleep_ns = ARP_SLEEP_FIRST_NS;
	unsigned int tries, state, polls = 0;
	uint8_t seq;

	result = hroce_mmio_read64(dev, p->result_reg);
	retry = hroce_mmio_read64(dev, HROCE_REG_ARP_RETRY);
	start = hroce_mmio_read64(dev, HROCE_REG_TIME);
	if (result == ~UINT64_C(0) || start == ~UINT64_C(0)) {
		hroce_log(HROCE_LOG_ERR, "%s: %s lookup of %s: no answer from the device",
			  dev->name, p->name, ip);
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
	for (size_t i = 0; i < nwrites; i++)
		hroce_mmio_write64(dev, writes[i].reg, writes[i].value);
	for (;;) {
		result = hroce_mmio_read64(dev, p->result_reg);
		state = (unsigned int)HROCE_REG_FIELD(result, ARP_RESULT, STATE);
		if (result != ~UINT64_C(0) && HROCE_REG_FIELD(result, ARP_RESULT, SEQ) == seq &&
		    state != HROCE_ARP_STATE_PENDING)
			break;
		now = hroce_mmio_read64(dev, HROCE_REG_TIME);
		if (result == ~UINT64_C(0) || now == ~UINT64_C(0) || now - start > limit) {
			hroce_log(HROCE_LOG_ERR,
				  "%s: %s lookup of %s: the device gave no answer in %llu cycles",
				  dev->name, p->name, ip, (unsigned long long)limit);
			return ETIMEDOUT;
		}
		if (wall_ns() > wall_end) {
			hroce_log(HROCE_LOG_ERR,
				  "%s: %s lookup of %s: no answer in %llu s of wall-clock time, "
				  "in which the device's clock moved %llu of the %llu cycles the "
				  "lookup may take (a simulated NIC that a busy wire peer keeps in "
				  "step cannot jump to its next %s)",
				  dev->name, p->name, ip,
				  (unsigned long long)(wall_limit / 1000000000u),
				  (unsigned long long)(now - start), (unsigned long long)limit,
				  p->request);
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
			  "%s: no %s from %s after %u %ss %llu cycles apart: host unreachable",
			  dev->name, p->answer, ip, tries, p->request,
			  (unsigned long long)HROCE_REG_FIELD(retry, ARP_RETRY, INTERVAL));
		return EHOSTUNREACH;
	}
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)(HROCE_REG_FIELD(result, ARP_RESULT, MAC) >> (40 - 8 * i));
	return 0;
}

int hroce_resolve_mac(struct hroce_dev *dev, uint32_t ipv4, uint8_t mac[6])
{
	const struct reg_write lookup = { HROCE_REG_ARP_LOOKUP, ipv4 };
	char ip[16];

	snprintf(ip, sizeof(ip), "%u.%u.%u.%u", ipv4 >> 24, ipv4 >> 16 & 0xff, ipv4 >> 8 & 0xff,
		 ipv4 & 0xff);
	return resolve(dev, &arp_proto, ip, &lookup, 1, mac);
}

int hroce_resolve_mac6(struct hroce_dev *dev, const uint8_t ip6[16], uint8_t mac[6])
{
	static const uint8_t unspecified[16];
	struct reg_write lookup[2] = { { HROCE_REG_ND_LOOKUP_HI, 0 }, { HROCE_REG_ND_LOOKUP, 0 } };
	char ip[INET6_ADDRSTRLEN];

	/* the address's first byte the most significant of REG_ND_LOOKUP_HI */
	for (int i = 0; i < 8; i++) {
		lookup[0].value = lookup[0].value << 8 | ip6[i];
		lookup[1].value = lookup[1].value << 8 | ip6[8 + i];
	}
	if (!inet_ntop(AF_INET6, ip6, ip, sizeof(ip)))
		snprintf(ip, sizeof(ip), "(an IPv6 address)");
	/* the core fails these at once too; say why */
	if (ip6[0] == 0xff || !memcmp(ip6, unspecified, 16)) {
		hroce_log(HROCE_LOG_ERR, "%s: ND lookup of %s: not a unicast address", dev->name,
			  ip);
		return EHOSTUNREACH;
	}
	return resolve(dev, &nd_proto, ip, lookup, 2, mac);
}

uint64_t hroce_net_counter(struct hroce_dev *dev, unsigned int index)
{
	return hroce_mmio_read64(dev, HROCE_REG_NET_COUNTERS + 8 * (uint64_t)index);
}
