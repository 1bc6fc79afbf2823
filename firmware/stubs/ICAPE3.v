/*

Stub of the UltraScale+ ICAPE3 primitive (the internal configuration port), for lint and
elaboration only. Ports as in UG974, ICAPE3: CSIB (active-low select), RDWRB (0: write),
I[31:0] in, O[31:0] out, AVAIL (ready for a transfer), PRDONE/PRERROR (partial
reconfiguration status). The data is bit-swapped within each byte (UG570).

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module ICAPE3 #
(
    parameter [31:0] DEVICE_ID = 32'h03628093,
    parameter ICAP_AUTO_SWITCH = "DISABLE",
    parameter SIM_CFG_FILE_NAME = "NONE"
)
(
    output wire        AVAIL,
    output wire [31:0] O,
    output wire        PRDONE,
    output wire        PRERROR,
    input  wire        CLK,
    input  wire        CSIB,
    input  wire [31:0] I,
    input  wire        RDWRB
);

assign AVAIL = 1'b1;
assign O = 32'd0;
assign PRDONE = 1'b0;
assign PRERROR = 1'b0;

endmodule

`resetall
