/* SPDX-License-Identifier: MIT */
/*
 * The buses between the platform's models and a core, as typed pointers to the signals.
 *
 * A model reads and writes the signals in place, so that the C side costs no copy: bound to
 * a Verilated model they point into its ports (widths checked once), bound to a
 * struct sim_*_wires they point into plain variables that a test drives itself. Wide data
 * is 32-bit words, byte lane 0 first, as Verilator stores it on a little-endian host.
 */
#ifndef HROCE_SIM_BUS_H
#define HROCE_SIM_BUS_H

#include <stdbool.h>
#include <stdint.h>

#include "vmodel.h"

#define SIM_DATA_BYTES 64 /* the core's 512-bit datapath and host bus */
#define SIM_DATA_WORDS (SIM_DATA_BYTES / 4)

enum sim_axi_resp {
	SIM_AXI_OKAY = 0,
	SIM_AXI_EXOKAY = 1,
	SIM_AXI_SLVERR = 2,
	SIM_AXI_DECERR = 3,
};

#define SIM_AXI_BURST_FIXED 0
#define SIM_AXI_BURST_INCR 1
#define SIM_AXI_BURST_WRAP 2

/* AXI4, 8-bit IDs, 64-bit addresses, 512-bit data (the core's m_axi_*). */
struct sim_axi_bus {
	uint8_t *arid, *arlen, *arsize, *arburst, *arvalid, *arready;
	uint64_t *araddr;
	uint8_t *rid, *rresp, *rlast, *rvalid, *rready;
	uint32_t *rdata;
	uint8_t *awid, *awlen, *awsize, *awburst, *awvalid, *awready;
	uint64_t *awaddr;
	uint32_t *wdata;
	uint64_t *wstrb;
	uint8_t *wlast, *wvalid, *wready;
	uint8_t *bid, *bresp, *bvalid, *bready;
};

/* AXI-Stream, 512-bit data with tkeep, tlast and tuser. */
struct sim_axis_bus {
	uint32_t *tdata;
	uint64_t *tkeep;
	uint8_t *tvalid, *tready, *tlast, *tuser;
};

/* AXI4-Lite, 16-bit addresses, 64-bit data (the core's s_axil_*). */
struct sim_axil_bus {
	uint16_t *awaddr, *araddr;
	uint8_t *awvalid, *awready, *wstrb, *wvalid, *wready, *bresp, *bvalid, *bready;
	uint8_t *arvalid, *arready, *rresp, *rvalid, *rready;
	uint64_t *wdata, *rdata;
};

/*
 * AXI4-Lite, up to 32-bit addresses, 32-bit data: the PCIe bridge's BAR master, as the board
 * shell (firmware/rtl/hroce_shell.v) takes BAR0 (s_axil_*) and BAR2 (s_axil_msix_*).
 */
struct sim_axil32_bus {
	uint32_t *awaddr, *araddr;
	uint8_t *awvalid, *awready, *wstrb, *wvalid, *wready, *bresp, *bvalid, *bready;
	uint8_t *arvalid, *arready, *rresp, *rvalid, *rready;
	uint32_t *wdata, *rdata;
};

/*
 * AXI4 write only, 16-bit addresses, 512-bit data: the core's doorbell pages (s_axi_db_*),
 * as the PCIe bridge's BAR master gives them.
 */
struct sim_axi_db_bus {
	uint16_t *awaddr;
	uint8_t *awlen, *awsize, *awvalid, *awready;
	uint32_t *wdata;
	uint64_t *wstrb;
	uint8_t *wlast, *wvalid, *wready, *bresp, *bvalid, *bready;
};

/* Storage for a bus that is not a model's: what a test drives. */
struct sim_axi_wires {
	uint8_t arid, arlen, arsize, arburst, arvalid, arready;
	uint64_t araddr;
	uint8_t rid, rresp, rlast, rvalid, rready;
	uint32_t rdata[SIM_DATA_WORDS];
	uint8_t awid, awlen, awsize, awburst, awvalid, awready;
	uint64_t awaddr;
	uint32_t wdata[SIM_DATA_WORDS];
	uint64_t wstrb;
	uint8_t wlast, wvalid, wready;
	uint8_t bid, bresp, bvalid, bready;
};

struct sim_axis_wires {
	uint32_t tdata[SIM_DATA_WORDS];
	uint64_t tkeep;
	uint8_t tvalid, tready, tlast, tuser;
};

void sim_axi_bus_wire(struct sim_axi_bus *bus, struct sim_axi_wires *w);
void sim_axis_bus_wire(struct sim_axis_bus *bus, struct sim_axis_wires *w);

/*
 * Binds a bus to a model's ports named PREFIX + signal ("m_axi_" + "arid"). EINVAL if a
 * port is missing or has another width or direction than the bus expects.
 */
int sim_axi_bus_bind(struct sim_axi_bus *bus, const struct vmodel *vm, const char *prefix);
/* master: the model drives the stream (m_axis_tx_), else it receives it (s_axis_rx_). */
int sim_axis_bus_bind(struct sim_axis_bus *bus, const struct vmodel *vm, const char *prefix,
		      bool master);
int sim_axil_bus_bind(struct sim_axil_bus *bus, const struct vmodel *vm, const char *prefix);
int sim_axi_db_bus_bind(struct sim_axi_db_bus *bus, const struct vmodel *vm, const char *prefix);
/* addr_width: of its addresses (17 to 32 bits). */
int sim_axil32_bus_bind(struct sim_axil32_bus *bus, const struct vmodel *vm, const char *prefix,
			unsigned int addr_width);
/*
 * A stream the model receives without back-pressure (a MAC's RX: no tready port): tready
 * points to *ready, which the caller keeps at 1.
 */
int sim_axis_bus_bind_unready(struct sim_axis_bus *bus, const struct vmodel *vm, const char *prefix,
			      uint8_t *ready);

#endif /* HROCE_SIM_BUS_H */
