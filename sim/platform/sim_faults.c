// SPDX-License-Identifier: MIT
/* The fault model of a direction of a link or a wire (sim_faults.h). */
#include "sim_faults.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce_wire.h"

enum sim_fault_cause {
	CAUSE_NONE,
	CAUSE_RANDOM,
	CAUSE_BURST,
};

/* splitmix64: a good 64-bit generator whose whole state is one word */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Uniform in [0, 1): u < p is true with probability p, never for 0, always for 1. */
static double rng_uniform(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) * 0x1.0p-53;
}

void sim_faults_init(struct sim_faults *f)
{
	memset(f, 0, sizeof(*f));
	f->out_tail = &f->out;
}

static void free_list(struct sim_faults_frame *fr)
{
	while (fr) {
		struct sim_faults_frame *next = fr->next;

		free(fr);
		fr = next;
	}
}

void sim_faults_fini(struct sim_faults *f)
{
	free_list(f->held);
	free_list(f->out);
	f->held = f->out = NULL;
	f->out_tail = &f->out;
}

static bool prob_ok(double p)
{
	return p >= 0.0 && p <= 1.0; /* false for NaN too */
}

int sim_faults_check(const struct hroce_sim_frame_faults *p, char *why, size_t why_len)
{
	const double probs[] = { p->drop,      p->burst_enter, p->burst_leave, p->burst_loss,
				 p->good_loss, p->flip,	       p->dup,	       p->reorder };
	static const char *const names[] = { "drop",	   "burst_enter", "burst_leave",
					     "burst_loss", "good_loss",	  "flip",
					     "dup",	   "reorder" };
	char buf[128];

	buf[0] = 0;
	for (size_t i = 0; i < sizeof(probs) / sizeof(probs[0]) && !buf[0]; i++)
		if (!prob_ok(probs[i]))
			snprintf(buf, sizeof(buf), "%s %g is not a probability", names[i],
				 probs[i]);
	if (!buf[0] && p->reorder > 0.0 && !p->reorder_depth)
		snprintf(buf, sizeof(buf), "reorder without a depth");
	if (!buf[0] && p->nrules > HROCE_SIM_FAULT_RULES)
		snprintf(buf, sizeof(buf), "%u rules, at most %d", p->nrules,
			 HROCE_SIM_FAULT_RULES);
	for (unsigned int i = 0; !buf[0] && i < p->nrules; i++) {
		if (!p->rules[i].nth)
			snprintf(buf, sizeof(buf), "rule %u: nth is 0 (the first match is 1)", i);
		else if (p->rules[i].action > HROCE_SIM_FAULT_DELAY)
			snprintf(buf, sizeof(buf), "rule %u: unknown action %d", i,
				 (int)p->rules[i].action);
	}
	if (why && why_len)
		snprintf(why, why_len, "%s", buf);
	return buf[0] ? EINVAL : 0;
}

int sim_faults_set(struct sim_faults *f, const struct hroce_sim_frame_faults *p)
{
	if (p && sim_faults_check(p, NULL, 0))
		return EINVAL;
	memset(&f->p, 0, sizeof(f->p));
	if (p)
		f->p = *p;
	p = &f->p;
	f->active = p->drop > 0.0 || p->burst_enter > 0.0 || p->good_loss > 0.0 || p->flip > 0.0 ||
		    p->dup > 0.0 || p->reorder > 0.0 || p->nrules;
	f->rng = p->seed;
	f->bad = false;
	memset(f->matched, 0, sizeof(f->matched));
	memset(f->fired, 0, sizeof(f->fired));
	memset(&f->st, 0, sizeof(f->st));
	return 0;
}

static bool field_matches(uint32_t want, uint32_t have)
{
	return want == HROCE_SIM_FAULT_ANY || want == have;
}

/* The rules that fire on this frame, their faults in *fate. */
static void apply_rules(struct sim_faults *f, const struct roce_hdr *h, struct sim_fate *fate)
{
	for (unsigned int i = 0; i < f->p.nrules; i++) {
		const struct hroce_sim_fault_rule *r = &f->p.rules[i];

		if (f->fired[i] || !field_matches(r->opcode, h->opcode) ||
		    !field_matches(r->psn, h->psn) || !field_matches(r->dqpn, h->dqpn) ||
		    ++f->matched[i] != r->nth)
			continue;
		f->fired[i] = true;
		fate->directed++;
		if (r->action == HROCE_SIM_FAULT_DROP) {
			fate->drop = true;
		} else if (r->action == HROCE_SIM_FAULT_DUP) {
			fate->dup = true;
		} else {
			fate->hold = true;
			fate->depth = r->depth > fate->depth ? r->depth : fate->depth;
			if (!fate->depth)
				fate->depth = 1;
		}
	}
}

/* One bit, uniformly among those the receiver's checks cover (roce_byte_checked). */
static void choose_flip(uint64_t r, bool ip6, size_t ip_off, size_t ip_len, struct sim_fate *fate)
{
	size_t n = 0, k, off;

	for (off = 0; off < ip_len; off++)
		n += roce_byte_checked(ip6, off, ip_len);
	if (!n)
		return;
	k = (size_t)((r >> 3) % n);
	for (off = 0; !roce_byte_checked(ip6, off, ip_len) || k--; off++)
		;
	fate->flip_off = ip_off + off;
	fate->flip_mask = (uint8_t)(1u << (r & 7));
}

void sim_faults_begin(struct sim_faults *f, const uint8_t *start, size_t len, struct sim_fate *fate)
{
	const struct hroce_sim_frame_faults *p = &f->p;
	double u_drop, u_loss, u_move, u_flip, u_dup, u_reorder;
	size_t ip_off = 0, ip_len = 0;
	struct roce_hdr h;
	uint64_t r_flip;
	bool roce, lost, bth;

	memset(fate, 0, sizeof(*fate));
	if (!f->active)
		return;
	/* the same draws for every frame: its random fate depends on the seed and its place */
	u_drop = rng_uniform(&f->rng);
	u_loss = rng_uniform(&f->rng);
	u_move = rng_uniform(&f->rng);
	u_reorder = rng_uniform(&f->rng);
	u_dup = rng_uniform(&f->rng);
	u_flip = rng_uniform(&f->rng);
	r_flip = rng_next(&f->rng);

	roce = roce_parse_start(start, len, &h, &ip_off, &ip_len, &bth) == ROCE_OK;
	/* the rules match BTH fields: never on a frame whose first beat ends before its BTH */
	if (roce && bth)
		apply_rules(f, &h, fate);
	lost = u_loss < (f->bad ? p->burst_loss : p->good_loss);
	f->bad = f->bad ? !(u_move < p->burst_leave) : u_move < p->burst_enter;
	if (fate->directed) {
		if (fate->drop)
			fate->hold = fate->dup = false;
		if (fate->hold)
			fate->dup = false;
		return;
	}
	if (u_drop < p->drop) {
		fate->drop = true;
		fate->lost_by = CAUSE_RANDOM;
	} else if (lost) {
		fate->drop = true;
		fate->lost_by = CAUSE_BURST;
	} else if (u_reorder < p->reorder) {
		fate->hold = true;
		fate->depth = p->reorder_depth;
	} else if (u_dup < p->dup) {
		fate->dup = true;
	}
	if (!fate->drop && roce && u_flip < p->flip)
		choose_flip(r_flip, h.ip6, ip_off, ip_len, fate);
}

static struct sim_faults_frame *frame_copy(const struct sim_fate *fate, const uint8_t *frame,
					   size_t len)
{
	struct sim_faults_frame *fr = malloc(sizeof(*fr) + (len ? len : 1));

	if (!fr)
		return NULL;
	fr->next = NULL;
	fr->deadline = 0;
	fr->left = 0;
	fr->len = len;
	memcpy(fr->data, frame, len);
	if (fate->flip_mask && fate->flip_off < len)
		fr->data[fate->flip_off] ^= fate->flip_mask;
	return fr;
}

static void deliver(struct sim_faults *f, struct sim_faults_frame *fr)
{
	fr->next = NULL;
	*f->out_tail = fr;
	f->out_tail = &fr->next;
}

/* Frames held back that the sender's frame just passed, or whose deadline came. */
static void release(struct sim_faults *f, bool passed, uint64_t now)
{
	struct sim_faults_frame **pp = &f->held, *fr;

	while ((fr = *pp)) {
		if (passed && fr->left)
			fr->left--;
		if (!fr->left || (!passed && fr->deadline <= now)) {
			*pp = fr->next;
			deliver(f, fr);
		} else {
			pp = &fr->next;
		}
	}
}

int sim_faults_end(struct sim_faults *f, const struct sim_fate *fate, const uint8_t *frame,
		   size_t len, bool aborted, uint64_t hold_deadline)
{
	struct sim_faults_frame *fr, **pp;
	int err = 0;

	f->st.frames++;
	f->st.directed += fate->directed;
	if (fate->lost_by == CAUSE_RANDOM)
		f->st.dropped_random++;
	else if (fate->lost_by == CAUSE_BURST)
		f->st.dropped_burst++;
	/* a frame shorter than its IP header says may end before the flip */
	if (fate->flip_mask && fate->flip_off < len)
		f->st.flipped++;
	if (fate->hold && !aborted) {
		/* a frame its sender aborted is not worth holding: it is lost */
		fr = frame_copy(fate, frame, len);
		if (!fr)
			return ENOMEM;
		fr->left = fate->depth;
		fr->deadline = hold_deadline;
		for (pp = &f->held; *pp; pp = &(*pp)->next)
			;
		*pp = fr;
		f->st.reordered += !fate->directed;
	}
	if (fate->drop || fate->hold)
		return 0;
	if (fate->dup && !aborted) {
		fr = frame_copy(fate, frame, len);
		if (fr) {
			deliver(f, fr);
			f->st.duplicated += !fate->directed;
		} else {
			err = ENOMEM;
		}
	}
	if (f->held)
		release(f, true, 0);
	return err;
}

const struct sim_faults_frame *sim_faults_peek(struct sim_faults *f, uint64_t now)
{
	if (f->held)
		release(f, false, now);
	return f->out;
}

struct sim_faults_frame *sim_faults_pop(struct sim_faults *f)
{
	struct sim_faults_frame *fr = f->out;

	if (fr) {
		f->out = fr->next;
		if (!f->out)
			f->out_tail = &f->out;
		fr->next = NULL;
	}
	return fr;
}
