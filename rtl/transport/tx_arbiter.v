/*

Transmit arbiter: the requester's and the responder's packets into one roce_tx.

Each source gives a header, then (for PAYLOAD_LEN > 0) its payload, in header order. The
arbiter grants headers round robin, one packet at a time, and remembers in a FIFO whose
payload comes next, so that payloads leave in the order of their headers. The granted
header is registered; the payload is a pass-through (ready to ready, documented here).

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module tx_arbiter #
(
    parameter DATA_WIDTH = 512,
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8)
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Source 0 (requester)
     */
    input  wire [`HROCE_ROCE_HDR_WIDTH-1:0] s0_hdr_data,
    input  wire                          s0_hdr_valid,
    output wire                          s0_hdr_ready,
    input  wire [DATA_WIDTH-1:0]         s0_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]         s0_axis_tkeep,
    input  wire                          s0_axis_tvalid,
    output wire                          s0_axis_tready,
    input  wire                          s0_axis_tlast,
    input  wire                          s0_axis_tuser,

    /*
     * Source 1 (responder)
     */
    input  wire [`HROCE_ROCE_HDR_WIDTH-1:0] s1_hdr_data,
    input  wire                          s1_hdr_valid,
    output wire                          s1_hdr_ready,
    input  wire [DATA_WIDTH-1:0]         s1_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]         s1_axis_tkeep,
    input  wire                          s1_axis_tvalid,
    output wire                          s1_axis_tready,
    input  wire                          s1_axis_tlast,
    input  wire                          s1_axis_tuser,

    /*
     * To roce_tx
     */
    output wire [`HROCE_ROCE_HDR_WIDTH-1:0] m_hdr_data,
    output wire                          m_hdr_valid,
    input  wire                          m_hdr_ready,
    output wire [DATA_WIDTH-1:0]         m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]         m_axis_tkeep,
    output wire                          m_axis_tvalid,
    input  wire                          m_axis_tready,
    output wire                          m_axis_tlast,
    output wire                          m_axis_tuser
);

reg [`HROCE_ROCE_HDR_WIDTH-1:0] hdr_reg = {`HROCE_ROCE_HDR_WIDTH{1'b0}};
reg hdr_valid_reg = 1'b0;
reg last_grant_reg = 1'b1;

wire pay_src;
wire pay_valid;
wire pay_ready;
wire [4:0] pay_count;

wire free = !hdr_valid_reg || m_hdr_ready;
wire can_take = free && pay_count < 5'd7;
// round robin: the source that did not win last time goes first
wire pick1 = s1_hdr_valid && (!s0_hdr_valid || last_grant_reg == 1'b0);
wire take0 = can_take && s0_hdr_valid && !pick1;
wire take1 = can_take && pick1;
wire [`HROCE_ROCE_HDR_WIDTH-1:0] taken = take1 ? s1_hdr_data : s0_hdr_data;
wire taken_payload = taken[`HROCE_ROCE_HDR_PAYLOAD_LEN] != 13'd0;

fifo_sync #(.WIDTH(1), .ADDR_WIDTH(3))
src_fifo (
    .clk(clk), .rst(rst),
    .s_data(take1), .s_valid((take0 || take1) && taken_payload), .s_ready(),
    .m_data(pay_src), .m_valid(pay_valid), .m_ready(pay_ready),
    .count(pay_count)
);

always @(posedge clk) begin
    if (m_hdr_ready) begin
        hdr_valid_reg <= 1'b0;
    end
    if (take0 || take1) begin
        hdr_reg <= taken;
        hdr_valid_reg <= 1'b1;
        last_grant_reg <= take1;
    end
    if (rst) begin
        hdr_valid_reg <= 1'b0;
        last_grant_reg <= 1'b1;
    end
end

assign s0_hdr_ready = take0;
assign s1_hdr_ready = take1;
assign m_hdr_data = hdr_reg;
assign m_hdr_valid = hdr_valid_reg;

assign m_axis_tdata = pay_src ? s1_axis_tdata : s0_axis_tdata;
assign m_axis_tkeep = pay_src ? s1_axis_tkeep : s0_axis_tkeep;
assign m_axis_tlast = pay_src ? s1_axis_tlast : s0_axis_tlast;
assign m_axis_tuser = pay_src ? s1_axis_tuser : s0_axis_tuser;
assign m_axis_tvalid = pay_valid && (pay_src ? s1_axis_tvalid : s0_axis_tvalid);
assign s0_axis_tready = pay_valid && !pay_src && m_axis_tready;
assign s1_axis_tready = pay_valid && pay_src && m_axis_tready;
assign pay_ready = m_axis_tvalid && m_axis_tready && m_axis_tlast;

endmodule

`resetall
