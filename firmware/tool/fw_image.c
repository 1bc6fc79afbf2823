// SPDX-License-Identifier: MIT
/* Configuration images (fw_image.h). */
#include "fw_image.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SYNC_WORD 0xaa995566u
#define WRITE_IDCODE 0x30018001u /* Type 1 write of 1 word to IDCODE (register 0Ch) */
#define WRITE_CMD 0x30008001u	 /* Type 1 write of 1 word to CMD (register 04h) */
#define CMD_DESYNC 0x0000000du
#define IDCODE_MASK 0x0fffffffu /* bits 31:28 are the silicon revision */

/* IDCODEs of the boards' parts: xcvu9p and xcu200 from UG570 and the devices' JTAG chains */
static const struct {
	uint32_t idcode;
	const char *part;
} parts[] = {
	{ 0x04b37093, "xcu200" },
	{ 0x04b57093, "xcu250" },
	{ 0x04b31093, "xcvu9p" },
};

const char *fw_idcode_part(uint32_t idcode)
{
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (parts[i].idcode == (idcode & IDCODE_MASK))
			return parts[i].part;
	return NULL;
}

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return code;
}

static int read_file(const char *path, uint8_t **out, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return fail(err, errlen, errno, "%s: %s", path, strerror(errno));
	do {
		if (n == cap) {
			uint8_t *nb = realloc(buf, cap = cap ? 2 * cap : 1 << 16);

			if (!nb) {
				free(buf);
				fclose(f);
				return fail(err, errlen, ENOMEM, "%s: out of memory", path);
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return fail(err, errlen, EIO, "%s: read error", path);
	}
	fclose(f);
	*out = buf;
	*len = n;
	return 0;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static const uint8_t bit_magic[13] = { 0x00, 0x09, 0x0f, 0xf0, 0x0f, 0xf0, 0x0f,
				       0xf0, 0x0f, 0xf0, 0x00, 0x00, 0x01 };

/* A .bit: the header's fields a-d (2-byte lengths), then e (4-byte length) and the data. */
static int parse_bit(struct fw_image *img, const uint8_t *f, size_t n, char *err, size_t errlen)
{
	size_t at = sizeof(bit_magic);

	if (n < at || memcmp(f, bit_magic, at))
		return fail(err, errlen, EINVAL, "not a .bit file (no bitstream header)");
	while (at < n) {
		uint8_t key = f[at++];
		size_t len;
		char *dst = NULL;
		size_t dlen = 0;

		if (key == 'e') {
			if (n - at < 4)
				return fail(err, errlen, EINVAL, "truncated .bit header");
			len = be32(f + at);
			at += 4;
			if (len > n - at)
				return fail(
					err, errlen, EINVAL,
					"truncated: the header announces %zu bytes of bitstream, "
					"the file has %zu",
					len, n - at);
			img->data = malloc(len ? len : 1);
			if (!img->data)
				return fail(err, errlen, ENOMEM, "out of memory");
			memcpy(img->data, f + at, len);
			img->len = len;
			return 0;
		}
		if (key < 'a' || key > 'd' || n - at < 2)
			return fail(err, errlen, EINVAL, "bad .bit header field '%c' at %zu",
				    isprint(key) ? key : '?', at - 1);
		len = (size_t)f[at] << 8 | f[at + 1];
		at += 2;
		if (len > n - at)
			return fail(err, errlen, EINVAL, "truncated .bit header");
		if (key == 'a') {
			dst = img->design;
			dlen = sizeof(img->design);
		} else if (key == 'b') {
			dst = img->part;
			dlen = sizeof(img->part);
		} else if (key == 'c') {
			dst = img->date;
			dlen = sizeof(img->date);
		}
		if (dst) {
			size_t c = len < dlen - 1 ? len : dlen - 1;

			memcpy(dst, f + at, c);
			dst[c] = 0;
		}
		at += len;
	}
	return fail(err, errlen, EINVAL, "truncated: the .bit file has no bitstream");
}

static int hexbyte(const char *s)
{
	int v = 0;

	for (int i = 0; i < 2; i++) {
		int c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/* An .mcs (Intel hex, extended linear addresses): the bytes from its lowest address. */
static int parse_mcs(struct fw_image *img, const uint8_t *f, size_t n, char *err, size_t errlen)
{
	uint32_t upper = 0, lo = UINT32_MAX, hi = 0;
	size_t line = 0;
	bool end = false;

	/* two passes: the extent, then the bytes */
	for (int pass = 0; pass < 2; pass++) {
		size_t at = 0;

		upper = 0;
		line = 0;
		end = false;
		while (at < n && !end) {
			uint8_t rec[260];
			int len, sum = 0;
			size_t s;

			while (at < n && (f[at] == '\r' || f[at] == '\n'))
				at++;
			if (at >= n)
				break;
			line++;
			if (f[at] != ':')
				return fail(err, errlen, EINVAL, "mcs line %zu: no ':'", line);
			s = ++at;
			while (at < n && f[at] != '\r' && f[at] != '\n')
				at++;
			if ((at - s) % 2 || at - s < 10 || (at - s) / 2 > sizeof(rec))
				return fail(err, errlen, EINVAL, "mcs line %zu: bad length", line);
			for (size_t i = 0; i < (at - s) / 2; i++) {
				int v = hexbyte((const char *)f + s + 2 * i);

				if (v < 0)
					return fail(err, errlen, EINVAL, "mcs line %zu: not hex",
						    line);
				rec[i] = (uint8_t)v;
				sum += v;
			}
			len = rec[0];
			if ((size_t)len + 5 != (at - s) / 2 || (sum & 0xff))
				return fail(err, errlen, EINVAL,
					    "mcs line %zu: bad count or checksum", line);
			switch (rec[3]) {
			case 0x00: {
				uint32_t a = upper | (uint32_t)rec[1] << 8 | rec[2];

				if (pass == 0) {
					lo = a < lo ? a : lo;
					hi = a + (uint32_t)len > hi ? a + (uint32_t)len : hi;
				} else {
					memcpy(img->data + (a - lo), rec + 4, (size_t)len);
				}
				break;
			}
			case 0x01:
				end = true;
				break;
			case 0x04:
				if (len != 2)
					return fail(err, errlen, EINVAL,
						    "mcs line %zu: bad address", line);
				upper = (uint32_t)rec[4] << 24 | (uint32_t)rec[5] << 16;
				break;
			default:
				break;
			}
		}
		if (!end)
			return fail(err, errlen, EINVAL, "truncated: the .mcs has no end record");
		if (pass == 0) {
			if (lo >= hi)
				return fail(err, errlen, EINVAL, "the .mcs holds no data");
			img->data = malloc(hi - lo);
			if (!img->data)
				return fail(err, errlen, ENOMEM, "out of memory");
			memset(img->data, 0xff, hi - lo);
			img->len = hi - lo;
			img->base = lo;
		}
	}
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcasecmp(s + a - b, suffix);
}

/* The sync word, the IDCODE written after it, and whether a DESYNC comes later. */
static void scan_packets(struct fw_image *img, bool *desync)
{
	size_t i;

	*desync = false;
	img->sync_at = SIZE_MAX;
	for (i = 0; i + 4 <= img->len; i++)
		if (be32(img->data + i) == SYNC_WORD) {
			img->sync_at = i;
			break;
		}
	if (img->sync_at == SIZE_MAX)
		return;
	for (i = img->sync_at + 4; i + 8 <= img->len; i += 4) {
		uint32_t w = be32(img->data + i);

		if (w == WRITE_IDCODE && !img->idcode)
			img->idcode = be32(img->data + i + 4);
		if (w == WRITE_CMD && be32(img->data + i + 4) == CMD_DESYNC)
			*desync = true;
	}
}

int fw_image_load(struct fw_image *img, const char *path, char *err, size_t errlen)
{
	uint8_t *f = NULL;
	size_t n = 0;
	int rc;

	memset(img, 0, sizeof(*img));
	rc = read_file(path, &f, &n, err, errlen);
	if (rc)
		return rc;
	if (ends_with(path, ".bit") || (n >= sizeof(bit_magic) && !memcmp(f, bit_magic, 13))) {
		rc = parse_bit(img, f, n, err, errlen);
	} else if (ends_with(path, ".mcs") || (n && f[0] == ':')) {
		rc = parse_mcs(img, f, n, err, errlen);
	} else {
		img->data = f;
		img->len = n;
		f = NULL;
	}
	free(f);
	if (rc)
		fw_image_free(img);
	return rc;
}

void fw_image_free(struct fw_image *img)
{
	free(img->data);
	img->data = NULL;
	img->len = 0;
}

int fw_image_check(const struct fw_image *img, uint32_t fpga_idcode, size_t max_len, char *err,
		   size_t errlen)
{
	struct fw_image scan = *img;
	const char *fpga_part = fw_idcode_part(fpga_idcode);
	bool desync;

	if (!img->len)
		return fail(err, errlen, EINVAL, "the image is empty");
	if (img->len > max_len)
		return fail(err, errlen, EINVAL, "too large: %zu bytes for a segment of %zu bytes",
			    img->len, max_len);
	scan.idcode = 0;
	scan_packets(&scan, &desync);
	if (scan.sync_at == SIZE_MAX)
		return fail(err, errlen, EINVAL,
			    "no sync word (AA995566h): not a configuration bitstream");
	if (img->part[0] && fpga_part && strncmp(img->part, fpga_part, strlen(fpga_part)))
		return fail(err, errlen, EINVAL,
			    "wrong part: the image is for %s, the FPGA is %s (IDCODE %08x)",
			    img->part, fpga_part, fpga_idcode);
	if (!scan.idcode)
		return fail(err, errlen, EINVAL, "the bitstream writes no IDCODE");
	if ((scan.idcode & IDCODE_MASK) != (fpga_idcode & IDCODE_MASK)) {
		const char *p = fw_idcode_part(scan.idcode);

		return fail(
			err, errlen, EINVAL,
			"wrong part: the bitstream is for IDCODE %08x (%s), the FPGA is %08x (%s)",
			scan.idcode, p ? p : "unknown part", fpga_idcode,
			fpga_part ? fpga_part : "unknown part");
	}
	if (!desync)
		return fail(err, errlen, EINVAL,
			    "truncated: the bitstream does not end (no DESYNC command)");
	return 0;
}
