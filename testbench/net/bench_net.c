// SPDX-License-Identifier: MIT
/*
 * Figures of the RoCEv2 receive and transmit paths (make bench).
 *
 * Throughput: back-to-back RC SEND_ONLY frames of a fixed payload size, no idle cycle on
 * the inputs and no back-pressure on the outputs; frame bytes per cycle between the first
 * beat in and the last beat out, and that in Gb/s at the clock of the width (512 bits:
 * 250 MHz, 100 GbE; 64 bits: 156.25 MHz, 10 GbE).
 * Simulation speed: roce_tx looped into roce_rx at 512 bits, cycles per wall-clock second.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "axis.h"
#include "bench.h"
#include "roce_bus.h"
#include "roce_random.h"
#include "roce_wire.h"

extern const struct vmodel_ops vmodel_Vroce_rx_w64, vmodel_Vroce_rx_w512;
extern const struct vmodel_ops vmodel_Vroce_tx_w64, vmodel_Vroce_tx_w512;

static const unsigned int sizes[] = { 64, 256, 1024, 4096 };

static void send_only(struct bench *b, struct roce_hdr *h, unsigned int payload_len)
{
	roce_random_hdr(b, h, 0x04, 64, 0);
	/* the figures are of untagged IPv4 frames: each kind of header packs beats its way */
	h->vlan_valid = false;
	h->ip6 = false;
	h->payload_len = (uint16_t)payload_len;
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct figure {
	uint64_t bytes, beats, cycles; /* beats: what the frames need at one per cycle */
};

static void print_figure(const char *path, unsigned int width, unsigned int size, struct figure f)
{
	double mhz = width == 512 ? 250.0 : 156.25;
	double bpc = (double)f.bytes / (double)f.cycles;

	printf("%-3s %4u bits  payload %5u B  %7.2f bytes/cycle  %7.2f Gb/s at %6.2f MHz  "
	       "%5.1f%% of the beats the frames need\n",
	       path, width, size, bpc, bpc * 8 * mhz / 1000, mhz,
	       100.0 * (double)f.beats / (double)f.cycles);
}

static struct figure rx_throughput(struct bench *b, const struct vmodel_ops *ops, unsigned int size,
				   unsigned int frames)
{
	static uint8_t payload[4096], frame[4300];
	struct dut d;
	struct axis_source in;
	struct axis_sink hdr, pay, other;
	struct figure f = { 0, 0, 0 };
	uint64_t first = 0;
	struct roce_hdr h;
	size_t len;

	dut_open(&d, b, ops);
	axis_source_init(&in, &d, "s_axis", 0);
	axis_sink_init(&hdr, &d, "m_hdr", 0);
	axis_sink_init(&pay, &d, "m_axis", 0);
	axis_sink_init(&other, &d, "m_other", 0);
	dut_reset(&d, 4);
	for (unsigned int i = 0; i < frames; i++) {
		send_only(b, &h, size);
		roce_build(&h, payload, frame, sizeof(frame), &len);
		axis_source_push(&in, frame, len, -1);
		f.bytes += len;
		f.beats += (len + in.p.bytes - 1) / in.p.bytes;
	}
	while (hdr.frames < frames && d.cycle < 100ull * frames * 128) {
		dut_step(&d);
		if (!first && in.beats)
			first = d.cycle;
	}
	f.cycles = d.cycle - first + 1;
	axis_source_free(&in);
	axis_sink_free(&hdr);
	axis_sink_free(&pay);
	axis_sink_free(&other);
	dut_close(&d);
	return f;
}

static struct figure tx_throughput(struct bench *b, const struct vmodel_ops *ops, unsigned int size,
				   unsigned int frames)
{
	static uint8_t payload[4096], frame[4300];
	struct dut d;
	struct axis_source hdr, pay;
	struct axis_sink out;
	struct figure f = { 0, 0, 0 };
	uint64_t first = 0;
	struct roce_hdr h;
	roce_bus_t bus;
	size_t len;

	dut_open(&d, b, ops);
	axis_source_init(&hdr, &d, "s_hdr", 0);
	axis_source_init(&pay, &d, "s_axis", 0);
	axis_sink_init(&out, &d, "m_axis", 0);
	dut_reset(&d, 4);
	for (unsigned int i = 0; i < frames; i++) {
		send_only(b, &h, size);
		roce_hdr_to_bus(&h, 0, bus);
		axis_source_push(&hdr, bus, ROCE_BUS_BYTES, -1);
		axis_source_push(&pay, payload, size, -1);
		roce_build(&h, payload, frame, sizeof(frame), &len);
		f.bytes += len;
		f.beats += (len + pay.p.bytes - 1) / pay.p.bytes;
	}
	while (out.frames < frames && d.cycle < 100ull * frames * 128) {
		dut_step(&d);
		if (!first && out.beats)
			first = d.cycle;
	}
	f.cycles = d.cycle - first + 1;
	axis_source_free(&hdr);
	axis_source_free(&pay);
	axis_sink_free(&out);
	dut_close(&d);
	return f;
}

/* roce_tx's frames straight into roce_rx, both clocked together; returns cycles per second. */
static double loop_speed(struct bench *b, unsigned int frames, uint64_t *cycles_out)
{
	static uint8_t payload[4096];
	struct dut tx, rx;
	struct axis_source hdr, pay;
	struct axis_sink rx_hdr, rx_pay, rx_other;
	const struct vmodel_port *t_data, *t_keep, *t_valid, *t_ready, *t_last;
	const struct vmodel_port *r_data, *r_keep, *r_valid, *r_ready, *r_last, *r_user;
	struct roce_hdr h;
	roce_bus_t bus;
	double start;

	dut_open(&tx, b, &vmodel_Vroce_tx_w512);
	dut_open(&rx, b, &vmodel_Vroce_rx_w512);
	axis_source_init(&hdr, &tx, "s_hdr", 0);
	axis_source_init(&pay, &tx, "s_axis", 0);
	axis_sink_init(&rx_hdr, &rx, "m_hdr", 0);
	axis_sink_init(&rx_pay, &rx, "m_axis", 0);
	axis_sink_init(&rx_other, &rx, "m_other", 0);
	t_data = dut_port(&tx, "m_axis_tdata");
	t_keep = dut_port(&tx, "m_axis_tkeep");
	t_valid = dut_port(&tx, "m_axis_tvalid");
	t_ready = dut_port(&tx, "m_axis_tready");
	t_last = dut_port(&tx, "m_axis_tlast");
	r_data = dut_port(&rx, "s_axis_tdata");
	r_keep = dut_port(&rx, "s_axis_tkeep");
	r_valid = dut_port(&rx, "s_axis_tvalid");
	r_ready = dut_port(&rx, "s_axis_tready");
	r_last = dut_port(&rx, "s_axis_tlast");
	r_user = dut_port(&rx, "s_axis_tuser");
	dut_reset(&tx, 4);
	dut_reset(&rx, 4);
	for (unsigned int i = 0; i < frames; i++) {
		roce_random_hdr(b, &h, roce_random_opcode(b), 64, 4096);
		roce_hdr_to_bus(&h, (uint32_t)bench_rand(b) & 0xffffff, bus);
		axis_source_push(&hdr, bus, ROCE_BUS_BYTES, -1);
		if (h.payload_len)
			axis_source_push(&pay, payload, h.payload_len, -1);
	}
	start = seconds();
	while (rx_hdr.frames < frames && rx.cycle < 2000ull * frames) {
		/* both outputs are registered: wire them, then clock both models */
		memcpy(r_data->ptr, t_data->ptr, vport_bytes(r_data));
		vport_set(r_keep, vport_get(t_keep));
		vport_set(r_valid, vport_get(t_valid));
		vport_set(r_last, vport_get(t_last));
		vport_set(r_user, 0);
		vport_set(t_ready, vport_get(r_ready));
		dut_step(&tx);
		dut_step(&rx);
		/* drop the popped frames: the speed run checks nothing but their count */
		for (struct axis_frame f; axis_sink_pop(&rx_hdr, &f);)
			free(f.data);
		for (struct axis_frame f; axis_sink_pop(&rx_pay, &f);)
			free(f.data);
	}
	*cycles_out = rx.cycle;
	start = seconds() - start;
	bench_result(b, "bench_loop_frames", rx_hdr.frames == frames && !rx_other.frames,
		     "%llu of %u frames came through", (unsigned long long)rx_hdr.frames, frames);
	axis_source_free(&hdr);
	axis_source_free(&pay);
	axis_sink_free(&rx_hdr);
	axis_sink_free(&rx_pay);
	axis_sink_free(&rx_other);
	dut_close(&tx);
	dut_close(&rx);
	return (double)*cycles_out / start;
}

int main(int argc, char **argv)
{
	struct bench b;
	uint64_t cycles;
	double speed;

	bench_init(&b, "bench_net", argc, argv);
	printf("# setup: 2000 back-to-back RC SEND_ONLY frames per row, no VLAN, no idle input, "
	       "no back-pressure; bytes are whole frames without FCS, cycles from the first beat "
	       "in (RX) or out (TX) to the last header or frame out; a partly filled last beat "
	       "is a beat the frame needs\n");
	for (unsigned int w = 0; w < 2; w++) {
		unsigned int width = w ? 512 : 64;

		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			unsigned int frames = b.quick ? 20 : 2000;

			print_figure("RX", width, sizes[i],
				     rx_throughput(&b,
						   w ? &vmodel_Vroce_rx_w512 : &vmodel_Vroce_rx_w64,
						   sizes[i], frames));
			print_figure("TX", width, sizes[i],
				     tx_throughput(&b,
						   w ? &vmodel_Vroce_tx_w512 : &vmodel_Vroce_tx_w64,
						   sizes[i], frames));
		}
	}
	speed = loop_speed(&b, b.quick ? 200 : 3000, &cycles);
	printf("Verilator speed, roce_tx -> roce_rx at 512 bits, random opcodes and payloads "
	       "0..4096 B: %.2f M cycles/s (%llu cycles)\n",
	       speed / 1e6, (unsigned long long)cycles);
	return bench_finish(&b);
}
