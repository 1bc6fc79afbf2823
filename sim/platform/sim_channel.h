/* SPDX-License-Identifier: MIT */
/*
 * One direction of an Ethernet link: the sender's AXI-Stream TX into the receiver's RX.
 *
 * Every beat the sender gives arrives unchanged (tdata, tkeep, tlast, tuser) latency cycles
 * later, so gaps within a frame are kept and a frame the sender aborts (tuser) reaches the
 * receiver marked bad, as a MAC would pass on a bad FCS. A receiver that holds tready low
 * only delays beats (lossless); once SIM_CHANNEL_BUFFER beats wait beyond the wire's own
 * the sender's tready drops (pause). With a rate, the sender's tready paces the bytes
 * (tkeep) plus a frame's overhead on the wire (preamble, FCS, gap, padding to 64 bytes).
 * Each whole frame goes into the pcap, stamped with the time its first beat left.
 * Faults (sim_faults.h), if set, decide each frame's fate as its first beat leaves: a lost
 * frame's beats take their time on the wire but never reach the ring, a flipped bit is
 * flipped in its beat, and copies and frames held back reach the ring between the
 * sender's frames, latency cycles after they are put there.
 */
#ifndef HROCE_SIM_CHANNEL_H
#define HROCE_SIM_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcap.h"
#include "sim_bus.h"
#include "sim_credit.h"
#include "sim_faults.h"

#define SIM_CHANNEL_BUFFER 1024 /* beats held beyond the wire before the sender pauses */
#define SIM_ETH_OVERHEAD 24	/* preamble 8, FCS 4, gap 12 */
#define SIM_ETH_MIN_FRAME 60	/* without FCS */

struct sim_channel_beat {
	uint32_t data[SIM_DATA_WORDS];
	uint64_t keep;
	uint64_t due; /* the cycle it may reach the receiver */
	uint8_t last, user;
};

struct sim_channel_params {
	uint32_t latency; /* cycles, at least 1 */
	uint32_t gbps;	  /* 0: a beat a cycle */
	uint32_t clock_mhz;
	struct pcap_file *pcap; /* NULL: none; not owned (a link's two directions share one) */
};

/* What the channel tells the sender's and the receiver's owners; any may be NULL. */
struct sim_channel_hooks {
	/*
	 * a frame left the sender: its first and last beats' cycles, kept bytes, tuser, and
	 * its first head_len bytes (its headers)
	 */
	void (*sent)(void *ctx, uint64_t start, uint64_t end, uint64_t len, bool aborted,
		     const uint8_t *head, size_t head_len);
	/* a frame reached the receiver */
	void (*received)(void *ctx, uint64_t start, uint64_t end, uint64_t len, bool bad,
			 const uint8_t *head, size_t head_len);
	void *tx_ctx, *rx_ctx;
};

/* A frame the process puts on the wire (sim_channel_inject), waiting for a gap. */
struct sim_channel_inject {
	struct sim_channel_inject *next;
	size_t len;
	uint8_t data[];
};

struct sim_channel {
	struct sim_axis_bus tx, rx; /* the sender's m_axis_tx_*, the receiver's s_axis_rx_* */
	struct sim_channel_params p;
	struct sim_channel_hooks hooks;
	struct sim_credit credit;
	struct sim_channel_beat *ring;	 /* [head, tail) */
	uint64_t cap, limit, head, tail; /* limit: beats held before the sender pauses */
	bool presented;			 /* the head beat is on the receiver's bus */
	/* the frame being sent */
	uint8_t *frame;
	size_t frame_len, frame_cap;
	uint64_t frame_start;
	bool sending;
	/* the frame being received */
	uint64_t rx_start, rx_len;
	bool receiving;
	uint8_t rx_head[2 * SIM_DATA_BYTES]; /* the frame's first bytes, as they came */
	size_t rx_head_len;
	/* frames of the process: injected ones waiting, and who sees the sender's */
	struct sim_channel_inject *inject, **inject_tail;
	void (*tap)(void *ctx, const uint8_t *frame, size_t len);
	void *tap_ctx;
	/* faults of the frames the sender sends, and the fate of the one being sent */
	struct sim_faults faults;
	struct sim_fate fate;
	uint32_t hold_cycles; /* HROCE_SIM_FAULT_HOLD_NS */
	/* figures */
	uint64_t frames, aborted, bytes, beats, received, pcap_errors, injected;
};

int sim_channel_init(struct sim_channel *c, const struct sim_axis_bus *tx,
		     const struct sim_axis_bus *rx, const struct sim_channel_params *p,
		     const struct sim_channel_hooks *hooks);
void sim_channel_fini(struct sim_channel *c);

/*
 * A frame toward the receiver as if the sender had sent it: it goes on the wire at the
 * first cycle the sender is between frames (after the beats already on it), and reaches
 * the receiver latency cycles later; it is in the pcap, not at the tap. 0 or ENOMEM.
 */
int sim_channel_inject(struct sim_channel *c, const void *frame, size_t len);

/* The sender's side: tready before the cycle's evaluation, its beat after. */
void sim_channel_tx_drive(struct sim_channel *c, uint64_t now);
void sim_channel_tx_sample(struct sim_channel *c, uint64_t now);
/* The receiver's side: the beat due before the evaluation, whether it was taken after. */
void sim_channel_rx_drive(struct sim_channel *c, uint64_t now);
void sim_channel_rx_sample(struct sim_channel *c, uint64_t now);
/* Nothing on the wire, held back, or waiting to go on it. */
bool sim_channel_quiet(const struct sim_channel *c);

#endif /* HROCE_SIM_CHANNEL_H */
