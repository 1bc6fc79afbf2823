// SPDX-License-Identifier: MIT
#include "sim_bus.h"

#include <errno.h>
#include <stdio.h>

void sim_axi_bus_wire(struct sim_axi_bus *bus, struct sim_axi_wires *w)
{
	*bus = (struct sim_axi_bus){
		.arid = &w->arid,
		.arlen = &w->arlen,
		.arsize = &w->arsize,
		.arburst = &w->arburst,
		.arvalid = &w->arvalid,
		.arready = &w->arready,
		.araddr = &w->araddr,
		.rid = &w->rid,
		.rresp = &w->rresp,
		.rlast = &w->rlast,
		.rvalid = &w->rvalid,
		.rready = &w->rready,
		.rdata = w->rdata,
		.awid = &w->awid,
		.awlen = &w->awlen,
		.awsize = &w->awsize,
		.awburst = &w->awburst,
		.awvalid = &w->awvalid,
		.awready = &w->awready,
		.awaddr = &w->awaddr,
		.wdata = w->wdata,
		.wstrb = &w->wstrb,
		.wlast = &w->wlast,
		.wvalid = &w->wvalid,
		.wready = &w->wready,
		.bid = &w->bid,
		.bresp = &w->bresp,
		.bvalid = &w->bvalid,
		.bready = &w->bready,
	};
}

void sim_axis_bus_wire(struct sim_axis_bus *bus, struct sim_axis_wires *w)
{
	*bus = (struct sim_axis_bus){
		.tdata = w->tdata,
		.tkeep = &w->tkeep,
		.tvalid = &w->tvalid,
		.tready = &w->tready,
		.tlast = &w->tlast,
		.tuser = &w->tuser,
	};
}

/* One signal: its name after the prefix, its width, and whether the model takes it in. */
struct sig {
	const char *name;
	unsigned int width;
	bool input;
	void **ptr;
};

static int bind(const struct vmodel *vm, const char *prefix, const struct sig *sigs, size_t n)
{
	char name[64];

	for (size_t i = 0; i < n; i++) {
		const struct vmodel_port *p;

		snprintf(name, sizeof(name), "%s%s", prefix, sigs[i].name);
		p = vmodel_port(vm, name);
		if (!p || p->width != sigs[i].width || p->input != sigs[i].input)
			return EINVAL;
		*sigs[i].ptr = p->ptr;
	}
	return 0;
}

#define SIG(bus, field, width, input)                        \
	{                                                    \
#field, width, input, (void **)&(bus)->field \
	}

int sim_axi_bus_bind(struct sim_axi_bus *bus, const struct vmodel *vm, const char *prefix)
{
	/* directions as the model (the master) sees them */
	const struct sig sigs[] = {
		SIG(bus, arid, 8, false),    SIG(bus, arlen, 8, false),
		SIG(bus, arsize, 3, false),  SIG(bus, arburst, 2, false),
		SIG(bus, arvalid, 1, false), SIG(bus, arready, 1, true),
		SIG(bus, araddr, 64, false), SIG(bus, rid, 8, true),
		SIG(bus, rresp, 2, true),    SIG(bus, rlast, 1, true),
		SIG(bus, rvalid, 1, true),   SIG(bus, rready, 1, false),
		SIG(bus, rdata, 512, true),  SIG(bus, awid, 8, false),
		SIG(bus, awlen, 8, false),   SIG(bus, awsize, 3, false),
		SIG(bus, awburst, 2, false), SIG(bus, awvalid, 1, false),
		SIG(bus, awready, 1, true),  SIG(bus, awaddr, 64, false),
		SIG(bus, wdata, 512, false), SIG(bus, wstrb, 64, false),
		SIG(bus, wlast, 1, false),   SIG(bus, wvalid, 1, false),
		SIG(bus, wready, 1, true),   SIG(bus, bid, 8, true),
		SIG(bus, bresp, 2, true),    SIG(bus, bvalid, 1, true),
		SIG(bus, bready, 1, false),
	};

	return bind(vm, prefix, sigs, sizeof(sigs) / sizeof(sigs[0]));
}

int sim_axis_bus_bind(struct sim_axis_bus *bus, const struct vmodel *vm, const char *prefix,
		      bool master)
{
	const struct sig sigs[] = {
		SIG(bus, tdata, 512, !master), SIG(bus, tkeep, 64, !master),
		SIG(bus, tvalid, 1, !master),  SIG(bus, tready, 1, master),
		SIG(bus, tlast, 1, !master),   SIG(bus, tuser, 1, !master),
	};

	return bind(vm, prefix, sigs, sizeof(sigs) / sizeof(sigs[0]));
}

int sim_axil_bus_bind(struct sim_axil_bus *bus, const struct vmodel *vm, const char *prefix)
{
	const struct sig sigs[] = {
		SIG(bus, awaddr, 16, true), SIG(bus, araddr, 16, true),
		SIG(bus, awvalid, 1, true), SIG(bus, awready, 1, false),
		SIG(bus, wstrb, 8, true),   SIG(bus, wvalid, 1, true),
		SIG(bus, wready, 1, false), SIG(bus, bresp, 2, false),
		SIG(bus, bvalid, 1, false), SIG(bus, bready, 1, true),
		SIG(bus, arvalid, 1, true), SIG(bus, arready, 1, false),
		SIG(bus, rresp, 2, false),  SIG(bus, rvalid, 1, false),
		SIG(bus, rready, 1, true),  SIG(bus, wdata, 64, true),
		SIG(bus, rdata, 64, false),
	};

	return bind(vm, prefix, sigs, sizeof(sigs) / sizeof(sigs[0]));
}

int sim_axi_db_bus_bind(struct sim_axi_db_bus *bus, const struct vmodel *vm, const char *prefix)
{
	const struct sig sigs[] = {
		SIG(bus, awaddr, 16, true), SIG(bus, awlen, 8, true),	 SIG(bus, awsize, 3, true),
		SIG(bus, awvalid, 1, true), SIG(bus, awready, 1, false), SIG(bus, wdata, 512, true),
		SIG(bus, wstrb, 64, true),  SIG(bus, wlast, 1, true),	 SIG(bus, wvalid, 1, true),
		SIG(bus, wready, 1, false), SIG(bus, bresp, 2, false),	 SIG(bus, bvalid, 1, false),
		SIG(bus, bready, 1, true),
	};

	return bind(vm, prefix, sigs, sizeof(sigs) / sizeof(sigs[0]));
}

int sim_axil32_bus_bind(struct sim_axil32_bus *bus, const struct vmodel *vm, const char *prefix,
			unsigned int addr_width)
{
	const struct sig sigs[] = {
		SIG(bus, awaddr, addr_width, true), SIG(bus, araddr, addr_width, true),
		SIG(bus, awvalid, 1, true),	    SIG(bus, awready, 1, false),
		SIG(bus, wstrb, 4, true),	    SIG(bus, wvalid, 1, true),
		SIG(bus, wready, 1, false),	    SIG(bus, bresp, 2, false),
		SIG(bus, bvalid, 1, false),	    SIG(bus, bready, 1, true),
		SIG(bus, arvalid, 1, true),	    SIG(bus, arready, 1, false),
		SIG(bus, rresp, 2, false),	    SIG(bus, rvalid, 1, false),
		SIG(bus, rready, 1, true),	    SIG(bus, wdata, 32, true),
		SIG(bus, rdata, 32, false),
	};

	if (addr_width < 17 || addr_width > 32)
		return EINVAL;
	return bind(vm, prefix, sigs, sizeof(sigs) / sizeof(sigs[0]));
}

int sim_axis_bus_bind_unready(struct sim_axis_bus *bus, const struct vmodel *vm, const char *prefix,
			      uint8_t *ready)
{
	const struct sig sigs[] = {
		SIG(bus, tdata, 512, true), SIG(bus, tkeep, 64, true), SIG(bus, tvalid, 1, true),
		SIG(bus, tlast, 1, true),   SIG(bus, tuser, 1, true),
	};

	bus->tready = ready;
	*ready = 1;
	return bind(vm, prefix, sigs, sizeof(sigs) / sizeof(sigs[0]));
}
