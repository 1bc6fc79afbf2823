/*

RC responder, RECV completions that wait for their message's data: the control
(transport/resp_engine) writes a RECV's completion as it commits the message's last
packet, while the placement stage (transport/resp_place) may still walk and write that
message. The completion waits here, in order, until its data is in memory, and leaves
then with what became of it.

    push {CQN, CQE, job, message's PSNs} --> entries, in order, each: placed_count reaches
                                                job -> need = wr_committed
    head: need answered (wr_answered) --> out, as written, unless its QP has a fault
          (resp_place, by PSN):
          of a packet before its message's (the QP failed before it): WR_FLUSH_ERR
          of its message's, a list job's (its SEND walk failed): the WQE's error,
                                                LOC_LEN_ERR (short) or LOC_PROT_ERR
          of its message's, another (a write of its data refused): WR_FLUSH_ERR
          (a fault of a later message's packet leaves it as it is: its data is there)

A completion's job is the count of the placement jobs pushed up to its message's (its
last packet's job included): once the stage retired that many, the writes they committed
are among wr_committed, and once that many writes are answered the message is in memory.
Its QP's faults are then all known: the fault of a job comes as it retires, a refused
write's with its answer.

The control does not take a fault of a QP while a completion of that QP waits here
(q_holds), so the fault's NAK and flush go after it. A completion that took a list job's
fault as its own says so as it leaves (m_took_list): the flush that fault brings starts
after its WQE.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module resp_cqe #
(
    // log2 of the completions waiting
    parameter LOG = 2
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Completions in, each with its job count
     */
    input  wire [23:0]                   s_cqn,
    input  wire [255:0]                  s_data,
    input  wire [7:0]                    s_job,
    input  wire [23:0]                   s_first_psn,   // its message's packets
    input  wire [23:0]                   s_last_psn,
    input  wire                          s_valid,
    output wire                          s_room,
    output wire                          empty,

    /*
     * The placement stage's counts
     */
    input  wire [7:0]                    placed_count,
    input  wire [15:0]                   wr_committed,
    input  wire [15:0]                   wr_answered,

    /*
     * Whether a completion of QP q_qpn waits
     */
    input  wire [23:0]                   q_qpn,
    output wire                          q_holds,

    /*
     * The head's QP's faults (resp_place): one before its message's packets, one of them
     * (a list job's, short)
     */
    output wire [23:0]                   f_qpn,
    output wire [23:0]                   f_first_psn,
    output wire [23:0]                   f_last_psn,
    input  wire                          f_before,
    input  wire                          f_own,
    input  wire                          f_own_list,
    input  wire                          f_own_short,

    /*
     * Completions out
     */
    output wire [23:0]                   m_cqn,
    output wire [255:0]                  m_data,
    output wire                          m_valid,
    input  wire                          m_ready,
    output wire                          m_took_list
);

localparam N = 2**LOG;

reg [23:0] cqn_mem [0:N-1];
reg [47:0] psn_mem [0:N-1];
reg [255:0] data_mem [0:N-1];
reg [N*24-1:0] qpn_reg = {N*24{1'b0}};
reg [N*8-1:0] job_reg = {N*8{1'b0}};
reg [N*16-1:0] need_reg = {N*16{1'b0}};
reg [N-1:0] need_ok_reg = {N{1'b0}};
reg [LOG:0] wr_ptr_reg = {LOG+1{1'b0}};
reg [LOG:0] rd_ptr_reg = {LOG+1{1'b0}};

wire [LOG:0] count = wr_ptr_reg - rd_ptr_reg;
wire [LOG-1:0] head = rd_ptr_reg[LOG-1:0];
wire [LOG-1:0] tail = wr_ptr_reg[LOG-1:0];

reg [N-1:0] held, hit;
reg [LOG-1:0] k;
integer i;
always @* begin
    for (i = 0; i < N; i = i + 1) begin
        k = i[LOG-1:0] - head;
        held[i] = {1'b0, k} < count;
        hit[i] = held[i] && qpn_reg[i*24 +: 24] == q_qpn;
    end
end

// the head's fields (entry by entry, not at a computed offset)
reg [23:0] head_qpn;
reg [15:0] head_need;
reg head_need_ok;
integer h;
always @* begin
    head_qpn = 24'd0;
    head_need = 16'd0;
    head_need_ok = 1'b0;
    for (h = 0; h < N; h = h + 1) begin
        if (h[LOG-1:0] == head) begin
            head_qpn = qpn_reg[h*24 +: 24];
            head_need = need_reg[h*16 +: 16];
            head_need_ok = need_ok_reg[h];
        end
    end
end

// the stage answered the first need writes it committed (the counts wrap)
wire [15:0] left = head_need - wr_answered;
wire head_placed = head_need_ok && (left == 16'd0 || left[15]);
wire take = m_valid && m_ready;
wire push = s_valid && s_room;

integer w;
always @(posedge clk) begin
    for (w = 0; w < N; w = w + 1) begin
        if (push && w[LOG-1:0] == tail) begin
            qpn_reg[w*24 +: 24] <= s_data[`HROCE_CQE_QPN];
            job_reg[w*8 +: 8] <= s_job;
            need_ok_reg[w] <= 1'b0;
        end else if (held[w] && !need_ok_reg[w] && placed_count == job_reg[w*8 +: 8]) begin
            // its message's jobs are placed: their writes are among those committed
            need_reg[w*16 +: 16] <= wr_committed;
            need_ok_reg[w] <= 1'b1;
        end
    end
    if (push) begin
        cqn_mem[tail] <= s_cqn;
        psn_mem[tail] <= {s_first_psn, s_last_psn};
        data_mem[tail] <= s_data;
    end
    wr_ptr_reg <= wr_ptr_reg + {{LOG{1'b0}}, push};
    rd_ptr_reg <= rd_ptr_reg + {{LOG{1'b0}}, take};
    if (rst) begin
        wr_ptr_reg <= {LOG+1{1'b0}};
        rd_ptr_reg <= {LOG+1{1'b0}};
        need_ok_reg <= {N{1'b0}};
    end
end

// what became of the head's message
wire [255:0] head_data = data_mem[head];
wire [47:0] head_psns = psn_mem[head];
reg [255:0] out;
always @* begin
    out = head_data;
    if (f_before || f_own) begin
        out[`HROCE_CQE_OPCODE] = `HROCE_CQE_OP_RECV;
        out[`HROCE_CQE_STATUS] = f_before || !f_own_list ? `HROCE_WC_STATUS_WR_FLUSH_ERR :
                                 f_own_short ? `HROCE_WC_STATUS_LOC_LEN_ERR :
                                 `HROCE_WC_STATUS_LOC_PROT_ERR;
        out[`HROCE_CQE_BYTE_LEN] = 32'd0;
        out[`HROCE_CQE_IMM] = 32'd0;
        out[`HROCE_CQE_WITH_IMM] = 1'b0;
        out[`HROCE_CQE_SOLICITED] = 1'b0;
    end
end

assign s_room = count != N[LOG:0];
assign empty = count == {LOG+1{1'b0}};
assign q_holds = hit != {N{1'b0}};
assign f_qpn = head_qpn;
assign f_first_psn = head_psns[47:24];
assign f_last_psn = head_psns[23:0];
assign m_cqn = cqn_mem[head];
assign m_data = out;
assign m_valid = !empty && head_placed;
assign m_took_list = take && f_own_list;

endmodule

`resetall
