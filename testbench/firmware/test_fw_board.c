// SPDX-License-Identifier: MIT
/*
 * Bench of board_regs: the board register block, its SPI flash controller against the
 * MT25QU01G model, and the reload against the ICAP model.
 *
 * - identity and layout registers against the build's parameters (Makefile);
 * - the JEDEC ID through the controller; transfers of 1..4 bytes at random SCK dividers;
 * - random erases (64 KiB), page programs (random offsets and lengths inside a page, and
 *   programs over programmed bytes: only bits that are 1 can change) and reads of random
 *   lengths, against a C shadow of the flash; the model's WIP seen while an erase runs;
 * - a program or erase without write enable changes nothing;
 * - the reload: a wrong key sends nothing, the key sends UG570's sequence, which the ICAP
 *   model decodes to IPROG with the boot address written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "fw_flash.h"
#include "fw_sim.h"

extern const struct vmodel_ops vmodel_Vfw_board, vmodel_Vfw_board_icap2;

/* The model's parameters (testbench/firmware/bench.mk) and board_regs' defaults */
#define GIT_HASH 0x1234abcdu
#define BUILD_STAMP 1700000000u
#define IDCODE_U200 0x04b37093u
/* a flash smaller than the part's, for speed: the model wraps addresses like the part */
#define FLASH_BYTES (8u << 20)
#define TIME_DIVISOR 1000u

static uint32_t sim_read(void *ctx, uint32_t off)
{
	return fw_sim_read(ctx, off);
}

static void sim_write(void *ctx, uint32_t off, uint32_t v)
{
	fw_sim_write(ctx, off, v);
}

static void regs_init(struct fw_regs *r, struct fw_sim *s, unsigned int div)
{
	memset(r, 0, sizeof(*r));
	r->ctx = s;
	r->read = sim_read;
	r->write = sim_write;
	r->spi_div = div;
	r->poll_limit = 10000000;
}

static void test_identity(struct bench *b, struct fw_sim *s)
{
	struct fw_regs r;
	struct fw_board_info i;

	regs_init(&r, s, 0);
	fw_board_info(&r, &i);
	bench_result(b, "board_identity",
		     i.magic == FW_BOARD_MAGIC && (i.board & 0xffff) == 0x0200 &&
			     i.board >> 16 == 1 && i.git_hash == GIT_HASH &&
			     i.build_stamp == BUILD_STAMP && i.idcode == IDCODE_U200,
		     "magic %08x board %08x hash %08x stamp %u idcode %08x", i.magic, i.board,
		     i.git_hash, i.build_stamp, i.idcode);
	bench_result(b, "board_layout", fw_board_check(&i) == 0 && i.flash_size == 128u << 20,
		     "flash %u erase %u golden %u+%u update %u+%u", i.flash_size, i.erase_size,
		     i.golden_off, i.golden_size, i.update_off, i.update_size);
	bench_result(b, "board_unmapped_reads_zero",
		     fw_sim_read(s, 0x3c) == 0 && fw_sim_read(s, 0xfc) == 0, "unmapped offsets");
}

static void test_jedec(struct bench *b, struct fw_sim *s)
{
	struct fw_regs r;
	bool ok = true;
	uint8_t id[3] = { 0 };

	for (unsigned int div = 0; div < 4 && ok; div++) {
		regs_init(&r, s, div);
		ok = !fw_flash_read_id(&r, id) && id[0] == 0x20 && id[1] == 0xbb && id[2] == 0x21;
	}
	bench_result(b, "spi_jedec_id", ok, "read %02x %02x %02x", id[0], id[1], id[2]);
}

/* The shadow: what the flash must hold. */
static void shadow_program(uint8_t *shadow, uint32_t addr, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		shadow[(addr & ~(FW_PAGE_BYTES - 1)) + (addr + i) % FW_PAGE_BYTES] &= p[i];
}

static void test_random(struct bench *b, struct fw_sim *s, uint8_t *shadow)
{
	struct fw_regs r;
	uint8_t buf[FW_PAGE_BYTES], got[2048];
	unsigned int rounds = b->quick ? 30 : 120, bad = 0, ops = 0;
	char why[160] = "";

	for (unsigned int k = 0; k < rounds; k++) {
		unsigned int what = (unsigned int)bench_range(b, 0, 9);
		uint32_t addr = (uint32_t)bench_range(b, 0, FLASH_BYTES - 1);
		int err;

		regs_init(&r, s, (unsigned int)bench_range(b, 0, 2));
		if (what == 0) {
			addr &= ~(FW_SECTOR_BYTES - 1);
			err = fw_flash_erase_sector(&r, addr);
			memset(shadow + addr, 0xff, FW_SECTOR_BYTES);
		} else if (what <= 5) {
			size_t n = bench_range(b, 1, FW_PAGE_BYTES - addr % FW_PAGE_BYTES);

			bench_fill(b, buf, n);
			err = fw_flash_program_page(&r, addr, buf, n);
			shadow_program(shadow, addr, buf, n);
		} else {
			size_t n = bench_range(b, 1, sizeof(got));

			if (addr + n > FLASH_BYTES)
				n = FLASH_BYTES - addr;
			err = fw_flash_read(&r, addr, got, n);
			if (!err && memcmp(got, shadow + addr, n) && !bad++)
				snprintf(why, sizeof(why), "read of %zu at %#x differs", n, addr);
		}
		if (err && !bad++)
			snprintf(why, sizeof(why), "op %u at %#x: %s", what, addr, strerror(err));
		ops++;
	}
	/* the whole array at the end */
	bench_result(b, "spi_random_ops", !bad && !memcmp(s->mem, shadow, FLASH_BYTES),
		     "%u ops: %s%s", ops, why,
		     memcmp(s->mem, shadow, FLASH_BYTES) ? " (array differs from shadow)" : "");
}

/*
 * The 3-byte commands (03h read, 02h program, 20h 4 KiB erase) after E9h, and 03h and 20h
 * taking 4 address bytes after B7h, against the shadow.
 */
static void test_address_modes(struct bench *b, struct fw_sim *s, uint8_t *shadow)
{
	struct fw_regs r;
	const uint8_t exit4 = 0xe9, enter4 = FW_SPI_ENTER_4B, wren = FW_SPI_WREN,
		      status = FW_SPI_STATUS;
	uint32_t a = (uint32_t)bench_range(b, 0, (1u << 20) - 1) & ~(FLASH_SUBSECTOR_BYTES - 1);
	uint8_t cmd[4 + 5 + 64], got[64], st;
	bool ok = true;

	regs_init(&r, s, 1);
	for (int four = 0; four < 2; four++) {
		unsigned int n = four ? 5 : 4, k;

		fw_spi_cmd(&r, four ? &enter4 : &exit4, 1, NULL, 0);
		/* erase the 4 KiB subsector */
		cmd[0] = 0x20;
		for (k = 1; k < n; k++)
			cmd[k] = (uint8_t)(a >> (8 * (n - 1 - k)));
		fw_spi_cmd(&r, &wren, 1, NULL, 0);
		fw_spi_cmd(&r, cmd, n, NULL, 0);
		do
			fw_spi_cmd(&r, &status, 1, &st, 1);
		while (st & 1);
		memset(shadow + a, 0xff, FLASH_SUBSECTOR_BYTES);
		/* program 64 bytes at an offset inside it */
		cmd[0] = 0x02;
		for (k = 1; k < n; k++)
			cmd[k] = (uint8_t)((a + 0x100) >> (8 * (n - 1 - k)));
		bench_fill(b, cmd + n, 64);
		fw_spi_cmd(&r, &wren, 1, NULL, 0);
		fw_spi_cmd(&r, cmd, n + 64, NULL, 0);
		do
			fw_spi_cmd(&r, &status, 1, &st, 1);
		while (st & 1);
		shadow_program(shadow, a + 0x100, cmd + n, 64);
		/* read the subsector's start and the bytes programmed, with 03h */
		cmd[0] = 0x03;
		for (k = 1; k < n; k++)
			cmd[k] = (uint8_t)(a >> (8 * (n - 1 - k)));
		fw_spi_cmd(&r, cmd, n, got, sizeof(got));
		ok &= !memcmp(got, shadow + a, sizeof(got));
		for (k = 1; k < n; k++)
			cmd[k] = (uint8_t)((a + 0x100) >> (8 * (n - 1 - k)));
		fw_spi_cmd(&r, cmd, n, got, sizeof(got));
		ok &= !memcmp(got, shadow + a + 0x100, sizeof(got));
	}
	fw_spi_cmd(&r, &enter4, 1, NULL, 0);
	bench_result(b, "spi_3_and_4_byte_commands", ok && !memcmp(s->mem, shadow, FLASH_BYTES),
		     "03h/02h/20h at 0x%x in 3- or 4-byte mode differ from the shadow", a);
}

static void test_erase_busy(struct bench *b, struct fw_sim *s, uint8_t *shadow)
{
	struct fw_regs r;
	const uint8_t wren = FW_SPI_WREN, status = FW_SPI_STATUS;
	uint8_t cmd[5] = { FW_SPI_ERASE_64K_4B, 0, 0x10, 0, 0 }, st = 0;
	unsigned int busy = 0, polls = 0;

	regs_init(&r, s, 0);
	fw_spi_cmd(&r, &wren, 1, NULL, 0);
	fw_spi_cmd(&r, cmd, 5, NULL, 0);
	do {
		fw_spi_cmd(&r, &status, 1, &st, 1);
		busy += st & 1;
	} while ((st & 1) && ++polls < 1000000);
	memset(shadow + 0x100000, 0xff, FW_SECTOR_BYTES);
	bench_result(b, "spi_erase_wip",
		     busy > 0 && !(st & 1) &&
			     !memcmp(s->mem + 0x100000, shadow + 0x100000, FW_SECTOR_BYTES),
		     "WIP seen %u times, last status %02x", busy, st);
}

static void test_no_wren(struct bench *b, struct fw_sim *s, uint8_t *shadow)
{
	struct fw_regs r;
	uint8_t cmd[5 + 4] = { FW_SPI_PROGRAM_4B, 0, 0x20, 0, 0, 0, 0, 0, 0 };
	uint8_t erase[5] = { FW_SPI_ERASE_64K_4B, 0, 0x30, 0, 0 };
	uint64_t progs = s->flash.programs, erases = s->flash.erases;

	regs_init(&r, s, 0);
	fw_spi_cmd(&r, cmd, sizeof(cmd), NULL, 0);
	fw_spi_cmd(&r, erase, sizeof(erase), NULL, 0);
	bench_result(b, "spi_needs_write_enable",
		     s->flash.programs == progs && s->flash.erases == erases &&
			     !memcmp(s->mem, shadow, FLASH_BYTES),
		     "a program or an erase without WREN changed the flash");
}

static void test_reload(struct bench *b, struct fw_sim *s)
{
	uint32_t addr = (uint32_t)bench_range(b, 0, 0x7ff) << 16;
	unsigned int busy = 0, n = 0;

	fw_sim_write(s, FW_REG_RELOAD_ADDR, addr);
	fw_sim_write(s, FW_REG_RELOAD, FW_RELOAD_KEY ^ 1);
	for (int i = 0; i < 50; i++)
		fw_sim_step(s);
	bench_result(b, "reload_wrong_key", s->icap.words_seen == 0 && s->icap.iprogs == 0,
		     "%u words reached the ICAP", s->icap.words_seen);
	bench_result(b, "reload_addr_reads_back", fw_sim_read(s, FW_REG_RELOAD_ADDR) == addr,
		     "RELOAD_ADDR");
	fw_sim_write(s, FW_REG_RELOAD, FW_RELOAD_KEY);
	while ((fw_sim_read(s, FW_REG_RELOAD) & 1) && ++n < 1000)
		busy++;
	bench_result(b, "reload_iprog",
		     busy > 0 && s->icap.iprogs == 1 && s->icap.iprog_wbstar == addr &&
			     s->icap.errors == 0 && s->icap.words_seen == 8,
		     "busy %u, iprogs %u, wbstar %#x (want %#x), errors %u, words %u", busy,
		     s->icap.iprogs, s->icap.iprog_wbstar, addr, s->icap.errors,
		     s->icap.words_seen);
}

/* The board's build: the ICAP clocked at half the rate, at either phase of the divider. */
static void test_reload_half_rate(struct bench *b)
{
	for (unsigned int phase = 0; phase < 2; phase++) {
		struct fw_sim s;
		uint32_t addr = (uint32_t)bench_range(b, 1, 0x7ff) << 16;
		char name[64];

		if (fw_sim_open(&s, &vmodel_Vfw_board_icap2, NULL, FW_SECTOR_BYTES, 1)) {
			bench_result(b, "reload_half_rate", false, "cannot open the model");
			return;
		}
		s.pins.icap_every = 2;
		s.pins.cycles = phase;
		fw_sim_write(&s, FW_REG_RELOAD_ADDR, addr);
		fw_sim_write(&s, FW_REG_RELOAD, FW_RELOAD_KEY);
		for (unsigned int i = 0; i < 100; i++)
			fw_sim_step(&s);
		snprintf(name, sizeof(name), "reload_half_rate_phase%u", phase);
		bench_result(b, name,
			     s.icap.iprogs == 1 && s.icap.iprog_wbstar == addr && !s.icap.errors &&
				     s.icap.words_seen == 8 &&
				     !(fw_sim_read(&s, FW_REG_RELOAD) & 1),
			     "iprogs %u, wbstar %#x (want %#x), errors %u, words %u", s.icap.iprogs,
			     s.icap.iprog_wbstar, addr, s.icap.errors, s.icap.words_seen);
		fw_sim_close(&s);
	}
}

int main(int argc, char **argv)
{
	struct bench b;
	struct fw_sim s;
	uint8_t *shadow;
	int err;

	bench_init(&b, "test_fw_board", argc, argv);
	err = fw_sim_open(&s, &vmodel_Vfw_board, NULL, FLASH_BYTES, TIME_DIVISOR);
	if (err) {
		fprintf(stderr, "test_fw_board: %s\n", strerror(err));
		return 1;
	}
	shadow = malloc(FLASH_BYTES);
	if (!shadow)
		return 1;
	/* a used flash: random contents to start from */
	bench_fill(&b, s.mem, FLASH_BYTES);
	memcpy(shadow, s.mem, FLASH_BYTES);

	test_identity(&b, &s);
	test_jedec(&b, &s);
	test_random(&b, &s, shadow);
	test_address_modes(&b, &s, shadow);
	test_erase_busy(&b, &s, shadow);
	test_no_wren(&b, &s, shadow);
	test_reload(&b, &s);
	test_reload_half_rate(&b);
	bench_log(&b, "%llu cycles, %llu programs, %llu erases", (unsigned long long)s.cycle,
		  (unsigned long long)s.flash.programs, (unsigned long long)s.flash.erases);
	free(shadow);
	fw_sim_close(&s);
	return bench_finish(&b);
}
