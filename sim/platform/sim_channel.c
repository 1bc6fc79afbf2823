// SPDX-License-Identifier: MIT
#include "sim_channel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_log.h"

#define FRAME_MAX PCAP_SNAPLEN

int sim_channel_init(struct sim_channel *c, const struct sim_axis_bus *tx,
		     const struct sim_axis_bus *rx, const struct sim_channel_params *p,
		     const struct sim_channel_hooks *hooks)
{
	memset(c, 0, sizeof(*c));
	if (!p->latency || !p->clock_mhz)
		return EINVAL;
	c->tx = *tx;
	c->rx = *rx;
	c->p = *p;
	if (hooks)
		c->hooks = *hooks;
	sim_credit_init(&c->credit, p->gbps, p->clock_mhz, SIM_DATA_BYTES);
	c->limit = (uint64_t)p->latency + SIM_CHANNEL_BUFFER;
	for (c->cap = 1; c->cap < c->limit; c->cap <<= 1)
		;
	c->ring = malloc(c->cap * sizeof(*c->ring));
	c->frame_cap = 2048;
	c->frame = malloc(c->frame_cap);
	if (!c->ring || !c->frame) {
		sim_channel_fini(c);
		return ENOMEM;
	}
	c->inject_tail = &c->inject;
	sim_faults_init(&c->faults);
	c->hold_cycles =
		(uint32_t)(((uint64_t)HROCE_SIM_FAULT_HOLD_NS * p->clock_mhz + 999) / 1000);
	*c->tx.tready = 1;
	*c->rx.tvalid = 0;
	return 0;
}

void sim_channel_fini(struct sim_channel *c)
{
	while (c->inject) {
		struct sim_channel_inject *f = c->inject;

		c->inject = f->next;
		free(f);
	}
	c->inject_tail = &c->inject;
	sim_faults_fini(&c->faults);
	free(c->ring);
	free(c->frame);
	c->ring = NULL;
	c->frame = NULL;
}

int sim_channel_inject(struct sim_channel *c, const void *frame, size_t len)
{
	struct sim_channel_inject *f = malloc(sizeof(*f) + (len ? len : 1));

	if (!f)
		return ENOMEM;
	f->next = NULL;
	f->len = len;
	memcpy(f->data, frame, len);
	*c->inject_tail = f;
	c->inject_tail = &f->next;
	return 0;
}

/* Beats for a whole frame into the ring, due latency cycles from now; false if no room. */
static bool ring_put_frame(struct sim_channel *c, const uint8_t *data, size_t len, uint64_t now)
{
	uint64_t beats = len ? (len + SIM_DATA_BYTES - 1) / SIM_DATA_BYTES : 1;

	if (c->tail - c->head + beats > c->cap)
		return false;
	for (uint64_t k = 0; k < beats; k++) {
		struct sim_channel_beat *b = &c->ring[c->tail++ & (c->cap - 1)];
		size_t off = k * SIM_DATA_BYTES;
		size_t n = len - off < SIM_DATA_BYTES ? len - off : SIM_DATA_BYTES;

		memset(b->data, 0, SIM_DATA_BYTES);
		memcpy(b->data, data + off, n);
		b->keep = n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
		b->last = k + 1 == beats;
		b->user = 0;
		b->due = now + c->p.latency;
	}
	return true;
}

/* Injected frames onto the wire while the sender is between frames and the ring has room. */
static void inject_pending(struct sim_channel *c, uint64_t now)
{
	struct sim_channel_inject *f;
	int err;

	while ((f = c->inject) && !c->sending) {
		uint64_t beats = f->len ? (f->len + SIM_DATA_BYTES - 1) / SIM_DATA_BYTES : 1;
		struct sim_fate fate;

		if (c->tail - c->head + beats > c->cap)
			return;
		/* as if the sender had sent it: the direction's faults too */
		sim_faults_begin(&c->faults, f->data,
				 f->len < SIM_DATA_BYTES ? f->len : SIM_DATA_BYTES, &fate);
		if (fate.flip_mask && fate.flip_off < f->len)
			f->data[fate.flip_off] ^= fate.flip_mask;
		if (!fate.drop && !fate.hold)
			ring_put_frame(c, f->data, f->len, now);
		if (fate.flip_mask && fate.flip_off < f->len)
			f->data[fate.flip_off] ^= fate.flip_mask; /* the pcap has it as sent */
		err = sim_faults_end(&c->faults, &fate, f->data, f->len, false,
				     now + c->hold_cycles);
		if (err)
			sim_log(HROCE_SIM_LOG_ERR, "link faults: %s", strerror(err));
		if (c->p.pcap) {
			err = pcap_write(c->p.pcap, now * 1000 / c->p.clock_mhz, f->data, f->len);
			if (err && !c->pcap_errors++)
				sim_log(HROCE_SIM_LOG_ERR, "link pcap: %s", strerror(err));
		}
		c->injected++;
		c->inject = f->next;
		if (!c->inject)
			c->inject_tail = &c->inject;
		free(f);
	}
}

/*
 * Copies and frames held back whose time came, onto the wire between the sender's frames
 * (before its beat of this cycle); true if one still waits for room.
 */
static bool faults_pending(struct sim_channel *c, uint64_t now)
{
	const struct sim_faults_frame *fr;

	if (c->sending || !sim_faults_busy(&c->faults))
		return false;
	while ((fr = sim_faults_peek(&c->faults, now))) {
		if (!ring_put_frame(c, fr->data, fr->len, now))
			return true;
		free(sim_faults_pop(&c->faults));
	}
	return false;
}

bool sim_channel_quiet(const struct sim_channel *c)
{
	return c->head == c->tail && !c->presented && !c->sending && !c->receiving && !c->inject &&
	       !sim_faults_busy(&c->faults);
}

void sim_channel_tx_drive(struct sim_channel *c, uint64_t now)
{
	/* what waits for room goes before the sender's next frame */
	bool waiting = faults_pending(c, now);

	*c->tx.tready = !waiting && c->tail - c->head < c->limit && sim_credit_ok(&c->credit, now);
}

static void frame_append(struct sim_channel *c, const uint8_t *data, uint64_t keep)
{
	if (c->frame_len + SIM_DATA_BYTES > c->frame_cap && c->frame_cap < FRAME_MAX) {
		size_t cap = c->frame_cap * 2 < FRAME_MAX ? c->frame_cap * 2 : FRAME_MAX;
		uint8_t *frame = realloc(c->frame, cap);

		if (frame) {
			c->frame = frame;
			c->frame_cap = cap;
		}
	}
	if (keep == ~UINT64_C(0) && c->frame_len + SIM_DATA_BYTES <= c->frame_cap) {
		memcpy(c->frame + c->frame_len, data, SIM_DATA_BYTES);
		c->frame_len += SIM_DATA_BYTES;
		return;
	}
	for (; keep; keep &= keep - 1)
		if (c->frame_len < c->frame_cap)
			c->frame[c->frame_len++] = data[__builtin_ctzll(keep)];
}

/* The kept byte of a beat at frame offset off, which the beat holds from start on. */
static uint8_t *beat_byte(struct sim_channel_beat *b, size_t start, size_t off)
{
	uint64_t keep = b->keep;

	for (size_t k = start; k < off; k++)
		keep &= keep - 1;
	return (uint8_t *)b->data + __builtin_ctzll(keep);
}

void sim_channel_tx_sample(struct sim_channel *c, uint64_t now)
{
	struct sim_channel_beat *b, beat;
	uint64_t bytes;
	size_t start;
	bool first = !c->sending;
	int err;

	if (c->inject)
		inject_pending(c, now);
	if (!*c->tx.tvalid || !*c->tx.tready)
		return;
	b = &beat;
	memcpy(b->data, c->tx.tdata, SIM_DATA_BYTES);
	b->keep = *c->tx.tkeep;
	b->last = *c->tx.tlast;
	b->user = *c->tx.tuser;
	b->due = now + c->p.latency;
	bytes = (uint64_t)__builtin_popcountll(b->keep);
	c->beats++;
	c->bytes += bytes;
	if (first) {
		c->sending = true;
		c->frame_start = now;
		c->frame_len = 0;
	}
	start = c->frame_len;
	frame_append(c, (const uint8_t *)b->data, b->keep);
	if (first)
		sim_faults_begin(&c->faults, c->frame, c->frame_len, &c->fate);
	if (c->fate.flip_mask && c->fate.flip_off >= start && c->fate.flip_off < c->frame_len)
		*beat_byte(b, start, c->fate.flip_off) ^= c->fate.flip_mask;
	/* a lost frame, or one held back, takes its time on the wire and goes no further */
	if (!c->fate.drop && !c->fate.hold)
		c->ring[c->tail++ & (c->cap - 1)] = *b;
	if (b->last) {
		bytes += SIM_ETH_OVERHEAD;
		if (c->frame_len < SIM_ETH_MIN_FRAME)
			bytes += SIM_ETH_MIN_FRAME - c->frame_len;
	}
	sim_credit_take(&c->credit, now, bytes);
	if (!b->last)
		return;
	c->sending = false;
	if (b->user) {
		c->aborted++;
	} else {
		c->frames++;
		if (c->p.pcap) {
			err = pcap_write(c->p.pcap, c->frame_start * 1000 / c->p.clock_mhz,
					 c->frame, c->frame_len);
			if (err && !c->pcap_errors++)
				sim_log(HROCE_SIM_LOG_ERR, "link pcap: %s", strerror(err));
		}
	}
	err = sim_faults_end(&c->faults, &c->fate, c->frame, c->frame_len, b->user,
			     now + c->hold_cycles);
	if (err)
		sim_log(HROCE_SIM_LOG_ERR, "link faults: %s", strerror(err));
	memset(&c->fate, 0, sizeof(c->fate));
	if (c->tap && !b->user)
		c->tap(c->tap_ctx, c->frame, c->frame_len);
	if (c->hooks.sent)
		c->hooks.sent(c->hooks.tx_ctx, c->frame_start, now, c->frame_len, b->user, c->frame,
			      c->frame_len);
}

void sim_channel_rx_drive(struct sim_channel *c, uint64_t now)
{
	const struct sim_channel_beat *b;

	if (c->presented)
		return;
	if (c->head == c->tail || c->ring[c->head & (c->cap - 1)].due > now) {
		*c->rx.tvalid = 0;
		return;
	}
	b = &c->ring[c->head & (c->cap - 1)];
	memcpy(c->rx.tdata, b->data, SIM_DATA_BYTES);
	*c->rx.tkeep = b->keep;
	*c->rx.tlast = b->last;
	*c->rx.tuser = b->user;
	*c->rx.tvalid = 1;
	c->presented = true;
}

void sim_channel_rx_sample(struct sim_channel *c, uint64_t now)
{
	const struct sim_channel_beat *b;
	size_t kept;

	if (!c->presented || !*c->rx.tready)
		return;
	b = &c->ring[c->head++ & (c->cap - 1)];
	c->presented = false;
	if (!c->receiving) {
		c->receiving = true;
		c->rx_start = now;
		c->rx_len = 0;
		c->rx_head_len = 0;
	}
	kept = (size_t)__builtin_popcountll(b->keep);
	if (c->rx_head_len + kept <= sizeof(c->rx_head)) {
		memcpy(c->rx_head + c->rx_head_len, b->data, kept);
		c->rx_head_len += kept;
	}
	c->rx_len += kept;
	if (!b->last)
		return;
	c->receiving = false;
	c->received++;
	if (c->hooks.received)
		c->hooks.received(c->hooks.rx_ctx, c->rx_start, now, c->rx_len, b->user, c->rx_head,
				  c->rx_head_len);
}
