#!/usr/bin/env bash
# Synthesis estimate of the board shell (firmware/rtl) with Yosys synth_xilinx for
# UltraScale+, the core a black box (its figures are make synth's). Prints one line:
# LUTs (LUT1-6), FFs, LUTRAM cells, BRAM36 equivalents, and the time Yosys took.
# usage: synth_shell.sh OUTDIR
set -euo pipefail
out=$1
mkdir -p "$out"
shell=$(ls firmware/rtl/*.v | grep -v axil_bar_split | tr '\n' ' ')
start=$SECONDS
yosys -q -l "$out/hroce_shell.log" -p "read_verilog -lib -Ibuild/gen rtl/hroce_core.v;
	read_verilog -Ibuild/gen $shell;
	synth_xilinx -family xcup -top hroce_shell -flatten;
	tee -o $out/hroce_shell.stat stat" >/dev/null 2>&1
stat=$out/hroce_shell.stat
cells() { awk -v re="$1" '$1 ~ re {n += $2} END {print n + 0}' "$stat"; }
bram=$(awk '$1 == "RAMB36E2" {n += $2} $1 == "RAMB18E2" {n += $2 / 2} END {print n + 0}' "$stat")
echo "hroce_shell (core as a black box; Yosys synth_xilinx -family xcup -flatten):" \
	"$(cells '^LUT[1-6]$') LUT, $(cells '^FD[A-Z]*$') FF," \
	"$(cells '^RAM(32|64|128|256)[MXS0-9]*$') LUTRAM, $bram BRAM36, $((SECONDS - start)) s"
