// SPDX-License-Identifier: MIT
/*
 * Bench of dma_rd and dma_wr, the DMA engines, behind the PCIe host-memory model.
 *
 * The engines' AXI4 channels go to sim_pcie (the platform's host memory and IOMMU: process
 * memory behind an IOVA table, latency, bandwidth, R data interleaved across IDs, DECERR on
 * an unmapped page); C agents drive every client: random requests (addresses anywhere,
 * lengths up to ~9 KB crossing pages, packets for the streams), idle cycles on every valid
 * and back-pressure on every ready. A C model of each client is the scoreboard:
 * - reads: every output beat against the bytes of host memory (packed into the byte
 *   stream for stream clients), tkeep, tlast, tuser (set on the last beat of a request or
 *   packet that touched an unmapped page, never on a clean one); every AR must be the next
 *   piece of its client's oldest request (ID = client), never crossing 4 KiB; R is never
 *   refused;
 * - writes: host memory against a shadow after every round (the bytes of every request,
 *   and nothing else: memory is random, bytes outside the requests must not change), one
 *   completion per request in order with its error (an unmapped page), every AW the next
 *   piece of its client's oldest request and only once all its bytes were given (store
 *   and forward), W beats of a burst back to back.
 * Directed tests: a stream client and an aligned one that stop taking data (or giving it)
 * for a long time while the others must finish, round robin (with every client waiting,
 * each gets one burst in every CLIENTS), errors, the latency of a lone read and a lone
 * write; and figures: the bandwidth of one stream client reading and writing 64 KiB in
 * 4 KiB pieces with a 200 ns one-way latency at 250 MHz. The random and blocking tests run
 * again on "tiny" builds (smallest buffers, fewest bursts in flight; names end in _tiny).
 *
 * sim_axi_bus_bind() wants all five AXI channels; each engine has only its half, so the
 * bench binds that half itself and leaves the other on idle wires.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "sim_pcie.h"

extern const struct vmodel_ops vmodel_Vdma_rd_t, vmodel_Vdma_rd_tiny, vmodel_Vdma_wr_t,
	vmodel_Vdma_wr_tiny;

#define MHZ 250
#define PAGE 4096u
#define BEAT 64u
/* host memory: 2 MiB behind IOVA_BASE, but for an unmapped hole; it straddles 4 GiB */
#define HOST_BYTES (2u << 20)
#define HOLE_OFF (1u << 20)
#define HOLE_BYTES (16u << 10)
#define IOVA_BASE UINT64_C(0x00123456fff80000)
#define MAX_LEN 9000u
#define HANG_CYCLES 20000

/* the models' configurations (Makefile) */
#define RD_CLIENTS 6
static const bool rd_stream[RD_CLIENTS] = { false, false, false, true, true, true };
#define WR_CLIENTS 6
static const unsigned int wr_align[WR_CLIENTS] = { 0, 0, 5, 5, 6, 6 };

/* ===================================================================================== */
/* Helpers */

/* A FIFO of fixed-size elements. */
struct queue {
	uint8_t *buf;
	size_t esz, head, tail, cap;
};

static void q_init(struct queue *q, size_t esz)
{
	memset(q, 0, sizeof(*q));
	q->esz = esz;
}

static void q_free(struct queue *q)
{
	free(q->buf);
	q->buf = NULL;
	q->head = q->tail = q->cap = 0;
}

static size_t q_len(const struct queue *q)
{
	return q->tail - q->head;
}

static void *q_at(const struct queue *q, size_t i)
{
	return q->buf + (q->head + i) * q->esz;
}

static void *q_front(const struct queue *q)
{
	return q_len(q) ? q_at(q, 0) : NULL;
}

static void *q_back(const struct queue *q)
{
	return q_len(q) ? q_at(q, q_len(q) - 1) : NULL;
}

static void q_pop(struct queue *q)
{
	if (++q->head == q->tail)
		q->head = q->tail = 0;
}

static void *q_push(struct queue *q)
{
	if (q->tail == q->cap) {
		if (q->head) {
			memmove(q->buf, q->buf + q->head * q->esz, q_len(q) * q->esz);
			q->tail -= q->head;
			q->head = 0;
		} else {
			size_t cap = q->cap ? 2 * q->cap : 64;
			uint8_t *buf = realloc(q->buf, cap * q->esz);

			if (!buf) {
				perror("realloc");
				exit(1);
			}
			q->buf = buf;
			q->cap = cap;
		}
	}
	return memset(q->buf + q->tail++ * q->esz, 0, q->esz);
}

static uint64_t lanes_below(unsigned int n)
{
	return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
}

static void port_set_bit(const struct vmodel_port *p, unsigned int bit, bool v)
{
	uint8_t *b = p->ptr;

	if (v)
		b[bit / 8] |= (uint8_t)(1u << (bit % 8));
	else
		b[bit / 8] &= (uint8_t) ~(1u << (bit % 8));
}

static bool port_bit(const struct vmodel_port *p, unsigned int bit)
{
	return ((const uint8_t *)p->ptr)[bit / 8] >> (bit % 8) & 1;
}

/* The bytes of slice i of a port made of slices of n bytes. */
static void *port_slice(const struct vmodel_port *p, unsigned int i, size_t n)
{
	return (uint8_t *)p->ptr + i * n;
}

/* ===================================================================================== */
/* Host memory and the AXI slave */

struct host {
	uint8_t *mem; /* what IOVA_BASE maps to (but for the hole) */
	struct sim_iommu mmu;
};

static void host_open(struct host *h, struct bench *b)
{
	int err;

	h->mem = aligned_alloc(PAGE, HOST_BYTES);
	if (!h->mem) {
		perror("aligned_alloc");
		exit(1);
	}
	bench_fill(b, h->mem, HOST_BYTES);
	sim_iommu_init(&h->mmu);
	err = sim_iommu_map(&h->mmu, h->mem, IOVA_BASE, HOLE_OFF);
	err = err
		      ?: sim_iommu_map(&h->mmu, h->mem + HOLE_OFF + HOLE_BYTES,
				       IOVA_BASE + HOLE_OFF + HOLE_BYTES,
				       HOST_BYTES - HOLE_OFF - HOLE_BYTES);
	if (err) {
		fprintf(stderr, "sim_iommu_map: %s\n", strerror(err));
		exit(1);
	}
}

static void host_close(struct host *h)
{
	sim_iommu_fini(&h->mmu);
	free(h->mem);
}

static bool host_mapped(uint64_t iova)
{
	uint64_t off = iova - IOVA_BASE;

	return off < HOST_BYTES && (off < HOLE_OFF || off >= HOLE_OFF + HOLE_BYTES);
}

/* Does [iova, iova + len) touch an unmapped page? */
static bool host_faults(uint64_t iova, uint32_t len)
{
	for (uint64_t p = iova & ~(uint64_t)(PAGE - 1); p < iova + len; p += PAGE)
		if (!host_mapped(p))
			return true;
	return false;
}

/*
 * Binds the half of the AXI bus a DMA engine has (read: AR and R, write: AW, W and B) to
 * its ports; the other half points to idle wires. sim_axi_bus_bind() wants all five.
 */
struct sig {
	const char *name;
	unsigned int width;
	bool input;
	void **ptr;
};

#define SIG(bus, field, width, input)                        \
	{                                                    \
#field, width, input, (void **)&(bus)->field \
	}

static void axi_bind_half(struct sim_axi_bus *bus, struct sim_axi_wires *idle, struct dut *d,
			  bool read)
{
	const struct sig rd[] = {
		SIG(bus, arid, 8, false),    SIG(bus, araddr, 64, false),
		SIG(bus, arlen, 8, false),   SIG(bus, arsize, 3, false),
		SIG(bus, arburst, 2, false), SIG(bus, arvalid, 1, false),
		SIG(bus, arready, 1, true),  SIG(bus, rid, 8, true),
		SIG(bus, rdata, 512, true),  SIG(bus, rresp, 2, true),
		SIG(bus, rlast, 1, true),    SIG(bus, rvalid, 1, true),
		SIG(bus, rready, 1, false),
	};
	const struct sig wr[] = {
		SIG(bus, awid, 8, false),    SIG(bus, awaddr, 64, false),
		SIG(bus, awlen, 8, false),   SIG(bus, awsize, 3, false),
		SIG(bus, awburst, 2, false), SIG(bus, awvalid, 1, false),
		SIG(bus, awready, 1, true),  SIG(bus, wdata, 512, false),
		SIG(bus, wstrb, 64, false),  SIG(bus, wlast, 1, false),
		SIG(bus, wvalid, 1, false),  SIG(bus, wready, 1, true),
		SIG(bus, bid, 8, true),	     SIG(bus, bresp, 2, true),
		SIG(bus, bvalid, 1, true),   SIG(bus, bready, 1, false),
	};
	const struct sig *sigs = read ? rd : wr;
	size_t n = read ? sizeof(rd) / sizeof(rd[0]) : sizeof(wr) / sizeof(wr[0]);

	memset(idle, 0, sizeof(*idle));
	sim_axi_bus_wire(bus, idle);
	for (size_t i = 0; i < n; i++) {
		char name[32];
		const struct vmodel_port *p;

		snprintf(name, sizeof(name), "m_axi_%s", sigs[i].name);
		p = dut_port(d, name);

		if (p->width != sigs[i].width || p->input != sigs[i].input) {
			fprintf(stderr, "%s: port %s is not a %u-bit %s\n", d->bench->name, name,
				sigs[i].width, sigs[i].input ? "input" : "output");
			exit(1);
		}
		*sigs[i].ptr = p->ptr;
	}
}

struct axi_env {
	struct sim_axi_bus bus;
	struct sim_axi_wires idle;
	struct sim_pcie pcie;
	bool open;
};

static void axi_timing(struct axi_env *a, struct host *h, uint32_t rl, uint32_t wl, uint32_t gbps,
		       uint32_t chunk)
{
	struct sim_pcie_timing t = {
		.read_latency = rl,
		.write_latency = wl,
		.gbps = gbps,
		.clock_mhz = MHZ,
		.chunk_beats = chunk,
	};
	int err;

	if (a->open)
		sim_pcie_fini(&a->pcie);
	err = sim_pcie_init(&a->pcie, &a->bus, &h->mmu, &t, NULL);
	if (err) {
		fprintf(stderr, "sim_pcie_init: %s\n", strerror(err));
		exit(1);
	}
	a->open = true;
}

/* An AXI burst as the AR/AW monitors check it: the next piece of the client's oldest request. */
struct piece {
	uint64_t addr;
	uint32_t len;
};

/*
 * Checks that a burst is the next piece of the request at the head of reqs (advancing *off)
 * and returns the bytes of the request it covers, 0 with a message in why if it is not.
 */
static uint32_t burst_check(struct queue *reqs, uint32_t *off, uint64_t addr, unsigned int len,
			    unsigned int size, unsigned int burst, char *why, size_t whylen)
{
	const struct piece *r = q_front(reqs);
	uint64_t cur, end, beat_end;

	if (size != 6 || burst != SIM_AXI_BURST_INCR) {
		snprintf(why, whylen, "size %u burst %u", size, burst);
		return 0;
	}
	if (!r) {
		snprintf(why, whylen, "burst 0x%llx with no request", (unsigned long long)addr);
		return 0;
	}
	cur = r->addr + *off;
	end = r->addr + r->len;
	beat_end = (addr & ~(uint64_t)(BEAT - 1)) + (uint64_t)(len + 1) * BEAT;
	if (addr > cur || cur - addr >= BEAT || beat_end - 1 < cur || beat_end >= end + BEAT ||
	    (addr >> 12) != ((beat_end - 1) >> 12)) {
		snprintf(why, whylen,
			 "burst 0x%llx+%u beats is not the next piece of request 0x%llx+%u at %u",
			 (unsigned long long)addr, len + 1, (unsigned long long)r->addr, r->len,
			 *off);
		return 0;
	}
	return (uint32_t)((beat_end < end ? beat_end : end) - cur);
}

/* ===================================================================================== */
/* dma_rd */

struct rd_req {
	struct piece p;
	bool last; /* what s_req_last gets */
	bool err;  /* tuser expected at the end of its request (aligned) or packet (stream) */
};

struct exp_beat {
	uint8_t data[BEAT];
	uint64_t care; /* lanes whose data is known (a mapped page) */
	uint64_t keep;
	bool last, err;
};

struct rd_client {
	unsigned int idx;
	bool stream;
	struct queue todo;   /* requests to offer */
	struct queue accept; /* requests taken, for the AR monitor (struct piece) */
	uint32_t ar_off;
	struct queue exp;    /* beats expected */
	struct exp_beat cur; /* the stream's beat being filled */
	unsigned int fill;
	bool holding; /* s_req_valid up, not taken yet */
	unsigned int idle_pct, ready_pct;
	bool stalled; /* tready low */
	bool prev_stuck;
	uint8_t prev_data[BEAT];
	uint64_t prev_keep;
	uint64_t t_req, t_ar, t_r, t_out; /* cycles of the last events */
	uint64_t t_first_out;		  /* of the first beat out since it was cleared */
	uint64_t beats, bytes;
};

struct rd_env {
	struct bench *b;
	const char *tag; /* the model's, after the tests' names */
	struct dut dut;
	struct host *host;
	struct axi_env axi;
	const struct vmodel_port *req_addr, *req_len, *req_last, *req_valid, *req_ready;
	const struct vmodel_port *tdata, *tkeep, *tvalid, *tready, *tlast, *tuser;
	struct rd_client cl[RD_CLIENTS];
	bool running;
	uint64_t progress; /* handshakes so far */
	unsigned int inflight[RD_CLIENTS], max_inflight, max_inflight_one;
	bool arb_watch; /* every client has a burst waiting: measure the AR gaps */
	uint64_t ars, last_ar[RD_CLIENTS], max_ar_gap;
	char error[400];
};

static void rd_fail(struct rd_env *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rd_fail(struct rd_env *e, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (e->error[0])
		return;
	n = snprintf(e->error, sizeof(e->error), "cycle %llu: ", (unsigned long long)e->dut.cycle);
	va_start(ap, fmt);
	vsnprintf(e->error + n, sizeof(e->error) - (size_t)n, fmt, ap);
	va_end(ap);
}

static void rd_result(struct rd_env *e, const char *test)
{
	char name[64];

	snprintf(name, sizeof(name), "%s%s", test, e->tag);
	bench_result(e->b, name, !e->error[0], "%s", e->error);
}

/* After a failure the model's state is unknown: the tests that follow do not run. */
static bool rd_skip(struct rd_env *e, const char *test)
{
	char name[64];

	if (!e->error[0])
		return false;
	snprintf(name, sizeof(name), "%s%s", test, e->tag);
	bench_result(e->b, name, false, "not run after an earlier failure");
	return true;
}

/* The beats a taken request makes the client output. */
static void rd_expect(struct rd_env *e, struct rd_client *c, const struct rd_req *r)
{
	const uint8_t *mem = e->host->mem;
	bool last = c->stream ? r->last : true;

	for (uint32_t k = 0; k < r->p.len; k++) {
		uint64_t iova = r->p.addr + k;

		c->cur.data[c->fill] = host_mapped(iova) ? mem[iova - IOVA_BASE] : 0;
		if (host_mapped(iova))
			c->cur.care |= UINT64_C(1) << c->fill;
		if (++c->fill == BEAT) {
			struct exp_beat *x = q_push(&c->exp);

			*x = c->cur;
			x->keep = ~UINT64_C(0);
			x->err = r->err;
			memset(&c->cur, 0, sizeof(c->cur));
			c->fill = 0;
		}
	}
	if (!last)
		return;
	if (c->fill) {
		struct exp_beat *x = q_push(&c->exp);

		*x = c->cur;
		x->keep = lanes_below(c->fill);
		x->err = r->err;
		x->last = true;
		memset(&c->cur, 0, sizeof(c->cur));
		c->fill = 0;
	} else {
		/* the request filled its last beat: not taken yet, it was pushed just now */
		((struct exp_beat *)q_back(&c->exp))->last = true;
	}
}

static void rd_drive(void *ctx)
{
	struct rd_env *e = ctx;

	if (e->running)
		sim_pcie_drive(&e->axi.pcie, e->dut.cycle);
	for (unsigned int i = 0; i < RD_CLIENTS; i++) {
		struct rd_client *c = &e->cl[i];
		const struct rd_req *r = q_front(&c->todo);

		if (!c->holding && e->running && r && !bench_chance(e->b, c->idle_pct)) {
			memcpy(port_slice(e->req_addr, i, 8), &r->p.addr, 8);
			memcpy(port_slice(e->req_len, i, 2), &r->p.len, 2);
			/* an aligned client's s_req_last means nothing */
			port_set_bit(e->req_last, i, c->stream ? r->last : bench_chance(e->b, 50));
			c->holding = true;
		}
		port_set_bit(e->req_valid, i, c->holding);
		port_set_bit(e->tready, i,
			     e->running && !c->stalled && bench_chance(e->b, c->ready_pct));
	}
}

static void rd_check_beat(struct rd_env *e, struct rd_client *c)
{
	const uint8_t *data = port_slice(e->tdata, c->idx, BEAT);
	uint64_t keep;
	bool last = port_bit(e->tlast, c->idx), user = port_bit(e->tuser, c->idx);
	const struct exp_beat *x = q_front(&c->exp);

	memcpy(&keep, port_slice(e->tkeep, c->idx, 8), 8);
	if (!x) {
		rd_fail(e, "client %u: a beat with none expected", c->idx);
		return;
	}
	if (keep != x->keep || last != x->last) {
		rd_fail(e, "client %u beat %llu: tkeep %016llx tlast %d, expected %016llx %d",
			c->idx, (unsigned long long)c->beats, (unsigned long long)keep, last,
			(unsigned long long)x->keep, x->last);
		return;
	}
	if (x->last ? user != x->err : user && !x->err) {
		rd_fail(e, "client %u beat %llu: tuser %d, expected %d%s", c->idx,
			(unsigned long long)c->beats, user, x->err,
			x->last ? "" : " (or 0 before the last beat)");
		return;
	}
	for (unsigned int l = 0; l < BEAT; l++) {
		if ((keep & x->care) >> l & 1 && data[l] != x->data[l]) {
			rd_fail(e, "client %u beat %llu lane %u: 0x%02x, expected 0x%02x", c->idx,
				(unsigned long long)c->beats, l, data[l], x->data[l]);
			return;
		}
	}
	c->beats++;
	c->bytes += (unsigned int)__builtin_popcountll(keep);
	c->t_out = e->dut.cycle;
	if (!c->t_first_out)
		c->t_first_out = e->dut.cycle;
	q_pop(&c->exp);
}

static void rd_sample(void *ctx)
{
	struct rd_env *e = ctx;
	const struct sim_axi_bus *bus = &e->axi.bus;

	if (*bus->arvalid && *bus->arready) {
		unsigned int id = *bus->arid;
		char why[200];

		if (id >= RD_CLIENTS) {
			rd_fail(e, "ARID %u", id);
		} else {
			struct rd_client *c = &e->cl[id];
			uint32_t n = burst_check(&c->accept, &c->ar_off, *bus->araddr, *bus->arlen,
						 *bus->arsize, *bus->arburst, why, sizeof(why));

			if (!n) {
				rd_fail(e, "client %u AR: %s", id, why);
			} else if ((c->ar_off += n) == ((struct piece *)q_front(&c->accept))->len) {
				q_pop(&c->accept);
				c->ar_off = 0;
			}
			c->t_ar = e->dut.cycle;
			e->progress++;
			e->ars++;
			if (e->arb_watch && e->last_ar[id] &&
			    e->ars - e->last_ar[id] > e->max_ar_gap)
				e->max_ar_gap = e->ars - e->last_ar[id];
			e->last_ar[id] = e->ars;
			e->inflight[id]++;
			unsigned int total = 0;

			for (unsigned int i = 0; i < RD_CLIENTS; i++)
				total += e->inflight[i];
			if (total > e->max_inflight)
				e->max_inflight = total;
			if (e->inflight[id] > e->max_inflight_one)
				e->max_inflight_one = e->inflight[id];
		}
	}
	if (*bus->rvalid) {
		if (!*bus->rready)
			rd_fail(e, "rready low with a beat on R");
		else if (*bus->rid < RD_CLIENTS) {
			e->cl[*bus->rid].t_r = e->dut.cycle;
			if (*bus->rlast)
				e->inflight[*bus->rid]--;
		}
	}
	if (e->running)
		sim_pcie_sample(&e->axi.pcie, e->dut.cycle);

	for (unsigned int i = 0; i < RD_CLIENTS; i++) {
		struct rd_client *c = &e->cl[i];
		bool valid = port_bit(e->tvalid, i), ready = port_bit(e->tready, i);

		if (c->holding && port_bit(e->req_ready, i)) {
			const struct rd_req *r = q_front(&c->todo);
			struct piece *p = q_push(&c->accept);

			*p = r->p;
			rd_expect(e, c, r);
			q_pop(&c->todo);
			c->holding = false;
			c->t_req = e->dut.cycle;
			e->progress++;
		}
		if (c->prev_stuck) {
			uint64_t keep;

			memcpy(&keep, port_slice(e->tkeep, i, 8), 8);
			if (!valid || keep != c->prev_keep ||
			    memcmp(c->prev_data, port_slice(e->tdata, i, BEAT), BEAT))
				rd_fail(e, "client %u: beat changed before it was taken", i);
		}
		c->prev_stuck = valid && !ready;
		if (c->prev_stuck) {
			memcpy(c->prev_data, port_slice(e->tdata, i, BEAT), BEAT);
			memcpy(&c->prev_keep, port_slice(e->tkeep, i, 8), 8);
		}
		if (valid && ready) {
			rd_check_beat(e, c);
			e->progress++;
		}
	}
}

static void rd_open(struct rd_env *e, struct bench *b, struct host *h, const struct vmodel_ops *ops,
		    const char *tag)
{
	struct dut *d = &e->dut;

	memset(e, 0, sizeof(*e));
	e->b = b;
	e->tag = tag;
	e->host = h;
	dut_open(d, b, ops);
	e->req_addr = dut_port(d, "s_req_addr");
	e->req_len = dut_port(d, "s_req_len");
	e->req_last = dut_port(d, "s_req_last");
	e->req_valid = dut_port(d, "s_req_valid");
	e->req_ready = dut_port(d, "s_req_ready");
	e->tdata = dut_port(d, "m_axis_tdata");
	e->tkeep = dut_port(d, "m_axis_tkeep");
	e->tvalid = dut_port(d, "m_axis_tvalid");
	e->tready = dut_port(d, "m_axis_tready");
	e->tlast = dut_port(d, "m_axis_tlast");
	e->tuser = dut_port(d, "m_axis_tuser");
	axi_bind_half(&e->axi.bus, &e->axi.idle, d, true);
	axi_timing(&e->axi, h, 0, 0, 0, 0);
	for (unsigned int i = 0; i < RD_CLIENTS; i++) {
		struct rd_client *c = &e->cl[i];

		c->idx = i;
		c->stream = rd_stream[i];
		q_init(&c->todo, sizeof(struct rd_req));
		q_init(&c->accept, sizeof(struct piece));
		q_init(&c->exp, sizeof(struct exp_beat));
		c->ready_pct = 100;
	}
	dut_add_agent(d, rd_drive, rd_sample, e);
	dut_reset(d, 8);
	e->running = true;
}

static void rd_close(struct rd_env *e)
{
	for (unsigned int i = 0; i < RD_CLIENTS; i++) {
		q_free(&e->cl[i].todo);
		q_free(&e->cl[i].accept);
		q_free(&e->cl[i].exp);
	}
	sim_pcie_fini(&e->axi.pcie);
	dut_close(&e->dut);
}

static bool rd_client_idle(const struct rd_client *c)
{
	return !q_len(&c->todo) && !q_len(&c->exp) && !c->holding;
}

/* Steps until the clients in mask are idle: false on a failure or a hang. */
static bool rd_run(struct rd_env *e, unsigned int mask)
{
	uint64_t last = e->progress, quiet = 0;

	for (;;) {
		unsigned int i; /* a client in mask with work left */

		for (i = 0; i < RD_CLIENTS; i++)
			if (mask >> i & 1 && !rd_client_idle(&e->cl[i]))
				break;
		if (i == RD_CLIENTS || e->error[0])
			break;
		dut_step(&e->dut);
		quiet = e->progress != last ? 0 : quiet + 1;
		last = e->progress;
		if (quiet > HANG_CYCLES)
			rd_fail(e, "hang: client %u has %zu requests and %zu beats to go", i,
				q_len(&e->cl[i].todo), q_len(&e->cl[i].exp));
	}
	return !e->error[0];
}

/* Lets the last responses drain (with every client idle, nothing may come out). */
static bool rd_settle(struct rd_env *e)
{
	for (unsigned int k = 0; k < 300 && !e->error[0]; k++)
		dut_step(&e->dut);
	if (!e->error[0] && sim_pcie_busy(&e->axi.pcie))
		rd_fail(e, "bursts still in flight with every request answered");
	if (!e->error[0] && e->axi.pcie.protocol_errors)
		rd_fail(e, "%llu AXI protocol errors",
			(unsigned long long)e->axi.pcie.protocol_errors);
	return !e->error[0];
}

static uint32_t rand_len(struct bench *b)
{
	switch (bench_range(b, 0, 3)) {
	case 0:
		return (uint32_t)bench_range(b, 1, 80);
	case 1:
		return (uint32_t)bench_range(b, 1, 1100);
	case 2:
		return (uint32_t)bench_range(b, 1000, 4200);
	default:
		return (uint32_t)bench_range(b, 1, MAX_LEN);
	}
}

/*
 * An address for len bytes: anywhere in host memory, now and then at the hole's edges (or
 * never in the hole, without faults).
 */
static uint64_t rand_addr(struct bench *b, uint32_t len, unsigned int align_log, bool faults)
{
	uint64_t off;

	if (faults && bench_chance(b, 6)) {
		off = bench_chance(b, 50) ? HOLE_OFF - bench_range(b, 1, len + 200)
					  : HOLE_OFF + HOLE_BYTES - bench_range(b, 0, len);
		if (off + len > HOST_BYTES)
			off = 0;
	} else {
		do
			off = bench_range(b, 0, HOST_BYTES - len) &
			      ~((UINT64_C(1) << align_log) - 1);
		while (!faults && host_faults(IOVA_BASE + off, len));
	}
	off &= ~((UINT64_C(1) << align_log) - 1);
	return IOVA_BASE + off;
}

/* Random requests for a client: aligned ones, or packets of 1 to 4 pieces for a stream. */
static void rd_gen(struct rd_env *e, struct rd_client *c, unsigned int n, bool faults)
{
	struct bench *b = e->b;

	for (unsigned int k = 0; k < n;) {
		if (!c->stream) {
			struct rd_req *r = q_push(&c->todo);
			uint32_t beats = bench_chance(b, 70)
						 ? (uint32_t)bench_range(b, 1, 8)
						 : (uint32_t)bench_range(b, 1, MAX_LEN / BEAT);

			r->p.len = beats * BEAT;
			r->p.addr = rand_addr(b, r->p.len, 6, faults);
			r->err = host_faults(r->p.addr, r->p.len);
			r->last = true;
			k++;
			continue;
		}
		unsigned int pieces = (unsigned int)bench_range(b, 1, 4);
		size_t first = q_len(&c->todo);
		bool err = false;

		for (unsigned int p = 0; p < pieces; p++, k++) {
			struct rd_req *r = q_push(&c->todo);

			r->p.len = rand_len(b);
			r->p.addr = rand_addr(b, r->p.len, 0, faults);
			r->last = p + 1 == pieces;
			err |= host_faults(r->p.addr, r->p.len);
		}
		for (size_t i = first; i < q_len(&c->todo); i++)
			((struct rd_req *)q_at(&c->todo, i))->err = err;
	}
}

static void rd_traffic(struct rd_env *e, unsigned int idle_pct, unsigned int ready_pct)
{
	for (unsigned int i = 0; i < RD_CLIENTS; i++) {
		e->cl[i].idle_pct = (unsigned int)bench_range(e->b, 0, idle_pct);
		e->cl[i].ready_pct = (unsigned int)bench_range(e->b, ready_pct, 100);
	}
}

/* Random traffic on every client, with errors, under several bus timings. */
static void rd_test_random(struct rd_env *e)
{
	struct bench *b = e->b;
	unsigned int rounds = b->quick ? 2 : 12;
	static const uint32_t latency[] = { 0, 4, 60, 150 };

	if (rd_skip(e, "rd_random"))
		return;
	for (unsigned int r = 0; r < rounds && !e->error[0]; r++) {
		/* the first round at full speed, then idle cycles, back-pressure, a slow bus */
		axi_timing(&e->axi, e->host, latency[r % 4], 0, r % 4 == 2 ? 100 : 0,
			   (uint32_t)bench_range(b, 1, 8));
		rd_traffic(e, r == 0 ? 0 : 60, r == 0 ? 100 : 30);
		for (unsigned int i = 0; i < RD_CLIENTS; i++)
			rd_gen(e, &e->cl[i], b->quick ? 12 : 40, true);
		if (r == 0) {
			/* one request of an aligned and of a stream client into the hole */
			struct rd_req *x = q_push(&e->cl[1].todo);

			*x = (struct rd_req){ { IOVA_BASE + HOLE_OFF - 128, 256 }, true, true };
			x = q_push(&e->cl[4].todo);
			*x = (struct rd_req){ { IOVA_BASE + HOLE_OFF + HOLE_BYTES - 5, 300 },
					      true,
					      true };
		}
		if (rd_run(e, 0x3f))
			rd_settle(e);
	}
	rd_result(e, "rd_random");
	bench_log(b, "rd_random%s: %llu beats out; bursts in flight up to %u (%u of one client)",
		  e->tag,
		  (unsigned long long)(e->cl[0].beats + e->cl[1].beats + e->cl[2].beats +
				       e->cl[3].beats + e->cl[4].beats + e->cl[5].beats),
		  e->max_inflight, e->max_inflight_one);
}

/*
 * A stream client and an aligned one stop taking data with much more read than their
 * buffers hold: the others must still get all theirs.
 */
static void rd_test_blocked(struct rd_env *e)
{
	struct bench *b = e->b;
	struct rd_client *s = &e->cl[3], *a = &e->cl[0];

	if (rd_skip(e, "rd_blocked_client"))
		return;
	axi_timing(&e->axi, e->host, 60, 0, 0, 4);
	rd_traffic(e, 30, 50);
	s->stalled = a->stalled = true;
	for (unsigned int k = 0; k < 24; k++) {
		struct rd_req *r = q_push(&s->todo);

		r->p.len = 4096;
		r->p.addr = rand_addr(b, r->p.len, 0, false);
		r->last = true;
		r = q_push(&a->todo);
		r->p.len = 1024;
		r->p.addr = rand_addr(b, r->p.len, 6, false);
		r->last = true;
	}
	for (unsigned int i = 1; i < RD_CLIENTS; i++)
		if (i != 3)
			rd_gen(e, &e->cl[i], b->quick ? 10 : 25, false);
	if (rd_run(e, 0x36)) {
		if (!q_len(&s->exp) || !q_len(&a->exp))
			rd_fail(e, "the blocked clients had nothing left to give");
		s->stalled = a->stalled = false;
		if (rd_run(e, 0x3f))
			rd_settle(e);
	}
	rd_result(e, "rd_blocked_client");
}

/*
 * Round robin: every client always has a one-beat burst to issue (short reads, data taken
 * at once, no latency), so each must get one AR in every CLIENTS.
 */
static void rd_test_arbitration(struct rd_env *e)
{
	unsigned int n = 300;

	if (rd_skip(e, "rd_round_robin"))
		return;
	axi_timing(&e->axi, e->host, 0, 0, 0, 0);
	rd_traffic(e, 0, 100);
	for (unsigned int i = 0; i < RD_CLIENTS; i++) {
		for (unsigned int k = 0; k < n; k++) {
			struct rd_req *r = q_push(&e->cl[i].todo);

			r->p.addr = IOVA_BASE + (i * n + k) * BEAT;
			r->p.len = BEAT;
			r->last = true;
		}
	}
	e->max_ar_gap = 0;
	memset(e->last_ar, 0, sizeof(e->last_ar));
	for (unsigned int k = 0; k < 40; k++) /* let every client start */
		dut_step(&e->dut);
	e->arb_watch = true;
	while (!e->error[0]) {
		unsigned int i;

		for (i = 0; i < RD_CLIENTS && q_len(&e->cl[i].todo) > 10; i++)
			;
		if (i < RD_CLIENTS)
			break;
		dut_step(&e->dut);
	}
	e->arb_watch = false;
	for (unsigned int i = 0; i < RD_CLIENTS; i++) /* and one starved until now */
		if (e->ars - e->last_ar[i] + 1 > e->max_ar_gap)
			e->max_ar_gap = e->ars - e->last_ar[i] + 1;
	bench_log(e->b, "rd_round_robin: every client got an AR in every %llu at most",
		  (unsigned long long)e->max_ar_gap);
	if (e->max_ar_gap > RD_CLIENTS)
		rd_fail(e, "a client waited %llu ARs for its turn, with every client waiting",
			(unsigned long long)e->max_ar_gap);
	if (rd_run(e, 0x3f))
		rd_settle(e);
	rd_result(e, "rd_round_robin");
}

/* A lone 64-byte read: cycles from the request to AR and from R to the data out. */
static void rd_test_latency(struct rd_env *e)
{
	struct bench *b = e->b;
	struct rd_client *c = &e->cl[0], *s = &e->cl[3];
	struct rd_req *r;
	uint64_t ar, data, total, s_ar, s_data;

	if (rd_skip(e, "rd_latency"))
		return;
	axi_timing(&e->axi, e->host, 50, 0, 0, 0);
	rd_traffic(e, 0, 100);
	r = q_push(&c->todo);
	*r = (struct rd_req){ { IOVA_BASE + 0x1000, 64 }, true, false };
	if (!rd_run(e, 1u << 0) || !rd_settle(e))
		goto out;
	ar = c->t_ar - c->t_req;
	data = c->t_out - c->t_r;
	total = c->t_out - c->t_req;
	r = q_push(&s->todo);
	*r = (struct rd_req){ { IOVA_BASE + 0x2013, 40 }, true, false };
	if (!rd_run(e, 1u << 3) || !rd_settle(e))
		goto out;
	s_ar = s->t_ar - s->t_req;
	s_data = s->t_out - s->t_r;
	bench_log(b,
		  "lone 64-byte read (aligned client): AR %llu cycles after the request, data %llu "
		  "after R, %llu in all (2 x 50 cycles in PCIe); stream client: AR %llu, data %llu",
		  (unsigned long long)ar, (unsigned long long)data, (unsigned long long)total,
		  (unsigned long long)s_ar, (unsigned long long)s_data);
	if (ar > 2 || data > 2 || s_ar > 2 || s_data > 2)
		rd_fail(e,
			"AR %llu/%llu cycles after the request, data %llu/%llu after R (2 at most)",
			(unsigned long long)ar, (unsigned long long)s_ar, (unsigned long long)data,
			(unsigned long long)s_data);
out:
	rd_result(e, "rd_latency");
}

/* Figure: one stream client reading 64 KiB in 4 KiB requests, 200 ns away at 250 MHz. */
static void rd_bench_bandwidth(struct rd_env *e)
{
	struct bench *b = e->b;
	struct rd_client *s = &e->cl[3];
	double bpc[2], stream[2];

	if (rd_skip(e, "rd_bandwidth"))
		return;
	for (unsigned int k = 0; k < 2; k++) {
		uint64_t start = e->dut.cycle, bytes = s->bytes;

		axi_timing(&e->axi, e->host, 50, 0, 0, 0);
		rd_traffic(e, 0, 100);
		s->t_first_out = 0;
		for (unsigned int i = 0; i < 16; i++) {
			struct rd_req *r = q_push(&s->todo);

			r->p.addr = IOVA_BASE + 0x40000 + i * 4096 + k * 3;
			r->p.len = 4096;
			r->last = true;
		}
		if (!rd_run(e, 1u << 3))
			break;
		bpc[k] = (double)(s->bytes - bytes) / (double)(s->t_out + 1 - start);
		stream[k] = (double)(s->bytes - bytes) / (double)(s->t_out + 1 - s->t_first_out);
		if (!rd_settle(e))
			break;
	}
	if (!e->error[0])
		bench_log(
			b,
			"bandwidth: one stream client reads 64 KiB in 4 KiB requests at %.1f "
			"bytes/cycle (%.1f Gb/s at %u MHz; %.1f at unaligned addresses), request to "
			"last byte with 2 x 200 ns of PCIe latency; first to last byte out: %.1f "
			"(%.1f unaligned)",
			bpc[0], bpc[0] * 8 * MHZ / 1000, MHZ, bpc[1], stream[0], stream[1]);
	rd_result(e, "rd_bandwidth");
}

/* ===================================================================================== */
/* dma_wr */

struct wr_req {
	struct piece p;
	bool err;
	uint64_t stream_off; /* its first byte in the client's stream (packets end to end) */
};

struct wr_pkt {
	uint8_t *data;
	uint32_t len, sent;
};

struct wr_client {
	unsigned int idx, align;
	struct queue todo;   /* requests to offer (struct wr_req) */
	struct queue accept; /* taken, for the AW monitor (struct piece) */
	struct queue offs;   /* their stream offsets (uint64_t) */
	uint32_t aw_off;
	struct queue done; /* taken, completions expected (struct wr_req) */
	struct queue pkts; /* packets to give */
	uint64_t stream_gen, stream_sent;
	bool req_holding, data_holding;
	unsigned int idle_pct, data_idle_pct;
	bool data_stalled;
	uint64_t data_stall_after; /* stall the data once this many bytes went */
	uint64_t t_req, t_data, t_aw, t_done;
	uint64_t dones;
};

struct wr_env {
	struct bench *b;
	const char *tag;
	struct dut dut;
	struct host *host;
	struct axi_env axi;
	uint8_t *shadow; /* host memory as it must be once every write landed */
	uint64_t alloc;	 /* the next free offset of host memory for writes */
	const struct vmodel_port *req_addr, *req_len, *req_valid, *req_ready;
	const struct vmodel_port *tdata, *tkeep, *tvalid, *tready, *tlast;
	const struct vmodel_port *done_valid, *done_error;
	struct wr_client cl[WR_CLIENTS];
	bool running;
	bool w_in_burst;
	bool arb_watch;
	uint64_t aws, last_aw[WR_CLIENTS], max_aw_gap;
	uint64_t progress;
	uint64_t t_w, t_w_first; /* the last W beat, the first since t_w_first was cleared */
	char error[400];
};

static void wr_fail(struct wr_env *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void wr_fail(struct wr_env *e, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (e->error[0])
		return;
	n = snprintf(e->error, sizeof(e->error), "cycle %llu: ", (unsigned long long)e->dut.cycle);
	va_start(ap, fmt);
	vsnprintf(e->error + n, sizeof(e->error) - (size_t)n, fmt, ap);
	va_end(ap);
}

static void wr_result(struct wr_env *e, const char *test)
{
	char name[64];

	snprintf(name, sizeof(name), "%s%s", test, e->tag);
	bench_result(e->b, name, !e->error[0], "%s", e->error);
}

static bool wr_skip(struct wr_env *e, const char *test)
{
	char name[64];

	if (!e->error[0])
		return false;
	snprintf(name, sizeof(name), "%s%s", test, e->tag);
	bench_result(e->b, name, false, "not run after an earlier failure");
	return true;
}

static void wr_drive(void *ctx)
{
	struct wr_env *e = ctx;

	if (e->running)
		sim_pcie_drive(&e->axi.pcie, e->dut.cycle);
	for (unsigned int i = 0; i < WR_CLIENTS; i++) {
		struct wr_client *c = &e->cl[i];
		const struct wr_req *r = q_front(&c->todo);
		const struct wr_pkt *p = q_front(&c->pkts);

		if (!c->req_holding && e->running && r && !bench_chance(e->b, c->idle_pct)) {
			memcpy(port_slice(e->req_addr, i, 8), &r->p.addr, 8);
			memcpy(port_slice(e->req_len, i, 2), &r->p.len, 2);
			c->req_holding = true;
		}
		port_set_bit(e->req_valid, i, c->req_holding);

		if (c->data_stall_after && c->stream_sent >= c->data_stall_after)
			c->data_stalled = true;
		if (!c->data_holding && e->running && p && !c->data_stalled &&
		    !bench_chance(e->b, c->data_idle_pct)) {
			uint32_t n = p->len - p->sent < BEAT ? p->len - p->sent : BEAT;
			uint8_t *d = port_slice(e->tdata, i, BEAT);
			uint64_t keep = lanes_below(n);

			bench_fill(e->b, d, BEAT); /* lanes outside tkeep: junk */
			memcpy(d, p->data + p->sent, n);
			memcpy(port_slice(e->tkeep, i, 8), &keep, 8);
			port_set_bit(e->tlast, i, p->sent + n == p->len);
			c->data_holding = true;
		}
		port_set_bit(e->tvalid, i, c->data_holding);
	}
}

static void wr_sample(void *ctx)
{
	struct wr_env *e = ctx;
	const struct sim_axi_bus *bus = &e->axi.bus;

	if (*bus->awvalid && *bus->awready) {
		unsigned int id = *bus->awid;
		char why[200];

		if (id >= WR_CLIENTS) {
			wr_fail(e, "AWID %u", id);
		} else {
			struct wr_client *c = &e->cl[id];
			uint32_t n = burst_check(&c->accept, &c->aw_off, *bus->awaddr, *bus->awlen,
						 *bus->awsize, *bus->awburst, why, sizeof(why));
			const uint64_t *off = q_front(&c->offs);

			if (!n) {
				wr_fail(e, "client %u AW: %s", id, why);
			} else if (*off + c->aw_off + n > c->stream_sent) {
				wr_fail(e,
					"client %u: AW for stream bytes up to %llu with %llu given",
					id, (unsigned long long)(*off + c->aw_off + n),
					(unsigned long long)c->stream_sent);
			} else if ((c->aw_off += n) == ((struct piece *)q_front(&c->accept))->len) {
				q_pop(&c->accept);
				q_pop(&c->offs);
				c->aw_off = 0;
			}
			c->t_aw = e->dut.cycle;
			e->progress++;
			e->aws++;
			if (e->arb_watch && e->last_aw[id] &&
			    e->aws - e->last_aw[id] > e->max_aw_gap)
				e->max_aw_gap = e->aws - e->last_aw[id];
			e->last_aw[id] = e->aws;
		}
	}
	if (e->w_in_burst && !*bus->wvalid)
		wr_fail(e, "W: a gap inside a burst");
	if (*bus->wvalid && *bus->wready) {
		e->w_in_burst = !*bus->wlast;
		e->t_w = e->dut.cycle;
		if (!e->t_w_first)
			e->t_w_first = e->dut.cycle;
		e->progress++;
	}
	if (*bus->bvalid && !*bus->bready)
		wr_fail(e, "bready low with a response on B");
	if (e->running)
		sim_pcie_sample(&e->axi.pcie, e->dut.cycle);

	for (unsigned int i = 0; i < WR_CLIENTS; i++) {
		struct wr_client *c = &e->cl[i];

		if (c->req_holding && port_bit(e->req_ready, i)) {
			const struct wr_req *r = q_front(&c->todo);

			*(struct piece *)q_push(&c->accept) = r->p;
			*(uint64_t *)q_push(&c->offs) = r->stream_off;
			*(struct wr_req *)q_push(&c->done) = *r;
			q_pop(&c->todo);
			c->req_holding = false;
			c->t_req = e->dut.cycle;
			e->progress++;
		}
		if (c->data_holding && port_bit(e->tready, i)) {
			struct wr_pkt *p = q_front(&c->pkts);
			uint32_t n = p->len - p->sent < BEAT ? p->len - p->sent : BEAT;

			p->sent += n;
			c->stream_sent += n;
			if (p->sent == p->len) {
				free(p->data);
				q_pop(&c->pkts);
			}
			c->data_holding = false;
			c->t_data = e->dut.cycle;
			e->progress++;
		}
		if (port_bit(e->done_valid, i)) {
			const struct wr_req *r = q_front(&c->done);
			bool err = port_bit(e->done_error, i);

			if (!r)
				wr_fail(e, "client %u: a completion with no request", i);
			else if (err != r->err)
				wr_fail(e,
					"client %u request %llu (0x%llx+%u): error %d, expected %d",
					i, (unsigned long long)c->dones,
					(unsigned long long)r->p.addr, r->p.len, err, r->err);
			else
				q_pop(&c->done);
			c->dones++;
			c->t_done = e->dut.cycle;
			e->progress++;
		}
	}
}

static void wr_open(struct wr_env *e, struct bench *b, struct host *h, const struct vmodel_ops *ops,
		    const char *tag)
{
	struct dut *d = &e->dut;

	memset(e, 0, sizeof(*e));
	e->b = b;
	e->tag = tag;
	e->host = h;
	e->shadow = malloc(HOST_BYTES);
	if (!e->shadow) {
		perror("malloc");
		exit(1);
	}
	memcpy(e->shadow, h->mem, HOST_BYTES);
	dut_open(d, b, ops);
	e->req_addr = dut_port(d, "s_req_addr");
	e->req_len = dut_port(d, "s_req_len");
	e->req_valid = dut_port(d, "s_req_valid");
	e->req_ready = dut_port(d, "s_req_ready");
	e->tdata = dut_port(d, "s_axis_tdata");
	e->tkeep = dut_port(d, "s_axis_tkeep");
	e->tvalid = dut_port(d, "s_axis_tvalid");
	e->tready = dut_port(d, "s_axis_tready");
	e->tlast = dut_port(d, "s_axis_tlast");
	e->done_valid = dut_port(d, "m_done_valid");
	e->done_error = dut_port(d, "m_done_error");
	axi_bind_half(&e->axi.bus, &e->axi.idle, d, false);
	axi_timing(&e->axi, h, 0, 0, 0, 0);
	for (unsigned int i = 0; i < WR_CLIENTS; i++) {
		struct wr_client *c = &e->cl[i];

		c->idx = i;
		c->align = wr_align[i];
		q_init(&c->todo, sizeof(struct wr_req));
		q_init(&c->accept, sizeof(struct piece));
		q_init(&c->offs, sizeof(uint64_t));
		q_init(&c->done, sizeof(struct wr_req));
		q_init(&c->pkts, sizeof(struct wr_pkt));
	}
	dut_add_agent(d, wr_drive, wr_sample, e);
	dut_reset(d, 8);
	e->running = true;
}

static void wr_close(struct wr_env *e)
{
	for (unsigned int i = 0; i < WR_CLIENTS; i++) {
		struct wr_client *c = &e->cl[i];

		while (q_len(&c->pkts)) {
			free(((struct wr_pkt *)q_front(&c->pkts))->data);
			q_pop(&c->pkts);
		}
		q_free(&c->todo);
		q_free(&c->accept);
		q_free(&c->offs);
		q_free(&c->done);
		q_free(&c->pkts);
	}
	sim_pcie_fini(&e->axi.pcie);
	dut_close(&e->dut);
	free(e->shadow);
}

static bool wr_client_idle(const struct wr_client *c)
{
	return !q_len(&c->todo) && !q_len(&c->done) && !q_len(&c->pkts) && !c->req_holding &&
	       !c->data_holding;
}

static bool wr_run(struct wr_env *e, unsigned int mask)
{
	uint64_t last = e->progress, quiet = 0;

	for (;;) {
		unsigned int i; /* a client in mask with work left */

		for (i = 0; i < WR_CLIENTS; i++)
			if (mask >> i & 1 && !wr_client_idle(&e->cl[i]))
				break;
		if (i == WR_CLIENTS || e->error[0])
			break;
		dut_step(&e->dut);
		quiet = e->progress != last ? 0 : quiet + 1;
		last = e->progress;
		if (quiet > HANG_CYCLES)
			wr_fail(e,
				"hang: client %u has %zu requests to give, %zu completions to come, "
				"%zu packets to give",
				i, q_len(&e->cl[i].todo), q_len(&e->cl[i].done),
				q_len(&e->cl[i].pkts));
	}
	return !e->error[0];
}

/* Once every write landed: host memory must be the shadow, byte for byte. */
static bool wr_settle(struct wr_env *e)
{
	for (unsigned int k = 0; k < 100000 && sim_pcie_busy(&e->axi.pcie) && !e->error[0]; k++)
		dut_step(&e->dut);
	for (unsigned int k = 0; k < 20 && !e->error[0]; k++)
		dut_step(&e->dut);
	if (e->error[0])
		return false;
	if (sim_pcie_busy(&e->axi.pcie))
		wr_fail(e, "writes still in flight");
	else if (e->axi.pcie.protocol_errors)
		wr_fail(e, "%llu AXI protocol errors",
			(unsigned long long)e->axi.pcie.protocol_errors);
	for (size_t off = 0; off < HOST_BYTES && !e->error[0]; off++)
		if (host_mapped(IOVA_BASE + off) && e->host->mem[off] != e->shadow[off])
			wr_fail(e, "host memory at 0x%llx: 0x%02x, expected 0x%02x",
				(unsigned long long)(IOVA_BASE + off), e->host->mem[off],
				e->shadow[off]);
	return !e->error[0];
}

/* Where a write of len bytes goes: the next free bytes, so that no two writes overlap. */
static bool wr_alloc(struct wr_env *e, uint32_t len, unsigned int align_log, uint64_t *addr)
{
	uint64_t a = e->alloc + bench_range(e->b, 0, 200), m = (UINT64_C(1) << align_log) - 1;

	if (bench_chance(e->b, 3))
		a += bench_range(e->b, 0, 40000); /* now and then, a jump (into the hole?) */
	a = (a + m) & ~m;
	if (a + len > HOST_BYTES)
		return false;
	e->alloc = a + len;
	*addr = IOVA_BASE + a;
	return true;
}

/*
 * A packet of len bytes for a client, cut into pieces (at multiples of its alignment),
 * each written at a new address (or one piece at addr); false when host memory is used up.
 */
static bool wr_gen_packet(struct wr_env *e, struct wr_client *c, uint32_t len, unsigned int pieces,
			  uint64_t addr)
{
	struct bench *b = e->b;
	uint32_t unit = 1u << c->align, cuts[4], n = 0;
	struct wr_pkt *p;
	uint32_t at = 0;

	/* cut points, increasing multiples of the unit inside the packet */
	for (unsigned int k = 1; k < pieces && n < 3; k++) {
		uint32_t lo = at + unit, x;

		if (lo >= len)
			break;
		x = (uint32_t)bench_range(b, lo, len - 1) / unit * unit;
		if (x <= at)
			break;
		cuts[n++] = at = x;
	}
	cuts[n++] = len;
	uint64_t save = e->alloc;
	struct wr_req reqs[4];

	at = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t l = cuts[k] - at;

		reqs[k].p.len = l;
		reqs[k].stream_off = c->stream_gen + at;
		reqs[k].p.addr = addr;
		if (!addr && !wr_alloc(e, l, c->align, &reqs[k].p.addr)) {
			e->alloc = save;
			return false;
		}
		at = cuts[k];
	}
	p = q_push(&c->pkts);
	p->len = len;
	p->data = malloc(len);
	if (!p->data) {
		perror("malloc");
		exit(1);
	}
	bench_fill(b, p->data, len);
	at = 0;
	for (uint32_t k = 0; k < n; k++) {
		struct wr_req *r = q_push(&c->todo);

		*r = reqs[k];
		r->err = host_faults(r->p.addr, r->p.len);
		for (uint32_t i = 0; i < r->p.len; i++)
			if (host_mapped(r->p.addr + i))
				e->shadow[r->p.addr + i - IOVA_BASE] = p->data[at + i];
		at += r->p.len;
	}
	c->stream_gen += len;
	return true;
}

static void wr_traffic(struct wr_env *e, unsigned int idle_pct)
{
	for (unsigned int i = 0; i < WR_CLIENTS; i++) {
		e->cl[i].idle_pct = (unsigned int)bench_range(e->b, 0, idle_pct);
		e->cl[i].data_idle_pct = (unsigned int)bench_range(e->b, 0, idle_pct);
	}
}

/* Random packets for the clients in mask until host memory is used up or n each. */
static void wr_gen(struct wr_env *e, unsigned int mask, unsigned int n)
{
	struct bench *b = e->b;

	for (unsigned int k = 0; k < n; k++) {
		for (unsigned int i = 0; i < WR_CLIENTS; i++) {
			struct wr_client *c = &e->cl[i];
			uint32_t len = c->align == 5 && bench_chance(b, 50) ? 32 : rand_len(b);

			if (mask >> i & 1 &&
			    !wr_gen_packet(e, c, len, (unsigned int)bench_range(b, 1, 3), 0))
				return;
		}
	}
}

/* A new round: host memory random again, allocation from a random start. */
static void wr_round(struct wr_env *e)
{
	bench_fill(e->b, e->host->mem, HOST_BYTES);
	memcpy(e->shadow, e->host->mem, HOST_BYTES);
	e->alloc = bench_range(e->b, 0, 4 * PAGE);
}

static void wr_test_random(struct wr_env *e)
{
	struct bench *b = e->b;
	unsigned int rounds = b->quick ? 2 : 16;

	if (wr_skip(e, "wr_random"))
		return;
	for (unsigned int r = 0; r < rounds && !e->error[0]; r++) {
		axi_timing(&e->axi, e->host, 0, r % 4 == 3 ? 200 : 20, r % 4 == 2 ? 100 : 0, 0);
		wr_round(e);
		wr_traffic(e, r == 0 ? 0 : 60);
		wr_gen(e, 0x3f, b->quick ? 15 : 60);
		if (wr_run(e, 0x3f))
			wr_settle(e);
	}
	wr_result(e, "wr_random");
}

/* A client whose data stops in the middle of a request blocks none of the others. */
static void wr_test_blocked(struct wr_env *e)
{
	struct bench *b = e->b;
	struct wr_client *c = &e->cl[0];

	if (wr_skip(e, "wr_blocked_client"))
		return;
	axi_timing(&e->axi, e->host, 0, 20, 0, 0);
	wr_round(e);
	wr_traffic(e, 40);
	c->data_stall_after = c->stream_sent + 5000;
	wr_gen_packet(e, c, 9000, 1, 0);
	wr_gen(e, 0x3e, b->quick ? 10 : 25);
	if (wr_run(e, 0x3e)) {
		if (!q_len(&c->done))
			wr_fail(e, "the blocked client's request completed");
		c->data_stalled = false;
		c->data_stall_after = 0;
		if (wr_run(e, 0x3f))
			wr_settle(e);
	}
	wr_result(e, "wr_blocked_client");
}

/*
 * Round robin: every client always has a complete one-beat burst (data and requests given
 * ahead), so each must get one AW in every CLIENTS.
 */
static void wr_test_arbitration(struct wr_env *e)
{
	unsigned int n = 300;

	if (wr_skip(e, "wr_round_robin"))
		return;
	axi_timing(&e->axi, e->host, 0, 20, 0, 0);
	wr_round(e);
	wr_traffic(e, 0);
	for (unsigned int k = 0; k < n; k++)
		for (unsigned int i = 0; i < WR_CLIENTS; i++)
			wr_gen_packet(e, &e->cl[i], 48, 1, 0);
	e->max_aw_gap = 0;
	memset(e->last_aw, 0, sizeof(e->last_aw));
	for (unsigned int k = 0; k < 40; k++)
		dut_step(&e->dut);
	e->arb_watch = true;
	while (!e->error[0]) {
		unsigned int i;

		for (i = 0; i < WR_CLIENTS && q_len(&e->cl[i].todo) > 10; i++)
			;
		if (i < WR_CLIENTS)
			break;
		dut_step(&e->dut);
	}
	e->arb_watch = false;
	for (unsigned int i = 0; i < WR_CLIENTS; i++)
		if (e->aws - e->last_aw[i] + 1 > e->max_aw_gap)
			e->max_aw_gap = e->aws - e->last_aw[i] + 1;
	bench_log(e->b, "wr_round_robin: every client got an AW in every %llu at most",
		  (unsigned long long)e->max_aw_gap);
	if (e->max_aw_gap > WR_CLIENTS)
		wr_fail(e, "a client waited %llu AWs for its turn, with every client ready",
			(unsigned long long)e->max_aw_gap);
	if (wr_run(e, 0x3f))
		wr_settle(e);
	wr_result(e, "wr_round_robin");
}

/* A lone 8-byte write, the request before and after its data. */
static void wr_test_latency(struct wr_env *e)
{
	struct bench *b = e->b;
	struct wr_client *c = &e->cl[0];
	uint64_t aw_data, aw_req, w, done;

	if (wr_skip(e, "wr_latency"))
		return;
	axi_timing(&e->axi, e->host, 0, 50, 0, 0);
	wr_round(e);
	wr_traffic(e, 0);
	/* the request first: its data comes 20 cycles later */
	c->data_stalled = true;
	wr_gen_packet(e, c, 8, 1, IOVA_BASE + 0x1013);
	for (unsigned int k = 0; k < 20; k++)
		dut_step(&e->dut);
	c->data_stalled = false;
	if (!wr_run(e, 1) || !wr_settle(e))
		goto out;
	aw_data = c->t_aw - c->t_data;
	w = e->t_w - c->t_aw;
	done = c->t_done - c->t_data;
	/* the data first: its request comes 20 cycles later */
	c->idle_pct = 100;
	wr_gen_packet(e, c, 8, 1, IOVA_BASE + 0x2038);
	for (unsigned int k = 0; k < 20; k++)
		dut_step(&e->dut);
	c->idle_pct = 0;
	if (!wr_run(e, 1) || !wr_settle(e))
		goto out;
	aw_req = c->t_aw - c->t_req;
	bench_log(b,
		  "lone 8-byte write: AW %llu cycles after the data (or %llu after the request), "
		  "W %llu after AW, completion %llu after the data (B the cycle after W)",
		  (unsigned long long)aw_data, (unsigned long long)aw_req, (unsigned long long)w,
		  (unsigned long long)done);
	if (aw_data > 2 || aw_req > 2)
		wr_fail(e, "AW %llu cycles after the data, %llu after the request (2 at most)",
			(unsigned long long)aw_data, (unsigned long long)aw_req);
out:
	wr_result(e, "wr_latency");
}

/* Figure: one stream client writing 64 KiB in 4 KiB packets, each one request. */
static void wr_bench_bandwidth(struct wr_env *e)
{
	struct bench *b = e->b;
	struct wr_client *c = &e->cl[0];
	double bpc[2], w[2];

	if (wr_skip(e, "wr_bandwidth"))
		return;
	for (unsigned int k = 0; k < 2; k++) {
		uint64_t start = e->dut.cycle + 1;

		axi_timing(&e->axi, e->host, 0, 50, 0, 0);
		wr_round(e);
		wr_traffic(e, 0);
		e->t_w_first = 0;
		for (unsigned int i = 0; i < 16; i++)
			wr_gen_packet(e, c, 4096, 1, IOVA_BASE + 0x40000 + i * 4096 + k * 3);
		if (!wr_run(e, 1))
			break;
		bpc[k] = 65536.0 / (double)(c->t_done + 1 - start);
		w[k] = 65536.0 / (double)(e->t_w + 1 - e->t_w_first);
		if (!wr_settle(e))
			break;
	}
	if (!e->error[0])
		bench_log(
			b,
			"bandwidth: one stream client writes 64 KiB in 4 KiB requests at %.1f "
			"bytes/cycle, first beat in to last completion (%.1f at unaligned addresses); "
			"first to last W beat: %.1f (%.1f unaligned)",
			bpc[0], bpc[1], w[0], w[1]);
	wr_result(e, "wr_bandwidth");
}

/* ===================================================================================== */

int main(int argc, char **argv)
{
	struct bench b;
	struct host host;
	struct rd_env *rd = calloc(1, sizeof(*rd));
	struct wr_env *wr = calloc(1, sizeof(*wr));
	uint64_t cycles, cycles2;

	if (!rd || !wr) {
		perror("calloc");
		return 1;
	}
	bench_init(&b, "test_dma", argc, argv);
	host_open(&host, &b);

	rd_open(rd, &b, &host, &vmodel_Vdma_rd_t, "");
	rd_test_latency(rd);
	rd_test_random(rd);
	rd_test_blocked(rd);
	rd_test_arbitration(rd);
	rd_bench_bandwidth(rd);
	cycles = rd->dut.cycle;
	rd_close(rd);
	rd_open(rd, &b, &host, &vmodel_Vdma_rd_tiny, "_tiny");
	rd_test_random(rd);
	rd_test_blocked(rd);
	cycles += rd->dut.cycle;
	rd_close(rd);

	wr_open(wr, &b, &host, &vmodel_Vdma_wr_t, "");
	wr_test_latency(wr);
	wr_test_random(wr);
	wr_test_blocked(wr);
	wr_test_arbitration(wr);
	wr_bench_bandwidth(wr);
	cycles2 = wr->dut.cycle;
	wr_close(wr);
	wr_open(wr, &b, &host, &vmodel_Vdma_wr_tiny, "_tiny");
	wr_test_random(wr);
	wr_test_blocked(wr);
	cycles2 += wr->dut.cycle;
	wr_close(wr);
	bench_log(&b, "simulated %llu cycles of dma_rd, %llu of dma_wr", (unsigned long long)cycles,
		  (unsigned long long)cycles2);

	host_close(&host);
	free(rd);
	free(wr);
	return bench_finish(&b);
}
