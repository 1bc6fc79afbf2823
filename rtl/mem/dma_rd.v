/*

DMA read engine: the read clients of the core merged onto the read channels of one AXI4
master (INCR bursts of whole beats, AxSIZE the bus width, never crossing 4 KiB; the ID
of a burst is its client's index).

    s_req[c] -> dma_rd_client[c] --burst--> round robin -> AR skid -> m_axi_ar
    m_axi_r -> stage A (beat, client, its rotation and bytes) -> stage B (rotate)
            -> dma_rd_client[c] buffer -> packer -> m_axis[c]

Requests: s_req_addr (bytes), s_req_len (bytes, 1 to 65535, never 0) and, for a stream
client, s_req_last (the request ends a packet). s_req_ready depends only on the client's
state; a client takes a request per cycle while its requests are one burst each.

- Aligned clients (STREAM bit 0): the address is a multiple of the beat and the length
  of whole beats. The beats come out as read, tkeep all ones, tlast on the last beat of
  each request.
- Stream clients: any address and length. The bytes of consecutive requests are packed
  into one byte stream from lane 0: beats are full but for the last of a packet, tkeep
  is contiguous from lane 0, tlast is on the beat with the last byte of a request that
  had s_req_last set.
- tuser is set on the tlast beat (and maybe on earlier ones) if a burst of the request
  (aligned) or of the packet (stream) was answered with RRESP other than OKAY; the data
  of such beats is not defined.
- Each client's data comes in request order; bursts of all clients are in flight
  together, many per client.

A client's burst is offered to the arbiter only once its buffer has room reserved for
all the burst's beats, so R is always taken (m_axi_rready is high) and a client that
stops taking data blocks no other client. The arbiter takes the clients in turn, one AR
per cycle at best.

Bursts start at the request's address (a stream's first beat may be partial) and are cut
at 4 KiB boundaries, or at the buffer's size for an aligned client with a smaller one.
Stage A registers the R beat with what the client's oldest burst in flight says about it
(the rotation, the bytes it holds, whether it ends a request or packet); stage B rotates
it and writes it into the client's buffer. The rotator is shared by all clients, so a
stream client costs its buffer and a lane multiplexer, not a byte shifter.

m_axis_* are driven from registers through that lane multiplexer (no register after
it), and m_axis_tready reaches only the client's buffer read.

Latency: AR two cycles after a request is taken; a beat is at m_axis two cycles after
its R handshake. A stream client's output has no bubble between requests or packets.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module dma_rd #
(
    // Width of the data path (AXI and client streams); bursts are of beats of this width
    parameter DATA_WIDTH = 512,
    // Width of tkeep
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // AXI ID bits (the ID of a burst is its client's index)
    parameter AXI_ID_WIDTH = 8,
    // Number of clients
    parameter CLIENTS = 12,
    // Which clients are byte streams (bit c for client c)
    parameter [CLIENTS-1:0] STREAM = {CLIENTS{1'b0}},
    // log2 of the beats a stream client's buffer holds: a client reading at one beat per
    // cycle needs more than a read round trip of beats (plus a burst)
    parameter STREAM_BUF_ADDR_WIDTH = 8,
    // log2 of the beats an aligned client's buffer holds (its bursts are at most that)
    parameter ALIGNED_BUF_ADDR_WIDTH = 4,
    // Which aligned clients hold more beats, and how many (log2): several of their
    // requests in flight at once
    parameter [CLIENTS-1:0] DEEP = {CLIENTS{1'b0}},
    parameter DEEP_BUF_ADDR_WIDTH = 6,
    // log2 of the bursts a client may have in flight
    parameter BURST_ADDR_WIDTH = 5
)
(
    input  wire                             clk,
    input  wire                             rst,

    /*
     * Read requests, client c at slice c
     */
    input  wire [CLIENTS*64-1:0]            s_req_addr,
    input  wire [CLIENTS*16-1:0]            s_req_len,
    input  wire [CLIENTS-1:0]               s_req_last,
    input  wire [CLIENTS-1:0]               s_req_valid,
    output wire [CLIENTS-1:0]               s_req_ready,

    /*
     * Read data, client c at slice c
     */
    output wire [CLIENTS*DATA_WIDTH-1:0]    m_axis_tdata,
    output wire [CLIENTS*KEEP_WIDTH-1:0]    m_axis_tkeep,
    output wire [CLIENTS-1:0]               m_axis_tvalid,
    input  wire [CLIENTS-1:0]               m_axis_tready,
    output wire [CLIENTS-1:0]               m_axis_tlast,
    output wire [CLIENTS-1:0]               m_axis_tuser,

    /*
     * AXI4 master: read channels
     */
    output wire [AXI_ID_WIDTH-1:0]          m_axi_arid,
    output wire [63:0]                      m_axi_araddr,
    output wire [7:0]                       m_axi_arlen,
    output wire [2:0]                       m_axi_arsize,
    output wire [1:0]                       m_axi_arburst,
    output wire                             m_axi_arvalid,
    input  wire                             m_axi_arready,
    input  wire [AXI_ID_WIDTH-1:0]          m_axi_rid,
    input  wire [DATA_WIDTH-1:0]            m_axi_rdata,
    input  wire [1:0]                       m_axi_rresp,
    input  wire                             m_axi_rlast,
    input  wire                             m_axi_rvalid,
    output wire                             m_axi_rready
);

localparam LANE_BITS = $clog2(KEEP_WIDTH);
localparam CL_WIDTH = CLIENTS > 1 ? $clog2(CLIENTS) : 1;
localparam AR_WIDTH = AXI_ID_WIDTH + 64 + 8;

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
wire [CLIENTS-1:0] burst_valid;
wire [CLIENTS-1:0] burst_ready;

wire [CLIENTS*LANE_BITS-1:0] info_rot, info_lo, info_hi;
wire [CLIENTS-1:0] info_end, info_mid, info_valid;
wire [CLIENTS-1:0] rbeat_valid;
wire [CLIENTS-1:0] buf_valid;

/*
 * Arbiter and AR
 */
wire [CLIENTS-1:0] grant;
wire grant_valid;
wire [CL_WIDTH-1:0] grant_index;
wire ar_s_ready;

dma_arb #(
    .PORTS(CLIENTS),
    .INDEX_WIDTH(CL_WIDTH)
)
arb_inst (
    .clk(clk),
    .rst(rst),
    .req(burst_valid),
    .take(ar_s_ready),
    .grant(grant),
    .grant_valid(grant_valid),
    .grant_index(grant_index)
);

assign burst_ready = ar_s_ready ? grant : {CLIENTS{1'b0}};

reg [AXI_ID_WIDTH-1:0] ar_id;

always @* begin
    ar_id = {AXI_ID_WIDTH{1'b0}};
    ar_id[CL_WIDTH-1:0] = grant_index;
end

wire [AXI_ID_WIDTH-1:0] ar_skid_id;

axis_skid #(
    .WIDTH(AR_WIDTH)
)
ar_skid_inst (
    .clk(clk),
    .rst(rst),
    .s_data({ar_id, burst_addr[grant_index*64 +: 64], burst_len[grant_index*8 +: 8]}),
    .s_valid(grant_valid),
    .s_ready(ar_s_ready),
    .m_data({ar_skid_id, m_axi_araddr, m_axi_arlen}),
    .m_valid(m_axi_arvalid),
    .m_ready(m_axi_arready)
);

assign m_axi_arid = ar_skid_id;
assign m_axi_arsize = 3'd6;     // 64-byte beats
assign m_axi_arburst = 2'b01;

/*
 * Stage A: the R beat, with what its burst's info says about it
 */
reg a_valid_reg = 1'b0, a_valid_next;
reg [CL_WIDTH-1:0] a_client_reg = {CL_WIDTH{1'b0}}, a_client_next;
reg [DATA_WIDTH-1:0] a_data_reg = {DATA_WIDTH{1'b0}}, a_data_next;
reg [LANE_BITS-1:0] a_rot_reg = {LANE_BITS{1'b0}}, a_rot_next;
reg [LANE_BITS-1:0] a_nm1_reg = {LANE_BITS{1'b0}}, a_nm1_next;
reg a_end_reg = 1'b0, a_end_next;
reg a_err_reg = 1'b0, a_err_next;

// the info of the client R answers
reg [LANE_BITS-1:0] r_rot, r_lo, r_hi;
reg r_end, r_mid, r_hit;
reg [CL_WIDTH-1:0] r_client;
integer i;

always @* begin
    r_rot = {LANE_BITS{1'b0}};
    r_lo = {LANE_BITS{1'b0}};
    r_hi = {LANE_BITS{1'b0}};
    r_end = 1'b0;
    r_mid = 1'b0;
    r_hit = 1'b0;
    r_client = {CL_WIDTH{1'b0}};
    for (i = 0; i < CLIENTS; i = i + 1) begin
        if (m_axi_rid == i[AXI_ID_WIDTH-1:0]) begin
            r_rot = info_rot[i*LANE_BITS +: LANE_BITS];
            r_lo = info_lo[i*LANE_BITS +: LANE_BITS];
            r_hi = info_hi[i*LANE_BITS +: LANE_BITS];
            r_end = info_end[i];
            r_mid = info_mid[i];
            r_hit = info_valid[i];
            r_client = i[CL_WIDTH-1:0];
        end
    end
end

assign m_axi_rready = 1'b1;

always @* begin
    a_valid_next = m_axi_rvalid && r_hit;
    a_client_next = r_client;
    a_data_next = m_axi_rdata;
    a_rot_next = r_rot;
    // the beat's lanes: from the burst's first lane on its first beat, to its last
    // lane on its last beat
    a_nm1_next = (m_axi_rlast ? r_hi : {LANE_BITS{1'b1}}) - (r_mid ? {LANE_BITS{1'b0}} : r_lo);
    a_end_next = m_axi_rlast && r_end;
    a_err_next = m_axi_rresp != 2'b00;
end

always @(posedge clk) begin
    a_valid_reg <= a_valid_next;
    a_client_reg <= a_client_next;
    a_data_reg <= a_data_next;
    a_rot_reg <= a_rot_next;
    a_nm1_reg <= a_nm1_next;
    a_end_reg <= a_end_next;
    a_err_reg <= a_err_next;

    if (rst) begin
        a_valid_reg <= 1'b0;
    end
end

/*
 * Stage B: rotate the beat to its output lanes, into the client's buffer
 */
reg [DATA_WIDTH-1:0] b_data;

always @* begin
    b_data = a_data_reg;
    for (i = 0; i < LANE_BITS; i = i + 1) begin
        if (a_rot_reg[i]) begin
            b_data = (b_data << (8 << i)) | (b_data >> (DATA_WIDTH - (8 << i)));
        end
    end
end

/*
 * Clients
 */
genvar c;
generate
    for (c = 0; c < CLIENTS; c = c + 1) begin : client
        localparam [AXI_ID_WIDTH-1:0] ID = c;
        localparam [CL_WIDTH-1:0] INDEX = c;

        assign rbeat_valid[c] = m_axi_rvalid && m_axi_rid == ID;
        assign buf_valid[c] = a_valid_reg && a_client_reg == INDEX;

        dma_rd_client #(
            .DATA_WIDTH(DATA_WIDTH),
            .KEEP_WIDTH(KEEP_WIDTH),
            .STREAM(STREAM[c]),
            .BUF_ADDR_WIDTH(STREAM[c] ? STREAM_BUF_ADDR_WIDTH :
                            DEEP[c] ? DEEP_BUF_ADDR_WIDTH : ALIGNED_BUF_ADDR_WIDTH),
            .BURST_ADDR_WIDTH(BURST_ADDR_WIDTH),
            .LANE_BITS(LANE_BITS)
        )
        client_inst (
            .clk(clk),
            .rst(rst),
            .s_req_addr(s_req_addr[c*64 +: 64]),
            .s_req_len(s_req_len[c*16 +: 16]),
            .s_req_last(s_req_last[c]),
            .s_req_valid(s_req_valid[c]),
            .s_req_ready(s_req_ready[c]),
            .m_burst_addr(burst_addr[c*64 +: 64]),
            .m_burst_len(burst_len[c*8 +: 8]),
            .m_burst_valid(burst_valid[c]),
            .m_burst_ready(burst_ready[c]),
            .m_info_rot(info_rot[c*LANE_BITS +: LANE_BITS]),
            .m_info_lo(info_lo[c*LANE_BITS +: LANE_BITS]),
            .m_info_hi(info_hi[c*LANE_BITS +: LANE_BITS]),
            .m_info_end(info_end[c]),
            .m_info_mid(info_mid[c]),
            .m_info_valid(info_valid[c]),
            .s_rbeat_valid(rbeat_valid[c] && info_valid[c]),
            .s_rbeat_last(m_axi_rlast),
            .s_buf_data(b_data),
            .s_buf_nm1(a_nm1_reg),
            .s_buf_end(a_end_reg),
            .s_buf_err(a_err_reg),
            .s_buf_valid(buf_valid[c]),
            .m_axis_tdata(m_axis_tdata[c*DATA_WIDTH +: DATA_WIDTH]),
            .m_axis_tkeep(m_axis_tkeep[c*KEEP_WIDTH +: KEEP_WIDTH]),
            .m_axis_tvalid(m_axis_tvalid[c]),
            .m_axis_tready(m_axis_tready[c]),
            .m_axis_tlast(m_axis_tlast[c]),
            .m_axis_tuser(m_axis_tuser[c])
        );
    end
endgenerate

endmodule

`resetall
