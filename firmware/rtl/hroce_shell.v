/*

The board shell: hroce_core with everything a PCIe card needs around it, and nothing
vendor-specific (the board top connects the PCIe bridge, the MAC and the configuration
primitives to it).

    PCIe bridge BAR0 (32-bit AXI4-Lite) -> axil_reg_bridge -> core registers (64-bit)
                                                           -> board_regs (+ 0x10000)
    PCIe bridge BAR4 (AXI4, DATA_WIDTH) -> core doorbell pages (pushed WQEs, write only)
    PCIe bridge BAR2 (32-bit AXI4-Lite) -> msix_table <- core interrupt requests
                                                      -> MSI-X messages to the bridge
    core AXI4 master (host memory)      -> the PCIe bridge's AXI slave, as it is
    MAC RX (mac_clk, no back-pressure)  -> axis_async_frame_fifo (drops, counts) -> core
    core TX -> axis_async_frame_fifo (whole frames only) -> MAC TX (mac_clk)
    board_regs -> SPI flash pins (STARTUPE3), ICAPE3 (reload)

The core, the register bridge, MSI-X and the board block run on clk (the PCIe bridge's
user clock); only the MAC's streams are on mac_clk. time_now and the core's deadline pass
through, so that a simulation may skip idle time as with the bare core.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module hroce_shell #
(
    // datapath (the core's, and the MAC's AXI Stream)
    parameter DATA_WIDTH = `HROCE_DATA_WIDTH,
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    parameter AXI_ID_WIDTH = `HROCE_AXI_ID_WIDTH,
    // BAR0: the core's registers, then the board's
    parameter BAR0_ADDR_WIDTH = `HROCE_AXIL_ADDR_WIDTH + 1,
    // BAR2: the MSI-X table and PBA
    parameter BAR2_ADDR_WIDTH = 12,
    parameter MSIX_VECTORS = 64,
    // log2 of the MAC FIFOs' beats (a 9 KB frame is 144 beats of 64 bytes)
    parameter MAC_FIFO_DEPTH_LOG = 8,
    // board block: identity, version stamps, flash layout
    parameter [15:0] BOARD_ID = 16'h0200,
    parameter [31:0] GIT_HASH = 32'h00000000,
    parameter [31:0] BUILD_STAMP = 32'h00000000,
    parameter [31:0] IDCODE = 32'h04b37093,
    parameter [31:0] FLASH_SIZE = 32'h08000000,
    parameter [31:0] ERASE_SIZE = 32'h00010000,
    parameter [31:0] GOLDEN_OFF = 32'h00000000,
    parameter [31:0] GOLDEN_SIZE = 32'h04000000,
    parameter [31:0] UPDATE_OFF = 32'h04000000,
    parameter [31:0] UPDATE_SIZE = 32'h04000000,
    parameter [7:0] SPI_DIV_DEFAULT = 8'd1,
    // clk cycles per ICAP word (the board clocks ICAPE3 at clk / ICAP_WORD_CYCLES)
    parameter ICAP_WORD_CYCLES = 1
)
(
    input  wire                          clk,
    input  wire                          rst,
    input  wire                          mac_clk,
    input  wire                          mac_rst,

    /*
     * Time (clk cycles) and the core's next timer deadline
     */
    input  wire [63:0]                   time_now,
    output wire [63:0]                   m_time_deadline,

    /*
     * BAR0 from the PCIe bridge (32-bit AXI4-Lite)
     */
    input  wire [BAR0_ADDR_WIDTH-1:0]    s_axil_awaddr,
    input  wire                          s_axil_awvalid,
    output wire                          s_axil_awready,
    input  wire [31:0]                   s_axil_wdata,
    input  wire [3:0]                    s_axil_wstrb,
    input  wire                          s_axil_wvalid,
    output wire                          s_axil_wready,
    output wire [1:0]                    s_axil_bresp,
    output wire                          s_axil_bvalid,
    input  wire                          s_axil_bready,
    input  wire [BAR0_ADDR_WIDTH-1:0]    s_axil_araddr,
    input  wire                          s_axil_arvalid,
    output wire                          s_axil_arready,
    output wire [31:0]                   s_axil_rdata,
    output wire [1:0]                    s_axil_rresp,
    output wire                          s_axil_rvalid,
    input  wire                          s_axil_rready,

    /*
     * BAR4 (the contract's DB_BAR) from the PCIe bridge: the doorbell pages, AXI4 write
     * only, prefetchable so that the host may map it write-combining; one 64-byte TLP is
     * one beat (the bridge's AXI master is as wide as the datapath)
     */
    input  wire [`HROCE_DB_ADDR_WIDTH-1:0] s_axi_db_awaddr,
    input  wire [7:0]                    s_axi_db_awlen,
    input  wire [2:0]                    s_axi_db_awsize,
    input  wire                          s_axi_db_awvalid,
    output wire                          s_axi_db_awready,
    input  wire [DATA_WIDTH-1:0]         s_axi_db_wdata,
    input  wire [KEEP_WIDTH-1:0]         s_axi_db_wstrb,
    input  wire                          s_axi_db_wlast,
    input  wire                          s_axi_db_wvalid,
    output wire                          s_axi_db_wready,
    output wire [1:0]                    s_axi_db_bresp,
    output wire                          s_axi_db_bvalid,
    input  wire                          s_axi_db_bready,

    /*
     * BAR2 from the PCIe bridge (32-bit AXI4-Lite): MSI-X table and PBA
     */
    input  wire [BAR2_ADDR_WIDTH-1:0]    s_axil_msix_awaddr,
    input  wire                          s_axil_msix_awvalid,
    output wire                          s_axil_msix_awready,
    input  wire [31:0]                   s_axil_msix_wdata,
    input  wire [3:0]                    s_axil_msix_wstrb,
    input  wire                          s_axil_msix_wvalid,
    output wire                          s_axil_msix_wready,
    output wire [1:0]                    s_axil_msix_bresp,
    output wire                          s_axil_msix_bvalid,
    input  wire                          s_axil_msix_bready,
    input  wire [BAR2_ADDR_WIDTH-1:0]    s_axil_msix_araddr,
    input  wire                          s_axil_msix_arvalid,
    output wire                          s_axil_msix_arready,
    output wire [31:0]                   s_axil_msix_rdata,
    output wire [1:0]                    s_axil_msix_rresp,
    output wire                          s_axil_msix_rvalid,
    input  wire                          s_axil_msix_rready,

    /*
     * MSI-X messages to the PCIe bridge, and its configuration bits
     */
    input  wire                          cfg_msix_enable,
    input  wire                          cfg_msix_function_mask,
    output wire [63:0]                   m_msix_addr,
    output wire [31:0]                   m_msix_data,
    output wire                          m_msix_valid,
    input  wire                          m_msix_ready,

    /*
     * AXI4 master: host memory, to the PCIe bridge's AXI slave
     */
    output wire [AXI_ID_WIDTH-1:0]       m_axi_awid,
    output wire [63:0]                   m_axi_awaddr,
    output wire [7:0]                    m_axi_awlen,
    output wire [2:0]                    m_axi_awsize,
    output wire [1:0]                    m_axi_awburst,
    output wire                          m_axi_awvalid,
    input  wire                          m_axi_awready,
    output wire [DATA_WIDTH-1:0]         m_axi_wdata,
    output wire [KEEP_WIDTH-1:0]         m_axi_wstrb,
    output wire                          m_axi_wlast,
    output wire                          m_axi_wvalid,
    input  wire                          m_axi_wready,
    input  wire [AXI_ID_WIDTH-1:0]       m_axi_bid,
    input  wire [1:0]                    m_axi_bresp,
    input  wire                          m_axi_bvalid,
    output wire                          m_axi_bready,
    output wire [AXI_ID_WIDTH-1:0]       m_axi_arid,
    output wire [63:0]                   m_axi_araddr,
    output wire [7:0]                    m_axi_arlen,
    output wire [2:0]                    m_axi_arsize,
    output wire [1:0]                    m_axi_arburst,
    output wire                          m_axi_arvalid,
    input  wire                          m_axi_arready,
    input  wire [AXI_ID_WIDTH-1:0]       m_axi_rid,
    input  wire [DATA_WIDTH-1:0]         m_axi_rdata,
    input  wire [1:0]                    m_axi_rresp,
    input  wire                          m_axi_rlast,
    input  wire                          m_axi_rvalid,
    output wire                          m_axi_rready,

    /*
     * MAC RX (mac_clk, frames without FCS; tuser: bad frame; no back-pressure)
     */
    input  wire [DATA_WIDTH-1:0]         s_axis_mac_rx_tdata,
    input  wire [KEEP_WIDTH-1:0]         s_axis_mac_rx_tkeep,
    input  wire                          s_axis_mac_rx_tvalid,
    input  wire                          s_axis_mac_rx_tlast,
    input  wire                          s_axis_mac_rx_tuser,

    /*
     * MAC TX (mac_clk, frames without FCS)
     */
    output wire [DATA_WIDTH-1:0]         m_axis_mac_tx_tdata,
    output wire [KEEP_WIDTH-1:0]         m_axis_mac_tx_tkeep,
    output wire                          m_axis_mac_tx_tvalid,
    input  wire                          m_axis_mac_tx_tready,
    output wire                          m_axis_mac_tx_tlast,
    output wire                          m_axis_mac_tx_tuser,

    /*
     * Configuration flash (through STARTUPE3 on the board)
     */
    output wire                          flash_sck,
    output wire                          flash_cs_n,
    output wire                          flash_mosi,
    input  wire                          flash_miso,

    /*
     * ICAPE3
     */
    output wire                          icap_csib,
    output wire                          icap_rdwrb,
    output wire [31:0]                   icap_i,
    input  wire                          icap_avail
);

localparam CORE_ADDR_WIDTH = `HROCE_AXIL_ADDR_WIDTH;
localparam IRQ_WIDTH = `HROCE_IRQ_WIDTH;

wire [CORE_ADDR_WIDTH-1:0] core_awaddr, core_araddr;
wire core_awvalid, core_awready, core_wvalid, core_wready, core_bvalid, core_bready;
wire core_arvalid, core_arready, core_rvalid, core_rready;
wire [63:0] core_wdata, core_rdata;
wire [7:0] core_wstrb;
wire [1:0] core_bresp, core_rresp;

wire [7:0] board_addr;
wire [31:0] board_wdata, board_rdata;
wire [3:0] board_wstrb;
wire board_wr;

wire [IRQ_WIDTH-1:0] irq_vector;
wire irq_valid, irq_ready;

wire [DATA_WIDTH-1:0] rx_tdata, tx_tdata;
wire [KEEP_WIDTH-1:0] rx_tkeep, tx_tkeep;
wire rx_tvalid, rx_tready, rx_tlast, rx_tuser;
wire tx_tvalid, tx_tready, tx_tlast, tx_tuser;
wire [31:0] mac_rx_drop;

axil_reg_bridge #(
    .ADDR_WIDTH(BAR0_ADDR_WIDTH),
    .CORE_ADDR_WIDTH(CORE_ADDR_WIDTH),
    .BOARD_ADDR_WIDTH(8)
)
axil_reg_bridge_inst (
    .clk(clk),
    .rst(rst),
    .s_axil_awaddr(s_axil_awaddr),
    .s_axil_awvalid(s_axil_awvalid),
    .s_axil_awready(s_axil_awready),
    .s_axil_wdata(s_axil_wdata),
    .s_axil_wstrb(s_axil_wstrb),
    .s_axil_wvalid(s_axil_wvalid),
    .s_axil_wready(s_axil_wready),
    .s_axil_bresp(s_axil_bresp),
    .s_axil_bvalid(s_axil_bvalid),
    .s_axil_bready(s_axil_bready),
    .s_axil_araddr(s_axil_araddr),
    .s_axil_arvalid(s_axil_arvalid),
    .s_axil_arready(s_axil_arready),
    .s_axil_rdata(s_axil_rdata),
    .s_axil_rresp(s_axil_rresp),
    .s_axil_rvalid(s_axil_rvalid),
    .s_axil_rready(s_axil_rready),
    .m_axil_awaddr(core_awaddr),
    .m_axil_awvalid(core_awvalid),
    .m_axil_awready(core_awready),
    .m_axil_wdata(core_wdata),
    .m_axil_wstrb(core_wstrb),
    .m_axil_wvalid(core_wvalid),
    .m_axil_wready(core_wready),
    .m_axil_bresp(core_bresp),
    .m_axil_bvalid(core_bvalid),
    .m_axil_bready(core_bready),
    .m_axil_araddr(core_araddr),
    .m_axil_arvalid(core_arvalid),
    .m_axil_arready(core_arready),
    .m_axil_rdata(core_rdata),
    .m_axil_rresp(core_rresp),
    .m_axil_rvalid(core_rvalid),
    .m_axil_rready(core_rready),
    .board_addr(board_addr),
    .board_wdata(board_wdata),
    .board_wstrb(board_wstrb),
    .board_wr(board_wr),
    .board_rdata(board_rdata)
);

board_regs #(
    .ADDR_WIDTH(8),
    .BOARD_ID(BOARD_ID),
    .GIT_HASH(GIT_HASH),
    .BUILD_STAMP(BUILD_STAMP),
    .IDCODE(IDCODE),
    .FLASH_SIZE(FLASH_SIZE),
    .ERASE_SIZE(ERASE_SIZE),
    .GOLDEN_OFF(GOLDEN_OFF),
    .GOLDEN_SIZE(GOLDEN_SIZE),
    .UPDATE_OFF(UPDATE_OFF),
    .UPDATE_SIZE(UPDATE_SIZE),
    .SPI_DIV_DEFAULT(SPI_DIV_DEFAULT),
    .ICAP_WORD_CYCLES(ICAP_WORD_CYCLES)
)
board_regs_inst (
    .clk(clk),
    .rst(rst),
    .addr(board_addr),
    .wdata(board_wdata),
    .wstrb(board_wstrb),
    .wr(board_wr),
    .rdata(board_rdata),
    .mac_rx_drop(mac_rx_drop),
    .spi_sck(flash_sck),
    .spi_cs_n(flash_cs_n),
    .spi_mosi(flash_mosi),
    .spi_miso(flash_miso),
    .icap_csib(icap_csib),
    .icap_rdwrb(icap_rdwrb),
    .icap_i(icap_i),
    .icap_avail(icap_avail)
);

msix_table #(
    .VECTORS(MSIX_VECTORS),
    .ADDR_WIDTH(BAR2_ADDR_WIDTH),
    .PBA_OFFSET(12'h800),
    .IRQ_WIDTH(IRQ_WIDTH)
)
msix_table_inst (
    .clk(clk),
    .rst(rst),
    .s_axil_awaddr(s_axil_msix_awaddr),
    .s_axil_awvalid(s_axil_msix_awvalid),
    .s_axil_awready(s_axil_msix_awready),
    .s_axil_wdata(s_axil_msix_wdata),
    .s_axil_wstrb(s_axil_msix_wstrb),
    .s_axil_wvalid(s_axil_msix_wvalid),
    .s_axil_wready(s_axil_msix_wready),
    .s_axil_bresp(s_axil_msix_bresp),
    .s_axil_bvalid(s_axil_msix_bvalid),
    .s_axil_bready(s_axil_msix_bready),
    .s_axil_araddr(s_axil_msix_araddr),
    .s_axil_arvalid(s_axil_msix_arvalid),
    .s_axil_arready(s_axil_msix_arready),
    .s_axil_rdata(s_axil_msix_rdata),
    .s_axil_rresp(s_axil_msix_rresp),
    .s_axil_rvalid(s_axil_msix_rvalid),
    .s_axil_rready(s_axil_msix_rready),
    .s_irq_vector(irq_vector),
    .s_irq_valid(irq_valid),
    .s_irq_ready(irq_ready),
    .cfg_msix_enable(cfg_msix_enable),
    .cfg_msix_function_mask(cfg_msix_function_mask),
    .m_msix_addr(m_msix_addr),
    .m_msix_data(m_msix_data),
    .m_msix_valid(m_msix_valid),
    .m_msix_ready(m_msix_ready)
);

axis_async_frame_fifo #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .DEPTH_LOG(MAC_FIFO_DEPTH_LOG),
    .DROP_WHEN_FULL(1)
)
mac_rx_fifo_inst (
    .s_clk(mac_clk),
    .s_rst(mac_rst),
    .s_axis_tdata(s_axis_mac_rx_tdata),
    .s_axis_tkeep(s_axis_mac_rx_tkeep),
    .s_axis_tvalid(s_axis_mac_rx_tvalid),
    .s_axis_tready(),
    .s_axis_tlast(s_axis_mac_rx_tlast),
    .s_axis_tuser(s_axis_mac_rx_tuser),
    .m_clk(clk),
    .m_rst(rst),
    .m_axis_tdata(rx_tdata),
    .m_axis_tkeep(rx_tkeep),
    .m_axis_tvalid(rx_tvalid),
    .m_axis_tready(rx_tready),
    .m_axis_tlast(rx_tlast),
    .m_axis_tuser(rx_tuser),
    .m_status_drop_count(mac_rx_drop)
);

axis_async_frame_fifo #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .DEPTH_LOG(MAC_FIFO_DEPTH_LOG),
    .DROP_WHEN_FULL(0)
)
mac_tx_fifo_inst (
    .s_clk(clk),
    .s_rst(rst),
    .s_axis_tdata(tx_tdata),
    .s_axis_tkeep(tx_tkeep),
    .s_axis_tvalid(tx_tvalid),
    .s_axis_tready(tx_tready),
    .s_axis_tlast(tx_tlast),
    .s_axis_tuser(tx_tuser),
    .m_clk(mac_clk),
    .m_rst(mac_rst),
    .m_axis_tdata(m_axis_mac_tx_tdata),
    .m_axis_tkeep(m_axis_mac_tx_tkeep),
    .m_axis_tvalid(m_axis_mac_tx_tvalid),
    .m_axis_tready(m_axis_mac_tx_tready),
    .m_axis_tlast(m_axis_mac_tx_tlast),
    .m_axis_tuser(m_axis_mac_tx_tuser),
    .m_status_drop_count()
);

hroce_core #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .AXI_ID_WIDTH(AXI_ID_WIDTH),
    .AXIL_ADDR_WIDTH(CORE_ADDR_WIDTH),
    .IRQ_WIDTH(IRQ_WIDTH),
    .TRACE(0)
)
hroce_core_inst (
    .clk(clk),
    .rst(rst),
    .time_now(time_now),
    .m_time_deadline(m_time_deadline),
    .s_axis_rx_tdata(rx_tdata),
    .s_axis_rx_tkeep(rx_tkeep),
    .s_axis_rx_tvalid(rx_tvalid),
    .s_axis_rx_tready(rx_tready),
    .s_axis_rx_tlast(rx_tlast),
    .s_axis_rx_tuser(rx_tuser),
    .m_axis_tx_tdata(tx_tdata),
    .m_axis_tx_tkeep(tx_tkeep),
    .m_axis_tx_tvalid(tx_tvalid),
    .m_axis_tx_tready(tx_tready),
    .m_axis_tx_tlast(tx_tlast),
    .m_axis_tx_tuser(tx_tuser),
    .s_axil_awaddr(core_awaddr),
    .s_axil_awvalid(core_awvalid),
    .s_axil_awready(core_awready),
    .s_axil_wdata(core_wdata),
    .s_axil_wstrb(core_wstrb),
    .s_axil_wvalid(core_wvalid),
    .s_axil_wready(core_wready),
    .s_axil_bresp(core_bresp),
    .s_axil_bvalid(core_bvalid),
    .s_axil_bready(core_bready),
    .s_axil_araddr(core_araddr),
    .s_axil_arvalid(core_arvalid),
    .s_axil_arready(core_arready),
    .s_axil_rdata(core_rdata),
    .s_axil_rresp(core_rresp),
    .s_axil_rvalid(core_rvalid),
    .s_axil_rready(core_rready),
    .s_axi_db_awaddr(s_axi_db_awaddr),
    .s_axi_db_awlen(s_axi_db_awlen),
    .s_axi_db_awsize(s_axi_db_awsize),
    .s_axi_db_awvalid(s_axi_db_awvalid),
    .s_axi_db_awready(s_axi_db_awready),
    .s_axi_db_wdata(s_axi_db_wdata),
    .s_axi_db_wstrb(s_axi_db_wstrb),
    .s_axi_db_wlast(s_axi_db_wlast),
    .s_axi_db_wvalid(s_axi_db_wvalid),
    .s_axi_db_wready(s_axi_db_wready),
    .s_axi_db_bresp(s_axi_db_bresp),
    .s_axi_db_bvalid(s_axi_db_bvalid),
    .s_axi_db_bready(s_axi_db_bready),
    .m_axi_awid(m_axi_awid),
    .m_axi_awaddr(m_axi_awaddr),
    .m_axi_awlen(m_axi_awlen),
    .m_axi_awsize(m_axi_awsize),
    .m_axi_awburst(m_axi_awburst),
    .m_axi_awvalid(m_axi_awvalid),
    .m_axi_awready(m_axi_awready),
    .m_axi_wdata(m_axi_wdata),
    .m_axi_wstrb(m_axi_wstrb),
    .m_axi_wlast(m_axi_wlast),
    .m_axi_wvalid(m_axi_wvalid),
    .m_axi_wready(m_axi_wready),
    .m_axi_bid(m_axi_bid),
    .m_axi_bresp(m_axi_bresp),
    .m_axi_bvalid(m_axi_bvalid),
    .m_axi_bready(m_axi_bready),
    .m_axi_arid(m_axi_arid),
    .m_axi_araddr(m_axi_araddr),
    .m_axi_arlen(m_axi_arlen),
    .m_axi_arsize(m_axi_arsize),
    .m_axi_arburst(m_axi_arburst),
    .m_axi_arvalid(m_axi_arvalid),
    .m_axi_arready(m_axi_arready),
    .m_axi_rid(m_axi_rid),
    .m_axi_rdata(m_axi_rdata),
    .m_axi_rresp(m_axi_rresp),
    .m_axi_rlast(m_axi_rlast),
    .m_axi_rvalid(m_axi_rvalid),
    .m_axi_rready(m_axi_rready),
    .m_irq_vector(irq_vector),
    .m_irq_valid(irq_valid),
    .m_irq_ready(irq_ready),
    // the trace port is the simulation's: on a board nothing of it is built
    .m_trace_valid(),
    .m_trace_data()
);

endmodule

`resetall
