// SPDX-License-Identifier: MIT
/* The board block and its flash from the host (fw_flash.h). */
#include "fw_flash.h"

#include <errno.h>
#include <string.h>

void fw_board_info(struct fw_regs *r, struct fw_board_info *info)
{
	memset(info, 0, sizeof(*info));
	info->magic = r->read(r->ctx, FW_REG_ID);
	/* nothing else to read where there is no board block (fw_board_check says so) */
	if (info->magic != FW_BOARD_MAGIC)
		return;
	info->board = r->read(r->ctx, FW_REG_BOARD);
	info->git_hash = r->read(r->ctx, FW_REG_GIT_HASH);
	info->build_stamp = r->read(r->ctx, FW_REG_BUILD_STAMP);
	info->idcode = r->read(r->ctx, FW_REG_IDCODE);
	info->flash_size = r->read(r->ctx, FW_REG_FLASH_SIZE);
	info->erase_size = r->read(r->ctx, FW_REG_ERASE_SIZE);
	info->golden_off = r->read(r->ctx, FW_REG_GOLDEN_OFF);
	info->golden_size = r->read(r->ctx, FW_REG_GOLDEN_SIZE);
	info->update_off = r->read(r->ctx, FW_REG_UPDATE_OFF);
	info->update_size = r->read(r->ctx, FW_REG_UPDATE_SIZE);
}

int fw_board_check(const struct fw_board_info *i)
{
	uint64_t g_end = (uint64_t)i->golden_off + i->golden_size;
	uint64_t u_end = (uint64_t)i->update_off + i->update_size;

	if (i->magic != FW_BOARD_MAGIC)
		return EPROTO;
	if (!i->erase_size || i->erase_size % FW_SECTOR_BYTES || !i->update_size ||
	    i->update_off % i->erase_size || i->golden_off % i->erase_size ||
	    u_end > i->flash_size || g_end > i->flash_size ||
	    (i->update_off < g_end && i->golden_off < u_end))
		return EINVAL;
	return 0;
}

void fw_board_reload(struct fw_regs *r, uint32_t addr)
{
	r->write(r->ctx, FW_REG_RELOAD_ADDR, addr);
	r->write(r->ctx, FW_REG_RELOAD, FW_RELOAD_KEY);
}

int fw_board_reload_wait(struct fw_regs *r)
{
	uint64_t polls = 0;

	while (r->read(r->ctx, FW_REG_RELOAD) & 1)
		if (++polls > r->poll_limit)
			return ETIMEDOUT;
	return 0;
}

static int spi_ctrl(struct fw_regs *r, bool cs, unsigned int n)
{
	uint32_t v = (cs ? 1u : 0u) | (n & 7) << 8 | (r->spi_div & 0xff) << 16;

	if (!r->ctrl_known || r->ctrl_cache != v) {
		r->write(r->ctx, FW_REG_SPI_CTRL, v);
		r->ctrl_cache = v;
		r->ctrl_known = true;
	}
	return 0;
}

int fw_spi_select(struct fw_regs *r, bool on)
{
	return spi_ctrl(r, on, 1);
}

int fw_spi_xfer(struct fw_regs *r, const uint8_t *out, uint8_t *in, unsigned int n)
{
	uint32_t v = 0;
	uint64_t polls = 0;

	if (n < 1 || n > 4)
		return EINVAL;
	spi_ctrl(r, true, n);
	for (unsigned int i = 0; i < n; i++)
		v |= (uint32_t)(out ? out[i] : 0xff) << (8 * i);
	r->write(r->ctx, FW_REG_SPI_DATA, v);
	while (r->read(r->ctx, FW_REG_SPI_STATUS) & 1)
		if (++polls > r->poll_limit)
			return ETIMEDOUT;
	if (in) {
		v = r->read(r->ctx, FW_REG_SPI_DATA);
		for (unsigned int i = 0; i < n; i++)
			in[i] = (uint8_t)(v >> (8 * i));
	}
	return 0;
}

int fw_spi_cmd(struct fw_regs *r, const uint8_t *out, size_t out_len, uint8_t *in, size_t in_len)
{
	int err = 0;
	size_t i;

	fw_spi_select(r, true);
	for (i = 0; i < out_len && !err; i += 4) {
		unsigned int n = out_len - i < 4 ? (unsigned int)(out_len - i) : 4;

		err = fw_spi_xfer(r, out + i, NULL, n);
	}
	for (i = 0; i < in_len && !err; i += 4) {
		unsigned int n = in_len - i < 4 ? (unsigned int)(in_len - i) : 4;

		err = fw_spi_xfer(r, NULL, in + i, n);
	}
	fw_spi_select(r, false);
	return err;
}

int fw_flash_read_id(struct fw_regs *r, uint8_t id[3])
{
	const uint8_t cmd = FW_SPI_READ_ID;

	return fw_spi_cmd(r, &cmd, 1, id, 3);
}

static void cmd_addr(uint8_t *b, uint8_t cmd, uint32_t addr)
{
	b[0] = cmd;
	b[1] = (uint8_t)(addr >> 24);
	b[2] = (uint8_t)(addr >> 16);
	b[3] = (uint8_t)(addr >> 8);
	b[4] = (uint8_t)addr;
}

int fw_flash_read(struct fw_regs *r, uint32_t addr, void *buf, size_t len)
{
	uint8_t cmd[5];

	cmd_addr(cmd, FW_SPI_READ_4B, addr);
	return fw_spi_cmd(r, cmd, sizeof(cmd), buf, len);
}

/* Waits for WIP to clear; then the flag status's error bits tell how it went. */
static int wait_ready(struct fw_regs *r)
{
	const uint8_t status = FW_SPI_STATUS, flag = FW_SPI_FLAG_STATUS, clear = FW_SPI_CLEAR_FLAGS;
	uint8_t s = 1;
	uint64_t polls = 0;
	int err;

	do {
		err = fw_spi_cmd(r, &status, 1, &s, 1);
		if (err)
			return err;
		if (++polls > r->poll_limit)
			return ETIMEDOUT;
	} while (s & 1);
	err = fw_spi_cmd(r, &flag, 1, &s, 1);
	if (err)
		return err;
	if (s & (FW_FLAG_ERASE_ERROR | FW_FLAG_PROGRAM_ERROR)) {
		fw_spi_cmd(r, &clear, 1, NULL, 0);
		return EIO;
	}
	return 0;
}

static int write_enable(struct fw_regs *r)
{
	const uint8_t wren = FW_SPI_WREN, enter4 = FW_SPI_ENTER_4B;
	int err = fw_spi_cmd(r, &enter4, 1, NULL, 0);

	return err ? err : fw_spi_cmd(r, &wren, 1, NULL, 0);
}

int fw_flash_erase_sector(struct fw_regs *r, uint32_t addr)
{
	uint8_t cmd[5];
	int err = write_enable(r);

	if (err)
		return err;
	cmd_addr(cmd, FW_SPI_ERASE_64K_4B, addr);
	err = fw_spi_cmd(r, cmd, sizeof(cmd), NULL, 0);
	return err ? err : wait_ready(r);
}

int fw_flash_program_page(struct fw_regs *r, uint32_t addr, const void *buf, size_t len)
{
	uint8_t cmd[5 + FW_PAGE_BYTES];
	int err;

	if (!len || len > FW_PAGE_BYTES - addr % FW_PAGE_BYTES)
		return EINVAL;
	err = write_enable(r);
	if (err)
		return err;
	cmd_addr(cmd, FW_SPI_PROGRAM_4B, addr);
	memcpy(cmd + 5, buf, len);
	err = fw_spi_cmd(r, cmd, 5 + len, NULL, 0);
	return err ? err : wait_ready(r);
}
