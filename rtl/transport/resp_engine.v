/*

RC responder, receive side: executes the requests that arrive (SEND, RDMA WRITE, RDMA
READ) and decides their answers (ACK, NAK, READ responses), which transport/resp_tx sends.

    request --> context --> PSN check: duplicate -> ACK again (a READ is executed again)
                                       ahead     -> one sequence NAK, until EPSN arrives
                        --> opcode sequence, length, QP access checks -> NAK, QP to error
                        --> SEND: RECV WQE at RQ_CI (or RNR NAK), from a window on the
                                  RQ (transport/wqe_fetch; the next windows read ahead)
                                  -> its SGEs (local keys) scattered by the placement stage
                                  -> on the last packet a CQE, which waits until its data
                                  is in memory (transport/resp_cqe)
                            WRITE: the RETH range checked whole (remote key), then each
                                   packet placed at the running VA
                            READ: the range checked whole: a READ descriptor
    payload:   a job per request with payload --> transport/resp_place: sg_walk (SGEs or
               the range -> mr_translate) -> chunk FIFO --(commit)--> DMA writes <-- s_axis
    answers:   descriptors (ACK, NAK, READ) --> resp_tx, in request order

Placement is a stage of its own (transport/resp_place), in request order. A SEND or WRITE
packet is handed to it once its checks passed and its verdict is good: this engine goes on
with the next request while it is walked and placed, and a walk that fails there comes
back as a fault (NAK, QP to error), as a write the host refused does. A SEND's walk reads
its RECV WQE's SGEs from the window that holds it, which is kept (protected from fills)
until the job leaves the stage; its failure (a local key, or a message longer than the
SGEs) is its RECV WQE's error (LOC_PROT_ERR, LOC_LEN_ERR), in its completion if it was
written, else in the flush's first. So this
engine never waits for a walk; a payload not placed is dropped through the stage, so that
the payloads' fates stay in their order.

This side never waits for the link: whatever it answers goes into the descriptor queue,
and resp_tx is the one that waits. So a busy link never stops the requests coming in,
and two NICs that both wait for each other's link cannot hold each other up. While the
queue has no room for what a request may answer, the request waits as long as the link
keeps taking this NIC's frames; once it took nothing for NO_ROOM_WAIT cycles (both links
full, each NIC waiting on the other), the request is dropped unseen (counted: RX_NO_ROOM),
as is every later one that finds no room before the link moves again, and the requester
sends it again (sequence NAK or timer).

A request arrives before its ICRC is checked, and its verdict after it (s_verdict, one
per request, in order): the context lookup, the checks, the RECV WQE's read and the
translation of its data run meanwhile, and whatever the request would change (memory,
context, answers, counters) waits for the verdict. A request whose verdict is bad is
dropped without a trace (S_VDROP): its chunks discarded, its context not written; it has
no payload (roce_rx counted it).

A packet's chunks are committed only once every piece of it translated without a
violation, so a violation never reaches memory. An ACK leaves only once the DMA writes of
everything it acknowledges are answered (posted to the host), so that the data is placed
before the requester learns it is: it waits until the stage has retired every job pushed
before it, then for the writes committed by then. ACKs are coalesced: the ACK a packet
asks for waits while more requests of the same QP are already queued (up to ACK_COALESCE
messages), and is sent before any other packet of the engine.

Ordering with the host: a RECV completion is written only after the message's data is
in memory (its message's jobs placed, and every DMA write committed by then answered: it
waits for that in transport/resp_cqe, in order, while this engine goes on), and a READ
reads memory only after the WRITEs before it are there (the stage drained); neither is
answered if a packet of its QP before it failed its placement (that fault's NAK answers:
a completion waiting when such a fault comes is written as a flush, told apart by PSN
from a fault of its own message's packets or of later ones). A QP's fault is taken only
once no completion of that QP waits.

A QP the responder puts in error (a NAK other than RNR and sequence) has every RECV WQE
still posted flushed, and the requester is told (m_err), as IBTA moves the whole QP to
error; a QP the requester put in error (s_err) gets the same flush.

A DMA write the host refused (s_wr_done_error: the IOMMU no longer maps the page) means
the data of its packet is not in memory: the packet is NAKed with a remote operational
error instead of ACKed, and its QP goes to error the same way. A record per packet that
has writes ({QPN, PSN, chunks}) follows the answers, which come in commit order; a packet
whose last write is answered with an error queues its QP as a fault, which goes before
any ACK (a pending ACK of that QP is dropped: the NAK answers for it). Faults of refused
writes beyond the stage's WRITE_FAULTS at once are not queued (their packets are ACKed
as before), and a SEND's RECV completion is not held back for a fault of its data.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module resp_engine #
(
    // Datapath width (a WQE beat is 64 bytes)
    parameter DATA_WIDTH = 512,
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // log2 of the DMA chunks in flight between translation and the DMA clients
    parameter CHUNK_ADDR_WIDTH = 6,
    // ACKs of one QP's messages merged into one at most
    parameter ACK_COALESCE = 8,
    // log2 of the answers queued for resp_tx
    parameter DESC_ADDR_WIDTH = 5,
    // log2 of the packets whose DMA writes are not all answered yet
    parameter WREC_ADDR_WIDTH = 5,
    // log2 of the faulted packets (a DMA write refused, a placement's translation failed)
    // waiting for their NAK
    parameter FAULT_ADDR_WIDTH = 4,
    // log2 of the requests queued for placement
    parameter PLACE_JOB_LOG = 2,
    // log2 of the RECV completions waiting for their message's data
    parameter CQE_WAIT_LOG = 2,
    // log2 of the windows on the receive queues held (a window: up to 512 bytes of WQEs)
    parameter RQ_SLOT_LOG = 4,
    // windows read ahead of the one a SEND finds its RECV WQE in (1 to 3)
    parameter [1:0] RQ_AHEAD = 2,
    // log2 of the QPs whose RQ doorbells wait to be written into their contexts
    parameter RQ_DB_LOG = 4,
    // cycles a request waits for room for its answer, the link taking nothing meanwhile,
    // before it is dropped (and resent)
    parameter NO_ROOM_WAIT = 1024,
    parameter NO_ROOM_WAIT_WIDTH = $clog2(NO_ROOM_WAIT + 1)
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * The link took a beat of this NIC's TX (the answers' queue drains)
     */
    input  wire                          tx_moving,

    /*
     * Configuration and control
     */
    input  wire                          hold,
    output wire                          idle,

    /*
     * Requests in, with their payload
     */
    input  wire [`HROCE_ROCE_HDR_WIDTH-1:0] s_hdr_data,
    input  wire                          s_hdr_valid,
    output wire                          s_hdr_ready,
    input  wire [DATA_WIDTH-1:0]         s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]         s_axis_tkeep,
    input  wire                          s_axis_tvalid,
    output wire                          s_axis_tready,
    input  wire                          s_axis_tlast,
    input  wire                          s_verdict_good,   // the request's ICRC
    input  wire                          s_verdict_valid,
    output wire                          s_verdict_ready,

    /*
     * RQ doorbells
     */
    input  wire [23:0]                   s_db_qpn,
    input  wire [15:0]                   s_db_index,
    input  wire                          s_db_valid,
    output wire                          s_db_ready,

    /*
     * QPs put in error: by the requester (in), by this engine (out)
     */
    input  wire [23:0]                   s_err_qpn,
    input  wire                          s_err_valid,
    output wire                          s_err_ready,
    output wire [23:0]                   m_err_qpn,
    output wire                          m_err_valid,
    input  wire                          m_err_ready,

    /*
     * QP context (responder cache: this engine owns bytes 96..127)
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
     * MR translation (remote keys, and the local keys of RECV WQEs)
     */
    output wire [31:0]                   m_mr_req_key,
    output wire [23:0]                   m_mr_req_pd,
    output wire [63:0]                   m_mr_req_va,
    output wire [31:0]                   m_mr_req_len,
    output wire [3:0]                    m_mr_req_access,
    output wire                          m_mr_req_check,
    output wire                          m_mr_req_valid,
    input  wire                          m_mr_req_ready,
    input  wire [63:0]                   s_mr_resp_iova,
    input  wire [15:0]                   s_mr_resp_len,
    input  wire                          s_mr_resp_last,
    input  wire [2:0]                    s_mr_resp_status,
    input  wire                          s_mr_resp_valid,
    output wire                          s_mr_resp_ready,

    /*
     * DMA read client, aligned: RECV WQEs
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
     * DMA write client, byte stream: SEND and WRITE data
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
     * Answers to send (contract: RESP_DESC), to resp_tx
     */
    output wire [`HROCE_RESP_DESC_WIDTH-1:0] m_desc_data,
    output wire                          m_desc_valid,
    input  wire                          m_desc_ready,

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
    output wire                          stat_rx_no_qp,
    output wire                          stat_rx_no_room,
    output wire                          stat_rx_duplicate,
    output wire                          stat_rx_out_of_sequence,

    /*
     * Trace (the core's trace port): TRACE_VERDICT, TRACE_PLACE, then the placement
     * stage's TRACE_PLACED, TRACE_ANSWERED
     */
    output wire [3:0]                    m_trace_valid,
    output wire [4*`HROCE_TRACE_EVENT_WIDTH-1:0] m_trace_data
);

initial begin
    if (DATA_WIDTH != 512) begin
        $error("Error: %m: WQE beats are 512 bits (DATA_WIDTH=%0d)", DATA_WIDTH);
        $finish;
    end
end

localparam HDR_WIDTH = `HROCE_ROCE_HDR_WIDTH;
localparam DESC_WIDTH = `HROCE_RESP_DESC_WIDTH;
localparam PLACE_JOBS = 2**PLACE_JOB_LOG;


// AETH syndromes: ACK with no credit limit; RNR NAK (| timer); NAKs (| code)
localparam [7:0] SYN_ACK = {`HROCE_AETH_TYPE_ACK, `HROCE_AETH_CREDIT_INVALID},
    SYN_RNR = {`HROCE_AETH_TYPE_RNR, 5'd0},
    SYN_NAK_SEQ = {`HROCE_AETH_TYPE_NAK, `HROCE_AETH_NAK_PSN_SEQ},
    SYN_NAK_INV_REQ = {`HROCE_AETH_TYPE_NAK, `HROCE_AETH_NAK_INV_REQ},
    SYN_NAK_REM_ACCESS = {`HROCE_AETH_TYPE_NAK, `HROCE_AETH_NAK_REM_ACCESS},
    SYN_NAK_REM_OP = {`HROCE_AETH_TYPE_NAK, `HROCE_AETH_NAK_REM_OP};

localparam [1:0] MSG_NONE = 2'd0, MSG_SEND = 2'd1, MSG_WRITE = 2'd2;

localparam [3:0] QPS_RTR = `HROCE_QP_STATE_RTR, QPS_RTS = `HROCE_QP_STATE_RTS,
    QPS_SQD = `HROCE_QP_STATE_SQD, QPS_ERR = `HROCE_QP_STATE_ERR;

localparam [7:0]
    WC_SUCCESS = `HROCE_WC_STATUS_SUCCESS,
    WC_LOC_LEN_ERR = `HROCE_WC_STATUS_LOC_LEN_ERR,
    WC_LOC_QP_OP_ERR = `HROCE_WC_STATUS_LOC_QP_OP_ERR,
    WC_LOC_PROT_ERR = `HROCE_WC_STATUS_LOC_PROT_ERR,
    WC_WR_FLUSH_ERR = `HROCE_WC_STATUS_WR_FLUSH_ERR;

localparam [4:0]
    S_IDLE = 5'd0,
    S_LOOKUP_WAIT = 5'd1,
    S_UPDATE = 5'd2,
    S_RX = 5'd3,
    S_EXEC = 5'd4,
    S_FETCH = 5'd5,
    S_WQE = 5'd7,
    S_CHECK = 5'd12,
    S_CHECK_RESP = 5'd26,
    S_COMMIT = 5'd13,
    S_FINISH = 5'd15,
    S_READ_WAIT = 5'd16,
    S_READ_DONE = 5'd19,
    S_REPLY = 5'd20,
    S_FAIL = 5'd21,
    S_FLUSH = 5'd22,
    S_DB = 5'd23,
    S_KICK = 5'd24,
    S_DROP = 5'd25,
    S_FAULT = 5'd27,
    S_VDROP = 5'd28,
    S_OWE = 5'd9;

// owed NAKs kept (block RAM): one for each QP a burst of drops may hit
localparam OWE_ADDR_WIDTH = 8;
localparam OWE_DEPTH = 2**OWE_ADDR_WIDTH;

/*
 * Control state
 */
reg [4:0] state_reg = S_IDLE, state_next;
reg [4:0] return_reg = S_IDLE, return_next;   // where a lookup or a reply returns to
reg [23:0] qpn_reg = 24'd0, qpn_next;
reg [`HROCE_QPC_BITS-1:0] ctx_reg = {`HROCE_QPC_BITS{1'b0}}, ctx_next;
reg ctx_ok_reg = 1'b0, ctx_ok_next;
reg lookup_valid_reg = 1'b0, lookup_valid_next;
reg update_valid_reg = 1'b0, update_valid_next;
reg [15:0] db_index_reg = 16'd0, db_index_next;

// the request being handled
reg [HDR_WIDTH-1:0] rxh_reg = {HDR_WIDTH{1'b0}}, rxh_next;
reg dup_reg = 1'b0, dup_next;                 // a duplicate READ, executed again
reg v_wait_reg = 1'b0, v_wait_next;           // its ICRC verdict not in yet
reg v_bad_reg = 1'b0, v_bad_next;             // its verdict was bad
reg pay_done_reg = 1'b0, pay_done_next;       // its payload's fate is queued

// the window on the receive queue (transport/wqe_fetch) that holds the SEND's RECV WQE:
// slot cur_slot, WQEs cur_first .. cur_first + cur_count - 1 (protected from fills while
// cur_valid: the walk reads its SGEs)
reg cur_valid_reg = 1'b0, cur_valid_next;
reg [RQ_SLOT_LOG-1:0] cur_slot_reg = {RQ_SLOT_LOG{1'b0}}, cur_slot_next;
reg [15:0] cur_first_reg = 16'd0, cur_first_next;
reg [3:0] cur_count_reg = 4'd0, cur_count_next;
reg cur_err_reg = 1'b0, cur_err_next;
// read ahead: the windows after the SEND's looked at, RQ_AHEAD of them at most, from index
// ahead (one a cycle, while the request goes on)
reg [15:0] ahead_reg = 16'd0, ahead_next;
reg [1:0] ahead_left_reg = 2'd0, ahead_left_next;

// translation of the packet's data: through the RECV WQE's SGEs (local), or from a
// running virtual address under one key (remote)
reg xl_remote_reg = 1'b0, xl_remote_next;
reg [63:0] xl_va_reg = 64'd0, xl_va_next;
reg [31:0] xl_key_reg = 32'd0, xl_key_next;

// the reply queued by the state that decided it (S_REPLY sends it)
reg [7:0] reply_syn_reg = 8'd0, reply_syn_next;
reg [23:0] reply_psn_reg = 24'd0, reply_psn_next;

// the coalesced ACK, ready to go
reg ack_pend_reg = 1'b0, ack_pend_next;
reg [DESC_WIDTH-1:0] ack_desc_reg = {DESC_WIDTH{1'b0}}, ack_desc_next;
reg [23:0] ack_qpn_reg = 24'd0, ack_qpn_next;
reg [7:0] ack_count_reg = 8'd0, ack_count_next;
reg [15:0] ack_need_reg = 16'd0, ack_need_next;   // write chunks it waits for (a count)
reg [7:0] ack_job_reg = 8'd0, ack_job_next;       // placement jobs it covers (a count)
reg ack_need_ok_reg = 1'b0, ack_need_ok_next;     // those are placed: ack_need is known

// placement jobs pushed (a count)
reg [7:0] job_seq_reg = 8'd0, job_seq_next;

// completion out, and the error the first flushed WQE reports
reg [23:0] cqe_cqn_reg = 24'd0, cqe_cqn_next;
reg [255:0] cqe_data_reg = 256'd0, cqe_data_next;
reg cqe_valid_reg = 1'b0, cqe_valid_next;
// a RECV completion that took its own message's fault (a SEND's walk failed): that
// fault's flush starts after its WQE
reg list_taken_reg = 1'b0, list_taken_next;
reg [23:0] list_taken_qpn_reg = 24'd0, list_taken_qpn_next;
reg err_valid_reg = 1'b0, err_valid_next;
reg [7:0] err_status_reg = 8'd0, err_status_next;
reg kick_reg = 1'b0, kick_next;               // tell the requester of this error

reg stat_rx_no_qp_reg = 1'b0, stat_rx_no_qp_next;
reg stat_rx_no_room_reg = 1'b0, stat_rx_no_room_next;
// cycles the request at the input has waited for room for its answer
reg [NO_ROOM_WAIT_WIDTH-1:0] no_room_wait_reg = {NO_ROOM_WAIT_WIDTH{1'b0}}, no_room_wait_next;
reg stat_rx_duplicate_reg = 1'b0, stat_rx_duplicate_next;
reg stat_rx_out_of_sequence_reg = 1'b0, stat_rx_out_of_sequence_next;

/*
 * FIFOs
 */
reg [DESC_WIDTH-1:0] desc_in_data;
reg desc_in_valid;
wire [6:0] desc_count;

reg kick_in_valid;
wire [4:0] kick_count;

// answers waiting for the link: deep enough that a link busy both ways rarely fills it
fifo_sync #(.WIDTH(DESC_WIDTH), .ADDR_WIDTH(DESC_ADDR_WIDTH))
desc_fifo (
    .clk(clk), .rst(rst),
    .s_data(desc_in_data), .s_valid(desc_in_valid), .s_ready(),
    .m_data(m_desc_data), .m_valid(m_desc_valid), .m_ready(m_desc_ready),
    .count(desc_count)
);

fifo_sync #(.WIDTH(24), .ADDR_WIDTH(3))
kick_fifo (
    .clk(clk), .rst(rst),
    .s_data(qpn_reg), .s_valid(kick_in_valid), .s_ready(),
    .m_data(m_err_qpn), .m_valid(m_err_valid), .m_ready(m_err_ready),
    .count(kick_count)
);

// the QPs whose expected request was dropped for want of room (RX_NO_ROOM): each is owed
// a sequence NAK once there is room, so that the requester sends it again at once, not
// when its ACK timer expires (a dropped request that was the last in flight has no later
// one to show the gap: 67 ms at timeout 14); when this FIFO is full, the timer it is, as
// before
reg owe_in_valid, owe_pop;
wire [23:0] owe_qpn;
wire owe_valid;
wire [OWE_ADDR_WIDTH+1:0] owe_count;

fifo_sync #(.WIDTH(24), .ADDR_WIDTH(OWE_ADDR_WIDTH))
owe_fifo (
    .clk(clk), .rst(rst),
    .s_data(qpn_reg), .s_valid(owe_in_valid), .s_ready(),
    .m_data(owe_qpn), .m_valid(owe_valid), .m_ready(owe_pop),
    .count(owe_count)
);

/*
 * Fields of the context, the request and the WQE
 */
wire [3:0] qp_state = ctx_reg[`HROCE_QPC_STATE];
wire qp_err = ctx_reg[`HROCE_QPC_RESP_ERR] || qp_state == QPS_ERR;
wire qp_receives = qp_state == QPS_RTR || qp_state == QPS_RTS || qp_state == QPS_SQD;
wire [3:0] qp_access = ctx_reg[`HROCE_QPC_ACCESS];
// (RQ doorbells not in the context yet: the newest counts)
wire db_hit;
wire [15:0] db_hit_index;
wire [15:0] rq_pi = db_hit ? db_hit_index : ctx_reg[`HROCE_QPC_RQ_PI];
wire [15:0] rq_ci = ctx_reg[`HROCE_QPC_RQ_CI];
wire [23:0] epsn = ctx_reg[`HROCE_QPC_EPSN];
wire [23:0] msn = ctx_reg[`HROCE_QPC_MSN];
wire [1:0] in_msg = ctx_reg[`HROCE_QPC_IN_MSG];
wire [31:0] recv_offset = ctx_reg[`HROCE_QPC_RECV_OFFSET];
wire [63:0] wr_va = ctx_reg[`HROCE_QPC_WR_VA];
wire [31:0] wr_rkey = ctx_reg[`HROCE_QPC_WR_RKEY];
wire [31:0] wr_left = ctx_reg[`HROCE_QPC_WR_LEFT];
wire [1:0] rq_stride = ctx_reg[`HROCE_QPC_LOG_RQ_STRIDE];
wire [3:0] log_rq = ctx_reg[`HROCE_QPC_LOG_RQ_SIZE];
wire [3:0] log_mtu = {1'b0, ctx_reg[`HROCE_QPC_PATH_MTU]} + 4'd7;
wire [12:0] mtu = 13'd1 << log_mtu;
wire [7:0] wqe_max_sge = (8'd4 << rq_stride) - 8'd1;

wire [7:0] rx_op = rxh_reg[`HROCE_ROCE_HDR_BTH_OPCODE];
wire [23:0] rx_psn = rxh_reg[`HROCE_ROCE_HDR_BTH_PSN];
wire [12:0] rx_len = rxh_reg[`HROCE_ROCE_HDR_PAYLOAD_LEN];
wire [63:0] reth_va = rxh_reg[`HROCE_ROCE_HDR_RETH_VA];
wire [31:0] reth_rkey = rxh_reg[`HROCE_ROCE_HDR_RETH_RKEY];
wire [31:0] reth_len = rxh_reg[`HROCE_ROCE_HDR_RETH_DMA_LEN];
wire [23:0] psn_diff = rx_psn - epsn;
wire psn_behind = psn_diff[23];

wire op_send = rx_op <= `HROCE_RC_OP_SEND_ONLY_IMM;
wire op_write = rx_op >= `HROCE_RC_OP_WRITE_FIRST && rx_op <= `HROCE_RC_OP_WRITE_ONLY_IMM;
wire op_read = rx_op == `HROCE_RC_OP_READ_REQUEST;
wire op_first = rx_op == `HROCE_RC_OP_SEND_FIRST || rx_op == `HROCE_RC_OP_WRITE_FIRST;
wire op_middle = rx_op == `HROCE_RC_OP_SEND_MIDDLE || rx_op == `HROCE_RC_OP_WRITE_MIDDLE;
wire op_ends = rx_op == `HROCE_RC_OP_SEND_LAST || rx_op == `HROCE_RC_OP_SEND_LAST_IMM ||
               rx_op == `HROCE_RC_OP_SEND_ONLY || rx_op == `HROCE_RC_OP_SEND_ONLY_IMM ||
               rx_op == `HROCE_RC_OP_WRITE_LAST || rx_op == `HROCE_RC_OP_WRITE_LAST_IMM ||
               rx_op == `HROCE_RC_OP_WRITE_ONLY || rx_op == `HROCE_RC_OP_WRITE_ONLY_IMM;
wire op_imm = rx_op == `HROCE_RC_OP_SEND_LAST_IMM || rx_op == `HROCE_RC_OP_SEND_ONLY_IMM ||
              rx_op == `HROCE_RC_OP_WRITE_LAST_IMM || rx_op == `HROCE_RC_OP_WRITE_ONLY_IMM;
wire op_reth = rx_op == `HROCE_RC_OP_WRITE_FIRST || rx_op == `HROCE_RC_OP_WRITE_ONLY ||
               rx_op == `HROCE_RC_OP_WRITE_ONLY_IMM || op_read;
wire op_only = rx_op == `HROCE_RC_OP_SEND_ONLY || rx_op == `HROCE_RC_OP_SEND_ONLY_IMM ||
               rx_op == `HROCE_RC_OP_WRITE_ONLY || rx_op == `HROCE_RC_OP_WRITE_ONLY_IMM;
wire op_starts = op_first || op_only || op_read;
// the packets that consume a RECV WQE: the first of a SEND, the last of a WRITE with
// immediate
wire op_takes_recv = (op_send && (rx_op == `HROCE_RC_OP_SEND_FIRST ||
                                   rx_op == `HROCE_RC_OP_SEND_ONLY ||
                                   rx_op == `HROCE_RC_OP_SEND_ONLY_IMM)) ||
                     rx_op == `HROCE_RC_OP_WRITE_LAST_IMM || rx_op == `HROCE_RC_OP_WRITE_ONLY_IMM;
wire op_completes_recv = (op_send && op_ends) || rx_op == `HROCE_RC_OP_WRITE_LAST_IMM ||
                         rx_op == `HROCE_RC_OP_WRITE_ONLY_IMM;
wire seq_ok = in_msg == MSG_SEND ? op_send && !op_starts :
              in_msg == MSG_WRITE ? op_write && !op_starts :
              op_starts;
wire len_ok = op_read ? rx_len == 13'd0 :
              (op_first || op_middle) ? rx_len == mtu : rx_len <= mtu;
// the bytes of an RDMA WRITE agree with its DMA length
wire write_len_ok = !op_write ? 1'b1 :
                    op_reth ? (op_first ? reth_len > {19'd0, rx_len} :
                               reth_len == {19'd0, rx_len}) :
                    op_middle ? wr_left > {19'd0, rx_len} : wr_left == {19'd0, rx_len};
wire access_ok = op_write ? (qp_access & `HROCE_PERM_REMOTE_WRITE) != 4'd0 :
                 op_read ? (qp_access & `HROCE_PERM_REMOTE_READ) != 4'd0 : 1'b1;
wire rq_empty = rq_ci == rq_pi;

// the RECV WQE, and its SGE i (i: the walker's)
wire [4:0] walk_sge_index;
wire [2:0] wqe_k = rq_ci[2:0] - cur_first_reg[2:0];
wire [2:0] wqe_base = wqe_k << rq_stride;
wire [511:0] wqe0;
wire [7:0] wqe_num_sge = wqe0[`HROCE_RQ_WQE_NUM_SGE];
wire [8:0] sge_byte = 9'd16 + {walk_sge_index, 4'd0};
wire [511:0] sge_beat;
wire [127:0] sge = sge_beat[{sge_byte[5:4], 7'd0} +: 128];
wire [63:0] sge_addr = sge[`HROCE_SGE_ADDR];
wire [31:0] sge_len = sge[`HROCE_SGE_LENGTH];
wire [31:0] sge_lkey = sge[`HROCE_SGE_LKEY];

// the first packet of the message (its packets before this one are of the path MTU)
wire [23:0] msg_pkts_before = recv_offset[30:7] >> ctx_reg[`HROCE_QPC_PATH_MTU];
wire [23:0] msg_first_psn = rx_psn - (op_starts ? 24'd0 : msg_pkts_before);

// the READ: the PSNs its responses take, and the MSN they carry (the READ counts as done)
wire [31:0] rd_pkts_m1 = (reth_len - 32'd1) >> log_mtu;
wire [23:0] rd_npkts = reth_len == 32'd0 ? 24'd1 : rd_pkts_m1[23:0] + 24'd1;
wire [23:0] rd_msn = dup_reg ? msn : msn + 24'd1;

// an answer of this QP to the requester: an ACK or NAK (read = 0), or a READ's responses
function [DESC_WIDTH-1:0] reply_desc(input read, input [23:0] psn, input [7:0] syndrome,
                                     input [23:0] aeth_msn);
    reg [DESC_WIDTH-1:0] d;
    begin
        d = {DESC_WIDTH{1'b0}};
        d[`HROCE_RESP_DESC_READ] = read;
        d[`HROCE_RESP_DESC_ETH_DST] = ctx_reg[`HROCE_QPC_DMAC];
        d[`HROCE_RESP_DESC_IP_DSCP] = ctx_reg[`HROCE_QPC_DSCP];
        d[`HROCE_RESP_DESC_IP_TTL] = ctx_reg[`HROCE_QPC_TTL];
        d[`HROCE_RESP_DESC_IP6] = ctx_reg[`HROCE_QPC_IP6];
        d[`HROCE_RESP_DESC_IP6_FLOW_LABEL] = ctx_reg[`HROCE_QPC_FLOW_LABEL];
        d[`HROCE_RESP_DESC_IP_SRC] = ctx_reg[`HROCE_QPC_SGID];
        d[`HROCE_RESP_DESC_IP_DST] = ctx_reg[`HROCE_QPC_DGID];
        d[`HROCE_RESP_DESC_UDP_SPORT] = ctx_reg[`HROCE_QPC_UDP_SPORT];
        d[`HROCE_RESP_DESC_PKEY] = ctx_reg[`HROCE_QPC_PKEY];
        d[`HROCE_RESP_DESC_DQPN] = ctx_reg[`HROCE_QPC_DEST_QPN];
        d[`HROCE_RESP_DESC_SRC_QPN] = qpn_reg;
        d[`HROCE_RESP_DESC_PSN] = psn;
        d[`HROCE_RESP_DESC_SYNDROME] = syndrome;
        d[`HROCE_RESP_DESC_MSN] = aeth_msn;
        if (read) begin
            d[`HROCE_RESP_DESC_PATH_MTU] = ctx_reg[`HROCE_QPC_PATH_MTU];
            d[`HROCE_RESP_DESC_PD] = ctx_reg[`HROCE_QPC_PD];
            d[`HROCE_RESP_DESC_VA] = reth_va;
            d[`HROCE_RESP_DESC_RKEY] = reth_rkey;
            d[`HROCE_RESP_DESC_LEN] = reth_len;
        end
        reply_desc = d;
    end
endfunction

// a CQE of the RECV WQE at index
function [255:0] make_cqe(input [15:0] index, input [7:0] opcode, input [7:0] status,
                          input [31:0] byte_len, input with_imm);
    reg [255:0] c;
    begin
        c = 256'd0;
        c[`HROCE_CQE_WQE_INDEX] = index;
        c[`HROCE_CQE_OPCODE] = opcode;
        c[`HROCE_CQE_STATUS] = status;
        c[`HROCE_CQE_BYTE_LEN] = byte_len;
        c[`HROCE_CQE_QPN] = qpn_reg;
        if (with_imm) begin
            c[`HROCE_CQE_IMM] = rxh_reg[`HROCE_ROCE_HDR_IMMDT];
            c[`HROCE_CQE_WITH_IMM] = 1'b1;
        end
        c[`HROCE_CQE_SOLICITED] = rxh_reg[`HROCE_ROCE_HDR_BTH_SE];
        make_cqe = c;
    end
endfunction

`include "wqe_addr.vh"

/*
 * RECV WQEs (transport/wqe_fetch): windows on the receive queues, of any QPs, read ahead
 */
// the window looked up, and read if no slot holds it: the WQE at RQ_CI as a SEND packet
// is executed, then the windows after it (read ahead); a read brings up to 512 bytes, not
// past the ring's end nor past RQ_PI (one WQE at least at RQ_CI, as a packet inside a
// message reads the one its first packet took)
wire look_ahead = ahead_left_reg != 2'd0 && state_reg != S_IDLE;
wire [15:0] look_index = look_ahead ? ahead_reg : rq_ci;
wire [15:0] look_posted = !look_ahead && rq_empty ? 16'd1 : rq_pi - look_index;
wire [15:0] fill_count = wqe_window(look_index, look_posted, log_rq, rq_stride);
wire look_hit, look_err, look_pend;
wire [RQ_SLOT_LOG-1:0] look_slot;
wire [15:0] look_first;
wire [3:0] look_count;
wire alloc_free, fill_ok;
wire fetch_idle;
reg fill_en, retire_en;
// a command may recreate a QP: the windows are dropped once this engine is idle under
// it (a SEND waiting for its window's read finishes first)
wire place_idle;
wire fetch_hold = hold && state_reg == S_IDLE && place_idle;
// the slots whose WQEs' SGEs a SEND's job in the placement stage reads (a count of jobs
// per slot): protected from fills, as the window the control looks at is
localparam RQ_SLOTS = 2**RQ_SLOT_LOG;
localparam REF_WIDTH = RQ_SLOT_LOG + 3;
wire list_push;
wire [REF_WIDTH-1:0] list_push_ref = {cur_slot_reg, wqe_base};
wire list_pop;
wire [REF_WIDTH-1:0] sge_ref;   // the stage's head job's (list_pop: it leaves)
localparam SJ_W = PLACE_JOB_LOG + 1;
reg [SJ_W*RQ_SLOTS-1:0] slot_jobs_reg = {SJ_W*RQ_SLOTS{1'b0}};
reg [RQ_SLOTS-1:0] slot_read;
integer sj;
always @* begin
    for (sj = 0; sj < RQ_SLOTS; sj = sj + 1) begin
        slot_read[sj] = slot_jobs_reg[sj*SJ_W +: SJ_W] != {SJ_W{1'b0}};
    end
end
always @(posedge clk) begin
    for (sj = 0; sj < RQ_SLOTS; sj = sj + 1) begin
        slot_jobs_reg[sj*SJ_W +: SJ_W] <= slot_jobs_reg[sj*SJ_W +: SJ_W] +
            {{SJ_W-1{1'b0}}, list_push && list_push_ref[REF_WIDTH-1:3] == sj[RQ_SLOT_LOG-1:0]} -
            {{SJ_W-1{1'b0}}, list_pop && sge_ref[REF_WIDTH-1:3] == sj[RQ_SLOT_LOG-1:0]};
    end
    if (rst) begin
        slot_jobs_reg <= {SJ_W*RQ_SLOTS{1'b0}};
    end
end

wqe_fetch #(.SLOT_LOG(RQ_SLOT_LOG), .DATA_WIDTH(DATA_WIDTH))
fetch_inst (
    .clk(clk), .rst(rst),
    .hold(fetch_hold), .idle(fetch_idle),
    .l_qpn(qpn_reg), .l_index(look_index),
    .l_hit(look_hit), .l_err(look_err), .l_pend(look_pend), .l_slot(look_slot),
    .l_first(look_first), .l_count(look_count),
    .a_qpn(24'd0), .a_index(16'd0), .a_max(4'd0), .a_hit(), .a_count(),
    .protect(({{RQ_SLOTS-1{1'b0}}, cur_valid_reg} << cur_slot_reg) | slot_read),
    .alloc_ok(), .alloc_free(alloc_free), .alloc_slot(), .fill_ok(fill_ok),
    .c_qpn(qpn_reg),
    .c_fill(fill_en), .c_fill_index(look_index), .c_fill_count(fill_count[3:0]),
    .c_fill_addr(wqe_addr(ctx_reg[`HROCE_QPC_RQ_BASE], look_index, log_rq, rq_stride)),
    .c_fill_len(fill_count << (6 + rq_stride)), .c_fill_wake(1'b0),
    .c_push_new(1'b0), .c_push_append(1'b0), .c_push_index(16'd0), .c_push_beat(3'd0),
    .c_push_data({DATA_WIDTH{1'b0}}),
    .c_wake(1'b0), .c_wake_slot({RQ_SLOT_LOG{1'b0}}), .c_release(1'b0),
    .c_retire(retire_en), .c_retire_ci(rq_ci + 16'd1),
    .r_addr_0({cur_slot_reg, wqe_base}),
    .r_addr_1({sge_ref[REF_WIDTH-1:3], sge_ref[2:0] + sge_byte[8:6]}),
    .r_addr_2({RQ_SLOT_LOG+3{1'b0}}), .r_addr_3({RQ_SLOT_LOG+3{1'b0}}),
    .r_data_0(wqe0), .r_data_1(sge_beat), .r_data_2(), .r_data_3(),
    .m_wake_qpn(), .m_wake_valid(), .m_wake_ready(1'b1),
    .m_rd_req_addr(m_wqe_rd_req_addr), .m_rd_req_len(m_wqe_rd_req_len),
    .m_rd_req_valid(m_wqe_rd_req_valid), .m_rd_req_ready(m_wqe_rd_req_ready),
    .s_rd_axis_tdata(s_wqe_rd_axis_tdata), .s_rd_axis_tvalid(s_wqe_rd_axis_tvalid),
    .s_rd_axis_tready(s_wqe_rd_axis_tready), .s_rd_axis_tlast(s_wqe_rd_axis_tlast),
    .s_rd_axis_tuser(s_wqe_rd_axis_tuser)
);

/*
 * RQ doorbells (transport/rq_db_merge): merged by QP until the control writes them into
 * their contexts, with the next update of the QP's or on their own (take_db)
 */
wire db_empty, db_full, db_valid;
wire [23:0] db_qpn;
wire [15:0] db_index;
reg db_take;

rq_db_merge #(.LOG(RQ_DB_LOG))
db_inst (
    .clk(clk), .rst(rst), .hold(hold), .empty(db_empty), .full(db_full),
    .s_db_qpn(s_db_qpn), .s_db_index(s_db_index), .s_db_valid(s_db_valid),
    .s_db_ready(s_db_ready),
    .q_qpn(qpn_reg), .q_hit(db_hit), .q_index(db_hit_index), .q_take(db_take),
    .m_qpn(db_qpn), .m_index(db_index), .m_valid(db_valid), .m_ready(take_db)
);

/*
 * Placement (transport/resp_place): each request's payload walked (the RECV WQE's SGEs,
 * or the running remote range as one entry), committed, written, its writes tracked
 */
reg job_valid, job_walk;
// a SEND's job walks its RECV WQE's SGEs (a WRITE's, its remote range)
wire job_list = job_walk && !xl_remote_reg;
wire [PLACE_JOB_LOG:0] place_job_count;
wire place_fault_room, place_drained;
wire [7:0] placed_count;
wire [15:0] wr_committed, wr_answered;
wire [23:0] fault_qpn, fault_psn, cw_fault_qpn, cw_fault_first, cw_fault_last;
wire [2:0] fault_status;
wire fault_write, fault_list, fault_short, fault_valid;
reg fault_pop;
wire ack_faulted, qp_faulted, cw_before, cw_own, cw_own_list, cw_own_short;
wire walk_mr_valid, walk_resp_ready;
wire [31:0] walk_mr_key, walk_mr_len;
wire [23:0] walk_mr_pd;
wire [63:0] walk_mr_va;
wire [3:0] walk_mr_access;
wire xl_busy;
// the control's range check holds the translator
wire xl_hold = state_reg == S_CHECK || state_reg == S_CHECK_RESP;

wire [1:0] place_trace_valid;
wire [2*`HROCE_TRACE_EVENT_WIDTH-1:0] place_trace_data;

resp_place #(
    .DATA_WIDTH(DATA_WIDTH), .CHUNK_ADDR_WIDTH(CHUNK_ADDR_WIDTH),
    .WREC_ADDR_WIDTH(WREC_ADDR_WIDTH), .JOB_LOG(PLACE_JOB_LOG), .FAULT_LOG(FAULT_ADDR_WIDTH),
    .REF_WIDTH(REF_WIDTH)
)
place_inst (
    .clk(clk), .rst(rst), .idle(place_idle), .drained(place_drained),
    .s_job_walk(job_walk), .s_job_list(job_list),
    .s_job_ref(list_push_ref), .s_job_qpn(qpn_reg), .s_job_psn(rx_psn),
    .s_job_off(xl_remote_reg || op_starts ? 32'd0 : recv_offset), .s_job_len(rx_len),
    .s_job_num_sge(xl_remote_reg ? 8'd1 : wqe_num_sge), .s_job_pd(ctx_reg[`HROCE_QPC_PD]),
    .s_job_access(xl_remote_reg ? `HROCE_PERM_REMOTE_WRITE : `HROCE_PERM_LOCAL_WRITE),
    .s_job_va(xl_va_reg), .s_job_key(xl_key_reg), .s_job_valid(job_valid),
    .job_count(place_job_count), .fault_room(place_fault_room),
    .sge_ref(sge_ref), .sge_index(walk_sge_index), .sge_addr(sge_addr), .sge_len(sge_len),
    .sge_key(sge_lkey), .list_pop(list_pop),
    .placed_count(placed_count), .wr_committed(wr_committed), .wr_answered(wr_answered),
    .m_fault_qpn(fault_qpn), .m_fault_psn(fault_psn), .m_fault_status(fault_status),
    .m_fault_short(fault_short), .m_fault_list(fault_list), .m_fault_write(fault_write),
    .m_fault_valid(fault_valid), .m_fault_ready(fault_pop),
    .q_qpn_0(ack_qpn_reg), .q_faulted_0(ack_faulted),
    .q_qpn_1(qpn_reg), .q_faulted_1(qp_faulted),
    .q_qpn_2(cw_fault_qpn), .q_first_2(cw_fault_first), .q_last_2(cw_fault_last),
    .q_before_2(cw_before), .q_own_2(cw_own), .q_own_list_2(cw_own_list),
    .q_own_short_2(cw_own_short),
    .xl_hold(xl_hold), .xl_busy(xl_busy),
    .m_mr_req_key(walk_mr_key), .m_mr_req_pd(walk_mr_pd), .m_mr_req_va(walk_mr_va),
    .m_mr_req_len(walk_mr_len), .m_mr_req_access(walk_mr_access),
    .m_mr_req_valid(walk_mr_valid), .m_mr_req_ready(m_mr_req_ready),
    .s_mr_resp_iova(s_mr_resp_iova), .s_mr_resp_len(s_mr_resp_len),
    .s_mr_resp_last(s_mr_resp_last), .s_mr_resp_status(s_mr_resp_status),
    .s_mr_resp_valid(s_mr_resp_valid), .s_mr_resp_ready(walk_resp_ready),
    .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready), .s_axis_tlast(s_axis_tlast),
    .m_wr_req_addr(m_wr_req_addr), .m_wr_req_len(m_wr_req_len),
    .m_wr_req_valid(m_wr_req_valid), .m_wr_req_ready(m_wr_req_ready),
    .m_wr_axis_tdata(m_wr_axis_tdata), .m_wr_axis_tkeep(m_wr_axis_tkeep),
    .m_wr_axis_tvalid(m_wr_axis_tvalid), .m_wr_axis_tready(m_wr_axis_tready),
    .m_wr_axis_tlast(m_wr_axis_tlast),
    .s_wr_done_valid(s_wr_done_valid), .s_wr_done_error(s_wr_done_error),
    .m_trace_valid(place_trace_valid), .m_trace_data(place_trace_data)
);

// the stage answered the first `need` writes it committed (the counts wrap)
function answered(input [15:0] need);
    reg [15:0] left;
    begin
        left = need - wr_answered;
        answered = left == 16'd0 || left[15];
    end
endfunction

// the jobs the pending ACK covers are placed (placed_count reached ack_job: then
// wr_committed counts their writes, and few more), and every write it acknowledges is
// answered
wire ack_placed = placed_count == ack_job_reg;
wire ack_ready = ack_need_ok_reg && answered(ack_need_reg);

/*
 * RECV completions (transport/resp_cqe): each waits, in order, until its message is in
 * memory, and goes as written or with what its QP's fault made of it
 */
reg cw_push;
wire cw_room, cw_empty, cw_valid, cw_took_list, cw_holds_fault;
wire [23:0] cw_cqn;
wire [255:0] cw_data;
// (the flush's completions go first: S_FLUSH loads one only while none waits here)
wire cw_ready = !cqe_valid_reg && m_cqe_ready;

resp_cqe #(.LOG(CQE_WAIT_LOG))
cqe_inst (
    .clk(clk), .rst(rst),
    .s_cqn(ctx_reg[`HROCE_QPC_RECV_CQN]),
    .s_data(make_cqe(rq_ci, op_send ? `HROCE_CQE_OP_RECV : `HROCE_CQE_OP_RECV_RDMA_WITH_IMM,
                     WC_SUCCESS, (op_starts ? 32'd0 : recv_offset) + {19'd0, rx_len}, op_imm)),
    .s_job(job_seq_next), .s_first_psn(msg_first_psn), .s_last_psn(rx_psn),
    .s_valid(cw_push), .s_room(cw_room), .empty(cw_empty),
    .placed_count(placed_count), .wr_committed(wr_committed), .wr_answered(wr_answered),
    .q_qpn(fault_qpn), .q_holds(cw_holds_fault),
    .f_qpn(cw_fault_qpn), .f_first_psn(cw_fault_first), .f_last_psn(cw_fault_last),
    .f_before(cw_before), .f_own(cw_own), .f_own_list(cw_own_list),
    .f_own_short(cw_own_short),
    .m_cqn(cw_cqn), .m_data(cw_data), .m_valid(cw_valid), .m_ready(cw_ready),
    .m_took_list(cw_took_list)
);
wire cqe_take = cqe_valid_reg && m_cqe_ready;

// the pending ACK goes unless the next request is of its QP and may be merged into it
wire ack_may_wait = s_hdr_valid && !hold && s_hdr_data[`HROCE_ROCE_HDR_BTH_DQPN] == ack_qpn_reg &&
                    ack_count_reg < ACK_COALESCE - 1;
wire desc_room = desc_count < (7'd1 << DESC_ADDR_WIDTH) - 7'd1;
// (ack_faulted: the pending ACK covers a packet whose data the host refused, or whose
// translation failed: its NAK goes instead)
// a request queues at most the pending ACK and its own answer
wire answer_room = desc_count < (7'd1 << DESC_ADDR_WIDTH) - 7'd2;
wire room = answer_room && kick_count < 5'd7;
// a job to the placement stage: room in its queue (one that walks also room for its fault)
wire job_room = place_job_count < PLACE_JOBS;
wire walk_room = job_room && place_fault_room;
// a request that waited NO_ROOM_WAIT cycles for room for its answer while the link took
// nothing of this NIC is taken all the same, and dropped (S_RX): RX waits on TX only while
// TX moves, or two NICs whose links are full both ways would wait for each other for ever;
// the requester sends it again
wire rx_room = kick_count < 5'd7 &&
               (answer_room || no_room_wait_reg == NO_ROOM_WAIT[NO_ROOM_WAIT_WIDTH-1:0]);
// a fault first: no ACK leaves while one waits (it may be of the packet the ACK covers);
// not while a RECV completion of its QP waits (the fault may be of its message: the
// completion reports it)
wire take_fault = state_reg == S_IDLE && !hold && fault_valid && room && !cw_holds_fault;
wire send_ack = state_reg == S_IDLE && !fault_valid &&
                ack_pend_reg && ack_ready && !ack_may_wait && desc_room;
wire take_err = state_reg == S_IDLE && !take_fault && !send_ack && !hold && s_err_valid &&
                room;
// a doorbell written into its context on its own (a request of its QP writes it with its
// update): when the table is full, when nothing else is to do, and while a command waits
// (which finds the table empty)
wire take_db = state_reg == S_IDLE && !take_fault && !send_ack && !s_err_valid &&
               db_valid && (db_full || hold || !s_hdr_valid) && room;
wire take_rx = state_reg == S_IDLE && !take_fault && !send_ack && !hold && !take_err &&
               !take_db && s_hdr_valid && rx_room && !v_wait_reg;
// an owed NAK when nothing else is to do (not while a command holds the engine: it may
// stay owed across one, and is checked against the QP's context when it goes)
wire take_owe = state_reg == S_IDLE && !take_fault && !send_ack && !hold && !take_err &&
                !take_db && !take_rx && !s_hdr_valid && owe_valid && room;

// the request's verdict: still to come (what would change anything waits), or bad (it is
// dropped); a verdict is used in the cycle it arrives
assign s_verdict_ready = v_wait_reg;
wire v_pending = v_wait_reg && !s_verdict_valid;
wire v_bad = v_bad_reg || (v_wait_reg && s_verdict_valid && !s_verdict_good);
// a WRITE or READ whose range is checked (or needs no check): a READ waits for its turn; a
// WRITE packet commits, its data placed by the stage on its own (its job goes at the commit)
wire [4:0] range_next = op_read ? S_READ_WAIT : S_COMMIT;
// S_RX's and S_EXEC's ways that answer or fail, rather than go on with the request
wire rx_on = answer_room && ctx_ok_reg && qp_receives && !qp_err && psn_diff == 24'd0;
wire exec_fails = (!dup_reg && !seq_ok) || !len_ok || !write_len_ok || !access_ok ||
                  (op_takes_recv && rq_empty);

// the requests at the input wait for room while the link stands still: NO_ROOM_WAIT cycles
// of it drop the one waiting, and every later one that finds no room before the link moves
// again or room comes (one drop per NO_ROOM_WAIT cycles would drain two NICs whose links
// are full both ways at a frame per NO_ROOM_WAIT cycles: slower than their ACK timers)
always @* begin
    no_room_wait_next = no_room_wait_reg;
    if (answer_room || tx_moving) begin
        no_room_wait_next = {NO_ROOM_WAIT_WIDTH{1'b0}};
    end else if (s_hdr_valid && no_room_wait_reg != NO_ROOM_WAIT[NO_ROOM_WAIT_WIDTH-1:0]) begin
        no_room_wait_next = no_room_wait_reg + 1'b1;
    end
end

/*
 * Control FSM
 */
reg exec_now;                                 // S_EXEC's work, this cycle
reg finish_now;                               // S_FINISH's work, this cycle
reg take_window;                              // the SEND's window found: S_WQE next

always @* begin
    state_next = state_reg;
    return_next = return_reg;
    qpn_next = qpn_reg;
    ctx_next = ctx_reg;
    ctx_ok_next = ctx_ok_reg;
    lookup_valid_next = lookup_valid_reg && !m_ctx_lookup_ready;
    update_valid_next = update_valid_reg && !m_ctx_update_ready;
    db_index_next = db_index_reg;
    rxh_next = rxh_reg;
    dup_next = dup_reg;
    v_wait_next = v_wait_reg && !s_verdict_valid;
    v_bad_next = v_bad;
    pay_done_next = pay_done_reg;
    cur_valid_next = cur_valid_reg && state_reg != S_IDLE;
    cur_slot_next = cur_slot_reg;
    cur_first_next = cur_first_reg;
    cur_count_next = cur_count_reg;
    cur_err_next = cur_err_reg;
    fill_en = 1'b0;
    retire_en = 1'b0;
    take_window = 1'b0;
    ahead_next = ahead_reg;
    ahead_left_next = state_reg == S_IDLE ? 2'd0 : ahead_left_reg;
    // read ahead: a window held (ready or on the way) is passed; one not held is read if
    // WQEs are posted there and a slot is free (a read ahead takes no other QP's window)
    if (look_ahead) begin
        ahead_left_next = ahead_left_reg - 2'd1;
        if (look_hit || look_pend) begin
            ahead_next = look_first + {12'd0, look_count};
        end else if (!hold && look_posted != 16'd0 && !look_posted[15] && fill_ok &&
                     alloc_free) begin
            fill_en = 1'b1;
            ahead_next = look_index + fill_count;
        end else begin
            ahead_left_next = 2'd0;
        end
    end
    xl_remote_next = xl_remote_reg;
    xl_va_next = xl_va_reg;
    xl_key_next = xl_key_reg;
    reply_syn_next = reply_syn_reg;
    reply_psn_next = reply_psn_reg;
    ack_pend_next = ack_pend_reg;
    ack_desc_next = ack_desc_reg;
    ack_qpn_next = ack_qpn_reg;
    ack_count_next = ack_count_reg;
    ack_need_next = ack_need_reg;
    ack_job_next = ack_job_reg;
    ack_need_ok_next = ack_need_ok_reg;
    if (ack_pend_reg && !ack_need_ok_reg && ack_placed) begin
        // what the jobs it covers committed (and maybe a job or two more) is known now
        ack_need_next = wr_committed;
        ack_need_ok_next = 1'b1;
    end
    cqe_cqn_next = cqe_cqn_reg;
    cqe_data_next = cqe_data_reg;
    cqe_valid_next = cqe_valid_reg && !cqe_take;
    cw_push = 1'b0;
    list_taken_next = list_taken_reg;
    list_taken_qpn_next = list_taken_qpn_reg;
    if (cw_took_list) begin
        list_taken_next = 1'b1;
        list_taken_qpn_next = cw_fault_qpn;
    end
    err_valid_next = err_valid_reg;
    err_status_next = err_status_reg;
    kick_next = kick_reg;
    stat_rx_no_qp_next = 1'b0;
    stat_rx_no_room_next = 1'b0;
    stat_rx_duplicate_next = 1'b0;
    stat_rx_out_of_sequence_next = 1'b0;

    exec_now = 1'b0;
    finish_now = 1'b0;
    job_valid = 1'b0;
    job_walk = 1'b1;
    desc_in_data = ack_desc_reg;
    desc_in_valid = 1'b0;
    kick_in_valid = 1'b0;
    owe_in_valid = 1'b0;
    owe_pop = 1'b0;
    fault_pop = 1'b0;

    case (state_reg)
        S_IDLE: begin
            v_bad_next = 1'b0;
            if (take_fault) begin
                fault_pop = 1'b1;
                qpn_next = fault_qpn;
                // a refused write, or a translation that failed (as a walk's would NAK); a
                // SEND's walk that failed is its RECV WQE's error (reported by its
                // completion if that took it, else by the first WQE flushed)
                reply_syn_next = fault_list ? (fault_short ? SYN_NAK_INV_REQ : SYN_NAK_REM_OP) :
                                 fault_write || fault_status == `HROCE_MR_XLATE_DMA_ERROR ?
                                 SYN_NAK_REM_OP : SYN_NAK_REM_ACCESS;
                reply_psn_next = fault_psn;
                pay_done_next = 1'b1;
                err_valid_next = fault_list &&
                                 !(list_taken_reg && list_taken_qpn_reg == fault_qpn);
                err_status_next = fault_short ? WC_LOC_LEN_ERR : WC_LOC_PROT_ERR;
                if (list_taken_reg && list_taken_qpn_reg == fault_qpn) begin
                    list_taken_next = 1'b0;
                end
                kick_next = 1'b0;
                if (ack_faulted) begin
                    ack_pend_next = 1'b0;
                end
                lookup_valid_next = 1'b1;
                return_next = S_FAULT;
                state_next = S_LOOKUP_WAIT;
            end else if (send_ack) begin
                desc_in_valid = 1'b1;
                ack_pend_next = 1'b0;
            end else if (take_err) begin
                qpn_next = s_err_qpn;
                err_valid_next = 1'b0;
                kick_next = 1'b0;
                lookup_valid_next = 1'b1;
                return_next = S_KICK;
                state_next = S_LOOKUP_WAIT;
            end else if (take_rx) begin
                v_wait_next = 1'b1;
                rxh_next = s_hdr_data;
                qpn_next = s_hdr_data[`HROCE_ROCE_HDR_BTH_DQPN];
                dup_next = 1'b0;
                pay_done_next = 1'b0;
                err_valid_next = 1'b0;
                kick_next = 1'b0;
                lookup_valid_next = 1'b1;
                return_next = S_RX;
                state_next = S_LOOKUP_WAIT;
            end else if (take_owe) begin
                owe_pop = 1'b1;
                qpn_next = owe_qpn;
                err_valid_next = 1'b0;
                kick_next = 1'b0;
                lookup_valid_next = 1'b1;
                return_next = S_OWE;
                state_next = S_LOOKUP_WAIT;
            end else if (take_db) begin
                qpn_next = db_qpn;
                db_index_next = db_index;
                err_valid_next = 1'b0;
                kick_next = 1'b0;
                lookup_valid_next = 1'b1;
                return_next = S_DB;
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
         * A request: is it for a QP that receives, and is it the one expected? If so it
         * is executed in the same cycle (S_EXEC's checks read the same registers)
         */
        S_RX: begin
            if (v_bad) begin
                state_next = S_VDROP;
            end else if (rx_on) begin
                exec_now = 1'b1;
            end else if (v_pending) begin
                // what it answers waits for the verdict
                state_next = S_RX;
            end else if (!answer_room) begin
                // no room for what it may answer: dropped unseen, sent again later (a
                // sequence NAK is owed if it was the one expected)
                stat_rx_no_room_next = 1'b1;
                owe_in_valid = ctx_ok_reg && qp_receives && !qp_err && psn_diff == 24'd0 &&
                               owe_count < OWE_DEPTH;
                state_next = S_DROP;
            end else if (!ctx_ok_reg || !qp_receives || qp_err) begin
                stat_rx_no_qp_next = 1'b1;
                state_next = S_DROP;
            end else if (psn_behind) begin
                stat_rx_duplicate_next = 1'b1;
                if (op_read) begin
                    // executed again, from memory, with its own PSNs
                    dup_next = 1'b1;
                    state_next = S_EXEC;
                end else begin
                    reply_syn_next = SYN_ACK;
                    reply_psn_next = epsn - 24'd1;
                    return_next = S_DROP;
                    state_next = S_REPLY;
                end
            end else begin
                stat_rx_out_of_sequence_next = 1'b1;
                if (!ctx_reg[`HROCE_QPC_NAK_SENT]) begin
                    ctx_next[`HROCE_QPC_NAK_SENT] = 1'b1;
                    update_valid_next = 1'b1;
                    reply_syn_next = SYN_NAK_SEQ;
                    reply_psn_next = epsn;
                    return_next = S_DROP;
                    state_next = S_REPLY;
                end else begin
                    state_next = S_DROP;
                end
            end
        end
        S_EXEC: begin
            exec_now = 1'b1;
        end
        S_OWE: begin
            // a request of this QP was dropped for want of room: a sequence NAK asks for
            // it again, unless one went since (or the QP moved on, or is gone)
            if (ctx_ok_reg && qp_receives && !qp_err && !ctx_reg[`HROCE_QPC_NAK_SENT]) begin
                ctx_next[`HROCE_QPC_NAK_SENT] = 1'b1;
                update_valid_next = 1'b1;
                reply_syn_next = SYN_NAK_SEQ;
                reply_psn_next = epsn;
                return_next = S_UPDATE;
                state_next = S_REPLY;
            end else begin
                state_next = S_IDLE;
            end
        end
        S_CHECK: begin
            // (the translator is the stage's while a walk is under way)
            if (m_mr_req_ready && !xl_busy) begin
                state_next = S_CHECK_RESP;
            end
        end
        S_CHECK_RESP: begin
            if (s_mr_resp_valid) begin
                if (s_mr_resp_status != `HROCE_MR_XLATE_OK) begin
                    reply_syn_next = s_mr_resp_status == `HROCE_MR_XLATE_DMA_ERROR ?
                                     SYN_NAK_REM_OP : SYN_NAK_REM_ACCESS;
                    state_next = S_FAIL;
                end else begin
                    state_next = range_next;
                end
            end
        end

        /*
         * SEND: the RECV WQE, then its SGEs from the message's offset
         */
        S_FETCH: begin
            // the window that holds the WQE at RQ_CI, read if none is on its way (a slot
            // taken from another QP's ready window if none is free; one is, once the reads
            // in flight are done)
            take_window = look_hit;
            fill_en = !look_hit && !look_pend && fill_ok;
        end
        S_WQE: begin
            if (cur_err_reg || wqe_num_sge > wqe_max_sge) begin
                err_valid_next = 1'b1;
                err_status_next = WC_LOC_QP_OP_ERR;
                reply_syn_next = SYN_NAK_REM_OP;
                state_next = S_FAIL;
            end else begin
                // its data through the SGEs from the message's offset on: the stage walks
                // and places it on its own (the job goes at the commit), a failure a fault
                state_next = S_COMMIT;
            end
        end

        /*
         * SEND and WRITE: the packet's data goes; what the message has done so far
         */
        S_COMMIT: begin
            if (v_bad) begin
                state_next = S_VDROP;
            end else if (v_pending) begin
                state_next = S_COMMIT;
            end else if ((rx_len == 13'd0 || walk_room) &&
                         (!op_completes_recv || qp_faulted || cw_room)) begin
                // its data to place
                job_valid = rx_len != 13'd0;
                pay_done_next = 1'b1;
                ctx_next[`HROCE_QPC_EPSN] = epsn + 24'd1;
                ctx_next[`HROCE_QPC_NAK_SENT] = 1'b0;
                if (op_send) begin
                    ctx_next[`HROCE_QPC_IN_MSG] = op_ends ? MSG_NONE : MSG_SEND;
                    ctx_next[`HROCE_QPC_RECV_OFFSET] = (op_starts ? 32'd0 : recv_offset) +
                                                       {19'd0, rx_len};
                end else begin
                    ctx_next[`HROCE_QPC_IN_MSG] = op_ends ? MSG_NONE : MSG_WRITE;
                    ctx_next[`HROCE_QPC_WR_VA] = xl_va_reg + {51'd0, rx_len};
                    ctx_next[`HROCE_QPC_WR_RKEY] = xl_key_reg;
                    ctx_next[`HROCE_QPC_WR_LEFT] = (op_reth ? reth_len : wr_left) - {19'd0, rx_len};
                    // bytes of the WRITE so far: its length, for a WRITE with immediate
                    ctx_next[`HROCE_QPC_RECV_OFFSET] = (op_reth ? 32'd0 : recv_offset) +
                                                       {19'd0, rx_len};
                end
                if (op_ends) begin
                    ctx_next[`HROCE_QPC_MSN] = msn + 24'd1;
                end
                // S_FINISH's work in this cycle
                finish_now = 1'b1;
                if (op_completes_recv && qp_faulted) begin
                    // a packet of the QP before it failed its placement: the fault's NAK
                    // and flush answer for it
                    finish_now = 1'b0;
                    state_next = S_IDLE;
                end else if (op_completes_recv) begin
                    // the CQE waits (resp_cqe) until every byte of the message is in
                    // memory: the stage placed the jobs pushed so far (this one's
                    // included), and the writes committed by then are answered; this
                    // engine goes on meanwhile
                    cw_push = 1'b1;
                    ctx_next[`HROCE_QPC_RQ_CI] = rq_ci + 16'd1;
                    ctx_next[`HROCE_QPC_RECV_OFFSET] = 32'd0;
                    retire_en = 1'b1;
                end
            end
        end
        S_FINISH: begin
            finish_now = 1'b1;
        end

        /*
         * READ: once the WRITEs before it are in memory, and after the ACK of what came
         * before, its descriptor
         */
        S_READ_WAIT: begin
            if (v_bad) begin
                state_next = S_VDROP;
            end else if (v_pending) begin
                state_next = S_READ_WAIT;
            end else if (ack_pend_reg) begin
                if (ack_faulted) begin
                    ack_pend_next = 1'b0;
                end else if (desc_room && ack_ready) begin
                    desc_in_valid = 1'b1;
                    ack_pend_next = 1'b0;
                end
            end else if (place_drained && qp_faulted) begin
                // a WRITE of the QP before it failed its placement: the fault's NAK
                // answers, and the QP goes to error
                state_next = S_IDLE;
            end else if (place_drained && desc_room) begin
                desc_in_data = reply_desc(1'b1, rx_psn, SYN_ACK, rd_msn);
                desc_in_valid = 1'b1;
                state_next = S_READ_DONE;
            end
        end
        S_READ_DONE: begin
            if (!dup_reg) begin
                ctx_next[`HROCE_QPC_EPSN] = epsn + rd_npkts;
                ctx_next[`HROCE_QPC_MSN] = msn + 24'd1;
                ctx_next[`HROCE_QPC_NAK_SENT] = 1'b0;
                update_valid_next = 1'b1;
            end
            state_next = S_UPDATE;
        end

        /*
         * A reply decided now (duplicate ACK, NAK): after the pending ACK
         */
        S_REPLY: begin
            if (ack_pend_reg && ack_faulted) begin
                ack_pend_next = 1'b0;
            end else if (desc_room && (!ack_pend_reg || ack_ready)) begin
                desc_in_valid = 1'b1;
                if (ack_pend_reg) begin
                    ack_pend_next = 1'b0;
                end else begin
                    desc_in_data = reply_desc(1'b0, reply_psn_reg, reply_syn_reg, msn);
                    state_next = return_reg;
                end
            end
        end

        /*
         * A violation: NAK, the QP to error, RECV WQEs flushed, the requester told
         */
        S_FAIL: begin
            if (v_bad) begin
                state_next = S_VDROP;
            end else if (!v_pending && job_room) begin
                ctx_next[`HROCE_QPC_RESP_ERR] = 1'b1;
                kick_next = 1'b1;
                // its payload dropped
                job_valid = !pay_done_reg && rx_len != 13'd0;
                job_walk = 1'b0;
                pay_done_next = 1'b1;
                return_next = S_FLUSH;
                state_next = S_REPLY;
            end
        end
        S_FLUSH: begin
            // (after the completions waiting for their data)
            if (cw_empty && (!cqe_valid_reg || cqe_take)) begin
                if (rq_ci == rq_pi) begin
                    ctx_next[`HROCE_QPC_RESP_ERR] = 1'b1;
                    ctx_next[`HROCE_QPC_IN_MSG] = MSG_NONE;
                    ctx_next[`HROCE_QPC_RECV_OFFSET] = 32'd0;
                    kick_in_valid = kick_reg;
                    kick_next = 1'b0;
                    err_valid_next = 1'b0;
                    update_valid_next = 1'b1;
                    state_next = S_UPDATE;
                end else begin
                    cqe_cqn_next = ctx_reg[`HROCE_QPC_RECV_CQN];
                    cqe_data_next = make_cqe(rq_ci, `HROCE_CQE_OP_RECV,
                                             err_valid_reg ? err_status_reg : WC_WR_FLUSH_ERR,
                                             32'd0, 1'b0);
                    cqe_valid_next = 1'b1;
                    err_valid_next = 1'b0;
                    ctx_next[`HROCE_QPC_RQ_CI] = rq_ci + 16'd1;
                    retire_en = 1'b1;
                end
            end
        end
        /*
         * A request whose ICRC was bad: nothing of it stays (it has no payload)
         */
        S_VDROP: begin
            err_valid_next = 1'b0;
            state_next = update_valid_reg ? S_UPDATE : S_IDLE;
        end
        S_DROP: begin
            // its payload dropped
            if (job_room) begin
                job_valid = !pay_done_reg && rx_len != 13'd0;
                job_walk = 1'b0;
                state_next = update_valid_reg ? S_UPDATE : S_IDLE;
            end
        end

        /*
         * RQ doorbell: the producer counter; a QP in error flushes at once
         */
        S_DB: begin
            if (!ctx_ok_reg) begin
                state_next = S_IDLE;
            end else begin
                ctx_next[`HROCE_QPC_RQ_PI] = db_index_reg;
                if (qp_err) begin
                    state_next = S_FLUSH;
                end else begin
                    update_valid_next = 1'b1;
                    state_next = S_UPDATE;
                end
            end
        end
        S_KICK: begin
            if (ctx_ok_reg && !ctx_reg[`HROCE_QPC_RESP_ERR]) begin
                state_next = S_FLUSH;
            end else begin
                state_next = S_IDLE;
            end
        end
        S_FAULT: begin
            // a QP already in error, or gone, was told before
            state_next = ctx_ok_reg && !qp_err ? S_FAIL : S_IDLE;
        end
        default: state_next = S_IDLE;
    endcase

    // S_FINISH: the context written back, and the ACK asked for queued (after another
    // QP's: S_FINISH waits for it)
    if (finish_now) begin
        update_valid_next = 1'b1;
        state_next = S_UPDATE;
        if (rxh_reg[`HROCE_ROCE_HDR_BTH_ACKREQ]) begin
            if (ack_pend_reg && ack_qpn_reg != qpn_reg) begin
                // another QP's ACK goes first (or goes, if its NAK will answer)
                if (ack_faulted) begin
                    ack_pend_next = 1'b0;
                end else if (desc_room && ack_ready) begin
                    desc_in_valid = 1'b1;
                    ack_pend_next = 1'b0;
                end
                update_valid_next = 1'b0;
                state_next = S_FINISH;
            end else begin
                ack_pend_next = 1'b1;
                ack_qpn_next = qpn_reg;
                // (it covers every job pushed so far, this cycle's too: it waits until
                // they are placed)
                ack_job_next = job_seq_reg + (job_valid ? 8'd1 : 8'd0);
                ack_need_ok_next = 1'b0;
                ack_count_next = ack_pend_reg ? ack_count_reg + 8'd1 : 8'd0;
                ack_desc_next = reply_desc(1'b0, rx_psn, SYN_ACK, ctx_next[`HROCE_QPC_MSN]);
            end
        end
    end

    // S_EXEC: the request's checks, and the way its data goes (from S_RX in the same cycle)
    if (exec_now) begin
        reply_psn_next = rx_psn;
        if (v_bad) begin
            state_next = S_VDROP;
        end else if (v_pending && exec_fails) begin
            state_next = S_EXEC;
        end else if ((!dup_reg && !seq_ok) || !len_ok || !write_len_ok || !access_ok) begin
            reply_syn_next = SYN_NAK_INV_REQ;
            state_next = S_FAIL;
        end else if (op_takes_recv && rq_empty) begin
            // nothing to receive into: the requester will try again from this PSN
            // after the timer, so what follows it is dropped quietly until then
            reply_syn_next = SYN_RNR | {3'd0, ctx_reg[`HROCE_QPC_MIN_RNR_TIMER]};
            ctx_next[`HROCE_QPC_NAK_SENT] = 1'b1;
            update_valid_next = 1'b1;
            return_next = S_DROP;
            state_next = S_REPLY;
        end else if (op_send) begin
            xl_remote_next = 1'b0;
            state_next = S_FETCH;
            take_window = look_hit;
        end else begin
            // RDMA WRITE or READ: check the whole range once, at its first packet (a
            // WRITE of one packet is its range: the placement's translation checks it,
            // with the same verdicts, as a fault)
            xl_remote_next = 1'b1;
            xl_va_next = op_reth ? reth_va : wr_va;
            xl_key_next = op_reth ? reth_rkey : wr_rkey;
            if (op_reth && reth_len != 32'd0 && !(op_write && op_only)) begin
                state_next = S_CHECK;
            end else begin
                state_next = range_next;
            end
        end
    end

    // the window that holds the SEND's RECV WQE (S_EXEC, S_FETCH), and those after it to
    // read ahead
    if (take_window) begin
        cur_valid_next = 1'b1;
        cur_slot_next = look_slot;
        cur_first_next = look_first;
        cur_count_next = look_count;
        cur_err_next = look_err;
        ahead_next = look_first + {12'd0, look_count};
        ahead_left_next = RQ_AHEAD;
        state_next = S_WQE;
    end

    // an update of the context takes the QP's doorbells with it (the update goes with
    // ctx_reg of the next cycle: only as it is asked for, not as it is taken)
    db_take = 1'b0;
    if (update_valid_next && !update_valid_reg && db_hit) begin
        ctx_next[`HROCE_QPC_RQ_PI] = db_hit_index;
        db_take = 1'b1;
    end
end

always @* begin
    job_seq_next = job_seq_reg + (job_valid ? 8'd1 : 8'd0);
end

assign list_push = job_valid && job_list;

// the request's verdict as it is taken, its payload as it goes to placement
assign m_trace_valid = {place_trace_valid, job_valid, v_wait_reg && s_verdict_valid};
assign m_trace_data = {place_trace_data,
                       7'd0, job_list, rx_psn, qpn_reg,
                       7'd0, s_verdict_good, rx_psn, qpn_reg};

always @(posedge clk) begin
    state_reg <= state_next;
    return_reg <= return_next;
    qpn_reg <= qpn_next;
    ctx_reg <= ctx_next;
    ctx_ok_reg <= ctx_ok_next;
    lookup_valid_reg <= lookup_valid_next;
    update_valid_reg <= update_valid_next;
    db_index_reg <= db_index_next;
    rxh_reg <= rxh_next;
    dup_reg <= dup_next;
    v_wait_reg <= v_wait_next;
    v_bad_reg <= v_bad_next;
    pay_done_reg <= pay_done_next;
    cur_valid_reg <= cur_valid_next;
    cur_slot_reg <= cur_slot_next;
    cur_first_reg <= cur_first_next;
    cur_count_reg <= cur_count_next;
    cur_err_reg <= cur_err_next;
    ahead_reg <= ahead_next;
    ahead_left_reg <= ahead_left_next;
    xl_remote_reg <= xl_remote_next;
    xl_va_reg <= xl_va_next;
    xl_key_reg <= xl_key_next;
    reply_syn_reg <= reply_syn_next;
    reply_psn_reg <= reply_psn_next;
    ack_pend_reg <= ack_pend_next;
    ack_desc_reg <= ack_desc_next;
    ack_qpn_reg <= ack_qpn_next;
    ack_count_reg <= ack_count_next;
    ack_need_reg <= ack_need_next;
    ack_job_reg <= ack_job_next;
    ack_need_ok_reg <= ack_need_ok_next;
    job_seq_reg <= job_seq_next;
    cqe_cqn_reg <= cqe_cqn_next;
    cqe_data_reg <= cqe_data_next;
    cqe_valid_reg <= cqe_valid_next;
    list_taken_reg <= list_taken_next;
    list_taken_qpn_reg <= list_taken_qpn_next;
    err_valid_reg <= err_valid_next;
    err_status_reg <= err_status_next;
    kick_reg <= kick_next;
    stat_rx_no_qp_reg <= stat_rx_no_qp_next;
    stat_rx_no_room_reg <= stat_rx_no_room_next;
    no_room_wait_reg <= no_room_wait_next;
    stat_rx_duplicate_reg <= stat_rx_duplicate_next;
    stat_rx_out_of_sequence_reg <= stat_rx_out_of_sequence_next;

    if (rst) begin
        state_reg <= S_IDLE;
        v_wait_reg <= 1'b0;
        v_bad_reg <= 1'b0;
        lookup_valid_reg <= 1'b0;
        update_valid_reg <= 1'b0;
        cur_valid_reg <= 1'b0;
        ahead_left_reg <= 2'd0;
        ack_pend_reg <= 1'b0;
        job_seq_reg <= 8'd0;
        cqe_valid_reg <= 1'b0;
        list_taken_reg <= 1'b0;
        err_valid_reg <= 1'b0;
        kick_reg <= 1'b0;
        stat_rx_no_qp_reg <= 1'b0;
        stat_rx_no_room_reg <= 1'b0;
        no_room_wait_reg <= {NO_ROOM_WAIT_WIDTH{1'b0}};
        stat_rx_duplicate_reg <= 1'b0;
        stat_rx_out_of_sequence_reg <= 1'b0;
    end
end


// (a command waits for the placement's jobs: their walks read the MRs it may change)
assign idle = state_reg == S_IDLE && !lookup_valid_reg && !update_valid_reg && !cqe_valid_reg &&
              cw_empty && place_idle && fetch_idle && db_empty;

assign s_hdr_ready = take_rx;
assign s_err_ready = take_err;

assign m_ctx_lookup_index = qpn_reg;
assign m_ctx_lookup_valid = lookup_valid_reg;
assign s_ctx_lookup_ready = state_reg == S_LOOKUP_WAIT;
assign m_ctx_update_index = qpn_reg;
assign m_ctx_update_data = ctx_reg;
assign m_ctx_update_valid = update_valid_reg;

// the whole range's check, or the walk's translations
wire check = state_reg == S_CHECK && !xl_busy;
assign m_mr_req_key = check ? xl_key_reg : walk_mr_key;
assign m_mr_req_pd = check ? ctx_reg[`HROCE_QPC_PD] : walk_mr_pd;
assign m_mr_req_va = check ? xl_va_reg : walk_mr_va;
assign m_mr_req_len = check ? reth_len : walk_mr_len;
assign m_mr_req_access = check ? (op_read ? `HROCE_PERM_REMOTE_READ : `HROCE_PERM_REMOTE_WRITE) :
                         walk_mr_access;
assign m_mr_req_check = check;
assign m_mr_req_valid = check || walk_mr_valid;
assign s_mr_resp_ready = state_reg == S_CHECK_RESP || walk_resp_ready;




assign m_cqe_cqn = cqe_valid_reg ? cqe_cqn_reg : cw_cqn;
assign m_cqe_data = cqe_valid_reg ? cqe_data_reg : cw_data;
assign m_cqe_valid = cqe_valid_reg || cw_valid;

assign stat_rx_no_qp = stat_rx_no_qp_reg;
assign stat_rx_no_room = stat_rx_no_room_reg;
assign stat_rx_duplicate = stat_rx_duplicate_reg;
assign stat_rx_out_of_sequence = stat_rx_out_of_sequence_reg;

endmodule

`resetall
