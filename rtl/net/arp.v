/*

ARP for the core's IPv4 address: answers, learns, and resolves peers for the host.

- A who-has request for cfg_ipv4 (in a frame to cfg_mac or to broadcast) is answered with
  cfg_mac, and its sender is learned (created or refreshed in the cache), as Linux does;
  a probe from 0.0.0.0 is answered but not learned.
- A reply to cfg_ipv4 resolves or refreshes the sender's entry if the cache has one (a
  PENDING, RESOLVED or FAILED entry); a reply nobody asked for is ignored.
- A lookup from the host (s_lookup_*, one at a time: a newer one replaces one not taken
  yet) answers at once from a RESOLVED entry younger than cfg_lifetime; otherwise it
  takes an entry (arp_cache says which), marks it PENDING and broadcasts a who-has
  request. The answer is m_result (contract ARP_RESULT): RESOLVED with the MAC, or FAILED.
  cfg_ipv4 itself resolves to cfg_mac; 0.0.0.0 fails at once.
- A scan visits one entry every other cycle when nothing else is to be done (and between
  records when they come back to back): a PENDING
  entry unanswered for cfg_retry_interval is asked again, or FAILED once cfg_retry_tries
  requests went unanswered; a RESOLVED or FAILED entry older than cfg_lifetime is freed.
- m_deadline: the earliest time_now at which a PENDING entry is due for its next request
  (or to fail), all ones when none waits, so that a simulation may jump time_now to it
  instead of evaluating the cycles between. It is a lower bound, never later than the
  real earliest: a scan pass gathers the due times of the entries it visits and publishes
  their minimum when it ends, and an entry made PENDING lowers it at once. An entry
  answered or taken for another address leaves it early: the next pass moves it on.

Every time is a difference of time_now, a free-running cycle count that may jump forward:
after a jump, every entry is judged at its next visit (a few cycles per entry when the
engine is idle). Frames in are never back-pressured: ARP for us that arrives while the
record FIFO is full is dropped and counted.

    s_axis -> arp_rx -> (for us?) -> record FIFO -+-> engine <-> arp_cache
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

localparam INDEX_WIDTH = $clog2(ENTRIES);

localparam [1:0] NONE = `HROCE_ARP_STATE_NONE;
localparam [1:0] PENDING = `HROCE_ARP_STATE_PENDING;
localparam [1:0] RESOLVED = `HROCE_ARP_STATE_RESOLVED;
localparam [1:0] FAILED = `HROCE_ARP_STATE_FAILED;

localparam [1:0] ST_IDLE = 2'd0, ST_MATCH = 2'd1, ST_ACT = 2'd2, ST_SEND = 2'd3;
localparam [1:0] OP_LOOKUP = 2'd0, OP_RX_REQUEST = 2'd1, OP_RX_REPLY = 2'd2, OP_SCAN = 2'd3;

localparam [47:0] BROADCAST = 48'hffff_ffff_ffff;
localparam [63:0] NEVER = {64{1'b1}};

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
reg rec_pop;

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
 * The cache
 */
reg [31:0] match_ip;
wire match_hit;
wire [INDEX_WIDTH-1:0] match_index, victim_index;
reg [INDEX_WIDTH-1:0] read_index;
wire [1:0] read_state;
wire [31:0] read_ip;
wire [47:0] read_mac;
wire [63:0] read_stamp;
wire [3:0] read_tries;
reg write_en;
reg [1:0] write_state;
reg [31:0] write_ip;
reg [47:0] write_mac;
reg [3:0] write_tries;
reg victim_take;

arp_cache #(
    .ENTRIES(ENTRIES),
    .INDEX_WIDTH(INDEX_WIDTH)
)
cache_inst (
    .clk(clk),
    .rst(rst),
    .match_ip(match_ip),
    .match_hit(match_hit),
    .match_index(match_index),
    .read_index(read_index),
    .read_state(read_state),
    .read_ip(read_ip),
    .read_mac(read_mac),
    .read_stamp(read_stamp),
    .read_tries(read_tries),
    .write_en(write_en),
    .write_index(read_index),
    .write_state(write_state),
    .write_ip(write_ip),
    .write_mac(write_mac),
    .write_stamp(time_now),
    .write_tries(write_tries),
    .victim_index(victim_index),
    .victim_take(victim_take)
);

/*
 * The engine: one lookup, record or scan visit at a time
 */
reg [1:0] state_reg = ST_IDLE, state_next;
reg [1:0] op_reg = OP_SCAN, op_next;
reg [31:0] op_ip_reg = 32'd0, op_ip_next;
reg [47:0] op_mac_reg = 48'd0, op_mac_next;
reg hit_reg = 1'b0, hit_next;
reg [INDEX_WIDTH-1:0] index_reg = 0, index_next;
reg [INDEX_WIDTH-1:0] scan_reg = 0, scan_next;
reg scan_turn_reg = 1'b0, scan_turn_next;

reg lookup_pending_reg = 1'b0, lookup_pending_next;
reg [31:0] lookup_ip_reg = 32'd0, lookup_ip_next;

reg [1:0] result_state_reg = NONE, result_state_next;
reg [47:0] result_mac_reg = 48'd0, result_mac_next;
reg [7:0] result_seq_reg = 8'd0, result_seq_next;
reg [31:0] result_ip_reg = 32'd0, result_ip_next;

// the frame to send: a reply (to tx_mac about tx_ip) or a request (for tx_ip)
reg tx_reply_reg = 1'b0, tx_reply_next;
reg [47:0] tx_mac_reg = 48'd0, tx_mac_next;
reg [31:0] tx_ip_reg = 32'd0, tx_ip_next;
wire tx_ready;

// the published lower bound of the due times, and the minimum of the pass under way
reg [63:0] deadline_reg = NEVER, deadline_next;
reg [63:0] pass_min_reg = NEVER, pass_min_next;
// the due time of the entry acted on now, after the write (NEVER: it waits for nothing)
reg [63:0] entry_due;

reg stat_answered_next, stat_learned_next, stat_unsolicited_next, stat_request_sent_next;
reg stat_failed_next, stat_expired_next;
reg stat_answered_reg = 1'b0, stat_learned_reg = 1'b0, stat_unsolicited_reg = 1'b0;
reg stat_request_sent_reg = 1'b0, stat_failed_reg = 1'b0, stat_expired_reg = 1'b0;

wire [63:0] age = time_now - read_stamp;
wire stale = age >= cfg_lifetime;
wire retry_due = age >= {32'd0, cfg_retry_interval};
wire [63:0] due_now = time_now + {32'd0, cfg_retry_interval};
wire [63:0] due_read = read_stamp + {32'd0, cfg_retry_interval};
// the last visit of a scan pass (entries are visited in index order)
wire pass_end = state_reg == ST_ACT && op_reg == OP_SCAN && &index_reg;
wire [3:0] tries_max = cfg_retry_tries == 4'd0 ? 4'd1 : cfg_retry_tries;
// the host waits on this address
wire result_waits = result_state_reg == PENDING;

always @* begin
    state_next = state_reg;
    op_next = op_reg;
    op_ip_next = op_ip_reg;
    op_mac_next = op_mac_reg;
    hit_next = hit_reg;
    index_next = index_reg;
    scan_next = scan_reg;
    scan_turn_next = scan_turn_reg;
    lookup_pending_next = lookup_pending_reg;
    lookup_ip_next = lookup_ip_reg;
    result_state_next = result_state_reg;
    result_mac_next = result_mac_reg;
    result_seq_next = result_seq_reg;
    result_ip_next = result_ip_reg;
    tx_reply_next = tx_reply_reg;
    tx_mac_next = tx_mac_reg;
    tx_ip_next = tx_ip_reg;
    deadline_next = deadline_reg;
    pass_min_next = pass_min_reg;
    entry_due = NEVER;

    rec_pop = 1'b0;
    match_ip = op_ip_reg;
    read_index = index_reg;
    write_en = 1'b0;
    write_state = read_state;
    write_ip = read_ip;
    write_mac = read_mac;
    write_tries = read_tries;
    victim_take = 1'b0;

    stat_answered_next = 1'b0;
    stat_learned_next = 1'b0;
    stat_unsolicited_next = 1'b0;
    stat_request_sent_next = 1'b0;
    stat_failed_next = 1'b0;
    stat_expired_next = 1'b0;

    case (state_reg)
        ST_IDLE: begin
            if (lookup_pending_reg) begin
                lookup_pending_next = 1'b0;
                result_seq_next = result_seq_reg + 8'd1;
                result_ip_next = lookup_ip_reg;
                result_mac_next = 48'd0;
                if (cfg_ipv4 != 32'd0 && lookup_ip_reg == cfg_ipv4) begin
                    result_state_next = RESOLVED;
                    result_mac_next = cfg_mac;
                end else if (lookup_ip_reg == 32'd0) begin
                    result_state_next = FAILED;
                end else begin
                    result_state_next = PENDING;
                    op_next = OP_LOOKUP;
                    op_ip_next = lookup_ip_reg;
                    state_next = ST_MATCH;
                end
            end else if (rec_valid && !scan_turn_reg) begin
                rec_pop = 1'b1;
                scan_turn_next = 1'b1;
                op_next = rec_request ? OP_RX_REQUEST : OP_RX_REPLY;
                op_ip_next = rec_spa;
                op_mac_next = rec_sha;
                if (rec_request && rec_spa == 32'd0) begin
                    // a probe: answered, nothing to learn
                    tx_reply_next = 1'b1;
                    tx_mac_next = rec_sha;
                    tx_ip_next = 32'd0;
                    state_next = ST_SEND;
                end else begin
                    state_next = ST_MATCH;
                end
            end else begin
                scan_turn_next = 1'b0;
                op_next = OP_SCAN;
                index_next = scan_reg;
                scan_next = scan_reg + 1'b1;
                state_next = ST_ACT;
            end
        end
        ST_MATCH: begin
            hit_next = match_hit;
            index_next = match_hit ? match_index : victim_index;
            state_next = ST_ACT;
        end
        ST_ACT: begin
            state_next = ST_IDLE;
            case (op_reg)
                OP_LOOKUP: begin
                    if (hit_reg && read_state == RESOLVED && !stale) begin
                        result_state_next = RESOLVED;
                        result_mac_next = read_mac;
                    end else if (!(hit_reg && read_state == PENDING)) begin
                        // unknown, given up before, or too old: ask (again)
                        stat_expired_next = hit_reg && read_state == RESOLVED;
                        victim_take = !hit_reg;
                        write_en = 1'b1;
                        write_state = PENDING;
                        write_ip = op_ip_reg;
                        write_tries = 4'd1;
                        entry_due = due_now;
                        tx_reply_next = 1'b0;
                        tx_ip_next = op_ip_reg;
                        state_next = ST_SEND;
                    end
                end
                OP_RX_REQUEST: begin
                    victim_take = !hit_reg;
                    write_en = 1'b1;
                    write_state = RESOLVED;
                    write_ip = op_ip_reg;
                    write_mac = op_mac_reg;
                    write_tries = 4'd0;
                    if (result_waits && result_ip_reg == op_ip_reg) begin
                        result_state_next = RESOLVED;
                        result_mac_next = op_mac_reg;
                    end
                    tx_reply_next = 1'b1;
                    tx_mac_next = op_mac_reg;
                    tx_ip_next = op_ip_reg;
                    state_next = ST_SEND;
                end
                OP_RX_REPLY: begin
                    if (hit_reg) begin
                        stat_learned_next = 1'b1;
                        write_en = 1'b1;
                        write_state = RESOLVED;
                        write_mac = op_mac_reg;
                        write_tries = 4'd0;
                        if (result_waits && result_ip_reg == op_ip_reg) begin
                            result_state_next = RESOLVED;
                            result_mac_next = op_mac_reg;
                        end
                    end else begin
                        stat_unsolicited_next = 1'b1;
                    end
                end
                default: begin
                    // a scan visit
                    if (read_state == PENDING && retry_due) begin
                        write_en = 1'b1;
                        if (read_tries >= tries_max) begin
                            stat_failed_next = 1'b1;
                            write_state = FAILED;
                            if (result_waits && result_ip_reg == read_ip) begin
                                result_state_next = FAILED;
                            end
                        end else begin
                            write_tries = read_tries + 4'd1;
                            entry_due = due_now;
                            tx_reply_next = 1'b0;
                            tx_ip_next = read_ip;
                            state_next = ST_SEND;
                        end
                    end else if (read_state == PENDING) begin
                        entry_due = due_read;
                    end else if ((read_state == RESOLVED || read_state == FAILED) && stale) begin
                        stat_expired_next = read_state == RESOLVED;
                        write_en = 1'b1;
                        write_state = NONE;
                    end
                end
            endcase
        end
        default: begin
            // ST_SEND: the frame waits for the transmitter
            if (tx_ready) begin
                stat_answered_next = tx_reply_reg;
                stat_request_sent_next = !tx_reply_reg;
                state_next = ST_IDLE;
            end
        end
    endcase

    // the due times: one entry at most a cycle; a pass ends by publishing its minimum
    if (entry_due < pass_min_reg) begin
        pass_min_next = entry_due;
    end
    if (entry_due < deadline_reg) begin
        deadline_next = entry_due;
    end
    if (pass_end) begin
        deadline_next = entry_due < pass_min_reg ? entry_due : pass_min_reg;
        pass_min_next = NEVER;
    end

    // a lookup written now waits for the engine (a newer one replaces it)
    if (s_lookup_valid) begin
        lookup_pending_next = 1'b1;
        lookup_ip_next = s_lookup_ip;
    end
end

always @(posedge clk) begin
    state_reg <= state_next;
    op_reg <= op_next;
    op_ip_reg <= op_ip_next;
    op_mac_reg <= op_mac_next;
    hit_reg <= hit_next;
    index_reg <= index_next;
    scan_reg <= scan_next;
    scan_turn_reg <= scan_turn_next;
    lookup_pending_reg <= lookup_pending_next;
    lookup_ip_reg <= lookup_ip_next;
    result_state_reg <= result_state_next;
    result_mac_reg <= result_mac_next;
    result_seq_reg <= result_seq_next;
    result_ip_reg <= result_ip_next;
    tx_reply_reg <= tx_reply_next;
    tx_mac_reg <= tx_mac_next;
    tx_ip_reg <= tx_ip_next;
    deadline_reg <= deadline_next;
    pass_min_reg <= pass_min_next;
    stat_answered_reg <= stat_answered_next;
    stat_learned_reg <= stat_learned_next;
    stat_unsolicited_reg <= stat_unsolicited_next;
    stat_request_sent_reg <= stat_request_sent_next;
    stat_failed_reg <= stat_failed_next;
    stat_expired_reg <= stat_expired_next;

    if (rst) begin
        state_reg <= ST_IDLE;
        scan_reg <= 0;
        scan_turn_reg <= 1'b0;
        lookup_pending_reg <= 1'b0;
        result_state_reg <= NONE;
        result_seq_reg <= 8'd0;
        deadline_reg <= NEVER;
        pass_min_reg <= NEVER;
        stat_answered_reg <= 1'b0;
        stat_learned_reg <= 1'b0;
        stat_unsolicited_reg <= 1'b0;
        stat_request_sent_reg <= 1'b0;
        stat_failed_reg <= 1'b0;
        stat_expired_reg <= 1'b0;
    end
end

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
    .s_eth_dst(tx_reply_reg ? tx_mac_reg : BROADCAST),
    .s_eth_src(cfg_mac),
    .s_reply(tx_reply_reg),
    .s_sha(cfg_mac),
    .s_spa(cfg_ipv4),
    .s_tha(tx_reply_reg ? tx_mac_reg : 48'd0),
    .s_tpa(tx_ip_reg),
    .s_valid(state_reg == ST_SEND),
    .s_ready(tx_ready),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_tuser(m_axis_tuser)
);

reg [`HROCE_ARP_RESULT_WIDTH-1:0] result;
always @* begin
    result = {`HROCE_ARP_RESULT_WIDTH{1'b0}};
    result[`HROCE_ARP_RESULT_MAC] = result_mac_reg;
    result[`HROCE_ARP_RESULT_STATE] = result_state_reg;
    result[`HROCE_ARP_RESULT_SEQ] = result_seq_reg;
end
assign m_result = result;
assign m_deadline = deadline_reg;

assign stat_answered = stat_answered_reg;
assign stat_learned = stat_learned_reg;
assign stat_ignored = stat_ignored_reg;
assign stat_malformed = stat_malformed_reg;
assign stat_overflow = stat_overflow_reg;
assign stat_unsolicited = stat_unsolicited_reg;
assign stat_request_sent = stat_request_sent_reg;
assign stat_failed = stat_failed_reg;
assign stat_expired = stat_expired_reg;

endmodule

`resetall
