/*

FIFO whose waiting words can be dropped by key: each word carries a key (a QPN) beside its
data, and drop_valid marks every word held whose key is drop_key, and one written in the
same cycle with that key, as dropped (m_drop: its reader discards it). A word may also be
written dropped (s_drop). The stages that take jobs in order use it: when a job of a QP
fails, the QP's jobs queued behind it must not run (transport/req_build, resp_place).

The words held and a side field of each are output at once, for what the owner must
know of every word it still holds (req_build: the WQE slots its jobs still read). The
output is read from the array without a register; the writer checks room (count).

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module fifo_drop #
(
    // Width of a word's data, key and side field
    parameter WIDTH = 8,
    parameter KEY_WIDTH = 24,
    parameter SIDE_WIDTH = 1,
    // log2 of the words held
    parameter ADDR_WIDTH = 2
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Input: a word (there must be room)
     */
    input  wire [WIDTH-1:0]              s_data,
    input  wire [KEY_WIDTH-1:0]          s_key,
    input  wire [SIDE_WIDTH-1:0]         s_side,
    input  wire                          s_drop,
    input  wire                          s_valid,

    /*
     * Output: the oldest word (m_ready takes it)
     */
    output wire [WIDTH-1:0]              m_data,
    output wire [KEY_WIDTH-1:0]          m_key,
    output wire [SIDE_WIDTH-1:0]         m_side,
    output wire                          m_drop,
    output wire                          m_valid,
    input  wire                          m_ready,

    /*
     * The words of a key dropped
     */
    input  wire [KEY_WIDTH-1:0]          drop_key,
    input  wire                          drop_valid,

    /*
     * Status: words held (a mask of the entries, and their side fields)
     */
    output wire [ADDR_WIDTH:0]           count,
    output wire [2**ADDR_WIDTH-1:0]      held,
    output wire [2**ADDR_WIDTH*SIDE_WIDTH-1:0] side
);

localparam DEPTH = 2**ADDR_WIDTH;

reg [WIDTH-1:0] mem [0:DEPTH-1];
reg [DEPTH*KEY_WIDTH-1:0] key_reg = {DEPTH*KEY_WIDTH{1'b0}};
reg [DEPTH*SIDE_WIDTH-1:0] side_reg = {DEPTH*SIDE_WIDTH{1'b0}};
reg [DEPTH-1:0] drop_reg = {DEPTH{1'b0}}, drop_next;
reg [ADDR_WIDTH:0] wr_ptr_reg = {ADDR_WIDTH+1{1'b0}};
reg [ADDR_WIDTH:0] rd_ptr_reg = {ADDR_WIDTH+1{1'b0}};

wire [ADDR_WIDTH-1:0] head = rd_ptr_reg[ADDR_WIDTH-1:0];
wire [ADDR_WIDTH-1:0] tail = wr_ptr_reg[ADDR_WIDTH-1:0];

// the entries held: at or after the head, before the tail
reg [DEPTH-1:0] held_mask;
reg [ADDR_WIDTH-1:0] k;
integer i;
always @* begin
    for (i = 0; i < DEPTH; i = i + 1) begin
        k = i[ADDR_WIDTH-1:0] - head;
        held_mask[i] = {1'b0, k} < count;
    end
end

integer j;
always @* begin
    drop_next = drop_reg;
    for (j = 0; j < DEPTH; j = j + 1) begin
        if (drop_valid && held_mask[j] && key_reg[j*KEY_WIDTH +: KEY_WIDTH] == drop_key) begin
            drop_next[j] = 1'b1;
        end
    end
    if (s_valid) begin
        drop_next[tail] = s_drop || (drop_valid && s_key == drop_key);
    end
end

// (keys and side fields written entry by entry, not at a computed offset: Yosys makes a
// shifter of that)
integer w;
always @(posedge clk) begin
    if (s_valid) begin
        mem[tail] <= s_data;
    end
    for (w = 0; w < DEPTH; w = w + 1) begin
        if (s_valid && w[ADDR_WIDTH-1:0] == tail) begin
            key_reg[w*KEY_WIDTH +: KEY_WIDTH] <= s_key;
            side_reg[w*SIDE_WIDTH +: SIDE_WIDTH] <= s_side;
        end
    end
    drop_reg <= drop_next;
    wr_ptr_reg <= wr_ptr_reg + {{ADDR_WIDTH{1'b0}}, s_valid};
    rd_ptr_reg <= rd_ptr_reg + {{ADDR_WIDTH{1'b0}}, m_valid && m_ready};
    if (rst) begin
        wr_ptr_reg <= {ADDR_WIDTH+1{1'b0}};
        rd_ptr_reg <= {ADDR_WIDTH+1{1'b0}};
    end
end

reg [KEY_WIDTH-1:0] head_key;
reg [SIDE_WIDTH-1:0] head_side;
integer r;
always @* begin
    head_key = {KEY_WIDTH{1'b0}};
    head_side = {SIDE_WIDTH{1'b0}};
    for (r = 0; r < DEPTH; r = r + 1) begin
        if (r[ADDR_WIDTH-1:0] == head) begin
            head_key = key_reg[r*KEY_WIDTH +: KEY_WIDTH];
            head_side = side_reg[r*SIDE_WIDTH +: SIDE_WIDTH];
        end
    end
end

assign m_data = mem[head];
assign m_key = head_key;
assign m_side = head_side;
assign m_drop = drop_reg[head];
assign m_valid = wr_ptr_reg != rd_ptr_reg;
assign count = wr_ptr_reg - rd_ptr_reg;
assign held = held_mask;
assign side = side_reg;

endmodule

`resetall
