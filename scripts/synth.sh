#!/usr/bin/env bash
# Synthesis estimates with Yosys synth_xilinx for UltraScale+ (xcup), per top and width.
# usage: synth.sh OUTDIR TOP:WIDTH[:PARAM=VALUE[,PARAM=VALUE...]]... (WIDTH "-": the top's own
# parameters; PARAM=VALUE: more parameters set, e.g. icmp_echo:512:IPV6=1, or
# ctx_cache:512:LINE_BYTES=256,WB_OFFSET=128,CACHE_LOG=10,WAY_LOG=1)
# Prints one table row per top: LUTs (LUT1-6), FFs, LUTRAM LUTs, BRAM36 equivalents, DSPs,
# and the time Yosys took. Logs are in OUTDIR/TOP_wWIDTH.log.
set -euo pipefail
out=$1
shift
mkdir -p "$out"
rtl=$(echo rtl/*.v rtl/lib/*.v rtl/net/*.v rtl/mem/*.v rtl/host/*.v rtl/transport/*.v | tr " " "\n" | grep -v "\*" | tr "\n" " ")
echo "# Yosys synth_xilinx -family xcup -flatten; LUT = LUT1..LUT6, BRAM36 counts two RAMB18 as one"
printf '%-16s %6s %8s %8s %8s %6s %5s %7s\n' module width LUT FF LUTRAM BRAM36 DSP seconds
for spec in "$@"; do
	top=${spec%%:*}
	width=${spec#*:}
	extra=
	if [[ $width == *:* ]]; then
		extra=${width#*:}
		width=${width%%:*}
	fi
	name=$top${extra:+_${extra//,/_}}
	log=$out/${name}_w$width.log
	start=$SECONDS
	chparam="chparam -set DATA_WIDTH $width $top;"
	[[ $width == - ]] && chparam=
	if [[ -n $extra ]]; then
		IFS=, read -ra sets <<<"$extra"
		for set in "${sets[@]}"; do
			chparam="$chparam chparam -set ${set%%=*} ${set#*=} $top;"
		done
	fi
	yosys -q -l "$log" -p "read_verilog -Ibuild/gen -Irtl/lib -Irtl/net -Irtl/mem -Irtl/host -Irtl/transport $rtl;
		$chparam
		synth_xilinx -family xcup -top $top -flatten;
		tee -o $out/${name}_w$width.stat stat" >/dev/null 2>&1
	secs=$((SECONDS - start))
	stat=$out/${name}_w$width.stat
	cells() { awk -v re="$1" '$1 ~ re {n += $2} END {print n + 0}' "$stat"; }
	lut=$(cells '^LUT[1-6]$')
	ff=$(cells '^FD[A-Z]*$')
	lutram=$(cells '^RAM(32|64|128|256)[MXS0-9]*$')
	bram=$(awk '$1 == "RAMB36E2" {n += $2} $1 == "RAMB18E2" {n += $2 / 2} END {print n + 0}' "$stat")
	dsp=$(cells '^DSP48E2$')
	printf '%-16s %6s %8s %8s %8s %6s %5s %7s\n' "$name" "$width" "$lut" "$ff" "$lutram" "$bram" \
		"$dsp" "$secs"
done
