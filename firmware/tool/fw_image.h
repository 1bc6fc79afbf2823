/* SPDX-License-Identifier: MIT */
/*
 * Configuration images for the flash: a Vivado .bit (its header parsed: design, part,
 * date; the bitstream after it), a raw .bin, or an Intel-hex .mcs (as write_cfgmem makes
 * them), turned into the bytes to program, and checked before anything is erased:
 * the sync word AA995566h, the IDCODE the bitstream writes (it must be the FPGA's), the
 * DESYNC command near the end (a truncated image has none), and its size.
 */
#ifndef HROCE_FW_IMAGE_H
#define HROCE_FW_IMAGE_H

#include <stddef.h>
#include <stdint.h>

struct fw_image {
	uint8_t *data;
	size_t len;
	uint32_t base; /* .mcs: the flash address of data[0]; else 0 */
	char design[128], part[64], date[32];
	uint32_t idcode; /* the IDCODE the bitstream writes, 0 if none */
	size_t sync_at;	 /* byte offset of the sync word */
};

/*
 * Loads path (by its extension, or by content: a .bit header, hex records, else raw).
 * 0 or a positive errno, with a message in err (errlen bytes) saying what is wrong.
 */
int fw_image_load(struct fw_image *img, const char *path, char *err, size_t errlen);
void fw_image_free(struct fw_image *img);
/*
 * Checks the image against an FPGA (its IDCODE) and a segment of max_len bytes.
 * 0, or EINVAL with a message.
 */
int fw_image_check(const struct fw_image *img, uint32_t fpga_idcode, size_t max_len, char *err,
		   size_t errlen);
/* The part name of an IDCODE (revision bits ignored), or NULL. */
const char *fw_idcode_part(uint32_t idcode);

#endif /* HROCE_FW_IMAGE_H */
