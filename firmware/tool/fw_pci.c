// SPDX-License-Identifier: MIT
/* Boards on the PCI bus (fw_pci.h). */
#include "fw_pci.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pci/pci.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fw_flash.h"

/* AER: Surprise Down Error (bit 5 of the uncorrectable status and mask registers) */
#define AER_SURPRISE_DOWN 0x20u

static void __attribute__((noreturn)) pci_fatal(char *msg, ...)
{
	va_list ap;

	va_start(ap, msg);
	fprintf(stderr, "hroce-fw: libpci: ");
	vfprintf(stderr, msg, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(3);
}

static void pci_quiet(char *msg, ...)
{
	(void)msg;
}

static void step(struct fw_pci *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void step(struct fw_pci *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->verbose)
		return;
	va_start(ap, fmt);
	printf("step: ");
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	fflush(stdout);
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int fw_pci_open(struct fw_pci *p, const char *sysfs_root, bool verbose)
{
	char path[600];

	memset(p, 0, sizeof(*p));
	p->verbose = verbose;
	snprintf(p->root, sizeof(p->root), "%s", sysfs_root ? sysfs_root : "/sys");
	p->pacc = pci_alloc();
	if (!p->pacc)
		return ENOMEM;
	p->pacc->error = pci_fatal;
	p->pacc->warning = pci_quiet;
	p->pacc->method = PCI_ACCESS_SYS_BUS_PCI;
	snprintf(path, sizeof(path), "%s/bus/pci", p->root);
	if (pci_set_param(p->pacc, "sysfs.path", path)) {
		fprintf(stderr, "hroce-fw: this libpci has no sysfs.path parameter\n");
		pci_cleanup(p->pacc);
		return EINVAL;
	}
	pci_init(p->pacc);
	pci_scan_bus(p->pacc);
	return 0;
}

void fw_pci_close(struct fw_pci *p)
{
	if (p->pacc)
		pci_cleanup(p->pacc);
	p->pacc = NULL;
}

static void dev_name(struct pci_dev *d, char *out, size_t len)
{
	snprintf(out, len, "%04x:%02x:%02x.%d", d->domain, d->bus, d->dev, d->func);
}

unsigned int fw_pci_list(struct fw_pci *p, void (*fn)(void *ctx, const char *addr), void *ctx)
{
	unsigned int n = 0;

	for (struct pci_dev *d = p->pacc->devices; d; d = d->next) {
		char name[16];

		pci_fill_info(d, PCI_FILL_IDENT);
		if (d->vendor_id != FW_PCI_VENDOR || d->device_id != FW_PCI_DEVICE)
			continue;
		dev_name(d, name, sizeof(name));
		fn(ctx, name);
		n++;
	}
	return n;
}

int fw_pci_find(struct fw_pci *p, const char *spec, struct fw_pci_dev *out)
{
	unsigned int dom = 0, bus, dev, func;
	char tail;

	memset(out, 0, sizeof(*out));
	if (sscanf(spec, "%x:%x:%x.%u%c", &dom, &bus, &dev, &func, &tail) != 4) {
		dom = 0;
		if (sscanf(spec, "%x:%x.%u%c", &bus, &dev, &func, &tail) != 3) {
			fprintf(stderr, "hroce-fw: %s: not a PCI address (dddd:bb:dd.f)\n", spec);
			return EINVAL;
		}
	}
	for (struct pci_dev *d = p->pacc->devices; d; d = d->next) {
		if (d->domain != (int)dom || d->bus != bus || d->dev != dev || d->func != func)
			continue;
		pci_fill_info(d, PCI_FILL_IDENT);
		dev_name(d, out->addr, sizeof(out->addr));
		if (d->vendor_id != FW_PCI_VENDOR || d->device_id != FW_PCI_DEVICE) {
			fprintf(stderr,
				"hroce-fw: %s is %04x:%04x, not a HardRoCE board (%04x:%04x)\n",
				out->addr, d->vendor_id, d->device_id, FW_PCI_VENDOR,
				FW_PCI_DEVICE);
			return ENODEV;
		}
		out->dev = d;
		return 0;
	}
	fprintf(stderr, "hroce-fw: no PCI device %s\n", spec);
	return ENODEV;
}

int fw_pci_map(struct fw_pci *p, struct fw_pci_dev *d)
{
	char path[700];
	struct stat st;
	void *m;
	int fd;
	u16 cmd = pci_read_word(d->dev, PCI_COMMAND);

	/* vfio-pci leaves memory decoding off while nobody has the device open */
	if (!(cmd & PCI_COMMAND_MEMORY))
		pci_write_word(d->dev, PCI_COMMAND, cmd | PCI_COMMAND_MEMORY);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/resource0", p->root, d->addr);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0 || fstat(fd, &st)) {
		int err = errno;

		fprintf(stderr, "hroce-fw: %s: %s\n", path, strerror(err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	d->bar0_len = st.st_size > 0 ? (size_t)st.st_size : FW_BAR0_BYTES;
	if (d->bar0_len < FW_BAR0_BYTES) {
		fprintf(stderr, "hroce-fw: %s: BAR0 is %zu bytes, the shell's is %u\n", d->addr,
			d->bar0_len, FW_BAR0_BYTES);
		close(fd);
		return ENODEV;
	}
	m = mmap(NULL, d->bar0_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		fprintf(stderr, "hroce-fw: mapping BAR0 of %s: %s\n", d->addr, strerror(errno));
		return errno;
	}
	d->bar0 = m;
	if (fw_pci_board_read(d, FW_REG_ID) != FW_BOARD_MAGIC) {
		fprintf(stderr, "hroce-fw: %s: no board block at BAR0 + 0x%x (read %08x)\n",
			d->addr, FW_BOARD_BASE, fw_pci_board_read(d, FW_REG_ID));
		fw_pci_unmap(d);
		return ENODEV;
	}
	return 0;
}

void fw_pci_unmap(struct fw_pci_dev *d)
{
	if (d->bar0)
		munmap((void *)d->bar0, d->bar0_len);
	d->bar0 = NULL;
}

uint32_t fw_pci_board_read(void *ctx, uint32_t off)
{
	struct fw_pci_dev *d = ctx;

	return d->bar0[(FW_BOARD_BASE + off) / 4];
}

void fw_pci_board_write(void *ctx, uint32_t off, uint32_t v)
{
	struct fw_pci_dev *d = ctx;

	d->bar0[(FW_BOARD_BASE + off) / 4] = v;
}

static int write_attr(struct fw_pci *p, const char *rel, const char *value)
{
	char path[800];
	int fd, err = 0;
	size_t len = strlen(value);

	snprintf(path, sizeof(path), "%s/%s", p->root, rel);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0 || write(fd, value, len) != (ssize_t)len)
		err = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	if (err)
		fprintf(stderr, "hroce-fw: writing %s to %s: %s\n", value, path, strerror(err));
	return err;
}

/* The port above the device: the parent of its sysfs directory. */
static struct pci_dev *upstream_port(struct fw_pci *p, const struct fw_pci_dev *d)
{
	char path[700], real[PATH_MAX];
	unsigned int dom, bus, dev, func;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s", p->root, d->addr);
	if (!realpath(path, real))
		return NULL;
	if (sscanf(basename(dirname(real)), "%x:%x:%x.%u", &dom, &bus, &dev, &func) != 4)
		return NULL;
	for (struct pci_dev *u = p->pacc->devices; u; u = u->next)
		if (u->domain == (int)dom && u->bus == bus && u->dev == dev && u->func == func)
			return u;
	return NULL;
}

struct port_state {
	u16 cmd, devctl;
	u32 aer_mask;
	int exp, aer; /* capability offsets, 0 if none */
};

static void mask_errors(struct fw_pci *p, struct pci_dev *u, struct port_state *s)
{
	struct pci_cap *c;

	memset(s, 0, sizeof(*s));
	s->cmd = pci_read_word(u, PCI_COMMAND);
	c = pci_find_cap(u, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);
	if (c)
		s->exp = c->addr;
	c = pci_find_cap(u, PCI_EXT_CAP_ID_AER, PCI_CAP_EXTENDED);
	if (c)
		s->aer = c->addr;
	pci_write_word(u, PCI_COMMAND, s->cmd & ~PCI_COMMAND_SERR);
	if (s->exp) {
		s->devctl = pci_read_word(u, s->exp + PCI_EXP_DEVCTL);
		pci_write_word(u, s->exp + PCI_EXP_DEVCTL,
			       s->devctl & ~(PCI_EXP_DEVCTL_FERE | PCI_EXP_DEVCTL_NFERE));
	}
	if (s->aer) {
		s->aer_mask = pci_read_long(u, s->aer + PCI_ERR_UNCOR_MASK);
		pci_write_long(u, s->aer + PCI_ERR_UNCOR_MASK, s->aer_mask | AER_SURPRISE_DOWN);
	}
	step(p, "masked error reporting of the upstream port (SERR%s%s)",
	     s->exp ? ", fatal/non-fatal reporting" : "", s->aer ? ", AER surprise down" : "");
}

static void restore_errors(struct fw_pci *p, struct pci_dev *u, const struct port_state *s)
{
	if (s->aer) {
		/* the link went down on purpose: clear what it left in the status */
		pci_write_long(u, s->aer + 4, AER_SURPRISE_DOWN);
		pci_write_long(u, s->aer + PCI_ERR_UNCOR_MASK, s->aer_mask);
	}
	if (s->exp)
		pci_write_word(u, s->exp + PCI_EXP_DEVCTL, s->devctl);
	pci_write_word(u, PCI_COMMAND, s->cmd);
	step(p, "restored error reporting of the upstream port");
}

int fw_pci_boot(struct fw_pci *p, struct fw_pci_dev *d, const struct fw_boot_opts *o)
{
	char rel[300], drv[700], real[PATH_MAX];
	struct pci_dev *u = upstream_port(p, d);
	struct port_state saved;
	u16 bctl;
	int err;

	if (!u) {
		fprintf(stderr, "hroce-fw: %s: cannot find the port above it in %s\n", d->addr,
			p->root);
		return ENODEV;
	}
	snprintf(drv, sizeof(drv), "%s/bus/pci/devices/%s/driver", p->root, d->addr);
	if (realpath(drv, real)) {
		snprintf(rel, sizeof(rel), "bus/pci/devices/%s/driver/unbind", d->addr);
		err = write_attr(p, rel, d->addr);
		if (err)
			return err;
		step(p, "unbound %s from %s", d->addr, basename(real));
	}
	mask_errors(p, u, &saved);
	if (o->reload) {
		if (!d->bar0 && (err = fw_pci_map(p, d)))
			goto restore;
		fw_board_reload(&(struct fw_regs){ .ctx = d, .write = fw_pci_board_write },
				o->wbstar);
		step(p, "reload from flash address 0x%08x (IPROG)", o->wbstar);
		fw_pci_unmap(d);
		sleep_ms(o->reload_ms);
	}
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/remove", d->addr);
	err = write_attr(p, rel, "1");
	if (err)
		goto restore;
	step(p, "removed %s", d->addr);
	bctl = pci_read_word(u, PCI_BRIDGE_CONTROL);
	pci_write_word(u, PCI_BRIDGE_CONTROL, bctl | PCI_BRIDGE_CTL_BUS_RESET);
	sleep_ms(o->reset_ms);
	pci_write_word(u, PCI_BRIDGE_CONTROL, bctl & ~PCI_BRIDGE_CTL_BUS_RESET);
	step(p, "secondary bus reset of the upstream port");
	sleep_ms(o->reset_ms);
	err = write_attr(p, "bus/pci/rescan", "1");
	if (err)
		goto restore;
	step(p, "rescanned the bus");
restore:
	restore_errors(p, u, &saved);
	if (err)
		return err;
	if (o->driver) {
		snprintf(rel, sizeof(rel), "bus/pci/devices/%s/driver_override", d->addr);
		err = write_attr(p, rel, o->driver);
		snprintf(rel, sizeof(rel), "bus/pci/drivers/%s/bind", o->driver);
		err = err ?: write_attr(p, rel, d->addr);
		if (err) {
			fprintf(stderr,
				"hroce-fw: could not bind %s to %s (is the module loaded?)\n",
				d->addr, o->driver);
			return err;
		}
		step(p, "bound %s to %s", d->addr, o->driver);
	}
	return 0;
}
