// SPDX-License-Identifier: MIT
/*
 * Bench of rx_dispatch alone: headers that come before their ICRC verdict (roce_rx's
 * EARLY_HDR), the verdicts after them, the payloads of the good frames after those.
 *
 * Random frames: requests, responses and opcodes the core does not serve, for this NIC or
 * for another (MAC or IPv4 address; IPv6 to an address not ours), with or without payload,
 * good or bad. A C model says what each output must carry, in order: every request's
 * header to the responder and its verdict after it, the payload of a good one; a response's
 * header and payload only if good; a dropped frame counted (not ours, unsupported) only if
 * good, its payload swallowed. Every input is driven with idle cycles (the verdicts and the
 * payloads may be offered before the header they belong to is taken) and every output with
 * back-pressure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axis.h"
#include "bench.h"
#include "hroce_contract.h"
#include "roce_bus.h"
#include "roce_wire.h"

extern const struct vmodel_ops vmodel_Vrx_dispatch;

#define HANG_CYCLES 5000
static const uint8_t our_mac[6] = { 0x02, 0x00, 0x0a, 0x00, 0x00, 0x07 };
#define OUR_IPV4 0x0a000007u

enum dest { DEST_DROP, DEST_REQ, DEST_RESP };

struct frame {
	struct roce_hdr h;
	enum dest dest;
	bool ours, good;
	uint8_t payload[256];
};

/* A verdict stream, driven (the input) or taken (the output), one bit a word */
struct verdicts {
	struct dut *dut;
	const struct vmodel_port *good, *valid, *ready;
	unsigned int pct; /* idle (input) or busy (output) */
	bool *v;
	size_t n, next;	      /* input: to send, sent; output: received */
	bool offering;	      /* input: a word offered and not taken yet */
	bool held, held_good; /* output: offered without ready last cycle */
	unsigned int protocol_errors;
};

static void verdict_in_drive(void *ctx)
{
	struct verdicts *s = ctx;

	if (s->next == s->n || (!s->offering && bench_chance(s->dut->bench, s->pct))) {
		vport_set(s->valid, 0);
		return;
	}
	vport_set(s->good, s->v[s->next]);
	vport_set(s->valid, 1);
	s->offering = true;
}

static void verdict_in_sample(void *ctx)
{
	struct verdicts *s = ctx;

	if (vport_get(s->valid) && vport_get(s->ready)) {
		s->next++;
		s->offering = false;
		s->dut->transfers++;
		s->dut->pending--;
	}
}

static void verdict_out_drive(void *ctx)
{
	struct verdicts *s = ctx;

	vport_set(s->ready, !bench_chance(s->dut->bench, s->pct));
}

static void verdict_out_sample(void *ctx)
{
	struct verdicts *s = ctx;
	bool valid = vport_get(s->valid) != 0, good = vport_get(s->good) != 0;

	/* once offered, a word stays offered, unchanged, until it is taken */
	if (s->held && (!valid || good != s->held_good))
		s->protocol_errors++;
	s->held = valid && !vport_get(s->ready);
	s->held_good = good;
	if (!valid || !vport_get(s->ready))
		return;
	s->v = realloc(s->v, (s->n + 1) * sizeof(*s->v));
	if (!s->v) {
		perror("realloc");
		exit(1);
	}
	s->v[s->n++] = good;
	s->dut->transfers++;
}

static uint8_t random_opcode(struct bench *b)
{
	/* RC requests, RC responses, atomics, UC SEND only, UD SEND only, CNP */
	static const uint8_t others[] = { 0x12, 0x13, 0x14, 0x24, 0x64, 0x81 };

	switch (bench_range(b, 0, 3)) {
	case 0:
	case 1:
		return (uint8_t)bench_range(b, HROCE_RC_OP_SEND_FIRST, HROCE_RC_OP_READ_REQUEST);
	case 2:
		return (uint8_t)bench_range(b, HROCE_RC_OP_READ_RESP_FIRST, HROCE_RC_OP_ACK);
	default:
		return others[bench_range(b, 0, sizeof(others) - 1)];
	}
}

static void random_frame(struct bench *b, struct frame *f)
{
	struct roce_hdr *h = &f->h;

	memset(f, 0, sizeof(*f));
	h->dqpn = (uint32_t)bench_rand(b) & 0xffffff;
	h->psn = (uint32_t)bench_rand(b) & 0xffffff;
	h->reth_va = bench_rand(b);
	h->reth_rkey = (uint32_t)bench_rand(b);
	h->ip_src = (uint32_t)bench_rand(b);
	h->ip6 = bench_chance(b, 10);
	memcpy(h->eth_dst, our_mac, 6);
	h->ip_dst = OUR_IPV4;
	f->ours = !h->ip6;
	if (bench_chance(b, 15)) {
		h->eth_dst[bench_range(b, 0, 5)] ^= (uint8_t)(1u << bench_range(b, 0, 7));
		f->ours = false;
	} else if (bench_chance(b, 10)) {
		h->ip_dst ^= 1u << bench_range(b, 0, 31);
		f->ours = h->ip6;
	}
	if (h->ip6) {
		/* a global address nobody configured */
		h->ip6_dst[0] = 0x20;
		h->ip6_dst[1] = 0x01;
		f->ours = false;
	}
	h->opcode = random_opcode(b);
	h->payload_len = bench_chance(b, 40) ? 0 : (uint16_t)bench_range(b, 1, sizeof(f->payload));
	bench_fill(b, f->payload, h->payload_len);
	f->good = bench_chance(b, 75);
	f->dest = !f->ours				  ? DEST_DROP
		  : h->opcode <= HROCE_RC_OP_READ_REQUEST ? DEST_REQ
		  : h->opcode >= HROCE_RC_OP_READ_RESP_FIRST && h->opcode <= HROCE_RC_OP_ACK
			  ? DEST_RESP
			  : DEST_DROP;
}

static bool same_header(const struct axis_frame *got, const struct roce_hdr *h)
{
	roce_bus_t want, bus;

	roce_hdr_to_bus(h, 0, want);
	memset(bus, 0, sizeof(bus));
	memcpy(bus, got->data, got->len < sizeof(bus) ? got->len : sizeof(bus));
	return !memcmp(want, bus, sizeof(bus));
}

static bool same_payload(const struct axis_frame *got, const struct frame *f)
{
	return got->len == f->h.payload_len && !memcmp(got->data, f->payload, got->len);
}

struct counter {
	const struct vmodel_port *port;
	uint64_t n;
};

static void count_pulse(void *ctx)
{
	struct counter *c = ctx;

	c->n += vport_get(c->port) != 0;
}

static void test_random(struct bench *b, unsigned int nframes, unsigned int idle, unsigned int busy,
			const char *name)
{
	struct dut d;
	struct axis_source hdr_in, pay_in;
	struct axis_sink req_hdr, resp_hdr, req_pay, resp_pay;
	struct verdicts vin = { 0 }, vout = { 0 };
	struct counter not_ours = { 0 }, unsupported = { 0 };
	struct frame *fr = calloc(nframes, sizeof(*fr));
	uint64_t want_not_ours = 0, want_unsupported = 0;
	uint8_t ip6[HROCE_IPV6_ADDRS * 16];
	char err[256] = "";
	bool ran;

	if (!fr) {
		perror("calloc");
		exit(1);
	}
	dut_open(&d, b, &vmodel_Vrx_dispatch);
	vport_set(dut_port(&d, "cfg_mac"), bench_mac_value(our_mac));
	vport_set(dut_port(&d, "cfg_ipv4"), OUR_IPV4);
	memset(ip6, 0, sizeof(ip6));
	vport_write(dut_port(&d, "cfg_ip6"), ip6, sizeof(ip6));
	vport_set(dut_port(&d, "cfg_ip6_valid"), 0);
	axis_source_init(&hdr_in, &d, "s_hdr", idle);
	axis_source_init(&pay_in, &d, "s_axis", idle);
	axis_sink_init(&req_hdr, &d, "m_req_hdr", busy);
	axis_sink_init(&resp_hdr, &d, "m_resp_hdr", busy);
	axis_sink_init(&req_pay, &d, "m_req_axis", busy);
	axis_sink_init(&resp_pay, &d, "m_resp_axis", busy);
	vin.dut = vout.dut = &d;
	vin.good = dut_port(&d, "s_verdict_good");
	vin.valid = dut_port(&d, "s_verdict_valid");
	vin.ready = dut_port(&d, "s_verdict_ready");
	vin.pct = idle;
	vout.good = dut_port(&d, "m_req_verdict_good");
	vout.valid = dut_port(&d, "m_req_verdict_valid");
	vout.ready = dut_port(&d, "m_req_verdict_ready");
	vout.pct = busy;
	vin.v = calloc(nframes, sizeof(*vin.v));
	if (!vin.v) {
		perror("calloc");
		exit(1);
	}
	dut_add_agent(&d, verdict_in_drive, verdict_in_sample, &vin);
	dut_add_agent(&d, verdict_out_drive, verdict_out_sample, &vout);
	not_ours.port = dut_port(&d, "stat_not_ours");
	unsupported.port = dut_port(&d, "stat_unsupported");
	dut_add_agent(&d, NULL, count_pulse, &not_ours);
	dut_add_agent(&d, NULL, count_pulse, &unsupported);
	dut_reset(&d, 4);

	for (unsigned int i = 0; i < nframes; i++) {
		struct frame *f = &fr[i];
		roce_bus_t bus;

		random_frame(b, f);
		roce_hdr_to_bus(&f->h, 0, bus);
		axis_source_push(&hdr_in, bus, hdr_in.p.bytes, -1);
		vin.v[vin.n++] = f->good;
		d.pending++;
		if (f->good && f->h.payload_len)
			axis_source_push(&pay_in, f->payload, f->h.payload_len, -1);
		if (f->good && f->dest == DEST_DROP) {
			want_not_ours += !f->ours;
			want_unsupported += f->ours;
		}
	}
	ran = dut_run(&d, 50, HANG_CYCLES);
	if (!ran)
		snprintf(err, sizeof(err),
			 "hang: %zu headers, %zu verdicts, %zu payloads not taken",
			 axis_source_pending(&hdr_in), vin.n - vin.next,
			 axis_source_pending(&pay_in));

	/* every output in order against the model */
	for (unsigned int i = 0, nv = 0; ran && !err[0] && i < nframes; i++) {
		const struct frame *f = &fr[i];
		struct axis_frame got;
		struct axis_sink *hk = f->dest == DEST_REQ ? &req_hdr : &resp_hdr;
		struct axis_sink *pk = f->dest == DEST_REQ ? &req_pay : &resp_pay;

		if (f->dest == DEST_DROP || (f->dest == DEST_RESP && !f->good))
			continue;
		if (!axis_sink_pop(hk, &got)) {
			snprintf(err, sizeof(err), "frame %u: no header", i);
			break;
		}
		if (!same_header(&got, &f->h))
			snprintf(err, sizeof(err), "frame %u: the header differs", i);
		free(got.data);
		if (!err[0] && f->dest == DEST_REQ && (nv >= vout.n || vout.v[nv++] != f->good))
			snprintf(err, sizeof(err), "frame %u: its verdict is %s, want %s", i,
				 nv > vout.n	  ? "missing"
				 : vout.v[nv - 1] ? "good"
						  : "bad",
				 f->good ? "good" : "bad");
		if (err[0] || !f->good || !f->h.payload_len)
			continue;
		if (!axis_sink_pop(pk, &got)) {
			snprintf(err, sizeof(err), "frame %u: no payload", i);
			break;
		}
		if (!same_payload(&got, f))
			snprintf(err, sizeof(err),
				 "frame %u: the payload differs (%zu bytes, want %u)", i, got.len,
				 f->h.payload_len);
		free(got.data);
	}
	if (ran && !err[0] &&
	    (axis_sink_count(&req_hdr) || axis_sink_count(&resp_hdr) || axis_sink_count(&req_pay) ||
	     axis_sink_count(&resp_pay)))
		snprintf(err, sizeof(err),
			 "extra output: %zu and %zu headers, %zu and %zu payloads",
			 axis_sink_count(&req_hdr), axis_sink_count(&resp_hdr),
			 axis_sink_count(&req_pay), axis_sink_count(&resp_pay));
	if (ran && !err[0] && (not_ours.n != want_not_ours || unsupported.n != want_unsupported))
		snprintf(err, sizeof(err),
			 "counted %llu not ours and %llu unsupported, want %llu, %llu",
			 (unsigned long long)not_ours.n, (unsigned long long)unsupported.n,
			 (unsigned long long)want_not_ours, (unsigned long long)want_unsupported);
	if (ran && !err[0] &&
	    (req_hdr.protocol_errors || resp_hdr.protocol_errors || req_pay.protocol_errors ||
	     resp_pay.protocol_errors || vout.protocol_errors))
		snprintf(err, sizeof(err), "an output dropped or changed what it offered");
	bench_result(b, name, !err[0], "%s", err);

	axis_source_free(&hdr_in);
	axis_source_free(&pay_in);
	axis_sink_free(&req_hdr);
	axis_sink_free(&resp_hdr);
	axis_sink_free(&req_pay);
	axis_sink_free(&resp_pay);
	free(vin.v);
	free(vout.v);
	free(fr);
	dut_close(&d);
}

int main(int argc, char **argv)
{
	struct bench b;
	unsigned int n;

	bench_init(&b, "test_rx_dispatch", argc, argv);
	n = b.quick ? 500 : 5000;
	test_random(&b, n, 0, 0, "dispatch_no_wait");
	test_random(&b, n, 30, 30, "dispatch_random_waits");
	test_random(&b, n, 5, 70, "dispatch_outputs_slow");
	return bench_finish(&b);
}
