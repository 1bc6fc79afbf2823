/*

Stub of the UltraScale+ STARTUPE3 primitive, for lint and elaboration only (the real one
comes from Vivado's UNISIM library). Ports as in UG974 (UltraScale Architecture Libraries
Guide), STARTUPE3: after configuration the user drives the configuration flash through it:
USRCCLKO is CCLK, DO/DTS drive D[3:0] (DTS high: input), DI reads them, FCSBO is FCS_B.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module STARTUPE3 #
(
    parameter PROG_USR = "FALSE",
    parameter real SIM_CCLK_FREQ = 0.0
)
(
    output wire        CFGCLK,
    output wire        CFGMCLK,
    output wire [3:0]  DI,
    output wire        EOS,
    output wire        PREQ,
    input  wire [3:0]  DO,
    input  wire [3:0]  DTS,
    input  wire        FCSBO,
    input  wire        FCSBTS,
    input  wire        GSR,
    input  wire        GTS,
    input  wire        KEYCLEARB,
    input  wire        PACK,
    input  wire        USRCCLKO,
    input  wire        USRCCLKTS,
    input  wire        USRDONEO,
    input  wire        USRDONETS
);

assign CFGCLK = 1'b0;
assign CFGMCLK = 1'b0;
assign DI = 4'd0;
assign EOS = 1'b1;
assign PREQ = 1'b0;

endmodule

`resetall
