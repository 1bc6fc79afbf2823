/*

DMA write engine: the write clients of the core merged onto the write channels of one
AXI4 master (INCR bursts of whole beats, AxSIZE the bus width, never crossing 4 KiB; the
ID of a burst is its client's index).

    s_req[c], s_axis[c] -> dma_wr_client[c] --complete burst--> round robin -> AW skid
                                                                           \-> W commands
    W commands -> reader (client buffer read) -> select -> realign -> W FIFO -> m_axi_w
    m_axi_b -> dma_wr_client[c] -> m_done[c]

Every client is a byte stream of packets (tlast; beats full from lane 0 but for a
packet's last, tkeep contiguous from lane 0). A request (s_req_addr, s_req_len bytes,
1 to 65535, never 0) takes the next len bytes of its client's stream and writes them at addr;
requests tile the packets (a request never spans two, a packet may be cut into several
requests). Requests and data come independently, in either order. wstrb marks exactly
the bytes of the request: nothing outside [addr, addr + len) is written.

Store and forward per burst: a burst's AW goes only once all of its bytes are in the
client's buffer, so the W channel never waits for a client, and a client whose data is
late holds up no other. W beats of a burst are contiguous, bursts in AW order. The
arbiter takes the clients with a complete burst in turn; one client's bursts go in
order. m_axi_bready is always high.

m_done_valid pulses once per request, in request order per client, when the B responses
of all its bursts are back; m_done_error with it if any of them was not OKAY. B may come
interleaved across IDs.

The realignment (from the stream's lanes to the address's lanes) is done once, on the W
path, for all clients: the reader reads the buffer beats a burst needs, and each W beat
is made of two consecutive buffer beats rotated by the difference of the two lane
offsets. A burst whose first byte sits in a higher lane in the buffer than on the bus
needs one read before its first W beat: a bubble, unless the beat is the one the
previous burst of the client ended in (the bursts after the first of a long request),
which is still at hand. The rotator works in units of the smallest ALIGN_LOG of the
clients: it is a full byte rotator only if a client has ALIGN_LOG 0.

Latency: AW two cycles after the last beat of a burst is taken (its request waiting), or
after the request is taken (its data there); the burst's first W beat four cycles after
AW. A client's next request is cut a cycle after the last burst of the one before issues
(where it starts in the buffer is settled first): a client issues at most one request
every two cycles, any number of clients one burst per cycle.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module dma_wr #
(
    // Width of the data path (AXI and client streams); bursts are of beats of this width
    parameter DATA_WIDTH = 512,
    // Width of tkeep
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // AXI ID bits (the ID of a burst is its client's index)
    parameter AXI_ID_WIDTH = 8,
    // Number of clients
    parameter CLIENTS = 7,
    // log2 of the beats of each client's buffer (4 bits for client c at bit 4c), at least
    // 2; bursts are cut at half the buffer's bytes (or 4 KiB), so that a client streaming
    // at one beat per cycle needs two bursts of 4 KiB, 7
    parameter [CLIENTS*4-1:0] BUF_ADDR_WIDTH = {CLIENTS{4'd7}},
    // log2 of each client's alignment (3 bits for client c at bit 3c): addresses and
    // stream positions of requests are multiples of 2^ALIGN_LOG bytes; 0 for any byte,
    // 6 for whole beats
    parameter [CLIENTS*3-1:0] ALIGN_LOG = {CLIENTS{3'd0}},
    // log2 of the bursts a client may have between AW and B
    parameter BURST_ADDR_WIDTH = 4,
    // log2 of the bursts issued and waiting for the W channel
    parameter CMD_ADDR_WIDTH = 4
)
(
    input  wire                             clk,
    input  wire                             rst,

    /*
     * Write requests, client c at slice c
     */
    input  wire [CLIENTS*64-1:0]            s_req_addr,
    input  wire [CLIENTS*16-1:0]            s_req_len,
    input  wire [CLIENTS-1:0]               s_req_valid,
    output wire [CLIENTS-1:0]               s_req_ready,

    /*
     * Write data, client c at slice c
     */
    input  wire [CLIENTS*DATA_WIDTH-1:0]    s_axis_tdata,
    input  wire [CLIENTS*KEEP_WIDTH-1:0]    s_axis_tkeep,
    input  wire [CLIENTS-1:0]               s_axis_tvalid,
    output wire [CLIENTS-1:0]               s_axis_tready,
    input  wire [CLIENTS-1:0]               s_axis_tlast,

    /*
     * Completions: one pulse per request
     */
    output wire [CLIENTS-1:0]               m_done_valid,
    output wire [CLIENTS-1:0]               m_done_error,

    /*
     * AXI4 master: write channels
     */
    output wire [AXI_ID_WIDTH-1:0]          m_axi_awid,
    output wire [63:0]                      m_axi_awaddr,
    output wire [7:0]                       m_axi_awlen,
    output wire [2:0]                       m_axi_awsize,
    output wire [1:0]                       m_axi_awburst,
    output wire                             m_axi_awvalid,
    input  wire                             m_axi_awready,
    output wire [DATA_WIDTH-1:0]            m_axi_wdata,
    output wire [KEEP_WIDTH-1:0]            m_axi_wstrb,
    output wire                             m_axi_wlast,
    output wire                             m_axi_wvalid,
    input  wire                             m_axi_wready,
    input  wire [AXI_ID_WIDTH-1:0]          m_axi_bid,
    input  wire [1:0]                       m_axi_bresp,
    input  wire                             m_axi_bvalid,
    output wire                             m_axi_bready
);

// the largest buffer, and the smallest alignment, of the clients
function integer max_buf_addr_width(input integer n);
    integer k;
    begin
        max_buf_addr_width = 0;
        for (k = 0; k < n; k = k + 1) begin
            if ({28'd0, BUF_ADDR_WIDTH[k*4 +: 4]} > max_buf_addr_width) begin
                max_buf_addr_width = {28'd0, BUF_ADDR_WIDTH[k*4 +: 4]};
            end
        end
    end
endfunction

function integer min_align_log(input integer n);
    integer k;
    begin
        min_align_log = 6;
        for (k = 0; k < n; k = k + 1) begin
            if ({29'd0, ALIGN_LOG[k*3 +: 3]} < min_align_log) begin
                min_align_log = {29'd0, ALIGN_LOG[k*3 +: 3]};
            end
        end
    end
endfunction

localparam LANE_BITS = $clog2(KEEP_WIDTH);
localparam CL_WIDTH = CLIENTS > 1 ? $clog2(CLIENTS) : 1;
localparam PTR_WIDTH = max_buf_addr_width(CLIENTS) + 1;
localparam NEED_WIDTH = LANE_BITS + 1;
localparam STEP_WIDTH = 8;
localparam AW_WIDTH = AXI_ID_WIDTH + 64 + 8;
localparam CMD_WIDTH = CL_WIDTH + 2*PTR_WIDTH + 3*LANE_BITS + 8 + NEED_WIDTH;
localparam W_WIDTH = DATA_WIDTH + KEEP_WIDTH + 1;
localparam WF_ADDR_WIDTH = 2;
localparam [WF_ADDR_WIDTH+1:0] WF_CAP = 2**WF_ADDR_WIDTH + 1;
// the rotations the realigner must do are multiples of 2^GRAN_LOG lanes
localparam GRAN_LOG = min_align_log(CLIENTS);
localparam [LANE_BITS-1:0] GRAN_MASK = {LANE_BITS{1'b1}} << GRAN_LOG;

initial begin
    if (DATA_WIDTH != 512 || KEEP_WIDTH * 8 != DATA_WIDTH) begin
        $error("Error: DATA_WIDTH must be 512 (64-byte beats, 64 beats in 4 KiB) (instance %m)");
        $finish;
    end

    if (CL_WIDTH > AXI_ID_WIDTH) begin
        $error("Error: AXI_ID_WIDTH too small for CLIENTS (instance %m)");
        $finish;
    end
end

wire [CLIENTS*64-1:0] burst_addr;
wire [CLIENTS*8-1:0] burst_len;
wire [CLIENTS*LANE_BITS-1:0] burst_lo, burst_hi, burst_lane;
wire [CLIENTS*PTR_WIDTH-1:0] burst_beat, burst_free;
wire [CLIENTS*NEED_WIDTH-1:0] burst_need;
wire [CLIENTS-1:0] burst_valid;
wire [CLIENTS-1:0] burst_ready;

wire [CLIENTS*DATA_WIDTH-1:0] rd_data;

/*
 * Arbiter, AW and W commands
 */
wire [CLIENTS-1:0] grant;
wire grant_valid;
wire [CL_WIDTH-1:0] grant_index;
wire aw_s_ready, cmd_s_ready;
wire take = aw_s_ready && cmd_s_ready;

dma_arb #(
    .PORTS(CLIENTS),
    .INDEX_WIDTH(CL_WIDTH)
)
arb_inst (
    .clk(clk),
    .rst(rst),
    .req(burst_valid),
    .take(take),
    .grant(grant),
    .grant_valid(grant_valid),
    .grant_index(grant_index)
);

assign burst_ready = take ? grant : {CLIENTS{1'b0}};

reg [AXI_ID_WIDTH-1:0] aw_id;

always @* begin
    aw_id = {AXI_ID_WIDTH{1'b0}};
    aw_id[CL_WIDTH-1:0] = grant_index;
end

wire [AXI_ID_WIDTH-1:0] aw_skid_id;

axis_skid #(
    .WIDTH(AW_WIDTH)
)
aw_skid_inst (
    .clk(clk),
    .rst(rst),
    .s_data({aw_id, burst_addr[grant_index*64 +: 64], burst_len[grant_index*8 +: 8]}),
    .s_valid(grant_valid && cmd_s_ready),
    .s_ready(aw_s_ready),
    .m_data({aw_skid_id, m_axi_awaddr, m_axi_awlen}),
    .m_valid(m_axi_awvalid),
    .m_ready(m_axi_awready)
);

assign m_axi_awid = aw_skid_id;
assign m_axi_awsize = 3'd6;     // 64-byte beats
assign m_axi_awburst = 2'b01;

wire [CMD_WIDTH-1:0] cmd_data;
wire cmd_valid;
wire cmd_pop;

dma_fifo #(
    .WIDTH(CMD_WIDTH),
    .ADDR_WIDTH(CMD_ADDR_WIDTH),
    .REG_OUTPUT(0)
)
cmd_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data({
        grant_index,
        burst_beat[grant_index*PTR_WIDTH +: PTR_WIDTH],
        burst_lane[grant_index*LANE_BITS +: LANE_BITS],
        burst_lo[grant_index*LANE_BITS +: LANE_BITS],
        burst_hi[grant_index*LANE_BITS +: LANE_BITS],
        burst_len[grant_index*8 +: 8],
        burst_need[grant_index*NEED_WIDTH +: NEED_WIDTH],
        burst_free[grant_index*PTR_WIDTH +: PTR_WIDTH]
    }),
    .s_valid(grant_valid && aw_s_ready),
    .s_ready(cmd_s_ready),
    .m_data(cmd_data),
    .m_valid(cmd_valid),
    .m_ready(cmd_pop),
    .count()
);

wire [CL_WIDTH-1:0] cmd_client;
wire [PTR_WIDTH-1:0] cmd_beat, cmd_free;
wire [LANE_BITS-1:0] cmd_lane, cmd_lo, cmd_hi;
wire [7:0] cmd_len;
wire [NEED_WIDTH-1:0] cmd_need;

assign {cmd_client, cmd_beat, cmd_lane, cmd_lo, cmd_hi, cmd_len, cmd_need, cmd_free} = cmd_data;

/*
 * Reader: one step per cycle, each reading a buffer beat (while the burst needs one)
 * and making a W beat (after the first read if the burst needs one ahead). Steps go
 * only while the W FIFO has room for all W beats in the pipeline.
 */
reg rd_active_reg = 1'b0, rd_active_next;
reg [CL_WIDTH-1:0] rd_client_reg = {CL_WIDTH{1'b0}}, rd_client_next;
reg [PTR_WIDTH-1:0] rd_beat_reg = {PTR_WIDTH{1'b0}}, rd_beat_next;     // of this step
reg [STEP_WIDTH-1:0] rd_step_reg = {STEP_WIDTH{1'b0}}, rd_step_next;
reg [STEP_WIDTH-1:0] rd_last_step_reg = {STEP_WIDTH{1'b0}}, rd_last_step_next;
reg [STEP_WIDTH-1:0] rd_need_reg = {STEP_WIDTH{1'b0}}, rd_need_next;
reg rd_prime_reg = 1'b0, rd_prime_next;                 // a read before the first W beat
reg [LANE_BITS-1:0] rd_rot_reg = {LANE_BITS{1'b0}}, rd_rot_next;
reg [LANE_BITS-1:0] rd_lo_reg = {LANE_BITS{1'b0}}, rd_lo_next;
reg [LANE_BITS-1:0] rd_hi_reg = {LANE_BITS{1'b0}}, rd_hi_next;
reg [PTR_WIDTH-1:0] rd_free_reg = {PTR_WIDTH{1'b0}}, rd_free_next;

// the last buffer beat read, which the realigner still holds
reg last_valid_reg = 1'b0, last_valid_next;
reg [CL_WIDTH-1:0] last_client_reg = {CL_WIDTH{1'b0}}, last_client_next;
reg [PTR_WIDTH-1:0] last_beat_reg = {PTR_WIDTH{1'b0}}, last_beat_next;

// stage 1: the buffer's read (its data, or for distributed RAM its address, registered);
// stage 2: the beat read, selected from its client's buffer
reg w1_valid_reg = 1'b0, w2_valid_reg = 1'b0;
reg w1_read_reg = 1'b0, w2_read_reg = 1'b0;
reg w1_emit_reg = 1'b0, w2_emit_reg = 1'b0;
reg [CL_WIDTH-1:0] w1_client_reg = {CL_WIDTH{1'b0}};
reg [LANE_BITS-1:0] w1_rot_reg = {LANE_BITS{1'b0}}, w2_rot_reg = {LANE_BITS{1'b0}};
reg w1_first_reg = 1'b0, w2_first_reg = 1'b0;
reg w1_last_reg = 1'b0, w2_last_reg = 1'b0;
reg [LANE_BITS-1:0] w1_lo_reg = {LANE_BITS{1'b0}}, w2_lo_reg = {LANE_BITS{1'b0}};
reg [LANE_BITS-1:0] w1_hi_reg = {LANE_BITS{1'b0}}, w2_hi_reg = {LANE_BITS{1'b0}};
reg [DATA_WIDTH-1:0] w2_cur_reg = {DATA_WIDTH{1'b0}};
reg [DATA_WIDTH-1:0] prev_reg = {DATA_WIDTH{1'b0}};

wire [WF_ADDR_WIDTH+1:0] wf_count;

wire [WF_ADDR_WIDTH+1:0] wf_pending = wf_count +
    {{WF_ADDR_WIDTH+1{1'b0}}, w1_valid_reg && w1_emit_reg} +
    {{WF_ADDR_WIDTH+1{1'b0}}, w2_valid_reg && w2_emit_reg};
wire step = rd_active_reg && wf_pending < WF_CAP;
wire step_read = step && rd_step_reg < rd_need_reg;
wire step_emit = step && (rd_step_reg != {STEP_WIDTH{1'b0}} || !rd_prime_reg);
wire step_last = step && rd_step_reg == rd_last_step_reg;
wire step_first = rd_step_reg == {{STEP_WIDTH-1{1'b0}}, rd_prime_reg};

// the next command, as the reader starts it
reg [STEP_WIDTH-1:0] cmd_need_step;
reg [STEP_WIDTH-1:0] cmd_last_step;
wire cmd_prime = cmd_lane > cmd_lo;
wire cmd_reuse = cmd_prime && last_valid_next && last_client_next == cmd_client &&
    last_beat_next == cmd_beat;

assign cmd_pop = cmd_valid && (!rd_active_reg || step_last);

always @* begin
    cmd_need_step = {STEP_WIDTH{1'b0}};
    cmd_need_step[NEED_WIDTH-1:0] = cmd_need;
    cmd_last_step = cmd_len + {{STEP_WIDTH-1{1'b0}}, cmd_prime};
end

// the buffer read and the free pointer of this step (shared; enables per client)
wire [PTR_WIDTH-1:0] rd_free_ptr = rd_step_reg + {{STEP_WIDTH-1{1'b0}}, 1'b1} == rd_need_reg ?
    rd_free_reg : rd_beat_reg + {{PTR_WIDTH-1{1'b0}}, 1'b1};

always @* begin
    rd_active_next = rd_active_reg && !step_last;
    rd_client_next = rd_client_reg;
    rd_beat_next = rd_beat_reg;
    rd_step_next = rd_step_reg;
    rd_last_step_next = rd_last_step_reg;
    rd_need_next = rd_need_reg;
    rd_prime_next = rd_prime_reg;
    rd_rot_next = rd_rot_reg;
    rd_lo_next = rd_lo_reg;
    rd_hi_next = rd_hi_reg;
    rd_free_next = rd_free_reg;

    last_valid_next = last_valid_reg;
    last_client_next = last_client_reg;
    last_beat_next = last_beat_reg;

    if (step) begin
        rd_beat_next = rd_beat_reg + {{PTR_WIDTH-1{1'b0}}, 1'b1};
        rd_step_next = rd_step_reg + {{STEP_WIDTH-1{1'b0}}, 1'b1};
    end
    if (step_read) begin
        last_valid_next = 1'b1;
        last_client_next = rd_client_reg;
        last_beat_next = rd_beat_reg;
    end

    if (cmd_pop) begin
        // with the beat the burst starts in still at hand, skip its read
        rd_active_next = 1'b1;
        rd_client_next = cmd_client;
        rd_beat_next = cmd_beat + {{PTR_WIDTH-1{1'b0}}, cmd_reuse};
        rd_step_next = {{STEP_WIDTH-1{1'b0}}, cmd_reuse};
        rd_last_step_next = cmd_last_step;
        rd_need_next = cmd_need_step;
        rd_prime_next = cmd_prime;
        rd_rot_next = (cmd_lane - cmd_lo) & GRAN_MASK;
        rd_lo_next = cmd_lo;
        rd_hi_next = cmd_hi;
        rd_free_next = cmd_free;
    end
end

always @(posedge clk) begin
    rd_active_reg <= rd_active_next;
    rd_client_reg <= rd_client_next;
    rd_beat_reg <= rd_beat_next;
    rd_step_reg <= rd_step_next;
    rd_last_step_reg <= rd_last_step_next;
    rd_need_reg <= rd_need_next;
    rd_prime_reg <= rd_prime_next;
    rd_rot_reg <= rd_rot_next;
    rd_lo_reg <= rd_lo_next;
    rd_hi_reg <= rd_hi_next;
    rd_free_reg <= rd_free_next;
    last_valid_reg <= last_valid_next;
    last_client_reg <= last_client_next;
    last_beat_reg <= last_beat_next;

    w1_valid_reg <= step;
    w1_read_reg <= step_read;
    w1_emit_reg <= step_emit;
    w1_client_reg <= rd_client_reg;
    w1_rot_reg <= rd_rot_reg;
    w1_first_reg <= step_first;
    w1_last_reg <= step_last;
    w1_lo_reg <= rd_lo_reg;
    w1_hi_reg <= rd_hi_reg;

    w2_valid_reg <= w1_valid_reg;
    w2_read_reg <= w1_read_reg;
    w2_emit_reg <= w1_emit_reg;
    w2_rot_reg <= w1_rot_reg;
    w2_first_reg <= w1_first_reg;
    w2_last_reg <= w1_last_reg;
    w2_lo_reg <= w1_lo_reg;
    w2_hi_reg <= w1_hi_reg;
    w2_cur_reg <= rd_data[w1_client_reg*DATA_WIDTH +: DATA_WIDTH];

    if (w2_valid_reg && w2_read_reg) begin
        prev_reg <= w2_cur_reg;
    end

    if (rst) begin
        rd_active_reg <= 1'b0;
        last_valid_reg <= 1'b0;
        w1_valid_reg <= 1'b0;
        w2_valid_reg <= 1'b0;
    end
end

/*
 * Realigner: W lane L is byte (L + rot) of the pair {current, previous} read
 */
wire [KEEP_WIDTH-1:0] cur_lanes = w2_rot_reg == {LANE_BITS{1'b0}} ? {KEEP_WIDTH{1'b1}} :
    ~({KEEP_WIDTH{1'b1}} << w2_rot_reg);
reg [DATA_WIDTH-1:0] mixed;
reg [DATA_WIDTH-1:0] w_data;
integer i;

always @* begin
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        mixed[i*8 +: 8] = cur_lanes[i] ? w2_cur_reg[i*8 +: 8] : prev_reg[i*8 +: 8];
    end
    w_data = mixed;
    for (i = 0; i < LANE_BITS; i = i + 1) begin
        if (w2_rot_reg[i]) begin
            w_data = (w_data >> (8 << i)) | (w_data << (DATA_WIDTH - (8 << i)));
        end
    end
end

// the burst's bytes: from its first lane on its first beat, to its last on its last
wire [KEEP_WIDTH-1:0] w_strb =
    (w2_first_reg ? {KEEP_WIDTH{1'b1}} << w2_lo_reg : {KEEP_WIDTH{1'b1}}) &
    (w2_last_reg ? {KEEP_WIDTH{1'b1}} >> ~w2_hi_reg : {KEEP_WIDTH{1'b1}});

dma_fifo #(
    .WIDTH(W_WIDTH),
    .ADDR_WIDTH(WF_ADDR_WIDTH),
    .REG_OUTPUT(1)
)
w_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data({w_data, w_strb, w2_last_reg}),
    .s_valid(w2_valid_reg && w2_emit_reg),
    .s_ready(),
    .m_data({m_axi_wdata, m_axi_wstrb, m_axi_wlast}),
    .m_valid(m_axi_wvalid),
    .m_ready(m_axi_wready),
    .count(wf_count)
);

assign m_axi_bready = 1'b1;

/*
 * Clients
 */
genvar c;
generate
    for (c = 0; c < CLIENTS; c = c + 1) begin : client
        localparam [AXI_ID_WIDTH-1:0] ID = c;
        localparam [CL_WIDTH-1:0] INDEX = c;
        localparam integer BUF_LOG = {28'd0, BUF_ADDR_WIDTH[c*4 +: 4]};
        localparam integer ALIGN = {29'd0, ALIGN_LOG[c*3 +: 3]};
        wire mine = rd_client_reg == INDEX;

        dma_wr_client #(
            .DATA_WIDTH(DATA_WIDTH),
            .KEEP_WIDTH(KEEP_WIDTH),
            .BUF_ADDR_WIDTH(BUF_LOG),
            .ALIGN_LOG(ALIGN),
            .BURST_ADDR_WIDTH(BURST_ADDR_WIDTH),
            .PTR_WIDTH(PTR_WIDTH),
            .LANE_BITS(LANE_BITS),
            .NEED_WIDTH(NEED_WIDTH)
        )
        client_inst (
            .clk(clk),
            .rst(rst),
            .s_req_addr(s_req_addr[c*64 +: 64]),
            .s_req_len(s_req_len[c*16 +: 16]),
            .s_req_valid(s_req_valid[c]),
            .s_req_ready(s_req_ready[c]),
            .s_axis_tdata(s_axis_tdata[c*DATA_WIDTH +: DATA_WIDTH]),
            .s_axis_tkeep(s_axis_tkeep[c*KEEP_WIDTH +: KEEP_WIDTH]),
            .s_axis_tvalid(s_axis_tvalid[c]),
            .s_axis_tready(s_axis_tready[c]),
            .s_axis_tlast(s_axis_tlast[c]),
            .m_burst_addr(burst_addr[c*64 +: 64]),
            .m_burst_len(burst_len[c*8 +: 8]),
            .m_burst_lo(burst_lo[c*LANE_BITS +: LANE_BITS]),
            .m_burst_hi(burst_hi[c*LANE_BITS +: LANE_BITS]),
            .m_burst_beat(burst_beat[c*PTR_WIDTH +: PTR_WIDTH]),
            .m_burst_lane(burst_lane[c*LANE_BITS +: LANE_BITS]),
            .m_burst_need(burst_need[c*NEED_WIDTH +: NEED_WIDTH]),
            .m_burst_free(burst_free[c*PTR_WIDTH +: PTR_WIDTH]),
            .m_burst_valid(burst_valid[c]),
            .m_burst_ready(burst_ready[c]),
            .s_rd_en(step_read && mine),
            .s_rd_addr(rd_beat_reg[BUF_LOG-1:0]),
            .m_rd_data(rd_data[c*DATA_WIDTH +: DATA_WIDTH]),
            .s_free_valid(step_read && mine),
            .s_free_ptr(rd_free_ptr),
            .s_b_valid(m_axi_bvalid && m_axi_bid == ID),
            .s_b_error(m_axi_bresp != 2'b00),
            .m_done_valid(m_done_valid[c]),
            .m_done_error(m_done_error[c])
        );
    end
endgenerate

endmodule

`resetall
