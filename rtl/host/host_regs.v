/*

Register file of BAR0: an AXI4-Lite slave with 64-bit registers.

Configuration registers are held here and given to the core as plain outputs; commands
leave as a one-cycle start pulse; doorbells leave as a stream (a doorbell write waits,
with its B response, until the stream takes it, so that no doorbell is ever lost); an SQ
doorbell also waits while sq_hold says that one of the doorbell pages (host/db_pages) is on
its way, so that SQ doorbells reach the requester in the order they came, and its PUSH bit
is cleared (a pushed WQE comes only through the doorbell pages). A write of
REG_ARP_LOOKUP leaves as a one-cycle pulse with the address; REG_ARP_RESULT reads what the
ARP block says; REG_ND_LOOKUP_HI holds an IPv6 address's first half, a write of
REG_ND_LOOKUP leaves as a pulse with the whole address, REG_ND_RESULT reads what the ND
block says. A write of REG_EQ_CONFIG also leaves as a one-cycle pulse (eq_restart): the
event queue starts again at its first entry. Reads of counters come from flat vectors of
64-bit counters. Every register offset comes from the contract
(build/gen/hroce_contract.vh).

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module host_regs #
(
    // Address bits of BAR0
    parameter AXIL_ADDR_WIDTH = `HROCE_AXIL_ADDR_WIDTH,
    // Number of RX counters (ROCE_RX_DROP order), core counters (CORE_COUNTER order) and
    // network counters (NET_COUNTER order)
    parameter RX_COUNTERS = `HROCE_ROCE_RX_DROP_COUNT,
    parameter CORE_COUNTERS = `HROCE_CORE_COUNTER_COUNT,
    parameter NET_COUNTERS = `HROCE_NET_COUNTER_COUNT,
    // What REG_CAPS reads (a CAPS bus)
    parameter [63:0] CAPS = 64'd0
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * AXI4-Lite slave (64-bit data)
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
     * Configuration
     */
    output wire [47:0]                   cfg_mac,
    output wire [31:0]                   cfg_ipv4,
    // the configured IPv6 addresses: address k at [k*128 +: 128], its first byte the most
    // significant; bit k of cfg_ip6_valid: address k is the port's
    output wire [`HROCE_IPV6_ADDRS*128-1:0] cfg_ip6,
    output wire [`HROCE_IPV6_ADDRS-1:0]   cfg_ip6_valid,
    output wire [63:0]                   cfg_qpc_base,
    output wire [4:0]                    cfg_qpc_log,
    output wire [63:0]                   cfg_cqc_base,
    output wire [4:0]                    cfg_cqc_log,
    output wire [63:0]                   cfg_mrc_base,
    output wire [4:0]                    cfg_mrc_log,
    output wire [63:0]                   cfg_mailbox,
    output wire [63:0]                   cfg_arp_lifetime,
    output wire [31:0]                   cfg_arp_retry_interval,
    output wire [3:0]                    cfg_arp_retry_tries,
    output wire [63:0]                   cfg_eq_base,
    output wire [4:0]                    cfg_eq_log,
    output wire [7:0]                    cfg_eq_vector,
    output wire                          cfg_eq_enable,
    output wire                          eq_restart,
    output wire [31:0]                   cfg_ack_unit,
    output wire [31:0]                   cfg_rnr_unit,

    /*
     * ARP lookups: a pulse with the address, and the answer (ARP_RESULT bus)
     */
    output wire [31:0]                   arp_lookup_ip,
    output wire                          arp_lookup_valid,
    input  wire [`HROCE_ARP_RESULT_WIDTH-1:0] arp_result,

    /*
     * IPv6 neighbour lookups (the address's first byte the most significant), the answer
     */
    output wire [127:0]                  nd_lookup_ip,
    output wire                          nd_lookup_valid,
    input  wire [`HROCE_ARP_RESULT_WIDTH-1:0] nd_result,

    /*
     * Commands: a start pulse, and the engine's status
     */
    output wire                          cmd_start,
    output wire [7:0]                    cmd_op,
    output wire [23:0]                   cmd_num,
    output wire [63:0]                   cmd_arg,
    input  wire                          cmd_busy,
    input  wire [7:0]                    cmd_result,
    input  wire [15:0]                   cmd_seq,

    /*
     * Doorbells: kind 0 = SQ, 1 = RQ, 2 = CQ; value is a DOORBELL bus (PUSH clear);
     * sq_hold: SQ doorbell writes wait
     */
    output wire [1:0]                    m_db_kind,
    output wire [63:0]                   m_db_value,
    output wire                          m_db_valid,
    input  wire                          m_db_ready,
    input  wire                          sq_hold,

    /*
     * Status
     */
    input  wire [63:0]                   time_now,
    input  wire [RX_COUNTERS*64-1:0]     rx_counters,
    input  wire [CORE_COUNTERS*64-1:0]   core_counters,
    input  wire [NET_COUNTERS*64-1:0]    net_counters
);

reg [47:0] mac_reg = 48'd0, mac_next;
reg [31:0] ipv4_reg = 32'd0, ipv4_next;
reg [`HROCE_IPV6_ADDRS*128-1:0] ip6_reg = {`HROCE_IPV6_ADDRS*128{1'b0}}, ip6_next;
reg [`HROCE_IPV6_ADDRS-1:0] ip6_valid_reg = {`HROCE_IPV6_ADDRS{1'b0}}, ip6_valid_next;
reg [63:0] qpc_base_reg = 64'd0, qpc_base_next;
reg [4:0] qpc_log_reg = 5'd0, qpc_log_next;
reg [63:0] cqc_base_reg = 64'd0, cqc_base_next;
reg [4:0] cqc_log_reg = 5'd0, cqc_log_next;
reg [63:0] mrc_base_reg = 64'd0, mrc_base_next;
reg [4:0] mrc_log_reg = 5'd0, mrc_log_next;
reg [63:0] mailbox_reg = 64'd0, mailbox_next;
reg [63:0] cmd_arg_reg = 64'd0, cmd_arg_next;
reg [63:0] arp_lifetime_reg = `HROCE_ARP_LIFETIME_DEFAULT, arp_lifetime_next;
reg [31:0] arp_interval_reg = `HROCE_ARP_INTERVAL_DEFAULT, arp_interval_next;
reg [3:0] arp_tries_reg = `HROCE_ARP_TRIES_DEFAULT, arp_tries_next;
reg [31:0] ack_unit_reg = `HROCE_ACK_UNIT_DEFAULT, ack_unit_next;
reg [31:0] rnr_unit_reg = `HROCE_RNR_UNIT_DEFAULT, rnr_unit_next;
reg [31:0] arp_lookup_ip_reg = 32'd0, arp_lookup_ip_next;
reg [127:0] nd_lookup_ip_reg = 128'd0, nd_lookup_ip_next;
reg nd_lookup_valid_reg = 1'b0, nd_lookup_valid_next;
reg [63:0] eq_base_reg = 64'd0, eq_base_next;
reg [4:0] eq_log_reg = 5'd0, eq_log_next;
reg [7:0] eq_vector_reg = 8'd0, eq_vector_next;
reg eq_enable_reg = 1'b0, eq_enable_next;
reg eq_restart_reg = 1'b0, eq_restart_next;
reg arp_lookup_valid_reg = 1'b0, arp_lookup_valid_next;
reg cmd_start_reg = 1'b0, cmd_start_next;
reg [7:0] cmd_op_reg = 8'd0, cmd_op_next;
reg [23:0] cmd_num_reg = 24'd0, cmd_num_next;

reg [1:0] db_kind_reg = 2'd0, db_kind_next;
reg [63:0] db_value_reg = 64'd0, db_value_next;
reg db_valid_reg = 1'b0, db_valid_next;

reg bvalid_reg = 1'b0, bvalid_next;
reg rvalid_reg = 1'b0, rvalid_next;
reg [63:0] rdata_reg = 64'd0, rdata_next;

wire [AXIL_ADDR_WIDTH-1:0] waddr = {s_axil_awaddr[AXIL_ADDR_WIDTH-1:3], 3'b000};
wire [AXIL_ADDR_WIDTH-1:0] raddr = {s_axil_araddr[AXIL_ADDR_WIDTH-1:3], 3'b000};
wire full_word = &s_axil_wstrb;

// a write completes when both halves are here, no response is waiting, and the doorbell
// stream has room (a doorbell write holds its B response until the doorbell is taken)
wire write = s_axil_awvalid && s_axil_wvalid && !bvalid_reg && !db_valid_reg &&
             !(sq_hold && waddr == `HROCE_REG_DB_SQ);
wire read = s_axil_arvalid && !rvalid_reg;

// counter number of a read address, as a 32-bit value to compare with a loop index
wire [AXIL_ADDR_WIDTH-1:0] rx_off = raddr - `HROCE_REG_RX_COUNTERS;
wire [AXIL_ADDR_WIDTH-1:0] core_off = raddr - `HROCE_REG_CORE_COUNTERS;
wire [AXIL_ADDR_WIDTH-1:0] net_off = raddr - `HROCE_REG_NET_COUNTERS;
wire [31:0] rx_word = {{(35-AXIL_ADDR_WIDTH){1'b0}}, rx_off[AXIL_ADDR_WIDTH-1:3]};
wire [31:0] core_word = {{(35-AXIL_ADDR_WIDTH){1'b0}}, core_off[AXIL_ADDR_WIDTH-1:3]};
wire [31:0] net_word = {{(35-AXIL_ADDR_WIDTH){1'b0}}, net_off[AXIL_ADDR_WIDTH-1:3]};

// the IPv6 address window: word 2k is address k's first half, word 2k+1 its second
localparam IP6_WORDS = `HROCE_IPV6_ADDRS*2;
localparam [AXIL_ADDR_WIDTH-1:0] IP6_BASE = `HROCE_REG_IPV6;
wire [AXIL_ADDR_WIDTH-4:0] ip6_woff = waddr[AXIL_ADDR_WIDTH-1:3] - IP6_BASE[AXIL_ADDR_WIDTH-1:3];
wire [AXIL_ADDR_WIDTH-4:0] ip6_roff = raddr[AXIL_ADDR_WIDTH-1:3] - IP6_BASE[AXIL_ADDR_WIDTH-1:3];
wire [31:0] ip6_wword = {{(35-AXIL_ADDR_WIDTH){1'b0}}, ip6_woff};
wire [31:0] ip6_rword = {{(35-AXIL_ADDR_WIDTH){1'b0}}, ip6_roff};
wire in_ip6_w = waddr >= `HROCE_REG_IPV6 && waddr < `HROCE_REG_IPV6 + IP6_WORDS*8;
wire in_ip6_r = raddr >= `HROCE_REG_IPV6 && raddr < `HROCE_REG_IPV6 + IP6_WORDS*8;

// REG_EQ_CONFIG as the register reads it
reg [63:0] eq_config_value;
always @* begin
    eq_config_value = 64'd0;
    eq_config_value[`HROCE_EQ_CONFIG_LOG_SIZE] = eq_log_reg;
    eq_config_value[`HROCE_EQ_CONFIG_IRQ_VECTOR] = eq_vector_reg;
    eq_config_value[`HROCE_EQ_CONFIG_ENABLE] = eq_enable_reg;
end

// REG_ARP_RETRY as the register reads it
reg [63:0] arp_retry_value;
always @* begin
    arp_retry_value = 64'd0;
    arp_retry_value[`HROCE_ARP_RETRY_INTERVAL] = arp_interval_reg;
    arp_retry_value[`HROCE_ARP_RETRY_TRIES] = arp_tries_reg;
end

// REG_RETRY_TIMER as the register reads it
reg [63:0] retry_timer_value;
always @* begin
    retry_timer_value = 64'd0;
    retry_timer_value[`HROCE_RETRY_TIMER_ACK_UNIT] = ack_unit_reg;
    retry_timer_value[`HROCE_RETRY_TIMER_RNR_UNIT] = rnr_unit_reg;
end

integer w;

always @* begin
    mac_next = mac_reg;
    ipv4_next = ipv4_reg;
    ip6_next = ip6_reg;
    ip6_valid_next = ip6_valid_reg;
    qpc_base_next = qpc_base_reg;
    qpc_log_next = qpc_log_reg;
    cqc_base_next = cqc_base_reg;
    cqc_log_next = cqc_log_reg;
    mrc_base_next = mrc_base_reg;
    mrc_log_next = mrc_log_reg;
    mailbox_next = mailbox_reg;
    cmd_arg_next = cmd_arg_reg;
    arp_lifetime_next = arp_lifetime_reg;
    arp_interval_next = arp_interval_reg;
    arp_tries_next = arp_tries_reg;
    ack_unit_next = ack_unit_reg;
    rnr_unit_next = rnr_unit_reg;
    arp_lookup_ip_next = arp_lookup_ip_reg;
    arp_lookup_valid_next = 1'b0;
    nd_lookup_ip_next = nd_lookup_ip_reg;
    nd_lookup_valid_next = 1'b0;
    eq_base_next = eq_base_reg;
    eq_log_next = eq_log_reg;
    eq_vector_next = eq_vector_reg;
    eq_enable_next = eq_enable_reg;
    eq_restart_next = 1'b0;
    cmd_start_next = 1'b0;
    cmd_op_next = cmd_op_reg;
    cmd_num_next = cmd_num_reg;
    db_kind_next = db_kind_reg;
    db_value_next = db_value_reg;
    db_valid_next = db_valid_reg && !m_db_ready;
    bvalid_next = bvalid_reg && !s_axil_bready;
    rvalid_next = rvalid_reg && !s_axil_rready;
    rdata_next = rdata_reg;

    if (write) begin
        bvalid_next = 1'b1;
        if (full_word && in_ip6_w) begin
            // word 2k (the first half) is the high 64 bits of address k
            for (w = 0; w < IP6_WORDS; w = w + 1) begin
                if (ip6_wword == w) begin
                    ip6_next[(w/2)*128 + (1 - w%2)*64 +: 64] = s_axil_wdata;
                end
            end
        end else if (full_word) begin
            case (waddr)
                `HROCE_REG_MAC: mac_next = s_axil_wdata[47:0];
                `HROCE_REG_IPV4: ipv4_next = s_axil_wdata[31:0];
                `HROCE_REG_IPV6_VALID: ip6_valid_next = s_axil_wdata[`HROCE_IPV6_ADDRS-1:0];
                `HROCE_REG_QPC_BASE: qpc_base_next = s_axil_wdata;
                `HROCE_REG_QPC_LOG: qpc_log_next = s_axil_wdata[4:0];
                `HROCE_REG_CQC_BASE: cqc_base_next = s_axil_wdata;
                `HROCE_REG_CQC_LOG: cqc_log_next = s_axil_wdata[4:0];
                `HROCE_REG_MRC_BASE: mrc_base_next = s_axil_wdata;
                `HROCE_REG_MRC_LOG: mrc_log_next = s_axil_wdata[4:0];
                `HROCE_REG_CMD_MAILBOX: mailbox_next = s_axil_wdata;
                `HROCE_REG_CMD_ARG: cmd_arg_next = s_axil_wdata;
                `HROCE_REG_ARP_LIFETIME: arp_lifetime_next = s_axil_wdata;
                `HROCE_REG_ARP_RETRY: begin
                    arp_interval_next = s_axil_wdata[`HROCE_ARP_RETRY_INTERVAL];
                    arp_tries_next = s_axil_wdata[`HROCE_ARP_RETRY_TRIES];
                end
                `HROCE_REG_RETRY_TIMER: begin
                    ack_unit_next = s_axil_wdata[`HROCE_RETRY_TIMER_ACK_UNIT];
                    rnr_unit_next = s_axil_wdata[`HROCE_RETRY_TIMER_RNR_UNIT];
                end
                `HROCE_REG_ARP_LOOKUP: begin
                    arp_lookup_ip_next = s_axil_wdata[31:0];
                    arp_lookup_valid_next = 1'b1;
                end
                `HROCE_REG_ND_LOOKUP_HI: nd_lookup_ip_next[127:64] = s_axil_wdata;
                `HROCE_REG_ND_LOOKUP: begin
                    nd_lookup_ip_next[63:0] = s_axil_wdata;
                    nd_lookup_valid_next = 1'b1;
                end
                `HROCE_REG_EQ_BASE: eq_base_next = s_axil_wdata;
                `HROCE_REG_EQ_CONFIG: begin
                    eq_log_next = s_axil_wdata[`HROCE_EQ_CONFIG_LOG_SIZE];
                    eq_vector_next = s_axil_wdata[`HROCE_EQ_CONFIG_IRQ_VECTOR];
                    eq_enable_next = s_axil_wdata[`HROCE_EQ_CONFIG_ENABLE];
                    eq_restart_next = 1'b1;
                end
                `HROCE_REG_CMD: begin
                    // a command written while one runs is ignored: the driver polls BUSY
                    if (!cmd_busy) begin
                        cmd_start_next = 1'b1;
                        cmd_op_next = s_axil_wdata[`HROCE_CMD_OP];
                        cmd_num_next = s_axil_wdata[`HROCE_CMD_NUM];
                    end
                end
                `HROCE_REG_DB_SQ: begin
                    db_kind_next = 2'd0;
                    db_value_next = s_axil_wdata;
                    db_value_next[`HROCE_DOORBELL_PUSH] = 1'b0;
                    db_valid_next = 1'b1;
                end
                `HROCE_REG_DB_RQ: begin
                    db_kind_next = 2'd1;
                    db_value_next = s_axil_wdata;
                    db_valid_next = 1'b1;
                end
                `HROCE_REG_DB_CQ: begin
                    db_kind_next = 2'd2;
                    db_value_next = s_axil_wdata;
                    db_valid_next = 1'b1;
                end
                default: begin
                end
            endcase
        end
    end

    if (read) begin
        rvalid_next = 1'b1;
        rdata_next = 64'd0;
        if (raddr >= `HROCE_REG_RX_COUNTERS && raddr < `HROCE_REG_RX_COUNTERS + RX_COUNTERS*8) begin
            for (w = 0; w < RX_COUNTERS; w = w + 1) begin
                if (rx_word == w) begin
                    rdata_next = rx_counters[w*64 +: 64];
                end
            end
        end else if (raddr >= `HROCE_REG_CORE_COUNTERS &&
                     raddr < `HROCE_REG_CORE_COUNTERS + CORE_COUNTERS*8) begin
            for (w = 0; w < CORE_COUNTERS; w = w + 1) begin
                if (core_word == w) begin
                    rdata_next = core_counters[w*64 +: 64];
                end
            end
        end else if (in_ip6_r) begin
            for (w = 0; w < IP6_WORDS; w = w + 1) begin
                if (ip6_rword == w) begin
                    rdata_next = ip6_reg[(w/2)*128 + (1 - w%2)*64 +: 64];
                end
            end
        end else if (raddr >= `HROCE_REG_NET_COUNTERS &&
                     raddr < `HROCE_REG_NET_COUNTERS + NET_COUNTERS*8) begin
            for (w = 0; w < NET_COUNTERS; w = w + 1) begin
                if (net_word == w) begin
                    rdata_next = net_counters[w*64 +: 64];
                end
            end
        end else begin
            case (raddr)
                `HROCE_REG_ID: rdata_next = {32'd0, `HROCE_CORE_ID};
                `HROCE_REG_VERSION: rdata_next = {32'd0, `HROCE_CORE_VERSION};
                `HROCE_REG_CAPS: rdata_next = CAPS;
                `HROCE_REG_TIME: rdata_next = time_now;
                `HROCE_REG_MAC: rdata_next = {16'd0, mac_reg};
                `HROCE_REG_IPV4: rdata_next = {32'd0, ipv4_reg};
                `HROCE_REG_IPV6_VALID: rdata_next = {{64-`HROCE_IPV6_ADDRS{1'b0}}, ip6_valid_reg};
                `HROCE_REG_QPC_BASE: rdata_next = qpc_base_reg;
                `HROCE_REG_QPC_LOG: rdata_next = {59'd0, qpc_log_reg};
                `HROCE_REG_CQC_BASE: rdata_next = cqc_base_reg;
                `HROCE_REG_CQC_LOG: rdata_next = {59'd0, cqc_log_reg};
                `HROCE_REG_MRC_BASE: rdata_next = mrc_base_reg;
                `HROCE_REG_MRC_LOG: rdata_next = {59'd0, mrc_log_reg};
                `HROCE_REG_CMD_MAILBOX: rdata_next = mailbox_reg;
                `HROCE_REG_CMD_ARG: rdata_next = cmd_arg_reg;
                `HROCE_REG_ARP_LIFETIME: rdata_next = arp_lifetime_reg;
                `HROCE_REG_ARP_RETRY: rdata_next = arp_retry_value;
                `HROCE_REG_RETRY_TIMER: rdata_next = retry_timer_value;
                `HROCE_REG_ARP_RESULT: rdata_next = arp_result;
                `HROCE_REG_ND_LOOKUP_HI: rdata_next = nd_lookup_ip_reg[127:64];
                `HROCE_REG_ND_RESULT: rdata_next = nd_result;
                `HROCE_REG_EQ_BASE: rdata_next = eq_base_reg;
                `HROCE_REG_EQ_CONFIG: rdata_next = eq_config_value;
                `HROCE_REG_CMD: begin
                    rdata_next = 64'd0;
                    rdata_next[0] = cmd_busy || cmd_start_reg;
                    rdata_next[15:8] = cmd_result;
                    rdata_next[31:16] = cmd_seq;
                end
                default: rdata_next = 64'd0;
            endcase
        end
    end
end

always @(posedge clk) begin
    mac_reg <= mac_next;
    ipv4_reg <= ipv4_next;
    ip6_reg <= ip6_next;
    ip6_valid_reg <= ip6_valid_next;
    qpc_base_reg <= qpc_base_next;
    qpc_log_reg <= qpc_log_next;
    cqc_base_reg <= cqc_base_next;
    cqc_log_reg <= cqc_log_next;
    mrc_base_reg <= mrc_base_next;
    mrc_log_reg <= mrc_log_next;
    mailbox_reg <= mailbox_next;
    cmd_arg_reg <= cmd_arg_next;
    arp_lifetime_reg <= arp_lifetime_next;
    arp_interval_reg <= arp_interval_next;
    arp_tries_reg <= arp_tries_next;
    ack_unit_reg <= ack_unit_next;
    rnr_unit_reg <= rnr_unit_next;
    arp_lookup_ip_reg <= arp_lookup_ip_next;
    arp_lookup_valid_reg <= arp_lookup_valid_next;
    nd_lookup_ip_reg <= nd_lookup_ip_next;
    nd_lookup_valid_reg <= nd_lookup_valid_next;
    eq_base_reg <= eq_base_next;
    eq_log_reg <= eq_log_next;
    eq_vector_reg <= eq_vector_next;
    eq_enable_reg <= eq_enable_next;
    eq_restart_reg <= eq_restart_next;
    cmd_start_reg <= cmd_start_next;
    cmd_op_reg <= cmd_op_next;
    cmd_num_reg <= cmd_num_next;
    db_kind_reg <= db_kind_next;
    db_value_reg <= db_value_next;
    db_valid_reg <= db_valid_next;
    bvalid_reg <= bvalid_next;
    rvalid_reg <= rvalid_next;
    rdata_reg <= rdata_next;

    if (rst) begin
        mac_reg <= 48'd0;
        ipv4_reg <= 32'd0;
        ip6_valid_reg <= {`HROCE_IPV6_ADDRS{1'b0}};
        qpc_log_reg <= 5'd0;
        cqc_log_reg <= 5'd0;
        mrc_log_reg <= 5'd0;
        qpc_base_reg <= 64'd0;
        cqc_base_reg <= 64'd0;
        mrc_base_reg <= 64'd0;
        arp_lifetime_reg <= `HROCE_ARP_LIFETIME_DEFAULT;
        arp_interval_reg <= `HROCE_ARP_INTERVAL_DEFAULT;
        arp_tries_reg <= `HROCE_ARP_TRIES_DEFAULT;
        ack_unit_reg <= `HROCE_ACK_UNIT_DEFAULT;
        rnr_unit_reg <= `HROCE_RNR_UNIT_DEFAULT;
        arp_lookup_valid_reg <= 1'b0;
        nd_lookup_valid_reg <= 1'b0;
        eq_base_reg <= 64'd0;
        eq_enable_reg <= 1'b0;
        eq_restart_reg <= 1'b0;
        cmd_start_reg <= 1'b0;
        db_valid_reg <= 1'b0;
        bvalid_reg <= 1'b0;
        rvalid_reg <= 1'b0;
    end
end

assign s_axil_awready = write;
assign s_axil_wready = write;
assign s_axil_bresp = 2'b00;
assign s_axil_bvalid = bvalid_reg;
assign s_axil_arready = read;
assign s_axil_rdata = rdata_reg;
assign s_axil_rresp = 2'b00;
assign s_axil_rvalid = rvalid_reg;

assign cfg_mac = mac_reg;
assign cfg_ipv4 = ipv4_reg;
assign cfg_ip6 = ip6_reg;
assign cfg_ip6_valid = ip6_valid_reg;
assign cfg_qpc_base = qpc_base_reg;
assign cfg_qpc_log = qpc_log_reg;
assign cfg_cqc_base = cqc_base_reg;
assign cfg_cqc_log = cqc_log_reg;
assign cfg_mrc_base = mrc_base_reg;
assign cfg_mrc_log = mrc_log_reg;
assign cfg_mailbox = mailbox_reg;
assign cfg_arp_lifetime = arp_lifetime_reg;
assign cfg_arp_retry_interval = arp_interval_reg;
assign cfg_arp_retry_tries = arp_tries_reg;
assign cfg_ack_unit = ack_unit_reg;
assign cfg_rnr_unit = rnr_unit_reg;
assign arp_lookup_ip = arp_lookup_ip_reg;
assign arp_lookup_valid = arp_lookup_valid_reg;
assign nd_lookup_ip = nd_lookup_ip_reg;
assign nd_lookup_valid = nd_lookup_valid_reg;
assign cfg_eq_base = eq_base_reg;
assign cfg_eq_log = eq_log_reg;
assign cfg_eq_vector = eq_vector_reg;
assign cfg_eq_enable = eq_enable_reg;
assign eq_restart = eq_restart_reg;

assign cmd_start = cmd_start_reg;
assign cmd_op = cmd_op_reg;
assign cmd_num = cmd_num_reg;
assign cmd_arg = cmd_arg_reg;

assign m_db_kind = db_kind_reg;
assign m_db_value = db_value_reg;
assign m_db_valid = db_valid_reg;

endmodule

`resetall
