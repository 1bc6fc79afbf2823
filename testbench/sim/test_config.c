// SPDX-License-Identifier: MIT
/*
 * Unit test of libhroce's device configuration (hroce_config.h): the built-in defaults,
 * $HROCE_CONFIG, a file with every key, the example file shipped with the driver, one
 * file per mistake, each refused with EINVAL and a message that names the file and line,
 * hroce_open with a bad file or a device the file does not have, the fault keys with
 * $HROCE_FAULTS over them, and a NIC that hroce_open made asking for an address nobody
 * answers (its clock jumps over the ARP retries).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "hroce.h"
#include "hroce_config.h"
#include "hroce_contract.h"

static char last_msg[1024];
static unsigned int messages;

static void capture(void *ctx, enum hroce_log_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	snprintf(last_msg, sizeof(last_msg), "%s", msg);
	messages++;
}

static char tmp_path[512];

static const char *write_file(const char *text)
{
	FILE *f = fopen(tmp_path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(tmp_path);
		exit(1);
	}
	return tmp_path;
}

static bool mac_is(const uint8_t *mac, uint8_t last)
{
	static const uint8_t want[5] = { 0x02, 0x00, 0x0a, 0x00, 0x00 };

	return !memcmp(mac, want, 5) && mac[5] == last;
}

static bool sim_defaults(const struct hroce_config_dev *d)
{
	return d->clock_mhz == 250 && d->pcie_read_ns == 200 && d->pcie_write_ns == 200 &&
	       d->pcie_gbps == 128 && d->pcie_reads == 32 && d->pcie_writes == 32 &&
	       d->link_ns == 100 && d->link_gbps == 100 && !d->pcap[0];
}

static void test_defaults(struct bench *b)
{
	const struct hroce_config_dev *d0, *d1;
	struct hroce_config *cfg;
	const char *why = NULL;
	int err;

	unsetenv(HROCE_CONFIG_ENV);
	err = hroce_config_load(&cfg);
	if (err) {
		bench_result(b, "config_defaults", false, "load: %s", strerror(err));
		return;
	}
	d0 = hroce_config_find(cfg, "hroce0");
	d1 = hroce_config_find(cfg, "hroce1");
	if (hroce_config_count(cfg) != 2 || !d0 || !d1)
		why = "not the two devices hroce0 and hroce1";
	else if (strcmp(d0->spec, "sim:hroce0") || strcmp(d1->spec, "sim:hroce1"))
		why = "specs";
	else if (!mac_is(d0->mac, 1) || !mac_is(d1->mac, 2))
		why = "MACs";
	else if (d0->ipv4 != 0x0a000001 || d1->ipv4 != 0x0a000002)
		why = "IPv4 addresses";
	else if (strcmp(d0->wire, "hroce-wire0") || strcmp(d1->wire, "hroce-wire0") ||
		 d0->port != 0 || d1->port != 1)
		why = "wire and ports";
	else if (!sim_defaults(d0) || !sim_defaults(d1))
		why = "PCIe, link or clock";
	else if (hroce_config_find_spec(cfg, "sim:hroce1") != d1 ||
		 hroce_config_dev(cfg, 0) != d0 || hroce_config_dev(cfg, 2))
		why = "find_spec or iteration";
	else if (hroce_config_find(cfg, "hroce2") || errno != ENOENT)
		why = "an unknown name is found";
	else if (strcmp(hroce_config_source(cfg), "built-in defaults"))
		why = "source";
	bench_result(b, "config_defaults", !why, "%s", why);
	hroce_config_free(cfg);
}

static const char good[] = "# two boards and a simulated NIC\n"
			   "\n"
			   "[board0]\n"
			   "  spec = vfio:0000:65:00.0   # the first\n"
			   "mac=02:00:0A:00:01:01\n"
			   "ipv4 =   192.168.7.1\n"
			   "[ sim-a ]\n"
			   "mac = 02:00:0a:00:00:09\n"
			   "ipv4 = 10.1.2.3\n"
			   "ipv6 = 2001:db8::9\n"
			   "ipv6 = fd00:1:2::3:4\n"
			   "wire = my.wire_1\n"
			   "port = 1\n"
			   "clock_mhz = 125\n"
			   "pcie_read_ns = 300\n"
			   "pcie_write_ns = 150\n"
			   "pcie_gbps = 0\n"
			   "pcie_reads = 4\n"
			   "pcie_writes = 256\n"
			   "link_ns = 1000\n"
			   "link_gbps = 25\n"
			   "pcap = /tmp/sim-a.pcap\n"
			   "[sim-b]\n"
			   "spec = sim:other\n"
			   "mac = 02:00:0a:00:00:0a\n"
			   "ipv4 = 10.1.2.4\n";

static void test_file(struct bench *b)
{
	const struct hroce_config_dev *v, *a, *o;
	struct hroce_config *cfg;
	const char *why = NULL;
	int err;

	setenv(HROCE_CONFIG_ENV, write_file(good), 1);
	err = hroce_config_load(&cfg);
	if (err) {
		bench_result(b, "config_file", false, "load: %s (%s)", strerror(err), last_msg);
		return;
	}
	v = hroce_config_dev(cfg, 0);
	a = hroce_config_dev(cfg, 1);
	o = hroce_config_find_spec(cfg, "sim:other");
	if (hroce_config_count(cfg) != 3 || !v || !a || !o || strcmp(o->name, "sim-b"))
		why = "not the three devices";
	else if (strcmp(v->name, "board0") || strcmp(v->spec, "vfio:0000:65:00.0") ||
		 v->ipv4 != 0xc0a80701 || v->mac[4] != 1 || v->mac[2] != 0x0a || v->line != 3)
		why = "the vfio device";
	else if (strcmp(a->spec, "sim:sim-a") || strcmp(a->wire, "my.wire_1") || a->port != 1 ||
		 a->clock_mhz != 125 || a->pcie_read_ns != 300 || a->pcie_write_ns != 150 ||
		 a->pcie_gbps || a->pcie_reads != 4 || a->pcie_writes != 256 ||
		 a->link_ns != 1000 || a->link_gbps != 25 || strcmp(a->pcap, "/tmp/sim-a.pcap") ||
		 a->ipv4 != 0x0a010203 || a->line != 7 || a->nipv6 != 2 || a->ipv6[0][0] != 0x20 ||
		 a->ipv6[0][15] != 9 || a->ipv6[1][3] != 1 || a->ipv6[1][13] != 3 || v->nipv6)
		why = "the sim device with every key";
	else if (o->wire[0] || !sim_defaults(o))
		why = "defaults of a sim device without wire";
	else if (strcmp(hroce_config_source(cfg), tmp_path))
		why = "source";
	bench_result(b, "config_file", !why, "%s", why);
	hroce_config_free(cfg);
	unsetenv(HROCE_CONFIG_ENV);
}

/* The example shipped with the driver is the defaults, written out. */
static void test_example(struct bench *b)
{
	struct hroce_config *ex, *def;
	const char *why = NULL;
	int err;

	err = hroce_config_load_file("host-driver/hroce.conf.example", &ex);
	if (err) {
		bench_result(b, "config_example", false, "load: %s (%s)", strerror(err), last_msg);
		return;
	}
	hroce_config_defaults(&def);
	if (hroce_config_count(ex) != hroce_config_count(def))
		why = "not as many devices as the defaults";
	for (size_t i = 0; !why && i < hroce_config_count(def); i++) {
		struct hroce_config_dev a = *hroce_config_dev(ex, i), d = *hroce_config_dev(def, i);

		a.line = d.line = 0;
		if (memcmp(&a, &d, sizeof(a)))
			why = "a device differs from the defaults";
	}
	bench_result(b, "config_example", !why, "%s", why);
	hroce_config_free(ex);
	hroce_config_free(def);
}

struct bad_case {
	const char *name;
	const char *text;
	unsigned int line; /* the message says FILE:LINE */
	const char *says;  /* and this */
};

#define SIM0 "[a]\nmac = 02:00:0a:00:00:01\nipv4 = 10.0.0.1\n"

static const struct bad_case bad_cases[] = {
	{ "unknown_key", SIM0 "colour = blue\n", 4, "unknown key \"colour\"" },
	{ "bad_mac", "[a]\nmac = 02:00:0a:00:00\nipv4 = 10.0.0.1\n", 2, "mac" },
	{ "bad_mac_hex", "[a]\nmac = 02:00:0a:00:00:zz\nipv4 = 10.0.0.1\n", 2, "mac" },
	{ "bad_ipv4", "[a]\nmac = 02:00:0a:00:00:01\nipv4 = 10.0.0.256\n", 3, "ipv4" },
	{ "port_2", SIM0 "port = 2\n", 4, "port" },
	{ "clock_0", SIM0 "clock_mhz = 0\n", 4, "clock_mhz" },
	{ "not_a_number", SIM0 "link_ns = 10ns\n", 4, "link_ns" },
	{ "negative", SIM0 "pcie_read_ns = -5\n", 4, "pcie_read_ns" },
	{ "pcie_reads_0", SIM0 "pcie_reads = 0\n", 4,
	  "pcie_reads \"0\": a whole number from 1 to 256" },
	{ "pcie_writes_257", SIM0 "pcie_writes = 257\n", 4,
	  "pcie_writes \"257\": a whole number from 1 to 256" },
	{ "key_outside", "mac = 02:00:0a:00:00:01\n", 1, "before any [NAME]" },
	{ "no_equals", SIM0 "wire hroce-wire0\n", 4, "key = value" },
	{ "bad_section", "[a\nmac = 02:00:0a:00:00:01\n", 1, "[NAME]" },
	{ "bad_name", "[a/b]\n", 1, "device name" },
	{ "dup_device", SIM0 "[a]\n", 4, "[a] again (first at line 1)" },
	{ "dup_key", SIM0 "ipv4 = 10.0.0.2\n", 4, "ipv4 set twice" },
	{ "bad_ipv6", SIM0 "ipv6 = fd00::1::2\n", 4, "an IPv6 address" },
	{ "ipv6_multicast", SIM0 "ipv6 = ff02::1\n", 4, "a multicast address cannot" },
	{ "ipv6_mapped", SIM0 "ipv6 = ::ffff:10.0.0.1\n", 4, "IPv4-mapped" },
	{ "ipv6_unspecified", SIM0 "ipv6 = ::\n", 4, "unspecified" },
	{ "ipv6_twice", SIM0 "ipv6 = fd00::1\nipv6 = fd00:0::1\n", 5, "fd00:0::1 twice" },
	{ "ipv6_five",
	  SIM0 "ipv6 = fd00::1\nipv6 = fd00::2\nipv6 = fd00::3\nipv6 = fd00::4\n"
	       "ipv6 = fd00::5\n",
	  8, "more than 4 ipv6" },
	{ "no_mac", "# x\n[a]\nipv4 = 10.0.0.1\n[b]\n", 2, "[a] has no mac" },
	{ "no_ipv4", "[a]\nmac = 02:00:0a:00:00:01\n", 1, "[a] has no ipv4" },
	{ "sim_key_on_vfio", SIM0 "spec = vfio:0000:65:00.0\nwire = w\n", 1,
	  "wire is for simulated devices only" },
	{ "bad_spec", SIM0 "spec = pci:0000:65:00.0\n", 4, "spec" },
	{ "bad_vfio", SIM0 "spec = vfio:65:00.0\n", 4, "spec" },
	{ "bad_wire", SIM0 "wire = a/b\n", 4, "wire" },
	{ "same_port", SIM0 "wire = w\n[b]\nmac = 02:00:0a:00:00:02\nipv4 = 10.0.0.2\nwire = w\n",
	  5, "port 0 of wire w, as [a] at line 1" },
	{ "same_spec", SIM0 "[b]\nspec = sim:a\nmac = 02:00:0a:00:00:02\nipv4 = 10.0.0.2\n", 4,
	  "is sim:a, as [a]" },
	{ "no_device", "# nothing\n\n", 0, "no device" },
	{ "loss_over_1", SIM0 "loss = 1.5\n", 4, "loss \"1.5\": a probability" },
	{ "loss_word", SIM0 "loss = often\n", 4, "loss" },
	{ "flip_nan", SIM0 "flip = nan\n", 4, "flip" },
	{ "dup_negative", SIM0 "dup = -0.1\n", 4, "dup" },
	{ "burst_short", SIM0 "loss_burst = 0.1 0.2\n", 4, "GOOD_TO_BAD BAD_TO_GOOD" },
	{ "burst_long", SIM0 "loss_burst = 0.1 0.2 1 0 0\n", 4, "loss_burst" },
	{ "reorder_no_depth", SIM0 "reorder = 0.1\n", 4, "PROBABILITY DEPTH" },
	{ "reorder_depth_0", SIM0 "reorder = 0.1 0\n", 4, "PROBABILITY DEPTH" },
	{ "fault_seed_word", SIM0 "fault_seed = x\n", 4, "fault_seed" },
	{ "fault_on_vfio", SIM0 "spec = vfio:0000:65:00.0\nloss = 0.1\n", 1,
	  "loss is for simulated devices only" },
	{ "rule_action", SIM0 "fault_rules = lose 1\n", 4, "ACTION NTH" },
	{ "rule_nth_0", SIM0 "fault_rules = drop 0\n", 4, "NTH >= 1" },
	{ "rule_field", SIM0 "fault_rules = drop 1 colour=2\n", 4, "ACTION NTH" },
	{ "rule_psn_big", SIM0 "fault_rules = drop 1 psn=0x1000000\n", 4, "psn and qpn" },
	{ "rule_depth_drop", SIM0 "fault_rules = drop 1 depth=2\n", 4, "ACTION NTH" },
	{ "rules_9", SIM0 "fault_rules = dup 1;dup 2;dup 3;dup 4;dup 5;dup 6;dup 7;dup 8;dup 9\n",
	  4, "at most 8 rules" },
};

static void test_errors(struct bench *b)
{
	struct hroce_config *cfg;
	char name[64], where[600];

	hroce_set_log(capture, NULL);
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		unsigned int before = messages;
		int err;

		snprintf(name, sizeof(name), "config_error_%s", c->name);
		last_msg[0] = 0;
		err = hroce_config_load_file(write_file(c->text), &cfg);
		snprintf(where, sizeof(where), "%s:%u: ", tmp_path, c->line);
		if (!err)
			hroce_config_free(cfg);
		bench_result(b, name,
			     err == EINVAL && messages > before &&
				     !strncmp(last_msg, where, strlen(where)) &&
				     strstr(last_msg, c->says),
			     "load returned %s, message \"%s\" (wanted \"%s...%s\")", strerror(err),
			     last_msg, where, c->says);
	}
	/* a file that is not there: its errno, and the path in the message */
	snprintf(where, sizeof(where), "%s.missing", tmp_path);
	setenv(HROCE_CONFIG_ENV, where, 1);
	last_msg[0] = 0;
	int err = hroce_config_load(&cfg);

	bench_result(b, "config_error_missing_file", err == ENOENT && strstr(last_msg, where),
		     "load returned %s, message \"%s\"", strerror(err), last_msg);
	unsetenv(HROCE_CONFIG_ENV);
	hroce_set_log(NULL, NULL);
}

/* hroce_open reads the configuration: a bad file fails it, once, saying where. */
static void test_open(struct bench *b)
{
	char where[600];
	unsigned int before;
	struct hroce_dev *dev;

	hroce_set_log(capture, NULL);
	setenv(HROCE_CONFIG_ENV, write_file(SIM0 "port = 3\n"), 1);
	before = messages;
	dev = hroce_open("sim:a", NULL);
	snprintf(where, sizeof(where), "%s:4: ", tmp_path);
	bench_result(b, "config_open_bad_file",
		     !dev && errno == EINVAL && messages == before + 1 &&
			     !strncmp(last_msg, where, strlen(where)),
		     "hroce_open: %s, %u messages, the last \"%s\"",
		     dev ? "opened" : strerror(errno), messages - before, last_msg);
	/* a device the configuration does not have: no NIC is made up */
	setenv(HROCE_CONFIG_ENV, write_file(SIM0), 1);
	dev = hroce_open("sim:b", NULL);
	bench_result(b, "config_open_unknown_device",
		     !dev && errno == ENODEV && strstr(last_msg, "sim:b") &&
			     strstr(last_msg, tmp_path),
		     "hroce_open: %s, message \"%s\"", dev ? "opened" : strerror(errno), last_msg);
	unsetenv(HROCE_CONFIG_ENV);
	hroce_set_log(NULL, NULL);
}

/* The fault keys, from the file and from $HROCE_FAULTS over it. */
static void test_faults(struct bench *b)
{
	const struct hroce_config_dev *d;
	struct hroce_config *cfg = NULL;
	const char *why = NULL;
	char where[64];
	int err;

	hroce_set_log(capture, NULL);
	setenv(HROCE_CONFIG_ENV,
	       write_file(SIM0 "loss = 0.25\nloss_burst = 0.01 0.3 0.9\nflip = 1e-3\n"
			       "dup = 0.5\nreorder = 0.125 3\nfault_seed = 42\n"
			       "fault_rules = drop 3 psn=5; delay 1 opcode=0x0a qpn=17 depth=2\n"
			       "[b]\nmac = 02:00:0a:00:00:02\nipv4 = 10.0.0.2\n"),
	       1);
	err = hroce_config_load(&cfg);
	d = err ? NULL : hroce_config_find(cfg, "a");
	if (!d)
		why = "the file was refused";
	else if (d->loss != 0.25 || d->burst_enter != 0.01 || d->burst_leave != 0.3 ||
		 d->burst_loss != 0.9 || d->burst_good_loss != 0 || d->flip != 1e-3 ||
		 d->dup != 0.5 || d->reorder != 0.125 || d->reorder_depth != 3 ||
		 d->fault_seed != 42)
		why = "the fault keys read wrong";
	else if (d->nfault_rules != 2 || d->fault_rules[0].action != HROCE_CONFIG_FAULT_DROP ||
		 d->fault_rules[0].nth != 3 || d->fault_rules[0].psn != 5 ||
		 d->fault_rules[0].opcode != HROCE_CONFIG_FAULT_ANY ||
		 d->fault_rules[0].dqpn != HROCE_CONFIG_FAULT_ANY ||
		 d->fault_rules[1].action != HROCE_CONFIG_FAULT_DELAY ||
		 d->fault_rules[1].nth != 1 || d->fault_rules[1].opcode != 0x0a ||
		 d->fault_rules[1].dqpn != 17 || d->fault_rules[1].depth != 2 ||
		 d->fault_rules[1].psn != HROCE_CONFIG_FAULT_ANY)
		why = "the fault rules read wrong";
	else if (!(d = hroce_config_find(cfg, "b")) || d->loss || d->flip || d->reorder ||
		 d->fault_seed != 1 || d->nfault_rules)
		why = "a device without fault keys has faults";
	hroce_config_free(cfg);
	cfg = NULL;
	/* the environment overrides them, for every simulated device */
	setenv(HROCE_FAULTS_ENV, "loss=0.5, reorder = 0.01 2,fault_seed=7", 1);
	err = why ? 0 : hroce_config_load(&cfg);
	if (!why && err)
		why = "$HROCE_FAULTS refused";
	for (int i = 0; !why && i < 2; i++) {
		d = hroce_config_find(cfg, i ? "b" : "a");
		if (d->loss != 0.5 || d->reorder != 0.01 || d->reorder_depth != 2 ||
		    d->fault_seed != 7 || d->dup != (i ? 0 : 0.5))
			why = "$HROCE_FAULTS not applied over the file";
	}
	hroce_config_free(cfg);
	bench_result(b, "config_faults", !why, "%s", why);
	/* a mistake in it fails the load, naming the variable and the setting */
	setenv(HROCE_FAULTS_ENV, "loss=0.1,mac=02:00:0a:00:00:09", 1);
	last_msg[0] = 0;
	err = hroce_config_load(&cfg);
	snprintf(where, sizeof(where), "$%s:2: ", HROCE_FAULTS_ENV);
	bench_result(b, "config_faults_env_refused",
		     err == EINVAL && !strncmp(last_msg, where, strlen(where)) &&
			     strstr(last_msg, "only the fault keys"),
		     "load returned %s, message \"%s\"", strerror(err), last_msg);
	if (!err)
		hroce_config_free(cfg);
	unsetenv(HROCE_FAULTS_ENV);
	unsetenv(HROCE_CONFIG_ENV);
	hroce_set_log(NULL, NULL);
}

struct sim_clock {
	uint64_t cycles, skipped;
};

static void clock_stat(void *ctx, const char *name, uint64_t value)
{
	struct sim_clock *c = ctx;

	if (!strcmp(name, "sim.cycles"))
		c->cycles = value;
	else if (!strcmp(name, "sim.cycles_skipped"))
		c->skipped = value;
}

static double wall_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The NIC that hroce_open makes, asked for an address nobody answers (its port is on no
 * wire): the core's requests go out REG_ARP_RETRY.TRIES times a second of simulated time
 * apart, then the lookup fails with EHOSTUNREACH. The NIC's clock must have jumped over
 * those seconds (to each retry, which the core reports in m_time_deadline), not evaluated
 * them: at a few hundred thousand cycles a second that would take most of an hour.
 */
static void test_arp_silent(struct bench *b)
{
	const uint64_t span = (uint64_t)HROCE_ARP_TRIES_DEFAULT * HROCE_ARP_INTERVAL_DEFAULT;
	struct sim_clock c0 = { 0 }, c1 = { 0 };
	struct hroce_dev *dev;
	uint8_t mac[6];
	double t0, wall;
	int err;

	hroce_set_log(capture, NULL);
	setenv(HROCE_CONFIG_ENV, write_file(SIM0), 1);
	dev = hroce_open("sim:a", NULL);
	if (!dev) {
		bench_result(b, "config_arp_silent", false, "hroce_open: %s", strerror(errno));
		goto out;
	}
	hroce_bus_stats(dev, clock_stat, &c0);
	last_msg[0] = 0;
	t0 = wall_seconds();
	err = hroce_resolve_mac(dev, 0x0a000063, mac);
	wall = wall_seconds() - t0;
	hroce_bus_stats(dev, clock_stat, &c1);
	/* what was evaluated, not jumped over: far less than one retry interval */
	bench_result(b, "config_arp_silent",
		     err == EHOSTUNREACH && strstr(last_msg, "no ARP reply from 10.0.0.99") &&
			     c1.cycles - c0.cycles >= span &&
			     (c1.cycles - c0.cycles) - (c1.skipped - c0.skipped) <
				     HROCE_ARP_INTERVAL_DEFAULT / 10,
		     "%s (\"%s\"); %llu cycles passed (%llu wanted), %llu of them evaluated",
		     strerror(err), last_msg, (unsigned long long)(c1.cycles - c0.cycles),
		     (unsigned long long)span,
		     (unsigned long long)((c1.cycles - c0.cycles) - (c1.skipped - c0.skipped)));
	bench_log(b, "config_arp_silent: %.3f s of simulated time in %.2f s of wall time",
		  (double)(c1.cycles - c0.cycles) / 250e6, wall);
	hroce_close(dev);
out:
	unsetenv(HROCE_CONFIG_ENV);
	hroce_set_log(NULL, NULL);
}

int main(int argc, char **argv)
{
	struct bench b;
	const char *dir = getenv("HROCE_TEST_TMP") ? getenv("HROCE_TEST_TMP") : "build";

	bench_init(&b, "test_config", argc, argv);
	snprintf(tmp_path, sizeof(tmp_path), "%s/test_config-%d.conf", dir, (int)getpid());
	test_defaults(&b);
	test_file(&b);
	test_example(&b);
	test_errors(&b);
	test_open(&b);
	test_faults(&b);
	test_arp_silent(&b);
	unlink(tmp_path);
	return bench_finish(&b);
}
