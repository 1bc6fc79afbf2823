/*

ARP receive parser: Ethernet frames in, one record per frame out.

Takes ARP frames (Ethernet II without a tag, without FCS) at one beat per cycle and never
stalls. Two cycles after each frame's last beat it gives one record: the frame's
destination MAC and the ARP fields, and whether the frame is a well-formed ARP packet for
IPv4 over Ethernet (type ARP, hardware type 1, protocol type IPv4, address sizes 6 and 4,
operation request or reply, at least the 42 bytes that hold all of that; the padding up
to the Ethernet minimum is not required). The target hardware address is not given: ARP
ignores it, as Linux does. What to do with the record is arp's business.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module arp_rx #
(
    // Width of the frame stream (64 to 512)
    parameter DATA_WIDTH = 512,
    // Width of tkeep
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8)
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * ARP frames in (never back-pressured)
     */
    input  wire [DATA_WIDTH-1:0]         s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]         s_axis_tkeep,
    input  wire                          s_axis_tvalid,
    output wire                          s_axis_tready,
    input  wire                          s_axis_tlast,

    /*
     * One record per frame, valid for one cycle (no back-pressure)
     */
    output wire                          m_arp_valid,
    output wire                          m_arp_good,       // a well-formed IPv4 ARP packet
    output wire                          m_arp_request,    // operation 1 (else 2, a reply)
    output wire [47:0]                   m_arp_eth_dst,
    output wire [47:0]                   m_arp_sha,
    output wire [31:0]                   m_arp_spa,
    output wire [31:0]                   m_arp_tpa
);

// Ethernet (14) and the ARP packet for IPv4 over Ethernet (28)
localparam HDR_BYTES = 42;
localparam LANE_BITS = $clog2(KEEP_WIDTH);

initial begin
    if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || KEEP_WIDTH * 8 != DATA_WIDTH ||
        (1 << LANE_BITS) != KEEP_WIDTH) begin
        $error("Error: %m: DATA_WIDTH must be a power of two from 64 to 512 (%0d)", DATA_WIDTH);
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

`define ARP_HDR8(n) hdr_reg[(n)*8 +: 8]
`define ARP_HDR16(n) {`ARP_HDR8(n), `ARP_HDR8((n) + 1)}
`define ARP_HDR32(n) {`ARP_HDR16(n), `ARP_HDR16((n) + 2)}
`define ARP_HDR48(n) {`ARP_HDR16(n), `ARP_HDR32((n) + 2)}

wire [15:0] op = `ARP_HDR16(20);
wire good = end_len_reg >= HDR_BYTES &&
            `ARP_HDR16(12) == `HROCE_ETH_TYPE_ARP &&
            `ARP_HDR16(14) == 16'd1 &&                  // hardware: Ethernet
            `ARP_HDR16(16) == `HROCE_ETH_TYPE_IPV4 &&   // protocol: IPv4
            `ARP_HDR8(18) == 8'd6 && `ARP_HDR8(19) == 8'd4 &&
            (op == 16'd1 || op == 16'd2);

/*
 * Stage 2: the record
 */
reg rec_valid_reg = 1'b0;
reg rec_good_reg = 1'b0;
reg rec_request_reg = 1'b0;
reg [47:0] rec_eth_dst_reg = 48'd0;
reg [47:0] rec_sha_reg = 48'd0;
reg [31:0] rec_spa_reg = 32'd0;
reg [31:0] rec_tpa_reg = 32'd0;

always @(posedge clk) begin
    rec_valid_reg <= end_valid_reg;
    if (end_valid_reg) begin
        rec_good_reg <= good;
        rec_request_reg <= op == 16'd1;
        rec_eth_dst_reg <= `ARP_HDR48(0);
        rec_sha_reg <= `ARP_HDR48(22);
        rec_spa_reg <= `ARP_HDR32(28);
        rec_tpa_reg <= `ARP_HDR32(38);
    end

    if (rst) begin
        rec_valid_reg <= 1'b0;
    end
end

assign s_axis_tready = 1'b1;

assign m_arp_valid = rec_valid_reg;
assign m_arp_good = rec_good_reg;
assign m_arp_request = rec_request_reg;
assign m_arp_eth_dst = rec_eth_dst_reg;
assign m_arp_sha = rec_sha_reg;
assign m_arp_spa = rec_spa_reg;
assign m_arp_tpa = rec_tpa_reg;

endmodule

`undef ARP_HDR8
`undef ARP_HDR16
`undef ARP_HDR32
`undef ARP_HDR48

`resetall
