/*

Event counters: one 64-bit counter per input pulse, read as a flat vector (what the
register file's counter window reads). A counter never wraps in practice: 64 bits at one
event per cycle of 250 MHz last over two thousand years.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module stat_counters #
(
    // Number of counters
    parameter COUNTERS = 8
)
(
    input  wire                          clk,
    input  wire                          rst,

    input  wire [COUNTERS-1:0]           stat_pulse,
    output wire [COUNTERS*64-1:0]        count
);

reg [63:0] count_reg [0:COUNTERS-1];

integer i;

always @(posedge clk) begin
    for (i = 0; i < COUNTERS; i = i + 1) begin
        if (stat_pulse[i]) begin
            count_reg[i] <= count_reg[i] + 64'd1;
        end
        if (rst) begin
            count_reg[i] <= 64'd0;
        end
    end
end

genvar g;
generate
    for (g = 0; g < COUNTERS; g = g + 1) begin : out
        assign count[g*64 +: 64] = count_reg[g];
    end
endgenerate

endmodule

`resetall
