#!/usr/bin/env bash
# The main job: Debian's unmodified perftest between two simulated HardRoCE NICs.
#
# Each test runs twice through hroce-run, a server on hroce0 and a client on hroce1, in two
# processes whose NICs (Verilator models of the core, each run by a thread of its process)
# share a wire in /dev/shm; perftest's out-of-band exchange is its own TCP on loopback.
# perftest's report measures wall-clock time, which in a simulation says how fast the
# simulator is, not the NIC. So each run also records the wire (a pcap with simulated-
# nanosecond timestamps) and the NICs' counters, and prints the simulated-time figures:
# goodput on the wire, latency as perftest defines it (half a ping-pong round trip), and
# the simulation speed.
# usage: demo.sh BINDIR OUTDIR [TEST...]   (TEST: write_bw, send_lat, read_bw; default all)
set -euo pipefail
bin=$1
out=$2
shift 2
only=("$@")
mkdir -p "$out"
port=$((18515 + $$ % 1000))
wire=hroce-demo-$$
trap 'rm -f /dev/shm/$wire' EXIT

config() { # $1: the pcap of the client's port
	for d in 0 1; do
		printf '[hroce%d]\nmac = 02:00:0a:00:00:0%d\nipv4 = 10.0.0.%d\nwire = %s\nport = %d\n' \
			$d $((d + 1)) $((d + 1)) "$wire" $d
		[[ $d -eq 1 ]] && printf 'pcap = %s\n' "$1"
		printf '\n'
	done
}

stat() { awk -v k="$1" '$1 == k {print $2}' "$2"; }
per_s() { awk -v c="$1" -v w="$2" 'BEGIN {printf "%.0f", c / w}'; } # count, seconds
# the pcap stats of the direction whose source is $1: key $2
dirstat() {
	local d
	d=$(awk -v ip="$1" '$2 == ip && $1 ~ /\.src$/ {sub(/\.src$/, "", $1); print $1}' "$3")
	[[ -n $d ]] && stat "$d.$2" "$3"
}

run() { # name, perftest program, its options...
	local name=$1 prog=$2
	shift 2
	if [[ ${#only[@]} -gt 0 && " ${only[*]} " != *" $name "* ]]; then
		return 0
	fi
	local conf=$out/$name.conf pcap=$out/$name.pcap
	config "$pcap" >"$conf"
	echo
	echo "=== $prog $* (server hroce0, client hroce1, simulated)"
	HROCE_CONFIG=$conf HROCE_STATS=$out/$name-server.stats \
		"$bin/hroce-run" "$prog" -d hroce0 -p $port "$@" >"$out/$name-server.out" 2>&1 &
	local server=$!
	sleep 0.5
	local start end
	start=$(date +%s.%N)
	HROCE_CONFIG=$conf HROCE_STATS=$out/$name-client.stats \
		"$bin/hroce-run" "$prog" -d hroce1 -p $port "$@" 127.0.0.1 2>&1 |
		tee "$out/$name-client.out" | grep -v "^ Device not recognized"
	wait $server
	end=$(date +%s.%N)
	port=$((port + 1))
	"$bin/hroce-pcap" stats "$pcap" >"$out/$name.pcapstats"
	local cs=$out/$name-client.stats ss=$out/$name-server.stats ps=$out/$name.pcapstats
	echo "--- in simulated time (core 250 MHz, PCIe 200 ns one way, link 100 Gb/s + 100 ns):"
	case $prog in
	ib_write_bw | ib_send_bw)
		echo "    goodput on the wire, client to server: $(dirstat 10.0.0.2 goodput_gbps "$ps") Gb/s" \
			"($(dirstat 10.0.0.2 payload_bytes "$ps") payload bytes in $(dirstat 10.0.0.2 data_span_ns "$ps") ns)" ;;
	ib_read_bw)
		echo "    goodput on the wire, READ responses: $(dirstat 10.0.0.1 goodput_gbps "$ps") Gb/s" \
			"($(dirstat 10.0.0.1 payload_bytes "$ps") payload bytes in $(dirstat 10.0.0.1 data_span_ns "$ps") ns)" ;;
	*_lat)
		local iv
		iv=$(dirstat 10.0.0.2 message_interval_ns "$ps")
		echo "    latency: $(awk -v i="$iv" 'BEGIN {printf "%.0f", i / 2}') ns" \
			"(half the round trip of a ping-pong iteration, $iv ns, on the wire)" ;;
	esac
	local cycles wall
	cycles=$(($(stat sim.cycles_run "$cs") + $(stat sim.cycles_run "$ss")))
	wall=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", b - a}')
	echo "    simulation: $(stat sim.cycles "$cs") cycles of simulated time" \
		"($(stat sim.ns "$cs") ns), $cycles evaluated by the two NICs in $wall s:" \
		"$(per_s "$cycles" "$wall") cycles/s ($(per_s "$(stat sim.cycles_run "$cs")" "$wall")" \
		"a second by the client's NIC, $(per_s "$(stat sim.cycles_run "$ss")" "$wall") by the" \
		"server's, each in its process)"
	echo "    counters: client sent $(stat core.tx_frames "$cs") frames, received" \
		"$(stat rx.ok "$cs"); ICRC errors $(($(stat rx.icrc "$cs") + $(stat rx.icrc "$ss")))," \
		"IOVA faults $(($(stat iova_faults "$cs") + $(stat iova_faults "$ss")))"
}

run write_bw ib_write_bw -s 65536 -n 500 -F --report_gbits
run send_lat ib_send_lat -s 8 -n 500 -F
run read_bw ib_read_bw -s 65536 -n 500 -F --report_gbits
echo
echo "Outputs, captures and counters: $out"
