/* SPDX-License-Identifier: MIT */
/*
 * The board register block (firmware/rtl/board_regs.v) and the configuration flash behind
 * its SPI controller, from the host: the same code for a board (BAR0 mapped) and for the
 * simulated block, reached by libpci's sysfs mapping, libhroce's bus (VFIO or a simulated
 * NIC) or the block's model alone. Register access goes through two callbacks.
 */
#ifndef HROCE_FW_FLASH_H
#define HROCE_FW_FLASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* BAR0 offset of the board register block (after the core's 64 KiB) */
#define FW_BOARD_BASE 0x10000u

/* Board registers (offsets in the block; see board_regs.v) */
#define FW_REG_ID 0x00u
#define FW_REG_BOARD 0x04u
#define FW_REG_GIT_HASH 0x08u
#define FW_REG_BUILD_STAMP 0x0cu
#define FW_REG_IDCODE 0x10u
#define FW_REG_FLASH_SIZE 0x14u
#define FW_REG_ERASE_SIZE 0x18u
#define FW_REG_GOLDEN_OFF 0x20u
#define FW_REG_GOLDEN_SIZE 0x24u
#define FW_REG_UPDATE_OFF 0x28u
#define FW_REG_UPDATE_SIZE 0x2cu
#define FW_REG_MAC_RX_DROP 0x30u
#define FW_REG_SPI_CTRL 0x40u
#define FW_REG_SPI_DATA 0x44u
#define FW_REG_SPI_STATUS 0x48u
#define FW_REG_RELOAD_ADDR 0x50u
#define FW_REG_RELOAD 0x54u

#define FW_BOARD_MAGIC 0x48524657u /* "HRFW" */
#define FW_RELOAD_KEY 0x49505247u  /* "IPRG" */

/* Flash commands used (MT25Q) */
#define FW_SPI_READ_ID 0x9f
#define FW_SPI_STATUS 0x05
#define FW_SPI_FLAG_STATUS 0x70
#define FW_SPI_CLEAR_FLAGS 0x50
#define FW_SPI_WREN 0x06
#define FW_SPI_ENTER_4B 0xb7
#define FW_SPI_READ_4B 0x13
#define FW_SPI_PROGRAM_4B 0x12
#define FW_SPI_ERASE_64K_4B 0xdc
#define FW_FLAG_ERASE_ERROR 0x20
#define FW_FLAG_PROGRAM_ERROR 0x10

#define FW_PAGE_BYTES 256u
#define FW_SECTOR_BYTES 65536u

struct fw_regs {
	void *ctx;
	uint32_t (*read)(void *ctx, uint32_t off); /* off in the board block */
	void (*write)(void *ctx, uint32_t off, uint32_t v);
	unsigned int spi_div; /* SCK divider to use */
	uint64_t poll_limit;  /* status polls before a timeout */
	uint32_t ctrl_cache;  /* last SPI_CTRL written (+1: none) */
	bool ctrl_known;
};

struct fw_board_info {
	uint32_t magic, board, git_hash, build_stamp, idcode;
	uint32_t flash_size, erase_size;
	uint32_t golden_off, golden_size, update_off, update_size;
};

/* The identity and layout registers; only the ID where it is not the board block's. */
void fw_board_info(struct fw_regs *r, struct fw_board_info *info);
/* 0, or EPROTO (not a board block), EINVAL (a layout that makes no sense). */
int fw_board_check(const struct fw_board_info *info);

/*
 * The reload: the boot address (WBSTAR) and the key, after which the FPGA loads itself
 * from that flash address (IPROG). On a board the link goes down with it; a simulated
 * block stays, and fw_board_reload_wait waits there until the ICAP sequence was sent:
 * 0 or ETIMEDOUT.
 */
void fw_board_reload(struct fw_regs *r, uint32_t addr);
int fw_board_reload_wait(struct fw_regs *r);

/* Chip select and transfers of 1..4 bytes (bytes in/out in order); 0 or ETIMEDOUT. */
int fw_spi_select(struct fw_regs *r, bool on);
int fw_spi_xfer(struct fw_regs *r, const uint8_t *out, uint8_t *in, unsigned int n);
/* A whole command: out_len bytes out, then in_len bytes in; 0 or ETIMEDOUT. */
int fw_spi_cmd(struct fw_regs *r, const uint8_t *out, size_t out_len, uint8_t *in, size_t in_len);

int fw_flash_read_id(struct fw_regs *r, uint8_t id[3]);
int fw_flash_read(struct fw_regs *r, uint32_t addr, void *buf, size_t len);
/*
 * Erase one 64 KiB sector / program up to one page, and wait: 0, EIO (the flash reports
 * an error), ETIMEDOUT.
 */
int fw_flash_erase_sector(struct fw_regs *r, uint32_t addr);
int fw_flash_program_page(struct fw_regs *r, uint32_t addr, const void *buf, size_t len);

#endif /* HROCE_FW_FLASH_H */
