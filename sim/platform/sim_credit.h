/* SPDX-License-Identifier: MIT */
/*
 * A bandwidth budget: credit accrues every cycle up to one beat's worth and each byte sent
 * costs some, in integer units chosen so that any rate is exact (a rate of G Gb/s at a
 * clock of F MHz: G * 1000 units a cycle, 8 * F units a byte). A beat may go while the
 * credit is not negative, so the rate holds on average and idle time is not banked.
 */
#ifndef HROCE_SIM_CREDIT_H
#define HROCE_SIM_CREDIT_H

#include <stdbool.h>
#include <stdint.h>

struct sim_credit {
	int64_t level;
	uint64_t per_cycle; /* 0: unlimited */
	uint64_t per_byte;
	int64_t cap;
	uint64_t updated; /* the cycle level was brought up to date */
};

/* gbps 0: unlimited; cap_bytes: what may be banked (a beat). */
static inline void sim_credit_init(struct sim_credit *c, uint32_t gbps, uint32_t clock_mhz,
				   uint32_t cap_bytes)
{
	c->per_cycle = (uint64_t)gbps * 1000;
	c->per_byte = (uint64_t)clock_mhz * 8;
	c->cap = (int64_t)(c->per_byte * cap_bytes);
	c->level = c->cap;
	c->updated = 0;
}

static inline void sim_credit_refill(struct sim_credit *c, uint64_t now)
{
	uint64_t dt = now - c->updated, room = (uint64_t)(c->cap - c->level);

	c->updated = now;
	if (dt >= room / c->per_cycle + 1)
		c->level = c->cap;
	else if ((c->level += (int64_t)(dt * c->per_cycle)) > c->cap)
		c->level = c->cap;
}

/* May a beat go this cycle? */
static inline bool sim_credit_ok(struct sim_credit *c, uint64_t now)
{
	if (!c->per_cycle || c->level >= 0)
		return true;
	sim_credit_refill(c, now);
	return c->level >= 0;
}

static inline void sim_credit_take(struct sim_credit *c, uint64_t now, uint64_t bytes)
{
	if (!c->per_cycle)
		return;
	sim_credit_refill(c, now);
	c->level -= (int64_t)(bytes * c->per_byte);
}

#endif /* HROCE_SIM_CREDIT_H */
