// SPDX-License-Identifier: MIT
/*
 * hroce-lat: a latency study of the core, cycle-accurate, over a sweep of one parameter.
 *
 * usage: hroce-lat [-o DIR] [-n N] [-f FILE] [--no-plot] SCENARIO [NAME=V[,V...]]...
 *
 * Two simulated NICs in this process on one link (the system benches' environment), one
 * QP pair per QP asked for, one message at a time: WRITE one way (doorbell write to the
 * data in the responder's memory), SEND one way (to the receive completion in the
 * responder's memory), READ round trip (to the data in the requester's memory) or SEND
 * ping-pong (the responder's host answers as soon as it polls the first: to the answer's
 * receive completion; half of it is what ib_send_lat calls latency). Each
 * message is taken apart stage by stage from the NICs' events and their cores' trace ports
 * (lat_points.h). A point of the sweep runs a message on each QP (4 at least) to warm
 * the caches, then N (-n, 100), message i on QP i mod qps, and prints min, median, p99 and max, and
 * the mean of each stage in ns and cycles. DIR (-o, hroce-lat.out) gets points.csv (a row a point),
 * samples.csv (a row a message), cdf.dat, plot.gp and what gnuplot makes of them:
 * latency.{png,svg} (median, min to p99, against the parameter), stages.{png,svg} (the
 * stages' means stacked, a bar a point) and cdf.{png,svg}.
 *
 * The world runs only when this program lets it (one process, no thread), so a run gives
 * the same simulated times, bit for bit, every time it is run with the same arguments.
 * The perftest scenario instead runs Debian's ib_send_lat between two processes through
 * hroce-run, in lockstep, which is reproducible too (lat_perftest.h).
 *
 * Parameters (NAME=V or NAME=V1,V2,...; one of them may have several values, the sweep;
 * -f FILE: one NAME=V... a line, # comments, before those of the command line):
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "hroce_contract.h"
#include "lat_perftest.h"
#include "lat_points.h"
#include "rc_env.h"

#define MAX_VALUES 32
#define WARM 4 /* at least; and a message on every QP */
#define WAIT_NS 10000000ull

struct param {
	const char *name;
	const char *what;
	double v[MAX_VALUES];
	int n;
};

static struct param params[] = {
	{ "pcie_ns", "PCIe latency one way, both directions (ns)", { 0 }, 0 },
	{ "pcie_read_ns", "PCIe latency of the core's reads, one way (ns)", { 200 }, 1 },
	{ "pcie_write_ns", "PCIe latency of writes, one way (ns)", { 200 }, 1 },
	{ "pcie_gbps", "PCIe bandwidth (Gb/s; 0: the AXI bus's)", { 0 }, 1 },
	{ "link_ns", "link latency: MAC, PHY and cable (ns)", { 100 }, 1 },
	{ "link_gbps", "link rate (Gb/s)", { 100 }, 1 },
	{ "mhz", "the cores' clock (MHz)", { 250 }, 1 },
	{ "mtu", "path MTU (256, 512, 1024, 2048, 4096)", { 4096 }, 1 },
	{ "size", "message bytes", { 8 }, 1 },
	{ "qps", "QP pairs the messages take in turn", { 1 }, 1 },
	{ "inline", "1: the payload in the WQE (up to 64 bytes; WRITE and SEND)", { 1 }, 1 },
	{ "quantum_ns",
	  "perftest: lockstep's quantum (ns, at most link_ns; 0: link_ns)",
	  { 20 },
	  1 },
};

enum {
	P_PCIE,
	P_PCIE_READ,
	P_PCIE_WRITE,
	P_PCIE_GBPS,
	P_LINK,
	P_LINK_GBPS,
	P_MHZ,
	P_MTU,
	P_SIZE,
	P_QPS,
	P_INLINE,
	P_QUANTUM,
	P_COUNT
};

struct scenario {
	const char *name;
	const char *what;
	const struct point *points;
	const int *npoints;
	bool perftest; /* two processes (lat_perftest.h), not two NICs of this one */
};

static const struct scenario scenarios[] = {
	{ "write", "RDMA WRITE one way: doorbell write to the data in the responder's memory",
	  lat_write_points, &lat_write_npoints, false },
	{ "send", "SEND one way: doorbell write to the receive completion in memory",
	  lat_send_points, &lat_send_npoints, false },
	{ "read", "RDMA READ round trip: doorbell write to the data in the requester's memory",
	  lat_read_points, &lat_read_npoints, false },
	{ "pingpong",
	  "SEND ping-pong, as ib_send_lat: doorbell write to the answer's receive completion "
	  "in memory (half of it is perftest's latency)",
	  lat_pingpong_points, &lat_pingpong_npoints, false },
	{ "perftest",
	  "Debian's ib_send_lat between two processes through hroce-run, in lockstep: the "
	  "client's SEND to its next (half of it is perftest's latency), from the pcaps",
	  lat_perftest_points, &lat_perftest_npoints, true },
};

static void usage(void)
{
	fprintf(stderr, "usage: hroce-lat [-o DIR] [-n N] [-f FILE] [--no-plot] SCENARIO "
			"[NAME=V[,V...]]...\nscenarios:\n");
	for (int i = 0; i < ARRAY_LEN(scenarios); i++)
		fprintf(stderr, "  %-9s %s\n", scenarios[i].name, scenarios[i].what);
	fprintf(stderr, "parameters (one may have several values):\n");
	for (int i = 0; i < P_COUNT; i++)
		fprintf(stderr, "  %-14s %s%s\n", params[i].name, params[i].what,
			i == P_PCIE ? " (sets both below)" : "");
	exit(2);
}

/* NAME=V[,V...]: false with a message if it is not one. */
static bool set_param(const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *end;

	for (int i = 0; eq && i < P_COUNT; i++) {
		struct param *p = &params[i];
		const char *s = eq + 1;

		if (strlen(p->name) != (size_t)(eq - arg) || strncmp(arg, p->name, eq - arg))
			continue;
		p->n = 0;
		do {
			if (p->n == MAX_VALUES) {
				fprintf(stderr, "hroce-lat: %s: more than %d values\n", p->name,
					MAX_VALUES);
				return false;
			}
			errno = 0;
			p->v[p->n++] = strtod(s, &end);
			if (end == s || errno || p->v[p->n - 1] < 0) {
				fprintf(stderr, "hroce-lat: %s: \"%s\" is not a number >= 0\n",
					p->name, s);
				return false;
			}
			s = end + 1;
		} while (*end == ',');
		if (*end) {
			fprintf(stderr, "hroce-lat: %s: what follows the values: \"%s\"\n", p->name,
				end);
			return false;
		}
		/* both directions: its values are theirs (it keeps none of its own) */
		for (int d = P_PCIE_READ; i == P_PCIE && d <= P_PCIE_WRITE; d++) {
			memcpy(params[d].v, p->v, sizeof(p->v));
			params[d].n = p->n;
		}
		if (i == P_PCIE)
			p->n = 0;
		return true;
	}
	fprintf(stderr, "hroce-lat: \"%s\" is not NAME=VALUE of a parameter (hroce-lat -h)\n", arg);
	return false;
}

static bool read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	bool ok = true;

	if (!f) {
		fprintf(stderr, "hroce-lat: %s: %s\n", path, strerror(errno));
		return false;
	}
	while (ok && fgets(line, sizeof(line), f)) {
		char *s = line, *e;

		line[strcspn(line, "#\n")] = 0;
		while (*s == ' ' || *s == '\t')
			s++;
		for (e = s + strlen(s); e > s && (e[-1] == ' ' || e[-1] == '\t');)
			*--e = 0;
		if ((e = strchr(s, '=')) != NULL) { /* NAME = V, as NAME=V */
			char *v = e + 1, *n = e;

			while (n > s && (n[-1] == ' ' || n[-1] == '\t'))
				n--;
			while (*v == ' ' || *v == '\t')
				v++;
			*n++ = '=';
			memmove(n, v, strlen(v) + 1);
		}
		if (*s)
			ok = set_param(s);
	}
	fclose(f);
	return ok;
}

/* One point of the sweep: each parameter's value. */
struct setup {
	double v[P_COUNT];
};

static enum hroce_mtu mtu_of(double bytes)
{
	switch ((int)bytes) {
	case 256:
		return HROCE_MTU_256;
	case 512:
		return HROCE_MTU_512;
	case 1024:
		return HROCE_MTU_1024;
	case 2048:
		return HROCE_MTU_2048;
	default:
		return HROCE_MTU_4096;
	}
}

struct run {
	const struct scenario *sc;
	int n;	       /* messages measured */
	double *total; /* [n] ns */
	double *steps; /* [n][MAX_POINTS] ns, step i from point i-1 to point i */
	double mhz;
};

static struct ev_log logs[2];

static bool post_recv(struct hroce_qp *qp, struct hroce_mr *mr, uint8_t *p, uint32_t size)
{
	struct hroce_sge sge = { (uintptr_t)p, size, hroce_mr_lkey(mr) };
	struct hroce_recv_wr wr = { 0, NULL, &sge, 1 }, *bad;

	if (hroce_post_recv(qp, &wr, &bad)) {
		fprintf(stderr, "hroce-lat: post_recv: %s\n", strerror(errno));
		return false;
	}
	return true;
}

static bool post_send(struct hroce_qp *qp, const struct hroce_send_wr *tmpl, struct hroce_mr *mr,
		      uint8_t *p, uint32_t size)
{
	struct hroce_sge sge = { (uintptr_t)p, size, hroce_mr_lkey(mr) };
	struct hroce_send_wr wr = *tmpl, *bad;

	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (hroce_post_send(qp, &wr, &bad)) {
		fprintf(stderr, "hroce-lat: post_send: %s\n", strerror(errno));
		return false;
	}
	return true;
}

/* One completion of cq if there is one: 1 (0 if none); -1 if it is not a success. */
static int poll_one(struct hroce_cq *cq)
{
	struct hroce_wc wc;
	int got = hroce_poll_cq(cq, 1, &wc);

	return got == 1 && wc.status != HROCE_WC_SUCCESS ? -1 : got;
}

static uint64_t iova_of(struct hroce_mr *mr, const uint8_t *base, const uint8_t *p)
{
	uint64_t iova, len;

	hroce_mr_mapping(mr, &iova, &len);
	return iova + ((uintptr_t)base & 4095) + (uint64_t)(p - base);
}

/*
 * The NICs quiet, then one message on QP pair qp (a ping-pong: one each way, node 1's
 * posted as soon as its host finds the first received); its points' times into t. Each
 * node's buffer: what it sends from its first half, what it receives into its second.
 */
static bool one_message(struct env *e, const struct run *r, const struct setup *s,
			struct qp_pair *qp, struct hroce_mr *mr[2], uint8_t *buf[2], size_t half,
			int it, uint64_t *t)
{
	uint32_t size = (uint32_t)s->v[P_SIZE];
	const char *name = r->sc->name;
	bool read = !strcmp(name, "read"), pingpong = !strcmp(name, "pingpong");
	bool send = pingpong || !strcmp(name, "send");
	/* the data goes from src's buffer to dst's (and back, for a ping-pong) */
	int src = read ? 1 : 0, dst = 1 - src;
	uint8_t *from = buf[src], *to = buf[dst] + half, *back = buf[0] + half;
	struct hroce_send_wr wr = {
		.wr_id = (uint64_t)it,
		.opcode = read	 ? HROCE_WR_RDMA_READ
			  : send ? HROCE_WR_SEND
				 : HROCE_WR_RDMA_WRITE,
		.send_flags = HROCE_SEND_SIGNALED |
			      (!read && s->v[P_INLINE] != 0 && size <= 64 ? HROCE_SEND_INLINE : 0),
		.remote_addr = (uintptr_t)(read ? buf[1] : buf[1] + half),
		.rkey = hroce_mr_rkey(mr[1]),
	};
	/* completions still to come: node 0's send and receive, node 1's receive and send */
	int left[4] = { 1, pingpong, send, pingpong }, done = 0, want = 1 + pingpong * 2 + send;
	struct hroce_cq *cqs[4] = { e->n[0].scq, e->n[0].rcq, e->n[1].rcq, e->n[1].scq };
	uint64_t end;
	bool ok;

	for (uint32_t i = 0; i < size; i++)
		from[i] = (uint8_t)(i * 7 + it);
	memset(to, 0, size);
	memset(back, 0, size);
	ok = (!send || post_recv(qp->qp[1], mr[1], to, size)) &&
	     (!pingpong || post_recv(qp->qp[0], mr[0], back, size));
	for (int i = 0; i < 200; i++)
		env_idle(e);
	logs[0].n = logs[1].n = 0;
	ok = ok && post_send(qp->qp[0], &wr, mr[0], read ? buf[0] + half : from, size);
	end = env_ns(e) + WAIT_NS;
	while (ok && done < want && env_ns(e) < end) {
		env_idle(e);
		for (int q = 0; q < 4 && ok; q++) {
			int got = left[q] ? poll_one(cqs[q]) : 0;

			ok = got >= 0;
			left[q] -= got > 0;
			done += got > 0;
			/* node 1's host answers a ping as soon as it finds it */
			if (got > 0 && q == 2 && pingpong)
				ok = post_send(qp->qp[1], &wr, mr[1], to, size);
		}
	}
	if (!ok || done < want || memcmp(read ? buf[0] + half : to, from, size) ||
	    (pingpong && memcmp(back, from, size))) {
		fprintf(stderr,
			"hroce-lat: message %d: no successful completion, or its data did not "
			"arrive\n",
			it);
		return false;
	}
	if (logs[0].full || logs[1].full) {
		fprintf(stderr, "hroce-lat: message %d: more than %d events\n", it, EV_MAX);
		return false;
	}
	struct lat_range data[2] = { { 0, 0 }, { 0, 0 } };

	if (read)
		data[0] = (struct lat_range){ iova_of(mr[0], buf[0], buf[0] + half), size };
	else
		data[1] = (struct lat_range){ iova_of(mr[1], buf[1], to), size };
	if (pingpong)
		data[0] = (struct lat_range){ iova_of(mr[0], buf[0], back), size };
	if (!lat_find((struct ev_log *[2]){ &logs[0], &logs[1] }, r->sc->points, *r->sc->npoints,
		      data, t)) {
		fprintf(stderr, "hroce-lat: message %d: an event of its way is missing\n", it);
		return false;
	}
	return true;
}

/* One point of the sweep: a world of its own, its warm-up, then r->n messages. */
static bool run_point(struct bench *b, const struct setup *s, struct run *r)
{
	struct env_params p = {
		.pcie_read_ns = (uint32_t)s->v[P_PCIE_READ],
		.pcie_write_ns = (uint32_t)s->v[P_PCIE_WRITE],
		.pcie_gbps = (uint32_t)s->v[P_PCIE_GBPS],
		.link_ns = (uint32_t)s->v[P_LINK],
		.link_gbps = (uint32_t)s->v[P_LINK_GBPS],
		.mhz = (uint32_t)s->v[P_MHZ],
	};
	const unsigned int access =
		HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE | HROCE_ACCESS_REMOTE_READ;
	const struct qp_caps caps = { 16, 16, 1, 1, 64 };
	int qps = s->v[P_QPS] < 1 ? 1 : (int)s->v[P_QPS];
	size_t half = ((size_t)s->v[P_SIZE] + 4095) & ~(size_t)4095, len = 2 * half;
	struct qp_pair *qp = calloc((size_t)qps, sizeof(*qp));
	struct hroce_mr *mr[2] = { 0 };
	uint8_t *buf[2] = { 0 };
	uint64_t t[MAX_POINTS];
	struct env e;
	bool ok = qp != NULL;

	while ((1u << p.log_qps) < (unsigned int)qps + 2)
		p.log_qps++;
	if (p.log_qps < 6)
		p.log_qps = 0;
	r->mhz = p.mhz;
	bench_seed(b, 1);
	env_open(&e, b, &p);
	for (int i = 0; i < 2 && ok; i++) {
		buf[i] = env_alloc(len);
		mr[i] = hroce_reg_mr(e.n[i].pd, buf[i], len, access, 0);
		ok = mr[i] != NULL;
	}
	for (int i = 0; i < qps && ok; i++)
		ok = qp_pair_open(&e, &qp[i], mtu_of(s->v[P_MTU]), &caps, access) == 0;
	if (!ok)
		fprintf(stderr, "hroce-lat: setup: %s\n", strerror(errno));
	for (int i = 0; i < 2; i++)
		hroce_sim_set_observer(e.n[i].sim, ev_observe, &logs[i]);
	int warm = qps > WARM ? qps : WARM;

	for (int it = 0; it < warm + r->n && ok; it++) {
		int m = it - warm;

		ok = one_message(&e, r, s, &qp[it % qps], mr, buf, half, it, t);
		if (!ok || m < 0)
			continue;
		r->total[m] = (double)(t[*r->sc->npoints - 1] - t[0]);
		for (int i = 1; i < *r->sc->npoints; i++)
			r->steps[m * MAX_POINTS + i] = (double)(t[i] - t[i - 1]);
	}
	for (int i = 0; i < 2; i++)
		hroce_sim_set_observer(e.n[i].sim, NULL, NULL);
	for (int i = 0; i < qps && qp; i++)
		qp_pair_close(&qp[i]);
	for (int i = 0; i < 2; i++) {
		if (mr[i])
			hroce_dereg_mr(mr[i]);
		free(buf[i]);
	}
	env_close(&e);
	free(qp);
	return ok;
}

/* One point of the perftest scenario: a pair of processes of its own. */
static bool perftest_point(const char *dir, int k, const struct setup *s, struct run *r)
{
	const struct lat_perftest_setup ps = {
		.mhz = (unsigned int)s->v[P_MHZ],
		.pcie_read_ns = (unsigned int)s->v[P_PCIE_READ],
		.pcie_write_ns = (unsigned int)s->v[P_PCIE_WRITE],
		.pcie_gbps = (unsigned int)s->v[P_PCIE_GBPS],
		.link_ns = (unsigned int)s->v[P_LINK],
		.link_gbps = (unsigned int)s->v[P_LINK_GBPS],
		.mtu = (unsigned int)s->v[P_MTU],
		.size = (unsigned int)s->v[P_SIZE],
		.no_inline = s->v[P_INLINE] == 0,
		.quantum_ns = (unsigned int)s->v[P_QUANTUM],
	};

	if (s->v[P_QPS] != 1) {
		fprintf(stderr, "hroce-lat: perftest: ib_send_lat runs one QP (qps=1)\n");
		return false;
	}
	r->mhz = ps.mhz;
	return lat_perftest_run(dir, k, &ps, WARM, r->n, r->total, r->steps);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct stats {
	double min, median, p99, max, mean;
};

/* sorts v */
static struct stats stats_of(double *v, int n)
{
	struct stats st = { 0 };

	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	st.min = v[0];
	st.max = v[n - 1];
	st.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	st.p99 = v[(int)ceil(0.99 * n) - 1];
	for (int i = 0; i < n; i++)
		st.mean += v[i] / n;
	return st;
}

static FILE *open_out(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "hroce-lat: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return f;
}

static const char *const colours[16] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
	"#bcbd22", "#17becf", "#393b79", "#ad494a", "#8ca252", "#e7ba52", "#7b4173", "#3182bd",
};

/* The gnuplot script of the three plots, each as PNG and SVG. */
static void write_plot(const char *dir, const struct scenario *sc, const char *xname,
		       const double *xs, int npts)
{
	FILE *f = open_out(dir, "plot.gp");
	int np = *sc->npoints;

	fprintf(f, "# hroce-lat: %s; run: gnuplot plot.gp (in this directory)\n", sc->name);
	fprintf(f, "set datafile separator ','\nset key outside right top\nset grid\n"
		   "set offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05\n");
	/* a colour a stage: 16 told apart */
	for (int i = 0; i < 16; i++)
		fprintf(f, "set linetype %d lc rgb '%s'\n", i + 1, colours[i]);
	for (int fmt = 0; fmt < 2; fmt++) {
		const char *term = fmt ? "svg size 960,540 dynamic" : "pngcairo size 960,540";
		const char *ext = fmt ? "svg" : "png";

		fprintf(f, "\nset terminal %s noenhanced\n", term);
		fprintf(f, "set output 'latency.%s'\nset title '%s: median, min to p99'\n", ext,
			sc->name);
		fprintf(f, "set xlabel '%s'\nset ylabel 'ns'\nset style data yerrorlines\n", xname);
		fprintf(f, "plot 'points.csv' using 2:5:4:6 skip 1 title 'latency' lw 2 pt 7\n");
		fprintf(f, "set output 'stages.%s'\nset title '%s: the stages (means)'\n", ext,
			sc->name);
		fprintf(f,
			"set yrange [0:*]\nset offsets 0, 0, graph 0.05, 0\nset style data histograms\nset style histogram rowstacked\n"
			"set style fill solid 0.8 border -1\nset boxwidth 0.7\n"
			"set xlabel '%s'\nset ylabel 'ns'\n",
			xname);
		fprintf(f,
			"plot for [i=%d:%d] 'points.csv' using i:xticlabels(2) title "
			"columnheader(i)\n",
			9, 9 + np - 2);
		fprintf(f, "set output 'cdf.%s'\nset title '%s: distribution'\n", ext, sc->name);
		fprintf(f, "set xlabel 'ns'\nset ylabel 'fraction of messages'\nset yrange [0:1]\n"
			   "set datafile separator whitespace\n");
		fprintf(f, "plot ");
		for (int k = 0; k < npts; k++)
			fprintf(f, "%s'cdf.dat' index %d using 1:2 with steps lw 2 title '%s=%g'",
				k ? ", " : "", k, xname, xs[k]);
		fprintf(f, "\nset datafile separator ','\nunset yrange\nset style data lines\n"
			   "set offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05\n");
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	const char *dir = "hroce-lat.out", *xname = NULL;
	const struct scenario *sc = NULL;
	bool plot = true;
	int n = 100, sweep = -1;
	struct bench b = { 0 }; /* each point seeds it */
	FILE *points, *samples, *cdf;
	bool ok = true;

	bench_same_addresses(argv);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-f") && i + 1 < argc) {
			if (!read_file(argv[++i]))
				return 2;
		} else if (!strcmp(argv[i], "--no-plot"))
			plot = false;
		else if (argv[i][0] == '-')
			usage();
		else if (!sc) {
			for (int k = 0; k < ARRAY_LEN(scenarios); k++)
				if (!strcmp(argv[i], scenarios[k].name))
					sc = &scenarios[k];
			if (!sc) {
				fprintf(stderr, "hroce-lat: no scenario \"%s\"\n", argv[i]);
				usage();
			}
		} else if (!set_param(argv[i]))
			return 2;
	}
	if (!sc || n < 1)
		usage();
	/* the swept parameter: the one with several values (pcie_ns: both directions alike) */
	for (int i = 0; i < P_COUNT; i++) {
		bool pcie = sweep == P_PCIE_READ && i == P_PCIE_WRITE &&
			    params[i].n == params[sweep].n &&
			    !memcmp(params[i].v, params[sweep].v, sizeof(params[i].v));

		if (params[i].n > 1 && sweep >= 0 && !pcie) {
			fprintf(stderr,
				"hroce-lat: %s and %s both have several values: sweep one "
				"parameter at a time\n",
				params[sweep].name, params[i].name);
			return 2;
		}
		if (pcie)
			xname = params[P_PCIE].name;
		else if (params[i].n > 1)
			sweep = i;
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "hroce-lat: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	if (!xname)
		xname = sweep < 0 ? "size" : params[sweep].name;

	int npts = sweep < 0 ? 1 : params[sweep].n, np = *sc->npoints;
	double xs[MAX_VALUES];
	struct run r = { sc, n, calloc((size_t)n, sizeof(double)),
			 calloc((size_t)n * MAX_POINTS, sizeof(double)), 0 };

	printf("hroce-lat %s: %s\n", sc->name, sc->what);
	printf("setup:");
	for (int i = 1; i < P_COUNT; i++) {
		if (params[i].n > 1)
			printf(" %s=(swept)", params[i].name);
		else
			printf(" %s=%g", params[i].name, params[i].v[0]);
	}
	if (sc->perftest)
		printf("; %d messages a point after %d to warm up; two processes in lockstep, "
		       "the same times every run\n",
		       n, WARM);
	else
		printf("; %d messages a point after one on each QP (4 at least) to warm up; one "
		       "process, the same times every run\n",
		       n);
	points = open_out(dir, "points.csv");
	samples = open_out(dir, "samples.csv");
	cdf = open_out(dir, "cdf.dat");
	fprintf(points, "param,%s,messages,min_ns,median_ns,p99_ns,max_ns,mean_ns", xname);
	fprintf(samples, "%s,message,total_ns", xname);
	for (int i = 1; i < np; i++) {
		fprintf(points, ",%s", sc->points[i].name);
		fprintf(samples, ",%s", sc->points[i].name);
	}
	fprintf(points, "\n");
	fprintf(samples, "\n");
	for (int k = 0; k < npts && ok; k++) {
		struct setup s;
		struct stats st;
		double mean[MAX_POINTS] = { 0 };

		for (int i = 0; i < P_COUNT; i++)
			s.v[i] = params[i].v[params[i].n > 1 ? k : 0];
		xs[k] = sweep < 0 ? s.v[P_SIZE] : params[sweep].v[k];
		ok = sc->perftest ? perftest_point(dir, k, &s, &r) : run_point(&b, &s, &r);
		if (!ok)
			break;
		for (int m = 0; m < n; m++) {
			fprintf(samples, "%g,%d,%.0f", xs[k], m, r.total[m]);
			for (int i = 1; i < np; i++) {
				mean[i] += r.steps[m * MAX_POINTS + i] / n;
				fprintf(samples, ",%.0f", r.steps[m * MAX_POINTS + i]);
			}
			fprintf(samples, "\n");
		}
		st = stats_of(r.total, n);
		fprintf(cdf, "# %s=%g\n", xname, xs[k]);
		for (int m = 0; m < n; m++)
			fprintf(cdf, "%.0f %.4f\n", r.total[m], (m + 1.0) / n);
		fprintf(cdf, "\n\n");
		fprintf(points, "%s,%g,%d,%.0f,%.1f,%.0f,%.0f,%.1f", xname, xs[k], n, st.min,
			st.median, st.p99, st.max, st.mean);
		printf("\n%s=%g: min %.0f ns, median %.1f, p99 %.0f, max %.0f (mean %.1f)\n", xname,
		       xs[k], st.min, st.median, st.p99, st.max, st.mean);
		printf("  %-36s %10s %10s\n", "stage (the step to it, mean)", "ns", "cycles");
		for (int i = 1; i < np; i++) {
			fprintf(points, ",%.1f", mean[i]);
			printf("  %-36s %10.1f %10.1f\n", sc->points[i].name, mean[i],
			       mean[i] * r.mhz / 1000.0);
		}
		fprintf(points, "\n");
	}
	fclose(points);
	fclose(samples);
	fclose(cdf);
	if (!ok)
		return 1;
	write_plot(dir, sc, xname, xs, npts);
	if (plot) {
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "cd '%s' && gnuplot plot.gp", dir);
		if (system(cmd) != 0) {
			fprintf(stderr,
				"hroce-lat: gnuplot failed (is it installed? make deps installs "
				"gnuplot-nox; --no-plot skips the plots)\n");
			return 1;
		}
		printf("\nplots: %s/latency.png, stages.png, cdf.png (and .svg)\n", dir);
	}
	printf("data: %s/points.csv, samples.csv, cdf.dat; plot.gp draws them\n", dir);
	free(r.total);
	free(r.steps);
	return 0;
}
