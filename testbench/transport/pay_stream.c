// SPDX-License-Identifier: MIT
#include "pay_stream.h"

#include <string.h>

uint8_t pay_host_byte(uint64_t addr)
{
	uint64_t x = addr * 0x9e3779b97f4a7c15ull;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 32;
	return (uint8_t)x;
}

void pay_stream_init(struct pay_stream *s, unsigned int cap)
{
	memset(s, 0, sizeof(*s));
	bench_ring_init(&s->reqs, sizeof(struct pay_req), cap);
}

void pay_stream_free(struct pay_stream *s)
{
	bench_ring_free(&s->reqs);
}

bool pay_stream_offer(struct pay_stream *s, struct bench *b, uint64_t cycle, unsigned int ready_pct)
{
	if (s->beat_valid)
		return false;
	/* the requests whose data came, up to the packet's last */
	for (;;) {
		struct pay_req *r = bench_ring_at(&s->reqs, 0);

		if (s->pkt_done || !r || r->at > cycle || s->n + r->len > sizeof(s->buf))
			break;
		for (unsigned int i = 0; i < r->len; i++)
			s->buf[s->n++] = pay_host_byte(r->addr + i);
		s->pkt_done = r->last;
		bench_ring_pop(&s->reqs);
	}
	bool full = s->n > PAY_STREAM_BEAT || (s->n == PAY_STREAM_BEAT && !s->pkt_done);
	bool end = s->pkt_done && s->n && s->n <= PAY_STREAM_BEAT;

	if ((full || end) && bench_chance(b, ready_pct)) {
		s->beat_valid = true;
		s->beat_last = end;
		s->beat_len = end ? s->n : PAY_STREAM_BEAT;
		return true;
	}
	return false;
}

void pay_stream_beat(const struct pay_stream *s, struct bench *b, uint8_t data[PAY_STREAM_BEAT],
		     uint64_t *keep, bool *last)
{
	bench_fill(b, data, PAY_STREAM_BEAT);
	if (!s->beat_valid) {
		*keep = bench_rand(b);
		*last = bench_rand(b) & 1;
		return;
	}
	memcpy(data, s->buf, s->beat_len);
	*keep = s->beat_len == PAY_STREAM_BEAT ? UINT64_MAX : (1ull << s->beat_len) - 1;
	*last = s->beat_last;
}

void pay_stream_taken(struct pay_stream *s)
{
	memmove(s->buf, s->buf + s->beat_len, s->n - s->beat_len);
	s->n -= s->beat_len;
	if (s->beat_last)
		s->pkt_done = false;
	s->beat_valid = false;
}

bool pay_stream_empty(const struct pay_stream *s)
{
	return !s->reqs.n && !s->n;
}
