// SPDX-License-Identifier: MIT
/*
 * The DMA reader's payload byte stream, as the requester's benches serve it (req_build's
 * and req_tx's): host memory whose every byte is a function of its address; requests
 * taken in order, each served after a latency of its own; their bytes packed into beats
 * from lane 0, a packet's last beat short and tlast, the next packet's bytes never in it.
 */
#ifndef PAY_STREAM_H
#define PAY_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"

#define PAY_STREAM_BEAT 64u
/* a packet's payload at most, and a beat more */
#define PAY_STREAM_BUF (4096u + PAY_STREAM_BEAT)

/* a read request taken: its bytes come at cycle 'at' */
struct pay_req {
	uint64_t addr, at;
	unsigned int len;
	bool last; /* the packet's last */
};

struct pay_stream {
	struct bench_ring reqs; /* struct pay_req, in the order taken */
	uint8_t buf[PAY_STREAM_BUF];
	unsigned int n; /* bytes come, not yet in a beat taken */
	bool pkt_done;	/* the packet's last request came */
	bool beat_valid, beat_last;
	unsigned int beat_len; /* of the beat offered */
};

/* the byte of host memory at addr */
uint8_t pay_host_byte(uint64_t addr);

void pay_stream_init(struct pay_stream *s, unsigned int cap);
void pay_stream_free(struct pay_stream *s);
/* Before an edge: the requests due by cycle come in, and a beat is offered if its bytes
 * are there (with a chance of ready_pct); true if one was offered just now. */
bool pay_stream_offer(struct pay_stream *s, struct bench *b, uint64_t cycle,
		      unsigned int ready_pct);
/* The beat on the port: its bytes (the rest random), keep and last (random if none) */
void pay_stream_beat(const struct pay_stream *s, struct bench *b, uint8_t data[PAY_STREAM_BEAT],
		     uint64_t *keep, bool *last);
/* the beat offered was taken */
void pay_stream_taken(struct pay_stream *s);
/* nothing requested nor held */
bool pay_stream_empty(const struct pay_stream *s);

#endif
