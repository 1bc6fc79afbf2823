/*

FIFO with commit: words written go out only once committed; words written since the last
commit can be discarded instead. The engines put a packet's DMA chunks here as they
translate its pieces, and commit them only once every piece passed its checks, so that
nothing of a packet that fails reaches memory.

The output is read from the array without a register (distributed RAM): a committed word
is at the output the cycle after its commit. The writer checks room (used) itself.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module fifo_commit #
(
    // Width of a word
    parameter WIDTH = 64,
    // log2 of the words held
    parameter ADDR_WIDTH = 5
)
(
    input  wire                  clk,
    input  wire                  rst,

    /*
     * Input: a word (there must be room), commit everything written so far (this
     * cycle's word included), or discard what was written since the last commit (this
     * cycle's word included)
     */
    input  wire [WIDTH-1:0]      s_data,
    input  wire                  s_valid,
    input  wire                  commit,
    input  wire                  discard,

    /*
     * Output: committed words
     */
    output wire [WIDTH-1:0]      m_data,
    output wire                  m_valid,
    input  wire                  m_ready,

    /*
     * Status: words held, committed or not; nothing at all
     */
    output wire [ADDR_WIDTH:0]   used,
    output wire                  empty
);

localparam DEPTH = 2**ADDR_WIDTH;

reg [WIDTH-1:0] mem [0:DEPTH-1];

reg [ADDR_WIDTH:0] wr_ptr_reg = 0, wr_ptr_next;
reg [ADDR_WIDTH:0] commit_ptr_reg = 0, commit_ptr_next;
reg [ADDR_WIDTH:0] rd_ptr_reg = 0, rd_ptr_next;

always @* begin
    wr_ptr_next = wr_ptr_reg;
    commit_ptr_next = commit_ptr_reg;
    rd_ptr_next = rd_ptr_reg + {{ADDR_WIDTH{1'b0}}, m_valid && m_ready};

    if (discard) begin
        wr_ptr_next = commit_ptr_reg;
    end else if (s_valid) begin
        wr_ptr_next = wr_ptr_reg + 1;
    end
    if (commit) begin
        commit_ptr_next = wr_ptr_next;
    end
end

always @(posedge clk) begin
    if (s_valid && !discard) begin
        mem[wr_ptr_reg[ADDR_WIDTH-1:0]] <= s_data;
    end

    wr_ptr_reg <= wr_ptr_next;
    commit_ptr_reg <= commit_ptr_next;
    rd_ptr_reg <= rd_ptr_next;

    if (rst) begin
        wr_ptr_reg <= 0;
        commit_ptr_reg <= 0;
        rd_ptr_reg <= 0;
    end
end

assign m_data = mem[rd_ptr_reg[ADDR_WIDTH-1:0]];
assign m_valid = rd_ptr_reg != commit_ptr_reg;
assign used = wr_ptr_reg - rd_ptr_reg;
assign empty = wr_ptr_reg == rd_ptr_reg;

endmodule

`resetall
