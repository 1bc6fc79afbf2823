/*

CQE writer: puts the completions of the transport engines into their CQ rings, and raises
the CQs' interrupts.

    CQE (from an engine) --> CQ context --> CQE at BASE + 32 * (PI mod 2^LOG_SIZE), OWNER set
                                        --> PI + 1; armed: wait for the CQE to be posted,
                                            then the CQ's interrupt vector; disarm
    arm doorbell --> CQ context --> ARMED (solicited only or not), CI; an interrupt at once
                                    if completions the driver has not consumed are there

OWNER is 1 on the first pass through the ring, 0 on the second, and so on, so the driver
finds new entries without the core reading its consumer counter. A CQE for a CQ that
does not exist is dropped and counted.

An interrupt leaves only after every CQE written so far was posted (its DMA write
answered): the interrupt, itself a posted write, then reaches the host behind them.

Completions are taken while the command engine holds the engines (they may be the last
ones of an engine finishing its packet); doorbells wait.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module cq_writer #
(
    // Host bus data width
    parameter DATA_WIDTH = 512,
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // Engines that complete work
    parameter SOURCES = 2,
    // Interrupt vector bits
    parameter IRQ_WIDTH = `HROCE_IRQ_WIDTH
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Control: hold (no new doorbell), idle (nothing under way)
     */
    input  wire                          hold,
    output wire                          idle,

    /*
     * Completions: a CQE (OWNER ignored) and its CQ
     */
    input  wire [SOURCES*24-1:0]         s_cqe_cqn,
    input  wire [SOURCES*256-1:0]        s_cqe_data,
    input  wire [SOURCES-1:0]            s_cqe_valid,
    output wire [SOURCES-1:0]            s_cqe_ready,

    /*
     * CQ arm doorbells
     */
    input  wire [23:0]                   s_db_cqn,
    input  wire [15:0]                   s_db_ci,
    input  wire                          s_db_solicited,
    input  wire                          s_db_valid,
    output wire                          s_db_ready,

    /*
     * CQ context cache
     */
    output wire [23:0]                   m_ctx_lookup_index,
    output wire                          m_ctx_lookup_valid,
    input  wire                          m_ctx_lookup_ready,
    input  wire [511:0]                  s_ctx_lookup_data,
    input  wire [1:0]                    s_ctx_lookup_status,
    input  wire                          s_ctx_lookup_valid,
    output wire                          s_ctx_lookup_ready,
    output wire [23:0]                   m_ctx_update_index,
    output wire [511:0]                  m_ctx_update_data,
    output wire                          m_ctx_update_valid,
    input  wire                          m_ctx_update_ready,

    /*
     * DMA write client (byte stream)
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
     * Interrupt requests
     */
    output wire [IRQ_WIDTH-1:0]          m_irq_vector,
    output wire                          m_irq_valid,
    input  wire                          m_irq_ready,

    /*
     * Status
     */
    output wire                          stat_cqe,
    output wire                          stat_irq,
    output wire                          stat_drop
);

localparam SRC_WIDTH = SOURCES > 1 ? $clog2(SOURCES) : 1;
localparam CQE_BYTES = `HROCE_CQE_BYTES;

localparam [3:0]
    STATE_IDLE = 4'd0,
    STATE_LOOKUP = 4'd1,
    STATE_CQE = 4'd2,
    STATE_WRITE = 4'd3,
    STATE_ARM = 4'd4,
    STATE_POSTED = 4'd5,
    STATE_IRQ = 4'd6,
    STATE_UPDATE = 4'd7;

reg [3:0] state_reg = STATE_IDLE, state_next;
reg is_db_reg = 1'b0, is_db_next;
reg [23:0] cqn_reg = 24'd0, cqn_next;
reg [255:0] cqe_reg = 256'd0, cqe_next;
reg [15:0] db_ci_reg = 16'd0, db_ci_next;
reg db_sol_reg = 1'b0, db_sol_next;
reg [511:0] ctx_reg = 512'd0, ctx_next;
reg [63:0] cqe_addr_reg = 64'd0, cqe_addr_next;
reg ctx_ok_reg = 1'b0, ctx_ok_next;
reg irq_reg = 1'b0, irq_next;
reg [SRC_WIDTH-1:0] last_src_reg = 0, last_src_next;
reg lookup_valid_reg = 1'b0, lookup_valid_next;
reg update_valid_reg = 1'b0, update_valid_next;
reg wr_req_valid_reg = 1'b0, wr_req_valid_next;
reg wr_data_valid_reg = 1'b0, wr_data_valid_next;
reg [15:0] writes_pending_reg = 16'd0, writes_pending_next;
reg [SOURCES-1:0] cqe_ready_reg = {SOURCES{1'b0}}, cqe_ready_next;
reg db_ready_reg = 1'b0, db_ready_next;
reg stat_cqe_reg = 1'b0, stat_cqe_next;
reg stat_irq_reg = 1'b0, stat_irq_next;
reg stat_drop_reg = 1'b0, stat_drop_next;

// round robin: the lowest source with a CQE above the one served last, else the lowest
reg [SRC_WIDTH-1:0] pick;
reg pick_valid;
integer i;

always @* begin
    pick = last_src_reg;
    pick_valid = 1'b0;
    for (i = SOURCES-1; i >= 0; i = i - 1) begin
        if (s_cqe_valid[i]) begin
            pick = i[SRC_WIDTH-1:0];
            pick_valid = 1'b1;
        end
    end
    for (i = SOURCES-1; i >= 0; i = i - 1) begin
        if (s_cqe_valid[i] && i > {{(32-SRC_WIDTH){1'b0}}, last_src_reg}) begin
            pick = i[SRC_WIDTH-1:0];
        end
    end
end

wire [4:0] log_size = ctx_reg[`HROCE_CQC_LOG_SIZE];
wire [31:0] pi = ctx_reg[`HROCE_CQC_PI];
wire [31:0] slot = pi & ((32'd1 << log_size) - 32'd1);
wire armed = ctx_reg[`HROCE_CQC_ARMED];
wire arm_solicited = ctx_reg[`HROCE_CQC_ARM_SOLICITED];
wire cqe_wakes = !arm_solicited || cqe_reg[`HROCE_CQE_SOLICITED] ||
                 cqe_reg[`HROCE_CQE_STATUS] != `HROCE_WC_STATUS_SUCCESS;

always @* begin
    state_next = state_reg;
    is_db_next = is_db_reg;
    cqn_next = cqn_reg;
    cqe_next = cqe_reg;
    db_ci_next = db_ci_reg;
    db_sol_next = db_sol_reg;
    ctx_next = ctx_reg;
    cqe_addr_next = cqe_addr_reg;
    ctx_ok_next = ctx_ok_reg;
    irq_next = irq_reg;
    last_src_next = last_src_reg;
    lookup_valid_next = lookup_valid_reg && !m_ctx_lookup_ready;
    update_valid_next = update_valid_reg && !m_ctx_update_ready;
    wr_req_valid_next = wr_req_valid_reg && !m_wr_req_ready;
    wr_data_valid_next = wr_data_valid_reg && !m_wr_axis_tready;
    writes_pending_next = writes_pending_reg + ((m_wr_req_valid && m_wr_req_ready) ? 16'd1 : 16'd0)
                          - (s_wr_done_valid ? 16'd1 : 16'd0);
    cqe_ready_next = {SOURCES{1'b0}};
    db_ready_next = 1'b0;
    stat_cqe_next = 1'b0;
    stat_irq_next = 1'b0;
    stat_drop_next = 1'b0;

    case (state_reg)
        STATE_IDLE: begin
            if (pick_valid && !cqe_ready_reg[pick]) begin
                cqe_ready_next[pick] = 1'b1;
                last_src_next = pick;
                is_db_next = 1'b0;
                cqn_next = s_cqe_cqn[pick*24 +: 24];
                cqe_next = s_cqe_data[pick*256 +: 256];
                lookup_valid_next = 1'b1;
                state_next = STATE_LOOKUP;
            end else if (!hold && s_db_valid && !db_ready_reg) begin
                db_ready_next = 1'b1;
                is_db_next = 1'b1;
                cqn_next = s_db_cqn;
                db_ci_next = s_db_ci;
                db_sol_next = s_db_solicited;
                lookup_valid_next = 1'b1;
                state_next = STATE_LOOKUP;
            end
        end
        STATE_LOOKUP: begin
            if (s_ctx_lookup_valid) begin
                ctx_next = s_ctx_lookup_data;
                ctx_ok_next = s_ctx_lookup_status == 2'd0 && s_ctx_lookup_data[`HROCE_CQC_VALID];
                irq_next = 1'b0;
                state_next = is_db_reg ? STATE_ARM : STATE_CQE;
            end
        end
        STATE_CQE: begin
            if (!ctx_ok_reg) begin
                stat_drop_next = 1'b1;
                state_next = STATE_IDLE;
            end else begin
                cqe_next[`HROCE_CQE_OWNER] = !pi[log_size];
                cqe_addr_next = ctx_reg[`HROCE_CQC_BASE] + {27'd0, slot, 5'd0};
                ctx_next[`HROCE_CQC_PI] = pi + 32'd1;
                if (armed && cqe_wakes) begin
                    ctx_next[`HROCE_CQC_ARMED] = 1'b0;
                    irq_next = 1'b1;
                end
                wr_req_valid_next = 1'b1;
                wr_data_valid_next = 1'b1;
                stat_cqe_next = 1'b1;
                state_next = STATE_WRITE;
            end
        end
        STATE_WRITE: begin
            if (!wr_req_valid_next && !wr_data_valid_next) begin
                state_next = irq_reg ? STATE_POSTED : STATE_UPDATE;
                update_valid_next = !irq_reg;
            end
        end
        STATE_ARM: begin
            if (!ctx_ok_reg) begin
                state_next = STATE_IDLE;
            end else begin
                ctx_next[`HROCE_CQC_CI] = {16'd0, db_ci_reg};
                if (pi[15:0] != db_ci_reg) begin
                    // completions are waiting already: wake the driver now
                    ctx_next[`HROCE_CQC_ARMED] = 1'b0;
                    irq_next = 1'b1;
                    state_next = STATE_POSTED;
                end else begin
                    ctx_next[`HROCE_CQC_ARMED] = 1'b1;
                    ctx_next[`HROCE_CQC_ARM_SOLICITED] = db_sol_reg;
                    update_valid_next = 1'b1;
                    state_next = STATE_UPDATE;
                end
            end
        end
        STATE_POSTED: begin
            if (writes_pending_reg == 16'd0) begin
                state_next = STATE_IRQ;
            end
        end
        STATE_IRQ: begin
            if (m_irq_ready) begin
                stat_irq_next = 1'b1;
                update_valid_next = 1'b1;
                state_next = STATE_UPDATE;
            end
        end
        STATE_UPDATE: begin
            if (!update_valid_next) begin
                state_next = STATE_IDLE;
            end
        end
        default: state_next = STATE_IDLE;
    endcase
end

always @(posedge clk) begin
    state_reg <= state_next;
    is_db_reg <= is_db_next;
    cqn_reg <= cqn_next;
    cqe_reg <= cqe_next;
    db_ci_reg <= db_ci_next;
    db_sol_reg <= db_sol_next;
    ctx_reg <= ctx_next;
    cqe_addr_reg <= cqe_addr_next;
    ctx_ok_reg <= ctx_ok_next;
    irq_reg <= irq_next;
    last_src_reg <= last_src_next;
    lookup_valid_reg <= lookup_valid_next;
    update_valid_reg <= update_valid_next;
    wr_req_valid_reg <= wr_req_valid_next;
    wr_data_valid_reg <= wr_data_valid_next;
    writes_pending_reg <= writes_pending_next;
    cqe_ready_reg <= cqe_ready_next;
    db_ready_reg <= db_ready_next;
    stat_cqe_reg <= stat_cqe_next;
    stat_irq_reg <= stat_irq_next;
    stat_drop_reg <= stat_drop_next;

    if (rst) begin
        state_reg <= STATE_IDLE;
        last_src_reg <= 0;
        lookup_valid_reg <= 1'b0;
        update_valid_reg <= 1'b0;
        wr_req_valid_reg <= 1'b0;
        wr_data_valid_reg <= 1'b0;
        writes_pending_reg <= 16'd0;
        cqe_ready_reg <= {SOURCES{1'b0}};
        db_ready_reg <= 1'b0;
        stat_cqe_reg <= 1'b0;
        stat_irq_reg <= 1'b0;
        stat_drop_reg <= 1'b0;
    end
end

assign idle = state_reg == STATE_IDLE && s_cqe_valid == {SOURCES{1'b0}} &&
              writes_pending_reg == 16'd0;

// the handshakes are registered: a source's CQE is taken in the cycle after it is picked
assign s_cqe_ready = cqe_ready_reg;
assign s_db_ready = db_ready_reg;

assign m_ctx_lookup_index = cqn_reg;
assign m_ctx_lookup_valid = lookup_valid_reg;
assign s_ctx_lookup_ready = state_reg == STATE_LOOKUP;
assign m_ctx_update_index = cqn_reg;
assign m_ctx_update_data = ctx_reg;
assign m_ctx_update_valid = update_valid_reg;

assign m_wr_req_addr = cqe_addr_reg;
assign m_wr_req_len = CQE_BYTES[15:0];
assign m_wr_req_valid = wr_req_valid_reg;
assign m_wr_axis_tdata = {{(DATA_WIDTH-256){1'b0}}, cqe_reg};
assign m_wr_axis_tkeep = {{(KEEP_WIDTH-CQE_BYTES){1'b0}}, {CQE_BYTES{1'b1}}};
assign m_wr_axis_tvalid = wr_data_valid_reg;
assign m_wr_axis_tlast = 1'b1;

assign m_irq_vector = ctx_reg[`HROCE_CQC_IRQ_VECTOR];
assign m_irq_valid = state_reg == STATE_IRQ;

assign stat_cqe = stat_cqe_reg;
assign stat_irq = stat_irq_reg;
assign stat_drop = stat_drop_reg;

endmodule

`resetall
