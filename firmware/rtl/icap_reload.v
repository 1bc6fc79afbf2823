/*

Reload: writes the boot address (WBSTAR) and sends IPROG through the configuration port,
so that the FPGA loads the bitstream at that flash address.

The sequence is UG570's "IPROG using ICAPE3": a dummy word, the sync word, a NOOP, a Type 1
write of WBSTAR and its value, a Type 1 write of CMD with IPROG, a NOOP. ICAPE3 takes each
byte with its bits in the reverse order of the bitstream file (UG570: "bit swapping"),
so the words are swapped here: 0xAA995566 goes out as 0x5599AA66. ICAPE3 runs at most
at 200 MHz (UG570): on a faster clk the board clocks it at clk / WORD_CYCLES (a divider of
clk, so the paths stay synchronous) and each word is held WORD_CYCLES cycles, so that
every ICAP clock edge sees one whole word, whatever the divider's phase.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module icap_reload #
(
    // clk cycles each word is held (the ICAP clock is clk / WORD_CYCLES)
    parameter WORD_CYCLES = 1
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Request: the boot address, and a start pulse
     */
    input  wire [31:0]                   wbstar,
    input  wire                          start,
    output wire                          busy,

    /*
     * ICAPE3 port (UG974): active-low select, 0 = write, data in
     */
    output wire                          icap_csib,
    output wire                          icap_rdwrb,
    output wire [31:0]                   icap_i,
    input  wire                          icap_avail
);

localparam [31:0]
    WORD_DUMMY = 32'hffffffff,
    WORD_SYNC = 32'haa995566,
    WORD_NOOP = 32'h20000000,
    WORD_WRITE_WBSTAR = 32'h30020001,   // Type 1, write, register 10h (WBSTAR), 1 word
    WORD_WRITE_CMD = 32'h30008001,      // Type 1, write, register 04h (CMD), 1 word
    WORD_IPROG = 32'h0000000f;
localparam WORDS = 8;
localparam integer HOLD_CYCLES = WORD_CYCLES - 1;

reg busy_reg = 1'b0, busy_next;
reg [3:0] index_reg = 4'd0, index_next;
reg csib_reg = 1'b1, csib_next;
reg [31:0] data_reg = 32'd0, data_next;
reg [31:0] wbstar_reg = 32'd0, wbstar_next;
reg [3:0] hold_reg = 4'd0, hold_next;

initial begin
    if (WORD_CYCLES < 1 || WORD_CYCLES > 15) begin
        $error("Error: %m: WORD_CYCLES must be 1..15 (%0d)", WORD_CYCLES);
        $finish;
    end
end

reg [31:0] word;
always @* begin
    case (index_reg)
        4'd0: word = WORD_DUMMY;
        4'd1: word = WORD_SYNC;
        4'd2: word = WORD_NOOP;
        4'd3: word = WORD_WRITE_WBSTAR;
        4'd4: word = wbstar_reg;
        4'd5: word = WORD_WRITE_CMD;
        4'd6: word = WORD_IPROG;
        default: word = WORD_NOOP;
    endcase
end

// the bits of each byte in reverse order
function [31:0] bit_swap(input [31:0] w);
    integer k;
    begin
        for (k = 0; k < 32; k = k + 1) begin
            bit_swap[k] = w[(k & ~7) + 7 - (k & 7)];
        end
    end
endfunction

always @* begin
    busy_next = busy_reg;
    index_next = index_reg;
    csib_next = 1'b1;
    data_next = data_reg;
    wbstar_next = wbstar_reg;
    hold_next = hold_reg;

    if (hold_reg != 0) begin
        // the word on the port stays for WORD_CYCLES cycles
        csib_next = 1'b0;
        hold_next = hold_reg - 1'b1;
    end else if (!busy_reg) begin
        if (start) begin
            busy_next = 1'b1;
            index_next = 4'd0;
            wbstar_next = wbstar;
        end
    end else if (icap_avail) begin
        csib_next = 1'b0;
        data_next = bit_swap(word);
        hold_next = HOLD_CYCLES[3:0];
        index_next = index_reg + 1'b1;
        if (index_reg == WORDS - 1) begin
            busy_next = 1'b0;
        end
    end
end

always @(posedge clk) begin
    busy_reg <= busy_next;
    index_reg <= index_next;
    csib_reg <= csib_next;
    data_reg <= data_next;
    wbstar_reg <= wbstar_next;
    hold_reg <= hold_next;

    if (rst) begin
        busy_reg <= 1'b0;
        index_reg <= 4'd0;
        csib_reg <= 1'b1;
        hold_reg <= 4'd0;
    end
end

assign busy = busy_reg || hold_reg != 0;
assign icap_csib = csib_reg;
assign icap_rdwrb = 1'b0;
assign icap_i = data_reg;

endmodule

`resetall
