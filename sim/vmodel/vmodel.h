/* SPDX-License-Identifier: MIT */
/*
 * The C face of a Verilated model.
 *
 * Every Verilated top gets one small generated C++ adapter (scripts/gen_vadapter.py) that
 * exports a struct vmodel_ops under the name vmodel_<prefix>. Everything above it is C:
 * ports are found by name once, then read and written through plain pointers.
 */
#ifndef HROCE_VMODEL_H
#define HROCE_VMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vmodel_port {
	const char *name;
	void *ptr; /* uint8/16/32/64_t by width, or uint32_t words above 64 bits */
	unsigned int width;
	bool input;
};

struct vmodel_ops {
	const char *name; /* the Verilator prefix, e.g. "Vroce_rx_w64" */
	bool has_trace;	  /* built with --trace-fst */
	void *(*create)(void);
	void (*destroy)(void *model);
	void (*eval)(void *model);
	/* Fills up to max ports, returns how many the model has. */
	unsigned int (*ports)(void *model, struct vmodel_port *out, unsigned int max);
	int (*trace_open)(void *model, const char *path); /* 0 or a positive errno */
	void (*trace_dump)(void *model, uint64_t time);
	void (*trace_close)(void *model);
};

struct vmodel {
	const struct vmodel_ops *ops;
	void *model;
	struct vmodel_port *ports;
	unsigned int nports;
	bool tracing;
};

int vmodel_open(struct vmodel *vm, const struct vmodel_ops *ops);
void vmodel_close(struct vmodel *vm);
/* NULL (errno ENOENT) if the model has no such port. */
const struct vmodel_port *vmodel_port(const struct vmodel *vm, const char *name);

static inline uint64_t vport_get(const struct vmodel_port *p)
{
	if (p->width <= 8)
		return *(const uint8_t *)p->ptr;
	if (p->width <= 16)
		return *(const uint16_t *)p->ptr;
	if (p->width <= 32)
		return *(const uint32_t *)p->ptr;
	return *(const uint64_t *)p->ptr; /* wide ports: the low 64 bits (little-endian host) */
}

static inline void vport_set(const struct vmodel_port *p, uint64_t v)
{
	if (p->width < 64)
		v &= (UINT64_C(1) << p->width) - 1;
	if (p->width <= 8)
		*(uint8_t *)p->ptr = (uint8_t)v;
	else if (p->width <= 16)
		*(uint16_t *)p->ptr = (uint16_t)v;
	else if (p->width <= 32)
		*(uint32_t *)p->ptr = (uint32_t)v;
	else if (p->width <= 64)
		*(uint64_t *)p->ptr = v;
}

/* Bytes of a port, bit 0 first, as a little-endian host stores it. */
static inline size_t vport_bytes(const struct vmodel_port *p)
{
	if (p->width <= 8)
		return 1;
	if (p->width <= 16)
		return 2;
	if (p->width <= 32)
		return 4;
	if (p->width <= 64)
		return 8;
	return (p->width + 31) / 32 * 4;
}

void vport_write(const struct vmodel_port *p, const void *src, size_t len);
void vport_read(const struct vmodel_port *p, void *dst, size_t len);

#endif /* HROCE_VMODEL_H */
