/*

Context cache: the on-chip copies of one engine's contexts (QP or CQ) whose home is a
host-memory table indexed by number.

    lookup(index) --> hit: the line, a cycle later
                  --> miss: write the line's occupant back if dirty, read the entry, fill
    update(index, line) --> the line, marked dirty (written back on eviction or invalidation)
    invalidate(index)   --> written back if dirty, then gone; done once it is in memory

The table is not assumed small: a direct-mapped cache of 2^CACHE_LOG lines in front of a
table of up to 2^24 entries. An engine owns only part of an entry (the requester and the
responder each their own bytes of a QP context, the command engine the static beat): on
write-back the cache writes just WB_BYTES at WB_OFFSET, so that two caches holding the same
entry never overwrite each other's fields.

An engine looks up a context, then updates it before its next lookup, and the command
engine invalidates only while every engine is idle; so an update normally hits. An update
that misses (its line was taken meanwhile) installs the line, evicting the occupant.

A write-back is complete (its DMA write answered) before the cache reads anything else, so
that a read of the same entry never passes the write.

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
     * it (miss), a cycle pulse each
     */
    output wire                          stat_hit,
    output wire                          stat_miss
);

localparam LINES = 2**CACHE_LOG;
localparam BEATS = LINE_BYTES / (DATA_WIDTH/8);
localparam LOG_LINE_BYTES = $clog2(LINE_BYTES);

initial begin
    if (BEATS < 1 || BEATS > 4 || LINE_BYTES != (1 << LOG_LINE_BYTES)) begin
        $error("Error: %m: an entry is one to four beats (LINE_BYTES=%0d)", LINE_BYTES);
        $finish;
    end
    if (WB_BYTES < 1 || WB_OFFSET % (DATA_WIDTH/8) + WB_BYTES > DATA_WIDTH/8) begin
        $error("Error: %m: the owned bytes must lie within one beat");
        $finish;
    end
end

localparam [3:0]
    STATE_IDLE = 4'd0,
    STATE_RESP = 4'd1,
    STATE_WB = 4'd2,
    STATE_WB_WAIT = 4'd3,
    STATE_READ = 4'd4,
    STATE_READ_DATA = 4'd5,
    STATE_INVAL_DONE = 4'd6;

// what the cache is doing
localparam [1:0] OP_LOOKUP = 2'd0, OP_UPDATE = 2'd1, OP_INVAL = 2'd2;

localparam [1:0] ST_OK = 2'd0, ST_DMA_ERROR = 2'd1, ST_NO_ENTRY = 2'd2;

reg [LINE_WIDTH-1:0] line_mem [0:LINES-1];
reg [23:0] tag_mem [0:LINES-1];
reg [LINES-1:0] valid_reg = {LINES{1'b0}}, valid_next;
reg [LINES-1:0] dirty_reg = {LINES{1'b0}}, dirty_next;

reg [3:0] state_reg = STATE_IDLE, state_next;
reg [1:0] op_reg = OP_LOOKUP, op_next;
reg [23:0] index_reg = 24'd0, index_next;
// the line read at acceptance: the lookup's answer, or the occupant to write back
reg [LINE_WIDTH-1:0] data_reg = {LINE_WIDTH{1'b0}}, data_next;
reg [LINE_WIDTH-1:0] update_reg = {LINE_WIDTH{1'b0}}, update_next;
reg [1:0] status_reg = ST_OK, status_next;
reg [23:0] wb_index_reg = 24'd0, wb_index_next;
reg read_error_reg = 1'b0, read_error_next;
reg rd_req_valid_reg = 1'b0, rd_req_valid_next;
reg wr_req_valid_reg = 1'b0, wr_req_valid_next;
reg wr_data_valid_reg = 1'b0, wr_data_valid_next;
reg inval_done_reg = 1'b0, inval_done_next;
reg stat_hit_reg = 1'b0, stat_hit_next;
reg stat_miss_reg = 1'b0, stat_miss_next;

reg mem_wr_en;
reg [LINE_WIDTH-1:0] mem_wr_data;
reg [23:0] mem_wr_tag;
reg mem_rd_en;

wire [CACHE_LOG-1:0] lookup_line = s_lookup_index[CACHE_LOG-1:0];
wire [CACHE_LOG-1:0] update_line = s_update_index[CACHE_LOG-1:0];
wire [CACHE_LOG-1:0] inval_line = s_inval_num[CACHE_LOG-1:0];
wire [CACHE_LOG-1:0] line = index_reg[CACHE_LOG-1:0];
wire [CACHE_LOG-1:0] accept_line = s_inval_valid ? inval_line :
                                   s_update_valid ? update_line : lookup_line;

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

// a fill shifts the beats in from the top of data_reg: after the last beat (straight from
// the bus) the first is at the bottom
wire [LINE_WIDTH-1:0] fill_data;
generate
    if (BEATS > 1) begin : fill_n
        assign fill_data = {s_rd_axis_tdata, data_reg[LINE_WIDTH-1:DATA_WIDTH]};
    end else begin : fill1
        assign fill_data = s_rd_axis_tdata;
    end
endgenerate

wire hit_lookup = valid_reg[lookup_line] && tag_mem[lookup_line] == s_lookup_index;
wire hit_update = valid_reg[update_line] && tag_mem[update_line] == s_update_index;
wire hit_inval = valid_reg[inval_line] && tag_mem[inval_line] == s_inval_num;
wire occupied_dirty = valid_reg[accept_line] && dirty_reg[accept_line];
wire [23:0] occupant = tag_mem[accept_line];

always @* begin
    state_next = state_reg;
    op_next = op_reg;
    index_next = index_reg;
    data_next = data_reg;
    update_next = update_reg;
    status_next = status_reg;
    wb_index_next = wb_index_reg;
    read_error_next = read_error_reg;
    valid_next = valid_reg;
    dirty_next = dirty_reg;
    rd_req_valid_next = rd_req_valid_reg && !m_rd_req_ready;
    wr_req_valid_next = wr_req_valid_reg && !m_wr_req_ready;
    wr_data_valid_next = wr_data_valid_reg && !m_wr_axis_tready;
    inval_done_next = 1'b0;
    stat_hit_next = 1'b0;
    stat_miss_next = 1'b0;

    mem_wr_en = 1'b0;
    mem_wr_data = update_reg;
    mem_wr_tag = index_reg;
    mem_rd_en = 1'b0;

    case (state_reg)
        STATE_IDLE: begin
            // the line at accept_line is read in every idle cycle that accepts
            if (s_inval_valid) begin
                op_next = OP_INVAL;
                index_next = s_inval_num;
                mem_rd_en = 1'b1;
                if (hit_inval && dirty_reg[inval_line]) begin
                    wb_index_next = s_inval_num;
                    state_next = STATE_WB;
                end else begin
                    if (hit_inval) begin
                        valid_next[inval_line] = 1'b0;
                    end
                    state_next = STATE_INVAL_DONE;
                end
            end else if (s_update_valid) begin
                op_next = OP_UPDATE;
                index_next = s_update_index;
                update_next = s_update_data;
                mem_rd_en = 1'b1;
                if (!hit_update && occupied_dirty) begin
                    wb_index_next = occupant;
                    state_next = STATE_WB;
                end else begin
                    // install or overwrite at once
                    mem_wr_en = 1'b1;
                    mem_wr_data = s_update_data;
                    mem_wr_tag = s_update_index;
                    valid_next[update_line] = 1'b1;
                    dirty_next[update_line] = 1'b1;
                end
            end else if (s_lookup_valid) begin
                op_next = OP_LOOKUP;
                index_next = s_lookup_index;
                mem_rd_en = 1'b1;
                if (!in_table(s_lookup_index, cfg_log)) begin
                    status_next = ST_NO_ENTRY;
                    state_next = STATE_RESP;
                end else if (hit_lookup) begin
                    status_next = ST_OK;
                    state_next = STATE_RESP;
                    stat_hit_next = 1'b1;
                end else if (occupied_dirty) begin
                    wb_index_next = occupant;
                    state_next = STATE_WB;
                    stat_miss_next = 1'b1;
                end else begin
                    state_next = STATE_READ;
                    stat_miss_next = 1'b1;
                end
            end
        end
        STATE_RESP: begin
            if (m_lookup_ready) begin
                state_next = STATE_IDLE;
            end
        end
        STATE_WB: begin
            // the occupant's owned bytes, from the line read at acceptance
            wr_req_valid_next = 1'b1;
            wr_data_valid_next = 1'b1;
            state_next = STATE_WB_WAIT;
        end
        STATE_WB_WAIT: begin
            // an error is not reported to anyone but the counters: the line is gone anyway
            if (s_wr_done_valid) begin
                dirty_next[line] = 1'b0;
                case (op_reg)
                    OP_INVAL: begin
                        valid_next[line] = 1'b0;
                        state_next = STATE_INVAL_DONE;
                    end
                    OP_UPDATE: begin
                        mem_wr_en = 1'b1;
                        valid_next[line] = 1'b1;
                        dirty_next[line] = 1'b1;
                        state_next = STATE_IDLE;
                    end
                    default: begin
                        valid_next[line] = 1'b0;
                        state_next = STATE_READ;
                    end
                endcase
            end
        end
        STATE_READ: begin
            rd_req_valid_next = 1'b1;
            read_error_next = 1'b0;
            state_next = STATE_READ_DATA;
        end
        STATE_READ_DATA: begin
            if (s_rd_axis_tvalid) begin
                data_next = fill_data;
                read_error_next = read_error_reg || s_rd_axis_tuser;
                if (s_rd_axis_tlast) begin
                    if (read_error_reg || s_rd_axis_tuser) begin
                        status_next = ST_DMA_ERROR;
                    end else begin
                        status_next = ST_OK;
                        mem_wr_en = 1'b1;
                        valid_next[line] = 1'b1;
                        dirty_next[line] = 1'b0;
                    end
                    state_next = STATE_RESP;
                end
            end
        end
        STATE_INVAL_DONE: begin
            inval_done_next = 1'b1;
            state_next = STATE_IDLE;
        end
        default: state_next = STATE_IDLE;
    endcase
end

// the owned bytes of the line read at acceptance, from lane 0
wire [LINE_WIDTH-1:0] wb_data = data_reg >> (WB_OFFSET*8);

always @(posedge clk) begin
    state_reg <= state_next;
    op_reg <= op_next;
    index_reg <= index_next;
    data_reg <= data_next;
    update_reg <= update_next;
    status_reg <= status_next;
    wb_index_reg <= wb_index_next;
    read_error_reg <= read_error_next;
    valid_reg <= valid_next;
    dirty_reg <= dirty_next;
    rd_req_valid_reg <= rd_req_valid_next;
    wr_req_valid_reg <= wr_req_valid_next;
    wr_data_valid_reg <= wr_data_valid_next;
    inval_done_reg <= inval_done_next;
    stat_hit_reg <= stat_hit_next;
    stat_miss_reg <= stat_miss_next;

    if (mem_rd_en) begin
        data_reg <= line_mem[accept_line];
    end
    if (mem_wr_en) begin
        if (state_reg == STATE_READ_DATA) begin
            line_mem[line] <= fill_data;
            data_reg <= fill_data;
        end else if (state_reg == STATE_IDLE) begin
            line_mem[update_line] <= mem_wr_data;
        end else begin
            line_mem[line] <= update_reg;
        end
        tag_mem[state_reg == STATE_IDLE ? update_line : line] <= mem_wr_tag;
    end

    if (rst) begin
        state_reg <= STATE_IDLE;
        valid_reg <= {LINES{1'b0}};
        dirty_reg <= {LINES{1'b0}};
        rd_req_valid_reg <= 1'b0;
        wr_req_valid_reg <= 1'b0;
        wr_data_valid_reg <= 1'b0;
        inval_done_reg <= 1'b0;
        stat_hit_reg <= 1'b0;
        stat_miss_reg <= 1'b0;
    end
end

wire idle = state_reg == STATE_IDLE;

assign s_inval_ready = idle && s_inval_valid;
assign s_update_ready = idle && !s_inval_valid && s_update_valid;
assign s_lookup_ready = idle && !s_inval_valid && !s_update_valid;
assign inval_done = inval_done_reg;
assign stat_hit = stat_hit_reg;
assign stat_miss = stat_miss_reg;

assign m_lookup_data = data_reg;
assign m_lookup_status = status_reg;
assign m_lookup_valid = state_reg == STATE_RESP;

assign m_rd_req_addr = entry_addr(index_reg);
assign m_rd_req_len = LINE_BYTES[15:0];
assign m_rd_req_valid = rd_req_valid_reg;
assign s_rd_axis_tready = state_reg == STATE_READ_DATA;

assign m_wr_req_addr = entry_addr(wb_index_reg) + {48'd0, WB_OFFSET[15:0]};
assign m_wr_req_len = WB_BYTES[15:0];
assign m_wr_req_valid = wr_req_valid_reg;
assign m_wr_axis_tdata = wb_data[DATA_WIDTH-1:0];
assign m_wr_axis_tkeep = {KEEP_WIDTH{1'b1}} >> (KEEP_WIDTH - WB_BYTES);
assign m_wr_axis_tvalid = wr_data_valid_reg;
assign m_wr_axis_tlast = 1'b1;

endmodule

`resetall
