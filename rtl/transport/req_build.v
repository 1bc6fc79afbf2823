/*

RC requester, packet build: the stage after transport/req_tx's control. The control
decides each packet (its header, its payload's place in the message, the message to
req_ack that goes with it) and hands it here as a job; this stage walks the payload's
SGEs, commits its DMA chunks, and sends header, payload source and message on, in the
order the jobs came. So one WQE's walk and translation overlap the next WQE's turn.

    job queue (JOB_LOG) --> head job:
        a message only ------------------------------------------> messages to req_ack
        a packet: payload from the SGEs: sg_walk (-> mr_translate) -> chunk FIFO
                  --(done OK: commit)--> header, payload source, its message
                  --(done failed: discard)--> ERROR message; the QP's later jobs dropped
                  payload inline: header, source, message, then the WQE's bytes as beats
    chunk FIFO --> DMA reads --> payload (DMA byte stream, or inline beats) --> m_axis

A job refers to its WQE by window slot (transport/wqe_fetch); the slots of the jobs held
here are reported busy (slot_busy) so that no fill takes them while their SGEs or inline
bytes are still to be read.

A violation (an SGE's key, PD, access or bounds, a message longer than its SGEs) never
reaches memory nor the link: the packet's chunks are discarded, its header never goes,
req_ack gets an ERROR for the WQE (it completes it with its status and flushes the rest),
and the QP is reported failed (m_fail) so that the control puts it in error. The control
goes on meanwhile, so jobs of the QP may be queued after the failing one: those held
then, and any pushed in the same cycle, are marked dropped, and the control pushes no
packet of a QP while it is reported failed. A second failure waits for the control to
take the first report; the control takes it without waiting on this stage.

The control pushes a packet only with room for it and one more job (a SENT that ends its
turn part of the way through a message); it never waits on this stage. Its FLUSH and
ERROR messages need no order with the packets (the QP is in error: req_ack completes
everything posted, and what is still built goes as it would have from the link's FIFOs),
so they go to req_ack at once (s_msg): a message from req_ack that asks for one never
waits for the link, whose room may wait for the peer, whose room may wait for the
responses req_ack takes.

Nothing here waits while it holds something another engine needs: a walk's end is
taken as it comes (its translator's last answer waits with it, req_ack's walks share the
translator, and req_ack drains the messages this stage may wait for); a failure's ERROR
waits in S_FAIL instead (a hang of both NICs, test_rc, before it was so).

A walk goes on from where the previous packet's ended when the job says it continues it
(cont: the next packet of the same message, in the same turn); else from the message's
offset, sg_walk skipping the SGEs before it.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"
`include "req_msg.vh"

module req_build #
(
    parameter DATA_WIDTH = 512,
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // log2 of the payload chunks between translation and the DMA reader (at least 7:
    // a packet may take 60 chunks, and one starts only with room for them all)
    parameter RD_CHUNK_ADDR_WIDTH = 7,
    // log2 of the packets between this stage and the link (built, payload not yet out)
    parameter PKT_LOG = 4,
    // log2 of wqe_fetch's slots
    parameter SLOT_LOG = 3,
    // log2 of the jobs queued
    parameter JOB_LOG = 2
)
(
    input  wire                          clk,
    input  wire                          rst,
    output wire                          idle,

    /*
     * Jobs: a packet (its header, payload length, where its payload is) or a message
     * only; each carries a message to req_ack (its QPN the job's), sent once its packet
     * is built if s_job_msg_valid
     */
    input  wire                          s_job_pkt,
    input  wire [`HROCE_ROCE_HDR_WIDTH-1:0] s_job_hdr,
    input  wire [12:0]                   s_job_len,
    input  wire                          s_job_inline,
    input  wire [31:0]                   s_job_off,     // the payload's offset in its message
    input  wire                          s_job_cont,    // it follows the previous job's walk
    input  wire [7:0]                    s_job_num_sge,
    input  wire [23:0]                   s_job_pd,
    input  wire [SLOT_LOG-1:0]           s_job_slot,    // the WQE: window slot, first beat
    input  wire [2:0]                    s_job_base,
    input  wire [15:0]                   s_job_index,   // its index (an ERROR's)
    input  wire [`REQ_TXM_WIDTH-1:0]     s_job_msg,
    input  wire                          s_job_msg_valid,
    input  wire                          s_job_valid,
    output wire [JOB_LOG:0]              job_count,
    output wire [2**SLOT_LOG-1:0]        slot_busy,

    /*
     * A message from the control that goes at once, before the jobs' (a FLUSH or an
     * ERROR: the QP is in error, whatever of it is still to be built); the control sends
     * one only while msg_count is below 6
     */
    input  wire [`REQ_TXM_WIDTH-1:0]     s_msg_data,
    input  wire                          s_msg_valid,
    output wire [4:0]                    msg_count,

    /*
     * A QP whose packet failed its walk
     */
    output wire [23:0]                   m_fail_qpn,
    output wire                          m_fail_valid,
    input  wire                          m_fail_ready,

    /*
     * The WQE's beats (wqe_fetch's read ports: {slot, beat}): the one of an SGE, and
     * the halves of two that an inline beat takes (the upper of the first, the lower of
     * the next: the bytes start at byte 32 of the WQE)
     */
    output wire [SLOT_LOG+2:0]           wqe_sge_addr,
    input  wire [511:0]                  wqe_sge_data,
    output wire [SLOT_LOG+2:0]           wqe_inl_addr_0,
    input  wire [255:0]                  wqe_inl_hi_0,
    output wire [SLOT_LOG+2:0]           wqe_inl_addr_1,
    input  wire [255:0]                  wqe_inl_lo_1,

    /*
     * MR translation (local keys)
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
     * DMA read client, byte stream: payload (one segment per packet)
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
     * Messages to req_ack
     */
    output wire [`REQ_TXM_WIDTH-1:0]     m_msg_data,
    output wire                          m_msg_valid,
    input  wire                          m_msg_ready,

    /*
     * Request packets out: header, then payload (for PAYLOAD_LEN > 0), in order
     */
    output wire [`HROCE_ROCE_HDR_WIDTH-1:0] m_hdr_data,
    output wire                          m_hdr_valid,
    input  wire                          m_hdr_ready,
    output wire [DATA_WIDTH-1:0]         m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]         m_axis_tkeep,
    output wire                          m_axis_tvalid,
    input  wire                          m_axis_tready,
    output wire                          m_axis_tlast,
    output wire                          m_axis_tuser
);

localparam HDR_WIDTH = `HROCE_ROCE_HDR_WIDTH;
localparam SLOTS = 2**SLOT_LOG;
localparam JOBS = 2**JOB_LOG;
localparam RD_CHUNK_DEPTH = 2**RD_CHUNK_ADDR_WIDTH;
localparam PKT_DEPTH = 2**PKT_LOG;
// of those, packets of more than BIG_LEN bytes at most BIG_PKTS: a rewind (go-back-N)
// lets those already on their way go, so what is queued is what a loss costs again
localparam BIG_PKTS = 7;
localparam BIG_LEN = 256;
// chunks one packet may take: a piece per SGE (30 at most), each split once by a page
// boundary (a packet is at most 4 KiB, a page at least 4 KiB)
localparam PKT_CHUNKS = 64;

localparam [7:0]
    WC_LOC_LEN_ERR = `HROCE_WC_STATUS_LOC_LEN_ERR,
    WC_LOC_PROT_ERR = `HROCE_WC_STATUS_LOC_PROT_ERR;

localparam [2:0]
    S_HEAD = 3'd0,
    S_WALK = 3'd1,
    S_COMMIT = 3'd2,
    S_INLINE = 3'd3,
    S_FAIL = 3'd4;

/*
 * The job queue (lib/fifo_drop): a failed walk drops the QP's jobs held behind it; each
 * entry's WQE slot beside it, for the slots the jobs still read
 */
localparam JOB_WIDTH = 1 + HDR_WIDTH + 13 + 1 + 32 + 1 + 8 + 24 + 3 + 16 + `REQ_TXM_WIDTH + 1;

reg pop;
reg fail_now;   // the head job failed its walk: its QP's other jobs are dropped
wire [JOB_WIDTH-1:0] head_job;
wire [23:0] head_qpn;
wire head_drop, head_valid;
wire [JOBS-1:0] job_held;
wire [JOBS*(SLOT_LOG+1)-1:0] job_side;   // {reads its WQE's beats, slot}
wire [SLOT_LOG:0] head_side;
wire [SLOT_LOG-1:0] head_slot = head_side[SLOT_LOG-1:0];
wire head_use = head_side[SLOT_LOG];   // a packet with payload: it reads its WQE's beats

fifo_drop #(.WIDTH(JOB_WIDTH), .KEY_WIDTH(24), .SIDE_WIDTH(SLOT_LOG + 1), .ADDR_WIDTH(JOB_LOG))
job_fifo (
    .clk(clk), .rst(rst),
    .s_data({s_job_pkt, s_job_hdr, s_job_len, s_job_inline, s_job_off, s_job_cont,
             s_job_num_sge, s_job_pd, s_job_base, s_job_index, s_job_msg, s_job_msg_valid}),
    .s_key(s_job_msg[`REQ_TXM_QPN]),
    .s_side({s_job_pkt && s_job_len != 13'd0, s_job_slot}), .s_drop(1'b0),
    .s_valid(s_job_valid),
    .m_data(head_job), .m_key(head_qpn), .m_side(head_side), .m_drop(head_drop),
    .m_valid(head_valid),
    .m_ready(pop),
    .drop_key(head_qpn), .drop_valid(fail_now),
    .count(job_count), .held(job_held), .side(job_side)
);

wire head_pkt;
wire [HDR_WIDTH-1:0] head_hdr;
wire [12:0] head_len;
wire head_inline;
wire [31:0] head_off;
wire head_cont;
wire [7:0] head_num_sge;
wire [23:0] head_pd;
wire [2:0] head_base;
wire [15:0] head_index;
wire [`REQ_TXM_WIDTH-1:0] head_msg;
wire head_msg_valid;
assign {head_pkt, head_hdr, head_len, head_inline, head_off, head_cont, head_num_sge,
        head_pd, head_base, head_index, head_msg, head_msg_valid} = head_job;

reg [2:0] state_reg = S_HEAD, state_next;
reg fail_valid_reg = 1'b0, fail_valid_next;
reg [23:0] fail_qpn_reg = 24'd0, fail_qpn_next;
reg commit_pkt; // the head packet goes: its chunks committed, its header and message out
reg [7:0] fail_status_reg = 8'd0, fail_status_next;
// where the last walk ended (the next packet of its message goes on from there)
reg [4:0] cont_sge_reg = 5'd0, cont_sge_next;
reg [31:0] cont_off_reg = 32'd0, cont_off_next;
reg [2:0] inline_beat_reg = 3'd0, inline_beat_next;

// the slots the jobs held still read
reg [SLOTS-1:0] busy;
integer b;
always @* begin
    busy = {SLOTS{1'b0}};
    for (b = 0; b < JOBS; b = b + 1) begin
        if (job_held[b] && job_side[b*(SLOT_LOG+1)+SLOT_LOG]) begin
            busy[job_side[b*(SLOT_LOG+1) +: SLOT_LOG]] = 1'b1;
        end
    end
end

/*
 * FIFOs to the link and to req_ack
 */
reg hdr_in_valid;
wire [PKT_LOG+1:0] hdr_count;

// payload source per packet with payload: bit 0: 1 = inline beats, 0 = DMA stream; bit 1:
// a big packet (more than BIG_LEN bytes)
reg src_in_valid;
wire [1:0] src_out_data;
wire src_out_valid;
wire src_out_ready;
wire [PKT_LOG+1:0] src_count;
reg [PKT_LOG+1:0] big_count_reg = {PKT_LOG+2{1'b0}};  // big packets in src_fifo

reg inl_in_valid;
wire [DATA_WIDTH+KEEP_WIDTH:0] inl_out_data;
wire inl_out_valid;
wire inl_out_ready;
wire [5:0] inl_count;

reg [`REQ_TXM_WIDTH-1:0] txm_data;
reg txm_valid;
wire [4:0] txm_count;
wire txm_open;

fifo_sync #(.WIDTH(HDR_WIDTH), .ADDR_WIDTH(PKT_LOG))
hdr_fifo (
    .clk(clk), .rst(rst),
    .s_data(head_hdr), .s_valid(hdr_in_valid), .s_ready(),
    .m_data(m_hdr_data), .m_valid(m_hdr_valid), .m_ready(m_hdr_ready),
    .count(hdr_count)
);

wire head_big = head_len > BIG_LEN;

fifo_sync #(.WIDTH(2), .ADDR_WIDTH(PKT_LOG))
src_fifo (
    .clk(clk), .rst(rst),
    .s_data({head_big, head_inline}), .s_valid(src_in_valid), .s_ready(),
    .m_data(src_out_data), .m_valid(src_out_valid), .m_ready(src_out_ready),
    .count(src_count)
);

// inline payload beat k: WQE bytes 32 + 64 k .. 95 + 64 k
wire [511:0] inline_data = {wqe_inl_lo_1, wqe_inl_hi_0};
wire [12:0] inline_done = {4'd0, inline_beat_reg, 6'd0};  // bytes before this beat
wire inline_last = inline_done + 13'd64 >= head_len;
wire [12:0] inline_rem = head_len - inline_done;
wire [6:0] inline_bytes = inline_last ? inline_rem[6:0] : 7'd64;

fifo_sync #(.WIDTH(DATA_WIDTH+KEEP_WIDTH+1), .ADDR_WIDTH(4))
inline_fifo (
    .clk(clk), .rst(rst),
    .s_data({inline_last, {KEEP_WIDTH{1'b1}} >> (7'd64 - inline_bytes), inline_data}),
    .s_valid(inl_in_valid), .s_ready(),
    .m_data(inl_out_data), .m_valid(inl_out_valid), .m_ready(inl_out_ready),
    .count(inl_count)
);

// a SENT message waiting behind another takes the place of the one before it if that
// one is a SENT of the same QP and rewind generation too (the key: QPN, kind and
// generation, the message's low bits): it tells the same, and more
wire [`REQ_TXM_WIDTH-1:0] txm_in = s_msg_valid ? s_msg_data : txm_data;

fifo_merge #(.WIDTH(`REQ_TXM_WIDTH), .ADDR_WIDTH(3), .KEY_WIDTH(`REQ_TXM_KEY_WIDTH))
txm_fifo (
    .clk(clk), .rst(rst),
    .s_data(txm_in), .s_merge(txm_in[`REQ_TXM_KIND] == `REQ_TXM_SENT),
    .s_valid(txm_valid || s_msg_valid), .s_ready(),
    .m_data(m_msg_data), .m_valid(m_msg_valid), .m_ready(m_msg_ready),
    .count(txm_count), .s_open(txm_open)
);

/*
 * The scatter-gather walk of a packet's payload
 */
reg walk_cmd_valid;
wire [2:0] walk_done_status;
wire walk_done_short;
wire [4:0] walk_done_sge;
wire [31:0] walk_done_off;
wire walk_done_valid;
wire walk_done_ready;
wire [12:0] walk_chunk_len;
wire [63:0] walk_chunk_iova;
wire walk_chunk_last;
wire chunk_wr_en;
reg chunk_commit, chunk_discard;
wire [77:0] rd_chunk_head;
wire rd_chunk_valid;
wire [RD_CHUNK_ADDR_WIDTH:0] rd_chunk_used;

// SGE i of the WQE (i: the walker's): byte 32 + 16 i
wire [4:0] walk_sge_index;
wire [8:0] sge_byte = 9'd32 + {walk_sge_index, 4'd0};
wire [127:0] sge = wqe_sge_data[{sge_byte[5:4], 7'd0} +: 128];

sg_walk
walk_inst (
    .clk(clk), .rst(rst),
    .s_cmd_sge(head_cont ? cont_sge_reg : 5'd0), .s_cmd_off(head_cont ? cont_off_reg : head_off),
    .s_cmd_len(head_len), .s_cmd_num_sge(head_num_sge), .s_cmd_pd(head_pd),
    .s_cmd_access(4'd0),
    .s_cmd_valid(walk_cmd_valid), .s_cmd_ready(), .busy(),
    .sge_index(walk_sge_index), .sge_addr(sge[`HROCE_SGE_ADDR]),
    .sge_len(sge[`HROCE_SGE_LENGTH]), .sge_key(sge[`HROCE_SGE_LKEY]),
    .m_mr_req_key(m_mr_req_key), .m_mr_req_pd(m_mr_req_pd), .m_mr_req_va(m_mr_req_va),
    .m_mr_req_len(m_mr_req_len), .m_mr_req_access(m_mr_req_access),
    .m_mr_req_valid(m_mr_req_valid), .m_mr_req_ready(m_mr_req_ready),
    .s_mr_resp_iova(s_mr_resp_iova), .s_mr_resp_len(s_mr_resp_len),
    .s_mr_resp_last(s_mr_resp_last), .s_mr_resp_status(s_mr_resp_status),
    .s_mr_resp_valid(s_mr_resp_valid), .s_mr_resp_ready(s_mr_resp_ready),
    .m_chunk_iova(walk_chunk_iova), .m_chunk_len(walk_chunk_len),
    .m_chunk_last(walk_chunk_last), .m_chunk_valid(chunk_wr_en),
    .m_chunk_ready(rd_chunk_used != RD_CHUNK_DEPTH),
    .m_done_status(walk_done_status), .m_done_short(walk_done_short),
    .m_done_sge(walk_done_sge), .m_done_off(walk_done_off), .m_done_valid(walk_done_valid),
    .m_done_ready(walk_done_ready)
);

fifo_commit #(.WIDTH(78), .ADDR_WIDTH(RD_CHUNK_ADDR_WIDTH))
rd_chunk_fifo (
    .clk(clk), .rst(rst),
    .s_data({walk_chunk_last, walk_chunk_len, walk_chunk_iova}), .s_valid(chunk_wr_en),
    .commit(chunk_commit), .discard(chunk_discard),
    .m_data(rd_chunk_head), .m_valid(rd_chunk_valid), .m_ready(m_pay_rd_req_ready),
    .used(rd_chunk_used), .empty()
);

/*
 * The head job
 */
// room for a whole packet on the way to the link, and for its message (in a cycle the
// control's message does not take): below 6 words, or a SENT that takes the place of the
// newest (req_ack takes a message in 4 cycles or more; 8 QPs' inline WRITEs, a SENT
// each, at 12.7 against 20.1 Mpps without the merge, bench_rc)
wire msg_room_any = !s_msg_valid && txm_count < 5'd6;
wire msg_room = msg_room_any || (!s_msg_valid && txm_open &&
                                 head_msg[`REQ_TXM_KIND] == `REQ_TXM_SENT);
wire pkt_room = hdr_count < PKT_DEPTH - 1 && src_count < PKT_DEPTH - 1 && inl_count < 6'd10 &&
                big_count_reg < BIG_PKTS && msg_room;
wire chunk_room = rd_chunk_used <= RD_CHUNK_DEPTH - PKT_CHUNKS;
wire walk_fail = walk_done_short || walk_done_status != `HROCE_MR_XLATE_OK;
// (a walk's end is taken at once: its translator's last answer waits with it, and
// req_ack's walks share the translator, and req_ack drains the messages this stage waits
// for)
assign walk_done_ready = state_reg == S_WALK;

always @* begin
    state_next = state_reg;
    pop = 1'b0;
    fail_valid_next = fail_valid_reg && !m_fail_ready;
    fail_qpn_next = fail_qpn_reg;
    fail_now = 1'b0;
    fail_status_next = fail_status_reg;
    cont_sge_next = cont_sge_reg;
    cont_off_next = cont_off_reg;
    inline_beat_next = inline_beat_reg;
    walk_cmd_valid = 1'b0;
    commit_pkt = 1'b0;
    chunk_commit = 1'b0;
    chunk_discard = 1'b0;
    hdr_in_valid = 1'b0;
    src_in_valid = 1'b0;
    inl_in_valid = 1'b0;
    txm_data = head_msg;
    txm_valid = 1'b0;

    case (state_reg)
        S_HEAD: begin
            inline_beat_next = 3'd0;
            if (!head_valid) begin
                state_next = S_HEAD;
            end else if (head_drop) begin
                // a job of a QP that failed before it
                pop = 1'b1;
            end else if (!head_pkt) begin
                if (msg_room) begin
                    txm_valid = 1'b1;
                    pop = 1'b1;
                end
            end else if (head_use && !head_inline) begin
                if (chunk_room) begin
                    walk_cmd_valid = 1'b1;
                    state_next = S_WALK;
                end
            end else begin
                // inline or empty: nothing to walk
                commit_pkt = pkt_room;
                state_next = S_COMMIT;
            end
        end
        S_WALK: begin
            if (walk_done_valid && walk_done_ready) begin
                cont_sge_next = walk_done_sge;
                cont_off_next = walk_done_off;
                if (walk_fail) begin
                    // nothing of this packet reaches memory nor the link
                    chunk_discard = 1'b1;
                    fail_status_next = walk_done_short ? WC_LOC_LEN_ERR : WC_LOC_PROT_ERR;
                    state_next = S_FAIL;
                end else begin
                    // committed at once if there is room (the walk's last chunk, written
                    // this cycle, with the others)
                    commit_pkt = pkt_room;
                    state_next = S_COMMIT;
                end
            end
        end
        S_COMMIT: begin
            commit_pkt = pkt_room;
        end
        S_FAIL: begin
            // req_ack completes the WQE with its error, and the control learns of it (a
            // failure waits until the control took the one before)
            if (msg_room_any && !fail_valid_reg) begin
                fail_now = 1'b1;
                txm_data[`REQ_TXM_KIND] = `REQ_TXM_ERROR;
                txm_data[`REQ_TXM_CI] = head_index;
                txm_data[`REQ_TXM_STATUS] = fail_status_reg;
                txm_valid = 1'b1;
                fail_valid_next = 1'b1;
                fail_qpn_next = head_qpn;
                pop = 1'b1;
                state_next = S_HEAD;
            end
        end
        S_INLINE: begin
            inl_in_valid = 1'b1;
            inline_beat_next = inline_beat_reg + 3'd1;
            if (inline_last) begin
                pop = 1'b1;
                state_next = S_HEAD;
            end
        end
        default: state_next = S_HEAD;
    endcase

    if (commit_pkt) begin
        // header, payload source and message leave together, once the chunks are
        // committed
        chunk_commit = 1'b1;
        hdr_in_valid = 1'b1;
        src_in_valid = head_len != 13'd0;
        txm_valid = head_msg_valid;
        if (head_inline && head_len != 13'd0) begin
            state_next = S_INLINE;
        end else begin
            pop = 1'b1;
            state_next = S_HEAD;
        end
    end
end

always @(posedge clk) begin
    state_reg <= state_next;
    fail_valid_reg <= fail_valid_next;
    fail_qpn_reg <= fail_qpn_next;
    fail_status_reg <= fail_status_next;
    cont_sge_reg <= cont_sge_next;
    cont_off_reg <= cont_off_next;
    inline_beat_reg <= inline_beat_next;
    big_count_reg <= big_count_reg + {{PKT_LOG+1{1'b0}}, src_in_valid && head_big} -
                     {{PKT_LOG+1{1'b0}}, src_out_valid && src_out_ready && src_out_data[1]};
    if (rst) begin
        state_reg <= S_HEAD;
        fail_valid_reg <= 1'b0;
        big_count_reg <= {PKT_LOG+2{1'b0}};
    end
end

/*
 * Payload out: each packet's bytes from the DMA stream or the inline FIFO
 */
wire pay_from_inline = src_out_data[0];
assign m_axis_tdata = pay_from_inline ? inl_out_data[DATA_WIDTH-1:0] : s_pay_rd_axis_tdata;
assign m_axis_tkeep = pay_from_inline ? inl_out_data[DATA_WIDTH +: KEEP_WIDTH] :
                      s_pay_rd_axis_tkeep;
assign m_axis_tlast = pay_from_inline ? inl_out_data[DATA_WIDTH+KEEP_WIDTH] :
                      s_pay_rd_axis_tlast;
assign m_axis_tuser = !pay_from_inline && s_pay_rd_axis_tuser;
assign m_axis_tvalid = src_out_valid && (pay_from_inline ? inl_out_valid : s_pay_rd_axis_tvalid);
assign s_pay_rd_axis_tready = src_out_valid && !pay_from_inline && m_axis_tready;
assign inl_out_ready = src_out_valid && pay_from_inline && m_axis_tready;
assign src_out_ready = m_axis_tvalid && m_axis_tready && m_axis_tlast;

assign m_pay_rd_req_addr = rd_chunk_head[63:0];
assign m_pay_rd_req_len = {3'd0, rd_chunk_head[76:64]};
assign m_pay_rd_req_last = rd_chunk_head[77];
assign m_pay_rd_req_valid = rd_chunk_valid;

assign wqe_sge_addr = {head_slot, head_base + sge_byte[8:6]};
assign wqe_inl_addr_0 = {head_slot, head_base + inline_beat_reg};
assign wqe_inl_addr_1 = {head_slot, head_base + inline_beat_reg + 3'd1};

assign msg_count = txm_count;
assign slot_busy = busy;
assign m_fail_qpn = fail_qpn_reg;
assign m_fail_valid = fail_valid_reg;
assign idle = !head_valid && state_reg == S_HEAD && !m_msg_valid && !fail_valid_reg;

endmodule

`resetall
