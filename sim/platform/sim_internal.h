/* SPDX-License-Identifier: MIT */
/* What the parts of libhroce-sim share: the world, a NIC, a link. */
#ifndef HROCE_SIM_INTERNAL_H
#define HROCE_SIM_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_sim.h"
#include "hroce_sim.h"
#include "sim_bus.h"
#include "sim_channel.h"
#include "sim_iommu.h"
#include "sim_log.h"
#include "sim_mmio.h"
#include "sim_pcie.h"
#include "vmodel.h"

/* Lockstep (lockstep.c): an application thread that uses a world. */
#define SIM_LS_THREADS 32
struct sim_ls_slot {
	_Atomic uint32_t used;
	_Atomic uint32_t waiting; /* in a wait (else active: the world waits for it) */
	_Atomic uint32_t checked; /* the epoch it last looked at its condition in */
	_Atomic uint32_t kind;	  /* of its wait: enum sim_ls_kind */
};
/* What a wait waits for: time (an empty poll), the NIC (a read's answer), the peer. */
enum sim_ls_kind {
	SIM_LS_TIME,
	SIM_LS_NIC,
	SIM_LS_OOB,
};

struct hroce_sim_world {
	uint32_t clock_mhz;
	uint64_t period_ps;
	uint64_t cycle; /* cycles done: the one under way in a step */
	struct hroce_sim **nics;
	size_t nnics, cap;
	bool stepping;
	uint64_t quiet;	     /* cycles in a row in which every NIC was quiet */
	unsigned int nwires; /* NICs on a shared-memory wire */
	unsigned int nexts;  /* NICs with an external port: the wall clock bounds the jumps */
	uint64_t cycles_run, cycles_skipped, sleeps, peer_waits;

	/*
	 * The world's thread (world_run.c). It holds lock while it evaluates cycles and lets
	 * it go between them as soon as an application thread asks (app_waiting), so that
	 * the NIC calls of other threads take the lock only between cycles.
	 */
	bool running, stop;
	pthread_t thread;
	pthread_mutex_t lock;
	_Atomic uint32_t app_waiting; /* application threads holding or wanting lock */
	_Atomic uint32_t asleep;
	_Atomic uint64_t cycle_pub;	   /* cycle, for threads that do not hold lock */
	_Atomic uint64_t notify_at;	   /* an idle thread waits until this cycle */
	_Atomic uint32_t progress;	   /* bumped when idle or reading threads may go on */
	_Atomic uint32_t progress_waiters; /* threads waiting on progress */
	_Atomic uint32_t local_word;	   /* the sleeping thread's futex without a wire */
	_Atomic uint32_t *wake_word;	   /* the one it sleeps on: local_word or its wire's */

	/* lockstep (lockstep.c); quantum 0: free-running */
	uint32_t quantum; /* cycles */
	uint64_t ls_id;	  /* this world, among the live ones (sim_ls_worlds) */
	struct hroce_sim_world *ls_next;
	struct sim_ls_slot ls_slots[SIM_LS_THREADS];
	_Atomic uint32_t ls_active;	/* threads counted, not waiting */
	_Atomic uint32_t ls_epoch;	/* bumped at each boundary and when a thread acted */
	_Atomic uint32_t ls_seq;	/* futex: bumped on any change the threads wait for */
	_Atomic uint32_t ls_in_quantum; /* the world's thread runs (or is about to run) one */
	uint64_t ls_stalls;
};

/* An MMIO read of an application thread, answered by the world's thread. */
struct sim_read_req {
	bool active, have_back;
	uint64_t done0; /* reads_done when it was queued */
	uint64_t back;	/* the cycle its answer is back at the host */
	uint64_t limit; /* the cycle it times out */
	uint64_t value;
	_Atomic uint32_t answered;
};

struct hroce_sim {
	struct hroce_sim_world *w;
	struct hroce_sim *next; /* in the process's list, for hroce_sim_find() */
	char *name;
	struct vmodel vm;
	bool tracing;
	uint64_t trace_from, trace_to; /* the cycles recorded: [from, to) */
	uint8_t *clk, *rst, *irq_vector, *irq_valid, *irq_ready;
	uint64_t *time_now;
	uint64_t *time_deadline; /* the core's timers: when they next need cycles */
	/* the core's trace port (NULL: a model without one, the shell): lanes, their events */
	const uint16_t *trace_valid;
	const uint32_t *trace_data;
	struct sim_axi_bus axi;
	struct sim_axis_bus tx, rx;
	struct sim_axil_bus axil;
	struct sim_axi_db_bus db; /* the doorbell pages (the core's, or the shell's BAR4) */
	struct sim_shell *shell;  /* a SHELL NIC's own parts (nic_shell.c); NULL: the core */
	struct sim_iommu iommu;
	struct sim_pcie pcie;
	struct sim_mmio mmio;
	uint32_t read_latency, write_latency; /* cycles */
	struct hroce_sim_link *link;
	struct sim_channel *tx_ch, *rx_ch; /* the link's directions out of and into the core */
	void (*irq_fn)(void *ctx, unsigned int vector);
	void *irq_ctx;
	void (*obs_fn)(void *ctx, const struct hroce_sim *s, const struct hroce_sim_event *ev);
	void *obs_ctx;
	struct hroce_sim_wire *wire; /* a shared-memory wire on its port instead of a link */
	struct hroce_sim_ext *ext;   /* or an external port */
	pthread_mutex_t read_lock;   /* one application thread's read at a time */
	struct sim_read_req rd;
};

struct hroce_sim_link {
	struct hroce_sim *a, *b;
	struct sim_channel ch[2]; /* a to b, b to a (one only if a is b) */
	unsigned int nch;
	struct pcap_file *pcap;
	/* hroce_sim_link_set_tap(): the function, and the sender of each channel */
	void (*tap_fn)(void *ctx, const struct hroce_sim *from, const void *frame, size_t len);
	void *tap_ctx;
	struct sim_link_tap {
		struct hroce_sim_link *l;
		struct hroce_sim *from;
	} taps[2];
};

/*
 * A SHELL NIC (nic_shell.c): the shell's ports beside those the core's model shares with
 * it (clk, rst, time, the AXI master, the MAC streams, bound into struct hroce_sim), the
 * BAR0 bus, the MSI-X messages, and the flash and ICAP models on its pins.
 */
#define SIM_SHELL_BAR0_SIZE 0x20000u /* the core's registers, then the board block */
#define SIM_SHELL_MAC_RX_DROP 0x30u  /* the board block's MAC RX drop counter */

enum {
	BAR2_AWADDR,
	BAR2_AWVALID,
	BAR2_AWREADY,
	BAR2_WDATA,
	BAR2_WSTRB,
	BAR2_WVALID,
	BAR2_WREADY,
	BAR2_BVALID,
	BAR2_BREADY,
	BAR2_BRESP,
	BAR2_ARVALID,
	BAR2_RREADY,
	BAR2_SIGNALS,
};
struct sim_shell {
	uint8_t *mac_clk, *mac_rst, *msix_enable, *msix_fmask, *msix_valid, *msix_ready;
	uint64_t *msix_addr;
	uint32_t *msix_data;
	struct sim_axil32_bus bar0;
	const struct vmodel_port *bar2[BAR2_SIGNALS]; /* the MSI-X table's, at reset only */
	uint8_t rx_ready; /* the MAC's RX has no back-pressure: always 1 */
	struct fw_pins pins;
	struct flash_model flash;
	struct icap_model icap;
	uint8_t *flash_mem;
	bool flash_mapped;
	uint64_t msix_messages, msix_stray;
};

/* a read the core never answers ends like a PCIe completion timeout: all ones */
#define SIM_MMIO_READ_TIMEOUT_NS 10000000u

static inline uint64_t sim_cycles_to_ns(const struct hroce_sim_world *w, uint64_t cycles)
{
	return cycles * 1000 / w->clock_mhz;
}

/* At least the time asked for. */
static inline uint32_t sim_ns_to_cycles(const struct hroce_sim_world *w, uint32_t ns)
{
	return (uint32_t)(((uint64_t)ns * w->clock_mhz + 999) / 1000);
}

int sim_world_add(struct hroce_sim_world *w, struct hroce_sim *s);
void sim_world_remove(struct hroce_sim_world *w, struct hroce_sim *s);
/* One clock cycle of every NIC, and the count of quiet cycles. */
void sim_world_cycle(struct hroce_sim_world *w);
/*
 * Cycles the world may run from now, at most max, without outrunning the peers of its
 * wires; publishes its time to them first. 0: it must wait for *blocking.
 */
uint64_t sim_world_sync(struct hroce_sim_world *w, uint64_t max, struct hroce_sim_wire **blocking);
/*
 * When the world's timers next need cycles: the earliest of its cores' m_time_deadline
 * (UINT64_MAX: no timer runs; 0: a core's timers are busy now).
 */
uint64_t sim_world_deadline(const struct hroce_sim_world *w);
/*
 * A quiet world whose timers wait for a later cycle jumps toward it, as far as its wires
 * let it (their peers' time); true if it moved, or waited for a peer. Only when every NIC
 * is quiet now and has been for HROCE_SIM_QUIET_CYCLES.
 */
bool sim_world_timer_jump(struct hroce_sim_world *w, uint64_t end, bool unlock);
/* The clock jumps forward to cycle without evaluating the cycles between (a quiet world). */
void sim_world_jump(struct hroce_sim_world *w, uint64_t cycle);

/* world_run.c: the NIC calls of application threads while the thread runs the world. */
void sim_world_lock(struct hroce_sim_world *w);
void sim_world_unlock(struct hroce_sim_world *w);
/* Wakes the sleeping thread: the caller holds the lock and queued work. */
void sim_world_kick(struct hroce_sim_world *w);
/* size: 8, or 4 (a 32-bit BAR: sim_mmio_read) */
uint64_t sim_world_read(struct hroce_sim *s, uint64_t offset, unsigned int size);

/* One clock cycle of a NIC: its models drive, the core settles, they sample, rising edge. */
void sim_nic_cycle(struct hroce_sim *s, uint64_t now);
/*
 * nic_shell.c. open: binds the shell's ports (the shared ones into s) and its models,
 * after vmodel_open; close frees them. reset: before and after the reset cycles (out:
 * false, true): the MAC's reset with the core's, then the MSI-X table programmed.
 * drive, sample: its part of sim_nic_cycle, at the falling edge and after it.
 */
int sim_shell_open(struct hroce_sim *s, const struct hroce_sim_params *p);
void sim_shell_close(struct hroce_sim *s);
int sim_shell_reset(struct hroce_sim *s, bool out);
void sim_shell_sample(struct hroce_sim *s, uint64_t now);
/* A port of the NIC's model into *ptr (EINVAL, logged, if it has none of that width). */
int sim_nic_bind_port(struct hroce_sim *s, const char *name, unsigned int width, bool input,
		      void **ptr);
/* clk, rst, time_now and m_time_deadline, which the core and the shell both have. */
int sim_nic_bind_clock(struct hroce_sim *s);
/* Nothing under way at any interface of the NIC (MMIO, DMA, interrupts, its port). */
bool sim_nic_quiet(const struct hroce_sim *s);
void sim_nic_event(struct hroce_sim *s, enum hroce_sim_event_kind kind, uint64_t cycle,
		   uint64_t addr, uint64_t len);
/* The hooks of a channel at a NIC's port (ctx: the NIC): its TX and RX events. */
/* A frame's first and last beats to the observer, with its BTH if head holds one. */
void sim_nic_frame_events(struct hroce_sim *s, bool out, uint64_t start, uint64_t end, uint64_t len,
			  const uint8_t *head, size_t head_len);
void sim_nic_frame_sent(void *ctx, uint64_t start, uint64_t end, uint64_t len, bool aborted,
			const uint8_t *head, size_t head_len);
void sim_nic_frame_received(void *ctx, uint64_t start, uint64_t end, uint64_t len, bool bad,
			    const uint8_t *head, size_t head_len);

/*
 * lockstep.c. enter: counts the calling thread (an application's call into the world).
 * wait: the calling thread waits at boundaries until cond holds (false: the world stopped
 * first), of a kind. settle: the world's thread waits until every thread waits and
 * looked at the boundary (false: stop), marking a quantum under way (timeless: no thread
 * waits for time); boundary ends it (a new epoch), abandon gives it up without running it.
 */
extern pthread_mutex_t sim_ls_worlds_lock;
extern struct hroce_sim_world *sim_ls_worlds;
void sim_ls_enter(struct hroce_sim_world *w);
void sim_ls_register_starter(struct hroce_sim_world *w);
void sim_ls_forget(struct hroce_sim_world *w, uint64_t id, unsigned int slot);
void sim_ls_world_gone(struct hroce_sim_world *w);
bool sim_ls_wait(struct hroce_sim_world *w, bool (*cond)(void *arg), void *arg,
		 enum sim_ls_kind kind);
bool sim_ls_settle(struct hroce_sim_world *w, bool *timeless);
void sim_ls_boundary(struct hroce_sim_world *w);
void sim_ls_abandon(struct hroce_sim_world *w);
void sim_ls_idle(struct hroce_sim_world *w, uint64_t cycles);

/* wire_shm.c: what the world and the NIC do with a wire. */
void sim_wire_tx_drive(struct hroce_sim_wire *x, uint64_t now);
void sim_wire_tx_sample(struct hroce_sim_wire *x, uint64_t now);
void sim_wire_rx_drive(struct hroce_sim_wire *x, uint64_t now);
void sim_wire_rx_sample(struct hroce_sim_wire *x, uint64_t now);
bool sim_wire_quiet(const struct hroce_sim_wire *x);
/* Publishes now; the cycles the world may run from now, at most max (0: wait). */
uint64_t sim_wire_sync(struct hroce_sim_wire *x, uint64_t now, uint64_t max);
/* Blocks until the peer moved (its clock, its state) or a while passed; checks it lives. */
void sim_wire_wait(struct hroce_sim_wire *x);
/* Sleep: says so to the peer; frames waiting in the ring (wake at once)? */
void sim_wire_sleep(struct hroce_sim_wire *x);
bool sim_wire_pending(struct hroce_sim_wire *x);
/* Waking: says so, then the clock the world must jump to at least (0: no constraint). */
uint64_t sim_wire_wake_begin(struct hroce_sim_wire *x);
void sim_wire_wake_end(struct hroce_sim_wire *x, uint64_t now);
_Atomic uint32_t *sim_wire_word(struct hroce_sim_wire *x);
/*
 * Lockstep. arrive: at boundary c, with what we sent out of band; ready: the peer arrived
 * at c (or is down, or attaching); wait: blocks a while for that. alone: the peer is
 * absent or attaching and nothing of its waits for us; stall / unstall: asleep as such
 * (unstall: the peer's clock if it joined meanwhile, else 0); joined: it did; go: ACTIVE
 * again at c. oob_*: the out-of-band counts (add: what we send; ready: the peer's, sent
 * by the boundary before c, not all taken; take: we took n).
 */
void sim_wire_ls_arrive(struct hroce_sim_wire *x, uint64_t c);
bool sim_wire_ls_ready(struct hroce_sim_wire *x, uint64_t c);
void sim_wire_ls_wait(struct hroce_sim_wire *x, uint64_t c);
bool sim_wire_ls_alone(struct hroce_sim_wire *x);
void sim_wire_ls_stall(struct hroce_sim_wire *x, uint64_t c);
bool sim_wire_ls_joined(struct hroce_sim_wire *x);
uint64_t sim_wire_ls_unstall(struct hroce_sim_wire *x);
void sim_wire_ls_go(struct hroce_sim_wire *x, uint64_t c);
void sim_wire_oob_add(struct hroce_sim_wire *x, enum hroce_sim_oob kind, int64_t n);
bool sim_wire_oob_ready(struct hroce_sim_wire *x, enum hroce_sim_oob kind, uint64_t c);
void sim_wire_oob_take(struct hroce_sim_wire *x, enum hroce_sim_oob kind, uint64_t n);
/* Detaches with the world's lock held (or the thread stopped). */
void sim_wire_detach_locked(struct hroce_sim_wire *x);

/* port_ext.c: the world's half of an external port, each cycle, and its queue. */
void sim_ext_drive(struct hroce_sim_ext *x, uint64_t now);
void sim_ext_sample(struct hroce_sim_ext *x, uint64_t now);
bool sim_ext_pending(const struct hroce_sim_ext *x);
/* Detaches with the world's lock held (or the thread stopped). */
void sim_ext_detach_locked(struct hroce_sim_ext *x);

#endif /* HROCE_SIM_INTERNAL_H */
