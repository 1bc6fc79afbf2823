/*

Neighbour resolution engine, shared by ARP (IPv4, ADDR_WIDTH 32) and IPv6 neighbour
discovery (ADDR_WIDTH 128): the cache of peers' MACs with lifetimes and retries, the host's
lookups, and what to send. The protocol blocks around it (arp, nd_neigh) parse the frames,
say which records reach the engine, and build the frames it asks for.

- A request record (a who-has for us, a neighbour solicitation with a source link-layer
  address) creates or refreshes its sender's entry, as Linux does; with ANSWER set the
  engine also asks for a reply to it (m_send_reply). A request from the all-zero address
  (an ARP probe) is answered with ANSWER set and never learned.
- A reply record (an ARP reply, a neighbour advertisement) resolves or refreshes the
  sender's entry if the cache has one (a PENDING, RESOLVED or FAILED entry); a reply
  nobody asked for is counted as unsolicited and ignored.
- A lookup from the host (s_lookup_*, one at a time: a newer one replaces one not taken
  yet) answers at once from a RESOLVED entry younger than cfg_lifetime; otherwise it
  takes an entry (neigh_cache says which), marks it PENDING and asks for a request to be
  sent (m_send_reply clear). The answer is m_result (contract ARP_RESULT): RESOLVED with
  the MAC, or FAILED. The protocol block judges the address waiting to be taken
  (m_lookup_addr): one of the port's own (s_lookup_own) resolves to cfg_mac, one that
  cannot be resolved (s_lookup_bad: 0.0.0.0, ::, multicast) fails at once.
- A scan visits one entry every other cycle when nothing else is to be done (and between
  records when they come back to back): a PENDING entry unanswered for cfg_retry_interval
  is asked again, or FAILED once cfg_retry_tries requests went unanswered; a RESOLVED or
  FAILED entry older than cfg_lifetime is freed.
- m_deadline: the earliest time_now at which a PENDING entry is due for its next request
  (or to fail), all ones when none waits, so that a simulation may jump time_now to it
  instead of evaluating the cycles between. It is a lower bound, never later than the
  real earliest: a scan pass gathers the due times of the entries it visits and publishes
  their minimum when it ends, and an entry made PENDING lowers it at once. An entry
  answered or taken for another address leaves it early: the next pass moves it on.

Every time is a difference of time_now, a free-running cycle count that may jump forward:
after a jump, every entry is judged at its next visit (a few cycles per entry when the
engine is idle).

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module neigh_engine #
(
    // Bits of an address (32: IPv4, 128: IPv6)
    parameter ADDR_WIDTH = 32,
    // Entries of the cache (a power of two)
    parameter ENTRIES = `HROCE_ARP_CACHE_ENTRIES,
    // Whether a request record asks for a reply (ARP: 1; nd answers solicitations itself)
    parameter ANSWER = 1
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Configuration and time
     */
    input  wire [47:0]                   cfg_mac,
    input  wire [63:0]                   cfg_lifetime,        // cycles
    input  wire [31:0]                   cfg_retry_interval,  // cycles
    input  wire [3:0]                    cfg_retry_tries,     // 0 counts as 1
    input  wire [63:0]                   time_now,

    /*
     * Records of frames for us: a request (else a reply) from addr at mac
     */
    input  wire                          s_rec_request,
    input  wire [47:0]                   s_rec_mac,
    input  wire [ADDR_WIDTH-1:0]         s_rec_addr,
    input  wire                          s_rec_valid,
    output wire                          s_rec_ready,

    /*
     * The host's lookups, how the protocol block judges the one waiting, and the answer
     */
    input  wire [ADDR_WIDTH-1:0]         s_lookup_addr,
    input  wire                          s_lookup_valid,
    output wire [ADDR_WIDTH-1:0]         m_lookup_addr,
    input  wire                          s_lookup_own,
    input  wire                          s_lookup_bad,
    output wire [`HROCE_ARP_RESULT_WIDTH-1:0] m_result,

    /*
     * What to send: a reply to mac about addr (m_send_reply), or a request for addr
     */
    output wire                          m_send_reply,
    output wire [47:0]                   m_send_mac,
    output wire [ADDR_WIDTH-1:0]         m_send_addr,
    output wire                          m_send_valid,
    input  wire                          m_send_ready,

    /*
     * Time: when an entry next needs the scan (all ones: none waits)
     */
    output wire [63:0]                   m_deadline,

    /*
     * Status: one pulse per event (contract NET_COUNTER)
     */
    output wire                          stat_answered,
    output wire                          stat_learned,
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

localparam [63:0] NEVER = {64{1'b1}};
localparam [ADDR_WIDTH-1:0] ZERO = {ADDR_WIDTH{1'b0}};

wire rec_valid = s_rec_valid;
wire rec_request = s_rec_request;
wire [47:0] rec_sha = s_rec_mac;
wire [ADDR_WIDTH-1:0] rec_spa = s_rec_addr;

/*
 * The cache
 */
reg [ADDR_WIDTH-1:0] match_ip;
reg rec_pop;
wire match_hit;
wire [INDEX_WIDTH-1:0] match_index, victim_index;
reg [INDEX_WIDTH-1:0] read_index;
wire [1:0] read_state;
wire [ADDR_WIDTH-1:0] read_ip;
wire [47:0] read_mac;
wire [63:0] read_stamp;
wire [3:0] read_tries;
reg write_en;
reg [1:0] write_state;
reg [ADDR_WIDTH-1:0] write_ip;
reg [47:0] write_mac;
reg [3:0] write_tries;
reg victim_take;

neigh_cache #(
    .ADDR_WIDTH(ADDR_WIDTH),
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
reg [ADDR_WIDTH-1:0] op_ip_reg = ZERO, op_ip_next;
reg [47:0] op_mac_reg = 48'd0, op_mac_next;
reg hit_reg = 1'b0, hit_next;
reg [INDEX_WIDTH-1:0] index_reg = 0, index_next;
reg [INDEX_WIDTH-1:0] scan_reg = 0, scan_next;
reg scan_turn_reg = 1'b0, scan_turn_next;

reg lookup_pending_reg = 1'b0, lookup_pending_next;
reg [ADDR_WIDTH-1:0] lookup_ip_reg = ZERO, lookup_ip_next;

reg [1:0] result_state_reg = NONE, result_state_next;
reg [47:0] result_mac_reg = 48'd0, result_mac_next;
reg [7:0] result_seq_reg = 8'd0, result_seq_next;
reg [ADDR_WIDTH-1:0] result_ip_reg = ZERO, result_ip_next;

// the frame to send: a reply (to tx_mac about tx_ip) or a request (for tx_ip)
reg tx_reply_reg = 1'b0, tx_reply_next;
reg [47:0] tx_mac_reg = 48'd0, tx_mac_next;
reg [ADDR_WIDTH-1:0] tx_ip_reg = ZERO, tx_ip_next;
wire tx_ready = m_send_ready;

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
                if (s_lookup_own) begin
                    result_state_next = RESOLVED;
                    result_mac_next = cfg_mac;
                end else if (s_lookup_bad) begin
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
                if (rec_request && rec_spa == ZERO) begin
                    // a probe: answered, nothing to learn
                    tx_reply_next = 1'b1;
                    tx_mac_next = rec_sha;
                    tx_ip_next = ZERO;
                    state_next = ANSWER ? ST_SEND : ST_IDLE;
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
                    state_next = ANSWER ? ST_SEND : ST_IDLE;
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
        lookup_ip_next = s_lookup_addr;
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

reg [`HROCE_ARP_RESULT_WIDTH-1:0] result;
always @* begin
    result = {`HROCE_ARP_RESULT_WIDTH{1'b0}};
    result[`HROCE_ARP_RESULT_MAC] = result_mac_reg;
    result[`HROCE_ARP_RESULT_STATE] = result_state_reg;
    result[`HROCE_ARP_RESULT_SEQ] = result_seq_reg;
end
assign m_result = result;
assign m_deadline = deadline_reg;

assign s_rec_ready = rec_pop;
assign m_lookup_addr = lookup_ip_reg;
assign m_send_reply = tx_reply_reg;
assign m_send_mac = tx_mac_reg;
assign m_send_addr = tx_ip_reg;
assign m_send_valid = state_reg == ST_SEND;

assign stat_answered = stat_answered_reg;
assign stat_learned = stat_learned_reg;
assign stat_unsolicited = stat_unsolicited_reg;
assign stat_request_sent = stat_request_sent_reg;
assign stat_failed = stat_failed_reg;
assign stat_expired = stat_expired_reg;

endmodule

`resetall
