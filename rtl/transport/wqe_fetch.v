/*

The WQE fetch stage: windows on the send queues (transport/req_tx) or on the receive
queues (transport/resp_engine), read ahead.

    fill (QPN, first index, count, address) --> slot taken, DMA read issued (in order)
    DMA beats -------------------------------> the slot's beats; on the last, the slot is
                                               ready, and its QP's turn (wake) goes back
    pushed WQE (doorbell page) --------------> a new slot, or the next WQE of a slot
    lookup (QPN, index) ---------------------> the slot that holds it, ready or on the way
    beat reads ({slot, beat}) ---------------> the WQEs, for the engine that sends them

2^SLOT_LOG slots, each a window of up to 512 bytes of one QP's send ring (8 WQEs of 64
bytes, fewer of more), tagged {QPN, first index, count}. Several reads are in flight at
once, of any QPs; the DMA client returns them in the order they were issued, so a FIFO of
slot numbers says where each beat goes. transport/req_tx asks for a window when a turn
finds its WQE in none (the turn then ends, and the QP waits for the read: the read's
wake gives it its turn back), and for the next window of a QP while it sends the
present one (prefetch: no wake, unless the turn ends before the read does).
transport/resp_engine asks for the window of a SEND's RECV WQE and waits for it (no wakes,
nothing reserved), and reads up to RQ_AHEAD windows after it ahead, into free slots only.

Which slot a fill or a new push takes: the first free one from a round-robin pointer (a
slot never used, or spent: its WQEs all sent), else the first from there of the ready ones
that are neither reserved nor protected. A slot read for a waiting QP is
reserved from its wake until that QP's turn begins (release): otherwise, with more QPs
waiting than slots, every window could be taken again before its QP's turn came, and no
turn would ever find its WQEs. Reserved slots and reads in flight are at most all the
slots, and each is released by a turn that comes (its QP is in the work FIFO, or its read
completes), so a turn that finds no slot to take only has to try again later. The slot a
turn sends from is protected while it does, and so are those whose WQEs transport/
req_build still reads (protect: a mask).

A window never holds a stale WQE: the host writes a ring slot again only once its WQE
completed, which is behind the consumer index of every turn and behind every rewind. A
turn retires the windows it went past: they are spent, still found by lookups (a rewind
goes back into them, and its WQEs need no read) but taken first. The pointer moves past
every slot taken, so a spent slot is taken within 2^SLOT_LOG fills or pushes, and none
lingers while its QP's 16-bit index comes round again (65536 WQEs take 8192 windows at
least). A command (hold: it may recreate a QP) drops every window, and every read in
flight when it completes.

The write port is shared: a pushed WQE is written at once, and a DMA beat waits that
cycle. Reads of the beats are combinational (distributed RAM).

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module wqe_fetch #
(
    // log2 of the windows held
    parameter SLOT_LOG = 3,
    // Datapath width (a WQE beat is 64 bytes)
    parameter DATA_WIDTH = 512
)
(
    input  wire                          clk,
    input  wire                          rst,

    // a command runs: drop every window
    input  wire                          hold,
    // no read in flight
    output wire                          idle,

    /*
     * Lookup: the window of QP l_qpn that holds WQE l_index
     */
    input  wire [23:0]                   l_qpn,
    input  wire [15:0]                   l_index,
    output wire                          l_hit,      // a ready window holds it
    output wire                          l_err,      // ... whose read failed
    output wire                          l_pend,     // a read in flight brings it
    output wire [SLOT_LOG-1:0]           l_slot,
    output wire [15:0]                   l_first,
    output wire [3:0]                    l_count,

    /*
     * Append lookup: a ready window of a_qpn that ends just before WQE a_index, with room
     */
    input  wire [23:0]                   a_qpn,
    input  wire [15:0]                   a_index,
    input  wire [3:0]                    a_max,
    output wire                          a_hit,
    output wire [2:0]                    a_count,    // (below a_max; a_max at most 8)

    /*
     * The slot a fill or a new push takes (never a slot set in protect)
     */
    input  wire [2**SLOT_LOG-1:0]        protect,
    output wire                          alloc_ok,
    output wire                          alloc_free, // ... without taking a ready window
    output wire [SLOT_LOG-1:0]           alloc_slot,
    output wire                          fill_ok,    // alloc_ok, and the read port free

    /*
     * Commands, all of QP c_qpn (several may come in one cycle, on different slots; a
     * fill and a new push not both: they take the same slot)
     */
    input  wire [23:0]                   c_qpn,
    // read WQEs c_fill_index .. + c_fill_count - 1 at c_fill_addr (c_fill_len bytes)
    input  wire                          c_fill,
    input  wire [15:0]                   c_fill_index,
    input  wire [3:0]                    c_fill_count,
    input  wire [63:0]                   c_fill_addr,
    input  wire [15:0]                   c_fill_len,
    input  wire                          c_fill_wake,
    // a pushed WQE: in a new slot (alloc_slot), or after the WQEs of the append lookup's
    // window (at beat c_push_beat)
    input  wire                          c_push_new,
    input  wire                          c_push_append,
    input  wire [15:0]                   c_push_index,
    input  wire [2:0]                    c_push_beat,
    input  wire [DATA_WIDTH-1:0]         c_push_data,
    // the QP waits for the read in flight in slot c_wake_slot
    input  wire                          c_wake,
    input  wire [SLOT_LOG-1:0]           c_wake_slot,
    // the QP's turn begins: its ready windows are no longer reserved
    input  wire                          c_release,
    // the QP's consumer index is c_retire_ci: its windows wholly before it are spent
    input  wire                          c_retire,
    input  wire [15:0]                   c_retire_ci,

    /*
     * Beat reads ({slot, beat})
     */
    input  wire [SLOT_LOG+2:0]           r_addr_0,
    input  wire [SLOT_LOG+2:0]           r_addr_1,
    input  wire [SLOT_LOG+2:0]           r_addr_2,
    input  wire [SLOT_LOG+2:0]           r_addr_3,
    output wire [DATA_WIDTH-1:0]         r_data_0,
    output wire [DATA_WIDTH-1:0]         r_data_1,
    output wire [DATA_WIDTH-1:0]         r_data_2,
    output wire [DATA_WIDTH-1:0]         r_data_3,

    /*
     * Wakes: the QP a completed read gives its turn back to
     */
    output wire [23:0]                   m_wake_qpn,
    output wire                          m_wake_valid,
    input  wire                          m_wake_ready,

    /*
     * DMA read client, aligned
     */
    output wire [63:0]                   m_rd_req_addr,
    output wire [15:0]                   m_rd_req_len,
    output wire                          m_rd_req_valid,
    input  wire                          m_rd_req_ready,
    input  wire [DATA_WIDTH-1:0]         s_rd_axis_tdata,
    input  wire                          s_rd_axis_tvalid,
    output wire                          s_rd_axis_tready,
    input  wire                          s_rd_axis_tlast,
    input  wire                          s_rd_axis_tuser
);

localparam SLOTS = 2**SLOT_LOG;

initial begin
    if (DATA_WIDTH != 512) begin
        $error("Error: %m: WQE beats are 512 bits (DATA_WIDTH=%0d)", DATA_WIDTH);
        $finish;
    end
end

/*
 * Tags, one field of each slot per vector
 */
reg [SLOTS-1:0] valid_reg = {SLOTS{1'b0}}, valid_next;  // ready: its beats are written
reg [SLOTS-1:0] pend_reg = {SLOTS{1'b0}}, pend_next;    // its read is in flight
reg [SLOTS-1:0] err_reg = {SLOTS{1'b0}}, err_next;      // its read failed
reg [SLOTS-1:0] wake_reg = {SLOTS{1'b0}}, wake_next;    // its QP waits for it
reg [SLOTS-1:0] resv_reg = {SLOTS{1'b0}}, resv_next;    // kept for its QP's turn
reg [SLOTS-1:0] drop_reg = {SLOTS{1'b0}}, drop_next;    // a command ran while in flight
reg [SLOTS-1:0] spent_reg = {SLOTS{1'b0}}, spent_next;  // ready, its WQEs all sent
reg [SLOTS*24-1:0] qpn_reg = {SLOTS*24{1'b0}}, qpn_next;
reg [SLOTS*16-1:0] first_reg = {SLOTS*16{1'b0}}, first_next;
reg [SLOTS*4-1:0] count_reg = {SLOTS*4{1'b0}}, count_next;

reg [SLOT_LOG-1:0] rr_reg = {SLOT_LOG{1'b0}}, rr_next;  // where the victims' search starts

// the read request
reg req_valid_reg = 1'b0, req_valid_next;
reg [63:0] req_addr_reg = 64'd0, req_addr_next;
reg [15:0] req_len_reg = 16'd0, req_len_next;

// the slots of the reads in flight, in issue order, and the beat of the oldest
reg [SLOT_LOG-1:0] ord_mem [0:SLOTS-1];
reg [SLOT_LOG:0] ord_wr_reg = {SLOT_LOG+1{1'b0}}, ord_wr_next;
reg [SLOT_LOG:0] ord_rd_reg = {SLOT_LOG+1{1'b0}}, ord_rd_next;
reg [2:0] beat_reg = 3'd0, beat_next;

reg [DATA_WIDTH-1:0] mem [0:SLOTS*8-1];

wire ord_empty = ord_wr_reg == ord_rd_reg;
wire [SLOT_LOG-1:0] head = ord_mem[ord_rd_reg[SLOT_LOG-1:0]];

/*
 * Lookups
 */
reg [SLOTS-1:0] l_match, a_match, free_vec, take_vec;
reg l_found, l_pend_found, a_found;
reg [SLOT_LOG-1:0] l_sel, a_sel;
reg [15:0] l_k;
integer i;

always @* begin
    l_match = {SLOTS{1'b0}};
    a_match = {SLOTS{1'b0}};
    for (i = 0; i < SLOTS; i = i + 1) begin
        l_k = l_index - first_reg[i*16 +: 16];
        l_match[i] = (valid_reg[i] || pend_reg[i]) && qpn_reg[i*24 +: 24] == l_qpn &&
                     l_k < {12'd0, count_reg[i*4 +: 4]};
        a_match[i] = valid_reg[i] && !err_reg[i] && qpn_reg[i*24 +: 24] == a_qpn &&
                     a_index - first_reg[i*16 +: 16] == {12'd0, count_reg[i*4 +: 4]} &&
                     count_reg[i*4 +: 4] < a_max;
        free_vec[i] = (!valid_reg[i] || spent_reg[i]) && !pend_reg[i];
        take_vec[i] = !pend_reg[i] && !(valid_reg[i] && resv_reg[i]);
        if (protect[i]) begin
            free_vec[i] = 1'b0;
            take_vec[i] = 1'b0;
        end
    end
    // a ready window before one on the way (two may hold a WQE after a rewind)
    l_found = 1'b0;
    l_pend_found = 1'b0;
    l_sel = {SLOT_LOG{1'b0}};
    for (i = SLOTS - 1; i >= 0; i = i - 1) begin
        if (l_match[i] && pend_reg[i] && !l_found) begin
            l_pend_found = 1'b1;
            l_sel = i[SLOT_LOG-1:0];
        end
    end
    for (i = SLOTS - 1; i >= 0; i = i - 1) begin
        if (l_match[i] && valid_reg[i]) begin
            l_found = 1'b1;
            l_sel = i[SLOT_LOG-1:0];
        end
    end
    a_found = 1'b0;
    a_sel = {SLOT_LOG{1'b0}};
    for (i = SLOTS - 1; i >= 0; i = i - 1) begin
        if (a_match[i]) begin
            a_found = 1'b1;
            a_sel = i[SLOT_LOG-1:0];
        end
    end
end

assign l_hit = l_found;
assign l_pend = l_pend_found && !l_found;
assign l_slot = l_sel;
assign l_err = err_reg[l_sel];
assign l_first = first_reg[l_sel*16 +: 16];
assign l_count = count_reg[l_sel*4 +: 4];
assign a_hit = a_found;
assign a_count = count_reg[a_sel*4 +: 3];

/*
 * Allocation: the first free slot from rr on, else the first slot to take
 */
reg free_found;
reg [SLOT_LOG-1:0] alloc_sel, victim;
reg [SLOT_LOG-1:0] cand;
reg victim_found;

always @* begin
    free_found = 1'b0;
    alloc_sel = {SLOT_LOG{1'b0}};
    for (i = SLOTS - 1; i >= 0; i = i - 1) begin
        cand = rr_reg + i[SLOT_LOG-1:0];
        if (free_vec[cand]) begin
            free_found = 1'b1;
            alloc_sel = cand;
        end
    end
    victim = {SLOT_LOG{1'b0}};
    victim_found = 1'b0;
    for (i = SLOTS - 1; i >= 0; i = i - 1) begin
        cand = rr_reg + i[SLOT_LOG-1:0];
        if (take_vec[cand]) begin
            victim_found = 1'b1;
            victim = cand;
        end
    end
    if (!free_found) begin
        alloc_sel = victim;
    end
end

assign alloc_ok = free_found || victim_found;
assign alloc_free = free_found;
assign alloc_slot = alloc_sel;
assign fill_ok = alloc_ok && !req_valid_reg;

/*
 * Beats in: a pushed WQE has the write port; the last beat of a read that wakes its QP
 * goes only with the wake
 */
wire push_wr = c_push_new || c_push_append;
wire head_wake = wake_reg[head] || (c_wake && c_wake_slot == head);
wire beat_go = !ord_empty && !push_wr && s_rd_axis_tvalid &&
               (!s_rd_axis_tlast || !head_wake || m_wake_ready);
reg [SLOT_LOG+2:0] mem_wr_addr;
reg [DATA_WIDTH-1:0] mem_wr_data;
reg mem_wr_en;
reg [15:0] r_k;

always @* begin
    valid_next = valid_reg;
    pend_next = pend_reg;
    err_next = err_reg;
    wake_next = wake_reg;
    resv_next = resv_reg;
    drop_next = drop_reg;
    spent_next = spent_reg;
    qpn_next = qpn_reg;
    first_next = first_reg;
    count_next = count_reg;
    rr_next = rr_reg;
    req_valid_next = req_valid_reg && !m_rd_req_ready;
    req_addr_next = req_addr_reg;
    req_len_next = req_len_reg;
    ord_wr_next = ord_wr_reg;
    ord_rd_next = ord_rd_reg;
    beat_next = beat_reg;

    mem_wr_en = 1'b0;
    mem_wr_addr = {head, beat_reg};
    mem_wr_data = s_rd_axis_tdata;
    r_k = 16'd0;

    // the QP's turn: its ready windows are its to lose now
    if (c_release) begin
        for (i = 0; i < SLOTS; i = i + 1) begin
            if (valid_reg[i] && qpn_reg[i*24 +: 24] == c_qpn) begin
                resv_next[i] = 1'b0;
            end
        end
    end
    // windows wholly before the consumer index are done with
    if (c_retire) begin
        for (i = 0; i < SLOTS; i = i + 1) begin
            r_k = c_retire_ci - first_reg[i*16 +: 16];
            if (valid_reg[i] && qpn_reg[i*24 +: 24] == c_qpn &&
                r_k >= {12'd0, count_reg[i*4 +: 4]} && !r_k[15]) begin
                spent_next[i] = 1'b1;
                resv_next[i] = 1'b0;
            end
        end
    end
    if (c_wake) begin
        wake_next[c_wake_slot] = 1'b1;
        resv_next[c_wake_slot] = 1'b1;
    end

    // a beat of the oldest read in flight
    if (beat_go) begin
        mem_wr_en = 1'b1;
        beat_next = beat_reg + 3'd1;
        if (s_rd_axis_tlast) begin
            beat_next = 3'd0;
            ord_rd_next = ord_rd_reg + 1'b1;
            pend_next[head] = 1'b0;
            wake_next[head] = 1'b0;
            valid_next[head] = !drop_reg[head] && !hold;
            err_next[head] = s_rd_axis_tuser;
            drop_next[head] = 1'b0;
        end
    end

    if (c_fill || c_push_new) begin
        rr_next = alloc_sel + 1'b1;
        spent_next[alloc_sel] = 1'b0;
        qpn_next[alloc_sel*24 +: 24] = c_qpn;
        err_next[alloc_sel] = 1'b0;
        drop_next[alloc_sel] = 1'b0;
        if (c_fill) begin
            valid_next[alloc_sel] = 1'b0;
            pend_next[alloc_sel] = 1'b1;
            wake_next[alloc_sel] = c_fill_wake;
            resv_next[alloc_sel] = c_fill_wake;
            first_next[alloc_sel*16 +: 16] = c_fill_index;
            count_next[alloc_sel*4 +: 4] = c_fill_count;
            req_valid_next = 1'b1;
            req_addr_next = c_fill_addr;
            req_len_next = c_fill_len;
            ord_wr_next = ord_wr_reg + 1'b1;
        end else begin
            valid_next[alloc_sel] = 1'b1;
            wake_next[alloc_sel] = 1'b0;
            resv_next[alloc_sel] = 1'b0;
            first_next[alloc_sel*16 +: 16] = c_push_index;
            count_next[alloc_sel*4 +: 4] = 4'd1;
            mem_wr_en = 1'b1;
            mem_wr_addr = {alloc_sel, 3'd0};
            mem_wr_data = c_push_data;
        end
    end
    if (c_push_append) begin
        // (a spent window that takes a new WQE is not spent any more)
        spent_next[a_sel] = 1'b0;
        count_next[a_sel*4 +: 4] = count_reg[a_sel*4 +: 4] + 4'd1;
        mem_wr_en = 1'b1;
        mem_wr_addr = {a_sel, c_push_beat};
        mem_wr_data = c_push_data;
    end

    // a command may recreate a QP: no window survives it
    if (hold) begin
        valid_next = {SLOTS{1'b0}};
        resv_next = {SLOTS{1'b0}};
        spent_next = {SLOTS{1'b0}};
        drop_next = pend_next;
    end
end

always @(posedge clk) begin
    valid_reg <= valid_next;
    pend_reg <= pend_next;
    err_reg <= err_next;
    wake_reg <= wake_next;
    resv_reg <= resv_next;
    drop_reg <= drop_next;
    spent_reg <= spent_next;
    qpn_reg <= qpn_next;
    first_reg <= first_next;
    count_reg <= count_next;
    rr_reg <= rr_next;
    req_valid_reg <= req_valid_next;
    req_addr_reg <= req_addr_next;
    req_len_reg <= req_len_next;
    ord_wr_reg <= ord_wr_next;
    ord_rd_reg <= ord_rd_next;
    beat_reg <= beat_next;

    if (c_fill) begin
        ord_mem[ord_wr_reg[SLOT_LOG-1:0]] <= alloc_sel;
    end
    if (mem_wr_en) begin
        mem[mem_wr_addr] <= mem_wr_data;
    end

    if (rst) begin
        valid_reg <= {SLOTS{1'b0}};
        pend_reg <= {SLOTS{1'b0}};
        wake_reg <= {SLOTS{1'b0}};
        resv_reg <= {SLOTS{1'b0}};
        drop_reg <= {SLOTS{1'b0}};
        rr_reg <= {SLOT_LOG{1'b0}};
        req_valid_reg <= 1'b0;
        ord_wr_reg <= {SLOT_LOG+1{1'b0}};
        ord_rd_reg <= {SLOT_LOG+1{1'b0}};
        beat_reg <= 3'd0;
    end
end

assign idle = pend_reg == {SLOTS{1'b0}} && !req_valid_reg;

assign r_data_0 = mem[r_addr_0];
assign r_data_1 = mem[r_addr_1];
assign r_data_2 = mem[r_addr_2];
assign r_data_3 = mem[r_addr_3];

assign m_wake_qpn = qpn_reg[head*24 +: 24];
assign m_wake_valid = !ord_empty && !push_wr && s_rd_axis_tvalid && s_rd_axis_tlast &&
                      head_wake;

assign m_rd_req_addr = req_addr_reg;
assign m_rd_req_len = req_len_reg;
assign m_rd_req_valid = req_valid_reg;
assign s_rd_axis_tready = !ord_empty && !push_wr &&
                          (!s_rd_axis_tlast || !head_wake || m_wake_ready);

endmodule

`resetall
