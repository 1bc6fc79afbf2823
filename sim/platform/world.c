// SPDX-License-Identifier: MIT
/*
 * The world: one clock, the NICs on it, and the loop that steps them in lockstep.
 *
 * Links have at least a cycle of latency, so nothing crosses between NICs within a cycle
 * and each NIC can do its whole cycle (drive, settle, sample, edge) before the next one's.
 */
#include <errno.h>
#include <stdlib.h>

#include "sim_internal.h"

struct hroce_sim_world *hroce_sim_world_create(uint32_t clock_mhz)
{
	struct hroce_sim_world *w;

	if (!clock_mhz || clock_mhz > 100000) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->clock_mhz = clock_mhz;
	w->period_ps = 1000000 / clock_mhz;
	return w;
}

void hroce_sim_world_destroy(struct hroce_sim_world *w)
{
	if (!w)
		return;
	while (w->nnics)
		hroce_sim_destroy(w->nics[w->nnics - 1]);
	free(w->nics);
	free(w);
}

int sim_world_add(struct hroce_sim_world *w, struct hroce_sim *s)
{
	if (w->nnics == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 4;
		struct hroce_sim **nics = realloc(w->nics, cap * sizeof(*nics));

		if (!nics)
			return ENOMEM;
		w->nics = nics;
		w->cap = cap;
	}
	w->nics[w->nnics++] = s;
	return 0;
}

void sim_world_remove(struct hroce_sim_world *w, struct hroce_sim *s)
{
	for (size_t i = 0; i < w->nnics; i++) {
		if (w->nics[i] == s) {
			for (; i + 1 < w->nnics; i++)
				w->nics[i] = w->nics[i + 1];
			w->nnics--;
			return;
		}
	}
}

void hroce_sim_world_step(struct hroce_sim_world *w, uint64_t cycles)
{
	if (w->stepping) {
		sim_log(HROCE_SIM_LOG_ERR,
			"hroce_sim_world_step called from inside a step (an irq handler or an "
			"observer): ignored");
		return;
	}
	if (!w->nnics) {
		w->cycle += cycles;
		return;
	}
	w->stepping = true;
	for (uint64_t end = w->cycle + cycles; w->cycle < end; w->cycle++)
		for (size_t i = 0; i < w->nnics; i++)
			sim_nic_cycle(w->nics[i], w->cycle);
	w->stepping = false;
}

uint64_t hroce_sim_world_cycles(const struct hroce_sim_world *w)
{
	return w->cycle;
}

uint64_t hroce_sim_world_ns(const struct hroce_sim_world *w)
{
	return sim_cycles_to_ns(w, w->cycle);
}
