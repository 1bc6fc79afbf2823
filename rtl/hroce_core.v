/*

HardRoCE core: a RoCEv2 RC transport NIC between an Ethernet MAC and a host bus.

    Ethernet RX -> net/roce_rx -> transport (responder, requester's response side)
    transport (requester, responder's ACKs and READ responses) -> net/roce_tx -> Ethernet TX
    AXI4-Lite   -> host/host_regs (registers, doorbells, commands)
    AXI4 master <- every host access: WQEs, payload, CQEs, contexts, translation tables
    irq         <- host/ (completion interrupts)

Interfaces (all synchronous to clk, reset active high):
- Ethernet: AXI-Stream frames without FCS, DATA_WIDTH bits; tuser on RX marks a frame the
  MAC found bad, on TX asks the MAC to abort the frame.
- Registers: AXI4-Lite slave, 64-bit data, offsets from the contract (REG_*).
- Host memory: AXI4 master, 64-bit addresses, DATA_WIDTH data, INCR bursts that never
  cross 4 KiB, many reads in flight (one ID per internal client).
- Interrupts: m_irq_vector with a valid/ready handshake, one per completion event.
- Time: time_now, a free-running count of clk cycles that may jump forward.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module hroce_core #
(
    // Datapath and host bus data width (the product configuration is 512)
    parameter DATA_WIDTH = `HROCE_DATA_WIDTH,
    // Byte lanes of the datapath
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // AXI4 master ID bits
    parameter AXI_ID_WIDTH = `HROCE_AXI_ID_WIDTH,
    // AXI4-Lite address bits (BAR0 size)
    parameter AXIL_ADDR_WIDTH = `HROCE_AXIL_ADDR_WIDTH,
    // Interrupt vector bits
    parameter IRQ_WIDTH = `HROCE_IRQ_WIDTH
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Time: cycles since reset, free running (may jump forward)
     */
    input  wire [63:0]                   time_now,

    /*
     * Ethernet frames in (without FCS)
     */
    input  wire [DATA_WIDTH-1:0]         s_axis_rx_tdata,
    input  wire [KEEP_WIDTH-1:0]         s_axis_rx_tkeep,
    input  wire                          s_axis_rx_tvalid,
    output wire                          s_axis_rx_tready,
    input  wire                          s_axis_rx_tlast,
    input  wire                          s_axis_rx_tuser,

    /*
     * Ethernet frames out (without FCS)
     */
    output wire [DATA_WIDTH-1:0]         m_axis_tx_tdata,
    output wire [KEEP_WIDTH-1:0]         m_axis_tx_tkeep,
    output wire                          m_axis_tx_tvalid,
    input  wire                          m_axis_tx_tready,
    output wire                          m_axis_tx_tlast,
    output wire                          m_axis_tx_tuser,

    /*
     * AXI4-Lite slave: registers and doorbells (BAR0)
     */
    input  wire [AXIL_ADDR_WIDTH-1:0]    s_axil_awaddr,
    input  wire                          s_axil_awvalid,
    output wire                          s_axil_awready,
    input  wire [63:0]                   s_axil_wdata,
    input  wire [7:0]                    s_axil_wstrb,
    input  wire                          s_axil_wvalid,
    output wire                          s_axil_wready,
    output wire [1:0]                    s_axil_bresp,
    output wire                          s_axil_bvalid,
    input  wire                          s_axil_bready,
    input  wire [AXIL_ADDR_WIDTH-1:0]    s_axil_araddr,
    input  wire                          s_axil_arvalid,
    output wire                          s_axil_arready,
    output wire [63:0]                   s_axil_rdata,
    output wire [1:0]                    s_axil_rresp,
    output wire                          s_axil_rvalid,
    input  wire                          s_axil_rready,

    /*
     * AXI4 master: host memory
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
     * Interrupt requests
     */
    output wire [IRQ_WIDTH-1:0]          m_irq_vector,
    output wire                          m_irq_valid,
    input  wire                          m_irq_ready
);

initial begin
    if (DATA_WIDTH != 512) begin
        $error("Error: %m: the core is built at 512 bits (DATA_WIDTH=%0d)", DATA_WIDTH);
        $finish;
    end
end

wire [47:0] cfg_mac;
wire [31:0] cfg_ipv4;
wire [63:0] cfg_qpc_base, cfg_cqc_base, cfg_mrc_base, cfg_mailbox;
wire [4:0] cfg_qpc_log, cfg_cqc_log, cfg_mrc_log;

wire cmd_start;
wire [7:0] cmd_op;
wire [23:0] cmd_num;
wire [63:0] cmd_arg;

wire [1:0] db_kind;
wire [63:0] db_value;
wire [511:0] db_push_data;
wire db_valid;

wire [`HROCE_ROCE_RX_DROP_COUNT*32-1:0] rx_stat_count;
wire [`HROCE_ROCE_RX_DROP_COUNT*64-1:0] rx_counters;
wire [`HROCE_CORE_COUNTER_COUNT*64-1:0] core_counters;

genvar g;
generate
    for (g = 0; g < `HROCE_ROCE_RX_DROP_COUNT; g = g + 1) begin : rx_counter
        assign rx_counters[g*64 +: 64] = {32'd0, rx_stat_count[g*32 +: 32]};
    end
endgenerate

host_regs #(
    .AXIL_ADDR_WIDTH(AXIL_ADDR_WIDTH)
)
regs_inst (
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
    .cfg_mac(cfg_mac),
    .cfg_ipv4(cfg_ipv4),
    .cfg_qpc_base(cfg_qpc_base),
    .cfg_qpc_log(cfg_qpc_log),
    .cfg_cqc_base(cfg_cqc_base),
    .cfg_cqc_log(cfg_cqc_log),
    .cfg_mrc_base(cfg_mrc_base),
    .cfg_mrc_log(cfg_mrc_log),
    .cfg_mailbox(cfg_mailbox),
    .cmd_start(cmd_start),
    .cmd_op(cmd_op),
    .cmd_num(cmd_num),
    .cmd_arg(cmd_arg),
    .cmd_busy(1'b0),
    .cmd_result(8'd0),
    .cmd_seq(16'd0),
    .m_db_kind(db_kind),
    .m_db_value(db_value),
    .m_db_push_data(db_push_data),
    .m_db_valid(db_valid),
    .m_db_ready(1'b1),
    .time_now(time_now),
    .rx_counters(rx_counters),
    .core_counters(core_counters)
);

assign core_counters = {`HROCE_CORE_COUNTER_COUNT*64{1'b0}};

/*
 * Network stage
 */
wire [`HROCE_ROCE_HDR_WIDTH-1:0] rx_hdr_data;
wire rx_hdr_valid;
wire [DATA_WIDTH-1:0] rx_payload_tdata;
wire [KEEP_WIDTH-1:0] rx_payload_tkeep;
wire rx_payload_tvalid, rx_payload_tlast;

roce_rx #(
    .DATA_WIDTH(DATA_WIDTH)
)
rx_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_axis_rx_tdata),
    .s_axis_tkeep(s_axis_rx_tkeep),
    .s_axis_tvalid(s_axis_rx_tvalid),
    .s_axis_tready(s_axis_rx_tready),
    .s_axis_tlast(s_axis_rx_tlast),
    .s_axis_tuser(s_axis_rx_tuser),
    .m_hdr_data(rx_hdr_data),
    .m_hdr_valid(rx_hdr_valid),
    .m_hdr_ready(1'b1),
    .m_axis_tdata(rx_payload_tdata),
    .m_axis_tkeep(rx_payload_tkeep),
    .m_axis_tvalid(rx_payload_tvalid),
    .m_axis_tready(1'b1),
    .m_axis_tlast(rx_payload_tlast),
    .m_other_tdata(),
    .m_other_tkeep(),
    .m_other_tvalid(),
    .m_other_tready(1'b1),
    .m_other_tlast(),
    .stat_count(rx_stat_count)
);

roce_tx #(
    .DATA_WIDTH(DATA_WIDTH)
)
tx_inst (
    .clk(clk),
    .rst(rst),
    .s_hdr_data({`HROCE_ROCE_HDR_WIDTH{1'b0}}),
    .s_hdr_valid(1'b0),
    .s_hdr_ready(),
    .s_axis_tdata({DATA_WIDTH{1'b0}}),
    .s_axis_tkeep({KEEP_WIDTH{1'b0}}),
    .s_axis_tvalid(1'b0),
    .s_axis_tready(),
    .s_axis_tlast(1'b0),
    .m_axis_tdata(m_axis_tx_tdata),
    .m_axis_tkeep(m_axis_tx_tkeep),
    .m_axis_tvalid(m_axis_tx_tvalid),
    .m_axis_tready(m_axis_tx_tready),
    .m_axis_tlast(m_axis_tx_tlast),
    .m_axis_tuser(m_axis_tx_tuser),
    .stat_frame(),
    .stat_payload_error()
);

/*
 * Host memory: no client yet
 */
assign m_axi_awid = {AXI_ID_WIDTH{1'b0}};
assign m_axi_awaddr = 64'd0;
assign m_axi_awlen = 8'd0;
assign m_axi_awsize = 3'd6;
assign m_axi_awburst = 2'b01;
assign m_axi_awvalid = 1'b0;
assign m_axi_wdata = {DATA_WIDTH{1'b0}};
assign m_axi_wstrb = {KEEP_WIDTH{1'b0}};
assign m_axi_wlast = 1'b0;
assign m_axi_wvalid = 1'b0;
assign m_axi_bready = 1'b1;
assign m_axi_arid = {AXI_ID_WIDTH{1'b0}};
assign m_axi_araddr = 64'd0;
assign m_axi_arlen = 8'd0;
assign m_axi_arsize = 3'd6;
assign m_axi_arburst = 2'b01;
assign m_axi_arvalid = 1'b0;
assign m_axi_rready = 1'b1;

assign m_irq_vector = {IRQ_WIDTH{1'b0}};
assign m_irq_valid = 1'b0;

endmodule

`resetall
