/*

The lanes of a beat that hold the fields the ICRC reads as ones (IBTA Annex A17): the IPv4
TOS, TTL and header checksum, the UDP checksum, and the BTH byte with FECN and BECN.
Combinational; shared by the receive and transmit paths, which both feed roce_icrc.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module roce_icrc_mask #
(
    // Byte lanes of a beat
    parameter KEEP_WIDTH = 64
)
(
    // Offset of the beat's lane 0 from the IP header's first byte (mod 2^16)
    input  wire [15:0]           ip_offset,
    // Lanes that hold a masked field
    output wire [KEEP_WIDTH-1:0] mask
);

genvar g;
generate
    for (g = 0; g < KEEP_WIDTH; g = g + 1) begin : lane
        // lane g holds IP byte ip_offset + g: compare ip_offset with K - g, no adder
        localparam [15:0] LANE = g;
        localparam [15:0] K1 = 16'd1 - LANE, K8 = 16'd8 - LANE, K10 = 16'd10 - LANE;
        localparam [15:0] K11 = 16'd11 - LANE, K26 = 16'd26 - LANE, K27 = 16'd27 - LANE;
        localparam [15:0] K32 = 16'd32 - LANE;

        assign mask[g] = ip_offset == K1 || ip_offset == K8 || ip_offset == K10 ||
                         ip_offset == K11 || ip_offset == K26 || ip_offset == K27 ||
                         ip_offset == K32;
    end
endgenerate

endmodule

`resetall
