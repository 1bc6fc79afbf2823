/*

Invalidate fan-out: one invalidation from the command engine to every cache that may hold
the object, each with its own valid/ready handshake and done pulse.

The request is accepted when every addressed cache has taken it (in whatever cycles they
do), and done is reported once every addressed cache has finished. KIND_MASKn says which
targets hold objects of kind n (QP = 0, CQ = 1, MR = 2).

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module inval_fanout #
(
    // Number of caches
    parameter TARGETS = 5,
    // Targets of each kind of object, one bit per target
    parameter [TARGETS-1:0] KIND_MASK0 = 5'b00011,
    parameter [TARGETS-1:0] KIND_MASK1 = 5'b00100,
    parameter [TARGETS-1:0] KIND_MASK2 = 5'b11000
)
(
    input  wire                          clk,
    input  wire                          rst,

    input  wire [1:0]                    s_kind,
    input  wire [23:0]                   s_num,
    input  wire                          s_valid,
    output wire                          s_ready,
    output wire                          s_done,

    output wire [23:0]                   m_num,
    output wire [TARGETS-1:0]            m_valid,
    input  wire [TARGETS-1:0]            m_ready,
    input  wire [TARGETS-1:0]            m_done
);

reg [TARGETS-1:0] accepted_reg = {TARGETS{1'b0}};
reg [TARGETS-1:0] done_reg = {TARGETS{1'b0}};
reg busy_reg = 1'b0;

wire [TARGETS-1:0] mask = s_kind == 2'd0 ? KIND_MASK0 : s_kind == 2'd1 ? KIND_MASK1 :
                          s_kind == 2'd2 ? KIND_MASK2 : {TARGETS{1'b0}};
wire [TARGETS-1:0] accepted = accepted_reg | (m_valid & m_ready);
wire [TARGETS-1:0] done = done_reg | m_done;
wire all_accepted = (accepted & mask) == mask;
wire all_done = busy_reg && (done & mask) == mask;

always @(posedge clk) begin
    if (s_valid) begin
        busy_reg <= 1'b1;
    end
    if (s_valid && !all_accepted) begin
        accepted_reg <= accepted;
    end else begin
        accepted_reg <= {TARGETS{1'b0}};
    end
    if (busy_reg || s_valid) begin
        done_reg <= done;
    end
    if (all_done) begin
        busy_reg <= 1'b0;
        done_reg <= {TARGETS{1'b0}};
    end
    if (rst) begin
        accepted_reg <= {TARGETS{1'b0}};
        done_reg <= {TARGETS{1'b0}};
        busy_reg <= 1'b0;
    end
end

assign s_ready = s_valid && all_accepted;
assign s_done = all_done;
assign m_num = s_num;
assign m_valid = {TARGETS{s_valid}} & mask & ~accepted_reg;

endmodule

`resetall
