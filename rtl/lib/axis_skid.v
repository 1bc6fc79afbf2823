/*

Skid buffer: a full-throughput register slice for a valid/ready channel.

Registers both the data path and s_ready, so that no combinational path runs from
m_ready to s_ready. Holds up to two words.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module axis_skid #
(
    // Width of the payload carried (tdata, tkeep, tlast, ... concatenated by the user)
    parameter WIDTH = 8
)
(
    input  wire             clk,
    input  wire             rst,

    /*
     * Input
     */
    input  wire [WIDTH-1:0] s_data,
    input  wire             s_valid,
    output wire             s_ready,

    /*
     * Output
     */
    output wire [WIDTH-1:0] m_data,
    output wire             m_valid,
    input  wire             m_ready
);

reg [WIDTH-1:0] m_data_reg = {WIDTH{1'b0}}, m_data_next;
reg [WIDTH-1:0] skid_data_reg = {WIDTH{1'b0}}, skid_data_next;
reg m_valid_reg = 1'b0, m_valid_next;
reg skid_valid_reg = 1'b0, skid_valid_next;

assign s_ready = !skid_valid_reg;
assign m_data = m_data_reg;
assign m_valid = m_valid_reg;

always @* begin
    m_data_next = m_data_reg;
    skid_data_next = skid_data_reg;
    m_valid_next = m_valid_reg;
    skid_valid_next = skid_valid_reg;

    if (!m_valid_reg || m_ready) begin
        // the output register is free: fill it from the skid register first
        if (skid_valid_reg) begin
            m_data_next = skid_data_reg;
            m_valid_next = 1'b1;
            skid_valid_next = 1'b0;
        end else begin
            m_data_next = s_data;
            m_valid_next = s_valid;
        end
    end else if (s_valid && !skid_valid_reg) begin
        // output stalled: park the word offered while s_ready was still high
        skid_data_next = s_data;
        skid_valid_next = 1'b1;
    end
end

always @(posedge clk) begin
    m_data_reg <= m_data_next;
    skid_data_reg <= skid_data_next;
    m_valid_reg <= m_valid_next;
    skid_valid_reg <= skid_valid_next;

    if (rst) begin
        m_valid_reg <= 1'b0;
        skid_valid_reg <= 1'b0;
    end
end

endmodule

`resetall
