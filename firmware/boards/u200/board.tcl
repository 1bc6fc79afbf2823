# Alveo U200: everything the build needs to know that differs from another board.
# A new board (U250, VCU1525) is a folder like this one: board.tcl and its pins (.xdc).

set board_name u200
# the board block's BOARD register (board_regs.v)
set board_id 0x0200
set part xcu200-fsgd2104-2-e
# the FPGA's JTAG IDCODE without the revision bits (a U200's JTAG chain reports 14b37093)
set idcode 0x04b37093

# PCIe: Gen3 x16 on the lanes of GTY quads 224-227 (the card's edge, see u200.xdc)
set pcie_lanes X16
set pcie_speed 8.0_GT/s
# the integrated block next to those quads (to check against Vivado's U200 board file)
set pcie_block X1Y2

# 100G: QSFP28 cage 0, GTY quad 231 (channels X1Y48-X1Y51), 161.1328125 MHz reference
set mac_gt_group "X1Y48~X1Y51"
set mac_refclk_mhz 161.1328125

# Configuration flash: Micron MT25QU01G (1 Gbit), x4 at boot; golden and update images
set flash_part mt25qu01g-spi-x1_x2_x4
set flash_size_mb 128
set golden_off 0x00000000
set update_off 0x04000000
set segment_size 0x04000000

set xdc_files [list u200.xdc]
