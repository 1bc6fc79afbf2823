#!/usr/bin/env bash
# Runs the test programs and counts their "ok NAME" / "not ok NAME" lines.
# usage: run-tests.sh BINDIR TEST...   Logs go to BINDIR/../test-logs/.
# The last line is "N passed, N failed"; the exit status is non-zero if any failed.
set -uo pipefail
bindir=$1
shift
logdir=$bindir/../test-logs
mkdir -p "$logdir"
passed=0
failed=0
for t in "$@"; do
	log=$logdir/$t.log
	start=$SECONDS
	"$bindir/$t" >"$log" 2>&1
	status=$?
	ok=$(grep -c '^ok ' "$log")
	bad=$(grep -c '^not ok ' "$log")
	grep '^not ok ' "$log"
	if [[ $status -ne 0 && $bad -eq 0 ]]; then
		echo "not ok $t: exited with status $status without reporting a failure (log: $log)"
		tail -5 "$log" | sed 's/^/#   /'
		bad=1
	fi
	if [[ $status -eq 0 && $bad -gt 0 ]]; then
		echo "not ok $t: reported failures but exited 0"
		bad=$((bad + 1))
	fi
	if [[ $ok -eq 0 && $bad -eq 0 ]]; then
		echo "not ok $t: ran no check (log: $log)"
		bad=1
	fi
	echo "# $t: $ok passed, $bad failed in $((SECONDS - start)) s"
	passed=$((passed + ok))
	failed=$((failed + bad))
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
