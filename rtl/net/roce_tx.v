/*

RoCEv2 transmit path: one frame per header on the header bus, its payload from the
payload stream, out as an Ethernet frame without FCS.

The path builds IPv4 (without options) or IPv6 (without extension headers) as the header
bus's IP6 says, and computes what the header bus leaves to it: the IPv4 total length and
checksum or the IPv6 payload length, the UDP length (its checksum is zero, as rxe sends
it over both), the BTH pad count, the UDP source port when the header gives none (the
flow-label hash Linux uses, of the local and remote QPNs, for ECMP entropy), zero pad
bytes, the ICRC, and zero padding to the Ethernet minimum (the MAC does not pad).

    s_hdr -> stage 1 (header, QPN partial products)
          -> stage 2 (header bytes, lengths, checksum, source port, frame boundaries)
    s_axis --> beat generator -> stage 3 -+-> beat FIFO ---> ICRC patched in -> skid -> m_axis
                                          +-> roce_icrc --> result FIFO --+

The generator makes one beat per cycle: header bytes, then the payload shifted behind
them, then pad and a hole for the ICRC, then the padding to 60 bytes. Stage 3 registers
the beat and hands it to roce_icrc (masked fields set to ones, the Ethernet header left
out) and to the beat FIFO in the same cycle. The ICRC comes back a fixed number of cycles
after the frame's last covered beat; only the beats that hold ICRC bytes wait for it at
the FIFO's output, so with the FIFO deeper than that latency frames leave back to back
at one beat per cycle. Correctness does not depend on the latency: a slower ICRC would
only fill the FIFO and stall the generator.

Latency, counted from the cycle a header is taken (its payload there in time): the first
beat leaves 6 cycles later; the beats that hold the ICRC wait for it, so a lone frame of
B beats has its last beat out B + L + 5 cycles later, L being roce_icrc's latency (5).
Back to back, frames add only their beats to that.

A payload stream that disagrees with PAYLOAD_LEN still gives a frame of the header's
length (missing bytes are zero, extra bytes and beats are dropped up to tlast) whose last
beat has m_axis_tuser set, so that the MAC aborts it. Lanes outside tkeep are ignored.
A frame with PAYLOAD_LEN 0 takes no payload beat: a stray beat sent for it is taken as
the next frame's payload.

s_hdr_ready depends combinationally on s_axis_tvalid (the next header moves in as the
last beat of the current frame is generated, which may be waiting for payload): the
source must not make s_axis_tvalid depend on s_hdr_ready.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module roce_tx #
(
    // Width of the frame and payload streams: 64 or 512 (128 and 256 work too)
    parameter DATA_WIDTH = 512,
    // Width of tkeep
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // Pad frames shorter than 60 bytes with zeros after the ICRC
    parameter PAD_MIN_FRAME = 1,
    // log2 of the beat FIFO's depth: the FIFO must hold more beats than the ICRC's latency
    // in cycles for frames to leave back to back
    parameter FIFO_ADDR_WIDTH = 5
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Headers (contract: ROCE_HDR), one per frame
     */
    input  wire [`HROCE_ROCE_HDR_WIDTH-1:0] s_hdr_data,
    input  wire                          s_hdr_valid,
    output wire                          s_hdr_ready,

    /*
     * Payload: PAYLOAD_LEN bytes from lane 0, tlast on the last beat; none when it is 0;
     * tuser on any beat: its source failed (a DMA read error), the frame is aborted
     */
    input  wire [DATA_WIDTH-1:0]         s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]         s_axis_tkeep,
    input  wire                          s_axis_tvalid,
    output wire                          s_axis_tready,
    input  wire                          s_axis_tlast,
    input  wire                          s_axis_tuser,

    /*
     * Frames, without FCS; tuser on the last beat of a frame whose payload was wrong
     */
    output wire [DATA_WIDTH-1:0]         m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]         m_axis_tkeep,
    output wire                          m_axis_tvalid,
    input  wire                          m_axis_tready,
    output wire                          m_axis_tlast,
    output wire                          m_axis_tuser,

    /*
     * Status pulses, one per frame, the cycle after its last beat left
     */
    output wire                          stat_frame,
    output wire                          stat_payload_error
);

localparam LANE_BITS = $clog2(KEEP_WIDTH);
localparam HDR_WIDTH = `HROCE_ROCE_HDR_WIDTH;
// The longest header: Ethernet + tag (18), IPv6 (40), UDP (8), BTH (12), AtomicETH (28)
localparam HDR_BYTES = 106;
localparam IP_HDR_BYTES = HDR_BYTES - 18;
// IP header lengths: IPv4 without options, IPv6 without extension headers
localparam [15:0] IP4_HDR_LEN = 16'd20, IP6_HDR_LEN = `HROCE_IPV6_HDR_BYTES;
// UDP, BTH and the extension headers, which follow either
localparam TP_BYTES = IP_HDR_BYTES - IP6_HDR_LEN;
// The beats that hold header bytes
localparam HDR_BEATS = (HDR_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;
// A beat in the FIFO: data, keep, last, user, the ICRC's quad of lanes, ICRC here, done
localparam BEAT_WIDTH = DATA_WIDTH + KEEP_WIDTH + 2 + LANE_BITS + 2;

// check configuration
initial begin
    if (DATA_WIDTH != 64 && DATA_WIDTH != 128 && DATA_WIDTH != 256 && DATA_WIDTH != 512) begin
        $error("Error: DATA_WIDTH must be 64, 128, 256 or 512 (instance %m)");
        $finish;
    end

    if (KEEP_WIDTH * 8 != DATA_WIDTH) begin
        $error("Error: KEEP_WIDTH must be DATA_WIDTH/8 (instance %m)");
        $finish;
    end

    if (FIFO_ADDR_WIDTH < 2) begin
        $error("Error: FIFO_ADDR_WIDTH must be at least 2 (instance %m)");
        $finish;
    end
end

/*
 * Stage 1: the header; its opcode decoded, the IP length and most of the IP checksum
 * summed, and the two halves of the QPN product for the source port hash (24 x 12 bits
 * each, one DSP slice apiece; stage 2 adds them), so that stage 2 is short
 */
reg h1_valid_reg = 1'b0, h1_valid_next;
reg [HDR_WIDTH-1:0] h1_hdr_reg = {HDR_WIDTH{1'b0}};
reg [35:0] h1_prod_lo_reg = 36'd0, h1_prod_hi_reg = 36'd0;
reg h1_deth_reg = 1'b0, h1_reth_reg = 1'b0, h1_atomic_reg = 1'b0, h1_aeth_reg = 1'b0;
reg h1_atomicack_reg = 1'b0, h1_immdt_reg = 1'b0, h1_ieth_reg = 1'b0;
reg [4:0] h1_ext_len_reg = 5'd0;        // bytes of extension headers
reg [15:0] h1_ip_len_reg = 16'd0;       // the IP packet's length (IPv4's total length)
reg [18:0] h1_csum_reg = 19'd0;         // the IPv4 checksum's sum, but for the total length

wire ctx_load;                          // stage 2 takes stage 1's header this cycle
wire h1_load = s_hdr_valid && s_hdr_ready;
wire [23:0] s_src_qpn = s_hdr_data[`HROCE_ROCE_HDR_SRC_QPN];
wire [23:0] s_dqpn = s_hdr_data[`HROCE_ROCE_HDR_BTH_DQPN];
wire [12:0] s_payload_len = s_hdr_data[`HROCE_ROCE_HDR_PAYLOAD_LEN];
wire [31:0] s_ip_src = s_hdr_data[`HROCE_ROCE_HDR_IP_SRC];
wire [31:0] s_ip_dst = s_hdr_data[`HROCE_ROCE_HDR_IP_DST];

wire s_deth, s_reth, s_atomic, s_aeth, s_atomicack, s_immdt, s_ieth;
wire [4:0] s_ext_len;

// an opcode it does not know has no extension header: the frame is BTH and payload
roce_opcode opcode_inst (
    .opcode(s_hdr_data[`HROCE_ROCE_HDR_BTH_OPCODE]),
    .valid(),
    .has_deth(s_deth),
    .has_reth(s_reth),
    .has_atomic(s_atomic),
    .has_aeth(s_aeth),
    .has_atomicack(s_atomicack),
    .has_immdt(s_immdt),
    .has_ieth(s_ieth),
    .has_payload(),
    .ext_len(s_ext_len)
);

// IP header, UDP header (8), BTH (12), extension headers, payload, pad, ICRC (4)
wire [1:0] s_pad = 2'd0 - s_payload_len[1:0];
wire [15:0] s_ip_hdr_len = s_hdr_data[`HROCE_ROCE_HDR_IP6] ? IP6_HDR_LEN : IP4_HDR_LEN;
wire [15:0] s_ip_len = s_ip_hdr_len + 16'd24 + {11'd0, s_ext_len} + {3'd0, s_payload_len} +
                       {14'd0, s_pad};
// the checksum's 16-bit words that the header gives: version/IHL/TOS, ID, flags, TTL and
// protocol, addresses
wire [18:0] s_csum = {3'd0, 8'h45, s_hdr_data[`HROCE_ROCE_HDR_IP_DSCP], s_hdr_data[`HROCE_ROCE_HDR_IP_ECN]} +
                     {3'd0, s_hdr_data[`HROCE_ROCE_HDR_IP_ID]} +
                     {3'd0, s_hdr_data[`HROCE_ROCE_HDR_IP_FLAGS], 13'd0} +
                     {3'd0, s_hdr_data[`HROCE_ROCE_HDR_IP_TTL], `HROCE_IP_PROTO_UDP} +
                     {3'd0, s_ip_src[31:16]} + {3'd0, s_ip_src[15:0]} +
                     {3'd0, s_ip_dst[31:16]} + {3'd0, s_ip_dst[15:0]};

assign s_hdr_ready = !h1_valid_reg || ctx_load;

always @* begin
    h1_valid_next = h1_load || (h1_valid_reg && !ctx_load);
end

always @(posedge clk) begin
    h1_valid_reg <= h1_valid_next;

    if (h1_load) begin
        h1_hdr_reg <= s_hdr_data;
        h1_prod_lo_reg <= {12'd0, s_src_qpn} * {24'd0, s_dqpn[11:0]};
        h1_prod_hi_reg <= {12'd0, s_src_qpn} * {24'd0, s_dqpn[23:12]};
        h1_deth_reg <= s_deth;
        h1_reth_reg <= s_reth;
        h1_atomic_reg <= s_atomic;
        h1_aeth_reg <= s_aeth;
        h1_atomicack_reg <= s_atomicack;
        h1_immdt_reg <= s_immdt;
        h1_ieth_reg <= s_ieth;
        h1_ext_len_reg <= s_ext_len;
        h1_ip_len_reg <= s_ip_len;
        h1_csum_reg <= s_csum;
    end

    if (rst) begin
        h1_valid_reg <= 1'b0;
    end
end

/*
 * Stage 1 to 2: the frame's bytes and lengths
 */
wire [7:0] opcode = h1_hdr_reg[`HROCE_ROCE_HDR_BTH_OPCODE];
wire [12:0] payload_len = h1_hdr_reg[`HROCE_ROCE_HDR_PAYLOAD_LEN];
wire vlan = h1_hdr_reg[`HROCE_ROCE_HDR_VLAN_VALID];
wire ip6 = h1_hdr_reg[`HROCE_ROCE_HDR_IP6];
wire [15:0] ip_hdr_len = ip6 ? IP6_HDR_LEN : IP4_HDR_LEN;

// the flow label of the QP pair, folded into 14 bits (as Linux's rdma_flow_label_to_udp_sport):
// v = SRC_QPN * DQPN; v ^= v >> 20; v ^= v >> 40; the low 20 bits
wire [47:0] qpn_product = {12'd0, h1_prod_lo_reg} + {h1_prod_hi_reg, 12'd0};
wire [19:0] fl = qpn_product[19:0] ^ qpn_product[39:20] ^ {12'd0, qpn_product[47:40]};
wire [15:0] sport_hash = `HROCE_ROCE_UDP_SPORT_MIN | {2'b00, fl[13:0] ^ {8'd0, fl[19:14]}};
wire [15:0] sport = h1_hdr_reg[`HROCE_ROCE_HDR_UDP_SPORT] != 16'd0 ?
                    h1_hdr_reg[`HROCE_ROCE_HDR_UDP_SPORT] : sport_hash;

wire [1:0] pad = 2'd0 - payload_len[1:0];
wire [15:0] ip_len = h1_ip_len_reg;
wire [15:0] l2_len = vlan ? 16'd18 : 16'd14;
wire [15:0] hdr_len = l2_len + ip_hdr_len + 16'd20 + {11'd0, h1_ext_len_reg};
wire [15:0] frame_len = l2_len + ip_len;
wire short_frame = PAD_MIN_FRAME != 0 && frame_len < `HROCE_ROCE_MIN_FRAME;
localparam [13:0] KEEP_MASK14 = KEEP_WIDTH[13:0] - 14'd1;
wire [13:0] pay_beats = ({1'b0, payload_len} + KEEP_MASK14) >> LANE_BITS;
// the frame's boundaries: first payload byte (hdr_len), first byte after the payload, last
// byte the ICRC covers (the last pad byte), first ICRC byte (2 mod 4, as hdr_len: its four
// bytes span two beats only from the beat's last two lanes), last byte of the frame
wire [15:0] pay_end = hdr_len + {3'd0, payload_len};
wire [15:0] icrc_pos = l2_len + ip_len - 16'd4;
wire [15:0] cov_last = l2_len + ip_len - 16'd5;
wire [15:0] out_last = short_frame ? `HROCE_ROCE_MIN_FRAME - 16'd1 : l2_len + ip_len - 16'd1;
localparam [LANE_BITS-1:0] SPLIT_LANE = {{LANE_BITS-1{1'b1}}, 1'b0}; // KEEP_WIDTH - 2
wire icrc_split = icrc_pos[LANE_BITS-1:0] == SPLIT_LANE;

wire [47:0] eth_src = h1_hdr_reg[`HROCE_ROCE_HDR_ETH_SRC];
// IPv4's TOS, IPv6's traffic class
wire [7:0] ip_tos = {h1_hdr_reg[`HROCE_ROCE_HDR_IP_DSCP], h1_hdr_reg[`HROCE_ROCE_HDR_IP_ECN]};
wire [15:0] ip_frag = {h1_hdr_reg[`HROCE_ROCE_HDR_IP_FLAGS], 13'd0};
wire [19:0] csum_sum = {1'b0, h1_csum_reg} + {4'd0, ip_len};
wire [16:0] csum_fold1 = {1'b0, csum_sum[15:0]} + {13'd0, csum_sum[19:16]};
wire [15:0] csum_fold2 = csum_fold1[15:0] + {15'd0, csum_fold1[16]};
wire [15:0] ip_csum = ~csum_fold2;
wire [15:0] ethertype = ip6 ? `HROCE_ETH_TYPE_IPV6 : `HROCE_ETH_TYPE_IPV4;

// the transport headers (UDP, BTH, extension headers), the IP packet's header bytes with
// them after the IP header, then the frame's: each field big-endian at its offset
reg [TP_BYTES*8-1:0] tp;
reg [IP_HDR_BYTES*8-1:0] ip;
reg [HDR_BYTES*8-1:0] hdr_bytes;
reg [127:0] f;
integer put_i;

// the n low bytes of f, most significant first, at byte offset o of vector v
`define TX_PUT(v, n, o) for (put_i = 0; put_i < (n); put_i = put_i + 1) v[((o) + put_i)*8 +: 8] = f[((n) - 1 - put_i)*8 +: 8]

always @* begin
    tp = {TP_BYTES*8{1'b0}};
    f = {64'd0, sport, `HROCE_ROCE_UDP_PORT, ip_len - ip_hdr_len, 16'd0};
    `TX_PUT(tp, 8, 0);
    f = {96'd0, opcode, h1_hdr_reg[`HROCE_ROCE_HDR_BTH_SE],
         h1_hdr_reg[`HROCE_ROCE_HDR_BTH_MIGREQ], pad, h1_hdr_reg[`HROCE_ROCE_HDR_BTH_TVER],
         h1_hdr_reg[`HROCE_ROCE_HDR_BTH_PKEY]};
    `TX_PUT(tp, 4, 8);
    f = {64'd0, h1_hdr_reg[`HROCE_ROCE_HDR_BTH_FECN], h1_hdr_reg[`HROCE_ROCE_HDR_BTH_BECN], 6'd0,
         h1_hdr_reg[`HROCE_ROCE_HDR_BTH_DQPN], h1_hdr_reg[`HROCE_ROCE_HDR_BTH_ACKREQ], 7'd0,
         h1_hdr_reg[`HROCE_ROCE_HDR_BTH_PSN]};
    `TX_PUT(tp, 8, 12);
    // extension headers from byte 20, in IBTA order
    if (h1_deth_reg) begin
        f = {64'd0, h1_hdr_reg[`HROCE_ROCE_HDR_DETH_QKEY], 8'd0, h1_hdr_reg[`HROCE_ROCE_HDR_DETH_SRC_QP]};
        `TX_PUT(tp, 8, 20);
    end
    if (h1_reth_reg) begin
        f = {h1_hdr_reg[`HROCE_ROCE_HDR_RETH_VA], h1_hdr_reg[`HROCE_ROCE_HDR_RETH_RKEY],
             h1_hdr_reg[`HROCE_ROCE_HDR_RETH_DMA_LEN]};
        `TX_PUT(tp, 16, 20);
    end
    if (h1_atomic_reg) begin
        f = {32'd0, h1_hdr_reg[`HROCE_ROCE_HDR_ATOMIC_VA], h1_hdr_reg[`HROCE_ROCE_HDR_ATOMIC_RKEY]};
        `TX_PUT(tp, 12, 20);
        f = {h1_hdr_reg[`HROCE_ROCE_HDR_ATOMIC_SWAP_ADD], h1_hdr_reg[`HROCE_ROCE_HDR_ATOMIC_COMPARE]};
        `TX_PUT(tp, 16, 32);
    end
    if (h1_aeth_reg) begin
        f = {96'd0, h1_hdr_reg[`HROCE_ROCE_HDR_AETH_SYNDROME], h1_hdr_reg[`HROCE_ROCE_HDR_AETH_MSN]};
        `TX_PUT(tp, 4, 20);
    end
    if (h1_atomicack_reg) begin
        f = {64'd0, h1_hdr_reg[`HROCE_ROCE_HDR_ATOMICACK_ORIG]};
        `TX_PUT(tp, 8, 24);
    end
    if (h1_immdt_reg) begin
        f = {96'd0, h1_hdr_reg[`HROCE_ROCE_HDR_IMMDT]};
        if (h1_deth_reg) begin
            `TX_PUT(tp, 4, 28);
        end else if (h1_reth_reg) begin
            `TX_PUT(tp, 4, 36);
        end else begin
            `TX_PUT(tp, 4, 20);
        end
    end
    if (h1_ieth_reg) begin
        f = {96'd0, h1_hdr_reg[`HROCE_ROCE_HDR_IETH_RKEY]};
        `TX_PUT(tp, 4, 20);
    end

    ip = {IP_HDR_BYTES*8{1'b0}};
    if (ip6) begin
        f = {64'd0, 4'd6, ip_tos, h1_hdr_reg[`HROCE_ROCE_HDR_IP6_FLOW_LABEL], ip_len - IP6_HDR_LEN,
             `HROCE_IP_PROTO_UDP, h1_hdr_reg[`HROCE_ROCE_HDR_IP_TTL]};
        `TX_PUT(ip, 8, 0);
        f = h1_hdr_reg[`HROCE_ROCE_HDR_IP6_SRC];
        `TX_PUT(ip, 16, 8);
        f = h1_hdr_reg[`HROCE_ROCE_HDR_IP6_DST];
        `TX_PUT(ip, 16, 24);
        ip[IP6_HDR_LEN*8 +: TP_BYTES*8] = tp;
    end else begin
        f = {64'd0, 8'h45, ip_tos, ip_len, h1_hdr_reg[`HROCE_ROCE_HDR_IP_ID], ip_frag};
        `TX_PUT(ip, 8, 0);
        f = {64'd0, h1_hdr_reg[`HROCE_ROCE_HDR_IP_TTL], `HROCE_IP_PROTO_UDP, ip_csum,
             h1_hdr_reg[`HROCE_ROCE_HDR_IP_SRC]};
        `TX_PUT(ip, 8, 8);
        f = {96'd0, h1_hdr_reg[`HROCE_ROCE_HDR_IP_DST]};
        `TX_PUT(ip, 4, 16);
        ip[IP4_HDR_LEN*8 +: TP_BYTES*8] = tp;
    end

    hdr_bytes = {HDR_BYTES*8{1'b0}};
    f = {64'd0, h1_hdr_reg[`HROCE_ROCE_HDR_ETH_DST], eth_src[47:32]};
    `TX_PUT(hdr_bytes, 8, 0);
    if (vlan) begin
        f = {64'd0, eth_src[31:0], `HROCE_ETH_TYPE_VLAN, h1_hdr_reg[`HROCE_ROCE_HDR_VLAN_TCI]};
        `TX_PUT(hdr_bytes, 8, 8);
        f = {112'd0, ethertype};
        `TX_PUT(hdr_bytes, 2, 16);
        hdr_bytes[18*8 +: IP_HDR_BYTES*8] = ip;
    end else begin
        f = {80'd0, eth_src[31:0], ethertype};
        `TX_PUT(hdr_bytes, 6, 8);
        hdr_bytes[14*8 +: IP_HDR_BYTES*8] = ip;
    end
end

`undef TX_PUT

/*
 * Stage 2: the frame being generated, and the beat generator. Beat b holds frame bytes
 * [b*KEEP_WIDTH, (b+1)*KEEP_WIDTH). From the beat that holds the first payload byte on,
 * each beat takes one payload beat: its lanes from SH (= header length mod KEEP_WIDTH) up
 * carry that beat's first bytes, the lanes below SH the previous payload beat's last ones.
 *
 * Each boundary of the frame is kept as the beat it falls in and the lanes it splits in
 * that beat, so that a lane knows which side it is on from two comparisons of the beat
 * count that all lanes share.
 */
localparam BEAT_BITS = 16 - LANE_BITS;

reg ctx_valid_reg = 1'b0, ctx_valid_next;
reg [HDR_BYTES*8-1:0] ctx_hdr_reg = {HDR_BYTES*8{1'b0}};
reg [15:0] ctx_l2_reg = 16'd0;                        // first byte the ICRC covers
reg ctx_ip6_reg = 1'b0;                               // the IP header is IPv6's
reg [LANE_BITS-3:0] ctx_sh_reg = {LANE_BITS-2{1'b0}}; // header length mod KEEP_WIDTH, / 4
reg [LANE_BITS-1:0] ctx_icrc_quad_reg = {LANE_BITS{1'b0}}; // first ICRC byte / 4, mod KEEP_WIDTH
reg [13:0] ctx_pay_beats_reg = 14'd0;                 // payload beats to take
reg [KEEP_WIDTH-1:0] ctx_pay_keep_reg = {KEEP_WIDTH{1'b0}}; // tkeep of the last one
// beats of the boundaries
reg [BEAT_BITS-1:0] ctx_hdr_beat_reg = {BEAT_BITS{1'b0}};  // first payload byte
reg [BEAT_BITS-1:0] ctx_pay_beat_reg = {BEAT_BITS{1'b0}};  // first byte after the payload
reg [BEAT_BITS-1:0] ctx_l2_beat_reg = {BEAT_BITS{1'b0}};   // first covered byte
reg [BEAT_BITS-1:0] ctx_cov_beat_reg = {BEAT_BITS{1'b0}};  // last covered byte
reg [BEAT_BITS-1:0] ctx_icrc_beat_reg = {BEAT_BITS{1'b0}}; // first ICRC byte
reg [BEAT_BITS-1:0] ctx_icrc_end_beat_reg = {BEAT_BITS{1'b0}}; // last ICRC byte
reg [BEAT_BITS-1:0] ctx_last_beat_reg = {BEAT_BITS{1'b0}}; // last byte of the frame
// in the boundary's beat, the lanes on the frame's side of it
reg [KEEP_WIDTH-1:0] ctx_hdr_lanes_reg = {KEEP_WIDTH{1'b0}};  // below the first payload byte
reg [KEEP_WIDTH-1:0] ctx_pay_lanes_reg = {KEEP_WIDTH{1'b0}};  // below the end of the payload
reg [KEEP_WIDTH-1:0] ctx_l2_lanes_reg = {KEEP_WIDTH{1'b0}};   // from the first covered byte
reg [KEEP_WIDTH-1:0] ctx_cov_lanes_reg = {KEEP_WIDTH{1'b0}};  // to the last covered byte
reg [KEEP_WIDTH-1:0] ctx_last_lanes_reg = {KEEP_WIDTH{1'b0}}; // to the last byte

reg [BEAT_BITS-1:0] beat_reg = {BEAT_BITS{1'b0}}, beat_next; // the beat being generated
reg [13:0] pay_taken_reg = 14'd0, pay_taken_next; // payload beats taken for this frame
reg pay_ended_reg = 1'b0, pay_ended_next;       // tlast came early: the rest is zeros
reg pay_error_reg = 1'b0, pay_error_next;       // the payload stream disagreed with PAYLOAD_LEN
reg discard_reg = 1'b0, discard_next;           // dropping extra payload beats up to tlast
// the last payload beat taken, but for its first two lanes, which no SH reaches
reg [DATA_WIDTH-17:0] prev_reg = {DATA_WIDTH-16{1'b0}};
reg [DATA_WIDTH-1:0] pay_now;                   // the payload beat offered, zeros outside tkeep

// the boundary lanes of a frame about to be loaded
reg [KEEP_WIDTH-1:0] hdr_lanes, pay_lanes, l2_lanes, cov_lanes, last_lanes;
integer lane_i;

always @* begin
    for (lane_i = 0; lane_i < KEEP_WIDTH; lane_i = lane_i + 1) begin
        hdr_lanes[lane_i] = lane_i < hdr_len[LANE_BITS-1:0];
        pay_lanes[lane_i] = lane_i < pay_end[LANE_BITS-1:0];
        l2_lanes[lane_i] = lane_i >= l2_len[LANE_BITS-1:0];
        cov_lanes[lane_i] = lane_i <= cov_last[LANE_BITS-1:0];
        last_lanes[lane_i] = lane_i <= out_last[LANE_BITS-1:0];
    end
end

// bytes in the last payload beat
wire [LANE_BITS:0] last_bytes = payload_len[LANE_BITS-1:0] == 0 ? KEEP_WIDTH[LANE_BITS:0] :
                                {1'b0, payload_len[LANE_BITS-1:0]};

wire g_ready;                           // the generator's output register can take a beat
wire gen_go;                            // a beat is generated this cycle
wire gen_last = beat_reg == ctx_last_beat_reg;

// the beat's payload slot: the next payload beat belongs here (zeros once tlast came early)
wire pay_slot = ctx_pay_beats_reg != pay_taken_reg && beat_reg >= ctx_hdr_beat_reg;
wire pay_want = pay_slot && !pay_ended_reg;
wire pay_take = gen_go && pay_want;
wire discard_go = discard_reg && s_axis_tvalid;

// a beat that needs payload waits for it, and for the previous frame's extra beats to go
assign gen_go = ctx_valid_reg && g_ready && (!pay_want || (s_axis_tvalid && !discard_reg));
assign ctx_load = h1_valid_reg && (!ctx_valid_reg || (gen_go && gen_last));
assign s_axis_tready = discard_reg || (ctx_valid_reg && g_ready && pay_want);

// a short payload ends before its last beat; a long one goes on after it; either may
// fill its last beat wrongly; a beat before the last must be full
wire pay_last_beat = pay_taken_reg + 14'd1 == ctx_pay_beats_reg;
wire pay_short = pay_take && s_axis_tlast && !pay_last_beat;
wire pay_long = pay_take && !s_axis_tlast && pay_last_beat;
wire pay_keep_bad = pay_take && s_axis_tkeep != (pay_last_beat ? ctx_pay_keep_reg : {KEEP_WIDTH{1'b1}});
wire pay_failed = pay_take && s_axis_tuser;
wire gen_error = pay_error_reg || pay_short || pay_long || pay_keep_bad || pay_failed;

always @* begin
    ctx_valid_next = ctx_valid_reg;
    beat_next = beat_reg;
    pay_taken_next = pay_taken_reg;
    pay_ended_next = pay_ended_reg;
    pay_error_next = pay_error_reg;
    discard_next = discard_reg;

    if (ctx_load) begin
        ctx_valid_next = 1'b1;
    end else if (gen_go && gen_last) begin
        ctx_valid_next = 1'b0;
    end

    if (gen_go) begin
        if (gen_last) begin
            beat_next = {BEAT_BITS{1'b0}};
            pay_taken_next = 14'd0;
            pay_ended_next = 1'b0;
            pay_error_next = 1'b0;
        end else begin
            beat_next = beat_reg + 1'b1;
            pay_taken_next = pay_taken_reg + {13'd0, pay_slot};
            pay_ended_next = pay_ended_reg || pay_short;
            pay_error_next = gen_error;
        end
    end

    if (pay_long) begin
        discard_next = 1'b1;
    end else if (discard_go && s_axis_tlast) begin
        discard_next = 1'b0;
    end
end

always @(posedge clk) begin
    ctx_valid_reg <= ctx_valid_next;
    beat_reg <= beat_next;
    pay_taken_reg <= pay_taken_next;
    pay_ended_reg <= pay_ended_next;
    pay_error_reg <= pay_error_next;
    discard_reg <= discard_next;

    if (ctx_load) begin
        ctx_hdr_reg <= hdr_bytes;
        ctx_l2_reg <= l2_len;
        ctx_ip6_reg <= ip6;
        ctx_sh_reg <= hdr_len[LANE_BITS-1:2];
        ctx_icrc_quad_reg <= icrc_pos[LANE_BITS+1:2];
        ctx_pay_beats_reg <= pay_beats;
        ctx_pay_keep_reg <= ~({KEEP_WIDTH{1'b1}} << last_bytes);
        ctx_hdr_beat_reg <= hdr_len[15:LANE_BITS];
        ctx_pay_beat_reg <= pay_end[15:LANE_BITS];
        ctx_l2_beat_reg <= l2_len[15:LANE_BITS];
        ctx_cov_beat_reg <= cov_last[15:LANE_BITS];
        ctx_icrc_beat_reg <= icrc_pos[15:LANE_BITS];
        ctx_icrc_end_beat_reg <= icrc_pos[15:LANE_BITS] + {{BEAT_BITS-1{1'b0}}, icrc_split};
        ctx_last_beat_reg <= out_last[15:LANE_BITS];
        ctx_hdr_lanes_reg <= hdr_lanes;
        ctx_pay_lanes_reg <= pay_lanes;
        ctx_l2_lanes_reg <= l2_lanes;
        ctx_cov_lanes_reg <= cov_lanes;
        ctx_last_lanes_reg <= last_lanes;
    end

    if (gen_go && pay_slot) begin
        prev_reg <= pay_now[DATA_WIDTH-1:16];
    end

    if (rst) begin
        ctx_valid_reg <= 1'b0;
        beat_reg <= {BEAT_BITS{1'b0}};
        pay_taken_reg <= 14'd0;
        pay_ended_reg <= 1'b0;
        pay_error_reg <= 1'b0;
        discard_reg <= 1'b0;
    end
end

// where this beat stands against each boundary, the same for every lane
wire hdr_before = beat_reg < ctx_hdr_beat_reg, hdr_at = beat_reg == ctx_hdr_beat_reg;
wire pay_before = beat_reg < ctx_pay_beat_reg, pay_at = beat_reg == ctx_pay_beat_reg;
wire l2_after = beat_reg > ctx_l2_beat_reg, l2_at = beat_reg == ctx_l2_beat_reg;
wire cov_before = beat_reg < ctx_cov_beat_reg, cov_at = beat_reg == ctx_cov_beat_reg;
wire icrc_here = beat_reg >= ctx_icrc_beat_reg && beat_reg <= ctx_icrc_end_beat_reg;
wire icrc_done = beat_reg == ctx_icrc_end_beat_reg;
// the ICRC's first byte is 2 mod 4 lanes from the beat's lane 0 (maybe before it): which
// group of four lanes holds it, as a signed count (mod KEEP_WIDTH: -1 is never a lane's)
wire [LANE_BITS-1:0] icrc_quad = ctx_icrc_quad_reg - {beat_reg[1:0], {LANE_BITS-2{1'b0}}};

// every RoCE header is 2 mod 4 bytes long (IPv4 without options, IPv6 without extension
// headers): SH = 4 * ctx_sh_reg + 2,
// so a lane picks its payload byte among KEEP_WIDTH/4 of the window's, which holds the
// previous payload beat from lane 2 and this one up to lane KEEP_WIDTH-3
localparam SHIFTS = KEEP_WIDTH / 4;
wire [2*DATA_WIDTH-33:0] window = {pay_now[DATA_WIDTH-17:0], prev_reg};
wire [KEEP_WIDTH-1:0] masked, masked_low;

roce_icrc_mask #(
    .KEEP_WIDTH(KEEP_WIDTH)
)
icrc_mask_inst (
    .ip_offset({beat_reg, {LANE_BITS{1'b0}}} - ctx_l2_reg),
    .ipv6(ctx_ip6_reg),
    .mask(masked),
    .mask_low(masked_low)
);

reg [DATA_WIDTH-1:0] gen_data;
reg [KEEP_WIDTH-1:0] gen_keep, gen_crc_keep;

genvar g, j;
generate
    for (g = 0; g < KEEP_WIDTH; g = g + 1) begin : lane
        wire in_hdr = hdr_before || (hdr_at && ctx_hdr_lanes_reg[g]);
        wire in_pay = pay_before || (pay_at && ctx_pay_lanes_reg[g]);
        // the payload byte KEEP_WIDTH + g - SH of {this beat, the previous one}, for each SH
        wire [SHIFTS*8-1:0] pay_choice;
        wire [7:0] pay_byte = pay_choice[ctx_sh_reg*8 +: 8];
        reg [7:0] hdr_byte;
        integer k;

        for (j = 0; j < SHIFTS; j = j + 1) begin : shift
            assign pay_choice[j*8 +: 8] = window[(KEEP_WIDTH + g - 4*j - 4)*8 +: 8];
        end

        always @* begin
            // whatever the payload holds outside its tkeep, the frame has zeros there
            pay_now[g*8 +: 8] = pay_want && s_axis_tkeep[g] ? s_axis_tdata[g*8 +: 8] : 8'd0;

            hdr_byte = 8'd0;
            for (k = 0; k < HDR_BEATS; k = k + 1) begin
                if (k * KEEP_WIDTH + g < HDR_BYTES && {{32-BEAT_BITS{1'b0}}, beat_reg} == k) begin
                    hdr_byte = ctx_hdr_reg[(k * KEEP_WIDTH + g)*8 +: 8];
                end
            end
            gen_data[g*8 +: 8] = in_hdr ? hdr_byte : in_pay ? pay_byte : 8'd0;
            gen_keep[g] = !gen_last || ctx_last_lanes_reg[g];
            // covered: from the IP header to the last pad byte
            gen_crc_keep[g] = (l2_after || (l2_at && ctx_l2_lanes_reg[g])) &&
                              (cov_before || (cov_at && ctx_cov_lanes_reg[g]));
        end
    end
endgenerate

/*
 * Stage 3: the generated beat, on its way to the ICRC and the beat FIFO together
 */
reg g_valid_reg = 1'b0, g_valid_next;
reg [DATA_WIDTH-1:0] g_data_reg = {DATA_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0] g_keep_reg = {KEEP_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0] g_crc_keep_reg = {KEEP_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0] g_masked_reg = {KEEP_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0] g_masked_low_reg = {KEEP_WIDTH{1'b0}};
reg g_crc_first_reg = 1'b0, g_crc_last_reg = 1'b0;
reg g_last_reg = 1'b0, g_user_reg = 1'b0;
reg g_icrc_here_reg = 1'b0, g_icrc_done_reg = 1'b0;
reg [LANE_BITS-1:0] g_icrc_quad_reg = {LANE_BITS{1'b0}};

wire fifo_ready;
wire g_move = g_valid_reg && fifo_ready;
assign g_ready = !g_valid_reg || fifo_ready;

always @* begin
    g_valid_next = gen_go || (g_valid_reg && !fifo_ready);
end

always @(posedge clk) begin
    g_valid_reg <= g_valid_next;

    if (gen_go) begin
        g_data_reg <= gen_data;
        g_keep_reg <= gen_keep;
        g_crc_keep_reg <= gen_crc_keep;
        g_masked_reg <= masked;
        g_masked_low_reg <= masked_low;
        g_crc_first_reg <= l2_at;
        g_crc_last_reg <= cov_at;
        g_last_reg <= gen_last;
        g_user_reg <= gen_last && gen_error;
        g_icrc_here_reg <= icrc_here;
        g_icrc_done_reg <= icrc_done;
        g_icrc_quad_reg <= icrc_quad;
    end

    if (rst) begin
        g_valid_reg <= 1'b0;
    end
end

// the variant fields read as ones (roce_icrc_mask says which)
reg [DATA_WIDTH-1:0] crc_data;
integer crc_i;

always @* begin
    for (crc_i = 0; crc_i < KEEP_WIDTH; crc_i = crc_i + 1) begin
        crc_data[crc_i*8 +: 8] = g_masked_reg[crc_i] ? 8'hff : g_data_reg[crc_i*8 +: 8];
        if (g_masked_low_reg[crc_i]) begin
            crc_data[crc_i*8 +: 4] = 4'hf;
        end
    end
end

/*
 * The ICRC, and the beats waiting for it
 */
wire [31:0] icrc;
wire icrc_valid;

roce_icrc #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH)
)
icrc_inst (
    .clk(clk),
    .rst(rst),
    .s_data(crc_data),
    .s_keep(g_crc_keep_reg),
    .s_valid(g_move),
    .s_first(g_crc_first_reg),
    .s_last(g_crc_last_reg),
    .m_icrc(icrc),
    .m_valid(icrc_valid)
);

wire [31:0] r_icrc;
wire r_valid, r_ready;

// Results wait for their frame's ICRC beat. A frame with a result on its way has a beat in
// the beat FIFO or is still being generated: this FIFO, twice as deep, never fills
fifo_sync #(
    .WIDTH(32),
    .ADDR_WIDTH(FIFO_ADDR_WIDTH + 1)
)
result_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data(icrc),
    .s_valid(icrc_valid),
    .s_ready(),
    .m_data(r_icrc),
    .m_valid(r_valid),
    .m_ready(r_ready),
    .count()
);

wire [DATA_WIDTH-1:0] b_data;
wire [KEEP_WIDTH-1:0] b_keep;
wire b_last, b_user, b_icrc_here, b_icrc_done;
wire [LANE_BITS-1:0] b_icrc_quad;
wire b_valid, b_ready;

fifo_sync #(
    .WIDTH(BEAT_WIDTH),
    .ADDR_WIDTH(FIFO_ADDR_WIDTH)
)
beat_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data({g_data_reg, g_keep_reg, g_last_reg, g_user_reg, g_icrc_quad_reg,
             g_icrc_here_reg, g_icrc_done_reg}),
    .s_valid(g_valid_reg),
    .s_ready(fifo_ready),
    .m_data({b_data, b_keep, b_last, b_user, b_icrc_quad, b_icrc_here, b_icrc_done}),
    .m_valid(b_valid),
    .m_ready(b_ready),
    .count()
);

/*
 * Output: the ICRC's bytes go into their lanes as the beats leave. Its first byte sits at
 * lane 2 of quad Q (Q = -1: in the previous beat), so lanes 2 and 3 of quad Q take bytes
 * 0 and 1, lanes 0 and 1 of quad Q+1 bytes 2 and 3: each lane has one candidate byte.
 */
wire out_ready;
wire out_valid = b_valid && (!b_icrc_here || r_valid);
assign b_ready = out_valid && out_ready;
assign r_ready = b_ready && b_icrc_done;

wire [LANE_BITS-1:0] b_icrc_quad_next = b_icrc_quad + 1'b1;
reg [DATA_WIDTH-1:0] out_data;
integer out_i;

always @* begin
    out_data = b_data;
    for (out_i = 0; out_i < KEEP_WIDTH; out_i = out_i + 1) begin
        if (b_icrc_here) begin
            if (out_i % 4 >= 2 && {{32-LANE_BITS{1'b0}}, b_icrc_quad} == out_i / 4) begin
                out_data[out_i*8 +: 8] = r_icrc[(out_i % 4 - 2)*8 +: 8];
            end
            if (out_i % 4 < 2 && {{32-LANE_BITS{1'b0}}, b_icrc_quad_next} == out_i / 4) begin
                out_data[out_i*8 +: 8] = r_icrc[(out_i % 4 + 2)*8 +: 8];
            end
        end
    end
end

axis_skid #(
    .WIDTH(DATA_WIDTH + KEEP_WIDTH + 2)
)
out_skid_inst (
    .clk(clk),
    .rst(rst),
    .s_data({b_user, b_last, b_keep, out_data}),
    .s_valid(out_valid),
    .s_ready(out_ready),
    .m_data({m_axis_tuser, m_axis_tlast, m_axis_tkeep, m_axis_tdata}),
    .m_valid(m_axis_tvalid),
    .m_ready(m_axis_tready)
);

/*
 * Status
 */
reg stat_frame_reg = 1'b0, stat_frame_next;
reg stat_payload_error_reg = 1'b0, stat_payload_error_next;

assign stat_frame = stat_frame_reg;
assign stat_payload_error = stat_payload_error_reg;

always @* begin
    stat_frame_next = m_axis_tvalid && m_axis_tready && m_axis_tlast;
    stat_payload_error_next = stat_frame_next && m_axis_tuser;
end

always @(posedge clk) begin
    stat_frame_reg <= stat_frame_next;
    stat_payload_error_reg <= stat_payload_error_next;

    if (rst) begin
        stat_frame_reg <= 1'b0;
        stat_payload_error_reg <= 1'b0;
    end
end

endmodule

`resetall
