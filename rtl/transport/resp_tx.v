/*

RC responder, transmit side: sends what the receive side (resp_engine) decided, in the
order it decided it: ACK and NAK packets, and the responses of RDMA READs.

    descriptor --> ACK/NAK: one header
               --> READ: per packet of the path MTU: sg_walk (the range -> mr_translate)
                   -> chunk FIFO --(commit)--> DMA reads --> m_axis; the header beside it

The receive side never waits for the link: it only queues descriptors, and this block is
the one that waits when the link is busy. Responses leave in request order, so an ACK
never overtakes the READ responses before it.

A READ's range was checked whole when the request came; should a piece still fail to
translate (its MR destroyed meanwhile, a page table unreadable), the rest of that READ is
not sent, and counted.

Between packets the block obeys hold: the command engine changes MRs only then.

The payload output is a pass-through of the DMA read stream: its ready reaches the other
side combinationally.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module resp_tx #
(
    // Datapath width
    parameter DATA_WIDTH = 512,
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // log2 of the DMA chunks in flight between translation and the DMA client
    parameter CHUNK_ADDR_WIDTH = 5
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Configuration and control
     */
    input  wire [47:0]                   cfg_mac,
    input  wire                          hold,
    output wire                          idle,

    /*
     * What to send (contract: RESP_DESC)
     */
    input  wire [`HROCE_RESP_DESC_WIDTH-1:0] s_desc_data,
    input  wire                          s_desc_valid,
    output wire                          s_desc_ready,

    /*
     * MR translation of READ ranges
     */
    output wire [31:0]                   m_mr_req_key,
    output wire [23:0]                   m_mr_req_pd,
    output wire [63:0]                   m_mr_req_va,
    output wire [31:0]                   m_mr_req_len,
    output wire [3:0]                    m_mr_req_access,
    output wire                          m_mr_req_valid,
    input  wire                          m_mr_req_ready,
    input  wire [63:0]                   s_mr_resp_iova,
    input  wire [15:0]                   s_mr_resp_len,
    input  wire                          s_mr_resp_last,
    input  wire [2:0]                    s_mr_resp_status,
    input  wire                          s_mr_resp_valid,
    output wire                          s_mr_resp_ready,

    /*
     * DMA read client, byte stream: READ response data (one segment per packet)
     */
    output wire [63:0]                   m_pay_rd_req_addr,
    output wire [15:0]                   m_pay_rd_req_len,
    output wire                          m_pay_rd_req_last,
    output wire                          m_pay_rd_req_valid,
    input  wire                          m_pay_rd_req_ready,
    input  wire [DATA_WIDTH-1:0]         s_pay_rd_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]         s_pay_rd_axis_tkeep,
    input  wire                          s_pay_rd_axis_tvalid,
    output wire                          s_pay_rd_axis_tready,
    input  wire                          s_pay_rd_axis_tlast,
    input  wire                          s_pay_rd_axis_tuser,

    /*
     * Packets out: header, then payload for PAYLOAD_LEN > 0
     */
    output wire [`HROCE_ROCE_HDR_WIDTH-1:0] m_hdr_data,
    output wire                          m_hdr_valid,
    input  wire                          m_hdr_ready,
    output wire [DATA_WIDTH-1:0]         m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]         m_axis_tkeep,
    output wire                          m_axis_tvalid,
    input  wire                          m_axis_tready,
    output wire                          m_axis_tlast,
    output wire                          m_axis_tuser,

    /*
     * Status
     */
    output wire                          stat_tx_ack,
    output wire                          stat_tx_nak,
    output wire                          stat_read_abort
);

localparam HDR_WIDTH = `HROCE_ROCE_HDR_WIDTH;
localparam DESC_WIDTH = `HROCE_RESP_DESC_WIDTH;
localparam CHUNK_DEPTH = 2**CHUNK_ADDR_WIDTH;
// a packet of at most 4 KiB crosses at most one page boundary: two pieces
localparam [CHUNK_ADDR_WIDTH:0] PKT_PIECES = 2;

localparam [7:0] SYN_ACK = {`HROCE_AETH_TYPE_ACK, `HROCE_AETH_CREDIT_INVALID};

localparam [2:0]
    S_IDLE = 3'd0,
    S_ACK = 3'd1,
    S_PKT = 3'd2,
    S_WALK = 3'd3,
    S_COMMIT = 3'd5;

reg [2:0] state_reg = S_IDLE, state_next;
reg [DESC_WIDTH-1:0] desc_reg = {DESC_WIDTH{1'b0}}, desc_next;
reg [24:0] pkt_reg = 25'd0, pkt_next;            // response packet index
reg [63:0] va_reg = 64'd0, va_next;              // the next packet's first byte
reg [31:0] left_reg = 32'd0, left_next;          // bytes not yet in a packet

// DMA chunks of the packet being built ({last, length[12:0], IOVA})
wire chunk_wr_en;
wire [77:0] chunk_wr_data;
reg chunk_commit, chunk_discard;
wire [77:0] chunk_head;
wire [CHUNK_ADDR_WIDTH:0] chunk_used;

reg stat_tx_ack_reg = 1'b0, stat_tx_ack_next;
reg stat_tx_nak_reg = 1'b0, stat_tx_nak_next;
reg stat_read_abort_reg = 1'b0, stat_read_abort_next;

reg [HDR_WIDTH-1:0] hdr_in_data;
reg hdr_in_valid;
wire [4:0] hdr_count;

fifo_commit #(.WIDTH(78), .ADDR_WIDTH(CHUNK_ADDR_WIDTH))
chunk_fifo (
    .clk(clk), .rst(rst),
    .s_data(chunk_wr_data), .s_valid(chunk_wr_en), .commit(chunk_commit),
    .discard(chunk_discard),
    .m_data(chunk_head), .m_valid(m_pay_rd_req_valid), .m_ready(m_pay_rd_req_ready),
    .used(chunk_used), .empty()
);

fifo_sync #(.WIDTH(HDR_WIDTH), .ADDR_WIDTH(3))
hdr_fifo (
    .clk(clk), .rst(rst),
    .s_data(hdr_in_data), .s_valid(hdr_in_valid), .s_ready(),
    .m_data(m_hdr_data), .m_valid(m_hdr_valid), .m_ready(m_hdr_ready),
    .count(hdr_count)
);

/*
 * The descriptor and the packet being built
 */
wire [23:0] d_psn = desc_reg[`HROCE_RESP_DESC_PSN];
wire [7:0] d_syndrome = desc_reg[`HROCE_RESP_DESC_SYNDROME];
wire [31:0] d_len = desc_reg[`HROCE_RESP_DESC_LEN];
wire [3:0] log_mtu = {1'b0, desc_reg[`HROCE_RESP_DESC_PATH_MTU]} + 4'd7;
wire [12:0] mtu = 13'd1 << log_mtu;
wire [31:0] npkts_m1 = (d_len - 32'd1) >> log_mtu;
wire [24:0] npkts = d_len == 32'd0 ? 25'd1 : npkts_m1[24:0] + 25'd1;
wire [12:0] pkt_len = left_reg > {19'd0, mtu} ? mtu : left_reg[12:0];
wire pkt_first = pkt_reg == 25'd0;
wire pkt_last = pkt_reg == npkts - 25'd1;
wire [7:0] rd_opcode = (pkt_first && pkt_last) ? `HROCE_RC_OP_READ_RESP_ONLY :
                       pkt_first ? `HROCE_RC_OP_READ_RESP_FIRST :
                       pkt_last ? `HROCE_RC_OP_READ_RESP_LAST : `HROCE_RC_OP_READ_RESP_MIDDLE;

// the path's addresses: IPv6, or IPv4 in the low 32 bits
wire [127:0] desc_src = desc_reg[`HROCE_RESP_DESC_IP_SRC];
wire [127:0] desc_dst = desc_reg[`HROCE_RESP_DESC_IP_DST];

// the header of a packet of this descriptor's QP
function [HDR_WIDTH-1:0] reply_hdr(input [7:0] opcode, input [23:0] psn, input [12:0] len);
    reg [HDR_WIDTH-1:0] h;
    begin
        h = {HDR_WIDTH{1'b0}};
        h[`HROCE_ROCE_HDR_ETH_DST] = desc_reg[`HROCE_RESP_DESC_ETH_DST];
        h[`HROCE_ROCE_HDR_ETH_SRC] = cfg_mac;
        h[`HROCE_ROCE_HDR_IP_DSCP] = desc_reg[`HROCE_RESP_DESC_IP_DSCP];
        h[`HROCE_ROCE_HDR_IP_FLAGS] = 3'b010;
        h[`HROCE_ROCE_HDR_IP_TTL] = desc_reg[`HROCE_RESP_DESC_IP_TTL];
        h[`HROCE_ROCE_HDR_IP_SRC] = desc_src[31:0];
        h[`HROCE_ROCE_HDR_IP_DST] = desc_dst[31:0];
        h[`HROCE_ROCE_HDR_IP6] = desc_reg[`HROCE_RESP_DESC_IP6];
        h[`HROCE_ROCE_HDR_IP6_FLOW_LABEL] = desc_reg[`HROCE_RESP_DESC_IP6_FLOW_LABEL];
        h[`HROCE_ROCE_HDR_IP6_SRC] = desc_src;
        h[`HROCE_ROCE_HDR_IP6_DST] = desc_dst;
        h[`HROCE_ROCE_HDR_UDP_SPORT] = desc_reg[`HROCE_RESP_DESC_UDP_SPORT];
        h[`HROCE_ROCE_HDR_BTH_OPCODE] = opcode;
        h[`HROCE_ROCE_HDR_BTH_PKEY] = desc_reg[`HROCE_RESP_DESC_PKEY];
        h[`HROCE_ROCE_HDR_BTH_DQPN] = desc_reg[`HROCE_RESP_DESC_DQPN];
        h[`HROCE_ROCE_HDR_BTH_PSN] = psn;
        h[`HROCE_ROCE_HDR_AETH_SYNDROME] = opcode == `HROCE_RC_OP_ACK ? d_syndrome : SYN_ACK;
        h[`HROCE_ROCE_HDR_AETH_MSN] = desc_reg[`HROCE_RESP_DESC_MSN];
        h[`HROCE_ROCE_HDR_PAYLOAD_LEN] = len;
        h[`HROCE_ROCE_HDR_SRC_QPN] = desc_reg[`HROCE_RESP_DESC_SRC_QPN];
        reply_hdr = h;
    end
endfunction

wire chunk_full = chunk_used == CHUNK_DEPTH;
wire chunk_room = chunk_used <= CHUNK_DEPTH - PKT_PIECES;

/*
 * The packet's range, as a one-entry list under the READ's key
 */
reg walk_cmd_valid;
wire walk_busy;
wire [2:0] walk_done_status;
wire walk_done_valid;
wire [12:0] walk_chunk_len;
wire [63:0] walk_chunk_iova;
wire walk_chunk_last;

sg_walk
walk_inst (
    .clk(clk), .rst(rst),
    .s_cmd_sge(5'd0), .s_cmd_off(32'd0), .s_cmd_len(pkt_len), .s_cmd_num_sge(8'd1),
    .s_cmd_pd(desc_reg[`HROCE_RESP_DESC_PD]), .s_cmd_access(`HROCE_PERM_REMOTE_READ),
    .s_cmd_valid(walk_cmd_valid), .s_cmd_ready(), .busy(walk_busy),
    .sge_index(), .sge_addr(va_reg), .sge_len(32'hffffffff),
    .sge_key(desc_reg[`HROCE_RESP_DESC_RKEY]),
    .m_mr_req_key(m_mr_req_key), .m_mr_req_pd(m_mr_req_pd), .m_mr_req_va(m_mr_req_va),
    .m_mr_req_len(m_mr_req_len), .m_mr_req_access(m_mr_req_access),
    .m_mr_req_valid(m_mr_req_valid), .m_mr_req_ready(m_mr_req_ready),
    .s_mr_resp_iova(s_mr_resp_iova), .s_mr_resp_len(s_mr_resp_len),
    .s_mr_resp_last(s_mr_resp_last), .s_mr_resp_status(s_mr_resp_status),
    .s_mr_resp_valid(s_mr_resp_valid), .s_mr_resp_ready(s_mr_resp_ready),
    .m_chunk_iova(walk_chunk_iova), .m_chunk_len(walk_chunk_len),
    .m_chunk_last(walk_chunk_last), .m_chunk_valid(chunk_wr_en), .m_chunk_ready(!chunk_full),
    .m_done_status(walk_done_status), .m_done_short(),
    .m_done_sge(), .m_done_off(), .m_done_valid(walk_done_valid),
    .m_done_ready(state_reg == S_WALK)
);

assign chunk_wr_data = {walk_chunk_last, walk_chunk_len, walk_chunk_iova};

always @* begin
    state_next = state_reg;
    desc_next = desc_reg;
    pkt_next = pkt_reg;
    va_next = va_reg;
    left_next = left_reg;
    stat_tx_ack_next = 1'b0;
    stat_tx_nak_next = 1'b0;
    stat_read_abort_next = 1'b0;

    walk_cmd_valid = 1'b0;
    chunk_commit = 1'b0;
    chunk_discard = 1'b0;
    hdr_in_data = reply_hdr(rd_opcode, d_psn + pkt_reg[23:0], pkt_len);
    hdr_in_valid = 1'b0;

    case (state_reg)
        S_IDLE: begin
            if (s_desc_valid && !hold) begin
                desc_next = s_desc_data;
                pkt_next = 25'd0;
                va_next = s_desc_data[`HROCE_RESP_DESC_VA];
                left_next = s_desc_data[`HROCE_RESP_DESC_LEN];
                state_next = s_desc_data[`HROCE_RESP_DESC_READ] ? S_PKT : S_ACK;
            end
        end
        S_ACK: begin
            if (hdr_count < 5'd7) begin
                hdr_in_data = reply_hdr(`HROCE_RC_OP_ACK, d_psn, 13'd0);
                hdr_in_valid = 1'b1;
                stat_tx_ack_next = d_syndrome[7:5] == 3'b000;
                stat_tx_nak_next = d_syndrome[7:5] != 3'b000;
                state_next = S_IDLE;
            end
        end

        /*
         * A READ, packet by packet: each starts when there is room for it
         */
        S_PKT: begin
            if (!hold && hdr_count < 5'd7 && chunk_room) begin
                walk_cmd_valid = pkt_len != 13'd0;
                state_next = pkt_len == 13'd0 ? S_COMMIT : S_WALK;
            end
        end
        S_WALK: begin
            if (walk_done_valid) begin
                if (walk_done_status != `HROCE_MR_XLATE_OK) begin
                    // nothing of this packet goes, nor the rest of the READ
                    chunk_discard = 1'b1;
                    stat_read_abort_next = 1'b1;
                    state_next = S_IDLE;
                end else begin
                    state_next = S_COMMIT;
                end
            end
        end
        S_COMMIT: begin
            chunk_commit = 1'b1;
            hdr_in_valid = 1'b1;
            pkt_next = pkt_reg + 25'd1;
            va_next = va_reg + {51'd0, pkt_len};
            left_next = left_reg - {19'd0, pkt_len};
            state_next = pkt_last ? S_IDLE : S_PKT;
        end
        default: state_next = S_IDLE;
    endcase
end

always @(posedge clk) begin
    state_reg <= state_next;
    desc_reg <= desc_next;
    pkt_reg <= pkt_next;
    va_reg <= va_next;
    left_reg <= left_next;
    stat_tx_ack_reg <= stat_tx_ack_next;
    stat_tx_nak_reg <= stat_tx_nak_next;
    stat_read_abort_reg <= stat_read_abort_next;

    if (rst) begin
        state_reg <= S_IDLE;
        stat_tx_ack_reg <= 1'b0;
        stat_tx_nak_reg <= 1'b0;
        stat_read_abort_reg <= 1'b0;
    end
end

// a translation under way is the only thing a command must wait for
assign idle = !walk_busy;
assign s_desc_ready = state_reg == S_IDLE && !hold;


assign m_pay_rd_req_addr = chunk_head[63:0];
assign m_pay_rd_req_len = {3'd0, chunk_head[76:64]};
assign m_pay_rd_req_last = chunk_head[77];

assign m_axis_tdata = s_pay_rd_axis_tdata;
assign m_axis_tkeep = s_pay_rd_axis_tkeep;
assign m_axis_tlast = s_pay_rd_axis_tlast;
assign m_axis_tuser = s_pay_rd_axis_tuser;
assign m_axis_tvalid = s_pay_rd_axis_tvalid;
assign s_pay_rd_axis_tready = m_axis_tready;

assign stat_tx_ack = stat_tx_ack_reg;
assign stat_tx_nak = stat_tx_nak_reg;
assign stat_read_abort = stat_read_abort_reg;

endmodule

`resetall
