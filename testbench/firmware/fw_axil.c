// SPDX-License-Identifier: MIT
/* The benches' 32-bit AXI4-Lite master (fw_axil.h). */
#include "fw_axil.h"

#include <stdio.h>
#include <string.h>

static const struct vmodel_port *p(struct fw_axil *a, const char *prefix, const char *name)
{
	char full[64];

	snprintf(full, sizeof(full), "%s_%s", prefix, name);
	return dut_port(a->d, full);
}

void fw_axil_bind(struct fw_axil *a, struct dut *d, const char *prefix)
{
	memset(a, 0, sizeof(*a));
	a->d = d;
	a->awaddr = p(a, prefix, "awaddr");
	a->awvalid = p(a, prefix, "awvalid");
	a->awready = p(a, prefix, "awready");
	a->wdata = p(a, prefix, "wdata");
	a->wstrb = p(a, prefix, "wstrb");
	a->wvalid = p(a, prefix, "wvalid");
	a->wready = p(a, prefix, "wready");
	a->bresp = p(a, prefix, "bresp");
	a->bvalid = p(a, prefix, "bvalid");
	a->bready = p(a, prefix, "bready");
	a->araddr = p(a, prefix, "araddr");
	a->arvalid = p(a, prefix, "arvalid");
	a->arready = p(a, prefix, "arready");
	a->rdata = p(a, prefix, "rdata");
	a->rresp = p(a, prefix, "rresp");
	a->rvalid = p(a, prefix, "rvalid");
	a->rready = p(a, prefix, "rready");
	a->delay_pct = 30;
	a->timeout = 100000;
}

static void idle(struct fw_axil *a)
{
	while (bench_chance(a->d->bench, a->delay_pct))
		dut_step(a->d);
}

/* Steps until the ready port is high at a clock edge, with valid held high. */
static bool handshake(struct fw_axil *a, const struct vmodel_port *valid,
		      const struct vmodel_port *ready)
{
	uint64_t start = a->d->cycle;

	vport_set(valid, 1);
	for (;;) {
		a->d->vm.ops->eval(a->d->vm.model);
		if (vport_get(ready)) {
			dut_step(a->d);
			vport_set(valid, 0);
			return true;
		}
		dut_step(a->d);
		if (a->d->cycle - start > a->timeout) {
			vport_set(valid, 0);
			a->errors++;
			return false;
		}
	}
}

void fw_axil_write(struct fw_axil *a, uint32_t addr, uint32_t data, unsigned int strb)
{
	idle(a);
	vport_set(a->awaddr, addr);
	vport_set(a->wdata, data);
	vport_set(a->wstrb, strb);
	vport_set(a->wvalid, 1);
	if (!handshake(a, a->awvalid, a->awready)) {
		vport_set(a->wvalid, 0);
		return;
	}
	vport_set(a->wvalid, 0);
	idle(a);
	if (handshake(a, a->bready, a->bvalid) && vport_get(a->bresp))
		a->errors++;
}

uint32_t fw_axil_read(struct fw_axil *a, uint32_t addr)
{
	uint32_t v;

	idle(a);
	vport_set(a->araddr, addr);
	if (!handshake(a, a->arvalid, a->arready))
		return 0xffffffff;
	idle(a);
	/* rdata is read in the cycle of the handshake, before the edge */
	{
		uint64_t start = a->d->cycle;

		vport_set(a->rready, 1);
		for (;;) {
			a->d->vm.ops->eval(a->d->vm.model);
			if (vport_get(a->rvalid))
				break;
			dut_step(a->d);
			if (a->d->cycle - start > a->timeout) {
				vport_set(a->rready, 0);
				a->errors++;
				return 0xffffffff;
			}
		}
		v = (uint32_t)vport_get(a->rdata);
		if (vport_get(a->rresp))
			a->errors++;
		dut_step(a->d);
		vport_set(a->rready, 0);
	}
	return v;
}
