/*

IPv6 neighbour discovery for the core's addresses, as arp is for its IPv4 address:
answers, learns, and resolves peers for the host.

- nd answers the neighbour solicitations for the port's addresses (the link-local one,
  fe80:: and the EUI-64 of cfg_mac, and the configured ones) and says what is learned: a
  solicitation's sender (with its source link-layer address) creates or refreshes its
  entry, as arp learns who-has senders; an advertisement for us resolves or refreshes its
  target's entry if the cache has one, and is otherwise counted as unsolicited.
- A lookup from the host (s_lookup_*) answers from the cache or sends solicitations to the
  address's solicited-node group (ff02::1:ffXX:XXXX, MAC 33:33:ff:XX:XX:XX) until an
  advertisement comes or the last one goes unanswered; the answer is m_result (contract
  ARP_RESULT, the same bus as ARP's). The port's own addresses resolve to cfg_mac; ::
  and multicast addresses fail at once.

The cache, lookups, retries, expiry and m_deadline are neigh_engine's, the same engine as
ARP's with 128-bit addresses; lifetime and retries are ARP's registers (cfg_*), as one
neighbour policy for both families. Frames in are never back-pressured: a record for the
cache that arrives while the record FIFO is full is dropped (an advertisement's is counted
as an overflow).

    s_axis -> nd -+-> advertisements, solicitations -> m_axis
                  +-> learn records -> FIFO -+-> neigh_engine (neigh_cache)
                          s_lookup ----------+      |
                  nd's solicitation input <---------+

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module nd_neigh #
(
    // Width of the frame streams (64 to 512)
    parameter DATA_WIDTH = 512,
    // Width of tkeep
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // Configured IPv6 addresses besides the link-local one
    parameter ADDRS = `HROCE_IPV6_ADDRS,
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
    input  wire [ADDRS*128-1:0]          cfg_ip6,
    input  wire [ADDRS-1:0]              cfg_ip6_valid,
    input  wire [63:0]                   cfg_lifetime,        // cycles
    input  wire [31:0]                   cfg_retry_interval,  // cycles
    input  wire [3:0]                    cfg_retry_tries,     // 0 counts as 1
    input  wire [63:0]                   time_now,

    /*
     * ICMPv6 frames in (never back-pressured)
     */
    input  wire [DATA_WIDTH-1:0]         s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]         s_axis_tkeep,
    input  wire                          s_axis_tvalid,
    output wire                          s_axis_tready,
    input  wire                          s_axis_tlast,

    /*
     * Advertisements and solicitations out (without FCS)
     */
    output wire [DATA_WIDTH-1:0]         m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]         m_axis_tkeep,
    output wire                          m_axis_tvalid,
    input  wire                          m_axis_tready,
    output wire                          m_axis_tlast,
    output wire                          m_axis_tuser,

    /*
     * The host's lookups (the address's first byte the most significant) and their answer
     */
    input  wire [127:0]                  s_lookup_ip,
    input  wire                          s_lookup_valid,
    output wire [`HROCE_ARP_RESULT_WIDTH-1:0] m_result,

    /*
     * Time: when an entry next needs the scan (all ones: none waits)
     */
    output wire [63:0]                   m_deadline,

    /*
     * Status: one pulse per event (contract NET_COUNTER ND_*)
     */
    output wire                          stat_answered,
    output wire                          stat_ignored,
    output wire                          stat_not_ours,
    output wire                          stat_malformed,
    output wire                          stat_too_long,
    output wire                          stat_overflow,
    output wire                          stat_learned,
    output wire                          stat_unsolicited,
    output wire                          stat_solicit_sent,
    output wire                          stat_failed,
    output wire                          stat_expired
);

/*
 * Frames: answers, learning, solicitations
 */
wire learn_valid, learn_request;
wire [127:0] learn_addr;
wire [47:0] learn_mac;
wire solicit_valid, solicit_ready;
wire [127:0] solicit_target;
wire nd_overflow;

nd #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .ADDRS(ADDRS)
)
nd_inst (
    .clk(clk),
    .rst(rst),
    .cfg_mac(cfg_mac),
    .cfg_ip6(cfg_ip6),
    .cfg_ip6_valid(cfg_ip6_valid),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .s_solicit_target(solicit_target),
    .s_solicit_valid(solicit_valid),
    .s_solicit_ready(solicit_ready),
    .m_learn_valid(learn_valid),
    .m_learn_request(learn_request),
    .m_learn_addr(learn_addr),
    .m_learn_mac(learn_mac),
    .stat_answered(stat_answered),
    .stat_ignored(stat_ignored),
    .stat_not_ours(stat_not_ours),
    .stat_malformed(stat_malformed),
    .stat_too_long(stat_too_long),
    .stat_advert(),
    .stat_echo(),
    .stat_overflow(nd_overflow)
);

assign m_axis_tuser = 1'b0;

/*
 * Records for the cache
 */
wire rec_room, rec_valid, rec_pop, rec_request;
wire [127:0] rec_addr;
wire [47:0] rec_mac;

fifo_sync #(
    .WIDTH(1 + 48 + 128),
    .ADDR_WIDTH(RX_FIFO_ADDR_WIDTH)
)
rec_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data({learn_request, learn_mac, learn_addr}),
    .s_valid(learn_valid && rec_room),
    .s_ready(rec_room),
    .m_data({rec_request, rec_mac, rec_addr}),
    .m_valid(rec_valid),
    .m_ready(rec_pop),
    .count()
);

// an advertisement that found no room, or an advertisement nd could not send: the frames'
// verdicts never coincide, one pulse each. A solicitation's sender not learned for lack of
// room is not counted: the solicitation was answered, and counted so.
reg rec_overflow_reg = 1'b0;
always @(posedge clk) begin
    rec_overflow_reg <= learn_valid && !learn_request && !rec_room;
    if (rst) begin
        rec_overflow_reg <= 1'b0;
    end
end
assign stat_overflow = nd_overflow || rec_overflow_reg;

/*
 * The engine: the cache, lookups, retries (ARP's, with 128-bit addresses)
 */
wire [127:0] lookup_ip;
wire lookup_own;

ip6_ours #(.ADDRS(ADDRS))
lookup_ours_inst (
    .cfg_mac(cfg_mac),
    .cfg_ip6(cfg_ip6),
    .cfg_ip6_valid(cfg_ip6_valid),
    .addr(lookup_ip),
    .ours(lookup_own),
    .link_local()
);

neigh_engine #(
    .ADDR_WIDTH(128),
    .ENTRIES(ENTRIES),
    .ANSWER(0)
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
    .s_rec_mac(rec_mac),
    .s_rec_addr(rec_addr),
    .s_rec_valid(rec_valid),
    .s_rec_ready(rec_pop),
    .s_lookup_addr(s_lookup_ip),
    .s_lookup_valid(s_lookup_valid),
    .m_lookup_addr(lookup_ip),
    .s_lookup_own(lookup_own),
    .s_lookup_bad(lookup_ip == 128'd0 || lookup_ip[127:120] == 8'hff),
    .m_result(m_result),
    .m_send_reply(),
    .m_send_mac(),
    .m_send_addr(solicit_target),
    .m_send_valid(solicit_valid),
    .m_send_ready(solicit_ready),
    .m_deadline(m_deadline),
    .stat_answered(),
    .stat_learned(stat_learned),
    .stat_unsolicited(stat_unsolicited),
    .stat_request_sent(stat_solicit_sent),
    .stat_failed(stat_failed),
    .stat_expired(stat_expired)
);

endmodule

`resetall
