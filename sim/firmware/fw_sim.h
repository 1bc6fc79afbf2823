/* SPDX-License-Identifier: MIT */
/*
 * The board block's vendor pins in simulation: a Verilated model that has the shell's
 * flash pins and ICAPE3 port (board_regs: spi_*, hroce_shell: flash_*; both: icap_*)
 * clocked with the MT25QU01G model and the ICAP model behind them.
 *
 * And a simulated board block: board_regs' model with its register port driven from C,
 * its flash in memory or in a file (so that a flash keeps its contents between runs of the
 * flash tool, as a board's does). The flash tool's sim: backend and the bench use it.
 */
#ifndef HROCE_FW_SIM_H
#define HROCE_FW_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "flash_model.h"
#include "icap_model.h"
#include "vmodel.h"

/* The clock of the shell (the PCIe bridge's user clock: 250 MHz), ns per cycle */
#define FW_SIM_NS_PER_CYCLE 4u

struct fw_pins {
	const struct vmodel_port *sck, *cs_n, *mosi, *miso;
	const struct vmodel_port *csib, *rdwrb, *icap_i, *avail;
	struct flash_model *flash;
	struct icap_model *icap;
	/* the ICAP is clocked every icap_every cycles (the board's ICAP_WORD_CYCLES) */
	unsigned int icap_every;
	uint64_t cycles;
};

/* Finds the pins by either name; 0 or ENOENT. */
int fw_pins_bind(struct fw_pins *p, const struct vmodel *vm, struct flash_model *flash,
		 struct icap_model *icap);
/* Between the falling and the rising clock edge: the models see the outputs, set inputs. */
void fw_pins_eval(struct fw_pins *p, uint64_t now_ns);

/*
 * A flash's memory: in the file path (created all FFh when missing or empty; EINVAL if it
 * has another size), shared with every process that maps it, or in memory (all FFh) when
 * path is NULL. 0 or a positive errno.
 */
int fw_flash_memory(const char *path, size_t size, uint8_t **mem, bool *mapped);
void fw_flash_memory_free(uint8_t *mem, size_t size, bool mapped);

struct fw_sim {
	struct vmodel vm;
	const struct vmodel_port *clk, *rst, *addr, *wdata, *wstrb, *wr, *rdata, *mac_rx_drop;
	struct fw_pins pins;
	struct flash_model flash;
	struct icap_model icap;
	uint8_t *mem;
	bool mapped;
	uint64_t cycle;
	/* flash times are divided by this (1: the data sheet's) */
	unsigned int time_divisor;
};

/*
 * Opens the model and a flash of size bytes: in the file flash_path (created all FFh when
 * missing or empty), or in memory when flash_path is NULL. 0 or a positive errno.
 */
int fw_sim_open(struct fw_sim *s, const struct vmodel_ops *ops, const char *flash_path, size_t size,
		unsigned int time_divisor);
void fw_sim_close(struct fw_sim *s);
void fw_sim_step(struct fw_sim *s);
uint32_t fw_sim_read(struct fw_sim *s, uint32_t off);
void fw_sim_write(struct fw_sim *s, uint32_t off, uint32_t v);
uint64_t fw_sim_now_ns(const struct fw_sim *s);

#endif /* HROCE_FW_SIM_H */
