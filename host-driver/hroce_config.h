/* SPDX-License-Identifier: MIT */
/*
 * libhroce's device configuration: the one place that says which HardRoCE devices a user
 * has, what they are called, their addresses, and for simulated ones the NIC that
 * hroce_open("sim:NAME") creates (its PCIe, its shared-memory wire and the link on it).
 *
 * It is read from the file named by $HROCE_CONFIG if set, else it is the built-in
 * default: two simulated NICs on one wire, which two processes open one each.
 *
 *   hroce0  sim:hroce0  02:00:0a:00:00:01  10.0.0.1  wire hroce-wire0 port 0
 *   hroce1  sim:hroce1  02:00:0a:00:00:02  10.0.0.2  wire hroce-wire0 port 1
 *
 * with the core at 250 MHz, PCIe 200 ns one way each direction at 128 Gb/s (the AXI bus
 * at 250 MHz), and a 100 Gb/s link of 100 ns. The file format (host-driver/
 * hroce.conf.example has the defaults):
 *
 *   # a comment
 *   [hroce0]                  # a device, by the name users give it
 *   spec = sim:hroce0         # what hroce_open takes (default: sim:NAME)
 *   mac = 02:00:0a:00:00:01   # required
 *   ipv4 = 10.0.0.1           # required
 *   ipv6 = 2001:db8::1        # optional, up to four lines: the device's IPv6 addresses
 *                             # besides its link-local one (GID indexes 2..5)
 *   wire = hroce-wire0        # sim only: /dev/shm/hroce-wire0 (none: an unplugged port),
 *                             # or an external port (hroce_sim.h, hroce_sim_ext_attach):
 *                             # udp:LHOST:LPORT,RHOST:RPORT (a frame per datagram, as
 *                             # QEMU's -netdev dgram) or tap:NAME (root)
 *   port = 0                  # sim only: 0 or 1 (of a shared-memory wire)
 *   clock_mhz = 250           # sim only, and the same for all the keys below
 *   pcie_read_ns = 200
 *   pcie_write_ns = 200
 *   pcie_gbps = 128           # 0: as fast as the core's bus
 *   pcie_reads = 32           # DMA read / write bursts the PCIe bridge keeps in flight
 *   pcie_writes = 32          #   (1 to 256; more wait): 32, as AMD's XDMA bridge
 *   link_ns = 100
 *   link_gbps = 100           # 0: as fast as the core's port
 *   pcap = /tmp/hroce0.pcap   # frames on the wire, simulated-ns timestamps (default none)
 *   model = core              # core: the core alone (default, the fastest); shell: the
 *                             # board shell with the core inside (hroce_sim.h), vendor
 *                             # blocks as models: 32-bit BAR0, MSI-X, MAC FIFOs, flash
 *   flash = /tmp/hroce0.flash # shell only: the flash's file (default: in memory)
 *   flash_time_divisor = 1    # shell only: the flash's erase and program times are the
 *                             # data sheet's divided by this (1 to 1000000; default 1)
 *   loss = 0.001              # faults of the frames it sends (default none; hroce_sim.h,
 *   loss_burst = 0.01 0.3 1 0 #   hroce_sim_frame_faults): loss probability; Gilbert-Elliott
 *   flip = 0.0001             #   good->bad, bad->good, loss when bad [, loss when good];
 *   dup = 0.001               #   one bit flipped (caught by the receiver's checks);
 *   reorder = 0.001 3         #   duplicated; held back behind DEPTH later frames;
 *   fault_seed = 42           #   the seed of their PRNG (default 1)
 *   fault_rules = drop 3 psn=5; delay 1 opcode=0x0a qpn=0x11 depth=2
 *                             # directed faults, ';' between rules: drop, dup or delay the
 *                             # Nth RoCE frame matching the fields given (opcode, psn,
 *                             # qpn: any if absent), each once; delay: behind depth
 *                             # (default 1) later frames. At most 8 rules.
 *
 * $HROCE_FAULTS, if set, overrides the fault keys of every simulated device, for one run
 * without editing the file: "loss=0.01,reorder=0.01 3,fault_seed=7" (KEY=VALUE, comma
 * separated, fault keys only).
 *
 * A file replaces the defaults entirely. A line that is not understood, a missing key,
 * a duplicate device, or two devices on one port of one wire make the load fail with
 * EINVAL, and a message "FILE:LINE: what" through the library's log.
 */
#ifndef HROCE_CONFIG_H
#define HROCE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#define HROCE_CONFIG_ENV "HROCE_CONFIG"
/* pcie_reads and pcie_writes: the bridge's (hroce_sim.h says where 32 comes from) */
#define HROCE_CONFIG_PCIE_BURSTS_DEFAULT 32u
#define HROCE_CONFIG_PCIE_BURSTS_MAX 256u
#define HROCE_FAULTS_ENV "HROCE_FAULTS"
/* ipv6 lines a device may have (hroce.h: HROCE_DEV_IPV6_MAX) */
#define HROCE_CONFIG_IPV6_MAX 4

/* model = core | shell (hroce_sim.h: enum hroce_sim_model, in that order) */
#define HROCE_CONFIG_MODEL_CORE 0u
#define HROCE_CONFIG_MODEL_SHELL 1u

/* Directed faults: the nth frame that matches (hroce_sim.h, hroce_sim_fault_rule). */
#define HROCE_CONFIG_FAULT_RULES 8
#define HROCE_CONFIG_FAULT_ANY UINT32_MAX
enum hroce_config_fault_action {
	HROCE_CONFIG_FAULT_DROP,
	HROCE_CONFIG_FAULT_DUP,
	HROCE_CONFIG_FAULT_DELAY,
};

struct hroce_config_dev {
	char name[32];	/* "hroce0" */
	char spec[128]; /* "sim:hroce0" or "vfio:0000:65:00.0" */
	uint8_t mac[6];
	uint32_t ipv4;				 /* host order: 10.0.0.1 is 0x0a000001 */
	uint8_t ipv6[HROCE_CONFIG_IPV6_MAX][16]; /* ipv6 lines, network order */
	unsigned int nipv6;
	/* simulated devices (spec "sim:...") */
	char wire[128]; /* "": no wire; or an external port, udp:... or tap:... (hroce_sim.h) */
	unsigned int port;
	uint32_t clock_mhz;
	uint32_t pcie_read_ns, pcie_write_ns, pcie_gbps;
	uint32_t pcie_reads, pcie_writes; /* bursts in flight at the bridge */
	uint32_t link_ns, link_gbps;
	char pcap[256];	    /* "": none */
	unsigned int model; /* HROCE_CONFIG_MODEL_* */
	char flash[256];    /* the shell's flash file; "": in memory */
	uint32_t flash_time_divisor;
	/* faults of the frames it sends on its wire (hroce_sim.h: hroce_sim_frame_faults) */
	double loss;						      /* loss */
	double burst_enter, burst_leave, burst_loss, burst_good_loss; /* loss_burst */
	double flip, dup, reorder;
	uint32_t reorder_depth;
	uint64_t fault_seed;
	unsigned int nfault_rules; /* fault_rules */
	struct hroce_config_fault_rule {
		enum hroce_config_fault_action action;
		uint32_t nth;		    /* >= 1 */
		uint32_t opcode, psn, dqpn; /* HROCE_CONFIG_FAULT_ANY: any */
		uint32_t depth;		    /* delay: behind this many later frames */
	} fault_rules[HROCE_CONFIG_FAULT_RULES];
	unsigned int line; /* of its section in the file; 0: built in */
};

struct hroce_config;

/* From $HROCE_CONFIG, else the defaults. 0 or a positive errno (EINVAL: a bad file). */
int hroce_config_load(struct hroce_config **cfg);
int hroce_config_load_file(const char *path, struct hroce_config **cfg);
int hroce_config_defaults(struct hroce_config **cfg);
void hroce_config_free(struct hroce_config *cfg);

/* The file it was read from, or "built-in defaults". */
const char *hroce_config_source(const struct hroce_config *cfg);
size_t hroce_config_count(const struct hroce_config *cfg);
/* The i-th device in the order of the file, NULL past the end. */
const struct hroce_config_dev *hroce_config_dev(const struct hroce_config *cfg, size_t i);
/* By name ("hroce0") or by spec ("sim:hroce0"); NULL (errno ENOENT) if none. */
const struct hroce_config_dev *hroce_config_find(const struct hroce_config *cfg, const char *name);
const struct hroce_config_dev *hroce_config_find_spec(const struct hroce_config *cfg,
						      const char *spec);

#endif /* HROCE_CONFIG_H */
