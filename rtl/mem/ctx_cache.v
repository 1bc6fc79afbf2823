/*

Context cache: the on-chip copies of one engine's contexts (QP or CQ) whose home is a
host-memory table indexed by number.

    lookup(index) --> hit: the line, a cycle later
                  --> miss: read the entry into a free or the least recently used way, fill
    update(index, line) --> the line, marked dirty (written back on eviction or invalidation)
    invalidate(index)   --> written back if dirty, then gone; done once it is in memory

The table is not assumed small (up to 2^24 entries): the cache is set-associative, 2^CACHE_LOG
lines in 2^(CACHE_LOG-WAY_LOG) sets of 2^WAY_LOG ways, the set being the index's low bits.
A miss takes a free way of the set, else the least recently used one (a pseudo-LRU tree per
set: one bit for two ways, three for four). The lines are one RAM of 2^CACHE_LOG x LINE_BYTES
(block RAM: one read port, registered, and one write port); the tags (the whole index), the
valid and dirty bits and the LRU bits are small enough for distributed RAM and registers,
and are read at once, so that a hit answers a cycle after the lookup is taken.

An engine owns only part of an entry (the requester and the responder each their own bytes
of a QP context, the command engine the static beat): on write-back the cache writes just
WB_BYTES at WB_OFFSET, so that two caches holding the same entry never overwrite each
other's fields.

An engine looks up a context, then updates it before its next lookup, and the command
engine invalidates only while every engine is idle; so an update normally hits. An update
that misses (its line was taken meanwhile) installs the line, evicting the occupant.

Eviction: a dirty line that must make room (for a lookup's fill or an update's install) is
written back first, before the operation is taken: its owned bytes go to a write-back
buffer, the line becomes free, and the operation is looked at again. The write-back then
runs beside whatever comes next (a fill of another entry need not wait for it), with these
rules, which keep a read of an entry from ever passing its write-back:
 - one write-back is in flight at a time: the next eviction waits for its completion;
 - a fill of the entry whose write-back is in flight waits for that completion;
 - an invalidation is done only once no write-back is in flight (its own, or an earlier
   eviction of the same entry).

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module ctx_cache #
(
    // Host bus data width (a beat)
    parameter DATA_WIDTH = 512,
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // Bytes of a table entry (a power of two, one to four beats)
    parameter LINE_BYTES = 128,
    // The bytes of an entry this cache's engine owns and writes back (within one beat)
    parameter WB_OFFSET = 64,
    parameter WB_BYTES = 32,
    // log2 of the lines held
    parameter CACHE_LOG = 4,
    // log2 of the ways of a set (1: two ways, 2: four ways)
    parameter WAY_LOG = 1,
    // Width of a line
    parameter LINE_WIDTH = LINE_BYTES*8
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Table: IOVA of entry 0, log2 of the entries (0: no table)
     */
    input  wire [63:0]                   cfg_base,
    input  wire [4:0]                    cfg_log,

    /*
     * Lookup: status 0 = ok, 1 = the entry could not be read, 2 = no such entry
     */
    input  wire [23:0]                   s_lookup_index,
    input  wire                          s_lookup_valid,
    output wire                          s_lookup_ready,
    output wire [LINE_WIDTH-1:0]         m_lookup_data,
    output wire [1:0]                    m_lookup_status,
    output wire                          m_lookup_valid,
    input  wire                          m_lookup_ready,

    /*
     * Update: the whole line as the engine has it now
     */
    input  wire [23:0]                   s_update_index,
    input  wire [LINE_WIDTH-1:0]         s_update_data,
    input  wire                          s_update_valid,
    output wire                          s_update_ready,

    /*
     * Invalidation (the command engine)
     */
    input  wire [23:0]                   s_inval_num,
    input  wire                          s_inval_valid,
    output wire                          s_inval_ready,
    output wire                          inval_done,

    /*
     * DMA read client (aligned)
     */
    output wire [63:0]                   m_rd_req_addr,
    output wire [15:0]                   m_rd_req_len,
    output wire                          m_rd_req_valid,
    input  wire                          m_rd_req_ready,
    input  wire [DATA_WIDTH-1:0]         s_rd_axis_tdata,
    input  wire                          s_rd_axis_tvalid,
    output wire                          s_rd_axis_tready,
    input  wire                          s_rd_axis_tlast,
    input  wire                          s_rd_axis_tuser,

    /*
     * DMA write client (byte stream)
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
     * Statistics: a lookup of an entry in the table found its line (hit) or had to read
     * it (miss); a dirty line was written back (evicted, or invalidated): a cycle pulse each
     */
    output wire                          stat_hit,
    output wire                          stat_miss,
    output wire                          stat_writeback
);

localparam LINES = 2**CACHE_LOG;
localparam WAYS = 2**WAY_LOG;
localparam SET_LOG = CACHE_LOG - WAY_LOG;
localparam BEATS = LINE_BYTES / (DATA_WIDTH/8);
localparam LOG_LINE_BYTES = $clog2(LINE_BYTES);
// pseudo-LRU bits of a set: a tree of WAYS-1 (two ways use bit 0 only)
localparam LRU_BITS = 3;

initial begin
    if (BEATS < 1 || BEATS > 4 || LINE_BYTES != (1 << LOG_LINE_BYTES)) begin
        $error("Error: %m: an entry is one to four beats (LINE_BYTES=%0d)", LINE_BYTES);
        $finish;
    end
    if (WB_BYTES < 1 || WB_OFFSET % (DATA_WIDTH/8) + WB_BYTES > DATA_WIDTH/8) begin
        $error("Error: %m: the owned bytes must lie within one beat");
        $finish;
    end
    if (WAY_LOG < 1 || WAY_LOG > 2 || SET_LOG < 1 || SET_LOG > 24) begin
        $error("Error: %m: 2 or 4 ways, and 2 to 2^24 sets (CACHE_LOG=%0d, WAY_LOG=%0d)",
            CACHE_LOG, WAY_LOG);
        $finish;
    end
end

localparam [2:0]
    STATE_IDLE = 3'd0,
    STATE_RESP = 3'd1,
    STATE_EVICT = 3'd2,
    STATE_READ = 3'd3,
    STATE_READ_DATA = 3'd4,
    STATE_FILLED = 3'd5,
    STATE_INVAL_WAIT = 3'd6;

localparam [1:0] ST_OK = 2'd0, ST_DMA_ERROR = 2'd1, ST_NO_ENTRY = 2'd2;

// the lines, at {way, set}
reg [LINE_WIDTH-1:0] line_mem [0:LINES-1];
reg [23:0] tag_mem [0:LINES-1];
reg [LRU_BITS-1:0] lru_mem [0:2**SET_LOG-1];
reg [LINES-1:0] valid_reg = {LINES{1'b0}};
reg [LINES-1:0] dirty_reg = {LINES{1'b0}};
// one line's valid and dirty bits written a cycle (a single decoded write, not a rewrite of
// the whole vector)
reg vd_we;
reg [CACHE_LOG-1:0] vd_line;
reg vd_valid, vd_dirty;

reg [2:0] state_reg = STATE_IDLE, state_next;
// the operation taken (an invalidation's entry, or a lookup's), and the line it works on
reg inval_reg = 1'b0, inval_next;
reg [23:0] index_reg = 24'd0, index_next;
reg [CACHE_LOG-1:0] line_reg = {CACHE_LOG{1'b0}}, line_next;
reg [1:0] way_reg = 2'd0, way_next;
reg [1:0] status_reg = ST_OK, status_next;
reg read_error_reg = 1'b0, read_error_next;
reg rd_req_valid_reg = 1'b0, rd_req_valid_next;
reg inval_done_reg = 1'b0, inval_done_next;
reg stat_hit_reg = 1'b0, stat_hit_next;
reg stat_miss_reg = 1'b0, stat_miss_next;
reg stat_wb_reg = 1'b0;

// the write-back in flight: its entry and owned bytes
reg wb_busy_reg = 1'b0, wb_busy_next;
reg [23:0] wb_index_reg = 24'd0, wb_index_next;
reg [DATA_WIDTH-1:0] wb_buf_reg = {DATA_WIDTH{1'b0}};
reg wb_load;
reg wr_req_valid_reg = 1'b0, wr_req_valid_next;
reg wr_data_valid_reg = 1'b0, wr_data_valid_next;

// the line RAM's ports
reg ram_rd_en;
reg [CACHE_LOG-1:0] ram_rd_addr;
reg [LINE_WIDTH-1:0] ram_rd_data_reg = {LINE_WIDTH{1'b0}};
reg ram_wr_en;
reg [CACHE_LOG-1:0] ram_wr_addr;
reg [LINE_WIDTH-1:0] ram_wr_data;
reg [23:0] ram_wr_tag;
// the LRU bits of a set, when one of its ways is used
reg lru_wr_en;
reg [SET_LOG-1:0] lru_wr_set;
reg [LRU_BITS-1:0] lru_wr_data;

function in_table(input [23:0] index, input [4:0] log);
    begin
        in_table = log != 5'd0 && ({8'd0, index} >> log) == 32'd0;
    end
endfunction

function [63:0] entry_addr(input [23:0] index);
    begin
        entry_addr = cfg_base + ({40'd0, index} << LOG_LINE_BYTES);
    end
endfunction

// the way the pseudo-LRU tree points at (the least recently used, near enough)
function [1:0] lru_victim(input [LRU_BITS-1:0] bits);
    begin
        if (WAYS == 2) begin
            lru_victim = {1'b0, bits[0]};
        end else begin
            lru_victim = bits[0] ? {1'b1, bits[2]} : {1'b0, bits[1]};
        end
    end
endfunction

// the tree after a use of way w: every bit on w's path points away from it
function [LRU_BITS-1:0] lru_touch(input [LRU_BITS-1:0] bits, input [1:0] w);
    begin
        lru_touch = bits;
        if (WAYS == 2) begin
            lru_touch[0] = !w[0];
        end else if (WAYS == 4) begin
            lru_touch[0] = !w[1];
            if (w[1]) begin
                lru_touch[2] = !w[0];
            end else begin
                lru_touch[1] = !w[0];
            end
        end
    end
endfunction

// the line of way w in a set
function [CACHE_LOG-1:0] line_of(input [1:0] w, input [SET_LOG-1:0] set);
    begin
        line_of = ({{(CACHE_LOG-2){1'b0}}, w} << SET_LOG) | {{WAY_LOG{1'b0}}, set};
    end
endfunction

/*
 * The set of the operation offered (an invalidation first, then an update, then a lookup),
 * and what its ways hold
 */
wire [23:0] acc_index = s_inval_valid ? s_inval_num :
                        s_update_valid ? s_update_index : s_lookup_index;
wire [SET_LOG-1:0] acc_set = acc_index[SET_LOG-1:0];
wire [LRU_BITS-1:0] acc_lru = lru_mem[acc_set];
// the tags of the set's ways, way 0 at the bottom
wire [WAYS*24-1:0] acc_tags;
genvar gw;
generate
    for (gw = 0; gw < WAYS; gw = gw + 1) begin : way_tag
        assign acc_tags[gw*24 +: 24] = tag_mem[line_of(gw, acc_set)];
    end
endgenerate
// the tag of the line an operation works on, and the LRU bits of its set
wire [23:0] line_tag = tag_mem[line_reg];
wire [LRU_BITS-1:0] line_lru = lru_mem[index_reg[SET_LOG-1:0]];

reg acc_hit;
reg [1:0] acc_hit_way;
reg acc_free;
reg [1:0] acc_free_way;
integer w;
always @* begin
    acc_hit = 1'b0;
    acc_hit_way = 2'd0;
    acc_free = 1'b0;
    acc_free_way = 2'd0;
    for (w = WAYS-1; w >= 0; w = w - 1) begin
        if (valid_reg[line_of(w[1:0], acc_set)] && acc_tags[w*24 +: 24] == acc_index) begin
            acc_hit = 1'b1;
            acc_hit_way = w[1:0];
        end
        if (!valid_reg[line_of(w[1:0], acc_set)]) begin
            acc_free = 1'b1;
            acc_free_way = w[1:0];
        end
    end
end

// a miss takes a free way, else the LRU one, which must be written back first if dirty
wire [1:0] acc_victim_way = acc_free ? acc_free_way : lru_victim(acc_lru);
wire [1:0] acc_way = acc_hit ? acc_hit_way : acc_victim_way;
wire [CACHE_LOG-1:0] acc_line = line_of(acc_way, acc_set);
wire acc_victim_dirty = !acc_hit && valid_reg[acc_line] && dirty_reg[acc_line];

// a fill shifts the beats in from the top: after the last beat (straight from the bus) the
// first is at the bottom
wire [LINE_WIDTH-1:0] fill_data;
generate
    if (BEATS > 1) begin : fill_n
        reg [LINE_WIDTH-DATA_WIDTH-1:0] fill_reg = {(LINE_WIDTH-DATA_WIDTH){1'b0}};
        assign fill_data = {s_rd_axis_tdata, fill_reg};
        always @(posedge clk) begin
            if (s_rd_axis_tvalid && s_rd_axis_tready) begin
                fill_reg <= fill_data[LINE_WIDTH-1:DATA_WIDTH];
            end
        end
    end else begin : fill1
        assign fill_data = s_rd_axis_tdata;
    end
endgenerate

always @* begin
    state_next = state_reg;
    inval_next = inval_reg;
    index_next = index_reg;
    line_next = line_reg;
    way_next = way_reg;
    status_next = status_reg;
    read_error_next = read_error_reg;
    vd_we = 1'b0;
    vd_line = acc_line;
    vd_valid = 1'b0;
    vd_dirty = 1'b0;
    rd_req_valid_next = rd_req_valid_reg && !m_rd_req_ready;
    wr_req_valid_next = wr_req_valid_reg && !m_wr_req_ready;
    wr_data_valid_next = wr_data_valid_reg && !m_wr_axis_tready;
    wb_busy_next = wb_busy_reg && !s_wr_done_valid;
    wb_index_next = wb_index_reg;
    wb_load = 1'b0;
    inval_done_next = 1'b0;
    stat_hit_next = 1'b0;
    stat_miss_next = 1'b0;

    ram_rd_en = 1'b0;
    ram_rd_addr = acc_line;
    ram_wr_en = 1'b0;
    ram_wr_addr = acc_line;
    ram_wr_data = s_update_data;
    ram_wr_tag = s_update_index;
    lru_wr_en = 1'b0;
    lru_wr_set = acc_set;
    lru_wr_data = lru_touch(acc_lru, acc_way);

    case (state_reg)
        STATE_IDLE: begin
            // the line of the operation offered is read in every idle cycle: the hit's
            // answer, or the dirty victim to write back
            ram_rd_en = s_inval_valid || s_update_valid || s_lookup_valid;
            line_next = acc_line;
            way_next = acc_way;
            index_next = acc_index;
            if (s_inval_valid) begin
                inval_next = 1'b1;
                if (acc_hit && dirty_reg[acc_line]) begin
                    state_next = STATE_EVICT;
                end else begin
                    // a clean hit is dropped at once
                    vd_we = acc_hit;
                    state_next = STATE_INVAL_WAIT;
                end
            end else if (s_update_valid || s_lookup_valid) begin
                inval_next = 1'b0;
                if (s_lookup_valid && !s_update_valid && !in_table(acc_index, cfg_log)) begin
                    status_next = ST_NO_ENTRY;
                    state_next = STATE_RESP;
                end else if (acc_victim_dirty) begin
                    // not taken yet: the victim goes first
                    state_next = STATE_EVICT;
                end else if (s_update_valid) begin
                    // install or overwrite at once
                    ram_wr_en = 1'b1;
                    vd_we = 1'b1;
                    vd_valid = 1'b1;
                    vd_dirty = 1'b1;
                    lru_wr_en = 1'b1;
                end else if (acc_hit) begin
                    status_next = ST_OK;
                    stat_hit_next = 1'b1;
                    lru_wr_en = 1'b1;
                    state_next = STATE_RESP;
                end else begin
                    // the way's clean occupant, if any, is dropped now
                    vd_we = 1'b1;
                    stat_miss_next = 1'b1;
                    state_next = STATE_READ;
                end
            end
        end
        STATE_RESP: begin
            if (m_lookup_ready) begin
                state_next = STATE_IDLE;
            end
        end
        STATE_EVICT: begin
            // the victim's line is out of the RAM: its owned bytes go to the write-back
            // buffer once the one before is complete, and the line is free
            if (!wb_busy_reg) begin
                wb_load = 1'b1;
                wb_busy_next = 1'b1;
                wb_index_next = line_tag;
                wr_req_valid_next = 1'b1;
                wr_data_valid_next = 1'b1;
                vd_we = 1'b1;
                vd_line = line_reg;
                state_next = inval_reg ? STATE_INVAL_WAIT : STATE_IDLE;
            end
        end
        STATE_READ: begin
            // never before the write-back of the same entry is in memory
            if (!wb_busy_reg || wb_index_reg != index_reg) begin
                rd_req_valid_next = 1'b1;
                read_error_next = 1'b0;
                state_next = STATE_READ_DATA;
            end
        end
        STATE_READ_DATA: begin
            if (s_rd_axis_tvalid) begin
                read_error_next = read_error_reg || s_rd_axis_tuser;
                if (s_rd_axis_tlast) begin
                    if (read_error_reg || s_rd_axis_tuser) begin
                        status_next = ST_DMA_ERROR;
                        state_next = STATE_RESP;
                    end else begin
                        status_next = ST_OK;
                        ram_wr_en = 1'b1;
                        ram_wr_addr = line_reg;
                        ram_wr_data = fill_data;
                        ram_wr_tag = index_reg;
                        vd_we = 1'b1;
                        vd_line = line_reg;
                        vd_valid = 1'b1;
                        lru_wr_en = 1'b1;
                        lru_wr_set = index_reg[SET_LOG-1:0];
                        lru_wr_data = lru_touch(line_lru, way_reg);
                        state_next = STATE_FILLED;
                    end
                end
            end
        end
        STATE_FILLED: begin
            // the answer comes out of the RAM, as a hit's does
            ram_rd_en = 1'b1;
            ram_rd_addr = line_reg;
            state_next = STATE_RESP;
        end
        STATE_INVAL_WAIT: begin
            if (!wb_busy_reg) begin
                inval_done_next = 1'b1;
                state_next = STATE_IDLE;
            end
        end
        default: state_next = STATE_IDLE;
    endcase
end

always @(posedge clk) begin
    state_reg <= state_next;
    inval_reg <= inval_next;
    index_reg <= index_next;
    line_reg <= line_next;
    way_reg <= way_next;
    status_reg <= status_next;
    read_error_reg <= read_error_next;
    if (vd_we) begin
        valid_reg[vd_line] <= vd_valid;
        dirty_reg[vd_line] <= vd_dirty;
    end
    rd_req_valid_reg <= rd_req_valid_next;
    inval_done_reg <= inval_done_next;
    stat_hit_reg <= stat_hit_next;
    stat_miss_reg <= stat_miss_next;
    stat_wb_reg <= wb_load;
    wb_busy_reg <= wb_busy_next;
    wb_index_reg <= wb_index_next;
    wr_req_valid_reg <= wr_req_valid_next;
    wr_data_valid_reg <= wr_data_valid_next;

    if (wb_load) begin
        wb_buf_reg <= wb_data[DATA_WIDTH-1:0];
    end

    if (rst) begin
        state_reg <= STATE_IDLE;
        valid_reg <= {LINES{1'b0}};
        dirty_reg <= {LINES{1'b0}};
        rd_req_valid_reg <= 1'b0;
        inval_done_reg <= 1'b0;
        stat_hit_reg <= 1'b0;
        stat_miss_reg <= 1'b0;
        stat_wb_reg <= 1'b0;
        wb_busy_reg <= 1'b0;
        wr_req_valid_reg <= 1'b0;
        wr_data_valid_reg <= 1'b0;
    end
end

// the RAMs: the lines (one registered read port, one write port), the tags and LRU bits
always @(posedge clk) begin
    if (ram_rd_en) begin
        ram_rd_data_reg <= line_mem[ram_rd_addr];
    end
    if (ram_wr_en) begin
        line_mem[ram_wr_addr] <= ram_wr_data;
    end
end

always @(posedge clk) begin
    if (ram_wr_en) begin
        tag_mem[ram_wr_addr] <= ram_wr_tag;
    end
end

always @(posedge clk) begin
    if (lru_wr_en) begin
        lru_mem[lru_wr_set] <= lru_wr_data;
    end
end

// the owned bytes of the victim's line, from lane 0
wire [LINE_WIDTH-1:0] wb_data = ram_rd_data_reg >> (WB_OFFSET*8);

wire idle = state_reg == STATE_IDLE;
// an update or a lookup whose victim must be written back first is not taken yet
wire take = idle && !acc_victim_dirty;

assign s_inval_ready = idle && s_inval_valid;
assign s_update_ready = take && !s_inval_valid && s_update_valid;
assign s_lookup_ready = idle && !s_inval_valid && !s_update_valid &&
                        (!acc_victim_dirty || !in_table(s_lookup_index, cfg_log));
assign inval_done = inval_done_reg;
assign stat_hit = stat_hit_reg;
assign stat_miss = stat_miss_reg;
assign stat_writeback = stat_wb_reg;

assign m_lookup_data = ram_rd_data_reg;
assign m_lookup_status = status_reg;
assign m_lookup_valid = state_reg == STATE_RESP;

assign m_rd_req_addr = entry_addr(index_reg);
assign m_rd_req_len = LINE_BYTES[15:0];
assign m_rd_req_valid = rd_req_valid_reg;
assign s_rd_axis_tready = state_reg == STATE_READ_DATA;

assign m_wr_req_addr = entry_addr(wb_index_reg) + {48'd0, WB_OFFSET[15:0]};
assign m_wr_req_len = WB_BYTES[15:0];
assign m_wr_req_valid = wr_req_valid_reg;
assign m_wr_axis_tdata = wb_buf_reg;
assign m_wr_axis_tkeep = {KEEP_WIDTH{1'b1}} >> (KEEP_WIDTH - WB_BYTES);
assign m_wr_axis_tvalid = wr_data_valid_reg;
assign m_wr_axis_tlast = 1'b1;

endmodule

`resetall
