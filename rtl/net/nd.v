/*

IPv6 neighbour discovery frames (RFC 4861): answers the neighbour solicitations for the
port's addresses with advertisements, as arp answers who-has requests; says what the
neighbour cache learns (m_learn_*); sends the solicitations the cache asks for
(s_solicit_*). nd_neigh puts it beside the cache.

Takes ICMPv6 frames (Ethernet II without a tag, IPv6 without extension headers, without
FCS) at one beat per cycle and never stalls. The port's addresses are its link-local
address (fe80:: and the modified EUI-64 of cfg_mac, rxe's GID index 0) and up to ADDRS
configured ones. A solicitation is read up to ND_MAX_MSG bytes of message (the 24-byte
message and one option: the source link-layer address, or DAD's nonce); the checks are
RFC 4861 7.1.1's, in the order of sim/wire/nd_wire.c's nd_answer(), which the bench holds
this block to. The advertisement goes from the target address to the solicitation's
source (solicited and override set), at the MAC its source link-layer option gives, else
the frame's source MAC; duplicate address detection (from ::) is answered to all nodes,
ff02::1, with only override set. One advertisement waits to leave at a time: a solicitation
answered while one is still leaving is counted as an overflow and dropped.

Echo requests (type 128) are icmp_echo's (IPV6 set), which judges them: they get the ECHO
verdict here, which the core does not count, as soon as the type can be read.

What is learned: the sender of a solicitation answered (not from ::) that carries a source
link-layer address, as a request record; the target of an advertisement for us (to
cfg_mac or all nodes, ff02::1, and to one of our addresses or all nodes), at its target
link-layer address, else the frame's source MAC, as a reply record. An advertisement is
checked as RFC 4861 7.1.2 says (hop limit 255, code 0, checksum, target not multicast,
solicited flag clear when sent to a multicast address), and its verdict is ADVERT.

A solicitation sent: from the link-local address, to the target's solicited-node group
ff02::1:ffXX:XXXX at 33:33:ff:XX:XX:XX, with the source link-layer option; it leaves by the
same output as advertisements (which go first), 86 bytes like them.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module nd #
(
    // Width of the frame streams (64 to 512)
    parameter DATA_WIDTH = 512,
    // Width of tkeep
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // Configured IPv6 addresses besides the link-local one
    parameter ADDRS = 2
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * The port's MAC, and its configured IPv6 addresses (address k at [k*128 +: 128],
     * its first byte the most significant)
     */
    input  wire [47:0]                   cfg_mac,
    input  wire [ADDRS*128-1:0]          cfg_ip6,
    input  wire [ADDRS-1:0]              cfg_ip6_valid,

    /*
     * ICMPv6 frames in (never back-pressured)
     */
    input  wire [DATA_WIDTH-1:0]         s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]         s_axis_tkeep,
    input  wire                          s_axis_tvalid,
    output wire                          s_axis_tready,
    input  wire                          s_axis_tlast,

    /*
     * Advertisements out (without FCS)
     */
    output wire [DATA_WIDTH-1:0]         m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]         m_axis_tkeep,
    output wire                          m_axis_tvalid,
    input  wire                          m_axis_tready,
    output wire                          m_axis_tlast,

    /*
     * Solicitations to send: for s_solicit_target
     */
    input  wire [127:0]                  s_solicit_target,
    input  wire                          s_solicit_valid,
    output wire                          s_solicit_ready,

    /*
     * What the cache learns (one-cycle pulse): a solicitation's sender (m_learn_request),
     * else an advertisement's target, and its MAC
     */
    output wire                          m_learn_valid,
    output wire                          m_learn_request,
    output wire [127:0]                  m_learn_addr,
    output wire [47:0]                   m_learn_mac,

    /*
     * One pulse per frame, by verdict
     */
    output wire                          stat_answered,
    output wire                          stat_ignored,   // ICMPv6 other than ND
    output wire                          stat_not_ours,  // for another address or MAC
    output wire                          stat_malformed,
    output wire                          stat_too_long,  // more than one option
    output wire                          stat_advert,    // an advertisement for us: learned
    output wire                          stat_echo,      // an echo request: icmp_echo's
    output wire                          stat_overflow   // answered while one was leaving
);

localparam LANE_BITS = $clog2(KEEP_WIDTH);
// Ethernet (14), IPv6 (40), the message read (ND_MAX_MSG): also the advertisement's length
localparam IP6_LEN = `HROCE_IPV6_HDR_BYTES;
localparam MAX_MSG = 32;
localparam HDR_BYTES = 14 + IP6_LEN + MAX_MSG;
localparam MSG = 14 + IP6_LEN;           // the message's first byte in the frame
localparam [7:0] SOLICIT = 8'd135, ADVERT = 8'd136;
localparam [7:0] HOP_LIMIT = 8'd255;     // sent and required: a neighbour is on the link
localparam [7:0] OPT_SLLA = 8'd1, OPT_TLLA = 8'd2;

localparam BEATS = (HDR_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;
localparam BEAT_BITS = BEATS > 1 ? $clog2(BEATS) : 1;
localparam LAST_BYTES = HDR_BYTES - (BEATS - 1) * KEEP_WIDTH;

initial begin
    if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || KEEP_WIDTH * 8 != DATA_WIDTH ||
        (1 << LANE_BITS) != KEEP_WIDTH) begin
        $error("Error: %m: DATA_WIDTH must be a power of two from 64 to 512 (%0d)", DATA_WIDTH);
        $finish;
    end
    if (ADDRS < 1) begin
        $error("Error: %m: ADDRS must be at least 1 (%0d)", ADDRS);
        $finish;
    end
end

wire fire = s_axis_tvalid;

integer i;

/*
 * Stage 0: frame position and header capture
 */
reg [15:0] pos_reg = 16'd0;           // bytes of the frame before this beat (saturating)
reg [HDR_BYTES*8-1:0] hdr_reg = {HDR_BYTES*8{1'b0}};

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

genvar g;
generate
    for (g = 0; g < HDR_BYTES; g = g + 1) begin : capture
        localparam BEAT_POS = (g / KEEP_WIDTH) * KEEP_WIDTH;
        always @(posedge clk) begin
            if (fire && {16'd0, pos_reg} == BEAT_POS) begin
                hdr_reg[g*8 +: 8] <= s_axis_tdata[(g % KEEP_WIDTH)*8 +: 8];
            end
        end
    end
endgenerate

/*
 * Stage 1: the frame has ended, its header is all in hdr_reg
 */
reg end_valid_reg = 1'b0;
reg [15:0] end_len_reg = 16'd0;

always @(posedge clk) begin
    end_valid_reg <= fire && s_axis_tlast;
    if (fire) begin
        pos_reg <= s_axis_tlast ? 16'd0 : pos_end;
        end_len_reg <= pos_end;
    end

    if (rst) begin
        pos_reg <= 16'd0;
        end_valid_reg <= 1'b0;
    end
end

`define ND_HDR8(n) hdr_reg[(n)*8 +: 8]
`define ND_HDR16(n) {`ND_HDR8(n), `ND_HDR8((n) + 1)}
`define ND_HDR32(n) {`ND_HDR16(n), `ND_HDR16((n) + 2)}
`define ND_HDR48(n) {`ND_HDR16(n), `ND_HDR32((n) + 2)}
`define ND_HDR128(n) {`ND_HDR32(n), `ND_HDR32((n) + 4), `ND_HDR32((n) + 8), `ND_HDR32((n) + 12)}

wire [47:0] eth_dst = `ND_HDR48(0);
wire [47:0] eth_src = `ND_HDR48(6);
wire [15:0] plen = `ND_HDR16(18);
wire [127:0] src = `ND_HDR128(22);
wire [127:0] dst = `ND_HDR128(38);
wire [7:0] msg_type = `ND_HDR8(MSG);
wire [127:0] target = `ND_HDR128(MSG + 8);
wire [7:0] opt_type = `ND_HDR8(MSG + 24);
wire [7:0] opt_len = `ND_HDR8(MSG + 25);
wire [47:0] opt_mac = `ND_HDR48(MSG + 26);

// the link-local address of the port, and the target's solicited-node group and its MAC
wire ours, dst_ours;
wire [127:0] link_local;
ip6_ours #(.ADDRS(ADDRS))
ours_inst (
    .cfg_mac(cfg_mac),
    .cfg_ip6(cfg_ip6),
    .cfg_ip6_valid(cfg_ip6_valid),
    .addr(target),
    .ours(ours),
    .link_local(link_local)
);
// an advertisement's destination
ip6_ours #(.ADDRS(ADDRS))
dst_ours_inst (
    .cfg_mac(cfg_mac),
    .cfg_ip6(cfg_ip6),
    .cfg_ip6_valid(cfg_ip6_valid),
    .addr(dst),
    .ours(dst_ours),
    .link_local()
);
wire [127:0] group = {16'hff02, 64'd0, 16'h0001, 8'hff, target[23:0]};
wire [47:0] group_mac = {16'h3333, group[31:0]};

// the ICMPv6 checksum of the message (plen bytes, all in hdr_reg when plen <= MAX_MSG):
// the pseudo-header's addresses, length and next header, then the message's words
reg [23:0] csum_sum;
always @* begin
    csum_sum = {8'd0, plen} + {16'd0, `HROCE_IP_PROTO_ICMPV6};
    for (i = 0; i < 8; i = i + 1) begin
        csum_sum = csum_sum + {8'd0, src[i*16 +: 16]} + {8'd0, dst[i*16 +: 16]};
    end
    for (i = 0; i < MAX_MSG / 2; i = i + 1) begin
        if ({i[14:0], 1'b0} + 16'd1 < plen) begin
            csum_sum = csum_sum + {8'd0, `ND_HDR16(MSG + 2*i)};
        end else if ({i[14:0], 1'b0} < plen) begin
            csum_sum = csum_sum + {8'd0, `ND_HDR8(MSG + 2*i), 8'd0};  // an odd last byte
        end
    end
end
wire [16:0] csum_fold1 = {1'b0, csum_sum[15:0]} + {9'd0, csum_sum[23:16]};
wire [15:0] csum_fold2 = csum_fold1[15:0] + {15'd0, csum_fold1[16]};

localparam [127:0] ALL_NODES = {16'hff02, 96'd0, 16'h0001};
localparam [47:0] ALL_NODES_MAC = {16'h3333, 32'h0000_0001};

wire from_unspecified = src == 128'd0;
wire advert = msg_type == ADVERT;
// one option at most: none, or one of 8 bytes (plen is then 32)
wire options_ok = plen == 16'd24 || (plen == 16'd32 && opt_len == 8'd1);
wire slla = plen == 16'd32 && opt_type == OPT_SLLA;
// the link-layer address option of the message's kind: source (solicitation), target
wire lla = plen == 16'd32 && opt_type == (advert ? OPT_TLLA : OPT_SLLA);
wire solicited_flag = hdr_reg[(MSG + 4)*8 + 6];

localparam [2:0] V_ANSWERED = 3'd0, V_IGNORED = 3'd1, V_NOT_OURS = 3'd2, V_MALFORMED = 3'd3,
                 V_TOO_LONG = 3'd4, V_ADVERT = 3'd5, V_ECHO = 3'd6;
localparam [7:0] ECHO_REQUEST = 8'd128;

reg [2:0] verdict;
always @* begin
    if (end_len_reg < MSG + 4 || `ND_HDR16(12) != `HROCE_ETH_TYPE_IPV6 ||
        `ND_HDR8(14) >> 4 != 8'd6 || `ND_HDR8(20) != `HROCE_IP_PROTO_ICMPV6) begin
        verdict = V_MALFORMED;
    end else if (msg_type == ECHO_REQUEST) begin
        verdict = V_ECHO;
    end else if (plen < 16'd4 || {1'b0, end_len_reg} < MSG + {1'b0, plen}) begin
        verdict = V_MALFORMED;
    end else if (msg_type != SOLICIT && !advert) begin
        verdict = V_IGNORED;
    end else if (plen > MAX_MSG) begin
        verdict = V_TOO_LONG;
    end else if (csum_fold2 != 16'hffff) begin
        verdict = V_MALFORMED;
    end else if (`ND_HDR8(21) != HOP_LIMIT || `ND_HDR8(MSG + 1) != 8'd0 || plen < 16'd24 ||
                 target[127:120] == 8'hff || !options_ok) begin
        verdict = V_MALFORMED;
    end else if (advert && dst[127:120] == 8'hff && solicited_flag) begin
        verdict = V_MALFORMED;
    end else if (advert) begin
        verdict = (eth_dst != cfg_mac && eth_dst != ALL_NODES_MAC) ||
                  (!dst_ours && dst != ALL_NODES) ? V_NOT_OURS : V_ADVERT;
    end else if (from_unspecified && (dst != group || slla)) begin
        verdict = V_MALFORMED;
    end else if (!ours || (eth_dst != cfg_mac && eth_dst != group_mac) ||
                 (dst != target && dst != group)) begin
        verdict = V_NOT_OURS;
    end else begin
        verdict = V_ANSWERED;
    end
end

/*
 * Stage 2: the advertisement's fields and its checksum's sum; what is learned
 */
reg ans_valid_reg = 1'b0;
reg [2:0] ans_verdict_reg = V_MALFORMED;
reg [47:0] ans_eth_dst_reg = 48'd0;
reg [127:0] ans_dst_reg = 128'd0;
reg [127:0] ans_target_reg = 128'd0;
reg ans_solicited_reg = 1'b0;
reg ans_lla_reg = 1'b0;
reg [47:0] ans_lla_mac_reg = 48'd0;

always @(posedge clk) begin
    ans_valid_reg <= end_valid_reg;
    if (end_valid_reg) begin
        ans_verdict_reg <= verdict;
        ans_eth_dst_reg <= from_unspecified ? ALL_NODES_MAC : lla ? opt_mac : eth_src;
        ans_lla_reg <= lla;
        ans_lla_mac_reg <= lla ? opt_mac : eth_src;
        ans_dst_reg <= from_unspecified ? ALL_NODES : src;
        ans_target_reg <= target;
        ans_solicited_reg <= !from_unspecified;
    end

    if (rst) begin
        ans_valid_reg <= 1'b0;
    end
end

wire learn_solicit = ans_verdict_reg == V_ANSWERED && ans_solicited_reg && ans_lla_reg;
assign m_learn_valid = ans_valid_reg && (ans_verdict_reg == V_ADVERT || learn_solicit);
assign m_learn_request = ans_verdict_reg == V_ANSWERED;
assign m_learn_addr = m_learn_request ? ans_dst_reg : ans_target_reg;
assign m_learn_mac = ans_lla_mac_reg;

/*
 * Stage 3: the frame to send, an advertisement (first) or a solicitation, leaving beat by
 * beat; both are the same 86 bytes with other fields
 */
reg busy_reg = 1'b0, busy_next;
wire answer = ans_valid_reg && ans_verdict_reg == V_ANSWERED;
wire load_na = answer && !busy_reg;
wire load_ns = s_solicit_valid && !busy_reg && !answer;

wire [127:0] ns_group = {16'hff02, 64'd0, 16'h0001, 8'hff, s_solicit_target[23:0]};
wire [47:0] tx_eth_dst = load_na ? ans_eth_dst_reg : {16'h3333, ns_group[31:0]};
wire [127:0] tx_src = load_na ? ans_target_reg : link_local;
wire [127:0] tx_dst = load_na ? ans_dst_reg : ns_group;
wire [127:0] tx_target = load_na ? ans_target_reg : s_solicit_target;
wire [7:0] tx_type = load_na ? ADVERT : SOLICIT;
wire [31:0] tx_flags = !load_na ? 32'd0 : ans_solicited_reg ? 32'h6000_0000 : 32'h2000_0000;
wire [7:0] tx_opt = load_na ? OPT_TLLA : OPT_SLLA;

// its checksum: from tx_src to tx_dst, 32 bytes of message
reg [23:0] tx_sum;
always @* begin
    tx_sum = 24'd32 + {16'd0, `HROCE_IP_PROTO_ICMPV6} + {8'd0, tx_type, 8'd0} +
             {8'd0, tx_flags[31:16]} + {8'd0, tx_flags[15:0]} + {8'd0, tx_opt, 8'd1} +
             {8'd0, cfg_mac[47:32]} + {8'd0, cfg_mac[31:16]} + {8'd0, cfg_mac[15:0]};
    for (i = 0; i < 8; i = i + 1) begin
        tx_sum = tx_sum + {8'd0, tx_src[i*16 +: 16]} + {8'd0, tx_dst[i*16 +: 16]} +
                 {8'd0, tx_target[i*16 +: 16]};
    end
end
wire [16:0] tx_fold1 = {1'b0, tx_sum[15:0]} + {9'd0, tx_sum[23:16]};
wire [15:0] tx_fold2 = tx_fold1[15:0] + {15'd0, tx_fold1[16]};
wire [15:0] tx_csum = ~tx_fold2;

reg [BEATS*DATA_WIDTH-1:0] frame_reg = {BEATS*DATA_WIDTH{1'b0}}, frame_next;
reg [BEAT_BITS-1:0] beat_reg = 0, beat_next;
// answered, ignored, not ours, malformed, too long, advert, echo, overflow
reg [7:0] stat_reg = 8'd0, stat_next;

wire last = {{32-BEAT_BITS{1'b0}}, beat_reg} == BEATS - 1;

reg [HDR_BYTES*8-1:0] be;   // big-endian: byte 0 in the top bits
integer n;

always @* begin
    be = {tx_eth_dst, cfg_mac, `HROCE_ETH_TYPE_IPV6,
          32'h6000_0000, 16'd32, `HROCE_IP_PROTO_ICMPV6, HOP_LIMIT, tx_src, tx_dst,
          tx_type, 8'd0, tx_csum, tx_flags, tx_target, tx_opt, 8'd1, cfg_mac};

    frame_next = frame_reg;
    beat_next = beat_reg;
    busy_next = busy_reg;
    stat_next = 8'd0;

    if (busy_reg && m_axis_tready) begin
        beat_next = beat_reg + 1'b1;
        if (last) begin
            busy_next = 1'b0;
            beat_next = 0;
        end
    end
    if (ans_valid_reg) begin
        stat_next[ans_verdict_reg] = 1'b1;
        if (answer && busy_reg) begin
            stat_next[V_ANSWERED] = 1'b0;
            stat_next[7] = 1'b1;
        end
    end
    if (load_na || load_ns) begin
        frame_next = {BEATS*DATA_WIDTH{1'b0}};
        for (n = 0; n < HDR_BYTES; n = n + 1) begin
            frame_next[n*8 +: 8] = be[(HDR_BYTES - 1 - n)*8 +: 8];
        end
        busy_next = 1'b1;
        beat_next = 0;
    end
end

always @(posedge clk) begin
    frame_reg <= frame_next;
    beat_reg <= beat_next;
    busy_reg <= busy_next;
    stat_reg <= stat_next;

    if (rst) begin
        busy_reg <= 1'b0;
        beat_reg <= 0;
        stat_reg <= 8'd0;
    end
end

assign s_axis_tready = 1'b1;

assign m_axis_tdata = frame_reg[beat_reg*DATA_WIDTH +: DATA_WIDTH];
assign m_axis_tkeep = last ? {{KEEP_WIDTH-LAST_BYTES{1'b0}}, {LAST_BYTES{1'b1}}} :
                      {KEEP_WIDTH{1'b1}};
assign m_axis_tvalid = busy_reg;
assign m_axis_tlast = last;

assign stat_answered = stat_reg[0];
assign stat_ignored = stat_reg[1];
assign stat_not_ours = stat_reg[2];
assign stat_malformed = stat_reg[3];
assign stat_too_long = stat_reg[4];
assign stat_advert = stat_reg[5];
assign stat_echo = stat_reg[6];
assign stat_overflow = stat_reg[7];
assign s_solicit_ready = load_ns;

endmodule

`undef ND_HDR8
`undef ND_HDR16
`undef ND_HDR32
`undef ND_HDR48
`undef ND_HDR128

`resetall
