// SPDX-License-Identifier: MIT
/*
 * The sim backend: a NIC of libhroce-sim in this process, found by name. MMIO goes
 * through the simulated PCIe link, DMA mappings fill the simulated IOMMU, and idling steps
 * the simulation (the whole world the NIC is in, so that its peers move too).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hroce_bus.h"
#include "hroce_priv.h"
#include "hroce_sim.h"

/* Cycles a poll that found nothing lets pass: a CPU's polling loop takes about this. */
#define SIM_IDLE_CYCLES 4

struct sim_bus {
	struct hroce_bus bus;
	struct hroce_sim *sim;
	uint64_t irqs;
};

static struct sim_bus *to_sim(struct hroce_bus *bus)
{
	return container_of(bus, struct sim_bus, bus);
}

static void sim_close(struct hroce_bus *bus)
{
	struct sim_bus *sb = to_sim(bus);

	hroce_sim_set_irq_handler(sb->sim, NULL, NULL);
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

static int sim_dma_map(struct hroce_bus *bus, void *vaddr, uint64_t iova, uint64_t len)
{
	return hroce_sim_dma_map(to_sim(bus)->sim, vaddr, iova, len);
}

static int sim_dma_unmap(struct hroce_bus *bus, uint64_t iova, uint64_t len)
{
	return hroce_sim_dma_unmap(to_sim(bus)->sim, iova, len);
}

static void sim_idle(struct hroce_bus *bus)
{
	hroce_sim_world_step(hroce_sim_world_of(to_sim(bus)->sim), SIM_IDLE_CYCLES);
}

static uint64_t sim_take_irqs(struct hroce_bus *bus)
{
	struct sim_bus *sb = to_sim(bus);
	uint64_t irqs = sb->irqs;

	sb->irqs = 0;
	return irqs;
}

static void sim_irq(void *ctx, unsigned int vector)
{
	struct sim_bus *sb = ctx;

	if (vector < 64)
		sb->irqs |= UINT64_C(1) << vector;
}

static const struct hroce_bus_ops sim_bus_ops = {
	.name = "sim",
	.close = sim_close,
	.mmio_write = sim_mmio_write,
	.mmio_read64 = sim_mmio_read64,
	.dma_map = sim_dma_map,
	.dma_unmap = sim_dma_unmap,
	.idle = sim_idle,
	.take_irqs = sim_take_irqs,
};

int hroce_bus_sim_open(const char *arg, struct hroce_bus **bus)
{
	struct hroce_sim *sim = hroce_sim_find(arg);
	struct sim_bus *sb;

	if (!sim) {
		hroce_log(HROCE_LOG_ERR,
			  "sim:%s: no simulated NIC of that name in this process (create it with "
			  "hroce_sim_create() first)",
			  arg);
		return ENODEV;
	}
	sb = calloc(1, sizeof(*sb));
	if (!sb)
		return ENOMEM;
	sb->bus.ops = &sim_bus_ops;
	snprintf(sb->bus.name, sizeof(sb->bus.name), "sim:%s", arg);
	sb->sim = sim;
	hroce_sim_set_irq_handler(sim, sim_irq, sb);
	*bus = &sb->bus;
	return 0;
}
