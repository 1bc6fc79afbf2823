# The vendor IP of a board, configured from its board.tcl. Module names match the stubs
# in firmware/stubs (which the tests elaborate the board top against).
# Parameter names as in XDMA 4.1, CMAC USPLUS 3.1, AXI Data Width Converter 2.1 and AXI
# Protocol Converter 2.1 (Vivado 2022.2 to 2024.2); not run on this machine (no Vivado).

# PCIe: XDMA in AXI Bridge mode (PG194/PG195): BAR0 (128 KiB) at AXI 0x0, BAR2 (4 KiB,
# the MSI-X table and PBA) at AXI 0x00100000, BAR4 (64 KiB, prefetchable: the doorbell
# pages, which the host maps write-combining) at AXI 0x00200000, all through m_axib
# (512 bits: a 64-byte TLP is one beat); the core's host-memory
# master on s_axib; MSI-X with the table outside the IP (the shell's msix_table).
create_ip -name xdma -vendor xilinx.com -library ip -module_name pcie_bridge
set_property -dict [list \
    CONFIG.functional_mode {AXI_Bridge} \
    CONFIG.mode_selection {Advanced} \
    CONFIG.device_port_type {PCI_Express_Endpoint_device} \
    CONFIG.pcie_blk_locn $pcie_block \
    CONFIG.pl_link_cap_max_link_width $pcie_lanes \
    CONFIG.pl_link_cap_max_link_speed $pcie_speed \
    CONFIG.axi_data_width {512_bit} \
    CONFIG.axisten_freq {250} \
    CONFIG.pf0_vendor_id {10EE} \
    CONFIG.pf0_device_id {4852} \
    CONFIG.pf0_class_code_base {02} \
    CONFIG.pf0_class_code_sub {00} \
    CONFIG.pf0_bar0_enabled {true} \
    CONFIG.pf0_bar0_type {Memory} \
    CONFIG.pf0_bar0_size {128} \
    CONFIG.pf0_bar0_scale {Kilobytes} \
    CONFIG.pf0_bar0_64bit {false} \
    CONFIG.pciebar2axibar_0 {0x0000000000000000} \
    CONFIG.pf0_bar2_enabled {true} \
    CONFIG.pf0_bar2_type {Memory} \
    CONFIG.pf0_bar2_size {4} \
    CONFIG.pf0_bar2_scale {Kilobytes} \
    CONFIG.pciebar2axibar_2 {0x0000000000100000} \
    CONFIG.pf0_bar4_enabled {true} \
    CONFIG.pf0_bar4_type {Memory} \
    CONFIG.pf0_bar4_size {64} \
    CONFIG.pf0_bar4_scale {Kilobytes} \
    CONFIG.pf0_bar4_64bit {false} \
    CONFIG.pf0_bar4_prefetchable {true} \
    CONFIG.pciebar2axibar_4 {0x0000000000200000} \
    CONFIG.pf0_msix_enabled {true} \
    CONFIG.pf0_msix_cap_table_size {03F} \
    CONFIG.pf0_msix_cap_table_bir {BAR_2} \
    CONFIG.pf0_msix_cap_table_offset {00000000} \
    CONFIG.pf0_msix_cap_pba_bir {BAR_2} \
    CONFIG.pf0_msix_cap_pba_offset {00000800} \
    CONFIG.msix_impl_locn {External} \
    CONFIG.axibar_num {1} \
    CONFIG.axibar_0 {0x0000000000000000} \
    CONFIG.axibar_highaddr_0 {0xFFFFFFFFFFFFFFFF} \
    CONFIG.axibar2pciebar_0 {0x0000000000000000} \
    CONFIG.axi_id_width {4} \
] [get_ips pcie_bridge]

# The BAR path: 512-bit AXI4 to 32-bit AXI4, then AXI4 to AXI4-Lite
create_ip -name axi_dwidth_converter -vendor xilinx.com -library ip -module_name bar_dwidth
set_property -dict [list \
    CONFIG.SI_DATA_WIDTH {512} \
    CONFIG.MI_DATA_WIDTH {32} \
    CONFIG.ADDR_WIDTH {32} \
    CONFIG.SI_ID_WIDTH {4} \
] [get_ips bar_dwidth]
create_ip -name axi_protocol_converter -vendor xilinx.com -library ip -module_name bar_lite
set_property -dict [list \
    CONFIG.SI_PROTOCOL {AXI4} \
    CONFIG.MI_PROTOCOL {AXI4LITE} \
    CONFIG.DATA_WIDTH {32} \
    CONFIG.ADDR_WIDTH {32} \
    CONFIG.TRANSLATION_MODE {2} \
] [get_ips bar_lite]

# 100G: CMAC (PG203), CAUI-4, RS-FEC, AXI4-Stream user interface, FCS added and removed
create_ip -name cmac_usplus -vendor xilinx.com -library ip -module_name mac_100g
set_property -dict [list \
    CONFIG.CMAC_CAUI4_MODE {1} \
    CONFIG.NUM_LANES {4x25} \
    CONFIG.GT_REF_CLK_FREQ $mac_refclk_mhz \
    CONFIG.GT_DRP_CLK {300} \
    CONFIG.GT_GROUP_SELECT $mac_gt_group \
    CONFIG.USER_INTERFACE {AXIS} \
    CONFIG.INCLUDE_RS_FEC {1} \
    CONFIG.TX_FLOW_CONTROL {0} \
    CONFIG.RX_FLOW_CONTROL {0} \
    CONFIG.RX_CHECK_ACK {0} \
] [get_ips mac_100g]

foreach ip [get_ips] {
    generate_target all $ip
    synth_ip $ip
}
