/*

MR translation arbiter: two clients of one mr_translate. A client holds the translator
from its request until the response that has last set, so the pieces of a range reach
the client that asked for them. Round robin between clients that wait.

The request side is a pass-through of the granted client (documented here: its ready is
the translator's).

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module mr_arb
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Client 0
     */
    input  wire [31:0]                   s0_req_key,
    input  wire [23:0]                   s0_req_pd,
    input  wire [63:0]                   s0_req_va,
    input  wire [31:0]                   s0_req_len,
    input  wire [3:0]                    s0_req_access,
    input  wire                          s0_req_check,
    input  wire                          s0_req_valid,
    output wire                          s0_req_ready,
    output wire [63:0]                   m0_resp_iova,
    output wire [15:0]                   m0_resp_len,
    output wire                          m0_resp_last,
    output wire [2:0]                    m0_resp_status,
    output wire                          m0_resp_valid,
    input  wire                          m0_resp_ready,

    /*
     * Client 1
     */
    input  wire [31:0]                   s1_req_key,
    input  wire [23:0]                   s1_req_pd,
    input  wire [63:0]                   s1_req_va,
    input  wire [31:0]                   s1_req_len,
    input  wire [3:0]                    s1_req_access,
    input  wire                          s1_req_check,
    input  wire                          s1_req_valid,
    output wire                          s1_req_ready,
    output wire [63:0]                   m1_resp_iova,
    output wire [15:0]                   m1_resp_len,
    output wire                          m1_resp_last,
    output wire [2:0]                    m1_resp_status,
    output wire                          m1_resp_valid,
    input  wire                          m1_resp_ready,

    /*
     * To mr_translate
     */
    output wire [31:0]                   m_req_key,
    output wire [23:0]                   m_req_pd,
    output wire [63:0]                   m_req_va,
    output wire [31:0]                   m_req_len,
    output wire [3:0]                    m_req_access,
    output wire                          m_req_check,
    output wire                          m_req_valid,
    input  wire                          m_req_ready,
    input  wire [63:0]                   s_resp_iova,
    input  wire [15:0]                   s_resp_len,
    input  wire                          s_resp_last,
    input  wire [2:0]                    s_resp_status,
    input  wire                          s_resp_valid,
    output wire                          s_resp_ready
);

reg busy_reg = 1'b0;      // a client holds the translator
reg grant_reg = 1'b0;     // which one
reg last_reg = 1'b1;      // the client served last

// the client that waits, the other one first if both do
wire pick = s1_req_valid && (!s0_req_valid || last_reg == 1'b0);
wire grant = busy_reg ? grant_reg : pick;
wire req_taken = m_req_valid && m_req_ready;
wire resp_done = s_resp_valid && s_resp_ready && s_resp_last;

always @(posedge clk) begin
    if (!busy_reg && req_taken) begin
        busy_reg <= 1'b1;
        grant_reg <= pick;
        last_reg <= pick;
    end
    if (busy_reg && resp_done) begin
        busy_reg <= 1'b0;
    end
    if (rst) begin
        busy_reg <= 1'b0;
        last_reg <= 1'b1;
    end
end

assign m_req_key = grant ? s1_req_key : s0_req_key;
assign m_req_pd = grant ? s1_req_pd : s0_req_pd;
assign m_req_va = grant ? s1_req_va : s0_req_va;
assign m_req_len = grant ? s1_req_len : s0_req_len;
assign m_req_access = grant ? s1_req_access : s0_req_access;
assign m_req_check = grant ? s1_req_check : s0_req_check;
// one request at a time: the next waits for the last piece of this one
assign m_req_valid = !busy_reg && (s0_req_valid || s1_req_valid);
assign s0_req_ready = !busy_reg && !pick && m_req_ready;
assign s1_req_ready = !busy_reg && pick && m_req_ready;

assign m0_resp_iova = s_resp_iova;
assign m0_resp_len = s_resp_len;
assign m0_resp_last = s_resp_last;
assign m0_resp_status = s_resp_status;
assign m0_resp_valid = busy_reg && !grant_reg && s_resp_valid;
assign m1_resp_iova = s_resp_iova;
assign m1_resp_len = s_resp_len;
assign m1_resp_last = s_resp_last;
assign m1_resp_status = s_resp_status;
assign m1_resp_valid = busy_reg && grant_reg && s_resp_valid;
assign s_resp_ready = busy_reg && (grant_reg ? m1_resp_ready : m0_resp_ready);

endmodule

`resetall
