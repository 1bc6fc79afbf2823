/*

RQ doorbells not yet in their QPs' contexts, merged by QP: the responder takes a doorbell
in a cycle, and writes it into the context when it holds that context anyway.

    doorbell (QPN, RQ_PI) --> the entry of its QP: its RQ_PI replaced (the newest counts)
                          \-> else a free entry
    query (QPN) ------------> the QP's entry, if any: the RQ_PI the responder uses
    take -------------------> the queried entry leaves (its RQ_PI is in the context now)
    drain ------------------> the first entry, handed out (the responder writes it, as a
                              doorbell was written before: a lookup, RQ_PI, an update)

A doorbell used to cost the responder's control a context lookup and an update (five
cycles) for each RECV the host posted. Now a doorbell only writes an entry here, and the
control writes the entry's RQ_PI into the context with the next update it makes of that QP
(a SEND's, which consumes a RECV), so that a QP that sends and receives in turn costs no
cycle for its doorbells. The control drains an entry on its own (the old way) when the
table is full, when it has nothing else to do, and while a command waits for it (hold:
the table is empty once the responder is idle, so that every doorbell taken before a
command is in its context before the command runs; no doorbell is taken while hold is
high, as before).

Every entry's QPN is compared at once, with the doorbell's and with the query's. A
doorbell merged into an entry in the cycle it leaves (taken or drained) keeps the entry,
with the new RQ_PI: the context got the one before. Entries are written one by one, not at
a computed offset (Yosys makes shifters of that).

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module rq_db_merge #
(
    // log2 of the entries
    parameter LOG = 4
)
(
    input  wire                          clk,
    input  wire                          rst,
    // no doorbell is taken (a command waits)
    input  wire                          hold,
    output wire                          empty,
    output wire                          full,

    /*
     * RQ doorbells: the QP's new RQ_PI
     */
    input  wire [23:0]                   s_db_qpn,
    input  wire [15:0]                   s_db_index,
    input  wire                          s_db_valid,
    output wire                          s_db_ready,

    /*
     * Query: QP q_qpn's entry; take: it leaves (in the cycle it is used)
     */
    input  wire [23:0]                   q_qpn,
    output wire                          q_hit,
    output wire [15:0]                   q_index,
    input  wire                          q_take,

    /*
     * Drain: an entry handed out
     */
    output wire [23:0]                   m_qpn,
    output wire [15:0]                   m_index,
    output wire                          m_valid,
    input  wire                          m_ready
);

localparam N = 2**LOG;

reg [N-1:0] valid_reg = {N{1'b0}};
reg [N*24-1:0] qpn_reg = {N*24{1'b0}};
reg [N*16-1:0] index_reg = {N*16{1'b0}};

reg [N-1:0] db_match, q_match;
reg [LOG-1:0] q_sel, free_sel, head_sel;
reg db_hit, free_any;
reg [LOG-1:0] db_sel;
integer i;
always @* begin
    db_hit = 1'b0;
    db_sel = {LOG{1'b0}};
    q_sel = {LOG{1'b0}};
    free_any = 1'b0;
    free_sel = {LOG{1'b0}};
    head_sel = {LOG{1'b0}};
    for (i = N - 1; i >= 0; i = i - 1) begin
        db_match[i] = valid_reg[i] && qpn_reg[i*24 +: 24] == s_db_qpn;
        q_match[i] = valid_reg[i] && qpn_reg[i*24 +: 24] == q_qpn;
        if (db_match[i]) begin
            db_hit = 1'b1;
            db_sel = i[LOG-1:0];
        end
        if (q_match[i]) begin
            q_sel = i[LOG-1:0];
        end
        if (!valid_reg[i]) begin
            free_any = 1'b1;
            free_sel = i[LOG-1:0];
        end
        if (valid_reg[i]) begin
            head_sel = i[LOG-1:0];
        end
    end
end

wire leave_q = q_take && q_match != {N{1'b0}};
wire leave_m = m_valid && m_ready;
wire take_db = s_db_valid && !hold && (db_hit || free_any);
wire [LOG-1:0] db_slot = db_hit ? db_sel : free_sel;

integer w;
always @(posedge clk) begin
    for (w = 0; w < N; w = w + 1) begin
        // (a doorbell merged into the entry that leaves keeps it)
        if ((leave_q && w[LOG-1:0] == q_sel) || (leave_m && w[LOG-1:0] == head_sel)) begin
            valid_reg[w] <= 1'b0;
        end
        if (take_db && w[LOG-1:0] == db_slot) begin
            valid_reg[w] <= 1'b1;
            qpn_reg[w*24 +: 24] <= s_db_qpn;
            index_reg[w*16 +: 16] <= s_db_index;
        end
    end
    if (rst) begin
        valid_reg <= {N{1'b0}};
    end
end

assign empty = valid_reg == {N{1'b0}};
assign full = valid_reg == {N{1'b1}};
assign s_db_ready = take_db;
assign q_hit = q_match != {N{1'b0}};
assign q_index = index_reg[q_sel*16 +: 16];
assign m_qpn = qpn_reg[head_sel*24 +: 24];
assign m_index = index_reg[head_sel*16 +: 16];
assign m_valid = !empty;

endmodule

`resetall
