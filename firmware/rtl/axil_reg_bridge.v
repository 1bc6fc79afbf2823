/*

BAR0 bridge: the PCIe bridge's 32-bit AXI4-Lite master to the core's 64-bit register bus,
and to the board register block above it.

The PCIe bridges of the board (AXI Bridge for PCIe / XDMA, PG194/PG195) give BAR0 as a
32-bit AXI4-Lite master: a host's 64-bit write arrives as two 32-bit writes, low half
first. The core takes only whole 64-bit writes, so a low half is held here and goes to the core together with the high half that follows it at once;
a high half alone goes with only its strobes (and the core ignores it, as it ignores any
partial write). A 64-bit read is one core read: the low half returns at once and the high
half is kept for the read of the high half that follows it at once, so that a counter
reads whole. (Pushed WQEs do not come this way: they have a BAR of their own, the doorbell
pages, which the shell gives the core as it comes from the PCIe bridge.)

One transaction is served at a time, in the order they arrive; a write and a read offered
together go write first (PCIe: a read never passes a posted write). Addresses at and above
2^CORE_ADDR_WIDTH go to the board register block (32-bit registers, one-cycle read).

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module axil_reg_bridge #
(
    // BAR0 address bits (the core's registers, then the board's)
    parameter ADDR_WIDTH = 17,
    // the core's register address bits
    parameter CORE_ADDR_WIDTH = 16,
    // board register block address bits
    parameter BOARD_ADDR_WIDTH = 8
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * AXI4-Lite slave from the PCIe bridge (BAR0, 32-bit)
     */
    input  wire [ADDR_WIDTH-1:0]         s_axil_awaddr,
    input  wire                          s_axil_awvalid,
    output wire                          s_axil_awready,
    input  wire [31:0]                   s_axil_wdata,
    input  wire [3:0]                    s_axil_wstrb,
    input  wire                          s_axil_wvalid,
    output wire                          s_axil_wready,
    output wire [1:0]                    s_axil_bresp,
    output wire                          s_axil_bvalid,
    input  wire                          s_axil_bready,
    input  wire [ADDR_WIDTH-1:0]         s_axil_araddr,
    input  wire                          s_axil_arvalid,
    output wire                          s_axil_arready,
    output wire [31:0]                   s_axil_rdata,
    output wire [1:0]                    s_axil_rresp,
    output wire                          s_axil_rvalid,
    input  wire                          s_axil_rready,

    /*
     * AXI4-Lite master to the core (64-bit)
     */
    output wire [CORE_ADDR_WIDTH-1:0]    m_axil_awaddr,
    output wire                          m_axil_awvalid,
    input  wire                          m_axil_awready,
    output wire [63:0]                   m_axil_wdata,
    output wire [7:0]                    m_axil_wstrb,
    output wire                          m_axil_wvalid,
    input  wire                          m_axil_wready,
    input  wire [1:0]                    m_axil_bresp,
    input  wire                          m_axil_bvalid,
    output wire                          m_axil_bready,
    output wire [CORE_ADDR_WIDTH-1:0]    m_axil_araddr,
    output wire                          m_axil_arvalid,
    input  wire                          m_axil_arready,
    input  wire [63:0]                   m_axil_rdata,
    input  wire [1:0]                    m_axil_rresp,
    input  wire                          m_axil_rvalid,
    output wire                          m_axil_rready,

    /*
     * Board register block: a write strobe; read data for board_addr in the same cycle
     */
    output wire [BOARD_ADDR_WIDTH-1:0]   board_addr,
    output wire [31:0]                   board_wdata,
    output wire [3:0]                    board_wstrb,
    output wire                          board_wr,
    input  wire [31:0]                   board_rdata
);

initial begin
    if (ADDR_WIDTH <= CORE_ADDR_WIDTH || BOARD_ADDR_WIDTH > CORE_ADDR_WIDTH) begin
        $error("Error: %m: BAR0 must hold the core's registers and the board's");
        $finish;
    end
end

localparam [2:0]
    STATE_IDLE = 3'd0,
    STATE_CORE_WRITE = 3'd1,
    STATE_CORE_B = 3'd2,
    STATE_CORE_READ = 3'd3,
    STATE_CORE_R = 3'd4,
    STATE_BOARD_R = 3'd5,
    STATE_RESP_B = 3'd6,
    STATE_RESP_R = 3'd7;

reg [2:0] state_reg = STATE_IDLE, state_next;

reg awready_reg = 1'b0, awready_next;
reg wready_reg = 1'b0, wready_next;
reg arready_reg = 1'b0, arready_next;
reg bvalid_reg = 1'b0, bvalid_next;
reg [1:0] bresp_reg = 2'b00, bresp_next;
reg rvalid_reg = 1'b0, rvalid_next;
reg [1:0] rresp_reg = 2'b00, rresp_next;
reg [31:0] rdata_reg = 32'd0, rdata_next;

reg [CORE_ADDR_WIDTH-1:0] core_addr_reg = {CORE_ADDR_WIDTH{1'b0}}, core_addr_next;
reg [63:0] core_wdata_reg = 64'd0, core_wdata_next;
reg [7:0] core_wstrb_reg = 8'd0, core_wstrb_next;
reg core_awvalid_reg = 1'b0, core_awvalid_next;
reg core_wvalid_reg = 1'b0, core_wvalid_next;
reg core_arvalid_reg = 1'b0, core_arvalid_next;
reg core_high_reg = 1'b0, core_high_next;

// a low half held for the high half that follows it
reg lo_valid_reg = 1'b0, lo_valid_next;
reg [CORE_ADDR_WIDTH-4:0] lo_word_reg = {(CORE_ADDR_WIDTH-3){1'b0}}, lo_word_next;
reg [31:0] lo_data_reg = 32'd0, lo_data_next;
// the high half of the last 64-bit read, for the read of the high half that follows it
reg hi_valid_reg = 1'b0, hi_valid_next;
reg [CORE_ADDR_WIDTH-4:0] hi_word_reg = {(CORE_ADDR_WIDTH-3){1'b0}}, hi_word_next;
reg [31:0] hi_data_reg = 32'd0, hi_data_next;

reg [BOARD_ADDR_WIDTH-1:0] board_addr_reg = {BOARD_ADDR_WIDTH{1'b0}}, board_addr_next;
reg [31:0] board_wdata_reg = 32'd0, board_wdata_next;
reg [3:0] board_wstrb_reg = 4'd0, board_wstrb_next;
reg board_wr_reg = 1'b0, board_wr_next;

wire aw_board = s_axil_awaddr[ADDR_WIDTH-1:CORE_ADDR_WIDTH] != 0;
wire ar_board = s_axil_araddr[ADDR_WIDTH-1:CORE_ADDR_WIDTH] != 0;
wire [CORE_ADDR_WIDTH-1:2] aw_core = s_axil_awaddr[CORE_ADDR_WIDTH-1:2];
wire [CORE_ADDR_WIDTH-1:0] ar_core = s_axil_araddr[CORE_ADDR_WIDTH-1:0];

always @* begin
    state_next = state_reg;
    awready_next = 1'b0;
    wready_next = 1'b0;
    arready_next = 1'b0;
    bvalid_next = bvalid_reg && !s_axil_bready;
    bresp_next = bresp_reg;
    rvalid_next = rvalid_reg && !s_axil_rready;
    rresp_next = rresp_reg;
    rdata_next = rdata_reg;
    core_addr_next = core_addr_reg;
    core_wdata_next = core_wdata_reg;
    core_wstrb_next = core_wstrb_reg;
    core_awvalid_next = core_awvalid_reg && !m_axil_awready;
    core_wvalid_next = core_wvalid_reg && !m_axil_wready;
    core_arvalid_next = core_arvalid_reg && !m_axil_arready;
    core_high_next = core_high_reg;
    lo_valid_next = lo_valid_reg;
    lo_word_next = lo_word_reg;
    lo_data_next = lo_data_reg;
    hi_valid_next = hi_valid_reg;
    hi_word_next = hi_word_reg;
    hi_data_next = hi_data_reg;
    board_addr_next = board_addr_reg;
    board_wdata_next = board_wdata_reg;
    board_wstrb_next = board_wstrb_reg;
    board_wr_next = 1'b0;

    case (state_reg)
        STATE_IDLE: begin
            if (s_axil_awvalid && s_axil_wvalid && !awready_reg) begin
                awready_next = 1'b1;
                wready_next = 1'b1;
                bresp_next = 2'b00;
                // any transaction but the high half of the held word drops what was held
                lo_valid_next = 1'b0;
                hi_valid_next = 1'b0;
                if (aw_board) begin
                    board_addr_next = s_axil_awaddr[BOARD_ADDR_WIDTH-1:0];
                    board_wdata_next = s_axil_wdata;
                    board_wstrb_next = s_axil_wstrb;
                    board_wr_next = 1'b1;
                    state_next = STATE_RESP_B;
                end else if (!aw_core[2]) begin
                    // only a whole low half can make a whole 64-bit write
                    lo_valid_next = s_axil_wstrb == 4'hf;
                    lo_word_next = aw_core[CORE_ADDR_WIDTH-1:3];
                    lo_data_next = s_axil_wdata;
                    state_next = STATE_RESP_B;
                end else begin
                    core_addr_next = {aw_core[CORE_ADDR_WIDTH-1:3], 3'b000};
                    core_awvalid_next = 1'b1;
                    core_wvalid_next = 1'b1;
                    if (lo_valid_reg && lo_word_reg == aw_core[CORE_ADDR_WIDTH-1:3]
                                 && s_axil_wstrb == 4'hf) begin
                        core_wdata_next = {s_axil_wdata, lo_data_reg};
                        core_wstrb_next = 8'hff;
                    end else begin
                        core_wdata_next = {s_axil_wdata, 32'd0};
                        core_wstrb_next = {s_axil_wstrb, 4'd0};
                    end
                    state_next = STATE_CORE_WRITE;
                end
            end else if (s_axil_arvalid && !s_axil_awvalid && !arready_reg) begin
                arready_next = 1'b1;
                rresp_next = 2'b00;
                lo_valid_next = 1'b0;
                hi_valid_next = 1'b0;
                if (ar_board) begin
                    board_addr_next = s_axil_araddr[BOARD_ADDR_WIDTH-1:0];
                    state_next = STATE_BOARD_R;
                end else if (ar_core[2] && hi_valid_reg
                             && hi_word_reg == ar_core[CORE_ADDR_WIDTH-1:3]) begin
                    rdata_next = hi_data_reg;
                    state_next = STATE_RESP_R;
                end else begin
                    core_addr_next = {ar_core[CORE_ADDR_WIDTH-1:3], 3'b000};
                    core_high_next = ar_core[2];
                    core_arvalid_next = 1'b1;
                    state_next = STATE_CORE_READ;
                end
            end
        end
        STATE_CORE_WRITE: begin
            if (!core_awvalid_next && !core_wvalid_next) begin
                state_next = STATE_CORE_B;
            end
        end
        STATE_CORE_B: begin
            if (m_axil_bvalid) begin
                bresp_next = m_axil_bresp;
                state_next = STATE_RESP_B;
            end
        end
        STATE_CORE_READ: begin
            if (!core_arvalid_next) begin
                state_next = STATE_CORE_R;
            end
        end
        STATE_CORE_R: begin
            if (m_axil_rvalid) begin
                rresp_next = m_axil_rresp;
                rdata_next = core_high_reg ? m_axil_rdata[63:32] : m_axil_rdata[31:0];
                hi_valid_next = !core_high_reg;
                hi_word_next = core_addr_reg[CORE_ADDR_WIDTH-1:3];
                hi_data_next = m_axil_rdata[63:32];
                state_next = STATE_RESP_R;
            end
        end
        STATE_BOARD_R: begin
            rdata_next = board_rdata;
            state_next = STATE_RESP_R;
        end
        STATE_RESP_B: begin
            if (!bvalid_reg) begin
                bvalid_next = 1'b1;
                state_next = STATE_IDLE;
            end
        end
        STATE_RESP_R: begin
            if (!rvalid_reg) begin
                rvalid_next = 1'b1;
                state_next = STATE_IDLE;
            end
        end
        default: state_next = STATE_IDLE;
    endcase
end

always @(posedge clk) begin
    state_reg <= state_next;
    awready_reg <= awready_next;
    wready_reg <= wready_next;
    arready_reg <= arready_next;
    bvalid_reg <= bvalid_next;
    bresp_reg <= bresp_next;
    rvalid_reg <= rvalid_next;
    rresp_reg <= rresp_next;
    rdata_reg <= rdata_next;
    core_addr_reg <= core_addr_next;
    core_wdata_reg <= core_wdata_next;
    core_wstrb_reg <= core_wstrb_next;
    core_awvalid_reg <= core_awvalid_next;
    core_wvalid_reg <= core_wvalid_next;
    core_arvalid_reg <= core_arvalid_next;
    core_high_reg <= core_high_next;
    lo_valid_reg <= lo_valid_next;
    lo_word_reg <= lo_word_next;
    lo_data_reg <= lo_data_next;
    hi_valid_reg <= hi_valid_next;
    hi_word_reg <= hi_word_next;
    hi_data_reg <= hi_data_next;
    board_addr_reg <= board_addr_next;
    board_wdata_reg <= board_wdata_next;
    board_wstrb_reg <= board_wstrb_next;
    board_wr_reg <= board_wr_next;

    if (rst) begin
        state_reg <= STATE_IDLE;
        awready_reg <= 1'b0;
        wready_reg <= 1'b0;
        arready_reg <= 1'b0;
        bvalid_reg <= 1'b0;
        rvalid_reg <= 1'b0;
        core_awvalid_reg <= 1'b0;
        core_wvalid_reg <= 1'b0;
        core_arvalid_reg <= 1'b0;
        lo_valid_reg <= 1'b0;
        hi_valid_reg <= 1'b0;
        board_wr_reg <= 1'b0;
    end
end

assign s_axil_awready = awready_reg;
assign s_axil_wready = wready_reg;
assign s_axil_bresp = bresp_reg;
assign s_axil_bvalid = bvalid_reg;
assign s_axil_arready = arready_reg;
assign s_axil_rdata = rdata_reg;
assign s_axil_rresp = rresp_reg;
assign s_axil_rvalid = rvalid_reg;

assign m_axil_awaddr = core_addr_reg;
assign m_axil_awvalid = core_awvalid_reg;
assign m_axil_wdata = core_wdata_reg;
assign m_axil_wstrb = core_wstrb_reg;
assign m_axil_wvalid = core_wvalid_reg;
assign m_axil_bready = state_reg == STATE_CORE_B;
assign m_axil_araddr = core_addr_reg;
assign m_axil_arvalid = core_arvalid_reg;
assign m_axil_rready = state_reg == STATE_CORE_R;

assign board_addr = board_addr_reg;
assign board_wdata = board_wdata_reg;
assign board_wstrb = board_wstrb_reg;
assign board_wr = board_wr_reg;

endmodule

`resetall
