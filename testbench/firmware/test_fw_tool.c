// SPDX-License-Identifier: MIT
/*
 * Test of hroce-fw, the flash tool, run as a user runs it.
 *
 * Against a simulated board (sim:NAME: board_regs' RTL with the MT25QU01G and ICAP models;
 * its flash a file in a temporary directory): a golden image written with --golden, then
 * update images as .bit, .bin and .mcs written, verified and read back; bad images
 * (truncated .bit and .bin, wrong part by name and by IDCODE, no sync word, too large, an
 * .mcs with a bad checksum) refused before anything is erased; a flash that fails to erase,
 * one that fails to program, and a power cut in the middle of a write: each a clear
 * message and its exit status, and the golden segment unchanged, byte for byte; after the
 * power cut the update segment has no sync word (its first page is programmed last), and
 * the next write succeeds. boot: the ICAP model sees WBSTAR and IPROG for the update
 * segment and the board answers with its version (and a wrong --expect-version fails).
 *
 * Against a fake sysfs tree (a board behind a root port, files where the kernel has them,
 * config spaces with the PCIe and AER capabilities): list and info find the board with
 * libpci; boot does the whole dance in order (unbind, mask the port's error reporting,
 * reload through BAR0, remove, secondary bus reset, rescan, restore, bind to vfio-pci),
 * leaving the port's registers as they were; reset does the same without the reload.
 *
 * Through libhroce's bus (hroce:sim:NAME: the NIC of model = shell that libhroce creates
 * from $HROCE_CONFIG, the board shell with the core inside, its flash in a file): info, a
 * golden image, an update image written, verified, compared with another, read back, boot
 * (the shell's ICAP model sees WBSTAR and IPROG, the board answers with its version),
 * images refused (wrong part, no sync word) with the flash unchanged, erase; a NIC of
 * model = core refused (no board block), a vfio: board that is not there refused with
 * libhroce's message.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define FLASH_BYTES (128u << 20)
#define GOLDEN_OFF 0u
#define UPDATE_OFF (64u << 20)
#define SEG_BYTES (64u << 20)
#define IDCODE_U200 0x04b37093u
#define IDCODE_VU9P 0x04b31093u
#define PAGE 256u
/* the end of run()'s arguments: a pointer, as a variadic function needs */
#define END ((const char *)NULL)

static char tool[1100], dir[1100], out[4096];
static struct bench *B;

/* Runs hroce-fw with the arguments (NULL-terminated) and an optional env; output in out. */
static int run(const char *env, ...)
{
	const char *argv[32];
	char log[1200];
	va_list ap;
	int n = 0, status, fd;
	pid_t pid;
	FILE *f;
	size_t got;

	argv[n++] = tool;
	va_start(ap, env);
	while (n < 31 && (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	snprintf(log, sizeof(log), "%s/out.txt", dir);
	pid = fork();
	if (pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		dup2(fd, 2);
		if (chdir(dir))
			_exit(126);
		setenv("HROCE_FW_SIM_DIR", dir, 1);
		unsetenv("HROCE_FW_SYSFS");
		if (env)
			putenv((char *)env);
		execv(tool, (char *const *)argv);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	f = fopen(log, "r");
	got = f ? fread(out, 1, sizeof(out) - 1, f) : 0;
	out[got] = 0;
	if (f)
		fclose(f);
	bench_log(B, "hroce-fw %s %s %s: status %d", argv[1], n > 2 ? argv[2] : "",
		  n > 3 ? argv[3] : "", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* A bitstream as Vivado lays it out: padding, bus width detection, sync, IDCODE, frames
 * (random here), DESYNC. */
static size_t make_bitstream(uint8_t *buf, size_t frames_bytes, uint32_t idcode)
{
	static const uint32_t head[] = { 0xffffffff, 0x000000bb, 0x11220044, 0xffffffff,
					 0xffffffff, 0xaa995566, 0x20000000, 0x30018001 };
	static const uint32_t tail[] = { 0x30008001, 0x0000000d, 0x20000000, 0x20000000 };
	size_t at = 0;

	memset(buf, 0xff, 64);
	at = 64;
	for (size_t i = 0; i < sizeof(head) / 4; i++, at += 4)
		put_be32(buf + at, head[i]);
	put_be32(buf + at, idcode);
	at += 4;
	bench_fill(B, buf + at, frames_bytes);
	/* no accidental commands in the frames: keep the top byte of each word below 0x20 */
	for (size_t i = 0; i < frames_bytes; i += 4)
		buf[at + i] &= 0x1f;
	at += frames_bytes;
	for (size_t i = 0; i < sizeof(tail) / 4; i++, at += 4)
		put_be32(buf + at, tail[i]);
	return at;
}

static void write_file(const char *name, const void *data, size_t len)
{
	char path[1200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static size_t bit_header(uint8_t *h, const char *part, uint32_t data_len)
{
	static const uint8_t magic[13] = { 0x00, 0x09, 0x0f, 0xf0, 0x0f, 0xf0, 0x0f,
					   0xf0, 0x0f, 0xf0, 0x00, 0x00, 0x01 };
	const char *fields[3] = { "hroce_u200;UserID=0XFFFFFFFF;Version=2024.2", part,
				  "2026/11/25" };
	size_t at = sizeof(magic);

	memcpy(h, magic, at);
	for (int i = 0; i < 3; i++) {
		size_t n = strlen(fields[i]) + 1;

		h[at++] = (uint8_t)('a' + i);
		h[at++] = (uint8_t)(n >> 8);
		h[at++] = (uint8_t)n;
		memcpy(h + at, fields[i], n);
		at += n;
	}
	h[at++] = 'd';
	h[at++] = 0;
	h[at++] = 9;
	memcpy(h + at, "12:00:00", 9);
	at += 9;
	h[at++] = 'e';
	put_be32(h + at, data_len);
	return at + 4;
}

static void write_bit(const char *name, const char *part, const uint8_t *bs, size_t len, size_t cut)
{
	uint8_t *f = malloc(len + 512);
	size_t h = bit_header(f, part, (uint32_t)len);

	memcpy(f + h, bs, len);
	write_file(name, f, h + len - cut);
	free(f);
}

static void write_mcs(const char *name, const uint8_t *data, size_t len, uint32_t base, bool bad)
{
	size_t cap = len * 3 + len / 16 * 16 + 4096;
	char *s = malloc(cap);
	size_t at = 0;
	uint32_t upper = UINT32_MAX;

	for (size_t i = 0; i < len; i += 16) {
		uint32_t a = base + (uint32_t)i;
		size_t n = len - i < 16 ? len - i : 16;
		unsigned int sum;

		if (a >> 16 != upper) {
			upper = a >> 16;
			sum = 2 + 4 + (upper >> 8) + (upper & 0xff);
			at += (size_t)sprintf(s + at, ":02000004%04X%02X\n", upper, (-sum) & 0xff);
		}
		sum = (unsigned int)n + (a >> 8 & 0xff) + (a & 0xff);
		at += (size_t)sprintf(s + at, ":%02X%04X00", (unsigned int)n, a & 0xffff);
		for (size_t k = 0; k < n; k++) {
			at += (size_t)sprintf(s + at, "%02X", data[i + k]);
			sum += data[i + k];
		}
		if (bad && i == (len / 2 & ~(size_t)15))
			sum++;
		at += (size_t)sprintf(s + at, "%02X\n", (-sum) & 0xff);
	}
	at += (size_t)sprintf(s + at, ":00000001FF\n");
	write_file(name, s, at);
	free(s);
}

/* The simulated board's flash, as the tool left it. */
static uint8_t *flash_map(const char *name)
{
	char path[1200];
	int fd;
	void *m;

	snprintf(path, sizeof(path), "%s/%s.flash", dir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	m = mmap(NULL, FLASH_BYTES, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	return m == MAP_FAILED ? NULL : m;
}

static bool has(const char *s)
{
	return strstr(out, s) != NULL;
}

static uint8_t *golden_copy;

static bool golden_same(const uint8_t *flash)
{
	return flash && !memcmp(flash + GOLDEN_OFF, golden_copy, SEG_BYTES);
}

/* A result for a run that must fail with status want and say msg, the golden unchanged. */
static void expect_fail(const char *name, int status, int want, const char *msg,
			const uint8_t *flash)
{
	char first[200];

	memcpy(first, out, sizeof(first) - 1);
	first[sizeof(first) - 1] = 0;
	for (char *p = first; *p; p++)
		if (*p == '\n')
			*p = ' ';
	bench_result(B, name, status == want && has(msg) && golden_same(flash),
		     "status %d (want %d), message \"%s\" (want \"%s\"), golden %s", status, want,
		     first, msg, golden_same(flash) ? "unchanged" : "CHANGED");
}

/* The file NAME in the test's directory holds exactly data. */
static bool back_is(const char *name, const uint8_t *data, size_t len)
{
	char path[1200];
	uint8_t *got = malloc(len + 1);
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	n = f && got ? fread(got, 1, len + 1, f) : 0;
	if (f)
		fclose(f);
	n = n == len && !memcmp(got, data, len);
	free(got);
	return n;
}

/* A device's images: a golden one, an update one (as .bit and .bin), another. */
struct images {
	const char *golden, *bit, *bin, *other, *back; /* file names */
	const uint8_t *gs, *bs;
	size_t glen, len;
};

/*
 * On DEV: the golden image with --golden, then the update one written, verified, compared
 * with another and read back (results PREFIX_*), the golden segment kept in golden_copy.
 * The device's flash file NAME.flash mapped, or NULL.
 */
static uint8_t *write_images(const char *env, const char *dev, const char *flash_name,
			     const char *prefix, const struct images *im)
{
	char name[64], lenarg[32];
	uint8_t *flash;
	int st;

	st = run(env, "--golden", "write", dev, im->golden, END);
	flash = flash_map(flash_name);
	snprintf(name, sizeof(name), "%s_write_golden", prefix);
	bench_result(B, name, st == 0 && flash && !memcmp(flash + GOLDEN_OFF, im->gs, im->glen),
		     "status %d: %s", st, out);
	if (!flash)
		return NULL;
	memcpy(golden_copy, flash + GOLDEN_OFF, SEG_BYTES);

	st = run(env, "write", dev, im->bit, END);
	snprintf(name, sizeof(name), "%s_write_bit", prefix);
	bench_result(B, name,
		     st == 0 && has("written and verified") &&
			     !memcmp(flash + UPDATE_OFF, im->bs, im->len) && golden_same(flash),
		     "status %d: %s", st, out);
	st = run(env, "verify", dev, im->bin, END);
	snprintf(name, sizeof(name), "%s_verify_same", prefix);
	bench_result(B, name, st == 0 && has("matches"), "status %d: %s", st, out);
	st = run(env, "verify", dev, im->other, END);
	snprintf(name, sizeof(name), "%s_verify_differs", prefix);
	bench_result(B, name, st == 5 && has("differs at"), "status %d: %s", st, out);
	snprintf(lenarg, sizeof(lenarg), "%zu", im->len);
	st = run(env, "--length", lenarg, "read", dev, im->back, END);
	snprintf(name, sizeof(name), "%s_read", prefix);
	bench_result(B, name, st == 0 && back_is(im->back, im->bs, im->len), "status %d: %s", st,
		     out);
	return flash;
}

/* The first sector of the update segment erased on DEV: all FFh, the golden unchanged. */
static void erase_sector(const char *env, const char *dev, const char *name, const uint8_t *flash)
{
	int st = run(env, "--length", "65536", "erase", dev, END);
	bool blank = true;

	for (unsigned int i = 0; i < 65536; i++)
		blank &= flash[UPDATE_OFF + i] == 0xff;
	bench_result(B, name, st == 0 && blank && golden_same(flash), "status %d: %s", st, out);
}

static void test_sim(void)
{
	const size_t frames = 96 << 10;
	uint8_t *bs = malloc(frames + 1024), *gs = malloc(frames + 1024),
		*other = malloc(frames + 1024);
	uint8_t *flash;
	size_t len, glen, olen;
	int st;

	len = make_bitstream(bs, frames, IDCODE_U200);
	glen = make_bitstream(gs, frames / 2, IDCODE_U200);
	olen = make_bitstream(other, frames, IDCODE_U200);
	write_file("good.bin", bs, len);
	write_file("golden.bin", gs, glen);
	write_file("other.bin", other, olen);
	write_bit("good.bit", "xcu200-fsgd2104-2-e", bs, len, 0);
	write_mcs("good.mcs", bs, len, UPDATE_OFF, false);

	st = run(NULL, "info", "sim:b", END);
	bench_result(B, "tool_info", st == 0 && has("JEDEC 20 bb 21") && has("xcu200"),
		     "status %d: %s", st, out);

	flash = write_images(NULL, "sim:b", "b", "tool",
			     &(struct images){ "golden.bin", "good.bit", "good.bin", "other.bin",
					       "back.bin", gs, bs, glen, len });
	if (!flash)
		return;
	st = run(NULL, "write", "sim:b", "other.bin", END);
	st = st ?: run(NULL, "write", "sim:b", "good.mcs", END);
	bench_result(B, "tool_write_mcs", st == 0 && !memcmp(flash + UPDATE_OFF, bs, len),
		     "status %d: %s", st, out);

	/* bad images: refused before anything is erased */
	{
		uint8_t *wrong = malloc(len);
		char big[1200];
		int fd;

		write_bit("trunc.bit", "xcu200-fsgd2104-2-e", bs, len, len / 3);
		write_file("trunc.bin", bs, len - 64);
		write_bit("part.bit", "xcvu9p-fsgd2104-2L-e", bs, len, 0);
		make_bitstream(wrong, frames, IDCODE_VU9P);
		write_file("idcode.bin", wrong, len);
		bench_fill(B, wrong, len);
		write_file("nosync.bin", wrong, len);
		write_mcs("bad.mcs", bs, len, UPDATE_OFF, true);
		free(wrong);
		snprintf(big, sizeof(big), "%s/big.bin", dir);
		fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, bs, len) != (ssize_t)len || ftruncate(fd, SEG_BYTES + 1))
			perror(big);
		if (fd >= 0)
			close(fd);
	}
	{
		uint8_t *before = malloc(FLASH_BYTES);
		static const struct {
			const char *file, *name, *msg;
		} bad[] = {
			{ "trunc.bit", "tool_bad_truncated_bit", "truncated" },
			{ "trunc.bin", "tool_bad_truncated_bin", "truncated" },
			{ "part.bit", "tool_bad_wrong_part_name", "wrong part" },
			{ "idcode.bin", "tool_bad_wrong_idcode", "wrong part" },
			{ "nosync.bin", "tool_bad_no_sync", "no sync word" },
			{ "big.bin", "tool_bad_too_large", "too large" },
			{ "bad.mcs", "tool_bad_mcs_checksum", "checksum" },
		};

		memcpy(before, flash, FLASH_BYTES);
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			st = run(NULL, "write", "sim:b", bad[i].file, END);
			expect_fail(bad[i].name, st, 2, bad[i].msg, flash);
			if (memcmp(before, flash, FLASH_BYTES))
				bench_result(B, bad[i].name, false, "the flash changed");
		}
		free(before);
	}

	/* a flash that fails */
	st = run("HROCE_FW_SIM_FAULT=erase:0", "write", "sim:b", "good.bin", END);
	expect_fail("tool_erase_fails", st, 4, "erase error", flash);
	st = run("HROCE_FW_SIM_FAULT=program:10", "write", "sim:b", "good.bin", END);
	expect_fail("tool_program_fails", st, 4, "program error", flash);
	bench_result(B, "tool_fail_says_golden_safe", has("golden image was not touched"), "%s",
		     out);
	/* power cut after 2 erases and 50 pages: the flash stops answering */
	st = run("HROCE_FW_SIM_FAULT=powercut:52", "write", "sim:b", "good.bin", END);
	expect_fail("tool_power_cut", st, 4, "does not answer", flash);
	{
		bool blank = true;

		for (unsigned int i = 0; i < PAGE; i++)
			blank &= flash[UPDATE_OFF + i] == 0xff;
		bench_result(B, "tool_power_cut_no_sync_word", blank,
			     "the first page of the update segment was programmed");
	}
	st = run(NULL, "write", "sim:b", "good.bin", END);
	bench_result(B, "tool_write_after_failures",
		     st == 0 && !memcmp(flash + UPDATE_OFF, bs, len) && golden_same(flash),
		     "status %d: %s", st, out);

	/* boot: the ICAP sees the reload of the update segment, the board answers */
	st = run(NULL, "boot", "sim:b", END);
	bench_result(B, "tool_boot_sim",
		     st == 0 && has("WBSTAR 0x04000000, IPROG") && has("running git 1234abcd"),
		     "status %d: %s", st, out);
	st = run(NULL, "--expect-version", "deadbeef", "boot", "sim:b", END);
	bench_result(B, "tool_boot_wrong_version", st == 3 && has("not the expected"),
		     "status %d: %s", st, out);
	erase_sector(NULL, "sim:b", "tool_erase", flash);
	st = run(NULL, "write", "sim:", "good.bin", END);
	bench_result(B, "tool_bad_device", st == 1 && has("sim:NAME"), "status %d: %s", st, out);
	st = run(NULL, "frobnicate", "sim:b", END);
	bench_result(B, "tool_bad_command", st == 1 && has("unknown command"), "status %d: %s", st,
		     out);
	munmap(flash, FLASH_BYTES);
	free(bs);
	free(gs);
	free(other);
}

/* ===================================================================================== */
/* Through libhroce's bus: a simulated NIC of model = shell */

/*
 * hroce:sim:NAME: the NIC libhroce creates from the configuration, the shell with the core
 * inside, its flash a file; the same commands as on a board, through the NIC's BAR0.
 */
static void test_bus_sim(void)
{
	/* small images: every register access is a round trip through the simulated PCIe */
	const size_t frames = 2048;
	uint8_t *bs = malloc(frames + 1024), *gs = malloc(frames + 1024),
		*other = malloc(frames + 1024), *wrong = malloc(frames + 1024);
	static char env[1300];
	char text[1600];
	size_t len, glen;
	uint8_t *flash;
	int st;

	snprintf(text, sizeof(text),
		 "[fwnic]\nmac = 02:00:0a:00:00:09\nipv4 = 10.0.0.9\nmodel = shell\n"
		 "pcie_read_ns = 100\npcie_write_ns = 100\nflash = %s/fwnic.flash\n"
		 "flash_time_divisor = 1000\n"
		 "[corenic]\nmac = 02:00:0a:00:00:0a\nipv4 = 10.0.0.10\n",
		 dir);
	write_file("hroce.conf", text, strlen(text));
	snprintf(env, sizeof(env), "HROCE_CONFIG=%s/hroce.conf", dir);
	len = make_bitstream(bs, frames, IDCODE_U200);
	glen = make_bitstream(gs, frames / 2, IDCODE_U200);
	make_bitstream(other, frames, IDCODE_U200);
	make_bitstream(wrong, frames, IDCODE_VU9P);
	write_file("nic.bin", bs, len);
	write_bit("nic.bit", "xcu200-fsgd2104-2-e", bs, len, 0);
	write_file("nic_golden.bin", gs, glen);
	write_file("nic_other.bin", other, len);
	write_file("nic_idcode.bin", wrong, len);
	bench_fill(B, wrong, len);
	write_file("nic_nosync.bin", wrong, len);

	st = run(env, "info", "hroce:sim:fwnic", END);
	bench_result(B, "bus_sim_info",
		     st == 0 && has("device:      sim:fwnic") && has("JEDEC 20 bb 21") &&
			     has("xcu200"),
		     "status %d: %s", st, out);
	flash = write_images(env, "hroce:sim:fwnic", "fwnic", "bus_sim",
			     &(struct images){ "nic_golden.bin", "nic.bit", "nic.bin",
					       "nic_other.bin", "nic_back.bin", gs, bs, glen,
					       len });
	if (!flash)
		goto out;
	/* the simulated shell stays up: its ICAP model saw the reload, the board answers */
	st = run(env, "boot", "hroce:sim:fwnic", END);
	bench_result(B, "bus_sim_boot",
		     st == 0 && has("sim:fwnic: ICAP: WBSTAR 0x04000000, IPROG") &&
			     has("sim:fwnic: running git 00000000"),
		     "status %d: %s", st, out);
	st = run(env, "write", "hroce:sim:fwnic", "nic_idcode.bin", END);
	expect_fail("bus_sim_bad_wrong_idcode", st, 2, "wrong part", flash);
	st = run(env, "write", "hroce:sim:fwnic", "nic_nosync.bin", END);
	expect_fail("bus_sim_bad_no_sync", st, 2, "no sync word", flash);
	bench_result(B, "bus_sim_bad_left_update", !memcmp(flash + UPDATE_OFF, bs, len),
		     "a refused image changed the update segment");
	erase_sector(env, "hroce:sim:fwnic", "bus_sim_erase", flash);
	munmap(flash, FLASH_BYTES);
out:
	/* a NIC without the shell has no board block; a board not there is not opened */
	st = run(env, "info", "hroce:sim:corenic", END);
	bench_result(B, "bus_sim_core_refused", st == 3 && has("no HardRoCE board block"),
		     "status %d: %s", st, out);
	st = run(env, "info", "vfio:0000:ff:1f.7", END);
	bench_result(B, "bus_vfio_absent", st == 3 && has("libhroce cannot open it"),
		     "status %d: %s", st, out);
	st = run(env, "info", "hroce:nosuch:x", END);
	bench_result(B, "bus_bad_spec", st == 3 && has("unknown device"), "status %d: %s", st, out);
	free(bs);
	free(gs);
	free(other);
	free(wrong);
}

/* ===================================================================================== */
/* The fake sysfs tree */

#define BOARD "0000:01:00.0"
#define PORT "0000:00:01.0"
#define PORT_EXP 0x40  /* PCIe capability of the port */
#define PORT_AER 0x100 /* AER capability */
#define PORT_CMD 0x0146
#define PORT_DEVCTL 0x000f
#define PORT_AER_MASK 0x00400000

static void mkpath(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void mkpath(const char *fmt, ...)
{
	char p[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p, sizeof(p), fmt, ap);
	va_end(ap);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

static void put(const char *rel, const void *data, size_t len)
{
	char p[1200];
	FILE *f;

	snprintf(p, sizeof(p), "%s/sys/%s", dir, rel);
	f = fopen(p, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		perror(p);
}

static void puts_file(const char *rel, const char *s)
{
	put(rel, s, strlen(s));
}

static bool file_is(const char *rel, const char *want)
{
	char p[1200], buf[256] = "";
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "%s/sys/%s", dir, rel);
	f = fopen(p, "rb");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return !strcmp(buf, want);
}

static void le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void le32(uint8_t *p, uint32_t v)
{
	le16(p, (uint16_t)v);
	le16(p + 2, (uint16_t)(v >> 16));
}

static void device_files(const char *path, uint16_t vendor, uint16_t device, uint32_t cls,
			 const uint8_t *config)
{
	char rel[600], v[64];
	char res[400] = "";

	for (int i = 0; i < 13; i++)
		strcat(res, "0x0000000000000000 0x0000000000000000 0x0000000000000000\n");
	snprintf(rel, sizeof(rel), "%s/vendor", path);
	snprintf(v, sizeof(v), "0x%04x\n", vendor);
	puts_file(rel, v);
	snprintf(rel, sizeof(rel), "%s/device", path);
	snprintf(v, sizeof(v), "0x%04x\n", device);
	puts_file(rel, v);
	snprintf(rel, sizeof(rel), "%s/class", path);
	snprintf(v, sizeof(v), "0x%06x\n", cls);
	puts_file(rel, v);
	snprintf(rel, sizeof(rel), "%s/irq", path);
	puts_file(rel, "0\n");
	snprintf(rel, sizeof(rel), "%s/resource", path);
	puts_file(rel, res);
	snprintf(rel, sizeof(rel), "%s/config", path);
	put(rel, config, 4096);
}

static void make_sysfs(void)
{
	const char *port_dir = "devices/pci0000:00/" PORT;
	const char *board_dir = "devices/pci0000:00/" PORT "/" BOARD;
	uint8_t cfg[4096], *bar = calloc(1, 128 << 10);
	char p[1200], t[1200];

	mkpath("%s/sys/%s", dir, board_dir);
	mkpath("%s/sys/bus/pci/devices", dir);
	mkpath("%s/sys/bus/pci/drivers/vfio-pci", dir);
	mkpath("%s/sys/bus/pci/drivers/hroce-old", dir);
	/* the port: a type 1 header, PCIe and AER capabilities */
	memset(cfg, 0, sizeof(cfg));
	le16(cfg + 0, 0x8086);
	le16(cfg + 2, 0x1234);
	le16(cfg + 4, PORT_CMD);
	le16(cfg + 6, 0x0010); /* capability list */
	cfg[0x0e] = 0x01;
	cfg[0x34] = PORT_EXP;
	cfg[PORT_EXP] = 0x10;
	cfg[PORT_EXP + 1] = 0;
	le16(cfg + PORT_EXP + 2, 0x0042); /* version 2, root port */
	le16(cfg + PORT_EXP + 8, PORT_DEVCTL);
	le32(cfg + PORT_AER, 0x00010001); /* AER, version 1, last */
	le32(cfg + PORT_AER + 8, PORT_AER_MASK);
	device_files(port_dir, 0x8086, 0x1234, 0x060400, cfg);
	/* the board */
	memset(cfg, 0, sizeof(cfg));
	le16(cfg + 0, 0x10ee);
	le16(cfg + 2, 0x4852);
	le16(cfg + 4, 0x0006);
	device_files(board_dir, 0x10ee, 0x4852, 0x020000, cfg);
	le32(bar + 0x10000, 0x48524657);
	le32(bar + 0x10004, 0x00010200);
	le32(bar + 0x10008, 0xfeedf00d);
	le32(bar + 0x10010, IDCODE_U200);
	le32(bar + 0x10014, FLASH_BYTES);
	le32(bar + 0x10018, 65536);
	le32(bar + 0x10020, GOLDEN_OFF);
	le32(bar + 0x10024, SEG_BYTES);
	le32(bar + 0x10028, UPDATE_OFF);
	le32(bar + 0x1002c, SEG_BYTES);
	snprintf(p, sizeof(p), "%s/resource0", board_dir);
	put(p, bar, 128 << 10);
	free(bar);
	snprintf(p, sizeof(p), "%s/remove", board_dir);
	puts_file(p, "");
	snprintf(p, sizeof(p), "%s/driver_override", board_dir);
	puts_file(p, "");
	puts_file("bus/pci/rescan", "");
	puts_file("bus/pci/drivers/vfio-pci/bind", "");
	puts_file("bus/pci/drivers/hroce-old/unbind", "");
	/* links as the kernel makes them */
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/" BOARD, dir);
	snprintf(t, sizeof(t), "../../../%s", board_dir);
	if (symlink(t, p))
		perror(p);
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/" PORT, dir);
	snprintf(t, sizeof(t), "../../../%s", port_dir);
	if (symlink(t, p))
		perror(p);
	snprintf(p, sizeof(p), "%s/sys/%s/driver", dir, board_dir);
	if (symlink("../../../../bus/pci/drivers/hroce-old", p))
		perror(p);
}

static uint32_t read_le32(const char *rel, size_t off)
{
	char p[1200];
	uint8_t b[4] = { 0 };
	FILE *f;

	snprintf(p, sizeof(p), "%s/sys/%s", dir, rel);
	f = fopen(p, "rb");
	if (f && !fseek(f, (long)off, SEEK_SET) && fread(b, 1, 4, f) == 4) {
		fclose(f);
		return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
		       (uint32_t)b[3] << 24;
	}
	if (f)
		fclose(f);
	return 0xffffffff;
}

/* The steps printed, in this order? */
static bool steps_in_order(const char *const *steps, size_t n)
{
	const char *at = out;

	for (size_t i = 0; i < n; i++) {
		at = strstr(at, steps[i]);
		if (!at)
			return false;
	}
	return true;
}

static void test_sysfs(void)
{
	static const char *const boot_steps[] = {
		"unbound " BOARD " from hroce-old",
		"masked error reporting",
		"reload from flash",
		"removed " BOARD,
		"secondary bus reset",
		"rescanned",
		"restored error reporting",
		"bound " BOARD " to vfio-pci",
		"running git feedf00d",
	};
	static const char *const reset_steps[] = {
		"masked error reporting",   "removed " BOARD,
		"secondary bus reset",	    "rescanned",
		"restored error reporting", "bound " BOARD " to vfio-pci",
	};
	const char *port_cfg = "devices/pci0000:00/" PORT "/config";
	const char *board = "devices/pci0000:00/" PORT "/" BOARD;
	char sysfs[1200], rel[600];
	int st;
	bool regs;

	make_sysfs();
	snprintf(sysfs, sizeof(sysfs), "%s/sys", dir);
	st = run(NULL, "--sysfs", sysfs, "list", END);
	bench_result(B, "tool_pci_list", st == 0 && has(BOARD "  board 0200  git feedf00d"),
		     "status %d: %s", st, out);
	st = run(NULL, "--sysfs", sysfs, "info", "01:00.0", END);
	bench_result(B, "tool_pci_info", st == 0 && has("IDCODE 04b37093 (xcu200)"),
		     "status %d: %s", st, out);
	st = run(NULL, "--sysfs", sysfs, "info", "0000:00:01.0", END);
	bench_result(B, "tool_pci_not_a_board", st == 3 && has("not a HardRoCE board"),
		     "status %d: %s", st, out);
	st = run(NULL, "--sysfs", sysfs, "info", "0000:05:00.0", END);
	bench_result(B, "tool_pci_no_device", st == 3 && has("no PCI device"), "status %d: %s", st,
		     out);

	st = run(NULL, "--sysfs", sysfs, "--reload-ms", "0", "-v", "boot", BOARD, END);
	snprintf(rel, sizeof(rel), "%s/resource0", board);
	regs = (read_le32(port_cfg, 4) & 0xffff) == PORT_CMD &&
	       (read_le32(port_cfg, PORT_EXP + 8) & 0xffff) == PORT_DEVCTL &&
	       read_le32(port_cfg, PORT_AER + 8) == PORT_AER_MASK &&
	       !(read_le32(port_cfg, 0x3c) >> 16 & 0x40);
	bench_result(B, "tool_pci_boot_steps", st == 0 && steps_in_order(boot_steps, 9),
		     "status %d: %s", st, out);
	bench_result(B, "tool_pci_boot_reload_regs",
		     read_le32(rel, 0x10050) == UPDATE_OFF && read_le32(rel, 0x10054) == 0x49505247,
		     "RELOAD_ADDR %#x RELOAD %#x", read_le32(rel, 0x10050),
		     read_le32(rel, 0x10054));
	snprintf(rel, sizeof(rel), "%s/driver_override", board);
	bench_result(B, "tool_pci_boot_files",
		     file_is("bus/pci/drivers/hroce-old/unbind", BOARD) &&
			     file_is("bus/pci/rescan", "1") && file_is(rel, "vfio-pci") &&
			     file_is("bus/pci/drivers/vfio-pci/bind", BOARD),
		     "unbind, rescan, driver_override or bind not written as expected");
	bench_result(B, "tool_pci_port_restored", regs,
		     "the port's command, device control, AER mask or bridge control changed");
	st = run(NULL, "--sysfs", sysfs, "-v", "reset", BOARD, END);
	bench_result(B, "tool_pci_reset",
		     st == 0 && steps_in_order(reset_steps, 6) && !has("reload from flash"),
		     "status %d: %s", st, out);
}

int main(int argc, char **argv)
{
	struct bench b;
	char self[1024], cmd[1200];
	ssize_t len;

	bench_init(&b, "test_fw_tool", argc, argv);
	B = &b;
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return 1;
	self[len] = 0;
	snprintf(tool, sizeof(tool), "%s/hroce-fw", dirname(self));
	snprintf(dir, sizeof(dir), "/tmp/hroce-fw-test.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	golden_copy = malloc(SEG_BYTES);
	if (!golden_copy)
		return 1;
	test_sim();
	test_bus_sim();
	test_sysfs();
	free(golden_copy);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (b.failed == 0 && system(cmd))
		bench_log(&b, "could not remove %s", dir);
	return bench_finish(&b);
}
