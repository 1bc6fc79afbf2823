/*

RC requester, sending side: turns posted send WQEs into request packets. Its partner
transport/req_ack takes the responses, completes the WQEs and keeps the timers; the two
run side by side, each on its own QP, so that an ACK never waits behind a packet being
built nor a packet behind an ACK.

    SQ doorbell --> context: SQ_PI --> work FIFO (QPNs with WQEs to send)
                                   \-> pushed WQE: sent at once, or kept in a window
    work FIFO ---> context --> WQE (a window of wqe_fetch) --> per packet, a job:
                   header, the payload's place, its message --> transport/req_build:
                   sg_walk (SGEs -> mr_translate) -> chunk FIFO --(commit)--> DMA reads
                   header --------------------------------------------> m_hdr
                   payload (DMA byte stream, or inline bytes) ---------> m_axis
                   messages to req_ack (SENT, FLUSH, ERROR) -----------> m_msg
    WQE sent ----> wqe_info (its facts, for req_ack)
    req_ack's messages --> context (READs done, RNR wait, rewind, stop) --> work FIFO

Ownership: this engine writes the requester's sending bytes of the context (SQ_PI, SQ_CI,
NPSN, SQ_PKT, the READ count, its error, wait and rewind-generation bits) and nothing
else; req_ack writes its own bytes. What each must know of the other's travels as
messages, in order (transport/req_msg.vh):
  - to req_ack, a SENT message when a WQE has gone whole, when a long message asked for an
    ACK part of the way, and when a WQE yields the link part of the way; each leaves no
    later than the packets it tells of leave this engine, so req_ack knows of a packet
    before any response to it can come back. A FLUSH or ERROR message when the QP is in
    error (found here, by the responder, by a command, or by req_ack: a STOP);
  - from req_ack, a message that gives the QP a turn, with the READs answered so far (the
    READ window and fences count on them), the RNR wait, and a rewind: SQ_CI, NPSN and
    SQ_PKT go back to the oldest packet not acknowledged, and the rewind generation moves
    on, so that req_ack can tell the SENT messages that left before the rewind was
    applied (stale) from those after.
Every event this engine takes emits at most one message to req_ack, and a turn looks for
room before each WQE: req_ack takes this engine's messages without waiting on this
engine, so the two never wait on each other.

One control FSM handles one event at a time (a message, a doorbell, a QP's turn, a
failed packet); the WQE reads (transport/wqe_fetch) and the packet build
(transport/req_build: the payload's walk and translation, its DMA reads, the header and
the messages, in job order) run beside it, so that the control goes on to the next packet
or WQE while one is walked, and a packet's data streams at one beat per cycle. A packet's
DMA chunks are committed only once every piece of it translated without a violation: a
violation never reaches memory, and a header never leaves without its payload. A walk
that fails reaches req_ack as an ERROR from the build stage, and the control as a failed
QP (it then sets the QP's error, and builds no packet of it meanwhile). A packet goes to
the build stage only with room there for it and a SENT more, so the control never waits
on it; its FLUSH and ERROR messages go to req_ack at once, past the build stage's jobs.

PSNs: a message takes max(1, ceil(LENGTH / MTU)) PSNs, a READ as many as its responses.
NPSN is the first PSN of the WQE at SQ_CI; SQ_PKT the packets of it already sent (it
yielded the link, or a rewind resumes it there: a READ from its first missing response,
with the RETH moved on).

The WQEs come from windows on the send queues (transport/wqe_fetch: 8 of up to 512
bytes of a ring each, of any QPs; a window never holds a stale WQE, its header says
why). A QP's turn sends every WQE its window holds (one window a turn, so round-robin
stays fair), and asks for the next window as it begins to send one, if more are posted.
A turn whose WQE is in no window ends at once: the QP waits for the read that brings it
(the read's wake puts the QP back in the work FIFO), so that no turn waits for a PCIe
round trip while other QPs have WQEs to send. A pushed WQE that cannot go at once is
kept in the QP's window (after the WQEs it holds, or alone if it is the next to send).
The turn token stays single: a QP is in the work FIFO, in its turn, or waiting for one
read, never two of these, and SCHEDULED says so.

The context of the QP of the last event stays in ctx_reg: the next event of the same QP
(a stream of doorbells) starts from it without a lookup.

The payload output is a pass-through of the DMA read stream: its ready reaches the other
side combinationally.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"
`include "req_msg.vh"

module req_tx #
(
    // Datapath width (a WQE beat is 64 bytes)
    parameter DATA_WIDTH = 512,
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // log2 of the QPNs the work FIFO holds (a QP waits there at most once)
    parameter WORK_ADDR_WIDTH = 10,
    // log2 of the payload chunks between translation and the DMA reader (at least 7:
    // a packet may take 60 chunks, and one starts only with room for them all)
    parameter RD_CHUNK_ADDR_WIDTH = 7,
    // bits of a WQE's facts for transport/wqe_info
    parameter INFO_WIDTH = 184,
    // log2 of the windows on the send queues transport/wqe_fetch holds
    parameter WQE_SLOT_LOG = 3,
    // WQEs a turn reads ahead of its window at most (a window at a time, into free slots)
    parameter SQ_AHEAD = 32,
    // log2 of the packets between this engine and the link: built, their payload read
    // (a DMA read's round trip is about 110 cycles, so packets of 7 cycles want 16 or more)
    parameter PKT_LOG = 4,
    // log2 of the jobs between the control and the build stage
    parameter JOB_LOG = 2
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
     * QPs put in error by the responder
     */
    input  wire [23:0]                   s_err_qpn,
    input  wire                          s_err_valid,
    output wire                          s_err_ready,

    /*
     * Messages: to req_ack (out), from req_ack (in); req_msg.vh
     */
    output wire [`REQ_TXM_WIDTH-1:0]     m_msg_data,
    output wire                          m_msg_valid,
    input  wire                          m_msg_ready,
    input  wire [`REQ_ACKM_WIDTH-1:0]    s_msg_data,
    input  wire                          s_msg_valid,
    output wire                          s_msg_ready,

    /*
     * The facts of each WQE sent (to transport/wqe_info)
     */
    output wire [23:0]                   m_info_qpn,
    output wire [15:0]                   m_info_index,
    output wire [INFO_WIDTH-1:0]         m_info_data,
    output wire                          m_info_valid,

    /*
     * QP context (this engine owns bytes QPC_REQ_BYTE..+31)
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
     * Status
     */
    output wire                          stat_dma_error
);

initial begin
    if (DATA_WIDTH != 512) begin
        $error("Error: %m: WQE beats are 512 bits (DATA_WIDTH=%0d)", DATA_WIDTH);
        $finish;
    end
end

localparam HDR_WIDTH = `HROCE_ROCE_HDR_WIDTH;
localparam WORK_DEPTH = 2**WORK_ADDR_WIDTH;
localparam JOBS = 2**JOB_LOG;
// a long message asks for an ACK every 2^ACK_INTERVAL_LOG packets (as rxe does every 64)
localparam ACK_INTERVAL_LOG = 6;
// a WQE's facts: opcode, flags, length, SGE count, SGE 0 (at byte 32 of the WQE)
localparam SGE0_BIT = 32 * 8;

localparam [7:0]
    WR_WRITE_IMM = `HROCE_WR_OPCODE_RDMA_WRITE_WITH_IMM,
    WR_WRITE = `HROCE_WR_OPCODE_RDMA_WRITE,
    WR_SEND = `HROCE_WR_OPCODE_SEND,
    WR_SEND_IMM = `HROCE_WR_OPCODE_SEND_WITH_IMM,
    WR_READ = `HROCE_WR_OPCODE_RDMA_READ;

localparam [3:0] QPS_RTS = `HROCE_QP_STATE_RTS, QPS_ERR = `HROCE_QP_STATE_ERR;

localparam [7:0] WC_LOC_QP_OP_ERR = `HROCE_WC_STATUS_LOC_QP_OP_ERR;

localparam [3:0]
    S_IDLE = 4'd0,
    S_LOOKUP_WAIT = 4'd1,
    S_UPDATE = 4'd2,
    S_MSG = 4'd3,
    S_ERR = 4'd4,
    S_DB = 4'd5,
    S_SQ = 4'd6,
    S_FETCH = 4'd7,
    S_PARSE = 4'd8,
    S_PKT = 4'd9,
    S_BFAIL = 4'd10,
    S_FAIL = 4'd14;

/*
 * Control state
 */
reg [3:0] state_reg = S_IDLE, state_next;
reg [3:0] return_reg = S_IDLE, return_next;  // where a lookup returns to
reg [23:0] qpn_reg = 24'd0, qpn_next;
reg [`HROCE_QPC_BITS-1:0] ctx_reg = {`HROCE_QPC_BITS{1'b0}}, ctx_next;
reg ctx_ok_reg = 1'b0, ctx_ok_next;
// ctx_reg is the context of qpn_reg as this engine last wrote it to the cache: the bytes
// it owns are its own, and the rest change only by a command (hold)
reg ctx_kept_reg = 1'b0, ctx_kept_next;
reg lookup_valid_reg = 1'b0, lookup_valid_next;
reg update_valid_reg = 1'b0, update_valid_next;
reg last_db_reg = 1'b0, last_db_next;  // the last event taken was a doorbell
// cycles the doorbell at the head waited for room in the build stage
localparam [4:0] DB_WAIT = 5'd31;
reg [4:0] db_wait_reg = 5'd0;

reg [15:0] db_index_reg = 16'd0, db_index_next;
reg [`REQ_ACKM_WIDTH-1:0] msg_reg = {`REQ_ACKM_WIDTH{1'b0}}, msg_next;

// the one pushed WQE the core holds (from the last doorbell that carried one)
reg push_valid_reg = 1'b0, push_valid_next;
reg [23:0] push_qpn_reg = 24'd0, push_qpn_next;
reg [15:0] push_index_reg = 16'd0, push_index_next;
reg [511:0] push_data_reg = 512'd0, push_data_next;

// the window the turn sends from: WQEs cur_first .. cur_first + cur_count - 1 of the
// QP, in slot cur_slot of wqe_fetch (protected from other fills while cur_valid)
reg cur_valid_reg = 1'b0, cur_valid_next;
reg [WQE_SLOT_LOG-1:0] cur_slot_reg = {WQE_SLOT_LOG{1'b0}}, cur_slot_next;
reg [15:0] cur_first_reg = 16'd0, cur_first_next;
reg [3:0] cur_count_reg = 4'd0, cur_count_next;
reg cur_err_reg = 1'b0, cur_err_next;  // its read failed

// the current message
reg [31:0] msg_left_reg = 32'd0, msg_left_next;   // bytes not yet packetized
reg [24:0] pkt_reg = 25'd0, pkt_next;             // packet index within the message
// no packet of the message has gone to the build stage in this turn yet (a walk goes on
// from the previous packet's end only after one has)
reg run_first_reg = 1'b0, run_first_next;

reg stat_dma_error_reg = 1'b0, stat_dma_error_next;

/*
 * FIFOs
 */
wire [23:0] work_out_qpn;
wire work_out_valid;
reg work_out_ready;
reg work_in_valid;
wire [WORK_ADDR_WIDTH+1:0] work_count;

// to req_ack, through the build stage: a message, with the packet job_pkt or alone
reg [1:0] txm_kind;
reg [23:0] txm_pkt;
reg [15:0] txm_ci;
reg [23:0] txm_npsn;
reg [7:0] txm_status;
reg txm_valid;
reg job_pkt;
reg wqe_done;  // the WQE's last packet goes to the build stage
reg msg_job;   // the message goes in order with the packets (a job), else at once

// a QP's turn comes back from the FSM, or from a read it waited for (the FSM first)
wire [23:0] wake_qpn;
wire wake_valid;

fifo_sync #(.WIDTH(24), .ADDR_WIDTH(WORK_ADDR_WIDTH))
work_fifo (
    .clk(clk), .rst(rst),
    .s_data(work_in_valid ? qpn_reg : wake_qpn), .s_valid(work_in_valid || wake_valid),
    .s_ready(),
    .m_data(work_out_qpn), .m_valid(work_out_valid), .m_ready(work_out_ready),
    .count(work_count)
);

/*
 * Fields of the context and the WQE
 */
wire [3:0] qp_state = ctx_reg[`HROCE_QPC_STATE];
wire qp_err = ctx_reg[`HROCE_QPC_TX_ERR] || qp_state == QPS_ERR;
wire [15:0] sq_pi = ctx_reg[`HROCE_QPC_SQ_PI];
wire [15:0] sq_ci = ctx_reg[`HROCE_QPC_SQ_CI];
wire [23:0] npsn = ctx_reg[`HROCE_QPC_NPSN];
wire [7:0] rd_inflight = ctx_reg[`HROCE_QPC_RD_SENT] - ctx_reg[`HROCE_QPC_TX_RD_DONE];
wire [7:0] max_rd = ctx_reg[`HROCE_QPC_MAX_RD_ATOMIC] == 8'd0 ? 8'd1 :
                    ctx_reg[`HROCE_QPC_MAX_RD_ATOMIC];
wire [1:0] sq_stride = ctx_reg[`HROCE_QPC_LOG_SQ_STRIDE];
wire [3:0] log_sq = ctx_reg[`HROCE_QPC_LOG_SQ_SIZE];
wire [3:0] log_mtu = {1'b0, ctx_reg[`HROCE_QPC_PATH_MTU]} + 4'd7;
wire [12:0] mtu = 13'd1 << log_mtu;
wire [23:0] sq_pkt_ctx = ctx_reg[`HROCE_QPC_SQ_PKT];
wire tx_wait = ctx_reg[`HROCE_QPC_TX_WAIT];
wire [7:0] tx_gen = ctx_reg[`HROCE_QPC_TX_GEN];
wire scheduled = ctx_reg[`HROCE_QPC_SCHEDULED];

`include "wqe_addr.vh"

// where the WQE at SQ_CI lies in the turn's window
wire [15:0] win_k = sq_ci - cur_first_reg;
wire [2:0] wqe_base = win_k[2:0] << sq_stride;
wire [15:0] cur_end = cur_first_reg + {12'd0, cur_count_reg};
// read ahead: each WQE a turn parses looks at the window from ahead (the end of those
// held or read so far in the turn), and reads it if no slot holds it
reg [15:0] ahead_reg = 16'd0, ahead_next;
wire [15:0] ahead_k = ahead_reg - cur_end;
// the WQE after the one at SQ_CI is in the window too (a turn goes on with it)
wire win_next = cur_valid_reg && win_k + 16'd1 < {12'd0, cur_count_reg};

// the window looked up, and read if no slot holds it: the WQE at SQ_CI as a turn starts,
// the next window as it begins to send a window (prefetch), the WQE after SQ_CI as it
// ends; a read brings up to 512 bytes, not past the ring's end nor past SQ_PI
reg [15:0] look_index;
always @* begin
    case (state_reg)
        S_PARSE: look_index = ahead_reg;
        S_PKT: look_index = sq_ci + 16'd1;    // (for the WQE after a last packet)
        default: look_index = sq_ci;
    endcase
end
wire [15:0] look_posted = sq_pi - look_index;
wire [15:0] fill_count = wqe_window(look_index, look_posted, log_sq, sq_stride);

wire [511:0] wqe0;
wire [7:0] wqe_opcode = wqe0[`HROCE_SQ_WQE_OPCODE];
wire [7:0] wqe_flags = wqe0[`HROCE_SQ_WQE_FLAGS];
wire [7:0] wqe_num_sge = wqe0[`HROCE_SQ_WQE_NUM_SGE];
wire [31:0] wqe_len = wqe0[`HROCE_SQ_WQE_LENGTH];
wire [31:0] wqe_imm = wqe0[`HROCE_SQ_WQE_IMM];
wire [63:0] wqe_raddr = wqe0[`HROCE_SQ_WQE_RADDR];
wire [31:0] wqe_rkey = wqe0[`HROCE_SQ_WQE_RKEY];
wire wqe_inline = (wqe_flags & `HROCE_WR_INLINE) != 8'd0;
wire wqe_solicited = (wqe_flags & `HROCE_WR_SOLICITED) != 8'd0;
wire wqe_fence = (wqe_flags & `HROCE_WR_FENCE) != 8'd0;
wire wqe_is_read = wqe_opcode == WR_READ;
wire wqe_is_send = wqe_opcode == WR_SEND || wqe_opcode == WR_SEND_IMM;
wire wqe_has_imm = wqe_opcode == WR_SEND_IMM || wqe_opcode == WR_WRITE_IMM;
wire [24:0] wqe_npkts = msg_pkts(wqe_len, log_mtu);
// the packet the WQE at SQ_CI goes on from (it yielded the link, or a rewind resumes it):
// never past its end, whatever the context says
wire [23:0] sq_pkt = {1'b0, sq_pkt_ctx} < wqe_npkts ? sq_pkt_ctx : 24'd0;
wire [31:0] sq_pkt_off = {8'd0, sq_pkt} << log_mtu;
wire [9:0] wqe_bytes = 10'd64 << sq_stride;
wire [7:0] wqe_max_sge = (8'd4 << sq_stride) - 8'd2;

// the packet being built
wire pkt_first = pkt_reg == 25'd0;
wire [31:0] pkt_off = {7'd0, pkt_reg} << log_mtu;
// a READ is one request packet, whatever the number of responses
wire pkt_last = wqe_is_read || pkt_reg == wqe_npkts - 25'd1;
wire [12:0] pkt_len = wqe_is_read ? 13'd0 :
                      (msg_left_reg > {19'd0, mtu}) ? mtu : msg_left_reg[12:0];
// an ACK at the end of each message, and every ACK_INTERVAL packets of a long one, so
// that the ACK timer sees progress while a long message streams
wire pkt_ackreq = !wqe_is_read && (pkt_last || pkt_reg[ACK_INTERVAL_LOG-1:0] ==
                                   {ACK_INTERVAL_LOG{1'b1}});
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
    pkt_hdr[`HROCE_ROCE_HDR_BTH_ACKREQ] = pkt_ackreq;
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

// the pushed WQE the core holds is the next of the QP to send
wire push_here = push_valid_reg && push_qpn_reg == qpn_reg && push_index_reg == sq_ci;

// a doorbell whose WQE is sent at once without S_SQ (below)
wire db_fast;

// the message from req_ack being applied
wire [15:0] ackm_ci = msg_reg[`REQ_ACKM_CI];

/*
 * The windows on the send queues (WQE fetch)
 */
reg fill_en, fill_wake, push_new, push_append, wake_en, retire_en;
wire look_hit, look_err, look_pend;
wire [WQE_SLOT_LOG-1:0] look_slot;
wire [15:0] look_first;
wire [3:0] look_count;
wire app_hit;
wire [2:0] app_count;
wire alloc_ok, alloc_free, fill_ok;
wire [WQE_SLOT_LOG-1:0] alloc_slot;
wire fetch_idle;
// the build stage's reads of the WQEs' beats
wire [WQE_SLOT_LOG+2:0] build_sge_addr, build_inl_addr_0, build_inl_addr_1;
wire [511:0] build_sge_data, inline_0, inline_1;
// the slots no fill may take: the turn's, and those the build stage's jobs read
wire [2**WQE_SLOT_LOG-1:0] build_slot_busy;
wire [2**WQE_SLOT_LOG-1:0] protect = build_slot_busy |
                                     ({{2**WQE_SLOT_LOG-1{1'b0}}, cur_valid_reg} << cur_slot_reg);

wqe_fetch #(.SLOT_LOG(WQE_SLOT_LOG), .DATA_WIDTH(DATA_WIDTH))
fetch_inst (
    .clk(clk), .rst(rst),
    .hold(hold), .idle(fetch_idle),
    .l_qpn(qpn_reg), .l_index(look_index),
    .l_hit(look_hit), .l_err(look_err), .l_pend(look_pend), .l_slot(look_slot),
    .l_first(look_first), .l_count(look_count),
    .a_qpn(qpn_reg), .a_index(push_index_reg), .a_max(4'd8 >> sq_stride),
    .a_hit(app_hit), .a_count(app_count),
    .protect(protect),
    .alloc_ok(alloc_ok), .alloc_free(alloc_free), .alloc_slot(alloc_slot), .fill_ok(fill_ok),
    .c_qpn(qpn_reg),
    .c_fill(fill_en), .c_fill_index(look_index), .c_fill_count(fill_count[3:0]),
    .c_fill_addr(wqe_addr(ctx_reg[`HROCE_QPC_SQ_BASE], look_index, log_sq, sq_stride)),
    .c_fill_len(fill_count << (6 + sq_stride)), .c_fill_wake(fill_wake),
    .c_push_new(push_new), .c_push_append(push_append), .c_push_index(push_index_reg),
    .c_push_beat(app_count << sq_stride), .c_push_data(push_data_reg),
    .c_wake(wake_en), .c_wake_slot(look_slot),
    .c_release(state_reg == S_SQ || (state_reg == S_DB && db_fast)),
    .c_retire(retire_en), .c_retire_ci(sq_ci + 16'd1),
    .r_addr_0({cur_slot_reg, wqe_base}), .r_addr_1(build_sge_addr),
    .r_addr_2(build_inl_addr_0), .r_addr_3(build_inl_addr_1),
    .r_data_0(wqe0), .r_data_1(build_sge_data), .r_data_2(inline_0), .r_data_3(inline_1),
    .m_wake_qpn(wake_qpn), .m_wake_valid(wake_valid), .m_wake_ready(!work_in_valid),
    .m_rd_req_addr(m_wqe_rd_req_addr), .m_rd_req_len(m_wqe_rd_req_len),
    .m_rd_req_valid(m_wqe_rd_req_valid), .m_rd_req_ready(m_wqe_rd_req_ready),
    .s_rd_axis_tdata(s_wqe_rd_axis_tdata), .s_rd_axis_tvalid(s_wqe_rd_axis_tvalid),
    .s_rd_axis_tready(s_wqe_rd_axis_tready), .s_rd_axis_tlast(s_wqe_rd_axis_tlast),
    .s_rd_axis_tuser(s_wqe_rd_axis_tuser)
);

/*
 * The build stage: each packet's walk, DMA reads, header and message, in job order
 */
wire [JOB_LOG:0] job_count;
wire [4:0] msg_count;
wire [23:0] bfail_qpn;
wire bfail_valid;
wire build_idle;
wire take_bfail;
wire [`REQ_TXM_WIDTH-1:0] txm_data;

req_build #(
    .DATA_WIDTH(DATA_WIDTH), .RD_CHUNK_ADDR_WIDTH(RD_CHUNK_ADDR_WIDTH), .PKT_LOG(PKT_LOG),
    .SLOT_LOG(WQE_SLOT_LOG), .JOB_LOG(JOB_LOG)
)
build_inst (
    .clk(clk), .rst(rst), .idle(build_idle),
    .s_job_pkt(job_pkt), .s_job_hdr(pkt_hdr), .s_job_len(pkt_len),
    .s_job_inline(wqe_inline), .s_job_off(pkt_off), .s_job_cont(!run_first_reg),
    .s_job_num_sge(wqe_num_sge), .s_job_pd(ctx_reg[`HROCE_QPC_PD]),
    .s_job_slot(cur_slot_reg), .s_job_base(wqe_base), .s_job_index(sq_ci),
    .s_job_msg(txm_data), .s_job_msg_valid(txm_valid),
    .s_job_valid(job_pkt || (txm_valid && msg_job)),
    .job_count(job_count), .slot_busy(build_slot_busy),
    .s_msg_data(txm_data), .s_msg_valid(txm_valid && !job_pkt && !msg_job),
    .msg_count(msg_count),
    .m_fail_qpn(bfail_qpn), .m_fail_valid(bfail_valid), .m_fail_ready(take_bfail),
    .wqe_sge_addr(build_sge_addr), .wqe_sge_data(build_sge_data),
    .wqe_inl_addr_0(build_inl_addr_0), .wqe_inl_hi_0(inline_0[511:256]),
    .wqe_inl_addr_1(build_inl_addr_1), .wqe_inl_lo_1(inline_1[255:0]),
    .m_mr_req_key(m_mr_req_key), .m_mr_req_pd(m_mr_req_pd), .m_mr_req_va(m_mr_req_va),
    .m_mr_req_len(m_mr_req_len), .m_mr_req_access(m_mr_req_access),
    .m_mr_req_valid(m_mr_req_valid), .m_mr_req_ready(m_mr_req_ready),
    .s_mr_resp_iova(s_mr_resp_iova), .s_mr_resp_len(s_mr_resp_len),
    .s_mr_resp_last(s_mr_resp_last), .s_mr_resp_status(s_mr_resp_status),
    .s_mr_resp_valid(s_mr_resp_valid), .s_mr_resp_ready(s_mr_resp_ready),
    .m_pay_rd_req_addr(m_pay_rd_req_addr), .m_pay_rd_req_len(m_pay_rd_req_len),
    .m_pay_rd_req_last(m_pay_rd_req_last), .m_pay_rd_req_valid(m_pay_rd_req_valid),
    .m_pay_rd_req_ready(m_pay_rd_req_ready),
    .s_pay_rd_axis_tdata(s_pay_rd_axis_tdata), .s_pay_rd_axis_tkeep(s_pay_rd_axis_tkeep),
    .s_pay_rd_axis_tvalid(s_pay_rd_axis_tvalid), .s_pay_rd_axis_tready(s_pay_rd_axis_tready),
    .s_pay_rd_axis_tlast(s_pay_rd_axis_tlast), .s_pay_rd_axis_tuser(s_pay_rd_axis_tuser),
    .m_msg_data(m_msg_data), .m_msg_valid(m_msg_valid), .m_msg_ready(m_msg_ready),
    .m_hdr_data(m_hdr_data), .m_hdr_valid(m_hdr_valid), .m_hdr_ready(m_hdr_ready),
    .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready), .m_axis_tlast(m_axis_tlast), .m_axis_tuser(m_axis_tuser)
);

// room for the message an event may send at once (every event sends at most one, and
// the build stage at most one a cycle while the count is below 6: 9 words hold both);
// and in the build stage for a packet and a SENT after it: a turn starts, and a packet
// goes, only then, so that nothing this engine does waits for the build stage, nor for
// the link (the link may wait for the peer, and the peer for the responses req_ack takes)
wire msg_room = msg_count < 5'd6;
wire tx_room = job_count < JOBS - 1;
// the same, once a packet went this cycle (a turn goes on with the next WQE only then)
wire next_room = job_count < JOBS - 2;
// a doorbell that carries the next WQE of a QP that can send it, sent now: nothing for
// S_SQ to check (its SQ_PI is past SQ_CI, as the pushed WQE is SQ_CI's)
assign db_fast = ctx_ok_reg && push_here && tx_room && alloc_ok && !qp_err &&
                 qp_state == QPS_RTS && !tx_wait;
// the build stage failed a packet of the QP of ctx_reg: build none of it until S_BFAIL
// has put it in error
wire bfail_here = bfail_valid && bfail_qpn == qpn_reg;

// req_ack's messages first (they may free a QP, and nothing else drains them; they are
// taken while a command holds the engine, so that it finds both engines idle); then
// doorbells and turns in turn, so that a stream of doorbells holds no QP back from its
// pushed WQEs (doorbells first would let a turn find more WQEs posted and read them in
// one window: 3.6 against 2.0 Mpps of 64-byte inline WRITEs, but 3.5 against 14.6 of
// pushed ones, bench_rc)
// (a failed packet first, whatever holds the engine: the build stage waits for it)
wire work_room = work_count < WORK_DEPTH - 1;
assign take_bfail = state_reg == S_IDLE && bfail_valid;
wire take_msg = state_reg == S_IDLE && !take_bfail && s_msg_valid && msg_room && work_room;
wire take_err = state_reg == S_IDLE && !hold && !take_bfail && !take_msg && s_err_valid &&
                msg_room;
wire work_ok = work_out_valid && tx_room;
// (a doorbell that carries its WQE waits a while for room to send it, as a stream of them
// would outrun the build stage and find no window to keep them all: 4.3 against 14 Mpps
// of one QP's pushed WRITEs, bench_rc. A while only: the MMIO writes and reads behind it
// wait too, and the build stage's room waits on the link)
wire db_waited = db_wait_reg == DB_WAIT;
wire take_db = state_reg == S_IDLE && !hold && !take_bfail && !take_msg && !take_err &&
               s_db_valid && work_room && msg_room && (tx_room || !s_db_push || db_waited) &&
               !(last_db_reg && work_ok);

always @(posedge clk) begin
    if (take_db || !s_db_valid) begin
        db_wait_reg <= 5'd0;
    end else if (!db_waited) begin
        db_wait_reg <= db_wait_reg + 5'd1;
    end
    if (rst) begin
        db_wait_reg <= 5'd0;
    end
end
wire take_work = state_reg == S_IDLE && !hold && !take_bfail && !take_msg && !take_err &&
                 !take_db && work_ok;

// the event taken, and the state it goes to with its QP's context
wire [23:0] event_qpn = take_bfail ? bfail_qpn : take_msg ? s_msg_data[`REQ_ACKM_QPN] :
                        take_err ? s_err_qpn : take_db ? s_db_qpn : work_out_qpn;
wire [3:0] event_state = take_bfail ? S_BFAIL : take_msg ? S_MSG : take_err ? S_ERR :
                         take_db ? S_DB : S_SQ;

/*
 * Control FSM
 */
always @* begin
    state_next = state_reg;
    return_next = return_reg;
    qpn_next = qpn_reg;
    ctx_next = ctx_reg;
    ctx_ok_next = ctx_ok_reg;
    // (a command may change any context)
    ctx_kept_next = ctx_kept_reg && !hold;
    lookup_valid_next = lookup_valid_reg && !m_ctx_lookup_ready;
    update_valid_next = update_valid_reg && !m_ctx_update_ready;
    last_db_next = last_db_reg;
    db_index_next = db_index_reg;
    msg_next = msg_reg;
    // (a command may create a QP again: no pushed WQE outlives one)
    push_valid_next = push_valid_reg && !hold;
    push_qpn_next = push_qpn_reg;
    push_index_next = push_index_reg;
    push_data_next = push_data_reg;
    cur_valid_next = cur_valid_reg;
    cur_slot_next = cur_slot_reg;
    cur_first_next = cur_first_reg;
    cur_count_next = cur_count_reg;
    ahead_next = ahead_reg;
    cur_err_next = cur_err_reg;
    msg_left_next = msg_left_reg;
    pkt_next = pkt_reg;
    run_first_next = run_first_reg;
    stat_dma_error_next = 1'b0;

    fill_en = 1'b0;
    fill_wake = 1'b0;
    push_new = 1'b0;
    push_append = 1'b0;
    wake_en = 1'b0;
    retire_en = 1'b0;
    work_out_ready = 1'b0;
    work_in_valid = 1'b0;
    job_pkt = 1'b0;
    wqe_done = 1'b0;
    msg_job = 1'b0;
    txm_kind = `REQ_TXM_SENT;
    txm_ci = sq_ci;
    txm_npsn = npsn;
    txm_pkt = 24'd0;
    txm_status = 8'd0;
    txm_valid = 1'b0;

    case (state_reg)
        S_IDLE: begin
            cur_valid_next = 1'b0;
            if (take_msg) begin
                msg_next = s_msg_data;
            end else if (take_db) begin
                last_db_next = 1'b1;
                db_index_next = s_db_index;
                if (s_db_push) begin
                    push_valid_next = 1'b1;
                    push_qpn_next = s_db_qpn;
                    push_index_next = s_db_index - 16'd1;
                    push_data_next = s_db_push_data;
                end
            end else if (take_work) begin
                last_db_next = 1'b0;
                work_out_ready = 1'b1;
            end
            if (take_bfail || take_msg || take_err || take_db || take_work) begin
                qpn_next = event_qpn;
                return_next = event_state;
                if (ctx_kept_reg && event_qpn == qpn_reg) begin
                    // the context this engine wrote last: no lookup
                    state_next = event_state;
                end else begin
                    ctx_kept_next = 1'b0;
                    lookup_valid_next = 1'b1;
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
                // the cache holds ctx_reg now: the QP's next event may start from it
                ctx_kept_next = ctx_ok_reg && !hold;
                state_next = S_IDLE;
            end
        end

        /*
         * A message from req_ack: READs done, the RNR wait, a rewind, a stop; and a turn
         */
        S_MSG: begin
            if (!ctx_ok_reg) begin
                state_next = S_IDLE;
            end else begin
                ctx_next[`HROCE_QPC_TX_RD_DONE] = msg_reg[`REQ_ACKM_RD_DONE];
                ctx_next[`HROCE_QPC_TX_WAIT] = msg_reg[`REQ_ACKM_WAIT];
                if (msg_reg[`REQ_ACKM_REWIND]) begin
                    // go-back-N: the WQEs from the oldest unacknowledged packet on are read
                    // again and sent again; none of their READs is in flight any more
                    ctx_next[`HROCE_QPC_SQ_CI] = ackm_ci;
                    ctx_next[`HROCE_QPC_NPSN] = msg_reg[`REQ_ACKM_NPSN];
                    ctx_next[`HROCE_QPC_SQ_PKT] = msg_reg[`REQ_ACKM_PKT];
                    ctx_next[`HROCE_QPC_RD_SENT] = msg_reg[`REQ_ACKM_RD_DONE];
                    ctx_next[`HROCE_QPC_TX_GEN] = tx_gen + 8'd1;
                end
                if (msg_reg[`REQ_ACKM_STOP]) begin
                    // req_ack put the QP in error: it flushes up to the SQ's end
                    ctx_next[`HROCE_QPC_TX_ERR] = 1'b1;
                    txm_kind = `REQ_TXM_FLUSH;
                    txm_valid = 1'b1;
                end
                // a turn, for whatever the QP waited for (the context is written again with
                // SCHEDULED set, in case the cache took the write of the state before)
                work_in_valid = !scheduled;
                ctx_next[`HROCE_QPC_SCHEDULED] = 1'b1;
                update_valid_next = 1'b1;
                state_next = S_UPDATE;
            end
        end

        /*
         * The build stage failed a packet of the QP: req_ack has its ERROR
         */
        S_BFAIL: begin
            if (ctx_ok_reg) begin
                ctx_next[`HROCE_QPC_TX_ERR] = 1'b1;
                update_valid_next = 1'b1;
                state_next = S_UPDATE;
            end else begin
                state_next = S_IDLE;
            end
        end

        /*
         * The responder put the QP in error: req_ack flushes the SQ
         */
        S_ERR: begin
            if (ctx_ok_reg && !ctx_reg[`HROCE_QPC_TX_ERR]) begin
                ctx_next[`HROCE_QPC_TX_ERR] = 1'b1;
                txm_kind = `REQ_TXM_FLUSH;
                txm_valid = 1'b1;
                update_valid_next = 1'b1;
                state_next = S_UPDATE;
            end else begin
                state_next = S_IDLE;
            end
        end

        /*
         * SQ doorbell: record the producer counter and queue the QP
         */
        S_DB: begin
            if (!ctx_ok_reg) begin
                state_next = S_IDLE;
            end else begin
                ctx_next[`HROCE_QPC_SQ_PI] = db_index_reg;
                if (push_here && tx_room && alloc_ok) begin
                    // the WQE came with its doorbell and is the next to send: send it now,
                    // whether or not the QP waits for a turn already (S_SQ writes the
                    // context back on every way on, and keeps SCHEDULED); straight to its
                    // window if S_SQ would find nothing in the way (db_fast: a turn
                    // begins here, as it does in S_SQ)
                    state_next = db_fast ? S_FETCH : S_SQ;
                end else begin
                    if (push_valid_reg && push_qpn_reg == qpn_reg) begin
                        // not now: a window keeps it for the QP's turn, after the WQEs
                        // before it or alone (it is one beat, the first of its slot)
                        if (app_hit) begin
                            push_append = 1'b1;
                        end else if (push_index_reg - sq_ci < db_index_reg - sq_ci &&
                                     alloc_free) begin
                            // (a WQE kept for later takes no other QP's window; it may
                            // lie past WQEs in no window: a turn reads those, and its
                            // read may hold this one too, the same bytes)
                            push_new = 1'b1;
                        end
                    end
                    // a pushed WQE is kept only from its doorbell to its send: one left
                    // behind could be taken for a later WQE of the same index (the ring's
                    // next lap, or a QP created again with that QPN)
                    push_valid_next = 1'b0;
                    ctx_next[`HROCE_QPC_SCHEDULED] = 1'b1;
                    update_valid_next = 1'b1;
                    work_in_valid = !scheduled;
                    state_next = S_UPDATE;
                end
            end
        end

        /*
         * Send the next WQE of a QP
         */
        S_SQ: begin
            // out of the work FIFO (or a doorbell's direct send, which leaves a turn the QP
            // waits for queued): every way on writes the context back
            ctx_next[`HROCE_QPC_SCHEDULED] = return_reg == S_DB && scheduled;
            if (!ctx_ok_reg) begin
                state_next = S_IDLE;
            end else if (qp_err) begin
                // req_ack completes what was posted, up to SQ_PI
                ctx_next[`HROCE_QPC_TX_ERR] = 1'b1;
                txm_kind = `REQ_TXM_FLUSH;
                txm_valid = 1'b1;
                update_valid_next = 1'b1;
                state_next = S_UPDATE;
            end else if (qp_state != QPS_RTS || sq_ci == sq_pi || tx_wait) begin
                // (the end of an RNR wait gives the QP a turn)
                update_valid_next = 1'b1;
                state_next = S_UPDATE;
            end else begin
                state_next = S_FETCH;
            end
        end
        S_FETCH: begin
            if (push_qpn_reg == qpn_reg) begin
                push_valid_next = 1'b0;
            end
            if (look_hit && !hold) begin
                // a window holds the WQE (its read may have failed: S_PARSE says so)
                cur_valid_next = 1'b1;
                cur_slot_next = look_slot;
                cur_first_next = look_first;
                cur_count_next = look_count;
                cur_err_next = look_err;
                ahead_next = look_first + {12'd0, look_count};
                state_next = S_PARSE;
            end else if (push_here && alloc_ok && !hold) begin
                // the WQE came with its doorbell: a window holds it alone
                push_new = 1'b1;
                cur_valid_next = 1'b1;
                cur_slot_next = alloc_slot;
                cur_first_next = sq_ci;
                cur_count_next = 4'd1;
                cur_err_next = 1'b0;
                ahead_next = sq_ci + 16'd1;
                state_next = S_PARSE;
            end else begin
                // the turn ends: the QP waits for the read that brings its WQE (whose
                // wake gives the turn back), asked for now if none is on its way; it goes
                // to the back of the line if no slot is free, or if the turn is not its
                // own (a doorbell's direct send while the QP waits in line)
                ctx_next[`HROCE_QPC_SCHEDULED] = 1'b1;
                if (!scheduled && !hold && (look_pend || fill_ok)) begin
                    wake_en = look_pend;
                    fill_en = !look_pend;
                    fill_wake = 1'b1;
                end else begin
                    work_in_valid = !scheduled;
                end
                update_valid_next = 1'b1;
                state_next = S_UPDATE;
            end
        end
        S_PARSE: begin
            // from the first packet, or where the WQE yielded the link
            msg_left_next = wqe_len - sq_pkt_off;
            pkt_next = {1'b0, sq_pkt};
            run_first_next = 1'b1;
            // the window from ahead: passed if a slot holds it, else read while this one
            // is sent, if WQEs are posted there, it is at most SQ_AHEAD WQEs past this
            // window and a slot is free (a read ahead takes no other QP's window)
            fill_en = !hold && look_posted != 16'd0 && !look_posted[15] && !look_hit &&
                      !look_pend && fill_ok && alloc_free && ahead_k < SQ_AHEAD;
            if (look_hit || look_pend) begin
                ahead_next = look_first + {12'd0, look_count};
            end else if (fill_en) begin
                ahead_next = look_index + fill_count;
            end
            if (cur_err_reg) begin
                stat_dma_error_next = 1'b1;
                state_next = S_FAIL;
            end else if (wqe_opcode > WR_READ || wqe0[`HROCE_SQ_WQE_QPN] != qpn_reg ||
                         (wqe_inline && (wqe_is_read || wqe_len > `HROCE_MAX_INLINE ||
                                         wqe_len > {22'd0, wqe_bytes} - 32'd32)) ||
                         (!wqe_inline && wqe_num_sge > wqe_max_sge)) begin
                state_next = S_FAIL;
            end else if ((wqe_is_read && rd_inflight >= max_rd) ||
                         (wqe_fence && rd_inflight != 8'd0)) begin
                // wait: req_ack's message of the READ completion that frees the window
                // gives the QP a turn again
                update_valid_next = 1'b1;
                state_next = S_UPDATE;
            end else begin
                // (sg_walk skips the SGEs before where a resumed WQE goes on)
                state_next = S_PKT;
            end
        end
        S_PKT: begin
            if (bfail_here) begin
                // the build stage failed a packet of this QP before: it is in error
                ctx_next[`HROCE_QPC_TX_ERR] = 1'b1;
                update_valid_next = 1'b1;
                state_next = S_UPDATE;
            end else if (!tx_room) begin
                // the build stage is full: give way, and go on from this packet on the
                // QP's next turn; req_ack learns what of the WQE went
                ctx_next[`HROCE_QPC_SQ_PKT] = pkt_reg[23:0];
                ctx_next[`HROCE_QPC_SCHEDULED] = 1'b1;
                work_in_valid = !scheduled;
                txm_pkt = pkt_reg[23:0];
                txm_valid = pkt_reg != 25'd0;
                msg_job = 1'b1;
                update_valid_next = 1'b1;
                state_next = S_UPDATE;
            end else begin
                // the packet goes to the build stage, with the message that tells of it:
                // the WQE gone whole, or an ACK asked for part of the way
                job_pkt = 1'b1;
                run_first_next = 1'b0;
                if (pkt_last) begin
                    txm_ci = sq_ci + 16'd1;
                    txm_npsn = npsn + wqe_npkts[23:0];
                    txm_valid = 1'b1;
                    wqe_done = 1'b1;
                end else begin
                    txm_pkt = pkt_reg[23:0] + 24'd1;
                    txm_valid = pkt_ackreq;
                    pkt_next = pkt_reg + 25'd1;
                    msg_left_next = msg_left_reg - {19'd0, pkt_len};
                end
            end
        end
        S_FAIL: begin
            // the WQE at SQ_CI failed before it went (its read, or a malformed WQE; a
            // walk's failure is the build stage's): req_ack completes it with its error,
            // and flushes the rest
            ctx_next[`HROCE_QPC_TX_ERR] = 1'b1;
            txm_kind = `REQ_TXM_ERROR;
            txm_status = WC_LOC_QP_OP_ERR;
            txm_valid = 1'b1;
            update_valid_next = 1'b1;
            state_next = S_UPDATE;
        end
        default: state_next = S_IDLE;
    endcase

    if (wqe_done) begin
        // the WQE went whole (its last packet, this cycle)
        ctx_next[`HROCE_QPC_NPSN] = npsn + wqe_npkts[23:0];
        ctx_next[`HROCE_QPC_SQ_CI] = sq_ci + 16'd1;
        ctx_next[`HROCE_QPC_SQ_PKT] = 24'd0;
        if (wqe_is_read) begin
            ctx_next[`HROCE_QPC_RD_SENT] = ctx_reg[`HROCE_QPC_RD_SENT] + 8'd1;
        end
        if (sq_ci + 16'd1 != sq_pi && win_next && !hold && next_room) begin
            // a turn sends what the window holds: on with the next WQE, in the same
            // window (the context is written back when the turn ends)
            if (push_qpn_reg == qpn_reg) begin
                push_valid_next = 1'b0;
            end
            state_next = S_PARSE;
        end else begin
            // the windows wholly sent are done with
            retire_en = 1'b1;
            if (sq_ci + 16'd1 != sq_pi && !win_next && !look_hit && !hold) begin
                // the next WQE is in no window yet: S_FETCH waits for its read
                state_next = S_FETCH;
            end else begin
                // one window a turn: the QP goes to the back of the line (unless a
                // doorbell's direct send left it there already)
                update_valid_next = 1'b1;
                work_in_valid = sq_ci + 16'd1 != sq_pi && !scheduled;
                ctx_next[`HROCE_QPC_SCHEDULED] = sq_ci + 16'd1 != sq_pi || scheduled;
                state_next = S_UPDATE;
            end
        end
    end
end

assign txm_data[`REQ_TXM_QPN] = qpn_reg;
assign txm_data[`REQ_TXM_KIND] = txm_kind;
assign txm_data[`REQ_TXM_GEN] = tx_gen;
assign txm_data[`REQ_TXM_CI] = txm_ci;
assign txm_data[`REQ_TXM_NPSN] = txm_npsn;
assign txm_data[`REQ_TXM_PKT] = txm_pkt;
// (a doorbell's SQ_PI is written into ctx_next in the cycle it may go with a message)
assign txm_data[`REQ_TXM_PI] = ctx_next[`HROCE_QPC_SQ_PI];
assign txm_data[`REQ_TXM_STATUS] = txm_status;

always @(posedge clk) begin
    state_reg <= state_next;
    return_reg <= return_next;
    qpn_reg <= qpn_next;
    ctx_reg <= ctx_next;
    ctx_ok_reg <= ctx_ok_next;
    ctx_kept_reg <= ctx_kept_next;
    lookup_valid_reg <= lookup_valid_next;
    update_valid_reg <= update_valid_next;
    last_db_reg <= last_db_next;
    db_index_reg <= db_index_next;
    msg_reg <= msg_next;
    push_valid_reg <= push_valid_next;
    push_qpn_reg <= push_qpn_next;
    push_index_reg <= push_index_next;
    push_data_reg <= push_data_next;
    cur_valid_reg <= cur_valid_next;
    cur_slot_reg <= cur_slot_next;
    cur_first_reg <= cur_first_next;
    cur_count_reg <= cur_count_next;
    ahead_reg <= ahead_next;
    cur_err_reg <= cur_err_next;
    msg_left_reg <= msg_left_next;
    pkt_reg <= pkt_next;
    run_first_reg <= run_first_next;
    stat_dma_error_reg <= stat_dma_error_next;

    if (rst) begin
        state_reg <= S_IDLE;
        ctx_kept_reg <= 1'b0;
        lookup_valid_reg <= 1'b0;
        update_valid_reg <= 1'b0;
        last_db_reg <= 1'b0;
        push_valid_reg <= 1'b0;
        cur_valid_reg <= 1'b0;
        stat_dma_error_reg <= 1'b0;
    end
end


assign idle = state_reg == S_IDLE && !lookup_valid_reg && !update_valid_reg && build_idle &&
              fetch_idle;

assign s_db_ready = take_db;
assign s_err_ready = take_err;
assign s_msg_ready = take_msg;

assign m_info_qpn = qpn_reg;
assign m_info_index = sq_ci;
assign m_info_data = {wqe_opcode, wqe_flags, wqe_len, wqe_num_sge, wqe0[SGE0_BIT +: 128]};
assign m_info_valid = wqe_done;

assign m_ctx_lookup_index = qpn_reg;
assign m_ctx_lookup_valid = lookup_valid_reg;
assign s_ctx_lookup_ready = state_reg == S_LOOKUP_WAIT;
assign m_ctx_update_index = qpn_reg;
assign m_ctx_update_data = ctx_reg;
assign m_ctx_update_valid = update_valid_reg;

assign stat_dma_error = stat_dma_error_reg;

endmodule

`resetall
