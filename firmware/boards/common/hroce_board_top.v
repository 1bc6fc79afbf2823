/*

Board top of HardRoCE for AMD UltraScale+ PCIe cards with a QSFP28 cage and a QSPI
configuration flash (Alveo U200 first; the U250 and VCU1525 differ only by part and pins,
given by their board folder). It connects the vendor blocks to the shell:

    PCIe (pcie_bridge: XDMA in AXI Bridge mode, Gen3 x16, 512-bit AXI at 250 MHz)
        m_axib (BARs) -> axi_db_split -> shell BAR4 (the core's doorbell pages, 512-bit)
                      -> bar_dwidth (512 -> 32) -> bar_lite (AXI4 -> AXI4-Lite)
                      -> axil_bar_split -> shell BAR0 (core and board registers)
                                        -> shell BAR2 (MSI-X table and PBA)
        s_axib <- the core's AXI4 master (host memory)
        cfg_interrupt_msix_* <- the shell's MSI-X messages (one at a time; retried on fail)
    QSFP28 0 (mac_100g: CMAC with AXI4-Stream, 322 MHz) <-> the shell's MAC FIFOs
    STARTUPE3 <-> the shell's SPI flash pins;  ICAPE3 (at clk/2) <- the shell's reload

The AXI address map of the bridge (ip.tcl): BAR0 at AXI 0x00000000 (128 KiB), BAR2 at
AXI 0x00100000 (4 KiB): address bit 20 tells them apart; BAR4 (64 KiB, prefetchable, for a
write-combining mapping) at AXI 0x00200000: bit 21.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module hroce_board_top #
(
    // the board block's identity and version stamps (given by the build)
    parameter [15:0] BOARD_ID = 16'h0200,
    parameter [31:0] GIT_HASH = 32'h00000000,
    parameter [31:0] BUILD_STAMP = 32'h00000000,
    parameter [31:0] IDCODE = 32'h04b37093,
    // configuration flash and its layout
    parameter [31:0] FLASH_SIZE = 32'h08000000,
    parameter [31:0] GOLDEN_OFF = 32'h00000000,
    parameter [31:0] GOLDEN_SIZE = 32'h04000000,
    parameter [31:0] UPDATE_OFF = 32'h04000000,
    parameter [31:0] UPDATE_SIZE = 32'h04000000
)
(
    /*
     * PCIe
     */
    input  wire                          pcie_refclk_p,
    input  wire                          pcie_refclk_n,
    input  wire                          pcie_reset_n,
    input  wire [15:0]                   pcie_rx_p,
    input  wire [15:0]                   pcie_rx_n,
    output wire [15:0]                   pcie_tx_p,
    output wire [15:0]                   pcie_tx_n,

    /*
     * QSFP28 cage 0
     */
    input  wire                          qsfp0_refclk_p,
    input  wire                          qsfp0_refclk_n,
    input  wire [3:0]                    qsfp0_rx_p,
    input  wire [3:0]                    qsfp0_rx_n,
    output wire [3:0]                    qsfp0_tx_p,
    output wire [3:0]                    qsfp0_tx_n,
    output wire                          qsfp0_modsell,
    output wire                          qsfp0_resetl,
    output wire                          qsfp0_lpmode,
    output wire                          qsfp0_refclk_reset,
    output wire [1:0]                    qsfp0_fs,

    /*
     * A free-running board clock (the MAC's init and DRP clock)
     */
    input  wire                          init_clk_p,
    input  wire                          init_clk_n,

    output wire [2:0]                    led
);

localparam DATA_WIDTH = 512;
localparam KEEP_WIDTH = 64;
localparam AXI_ID_WIDTH = 8;     // the core's
localparam BRIDGE_ID_WIDTH = 4;  // the bridge's s_axib (the core's IDs are its 17 clients)

/*
 * Clocks and resets
 */
wire pcie_sys_clk, pcie_sys_clk_gt;
wire clk, aresetn, link_up;
wire init_clk_ibuf, init_clk;
wire mac_clk, mac_rst, mac_aligned;
wire icap_clk;
reg rst_reg = 1'b1;
reg [63:0] time_reg = 64'd0;

IBUFDS_GTE4 #(
    .REFCLK_HROW_CK_SEL(2'b00)
)
pcie_refclk_ibuf (
    .I(pcie_refclk_p),
    .IB(pcie_refclk_n),
    .CEB(1'b0),
    .O(pcie_sys_clk_gt),
    .ODIV2(pcie_sys_clk)
);

IBUFDS init_clk_ibufds (
    .I(init_clk_p),
    .IB(init_clk_n),
    .O(init_clk_ibuf)
);

BUFG init_clk_bufg (
    .I(init_clk_ibuf),
    .O(init_clk)
);

// ICAPE3 at clk / 2 (at most 200 MHz, UG570); the shell holds each word two cycles
BUFGCE_DIV #(
    .BUFGCE_DIVIDE(2)
)
icap_clk_div (
    .I(clk),
    .CE(1'b1),
    .CLR(1'b0),
    .O(icap_clk)
);

always @(posedge clk) begin
    rst_reg <= !aresetn;
    time_reg <= time_reg + 1'b1;
    if (rst_reg) begin
        time_reg <= 64'd0;
    end
end

/*
 * PCIe bridge and the BAR path
 */
wire [BRIDGE_ID_WIDTH-1:0] bar_awid, bar_bid, bar_arid, bar_rid;
wire [63:0] bar_awaddr, bar_araddr;
wire [7:0] bar_awlen, bar_arlen;
wire [2:0] bar_awsize, bar_arsize;
wire [1:0] bar_awburst, bar_arburst, bar_bresp, bar_rresp;
wire bar_awvalid, bar_awready, bar_wlast, bar_wvalid, bar_wready, bar_bvalid, bar_bready;
wire bar_arvalid, bar_arready, bar_rlast, bar_rvalid, bar_rready;
wire [DATA_WIDTH-1:0] bar_wdata, bar_rdata;
wire [KEEP_WIDTH-1:0] bar_wstrb;

wire [31:0] n_awaddr, n_araddr, n_wdata, n_rdata;
wire [7:0] n_awlen, n_arlen;
wire [2:0] n_awsize, n_arsize;
wire [1:0] n_awburst, n_arburst, n_bresp, n_rresp;
wire [3:0] n_wstrb;
wire n_awvalid, n_awready, n_wlast, n_wvalid, n_wready, n_bvalid, n_bready;
wire n_arvalid, n_arready, n_rlast, n_rvalid, n_rready;

wire [31:0] l_awaddr, l_araddr, l_wdata, l_rdata;
wire [3:0] l_wstrb;
wire [1:0] l_bresp, l_rresp;
wire l_awvalid, l_awready, l_wvalid, l_wready, l_bvalid, l_bready;
wire l_arvalid, l_arready, l_rvalid, l_rready;

wire [16:0] bar0_awaddr, bar0_araddr;
wire [11:0] bar2_awaddr, bar2_araddr;
wire [31:0] bar0_wdata, bar0_rdata, bar2_wdata, bar2_rdata;
wire [3:0] bar0_wstrb, bar2_wstrb;
wire [1:0] bar0_bresp, bar0_rresp, bar2_bresp, bar2_rresp;
wire bar0_awvalid, bar0_awready, bar0_wvalid, bar0_wready, bar0_bvalid, bar0_bready;
wire bar0_arvalid, bar0_arready, bar0_rvalid, bar0_rready;
wire bar2_awvalid, bar2_awready, bar2_wvalid, bar2_wready, bar2_bvalid, bar2_bready;
wire bar2_arvalid, bar2_arready, bar2_rvalid, bar2_rready;

// the register path after the doorbell pages were split off (32-bit addresses)
wire [BRIDGE_ID_WIDTH-1:0] rg_awid, rg_bid, rg_arid, rg_rid;
wire [31:0] rg_awaddr, rg_araddr;
wire [7:0] rg_awlen, rg_arlen;
wire [2:0] rg_awsize, rg_arsize;
wire [1:0] rg_awburst, rg_arburst, rg_bresp, rg_rresp;
wire rg_awvalid, rg_awready, rg_wlast, rg_wvalid, rg_wready, rg_bvalid, rg_bready;
wire rg_arvalid, rg_arready, rg_rlast, rg_rvalid, rg_rready;
wire [DATA_WIDTH-1:0] rg_wdata, rg_rdata;
wire [KEEP_WIDTH-1:0] rg_wstrb;

// the shell's doorbell pages (BAR4)
wire [15:0] db_awaddr;
wire [7:0] db_awlen;
wire [2:0] db_awsize;
wire [DATA_WIDTH-1:0] db_wdata;
wire [KEEP_WIDTH-1:0] db_wstrb;
wire [1:0] db_bresp;
wire db_awvalid, db_awready, db_wlast, db_wvalid, db_wready, db_bvalid, db_bready;

wire [AXI_ID_WIDTH-1:0] dma_awid, dma_arid;
wire [63:0] dma_awaddr, dma_araddr;
wire [7:0] dma_awlen, dma_arlen;
wire [2:0] dma_awsize, dma_arsize;
wire [1:0] dma_awburst, dma_arburst, dma_bresp, dma_rresp;
wire dma_awvalid, dma_awready, dma_wlast, dma_wvalid, dma_wready, dma_bvalid, dma_bready;
wire dma_arvalid, dma_arready, dma_rlast, dma_rvalid, dma_rready;
wire [DATA_WIDTH-1:0] dma_wdata, dma_rdata;
wire [KEEP_WIDTH-1:0] dma_wstrb;
wire [BRIDGE_ID_WIDTH-1:0] dma_bid, dma_rid;

wire [3:0] msix_enable, msix_mask;
wire msix_sent, msix_fail;
wire [63:0] msix_addr;
wire [31:0] msix_data;
wire msix_valid;
reg msix_int_reg = 1'b0;
reg msix_wait_reg = 1'b0;

pcie_bridge pcie_bridge_inst (
    .sys_clk(pcie_sys_clk),
    .sys_clk_gt(pcie_sys_clk_gt),
    .sys_rst_n(pcie_reset_n),
    .user_lnk_up(link_up),
    .pci_exp_txp(pcie_tx_p),
    .pci_exp_txn(pcie_tx_n),
    .pci_exp_rxp(pcie_rx_p),
    .pci_exp_rxn(pcie_rx_n),
    .axi_aclk(clk),
    .axi_aresetn(aresetn),
    .interrupt_out(),

    .s_axib_awid(dma_awid[BRIDGE_ID_WIDTH-1:0]),
    .s_axib_awaddr(dma_awaddr),
    .s_axib_awregion(4'd0),
    .s_axib_awlen(dma_awlen),
    .s_axib_awsize(dma_awsize),
    .s_axib_awburst(dma_awburst),
    .s_axib_awvalid(dma_awvalid),
    .s_axib_awready(dma_awready),
    .s_axib_wdata(dma_wdata),
    .s_axib_wstrb(dma_wstrb),
    .s_axib_wlast(dma_wlast),
    .s_axib_wvalid(dma_wvalid),
    .s_axib_wready(dma_wready),
    .s_axib_bid(dma_bid),
    .s_axib_bresp(dma_bresp),
    .s_axib_bvalid(dma_bvalid),
    .s_axib_bready(dma_bready),
    .s_axib_arid(dma_arid[BRIDGE_ID_WIDTH-1:0]),
    .s_axib_araddr(dma_araddr),
    .s_axib_arregion(4'd0),
    .s_axib_arlen(dma_arlen),
    .s_axib_arsize(dma_arsize),
    .s_axib_arburst(dma_arburst),
    .s_axib_arvalid(dma_arvalid),
    .s_axib_arready(dma_arready),
    .s_axib_rid(dma_rid),
    .s_axib_rdata(dma_rdata),
    .s_axib_rresp(dma_rresp),
    .s_axib_rlast(dma_rlast),
    .s_axib_rvalid(dma_rvalid),
    .s_axib_rready(dma_rready),

    .m_axib_awid(bar_awid),
    .m_axib_awaddr(bar_awaddr),
    .m_axib_awlen(bar_awlen),
    .m_axib_awsize(bar_awsize),
    .m_axib_awburst(bar_awburst),
    .m_axib_awvalid(bar_awvalid),
    .m_axib_awready(bar_awready),
    .m_axib_wdata(bar_wdata),
    .m_axib_wstrb(bar_wstrb),
    .m_axib_wlast(bar_wlast),
    .m_axib_wvalid(bar_wvalid),
    .m_axib_wready(bar_wready),
    .m_axib_bid(bar_bid),
    .m_axib_bresp(bar_bresp),
    .m_axib_bvalid(bar_bvalid),
    .m_axib_bready(bar_bready),
    .m_axib_arid(bar_arid),
    .m_axib_araddr(bar_araddr),
    .m_axib_arlen(bar_arlen),
    .m_axib_arsize(bar_arsize),
    .m_axib_arburst(bar_arburst),
    .m_axib_arvalid(bar_arvalid),
    .m_axib_arready(bar_arready),
    .m_axib_rid(bar_rid),
    .m_axib_rdata(bar_rdata),
    .m_axib_rresp(bar_rresp),
    .m_axib_rlast(bar_rlast),
    .m_axib_rvalid(bar_rvalid),
    .m_axib_rready(bar_rready),

    .cfg_interrupt_msix_enable(msix_enable),
    .cfg_interrupt_msix_mask(msix_mask),
    .cfg_interrupt_msix_address(msix_addr),
    .cfg_interrupt_msix_data(msix_data),
    .cfg_interrupt_msix_int(msix_int_reg),
    .cfg_interrupt_msix_sent(msix_sent),
    .cfg_interrupt_msix_fail(msix_fail)
);

/*
 * BAR4 (AXI 0x00200000, address bit 21): the doorbell pages, 512 bits wide to the shell;
 * BAR0 and BAR2 go on to the narrow register path
 */
axi_db_split #(
    .DATA_WIDTH(DATA_WIDTH),
    .ID_WIDTH(BRIDGE_ID_WIDTH),
    .ADDR_WIDTH(32),
    .SPLIT_BIT(21),
    .DB_ADDR_WIDTH(16)
)
axi_db_split_inst (
    .clk(clk),
    .rst(rst_reg),
    .s_axi_awid(bar_awid),
    .s_axi_awaddr(bar_awaddr[31:0]),
    .s_axi_awlen(bar_awlen),
    .s_axi_awsize(bar_awsize),
    .s_axi_awburst(bar_awburst),
    .s_axi_awvalid(bar_awvalid),
    .s_axi_awready(bar_awready),
    .s_axi_wdata(bar_wdata),
    .s_axi_wstrb(bar_wstrb),
    .s_axi_wlast(bar_wlast),
    .s_axi_wvalid(bar_wvalid),
    .s_axi_wready(bar_wready),
    .s_axi_bid(bar_bid),
    .s_axi_bresp(bar_bresp),
    .s_axi_bvalid(bar_bvalid),
    .s_axi_bready(bar_bready),
    .s_axi_arid(bar_arid),
    .s_axi_araddr(bar_araddr[31:0]),
    .s_axi_arlen(bar_arlen),
    .s_axi_arsize(bar_arsize),
    .s_axi_arburst(bar_arburst),
    .s_axi_arvalid(bar_arvalid),
    .s_axi_arready(bar_arready),
    .s_axi_rid(bar_rid),
    .s_axi_rdata(bar_rdata),
    .s_axi_rresp(bar_rresp),
    .s_axi_rlast(bar_rlast),
    .s_axi_rvalid(bar_rvalid),
    .s_axi_rready(bar_rready),
    .m_axi_awid(rg_awid),
    .m_axi_awaddr(rg_awaddr),
    .m_axi_awlen(rg_awlen),
    .m_axi_awsize(rg_awsize),
    .m_axi_awburst(rg_awburst),
    .m_axi_awvalid(rg_awvalid),
    .m_axi_awready(rg_awready),
    .m_axi_wdata(rg_wdata),
    .m_axi_wstrb(rg_wstrb),
    .m_axi_wlast(rg_wlast),
    .m_axi_wvalid(rg_wvalid),
    .m_axi_wready(rg_wready),
    .m_axi_bid(rg_bid),
    .m_axi_bresp(rg_bresp),
    .m_axi_bvalid(rg_bvalid),
    .m_axi_bready(rg_bready),
    .m_axi_arid(rg_arid),
    .m_axi_araddr(rg_araddr),
    .m_axi_arlen(rg_arlen),
    .m_axi_arsize(rg_arsize),
    .m_axi_arburst(rg_arburst),
    .m_axi_arvalid(rg_arvalid),
    .m_axi_arready(rg_arready),
    .m_axi_rid(rg_rid),
    .m_axi_rdata(rg_rdata),
    .m_axi_rresp(rg_rresp),
    .m_axi_rlast(rg_rlast),
    .m_axi_rvalid(rg_rvalid),
    .m_axi_rready(rg_rready),
    .m_axi_db_awaddr(db_awaddr),
    .m_axi_db_awlen(db_awlen),
    .m_axi_db_awsize(db_awsize),
    .m_axi_db_awvalid(db_awvalid),
    .m_axi_db_awready(db_awready),
    .m_axi_db_wdata(db_wdata),
    .m_axi_db_wstrb(db_wstrb),
    .m_axi_db_wlast(db_wlast),
    .m_axi_db_wvalid(db_wvalid),
    .m_axi_db_wready(db_wready),
    .m_axi_db_bresp(db_bresp),
    .m_axi_db_bvalid(db_bvalid),
    .m_axi_db_bready(db_bready)
);

bar_dwidth bar_dwidth_inst (
    .s_axi_aclk(clk),
    .s_axi_aresetn(aresetn),
    .s_axi_awid(rg_awid),
    .s_axi_awaddr(rg_awaddr),
    .s_axi_awlen(rg_awlen),
    .s_axi_awsize(rg_awsize),
    .s_axi_awburst(rg_awburst),
    .s_axi_awvalid(rg_awvalid),
    .s_axi_awready(rg_awready),
    .s_axi_wdata(rg_wdata),
    .s_axi_wstrb(rg_wstrb),
    .s_axi_wlast(rg_wlast),
    .s_axi_wvalid(rg_wvalid),
    .s_axi_wready(rg_wready),
    .s_axi_bid(rg_bid),
    .s_axi_bresp(rg_bresp),
    .s_axi_bvalid(rg_bvalid),
    .s_axi_bready(rg_bready),
    .s_axi_arid(rg_arid),
    .s_axi_araddr(rg_araddr),
    .s_axi_arlen(rg_arlen),
    .s_axi_arsize(rg_arsize),
    .s_axi_arburst(rg_arburst),
    .s_axi_arvalid(rg_arvalid),
    .s_axi_arready(rg_arready),
    .s_axi_rid(rg_rid),
    .s_axi_rdata(rg_rdata),
    .s_axi_rresp(rg_rresp),
    .s_axi_rlast(rg_rlast),
    .s_axi_rvalid(rg_rvalid),
    .s_axi_rready(rg_rready),
    .m_axi_awaddr(n_awaddr),
    .m_axi_awlen(n_awlen),
    .m_axi_awsize(n_awsize),
    .m_axi_awburst(n_awburst),
    .m_axi_awvalid(n_awvalid),
    .m_axi_awready(n_awready),
    .m_axi_wdata(n_wdata),
    .m_axi_wstrb(n_wstrb),
    .m_axi_wlast(n_wlast),
    .m_axi_wvalid(n_wvalid),
    .m_axi_wready(n_wready),
    .m_axi_bresp(n_bresp),
    .m_axi_bvalid(n_bvalid),
    .m_axi_bready(n_bready),
    .m_axi_araddr(n_araddr),
    .m_axi_arlen(n_arlen),
    .m_axi_arsize(n_arsize),
    .m_axi_arburst(n_arburst),
    .m_axi_arvalid(n_arvalid),
    .m_axi_arready(n_arready),
    .m_axi_rdata(n_rdata),
    .m_axi_rresp(n_rresp),
    .m_axi_rlast(n_rlast),
    .m_axi_rvalid(n_rvalid),
    .m_axi_rready(n_rready)
);

bar_lite bar_lite_inst (
    .aclk(clk),
    .aresetn(aresetn),
    .s_axi_awaddr(n_awaddr),
    .s_axi_awlen(n_awlen),
    .s_axi_awsize(n_awsize),
    .s_axi_awburst(n_awburst),
    .s_axi_awvalid(n_awvalid),
    .s_axi_awready(n_awready),
    .s_axi_wdata(n_wdata),
    .s_axi_wstrb(n_wstrb),
    .s_axi_wlast(n_wlast),
    .s_axi_wvalid(n_wvalid),
    .s_axi_wready(n_wready),
    .s_axi_bresp(n_bresp),
    .s_axi_bvalid(n_bvalid),
    .s_axi_bready(n_bready),
    .s_axi_araddr(n_araddr),
    .s_axi_arlen(n_arlen),
    .s_axi_arsize(n_arsize),
    .s_axi_arburst(n_arburst),
    .s_axi_arvalid(n_arvalid),
    .s_axi_arready(n_arready),
    .s_axi_rdata(n_rdata),
    .s_axi_rresp(n_rresp),
    .s_axi_rlast(n_rlast),
    .s_axi_rvalid(n_rvalid),
    .s_axi_rready(n_rready),
    .m_axi_awaddr(l_awaddr),
    .m_axi_awprot(),
    .m_axi_awvalid(l_awvalid),
    .m_axi_awready(l_awready),
    .m_axi_wdata(l_wdata),
    .m_axi_wstrb(l_wstrb),
    .m_axi_wvalid(l_wvalid),
    .m_axi_wready(l_wready),
    .m_axi_bresp(l_bresp),
    .m_axi_bvalid(l_bvalid),
    .m_axi_bready(l_bready),
    .m_axi_araddr(l_araddr),
    .m_axi_arprot(),
    .m_axi_arvalid(l_arvalid),
    .m_axi_arready(l_arready),
    .m_axi_rdata(l_rdata),
    .m_axi_rresp(l_rresp),
    .m_axi_rvalid(l_rvalid),
    .m_axi_rready(l_rready)
);

axil_bar_split #(
    .ADDR_WIDTH(21),
    .SPLIT_BIT(20),
    .M0_ADDR_WIDTH(17),
    .M1_ADDR_WIDTH(12)
)
axil_bar_split_inst (
    .clk(clk),
    .rst(rst_reg),
    .s_axil_awaddr(l_awaddr[20:0]),
    .s_axil_awvalid(l_awvalid),
    .s_axil_awready(l_awready),
    .s_axil_wdata(l_wdata),
    .s_axil_wstrb(l_wstrb),
    .s_axil_wvalid(l_wvalid),
    .s_axil_wready(l_wready),
    .s_axil_bresp(l_bresp),
    .s_axil_bvalid(l_bvalid),
    .s_axil_bready(l_bready),
    .s_axil_araddr(l_araddr[20:0]),
    .s_axil_arvalid(l_arvalid),
    .s_axil_arready(l_arready),
    .s_axil_rdata(l_rdata),
    .s_axil_rresp(l_rresp),
    .s_axil_rvalid(l_rvalid),
    .s_axil_rready(l_rready),
    .m0_axil_awaddr(bar0_awaddr),
    .m0_axil_awvalid(bar0_awvalid),
    .m0_axil_awready(bar0_awready),
    .m0_axil_wdata(bar0_wdata),
    .m0_axil_wstrb(bar0_wstrb),
    .m0_axil_wvalid(bar0_wvalid),
    .m0_axil_wready(bar0_wready),
    .m0_axil_bresp(bar0_bresp),
    .m0_axil_bvalid(bar0_bvalid),
    .m0_axil_bready(bar0_bready),
    .m0_axil_araddr(bar0_araddr),
    .m0_axil_arvalid(bar0_arvalid),
    .m0_axil_arready(bar0_arready),
    .m0_axil_rdata(bar0_rdata),
    .m0_axil_rresp(bar0_rresp),
    .m0_axil_rvalid(bar0_rvalid),
    .m0_axil_rready(bar0_rready),
    .m1_axil_awaddr(bar2_awaddr),
    .m1_axil_awvalid(bar2_awvalid),
    .m1_axil_awready(bar2_awready),
    .m1_axil_wdata(bar2_wdata),
    .m1_axil_wstrb(bar2_wstrb),
    .m1_axil_wvalid(bar2_wvalid),
    .m1_axil_wready(bar2_wready),
    .m1_axil_bresp(bar2_bresp),
    .m1_axil_bvalid(bar2_bvalid),
    .m1_axil_bready(bar2_bready),
    .m1_axil_araddr(bar2_araddr),
    .m1_axil_arvalid(bar2_arvalid),
    .m1_axil_arready(bar2_arready),
    .m1_axil_rdata(bar2_rdata),
    .m1_axil_rresp(bar2_rresp),
    .m1_axil_rvalid(bar2_rvalid),
    .m1_axil_rready(bar2_rready)
);

/*
 * MSI-X: a message is one pulse of cfg_interrupt_msix_int; the block answers sent or fail
 * (PG213); on fail the same message goes again
 */
always @(posedge clk) begin
    msix_int_reg <= 1'b0;
    if (!msix_wait_reg && msix_valid && !msix_int_reg) begin
        msix_int_reg <= 1'b1;
        msix_wait_reg <= 1'b1;
    end else if (msix_wait_reg && (msix_sent || msix_fail)) begin
        msix_wait_reg <= 1'b0;
    end
    if (rst_reg) begin
        msix_int_reg <= 1'b0;
        msix_wait_reg <= 1'b0;
    end
end

wire msix_ready = msix_wait_reg && msix_sent;

/*
 * The 100G MAC
 */
wire [DATA_WIDTH-1:0] mac_rx_tdata, mac_tx_tdata;
wire [KEEP_WIDTH-1:0] mac_rx_tkeep, mac_tx_tkeep;
wire mac_rx_tvalid, mac_rx_tlast, mac_rx_tuser;
wire mac_tx_tvalid, mac_tx_tready, mac_tx_tlast, mac_tx_tuser;

mac_100g mac_100g_inst (
    .gt_rxp_in(qsfp0_rx_p),
    .gt_rxn_in(qsfp0_rx_n),
    .gt_txp_out(qsfp0_tx_p),
    .gt_txn_out(qsfp0_tx_n),
    .gt_ref_clk_p(qsfp0_refclk_p),
    .gt_ref_clk_n(qsfp0_refclk_n),
    .init_clk(init_clk),
    .sys_reset(!pcie_reset_n),
    .gt_txusrclk2(mac_clk),
    .gt_rxusrclk2(),
    .rx_clk(mac_clk),
    .usr_rx_reset(),
    .usr_tx_reset(mac_rst),
    .core_rx_reset(1'b0),
    .core_tx_reset(1'b0),
    .core_drp_reset(1'b0),
    .drp_clk(init_clk),
    .gtwiz_reset_tx_datapath(1'b0),
    .gtwiz_reset_rx_datapath(1'b0),
    .rx_axis_tvalid(mac_rx_tvalid),
    .rx_axis_tdata(mac_rx_tdata),
    .rx_axis_tlast(mac_rx_tlast),
    .rx_axis_tkeep(mac_rx_tkeep),
    .rx_axis_tuser(mac_rx_tuser),
    .tx_axis_tready(mac_tx_tready),
    .tx_axis_tvalid(mac_tx_tvalid),
    .tx_axis_tdata(mac_tx_tdata),
    .tx_axis_tlast(mac_tx_tlast),
    .tx_axis_tkeep(mac_tx_tkeep),
    .tx_axis_tuser(mac_tx_tuser),
    .tx_ovfout(),
    .tx_unfout(),
    .ctl_rx_enable(1'b1),
    .ctl_tx_enable(mac_aligned),
    .ctl_tx_send_idle(1'b0),
    .ctl_tx_send_rfi(!mac_aligned),
    .ctl_tx_send_lfi(1'b0),
    .ctl_rx_rsfec_enable(1'b1),
    .ctl_tx_rsfec_enable(1'b1),
    .stat_rx_aligned(mac_aligned)
);

// QSFP28 module control and its reference clock (161.1328125 MHz: FS = 2'b10)
assign qsfp0_modsell = 1'b0;
assign qsfp0_resetl = 1'b1;
assign qsfp0_lpmode = 1'b0;
assign qsfp0_refclk_reset = 1'b0;
assign qsfp0_fs = 2'b10;

/*
 * Configuration flash (STARTUPE3) and reload (ICAPE3)
 */
wire flash_sck, flash_cs_n, flash_mosi;
wire [3:0] flash_di;
wire icap_csib, icap_rdwrb, icap_avail;
wire [31:0] icap_i;

STARTUPE3 #(
    .PROG_USR("FALSE")
)
startup_inst (
    .CFGCLK(),
    .CFGMCLK(),
    .DI(flash_di),
    .EOS(),
    .PREQ(),
    // single-bit SPI: D0 is MOSI, D1 MISO; D2 (W#) and D3 (HOLD#) held high
    .DO({2'b11, 1'b0, flash_mosi}),
    .DTS(4'b0010),
    .FCSBO(flash_cs_n),
    .FCSBTS(1'b0),
    .GSR(1'b0),
    .GTS(1'b0),
    .KEYCLEARB(1'b1),
    .PACK(1'b0),
    .USRCCLKO(flash_sck),
    .USRCCLKTS(1'b0),
    .USRDONEO(1'b1),
    .USRDONETS(1'b0)
);

ICAPE3 icap_inst (
    .AVAIL(icap_avail),
    .O(),
    .PRDONE(),
    .PRERROR(),
    .CLK(icap_clk),
    .CSIB(icap_csib),
    .I(icap_i),
    .RDWRB(icap_rdwrb)
);

/*
 * The shell
 */
hroce_shell #(
    .BOARD_ID(BOARD_ID),
    .GIT_HASH(GIT_HASH),
    .BUILD_STAMP(BUILD_STAMP),
    .IDCODE(IDCODE),
    .FLASH_SIZE(FLASH_SIZE),
    .GOLDEN_OFF(GOLDEN_OFF),
    .GOLDEN_SIZE(GOLDEN_SIZE),
    .UPDATE_OFF(UPDATE_OFF),
    .UPDATE_SIZE(UPDATE_SIZE),
    // SCK = 250 MHz / 6: within what STARTUPE3's paths allow without timing closure on them
    .SPI_DIV_DEFAULT(8'd2),
    .ICAP_WORD_CYCLES(2)
)
hroce_shell_inst (
    .clk(clk),
    .rst(rst_reg),
    .mac_clk(mac_clk),
    .mac_rst(mac_rst),
    .time_now(time_reg),
    .m_time_deadline(),
    .s_axil_awaddr(bar0_awaddr),
    .s_axil_awvalid(bar0_awvalid),
    .s_axil_awready(bar0_awready),
    .s_axil_wdata(bar0_wdata),
    .s_axil_wstrb(bar0_wstrb),
    .s_axil_wvalid(bar0_wvalid),
    .s_axil_wready(bar0_wready),
    .s_axil_bresp(bar0_bresp),
    .s_axil_bvalid(bar0_bvalid),
    .s_axil_bready(bar0_bready),
    .s_axil_araddr(bar0_araddr),
    .s_axil_arvalid(bar0_arvalid),
    .s_axil_arready(bar0_arready),
    .s_axil_rdata(bar0_rdata),
    .s_axil_rresp(bar0_rresp),
    .s_axil_rvalid(bar0_rvalid),
    .s_axil_rready(bar0_rready),
    .s_axi_db_awaddr(db_awaddr),
    .s_axi_db_awlen(db_awlen),
    .s_axi_db_awsize(db_awsize),
    .s_axi_db_awvalid(db_awvalid),
    .s_axi_db_awready(db_awready),
    .s_axi_db_wdata(db_wdata),
    .s_axi_db_wstrb(db_wstrb),
    .s_axi_db_wlast(db_wlast),
    .s_axi_db_wvalid(db_wvalid),
    .s_axi_db_wready(db_wready),
    .s_axi_db_bresp(db_bresp),
    .s_axi_db_bvalid(db_bvalid),
    .s_axi_db_bready(db_bready),
    .s_axil_msix_awaddr(bar2_awaddr),
    .s_axil_msix_awvalid(bar2_awvalid),
    .s_axil_msix_awready(bar2_awready),
    .s_axil_msix_wdata(bar2_wdata),
    .s_axil_msix_wstrb(bar2_wstrb),
    .s_axil_msix_wvalid(bar2_wvalid),
    .s_axil_msix_wready(bar2_wready),
    .s_axil_msix_bresp(bar2_bresp),
    .s_axil_msix_bvalid(bar2_bvalid),
    .s_axil_msix_bready(bar2_bready),
    .s_axil_msix_araddr(bar2_araddr),
    .s_axil_msix_arvalid(bar2_arvalid),
    .s_axil_msix_arready(bar2_arready),
    .s_axil_msix_rdata(bar2_rdata),
    .s_axil_msix_rresp(bar2_rresp),
    .s_axil_msix_rvalid(bar2_rvalid),
    .s_axil_msix_rready(bar2_rready),
    .cfg_msix_enable(msix_enable[0]),
    .cfg_msix_function_mask(msix_mask[0]),
    .m_msix_addr(msix_addr),
    .m_msix_data(msix_data),
    .m_msix_valid(msix_valid),
    .m_msix_ready(msix_ready),
    .m_axi_awid(dma_awid),
    .m_axi_awaddr(dma_awaddr),
    .m_axi_awlen(dma_awlen),
    .m_axi_awsize(dma_awsize),
    .m_axi_awburst(dma_awburst),
    .m_axi_awvalid(dma_awvalid),
    .m_axi_awready(dma_awready),
    .m_axi_wdata(dma_wdata),
    .m_axi_wstrb(dma_wstrb),
    .m_axi_wlast(dma_wlast),
    .m_axi_wvalid(dma_wvalid),
    .m_axi_wready(dma_wready),
    .m_axi_bid({{(AXI_ID_WIDTH-BRIDGE_ID_WIDTH){1'b0}}, dma_bid}),
    .m_axi_bresp(dma_bresp),
    .m_axi_bvalid(dma_bvalid),
    .m_axi_bready(dma_bready),
    .m_axi_arid(dma_arid),
    .m_axi_araddr(dma_araddr),
    .m_axi_arlen(dma_arlen),
    .m_axi_arsize(dma_arsize),
    .m_axi_arburst(dma_arburst),
    .m_axi_arvalid(dma_arvalid),
    .m_axi_arready(dma_arready),
    .m_axi_rid({{(AXI_ID_WIDTH-BRIDGE_ID_WIDTH){1'b0}}, dma_rid}),
    .m_axi_rdata(dma_rdata),
    .m_axi_rresp(dma_rresp),
    .m_axi_rlast(dma_rlast),
    .m_axi_rvalid(dma_rvalid),
    .m_axi_rready(dma_rready),
    .s_axis_mac_rx_tdata(mac_rx_tdata),
    .s_axis_mac_rx_tkeep(mac_rx_tkeep),
    .s_axis_mac_rx_tvalid(mac_rx_tvalid),
    .s_axis_mac_rx_tlast(mac_rx_tlast),
    .s_axis_mac_rx_tuser(mac_rx_tuser),
    .m_axis_mac_tx_tdata(mac_tx_tdata),
    .m_axis_mac_tx_tkeep(mac_tx_tkeep),
    .m_axis_mac_tx_tvalid(mac_tx_tvalid),
    .m_axis_mac_tx_tready(mac_tx_tready),
    .m_axis_mac_tx_tlast(mac_tx_tlast),
    .m_axis_mac_tx_tuser(mac_tx_tuser),
    .flash_sck(flash_sck),
    .flash_cs_n(flash_cs_n),
    .flash_mosi(flash_mosi),
    .flash_miso(flash_di[1]),
    .icap_csib(icap_csib),
    .icap_rdwrb(icap_rdwrb),
    .icap_i(icap_i),
    .icap_avail(icap_avail)
);

// LEDs: PCIe link up, 100G link aligned, running
assign led = {!rst_reg, mac_aligned, link_up};

endmodule

`resetall
