/*

Synchronous FIFO whose newest word may be replaced while it waits: a message that
supersedes the one before it (the same QP's newer state) takes its place instead of a
new one, so a slow reader sees fewer, newer words.

    s_merge with s_valid: the word replaces the newest word held if that one has the same
    key (its KEY_WIDTH low bits) and is still in the RAM behind at least one other word
    (so that no read takes it meanwhile); else it is appended as usual

Otherwise as fifo_sync: first-word fall-through, a word written in one cycle is visible
at the output two cycles later, s_ready never depends on m_ready combinationally.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module fifo_merge #
(
    // Width of a word
    parameter WIDTH = 8,
    // log2 of the number of words the RAM holds (the output register holds one more)
    parameter ADDR_WIDTH = 3,
    // the low bits of a word that say which words may merge
    parameter KEY_WIDTH = 8
)
(
    input  wire                  clk,
    input  wire                  rst,

    /*
     * Input
     */
    input  wire [WIDTH-1:0]      s_data,
    input  wire                  s_merge,
    input  wire                  s_valid,
    output wire                  s_ready,

    /*
     * Output
     */
    output wire [WIDTH-1:0]      m_data,
    output wire                  m_valid,
    input  wire                  m_ready,

    /*
     * Status: words held, output register included; s_data would merge (with s_merge)
     */
    output wire [ADDR_WIDTH+1:0] count,
    output wire                  s_open
);

localparam DEPTH = 2**ADDR_WIDTH;

reg [WIDTH-1:0] mem [0:DEPTH-1];
reg [ADDR_WIDTH:0] wr_ptr_reg = 0, wr_ptr_next;
reg [ADDR_WIDTH:0] rd_ptr_reg = 0, rd_ptr_next;
reg [WIDTH-1:0] m_data_reg = {WIDTH{1'b0}};
reg m_valid_reg = 1'b0, m_valid_next;
reg [KEY_WIDTH-1:0] tail_key_reg = {KEY_WIDTH{1'b0}};

wire [ADDR_WIDTH:0] held = wr_ptr_reg - rd_ptr_reg;
wire full = held[ADDR_WIDTH];
wire empty = held == 0;
// the newest word is in the RAM behind another one: a read this cycle takes the older
wire open = held >= 2 && tail_key_reg == s_data[KEY_WIDTH-1:0];
wire merge = s_valid && s_merge && open;
wire write = s_valid && !merge && !full;
wire read = !empty && (!m_valid_reg || m_ready);

assign s_ready = !full || (s_merge && open);
assign m_data = m_data_reg;
assign m_valid = m_valid_reg;
assign count = {1'b0, held} + {{ADDR_WIDTH+1{1'b0}}, m_valid_reg};
assign s_open = open;

always @* begin
    wr_ptr_next = wr_ptr_reg + {{ADDR_WIDTH{1'b0}}, write};
    rd_ptr_next = rd_ptr_reg + {{ADDR_WIDTH{1'b0}}, read};
    m_valid_next = read || (m_valid_reg && !m_ready);
end

always @(posedge clk) begin
    if (write) begin
        mem[wr_ptr_reg[ADDR_WIDTH-1:0]] <= s_data;
    end else if (merge) begin
        mem[wr_ptr_reg[ADDR_WIDTH-1:0] - 1'b1] <= s_data;
    end
    if (write || merge) begin
        tail_key_reg <= s_data[KEY_WIDTH-1:0];
    end
    if (read) begin
        m_data_reg <= mem[rd_ptr_reg[ADDR_WIDTH-1:0]];
    end

    wr_ptr_reg <= wr_ptr_next;
    rd_ptr_reg <= rd_ptr_next;
    m_valid_reg <= m_valid_next;

    if (rst) begin
        wr_ptr_reg <= 0;
        rd_ptr_reg <= 0;
        m_valid_reg <= 1'b0;
    end
end

endmodule

`resetall
