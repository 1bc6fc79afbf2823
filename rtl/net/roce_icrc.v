/*

RoCEv2 ICRC engine: the invariant CRC (IBTA Annex A17) of a stream of frames, one beat per
cycle, with one result per frame a fixed 3 + log2(KEEP_WIDTH) cycles after the cycle that
gives its last beat (6 at 64 bits, 9 at 512 bits).

The caller gives the covered bytes, the variant fields already set to ones; the masked LRH
(8 bytes of ones) is folded into the seed. Over GF(2) a beat of W bytes maps the CRC state
s to M_W*s ^ D(data), so:

- uncovered lanes are forced to zero and only the 32-bit state is carried round the loop;
  D, a wide XOR tree, is computed ahead of the loop in two stages (64-bit partial sums,
  then their sum);
- a first beat whose first covered lane is k starts from S_k = A^-k(seed) (A: the advance
  over one zero byte), which the k zero lanes before that lane advance to the seed; the
  table holds M_W*S_k, the state after such a beat with all-zero data;
- a last beat with m trailing uncovered lanes advanced the state over m zero bytes too
  many: log2(KEEP_WIDTH) stages after the loop undo them with A^-1, A^-2, A^-4, ... as
  the bits of m select, and the last one complements.

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

localparam LANE_BITS = $clog2(KEEP_WIDTH);
// D is summed in partial sums of 64 data bits: each XORs ~32 bits and 8 keep bits
localparam CHUNK_WIDTH = 64;
localparam CHUNKS = DATA_WIDTH / CHUNK_WIDTH;
// the undo stages' count bits still to apply: after stage i, at [i*L - i*(i+1)/2 +: L-1-i]
localparam TRAIL_BITS = LANE_BITS * (LANE_BITS - 1) / 2;

localparam [32*32*`ROCE_ICRC_UNDO_STEPS-1:0] UNDO_ROWS = `ROCE_ICRC_UNDO;

// check configuration
initial begin
    if (DATA_WIDTH != 64 && DATA_WIDTH != 128 && DATA_WIDTH != 256 && DATA_WIDTH != 512) begin
        $error("Error: DATA_WIDTH must be 64, 128, 256 or 512 (instance %m)");
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
reg [LANE_BITS-1:0] s1_trail_reg = {LANE_BITS{1'b0}}, s1_trail_next;
reg s1_valid_reg = 1'b0, s1_valid_next;
reg s1_first_reg = 1'b0, s1_first_next;
reg s1_last_reg = 1'b0, s1_last_next;
reg s1_any_reg = 1'b0, s1_any_next;

/*
 * Stage 2: the beat's term, D(data) ^ (first beat ? its starting state : 0)
 */
reg [31:0] s2_term_reg = 32'd0, s2_term_next;
reg [LANE_BITS-1:0] s2_trail_reg = {LANE_BITS{1'b0}}, s2_trail_next;
reg s2_valid_reg = 1'b0, s2_valid_next;
reg s2_first_reg = 1'b0, s2_first_next;
reg s2_last_reg = 1'b0, s2_last_next;
reg s2_any_reg = 1'b0, s2_any_next;

/*
 * Stage 3, the loop: the CRC state; the frame that ended on the beat just taken
 */
reg [31:0] state_reg = 32'd0, state_next;
reg [LANE_BITS-1:0] done_trail_reg = {LANE_BITS{1'b0}}, done_trail_next;
reg done_reg = 1'b0, done_next;

/*
 * Stages 4 and on: undo of the trailing lanes, A^-(2^i) in stage i if bit i of their count
 * is set; the last stage holds the complemented result
 */
reg [32*LANE_BITS-1:0] undo_state_reg = {32*LANE_BITS{1'b0}};
reg [TRAIL_BITS-1:0] undo_trail_reg = {TRAIL_BITS{1'b0}};
reg [LANE_BITS-1:0] undo_valid_reg = {LANE_BITS{1'b0}};

assign m_icrc = undo_state_reg[32*LANE_BITS-1 -: 32];
assign m_valid = undo_valid_reg[LANE_BITS-1];

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
    // trailing uncovered lanes: KEEP_WIDTH-1-k = ~k for the last covered lane k
    s1_trail_next = {LANE_BITS{1'b0}};
    for (k = 0; k < KEEP_WIDTH; k = k + 1) begin
        s1_trail_next = s1_trail_next | ({LANE_BITS{keep_end[k]}} & ~k[LANE_BITS-1:0]);
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

// the undo stages: stage i takes slot i of these, its count bits starting at bit 0
wire [32*LANE_BITS-1:0] undo_state_in = {undo_state_reg[32*(LANE_BITS-1)-1:0], state_reg};
wire [TRAIL_BITS+LANE_BITS-1:0] undo_trail_in = {undo_trail_reg, done_trail_reg};
wire [32*LANE_BITS-1:0] undo_state_next;
wire [TRAIL_BITS-1:0] undo_trail_next;

generate
    for (n = 0; n < LANE_BITS; n = n + 1) begin : undo
        wire [31:0] stage_in = undo_state_in[n*32 +: 32];
        wire apply = undo_trail_in[n*LANE_BITS - n*(n-1)/2];
        wire [31:0] retreated;
        wire [31:0] stage_out = apply ? retreated : stage_in;

        for (j = 0; j < 32; j = j + 1) begin : row
            assign retreated[j] = ^(stage_in & UNDO_ROWS[(n*32 + j)*32 +: 32]);
        end

        if (n < LANE_BITS - 1) begin : pass
            assign undo_state_next[n*32 +: 32] = stage_out;
            assign undo_trail_next[n*LANE_BITS - n*(n+1)/2 +: LANE_BITS-1-n] =
                undo_trail_in[n*LANE_BITS - n*(n-1)/2 + 1 +: LANE_BITS-1-n];
        end else begin : result
            assign undo_state_next[n*32 +: 32] = ~stage_out;
        end
    end
endgenerate

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

    undo_state_reg <= undo_state_next;
    undo_trail_reg <= undo_trail_next;
    undo_valid_reg <= {undo_valid_reg[LANE_BITS-2:0], done_reg};

    if (rst) begin
        s1_valid_reg <= 1'b0;
        s2_valid_reg <= 1'b0;
        done_reg <= 1'b0;
        undo_valid_reg <= {LANE_BITS{1'b0}};
    end
end

endmodule

`resetall
