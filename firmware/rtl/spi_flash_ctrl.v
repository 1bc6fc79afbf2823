/*

SPI flash controller: the host gives bytes, the controller shifts them.

The host selects the flash (cs), then starts transfers of 1 to 4 bytes: each byte goes out
on MOSI most significant bit first while a byte comes in on MISO (SPI mode 0: the clock
idles low, both sides sample on the rising edge, MOSI changes after the falling edge).
Command, address and data bytes are all transfers; a read takes dummy bytes out and the
flash's bytes in. The flash clock is clk / (2 * (DIV + 1)). On the board the pins go
through STARTUPE3 (the configuration flash's pins after configuration, UG570).

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module spi_flash_ctrl #
(
    // clock divider bits (SCK = clk / (2 * (div + 1)))
    parameter DIV_WIDTH = 8
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Control: chip select level, divider, and transfers of 1..4 bytes
     * (byte 0 in bits 7:0 goes first; received bytes land in the same places)
     */
    input  wire                          cs,
    input  wire [DIV_WIDTH-1:0]          div,
    input  wire [31:0]                   tx_data,
    input  wire [2:0]                    tx_count,
    input  wire                          start,
    output wire                          busy,
    output wire [31:0]                   rx_data,

    /*
     * SPI pins (single-bit SPI)
     */
    output wire                          spi_sck,
    output wire                          spi_cs_n,
    output wire                          spi_mosi,
    input  wire                          spi_miso
);

reg busy_reg = 1'b0, busy_next;
reg sck_reg = 1'b0, sck_next;
reg mosi_reg = 1'b0, mosi_next;
reg [31:0] tx_reg = 32'd0, tx_next;
reg [31:0] rx_reg = 32'd0, rx_next;
reg [4:0] bit_reg = 5'd0, bit_next;
reg [4:0] last_bit_reg = 5'd0, last_bit_next;
reg [DIV_WIDTH-1:0] wait_reg = {DIV_WIDTH{1'b0}}, wait_next;

// bit n of the transfer: byte n/8, most significant bit first
wire [4:0] tx_index = {bit_reg[4:3], 3'd7 - bit_reg[2:0]};

always @* begin
    busy_next = busy_reg;
    sck_next = sck_reg;
    mosi_next = mosi_reg;
    tx_next = tx_reg;
    rx_next = rx_reg;
    bit_next = bit_reg;
    last_bit_next = last_bit_reg;
    wait_next = wait_reg;

    if (!busy_reg) begin
        if (start && tx_count != 3'd0 && cs) begin
            busy_next = 1'b1;
            tx_next = tx_data;
            rx_next = 32'd0;
            bit_next = 5'd0;
            last_bit_next = {tx_count[1:0] - 2'd1, 3'd7};
            mosi_next = tx_data[7];
            wait_next = div;
        end
    end else if (wait_reg != 0) begin
        wait_next = wait_reg - 1'b1;
    end else if (!sck_reg) begin
        // rising edge: both sides sample
        sck_next = 1'b1;
        rx_next[tx_index] = spi_miso;
        wait_next = div;
    end else begin
        // falling edge: the next bit, or the end
        sck_next = 1'b0;
        wait_next = div;
        if (bit_reg == last_bit_reg) begin
            busy_next = 1'b0;
        end else begin
            bit_next = bit_reg + 1'b1;
            mosi_next = tx_reg[{bit_next[4:3], 3'd7 - bit_next[2:0]}];
        end
    end
end

always @(posedge clk) begin
    busy_reg <= busy_next;
    sck_reg <= sck_next;
    mosi_reg <= mosi_next;
    tx_reg <= tx_next;
    rx_reg <= rx_next;
    bit_reg <= bit_next;
    last_bit_reg <= last_bit_next;
    wait_reg <= wait_next;

    if (rst) begin
        busy_reg <= 1'b0;
        sck_reg <= 1'b0;
        bit_reg <= 5'd0;
        wait_reg <= {DIV_WIDTH{1'b0}};
    end
end

assign busy = busy_reg;
assign rx_data = rx_reg;
assign spi_sck = sck_reg;
assign spi_cs_n = !cs;
assign spi_mosi = mosi_reg;

endmodule

`resetall
