/*

Stub of BUFG, a global clock buffer (UG974). For lint and elaboration only.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module BUFG
(
    output wire O,
    input  wire I
);

assign O = I;

endmodule

`resetall
