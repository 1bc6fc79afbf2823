/*

One 32-bit AXI4-Lite master (the PCIe bridge's BARs, after its width and protocol
converters) to two slaves by an address bit: BAR0 below SPLIT_BIT, BAR2 above it. One
transaction at a time, in the order they come; a write offered with a read goes first.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module axil_bar_split #
(
    // address bits in
    parameter ADDR_WIDTH = 21,
    // the bit that selects slave 1 (BAR2)
    parameter SPLIT_BIT = 20,
    // address bits of each slave
    parameter M0_ADDR_WIDTH = 17,
    parameter M1_ADDR_WIDTH = 12
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * AXI4-Lite slave
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
     * AXI4-Lite masters: 0 (BAR0), 1 (BAR2)
     */
    output wire [M0_ADDR_WIDTH-1:0]      m0_axil_awaddr,
    output wire                          m0_axil_awvalid,
    input  wire                          m0_axil_awready,
    output wire [31:0]                   m0_axil_wdata,
    output wire [3:0]                    m0_axil_wstrb,
    output wire                          m0_axil_wvalid,
    input  wire                          m0_axil_wready,
    input  wire [1:0]                    m0_axil_bresp,
    input  wire                          m0_axil_bvalid,
    output wire                          m0_axil_bready,
    output wire [M0_ADDR_WIDTH-1:0]      m0_axil_araddr,
    output wire                          m0_axil_arvalid,
    input  wire                          m0_axil_arready,
    input  wire [31:0]                   m0_axil_rdata,
    input  wire [1:0]                    m0_axil_rresp,
    input  wire                          m0_axil_rvalid,
    output wire                          m0_axil_rready,

    output wire [M1_ADDR_WIDTH-1:0]      m1_axil_awaddr,
    output wire                          m1_axil_awvalid,
    input  wire                          m1_axil_awready,
    output wire [31:0]                   m1_axil_wdata,
    output wire [3:0]                    m1_axil_wstrb,
    output wire                          m1_axil_wvalid,
    input  wire                          m1_axil_wready,
    input  wire [1:0]                    m1_axil_bresp,
    input  wire                          m1_axil_bvalid,
    output wire                          m1_axil_bready,
    output wire [M1_ADDR_WIDTH-1:0]      m1_axil_araddr,
    output wire                          m1_axil_arvalid,
    input  wire                          m1_axil_arready,
    input  wire [31:0]                   m1_axil_rdata,
    input  wire [1:0]                    m1_axil_rresp,
    input  wire                          m1_axil_rvalid,
    output wire                          m1_axil_rready
);

initial begin
    if (SPLIT_BIT >= ADDR_WIDTH || M0_ADDR_WIDTH > SPLIT_BIT || M1_ADDR_WIDTH > SPLIT_BIT) begin
        $error("Error: %m: the slaves' windows must sit below SPLIT_BIT");
        $finish;
    end
end

localparam [1:0] STATE_IDLE = 2'd0, STATE_WRITE = 2'd1, STATE_READ = 2'd2;

reg [1:0] state_reg = STATE_IDLE;
reg sel_reg = 1'b0;
reg [ADDR_WIDTH-1:0] addr_reg = {ADDR_WIDTH{1'b0}};
reg [31:0] wdata_reg = 32'd0;
reg [3:0] wstrb_reg = 4'd0;
reg aw_pending_reg = 1'b0, w_pending_reg = 1'b0, ar_pending_reg = 1'b0;
reg resp_pending_reg = 1'b0;

wire take_write = state_reg == STATE_IDLE && s_axil_awvalid && s_axil_wvalid;
wire take_read = state_reg == STATE_IDLE && !take_write && s_axil_arvalid;

wire m_awready = sel_reg ? m1_axil_awready : m0_axil_awready;
wire m_wready = sel_reg ? m1_axil_wready : m0_axil_wready;
wire m_arready = sel_reg ? m1_axil_arready : m0_axil_arready;
wire m_bvalid = sel_reg ? m1_axil_bvalid : m0_axil_bvalid;
wire m_rvalid = sel_reg ? m1_axil_rvalid : m0_axil_rvalid;

always @(posedge clk) begin
    case (state_reg)
        STATE_IDLE: begin
            if (take_write) begin
                state_reg <= STATE_WRITE;
                sel_reg <= s_axil_awaddr[SPLIT_BIT];
                addr_reg <= s_axil_awaddr;
                wdata_reg <= s_axil_wdata;
                wstrb_reg <= s_axil_wstrb;
                aw_pending_reg <= 1'b1;
                w_pending_reg <= 1'b1;
                resp_pending_reg <= 1'b1;
            end else if (take_read) begin
                state_reg <= STATE_READ;
                sel_reg <= s_axil_araddr[SPLIT_BIT];
                addr_reg <= s_axil_araddr;
                ar_pending_reg <= 1'b1;
                resp_pending_reg <= 1'b1;
            end
        end
        STATE_WRITE: begin
            if (m_awready) begin
                aw_pending_reg <= 1'b0;
            end
            if (m_wready) begin
                w_pending_reg <= 1'b0;
            end
            if (m_bvalid && s_axil_bready) begin
                resp_pending_reg <= 1'b0;
                state_reg <= STATE_IDLE;
            end
        end
        STATE_READ: begin
            if (m_arready) begin
                ar_pending_reg <= 1'b0;
            end
            if (m_rvalid && s_axil_rready) begin
                resp_pending_reg <= 1'b0;
                state_reg <= STATE_IDLE;
            end
        end
        default: state_reg <= STATE_IDLE;
    endcase

    if (rst) begin
        state_reg <= STATE_IDLE;
        aw_pending_reg <= 1'b0;
        w_pending_reg <= 1'b0;
        ar_pending_reg <= 1'b0;
        resp_pending_reg <= 1'b0;
    end
end

// the slave side: accepted in the cycle the split takes it; responses pass through
assign s_axil_awready = take_write;
assign s_axil_wready = take_write;
assign s_axil_arready = take_read;
assign s_axil_bvalid = state_reg == STATE_WRITE && resp_pending_reg && m_bvalid;
assign s_axil_bresp = sel_reg ? m1_axil_bresp : m0_axil_bresp;
assign s_axil_rvalid = state_reg == STATE_READ && resp_pending_reg && m_rvalid;
assign s_axil_rdata = sel_reg ? m1_axil_rdata : m0_axil_rdata;
assign s_axil_rresp = sel_reg ? m1_axil_rresp : m0_axil_rresp;

assign m0_axil_awaddr = addr_reg[M0_ADDR_WIDTH-1:0];
assign m0_axil_awvalid = state_reg == STATE_WRITE && aw_pending_reg && !sel_reg;
assign m0_axil_wdata = wdata_reg;
assign m0_axil_wstrb = wstrb_reg;
assign m0_axil_wvalid = state_reg == STATE_WRITE && w_pending_reg && !sel_reg;
assign m0_axil_bready = state_reg == STATE_WRITE && !sel_reg && s_axil_bready;
assign m0_axil_araddr = addr_reg[M0_ADDR_WIDTH-1:0];
assign m0_axil_arvalid = state_reg == STATE_READ && ar_pending_reg && !sel_reg;
assign m0_axil_rready = state_reg == STATE_READ && !sel_reg && s_axil_rready;

assign m1_axil_awaddr = addr_reg[M1_ADDR_WIDTH-1:0];
assign m1_axil_awvalid = state_reg == STATE_WRITE && aw_pending_reg && sel_reg;
assign m1_axil_wdata = wdata_reg;
assign m1_axil_wstrb = wstrb_reg;
assign m1_axil_wvalid = state_reg == STATE_WRITE && w_pending_reg && sel_reg;
assign m1_axil_bready = state_reg == STATE_WRITE && sel_reg && s_axil_bready;
assign m1_axil_araddr = addr_reg[M1_ADDR_WIDTH-1:0];
assign m1_axil_arvalid = state_reg == STATE_READ && ar_pending_reg && sel_reg;
assign m1_axil_rready = state_reg == STATE_READ && sel_reg && s_axil_rready;

endmodule

`resetall
