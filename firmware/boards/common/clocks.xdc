# Timing constraints every board shares (the clocks of the IPs are created by the IPs).

# The MAC's clock and the PCIe bridge's are unrelated: only the MAC FIFOs cross between
# them, through Gray-coded pointers and a Gray-coded drop count (axis_async_frame_fifo.v).
set_max_delay -datapath_only 3.0 \
    -from [get_cells -hier -filter {NAME =~ *mac_*_fifo_inst/*_gray_reg*}] \
    -to [get_cells -hier -filter {NAME =~ *mac_*_fifo_inst/*_s1_reg*}]
set_max_delay -datapath_only 3.0 \
    -from [get_cells -hier -filter {NAME =~ *mac_*_fifo_inst/drop_gray_reg*}] \
    -to [get_cells -hier -filter {NAME =~ *mac_*_fifo_inst/drop_s1_reg*}]
# the FIFO memory is written on one clock and read on the other, after the pointer says so
set_false_path -from [get_clocks -of_objects [get_pins -hier -filter {NAME =~ *mac_100g_inst/gt_txusrclk2}]] \
    -to [get_clocks -of_objects [get_pins -hier -filter {NAME =~ *pcie_bridge_inst/axi_aclk}]] \
    -through [get_cells -hier -filter {NAME =~ *mac_rx_fifo_inst/mem_reg*}]
set_false_path -from [get_clocks -of_objects [get_pins -hier -filter {NAME =~ *pcie_bridge_inst/axi_aclk}]] \
    -to [get_clocks -of_objects [get_pins -hier -filter {NAME =~ *mac_100g_inst/gt_txusrclk2}]] \
    -through [get_cells -hier -filter {NAME =~ *mac_tx_fifo_inst/mem_reg*}]
