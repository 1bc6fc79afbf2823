/*

The PCIe bridge's BAR master (AXI4, as wide as the datapath) to the narrow register path
and to the core's doorbell pages, by an address bit: below SPLIT_BIT (BAR0 and BAR2) the
bursts go on to m_axi_* as they came; at and above it (BAR4, the doorbell pages) writes go
to m_axi_db_* (one 64-byte TLP, one beat), and reads, which the pages do not have, are
answered here with SLVERR (zeros) on every beat.

One write burst at a time and one read burst at a time, each in the order they come: AW
is looked at first (its address picks the way), then AW and W go on together to that way,
and its B comes back with the burst's ID. Reads and writes do not wait on each other.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module axi_db_split #
(
    // data width of every port
    parameter DATA_WIDTH = 512,
    parameter STRB_WIDTH = (DATA_WIDTH/8),
    // the bridge's ID bits
    parameter ID_WIDTH = 4,
    // address bits in, and to the register path
    parameter ADDR_WIDTH = 32,
    // the bit that selects the doorbell pages
    parameter SPLIT_BIT = 21,
    // the doorbell pages' address bits
    parameter DB_ADDR_WIDTH = 16
)
(
    input  wire                          clk,
    input  wire                          rst,

    /*
     * AXI4 slave: the bridge's BAR master
     */
    input  wire [ID_WIDTH-1:0]           s_axi_awid,
    input  wire [ADDR_WIDTH-1:0]         s_axi_awaddr,
    input  wire [7:0]                    s_axi_awlen,
    input  wire [2:0]                    s_axi_awsize,
    input  wire [1:0]                    s_axi_awburst,
    input  wire                          s_axi_awvalid,
    output wire                          s_axi_awready,
    input  wire [DATA_WIDTH-1:0]         s_axi_wdata,
    input  wire [STRB_WIDTH-1:0]         s_axi_wstrb,
    input  wire                          s_axi_wlast,
    input  wire                          s_axi_wvalid,
    output wire                          s_axi_wready,
    output wire [ID_WIDTH-1:0]           s_axi_bid,
    output wire [1:0]                    s_axi_bresp,
    output wire                          s_axi_bvalid,
    input  wire                          s_axi_bready,
    input  wire [ID_WIDTH-1:0]           s_axi_arid,
    input  wire [ADDR_WIDTH-1:0]         s_axi_araddr,
    input  wire [7:0]                    s_axi_arlen,
    input  wire [2:0]                    s_axi_arsize,
    input  wire [1:0]                    s_axi_arburst,
    input  wire                          s_axi_arvalid,
    output wire                          s_axi_arready,
    output wire [ID_WIDTH-1:0]           s_axi_rid,
    output wire [DATA_WIDTH-1:0]         s_axi_rdata,
    output wire [1:0]                    s_axi_rresp,
    output wire                          s_axi_rlast,
    output wire                          s_axi_rvalid,
    input  wire                          s_axi_rready,

    /*
     * AXI4 master: the register path (BAR0, BAR2)
     */
    output wire [ID_WIDTH-1:0]           m_axi_awid,
    output wire [ADDR_WIDTH-1:0]         m_axi_awaddr,
    output wire [7:0]                    m_axi_awlen,
    output wire [2:0]                    m_axi_awsize,
    output wire [1:0]                    m_axi_awburst,
    output wire                          m_axi_awvalid,
    input  wire                          m_axi_awready,
    output wire [DATA_WIDTH-1:0]         m_axi_wdata,
    output wire [STRB_WIDTH-1:0]         m_axi_wstrb,
    output wire                          m_axi_wlast,
    output wire                          m_axi_wvalid,
    input  wire                          m_axi_wready,
    input  wire [ID_WIDTH-1:0]           m_axi_bid,
    input  wire [1:0]                    m_axi_bresp,
    input  wire                          m_axi_bvalid,
    output wire                          m_axi_bready,
    output wire [ID_WIDTH-1:0]           m_axi_arid,
    output wire [ADDR_WIDTH-1:0]         m_axi_araddr,
    output wire [7:0]                    m_axi_arlen,
    output wire [2:0]                    m_axi_arsize,
    output wire [1:0]                    m_axi_arburst,
    output wire                          m_axi_arvalid,
    input  wire                          m_axi_arready,
    input  wire [ID_WIDTH-1:0]           m_axi_rid,
    input  wire [DATA_WIDTH-1:0]         m_axi_rdata,
    input  wire [1:0]                    m_axi_rresp,
    input  wire                          m_axi_rlast,
    input  wire                          m_axi_rvalid,
    output wire                          m_axi_rready,

    /*
     * AXI4 master, write only: the core's doorbell pages
     */
    output wire [DB_ADDR_WIDTH-1:0]      m_axi_db_awaddr,
    output wire [7:0]                    m_axi_db_awlen,
    output wire [2:0]                    m_axi_db_awsize,
    output wire                          m_axi_db_awvalid,
    input  wire                          m_axi_db_awready,
    output wire [DATA_WIDTH-1:0]         m_axi_db_wdata,
    output wire [STRB_WIDTH-1:0]         m_axi_db_wstrb,
    output wire                          m_axi_db_wlast,
    output wire                          m_axi_db_wvalid,
    input  wire                          m_axi_db_wready,
    input  wire [1:0]                    m_axi_db_bresp,
    input  wire                          m_axi_db_bvalid,
    output wire                          m_axi_db_bready
);

initial begin
    if (SPLIT_BIT >= ADDR_WIDTH || DB_ADDR_WIDTH > SPLIT_BIT) begin
        $error("Error: %m: SPLIT_BIT %0d must be inside the address and above the pages",
               SPLIT_BIT);
        $finish;
    end
end

// the write burst under way: its way (1: the doorbell pages), its ID, the halves done
reg w_busy_reg = 1'b0, w_busy_next;
reg w_db_reg = 1'b0, w_db_next;
reg [ID_WIDTH-1:0] w_id_reg = {ID_WIDTH{1'b0}}, w_id_next;
reg aw_done_reg = 1'b0, aw_done_next;
reg w_done_reg = 1'b0, w_done_next;

// the read burst under way: answered here (the pages) or by the register path
reg r_busy_reg = 1'b0, r_busy_next;
reg r_local_reg = 1'b0, r_local_next;
reg r_ar_done_reg = 1'b0, r_ar_done_next;
reg [ID_WIDTH-1:0] r_id_reg = {ID_WIDTH{1'b0}}, r_id_next;
reg [7:0] r_left_reg = 8'd0, r_left_next;

// the halves of the write go on while the burst is under way and they are not done yet
wire aw_go = w_busy_reg && !aw_done_reg && s_axi_awvalid;
wire w_go = w_busy_reg && !w_done_reg && s_axi_wvalid;
wire aw_ready = w_db_reg ? m_axi_db_awready : m_axi_awready;
wire w_ready = w_db_reg ? m_axi_db_wready : m_axi_wready;
wire b_valid = w_busy_reg && aw_done_reg && w_done_reg &&
               (w_db_reg ? m_axi_db_bvalid : m_axi_bvalid);

wire ar_go = r_busy_reg && !r_local_reg && !r_ar_done_reg && s_axi_arvalid;
wire r_valid = r_busy_reg && (r_local_reg ? r_ar_done_reg : m_axi_rvalid);
wire r_last = r_local_reg ? r_left_reg == 8'd0 : m_axi_rlast;

always @* begin
    w_busy_next = w_busy_reg;
    w_db_next = w_db_reg;
    w_id_next = w_id_reg;
    aw_done_next = aw_done_reg;
    w_done_next = w_done_reg;
    r_busy_next = r_busy_reg;
    r_local_next = r_local_reg;
    r_ar_done_next = r_ar_done_reg;
    r_id_next = r_id_reg;
    r_left_next = r_left_reg;

    if (!w_busy_reg) begin
        if (s_axi_awvalid) begin
            w_busy_next = 1'b1;
            w_db_next = s_axi_awaddr[SPLIT_BIT];
            w_id_next = s_axi_awid;
        end
    end else begin
        if (aw_go && aw_ready) begin
            aw_done_next = 1'b1;
        end
        if (w_go && w_ready && s_axi_wlast) begin
            w_done_next = 1'b1;
        end
        if (b_valid && s_axi_bready) begin
            w_busy_next = 1'b0;
            aw_done_next = 1'b0;
            w_done_next = 1'b0;
        end
    end

    if (!r_busy_reg) begin
        if (s_axi_arvalid) begin
            r_busy_next = 1'b1;
            r_local_next = s_axi_araddr[SPLIT_BIT];
            r_id_next = s_axi_arid;
            r_left_next = s_axi_arlen;
            // the pages take the AR here and now
            r_ar_done_next = s_axi_araddr[SPLIT_BIT];
        end
    end else begin
        if (ar_go && m_axi_arready) begin
            r_ar_done_next = 1'b1;
        end
        if (r_valid && s_axi_rready) begin
            r_left_next = r_left_reg - 8'd1;
            if (r_last) begin
                r_busy_next = 1'b0;
                r_ar_done_next = 1'b0;
            end
        end
    end
end

always @(posedge clk) begin
    w_busy_reg <= w_busy_next;
    w_db_reg <= w_db_next;
    w_id_reg <= w_id_next;
    aw_done_reg <= aw_done_next;
    w_done_reg <= w_done_next;
    r_busy_reg <= r_busy_next;
    r_local_reg <= r_local_next;
    r_ar_done_reg <= r_ar_done_next;
    r_id_reg <= r_id_next;
    r_left_reg <= r_left_next;

    if (rst) begin
        w_busy_reg <= 1'b0;
        aw_done_reg <= 1'b0;
        w_done_reg <= 1'b0;
        r_busy_reg <= 1'b0;
        r_ar_done_reg <= 1'b0;
    end
end

assign s_axi_awready = aw_go && aw_ready;
assign s_axi_wready = w_go && w_ready;
assign s_axi_bid = w_db_reg ? w_id_reg : m_axi_bid;
assign s_axi_bresp = w_db_reg ? m_axi_db_bresp : m_axi_bresp;
assign s_axi_bvalid = b_valid;

// a local read's AR was taken when the burst was latched (r_busy_reg low)
assign s_axi_arready = (!r_busy_reg && s_axi_arvalid && s_axi_araddr[SPLIT_BIT]) ||
                       (ar_go && m_axi_arready);
assign s_axi_rid = r_local_reg ? r_id_reg : m_axi_rid;
assign s_axi_rdata = r_local_reg ? {DATA_WIDTH{1'b0}} : m_axi_rdata;
assign s_axi_rresp = r_local_reg ? 2'b10 : m_axi_rresp;
assign s_axi_rlast = r_last;
assign s_axi_rvalid = r_valid;

assign m_axi_awid = s_axi_awid;
assign m_axi_awaddr = s_axi_awaddr;
assign m_axi_awlen = s_axi_awlen;
assign m_axi_awsize = s_axi_awsize;
assign m_axi_awburst = s_axi_awburst;
assign m_axi_awvalid = aw_go && !w_db_reg;
assign m_axi_wdata = s_axi_wdata;
assign m_axi_wstrb = s_axi_wstrb;
assign m_axi_wlast = s_axi_wlast;
assign m_axi_wvalid = w_go && !w_db_reg;
assign m_axi_bready = w_busy_reg && aw_done_reg && w_done_reg && !w_db_reg && s_axi_bready;
assign m_axi_arid = s_axi_arid;
assign m_axi_araddr = s_axi_araddr;
assign m_axi_arlen = s_axi_arlen;
assign m_axi_arsize = s_axi_arsize;
assign m_axi_arburst = s_axi_arburst;
assign m_axi_arvalid = ar_go;
assign m_axi_rready = r_busy_reg && !r_local_reg && s_axi_rready;

assign m_axi_db_awaddr = s_axi_awaddr[DB_ADDR_WIDTH-1:0];
assign m_axi_db_awlen = s_axi_awlen;
assign m_axi_db_awsize = s_axi_awsize;
assign m_axi_db_awvalid = aw_go && w_db_reg;
assign m_axi_db_wdata = s_axi_wdata;
assign m_axi_db_wstrb = s_axi_wstrb;
assign m_axi_db_wlast = s_axi_wlast;
assign m_axi_db_wvalid = w_go && w_db_reg;
assign m_axi_db_bready = w_busy_reg && aw_done_reg && w_done_reg && w_db_reg && s_axi_bready;

endmodule

`resetall
