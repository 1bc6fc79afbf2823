/*

The doorbell pages: a write-only AXI4 slave, DATA_WIDTH bits wide, where a WQE of 64
bytes written as one write (one write-combined PCIe TLP on a board) is its SQ's doorbell
with the WQE inside, as mlx5's BlueFlame registers take them (contract: DB_* and the
SQ_WQE's QPN and DB_INDEX).

    AW (2 held) --> W beat: checked --> skid --> doorbell {qpn, index, WQE}
                                    \-> B (posted: OKAY, counted, never refused)

A write is a doorbell when its burst is one beat of DB_PUSH_BYTES (AWLEN 0, AWSIZE 6),
every byte strobed, WLAST on that beat, at the slot of its WQE's QPN ((QPN mod DB_SLOTS) *
DB_PUSH_BYTES). Anything else is malformed: every beat of it is taken (the AW's length
decides where the burst ends, whatever WLAST says), it gets its B like any other, it is
counted on stat_malformed, and nothing reaches the requester: a broken writer can neither
hang the port nor ring another QP's doorbell.

One doorbell a cycle at full rate: two AWs are held so that the next burst's address is
in while the current beat goes, the doorbells leave through a skid buffer (no path from
m_db_ready to s_axi_db_wready), and up to B_MAX answers wait for BREADY.

hold: an SQ doorbell of the register file waits for the requester; no beat is taken
meanwhile, and db_busy tells the register file to take no SQ doorbell while one of these
is on its way, so that the two kinds reach the requester in the order they came.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module db_pages #
(
    // Data width of the port (one pushed WQE a beat)
    parameter DATA_WIDTH = `HROCE_DATA_WIDTH,
    // Strobes
    parameter STRB_WIDTH = (DATA_WIDTH/8),
    // Byte address bits of the doorbell pages
    parameter ADDR_WIDTH = `HROCE_DB_ADDR_WIDTH,
    // B answers owed at most before beats wait for BREADY
    parameter B_MAX = 4
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * AXI4 slave, write only
     */
    input  wire [ADDR_WIDTH-1:0]         s_axi_db_awaddr,
    input  wire [7:0]                    s_axi_db_awlen,
    input  wire [2:0]                    s_axi_db_awsize,
    input  wire                          s_axi_db_awvalid,
    output wire                          s_axi_db_awready,
    input  wire [DATA_WIDTH-1:0]         s_axi_db_wdata,
    input  wire [STRB_WIDTH-1:0]         s_axi_db_wstrb,
    input  wire                          s_axi_db_wlast,
    input  wire                          s_axi_db_wvalid,
    output wire                          s_axi_db_wready,
    output wire [1:0]                    s_axi_db_bresp,
    output wire                          s_axi_db_bvalid,
    input  wire                          s_axi_db_bready,

    /*
     * Doorbells with their WQE (index: the SQ's new producer counter)
     */
    output wire [23:0]                   m_db_qpn,
    output wire [15:0]                   m_db_index,
    output wire [`HROCE_SQ_WQE_BITS-1:0] m_db_wqe,
    output wire                          m_db_valid,
    input  wire                          m_db_ready,

    /*
     * Order against the register file's SQ doorbells
     */
    input  wire                          hold,
    output wire                          db_busy,

    /*
     * Events
     */
    output wire                          stat_pushed,
    output wire                          stat_malformed
);

localparam WQE_BITS = `HROCE_SQ_WQE_BITS;
localparam SLOT_LSB = $clog2(`HROCE_DB_PUSH_BYTES);
localparam SLOT_BITS = ADDR_WIDTH - SLOT_LSB;
localparam [2:0] BEAT_SIZE = SLOT_LSB[2:0];
localparam OUT_WIDTH = 24 + 16 + WQE_BITS;
localparam B_WIDTH = $clog2(B_MAX + 1);
localparam [B_WIDTH-1:0] B_FULL = B_MAX;

initial begin
    if (DATA_WIDTH != WQE_BITS || `HROCE_DB_PUSH_BYTES * 8 != WQE_BITS) begin
        $error("Error: %m: a pushed WQE is one beat (DATA_WIDTH %0d, WQE %0d bits)",
               DATA_WIDTH, WQE_BITS);
        $finish;
    end
    if ((1 << SLOT_BITS) != `HROCE_DB_SLOTS) begin
        $error("Error: %m: %0d address bits do not hold DB_SLOTS slots", ADDR_WIDTH);
        $finish;
    end
end

// the two AWs held: aw0 is the burst whose beats come now; good: one whole aligned beat
reg [1:0] aw_count_reg = 2'd0, aw_count_next;
reg [ADDR_WIDTH-1:0] aw0_addr_reg = {ADDR_WIDTH{1'b0}}, aw0_addr_next;
reg [ADDR_WIDTH-1:0] aw1_addr_reg = {ADDR_WIDTH{1'b0}}, aw1_addr_next;
reg [7:0] aw0_len_reg = 8'd0, aw0_len_next;
reg [7:0] aw1_len_reg = 8'd0, aw1_len_next;
reg aw0_good_reg = 1'b0, aw0_good_next;
reg aw1_good_reg = 1'b0, aw1_good_next;

// beats of the current burst already taken
reg [7:0] beat_reg = 8'd0, beat_next;
reg [B_WIDTH-1:0] b_count_reg = {B_WIDTH{1'b0}}, b_count_next;
reg stat_pushed_reg = 1'b0, stat_pushed_next;
reg stat_malformed_reg = 1'b0, stat_malformed_next;

wire skid_ready;
wire skid_valid;

wire aw_take = s_axi_db_awvalid && aw_count_reg != 2'd2;
wire w_take = s_axi_db_wvalid && aw_count_reg != 2'd0 && skid_ready && !hold &&
              b_count_reg != B_FULL;
wire w_end = beat_reg == aw0_len_reg;

// the beat as a WQE, and whether it is a doorbell
wire [23:0] wqe_qpn = s_axi_db_wdata[`HROCE_SQ_WQE_QPN];
wire slot_ok = aw0_addr_reg[ADDR_WIDTH-1:SLOT_LSB] == wqe_qpn[SLOT_BITS-1:0];
wire beat_ok = aw0_good_reg && &s_axi_db_wstrb && s_axi_db_wlast && slot_ok;
wire push = w_take && beat_ok;

wire aw_in_good = s_axi_db_awlen == 8'd0 && s_axi_db_awsize == BEAT_SIZE &&
                  s_axi_db_awaddr[SLOT_LSB-1:0] == {SLOT_LSB{1'b0}};
wire burst_end = w_take && w_end;

always @* begin
    aw0_addr_next = aw0_addr_reg;
    aw0_len_next = aw0_len_reg;
    aw0_good_next = aw0_good_reg;
    aw1_addr_next = aw1_addr_reg;
    aw1_len_next = aw1_len_reg;
    aw1_good_next = aw1_good_reg;
    beat_next = beat_reg;
    stat_pushed_next = 1'b0;
    stat_malformed_next = 1'b0;

    if (w_take) begin
        beat_next = w_end ? 8'd0 : beat_reg + 8'd1;
        stat_pushed_next = w_end && beat_ok;
        stat_malformed_next = w_end && !beat_ok;
    end

    // the burst that ended leaves; a new AW goes behind what stays
    if (burst_end) begin
        aw0_addr_next = aw1_addr_reg;
        aw0_len_next = aw1_len_reg;
        aw0_good_next = aw1_good_reg;
    end
    if (aw_take) begin
        if (aw_count_reg == 2'd0 || (aw_count_reg == 2'd1 && burst_end)) begin
            aw0_addr_next = s_axi_db_awaddr;
            aw0_len_next = s_axi_db_awlen;
            aw0_good_next = aw_in_good;
        end else begin
            aw1_addr_next = s_axi_db_awaddr;
            aw1_len_next = s_axi_db_awlen;
            aw1_good_next = aw_in_good;
        end
    end
    aw_count_next = aw_count_reg + {1'b0, aw_take} - {1'b0, burst_end};
    b_count_next = b_count_reg + {{(B_WIDTH-1){1'b0}}, burst_end} -
                   {{(B_WIDTH-1){1'b0}}, s_axi_db_bvalid && s_axi_db_bready};
end

always @(posedge clk) begin
    aw_count_reg <= aw_count_next;
    aw0_addr_reg <= aw0_addr_next;
    aw0_len_reg <= aw0_len_next;
    aw0_good_reg <= aw0_good_next;
    aw1_addr_reg <= aw1_addr_next;
    aw1_len_reg <= aw1_len_next;
    aw1_good_reg <= aw1_good_next;
    beat_reg <= beat_next;
    b_count_reg <= b_count_next;
    stat_pushed_reg <= stat_pushed_next;
    stat_malformed_reg <= stat_malformed_next;

    if (rst) begin
        aw_count_reg <= 2'd0;
        beat_reg <= 8'd0;
        b_count_reg <= {B_WIDTH{1'b0}};
        stat_pushed_reg <= 1'b0;
        stat_malformed_reg <= 1'b0;
    end
end

wire [OUT_WIDTH-1:0] skid_out;

axis_skid #(
    .WIDTH(OUT_WIDTH)
)
out_skid_inst (
    .clk(clk),
    .rst(rst),
    .s_data({wqe_qpn, s_axi_db_wdata[`HROCE_SQ_WQE_DB_INDEX], s_axi_db_wdata}),
    .s_valid(push),
    .s_ready(skid_ready),
    .m_data(skid_out),
    .m_valid(skid_valid),
    .m_ready(m_db_ready)
);

assign s_axi_db_awready = aw_take;
assign s_axi_db_wready = w_take;
assign s_axi_db_bresp = 2'b00;
assign s_axi_db_bvalid = b_count_reg != {B_WIDTH{1'b0}};

assign m_db_qpn = skid_out[OUT_WIDTH-1 -: 24];
assign m_db_index = skid_out[WQE_BITS +: 16];
assign m_db_wqe = skid_out[WQE_BITS-1:0];
assign m_db_valid = skid_valid;

// a doorbell in the skid, or a beat of one arriving: the register file's SQ doorbells wait
assign db_busy = skid_valid || !skid_ready || aw_count_reg != 2'd0;

assign stat_pushed = stat_pushed_reg;
assign stat_malformed = stat_malformed_reg;

endmodule

`resetall
