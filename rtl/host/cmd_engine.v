/*

Command engine: creates, modifies, queries and destroys QPs, CQs and MRs in their
host-memory context tables, as the driver asks through REG_CMD.

A command runs in steps, one at a time:

    check number -> hold the engines, wait until they are idle
                 -> invalidate cached copies (written back if dirty)
                 -> read the mailbox (CREATE, MODIFY) -> read the table entry
                 -> decide -> write the entry (CREATE, MODIFY, DESTROY)
                 -> write the mailbox's output half (QUERY) -> result

While a command runs, m_hold asks the transport engines not to start a new packet, and
every cache holding the object is invalidated first: so the core applies commands
between packets, and nobody works from a stale context. The engine owns the static half
of a QP context (bytes 0..127, two beats); MODIFY_QP also sets the dynamic fields that a
transition defines (PSNs at RTR and RTS, everything cleared at RESET and INIT). A QP
context is four beats, a CQ or MR context one: a beat counter walks the entry.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module cmd_engine #
(
    // Host bus data width (one beat holds a 64-byte context)
    parameter DATA_WIDTH = 512,
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8)
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Configuration
     */
    input  wire [63:0]                   cfg_qpc_base,
    input  wire [4:0]                    cfg_qpc_log,
    input  wire [63:0]                   cfg_cqc_base,
    input  wire [4:0]                    cfg_cqc_log,
    input  wire [63:0]                   cfg_mrc_base,
    input  wire [4:0]                    cfg_mrc_log,
    input  wire [63:0]                   cfg_mailbox,

    /*
     * Command in, status out
     */
    input  wire                          cmd_start,
    input  wire [7:0]                    cmd_op,
    input  wire [23:0]                   cmd_num,
    input  wire [63:0]                   cmd_arg,
    output wire                          cmd_busy,
    output wire [7:0]                    cmd_result,
    output wire [15:0]                   cmd_seq,

    /*
     * Engines: hold (no new packet), and invalidation of cached contexts
     * (kind 0 = QP, 1 = CQ, 2 = MR; ready and done are those of every cache of the kind)
     */
    output wire                          m_hold,
    input  wire                          s_idle,
    output wire [1:0]                    m_inval_kind,
    output wire [23:0]                   m_inval_num,
    output wire                          m_inval_valid,
    input  wire                          m_inval_ready,
    input  wire                          s_inval_done,

    /*
     * DMA read client (aligned)
     */
    output wire [63:0]                   m_rd_req_addr,
    output wire [15:0]                   m_rd_req_len,
    output wire                          m_rd_req_valid,
    input  wire                          m_rd_req_ready,
    input  wire [DATA_WIDTH-1:0]         s_rd_axis_tdata,
    input  wire                          s_rd_axis_tvalid,
    output wire                          s_rd_axis_tready,
    input  wire                          s_rd_axis_tlast,
    input  wire                          s_rd_axis_tuser,

    /*
     * DMA write client (aligned)
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
     * Status
     */
    output wire                          stat_command
);

initial begin
    if (DATA_WIDTH != 512 || `HROCE_QPC_BITS != 4*512) begin
        $error("Error: %m: a context beat is 512 bits, a QP context four (DATA_WIDTH=%0d)",
               DATA_WIDTH);
        $finish;
    end
end

localparam [3:0]
    STATE_IDLE = 4'd0,
    STATE_CHECK = 4'd1,
    STATE_INVAL = 4'd2,
    STATE_INVAL_WAIT = 4'd3,
    STATE_READ_MB = 4'd4,
    STATE_READ_MB_DATA = 4'd5,
    STATE_READ_ENTRY = 4'd6,
    STATE_READ_ENTRY_DATA = 4'd7,
    STATE_DECIDE = 4'd8,
    STATE_WRITE = 4'd9,
    STATE_WRITE_DATA = 4'd10,
    STATE_WRITE_WAIT = 4'd11,
    STATE_DONE = 4'd12,
    STATE_QUIESCE = 4'd13;

localparam [1:0] KIND_QP = 2'd0, KIND_CQ = 2'd1, KIND_MR = 2'd2;

// QP states (libibverbs numbering)
localparam [3:0]
    QPS_RESET = `HROCE_QP_STATE_RESET,
    QPS_INIT = `HROCE_QP_STATE_INIT,
    QPS_RTR = `HROCE_QP_STATE_RTR,
    QPS_RTS = `HROCE_QP_STATE_RTS,
    QPS_SQD = `HROCE_QP_STATE_SQD,
    QPS_SQE = `HROCE_QP_STATE_SQE,
    QPS_ERR = `HROCE_QP_STATE_ERR;

reg [3:0] state_reg = STATE_IDLE, state_next;
reg [7:0] op_reg = 8'd0, op_next;
reg [23:0] num_reg = 24'd0, num_next;
reg [3:0] arg_state_reg = 4'd0, arg_state_next;
reg [7:0] result_reg = 8'd0, result_next;
reg [15:0] seq_reg = 16'd0, seq_next;

localparam QPC_BITS = `HROCE_QPC_BITS;
// the static half of a QP context, what CREATE_QP and MODIFY_QP carry in the mailbox
localparam STATIC_BITS = QPC_BITS / 2;

reg [STATIC_BITS-1:0] mailbox_reg = {STATIC_BITS{1'b0}}, mailbox_next;
reg [QPC_BITS-1:0] entry_reg = {QPC_BITS{1'b0}}, entry_next;
reg [1:0] beat_reg = 2'd0, beat_next;
reg dma_error_reg = 1'b0, dma_error_next;
// what the write step writes: 0 = the table entry, 1 = the mailbox's output half
reg write_out_reg = 1'b0, write_out_next;
reg stat_command_reg = 1'b0, stat_command_next;

reg inval_valid_reg = 1'b0, inval_valid_next;
reg rd_req_valid_reg = 1'b0, rd_req_valid_next;
reg [63:0] rd_req_addr_reg = 64'd0, rd_req_addr_next;
reg [15:0] rd_req_len_reg = 16'd0, rd_req_len_next;
reg wr_req_valid_reg = 1'b0, wr_req_valid_next;
reg wr_data_valid_reg = 1'b0, wr_data_valid_next;

// the object the command is about
wire [1:0] kind = (op_reg == `HROCE_CMD_OP_CREATE_CQ || op_reg == `HROCE_CMD_OP_QUERY_CQ ||
                   op_reg == `HROCE_CMD_OP_DESTROY_CQ) ? KIND_CQ :
                  (op_reg == `HROCE_CMD_OP_CREATE_MR || op_reg == `HROCE_CMD_OP_QUERY_MR ||
                   op_reg == `HROCE_CMD_OP_DESTROY_MR) ? KIND_MR : KIND_QP;
wire op_known = op_reg >= `HROCE_CMD_OP_CREATE_QP && op_reg <= `HROCE_CMD_OP_DESTROY_MR;
wire op_create = op_reg == `HROCE_CMD_OP_CREATE_QP || op_reg == `HROCE_CMD_OP_CREATE_CQ ||
                 op_reg == `HROCE_CMD_OP_CREATE_MR;
wire op_query = op_reg == `HROCE_CMD_OP_QUERY_QP || op_reg == `HROCE_CMD_OP_QUERY_CQ ||
                op_reg == `HROCE_CMD_OP_QUERY_MR;
wire op_modify = op_reg == `HROCE_CMD_OP_MODIFY_QP;
wire op_needs_mailbox = op_create || op_modify;

wire [63:0] table_base = kind == KIND_QP ? cfg_qpc_base : kind == KIND_CQ ? cfg_cqc_base :
                         cfg_mrc_base;
wire [4:0] table_log = kind == KIND_QP ? cfg_qpc_log : kind == KIND_CQ ? cfg_cqc_log :
                       cfg_mrc_log;
// entries are QPC_BYTES (QP, four beats) or 64 bytes (CQ, MR); the mailbox carries the
// static half of a QP context (two beats) or a whole CQ or MR context
wire entry_qp = kind == KIND_QP;
wire [63:0] entry_addr = table_base + ({40'd0, num_reg} << (entry_qp ? $clog2(QPC_BITS/8) : 6));
wire [15:0] entry_len = entry_qp ? QPC_BITS/8 : 16'd64;
wire [1:0] entry_last = entry_qp ? 2'd3 : 2'd0;
wire [24:0] table_entries = 25'd1 << table_log;

// the QP's state as the driver sees it: ERR if either engine put it there
wire [3:0] qp_state = entry_reg[`HROCE_QPC_STATE];
wire [3:0] qp_effective = (entry_reg[`HROCE_QPC_REQ_ERR] || entry_reg[`HROCE_QPC_TX_ERR] ||
                           entry_reg[`HROCE_QPC_RESP_ERR]) ?
                          QPS_ERR : qp_state;
wire [3:0] qp_new = mailbox_reg[`HROCE_QPC_STATE];

// allowed QP state transitions (IBTA 10.3.1, as libibverbs checks them)
function transition_ok(input [3:0] cur, input [3:0] nxt);
    begin
        if (nxt == QPS_RESET || nxt == QPS_ERR) begin
            transition_ok = cur <= QPS_ERR;
        end else begin
            case (cur)
                QPS_RESET: transition_ok = nxt == QPS_INIT;
                QPS_INIT: transition_ok = nxt == QPS_INIT || nxt == QPS_RTR;
                QPS_RTR: transition_ok = nxt == QPS_RTS;
                QPS_RTS: transition_ok = nxt == QPS_RTS || nxt == QPS_SQD;
                QPS_SQD: transition_ok = nxt == QPS_SQD || nxt == QPS_RTS;
                QPS_SQE: transition_ok = nxt == QPS_RTS;
                default: transition_ok = 1'b0;
            endcase
        end
    end
endfunction

wire qp_params_ok = mailbox_reg[`HROCE_QPC_PATH_MTU] >= `HROCE_PATH_MTU_MIN &&
                    mailbox_reg[`HROCE_QPC_PATH_MTU] <= `HROCE_PATH_MTU_MAX;
wire mr_params_ok = mailbox_reg[`HROCE_MRC_KEY] >> 8 == {8'd0, num_reg} &&
                    mailbox_reg[`HROCE_MRC_LOG_PAGE_SIZE] >= `HROCE_MR_LOG_PAGE_MIN &&
                    mailbox_reg[`HROCE_MRC_LOG_PAGE_SIZE] <= `HROCE_MR_LOG_PAGE_MAX;
wire entry_valid = kind == KIND_QP ? entry_reg[`HROCE_QPC_VALID] :
                   kind == KIND_CQ ? entry_reg[`HROCE_CQC_VALID] : entry_reg[`HROCE_MRC_VALID];

// the write step writes the entry (to the table, or to the mailbox for a query)
// (beats by constant slices: an indexed part-select of these wide registers costs Yosys a
// shifter of tens of thousands of LUTs)
reg [511:0] write_beat;
always @* begin
    case (beat_reg)
        2'd0: write_beat = entry_reg[0*512 +: 512];
        2'd1: write_beat = entry_reg[1*512 +: 512];
        2'd2: write_beat = entry_reg[2*512 +: 512];
        default: write_beat = entry_reg[3*512 +: 512];
    endcase
end

always @* begin
    state_next = state_reg;
    op_next = op_reg;
    num_next = num_reg;
    arg_state_next = arg_state_reg;
    result_next = result_reg;
    seq_next = seq_reg;
    mailbox_next = mailbox_reg;
    entry_next = entry_reg;
    beat_next = beat_reg;
    dma_error_next = dma_error_reg;
    write_out_next = write_out_reg;
    stat_command_next = 1'b0;
    inval_valid_next = inval_valid_reg && !m_inval_ready;
    rd_req_valid_next = rd_req_valid_reg && !m_rd_req_ready;
    rd_req_addr_next = rd_req_addr_reg;
    rd_req_len_next = rd_req_len_reg;
    wr_req_valid_next = wr_req_valid_reg && !m_wr_req_ready;
    wr_data_valid_next = wr_data_valid_reg;

    case (state_reg)
        STATE_IDLE: begin
            if (cmd_start) begin
                op_next = cmd_op;
                num_next = cmd_num;
                arg_state_next = cmd_arg[3:0];
                dma_error_next = 1'b0;
                state_next = STATE_CHECK;
            end
        end
        STATE_CHECK: begin
            if (op_reg == `HROCE_CMD_OP_NOP) begin
                result_next = `HROCE_CMD_RESULT_OK;
                state_next = STATE_DONE;
            end else if (!op_known) begin
                result_next = `HROCE_CMD_RESULT_BAD_OP;
                state_next = STATE_DONE;
            end else if (table_log == 5'd0) begin
                result_next = `HROCE_CMD_RESULT_NO_TABLE;
                state_next = STATE_DONE;
            end else if ({1'b0, num_reg} >= table_entries) begin
                result_next = `HROCE_CMD_RESULT_BAD_NUM;
                state_next = STATE_DONE;
            end else begin
                state_next = STATE_QUIESCE;
            end
        end
        STATE_QUIESCE: begin
            // the engines finish the packet under way and touch no context after it
            if (s_idle) begin
                inval_valid_next = 1'b1;
                state_next = STATE_INVAL;
            end
        end
        STATE_INVAL: begin
            // the request is out; wait until every cache of the kind took it
            if (!inval_valid_reg || m_inval_ready) begin
                state_next = STATE_INVAL_WAIT;
            end
            if (s_inval_done) begin
                // a cache may finish in the cycle it accepts
                state_next = op_needs_mailbox ? STATE_READ_MB : STATE_READ_ENTRY;
            end
        end
        STATE_INVAL_WAIT: begin
            if (s_inval_done) begin
                state_next = op_needs_mailbox ? STATE_READ_MB : STATE_READ_ENTRY;
            end
        end
        STATE_READ_MB: begin
            rd_req_valid_next = 1'b1;
            rd_req_addr_next = cfg_mailbox;
            rd_req_len_next = entry_qp ? STATIC_BITS/8 : 16'd64;
            beat_next = 2'd0;
            mailbox_next = {STATIC_BITS{1'b0}};
            state_next = STATE_READ_MB_DATA;
        end
        STATE_READ_MB_DATA: begin
            if (s_rd_axis_tvalid) begin
                if (beat_reg[0]) begin
                    mailbox_next[1*512 +: 512] = s_rd_axis_tdata;
                end else begin
                    mailbox_next[0*512 +: 512] = s_rd_axis_tdata;
                end
                beat_next = beat_reg + 2'd1;
                dma_error_next = dma_error_reg || s_rd_axis_tuser;
                if (s_rd_axis_tlast) begin
                    state_next = STATE_READ_ENTRY;
                end
            end
        end
        STATE_READ_ENTRY: begin
            rd_req_valid_next = 1'b1;
            rd_req_addr_next = entry_addr;
            rd_req_len_next = entry_len;
            beat_next = 2'd0;
            entry_next = {QPC_BITS{1'b0}};
            state_next = STATE_READ_ENTRY_DATA;
        end
        STATE_READ_ENTRY_DATA: begin
            if (s_rd_axis_tvalid) begin
                case (beat_reg)
                    2'd0: entry_next[0*512 +: 512] = s_rd_axis_tdata;
                    2'd1: entry_next[1*512 +: 512] = s_rd_axis_tdata;
                    2'd2: entry_next[2*512 +: 512] = s_rd_axis_tdata;
                    default: entry_next[3*512 +: 512] = s_rd_axis_tdata;
                endcase
                beat_next = beat_reg + 2'd1;
                dma_error_next = dma_error_reg || s_rd_axis_tuser;
                if (s_rd_axis_tlast) begin
                    state_next = STATE_DECIDE;
                end
            end
        end
        STATE_DECIDE: begin
            // default: nothing to write
            state_next = STATE_DONE;
            result_next = `HROCE_CMD_RESULT_OK;
            write_out_next = 1'b0;
            if (dma_error_reg) begin
                result_next = `HROCE_CMD_RESULT_DMA_ERROR;
            end else if (op_create) begin
                if (entry_valid) begin
                    result_next = `HROCE_CMD_RESULT_EXISTS;
                end else if (kind == KIND_QP && !qp_params_ok) begin
                    result_next = `HROCE_CMD_RESULT_BAD_PARAM;
                end else if (kind == KIND_MR && !mr_params_ok) begin
                    result_next = `HROCE_CMD_RESULT_BAD_PARAM;
                end else begin
                    entry_next = {{QPC_BITS-STATIC_BITS{1'b0}}, mailbox_reg};
                    case (kind)
                        KIND_QP: begin
                            entry_next[`HROCE_QPC_VALID] = 1'b1;
                            entry_next[`HROCE_QPC_STATE] = QPS_RESET;
                        end
                        KIND_CQ: begin
                            entry_next[`HROCE_CQC_VALID] = 1'b1;
                            entry_next[`HROCE_CQC_ARMED] = 1'b0;
                            entry_next[`HROCE_CQC_ARM_SOLICITED] = 1'b0;
                            entry_next[`HROCE_CQC_PI] = 32'd0;
                        end
                        default: begin
                            entry_next[`HROCE_MRC_VALID] = 1'b1;
                        end
                    endcase
                    state_next = STATE_WRITE;
                end
            end else if (!entry_valid) begin
                result_next = `HROCE_CMD_RESULT_BAD_NUM;
            end else if (op_query) begin
                if (kind == KIND_QP) begin
                    entry_next[`HROCE_QPC_STATE] = qp_effective;
                end
                write_out_next = 1'b1;
                state_next = STATE_WRITE;
            end else if (op_modify) begin
                if (qp_effective != arg_state_reg || !transition_ok(qp_effective, qp_new)) begin
                    result_next = `HROCE_CMD_RESULT_BAD_STATE;
                end else if (qp_new != QPS_RESET && qp_new != QPS_ERR && !qp_params_ok) begin
                    result_next = `HROCE_CMD_RESULT_BAD_PARAM;
                end else begin
                    entry_next[STATIC_BITS-1:0] = mailbox_reg;
                    entry_next[`HROCE_QPC_VALID] = 1'b1;
                    if (qp_new == QPS_RESET || (qp_effective == QPS_RESET && qp_new == QPS_INIT)) begin
                        entry_next[QPC_BITS-1:STATIC_BITS] = {STATIC_BITS{1'b0}};
                    end
                    if (qp_effective == QPS_INIT && qp_new == QPS_RTR) begin
                        entry_next[`HROCE_QPC_EPSN] = mailbox_reg[`HROCE_QPC_RQ_PSN];
                        entry_next[`HROCE_QPC_MSN] = 24'd0;
                        entry_next[`HROCE_QPC_NAK_SENT] = 1'b0;
                    end
                    if (qp_effective == QPS_RTR && qp_new == QPS_RTS) begin
                        entry_next[`HROCE_QPC_NPSN] = mailbox_reg[`HROCE_QPC_SQ_PSN];
                        entry_next[`HROCE_QPC_UNA_PSN] = mailbox_reg[`HROCE_QPC_SQ_PSN];
                        entry_next[`HROCE_QPC_RETRY_LEFT] = mailbox_reg[`HROCE_QPC_RETRY_CNT];
                        entry_next[`HROCE_QPC_RNR_LEFT] = mailbox_reg[`HROCE_QPC_RNR_RETRY];
                    end
                    if (qp_new == QPS_ERR) begin
                        // both engines see ERR and flush their queues
                        entry_next[`HROCE_QPC_REQ_ERR] = 1'b1;
                        entry_next[`HROCE_QPC_RESP_ERR] = 1'b1;
                    end
                    state_next = STATE_WRITE;
                end
            end else begin
                // DESTROY: the entry becomes all zeros, VALID included
                entry_next = {QPC_BITS{1'b0}};
                state_next = STATE_WRITE;
            end
        end
        STATE_WRITE: begin
            wr_req_valid_next = 1'b1;
            beat_next = 2'd0;
            wr_data_valid_next = 1'b1;
            state_next = STATE_WRITE_DATA;
        end
        STATE_WRITE_DATA: begin
            if (m_wr_axis_tready) begin
                if (beat_reg != entry_last) begin
                    beat_next = beat_reg + 2'd1;
                end else begin
                    wr_data_valid_next = 1'b0;
                    state_next = STATE_WRITE_WAIT;
                end
            end
        end
        STATE_WRITE_WAIT: begin
            if (s_wr_done_valid) begin
                if (s_wr_done_error) begin
                    result_next = `HROCE_CMD_RESULT_DMA_ERROR;
                end
                state_next = STATE_DONE;
            end
        end
        STATE_DONE: begin
            seq_next = seq_reg + 16'd1;
            stat_command_next = 1'b1;
            state_next = STATE_IDLE;
        end
        default: state_next = STATE_IDLE;
    endcase
end

always @(posedge clk) begin
    state_reg <= state_next;
    op_reg <= op_next;
    num_reg <= num_next;
    arg_state_reg <= arg_state_next;
    result_reg <= result_next;
    seq_reg <= seq_next;
    mailbox_reg <= mailbox_next;
    entry_reg <= entry_next;
    beat_reg <= beat_next;
    dma_error_reg <= dma_error_next;
    write_out_reg <= write_out_next;
    stat_command_reg <= stat_command_next;
    inval_valid_reg <= inval_valid_next;
    rd_req_valid_reg <= rd_req_valid_next;
    rd_req_addr_reg <= rd_req_addr_next;
    rd_req_len_reg <= rd_req_len_next;
    wr_req_valid_reg <= wr_req_valid_next;
    wr_data_valid_reg <= wr_data_valid_next;

    if (rst) begin
        state_reg <= STATE_IDLE;
        result_reg <= 8'd0;
        seq_reg <= 16'd0;
        stat_command_reg <= 1'b0;
        inval_valid_reg <= 1'b0;
        rd_req_valid_reg <= 1'b0;
        wr_req_valid_reg <= 1'b0;
        wr_data_valid_reg <= 1'b0;
    end
end

assign cmd_busy = state_reg != STATE_IDLE;
assign cmd_result = result_reg;
assign cmd_seq = seq_reg;

assign m_hold = state_reg != STATE_IDLE;
assign m_inval_kind = kind;
assign m_inval_num = num_reg;
assign m_inval_valid = inval_valid_reg;

assign m_rd_req_addr = rd_req_addr_reg;
assign m_rd_req_len = rd_req_len_reg;
assign m_rd_req_valid = rd_req_valid_reg;
assign s_rd_axis_tready = state_reg == STATE_READ_MB_DATA || state_reg == STATE_READ_ENTRY_DATA;

assign m_wr_req_addr = write_out_reg ? cfg_mailbox + `HROCE_CMD_MAILBOX_OUT : entry_addr;
assign m_wr_req_len = entry_len;
assign m_wr_req_valid = wr_req_valid_reg;
assign m_wr_axis_tdata = write_beat;
assign m_wr_axis_tkeep = {KEEP_WIDTH{1'b1}};
assign m_wr_axis_tvalid = wr_data_valid_reg;
assign m_wr_axis_tlast = beat_reg == entry_last;

assign stat_command = stat_command_reg;

endmodule

`resetall
