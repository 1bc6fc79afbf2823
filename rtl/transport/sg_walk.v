/*

Scatter-gather walker: the one place where a range of a message becomes DMA chunks. Every
engine that moves payload walks with it: the requester for the payload it reads and for
the READ responses it places, the responder for the SENDs and WRITEs it places, and the
responder's transmit side for the READ responses it reads.

    command {first SGE, offset, bytes} --> SGE list (read by index from the owner)
        --> pieces: the rest of an SGE, at most what is left --> mr_translate
        --> chunks {IOVA, length, last} --> the owner's commit FIFO
        --> done {status, short, end position}

The SGE list is the owner's: a WQE's SGEs read combinationally at sge_index (a register),
or a single entry of a remote range (its VA, its key, a length of 2^32 - 1). The offset may
lie past the first SGEs: SGEs are skipped while the offset is at or past their end, one a
cycle, so a walk that resumes inside a message needs no seek of its own; an SGE of length
zero is skipped the same way.

The commit rule: a walk's chunks may reach memory only if its done says OK (status OK and
not short). The owner holds them in a fifo_commit and commits or discards on done, with its
header or its payload action: so a key, PD, access or bounds violation, an unreadable
translation table, or a message longer than its SGEs never writes or sends a byte of the
packet. done is offered on the cycle its cause is seen (the last response beat, or the
SGE that is missing) and waits for m_done_ready; the last chunk goes with it, so each waits
for the other's ready (an owner's m_chunk_ready is its FIFO's room, m_done_ready its
state: neither depends on the walker's valids). m_chunk_valid is a write: it is high only
with m_chunk_ready, so an owner writes its FIFO on it alone (every owner did, and a full
FIFO took a chunk over its oldest: test_resp_place, a SEND of 62 chunks). A failed
translation ends its request (mr_translate's verdict is a last beat).

The end position (m_done_sge, m_done_off) is where the next walk of the same list goes on
from: the next packet of a message.

One walk at a time: s_cmd_ready is high while no walk is under way (busy low).

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module sg_walk #
(
    // bits of a walk's length and of a chunk's (a walk is at most one packet: 4 KiB)
    parameter LEN_WIDTH = 13
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * A walk: LEN bytes from byte OFF of SGE SGE on, of a list of NUM_SGE entries
     */
    input  wire [4:0]                    s_cmd_sge,
    input  wire [31:0]                   s_cmd_off,
    input  wire [LEN_WIDTH-1:0]          s_cmd_len,
    input  wire [7:0]                    s_cmd_num_sge,
    input  wire [23:0]                   s_cmd_pd,
    input  wire [3:0]                    s_cmd_access,
    input  wire                          s_cmd_valid,
    output wire                          s_cmd_ready,
    output wire                          busy,

    /*
     * The owner's SGE list, read at sge_index
     */
    output wire [4:0]                    sge_index,
    input  wire [63:0]                   sge_addr,
    input  wire [31:0]                   sge_len,
    input  wire [31:0]                   sge_key,

    /*
     * MR translation
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
     * Chunks, to the owner's commit FIFO (last: the walk's last chunk)
     */
    output wire [63:0]                   m_chunk_iova,
    output wire [LEN_WIDTH-1:0]          m_chunk_len,
    output wire                          m_chunk_last,
    output wire                          m_chunk_valid,
    input  wire                          m_chunk_ready,

    /*
     * The walk's end: status (MR_XLATE), short (the SGEs ended first), end position
     */
    output wire [2:0]                    m_done_status,
    output wire                          m_done_short,
    output wire [4:0]                    m_done_sge,
    output wire [31:0]                   m_done_off,
    output wire                          m_done_valid,
    input  wire                          m_done_ready
);

localparam [1:0]
    S_IDLE = 2'd0,
    S_PIECE = 2'd1,
    S_XL_REQ = 2'd2,
    S_XL_RESP = 2'd3;

localparam [2:0] XL_OK = `HROCE_MR_XLATE_OK;

reg [1:0] state_reg = S_IDLE, state_next;
reg [4:0] sge_reg = 5'd0, sge_next;
reg [31:0] off_reg = 32'd0, off_next;
reg [LEN_WIDTH-1:0] left_reg = {LEN_WIDTH{1'b0}}, left_next;   // bytes not yet translated
reg [LEN_WIDTH-1:0] piece_reg = {LEN_WIDTH{1'b0}}, piece_next; // the translation's bytes
reg [7:0] num_sge_reg = 8'd0, num_sge_next;
reg [23:0] pd_reg = 24'd0, pd_next;
reg [3:0] access_reg = 4'd0, access_next;

// the rest of the current SGE, and the piece of it this walk takes
wire [31:0] sge_rest = sge_len - off_reg;
wire sge_past = off_reg >= sge_len;
wire sge_missing = {3'd0, sge_reg} >= num_sge_reg;
wire [LEN_WIDTH-1:0] piece = sge_rest > {{32-LEN_WIDTH{1'b0}}, left_reg} ? left_reg :
                             sge_rest[LEN_WIDTH-1:0];

// the walk ends: nothing left, or the SGEs ran out (in S_PIECE); the translation's last
// beat when it was the walk's last piece, or a violation (in S_XL_RESP)
wire resp_ok = s_mr_resp_status == XL_OK;
wire resp_final = !resp_ok || (s_mr_resp_last && piece_reg == left_reg);
wire piece_final = left_reg == {LEN_WIDTH{1'b0}} || sge_missing;
// (the last beat's done waits for room for its chunk: they go together)
wire done_valid = (state_reg == S_PIECE && piece_final) ||
                  (state_reg == S_XL_RESP && s_mr_resp_valid && resp_final && m_chunk_ready);
// a response beat moves when its chunk (if any) and its done (if any) can go
wire resp_take = state_reg == S_XL_RESP && s_mr_resp_valid && m_chunk_ready &&
                 (!resp_final || m_done_ready);

always @* begin
    state_next = state_reg;
    sge_next = sge_reg;
    off_next = off_reg;
    left_next = left_reg;
    piece_next = piece_reg;
    num_sge_next = num_sge_reg;
    pd_next = pd_reg;
    access_next = access_reg;

    case (state_reg)
        S_IDLE: begin
            if (s_cmd_valid) begin
                sge_next = s_cmd_sge;
                off_next = s_cmd_off;
                left_next = s_cmd_len;
                num_sge_next = s_cmd_num_sge;
                pd_next = s_cmd_pd;
                access_next = s_cmd_access;
                state_next = S_PIECE;
            end
        end
        S_PIECE: begin
            if (piece_final) begin
                if (m_done_ready) begin
                    state_next = S_IDLE;
                end
            end else if (sge_past) begin
                // this SGE ends at or before the offset: the offset goes on in the next
                sge_next = sge_reg + 5'd1;
                off_next = off_reg - sge_len;
            end else begin
                // the piece's translation is asked for at once (S_XL_REQ holds it while
                // the translator is not ready)
                piece_next = piece;
                state_next = m_mr_req_ready ? S_XL_RESP : S_XL_REQ;
            end
        end
        S_XL_REQ: begin
            if (m_mr_req_ready) begin
                state_next = S_XL_RESP;
            end
        end
        S_XL_RESP: begin
            if (resp_take && resp_final) begin
                state_next = S_IDLE;
            end else if (resp_take && s_mr_resp_last) begin
                off_next = off_reg + {{32-LEN_WIDTH{1'b0}}, piece_reg};
                left_next = left_reg - piece_reg;
                state_next = S_PIECE;
            end
        end
        default: state_next = S_IDLE;
    endcase
end

always @(posedge clk) begin
    state_reg <= state_next;
    sge_reg <= sge_next;
    off_reg <= off_next;
    left_reg <= left_next;
    piece_reg <= piece_next;
    num_sge_reg <= num_sge_next;
    pd_reg <= pd_next;
    access_reg <= access_next;

    if (rst) begin
        state_reg <= S_IDLE;
    end
end

assign s_cmd_ready = state_reg == S_IDLE;
assign busy = state_reg != S_IDLE;

assign sge_index = sge_reg;

assign m_mr_req_key = sge_key;
assign m_mr_req_pd = pd_reg;
assign m_mr_req_va = sge_addr + {32'd0, off_reg};
// (in S_PIECE, the piece found this cycle)
wire piece_asks = state_reg == S_PIECE && !piece_final && !sge_past;
assign m_mr_req_len = {{32-LEN_WIDTH{1'b0}}, piece_asks ? piece : piece_reg};
assign m_mr_req_access = access_reg;
assign m_mr_req_valid = state_reg == S_XL_REQ || piece_asks;
assign s_mr_resp_ready = resp_take;

assign m_chunk_iova = s_mr_resp_iova;
assign m_chunk_len = s_mr_resp_len[LEN_WIDTH-1:0];
assign m_chunk_last = s_mr_resp_last && piece_reg == left_reg;
assign m_chunk_valid = state_reg == S_XL_RESP && s_mr_resp_valid && resp_ok &&
                       m_chunk_ready && s_mr_resp_len != 16'd0 &&
                       (!resp_final || m_done_ready);

assign m_done_status = state_reg == S_XL_RESP ? s_mr_resp_status : XL_OK;
assign m_done_short = state_reg == S_PIECE && left_reg != {LEN_WIDTH{1'b0}};
assign m_done_sge = sge_reg;
assign m_done_off = (state_reg == S_XL_RESP && resp_ok) ?
                    off_reg + {{32-LEN_WIDTH{1'b0}}, piece_reg} : off_reg;
assign m_done_valid = done_valid;

endmodule

`resetall
