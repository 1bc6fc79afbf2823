/*

Stub of the AXI Protocol Converter (axi_protocol_converter, PG039) as ip.tcl configures it
(module name bar_lite): AXI4 to AXI4-Lite, 32 bits. For lint and elaboration only.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module bar_lite
(
    input  wire           aclk,
    input  wire           aresetn,
    input  wire [31:0]    s_axi_awaddr,
    input  wire [7:0]     s_axi_awlen,
    input  wire [2:0]     s_axi_awsize,
    input  wire [1:0]     s_axi_awburst,
    input  wire           s_axi_awvalid,
    output wire           s_axi_awready,
    input  wire [31:0]    s_axi_wdata,
    input  wire [3:0]     s_axi_wstrb,
    input  wire           s_axi_wlast,
    input  wire           s_axi_wvalid,
    output wire           s_axi_wready,
    output wire [1:0]     s_axi_bresp,
    output wire           s_axi_bvalid,
    input  wire           s_axi_bready,
    input  wire [31:0]    s_axi_araddr,
    input  wire [7:0]     s_axi_arlen,
    input  wire [2:0]     s_axi_arsize,
    input  wire [1:0]     s_axi_arburst,
    input  wire           s_axi_arvalid,
    output wire           s_axi_arready,
    output wire [31:0]    s_axi_rdata,
    output wire [1:0]     s_axi_rresp,
    output wire           s_axi_rlast,
    output wire           s_axi_rvalid,
    input  wire           s_axi_rready,
    output wire [31:0]    m_axi_awaddr,
    output wire [2:0]     m_axi_awprot,
    output wire           m_axi_awvalid,
    input  wire           m_axi_awready,
    output wire [31:0]    m_axi_wdata,
    output wire [3:0]     m_axi_wstrb,
    output wire           m_axi_wvalid,
    input  wire           m_axi_wready,
    input  wire [1:0]     m_axi_bresp,
    input  wire           m_axi_bvalid,
    output wire           m_axi_bready,
    output wire [31:0]    m_axi_araddr,
    output wire [2:0]     m_axi_arprot,
    output wire           m_axi_arvalid,
    input  wire           m_axi_arready,
    input  wire [31:0]    m_axi_rdata,
    input  wire [1:0]     m_axi_rresp,
    input  wire           m_axi_rvalid,
    output wire           m_axi_rready
);

assign s_axi_awready = 1'd0;
assign s_axi_wready = 1'd0;
assign s_axi_bresp = 2'd0;
assign s_axi_bvalid = 1'd0;
assign s_axi_arready = 1'd0;
assign s_axi_rdata = 32'd0;
assign s_axi_rresp = 2'd0;
assign s_axi_rlast = 1'd0;
assign s_axi_rvalid = 1'd0;
assign m_axi_awaddr = 32'd0;
assign m_axi_awprot = 3'd0;
assign m_axi_awvalid = 1'd0;
assign m_axi_wdata = 32'd0;
assign m_axi_wstrb = 4'd0;
assign m_axi_wvalid = 1'd0;
assign m_axi_bready = 1'd0;
assign m_axi_araddr = 32'd0;
assign m_axi_arprot = 3'd0;
assign m_axi_arvalid = 1'd0;
assign m_axi_rready = 1'd0;

endmodule

`resetall
