/*

Board register block: 32-bit registers after the core's in BAR0 (at BAR0 + 0x10000).

  0x00 ID          ro  BOARD_MAGIC ("HRFW")
  0x04 BOARD       ro  board number (BOARD_ID) in 15:0, layout version (1) in 31:16
  0x08 GIT_HASH    ro  the first 8 hex digits of the build's git commit (GIT_HASH)
  0x0c BUILD_STAMP ro  the build's version stamp (seconds since 1970, or 0)
  0x10 IDCODE      ro  the FPGA's JTAG IDCODE (IDCODE, with the revision bits 31:28)
  0x14 FLASH_SIZE  ro  bytes of configuration flash
  0x18 ERASE_SIZE  ro  bytes of the erase sector the layout is aligned to
  0x20 GOLDEN_OFF  ro  golden image: byte offset in the flash
  0x24 GOLDEN_SIZE ro  golden image: bytes reserved
  0x28 UPDATE_OFF  ro  update image: byte offset in the flash
  0x2c UPDATE_SIZE ro  update image: bytes reserved
  0x30 MAC_RX_DROP ro  frames the MAC RX FIFO dropped (it was full)
  0x40 SPI_CTRL    rw  bit 0: chip select; bits 10:8: bytes of the next transfer (1..4);
                       bits 23:16: SCK divider (SCK = clk / (2 * (div + 1)))
  0x44 SPI_DATA    wo  starts a transfer of SPI_CTRL's count of bytes, bits 7:0 first;
                   ro  the bytes received by the last transfer, in the same places
  0x48 SPI_STATUS  ro  bit 0: a transfer is running
  0x50 RELOAD_ADDR rw  the flash byte address to boot from (WBSTAR)
  0x54 RELOAD      wo  RELOAD_KEY ("IPRG") sends the reload; anything else is ignored;
                   ro  bit 0: the reload sequence is being sent

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module board_regs #
(
    // register address bits
    parameter ADDR_WIDTH = 8,
    // board number (0x0200: Alveo U200)
    parameter [15:0] BOARD_ID = 16'h0200,
    // version stamps given by the build
    parameter [31:0] GIT_HASH = 32'h00000000,
    parameter [31:0] BUILD_STAMP = 32'h00000000,
    // the FPGA's JTAG IDCODE (xcu200: 0x04b37093, UG570 Table 1-4)
    parameter [31:0] IDCODE = 32'h04b37093,
    // flash layout (bytes)
    parameter [31:0] FLASH_SIZE = 32'h08000000,
    parameter [31:0] ERASE_SIZE = 32'h00010000,
    parameter [31:0] GOLDEN_OFF = 32'h00000000,
    parameter [31:0] GOLDEN_SIZE = 32'h04000000,
    parameter [31:0] UPDATE_OFF = 32'h04000000,
    parameter [31:0] UPDATE_SIZE = 32'h04000000,
    // SCK divider after reset
    parameter [7:0] SPI_DIV_DEFAULT = 8'd1,
    // clk cycles per ICAP word (the ICAP clock is clk / ICAP_WORD_CYCLES)
    parameter ICAP_WORD_CYCLES = 1
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * Register port (from axil_reg_bridge): read data for addr in the same cycle
     */
    input  wire [ADDR_WIDTH-1:0]         addr,
    input  wire [31:0]                   wdata,
    input  wire [3:0]                    wstrb,
    input  wire                          wr,
    output reg  [31:0]                   rdata,

    /*
     * Status from the shell
     */
    input  wire [31:0]                   mac_rx_drop,

    /*
     * Flash pins (to STARTUPE3 on the board)
     */
    output wire                          spi_sck,
    output wire                          spi_cs_n,
    output wire                          spi_mosi,
    input  wire                          spi_miso,

    /*
     * ICAPE3 port
     */
    output wire                          icap_csib,
    output wire                          icap_rdwrb,
    output wire [31:0]                   icap_i,
    input  wire                          icap_avail
);

localparam [31:0] BOARD_MAGIC = 32'h48524657;
localparam [31:0] RELOAD_KEY = 32'h49505247;
localparam [15:0] LAYOUT_VERSION = 16'd1;

localparam [7:0]
    REG_ID = 8'h00, REG_BOARD = 8'h04, REG_GIT_HASH = 8'h08, REG_BUILD_STAMP = 8'h0c,
    REG_IDCODE = 8'h10, REG_FLASH_SIZE = 8'h14, REG_ERASE_SIZE = 8'h18,
    REG_GOLDEN_OFF = 8'h20, REG_GOLDEN_SIZE = 8'h24, REG_UPDATE_OFF = 8'h28,
    REG_UPDATE_SIZE = 8'h2c, REG_MAC_RX_DROP = 8'h30,
    REG_SPI_CTRL = 8'h40, REG_SPI_DATA = 8'h44, REG_SPI_STATUS = 8'h48,
    REG_RELOAD_ADDR = 8'h50, REG_RELOAD = 8'h54;

initial begin
    if (ADDR_WIDTH != 8) begin
        $error("Error: %m: the board block decodes 8 address bits");
        $finish;
    end
end

reg spi_cs_reg = 1'b0, spi_cs_next;
reg [2:0] spi_count_reg = 3'd1, spi_count_next;
reg [7:0] spi_div_reg = SPI_DIV_DEFAULT, spi_div_next;
reg spi_start_reg = 1'b0, spi_start_next;
reg [31:0] spi_tx_reg = 32'd0, spi_tx_next;
reg [31:0] reload_addr_reg = 32'd0, reload_addr_next;
reg reload_start_reg = 1'b0, reload_start_next;

wire spi_busy, reload_busy;
wire [31:0] spi_rx;
wire [7:0] waddr = {addr[7:2], 2'b00};
wire full = wstrb == 4'hf;

always @* begin
    spi_cs_next = spi_cs_reg;
    spi_count_next = spi_count_reg;
    spi_div_next = spi_div_reg;
    spi_start_next = 1'b0;
    spi_tx_next = spi_tx_reg;
    reload_addr_next = reload_addr_reg;
    reload_start_next = 1'b0;

    if (wr && full) begin
        case (waddr)
            REG_SPI_CTRL: begin
                // the select and the count change only between transfers
                if (!spi_busy && !spi_start_reg) begin
                    spi_cs_next = wdata[0];
                    spi_count_next = wdata[10:8];
                    spi_div_next = wdata[23:16];
                end
            end
            REG_SPI_DATA: begin
                if (!spi_busy && !spi_start_reg) begin
                    spi_tx_next = wdata;
                    spi_start_next = 1'b1;
                end
            end
            REG_RELOAD_ADDR: reload_addr_next = wdata;
            REG_RELOAD: reload_start_next = wdata == RELOAD_KEY;
            default: ;
        endcase
    end
end

always @* begin
    case ({addr[7:2], 2'b00})
        REG_ID: rdata = BOARD_MAGIC;
        REG_BOARD: rdata = {LAYOUT_VERSION, BOARD_ID};
        REG_GIT_HASH: rdata = GIT_HASH;
        REG_BUILD_STAMP: rdata = BUILD_STAMP;
        REG_IDCODE: rdata = IDCODE;
        REG_FLASH_SIZE: rdata = FLASH_SIZE;
        REG_ERASE_SIZE: rdata = ERASE_SIZE;
        REG_GOLDEN_OFF: rdata = GOLDEN_OFF;
        REG_GOLDEN_SIZE: rdata = GOLDEN_SIZE;
        REG_UPDATE_OFF: rdata = UPDATE_OFF;
        REG_UPDATE_SIZE: rdata = UPDATE_SIZE;
        REG_MAC_RX_DROP: rdata = mac_rx_drop;
        REG_SPI_CTRL: rdata = {8'd0, spi_div_reg, 5'd0, spi_count_reg, 7'd0, spi_cs_reg};
        REG_SPI_DATA: rdata = spi_rx;
        REG_SPI_STATUS: rdata = {31'd0, spi_busy || spi_start_reg};
        REG_RELOAD_ADDR: rdata = reload_addr_reg;
        REG_RELOAD: rdata = {31'd0, reload_busy || reload_start_reg};
        default: rdata = 32'd0;
    endcase
end

always @(posedge clk) begin
    spi_cs_reg <= spi_cs_next;
    spi_count_reg <= spi_count_next;
    spi_div_reg <= spi_div_next;
    spi_start_reg <= spi_start_next;
    spi_tx_reg <= spi_tx_next;
    reload_addr_reg <= reload_addr_next;
    reload_start_reg <= reload_start_next;

    if (rst) begin
        spi_cs_reg <= 1'b0;
        spi_count_reg <= 3'd1;
        spi_div_reg <= SPI_DIV_DEFAULT;
        spi_start_reg <= 1'b0;
        reload_start_reg <= 1'b0;
    end
end

spi_flash_ctrl #(
    .DIV_WIDTH(8)
)
spi_flash_ctrl_inst (
    .clk(clk),
    .rst(rst),
    .cs(spi_cs_reg),
    .div(spi_div_reg),
    .tx_data(spi_tx_reg),
    .tx_count(spi_count_reg),
    .start(spi_start_reg),
    .busy(spi_busy),
    .rx_data(spi_rx),
    .spi_sck(spi_sck),
    .spi_cs_n(spi_cs_n),
    .spi_mosi(spi_mosi),
    .spi_miso(spi_miso)
);

icap_reload #(
    .WORD_CYCLES(ICAP_WORD_CYCLES)
)
icap_reload_inst (
    .clk(clk),
    .rst(rst),
    .wbstar(reload_addr_reg),
    .start(reload_start_reg),
    .busy(reload_busy),
    .icap_csib(icap_csib),
    .icap_rdwrb(icap_rdwrb),
    .icap_i(icap_i),
    .icap_avail(icap_avail)
);

endmodule

`resetall
