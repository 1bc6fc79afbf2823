/*

RoCEv2 ICRC engine: the invariant CRC (IBTA Annex A17) of a stream of frames, one beat per
cycle, with one result per frame a fixed 5 cycles after the cycle that gives its last
beat.

The caller gives the covered bytes, the variant fields already set to ones; the masked LRH
(8 bytes of ones) is folded into the seed. Over GF(2) a beat of W bytes maps the CRC state
s to M_W*s ^ D(data), so:

- uncovered lanes are forced to zero and only the 32-bit state is carried round the loop;
  D, a wide XOR tree, is computed ahead of the loop in two stages (64-bit partial sums,
  then their sum);
- a first beat whose first covered lane is k starts from S_k = A^-k(seed) (A: the advance
  over one zero byte), which the k zero lanes before that lane advance to the seed; the
  table holds M_W*S_k, the state after such a beat with all-zero data;
- a last beat with m trailing uncovered lanes (up to 63) advanced the state over m zero
  bytes too many: two stages after the loop undo them, A^-v for the low octal digit v of
  m, then A^-8v for the high one (seven products each and a choice of eight), and the
  second complements. (A stage per bit of m, as before, took 9 cycles at 512 bits; the
  latency counts twice in a short frame's one-way time: in the sender's last beat and in
  the receiver's verdict.)

A beat with no covered lane leaves the state alone (a first one sets it to the seed), so a
frame may end with such a beat after a full one. The tables come from scripts/gen_crc32.py.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "roce_icrc_tables.vh"

module roce_icrc #
(
    // Width of s_data in bits: 64, 128, 256 or 512 (the widths scripts/gen_crc32.py emits)
    parameter DATA_WIDTH = 512,
    // Width of s_keep: one bit per byte lane
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8)
)
(
    input  wire                  clk,
    input  wire                  rst,

    /*
     * Bytes covered by the ICRC, lane 0 first, invariant-masked fields already set to ones.
     * s_keep marks covered lanes: contiguous; leading lanes may be uncovered only on the
     * first beat of a frame (s_first), trailing lanes only on its last (s_last). A beat
     * may be both. No back-pressure: a beat is taken whenever s_valid is high.
     */
    input  wire [DATA_WIDTH-1:0] s_data,
    input  wire [KEEP_WIDTH-1:0] s_keep,
    input  wire                  s_valid,
    input  wire                  s_first,
    input  wire                  s_last,

    /*
     * One result per frame, in frame order: the ICRC as it goes on the wire, its first
     * byte in [7:0]
     */
    output wire [31:0]           m_icrc,
    output wire                  m_valid
);

// D is summed in partial sums of 64 data bits: each XORs ~32 bits and 8 keep bits
localparam CHUNK_WIDTH = 64;
localparam CHUNKS = DATA_WIDTH / CHUNK_WIDTH;
// the trailing count: two octal digits, one for each undo stage (the tables' digits 1 to 7)
localparam TRAIL_WIDTH = 6;
localparam LANES_LAST = KEEP_WIDTH - 1;
localparam [TRAIL_WIDTH-1:0] LANE_MASK = LANES_LAST[TRAIL_WIDTH-1:0];
localparam DIGITS = 7;

localparam [32*32*DIGITS*2-1:0] UNDO_ROWS = `ROCE_ICRC_UNDO;

// check configuration
initial begin
    if (DATA_WIDTH != 64 && DATA_WIDTH != 128 && DATA_WIDTH != 256 && DATA_WIDTH != 512) begin
        $error("Error: DATA_WIDTH must be 64, 128, 256 or 512 (instance %m)");
        $finish;
    end

    if (`ROCE_ICRC_UNDO_RADIX != 3 || `ROCE_ICRC_UNDO_STAGES != 2) begin
        $error("Error: the undo tables must be two stages of octal digits (instance %m)");
        $finish;
    end

    if (KEEP_WIDTH * 8 != DATA_WIDTH) begin
        $error("Error: KEEP_WIDTH must be DATA_WIDTH/8 (instance %m)");
        $finish;
    end
end

genvar n, j;

/*
 * The tables for this width: row j of each is the mask of the inputs that feed state bit j
 */
wire [32*DATA_WIDTH-1:0] data_rows;  // D: the beat's data
wire [32*32-1:0]         state_rows; // M_W: the state before the beat
wire [32*KEEP_WIDTH-1:0] first_rows; // M_W*S_k: the first covered lane k, one-hot

generate
    if (DATA_WIDTH == 64) begin : w64
        assign data_rows = `ROCE_ICRC_W64_DATA;
        assign state_rows = `ROCE_ICRC_W64_STATE;
        assign first_rows = `ROCE_ICRC_W64_FIRST;
    end else if (DATA_WIDTH == 128) begin : w128
        assign data_rows = `ROCE_ICRC_W128_DATA;
        assign state_rows = `ROCE_ICRC_W128_STATE;
        assign first_rows = `ROCE_ICRC_W128_FIRST;
    end else if (DATA_WIDTH == 256) begin : w256
        assign data_rows = `ROCE_ICRC_W256_DATA;
        assign state_rows = `ROCE_ICRC_W256_STATE;
        assign first_rows = `ROCE_ICRC_W256_FIRST;
    end else if (DATA_WIDTH == 512) begin : w512
        assign data_rows = `ROCE_ICRC_W512_DATA;
        assign state_rows = `ROCE_ICRC_W512_STATE;
        assign first_rows = `ROCE_ICRC_W512_FIRST;
    end else begin : unsupported
        // stopped by the check above
        assign data_rows = {32*DATA_WIDTH{1'b0}};
        assign state_rows = {32*32{1'b0}};
        assign first_rows = {32*KEEP_WIDTH{1'b0}};
    end
endgenerate

/*
 * Stage 1: partial sums of D over the covered lanes; the first beat's starting state
 */
reg [32*CHUNKS-1:0] s1_part_reg = {32*CHUNKS{1'b0}};
reg [31:0] s1_seed_reg = 32'd0, s1_seed_next;
reg [TRAIL_WIDTH-1:0] s1_trail_reg = {TRAIL_WIDTH{1'b0}}, s1_trail_next;
reg s1_valid_reg = 1'b0, s1_valid_next;
reg s1_first_reg = 1'b0, s1_first_next;
reg s1_last_reg = 1'b0, s1_last_next;
reg s1_any_reg = 1'b0, s1_any_next;

/*
 * Stage 2: the beat's term, D(data) ^ (first beat ? its starting state : 0)
 */
reg [31:0] s2_term_reg = 32'd0, s2_term_next;
reg [TRAIL_WIDTH-1:0] s2_trail_reg = {TRAIL_WIDTH{1'b0}}, s2_trail_next;
reg s2_valid_reg = 1'b0, s2_valid_next;
reg s2_first_reg = 1'b0, s2_first_next;
reg s2_last_reg = 1'b0, s2_last_next;
reg s2_any_reg = 1'b0, s2_any_next;

/*
 * Stage 3, the loop: the CRC state; the frame that ended on the beat just taken
 */
reg [31:0] state_reg = 32'd0, state_next;
reg [TRAIL_WIDTH-1:0] done_trail_reg = {TRAIL_WIDTH{1'b0}}, done_trail_next;
reg done_reg = 1'b0, done_next;

/*
 * Stages 4 and 5: undo of the trailing lanes, A^-v for the low digit v of their count,
 * then A^-8v for the high one and the complement
 */
reg [31:0] undo_state_reg = 32'd0;
reg [2:0] undo_high_reg = 3'd0;
reg undo_valid_reg = 1'b0;
reg [31:0] result_reg = 32'd0;
reg result_valid_reg = 1'b0;

assign m_icrc = result_reg;
assign m_valid = result_valid_reg;

// the covered bytes, uncovered lanes zeroed; the first and last covered lanes, one-hot
wire [DATA_WIDTH-1:0] covered_data;
wire [KEEP_WIDTH-1:0] keep_start = s_keep & ~{s_keep[KEEP_WIDTH-2:0], 1'b0};
wire [KEEP_WIDTH-1:0] keep_end = s_keep & ~{1'b0, s_keep[KEEP_WIDTH-1:1]};

wire [32*CHUNKS-1:0] part;   // partial sums of D, chunk c at [c*32 +: 32]
wire [31:0] first_state;     // M_W*S_k
wire [31:0] state_advanced;  // M_W*state_reg

generate
    for (n = 0; n < KEEP_WIDTH; n = n + 1) begin : lane
        assign covered_data[n*8 +: 8] = s_data[n*8 +: 8] & {8{s_keep[n]}};
    end

    for (j = 0; j < 32; j = j + 1) begin : row
        for (n = 0; n < CHUNKS; n = n + 1) begin : chunk
            assign part[n*32 + j] = ^(covered_data[n*CHUNK_WIDTH +: CHUNK_WIDTH] &
                                      data_rows[j*DATA_WIDTH + n*CHUNK_WIDTH +: CHUNK_WIDTH]);
        end

        assign first_state[j] = |(keep_start & first_rows[j*KEEP_WIDTH +: KEEP_WIDTH]);
        assign state_advanced[j] = ^(state_reg & state_rows[j*32 +: 32]);
    end
endgenerate

integer k;

always @* begin
    // stage 1
    s1_seed_next = 32'd0;
    if (s_first) begin
        s1_seed_next = |s_keep ? first_state : `ROCE_ICRC_SEED;
    end
    // trailing uncovered lanes: KEEP_WIDTH-1-k = ~k (in the lane bits) for the last
    // covered lane k
    s1_trail_next = {TRAIL_WIDTH{1'b0}};
    for (k = 0; k < KEEP_WIDTH; k = k + 1) begin
        s1_trail_next = s1_trail_next |
                        ({TRAIL_WIDTH{keep_end[k]}} & ~k[TRAIL_WIDTH-1:0] & LANE_MASK);
    end
    s1_valid_next = s_valid;
    s1_first_next = s_first;
    s1_last_next = s_last;
    s1_any_next = |s_keep;

    // stage 2
    s2_term_next = s1_seed_reg;
    for (k = 0; k < CHUNKS; k = k + 1) begin
        s2_term_next = s2_term_next ^ s1_part_reg[k*32 +: 32];
    end
    s2_trail_next = s1_trail_reg;
    s2_valid_next = s1_valid_reg;
    s2_first_next = s1_first_reg;
    s2_last_next = s1_last_reg;
    s2_any_next = s1_any_reg;

    // stage 3: a beat without covered lanes has a zero term and leaves the state alone
    state_next = state_reg;
    if (s2_valid_reg) begin
        if (s2_first_reg) begin
            state_next = s2_term_reg;
        end else if (s2_any_reg) begin
            state_next = state_advanced ^ s2_term_reg;
        end
    end
    done_trail_next = s2_trail_reg;
    done_next = s2_valid_reg && s2_last_reg;
end

// A^-(v << 3*stage) s (v = 0: s itself)
function [31:0] retreat;
    input integer stage;
    input [2:0] v;
    input [31:0] s;
    integer d, r;
    begin
        retreat = s;
        for (d = 1; d <= DIGITS; d = d + 1) begin
            if (v == d[2:0]) begin
                for (r = 0; r < 32; r = r + 1) begin
                    retreat[r] = ^(s & UNDO_ROWS[((stage*DIGITS + d - 1)*32 + r)*32 +: 32]);
                end
            end
        end
    end
endfunction

always @(posedge clk) begin
    // only a beat's partial sums are worth a register load (and, in simulation, the work)
    if (s_valid) begin
        s1_part_reg <= part;
    end
    s1_seed_reg <= s1_seed_next;
    s1_trail_reg <= s1_trail_next;
    s1_valid_reg <= s1_valid_next;
    s1_first_reg <= s1_first_next;
    s1_last_reg <= s1_last_next;
    s1_any_reg <= s1_any_next;

    s2_term_reg <= s2_term_next;
    s2_trail_reg <= s2_trail_next;
    s2_valid_reg <= s2_valid_next;
    s2_first_reg <= s2_first_next;
    s2_last_reg <= s2_last_next;
    s2_any_reg <= s2_any_next;

    state_reg <= state_next;
    done_trail_reg <= done_trail_next;
    done_reg <= done_next;

    undo_state_reg <= retreat(0, done_trail_reg[2:0], state_reg);
    undo_high_reg <= done_trail_reg[5:3];
    undo_valid_reg <= done_reg;
    result_reg <= ~retreat(1, undo_high_reg, undo_state_reg);
    result_valid_reg <= undo_valid_reg;

    if (rst) begin
        s1_valid_reg <= 1'b0;
        s2_valid_reg <= 1'b0;
        done_reg <= 1'b0;
        undo_valid_reg <= 1'b0;
        result_valid_reg <= 1'b0;
    end
end

endmodule

`resetall
