/*

CQE writer: puts the completions of the transport engines into their CQ rings, and raises
the CQs' interrupts.

    CQE (from an engine) --> CQ context --> CQE at BASE + 32 * (PI mod 2^LOG_SIZE), OWNER set
                                        --> PI + 1; armed: wait for the CQE to be posted,
                                            then the CQ's interrupt vector; disarm
    CQE (its ring full: PI - CI = 2^LOG_SIZE) --> not written; CQ context OVERRUN
                                        --> EQE CQ_ERR at EQ_BASE + 32 * (EQ PI mod size),
                                            the EQ's interrupt once it is posted
    CQE (OVERRUN set) --> dropped
    arm doorbell --> CQ context --> ARMED (solicited only or not), CI; an interrupt at once
                                    if completions the driver has not consumed are there
    CI_ONLY doorbell --> CQ context --> CI

OWNER is 1 on the first pass through the ring, 0 on the second, and so on, so the driver
finds new entries without polling a register. The driver reports its consumer counter with
a CQ doorbell after each poll that took completions, so the core knows which CQEs are still
unread and never writes over one: a completion for a full ring is the CQ's overrun, which
puts the CQ in error for good (IBTA's CQ overrun: the CQ's consumer sees CQ_ERR and its QPs
are moved to error by the driver) and is reported once, by an EQE in the event queue. The
event queue has no consumer counter: the driver sizes it for one event per CQ. Dropped
completions are counted (stat_overrun). A CQE for a CQ that does not exist is dropped and
counted.

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
     * CQ doorbells: the consumer counter, and an arming unless ci_only
     */
    input  wire [23:0]                   s_db_cqn,
    input  wire [31:0]                   s_db_ci,
    input  wire                          s_db_solicited,
    input  wire                          s_db_ci_only,
    input  wire                          s_db_valid,
    output wire                          s_db_ready,

    /*
     * Event queue (REG_EQ_BASE, REG_EQ_CONFIG's fields); eq_restart: start again at its
     * first entry
     */
    input  wire [63:0]                   cfg_eq_base,
    input  wire [4:0]                    cfg_eq_log,
    input  wire [IRQ_WIDTH-1:0]          cfg_eq_vector,
    input  wire                          cfg_eq_enable,
    input  wire                          eq_restart,

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
    output wire                          stat_drop,
    output wire                          stat_overrun
);

localparam SRC_WIDTH = SOURCES > 1 ? $clog2(SOURCES) : 1;
localparam CQE_BYTES = `HROCE_CQE_BYTES;
localparam EQE_BYTES = `HROCE_EQE_BYTES;

// an EQE takes the CQE's path to memory: same size, same address arithmetic
initial begin
    if (EQE_BYTES != CQE_BYTES || CQE_BYTES != 32) begin
        $error("Error: %m: CQEs and EQEs must both be 32 bytes");
        $finish;
    end
end

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
reg [31:0] db_ci_reg = 32'd0, db_ci_next;
reg db_sol_reg = 1'b0, db_sol_next;
reg db_ci_only_reg = 1'b0, db_ci_only_next;
reg [31:0] eq_pi_reg = 32'd0, eq_pi_next;
reg event_irq_reg = 1'b0, event_irq_next;
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
reg stat_overrun_reg = 1'b0, stat_overrun_next;

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
wire [31:0] ci = ctx_reg[`HROCE_CQC_CI];
// CQEs written and not consumed yet: the ring is full at 2^LOG_SIZE (a consumer counter
// past PI, which no driver sends, counts as full too: nothing is written over)
wire [31:0] unread = pi - ci;
wire ring_full = unread >= (32'd1 << log_size);
wire overrun = ctx_reg[`HROCE_CQC_OVERRUN];
wire armed = ctx_reg[`HROCE_CQC_ARMED];
wire arm_solicited = ctx_reg[`HROCE_CQC_ARM_SOLICITED];

// the entry a completion writes: its CQE in the CQ's ring, or on an overrun the EQE in
// the event queue (one slot, owner bit and address computation for both)
wire to_eq = ring_full;
wire [31:0] ring_count = to_eq ? eq_pi_reg : pi;
wire [4:0] ring_log = to_eq ? cfg_eq_log : log_size;
wire [31:0] ring_slot = ring_count & ((32'd1 << ring_log) - 32'd1);
wire ring_owner = !ring_count[ring_log];
wire [63:0] ring_addr = (to_eq ? cfg_eq_base : ctx_reg[`HROCE_CQC_BASE]) +
                        {27'd0, ring_slot, 5'd0};
wire cqe_wakes = !arm_solicited || cqe_reg[`HROCE_CQE_SOLICITED] ||
                 cqe_reg[`HROCE_CQE_STATUS] != `HROCE_WC_STATUS_SUCCESS;

always @* begin
    state_next = state_reg;
    is_db_next = is_db_reg;
    cqn_next = cqn_reg;
    cqe_next = cqe_reg;
    db_ci_next = db_ci_reg;
    db_sol_next = db_sol_reg;
    db_ci_only_next = db_ci_only_reg;
    eq_pi_next = eq_pi_reg;
    event_irq_next = event_irq_reg;
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
    stat_overrun_next = 1'b0;

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
                db_ci_only_next = s_db_ci_only;
                lookup_valid_next = 1'b1;
                state_next = STATE_LOOKUP;
            end
        end
        STATE_LOOKUP: begin
            if (s_ctx_lookup_valid) begin
                ctx_next = s_ctx_lookup_data;
                ctx_ok_next = s_ctx_lookup_status == 2'd0 && s_ctx_lookup_data[`HROCE_CQC_VALID];
                irq_next = 1'b0;
                event_irq_next = 1'b0;
                state_next = is_db_reg ? STATE_ARM : STATE_CQE;
            end
        end
        STATE_CQE: begin
            if (!ctx_ok_reg) begin
                stat_drop_next = 1'b1;
                state_next = STATE_IDLE;
            end else if (overrun) begin
                // in error since its overrun: nothing is written any more
                stat_overrun_next = 1'b1;
                state_next = STATE_IDLE;
            end else if (ring_full) begin
                // never over a CQE the driver has not read: the CQ goes to error instead
                stat_overrun_next = 1'b1;
                ctx_next[`HROCE_CQC_OVERRUN] = 1'b1;
                ctx_next[`HROCE_CQC_ARMED] = 1'b0;
                if (cfg_eq_enable) begin
                    cqe_next = 256'd0;
                    cqe_next[`HROCE_EQE_TYPE] = `HROCE_EVENT_CQ_ERR;
                    cqe_next[`HROCE_EQE_NUM] = cqn_reg;
                    cqe_next[`HROCE_EQE_OWNER] = ring_owner;
                    cqe_addr_next = ring_addr;
                    eq_pi_next = eq_pi_reg + 32'd1;
                    irq_next = 1'b1;
                    event_irq_next = 1'b1;
                    wr_req_valid_next = 1'b1;
                    wr_data_valid_next = 1'b1;
                    state_next = STATE_WRITE;
                end else begin
                    update_valid_next = 1'b1;
                    state_next = STATE_UPDATE;
                end
            end else begin
                cqe_next[`HROCE_CQE_OWNER] = ring_owner;
                cqe_addr_next = ring_addr;
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
                ctx_next[`HROCE_CQC_CI] = db_ci_reg;
                if (db_ci_only_reg) begin
                    // the consumer counter only: room in the ring, the arming as it was
                    update_valid_next = 1'b1;
                    state_next = STATE_UPDATE;
                end else if (pi != db_ci_reg) begin
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

    if (eq_restart) begin
        eq_pi_next = 32'd0;
    end
end

always @(posedge clk) begin
    state_reg <= state_next;
    is_db_reg <= is_db_next;
    cqn_reg <= cqn_next;
    cqe_reg <= cqe_next;
    db_ci_reg <= db_ci_next;
    db_sol_reg <= db_sol_next;
    db_ci_only_reg <= db_ci_only_next;
    eq_pi_reg <= eq_pi_next;
    event_irq_reg <= event_irq_next;
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
    stat_overrun_reg <= stat_overrun_next;

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
        stat_overrun_reg <= 1'b0;
        eq_pi_reg <= 32'd0;
        event_irq_reg <= 1'b0;
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

assign m_irq_vector = event_irq_reg ? cfg_eq_vector : ctx_reg[`HROCE_CQC_IRQ_VECTOR];
assign m_irq_valid = state_reg == STATE_IRQ;

assign stat_cqe = stat_cqe_reg;
assign stat_irq = stat_irq_reg;
assign stat_drop = stat_drop_reg;
assign stat_overrun = stat_overrun_reg;

endmodule

`resetall
