# Builds a board's bitstream and flash images with Vivado in batch mode:
#
#   vivado -mode batch -source firmware/boards/common/build.tcl \
#       -tclargs BOARD_DIR OUT_DIR GEN_DIR GIT_HASH BUILD_STAMP
#
# BOARD_DIR holds board.tcl and its .xdc; GEN_DIR the generated Verilog includes (the
# contract, the ICRC tables: make generates them); GIT_HASH 8 hex digits; BUILD_STAMP
# seconds since 1970. Writes OUT_DIR/hroce_BOARD.bit, hroce_BOARD_update.bin (for
# hroce-fw write), hroce_BOARD_full.mcs (golden and update images, for the first
# programming over JTAG), reports, and VERSION. `make board BOARD=u200` runs it.

if {[llength $argv] != 5} {
    error "usage: build.tcl BOARD_DIR OUT_DIR GEN_DIR GIT_HASH BUILD_STAMP"
}
lassign $argv board_dir out_dir gen_dir git_hash build_stamp
set here [file dirname [file normalize [info script]]]
set root [file normalize [file join $here .. .. ..]]
set board_dir [file normalize $board_dir]
source [file join $board_dir board.tcl]
file mkdir $out_dir

create_project -in_memory -part $part
set_property TARGET_LANGUAGE Verilog [current_project]

# the core, the shell, the board top
set rtl_dirs [list rtl/lib rtl/net rtl/mem rtl/host rtl/transport]
set sources [glob -directory [file join $root rtl] *.v]
foreach d $rtl_dirs {
    set sources [concat $sources [glob -directory [file join $root $d] *.v]]
}
set sources [concat $sources [glob -directory [file join $root firmware rtl] *.v]]
lappend sources [file join $here hroce_board_top.v]
read_verilog $sources
set include_dirs [list [file normalize $gen_dir]]
foreach d $rtl_dirs {
    lappend include_dirs [file join $root $d]
}

foreach x $xdc_files {
    read_xdc [file join $board_dir $x]
}
read_xdc [file join $here clocks.xdc]

source [file join $here ip.tcl]

set generics [list \
    BOARD_ID=16'h[format %04x $board_id] \
    GIT_HASH=32'h$git_hash \
    BUILD_STAMP=32'd$build_stamp \
    IDCODE=32'h[format %08x $idcode] \
    FLASH_SIZE=32'h[format %08x [expr {$flash_size_mb << 20}]] \
    GOLDEN_OFF=32'h[format %08x $golden_off] \
    GOLDEN_SIZE=32'h[format %08x $segment_size] \
    UPDATE_OFF=32'h[format %08x $update_off] \
    UPDATE_SIZE=32'h[format %08x $segment_size] \
]
synth_design -top hroce_board_top -part $part -include_dirs $include_dirs -generic $generics
opt_design
place_design
phys_opt_design
route_design
report_utilization -file [file join $out_dir utilization.rpt]
report_timing_summary -file [file join $out_dir timing.rpt]
set wns [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -setup]]
if {$wns < 0} {
    error "timing not met: worst setup slack $wns ns (see $out_dir/timing.rpt)"
}

# the version stamp: the git hash is the bitstream's USERID too (readable over JTAG)
set_property BITSTREAM.CONFIG.USERID 0x$git_hash [current_design]
set name hroce_$board_name
set bit [file join $out_dir $name.bit]
write_bitstream -force $bit
write_cfgmem -force -format bin -interface SPIx4 -size $flash_size_mb \
    -loadbit "up 0x00000000 $bit" -file [file join $out_dir ${name}_update.bin]
write_cfgmem -force -format mcs -interface SPIx4 -size $flash_size_mb \
    -loadbit "up [format 0x%08x $golden_off] $bit up [format 0x%08x $update_off] $bit" \
    -file [file join $out_dir ${name}_full.mcs]

set f [open [file join $out_dir VERSION] w]
puts $f "board $board_name"
puts $f "part $part"
puts $f "git $git_hash"
puts $f "build $build_stamp"
puts $f "flash $flash_part golden $golden_off update $update_off"
close $f
puts "build.tcl: $bit, ${name}_update.bin, ${name}_full.mcs in $out_dir"
