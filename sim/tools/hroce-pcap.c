// SPDX-License-Identifier: MIT
/*
 * hroce-pcap: RoCEv2 captures and the simulated RTL.
 *
 *   hroce-pcap check [--width 64|512] FILE.pcap...
 *	Every frame goes alone through roce_rx (the Verilated RTL), which says what it made
 *	of it: a good RoCE frame (its header and payload came out), a non-RoCE frame, or a
 *	drop and its reason (the counter that moved). A good frame of a service the core's
 *	transport does not serve yet (UC, UD, atomics, SEND with invalidate) says so: the
 *	network layer takes it, the transport would count it unsupported and drop it. An
 *	IPv6 frame with extension headers is dropped unread by the core; the tool walks them
 *	and names the protocol behind. Exit status 0 only if none was dropped, but for
 *	extension headers in front of something other than RoCE (MLD reports, say).
 *
 *   hroce-pcap generate [--width 64|512] [--frames N] OUT.pcap
 *	roce_tx (the Verilated RTL) builds N frames (default 64) cycling through every opcode
 *	and a range of payload sizes, every third one over IPv6 and every fifth one tagged; they are
 *written with their simulated time of departure, in nanoseconds (250 MHz at 512 bits, 156.25 MHz at
 *64).
 *
 *   hroce-pcap stats FILE.pcap
 *	What a capture of a wire says about the traffic in simulated time, per direction
 *	(by source and destination IPv4 or IPv6 address): RoCE frames, data frames (those with a
 *payload) and their payload bytes, the span from the first to the last data frame and the goodput
 *over it, and how many messages started (SEND, WRITE, READ request) with their mean interval, which
 *for a ping-pong is its round trip. One "key value" per line.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hroce_contract.h"
#include "pcap.h"
#include "roce_bus.h"
#include "roce_wire.h"
#include "vmodel.h"

extern const struct vmodel_ops vmodel_Vroce_rx_w64, vmodel_Vroce_rx_w512;
extern const struct vmodel_ops vmodel_Vroce_tx_w64, vmodel_Vroce_tx_w512;

#define FRAME_TIMEOUT 100000 /* cycles a frame may take: far more than a 4 KiB frame needs */

struct rx {
	struct vmodel vm;
	const struct vmodel_port *clk, *rst;
	const struct vmodel_port *in_data, *in_keep, *in_valid, *in_ready, *in_last, *in_user;
	const struct vmodel_port *hdr_data, *hdr_valid, *hdr_ready;
	const struct vmodel_port *pay_valid, *pay_ready, *pay_keep, *pay_last;
	const struct vmodel_port *oth_valid, *oth_ready, *stat;
	unsigned int bytes;
	uint64_t cycles;
};

static const struct vmodel_port *port(struct rx *r, const char *name)
{
	const struct vmodel_port *p = vmodel_port(&r->vm, name);

	if (!p) {
		fprintf(stderr, "hroce-pcap: the model has no port %s\n", name);
		exit(2);
	}
	return p;
}

static void step(struct rx *r)
{
	vport_set(r->clk, 0);
	r->vm.ops->eval(r->vm.model);
	vport_set(r->clk, 1);
	r->vm.ops->eval(r->vm.model);
	r->cycles++;
}

static void rx_open(struct rx *r, const struct vmodel_ops *ops)
{
	int err = vmodel_open(&r->vm, ops);

	if (err) {
		fprintf(stderr, "hroce-pcap: cannot create the RTL model: %s\n", strerror(err));
		exit(2);
	}
	r->clk = port(r, "clk");
	r->rst = port(r, "rst");
	r->in_data = port(r, "s_axis_tdata");
	r->in_keep = port(r, "s_axis_tkeep");
	r->in_valid = port(r, "s_axis_tvalid");
	r->in_ready = port(r, "s_axis_tready");
	r->in_last = port(r, "s_axis_tlast");
	r->in_user = port(r, "s_axis_tuser");
	r->hdr_data = port(r, "m_hdr_data");
	r->hdr_valid = port(r, "m_hdr_valid");
	r->hdr_ready = port(r, "m_hdr_ready");
	r->pay_valid = port(r, "m_axis_tvalid");
	r->pay_ready = port(r, "m_axis_tready");
	r->pay_keep = port(r, "m_axis_tkeep");
	r->pay_last = port(r, "m_axis_tlast");
	r->oth_valid = port(r, "m_other_tvalid");
	r->oth_ready = port(r, "m_other_tready");
	r->stat = port(r, "stat_count");
	r->bytes = r->in_data->width / 8;
	vport_set(r->rst, 1);
	for (int i = 0; i < 4; i++)
		step(r);
	vport_set(r->rst, 0);
	vport_set(r->hdr_ready, 1);
	vport_set(r->pay_ready, 1);
	vport_set(r->oth_ready, 1);
}

static uint64_t stat_total(struct rx *r, uint32_t *stat)
{
	uint64_t total = 0;

	vport_read(r->stat, stat, HROCE_ROCE_RX_DROP_COUNT * sizeof(*stat));
	for (unsigned int i = 0; i < HROCE_ROCE_RX_DROP_COUNT; i++)
		total += stat[i];
	return total;
}

/*
 * What rtl/transport/rx_dispatch hands to an engine: RC requests up to READ request, and
 * READ responses and ACKs. Everything else that roce_rx accepts it drops as unsupported.
 */
static const char *unserved_service(uint8_t opcode)
{
	if (opcode <= 0x11)
		return NULL;
	if (opcode <= 0x14)
		return "RC atomics";
	if (opcode <= 0x1f)
		return "RC SEND with invalidate";
	if (opcode <= 0x3f)
		return "UC";
	if (opcode >= 0x60 && opcode <= 0x7f)
		return "UD";
	return "other";
}

/* An IPv6 frame's extension headers, walked: whether RoCE is behind them, and a phrase. */
static bool ext_header_behind(const uint8_t *frame, size_t len, char *what, size_t size)
{
	uint8_t proto;
	size_t off;

	if (!roce_ip6_upper(frame, len, &proto, &off)) {
		snprintf(what, size, "IPv6 extension headers that leave the frame or are ESP");
		return false;
	}
	if (proto == 17 && off + 4 <= len &&
	    (frame[off + 2] << 8 | frame[off + 3]) == ROCE_UDP_PORT) {
		snprintf(what, size, "RoCE behind IPv6 extension headers: the core drops it");
		return true;
	}
	snprintf(what, size, "IPv6 extension headers, then %s (next header %u): not RoCE",
		 proto == 58   ? "ICMPv6"
		 : proto == 17 ? "UDP"
		 : proto == 6  ? "TCP"
			       : "another protocol",
		 proto);
	return false;
}

struct result {
	int verdict; /* HROCE_ROCE_RX_DROP_*, -1 if the RTL said nothing in time */
	uint32_t hdr[HROCE_ROCE_HDR_WORDS];
	bool got_hdr;
	size_t payload;
};

/* Sends one frame and waits for its verdict and for everything it produced. */
static void rx_frame(struct rx *r, const uint8_t *frame, size_t len, struct result *res)
{
	uint32_t before[HROCE_ROCE_RX_DROP_COUNT], after[HROCE_ROCE_RX_DROP_COUNT];
	uint64_t total = stat_total(r, before), quiet = 0;
	size_t off = 0;
	bool sent = false;

	memset(res, 0, sizeof(*res));
	res->verdict = -1;
	for (uint64_t c = 0; c < FRAME_TIMEOUT && quiet < 16; c++) {
		size_t n = len - off < r->bytes ? len - off : r->bytes;
		bool busy;

		if (!sent) {
			vport_write(r->in_data, frame + off, n);
			vport_set(r->in_keep, n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1);
			vport_set(r->in_last, off + n >= len);
			vport_set(r->in_user, 0);
		}
		vport_set(r->in_valid, !sent);
		vport_set(r->clk, 0);
		r->vm.ops->eval(r->vm.model);
		if (!sent && vport_get(r->in_ready)) {
			off += r->bytes;
			sent = off >= len;
		}
		if (vport_get(r->hdr_valid)) {
			vport_read(r->hdr_data, res->hdr, sizeof(res->hdr));
			res->got_hdr = true;
		}
		if (vport_get(r->pay_valid))
			res->payload += (size_t)__builtin_popcountll(vport_get(r->pay_keep));
		busy = vport_get(r->hdr_valid) || vport_get(r->pay_valid) ||
		       vport_get(r->oth_valid);
		vport_set(r->clk, 1);
		r->vm.ops->eval(r->vm.model);
		r->cycles++;
		if (res->verdict < 0 && stat_total(r, after) != total) {
			for (unsigned int i = 0; i < HROCE_ROCE_RX_DROP_COUNT; i++)
				if (after[i] != before[i])
					res->verdict = (int)i;
		}
		quiet = res->verdict >= 0 && !busy ? quiet + 1 : 0;
	}
}

/* One line for the frame; true if it counts against the exit status. */
static bool print_result(unsigned long index, const uint8_t *frame, size_t len,
			 const struct result *res)
{
	const uint32_t *h = res->hdr;
	char what[128];
	bool bad;

	printf("%6lu %5zu B  ", index, len);
	if (res->verdict < 0) {
		printf("no verdict from the RTL\n");
		return true;
	}
	if (res->verdict == HROCE_ROCE_RX_DROP_OK) {
		uint8_t op = (uint8_t)HROCE_ROCE_HDR_GET(h, BTH_OPCODE);
		const struct roce_opcode_info *info = roce_opcode_info(op);
		const char *unserved = unserved_service(op);

		printf("%-30s %s qpn %#08llx psn %8llu payload %4llu B icrc ok%s",
		       info ? info->name : "?", HROCE_ROCE_HDR_GET(h, IP6) ? "IPv6" : "IPv4",
		       (unsigned long long)HROCE_ROCE_HDR_GET(h, BTH_DQPN),
		       (unsigned long long)HROCE_ROCE_HDR_GET(h, BTH_PSN),
		       (unsigned long long)HROCE_ROCE_HDR_GET(h, PAYLOAD_LEN),
		       res->payload == HROCE_ROCE_HDR_GET(h, PAYLOAD_LEN)
			       ? ""
			       : " (payload stream differs!)");
		if (unserved)
			printf(" (%s: the transport does not serve it yet)", unserved);
		printf("\n");
		return res->payload != HROCE_ROCE_HDR_GET(h, PAYLOAD_LEN);
	}
	if (res->verdict == HROCE_ROCE_RX_DROP_NOT_ROCE) {
		printf("not RoCE\n");
		return false;
	}
	if (res->verdict == HROCE_ROCE_RX_DROP_IP6_EXT_HEADER) {
		bad = ext_header_behind(frame, len, what, sizeof(what));
		printf("dropped: %s (%s)\n",
		       hroce_roce_rx_drop_name(HROCE_ROCE_RX_DROP_IP6_EXT_HEADER), what);
		return bad;
	}
	printf("dropped: %s\n", hroce_roce_rx_drop_name((unsigned int)res->verdict));
	return true;
}

static int usage(void)
{
	fprintf(stderr, "usage: hroce-pcap check [--width 64|512] FILE.pcap...\n"
			"       hroce-pcap generate [--width 64|512] [--frames N] OUT.pcap\n"
			"       hroce-pcap stats FILE.pcap\n");
	return 2;
}

#define STATS_DIRS 8

struct dir_stats {
	bool ip6;
	uint8_t src[16], dst[16]; /* an IPv4 address in the first 4 bytes, network order */
	uint64_t frames, data_frames, payload;
	uint64_t first_data_ns, last_data_ns;
	uint64_t messages, first_msg_ns, last_msg_ns;
};

/* The first packet of a message a requester sends: SEND, WRITE, READ request. */
static bool starts_message(uint8_t opcode)
{
	switch (opcode & 0x1f) {
	case 0x00: /* SEND_FIRST */
	case 0x04: /* SEND_ONLY */
	case 0x05: /* SEND_ONLY_WITH_IMMEDIATE */
	case 0x06: /* RDMA_WRITE_FIRST */
	case 0x0a: /* RDMA_WRITE_ONLY */
	case 0x0b: /* RDMA_WRITE_ONLY_WITH_IMMEDIATE */
	case 0x0c: /* RDMA_READ_REQUEST */
		return true;
	default:
		return false;
	}
}

static void print_ip(const char *key, unsigned int d, bool ip6, const uint8_t *a)
{
	char text[INET6_ADDRSTRLEN];

	inet_ntop(ip6 ? AF_INET6 : AF_INET, a, text, sizeof(text));
	printf("dir%u.%s %s\n", d, key, text);
}

/* The frame's addresses as dir_stats keeps them. */
static void hdr_addresses(const struct roce_hdr *h, uint8_t *src, uint8_t *dst)
{
	uint32_t s = htonl(h->ip_src), d = htonl(h->ip_dst);

	memset(src, 0, 16);
	memset(dst, 0, 16);
	if (h->ip6) {
		memcpy(src, h->ip6_src, 16);
		memcpy(dst, h->ip6_dst, 16);
	} else {
		memcpy(src, &s, 4);
		memcpy(dst, &d, 4);
	}
}

static int stats(const char *path)
{
	struct dir_stats dirs[STATS_DIRS] = { 0 };
	struct pcap_packet *pkt = malloc(sizeof(*pkt));
	unsigned int ndirs = 0;
	uint64_t frames = 0, other = 0;
	struct pcap_file *pf;
	int err = 0;

	if (!pkt)
		return 1;
	pf = pcap_open_read(path);
	if (!pf) {
		fprintf(stderr, "hroce-pcap: %s: %s\n", path, strerror(errno));
		free(pkt);
		return 1;
	}
	while ((err = pcap_read(pf, pkt)) == 0) {
		const struct roce_opcode_info *info;
		const uint8_t *payload;
		struct dir_stats *d = NULL;
		uint8_t src[16], dst[16];
		struct roce_hdr h;

		frames++;
		if (pkt->len != pkt->orig_len ||
		    roce_parse(pkt->data, pkt->len, &h, &payload) != ROCE_OK) {
			other++;
			continue;
		}
		hdr_addresses(&h, src, dst);
		for (unsigned int i = 0; i < ndirs; i++)
			if (dirs[i].ip6 == h.ip6 && !memcmp(dirs[i].src, src, 16) &&
			    !memcmp(dirs[i].dst, dst, 16))
				d = &dirs[i];
		if (!d) {
			if (ndirs == STATS_DIRS) {
				other++;
				continue;
			}
			d = &dirs[ndirs++];
			d->ip6 = h.ip6;
			memcpy(d->src, src, 16);
			memcpy(d->dst, dst, 16);
		}
		d->frames++;
		info = roce_opcode_info(h.opcode);
		if (info && info->has_payload && h.payload_len) {
			if (!d->data_frames)
				d->first_data_ns = pkt->ts_ns;
			d->data_frames++;
			d->payload += h.payload_len;
			d->last_data_ns = pkt->ts_ns;
		}
		if (starts_message(h.opcode)) {
			if (!d->messages)
				d->first_msg_ns = pkt->ts_ns;
			d->messages++;
			d->last_msg_ns = pkt->ts_ns;
		}
	}
	pcap_close(pf);
	free(pkt);
	if (err > 0) {
		fprintf(stderr, "hroce-pcap: %s: %s\n", path, strerror(err));
		return 1;
	}
	printf("frames %llu\nnot_roce %llu\ndirections %u\n", (unsigned long long)frames,
	       (unsigned long long)other, ndirs);
	for (unsigned int i = 0; i < ndirs; i++) {
		const struct dir_stats *d = &dirs[i];
		uint64_t span = d->last_data_ns - d->first_data_ns;

		print_ip("src", i, d->ip6, d->src);
		print_ip("dst", i, d->ip6, d->dst);
		printf("dir%u.frames %llu\ndir%u.data_frames %llu\ndir%u.payload_bytes %llu\n", i,
		       (unsigned long long)d->frames, i, (unsigned long long)d->data_frames, i,
		       (unsigned long long)d->payload);
		printf("dir%u.data_span_ns %llu\n", i, (unsigned long long)span);
		/* the last frame's payload left at its timestamp: bytes before it over the span */
		if (span && d->data_frames > 1)
			printf("dir%u.goodput_gbps %.2f\n", i,
			       (double)(d->payload - d->payload / d->data_frames) * 8 /
				       (double)span);
		printf("dir%u.messages %llu\n", i, (unsigned long long)d->messages);
		if (d->messages > 1)
			printf("dir%u.message_interval_ns %.1f\n", i,
			       (double)(d->last_msg_ns - d->first_msg_ns) /
				       (double)(d->messages - 1));
	}
	return 0;
}

static int check(bool w64, int argc, char **argv)
{
	unsigned long counts[HROCE_ROCE_RX_DROP_COUNT + 1] = { 0 }, frames = 0, dropped = 0;
	unsigned long unserved = 0, failed = 0, ext_not_roce = 0;
	struct rx r = { 0 };

	if (!argc)
		return usage();
	rx_open(&r, w64 ? &vmodel_Vroce_rx_w64 : &vmodel_Vroce_rx_w512);
	for (int i = 0; i < argc; i++) {
		struct pcap_file *pf = pcap_open_read(argv[i]);
		struct pcap_packet pkt;

		if (!pf) {
			fprintf(stderr, "hroce-pcap: %s: %s\n", argv[i], strerror(errno));
			return 2;
		}
		printf("# %s through roce_rx at %u bits\n", argv[i], r.bytes * 8);
		while (pcap_read(pf, &pkt) == 0) {
			struct result res;
			bool bad;

			rx_frame(&r, pkt.data, pkt.len, &res);
			bad = print_result(++frames, pkt.data, pkt.len, &res);
			failed += bad;
			ext_not_roce += res.verdict == HROCE_ROCE_RX_DROP_IP6_EXT_HEADER && !bad;
			counts[res.verdict < 0 ? HROCE_ROCE_RX_DROP_COUNT
					       : (unsigned int)res.verdict]++;
			dropped += res.verdict != HROCE_ROCE_RX_DROP_OK &&
				   res.verdict != HROCE_ROCE_RX_DROP_NOT_ROCE;
			unserved +=
				res.verdict == HROCE_ROCE_RX_DROP_OK &&
				unserved_service((uint8_t)HROCE_ROCE_HDR_GET(res.hdr, BTH_OPCODE));
		}
		pcap_close(pf);
	}
	printf("# %lu frames: %lu good RoCE", frames, counts[HROCE_ROCE_RX_DROP_OK]);
	if (unserved)
		printf(" (%lu of a service the transport does not serve yet)", unserved);
	printf(", %lu not RoCE, %lu dropped", counts[HROCE_ROCE_RX_DROP_NOT_ROCE], dropped);
	for (unsigned int v = HROCE_ROCE_RX_DROP_NOT_ROCE + 1; v < HROCE_ROCE_RX_DROP_COUNT; v++)
		if (counts[v])
			printf(", %s %lu", hroce_roce_rx_drop_name(v), counts[v]);
	if (counts[HROCE_ROCE_RX_DROP_COUNT])
		printf(", no verdict %lu", counts[HROCE_ROCE_RX_DROP_COUNT]);
	printf(" (%llu cycles)\n", (unsigned long long)r.cycles);
	vmodel_close(&r.vm);
	if (ext_not_roce)
		printf("# %lu of the dropped frames carry IPv6 extension headers in front of "
		       "something other than RoCE: not counted as failures\n",
		       ext_not_roce);
	return failed ? 1 : 0;
}

/* The header of the n-th generated frame: every known opcode in turn, varied sizes. */
static void sample_hdr(unsigned long n, struct roce_hdr *h)
{
	static const uint16_t sizes[] = { 0, 1, 7, 64, 255, 256, 1000, 1024, 2048, 4096 };
	static uint8_t known[256];
	static unsigned int nknown;
	const struct roce_opcode_info *info;
	uint8_t op;

	if (!nknown)
		for (unsigned int o = 0; o < 256; o++)
			if (roce_opcode_info((uint8_t)o))
				known[nknown++] = (uint8_t)o;
	op = known[n % nknown];
	info = roce_opcode_info(op);
	memset(h, 0, sizeof(*h));
	memcpy(h->eth_dst, "\x02\x00\x00\x00\x00\x02", 6);
	memcpy(h->eth_src, "\x02\x00\x00\x00\x00\x01", 6);
	h->vlan_valid = n % 5 == 4;
	h->vlan_tci = 0x2064;
	h->ip_id = (uint16_t)n;
	h->ip_flags = 0x2;
	h->ip_ttl = 64;
	h->ip_src = 0xc0a80001; /* 192.168.0.1 */
	h->ip_dst = 0xc0a80002;
	if (n % 3 == 2) {
		/* fe80::1 to fe80::2, link-local as rxe's GID index 0 */
		h->ip6 = true;
		h->ip_id = 0;
		h->ip_flags = 0;
		h->ip_src = h->ip_dst = 0;
		h->flow_label = (uint32_t)n;
		memcpy(h->ip6_src, "\xfe\x80\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
		memcpy(h->ip6_dst, "\xfe\x80\0\0\0\0\0\0\0\0\0\0\0\0\0\x02", 16);
	}
	h->opcode = op;
	h->pkey = 0xffff;
	h->dqpn = 0x11 + (uint32_t)(n % 3);
	h->ackreq = n % 2;
	h->psn = (uint32_t)(1000 + n);
	h->reth_va = 0x7f0000001000ull + 64 * n;
	h->reth_rkey = 0x1234;
	h->reth_dma_len = 4096;
	h->aeth_msn = (uint32_t)n;
	h->immdt = 0xdeadbeef;
	h->ieth_rkey = 0x4321;
	h->atomic_va = 0x7f0000002000ull;
	h->atomic_rkey = 0x1234;
	h->atomic_swap_add = n;
	h->atomic_compare = 0;
	h->atomicack_orig = 42;
	h->deth_qkey = 0x11111111;
	h->deth_src_qp = 0x10;
	h->payload_len = info->has_payload ? sizes[n % 10] : 0;
}

static int generate(bool w64, unsigned long frames, const char *path)
{
	const struct vmodel_ops *ops = w64 ? &vmodel_Vroce_tx_w64 : &vmodel_Vroce_tx_w512;
	const double ns_per_cycle = w64 ? 6.4 : 4.0;
	const struct vmodel_port *clk, *rst, *hdr_data, *hdr_valid, *hdr_ready;
	const struct vmodel_port *in_data, *in_keep, *in_valid, *in_ready, *in_last;
	const struct vmodel_port *out_data, *out_keep, *out_valid, *out_ready, *out_last;
	static uint8_t payload[4096], frame[8192];
	struct pcap_file *pf;
	struct vmodel vm;
	unsigned long sent = 0, built = 0;
	size_t in_off = 0, out_len = 0;
	uint64_t cycle = 0, first_cycle = 0;
	struct roce_hdr h;
	uint32_t bus[HROCE_ROCE_HDR_WORDS];
	int err;

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)i;
	err = vmodel_open(&vm, ops);
	if (err) {
		fprintf(stderr, "hroce-pcap: cannot create the RTL model: %s\n", strerror(err));
		return 2;
	}
	pf = pcap_open_write(path, true);
	if (!pf) {
		fprintf(stderr, "hroce-pcap: %s: %s\n", path, strerror(errno));
		return 2;
	}
#define P(name) vmodel_port(&vm, name)
	clk = P("clk"), rst = P("rst");
	hdr_data = P("s_hdr_data"), hdr_valid = P("s_hdr_valid"), hdr_ready = P("s_hdr_ready");
	in_data = P("s_axis_tdata"), in_keep = P("s_axis_tkeep"), in_valid = P("s_axis_tvalid");
	in_ready = P("s_axis_tready"), in_last = P("s_axis_tlast");
	out_data = P("m_axis_tdata"), out_keep = P("m_axis_tkeep"), out_valid = P("m_axis_tvalid");
	out_ready = P("m_axis_tready"), out_last = P("m_axis_tlast");
#undef P
	vport_set(rst, 1);
	for (int i = 0; i < 8; i++) {
		vport_set(clk, i & 1);
		vm.ops->eval(vm.model);
	}
	vport_set(rst, 0);
	vport_set(out_ready, 1);
	sample_hdr(0, &h);
	while (built < frames && cycle < 1000000) {
		unsigned int bytes = in_data->width / 8;
		size_t n = h.payload_len - in_off < bytes ? h.payload_len - in_off : bytes;
		bool hdr_go, pay_go, out_go;

		/* one header, then its payload, at once: the header channel runs ahead */
		hdr_go = sent < frames;
		memset(bus, 0, sizeof(bus));
		if (hdr_go) {
			struct roce_hdr s;

			sample_hdr(sent, &s);
			roce_hdr_to_bus(&s, 0, bus);
		}
		vport_write(hdr_data, bus, sizeof(bus));
		vport_set(hdr_valid, hdr_go);
		pay_go = built < frames && h.payload_len > 0;
		vport_write(in_data, payload + in_off, n);
		vport_set(in_keep, n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1);
		vport_set(in_last, in_off + n >= h.payload_len);
		vport_set(in_valid, pay_go);
		vport_set(clk, 0);
		vm.ops->eval(vm.model);
		if (hdr_go && vport_get(hdr_ready))
			sent++;
		if (pay_go && vport_get(in_ready))
			in_off += bytes;
		out_go = vport_get(out_valid);
		if (out_go) {
			unsigned int k = (unsigned int)__builtin_popcountll(vport_get(out_keep));

			if (!out_len)
				first_cycle = cycle;
			vport_read(out_data, frame + out_len, k);
			out_len += k;
			if (vport_get(out_last)) {
				pcap_write(pf, (uint64_t)(first_cycle * ns_per_cycle), frame,
					   out_len);
				out_len = 0;
				built++;
				in_off = 0;
				sample_hdr(built, &h);
			}
		}
		vport_set(clk, 1);
		vm.ops->eval(vm.model);
		cycle++;
	}
	pcap_close(pf);
	vmodel_close(&vm);
	printf("# roce_tx at %u bits built %lu frames in %llu cycles into %s\n", in_data->width,
	       built, (unsigned long long)cycle, path);
	return built == frames ? 0 : 1;
}

int main(int argc, char **argv)
{
	unsigned long frames = 64;
	bool w64 = false;
	int i = 2;

	if (argc < 3)
		return usage();
	if (!strcmp(argv[1], "stats"))
		return argc == 3 ? stats(argv[2]) : usage();
	while (i + 1 < argc && !strncmp(argv[i], "--", 2)) {
		if (!strcmp(argv[i], "--width") && !strcmp(argv[i + 1], "64"))
			w64 = true;
		else if (!strcmp(argv[i], "--width") && !strcmp(argv[i + 1], "512"))
			w64 = false;
		else if (!strcmp(argv[i], "--frames"))
			frames = strtoul(argv[i + 1], NULL, 0);
		else
			return usage();
		i += 2;
	}
	if (!strcmp(argv[1], "stats") && argc == 3)
		return stats(argv[2]);
	if (!strcmp(argv[1], "check"))
		return check(w64, argc - i, argv + i);
	if (!strcmp(argv[1], "generate") && i + 1 == argc)
		return generate(w64, frames, argv[i]);
	return usage();
}
