/*

Stub of IBUFDS_GTE4, the GT reference clock input buffer (UG974): I/IB the pad pair, CEB
(active-low enable), O the clock to the transceivers, ODIV2 a copy for the fabric (through
a BUFG_GT). For lint and elaboration only.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module IBUFDS_GTE4 #
(
    parameter [0:0] REFCLK_EN_TX_PATH = 1'b0,
    parameter [1:0] REFCLK_HROW_CK_SEL = 2'b00,
    parameter [1:0] REFCLK_ICNTL_RX = 2'b00
)
(
    output wire O,
    output wire ODIV2,
    input  wire CEB,
    input  wire I,
    input  wire IB
);

assign O = I;
assign ODIV2 = I;

endmodule

`resetall
