// SPDX-License-Identifier: MIT
/*
 * hroce-fw: the flash tool of HardRoCE boards.
 *
 *   hroce-fw list                       boards on the PCI bus, and simulated ones
 *   hroce-fw info DEV                   identity, version, FPGA, flash and its layout
 *   hroce-fw read DEV FILE              the update segment (--golden: the golden one)
 *   hroce-fw write DEV IMAGE            erase, program, read back and verify
 *   hroce-fw verify DEV IMAGE           compare the segment with an image
 *   hroce-fw erase DEV                  erase the segment
 *   hroce-fw boot DEV                   reload the FPGA from the segment, rescan, rebind
 *   hroce-fw reset DEV                  remove, bus reset, rescan, rebind (no reload)
 *
 * DEV is one of
 *   0000:65:00.0, 65:00.0   a board by its PCI address: found with libpci, BAR0 mapped
 *                           through sysfs (resource0), whatever driver it is bound to;
 *   vfio:0000:65:00.0       a board bound to vfio-pci, through libhroce's VFIO bus (the
 *                           driver stack perftest runs on; hroce_bar.h);
 *   hroce:SPEC              any device libhroce opens (hroce:vfio:..., or hroce:sim:NAME: a
 *                           simulated NIC of $HROCE_CONFIG with model = shell, the board
 *                           shell with the core inside, its flash in the configured file);
 *   sim:NAME                a simulated board block alone (the RTL of board_regs, its SPI
 *                           controller and reload, with the MT25QU01G and ICAP models on
 *                           its pins) whose flash lives in a file, so that it keeps its
 *                           contents between runs as a board's does.
 * The flash commands are one code (fw_flash.c) above the register access of each.
 *
 * Images: .bit (header parsed), .bin, .mcs. The golden segment is never erased or
 * programmed unless --golden is given: every erase and program goes through one range
 * check. The image's first page, which holds the sync word, is programmed last, so that
 * an interrupted write leaves a segment the FPGA will not boot from.
 *
 * Exit status: 0 done, 1 usage, 2 bad image, 3 device not found or not usable, 4 the
 * flash failed (erase, program, timeout), 5 verify found a difference.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fw_flash.h"
#include "fw_image.h"
#include "fw_pci.h"
#include "fw_sim.h"
#include "hroce_bar.h"

extern const struct vmodel_ops vmodel_Vfw_board;

enum { EXIT_USAGE = 1, EXIT_IMAGE = 2, EXIT_DEVICE = 3, EXIT_FLASH = 4, EXIT_VERIFY = 5 };

#define SIM_DIR_DEFAULT "/tmp/hroce-fw-sim"
/* The simulated flash's times are the data sheet's divided by this (env to change it) */
#define SIM_TIME_DIVISOR 1000u
/* A board's SCK: 250 MHz / 8, the READ command's limit with margin for STARTUPE3's paths */
#define BOARD_SPI_DIV 3
/* A board's status polls before a timeout: each is a few reads across PCIe (~5 us), ~10 s */
#define BOARD_POLL_LIMIT 2000000

struct opts {
	bool golden, verbose;
	uint64_t length; /* 0: the whole segment (read, erase) */
	const char *sysfs, *sim_dir, *expect;
	unsigned int reload_ms;
};

enum dev_kind {
	DEV_PCI, /* libpci and sysfs */
	DEV_BUS, /* libhroce's bus */
	DEV_SIM, /* the board block's model alone */
};

struct dev {
	enum dev_kind kind;
	char name[300];
	struct fw_regs regs;
	struct fw_board_info info;
	struct fw_pci pci;
	struct fw_pci_dev pdev;
	struct hroce_bar *bar;
	struct fw_sim sim;
	/* the segment the command works on */
	uint32_t seg_off, seg_size;
	bool golden;
	bool progress;
};

static uint32_t sim_read(void *ctx, uint32_t off)
{
	return fw_sim_read(ctx, off);
}

static void sim_write(void *ctx, uint32_t off, uint32_t v)
{
	fw_sim_write(ctx, off, v);
}

static uint32_t bus_read(void *ctx, uint32_t off)
{
	return hroce_bar_read32(ctx, FW_BOARD_BASE + off);
}

static void bus_write(void *ctx, uint32_t off, uint32_t v)
{
	hroce_bar_write32(ctx, FW_BOARD_BASE + off, v);
}

/* The libhroce spec of DEV, or NULL if DEV is not a libhroce device. */
static const char *bus_spec(const char *spec)
{
	if (!strncmp(spec, "hroce:", 6))
		return spec + 6;
	return strncmp(spec, "vfio:", 5) ? NULL : spec;
}

/* A board behind libhroce's VFIO bus: its PCI address, or NULL (a simulated NIC). */
static const char *bus_pci_addr(const struct dev *d)
{
	const char *name = hroce_bar_name(d->bar);

	return strncmp(name, "vfio:", 5) ? NULL : name + 5;
}

static int bus_open(struct dev *d, const char *spec)
{
	int err = hroce_bar_open(bus_spec(spec), &d->bar);

	if (err) {
		fprintf(stderr, "hroce-fw: %s: libhroce cannot open it: %s\n", spec, strerror(err));
		return EXIT_DEVICE;
	}
	snprintf(d->name, sizeof(d->name), "%s", hroce_bar_name(d->bar));
	d->regs.ctx = d->bar;
	return 0;
}

static void sim_path(const struct opts *o, const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s/%s.flash", o->sim_dir, name);
}

/* HROCE_FW_SIM_FAULT=erase:N | program:N | powercut:N (the tests' fault injection) */
static void sim_faults(struct fw_sim *s)
{
	const char *f = getenv("HROCE_FW_SIM_FAULT");
	unsigned long long n = 0;

	if (!f || !*f)
		return;
	if (sscanf(f, "erase:%llu", &n) == 1)
		s->flash.fault = FLASH_FAULT_ERASE;
	else if (sscanf(f, "program:%llu", &n) == 1)
		s->flash.fault = FLASH_FAULT_PROGRAM;
	else if (sscanf(f, "powercut:%llu", &n) == 1)
		s->flash.fault = FLASH_FAULT_POWER_CUT;
	else
		fprintf(stderr, "hroce-fw: HROCE_FW_SIM_FAULT=%s not understood\n", f);
	s->flash.fault_after = n;
}

static void dev_close(struct dev *d)
{
	switch (d->kind) {
	case DEV_SIM:
		fw_sim_close(&d->sim);
		break;
	case DEV_BUS:
		hroce_bar_close(d->bar);
		break;
	case DEV_PCI:
		fw_pci_unmap(&d->pdev);
		fw_pci_close(&d->pci);
		break;
	}
}

static int dev_open(struct dev *d, const char *spec, const struct opts *o)
{
	int err;

	memset(d, 0, sizeof(*d));
	d->progress = isatty(STDERR_FILENO);
	snprintf(d->name, sizeof(d->name), "%s", spec);
	if (!strncmp(spec, "sim:", 4)) {
		char path[600];
		const char *div = getenv("HROCE_FW_SIM_TIME_DIVISOR");

		if (!spec[4] || strchr(spec + 4, '/')) {
			fprintf(stderr, "hroce-fw: %s: a simulated board is sim:NAME\n", spec);
			return EXIT_USAGE;
		}
		mkdir(o->sim_dir, 0755);
		sim_path(o, spec + 4, path, sizeof(path));
		err = fw_sim_open(&d->sim, &vmodel_Vfw_board, path, FLASH_MT25QU01G_BYTES,
				  div ? (unsigned int)strtoul(div, NULL, 0) : SIM_TIME_DIVISOR);
		if (err) {
			fprintf(stderr, "hroce-fw: %s: %s: %s\n", spec, path, strerror(err));
			return EXIT_DEVICE;
		}
		sim_faults(&d->sim);
		d->kind = DEV_SIM;
		d->regs.ctx = &d->sim;
		d->regs.read = sim_read;
		d->regs.write = sim_write;
		d->regs.spi_div = 0;
		d->regs.poll_limit = 100000;
	} else if (bus_spec(spec)) {
		err = bus_open(d, spec);
		if (err)
			return err;
		d->kind = DEV_BUS;
		d->regs.read = bus_read;
		d->regs.write = bus_write;
		/* a board (or its shell simulated), as through sysfs */
		d->regs.spi_div = BOARD_SPI_DIV;
		d->regs.poll_limit = BOARD_POLL_LIMIT;
	} else {
		err = fw_pci_open(&d->pci, o->sysfs, o->verbose);
		if (err)
			return EXIT_DEVICE;
		err = fw_pci_find(&d->pci, spec, &d->pdev) ?: fw_pci_map(&d->pci, &d->pdev);
		if (err) {
			fw_pci_close(&d->pci);
			return EXIT_DEVICE;
		}
		snprintf(d->name, sizeof(d->name), "%s", d->pdev.addr);
		d->regs.ctx = &d->pdev;
		d->kind = DEV_PCI;
		d->regs.read = fw_pci_board_read;
		d->regs.write = fw_pci_board_write;
		d->regs.spi_div = BOARD_SPI_DIV;
		d->regs.poll_limit = BOARD_POLL_LIMIT;
	}
	fw_board_info(&d->regs, &d->info);
	err = fw_board_check(&d->info);
	if (err) {
		fprintf(stderr, "hroce-fw: %s: %s\n", d->name,
			err == EPROTO ? "no HardRoCE board block (ID register)"
				      : "the board's flash layout makes no sense");
		dev_close(d);
		return EXIT_DEVICE;
	}
	d->golden = o->golden;
	d->seg_off = o->golden ? d->info.golden_off : d->info.update_off;
	d->seg_size = o->golden ? d->info.golden_size : d->info.update_size;
	return 0;
}

static const char *flash_error(int err, const char *what)
{
	if (err == EIO)
		return what;
	if (err == ETIMEDOUT)
		return "the flash does not answer (timed out waiting for it)";
	return strerror(err);
}

static const char *seg_name(const struct dev *d)
{
	return d->golden ? "golden" : "update";
}

static void progress(const struct dev *d, const char *what, uint64_t done, uint64_t total)
{
	if (!d->progress || !total)
		return;
	fprintf(stderr, "\r%s: %3u%%", what, (unsigned int)(done * 100 / total));
	if (done == total)
		fputc('\n', stderr);
}

/* The one gate of every erase and program: inside the segment the command works on. */
static int guard(const struct dev *d, uint32_t addr, uint32_t len)
{
	uint64_t end = (uint64_t)addr + len;
	uint64_t g_end = (uint64_t)d->info.golden_off + d->info.golden_size;

	if (addr < d->seg_off || end > (uint64_t)d->seg_off + d->seg_size ||
	    (!d->golden && addr < g_end && d->info.golden_off < end)) {
		fprintf(stderr,
			"hroce-fw: refusing to change 0x%08x..0x%08" PRIx64
			" outside the %s segment\n",
			addr, end, seg_name(d));
		return EPERM;
	}
	return 0;
}

static int erase_range(struct dev *d, uint32_t off, uint64_t len)
{
	uint64_t n = (len + FW_SECTOR_BYTES - 1) / FW_SECTOR_BYTES;

	for (uint64_t i = 0; i < n; i++) {
		uint32_t a = d->seg_off + off + (uint32_t)(i * FW_SECTOR_BYTES);
		int err = guard(d, a, FW_SECTOR_BYTES) ?: fw_flash_erase_sector(&d->regs, a);

		if (err) {
			fprintf(stderr, "\nhroce-fw: %s: erasing the sector at 0x%08x failed: %s\n",
				d->name, a, flash_error(err, "the flash reports an erase error"));
			return err;
		}
		progress(d, "erase", i + 1, n);
	}
	return 0;
}

static int program_page(struct dev *d, const uint8_t *data, size_t len, size_t at)
{
	uint32_t a = d->seg_off + (uint32_t)at;
	size_t n = len - at < FW_PAGE_BYTES ? len - at : FW_PAGE_BYTES;
	int err;

	/* an erased page needs no programming */
	for (size_t i = 0; i < n; i++)
		if (data[at + i] != 0xff)
			goto program;
	return 0;
program:
	err = guard(d, a, (uint32_t)n) ?: fw_flash_program_page(&d->regs, a, data + at, n);
	if (err)
		fprintf(stderr, "\nhroce-fw: %s: programming the page at 0x%08x failed: %s\n",
			d->name, a, flash_error(err, "the flash reports a program error"));
	return err;
}

static int read_range(struct dev *d, uint32_t off, uint8_t *buf, size_t len)
{
	const size_t chunk = 4096;

	for (size_t at = 0; at < len; at += chunk) {
		size_t n = len - at < chunk ? len - at : chunk;
		int err = fw_flash_read(&d->regs, d->seg_off + off + (uint32_t)at, buf + at, n);

		if (err) {
			fprintf(stderr, "\nhroce-fw: %s: reading the flash failed: %s\n", d->name,
				flash_error(err, strerror(err)));
			return err;
		}
		progress(d, "read", at + n, len);
	}
	return 0;
}

/* Compares the segment with data; 0 when equal, EXIT_VERIFY or EXIT_FLASH. */
static int verify_data(struct dev *d, const uint8_t *data, size_t len)
{
	uint8_t *got = malloc(len);
	int rc = 0;

	if (!got)
		return EXIT_FLASH;
	if (read_range(d, 0, got, len)) {
		rc = EXIT_FLASH;
	} else {
		for (size_t i = 0; i < len; i++)
			if (got[i] != data[i]) {
				fprintf(stderr,
					"hroce-fw: %s: verify: the %s segment differs at 0x%08zx "
					"(flash 0x%08zx): %02x, image %02x\n",
					d->name, seg_name(d), i, d->seg_off + i, got[i], data[i]);
				rc = EXIT_VERIFY;
				break;
			}
	}
	free(got);
	return rc;
}

static int load_image(struct dev *d, const char *path, struct fw_image *img)
{
	char err[300];

	if (fw_image_load(img, path, err, sizeof(err)) ||
	    fw_image_check(img, d->info.idcode, d->seg_size, err, sizeof(err))) {
		fprintf(stderr, "hroce-fw: %s: %s\n", path, err);
		fw_image_free(img);
		return EXIT_IMAGE;
	}
	/* an .mcs names flash addresses: it must be for this segment (or start at 0) */
	if (img->base && img->base != d->seg_off) {
		fprintf(stderr,
			"hroce-fw: %s: the .mcs starts at 0x%08x, the %s segment at 0x%08x\n", path,
			img->base, seg_name(d), d->seg_off);
		fw_image_free(img);
		return EXIT_IMAGE;
	}
	return 0;
}

static int cmd_write(struct dev *d, const char *path)
{
	struct fw_image img;
	size_t pages;
	int rc = load_image(d, path, &img);

	if (rc)
		return rc;
	printf("%s: writing %s (%zu bytes%s%s) to the %s segment at 0x%08x\n", d->name, path,
	       img.len, img.part[0] ? ", part " : "", img.part, seg_name(d), d->seg_off);
	if (erase_range(d, 0, img.len)) {
		rc = EXIT_FLASH;
		goto out;
	}
	/* every page but the first, then the first (it holds the sync word) */
	pages = (img.len + FW_PAGE_BYTES - 1) / FW_PAGE_BYTES;
	for (size_t p = 1; p <= pages; p++) {
		size_t page = p == pages ? 0 : p;

		if (program_page(d, img.data, img.len, page * FW_PAGE_BYTES)) {
			rc = EXIT_FLASH;
			goto out;
		}
		progress(d, "program", p, pages);
	}
	rc = verify_data(d, img.data, img.len);
	if (!rc)
		printf("%s: written and verified\n", d->name);
out:
	if (rc && !d->golden)
		fprintf(stderr,
			"hroce-fw: %s: the update segment is not usable; the golden image was not "
			"touched and the board boots from it\n",
			d->name);
	fw_image_free(&img);
	return rc;
}

static int cmd_verify(struct dev *d, const char *path)
{
	struct fw_image img;
	int rc = load_image(d, path, &img);

	if (rc)
		return rc;
	rc = verify_data(d, img.data, img.len);
	if (!rc)
		printf("%s: the %s segment matches %s (%zu bytes)\n", d->name, seg_name(d), path,
		       img.len);
	fw_image_free(&img);
	return rc;
}

static int cmd_read(struct dev *d, const char *path, const struct opts *o)
{
	size_t len = o->length ? o->length : d->seg_size;
	uint8_t *buf;
	FILE *f;
	int rc = 0;

	if (len > d->seg_size) {
		fprintf(stderr, "hroce-fw: --length %zu is beyond the %s segment (%u bytes)\n", len,
			seg_name(d), d->seg_size);
		return EXIT_USAGE;
	}
	buf = malloc(len);
	if (!buf)
		return EXIT_FLASH;
	if (read_range(d, 0, buf, len)) {
		free(buf);
		return EXIT_FLASH;
	}
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len) {
		fprintf(stderr, "hroce-fw: %s: %s\n", path, strerror(errno));
		rc = EXIT_USAGE;
	}
	if (f && fclose(f) && !rc) {
		fprintf(stderr, "hroce-fw: %s: %s\n", path, strerror(errno));
		rc = EXIT_USAGE;
	}
	if (!rc)
		printf("%s: read %zu bytes of the %s segment into %s\n", d->name, len, seg_name(d),
		       path);
	free(buf);
	return rc;
}

static int cmd_erase(struct dev *d, const struct opts *o)
{
	uint64_t len = o->length ? o->length : d->seg_size;

	if (len > d->seg_size) {
		fprintf(stderr, "hroce-fw: --length is beyond the %s segment\n", seg_name(d));
		return EXIT_USAGE;
	}
	if (erase_range(d, 0, len))
		return EXIT_FLASH;
	printf("%s: erased %" PRIu64 " bytes of the %s segment\n", d->name,
	       (len + FW_SECTOR_BYTES - 1) / FW_SECTOR_BYTES * FW_SECTOR_BYTES, seg_name(d));
	return 0;
}

static void print_info(struct dev *d)
{
	const struct fw_board_info *i = &d->info;
	const char *part = fw_idcode_part(i->idcode);
	uint8_t id[3] = { 0 };
	int err = fw_flash_read_id(&d->regs, id);

	printf("device:      %s\n", d->name);
	printf("board:       %04x (layout %u)\n", i->board & 0xffff, i->board >> 16);
	printf("version:     git %08x, built %u\n", i->git_hash, i->build_stamp);
	printf("fpga:        IDCODE %08x (%s)\n", i->idcode, part ? part : "unknown part");
	if (err)
		printf("flash:       not answering (%s)\n", strerror(err));
	else
		printf("flash:       JEDEC %02x %02x %02x, %u MiB\n", id[0], id[1], id[2],
		       i->flash_size >> 20);
	printf("golden:      0x%08x, %u MiB\n", i->golden_off, i->golden_size >> 20);
	printf("update:      0x%08x, %u MiB\n", i->update_off, i->update_size >> 20);
}

static int check_version(struct dev *d, const struct opts *o)
{
	struct fw_board_info now;

	fw_board_info(&d->regs, &now);
	if (now.magic != FW_BOARD_MAGIC) {
		fprintf(stderr, "hroce-fw: %s: the board does not answer after the reload\n",
			d->name);
		return EXIT_DEVICE;
	}
	printf("%s: running git %08x, built %u\n", d->name, now.git_hash, now.build_stamp);
	if (o->expect && strtoul(o->expect, NULL, 16) != now.git_hash) {
		fprintf(stderr, "hroce-fw: %s: runs git %08x, not the expected %s\n", d->name,
			now.git_hash, o->expect);
		return EXIT_DEVICE;
	}
	return 0;
}

/* The ICAP of a simulated board: the reloads it saw, and the flash address of the last. */
struct icap_seen {
	uint64_t iprogs, wbstar, errors;
};

static void icap_stat(void *ctx, const char *name, uint64_t value)
{
	struct icap_seen *seen = ctx;

	if (!strcmp(name, "shell.iprogs"))
		seen->iprogs = value;
	else if (!strcmp(name, "shell.iprog_wbstar"))
		seen->wbstar = value;
}

static void icap_seen(struct dev *d, struct icap_seen *seen)
{
	memset(seen, 0, sizeof(*seen));
	if (d->kind == DEV_SIM) {
		seen->iprogs = d->sim.icap.iprogs;
		seen->wbstar = d->sim.icap.iprog_wbstar;
		seen->errors = d->sim.icap.errors;
	} else {
		hroce_bar_stats(d->bar, icap_stat, seen);
	}
}

/* A simulated board stays up across the reload: the ICAP model tells what it saw. */
static int boot_simulated(struct dev *d, const struct opts *o, bool reload)
{
	struct icap_seen before, after;

	if (reload) {
		icap_seen(d, &before);
		fw_board_reload(&d->regs, d->seg_off);
		if (fw_board_reload_wait(&d->regs)) {
			fprintf(stderr, "hroce-fw: %s: the reload is still being sent\n", d->name);
			return EXIT_DEVICE;
		}
		icap_seen(d, &after);
		if (after.iprogs != before.iprogs + 1 || after.errors ||
		    after.wbstar != d->seg_off) {
			fprintf(stderr, "hroce-fw: %s: the ICAP saw no reload to 0x%08x\n", d->name,
				d->seg_off);
			return EXIT_DEVICE;
		}
		printf("%s: ICAP: WBSTAR 0x%08x, IPROG\n", d->name, (uint32_t)after.wbstar);
	}
	return check_version(d, o);
}

/*
 * A board: the PCI dance. One behind libhroce's VFIO bus is let go first (vfio-pci cannot
 * be unbound while the device is open), driven through sysfs for the dance, and opened
 * through VFIO again when it is back (the dance binds it to vfio-pci).
 */
static int cmd_boot(struct dev *d, const char *spec, const struct opts *o, bool reload)
{
	struct fw_boot_opts bo = { .wbstar = d->seg_off,
				   .reload_ms = o->reload_ms,
				   .reset_ms = o->sysfs ? 0 : 100,
				   .reload = reload,
				   .driver = "vfio-pci" };
	char addr[sizeof(d->name)];
	int err;

	if (d->kind == DEV_SIM || (d->kind == DEV_BUS && !bus_pci_addr(d)))
		return boot_simulated(d, o, reload);
	if (d->kind == DEV_BUS) {
		snprintf(addr, sizeof(addr), "%s", bus_pci_addr(d));
		hroce_bar_close(d->bar);
		d->bar = NULL;
		if (fw_pci_open(&d->pci, o->sysfs, o->verbose))
			return EXIT_DEVICE;
		if (fw_pci_find(&d->pci, addr, &d->pdev)) {
			fw_pci_close(&d->pci);
			return EXIT_DEVICE;
		}
	}
	err = fw_pci_boot(&d->pci, &d->pdev, &bo);
	fw_pci_unmap(&d->pdev);
	fw_pci_close(&d->pci);
	if (err)
		return EXIT_DEVICE;
	/* the device came back as a new one: find it and map it (or open it) again */
	if (d->kind == DEV_BUS) {
		err = hroce_bar_open(bus_spec(spec), &d->bar);
		d->regs.ctx = d->bar;
	} else {
		err = fw_pci_open(&d->pci, o->sysfs, o->verbose) ||
		      fw_pci_find(&d->pci, spec, &d->pdev) || fw_pci_map(&d->pci, &d->pdev);
		d->regs.ctx = &d->pdev;
	}
	if (err) {
		fprintf(stderr, "hroce-fw: %s: the board did not come back after the %s\n", d->name,
			reload ? "reload" : "reset");
		return EXIT_DEVICE;
	}
	return check_version(d, o);
}

static void list_one(void *ctx, const char *addr)
{
	const struct opts *o = ctx;
	struct dev d;

	if (dev_open(&d, addr, o)) {
		printf("%s  (no answer)\n", addr);
		return;
	}
	printf("%s  board %04x  git %08x  IDCODE %08x\n", addr, d.info.board & 0xffff,
	       d.info.git_hash, d.info.idcode);
	dev_close(&d);
}

static int cmd_list(const struct opts *o)
{
	struct fw_pci pci;
	struct dirent *e;
	DIR *dir;

	if (!fw_pci_open(&pci, o->sysfs, false)) {
		if (!fw_pci_list(&pci, list_one, (void *)o))
			printf("no HardRoCE board on the PCI bus (%04x:%04x)\n", FW_PCI_VENDOR,
			       FW_PCI_DEVICE);
		fw_pci_close(&pci);
	}
	dir = opendir(o->sim_dir);
	while (dir && (e = readdir(dir))) {
		size_t n = strlen(e->d_name);

		if (n > 6 && !strcmp(e->d_name + n - 6, ".flash"))
			printf("sim:%.*s  (simulated, %s/%s)\n", (int)(n - 6), e->d_name,
			       o->sim_dir, e->d_name);
	}
	if (dir)
		closedir(dir);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hroce-fw [options] list\n"
		"       hroce-fw [options] info|erase|boot|reset DEV\n"
		"       hroce-fw [options] read|write|verify DEV FILE\n"
		"DEV: a board by its PCI address (0000:65:00.0: libpci and sysfs), a board bound\n"
		"     to vfio-pci through libhroce's VFIO bus (vfio:0000:65:00.0), any device\n"
		"     libhroce opens (hroce:SPEC, e.g. hroce:sim:NAME: a simulated NIC of\n"
		"     $HROCE_CONFIG with model = shell), or sim:NAME (a simulated board block)\n"
		"options:\n"
		"  --golden            work on the golden segment (default: the update one)\n"
		"  --length N          bytes to read or erase (default: the whole segment)\n"
		"  --expect-version H  boot/reset: the git hash the board must run afterwards\n"
		"  --reload-ms N       boot: time the FPGA takes to load (default 2000)\n"
		"  --sysfs DIR         the sysfs root (default /sys; env HROCE_FW_SYSFS)\n"
		"  --sim-dir DIR       where sim: flashes live (env HROCE_FW_SIM_DIR; default %s)\n"
		"  -v, --verbose       print each step of boot and reset\n",
		SIM_DIR_DEFAULT);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "golden", no_argument, NULL, 'g' },
		{ "length", required_argument, NULL, 'l' },
		{ "expect-version", required_argument, NULL, 'e' },
		{ "reload-ms", required_argument, NULL, 'r' },
		{ "sysfs", required_argument, NULL, 's' },
		{ "sim-dir", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .sysfs = getenv("HROCE_FW_SYSFS"),
			  .sim_dir = getenv("HROCE_FW_SIM_DIR"),
			  .reload_ms = 2000 };
	const char *cmd;
	struct dev d;
	int c, rc, need;

	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'g':
			o.golden = true;
			break;
		case 'l':
			o.length = strtoull(optarg, NULL, 0);
			break;
		case 'e':
			o.expect = optarg;
			break;
		case 'r':
			o.reload_ms = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 's':
			o.sysfs = optarg;
			break;
		case 'd':
			o.sim_dir = optarg;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (!o.sim_dir || !*o.sim_dir)
		o.sim_dir = SIM_DIR_DEFAULT;
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[optind];
	if (!strcmp(cmd, "list"))
		return cmd_list(&o);
	need = !strcmp(cmd, "read") || !strcmp(cmd, "write") || !strcmp(cmd, "verify") ? 2
	       : !strcmp(cmd, "info") || !strcmp(cmd, "erase") || !strcmp(cmd, "boot") ||
			       !strcmp(cmd, "reset")
		       ? 1
		       : -1;
	if (need < 0 || argc - optind - 1 != need) {
		if (need < 0)
			fprintf(stderr, "hroce-fw: unknown command %s\n", cmd);
		usage(stderr);
		return EXIT_USAGE;
	}
	rc = dev_open(&d, argv[optind + 1], &o);
	if (rc)
		return rc;
	if (!strcmp(cmd, "info")) {
		print_info(&d);
	} else if (!strcmp(cmd, "read")) {
		rc = cmd_read(&d, argv[optind + 2], &o);
	} else if (!strcmp(cmd, "write")) {
		rc = cmd_write(&d, argv[optind + 2]);
	} else if (!strcmp(cmd, "verify")) {
		rc = cmd_verify(&d, argv[optind + 2]);
	} else if (!strcmp(cmd, "erase")) {
		rc = cmd_erase(&d, &o);
	} else {
		rc = cmd_boot(&d, argv[optind + 1], &o, !strcmp(cmd, "boot"));
	}
	dev_close(&d);
	return rc;
}
