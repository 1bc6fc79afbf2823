/*

RoCEv2 opcode decoder: which extension headers follow the BTH, in IBTA order
(DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH), their total length, and
whether the packet carries payload. Covers every RC opcode (0x00-0x14, 0x16, 0x17),
every UC opcode (0x20-0x2b) and UD SEND_ONLY / SEND_ONLY_WITH_IMMEDIATE (0x64, 0x65).

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module roce_opcode
(
    input  wire [7:0] opcode,

    output reg        valid,        // a known opcode
    output reg        has_deth,     // 8 bytes
    output reg        has_reth,     // 16 bytes
    output reg        has_atomic,   // AtomicETH, 28 bytes
    output reg        has_aeth,     // 4 bytes
    output reg        has_atomicack,// 8 bytes
    output reg        has_immdt,    // 4 bytes
    output reg        has_ieth,     // 4 bytes
    output reg        has_payload,  // may carry payload
    output wire [4:0] ext_len       // bytes of extension headers
);

// RC and UC share the low five bits of their SEND and RDMA WRITE opcodes
wire [4:0] op = opcode[4:0];
wire rc = opcode[7:5] == 3'b000;
wire uc = opcode[7:5] == 3'b001;
wire ud = opcode[7:5] == 3'b011;

assign ext_len = (has_deth ? 5'd8 : 5'd0) + (has_reth ? 5'd16 : 5'd0) +
                 (has_atomic ? 5'd28 : 5'd0) + (has_aeth ? 5'd4 : 5'd0) +
                 (has_atomicack ? 5'd8 : 5'd0) + (has_immdt ? 5'd4 : 5'd0) +
                 (has_ieth ? 5'd4 : 5'd0);

always @* begin
    valid = 1'b0;
    has_deth = 1'b0;
    has_reth = 1'b0;
    has_atomic = 1'b0;
    has_aeth = 1'b0;
    has_atomicack = 1'b0;
    has_immdt = 1'b0;
    has_ieth = 1'b0;
    has_payload = 1'b0;

    if ((rc || uc) && op <= 5'h0b) begin
        // SEND_FIRST .. RDMA_WRITE_ONLY_WITH_IMMEDIATE
        valid = 1'b1;
        has_payload = 1'b1;
        has_reth = op == 5'h06 || op == 5'h0a || op == 5'h0b;
        has_immdt = op == 5'h03 || op == 5'h05 || op == 5'h09 || op == 5'h0b;
    end else if (rc) begin
        case (op)
            5'h0c: begin valid = 1'b1; has_reth = 1'b1; end                          // RDMA_READ_REQUEST
            5'h0d, 5'h0f, 5'h10: begin valid = 1'b1; has_aeth = 1'b1; has_payload = 1'b1; end
            5'h0e: begin valid = 1'b1; has_payload = 1'b1; end                      // READ_RESPONSE_MIDDLE
            5'h11: begin valid = 1'b1; has_aeth = 1'b1; end                          // ACKNOWLEDGE
            5'h12: begin valid = 1'b1; has_aeth = 1'b1; has_atomicack = 1'b1; end    // ATOMIC_ACKNOWLEDGE
            5'h13, 5'h14: begin valid = 1'b1; has_atomic = 1'b1; end                 // CMP_SWAP, FETCH_ADD
            5'h16, 5'h17: begin valid = 1'b1; has_ieth = 1'b1; has_payload = 1'b1; end // SEND_*_WITH_INVALIDATE
            default: valid = 1'b0;
        endcase
    end else if (ud && (op == 5'h04 || op == 5'h05)) begin
        // SEND_ONLY, SEND_ONLY_WITH_IMMEDIATE
        valid = 1'b1;
        has_deth = 1'b1;
        has_immdt = op == 5'h05;
        has_payload = 1'b1;
    end
end

endmodule

`resetall
