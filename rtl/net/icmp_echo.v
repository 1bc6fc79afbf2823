/*

ICMP echo responder: answers echo requests to the core's IPv4 address (IPV6 clear) or
ICMPv6 echo requests to its IPv6 addresses (IPV6 set), so that the NIC can be pinged.

Takes IPv4 (ICMPv6) frames (Ethernet II without a tag, without FCS) at one beat per cycle
and never stalls. With IPV6 clear each frame is judged once, in this order, and counted by
its verdict:

- malformed: shorter than Ethernet + IPv4 + ICMP headers (42 bytes), not IPv4 version 4
  with a 20-byte header (options are not handled), a fragment (MF or an offset), an IP
  total length under 28 or beyond the frame's end, not ICMP, or a wrong IP checksum;
- not ours: the IPv4 destination is not cfg_ipv4, or the Ethernet one not cfg_mac;
- ignored: an ICMP message other than an echo request (type 8, code 0);
- malformed: the Ethernet source is a group (multicast) address;
- too long: a frame of more than MAX_FRAME bytes (Ethernet + IP total length);
- malformed: a wrong ICMP checksum;
- overflow: the reply buffer had no room for a MAX_FRAME frame when the frame began;
- answered: the reply is queued.

The reply is the request with addresses swapped (Ethernet destination: the request's
source; source: cfg_mac; IPv4 source cfg_ipv4, destination the request's source), TTL
REPLY_TTL, type 0, the IPv4 and ICMP checksums computed anew, the rest of the IP packet
(identifier, sequence, data of any length) as it came, and zero padding to the Ethernet
minimum. Bytes of the request after its IP packet are not sent back.

With IPV6 set the block judges only ICMPv6 echo requests (at least 58 bytes, IPv6 with next
header ICMPv6, type 128): other ICMPv6 is nd's, and gets no verdict here (V_FOREIGN). An
echo request is malformed with a payload length under 8 or beyond the frame's end, not
ours when its destination is not one of the port's addresses (ip6_ours) or its Ethernet
destination not cfg_mac, malformed with a code other than 0 or a group Ethernet source,
too long, malformed with a
wrong checksum (RFC 4443: over the pseudo-header), overflow, or answered: the request with
addresses swapped (its destination, one of ours, becomes the source), hop limit REPLY_TTL,
type 129 and the checksum computed anew. The pseudo-header's sum does not change with the
swap, so the new checksum is the old sum with type 129 in place of 128.

    s_axis -+-> frame buffer (beats of frames that had room) ------+-> overlay -> m_axis
            +-> ICMP sum (32-bit, words from byte 38) -+            |
            +-> header snapshot ----------------------+-> verdict -> meta FIFO (per buffered
                                                                     frame: send or skip)

The checksum is summed as the beats come, a tree of adders per beat and one accumulator,
so its cost does not grow with MAX_FRAME; the buffer holds three MAX_FRAME frames.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module icmp_echo #
(
    // Width of the frame streams (64 to 512)
    parameter DATA_WIDTH = 512,
    // Width of tkeep
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // Longest request answered, in bytes (Ethernet header and IP packet)
    parameter MAX_FRAME = `HROCE_ICMP_MAX_FRAME,
    // Beats of the longest request
    parameter MAX_BEATS = (MAX_FRAME + KEEP_WIDTH - 1) / KEEP_WIDTH,
    // log2 of the beats the reply buffer holds: three longest requests, so that requests
    // back to back are all answered (one leaves, one is behind it, one is coming in)
    parameter BUFFER_ADDR_WIDTH = $clog2(3 * MAX_BEATS),
    // log2 of the frames the reply buffer may hold: enough for the shortest frames that
    // come in while two longest ones go out
    parameter META_ADDR_WIDTH = $clog2(2 * MAX_BEATS / ((60 + KEEP_WIDTH - 1) / KEEP_WIDTH) + 8),
    // TTL (hop limit) of the replies (Linux's default)
    parameter REPLY_TTL = 64,
    // 0: ICMP echo over IPv4; 1: ICMPv6 echo
    parameter IPV6 = 0,
    // Configured IPv6 addresses besides the link-local one (IPV6 set)
    parameter ADDRS = `HROCE_IPV6_ADDRS
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Configuration
     */
    input  wire [47:0]                   cfg_mac,
    input  wire [31:0]                   cfg_ipv4,        // IPV6 clear
    input  wire [ADDRS*128-1:0]          cfg_ip6,         // IPV6 set: as ip6_ours takes them
    input  wire [ADDRS-1:0]              cfg_ip6_valid,

    /*
     * IPv4 frames in (never back-pressured)
     */
    input  wire [DATA_WIDTH-1:0]         s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]         s_axis_tkeep,
    input  wire                          s_axis_tvalid,
    output wire                          s_axis_tready,
    input  wire                          s_axis_tlast,

    /*
     * Echo replies out
     */
    output wire [DATA_WIDTH-1:0]         m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]         m_axis_tkeep,
    output wire                          m_axis_tvalid,
    input  wire                          m_axis_tready,
    output wire                          m_axis_tlast,
    output wire                          m_axis_tuser,

    /*
     * Status: one pulse per frame, by verdict (contract NET_COUNTER ICMP_*)
     */
    output wire                          stat_answered,
    output wire                          stat_ignored,
    output wire                          stat_not_ours,
    output wire                          stat_malformed,
    output wire                          stat_too_long,
    output wire                          stat_overflow
);

// what the reply rewrites: Ethernet (14), IPv4 (20) or IPv6 (40), ICMP type, code and
// checksum (4); the checksum's running sum starts after them
localparam IP_BYTES = IPV6 != 0 ? `HROCE_IPV6_HDR_BYTES : 20;
localparam HDR_BYTES = 14 + IP_BYTES + 4;
localparam ADDR_WIDTH = IPV6 != 0 ? 128 : 32;
localparam HDR_BEATS = (HDR_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;
localparam LANE_BITS = $clog2(KEEP_WIDTH);
localparam WORDS = KEEP_WIDTH / 2;
localparam MIN_FRAME = {16'd0, `HROCE_ROCE_MIN_FRAME};
localparam META_DEPTH = 2**META_ADDR_WIDTH;
// per buffered frame: send, Ethernet source, IP source and destination, both new checksums,
// IP end, beats
localparam META_WIDTH = 1 + 48 + 2 * ADDR_WIDTH + 16 + 16 + 17 + 16;

initial begin
    if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || KEEP_WIDTH * 8 != DATA_WIDTH ||
        (1 << LANE_BITS) != KEEP_WIDTH) begin
        $error("Error: %m: DATA_WIDTH must be a power of two from 64 to 512 (%0d)", DATA_WIDTH);
        $finish;
    end
    if (MAX_FRAME < 60 || MAX_FRAME > 9216 || MAX_BEATS > 2**BUFFER_ADDR_WIDTH) begin
        $error("Error: %m: MAX_FRAME must be 60 to 9216 bytes and fit the buffer (%0d)",
               MAX_FRAME);
        $finish;
    end
end

integer i;
genvar g;

/*
 * Stage 0: each beat as it comes
 */
wire fire = s_axis_tvalid;

reg [15:0] pos_reg = 16'd0;           // bytes of the frame before this beat (saturating)
reg [HDR_BYTES*8-1:0] hdr_reg = {HDR_BYTES*8{1'b0}};
reg accept_reg = 1'b0;                // the frame goes into the buffer
reg [15:0] stored_reg = 16'd0;        // its beats written so far
wire first = pos_reg == 16'd0;

reg [LANE_BITS:0] beat_bytes;
always @* begin
    beat_bytes = 0;
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        if (s_axis_tkeep[i]) begin
            beat_bytes = beat_bytes + 1'b1;
        end
    end
end

wire [16:0] pos_sum = {1'b0, pos_reg} + {{16-LANE_BITS{1'b0}}, beat_bytes};
wire [15:0] pos_end = pos_sum[16] ? 16'hffff : pos_sum[15:0];

// the header as far as it has come, this beat included
reg [HDR_BYTES*8-1:0] hdr_now;
generate
    for (g = 0; g < HDR_BYTES; g = g + 1) begin : capture
        localparam BEAT_POS = (g / KEEP_WIDTH) * KEEP_WIDTH;
        always @* begin
            hdr_now[g*8 +: 8] = hdr_reg[g*8 +: 8];
            if ({16'd0, pos_reg} == BEAT_POS) begin
                hdr_now[g*8 +: 8] = s_axis_tdata[(g % KEEP_WIDTH)*8 +: 8];
            end
        end
    end
endgenerate

`define ICMP_NOW8(n) hdr_now[(n)*8 +: 8]
`define ICMP_HDR8(n) hdr_reg[(n)*8 +: 8]

// where the IP packet ends in the frame: its total length (IPv4) is known from byte 18 on,
// its payload length (IPv6) from byte 20 on
localparam LEN_AT = IPV6 != 0 ? 18 : 16;
localparam [16:0] LEN_BASE = IPV6 != 0 ? 17'd54 : 17'd14;
wire [16:0] ip_end_now = LEN_BASE + {1'b0, `ICMP_NOW8(LEN_AT), `ICMP_NOW8(LEN_AT + 1)};
wire [16:0] ip_end_seen = LEN_BASE + {1'b0, `ICMP_HDR8(LEN_AT), `ICMP_HDR8(LEN_AT + 1)};

// the ICMP sum from after type, code and checksum to the IP packet's end; words are at
// even offsets, and every beat starts at one
localparam [16:0] SUM_FROM = HDR_BYTES;
wire [16:0] sum_from = SUM_FROM - {1'b0, pos_reg};
wire [17:0] sum_to = {1'b0, ip_end_now} - {2'b0, pos_reg};
reg [KEEP_WIDTH-1:0] sum_lane;
always @* begin
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        sum_lane[i] = s_axis_tkeep[i] && (sum_from[16] || sum_from <= i[16:0]) &&
                      !sum_to[17] && sum_to > i[17:0];
    end
end

// a tree of adders over the beat's words: level k sums pairs of level k-1
localparam NODE_WIDTH = 16 + LANE_BITS;
localparam LEVELS = LANE_BITS;        // WORDS = 2**(LEVELS-1)
genvar k;
generate
    for (k = 0; k < LEVELS; k = k + 1) begin : level
        wire [(WORDS >> k)*NODE_WIDTH-1:0] sum;
        if (k == 0) begin : leaves
            for (g = 0; g < WORDS; g = g + 1) begin : word
                assign sum[g*NODE_WIDTH +: NODE_WIDTH] = {{LANE_BITS{1'b0}},
                    sum_lane[2*g] ? s_axis_tdata[(2*g)*8 +: 8] : 8'd0,
                    sum_lane[2*g+1] ? s_axis_tdata[(2*g+1)*8 +: 8] : 8'd0};
            end
        end else begin : adders
            for (g = 0; g < (WORDS >> k); g = g + 1) begin : pair
                assign sum[g*NODE_WIDTH +: NODE_WIDTH] =
                    level[k-1].sum[(2*g)*NODE_WIDTH +: NODE_WIDTH] +
                    level[k-1].sum[(2*g+1)*NODE_WIDTH +: NODE_WIDTH];
            end
        end
    end
endgenerate
wire [NODE_WIDTH-1:0] beat_sum = level[LEVELS-1].sum[NODE_WIDTH-1:0];

// room for a longest frame in the buffer, and for its entry in the meta FIFO
wire [BUFFER_ADDR_WIDTH+1:0] buf_count;
reg [META_ADDR_WIDTH:0] frames_reg = 0;   // frames in the buffer, entry written or not
wire room = {{32-BUFFER_ADDR_WIDTH-2{1'b0}}, buf_count} + MAX_BEATS <= 2**BUFFER_ADDR_WIDTH &&
            {{32-META_ADDR_WIDTH-1{1'b0}}, frames_reg} < META_DEPTH;
wire accept = first ? room : accept_reg;
// the beats the reply needs: up to the IP packet's end, at least the Ethernet minimum
wire store = fire && accept && {16'd0, pos_reg} < MAX_FRAME &&
             ({16'd0, pos_reg} < MIN_FRAME || {1'b0, pos_reg} < ip_end_seen);
wire [15:0] stored_now = stored_reg + {15'd0, store};

always @(posedge clk) begin
    if (fire) begin
        pos_reg <= s_axis_tlast ? 16'd0 : pos_end;
        hdr_reg <= hdr_now;
        accept_reg <= accept;
        stored_reg <= s_axis_tlast ? 16'd0 : stored_now;
    end

    if (rst) begin
        pos_reg <= 16'd0;
        stored_reg <= 16'd0;
    end
end

/*
 * Stage 1: the beat's sum into the accumulator; at a frame's end, the verdict
 */
reg s1_valid_reg = 1'b0;
reg s1_first_reg = 1'b0;
reg s1_last_reg = 1'b0;
reg [NODE_WIDTH-1:0] s1_sum_reg = 0;
reg [31:0] acc_reg = 32'd0;
reg [HDR_BYTES*8-1:0] e_hdr_reg = {HDR_BYTES*8{1'b0}};
reg [15:0] e_len_reg = 16'd0;
reg e_accept_reg = 1'b0;
reg [15:0] e_stored_reg = 16'd0;

always @(posedge clk) begin
    s1_valid_reg <= fire;
    if (fire) begin
        s1_first_reg <= first;
        s1_last_reg <= s_axis_tlast;
        s1_sum_reg <= beat_sum;
        if (s_axis_tlast) begin
            e_hdr_reg <= hdr_now;
            e_len_reg <= pos_end;
            e_accept_reg <= accept;
            e_stored_reg <= stored_now;
        end
    end

    if (rst) begin
        s1_valid_reg <= 1'b0;
    end
end

wire [31:0] acc_now = (s1_first_reg ? 32'd0 : acc_reg) + {{32-NODE_WIDTH{1'b0}}, s1_sum_reg};

always @(posedge clk) begin
    if (s1_valid_reg) begin
        acc_reg <= acc_now;
    end
end

`define ICMP_E8(n) e_hdr_reg[(n)*8 +: 8]
`define ICMP_E16(n) {`ICMP_E8(n), `ICMP_E8((n) + 1)}
`define ICMP_E32(n) {`ICMP_E16(n), `ICMP_E16((n) + 2)}
`define ICMP_E48(n) {`ICMP_E16(n), `ICMP_E32((n) + 2)}

// a 32-bit one's complement sum folded to 16 bits
function [15:0] fold(input [31:0] s);
    reg [16:0] f;
    begin
        f = {1'b0, s[15:0]} + {1'b0, s[31:16]};
        fold = f[15:0] + {15'd0, f[16]};
    end
endfunction

localparam [2:0] V_ANSWERED = 3'd0, V_IGNORED = 3'd1, V_NOT_OURS = 3'd2, V_MALFORMED = 3'd3,
                 V_TOO_LONG = 3'd4, V_OVERFLOW = 3'd5, V_FOREIGN = 3'd6;

// each family's own checks first (V_ANSWERED: all passed), then the checks both share
reg [2:0] verdict, verdict_head;
wire [31:0] icmp_sum;
wire [ADDR_WIDTH-1:0] req_src, req_dst;
wire [15:0] reply_ip_csum, reply_icmp_csum;
wire [16:0] ip_end;

generate
    if (IPV6 != 0) begin : v6
        wire [15:0] plen = `ICMP_E16(18);
        wire [127:0] src = {`ICMP_E32(22), `ICMP_E32(26), `ICMP_E32(30), `ICMP_E32(34)};
        wire [127:0] dst = {`ICMP_E32(38), `ICMP_E32(42), `ICMP_E32(46), `ICMP_E32(50)};
        assign ip_end = 17'd54 + {1'b0, plen};
        assign req_src = src;
        assign req_dst = dst;

        wire ours;
        ip6_ours #(.ADDRS(ADDRS))
        ours_inst (
            .cfg_mac(cfg_mac),
            .cfg_ip6(cfg_ip6),
            .cfg_ip6_valid(cfg_ip6_valid),
            .addr(dst),
            .ours(ours),
            .link_local()
        );

        // the pseudo-header: both addresses, the length, the next header
        reg [31:0] pseudo;
        always @* begin
            pseudo = {16'd0, plen} + {24'd0, `HROCE_IP_PROTO_ICMPV6};
            for (i = 0; i < 8; i = i + 1) begin
                pseudo = pseudo + {16'd0, src[i*16 +: 16]} + {16'd0, dst[i*16 +: 16]};
            end
        end
        assign icmp_sum = acc_now + pseudo + {16'd0, `ICMP_E16(54)} + {16'd0, `ICMP_E16(56)};

        // an ICMPv6 echo request, as far as nd and this block tell them apart
        wire echo = e_len_reg >= 16'd58 && `ICMP_E16(12) == `HROCE_ETH_TYPE_IPV6 &&
                    `ICMP_E8(14) >> 4 == 8'd6 && `ICMP_E8(20) == `HROCE_IP_PROTO_ICMPV6 &&
                    `ICMP_E8(54) == 8'd128;
        always @* begin
            if (!echo) begin
                verdict_head = V_FOREIGN;
            end else if (plen < 16'd8 || {1'b0, e_len_reg} < ip_end) begin
                verdict_head = V_MALFORMED;
            end else if (!ours || `ICMP_E48(0) != cfg_mac) begin
                verdict_head = V_NOT_OURS;
            end else if (`ICMP_E8(55) != 8'd0) begin
                verdict_head = V_MALFORMED;
            end else begin
                verdict_head = V_ANSWERED;
            end
        end

        assign reply_ip_csum = 16'd0;
        assign reply_icmp_csum = ~fold(acc_now + pseudo + {16'd0, 8'd129, 8'd0});

        // traffic class, flow label and hop limit go back as they came (the hop limit anew)
        wire unused = ^{cfg_ipv4, e_hdr_reg[15*8 +: 24], e_hdr_reg[21*8 +: 8]};
    end else begin : v4
        wire [15:0] ip_total = `ICMP_E16(16);
        wire [15:0] ip_frag = `ICMP_E16(20);
        assign ip_end = 17'd14 + {1'b0, ip_total};
        assign req_src = `ICMP_E32(26);
        assign req_dst = `ICMP_E32(30);

        reg [31:0] ip_sum;
        always @* begin
            ip_sum = 32'd0;
            for (i = 0; i < 10; i = i + 1) begin
                ip_sum = ip_sum + {16'd0, e_hdr_reg[(14 + 2*i)*8 +: 8],
                                   e_hdr_reg[(15 + 2*i)*8 +: 8]};
            end
        end

        assign icmp_sum = acc_now + {16'd0, `ICMP_E16(34)} + {16'd0, `ICMP_E16(36)};

        wire [7:0] reply_ttl = REPLY_TTL[7:0];
        wire [31:0] reply_ip_sum = {16'd0, 8'h45, `ICMP_E8(15)} + {16'd0, ip_total} +
                                   {16'd0, `ICMP_E16(18)} + {16'd0, ip_frag} +
                                   {16'd0, reply_ttl, `HROCE_IP_PROTO_ICMP} +
                                   {16'd0, cfg_ipv4[31:16]} + {16'd0, cfg_ipv4[15:0]} +
                                   {16'd0, `ICMP_E16(26)} + {16'd0, `ICMP_E16(28)};

        always @* begin
            if (e_len_reg < 16'd42 || `ICMP_E16(12) != `HROCE_ETH_TYPE_IPV4 ||
                `ICMP_E8(14) != 8'h45 || ip_frag[13] || ip_frag[12:0] != 13'd0 ||
                ip_total < 16'd28 || {1'b0, e_len_reg} < ip_end ||
                `ICMP_E8(23) != `HROCE_IP_PROTO_ICMP || fold(ip_sum) != 16'hffff) begin
                verdict_head = V_MALFORMED;
            end else if (cfg_ipv4 == 32'd0 || `ICMP_E32(30) != cfg_ipv4 ||
                         `ICMP_E48(0) != cfg_mac) begin
                verdict_head = V_NOT_OURS;
            end else if (`ICMP_E16(34) != 16'h0800) begin
                verdict_head = V_IGNORED;
            end else begin
                verdict_head = V_ANSWERED;
            end
        end

        // the new checksums
        assign reply_ip_csum = ~fold(reply_ip_sum);
        assign reply_icmp_csum = ~fold(acc_now);

        wire unused = ^{cfg_ip6, cfg_ip6_valid};
    end
endgenerate

// a request from a group (multicast) source MAC, which 802.3 forbids, is not answered:
// the reply would go to every member of the group
wire src_group = e_hdr_reg[6*8];  // bit 0 of the source MAC's first byte: I/G

always @* begin
    if (verdict_head != V_ANSWERED) begin
        verdict = verdict_head;
    end else if (src_group) begin
        verdict = V_MALFORMED;
    end else if ({15'd0, ip_end} > MAX_FRAME) begin
        verdict = V_TOO_LONG;
    end else if (fold(icmp_sum) != 16'hffff) begin
        verdict = V_MALFORMED;
    end else if (!e_accept_reg) begin
        verdict = V_OVERFLOW;
    end else begin
        verdict = V_ANSWERED;
    end
end

/*
 * Stage 2: the verdict counted; a buffered frame's entry written
 */
reg v_valid_reg = 1'b0;
reg [2:0] v_verdict_reg = V_ANSWERED;
reg v_stored_reg = 1'b0;
reg [META_WIDTH-1:0] v_meta_reg = {META_WIDTH{1'b0}};

always @(posedge clk) begin
    v_valid_reg <= s1_valid_reg && s1_last_reg;
    if (s1_valid_reg && s1_last_reg) begin
        v_verdict_reg <= verdict;
        v_stored_reg <= e_accept_reg;
        v_meta_reg <= {verdict == V_ANSWERED, `ICMP_E48(6), req_src, req_dst, reply_ip_csum,
                       reply_icmp_csum, ip_end, e_stored_reg};
    end

    if (rst) begin
        v_valid_reg <= 1'b0;
    end
end

wire meta_send;
wire [47:0] meta_eth_src;
wire [ADDR_WIDTH-1:0] meta_ip_src, meta_ip_dst;
wire [15:0] meta_ip_csum, meta_icmp_csum;
wire [16:0] meta_ip_end;
wire [15:0] meta_stored;
wire meta_valid;
reg meta_pop;

fifo_sync #(
    .WIDTH(META_WIDTH),
    .ADDR_WIDTH(META_ADDR_WIDTH)
)
meta_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data(v_meta_reg),
    .s_valid(v_valid_reg && v_stored_reg),
    .s_ready(),
    .m_data({meta_send, meta_eth_src, meta_ip_src, meta_ip_dst, meta_ip_csum, meta_icmp_csum,
             meta_ip_end, meta_stored}),
    .m_valid(meta_valid),
    .m_ready(meta_pop),
    .count()
);

always @(posedge clk) begin
    frames_reg <= frames_reg + {{META_ADDR_WIDTH{1'b0}}, fire && first && room} -
                  {{META_ADDR_WIDTH{1'b0}}, meta_pop};
    if (rst) begin
        frames_reg <= 0;
    end
end

assign stat_answered = v_valid_reg && v_verdict_reg == V_ANSWERED;
assign stat_ignored = v_valid_reg && v_verdict_reg == V_IGNORED;
assign stat_not_ours = v_valid_reg && v_verdict_reg == V_NOT_OURS;
assign stat_malformed = v_valid_reg && v_verdict_reg == V_MALFORMED;
assign stat_too_long = v_valid_reg && v_verdict_reg == V_TOO_LONG;
assign stat_overflow = v_valid_reg && v_verdict_reg == V_OVERFLOW;

/*
 * The frame buffer
 */
wire [DATA_WIDTH-1:0] buf_data;
wire buf_valid;
reg buf_pop;

fifo_sync #(
    .WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(BUFFER_ADDR_WIDTH)
)
buffer_inst (
    .clk(clk),
    .rst(rst),
    .s_data(s_axis_tdata),
    .s_valid(store),
    .s_ready(),
    .m_data(buf_data),
    .m_valid(buf_valid),
    .m_ready(buf_pop),
    .count(buf_count)
);

/*
 * Output: each buffered frame's beats leave the buffer; an answered one's go out with the
 * new header over its first bytes, zeros after its IP packet, and padding beats up to the
 * Ethernet minimum
 */
reg out_active_reg = 1'b0, out_active_next;             // a frame is part way out
reg [15:0] out_beat_reg = 16'd0, out_beat_next;
reg [15:0] stored_left_reg = 16'd0, stored_left_next;  // buffer beats still to take
reg [16:0] ip_left_reg = 17'd0, ip_left_next;          // IP packet bytes from this beat on
reg [16:0] out_left_reg = 17'd0, out_left_next;        // frame bytes from this beat on

wire out_ready;
reg [DATA_WIDTH-1:0] out_data;
reg [KEEP_WIDTH-1:0] out_keep;
reg out_last;

localparam [16:0] KEEP_BYTES = KEEP_WIDTH[16:0];

// the beat to come: part way through a frame, or the first of the next one
wire [16:0] meta_frame_len = {15'd0, meta_ip_end} > MIN_FRAME ? meta_ip_end : MIN_FRAME[16:0];
wire [15:0] out_beat = out_active_reg ? out_beat_reg : 16'd0;
wire [15:0] stored_left = out_active_reg ? stored_left_reg : meta_stored;
wire [16:0] ip_left = out_active_reg ? ip_left_reg : meta_ip_end;
wire [16:0] out_left = out_active_reg ? out_left_reg : meta_frame_len;

wire need_buf = stored_left != 16'd0;
wire emit = meta_send && out_left != 17'd0;
wire step = meta_valid && (!need_buf || buf_valid) && (!emit || out_ready);
wire [16:0] out_left_after = out_left > KEEP_BYTES ? out_left - KEEP_BYTES : 17'd0;
wire [16:0] ip_left_after = ip_left > KEEP_BYTES ? ip_left - KEEP_BYTES : 17'd0;
wire [15:0] stored_left_after = stored_left - {15'd0, need_buf};
wire done = stored_left_after == 16'd0 && (!emit || out_left_after == 17'd0);

// the new header bytes (byte 0 in the low bits), padded to whole beats, and which of them
// to lay over the frame's: IPv4, all but the type and the IP fields that stay (bytes 12 to
// 21, 23); IPv6, all but the type, version to next header and the code (12 to 20, 55)
localparam [7:0] REPLY_HOPS = REPLY_TTL[7:0];
wire [HDR_BYTES*8-1:0] reply_be;
localparam [HDR_BYTES-1:0] OVERLAY = IPV6 != 0 ? ~({{HDR_BYTES-9{1'b0}}, 9'h1ff} << 12 |
                                              {{HDR_BYTES-1{1'b0}}, 1'b1} << 55) :
                                            ~({{HDR_BYTES-10{1'b0}}, 10'h3ff} << 12 |
                                              {{HDR_BYTES-1{1'b0}}, 1'b1} << 23);
generate
    if (IPV6 != 0) begin : reply6
        assign reply_be = {meta_eth_src, cfg_mac, 72'd0, REPLY_HOPS, meta_ip_dst, meta_ip_src,
                           8'd129, 8'd0, meta_icmp_csum};
        wire unused_reply6 = ^meta_ip_csum;
    end else begin : reply4
        assign reply_be = {meta_eth_src, cfg_mac, 80'd0, REPLY_HOPS, 8'd0, meta_ip_csum,
                           meta_ip_dst, meta_ip_src, 16'd0, meta_icmp_csum};
    end
endgenerate
reg [HDR_BEATS*DATA_WIDTH-1:0] hdr_beats;
always @* begin
    hdr_beats = {HDR_BEATS*DATA_WIDTH{1'b0}};
    for (i = 0; i < HDR_BYTES; i = i + 1) begin
        hdr_beats[i*8 +: 8] = reply_be[(HDR_BYTES - 1 - i)*8 +: 8];
    end
end
wire [HDR_BEATS*KEEP_WIDTH-1:0] hdr_lanes = {{HDR_BEATS*KEEP_WIDTH-HDR_BYTES{1'b0}}, OVERLAY};
integer b;
always @* begin
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        out_data[i*8 +: 8] = (need_buf && ip_left > i[16:0]) ? buf_data[i*8 +: 8] : 8'd0;
        out_keep[i] = out_left > i[16:0];
    end
    for (b = 0; b < HDR_BEATS; b = b + 1) begin
        for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
            if (out_beat == b[15:0] && hdr_lanes[b*KEEP_WIDTH + i]) begin
                out_data[i*8 +: 8] = hdr_beats[(b*KEEP_WIDTH + i)*8 +: 8];
            end
        end
    end
    out_last = out_left_after == 17'd0;
end

always @* begin
    out_active_next = out_active_reg;
    out_beat_next = out_beat_reg;
    stored_left_next = stored_left_reg;
    ip_left_next = ip_left_reg;
    out_left_next = out_left_reg;
    buf_pop = 1'b0;
    meta_pop = 1'b0;

    if (step) begin
        buf_pop = need_buf;
        out_active_next = !done;
        out_beat_next = out_beat + 16'd1;
        stored_left_next = stored_left_after;
        ip_left_next = ip_left_after;
        out_left_next = out_left_after;
        meta_pop = done;
    end
end

always @(posedge clk) begin
    out_active_reg <= out_active_next;
    out_beat_reg <= out_beat_next;
    stored_left_reg <= stored_left_next;
    ip_left_reg <= ip_left_next;
    out_left_reg <= out_left_next;

    if (rst) begin
        out_active_reg <= 1'b0;
    end
end

axis_skid #(
    .WIDTH(DATA_WIDTH + KEEP_WIDTH + 1)
)
out_skid_inst (
    .clk(clk),
    .rst(rst),
    .s_data({out_last, out_keep, out_data}),
    .s_valid(step && emit),
    .s_ready(out_ready),
    .m_data({m_axis_tlast, m_axis_tkeep, m_axis_tdata}),
    .m_valid(m_axis_tvalid),
    .m_ready(m_axis_tready)
);

assign s_axis_tready = 1'b1;
assign m_axis_tuser = 1'b0;

endmodule

`undef ICMP_NOW8
`undef ICMP_HDR8
`undef ICMP_E8
`undef ICMP_E16
`undef ICMP_E32
`undef ICMP_E48

`resetall
