// SPDX-License-Identifier: MIT
/* The MT25QU01G model (flash_model.h). */
#include "flash_model.h"

#include <string.h>

enum {
	CMD_READ_ID = 0x9f,
	CMD_STATUS = 0x05,
	CMD_FLAG_STATUS = 0x70,
	CMD_CLEAR_FLAGS = 0x50,
	CMD_WREN = 0x06,
	CMD_WRDI = 0x04,
	CMD_ENTER_4B = 0xb7,
	CMD_EXIT_4B = 0xe9,
	CMD_READ = 0x03,
	CMD_READ_4B = 0x13,
	CMD_PROGRAM = 0x02,
	CMD_PROGRAM_4B = 0x12,
	CMD_ERASE_4K = 0x20,
	CMD_ERASE_4K_4B = 0x21,
	CMD_ERASE_64K = 0xd8,
	CMD_ERASE_64K_4B = 0xdc,
};

#define FLAG_READY 0x80
#define FLAG_ERASE_ERROR 0x20
#define FLAG_PROGRAM_ERROR 0x10
#define FLAG_4B 0x01

static const uint8_t jedec_id[3] = { 0x20, 0xbb, 0x21 };

void flash_model_init(struct flash_model *f, uint8_t *mem, size_t size)
{
	memset(f, 0, sizeof(*f));
	f->mem = mem;
	f->size = size;
	f->t_program = FLASH_T_PAGE_PROGRAM_NS;
	f->t_subsector = FLASH_T_SUBSECTOR_ERASE_NS;
	f->t_sector = FLASH_T_SECTOR_ERASE_NS;
}

void flash_model_scale_times(struct flash_model *f, unsigned int divisor)
{
	if (!divisor)
		return;
	f->t_program /= divisor;
	f->t_subsector /= divisor;
	f->t_sector /= divisor;
}

bool flash_model_busy(const struct flash_model *f, uint64_t now_ns)
{
	return now_ns < f->busy_until;
}

/* Bytes of address a command takes (0: none). */
static unsigned int addr_bytes(const struct flash_model *f, uint8_t cmd)
{
	switch (cmd) {
	case CMD_READ:
	case CMD_PROGRAM:
	case CMD_ERASE_4K:
	case CMD_ERASE_64K:
		return f->four_byte ? 4 : 3;
	case CMD_READ_4B:
	case CMD_PROGRAM_4B:
	case CMD_ERASE_4K_4B:
	case CMD_ERASE_64K_4B:
		return 4;
	default:
		return 0;
	}
}

/* Counts an operation; false if a fault stops it. */
static bool operation_allowed(struct flash_model *f, bool erase)
{
	uint64_t n = f->programs + f->erases;

	if (f->fault == FLASH_FAULT_POWER_CUT && n >= f->fault_after) {
		f->dead = true;
		return false;
	}
	if (erase)
		f->erases++;
	else
		f->programs++;
	if (f->fault == FLASH_FAULT_ERASE && erase && f->erases > f->fault_after) {
		f->flags |= FLAG_ERASE_ERROR;
		return false;
	}
	if (f->fault == FLASH_FAULT_PROGRAM && !erase && f->programs > f->fault_after) {
		f->flags |= FLAG_PROGRAM_ERROR;
		return false;
	}
	return true;
}

/* Chip select rose: a program or an erase starts now. */
static void finish_command(struct flash_model *f)
{
	unsigned int na = addr_bytes(f, f->cmd);
	bool addressed = na && f->index >= 1 + na;
	uint32_t addr = f->addr % f->size;
	uint32_t len;
	bool program = f->cmd == CMD_PROGRAM || f->cmd == CMD_PROGRAM_4B;
	bool erase_4k = f->cmd == CMD_ERASE_4K || f->cmd == CMD_ERASE_4K_4B;
	bool erase = erase_4k || f->cmd == CMD_ERASE_64K || f->cmd == CMD_ERASE_64K_4B;

	if (!(program || erase) || !addressed || !f->wel)
		return;
	f->wel = false;
	if (!operation_allowed(f, erase))
		return;
	if (program) {
		for (unsigned int i = 0; i < FLASH_PAGE_BYTES; i++)
			if (f->page_touched[i])
				f->mem[(addr & ~(FLASH_PAGE_BYTES - 1)) + i] &= f->page[i];
		f->busy_until = f->now + f->t_program;
	} else {
		len = erase_4k ? FLASH_SUBSECTOR_BYTES : FLASH_SECTOR_BYTES;
		memset(f->mem + (addr & ~(len - 1)), 0xff, len);
		f->busy_until = f->now + (erase_4k ? f->t_subsector : f->t_sector);
	}
}

static uint8_t status_byte(const struct flash_model *f, bool busy)
{
	return (uint8_t)((busy ? 1 : 0) | (f->wel ? 2 : 0));
}

static uint8_t flag_status_byte(const struct flash_model *f, bool busy)
{
	return (uint8_t)((busy ? 0 : FLAG_READY) | f->flags | (f->four_byte ? FLAG_4B : 0));
}

/* A whole byte came in: act on it, and say which byte goes out next. */
static void byte_in(struct flash_model *f, uint8_t b)
{
	unsigned int i = f->index++;
	unsigned int na;
	bool busy = flash_model_busy(f, f->now);

	f->out_byte = 0xff;
	if (i == 0) {
		f->cmd = b;
		f->addr = 0;
		memset(f->page_touched, 0, sizeof(f->page_touched));
		if (busy && b != CMD_STATUS && b != CMD_FLAG_STATUS) {
			f->refused++;
			f->cmd = 0;
			return;
		}
		switch (b) {
		case CMD_READ_ID:
			f->out_byte = jedec_id[0];
			return;
		case CMD_STATUS:
			f->out_byte = status_byte(f, busy);
			return;
		case CMD_FLAG_STATUS:
			f->out_byte = flag_status_byte(f, busy);
			return;
		case CMD_CLEAR_FLAGS:
			f->flags = 0;
			return;
		case CMD_WREN:
			f->wel = true;
			return;
		case CMD_WRDI:
			f->wel = false;
			return;
		case CMD_ENTER_4B:
			f->four_byte = true;
			return;
		case CMD_EXIT_4B:
			f->four_byte = false;
			return;
		default:
			if (!addr_bytes(f, b)) {
				f->unknown++;
				f->cmd = 0;
			}
			return;
		}
	}
	switch (f->cmd) {
	case CMD_READ_ID:
		f->out_byte = i < 3 ? jedec_id[i] : 0x00;
		return;
	case CMD_STATUS:
		f->out_byte = status_byte(f, busy);
		return;
	case CMD_FLAG_STATUS:
		f->out_byte = flag_status_byte(f, busy);
		return;
	default:
		break;
	}
	na = addr_bytes(f, f->cmd);
	if (!na)
		return;
	if (i <= na) {
		f->addr = f->addr << 8 | b;
		if (i == na && (f->cmd == CMD_READ || f->cmd == CMD_READ_4B))
			f->out_byte = f->mem[f->addr % f->size];
		return;
	}
	if (f->cmd == CMD_READ || f->cmd == CMD_READ_4B) {
		f->out_byte = f->mem[(f->addr + (i - na)) % f->size];
	} else if (f->cmd == CMD_PROGRAM || f->cmd == CMD_PROGRAM_4B) {
		unsigned int at = (f->addr + (i - na - 1)) % FLASH_PAGE_BYTES;

		f->page[at] = b;
		f->page_touched[at] = true;
	}
}

bool flash_model_pins(struct flash_model *f, uint64_t now_ns, bool sck, bool cs_n, bool mosi)
{
	f->now = now_ns;
	if (f->dead) {
		f->sck = sck;
		f->miso = true;
		return true;
	}
	if (cs_n) {
		if (f->selected)
			finish_command(f);
		f->selected = false;
		f->sck = sck;
		return f->miso;
	}
	if (!f->selected) {
		f->selected = true;
		f->index = 0;
		f->in_bits = 0;
		f->out_bits = 0;
		f->out_byte = 0xff;
		f->cmd = 0;
	}
	if (sck && !f->sck) {
		/* rising edge: sample MOSI */
		f->in_byte = (uint8_t)(f->in_byte << 1 | (mosi ? 1 : 0));
		if (++f->in_bits == 8) {
			f->in_bits = 0;
			byte_in(f, f->in_byte);
			f->out_bits = 0;
		}
	} else if (!sck && f->sck) {
		/* falling edge: the next bit out, most significant first */
		f->miso = f->out_byte >> (7 - f->out_bits) & 1;
		f->out_bits = (f->out_bits + 1) % 8;
	}
	f->sck = sck;
	return f->miso;
}
