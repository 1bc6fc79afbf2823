/*

Round-robin arbiter of the DMA engines: grants one of the requesting ports, starting the
search after the port granted last, so that every port with a request waiting is served
within PORTS grants.

The grant is combinational from req; the search position moves only when the grant is
taken (take high), so a grant not taken stays put while its request stays up.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module dma_arb #
(
    // Number of ports
    parameter PORTS = 4,
    // Width of the index of a port
    parameter INDEX_WIDTH = PORTS > 1 ? $clog2(PORTS) : 1
)
(
    input  wire                   clk,
    input  wire                   rst,

    /*
     * Requests, and whether the grant of this cycle is taken
     */
    input  wire [PORTS-1:0]       req,
    input  wire                   take,

    /*
     * Grant: one-hot, valid, and the port's index
     */
    output wire [PORTS-1:0]       grant,
    output wire                   grant_valid,
    output wire [INDEX_WIDTH-1:0] grant_index
);

initial begin
    if (PORTS < 1 || (1 << INDEX_WIDTH) < PORTS) begin
        $error("Error: INDEX_WIDTH too small for PORTS (instance %m)");
        $finish;
    end
end

localparam [PORTS-1:0] ONE = 1;

// the ports after the one granted last
reg [PORTS-1:0] mask_reg = {PORTS{1'b0}}, mask_next;

wire [PORTS-1:0] masked = req & mask_reg;
wire [PORTS-1:0] pool = |masked ? masked : req;
// the lowest port of the pool
wire [PORTS-1:0] lowest = pool & (~pool + ONE);

reg [INDEX_WIDTH-1:0] index;
integer i;

always @* begin
    index = {INDEX_WIDTH{1'b0}};
    for (i = 0; i < PORTS; i = i + 1) begin
        if (lowest[i]) begin
            index = index | i[INDEX_WIDTH-1:0];
        end
    end
end

assign grant = lowest;
assign grant_valid = |req;
assign grant_index = index;

always @* begin
    mask_next = mask_reg;
    if (take && grant_valid) begin
        // every port above the one granted
        mask_next = ~(lowest | (lowest - ONE));
    end
end

always @(posedge clk) begin
    mask_reg <= mask_next;

    if (rst) begin
        mask_reg <= {PORTS{1'b0}};
    end
end

endmodule

`resetall
