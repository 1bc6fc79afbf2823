/*

RoCEv2 receive path: Ethernet frames in (RoCEv2 over IPv4 or IPv6, tagged or not); for
each good RoCE frame a header on the header bus and its payload, aligned to lane 0, on the
payload stream; non-RoCE frames whole on their own output, each marked (m_other_tdest,
contract NET_FRAME) as ARP, ICMP or other; everything else counted by reason and dropped.

A frame is buffered whole (store and forward) until its verdict is known, ICRC included:
nothing of a bad frame ever leaves, so a corrupted RETH can never steer a write. The
input is back-pressured only when the buffer is full, which the outputs' consumers
control; at one beat per cycle in and out, frames pass back to back.

    s_axis -> roce_rx_parse -+-> frame buffer ------------------+-> realign -> m_axis (payload)
                             +-> roce_icrc -> ICRC results --+  +-> m_other (non-RoCE frames)
                             +-> entries (header, checks) ---+-> verdict, counters -> m_hdr

With EARLY_HDR set, the header of every frame that passed all checks but the ICRC leaves
as soon as its entry is at the head of the queue, before the ICRC is known (the receiver
starts on it: a context lookup, an address translation), and m_verdict follows with one
word per such header, in order: good (its payload follows on m_axis) or bad (counted
here, nothing more of it leaves). A receiver of early headers must commit nothing of a
frame before its verdict says good. Without EARLY_HDR, m_hdr carries good frames only,
once their ICRC is checked, and m_verdict stays idle.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module roce_rx #
(
    // Width of the frame and payload streams (64 or 512)
    parameter DATA_WIDTH = 512,
    // Width of tkeep
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // Largest frame accepted, in bytes (without FCS)
    parameter MAX_FRAME = `HROCE_ROCE_MAX_FRAME,
    // log2 of the frame buffer's beats. While the largest frame leaves, as many beats can
    // come in behind it: two of them, and the verdict's latency, keep the line moving
    parameter BUFFER_ADDR_WIDTH = $clog2(2 * ((MAX_FRAME + KEEP_WIDTH - 1) / KEEP_WIDTH) + 32),
    // log2 of the frames the buffer may hold: minimal frames behind a largest one
    parameter ENTRY_ADDR_WIDTH = 7,
    // 1: headers leave before their ICRC is checked, m_verdict says which were good
    parameter EARLY_HDR = 0
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Ethernet frames from the MAC, without FCS; tuser marks a bad frame
     */
    input  wire [DATA_WIDTH-1:0]         s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]         s_axis_tkeep,
    input  wire                          s_axis_tvalid,
    output wire                          s_axis_tready,
    input  wire                          s_axis_tlast,
    input  wire                          s_axis_tuser,

    /*
     * Headers of good RoCE frames (contract: ROCE_HDR)
     */
    output wire [`HROCE_ROCE_HDR_WIDTH-1:0] m_hdr_data,
    output wire                          m_hdr_valid,
    input  wire                          m_hdr_ready,

    /*
     * EARLY_HDR: each header's ICRC verdict, in header order (1: good)
     */
    output wire                          m_verdict_good,
    output wire                          m_verdict_valid,
    input  wire                          m_verdict_ready,

    /*
     * Their payload, PAYLOAD_LEN bytes from lane 0 (no beats when it is zero)
     */
    output wire [DATA_WIDTH-1:0]         m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]         m_axis_tkeep,
    output wire                          m_axis_tvalid,
    input  wire                          m_axis_tready,
    output wire                          m_axis_tlast,

    /*
     * Frames that are not RoCE, whole; tdest (NET_FRAME) says which are ARP or ICMP
     */
    output wire [DATA_WIDTH-1:0]         m_other_tdata,
    output wire [KEEP_WIDTH-1:0]         m_other_tkeep,
    output wire                          m_other_tvalid,
    input  wire                          m_other_tready,
    output wire                          m_other_tlast,
    output wire [`HROCE_NET_FRAME_WIDTH-1:0] m_other_tdest,

    /*
     * Frame counters by verdict (contract: ROCE_RX_DROP), 32 bits each, wrapping
     */
    output wire [`HROCE_ROCE_RX_DROP_COUNT*32-1:0] stat_count
);

localparam LANE_BITS = $clog2(KEEP_WIDTH);
localparam HDR_WIDTH = `HROCE_ROCE_HDR_WIDTH;
localparam REASON_WIDTH = `HROCE_ROCE_RX_DROP_WIDTH;
localparam KIND_WIDTH = `HROCE_NET_FRAME_WIDTH;
localparam BEAT_WIDTH = DATA_WIDTH + KEEP_WIDTH + 1;
localparam ENTRY_WIDTH = HDR_WIDTH + 2 + REASON_WIDTH + KIND_WIDTH + 5 + 1 + 32;

localparam CLASS_ROCE = 2'd0;
localparam CLASS_OTHER = 2'd1;

localparam [1:0] MODE_GOOD = 2'd0;    // header out, payload realigned out
localparam [1:0] MODE_OTHER = 2'd1;   // whole frame to m_other
localparam [1:0] MODE_DROP = 2'd2;    // frame discarded

/*
 * Input side
 */
wire [DATA_WIDTH-1:0] frame_tdata;
wire [KEEP_WIDTH-1:0] frame_tkeep;
wire frame_tvalid, frame_tlast;
wire buffer_ready;

wire [HDR_WIDTH-1:0] entry_hdr;
wire [1:0] entry_class;
wire [REASON_WIDTH-1:0] entry_reason;
wire [KIND_WIDTH-1:0] entry_kind;
wire [6:2] entry_offset;
wire entry_fed;
wire [31:0] entry_icrc;
wire entry_valid;
wire [ENTRY_ADDR_WIDTH+1:0] entry_count;

wire [DATA_WIDTH-1:0] icrc_data;
wire [KEEP_WIDTH-1:0] icrc_keep;
wire icrc_valid, icrc_first, icrc_last;
wire [31:0] icrc_result;
wire icrc_result_valid;

// room for this beat, and for the entries of frames ending in the two parse stages
localparam [ENTRY_ADDR_WIDTH+1:0] ENTRY_LIMIT = 2**ENTRY_ADDR_WIDTH - 2;
assign s_axis_tready = buffer_ready && entry_count <= ENTRY_LIMIT;

roce_rx_parse #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .MAX_FRAME(MAX_FRAME)
)
parse_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .s_axis_tuser(s_axis_tuser),
    .m_frame_tdata(frame_tdata),
    .m_frame_tkeep(frame_tkeep),
    .m_frame_tvalid(frame_tvalid),
    .m_frame_tlast(frame_tlast),
    .m_entry_hdr(entry_hdr),
    .m_entry_class(entry_class),
    .m_entry_reason(entry_reason),
    .m_entry_kind(entry_kind),
    .m_entry_payload_offset(entry_offset),
    .m_entry_icrc_fed(entry_fed),
    .m_entry_icrc(entry_icrc),
    .m_entry_valid(entry_valid),
    .m_icrc_data(icrc_data),
    .m_icrc_keep(icrc_keep),
    .m_icrc_valid(icrc_valid),
    .m_icrc_first(icrc_first),
    .m_icrc_last(icrc_last)
);

roce_icrc #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH)
)
icrc_inst (
    .clk(clk),
    .rst(rst),
    .s_data(icrc_data),
    .s_keep(icrc_keep),
    .s_valid(icrc_valid),
    .s_first(icrc_first),
    .s_last(icrc_last),
    .m_icrc(icrc_result),
    .m_valid(icrc_result_valid)
);

/*
 * Buffers: frames, entries, ICRC results (the last two never fill: see s_axis_tready)
 */
wire [DATA_WIDTH-1:0] buf_tdata;
wire [KEEP_WIDTH-1:0] buf_tkeep;
wire buf_tlast, buf_tvalid, buf_tready;

fifo_sync #(
    .WIDTH(BEAT_WIDTH),
    .ADDR_WIDTH(BUFFER_ADDR_WIDTH)
)
buffer_inst (
    .clk(clk),
    .rst(rst),
    .s_data({frame_tlast, frame_tkeep, frame_tdata}),
    .s_valid(frame_tvalid),
    .s_ready(buffer_ready),
    .m_data({buf_tlast, buf_tkeep, buf_tdata}),
    .m_valid(buf_tvalid),
    .m_ready(buf_tready),
    .count()
);

wire [HDR_WIDTH-1:0] e_hdr;
wire [1:0] e_class;
wire [REASON_WIDTH-1:0] e_reason;
wire [KIND_WIDTH-1:0] e_kind;
wire [6:2] e_offset;
wire e_fed;
wire [31:0] e_icrc;
wire e_valid, e_ready;

fifo_sync #(
    .WIDTH(ENTRY_WIDTH),
    .ADDR_WIDTH(ENTRY_ADDR_WIDTH)
)
entry_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data({entry_hdr, entry_class, entry_reason, entry_kind, entry_offset, entry_fed, entry_icrc}),
    .s_valid(entry_valid),
    .s_ready(),
    .m_data({e_hdr, e_class, e_reason, e_kind, e_offset, e_fed, e_icrc}),
    .m_valid(e_valid),
    .m_ready(e_ready),
    .count(entry_count)
);

wire [31:0] r_fifo_icrc;
wire r_fifo_valid, r_fifo_ready;
wire [ENTRY_ADDR_WIDTH+2:0] r_fifo_count;
wire r_take;

// a result that finds the FIFO empty is offered at once too (the FIFO would show it two
// cycles later): taken, it is not queued
wire r_direct = icrc_result_valid && r_fifo_count == 0;
wire [31:0] r_icrc = r_fifo_valid ? r_fifo_icrc : icrc_result;
wire r_valid = r_fifo_valid || r_direct;
assign r_fifo_ready = r_take && r_fifo_valid;

fifo_sync #(
    .WIDTH(32),
    .ADDR_WIDTH(ENTRY_ADDR_WIDTH + 1)
)
icrc_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data(icrc_result),
    .s_valid(icrc_result_valid && !(r_direct && r_take)),
    .s_ready(),
    .m_data(r_fifo_icrc),
    .m_valid(r_fifo_valid),
    .m_ready(r_fifo_ready),
    .count(r_fifo_count)
);

/*
 * Verdict: the next frame's context, once its ICRC result is in
 */
reg next_valid_reg = 1'b0, next_valid_next;
reg [1:0] next_mode_reg = MODE_DROP, next_mode_next;
reg [HDR_WIDTH-1:0] next_hdr_reg = {HDR_WIDTH{1'b0}}, next_hdr_next;
reg [KIND_WIDTH-1:0] next_kind_reg = 0, next_kind_next;
reg [6:2] next_offset_reg = 5'd0, next_offset_next;

reg [31:0] count_reg [0:`HROCE_ROCE_RX_DROP_COUNT-1];
reg [REASON_WIDTH-1:0] verdict;
reg [1:0] mode;

wire take;                            // the current context is done: the next one starts
// EARLY_HDR: the head entry's header has left; its verdict, waiting to be taken
reg early_sent_reg = 1'b0, early_sent_next;
reg verdict_valid_reg = 1'b0, verdict_valid_next;
reg verdict_good_reg = 1'b0, verdict_good_next;
// a RoCE entry's verdict goes out once its header has, with room for it
wire early_done = EARLY_HDR == 0 || e_class != CLASS_ROCE ||
                  (early_sent_reg && (!verdict_valid_reg || m_verdict_ready));
wire load = e_valid && (!e_fed || r_valid) && (!next_valid_reg || take) && early_done;
assign e_ready = load;
assign r_take = load && e_fed;

always @* begin
    verdict = e_reason;
    mode = MODE_DROP;
    if (e_class == CLASS_OTHER) begin
        verdict = `HROCE_ROCE_RX_DROP_NOT_ROCE;
        mode = MODE_OTHER;
    end else if (e_class == CLASS_ROCE) begin
        if (r_icrc != e_icrc) begin
            verdict = `HROCE_ROCE_RX_DROP_ICRC;
        end else begin
            verdict = `HROCE_ROCE_RX_DROP_OK;
            mode = MODE_GOOD;
        end
    end

    early_sent_next = early_sent_reg;
    verdict_valid_next = verdict_valid_reg && !m_verdict_ready;
    verdict_good_next = verdict_good_reg;
    if (m_hdr_valid && m_hdr_ready) begin
        early_sent_next = 1'b1;
    end
    if (load && EARLY_HDR != 0) begin
        early_sent_next = 1'b0;
        if (e_class == CLASS_ROCE) begin
            verdict_valid_next = 1'b1;
            verdict_good_next = mode == MODE_GOOD;
        end
    end

    next_valid_next = next_valid_reg;
    next_mode_next = next_mode_reg;
    next_hdr_next = next_hdr_reg;
    next_kind_next = next_kind_reg;
    next_offset_next = next_offset_reg;
    if (take) begin
        next_valid_next = 1'b0;
    end
    if (load) begin
        next_valid_next = 1'b1;
        next_mode_next = mode;
        next_hdr_next = e_hdr;
        next_kind_next = e_kind;
        next_offset_next = e_offset;
    end
end

integer n;
initial begin
    for (n = 0; n < `HROCE_ROCE_RX_DROP_COUNT; n = n + 1) begin
        count_reg[n] = 32'd0;
    end
end

always @(posedge clk) begin
    early_sent_reg <= early_sent_next;
    verdict_valid_reg <= verdict_valid_next;
    verdict_good_reg <= verdict_good_next;
    next_valid_reg <= next_valid_next;
    next_mode_reg <= next_mode_next;
    next_hdr_reg <= next_hdr_next;
    next_kind_reg <= next_kind_next;
    next_offset_reg <= next_offset_next;
    if (load) begin
        count_reg[verdict] <= count_reg[verdict] + 32'd1;
    end

    if (rst) begin
        early_sent_reg <= 1'b0;
        verdict_valid_reg <= 1'b0;
        next_valid_reg <= 1'b0;
        for (n = 0; n < `HROCE_ROCE_RX_DROP_COUNT; n = n + 1) begin
            count_reg[n] <= 32'd0;
        end
    end
end

genvar g;
generate
    for (g = 0; g < `HROCE_ROCE_RX_DROP_COUNT; g = g + 1) begin : stat
        assign stat_count[g*32 +: 32] = count_reg[g];
    end
endgenerate

/*
 * Output: the current frame's beats leave the buffer one per cycle. A good frame's
 * payload starts at byte offset P = B*KEEP_WIDTH + SH; payload beat k is the lanes SH and
 * up of buffer beat B+k followed by the lanes below SH of beat B+k+1. When the payload's
 * tail sits in the frame's last beat, one flush beat follows, which overlaps the next
 * frame's first beat (that one never carries payload: every header is longer than SH).
 */
reg cur_valid_reg = 1'b0, cur_valid_next;
reg [1:0] cur_mode_reg = MODE_DROP, cur_mode_next;
reg [KIND_WIDTH-1:0] cur_kind_reg = 0, cur_kind_next;
reg [LANE_BITS-1:2] cur_shift_reg = 0, cur_shift_next;
reg [6:0] cur_skip_reg = 7'd0, cur_skip_next;   // beats before the first payload beat is formed
reg [12:0] cur_rem_reg = 13'd0, cur_rem_next;   // payload bytes still to send

reg [DATA_WIDTH-1:0] prev_data_reg = {DATA_WIDTH{1'b0}}, prev_data_next;
reg flush_valid_reg = 1'b0, flush_valid_next;
reg [LANE_BITS-1:2] flush_shift_reg = 0, flush_shift_next;
reg [LANE_BITS:0] flush_rem_reg = 0, flush_rem_next;

wire pay_ready, other_ready, hdr_ready;
reg pay_valid, other_valid;
reg [DATA_WIDTH-1:0] pay_data;
reg [KEEP_WIDTH-1:0] pay_keep;
reg pay_last;

wire consume;
wire last_consumed = consume && buf_tlast;
// (an early header has left already)
assign take = next_valid_reg && (!cur_valid_reg || last_consumed) &&
              (next_mode_reg != MODE_GOOD || hdr_ready || EARLY_HDR != 0);

// every beat waits for a pending flush to leave; a good frame's beats for the payload output
assign consume = cur_valid_reg && buf_tvalid && (!flush_valid_reg || pay_ready) &&
                 (cur_mode_reg == MODE_DROP ||
                  (cur_mode_reg == MODE_OTHER && other_ready) ||
                  (cur_mode_reg == MODE_GOOD && pay_ready));
assign buf_tready = consume;

wire [2*DATA_WIDTH-1:0] window = {flush_valid_reg ? {DATA_WIDTH{1'b0}} : buf_tdata, prev_data_reg};
// every RoCE header is 2 mod 4 bytes long (IPv4 without options, IPv6 without extension
// headers): so is the shift
wire [LANE_BITS-1:0] shift = {flush_valid_reg ? flush_shift_reg : cur_shift_reg, 2'b10};
reg [DATA_WIDTH-1:0] shifted;
integer i;
always @* begin
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        shifted[i*8 +: 8] = window[({1'b0, shift} + i[LANE_BITS:0])*8 +: 8];
    end
end

localparam [12:0] KEEP_BYTES = KEEP_WIDTH[12:0];

function [KEEP_WIDTH-1:0] keep_for(input [12:0] bytes);
    keep_for = bytes >= KEEP_BYTES ? {KEEP_WIDTH{1'b1}} : ~({KEEP_WIDTH{1'b1}} << bytes);
endfunction
wire [12:0] next_payload_len = next_hdr_reg[`HROCE_ROCE_HDR_PAYLOAD_LEN];
wire produce = cur_mode_reg == MODE_GOOD && cur_skip_reg == 7'd0 && cur_rem_reg != 13'd0;
wire [12:0] rem_after = (produce && cur_rem_reg > KEEP_BYTES) ? cur_rem_reg - KEEP_BYTES :
                        produce ? 13'd0 : cur_rem_reg;

always @* begin
    cur_valid_next = cur_valid_reg;
    cur_mode_next = cur_mode_reg;
    cur_kind_next = cur_kind_reg;
    cur_shift_next = cur_shift_reg;
    cur_skip_next = cur_skip_reg;
    cur_rem_next = cur_rem_reg;
    prev_data_next = prev_data_reg;
    flush_valid_next = flush_valid_reg;
    flush_shift_next = flush_shift_reg;
    flush_rem_next = flush_rem_reg;

    pay_valid = 1'b0;
    pay_data = shifted;
    pay_keep = keep_for(cur_rem_reg);
    pay_last = cur_rem_reg <= KEEP_BYTES;
    other_valid = 1'b0;

    if (flush_valid_reg && pay_ready) begin
        pay_valid = 1'b1;
        pay_keep = keep_for({{12-LANE_BITS{1'b0}}, flush_rem_reg});
        pay_last = 1'b1;
        flush_valid_next = 1'b0;
    end

    if (consume) begin
        prev_data_next = buf_tdata;
        if (cur_skip_reg != 7'd0) begin
            cur_skip_next = cur_skip_reg - 7'd1;
        end
        pay_valid = pay_valid || produce;
        other_valid = cur_mode_reg == MODE_OTHER;
        cur_rem_next = rem_after;
        if (buf_tlast) begin
            cur_valid_next = 1'b0;
            if (cur_mode_reg == MODE_GOOD && rem_after != 13'd0) begin
                flush_valid_next = 1'b1;
                flush_shift_next = cur_shift_reg;
                flush_rem_next = rem_after[LANE_BITS:0];
            end
        end
    end

    if (take) begin
        cur_valid_next = 1'b1;
        cur_mode_next = next_mode_reg;
        cur_kind_next = next_kind_reg;
        cur_shift_next = next_offset_reg[LANE_BITS-1:2];
        cur_skip_next = {{LANE_BITS{1'b0}}, next_offset_reg[6:LANE_BITS]} + 7'd1;
        cur_rem_next = next_mode_reg == MODE_GOOD ? next_payload_len : 13'd0;
    end
end

always @(posedge clk) begin
    cur_valid_reg <= cur_valid_next;
    cur_mode_reg <= cur_mode_next;
    cur_kind_reg <= cur_kind_next;
    cur_shift_reg <= cur_shift_next;
    cur_skip_reg <= cur_skip_next;
    cur_rem_reg <= cur_rem_next;
    prev_data_reg <= prev_data_next;
    flush_valid_reg <= flush_valid_next;
    flush_shift_reg <= flush_shift_next;
    flush_rem_reg <= flush_rem_next;

    if (rst) begin
        cur_valid_reg <= 1'b0;
        flush_valid_reg <= 1'b0;
    end
end

axis_skid #(
    .WIDTH(DATA_WIDTH + KEEP_WIDTH + 1)
)
payload_skid_inst (
    .clk(clk),
    .rst(rst),
    .s_data({pay_last, pay_keep, pay_data}),
    .s_valid(pay_valid),
    .s_ready(pay_ready),
    .m_data({m_axis_tlast, m_axis_tkeep, m_axis_tdata}),
    .m_valid(m_axis_tvalid),
    .m_ready(m_axis_tready)
);

axis_skid #(
    .WIDTH(KIND_WIDTH + DATA_WIDTH + KEEP_WIDTH + 1)
)
other_skid_inst (
    .clk(clk),
    .rst(rst),
    .s_data({cur_kind_reg, buf_tlast, buf_tkeep, buf_tdata}),
    .s_valid(other_valid),
    .s_ready(other_ready),
    .m_data({m_other_tdest, m_other_tlast, m_other_tkeep, m_other_tdata}),
    .m_valid(m_other_tvalid),
    .m_ready(m_other_tready)
);

generate
    if (EARLY_HDR != 0) begin : early
        // straight from the entry FIFO's output register: the entry stays at the head
        // until its verdict, so the header is held as long as it is offered
        assign m_hdr_data = e_hdr;
        assign m_hdr_valid = e_valid && e_class == CLASS_ROCE && !early_sent_reg;
        assign hdr_ready = 1'b1;
    end else begin : checked
        axis_skid #(
            .WIDTH(HDR_WIDTH)
        )
        hdr_skid_inst (
            .clk(clk),
            .rst(rst),
            .s_data(next_hdr_reg),
            .s_valid(take && next_mode_reg == MODE_GOOD),
            .s_ready(hdr_ready),
            .m_data(m_hdr_data),
            .m_valid(m_hdr_valid),
            .m_ready(m_hdr_ready)
        );
    end
endgenerate

assign m_verdict_good = verdict_good_reg;
assign m_verdict_valid = verdict_valid_reg;

endmodule

`resetall
