/*

RC requester: turns posted send WQEs into request packets, and the responses that come
back (ACK, NAK, READ responses) into completions.

    SQ doorbell --> context: SQ_PI --> work FIFO (QPNs with WQEs to send)
    work FIFO ---> context --> WQE (pushed copy, or DMA read) --> per packet:
                   sg_walk (SGEs -> mr_translate) -> chunk FIFO --(commit)--> DMA reads
                   header --------------------------------------------> m_hdr
                   payload (DMA byte stream, or inline bytes) ---------> m_axis
    responses ---> context --> WQE at SQ_CC --> complete the WQEs a PSN covers (CQEs)
                   READ response payload -> sg_walk -> chunk FIFO
                                         --(commit)--> DMA writes <-- s_axis payload

One control FSM handles one event at a time (a doorbell, a WQE, a response); the payload
moves beside it in three decoupled paths (chunk FIFO to the DMA clients, payload out to
m_axis, response payload to the DMA writer), so that a packet's data streams at one beat
per cycle while the FSM prepares the next packet. A packet's DMA chunks are committed only
once every piece of it translated without a violation: a violation never reaches memory,
and a packet header never leaves without its payload.

PSNs: a message takes max(1, ceil(LENGTH / MTU)) PSNs, a READ as many as its responses.
UNA_PSN is the first PSN of the WQE at SQ_CC, so every WQE's PSN range follows from the
WQEs' lengths: nothing is written back into the ring. CC_ACKED counts the packets of the
WQE at SQ_CC acknowledged so far: by ACKs asked for within a long message, by a NAK's
PSN, and for a READ by its responses, which it takes in PSN order only, so that a lost one
is never skipped.

Retransmission is a rewind (go-back-N from host memory): SQ_CI back to SQ_CC, NPSN back to
UNA_PSN and SQ_PKT to CC_ACKED, so that the WQEs are read again from host memory and sent
again from the first packet not acknowledged (a READ from its first missing response,
with the RETH moved on); nothing is kept on chip. Resuming inside a message, not at its
start, is what lets a long message through a lossy link at all. What rewinds:
  - a sequence NAK, at once;
  - an implicit NAK: a READ response past the next one expected, or an ACK past the READ
    at SQ_CC, at once, once until a response makes progress (IMPL_NAK);
  - the ACK timer: no progress for 4.096 us << TIMEOUT with requests in flight, RETRY_CNT
    times in a row at most, then the WQE fails with RETRY_EXC_ERR;
  - an RNR NAK: the QP waits the NAK's timer out (RNR_WAIT) before it sends again,
    RNR_RETRY times in a row at most (7: for ever), then RNR_RETRY_EXC_ERR.
The deadlines live in the contexts (TIMER_START and the QP's timer codes); transport/
retry_timer keeps a bit per QP and hands the QPs whose timer may have expired back to this
engine (s_tmr), which looks at their contexts and answers each with its deadline or a
disarm (m_tmr); a QP is armed when its first request goes out and when an RNR NAK comes,
and disarmed when its last request is acknowledged. An error NAK completes the WQE with
its error and moves the QP to error; the requester then flushes every WQE still posted
(WR_FLUSH_ERR).

The payload outputs are pass-throughs of the DMA read stream (m_axis) and of the response
payload (to the DMA writer): their ready inputs reach the other side combinationally.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

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
     * QP context (requester cache: this engine owns bytes 64..95)
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
    output wire                          stat_retry_exceeded
);

initial begin
    if (DATA_WIDTH != 512) begin
        $error("Error: %m: WQE beats are 512 bits (DATA_WIDTH=%0d)", DATA_WIDTH);
        $finish;
    end
end

localparam HDR_WIDTH = `HROCE_ROCE_HDR_WIDTH;
localparam WORK_DEPTH = 2**WORK_ADDR_WIDTH;
localparam RD_CHUNK_DEPTH = 2**RD_CHUNK_ADDR_WIDTH;
localparam WR_CHUNK_DEPTH = 2**WR_CHUNK_ADDR_WIDTH;
// a long message asks for an ACK every 2^ACK_INTERVAL_LOG packets (as rxe does every 64)
localparam ACK_INTERVAL_LOG = 6;
// chunks one packet may take: a piece per SGE (30 at most), each split once by a page
// boundary (a packet is at most 4 KiB, a page at least 4 KiB)
localparam PKT_CHUNKS = 64;
// a WQE's facts in wqe_info: opcode, flags, length, SGE count (8 bits each but the length's
// 32), and SGE 0, at byte 32 of the WQE
localparam INFO_WIDTH = 8 + 8 + 32 + 8 + 128;
localparam SGE0_BIT = 32 * 8;


localparam [7:0]
    WR_WRITE = `HROCE_WR_OPCODE_RDMA_WRITE,
    WR_WRITE_IMM = `HROCE_WR_OPCODE_RDMA_WRITE_WITH_IMM,
    WR_SEND = `HROCE_WR_OPCODE_SEND,
    WR_SEND_IMM = `HROCE_WR_OPCODE_SEND_WITH_IMM,
    WR_READ = `HROCE_WR_OPCODE_RDMA_READ;

localparam [3:0] QPS_RTS = `HROCE_QP_STATE_RTS, QPS_SQD = `HROCE_QP_STATE_SQD,
    QPS_ERR = `HROCE_QP_STATE_ERR;

localparam [7:0]
    WC_SUCCESS = `HROCE_WC_STATUS_SUCCESS,
    WC_LOC_LEN_ERR = `HROCE_WC_STATUS_LOC_LEN_ERR,
    WC_LOC_QP_OP_ERR = `HROCE_WC_STATUS_LOC_QP_OP_ERR,
    WC_LOC_PROT_ERR = `HROCE_WC_STATUS_LOC_PROT_ERR,
    WC_WR_FLUSH_ERR = `HROCE_WC_STATUS_WR_FLUSH_ERR,
    WC_BAD_RESP_ERR = `HROCE_WC_STATUS_BAD_RESP_ERR,
    WC_REM_INV_REQ_ERR = `HROCE_WC_STATUS_REM_INV_REQ_ERR,
    WC_REM_ACCESS_ERR = `HROCE_WC_STATUS_REM_ACCESS_ERR,
    WC_REM_OP_ERR = `HROCE_WC_STATUS_REM_OP_ERR,
    WC_RETRY_EXC_ERR = `HROCE_WC_STATUS_RETRY_EXC_ERR,
    WC_RNR_RETRY_EXC_ERR = `HROCE_WC_STATUS_RNR_RETRY_EXC_ERR;

localparam [5:0]
    S_IDLE = 6'd0,
    S_LOOKUP_WAIT = 6'd2,
    S_DB = 6'd3,
    S_UPDATE = 6'd4,
    S_SQ = 6'd5,
    S_FETCH = 6'd6,
    S_FETCH_DATA = 6'd7,
    S_PARSE = 6'd8,
    S_PKT = 6'd9,
    S_WALK = 6'd10,
    S_COMMIT = 6'd13,
    S_INLINE = 6'd14,
    S_SQ_DONE = 6'd15,
    S_FLUSH = 6'd16,
    S_RX = 6'd17,
    S_RX_EVAL = 6'd18,
    S_RX_FINAL = 6'd19,
    S_PLACE_COMMIT = 6'd21,
    S_RD_COMPLETE = 6'd22,
    S_RX_DROP = 6'd24,
    S_REQUEUE = 6'd25,
    S_ERR = 6'd26,
    S_TMR = 6'd27;

/*
 * Control state
 */
reg [5:0] state_reg = S_IDLE, state_next;
reg [5:0] return_reg = S_IDLE, return_next;  // where a lookup, fetch or CQE returns to
reg [23:0] qpn_reg = 24'd0, qpn_next;
reg [`HROCE_QPC_BITS-1:0] ctx_reg = {`HROCE_QPC_BITS{1'b0}}, ctx_next;
reg ctx_ok_reg = 1'b0, ctx_ok_next;
reg lookup_valid_reg = 1'b0, lookup_valid_next;
reg update_valid_reg = 1'b0, update_valid_next;

reg [15:0] db_index_reg = 16'd0, db_index_next;

// the one pushed WQE the core holds (from the last doorbell that carried one)
reg push_valid_reg = 1'b0, push_valid_next;
reg [23:0] push_qpn_reg = 24'd0, push_qpn_next;
reg [15:0] push_index_reg = 16'd0, push_index_next;
reg [511:0] push_data_reg = 512'd0, push_data_next;

// Two windows on a send queue, 512 bytes of the ring each (8 WQEs of 64 bytes, or one of
// 512): window 0 from SQ_CI on, for sending (beats 0-7), window 1 from SQ_CC on, for the
// responses (beats 8-15). One DMA read fills a window with the WQEs win_index ..
// win_index + win_count - 1 of QP win_qpn: so a QP's turn sends every WQE its window holds
// after one read, and the responses of a READ, or an ACK that completes several WQEs,
// read the ring once. A pushed WQE fills window 0 with itself. The host writes a slot
// again only once its WQE completed, which is behind SQ_CC: a window never holds a stale
// WQE. A command may recreate a QP, so both are dropped whenever one runs (hold).
reg [511:0] wqe_mem [0:15];
reg [1:0] win_valid_reg = 2'b00, win_valid_next;
reg [47:0] win_qpn_reg = 48'd0, win_qpn_next;     // {window 1, window 0}
reg [31:0] win_index_reg = 32'd0, win_index_next;
reg [7:0] win_count_reg = 8'd0, win_count_next;
reg [511:0] wqe_wr_data;
reg [2:0] wqe_wr_addr;
reg wqe_wr_en;
reg [2:0] wqe_beat_reg = 3'd0, wqe_beat_next;
reg wqe_error_reg = 1'b0, wqe_error_next;
reg wqe_rx_reg = 1'b0, wqe_rx_next;  // the WQE was fetched for a response (at SQ_CC)
// the WQE at SQ_CC is known by its facts alone (wqe_info), not read from the ring
reg use_info_reg = 1'b0, use_info_next;
reg [INFO_WIDTH-1:0] info_reg = {INFO_WIDTH{1'b0}}, info_next;
reg rd_req_valid_reg = 1'b0, rd_req_valid_next;

// the current message
reg [31:0] msg_left_reg = 32'd0, msg_left_next;   // bytes not yet packetized
reg [24:0] pkt_reg = 25'd0, pkt_next;             // packet index within the message
// where the packet's payload starts among the SGEs (sg_walk goes on from there)
reg [4:0] sge_idx_reg = 5'd0, sge_idx_next;
reg [31:0] sge_off_reg = 32'd0, sge_off_next;
reg [2:0] inline_beat_reg = 3'd0, inline_beat_next;

// the response being handled
reg [HDR_WIDTH-1:0] rxh_reg = {HDR_WIDTH{1'b0}}, rxh_next;

// completion out, and the error a flush reports first
reg [23:0] cqe_cqn_reg = 24'd0, cqe_cqn_next;
reg [255:0] cqe_data_reg = 256'd0, cqe_data_next;
reg cqe_valid_reg = 1'b0, cqe_valid_next;
reg err_valid_reg = 1'b0, err_valid_next;
reg [15:0] err_index_reg = 16'd0, err_index_next;
reg [7:0] err_status_reg = 8'd0, err_status_next;

// chunks of the packet being built or the response being placed ({last, length[12:0],
// IOVA}): payload reads go to one FIFO, READ response writes to the other, so that data
// coming in never waits behind data waiting for the link
wire chunk_wr_en;
wire [77:0] chunk_wr_data;
reg chunk_commit, chunk_discard;
wire [77:0] rd_chunk_head;
wire [76:0] wr_chunk_head;
wire rd_chunk_valid, wr_chunk_valid;
wire [RD_CHUNK_ADDR_WIDTH:0] rd_chunk_used;
wire [WR_CHUNK_ADDR_WIDTH:0] wr_chunk_used;
wire wr_chunk_empty;
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
wire [23:0] work_out_qpn;
wire work_out_valid;
reg work_out_ready;
reg [23:0] work_in_qpn;
reg work_in_valid;
wire [WORK_ADDR_WIDTH+1:0] work_count;

reg [HDR_WIDTH-1:0] hdr_in_data;
reg hdr_in_valid;
wire [4:0] hdr_count;

// payload source per packet with payload: 1 = inline beats, 0 = DMA stream
reg src_in_data;
reg src_in_valid;
wire src_out_data;
wire src_out_valid;
wire src_out_ready;
wire [4:0] src_count;

reg [DATA_WIDTH+KEEP_WIDTH:0] inl_in_data;
reg inl_in_valid;
wire [DATA_WIDTH+KEEP_WIDTH:0] inl_out_data;
wire inl_out_valid;
wire inl_out_ready;
wire [5:0] inl_count;

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

fifo_sync #(.WIDTH(24), .ADDR_WIDTH(WORK_ADDR_WIDTH))
work_fifo (
    .clk(clk), .rst(rst),
    .s_data(work_in_qpn), .s_valid(work_in_valid), .s_ready(),
    .m_data(work_out_qpn), .m_valid(work_out_valid), .m_ready(work_out_ready),
    .count(work_count)
);

fifo_sync #(.WIDTH(HDR_WIDTH), .ADDR_WIDTH(3))
hdr_fifo (
    .clk(clk), .rst(rst),
    .s_data(hdr_in_data), .s_valid(hdr_in_valid), .s_ready(),
    .m_data(m_hdr_data), .m_valid(m_hdr_valid), .m_ready(m_hdr_ready),
    .count(hdr_count)
);

fifo_sync #(.WIDTH(1), .ADDR_WIDTH(3))
src_fifo (
    .clk(clk), .rst(rst),
    .s_data(src_in_data), .s_valid(src_in_valid), .s_ready(),
    .m_data(src_out_data), .m_valid(src_out_valid), .m_ready(src_out_ready),
    .count(src_count)
);

fifo_sync #(.WIDTH(DATA_WIDTH+KEEP_WIDTH+1), .ADDR_WIDTH(4))
inline_fifo (
    .clk(clk), .rst(rst),
    .s_data(inl_in_data), .s_valid(inl_in_valid), .s_ready(),
    .m_data(inl_out_data), .m_valid(inl_out_valid), .m_ready(inl_out_ready),
    .count(inl_count)
);

fifo_commit #(.WIDTH(78), .ADDR_WIDTH(RD_CHUNK_ADDR_WIDTH))
rd_chunk_fifo (
    .clk(clk), .rst(rst),
    .s_data(chunk_wr_data), .s_valid(chunk_wr_en && !wqe_rx_reg),
    .commit(chunk_commit && !wqe_rx_reg), .discard(chunk_discard && !wqe_rx_reg),
    .m_data(rd_chunk_head), .m_valid(rd_chunk_valid), .m_ready(m_pay_rd_req_ready),
    .used(rd_chunk_used), .empty()
);

fifo_commit #(.WIDTH(77), .ADDR_WIDTH(WR_CHUNK_ADDR_WIDTH))
wr_chunk_fifo (
    .clk(clk), .rst(rst),
    .s_data(chunk_wr_data[76:0]), .s_valid(chunk_wr_en && wqe_rx_reg),
    .commit(chunk_commit && wqe_rx_reg), .discard(chunk_discard && wqe_rx_reg),
    .m_data(wr_chunk_head), .m_valid(wr_chunk_valid), .m_ready(m_wr_req_ready),
    .used(wr_chunk_used), .empty(wr_chunk_empty)
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
wire [15:0] sq_pi = ctx_reg[`HROCE_QPC_SQ_PI];
wire [15:0] sq_ci = ctx_reg[`HROCE_QPC_SQ_CI];
wire [15:0] sq_cc = ctx_reg[`HROCE_QPC_SQ_CC];
wire [23:0] npsn = ctx_reg[`HROCE_QPC_NPSN];
wire [23:0] una = ctx_reg[`HROCE_QPC_UNA_PSN];
wire [7:0] rd_inflight = ctx_reg[`HROCE_QPC_RD_INFLIGHT];
wire [7:0] max_rd = ctx_reg[`HROCE_QPC_MAX_RD_ATOMIC] == 8'd0 ? 8'd1 :
                    ctx_reg[`HROCE_QPC_MAX_RD_ATOMIC];
wire [1:0] sq_stride = ctx_reg[`HROCE_QPC_LOG_SQ_STRIDE];
wire [3:0] log_sq = ctx_reg[`HROCE_QPC_LOG_SQ_SIZE];
wire [3:0] log_mtu = {1'b0, ctx_reg[`HROCE_QPC_PATH_MTU]} + 4'd7;
wire [12:0] mtu = 13'd1 << log_mtu;
wire [23:0] sq_pkt_ctx = ctx_reg[`HROCE_QPC_SQ_PKT];
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
// response not received
function [`HROCE_QPC_BITS-1:0] rewind(input [`HROCE_QPC_BITS-1:0] c, input [63:0] now);
    begin
        rewind = c;
        rewind[`HROCE_QPC_SQ_CI] = c[`HROCE_QPC_SQ_CC];
        rewind[`HROCE_QPC_NPSN] = c[`HROCE_QPC_UNA_PSN];
        rewind[`HROCE_QPC_SQ_PKT] = c[`HROCE_QPC_CC_ACKED];
        rewind[`HROCE_QPC_RD_INFLIGHT] = 8'd0;
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

// one past the last WQE with packets out: SQ_CI, or the WQE at SQ_CI too when it yielded
// the link part of the way through (SQ_PKT)
wire [15:0] sq_out_end = sq_ci + {15'd0, sq_pkt_ctx != 24'd0};
// the window in use (wqe_rx_reg): where the WQE at its start (SQ_CI or SQ_CC) lies in it,
// and how many WQEs a read brings: up to 512 bytes, not past the ring's end nor past the
// last WQE posted (SQ_PI; for the responses, the last one out: later slots may not be
// written yet)
wire win = wqe_rx_reg;
wire [15:0] win_start = win ? sq_cc : sq_ci;
wire [15:0] win_k = win_start - (win ? win_index_reg[31:16] : win_index_reg[15:0]);
wire win_hit = win_valid_reg[win] && qpn_reg == (win ? win_qpn_reg[47:24] : win_qpn_reg[23:0]) &&
               win_k < {12'd0, win ? win_count_reg[7:4] : win_count_reg[3:0]};
wire [2:0] wqe_base = win_k[2:0] << sq_stride;
wire [15:0] sq_slots = 16'd1 << log_sq;
wire [15:0] win_to_end = sq_slots - (win_start & (sq_slots - 16'd1));
wire [15:0] win_posted = win ? sq_out_end - sq_cc : sq_pi - sq_ci;
wire [15:0] blk_slots = 16'd8 >> sq_stride;
wire [15:0] win_slots_a = win_to_end < blk_slots ? win_to_end : blk_slots;
wire [15:0] win_slots = win_posted < win_slots_a ? win_posted : win_slots_a;
// the WQE after the one at SQ_CI is in window 0 too (a turn goes on with it)
wire win_next = !win && win_valid_reg[0] && win_k + 16'd1 < {12'd0, win_count_reg[3:0]};
// what completing a WQE takes, kept when it was sent: {opcode, flags, length, SGE count,
// SGE 0}. An ACK of a WQE sent whole (before SQ_CI), and the responses of a READ of one SGE,
// need no read of the ring (a READ of more SGEs does: they place its data)
wire [INFO_WIDTH-1:0] info_data;
wire info_hit;

wqe_info #(.ADDR_WIDTH(INFO_ADDR_WIDTH), .INFO_WIDTH(INFO_WIDTH))
info_inst (
    .clk(clk),
    .wr_qpn(qpn_reg), .wr_index(sq_ci),
    .wr_info({wqe0[`HROCE_SQ_WQE_OPCODE], wqe0[`HROCE_SQ_WQE_FLAGS], wqe0[`HROCE_SQ_WQE_LENGTH],
              wqe0[`HROCE_SQ_WQE_NUM_SGE], wqe0[SGE0_BIT +: 128]}),
    .wr_en(state_reg == S_SQ_DONE),
    .rd_qpn(qpn_next), .rd_index(ctx_next[`HROCE_QPC_SQ_CC]),
    .m_info(info_data), .m_hit(info_hit)
);

wire info_usable = info_hit && sq_cc != sq_ci &&
                   (info_data[183:176] != WR_READ || info_data[135:128] <= 8'd1);
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

wire [511:0] wqe_mem0 = wqe_mem[{wqe_rx_reg, wqe_base}];
wire [511:0] wqe0 = (wqe_rx_reg && use_info_reg) ? info_wqe : wqe_mem0;
wire [7:0] wqe_opcode = wqe0[`HROCE_SQ_WQE_OPCODE];
wire [7:0] wqe_flags = wqe0[`HROCE_SQ_WQE_FLAGS];
wire [7:0] wqe_num_sge = wqe0[`HROCE_SQ_WQE_NUM_SGE];
wire [31:0] wqe_len = wqe0[`HROCE_SQ_WQE_LENGTH];
wire [31:0] wqe_imm = wqe0[`HROCE_SQ_WQE_IMM];
wire [63:0] wqe_raddr = wqe0[`HROCE_SQ_WQE_RADDR];
wire [31:0] wqe_rkey = wqe0[`HROCE_SQ_WQE_RKEY];
wire wqe_inline = (wqe_flags & `HROCE_WR_INLINE) != 8'd0;
wire wqe_signaled = (wqe_flags & `HROCE_WR_SIGNALED) != 8'd0;
wire wqe_solicited = (wqe_flags & `HROCE_WR_SOLICITED) != 8'd0;
wire wqe_fence = (wqe_flags & `HROCE_WR_FENCE) != 8'd0;
wire wqe_is_read = wqe_opcode == WR_READ;
wire wqe_is_send = wqe_opcode == WR_SEND || wqe_opcode == WR_SEND_IMM;
wire wqe_has_imm = wqe_opcode == WR_SEND_IMM || wqe_opcode == WR_WRITE_IMM;
wire [31:0] wqe_pkts_m1 = (wqe_len - 32'd1) >> log_mtu;
wire [24:0] wqe_npkts = wqe_len == 32'd0 ? 25'd1 : wqe_pkts_m1[24:0] + 25'd1;
// the packet the WQE at SQ_CI goes on from (it yielded the link, or a rewind resumes it):
// never past its end, whatever the context says
wire [23:0] sq_pkt = {1'b0, sq_pkt_ctx} < wqe_npkts ? sq_pkt_ctx : 24'd0;
wire [31:0] sq_pkt_off = {8'd0, sq_pkt} << log_mtu;
wire [23:0] wqe_last_psn = una + wqe_npkts[23:0] - 24'd1;
wire [9:0] wqe_bytes = 10'd64 << sq_stride;
wire [7:0] wqe_max_sge = (8'd4 << sq_stride) - 8'd2;

// SGE i of the WQE (i: the walker's): byte 32 + 16 i
wire [4:0] walk_sge_index;
wire [8:0] sge_byte = 9'd32 + {walk_sge_index, 4'd0};
wire [511:0] sge_beat = (wqe_rx_reg && use_info_reg) ? info_wqe :
                        wqe_mem[{wqe_rx_reg, wqe_base + sge_byte[8:6]}];
wire [127:0] sge = sge_beat[{sge_byte[5:4], 7'd0} +: 128];
wire [63:0] sge_addr = sge[`HROCE_SGE_ADDR];
wire [31:0] sge_len = sge[`HROCE_SGE_LENGTH];
wire [31:0] sge_lkey = sge[`HROCE_SGE_LKEY];

// the packet being built
wire pkt_first = pkt_reg == 25'd0;
wire [31:0] pkt_off = {7'd0, pkt_reg} << log_mtu;
// a READ is one request packet, whatever the number of responses
wire pkt_last = wqe_is_read || pkt_reg == wqe_npkts - 25'd1;
wire [12:0] pkt_len = wqe_is_read ? 13'd0 :
                      (msg_left_reg > {19'd0, mtu}) ? mtu : msg_left_reg[12:0];
reg [7:0] pkt_opcode;

always @* begin
    case (wqe_opcode)
        WR_SEND, WR_SEND_IMM: begin
            if (wqe_npkts == 25'd1)
                pkt_opcode = wqe_has_imm ? `HROCE_RC_OP_SEND_ONLY_IMM : `HROCE_RC_OP_SEND_ONLY;
            else if (pkt_first) pkt_opcode = `HROCE_RC_OP_SEND_FIRST;
            else if (pkt_last)
                pkt_opcode = wqe_has_imm ? `HROCE_RC_OP_SEND_LAST_IMM : `HROCE_RC_OP_SEND_LAST;
            else pkt_opcode = `HROCE_RC_OP_SEND_MIDDLE;
        end
        WR_WRITE, WR_WRITE_IMM: begin
            if (wqe_npkts == 25'd1)
                pkt_opcode = wqe_has_imm ? `HROCE_RC_OP_WRITE_ONLY_IMM : `HROCE_RC_OP_WRITE_ONLY;
            else if (pkt_first) pkt_opcode = `HROCE_RC_OP_WRITE_FIRST;
            else if (pkt_last)
                pkt_opcode = wqe_has_imm ? `HROCE_RC_OP_WRITE_LAST_IMM : `HROCE_RC_OP_WRITE_LAST;
            else pkt_opcode = `HROCE_RC_OP_WRITE_MIDDLE;
        end
        default: pkt_opcode = `HROCE_RC_OP_READ_REQUEST;
    endcase
end

reg [HDR_WIDTH-1:0] pkt_hdr;

// the QP's path: IPv6 addresses, or IPv4 in the low 32 bits
wire [127:0] ctx_sgid = ctx_reg[`HROCE_QPC_SGID];
wire [127:0] ctx_dgid = ctx_reg[`HROCE_QPC_DGID];

always @* begin
    pkt_hdr = {HDR_WIDTH{1'b0}};
    pkt_hdr[`HROCE_ROCE_HDR_ETH_DST] = ctx_reg[`HROCE_QPC_DMAC];
    pkt_hdr[`HROCE_ROCE_HDR_ETH_SRC] = cfg_mac;
    pkt_hdr[`HROCE_ROCE_HDR_IP_DSCP] = ctx_reg[`HROCE_QPC_DSCP];
    pkt_hdr[`HROCE_ROCE_HDR_IP_FLAGS] = 3'b010;
    pkt_hdr[`HROCE_ROCE_HDR_IP_TTL] = ctx_reg[`HROCE_QPC_TTL];
    pkt_hdr[`HROCE_ROCE_HDR_IP_SRC] = ctx_sgid[31:0];
    pkt_hdr[`HROCE_ROCE_HDR_IP_DST] = ctx_dgid[31:0];
    pkt_hdr[`HROCE_ROCE_HDR_IP6] = ctx_reg[`HROCE_QPC_IP6];
    pkt_hdr[`HROCE_ROCE_HDR_IP6_FLOW_LABEL] = ctx_reg[`HROCE_QPC_FLOW_LABEL];
    pkt_hdr[`HROCE_ROCE_HDR_IP6_SRC] = ctx_sgid;
    pkt_hdr[`HROCE_ROCE_HDR_IP6_DST] = ctx_dgid;
    pkt_hdr[`HROCE_ROCE_HDR_UDP_SPORT] = ctx_reg[`HROCE_QPC_UDP_SPORT];
    pkt_hdr[`HROCE_ROCE_HDR_BTH_OPCODE] = pkt_opcode;
    pkt_hdr[`HROCE_ROCE_HDR_BTH_SE] = pkt_last && wqe_solicited && (wqe_is_send ||
                                      wqe_opcode == WR_WRITE_IMM);
    pkt_hdr[`HROCE_ROCE_HDR_BTH_PKEY] = ctx_reg[`HROCE_QPC_PKEY];
    pkt_hdr[`HROCE_ROCE_HDR_BTH_DQPN] = ctx_reg[`HROCE_QPC_DEST_QPN];
    // an ACK at the end of each message, and every ACK_INTERVAL packets of a long one, so
    // that the ACK timer sees progress while a long message streams
    pkt_hdr[`HROCE_ROCE_HDR_BTH_ACKREQ] = !wqe_is_read &&
                                          (pkt_last || pkt_reg[ACK_INTERVAL_LOG-1:0] ==
                                           {ACK_INTERVAL_LOG{1'b1}});
    pkt_hdr[`HROCE_ROCE_HDR_BTH_PSN] = npsn + pkt_reg[23:0];
    if (wqe_is_read) begin
        // a READ sent again from response pkt_reg on asks for the rest only
        pkt_hdr[`HROCE_ROCE_HDR_RETH_VA] = wqe_raddr + {32'd0, pkt_off};
        pkt_hdr[`HROCE_ROCE_HDR_RETH_RKEY] = wqe_rkey;
        pkt_hdr[`HROCE_ROCE_HDR_RETH_DMA_LEN] = wqe_len - pkt_off;
    end else if (pkt_first && !wqe_is_send) begin
        pkt_hdr[`HROCE_ROCE_HDR_RETH_VA] = wqe_raddr;
        pkt_hdr[`HROCE_ROCE_HDR_RETH_RKEY] = wqe_rkey;
        pkt_hdr[`HROCE_ROCE_HDR_RETH_DMA_LEN] = wqe_len;
    end
    if (pkt_last && wqe_has_imm) begin
        pkt_hdr[`HROCE_ROCE_HDR_IMMDT] = wqe_imm;
    end
    pkt_hdr[`HROCE_ROCE_HDR_PAYLOAD_LEN] = pkt_len;
    pkt_hdr[`HROCE_ROCE_HDR_SRC_QPN] = qpn_reg;
end

// inline payload beat k: WQE bytes 32 + 64 k .. 95 + 64 k
wire [511:0] inline_lo = wqe_mem[{1'b0, wqe_base + inline_beat_reg}];
wire [511:0] inline_hi = wqe_mem[{1'b0, wqe_base + inline_beat_reg + 3'd1}];
wire [511:0] inline_data = {inline_hi[255:0], inline_lo[511:256]};
wire [12:0] inline_done = {4'd0, inline_beat_reg, 6'd0};  // bytes before this beat
wire inline_last = {19'd0, inline_done} + 32'd64 >= wqe_len;
wire [31:0] inline_rem = wqe_len - {19'd0, inline_done};
wire [6:0] inline_bytes = inline_last ? inline_rem[6:0] : 7'd64;

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
// a PSN sent: before the WQE at SQ_CI, or one of its packets out before it yielded the link
wire rx_sent = psn_le(rx_psn, npsn + sq_pkt_ctx - 24'd1);
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

wire chunk_full = wqe_rx_reg ? wr_chunk_used == WR_CHUNK_DEPTH :
                  rd_chunk_used == RD_CHUNK_DEPTH;

/*
 * The scatter-gather walk of a packet's payload (sent, or a READ response placed)
 */
reg walk_cmd_valid;
reg [4:0] walk_cmd_sge;
reg [31:0] walk_cmd_off;
reg [12:0] walk_cmd_len;
wire [2:0] walk_done_status;
wire walk_done_short;
wire [4:0] walk_done_sge;
wire [31:0] walk_done_off;
wire walk_done_valid;
wire [12:0] walk_chunk_len;
wire [63:0] walk_chunk_iova;
wire walk_chunk_last;

sg_walk
walk_inst (
    .clk(clk), .rst(rst),
    .s_cmd_sge(walk_cmd_sge), .s_cmd_off(walk_cmd_off), .s_cmd_len(walk_cmd_len),
    .s_cmd_num_sge(wqe_num_sge), .s_cmd_pd(ctx_reg[`HROCE_QPC_PD]),
    .s_cmd_access(wqe_rx_reg ? `HROCE_PERM_LOCAL_WRITE : 4'd0),
    .s_cmd_valid(walk_cmd_valid), .s_cmd_ready(), .busy(),
    .sge_index(walk_sge_index), .sge_addr(sge_addr), .sge_len(sge_len), .sge_key(sge_lkey),
    .m_mr_req_key(m_mr_req_key), .m_mr_req_pd(m_mr_req_pd), .m_mr_req_va(m_mr_req_va),
    .m_mr_req_len(m_mr_req_len), .m_mr_req_access(m_mr_req_access),
    .m_mr_req_valid(m_mr_req_valid), .m_mr_req_ready(m_mr_req_ready),
    .s_mr_resp_iova(s_mr_resp_iova), .s_mr_resp_len(s_mr_resp_len),
    .s_mr_resp_last(s_mr_resp_last), .s_mr_resp_status(s_mr_resp_status),
    .s_mr_resp_valid(s_mr_resp_valid), .s_mr_resp_ready(s_mr_resp_ready),
    .m_chunk_iova(walk_chunk_iova), .m_chunk_len(walk_chunk_len),
    .m_chunk_last(walk_chunk_last), .m_chunk_valid(chunk_wr_en), .m_chunk_ready(!chunk_full),
    .m_done_status(walk_done_status), .m_done_short(walk_done_short),
    .m_done_sge(walk_done_sge), .m_done_off(walk_done_off), .m_done_valid(walk_done_valid),
    .m_done_ready(state_reg == S_WALK)
);

assign chunk_wr_data = {walk_chunk_last, walk_chunk_len, walk_chunk_iova};
// room for a whole packet on the way to the link: a packet is started only then, so that
// nothing this engine does waits for the link (the link may wait for the peer, and the
// peer for the responses this engine takes)
wire tx_room = hdr_count < 5'd7 && src_count < 5'd7 && inl_count < 6'd10 &&
               rd_chunk_used <= RD_CHUNK_DEPTH - PKT_CHUNKS;
wire scheduled = ctx_reg[`HROCE_QPC_SCHEDULED];

// room in the work FIFO for what a response may queue, kept free of doorbells; and room
// for the response's payload action
wire work_room = work_count < WORK_DEPTH - 2;
wire work_room_db = work_count < WORK_DEPTH - 4;
// every event may tell the responder of an error: there is room for that too
wire kick_room = kick_count < 5'd7 && tmr_count < 5'd7;
wire take_err = state_reg == S_IDLE && !hold && s_err_valid && kick_room;
// doorbells first: they are cheap, and one waiting holds up every doorbell behind it
wire take_db = state_reg == S_IDLE && !hold && !take_err && s_db_valid && work_room_db &&
               kick_room;
wire take_rx = state_reg == S_IDLE && !hold && !take_err && !take_db && s_hdr_valid &&
               work_room && act_count < 5'd6 && kick_room;
// a QP whose timer may have expired goes before more work: work may never run out
wire take_tmr = state_reg == S_IDLE && !hold && !take_err && !take_rx && !take_db &&
                s_tmr_valid && work_room && kick_room;
wire take_work = state_reg == S_IDLE && !hold && !take_err && !take_rx && !take_db &&
                 !take_tmr && work_out_valid && kick_room && tx_room;

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
    db_index_next = db_index_reg;
    push_valid_next = push_valid_reg;
    push_qpn_next = push_qpn_reg;
    push_index_next = push_index_reg;
    push_data_next = push_data_reg;
    wqe_beat_next = wqe_beat_reg;
    wqe_error_next = wqe_error_reg;
    wqe_rx_next = wqe_rx_reg;
    use_info_next = use_info_reg;
    info_next = info_reg;
    win_valid_next = hold ? 2'b00 : win_valid_reg;
    win_qpn_next = win_qpn_reg;
    win_index_next = win_index_reg;
    win_count_next = win_count_reg;
    rd_req_valid_next = rd_req_valid_reg && !m_wqe_rd_req_ready;
    msg_left_next = msg_left_reg;
    pkt_next = pkt_reg;
    sge_idx_next = sge_idx_reg;
    sge_off_next = sge_off_reg;
    inline_beat_next = inline_beat_reg;
    rxh_next = rxh_reg;
    cqe_cqn_next = cqe_cqn_reg;
    cqe_data_next = cqe_data_reg;
    cqe_valid_next = cqe_valid_reg && !m_cqe_ready;
    err_valid_next = err_valid_reg;
    err_index_next = err_index_reg;
    err_status_next = err_status_reg;
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
    walk_cmd_sge = sge_idx_reg;
    walk_cmd_off = sge_off_reg;
    walk_cmd_len = pkt_len;
    chunk_commit = 1'b0;
    chunk_discard = 1'b0;
    work_out_ready = 1'b0;
    work_in_qpn = qpn_reg;
    work_in_valid = 1'b0;
    hdr_in_data = pkt_hdr;
    hdr_in_valid = 1'b0;
    src_in_data = 1'b0;
    src_in_valid = 1'b0;
    inl_in_data = {inline_last, {KEEP_WIDTH{1'b1}} >> (7'd64 - inline_bytes), inline_data};
    inl_in_valid = 1'b0;
    act_in_data = 1'b0;
    act_in_valid = 1'b0;
    kick_in_valid = 1'b0;

    case (state_reg)
        S_IDLE: begin
            begin
                if (take_err) begin
                    qpn_next = s_err_qpn;
                    err_valid_next = 1'b0;
                    lookup_valid_next = 1'b1;
                    return_next = S_ERR;
                    state_next = S_LOOKUP_WAIT;
                end else if (take_rx) begin
                    rxh_next = s_hdr_data;
                    qpn_next = s_hdr_data[`HROCE_ROCE_HDR_BTH_DQPN];
                    lookup_valid_next = 1'b1;
                    return_next = S_RX;
                    state_next = S_LOOKUP_WAIT;
                end else if (take_db) begin
                    qpn_next = s_db_qpn;
                    db_index_next = s_db_index;
                    if (s_db_push) begin
                        push_valid_next = 1'b1;
                        push_qpn_next = s_db_qpn;
                        push_index_next = s_db_index - 16'd1;
                        push_data_next = s_db_push_data;
                    end
                    lookup_valid_next = 1'b1;
                    return_next = S_DB;
                    state_next = S_LOOKUP_WAIT;
                end else if (take_tmr) begin
                    qpn_next = s_tmr_qpn;
                    lookup_valid_next = 1'b1;
                    return_next = S_TMR;
                    state_next = S_LOOKUP_WAIT;
                end else if (take_work) begin
                    work_out_ready = 1'b1;
                    qpn_next = work_out_qpn;
                    lookup_valid_next = 1'b1;
                    return_next = S_SQ;
                    state_next = S_LOOKUP_WAIT;
                end
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
         * The responder put the QP in error: flush the SQ
         */
        S_ERR: begin
            if (ctx_ok_reg && !ctx_reg[`HROCE_QPC_REQ_ERR]) begin
                state_next = S_FLUSH;
            end else begin
                state_next = S_IDLE;
            end
        end

        /*
         * SQ doorbell: record the producer counter and queue the QP
         */
        S_DB: begin
            if (ctx_ok_reg) begin
                ctx_next[`HROCE_QPC_SQ_PI] = db_index_reg;
                if (!scheduled && push_valid_reg && push_qpn_reg == qpn_reg &&
                    push_index_reg == sq_ci && tx_room) begin
                    // the WQE came with its doorbell and the QP waits for nothing else:
                    // send it now (S_SQ writes the context back on every way on)
                    state_next = S_SQ;
                end else begin
                    ctx_next[`HROCE_QPC_SCHEDULED] = 1'b1;
                    update_valid_next = 1'b1;
                    work_in_valid = !scheduled;
                    state_next = S_UPDATE;
                end
            end else begin
                state_next = S_IDLE;
            end
        end

        /*
         * Send the next WQE of a QP
         */
        S_SQ: begin
            // out of the work FIFO: every way on writes the context back
            ctx_next[`HROCE_QPC_SCHEDULED] = 1'b0;
            if (!ctx_ok_reg) begin
                state_next = S_IDLE;
            end else if (qp_err) begin
                if (sq_cc != sq_pi) begin
                    state_next = S_FLUSH;
                end else begin
                    update_valid_next = 1'b1;
                    state_next = S_UPDATE;
                end
            end else if (qp_state != QPS_RTS || sq_ci == sq_pi || rnr_wait) begin
                // (an RNR wait queues the QP again when it is over)
                update_valid_next = 1'b1;
                state_next = S_UPDATE;
            end else begin
                wqe_rx_next = 1'b0;
                state_next = S_FETCH;
            end
        end
        S_FETCH: begin
            wqe_beat_next = 3'd0;
            wqe_error_next = 1'b0;
            use_info_next = 1'b0;
            if (wqe_rx_reg && info_usable) begin
                // a response's WQE known by its facts: nothing to read
                use_info_next = 1'b1;
                info_next = info_data;
                state_next = S_RX_EVAL;
            end else if (win_hit && !hold) begin
                // the WQE is in its window already
                state_next = wqe_rx_reg ? S_RX_EVAL : S_PARSE;
            end else if (!wqe_rx_reg && push_valid_reg && push_qpn_reg == qpn_reg &&
                         push_index_reg == sq_ci) begin
                // the WQE came with its doorbell: window 0 holds it alone
                wqe_wr_en = 1'b1;
                wqe_wr_addr = 3'd0;
                wqe_wr_data = push_data_reg;
                push_valid_next = 1'b0;
                win_valid_next[0] = !hold;
                win_qpn_next[23:0] = qpn_reg;
                win_index_next[15:0] = sq_ci;
                win_count_next[3:0] = 4'd1;
                state_next = S_PARSE;
            end else begin
                win_valid_next[win] = 1'b0;
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
                    win_valid_next[win] = !s_wqe_rd_axis_tuser && !hold;
                    if (wqe_rx_reg) begin
                        win_qpn_next[47:24] = qpn_reg;
                        win_index_next[31:16] = sq_cc;
                        win_count_next[7:4] = win_slots[3:0];
                    end else begin
                        win_qpn_next[23:0] = qpn_reg;
                        win_index_next[15:0] = sq_ci;
                        win_count_next[3:0] = win_slots[3:0];
                    end
                    state_next = wqe_rx_reg ? S_RX_EVAL : S_PARSE;
                end
            end
        end
        S_PARSE: begin
            // from the first packet, or where the WQE yielded the link
            msg_left_next = wqe_len - sq_pkt_off;
            pkt_next = {1'b0, sq_pkt};
            sge_idx_next = 5'd0;
            sge_off_next = sq_pkt_off;
            if (wqe_error_reg) begin
                stat_dma_error_next = 1'b1;
                err_valid_next = 1'b1;
                err_index_next = sq_ci;
                err_status_next = WC_LOC_QP_OP_ERR;
                state_next = S_FLUSH;
            end else if (wqe_opcode > WR_READ || wqe0[`HROCE_SQ_WQE_QPN] != qpn_reg ||
                         (wqe_inline && (wqe_is_read || wqe_len > `HROCE_MAX_INLINE ||
                                         wqe_len > {22'd0, wqe_bytes} - 32'd32)) ||
                         (!wqe_inline && wqe_num_sge > wqe_max_sge)) begin
                err_valid_next = 1'b1;
                err_index_next = sq_ci;
                err_status_next = WC_LOC_QP_OP_ERR;
                state_next = S_FLUSH;
            end else if ((wqe_is_read && rd_inflight >= max_rd) ||
                         (wqe_fence && rd_inflight != 8'd0)) begin
                // wait: the READ completion that frees the window queues the QP again
                update_valid_next = 1'b1;
                state_next = S_UPDATE;
            end else begin
                // (sg_walk skips the SGEs before where a resumed WQE goes on)
                state_next = S_PKT;
            end
        end
        S_PKT: begin
            if (!tx_room) begin
                // the link is busy: give way to the responses, and go on from this
                // packet on the QP's next turn
                ctx_next[`HROCE_QPC_SQ_PKT] = pkt_reg[23:0];
                ctx_next[`HROCE_QPC_SCHEDULED] = 1'b1;
                work_in_valid = !scheduled;
                update_valid_next = 1'b1;
                state_next = S_UPDATE;
            end else if (pkt_len == 13'd0 || wqe_inline) begin
                state_next = S_COMMIT;
            end else begin
                walk_cmd_valid = 1'b1;
                state_next = S_WALK;
            end
        end
        S_WALK: begin
            // the packet's payload through the SGEs: chunks for the payload reads, or for
            // the placement of a READ response
            if (walk_done_valid) begin
                sge_idx_next = walk_done_sge;
                sge_off_next = walk_done_off;
                if (walk_done_short || walk_done_status != `HROCE_MR_XLATE_OK) begin
                    // the SGEs hold fewer bytes than the WQE's length, or a violation:
                    // nothing of this packet reaches memory
                    chunk_discard = 1'b1;
                    err_valid_next = 1'b1;
                    err_index_next = wqe_rx_reg ? sq_cc : sq_ci;
                    err_status_next = walk_done_short ? WC_LOC_LEN_ERR : WC_LOC_PROT_ERR;
                    if (wqe_rx_reg) begin
                        act_in_data = 1'b0;
                        act_in_valid = 1'b1;
                    end
                    state_next = S_FLUSH;
                end else begin
                    state_next = wqe_rx_reg ? S_PLACE_COMMIT : S_COMMIT;
                end
            end
        end
        S_COMMIT: begin
            // header and payload source leave together, once the chunks are committed
            if (hdr_count < 5'd7 && src_count < 5'd7 && inl_count < 6'd10) begin
                chunk_commit = 1'b1;
                hdr_in_valid = 1'b1;
                if (pkt_len != 13'd0) begin
                    src_in_data = wqe_inline;
                    src_in_valid = 1'b1;
                end
                inline_beat_next = 3'd0;
                if (wqe_inline && pkt_len != 13'd0) begin
                    state_next = S_INLINE;
                end else if (pkt_last) begin
                    state_next = S_SQ_DONE;
                end else begin
                    pkt_next = pkt_reg + 25'd1;
                    msg_left_next = msg_left_reg - {19'd0, pkt_len};
                    state_next = S_PKT;
                end
            end
        end
        S_INLINE: begin
            inl_in_valid = 1'b1;
            inline_beat_next = inline_beat_reg + 3'd1;
            if (inline_last) begin
                state_next = S_SQ_DONE;
            end
        end
        S_SQ_DONE: begin
            ctx_next[`HROCE_QPC_NPSN] = npsn + wqe_npkts[23:0];
            ctx_next[`HROCE_QPC_SQ_CI] = sq_ci + 16'd1;
            ctx_next[`HROCE_QPC_SQ_PKT] = 24'd0;
            if (wqe_is_read) begin
                ctx_next[`HROCE_QPC_RD_INFLIGHT] = rd_inflight + 8'd1;
            end
            if (sq_ci == sq_cc) begin
                // the first request in flight starts the ACK timer
                ctx_next[`HROCE_QPC_TIMER_START] = time_now;
                tmr_in_arm = 1'b1;
                tmr_in_deadline = ack_deadline_now;
                tmr_in_valid = timeout != 5'd0;
            end
            if (sq_ci + 16'd1 != sq_pi && win_next && !hold) begin
                // a turn sends what the window holds: on with the next WQE (the context
                // is written back when the turn ends)
                state_next = S_FETCH;
            end else begin
                update_valid_next = 1'b1;
                // the QP goes to the back of the line
                work_in_valid = sq_ci + 16'd1 != sq_pi;
                ctx_next[`HROCE_QPC_SCHEDULED] = sq_ci + 16'd1 != sq_pi;
                state_next = S_UPDATE;
            end
        end

        /*
         * Error: complete every posted WQE, the failed one with its error, the rest
         * with WR_FLUSH_ERR, and leave the QP in error
         */
        S_FLUSH: begin
            if (!cqe_valid_reg || m_cqe_ready) begin
                if (sq_cc == sq_pi) begin
                    ctx_next[`HROCE_QPC_REQ_ERR] = 1'b1;
                    ctx_next[`HROCE_QPC_SQ_CI] = sq_pi;
                    ctx_next[`HROCE_QPC_SQ_PKT] = 24'd0;
                    ctx_next[`HROCE_QPC_RD_INFLIGHT] = 8'd0;
                    // an error this engine found: the responder flushes the RQ
                    kick_in_valid = err_valid_reg;
                    tmr_in_valid = 1'b1;
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
                wqe_rx_next = 1'b1;
                state_next = S_FETCH;
            end
        end
        S_RX_EVAL: begin
            if (wqe_error_reg) begin
                stat_dma_error_next = 1'b1;
                err_valid_next = 1'b1;
                err_index_next = sq_cc;
                err_status_next = WC_LOC_QP_OP_ERR;
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
                    update_valid_next = 1'b1;
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
                    update_valid_next = 1'b1;
                    state_next = S_UPDATE;
                end
            end else if (rx_is_nak && rx_syndrome[4:0] != `HROCE_AETH_NAK_PSN_SEQ) begin
                stat_rx_nak_next = 1'b1;
                err_valid_next = 1'b1;
                err_index_next = sq_cc;
                err_status_next = nak_status(rx_syndrome);
                state_next = S_FLUSH;
            end else if (rx_is_nak) begin
                // PSN sequence error: go back to the PSN the responder expects
                stat_rx_nak_next = 1'b1;
                ctx_next = rewind(nak_acked(ctx_reg), time_now);
                update_valid_next = 1'b1;
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
                        update_valid_next = 1'b1;
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
                        walk_cmd_sge = 5'd0;
                        walk_cmd_off = rd_offset;
                        walk_cmd_len = rx_len;
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
                ctx_next[`HROCE_QPC_RD_INFLIGHT] = rd_inflight - 8'd1;
                ctx_next[`HROCE_QPC_CC_ACKED] = 24'd0;
                // nothing in flight any more
                tmr_in_valid = sq_cc + 16'd1 == sq_out_end;
                update_valid_next = 1'b1;
                state_next = S_REQUEUE;
            end
        end
        S_REQUEUE: begin
            // a QP that may have waited (READ window, fence, rewind) gets a turn; the
            // context is written (again) with SCHEDULED set, in case the cache took the
            // write of the state before this one already
            work_in_valid = !scheduled;
            ctx_next[`HROCE_QPC_SCHEDULED] = 1'b1;
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
                // the RNR wait is over: send again (the first request arms the ACK timer)
                ctx_next[`HROCE_QPC_RNR_WAIT] = 1'b0;
                ctx_next[`HROCE_QPC_TIMER_START] = time_now;
                update_valid_next = 1'b1;
                state_next = S_REQUEUE;
            end else if (retry_left == 3'd0) begin
                stat_retry_exceeded_next = 1'b1;
                err_valid_next = 1'b1;
                err_index_next = sq_cc;
                err_status_next = WC_RETRY_EXC_ERR;
                tmr_in_valid = 1'b0;    // the flush disarms
                state_next = S_FLUSH;
            end else begin
                // no progress for the whole timeout: go back and send again
                stat_retry_timeout_next = 1'b1;
                ctx_next = rewind(ctx_reg, time_now);
                ctx_next[`HROCE_QPC_RETRY_LEFT] = retry_left - 3'd1;
                tmr_in_arm = 1'b1;
                tmr_in_deadline = ack_deadline_now;
                update_valid_next = 1'b1;
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
 * READ response writes handed to the DMA writer and not yet answered
 */
always @* begin
    writes_pending_next = writes_pending_reg +
                          ((wr_chunk_valid && m_wr_req_ready) ? 16'd1 : 16'd0) -
                          (s_wr_done_valid ? 16'd1 : 16'd0);
end

/*
 * Payload out: each packet's bytes from the DMA stream or the inline FIFO
 */
wire pay_from_inline = src_out_data;
assign m_axis_tdata = pay_from_inline ? inl_out_data[DATA_WIDTH-1:0] : s_pay_rd_axis_tdata;
assign m_axis_tkeep = pay_from_inline ? inl_out_data[DATA_WIDTH +: KEEP_WIDTH] :
                      s_pay_rd_axis_tkeep;
assign m_axis_tlast = pay_from_inline ? inl_out_data[DATA_WIDTH+KEEP_WIDTH] :
                      s_pay_rd_axis_tlast;
assign m_axis_tuser = !pay_from_inline && s_pay_rd_axis_tuser;
assign m_axis_tvalid = src_out_valid && (pay_from_inline ? inl_out_valid : s_pay_rd_axis_tvalid);
assign s_pay_rd_axis_tready = src_out_valid && !pay_from_inline && m_axis_tready;
assign inl_out_ready = src_out_valid && pay_from_inline && m_axis_tready;
assign src_out_ready = m_axis_tvalid && m_axis_tready && m_axis_tlast;

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
    db_index_reg <= db_index_next;
    push_valid_reg <= push_valid_next;
    push_qpn_reg <= push_qpn_next;
    push_index_reg <= push_index_next;
    push_data_reg <= push_data_next;
    wqe_beat_reg <= wqe_beat_next;
    wqe_error_reg <= wqe_error_next;
    wqe_rx_reg <= wqe_rx_next;
    use_info_reg <= use_info_next;
    info_reg <= info_next;
    win_valid_reg <= win_valid_next;
    win_qpn_reg <= win_qpn_next;
    win_index_reg <= win_index_next;
    win_count_reg <= win_count_next;
    rd_req_valid_reg <= rd_req_valid_next;
    msg_left_reg <= msg_left_next;
    pkt_reg <= pkt_next;
    sge_idx_reg <= sge_idx_next;
    sge_off_reg <= sge_off_next;
    inline_beat_reg <= inline_beat_next;
    rxh_reg <= rxh_next;
    cqe_cqn_reg <= cqe_cqn_next;
    cqe_data_reg <= cqe_data_next;
    cqe_valid_reg <= cqe_valid_next;
    err_valid_reg <= err_valid_next;
    err_index_reg <= err_index_next;
    err_status_reg <= err_status_next;
    writes_pending_reg <= writes_pending_next;
    stat_rx_bad_response_reg <= stat_rx_bad_response_next;
    stat_rx_nak_reg <= stat_rx_nak_next;
    stat_dma_error_reg <= stat_dma_error_next || (s_wr_done_valid && s_wr_done_error);
    stat_retry_timeout_reg <= stat_retry_timeout_next;
    stat_retry_rnr_reg <= stat_retry_rnr_next;
    stat_retry_implicit_reg <= stat_retry_implicit_next;
    stat_retry_exceeded_reg <= stat_retry_exceeded_next;

    if (wqe_wr_en) begin
        wqe_mem[{wqe_rx_reg, wqe_wr_addr}] <= wqe_wr_data;
    end

    if (rst) begin
        state_reg <= S_IDLE;
        lookup_valid_reg <= 1'b0;
        update_valid_reg <= 1'b0;
        push_valid_reg <= 1'b0;
        win_valid_reg <= 2'b00;
        rd_req_valid_reg <= 1'b0;
        cqe_valid_reg <= 1'b0;
        err_valid_reg <= 1'b0;
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

assign idle = state_reg == S_IDLE && !lookup_valid_reg && !update_valid_reg && !cqe_valid_reg;

assign s_db_ready = take_db;
assign s_hdr_ready = take_rx;
assign s_err_ready = take_err;
assign s_tmr_ready = take_tmr;

assign m_ctx_lookup_index = qpn_reg;
assign m_ctx_lookup_valid = lookup_valid_reg;
assign s_ctx_lookup_ready = state_reg == S_LOOKUP_WAIT;
assign m_ctx_update_index = qpn_reg;
assign m_ctx_update_data = ctx_reg;
assign m_ctx_update_valid = update_valid_reg;


assign m_wqe_rd_req_addr = wqe_addr(ctx_reg[`HROCE_QPC_SQ_BASE], wqe_rx_reg ? sq_cc : sq_ci,
                                    log_sq, sq_stride);
assign m_wqe_rd_req_len = win_slots << (6 + sq_stride);
assign m_wqe_rd_req_valid = rd_req_valid_reg;
assign s_wqe_rd_axis_tready = state_reg == S_FETCH_DATA;

assign m_pay_rd_req_addr = rd_chunk_head[63:0];
assign m_pay_rd_req_len = {3'd0, rd_chunk_head[76:64]};
assign m_pay_rd_req_last = rd_chunk_head[77];
assign m_pay_rd_req_valid = rd_chunk_valid;

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
