/*

RoCEv2 receive parser: the input side of roce_rx.

Takes Ethernet frames (without FCS) beat by beat and, without ever stalling on its own,
- writes every beat to the frame buffer (m_frame_*), cutting frames that grow past
  MAX_FRAME so that the buffer never holds more than one maximal frame per entry;
- captures the first HDR_BYTES bytes and, at the end of the frame, decodes every header
  field onto the header bus and checks the frame (frame_class and drop reason, all but the
  ICRC), writing one entry per frame (m_entry_*);
- feeds the bytes the ICRC covers, with the invariant fields masked to ones, to the ICRC
  engine one cycle after each beat arrives, and captures the received ICRC.

The verdict on the ICRC, and what happens to the frame, is roce_rx's business.

Only IPv4 without options and IPv6 without extension headers are RoCE here: every RoCE
header length is then 2 mod 4.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "hroce_contract.vh"

module roce_rx_parse #
(
    // Width of the frame stream (64 or 512)
    parameter DATA_WIDTH = 512,
    // Width of tkeep
    parameter KEEP_WIDTH = ((DATA_WIDTH+7)/8),
    // Largest frame accepted, in bytes (without FCS)
    parameter MAX_FRAME = 4224
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Ethernet frame input (the caller gates s_axis_tready with room downstream)
     */
    input  wire [DATA_WIDTH-1:0]         s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]         s_axis_tkeep,
    input  wire                          s_axis_tvalid,
    input  wire                          s_axis_tready,
    input  wire                          s_axis_tlast,
    input  wire                          s_axis_tuser,

    /*
     * Frame buffer write (no back-pressure: the caller keeps room for the beat)
     */
    output wire [DATA_WIDTH-1:0]         m_frame_tdata,
    output wire [KEEP_WIDTH-1:0]         m_frame_tkeep,
    output wire                          m_frame_tvalid,
    output wire                          m_frame_tlast,

    /*
     * One entry per frame, two cycles after its last beat (no back-pressure)
     */
    output wire [`HROCE_ROCE_HDR_WIDTH-1:0] m_entry_hdr,
    output wire [1:0]                    m_entry_class,    // CLASS_*
    output wire [`HROCE_ROCE_RX_DROP_WIDTH-1:0] m_entry_reason, // for CLASS_DROP
    output wire [`HROCE_NET_FRAME_WIDTH-1:0] m_entry_kind, // for CLASS_OTHER: NET_FRAME
    output wire [6:2]                    m_entry_payload_offset, // first payload byte (2 mod 4)
    output wire                          m_entry_icrc_fed, // the ICRC engine has a result for it
    output wire [31:0]                   m_entry_icrc,     // the ICRC the frame carries
    output wire                          m_entry_valid,

    /*
     * To the ICRC engine
     */
    output wire [DATA_WIDTH-1:0]         m_icrc_data,
    output wire [KEEP_WIDTH-1:0]         m_icrc_keep,
    output wire                          m_icrc_valid,
    output wire                          m_icrc_first,
    output wire                          m_icrc_last
);

localparam CLASS_ROCE = 2'd0;   // RoCE, good so far: the ICRC decides
localparam CLASS_OTHER = 2'd1;  // not RoCE: the non-RoCE output
localparam CLASS_DROP = 2'd2;   // dropped, m_entry_reason says why

// The longest header: Ethernet + tag (18), IPv6 (40), UDP (8), BTH (12), AtomicETH (28)
localparam HDR_BYTES = 106;
localparam LANE_BITS = $clog2(KEEP_WIDTH);

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

wire fire = s_axis_tvalid && s_axis_tready;

integer i;

/*
 * Stage 0: frame position, header capture, frame buffer write
 */
reg [15:0] pos_reg = 16'd0;           // bytes of the frame before this beat (saturating)
reg err_reg = 1'b0;                   // the MAC flagged a beat of this frame
reg cut_reg = 1'b0;                   // frame cut at MAX_FRAME: the rest is not buffered
reg [HDR_BYTES*8-1:0] hdr_reg = {HDR_BYTES*8{1'b0}};

// bytes in the beat (tkeep is contiguous from lane 0)
reg [LANE_BITS:0] beat_bytes;
always @* begin
    beat_bytes = 0;
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        if (s_axis_tkeep[i]) begin
            beat_bytes = beat_bytes + 1'b1;
        end
    end
end

wire [16:0] pos_sum = {1'b0, pos_reg} + {{16-LANE_BITS{1'b0}}, beat_bytes};
wire [15:0] pos_end = pos_sum[16] ? 16'hffff : pos_sum[15:0];
// a beat that is not the last, and full, takes the frame past MAX_FRAME: cut here
localparam CUT_POS = MAX_FRAME - KEEP_WIDTH;
wire cut_now = !s_axis_tlast && ({16'd0, pos_reg} > CUT_POS);

assign m_frame_tdata = s_axis_tdata;
assign m_frame_tkeep = s_axis_tkeep;
assign m_frame_tvalid = fire && !cut_reg;
assign m_frame_tlast = s_axis_tlast || cut_now;

genvar g;
generate
    for (g = 0; g < HDR_BYTES; g = g + 1) begin : capture
        localparam BEAT_POS = (g / KEEP_WIDTH) * KEEP_WIDTH;
        always @(posedge clk) begin
            if (fire && {16'd0, pos_reg} == BEAT_POS) begin
                hdr_reg[g*8 +: 8] <= s_axis_tdata[(g % KEEP_WIDTH)*8 +: 8];
            end
        end
    end
endgenerate

always @(posedge clk) begin
    if (fire) begin
        pos_reg <= s_axis_tlast ? 16'd0 : pos_end;
        err_reg <= s_axis_tlast ? 1'b0 : err_reg || s_axis_tuser;
        cut_reg <= s_axis_tlast ? 1'b0 : cut_reg || cut_now;
    end

    if (rst) begin
        pos_reg <= 16'd0;
        err_reg <= 1'b0;
        cut_reg <= 1'b0;
    end
end

/*
 * Stage 1: the beat again, with the header bytes up to it captured
 */
reg s1_valid_reg = 1'b0;
reg [DATA_WIDTH-1:0] s1_data_reg = {DATA_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0] s1_keep_reg = {KEEP_WIDTH{1'b0}};
reg s1_last_reg = 1'b0;
reg s1_err_reg = 1'b0;
reg [15:0] s1_pos_reg = 16'd0;        // frame offset of the beat's lane 0
reg [15:0] s1_len_reg = 16'd0;        // frame length up to the end of the beat

always @(posedge clk) begin
    s1_valid_reg <= fire;
    if (fire) begin
        s1_data_reg <= s_axis_tdata;
        s1_keep_reg <= s_axis_tkeep;
        s1_last_reg <= s_axis_tlast;
        s1_err_reg <= err_reg || s_axis_tuser;
        s1_pos_reg <= pos_reg;
        s1_len_reg <= pos_end;
    end

    if (rst) begin
        s1_valid_reg <= 1'b0;
    end
end

// byte n of the frame; big-endian fields of the IP header, and of the UDP header and
// what follows it (the transport headers), by byte offset
`define RX_HDR8(n) hdr_reg[(n)*8 +: 8]
`define RX_IP8(n) ip[(n)*8 +: 8]
`define RX_IP16(n) {`RX_IP8(n), `RX_IP8((n) + 1)}
`define RX_IP32(n) {`RX_IP16(n), `RX_IP16((n) + 2)}
`define RX_TP8(n) tp[(n)*8 +: 8]
`define RX_TP16(n) {`RX_TP8(n), `RX_TP8((n) + 1)}
`define RX_TP24(n) {`RX_TP8(n), `RX_TP16((n) + 1)}
`define RX_TP32(n) {`RX_TP16(n), `RX_TP16((n) + 2)}
`define RX_TP64(n) {`RX_TP32(n), `RX_TP32((n) + 4)}

// The Ethernet header, and the IP header's bytes wherever the tag put it
wire vlan = {`RX_HDR8(12), `RX_HDR8(13)} == `HROCE_ETH_TYPE_VLAN;
wire [15:0] ethertype = vlan ? {`RX_HDR8(16), `RX_HDR8(17)} : {`RX_HDR8(12), `RX_HDR8(13)};
wire [15:0] l2_len = vlan ? 16'd18 : 16'd14;
wire is_ipv4 = ethertype == `HROCE_ETH_TYPE_IPV4;
wire is_ipv6 = ethertype == `HROCE_ETH_TYPE_IPV6;
// the IP header's length: 20 (IPv4 without options) or 40 (IPv6)
localparam IP4_BYTES = 20, IP6_BYTES = `HROCE_IPV6_HDR_BYTES;
localparam [15:0] IP4_HDR_LEN = IP4_BYTES, IP6_HDR_LEN = IP6_BYTES;
wire [15:0] ip_hdr_len = is_ipv6 ? IP6_HDR_LEN : IP4_HDR_LEN;

localparam IP_BYTES = IP6_BYTES;
reg [IP_BYTES*8-1:0] ip;
always @* begin
    for (i = 0; i < IP_BYTES; i = i + 1) begin
        ip[i*8 +: 8] = vlan ? `RX_HDR8(18 + i) : `RX_HDR8(14 + i);
    end
end

// UDP, BTH and the extension headers, after whichever IP header: one 4-way choice per
// byte, so that everything after the UDP header is decoded once for both families
localparam TP_BYTES = HDR_BYTES - 18 - IP6_BYTES;
reg [TP_BYTES*8-1:0] tp;
always @* begin
    for (i = 0; i < TP_BYTES; i = i + 1) begin
        case ({vlan, is_ipv6})
            2'b00: tp[i*8 +: 8] = `RX_HDR8(14 + IP4_BYTES + i);
            2'b01: tp[i*8 +: 8] = `RX_HDR8(14 + IP6_BYTES + i);
            2'b10: tp[i*8 +: 8] = `RX_HDR8(18 + IP4_BYTES + i);
            default: tp[i*8 +: 8] = `RX_HDR8(18 + IP6_BYTES + i);
        endcase
    end
end

// the IP packet's length: IPv4's total length, or IPv6's fixed header and payload length
wire [16:0] ip_total = is_ipv6 ? {1'b0, IP6_HDR_LEN} + {1'b0, `RX_IP16(4)} : {1'b0, `RX_IP16(2)};

/*
 * ICRC feed: coverage runs from the IP header to 4 bytes before the IP packet's end.
 * An IP length too small for RoCE still covers the IP, UDP and BTH headers: such a frame
 * is dropped for its length, and its ICRC only has to be computed, not be right.
 */
wire [16:0] cov_min = {1'b0, ip_hdr_len} + 17'd20;
wire [16:0] cov_end = {1'b0, l2_len} + ((ip_total < cov_min + 17'd4) ? cov_min : ip_total - 17'd4);
// the coverage's first and end lanes in this beat, relative to lane 0 (may be out of range)
wire [17:0] start_off = {2'b0, l2_len} - {2'b0, s1_pos_reg};
wire [17:0] end_off = {1'b0, cov_end} - {2'b0, s1_pos_reg};

reg [KEEP_WIDTH-1:0] cov_keep;
reg [DATA_WIDTH-1:0] cov_data;
reg [31:0] icrc_found;
reg [31:0] icrc_reg = 32'd0;
// the variant fields, read as ones (roce_icrc_mask says which for each IP version)
wire [15:0] mask_rel = s1_pos_reg - l2_len;
wire [KEEP_WIDTH-1:0] masked, masked_low;

roce_icrc_mask #(
    .KEEP_WIDTH(KEEP_WIDTH)
)
icrc_mask_inst (
    .ip_offset(mask_rel),
    .ipv6(is_ipv6),
    .mask(masked),
    .mask_low(masked_low)
);

generate
    for (g = 0; g < KEEP_WIDTH; g = g + 1) begin : lane
        localparam [17:0] LANE = g;
        always @* begin
            cov_keep[g] = s1_keep_reg[g] && (start_off[17] || start_off <= LANE) &&
                          !end_off[17] && end_off > LANE;
            cov_data[g*8 +: 8] = s1_data_reg[g*8 +: 8];
            if (masked[g]) begin
                cov_data[g*8 +: 8] = 8'hff;
            end
            if (masked_low[g]) begin
                cov_data[g*8 +: 4] = 4'hf;
            end
        end
    end
endgenerate

// the received ICRC: the 4 bytes from cov_end on, wherever they fall
always @* begin
    icrc_found = icrc_reg;
    for (i = 0; i < 4; i = i + 1) begin
        if ({14'd0, end_off + i[17:0]} < KEEP_WIDTH) begin
            // a frame whose ICRC is compared has it 2 mod 4 bytes into the frame
            icrc_found[i*8 +: 8] = s1_data_reg[({end_off[LANE_BITS-1:2], 2'b10} + i[LANE_BITS-1:0])*8 +: 8];
        end
    end
end

reg [1:0] cov_state_reg = 2'd0;       // 0: not started, 1: started, 2: done
wire cov_any = |cov_keep;
wire cov_first = s1_valid_reg && cov_state_reg == 2'd0 && cov_any;
wire cov_open = cov_first || (cov_state_reg == 2'd1);
wire cov_last = s1_valid_reg && cov_open &&
                ((!end_off[17] && {14'd0, end_off} <= KEEP_WIDTH) || s1_last_reg);

assign m_icrc_data = cov_data;
assign m_icrc_keep = cov_keep;
assign m_icrc_valid = s1_valid_reg && cov_open;
assign m_icrc_first = cov_first;
assign m_icrc_last = cov_last;

always @(posedge clk) begin
    if (s1_valid_reg) begin
        icrc_reg <= icrc_found;
        if (s1_last_reg) begin
            cov_state_reg <= 2'd0;
        end else if (cov_last) begin
            cov_state_reg <= 2'd2;
        end else if (cov_first) begin
            cov_state_reg <= 2'd1;
        end
    end

    if (rst) begin
        cov_state_reg <= 2'd0;
    end
end

/*
 * Header decode and checks, at the frame's last beat
 */
wire [7:0] opcode = `RX_TP8(8);

wire op_valid, op_deth, op_reth, op_atomic, op_aeth, op_atomicack, op_immdt, op_ieth;
wire op_payload;
wire [4:0] op_ext_len;

roce_opcode opcode_inst (
    .opcode(opcode),
    .valid(op_valid),
    .has_deth(op_deth),
    .has_reth(op_reth),
    .has_atomic(op_atomic),
    .has_aeth(op_aeth),
    .has_atomicack(op_atomicack),
    .has_immdt(op_immdt),
    .has_ieth(op_ieth),
    .has_payload(op_payload),
    .ext_len(op_ext_len)
);

// the IPv4 header checksum, folded: all ones when right
reg [19:0] csum_sum;
always @* begin
    csum_sum = {4'd0, `RX_IP16(0)} + {4'd0, `RX_IP16(2)} + {4'd0, `RX_IP16(4)} + {4'd0, `RX_IP16(6)} +
               {4'd0, `RX_IP16(8)} + {4'd0, `RX_IP16(10)} + {4'd0, `RX_IP16(12)} + {4'd0, `RX_IP16(14)} +
               {4'd0, `RX_IP16(16)} + {4'd0, `RX_IP16(18)};
end
wire [16:0] csum_fold1 = {1'b0, csum_sum[15:0]} + {13'd0, csum_sum[19:16]};
wire [15:0] csum_fold2 = csum_fold1[15:0] + {15'd0, csum_fold1[16]};

// IPv4's TOS, or IPv6's traffic class
wire [7:0] ip_tos = is_ipv6 ? {ip[3:0], ip[15:12]} : `RX_IP8(1);
wire [7:0] bth_flags = `RX_TP8(9);
wire [1:0] bth_pad = bth_flags[5:4];
wire [3:0] bth_tver = bth_flags[3:0];
// extension headers start after UDP (8) and BTH (12)
localparam EXT = 20;
wire [16:0] roce_min_ip_len = {1'b0, ip_hdr_len} + 17'd24 + {12'd0, op_ext_len} + {15'd0, bth_pad};
wire [16:0] payload_len_full = ip_total - roce_min_ip_len;
wire [12:0] payload_len = payload_len_full[12:0];
wire [15:0] payload_offset = l2_len + ip_hdr_len + EXT + {11'd0, op_ext_len};
wire [15:0] frame_len = s1_len_reg;

// IPv4's protocol, or IPv6's next header
wire [7:0] ip_proto = is_ipv6 ? `RX_IP8(6) : `RX_IP8(9);
wire is_roce_port = ip_proto == `HROCE_IP_PROTO_UDP && `RX_TP16(2) == `HROCE_ROCE_UDP_PORT;
// the IPv6 next-header values that are extension headers (the contract lists them)
wire ip6_ext = is_ipv6 && (ip_proto == 8'd0 || ip_proto == 8'd43 || ip_proto == 8'd44 ||
                           ip_proto == 8'd50 || ip_proto == 8'd51 || ip_proto == 8'd60 ||
                           ip_proto == 8'd135 || ip_proto == 8'd139 || ip_proto == 8'd140 ||
                           ip_proto == 8'd253 || ip_proto == 8'd254);
wire [15:0] ip_frag = `RX_IP16(6);
// IPv4: not version 4 with a 20-byte header, or a fragment (MF set, or an offset);
// IPv6: not version 6
wire ip_header_bad = is_ipv6 ? ip[7:4] != 4'd6 :
                     (`RX_IP8(0) != 8'h45 || ip_frag[13] || ip_frag[12:0] != 13'd0);
wire [7:0] ip6_hop_limit = `RX_IP8(7);
// frame bytes needed to tell whether RoCE: up to the UDP destination port
wire [15:0] tell_len = l2_len + ip_hdr_len + 16'd4;

// what a non-RoCE frame is, for the ARP, ICMP and ND blocks behind roce_rx (untagged only)
wire is_arp = !vlan && ethertype == `HROCE_ETH_TYPE_ARP;
wire is_icmp = !vlan && is_ipv4 && `RX_IP8(9) == `HROCE_IP_PROTO_ICMP;
wire is_icmp6 = !vlan && is_ipv6 && `RX_IP8(6) == `HROCE_IP_PROTO_ICMPV6;
wire [`HROCE_NET_FRAME_WIDTH-1:0] kind = is_arp ? `HROCE_NET_FRAME_ARP :
                                         is_icmp ? `HROCE_NET_FRAME_ICMP :
                                         is_icmp6 ? `HROCE_NET_FRAME_ICMPV6 :
                                         `HROCE_NET_FRAME_OTHER;

reg [1:0] frame_class;
reg [`HROCE_ROCE_RX_DROP_WIDTH-1:0] reason;
always @* begin
    frame_class = CLASS_DROP;
    reason = `HROCE_ROCE_RX_DROP_OK;
    if (frame_len < l2_len) begin
        // shorter than its Ethernet header (bytes 12-13 say whether it has a tag)
        reason = `HROCE_ROCE_RX_DROP_RUNT;
    end else if (s1_err_reg) begin
        reason = `HROCE_ROCE_RX_DROP_MAC_ERROR;
    end else if (frame_len > MAX_FRAME) begin
        reason = `HROCE_ROCE_RX_DROP_GIANT;
    end else if (!is_ipv4 && !is_ipv6) begin
        frame_class = CLASS_OTHER;
    end else if (frame_len < tell_len) begin
        reason = `HROCE_ROCE_RX_DROP_TRUNCATED;   // IP, but too short to tell whether RoCE
    end else if (ip6_ext) begin
        reason = `HROCE_ROCE_RX_DROP_IP6_EXT_HEADER;
    end else if (!is_roce_port) begin
        frame_class = CLASS_OTHER;
    end else if (frame_len < l2_len + ip_hdr_len + EXT || frame_len < payload_offset ||
                 {1'b0, frame_len} < {1'b0, l2_len} + ip_total) begin
        reason = `HROCE_ROCE_RX_DROP_TRUNCATED;
    end else if (ip_header_bad) begin
        reason = `HROCE_ROCE_RX_DROP_IP_HEADER;
    end else if (!is_ipv6 && csum_fold2 != 16'hffff) begin
        reason = `HROCE_ROCE_RX_DROP_IP_CHECKSUM;
    end else if (is_ipv6 && ip6_hop_limit == 8'd0) begin
        reason = `HROCE_ROCE_RX_DROP_IP6_HOP_LIMIT;
    end else if (!op_valid || bth_tver != 4'd0) begin
        reason = `HROCE_ROCE_RX_DROP_BAD_OPCODE;
    end else if ({1'b0, `RX_TP16(4)} != ip_total - {1'b0, ip_hdr_len} ||
                 payload_len_full[16:13] != 4'd0 ||
                 ip_total[1:0] != 2'd0 ||  // the pad count must align the payload
                 ({1'b0, frame_len} != {1'b0, l2_len} + ip_total &&
                  frame_len != `HROCE_ROCE_MIN_FRAME) ||
                 (!op_payload && payload_len != 13'd0)) begin
        reason = `HROCE_ROCE_RX_DROP_LENGTH;
    end else begin
        frame_class = CLASS_ROCE;
    end
end

// the header bus; fields the opcode does not carry are zero
reg [`HROCE_ROCE_HDR_WIDTH-1:0] hdr;
always @* begin
    hdr = {`HROCE_ROCE_HDR_WIDTH{1'b0}};
    hdr[`HROCE_ROCE_HDR_ETH_DST] = {`RX_HDR8(0), `RX_HDR8(1), `RX_HDR8(2), `RX_HDR8(3), `RX_HDR8(4), `RX_HDR8(5)};
    hdr[`HROCE_ROCE_HDR_ETH_SRC] = {`RX_HDR8(6), `RX_HDR8(7), `RX_HDR8(8), `RX_HDR8(9), `RX_HDR8(10), `RX_HDR8(11)};
    hdr[`HROCE_ROCE_HDR_VLAN_VALID] = vlan;
    hdr[`HROCE_ROCE_HDR_VLAN_TCI] = vlan ? {`RX_HDR8(14), `RX_HDR8(15)} : 16'd0;
    hdr[`HROCE_ROCE_HDR_IP_DSCP] = ip_tos[7:2];
    hdr[`HROCE_ROCE_HDR_IP_ECN] = ip_tos[1:0];
    if (is_ipv6) begin
        hdr[`HROCE_ROCE_HDR_IP6] = 1'b1;
        hdr[`HROCE_ROCE_HDR_IP6_FLOW_LABEL] = {ip[11:8], `RX_IP16(2)};
        hdr[`HROCE_ROCE_HDR_IP_TTL] = ip6_hop_limit;
        hdr[`HROCE_ROCE_HDR_IP6_SRC] = {`RX_IP32(8), `RX_IP32(12), `RX_IP32(16), `RX_IP32(20)};
        hdr[`HROCE_ROCE_HDR_IP6_DST] = {`RX_IP32(24), `RX_IP32(28), `RX_IP32(32), `RX_IP32(36)};
    end else begin
        hdr[`HROCE_ROCE_HDR_IP_ID] = `RX_IP16(4);
        hdr[`HROCE_ROCE_HDR_IP_FLAGS] = ip_frag[15:13];
        hdr[`HROCE_ROCE_HDR_IP_TTL] = `RX_IP8(8);
        hdr[`HROCE_ROCE_HDR_IP_SRC] = `RX_IP32(12);
        hdr[`HROCE_ROCE_HDR_IP_DST] = `RX_IP32(16);
    end
    hdr[`HROCE_ROCE_HDR_UDP_SPORT] = `RX_TP16(0);
    hdr[`HROCE_ROCE_HDR_BTH_OPCODE] = opcode;
    hdr[`HROCE_ROCE_HDR_BTH_SE] = bth_flags[7];
    hdr[`HROCE_ROCE_HDR_BTH_MIGREQ] = bth_flags[6];
    hdr[`HROCE_ROCE_HDR_BTH_PAD] = bth_pad;
    hdr[`HROCE_ROCE_HDR_BTH_TVER] = bth_tver;
    hdr[`HROCE_ROCE_HDR_BTH_PKEY] = `RX_TP16(10);
    hdr[`HROCE_ROCE_HDR_BTH_FECN] = tp[12*8+7];
    hdr[`HROCE_ROCE_HDR_BTH_BECN] = tp[12*8+6];
    hdr[`HROCE_ROCE_HDR_BTH_DQPN] = `RX_TP24(13);
    hdr[`HROCE_ROCE_HDR_BTH_ACKREQ] = tp[16*8+7];
    hdr[`HROCE_ROCE_HDR_BTH_PSN] = `RX_TP24(17);
    if (op_deth) begin
        hdr[`HROCE_ROCE_HDR_DETH_QKEY] = `RX_TP32(EXT);
        hdr[`HROCE_ROCE_HDR_DETH_SRC_QP] = `RX_TP24(EXT + 5);
    end
    if (op_reth) begin
        hdr[`HROCE_ROCE_HDR_RETH_VA] = `RX_TP64(EXT);
        hdr[`HROCE_ROCE_HDR_RETH_RKEY] = `RX_TP32(EXT + 8);
        hdr[`HROCE_ROCE_HDR_RETH_DMA_LEN] = `RX_TP32(EXT + 12);
    end
    if (op_atomic) begin
        hdr[`HROCE_ROCE_HDR_ATOMIC_VA] = `RX_TP64(EXT);
        hdr[`HROCE_ROCE_HDR_ATOMIC_RKEY] = `RX_TP32(EXT + 8);
        hdr[`HROCE_ROCE_HDR_ATOMIC_SWAP_ADD] = `RX_TP64(EXT + 12);
        hdr[`HROCE_ROCE_HDR_ATOMIC_COMPARE] = `RX_TP64(EXT + 20);
    end
    if (op_aeth) begin
        hdr[`HROCE_ROCE_HDR_AETH_SYNDROME] = `RX_TP8(EXT);
        hdr[`HROCE_ROCE_HDR_AETH_MSN] = `RX_TP24(EXT + 1);
    end
    if (op_atomicack) begin
        hdr[`HROCE_ROCE_HDR_ATOMICACK_ORIG] = `RX_TP64(EXT + 4);
    end
    if (op_immdt) begin
        // after DETH or RETH when the opcode has one
        hdr[`HROCE_ROCE_HDR_IMMDT] = op_deth ? `RX_TP32(EXT + 8) :
                                     op_reth ? `RX_TP32(EXT + 16) : `RX_TP32(EXT);
    end
    if (op_ieth) begin
        hdr[`HROCE_ROCE_HDR_IETH_RKEY] = `RX_TP32(EXT);
    end
    hdr[`HROCE_ROCE_HDR_PAYLOAD_LEN] = (frame_class == CLASS_ROCE) ? payload_len : 13'd0;
end

/*
 * Stage 2: the entry
 */
reg entry_valid_reg = 1'b0;
reg [`HROCE_ROCE_HDR_WIDTH-1:0] entry_hdr_reg = {`HROCE_ROCE_HDR_WIDTH{1'b0}};
reg [1:0] entry_class_reg = 2'd0;
reg [`HROCE_ROCE_RX_DROP_WIDTH-1:0] entry_reason_reg = 0;
reg [`HROCE_NET_FRAME_WIDTH-1:0] entry_kind_reg = 0;
reg [6:2] entry_offset_reg = 5'd0;
reg entry_fed_reg = 1'b0;
reg [31:0] entry_icrc_reg = 32'd0;

always @(posedge clk) begin
    entry_valid_reg <= s1_valid_reg && s1_last_reg;
    if (s1_valid_reg && s1_last_reg) begin
        entry_hdr_reg <= hdr;
        entry_class_reg <= frame_class;
        entry_reason_reg <= reason;
        entry_kind_reg <= kind;
        entry_offset_reg <= payload_offset[6:2];
        entry_fed_reg <= cov_first || cov_state_reg != 2'd0;
        entry_icrc_reg <= icrc_found;
    end

    if (rst) begin
        entry_valid_reg <= 1'b0;
    end
end

assign m_entry_hdr = entry_hdr_reg;
assign m_entry_class = entry_class_reg;
assign m_entry_reason = entry_reason_reg;
assign m_entry_kind = entry_kind_reg;
assign m_entry_payload_offset = entry_offset_reg;
assign m_entry_icrc_fed = entry_fed_reg;
assign m_entry_icrc = entry_icrc_reg;
assign m_entry_valid = entry_valid_reg;

endmodule

`undef RX_HDR8
`undef RX_IP8
`undef RX_IP16
`undef RX_IP32
`undef RX_TP8
`undef RX_TP16
`undef RX_TP24
`undef RX_TP32
`undef RX_TP64

`resetall
