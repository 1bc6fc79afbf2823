/*

One client of dma_rd: its requests cut into bursts, the room of its buffer, the bursts
in flight, the buffer, and its output stream.

    s_req -> pending request -> burst register --(credit, room for the info)--> m_burst
                                             \-> info FIFO (one entry per burst in flight)
    R beats (rotated by dma_rd) -> buffer -> packer -> m_axis

A request is cut at every 2^BOUND_LOG-byte boundary of the address space (4 KiB, or the
buffer's size if smaller), so that no burst crosses 4 KiB and every burst fits the
buffer; after its first burst, a request's bursts start on that boundary. A burst is
offered to the arbiter only while the buffer has room for all its beats that no other
burst has reserved (the credit): its R beats are then always taken, and a client that
stops taking data stalls none but itself. The credit comes back as beats leave the buffer.

Aligned clients (STREAM = 0) read whole beats: the buffer's beats go out as they are.
Stream clients pack the bytes of their requests, each read from any address, into one
byte stream from lane 0: dma_rd rotates every R beat so that its bytes sit in the lanes
they take in the output (the rotation of a burst follows from the stream's position mod
the beat at the burst's first byte, kept here as spos), and the packer merges the lanes
of the partial beat it holds with the next buffered beat. A beat that does not complete
the partial one is absorbed without output; a packet's last beat goes out with tlast,
and when the packet's final bytes spill over into a second beat, that beat follows the
next cycle.

The buffer is block RAM read through registers (more than 64 beats) or distributed RAM
read directly; either way a beat written is at its output the next cycle. The packer's
output is combinational from its registers and the buffer's output (a lane multiplexer;
an aligned client has none: its output is the buffer's), and m_axis_tready reaches only
the buffer's read side and the credit.

The bursts in flight are limited by the info FIFO (2^BURST_ADDR_WIDTH entries): dma_rd
reads the entry of the burst R is answering (its rotation, first and last lanes, and
whether it ends a request, or for a stream client a packet) and pops it with the burst's
last beat.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module dma_rd_client #
(
    // Width of the data path (the host bus and the output stream)
    parameter DATA_WIDTH = 512,
    // Width of tkeep
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // Byte stream (1) or whole aligned beats (0)
    parameter STREAM = 0,
    // log2 of the beats the buffer holds
    parameter BUF_ADDR_WIDTH = 4,
    // log2 of the bursts in flight
    parameter BURST_ADDR_WIDTH = 4,
    // Bits of a lane index
    parameter LANE_BITS = $clog2(KEEP_WIDTH)
)
(
    input  wire                  clk,
    input  wire                  rst,

    /*
     * Requests
     */
    input  wire [63:0]           s_req_addr,
    input  wire [15:0]           s_req_len,
    input  wire                  s_req_last,
    input  wire                  s_req_valid,
    output wire                  s_req_ready,

    /*
     * Burst to read: valid once the buffer has room for it; ready when it is issued
     */
    output wire [63:0]           m_burst_addr,
    output wire [7:0]            m_burst_len,
    output wire                  m_burst_valid,
    input  wire                  m_burst_ready,

    /*
     * The oldest burst in flight, and whether R is at its first beat (mid low)
     */
    output wire [LANE_BITS-1:0]  m_info_rot,
    output wire [LANE_BITS-1:0]  m_info_lo,
    output wire [LANE_BITS-1:0]  m_info_hi,
    output wire                  m_info_end,
    output wire                  m_info_mid,
    output wire                  m_info_valid,

    /*
     * A beat of this client on R this cycle (pops the info entry with rlast)
     */
    input  wire                  s_rbeat_valid,
    input  wire                  s_rbeat_last,

    /*
     * Buffer input: a beat rotated to its output lanes, its bytes - 1, end, error
     */
    input  wire [DATA_WIDTH-1:0] s_buf_data,
    input  wire [LANE_BITS-1:0]  s_buf_nm1,
    input  wire                  s_buf_end,
    input  wire                  s_buf_err,
    input  wire                  s_buf_valid,

    /*
     * Output stream
     */
    output wire [DATA_WIDTH-1:0] m_axis_tdata,
    output wire [KEEP_WIDTH-1:0] m_axis_tkeep,
    output wire                  m_axis_tvalid,
    input  wire                  m_axis_tready,
    output wire                  m_axis_tlast,
    output wire                  m_axis_tuser
);

// bursts never cross a 2^BOUND_LOG-byte boundary: 4 KiB, or the buffer's size
localparam BOUND_LOG = BUF_ADDR_WIDTH + LANE_BITS < 12 ? BUF_ADDR_WIDTH + LANE_BITS : 12;
localparam BYTES_WIDTH = BOUND_LOG + 1;
localparam BEATS_WIDTH = BOUND_LOG - LANE_BITS + 1;
localparam CREDIT_WIDTH = BUF_ADDR_WIDTH + 1;
localparam INFO_WIDTH = 3*LANE_BITS + 1;
localparam BUF_WIDTH = DATA_WIDTH + LANE_BITS + 2;
// lane offsets exist only in streams: everything computed from them is constant otherwise
localparam [LANE_BITS-1:0] LANE_MASK = STREAM ? {LANE_BITS{1'b1}} : {LANE_BITS{1'b0}};
localparam [0:0] IS_STREAM = STREAM != 0;
localparam [CREDIT_WIDTH-1:0] CREDIT_FULL = 2**BUF_ADDR_WIDTH;
localparam [BYTES_WIDTH-1:0] BOUND_BYTES = 2**BOUND_LOG;

initial begin
    if (KEEP_WIDTH * 8 != DATA_WIDTH || (1 << LANE_BITS) != KEEP_WIDTH) begin
        $error("Error: KEEP_WIDTH must be DATA_WIDTH/8, a power of two (instance %m)");
        $finish;
    end

    if (BUF_ADDR_WIDTH < 1 || BURST_ADDR_WIDTH < 1) begin
        $error("Error: BUF_ADDR_WIDTH and BURST_ADDR_WIDTH must be at least 1 (instance %m)");
        $finish;
    end
end

/*
 * Requests into bursts
 */
reg q_valid_reg = 1'b0, q_valid_next;           // pending request, or the rest of one
reg [63:0] q_addr_reg = 64'd0, q_addr_next;
reg [15:0] q_left_reg = 16'd0, q_left_next;
reg q_last_reg = 1'b0, q_last_next;

reg b_valid_reg = 1'b0, b_valid_next;           // the next burst to issue
reg [63:0] b_addr_reg = 64'd0, b_addr_next;
reg [BEATS_WIDTH-1:0] b_beats_reg = {BEATS_WIDTH{1'b0}}, b_beats_next;
reg [INFO_WIDTH-1:0] b_info_reg = {INFO_WIDTH{1'b0}}, b_info_next;

reg [LANE_BITS-1:0] spos_reg = {LANE_BITS{1'b0}}, spos_next;  // stream position mod a beat
reg [CREDIT_WIDTH-1:0] credit_reg = CREDIT_FULL, credit_next;
reg mid_reg = 1'b0, mid_next;

// the burst's beats, in the credit's width
reg [CREDIT_WIDTH-1:0] b_beats_credit;

always @* begin
    b_beats_credit = {CREDIT_WIDTH{1'b0}};
    b_beats_credit[BEATS_WIDTH-1:0] = b_beats_reg;
end

wire info_s_ready;
wire [INFO_WIDTH-1:0] info_m_data;
wire info_m_valid;

// the request a burst is cut from: the pending one, else the one offered
wire [63:0] src_addr = q_valid_reg ? q_addr_reg : s_req_addr;
wire [15:0] src_left = q_valid_reg ? q_left_reg : s_req_len;
wire src_last = q_valid_reg ? q_last_reg : s_req_last;
wire src_valid = q_valid_reg || s_req_valid;

wire [BYTES_WIDTH-1:0] src_bound = BOUND_BYTES - {1'b0, src_addr[BOUND_LOG-1:0]};
wire src_end = src_left <= {{16-BYTES_WIDTH{1'b0}}, src_bound};
wire [BYTES_WIDTH-1:0] src_bytes = src_end ? src_left[BYTES_WIDTH-1:0] : src_bound;
wire [LANE_BITS-1:0] src_lo = src_addr[LANE_BITS-1:0] & LANE_MASK;
wire [BYTES_WIDTH-1:0] src_lo_end = {{BYTES_WIDTH-LANE_BITS{1'b0}}, src_lo} + src_bytes;
wire [BEATS_WIDTH-1:0] src_beats = src_lo_end[BYTES_WIDTH-1:LANE_BITS] +
    {{BEATS_WIDTH-1{1'b0}}, |src_lo_end[LANE_BITS-1:0]};
wire [LANE_BITS-1:0] src_hi =
    (src_lo_end[LANE_BITS-1:0] - {{LANE_BITS-1{1'b0}}, 1'b1}) | ~LANE_MASK;
wire [LANE_BITS-1:0] src_rot = (spos_reg - src_lo) & LANE_MASK;
// a stream's info marks the end of a packet, an aligned client's the end of a request
wire src_info_end = src_end && (src_last || !STREAM);
wire [LANE_BITS-1:0] src_spos = src_info_end ? {LANE_BITS{1'b0}} :
    (spos_reg + src_bytes[LANE_BITS-1:0]) & LANE_MASK;

wire b_free = !b_valid_reg || m_burst_ready;
wire load_b = b_free && src_valid;

assign s_req_ready = !q_valid_reg;
assign m_burst_addr = b_addr_reg;
assign m_burst_len = {{8-BEATS_WIDTH{1'b0}}, b_beats_reg} - 8'd1;
assign m_burst_valid = b_valid_reg && info_s_ready && credit_reg >= b_beats_credit;

always @* begin
    q_valid_next = q_valid_reg;
    q_addr_next = q_addr_reg;
    q_left_next = q_left_reg;
    q_last_next = q_last_reg;
    b_valid_next = b_valid_reg && !m_burst_ready;
    b_addr_next = b_addr_reg;
    b_beats_next = b_beats_reg;
    b_info_next = b_info_reg;
    spos_next = spos_reg;

    if (load_b) begin
        b_valid_next = 1'b1;
        b_addr_next = src_addr;
        b_beats_next = src_beats;
        b_info_next = {src_rot, src_lo, src_hi, src_info_end};
        spos_next = src_spos;
        // the rest of the request waits in q, starting on the boundary
        q_valid_next = !src_end;
        q_addr_next = {src_addr[63:BOUND_LOG] + 1'b1, {BOUND_LOG{1'b0}}};
        q_left_next = src_left - {{16-BYTES_WIDTH{1'b0}}, src_bytes};
        q_last_next = src_last;
    end else if (s_req_valid && !q_valid_reg) begin
        q_valid_next = 1'b1;
        q_addr_next = s_req_addr;
        q_left_next = s_req_len;
        q_last_next = s_req_last;
    end
end

/*
 * Info FIFO: the bursts in flight
 */
fifo_sync #(
    .WIDTH(INFO_WIDTH),
    .ADDR_WIDTH(BURST_ADDR_WIDTH)
)
info_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data(b_info_reg),
    .s_valid(m_burst_ready),
    .s_ready(info_s_ready),
    .m_data(info_m_data),
    .m_valid(info_m_valid),
    .m_ready(s_rbeat_valid && s_rbeat_last),
    .count()
);

assign m_info_rot = info_m_data[INFO_WIDTH-1 -: LANE_BITS] & LANE_MASK;
assign m_info_lo = info_m_data[2*LANE_BITS:LANE_BITS+1] & LANE_MASK;
assign m_info_hi = info_m_data[LANE_BITS:1] | ~LANE_MASK;
assign m_info_end = info_m_data[0];
assign m_info_valid = info_m_valid;
assign m_info_mid = mid_reg;

/*
 * Buffer and packer
 */
wire [DATA_WIDTH-1:0] head_data;
wire [LANE_BITS-1:0] head_nm1_raw;
wire head_end, head_err, head_valid;
wire head_pop;

// block RAM read through registers when deep, distributed RAM read directly when shallow
dma_fifo #(
    .WIDTH(BUF_WIDTH),
    .ADDR_WIDTH(BUF_ADDR_WIDTH),
    .REG_OUTPUT(BUF_ADDR_WIDTH > 6)
)
buf_inst (
    .clk(clk),
    .rst(rst),
    .s_data({s_buf_data, s_buf_nm1, s_buf_end, s_buf_err}),
    .s_valid(s_buf_valid),
    .s_ready(),
    .m_data({head_data, head_nm1_raw, head_end, head_err}),
    .m_valid(head_valid),
    .m_ready(head_pop),
    .count()
);

reg [DATA_WIDTH-1:0] part_data_reg = {DATA_WIDTH{1'b0}}, part_data_next;
reg [LANE_BITS-1:0] part_bytes_reg = {LANE_BITS{1'b0}}, part_bytes_next;
reg flush_reg = 1'b0, flush_next;   // the partial beat ends a packet: it goes out next
// (an aligned client's beats are whole: it never holds a partial one)
wire flush = flush_reg && IS_STREAM;
reg err_reg = 1'b0, err_next;       // an error in the packet (request) so far

// lanes held in the partial beat, and bytes in it once the head beat is merged
wire [LANE_BITS-1:0] part_bytes = part_bytes_reg & LANE_MASK;
wire [LANE_BITS-1:0] head_nm1 = head_nm1_raw | ~LANE_MASK;
wire [LANE_BITS:0] total = {1'b0, part_bytes} + {1'b0, head_nm1} + {{LANE_BITS{1'b0}}, 1'b1};
wire total_full = total[LANE_BITS];
wire [LANE_BITS-1:0] total_rest = total[LANE_BITS-1:0];

// lanes below part_bytes, and below total (for a total under a beat)
wire [KEEP_WIDTH-1:0] part_lanes = ~({KEEP_WIDTH{1'b1}} << part_bytes);
wire [KEEP_WIDTH-1:0] total_lanes = ~({KEEP_WIDTH{1'b1}} << total_rest);
reg [DATA_WIDTH-1:0] merged;
integer i;

// (the head's lanes only when it goes: a beat waiting at the output never changes)
always @* begin
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        merged[i*8 +: 8] = part_lanes[i] || flush ?
            part_data_reg[i*8 +: 8] : head_data[i*8 +: 8];
    end
end

wire head_emit = head_valid && !flush && (total_full || head_end);
wire head_absorb = head_valid && !flush && !total_full && !head_end;
wire head_tlast = head_end && (!total_full || total_rest == 0);

assign head_pop = head_absorb || (head_emit && m_axis_tready);

assign m_axis_tdata = merged;
assign m_axis_tkeep = flush ? part_lanes : (total_full ? {KEEP_WIDTH{1'b1}} : total_lanes);
assign m_axis_tvalid = flush || head_emit;
assign m_axis_tlast = flush || head_tlast;
assign m_axis_tuser = err_reg || (!flush && head_err);

always @* begin
    part_data_next = part_data_reg;
    part_bytes_next = part_bytes_reg;
    flush_next = flush_reg;
    err_next = err_reg;
    credit_next = credit_reg;
    mid_next = mid_reg;

    if (flush) begin
        if (m_axis_tready) begin
            flush_next = 1'b0;
            part_bytes_next = {LANE_BITS{1'b0}};
            err_next = 1'b0;
        end
    end else if (head_pop) begin
        err_next = err_reg || head_err;
        if (head_absorb) begin
            part_data_next = merged;
            part_bytes_next = total_rest;
        end else if (head_tlast) begin
            part_bytes_next = {LANE_BITS{1'b0}};
            err_next = 1'b0;
        end else begin
            // the head's lanes past the beat just sent start the next one
            part_data_next = head_data;
            part_bytes_next = total_rest;
            flush_next = head_end && IS_STREAM;
        end
    end

    credit_next = credit_reg + {{CREDIT_WIDTH-1{1'b0}}, head_pop};
    if (m_burst_ready) begin
        credit_next = credit_next - b_beats_credit;
    end

    if (s_rbeat_valid) begin
        mid_next = !s_rbeat_last;
    end
end

always @(posedge clk) begin
    q_valid_reg <= q_valid_next;
    q_addr_reg <= q_addr_next;
    q_left_reg <= q_left_next;
    q_last_reg <= q_last_next;
    b_valid_reg <= b_valid_next;
    b_addr_reg <= b_addr_next;
    b_beats_reg <= b_beats_next;
    b_info_reg <= b_info_next;
    spos_reg <= spos_next;
    credit_reg <= credit_next;
    mid_reg <= mid_next;
    part_data_reg <= part_data_next;
    part_bytes_reg <= part_bytes_next;
    flush_reg <= flush_next;
    err_reg <= err_next;

    if (rst) begin
        q_valid_reg <= 1'b0;
        b_valid_reg <= 1'b0;
        spos_reg <= {LANE_BITS{1'b0}};
        credit_reg <= CREDIT_FULL;
        mid_reg <= 1'b0;
        part_bytes_reg <= {LANE_BITS{1'b0}};
        flush_reg <= 1'b0;
        err_reg <= 1'b0;
    end
end

endmodule

`resetall
