// SPDX-License-Identifier: MIT
#include "sim_mmio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_log.h"

static int init(struct sim_mmio *m, const struct sim_mmio_hooks *hooks)
{
	if (hooks)
		m->hooks = *hooks;
	m->cap = 64;
	m->ops = malloc(m->cap * sizeof(*m->ops));
	return m->ops ? 0 : ENOMEM;
}

int sim_mmio_init(struct sim_mmio *m, const struct sim_axil_bus *bus,
		  const struct sim_mmio_hooks *hooks)
{
	memset(m, 0, sizeof(*m));
	m->bus = *bus;
	m->bar_size = SIM_MMIO_BAR_SIZE;
	*bus->awvalid = 0;
	*bus->wvalid = 0;
	*bus->arvalid = 0;
	*bus->bready = 1;
	*bus->rready = 1;
	return init(m, hooks);
}

int sim_mmio_init32(struct sim_mmio *m, const struct sim_axil32_bus *bus, uint32_t bar_size,
		    const struct sim_mmio_hooks *hooks)
{
	memset(m, 0, sizeof(*m));
	if (!bar_size || bar_size & 7)
		return EINVAL;
	m->bus32 = *bus;
	m->narrow = true;
	m->bar_size = bar_size;
	*bus->awvalid = 0;
	*bus->wvalid = 0;
	*bus->arvalid = 0;
	*bus->bready = 1;
	*bus->rready = 1;
	return init(m, hooks);
}

void sim_mmio_attach_db(struct sim_mmio *m, const struct sim_axi_db_bus *bus)
{
	m->db = *bus;
	m->has_db = true;
	*bus->awvalid = 0;
	*bus->wvalid = 0;
	*bus->bready = 1;
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

	struct sim_mmio_op *op = NULL;

	if (!len || len > SIM_MMIO_MAX_WRITE || offset >= m->bar_size || end > m->bar_size)
		return EINVAL;
	for (uint64_t word = offset & ~UINT64_C(7); word < end; word += 8) {
		uint64_t lo = word > offset ? word : offset, hi = word + 8 < end ? word + 8 : end;
		struct sim_mmio_op w = { .arrive = arrive, .addr = (uint32_t)word };

		for (uint64_t a = lo; a < hi; a++) {
			w.data |= (uint64_t)src[a - offset] << (8 * (a - word));
			w.strb |= (uint8_t)(1u << (a - word));
		}
		for (unsigned int half = 0; half < (m->narrow ? 2u : 1u); half++) {
			uint8_t strb = m->narrow ? (uint8_t)(w.strb >> (4 * half) & 0xf) : w.strb;

			if (!strb)
				continue;
			op = push(m);
			if (!op)
				return ENOMEM;
			*op = w;
			if (m->narrow) {
				op->addr += 4 * half;
				op->data = (uint32_t)(w.data >> (32 * half));
				op->strb = strb;
			}
		}
	}
	op->end = true; /* the call wrote a byte at least: op is its last */
	op->call_off = (uint32_t)offset;
	op->call_len = (uint16_t)len;
	return 0;
}

int sim_mmio_write_db(struct sim_mmio *m, uint64_t arrive, uint64_t offset, const void *data,
		      size_t len)
{
	uint64_t first = offset & (SIM_MMIO_DB_LINE - 1);
	struct sim_mmio_op *op;

	if (!m->has_db || !len || len > SIM_MMIO_DB_LINE || offset >= SIM_MMIO_DB_SIZE ||
	    first + len > SIM_MMIO_DB_LINE)
		return EINVAL;
	op = push(m);
	if (!op)
		return ENOMEM;
	*op = (struct sim_mmio_op){ .arrive = arrive,
				    .addr = (uint32_t)offset,
				    .db = true,
				    .end = true,
				    .call_off = (uint32_t)offset,
				    .call_len = (uint16_t)len };
	memcpy(op->line + first, data, len);
	op->strb_line = (len == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << len) - 1)) << first;
	return 0;
}

int sim_mmio_read(struct sim_mmio *m, uint64_t arrive, uint64_t offset, unsigned int size)
{
	struct sim_mmio_op *op;

	if (offset >= m->bar_size || (size != 8 && size != 4) || (offset & (size - 1)) ||
	    (size == 4 && !m->narrow))
		return EINVAL;
	if (size == 4) {
		op = push(m);
		if (!op)
			return ENOMEM;
		*op = (struct sim_mmio_op){
			.arrive = arrive, .addr = (uint32_t)offset, .read = true, .single = true
		};
		return 0;
	}
	if (m->narrow) {
		op = push(m);
		if (!op)
			return ENOMEM;
		*op = (struct sim_mmio_op){
			.arrive = arrive, .addr = (uint32_t)offset, .read = true, .low = true
		};
		offset += 4;
	}
	op = push(m);
	if (!op) {
		if (m->narrow)
			m->tail--; /* not the low half alone */
		return ENOMEM;
	}
	*op = (struct sim_mmio_op){ .arrive = arrive, .addr = (uint32_t)offset, .read = true };
	return 0;
}

/* The bus's valids and handshake inputs, whichever width it has. */
#define SIG(m, name) (*((m)->narrow ? (m)->bus32.name : (m)->bus.name))

void sim_mmio_drive(struct sim_mmio *m, uint64_t now)
{
	const struct sim_mmio_op *op;

	/*
	 * A handshake sampled last cycle ends only now: the core takes the request at the
	 * clock edge that follows sim_mmio_sample(), and must still see it valid then.
	 */
	if (m->db_busy) {
		if (m->aw_done)
			*m->db.awvalid = 0;
		if (m->w_done)
			*m->db.wvalid = 0;
	} else {
		if (m->aw_done)
			SIG(m, awvalid) = 0;
		if (m->w_done)
			SIG(m, wvalid) = 0;
	}
	if (!m->driving) {
		SIG(m, arvalid) = 0;
		m->db_busy = false;
	}
	if (m->driving || m->head == m->tail)
		return;
	op = &m->ops[m->head & (m->cap - 1)];
	if (op->arrive > now)
		return;
	if (op->db) {
		*m->db.awaddr = (uint16_t)op->addr;
		*m->db.awlen = 0;
		*m->db.awsize = 6; /* log2 of the 64-byte beat */
		memcpy(m->db.wdata, op->line, SIM_MMIO_DB_LINE);
		*m->db.wstrb = op->strb_line;
		*m->db.wlast = 1;
		*m->db.awvalid = 1;
		*m->db.wvalid = 1;
		m->aw_done = m->w_done = false;
		m->db_busy = true;
	} else if (op->read) {
		if (m->read_busy)
			return;
		if (m->narrow)
			*m->bus32.araddr = op->addr;
		else
			*m->bus.araddr = (uint16_t)op->addr;
		SIG(m, arvalid) = 1;
	} else {
		if (m->narrow) {
			*m->bus32.awaddr = op->addr;
			*m->bus32.wdata = (uint32_t)op->data;
		} else {
			*m->bus.awaddr = (uint16_t)op->addr;
			*m->bus.wdata = op->data;
		}
		SIG(m, wstrb) = op->strb;
		SIG(m, awvalid) = 1;
		SIG(m, wvalid) = 1;
		m->aw_done = m->w_done = false;
	}
	m->driving = true;
}

/* An R taken: the answer of a read (a 32-bit bus: of its low half, kept, or the whole). */
static void read_answer(struct sim_mmio *m, uint64_t now)
{
	uint8_t resp = SIG(m, rresp);

	m->read_busy = false;
	if (!m->narrow) {
		m->read_data = *m->bus.rdata;
	} else if (m->read_single) {
		m->read_data = *m->bus32.rdata;
	} else if (m->read_low) {
		m->read_lo = *m->bus32.rdata;
		m->read_lo_resp = resp;
		return;
	} else {
		m->read_data = (uint64_t)*m->bus32.rdata << 32 | m->read_lo;
		if (resp == SIM_AXI_OKAY)
			resp = m->read_lo_resp;
	}
	m->read_resp = resp;
	m->read_cycle = now;
	m->reads_done++;
}

void sim_mmio_sample(struct sim_mmio *m, uint64_t now)
{
	if (SIG(m, bvalid) && SIG(m, bresp) != SIM_AXI_OKAY) {
		m->write_errors++;
		sim_log(HROCE_SIM_LOG_WARN, "cycle %llu: MMIO write answered with response %u",
			(unsigned long long)now, SIG(m, bresp));
	}
	if (SIG(m, rvalid) && m->read_busy)
		read_answer(m, now);
	if (m->has_db && *m->db.bvalid && *m->db.bresp != SIM_AXI_OKAY) {
		m->write_errors++;
		sim_log(HROCE_SIM_LOG_WARN, "cycle %llu: doorbell page write answered with %u",
			(unsigned long long)now, *m->db.bresp);
	}
	if (!m->driving)
		return;
	if (m->db_busy) {
		const struct sim_mmio_op *op = &m->ops[m->head & (m->cap - 1)];

		if (*m->db.awvalid && *m->db.awready)
			m->aw_done = true;
		if (*m->db.wvalid && *m->db.wready)
			m->w_done = true;
		if (!m->aw_done || !m->w_done)
			return;
		m->db_writes++;
		if (m->hooks.event)
			m->hooks.event(m->hooks.ctx, HROCE_SIM_MMIO_ARRIVE, now,
				       HROCE_SIM_DB_EVENT_BASE + op->call_off, op->call_len);
	} else if (SIG(m, arvalid)) {
		if (!SIG(m, arready))
			return;
		m->read_busy = true;
		m->read_low = m->ops[m->head & (m->cap - 1)].low;
		m->read_single = m->ops[m->head & (m->cap - 1)].single;
	} else {
		const struct sim_mmio_op *op = &m->ops[m->head & (m->cap - 1)];

		if (SIG(m, awvalid) && SIG(m, awready))
			m->aw_done = true;
		if (SIG(m, wvalid) && SIG(m, wready))
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
