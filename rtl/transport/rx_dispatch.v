/*

Receive dispatch: takes good RoCE frames from net/roce_rx (header, then payload for a
header with PAYLOAD_LEN > 0) and hands each one to the engine it is for:

- requests (RC SEND, RDMA WRITE, RDMA READ request) to the responder;
- responses (RDMA READ responses, ACK/NAK) to the requester;
- frames for another MAC or IP address (IPv4: cfg_ipv4; IPv6: the link-local address or a
  configured one), and opcodes the core does not serve (UC, UD,
  atomics, CNP), are counted and dropped with their payload.

A header is registered before it leaves, so s_hdr_ready does not depend on the engines'
ready inputs. The payload follows its header through a small FIFO of destinations; a
destination's payload waits until the engine that took the header wants it.

Headers come before their ICRC is checked (roce_rx's EARLY_HDR), each followed, in order,
by its verdict on s_verdict. A request goes to the responder at once, and its verdict
after it (m_req_verdict): the responder looks the QP up and translates while the ICRC is
computed, and commits nothing before the verdict. A response waits here for its verdict,
and reaches the requester only if good; a dropped frame is counted only if good. A bad
frame has no payload, so the payload's destination is queued with a good verdict.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module rx_dispatch #
(
    parameter DATA_WIDTH = 512,
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8)
)
(
    input  wire                          clk,
    input  wire                          rst,

    input  wire [47:0]                   cfg_mac,
    input  wire [31:0]                   cfg_ipv4,
    input  wire [`HROCE_IPV6_ADDRS*128-1:0] cfg_ip6,
    input  wire [`HROCE_IPV6_ADDRS-1:0]   cfg_ip6_valid,

    /*
     * From roce_rx
     */
    input  wire [`HROCE_ROCE_HDR_WIDTH-1:0] s_hdr_data,
    input  wire                          s_hdr_valid,
    output wire                          s_hdr_ready,
    input  wire                          s_verdict_good,
    input  wire                          s_verdict_valid,
    output wire                          s_verdict_ready,
    input  wire [DATA_WIDTH-1:0]         s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]         s_axis_tkeep,
    input  wire                          s_axis_tvalid,
    output wire                          s_axis_tready,
    input  wire                          s_axis_tlast,

    /*
     * Requests, to the responder
     */
    output wire [`HROCE_ROCE_HDR_WIDTH-1:0] m_req_hdr_data,
    output wire                          m_req_hdr_valid,
    input  wire                          m_req_hdr_ready,
    output wire                          m_req_verdict_good,
    output wire                          m_req_verdict_valid,
    input  wire                          m_req_verdict_ready,
    output wire [DATA_WIDTH-1:0]         m_req_axis_tdata,
    output wire [KEEP_WIDTH-1:0]         m_req_axis_tkeep,
    output wire                          m_req_axis_tvalid,
    input  wire                          m_req_axis_tready,
    output wire                          m_req_axis_tlast,

    /*
     * Responses, to the requester
     */
    output wire [`HROCE_ROCE_HDR_WIDTH-1:0] m_resp_hdr_data,
    output wire                          m_resp_hdr_valid,
    input  wire                          m_resp_hdr_ready,
    output wire [DATA_WIDTH-1:0]         m_resp_axis_tdata,
    output wire [KEEP_WIDTH-1:0]         m_resp_axis_tkeep,
    output wire                          m_resp_axis_tvalid,
    input  wire                          m_resp_axis_tready,
    output wire                          m_resp_axis_tlast,

    /*
     * Status
     */
    output wire                          stat_not_ours,
    output wire                          stat_unsupported
);

localparam [1:0] DEST_DROP = 2'd0, DEST_REQ = 2'd1, DEST_RESP = 2'd2;

wire [7:0] opcode = s_hdr_data[`HROCE_ROCE_HDR_BTH_OPCODE];
wire ip6_ours;
ip6_ours #(.ADDRS(`HROCE_IPV6_ADDRS))
ip6_ours_inst (
    .cfg_mac(cfg_mac),
    .cfg_ip6(cfg_ip6),
    .cfg_ip6_valid(cfg_ip6_valid),
    .addr(s_hdr_data[`HROCE_ROCE_HDR_IP6_DST]),
    .ours(ip6_ours),
    .link_local()
);
wire ip6 = s_hdr_data[`HROCE_ROCE_HDR_IP6];
wire ours = s_hdr_data[`HROCE_ROCE_HDR_ETH_DST] == cfg_mac &&
            (ip6 ? ip6_ours : s_hdr_data[`HROCE_ROCE_HDR_IP_DST] == cfg_ipv4);
// RC: 0x00-0x0c requests we execute; 0x0d-0x11 responses; 0x12-0x14 atomics are not served
wire is_request = opcode <= `HROCE_RC_OP_READ_REQUEST;
wire is_response = opcode >= `HROCE_RC_OP_READ_RESP_FIRST && opcode <= `HROCE_RC_OP_ACK;
wire [1:0] dest = !ours ? DEST_DROP : is_request ? DEST_REQ : is_response ? DEST_RESP :
                  DEST_DROP;
wire has_payload = s_hdr_data[`HROCE_ROCE_HDR_PAYLOAD_LEN] != 13'd0;

reg [`HROCE_ROCE_HDR_WIDTH-1:0] hdr_reg = {`HROCE_ROCE_HDR_WIDTH{1'b0}};
reg [1:0] hdr_dest_reg = DEST_DROP;
reg hdr_valid_reg = 1'b0;
reg hdr_good_reg = 1'b0;              // its verdict is in, and good (a request: at once)
reg req_verdict_valid_reg = 1'b0;
reg req_verdict_good_reg = 1'b0;
reg stat_not_ours_reg = 1'b0;
reg stat_unsupported_reg = 1'b0;

wire [1:0] pay_dest;
wire pay_valid;
wire pay_ready;
wire [4:0] pay_count;

// the headers taken whose verdict is still to come: {payload, not ours, destination}
wire [1:0] wait_dest;
wire wait_payload, wait_not_ours, wait_valid;
wire [4:0] wait_count;

// a verdict is taken with room for where it goes: the responder's verdict register, the
// payload's destination FIFO
wire verdict_room = (wait_dest != DEST_REQ || !req_verdict_valid_reg || m_req_verdict_ready) &&
                    (!wait_payload || pay_count < 5'd7);
wire verdict_take = s_verdict_valid && wait_valid && verdict_room;
wire verdict_good = verdict_take && s_verdict_good;

// a header is taken when the register is free (or leaving) and the verdict FIFO has room
wire hdr_leaving = hdr_valid_reg && hdr_good_reg &&
                   (hdr_dest_reg == DEST_REQ ? m_req_hdr_ready : m_resp_hdr_ready);
wire take = s_hdr_valid && (!hdr_valid_reg || hdr_leaving) && wait_count < 5'd7;

fifo_sync #(.WIDTH(4), .ADDR_WIDTH(3), .OUTPUT_REG(0))
wait_fifo (
    .clk(clk), .rst(rst),
    .s_data({has_payload, !ours, dest}), .s_valid(take), .s_ready(),
    .m_data({wait_payload, wait_not_ours, wait_dest}), .m_valid(wait_valid),
    .m_ready(verdict_take),
    .count(wait_count)
);

fifo_sync #(.WIDTH(2), .ADDR_WIDTH(3), .OUTPUT_REG(0))
dest_fifo (
    .clk(clk), .rst(rst),
    .s_data(wait_dest), .s_valid(verdict_good && wait_payload), .s_ready(),
    .m_data(pay_dest), .m_valid(pay_valid), .m_ready(pay_ready),
    .count(pay_count)
);

always @(posedge clk) begin
    stat_not_ours_reg <= verdict_good && wait_dest == DEST_DROP && wait_not_ours;
    stat_unsupported_reg <= verdict_good && wait_dest == DEST_DROP && !wait_not_ours;
    if (m_req_verdict_ready) begin
        req_verdict_valid_reg <= 1'b0;
    end
    if (verdict_take && wait_dest == DEST_REQ) begin
        req_verdict_valid_reg <= 1'b1;
        req_verdict_good_reg <= s_verdict_good;
    end
    // a response's verdict: it is the header held here (nothing is taken behind it)
    if (verdict_take && wait_dest == DEST_RESP) begin
        hdr_good_reg <= s_verdict_good;
        hdr_valid_reg <= s_verdict_good;
    end
    if (hdr_leaving) begin
        hdr_valid_reg <= 1'b0;
    end
    if (take) begin
        hdr_reg <= s_hdr_data;
        hdr_dest_reg <= dest;
        hdr_valid_reg <= dest != DEST_DROP;
        hdr_good_reg <= dest == DEST_REQ;
    end
    if (rst) begin
        hdr_valid_reg <= 1'b0;
        req_verdict_valid_reg <= 1'b0;
        stat_not_ours_reg <= 1'b0;
        stat_unsupported_reg <= 1'b0;
    end
end

assign s_hdr_ready = take;
assign s_verdict_ready = verdict_take;

assign m_req_hdr_data = hdr_reg;
assign m_req_hdr_valid = hdr_valid_reg && hdr_dest_reg == DEST_REQ;
assign m_req_verdict_good = req_verdict_good_reg;
assign m_req_verdict_valid = req_verdict_valid_reg;
assign m_resp_hdr_data = hdr_reg;
assign m_resp_hdr_valid = hdr_valid_reg && hdr_good_reg && hdr_dest_reg == DEST_RESP;

assign m_req_axis_tdata = s_axis_tdata;
assign m_req_axis_tkeep = s_axis_tkeep;
assign m_req_axis_tlast = s_axis_tlast;
assign m_req_axis_tvalid = s_axis_tvalid && pay_valid && pay_dest == DEST_REQ;
assign m_resp_axis_tdata = s_axis_tdata;
assign m_resp_axis_tkeep = s_axis_tkeep;
assign m_resp_axis_tlast = s_axis_tlast;
assign m_resp_axis_tvalid = s_axis_tvalid && pay_valid && pay_dest == DEST_RESP;
assign s_axis_tready = pay_valid && (pay_dest == DEST_REQ ? m_req_axis_tready :
                                     pay_dest == DEST_RESP ? m_resp_axis_tready : 1'b1);
assign pay_ready = s_axis_tvalid && s_axis_tready && s_axis_tlast;

assign stat_not_ours = stat_not_ours_reg;
assign stat_unsupported = stat_unsupported_reg;

endmodule

`resetall
