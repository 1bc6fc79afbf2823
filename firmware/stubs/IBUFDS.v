/*

Stub of IBUFDS, a differential input buffer (UG974): I/IB in, O out. For lint and
elaboration only.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module IBUFDS #
(
    parameter DQS_BIAS = "FALSE",
    parameter IOSTANDARD = "DEFAULT"
)
(
    output wire O,
    input  wire I,
    input  wire IB
);

assign O = I;

endmodule

`resetall
