/*

Stub of the AXI Data Width Converter (axi_dwidth_converter, PG059 "AXI Interconnect",
its data width converter chapter) as ip.tcl configures it (module name bar_dwidth): the
PCIe bridge's 512-bit BAR master down to 32 bits, one clock. For lint and elaboration only.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module bar_dwidth
(
    input  wire           s_axi_aclk,
    input  wire           s_axi_aresetn,
    input  wire [3:0]     s_axi_awid,
    input  wire [31:0]    s_axi_awaddr,
    input  wire [7:0]     s_axi_awlen,
    input  wire [2:0]     s_axi_awsize,
    input  wire [1:0]     s_axi_awburst,
    input  wire           s_axi_awvalid,
    output wire           s_axi_awready,
    input  wire [511:0]   s_axi_wdata,
    input  wire [63:0]    s_axi_wstrb,
    input  wire           s_axi_wlast,
    input  wire           s_axi_wvalid,
    output wire           s_axi_wready,
    output wire [3:0]     s_axi_bid,
    output wire [1:0]     s_axi_bresp,
    output wire           s_axi_bvalid,
    input  wire           s_axi_bready,
    input  wire [3:0]     s_axi_arid,
    input  wire [31:0]    s_axi_araddr,
    input  wire [7:0]     s_axi_arlen,
    input  wire [2:0]     s_axi_arsize,
    input  wire [1:0]     s_axi_arburst,
    input  wire           s_axi_arvalid,
    output wire           s_axi_arready,
    output wire [3:0]     s_axi_rid,
    output wire [511:0]   s_axi_rdata,
    output wire [1:0]     s_axi_rresp,
    output wire           s_axi_rlast,
    output wire           s_axi_rvalid,
    input  wire           s_axi_rready,
    output wire [31:0]    m_axi_awaddr,
    output wire [7:0]     m_axi_awlen,
    output wire [2:0]     m_axi_awsize,
    output wire [1:0]     m_axi_awburst,
    output wire           m_axi_awvalid,
    input  wire           m_axi_awready,
    output wire [31:0]    m_axi_wdata,
    output wire [3:0]     m_axi_wstrb,
    output wire           m_axi_wlast,
    output wire           m_axi_wvalid,
    input  wire           m_axi_wready,
    input  wire [1:0]     m_axi_bresp,
    input  wire           m_axi_bvalid,
    output wire           m_axi_bready,
    output wire [31:0]    m_axi_araddr,
    output wire [7:0]     m_axi_arlen,
    output wire [2:0]     m_axi_arsize,
    output wire [1:0]     m_axi_arburst,
    output wire           m_axi_arvalid,
    input  wire           m_axi_arready,
    input  wire [31:0]    m_axi_rdata,
    input  wire [1:0]     m_axi_rresp,
    input  wire           m_axi_rlast,
    input  wire           m_axi_rvalid,
    output wire           m_axi_rready
);

assign s_axi_awready = 1'd0;
assign s_axi_wready = 1'd0;
assign s_axi_bid = 4'd0;
assign s_axi_bresp = 2'd0;
assign s_axi_bvalid = 1'd0;
assign s_axi_arready = 1'd0;
assign s_axi_rid = 4'd0;
assign s_axi_rdata = 512'd0;
assign s_axi_rresp = 2'd0;
assign s_axi_rlast = 1'd0;
assign s_axi_rvalid = 1'd0;
assign m_axi_awaddr = 32'd0;
assign m_axi_awlen = 8'd0;
assign m_axi_awsize = 3'd0;
assign m_axi_awburst = 2'd0;
assign m_axi_awvalid = 1'd0;
assign m_axi_wdata = 32'd0;
assign m_axi_wstrb = 4'd0;
assign m_axi_wlast = 1'd0;
assign m_axi_wvalid = 1'd0;
assign m_axi_bready = 1'd0;
assign m_axi_araddr = 32'd0;
assign m_axi_arlen = 8'd0;
assign m_axi_arsize = 3'd0;
assign m_axi_arburst = 2'd0;
assign m_axi_arvalid = 1'd0;
assign m_axi_rready = 1'd0;

endmodule

`resetall
