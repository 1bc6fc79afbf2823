// SPDX-License-Identifier: MIT
/*
 * Bench of resp_cqe (rtl/transport), the responder's RECV completions that wait for their
 * message's data.
 *
 * At the core's size (4 completions) and tiny (2). Around it, a C placement stage: jobs
 * pushed now and then, retired one a cycle at most (placed_count) with 0 to 3 writes each
 * committed as they retire (wr_committed), the writes answered later (wr_answered), all
 * at random and the counts wrapping. Completions of a few QPs are pushed with the count
 * of jobs pushed so far (this cycle's included) and their message's PSNs; the fault
 * answers (before, own, own list, own short) and the query QPN change at random every
 * cycle; m_ready is random. A C model of the contract says, cycle by cycle, what every
 * output must be: s_room and empty from the count; q_holds from the QPNs waiting; the
 * head's QPN and PSNs to the fault query; the head offered once the stage retired its
 * jobs and answered every write committed by then, as pushed or with the status its
 * faults make of it (flush before its message or for a fault of its data, LOC_LEN_ERR or
 * LOC_PROT_ERR for a list job's fault of its message, its length, immediate and
 * solicited bit cleared); m_took_list with a take of a list job's fault. And the ledger:
 * completions leave in the order pushed, each only once every write of its message (and
 * before it) was answered; all of them leave.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "hroce_contract.h"

extern const struct vmodel_ops vmodel_Vresp_cqe;
extern const struct vmodel_ops vmodel_Vresp_cqe_tiny;

#define MAX_N 4
#define NQPS 5
#define MAX_JOBS 4096

struct entry {
	uint32_t cqn, qpn, first, last;
	uint8_t data[32];
	unsigned int job; /* the jobs pushed up to its message's (full width) */
	bool need_ok;
	uint16_t need;
};

static bool run(struct bench *b, const char *name, const struct vmodel_ops *ops, unsigned int n)
{
	struct dut d;
	const struct vmodel_port *s_cqn, *s_data, *s_job, *s_first, *s_last, *s_valid, *s_room,
		*empty, *placed_p, *committed_p, *answered_p, *q_qpn, *q_holds, *f_qpn, *f_first,
		*f_last, *f_before, *f_own, *f_own_list, *f_own_short, *m_cqn, *m_data, *m_valid,
		*m_ready, *m_took_list;
	struct entry q[MAX_N];
	unsigned int qn = 0, cycles = b->quick ? 20000 : 200000;
	uint32_t qpns[NQPS];
	/* the stage: jobs pushed and retired, writes committed and answered (full width),
	 * and the writes committed once each count of jobs was retired */
	unsigned int jobs = 0, placed = 0;
	uint64_t committed = 0, answered = 0;
	static uint64_t commit_at[MAX_JOBS];
	unsigned int pushed = 0, left = 0, flushed = 0, loc = 0, took = 0, waits = 0, fulls = 0;
	char err[256] = "";

	dut_open(&d, b, ops);
	s_cqn = dut_port(&d, "s_cqn");
	s_data = dut_port(&d, "s_data");
	s_job = dut_port(&d, "s_job");
	s_first = dut_port(&d, "s_first_psn");
	s_last = dut_port(&d, "s_last_psn");
	s_valid = dut_port(&d, "s_valid");
	s_room = dut_port(&d, "s_room");
	empty = dut_port(&d, "empty");
	placed_p = dut_port(&d, "placed_count");
	committed_p = dut_port(&d, "wr_committed");
	answered_p = dut_port(&d, "wr_answered");
	q_qpn = dut_port(&d, "q_qpn");
	q_holds = dut_port(&d, "q_holds");
	f_qpn = dut_port(&d, "f_qpn");
	f_first = dut_port(&d, "f_first_psn");
	f_last = dut_port(&d, "f_last_psn");
	f_before = dut_port(&d, "f_before");
	f_own = dut_port(&d, "f_own");
	f_own_list = dut_port(&d, "f_own_list");
	f_own_short = dut_port(&d, "f_own_short");
	m_cqn = dut_port(&d, "m_cqn");
	m_data = dut_port(&d, "m_data");
	m_valid = dut_port(&d, "m_valid");
	m_ready = dut_port(&d, "m_ready");
	m_took_list = dut_port(&d, "m_took_list");
	for (unsigned int i = 0; i < NQPS; i++)
		qpns[i] = (uint32_t)(bench_rand(b) & 0xffffffu);
	commit_at[0] = 0;
	dut_reset(&d, 4);
	/* then cycles with no completion pushed, until every one has left */
	for (unsigned int c = 0; c < cycles + 2000 && !err[0]; c++) {
		bool tail = c >= cycles;
		/* phases: the stage slow (completions wait, the queue fills), then fast */
		bool slow = (c / 1000) % 2 == 0;
		bool job_now = !tail && jobs - placed < 64 && bench_chance(b, 20);
		bool place_now = placed < jobs && bench_chance(b, slow ? 15 : 90);
		unsigned int writes = place_now ? (unsigned int)bench_range(b, 0, 3) : 0;
		bool answer_now = answered < committed && bench_chance(b, slow ? 20 : 90);
		bool push = !tail && bench_chance(b, 30);
		bool ready = bench_chance(b, slow ? 30 : 80);
		bool before = bench_chance(b, 10), own = bench_chance(b, 15);
		bool own_list = own && bench_chance(b, 50),
		     own_short = own_list && bench_chance(b, 50);
		uint32_t qq = bench_chance(b, 80) ? qpns[bench_range(b, 0, NQPS - 1)]
						  : (uint32_t)(bench_rand(b) & 0xffffffu);
		struct entry e;

		memset(&e, 0, sizeof(e));
		bench_fill(b, e.data, sizeof(e.data));
		e.qpn = qpns[bench_range(b, 0, NQPS - 1)];
		HROCE_CQE_SET(e.data, QPN, e.qpn);
		e.cqn = (uint32_t)(bench_rand(b) & 0xffffffu);
		e.last = (uint32_t)(bench_rand(b) & 0xffffffu);
		e.first = (e.last - (uint32_t)bench_range(b, 0, 5)) & 0xffffffu;
		e.job = jobs + job_now;

		vport_set(s_cqn, e.cqn);
		vport_write(s_data, e.data, sizeof(e.data));
		vport_set(s_job, e.job & 0xff);
		vport_set(s_first, e.first);
		vport_set(s_last, e.last);
		vport_set(s_valid, push);
		vport_set(placed_p, placed & 0xff);
		vport_set(committed_p, committed & 0xffff);
		vport_set(answered_p, answered & 0xffff);
		vport_set(q_qpn, qq);
		vport_set(f_before, before);
		vport_set(f_own, own);
		vport_set(f_own_list, own_list);
		vport_set(f_own_short, own_short);
		vport_set(m_ready, ready);
		d.vm.ops->eval(d.vm.model);

		bool holds = false;
		for (unsigned int i = 0; i < qn; i++)
			holds = holds || q[i].qpn == qq;
		bool head_ok = qn && q[0].need_ok && (int16_t)(uint16_t)(answered - q[0].need) >= 0;
		if ((vport_get(s_room) != 0) != (qn < n) || (vport_get(empty) != 0) != (qn == 0))
			bench_first_error(err, sizeof(err),
					  "%s cycle %u: s_room %u empty %u with %u", name, c,
					  (unsigned int)vport_get(s_room),
					  (unsigned int)vport_get(empty), qn);
		if ((vport_get(q_holds) != 0) != holds)
			bench_first_error(err, sizeof(err), "%s cycle %u: q_holds %u for QP 0x%x",
					  name, c, (unsigned int)vport_get(q_holds), qq);
		if (qn && (vport_get(f_qpn) != q[0].qpn || vport_get(f_first) != q[0].first ||
			   vport_get(f_last) != q[0].last))
			bench_first_error(err, sizeof(err),
					  "%s cycle %u: fault query 0x%x 0x%x..0x%x, want 0x%x "
					  "0x%x..0x%x",
					  name, c, (unsigned int)vport_get(f_qpn),
					  (unsigned int)vport_get(f_first),
					  (unsigned int)vport_get(f_last), q[0].qpn, q[0].first,
					  q[0].last);
		if ((vport_get(m_valid) != 0) != head_ok)
			bench_first_error(err, sizeof(err),
					  "%s cycle %u: m_valid %u, want %u (%u waiting)", name, c,
					  (unsigned int)vport_get(m_valid), head_ok, qn);
		bool take = head_ok && ready, pushed_now = push && qn < n;
		if ((vport_get(m_took_list) != 0) != (take && own_list))
			bench_first_error(err, sizeof(err), "%s cycle %u: m_took_list %u", name, c,
					  (unsigned int)vport_get(m_took_list));
		if (head_ok) {
			uint8_t want[32], got[32];

			memcpy(want, q[0].data, sizeof(want));
			if (before || own) {
				HROCE_CQE_SET(want, OPCODE, HROCE_CQE_OP_RECV);
				HROCE_CQE_SET(want, STATUS,
					      before || !own_list ? HROCE_WC_STATUS_WR_FLUSH_ERR
					      : own_short	  ? HROCE_WC_STATUS_LOC_LEN_ERR
								  : HROCE_WC_STATUS_LOC_PROT_ERR);
				HROCE_CQE_SET(want, BYTE_LEN, 0);
				HROCE_CQE_SET(want, IMM, 0);
				HROCE_CQE_SET(want, WITH_IMM, 0);
				HROCE_CQE_SET(want, SOLICITED, 0);
			}
			vport_read(m_data, got, sizeof(got));
			if (memcmp(got, want, sizeof(got)) || vport_get(m_cqn) != q[0].cqn)
				bench_first_error(
					err, sizeof(err),
					"%s cycle %u: the completion out (CQN 0x%x, status "
					"%u) is not the one pushed (CQN 0x%x, status %u)",
					name, c, (unsigned int)vport_get(m_cqn),
					(unsigned int)HROCE_CQE_GET(got, STATUS), q[0].cqn,
					(unsigned int)HROCE_CQE_GET(want, STATUS));
			/* the ledger: every write of its message's jobs is answered */
			if (answered < commit_at[q[0].job % MAX_JOBS])
				bench_first_error(
					err, sizeof(err),
					"%s cycle %u: a completion leaves with %llu writes "
					"answered, its jobs committed %llu",
					name, c, (unsigned long long)answered,
					(unsigned long long)commit_at[q[0].job % MAX_JOBS]);
		} else if (qn) {
			waits++;
		}
		fulls += qn == n;
		/* the edge: the head leaves; entries learn their need; a completion comes */
		if (take) {
			left++;
			flushed += before || (own && !own_list);
			loc += !before && own_list;
			took += own_list;
			memmove(q, q + 1, (qn - 1) * sizeof(q[0]));
			qn--;
		}
		for (unsigned int i = 0; i < qn; i++)
			if (!q[i].need_ok && (placed & 0xff) == (q[i].job & 0xff)) {
				q[i].need = (uint16_t)committed;
				q[i].need_ok = true;
			}
		if (pushed_now) {
			q[qn++] = e;
			pushed++;
		}
		jobs += job_now;
		if (place_now) {
			placed++;
			committed += writes;
			commit_at[placed % MAX_JOBS] = committed;
		}
		answered += answer_now;
		dut_step(&d);
	}
	if (!err[0] && (qn || left != pushed))
		bench_first_error(err, sizeof(err),
				  "%s: %u completions pushed, %u left, %u waiting", name, pushed,
				  left, qn);
	bench_log(b,
		  "%s: %u completions, %u as flushes, %u with their list job's error (%u took "
		  "one); %u cycles the head waited for its data, %u full",
		  name, pushed, flushed, loc, took, waits, fulls);
	if (!err[0] && (pushed < cycles / 20 || flushed < cycles / 500 || loc < cycles / 1000 ||
			waits < cycles / 20 || fulls < cycles / 100))
		bench_first_error(err, sizeof(err),
				  "%s: too few completions, flushes, errors, waits or full cycles",
				  name);
	dut_close(&d);
	return bench_result(b, name, !err[0], "%s", err);
}

int main(int argc, char **argv)
{
	struct bench b;

	bench_init(&b, "test_resp_cqe", argc, argv);
	run(&b, "resp_cqe", &vmodel_Vresp_cqe, 4);
	run(&b, "resp_cqe_tiny", &vmodel_Vresp_cqe_tiny, 2);
	return bench_finish(&b);
}
