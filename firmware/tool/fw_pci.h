/* SPDX-License-Identifier: MIT */
/*
 * Boards on the PCI bus: found with libpci by the shell's vendor and device IDs and the
 * board block's ID register, BAR0 mapped through sysfs (libpci has no call for it), and
 * the reload dance: unbind, mask the upstream port's error reporting, reload, remove,
 * secondary bus reset, rescan, restore, rebind to vfio-pci. Config space goes through
 * libpci, the rest through sysfs; the sysfs root is a parameter, so that the whole dance
 * runs against a fake tree in the tests.
 */
#ifndef HROCE_FW_PCI_H
#define HROCE_FW_PCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The shell's PCIe IDs (firmware/boards/common/pcie_ids.tcl sets the same) */
#define FW_PCI_VENDOR 0x10ee
#define FW_PCI_DEVICE 0x4852
#define FW_BAR0_BYTES (128u << 10)

struct pci_access;
struct pci_dev;

struct fw_pci {
	struct pci_access *pacc;
	char root[512]; /* the sysfs root ("/sys") */
	bool verbose;
};

struct fw_pci_dev {
	char addr[16]; /* dddd:bb:dd.f */
	struct pci_dev *dev;
	volatile uint32_t *bar0;
	size_t bar0_len;
};

struct fw_boot_opts {
	uint32_t wbstar;
	unsigned int reload_ms; /* how long the FPGA takes to load (then the link is up) */
	unsigned int reset_ms;	/* secondary bus reset held this long */
	bool reload;		/* false: remove, reset, rescan only (the reset command) */
	const char *driver;	/* bind to it after the rescan ("vfio-pci"), or NULL */
};

/* 0 or a positive errno; the error printed. */
int fw_pci_open(struct fw_pci *p, const char *sysfs_root, bool verbose);
void fw_pci_close(struct fw_pci *p);
/* Calls fn for each device with the shell's IDs; returns how many. */
unsigned int fw_pci_list(struct fw_pci *p, void (*fn)(void *ctx, const char *addr), void *ctx);
/* Finds ADDR ("0000:65:00.0", "65:00.0"); 0, ENODEV or EINVAL, with a message. */
int fw_pci_find(struct fw_pci *p, const char *spec, struct fw_pci_dev *d);
int fw_pci_map(struct fw_pci *p, struct fw_pci_dev *d);
void fw_pci_unmap(struct fw_pci_dev *d);
uint32_t fw_pci_board_read(void *ctx, uint32_t off);
void fw_pci_board_write(void *ctx, uint32_t off, uint32_t v);
/* The dance (see above); 0 or a positive errno, each step printed when verbose. */
int fw_pci_boot(struct fw_pci *p, struct fw_pci_dev *d, const struct fw_boot_opts *o);

#endif /* HROCE_FW_PCI_H */
