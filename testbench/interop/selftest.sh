#!/usr/bin/env bash
# The rxe guest on its own, without HardRoCE: two guests on one -netdev dgram link run
# ibv_rc_pingpong (data checked) and ib_write_bw between them, and every RoCEv2 frame of
# the link's capture passes icrc_check.py. Prints "ok NAME" / "not ok NAME: why", then the
# time each guest took to boot (launch to "HROCE-GUEST ready") and the whole run's time.
# Exit 0 only if every check passed.
#
# usage: selftest.sh [RUNDIR]     (default build/interop/selftest: logs and capture)
# env:   PORT_BASE   the link's two UDP ports on 127.0.0.1 (default 47320 and 47321)
#        TIMEOUT     seconds each guest may take (default 300)
# Needs make interop-guest.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
run=$(realpath -m "${1:-$here/../../build/interop/selftest}")
port_a=${PORT_BASE:-47320}
port_b=$((port_a + 1))
timeout=${TIMEOUT:-300}
pingpong="ibv_rc_pingpong -d rxe0 -g 1 -s 4096 -n 20 -c"
write_bw="ib_write_bw -d rxe0 -x 1 -F -s 65536 -n 200"

mkdir -p "$run"
rm -f "$run"/guest-a.log "$run"/guest-b.log "$run"/link.pcap
failed=0
result() { # NAME OK WHY
	if [[ $2 == 1 ]]; then
		echo "ok $1"
	else
		echo "not ok $1: $3"
		failed=$((failed + 1))
	fi
}

start=$(date +%s.%N)
"$here/rxe-guest" --local-port "$port_a" --remote-port "$port_b" --ip 192.0.2.1/24 \
	--mac 52:54:00:00:00:0a --run "$pingpong" --run "$write_bw" --pcap "$run/link.pcap" \
	--log "$run/guest-a.log" --timeout "$timeout" 2>"$run/guest-a.err" &
guest_a=$!
"$here/rxe-guest" --local-port "$port_b" --remote-port "$port_a" --ip 192.0.2.2/24 \
	--mac 52:54:00:00:00:0b --client "$pingpong 192.0.2.1" --client "$write_bw 192.0.2.1" \
	--log "$run/guest-b.log" --timeout "$timeout" 2>"$run/guest-b.err" &
guest_b=$!

# boot times, seen from here: the first moment each console holds the ready marker
declare -A ready
while kill -0 $guest_a 2>/dev/null || kill -0 $guest_b 2>/dev/null; do
	for g in a b; do
		if [[ -z ${ready[$g]:-} ]] && grep -q '^HROCE-GUEST ready' "$run/guest-$g.log" 2>/dev/null; then
			ready[$g]=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
		fi
	done
	sleep 0.1
done
wait $guest_a
status_a=$?
wait $guest_b
status_b=$?
total=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")

# "cmd K rc=N" of a guest
rc() {
	tr -d '\r' <"$run/guest-$1.log" | sed -n "s/^HROCE-GUEST cmd $2 rc=\([0-9]*\)$/\1/p"
}
for g in a b; do
	status_var=status_$g
	result "guest_$g" "$([[ ${!status_var} == 0 ]] && echo 1)" \
		"rxe-guest exited ${!status_var}: $(cat "$run/guest-$g.err") (log: $run/guest-$g.log)"
done
iters=$(tr -d '\r' <"$run/guest-b.log" | grep -c '^20 iters in ')
result ibv_rc_pingpong "$([[ $(rc a 1) == 0 && $(rc b 1) == 0 && $iters == 1 ]] && echo 1)" \
	"server rc=$(rc a 1), client rc=$(rc b 1), $iters client summaries"
bw=$(tr -d '\r' <"$run/guest-b.log" | awk '$1 == 65536 && $2 == 200 { print $4 }')
result ib_write_bw "$([[ $(rc a 2) == 0 && $(rc b 2) == 0 && -n $bw ]] && echo 1)" \
	"server rc=$(rc a 2), client rc=$(rc b 2), no bandwidth line"
icrc=$("$here/icrc_check.py" "$run/link.pcap" 2>&1)
result icrc "$([[ $? == 0 ]] && echo 1)" "$icrc"

echo "# $icrc"
echo "# ib_write_bw 65536 B x 200 between two rxe guests (TCG): ${bw:-?} MB/s average"
echo "# boot (launch to ready): guest a ${ready[a]:-?} s, guest b ${ready[b]:-?} s;" \
	"selftest ${total} s (logs: $run)"
echo "# selftest: $failed failed"
[[ $failed == 0 ]]
