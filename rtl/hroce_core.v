/*

HardRoCE core: a RoCEv2 RC transport NIC between an Ethernet MAC and a host bus.

    Ethernet RX -> net/roce_rx -> transport (responder, requester's response side)
                              -> net/arp, net/icmp_echo (ICMP, ICMPv6), net/nd_neigh (other
                                 frames: counted, dropped)
    transport (requester, responder's ACKs and READ responses) -> net/roce_tx -+-> Ethernet TX
    net/arp (replies, requests), net/icmp_echo (echo replies),                 |
    net/nd_neigh (advertisements, solicitations) ------------------------------+
    AXI4-Lite   -> host/host_regs (registers, doorbells, commands)
    AXI4 (wo)   -> host/db_pages (WQEs pushed with their doorbell) -> the requester
    AXI4 master <- every host access: WQEs, payload, CQEs, contexts, translation tables
    irq         <- host/ (completion interrupts)

Interfaces (all synchronous to clk, reset active high):
- Ethernet: AXI-Stream frames without FCS, DATA_WIDTH bits; tuser on RX marks a frame the
  MAC found bad, on TX asks the MAC to abort the frame.
- Registers: AXI4-Lite slave, 64-bit data, offsets from the contract (REG_*).
- Doorbell pages: AXI4 slave, write only, DATA_WIDTH data, DB_ADDR_WIDTH address bits: a
  64-byte WQE written as one beat is its SQ's doorbell (contract: DB_*).
- Host memory: AXI4 master, 64-bit addresses, DATA_WIDTH data, INCR bursts that never
  cross 4 KiB, many reads in flight (one ID per internal client).
- Interrupts: m_irq_vector with a valid/ready handshake, one per completion event.
- Time: time_now, a free-running count of clk cycles that may jump forward;
  m_time_deadline, the earliest time_now at which a timer of the core (retransmission,
  RNR, an ARP request or IPv6 solicitation to send again or give up) may expire: all ones when none runs, 0
  while the retransmission timers are busy. A simulation
  whose core is otherwise quiet may jump time_now to it instead of evaluating the cycles
  between.

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
    parameter IRQ_WIDTH = `HROCE_IRQ_WIDTH,
    // 1: the trace port tells every stage event (the simulation's models); 0: it is tied
    // to zero and nothing of it is built (a board)
    parameter TRACE = 0
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Time: cycles since reset, free running (may jump forward)
     */
    input  wire [63:0]                   time_now,
    output wire [63:0]                   m_time_deadline,

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
     * AXI4 slave, write only: the doorbell pages (pushed WQEs)
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
    input  wire                          m_irq_ready,

    /*
     * Trace: lane k (contract: TRACE) valid in the cycle its stage hands a packet or a
     * WQE on, its TRACE_EVENT at bits k*TRACE_EVENT_WIDTH upward (all zero unless TRACE)
     */
    output wire [`HROCE_TRACE_COUNT-1:0] m_trace_valid,
    output wire [`HROCE_TRACE_COUNT*`HROCE_TRACE_EVENT_WIDTH-1:0] m_trace_data
);

initial begin
    if (DATA_WIDTH != 512) begin
        $error("Error: %m: the core is built at 512 bits (DATA_WIDTH=%0d)", DATA_WIDTH);
        $finish;
    end
end

/*
 * DMA clients: every host access of the core goes through one of these, each with its
 * own engine and AXI ID; the arbiters merge them into the one AXI4 master.
 */
// read clients
localparam RD_CMD = 0, RD_REQ_WQE = 1, RD_REQ_PAY = 2, RD_RESP_WQE = 3, RD_RESP_PAY = 4,
           RD_CTX_REQ = 5, RD_CTX_RESP = 6, RD_CTX_CQ = 7, RD_MR_REQ = 8, RD_MR_RESP = 9,
           RD_ACK_WQE = 10, RD_CTX_ACK = 11;
localparam NRD = 12;
// byte-stream (realigning) read clients; the others read whole beats
localparam [NRD-1:0] RD_STREAM = (1 << RD_REQ_PAY) | (1 << RD_RESP_PAY);
// the windows on the send and the receive queues: several 512-byte reads in flight (64
// beats)
localparam [NRD-1:0] RD_DEEP = (1 << RD_REQ_WQE) | (1 << RD_RESP_WQE);
// write clients (all byte streams)
localparam WR_CMD = 0, WR_REQ = 1, WR_RESP = 2, WR_CQ = 3, WR_CTX_REQ = 4, WR_CTX_RESP = 5,
           WR_CTX_CQ = 6, WR_CTX_ACK = 7;
localparam NWR = 8;

wire [NRD*64-1:0] rd_req_addr;
wire [NRD*16-1:0] rd_req_len;
wire [NRD-1:0] rd_req_last, rd_req_valid, rd_req_ready;
wire [NRD*DATA_WIDTH-1:0] rd_tdata;
wire [NRD*KEEP_WIDTH-1:0] rd_tkeep;
wire [NRD-1:0] rd_tvalid, rd_tready, rd_tlast, rd_tuser;

wire [NWR*64-1:0] wr_req_addr;
wire [NWR*16-1:0] wr_req_len;
wire [NWR-1:0] wr_req_valid, wr_req_ready;
wire [NWR*DATA_WIDTH-1:0] wr_tdata;
wire [NWR*KEEP_WIDTH-1:0] wr_tkeep;
wire [NWR-1:0] wr_tvalid, wr_tready, wr_tlast;
wire [NWR-1:0] wr_done_valid, wr_done_error;

/*
 * Registers, commands, doorbells, counters
 */
wire [47:0] cfg_mac;
wire [31:0] cfg_ipv4;
wire [`HROCE_IPV6_ADDRS*128-1:0] cfg_ip6;
wire [`HROCE_IPV6_ADDRS-1:0] cfg_ip6_valid;
wire [63:0] cfg_qpc_base, cfg_cqc_base, cfg_mrc_base, cfg_mailbox;
wire [4:0] cfg_qpc_log, cfg_cqc_log, cfg_mrc_log;
wire [63:0] cfg_eq_base;
wire [4:0] cfg_eq_log;
wire [7:0] cfg_eq_vector;
wire cfg_eq_enable;
wire eq_restart;
wire [63:0] cfg_arp_lifetime;
wire [31:0] cfg_arp_retry_interval;
wire [3:0] cfg_arp_retry_tries;
wire [31:0] cfg_ack_unit, cfg_rnr_unit;
wire [31:0] arp_lookup_ip;
wire arp_lookup_valid;
wire [`HROCE_ARP_RESULT_WIDTH-1:0] arp_result;
wire [127:0] nd_lookup_ip;
wire nd_lookup_valid;
wire [`HROCE_ARP_RESULT_WIDTH-1:0] nd_result;

wire cmd_start, cmd_busy;
wire [7:0] cmd_op, cmd_result;
wire [23:0] cmd_num;
wire [63:0] cmd_arg;
wire [15:0] cmd_seq;
wire hold;
wire req_idle, resp_idle, resp_tx_idle, cq_idle;

wire [1:0] db_kind;
wire [63:0] db_value;
wire db_valid, db_ready;
wire req_db_ready, resp_db_ready, cq_db_ready;
// pushed doorbells from the doorbell pages, and the SQ doorbells the requester sees
wire [23:0] pushed_qpn;
wire [15:0] pushed_index;
wire [`HROCE_SQ_WQE_BITS-1:0] pushed_wqe;
wire pushed_valid, pushed_ready, pushed_busy;
wire reg_sq_db = db_valid && db_kind == 2'd0;
wire [23:0] sq_db_qpn = reg_sq_db ? db_value[`HROCE_DOORBELL_NUM] : pushed_qpn;
wire [15:0] sq_db_index = reg_sq_db ? db_value[`HROCE_DOORBELL_INDEX] : pushed_index;
// One SQ doorbell a cycle: req_tx takes doorbells and QPs' turns in turn, and the
// responses go to req_ack, so a stream of doorbells starves neither.
wire sq_db_valid = reg_sq_db || pushed_valid;

wire [`HROCE_ROCE_RX_DROP_COUNT*32-1:0] rx_stat_count;
wire [`HROCE_ROCE_RX_DROP_COUNT*64-1:0] rx_counters;
wire [`HROCE_CORE_COUNTER_COUNT*64-1:0] core_counters;
// one pulse per counter, indexed by CORE_COUNTER (as wide as that enum's values reach)
wire [(1 << `HROCE_CORE_COUNTER_WIDTH)-1:0] core_stat;
assign core_stat[(1 << `HROCE_CORE_COUNTER_WIDTH)-1:`HROCE_CORE_COUNTER_COUNT] = 0;
wire [`HROCE_NET_COUNTER_COUNT*64-1:0] net_counters;
// one pulse per counter, indexed by NET_COUNTER (as wide as that enum's values reach)
wire [(1 << `HROCE_NET_COUNTER_WIDTH)-1:0] net_stat;
generate
    // (the NET_COUNTER enum may be full: no spare pulse to tie off)
    if (`HROCE_NET_COUNTER_COUNT < (1 << `HROCE_NET_COUNTER_WIDTH)) begin : net_stat_spare
        assign net_stat[(1 << `HROCE_NET_COUNTER_WIDTH)-1:`HROCE_NET_COUNTER_COUNT] = 0;
    end
endgenerate

genvar g;
generate
    for (g = 0; g < `HROCE_ROCE_RX_DROP_COUNT; g = g + 1) begin : rx_counter
        assign rx_counters[g*64 +: 64] = {32'd0, rx_stat_count[g*32 +: 32]};
    end
endgenerate

// the context caches: lines (log2) and ways (log2) of each QP context cache and of the CQ
// context cache (see bench_rc's many-QP figures: 1024 QPs in turn fit the QP caches)
localparam QPC_CACHE_LOG = 10, QPC_WAY_LOG = 1;
localparam CQC_CACHE_LOG = 6, CQC_WAY_LOG = 1;

// what REG_CAPS reports: QPNs below 2^TIMER_QPN_WIDTH (the retransmission timers' bitmap),
// CQNs and MR indexes of 24 bits, rings of up to 2^15 WQEs (LOG_*_SIZE is four bits), 30
// SGEs in a 512-byte send WQE, the lines of each QP context cache, 16 MR lines
function [63:0] caps_value(input dummy);
    reg [63:0] c;
    begin
        c = 64'd0;
        c[`HROCE_CAPS_LOG_MAX_QP] = `HROCE_TIMER_QPN_WIDTH;
        c[`HROCE_CAPS_LOG_MAX_CQ] = 5'd24;
        c[`HROCE_CAPS_LOG_MAX_MR] = 5'd24;
        c[`HROCE_CAPS_LOG_MAX_WQE] = 5'd15;
        c[`HROCE_CAPS_MAX_SGE] = 8'd30;
        c[`HROCE_CAPS_QP_CACHE_LINES] = 16'd1 << QPC_CACHE_LOG;
        c[`HROCE_CAPS_MR_CACHE_LINES] = 16'd16;
        caps_value = c | {63'd0, dummy & 1'b0};
    end
endfunction
localparam [63:0] CAPS = caps_value(1'b0);

host_regs #(
    .AXIL_ADDR_WIDTH(AXIL_ADDR_WIDTH),
    .CAPS(CAPS)
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
    .cfg_ip6(cfg_ip6),
    .cfg_ip6_valid(cfg_ip6_valid),
    .cfg_qpc_base(cfg_qpc_base),
    .cfg_qpc_log(cfg_qpc_log),
    .cfg_cqc_base(cfg_cqc_base),
    .cfg_cqc_log(cfg_cqc_log),
    .cfg_mrc_base(cfg_mrc_base),
    .cfg_mrc_log(cfg_mrc_log),
    .cfg_mailbox(cfg_mailbox),
    .cfg_arp_lifetime(cfg_arp_lifetime),
    .cfg_arp_retry_interval(cfg_arp_retry_interval),
    .cfg_arp_retry_tries(cfg_arp_retry_tries),
    .cfg_eq_base(cfg_eq_base),
    .cfg_eq_log(cfg_eq_log),
    .cfg_eq_vector(cfg_eq_vector),
    .cfg_eq_enable(cfg_eq_enable),
    .eq_restart(eq_restart),
    .cfg_ack_unit(cfg_ack_unit),
    .cfg_rnr_unit(cfg_rnr_unit),
    .arp_lookup_ip(arp_lookup_ip),
    .arp_lookup_valid(arp_lookup_valid),
    .arp_result(arp_result),
    .nd_lookup_ip(nd_lookup_ip),
    .nd_lookup_valid(nd_lookup_valid),
    .nd_result(nd_result),
    .cmd_start(cmd_start),
    .cmd_op(cmd_op),
    .cmd_num(cmd_num),
    .cmd_arg(cmd_arg),
    .cmd_busy(cmd_busy),
    .cmd_result(cmd_result),
    .cmd_seq(cmd_seq),
    .m_db_kind(db_kind),
    .m_db_value(db_value),
    .m_db_valid(db_valid),
    .m_db_ready(db_ready),
    .sq_hold(pushed_busy),
    .time_now(time_now),
    .rx_counters(rx_counters),
    .core_counters(core_counters),
    .net_counters(net_counters)
);

stat_counters #(
    .COUNTERS(`HROCE_CORE_COUNTER_COUNT)
)
counters_inst (
    .clk(clk),
    .rst(rst),
    .stat_pulse(core_stat[`HROCE_CORE_COUNTER_COUNT-1:0]),
    .count(core_counters)
);

stat_counters #(
    .COUNTERS(`HROCE_NET_COUNTER_COUNT)
)
net_counters_inst (
    .clk(clk),
    .rst(rst),
    .stat_pulse(net_stat[`HROCE_NET_COUNTER_COUNT-1:0]),
    .count(net_counters)
);

db_pages #(
    .DATA_WIDTH(DATA_WIDTH)
)
db_pages_inst (
    .clk(clk),
    .rst(rst),
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
    .m_db_qpn(pushed_qpn),
    .m_db_index(pushed_index),
    .m_db_wqe(pushed_wqe),
    .m_db_valid(pushed_valid),
    .m_db_ready(pushed_ready),
    .hold(reg_sq_db),
    .db_busy(pushed_busy),
    .stat_pushed(core_stat[`HROCE_CORE_COUNTER_DB_PUSHED]),
    .stat_malformed(core_stat[`HROCE_CORE_COUNTER_DB_MALFORMED])
);

// doorbells by kind: SQ to the requester (a register file's first: the doorbell pages take
// no beat while it waits, and it took none while one of theirs was on its way), RQ to the
// responder, CQ arming to the CQE writer
assign db_ready = db_kind == 2'd0 ? req_db_ready : db_kind == 2'd1 ? resp_db_ready :
                  db_kind == 2'd2 ? cq_db_ready : 1'b1;
assign pushed_ready = req_db_ready && !reg_sq_db;

wire [1:0] inval_kind;
wire [23:0] inval_num;
wire inval_valid, inval_ready, inval_done;
// invalidation targets: the QP caches (the requester's two, the responder's), the CQ
// cache, both MR translators
localparam INV_CTX_REQ = 0, INV_CTX_RESP = 1, INV_CTX_CQ = 2, INV_MR_REQ = 3, INV_MR_RESP = 4,
           INV_CTX_ACK = 5;
wire [23:0] inv_num;
wire [5:0] inv_valid, inv_ready, inv_done;

cmd_engine #(
    .DATA_WIDTH(DATA_WIDTH)
)
cmd_inst (
    .clk(clk),
    .rst(rst),
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
    .cmd_busy(cmd_busy),
    .cmd_result(cmd_result),
    .cmd_seq(cmd_seq),
    .m_hold(hold),
    .s_idle(req_idle && resp_idle && resp_tx_idle && cq_idle),
    .m_inval_kind(inval_kind),
    .m_inval_num(inval_num),
    .m_inval_valid(inval_valid),
    .m_inval_ready(inval_ready),
    .s_inval_done(inval_done),
    .m_rd_req_addr(rd_req_addr[RD_CMD*64 +: 64]),
    .m_rd_req_len(rd_req_len[RD_CMD*16 +: 16]),
    .m_rd_req_valid(rd_req_valid[RD_CMD]),
    .m_rd_req_ready(rd_req_ready[RD_CMD]),
    .s_rd_axis_tdata(rd_tdata[RD_CMD*DATA_WIDTH +: DATA_WIDTH]),
    .s_rd_axis_tvalid(rd_tvalid[RD_CMD]),
    .s_rd_axis_tready(rd_tready[RD_CMD]),
    .s_rd_axis_tlast(rd_tlast[RD_CMD]),
    .s_rd_axis_tuser(rd_tuser[RD_CMD]),
    .m_wr_req_addr(wr_req_addr[WR_CMD*64 +: 64]),
    .m_wr_req_len(wr_req_len[WR_CMD*16 +: 16]),
    .m_wr_req_valid(wr_req_valid[WR_CMD]),
    .m_wr_req_ready(wr_req_ready[WR_CMD]),
    .m_wr_axis_tdata(wr_tdata[WR_CMD*DATA_WIDTH +: DATA_WIDTH]),
    .m_wr_axis_tkeep(wr_tkeep[WR_CMD*KEEP_WIDTH +: KEEP_WIDTH]),
    .m_wr_axis_tvalid(wr_tvalid[WR_CMD]),
    .m_wr_axis_tready(wr_tready[WR_CMD]),
    .m_wr_axis_tlast(wr_tlast[WR_CMD]),
    .s_wr_done_valid(wr_done_valid[WR_CMD]),
    .s_wr_done_error(wr_done_error[WR_CMD]),
    .stat_command(core_stat[`HROCE_CORE_COUNTER_COMMANDS])
);
assign rd_req_last[RD_CMD] = 1'b1;

inval_fanout #(
    .TARGETS(6),
    .KIND_MASK0((6'd1 << INV_CTX_REQ) | (6'd1 << INV_CTX_RESP) | (6'd1 << INV_CTX_ACK)),
    .KIND_MASK1(6'd1 << INV_CTX_CQ),
    .KIND_MASK2((6'd1 << INV_MR_REQ) | (6'd1 << INV_MR_RESP))
)
inval_inst (
    .clk(clk),
    .rst(rst),
    .s_kind(inval_kind),
    .s_num(inval_num),
    .s_valid(inval_valid),
    .s_ready(inval_ready),
    .s_done(inval_done),
    .m_num(inv_num),
    .m_valid(inv_valid),
    .m_ready(inv_ready),
    .m_done(inv_done)
);

/*
 * Network stage
 */
wire [`HROCE_ROCE_HDR_WIDTH-1:0] rx_hdr_data;
wire rx_hdr_valid, rx_hdr_ready;
wire [DATA_WIDTH-1:0] rx_payload_tdata;
wire [KEEP_WIDTH-1:0] rx_payload_tkeep;
wire rx_payload_tvalid, rx_payload_tready, rx_payload_tlast;
wire [DATA_WIDTH-1:0] other_tdata;
wire [KEEP_WIDTH-1:0] other_tkeep;
wire other_tvalid, other_tready, other_tlast;
wire [`HROCE_NET_FRAME_WIDTH-1:0] other_tdest;

// headers leave before their ICRC is known: the responder starts on a request meanwhile
wire rx_verdict_good, rx_verdict_valid, rx_verdict_ready;

roce_rx #(
    .DATA_WIDTH(DATA_WIDTH),
    .EARLY_HDR(1)
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
    .m_hdr_ready(rx_hdr_ready),
    .m_verdict_good(rx_verdict_good),
    .m_verdict_valid(rx_verdict_valid),
    .m_verdict_ready(rx_verdict_ready),
    .m_axis_tdata(rx_payload_tdata),
    .m_axis_tkeep(rx_payload_tkeep),
    .m_axis_tvalid(rx_payload_tvalid),
    .m_axis_tready(rx_payload_tready),
    .m_axis_tlast(rx_payload_tlast),
    .m_other_tdata(other_tdata),
    .m_other_tkeep(other_tkeep),
    .m_other_tvalid(other_tvalid),
    .m_other_tready(other_tready),
    .m_other_tlast(other_tlast),
    .m_other_tdest(other_tdest),
    .stat_count(rx_stat_count)
);

/*
 * Frames that are not RoCE: ARP to arp, ICMP to icmp_echo, ICMPv6 to nd_neigh (none ever
 * holds the RX path back: each drops what it has no room for, and counts it), the rest
 * counted and dropped
 */
wire arp_rx_tready, icmp_rx_tready, nd_rx_tready, icmp6_rx_tready;
assign other_tready = other_tdest == `HROCE_NET_FRAME_ARP ? arp_rx_tready :
                      other_tdest == `HROCE_NET_FRAME_ICMP ? icmp_rx_tready :
                      other_tdest == `HROCE_NET_FRAME_ICMPV6 ? nd_rx_tready && icmp6_rx_tready :
                      1'b1;

reg stat_rx_other_reg = 1'b0;
always @(posedge clk) begin
    stat_rx_other_reg <= other_tvalid && other_tready && other_tlast &&
                         other_tdest == `HROCE_NET_FRAME_OTHER;
    if (rst) begin
        stat_rx_other_reg <= 1'b0;
    end
end
assign net_stat[`HROCE_NET_COUNTER_RX_OTHER] = stat_rx_other_reg;

wire [DATA_WIDTH-1:0] arp_tx_tdata, icmp_tx_tdata, roce_tx_tdata;
wire [KEEP_WIDTH-1:0] arp_tx_tkeep, icmp_tx_tkeep, roce_tx_tkeep;
wire arp_tx_tvalid, arp_tx_tready, arp_tx_tlast, arp_tx_tuser;
wire [63:0] arp_deadline;
wire icmp_tx_tvalid, icmp_tx_tready, icmp_tx_tlast, icmp_tx_tuser;
wire [DATA_WIDTH-1:0] nd_tx_tdata;
wire [KEEP_WIDTH-1:0] nd_tx_tkeep;
wire nd_tx_tvalid, nd_tx_tready, nd_tx_tlast, nd_tx_tuser;
wire [63:0] nd_deadline;
wire [DATA_WIDTH-1:0] icmp6_tx_tdata;
wire [KEEP_WIDTH-1:0] icmp6_tx_tkeep;
wire icmp6_tx_tvalid, icmp6_tx_tready, icmp6_tx_tlast, icmp6_tx_tuser;
wire roce_tx_tvalid, roce_tx_tready, roce_tx_tlast, roce_tx_tuser;

arp #(
    .DATA_WIDTH(DATA_WIDTH)
)
arp_inst (
    .clk(clk),
    .rst(rst),
    .cfg_mac(cfg_mac),
    .cfg_ipv4(cfg_ipv4),
    .cfg_lifetime(cfg_arp_lifetime),
    .cfg_retry_interval(cfg_arp_retry_interval),
    .cfg_retry_tries(cfg_arp_retry_tries),
    .time_now(time_now),
    .s_axis_tdata(other_tdata),
    .s_axis_tkeep(other_tkeep),
    .s_axis_tvalid(other_tvalid && other_tdest == `HROCE_NET_FRAME_ARP),
    .s_axis_tready(arp_rx_tready),
    .s_axis_tlast(other_tlast),
    .m_axis_tdata(arp_tx_tdata),
    .m_axis_tkeep(arp_tx_tkeep),
    .m_axis_tvalid(arp_tx_tvalid),
    .m_axis_tready(arp_tx_tready),
    .m_axis_tlast(arp_tx_tlast),
    .m_axis_tuser(arp_tx_tuser),
    .s_lookup_ip(arp_lookup_ip),
    .s_lookup_valid(arp_lookup_valid),
    .m_result(arp_result),
    .m_deadline(arp_deadline),
    .stat_answered(net_stat[`HROCE_NET_COUNTER_ARP_ANSWERED]),
    .stat_learned(net_stat[`HROCE_NET_COUNTER_ARP_LEARNED]),
    .stat_ignored(net_stat[`HROCE_NET_COUNTER_ARP_IGNORED]),
    .stat_malformed(net_stat[`HROCE_NET_COUNTER_ARP_MALFORMED]),
    .stat_overflow(net_stat[`HROCE_NET_COUNTER_ARP_OVERFLOW]),
    .stat_unsolicited(net_stat[`HROCE_NET_COUNTER_ARP_UNSOLICITED]),
    .stat_request_sent(net_stat[`HROCE_NET_COUNTER_ARP_REQUEST_SENT]),
    .stat_failed(net_stat[`HROCE_NET_COUNTER_ARP_FAILED]),
    .stat_expired(net_stat[`HROCE_NET_COUNTER_ARP_EXPIRED])
);

icmp_echo #(
    .DATA_WIDTH(DATA_WIDTH)
)
icmp_inst (
    .clk(clk),
    .rst(rst),
    .cfg_mac(cfg_mac),
    .cfg_ipv4(cfg_ipv4),
    .cfg_ip6(cfg_ip6),
    .cfg_ip6_valid(cfg_ip6_valid),
    .s_axis_tdata(other_tdata),
    .s_axis_tkeep(other_tkeep),
    .s_axis_tvalid(other_tvalid && other_tdest == `HROCE_NET_FRAME_ICMP),
    .s_axis_tready(icmp_rx_tready),
    .s_axis_tlast(other_tlast),
    .m_axis_tdata(icmp_tx_tdata),
    .m_axis_tkeep(icmp_tx_tkeep),
    .m_axis_tvalid(icmp_tx_tvalid),
    .m_axis_tready(icmp_tx_tready),
    .m_axis_tlast(icmp_tx_tlast),
    .m_axis_tuser(icmp_tx_tuser),
    .stat_answered(net_stat[`HROCE_NET_COUNTER_ICMP_ANSWERED]),
    .stat_ignored(net_stat[`HROCE_NET_COUNTER_ICMP_IGNORED]),
    .stat_not_ours(net_stat[`HROCE_NET_COUNTER_ICMP_NOT_OURS]),
    .stat_malformed(net_stat[`HROCE_NET_COUNTER_ICMP_MALFORMED]),
    .stat_too_long(net_stat[`HROCE_NET_COUNTER_ICMP_TOO_LONG]),
    .stat_overflow(net_stat[`HROCE_NET_COUNTER_ICMP_OVERFLOW])
);

// IPv6 neighbour discovery: ARP's engine and policy (REG_ARP_LIFETIME, REG_ARP_RETRY)
nd_neigh #(
    .DATA_WIDTH(DATA_WIDTH),
    .ADDRS(`HROCE_IPV6_ADDRS)
)
nd_inst (
    .clk(clk),
    .rst(rst),
    .cfg_mac(cfg_mac),
    .cfg_ip6(cfg_ip6),
    .cfg_ip6_valid(cfg_ip6_valid),
    .cfg_lifetime(cfg_arp_lifetime),
    .cfg_retry_interval(cfg_arp_retry_interval),
    .cfg_retry_tries(cfg_arp_retry_tries),
    .time_now(time_now),
    .s_axis_tdata(other_tdata),
    .s_axis_tkeep(other_tkeep),
    .s_axis_tvalid(other_tvalid && other_tdest == `HROCE_NET_FRAME_ICMPV6),
    .s_axis_tready(nd_rx_tready),
    .s_axis_tlast(other_tlast),
    .m_axis_tdata(nd_tx_tdata),
    .m_axis_tkeep(nd_tx_tkeep),
    .m_axis_tvalid(nd_tx_tvalid),
    .m_axis_tready(nd_tx_tready),
    .m_axis_tlast(nd_tx_tlast),
    .m_axis_tuser(nd_tx_tuser),
    .s_lookup_ip(nd_lookup_ip),
    .s_lookup_valid(nd_lookup_valid),
    .m_result(nd_result),
    .m_deadline(nd_deadline),
    .stat_answered(net_stat[`HROCE_NET_COUNTER_ND_ANSWERED]),
    .stat_ignored(net_stat[`HROCE_NET_COUNTER_ND_IGNORED]),
    .stat_not_ours(net_stat[`HROCE_NET_COUNTER_ND_NOT_OURS]),
    .stat_malformed(net_stat[`HROCE_NET_COUNTER_ND_MALFORMED]),
    .stat_too_long(net_stat[`HROCE_NET_COUNTER_ND_TOO_LONG]),
    .stat_overflow(net_stat[`HROCE_NET_COUNTER_ND_OVERFLOW]),
    .stat_learned(net_stat[`HROCE_NET_COUNTER_ND_LEARNED]),
    .stat_unsolicited(net_stat[`HROCE_NET_COUNTER_ND_UNSOLICITED]),
    .stat_solicit_sent(net_stat[`HROCE_NET_COUNTER_ND_SOLICIT_SENT]),
    .stat_failed(net_stat[`HROCE_NET_COUNTER_ND_FAILED]),
    .stat_expired(net_stat[`HROCE_NET_COUNTER_ND_EXPIRED])
);

// ICMPv6 echo: the same block as ICMP's, for IPv6 (it takes the echo requests of the
// ICMPv6 frames that nd_neigh also sees, and judges only those)
icmp_echo #(
    .DATA_WIDTH(DATA_WIDTH),
    .IPV6(1),
    .ADDRS(`HROCE_IPV6_ADDRS)
)
icmp6_inst (
    .clk(clk),
    .rst(rst),
    .cfg_mac(cfg_mac),
    .cfg_ipv4(cfg_ipv4),
    .cfg_ip6(cfg_ip6),
    .cfg_ip6_valid(cfg_ip6_valid),
    .s_axis_tdata(other_tdata),
    .s_axis_tkeep(other_tkeep),
    .s_axis_tvalid(other_tvalid && other_tdest == `HROCE_NET_FRAME_ICMPV6),
    .s_axis_tready(icmp6_rx_tready),
    .s_axis_tlast(other_tlast),
    .m_axis_tdata(icmp6_tx_tdata),
    .m_axis_tkeep(icmp6_tx_tkeep),
    .m_axis_tvalid(icmp6_tx_tvalid),
    .m_axis_tready(icmp6_tx_tready),
    .m_axis_tlast(icmp6_tx_tlast),
    .m_axis_tuser(icmp6_tx_tuser),
    .stat_answered(net_stat[`HROCE_NET_COUNTER_ICMP6_ANSWERED]),
    .stat_ignored(),
    .stat_not_ours(net_stat[`HROCE_NET_COUNTER_ICMP6_NOT_OURS]),
    .stat_malformed(net_stat[`HROCE_NET_COUNTER_ICMP6_MALFORMED]),
    .stat_too_long(net_stat[`HROCE_NET_COUNTER_ICMP6_TOO_LONG]),
    .stat_overflow(net_stat[`HROCE_NET_COUNTER_ICMP6_OVERFLOW])
);

// RoCE frames, ARP, echo replies and ND share the link a frame at a time
axis_frame_arb #(
    .S_COUNT(5),
    .DATA_WIDTH(DATA_WIDTH)
)
tx_frame_arb_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata({icmp6_tx_tdata, nd_tx_tdata, icmp_tx_tdata, arp_tx_tdata, roce_tx_tdata}),
    .s_axis_tkeep({icmp6_tx_tkeep, nd_tx_tkeep, icmp_tx_tkeep, arp_tx_tkeep, roce_tx_tkeep}),
    .s_axis_tvalid({icmp6_tx_tvalid, nd_tx_tvalid, icmp_tx_tvalid, arp_tx_tvalid,
                    roce_tx_tvalid}),
    .s_axis_tready({icmp6_tx_tready, nd_tx_tready, icmp_tx_tready, arp_tx_tready,
                    roce_tx_tready}),
    .s_axis_tlast({icmp6_tx_tlast, nd_tx_tlast, icmp_tx_tlast, arp_tx_tlast, roce_tx_tlast}),
    .s_axis_tuser({icmp6_tx_tuser, nd_tx_tuser, icmp_tx_tuser, arp_tx_tuser, roce_tx_tuser}),
    .m_axis_tdata(m_axis_tx_tdata),
    .m_axis_tkeep(m_axis_tx_tkeep),
    .m_axis_tvalid(m_axis_tx_tvalid),
    .m_axis_tready(m_axis_tx_tready),
    .m_axis_tlast(m_axis_tx_tlast),
    .m_axis_tuser(m_axis_tx_tuser)
);

// requests for the responder, responses for the requester
wire [`HROCE_ROCE_HDR_WIDTH-1:0] rxq_hdr_data, rxp_hdr_data;
wire rxq_hdr_valid, rxq_hdr_ready, rxp_hdr_valid, rxp_hdr_ready;
wire [DATA_WIDTH-1:0] rxq_tdata, rxp_tdata;
wire [KEEP_WIDTH-1:0] rxq_tkeep, rxp_tkeep;
wire rxq_tvalid, rxq_tready, rxq_tlast, rxp_tvalid, rxp_tready, rxp_tlast;
wire rxq_verdict_good, rxq_verdict_valid, rxq_verdict_ready;

rx_dispatch #(
    .DATA_WIDTH(DATA_WIDTH)
)
dispatch_inst (
    .clk(clk),
    .rst(rst),
    .cfg_mac(cfg_mac),
    .cfg_ipv4(cfg_ipv4),
    .cfg_ip6(cfg_ip6),
    .cfg_ip6_valid(cfg_ip6_valid),
    .s_hdr_data(rx_hdr_data),
    .s_hdr_valid(rx_hdr_valid),
    .s_hdr_ready(rx_hdr_ready),
    .s_verdict_good(rx_verdict_good),
    .s_verdict_valid(rx_verdict_valid),
    .s_verdict_ready(rx_verdict_ready),
    .s_axis_tdata(rx_payload_tdata),
    .s_axis_tkeep(rx_payload_tkeep),
    .s_axis_tvalid(rx_payload_tvalid),
    .s_axis_tready(rx_payload_tready),
    .s_axis_tlast(rx_payload_tlast),
    .m_req_hdr_data(rxq_hdr_data),
    .m_req_hdr_valid(rxq_hdr_valid),
    .m_req_hdr_ready(rxq_hdr_ready),
    .m_req_verdict_good(rxq_verdict_good),
    .m_req_verdict_valid(rxq_verdict_valid),
    .m_req_verdict_ready(rxq_verdict_ready),
    .m_req_axis_tdata(rxq_tdata),
    .m_req_axis_tkeep(rxq_tkeep),
    .m_req_axis_tvalid(rxq_tvalid),
    .m_req_axis_tready(rxq_tready),
    .m_req_axis_tlast(rxq_tlast),
    .m_resp_hdr_data(rxp_hdr_data),
    .m_resp_hdr_valid(rxp_hdr_valid),
    .m_resp_hdr_ready(rxp_hdr_ready),
    .m_resp_axis_tdata(rxp_tdata),
    .m_resp_axis_tkeep(rxp_tkeep),
    .m_resp_axis_tvalid(rxp_tvalid),
    .m_resp_axis_tready(rxp_tready),
    .m_resp_axis_tlast(rxp_tlast),
    .stat_not_ours(core_stat[`HROCE_CORE_COUNTER_RX_NOT_OURS]),
    .stat_unsupported(core_stat[`HROCE_CORE_COUNTER_RX_UNSUPPORTED])
);

// packets of both engines into the TX path
wire [`HROCE_ROCE_HDR_WIDTH-1:0] txq_hdr_data, txp_hdr_data, tx_hdr_data;
wire txq_hdr_valid, txq_hdr_ready, txp_hdr_valid, txp_hdr_ready, tx_hdr_valid, tx_hdr_ready;
wire [DATA_WIDTH-1:0] txq_tdata, txp_tdata, tx_tdata;
wire [KEEP_WIDTH-1:0] txq_tkeep, txp_tkeep, tx_tkeep;
wire txq_tvalid, txq_tready, txq_tlast, txq_tuser;
wire txp_tvalid, txp_tready, txp_tlast, txp_tuser;
wire tx_tvalid, tx_tready, tx_tlast, tx_tuser;

tx_arbiter #(
    .DATA_WIDTH(DATA_WIDTH)
)
tx_arb_inst (
    .clk(clk),
    .rst(rst),
    .s0_hdr_data(txq_hdr_data),
    .s0_hdr_valid(txq_hdr_valid),
    .s0_hdr_ready(txq_hdr_ready),
    .s0_axis_tdata(txq_tdata),
    .s0_axis_tkeep(txq_tkeep),
    .s0_axis_tvalid(txq_tvalid),
    .s0_axis_tready(txq_tready),
    .s0_axis_tlast(txq_tlast),
    .s0_axis_tuser(txq_tuser),
    .s1_hdr_data(txp_hdr_data),
    .s1_hdr_valid(txp_hdr_valid),
    .s1_hdr_ready(txp_hdr_ready),
    .s1_axis_tdata(txp_tdata),
    .s1_axis_tkeep(txp_tkeep),
    .s1_axis_tvalid(txp_tvalid),
    .s1_axis_tready(txp_tready),
    .s1_axis_tlast(txp_tlast),
    .s1_axis_tuser(txp_tuser),
    .m_hdr_data(tx_hdr_data),
    .m_hdr_valid(tx_hdr_valid),
    .m_hdr_ready(tx_hdr_ready),
    .m_axis_tdata(tx_tdata),
    .m_axis_tkeep(tx_tkeep),
    .m_axis_tvalid(tx_tvalid),
    .m_axis_tready(tx_tready),
    .m_axis_tlast(tx_tlast),
    .m_axis_tuser(tx_tuser)
);

roce_tx #(
    .DATA_WIDTH(DATA_WIDTH)
)
tx_inst (
    .clk(clk),
    .rst(rst),
    .s_hdr_data(tx_hdr_data),
    .s_hdr_valid(tx_hdr_valid),
    .s_hdr_ready(tx_hdr_ready),
    .s_axis_tdata(tx_tdata),
    .s_axis_tkeep(tx_tkeep),
    .s_axis_tvalid(tx_tvalid),
    .s_axis_tready(tx_tready),
    .s_axis_tlast(tx_tlast),
    .s_axis_tuser(tx_tuser),
    .m_axis_tdata(roce_tx_tdata),
    .m_axis_tkeep(roce_tx_tkeep),
    .m_axis_tvalid(roce_tx_tvalid),
    .m_axis_tready(roce_tx_tready),
    .m_axis_tlast(roce_tx_tlast),
    .m_axis_tuser(roce_tx_tuser),
    .stat_frame(core_stat[`HROCE_CORE_COUNTER_TX_FRAMES]),
    .stat_payload_error()
);

/*
 * Transport: the requester and the responder, and the CQE writer behind both
 */
// QP contexts of the engines (one cache each), CQ contexts of the CQE writer
wire [23:0] qreq_lk_index, qresp_lk_index, cq_lk_index;
wire qreq_lk_valid, qreq_lk_ready, qresp_lk_valid, qresp_lk_ready, cq_lk_valid, cq_lk_ready;
wire [`HROCE_QPC_BITS-1:0] qreq_lk_data, qresp_lk_data;
wire [511:0] cq_lk_data;
wire [1:0] qreq_lk_status, qresp_lk_status, cq_lk_status;
wire qreq_lk_rvalid, qreq_lk_rready, qresp_lk_rvalid, qresp_lk_rready, cq_lk_rvalid,
     cq_lk_rready;
wire [23:0] qreq_up_index, qresp_up_index, cq_up_index;
wire [`HROCE_QPC_BITS-1:0] qreq_up_data, qresp_up_data;
wire [511:0] cq_up_data;
wire qreq_up_valid, qreq_up_ready, qresp_up_valid, qresp_up_ready, cq_up_valid, cq_up_ready;
// the requester's acknowledging side (req_ack) has a QP context cache of its own
wire [23:0] qack_lk_index, qack_up_index;
wire qack_lk_valid, qack_lk_ready, qack_lk_rvalid, qack_lk_rready, qack_up_valid, qack_up_ready;
wire [`HROCE_QPC_BITS-1:0] qack_lk_data, qack_up_data;
wire [1:0] qack_lk_status;

// MR translation of each engine
wire [31:0] mrq_key, mrp_key, mrq_len, mrp_len;
wire [23:0] mrq_pd, mrp_pd;
wire [63:0] mrq_va, mrp_va, mrq_iova, mrp_iova;
wire [3:0] mrq_access, mrp_access;
wire mrp_check;
wire mrq_valid, mrq_ready, mrp_valid, mrp_ready;
wire [15:0] mrq_rlen, mrp_rlen;
wire mrq_rlast, mrp_rlast, mrq_rvalid, mrq_rready, mrp_rvalid, mrp_rready;
wire [2:0] mrq_status, mrp_status;
// the responder's clients of its translator: 0 receive side, 1 transmit side
wire [31:0] mrp0_key, mrp1_key, mrp0_len, mrp1_len;
wire [23:0] mrp0_pd, mrp1_pd;
wire [63:0] mrp0_va, mrp1_va, mrp0_iova, mrp1_iova;
wire [3:0] mrp0_access, mrp1_access;
wire mrp0_check;
wire mrp0_valid, mrp0_ready, mrp1_valid, mrp1_ready;
wire [15:0] mrp0_rlen, mrp1_rlen;
wire mrp0_rlast, mrp1_rlast, mrp0_rvalid, mrp0_rready, mrp1_rvalid, mrp1_rready;
wire [2:0] mrp0_status, mrp1_status;
wire [`HROCE_RESP_DESC_WIDTH-1:0] rdesc_data;
wire rdesc_valid, rdesc_ready;

// completions, and the QPs each engine put in error
wire [23:0] req_cqe_cqn, resp_cqe_cqn;
wire [255:0] req_cqe_data, resp_cqe_data;
wire req_cqe_valid, req_cqe_ready, resp_cqe_valid, resp_cqe_ready;
wire [23:0] req_err_qpn, resp_err_qpn;
wire req_err_valid, req_err_ready, resp_err_valid, resp_err_ready;

// the requester's retransmission timers: a bit per QP, and when one may next expire
wire [23:0] tmr_upd_qpn, tmr_exp_qpn;
wire [63:0] tmr_upd_deadline;
wire tmr_upd_arm, tmr_upd_valid, tmr_upd_ready, tmr_exp_valid, tmr_exp_ready;
wire [63:0] tmr_deadline;

// the core needs time at the earliest of the retransmission timers, ARP's and ND's retries
wire [63:0] neigh_deadline = arp_deadline < nd_deadline ? arp_deadline : nd_deadline;
assign m_time_deadline = tmr_deadline < neigh_deadline ? tmr_deadline : neigh_deadline;

retry_timer #(
    .QPN_WIDTH(`HROCE_TIMER_QPN_WIDTH)
)
retry_timer_inst (
    .clk(clk),
    .rst(rst),
    .time_now(time_now),
    .s_upd_qpn(tmr_upd_qpn),
    .s_upd_arm(tmr_upd_arm),
    .s_upd_deadline(tmr_upd_deadline),
    .s_upd_valid(tmr_upd_valid),
    .s_upd_ready(tmr_upd_ready),
    .m_exp_qpn(tmr_exp_qpn),
    .m_exp_valid(tmr_exp_valid),
    .m_exp_ready(tmr_exp_ready),
    .m_deadline(tmr_deadline),
    .armed_count()
);

// the work FIFO holds every QP the timers cover (the largest QP table): a QP waits there at
// most once, and one with no room would hold its doorbell, then the responses, back
localparam integer WORK_LOG = {27'd0, `HROCE_TIMER_QPN_WIDTH};

wire req_trace_valid;
wire [`HROCE_TRACE_EVENT_WIDTH-1:0] req_trace_data;
wire [3:0] resp_trace_valid;
wire [4*`HROCE_TRACE_EVENT_WIDTH-1:0] resp_trace_data;

req_engine #(
    .DATA_WIDTH(DATA_WIDTH),
    .WORK_ADDR_WIDTH(WORK_LOG)
)
req_inst (
    .clk(clk),
    .rst(rst),
    .cfg_mac(cfg_mac),
    .hold(hold),
    .idle(req_idle),
    .time_now(time_now),
    .cfg_ack_unit(cfg_ack_unit),
    .cfg_rnr_unit(cfg_rnr_unit),
    .s_tmr_qpn(tmr_exp_qpn),
    .s_tmr_valid(tmr_exp_valid),
    .s_tmr_ready(tmr_exp_ready),
    .m_tmr_qpn(tmr_upd_qpn),
    .m_tmr_arm(tmr_upd_arm),
    .m_tmr_deadline(tmr_upd_deadline),
    .m_tmr_valid(tmr_upd_valid),
    .m_tmr_ready(tmr_upd_ready),
    .s_db_qpn(sq_db_qpn),
    .s_db_index(sq_db_index),
    .s_db_push(!reg_sq_db),
    .s_db_push_data(pushed_wqe),
    .s_db_valid(sq_db_valid),
    .s_db_ready(req_db_ready),
    .s_err_qpn(resp_err_qpn),
    .s_err_valid(resp_err_valid),
    .s_err_ready(resp_err_ready),
    .m_err_qpn(req_err_qpn),
    .m_err_valid(req_err_valid),
    .m_err_ready(req_err_ready),
    .s_hdr_data(rxp_hdr_data),
    .s_hdr_valid(rxp_hdr_valid),
    .s_hdr_ready(rxp_hdr_ready),
    .s_axis_tdata(rxp_tdata),
    .s_axis_tkeep(rxp_tkeep),
    .s_axis_tvalid(rxp_tvalid),
    .s_axis_tready(rxp_tready),
    .s_axis_tlast(rxp_tlast),
    .m_ctx_lookup_index(qreq_lk_index),
    .m_ctx_lookup_valid(qreq_lk_valid),
    .m_ctx_lookup_ready(qreq_lk_ready),
    .s_ctx_lookup_data(qreq_lk_data),
    .s_ctx_lookup_status(qreq_lk_status),
    .s_ctx_lookup_valid(qreq_lk_rvalid),
    .s_ctx_lookup_ready(qreq_lk_rready),
    .m_ctx_update_index(qreq_up_index),
    .m_ctx_update_data(qreq_up_data),
    .m_ctx_update_valid(qreq_up_valid),
    .m_ctx_update_ready(qreq_up_ready),
    .m_actx_lookup_index(qack_lk_index),
    .m_actx_lookup_valid(qack_lk_valid),
    .m_actx_lookup_ready(qack_lk_ready),
    .s_actx_lookup_data(qack_lk_data),
    .s_actx_lookup_status(qack_lk_status),
    .s_actx_lookup_valid(qack_lk_rvalid),
    .s_actx_lookup_ready(qack_lk_rready),
    .m_actx_update_index(qack_up_index),
    .m_actx_update_data(qack_up_data),
    .m_actx_update_valid(qack_up_valid),
    .m_actx_update_ready(qack_up_ready),
    .m_mr_req_key(mrq_key),
    .m_mr_req_pd(mrq_pd),
    .m_mr_req_va(mrq_va),
    .m_mr_req_len(mrq_len),
    .m_mr_req_access(mrq_access),
    .m_mr_req_valid(mrq_valid),
    .m_mr_req_ready(mrq_ready),
    .s_mr_resp_iova(mrq_iova),
    .s_mr_resp_len(mrq_rlen),
    .s_mr_resp_last(mrq_rlast),
    .s_mr_resp_status(mrq_status),
    .s_mr_resp_valid(mrq_rvalid),
    .s_mr_resp_ready(mrq_rready),
    .m_wqe_rd_req_addr(rd_req_addr[RD_REQ_WQE*64 +: 64]),
    .m_wqe_rd_req_len(rd_req_len[RD_REQ_WQE*16 +: 16]),
    .m_wqe_rd_req_valid(rd_req_valid[RD_REQ_WQE]),
    .m_wqe_rd_req_ready(rd_req_ready[RD_REQ_WQE]),
    .s_wqe_rd_axis_tdata(rd_tdata[RD_REQ_WQE*DATA_WIDTH +: DATA_WIDTH]),
    .s_wqe_rd_axis_tvalid(rd_tvalid[RD_REQ_WQE]),
    .s_wqe_rd_axis_tready(rd_tready[RD_REQ_WQE]),
    .s_wqe_rd_axis_tlast(rd_tlast[RD_REQ_WQE]),
    .s_wqe_rd_axis_tuser(rd_tuser[RD_REQ_WQE]),
    .m_awqe_rd_req_addr(rd_req_addr[RD_ACK_WQE*64 +: 64]),
    .m_awqe_rd_req_len(rd_req_len[RD_ACK_WQE*16 +: 16]),
    .m_awqe_rd_req_valid(rd_req_valid[RD_ACK_WQE]),
    .m_awqe_rd_req_ready(rd_req_ready[RD_ACK_WQE]),
    .s_awqe_rd_axis_tdata(rd_tdata[RD_ACK_WQE*DATA_WIDTH +: DATA_WIDTH]),
    .s_awqe_rd_axis_tvalid(rd_tvalid[RD_ACK_WQE]),
    .s_awqe_rd_axis_tready(rd_tready[RD_ACK_WQE]),
    .s_awqe_rd_axis_tlast(rd_tlast[RD_ACK_WQE]),
    .s_awqe_rd_axis_tuser(rd_tuser[RD_ACK_WQE]),
    .m_pay_rd_req_addr(rd_req_addr[RD_REQ_PAY*64 +: 64]),
    .m_pay_rd_req_len(rd_req_len[RD_REQ_PAY*16 +: 16]),
    .m_pay_rd_req_last(rd_req_last[RD_REQ_PAY]),
    .m_pay_rd_req_valid(rd_req_valid[RD_REQ_PAY]),
    .m_pay_rd_req_ready(rd_req_ready[RD_REQ_PAY]),
    .s_pay_rd_axis_tdata(rd_tdata[RD_REQ_PAY*DATA_WIDTH +: DATA_WIDTH]),
    .s_pay_rd_axis_tkeep(rd_tkeep[RD_REQ_PAY*KEEP_WIDTH +: KEEP_WIDTH]),
    .s_pay_rd_axis_tvalid(rd_tvalid[RD_REQ_PAY]),
    .s_pay_rd_axis_tready(rd_tready[RD_REQ_PAY]),
    .s_pay_rd_axis_tlast(rd_tlast[RD_REQ_PAY]),
    .s_pay_rd_axis_tuser(rd_tuser[RD_REQ_PAY]),
    .m_wr_req_addr(wr_req_addr[WR_REQ*64 +: 64]),
    .m_wr_req_len(wr_req_len[WR_REQ*16 +: 16]),
    .m_wr_req_valid(wr_req_valid[WR_REQ]),
    .m_wr_req_ready(wr_req_ready[WR_REQ]),
    .m_wr_axis_tdata(wr_tdata[WR_REQ*DATA_WIDTH +: DATA_WIDTH]),
    .m_wr_axis_tkeep(wr_tkeep[WR_REQ*KEEP_WIDTH +: KEEP_WIDTH]),
    .m_wr_axis_tvalid(wr_tvalid[WR_REQ]),
    .m_wr_axis_tready(wr_tready[WR_REQ]),
    .m_wr_axis_tlast(wr_tlast[WR_REQ]),
    .s_wr_done_valid(wr_done_valid[WR_REQ]),
    .s_wr_done_error(wr_done_error[WR_REQ]),
    .m_hdr_data(txq_hdr_data),
    .m_hdr_valid(txq_hdr_valid),
    .m_hdr_ready(txq_hdr_ready),
    .m_axis_tdata(txq_tdata),
    .m_axis_tkeep(txq_tkeep),
    .m_axis_tvalid(txq_tvalid),
    .m_axis_tready(txq_tready),
    .m_axis_tlast(txq_tlast),
    .m_axis_tuser(txq_tuser),
    .m_cqe_cqn(req_cqe_cqn),
    .m_cqe_data(req_cqe_data),
    .m_cqe_valid(req_cqe_valid),
    .m_cqe_ready(req_cqe_ready),
    .stat_rx_bad_response(core_stat[`HROCE_CORE_COUNTER_RX_BAD_RESPONSE]),
    .stat_rx_nak(core_stat[`HROCE_CORE_COUNTER_RX_NAK]),
    .stat_dma_error(),
    .stat_retry_timeout(core_stat[`HROCE_CORE_COUNTER_RETRY_TIMEOUT]),
    .stat_retry_rnr(core_stat[`HROCE_CORE_COUNTER_RETRY_RNR]),
    .stat_retry_implicit(core_stat[`HROCE_CORE_COUNTER_RETRY_IMPLICIT]),
    .stat_retry_exceeded(core_stat[`HROCE_CORE_COUNTER_RETRY_EXCEEDED]),
    .m_trace_valid(req_trace_valid), .m_trace_data(req_trace_data)
);
assign rd_req_last[RD_REQ_WQE] = 1'b1;
assign rd_req_last[RD_ACK_WQE] = 1'b1;

resp_engine #(
    .DATA_WIDTH(DATA_WIDTH)
)
resp_inst (
    .clk(clk),
    .rst(rst),
    .tx_moving(m_axis_tx_tvalid && m_axis_tx_tready),
    .hold(hold),
    .idle(resp_idle),
    .s_hdr_data(rxq_hdr_data),
    .s_hdr_valid(rxq_hdr_valid),
    .s_hdr_ready(rxq_hdr_ready),
    .s_axis_tdata(rxq_tdata),
    .s_axis_tkeep(rxq_tkeep),
    .s_axis_tvalid(rxq_tvalid),
    .s_axis_tready(rxq_tready),
    .s_axis_tlast(rxq_tlast),
    .s_verdict_good(rxq_verdict_good),
    .s_verdict_valid(rxq_verdict_valid),
    .s_verdict_ready(rxq_verdict_ready),
    .s_db_qpn(db_value[`HROCE_DOORBELL_NUM]),
    .s_db_index(db_value[`HROCE_DOORBELL_INDEX]),
    .s_db_valid(db_valid && db_kind == 2'd1),
    .s_db_ready(resp_db_ready),
    .s_err_qpn(req_err_qpn),
    .s_err_valid(req_err_valid),
    .s_err_ready(req_err_ready),
    .m_err_qpn(resp_err_qpn),
    .m_err_valid(resp_err_valid),
    .m_err_ready(resp_err_ready),
    .m_ctx_lookup_index(qresp_lk_index),
    .m_ctx_lookup_valid(qresp_lk_valid),
    .m_ctx_lookup_ready(qresp_lk_ready),
    .s_ctx_lookup_data(qresp_lk_data),
    .s_ctx_lookup_status(qresp_lk_status),
    .s_ctx_lookup_valid(qresp_lk_rvalid),
    .s_ctx_lookup_ready(qresp_lk_rready),
    .m_ctx_update_index(qresp_up_index),
    .m_ctx_update_data(qresp_up_data),
    .m_ctx_update_valid(qresp_up_valid),
    .m_ctx_update_ready(qresp_up_ready),
    .m_desc_data(rdesc_data),
    .m_desc_valid(rdesc_valid),
    .m_desc_ready(rdesc_ready),
    .m_mr_req_key(mrp0_key),
    .m_mr_req_pd(mrp0_pd),
    .m_mr_req_va(mrp0_va),
    .m_mr_req_len(mrp0_len),
    .m_mr_req_access(mrp0_access),
    .m_mr_req_check(mrp0_check),
    .m_mr_req_valid(mrp0_valid),
    .m_mr_req_ready(mrp0_ready),
    .s_mr_resp_iova(mrp0_iova),
    .s_mr_resp_len(mrp0_rlen),
    .s_mr_resp_last(mrp0_rlast),
    .s_mr_resp_status(mrp0_status),
    .s_mr_resp_valid(mrp0_rvalid),
    .s_mr_resp_ready(mrp0_rready),
    .m_wqe_rd_req_addr(rd_req_addr[RD_RESP_WQE*64 +: 64]),
    .m_wqe_rd_req_len(rd_req_len[RD_RESP_WQE*16 +: 16]),
    .m_wqe_rd_req_valid(rd_req_valid[RD_RESP_WQE]),
    .m_wqe_rd_req_ready(rd_req_ready[RD_RESP_WQE]),
    .s_wqe_rd_axis_tdata(rd_tdata[RD_RESP_WQE*DATA_WIDTH +: DATA_WIDTH]),
    .s_wqe_rd_axis_tvalid(rd_tvalid[RD_RESP_WQE]),
    .s_wqe_rd_axis_tready(rd_tready[RD_RESP_WQE]),
    .s_wqe_rd_axis_tlast(rd_tlast[RD_RESP_WQE]),
    .s_wqe_rd_axis_tuser(rd_tuser[RD_RESP_WQE]),
    .m_wr_req_addr(wr_req_addr[WR_RESP*64 +: 64]),
    .m_wr_req_len(wr_req_len[WR_RESP*16 +: 16]),
    .m_wr_req_valid(wr_req_valid[WR_RESP]),
    .m_wr_req_ready(wr_req_ready[WR_RESP]),
    .m_wr_axis_tdata(wr_tdata[WR_RESP*DATA_WIDTH +: DATA_WIDTH]),
    .m_wr_axis_tkeep(wr_tkeep[WR_RESP*KEEP_WIDTH +: KEEP_WIDTH]),
    .m_wr_axis_tvalid(wr_tvalid[WR_RESP]),
    .m_wr_axis_tready(wr_tready[WR_RESP]),
    .m_wr_axis_tlast(wr_tlast[WR_RESP]),
    .s_wr_done_valid(wr_done_valid[WR_RESP]),
    .s_wr_done_error(wr_done_error[WR_RESP]),
    .m_cqe_cqn(resp_cqe_cqn),
    .m_cqe_data(resp_cqe_data),
    .m_cqe_valid(resp_cqe_valid),
    .m_cqe_ready(resp_cqe_ready),
    .stat_rx_no_qp(core_stat[`HROCE_CORE_COUNTER_RX_NO_QP]),
    .stat_rx_no_room(core_stat[`HROCE_CORE_COUNTER_RX_NO_ROOM]),
    .stat_rx_duplicate(core_stat[`HROCE_CORE_COUNTER_RX_DUPLICATE]),
    .stat_rx_out_of_sequence(core_stat[`HROCE_CORE_COUNTER_RX_OUT_OF_SEQUENCE]),
    .m_trace_valid(resp_trace_valid), .m_trace_data(resp_trace_data)
);
assign rd_req_last[RD_RESP_WQE] = 1'b1;

resp_tx #(
    .DATA_WIDTH(DATA_WIDTH)
)
resp_tx_inst (
    .clk(clk),
    .rst(rst),
    .cfg_mac(cfg_mac),
    .hold(hold),
    .idle(resp_tx_idle),
    .s_desc_data(rdesc_data),
    .s_desc_valid(rdesc_valid),
    .s_desc_ready(rdesc_ready),
    .m_mr_req_key(mrp1_key),
    .m_mr_req_pd(mrp1_pd),
    .m_mr_req_va(mrp1_va),
    .m_mr_req_len(mrp1_len),
    .m_mr_req_access(mrp1_access),
    .m_mr_req_valid(mrp1_valid),
    .m_mr_req_ready(mrp1_ready),
    .s_mr_resp_iova(mrp1_iova),
    .s_mr_resp_len(mrp1_rlen),
    .s_mr_resp_last(mrp1_rlast),
    .s_mr_resp_status(mrp1_status),
    .s_mr_resp_valid(mrp1_rvalid),
    .s_mr_resp_ready(mrp1_rready),
    .m_pay_rd_req_addr(rd_req_addr[RD_RESP_PAY*64 +: 64]),
    .m_pay_rd_req_len(rd_req_len[RD_RESP_PAY*16 +: 16]),
    .m_pay_rd_req_last(rd_req_last[RD_RESP_PAY]),
    .m_pay_rd_req_valid(rd_req_valid[RD_RESP_PAY]),
    .m_pay_rd_req_ready(rd_req_ready[RD_RESP_PAY]),
    .s_pay_rd_axis_tdata(rd_tdata[RD_RESP_PAY*DATA_WIDTH +: DATA_WIDTH]),
    .s_pay_rd_axis_tkeep(rd_tkeep[RD_RESP_PAY*KEEP_WIDTH +: KEEP_WIDTH]),
    .s_pay_rd_axis_tvalid(rd_tvalid[RD_RESP_PAY]),
    .s_pay_rd_axis_tready(rd_tready[RD_RESP_PAY]),
    .s_pay_rd_axis_tlast(rd_tlast[RD_RESP_PAY]),
    .s_pay_rd_axis_tuser(rd_tuser[RD_RESP_PAY]),
    .m_hdr_data(txp_hdr_data),
    .m_hdr_valid(txp_hdr_valid),
    .m_hdr_ready(txp_hdr_ready),
    .m_axis_tdata(txp_tdata),
    .m_axis_tkeep(txp_tkeep),
    .m_axis_tvalid(txp_tvalid),
    .m_axis_tready(txp_tready),
    .m_axis_tlast(txp_tlast),
    .m_axis_tuser(txp_tuser),
    .stat_tx_ack(core_stat[`HROCE_CORE_COUNTER_TX_ACK]),
    .stat_tx_nak(core_stat[`HROCE_CORE_COUNTER_TX_NAK]),
    .stat_read_abort(core_stat[`HROCE_CORE_COUNTER_READ_ABORTED])
);

// the responder's two sides share its translator
mr_arb
mr_resp_arb_inst (
    .clk(clk),
    .rst(rst),
    .s0_req_key(mrp0_key),
    .s0_req_pd(mrp0_pd),
    .s0_req_va(mrp0_va),
    .s0_req_len(mrp0_len),
    .s0_req_access(mrp0_access),
    .s0_req_check(mrp0_check),
    .s0_req_valid(mrp0_valid),
    .s0_req_ready(mrp0_ready),
    .m0_resp_iova(mrp0_iova),
    .m0_resp_len(mrp0_rlen),
    .m0_resp_last(mrp0_rlast),
    .m0_resp_status(mrp0_status),
    .m0_resp_valid(mrp0_rvalid),
    .m0_resp_ready(mrp0_rready),
    .s1_req_key(mrp1_key),
    .s1_req_pd(mrp1_pd),
    .s1_req_va(mrp1_va),
    .s1_req_len(mrp1_len),
    .s1_req_access(mrp1_access),
    .s1_req_check(1'b0),
    .s1_req_valid(mrp1_valid),
    .s1_req_ready(mrp1_ready),
    .m1_resp_iova(mrp1_iova),
    .m1_resp_len(mrp1_rlen),
    .m1_resp_last(mrp1_rlast),
    .m1_resp_status(mrp1_status),
    .m1_resp_valid(mrp1_rvalid),
    .m1_resp_ready(mrp1_rready),
    .m_req_key(mrp_key),
    .m_req_pd(mrp_pd),
    .m_req_va(mrp_va),
    .m_req_len(mrp_len),
    .m_req_access(mrp_access),
    .m_req_check(mrp_check),
    .m_req_valid(mrp_valid),
    .m_req_ready(mrp_ready),
    .s_resp_iova(mrp_iova),
    .s_resp_len(mrp_rlen),
    .s_resp_last(mrp_rlast),
    .s_resp_status(mrp_status),
    .s_resp_valid(mrp_rvalid),
    .s_resp_ready(mrp_rready)
);

cq_writer #(
    .DATA_WIDTH(DATA_WIDTH)
)
cq_inst (
    .clk(clk),
    .rst(rst),
    .hold(hold),
    .idle(cq_idle),
    .s_cqe_cqn({resp_cqe_cqn, req_cqe_cqn}),
    .s_cqe_data({resp_cqe_data, req_cqe_data}),
    .s_cqe_valid({resp_cqe_valid, req_cqe_valid}),
    .s_cqe_ready({resp_cqe_ready, req_cqe_ready}),
    .s_db_cqn(db_value[`HROCE_DOORBELL_NUM]),
    .s_db_ci({db_value[`HROCE_DOORBELL_INDEX_HIGH], db_value[`HROCE_DOORBELL_INDEX]}),
    .s_db_solicited(db_value[`HROCE_DOORBELL_SOLICITED]),
    .s_db_ci_only(db_value[`HROCE_DOORBELL_CI_ONLY]),
    .s_db_valid(db_valid && db_kind == 2'd2),
    .s_db_ready(cq_db_ready),
    .cfg_eq_base(cfg_eq_base),
    .cfg_eq_log(cfg_eq_log),
    .cfg_eq_vector(cfg_eq_vector),
    .cfg_eq_enable(cfg_eq_enable),
    .eq_restart(eq_restart),
    .m_ctx_lookup_index(cq_lk_index),
    .m_ctx_lookup_valid(cq_lk_valid),
    .m_ctx_lookup_ready(cq_lk_ready),
    .s_ctx_lookup_data(cq_lk_data),
    .s_ctx_lookup_status(cq_lk_status),
    .s_ctx_lookup_valid(cq_lk_rvalid),
    .s_ctx_lookup_ready(cq_lk_rready),
    .m_ctx_update_index(cq_up_index),
    .m_ctx_update_data(cq_up_data),
    .m_ctx_update_valid(cq_up_valid),
    .m_ctx_update_ready(cq_up_ready),
    .m_wr_req_addr(wr_req_addr[WR_CQ*64 +: 64]),
    .m_wr_req_len(wr_req_len[WR_CQ*16 +: 16]),
    .m_wr_req_valid(wr_req_valid[WR_CQ]),
    .m_wr_req_ready(wr_req_ready[WR_CQ]),
    .m_wr_axis_tdata(wr_tdata[WR_CQ*DATA_WIDTH +: DATA_WIDTH]),
    .m_wr_axis_tkeep(wr_tkeep[WR_CQ*KEEP_WIDTH +: KEEP_WIDTH]),
    .m_wr_axis_tvalid(wr_tvalid[WR_CQ]),
    .m_wr_axis_tready(wr_tready[WR_CQ]),
    .m_wr_axis_tlast(wr_tlast[WR_CQ]),
    .s_wr_done_valid(wr_done_valid[WR_CQ]),
    .s_wr_done_error(wr_done_error[WR_CQ]),
    .m_irq_vector(m_irq_vector),
    .m_irq_valid(m_irq_valid),
    .m_irq_ready(m_irq_ready),
    .stat_cqe(core_stat[`HROCE_CORE_COUNTER_CQE]),
    .stat_irq(core_stat[`HROCE_CORE_COUNTER_IRQ]),
    .stat_drop(),
    .stat_overrun(core_stat[`HROCE_CORE_COUNTER_CQE_OVERRUN])
);

/*
 * Memory: context caches and MR translation
 */
// req_tx writes back its 32 bytes of a QP context, the responder its own
ctx_cache #(
    .DATA_WIDTH(DATA_WIDTH),
    .LINE_BYTES(`HROCE_QPC_BYTES),
    .WB_OFFSET(`HROCE_QPC_REQ_BYTE),
    .WB_BYTES(32),
    .CACHE_LOG(QPC_CACHE_LOG),
    .WAY_LOG(QPC_WAY_LOG)
)
qpc_req_inst (
    .clk(clk),
    .rst(rst),
    .cfg_base(cfg_qpc_base),
    .cfg_log(cfg_qpc_log),
    .s_lookup_index(qreq_lk_index),
    .s_lookup_valid(qreq_lk_valid),
    .s_lookup_ready(qreq_lk_ready),
    .m_lookup_data(qreq_lk_data),
    .m_lookup_status(qreq_lk_status),
    .m_lookup_valid(qreq_lk_rvalid),
    .m_lookup_ready(qreq_lk_rready),
    .s_update_index(qreq_up_index),
    .s_update_data(qreq_up_data),
    .s_update_valid(qreq_up_valid),
    .s_update_ready(qreq_up_ready),
    .s_inval_num(inv_num),
    .s_inval_valid(inv_valid[INV_CTX_REQ]),
    .s_inval_ready(inv_ready[INV_CTX_REQ]),
    .inval_done(inv_done[INV_CTX_REQ]),
    .m_rd_req_addr(rd_req_addr[RD_CTX_REQ*64 +: 64]),
    .m_rd_req_len(rd_req_len[RD_CTX_REQ*16 +: 16]),
    .m_rd_req_valid(rd_req_valid[RD_CTX_REQ]),
    .m_rd_req_ready(rd_req_ready[RD_CTX_REQ]),
    .s_rd_axis_tdata(rd_tdata[RD_CTX_REQ*DATA_WIDTH +: DATA_WIDTH]),
    .s_rd_axis_tvalid(rd_tvalid[RD_CTX_REQ]),
    .s_rd_axis_tready(rd_tready[RD_CTX_REQ]),
    .s_rd_axis_tlast(rd_tlast[RD_CTX_REQ]),
    .s_rd_axis_tuser(rd_tuser[RD_CTX_REQ]),
    .m_wr_req_addr(wr_req_addr[WR_CTX_REQ*64 +: 64]),
    .m_wr_req_len(wr_req_len[WR_CTX_REQ*16 +: 16]),
    .m_wr_req_valid(wr_req_valid[WR_CTX_REQ]),
    .m_wr_req_ready(wr_req_ready[WR_CTX_REQ]),
    .m_wr_axis_tdata(wr_tdata[WR_CTX_REQ*DATA_WIDTH +: DATA_WIDTH]),
    .m_wr_axis_tkeep(wr_tkeep[WR_CTX_REQ*KEEP_WIDTH +: KEEP_WIDTH]),
    .m_wr_axis_tvalid(wr_tvalid[WR_CTX_REQ]),
    .m_wr_axis_tready(wr_tready[WR_CTX_REQ]),
    .m_wr_axis_tlast(wr_tlast[WR_CTX_REQ]),
    .s_wr_done_valid(wr_done_valid[WR_CTX_REQ]),
    .s_wr_done_error(wr_done_error[WR_CTX_REQ]),
    .stat_hit(core_stat[`HROCE_CORE_COUNTER_QPC_REQ_HIT]),
    .stat_miss(core_stat[`HROCE_CORE_COUNTER_QPC_REQ_MISS]),
    .stat_writeback(core_stat[`HROCE_CORE_COUNTER_QPC_REQ_WRITEBACK])
);
assign rd_req_last[RD_CTX_REQ] = 1'b1;

// and req_ack its own
ctx_cache #(
    .DATA_WIDTH(DATA_WIDTH),
    .LINE_BYTES(`HROCE_QPC_BYTES),
    .WB_OFFSET(`HROCE_QPC_ACK_BYTE),
    .WB_BYTES(32),
    .CACHE_LOG(QPC_CACHE_LOG),
    .WAY_LOG(QPC_WAY_LOG)
)
qpc_ack_inst (
    .clk(clk),
    .rst(rst),
    .cfg_base(cfg_qpc_base),
    .cfg_log(cfg_qpc_log),
    .s_lookup_index(qack_lk_index),
    .s_lookup_valid(qack_lk_valid),
    .s_lookup_ready(qack_lk_ready),
    .m_lookup_data(qack_lk_data),
    .m_lookup_status(qack_lk_status),
    .m_lookup_valid(qack_lk_rvalid),
    .m_lookup_ready(qack_lk_rready),
    .s_update_index(qack_up_index),
    .s_update_data(qack_up_data),
    .s_update_valid(qack_up_valid),
    .s_update_ready(qack_up_ready),
    .s_inval_num(inv_num),
    .s_inval_valid(inv_valid[INV_CTX_ACK]),
    .s_inval_ready(inv_ready[INV_CTX_ACK]),
    .inval_done(inv_done[INV_CTX_ACK]),
    .m_rd_req_addr(rd_req_addr[RD_CTX_ACK*64 +: 64]),
    .m_rd_req_len(rd_req_len[RD_CTX_ACK*16 +: 16]),
    .m_rd_req_valid(rd_req_valid[RD_CTX_ACK]),
    .m_rd_req_ready(rd_req_ready[RD_CTX_ACK]),
    .s_rd_axis_tdata(rd_tdata[RD_CTX_ACK*DATA_WIDTH +: DATA_WIDTH]),
    .s_rd_axis_tvalid(rd_tvalid[RD_CTX_ACK]),
    .s_rd_axis_tready(rd_tready[RD_CTX_ACK]),
    .s_rd_axis_tlast(rd_tlast[RD_CTX_ACK]),
    .s_rd_axis_tuser(rd_tuser[RD_CTX_ACK]),
    .m_wr_req_addr(wr_req_addr[WR_CTX_ACK*64 +: 64]),
    .m_wr_req_len(wr_req_len[WR_CTX_ACK*16 +: 16]),
    .m_wr_req_valid(wr_req_valid[WR_CTX_ACK]),
    .m_wr_req_ready(wr_req_ready[WR_CTX_ACK]),
    .m_wr_axis_tdata(wr_tdata[WR_CTX_ACK*DATA_WIDTH +: DATA_WIDTH]),
    .m_wr_axis_tkeep(wr_tkeep[WR_CTX_ACK*KEEP_WIDTH +: KEEP_WIDTH]),
    .m_wr_axis_tvalid(wr_tvalid[WR_CTX_ACK]),
    .m_wr_axis_tready(wr_tready[WR_CTX_ACK]),
    .m_wr_axis_tlast(wr_tlast[WR_CTX_ACK]),
    .s_wr_done_valid(wr_done_valid[WR_CTX_ACK]),
    .s_wr_done_error(wr_done_error[WR_CTX_ACK]),
    .stat_hit(core_stat[`HROCE_CORE_COUNTER_QPC_ACK_HIT]),
    .stat_miss(core_stat[`HROCE_CORE_COUNTER_QPC_ACK_MISS]),
    .stat_writeback(core_stat[`HROCE_CORE_COUNTER_QPC_ACK_WRITEBACK])
);
assign rd_req_last[RD_CTX_ACK] = 1'b1;

ctx_cache #(
    .DATA_WIDTH(DATA_WIDTH),
    .LINE_BYTES(`HROCE_QPC_BYTES),
    .WB_OFFSET(`HROCE_QPC_RESP_BYTE),
    .WB_BYTES(32),
    .CACHE_LOG(QPC_CACHE_LOG),
    .WAY_LOG(QPC_WAY_LOG)
)
qpc_resp_inst (
    .clk(clk),
    .rst(rst),
    .cfg_base(cfg_qpc_base),
    .cfg_log(cfg_qpc_log),
    .s_lookup_index(qresp_lk_index),
    .s_lookup_valid(qresp_lk_valid),
    .s_lookup_ready(qresp_lk_ready),
    .m_lookup_data(qresp_lk_data),
    .m_lookup_status(qresp_lk_status),
    .m_lookup_valid(qresp_lk_rvalid),
    .m_lookup_ready(qresp_lk_rready),
    .s_update_index(qresp_up_index),
    .s_update_data(qresp_up_data),
    .s_update_valid(qresp_up_valid),
    .s_update_ready(qresp_up_ready),
    .s_inval_num(inv_num),
    .s_inval_valid(inv_valid[INV_CTX_RESP]),
    .s_inval_ready(inv_ready[INV_CTX_RESP]),
    .inval_done(inv_done[INV_CTX_RESP]),
    .m_rd_req_addr(rd_req_addr[RD_CTX_RESP*64 +: 64]),
    .m_rd_req_len(rd_req_len[RD_CTX_RESP*16 +: 16]),
    .m_rd_req_valid(rd_req_valid[RD_CTX_RESP]),
    .m_rd_req_ready(rd_req_ready[RD_CTX_RESP]),
    .s_rd_axis_tdata(rd_tdata[RD_CTX_RESP*DATA_WIDTH +: DATA_WIDTH]),
    .s_rd_axis_tvalid(rd_tvalid[RD_CTX_RESP]),
    .s_rd_axis_tready(rd_tready[RD_CTX_RESP]),
    .s_rd_axis_tlast(rd_tlast[RD_CTX_RESP]),
    .s_rd_axis_tuser(rd_tuser[RD_CTX_RESP]),
    .m_wr_req_addr(wr_req_addr[WR_CTX_RESP*64 +: 64]),
    .m_wr_req_len(wr_req_len[WR_CTX_RESP*16 +: 16]),
    .m_wr_req_valid(wr_req_valid[WR_CTX_RESP]),
    .m_wr_req_ready(wr_req_ready[WR_CTX_RESP]),
    .m_wr_axis_tdata(wr_tdata[WR_CTX_RESP*DATA_WIDTH +: DATA_WIDTH]),
    .m_wr_axis_tkeep(wr_tkeep[WR_CTX_RESP*KEEP_WIDTH +: KEEP_WIDTH]),
    .m_wr_axis_tvalid(wr_tvalid[WR_CTX_RESP]),
    .m_wr_axis_tready(wr_tready[WR_CTX_RESP]),
    .m_wr_axis_tlast(wr_tlast[WR_CTX_RESP]),
    .s_wr_done_valid(wr_done_valid[WR_CTX_RESP]),
    .s_wr_done_error(wr_done_error[WR_CTX_RESP]),
    .stat_hit(core_stat[`HROCE_CORE_COUNTER_QPC_RESP_HIT]),
    .stat_miss(core_stat[`HROCE_CORE_COUNTER_QPC_RESP_MISS]),
    .stat_writeback(core_stat[`HROCE_CORE_COUNTER_QPC_RESP_WRITEBACK])
);
assign rd_req_last[RD_CTX_RESP] = 1'b1;

// the CQE writer owns the whole CQ context but for what commands set (they invalidate first)
ctx_cache #(
    .DATA_WIDTH(DATA_WIDTH),
    .LINE_BYTES(`HROCE_CQC_BYTES),
    .WB_OFFSET(0),
    .WB_BYTES(`HROCE_CQC_BYTES),
    .CACHE_LOG(CQC_CACHE_LOG),
    .WAY_LOG(CQC_WAY_LOG)
)
cqc_inst (
    .clk(clk),
    .rst(rst),
    .cfg_base(cfg_cqc_base),
    .cfg_log(cfg_cqc_log),
    .s_lookup_index(cq_lk_index),
    .s_lookup_valid(cq_lk_valid),
    .s_lookup_ready(cq_lk_ready),
    .m_lookup_data(cq_lk_data),
    .m_lookup_status(cq_lk_status),
    .m_lookup_valid(cq_lk_rvalid),
    .m_lookup_ready(cq_lk_rready),
    .s_update_index(cq_up_index),
    .s_update_data(cq_up_data),
    .s_update_valid(cq_up_valid),
    .s_update_ready(cq_up_ready),
    .s_inval_num(inv_num),
    .s_inval_valid(inv_valid[INV_CTX_CQ]),
    .s_inval_ready(inv_ready[INV_CTX_CQ]),
    .inval_done(inv_done[INV_CTX_CQ]),
    .m_rd_req_addr(rd_req_addr[RD_CTX_CQ*64 +: 64]),
    .m_rd_req_len(rd_req_len[RD_CTX_CQ*16 +: 16]),
    .m_rd_req_valid(rd_req_valid[RD_CTX_CQ]),
    .m_rd_req_ready(rd_req_ready[RD_CTX_CQ]),
    .s_rd_axis_tdata(rd_tdata[RD_CTX_CQ*DATA_WIDTH +: DATA_WIDTH]),
    .s_rd_axis_tvalid(rd_tvalid[RD_CTX_CQ]),
    .s_rd_axis_tready(rd_tready[RD_CTX_CQ]),
    .s_rd_axis_tlast(rd_tlast[RD_CTX_CQ]),
    .s_rd_axis_tuser(rd_tuser[RD_CTX_CQ]),
    .m_wr_req_addr(wr_req_addr[WR_CTX_CQ*64 +: 64]),
    .m_wr_req_len(wr_req_len[WR_CTX_CQ*16 +: 16]),
    .m_wr_req_valid(wr_req_valid[WR_CTX_CQ]),
    .m_wr_req_ready(wr_req_ready[WR_CTX_CQ]),
    .m_wr_axis_tdata(wr_tdata[WR_CTX_CQ*DATA_WIDTH +: DATA_WIDTH]),
    .m_wr_axis_tkeep(wr_tkeep[WR_CTX_CQ*KEEP_WIDTH +: KEEP_WIDTH]),
    .m_wr_axis_tvalid(wr_tvalid[WR_CTX_CQ]),
    .m_wr_axis_tready(wr_tready[WR_CTX_CQ]),
    .m_wr_axis_tlast(wr_tlast[WR_CTX_CQ]),
    .s_wr_done_valid(wr_done_valid[WR_CTX_CQ]),
    .s_wr_done_error(wr_done_error[WR_CTX_CQ]),
    .stat_hit(core_stat[`HROCE_CORE_COUNTER_CQC_HIT]),
    .stat_miss(core_stat[`HROCE_CORE_COUNTER_CQC_MISS]),
    .stat_writeback(core_stat[`HROCE_CORE_COUNTER_CQC_WRITEBACK])
);
assign rd_req_last[RD_CTX_CQ] = 1'b1;

mr_translate #(
    .DATA_WIDTH(DATA_WIDTH)
)
mr_req_inst (
    .clk(clk),
    .rst(rst),
    .cfg_mrc_base(cfg_mrc_base),
    .cfg_mrc_log(cfg_mrc_log),
    .s_req_key(mrq_key),
    .s_req_pd(mrq_pd),
    .s_req_va(mrq_va),
    .s_req_len(mrq_len),
    .s_req_access(mrq_access),
    .s_req_check(1'b0),
    .s_req_valid(mrq_valid),
    .s_req_ready(mrq_ready),
    .m_resp_iova(mrq_iova),
    .m_resp_len(mrq_rlen),
    .m_resp_last(mrq_rlast),
    .m_resp_status(mrq_status),
    .m_resp_valid(mrq_rvalid),
    .m_resp_ready(mrq_rready),
    .s_inval_num(inv_num),
    .s_inval_valid(inv_valid[INV_MR_REQ]),
    .s_inval_ready(inv_ready[INV_MR_REQ]),
    .inval_done(inv_done[INV_MR_REQ]),
    .m_rd_req_addr(rd_req_addr[RD_MR_REQ*64 +: 64]),
    .m_rd_req_len(rd_req_len[RD_MR_REQ*16 +: 16]),
    .m_rd_req_valid(rd_req_valid[RD_MR_REQ]),
    .m_rd_req_ready(rd_req_ready[RD_MR_REQ]),
    .s_rd_axis_tdata(rd_tdata[RD_MR_REQ*DATA_WIDTH +: DATA_WIDTH]),
    .s_rd_axis_tvalid(rd_tvalid[RD_MR_REQ]),
    .s_rd_axis_tready(rd_tready[RD_MR_REQ]),
    .s_rd_axis_tlast(rd_tlast[RD_MR_REQ]),
    .s_rd_axis_tuser(rd_tuser[RD_MR_REQ])
);
assign rd_req_last[RD_MR_REQ] = 1'b1;

mr_translate #(
    .DATA_WIDTH(DATA_WIDTH)
)
mr_resp_inst (
    .clk(clk),
    .rst(rst),
    .cfg_mrc_base(cfg_mrc_base),
    .cfg_mrc_log(cfg_mrc_log),
    .s_req_key(mrp_key),
    .s_req_pd(mrp_pd),
    .s_req_va(mrp_va),
    .s_req_len(mrp_len),
    .s_req_access(mrp_access),
    .s_req_check(mrp_check),
    .s_req_valid(mrp_valid),
    .s_req_ready(mrp_ready),
    .m_resp_iova(mrp_iova),
    .m_resp_len(mrp_rlen),
    .m_resp_last(mrp_rlast),
    .m_resp_status(mrp_status),
    .m_resp_valid(mrp_rvalid),
    .m_resp_ready(mrp_rready),
    .s_inval_num(inv_num),
    .s_inval_valid(inv_valid[INV_MR_RESP]),
    .s_inval_ready(inv_ready[INV_MR_RESP]),
    .inval_done(inv_done[INV_MR_RESP]),
    .m_rd_req_addr(rd_req_addr[RD_MR_RESP*64 +: 64]),
    .m_rd_req_len(rd_req_len[RD_MR_RESP*16 +: 16]),
    .m_rd_req_valid(rd_req_valid[RD_MR_RESP]),
    .m_rd_req_ready(rd_req_ready[RD_MR_RESP]),
    .s_rd_axis_tdata(rd_tdata[RD_MR_RESP*DATA_WIDTH +: DATA_WIDTH]),
    .s_rd_axis_tvalid(rd_tvalid[RD_MR_RESP]),
    .s_rd_axis_tready(rd_tready[RD_MR_RESP]),
    .s_rd_axis_tlast(rd_tlast[RD_MR_RESP]),
    .s_rd_axis_tuser(rd_tuser[RD_MR_RESP])
);
assign rd_req_last[RD_MR_RESP] = 1'b1;

/*
 * DMA: every client onto the one AXI4 master
 */
// the clients that write at any byte are the payload writers; the caches and the CQE
// writer write at 32-byte boundaries, the command engine whole beats
// client NWR-1 first:  CTX_ACK CTX_CQ CTX_RESP CTX_REQ CQ    RESP  REQ   CMD
localparam [NWR*3-1:0] WR_ALIGN_LOG = {3'd5,   3'd6,  3'd5,    3'd5,   3'd5, 3'd0, 3'd0, 3'd6};

dma_rd #(
    .DATA_WIDTH(DATA_WIDTH),
    .AXI_ID_WIDTH(AXI_ID_WIDTH),
    .CLIENTS(NRD),
    .STREAM(RD_STREAM),
    .DEEP(RD_DEEP)
)
dma_rd_inst (
    .clk(clk),
    .rst(rst),
    .s_req_addr(rd_req_addr),
    .s_req_len(rd_req_len),
    .s_req_last(rd_req_last),
    .s_req_valid(rd_req_valid),
    .s_req_ready(rd_req_ready),
    .m_axis_tdata(rd_tdata),
    .m_axis_tkeep(rd_tkeep),
    .m_axis_tvalid(rd_tvalid),
    .m_axis_tready(rd_tready),
    .m_axis_tlast(rd_tlast),
    .m_axis_tuser(rd_tuser),
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
    .m_axi_rready(m_axi_rready)
);

// log2 beats of buffer: two 4 KiB bursts for the payload writers, four beats for the others
// client NWR-1 first:       CTX_ACK CTX_CQ CTX_RESP CTX_REQ CQ    RESP  REQ   CMD
localparam [NWR*4-1:0] WR_BUF_ADDR_WIDTH = {4'd2,   4'd2,  4'd2,    4'd2,   4'd2, 4'd7, 4'd7,
                                            4'd2};

dma_wr #(
    .DATA_WIDTH(DATA_WIDTH),
    .AXI_ID_WIDTH(AXI_ID_WIDTH),
    .CLIENTS(NWR),
    .BUF_ADDR_WIDTH(WR_BUF_ADDR_WIDTH),
    .ALIGN_LOG(WR_ALIGN_LOG)
)
dma_wr_inst (
    .clk(clk),
    .rst(rst),
    .s_req_addr(wr_req_addr),
    .s_req_len(wr_req_len),
    .s_req_valid(wr_req_valid),
    .s_req_ready(wr_req_ready),
    .s_axis_tdata(wr_tdata),
    .s_axis_tkeep(wr_tkeep),
    .s_axis_tvalid(wr_tvalid),
    .s_axis_tready(wr_tready),
    .s_axis_tlast(wr_tlast),
    .m_done_valid(wr_done_valid),
    .m_done_error(wr_done_error),
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
    .m_axi_bready(m_axi_bready)
);

// DMA errors, counted where the host's answers arrive: a read burst, a write burst
reg stat_rd_error_reg = 1'b0, stat_wr_error_reg = 1'b0;

always @(posedge clk) begin
    stat_rd_error_reg <= m_axi_rvalid && m_axi_rready && m_axi_rlast && m_axi_rresp != 2'b00;
    stat_wr_error_reg <= m_axi_bvalid && m_axi_bready && m_axi_bresp != 2'b00;
    if (rst) begin
        stat_rd_error_reg <= 1'b0;
        stat_wr_error_reg <= 1'b0;
    end
end

assign core_stat[`HROCE_CORE_COUNTER_DMA_READ_ERROR] = stat_rd_error_reg;
assign core_stat[`HROCE_CORE_COUNTER_DMA_WRITE_ERROR] = stat_wr_error_reg;

/*
 * The trace port: each lane is a handshake of the stages, read where it happens (the
 * engines give theirs); with TRACE = 0 nothing reads them
 */
localparam TEV = `HROCE_TRACE_EVENT_WIDTH;

// a header's event ({opcode, PSN, QPN}): the local QP is the sender's for a header out,
// BTH's DQPN for one in; a completion's ({status, WQE index, QPN})
`define TRACE_HDR(h, qpn) \
    {h[`HROCE_ROCE_HDR_BTH_OPCODE], h[`HROCE_ROCE_HDR_BTH_PSN], h[qpn]}
`define TRACE_CQE(c) {c[`HROCE_CQE_STATUS], 8'd0, c[`HROCE_CQE_WQE_INDEX], c[`HROCE_CQE_QPN]}

wire [`HROCE_TRACE_COUNT-1:0] trace_valid = {
    resp_cqe_valid && resp_cqe_ready,
    req_cqe_valid && req_cqe_ready,
    rxp_hdr_valid && rxp_hdr_ready,
    txp_hdr_valid && txp_hdr_ready,
    resp_trace_valid,
    rxq_hdr_valid && rxq_hdr_ready,
    txq_hdr_valid && txq_hdr_ready,
    req_trace_valid,
    sq_db_valid && req_db_ready
};
wire [`HROCE_TRACE_COUNT*TEV-1:0] trace_data = {
    `TRACE_CQE(resp_cqe_data),
    `TRACE_CQE(req_cqe_data),
    `TRACE_HDR(rxp_hdr_data, `HROCE_ROCE_HDR_BTH_DQPN),
    `TRACE_HDR(txp_hdr_data, `HROCE_ROCE_HDR_SRC_QPN),
    resp_trace_data,
    `TRACE_HDR(rxq_hdr_data, `HROCE_ROCE_HDR_BTH_DQPN),
    `TRACE_HDR(txq_hdr_data, `HROCE_ROCE_HDR_SRC_QPN),
    req_trace_data,
    {7'd0, !reg_sq_db, 8'd0, sq_db_index, sq_db_qpn}
};

assign m_trace_valid = TRACE != 0 ? trace_valid : {`HROCE_TRACE_COUNT{1'b0}};
assign m_trace_data = TRACE != 0 ? trace_data : {`HROCE_TRACE_COUNT*TEV{1'b0}};

`undef TRACE_HDR
`undef TRACE_CQE

endmodule

`resetall
