/*

One client of dma_wr: its data buffer, its requests cut into bursts, which burst is
complete in the buffer, and the completions of its requests.

    s_axis -> buffer (beats as they come, and the byte count of every packet's last beat)
    s_req  -> pending request -> burst register --(all its beats in the buffer)--> m_burst
    dma_wr's W engine reads the burst's beats through the read port and frees them
    B responses -> burst FIFO (one entry per burst in flight) -> m_done

The data is a byte stream made of packets (tlast), each from lane 0 of a new beat; the
requests tile the packets: a request takes the next len bytes of the stream, never from
two packets. The buffer keeps the beats as they come, and the request side keeps the
stream position (beat and lane) of the next request: a request that ends mid-beat leaves
the next one in the same beat, unless it ended its packet (the beat is the packet's last
and the request took its last byte: the byte count recorded with every packet's last
beat says so), when the next one starts at the next beat.

A request is cut at every 2^BOUND_LOG-byte boundary of the address space (4 KiB, less
when the buffer is small) so that no burst crosses 4 KiB and every burst's beats fit
the buffer. A burst is offered (m_burst_valid) once every beat holding its bytes is in
the buffer: the W channel then never waits for this client. The W engine frees the
beats as it reads them, but for the last one when the next burst starts in it. The
buffer is block RAM, or distributed RAM for 64 beats or less.

ALIGN_LOG: the client promises that every request's address, and the stream position it
starts at, are multiples of 2^ALIGN_LOG bytes (all requests but the last of a packet
have lengths that are multiples); lane offsets below that are taken as zero, so that the
shifting they need is narrower.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module dma_wr_client #
(
    // Width of the data path (the host bus and the input stream)
    parameter DATA_WIDTH = 512,
    // Width of tkeep
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // log2 of the beats the buffer holds (at least 2)
    parameter BUF_ADDR_WIDTH = 7,
    // log2 of the alignment of addresses and stream positions (0: any byte)
    parameter ALIGN_LOG = 0,
    // log2 of the bursts in flight (from AW to B)
    parameter BURST_ADDR_WIDTH = 4,
    // Width of a beat pointer (more than BUF_ADDR_WIDTH)
    parameter PTR_WIDTH = BUF_ADDR_WIDTH + 1,
    // Bits of a lane index
    parameter LANE_BITS = $clog2(KEEP_WIDTH),
    // Width of a burst's count of buffer beats
    parameter NEED_WIDTH = LANE_BITS + 1
)
(
    input  wire                  clk,
    input  wire                  rst,

    /*
     * Requests
     */
    input  wire [63:0]           s_req_addr,
    input  wire [15:0]           s_req_len,
    input  wire                  s_req_valid,
    output wire                  s_req_ready,

    /*
     * Data
     */
    input  wire [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire                  s_axis_tvalid,
    output wire                  s_axis_tready,
    input  wire                  s_axis_tlast,

    /*
     * Burst to write, valid once its data is in the buffer; ready when it is issued.
     * Its bytes start at lane m_burst_lane of buffer beat m_burst_beat and take
     * m_burst_need beats; m_burst_lo and m_burst_hi are its first and last byte lanes on
     * the bus; the buffer is free up to m_burst_free once it is read.
     */
    output wire [63:0]           m_burst_addr,
    output wire [7:0]            m_burst_len,
    output wire [LANE_BITS-1:0]  m_burst_lo,
    output wire [LANE_BITS-1:0]  m_burst_hi,
    output wire [PTR_WIDTH-1:0]  m_burst_beat,
    output wire [LANE_BITS-1:0]  m_burst_lane,
    output wire [NEED_WIDTH-1:0] m_burst_need,
    output wire [PTR_WIDTH-1:0]  m_burst_free,
    output wire                  m_burst_valid,
    input  wire                  m_burst_ready,

    /*
     * Buffer read port (data the cycle after s_rd_en), and beats freed up to s_free_ptr
     */
    input  wire                  s_rd_en,
    input  wire [BUF_ADDR_WIDTH-1:0] s_rd_addr,
    output wire [DATA_WIDTH-1:0] m_rd_data,
    input  wire                  s_free_valid,
    input  wire [PTR_WIDTH-1:0]  s_free_ptr,

    /*
     * B responses of this client's bursts, and the completions of its requests
     */
    input  wire                  s_b_valid,
    input  wire                  s_b_error,
    output wire                  m_done_valid,
    output wire                  m_done_error
);

// bursts never cross a 2^BOUND_LOG-byte boundary: 4 KiB, or half the buffer
localparam BOUND_LOG = BUF_ADDR_WIDTH + LANE_BITS - 1 < 12 ?
    BUF_ADDR_WIDTH + LANE_BITS - 1 : 12;
localparam BYTES_WIDTH = BOUND_LOG + 1;
localparam BEATS_WIDTH = BOUND_LOG - LANE_BITS + 1;
localparam DEPTH = 2**BUF_ADDR_WIDTH;
localparam [PTR_WIDTH-1:0] PTR_FULL = DEPTH;
localparam [PTR_WIDTH-1:0] PTR_ONE = 1;
localparam [BYTES_WIDTH-1:0] BOUND_BYTES = 2**BOUND_LOG;
localparam [LANE_BITS-1:0] LANE_MASK = {LANE_BITS{1'b1}} << ALIGN_LOG;

initial begin
    if (KEEP_WIDTH * 8 != DATA_WIDTH || (1 << LANE_BITS) != KEEP_WIDTH) begin
        $error("Error: KEEP_WIDTH must be DATA_WIDTH/8, a power of two (instance %m)");
        $finish;
    end

    if (BUF_ADDR_WIDTH < 2 || PTR_WIDTH <= BUF_ADDR_WIDTH) begin
        $error("Error: BUF_ADDR_WIDTH must be at least 2, PTR_WIDTH above it (instance %m)");
        $finish;
    end

    if (ALIGN_LOG > LANE_BITS || NEED_WIDTH < BEATS_WIDTH) begin
        $error("Error: ALIGN_LOG or NEED_WIDTH out of range (instance %m)");
        $finish;
    end
end

/*
 * Buffer: the beats, and the byte count of each packet's last beat (0: a whole beat or
 * not a last beat)
 */
reg [DATA_WIDTH-1:0] mem [0:DEPTH-1];
reg [LANE_BITS-1:0] last_bytes_mem [0:DEPTH-1];

reg [PTR_WIDTH-1:0] wr_ptr_reg = {PTR_WIDTH{1'b0}}, wr_ptr_next;
reg [PTR_WIDTH-1:0] free_ptr_reg = {PTR_WIDTH{1'b0}}, free_ptr_next;
reg tready_reg = 1'b0, tready_next;

wire write = s_axis_tvalid && tready_reg;

reg [LANE_BITS-1:0] in_last_bytes;
integer i;

always @* begin
    // tkeep is contiguous from lane 0: its bytes end after its highest lane
    in_last_bytes = {LANE_BITS{1'b0}};
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        if (s_axis_tkeep[i]) begin
            in_last_bytes = i[LANE_BITS-1:0] + {{LANE_BITS-1{1'b0}}, 1'b1};
        end
    end
    if (!s_axis_tlast) begin
        in_last_bytes = {LANE_BITS{1'b0}};
    end
end

assign s_axis_tready = tready_reg;

always @* begin
    wr_ptr_next = wr_ptr_reg + {{PTR_WIDTH-1{1'b0}}, write};
    free_ptr_next = s_free_valid ? s_free_ptr : free_ptr_reg;
    tready_next = wr_ptr_next - free_ptr_next != PTR_FULL;
end

always @(posedge clk) begin
    if (write) begin
        mem[wr_ptr_reg[BUF_ADDR_WIDTH-1:0]] <= s_axis_tdata;
        last_bytes_mem[wr_ptr_reg[BUF_ADDR_WIDTH-1:0]] <= in_last_bytes;
    end
end

// the read port: block RAM registers the data, distributed RAM (64 beats or less) the
// address (a beat read is not written again before the clock edge that takes its data)
generate
    if (BUF_ADDR_WIDTH > 6) begin : block_ram
        reg [DATA_WIDTH-1:0] rd_data_reg = {DATA_WIDTH{1'b0}};

        always @(posedge clk) begin
            if (s_rd_en) begin
                rd_data_reg <= mem[s_rd_addr];
            end
        end

        assign m_rd_data = rd_data_reg;
    end else begin : dist_ram
        reg [BUF_ADDR_WIDTH-1:0] rd_addr_reg = {BUF_ADDR_WIDTH{1'b0}};

        always @(posedge clk) begin
            if (s_rd_en) begin
                rd_addr_reg <= s_rd_addr;
            end
        end

        assign m_rd_data = mem[rd_addr_reg];
    end
endgenerate

/*
 * Requests into bursts
 */
reg q_valid_reg = 1'b0, q_valid_next;            // pending request, or the rest of one
reg [63:0] q_addr_reg = 64'd0, q_addr_next;
reg [15:0] q_left_reg = 16'd0, q_left_next;

reg b_valid_reg = 1'b0, b_valid_next;            // the next burst to issue
reg [63:0] b_addr_reg = 64'd0, b_addr_next;
reg [BEATS_WIDTH-1:0] b_beats_reg = {BEATS_WIDTH{1'b0}}, b_beats_next;
reg [LANE_BITS-1:0] b_lo_reg = {LANE_BITS{1'b0}}, b_lo_next;
reg [LANE_BITS-1:0] b_hi_reg = {LANE_BITS{1'b0}}, b_hi_next;
reg [PTR_WIDTH-1:0] b_beat_reg = {PTR_WIDTH{1'b0}}, b_beat_next;
reg [LANE_BITS-1:0] b_lane_reg = {LANE_BITS{1'b0}}, b_lane_next;
reg [BEATS_WIDTH-1:0] b_need_reg = {BEATS_WIDTH{1'b0}}, b_need_next;
reg b_end_reg = 1'b0, b_end_next;                // the last burst of its request
reg [PTR_WIDTH-1:0] b_cont_beat_reg = {PTR_WIDTH{1'b0}}, b_cont_beat_next;  // right after it
reg [LANE_BITS-1:0] b_cont_lane_reg = {LANE_BITS{1'b0}}, b_cont_lane_next;

reg [PTR_WIDTH-1:0] pos_beat_reg = {PTR_WIDTH{1'b0}}, pos_beat_next;  // the next request's start
reg [LANE_BITS-1:0] pos_lane_reg = {LANE_BITS{1'b0}}, pos_lane_next;

wire bq_s_ready;

// a continuation starts right after the burst issued; a new request where the last ended
wire cont = b_valid_reg && m_burst_ready && !b_end_reg;
wire [63:0] src_addr = q_valid_reg ? q_addr_reg : s_req_addr;
wire [15:0] src_left = q_valid_reg ? q_left_reg : s_req_len;
wire [PTR_WIDTH-1:0] src_beat = b_valid_reg ? b_cont_beat_reg : pos_beat_reg;
wire [LANE_BITS-1:0] src_lane = (b_valid_reg ? b_cont_lane_reg : pos_lane_reg) & LANE_MASK;
wire load_b = cont || (!b_valid_reg && (q_valid_reg || s_req_valid));

wire [BYTES_WIDTH-1:0] src_bound = BOUND_BYTES - {1'b0, src_addr[BOUND_LOG-1:0]};
wire src_end = src_left <= {{16-BYTES_WIDTH{1'b0}}, src_bound};
wire [BYTES_WIDTH-1:0] src_bytes = src_end ? src_left[BYTES_WIDTH-1:0] : src_bound;
wire [LANE_BITS-1:0] src_lo = src_addr[LANE_BITS-1:0] & LANE_MASK;
// on the bus: the burst's end from the start of its first beat
wire [BYTES_WIDTH-1:0] src_lo_end = {{BYTES_WIDTH-LANE_BITS{1'b0}}, src_lo} + src_bytes;
wire [BEATS_WIDTH-1:0] src_beats = src_lo_end[BYTES_WIDTH-1:LANE_BITS] +
    {{BEATS_WIDTH-1{1'b0}}, |src_lo_end[LANE_BITS-1:0]};
wire [LANE_BITS-1:0] src_hi = src_lo_end[LANE_BITS-1:0] - {{LANE_BITS-1{1'b0}}, 1'b1};
// in the buffer: the burst's end from the start of its first beat
wire [BYTES_WIDTH-1:0] src_lane_end = {{BYTES_WIDTH-LANE_BITS{1'b0}}, src_lane} + src_bytes;
wire [BEATS_WIDTH-1:0] src_lane_beats = src_lane_end[BYTES_WIDTH-1:LANE_BITS];
// (at most 2^(BOUND_LOG-LANE_BITS) + 1: it fits)
wire [BEATS_WIDTH-1:0] src_need = src_lane_beats +
    {{BEATS_WIDTH-1{1'b0}}, |src_lane_end[LANE_BITS-1:0]};

reg [PTR_WIDTH-1:0] src_lane_beats_ptr;
reg [PTR_WIDTH-1:0] b_need_ptr;
reg [NEED_WIDTH-1:0] b_need_out;

always @* begin
    src_lane_beats_ptr = {PTR_WIDTH{1'b0}};
    src_lane_beats_ptr[BEATS_WIDTH-1:0] = src_lane_beats;
    b_need_ptr = {PTR_WIDTH{1'b0}};
    b_need_ptr[BEATS_WIDTH-1:0] = b_need_reg;
    b_need_out = {NEED_WIDTH{1'b0}};
    b_need_out[BEATS_WIDTH-1:0] = b_need_reg;
end

// where the request the burst ends starts the next one: after its last byte, or at the
// next beat if it took the last byte of a packet
wire [LANE_BITS-1:0] cont_last_bytes = last_bytes_mem[b_cont_beat_reg[BUF_ADDR_WIDTH-1:0]];
wire packet_end = b_cont_lane_reg != {LANE_BITS{1'b0}} &&
    cont_last_bytes != {LANE_BITS{1'b0}} && b_cont_lane_reg >= cont_last_bytes;

// complete: every beat of it is in the buffer
wire b_complete = wr_ptr_reg - b_beat_reg >= b_need_ptr;

assign s_req_ready = !q_valid_reg;
assign m_burst_addr = b_addr_reg;
assign m_burst_len = {{8-BEATS_WIDTH{1'b0}}, b_beats_reg} - 8'd1;
assign m_burst_lo = b_lo_reg;
assign m_burst_hi = b_hi_reg;
assign m_burst_beat = b_beat_reg;
assign m_burst_lane = b_lane_reg;
assign m_burst_need = b_need_out;
assign m_burst_free = b_cont_beat_reg + (b_end_reg && packet_end ? PTR_ONE : {PTR_WIDTH{1'b0}});
assign m_burst_valid = b_valid_reg && b_complete && bq_s_ready;

always @* begin
    q_valid_next = q_valid_reg;
    q_addr_next = q_addr_reg;
    q_left_next = q_left_reg;
    b_valid_next = b_valid_reg && !m_burst_ready;
    b_addr_next = b_addr_reg;
    b_beats_next = b_beats_reg;
    b_lo_next = b_lo_reg;
    b_hi_next = b_hi_reg;
    b_beat_next = b_beat_reg;
    b_lane_next = b_lane_reg;
    b_need_next = b_need_reg;
    b_end_next = b_end_reg;
    b_cont_beat_next = b_cont_beat_reg;
    b_cont_lane_next = b_cont_lane_reg;
    pos_beat_next = pos_beat_reg;
    pos_lane_next = pos_lane_reg;

    if (load_b) begin
        b_valid_next = 1'b1;
        b_addr_next = src_addr;
        b_beats_next = src_beats;
        b_lo_next = src_lo;
        b_hi_next = src_hi;
        b_beat_next = src_beat;
        b_lane_next = src_lane;
        b_need_next = src_need;
        b_end_next = src_end;
        b_cont_beat_next = src_beat + src_lane_beats_ptr;
        b_cont_lane_next = src_lane_end[LANE_BITS-1:0];
        // the rest of the request waits in q, starting on the boundary
        q_valid_next = !src_end;
        q_addr_next = {src_addr[63:BOUND_LOG] + 1'b1, {BOUND_LOG{1'b0}}};
        q_left_next = src_left - {{16-BYTES_WIDTH{1'b0}}, src_bytes};
    end else if (s_req_valid && !q_valid_reg) begin
        q_valid_next = 1'b1;
        q_addr_next = s_req_addr;
        q_left_next = s_req_len;
    end

    if (b_valid_reg && m_burst_ready && b_end_reg) begin
        pos_beat_next = m_burst_free;
        pos_lane_next = packet_end ? {LANE_BITS{1'b0}} : b_cont_lane_reg;
    end
end

always @(posedge clk) begin
    wr_ptr_reg <= wr_ptr_next;
    free_ptr_reg <= free_ptr_next;
    tready_reg <= tready_next;
    q_valid_reg <= q_valid_next;
    q_addr_reg <= q_addr_next;
    q_left_reg <= q_left_next;
    b_valid_reg <= b_valid_next;
    b_addr_reg <= b_addr_next;
    b_beats_reg <= b_beats_next;
    b_lo_reg <= b_lo_next;
    b_hi_reg <= b_hi_next;
    b_beat_reg <= b_beat_next;
    b_lane_reg <= b_lane_next;
    b_need_reg <= b_need_next;
    b_end_reg <= b_end_next;
    b_cont_beat_reg <= b_cont_beat_next;
    b_cont_lane_reg <= b_cont_lane_next;
    pos_beat_reg <= pos_beat_next;
    pos_lane_reg <= pos_lane_next;

    if (rst) begin
        wr_ptr_reg <= {PTR_WIDTH{1'b0}};
        free_ptr_reg <= {PTR_WIDTH{1'b0}};
        tready_reg <= 1'b0;
        q_valid_reg <= 1'b0;
        b_valid_reg <= 1'b0;
        pos_beat_reg <= {PTR_WIDTH{1'b0}};
        pos_lane_reg <= {LANE_BITS{1'b0}};
    end
end

/*
 * Bursts in flight, and the completions of requests
 */
wire bq_end;
reg done_valid_reg = 1'b0, done_valid_next;
reg done_error_reg = 1'b0, done_error_next;
reg err_reg = 1'b0, err_next;       // an error in the request so far

fifo_sync #(
    .WIDTH(1),
    .ADDR_WIDTH(BURST_ADDR_WIDTH)
)
bq_inst (
    .clk(clk),
    .rst(rst),
    .s_data(b_end_reg),
    .s_valid(m_burst_ready),
    .s_ready(bq_s_ready),
    .m_data(bq_end),
    .m_valid(),
    .m_ready(s_b_valid),
    .count()
);

assign m_done_valid = done_valid_reg;
assign m_done_error = done_error_reg;

always @* begin
    done_valid_next = 1'b0;
    done_error_next = 1'b0;
    err_next = err_reg;

    if (s_b_valid) begin
        if (bq_end) begin
            done_valid_next = 1'b1;
            done_error_next = err_reg || s_b_error;
            err_next = 1'b0;
        end else begin
            err_next = err_reg || s_b_error;
        end
    end
end

always @(posedge clk) begin
    done_valid_reg <= done_valid_next;
    done_error_reg <= done_error_next;
    err_reg <= err_next;

    if (rst) begin
        done_valid_reg <= 1'b0;
        done_error_reg <= 1'b0;
        err_reg <= 1'b0;
    end
end

endmodule

`resetall
