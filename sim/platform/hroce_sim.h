/* SPDX-License-Identifier: MIT */
/*
 * libhroce-sim: simulated HardRoCE NICs.
 *
 * A world is one clock domain: every NIC (the Verilated hroce_core with its host-memory,
 * IOMMU and PCIe models) and every link between NIC ports in a process. Nothing moves
 * unless someone steps the world (the benches, and the driver's sim backend while it
 * waits), or the world's own thread runs it (hroce_sim_world_start: what a NIC beside an
 * application is). A NIC's port may instead be on a shared-memory wire to a NIC of
 * another process (hroce_sim_wire_attach), the two worlds' clocks kept in step.
 * Time is simulated: cycles of the core clock, and nanoseconds derived from them.
 *
 * Host memory is process memory: the driver maps buffers into a NIC's IOVA table with
 * hroce_sim_dma_map() (what VFIO_IOMMU_MAP_DMA is on a board); the core reaches it only
 * through its AXI4 master, and an access outside the table is a fault, counted and
 * reported, that returns an error response instead of data.
 *
 * Functions returning int return 0 or a positive errno; pointer-returning ones return
 * NULL and set errno.
 */
#ifndef HROCE_SIM_H
#define HROCE_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hroce_sim_world;
struct hroce_sim;
struct hroce_sim_link;

/*
 * The bursts the PCIe bridge between the core's AXI master and the link keeps in flight,
 * each way, as AMD's bridges have them: the DMA/Bridge Subsystem (XDMA, PG195) in AXI
 * Bridge mode accepts up to 32 active AXI4 write requests on its slave bridge (PG194 v3.0,
 * "Product Specification", which also gives 8 for the older AXI Bridge for PCI Express
 * Gen3 core), and its Versal successors (PG344, PG347, and QDMA's PG302) say 32 AXI4 write
 * requests and 32 read requests. A burst beyond the limit waits at the bridge (its AR or
 * AW is not taken) until one in flight is done.
 */
#define HROCE_SIM_PCIE_BRIDGE_BURSTS 32u
#define HROCE_SIM_PCIE_BURSTS_MAX 256u /* what the model can hold */

/* PCIe between host and NIC: one-way latencies and bandwidth per direction. */
struct hroce_sim_pcie {
	uint32_t read_latency_ns;  /* a DMA read: request to first data, one way each */
	uint32_t write_latency_ns; /* posted writes (DMA writes, MMIO writes), one way */
	uint32_t gbps;		   /* each direction; 0 = unlimited */
	uint32_t reads;		   /* read bursts in flight, AR to last beat; 0: the bridge's */
	uint32_t writes;	   /* write bursts in flight, AW to B; 0: the bridge's */
};

/*
 * What a NIC simulates. CORE: the core alone, its 64-bit register bus as BAR0 (the
 * fastest). SHELL: the board shell with the core inside (firmware/rtl/hroce_shell.v), its
 * vendor blocks replaced by models at their interfaces: the PCIe bridge's BAR0 master is
 * 32-bit AXI4-Lite (a 64-bit MMIO write is two 32-bit writes, low half then high, a
 * 64-bit read two reads the same way: sim_mmio.h), the core's DMA goes to the same PCIe
 * model, the shell's MSI-X table (BAR2, which the NIC programs as a host's kernel would:
 * vector N's message is data N to HROCE_SIM_MSIX_ADDR) sends messages that become the
 * vectors' interrupts, the port is the MAC's side of the shell's frame FIFOs (RX without
 * back-pressure: the shell drops whole frames when its FIFO is full, and counts them), and
 * the board block's flash and ICAPE3 pins drive the MT25QU01G and ICAP models
 * (sim/firmware). BAR0 is then 0x20000 bytes: the board block at 0x10000.
 */
enum hroce_sim_model {
	HROCE_SIM_MODEL_CORE,
	HROCE_SIM_MODEL_SHELL,
};
#define HROCE_SIM_MSIX_ADDR UINT64_C(0xfee00000)
#define HROCE_SIM_BOARD_BASE 0x10000u /* the shell's board block in BAR0 */

struct hroce_sim_params {
	const char *name; /* unique in the process; libhroce opens "sim:NAME" */
	struct hroce_sim_pcie pcie;
	const char *trace_path; /* FST waveform (trace build only); NULL: $HROCE_TRACE */
	enum hroce_sim_model model;
	/* SHELL: the flash's contents, kept in this file (as hroce-fw's sim: boards keep
	 * theirs; created all FFh); NULL: in memory, all FFh, gone with the NIC */
	const char *flash_path;
	/* SHELL: the flash's erase and program times are the data sheet's divided by this
	 * (0 or 1: the data sheet's) */
	uint32_t flash_time_divisor;
};

/* clock_mhz: the core clock (250 for the product configuration). */
struct hroce_sim_world *hroce_sim_world_create(uint32_t clock_mhz);
/* Stops the world's thread if it runs, then destroys its NICs (and their links and wires). */
void hroce_sim_world_destroy(struct hroce_sim_world *w);
/*
 * Advances every NIC and link by cycles clock cycles (a world with shared-memory wires
 * waits for their peers as their time synchronisation needs). Not while the world's
 * thread runs it.
 */
void hroce_sim_world_step(struct hroce_sim_world *w, uint64_t cycles);
uint64_t hroce_sim_world_cycles(const struct hroce_sim_world *w);
uint64_t hroce_sim_world_ns(const struct hroce_sim_world *w);

/*
 * A world run by a thread of its own (world_run.c), instead of stepped by hand: what a NIC
 * in an application's process is. While it runs, the NIC calls (MMIO, DMA mappings, irq
 * handlers and observers, faults, wire statistics) may come from any thread; irq handlers
 * and observers are called from the world's thread, and must not call back into the
 * library. A read blocks until its answer is back in simulated time.
 *
 * When every NIC of the world has been quiet for HROCE_SIM_QUIET_CYCLES (no MMIO, no DMA,
 * no interrupt, no frame on its port or its links), the thread sleeps without using the
 * CPU until an MMIO access, a frame from a wire, or stop; then the world's clock jumps
 * instead of evaluating the idle cycles (the core's timers compare against its time
 * input, so it may). start: EBUSY if it runs already; stop returns once the thread ended.
 */
#define HROCE_SIM_QUIET_CYCLES 2048
int hroce_sim_world_start(struct hroce_sim_world *w);
void hroce_sim_world_stop(struct hroce_sim_world *w);
bool hroce_sim_world_running(const struct hroce_sim_world *w);
/*
 * What a polling loop that found nothing does. A world nobody runs is stepped cycles; a
 * running one is waited for (futex, not spinning) until it advanced cycles, or while it
 * sleeps until it wakes, for at most a millisecond of wall time either way (so that a
 * loop that also watches a clock or a flag keeps going), or a signal.
 */
void hroce_sim_world_idle(struct hroce_sim_world *w, uint64_t cycles);

/*
 * Lockstep (lockstep.c): a run that is the same, cycle for cycle, whatever the wall clock
 * does. The world runs in quanta of quantum_ns (rounded up to cycles; at most the latency
 * of its wires), and only while every application thread that uses it waits: in
 * hroce_sim_world_idle (a poll that found nothing: one quantum), an MMIO read (until the
 * first boundary after its answer), hroce_sim_wait_poll, or an out-of-band wait. Waits look
 * at their condition only at boundaries; so every host action happens at a boundary and
 * takes no simulated time. A thread counts from its first call into the world until it
 * exits; one that blocks elsewhere (sleep, a lock, a read the calls below do not see)
 * stops simulated time meanwhile. Two worlds on a lockstep wire meet at every boundary.
 * Set before the world starts and before its NICs attach to wires (EBUSY); 0: free-running.
 */
int hroce_sim_world_set_lockstep(struct hroce_sim_world *w, uint32_t quantum_ns);
uint32_t hroce_sim_world_quantum(const struct hroce_sim_world *w); /* cycles; 0: free */
/*
 * A wait until one of fds polls ready (revents filled), at boundaries (a completion
 * channel's pipe, the interrupts' eventfd): false, without waiting, in a world not in
 * lockstep or not running (the caller blocks as usual).
 */
struct pollfd;
bool hroce_sim_wait_poll(struct hroce_sim_world *w, struct pollfd *fds, unsigned int n);
/*
 * The out-of-band channel of two lockstep worlds on a wire: the TCP connection their
 * programs talk over (perftest's). What one side sends there is seen by the other at the
 * first boundary after the one it was sent at, whatever the wall clock did: sent counts it
 * (n before the write, minus what was not written after it); wait returns once some of
 * the peer's is there to take, or once the peer left (true), or at once if the world is
 * not in lockstep or has no wire (false); taken says what the caller took. BYTES: bytes
 * on the stream; CONNECTS: connect() calls, that accept() takes.
 */
enum hroce_sim_oob {
	HROCE_SIM_OOB_BYTES,
	HROCE_SIM_OOB_CONNECTS,
	HROCE_SIM_OOB_KINDS,
};
void hroce_sim_oob_sent(struct hroce_sim_world *w, enum hroce_sim_oob kind, int64_t n);
bool hroce_sim_oob_wait(struct hroce_sim_world *w, enum hroce_sim_oob kind);
void hroce_sim_oob_taken(struct hroce_sim_world *w, enum hroce_sim_oob kind, uint64_t n);

struct hroce_sim_world_stats {
	uint64_t cycles;	 /* the clock */
	uint64_t cycles_run;	 /* evaluated */
	uint64_t cycles_skipped; /* jumped over on waking */
	uint64_t sleeps, peer_waits;
	uint64_t stalls; /* lockstep: asleep waiting out of band for a peer to come */
	bool asleep;
};
void hroce_sim_world_stats(struct hroce_sim_world *w, struct hroce_sim_world_stats *st);

/* Not while the world's thread runs (EINVAL); destroy stops it meanwhile. */
struct hroce_sim *hroce_sim_create(struct hroce_sim_world *w, const struct hroce_sim_params *p);
void hroce_sim_destroy(struct hroce_sim *s);
/* The NIC of that name in this process (ENOENT if none). */
struct hroce_sim *hroce_sim_find(const char *name);
struct hroce_sim_world *hroce_sim_world_of(struct hroce_sim *s);
const char *hroce_sim_name(const struct hroce_sim *s);
enum hroce_sim_model hroce_sim_model_of(const struct hroce_sim *s);

/* IOMMU: iova and len 4 KiB aligned; EEXIST on overlap, EINVAL on alignment. */
int hroce_sim_dma_map(struct hroce_sim *s, void *vaddr, uint64_t iova, uint64_t len);
/*
 * The same with flags: MAP_WRITE lets the NIC write the pages (without it the NIC only
 * reads them, as VFIO_DMA_MAP_FLAG_WRITE decides on a board). MAP_PIN: application
 * memory, checked and pinned as a board's IOMMU driver does (sim_pin.h): EFAULT if a page
 * is not mapped, not readable, or (MAP_WRITE) not writable; ENOMEM past RLIMIT_MEMLOCK
 * without CAP_IPC_LOCK. The NIC then reaches the pages pinned here, whatever the
 * application maps at vaddr later, until the range is unmapped (whole: a pinned range is
 * not split). Without MAP_PIN, vaddr is memory the caller keeps mapped until the unmap.
 */
#define HROCE_SIM_MAP_WRITE (1u << 0)
#define HROCE_SIM_MAP_PIN (1u << 1)
int hroce_sim_dma_map_flags(struct hroce_sim *s, void *vaddr, uint64_t iova, uint64_t len,
			    unsigned int flags);
int hroce_sim_dma_unmap(struct hroce_sim *s, uint64_t iova, uint64_t len);

struct hroce_sim_fault {
	uint64_t iova;
	uint64_t len;
	bool write;
	uint64_t time_ns;
};
/* Faults so far; the last one in *last if not NULL. */
uint64_t hroce_sim_faults(const struct hroce_sim *s, struct hroce_sim_fault *last);

/*
 * BAR0. Writes are posted: they reach the core write_latency_ns later, in order, and the
 * call returns at once (len: 8, or up to 64 bytes in 8-byte words). A read steps the
 * world until its answer is back (a round trip); in a world its thread runs, it waits for
 * that thread to get the answer back.
 */
void hroce_sim_mmio_write(struct hroce_sim *s, uint64_t offset, const void *data, size_t len);
void hroce_sim_mmio_write64(struct hroce_sim *s, uint64_t offset, uint64_t value);
/*
 * The doorbell pages (the contract's DB_*: a BAR of their own on a board, mapped
 * write-combining): a posted write of 1 to 64 bytes inside one 64-byte line, carried as
 * one TLP and played to the core as one beat, write_latency_ns later, in order with the
 * BAR0 accesses. Outside the pages or across a line: logged, nothing written. Its MMIO
 * events have addr HROCE_SIM_DB_EVENT_BASE + offset.
 */
#define HROCE_SIM_DB_EVENT_BASE (UINT64_C(1) << 32)
void hroce_sim_db_write(struct hroce_sim *s, uint64_t offset, const void *data, size_t len);
uint64_t hroce_sim_mmio_read64(struct hroce_sim *s, uint64_t offset);
/*
 * A SHELL NIC's BAR0 is 32-bit: a 32-bit read alone (offset 4-byte aligned), as the board
 * block's registers are read. All ones, and an error logged, on a CORE NIC.
 */
uint32_t hroce_sim_mmio_read32(struct hroce_sim *s, uint64_t offset);

/*
 * What the NIC's model counts beside the core's counters. mac_rx_dropped: frames the
 * shell's MAC RX FIFO dropped, read from the board block (BAR0 0x10030) as a host would,
 * so not from inside a step (0 for a CORE NIC, whose port holds frames back instead).
 * msix_messages: MSI-X messages the shell sent; msix_stray: those to an address or with
 * data the table was not given (not delivered); iprogs: reloads the ICAP model saw,
 * iprog_wbstar: the flash address (WBSTAR) of the last.
 */
struct hroce_sim_nic_stats {
	enum hroce_sim_model model;
	uint64_t mac_rx_dropped;
	uint64_t msix_messages, msix_stray;
	uint64_t iprogs;
	uint32_t iprog_wbstar;
};
void hroce_sim_nic_stats(struct hroce_sim *s, struct hroce_sim_nic_stats *st);
/* Called (from inside a step, or the world's thread) when an interrupt vector fires. */
void hroce_sim_set_irq_handler(struct hroce_sim *s, void (*fn)(void *ctx, unsigned int vector),
			       void *ctx);

/* A full-duplex Ethernet link between two NICs' ports. */
struct hroce_sim_link_params {
	uint32_t latency_ns;   /* MAC + PHY + cable, one way */
	uint32_t gbps;	       /* 0: as fast as the ports (one beat per cycle) */
	const char *pcap_path; /* both directions, simulated-ns timestamps; NULL: none */
};
struct hroce_sim_link *hroce_sim_link_connect(struct hroce_sim *a, struct hroce_sim *b,
					      const struct hroce_sim_link_params *p);
void hroce_sim_link_destroy(struct hroce_sim_link *l);

/*
 * Frames of the process on a link (a test's hand on the wire). inject: a frame toward
 * the port of to, one of the link's NICs, as if its peer had sent it; it goes on the wire
 * between the peer's own frames and arrives after the link's latency (and is in the
 * pcap), meeting the faults of the peer's direction. 0, EINVAL (to is not on the link,
 * or len is 0 or over 65535) or ENOMEM. The tap sees each frame a NIC of the link sends,
 * whole, as its last beat leaves (not the injected ones, nor frames the NIC aborted); fn
 * NULL removes it. Both are called from inside a step: they must not step the world.
 */
int hroce_sim_link_inject(struct hroce_sim_link *l, const struct hroce_sim *to, const void *frame,
			  size_t len);
void hroce_sim_link_set_tap(struct hroce_sim_link *l,
			    void (*fn)(void *ctx, const struct hroce_sim *from, const void *frame,
				       size_t len),
			    void *ctx);

/*
 * Faults of one direction of a link or a wire (sim_faults.c): a wire that misbehaves on
 * purpose. Each frame the sending NIC puts on the wire gets a fate, decided as its first
 * beat leaves from its headers and a PRNG of the direction's own, seeded with seed: the
 * same frames get the same fates in every run, whatever the wall-clock timing.
 *
 * - drop: lost with this probability.
 * - Gilbert-Elliott burst loss: a two-state chain stepped once a frame; from good to bad
 *   with burst_enter, back with burst_leave (mean burst 1 / burst_leave frames); a frame
 *   is lost with burst_loss in the bad state, good_loss in the good one. burst_enter 0:
 *   never bad.
 * - flip: one random bit of the frame flipped. Only RoCEv2 frames, and only bits that the
 *   receiver's IPv4 header checksum or ICRC checks (roce_byte_checked(): never the
 *   Ethernet header, the padding, the UDP checksum, the BTH byte the ICRC masks, IPv6's
 *   traffic class, flow label and hop limit, nor the IP protocol or UDP port): damage the link's
 * FCS did not see (inside a switch), that the receiving core drops and counts in its RX counters
 * (REG_RX_COUNTERS: IP_HEADER, IP_CHECKSUM, LENGTH, BAD_OPCODE, ICRC or TRUNCATED by the bit), as
 * it would real damage.
 * - dup: delivered twice, the copy right behind it.
 * - reorder: held back behind the sender's reorder_depth (>= 1) next frames, or at most
 *   HROCE_SIM_FAULT_HOLD_NS, then delivered.
 * - rules: directed faults for tests: the nth (>= 1) RoCEv2 frame that matches {BTH
 *   opcode, PSN, destination QPN} (HROCE_SIM_FAULT_ANY: any) is dropped, duplicated or
 *   delayed (held behind depth later frames, as reorder); each rule fires once. The match
 *   is made at the frame's first beat: an IPv6 frame, whose BTH ends past 64 bytes, is
 *   matched by no rule.
 *
 * A frame a rule fires on gets the rule's fault alone. Any other meets drop, burst loss,
 * reorder and duplication in that order, the first that strikes alone, then the flip if
 * it was not lost (a frame held back, or both copies, arrive flipped).
 * Timing stays honest: a lost frame occupied the sender's wire as long as if it had
 * arrived; a copy or a frame held back arrives later, never earlier than the sender's
 * frames could (on a shared-memory wire, within its time synchronisation). A link's pcap
 * (in-process) shows frames as their sender sent them; a wire's shows frames sent and,
 * on the receiving side, as received.
 */
#define HROCE_SIM_FAULT_ANY UINT32_MAX
#define HROCE_SIM_FAULT_RULES 8
#define HROCE_SIM_FAULT_HOLD_NS 10000 /* a frame held back goes after this at the latest */
enum hroce_sim_fault_action {
	HROCE_SIM_FAULT_DROP,
	HROCE_SIM_FAULT_DUP,
	HROCE_SIM_FAULT_DELAY,
};
struct hroce_sim_fault_rule {
	enum hroce_sim_fault_action action;
	uint32_t nth;		    /* >= 1 */
	uint32_t opcode, psn, dqpn; /* HROCE_SIM_FAULT_ANY: any */
	uint32_t depth;		    /* DELAY: behind this many later frames (0: 1) */
};
struct hroce_sim_frame_faults {
	uint64_t seed;
	double drop;
	double burst_enter, burst_leave, burst_loss, good_loss;
	double flip, dup;
	double reorder;
	uint32_t reorder_depth;
	unsigned int nrules;
	struct hroce_sim_fault_rule rules[HROCE_SIM_FAULT_RULES];
};
/* Per direction, since its faults were last set. */
struct hroce_sim_frame_fault_stats {
	uint64_t frames;	 /* frames the sender put on the wire (aborted ones too) */
	uint64_t dropped_random; /* by drop */
	uint64_t dropped_burst;	 /* by the Gilbert-Elliott chain */
	uint64_t flipped, duplicated, reordered;
	uint64_t directed; /* rules that fired (their frames are not counted above) */
};

/*
 * The faults of the direction out of from (one of the link's NICs), replacing those it had
 * (NULL: none). The PRNG starts again from the seed, the rules and counters from zero;
 * frames held back still go. EINVAL: from not on the link, a probability outside [0, 1],
 * reorder without a depth, more than HROCE_SIM_FAULT_RULES rules or a rule's nth of 0.
 * fault_stats: the counters of that direction (EINVAL: from not on the link).
 */
int hroce_sim_link_set_faults(struct hroce_sim_link *l, const struct hroce_sim *from,
			      const struct hroce_sim_frame_faults *f);
int hroce_sim_link_fault_stats(struct hroce_sim_link *l, const struct hroce_sim *from,
			       struct hroce_sim_frame_fault_stats *st);

/*
 * A shared-memory wire (wire_shm.c): a NIC's port on one of the two ports of a named
 * full-duplex cable in /dev/shm, whose other port is a NIC in another process (or
 * another world). Either side may come first, leave, die and come back: the link is up
 * while both ports are held by live processes; what is sent while it is down is dropped
 * and counted. The two worlds keep their clocks in step conservatively, the latency
 * being the lookahead (see wire_shm.c), so that simulated times mean the same on both
 * sides; a world waits for its peer without using the CPU.
 *
 * attach: EBUSY if the port is held by a live process or the NIC already has a link or
 * wire, EINVAL for bad parameters or a wire of other parameters (latency, rate, clock),
 * EPROTO for a segment that is not a wire of this version (a stale or foreign file: the
 * message names it). Not while the world's thread runs.
 */
struct hroce_sim_wire;
struct hroce_sim_wire_params {
	const char *name;      /* the segment: /dev/shm/NAME (letters, digits, -_.) */
	unsigned int port;     /* 0 or 1 */
	uint32_t latency_ns;   /* MAC + PHY + cable, one way: the lookahead (>= 1 cycle) */
	uint32_t gbps;	       /* 0: as fast as the ports */
	const char *pcap_path; /* frames sent and received, simulated-ns timestamps; NULL */
};
struct hroce_sim_wire *hroce_sim_wire_attach(struct hroce_sim *s,
					     const struct hroce_sim_wire_params *p);
void hroce_sim_wire_detach(struct hroce_sim_wire *x);
struct hroce_sim_wire *hroce_sim_wire_of(struct hroce_sim *s);
/* Removes the segment's name (processes attached keep their mapping). */
int hroce_sim_wire_unlink(const char *name);

struct hroce_sim_wire_stats {
	bool peer_up;
	int peer_pid;
	uint64_t frames_sent, frames_received;
	uint64_t frames_dropped; /* sent while the link was down, or unread by a peer that died */
	uint64_t frames_aborted; /* cut short on the way in by the peer's loss */
	uint64_t stale_beats;	 /* left in the ring by a peer that is gone, dropped */
	uint64_t link_ups, link_downs;
	uint64_t waits, wait_ns; /* blocked on the peer's clock, and for how long */
};
/* Checks that the peer still lives before answering. */
void hroce_sim_wire_stats(struct hroce_sim_wire *x, struct hroce_sim_wire_stats *st);
/*
 * The faults of what this side sends on the wire (see hroce_sim_link_set_faults; the same
 * rules and errors); frames_sent counts the frames they dropped too. Any thread.
 */
int hroce_sim_wire_set_faults(struct hroce_sim_wire *x, const struct hroce_sim_frame_faults *f);
void hroce_sim_wire_fault_stats(struct hroce_sim_wire *x, struct hroce_sim_frame_fault_stats *st);

/*
 * An external port (port_ext.c): a NIC's Ethernet port to the world outside the
 * simulation, instead of a link or a wire. The endpoint is
 * - "udp:LHOST:LPORT,RHOST:RPORT": one Ethernet frame per UDP datagram, received on
 *   LHOST:LPORT (0: any free port, see local_port) and sent to RHOST:RPORT; the format of
 *   QEMU's -netdev dgram and -netdev socket,udp=. No privilege needed.
 * - "tap:NAME": the TAP device NAME (created if absent; root or CAP_NET_ADMIN), to put
 *   the NIC on a Linux bridge beside other hosts.
 * The outside runs on wall-clock time, the NIC on simulated time. What the NIC sends
 * crosses a channel of the given latency, rate and faults, and leaves when its last beat
 * reaches the far end. Frames from outside are queued by a thread of the port (at most
 * HROCE_SIM_EXT_QUEUE_FRAMES; then dropped and counted) and enter the core at its current
 * simulated time, one after the other; runts, giants and garbage go in as they came, for
 * the core to count and drop, but an empty datagram or one over HROCE_SIM_EXT_FRAME_MAX
 * bytes is counted and dropped here. A world with an external port never lets its clock
 * run ahead of the wall clock while it waits for a timer, and sleeps when idle, waking on
 * a frame. The pcap holds both directions, stamped in simulated ns: a frame received is
 * stamped when it entered, a frame sent when its first beat left the core.
 *
 * attach: EINVAL for a bad endpoint (the message says why), EBUSY if the NIC's port has a
 * link, wire or port already or its world has a wire, or the socket's errno. Not while
 * the world's thread runs. ext_check: 0 or EINVAL for an endpoint, with why, without
 * opening anything.
 */
#define HROCE_SIM_EXT_QUEUE_FRAMES 4096
#define HROCE_SIM_EXT_FRAME_MAX 16384
struct hroce_sim_ext;
struct hroce_sim_ext_params {
	const char *endpoint;
	uint32_t latency_ns;   /* MAC + PHY + cable, one way, for what the NIC sends */
	uint32_t gbps;	       /* 0: as fast as the port */
	const char *pcap_path; /* NULL: none */
};
struct hroce_sim_ext *hroce_sim_ext_attach(struct hroce_sim *s,
					   const struct hroce_sim_ext_params *p);
void hroce_sim_ext_detach(struct hroce_sim_ext *x);
struct hroce_sim_ext *hroce_sim_ext_of(struct hroce_sim *s);
int hroce_sim_ext_check(const char *endpoint, char *why, size_t why_len);
/* Does s name an external port (udp: or tap:) rather than a shared-memory wire? */
bool hroce_sim_ext_is_endpoint(const char *s);
/* The UDP port it receives on (-1: a TAP). */
int hroce_sim_ext_local_port(const struct hroce_sim_ext *x);

struct hroce_sim_ext_stats {
	uint64_t tx_frames;	  /* sent out whole */
	uint64_t tx_errors;	  /* the socket refused them (no peer yet, full) */
	uint64_t tx_aborted;	  /* cut short by the core (tuser): not sent */
	uint64_t tx_oversize;	  /* longer than HROCE_SIM_EXT_FRAME_MAX: not sent */
	uint64_t rx_datagrams;	  /* read from the socket or the TAP */
	uint64_t rx_frames;	  /* given to the core */
	uint64_t rx_queued;	  /* waiting for the core now */
	uint64_t rx_queue_full;	  /* dropped: HROCE_SIM_EXT_QUEUE_FRAMES waited already */
	uint64_t rx_socket_drops; /* dropped by the kernel: the socket's buffer was full */
	uint64_t rx_empty;	  /* empty datagrams */
	uint64_t rx_oversize;	  /* over HROCE_SIM_EXT_FRAME_MAX bytes */
	uint64_t rx_errors;	  /* read errors, or no memory */
};
void hroce_sim_ext_stats(struct hroce_sim_ext *x, struct hroce_sim_ext_stats *st);
/* The faults of what the NIC sends (see hroce_sim_link_set_faults). */
int hroce_sim_ext_set_faults(struct hroce_sim_ext *x, const struct hroce_sim_frame_faults *f);
void hroce_sim_ext_fault_stats(struct hroce_sim_ext *x, struct hroce_sim_frame_fault_stats *st);

/*
 * What happened and when, for latency studies: an observer sees every event of a NIC
 * as it happens (times in simulated ns).
 */
enum hroce_sim_event_kind {
	HROCE_SIM_MMIO_WRITE,	  /* the host issued an MMIO write (addr = offset) */
	HROCE_SIM_MMIO_ARRIVE,	  /* it reached the core */
	HROCE_SIM_DMA_READ,	  /* the core issued a read burst (AR) */
	HROCE_SIM_DMA_READ_DONE,  /* its last data beat reached the core */
	HROCE_SIM_DMA_WRITE,	  /* the core issued a write burst (AW) */
	HROCE_SIM_DMA_WRITE_DONE, /* the burst is in host memory */
	/*
	 * first beat of a frame left the core (len = frame bytes; bth: a RoCE frame's BTH in
	 * qpn (its destination QP), tag (PSN) and aux (opcode))
	 */
	HROCE_SIM_TX_START,
	HROCE_SIM_TX_END,
	HROCE_SIM_RX_START, /* first beat of a frame reached the core */
	HROCE_SIM_RX_END,
	HROCE_SIM_IRQ, /* addr = vector */
	/*
	 * A stage of the core handed a packet or a WQE on (its trace port; the core's model
	 * has one, the shell's does not): stage is a HROCE_TRACE_* of the contract, qpn the
	 * local QP, tag the PSN or the WQE index, aux what the contract says of the stage
	 */
	HROCE_SIM_STAGE,
};
struct hroce_sim_event {
	enum hroce_sim_event_kind kind;
	uint64_t time_ns;
	uint64_t cycle; /* the NIC's world's cycle of time_ns */
	uint64_t addr;
	uint64_t len;
	unsigned int stage;	/* HROCE_SIM_STAGE only */
	uint32_t qpn, tag, aux; /* HROCE_SIM_STAGE, and frames with bth */
	bool bth;
};
void hroce_sim_set_observer(struct hroce_sim *s,
			    void (*fn)(void *ctx, const struct hroce_sim *s,
				       const struct hroce_sim_event *ev),
			    void *ctx);

/*
 * Messages of the library (faults, protocol errors, traces opened) go to one handler;
 * by default those up to WARN (or to the level in $HROCE_SIM_LOG) go to stderr.
 */
enum hroce_sim_log_level {
	HROCE_SIM_LOG_ERR,
	HROCE_SIM_LOG_WARN,
	HROCE_SIM_LOG_INFO,
	HROCE_SIM_LOG_DEBUG,
};
void hroce_sim_set_log(void (*fn)(void *ctx, enum hroce_sim_log_level level, const char *msg),
		       void *ctx);

#endif /* HROCE_SIM_H */
