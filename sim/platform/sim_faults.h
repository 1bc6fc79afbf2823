/* SPDX-License-Identifier: MIT */
/*
 * The fault model of one direction of a link or a wire (hroce_sim.h, struct
 * hroce_sim_frame_faults): what happens to each frame, decided from its bytes and a PRNG
 * of its own, whatever carries the frames. Its user (sim_channel.c in a process,
 * wire_shm.c between two) calls, for each frame the sender sends:
 *
 *   sim_faults_begin()  at its first beat: the fate (drop it, hold it back, flip a byte);
 *                       the user applies a drop or a hold by not passing its beats on,
 *                       and the flip to the beat that holds that byte;
 *   sim_faults_end()    at its last beat, with the whole frame as sent: the model keeps
 *                       the copy to deliver behind it, or the frame held back;
 *
 * and between the sender's frames delivers, as if sent then, what sim_faults_peek() gives
 * (duplicates, frames held back whose time came), taking each with sim_faults_pop().
 * Time is the user's (cycles): the model only compares the deadlines it was given.
 */
#ifndef HROCE_SIM_FAULTS_H
#define HROCE_SIM_FAULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hroce_sim.h"

/* A frame the model delivers out of the sender's order. */
struct sim_faults_frame {
	struct sim_faults_frame *next;
	uint64_t deadline; /* held back: goes at this time at the latest */
	uint32_t left;	   /* held back: later frames still to go ahead of it */
	size_t len;
	uint8_t data[];
};

/* What becomes of a frame. */
struct sim_fate {
	bool drop, hold, dup;
	uint32_t depth;	   /* hold: behind this many later frames */
	size_t flip_off;   /* the frame's byte with a flipped bit, if flip_mask */
	uint8_t flip_mask; /* 0: none */
	uint8_t lost_by;   /* enum sim_fault_cause: the counter a drop goes to */
	uint8_t directed;  /* rules that fired on it: it gets their faults alone */
};

struct sim_faults {
	struct hroce_sim_frame_faults p;
	bool active; /* any fault set */
	uint64_t rng;
	bool bad; /* the Gilbert-Elliott chain's state */
	uint32_t matched[HROCE_SIM_FAULT_RULES];
	bool fired[HROCE_SIM_FAULT_RULES];
	struct sim_faults_frame *held, *out, **out_tail; /* held: in the order they came */
	struct hroce_sim_frame_fault_stats st;
};

void sim_faults_init(struct sim_faults *f);
void sim_faults_fini(struct sim_faults *f);
/* Replaces the parameters (NULL: none): 0, or EINVAL as hroce_sim_link_set_faults says. */
int sim_faults_set(struct sim_faults *f, const struct hroce_sim_frame_faults *p);
/* 0, or EINVAL with the reason in why (why_len bytes) if not NULL. */
int sim_faults_check(const struct hroce_sim_frame_faults *p, char *why, size_t why_len);

/* The first len bytes of a frame (at least its first beat, or all of it). */
void sim_faults_begin(struct sim_faults *f, const uint8_t *start, size_t len,
		      struct sim_fate *fate);
/*
 * The whole frame as sent (aborted: its sender cut it short; it is neither copied nor
 * held back); hold_deadline: the time a frame held back goes at the latest. ENOMEM if a
 * copy could not be made (the frame is then delivered once, or lost if held).
 */
int sim_faults_end(struct sim_faults *f, const struct sim_fate *fate, const uint8_t *frame,
		   size_t len, bool aborted, uint64_t hold_deadline);
/* The next frame to deliver at now, NULL if none; sim_faults_pop() takes it (to free). */
const struct sim_faults_frame *sim_faults_peek(struct sim_faults *f, uint64_t now);
struct sim_faults_frame *sim_faults_pop(struct sim_faults *f);
/* Frames held back or waiting to be delivered. */
static inline bool sim_faults_busy(const struct sim_faults *f)
{
	return f->held || f->out;
}

#endif /* HROCE_SIM_FAULTS_H */
