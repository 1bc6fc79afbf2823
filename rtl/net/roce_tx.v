/*

RoCEv2 transmit path: one frame per header on the header bus, its payload from the
payload stream, out as an Ethernet frame without FCS.

The path computes what the header bus leaves to it: the IPv4 total length and checksum,
the UDP length, the BTH pad count, the UDP source port when the header gives none (the
flow-label hash Linux uses, of the local and remote QPNs, for ECMP entropy), zero pad
bytes, the ICRC, and zero padding to the Ethernet minimum (the MAC does not pad).

    s_hdr -> context (sport hash, header bytes, lengths, checksum)
    s_axis --------------> beat generator -+-> beat FIFO ---> ICRC patched in -> m_axis
                                           +-> roce_icrc --> results --+

The generator makes one beat per cycle: header bytes, then the payload shifted behind
them, then pad and a hole for the ICRC. The ICRC comes back a fixed number of cycles
later; the FIFO in between covers that, so frames leave back to back.

A payload stream that disagrees with PAYLOAD_LEN still gives a frame of the header's
length (missing bytes are zero, extra beats are dropped up to tlast) whose last beat has
m_axis_tuser set, so that the MAC aborts it.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module roce_tx #
(
    // Width of the frame and payload streams (64 or 512)
    parameter DATA_WIDTH = 512,
    // Width of tkeep
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // Pad frames shorter than 60 bytes with zeros after the ICRC
    parameter PAD_MIN_FRAME = 1,
    // log2 of the beats between the generator and the output: more than the ICRC's latency
    parameter FIFO_ADDR_WIDTH = 5
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Headers (contract: ROCE_HDR), one per frame
     */
    input  wire [`HROCE_ROCE_HDR_WIDTH-1:0] s_hdr_data,
    input  wire                          s_hdr_valid,
    output wire                          s_hdr_ready,

    /*
     * Payload: PAYLOAD_LEN bytes from lane 0, tlast on the last beat; none when it is 0
     */
    input  wire [DATA_WIDTH-1:0]         s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]         s_axis_tkeep,
    input  wire                          s_axis_tvalid,
    output wire                          s_axis_tready,
    input  wire                          s_axis_tlast,

    /*
     * Frames, without FCS; tuser on the last beat of a frame whose payload was wrong
     */
    output wire [DATA_WIDTH-1:0]         m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]         m_axis_tkeep,
    output wire                          m_axis_tvalid,
    input  wire                          m_axis_tready,
    output wire                          m_axis_tlast,
    output wire                          m_axis_tuser,

    /*
     * Status pulses, one per frame as its last beat leaves
     */
    output wire                          stat_frame,
    output wire                          stat_payload_error
);

localparam LANE_BITS = $clog2(KEEP_WIDTH);
localparam HDR_WIDTH = `HROCE_ROCE_HDR_WIDTH;
// The longest header: Ethernet + tag (18), IPv4 (20), UDP (8), BTH (12), AtomicETH (28)
localparam HDR_BYTES = 86;
// The beats that hold header bytes
localparam HDR_BEATS = (HDR_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;

initial begin
    if (DATA_WIDTH != 64 && DATA_WIDTH != 128 && DATA_WIDTH != 256 && DATA_WIDTH != 512) begin
        $error("Error: DATA_WIDTH must be 64, 128, 256 or 512 (instance %m)");
        $finish;
    end
    if (KEEP_WIDTH * 8 != DATA_WIDTH) begin
        $error("Error: KEEP_WIDTH must be DATA_WIDTH/8 (instance %m)");
        $finish;
    end
end

integer i;

/*
 * Stage 1: the header, and the product of the QPNs for the source port hash
 */
reg h1_valid_reg = 1'b0;
reg [HDR_WIDTH-1:0] h1_hdr_reg = {HDR_WIDTH{1'b0}};
reg [47:0] h1_product_reg = 48'd0;

wire ctx_load;                         // stage 2 takes stage 1's header
assign s_hdr_ready = !h1_valid_reg || ctx_load;

always @(posedge clk) begin
    if (s_hdr_ready) begin
        h1_valid_reg <= s_hdr_valid;
        h1_hdr_reg <= s_hdr_data;
        h1_product_reg <= s_hdr_data[`HROCE_ROCE_HDR_SRC_QPN] * s_hdr_data[`HROCE_ROCE_HDR_BTH_DQPN];
    end

    if (rst) begin
        h1_valid_reg <= 1'b0;
    end
end

/*
 * Stage 1 to 2: the frame's bytes and lengths
 */
wire [7:0] opcode = h1_hdr_reg[`HROCE_ROCE_HDR_BTH_OPCODE];
wire [12:0] payload_len = h1_hdr_reg[`HROCE_ROCE_HDR_PAYLOAD_LEN];
wire vlan = h1_hdr_reg[`HROCE_ROCE_HDR_VLAN_VALID];

wire op_deth, op_reth, op_atomic, op_aeth, op_atomicack, op_immdt, op_ieth;
wire [4:0] op_ext_len;

roce_opcode opcode_inst (
    .opcode(opcode),
    .valid(),
    .has_deth(op_deth),
    .has_reth(op_reth),
    .has_atomic(op_atomic),
    .has_aeth(op_aeth),
    .has_atomicack(op_atomicack),
    .has_immdt(op_immdt),
    .has_ieth(op_ieth),
    .has_payload(),
    .ext_len(op_ext_len)
);

// the flow label of the QP pair, folded into 14 bits (as Linux's rdma_flow_label_to_udp_sport)
// v ^= v >> 20; v ^= v >> 40; the low 20 bits
wire [19:0] fl = h1_product_reg[19:0] ^ h1_product_reg[39:20] ^ {12'd0, h1_product_reg[47:40]};
wire [15:0] sport_hash = `HROCE_ROCE_UDP_SPORT_MIN | {2'b00, fl[13:0] ^ {8'd0, fl[19:14]}};
wire [15:0] sport = h1_hdr_reg[`HROCE_ROCE_HDR_UDP_SPORT] != 16'd0 ?
                    h1_hdr_reg[`HROCE_ROCE_HDR_UDP_SPORT] : sport_hash;

wire [1:0] pad = 2'd0 - payload_len[1:0];
wire [15:0] l2_len = vlan ? 16'd18 : 16'd14;
wire [15:0] hdr_len = l2_len + 16'd40 + {11'd0, op_ext_len};
wire [15:0] ip_len = 16'd44 + {11'd0, op_ext_len} + {3'd0, payload_len} + {14'd0, pad};
wire [15:0] frame_len = l2_len + ip_len;
wire [15:0] out_len = (PAD_MIN_FRAME && frame_len < `HROCE_ROCE_MIN_FRAME) ?
                      `HROCE_ROCE_MIN_FRAME : frame_len;

wire [7:0] ip_tos = {h1_hdr_reg[`HROCE_ROCE_HDR_IP_DSCP], h1_hdr_reg[`HROCE_ROCE_HDR_IP_ECN]};
wire [15:0] ip_frag = {h1_hdr_reg[`HROCE_ROCE_HDR_IP_FLAGS], 13'd0};
wire [31:0] ip_src = h1_hdr_reg[`HROCE_ROCE_HDR_IP_SRC];
wire [47:0] eth_src = h1_hdr_reg[`HROCE_ROCE_HDR_ETH_SRC];
wire [31:0] ip_dst = h1_hdr_reg[`HROCE_ROCE_HDR_IP_DST];
wire [19:0] csum_sum = {4'd0, 8'h45, ip_tos} + {4'd0, ip_len} + {4'd0, h1_hdr_reg[`HROCE_ROCE_HDR_IP_ID]} +
                       {4'd0, ip_frag} + {4'd0, h1_hdr_reg[`HROCE_ROCE_HDR_IP_TTL], 8'd17} +
                       {4'd0, ip_src[31:16]} + {4'd0, ip_src[15:0]} +
                       {4'd0, ip_dst[31:16]} + {4'd0, ip_dst[15:0]};
wire [16:0] csum_fold1 = {1'b0, csum_sum[15:0]} + {13'd0, csum_sum[19:16]};
wire [15:0] csum_fold2 = csum_fold1[15:0] + {15'd0, csum_fold1[16]};
wire [15:0] ip_csum = ~csum_fold2;

// the IP packet's header bytes, then the frame's: each field big-endian at its offset
localparam IP_HDR_BYTES = HDR_BYTES - 18;
reg [IP_HDR_BYTES*8-1:0] ip;
reg [HDR_BYTES*8-1:0] hdr_bytes;
reg [63:0] f;

// the n low bytes of f, most significant first, at byte offset o of vector v
`define TX_PUT(v, n, o) for (i = 0; i < (n); i = i + 1) v[((o) + i)*8 +: 8] = f[((n) - 1 - i)*8 +: 8]

always @* begin
    ip = {IP_HDR_BYTES*8{1'b0}};
    f = {8'h45, ip_tos, ip_len, h1_hdr_reg[`HROCE_ROCE_HDR_IP_ID], ip_frag};
    `TX_PUT(ip, 8, 0);
    f = {h1_hdr_reg[`HROCE_ROCE_HDR_IP_TTL], 8'd17, ip_csum, ip_src};
    `TX_PUT(ip, 8, 8);
    f = {ip_dst, sport, `HROCE_ROCE_UDP_PORT};
    `TX_PUT(ip, 8, 16);
    f = {ip_len - 16'd20, 16'd0, opcode, h1_hdr_reg[`HROCE_ROCE_HDR_BTH_SE],
         h1_hdr_reg[`HROCE_ROCE_HDR_BTH_MIGREQ], pad, h1_hdr_reg[`HROCE_ROCE_HDR_BTH_TVER],
         h1_hdr_reg[`HROCE_ROCE_HDR_BTH_PKEY]};
    `TX_PUT(ip, 8, 24);
    f = {h1_hdr_reg[`HROCE_ROCE_HDR_BTH_FECN], h1_hdr_reg[`HROCE_ROCE_HDR_BTH_BECN], 6'd0,
         h1_hdr_reg[`HROCE_ROCE_HDR_BTH_DQPN], h1_hdr_reg[`HROCE_ROCE_HDR_BTH_ACKREQ], 7'd0,
         h1_hdr_reg[`HROCE_ROCE_HDR_BTH_PSN]};
    `TX_PUT(ip, 8, 32);
    // extension headers from byte 40, in IBTA order
    if (op_deth) begin
        f = {h1_hdr_reg[`HROCE_ROCE_HDR_DETH_QKEY], 8'd0, h1_hdr_reg[`HROCE_ROCE_HDR_DETH_SRC_QP]};
        `TX_PUT(ip, 8, 40);
    end
    if (op_reth) begin
        f = h1_hdr_reg[`HROCE_ROCE_HDR_RETH_VA];
        `TX_PUT(ip, 8, 40);
        f = {h1_hdr_reg[`HROCE_ROCE_HDR_RETH_RKEY], h1_hdr_reg[`HROCE_ROCE_HDR_RETH_DMA_LEN]};
        `TX_PUT(ip, 8, 48);
    end
    if (op_atomic) begin
        f = h1_hdr_reg[`HROCE_ROCE_HDR_ATOMIC_VA];
        `TX_PUT(ip, 8, 40);
        f = {32'd0, h1_hdr_reg[`HROCE_ROCE_HDR_ATOMIC_RKEY]};
        `TX_PUT(ip, 4, 48);
        f = h1_hdr_reg[`HROCE_ROCE_HDR_ATOMIC_SWAP_ADD];
        `TX_PUT(ip, 8, 52);
        f = h1_hdr_reg[`HROCE_ROCE_HDR_ATOMIC_COMPARE];
        `TX_PUT(ip, 8, 60);
    end
    if (op_aeth) begin
        f = {32'd0, h1_hdr_reg[`HROCE_ROCE_HDR_AETH_SYNDROME], h1_hdr_reg[`HROCE_ROCE_HDR_AETH_MSN]};
        `TX_PUT(ip, 4, 40);
    end
    if (op_atomicack) begin
        f = h1_hdr_reg[`HROCE_ROCE_HDR_ATOMICACK_ORIG];
        `TX_PUT(ip, 8, 44);
    end
    if (op_immdt) begin
        f = {32'd0, h1_hdr_reg[`HROCE_ROCE_HDR_IMMDT]};
        if (op_deth) begin
            `TX_PUT(ip, 4, 48);
        end else if (op_reth) begin
            `TX_PUT(ip, 4, 56);
        end else begin
            `TX_PUT(ip, 4, 40);
        end
    end
    if (op_ieth) begin
        f = {32'd0, h1_hdr_reg[`HROCE_ROCE_HDR_IETH_RKEY]};
        `TX_PUT(ip, 4, 40);
    end

    hdr_bytes = {HDR_BYTES*8{1'b0}};
    f = {h1_hdr_reg[`HROCE_ROCE_HDR_ETH_DST], eth_src[47:32]};
    `TX_PUT(hdr_bytes, 8, 0);
    if (vlan) begin
        f = {eth_src[31:0], `HROCE_ETH_TYPE_VLAN,
             h1_hdr_reg[`HROCE_ROCE_HDR_VLAN_TCI]};
        `TX_PUT(hdr_bytes, 8, 8);
        f = {48'd0, `HROCE_ETH_TYPE_IPV4};
        `TX_PUT(hdr_bytes, 2, 16);
        hdr_bytes[18*8 +: IP_HDR_BYTES*8] = ip;
    end else begin
        f = {16'd0, eth_src[31:0], `HROCE_ETH_TYPE_IPV4};
        `TX_PUT(hdr_bytes, 6, 8);
        hdr_bytes[14*8 +: IP_HDR_BYTES*8] = ip;
    end
end

`undef TX_PUT

/*
 * Stage 2: the frame being generated
 */
reg ctx_valid_reg = 1'b0;
reg [HDR_BYTES*8-1:0] ctx_hdr_reg = {HDR_BYTES*8{1'b0}};
reg [15:0] ctx_l2_reg = 16'd0;        // first byte the ICRC covers
reg [15:0] ctx_hdr_len_reg = 16'd0;   // first payload byte
reg [15:0] ctx_pay_end_reg = 16'd0;   // first byte after the payload
reg [15:0] ctx_icrc_reg = 16'd0;      // first ICRC byte (after the pad)
reg [15:0] ctx_out_len_reg = 16'd0;   // frame length, Ethernet padding included
reg [12:0] ctx_pay_beats_reg = 13'd0; // payload beats to take
reg [KEEP_WIDTH-1:0] ctx_pay_keep_reg = {KEEP_WIDTH{1'b0}}; // tkeep of the last one

wire gen_done;                        // the frame's last beat is generated this cycle
assign ctx_load = h1_valid_reg && (!ctx_valid_reg || gen_done);

localparam [12:0] KEEP_MASK13 = KEEP_WIDTH[12:0] - 13'd1;
// bytes in the last payload beat
wire [LANE_BITS:0] last_bytes = payload_len[LANE_BITS-1:0] == 0 ? KEEP_WIDTH[LANE_BITS:0] :
                                {1'b0, payload_len[LANE_BITS-1:0]};

always @(posedge clk) begin
    if (ctx_load) begin
        ctx_hdr_reg <= hdr_bytes;
        ctx_l2_reg <= l2_len;
        ctx_hdr_len_reg <= hdr_len;
        ctx_pay_end_reg <= hdr_len + {3'd0, payload_len};
        ctx_icrc_reg <= hdr_len + {3'd0, payload_len} + {14'd0, pad};
        ctx_out_len_reg <= out_len;
        ctx_pay_beats_reg <= (payload_len + KEEP_MASK13) >> LANE_BITS;
        ctx_pay_keep_reg <= ~({KEEP_WIDTH{1'b1}} << last_bytes);
    end
    if (ctx_load) begin
        ctx_valid_reg <= 1'b1;
    end else if (gen_done) begin
        ctx_valid_reg <= 1'b0;
    end

    if (rst) begin
        ctx_valid_reg <= 1'b0;
    end
end

/*
 * The beat generator: beat k holds frame bytes [k*KEEP_WIDTH, (k+1)*KEEP_WIDTH). From the
 * beat that holds the first payload byte on, each beat takes one payload beat: its lanes
 * from SH (= header length mod KEEP_WIDTH) up carry that beat's first bytes, the lanes
 * below SH the previous payload beat's last ones.
 */
localparam [15:0] KEEP16 = KEEP_WIDTH[15:0];

reg [15:0] pos_reg = 16'd0;           // frame offset of the beat's lane 0
reg [12:0] pay_taken_reg = 13'd0;     // payload beats taken for this frame
reg pay_ended_reg = 1'b0;             // tlast came early: the rest of the payload is zeros
reg pay_error_reg = 1'b0;             // the payload stream disagreed with PAYLOAD_LEN
reg discard_reg = 1'b0;               // dropping extra payload beats up to tlast
reg [DATA_WIDTH-1:0] prev_reg = {DATA_WIDTH{1'b0}};

wire fifo_ready;
wire [15:0] beat_end = pos_reg + KEEP16;
wire [15:0] pay_base = ctx_hdr_len_reg & ~(KEEP16 - 16'd1);
wire [15:0] taken_bytes = {3'd0, pay_taken_reg} << LANE_BITS;
// the beat's payload slot: the next payload beat belongs here (zeros once tlast came early)
wire pay_slot = ctx_pay_beats_reg != pay_taken_reg && pos_reg >= pay_base + taken_bytes;
wire pay_want = pay_slot && !pay_ended_reg;
wire gen_last = beat_end >= ctx_out_len_reg;
wire gen_go = ctx_valid_reg && !discard_reg && fifo_ready && (!pay_want || s_axis_tvalid);
assign gen_done = gen_go && gen_last;

wire discard_go = discard_reg && s_axis_tvalid;
assign s_axis_tready = discard_reg || (ctx_valid_reg && fifo_ready && pay_want);

wire pay_take = gen_go && pay_want;
wire [DATA_WIDTH-1:0] pay_now = pay_take ? s_axis_tdata : {DATA_WIDTH{1'b0}};
// a short payload ends before its last beat; a long one goes on after it, or fills more
// of its last beat than PAYLOAD_LEN says
wire pay_last_beat = pay_taken_reg + 13'd1 == ctx_pay_beats_reg;
wire pay_short = pay_take && s_axis_tlast && !pay_last_beat;
wire pay_long = pay_take && !s_axis_tlast && pay_last_beat;
wire pay_keep_bad = pay_take && pay_last_beat && s_axis_tkeep != ctx_pay_keep_reg;

// every RoCE header is 2 mod 4 bytes long (IPv4 without options)
wire [LANE_BITS-1:0] sh = {ctx_hdr_len_reg[LANE_BITS-1:2], 2'b10};
wire [2*DATA_WIDTH-1:0] window = {pay_now, prev_reg};

// lane offsets of the frame's boundaries in this beat (negative: already behind)
wire [16:0] off_l2 = {1'b0, ctx_l2_reg} - {1'b0, pos_reg};
wire [16:0] off_hdr = {1'b0, ctx_hdr_len_reg} - {1'b0, pos_reg};
wire [16:0] off_pay = {1'b0, ctx_pay_end_reg} - {1'b0, pos_reg};
wire [16:0] off_icrc = {1'b0, ctx_icrc_reg} - {1'b0, pos_reg};
wire [16:0] off_end = {1'b0, ctx_out_len_reg} - {1'b0, pos_reg};
wire [15:0] mask_rel = pos_reg - ctx_l2_reg;
wire [KEEP_WIDTH-1:0] masked;

roce_icrc_mask #(
    .KEEP_WIDTH(KEEP_WIDTH)
)
icrc_mask_inst (
    .ip_offset(mask_rel),
    .mask(masked)
);

reg [DATA_WIDTH-1:0] gen_data, crc_data;
reg [KEEP_WIDTH-1:0] gen_keep, crc_keep;

genvar g;
generate
    for (g = 0; g < KEEP_WIDTH; g = g + 1) begin : lane
        localparam [16:0] LANE = g;
        wire in_hdr = !off_hdr[16] && off_hdr > LANE;
        wire in_pay = !off_pay[16] && off_pay > LANE;
        reg [7:0] hdr_byte;
        integer k;

        always @* begin
            hdr_byte = 8'd0;
            for (k = 0; k < HDR_BEATS; k = k + 1) begin
                if (k * KEEP_WIDTH + g < HDR_BYTES && {16'd0, pos_reg} == k * KEEP_WIDTH) begin
                    hdr_byte = ctx_hdr_reg[(k * KEEP_WIDTH + g)*8 +: 8];
                end
            end
            gen_data[g*8 +: 8] = in_hdr ? hdr_byte :
                                 in_pay ? window[(KEEP_WIDTH + g - {{32-LANE_BITS{1'b0}}, sh})*8 +: 8] :
                                 8'd0;
            gen_keep[g] = !off_end[16] && off_end > LANE;
            crc_keep[g] = (off_l2[16] || off_l2 <= LANE) && !off_icrc[16] && off_icrc > LANE;
            // the invariant-masked fields: TOS, TTL, IP checksum, UDP checksum, BTH byte 4
            crc_data[g*8 +: 8] = masked[g] ? 8'hff : gen_data[g*8 +: 8];
        end
    end
endgenerate

wire crc_first = !off_l2[16] && off_l2 < {1'b0, KEEP16};
wire crc_last = !off_icrc[16] && off_icrc != 17'd0 && off_icrc <= {1'b0, KEEP16};
// the ICRC's lanes in this beat: its first byte at lane off_icrc (maybe negative)
wire icrc_here = (off_icrc[16] ? off_icrc > 17'h1fffc : off_icrc < {1'b0, KEEP16});
wire icrc_done = icrc_here && (off_icrc + 17'd3) < {1'b0, KEEP16};
wire gen_error = pay_error_reg || pay_short || pay_long || pay_keep_bad;

always @(posedge clk) begin
    if (gen_go && pay_slot) begin
        prev_reg <= pay_now;
    end
    if (gen_go) begin
        pos_reg <= gen_last ? 16'd0 : beat_end;
        pay_taken_reg <= gen_last ? 13'd0 : pay_taken_reg + {12'd0, pay_slot};
        pay_ended_reg <= gen_last ? 1'b0 : pay_ended_reg || pay_short;
        pay_error_reg <= gen_last ? 1'b0 : gen_error;
    end
    if (pay_long) begin
        discard_reg <= 1'b1;
    end else if (discard_go && s_axis_tlast) begin
        discard_reg <= 1'b0;
    end

    if (rst) begin
        pos_reg <= 16'd0;
        pay_taken_reg <= 13'd0;
        pay_ended_reg <= 1'b0;
        pay_error_reg <= 1'b0;
        discard_reg <= 1'b0;
    end
end

/*
 * The ICRC, and the beats waiting for it
 */
wire [31:0] icrc;
wire icrc_valid;

roce_icrc #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH)
)
icrc_inst (
    .clk(clk),
    .rst(rst),
    .s_data(crc_data),
    .s_keep(crc_keep),
    .s_valid(gen_go),
    .s_first(crc_first),
    .s_last(crc_last),
    .m_icrc(icrc),
    .m_valid(icrc_valid)
);

wire [31:0] r_icrc;
wire r_valid, r_ready;

// one result per frame, and at most one frame per beat waits in the beat FIFO
fifo_sync #(
    .WIDTH(32),
    .ADDR_WIDTH(FIFO_ADDR_WIDTH + 1)
)
result_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data(icrc),
    .s_valid(icrc_valid),
    .s_ready(),
    .m_data(r_icrc),
    .m_valid(r_valid),
    .m_ready(r_ready),
    .count()
);

localparam OFF_BITS = LANE_BITS + 2;
localparam BEAT_WIDTH = DATA_WIDTH + KEEP_WIDTH + 1 + 1 + OFF_BITS + 2;

wire [DATA_WIDTH-1:0] b_data;
wire [KEEP_WIDTH-1:0] b_keep;
wire b_last, b_user, b_icrc_here, b_icrc_done;
wire [OFF_BITS-1:0] b_off;
wire b_valid, b_ready;

fifo_sync #(
    .WIDTH(BEAT_WIDTH),
    .ADDR_WIDTH(FIFO_ADDR_WIDTH)
)
beat_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data({gen_data, gen_keep, gen_last, gen_last && gen_error, off_icrc[OFF_BITS-1:0],
             icrc_here, icrc_done}),
    .s_valid(gen_go),
    .s_ready(fifo_ready),
    .m_data({b_data, b_keep, b_last, b_user, b_off, b_icrc_here, b_icrc_done}),
    .m_valid(b_valid),
    .m_ready(b_ready),
    .count()
);

/*
 * Output: the ICRC's bytes go into their lanes as the beats leave
 */
wire out_ready;
wire out_valid = b_valid && (!b_icrc_here || r_valid);
assign b_ready = out_valid && out_ready;
assign r_ready = b_ready && b_icrc_done;

localparam [OFF_BITS-1:0] OFF_0 = 0, OFF_1 = 1, OFF_2 = 2, OFF_3 = 3;
reg [DATA_WIDTH-1:0] out_data;
always @* begin
    out_data = b_data;
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        if (b_icrc_here && b_off + OFF_0 == i[OFF_BITS-1:0]) out_data[i*8 +: 8] = r_icrc[7:0];
        if (b_icrc_here && b_off + OFF_1 == i[OFF_BITS-1:0]) out_data[i*8 +: 8] = r_icrc[15:8];
        if (b_icrc_here && b_off + OFF_2 == i[OFF_BITS-1:0]) out_data[i*8 +: 8] = r_icrc[23:16];
        if (b_icrc_here && b_off + OFF_3 == i[OFF_BITS-1:0]) out_data[i*8 +: 8] = r_icrc[31:24];
    end
end

axis_skid #(
    .WIDTH(DATA_WIDTH + KEEP_WIDTH + 2)
)
out_skid_inst (
    .clk(clk),
    .rst(rst),
    .s_data({b_user, b_last, b_keep, out_data}),
    .s_valid(out_valid),
    .s_ready(out_ready),
    .m_data({m_axis_tuser, m_axis_tlast, m_axis_tkeep, m_axis_tdata}),
    .m_valid(m_axis_tvalid),
    .m_ready(m_axis_tready)
);

assign stat_frame = m_axis_tvalid && m_axis_tready && m_axis_tlast;
assign stat_payload_error = stat_frame && m_axis_tuser;

endmodule

`resetall
