# Runs a board build script under plain tclsh with Vivado's commands replaced by procs that
# record each call and check what can be checked without Vivado: that every file read
# exists, that every port an .xdc constrains is a port of the board top, that every IP
# created has a stub with its module name (so the board top elaborated against the stubs
# is the one Vivado will build), that synth_design's generics are the top's parameters,
# and that the flow runs to the end (synthesis, implementation, bitstream, flash images).
#
#   tclsh vivado_mock.tcl TOP.v STUBS_DIR SCRIPT ARGS...
#
# Prints "mock: CALL ..." lines, then "mock: flow complete" or "mock: error: ..." and exits
# non-zero on an error.

lassign $argv top_file stubs_dir script
set script_args [lrange $argv 3 end]
set ::calls {}
set ::errors {}

proc mock_error {msg} {
    lappend ::errors $msg
    puts "mock: error: $msg"
}

proc record {name args} {
    lappend ::calls $name
    puts "mock: CALL $name [string range $args 0 160]"
}

# the top's ports and parameters, from its Verilog
set f [open $top_file]
set top_text [read $f]
close $f
set ::top_ports {}
foreach {- name} [regexp -all -inline {(?:input|output)\s+wire\s+(?:\[[^\]]*\]\s*)?(\w+)} $top_text] {
    lappend ::top_ports $name
}
set ::top_params {}
foreach {- name} [regexp -all -inline {parameter\s+(?:\[[^\]]*\]\s*)?(\w+)\s*=} $top_text] {
    lappend ::top_params $name
}

proc need_file {what path} {
    if {![file exists $path]} {
        mock_error "$what: no such file: $path"
    }
}

# --- project and sources
proc create_project {args} { record create_project {*}$args }
proc current_project {args} { return project }
proc current_design {args} { return design }
proc current_fileset {args} { return sources_1 }
proc read_verilog {args} {
    record read_verilog
    foreach p [lindex $args end] { need_file read_verilog $p }
}
proc read_xdc {path} {
    record read_xdc $path
    need_file read_xdc $path
    if {[file exists $path]} {
        # constraints are Tcl: run them against the mock's get_ports and friends
        if {[catch {uplevel #0 [list source $path]} msg]} {
            mock_error "$path: $msg"
        }
    }
}

# --- constraints
proc get_ports {pattern} {
    regsub {\[.*\]$} $pattern {} base
    if {$base ni $::top_ports} {
        mock_error "get_ports $pattern: the board top has no port $base"
    }
    return [list port $pattern]
}
proc get_clocks {args} { return clock }
proc get_cells {args} { return cells }
proc get_pins {args} { return pins }
proc get_nets {args} { return nets }
proc create_clock {args} { record create_clock {*}$args }
proc set_false_path {args} { record set_false_path }
proc set_max_delay {args} { record set_max_delay }
proc set_clock_groups {args} { record set_clock_groups }
proc set_property {args} { lappend ::calls set_property }

# --- IP
set ::ips {}
proc create_ip {args} {
    set i [lsearch $args -module_name]
    set name [lindex $args [expr {$i + 1}]]
    record create_ip $name
    lappend ::ips $name
    need_file "create_ip $name: its stub" [file join $::stubs_dir $name.v]
}
proc get_ips {args} {
    if {[llength $args]} {
        if {[lindex $args 0] ni $::ips} { mock_error "get_ips $args: no such IP" }
        return [lindex $args 0]
    }
    return $::ips
}
proc generate_target {args} { record generate_target {*}$args }
proc synth_ip {args} { record synth_ip {*}$args }

# --- synthesis and implementation
proc synth_design {args} {
    record synth_design {*}$args
    set i [lsearch $args -generic]
    if {$i >= 0} {
        foreach g [lindex $args [expr {$i + 1}]] {
            set name [lindex [split $g =] 0]
            if {$name ni $::top_params} { mock_error "synth_design: the top has no parameter $name" }
            if {![regexp {^\w+=\d+'[hd][0-9a-fA-F]+$} $g]} { mock_error "synth_design: bad generic $g" }
        }
    }
    set i [lsearch $args -include_dirs]
    if {$i >= 0} {
        foreach d [lindex $args [expr {$i + 1}]] { need_file "include dir" $d }
    }
}
proc opt_design {args} { record opt_design }
proc place_design {args} { record place_design }
proc phys_opt_design {args} { record phys_opt_design }
proc route_design {args} { record route_design }
proc report_utilization {args} { record report_utilization }
proc report_timing_summary {args} { record report_timing_summary }
proc get_timing_paths {args} { return path }
proc get_property {name obj} {
    if {$name eq "SLACK"} { return 0.100 }
    return {}
}
proc write_bitstream {args} {
    record write_bitstream {*}$args
    set f [open [lindex $args end] w]; puts $f mock; close $f
}
proc write_cfgmem {args} {
    record write_cfgmem {*}$args
    set i [lsearch $args -loadbit]
    foreach {dir addr bit} [lindex $args [expr {$i + 1}]] {
        if {$dir ne "up" || ![string is integer $addr]} { mock_error "write_cfgmem: bad -loadbit" }
        need_file "write_cfgmem -loadbit" $bit
    }
    set i [lsearch $args -file]
    set f [open [lindex $args [expr {$i + 1}]] w]; puts $f mock; close $f
}

set ::argv $script_args
set ::argc [llength $script_args]
set ::stubs_dir $stubs_dir
if {[catch {source $script} msg]} {
    mock_error "$script: $msg"
}

# the flow, in order
set want {create_project read_verilog read_xdc create_ip synth_ip synth_design opt_design \
    place_design route_design report_timing_summary write_bitstream write_cfgmem}
set at 0
foreach step $want {
    set i [lsearch -start $at $::calls $step]
    if {$i < 0} {
        mock_error "the flow never reaches $step (after [lindex $::calls [expr {$at - 1}]])"
        break
    }
    set at [expr {$i + 1}]
}
if {[llength $::errors]} {
    puts "mock: [llength $::errors] error(s)"
    exit 1
}
puts "mock: flow complete ([llength $::calls] calls)"
