// SPDX-License-Identifier: MIT
/*
 * Bench of fifo_merge (rtl/lib), the FIFO whose newest word a newer one of the same key
 * may replace while it waits: req_tx's SENT messages to req_ack go through one.
 *
 * 16-bit words, the key their low 4 bits (three keys, so that neighbours often share
 * one), 8 words of RAM. Each cycle offers a word or not, asks to merge it or not, and
 * takes the output or not, all at random. A C model of the contract (the RAM and the
 * output register apart: a word merges only into a newest word behind at least one other
 * in the RAM, with its key) says, cycle by cycle, what s_ready, m_valid, m_data and count
 * must be. The bench requires merges, appends and a full FIFO to happen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

extern const struct vmodel_ops vmodel_Vfifo_merge;

#define DEPTH 8
#define KEY(w) ((w)&0xfu)

int main(int argc, char **argv)
{
	struct bench b;
	struct dut d;
	const struct vmodel_port *s_data, *s_merge, *s_valid, *s_ready, *m_data, *m_valid, *m_ready,
		*count;
	uint64_t ram[DEPTH];
	unsigned int held = 0, merges = 0, appends = 0, fulls = 0, taken = 0;
	unsigned int cycles;
	uint64_t out = 0;
	bool out_valid = false;
	char err[256] = "";

	bench_init(&b, "test_fifo_merge", argc, argv);
	cycles = b.quick ? 20000 : 200000;
	dut_open(&d, &b, &vmodel_Vfifo_merge);
	s_data = dut_port(&d, "s_data");
	s_merge = dut_port(&d, "s_merge");
	s_valid = dut_port(&d, "s_valid");
	s_ready = dut_port(&d, "s_ready");
	m_data = dut_port(&d, "m_data");
	m_valid = dut_port(&d, "m_valid");
	m_ready = dut_port(&d, "m_ready");
	count = dut_port(&d, "count");
	dut_reset(&d, 4);
	for (unsigned int c = 0; c < cycles && !err[0]; c++) {
		/* phases: the reader slow (the FIFO fills), then fast (it empties) */
		bool slow = (c / 2000) % 2 == 0;
		uint64_t w = (bench_rand(&b) & 0xfff0u) | (uint64_t)bench_range(&b, 1, 3);
		bool valid = bench_chance(&b, 60), merge = bench_chance(&b, 60);
		bool ready = bench_chance(&b, slow ? 15 : 80);
		bool open = held >= 2 && KEY(ram[held - 1]) == KEY(w);
		bool full = held == DEPTH;
		bool do_merge = valid && merge && open;
		bool do_write = valid && !do_merge && !full;
		bool do_read = held > 0 && (!out_valid || ready);
		bool want_ready = !full || (merge && open);

		vport_set(s_data, w);
		vport_set(s_merge, merge);
		vport_set(s_valid, valid);
		vport_set(m_ready, ready);
		d.vm.ops->eval(d.vm.model);
		if ((vport_get(s_ready) != 0) != want_ready ||
		    (vport_get(m_valid) != 0) != out_valid ||
		    (out_valid && vport_get(m_data) != out) ||
		    vport_get(count) != held + (out_valid ? 1u : 0u))
			bench_first_error(err, sizeof(err),
					  "cycle %u: s_ready %u m_valid %u m_data 0x%llx count %u; "
					  "want %u %u 0x%llx %u",
					  c, (unsigned int)vport_get(s_ready),
					  (unsigned int)vport_get(m_valid),
					  (unsigned long long)vport_get(m_data),
					  (unsigned int)vport_get(count), want_ready, out_valid,
					  (unsigned long long)out, held + (out_valid ? 1u : 0u));
		/* the edge: the output register takes the oldest word, the input goes in */
		if (out_valid && ready)
			taken++;
		if (do_read) {
			out = ram[0];
			memmove(ram, ram + 1, (held - 1) * sizeof(ram[0]));
			held--;
		}
		out_valid = do_read || (out_valid && !ready);
		if (do_write)
			ram[held++] = w, appends++;
		else if (do_merge)
			ram[held - 1] = w, merges++;
		fulls += full;
		dut_step(&d);
	}
	bench_log(&b, "fifo_merge: %u words appended, %u merged, %u taken, %u cycles full", appends,
		  merges, taken, fulls);
	if (!err[0] && (merges < cycles / 50 || appends < cycles / 50 || fulls < cycles / 100))
		bench_first_error(err, sizeof(err), "too few merges, appends or full cycles");
	bench_result(&b, "fifo_merge", !err[0], "%s", err);
	dut_close(&d);
	return bench_finish(&b);
}
