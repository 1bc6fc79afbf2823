/* SPDX-License-Identifier: MIT */
/* What the parts of libhroce-sim share: the world, a NIC, a link. */
#ifndef HROCE_SIM_INTERNAL_H
#define HROCE_SIM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hroce_sim.h"
#include "sim_bus.h"
#include "sim_channel.h"
#include "sim_iommu.h"
#include "sim_log.h"
#include "sim_mmio.h"
#include "sim_pcie.h"
#include "vmodel.h"

struct hroce_sim_world {
	uint32_t clock_mhz;
	uint64_t period_ps;
	uint64_t cycle; /* cycles done: the one under way in a step */
	struct hroce_sim **nics;
	size_t nnics, cap;
	bool stepping;
};

struct hroce_sim {
	struct hroce_sim_world *w;
	struct hroce_sim *next; /* in the process's list, for hroce_sim_find() */
	char *name;
	struct vmodel vm;
	bool tracing;
	uint64_t trace_from, trace_to; /* the cycles recorded: [from, to) */
	uint8_t *clk, *rst, *irq_vector, *irq_valid, *irq_ready;
	uint64_t *time_now;
	struct sim_axi_bus axi;
	struct sim_axis_bus tx, rx;
	struct sim_axil_bus axil;
	struct sim_iommu iommu;
	struct sim_pcie pcie;
	struct sim_mmio mmio;
	uint32_t read_latency, write_latency; /* cycles */
	struct hroce_sim_link *link;
	struct sim_channel *tx_ch, *rx_ch; /* the link's directions out of and into the core */
	void (*irq_fn)(void *ctx, unsigned int vector);
	void *irq_ctx;
	void (*obs_fn)(void *ctx, const struct hroce_sim *s, const struct hroce_sim_event *ev);
	void *obs_ctx;
};

struct hroce_sim_link {
	struct hroce_sim *a, *b;
	struct sim_channel ch[2]; /* a to b, b to a (one only if a is b) */
	unsigned int nch;
	struct pcap_file *pcap;
	/* hroce_sim_link_set_tap(): the function, and the sender of each channel */
	void (*tap_fn)(void *ctx, const struct hroce_sim *from, const void *frame, size_t len);
	void *tap_ctx;
	struct sim_link_tap {
		struct hroce_sim_link *l;
		struct hroce_sim *from;
	} taps[2];
};

static inline uint64_t sim_cycles_to_ns(const struct hroce_sim_world *w, uint64_t cycles)
{
	return cycles * 1000 / w->clock_mhz;
}

/* At least the time asked for. */
static inline uint32_t sim_ns_to_cycles(const struct hroce_sim_world *w, uint32_t ns)
{
	return (uint32_t)(((uint64_t)ns * w->clock_mhz + 999) / 1000);
}

int sim_world_add(struct hroce_sim_world *w, struct hroce_sim *s);
void sim_world_remove(struct hroce_sim_world *w, struct hroce_sim *s);
/* One clock cycle of a NIC: its models drive, the core settles, they sample, rising edge. */
void sim_nic_cycle(struct hroce_sim *s, uint64_t now);
void sim_nic_event(struct hroce_sim *s, enum hroce_sim_event_kind kind, uint64_t cycle,
		   uint64_t addr, uint64_t len);

#endif /* HROCE_SIM_INTERNAL_H */
