// SPDX-License-Identifier: MIT
/*
 * Shared-memory wires: an Ethernet cable between NICs of two processes (or two worlds).
 *
 * The segment /dev/shm/NAME holds a header (the wire's clock, latency and rate, which
 * both sides must agree on), one state block per port, and one ring of beats per
 * direction. Whoever comes first creates it (O_EXCL) and writes the magic last; the other
 * waits for the magic, then checks magic, version and sizes (a stale or foreign segment
 * is refused with its name in the message). The segment stays when both sides left, and
 * is taken over by the next ones; hroce_sim_wire_unlink() removes it.
 *
 * Beats, not frames, cross: each beat the core's TX gives (data, tkeep, tlast, tuser)
 * goes into the ring with the cycle it left (its departure) and reaches the other core's
 * RX at departure + latency, in order, exactly as a link in one process does
 * (sim_channel.c). A beat also carries the sender's generation (bumped by every attach)
 * and marks its frame's first beat, so that beats a dead sender left behind are dropped,
 * and a receiver that (re)starts mid-frame waits for the next frame's first beat. A frame
 * cut short by the loss of its sender ends at the receiver with tuser (a bad frame).
 *
 * Ports: a port is held by a live process (pid and its start time from /proc, so that a
 * reused pid is not taken for the holder) in state ACTIVE, SLEEPING or WAKING, or DOWN.
 * The link is up while the peer's port is held by a live process; frames sent while it is
 * down are dropped and counted, never queued. A holder that exits detaches (DOWN); one
 * that dies is found dead by its peer (pid gone or a zombie) when the peer would wait for
 * it or finds its ring full, and its port is taken over by the next attach.
 *
 * Time synchronisation, conservative, with the latency L (in cycles of the common clock)
 * as the lookahead. Each side publishes time: every cycle before it is done, and nothing
 * it sends later departs earlier. The rules:
 *
 *  1. A side runs in chunks, publishing its time before each (publish, then look at the
 *     peer) and never runs more than L cycles from what it published.
 *  2. Against an ACTIVE or WAKING peer it runs only below the peer's time + L: every beat
 *     due by then departed before the peer's time, so it is in the ring. Against a peer
 *     that is DOWN, or SLEEPING with nothing of ours left unread in its ring, it is free.
 *     (A sleeping peer with our beats in its ring is being woken by them: we CAS it to
 *     WAKING, bump its word, and are held by its time again.)
 *  3. Going to sleep (quiet: nothing in flight, its inbound ring empty), a side publishes
 *     its time, then SLEEPING, then looks at its inbound ring once more before it blocks:
 *     a beat that came meanwhile means it wakes at once.
 *  4. Waking (an MMIO access, beats, or an attach), a side first publishes WAKING, then
 *     reads the peer's time T, and jumps its clock to max(its own, min(T, the due time of
 *     the first beat waiting for it)); then publishes its time and ACTIVE. Steps 4 and 2
 *     are publish-then-check on both sides with sequentially consistent atomics (we store
 *     our state and load its time, it stores its time and loads our state): either the
 *     peer saw WAKING and is held by us from then on, or we read a time T it published
 *     after its last look at us, and as it runs at most L past T (rule 1), our beats,
 *     which depart at T or later, cannot reach it in its past. The min() with the first
 *     due time keeps a frame that woke us from arriving late; it does not let our beats
 *     reach the peer in its past either, because a sender with beats unread in our ring
 *     was held by our sleeping time + L (rule 2), so T <= max(that, the end of the chunk
 *     it sent the beat in) <= the beat's due time + L.
 *
 * Every frame thus reaches the other core exactly its latency after it left (test_simrun
 * checks it frame by frame).
 *
 * Faults (sim_faults.h) of what a side sends are that side's: its fault model decides
 * each frame's fate as its first beat leaves (a lost frame or one held back still takes
 * its time on the sender's wire but never enters the ring; a flipped bit is flipped in
 * its beat), and copies and frames held back enter the ring between the sender's frames
 * with the cycle they enter it as their departure, which no beat of the peer's past can
 * precede (rule 1). Runs are causally correct, not reproducible: when a side
 * sleeps and wakes depends on wall-clock timing. Both processes must see each other's
 * pid (one pid namespace).
 *
 * Waiting is never spinning: a side that may not run sets its port's waiting flag, reads
 * its futex word, looks again, and blocks on the word (FUTEX_WAIT on the shared page);
 * whoever changes what it waits for (a new time or state of the peer, beats for a
 * sleeper, its own application's MMIO, stop) bumps the word and wakes it if the flag is
 * set (the same publish-then-check). A wait looks at whether the peer still lives every
 * 20 ms, so a dead peer costs that, never a hang.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sim_faults.h"
#include "sim_futex.h"
#include "sim_internal.h"

#define WIRE_MAGIC UINT64_C(0x3130455249575248) /* "HRWIRE01" in memory order */
#define WIRE_VERSION 2u
#define WIRE_RING_BEATS 4096u /* per direction: far more than a lookahead's worth */
#define WIRE_NAME_MAX 200
#define WAIT_SLICE_NS 20000000u /* a wait looks at whether the peer lives this often */
#define OPEN_WAIT_MS 1000	/* for a segment another process is creating */
#define FULL_CHECK_CYCLES 4096u /* a full ring: look whether the peer lives this often */
#define FRAME_MAX PCAP_SNAPLEN

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2 && ATOMIC_INT_LOCK_FREE == 2,
	       "shared-memory atomics must be lock-free");

enum wire_state {
	WIRE_DOWN = 0,
	WIRE_ACTIVE = 1,
	WIRE_SLEEPING = 2,
	WIRE_WAKING = 3,
};

struct wire_beat {
	uint8_t data[SIM_DATA_BYTES];
	uint64_t keep;
	uint64_t depart; /* the sender's cycle */
	uint32_t gen;	 /* the sender's generation */
	uint8_t sof, last, user, pad;
};

struct wire_ring {
	_Alignas(64) _Atomic uint64_t tail; /* written by the sender */
	_Alignas(64) _Atomic uint64_t head; /* written by the receiver */
	_Alignas(64) struct wire_beat beats[WIRE_RING_BEATS];
};

struct wire_port {
	_Alignas(64) _Atomic uint32_t state;
	_Atomic uint32_t gen;	     /* bumped by every attach */
	_Atomic int32_t pid;	     /* the holder, 0: none */
	_Atomic uint32_t word;	     /* futex: bumped when something changed for the holder */
	_Atomic uint32_t waiting;    /* the holder waits on word, or is about to */
	_Atomic uint64_t start_time; /* of pid, in clock ticks since boot (/proc) */
	_Atomic uint64_t time;	     /* the holder's published clock */
	/* lockstep: the last boundary + 1 the holder arrived at (its threads done there) */
	_Atomic uint64_t arrived;
	/* lockstep: what the holder sent out of band (enum hroce_sim_oob), so far */
	_Atomic uint64_t oob[HROCE_SIM_OOB_KINDS];
	/* and as it was at its last two arrivals (tag: the boundary + 1) */
	struct {
		_Atomic uint64_t tag;
		_Atomic uint64_t oob[HROCE_SIM_OOB_KINDS];
	} seen[2];
};

struct wire_shm {
	_Atomic uint64_t magic; /* written last by the creator */
	uint32_t version;
	uint32_t beat_bytes, ring_beats;
	uint32_t clock_mhz, latency, gbps;
	uint32_t quantum; /* lockstep: cycles; 0: free-running */
	uint64_t bytes;
	struct wire_port port[2];
	struct wire_ring ring[2]; /* ring[p]: from port p to port 1 - p */
};

/* What a frame's bytes are gathered in, for the pcap. */
struct frame_buf {
	uint8_t *p;
	size_t len, cap;
};

struct hroce_sim_wire {
	struct hroce_sim *nic;
	char *name;
	struct wire_shm *shm;
	struct wire_port *mine, *peer;
	struct wire_ring *out, *in;
	unsigned int port;
	uint32_t latency; /* cycles */
	uint32_t gen;	  /* ours */
	struct pcap_file *pcap;
	struct sim_credit credit;
	/* the peer as last looked at */
	bool peer_up;
	int32_t dead_pid; /* found dead: down while its port still shows this holder */
	uint32_t dead_gen;
	/* sending */
	bool sending, dropping;
	uint64_t tx_start, tx_len, full_checked;
	struct frame_buf tx_frame;
	struct sim_faults faults; /* of what we send */
	struct sim_fate fate;	  /* of the frame being sent */
	uint32_t hold_cycles;	  /* HROCE_SIM_FAULT_HOLD_NS */
	/* receiving */
	uint64_t rx_head; /* ours: the consumer's index */
	bool presented, presented_abort, in_frame;
	uint32_t accept_gen, frame_gen;
	uint64_t rx_start, rx_depart, rx_len;
	struct frame_buf rx_frame;
	/* figures; those a waiting thread updates without the world's lock are atomic */
	uint64_t frames_sent, frames_received, frames_aborted, stale_beats;
	_Atomic uint64_t frames_dropped, link_ups, link_downs, waits, wait_ns;
	_Atomic int32_t peer_pid;
	_Atomic bool peer_up_pub;
	/* lockstep: what we took of what the peer sent out of band; whether it had come */
	uint64_t oob_taken[HROCE_SIM_OOB_KINDS], oob_last[HROCE_SIM_OOB_KINDS];
	bool peer_came;
};

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------------------------- */
/* Processes */

/* The state letter and start time (field 22) of /proc/PID/stat; false if none. */
static bool proc_stat(int pid, char *state, uint64_t *start)
{
	char path[64], line[1024], *p;
	FILE *f;
	size_t n;

	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	line[n] = 0;
	p = strrchr(line, ')'); /* the command name may hold anything but ends here */
	if (!p || sscanf(p + 1, " %c", state) != 1)
		return false;
	p += 2;
	for (int field = 3; field < 22 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	*start = p ? strtoull(p, NULL, 10) : 0;
	return true;
}

static bool process_alive(int pid, uint64_t start)
{
	uint64_t now_start;
	char state;

	if (pid <= 0)
		return false;
	if (!proc_stat(pid, &state, &now_start))
		return !kill(pid, 0) || errno == EPERM;
	if (state == 'Z' || state == 'X')
		return false;
	return !start || !now_start || start == now_start;
}

/* ------------------------------------------------------------------------------------- */
/* The peer */

static void tell_peer(struct hroce_sim_wire *x)
{
	if (atomic_load(&x->peer->waiting))
		sim_futex_poke(&x->peer->word);
}

/* Whether the peer's port is held by a live process, as far as we know; counts changes. */
static bool peer_is_up(struct hroce_sim_wire *x, uint32_t state)
{
	int32_t pid = atomic_load(&x->peer->pid);
	bool up = state != WIRE_DOWN && pid &&
		  !(pid == x->dead_pid && atomic_load(&x->peer->gen) == x->dead_gen);

	if (up != x->peer_up) {
		x->peer_up = up;
		atomic_store(&x->peer_up_pub, up);
		atomic_store(&x->peer_pid, up ? pid : 0);
		if (up)
			atomic_fetch_add(&x->link_ups, 1);
		else
			atomic_fetch_add(&x->link_downs, 1);
		sim_log(HROCE_SIM_LOG_INFO, "%s: wire %s port %u: link %s (peer pid %d)",
			x->nic->name, x->name, x->port, up ? "up" : "down", (int)pid);
	}
	return up;
}

/* A holder that is gone leaves its port to whoever attaches next; until then, it is down. */
static void check_peer_alive(struct hroce_sim_wire *x)
{
	int32_t pid = atomic_load(&x->peer->pid);
	uint32_t gen = atomic_load(&x->peer->gen);

	if (!pid || atomic_load(&x->peer->state) == WIRE_DOWN ||
	    (pid == x->dead_pid && gen == x->dead_gen))
		return;
	if (process_alive(pid, atomic_load(&x->peer->start_time)))
		return;
	x->dead_pid = pid;
	x->dead_gen = gen;
	/* what it had not read yet is lost with it */
	for (uint64_t k = atomic_load(&x->out->head); k != atomic_load(&x->out->tail); k++) {
		const struct wire_beat *b = &x->out->beats[k % WIRE_RING_BEATS];

		if (b->sof && b->gen == x->gen)
			atomic_fetch_add(&x->frames_dropped, 1);
	}
	sim_log(HROCE_SIM_LOG_WARN, "%s: wire %s: the peer on port %u (pid %d) is gone",
		x->nic->name, x->name, x->port ^ 1, (int)pid);
	peer_is_up(x, atomic_load(&x->peer->state));
}

/* Cycles we may run from now (rule 2 of the protocol), at most max. */
static uint64_t allowance(struct hroce_sim_wire *x, uint64_t now, uint64_t max)
{
	uint32_t state = atomic_load(&x->peer->state);
	uint64_t limit;

	if (!peer_is_up(x, state))
		return max;
	if (state == WIRE_SLEEPING) {
		if (atomic_load(&x->out->tail) == atomic_load(&x->out->head))
			return max;
		/* our beats wake it: from now on its clock holds us */
		atomic_compare_exchange_strong(&x->peer->state, &state, WIRE_WAKING);
		sim_futex_poke(&x->peer->word);
	}
	limit = atomic_load(&x->peer->time) + x->latency;
	if (limit <= now)
		return 0;
	return limit - now < max ? limit - now : max;
}

uint64_t sim_wire_sync(struct hroce_sim_wire *x, uint64_t now, uint64_t max)
{
	atomic_store(&x->mine->time, now);
	tell_peer(x);
	if (max > x->latency)
		max = x->latency;
	return allowance(x, now, max);
}

/* Blocks until the peer changed something (or a while passed) unless go(x, c) already. */
static void wait_peer(struct hroce_sim_wire *x, bool (*go)(struct hroce_sim_wire *x, uint64_t c),
		      uint64_t c)
{
	uint64_t t0 = wall_ns();
	uint32_t seq;

	atomic_store(&x->mine->waiting, 1);
	seq = atomic_load(&x->mine->word);
	if (!go(x, c) && sim_futex_wait(&x->mine->word, seq, WAIT_SLICE_NS) == ETIMEDOUT)
		check_peer_alive(x);
	atomic_store(&x->mine->waiting, 0);
	atomic_fetch_add(&x->waits, 1);
	atomic_fetch_add(&x->wait_ns, wall_ns() - t0);
}

static bool may_run(struct hroce_sim_wire *x, uint64_t c)
{
	return allowance(x, c, 1) != 0;
}

void sim_wire_wait(struct hroce_sim_wire *x)
{
	wait_peer(x, may_run, x->nic->w->cycle);
}

void sim_wire_sleep(struct hroce_sim_wire *x)
{
	/* where it stopped: a peer that comes meanwhile jumps there */
	atomic_store(&x->mine->time, x->nic->w->cycle);
	atomic_store(&x->mine->state, WIRE_SLEEPING);
	tell_peer(x);
}

bool sim_wire_pending(struct hroce_sim_wire *x)
{
	return atomic_load(&x->in->tail) != x->rx_head;
}

uint64_t sim_wire_wake_begin(struct hroce_sim_wire *x)
{
	uint64_t t, head = x->rx_head;

	atomic_store(&x->mine->state, WIRE_WAKING);
	if (!peer_is_up(x, atomic_load(&x->peer->state)))
		return 0;
	t = atomic_load(&x->peer->time);
	if (atomic_load(&x->in->tail) != head) {
		const struct wire_beat *b = &x->in->beats[head % WIRE_RING_BEATS];

		/* a beat of the peer as it is now: that frame must not arrive late */
		if (b->gen == atomic_load(&x->peer->gen) && b->depart + x->latency < t)
			t = b->depart + x->latency;
	}
	return t;
}

void sim_wire_wake_end(struct hroce_sim_wire *x, uint64_t now)
{
	atomic_store(&x->mine->time, now);
	atomic_store(&x->mine->state, WIRE_ACTIVE);
	tell_peer(x);
}

_Atomic uint32_t *sim_wire_word(struct hroce_sim_wire *x)
{
	return &x->mine->word;
}

/* ------------------------------------------------------------------------------------- */
/*
 * Lockstep (lockstep.c): a barrier at every boundary instead of the free-running rules.
 *
 * Arriving at boundary c, a side (every thread of it waiting there) records what it has
 * sent out of band so far in the slot of c, then publishes c as its time and as arrived.
 * It runs the quantum from c once the peer arrived at c too (or is down, or attaching):
 * the quantum is at most the latency, so every beat due in it departed before c. The
 * peer's threads look at our slot of c only at their boundary c + Q, which they reach
 * after we arrived at c, and we write the slot of c + Q only after they arrived there:
 * what they see of the out-of-band channel at c + Q is exactly what we sent up to c.
 *
 * A side all of whose threads wait on the out-of-band channel, quiet and with no timer,
 * while its peer is absent (or attaching), is stalled: nothing can happen to it in
 * simulated time. It sleeps, its clock stopped (SLEEPING). A side that attaches waits
 * until its peer is stalled, or absent, then both clocks start at the later of the two:
 * so the pair meets at the same cycles whatever the wall clock did before.
 */

static uint64_t round_up(uint64_t c, uint32_t q)
{
	return (c + q - 1) / q * q;
}

void sim_wire_ls_arrive(struct hroce_sim_wire *x, uint64_t c)
{
	unsigned int slot = (unsigned int)(c / x->shm->quantum) & 1;

	for (unsigned int k = 0; k < HROCE_SIM_OOB_KINDS; k++)
		atomic_store(&x->mine->seen[slot].oob[k], atomic_load(&x->mine->oob[k]));
	atomic_store(&x->mine->seen[slot].tag, c + 1);
	atomic_store(&x->mine->time, c);
	atomic_store(&x->mine->arrived, c + 1);
	tell_peer(x);
}

bool sim_wire_ls_ready(struct hroce_sim_wire *x, uint64_t c)
{
	uint32_t state = atomic_load(&x->peer->state);

	/* attaching: it waits for us to stall, and joins at our clock or later */
	if (!peer_is_up(x, state) || state == WIRE_WAKING)
		return true;
	x->peer_came = true;
	return atomic_load(&x->peer->arrived) > c;
}

void sim_wire_ls_wait(struct hroce_sim_wire *x, uint64_t c)
{
	wait_peer(x, sim_wire_ls_ready, c);
}

bool sim_wire_ls_alone(struct hroce_sim_wire *x)
{
	uint32_t state = atomic_load(&x->peer->state);

	return (!peer_is_up(x, state) || state == WIRE_WAKING) && !sim_wire_pending(x);
}

void sim_wire_ls_stall(struct hroce_sim_wire *x, uint64_t c)
{
	atomic_store(&x->mine->time, c);
	atomic_store(&x->mine->state, WIRE_SLEEPING);
	atomic_store(&x->mine->waiting, 1);
	tell_peer(x);
}

bool sim_wire_ls_joined(struct hroce_sim_wire *x)
{
	return atomic_load(&x->peer->state) == WIRE_ACTIVE &&
	       peer_is_up(x, atomic_load(&x->peer->state));
}

uint64_t sim_wire_ls_unstall(struct hroce_sim_wire *x)
{
	uint64_t t = sim_wire_ls_joined(x) ? atomic_load(&x->peer->time) : 0;

	atomic_store(&x->mine->waiting, 0);
	return t;
}

void sim_wire_ls_go(struct hroce_sim_wire *x, uint64_t c)
{
	atomic_store(&x->mine->time, c);
	atomic_store(&x->mine->state, WIRE_ACTIVE);
	tell_peer(x);
}

#define JOIN_WAIT_S 10 /* for a peer that never stalls: then we join it where it is */

/* Attaching in lockstep: the cycle both sides start at (see above). */
static uint64_t ls_join(struct hroce_sim_wire *x, uint64_t own)
{
	uint32_t q = x->shm->quantum;
	uint64_t t0 = wall_ns();
	bool told = false;

	for (;;) {
		uint32_t state = atomic_load(&x->peer->state), seq;

		if (!peer_is_up(x, state))
			return round_up(own, q);
		if (state != WIRE_ACTIVE) {
			uint64_t t = atomic_load(&x->peer->time);

			return round_up(t > own ? t : own, q);
		}
		if (wall_ns() - t0 > JOIN_WAIT_S * UINT64_C(1000000000)) {
			uint64_t t = atomic_load(&x->peer->time);

			sim_log(HROCE_SIM_LOG_WARN,
				"%s: lockstep wire %s: the peer on port %u did not wait on its "
				"out-of-band socket in %d s: joining it where it is (this run is "
				"not reproducible)",
				x->nic->name, x->name, x->port ^ 1, JOIN_WAIT_S);
			return round_up(t > own ? t : own, q);
		}
		if (!told)
			sim_log(HROCE_SIM_LOG_INFO,
				"%s: lockstep wire %s: waiting for the peer on port %u to wait on "
				"its out-of-band socket",
				x->nic->name, x->name, x->port ^ 1);
		told = true;
		atomic_store(&x->mine->waiting, 1);
		seq = atomic_load(&x->mine->word);
		if (atomic_load(&x->peer->state) == WIRE_ACTIVE &&
		    sim_futex_wait(&x->mine->word, seq, WAIT_SLICE_NS) == ETIMEDOUT)
			check_peer_alive(x);
		atomic_store(&x->mine->waiting, 0);
	}
}

void sim_wire_oob_add(struct hroce_sim_wire *x, enum hroce_sim_oob kind, int64_t n)
{
	atomic_fetch_add(&x->mine->oob[kind], (uint64_t)n);
}

/* What the peer sent out of band up to the boundary before c (its slot of c - Q). */
static uint64_t oob_visible(struct hroce_sim_wire *x, enum hroce_sim_oob kind, uint64_t c)
{
	uint32_t q = x->shm->quantum;
	uint64_t best = 0;

	for (unsigned int s = 0; s < 2; s++) {
		uint64_t tag = atomic_load(&x->peer->seen[s].tag);

		/* the newest arrival before c */
		if (tag && tag - 1 + q <= c && tag > best) {
			best = tag;
			x->oob_last[kind] = atomic_load(&x->peer->seen[s].oob[kind]);
		}
	}
	return x->oob_last[kind];
}

bool sim_wire_oob_ready(struct hroce_sim_wire *x, enum hroce_sim_oob kind, uint64_t c)
{
	uint32_t state = atomic_load(&x->peer->state);

	/* a peer that came and left: whatever it sent is there to read, and then the end */
	if (!peer_is_up(x, state))
		return x->peer_came;
	if (state == WIRE_ACTIVE)
		x->peer_came = true;
	return oob_visible(x, kind, c) > x->oob_taken[kind];
}

void sim_wire_oob_take(struct hroce_sim_wire *x, enum hroce_sim_oob kind, uint64_t n)
{
	x->oob_taken[kind] += n;
}

/* ------------------------------------------------------------------------------------- */
/* Beats */

static void frame_append(struct frame_buf *f, const uint8_t *data, uint64_t keep)
{
	if (f->len + SIM_DATA_BYTES > f->cap && f->cap < FRAME_MAX) {
		size_t cap = f->cap ? f->cap * 2 : 2048;
		uint8_t *p;

		if (cap > FRAME_MAX)
			cap = FRAME_MAX;
		p = realloc(f->p, cap);
		if (p) {
			f->p = p;
			f->cap = cap;
		}
	}
	for (; keep; keep &= keep - 1)
		if (f->len < f->cap)
			f->p[f->len++] = data[__builtin_ctzll(keep)];
}

static void pcap_frame(struct hroce_sim_wire *x, uint64_t depart, const struct frame_buf *f)
{
	int err = pcap_write(x->pcap, sim_cycles_to_ns(x->nic->w, depart), f->p, f->len);

	if (err)
		sim_log(HROCE_SIM_LOG_ERR, "%s: wire %s: pcap: %s", x->nic->name, x->name,
			strerror(err));
}

/* Beats of a whole frame into the ring, departing now; false if it has no room. */
static bool ring_put_frame(struct hroce_sim_wire *x, const uint8_t *data, size_t len, uint64_t now)
{
	uint64_t t = atomic_load_explicit(&x->out->tail, memory_order_relaxed);
	uint64_t beats = len ? (len + SIM_DATA_BYTES - 1) / SIM_DATA_BYTES : 1;

	if (t - atomic_load(&x->out->head) + beats > WIRE_RING_BEATS)
		return false;
	for (uint64_t k = 0; k < beats; k++) {
		struct wire_beat *b = &x->out->beats[(t + k) % WIRE_RING_BEATS];
		size_t off = k * SIM_DATA_BYTES;
		size_t n = len - off < SIM_DATA_BYTES ? len - off : SIM_DATA_BYTES;

		memset(b->data, 0, SIM_DATA_BYTES);
		memcpy(b->data, data + off, n);
		b->keep = n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
		b->depart = now;
		b->gen = x->gen;
		b->sof = !k;
		b->last = k + 1 == beats;
		b->user = 0;
	}
	atomic_store(&x->out->tail, t + beats);
	return true;
}

/*
 * Copies and frames held back whose time came, into the ring between our frames (before
 * our beat of this cycle); true if one still waits for room.
 */
static bool faults_pending(struct hroce_sim_wire *x, uint64_t now)
{
	const struct sim_faults_frame *fr;

	if (x->sending || !sim_faults_busy(&x->faults))
		return false;
	while ((fr = sim_faults_peek(&x->faults, now))) {
		if (x->peer_up && !ring_put_frame(x, fr->data, fr->len, now))
			return true;
		if (!x->peer_up)
			atomic_fetch_add(&x->frames_dropped, 1);
		free(sim_faults_pop(&x->faults));
	}
	return false;
}

void sim_wire_tx_drive(struct hroce_sim_wire *x, uint64_t now)
{
	bool waiting = faults_pending(x, now);
	bool full = waiting ||
		    atomic_load(&x->out->tail) - atomic_load(&x->out->head) >= WIRE_RING_BEATS;
	bool discard = x->sending ? x->dropping : !x->peer_up;

	if (full && !discard && now - x->full_checked >= FULL_CHECK_CYCLES) {
		/* a receiver that does not read: stalled (pause), or gone (drop) */
		x->full_checked = now;
		check_peer_alive(x);
		if (!x->peer_up && x->sending)
			x->dropping = discard = true;
	}
	*x->nic->tx.tready = (discard || !full) && sim_credit_ok(&x->credit, now);
}

void sim_wire_tx_sample(struct hroce_sim_wire *x, uint64_t now)
{
	const struct sim_axis_bus *tx = &x->nic->tx;
	uint64_t bytes;
	bool first = !x->sending, last = *tx->tlast;
	size_t start;
	int err;

	if (!*tx->tvalid || !*tx->tready)
		return;
	if (first) {
		x->sending = true;
		x->tx_start = now;
		x->dropping = !x->peer_up;
		x->tx_len = 0;
		x->tx_frame.len = 0;
	}
	start = x->tx_frame.len;
	if (!x->dropping &&
	    (x->pcap || x->faults.active || sim_faults_busy(&x->faults) ||
	     x->tx_frame.len < 2 * SIM_DATA_BYTES)) /* the headers, for the events */
		frame_append(&x->tx_frame, (const uint8_t *)tx->tdata, *tx->tkeep);
	if (first && !x->dropping)
		sim_faults_begin(&x->faults, x->tx_frame.p, x->tx_frame.len, &x->fate);
	/* a lost frame, or one held back, takes its time on the wire and goes no further */
	if (!x->dropping && !x->fate.drop && !x->fate.hold) {
		uint64_t t = atomic_load_explicit(&x->out->tail, memory_order_relaxed);
		struct wire_beat *b = &x->out->beats[t % WIRE_RING_BEATS];

		memcpy(b->data, tx->tdata, SIM_DATA_BYTES);
		b->keep = *tx->tkeep;
		if (x->fate.flip_mask && x->fate.flip_off >= start &&
		    x->fate.flip_off < x->tx_frame.len) {
			uint64_t keep = b->keep;

			for (size_t k = start; k < x->fate.flip_off; k++)
				keep &= keep - 1;
			b->data[__builtin_ctzll(keep)] ^= x->fate.flip_mask;
		}
		b->depart = now;
		b->gen = x->gen;
		b->sof = first;
		b->last = last;
		b->user = *tx->tuser;
		atomic_store(&x->out->tail, t + 1);
	}
	bytes = (uint64_t)__builtin_popcountll(*tx->tkeep);
	x->tx_len += bytes;
	if (last) {
		bytes += SIM_ETH_OVERHEAD;
		if (x->tx_len < SIM_ETH_MIN_FRAME)
			bytes += SIM_ETH_MIN_FRAME - x->tx_len;
	}
	sim_credit_take(&x->credit, now, bytes);
	if (!last)
		return;
	x->sending = false;
	if (x->dropping) {
		atomic_fetch_add(&x->frames_dropped, 1);
		memset(&x->fate, 0, sizeof(x->fate));
		return;
	}
	err = sim_faults_end(&x->faults, &x->fate, x->tx_frame.p, x->tx_frame.len, *tx->tuser,
			     now + x->hold_cycles);
	if (err)
		sim_log(HROCE_SIM_LOG_ERR, "%s: wire %s: faults: %s", x->nic->name, x->name,
			strerror(err));
	memset(&x->fate, 0, sizeof(x->fate));
	x->frames_sent++;
	if (x->pcap && !*tx->tuser)
		pcap_frame(x, x->tx_start, &x->tx_frame);
	sim_nic_frame_events(x->nic, true, x->tx_start, now, x->tx_len, x->tx_frame.p,
			     x->tx_frame.len);
}

static void present_abort(struct hroce_sim_wire *x)
{
	const struct sim_axis_bus *rx = &x->nic->rx;

	memset(rx->tdata, 0, SIM_DATA_BYTES);
	*rx->tkeep = 1;
	*rx->tlast = 1;
	*rx->tuser = 1;
	*rx->tvalid = 1;
	x->presented = x->presented_abort = true;
}

void sim_wire_rx_drive(struct hroce_sim_wire *x, uint64_t now)
{
	const struct sim_axis_bus *rx = &x->nic->rx;

	if (x->presented)
		return;
	for (;;) {
		const struct wire_beat *b;

		if (atomic_load(&x->in->tail) == x->rx_head) {
			if (x->in_frame && !x->peer_up)
				present_abort(x); /* its sender is gone */
			else
				*rx->tvalid = 0;
			return;
		}
		b = &x->in->beats[x->rx_head % WIRE_RING_BEATS];
		if (b->gen != x->accept_gen && b->gen == atomic_load(&x->peer->gen))
			x->accept_gen = b->gen; /* the peer's current generation */
		if (x->in_frame && (x->frame_gen != x->accept_gen || b->sof)) {
			present_abort(x); /* the frame under way will not be finished */
			return;
		}
		if (b->gen != x->accept_gen || (!x->in_frame && !b->sof)) {
			/* left by a sender that is gone, or the rest of a frame we came in on */
			x->stale_beats++;
			atomic_store(&x->in->head, ++x->rx_head);
			continue;
		}
		if (b->depart + x->latency > now) {
			*rx->tvalid = 0;
			return;
		}
		memcpy(rx->tdata, b->data, SIM_DATA_BYTES);
		*rx->tkeep = b->keep;
		*rx->tlast = b->last;
		*rx->tuser = b->user;
		*rx->tvalid = 1;
		x->presented = true;
		x->presented_abort = false;
		return;
	}
}

void sim_wire_rx_sample(struct hroce_sim_wire *x, uint64_t now)
{
	const struct wire_beat *b;

	if (!x->presented || !*x->nic->rx.tready)
		return;
	x->presented = false;
	if (x->presented_abort) {
		x->in_frame = false;
		x->frames_aborted++;
		return;
	}
	b = &x->in->beats[x->rx_head % WIRE_RING_BEATS];
	if (b->sof) {
		x->in_frame = true;
		x->frame_gen = b->gen;
		x->rx_start = now;
		x->rx_depart = b->depart;
		x->rx_len = 0;
		x->rx_frame.len = 0;
	}
	x->rx_len += (uint64_t)__builtin_popcountll(b->keep);
	if (x->pcap || x->rx_frame.len < 2 * SIM_DATA_BYTES) /* the headers, for the events */
		frame_append(&x->rx_frame, b->data, b->keep);
	if (b->last) {
		x->in_frame = false;
		x->frames_received++;
		if (x->pcap && !b->user)
			pcap_frame(x, x->rx_depart, &x->rx_frame);
		sim_nic_frame_events(x->nic, false, x->rx_start, now, x->rx_len, x->rx_frame.p,
				     x->rx_frame.len);
	}
	atomic_store(&x->in->head, ++x->rx_head);
}

bool sim_wire_quiet(const struct hroce_sim_wire *x)
{
	return !x->sending && !x->presented && !x->in_frame &&
	       atomic_load(&x->in->tail) == x->rx_head && !sim_faults_busy(&x->faults);
}

/* ------------------------------------------------------------------------------------- */
/* The segment */

static bool name_ok(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > WIRE_NAME_MAX || name[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(name[i] >= 'a' && name[i] <= 'z') && !(name[i] >= 'A' && name[i] <= 'Z') &&
		    !(name[i] >= '0' && name[i] <= '9') && !strchr("-_.", name[i]))
			return false;
	return true;
}

static int stale(const char *name, const char *why)
{
	sim_log(HROCE_SIM_LOG_ERR,
		"wire %s: /dev/shm/%s is not a HardRoCE wire of version %u (%s); if no HardRoCE "
		"process uses it any more, remove it: rm /dev/shm/%s",
		name, name, WIRE_VERSION, why, name);
	return EPROTO;
}

static int create_segment(int fd, struct wire_shm **out, uint32_t clock_mhz, uint32_t latency,
			  uint32_t gbps, uint32_t quantum)
{
	struct wire_shm *shm;

	if (ftruncate(fd, sizeof(*shm)))
		return errno;
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (shm == MAP_FAILED)
		return errno;
	/* the file is zeros: ports DOWN, rings empty */
	shm->version = WIRE_VERSION;
	shm->beat_bytes = sizeof(struct wire_beat);
	shm->ring_beats = WIRE_RING_BEATS;
	shm->bytes = sizeof(*shm);
	shm->clock_mhz = clock_mhz;
	shm->latency = latency;
	shm->gbps = gbps;
	shm->quantum = quantum;
	atomic_store(&shm->magic, WIRE_MAGIC);
	*out = shm;
	return 0;
}

static int open_segment(const char *name, int fd, struct wire_shm **out)
{
	struct wire_shm *shm;
	struct stat st;
	char why[128];
	int i;

	/* its creator may be between open and ftruncate, or writing the header */
	for (i = 0;; i++) {
		if (fstat(fd, &st))
			return errno;
		if (st.st_size || i == OPEN_WAIT_MS)
			break;
		usleep(1000);
	}
	if ((size_t)st.st_size < sizeof(shm->magic) + sizeof(shm->version))
		return stale(name, "empty or too short");
	shm = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (shm == MAP_FAILED)
		return errno;
	for (i = 0; !atomic_load(&shm->magic) && i < OPEN_WAIT_MS; i++)
		usleep(1000);
	if (atomic_load(&shm->magic) != WIRE_MAGIC)
		snprintf(why, sizeof(why), "no wire's magic number");
	else if (shm->version != WIRE_VERSION)
		snprintf(why, sizeof(why), "a wire of version %u", shm->version);
	else if ((size_t)st.st_size != sizeof(*shm) || shm->bytes != sizeof(*shm) ||
		 shm->beat_bytes != sizeof(struct wire_beat) || shm->ring_beats != WIRE_RING_BEATS)
		snprintf(why, sizeof(why), "%llu bytes, beats of %u bytes, rings of %u beats",
			 (unsigned long long)st.st_size, shm->beat_bytes, shm->ring_beats);
	else
		why[0] = 0;
	if (why[0]) {
		munmap(shm, (size_t)st.st_size);
		return stale(name, why);
	}
	*out = shm;
	return 0;
}

/* Takes the port if it is free or its holder is gone; EBUSY if a live process holds it. */
static int claim(struct hroce_sim_wire *x, uint64_t my_start)
{
	int32_t me = (int32_t)getpid();

	for (;;) {
		int32_t pid = atomic_load(&x->mine->pid);
		uint64_t start = atomic_load(&x->mine->start_time);

		/* our own pid: this process holds it, unless a process of that pid died */
		if (pid && (pid == me ? start == my_start : process_alive(pid, start))) {
			sim_log(HROCE_SIM_LOG_ERR, "%s: wire %s port %u is held by pid %d%s",
				x->nic->name, x->name, x->port, (int)pid,
				pid == me ? " (this process)" : "");
			return EBUSY;
		}
		if (atomic_compare_exchange_strong(&x->mine->pid, &pid, me))
			break;
	}
	atomic_store(&x->mine->start_time, my_start);
	/* not the time a holder before us left there: ours, until we join the peer's */
	atomic_store(&x->mine->time, x->nic->w->cycle);
	/* nor what it sent out of band, nor where it arrived */
	atomic_store(&x->mine->arrived, 0);
	for (unsigned int k = 0; k < HROCE_SIM_OOB_KINDS; k++) {
		atomic_store(&x->mine->oob[k], 0);
		atomic_store(&x->mine->seen[0].oob[k], 0);
		atomic_store(&x->mine->seen[1].oob[k], 0);
	}
	atomic_store(&x->mine->seen[0].tag, 0);
	atomic_store(&x->mine->seen[1].tag, 0);
	x->gen = atomic_fetch_add(&x->mine->gen, 1) + 1;
	atomic_store(&x->mine->state, WIRE_WAKING);
	return 0;
}

struct hroce_sim_wire *hroce_sim_wire_attach(struct hroce_sim *s,
					     const struct hroce_sim_wire_params *p)
{
	struct hroce_sim_world *w;
	struct hroce_sim_wire *x;
	uint64_t my_start = 0;
	char path[WIRE_NAME_MAX + 2], state;
	uint32_t latency;
	int fd, err;

	if (!s || !p || !p->name || p->port > 1) {
		errno = EINVAL;
		return NULL;
	}
	w = s->w;
	if (!name_ok(p->name)) {
		sim_log(HROCE_SIM_LOG_ERR,
			"%s: wire name \"%s\": use 1 to %d letters, digits, '-', '_' or '.'",
			s->name, p->name, WIRE_NAME_MAX);
		errno = EINVAL;
		return NULL;
	}
	if (s->link || s->wire || w->running || w->stepping) {
		errno = EBUSY;
		return NULL;
	}
	latency = sim_ns_to_cycles(w, p->latency_ns);
	if (!latency)
		latency = 1;
	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->nic = s;
	x->port = p->port;
	x->latency = latency;
	sim_faults_init(&x->faults);
	x->hold_cycles = sim_ns_to_cycles(w, HROCE_SIM_FAULT_HOLD_NS);
	x->name = strdup(p->name);
	if (!x->name) {
		err = ENOMEM;
		goto err_free;
	}
	snprintf(path, sizeof(path), "/%s", p->name);
	fd = shm_open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd >= 0) {
		err = create_segment(fd, &x->shm, w->clock_mhz, latency, p->gbps, w->quantum);
	} else if (errno == EEXIST) {
		fd = shm_open(path, O_RDWR, 0);
		err = fd < 0 ? errno : open_segment(p->name, fd, &x->shm);
	} else {
		err = errno;
	}
	if (fd >= 0)
		close(fd);
	if (err) {
		if (err != EPROTO)
			sim_log(HROCE_SIM_LOG_ERR, "%s: wire %s: /dev/shm/%s: %s", s->name, p->name,
				p->name, strerror(err));
		goto err_name;
	}
	if (x->shm->clock_mhz != w->clock_mhz || x->shm->latency != latency ||
	    x->shm->gbps != p->gbps) {
		sim_log(HROCE_SIM_LOG_ERR,
			"%s: wire %s is a %u MHz wire of %u cycles and %u Gb/s; this side asks "
			"for %u MHz, %u cycles (%u ns) and %u Gb/s",
			s->name, p->name, x->shm->clock_mhz, x->shm->latency, x->shm->gbps,
			w->clock_mhz, latency, p->latency_ns, p->gbps);
		err = EINVAL;
		goto err_unmap;
	}
	if (x->shm->quantum != w->quantum) {
		sim_log(HROCE_SIM_LOG_ERR,
			"%s: wire %s is %s (quantum %u cycles); this side asks for %s (quantum %u): "
			"set HROCE_LOCKSTEP alike on both sides",
			s->name, p->name, x->shm->quantum ? "a lockstep wire" : "free-running",
			x->shm->quantum, w->quantum ? "lockstep" : "free-running", w->quantum);
		err = EINVAL;
		goto err_unmap;
	}
	if (w->quantum && w->quantum > latency) {
		sim_log(HROCE_SIM_LOG_ERR,
			"%s: wire %s: a lockstep quantum of %u cycles is longer than the wire's "
			"latency (%u cycles): make it at most that",
			s->name, p->name, w->quantum, latency);
		err = EINVAL;
		goto err_unmap;
	}
	x->mine = &x->shm->port[p->port];
	x->peer = &x->shm->port[p->port ^ 1];
	x->out = &x->shm->ring[p->port];
	x->in = &x->shm->ring[p->port ^ 1];
	if (p->pcap_path) {
		x->pcap = pcap_open_write(p->pcap_path, true);
		if (!x->pcap) {
			err = errno;
			sim_log(HROCE_SIM_LOG_ERR, "%s: wire %s: cannot open %s: %s", s->name,
				p->name, p->pcap_path, strerror(err));
			goto err_unmap;
		}
	}
	sim_credit_init(&x->credit, p->gbps, w->clock_mhz, SIM_DATA_BYTES);
	proc_stat(0, &state, &my_start);
	err = claim(x, my_start);
	if (err)
		goto err_pcap;
	/* what waits in our ring is from before us: from the next frame on it is ours */
	x->rx_head = atomic_load(&x->in->tail);
	atomic_store(&x->in->head, x->rx_head);
	if (w->quantum) {
		/* in lockstep, where the peer stalled (or our own clock, alone) */
		sim_world_jump(w, ls_join(x, w->cycle));
		sim_wire_ls_go(x, w->cycle);
		sim_futex_poke(&x->peer->word);
	} else {
		/* attaching is waking: our clock joins the peer's */
		sim_world_jump(w, sim_wire_wake_begin(x));
		sim_wire_wake_end(x, w->cycle);
	}
	*s->tx.tready = 1;
	*s->rx.tvalid = 0;
	s->wire = x;
	if (!w->nwires++)
		w->wake_word = &x->mine->word;
	sim_log(HROCE_SIM_LOG_INFO, "%s: on wire %s port %u (generation %u), clock at %llu ns",
		s->name, p->name, p->port, x->gen, (unsigned long long)hroce_sim_world_ns(w));
	return x;

err_pcap:
	if (x->pcap)
		pcap_close(x->pcap);
err_unmap:
	munmap(x->shm, sizeof(*x->shm));
err_name:
	free(x->name);
err_free:
	free(x);
	errno = err;
	return NULL;
}

void sim_wire_detach_locked(struct hroce_sim_wire *x)
{
	struct hroce_sim *s = x->nic;
	struct hroce_sim_world *w = s->w;
	int err;

	atomic_store(&x->mine->state, WIRE_DOWN);
	atomic_store(&x->mine->pid, 0);
	tell_peer(x);
	s->wire = NULL;
	*s->tx.tready = 1;
	*s->rx.tvalid = 0;
	w->nwires--;
	if (w->wake_word == &x->mine->word) {
		w->wake_word = &w->local_word;
		for (size_t i = 0; i < w->nnics; i++)
			if (w->nics[i]->wire)
				w->wake_word = &w->nics[i]->wire->mine->word;
	}
	if (x->pcap) {
		err = pcap_close(x->pcap);
		if (err)
			sim_log(HROCE_SIM_LOG_ERR, "%s: wire %s: pcap: %s", s->name, x->name,
				strerror(err));
	}
	munmap(x->shm, sizeof(*x->shm));
	sim_faults_fini(&x->faults);
	free(x->tx_frame.p);
	free(x->rx_frame.p);
	free(x->name);
	free(x);
}

void hroce_sim_wire_detach(struct hroce_sim_wire *x)
{
	struct hroce_sim_world *w;
	bool running;

	if (!x)
		return;
	w = x->nic->w;
	running = w->running;
	hroce_sim_world_stop(w);
	sim_wire_detach_locked(x);
	if (running)
		hroce_sim_world_start(w);
}

struct hroce_sim_wire *hroce_sim_wire_of(struct hroce_sim *s)
{
	return s->wire;
}

int hroce_sim_wire_unlink(const char *name)
{
	char path[WIRE_NAME_MAX + 2];

	if (!name || !name_ok(name))
		return EINVAL;
	snprintf(path, sizeof(path), "/%s", name);
	return shm_unlink(path) ? errno : 0;
}

void hroce_sim_wire_stats(struct hroce_sim_wire *x, struct hroce_sim_wire_stats *st)
{
	struct hroce_sim_world *w = x->nic->w;
	int32_t pid = atomic_load(&x->peer->pid);
	bool up, seen_up;

	sim_world_lock(w);
	/* asked now (the world's thread may be asleep or waiting, and only it records) */
	up = atomic_load(&x->peer->state) != WIRE_DOWN &&
	     process_alive(pid, atomic_load(&x->peer->start_time));
	/* a change the thread has not seen yet (it sleeps) counts as it will */
	seen_up = atomic_load(&x->peer_up_pub);
	*st = (struct hroce_sim_wire_stats){
		.peer_up = up,
		.peer_pid = up ? pid : 0,
		.frames_sent = x->frames_sent,
		.frames_received = x->frames_received,
		.frames_dropped = atomic_load(&x->frames_dropped),
		.frames_aborted = x->frames_aborted,
		.stale_beats = x->stale_beats,
		.link_ups = atomic_load(&x->link_ups) + (up && !seen_up),
		.link_downs = atomic_load(&x->link_downs) + (!up && seen_up),
		.waits = atomic_load(&x->waits),
		.wait_ns = atomic_load(&x->wait_ns),
	};
	sim_world_unlock(w);
}

int hroce_sim_wire_set_faults(struct hroce_sim_wire *x, const struct hroce_sim_frame_faults *f)
{
	char why[128];
	int err;

	if (!x)
		return EINVAL;
	if (f && sim_faults_check(f, why, sizeof(why))) {
		sim_log(HROCE_SIM_LOG_ERR, "%s: wire %s: faults: %s", x->nic->name, x->name, why);
		return EINVAL;
	}
	sim_world_lock(x->nic->w);
	err = sim_faults_set(&x->faults, f);
	sim_world_unlock(x->nic->w);
	return err;
}

void hroce_sim_wire_fault_stats(struct hroce_sim_wire *x, struct hroce_sim_frame_fault_stats *st)
{
	sim_world_lock(x->nic->w);
	*st = x->faults.st;
	sim_world_unlock(x->nic->w);
}
