// SPDX-License-Identifier: MIT
/*
 * The world: one clock, the NICs on it, and the loop that steps them in lockstep.
 *
 * Links have at least a cycle of latency, so nothing crosses between NICs within a cycle
 * and each NIC can do its whole cycle (drive, settle, sample, edge) before the next one's.
 * A world whose NICs are on shared-memory wires runs in chunks that their time
 * synchronisation allows (wire_shm.c).
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
	w->wake_word = &w->local_word;
	atomic_init(&w->notify_at, UINT64_MAX);
	if (pthread_mutex_init(&w->lock, NULL)) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	return w;
}

void hroce_sim_world_destroy(struct hroce_sim_world *w)
{
	if (!w)
		return;
	hroce_sim_world_stop(w);
	sim_ls_world_gone(w);
	while (w->nnics)
		hroce_sim_destroy(w->nics[w->nnics - 1]);
	free(w->nics);
	pthread_mutex_destroy(&w->lock);
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

void sim_world_cycle(struct hroce_sim_world *w)
{
	bool quiet = true;

	for (size_t i = 0; i < w->nnics; i++) {
		sim_nic_cycle(w->nics[i], w->cycle);
		quiet = quiet && sim_nic_quiet(w->nics[i]);
	}
	w->quiet = quiet ? w->quiet + 1 : 0;
	w->cycle++;
	w->cycles_run++;
}

uint64_t sim_world_sync(struct hroce_sim_world *w, uint64_t max, struct hroce_sim_wire **blocking)
{
	for (size_t i = 0; i < w->nnics && w->nwires; i++) {
		struct hroce_sim_wire *x = w->nics[i]->wire;

		if (!x)
			continue;
		max = sim_wire_sync(x, w->cycle, max);
		if (!max) {
			*blocking = x;
			return 0;
		}
	}
	return max;
}

void sim_world_jump(struct hroce_sim_world *w, uint64_t cycle)
{
	uint64_t delta;

	if (cycle <= w->cycle)
		return;
	delta = cycle - w->cycle;
	/* what the host queued while the world slept leaves the host now, not back then */
	for (size_t i = 0; i < w->nnics; i++) {
		struct hroce_sim *s = w->nics[i];

		for (uint64_t k = s->mmio.head; k != s->mmio.tail; k++)
			s->mmio.ops[k & (s->mmio.cap - 1)].arrive += delta;
		if (s->rd.active)
			s->rd.limit += delta;
	}
	w->cycles_skipped += delta;
	w->cycle = cycle;
	atomic_store(&w->cycle_pub, cycle);
}

uint64_t sim_world_deadline(const struct hroce_sim_world *w)
{
	uint64_t d = UINT64_MAX;

	for (size_t i = 0; i < w->nnics; i++)
		if (*w->nics[i]->time_deadline < d)
			d = *w->nics[i]->time_deadline;
	return d;
}

bool sim_world_timer_jump(struct hroce_sim_world *w, uint64_t end, bool unlock)
{
	struct hroce_sim_wire *blocking;
	uint64_t d = sim_world_deadline(w), n;

	/*
	 * no timer runs (a running world sleeps instead), or one is busy or due now; a world
	 * with an external port waits for its timers on the wall clock (world_run.c)
	 */
	if (w->nexts || w->quiet < HROCE_SIM_QUIET_CYCLES || d == UINT64_MAX || d <= w->cycle)
		return false;
	for (size_t i = 0; i < w->nnics; i++)
		if (!sim_nic_quiet(w->nics[i]))
			return false;
	n = (d < end ? d : end) - w->cycle;
	if (!n)
		return false;
	if (w->nwires) {
		n = sim_world_sync(w, n, &blocking);
		if (!n) {
			w->peer_waits++;
			if (unlock)
				pthread_mutex_unlock(&w->lock);
			sim_wire_wait(blocking);
			if (unlock)
				pthread_mutex_lock(&w->lock);
			return true;
		}
	}
	sim_world_jump(w, w->cycle + n);
	return true;
}

void hroce_sim_world_step(struct hroce_sim_world *w, uint64_t cycles)
{
	struct hroce_sim_wire *blocking;
	uint64_t end = w->cycle + cycles;

	if (w->stepping || w->running) {
		sim_log(HROCE_SIM_LOG_ERR,
			"hroce_sim_world_step called from inside a step (an irq handler or an "
			"observer) or while the world's thread runs it: ignored");
		return;
	}
	if (!w->nnics) {
		w->cycle += cycles;
		atomic_store(&w->cycle_pub, w->cycle);
		return;
	}
	w->stepping = true;
	while (w->cycle < end) {
		uint64_t n;

		/* cycles in which nothing but a timer waits are not evaluated */
		if (sim_world_timer_jump(w, end, false))
			continue;
		n = sim_world_sync(w, end - w->cycle, &blocking);

		if (!n) {
			w->peer_waits++;
			sim_wire_wait(blocking);
			continue;
		}
		while (n--) {
			sim_world_cycle(w);
			/* quiet now: the timers may let the rest be skipped */
			if (w->quiet == HROCE_SIM_QUIET_CYCLES)
				break;
		}
	}
	/* the peers of its wires may run up to where this step ended */
	for (size_t i = 0; i < w->nnics && w->nwires; i++)
		if (w->nics[i]->wire)
			sim_wire_sync(w->nics[i]->wire, w->cycle, 0);
	atomic_store(&w->cycle_pub, w->cycle);
	w->stepping = false;
}

uint64_t hroce_sim_world_cycles(const struct hroce_sim_world *w)
{
	/* while the thread runs, the clock of the last cycle it finished */
	return w->running ? atomic_load(&w->cycle_pub) : w->cycle;
}

uint64_t hroce_sim_world_ns(const struct hroce_sim_world *w)
{
	return sim_cycles_to_ns(w, hroce_sim_world_cycles(w));
}
