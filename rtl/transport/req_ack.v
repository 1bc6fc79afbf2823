/*

RC requester, acknowledging side: takes the responses (ACK, NAK, READ responses) to what
transport/req_tx sent, completes the WQEs they cover, places READ data, keeps the
retransmission timers, and asks req_tx to send again (a rewind) when something was lost.

    req_tx's messages --> context: what is out (OUT_*), SQ_PI; timer armed; flushes
    responses ---------> context --> WQE at SQ_CC (wqe_info, window, or DMA read) -->
                         complete the WQEs a PSN covers (CQEs)
                         READ response payload -> sg_walk -> chunk FIFO
                                               --(commit)--> DMA writes <-- s_axis payload
    timers ------------> context --> deadline, or a rewind
    rewinds, READs done, RNR waits, stops --> messages to req_tx

Ownership: this engine writes the requester's acknowledging bytes of the context (SQ_CC,
UNA_PSN, CC_ACKED, the retry state, its error bit, READs done, and what req_tx last told
of what is out) and nothing else. req_tx's messages come in order and this engine takes
them first, before any response: a SENT message leaves req_tx no later than the packets
it tells of, so a response never finds its packet unknown here. After a rewind this
engine asked for, the SENT messages req_tx sent before applying it are stale: each
carries req_tx's rewind generation, and only those of the latest (ACK_GEN) count. Every
event this engine takes emits at most one message to req_tx, and it takes req_tx's
messages without waiting on req_tx: the two never wait on each other.

UNA_PSN is the first PSN of the WQE at SQ_CC, so every WQE's PSN range follows from the
WQEs' lengths: nothing is written back into the ring. CC_ACKED counts the packets of the
WQE at SQ_CC acknowledged so far: by ACKs asked for within a long message, by a NAK's
PSN, and for a READ by its responses, which it takes in PSN order only, so that a lost one
is never skipped.

Retransmission is a rewind (go-back-N from host memory): req_tx goes back to SQ_CC,
UNA_PSN and CC_ACKED, so that the WQEs are read again from host memory and sent again
from the first packet not acknowledged (a READ from its first missing response); nothing
is kept on chip. Resuming inside a message, not at its start, is what lets a long message
through a lossy link at all. What rewinds:
  - a sequence NAK, at once;
  - an implicit NAK: a READ response past the next one expected, or an ACK past the READ
    at SQ_CC, at once, once until a response makes progress (IMPL_NAK);
  - the ACK timer: no progress for 4.096 us << TIMEOUT with requests in flight, RETRY_CNT
    times in a row at most, then the WQE fails with RETRY_EXC_ERR;
  - an RNR NAK: the QP waits the NAK's timer out (RNR_WAIT; req_tx is told to wait too)
    before it sends again, RNR_RETRY times in a row at most (7: for ever), then
    RNR_RETRY_EXC_ERR.
The deadlines live in the contexts (TIMER_START and the QP's timer codes); transport/
retry_timer keeps a bit per QP and hands the QPs whose timer may have expired back to this
engine (s_tmr), which looks at their contexts and answers each with its deadline or a
disarm (m_tmr); a QP is armed when its first request goes out (req_tx's SENT message),
when an RNR NAK comes and when its wait is over, and disarmed when its last request is
acknowledged. An error NAK completes the WQE with its error and moves the QP to error, as
does an error req_tx found (an ERROR message); this engine then flushes every WQE still
posted (WR_FLUSH_ERR) up to the SQ_PI req_tx told, and later ones as req_tx tells of them.

The response payload goes to the DMA writer through a pass-through: its ready reaches
the other side combinationally.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"
`include "req_msg.vh"

module req_ack #
(
    // Datapath width (a WQE beat is 64 bytes)
    parameter DATA_WIDTH = 512,
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // log2 of the READ response chunks between translation and the DMA writer
    parameter WR_CHUNK_ADDR_WIDTH = 6,
    // bits of a WQE's facts from transport/wqe_info
    parameter INFO_WIDTH = 184
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Configuration and control
     */
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
     * QPs this engine put in error, for the responder to flush its RQ
     */
    output wire [23:0]                   m_err_qpn,
    output wire                          m_err_valid,
    input  wire                          m_err_ready,

    /*
     * Messages: from req_tx (in), to req_tx (out); req_msg.vh
     */
    input  wire [`REQ_TXM_WIDTH-1:0]     s_msg_data,
    input  wire                          s_msg_valid,
    output wire                          s_msg_ready,
    output wire [`REQ_ACKM_WIDTH-1:0]    m_msg_data,
    output wire                          m_msg_valid,
    input  wire                          m_msg_ready,

    /*
     * The facts of the WQEs sent (transport/wqe_info's read port: the next cycle's QP and
     * index in, the answer a cycle later)
     */
    output wire [23:0]                   m_info_qpn,
    output wire [15:0]                   m_info_index,
    input  wire [INFO_WIDTH-1:0]         s_info_data,
    input  wire                          s_info_hit,

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
     * QP context (this engine owns bytes QPC_ACK_BYTE..+31)
     */
    output wire [23:0]                   m_ctx_lookup_index,
    output wire                          m_ctx_lookup_valid,
    input  wire                          m_ctx_lookup_ready,
    input  wire [`HROCE_QPC_BITS-1:0]    s_ctx_lookup_data,
    input  wire [1:0]                    s_ctx_lookup_status,
    input  wire                          s_ctx_lookup_valid,
    output wire                          s_ctx_lookup_ready,
    output wire [23:0]                   m_ctx_update_index,
    output wire [`HROCE_QPC_BITS-1:0]    m_ctx_update_data,
    output wire                          m_ctx_update_valid,
    input  wire                          m_ctx_update_ready,

    /*
     * MR translation (local keys)
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
     * DMA read client, aligned: WQEs
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
    output wire                          stat_retry_exceeded
);

initial begin
    if (DATA_WIDTH != 512) begin
        $error("Error: %m: WQE beats are 512 bits (DATA_WIDTH=%0d)", DATA_WIDTH);
        $finish;
    end
end

localparam HDR_WIDTH = `HROCE_ROCE_HDR_WIDTH;
localparam WR_CHUNK_DEPTH = 2**WR_CHUNK_ADDR_WIDTH;
// a WQE's facts: opcode, flags, length, SGE count, SGE 0 (at byte 32 of the WQE)
localparam SGE0_BIT = 32 * 8;

localparam [7:0]
    WR_SEND = `HROCE_WR_OPCODE_SEND,
    WR_SEND_IMM = `HROCE_WR_OPCODE_SEND_WITH_IMM,
    WR_READ = `HROCE_WR_OPCODE_RDMA_READ;

localparam [3:0] QPS_RTS = `HROCE_QP_STATE_RTS, QPS_SQD = `HROCE_QP_STATE_SQD,
    QPS_ERR = `HROCE_QP_STATE_ERR;

localparam [7:0]
    WC_SUCCESS = `HROCE_WC_STATUS_SUCCESS,
    WC_LOC_QP_OP_ERR = `HROCE_WC_STATUS_LOC_QP_OP_ERR,
    WC_LOC_PROT_ERR = `HROCE_WC_STATUS_LOC_PROT_ERR,
    WC_WR_FLUSH_ERR = `HROCE_WC_STATUS_WR_FLUSH_ERR,
    WC_BAD_RESP_ERR = `HROCE_WC_STATUS_BAD_RESP_ERR,
    WC_REM_INV_REQ_ERR = `HROCE_WC_STATUS_REM_INV_REQ_ERR,
    WC_REM_ACCESS_ERR = `HROCE_WC_STATUS_REM_ACCESS_ERR,
    WC_REM_OP_ERR = `HROCE_WC_STATUS_REM_OP_ERR,
    WC_RETRY_EXC_ERR = `HROCE_WC_STATUS_RETRY_EXC_ERR,
    WC_RNR_RETRY_EXC_ERR = `HROCE_WC_STATUS_RNR_RETRY_EXC_ERR;

localparam [4:0]
    S_IDLE = 5'd0,
    S_LOOKUP_WAIT = 5'd1,
    S_UPDATE = 5'd2,
    S_TXM = 5'd3,
    S_RX = 5'd4,
    S_FETCH = 5'd5,
    S_FETCH_DATA = 5'd6,
    S_RX_EVAL = 5'd7,
    S_RX_FINAL = 5'd8,
    S_WALK = 5'd9,
    S_PLACE_COMMIT = 5'd10,
    S_RD_COMPLETE = 5'd11,
    S_REQUEUE = 5'd12,
    S_TMR = 5'd13,
    S_RX_DROP = 5'd14,
    S_FLUSH = 5'd15;

/*
 * Control state
 */
reg [4:0] state_reg = S_IDLE, state_next;
reg [4:0] return_reg = S_IDLE, return_next;  // where a lookup returns to
reg [23:0] qpn_reg = 24'd0, qpn_next;
reg [`HROCE_QPC_BITS-1:0] ctx_reg = {`HROCE_QPC_BITS{1'b0}}, ctx_next;
reg ctx_ok_reg = 1'b0, ctx_ok_next;
reg lookup_valid_reg = 1'b0, lookup_valid_next;
reg update_valid_reg = 1'b0, update_valid_next;

// the message from req_tx being applied
reg [`REQ_TXM_WIDTH-1:0] txm_reg = {`REQ_TXM_WIDTH{1'b0}}, txm_next;

// A window on the send queue from SQ_CC on: up to 512 bytes of the ring, WQEs win_index ..
// win_index + win_count - 1 of QP win_qpn, so that the responses of a READ, or an ACK that
// completes several WQEs, read the ring once. The host writes a slot again only once its
// WQE completed, which is behind SQ_CC: the window never holds a stale WQE. A command may
// recreate a QP, so it is dropped whenever one runs (hold).
reg [511:0] wqe_mem [0:7];
reg win_valid_reg = 1'b0, win_valid_next;
reg [23:0] win_qpn_reg = 24'd0, win_qpn_next;
reg [15:0] win_index_reg = 16'd0, win_index_next;
reg [3:0] win_count_reg = 4'd0, win_count_next;
reg [511:0] wqe_wr_data;
reg [2:0] wqe_wr_addr;
reg wqe_wr_en;
reg [2:0] wqe_beat_reg = 3'd0, wqe_beat_next;
reg wqe_error_reg = 1'b0, wqe_error_next;
// the WQE at SQ_CC is known by its facts alone (wqe_info), not read from the ring
reg use_info_reg = 1'b0, use_info_next;
reg [INFO_WIDTH-1:0] info_reg = {INFO_WIDTH{1'b0}}, info_next;
reg rd_req_valid_reg = 1'b0, rd_req_valid_next;

// the response being handled
reg [HDR_WIDTH-1:0] rxh_reg = {HDR_WIDTH{1'b0}}, rxh_next;

// completion out, and the error a flush reports first
reg [23:0] cqe_cqn_reg = 24'd0, cqe_cqn_next;
reg [255:0] cqe_data_reg = 256'd0, cqe_data_next;
reg cqe_valid_reg = 1'b0, cqe_valid_next;
reg err_valid_reg = 1'b0, err_valid_next;
reg [15:0] err_index_reg = 16'd0, err_index_next;
reg [7:0] err_status_reg = 8'd0, err_status_next;
// this engine found the error: req_tx is told to stop when the flush is done
reg stop_reg = 1'b0, stop_next;
// the message S_REQUEUE sends is a rewind
reg rewind_reg = 1'b0, rewind_next;

reg [15:0] writes_pending_reg = 16'd0, writes_pending_next;

reg stat_rx_bad_response_reg = 1'b0, stat_rx_bad_response_next;
reg stat_rx_nak_reg = 1'b0, stat_rx_nak_next;
reg stat_dma_error_reg = 1'b0, stat_dma_error_next;
reg stat_retry_timeout_reg = 1'b0, stat_retry_timeout_next;
reg stat_retry_rnr_reg = 1'b0, stat_retry_rnr_next;
reg stat_retry_implicit_reg = 1'b0, stat_retry_implicit_next;
reg stat_retry_exceeded_reg = 1'b0, stat_retry_exceeded_next;

/*
 * FIFOs
 */
// what to do with each response payload: 1 = write it (committed chunks), 0 = drop it
reg act_in_data;
reg act_in_valid;
wire act_out_data;
wire act_out_valid;
wire act_out_ready;
wire [4:0] act_count;

reg kick_in_valid;
wire [4:0] kick_count;

// timer updates to transport/retry_timer: {qpn, arm, deadline}
reg tmr_in_arm;
reg [63:0] tmr_in_deadline;
reg tmr_in_valid;
wire [4:0] tmr_count;

// to req_tx
reg ackm_valid;
wire [4:0] ackm_count;

fifo_sync #(.WIDTH(89), .ADDR_WIDTH(3))
tmr_fifo (
    .clk(clk), .rst(rst),
    .s_data({qpn_reg, tmr_in_arm, tmr_in_deadline}), .s_valid(tmr_in_valid), .s_ready(),
    .m_data({m_tmr_qpn, m_tmr_arm, m_tmr_deadline}), .m_valid(m_tmr_valid),
    .m_ready(m_tmr_ready),
    .count(tmr_count)
);

fifo_sync #(.WIDTH(24), .ADDR_WIDTH(3))
kick_fifo (
    .clk(clk), .rst(rst),
    .s_data(qpn_reg), .s_valid(kick_in_valid), .s_ready(),
    .m_data(m_err_qpn), .m_valid(m_err_valid), .m_ready(m_err_ready),
    .count(kick_count)
);

fifo_sync #(.WIDTH(1), .ADDR_WIDTH(3))
act_fifo (
    .clk(clk), .rst(rst),
    .s_data(act_in_data), .s_valid(act_in_valid), .s_ready(),
    .m_data(act_out_data), .m_valid(act_out_valid), .m_ready(act_out_ready),
    .count(act_count)
);

/*
 * Fields of the context, the WQE and the response
 */
wire [3:0] qp_state = ctx_reg[`HROCE_QPC_STATE];
wire qp_err = ctx_reg[`HROCE_QPC_REQ_ERR] || qp_state == QPS_ERR;
wire [15:0] ack_pi = ctx_reg[`HROCE_QPC_ACK_PI];
wire [15:0] sq_cc = ctx_reg[`HROCE_QPC_SQ_CC];
wire [15:0] out_ci = ctx_reg[`HROCE_QPC_OUT_CI];
wire [23:0] out_npsn = ctx_reg[`HROCE_QPC_OUT_NPSN];
wire [23:0] out_pkt = ctx_reg[`HROCE_QPC_OUT_PKT];
wire [23:0] una = ctx_reg[`HROCE_QPC_UNA_PSN];
wire [7:0] rd_done = ctx_reg[`HROCE_QPC_RD_DONE];
wire [7:0] ack_gen = ctx_reg[`HROCE_QPC_ACK_GEN];
wire [1:0] sq_stride = ctx_reg[`HROCE_QPC_LOG_SQ_STRIDE];
wire [3:0] log_sq = ctx_reg[`HROCE_QPC_LOG_SQ_SIZE];
wire [3:0] log_mtu = {1'b0, ctx_reg[`HROCE_QPC_PATH_MTU]} + 4'd7;
wire [12:0] mtu = 13'd1 << log_mtu;
wire [23:0] cc_acked = ctx_reg[`HROCE_QPC_CC_ACKED];
wire rnr_wait = ctx_reg[`HROCE_QPC_RNR_WAIT];
wire impl_nak = ctx_reg[`HROCE_QPC_IMPL_NAK];
wire [4:0] timeout = ctx_reg[`HROCE_QPC_TIMEOUT];
wire [2:0] retry_left = ctx_reg[`HROCE_QPC_RETRY_LEFT];
wire [2:0] rnr_left = ctx_reg[`HROCE_QPC_RNR_LEFT];
wire rnr_forever = ctx_reg[`HROCE_QPC_RNR_RETRY] == 3'd7;
wire [63:0] timer_start = ctx_reg[`HROCE_QPC_TIMER_START];

// the IBTA RNR timer (table 45) in cycles: code 0 is 655.36 ms, 1 is 10 us, then every
// other code doubles, the odd ones at one and a half times the even one below
function [63:0] rnr_cycles(input [4:0] code, input [31:0] unit);
    reg [63:0] base;
    begin
        base = (code[0] && code != 5'd1) ? {32'd0, unit} + {31'd0, unit, 1'b0} : {32'd0, unit};
        if (code == 5'd0) begin
            rnr_cycles = base << 16;
        end else if (code == 5'd1) begin
            rnr_cycles = base;
        end else begin
            rnr_cycles = base << (code[0] ? (code - 5'd3) >> 1 : code >> 1);
        end
    end
endfunction

wire [63:0] ack_period = {32'd0, cfg_ack_unit} << timeout;
wire [63:0] ack_deadline_now = time_now + ack_period;
// when the QP's timer expires: its RNR wait, or no progress since TIMER_START
wire [63:0] tmr_deadline = timer_start + (rnr_wait ? rnr_cycles(ctx_reg[`HROCE_QPC_RNR_TIMER],
                                                                cfg_rnr_unit) : ack_period);

// go-back-N: send again from the oldest unacknowledged WQE, a READ from its first
// response not received; what req_tx sent before it applies this is stale from now on
function [`HROCE_QPC_BITS-1:0] rewind(input [`HROCE_QPC_BITS-1:0] c, input [63:0] now);
    begin
        rewind = c;
        rewind[`HROCE_QPC_OUT_CI] = c[`HROCE_QPC_SQ_CC];
        rewind[`HROCE_QPC_OUT_NPSN] = c[`HROCE_QPC_UNA_PSN];
        rewind[`HROCE_QPC_OUT_PKT] = c[`HROCE_QPC_CC_ACKED];
        rewind[`HROCE_QPC_ACK_GEN] = c[`HROCE_QPC_ACK_GEN] + 8'd1;
        rewind[`HROCE_QPC_TIMER_START] = now;
    end
endfunction

// progress: the retry counters start again
function [`HROCE_QPC_BITS-1:0] progress(input [`HROCE_QPC_BITS-1:0] c, input [63:0] now);
    begin
        progress = c;
        progress[`HROCE_QPC_TIMER_START] = now;
        progress[`HROCE_QPC_RETRY_LEFT] = c[`HROCE_QPC_RETRY_CNT];
        progress[`HROCE_QPC_RNR_LEFT] = c[`HROCE_QPC_RNR_RETRY];
        progress[`HROCE_QPC_IMPL_NAK] = 1'b0;
    end
endfunction

`include "wqe_addr.vh"

// one past the last WQE with packets out: OUT_CI, or the WQE at OUT_CI too when part of
// it went (OUT_PKT)
wire [15:0] sq_out_end = out_ci + {15'd0, out_pkt != 24'd0};
// where the WQE at SQ_CC lies in the window, and how many WQEs a read brings: up to 512
// bytes, not past the ring's end nor past the last WQE out (later slots may not be
// written yet)
wire [15:0] win_k = sq_cc - win_index_reg;
wire win_hit = win_valid_reg && qpn_reg == win_qpn_reg && win_k < {12'd0, win_count_reg};
wire [2:0] wqe_base = win_k[2:0] << sq_stride;
wire [15:0] win_slots = wqe_window(sq_cc, sq_out_end - sq_cc, log_sq, sq_stride);

// An ACK of a WQE sent whole (before OUT_CI), and the responses of a READ of one SGE, need
// no read of the ring (a READ of more SGEs does: they place its data)
wire info_usable = s_info_hit && sq_cc != out_ci &&
                   (s_info_data[183:176] != WR_READ || s_info_data[135:128] <= 8'd1);
reg [511:0] info_wqe;

always @* begin
    info_wqe = 512'd0;
    info_wqe[`HROCE_SQ_WQE_OPCODE] = info_reg[183:176];
    info_wqe[`HROCE_SQ_WQE_FLAGS] = info_reg[175:168];
    info_wqe[`HROCE_SQ_WQE_LENGTH] = info_reg[167:136];
    info_wqe[`HROCE_SQ_WQE_NUM_SGE] = info_reg[135:128];
    info_wqe[SGE0_BIT +: 128] = info_reg[127:0];
    info_wqe[`HROCE_SQ_WQE_QPN] = qpn_reg;
end

wire [511:0] wqe0 = use_info_reg ? info_wqe : wqe_mem[wqe_base];
wire [7:0] wqe_opcode = wqe0[`HROCE_SQ_WQE_OPCODE];
wire [7:0] wqe_flags = wqe0[`HROCE_SQ_WQE_FLAGS];
wire [7:0] wqe_num_sge = wqe0[`HROCE_SQ_WQE_NUM_SGE];
wire [31:0] wqe_len = wqe0[`HROCE_SQ_WQE_LENGTH];
wire wqe_signaled = (wqe_flags & `HROCE_WR_SIGNALED) != 8'd0;
wire wqe_is_read = wqe_opcode == WR_READ;
wire wqe_is_send = wqe_opcode == WR_SEND || wqe_opcode == WR_SEND_IMM;
wire [24:0] wqe_npkts = msg_pkts(wqe_len, log_mtu);
wire [23:0] wqe_last_psn = una + wqe_npkts[23:0] - 24'd1;

// SGE i of the WQE (i: the walker's): byte 32 + 16 i
wire [4:0] walk_sge_index;
wire [8:0] sge_byte = 9'd32 + {walk_sge_index, 4'd0};
wire [511:0] sge_beat = use_info_reg ? info_wqe : wqe_mem[wqe_base + sge_byte[8:6]];
wire [127:0] sge = sge_beat[{sge_byte[5:4], 7'd0} +: 128];

// the response
wire [7:0] rx_opcode = rxh_reg[`HROCE_ROCE_HDR_BTH_OPCODE];
wire [23:0] rx_psn = rxh_reg[`HROCE_ROCE_HDR_BTH_PSN];
wire [7:0] rx_syndrome = rxh_reg[`HROCE_ROCE_HDR_AETH_SYNDROME];
wire [12:0] rx_len = rxh_reg[`HROCE_ROCE_HDR_PAYLOAD_LEN];
wire rx_is_read_resp = rx_opcode >= `HROCE_RC_OP_READ_RESP_FIRST &&
                      rx_opcode <= `HROCE_RC_OP_READ_RESP_ONLY;
wire rx_is_ack = rx_opcode == `HROCE_RC_OP_ACK;
wire rx_is_pos_ack = rx_is_ack && rx_syndrome[7:5] == `HROCE_AETH_TYPE_ACK;
wire rx_is_nak = rx_is_ack && rx_syndrome[7:5] == `HROCE_AETH_TYPE_NAK;
wire rx_is_rnr = rx_is_ack && rx_syndrome[7:5] == `HROCE_AETH_TYPE_RNR;
// the last PSN the response acknowledges: a NAK or a READ response acknowledges what
// came before its PSN (a reserved AETH syndrome acknowledges nothing: it is dropped)
wire [23:0] rx_ack_psn = rx_is_pos_ack ? rx_psn : rx_psn - 24'd1;

// a <= b in 24-bit serial arithmetic
function psn_le(input [23:0] a, input [23:0] b);
    reg [23:0] d;
    begin
        d = b - a;
        psn_le = !d[23];
    end
endfunction

wire [23:0] rd_index = rx_psn - una;         // response packet index within the READ
wire [31:0] rd_offset = {8'd0, rd_index} << log_mtu;
wire [31:0] rd_left = wqe_len - rd_offset;
wire [12:0] rd_expect_len = rd_left > {19'd0, mtu} ? mtu : rd_left[12:0];
wire rd_at_last = {1'b0, rd_index} == wqe_npkts - 25'd1;
// a READ sent again from response k on is answered as a READ of its own: FIRST (or ONLY)
// at k
wire rd_opcode_ok = (rd_index == 24'd0 && wqe_npkts == 25'd1) ?
                        rx_opcode == `HROCE_RC_OP_READ_RESP_ONLY :
                    (rd_index == 24'd0) ? rx_opcode == `HROCE_RC_OP_READ_RESP_FIRST :
                    rd_at_last ? (rx_opcode == `HROCE_RC_OP_READ_RESP_LAST ||
                                  rx_opcode == `HROCE_RC_OP_READ_RESP_ONLY) :
                    (rx_opcode == `HROCE_RC_OP_READ_RESP_FIRST + 8'd1 ||
                     rx_opcode == `HROCE_RC_OP_READ_RESP_FIRST);
// the response the READ at SQ_CC takes next, and whether this one is past it (earlier
// responses were lost) or behind it (a duplicate)
wire [23:0] rd_next_psn = una + cc_acked;
wire rd_ahead = !psn_le(rx_psn, rd_next_psn);
// a PSN sent: before the WQE at OUT_CI, or one of its packets out (OUT_PKT)
wire rx_sent = psn_le(rx_psn, out_npsn + out_pkt - 24'd1);
// the response's PSN is one of the SEND or WRITE at SQ_CC
wire rx_in_wqe = !wqe_is_read && psn_le(una, rx_psn) && psn_le(rx_psn, wqe_last_psn);

// a NAK acknowledges the packets of the SEND or WRITE at SQ_CC before its PSN (a READ
// counts its responses instead; a NAK older than the WQE, reordered behind later
// responses, acknowledges nothing new)
function [`HROCE_QPC_BITS-1:0] nak_acked(input [`HROCE_QPC_BITS-1:0] c);
    begin
        nak_acked = c;
        if (rx_in_wqe) begin
            nak_acked[`HROCE_QPC_CC_ACKED] = rx_psn - una;
        end
    end
endfunction

function [7:0] nak_status(input [7:0] syndrome);
    begin
        case (syndrome[4:0])
            `HROCE_AETH_NAK_INV_REQ: nak_status = WC_REM_INV_REQ_ERR;
            `HROCE_AETH_NAK_REM_ACCESS: nak_status = WC_REM_ACCESS_ERR;
            `HROCE_AETH_NAK_REM_OP: nak_status = WC_REM_OP_ERR;
            default: nak_status = WC_BAD_RESP_ERR;
        endcase
    end
endfunction

// a CQE of the WQE at index
function [255:0] make_cqe(input [15:0] index, input [7:0] opcode, input [7:0] status,
                          input [31:0] byte_len, input [23:0] qpn);
    reg [255:0] c;
    begin
        c = 256'd0;
        c[`HROCE_CQE_WQE_INDEX] = index;
        c[`HROCE_CQE_OPCODE] = opcode;
        c[`HROCE_CQE_STATUS] = status;
        c[`HROCE_CQE_BYTE_LEN] = byte_len;
        c[`HROCE_CQE_QPN] = qpn;
        c[`HROCE_CQE_FROM_SQ] = 1'b1;
        make_cqe = c;
    end
endfunction

wire [7:0] wqe_wc_opcode = wqe_is_read ? `HROCE_CQE_OP_RDMA_READ :
                           wqe_is_send ? `HROCE_CQE_OP_SEND : `HROCE_CQE_OP_RDMA_WRITE;

// the message from req_tx being applied
wire [1:0] txm_kind = txm_reg[`REQ_TXM_KIND];
// it tells of packets sent since the last rewind this engine asked for (not stale)
wire txm_current = txm_reg[`REQ_TXM_GEN] == ack_gen;
wire [15:0] txm_ci = txm_reg[`REQ_TXM_CI];
wire [23:0] txm_pkt = txm_reg[`REQ_TXM_PKT];

/*
 * The scatter-gather walk of a READ response's data
 */
reg walk_cmd_valid;
wire [2:0] walk_done_status;
wire walk_done_short;
wire walk_done_valid;
wire [12:0] walk_chunk_len;
wire [63:0] walk_chunk_iova;
wire chunk_wr_en;
reg chunk_commit, chunk_discard;
wire [76:0] wr_chunk_head;
wire wr_chunk_valid;
wire [WR_CHUNK_ADDR_WIDTH:0] wr_chunk_used;
wire wr_chunk_empty;

sg_walk
walk_inst (
    .clk(clk), .rst(rst),
    .s_cmd_sge(5'd0), .s_cmd_off(rd_offset), .s_cmd_len(rx_len),
    .s_cmd_num_sge(wqe_num_sge), .s_cmd_pd(ctx_reg[`HROCE_QPC_PD]),
    .s_cmd_access(`HROCE_PERM_LOCAL_WRITE),
    .s_cmd_valid(walk_cmd_valid), .s_cmd_ready(), .busy(),
    .sge_index(walk_sge_index), .sge_addr(sge[`HROCE_SGE_ADDR]),
    .sge_len(sge[`HROCE_SGE_LENGTH]), .sge_key(sge[`HROCE_SGE_LKEY]),
    .m_mr_req_key(m_mr_req_key), .m_mr_req_pd(m_mr_req_pd), .m_mr_req_va(m_mr_req_va),
    .m_mr_req_len(m_mr_req_len), .m_mr_req_access(m_mr_req_access),
    .m_mr_req_valid(m_mr_req_valid), .m_mr_req_ready(m_mr_req_ready),
    .s_mr_resp_iova(s_mr_resp_iova), .s_mr_resp_len(s_mr_resp_len),
    .s_mr_resp_last(s_mr_resp_last), .s_mr_resp_status(s_mr_resp_status),
    .s_mr_resp_valid(s_mr_resp_valid), .s_mr_resp_ready(s_mr_resp_ready),
    .m_chunk_iova(walk_chunk_iova), .m_chunk_len(walk_chunk_len),
    .m_chunk_last(), .m_chunk_valid(chunk_wr_en),
    .m_chunk_ready(wr_chunk_used != WR_CHUNK_DEPTH),
    .m_done_status(walk_done_status), .m_done_short(walk_done_short),
    .m_done_sge(), .m_done_off(), .m_done_valid(walk_done_valid),
    .m_done_ready(state_reg == S_WALK)
);

fifo_commit #(.WIDTH(77), .ADDR_WIDTH(WR_CHUNK_ADDR_WIDTH))
wr_chunk_fifo (
    .clk(clk), .rst(rst),
    .s_data({walk_chunk_len, walk_chunk_iova}), .s_valid(chunk_wr_en),
    .commit(chunk_commit), .discard(chunk_discard),
    .m_data(wr_chunk_head), .m_valid(wr_chunk_valid), .m_ready(m_wr_req_ready),
    .used(wr_chunk_used), .empty(wr_chunk_empty)
);

// every event may tell the responder of an error, answer the timer, and send one message
// to req_tx: there is room for each first. req_tx's messages need none of that room but
// the timer's and the kick's, and are taken first, even while a command holds the engine
// (so that it finds both engines idle)
wire room = kick_count < 5'd7 && tmr_count < 5'd7;
wire ackm_room = ackm_count < 5'd7;
wire take_txm = state_reg == S_IDLE && s_msg_valid && room;
wire take_rx = state_reg == S_IDLE && !hold && !take_txm && s_hdr_valid && room &&
               ackm_room && act_count < 5'd6;
// a QP whose timer may have expired goes before more responses: they may never end
wire take_tmr = state_reg == S_IDLE && !hold && !take_txm && !take_rx && s_tmr_valid &&
                room && ackm_room;

/*
 * Control FSM
 */
always @* begin
    state_next = state_reg;
    return_next = return_reg;
    qpn_next = qpn_reg;
    ctx_next = ctx_reg;
    ctx_ok_next = ctx_ok_reg;
    lookup_valid_next = lookup_valid_reg && !m_ctx_lookup_ready;
    update_valid_next = update_valid_reg && !m_ctx_update_ready;
    txm_next = txm_reg;
    wqe_beat_next = wqe_beat_reg;
    wqe_error_next = wqe_error_reg;
    use_info_next = use_info_reg;
    info_next = info_reg;
    win_valid_next = win_valid_reg && !hold;
    win_qpn_next = win_qpn_reg;
    win_index_next = win_index_reg;
    win_count_next = win_count_reg;
    rd_req_valid_next = rd_req_valid_reg && !m_wqe_rd_req_ready;
    rxh_next = rxh_reg;
    cqe_cqn_next = cqe_cqn_reg;
    cqe_data_next = cqe_data_reg;
    cqe_valid_next = cqe_valid_reg && !m_cqe_ready;
    err_valid_next = err_valid_reg;
    err_index_next = err_index_reg;
    err_status_next = err_status_reg;
    stop_next = stop_reg;
    rewind_next = rewind_reg;
    stat_rx_bad_response_next = 1'b0;
    stat_rx_nak_next = 1'b0;
    stat_dma_error_next = 1'b0;
    stat_retry_timeout_next = 1'b0;
    stat_retry_rnr_next = 1'b0;
    stat_retry_implicit_next = 1'b0;
    stat_retry_exceeded_next = 1'b0;
    tmr_in_arm = 1'b0;
    tmr_in_deadline = 64'd0;
    tmr_in_valid = 1'b0;

    wqe_wr_en = 1'b0;
    wqe_wr_addr = 3'd0;
    wqe_wr_data = 512'd0;
    walk_cmd_valid = 1'b0;
    chunk_commit = 1'b0;
    chunk_discard = 1'b0;
    act_in_data = 1'b0;
    act_in_valid = 1'b0;
    kick_in_valid = 1'b0;
    ackm_valid = 1'b0;

    case (state_reg)
        S_IDLE: begin
            err_valid_next = 1'b0;
            stop_next = 1'b0;
            rewind_next = 1'b0;
            if (take_txm) begin
                txm_next = s_msg_data;
                qpn_next = s_msg_data[`REQ_TXM_QPN];
                lookup_valid_next = 1'b1;
                return_next = S_TXM;
                state_next = S_LOOKUP_WAIT;
            end else if (take_rx) begin
                rxh_next = s_hdr_data;
                qpn_next = s_hdr_data[`HROCE_ROCE_HDR_BTH_DQPN];
                lookup_valid_next = 1'b1;
                return_next = S_RX;
                state_next = S_LOOKUP_WAIT;
            end else if (take_tmr) begin
                qpn_next = s_tmr_qpn;
                lookup_valid_next = 1'b1;
                return_next = S_TMR;
                state_next = S_LOOKUP_WAIT;
            end
        end
        S_LOOKUP_WAIT: begin
            if (s_ctx_lookup_valid) begin
                ctx_next = s_ctx_lookup_data;
                ctx_ok_next = s_ctx_lookup_status == 2'd0 && s_ctx_lookup_data[`HROCE_QPC_VALID];
                state_next = return_reg;
            end
        end
        S_UPDATE: begin
            if (!update_valid_reg || m_ctx_update_ready) begin
                state_next = S_IDLE;
            end
        end

        /*
         * A message from req_tx: packets out, or the QP in error
         */
        S_TXM: begin
            if (!ctx_ok_reg) begin
                state_next = S_IDLE;
            end else begin
                ctx_next[`HROCE_QPC_ACK_PI] = txm_reg[`REQ_TXM_PI];
                if (txm_kind == `REQ_TXM_ERROR && !qp_err) begin
                    // the WQE at the message's SQ_CI failed before it went
                    err_valid_next = 1'b1;
                    err_index_next = txm_ci;
                    err_status_next = txm_reg[`REQ_TXM_STATUS];
                end
                if (txm_kind != `REQ_TXM_SENT || qp_err) begin
                    // complete every WQE posted, up to the SQ_PI the message tells
                    ctx_next[`HROCE_QPC_REQ_ERR] = 1'b1;
                    state_next = S_FLUSH;
                end else begin
                    if (txm_current) begin
                        ctx_next[`HROCE_QPC_OUT_CI] = txm_ci;
                        ctx_next[`HROCE_QPC_OUT_NPSN] = txm_reg[`REQ_TXM_NPSN];
                        ctx_next[`HROCE_QPC_OUT_PKT] = txm_pkt;
                        if (sq_cc == sq_out_end && (txm_ci != sq_cc || txm_pkt != 24'd0) &&
                            !rnr_wait) begin
                            // the first request in flight starts the ACK timer
                            ctx_next[`HROCE_QPC_TIMER_START] = time_now;
                            tmr_in_arm = 1'b1;
                            tmr_in_deadline = ack_deadline_now;
                            tmr_in_valid = timeout != 5'd0;
                        end
                    end
                    update_valid_next = 1'b1;
                    state_next = S_UPDATE;
                end
            end
        end

        /*
         * Error: complete every posted WQE, the failed one with its error, the rest
         * with WR_FLUSH_ERR, and leave the QP in error
         */
        S_FLUSH: begin
            if (!cqe_valid_reg || m_cqe_ready) begin
                if (sq_cc == ack_pi) begin
                    ctx_next[`HROCE_QPC_REQ_ERR] = 1'b1;
                    // an error the requester found: the responder flushes the RQ
                    kick_in_valid = err_valid_reg;
                    tmr_in_valid = 1'b1;
                    // an error this engine found: req_tx stops, and tells of the SQ's end
                    ackm_valid = stop_reg;
                    err_valid_next = 1'b0;
                    update_valid_next = 1'b1;
                    state_next = S_UPDATE;
                end else begin
                    cqe_cqn_next = ctx_reg[`HROCE_QPC_SEND_CQN];
                    cqe_data_next = make_cqe(sq_cc, 8'd0,
                                             (err_valid_reg && err_index_reg == sq_cc) ?
                                             err_status_reg : WC_WR_FLUSH_ERR, 32'd0, qpn_reg);
                    cqe_valid_next = 1'b1;
                    ctx_next[`HROCE_QPC_SQ_CC] = sq_cc + 16'd1;
                    ctx_next[`HROCE_QPC_REQ_ERR] = 1'b1;
                end
            end
        end

        /*
         * A response: complete what it acknowledges, then act on it
         */
        S_RX: begin
            // nothing in flight, or a PSN never sent (after a rewind, responses to what was
            // sent before it land here too), or a reserved AETH syndrome
            if (!ctx_ok_reg || qp_err || (qp_state != QPS_RTS && qp_state != QPS_SQD) ||
                sq_cc == sq_out_end || !rx_sent ||
                (rx_is_ack && !rx_is_pos_ack && !rx_is_nak && !rx_is_rnr)) begin
                stat_rx_bad_response_next = 1'b1;
                state_next = S_RX_DROP;
            end else begin
                state_next = S_FETCH;
            end
        end
        S_FETCH: begin
            wqe_beat_next = 3'd0;
            wqe_error_next = 1'b0;
            use_info_next = 1'b0;
            if (info_usable) begin
                // the WQE known by its facts: nothing to read
                use_info_next = 1'b1;
                info_next = s_info_data;
                state_next = S_RX_EVAL;
            end else if (win_hit && !hold) begin
                // the WQE is in the window already
                state_next = S_RX_EVAL;
            end else begin
                win_valid_next = 1'b0;
                rd_req_valid_next = 1'b1;
                state_next = S_FETCH_DATA;
            end
        end
        S_FETCH_DATA: begin
            if (s_wqe_rd_axis_tvalid) begin
                wqe_wr_en = 1'b1;
                wqe_wr_addr = wqe_beat_reg;
                wqe_wr_data = s_wqe_rd_axis_tdata;
                wqe_beat_next = wqe_beat_reg + 3'd1;
                if (s_wqe_rd_axis_tlast) begin
                    wqe_error_next = s_wqe_rd_axis_tuser;
                    win_valid_next = !s_wqe_rd_axis_tuser && !hold;
                    win_qpn_next = qpn_reg;
                    win_index_next = sq_cc;
                    win_count_next = win_slots[3:0];
                    state_next = S_RX_EVAL;
                end
            end
        end
        S_RX_EVAL: begin
            if (wqe_error_reg) begin
                stat_dma_error_next = 1'b1;
                err_valid_next = 1'b1;
                err_index_next = sq_cc;
                err_status_next = WC_LOC_QP_OP_ERR;
                stop_next = 1'b1;
                act_in_data = 1'b0;
                act_in_valid = rx_len != 13'd0;
                state_next = S_FLUSH;
            end else if (!wqe_is_read && psn_le(wqe_last_psn, rx_ack_psn)) begin
                // this WQE is acknowledged
                if (!cqe_valid_reg || m_cqe_ready) begin
                    if (wqe_signaled) begin
                        cqe_cqn_next = ctx_reg[`HROCE_QPC_SEND_CQN];
                        cqe_data_next = make_cqe(sq_cc, wqe_wc_opcode, WC_SUCCESS, wqe_len,
                                                 qpn_reg);
                        cqe_valid_next = 1'b1;
                    end
                    ctx_next = progress(ctx_reg, time_now);
                    ctx_next[`HROCE_QPC_SQ_CC] = sq_cc + 16'd1;
                    ctx_next[`HROCE_QPC_UNA_PSN] = wqe_last_psn + 24'd1;
                    ctx_next[`HROCE_QPC_CC_ACKED] = 24'd0;
                    if (sq_cc + 16'd1 == sq_out_end) begin
                        // nothing in flight any more
                        tmr_in_valid = 1'b1;
                        state_next = S_RX_FINAL;
                    end else begin
                        state_next = S_FETCH;
                    end
                end
            end else begin
                state_next = S_RX_FINAL;
            end
        end
        S_RX_FINAL: begin
            if (rx_is_pos_ack) begin
                if (wqe_is_read && psn_le(una, rx_psn) && !impl_nak) begin
                    // implicit NAK: the responder went on past the READ at SQ_CC, so
                    // responses of it were lost: ask again for those not received
                    stat_retry_implicit_next = 1'b1;
                    ctx_next = rewind(ctx_reg, time_now);
                    ctx_next[`HROCE_QPC_IMPL_NAK] = 1'b1;
                    rewind_next = 1'b1;
                    state_next = S_REQUEUE;
                end else begin
                    if (rx_in_wqe) begin
                        // packets of the message at SQ_CC acknowledged: progress
                        ctx_next = progress(ctx_reg, time_now);
                        if (!psn_le(rx_psn, una + cc_acked - 24'd1)) begin
                            ctx_next[`HROCE_QPC_CC_ACKED] = rx_psn - una + 24'd1;
                        end
                    end
                    update_valid_next = 1'b1;
                    state_next = S_UPDATE;
                end
            end else if ((rx_is_rnr || rx_is_nak) && sq_cc == sq_out_end) begin
                // the NAK acknowledged all there was: nothing is left it could be about
                stat_rx_nak_next = 1'b1;
                update_valid_next = 1'b1;
                state_next = S_UPDATE;
            end else if (rx_is_rnr) begin
                stat_rx_nak_next = 1'b1;
                if (!rnr_forever && rnr_left == 3'd0) begin
                    stat_retry_exceeded_next = 1'b1;
                    err_valid_next = 1'b1;
                    err_index_next = sq_cc;
                    err_status_next = WC_RNR_RETRY_EXC_ERR;
                    stop_next = 1'b1;
                    state_next = S_FLUSH;
                end else begin
                    // wait the NAK's timer out (S_TMR), then send again from its PSN
                    stat_retry_rnr_next = 1'b1;
                    ctx_next = rewind(nak_acked(ctx_reg), time_now);
                    ctx_next[`HROCE_QPC_RNR_WAIT] = 1'b1;
                    ctx_next[`HROCE_QPC_RNR_TIMER] = rx_syndrome[4:0];
                    if (!rnr_forever) begin
                        ctx_next[`HROCE_QPC_RNR_LEFT] = rnr_left - 3'd1;
                    end
                    tmr_in_arm = 1'b1;
                    tmr_in_deadline = time_now + rnr_cycles(rx_syndrome[4:0], cfg_rnr_unit);
                    tmr_in_valid = 1'b1;
                    rewind_next = 1'b1;
                    state_next = S_REQUEUE;
                end
            end else if (rx_is_nak && rx_syndrome[4:0] != `HROCE_AETH_NAK_PSN_SEQ) begin
                stat_rx_nak_next = 1'b1;
                err_valid_next = 1'b1;
                err_index_next = sq_cc;
                err_status_next = nak_status(rx_syndrome);
                stop_next = 1'b1;
                state_next = S_FLUSH;
            end else if (rx_is_nak) begin
                // PSN sequence error: go back to the PSN the responder expects
                stat_rx_nak_next = 1'b1;
                ctx_next = rewind(nak_acked(ctx_reg), time_now);
                rewind_next = 1'b1;
                state_next = S_REQUEUE;
            end else if (rx_is_read_resp && wqe_is_read && psn_le(una, rx_psn) &&
                         !psn_le(rx_psn, rd_next_psn - 24'd1)) begin
                if (rd_ahead) begin
                    // past the response expected (of this READ or of a later request):
                    // the ones between were lost
                    act_in_data = 1'b0;
                    act_in_valid = rx_len != 13'd0;
                    if (!impl_nak) begin
                        stat_retry_implicit_next = 1'b1;
                        ctx_next = rewind(ctx_reg, time_now);
                        ctx_next[`HROCE_QPC_IMPL_NAK] = 1'b1;
                        rewind_next = 1'b1;
                        state_next = S_REQUEUE;
                    end else begin
                        state_next = S_IDLE;
                    end
                end else if (rd_opcode_ok && rx_len == rd_expect_len) begin
                    if (rx_len == 13'd0) begin
                        state_next = S_PLACE_COMMIT;
                    end else begin
                        // placed from the READ's offset of this response on
                        walk_cmd_valid = 1'b1;
                        state_next = S_WALK;
                    end
                end else begin
                    stat_rx_bad_response_next = 1'b1;
                    act_in_data = 1'b0;
                    act_in_valid = rx_len != 13'd0;
                    state_next = S_IDLE;
                end
            end else if (rx_is_read_resp && wqe_is_read && psn_le(una, rx_psn)) begin
                // a response received already (sent again after a rewind): dropped
                act_in_data = 1'b0;
                act_in_valid = rx_len != 13'd0;
                state_next = S_IDLE;
            end else begin
                stat_rx_bad_response_next = 1'b1;
                update_valid_next = 1'b1;
                act_in_data = 1'b0;
                act_in_valid = rx_len != 13'd0;
                state_next = S_UPDATE;
            end
        end
        S_WALK: begin
            // the response's data through the READ's SGEs
            if (walk_done_valid) begin
                if (walk_done_short || walk_done_status != `HROCE_MR_XLATE_OK) begin
                    // the SGEs hold fewer bytes than the READ's length, or a violation:
                    // nothing of this response reaches memory
                    chunk_discard = 1'b1;
                    err_valid_next = 1'b1;
                    err_index_next = sq_cc;
                    err_status_next = walk_done_short ? `HROCE_WC_STATUS_LOC_LEN_ERR :
                                      WC_LOC_PROT_ERR;
                    stop_next = 1'b1;
                    act_in_data = 1'b0;
                    act_in_valid = 1'b1;
                    state_next = S_FLUSH;
                end else begin
                    state_next = S_PLACE_COMMIT;
                end
            end
        end
        S_PLACE_COMMIT: begin
            if (act_count < 5'd7) begin
                chunk_commit = 1'b1;
                act_in_data = 1'b1;
                act_in_valid = rx_len != 13'd0;
                if (rx_psn == wqe_last_psn) begin
                    state_next = S_RD_COMPLETE;
                end else begin
                    ctx_next = progress(ctx_reg, time_now);
                    ctx_next[`HROCE_QPC_CC_ACKED] = cc_acked + 24'd1;
                    update_valid_next = 1'b1;
                    state_next = S_UPDATE;
                end
            end
        end
        S_RD_COMPLETE: begin
            // the CQE waits until every byte of the READ is in memory
            if (writes_pending_reg == 16'd0 && wr_chunk_empty &&
                (!cqe_valid_reg || m_cqe_ready)) begin
                if (wqe_signaled) begin
                    cqe_cqn_next = ctx_reg[`HROCE_QPC_SEND_CQN];
                    cqe_data_next = make_cqe(sq_cc, wqe_wc_opcode, WC_SUCCESS, wqe_len, qpn_reg);
                    cqe_valid_next = 1'b1;
                end
                ctx_next = progress(ctx_reg, time_now);
                ctx_next[`HROCE_QPC_SQ_CC] = sq_cc + 16'd1;
                ctx_next[`HROCE_QPC_UNA_PSN] = wqe_last_psn + 24'd1;
                ctx_next[`HROCE_QPC_RD_DONE] = rd_done + 8'd1;
                ctx_next[`HROCE_QPC_CC_ACKED] = 24'd0;
                // nothing in flight any more
                tmr_in_valid = sq_cc + 16'd1 == sq_out_end;
                // (the READ window has room again: req_tx is told)
                state_next = S_REQUEUE;
            end
        end
        S_REQUEUE: begin
            // tell req_tx (READs done, the RNR wait, a rewind), which gives the QP a turn
            ackm_valid = 1'b1;
            update_valid_next = 1'b1;
            state_next = S_UPDATE;
        end
        /*
         * The timer of a QP may have expired: answer retry_timer with the QP's deadline,
         * or a disarm, and act on an expiry
         */
        S_TMR: begin
            tmr_in_valid = 1'b1;
            if (!ctx_ok_reg || qp_err || (sq_cc == sq_out_end && !rnr_wait) ||
                (!rnr_wait && timeout == 5'd0)) begin
                // nothing in flight (or no timer): disarm
                state_next = S_IDLE;
            end else if (time_now < tmr_deadline) begin
                tmr_in_arm = 1'b1;
                tmr_in_deadline = tmr_deadline;
                state_next = S_IDLE;
            end else if (rnr_wait) begin
                // the RNR wait is over: send again, the ACK timer running from now (req_tx's
                // next SENT message cannot arm it when the rewind went to the middle of a
                // message: the QP does not look idle then)
                ctx_next[`HROCE_QPC_RNR_WAIT] = 1'b0;
                ctx_next[`HROCE_QPC_TIMER_START] = time_now;
                tmr_in_arm = timeout != 5'd0;
                tmr_in_deadline = ack_deadline_now;
                state_next = S_REQUEUE;
            end else if (retry_left == 3'd0) begin
                stat_retry_exceeded_next = 1'b1;
                err_valid_next = 1'b1;
                err_index_next = sq_cc;
                err_status_next = WC_RETRY_EXC_ERR;
                stop_next = 1'b1;
                tmr_in_valid = 1'b0;    // the flush disarms
                state_next = S_FLUSH;
            end else begin
                // no progress for the whole timeout: go back and send again
                stat_retry_timeout_next = 1'b1;
                ctx_next = rewind(ctx_reg, time_now);
                ctx_next[`HROCE_QPC_RETRY_LEFT] = retry_left - 3'd1;
                tmr_in_arm = 1'b1;
                tmr_in_deadline = ack_deadline_now;
                rewind_next = 1'b1;
                state_next = S_REQUEUE;
            end
        end
        S_RX_DROP: begin
            act_in_data = 1'b0;
            act_in_valid = rx_len != 13'd0;
            state_next = S_IDLE;
        end
        default: state_next = S_IDLE;
    endcase
end

/*
 * Messages to req_tx: the state they tell is the context as this event leaves it
 */
wire [`REQ_ACKM_WIDTH-1:0] ackm_data;
assign ackm_data[`REQ_ACKM_QPN] = qpn_reg;
assign ackm_data[`REQ_ACKM_REWIND] = rewind_reg;
assign ackm_data[`REQ_ACKM_WAIT] = ctx_reg[`HROCE_QPC_RNR_WAIT];
assign ackm_data[`REQ_ACKM_STOP] = stop_reg;
assign ackm_data[`REQ_ACKM_CI] = ctx_reg[`HROCE_QPC_OUT_CI];
assign ackm_data[`REQ_ACKM_NPSN] = ctx_reg[`HROCE_QPC_OUT_NPSN];
assign ackm_data[`REQ_ACKM_PKT] = ctx_reg[`HROCE_QPC_OUT_PKT];
assign ackm_data[`REQ_ACKM_RD_DONE] = rd_done;

fifo_sync #(.WIDTH(`REQ_ACKM_WIDTH), .ADDR_WIDTH(3))
ackm_fifo (
    .clk(clk), .rst(rst),
    .s_data(ackm_data), .s_valid(ackm_valid), .s_ready(),
    .m_data(m_msg_data), .m_valid(m_msg_valid), .m_ready(m_msg_ready),
    .count(ackm_count)
);

/*
 * READ response writes handed to the DMA writer and not yet answered
 */
always @* begin
    writes_pending_next = writes_pending_reg +
                          ((wr_chunk_valid && m_wr_req_ready) ? 16'd1 : 16'd0) -
                          (s_wr_done_valid ? 16'd1 : 16'd0);
end

/*
 * Response payload: written through the committed chunks, or dropped
 */
assign m_wr_axis_tdata = s_axis_tdata;
assign m_wr_axis_tkeep = s_axis_tkeep;
assign m_wr_axis_tlast = s_axis_tlast;
assign m_wr_axis_tvalid = act_out_valid && act_out_data && s_axis_tvalid;
assign s_axis_tready = act_out_valid && (act_out_data ? m_wr_axis_tready : 1'b1);
assign act_out_ready = s_axis_tvalid && s_axis_tready && s_axis_tlast;

always @(posedge clk) begin
    state_reg <= state_next;
    return_reg <= return_next;
    qpn_reg <= qpn_next;
    ctx_reg <= ctx_next;
    ctx_ok_reg <= ctx_ok_next;
    lookup_valid_reg <= lookup_valid_next;
    update_valid_reg <= update_valid_next;
    txm_reg <= txm_next;
    wqe_beat_reg <= wqe_beat_next;
    wqe_error_reg <= wqe_error_next;
    use_info_reg <= use_info_next;
    info_reg <= info_next;
    win_valid_reg <= win_valid_next;
    win_qpn_reg <= win_qpn_next;
    win_index_reg <= win_index_next;
    win_count_reg <= win_count_next;
    rd_req_valid_reg <= rd_req_valid_next;
    rxh_reg <= rxh_next;
    cqe_cqn_reg <= cqe_cqn_next;
    cqe_data_reg <= cqe_data_next;
    cqe_valid_reg <= cqe_valid_next;
    err_valid_reg <= err_valid_next;
    err_index_reg <= err_index_next;
    err_status_reg <= err_status_next;
    stop_reg <= stop_next;
    rewind_reg <= rewind_next;
    writes_pending_reg <= writes_pending_next;
    stat_rx_bad_response_reg <= stat_rx_bad_response_next;
    stat_rx_nak_reg <= stat_rx_nak_next;
    stat_dma_error_reg <= stat_dma_error_next || (s_wr_done_valid && s_wr_done_error);
    stat_retry_timeout_reg <= stat_retry_timeout_next;
    stat_retry_rnr_reg <= stat_retry_rnr_next;
    stat_retry_implicit_reg <= stat_retry_implicit_next;
    stat_retry_exceeded_reg <= stat_retry_exceeded_next;

    if (wqe_wr_en) begin
        wqe_mem[wqe_wr_addr] <= wqe_wr_data;
    end

    if (rst) begin
        state_reg <= S_IDLE;
        lookup_valid_reg <= 1'b0;
        update_valid_reg <= 1'b0;
        win_valid_reg <= 1'b0;
        rd_req_valid_reg <= 1'b0;
        cqe_valid_reg <= 1'b0;
        err_valid_reg <= 1'b0;
        stop_reg <= 1'b0;
        rewind_reg <= 1'b0;
        writes_pending_reg <= 16'd0;
        stat_rx_bad_response_reg <= 1'b0;
        stat_rx_nak_reg <= 1'b0;
        stat_dma_error_reg <= 1'b0;
        stat_retry_timeout_reg <= 1'b0;
        stat_retry_rnr_reg <= 1'b0;
        stat_retry_implicit_reg <= 1'b0;
        stat_retry_exceeded_reg <= 1'b0;
    end
end

assign idle = state_reg == S_IDLE && !lookup_valid_reg && !update_valid_reg && !cqe_valid_reg &&
              !m_msg_valid;

assign s_hdr_ready = take_rx;
assign s_tmr_ready = take_tmr;
assign s_msg_ready = take_txm;

assign m_info_qpn = qpn_next;
assign m_info_index = ctx_next[`HROCE_QPC_SQ_CC];

assign m_ctx_lookup_index = qpn_reg;
assign m_ctx_lookup_valid = lookup_valid_reg;
assign s_ctx_lookup_ready = state_reg == S_LOOKUP_WAIT;
assign m_ctx_update_index = qpn_reg;
assign m_ctx_update_data = ctx_reg;
assign m_ctx_update_valid = update_valid_reg;

assign m_wqe_rd_req_addr = wqe_addr(ctx_reg[`HROCE_QPC_SQ_BASE], sq_cc, log_sq, sq_stride);
assign m_wqe_rd_req_len = win_slots << (6 + sq_stride);
assign m_wqe_rd_req_valid = rd_req_valid_reg;
assign s_wqe_rd_axis_tready = state_reg == S_FETCH_DATA;

assign m_wr_req_addr = wr_chunk_head[63:0];
assign m_wr_req_len = {3'd0, wr_chunk_head[76:64]};
assign m_wr_req_valid = wr_chunk_valid;

assign m_cqe_cqn = cqe_cqn_reg;
assign m_cqe_data = cqe_data_reg;
assign m_cqe_valid = cqe_valid_reg;

assign stat_rx_bad_response = stat_rx_bad_response_reg;
assign stat_rx_nak = stat_rx_nak_reg;
assign stat_dma_error = stat_dma_error_reg;
assign stat_retry_timeout = stat_retry_timeout_reg;
assign stat_retry_rnr = stat_retry_rnr_reg;
assign stat_retry_implicit = stat_retry_implicit_reg;
assign stat_retry_exceeded = stat_retry_exceeded_reg;

endmodule

`resetall
