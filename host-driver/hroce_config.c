// SPDX-License-Identifier: MIT
/* The device configuration (hroce_config.h): built-in defaults, or an INI-like file. */
#include "hroce_config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hroce_priv.h"
#include "hroce_sim.h"

#define LINE_MAX_BYTES 1024

struct hroce_config {
	char *source;
	struct hroce_config_dev *devs;
	size_t n, cap;
};

static const struct hroce_config_dev sim_defaults = {
	.clock_mhz = 250,
	.pcie_read_ns = 200,
	.pcie_write_ns = 200,
	.pcie_gbps = 128,
	.pcie_reads = HROCE_CONFIG_PCIE_BURSTS_DEFAULT,
	.pcie_writes = HROCE_CONFIG_PCIE_BURSTS_DEFAULT,
	.link_ns = 100,
	.link_gbps = 100,
	.flash_time_divisor = 1,
	.fault_seed = 1,
};

static int add_dev(struct hroce_config *cfg, const struct hroce_config_dev *d)
{
	if (cfg->n == cfg->cap) {
		size_t cap = cfg->cap ? 2 * cfg->cap : 4;
		struct hroce_config_dev *devs = realloc(cfg->devs, cap * sizeof(*devs));

		if (!devs)
			return ENOMEM;
		cfg->devs = devs;
		cfg->cap = cap;
	}
	cfg->devs[cfg->n++] = *d;
	return 0;
}

static struct hroce_config *config_new(const char *source)
{
	struct hroce_config *cfg = calloc(1, sizeof(*cfg));

	if (!cfg)
		return NULL;
	cfg->source = strdup(source);
	if (!cfg->source) {
		free(cfg);
		return NULL;
	}
	return cfg;
}

void hroce_config_free(struct hroce_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->devs);
	free(cfg->source);
	free(cfg);
}

int hroce_config_defaults(struct hroce_config **out)
{
	struct hroce_config *cfg = config_new("built-in defaults");
	int err = cfg ? 0 : ENOMEM;

	for (unsigned int i = 0; i < 2 && !err; i++) {
		struct hroce_config_dev d = sim_defaults;

		snprintf(d.name, sizeof(d.name), "hroce%u", i);
		snprintf(d.spec, sizeof(d.spec), "sim:hroce%u", i);
		memcpy(d.mac, (const uint8_t[6]){ 0x02, 0x00, 0x0a, 0x00, 0x00, (uint8_t)(i + 1) },
		       6);
		d.ipv4 = 0x0a000001 + i;
		snprintf(d.wire, sizeof(d.wire), "hroce-wire0");
		d.port = i;
		err = add_dev(cfg, &d);
	}
	if (err) {
		hroce_config_free(cfg);
		return err;
	}
	*out = cfg;
	return 0;
}

/* ------------------------------------------------------------------------------------- */
/* The file */

struct parser {
	const char *path;
	unsigned int line;
	struct hroce_config *cfg;
	struct hroce_config_dev cur;
	bool in_section, has_mac, has_ipv4, has_spec;
	bool faults_only;  /* $HROCE_FAULTS */
	unsigned int seen; /* keys set in this section, one bit each */
};

static int bad(const struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(const struct parser *p, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	hroce_log(HROCE_LOG_ERR, "%s:%u: %s", p->path, p->line, msg);
	return EINVAL;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* Letters, digits, '-', '_' and '.', not starting with '.', of 1 to max - 1 bytes. */
static bool name_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (!n || n >= max || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
			return false;
	return true;
}

static bool parse_u32(const char *v, uint32_t max, uint32_t *out)
{
	unsigned long long x;
	char *end;

	if (!isdigit((unsigned char)*v))
		return false;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno || *end || x > max)
		return false;
	*out = (uint32_t)x;
	return true;
}

static bool parse_mac(const char *v, uint8_t mac[6])
{
	unsigned int b[6];
	char end;

	if (strlen(v) != 17 || sscanf(v, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
				      &b[4], &b[5], &end) != 6)
		return false;
	for (int i = 0; i < 6; i++) {
		if (!isxdigit((unsigned char)v[3 * i]) || !isxdigit((unsigned char)v[3 * i + 1]))
			return false;
		mac[i] = (uint8_t)b[i];
	}
	return true;
}

static bool spec_ok(const char *v)
{
	unsigned int dom, bus, dev, fn;
	char end;

	if (!strncmp(v, "sim:", 4))
		return name_ok(v + 4, 64);
	if (!strncmp(v, "vfio:", 5))
		return strlen(v) == 17 &&
		       sscanf(v + 5, "%4x:%2x:%2x.%1x%c", &dom, &bus, &dev, &fn, &end) == 4;
	return false;
}

static bool is_sim(const struct hroce_config_dev *d)
{
	return !strncmp(d->spec, "sim:", 4);
}

enum key_id {
	KEY_SPEC,
	KEY_MAC,
	KEY_IPV4,
	KEY_IPV6,
	KEY_WIRE,
	KEY_PORT,
	KEY_CLOCK,
	KEY_PCIE_READ,
	KEY_PCIE_WRITE,
	KEY_PCIE_GBPS,
	KEY_PCIE_READS,
	KEY_PCIE_WRITES,
	KEY_LINK_NS,
	KEY_LINK_GBPS,
	KEY_PCAP,
	KEY_MODEL,
	KEY_FLASH,
	KEY_FLASH_TIME_DIVISOR,
	KEY_LOSS, /* the faults, from here on */
	KEY_LOSS_BURST,
	KEY_FLIP,
	KEY_DUP,
	KEY_REORDER,
	KEY_FAULT_SEED,
	KEY_FAULT_RULES,
	KEY_COUNT,
};

static const char *const key_names[KEY_COUNT] = {
	[KEY_SPEC] = "spec",
	[KEY_MAC] = "mac",
	[KEY_IPV4] = "ipv4",
	[KEY_IPV6] = "ipv6",
	[KEY_WIRE] = "wire",
	[KEY_PORT] = "port",
	[KEY_CLOCK] = "clock_mhz",
	[KEY_PCIE_READ] = "pcie_read_ns",
	[KEY_PCIE_WRITE] = "pcie_write_ns",
	[KEY_PCIE_GBPS] = "pcie_gbps",
	[KEY_PCIE_READS] = "pcie_reads",
	[KEY_PCIE_WRITES] = "pcie_writes",
	[KEY_LINK_NS] = "link_ns",
	[KEY_LINK_GBPS] = "link_gbps",
	[KEY_PCAP] = "pcap",
	[KEY_MODEL] = "model",
	[KEY_FLASH] = "flash",
	[KEY_FLASH_TIME_DIVISOR] = "flash_time_divisor",
	[KEY_LOSS] = "loss",
	[KEY_LOSS_BURST] = "loss_burst",
	[KEY_FLIP] = "flip",
	[KEY_DUP] = "dup",
	[KEY_REORDER] = "reorder",
	[KEY_FAULT_SEED] = "fault_seed",
	[KEY_FAULT_RULES] = "fault_rules",
};

/* The keys that only a simulated device has (from wire on). */
#define KEY_FIRST_SIM KEY_WIRE

/* Up to max probabilities (at least min) separated by spaces, then a depth if depth. */
static bool parse_probs(const char *v, double *out, int min, int max, uint32_t *depth)
{
	char *end;
	int n;

	for (n = 0; n < max; n++) {
		while (isspace((unsigned char)*v))
			v++;
		if (!*v || (depth && n == max - 1 && n >= min))
			break;
		errno = 0;
		out[n] = strtod(v, &end);
		if (end == v || errno || !isfinite(out[n]) || out[n] < 0 || out[n] > 1)
			return false;
		v = end;
	}
	if (n < min)
		return false;
	while (isspace((unsigned char)*v))
		v++;
	if (depth)
		return parse_u32(v, 1000000, depth) && *depth;
	return !*v;
}

/* One rule: ACTION NTH [opcode=N] [psn=N] [qpn=N] [depth=N]; false with why. */
static bool parse_rule(char *text, struct hroce_config_fault_rule *r, const char **why)
{
	static const char *const actions[] = { "drop", "dup", "delay" };
	char *save = NULL, *word, *eq, *end;
	unsigned long long v;
	uint32_t *field;

	*r = (struct hroce_config_fault_rule){ .opcode = HROCE_CONFIG_FAULT_ANY,
					       .psn = HROCE_CONFIG_FAULT_ANY,
					       .dqpn = HROCE_CONFIG_FAULT_ANY };
	*why = "a rule is ACTION NTH [opcode=N] [psn=N] [qpn=N] [depth=N], ACTION drop, dup "
	       "or delay, NTH >= 1";
	word = strtok_r(text, " \t", &save);
	for (r->action = 0; word && r->action < 3 && strcmp(word, actions[r->action]); r->action++)
		;
	word = strtok_r(NULL, " \t", &save);
	if (r->action == 3 || !word || !parse_u32(word, UINT32_MAX - 1, &r->nth) || !r->nth)
		return false;
	while ((word = strtok_r(NULL, " \t", &save))) {
		eq = strchr(word, '=');
		if (!eq)
			return false;
		*eq = 0;
		if (!strcmp(word, "opcode"))
			field = &r->opcode;
		else if (!strcmp(word, "psn"))
			field = &r->psn;
		else if (!strcmp(word, "qpn"))
			field = &r->dqpn;
		else if (!strcmp(word, "depth") && r->action == HROCE_CONFIG_FAULT_DELAY)
			field = &r->depth;
		else
			return false;
		errno = 0;
		v = strtoull(eq + 1, &end, 0);
		*why = "opcode is 0 to 255, psn and qpn 0 to 0xffffff, depth 1 to 1000000";
		if (!isdigit((unsigned char)eq[1]) || errno || *end ||
		    v > (field == &r->opcode  ? 255u
			 : field == &r->depth ? 1000000u
					      : 0xffffffu) ||
		    (field == &r->depth && !v))
			return false;
		*field = (uint32_t)v;
	}
	return true;
}

static int set_fault_rules(struct parser *p, const char *key, const char *v)
{
	struct hroce_config_dev *d = &p->cur;
	char *copy = strdup(v), *rule, *save = NULL;
	const char *why = NULL;

	if (!copy)
		return ENOMEM;
	d->nfault_rules = 0;
	for (rule = strtok_r(copy, ";", &save); rule && !why; rule = strtok_r(NULL, ";", &save)) {
		if (d->nfault_rules == HROCE_CONFIG_FAULT_RULES)
			why = "at most 8 rules";
		else if (!parse_rule(rule, &d->fault_rules[d->nfault_rules++], &why))
			break;
		else
			why = NULL;
	}
	free(copy);
	if (why)
		return bad(p, "%s \"%s\": %s", key, v, why);
	return 0;
}

static int set_fault_key(struct parser *p, int k, const char *key, const char *v)
{
	struct hroce_config_dev *d = &p->cur;
	double burst[4] = { 0, 0, 0, 0 };
	unsigned long long seed;
	char *end;

	switch (k) {
	case KEY_LOSS:
		if (!parse_probs(v, &d->loss, 1, 1, NULL))
			return bad(p, "%s \"%s\": a probability, from 0 to 1", key, v);
		return 0;
	case KEY_FLIP:
		if (!parse_probs(v, &d->flip, 1, 1, NULL))
			return bad(p, "%s \"%s\": a probability, from 0 to 1", key, v);
		return 0;
	case KEY_DUP:
		if (!parse_probs(v, &d->dup, 1, 1, NULL))
			return bad(p, "%s \"%s\": a probability, from 0 to 1", key, v);
		return 0;
	case KEY_LOSS_BURST:
		if (!parse_probs(v, burst, 3, 4, NULL))
			return bad(p,
				   "%s \"%s\": GOOD_TO_BAD BAD_TO_GOOD LOSS_BAD [LOSS_GOOD], "
				   "probabilities from 0 to 1",
				   key, v);
		d->burst_enter = burst[0];
		d->burst_leave = burst[1];
		d->burst_loss = burst[2];
		d->burst_good_loss = burst[3];
		return 0;
	case KEY_REORDER:
		if (!parse_probs(v, &d->reorder, 1, 2, &d->reorder_depth))
			return bad(p,
				   "%s \"%s\": PROBABILITY DEPTH (held back behind DEPTH >= 1 "
				   "later frames)",
				   key, v);
		return 0;
	case KEY_FAULT_RULES:
		return set_fault_rules(p, key, v);
	default: /* KEY_FAULT_SEED */
		errno = 0;
		seed = strtoull(v, &end, 0);
		if (!isdigit((unsigned char)*v) || errno || *end)
			return bad(p, "%s \"%s\": a whole number", key, v);
		d->fault_seed = seed;
		return 0;
	}
}

static int set_key(struct parser *p, const char *key, const char *v)
{
	struct hroce_config_dev *d = &p->cur;
	struct in_addr a;
	uint32_t *u32 = NULL, max = 1000000000u;
	bool nonzero;
	int k;

	for (k = 0; k < KEY_COUNT && strcmp(key, key_names[k]); k++)
		;
	if (k == KEY_COUNT)
		return bad(
			p,
			"unknown key \"%s\" (keys: spec, mac, ipv4, ipv6, wire, port, clock_mhz, "
			"pcie_read_ns, pcie_write_ns, pcie_gbps, pcie_reads, pcie_writes, link_ns, "
			"link_gbps, pcap, model, flash, flash_time_divisor, loss, "
			"loss_burst, flip, dup, reorder, fault_seed, fault_rules)",
			key);
	if ((p->seen & (1u << k)) && k != KEY_IPV6)
		return bad(p, "%s set twice in [%s]", key, d->name);
	if (p->faults_only && k < KEY_LOSS)
		return bad(p, "%s: only the fault keys may be set here", key);
	p->seen |= 1u << k;
	if (k >= KEY_LOSS)
		return set_fault_key(p, k, key, v);
	switch (k) {
	case KEY_SPEC:
		if (!spec_ok(v))
			return bad(p, "spec \"%s\": a device is sim:NAME or vfio:DDDD:BB:DD.F", v);
		snprintf(d->spec, sizeof(d->spec), "%s", v);
		p->has_spec = true;
		return 0;
	case KEY_MAC:
		if (!parse_mac(v, d->mac))
			return bad(p, "mac \"%s\": six hex bytes, 02:00:0a:00:00:01", v);
		p->has_mac = true;
		return 0;
	case KEY_IPV4:
		if (inet_pton(AF_INET, v, &a) != 1)
			return bad(p, "ipv4 \"%s\": a dotted quad, 10.0.0.1", v);
		d->ipv4 = ntohl(a.s_addr);
		p->has_ipv4 = true;
		return 0;
	case KEY_IPV6: {
		uint8_t a6[16];
		const char *why;

		if (inet_pton(AF_INET6, v, a6) != 1)
			return bad(p, "ipv6 \"%s\": an IPv6 address, 2001:db8::1", v);
		why = hroce_ipv6_unusable(a6);
		if (why)
			return bad(p, "ipv6 %s: %s cannot be a device's address", v, why);
		for (unsigned int i = 0; i < d->nipv6; i++)
			if (!memcmp(d->ipv6[i], a6, 16))
				return bad(p, "ipv6 %s twice in [%s]", v, d->name);
		if (d->nipv6 == HROCE_CONFIG_IPV6_MAX)
			return bad(p, "[%s]: more than %u ipv6 addresses", d->name,
				   HROCE_CONFIG_IPV6_MAX);
		memcpy(d->ipv6[d->nipv6++], a6, 16);
		return 0;
	}
	case KEY_WIRE:
		if (hroce_sim_ext_is_endpoint(v)) {
			char why[160];

			if (strlen(v) >= sizeof(d->wire) ||
			    hroce_sim_ext_check(v, why, sizeof(why)))
				return bad(p, "wire \"%s\": %s", v,
					   strlen(v) >= sizeof(d->wire) ? "too long" : why);
			snprintf(d->wire, sizeof(d->wire), "%s", v);
			return 0;
		}
		if (!name_ok(v, sizeof(d->wire)))
			return bad(p,
				   "wire \"%s\": 1 to %zu letters, digits, '-', '_' or '.' (a "
				   "name in /dev/shm), or an external port: udp:LHOST:LPORT,"
				   "RHOST:RPORT or tap:NAME",
				   v, sizeof(d->wire) - 1);
		snprintf(d->wire, sizeof(d->wire), "%s", v);
		return 0;
	case KEY_PORT:
		u32 = &d->port;
		max = 1;
		break;
	case KEY_CLOCK:
		u32 = &d->clock_mhz;
		max = 100000;
		break;
	case KEY_PCIE_READ:
		u32 = &d->pcie_read_ns;
		break;
	case KEY_PCIE_WRITE:
		u32 = &d->pcie_write_ns;
		break;
	case KEY_PCIE_GBPS:
		u32 = &d->pcie_gbps;
		max = 100000;
		break;
	case KEY_PCIE_READS:
		u32 = &d->pcie_reads;
		max = HROCE_CONFIG_PCIE_BURSTS_MAX;
		break;
	case KEY_PCIE_WRITES:
		u32 = &d->pcie_writes;
		max = HROCE_CONFIG_PCIE_BURSTS_MAX;
		break;
	case KEY_LINK_NS:
		u32 = &d->link_ns;
		break;
	case KEY_LINK_GBPS:
		u32 = &d->link_gbps;
		max = 100000;
		break;
	case KEY_PCAP:
		if (!*v || strlen(v) >= sizeof(d->pcap))
			return bad(p, "pcap: a path of 1 to %zu bytes", sizeof(d->pcap) - 1);
		snprintf(d->pcap, sizeof(d->pcap), "%s", v);
		return 0;
	case KEY_MODEL:
		if (!strcmp(v, "core"))
			d->model = HROCE_CONFIG_MODEL_CORE;
		else if (!strcmp(v, "shell"))
			d->model = HROCE_CONFIG_MODEL_SHELL;
		else
			return bad(p,
				   "model \"%s\": core (the core alone) or shell (the board "
				   "shell with the core inside)",
				   v);
		return 0;
	case KEY_FLASH:
		if (!*v || strlen(v) >= sizeof(d->flash))
			return bad(p, "flash: a path of 1 to %zu bytes", sizeof(d->flash) - 1);
		snprintf(d->flash, sizeof(d->flash), "%s", v);
		return 0;
	case KEY_FLASH_TIME_DIVISOR:
		u32 = &d->flash_time_divisor;
		max = 1000000;
		break;
	}
	/* a clock, and bursts in flight, of 0 would never move a byte; times are divided */
	nonzero = k == KEY_CLOCK || k == KEY_PCIE_READS || k == KEY_PCIE_WRITES ||
		  k == KEY_FLASH_TIME_DIVISOR;
	if (!parse_u32(v, max, u32) || (nonzero && !*u32))
		return bad(p, "%s \"%s\": a whole number from %u to %u", key, v, nonzero ? 1u : 0u,
			   max);
	return 0;
}

/* The section that ends: complete, and coherent with those before it. */
static int end_section(struct parser *p)
{
	struct hroce_config_dev *d = &p->cur;
	unsigned int line = p->line;
	int err = 0;

	if (!p->in_section)
		return 0;
	p->line = d->line;
	if (!p->has_spec)
		snprintf(d->spec, sizeof(d->spec), "sim:%s", d->name);
	if (!p->has_mac)
		err = bad(p, "[%s] has no mac", d->name);
	else if (!p->has_ipv4)
		err = bad(p, "[%s] has no ipv4", d->name);
	for (int k = KEY_FIRST_SIM; !err && k < KEY_COUNT; k++)
		if (!is_sim(d) && (p->seen & (1u << k)))
			err = bad(p, "[%s]: %s is for simulated devices only (spec %s)", d->name,
				  key_names[k], d->spec);
	if (!err && (*d->flash || (p->seen & (1u << KEY_FLASH_TIME_DIVISOR))) &&
	    d->model != HROCE_CONFIG_MODEL_SHELL)
		err = bad(p, "[%s]: %s is for model = shell only (the core alone has none)",
			  d->name, *d->flash ? "flash" : "flash_time_divisor");
	for (size_t i = 0; !err && i < p->cfg->n; i++) {
		const struct hroce_config_dev *o = &p->cfg->devs[i];

		if (!strcmp(o->spec, d->spec))
			err = bad(p, "[%s] is %s, as [%s] at line %u is", d->name, d->spec, o->name,
				  o->line);
		else if (*d->wire && !strcmp(o->wire, d->wire) && o->port == d->port)
			err = bad(p, "[%s] is on port %u of wire %s, as [%s] at line %u is",
				  d->name, d->port, d->wire, o->name, o->line);
	}
	err = err ?: add_dev(p->cfg, d);
	p->line = line;
	p->in_section = false;
	return err;
}

static int begin_section(struct parser *p, char *s)
{
	char *end = strchr(s, ']'), *name;

	if (!end || trim(end + 1)[0])
		return bad(p, "a section is [NAME]");
	*end = 0;
	name = trim(s + 1);
	if (!name_ok(name, sizeof(p->cur.name)))
		return bad(p, "device name \"%s\": 1 to %zu letters, digits, '-', '_' or '.'", name,
			   sizeof(p->cur.name) - 1);
	for (size_t i = 0; i < p->cfg->n; i++)
		if (!strcmp(p->cfg->devs[i].name, name))
			return bad(p, "[%s] again (first at line %u)", name, p->cfg->devs[i].line);
	p->cur = sim_defaults;
	snprintf(p->cur.name, sizeof(p->cur.name), "%s", name);
	p->cur.line = p->line;
	p->in_section = true;
	p->has_mac = p->has_ipv4 = p->has_spec = false;
	p->seen = 0;
	return 0;
}

static int parse_line(struct parser *p, char *line)
{
	char *hash = strchr(line, '#'), *eq, *s;

	if (hash)
		*hash = 0;
	s = trim(line);
	if (!*s)
		return 0;
	if (*s == '[') {
		int err = end_section(p);

		return err ?: begin_section(p, s);
	}
	eq = strchr(s, '=');
	if (!eq)
		return bad(p, "expected [NAME] or key = value, not \"%s\"", s);
	*eq = 0;
	if (!p->in_section)
		return bad(p, "%s = ... before any [NAME] section", trim(s));
	return set_key(p, trim(s), trim(eq + 1));
}

int hroce_config_load_file(const char *path, struct hroce_config **out)
{
	struct parser p = { .path = path };
	char line[LINE_MAX_BYTES];
	int err = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		err = errno;
		hroce_log(HROCE_LOG_ERR, "%s: cannot read the device configuration: %s", path,
			  strerror(err));
		return err;
	}
	p.cfg = config_new(path);
	if (!p.cfg) {
		fclose(f);
		return ENOMEM;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		p.line++;
		if (!strchr(line, '\n') && !feof(f)) {
			err = bad(&p, "a line longer than %d bytes", LINE_MAX_BYTES - 2);
			break;
		}
		err = parse_line(&p, line);
	}
	if (!err && ferror(f))
		err = bad(&p, "read error");
	err = err ?: end_section(&p);
	if (!err && !p.cfg->n) {
		p.line = 0;
		err = bad(&p, "no device ([NAME] sections) in the file");
	}
	fclose(f);
	if (err) {
		hroce_config_free(p.cfg);
		return err;
	}
	*out = p.cfg;
	return 0;
}

/* $HROCE_FAULTS: KEY=VALUE,... over the fault keys of every simulated device. */
static int faults_override(struct hroce_config *cfg, const char *env)
{
	struct parser p = { .path = "$" HROCE_FAULTS_ENV, .cfg = cfg, .faults_only = true };
	char *copy, *item, *save = NULL, *eq;
	int err = 0;

	for (size_t i = 0; i < cfg->n && !err; i++) {
		if (!is_sim(&cfg->devs[i]))
			continue;
		copy = strdup(env);
		if (!copy)
			return ENOMEM;
		p.cur = cfg->devs[i];
		p.seen = 0;
		p.line = 0;
		for (item = strtok_r(copy, ",", &save); item && !err;
		     item = strtok_r(NULL, ",", &save)) {
			p.line++; /* the setting's place in the list */
			eq = strchr(item, '=');
			if (!eq) {
				err = bad(&p, "expected KEY=VALUE, not \"%s\"", trim(item));
				break;
			}
			*eq = 0;
			err = set_key(&p, trim(item), trim(eq + 1));
		}
		free(copy);
		if (!err)
			cfg->devs[i] = p.cur;
	}
	return err;
}

int hroce_config_load(struct hroce_config **cfg)
{
	const char *path = getenv(HROCE_CONFIG_ENV), *faults = getenv(HROCE_FAULTS_ENV);
	int err;

	if (path && *path)
		err = hroce_config_load_file(path, cfg);
	else
		err = hroce_config_defaults(cfg);
	if (err || !faults || !*faults)
		return err;
	err = faults_override(*cfg, faults);
	if (err) {
		hroce_config_free(*cfg);
		*cfg = NULL;
	}
	return err;
}

/* ------------------------------------------------------------------------------------- */

const char *hroce_config_source(const struct hroce_config *cfg)
{
	return cfg->source;
}

size_t hroce_config_count(const struct hroce_config *cfg)
{
	return cfg->n;
}

const struct hroce_config_dev *hroce_config_dev(const struct hroce_config *cfg, size_t i)
{
	return i < cfg->n ? &cfg->devs[i] : NULL;
}

const struct hroce_config_dev *hroce_config_find(const struct hroce_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->n; i++)
		if (!strcmp(cfg->devs[i].name, name))
			return &cfg->devs[i];
	errno = ENOENT;
	return NULL;
}

const struct hroce_config_dev *hroce_config_find_spec(const struct hroce_config *cfg,
						      const char *spec)
{
	for (size_t i = 0; i < cfg->n; i++)
		if (!strcmp(cfg->devs[i].spec, spec))
			return &cfg->devs[i];
	errno = ENOENT;
	return NULL;
}
