#!/usr/bin/env bash
# Synthesis estimate of the whole core with Yosys synth_xilinx for UltraScale+ (xcup),
# kept hierarchical so that every module is counted with the parameters the core gives it.
# usage: synth_core.sh OUTDIR
# Prints one row per module (its own cells, submodules not included) and the total:
# LUTs (LUT1-6), FFs, LUTRAM cells, BRAM36 equivalents, DSPs, and how many instances.
set -euo pipefail
out=$1
mkdir -p "$out"
rtl=$(echo rtl/*.v rtl/lib/*.v rtl/net/*.v rtl/mem/*.v rtl/host/*.v rtl/transport/*.v)
start=$SECONDS
yosys -q -l "$out/hroce_core.log" -p "read_verilog -Ibuild/gen -Irtl/lib -Irtl/net -Irtl/mem -Irtl/host -Irtl/transport $rtl;
	synth_xilinx -family xcup -top hroce_core;
	tee -o $out/hroce_core.stat stat" >/dev/null 2>&1
echo "# Yosys synth_xilinx -family xcup, hierarchical, hroce_core at 512 bits ($((SECONDS - start)) s)"
python3 scripts/synth_table.py "$out/hroce_core.stat"
