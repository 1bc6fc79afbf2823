/*

Synchronous FIFO with a one-cycle fall-through, valid/ready on both sides: a word written
in one cycle is at the output the next (fifo_sync takes two).

Two ways to get there, by REG_OUTPUT:
- 1 (block RAM): the words wait in a simple dual-port RAM read through a register; a word
  that finds the RAM empty and the output free skips it through a bypass register. The
  output is a multiplexer between the RAM's read register and the bypass register.
- 0 (distributed RAM): the output is the RAM's asynchronous read at the read pointer, with
  no register at all (the cheapest for a shallow FIFO of wide words).

Throughput is one word per cycle. s_ready depends only on the FIFO's own state; m_ready
reaches the read pointer (and the RAM's read enable), as in fifo_sync.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module dma_fifo #
(
    // Width of a word
    parameter WIDTH = 8,
    // log2 of the number of words the RAM holds (REG_OUTPUT: the output holds one more)
    parameter ADDR_WIDTH = 4,
    // Registered output (block RAM), or the asynchronous read of a distributed RAM
    parameter REG_OUTPUT = 1
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
     * Status: words held, output included
     */
    output wire [ADDR_WIDTH+1:0] count
);

initial begin
    if (ADDR_WIDTH < 1) begin
        $error("Error: ADDR_WIDTH must be at least 1 (instance %m)");
        $finish;
    end
end

localparam DEPTH = 2**ADDR_WIDTH;

reg [WIDTH-1:0] mem [0:DEPTH-1];

reg [ADDR_WIDTH:0] wr_ptr_reg = 0, wr_ptr_next;
reg [ADDR_WIDTH:0] rd_ptr_reg = 0, rd_ptr_next;

wire ram_empty = wr_ptr_reg == rd_ptr_reg;
wire ram_full = wr_ptr_reg == {~rd_ptr_reg[ADDR_WIDTH], rd_ptr_reg[ADDR_WIDTH-1:0]};

assign s_ready = !ram_full;

generate
    if (REG_OUTPUT) begin : reg_output
        reg [WIDTH-1:0] ram_data_reg = {WIDTH{1'b0}};
        reg [WIDTH-1:0] byp_data_reg = {WIDTH{1'b0}};
        reg out_valid_reg = 1'b0, out_valid_next;
        reg out_byp_reg = 1'b0, out_byp_next;   // the output is the bypass register

        wire out_free = !out_valid_reg || m_ready;
        wire read = out_free && !ram_empty;
        wire bypass = out_free && ram_empty && s_valid;
        wire write = s_valid && !ram_full && !bypass;

        assign m_data = out_byp_reg ? byp_data_reg : ram_data_reg;
        assign m_valid = out_valid_reg;
        assign count = {1'b0, wr_ptr_reg - rd_ptr_reg} + {{ADDR_WIDTH+1{1'b0}}, out_valid_reg};

        always @* begin
            wr_ptr_next = wr_ptr_reg + {{ADDR_WIDTH{1'b0}}, write};
            rd_ptr_next = rd_ptr_reg + {{ADDR_WIDTH{1'b0}}, read};
            out_valid_next = read || bypass || (out_valid_reg && !m_ready);
            out_byp_next = out_free ? !read : out_byp_reg;
        end

        always @(posedge clk) begin
            if (write) begin
                mem[wr_ptr_reg[ADDR_WIDTH-1:0]] <= s_data;
            end
            if (read) begin
                ram_data_reg <= mem[rd_ptr_reg[ADDR_WIDTH-1:0]];
            end
            if (bypass) begin
                byp_data_reg <= s_data;
            end

            out_valid_reg <= out_valid_next;
            out_byp_reg <= out_byp_next;

            if (rst) begin
                out_valid_reg <= 1'b0;
                out_byp_reg <= 1'b0;
            end
        end
    end else begin : async_output
        wire write = s_valid && !ram_full;
        wire read = !ram_empty && m_ready;

        assign m_data = mem[rd_ptr_reg[ADDR_WIDTH-1:0]];
        assign m_valid = !ram_empty;
        assign count = {1'b0, wr_ptr_reg - rd_ptr_reg};

        always @* begin
            wr_ptr_next = wr_ptr_reg + {{ADDR_WIDTH{1'b0}}, write};
            rd_ptr_next = rd_ptr_reg + {{ADDR_WIDTH{1'b0}}, read};
        end

        always @(posedge clk) begin
            if (write) begin
                mem[wr_ptr_reg[ADDR_WIDTH-1:0]] <= s_data;
            end
        end
    end
endgenerate

always @(posedge clk) begin
    wr_ptr_reg <= wr_ptr_next;
    rd_ptr_reg <= rd_ptr_next;

    if (rst) begin
        wr_ptr_reg <= 0;
        rd_ptr_reg <= 0;
    end
end

endmodule

`resetall
