// SPDX-License-Identifier: MIT
/*
 * A simulated NIC of model = shell: the board shell (firmware/rtl/hroce_shell.v) with the
 * core inside, its vendor blocks as models (sim/platform/nic_shell.c), driven by libhroce
 * as a board would be.
 *
 * - The configuration: model and flash keys, and what they refuse.
 * - A shell NIC opened through hroce_open from a configuration of this test's own (the NIC
 *   runs in its thread): the core's ID through the shell's 32-bit BAR0, the board block at
 *   BAR0 + 0x10000 (identity, the flash's JEDEC ID through the SPI controller, a page
 *   programmed and read back, kept in the NIC's flash file, a reload seen by the ICAP
 *   model), as the flash tool reaches them.
 * - RC between a shell NIC and a core NIC on a link: WRITE, READ and SEND each way with
 *   the data checked, a WQE pushed with its doorbell (64 bytes as sixteen 32-bit writes),
 *   and a completion taken on its interrupt (an MSI-X message of the shell's table); the
 *   shell's figures in libhroce's bus statistics.
 * - Figures, not asserted: the simulation speed of worlds of core and shell NICs
 *   (cycles/s), and the shell's MAC RX FIFO (it drops, having no back-pressure) under a
 *   stream of WRITEs toward the shell NIC at 100 Gb/s and at one beat a cycle.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "flash_model.h"
#include "fw_flash.h"
#include "hroce_config.h"
#include "hroce_contract.h"
#include "rc_env.h"

#define ACCESS_ALL (HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE | HROCE_ACCESS_REMOTE_READ)
#define POLL_NS 2000000
#define SHELL HROCE_SIM_MODEL_SHELL
#define CORE HROCE_SIM_MODEL_CORE

static const struct qp_caps caps = { 64, 64, 4, 4, 128 };

/* A configuration file of the test's own; its path in path. */
static bool write_config(char *path, size_t len, const char *text)
{
	int fd;
	bool ok;

	snprintf(path, len, "/tmp/test_shell_nic.%d.XXXXXX", (int)getpid());
	fd = mkstemp(path);
	if (fd < 0)
		return false;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok;
}

static void test_config_keys(struct bench *b)
{
	static const struct {
		const char *name, *text;
		int err;
		unsigned int model;
		uint32_t flash_time_divisor; /* 0: the default, 1 */
	} cases[] = {
		{ "config_model_default", "[a]\nmac = 02:00:00:00:00:01\nipv4 = 10.0.0.1\n", 0,
		  HROCE_CONFIG_MODEL_CORE, 0 },
		{ "config_model_shell",
		  "[a]\nmac = 02:00:00:00:00:01\nipv4 = 10.0.0.1\nmodel = shell\n"
		  "flash = /tmp/a.flash\n",
		  0, HROCE_CONFIG_MODEL_SHELL, 0 },
		{ "config_flash_time_divisor",
		  "[a]\nmac = 02:00:00:00:00:01\nipv4 = 10.0.0.1\nmodel = shell\n"
		  "flash_time_divisor = 1000\n",
		  0, HROCE_CONFIG_MODEL_SHELL, 1000 },
		{ "config_flash_time_divisor_zero",
		  "[a]\nmac = 02:00:00:00:00:01\nipv4 = 10.0.0.1\nmodel = shell\n"
		  "flash_time_divisor = 0\n",
		  EINVAL, 0, 0 },
		{ "config_flash_time_divisor_needs_shell",
		  "[a]\nmac = 02:00:00:00:00:01\nipv4 = 10.0.0.1\nflash_time_divisor = 10\n",
		  EINVAL, 0, 0 },
		{ "config_model_bad",
		  "[a]\nmac = 02:00:00:00:00:01\nipv4 = 10.0.0.1\nmodel = soc\n", EINVAL, 0, 0 },
		{ "config_flash_needs_shell",
		  "[a]\nmac = 02:00:00:00:00:01\nipv4 = 10.0.0.1\nflash = /tmp/a.flash\n", EINVAL,
		  0, 0 },
		{ "config_model_board_refused",
		  "[a]\nspec = vfio:0000:65:00.0\nmac = 02:00:00:00:00:01\nipv4 = 10.0.0.1\n"
		  "model = shell\n",
		  EINVAL, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hroce_config *cfg = NULL;
		char path[64];
		int err;

		if (!write_config(path, sizeof(path), cases[i].text)) {
			bench_result(b, cases[i].name, false, "cannot write %s", path);
			continue;
		}
		err = hroce_config_load_file(path, &cfg);
		unlink(path);
		if (err || cases[i].err) {
			bench_result(b, cases[i].name, err == cases[i].err, "load: %s, want %s",
				     strerror(err), strerror(cases[i].err));
		} else {
			const struct hroce_config_dev *d = hroce_config_dev(cfg, 0);
			uint32_t div =
				cases[i].flash_time_divisor ? cases[i].flash_time_divisor : 1;

			bench_result(b, cases[i].name,
				     d && d->model == cases[i].model &&
					     d->flash_time_divisor == div,
				     "model %u, want %u; flash_time_divisor %u, want %u",
				     d ? d->model : 99u, cases[i].model,
				     d ? d->flash_time_divisor : 0, div);
		}
		hroce_config_free(cfg);
	}
}

/* The board block through the NIC's BAR0, as the flash tool's register access. */
static uint32_t nic_board_read(void *ctx, uint32_t off)
{
	return hroce_sim_mmio_read32(ctx, HROCE_SIM_BOARD_BASE + off);
}

static void nic_board_write(void *ctx, uint32_t off, uint32_t v)
{
	hroce_sim_mmio_write(ctx, HROCE_SIM_BOARD_BASE + off, &v, sizeof(v));
}

/* The flash file holds page at off (the NIC that wrote it may be gone). */
static bool file_holds(const char *path, uint32_t off, const uint8_t *page, size_t len)
{
	uint8_t got[FW_PAGE_BYTES];
	int fd = open(path, O_RDONLY);
	bool ok = fd >= 0 && len <= sizeof(got) && pread(fd, got, len, off) == (ssize_t)len &&
		  !memcmp(got, page, len);

	if (fd >= 0)
		close(fd);
	return ok;
}

static void test_open_shell(struct bench *b)
{
	char text[512], flash[64];
	uint8_t page[FW_PAGE_BYTES], back[FW_PAGE_BYTES];
	struct fw_board_info info;
	struct hroce_sim_nic_stats st;
	struct hroce_dev_attr attr;
	struct hroce_dev *dev;
	struct hroce_sim *sim;
	uint8_t id[3] = { 0 }, data[16];
	char path[64];
	const char *old = getenv(HROCE_CONFIG_ENV);
	char *saved = old ? strdup(old) : NULL;
	int err;

	snprintf(flash, sizeof(flash), "/tmp/test_shell_nic.%d.flash", (int)getpid());
	snprintf(text, sizeof(text),
		 "[shell0]\nmac = 02:00:0a:00:00:09\nipv4 = 10.0.0.9\nmodel = shell\n"
		 "pcie_read_ns = 100\npcie_write_ns = 100\nflash = %s\n",
		 flash);
	if (!write_config(path, sizeof(path), text)) {
		bench_result(b, "shell_open", false, "cannot write %s", path);
		free(saved);
		return;
	}
	setenv(HROCE_CONFIG_ENV, path, 1);
	dev = hroce_open("sim:shell0", NULL);
	err = errno;
	unlink(path);
	if (saved)
		setenv(HROCE_CONFIG_ENV, saved, 1);
	else
		unsetenv(HROCE_CONFIG_ENV);
	free(saved);
	sim = hroce_sim_find("shell0");
	if (!bench_result(b, "shell_open", dev && sim && hroce_sim_model_of(sim) == SHELL,
			  "hroce_open(sim:shell0): %s", dev ? "not a shell NIC" : strerror(err))) {
		hroce_close(dev);
		return;
	}
	err = hroce_query_dev(dev, &attr);
	bench_result(b, "shell_core_id",
		     !err && attr.core_id == HROCE_CORE_ID &&
			     attr.core_version == HROCE_CORE_VERSION,
		     "%s: core id %#x version %#x", strerror(err), attr.core_id, attr.core_version);

	struct fw_regs r = { .ctx = sim,
			     .read = nic_board_read,
			     .write = nic_board_write,
			     .spi_div = 0,
			     .poll_limit = 100000 };

	fw_board_info(&r, &info);
	bench_result(b, "shell_board_id",
		     !fw_board_check(&info) && info.magic == FW_BOARD_MAGIC &&
			     info.idcode == 0x04b37093 && info.flash_size == FLASH_MT25QU01G_BYTES,
		     "magic %#x idcode %#x flash %#x", info.magic, info.idcode, info.flash_size);
	err = fw_flash_read_id(&r, id) ?: fw_flash_read(&r, info.update_off, data, sizeof(data));
	bench_result(b, "shell_flash",
		     !err && id[0] == 0x20 && id[1] == 0xbb && id[2] == 0x21 && data[0] == 0xff &&
			     data[15] == 0xff,
		     "%s: JEDEC %02x %02x %02x, first byte %02x", strerror(err), id[0], id[1],
		     id[2], data[0]);
	/* a page programmed through the NIC's BAR0 (its flash is erased: all FFh) */
	bench_fill(b, page, sizeof(page));
	err = fw_flash_program_page(&r, info.update_off, page, sizeof(page))
		      ?: fw_flash_read(&r, info.update_off, back, sizeof(back));
	bench_result(b, "shell_flash_program",
		     !err && !memcmp(page, back, sizeof(page)) &&
			     file_holds(flash, info.update_off, page, sizeof(page)),
		     "%s: the page read back, or the file %s, differs", strerror(err), flash);
	nic_board_write(sim, FW_REG_RELOAD_ADDR, info.update_off);
	nic_board_write(sim, FW_REG_RELOAD, FW_RELOAD_KEY);
	/* a read after the writes: they reached the shell, and the ICAP had time */
	for (int i = 0; i < 8; i++)
		nic_board_read(sim, FW_REG_ID);
	hroce_sim_nic_stats(sim, &st);
	bench_result(b, "shell_reload", st.iprogs == 1 && st.msix_stray == 0,
		     "%llu reloads, %llu stray MSI-X messages", (unsigned long long)st.iprogs,
		     (unsigned long long)st.msix_stray);
	hroce_close(dev);
	bench_result(b, "shell_flash_file_kept",
		     file_holds(flash, info.update_off, page, sizeof(page)),
		     "%s does not hold the page after the NIC closed", flash);
	unlink(flash);
}

/* One operation of node req toward the other, data checked; bench result name. */
static void rc_op(struct bench *b, struct env *e, struct qp_pair *qp, int req,
		  enum hroce_wr_opcode op, size_t len, const char *name)
{
	struct buf src, dst;
	struct hroce_sge sge, rsge;
	struct hroce_send_wr wr, *bad;
	struct hroce_recv_wr rwr, *rbad;
	struct hroce_wc wc;
	bool recv = op == HROCE_WR_SEND, inl = op == HROCE_WR_SEND && len <= 32;
	const uint8_t *from, *to;
	bool ok;

	buf_open(e, &src, req, 16384, ACCESS_ALL, 0);
	buf_open(e, &dst, 1 - req, 16384, ACCESS_ALL, 0);
	bench_fill(b, src.p + 3, len);
	bench_fill(b, dst.p + 9, len);
	sge = (struct hroce_sge){ (uintptr_t)src.p + 3, (uint32_t)len, hroce_mr_lkey(src.mr) };
	rsge = (struct hroce_sge){ (uintptr_t)dst.p + 9, 8192, hroce_mr_lkey(dst.mr) };
	wr = (struct hroce_send_wr){ .wr_id = 7,
				     .sg_list = &sge,
				     .num_sge = 1,
				     .opcode = op,
				     .send_flags =
					     HROCE_SEND_SIGNALED | (inl ? HROCE_SEND_INLINE : 0),
				     .remote_addr = (uintptr_t)dst.p + 9,
				     .rkey = hroce_mr_rkey(dst.mr) };
	rwr = (struct hroce_recv_wr){ .wr_id = 8, .sg_list = &rsge, .num_sge = 1 };
	if ((recv && hroce_post_recv(qp->qp[1 - req], &rwr, &rbad)) ||
	    hroce_post_send(qp->qp[req], &wr, &bad)) {
		bench_result(b, name, false, "post failed");
		goto out;
	}
	if (env_poll(e, e->n[req].scq, 1, &wc, POLL_NS) != 1 ||
	    !wc_ok(b, name, &wc, 7,
		   op == HROCE_WR_RDMA_READ ? HROCE_WC_RDMA_READ
		   : op == HROCE_WR_SEND    ? HROCE_WC_SEND
					    : HROCE_WC_RDMA_WRITE,
		   HROCE_WC_SUCCESS)) {
		bench_result(b, name, false, "no send completion");
		goto out;
	}
	if (recv &&
	    (env_poll(e, e->n[1 - req].rcq, 1, &wc, POLL_NS) != 1 ||
	     !wc_ok(b, name, &wc, 8, HROCE_WC_RECV, HROCE_WC_SUCCESS) || wc.byte_len != len)) {
		bench_result(b, name, false, "no receive completion of %zu bytes", len);
		goto out;
	}
	from = op == HROCE_WR_RDMA_READ ? dst.p + 9 : src.p + 3;
	to = op == HROCE_WR_RDMA_READ ? src.p + 3 : dst.p + 9;
	ok = !memcmp(from, to, len) && to[len] == POISON;
	bench_result(b, name, ok, "data differs");
out:
	buf_close(&src);
	buf_close(&dst);
}

static void test_rc(struct bench *b, struct env *e)
{
	static const struct {
		enum hroce_wr_opcode op;
		size_t len;
		const char *name[2];
	} ops[] = {
		{ HROCE_WR_RDMA_WRITE,
		  5000,
		  { "rc_write_shell_to_core", "rc_write_core_to_shell" } },
		{ HROCE_WR_RDMA_READ,
		  6000,
		  { "rc_read_shell_from_core", "rc_read_core_from_shell" } },
		{ HROCE_WR_SEND, 3000, { "rc_send_shell_to_core", "rc_send_core_to_shell" } },
	};
	struct qp_pair qp;
	int err = qp_pair_open(e, &qp, HROCE_MTU_1024, &caps, ACCESS_ALL);

	if (!bench_result(b, "rc_connect", !err, "%s", strerror(err)))
		return;
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		for (int req = 0; req < 2; req++)
			rc_op(b, e, &qp, req, ops[k].op, ops[k].len, ops[k].name[req]);
	qp_pair_close(&qp);
}

struct push_obs {
	uint64_t pushes, push_bytes;
};

static void push_observer(void *ctx, const struct hroce_sim *s, const struct hroce_sim_event *ev)
{
	struct push_obs *o = ctx;

	(void)s;
	if (ev->kind == HROCE_SIM_MMIO_ARRIVE && ev->addr >= HROCE_SIM_DB_EVENT_BASE) {
		o->pushes++;
		o->push_bytes += ev->len;
	}
}

/*
 * A small inline SEND from the shell NIC: its WQE goes to the doorbell pages (BAR4, one
 * 64-byte write on the bridge's wide master); the receive side is armed, and its completion is
 * found on the interrupt of the core NIC's receive CQ; then the other way, the shell NIC's receive
 * CQ's interrupt coming as an MSI-X message.
 */
static void test_push_irq(struct bench *b, struct env *e)
{
	struct push_obs obs = { 0 };
	struct hroce_sim_nic_stats st0, st1;
	struct qp_pair qp;
	int err = qp_pair_open(e, &qp, HROCE_MTU_1024, &caps, ACCESS_ALL);

	if (!bench_result(b, "push_connect", !err, "%s", strerror(err)))
		return;
	hroce_sim_set_observer(e->n[0].sim, push_observer, &obs);
	rc_op(b, e, &qp, 0, HROCE_WR_SEND, 24, "push_send_data");
	hroce_sim_set_observer(e->n[0].sim, NULL, NULL);
	bench_result(b, "push_wqe", obs.pushes >= 1 && obs.push_bytes == 64 * obs.pushes,
		     "%llu pushed WQEs reached the core (%llu bytes)",
		     (unsigned long long)obs.pushes, (unsigned long long)obs.push_bytes);

	hroce_sim_nic_stats(e->n[0].sim, &st0);
	for (int to = 0; to < 2; to++) {
		const char *name = to ? "irq_completion_core" : "irq_completion_shell";
		struct buf src, dst;
		struct hroce_sge sge, rsge;
		struct hroce_send_wr wr, *bad;
		struct hroce_recv_wr rwr, *rbad;
		struct hroce_wc wc;
		uint64_t irqs = 0, end;

		buf_open(e, &src, 1 - to, 4096, ACCESS_ALL, 0);
		buf_open(e, &dst, to, 4096, ACCESS_ALL, 0);
		bench_fill(b, src.p, 1000);
		sge = (struct hroce_sge){ (uintptr_t)src.p, 1000, hroce_mr_lkey(src.mr) };
		rsge = (struct hroce_sge){ (uintptr_t)dst.p, 4096, hroce_mr_lkey(dst.mr) };
		wr = (struct hroce_send_wr){
			.wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = HROCE_WR_SEND
		};
		rwr = (struct hroce_recv_wr){ .wr_id = 2, .sg_list = &rsge, .num_sge = 1 };
		hroce_take_irqs(e->n[to].dev);
		err = hroce_post_recv(qp.qp[to], &rwr, &rbad) ?:
		      hroce_req_notify_cq(e->n[to].rcq, false) ?:
		      hroce_post_send(qp.qp[1 - to], &wr, &bad);
		/* no polling of the CQ: the world runs until the receive CQ's vector (1) fires */
		end = env_ns(e) + POLL_NS;
		while (!err && !(irqs & 2) && env_ns(e) < end) {
			env_idle(e);
			irqs |= hroce_take_irqs(e->n[to].dev);
		}
		bench_result(b, name,
			     !err && (irqs & 2) && hroce_poll_cq(e->n[to].rcq, 1, &wc) == 1 &&
				     wc.status == HROCE_WC_SUCCESS && wc.byte_len == 1000 &&
				     !memcmp(src.p, dst.p, 1000),
			     "%s: interrupts %#llx, then no good completion", strerror(err),
			     (unsigned long long)irqs);
		/* the sender's unsignaled SEND leaves nothing in its CQ */
		buf_close(&src);
		buf_close(&dst);
	}
	hroce_sim_nic_stats(e->n[0].sim, &st1);
	bench_result(b, "irq_msix_messages",
		     st1.msix_messages > st0.msix_messages && st1.msix_stray == 0,
		     "%llu MSI-X messages, %llu stray",
		     (unsigned long long)(st1.msix_messages - st0.msix_messages),
		     (unsigned long long)st1.msix_stray);
	qp_pair_close(&qp);
}

struct shell_stats {
	unsigned int seen; /* "shell.*" figures emitted */
	uint64_t msix, dropped, iprogs;
};

static void stats_emit(void *ctx, const char *name, uint64_t value)
{
	struct shell_stats *st = ctx;

	if (strncmp(name, "shell.", 6))
		return;
	st->seen++;
	if (!strcmp(name, "shell.msix_messages"))
		st->msix = value;
	else if (!strcmp(name, "shell.mac_rx_dropped"))
		st->dropped = value;
	else if (!strcmp(name, "shell.iprogs"))
		st->iprogs = value;
}

/*
 * libhroce's bus figures: a shell NIC's MSI-X messages, MAC drops and ICAP reloads (none
 * here), none for a core's.
 */
static void test_bus_stats(struct bench *b, struct env *e)
{
	struct shell_stats sh = { 0 }, co = { 0 };

	hroce_bus_stats(e->n[0].dev, stats_emit, &sh);
	hroce_bus_stats(e->n[1].dev, stats_emit, &co);
	bench_result(b, "bus_stats",
		     sh.seen == 5 && sh.msix >= 1 && sh.dropped == 0 && !sh.iprogs && !co.seen,
		     "shell NIC: %u figures, %llu MSI-X messages, %llu dropped, %llu reloads; "
		     "core NIC: %u shell figures",
		     sh.seen, (unsigned long long)sh.msix, (unsigned long long)sh.dropped,
		     (unsigned long long)sh.iprogs, co.seen);
}

/*
 * WRITEs of len bytes from node 0 to node 1, depth in flight, until total bytes went;
 * false if one failed. The world's cycles and the wall time it took in *cycles, *wall.
 */
static bool stream_writes(struct bench *b, struct env *e, struct qp_pair *qp, size_t len,
			  size_t total, int depth, uint64_t *cycles, double *wall)
{
	struct hroce_sim_world_stats ws0, ws1;
	struct buf src, dst;
	size_t posted = 0, done = 0, n = total / len;
	double t0 = env_wall_s();
	bool ok = true;

	buf_open(e, &src, 0, len, ACCESS_ALL, 0);
	buf_open(e, &dst, 1, len, ACCESS_ALL, 0);
	bench_fill(b, src.p, len);
	hroce_sim_world_stats(e->w, &ws0);
	while (ok && done < n) {
		struct hroce_wc wc[16];
		int k, want;

		while (posted < n && posted - done < (size_t)depth) {
			struct hroce_sge sge = { (uintptr_t)src.p, (uint32_t)len,
						 hroce_mr_lkey(src.mr) };
			struct hroce_send_wr wr = { .wr_id = posted,
						    .sg_list = &sge,
						    .num_sge = 1,
						    .opcode = HROCE_WR_RDMA_WRITE,
						    .send_flags = HROCE_SEND_SIGNALED,
						    .remote_addr = (uintptr_t)dst.p,
						    .rkey = hroce_mr_rkey(dst.mr) };
			struct hroce_send_wr *bad;

			if (hroce_post_send(qp->qp[0], &wr, &bad)) {
				ok = false;
				break;
			}
			posted++;
		}
		want = posted - done < 16 ? (int)(posted - done) : 16;
		k = ok ? env_poll(e, e->n[0].scq, want, wc, POLL_NS) : 0;
		if (k < want) /* none within 2 ms of simulated time: a stall */
			ok = false;
		for (int i = 0; i < k; i++)
			ok = ok && wc[i].status == HROCE_WC_SUCCESS;
		done += (size_t)k;
	}
	hroce_sim_world_stats(e->w, &ws1);
	*cycles = ws1.cycles_run - ws0.cycles_run;
	*wall = env_wall_s() - t0;
	ok = ok && !memcmp(src.p, dst.p, len);
	buf_close(&src);
	buf_close(&dst);
	return ok;
}

/* The speed of a world of two NICs of these models, running a stream of WRITEs. */
static void bench_speed(struct bench *b, const struct env_params *base, enum hroce_sim_model m0,
			enum hroce_sim_model m1, double *rate)
{
	struct env_params p = *base;
	struct env e;
	struct qp_pair qp;
	uint64_t cycles = 0;
	double wall = 0;
	size_t total = b->quick ? (4u << 20) : (16u << 20);
	bool ok;

	p.model[0] = m0;
	p.model[1] = m1;
	p.link_gbps = 100; /* a rate the shell's RX takes without a drop: the same work */
	env_open(&e, b, &p);
	ok = !qp_pair_open(&e, &qp, HROCE_MTU_4096, &caps, ACCESS_ALL);
	if (ok) {
		ok = stream_writes(b, &e, &qp, 65536, total, 8, &cycles, &wall);
		qp_pair_close(&qp);
	}
	*rate = wall > 0 ? cycles / wall : 0;
	bench_result(b,
		     m0 == SHELL ? (m1 == SHELL ? "speed_shell_shell" : "speed_shell_core")
				 : "speed_core_core",
		     ok, "the WRITE stream failed");
	bench_log(b,
		  "speed: %s NIC -> %s NIC, link 100 Gb/s, %zu MiB of 64 KiB WRITEs: %llu "
		  "cycles in %.2f s = %.0f cycles/s (a world of 2 NICs, stepped by libhroce)",
		  m0 == SHELL ? "shell" : "core", m1 == SHELL ? "shell" : "core", total >> 20,
		  (unsigned long long)cycles, wall, *rate);
	env_close(&e);
}

/* One NIC alone, idle, stepped: what a cycle of its model costs, without the driver. */
static double bench_idle_speed(struct bench *b, enum hroce_sim_model m)
{
	struct hroce_sim_params sp = { .name = "idle", .model = m };
	struct hroce_sim_world *w = hroce_sim_world_create(ENV_MHZ);
	struct hroce_sim *s = w ? hroce_sim_create(w, &sp) : NULL;
	uint64_t cycles = b->quick ? 100000 : 400000;
	double t0, wall;

	if (!s) {
		bench_result(b, "speed_idle", false, "cannot create the NIC");
		hroce_sim_world_destroy(w);
		return 0;
	}
	t0 = env_wall_s();
	hroce_sim_world_step(w, cycles);
	wall = env_wall_s() - t0;
	bench_log(b,
		  "speed: one %s NIC alone, idle, stepped: %llu cycles in %.2f s = %.0f cycles/s",
		  m == SHELL ? "shell" : "core", (unsigned long long)cycles, wall, cycles / wall);
	hroce_sim_world_destroy(w);
	return cycles / wall;
}

/*
 * WRITEs from a core NIC toward a NIC of model rx at the link's rate: the payload rate, and
 * the frames a shell's MAC RX FIFO dropped (a core holds the link back instead).
 */
static void bench_mac_fifo(struct bench *b, const struct env_params *base, uint32_t link_gbps,
			   uint32_t pcie_gbps, enum hroce_sim_model rx)
{
	struct env_params p = *base;
	struct hroce_sim_nic_stats st;
	struct env e;
	struct qp_pair qp;
	uint64_t cycles = 0, t0;
	double wall = 0;
	size_t total = b->quick ? (4u << 20) : (16u << 20);
	char name[64];
	bool ok;

	p.model[0] = CORE; /* the sender */
	p.model[1] = rx;
	p.link_gbps = link_gbps;
	p.pcie_gbps = pcie_gbps;
	env_open(&e, b, &p);
	ok = !qp_pair_open(&e, &qp, HROCE_MTU_4096, &caps, ACCESS_ALL);
	t0 = env_ns(&e);
	if (ok) {
		ok = stream_writes(b, &e, &qp, 65536, total, 16, &cycles, &wall);
		qp_pair_close(&qp);
	}
	t0 = env_ns(&e) - t0;
	hroce_sim_nic_stats(e.n[1].sim, &st);
	snprintf(name, sizeof(name), "load_to_%s_link_%u_pcie_%u", rx == SHELL ? "shell" : "core",
		 link_gbps, pcie_gbps);
	bench_result(b, name, ok, "the WRITE stream failed");
	bench_log(b,
		  "load: core NIC -> %s NIC, link %u Gb/s (0: a 64-byte beat a cycle, 128 Gb/s "
		  "at 250 MHz), PCIe %u Gb/s (0: the bus), %zu MiB of 64 KiB WRITEs, MTU 4096, 16 "
		  "in flight: %.1f Gb/s of payload; %llu frames dropped by the shell's MAC RX FIFO",
		  rx == SHELL ? "shell" : "core", link_gbps, pcie_gbps, total >> 20,
		  t0 ? total * 8.0 / (double)t0 : 0.0, (unsigned long long)st.mac_rx_dropped);
	env_close(&e);
}

int main(int argc, char **argv)
{
	const struct env_params base = { .pcie_read_ns = 100, .pcie_write_ns = 100, .link_ns = 50 };
	struct env_params p = base;
	double core_core, shell_core, shell_shell;
	struct bench b;
	struct env e;

	bench_init(&b, "test_shell_nic", argc, argv);
	test_config_keys(&b);
	test_open_shell(&b);

	p.model[0] = SHELL;
	env_open(&e, &b, &p);
	test_rc(&b, &e);
	test_push_irq(&b, &e);
	test_bus_stats(&b, &e);
	bench_result(&b, "read32_core_refused", hroce_sim_mmio_read32(e.n[1].sim, 0) == UINT32_MAX,
		     "a 32-bit read of a core NIC's BAR0 was answered");
	bench_result(&b, "no_iova_faults", env_faults(&e) == 0, "%llu IOVA faults",
		     (unsigned long long)env_faults(&e));
	env_close(&e);

	bench_speed(&b, &base, CORE, CORE, &core_core);
	bench_speed(&b, &base, SHELL, CORE, &shell_core);
	bench_speed(&b, &base, SHELL, SHELL, &shell_shell);
	if (core_core > 0 && shell_shell > 0)
		bench_log(&b,
			  "speed: a world of two shell NICs runs at %.2f of the speed of "
			  "one of two core NICs (a shell and a core: %.2f)",
			  shell_shell / core_core, shell_core / core_core);
	core_core = bench_idle_speed(&b, CORE);
	shell_shell = bench_idle_speed(&b, SHELL);
	if (core_core > 0 && shell_shell > 0)
		bench_log(&b, "speed: an idle shell NIC runs at %.2f of an idle core NIC's speed",
			  shell_shell / core_core);
	bench_mac_fifo(&b, &base, 100, 128, SHELL);
	bench_mac_fifo(&b, &base, 0, 0, SHELL);
	bench_mac_fifo(&b, &base, 0, 0, CORE);
	return bench_finish(&b);
}
