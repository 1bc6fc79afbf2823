// SPDX-License-Identifier: MIT
#include "sim_mmio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_log.h"

int sim_mmio_init(struct sim_mmio *m, const struct sim_axil_bus *bus,
		  const struct sim_mmio_hooks *hooks)
{
	memset(m, 0, sizeof(*m));
	m->bus = *bus;
	if (hooks)
		m->hooks = *hooks;
	m->cap = 64;
	m->ops = malloc(m->cap * sizeof(*m->ops));
	if (!m->ops)
		return ENOMEM;
	*bus->awvalid = 0;
	*bus->wvalid = 0;
	*bus->arvalid = 0;
	*bus->bready = 1;
	*bus->rready = 1;
	return 0;
}

void sim_mmio_fini(struct sim_mmio *m)
{
	free(m->ops);
	m->ops = NULL;
}

static struct sim_mmio_op *push(struct sim_mmio *m)
{
	if (m->tail - m->head == m->cap) {
		struct sim_mmio_op *ops = malloc(2 * m->cap * sizeof(*ops));

		if (!ops)
			return NULL;
		for (uint64_t i = m->head; i < m->tail; i++)
			ops[i & (2 * m->cap - 1)] = m->ops[i & (m->cap - 1)];
		free(m->ops);
		m->ops = ops;
		m->cap *= 2;
	}
	return &m->ops[m->tail++ & (m->cap - 1)];
}

int sim_mmio_write(struct sim_mmio *m, uint64_t arrive, uint64_t offset, const void *data,
		   size_t len)
{
	const uint8_t *src = data;
	uint64_t end = offset + len;

	if (!len || len > SIM_MMIO_MAX_WRITE || offset >= SIM_MMIO_BAR_SIZE ||
	    end > SIM_MMIO_BAR_SIZE)
		return EINVAL;
	for (uint64_t word = offset & ~UINT64_C(7); word < end; word += 8) {
		struct sim_mmio_op *op = push(m);
		uint64_t lo = word > offset ? word : offset, hi = word + 8 < end ? word + 8 : end;

		if (!op)
			return ENOMEM;
		*op = (struct sim_mmio_op){ .arrive = arrive, .addr = (uint32_t)word };
		for (uint64_t a = lo; a < hi; a++) {
			op->data |= (uint64_t)src[a - offset] << (8 * (a - word));
			op->strb |= (uint8_t)(1u << (a - word));
		}
		if (word + 8 >= end) {
			op->end = true;
			op->call_off = (uint32_t)offset;
			op->call_len = (uint16_t)len;
		}
	}
	return 0;
}

int sim_mmio_read(struct sim_mmio *m, uint64_t arrive, uint64_t offset)
{
	struct sim_mmio_op *op;

	if (offset >= SIM_MMIO_BAR_SIZE || (offset & 7))
		return EINVAL;
	op = push(m);
	if (!op)
		return ENOMEM;
	*op = (struct sim_mmio_op){ .arrive = arrive, .addr = (uint32_t)offset, .read = true };
	return 0;
}

void sim_mmio_drive(struct sim_mmio *m, uint64_t now)
{
	const struct sim_mmio_op *op;

	/*
	 * A handshake sampled last cycle ends only now: the core takes the request at the
	 * clock edge that follows sim_mmio_sample(), and must still see it valid then.
	 */
	if (m->aw_done)
		*m->bus.awvalid = 0;
	if (m->w_done)
		*m->bus.wvalid = 0;
	if (!m->driving)
		*m->bus.arvalid = 0;
	if (m->driving || m->head == m->tail)
		return;
	op = &m->ops[m->head & (m->cap - 1)];
	if (op->arrive > now)
		return;
	if (op->read) {
		if (m->read_busy)
			return;
		*m->bus.araddr = (uint16_t)op->addr;
		*m->bus.arvalid = 1;
	} else {
		*m->bus.awaddr = (uint16_t)op->addr;
		*m->bus.wdata = op->data;
		*m->bus.wstrb = op->strb;
		*m->bus.awvalid = 1;
		*m->bus.wvalid = 1;
		m->aw_done = m->w_done = false;
	}
	m->driving = true;
}

void sim_mmio_sample(struct sim_mmio *m, uint64_t now)
{
	const struct sim_axil_bus *bus = &m->bus;

	if (*bus->bvalid && *bus->bresp != SIM_AXI_OKAY) {
		m->write_errors++;
		sim_log(HROCE_SIM_LOG_WARN, "cycle %llu: MMIO write answered with response %u",
			(unsigned long long)now, *bus->bresp);
	}
	if (*bus->rvalid && m->read_busy) {
		m->read_data = *bus->rdata;
		m->read_resp = *bus->rresp;
		m->read_cycle = now;
		m->read_busy = false;
		m->reads_done++;
	}
	if (!m->driving)
		return;
	if (*bus->arvalid) {
		if (!*bus->arready)
			return;
		m->read_busy = true;
	} else {
		const struct sim_mmio_op *op = &m->ops[m->head & (m->cap - 1)];

		if (*bus->awvalid && *bus->awready)
			m->aw_done = true;
		if (*bus->wvalid && *bus->wready)
			m->w_done = true;
		if (!m->aw_done || !m->w_done)
			return;
		if (op->end && m->hooks.event)
			m->hooks.event(m->hooks.ctx, HROCE_SIM_MMIO_ARRIVE, now, op->call_off,
				       op->call_len);
	}
	m->head++;
	m->driving = false;
}
