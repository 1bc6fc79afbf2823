// SPDX-License-Identifier: MIT
/*
 * A SHELL NIC (hroce_sim.h, HROCE_SIM_MODEL_SHELL): the board shell's Verilated model with
 * the core inside, its vendor blocks replaced by the platform's models at their pins.
 *
 * - PCIe bridge: BAR0 is the shell's 32-bit AXI4-Lite (sim_mmio on a 32-bit bus), the
 *   core's AXI4 master goes through the shell to the same PCIe and IOMMU models as a
 *   CORE NIC's, and MSI-X messages (m_msix_*) are the posted writes that become the
 *   vectors' interrupts. The NIC plays the host's kernel once, after reset: MSI-X enabled,
 *   the function unmasked, every vector of the table (BAR2) given HROCE_SIM_MSIX_ADDR and
 *   its own number as data, and unmasked. The doorbell pages (BAR4, s_axi_db_*) are the
 *   bridge's 512-bit AXI4 master as the shell takes it: one write a beat.
 * - MAC: the shell's MAC-side streams, clocked with the core's clock (the FIFOs still cross
 *   their clock domains as on the board); RX has no back-pressure.
 * - STARTUPE3 and ICAPE3: the flash pins on the MT25QU01G model, the ICAP on its model.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

extern const struct vmodel_ops vmodel_Vfw_shell;

#define SHELL_BAR0_ADDR_BITS 17 /* the core's 64 KiB and the board block's */
#define SHELL_MSIX_VECTORS 64	/* the shell's MSIX_VECTORS */
#define SHELL_BAR2_TIMEOUT 1000 /* cycles a table write may take */

/* BAR2's signals, which only the reset drives (sim_shell.bar2) */
static const char *const bar2_names[BAR2_SIGNALS] = {
	[BAR2_AWADDR] = "awaddr", [BAR2_AWVALID] = "awvalid", [BAR2_AWREADY] = "awready",
	[BAR2_WDATA] = "wdata",	  [BAR2_WSTRB] = "wstrb",     [BAR2_WVALID] = "wvalid",
	[BAR2_WREADY] = "wready", [BAR2_BVALID] = "bvalid",   [BAR2_BREADY] = "bready",
	[BAR2_BRESP] = "bresp",	  [BAR2_ARVALID] = "arvalid", [BAR2_RREADY] = "rready",
};

static int bind_ports(struct hroce_sim *s)
{
	struct sim_shell *sh = s->shell;
	int err = sim_nic_bind_clock(s);

	err = err ?: sim_nic_bind_port(s, "mac_clk", 1, true, (void **)&sh->mac_clk);
	err = err ?: sim_nic_bind_port(s, "mac_rst", 1, true, (void **)&sh->mac_rst);
	err = err ?: sim_nic_bind_port(s, "cfg_msix_enable", 1, true, (void **)&sh->msix_enable);
	err = err
		      ?: sim_nic_bind_port(s, "cfg_msix_function_mask", 1, true,
					   (void **)&sh->msix_fmask);
	err = err ?: sim_nic_bind_port(s, "m_msix_addr", 64, false, (void **)&sh->msix_addr);
	err = err ?: sim_nic_bind_port(s, "m_msix_data", 32, false, (void **)&sh->msix_data);
	err = err ?: sim_nic_bind_port(s, "m_msix_valid", 1, false, (void **)&sh->msix_valid);
	err = err ?: sim_nic_bind_port(s, "m_msix_ready", 1, true, (void **)&sh->msix_ready);
	if (err)
		return err;
	/* the platform's interrupt handshake is the MSI-X one */
	s->irq_valid = sh->msix_valid;
	s->irq_ready = sh->msix_ready;
	if (sim_axi_bus_bind(&s->axi, &s->vm, "m_axi_") ||
	    sim_axis_bus_bind(&s->tx, &s->vm, "m_axis_mac_tx_", true) ||
	    sim_axis_bus_bind_unready(&s->rx, &s->vm, "s_axis_mac_rx_", &sh->rx_ready) ||
	    sim_axil32_bus_bind(&sh->bar0, &s->vm, "s_axil_", SHELL_BAR0_ADDR_BITS) ||
	    sim_axi_db_bus_bind(&s->db, &s->vm, "s_axi_db_")) {
		sim_log(HROCE_SIM_LOG_ERR, "%s: the shell's buses are not the ones expected",
			s->name);
		return EINVAL;
	}
	for (unsigned int i = 0; i < BAR2_SIGNALS; i++) {
		char name[40];

		snprintf(name, sizeof(name), "s_axil_msix_%s", bar2_names[i]);
		sh->bar2[i] = vmodel_port(&s->vm, name);
		if (!sh->bar2[i]) {
			sim_log(HROCE_SIM_LOG_ERR, "%s: the shell has no %s", s->name, name);
			return EINVAL;
		}
	}
	if (fw_pins_bind(&sh->pins, &s->vm, &sh->flash, &sh->icap)) {
		sim_log(HROCE_SIM_LOG_ERR, "%s: the shell has no flash or ICAP pins", s->name);
		return EINVAL;
	}
	return 0;
}

int sim_shell_open(struct hroce_sim *s, const struct hroce_sim_params *p)
{
	struct sim_shell *sh = calloc(1, sizeof(*sh));
	int err;

	if (!sh)
		return ENOMEM;
	s->shell = sh;
	err = fw_flash_memory(p->flash_path, FLASH_MT25QU01G_BYTES, &sh->flash_mem,
			      &sh->flash_mapped);
	if (err) {
		sim_log(HROCE_SIM_LOG_ERR, "%s: the flash %s: %s", s->name,
			p->flash_path ? p->flash_path : "in memory", strerror(err));
		goto fail;
	}
	flash_model_init(&sh->flash, sh->flash_mem, FLASH_MT25QU01G_BYTES);
	flash_model_scale_times(&sh->flash, p->flash_time_divisor);
	icap_model_init(&sh->icap);
	err = bind_ports(s);
	if (err)
		goto fail;
	return 0;

fail:
	sim_shell_close(s);
	return err;
}

void sim_shell_close(struct hroce_sim *s)
{
	struct sim_shell *sh = s->shell;

	if (!sh)
		return;
	if (sh->flash_mem)
		fw_flash_memory_free(sh->flash_mem, FLASH_MT25QU01G_BYTES, sh->flash_mapped);
	free(sh);
	s->shell = NULL;
}

static void shell_clock(struct hroce_sim *s)
{
	*s->clk = 0;
	*s->shell->mac_clk = 0;
	s->vm.ops->eval(s->vm.model);
	*s->clk = 1;
	*s->shell->mac_clk = 1;
	s->vm.ops->eval(s->vm.model);
}

/* A 32-bit write into BAR2 (the MSI-X table), clocked here: before the world runs. */
static int bar2_write(struct hroce_sim *s, uint32_t off, uint32_t v)
{
	const struct vmodel_port *const *b = s->shell->bar2;
	bool aw = false, w = false;

	vport_set(b[BAR2_AWADDR], off);
	vport_set(b[BAR2_WDATA], v);
	vport_set(b[BAR2_WSTRB], 0xf);
	vport_set(b[BAR2_AWVALID], 1);
	vport_set(b[BAR2_WVALID], 1);
	for (unsigned int c = 0; c < SHELL_BAR2_TIMEOUT; c++) {
		bool bdone;

		*s->clk = 0;
		*s->shell->mac_clk = 0;
		s->vm.ops->eval(s->vm.model);
		aw = aw || (vport_get(b[BAR2_AWVALID]) && vport_get(b[BAR2_AWREADY]));
		w = w || (vport_get(b[BAR2_WVALID]) && vport_get(b[BAR2_WREADY]));
		bdone = vport_get(b[BAR2_BVALID]);
		*s->clk = 1;
		*s->shell->mac_clk = 1;
		s->vm.ops->eval(s->vm.model);
		if (aw)
			vport_set(b[BAR2_AWVALID], 0);
		if (w)
			vport_set(b[BAR2_WVALID], 0);
		if (bdone)
			return vport_get(b[BAR2_BRESP]) == SIM_AXI_OKAY ? 0 : EIO;
	}
	return ETIMEDOUT;
}

int sim_shell_reset(struct hroce_sim *s, bool out)
{
	struct sim_shell *sh = s->shell;
	int err = 0;

	if (!out) {
		*sh->mac_rst = 1;
		*sh->msix_enable = 0;
		*sh->msix_fmask = 0;
		vport_set(sh->bar2[BAR2_AWVALID], 0);
		vport_set(sh->bar2[BAR2_WVALID], 0);
		vport_set(sh->bar2[BAR2_ARVALID], 0);
		vport_set(sh->bar2[BAR2_BREADY], 1);
		vport_set(sh->bar2[BAR2_RREADY], 1);
		return 0;
	}
	*sh->mac_rst = 0;
	shell_clock(s);
	/* the host's kernel: each vector's entry (address, data), then unmasked */
	for (uint32_t v = 0; v < SHELL_MSIX_VECTORS && !err; v++) {
		err = bar2_write(s, v * 16, (uint32_t)HROCE_SIM_MSIX_ADDR) ?:
		      bar2_write(s, v * 16 + 4, (uint32_t)(HROCE_SIM_MSIX_ADDR >> 32)) ?:
		      bar2_write(s, v * 16 + 8, v) ?: bar2_write(s, v * 16 + 12, 0);
	}
	if (err) {
		sim_log(HROCE_SIM_LOG_ERR, "%s: programming the MSI-X table: %s", s->name,
			strerror(err));
		return err;
	}
	*sh->msix_enable = 1;
	return 0;
}

void sim_shell_sample(struct hroce_sim *s, uint64_t now)
{
	struct sim_shell *sh = s->shell;

	fw_pins_eval(&sh->pins, sim_cycles_to_ns(s->w, now));
	if (*sh->msix_valid && *sh->msix_ready) {
		uint32_t data = *sh->msix_data;

		sh->msix_messages++;
		if (*sh->msix_addr == HROCE_SIM_MSIX_ADDR && data < SHELL_MSIX_VECTORS) {
			sim_pcie_irq(&s->pcie, now, data);
		} else {
			sh->msix_stray++;
			sim_log(HROCE_SIM_LOG_WARN,
				"%s: cycle %llu: an MSI-X message to %#llx with data %#x, which the "
				"table was not given",
				s->name, (unsigned long long)now,
				(unsigned long long)*sh->msix_addr, data);
		}
	}
}
