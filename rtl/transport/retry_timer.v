/*

Retransmission timers of the requester's QPs: which QPs have a timer running, and when the
next one may expire.

A timer per QP would cost a 64-bit comparator per QP. Instead the deadlines stay in the QP
contexts (the requester's TIMER_START and the QP's timeout), and this block keeps only a
bit per QP (armed: the QP has requests in flight or waits out an RNR NAK) and the earliest
deadline it may hold (next_deadline):

    requester --(arm QPN + deadline | disarm QPN)--> bitmap (BRAM, a bit per QPN)
                                                     next_deadline = min(next_deadline, deadline)
    time_now >= next_deadline --> a pass over the bitmap: each armed QPN --> requester
    requester looks at the QP's context: expired -> it retransmits (or fails the WQE);
              every QPN it is handed is answered with an update: disarm, or arm with the
              QP's real deadline, which becomes part of the next pass's minimum

Deadlines only move later between two passes (progress restarts a timer; a rewind arms it
from now), except where the requester arms a QP with an earlier one (an RNR wait, or the
first request of an idle QP), which it tells this block. So next_deadline never passes a
real deadline, and a pass runs only when a timer may really have expired: the cost of
thousands of idle QPs is the bitmap, and of busy ones a context lookup per pass. The
resolution is the time a pass takes to reach a QP: two cycles per 64 QPNs of the bitmap
and a lookup per armed QP.

m_deadline tells the simulation when it next has to evaluate cycles for the timers: all
ones while no QP is armed, 0 while a pass or an update is under way, else next_deadline.
A simulated NIC whose core and buses are otherwise quiet may jump its clock to it.

After reset the bitmap is cleared a word per cycle (BUSY until then).

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module retry_timer #
(
    // log2 of the QPNs served: QPNs 0 .. 2^QPN_WIDTH - 1 (the core's LOG_MAX_QP)
    parameter QPN_WIDTH = 14,
    // log2 of the bits of a bitmap word (a pass reads a word per two cycles)
    parameter WORD_LOG = 6
)
(
    input  wire                 clk,
    input  wire                 rst,

    input  wire [63:0]          time_now,

    /*
     * Updates from the requester: arm (with the QP's deadline) or disarm a QPN
     */
    input  wire [23:0]          s_upd_qpn,
    input  wire                 s_upd_arm,
    input  wire [63:0]          s_upd_deadline,
    input  wire                 s_upd_valid,
    output wire                 s_upd_ready,

    /*
     * Armed QPNs for the requester to look at, during a pass (each answered by an update)
     */
    output wire [23:0]          m_exp_qpn,
    output wire                 m_exp_valid,
    input  wire                 m_exp_ready,

    /*
     * When the timers next need time: all ones none armed, 0 busy, else the earliest time
     */
    output wire [63:0]          m_deadline,
    // QPNs armed
    output wire [QPN_WIDTH:0]   armed_count
);

localparam WORD_WIDTH = 2**WORD_LOG;
localparam ADDR_WIDTH = QPN_WIDTH - WORD_LOG;
localparam WORDS = 2**ADDR_WIDTH;

initial begin
    if (QPN_WIDTH <= WORD_LOG || QPN_WIDTH > 24) begin
        $error("Error: %m: QPN_WIDTH must be above WORD_LOG and at most 24 (%0d, %0d)",
               QPN_WIDTH, WORD_LOG);
        $finish;
    end
end

localparam [2:0]
    S_INIT = 3'd0,
    S_IDLE = 3'd1,
    S_UPD_WRITE = 3'd2,
    S_SCAN_READ = 3'd3,
    S_SCAN_BITS = 3'd4;

localparam [63:0] NEVER = {64{1'b1}};

reg [2:0] state_reg = S_INIT, state_next;
reg [WORD_WIDTH-1:0] bitmap [0:WORDS-1];
reg [WORD_WIDTH-1:0] rd_data_reg = {WORD_WIDTH{1'b0}};

reg [ADDR_WIDTH-1:0] addr_reg = {ADDR_WIDTH{1'b0}}, addr_next;  // init and pass word
reg in_pass_reg = 1'b0, in_pass_next;
reg [WORD_WIDTH-1:0] word_reg = {WORD_WIDTH{1'b0}}, word_next;  // bits of the pass word left
reg [63:0] next_reg = NEVER, next_next;       // earliest deadline, outside a pass
reg [63:0] pass_min_reg = NEVER, pass_min_next;  // earliest deadline answered in this pass
reg [QPN_WIDTH:0] count_reg = {(QPN_WIDTH+1){1'b0}}, count_next;

reg [23:0] upd_qpn_reg = 24'd0, upd_qpn_next;
reg upd_arm_reg = 1'b0, upd_arm_next;
reg [63:0] upd_deadline_reg = 64'd0, upd_deadline_next;

reg mem_rd_en;
reg [ADDR_WIDTH-1:0] mem_rd_addr;
reg mem_wr_en;
reg [ADDR_WIDTH-1:0] mem_wr_addr;
reg [WORD_WIDTH-1:0] mem_wr_data;

// the lowest armed bit of the pass word
reg [WORD_LOG-1:0] low_bit;
integer i;

always @* begin
    low_bit = {WORD_LOG{1'b0}};
    for (i = WORD_WIDTH - 1; i >= 0; i = i - 1) begin
        if (word_reg[i]) begin
            low_bit = i[WORD_LOG-1:0];
        end
    end
end

wire [ADDR_WIDTH-1:0] upd_word = upd_qpn_reg[QPN_WIDTH-1:WORD_LOG];
wire [WORD_LOG-1:0] upd_bit = upd_qpn_reg[WORD_LOG-1:0];
wire [WORD_WIDTH-1:0] upd_mask = {{(WORD_WIDTH-1){1'b0}}, 1'b1} << upd_bit;
wire upd_was_armed = (rd_data_reg & upd_mask) != {WORD_WIDTH{1'b0}};
// a QPN beyond the bitmap is never armed (the core reports LOG_MAX_QP = QPN_WIDTH)
wire upd_in_range = (upd_qpn_reg >> QPN_WIDTH) == 24'd0;

// updates go before the pass: they are short, and the requester waits on none
wire take_upd = s_upd_valid && (state_reg == S_IDLE || state_reg == S_SCAN_BITS) &&
                !(state_reg == S_SCAN_BITS && m_exp_valid && m_exp_ready);
wire start_pass = state_reg == S_IDLE && !s_upd_valid && count_reg != 0 &&
                  time_now >= next_reg;

always @* begin
    state_next = state_reg;
    addr_next = addr_reg;
    in_pass_next = in_pass_reg;
    word_next = word_reg;
    next_next = next_reg;
    pass_min_next = pass_min_reg;
    count_next = count_reg;
    upd_qpn_next = upd_qpn_reg;
    upd_arm_next = upd_arm_reg;
    upd_deadline_next = upd_deadline_reg;

    mem_rd_en = 1'b0;
    mem_rd_addr = upd_word;
    mem_wr_en = 1'b0;
    mem_wr_addr = upd_word;
    mem_wr_data = rd_data_reg;

    case (state_reg)
        S_INIT: begin
            mem_wr_en = 1'b1;
            mem_wr_addr = addr_reg;
            mem_wr_data = {WORD_WIDTH{1'b0}};
            addr_next = addr_reg + 1'b1;
            if (addr_reg == WORDS - 1) begin
                state_next = S_IDLE;
            end
        end
        S_IDLE, S_SCAN_BITS: begin
            if (take_upd) begin
                // read the update's word; S_UPD_WRITE writes it back changed
                upd_qpn_next = s_upd_qpn;
                upd_arm_next = s_upd_arm;
                upd_deadline_next = s_upd_deadline;
                mem_rd_en = 1'b1;
                mem_rd_addr = s_upd_qpn[QPN_WIDTH-1:WORD_LOG];
                state_next = S_UPD_WRITE;
            end else if (start_pass) begin
                in_pass_next = 1'b1;
                pass_min_next = NEVER;
                addr_next = {ADDR_WIDTH{1'b0}};
                mem_rd_en = 1'b1;
                mem_rd_addr = {ADDR_WIDTH{1'b0}};
                state_next = S_SCAN_READ;
            end else if (state_reg == S_SCAN_BITS) begin
                if (m_exp_valid && m_exp_ready) begin
                    word_next = word_reg & ~({{(WORD_WIDTH-1){1'b0}}, 1'b1} << low_bit);
                end else if (word_reg == {WORD_WIDTH{1'b0}}) begin
                    if (addr_reg == WORDS - 1) begin
                        // the pass is over: what it found is the next minimum
                        in_pass_next = 1'b0;
                        next_next = pass_min_reg;
                        state_next = S_IDLE;
                    end else begin
                        addr_next = addr_reg + 1'b1;
                        mem_rd_en = 1'b1;
                        mem_rd_addr = addr_reg + 1'b1;
                        state_next = S_SCAN_READ;
                    end
                end
            end
        end
        S_UPD_WRITE: begin
            if (upd_in_range) begin
                mem_wr_en = 1'b1;
                mem_wr_data = upd_arm_reg ? rd_data_reg | upd_mask : rd_data_reg & ~upd_mask;
                if (upd_arm_reg && !upd_was_armed) begin
                    count_next = count_reg + 1'b1;
                end else if (!upd_arm_reg && upd_was_armed) begin
                    count_next = count_reg - 1'b1;
                end
                if (upd_arm_reg) begin
                    if (in_pass_reg) begin
                        if (upd_deadline_reg < pass_min_reg) begin
                            pass_min_next = upd_deadline_reg;
                        end
                    end else if (upd_deadline_reg < next_reg) begin
                        next_next = upd_deadline_reg;
                    end
                end
            end
            if (in_pass_reg) begin
                // the pass word in word_reg is kept: a bit set meanwhile waits for the
                // next pass (its deadline is in the minimum), a bit cleared is answered
                // once more
                state_next = S_SCAN_BITS;
            end else begin
                state_next = S_IDLE;
            end
        end
        S_SCAN_READ: begin
            state_next = S_SCAN_BITS;
            word_next = rd_data_reg;
        end
        default: state_next = S_IDLE;
    endcase
end

always @(posedge clk) begin
    state_reg <= state_next;
    addr_reg <= addr_next;
    in_pass_reg <= in_pass_next;
    word_reg <= word_next;
    next_reg <= next_next;
    pass_min_reg <= pass_min_next;
    count_reg <= count_next;
    upd_qpn_reg <= upd_qpn_next;
    upd_arm_reg <= upd_arm_next;
    upd_deadline_reg <= upd_deadline_next;

    if (mem_rd_en) begin
        rd_data_reg <= bitmap[mem_rd_addr];
    end
    if (mem_wr_en) begin
        bitmap[mem_wr_addr] <= mem_wr_data;
    end

    if (rst) begin
        state_reg <= S_INIT;
        addr_reg <= {ADDR_WIDTH{1'b0}};
        in_pass_reg <= 1'b0;
        next_reg <= NEVER;
        count_reg <= {(QPN_WIDTH+1){1'b0}};
    end
end

assign s_upd_ready = take_upd;

assign m_exp_qpn = {{(24-QPN_WIDTH){1'b0}}, addr_reg, low_bit};
assign m_exp_valid = state_reg == S_SCAN_BITS && word_reg != {WORD_WIDTH{1'b0}};

assign m_deadline = count_reg == 0 ? NEVER :
                    (state_reg != S_IDLE || in_pass_reg || s_upd_valid) ? 64'd0 : next_reg;
assign armed_count = count_reg;

endmodule

`resetall
