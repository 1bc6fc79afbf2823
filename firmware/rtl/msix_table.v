/*

MSI-X: the vector table and the pending bit array in their own BAR (BAR2 on the board),
and the messages that the core's interrupt requests become.

BAR2 layout (PCIe Base Spec 6.8.2): the table at 0x000, 16 bytes per vector (message
address low, high, data, vector control with the mask in bit 0), VECTORS vectors; the PBA
at PBA_OFFSET, one bit per vector. A request of the core sets its vector's pending bit (a
vector number above the table uses its low bits); a pending vector that is not masked,
with MSI-X enabled and the function not masked, leaves as one message (address, data) to
the PCIe bridge, and its pending bit clears when the bridge took it. Vectors are served
in turn, one look per cycle. The core is never held back: requests for a vector already
pending merge into it.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module msix_table #
(
    // vectors (a power of 2, 1..2048)
    parameter VECTORS = 64,
    // BAR2 address bits
    parameter ADDR_WIDTH = 12,
    // where the PBA starts in BAR2
    parameter PBA_OFFSET = 12'h800,
    // the core's interrupt vector bits
    parameter IRQ_WIDTH = 8
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * AXI4-Lite slave (BAR2, 32-bit)
     */
    input  wire [ADDR_WIDTH-1:0]         s_axil_awaddr,
    input  wire                          s_axil_awvalid,
    output wire                          s_axil_awready,
    input  wire [31:0]                   s_axil_wdata,
    input  wire [3:0]                    s_axil_wstrb,
    input  wire                          s_axil_wvalid,
    output wire                          s_axil_wready,
    output wire [1:0]                    s_axil_bresp,
    output wire                          s_axil_bvalid,
    input  wire                          s_axil_bready,
    input  wire [ADDR_WIDTH-1:0]         s_axil_araddr,
    input  wire                          s_axil_arvalid,
    output wire                          s_axil_arready,
    output wire [31:0]                   s_axil_rdata,
    output wire [1:0]                    s_axil_rresp,
    output wire                          s_axil_rvalid,
    input  wire                          s_axil_rready,

    /*
     * Interrupt requests of the core
     */
    input  wire [IRQ_WIDTH-1:0]          s_irq_vector,
    input  wire                          s_irq_valid,
    output wire                          s_irq_ready,

    /*
     * The MSI-X capability's control bits (from the PCIe bridge's configuration space)
     */
    input  wire                          cfg_msix_enable,
    input  wire                          cfg_msix_function_mask,

    /*
     * Messages to the PCIe bridge
     */
    output wire [63:0]                   m_msix_addr,
    output wire [31:0]                   m_msix_data,
    output wire                          m_msix_valid,
    input  wire                          m_msix_ready
);

localparam VECTOR_LOG = $clog2(VECTORS);
localparam PBA_WORDS = (VECTORS + 31) / 32;

initial begin
    if (VECTORS < 1 || VECTORS > 2048 || (1 << VECTOR_LOG) != VECTORS) begin
        $error("Error: %m: VECTORS must be a power of 2 up to 2048 (%0d)", VECTORS);
        $finish;
    end
    if (VECTORS * 16 > PBA_OFFSET || PBA_OFFSET + PBA_WORDS * 4 > (1 << ADDR_WIDTH)) begin
        $error("Error: %m: the table and the PBA must fit BAR2 without overlapping");
        $finish;
    end
end

reg [31:0] addr_lo_mem [0:VECTORS-1];
reg [31:0] addr_hi_mem [0:VECTORS-1];
reg [31:0] data_mem [0:VECTORS-1];
reg [VECTORS-1:0] mask_reg = {VECTORS{1'b1}};
reg [VECTORS-1:0] pending_reg = {VECTORS{1'b0}};

reg awready_reg = 1'b0, wready_reg = 1'b0, bvalid_reg = 1'b0;
reg arready_reg = 1'b0, rvalid_reg = 1'b0;
reg [31:0] rdata_reg = 32'd0;

reg [VECTOR_LOG-1:0] scan_reg = {VECTOR_LOG{1'b0}};
reg [VECTOR_LOG-1:0] send_vector_reg = {VECTOR_LOG{1'b0}};
reg send_valid_reg = 1'b0;
reg [63:0] send_addr_reg = 64'd0;
reg [31:0] send_data_reg = 32'd0;

wire write = s_axil_awvalid && s_axil_wvalid && !awready_reg && !bvalid_reg;
wire read = s_axil_arvalid && !arready_reg && !rvalid_reg;
wire w_table = s_axil_awaddr < VECTORS * 16;
wire r_table = s_axil_araddr < VECTORS * 16;
wire [VECTOR_LOG-1:0] w_vector = s_axil_awaddr[VECTOR_LOG+3:4];
wire [VECTOR_LOG-1:0] r_vector = s_axil_araddr[VECTOR_LOG+3:4];
wire [ADDR_WIDTH-1:0] r_pba_off = s_axil_araddr - PBA_OFFSET[ADDR_WIDTH-1:0];
wire [31:0] r_pba_word = {{(34-ADDR_WIDTH){1'b0}}, r_pba_off[ADDR_WIDTH-1:2]};
wire r_pba = s_axil_araddr >= PBA_OFFSET && r_pba_off < PBA_WORDS * 4;
wire [VECTORS+31:0] pending_padded = {32'd0, pending_reg};

wire [VECTOR_LOG-1:0] irq_vector = s_irq_vector[VECTOR_LOG-1:0];
wire can_send = cfg_msix_enable && !cfg_msix_function_mask;
wire sent = send_valid_reg && m_msix_ready;

integer k;

always @(posedge clk) begin
    awready_reg <= 1'b0;
    wready_reg <= 1'b0;
    arready_reg <= 1'b0;
    bvalid_reg <= bvalid_reg && !s_axil_bready;
    rvalid_reg <= rvalid_reg && !s_axil_rready;

    if (write) begin
        awready_reg <= 1'b1;
        wready_reg <= 1'b1;
        bvalid_reg <= 1'b1;
        if (w_table && s_axil_wstrb == 4'hf) begin
            case (s_axil_awaddr[3:2])
                2'd0: addr_lo_mem[w_vector] <= s_axil_wdata;
                2'd1: addr_hi_mem[w_vector] <= s_axil_wdata;
                2'd2: data_mem[w_vector] <= s_axil_wdata;
                default: mask_reg[w_vector] <= s_axil_wdata[0];
            endcase
        end
    end

    if (read) begin
        arready_reg <= 1'b1;
        rvalid_reg <= 1'b1;
        rdata_reg <= 32'd0;
        if (r_table) begin
            case (s_axil_araddr[3:2])
                2'd0: rdata_reg <= addr_lo_mem[r_vector];
                2'd1: rdata_reg <= addr_hi_mem[r_vector];
                2'd2: rdata_reg <= data_mem[r_vector];
                default: rdata_reg <= {31'd0, mask_reg[r_vector]};
            endcase
        end else if (r_pba) begin
            for (k = 0; k < PBA_WORDS; k = k + 1) begin
                if (r_pba_word == k) begin
                    rdata_reg <= pending_padded[k*32 +: 32];
                end
            end
        end
    end

    // one vector looked at per cycle; a message is held until the bridge takes it
    if (sent) begin
        send_valid_reg <= 1'b0;
        pending_reg[send_vector_reg] <= 1'b0;
    end else if (!send_valid_reg) begin
        scan_reg <= scan_reg + 1'b1;
        if (pending_reg[scan_reg] && !mask_reg[scan_reg] && can_send) begin
            send_valid_reg <= 1'b1;
            send_vector_reg <= scan_reg;
            send_addr_reg <= {addr_hi_mem[scan_reg], addr_lo_mem[scan_reg][31:2], 2'b00};
            send_data_reg <= data_mem[scan_reg];
        end
    end

    // a request after the clear wins: it is a new interrupt
    if (s_irq_valid) begin
        pending_reg[irq_vector] <= 1'b1;
    end

    if (rst) begin
        awready_reg <= 1'b0;
        wready_reg <= 1'b0;
        arready_reg <= 1'b0;
        bvalid_reg <= 1'b0;
        rvalid_reg <= 1'b0;
        mask_reg <= {VECTORS{1'b1}};
        pending_reg <= {VECTORS{1'b0}};
        send_valid_reg <= 1'b0;
        scan_reg <= {VECTOR_LOG{1'b0}};
    end
end

assign s_axil_awready = awready_reg;
assign s_axil_wready = wready_reg;
assign s_axil_bresp = 2'b00;
assign s_axil_bvalid = bvalid_reg;
assign s_axil_arready = arready_reg;
assign s_axil_rdata = rdata_reg;
assign s_axil_rresp = 2'b00;
assign s_axil_rvalid = rvalid_reg;
assign s_irq_ready = 1'b1;
assign m_msix_addr = send_addr_reg;
assign m_msix_data = send_data_reg;
assign m_msix_valid = send_valid_reg;

endmodule

`resetall
