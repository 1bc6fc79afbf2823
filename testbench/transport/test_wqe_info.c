// SPDX-License-Identifier: MIT
/*
 * Bench of wqe_info, the requester's on-chip facts of the WQEs it sent, alone: with 1024
 * entries (the core's) and with 16, where WQEs of different QPs take each other's lines
 * all the time.
 *
 * Each cycle writes a random WQE's facts (or not) and reads a random one back, the QPs and
 * indices drawn from a small set so that the same tags come back. A C model of the
 * contract (direct-mapped, the line from the index and the QPN reversed, tagged with both)
 * says what each read must give: a hit with the facts last written for that tag, or a
 * miss when another tag holds the line. A read the cycle a write goes to its line gives
 * the entry from before the write.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

extern const struct vmodel_ops vmodel_Vwqe_info, vmodel_Vwqe_info_tiny;

struct entry {
	bool written;
	uint32_t qpn;
	uint16_t index;
	uint64_t info;
};

static unsigned int line(unsigned int log, uint32_t qpn, uint16_t index)
{
	unsigned int rev = 0;

	for (unsigned int i = 0; i < log; i++)
		rev |= ((qpn >> (log - 1 - i)) & 1u) << i;
	return (index ^ rev) & ((1u << log) - 1);
}

static void test_model(struct bench *b, const struct vmodel_ops *ops, unsigned int log,
		       const char *name)
{
	static struct entry model[1024];
	static const uint32_t qpns[] = { 0x11, 0x12, 0x13, 0x10011, 0x2a5, 0xabcdef, 0x400 };
	struct dut d;
	const struct vmodel_port *wr_qpn, *wr_index, *wr_info, *wr_en, *rd_qpn, *rd_index, *info,
		*hit;
	unsigned int cycles = b->quick ? 20000 : 200000, hits = 0, misses = 0;
	uint32_t want_qpn = 0;
	uint16_t want_index = 0;
	struct entry want = { 0 };
	bool reading = false;
	char err[256] = "";

	memset(model, 0, sizeof(model));
	dut_open(&d, b, ops);
	wr_qpn = dut_port(&d, "wr_qpn");
	wr_index = dut_port(&d, "wr_index");
	wr_info = dut_port(&d, "wr_info");
	wr_en = dut_port(&d, "wr_en");
	rd_qpn = dut_port(&d, "rd_qpn");
	rd_index = dut_port(&d, "rd_index");
	info = dut_port(&d, "m_info");
	hit = dut_port(&d, "m_hit");
	for (unsigned int c = 0; c < cycles && !err[0]; c++) {
		uint32_t wq = qpns[bench_range(b, 0, 6)], rq = qpns[bench_range(b, 0, 6)];
		uint16_t wi = (uint16_t)bench_range(b, 0, 40), ri = (uint16_t)bench_range(b, 0, 40);
		uint64_t wv = bench_rand(b) & 0xffffffffffffull;
		bool we = bench_chance(b, 40);

		/* indices far apart too: the same line, another tag */
		if (bench_chance(b, 10))
			wi = (uint16_t)(wi + (1u << log));
		if (bench_chance(b, 10))
			ri = (uint16_t)(ri + (1u << log));
		vport_set(wr_qpn, wq);
		vport_set(wr_index, wi);
		vport_set(wr_info, wv);
		vport_set(wr_en, we);
		vport_set(rd_qpn, rq);
		vport_set(rd_index, ri);
		d.vm.ops->eval(d.vm.model);
		/* the answer to the address of the cycle before */
		if (reading) {
			bool is_hit =
				want.written && want.qpn == want_qpn && want.index == want_index;
			bool got_hit = vport_get(hit) != 0;

			if (got_hit != is_hit)
				bench_first_error(err, sizeof(err),
						  "cycle %u: QPN 0x%x index %u: hit %u, want %u", c,
						  want_qpn, want_index, got_hit, is_hit);
			else if (is_hit && vport_get(info) != want.info)
				bench_first_error(
					err, sizeof(err),
					"cycle %u: QPN 0x%x index %u: 0x%llx, want 0x%llx", c,
					want_qpn, want_index, (unsigned long long)vport_get(info),
					(unsigned long long)want.info);
			is_hit ? hits++ : misses++;
		}
		/* this cycle's read sees the line before this cycle's write */
		want = model[line(log, rq, ri)];
		want_qpn = rq;
		want_index = ri;
		reading = true;
		if (we)
			model[line(log, wq, wi)] = (struct entry){ true, wq, wi, wv };
		dut_step(&d);
	}
	bench_log(b, "%s: %u hits, %u misses", name, hits, misses);
	if (!err[0] && (hits < cycles / 20 || misses < cycles / 20))
		bench_first_error(err, sizeof(err), "%u hits and %u misses: too few of one", hits,
				  misses);
	bench_result(b, name, !err[0], "%s", err);
	dut_close(&d);
}

int main(int argc, char **argv)
{
	struct bench b;

	bench_init(&b, "test_wqe_info", argc, argv);
	test_model(&b, &vmodel_Vwqe_info, 10, "wqe_info_1024");
	test_model(&b, &vmodel_Vwqe_info_tiny, 4, "wqe_info_16");
	return bench_finish(&b);
}
