/*

Stub of BUFGCE_DIV, a global clock buffer with a divider (UG974): O = I / BUFGCE_DIVIDE,
CE and CLR as in the guide. For lint and elaboration only (here O follows I).

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module BUFGCE_DIV #
(
    parameter BUFGCE_DIVIDE = 1
)
(
    output wire O,
    input  wire CE,
    input  wire CLR,
    input  wire I
);

assign O = I;

endmodule

`resetall
