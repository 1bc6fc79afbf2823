// SPDX-License-Identifier: MIT
/*
 * A world run by a thread of its own, the way a NIC runs beside the application that
 * drives it.
 *
 * The thread holds the world's lock while it evaluates cycles. An application thread that
 * calls into a NIC (MMIO, DMA mappings, handlers) counts itself in app_waiting before it
 * takes the lock; the thread checks that count after every cycle and, if it is not zero,
 * lets the lock go and waits (futex) until the application threads are done, so that a
 * call waits for one cycle at most and the thread cannot starve it.
 *
 * Reads and idling do not hold the lock while they wait: the thread publishes its clock
 * (cycle_pub) after every cycle, and wakes the threads waiting on progress when the
 * clock reaches notify_at or a read was answered. Every such wait is publish-then-check
 * on both sides with sequentially consistent atomics: the waiter counts itself in
 * progress_waiters and reads progress before it checks its condition, the thread
 * publishes before it reads progress_waiters, so a wake-up is never lost.
 *
 * Sleeping: after HROCE_SIM_QUIET_CYCLES quiet cycles the thread tells its wires' peers it
 * sleeps and waits on wake_word (its wire's futex word in the shared segment, which both
 * the peer and the application bump, or a word of its own without a wire) until an MMIO
 * access was queued, frames came in, or stop. Waking, the clock jumps to where the wires'
 * time synchronisation says (wire_shm.c), and MMIO queued while asleep leaves the host
 * then. A world whose cores have a timer running (m_time_deadline: a retransmission or RNR
 * timer) does not sleep: once quiet it jumps its clock to the deadline, as far as its
 * wires' peers let it, so that a timer expires in simulated time without the cycles
 * before it being evaluated, and never waits for wall-clock time. But a world with an
 * external port (port_ext.c) has a peer outside that lives on the wall clock: once quiet it
 * sleeps until work comes or the wall-clock time to its earliest timer passed, and its
 * clock then moves on by the wall-clock time it slept.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_futex.h"
#include "sim_internal.h"

/* cycles between two looks at the wires' peers, at most (each wire also caps it) */
#define RUN_BATCH 64
/* an idle thread waits this long at most: the clock may stand still (asleep, a peer) */
#define IDLE_WAIT_NS 1000000u
/* a read waits in slices of this, in case a wake-up went to someone else */
#define READ_WAIT_NS 10000000u

static bool on_thread(const struct hroce_sim_world *w)
{
	return w->running && pthread_equal(pthread_self(), w->thread);
}

void sim_world_lock(struct hroce_sim_world *w)
{
	if (!w->running || on_thread(w))
		return;
	if (w->quantum)
		sim_ls_enter(w); /* an application's call: its thread counts from now */
	atomic_fetch_add(&w->app_waiting, 1);
	pthread_mutex_lock(&w->lock);
}

void sim_world_unlock(struct hroce_sim_world *w)
{
	if (!w->running || on_thread(w))
		return;
	pthread_mutex_unlock(&w->lock);
	if (atomic_fetch_sub(&w->app_waiting, 1) == 1)
		sim_futex_wake_private(&w->app_waiting);
}

void sim_world_kick(struct hroce_sim_world *w)
{
	if (atomic_load(&w->asleep))
		sim_futex_poke(w->wake_word);
}

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------------------------- */
/* The thread */

static void yield_to_apps(struct hroce_sim_world *w)
{
	uint32_t v;

	pthread_mutex_unlock(&w->lock);
	while ((v = atomic_load(&w->app_waiting)) != 0)
		sim_futex_wait_private(&w->app_waiting, v, 0);
	pthread_mutex_lock(&w->lock);
}

/* Reads whose answer is back at the host: true if one was answered this cycle. */
static bool answer_reads(struct hroce_sim_world *w)
{
	bool any = false;

	for (size_t i = 0; i < w->nnics; i++) {
		struct hroce_sim *s = w->nics[i];
		struct sim_read_req *rd = &s->rd;

		if (!rd->active)
			continue;
		if (!rd->have_back && s->mmio.reads_done != rd->done0) {
			/* R was taken at the end of read_cycle; the completion travels back */
			rd->back = s->mmio.read_cycle + 1 + s->read_latency;
			rd->value = s->mmio.read_resp == SIM_AXI_OKAY ? s->mmio.read_data
								      : ~UINT64_C(0);
			rd->have_back = true;
		}
		if (rd->have_back ? w->cycle < rd->back : w->cycle < rd->limit)
			continue;
		if (!rd->have_back) {
			sim_log(HROCE_SIM_LOG_ERR, "%s: MMIO read: completion timeout", s->name);
			rd->value = ~UINT64_C(0);
		}
		rd->active = false;
		atomic_store(&rd->answered, 1);
		any = true;
	}
	return any;
}

static void notify(struct hroce_sim_world *w, bool force)
{
	if (!atomic_load(&w->progress_waiters))
		return;
	if (force || w->cycle >= atomic_load(&w->notify_at)) {
		atomic_store(&w->notify_at, UINT64_MAX);
		sim_futex_poke_private(&w->progress);
	}
}

static bool work_pending(struct hroce_sim_world *w)
{
	for (size_t i = 0; i < w->nnics; i++) {
		struct hroce_sim *s = w->nics[i];

		if (sim_mmio_busy(&s->mmio) || (s->wire && sim_wire_pending(s->wire)) ||
		    (s->ext && sim_ext_pending(s->ext)))
			return true;
	}
	return false;
}

static void sleep_quiet(struct hroce_sim_world *w)
{
	uint64_t to = 0;

	for (size_t i = 0; i < w->nnics; i++)
		if (w->nics[i]->wire)
			sim_wire_sleep(w->nics[i]->wire);
	atomic_store(&w->asleep, 1);
	w->sleeps++;
	for (;;) {
		uint32_t seq = atomic_load(w->wake_word);

		if (w->stop || work_pending(w))
			break;
		pthread_mutex_unlock(&w->lock);
		/* one wire's word is the one its peer bumps; with more, look now and then */
		sim_futex_wait(w->wake_word, seq, w->nwires > 1 ? IDLE_WAIT_NS : 0);
		pthread_mutex_lock(&w->lock);
	}
	atomic_store(&w->asleep, 0);
	if (w->stop)
		return;
	for (size_t i = 0; i < w->nnics; i++) {
		if (w->nics[i]->wire) {
			uint64_t t = sim_wire_wake_begin(w->nics[i]->wire);

			if (t > to)
				to = t;
		}
	}
	sim_world_jump(w, to);
	for (size_t i = 0; i < w->nnics; i++)
		if (w->nics[i]->wire)
			sim_wire_wake_end(w->nics[i]->wire, w->cycle);
	w->quiet = 0;
	notify(w, true);
}

/*
 * A quiet world with an external port: the peer outside measures our timers on its wall
 * clock, so the clock must not run ahead of it. Asleep until work comes (an MMIO access, a
 * frame) or the wall-clock time to the earliest timer passed; then the clock moves on by
 * the wall-clock time slept, up to that timer. False if a timer is busy now (the cycles
 * must be evaluated).
 */
static bool wait_wall(struct hroce_sim_world *w)
{
	uint64_t d = sim_world_deadline(w), gap_ns = 0, t0, slept;

	if (d != UINT64_MAX) {
		if (d <= w->cycle)
			return false;
		gap_ns = sim_cycles_to_ns(w, d - w->cycle);
	}
	atomic_store(&w->asleep, 1);
	w->sleeps++;
	t0 = wall_ns();
	for (;;) {
		uint32_t seq = atomic_load(w->wake_word);
		uint64_t elapsed = wall_ns() - t0;

		if (w->stop || work_pending(w) || (gap_ns && elapsed >= gap_ns))
			break;
		pthread_mutex_unlock(&w->lock);
		sim_futex_wait(w->wake_word, seq, gap_ns ? gap_ns - elapsed : 0);
		pthread_mutex_lock(&w->lock);
	}
	atomic_store(&w->asleep, 0);
	slept = (wall_ns() - t0) * w->clock_mhz / 1000;
	if (d != UINT64_MAX && w->cycle + slept > d)
		slept = d - w->cycle;
	sim_world_jump(w, w->cycle + slept);
	w->quiet = 0;
	notify(w, true);
	return true;
}

/* ------------------------------------------------------------------------------------- */
/* Lockstep (lockstep.c) */

/* Every NIC quiet, and no peer on its wire (or no wire): only its timers can act. */
static bool alone_and_quiet(struct hroce_sim_world *w)
{
	if (w->quiet < HROCE_SIM_QUIET_CYCLES || work_pending(w))
		return false;
	for (size_t i = 0; i < w->nnics; i++)
		if (w->nics[i]->wire && !sim_wire_ls_alone(w->nics[i]->wire))
			return false;
	return true;
}

/* Asleep, the clock stopped, until a peer joins (then at its clock) or work comes. */
static void stall(struct hroce_sim_world *w)
{
	uint64_t to = 0;
	bool joined = false;

	for (size_t i = 0; i < w->nnics; i++)
		if (w->nics[i]->wire)
			sim_wire_ls_stall(w->nics[i]->wire, w->cycle);
	atomic_store(&w->asleep, 1);
	w->ls_stalls++;
	while (!joined) {
		uint32_t seq = atomic_load(w->wake_word), active = atomic_load(&w->ls_active);

		if (w->stop || work_pending(w) || active)
			break;
		for (size_t i = 0; i < w->nnics; i++)
			if (w->nics[i]->wire && sim_wire_ls_joined(w->nics[i]->wire))
				joined = true;
		if (joined)
			break;
		pthread_mutex_unlock(&w->lock);
		sim_futex_wait(w->wake_word, seq, IDLE_WAIT_NS * 20);
		pthread_mutex_lock(&w->lock);
	}
	atomic_store(&w->asleep, 0);
	for (size_t i = 0; i < w->nnics; i++) {
		if (w->nics[i]->wire) {
			uint64_t t = sim_wire_ls_unstall(w->nics[i]->wire);

			if (t > to)
				to = t;
		}
	}
	sim_world_jump(w, to);
	for (size_t i = 0; i < w->nnics; i++)
		if (w->nics[i]->wire)
			sim_wire_ls_go(w->nics[i]->wire, w->cycle);
}

/* The world's peers arrived at this boundary (false: stop meanwhile). */
static bool meet_peers(struct hroce_sim_world *w)
{
	uint64_t c = w->cycle;

	for (size_t i = 0; i < w->nnics; i++)
		if (w->nics[i]->wire)
			sim_wire_ls_arrive(w->nics[i]->wire, c);
	for (size_t i = 0; i < w->nnics; i++) {
		struct hroce_sim_wire *x = w->nics[i]->wire;

		while (x && !sim_wire_ls_ready(x, c)) {
			if (w->stop)
				return false;
			w->peer_waits++;
			pthread_mutex_unlock(&w->lock);
			sim_wire_ls_wait(x, c);
			pthread_mutex_lock(&w->lock);
		}
	}
	return true;
}

/* One quantum: the cycles evaluated, or skipped where every NIC is quiet. */
static void run_quantum(struct hroce_sim_world *w)
{
	uint64_t end = w->cycle + w->quantum;

	while (w->cycle < end && !w->stop) {
		if (w->quiet >= HROCE_SIM_QUIET_CYCLES) {
			uint64_t d = sim_world_deadline(w), to = d < end ? d : end;

			if (to > w->cycle && !work_pending(w)) {
				sim_world_jump(w, to);
				continue;
			}
		}
		sim_world_cycle(w);
		atomic_store(&w->cycle_pub, w->cycle);
		notify(w, answer_reads(w));
	}
}

static void run_lockstep(struct hroce_sim_world *w)
{
	/* boundaries are multiples of the quantum (a wire's attach already rounded) */
	sim_world_jump(w, (w->cycle + w->quantum - 1) / w->quantum * w->quantum);
	while (!w->stop) {
		bool timeless, ok;

		if (atomic_load(&w->app_waiting)) {
			yield_to_apps(w);
			continue;
		}
		pthread_mutex_unlock(&w->lock);
		ok = sim_ls_settle(w, &timeless);
		pthread_mutex_lock(&w->lock);
		if (!ok)
			break;
		if (atomic_load(&w->app_waiting)) {
			/* a call of a thread that does not count (statistics): let it in first */
			sim_ls_abandon(w);
			continue;
		}
		if (alone_and_quiet(w)) {
			uint64_t d = sim_world_deadline(w), at = d / w->quantum * w->quantum;

			if (d == UINT64_MAX && timeless && w->nwires) {
				/*
				 * stalled: no thread waits for time, no timer runs: nothing can
				 * happen in simulated time until a peer comes
				 */
				sim_ls_abandon(w);
				stall(w);
				sim_ls_boundary(w);
				continue;
			}
			if (d != UINT64_MAX && at > w->cycle) {
				/*
				 * nothing but a timer can change what the threads see (a peer that
				 * died, a process alone): to its boundary at once, as one quantum
				 */
				sim_world_jump(w, at);
				sim_ls_boundary(w);
				continue;
			}
		}
		if (!meet_peers(w))
			break;
		run_quantum(w);
		sim_ls_boundary(w);
	}
	sim_ls_abandon(w);
}

static void *run(void *arg)
{
	struct hroce_sim_world *w = arg;
	struct hroce_sim_wire *blocking;

	pthread_mutex_lock(&w->lock);
	w->stepping = true;
	if (w->quantum)
		run_lockstep(w);
	while (!w->stop) {
		uint64_t n = RUN_BATCH;

		if (atomic_load(&w->app_waiting)) {
			yield_to_apps(w);
			continue;
		}
		if (w->quiet >= HROCE_SIM_QUIET_CYCLES) {
			if (w->nexts) {
				if (wait_wall(w))
					continue;
			} else if (sim_world_deadline(w) == UINT64_MAX) {
				/* asleep until woken, or ahead to when a timer of a core needs time
				 */
				sleep_quiet(w);
				continue;
			}
			if (sim_world_timer_jump(w, UINT64_MAX, true)) {
				notify(w, false);
				continue;
			}
		}
		if (w->nwires) {
			n = sim_world_sync(w, n, &blocking);
			if (!n) {
				w->peer_waits++;
				pthread_mutex_unlock(&w->lock);
				sim_wire_wait(blocking);
				pthread_mutex_lock(&w->lock);
				continue;
			}
		}
		while (n--) {
			bool answered;

			sim_world_cycle(w);
			atomic_store(&w->cycle_pub, w->cycle);
			answered = answer_reads(w);
			notify(w, answered);
			if (atomic_load_explicit(&w->app_waiting, memory_order_relaxed) ||
			    w->quiet == HROCE_SIM_QUIET_CYCLES)
				break;
		}
	}
	w->stepping = false;
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* ------------------------------------------------------------------------------------- */
/* What the application calls */

int hroce_sim_world_start(struct hroce_sim_world *w)
{
	sigset_t all, old;
	int err;

	if (!w)
		return EINVAL;
	if (w->running)
		return EBUSY;
	if (w->stepping)
		return EINVAL;
	w->stop = false;
	w->quiet = 0;
	atomic_store(&w->cycle_pub, w->cycle);
	sim_ls_register_starter(w);
	w->running = true;
	/* signals are the application's: its threads take them, not the world's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&w->thread, NULL, run, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		w->running = false;
	return err;
}

void hroce_sim_world_stop(struct hroce_sim_world *w)
{
	if (!w || !w->running || on_thread(w))
		return;
	sim_world_lock(w);
	w->stop = true;
	sim_futex_poke(w->wake_word);
	sim_futex_poke_private(&w->ls_seq);
	for (size_t i = 0; i < w->nnics; i++)
		if (w->nics[i]->wire)
			sim_futex_poke(sim_wire_word(w->nics[i]->wire));
	sim_world_unlock(w);
	pthread_join(w->thread, NULL);
	w->running = false;
	atomic_store(&w->cycle_pub, w->cycle);
}

bool hroce_sim_world_running(const struct hroce_sim_world *w)
{
	return w->running;
}

void hroce_sim_world_idle(struct hroce_sim_world *w, uint64_t cycles)
{
	uint64_t target, deadline, now;

	if (!w->running) {
		hroce_sim_world_step(w, cycles);
		return;
	}
	if (on_thread(w))
		return;
	if (w->quantum) {
		sim_ls_idle(w, cycles);
		return;
	}
	target = atomic_load(&w->cycle_pub) + cycles;
	deadline = wall_ns() + IDLE_WAIT_NS;
	atomic_fetch_add(&w->progress_waiters, 1);
	for (;;) {
		/* progress first: a wake-up that erased our notify_at bumps it after */
		uint32_t seq = atomic_load(&w->progress);
		uint64_t cur = atomic_load(&w->notify_at);

		while (!atomic_compare_exchange_weak(&w->notify_at, &cur,
						     cur < target ? cur : target))
			;
		if (atomic_load(&w->cycle_pub) >= target)
			break;
		now = wall_ns();
		if (now >= deadline ||
		    sim_futex_wait_private(&w->progress, seq, deadline - now) == EINTR)
			break;
	}
	atomic_fetch_sub(&w->progress_waiters, 1);
}

static bool read_answered(void *arg)
{
	struct sim_read_req *rd = arg;

	return atomic_load(&rd->answered);
}

uint64_t sim_world_read(struct hroce_sim *s, uint64_t offset, unsigned int size)
{
	struct hroce_sim_world *w = s->w;
	struct sim_read_req *rd = &s->rd;
	uint64_t value;
	int err;

	if (on_thread(w)) {
		sim_log(HROCE_SIM_LOG_ERR,
			"%s: MMIO read from inside a step (an irq handler or an observer)",
			s->name);
		return ~UINT64_C(0);
	}
	pthread_mutex_lock(&s->read_lock);
	sim_world_lock(w);
	err = sim_mmio_read(&s->mmio, w->cycle + s->read_latency, offset, size);
	if (err) {
		sim_world_unlock(w);
		pthread_mutex_unlock(&s->read_lock);
		sim_log(HROCE_SIM_LOG_ERR, "%s: MMIO read at 0x%llx: %s", s->name,
			(unsigned long long)offset, strerror(err));
		return ~UINT64_C(0);
	}
	rd->active = true;
	rd->have_back = false;
	rd->done0 = s->mmio.reads_done;
	rd->limit = w->cycle + sim_ns_to_cycles(w, SIM_MMIO_READ_TIMEOUT_NS);
	atomic_store(&rd->answered, 0);
	sim_world_kick(w);
	sim_world_unlock(w);

	if (w->quantum) {
		/* back at the host at the first boundary after its answer */
		sim_ls_wait(w, read_answered, rd, SIM_LS_NIC);
	} else {
		atomic_fetch_add(&w->progress_waiters, 1);
		for (;;) {
			uint32_t seq = atomic_load(&w->progress);

			if (atomic_load(&rd->answered))
				break;
			sim_futex_wait_private(&w->progress, seq, READ_WAIT_NS);
		}
		atomic_fetch_sub(&w->progress_waiters, 1);
	}
	value = rd->value;
	pthread_mutex_unlock(&s->read_lock);
	return value;
}

void hroce_sim_world_stats(struct hroce_sim_world *w, struct hroce_sim_world_stats *st)
{
	sim_world_lock(w);
	*st = (struct hroce_sim_world_stats){
		.cycles = w->cycle,
		.cycles_run = w->cycles_run,
		.cycles_skipped = w->cycles_skipped,
		.sleeps = w->sleeps,
		.peer_waits = w->peer_waits,
		.stalls = w->ls_stalls,
		.asleep = atomic_load(&w->asleep),
	};
	sim_world_unlock(w);
}
