/* SPDX-License-Identifier: MIT */
/*
 * A QSPI NOR flash at its pins: the configuration flash of the Alveo U200, Micron
 * MT25QU01G (1 Gbit, 1.8 V), in single-bit SPI mode 0, with the commands the flash tool
 * and a bitstream loader use:
 *   9Fh read ID (20h BBh 21h), 05h status (bit 0 WIP, bit 1 WEL), 70h flag status (bit 7
 *   ready, bit 5 erase error, bit 4 program error, bit 0 4-byte mode), 50h clear flags,
 *   06h/04h write enable/disable, B7h/E9h enter/exit 4-byte address mode, 03h read and 13h
 *   4-byte read, 02h page program and 12h 4-byte page program (a 256-byte page; bytes past
 *   its end wrap to its start), 20h/21h 4 KiB subsector erase, D8h/DCh 64 KiB sector erase.
 * Programming only clears bits; erase sets a sector to FFh. Program and erase start when
 * chip select rises, need the write enable latch, and keep WIP set for their time in
 * simulated nanoseconds; while WIP is set only 05h and 70h are answered. Other commands
 * are counted as unknown and ignored.
 *
 * Faults for the tests: an erase or a program that fails (the flag status says so, the
 * array is left as it was), and a power cut after a number of operations (nothing changes
 * any more, reads answer FFh).
 */
#ifndef HROCE_FLASH_MODEL_H
#define HROCE_FLASH_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FLASH_MT25QU01G_BYTES (128u << 20)
#define FLASH_PAGE_BYTES 256u
#define FLASH_SUBSECTOR_BYTES 4096u
#define FLASH_SECTOR_BYTES 65536u

/* Typical times of the MT25QU01G data sheet (Table "AC characteristics"), ns. */
#define FLASH_T_PAGE_PROGRAM_NS 120000u
#define FLASH_T_SUBSECTOR_ERASE_NS 50000000u
#define FLASH_T_SECTOR_ERASE_NS 150000000u

enum flash_fault {
	FLASH_FAULT_NONE,
	FLASH_FAULT_ERASE,     /* every erase from fault_after on fails */
	FLASH_FAULT_PROGRAM,   /* every page program from fault_after on fails */
	FLASH_FAULT_POWER_CUT, /* after fault_after operations (erases + programs), dead */
};

struct flash_model {
	uint8_t *mem; /* size bytes, owned by the caller (a file, or memory) */
	size_t size;
	/* times, ns (the data sheet's by default; tests may shorten them) */
	uint64_t t_program, t_subsector, t_sector;
	enum flash_fault fault;
	uint64_t fault_after;

	/* bus state */
	bool selected, sck;
	uint8_t in_byte, out_byte;
	unsigned int in_bits, out_bits;
	bool miso;
	unsigned int index; /* bytes received since chip select fell */
	uint8_t cmd;
	uint32_t addr;
	unsigned int addr_bytes;
	uint8_t page[FLASH_PAGE_BYTES];
	bool page_touched[FLASH_PAGE_BYTES];

	/* device state */
	bool wel, four_byte, dead;
	uint8_t flags; /* flag status error bits */
	uint64_t busy_until;
	uint64_t now;

	/* counts, for tests */
	uint64_t programs, erases, unknown, refused;
};

/* mem must hold size bytes; it is not cleared (a fresh flash is all FFh: the caller's). */
void flash_model_init(struct flash_model *f, uint8_t *mem, size_t size);
/* Program and erase times divided by divisor (a simulation that cannot wait 150 ms). */
void flash_model_scale_times(struct flash_model *f, unsigned int divisor);
/*
 * One look at the pins at time now_ns (call after every change, e.g. every clock cycle);
 * returns MISO.
 */
bool flash_model_pins(struct flash_model *f, uint64_t now_ns, bool sck, bool cs_n, bool mosi);
bool flash_model_busy(const struct flash_model *f, uint64_t now_ns);

#endif /* HROCE_FLASH_MODEL_H */
