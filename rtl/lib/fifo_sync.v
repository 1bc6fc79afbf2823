/*

Synchronous FIFO, first-word fall-through, valid/ready on both sides.

The storage is a plain array read into an output register, so that synthesis infers
block or distributed RAM. Throughput is one word per cycle; a word written in one cycle
is visible at the output two cycles later. s_ready depends only on the FIFO's own state,
never combinationally on m_ready.

OUTPUT_REG = 0, for small FIFOs on a latency path: the output is read from the array
without a register (distributed RAM only), and a word is visible the cycle after it is
written; the output's data and valid then come from the array and the pointers.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module fifo_sync #
(
    // Width of a word
    parameter WIDTH = 8,
    // log2 of the number of words the RAM holds (the output register holds one more)
    parameter ADDR_WIDTH = 4,
    // 1: the output is registered (block RAM possible); 0: read from the array
    parameter OUTPUT_REG = 1
)
(
    input  wire                  clk,
    input  wire                  rst,

    /*
     * Input
     */
    input  wire [WIDTH-1:0]      s_data,
    input  wire                  s_valid,
    output wire                  s_ready,

    /*
     * Output
     */
    output wire [WIDTH-1:0]      m_data,
    output wire                  m_valid,
    input  wire                  m_ready,

    /*
     * Status: words held, output register included
     */
    output wire [ADDR_WIDTH+1:0] count
);

localparam DEPTH = 2**ADDR_WIDTH;

reg [WIDTH-1:0] mem [0:DEPTH-1];

reg [ADDR_WIDTH:0] wr_ptr_reg = 0, wr_ptr_next;
reg [ADDR_WIDTH:0] rd_ptr_reg = 0, rd_ptr_next;

wire full = wr_ptr_reg == {~rd_ptr_reg[ADDR_WIDTH], rd_ptr_reg[ADDR_WIDTH-1:0]};
wire empty = wr_ptr_reg == rd_ptr_reg;
wire write = s_valid && !full;
wire read;

assign s_ready = !full;

always @* begin
    wr_ptr_next = wr_ptr_reg + {{ADDR_WIDTH{1'b0}}, write};
    rd_ptr_next = rd_ptr_reg + {{ADDR_WIDTH{1'b0}}, read};
end

always @(posedge clk) begin
    if (write) begin
        mem[wr_ptr_reg[ADDR_WIDTH-1:0]] <= s_data;
    end

    wr_ptr_reg <= wr_ptr_next;
    rd_ptr_reg <= rd_ptr_next;

    if (rst) begin
        wr_ptr_reg <= 0;
        rd_ptr_reg <= 0;
    end
end

generate
    if (OUTPUT_REG != 0) begin : registered
        reg [WIDTH-1:0] m_data_reg = {WIDTH{1'b0}};
        reg m_valid_reg = 1'b0;

        assign read = !empty && (!m_valid_reg || m_ready);
        assign m_data = m_data_reg;
        assign m_valid = m_valid_reg;
        assign count = {1'b0, wr_ptr_reg - rd_ptr_reg} + {{ADDR_WIDTH+1{1'b0}}, m_valid_reg};

        always @(posedge clk) begin
            if (read) begin
                m_data_reg <= mem[rd_ptr_reg[ADDR_WIDTH-1:0]];
            end
            m_valid_reg <= read || (m_valid_reg && !m_ready);

            if (rst) begin
                m_valid_reg <= 1'b0;
            end
        end
    end else begin : direct
        assign read = !empty && m_ready;
        assign m_data = mem[rd_ptr_reg[ADDR_WIDTH-1:0]];
        assign m_valid = !empty;
        assign count = {1'b0, wr_ptr_reg - rd_ptr_reg};
    end
endgenerate

endmodule

`resetall
