/*

RC requester: two engines side by side, each owning its part of a QP's requester state,
and the WQE facts the one keeps for the other.

    SQ doorbells ----> req_tx ----> request packets (headers, payload)
                        |   ^  \
          SENT, FLUSH,  |   |   wqe_info (each WQE's opcode, flags, length, first SGE)
          ERROR         v   |  /   rewind, READs done, RNR wait, stop
    responses -------> req_ack ---> completions, READ data, retry timers

transport/req_tx (doorbell intake, the QP scheduler, WQE fetch, segmentation and headers;
its stage transport/req_build walks and sends each packet's payload) owns SQ_PI, SQ_CI, NPSN and SQ_PKT in the sending part of the
context; transport/req_ack (responses, completions, timers, READ-response placement
through its walker) owns SQ_CC, UNA_PSN, CC_ACKED and the retry state in its own part.
What each must know of the other's travels in order as messages (transport/req_msg.vh):
a retransmission is a rewind message from req_ack that req_tx applies before the QP's
next turn. So an ACK never waits behind a packet being built, nor a packet behind an ACK:
one engine serves one QP while the other serves another (or the same one). The MR
translator is shared (mem/mr_arb: a walk holds it to its last piece).

The plan this is a step of, and what comes next (an operation table in place of the
wqe_info cache, a per-QP WQE prefetch, contexts looked up out of order), is in README.md,
"The transport's redesign".

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"
`include "req_msg.vh"

module req_engine #
(
    // Datapath width (a WQE beat is 64 bytes)
    parameter DATA_WIDTH = 512,
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // log2 of the QPNs the work FIFO holds (a QP waits there at most once)
    parameter WORK_ADDR_WIDTH = 10,
    // log2 of the payload chunks between translation and the DMA reader (at least 7:
    // a packet may take 60 chunks, and one starts only with room for them all)
    parameter RD_CHUNK_ADDR_WIDTH = 7,
    // log2 of the READ response chunks between translation and the DMA writer
    parameter WR_CHUNK_ADDR_WIDTH = 6,
    // log2 of the WQEs sent whose completion facts are kept on chip (transport/wqe_info)
    parameter INFO_ADDR_WIDTH = 10
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Configuration and control
     */
    input  wire [47:0]                   cfg_mac,
    input  wire                          hold,
    output wire                          idle,
    input  wire [63:0]                   time_now,
    input  wire [31:0]                   cfg_ack_unit,   // cycles of 4.096 us
    input  wire [31:0]                   cfg_rnr_unit,   // cycles of 10 us

    /*
     * Retransmission timers: QPs whose timer may have expired (in), arm/disarm (out)
     */
    input  wire [23:0]                   s_tmr_qpn,
    input  wire                          s_tmr_valid,
    output wire                          s_tmr_ready,
    output wire [23:0]                   m_tmr_qpn,
    output wire                          m_tmr_arm,
    output wire [63:0]                   m_tmr_deadline,
    output wire                          m_tmr_valid,
    input  wire                          m_tmr_ready,

    /*
     * SQ doorbells (push_data valid when push is set)
     */
    input  wire [23:0]                   s_db_qpn,
    input  wire [15:0]                   s_db_index,
    input  wire                          s_db_push,
    input  wire [511:0]                  s_db_push_data,
    input  wire                          s_db_valid,
    output wire                          s_db_ready,

    /*
     * QPs put in error: by the responder (in), by this engine (out)
     */
    input  wire [23:0]                   s_err_qpn,
    input  wire                          s_err_valid,
    output wire                          s_err_ready,
    output wire [23:0]                   m_err_qpn,
    output wire                          m_err_valid,
    input  wire                          m_err_ready,

    /*
     * Responses in (ACK, NAK, READ responses) with their payload
     */
    input  wire [`HROCE_ROCE_HDR_WIDTH-1:0] s_hdr_data,
    input  wire                          s_hdr_valid,
    output wire                          s_hdr_ready,
    input  wire [DATA_WIDTH-1:0]         s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]         s_axis_tkeep,
    input  wire                          s_axis_tvalid,
    output wire                          s_axis_tready,
    input  wire                          s_axis_tlast,

    /*
     * QP context, sending side (req_tx owns bytes QPC_REQ_BYTE..+31)
     */
    output wire [23:0]                   m_ctx_lookup_index,
    output wire                          m_ctx_lookup_valid,
    input  wire                          m_ctx_lookup_ready,
    input  wire [`HROCE_QPC_BITS-1:0]                 s_ctx_lookup_data,
    input  wire [1:0]                    s_ctx_lookup_status,
    input  wire                          s_ctx_lookup_valid,
    output wire                          s_ctx_lookup_ready,
    output wire [23:0]                   m_ctx_update_index,
    output wire [`HROCE_QPC_BITS-1:0]                 m_ctx_update_data,
    output wire                          m_ctx_update_valid,
    input  wire                          m_ctx_update_ready,

    /*
     * QP context, acknowledging side (req_ack owns bytes QPC_ACK_BYTE..+31)
     */
    output wire [23:0]                   m_actx_lookup_index,
    output wire                          m_actx_lookup_valid,
    input  wire                          m_actx_lookup_ready,
    input  wire [`HROCE_QPC_BITS-1:0]    s_actx_lookup_data,
    input  wire [1:0]                    s_actx_lookup_status,
    input  wire                          s_actx_lookup_valid,
    output wire                          s_actx_lookup_ready,
    output wire [23:0]                   m_actx_update_index,
    output wire [`HROCE_QPC_BITS-1:0]    m_actx_update_data,
    output wire                          m_actx_update_valid,
    input  wire                          m_actx_update_ready,

    /*
     * MR translation (local keys; the two engines share the translator)
     */
    output wire [31:0]                   m_mr_req_key,
    output wire [23:0]                   m_mr_req_pd,
    output wire [63:0]                   m_mr_req_va,
    output wire [31:0]                   m_mr_req_len,
    output wire [3:0]                    m_mr_req_access,
    output wire                          m_mr_req_valid,
    input  wire                          m_mr_req_ready,
    input  wire [63:0]                   s_mr_resp_iova,
    input  wire [15:0]                   s_mr_resp_len,
    input  wire                          s_mr_resp_last,
    input  wire [2:0]                    s_mr_resp_status,
    input  wire                          s_mr_resp_valid,
    output wire                          s_mr_resp_ready,

    /*
     * DMA read clients, aligned: WQEs to send (req_tx) and to complete (req_ack)
     */
    output wire [63:0]                   m_wqe_rd_req_addr,
    output wire [15:0]                   m_wqe_rd_req_len,
    output wire                          m_wqe_rd_req_valid,
    input  wire                          m_wqe_rd_req_ready,
    input  wire [DATA_WIDTH-1:0]         s_wqe_rd_axis_tdata,
    input  wire                          s_wqe_rd_axis_tvalid,
    output wire                          s_wqe_rd_axis_tready,
    input  wire                          s_wqe_rd_axis_tlast,
    input  wire                          s_wqe_rd_axis_tuser,
    output wire [63:0]                   m_awqe_rd_req_addr,
    output wire [15:0]                   m_awqe_rd_req_len,
    output wire                          m_awqe_rd_req_valid,
    input  wire                          m_awqe_rd_req_ready,
    input  wire [DATA_WIDTH-1:0]         s_awqe_rd_axis_tdata,
    input  wire                          s_awqe_rd_axis_tvalid,
    output wire                          s_awqe_rd_axis_tready,
    input  wire                          s_awqe_rd_axis_tlast,
    input  wire                          s_awqe_rd_axis_tuser,

    /*
     * DMA read client, byte stream: payload (one segment per packet)
     */
    output wire [63:0]                   m_pay_rd_req_addr,
    output wire [15:0]                   m_pay_rd_req_len,
    output wire                          m_pay_rd_req_last,
    output wire                          m_pay_rd_req_valid,
    input  wire                          m_pay_rd_req_ready,
    input  wire [DATA_WIDTH-1:0]         s_pay_rd_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]         s_pay_rd_axis_tkeep,
    input  wire                          s_pay_rd_axis_tvalid,
    output wire                          s_pay_rd_axis_tready,
    input  wire                          s_pay_rd_axis_tlast,
    input  wire                          s_pay_rd_axis_tuser,

    /*
     * DMA write client, byte stream: READ response data
     */
    output wire [63:0]                   m_wr_req_addr,
    output wire [15:0]                   m_wr_req_len,
    output wire                          m_wr_req_valid,
    input  wire                          m_wr_req_ready,
    output wire [DATA_WIDTH-1:0]         m_wr_axis_tdata,
    output wire [KEEP_WIDTH-1:0]         m_wr_axis_tkeep,
    output wire                          m_wr_axis_tvalid,
    input  wire                          m_wr_axis_tready,
    output wire                          m_wr_axis_tlast,
    input  wire                          s_wr_done_valid,
    input  wire                          s_wr_done_error,

    /*
     * Request packets out: header, then payload (for PAYLOAD_LEN > 0), in order
     */
    output wire [`HROCE_ROCE_HDR_WIDTH-1:0] m_hdr_data,
    output wire                          m_hdr_valid,
    input  wire                          m_hdr_ready,
    output wire [DATA_WIDTH-1:0]         m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]         m_axis_tkeep,
    output wire                          m_axis_tvalid,
    input  wire                          m_axis_tready,
    output wire                          m_axis_tlast,
    output wire                          m_axis_tuser,

    /*
     * Completions
     */
    output wire [23:0]                   m_cqe_cqn,
    output wire [255:0]                  m_cqe_data,
    output wire                          m_cqe_valid,
    input  wire                          m_cqe_ready,

    /*
     * Status
     */
    output wire                          stat_rx_bad_response,
    output wire                          stat_rx_nak,
    output wire                          stat_dma_error,
    output wire                          stat_retry_timeout,
    output wire                          stat_retry_rnr,
    output wire                          stat_retry_implicit,
    output wire                          stat_retry_exceeded,

    /*
     * Trace (the core's trace port): TRACE_WQE
     */
    output wire                          m_trace_valid,
    output wire [`HROCE_TRACE_EVENT_WIDTH-1:0] m_trace_data
);

// a WQE's facts in wqe_info: opcode, flags, length, SGE count (8 bits each but the length's
// 32), and SGE 0, at byte 32 of the WQE
localparam INFO_WIDTH = 8 + 8 + 32 + 8 + 128;

wire tx_idle, ack_idle;
assign idle = tx_idle && ack_idle;

wire [`REQ_TXM_WIDTH-1:0] txm_data;
wire txm_valid, txm_ready;
wire [`REQ_ACKM_WIDTH-1:0] ackm_data;
wire ackm_valid, ackm_ready;

wire [23:0] info_wr_qpn, info_rd_qpn;
wire [15:0] info_wr_index, info_rd_index;
wire [INFO_WIDTH-1:0] info_wr_data, info_rd_data;
wire info_wr_en, info_rd_hit;

wire [31:0] mr0_key, mr1_key;
wire [23:0] mr0_pd, mr1_pd;
wire [63:0] mr0_va, mr1_va, mr0_iova, mr1_iova;
wire [31:0] mr0_len, mr1_len;
wire [3:0] mr0_access, mr1_access;
wire mr0_valid, mr1_valid, mr0_ready, mr1_ready;
wire [15:0] mr0_rlen, mr1_rlen;
wire mr0_rlast, mr1_rlast, mr0_rvalid, mr1_rvalid, mr0_rready, mr1_rready;
wire [2:0] mr0_status, mr1_status;
wire tx_dma_error, ack_dma_error;
assign stat_dma_error = tx_dma_error || ack_dma_error;

req_tx #(
    .DATA_WIDTH(DATA_WIDTH),
    .WORK_ADDR_WIDTH(WORK_ADDR_WIDTH),
    .RD_CHUNK_ADDR_WIDTH(RD_CHUNK_ADDR_WIDTH),
    .INFO_WIDTH(INFO_WIDTH)
)
tx_inst (
    .clk(clk), .rst(rst),
    .cfg_mac(cfg_mac), .hold(hold), .idle(tx_idle),
    .s_db_qpn(s_db_qpn), .s_db_index(s_db_index), .s_db_push(s_db_push),
    .s_db_push_data(s_db_push_data), .s_db_valid(s_db_valid), .s_db_ready(s_db_ready),
    .s_err_qpn(s_err_qpn), .s_err_valid(s_err_valid), .s_err_ready(s_err_ready),
    .m_msg_data(txm_data), .m_msg_valid(txm_valid), .m_msg_ready(txm_ready),
    .s_msg_data(ackm_data), .s_msg_valid(ackm_valid), .s_msg_ready(ackm_ready),
    .m_info_qpn(info_wr_qpn), .m_info_index(info_wr_index), .m_info_data(info_wr_data),
    .m_info_valid(info_wr_en),
    .m_ctx_lookup_index(m_ctx_lookup_index), .m_ctx_lookup_valid(m_ctx_lookup_valid),
    .m_ctx_lookup_ready(m_ctx_lookup_ready), .s_ctx_lookup_data(s_ctx_lookup_data),
    .s_ctx_lookup_status(s_ctx_lookup_status), .s_ctx_lookup_valid(s_ctx_lookup_valid),
    .s_ctx_lookup_ready(s_ctx_lookup_ready), .m_ctx_update_index(m_ctx_update_index),
    .m_ctx_update_data(m_ctx_update_data), .m_ctx_update_valid(m_ctx_update_valid),
    .m_ctx_update_ready(m_ctx_update_ready),
    .m_mr_req_key(mr0_key), .m_mr_req_pd(mr0_pd), .m_mr_req_va(mr0_va),
    .m_mr_req_len(mr0_len), .m_mr_req_access(mr0_access), .m_mr_req_valid(mr0_valid),
    .m_mr_req_ready(mr0_ready), .s_mr_resp_iova(mr0_iova), .s_mr_resp_len(mr0_rlen),
    .s_mr_resp_last(mr0_rlast), .s_mr_resp_status(mr0_status),
    .s_mr_resp_valid(mr0_rvalid), .s_mr_resp_ready(mr0_rready),
    .m_wqe_rd_req_addr(m_wqe_rd_req_addr), .m_wqe_rd_req_len(m_wqe_rd_req_len),
    .m_wqe_rd_req_valid(m_wqe_rd_req_valid), .m_wqe_rd_req_ready(m_wqe_rd_req_ready),
    .s_wqe_rd_axis_tdata(s_wqe_rd_axis_tdata), .s_wqe_rd_axis_tvalid(s_wqe_rd_axis_tvalid),
    .s_wqe_rd_axis_tready(s_wqe_rd_axis_tready), .s_wqe_rd_axis_tlast(s_wqe_rd_axis_tlast),
    .s_wqe_rd_axis_tuser(s_wqe_rd_axis_tuser),
    .m_pay_rd_req_addr(m_pay_rd_req_addr), .m_pay_rd_req_len(m_pay_rd_req_len),
    .m_pay_rd_req_last(m_pay_rd_req_last), .m_pay_rd_req_valid(m_pay_rd_req_valid),
    .m_pay_rd_req_ready(m_pay_rd_req_ready),
    .s_pay_rd_axis_tdata(s_pay_rd_axis_tdata), .s_pay_rd_axis_tkeep(s_pay_rd_axis_tkeep),
    .s_pay_rd_axis_tvalid(s_pay_rd_axis_tvalid), .s_pay_rd_axis_tready(s_pay_rd_axis_tready),
    .s_pay_rd_axis_tlast(s_pay_rd_axis_tlast), .s_pay_rd_axis_tuser(s_pay_rd_axis_tuser),
    .m_hdr_data(m_hdr_data), .m_hdr_valid(m_hdr_valid), .m_hdr_ready(m_hdr_ready),
    .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready), .m_axis_tlast(m_axis_tlast), .m_axis_tuser(m_axis_tuser),
    .stat_dma_error(tx_dma_error)
);

req_ack #(
    .DATA_WIDTH(DATA_WIDTH),
    .WR_CHUNK_ADDR_WIDTH(WR_CHUNK_ADDR_WIDTH),
    .INFO_WIDTH(INFO_WIDTH)
)
ack_inst (
    .clk(clk), .rst(rst),
    .hold(hold), .idle(ack_idle), .time_now(time_now),
    .cfg_ack_unit(cfg_ack_unit), .cfg_rnr_unit(cfg_rnr_unit),
    .s_tmr_qpn(s_tmr_qpn), .s_tmr_valid(s_tmr_valid), .s_tmr_ready(s_tmr_ready),
    .m_tmr_qpn(m_tmr_qpn), .m_tmr_arm(m_tmr_arm), .m_tmr_deadline(m_tmr_deadline),
    .m_tmr_valid(m_tmr_valid), .m_tmr_ready(m_tmr_ready),
    .m_err_qpn(m_err_qpn), .m_err_valid(m_err_valid), .m_err_ready(m_err_ready),
    .s_msg_data(txm_data), .s_msg_valid(txm_valid), .s_msg_ready(txm_ready),
    .m_msg_data(ackm_data), .m_msg_valid(ackm_valid), .m_msg_ready(ackm_ready),
    .m_info_qpn(info_rd_qpn), .m_info_index(info_rd_index), .s_info_data(info_rd_data),
    .s_info_hit(info_rd_hit),
    .s_hdr_data(s_hdr_data), .s_hdr_valid(s_hdr_valid), .s_hdr_ready(s_hdr_ready),
    .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready), .s_axis_tlast(s_axis_tlast),
    .m_ctx_lookup_index(m_actx_lookup_index), .m_ctx_lookup_valid(m_actx_lookup_valid),
    .m_ctx_lookup_ready(m_actx_lookup_ready), .s_ctx_lookup_data(s_actx_lookup_data),
    .s_ctx_lookup_status(s_actx_lookup_status), .s_ctx_lookup_valid(s_actx_lookup_valid),
    .s_ctx_lookup_ready(s_actx_lookup_ready), .m_ctx_update_index(m_actx_update_index),
    .m_ctx_update_data(m_actx_update_data), .m_ctx_update_valid(m_actx_update_valid),
    .m_ctx_update_ready(m_actx_update_ready),
    .m_mr_req_key(mr1_key), .m_mr_req_pd(mr1_pd), .m_mr_req_va(mr1_va),
    .m_mr_req_len(mr1_len), .m_mr_req_access(mr1_access), .m_mr_req_valid(mr1_valid),
    .m_mr_req_ready(mr1_ready), .s_mr_resp_iova(mr1_iova), .s_mr_resp_len(mr1_rlen),
    .s_mr_resp_last(mr1_rlast), .s_mr_resp_status(mr1_status),
    .s_mr_resp_valid(mr1_rvalid), .s_mr_resp_ready(mr1_rready),
    .m_wqe_rd_req_addr(m_awqe_rd_req_addr), .m_wqe_rd_req_len(m_awqe_rd_req_len),
    .m_wqe_rd_req_valid(m_awqe_rd_req_valid), .m_wqe_rd_req_ready(m_awqe_rd_req_ready),
    .s_wqe_rd_axis_tdata(s_awqe_rd_axis_tdata),
    .s_wqe_rd_axis_tvalid(s_awqe_rd_axis_tvalid),
    .s_wqe_rd_axis_tready(s_awqe_rd_axis_tready),
    .s_wqe_rd_axis_tlast(s_awqe_rd_axis_tlast), .s_wqe_rd_axis_tuser(s_awqe_rd_axis_tuser),
    .m_wr_req_addr(m_wr_req_addr), .m_wr_req_len(m_wr_req_len),
    .m_wr_req_valid(m_wr_req_valid), .m_wr_req_ready(m_wr_req_ready),
    .m_wr_axis_tdata(m_wr_axis_tdata), .m_wr_axis_tkeep(m_wr_axis_tkeep),
    .m_wr_axis_tvalid(m_wr_axis_tvalid), .m_wr_axis_tready(m_wr_axis_tready),
    .m_wr_axis_tlast(m_wr_axis_tlast),
    .s_wr_done_valid(s_wr_done_valid), .s_wr_done_error(s_wr_done_error),
    .m_cqe_cqn(m_cqe_cqn), .m_cqe_data(m_cqe_data), .m_cqe_valid(m_cqe_valid),
    .m_cqe_ready(m_cqe_ready),
    .stat_rx_bad_response(stat_rx_bad_response), .stat_rx_nak(stat_rx_nak),
    .stat_dma_error(ack_dma_error), .stat_retry_timeout(stat_retry_timeout),
    .stat_retry_rnr(stat_retry_rnr), .stat_retry_implicit(stat_retry_implicit),
    .stat_retry_exceeded(stat_retry_exceeded)
);

// a WQE's last packet handed to the build stage, as its facts are kept
assign m_trace_valid = info_wr_en;
assign m_trace_data = {8'd0, 8'd0, info_wr_index, info_wr_qpn};

wqe_info #(.ADDR_WIDTH(INFO_ADDR_WIDTH), .INFO_WIDTH(INFO_WIDTH))
info_inst (
    .clk(clk),
    .wr_qpn(info_wr_qpn), .wr_index(info_wr_index), .wr_info(info_wr_data),
    .wr_en(info_wr_en),
    .rd_qpn(info_rd_qpn), .rd_index(info_rd_index),
    .m_info(info_rd_data), .m_hit(info_rd_hit)
);

mr_arb
mr_arb_inst (
    .clk(clk), .rst(rst),
    .s0_req_key(mr0_key), .s0_req_pd(mr0_pd), .s0_req_va(mr0_va), .s0_req_len(mr0_len),
    .s0_req_access(mr0_access), .s0_req_check(1'b0), .s0_req_valid(mr0_valid),
    .s0_req_ready(mr0_ready),
    .m0_resp_iova(mr0_iova), .m0_resp_len(mr0_rlen), .m0_resp_last(mr0_rlast),
    .m0_resp_status(mr0_status), .m0_resp_valid(mr0_rvalid), .m0_resp_ready(mr0_rready),
    .s1_req_key(mr1_key), .s1_req_pd(mr1_pd), .s1_req_va(mr1_va), .s1_req_len(mr1_len),
    .s1_req_access(mr1_access), .s1_req_check(1'b0), .s1_req_valid(mr1_valid),
    .s1_req_ready(mr1_ready),
    .m1_resp_iova(mr1_iova), .m1_resp_len(mr1_rlen), .m1_resp_last(mr1_rlast),
    .m1_resp_status(mr1_status), .m1_resp_valid(mr1_rvalid), .m1_resp_ready(mr1_rready),
    .m_req_key(m_mr_req_key), .m_req_pd(m_mr_req_pd), .m_req_va(m_mr_req_va),
    .m_req_len(m_mr_req_len), .m_req_access(m_mr_req_access), .m_req_check(),
    .m_req_valid(m_mr_req_valid), .m_req_ready(m_mr_req_ready),
    .s_resp_iova(s_mr_resp_iova), .s_resp_len(s_mr_resp_len), .s_resp_last(s_mr_resp_last),
    .s_resp_status(s_mr_resp_status), .s_resp_valid(s_mr_resp_valid),
    .s_resp_ready(s_mr_resp_ready)
);

endmodule

`resetall
