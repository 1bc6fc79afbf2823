// SPDX-License-Identifier: MIT
#include "sim_pcie.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sim_log.h"

#define BUS_LOG2 6 /* log2 of the data bus in bytes */

static void event(struct sim_pcie *p, enum hroce_sim_event_kind kind, uint64_t cycle, uint64_t addr,
		  uint64_t len)
{
	if (p->hooks.event)
		p->hooks.event(p->hooks.ctx, kind, cycle, addr, len);
}

static uint64_t pow2_at_least(uint64_t n)
{
	uint64_t v = 1;

	while (v < n)
		v <<= 1;
	return v;
}

int sim_pcie_init(struct sim_pcie *p, const struct sim_axi_bus *bus, struct sim_iommu *iommu,
		  const struct sim_pcie_timing *t, const struct sim_pcie_hooks *hooks)
{
	memset(p, 0, sizeof(*p));
	p->bus = *bus;
	p->iommu = iommu;
	p->t = *t;
	if (!p->t.chunk_beats)
		p->t.chunk_beats = 4;
	if (!p->t.max_reads)
		p->t.max_reads = SIM_PCIE_READS;
	if (!p->t.max_writes)
		p->t.max_writes = SIM_PCIE_WRITES;
	if (!p->t.clock_mhz || p->t.max_reads > SIM_PCIE_READS || p->t.max_writes > SIM_PCIE_WRITES)
		return EINVAL;
	if (hooks)
		p->hooks = *hooks;
	sim_credit_init(&p->down, t->gbps, t->clock_mhz, SIM_DATA_BYTES);
	sim_credit_init(&p->up, t->gbps, t->clock_mhz, SIM_DATA_BYTES);
	/* W beats in flight: a write latency of them at most, plus bursts being assembled */
	p->beats_cap = pow2_at_least((uint64_t)t->write_latency + 1024);
	p->rd = calloc(SIM_PCIE_READS, sizeof(*p->rd));
	p->rd_data = malloc(SIM_PCIE_READS * sizeof(*p->rd_data));
	p->wr = calloc(SIM_PCIE_WRITES, sizeof(*p->wr));
	p->beats = malloc(p->beats_cap * sizeof(*p->beats));
	if (!p->rd || !p->rd_data || !p->wr || !p->beats) {
		sim_pcie_fini(p);
		return ENOMEM;
	}
	for (unsigned int i = 0; i < 256; i++)
		p->id_head[i] = p->id_tail[i] = SIM_PCIE_NONE;
	p->r_cur = p->r_last = SIM_PCIE_NONE;
	*p->bus.arready = 1;
	*p->bus.awready = 1;
	*p->bus.wready = 1;
	*p->bus.rvalid = 0;
	*p->bus.bvalid = 0;
	return 0;
}

void sim_pcie_fini(struct sim_pcie *p)
{
	free(p->rd);
	free(p->rd_data);
	free(p->wr);
	free(p->beats);
	p->rd = NULL;
	p->rd_data = NULL;
	p->wr = NULL;
	p->beats = NULL;
}

/*
 * A burst's size in bytes and whether it keeps the rules: INCR, no wider than the bus, not
 * crossing 4 KiB.
 */
static uint8_t burst_check(uint64_t addr, unsigned int len, unsigned int size, unsigned int burst,
			   uint32_t *bytes)
{
	uint64_t sb = UINT64_C(1) << size, end;

	if (burst != SIM_AXI_BURST_INCR || size > BUS_LOG2) {
		*bytes = (uint32_t)((len + 1) * sb);
		return SIM_AXI_SLVERR;
	}
	end = (addr & ~(sb - 1)) + (len + 1) * sb;
	*bytes = (uint32_t)(end - addr);
	if (end < addr || (addr >> 12) != ((end - 1) >> 12))
		return SIM_AXI_SLVERR;
	return SIM_AXI_OKAY;
}

/* Beat k of an INCR burst: the address of its first byte and its byte lanes [lo, hi]. */
static inline void burst_beat(uint64_t addr, unsigned int size, unsigned int k, uint64_t *baddr,
			      unsigned int *lo, unsigned int *hi)
{
	uint64_t sb = UINT64_C(1) << size, aligned = (addr & ~(sb - 1)) + k * sb;

	*baddr = k ? aligned : addr;
	*lo = (unsigned int)(*baddr & (SIM_DATA_BYTES - 1));
	*hi = (unsigned int)((aligned & (SIM_DATA_BYTES - 1)) + sb - 1);
}

static uint64_t lanes_mask(unsigned int lo, unsigned int hi)
{
	return (~UINT64_C(0) >> (63 - hi)) & (~UINT64_C(0) << lo);
}

static void protocol_error(struct sim_pcie *p, uint64_t now, bool write, uint64_t addr,
			   unsigned int len, unsigned int size, unsigned int burst, uint32_t bytes)
{
	p->protocol_errors++;
	sim_iommu_fault(p->iommu, addr, bytes, write, now);
	sim_log(HROCE_SIM_LOG_ERR,
		"cycle %llu: AXI %s burst breaks the rules (addr 0x%llx len %u size %u burst %u): "
		"SLVERR",
		(unsigned long long)now, write ? "write" : "read", (unsigned long long)addr, len,
		size, burst);
}

/* ------------------------------------------------------------------------------------- */
/* Writes */

/*
 * Bytes of a burst reach host memory in address order, each store a release, as a PCIe
 * write does: a host thread that reads a byte of the burst with an acquire load (a CQE's
 * owner bit, in the CQE's last word) then sees every byte before it, and every burst that
 * landed before. Aligned 8-byte words are stored whole, so that a reader of a word never
 * sees half of it.
 */
static void store_ordered(uint8_t *dst, const uint8_t *src, size_t len)
{
	while (len && ((uintptr_t)dst & 7)) {
		atomic_store_explicit((_Atomic uint8_t *)dst++, *src++, memory_order_release);
		len--;
	}
	for (; len >= 8; len -= 8, dst += 8, src += 8) {
		uint64_t v;

		memcpy(&v, src, 8);
		atomic_store_explicit((_Atomic uint64_t *)dst, v, memory_order_release);
	}
	while (len--)
		atomic_store_explicit((_Atomic uint8_t *)dst++, *src++, memory_order_release);
}

static void land(struct sim_pcie *p, uint64_t now)
{
	struct sim_pcie_write *w = &p->wr[p->wr_landed % SIM_PCIE_WRITES];
	uint8_t *dst;

	if (w->resp == SIM_AXI_OKAY) {
		dst = sim_iommu_translate(p->iommu, w->addr, w->bytes, true);
		if (!dst) {
			sim_iommu_fault(p->iommu, w->addr, w->bytes, true, now);
			sim_log(HROCE_SIM_LOG_WARN,
				"cycle %llu: DMA write to 0x%llx (%u bytes) unmapped while in "
				"flight: dropped",
				(unsigned long long)now, (unsigned long long)w->addr, w->bytes);
		}
		for (unsigned int k = 0; dst && k < w->beats; k++) {
			const struct sim_pcie_beat *b =
				&p->beats[(w->first + k) & (p->beats_cap - 1)];
			unsigned int lo, hi;
			uint64_t baddr, lanes, mask;
			uint8_t *d;

			burst_beat(w->addr, w->size, k, &baddr, &lo, &hi);
			lanes = lanes_mask(lo, hi);
			mask = b->strb & lanes;
			d = dst + (baddr - w->addr); /* where lane lo lands */
			if (mask == lanes) {
				store_ordered(d, b->data + lo, hi - lo + 1);
				continue;
			}
			while (mask) {
				unsigned int l = (unsigned int)__builtin_ctzll(mask);

				atomic_store_explicit((_Atomic uint8_t *)&d[l - lo], b->data[l],
						      memory_order_release);
				mask &= mask - 1;
			}
		}
		p->write_bytes += w->bytes;
	}
	p->beats_freed += w->beats;
	p->wr_landed++;
	event(p, HROCE_SIM_DMA_WRITE_DONE, now, w->addr, w->bytes);
}

static void accept_write(struct sim_pcie *p, uint64_t now)
{
	struct sim_pcie_write *w = &p->wr[p->wr_tail++ % SIM_PCIE_WRITES];
	unsigned int len = *p->bus.awlen, size = *p->bus.awsize, burst = *p->bus.awburst;

	w->addr = *p->bus.awaddr;
	w->id = *p->bus.awid;
	w->size = (uint8_t)size;
	w->beats = (uint16_t)(len + 1);
	w->first = p->beats_bound;
	p->beats_bound += w->beats;
	p->writes_active++;
	w->resp = burst_check(w->addr, len, size, burst, &w->bytes);
	if (w->resp != SIM_AXI_OKAY) {
		protocol_error(p, now, true, w->addr, len, size, burst, w->bytes);
	} else if (!sim_iommu_translate(p->iommu, w->addr, w->bytes, true)) {
		w->resp = SIM_AXI_DECERR;
		sim_iommu_fault(p->iommu, w->addr, w->bytes, true, now);
	}
	event(p, HROCE_SIM_DMA_WRITE, now, w->addr, w->bytes);
}

static void take_beat(struct sim_pcie *p, uint64_t now)
{
	struct sim_pcie_beat *b = &p->beats[p->beats_in++ & (p->beats_cap - 1)];

	memcpy(b->data, p->bus.wdata, SIM_DATA_BYTES);
	b->strb = *p->bus.wstrb;
	b->last = *p->bus.wlast;
	sim_credit_take(&p->up, now, (uint64_t)__builtin_popcountll(b->strb));
}

/* Bursts that have their AW and all their beats are posted. */
static void post(struct sim_pcie *p, uint64_t now)
{
	while (p->wr_posted < p->wr_tail) {
		struct sim_pcie_write *w = &p->wr[p->wr_posted % SIM_PCIE_WRITES];

		if (p->beats_in < w->first + w->beats)
			break;
		for (unsigned int k = 0; k < w->beats; k++) {
			if (p->beats[(w->first + k) & (p->beats_cap - 1)].last !=
			    (k + 1 == w->beats)) {
				p->protocol_errors++;
				sim_log(HROCE_SIM_LOG_ERR,
					"cycle %llu: AXI write to 0x%llx: WLAST on beat %u of %u",
					(unsigned long long)now, (unsigned long long)w->addr, k,
					w->beats);
				break;
			}
		}
		w->b_due = now + 1;
		w->land = now + (p->t.write_latency ? p->t.write_latency : 1);
		p->wr_posted++;
	}
}

/* ------------------------------------------------------------------------------------- */
/* Reads */

static void accept_read(struct sim_pcie *p, uint64_t now)
{
	uint64_t seq = p->rd_tail++;
	struct sim_pcie_read *r = &p->rd[seq % SIM_PCIE_READS];
	unsigned int len = *p->bus.arlen, size = *p->bus.arsize, burst = *p->bus.arburst;
	uint32_t rtt = 2 * p->t.read_latency;

	r->addr = *p->bus.araddr;
	r->id = *p->bus.arid;
	r->size = (uint8_t)size;
	r->beats = (uint16_t)(len + 1);
	r->sent = 0;
	r->done = false;
	r->snap = now + p->t.read_latency;
	r->ready = now + (rtt ? rtt : 1);
	r->posted_before = p->wr_posted;
	r->next_same_id = SIM_PCIE_NONE;
	p->reads_active++;
	r->resp = burst_check(r->addr, len, size, burst, &r->bytes);
	if (r->resp != SIM_AXI_OKAY)
		protocol_error(p, now, false, r->addr, len, size, burst, r->bytes);
	if (p->id_head[r->id] == SIM_PCIE_NONE)
		p->id_head[r->id] = seq;
	else
		p->rd[p->id_tail[r->id] % SIM_PCIE_READS].next_same_id = seq;
	p->id_tail[r->id] = seq;
	event(p, HROCE_SIM_DMA_READ, now, r->addr, r->bytes);
}

/* The request reaches the host: memory is read now, after the writes posted before it. */
static void snapshot(struct sim_pcie *p, uint64_t now)
{
	uint64_t slot = p->rd_snap++ % SIM_PCIE_READS;
	struct sim_pcie_read *r = &p->rd[slot];
	const uint8_t *src;

	while (p->wr_landed < r->posted_before)
		land(p, now);
	if (r->resp != SIM_AXI_OKAY)
		return;
	src = sim_iommu_translate(p->iommu, r->addr, r->bytes, false);
	if (!src) {
		r->resp = SIM_AXI_DECERR;
		sim_iommu_fault(p->iommu, r->addr, r->bytes, false, now);
		return;
	}
	memcpy(p->rd_data[slot], src, r->bytes);
	p->read_bytes += r->bytes;
}

/*
 * The next burst on R: round robin, from the one after the last served, over the bursts
 * whose data is back and that are the oldest of their ID. Data comes back in AR order, so
 * those are among a prefix of the bursts in flight.
 */
static void pick(struct sim_pcie *p, uint64_t now)
{
	uint64_t end = p->rd_head, begin, n;

	while (end < p->rd_snap && p->rd[end % SIM_PCIE_READS].ready <= now)
		end++;
	n = end - p->rd_head;
	if (!n)
		return;
	begin = p->r_last != SIM_PCIE_NONE && p->r_last + 1 > p->rd_head && p->r_last + 1 < end
			? p->r_last + 1
			: p->rd_head;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t seq = begin + i < end ? begin + i : begin + i - n;
		const struct sim_pcie_read *r = &p->rd[seq % SIM_PCIE_READS];

		if (!r->done && p->id_head[r->id] == seq) {
			p->r_cur = p->r_last = seq;
			p->r_chunk = p->t.chunk_beats;
			return;
		}
	}
}

static void present_beat(struct sim_pcie *p, uint64_t now)
{
	uint64_t slot = p->r_cur % SIM_PCIE_READS;
	const struct sim_pcie_read *r = &p->rd[slot];
	uint8_t *d = (uint8_t *)p->bus.rdata;
	unsigned int lo, hi;
	uint64_t baddr;

	burst_beat(r->addr, r->size, r->sent, &baddr, &lo, &hi);
	memset(d, 0, SIM_DATA_BYTES);
	if (r->resp == SIM_AXI_OKAY)
		memcpy(d + lo, p->rd_data[slot] + (baddr - r->addr), hi - lo + 1);
	*p->bus.rid = r->id;
	*p->bus.rresp = r->resp;
	*p->bus.rlast = r->sent + 1 == r->beats;
	*p->bus.rvalid = 1;
	p->r_presented = true;
	sim_credit_take(&p->down, now, hi - lo + 1);
}

static void beat_taken(struct sim_pcie *p, uint64_t now)
{
	struct sim_pcie_read *r = &p->rd[p->r_cur % SIM_PCIE_READS];

	p->r_presented = false;
	p->r_chunk--;
	if (++r->sent < r->beats) {
		if (!p->r_chunk)
			p->r_cur = SIM_PCIE_NONE;
		return;
	}
	r->done = true;
	p->reads_active--;
	p->id_head[r->id] = r->next_same_id;
	if (r->next_same_id == SIM_PCIE_NONE)
		p->id_tail[r->id] = SIM_PCIE_NONE;
	p->r_cur = SIM_PCIE_NONE;
	while (p->rd_head < p->rd_snap && p->rd[p->rd_head % SIM_PCIE_READS].done)
		p->rd_head++;
	event(p, HROCE_SIM_DMA_READ_DONE, now, r->addr, r->bytes);
}

/* ------------------------------------------------------------------------------------- */

bool sim_pcie_irq(struct sim_pcie *p, uint64_t now, unsigned int vector)
{
	struct sim_pcie_irq *irq;

	if (!sim_pcie_irq_room(p))
		return false;
	irq = &p->irqs[p->irq_tail++ % SIM_PCIE_IRQS];
	irq->due = now + (p->t.write_latency ? p->t.write_latency : 1);
	irq->posted_before = p->wr_posted;
	irq->vector = vector;
	return true;
}

void sim_pcie_drive(struct sim_pcie *p, uint64_t now)
{
	const struct sim_axi_bus *bus = &p->bus;

	/*
	 * A beat taken last cycle leaves R and B only now: a Verilated master takes it at the
	 * clock edge that follows sim_pcie_sample(), and must still see it valid then.
	 */
	if (!p->r_presented)
		*bus->rvalid = 0;
	if (!p->b_presented)
		*bus->bvalid = 0;
	if (!sim_pcie_busy(p) && *bus->arready && *bus->awready && *bus->wready)
		return;
	while (p->wr_landed < p->wr_posted && p->wr[p->wr_landed % SIM_PCIE_WRITES].land <= now)
		land(p, now);
	while (p->irq_head != p->irq_tail && p->irqs[p->irq_head % SIM_PCIE_IRQS].due <= now) {
		const struct sim_pcie_irq *irq = &p->irqs[p->irq_head++ % SIM_PCIE_IRQS];

		while (p->wr_landed < irq->posted_before)
			land(p, now);
		if (p->hooks.irq)
			p->hooks.irq(p->hooks.ctx, irq->vector, now);
	}
	while (p->rd_snap < p->rd_tail && p->rd[p->rd_snap % SIM_PCIE_READS].snap <= now)
		snapshot(p, now);

	if (!p->b_presented && p->wr_answered < p->wr_posted &&
	    p->wr[p->wr_answered % SIM_PCIE_WRITES].b_due <= now) {
		const struct sim_pcie_write *w = &p->wr[p->wr_answered % SIM_PCIE_WRITES];

		*bus->bid = w->id;
		*bus->bresp = w->resp;
		*bus->bvalid = 1;
		p->b_presented = true;
	}
	if (!p->r_presented) {
		if (p->r_cur == SIM_PCIE_NONE && p->rd_head != p->rd_snap)
			pick(p, now);
		if (p->r_cur != SIM_PCIE_NONE && sim_credit_ok(&p->down, now))
			present_beat(p, now);
	}
	*bus->arready =
		p->rd_tail - p->rd_head < SIM_PCIE_READS && p->reads_active < p->t.max_reads;
	*bus->awready =
		p->wr_tail - (p->wr_answered < p->wr_landed ? p->wr_answered : p->wr_landed) <
			SIM_PCIE_WRITES &&
		p->writes_active < p->t.max_writes;
	*bus->wready = p->beats_in - p->beats_freed < p->beats_cap && sim_credit_ok(&p->up, now);
}

void sim_pcie_sample(struct sim_pcie *p, uint64_t now)
{
	const struct sim_axi_bus *bus = &p->bus;

	if (!sim_pcie_busy(p) && !*bus->arvalid && !*bus->awvalid && !*bus->wvalid)
		return;
	if (*bus->arvalid && *bus->arready)
		accept_read(p, now);
	if (p->r_presented && *bus->rready)
		beat_taken(p, now);
	if (*bus->awvalid && *bus->awready)
		accept_write(p, now);
	if (*bus->wvalid && *bus->wready)
		take_beat(p, now);
	if (p->b_presented && *bus->bready) {
		p->wr_answered++;
		p->writes_active--;
		p->b_presented = false;
	}
	post(p, now);
}
