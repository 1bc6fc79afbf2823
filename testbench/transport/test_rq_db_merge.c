// SPDX-License-Identifier: MIT
/*
 * Bench of rq_db_merge (rtl/transport), the responder's RQ doorbells merged by QP until the
 * control writes them into their contexts.
 *
 * At the core's size (16 entries) and tiny (4). Each cycle offers a doorbell of one of a
 * few more QPs than entries (so that the table fills), queries a QP and takes its entry or
 * not, takes the drained entry or not, and holds the table (a command) now and then, all
 * at random. A C model of the contract says, cycle by cycle, what every output must be:
 * a doorbell is taken unless hold is high or the table is full without its QP; it replaces
 * its QP's RQ_PI, or takes the first free entry; the query answers the QP's entry; the
 * drain offers the first entry. And the ledger: every QP's newest doorbell reaches the
 * control (by a take or a drain) and none is lost: once the doorbells stop and the table
 * is drained, what the control got last of each QP is its newest RQ_PI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

extern const struct vmodel_ops vmodel_Vrq_db_merge;
extern const struct vmodel_ops vmodel_Vrq_db_merge_tiny;

#define MAX_N 16
#define MAX_QPS 24

struct entry {
	bool valid;
	uint32_t qpn;
	uint32_t index;
};

static int find(const struct entry *t, unsigned int n, uint32_t qpn)
{
	for (unsigned int i = 0; i < n; i++)
		if (t[i].valid && t[i].qpn == qpn)
			return (int)i;
	return -1;
}

static int first(const struct entry *t, unsigned int n, bool valid)
{
	for (unsigned int i = 0; i < n; i++)
		if (t[i].valid == valid)
			return (int)i;
	return -1;
}

static bool run(struct bench *b, const char *name, const struct vmodel_ops *ops, unsigned int n,
		unsigned int nqps)
{
	struct dut d;
	const struct vmodel_port *hold, *empty, *full, *s_qpn, *s_index, *s_valid, *s_ready, *q_qpn,
		*q_hit, *q_index, *q_take, *m_qpn, *m_index, *m_valid, *m_ready;
	struct entry t[MAX_N];
	uint32_t qpns[MAX_QPS], newest[MAX_QPS], got[MAX_QPS];
	bool rung[MAX_QPS];
	unsigned int cycles = b->quick ? 20000 : 200000;
	unsigned int merged = 0, added = 0, taken = 0, drained = 0, refused = 0, fulls = 0;
	char err[256] = "";

	dut_open(&d, b, ops);
	hold = dut_port(&d, "hold");
	empty = dut_port(&d, "empty");
	full = dut_port(&d, "full");
	s_qpn = dut_port(&d, "s_db_qpn");
	s_index = dut_port(&d, "s_db_index");
	s_valid = dut_port(&d, "s_db_valid");
	s_ready = dut_port(&d, "s_db_ready");
	q_qpn = dut_port(&d, "q_qpn");
	q_hit = dut_port(&d, "q_hit");
	q_index = dut_port(&d, "q_index");
	q_take = dut_port(&d, "q_take");
	m_qpn = dut_port(&d, "m_qpn");
	m_index = dut_port(&d, "m_index");
	m_valid = dut_port(&d, "m_valid");
	m_ready = dut_port(&d, "m_ready");
	memset(t, 0, sizeof(t));
	memset(rung, 0, sizeof(rung));
	for (unsigned int i = 0; i < nqps; i++) {
		bool dup = true;

		while (dup) {
			qpns[i] = (uint32_t)(bench_rand(b) & 0xffffffu);
			dup = false;
			for (unsigned int k = 0; k < i; k++)
				dup = dup || qpns[k] == qpns[i];
		}
		newest[i] = got[i] = 0;
	}
	dut_reset(&d, 4);
	/* then cycles of drain only, with no doorbell, until the table is empty */
	for (unsigned int c = 0; c < cycles + 4 * MAX_N && !err[0]; c++) {
		bool tail = c >= cycles;
		/* phases: the control slow (the table fills), then fast */
		bool slow = (c / 1500) % 2 == 0;
		unsigned int dq = (unsigned int)bench_range(b, 0, nqps - 1);
		unsigned int qq = (unsigned int)bench_range(b, 0, nqps - 1);
		uint32_t didx = (newest[dq] + (uint32_t)bench_range(b, 1, 3)) & 0xffffu;
		bool dv = !tail && bench_chance(b, 50);
		bool h = !tail && bench_chance(b, 5);
		bool qt = bench_chance(b, slow ? 10 : 40);
		bool mr = tail || bench_chance(b, slow ? 5 : 30);
		int dh = find(t, n, qpns[dq]), qh = find(t, n, qpns[qq]);
		int fr = first(t, n, false), hd = first(t, n, true);
		bool want_ready = dv && !h && (dh >= 0 || fr >= 0);

		vport_set(hold, h);
		vport_set(s_qpn, qpns[dq]);
		vport_set(s_index, didx);
		vport_set(s_valid, dv);
		vport_set(q_qpn, qpns[qq]);
		vport_set(q_take, qt);
		vport_set(m_ready, mr);
		d.vm.ops->eval(d.vm.model);
		if ((vport_get(s_ready) != 0) != want_ready)
			bench_first_error(err, sizeof(err), "%s cycle %u: s_db_ready %u, want %u",
					  name, c, (unsigned int)vport_get(s_ready), want_ready);
		if ((vport_get(q_hit) != 0) != (qh >= 0) ||
		    (qh >= 0 && vport_get(q_index) != t[qh].index))
			bench_first_error(err, sizeof(err),
					  "%s cycle %u: query 0x%x: hit %u index %u, want %u %u",
					  name, c, qpns[qq], (unsigned int)vport_get(q_hit),
					  (unsigned int)vport_get(q_index), qh >= 0,
					  qh >= 0 ? t[qh].index : 0);
		if ((vport_get(m_valid) != 0) != (hd >= 0) ||
		    (hd >= 0 &&
		     (vport_get(m_qpn) != t[hd].qpn || vport_get(m_index) != t[hd].index)))
			bench_first_error(err, sizeof(err),
					  "%s cycle %u: drain valid %u 0x%x %u, want %u 0x%x %u",
					  name, c, (unsigned int)vport_get(m_valid),
					  (unsigned int)vport_get(m_qpn),
					  (unsigned int)vport_get(m_index), hd >= 0,
					  hd >= 0 ? t[hd].qpn : 0, hd >= 0 ? t[hd].index : 0);
		if ((vport_get(empty) != 0) != (hd < 0) || (vport_get(full) != 0) != (fr < 0))
			bench_first_error(err, sizeof(err), "%s cycle %u: empty %u full %u", name,
					  c, (unsigned int)vport_get(empty),
					  (unsigned int)vport_get(full));
		fulls += fr < 0;
		refused += dv && !want_ready;
		/* the edge: entries leave, then the doorbell (it keeps an entry that leaves) */
		if (qt && qh >= 0) {
			for (unsigned int i = 0; i < nqps; i++)
				if (qpns[i] == t[qh].qpn)
					got[i] = t[qh].index;
			t[qh].valid = false;
			taken++;
		}
		if (mr && hd >= 0) {
			for (unsigned int i = 0; i < nqps; i++)
				if (qpns[i] == t[hd].qpn)
					got[i] = t[hd].index;
			t[hd].valid = false;
			drained++;
		}
		if (want_ready) {
			int slot = dh >= 0 ? dh : fr;

			t[slot].valid = true;
			t[slot].qpn = qpns[dq];
			t[slot].index = didx;
			newest[dq] = didx;
			rung[dq] = true;
			if (dh >= 0)
				merged++;
			else
				added++;
		}
		dut_step(&d);
	}
	if (!err[0] && first(t, n, true) >= 0)
		bench_first_error(err, sizeof(err), "%s: the table did not drain", name);
	for (unsigned int i = 0; i < nqps && !err[0]; i++)
		if (rung[i] && got[i] != newest[i])
			bench_first_error(err, sizeof(err),
					  "%s: QP 0x%x: the control got RQ_PI %u last, its newest "
					  "doorbell was %u",
					  name, qpns[i], got[i], newest[i]);
	bench_log(b,
		  "%s: doorbells %u merged, %u in a new entry, %u refused; entries %u taken, %u "
		  "drained; %u cycles full",
		  name, merged, added, refused, taken, drained, fulls);
	if (!err[0] && (merged < cycles / 50 || added < cycles / 50 || taken < cycles / 100 ||
			drained < cycles / 100 || fulls < cycles / 100))
		bench_first_error(err, sizeof(err),
				  "%s: too few merges, entries, takes or full cycles", name);
	dut_close(&d);
	return bench_result(b, name, !err[0], "%s", err);
}

int main(int argc, char **argv)
{
	struct bench b;

	bench_init(&b, "test_rq_db_merge", argc, argv);
	run(&b, "rq_db_merge", &vmodel_Vrq_db_merge, 16, 24);
	run(&b, "rq_db_merge_tiny", &vmodel_Vrq_db_merge_tiny, 4, 7);
	return bench_finish(&b);
}
