// SPDX-License-Identifier: MIT
/*
 * Lockstep: a world whose runs are reproducible, cycle for cycle, whatever the wall clock
 * does (hroce_sim_world_set_lockstep).
 *
 * What makes a free-running world differ from run to run is the host: an application
 * thread's MMIO lands at whatever cycle the world's thread has reached when it comes, and
 * what it reads in memory depends on how far the world got. In lockstep the world runs in
 * quanta of Q cycles (Q is at most its wires' latency), and only while every application
 * thread that uses it waits: in a NIC wait (a poll that found nothing, an MMIO read, a
 * pause), or in a wait of the out-of-band channel (hroce_sim_oob_*: the TCP socket two
 * perftest processes talk over), or on a file descriptor (a completion channel). A wait
 * looks at its condition only between quanta, at a boundary, and the world starts the next
 * quantum only once every waiting thread has looked at the boundary as it now is. So
 * every host action happens at a boundary and takes no simulated time; an empty poll
 * costs one quantum; an MMIO read returns at the first boundary after its answer.
 *
 * The threads: a thread counts from its first call into the world (the one that starts
 * the world counts from the start) until it exits. A thread that acted (left a wait, did
 * something, entered a wait again) bumps the epoch, so that the others look again: at a
 * boundary the threads act until none has anything left to do, then the quantum runs.
 * Threads that act at the same boundary act in the order they come; a program whose
 * threads race each other there is reproducible only as far as that order is.
 *
 * Registering is publish-then-check against the world's thread: the thread counts itself
 * active, then looks whether a quantum is under way (and waits for its end if so); the
 * world's thread marks the quantum under way, then looks whether every thread waits.
 * Either sees the other.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sim_futex.h"
#include "sim_internal.h"

/* a waiting thread looks whether the world still runs this often */
#define LS_WAIT_SLICE_NS 100000000u
/* and looks again this often while another thread is active */
#define LS_ACTIVE_SLICE_NS 1000000u
/* a thread may use this many worlds at once */
#define LS_WORLDS_PER_THREAD 4

/* What a thread knows of its slots in worlds. */
struct ls_mine {
	struct {
		struct hroce_sim_world *w;
		uint64_t id;
		unsigned int slot;
	} at[LS_WORLDS_PER_THREAD];
};

static _Atomic uint64_t next_world_id = 1;
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static __thread struct ls_mine mine;

static void bump(struct hroce_sim_world *w)
{
	sim_futex_poke_private(&w->ls_seq);
}

/* A thread that exits leaves its slots: a world does not wait for it any more. */
static void thread_gone(void *arg)
{
	struct ls_mine *m = arg;

	for (unsigned int i = 0; i < LS_WORLDS_PER_THREAD; i++) {
		struct hroce_sim_world *w = m->at[i].w;

		if (!w)
			continue;
		sim_ls_forget(w, m->at[i].id, m->at[i].slot);
		m->at[i].w = NULL;
	}
}

static void make_key(void)
{
	pthread_key_create(&key, thread_gone);
}

pthread_mutex_t sim_ls_worlds_lock = PTHREAD_MUTEX_INITIALIZER;
struct hroce_sim_world *sim_ls_worlds;

/*
 * Whether the world a thread remembers still lives (a destroyed one is gone from the
 * list, and a new one at its address has another id); the caller holds the list's lock.
 */
static bool live(const struct hroce_sim_world *w, uint64_t id)
{
	for (const struct hroce_sim_world *x = sim_ls_worlds; x; x = x->ls_next)
		if (x == w)
			return x->ls_id == id;
	return false;
}

void sim_ls_forget(struct hroce_sim_world *w, uint64_t id, unsigned int slot)
{
	struct sim_ls_slot *sl;

	pthread_mutex_lock(&sim_ls_worlds_lock);
	if (live(w, id)) {
		sl = &w->ls_slots[slot];
		if (!atomic_load(&sl->waiting))
			atomic_fetch_sub(&w->ls_active, 1);
		atomic_store(&sl->waiting, 0);
		atomic_store(&sl->used, 0);
		bump(w);
	}
	pthread_mutex_unlock(&sim_ls_worlds_lock);
}

static void unlist(struct hroce_sim_world *w)
{
	pthread_mutex_lock(&sim_ls_worlds_lock);
	for (struct hroce_sim_world **p = &sim_ls_worlds; *p; p = &(*p)->ls_next) {
		if (*p == w) {
			*p = w->ls_next;
			break;
		}
	}
	pthread_mutex_unlock(&sim_ls_worlds_lock);
}

int hroce_sim_world_set_lockstep(struct hroce_sim_world *w, uint32_t quantum_ns)
{
	uint32_t q;

	if (!w)
		return EINVAL;
	if (w->running || w->stepping || w->nwires || w->nexts)
		return EBUSY;
	q = quantum_ns ? sim_ns_to_cycles(w, quantum_ns) : 0;
	if (w->quantum && !q) {
		unlist(w);
	} else if (!w->quantum && q) {
		pthread_once(&key_once, make_key);
		pthread_mutex_lock(&sim_ls_worlds_lock);
		w->ls_id = atomic_fetch_add(&next_world_id, 1);
		w->ls_next = sim_ls_worlds;
		sim_ls_worlds = w;
		pthread_mutex_unlock(&sim_ls_worlds_lock);
	}
	w->quantum = q;
	return 0;
}

uint32_t hroce_sim_world_quantum(const struct hroce_sim_world *w)
{
	return w->quantum;
}

void sim_ls_world_gone(struct hroce_sim_world *w)
{
	if (w->quantum)
		unlist(w);
	w->quantum = 0;
}

/* The calling thread's slot in w, taken now (counted active) if it has none. */
static struct sim_ls_slot *my_slot(struct hroce_sim_world *w)
{
	struct sim_ls_slot *sl = NULL;
	unsigned int free_at = LS_WORLDS_PER_THREAD, i;

	for (i = 0; i < LS_WORLDS_PER_THREAD; i++)
		if (mine.at[i].w == w && mine.at[i].id == w->ls_id)
			return &w->ls_slots[mine.at[i].slot];
	/* the thread's first call into w: a place among its worlds (a dead one's will do) */
	pthread_mutex_lock(&sim_ls_worlds_lock);
	for (i = 0; i < LS_WORLDS_PER_THREAD && free_at == LS_WORLDS_PER_THREAD; i++)
		if (!mine.at[i].w || !live(mine.at[i].w, mine.at[i].id))
			free_at = i;
	pthread_mutex_unlock(&sim_ls_worlds_lock);
	for (i = 0; i < SIM_LS_THREADS; i++) {
		uint32_t zero = 0;

		if (atomic_compare_exchange_strong(&w->ls_slots[i].used, &zero, 1)) {
			sl = &w->ls_slots[i];
			break;
		}
	}
	if (!sl || free_at == LS_WORLDS_PER_THREAD) {
		if (sl)
			atomic_store(&sl->used, 0);
		sim_log(HROCE_SIM_LOG_ERR,
			"lockstep: more than %u threads use the world, or a thread uses more "
			"than %u worlds: this thread is not counted, and the run not reproducible",
			SIM_LS_THREADS, LS_WORLDS_PER_THREAD);
		return NULL;
	}
	mine.at[free_at].w = w;
	mine.at[free_at].id = w->ls_id;
	mine.at[free_at].slot = i;
	pthread_setspecific(key, &mine);
	atomic_store(&sl->checked, atomic_load(&w->ls_epoch) - 1);
	atomic_store(&sl->waiting, 0);
	atomic_fetch_add(&w->ls_active, 1);
	/* a quantum under way (it began before we counted): we come in at its end */
	for (;;) {
		uint32_t seq = atomic_load(&w->ls_seq);

		if (!atomic_load(&w->ls_in_quantum) || !w->running)
			break;
		sim_futex_wait_private(&w->ls_seq, seq, LS_WAIT_SLICE_NS);
	}
	return sl;
}

void sim_ls_enter(struct hroce_sim_world *w)
{
	if (w->quantum && w->running)
		my_slot(w);
}

void sim_ls_register_starter(struct hroce_sim_world *w)
{
	/* the world's thread does not run yet: nothing to wait for */
	if (w->quantum)
		my_slot(w);
}

bool sim_ls_wait(struct hroce_sim_world *w, bool (*cond)(void *arg), void *arg,
		 enum sim_ls_kind kind)
{
	struct sim_ls_slot *sl = my_slot(w);
	bool met = false;

	if (!sl) {
		/* not counted: it waits as it can (the run is not reproducible, as logged) */
		for (;;) {
			uint32_t seq = atomic_load(&w->ls_seq);

			if (cond(arg))
				return true;
			if (!w->running || w->stop)
				return false;
			sim_futex_wait_private(&w->ls_seq, seq, LS_ACTIVE_SLICE_NS);
		}
	}
	/* what this thread did since it last waited may change what the others wait for */
	atomic_fetch_add(&w->ls_epoch, 1);
	atomic_store(&sl->kind, kind);
	atomic_store(&sl->waiting, 1);
	atomic_fetch_sub(&w->ls_active, 1);
	bump(w);
	for (;;) {
		uint32_t seq = atomic_load(&w->ls_seq);
		uint32_t epoch = atomic_load(&w->ls_epoch);

		uint32_t active = atomic_load(&w->ls_active);
		bool fresh = atomic_load(&sl->checked) != epoch;

		if (!w->running || w->stop)
			break;
		/*
		 * Between quanta: once per epoch (the world's thread waits for our look), and
		 * again now and then while a thread is active (one that acts and then blocks
		 * outside a wait, a close joining the thread that waits here): the world cannot
		 * start a quantum meanwhile, as the active one bumps the epoch on its way out.
		 */
		if ((fresh || active) && !atomic_load(&w->ls_in_quantum)) {
			if (cond(arg)) {
				met = true;
				break;
			}
			if (fresh) {
				atomic_store(&sl->checked, epoch);
				bump(w);
				continue;
			}
		}
		sim_futex_wait_private(&w->ls_seq, seq,
				       active ? LS_ACTIVE_SLICE_NS : LS_WAIT_SLICE_NS);
	}
	/* active again: counted before the slot stops waiting, so the world never sees 0 */
	atomic_fetch_add(&w->ls_active, 1);
	atomic_store(&sl->waiting, 0);
	return met || cond(arg);
}

/*
 * Whether every thread of the world waits and has looked at this epoch; marks a quantum
 * under way if so (the caller runs it, then calls sim_ls_boundary).
 */
static bool settled(struct hroce_sim_world *w, bool *timeless)
{
	uint32_t epoch;

	atomic_store(&w->ls_in_quantum, 1);
	epoch = atomic_load(&w->ls_epoch);
	*timeless = true;
	if (atomic_load(&w->ls_active))
		goto no;
	for (unsigned int i = 0; i < SIM_LS_THREADS; i++) {
		const struct sim_ls_slot *sl = &w->ls_slots[i];

		if (!atomic_load(&sl->used))
			continue;
		if (!atomic_load(&sl->waiting) || atomic_load(&sl->checked) != epoch)
			goto no;
		if (atomic_load(&sl->kind) == SIM_LS_TIME)
			*timeless = false;
	}
	return true;
no:
	atomic_store(&w->ls_in_quantum, 0);
	bump(w);
	return false;
}

bool sim_ls_settle(struct hroce_sim_world *w, bool *timeless)
{
	for (;;) {
		uint32_t seq = atomic_load(&w->ls_seq);

		if (w->stop)
			return false;
		if (settled(w, timeless))
			return true;
		sim_futex_wait_private(&w->ls_seq, seq + 1, LS_WAIT_SLICE_NS);
	}
}

void sim_ls_abandon(struct hroce_sim_world *w)
{
	atomic_store(&w->ls_in_quantum, 0);
	bump(w);
}

void sim_ls_boundary(struct hroce_sim_world *w)
{
	atomic_fetch_add(&w->ls_epoch, 1);
	atomic_store(&w->ls_in_quantum, 0);
	bump(w);
}

/* ------------------------------------------------------------------------------------- */
/* Waits */

struct until {
	struct hroce_sim_world *w;
	uint64_t cycle;
};

static bool reached(void *arg)
{
	const struct until *u = arg;

	return u->w->cycle >= u->cycle;
}

void sim_ls_idle(struct hroce_sim_world *w, uint64_t cycles)
{
	struct until u = { w, 0 };

	/* counted (at a boundary, then): the clock stands still until we wait */
	sim_ls_enter(w);
	u.cycle = w->cycle + (cycles ? cycles : 1);
	sim_ls_wait(w, reached, &u, SIM_LS_TIME);
}

struct fds_ready {
	struct pollfd *fds;
	unsigned int n;
};

static bool fds_ready(void *arg)
{
	const struct fds_ready *f = arg;

	return poll(f->fds, f->n, 0) != 0;
}

bool hroce_sim_wait_poll(struct hroce_sim_world *w, struct pollfd *fds, unsigned int n)
{
	struct fds_ready f = { fds, n };

	if (!w || !w->quantum || !w->running)
		return false;
	sim_ls_wait(w, fds_ready, &f, SIM_LS_NIC);
	return true;
}

/* ------------------------------------------------------------------------------------- */
/* The out-of-band channel */

static struct hroce_sim_wire *oob_wire(const struct hroce_sim_world *w)
{
	if (!w || !w->quantum)
		return NULL;
	for (size_t i = 0; i < w->nnics; i++)
		if (w->nics[i]->wire)
			return w->nics[i]->wire;
	return NULL;
}

void hroce_sim_oob_sent(struct hroce_sim_world *w, enum hroce_sim_oob kind, int64_t n)
{
	struct hroce_sim_wire *x = oob_wire(w);

	if (!x || kind >= HROCE_SIM_OOB_KINDS)
		return;
	sim_ls_enter(w);
	sim_wire_oob_add(x, kind, n);
}

struct oob_wait {
	struct hroce_sim_world *w;
	struct hroce_sim_wire *x;
	enum hroce_sim_oob kind;
};

static bool oob_ready(void *arg)
{
	const struct oob_wait *o = arg;

	return sim_wire_oob_ready(o->x, o->kind, o->w->cycle);
}

bool hroce_sim_oob_wait(struct hroce_sim_world *w, enum hroce_sim_oob kind)
{
	struct oob_wait o = { w, oob_wire(w), kind };

	if (!o.x || kind >= HROCE_SIM_OOB_KINDS || !w->running)
		return false;
	sim_ls_wait(w, oob_ready, &o, SIM_LS_OOB);
	return true;
}

void hroce_sim_oob_taken(struct hroce_sim_world *w, enum hroce_sim_oob kind, uint64_t n)
{
	struct hroce_sim_wire *x = oob_wire(w);

	if (x && kind < HROCE_SIM_OOB_KINDS)
		sim_wire_oob_take(x, kind, n);
}
