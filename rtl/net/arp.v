/*

ARP for the core's IPv4 address: answers, learns, and resolves peers for the host.

- A who-has request for cfg_ipv4 (in a frame to cfg_mac or to broadcast) is answered with
  cfg_mac, and its sender is learned (created or refreshed in the cache), as Linux does;
  a probe from 0.0.0.0 is answered but not learned.
- A reply to cfg_ipv4 resolves or refreshes the sender's entry if the cache has one; a
  reply nobody asked for is ignored.
- A lookup from the host (s_lookup_*) answers from the cache or broadcasts who-has
  requests until a reply comes or the last one goes unanswered; the answer is m_result
  (contract ARP_RESULT). cfg_ipv4 itself resolves to cfg_mac; 0.0.0.0 fails at once.

The cache, the lookups, the retries, the expiry and m_deadline are neigh_engine's (shared
with IPv6 neighbour discovery, nd_neigh), which says how each works.

Every time is a difference of time_now, a free-running cycle count that may jump forward:
after a jump, every entry is judged at its next visit (a few cycles per entry when the
engine is idle). Frames in are never back-pressured: ARP for us that arrives while the
record FIFO is full is dropped and counted.

    s_axis -> arp_rx -> (for us?) -> record FIFO -+-> neigh_engine (neigh_cache)
                                   s_lookup ------+      |
                                                          +-> arp_tx -> m_axis

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module arp #
(
    // Width of the frame streams (64 to 512)
    parameter DATA_WIDTH = 512,
    // Width of tkeep
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // Entries of the cache (a power of two)
    parameter ENTRIES = `HROCE_ARP_CACHE_ENTRIES,
    // log2 of the records of frames for us that may wait for the engine
    parameter RX_FIFO_ADDR_WIDTH = 2
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Configuration and time
     */
    input  wire [47:0]                   cfg_mac,
    input  wire [31:0]                   cfg_ipv4,
    input  wire [63:0]                   cfg_lifetime,        // cycles
    input  wire [31:0]                   cfg_retry_interval,  // cycles
    input  wire [3:0]                    cfg_retry_tries,     // 0 counts as 1
    input  wire [63:0]                   time_now,

    /*
     * ARP frames in (never back-pressured)
     */
    input  wire [DATA_WIDTH-1:0]         s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]         s_axis_tkeep,
    input  wire                          s_axis_tvalid,
    output wire                          s_axis_tready,
    input  wire                          s_axis_tlast,

    /*
     * ARP frames out: replies and requests
     */
    output wire [DATA_WIDTH-1:0]         m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]         m_axis_tkeep,
    output wire                          m_axis_tvalid,
    input  wire                          m_axis_tready,
    output wire                          m_axis_tlast,
    output wire                          m_axis_tuser,

    /*
     * The host's lookups and their answer
     */
    input  wire [31:0]                   s_lookup_ip,
    input  wire                          s_lookup_valid,
    output wire [`HROCE_ARP_RESULT_WIDTH-1:0] m_result,

    /*
     * Time: when an entry next needs the scan (all ones: none waits)
     */
    output wire [63:0]                   m_deadline,

    /*
     * Status: one pulse per event (contract NET_COUNTER)
     */
    output wire                          stat_answered,
    output wire                          stat_learned,
    output wire                          stat_ignored,
    output wire                          stat_malformed,
    output wire                          stat_overflow,
    output wire                          stat_unsolicited,
    output wire                          stat_request_sent,
    output wire                          stat_failed,
    output wire                          stat_expired
);

localparam [47:0] BROADCAST = 48'hffff_ffff_ffff;

/*
 * Receive: parse, keep what is for us
 */
wire rx_valid, rx_good, rx_request;
wire [47:0] rx_eth_dst, rx_sha;
wire [31:0] rx_spa, rx_tpa;

arp_rx #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH)
)
rx_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .m_arp_valid(rx_valid),
    .m_arp_good(rx_good),
    .m_arp_request(rx_request),
    .m_arp_eth_dst(rx_eth_dst),
    .m_arp_sha(rx_sha),
    .m_arp_spa(rx_spa),
    .m_arp_tpa(rx_tpa)
);

// for us: to our MAC or to everyone, and about our address (which must be set)
wire rx_for_us = (rx_eth_dst == cfg_mac || rx_eth_dst == BROADCAST) &&
                 cfg_ipv4 != 32'd0 && rx_tpa == cfg_ipv4;

wire rec_room;
wire rec_push = rx_valid && rx_good && rx_for_us && rec_room;
wire rec_request;
wire [47:0] rec_sha;
wire [31:0] rec_spa;
wire rec_valid;
wire rec_pop;

fifo_sync #(
    .WIDTH(1 + 48 + 32),
    .ADDR_WIDTH(RX_FIFO_ADDR_WIDTH)
)
rec_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data({rx_request, rx_sha, rx_spa}),
    .s_valid(rec_push),
    .s_ready(rec_room),
    .m_data({rec_request, rec_sha, rec_spa}),
    .m_valid(rec_valid),
    .m_ready(rec_pop),
    .count()
);

reg stat_ignored_reg = 1'b0, stat_malformed_reg = 1'b0, stat_overflow_reg = 1'b0;

always @(posedge clk) begin
    stat_malformed_reg <= rx_valid && !rx_good;
    stat_ignored_reg <= rx_valid && rx_good && !rx_for_us;
    stat_overflow_reg <= rx_valid && rx_good && rx_for_us && !rec_room;
    if (rst) begin
        stat_malformed_reg <= 1'b0;
        stat_ignored_reg <= 1'b0;
        stat_overflow_reg <= 1'b0;
    end
end

/*
 * The engine: the cache, lookups, retries (shared with IPv6 neighbour discovery)
 */
wire send_reply, send_valid, send_ready;
wire [47:0] send_mac;
wire [31:0] send_ip, lookup_ip;

neigh_engine #(
    .ADDR_WIDTH(32),
    .ENTRIES(ENTRIES),
    .ANSWER(1)
)
engine_inst (
    .clk(clk),
    .rst(rst),
    .cfg_mac(cfg_mac),
    .cfg_lifetime(cfg_lifetime),
    .cfg_retry_interval(cfg_retry_interval),
    .cfg_retry_tries(cfg_retry_tries),
    .time_now(time_now),
    .s_rec_request(rec_request),
    .s_rec_mac(rec_sha),
    .s_rec_addr(rec_spa),
    .s_rec_valid(rec_valid),
    .s_rec_ready(rec_pop),
    .s_lookup_addr(s_lookup_ip),
    .s_lookup_valid(s_lookup_valid),
    .m_lookup_addr(lookup_ip),
    .s_lookup_own(cfg_ipv4 != 32'd0 && lookup_ip == cfg_ipv4),
    .s_lookup_bad(lookup_ip == 32'd0),
    .m_result(m_result),
    .m_send_reply(send_reply),
    .m_send_mac(send_mac),
    .m_send_addr(send_ip),
    .m_send_valid(send_valid),
    .m_send_ready(send_ready),
    .m_deadline(m_deadline),
    .stat_answered(stat_answered),
    .stat_learned(stat_learned),
    .stat_unsolicited(stat_unsolicited),
    .stat_request_sent(stat_request_sent),
    .stat_failed(stat_failed),
    .stat_expired(stat_expired)
);

/*
 * Transmit: a reply to tx_mac about us, or a broadcast who-has tx_ip
 */
arp_tx #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH)
)
tx_inst (
    .clk(clk),
    .rst(rst),
    .s_eth_dst(send_reply ? send_mac : BROADCAST),
    .s_eth_src(cfg_mac),
    .s_reply(send_reply),
    .s_sha(cfg_mac),
    .s_spa(cfg_ipv4),
    .s_tha(send_reply ? send_mac : 48'd0),
    .s_tpa(send_ip),
    .s_valid(send_valid),
    .s_ready(send_ready),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_tuser(m_axis_tuser)
);

assign stat_ignored = stat_ignored_reg;
assign stat_malformed = stat_malformed_reg;
assign stat_overflow = stat_overflow_reg;

endmodule

`resetall
