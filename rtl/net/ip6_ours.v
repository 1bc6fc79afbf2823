/*

Whether an IPv6 address is one of the port's: its link-local address (fe80:: and the
modified EUI-64 of cfg_mac, rxe's GID index 0) or one of the configured addresses whose
valid bit is set. Combinational: one comparator per address and an OR.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module ip6_ours #
(
    // Configured IPv6 addresses besides the link-local one
    parameter ADDRS = 4
)
(
    input  wire [47:0]                   cfg_mac,
    // address k at [k*128 +: 128], its first byte the most significant
    input  wire [ADDRS*128-1:0]          cfg_ip6,
    input  wire [ADDRS-1:0]              cfg_ip6_valid,

    input  wire [127:0]                  addr,
    output wire                          ours,
    // the port's link-local address (for what the caller builds from it)
    output wire [127:0]                  link_local
);

assign link_local = {16'hfe80, 48'd0, cfg_mac[47:42], ~cfg_mac[41], cfg_mac[40:24],
                     16'hfffe, cfg_mac[23:0]};

reg match;
integer i;

always @* begin
    match = addr == link_local;
    for (i = 0; i < ADDRS; i = i + 1) begin
        if (cfg_ip6_valid[i] && addr == cfg_ip6[i*128 +: 128]) begin
            match = 1'b1;
        end
    end
end

assign ours = match;

endmodule

`resetall
