/*

Neighbour cache: the table of addresses and their MACs that neigh_engine keeps, for ARP
(IPv4, ADDR_WIDTH 32) and for IPv6 neighbour discovery (ADDR_WIDTH 128).

Each entry holds a state (contract ARP_STATE: NONE for a free entry, PENDING, RESOLVED,
FAILED), an address, a MAC, a time stamp and a count of requests sent. States and
addresses are registers, so that an address is matched against every entry at once; the
rest sits in distributed RAM, read by index. Matching and reading are combinational;
writes take effect at the clock edge. Only the states are reset.

Where a new address goes (victim_index): a free entry, else a FAILED one (lowest index
first), else the entries in turn (a pointer that moves on each time it is used, which the
user says with victim_take).

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module neigh_cache #
(
    // Bits of an address (32: IPv4, 128: IPv6)
    parameter ADDR_WIDTH = 32,
    // Number of entries (a power of two)
    parameter ENTRIES = `HROCE_ARP_CACHE_ENTRIES,
    // Bits of an entry's index
    parameter INDEX_WIDTH = $clog2(ENTRIES)
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Match: the entry (not free) that holds an address
     */
    input  wire [ADDR_WIDTH-1:0]         match_ip,
    output wire                          match_hit,
    output wire [INDEX_WIDTH-1:0]        match_index,

    /*
     * Read an entry
     */
    input  wire [INDEX_WIDTH-1:0]        read_index,
    output wire [1:0]                    read_state,
    output wire [ADDR_WIDTH-1:0]         read_ip,
    output wire [47:0]                   read_mac,
    output wire [63:0]                   read_stamp,
    output wire [3:0]                    read_tries,

    /*
     * Write an entry
     */
    input  wire                          write_en,
    input  wire [INDEX_WIDTH-1:0]        write_index,
    input  wire [1:0]                    write_state,
    input  wire [ADDR_WIDTH-1:0]         write_ip,
    input  wire [47:0]                   write_mac,
    input  wire [63:0]                   write_stamp,
    input  wire [3:0]                    write_tries,

    /*
     * Where a new address goes; victim_take: it went there
     */
    output wire [INDEX_WIDTH-1:0]        victim_index,
    input  wire                          victim_take
);

initial begin
    if (ENTRIES < 2 || (1 << INDEX_WIDTH) != ENTRIES) begin
        $error("Error: %m: ENTRIES must be a power of two, at least 2 (%0d)", ENTRIES);
        $finish;
    end
end

// states and addresses as flat vectors: all of them are looked at every cycle
reg [ENTRIES*2-1:0] state_reg = {ENTRIES{`HROCE_ARP_STATE_NONE}};
reg [ENTRIES*ADDR_WIDTH-1:0] ip_reg = {ENTRIES*ADDR_WIDTH{1'b0}};
reg [47:0] mac_mem [0:ENTRIES-1];
reg [63:0] stamp_mem [0:ENTRIES-1];
reg [3:0] tries_mem [0:ENTRIES-1];
reg [INDEX_WIDTH-1:0] rr_reg = 0;

integer i;

reg hit;
reg [INDEX_WIDTH-1:0] hit_index;
reg free_found, failed_found;
reg [INDEX_WIDTH-1:0] free_index, failed_index;

// the lowest index of each kind: scanned from the top down, the last assignment wins
always @* begin
    hit = 1'b0;
    hit_index = 0;
    free_found = 1'b0;
    free_index = 0;
    failed_found = 1'b0;
    failed_index = 0;
    for (i = ENTRIES - 1; i >= 0; i = i - 1) begin
        if (state_reg[i*2 +: 2] != `HROCE_ARP_STATE_NONE &&
            ip_reg[i*ADDR_WIDTH +: ADDR_WIDTH] == match_ip) begin
            hit = 1'b1;
            hit_index = i[INDEX_WIDTH-1:0];
        end
        if (state_reg[i*2 +: 2] == `HROCE_ARP_STATE_NONE) begin
            free_found = 1'b1;
            free_index = i[INDEX_WIDTH-1:0];
        end
        if (state_reg[i*2 +: 2] == `HROCE_ARP_STATE_FAILED) begin
            failed_found = 1'b1;
            failed_index = i[INDEX_WIDTH-1:0];
        end
    end
end

wire use_rr = !free_found && !failed_found;

// the registers of each entry, written when the write selects it (a decoder, not a shifter)
genvar g;
generate
    for (g = 0; g < ENTRIES; g = g + 1) begin : entry
        always @(posedge clk) begin
            if (write_en && write_index == g) begin
                state_reg[g*2 +: 2] <= write_state;
                ip_reg[g*ADDR_WIDTH +: ADDR_WIDTH] <= write_ip;
            end
            if (rst) begin
                state_reg[g*2 +: 2] <= `HROCE_ARP_STATE_NONE;
            end
        end
    end
endgenerate

always @(posedge clk) begin
    if (write_en) begin
        mac_mem[write_index] <= write_mac;
        stamp_mem[write_index] <= write_stamp;
        tries_mem[write_index] <= write_tries;
    end
    if (victim_take && use_rr) begin
        rr_reg <= rr_reg + 1'b1;
    end

    if (rst) begin
        rr_reg <= 0;
    end
end

assign match_hit = hit;
assign match_index = hit_index;

assign read_state = state_reg[read_index*2 +: 2];
assign read_ip = ip_reg[read_index*ADDR_WIDTH +: ADDR_WIDTH];
assign read_mac = mac_mem[read_index];
assign read_stamp = stamp_mem[read_index];
assign read_tries = tries_mem[read_index];

assign victim_index = free_found ? free_index : failed_found ? failed_index : rr_reg;

endmodule

`resetall
