/*

RC responder, placement: the stage after transport/resp_engine's control. The control
checks each request (context, PSN, opcode sequence, access) and decides its fate; this
stage walks the payload's SGEs or remote range, commits its DMA chunks, writes the payload,
and tracks the writes until the host answered them, so that the control goes on to the
next request while one is walked and placed.

    jobs (JOB_LOG), in request order --> head job:
        drop: the payload is dropped (its act)
        place: sg_walk (list: the SGEs of a RECV WQE the control holds, from an offset;
                        or a remote range) -> mr_translate -> chunk FIFO
               committed at once if OK; a violation (or a list too short): discarded,
               its payload dropped, a fault to the control
    chunk FIFO (committed) --> DMA writes <-- payload (act: write or drop, in order)
    writes answered --> per packet {QPN, PSN, chunks}: one refused -> a fault

Jobs are pushed once their request's ICRC verdict is good and their context checks
passed: nothing but the walk can fail them. A WRITE packet's translation fails only
where the control's checks could not see it (a WRITE of one packet is checked by its walk,
as a range check would; a translation table the host no longer maps); a SEND packet's
walk fails where its RECV WQE's SGEs do (a local key, or too few bytes). Such a failure
is a fault, as a write the host refused is: the control NAKs the packet (its PSN) and puts
the QP in error, and a list job's fault is the RECV WQE's error. The QP's jobs queued
after it, and any pushed while its fault waits, are dropped (never written): a NAK
acknowledges the packets before its PSN only. (A refused write is known only once its
answer comes, when the packets after it may be written already: its fault drops the jobs
pushed while it waits, not those queued before.)

Faults wait in a small table whose every entry is compared at once: the control asks
whether a QP has one (its pending ACK must not go: the NAK answers for it; a RECV
completion or a READ behind it must not be answered). Faults of refused writes are kept
only while fewer than WRITE_FAULTS wait (their packets are ACKed otherwise, as before);
a walk's fault always has room: the control pushes a job that walks only while the waiting
faults and the queued jobs leave room for all of them (fault_room).

A list job's SGEs are read through the control (sge_ref: where its RECV WQE is held) while
it is walked; the control keeps them there until the job is popped (list_pop).

What the control needs to answer in order: placed_count (jobs retired, each one its
push), wr_committed (chunks committed so far) and wr_answered (their writes answered): an
ACK that covers the request of job n waits until n jobs are retired, takes wr_committed
then, and goes once that many writes are answered.

The translator is shared with the control's range checks: no walk starts while the
control holds it (xl_hold), and the control starts a check only while no walk is under
way (xl_busy). A walk's end is taken at once (its translator's last answer waits with it).

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module resp_place #
(
    parameter DATA_WIDTH = 512,
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // log2 of the DMA chunks in flight between translation and the DMA writer
    parameter CHUNK_ADDR_WIDTH = 6,
    // log2 of the packets whose DMA writes are not all answered yet
    parameter WREC_ADDR_WIDTH = 5,
    // log2 of the jobs queued
    parameter JOB_LOG = 2,
    // log2 of the faults waiting for the control
    parameter FAULT_LOG = 4,
    // faults of refused writes kept at most
    parameter WRITE_FAULTS = 4,
    // a list job's reference to its SGE list (the control's: where its RECV WQE is held)
    parameter REF_WIDTH = 7
)
(
    input  wire                          clk,
    input  wire                          rst,
    output wire                          idle,      // no job queued nor walked
    output wire                          drained,   // idle, every write answered

    /*
     * Jobs, in request order: place (walk) or drop a request's payload
     */
    input  wire                          s_job_walk,
    input  wire                          s_job_list,    // walks the control's SGE list ref
    input  wire [REF_WIDTH-1:0]          s_job_ref,
    input  wire [23:0]                   s_job_qpn,
    input  wire [23:0]                   s_job_psn,
    input  wire [31:0]                   s_job_off,     // list: where in the SGEs
    input  wire [12:0]                   s_job_len,
    input  wire [7:0]                    s_job_num_sge,
    input  wire [23:0]                   s_job_pd,
    input  wire [3:0]                    s_job_access,
    input  wire [63:0]                   s_job_va,      // not list: the range's VA and key
    input  wire [31:0]                   s_job_key,
    input  wire                          s_job_valid,
    output wire [JOB_LOG:0]              job_count,
    output wire                          fault_room,

    /*
     * A list job's SGE list (the control's: the SGEs of the RECV WQE it refers to); a
     * list job popped (sge_ref no longer read)
     */
    output wire [REF_WIDTH-1:0]          sge_ref,
    output wire [4:0]                    sge_index,
    input  wire [63:0]                   sge_addr,
    input  wire [31:0]                   sge_len,
    input  wire [31:0]                   sge_key,
    output wire                          list_pop,

    /*
     * The ACKs' bookkeeping
     */
    output wire [7:0]                    placed_count,
    output wire [15:0]                   wr_committed,
    output wire [15:0]                   wr_answered,

    /*
     * Faults: a packet to NAK ({QPN, PSN}; a refused write, or the translation's
     * status, of a list job's walk or a range's, and whether the list was short); and
     * whether QPs q_qpn_0, q_qpn_1 have one waiting; of QP q_qpn_2, whether one of a
     * packet before PSN q_first_2 waits, and one of a packet from q_first_2 to q_last_2
     * (a list job's, short or not: a QP has one list job's fault at most)
     */
    output wire [23:0]                   m_fault_qpn,
    output wire [23:0]                   m_fault_psn,
    output wire [2:0]                    m_fault_status,
    output wire                          m_fault_short,
    output wire                          m_fault_list,
    output wire                          m_fault_write,
    output wire                          m_fault_valid,
    input  wire                          m_fault_ready,
    input  wire [23:0]                   q_qpn_0,
    output wire                          q_faulted_0,
    input  wire [23:0]                   q_qpn_1,
    output wire                          q_faulted_1,
    input  wire [23:0]                   q_qpn_2,
    input  wire [23:0]                   q_first_2,
    input  wire [23:0]                   q_last_2,
    output wire                          q_before_2,
    output wire                          q_own_2,
    output wire                          q_own_list_2,
    output wire                          q_own_short_2,

    /*
     * MR translation, shared with the control's checks
     */
    input  wire                          xl_hold,
    output wire                          xl_busy,
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
     * Request payloads in (those of good requests, in order)
     */
    input  wire [DATA_WIDTH-1:0]         s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]         s_axis_tkeep,
    input  wire                          s_axis_tvalid,
    output wire                          s_axis_tready,
    input  wire                          s_axis_tlast,

    /*
     * DMA write client, byte stream
     */
    output wire [63:0]                   m_wr_req_addr,
    output wire [15:0]                   m_wr_req_len,
    output wire                          m_wr_req_valid,
    input  wire                          m_wr_req_ready,
    output wire [DATA_WIDTH-1:0]         m_wr_axis_tdata,
    output wire [KEEP_WIDTH-1:0]         m_wr_axis_tkeep,
    output wire                          m_wr_axis_tvalid,
    input  wire                          m_wr_axis_tready,
    output wire                          m_wr_axis_tlast,
    input  wire                          s_wr_done_valid,
    input  wire                          s_wr_done_error,

    /*
     * Trace (the core's trace port): TRACE_PLACED, TRACE_ANSWERED, in that order
     */
    output wire [1:0]                    m_trace_valid,
    output wire [2*`HROCE_TRACE_EVENT_WIDTH-1:0] m_trace_data
);

localparam JOBS = 2**JOB_LOG;
localparam CHUNK_DEPTH = 2**CHUNK_ADDR_WIDTH;
localparam FAULTS = 2**FAULT_LOG;
// a walk starts with room for PKT_CHUNKS chunks: a remote range's packet takes 2 at most
// (a page boundary), most SENDs a few; a walk of more (up to 31 SGEs, each split once)
// waits for the committed chunks to drain, which they do without this stage
localparam PKT_CHUNKS = 32;

localparam [2:0] XL_OK = `HROCE_MR_XLATE_OK;

initial begin
    if (FAULTS <= WRITE_FAULTS + JOBS) begin
        $error("Error: %m: a fault for every job queued needs FAULT_LOG with more than %0d",
               WRITE_FAULTS + JOBS);
        $finish;
    end
end

localparam [2:0]
    S_HEAD = 3'd0,
    S_WALK = 3'd1,
    S_COMMIT = 3'd2,
    S_FAIL = 3'd3;

/*
 * The job queue (lib/fifo_drop): a failed walk drops the QP's jobs held behind it, and a
 * job of a QP with a fault waiting is queued dropped
 */
localparam JOB_WIDTH = 1 + 1 + REF_WIDTH + 24 + 32 + 13 + 8 + 24 + 4 + 64 + 32;

wire [JOB_WIDTH-1:0] head_job;
wire [23:0] head_qpn;
wire head_drop, head_valid;

wire head_walk, head_list;
wire [REF_WIDTH-1:0] head_ref;
wire [23:0] head_psn, head_pd;
wire [31:0] head_off, head_key;
wire [12:0] head_len;
wire [7:0] head_num_sge;
wire [3:0] head_access;
wire [63:0] head_va;
assign {head_walk, head_list, head_ref, head_psn, head_off, head_len,
        head_num_sge, head_pd, head_access, head_va, head_key} = head_job;

reg [2:0] state_reg = S_HEAD, state_next;
reg pop;
reg fail_now;   // the head job failed its walk: its QP's other jobs are dropped
reg [7:0] placed_reg = 8'd0;
reg [2:0] res_status_reg = 3'd0, res_status_next;
reg res_short_reg = 1'b0, res_short_next;
reg [12:0] batch_reg = 13'd0, batch_next;      // the head walk's chunks
reg [15:0] committed_reg = 16'd0, committed_next;
reg [15:0] answered_reg = 16'd0;
reg [15:0] pending_reg = 16'd0;               // writes handed out, not answered
wire chunk_wr_en;                             // the walk writes a chunk
// the head walk's chunks, this cycle's included (its last goes with its end)
wire [12:0] batch_now = batch_reg + (chunk_wr_en ? 13'd1 : 13'd0);

/*
 * Faults: {QPN, PSN, short, list} in registers, every entry's compared at once; the
 * head's {status, short, list, refused write} read from a RAM
 */
reg [FAULTS*24-1:0] fault_qpn_reg = {FAULTS*24{1'b0}};
reg [FAULTS-1:0] fault_list_reg = {FAULTS{1'b0}};
reg [FAULTS-1:0] fault_short_reg = {FAULTS{1'b0}};
reg [5:0] fault_mem [0:FAULTS-1];             // {status, short, list, refused write}
reg [FAULT_LOG:0] fault_wr_reg = {FAULT_LOG+1{1'b0}};
reg [FAULT_LOG:0] fault_rd_reg = {FAULT_LOG+1{1'b0}};
wire [FAULT_LOG:0] fault_count = fault_wr_reg - fault_rd_reg;
wire [FAULT_LOG-1:0] fault_head = fault_rd_reg[FAULT_LOG-1:0];
reg walk_fault_push;                          // the head job's translation failed
reg write_fault_push;                         // a packet's write was refused
reg [23:0] write_fault_qpn, write_fault_psn;

reg [FAULTS*24-1:0] fault_psn_reg = {FAULTS*24{1'b0}};
reg [FAULTS-1:0] fault_held;
reg [FAULTS-1:0] fault_hit_0, fault_hit_1, fault_hit_2, fault_hit_job;
reg [FAULTS-1:0] fault_before_2, fault_own_2;
reg [FAULT_LOG-1:0] fk;
reg [23:0] to_first, from_first;
integer f;
always @* begin
    for (f = 0; f < FAULTS; f = f + 1) begin
        fk = f[FAULT_LOG-1:0] - fault_head;
        fault_held[f] = {1'b0, fk} < fault_count;
        fault_hit_0[f] = fault_held[f] && fault_qpn_reg[f*24 +: 24] == q_qpn_0;
        fault_hit_1[f] = fault_held[f] && fault_qpn_reg[f*24 +: 24] == q_qpn_1;
        fault_hit_2[f] = fault_held[f] && fault_qpn_reg[f*24 +: 24] == q_qpn_2;
        fault_hit_job[f] = fault_held[f] && fault_qpn_reg[f*24 +: 24] == s_job_qpn;
        // (PSNs compared within half the space, as the requester's)
        to_first = q_first_2 - fault_psn_reg[f*24 +: 24];
        from_first = fault_psn_reg[f*24 +: 24] - q_first_2;
        fault_before_2[f] = fault_hit_2[f] && to_first != 24'd0 && !to_first[23];
        fault_own_2[f] = fault_hit_2[f] && from_first <= q_last_2 - q_first_2;
    end
end

// a walk's fault takes the entry in a cycle where no write's does (it waits a cycle)
wire [FAULT_LOG-1:0] fault_tail = fault_wr_reg[FAULT_LOG-1:0];

// (the QPNs written entry by entry, not at a computed offset: Yosys makes a shifter of
// that, thousands of LUTs)
integer w;
always @(posedge clk) begin
    for (w = 0; w < FAULTS; w = w + 1) begin
        if (w[FAULT_LOG-1:0] == fault_tail && (write_fault_push || walk_fault_push)) begin
            fault_qpn_reg[w*24 +: 24] <= write_fault_push ? write_fault_qpn : head_qpn;
            fault_psn_reg[w*24 +: 24] <= write_fault_push ? write_fault_psn : head_psn;
            fault_list_reg[w] <= !write_fault_push && head_list;
            fault_short_reg[w] <= !write_fault_push && res_short_reg;
        end
    end
    if (write_fault_push) begin
        fault_mem[fault_tail] <= {3'd0, 2'd0, 1'b1};
    end else if (walk_fault_push) begin
        fault_mem[fault_tail] <= {res_status_reg, res_short_reg, head_list, 1'b0};
    end
    fault_wr_reg <= fault_wr_reg + {{FAULT_LOG{1'b0}}, write_fault_push || walk_fault_push};
    fault_rd_reg <= fault_rd_reg + {{FAULT_LOG{1'b0}}, m_fault_valid && m_fault_ready};
    if (rst) begin
        fault_wr_reg <= {FAULT_LOG+1{1'b0}};
        fault_rd_reg <= {FAULT_LOG+1{1'b0}};
    end
end

fifo_drop #(.WIDTH(JOB_WIDTH), .KEY_WIDTH(24), .SIDE_WIDTH(1), .ADDR_WIDTH(JOB_LOG))
job_fifo (
    .clk(clk), .rst(rst),
    .s_data({s_job_walk, s_job_list, s_job_ref, s_job_psn, s_job_off, s_job_len,
             s_job_num_sge, s_job_pd, s_job_access, s_job_va, s_job_key}),
    .s_key(s_job_qpn), .s_side(1'b0), .s_drop(fault_hit_job != {FAULTS{1'b0}}),
    .s_valid(s_job_valid),
    .m_data(head_job), .m_key(head_qpn), .m_side(), .m_drop(head_drop),
    .m_valid(head_valid), .m_ready(pop),
    .drop_key(head_qpn), .drop_valid(fail_now),
    .count(job_count), .held(), .side()
);

/*
 * What to do with each payload: 1 = write it (committed chunks), 0 = drop it
 */
reg act_in_data, act_in_valid;
wire act_out_data, act_out_valid, act_out_ready;
wire [4:0] act_count;

fifo_sync #(.WIDTH(1), .ADDR_WIDTH(3), .OUTPUT_REG(0))
act_fifo (
    .clk(clk), .rst(rst),
    .s_data(act_in_data), .s_valid(act_in_valid), .s_ready(),
    .m_data(act_out_data), .m_valid(act_out_valid), .m_ready(act_out_ready),
    .count(act_count)
);

// the packets whose writes are not all answered: {QPN, PSN, chunks}, in commit order
reg wrec_push;
wire wrec_room, wrec_valid;
reg wrec_pop;
wire [23:0] wrec_qpn, wrec_psn;
wire [12:0] wrec_chunks;
reg [12:0] wrec_done_reg = 13'd0, wrec_done_next;  // chunks of the head answered
reg wrec_err_reg = 1'b0, wrec_err_next;           // one of them with an error

fifo_sync #(.WIDTH(24 + 24 + 13), .ADDR_WIDTH(WREC_ADDR_WIDTH))
wrec_fifo (
    .clk(clk), .rst(rst),
    .s_data({head_qpn, head_psn, batch_now}), .s_valid(wrec_push), .s_ready(wrec_room),
    .m_data({wrec_qpn, wrec_psn, wrec_chunks}), .m_valid(wrec_valid), .m_ready(wrec_pop),
    .count()
);

/*
 * The walk of the head job: the control's list (list), or its own range
 */
reg walk_cmd_valid;
wire walk_busy;
wire [2:0] walk_done_status;
wire walk_done_short;
wire walk_done_valid;
wire [12:0] walk_chunk_len;
wire [63:0] walk_chunk_iova;
reg chunk_commit, chunk_discard;
wire [76:0] chunk_head;
wire chunk_avail;
wire [CHUNK_ADDR_WIDTH:0] chunk_used;
wire chunk_empty;

sg_walk
walk_inst (
    .clk(clk), .rst(rst),
    .s_cmd_sge(5'd0), .s_cmd_off(head_list ? head_off : 32'd0), .s_cmd_len(head_len),
    .s_cmd_num_sge(head_list ? head_num_sge : 8'd1), .s_cmd_pd(head_pd),
    .s_cmd_access(head_access),
    .s_cmd_valid(walk_cmd_valid), .s_cmd_ready(), .busy(walk_busy),
    .sge_index(sge_index),
    .sge_addr(head_list ? sge_addr : head_va),
    .sge_len(head_list ? sge_len : 32'hffffffff),
    .sge_key(head_list ? sge_key : head_key),
    .m_mr_req_key(m_mr_req_key), .m_mr_req_pd(m_mr_req_pd), .m_mr_req_va(m_mr_req_va),
    .m_mr_req_len(m_mr_req_len), .m_mr_req_access(m_mr_req_access),
    .m_mr_req_valid(m_mr_req_valid), .m_mr_req_ready(m_mr_req_ready),
    .s_mr_resp_iova(s_mr_resp_iova), .s_mr_resp_len(s_mr_resp_len),
    .s_mr_resp_last(s_mr_resp_last), .s_mr_resp_status(s_mr_resp_status),
    .s_mr_resp_valid(s_mr_resp_valid), .s_mr_resp_ready(s_mr_resp_ready),
    .m_chunk_iova(walk_chunk_iova), .m_chunk_len(walk_chunk_len),
    .m_chunk_last(), .m_chunk_valid(chunk_wr_en), .m_chunk_ready(chunk_used != CHUNK_DEPTH),
    .m_done_status(walk_done_status), .m_done_short(walk_done_short),
    .m_done_sge(), .m_done_off(), .m_done_valid(walk_done_valid),
    .m_done_ready(state_reg == S_WALK)
);

fifo_commit #(.WIDTH(77), .ADDR_WIDTH(CHUNK_ADDR_WIDTH))
chunk_fifo (
    .clk(clk), .rst(rst),
    .s_data({walk_chunk_len, walk_chunk_iova}), .s_valid(chunk_wr_en), .commit(chunk_commit),
    .discard(chunk_discard),
    .m_data(chunk_head), .m_valid(chunk_avail), .m_ready(m_wr_req_ready),
    .used(chunk_used), .empty(chunk_empty)
);

/*
 * The head job
 */
wire act_room = act_count < 5'd6;
wire chunk_room = chunk_used <= CHUNK_DEPTH - PKT_CHUNKS;
wire walk_ok = !walk_done_short && walk_done_status == XL_OK;
// the head's chunks committed, its payload written, its writes tracked
wire commit_room = act_room && wrec_room;

always @* begin
    state_next = state_reg;
    pop = 1'b0;
    fail_now = 1'b0;
    walk_fault_push = 1'b0;
    walk_cmd_valid = 1'b0;
    chunk_commit = 1'b0;
    chunk_discard = 1'b0;
    act_in_data = 1'b0;
    act_in_valid = 1'b0;
    wrec_push = 1'b0;
    res_status_next = res_status_reg;
    res_short_next = res_short_reg;
    batch_next = batch_now;
    committed_next = committed_reg;

    case (state_reg)
        S_HEAD: begin
            if (!head_valid) begin
                state_next = S_HEAD;
            end else if (head_drop || !head_walk) begin
                if (act_room) begin
                    act_in_valid = 1'b1;
                    pop = 1'b1;
                end
            end else if (!xl_hold && chunk_room) begin
                walk_cmd_valid = 1'b1;
                state_next = S_WALK;
            end
        end
        S_WALK: begin
            if (walk_done_valid) begin
                res_status_next = walk_done_status;
                res_short_next = walk_done_short;
                if (!walk_ok) begin
                    state_next = S_FAIL;
                end else if (commit_room) begin
                    // (the walk's last chunk is written this cycle: counted with it)
                    chunk_commit = 1'b1;
                    act_in_data = 1'b1;
                    act_in_valid = 1'b1;
                    wrec_push = batch_now != 13'd0;
                    committed_next = committed_reg + {3'd0, batch_now};
                    batch_next = 13'd0;
                    pop = 1'b1;
                    state_next = S_HEAD;
                end else begin
                    state_next = S_COMMIT;
                end
            end
        end
        S_COMMIT: begin
            if (commit_room) begin
                chunk_commit = 1'b1;
                act_in_data = 1'b1;
                act_in_valid = 1'b1;
                wrec_push = batch_reg != 13'd0;
                committed_next = committed_reg + {3'd0, batch_reg};
                batch_next = 13'd0;
                pop = 1'b1;
                state_next = S_HEAD;
            end
        end
        S_FAIL: begin
            // nothing of it reaches memory; the control NAKs it from the fault
            if (act_room && !write_fault_push && fault_count != FAULTS) begin
                chunk_discard = 1'b1;
                batch_next = 13'd0;
                act_in_valid = 1'b1;
                walk_fault_push = 1'b1;
                fail_now = 1'b1;
                pop = 1'b1;
                state_next = S_HEAD;
            end
        end
        default: state_next = S_HEAD;
    endcase
end

// a packet's writes committed (they go to the host), and all of them answered
assign m_trace_valid = {wrec_pop, wrec_push};
assign m_trace_data = {8'd0, wrec_psn, wrec_qpn, 8'd0, head_psn, head_qpn};

/*
 * DMA writes handed out and answered: each answer counts against the oldest packet's
 * chunks; the last one pops it, a fault if any of them was refused
 */
always @* begin
    wrec_pop = 1'b0;
    write_fault_push = 1'b0;
    write_fault_qpn = wrec_qpn;
    write_fault_psn = wrec_psn;
    wrec_done_next = wrec_done_reg;
    wrec_err_next = wrec_err_reg;
    if (s_wr_done_valid && wrec_valid) begin
        if (wrec_done_reg + 13'd1 == wrec_chunks) begin
            wrec_pop = 1'b1;
            write_fault_push = (wrec_err_reg || s_wr_done_error) && fault_count < WRITE_FAULTS;
            wrec_done_next = 13'd0;
            wrec_err_next = 1'b0;
        end else begin
            wrec_done_next = wrec_done_reg + 13'd1;
            wrec_err_next = wrec_err_reg || s_wr_done_error;
        end
    end
end

wire chunk_take = chunk_avail && m_wr_req_ready;

always @(posedge clk) begin
    state_reg <= state_next;
    res_status_reg <= res_status_next;
    res_short_reg <= res_short_next;
    batch_reg <= batch_next;
    committed_reg <= committed_next;
    answered_reg <= answered_reg + (s_wr_done_valid ? 16'd1 : 16'd0);
    pending_reg <= pending_reg + (chunk_take ? 16'd1 : 16'd0) - (s_wr_done_valid ? 16'd1 : 16'd0);
    placed_reg <= placed_reg + (pop ? 8'd1 : 8'd0);
    wrec_done_reg <= wrec_done_next;
    wrec_err_reg <= wrec_err_next;
    if (rst) begin
        state_reg <= S_HEAD;
        batch_reg <= 13'd0;
        committed_reg <= 16'd0;
        answered_reg <= 16'd0;
        pending_reg <= 16'd0;
        placed_reg <= 8'd0;
        wrec_done_reg <= 13'd0;
        wrec_err_reg <= 1'b0;
    end
end

/*
 * Payload: written through the committed chunks, or dropped
 */
assign m_wr_axis_tdata = s_axis_tdata;
assign m_wr_axis_tkeep = s_axis_tkeep;
assign m_wr_axis_tlast = s_axis_tlast;
assign m_wr_axis_tvalid = act_out_valid && act_out_data && s_axis_tvalid;
assign s_axis_tready = act_out_valid && (act_out_data ? m_wr_axis_tready : 1'b1);
assign act_out_ready = s_axis_tvalid && s_axis_tready && s_axis_tlast;

assign m_wr_req_addr = chunk_head[63:0];
assign m_wr_req_len = {3'd0, chunk_head[76:64]};
assign m_wr_req_valid = chunk_avail;

assign idle = !head_valid && state_reg == S_HEAD;
assign drained = idle && chunk_empty && pending_reg == 16'd0;
// every job queued may fail, and refused writes may take WRITE_FAULTS entries
assign fault_room = {1'b0, fault_count} + {{FAULT_LOG-JOB_LOG{1'b0}}, job_count} <
                    FAULTS - WRITE_FAULTS;


assign placed_count = placed_reg;
assign wr_committed = committed_reg;
assign wr_answered = answered_reg;

reg [23:0] head_fault_qpn, head_fault_psn;
integer r;
always @* begin
    head_fault_qpn = 24'd0;
    head_fault_psn = 24'd0;
    for (r = 0; r < FAULTS; r = r + 1) begin
        if (r[FAULT_LOG-1:0] == fault_head) begin
            head_fault_qpn = fault_qpn_reg[r*24 +: 24];
            head_fault_psn = fault_psn_reg[r*24 +: 24];
        end
    end
end

wire [5:0] head_fault = fault_mem[fault_head];
assign m_fault_qpn = head_fault_qpn;
assign m_fault_psn = head_fault_psn;
assign m_fault_status = head_fault[5:3];
assign m_fault_short = head_fault[2];
assign m_fault_list = head_fault[1];
assign m_fault_write = head_fault[0];
assign m_fault_valid = fault_count != {FAULT_LOG+1{1'b0}};
assign q_faulted_0 = fault_hit_0 != {FAULTS{1'b0}};
assign q_faulted_1 = fault_hit_1 != {FAULTS{1'b0}};
assign q_before_2 = fault_before_2 != {FAULTS{1'b0}};
assign q_own_2 = fault_own_2 != {FAULTS{1'b0}};
// (a QP has one list job's fault at most: its later jobs are dropped)
assign q_own_list_2 = (fault_own_2 & fault_list_reg) != {FAULTS{1'b0}};
assign q_own_short_2 = (fault_own_2 & fault_list_reg & fault_short_reg) != {FAULTS{1'b0}};

assign sge_ref = head_ref;
assign list_pop = pop && head_list;

assign xl_busy = walk_busy;

endmodule

`resetall
