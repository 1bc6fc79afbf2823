/*

MR translation: checks a key, a PD, a range and the access asked for against the memory
region's context, and turns the range into IOVA pieces, page by page, through the MR's
page table. One request at a time, in order:

    request --> context line (cache, or one 64-byte DMA read at cfg_mrc_base + index * 64)
            --> checks: table, key, PD, access, bounds --> one verdict {status, last, len 0}
            --> or the pieces: page-table beat (cache, or one 64-byte DMA read) --> iova

Both caches are direct-mapped RAMs with a registered read port, addressed with the next
cycle's key or page-table entry, so that a lookup costs no cycle of its own: on hits the
first piece is on m_resp_* 3 cycles after the request is taken (a verdict 2 cycles after),
and the pieces that follow come one per cycle. A context line keeps what the checks and
the page walk need, with the sums done once at fill time (the MR's end, and the page-table
entry number of virtual page 0), so that a hit costs compares and one add. A page-table
line is tagged with the MR index and the beat's address: an invalidation walks the lines
and drops those of its MR, and leaves the others.

A piece never crosses a page, nor a 2^MAX_PIECE_LOG boundary of the virtual address (so
that its length fits m_resp_len), and is at most what is left of the range. Requests with
s_req_check, and every request that fails a check, read no page table. An MR whose
VA + LENGTH would pass 2^64 ends at 2^64, so that no range in it wraps around.

Invalidations are taken between requests only, ahead of a request offered in the same
cycle (s_req_ready is low while s_inval_valid is high); inval_done follows after
2^PT_CACHE_LOG + 1 cycles, the walk of the page-table lines. The core never writes contexts
or page tables, so nothing is ever written back. The caches assume cfg_mrc_base and
cfg_mrc_log do not change while they hold lines. A DMA read is one aligned 64-byte beat,
failed if tuser is set with tlast.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module mr_translate #
(
    // Host bus data width (a 64-byte beat holds a context or eight page-table entries)
    parameter DATA_WIDTH = 512,
    // log2 of the MR contexts held on chip (direct-mapped by MR index)
    parameter CTX_CACHE_LOG = 4,
    // log2 of the page-table beats (8 entries each) held on chip (direct-mapped by address)
    parameter PT_CACHE_LOG = 4,
    // log2 of the longest piece: a piece also ends at each 2^MAX_PIECE_LOG boundary of the
    // virtual address, so that its length fits m_resp_len (1..15)
    parameter MAX_PIECE_LOG = 15
)
(
    input  wire                   clk,
    input  wire                   rst,

    /*
     * Configuration: the MR context table (log 0: no table)
     */
    input  wire [63:0]            cfg_mrc_base,
    input  wire [4:0]             cfg_mrc_log,

    /*
     * Translation requests
     */
    input  wire [31:0]            s_req_key,
    input  wire [23:0]            s_req_pd,
    input  wire [63:0]            s_req_va,
    input  wire [31:0]            s_req_len,
    input  wire [3:0]             s_req_access,
    input  wire                   s_req_check,
    input  wire                   s_req_valid,
    output wire                   s_req_ready,

    /*
     * Responses: the pieces of the range, or one verdict
     */
    output wire [63:0]            m_resp_iova,
    output wire [15:0]            m_resp_len,
    output wire                   m_resp_last,
    output wire [2:0]             m_resp_status,
    output wire                   m_resp_valid,
    input  wire                   m_resp_ready,

    /*
     * Invalidation of one MR index
     */
    input  wire [23:0]            s_inval_num,
    input  wire                   s_inval_valid,
    output wire                   s_inval_ready,
    output wire                   inval_done,

    /*
     * DMA read client (aligned): contexts and page-table beats
     */
    output wire [63:0]            m_rd_req_addr,
    output wire [15:0]            m_rd_req_len,
    output wire                   m_rd_req_valid,
    input  wire                   m_rd_req_ready,
    input  wire [DATA_WIDTH-1:0]  s_rd_axis_tdata,
    input  wire                   s_rd_axis_tvalid,
    output wire                   s_rd_axis_tready,
    input  wire                   s_rd_axis_tlast,
    input  wire                   s_rd_axis_tuser
);

initial begin
    if (DATA_WIDTH != 512) begin
        $error("Error: %m: a context or page-table beat is 512 bits (DATA_WIDTH=%0d)",
               DATA_WIDTH);
        $finish;
    end
    if (CTX_CACHE_LOG < 1 || CTX_CACHE_LOG > 12 || PT_CACHE_LOG < 1 || PT_CACHE_LOG > 12) begin
        $error("Error: %m: cache sizes out of range (CTX_CACHE_LOG=%0d, PT_CACHE_LOG=%0d)",
               CTX_CACHE_LOG, PT_CACHE_LOG);
        $finish;
    end
    if (MAX_PIECE_LOG < 1 || MAX_PIECE_LOG > 15) begin
        $error("Error: %m: a piece's length must fit 16 bits (MAX_PIECE_LOG=%0d)",
               MAX_PIECE_LOG);
        $finish;
    end
end

localparam CTX_LINES = 2**CTX_CACHE_LOG;
localparam PT_LINES = 2**PT_CACHE_LOG;
// an offset inside a page: pages are at most 2^MR_LOG_PAGE_MAX bytes
localparam OFF_WIDTH = `HROCE_MR_LOG_PAGE_MAX;
// a page-table entry's number: its address / 8
localparam ENTRY_WIDTH = 61;

// a context line: the fields of the MRC beat that the checks and the page walk need, the
// MR's end (VA + LENGTH, 65 bits), the entry number of virtual page 0, and the MR index
localparam CL_VALID = 0;
localparam CL_ACCESS = CL_VALID + 1;
localparam CL_LPS = CL_ACCESS + 4;
localparam CL_PD = CL_LPS + 6;
localparam CL_KEY = CL_PD + 24;
localparam CL_VA = CL_KEY + 32;
localparam CL_END = CL_VA + 64;
localparam CL_BIAS = CL_END + 65;
localparam CL_INDEX = CL_BIAS + ENTRY_WIDTH;
localparam CL_WIDTH = CL_INDEX + 24;

// a page-table line: the beat, its address / 64, the MR index
localparam PL_BEAT = 512;
localparam PL_INDEX = PL_BEAT + ENTRY_WIDTH - 3;
localparam PL_WIDTH = PL_INDEX + 24;

localparam [2:0]
    XL_OK = `HROCE_MR_XLATE_OK,
    XL_BAD_KEY = `HROCE_MR_XLATE_BAD_KEY,
    XL_BAD_PD = `HROCE_MR_XLATE_BAD_PD,
    XL_BAD_ACCESS = `HROCE_MR_XLATE_BAD_ACCESS,
    XL_BAD_BOUNDS = `HROCE_MR_XLATE_BAD_BOUNDS,
    XL_DMA_ERROR = `HROCE_MR_XLATE_DMA_ERROR;

localparam [3:0]
    STATE_IDLE = 4'd0,
    STATE_CHECK = 4'd1,
    STATE_CTX_READ = 4'd2,
    STATE_CTX_REREAD = 4'd3,
    STATE_PIECE = 4'd4,
    STATE_PT_READ = 4'd5,
    STATE_PT_REREAD = 4'd6,
    STATE_VERDICT = 4'd7,
    STATE_INVAL = 4'd8;

reg [3:0] state_reg = STATE_IDLE, state_next;

// the request
reg [31:0] key_reg = 32'd0, key_next;
reg [23:0] pd_reg = 24'd0, pd_next;
reg [63:0] va_reg = 64'd0, va_next;
reg [64:0] end_reg = 65'd0, end_next;
reg [31:0] len_reg = 32'd0, len_next;
reg [3:0] access_reg = 4'd0, access_next;
reg check_reg = 1'b0, check_next;

// the page walk: the current entry, the offset in its page, the bytes left
reg [ENTRY_WIDTH-1:0] entry_reg = {ENTRY_WIDTH{1'b0}}, entry_next;
reg [OFF_WIDTH-1:0] off_reg = {OFF_WIDTH{1'b0}}, off_next;
reg [31:0] left_reg = 32'd0, left_next;
// 2^min(page, piece) - 1, and the page's offset bits above that (the ones of a page's end)
reg [14:0] smask_reg = 15'd0, smask_next;
reg [OFF_WIDTH-1:0] hmask_reg = {OFF_WIDTH{1'b0}}, hmask_next;

// a verdict that waits for the output
reg [2:0] verdict_reg = 3'd0, verdict_next;

reg rd_req_valid_reg = 1'b0, rd_req_valid_next;
reg [63:0] rd_req_addr_reg = 64'd0, rd_req_addr_next;

reg [23:0] inval_num_reg = 24'd0, inval_num_next;
reg [PT_CACHE_LOG-1:0] scan_reg = {PT_CACHE_LOG{1'b0}}, scan_next;
reg inval_done_reg = 1'b0, inval_done_next;

/*
 * Caches: line valid bits in registers (cleared by reset and invalidation), lines in RAM
 */
reg [CTX_LINES-1:0] ctx_valid_reg = {CTX_LINES{1'b0}}, ctx_valid_next;
reg [PT_LINES-1:0] pt_valid_reg = {PT_LINES{1'b0}}, pt_valid_next;

reg [CL_WIDTH-1:0] ctx_mem [0:CTX_LINES-1];
reg [CL_WIDTH-1:0] ctx_q_reg = {CL_WIDTH{1'b0}};
reg [PL_WIDTH-1:0] pt_mem [0:PT_LINES-1];
reg [PL_WIDTH-1:0] pt_q_reg = {PL_WIDTH{1'b0}};

reg ctx_wr_en;
reg pt_wr_en;
reg pt_rd_scan;
reg [PT_CACHE_LOG-1:0] pt_rd_addr;

// into the output skid buffer
reg out_valid;
reg [63:0] out_iova;
reg [15:0] out_len;
reg out_last;
reg [2:0] out_status;
wire out_ready;

// a verdict decided this cycle
reg fin_valid;
reg [2:0] fin_status;

/*
 * The context line of the request's index, and the checks
 */
wire [23:0] req_index = key_reg[31:8];
wire [CTX_CACHE_LOG-1:0] ctx_line = key_reg[8 +: CTX_CACHE_LOG];

wire c_valid = ctx_q_reg[CL_VALID];
wire [3:0] c_access = ctx_q_reg[CL_ACCESS +: 4];
wire [5:0] c_lps = ctx_q_reg[CL_LPS +: 6];
wire [23:0] c_pd = ctx_q_reg[CL_PD +: 24];
wire [31:0] c_key = ctx_q_reg[CL_KEY +: 32];
wire [63:0] c_va = ctx_q_reg[CL_VA +: 64];
wire [64:0] c_end = ctx_q_reg[CL_END +: 65];
wire [ENTRY_WIDTH-1:0] c_bias = ctx_q_reg[CL_BIAS +: ENTRY_WIDTH];
wire [23:0] c_index = ctx_q_reg[CL_INDEX +: 24];

wire in_table = cfg_mrc_log != 5'd0 && ({8'd0, req_index} >> cfg_mrc_log) == 32'd0;
wire ctx_hit = ctx_valid_reg[ctx_line] && c_index == req_index;
wire bad_key = !c_valid || c_key != key_reg;
wire bad_pd = c_pd != pd_reg;
wire bad_access = (access_reg & ~c_access) != 4'd0;
wire bad_bounds = len_reg != 32'd0 && (va_reg < c_va || end_reg > c_end);

/*
 * A context beat as it arrives, and what a line keeps of it
 */
wire [`HROCE_MRC_BITS-1:0] mrc_beat = s_rd_axis_tdata[`HROCE_MRC_BITS-1:0];
wire [63:0] beat_va = mrc_beat[`HROCE_MRC_VA];
wire [5:0] beat_lps = mrc_beat[`HROCE_MRC_LOG_PAGE_SIZE];
wire [63:0] beat_pt_base = mrc_beat[`HROCE_MRC_PT_BASE];

// one shifter for both the fill (the MR's first virtual page) and the lookup (the page of
// the request's address): they never happen in the same cycle
wire [63:0] shift_in = state_reg == STATE_CTX_READ ? beat_va : va_reg;
wire [5:0] shift_by = state_reg == STATE_CTX_READ ? beat_lps : c_lps;
wire [63:0] shifted = shift_in >> shift_by;

// the entry of a virtual page vp is PT_BASE / 8 + vp - (VA >> LOG_PAGE_SIZE)
wire [ENTRY_WIDTH-1:0] beat_bias = beat_pt_base[63:3] - shifted[ENTRY_WIDTH-1:0];
// an MR that would run past 2^64 ends there, so that no range in it wraps around
wire [64:0] beat_sum = {1'b0, beat_va} + {1'b0, mrc_beat[`HROCE_MRC_LENGTH]};
wire [64:0] beat_end = beat_sum[64] ? {1'b1, 64'd0} : beat_sum;
wire [CL_WIDTH-1:0] ctx_wr_data = {req_index, beat_bias, beat_end, beat_va,
                                   mrc_beat[`HROCE_MRC_KEY], mrc_beat[`HROCE_MRC_PD],
                                   beat_lps, mrc_beat[`HROCE_MRC_ACCESS],
                                   mrc_beat[`HROCE_MRC_VALID]};

// the page walk's start
wire [ENTRY_WIDTH-1:0] entry_first = shifted[ENTRY_WIDTH-1:0] + c_bias;
wire [OFF_WIDTH-1:0] pmask = ~({OFF_WIDTH{1'b1}} << c_lps);
wire [14:0] smask = {26'd0, c_lps} < MAX_PIECE_LOG ? pmask[14:0] : ~(15'h7fff << MAX_PIECE_LOG);

/*
 * The page-table line of the current entry, and the piece it gives
 */
wire [PT_CACHE_LOG-1:0] pt_line = entry_reg[3 +: PT_CACHE_LOG];
wire pt_hit = pt_valid_reg[pt_line] && pt_q_reg[PL_INDEX +: 24] == req_index &&
              pt_q_reg[PL_BEAT +: ENTRY_WIDTH-3] == entry_reg[ENTRY_WIDTH-1:3];
wire [63:0] pte = pt_q_reg[entry_reg[2:0]*64 +: 64];
wire [63:0] piece_iova = pte + {{64-OFF_WIDTH{1'b0}}, off_reg};
// bytes to the next piece boundary: 2^min(page, piece) - the offset below it
wire [15:0] room = {1'b0, smask_reg} - {1'b0, off_reg[14:0] & smask_reg} + 16'd1;
wire piece_last = left_reg <= {16'd0, room};
wire [15:0] piece_len = piece_last ? left_reg[15:0] : room;
// a piece that is not the last ends its page if the offset's bits above the piece are ones
wire page_end = (off_reg & hmask_reg) == hmask_reg;

wire [PL_WIDTH-1:0] pt_wr_data = {req_index, entry_reg[ENTRY_WIDTH-1:3], s_rd_axis_tdata};

always @* begin
    state_next = state_reg;
    key_next = key_reg;
    pd_next = pd_reg;
    va_next = va_reg;
    end_next = end_reg;
    len_next = len_reg;
    access_next = access_reg;
    check_next = check_reg;
    entry_next = entry_reg;
    off_next = off_reg;
    left_next = left_reg;
    smask_next = smask_reg;
    hmask_next = hmask_reg;
    verdict_next = verdict_reg;
    rd_req_valid_next = rd_req_valid_reg && !m_rd_req_ready;
    rd_req_addr_next = rd_req_addr_reg;
    inval_num_next = inval_num_reg;
    scan_next = scan_reg;
    inval_done_next = 1'b0;
    ctx_valid_next = ctx_valid_reg;
    pt_valid_next = pt_valid_reg;

    ctx_wr_en = 1'b0;
    pt_wr_en = 1'b0;
    pt_rd_scan = 1'b0;

    out_valid = 1'b0;
    out_iova = 64'd0;
    out_len = 16'd0;
    out_last = 1'b1;
    out_status = XL_OK;

    fin_valid = 1'b0;
    fin_status = XL_OK;

    case (state_reg)
        STATE_IDLE: begin
            if (s_inval_valid) begin
                // the context line goes now, the page-table lines of the MR in the walk
                inval_num_next = s_inval_num;
                ctx_valid_next[s_inval_num[CTX_CACHE_LOG-1:0]] = 1'b0;
                scan_next = {PT_CACHE_LOG{1'b0}};
                pt_rd_scan = 1'b1;
                state_next = STATE_INVAL;
            end else if (s_req_valid) begin
                key_next = s_req_key;
                pd_next = s_req_pd;
                va_next = s_req_va;
                end_next = {1'b0, s_req_va} + {33'd0, s_req_len};
                len_next = s_req_len;
                access_next = s_req_access;
                check_next = s_req_check;
                state_next = STATE_CHECK;
            end
        end
        STATE_CHECK: begin
            entry_next = entry_first;
            off_next = va_reg[OFF_WIDTH-1:0] & pmask;
            left_next = len_reg;
            smask_next = smask;
            hmask_next = pmask & ~{{OFF_WIDTH-15{1'b0}}, smask};
            if (!in_table) begin
                fin_valid = 1'b1;
                fin_status = XL_BAD_KEY;
            end else if (!ctx_hit) begin
                rd_req_valid_next = 1'b1;
                rd_req_addr_next = cfg_mrc_base + {34'd0, req_index, 6'd0};
                state_next = STATE_CTX_READ;
            end else if (bad_key) begin
                fin_valid = 1'b1;
                fin_status = XL_BAD_KEY;
            end else if (bad_pd) begin
                fin_valid = 1'b1;
                fin_status = XL_BAD_PD;
            end else if (bad_access) begin
                fin_valid = 1'b1;
                fin_status = XL_BAD_ACCESS;
            end else if (bad_bounds) begin
                fin_valid = 1'b1;
                fin_status = XL_BAD_BOUNDS;
            end else if (check_reg || len_reg == 32'd0) begin
                fin_valid = 1'b1;
                fin_status = XL_OK;
            end else begin
                state_next = STATE_PIECE;
            end
        end
        STATE_CTX_READ: begin
            if (s_rd_axis_tvalid && s_rd_axis_tlast) begin
                if (s_rd_axis_tuser) begin
                    fin_valid = 1'b1;
                    fin_status = XL_DMA_ERROR;
                end else begin
                    ctx_wr_en = 1'b1;
                    ctx_valid_next[ctx_line] = 1'b1;
                    state_next = STATE_CTX_REREAD;
                end
            end
        end
        STATE_CTX_REREAD: begin
            // the line written last cycle is in the read register now
            state_next = STATE_CHECK;
        end
        STATE_PIECE: begin
            if (!pt_hit) begin
                rd_req_valid_next = 1'b1;
                rd_req_addr_next = {entry_reg[ENTRY_WIDTH-1:3], 6'd0};
                state_next = STATE_PT_READ;
            end else if (out_ready) begin
                out_valid = 1'b1;
                out_iova = piece_iova;
                out_len = piece_len;
                out_last = piece_last;
                if (piece_last) begin
                    state_next = STATE_IDLE;
                end else begin
                    left_next = left_reg - {16'd0, room};
                    if (page_end) begin
                        entry_next = entry_reg + {{ENTRY_WIDTH-1{1'b0}}, 1'b1};
                        off_next = {OFF_WIDTH{1'b0}};
                    end else begin
                        off_next = off_reg + {{OFF_WIDTH-16{1'b0}}, room};
                    end
                end
            end
        end
        STATE_PT_READ: begin
            if (s_rd_axis_tvalid && s_rd_axis_tlast) begin
                if (s_rd_axis_tuser) begin
                    // the pieces already given are discarded by the client
                    fin_valid = 1'b1;
                    fin_status = XL_DMA_ERROR;
                end else begin
                    pt_wr_en = 1'b1;
                    pt_valid_next[pt_line] = 1'b1;
                    state_next = STATE_PT_REREAD;
                end
            end
        end
        STATE_PT_REREAD: begin
            state_next = STATE_PIECE;
        end
        STATE_VERDICT: begin
            fin_valid = 1'b1;
            fin_status = verdict_reg;
        end
        STATE_INVAL: begin
            if (pt_q_reg[PL_INDEX +: 24] == inval_num_reg) begin
                pt_valid_next[scan_reg] = 1'b0;
            end
            scan_next = scan_reg + {{PT_CACHE_LOG-1{1'b0}}, 1'b1};
            pt_rd_scan = 1'b1;
            if (scan_reg == {PT_CACHE_LOG{1'b1}}) begin
                inval_done_next = 1'b1;
                state_next = STATE_IDLE;
            end
        end
        default: state_next = STATE_IDLE;
    endcase

    // a verdict ends the request: it goes out now, or waits for the output
    if (fin_valid) begin
        if (out_ready) begin
            out_valid = 1'b1;
            out_status = fin_status;
            state_next = STATE_IDLE;
        end else begin
            verdict_next = fin_status;
            state_next = STATE_VERDICT;
        end
    end

    // the read registers hold next cycle's lines
    pt_rd_addr = pt_rd_scan ? scan_next : entry_next[3 +: PT_CACHE_LOG];
end

always @(posedge clk) begin
    state_reg <= state_next;
    key_reg <= key_next;
    pd_reg <= pd_next;
    va_reg <= va_next;
    end_reg <= end_next;
    len_reg <= len_next;
    access_reg <= access_next;
    check_reg <= check_next;
    entry_reg <= entry_next;
    off_reg <= off_next;
    left_reg <= left_next;
    smask_reg <= smask_next;
    hmask_reg <= hmask_next;
    verdict_reg <= verdict_next;
    rd_req_valid_reg <= rd_req_valid_next;
    rd_req_addr_reg <= rd_req_addr_next;
    inval_num_reg <= inval_num_next;
    scan_reg <= scan_next;
    inval_done_reg <= inval_done_next;
    ctx_valid_reg <= ctx_valid_next;
    pt_valid_reg <= pt_valid_next;

    if (ctx_wr_en) begin
        ctx_mem[ctx_line] <= ctx_wr_data;
    end
    ctx_q_reg <= ctx_mem[key_next[8 +: CTX_CACHE_LOG]];
    if (pt_wr_en) begin
        pt_mem[pt_line] <= pt_wr_data;
    end
    pt_q_reg <= pt_mem[pt_rd_addr];

    if (rst) begin
        state_reg <= STATE_IDLE;
        rd_req_valid_reg <= 1'b0;
        inval_done_reg <= 1'b0;
        ctx_valid_reg <= {CTX_LINES{1'b0}};
        pt_valid_reg <= {PT_LINES{1'b0}};
    end
end

/*
 * Output: a skid buffer, so that m_resp_ready reaches no further than its register
 */
axis_skid #(
    .WIDTH(64+16+1+3)
)
resp_skid (
    .clk(clk),
    .rst(rst),
    .s_data({out_status, out_last, out_len, out_iova}),
    .s_valid(out_valid),
    .s_ready(out_ready),
    .m_data({m_resp_status, m_resp_last, m_resp_len, m_resp_iova}),
    .m_valid(m_resp_valid),
    .m_ready(m_resp_ready)
);

assign s_req_ready = state_reg == STATE_IDLE && !s_inval_valid;
assign s_inval_ready = state_reg == STATE_IDLE;
assign inval_done = inval_done_reg;

assign m_rd_req_addr = rd_req_addr_reg;
assign m_rd_req_len = 16'd64;
assign m_rd_req_valid = rd_req_valid_reg;
assign s_rd_axis_tready = state_reg == STATE_CTX_READ || state_reg == STATE_PT_READ;

endmodule

`resetall
