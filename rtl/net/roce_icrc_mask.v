/*

The lanes of a beat that hold the fields the ICRC reads as ones (IBTA Annex A17): over
IPv4 the TOS, TTL and header checksum; over IPv6 the traffic class, flow label and hop
limit (the traffic class's high nibble shares the first byte with the version, which
stays: that lane is masked on its low nibble alone); then the UDP checksum and the BTH
byte with FECN and BECN. Combinational; shared by the receive and transmit paths, which
both feed roce_icrc.

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
    // The IP header is IPv6 (else IPv4)
    input  wire                  ipv6,
    // Lanes that hold a masked field: the whole byte reads as ones
    output wire [KEEP_WIDTH-1:0] mask,
    // Lanes whose low nibble alone reads as ones (the IPv6 version/traffic class byte)
    output wire [KEEP_WIDTH-1:0] mask_low
);

genvar g;
generate
    for (g = 0; g < KEEP_WIDTH; g = g + 1) begin : lane
        // lane g holds IP byte ip_offset + g: compare ip_offset with K - g, no adder
        localparam [15:0] LANE = g;
        // IPv4: TOS, TTL, header checksum, UDP checksum (20 + 6), BTH byte 4 (28 + 4)
        localparam [15:0] K1 = 16'd1 - LANE, K8 = 16'd8 - LANE, K10 = 16'd10 - LANE;
        localparam [15:0] K11 = 16'd11 - LANE, K26 = 16'd26 - LANE, K27 = 16'd27 - LANE;
        localparam [15:0] K32 = 16'd32 - LANE;
        // IPv6: traffic class and flow label, hop limit, UDP checksum (40 + 6), BTH byte 4
        localparam [15:0] K0 = 16'd0 - LANE, K2 = 16'd2 - LANE, K3 = 16'd3 - LANE;
        localparam [15:0] K7 = 16'd7 - LANE, K46 = 16'd46 - LANE, K47 = 16'd47 - LANE;
        localparam [15:0] K52 = 16'd52 - LANE;

        assign mask[g] = ipv6 ? (ip_offset == K1 || ip_offset == K2 || ip_offset == K3 ||
                                 ip_offset == K7 || ip_offset == K46 || ip_offset == K47 ||
                                 ip_offset == K52)
                              : (ip_offset == K1 || ip_offset == K8 || ip_offset == K10 ||
                                 ip_offset == K11 || ip_offset == K26 || ip_offset == K27 ||
                                 ip_offset == K32);
        assign mask_low[g] = ipv6 && ip_offset == K0;
    end
endgenerate

endmodule

`resetall
