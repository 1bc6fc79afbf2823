// SPDX-License-Identifier: MIT
/*
 * A simulated NIC: the Verilated hroce_core with its host memory (IOMMU and PCIe models),
 * BAR0, interrupts and an Ethernet port, and the API the driver's sim backend calls.
 *
 * While the world's thread runs, the API takes the world's lock (sim_world_lock) around
 * what it touches of the models, and an MMIO read waits for the thread to answer it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hroce_contract.h"
#include "roce_wire.h"
#include "sim_internal.h"
#include "sim_pin.h"

extern const struct vmodel_ops vmodel_Vhroce_core, vmodel_Vfw_shell;

#define RESET_CYCLES 8

static struct hroce_sim *nics; /* every NIC of the process */
static pthread_mutex_t nics_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int traces; /* trace files opened from $HROCE_TRACE */

void sim_nic_event(struct hroce_sim *s, enum hroce_sim_event_kind kind, uint64_t cycle,
		   uint64_t addr, uint64_t len)
{
	struct hroce_sim_event ev;

	if (!s->obs_fn)
		return;
	ev = (struct hroce_sim_event){ .kind = kind,
				       .time_ns = sim_cycles_to_ns(s->w, cycle),
				       .cycle = cycle,
				       .addr = addr,
				       .len = len };
	s->obs_fn(s->obs_ctx, s, &ev);
}

/* The lanes of the core's trace port valid this cycle, to the observer in lane order. */
static void trace_sample(struct hroce_sim *s, uint64_t now)
{
	unsigned int valid = *s->trace_valid;

	for (unsigned int k = 0; k < HROCE_TRACE_COUNT; k++) {
		unsigned int lsb = k * HROCE_TRACE_EVENT_BITS;
		struct hroce_sim_event ev;

		if (!(valid & (1u << k)))
			continue;
		ev = (struct hroce_sim_event){
			.kind = HROCE_SIM_STAGE,
			.time_ns = sim_cycles_to_ns(s->w, now),
			.cycle = now,
			.stage = k,
			.qpn = (uint32_t)hroce_bus_get(s->trace_data,
						       lsb + HROCE_TRACE_EVENT_QPN_LSB,
						       HROCE_TRACE_EVENT_QPN_WIDTH),
			.tag = (uint32_t)hroce_bus_get(s->trace_data,
						       lsb + HROCE_TRACE_EVENT_TAG_LSB,
						       HROCE_TRACE_EVENT_TAG_WIDTH),
			.aux = (uint32_t)hroce_bus_get(s->trace_data,
						       lsb + HROCE_TRACE_EVENT_AUX_LSB,
						       HROCE_TRACE_EVENT_AUX_WIDTH),
		};
		s->obs_fn(s->obs_ctx, s, &ev);
	}
}

void sim_nic_frame_events(struct hroce_sim *s, bool out, uint64_t start, uint64_t end, uint64_t len,
			  const uint8_t *head, size_t head_len)
{
	struct hroce_sim_event ev = { .len = len };
	struct roce_hdr h;
	size_t ip_off, ip_len;
	bool bth;

	if (!s->obs_fn)
		return;
	if (head && roce_parse_start(head, head_len, &h, &ip_off, &ip_len, &bth) == ROCE_OK &&
	    bth) {
		ev.bth = true;
		ev.qpn = h.dqpn;
		ev.tag = h.psn;
		ev.aux = h.opcode;
	}
	ev.kind = out ? HROCE_SIM_TX_START : HROCE_SIM_RX_START;
	ev.cycle = start;
	ev.time_ns = sim_cycles_to_ns(s->w, start);
	s->obs_fn(s->obs_ctx, s, &ev);
	ev.kind = out ? HROCE_SIM_TX_END : HROCE_SIM_RX_END;
	ev.cycle = end;
	ev.time_ns = sim_cycles_to_ns(s->w, end);
	s->obs_fn(s->obs_ctx, s, &ev);
}

void sim_nic_frame_sent(void *ctx, uint64_t start, uint64_t end, uint64_t len, bool aborted,
			const uint8_t *head, size_t head_len)
{
	(void)aborted;
	sim_nic_frame_events(ctx, true, start, end, len, head, head_len);
}

void sim_nic_frame_received(void *ctx, uint64_t start, uint64_t end, uint64_t len, bool bad,
			    const uint8_t *head, size_t head_len)
{
	(void)bad;
	sim_nic_frame_events(ctx, false, start, end, len, head, head_len);
}

static void model_event(void *ctx, enum hroce_sim_event_kind kind, uint64_t cycle, uint64_t addr,
			uint64_t len)
{
	sim_nic_event(ctx, kind, cycle, addr, len);
}

static void model_irq(void *ctx, unsigned int vector, uint64_t cycle)
{
	struct hroce_sim *s = ctx;

	sim_nic_event(s, HROCE_SIM_IRQ, cycle, vector, 0);
	if (s->irq_fn)
		s->irq_fn(s->irq_ctx, vector);
}

void sim_nic_cycle(struct hroce_sim *s, uint64_t now)
{
	const struct vmodel_ops *ops = s->vm.ops;
	void *model = s->vm.model;
	bool recording;

	*s->time_now = now;
	sim_pcie_drive(&s->pcie, now);
	sim_mmio_drive(&s->mmio, now);
	if (s->rx_ch)
		sim_channel_rx_drive(s->rx_ch, now);
	if (s->tx_ch)
		sim_channel_tx_drive(s->tx_ch, now);
	if (s->wire) {
		sim_wire_rx_drive(s->wire, now);
		sim_wire_tx_drive(s->wire, now);
	}
	if (s->ext)
		sim_ext_drive(s->ext, now);
	*s->irq_ready = sim_pcie_irq_room(&s->pcie);
	*s->clk = 0;
	if (s->shell)
		*s->shell->mac_clk = 0;
	ops->eval(model);

	sim_pcie_sample(&s->pcie, now);
	sim_mmio_sample(&s->mmio, now);
	if (s->shell)
		sim_shell_sample(s, now); /* its MSI-X messages, its flash and ICAP */
	else if (*s->irq_valid && *s->irq_ready)
		sim_pcie_irq(&s->pcie, now, *s->irq_vector);
	if (s->obs_fn && s->trace_valid && *s->trace_valid)
		trace_sample(s, now);
	if (s->tx_ch)
		sim_channel_tx_sample(s->tx_ch, now);
	if (s->rx_ch)
		sim_channel_rx_sample(s->rx_ch, now);
	if (s->wire) {
		sim_wire_tx_sample(s->wire, now);
		sim_wire_rx_sample(s->wire, now);
	}
	if (s->ext)
		sim_ext_sample(s->ext, now);
	recording = s->tracing && now >= s->trace_from && now < s->trace_to;
	if (recording)
		ops->trace_dump(model, now * s->w->period_ps);
	*s->clk = 1;
	if (s->shell)
		*s->shell->mac_clk = 1;
	ops->eval(model);
	if (recording)
		ops->trace_dump(model, now * s->w->period_ps + s->w->period_ps / 2);
}

/*
 * A core whose interfaces all stood still for a while has nothing left to do until
 * something comes in, or until time_now reaches m_time_deadline (its retransmission and
 * ARP timers): its timers only compare time_now, which may jump.
 */
bool sim_nic_quiet(const struct hroce_sim *s)
{
	return !sim_mmio_busy(&s->mmio) && !sim_pcie_busy(&s->pcie) && !*s->axi.arvalid &&
	       !*s->axi.awvalid && !*s->axi.wvalid && !*s->irq_valid && !*s->tx.tvalid &&
	       !*s->rx.tvalid && (!s->tx_ch || sim_channel_quiet(s->tx_ch)) &&
	       (!s->rx_ch || sim_channel_quiet(s->rx_ch)) &&
	       (!s->wire || sim_wire_quiet(s->wire)) && (!s->ext || !sim_ext_pending(s->ext));
}

int sim_nic_bind_port(struct hroce_sim *s, const char *name, unsigned int width, bool input,
		      void **ptr)
{
	const struct vmodel_port *p = vmodel_port(&s->vm, name);

	if (!p || p->width != width || p->input != input) {
		sim_log(HROCE_SIM_LOG_ERR, "%s: the model %s has no %u-bit %s %s", s->name,
			s->vm.ops->name, width, input ? "input" : "output", name);
		return EINVAL;
	}
	*ptr = p->ptr;
	return 0;
}

int sim_nic_bind_clock(struct hroce_sim *s)
{
	int err = 0;

	err = err ?: sim_nic_bind_port(s, "clk", 1, true, (void **)&s->clk);
	err = err ?: sim_nic_bind_port(s, "rst", 1, true, (void **)&s->rst);
	err = err ?: sim_nic_bind_port(s, "time_now", 64, true, (void **)&s->time_now);
	return err
		       ?: sim_nic_bind_port(s, "m_time_deadline", 64, false,
					    (void **)&s->time_deadline);
}

static int bind_ports(struct hroce_sim *s)
{
	int err = sim_nic_bind_clock(s);

	err = err ?: sim_nic_bind_port(s, "m_irq_vector", 8, false, (void **)&s->irq_vector);
	err = err ?: sim_nic_bind_port(s, "m_irq_valid", 1, false, (void **)&s->irq_valid);
	err = err ?: sim_nic_bind_port(s, "m_irq_ready", 1, true, (void **)&s->irq_ready);
	err = err
		      ?: sim_nic_bind_port(s, "m_trace_valid", HROCE_TRACE_COUNT, false,
					   (void **)&s->trace_valid);
	err = err
		      ?: sim_nic_bind_port(s, "m_trace_data",
					   HROCE_TRACE_COUNT * HROCE_TRACE_EVENT_BITS, false,
					   (void **)&s->trace_data);
	if (err)
		return err;
	if (sim_axi_bus_bind(&s->axi, &s->vm, "m_axi_") ||
	    sim_axis_bus_bind(&s->tx, &s->vm, "m_axis_tx_", true) ||
	    sim_axis_bus_bind(&s->rx, &s->vm, "s_axis_rx_", false) ||
	    sim_axil_bus_bind(&s->axil, &s->vm, "s_axil_") ||
	    sim_axi_db_bus_bind(&s->db, &s->vm, "s_axi_db_")) {
		sim_log(HROCE_SIM_LOG_ERR, "%s: the core's buses are not the ones expected",
			s->name);
		return EINVAL;
	}
	return 0;
}

/* The params' trace_path as is, else $HROCE_TRACE, numbered after its first use. */
static int open_trace(struct hroce_sim *s, const char *explicit_path)
{
	const char *path = explicit_path ? explicit_path : getenv("HROCE_TRACE");
	const char *from, *to;
	char numbered[512];
	int err;

	if (!path || !*path)
		return 0;
	if (!s->vm.ops->has_trace) {
		if (explicit_path) {
			sim_log(HROCE_SIM_LOG_ERR,
				"%s: tracing asked for, but the core was built without it (make "
				"TRACE=1)",
				s->name);
			return ENOTSUP;
		}
		sim_log(HROCE_SIM_LOG_WARN,
			"%s: HROCE_TRACE is set, but the core was built without tracing", s->name);
		return 0;
	}
	if (!explicit_path && ++traces > 1) {
		const char *dot = strrchr(path, '.');
		int stem = dot ? (int)(dot - path) : (int)strlen(path);

		snprintf(numbered, sizeof(numbered), "%.*s-%u%s", stem, path, traces,
			 dot ? dot : "");
		path = numbered;
	}
	err = s->vm.ops->trace_open(s->vm.model, path);
	if (err) {
		sim_log(HROCE_SIM_LOG_ERR, "%s: cannot open trace %s: %s", s->name, path,
			strerror(err));
		return err;
	}
	s->vm.tracing = s->tracing = true;
	/* $HROCE_TRACE_FROM_NS, $HROCE_TRACE_TO_NS: record only that window of simulated
	 * time (traces are big) */
	from = getenv("HROCE_TRACE_FROM_NS");
	to = getenv("HROCE_TRACE_TO_NS");
	s->trace_from = from ? strtoull(from, NULL, 0) * 1000 / s->w->period_ps : 0;
	s->trace_to = to ? strtoull(to, NULL, 0) * 1000 / s->w->period_ps : UINT64_MAX;
	sim_log(HROCE_SIM_LOG_INFO, "%s: tracing into %s from %llu ns", s->name, path,
		(unsigned long long)(from ? strtoull(from, NULL, 0) : hroce_sim_world_ns(s->w)));
	return 0;
}

/* The core (the shell) out of reset, its buses idle; these cycles are not the world's. */
static int reset(struct hroce_sim *s)
{
	*s->time_now = s->w->cycle;
	*s->irq_ready = 1;
	*s->tx.tready = 1;
	*s->rx.tvalid = 0;
	*s->rst = 1;
	if (s->shell)
		sim_shell_reset(s, false);
	for (unsigned int i = 0; i < RESET_CYCLES; i++) {
		*s->clk = 0;
		if (s->shell)
			*s->shell->mac_clk = 0;
		s->vm.ops->eval(s->vm.model);
		*s->clk = 1;
		if (s->shell)
			*s->shell->mac_clk = 1;
		s->vm.ops->eval(s->vm.model);
	}
	*s->rst = 0;
	return s->shell ? sim_shell_reset(s, true) : 0;
}

struct hroce_sim *hroce_sim_create(struct hroce_sim_world *w, const struct hroce_sim_params *p)
{
	struct sim_pcie_hooks pcie_hooks = { model_event, model_irq, NULL };
	struct sim_mmio_hooks mmio_hooks = { model_event, NULL };
	struct sim_pcie_timing timing;
	struct hroce_sim *s;
	int err;

	if (!w || !p || !p->name || !*p->name || w->stepping || w->running ||
	    (p->model != HROCE_SIM_MODEL_CORE && p->model != HROCE_SIM_MODEL_SHELL) ||
	    (p->flash_path && p->model != HROCE_SIM_MODEL_SHELL)) {
		errno = EINVAL;
		return NULL;
	}
	if (hroce_sim_find(p->name)) {
		errno = EEXIST;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->w = w;
	s->name = strdup(p->name);
	if (!s->name) {
		err = ENOMEM;
		goto err_free;
	}
	if (pthread_mutex_init(&s->read_lock, NULL)) {
		err = ENOMEM;
		goto err_name;
	}
	err = vmodel_open(&s->vm, p->model == HROCE_SIM_MODEL_SHELL ? &vmodel_Vfw_shell
								    : &vmodel_Vhroce_core);
	if (err)
		goto err_lock;
	err = p->model == HROCE_SIM_MODEL_SHELL ? sim_shell_open(s, p) : bind_ports(s);
	if (err)
		goto err_model;
	sim_iommu_init(&s->iommu);
	s->read_latency = sim_ns_to_cycles(w, p->pcie.read_latency_ns);
	s->write_latency = sim_ns_to_cycles(w, p->pcie.write_latency_ns);
	timing = (struct sim_pcie_timing){
		.read_latency = s->read_latency,
		.write_latency = s->write_latency,
		.gbps = p->pcie.gbps,
		.clock_mhz = w->clock_mhz,
		.max_reads = p->pcie.reads ? p->pcie.reads : HROCE_SIM_PCIE_BRIDGE_BURSTS,
		.max_writes = p->pcie.writes ? p->pcie.writes : HROCE_SIM_PCIE_BRIDGE_BURSTS,
	};
	pcie_hooks.ctx = s;
	mmio_hooks.ctx = s;
	err = sim_pcie_init(&s->pcie, &s->axi, &s->iommu, &timing, &pcie_hooks);
	if (err)
		goto err_iommu;
	err = s->shell
		      ? sim_mmio_init32(&s->mmio, &s->shell->bar0, SIM_SHELL_BAR0_SIZE, &mmio_hooks)
		      : sim_mmio_init(&s->mmio, &s->axil, &mmio_hooks);
	if (err)
		goto err_pcie;
	sim_mmio_attach_db(&s->mmio, &s->db);
	err = reset(s) ?: open_trace(s, p->trace_path);
	if (err)
		goto err_mmio;
	err = sim_world_add(w, s);
	if (err)
		goto err_mmio;
	pthread_mutex_lock(&nics_lock);
	s->next = nics;
	nics = s;
	pthread_mutex_unlock(&nics_lock);
	return s;

err_mmio:
	sim_mmio_fini(&s->mmio);
err_pcie:
	sim_pcie_fini(&s->pcie);
err_iommu:
	sim_iommu_fini(&s->iommu);
err_model:
	sim_shell_close(s);
	vmodel_close(&s->vm);
err_lock:
	pthread_mutex_destroy(&s->read_lock);
err_name:
	free(s->name);
err_free:
	free(s);
	errno = err;
	return NULL;
}

void hroce_sim_destroy(struct hroce_sim *s)
{
	struct hroce_sim **pp;

	struct hroce_sim_world *w;
	bool running;

	if (!s)
		return;
	/* the world's thread may be waiting on the wire: it stops while the NIC goes */
	w = s->w;
	running = w->running;
	hroce_sim_world_stop(w);
	if (s->link)
		hroce_sim_link_destroy(s->link);
	if (s->wire)
		sim_wire_detach_locked(s->wire);
	if (s->ext)
		sim_ext_detach_locked(s->ext);
	sim_world_remove(w, s);
	if (running && w->nnics)
		hroce_sim_world_start(w);
	pthread_mutex_lock(&nics_lock);
	for (pp = &nics; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	pthread_mutex_unlock(&nics_lock);
	sim_mmio_fini(&s->mmio);
	sim_pcie_fini(&s->pcie);
	for (size_t i = 0; i < s->iommu.n; i++) {
		if (s->iommu.maps[i].pin)
			sim_unpin(s->iommu.maps[i].pin);
		else
			sim_pin_unaccount(s->iommu.maps[i].len / SIM_PAGE_SIZE);
	}
	sim_iommu_fini(&s->iommu);
	sim_shell_close(s);
	vmodel_close(&s->vm);
	pthread_mutex_destroy(&s->read_lock);
	free(s->name);
	free(s);
}

struct hroce_sim *hroce_sim_find(const char *name)
{
	struct hroce_sim *s;

	pthread_mutex_lock(&nics_lock);
	for (s = nics; s; s = s->next)
		if (!strcmp(s->name, name))
			break;
	pthread_mutex_unlock(&nics_lock);
	if (!s)
		errno = ENOENT;
	return s;
}

struct hroce_sim_world *hroce_sim_world_of(struct hroce_sim *s)
{
	return s->w;
}

const char *hroce_sim_name(const struct hroce_sim *s)
{
	return s->name;
}

enum hroce_sim_model hroce_sim_model_of(const struct hroce_sim *s)
{
	return s->shell ? HROCE_SIM_MODEL_SHELL : HROCE_SIM_MODEL_CORE;
}

int hroce_sim_dma_map(struct hroce_sim *s, void *vaddr, uint64_t iova, uint64_t len)
{
	return hroce_sim_dma_map_flags(s, vaddr, iova, len, HROCE_SIM_MAP_WRITE);
}

int hroce_sim_dma_map_flags(struct hroce_sim *s, void *vaddr, uint64_t iova, uint64_t len,
			    unsigned int flags)
{
	bool write = flags & HROCE_SIM_MAP_WRITE;
	struct sim_pin *pin = NULL;
	int err;

	if (flags & ~(HROCE_SIM_MAP_WRITE | HROCE_SIM_MAP_PIN))
		return EINVAL;
	if (flags & HROCE_SIM_MAP_PIN) {
		/* outside the world's lock: reading the maps and copying pages takes a while */
		err = sim_pin((uintptr_t)vaddr, len, write, &pin);
		if (err)
			return err;
		vaddr = pin->vaddr;
	} else if (!(len & (SIM_PAGE_SIZE - 1))) {
		/* the caller's own memory, which a board pins too */
		err = sim_pin_account(len / SIM_PAGE_SIZE);
		if (err)
			return err;
	}
	sim_world_lock(s->w);
	err = sim_iommu_map_pinned(&s->iommu, vaddr, iova, len, write, pin);
	sim_world_unlock(s->w);
	if (err && pin)
		sim_unpin(pin);
	else if (err && !(len & (SIM_PAGE_SIZE - 1)))
		sim_pin_unaccount(len / SIM_PAGE_SIZE);
	return err;
}

int hroce_sim_dma_unmap(struct hroce_sim *s, uint64_t iova, uint64_t len)
{
	struct sim_pin *pin = NULL;
	int err;

	/* the thread is between cycles: no access to the range is under way once this returns */
	sim_world_lock(s->w);
	err = sim_iommu_unmap(&s->iommu, iova, len, &pin);
	sim_world_unlock(s->w);
	if (!err) /* what was not pinned was accounted at its map */
		sim_pin_unaccount((len - (pin ? pin->len : 0)) / SIM_PAGE_SIZE);
	sim_unpin(pin);
	return err;
}

uint64_t hroce_sim_faults(const struct hroce_sim *s, struct hroce_sim_fault *last)
{
	uint64_t faults;

	sim_world_lock(s->w);
	if (last && s->iommu.faults)
		*last = (struct hroce_sim_fault){
			.iova = s->iommu.last.iova,
			.len = s->iommu.last.len,
			.write = s->iommu.last.write,
			.time_ns = sim_cycles_to_ns(s->w, s->iommu.last.cycle),
		};
	faults = s->iommu.faults;
	sim_world_unlock(s->w);
	return faults;
}

/* A posted write of the host: to BAR0, or (db) to the doorbell pages. */
static void post_write(struct hroce_sim *s, bool db, uint64_t offset, const void *data, size_t len)
{
	uint64_t now;
	int err;

	sim_world_lock(s->w);
	now = s->w->cycle;
	err = db ? sim_mmio_write_db(&s->mmio, now + s->write_latency, offset, data, len)
		 : sim_mmio_write(&s->mmio, now + s->write_latency, offset, data, len);
	if (err) {
		sim_world_unlock(s->w);
		sim_log(HROCE_SIM_LOG_ERR, "%s: %s write of %zu bytes at 0x%llx: %s", s->name,
			db ? "doorbell page" : "MMIO", len, (unsigned long long)offset,
			strerror(err));
		return;
	}
	sim_nic_event(s, HROCE_SIM_MMIO_WRITE, now, (db ? HROCE_SIM_DB_EVENT_BASE : 0) + offset,
		      len);
	sim_world_kick(s->w);
	sim_world_unlock(s->w);
}

void hroce_sim_mmio_write(struct hroce_sim *s, uint64_t offset, const void *data, size_t len)
{
	post_write(s, false, offset, data, len);
}

void hroce_sim_db_write(struct hroce_sim *s, uint64_t offset, const void *data, size_t len)
{
	post_write(s, true, offset, data, len);
}

void hroce_sim_mmio_write64(struct hroce_sim *s, uint64_t offset, uint64_t value)
{
	hroce_sim_mmio_write(s, offset, &value, sizeof(value));
}

static uint64_t mmio_read(struct hroce_sim *s, uint64_t offset, unsigned int size)
{
	struct hroce_sim_world *w = s->w;
	uint64_t done, limit, back;
	int err;

	if (w->running)
		return sim_world_read(s, offset, size);
	done = s->mmio.reads_done;
	if (w->stepping) {
		sim_log(HROCE_SIM_LOG_ERR,
			"%s: MMIO read from inside a step (an irq handler or an observer)",
			s->name);
		return ~UINT64_C(0);
	}
	err = sim_mmio_read(&s->mmio, w->cycle + s->read_latency, offset, size);
	if (err) {
		sim_log(HROCE_SIM_LOG_ERR, "%s: MMIO read at 0x%llx: %s", s->name,
			(unsigned long long)offset, strerror(err));
		return ~UINT64_C(0);
	}
	limit = w->cycle + sim_ns_to_cycles(w, SIM_MMIO_READ_TIMEOUT_NS);
	while (s->mmio.reads_done == done) {
		if (w->cycle >= limit) {
			sim_log(HROCE_SIM_LOG_ERR, "%s: MMIO read at 0x%llx: completion timeout",
				s->name, (unsigned long long)offset);
			return ~UINT64_C(0);
		}
		hroce_sim_world_step(w, 1);
	}
	/* R was taken at the end of read_cycle; the completion travels back to the host */
	back = s->mmio.read_cycle + 1 + s->read_latency;
	if (w->cycle < back)
		hroce_sim_world_step(w, back - w->cycle);
	return s->mmio.read_resp == SIM_AXI_OKAY ? s->mmio.read_data : ~UINT64_C(0);
}

uint64_t hroce_sim_mmio_read64(struct hroce_sim *s, uint64_t offset)
{
	return mmio_read(s, offset, 8);
}

uint32_t hroce_sim_mmio_read32(struct hroce_sim *s, uint64_t offset)
{
	return (uint32_t)mmio_read(s, offset, 4);
}

void hroce_sim_set_irq_handler(struct hroce_sim *s, void (*fn)(void *ctx, unsigned int vector),
			       void *ctx)
{
	sim_world_lock(s->w);
	s->irq_fn = fn;
	s->irq_ctx = ctx;
	sim_world_unlock(s->w);
}

void hroce_sim_set_observer(struct hroce_sim *s,
			    void (*fn)(void *ctx, const struct hroce_sim *s,
				       const struct hroce_sim_event *ev),
			    void *ctx)
{
	sim_world_lock(s->w);
	s->obs_fn = fn;
	s->obs_ctx = ctx;
	sim_world_unlock(s->w);
}

void hroce_sim_nic_stats(struct hroce_sim *s, struct hroce_sim_nic_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!s->shell)
		return; /* CORE: its port holds frames back, nothing else to count */
	st->model = HROCE_SIM_MODEL_SHELL;
	sim_world_lock(s->w);
	st->msix_messages = s->shell->msix_messages;
	st->msix_stray = s->shell->msix_stray;
	st->iprogs = s->shell->icap.iprogs;
	st->iprog_wbstar = s->shell->icap.iprog_wbstar;
	sim_world_unlock(s->w);
	st->mac_rx_dropped = hroce_sim_mmio_read32(s, HROCE_SIM_BOARD_BASE + SIM_SHELL_MAC_RX_DROP);
}
