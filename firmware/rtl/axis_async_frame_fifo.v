/*

Frame FIFO between two clocks, for the MAC side of the shell.

Frames are written on s_clk and read on m_clk; only whole frames are read (a frame becomes
visible once its last beat is written), so the reader never waits inside a frame: on TX
the MAC never underflows. With DROP_WHEN_FULL (the MAC's RX, which cannot be held back)
s_axis_tready is always 1 and a frame that does not fit is dropped whole and counted;
without it (TX) the writer is held back while the FIFO is full. A frame longer than the
FIFO is dropped and counted in both modes. The pointers cross the clocks as Gray codes
through two flip-flops, as does the drop count (read on m_clk). Both resets are asserted
together.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module axis_async_frame_fifo #
(
    // data bits
    parameter DATA_WIDTH = 512,
    // byte lanes
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // log2 of the beats held (a whole frame must fit)
    parameter DEPTH_LOG = 8,
    // 1: never hold the writer back; drop frames that do not fit (RX)
    parameter DROP_WHEN_FULL = 1
)
(
    /*
     * AXI Stream in (s_clk)
     */
    input  wire                          s_clk,
    input  wire                          s_rst,
    input  wire [DATA_WIDTH-1:0]         s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]         s_axis_tkeep,
    input  wire                          s_axis_tvalid,
    output wire                          s_axis_tready,
    input  wire                          s_axis_tlast,
    input  wire                          s_axis_tuser,

    /*
     * AXI Stream out (m_clk)
     */
    input  wire                          m_clk,
    input  wire                          m_rst,
    output wire [DATA_WIDTH-1:0]         m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]         m_axis_tkeep,
    output wire                          m_axis_tvalid,
    input  wire                          m_axis_tready,
    output wire                          m_axis_tlast,
    output wire                          m_axis_tuser,

    /*
     * Frames dropped so far (m_clk)
     */
    output wire [31:0]                   m_status_drop_count
);

localparam WORD_WIDTH = DATA_WIDTH + KEEP_WIDTH + 2;
localparam DEPTH = 1 << DEPTH_LOG;

function [DEPTH_LOG:0] bin2gray(input [DEPTH_LOG:0] b);
    bin2gray = b ^ (b >> 1);
endfunction

function [DEPTH_LOG:0] gray2bin(input [DEPTH_LOG:0] g);
    integer k;
    begin
        gray2bin[DEPTH_LOG] = g[DEPTH_LOG];
        for (k = DEPTH_LOG - 1; k >= 0; k = k - 1) begin
            gray2bin[k] = gray2bin[k+1] ^ g[k];
        end
    end
endfunction

function [31:0] bin2gray32(input [31:0] b);
    bin2gray32 = b ^ (b >> 1);
endfunction

function [31:0] gray2bin32(input [31:0] g);
    integer k;
    begin
        gray2bin32[31] = g[31];
        for (k = 30; k >= 0; k = k - 1) begin
            gray2bin32[k] = gray2bin32[k+1] ^ g[k];
        end
    end
endfunction

reg [WORD_WIDTH-1:0] mem [0:DEPTH-1];

reg [DEPTH_LOG:0] rd_ptr_reg = {DEPTH_LOG+1{1'b0}};
reg [DEPTH_LOG:0] rd_ptr_gray_reg = {DEPTH_LOG+1{1'b0}};

/*
 * Write side (s_clk)
 */
reg [DEPTH_LOG:0] wr_ptr_reg = {DEPTH_LOG+1{1'b0}};       // committed frames end here
reg [DEPTH_LOG:0] wr_cur_reg = {DEPTH_LOG+1{1'b0}};       // the frame being written
reg [DEPTH_LOG:0] wr_ptr_gray_reg = {DEPTH_LOG+1{1'b0}};
reg drop_reg = 1'b0;                                       // dropping the rest of a frame
reg [31:0] drop_count_reg = 32'd0;
reg [31:0] drop_gray_reg = 32'd0;
(* ASYNC_REG = "TRUE" *) reg [DEPTH_LOG:0] rd_gray_s1_reg = {DEPTH_LOG+1{1'b0}};
(* ASYNC_REG = "TRUE" *) reg [DEPTH_LOG:0] rd_gray_s2_reg = {DEPTH_LOG+1{1'b0}};

wire [DEPTH_LOG:0] rd_ptr_s = gray2bin(rd_gray_s2_reg);
// differences of pointers modulo 2^(DEPTH_LOG+1) (a wider context would not wrap)
wire [DEPTH_LOG:0] used = wr_cur_reg - rd_ptr_s;
wire [DEPTH_LOG:0] frame_beats = wr_cur_reg - wr_ptr_reg;
wire full = used[DEPTH_LOG];
// the frame being written fills the FIFO alone: it can never fit
wire frame_too_long = frame_beats[DEPTH_LOG];
wire s_ready = (DROP_WHEN_FULL != 0) || !full || frame_too_long || drop_reg;
wire s_beat = s_axis_tvalid && s_ready;

always @(posedge s_clk) begin
    rd_gray_s1_reg <= rd_ptr_gray_reg;
    rd_gray_s2_reg <= rd_gray_s1_reg;

    if (s_beat) begin
        if (drop_reg || full) begin
            // drop this beat and the rest of the frame, back to the last whole frame
            wr_cur_reg <= wr_ptr_reg;
            drop_reg <= !s_axis_tlast;
            if (!drop_reg) begin
                drop_count_reg <= drop_count_reg + 1'b1;
            end
        end else begin
            mem[wr_cur_reg[DEPTH_LOG-1:0]] <= {s_axis_tlast, s_axis_tuser, s_axis_tkeep,
                                               s_axis_tdata};
            wr_cur_reg <= wr_cur_reg + 1'b1;
            if (s_axis_tlast) begin
                wr_ptr_reg <= wr_cur_reg + 1'b1;
            end
        end
    end
    wr_ptr_gray_reg <= bin2gray(wr_ptr_reg);
    drop_gray_reg <= bin2gray32(drop_count_reg);

    if (s_rst) begin
        wr_ptr_reg <= {DEPTH_LOG+1{1'b0}};
        wr_cur_reg <= {DEPTH_LOG+1{1'b0}};
        wr_ptr_gray_reg <= {DEPTH_LOG+1{1'b0}};
        drop_reg <= 1'b0;
        drop_count_reg <= 32'd0;
        drop_gray_reg <= 32'd0;
        rd_gray_s1_reg <= {DEPTH_LOG+1{1'b0}};
        rd_gray_s2_reg <= {DEPTH_LOG+1{1'b0}};
    end
end

/*
 * Read side (m_clk)
 */
(* ASYNC_REG = "TRUE" *) reg [DEPTH_LOG:0] wr_gray_s1_reg = {DEPTH_LOG+1{1'b0}};
(* ASYNC_REG = "TRUE" *) reg [DEPTH_LOG:0] wr_gray_s2_reg = {DEPTH_LOG+1{1'b0}};
(* ASYNC_REG = "TRUE" *) reg [31:0] drop_s1_reg = 32'd0;
(* ASYNC_REG = "TRUE" *) reg [31:0] drop_s2_reg = 32'd0;
reg [WORD_WIDTH-1:0] out_reg = {WORD_WIDTH{1'b0}};
reg out_valid_reg = 1'b0;

wire [DEPTH_LOG:0] wr_ptr_m = gray2bin(wr_gray_s2_reg);
wire empty = rd_ptr_reg == wr_ptr_m;
wire out_load = !empty && (!out_valid_reg || m_axis_tready);

always @(posedge m_clk) begin
    wr_gray_s1_reg <= wr_ptr_gray_reg;
    wr_gray_s2_reg <= wr_gray_s1_reg;
    drop_s1_reg <= drop_gray_reg;
    drop_s2_reg <= drop_s1_reg;
    // Gray code made on this clock, so that the other one never sees two bits move
    rd_ptr_gray_reg <= bin2gray(rd_ptr_reg);

    if (out_load) begin
        out_reg <= mem[rd_ptr_reg[DEPTH_LOG-1:0]];
        rd_ptr_reg <= rd_ptr_reg + 1'b1;
        out_valid_reg <= 1'b1;
    end else if (m_axis_tready) begin
        out_valid_reg <= 1'b0;
    end

    if (m_rst) begin
        rd_ptr_reg <= {DEPTH_LOG+1{1'b0}};
        rd_ptr_gray_reg <= {DEPTH_LOG+1{1'b0}};
        out_valid_reg <= 1'b0;
        wr_gray_s1_reg <= {DEPTH_LOG+1{1'b0}};
        wr_gray_s2_reg <= {DEPTH_LOG+1{1'b0}};
        drop_s1_reg <= 32'd0;
        drop_s2_reg <= 32'd0;
    end
end

assign s_axis_tready = s_ready;
assign m_axis_tdata = out_reg[DATA_WIDTH-1:0];
assign m_axis_tkeep = out_reg[DATA_WIDTH +: KEEP_WIDTH];
assign m_axis_tuser = out_reg[DATA_WIDTH + KEEP_WIDTH];
assign m_axis_tlast = out_reg[DATA_WIDTH + KEEP_WIDTH + 1];
assign m_axis_tvalid = out_valid_reg;
assign m_status_drop_count = gray2bin32(drop_s2_reg);

endmodule

`resetall
