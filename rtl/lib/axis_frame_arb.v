/*

Frame arbiter: several AXI-Stream sources of whole frames onto one output, a frame at a
time, round robin between the sources that have a frame waiting.

The grant is decided when no frame is under way (among the sources offering a beat,
starting after the one granted last) and held from the first beat offered (taken or
not: an offered beat stays offered) until the granted frame's last beat leaves. The
streams are a pass-through (valid to valid, ready to ready, documented here): no
register, no added cycle of latency; each source's own output register (a skid
buffer) keeps the paths short.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module axis_frame_arb #
(
    // Number of sources
    parameter S_COUNT = 2,
    // Width of tdata
    parameter DATA_WIDTH = 512,
    // Width of tkeep
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // Bits of a source's index
    parameter INDEX_WIDTH = S_COUNT > 1 ? $clog2(S_COUNT) : 1
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Sources, source 0 in the low bits
     */
    input  wire [S_COUNT*DATA_WIDTH-1:0] s_axis_tdata,
    input  wire [S_COUNT*KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire [S_COUNT-1:0]            s_axis_tvalid,
    output wire [S_COUNT-1:0]            s_axis_tready,
    input  wire [S_COUNT-1:0]            s_axis_tlast,
    input  wire [S_COUNT-1:0]            s_axis_tuser,

    /*
     * Output
     */
    output wire [DATA_WIDTH-1:0]         m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]         m_axis_tkeep,
    output wire                          m_axis_tvalid,
    input  wire                          m_axis_tready,
    output wire                          m_axis_tlast,
    output wire                          m_axis_tuser
);

initial begin
    if (S_COUNT < 1 || (1 << INDEX_WIDTH) < S_COUNT) begin
        $error("Error: %m: S_COUNT must be at least 1 and fit INDEX_WIDTH (%0d)", S_COUNT);
        $finish;
    end
end

localparam [31:0] LAST_SOURCE = S_COUNT - 1;

reg active_reg = 1'b0;                // a frame is under way from grant_reg
reg [INDEX_WIDTH-1:0] grant_reg = 0;
// granted last: the next one starts after it
reg [INDEX_WIDTH-1:0] last_reg = LAST_SOURCE[INDEX_WIDTH-1:0];

// round robin: the lowest source offering a beat above the one granted last, else the
// lowest at or below it (a loop from the top down: the last match wins)
reg [INDEX_WIDTH-1:0] pick_above, pick_below;
reg above_valid, pick_valid;
integer n;
always @* begin
    pick_above = 0;
    pick_below = 0;
    above_valid = 1'b0;
    pick_valid = 1'b0;
    for (n = S_COUNT - 1; n >= 0; n = n - 1) begin
        if (s_axis_tvalid[n]) begin
            pick_valid = 1'b1;
            if (n[INDEX_WIDTH-1:0] > last_reg) begin
                pick_above = n[INDEX_WIDTH-1:0];
                above_valid = 1'b1;
            end else begin
                pick_below = n[INDEX_WIDTH-1:0];
            end
        end
    end
end
wire [INDEX_WIDTH-1:0] pick = above_valid ? pick_above : pick_below;

wire [INDEX_WIDTH-1:0] sel = active_reg ? grant_reg : pick;
wire sel_valid = s_axis_tvalid[sel] && (active_reg || pick_valid);
wire beat = sel_valid && m_axis_tready;

always @(posedge clk) begin
    if (sel_valid) begin
        grant_reg <= sel;
        active_reg <= !(beat && s_axis_tlast[sel]);
        if (beat && s_axis_tlast[sel]) begin
            last_reg <= sel;
        end
    end

    if (rst) begin
        active_reg <= 1'b0;
        last_reg <= LAST_SOURCE[INDEX_WIDTH-1:0];
    end
end

genvar g;
generate
    for (g = 0; g < S_COUNT; g = g + 1) begin : ready
        assign s_axis_tready[g] = m_axis_tready && (active_reg || pick_valid) && sel == g;
    end
endgenerate

assign m_axis_tdata = s_axis_tdata[sel*DATA_WIDTH +: DATA_WIDTH];
assign m_axis_tkeep = s_axis_tkeep[sel*KEEP_WIDTH +: KEEP_WIDTH];
assign m_axis_tvalid = sel_valid;
assign m_axis_tlast = s_axis_tlast[sel];
assign m_axis_tuser = s_axis_tuser[sel];

endmodule

`resetall
