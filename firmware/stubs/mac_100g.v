/*

Stub of the 100G MAC IP, for lint and elaboration only: AMD's UltraScale+ Integrated 100G
Ethernet Subsystem (cmac_usplus, PG203) with its AXI4-Stream user interface, as ip.tcl
configures it (module name mac_100g; QSFP28 0 of the board, FCS inserted on TX and
removed on RX, RS-FEC enabled by ctl_*_rsfec_enable). Ports from PG203's port tables (GT,
clocking and reset, AXI4-Stream TX/RX, ctl_*, stat_rx_aligned); the IP has more (DRP,
statistics, pause), which Vivado ties off or leaves open.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module mac_100g
(
    input  wire [3:0]     gt_rxp_in,
    input  wire [3:0]     gt_rxn_in,
    output wire [3:0]     gt_txp_out,
    output wire [3:0]     gt_txn_out,
    input  wire           gt_ref_clk_p,
    input  wire           gt_ref_clk_n,
    input  wire           init_clk,
    input  wire           sys_reset,
    output wire           gt_txusrclk2,
    output wire           gt_rxusrclk2,
    input  wire           rx_clk,
    output wire           usr_rx_reset,
    output wire           usr_tx_reset,
    input  wire           core_rx_reset,
    input  wire           core_tx_reset,
    input  wire           core_drp_reset,
    input  wire           drp_clk,
    input  wire           gtwiz_reset_tx_datapath,
    input  wire           gtwiz_reset_rx_datapath,
    output wire           rx_axis_tvalid,
    output wire [511:0]   rx_axis_tdata,
    output wire           rx_axis_tlast,
    output wire [63:0]    rx_axis_tkeep,
    output wire           rx_axis_tuser,
    output wire           tx_axis_tready,
    input  wire           tx_axis_tvalid,
    input  wire [511:0]   tx_axis_tdata,
    input  wire           tx_axis_tlast,
    input  wire [63:0]    tx_axis_tkeep,
    input  wire           tx_axis_tuser,
    output wire           tx_ovfout,
    output wire           tx_unfout,
    input  wire           ctl_rx_enable,
    input  wire           ctl_tx_enable,
    input  wire           ctl_tx_send_idle,
    input  wire           ctl_tx_send_rfi,
    input  wire           ctl_tx_send_lfi,
    input  wire           ctl_rx_rsfec_enable,
    input  wire           ctl_tx_rsfec_enable,
    output wire           stat_rx_aligned
);

assign gt_txp_out = 4'd0;
assign gt_txn_out = 4'd0;
assign gt_txusrclk2 = 1'd0;
assign gt_rxusrclk2 = 1'd0;
assign usr_rx_reset = 1'd0;
assign usr_tx_reset = 1'd0;
assign rx_axis_tvalid = 1'd0;
assign rx_axis_tdata = 512'd0;
assign rx_axis_tlast = 1'd0;
assign rx_axis_tkeep = 64'd0;
assign rx_axis_tuser = 1'd0;
assign tx_axis_tready = 1'd0;
assign tx_ovfout = 1'd0;
assign tx_unfout = 1'd0;
assign stat_rx_aligned = 1'd0;

endmodule

`resetall
