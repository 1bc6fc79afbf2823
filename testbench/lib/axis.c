// SPDX-License-Identifier: MIT
#include "axis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("realloc");
		exit(1);
	}
	return p;
}

static void queue_push(struct axis_queue *q, struct axis_frame f)
{
	if (q->count == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 16;
		struct axis_frame *n = xrealloc(NULL, cap * sizeof(*n));

		for (size_t i = 0; i < q->count; i++)
			n[i] = q->frames[(q->head + i) % q->cap];
		free(q->frames);
		q->frames = n;
		q->cap = cap;
		q->head = 0;
	}
	q->frames[(q->head + q->count++) % q->cap] = f;
}

static struct axis_frame *queue_head(struct axis_queue *q)
{
	return q->count ? &q->frames[q->head] : NULL;
}

static void queue_drop_head(struct axis_queue *q)
{
	q->head = (q->head + 1) % q->cap;
	q->count--;
}

static void queue_free(struct axis_queue *q)
{
	while (q->count) {
		free(queue_head(q)->data);
		queue_drop_head(q);
	}
	free(q->frames);
	memset(q, 0, sizeof(*q));
}

static const struct vmodel_port *port2(struct dut *d, const char *prefix, const char *a,
				       const char *b, bool required)
{
	char name[128];
	const struct vmodel_port *p;

	snprintf(name, sizeof(name), "%s_%s", prefix, a);
	p = dut_port_opt(d, name);
	if (p)
		return p;
	snprintf(name, sizeof(name), "%s_%s", prefix, b);
	return required ? dut_port(d, name) : dut_port_opt(d, name);
}

void axis_bind(struct axis_ports *p, struct dut *d, const char *prefix)
{
	p->tdata = port2(d, prefix, "tdata", "data", true);
	p->tvalid = port2(d, prefix, "tvalid", "valid", true);
	p->tready = port2(d, prefix, "tready", "ready", true);
	p->tkeep = port2(d, prefix, "tkeep", "keep", false);
	p->tlast = port2(d, prefix, "tlast", "last", false);
	p->tuser = port2(d, prefix, "tuser", "user", false);
	p->bytes = (p->tdata->width + 7) / 8;
}

static void source_drive(void *ctx)
{
	struct axis_source *s = ctx;
	struct axis_frame *f = queue_head(&s->q);
	size_t n;

	/* once offered, a beat stays offered until it is taken */
	if (!f || (!s->offering && bench_chance(s->dut->bench, s->idle_pct))) {
		vport_set(s->p.tvalid, 0);
		return;
	}
	n = f->len - s->offset < s->p.bytes ? f->len - s->offset : s->p.bytes;
	vport_write(s->p.tdata, f->data + s->offset, n);
	if (s->p.tkeep)
		vport_set(s->p.tkeep, n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1);
	if (s->p.tlast)
		vport_set(s->p.tlast, s->offset + n >= f->len);
	if (s->p.tuser)
		vport_set(s->p.tuser, f->err_beat >= 0 && (unsigned int)f->err_beat == s->beat);
	vport_set(s->p.tvalid, 1);
	s->offering = true;
}

static void source_sample(void *ctx)
{
	struct axis_source *s = ctx;
	struct axis_frame *f;

	if (!vport_get(s->p.tvalid) || !vport_get(s->p.tready))
		return;
	s->offering = false;
	f = queue_head(&s->q);
	s->beats++;
	s->dut->transfers++;
	s->beat++;
	s->offset += s->p.bytes;
	if (s->offset >= f->len) {
		free(f->data);
		queue_drop_head(&s->q);
		s->offset = 0;
		s->beat = 0;
		s->frames++;
		s->dut->pending--;
	}
}

void axis_source_init(struct axis_source *s, struct dut *d, const char *prefix,
		      unsigned int idle_pct)
{
	memset(s, 0, sizeof(*s));
	s->dut = d;
	s->idle_pct = idle_pct;
	axis_bind(&s->p, d, prefix);
	vport_set(s->p.tvalid, 0);
	dut_add_agent(d, source_drive, source_sample, s);
}

void axis_source_push(struct axis_source *s, const void *data, size_t len, int err_beat)
{
	struct axis_frame f = { .len = len, .err_beat = err_beat };

	/* a zero-length frame is still one beat, with tkeep all zero */
	f.data = xrealloc(NULL, len ? len : 1);
	memcpy(f.data, data, len);
	queue_push(&s->q, f);
	s->dut->pending++;
}

void axis_source_free(struct axis_source *s)
{
	s->dut->pending -= s->q.count;
	queue_free(&s->q);
}

static void sink_error(struct axis_sink *k, const char *what)
{
	if (!k->protocol_errors++)
		snprintf(k->first_error, sizeof(k->first_error), "cycle %llu: %s",
			 (unsigned long long)k->dut->cycle, what);
}

static void sink_drive(void *ctx)
{
	struct axis_sink *k = ctx;

	k->ready = !bench_chance(k->dut->bench, k->busy_pct);
	vport_set(k->p.tready, k->ready);
}

static void sink_sample(void *ctx)
{
	struct axis_sink *k = ctx;
	size_t bytes = vport_bytes(k->p.tdata);
	uint64_t keep;
	unsigned int n;
	bool last;

	if (!vport_get(k->p.tvalid)) {
		if (k->holding)
			sink_error(k, "tvalid dropped before tready");
		k->holding = false;
		return;
	}
	if (k->holding && memcmp(k->held, k->p.tdata->ptr, bytes))
		sink_error(k, "tdata changed while waiting for tready");
	if (!k->ready) {
		if (!k->held)
			k->held = xrealloc(NULL, bytes);
		memcpy(k->held, k->p.tdata->ptr, bytes);
		k->holding = true;
		return;
	}
	k->holding = false;
	keep = k->p.tkeep ? vport_get(k->p.tkeep) : ~UINT64_C(0);
	last = k->p.tlast ? vport_get(k->p.tlast) : true;
	for (n = 0; n < k->p.bytes && (keep >> n) & 1; n++)
		;
	if (n < k->p.bytes && (keep >> n))
		sink_error(k, "tkeep not contiguous from lane 0");
	if (!last && n != k->p.bytes)
		sink_error(k, "partial tkeep before tlast");
	if (k->cur.len + n > k->cur_cap) {
		k->cur_cap = 2 * (k->cur.len + n) + 64;
		k->cur.data = xrealloc(k->cur.data, k->cur_cap);
	}
	if (!k->cur.len && !k->cur.user)
		k->cur.first_cycle = k->dut->cycle;
	vport_read(k->p.tdata, k->cur.data + k->cur.len, n);
	k->cur.len += n;
	if (k->p.tuser)
		k->cur.user |= (uint32_t)vport_get(k->p.tuser);
	k->beats++;
	k->dut->transfers++;
	if (last) {
		k->cur.last_cycle = k->dut->cycle;
		k->cur.err_beat = -1;
		if (!k->cur.data)
			k->cur.data = xrealloc(NULL, 1);
		queue_push(&k->q, k->cur);
		memset(&k->cur, 0, sizeof(k->cur));
		k->cur_cap = 0;
		k->frames++;
	}
}

void axis_sink_init(struct axis_sink *k, struct dut *d, const char *prefix, unsigned int busy_pct)
{
	memset(k, 0, sizeof(*k));
	k->dut = d;
	k->busy_pct = busy_pct;
	axis_bind(&k->p, d, prefix);
	dut_add_agent(d, sink_drive, sink_sample, k);
}

bool axis_sink_pop(struct axis_sink *k, struct axis_frame *f)
{
	struct axis_frame *h = queue_head(&k->q);

	if (!h)
		return false;
	*f = *h;
	queue_drop_head(&k->q);
	return true;
}

void axis_sink_free(struct axis_sink *k)
{
	queue_free(&k->q);
	free(k->cur.data);
	free(k->held);
}
