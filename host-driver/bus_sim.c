// SPDX-License-Identifier: MIT
/*
 * The sim backend: a NIC of libhroce-sim, found by name. MMIO goes through the simulated
 * PCIe link, DMA mappings fill the simulated IOMMU, interrupts set bits and an eventfd.
 *
 * "sim:NAME" is the NIC of that name if this process created one (the benches, which
 * step their world by hand: idling steps it, so that its other NICs move too). Otherwise
 * it is the device of that spec in the configuration (hroce_config.h), which this backend
 * creates: a world of its own at the configured clock, the NIC with its PCIe, its port on
 * the configured shared-memory wire, and the world's thread that runs it; idling then
 * waits for that thread. Closing the device stops the thread and destroys them. Such a
 * device is opened once per process (as a VFIO device is): libhroce gives a second
 * hroce_open of it the device already open.
 */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "hroce_bus.h"
#include "hroce_config.h"
#include "hroce_priv.h"
#include "hroce_sim.h"

/* Cycles a poll that found nothing lets pass: a CPU's polling loop takes about this. */
#define SIM_IDLE_CYCLES 4
/* "1": the devices this backend creates run in lockstep (hroce.h, hroce_sim.h) */
#define SIM_LOCKSTEP_ENV "HROCE_LOCKSTEP"
/* and their quantum, in ns (default: the wire's latency, the longest it may be) */
#define SIM_LOCKSTEP_NS_ENV "HROCE_LOCKSTEP_NS"

struct sim_bus {
	struct hroce_bus bus;
	struct hroce_sim *sim;
	struct hroce_sim_world *own_world; /* created by the open: stopped and destroyed by close */
	pid_t owner;			   /* the process that opened it; a fork()'s child is not */
	uint32_t clock_mhz;
	_Atomic uint64_t irqs;
	int irq_fd;
	struct sim_bus *next_created;
};

/* The devices this backend created, open (one open each). */
static pthread_mutex_t created_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_bus *created_list;
static bool exit_hooked;
/* the world of the first device created in lockstep (the out-of-band channel's) */
static struct hroce_sim_world *_Atomic lockstep_world;

/*
 * A process that exits with devices open: their threads stop before the library's
 * static objects go, and the peers see the link go down at once. A hroce_close after
 * this (another exit handler's) still works, on a world nobody runs.
 */
static void stop_at_exit(void)
{
	pthread_mutex_lock(&created_lock);
	for (struct sim_bus *sb = created_list; sb; sb = sb->next_created) {
		/* a child of fork() has a copy of the NIC but not its thread, nor the port */
		if (sb->owner != getpid())
			continue;
		hroce_sim_world_stop(sb->own_world);
		hroce_sim_wire_detach(hroce_sim_wire_of(sb->sim));
	}
	pthread_mutex_unlock(&created_lock);
}

/* fork() while another thread holds the list's lock: the child's copy is free all the same */
static void created_lock_take(void)
{
	pthread_mutex_lock(&created_lock);
}

static void created_lock_give(void)
{
	pthread_mutex_unlock(&created_lock);
}

static struct sim_bus *to_sim(struct hroce_bus *bus)
{
	return container_of(bus, struct sim_bus, bus);
}

/*
 * A child of fork() closing what it inherited: the world, its thread and its wire port are
 * its parent's (the world's lock may even have been held by the parent's thread at the
 * fork), so only the child's own memory goes.
 */
static void close_inherited(struct sim_bus *sb)
{
	close(sb->irq_fd);
	free(sb);
}

static void sim_close(struct hroce_bus *bus)
{
	struct sim_bus *sb = to_sim(bus);

	if (sb->owner != getpid()) {
		close_inherited(sb);
		return;
	}
	hroce_sim_set_irq_handler(sb->sim, NULL, NULL);
	if (sb->own_world) {
		pthread_mutex_lock(&created_lock);
		for (struct sim_bus **pp = &created_list; *pp; pp = &(*pp)->next_created) {
			if (*pp == sb) {
				*pp = sb->next_created;
				break;
			}
		}
		if (atomic_load(&lockstep_world) == sb->own_world)
			atomic_store(&lockstep_world, NULL);
		hroce_sim_world_destroy(sb->own_world); /* stops its thread first */
		pthread_mutex_unlock(&created_lock);
	}
	close(sb->irq_fd);
	free(sb);
}

static void sim_mmio_write(struct hroce_bus *bus, uint64_t offset, const void *data, size_t len)
{
	hroce_sim_mmio_write(to_sim(bus)->sim, offset, data, len);
}

static uint64_t sim_mmio_read64(struct hroce_bus *bus, uint64_t offset)
{
	return hroce_sim_mmio_read64(to_sim(bus)->sim, offset);
}

static void sim_mmio_write_wc(struct hroce_bus *bus, uint64_t offset, const void *data, size_t len)
{
	hroce_sim_db_write(to_sim(bus)->sim, offset, data, len);
}

static void sim_mmio_write32(struct hroce_bus *bus, uint64_t offset, uint32_t value)
{
	uint32_t le = htole32(value);

	if (offset & 3) {
		hroce_log(HROCE_LOG_ERR, "%s: MMIO write of 4 bytes at 0x%llx: not aligned",
			  bus->name, (unsigned long long)offset);
		return;
	}
	/* a SHELL NIC's 32-bit BAR0 takes it as one write; a CORE NIC's as a strobed half */
	hroce_sim_mmio_write(to_sim(bus)->sim, offset, &le, sizeof(le));
}

static uint32_t sim_mmio_read32(struct hroce_bus *bus, uint64_t offset)
{
	/* misaligned, outside BAR0 or a CORE NIC (a 64-bit bus): logged, all ones */
	return hroce_sim_mmio_read32(to_sim(bus)->sim, offset);
}

/*
 * An application's memory is pinned as a board pins it, so that a registration that would
 * fail on a board fails here with the same errno, and what the wire carries reaches only
 * the pages registered. The driver's own memory (rings, tables) is its to keep mapped.
 */
static int sim_dma_map(struct hroce_bus *bus, void *vaddr, uint64_t iova, uint64_t len,
		       unsigned int flags)
{
	unsigned int sim_flags = (flags & HROCE_BUS_DMA_WRITE ? HROCE_SIM_MAP_WRITE : 0) |
				 (flags & HROCE_BUS_DMA_USER ? HROCE_SIM_MAP_PIN : 0);

	return hroce_sim_dma_map_flags(to_sim(bus)->sim, vaddr, iova, len, sim_flags);
}

static int sim_dma_unmap(struct hroce_bus *bus, uint64_t iova, uint64_t len)
{
	return hroce_sim_dma_unmap(to_sim(bus)->sim, iova, len);
}

static void sim_idle(struct hroce_bus *bus)
{
	hroce_sim_world_idle(hroce_sim_world_of(to_sim(bus)->sim), SIM_IDLE_CYCLES);
}

static void sim_pause(struct hroce_bus *bus, uint64_t ns)
{
	struct hroce_sim_world *w = hroce_sim_world_of(to_sim(bus)->sim);
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	/* a world the caller steps stands still while the caller sleeps */
	if (!hroce_sim_world_running(w))
		hroce_sim_world_idle(w, SIM_IDLE_CYCLES);
	else if (hroce_sim_world_quantum(w))
		hroce_sim_world_idle(w, ns * to_sim(bus)->clock_mhz / 1000); /* simulated time */
	else
		nanosleep(&ts, NULL);
}

static uint64_t sim_take_irqs(struct hroce_bus *bus)
{
	struct sim_bus *sb = to_sim(bus);
	uint64_t count;

	/* the eventfd first: a vector that fires after the exchange leaves it readable */
	while (read(sb->irq_fd, &count, sizeof(count)) == sizeof(count))
		;
	return atomic_exchange(&sb->irqs, 0);
}

static uint64_t sim_iova_faults(struct hroce_bus *bus)
{
	return hroce_sim_faults(to_sim(bus)->sim, NULL);
}

static void sim_stats(struct hroce_bus *bus,
		      void (*emit)(void *ctx, const char *name, uint64_t value), void *ctx)
{
	struct hroce_sim *sim = to_sim(bus)->sim;
	struct hroce_sim_world *w = hroce_sim_world_of(sim);
	struct hroce_sim_wire *x = hroce_sim_wire_of(sim);
	struct hroce_sim_ext *ext = hroce_sim_ext_of(sim);
	struct hroce_sim_world_stats ws;

	hroce_sim_world_stats(w, &ws);
	emit(ctx, "sim.ns", hroce_sim_world_ns(w));
	emit(ctx, "sim.cycles", ws.cycles);
	emit(ctx, "sim.cycles_run", ws.cycles_run);
	emit(ctx, "sim.cycles_skipped", ws.cycles_skipped);
	emit(ctx, "sim.sleeps", ws.sleeps);
	emit(ctx, "sim.peer_waits", ws.peer_waits);
	emit(ctx, "sim.lockstep_quantum", hroce_sim_world_quantum(w));
	emit(ctx, "sim.lockstep_stalls", ws.stalls);
	if (hroce_sim_model_of(sim) == HROCE_SIM_MODEL_SHELL) {
		struct hroce_sim_nic_stats ns;

		hroce_sim_nic_stats(sim, &ns);
		emit(ctx, "shell.mac_rx_dropped", ns.mac_rx_dropped);
		emit(ctx, "shell.msix_messages", ns.msix_messages);
		emit(ctx, "shell.msix_stray", ns.msix_stray);
		emit(ctx, "shell.iprogs", ns.iprogs);
		emit(ctx, "shell.iprog_wbstar", ns.iprog_wbstar);
	}
	if (x) {
		struct hroce_sim_frame_fault_stats fs;
		struct hroce_sim_wire_stats st;

		hroce_sim_wire_stats(x, &st);
		emit(ctx, "wire.frames_sent", st.frames_sent);
		emit(ctx, "wire.frames_received", st.frames_received);
		emit(ctx, "wire.frames_dropped", st.frames_dropped);
		emit(ctx, "wire.frames_aborted", st.frames_aborted);
		emit(ctx, "wire.link_downs", st.link_downs);
		emit(ctx, "wire.waits", st.waits);
		emit(ctx, "wire.wait_ns", st.wait_ns);
		/* what the faults did to the frames this side sent */
		hroce_sim_wire_fault_stats(x, &fs);
		emit(ctx, "wire.fault_frames", fs.frames);
		emit(ctx, "wire.fault_dropped_random", fs.dropped_random);
		emit(ctx, "wire.fault_dropped_burst", fs.dropped_burst);
		emit(ctx, "wire.fault_flipped", fs.flipped);
		emit(ctx, "wire.fault_duplicated", fs.duplicated);
		emit(ctx, "wire.fault_reordered", fs.reordered);
		emit(ctx, "wire.fault_directed", fs.directed);
	}
	if (ext) {
		struct hroce_sim_frame_fault_stats fs;
		struct hroce_sim_ext_stats st;

		hroce_sim_ext_stats(ext, &st);
		emit(ctx, "port.tx_frames", st.tx_frames);
		emit(ctx, "port.tx_errors", st.tx_errors);
		emit(ctx, "port.tx_aborted", st.tx_aborted);
		emit(ctx, "port.tx_oversize", st.tx_oversize);
		emit(ctx, "port.rx_datagrams", st.rx_datagrams);
		emit(ctx, "port.rx_frames", st.rx_frames);
		emit(ctx, "port.rx_queue_full", st.rx_queue_full);
		emit(ctx, "port.rx_socket_drops", st.rx_socket_drops);
		emit(ctx, "port.rx_empty", st.rx_empty);
		emit(ctx, "port.rx_oversize", st.rx_oversize);
		emit(ctx, "port.rx_errors", st.rx_errors);
		hroce_sim_ext_fault_stats(ext, &fs);
		emit(ctx, "port.fault_frames", fs.frames);
		emit(ctx, "port.fault_dropped", fs.dropped_random + fs.dropped_burst + fs.directed);
		emit(ctx, "port.fault_flipped", fs.flipped);
	}
}

static int sim_irq_fd(struct hroce_bus *bus)
{
	return to_sim(bus)->irq_fd;
}

/* From inside the simulation (the world's thread, or a step): record, then signal. */
static void sim_irq(void *ctx, unsigned int vector)
{
	struct sim_bus *sb = ctx;
	uint64_t one = 1;

	if (vector >= 64)
		return;
	atomic_fetch_or(&sb->irqs, UINT64_C(1) << vector);
	if (write(sb->irq_fd, &one, sizeof(one)) != sizeof(one))
		hroce_log(HROCE_LOG_WARN, "%s: interrupt eventfd: %s", sb->bus.name,
			  strerror(errno));
}

static const struct hroce_bus_ops sim_bus_ops = {
	.name = "sim",
	.close = sim_close,
	.mmio_write = sim_mmio_write,
	.mmio_write_wc = sim_mmio_write_wc,
	.mmio_read64 = sim_mmio_read64,
	.mmio_write32 = sim_mmio_write32,
	.mmio_read32 = sim_mmio_read32,
	.dma_map = sim_dma_map,
	.dma_unmap = sim_dma_unmap,
	.idle = sim_idle,
	.pause = sim_pause,
	.take_irqs = sim_take_irqs,
	.irq_fd = sim_irq_fd,
	.iova_faults = sim_iova_faults,
	.stats = sim_stats,
};

_Static_assert(HROCE_CONFIG_PCIE_BURSTS_DEFAULT == HROCE_SIM_PCIE_BRIDGE_BURSTS &&
		       HROCE_CONFIG_PCIE_BURSTS_MAX == HROCE_SIM_PCIE_BURSTS_MAX,
	       "the configuration's PCIe bridge is the simulator's");
/* The faults of the frames a device sends, as its configuration gives them. */
static void config_faults(const struct hroce_config_dev *d, struct hroce_sim_frame_faults *f)
{
	static const enum hroce_sim_fault_action actions[] = {
		[HROCE_CONFIG_FAULT_DROP] = HROCE_SIM_FAULT_DROP,
		[HROCE_CONFIG_FAULT_DUP] = HROCE_SIM_FAULT_DUP,
		[HROCE_CONFIG_FAULT_DELAY] = HROCE_SIM_FAULT_DELAY,
	};

	*f = (struct hroce_sim_frame_faults){
		.seed = d->fault_seed,
		.drop = d->loss,
		.burst_enter = d->burst_enter,
		.burst_leave = d->burst_leave,
		.burst_loss = d->burst_loss,
		.good_loss = d->burst_good_loss,
		.flip = d->flip,
		.dup = d->dup,
		.reorder = d->reorder,
		.reorder_depth = d->reorder_depth,
		.nrules = d->nfault_rules,
	};
	for (unsigned int i = 0; i < d->nfault_rules; i++) {
		const struct hroce_config_fault_rule *r = &d->fault_rules[i];

		/* both say "any" with all ones */
		f->rules[i] = (struct hroce_sim_fault_rule){
			actions[r->action], r->nth, r->opcode, r->psn, r->dqpn, r->depth,
		};
	}
}

/* The NIC's port on its configured shared-memory wire, or on an external port. */
static int plug_port(const char *spec, const struct hroce_config_dev *d, struct hroce_sim *sim)
{
	const char *pcap = *d->pcap ? d->pcap : NULL;
	struct hroce_sim_frame_faults faults;
	int err;

	config_faults(d, &faults);
	if (hroce_sim_ext_is_endpoint(d->wire)) {
		struct hroce_sim_ext_params ep = { d->wire, d->link_ns, d->link_gbps, pcap };
		struct hroce_sim_ext *x = hroce_sim_ext_attach(sim, &ep);

		if (!x) {
			err = errno;
			hroce_log(HROCE_LOG_ERR, "%s: cannot open the external port %s: %s", spec,
				  d->wire, strerror(err));
			return err;
		}
		err = hroce_sim_ext_set_faults(x, &faults);
	} else {
		struct hroce_sim_wire_params wp = {
			d->wire, d->port, d->link_ns, d->link_gbps, pcap,
		};
		struct hroce_sim_wire *x = hroce_sim_wire_attach(sim, &wp);

		if (!x) {
			err = errno;
			hroce_log(HROCE_LOG_ERR, "%s: cannot attach to port %u of wire %s: %s",
				  spec, d->port, d->wire, strerror(err));
			return err;
		}
		err = hroce_sim_wire_set_faults(x, &faults);
	}
	if (err)
		hroce_log(HROCE_LOG_ERR, "%s: faults of %s: %s", spec, d->wire, strerror(err));
	return err;
}

/* The configured NIC of spec sim:name: its world, the NIC, its wire, the thread. */
/*
 * $HROCE_LOCKSTEP: 1 (on), 0 or unset (off); $HROCE_LOCKSTEP_NS: the quantum (default
 * link_ns). Anything else is refused with what to set. quantum_ns: 0 for off.
 */
static int lockstep_asked(const char *spec, const struct hroce_config_dev *d, uint32_t *quantum_ns)
{
	const char *v = getenv(SIM_LOCKSTEP_ENV), *q = getenv(SIM_LOCKSTEP_NS_ENV);
	char *end;
	unsigned long ns;

	*quantum_ns = 0;
	if (v && *v && strcmp(v, "0") && strcmp(v, "1")) {
		hroce_log(HROCE_LOG_ERR,
			  "%s: $%s=\"%s\": set it to 1 (lockstep) or 0 (free-running)", spec,
			  SIM_LOCKSTEP_ENV, v);
		return EINVAL;
	}
	if (!v || strcmp(v, "1"))
		return 0;
	*quantum_ns = d->link_ns;
	if (!q || !*q)
		return 0;
	errno = 0;
	ns = strtoul(q, &end, 10);
	if (errno || *end || !ns || ns > d->link_ns) {
		hroce_log(HROCE_LOG_ERR,
			  "%s: $%s=\"%s\": the quantum is 1 to %u ns (the wire's link_ns)", spec,
			  SIM_LOCKSTEP_NS_ENV, q, d->link_ns);
		return EINVAL;
	}
	*quantum_ns = (uint32_t)ns;
	return 0;
}

static int create_nic(const char *name, struct hroce_sim **out, uint32_t *clock_mhz)
{
	uint32_t quantum_ns;
	char spec[128];
	const struct hroce_config_dev *d;
	struct hroce_config *cfg;
	struct hroce_sim_world *w;
	struct hroce_sim *sim;
	int err;

	err = hroce_config_load(&cfg);
	if (err)
		return err;
	snprintf(spec, sizeof(spec), "sim:%s", name);
	d = hroce_config_find_spec(cfg, spec);
	if (!d) {
		hroce_log(HROCE_LOG_ERR,
			  "%s: no simulated NIC of that name in this process, and no device of "
			  "that spec in the configuration (%s, $%s)",
			  spec, hroce_config_source(cfg), HROCE_CONFIG_ENV);
		hroce_config_free(cfg);
		return ENODEV;
	}
	err = lockstep_asked(spec, d, &quantum_ns);
	if (err)
		goto err_cfg;
	w = hroce_sim_world_create(d->clock_mhz);
	if (!w) {
		err = errno;
		goto err_cfg;
	}
	if (quantum_ns)
		hroce_sim_world_set_lockstep(w, quantum_ns);
	struct hroce_sim_params sp = {
		.name = name,
		.pcie = { d->pcie_read_ns, d->pcie_write_ns, d->pcie_gbps, d->pcie_reads,
			  d->pcie_writes },
		.model = d->model == HROCE_CONFIG_MODEL_SHELL ? HROCE_SIM_MODEL_SHELL
							      : HROCE_SIM_MODEL_CORE,
		.flash_path = *d->flash ? d->flash : NULL,
		.flash_time_divisor = d->flash_time_divisor,
	};
	sim = hroce_sim_create(w, &sp);
	if (!sim) {
		err = errno;
		hroce_log(HROCE_LOG_ERR, "%s: cannot create the simulated NIC: %s", spec,
			  strerror(err));
		goto err_world;
	}
	if (*d->wire) {
		err = plug_port(spec, d, sim);
		if (err)
			goto err_world;
	}
	err = hroce_sim_world_start(w);
	if (err)
		goto err_world;
	hroce_config_free(cfg);
	*out = sim;
	*clock_mhz = d->clock_mhz;
	return 0;

err_world:
	hroce_sim_world_destroy(w);
err_cfg:
	hroce_config_free(cfg);
	return err;
}

int hroce_bus_sim_open(const char *arg, struct hroce_bus **bus)
{
	struct hroce_sim *sim;
	struct sim_bus *sb;
	int err = 0;

	sb = calloc(1, sizeof(*sb));
	if (!sb)
		return ENOMEM;
	sb->irq_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (sb->irq_fd < 0) {
		err = errno;
		free(sb);
		return err;
	}
	pthread_mutex_lock(&created_lock);
	sim = hroce_sim_find(arg);
	for (const struct sim_bus *c = created_list; c && sim; c = c->next_created) {
		if (c->sim == sim) {
			hroce_log(HROCE_LOG_ERR, "sim:%s: already open in this process", arg);
			err = EBUSY;
		}
	}
	if (!sim && !err) {
		err = create_nic(arg, &sim, &sb->clock_mhz);
		if (!err) {
			struct hroce_sim_world *none = NULL;

			sb->own_world = hroce_sim_world_of(sim);
			if (hroce_sim_world_quantum(sb->own_world))
				atomic_compare_exchange_strong(&lockstep_world, &none,
							       sb->own_world);
			sb->next_created = created_list;
			created_list = sb;
			if (!exit_hooked)
				exit_hooked = !atexit(stop_at_exit) &&
					      !pthread_atfork(created_lock_take, created_lock_give,
							      created_lock_give);
		}
	}
	sb->bus.ops = &sim_bus_ops;
	sb->bus.db_size = UINT64_C(1) << HROCE_DB_ADDR_WIDTH;
	sb->owner = getpid();
	snprintf(sb->bus.name, sizeof(sb->bus.name), "sim:%s", arg);
	sb->sim = sim;
	pthread_mutex_unlock(&created_lock);
	if (err) {
		close(sb->irq_fd);
		free(sb);
		return err;
	}
	hroce_sim_set_irq_handler(sim, sim_irq, sb);
	*bus = &sb->bus;
	return 0;
}

/* ------------------------------------------------------------------------------------- */
/* Lockstep: the program's out-of-band channel (hroce.h) */

static const enum hroce_sim_oob oob_kind[] = {
	[HROCE_OOB_BYTES] = HROCE_SIM_OOB_BYTES,
	[HROCE_OOB_CONNECTS] = HROCE_SIM_OOB_CONNECTS,
};

bool hroce_lockstep(void)
{
	return atomic_load(&lockstep_world) != NULL;
}

void hroce_oob_sent(enum hroce_oob kind, int64_t n)
{
	struct hroce_sim_world *w = atomic_load(&lockstep_world);

	if (w)
		hroce_sim_oob_sent(w, oob_kind[kind], n);
}

bool hroce_oob_wait(enum hroce_oob kind)
{
	struct hroce_sim_world *w = atomic_load(&lockstep_world);

	return w && hroce_sim_oob_wait(w, oob_kind[kind]);
}

void hroce_oob_taken(enum hroce_oob kind, uint64_t n)
{
	struct hroce_sim_world *w = atomic_load(&lockstep_world);

	if (w)
		hroce_sim_oob_taken(w, oob_kind[kind], n);
}

bool hroce_wait_poll(struct pollfd *fds, unsigned int n)
{
	struct hroce_sim_world *w = atomic_load(&lockstep_world);

	return w && hroce_sim_wait_poll(w, fds, n);
}
