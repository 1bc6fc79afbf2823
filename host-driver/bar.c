// SPDX-License-Identifier: MIT
/* A device's bus by its spec, for hroce_open and for tools (hroce_bar.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hroce_bar.h"
#include "hroce_bus.h"
#include "hroce_priv.h"

struct hroce_bar {
	struct hroce_bus *bus;
};

int hroce_bus_open(const char *spec, struct hroce_bus **bus)
{
	if (!strncmp(spec, "sim:", 4))
		return hroce_bus_sim_open(spec + 4, bus);
	if (!strncmp(spec, "vfio:", 5))
		return hroce_bus_vfio_open(spec + 5, bus);
	hroce_log(HROCE_LOG_ERR,
		  "%s: unknown device; a device is \"sim:NAME\" (a simulated NIC) or "
		  "\"vfio:DDDD:BB:DD.F\" (a board)",
		  spec);
	return ENODEV;
}

int hroce_bar_open(const char *spec, struct hroce_bar **out)
{
	struct hroce_bar *bar = calloc(1, sizeof(*bar));
	int err;

	if (!bar)
		return ENOMEM;
	err = hroce_bus_open(spec, &bar->bus);
	if (err) {
		free(bar);
		return err;
	}
	*out = bar;
	return 0;
}

void hroce_bar_close(struct hroce_bar *bar)
{
	if (!bar)
		return;
	bar->bus->ops->close(bar->bus);
	free(bar);
}

const char *hroce_bar_name(const struct hroce_bar *bar)
{
	return bar->bus->name;
}

uint32_t hroce_bar_read32(struct hroce_bar *bar, uint64_t offset)
{
	return bar->bus->ops->mmio_read32(bar->bus, offset);
}

void hroce_bar_write32(struct hroce_bar *bar, uint64_t offset, uint32_t value)
{
	bar->bus->ops->mmio_write32(bar->bus, offset, value);
}

void hroce_bar_stats(struct hroce_bar *bar,
		     void (*emit)(void *ctx, const char *name, uint64_t value), void *ctx)
{
	if (bar->bus->ops->stats)
		bar->bus->ops->stats(bar->bus, emit, ctx);
}
