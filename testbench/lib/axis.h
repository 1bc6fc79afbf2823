/* SPDX-License-Identifier: MIT */
/*
 * AXI-Stream source (driver) and sink (monitor) agents for struct dut.
 *
 * Ports are found by prefix: <prefix>_tdata/_tkeep/_tvalid/_tready/_tlast/_tuser, or
 * without the 't' (<prefix>_data/_valid/_ready) for plain valid/ready channels such as a
 * header bus, which carry one-beat frames. tkeep, tlast and tuser are optional.
 * The source inserts idle cycles and the sink withholds tready, each with a percentage
 * chance per cycle drawn from the bench's seed. The sink also checks the protocol: a beat
 * offered without tready must be offered again unchanged; tkeep must be contiguous from
 * lane 0 and full on every beat but the last.
 */
#ifndef HROCE_AXIS_H
#define HROCE_AXIS_H

#include <stddef.h>
#include <stdint.h>

#include "bench.h"

struct axis_ports {
	const struct vmodel_port *tdata, *tkeep, *tvalid, *tready, *tlast, *tuser;
	unsigned int bytes; /* bytes per beat */
};

struct axis_frame {
	uint8_t *data;
	size_t len;
	int err_beat;  /* source: beat that carries tuser=1, -1 for none */
	uint32_t user; /* sink: OR of tuser over the frame's beats */
	uint64_t first_cycle, last_cycle;
};

struct axis_queue {
	struct axis_frame *frames;
	size_t head, count, cap;
};

struct axis_source {
	struct dut *dut;
	struct axis_ports p;
	unsigned int idle_pct;
	struct axis_queue q;
	size_t offset; /* bytes of the head frame already accepted */
	unsigned int beat;
	bool offering;
	uint64_t beats, frames;
};

struct axis_sink {
	struct dut *dut;
	struct axis_ports p;
	unsigned int busy_pct;
	struct axis_queue q;
	struct axis_frame cur;
	size_t cur_cap;
	uint8_t *held; /* the beat offered without tready, to check it is held */
	bool holding, ready;
	uint64_t beats, frames, protocol_errors;
	char first_error[160];
};

void axis_bind(struct axis_ports *p, struct dut *d, const char *prefix);

void axis_source_init(struct axis_source *s, struct dut *d, const char *prefix,
		      unsigned int idle_pct);
void axis_source_push(struct axis_source *s, const void *data, size_t len, int err_beat);
static inline size_t axis_source_pending(const struct axis_source *s)
{
	return s->q.count;
}
void axis_source_free(struct axis_source *s);

void axis_sink_init(struct axis_sink *k, struct dut *d, const char *prefix, unsigned int busy_pct);
static inline size_t axis_sink_count(const struct axis_sink *k)
{
	return k->q.count;
}
/* Takes the oldest received frame; the caller frees f->data. */
bool axis_sink_pop(struct axis_sink *k, struct axis_frame *f);
void axis_sink_free(struct axis_sink *k);

#endif /* HROCE_AXIS_H */
