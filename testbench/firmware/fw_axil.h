/* SPDX-License-Identifier: MIT */
/*
 * A 32-bit AXI4-Lite master for the benches of the shell (the PCIe bridge's side of BAR0
 * and BAR2): blocking reads and writes that step the model, with random delays before
 * each valid and random back-pressure on B and R, from the bench's seed. AW and W go
 * together and wait for awready (the shell's slaves take them in the same cycle).
 */
#ifndef HROCE_FW_AXIL_H
#define HROCE_FW_AXIL_H

#include <stdint.h>

#include "bench.h"

struct fw_axil {
	struct dut *d;
	const struct vmodel_port *awaddr, *awvalid, *awready, *wdata, *wstrb, *wvalid, *wready;
	const struct vmodel_port *bresp, *bvalid, *bready;
	const struct vmodel_port *araddr, *arvalid, *arready, *rdata, *rresp, *rvalid, *rready;
	unsigned int delay_pct; /* chance of an idle cycle before a valid or a ready */
	uint64_t timeout;	/* cycles a transaction may take */
	unsigned int errors;	/* timeouts and error responses */
};

/* Binds the ports named PREFIX_awaddr... (e.g. "s_axil", "s_axil_msix"). */
void fw_axil_bind(struct fw_axil *a, struct dut *d, const char *prefix);
void fw_axil_write(struct fw_axil *a, uint32_t addr, uint32_t data, unsigned int strb);
uint32_t fw_axil_read(struct fw_axil *a, uint32_t addr);

#endif /* HROCE_FW_AXIL_H */
