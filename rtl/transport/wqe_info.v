/*

WQE facts: what the requester needs to complete a WQE it sent (opcode, flags, length),
kept on chip from the moment the WQE goes, so that an ACK completes it without reading
the ring back from host memory (a PCIe round trip the engine would wait out).

    sent:     write {QPN, index} -> {opcode, flags, length}
    response: read {QPN, index} (the next cycle's) -> the facts, and whether they are its

A direct-mapped RAM of 2^ADDR_WIDTH entries, tagged with the QPN and the 16-bit index; the
line is the index's low bits XORed with the QPN's low bits reversed, so that the WQEs in
flight of a few QPs do not collide. A miss (never written, or taken by another WQE since)
is not an error: the requester reads the ring as before. Nothing is ever cleared: the
requester asks only for WQEs it sent whole in the QP's present life (before SQ_CI), whose
entries it wrote after any earlier life's.

The read port is registered: rd_* is the address of the next cycle, as a RAM wants it, and
m_info/m_hit answer for the address given the cycle before. A write and a read of the same
line in one cycle give the old entry.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module wqe_info #
(
    // log2 of the entries
    parameter ADDR_WIDTH = 10,
    // bits of the facts
    parameter INFO_WIDTH = 48
)
(
    input  wire                          clk,

    input  wire [23:0]                   wr_qpn,
    input  wire [15:0]                   wr_index,
    input  wire [INFO_WIDTH-1:0]         wr_info,
    input  wire                          wr_en,

    input  wire [23:0]                   rd_qpn,
    input  wire [15:0]                   rd_index,
    output wire [INFO_WIDTH-1:0]         m_info,
    output wire                          m_hit
);

localparam ENTRY_WIDTH = 40 + INFO_WIDTH;

function [ADDR_WIDTH-1:0] line(input [23:0] qpn, input [ADDR_WIDTH-1:0] index);
    integer i;
    reg [ADDR_WIDTH-1:0] rev;
    begin
        for (i = 0; i < ADDR_WIDTH; i = i + 1) begin
            rev[i] = qpn[ADDR_WIDTH-1-i];
        end
        line = index ^ rev;
    end
endfunction

reg [ENTRY_WIDTH-1:0] mem [0:2**ADDR_WIDTH-1];
reg [ENTRY_WIDTH-1:0] rd_data_reg = {ENTRY_WIDTH{1'b0}};
reg [39:0] rd_tag_reg = 40'd0;

always @(posedge clk) begin
    if (wr_en) begin
        mem[line(wr_qpn, wr_index[ADDR_WIDTH-1:0])] <= {wr_qpn, wr_index, wr_info};
    end
    rd_data_reg <= mem[line(rd_qpn, rd_index[ADDR_WIDTH-1:0])];
    rd_tag_reg <= {rd_qpn, rd_index};
end

assign m_info = rd_data_reg[INFO_WIDTH-1:0];
assign m_hit = rd_data_reg[ENTRY_WIDTH-1:INFO_WIDTH] == rd_tag_reg;

endmodule

`resetall
