/*

ARP transmit: builds one ARP frame for IPv4 over Ethernet from its fields and sends it
as a stream of beats: Ethernet II without a tag, the 28-byte ARP packet, zero padding to
the Ethernet minimum of 60 bytes (without FCS).

A frame is taken when the previous one has left; its fields are registered, so s_ready
never depends on m_axis_tready.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module arp_tx #
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
     * The frame to send
     */
    input  wire [47:0]                   s_eth_dst,
    input  wire [47:0]                   s_eth_src,
    input  wire                          s_reply,          // operation 2 (else 1, a request)
    input  wire [47:0]                   s_sha,
    input  wire [31:0]                   s_spa,
    input  wire [47:0]                   s_tha,
    input  wire [31:0]                   s_tpa,
    input  wire                          s_valid,
    output wire                          s_ready,

    /*
     * Ethernet frames out (without FCS)
     */
    output wire [DATA_WIDTH-1:0]         m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]         m_axis_tkeep,
    output wire                          m_axis_tvalid,
    input  wire                          m_axis_tready,
    output wire                          m_axis_tlast,
    output wire                          m_axis_tuser
);

localparam FRAME_BYTES = {16'd0, `HROCE_ROCE_MIN_FRAME};
localparam BEATS = (FRAME_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;
localparam BEAT_BITS = BEATS > 1 ? $clog2(BEATS) : 1;
localparam LAST_BYTES = FRAME_BYTES - (BEATS - 1) * KEEP_WIDTH;

initial begin
    if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || KEEP_WIDTH * 8 != DATA_WIDTH) begin
        $error("Error: %m: DATA_WIDTH must be 64 to 512 bits in whole bytes (%0d)", DATA_WIDTH);
        $finish;
    end
end

reg [BEATS*DATA_WIDTH-1:0] frame_reg = {BEATS*DATA_WIDTH{1'b0}}, frame_next;
reg [BEAT_BITS-1:0] beat_reg = 0, beat_next;
reg busy_reg = 1'b0, busy_next;

wire last = {{32-BEAT_BITS{1'b0}}, beat_reg} == BEATS - 1;

// the frame, byte 0 first; everything past the ARP packet is zero padding
function [BEATS*DATA_WIDTH-1:0] build(input [47:0] eth_dst, input [47:0] eth_src,
                                      input reply, input [47:0] sha, input [31:0] spa,
                                      input [47:0] tha, input [31:0] tpa);
    reg [42*8-1:0] be;  // big-endian: byte 0 in the top bits
    integer n;
    begin
        be = {eth_dst, eth_src, `HROCE_ETH_TYPE_ARP,
              16'd1, `HROCE_ETH_TYPE_IPV4, 8'd6, 8'd4, 14'd0, reply ? 2'd2 : 2'd1,
              sha, spa, tha, tpa};
        build = {BEATS*DATA_WIDTH{1'b0}};
        for (n = 0; n < 42; n = n + 1) begin
            build[n*8 +: 8] = be[(41 - n)*8 +: 8];
        end
    end
endfunction

always @* begin
    frame_next = frame_reg;
    beat_next = beat_reg;
    busy_next = busy_reg;

    if (busy_reg && m_axis_tready) begin
        beat_next = beat_reg + 1'b1;
        if (last) begin
            busy_next = 1'b0;
            beat_next = 0;
        end
    end
    if (!busy_reg && s_valid) begin
        frame_next = build(s_eth_dst, s_eth_src, s_reply, s_sha, s_spa, s_tha, s_tpa);
        busy_next = 1'b1;
        beat_next = 0;
    end
end

always @(posedge clk) begin
    frame_reg <= frame_next;
    beat_reg <= beat_next;
    busy_reg <= busy_next;

    if (rst) begin
        busy_reg <= 1'b0;
        beat_reg <= 0;
    end
end

assign s_ready = !busy_reg;
assign m_axis_tdata = frame_reg[beat_reg*DATA_WIDTH +: DATA_WIDTH];
assign m_axis_tkeep = last ? {{KEEP_WIDTH-LAST_BYTES{1'b0}}, {LAST_BYTES{1'b1}}} :
                      {KEEP_WIDTH{1'b1}};
assign m_axis_tvalid = busy_reg;
assign m_axis_tlast = last;
assign m_axis_tuser = 1'b0;

endmodule

`resetall
