/*

Stub of the PCIe bridge IP, for lint and elaboration only: AMD's DMA/Bridge Subsystem for
PCI Express (XDMA) in its AXI Bridge functional mode, as firmware/boards/common/ip.tcl
configures it (module name pcie_bridge; Gen3 x16, 512-bit AXI). Ports from PG194 (AXI
Bridge for PCI Express Gen3 Subsystem: the bridge mode's s_axib_* slave, toward host
memory, and m_axib_* master, from the BARs) and PG195 (XDMA: sys_clk, sys_clk_gt,
sys_rst_n, pci_exp_*, axi_aclk, axi_aresetn, user_lnk_up), and the MSI-X interface of
the "MSI-X external" option, as the integrated block has it (PG213:
cfg_interrupt_msix_enable/mask, address, data, int, sent, fail). Only the ports the board
top uses are listed; the IP has more (its s_axil_* register port, configuration
management), which Vivado ties off.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module pcie_bridge
(
    input  wire           sys_clk,
    input  wire           sys_clk_gt,
    input  wire           sys_rst_n,
    output wire           user_lnk_up,
    output wire [15:0]    pci_exp_txp,
    output wire [15:0]    pci_exp_txn,
    input  wire [15:0]    pci_exp_rxp,
    input  wire [15:0]    pci_exp_rxn,
    output wire           axi_aclk,
    output wire           axi_aresetn,
    output wire           interrupt_out,
    input  wire [3:0]     s_axib_awid,
    input  wire [63:0]    s_axib_awaddr,
    input  wire [7:0]     s_axib_awlen,
    input  wire [2:0]     s_axib_awsize,
    input  wire [1:0]     s_axib_awburst,
    input  wire [3:0]     s_axib_awregion,
    input  wire           s_axib_awvalid,
    output wire           s_axib_awready,
    input  wire [511:0]   s_axib_wdata,
    input  wire [63:0]    s_axib_wstrb,
    input  wire           s_axib_wlast,
    input  wire           s_axib_wvalid,
    output wire           s_axib_wready,
    output wire [3:0]     s_axib_bid,
    output wire [1:0]     s_axib_bresp,
    output wire           s_axib_bvalid,
    input  wire           s_axib_bready,
    input  wire [3:0]     s_axib_arid,
    input  wire [63:0]    s_axib_araddr,
    input  wire [7:0]     s_axib_arlen,
    input  wire [2:0]     s_axib_arsize,
    input  wire [1:0]     s_axib_arburst,
    input  wire [3:0]     s_axib_arregion,
    input  wire           s_axib_arvalid,
    output wire           s_axib_arready,
    output wire [3:0]     s_axib_rid,
    output wire [511:0]   s_axib_rdata,
    output wire [1:0]     s_axib_rresp,
    output wire           s_axib_rlast,
    output wire           s_axib_rvalid,
    input  wire           s_axib_rready,
    output wire [3:0]     m_axib_awid,
    output wire [63:0]    m_axib_awaddr,
    output wire [7:0]     m_axib_awlen,
    output wire [2:0]     m_axib_awsize,
    output wire [1:0]     m_axib_awburst,
    output wire           m_axib_awvalid,
    input  wire           m_axib_awready,
    output wire [511:0]   m_axib_wdata,
    output wire [63:0]    m_axib_wstrb,
    output wire           m_axib_wlast,
    output wire           m_axib_wvalid,
    input  wire           m_axib_wready,
    input  wire [3:0]     m_axib_bid,
    input  wire [1:0]     m_axib_bresp,
    input  wire           m_axib_bvalid,
    output wire           m_axib_bready,
    output wire [3:0]     m_axib_arid,
    output wire [63:0]    m_axib_araddr,
    output wire [7:0]     m_axib_arlen,
    output wire [2:0]     m_axib_arsize,
    output wire [1:0]     m_axib_arburst,
    output wire           m_axib_arvalid,
    input  wire           m_axib_arready,
    input  wire [3:0]     m_axib_rid,
    input  wire [511:0]   m_axib_rdata,
    input  wire [1:0]     m_axib_rresp,
    input  wire           m_axib_rlast,
    input  wire           m_axib_rvalid,
    output wire           m_axib_rready,
    output wire [3:0]     cfg_interrupt_msix_enable,
    output wire [3:0]     cfg_interrupt_msix_mask,
    input  wire [63:0]    cfg_interrupt_msix_address,
    input  wire [31:0]    cfg_interrupt_msix_data,
    input  wire           cfg_interrupt_msix_int,
    output wire           cfg_interrupt_msix_sent,
    output wire           cfg_interrupt_msix_fail
);

assign user_lnk_up = 1'd0;
assign pci_exp_txp = 16'd0;
assign pci_exp_txn = 16'd0;
assign axi_aclk = 1'd0;
assign axi_aresetn = 1'd0;
assign interrupt_out = 1'd0;
assign s_axib_awready = 1'd0;
assign s_axib_wready = 1'd0;
assign s_axib_bid = 4'd0;
assign s_axib_bresp = 2'd0;
assign s_axib_bvalid = 1'd0;
assign s_axib_arready = 1'd0;
assign s_axib_rid = 4'd0;
assign s_axib_rdata = 512'd0;
assign s_axib_rresp = 2'd0;
assign s_axib_rlast = 1'd0;
assign s_axib_rvalid = 1'd0;
assign m_axib_awid = 4'd0;
assign m_axib_awaddr = 64'd0;
assign m_axib_awlen = 8'd0;
assign m_axib_awsize = 3'd0;
assign m_axib_awburst = 2'd0;
assign m_axib_awvalid = 1'd0;
assign m_axib_wdata = 512'd0;
assign m_axib_wstrb = 64'd0;
assign m_axib_wlast = 1'd0;
assign m_axib_wvalid = 1'd0;
assign m_axib_bready = 1'd0;
assign m_axib_arid = 4'd0;
assign m_axib_araddr = 64'd0;
assign m_axib_arlen = 8'd0;
assign m_axib_arsize = 3'd0;
assign m_axib_arburst = 2'd0;
assign m_axib_arvalid = 1'd0;
assign m_axib_rready = 1'd0;
assign cfg_interrupt_msix_enable = 4'd0;
assign cfg_interrupt_msix_mask = 4'd0;
assign cfg_interrupt_msix_sent = 1'd0;
assign cfg_interrupt_msix_fail = 1'd0;

endmodule

`resetall
