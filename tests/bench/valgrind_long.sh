#!/bin/sh
# A long sensor run under valgrind (memcheck by default, or massif), a steady
# workload beside it (processes spawned, each failing an open), and the heap in
# use sampled over time: a table (seconds, heap bytes in use, RSS) and the
# slope of the heap's least-squares line over the second half of the run, to
# show there is no growing leak. Not a ctest: it takes minutes.
#
# Heap in use comes from valgrind's own gdbserver (vgdb): memcheck's
# "leak_check summary" monitor command gives the bytes in use at that moment
# (reachable + lost), massif's snapshots give the heap directly.
#
# Needs root, BPF and valgrind (scripts/install-deps.sh --tests).
# Usage: tests/bench/valgrind_long.sh [--minutes N] [--tool memcheck|massif] [PLUMBLINE]
#        (default: 10 minutes, memcheck, build/plumbline)
set -eu
minutes=10 tool=memcheck
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/build/plumbline
while [ $# -gt 0 ]; do
	case $1 in
	--minutes) minutes=$2; shift 2 ;;
	--tool) tool=$2; shift 2 ;;
	*) bin=$1; shift ;;
	esac
done
tmp=$(mktemp -d)
vpid= wpid=
cleanup() {
	[ -n "$wpid" ] && kill "$wpid" 2>/dev/null
	[ -n "$vpid" ] && kill -KILL "$vpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

case $tool in
memcheck) topts="--tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect" ;;
massif) topts="--tool=massif --massif-out-file=$tmp/massif.out --time-unit=ms --detailed-freq=1000000" ;;
*) echo "valgrind_long: --tool memcheck or massif" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086
valgrind $topts --vgdb=yes --vgdb-prefix="$tmp/vgdb" --suppressions="$top/tests/valgrind/sensor.supp" \
	--log-file="$tmp/valgrind.log" \
	"$bin" run --json "$tmp/records.jsonl" --process-records --stats-interval 10 --flush-interval 30 \
	--no-live --no-syslog --state-dir "$tmp/state" --duration "$((minutes * 60 + 180))" 2>"$tmp/sensor.log" &
vpid=$!
until grep -q "attached: watching" "$tmp/sensor.log" 2>/dev/null; do
	kill -0 "$vpid" 2>/dev/null || { cat "$tmp/sensor.log" "$tmp/valgrind.log"; exit 1; }
	sleep 0.5
done

# the steady workload: 5 processes a second, each failing an open
(while :; do
	for j in 1 2 3 4 5; do sh -c 'cat /nonexistent/plumbline-valgrind-long 2>/dev/null' & done
	wait
	sleep 1
done) &
wpid=$!

heap_now() { # bytes of heap in use now
	if [ "$tool" = memcheck ]; then
		# "==PID==    still reachable: 29,930,445 (+198,281) bytes in ..." on stderr
		vgdb --vgdb-prefix="$tmp/vgdb" --pid="$vpid" leak_check summary 2>&1 |
			awk '/(definitely|indirectly|possibly) lost:|still reachable:/ { sub(/.*: /, ""); gsub(",", ""); s += $1 } END { print s + 0 }'
	else
		vgdb --vgdb-prefix="$tmp/vgdb" --pid="$vpid" snapshot "$tmp/snap" >/dev/null 2>&1
		awk -F= '/^mem_heap_B=/ { h = $2 } /^mem_heap_extra_B=/ { e = $2 } END { print h + e }' "$tmp/snap" 2>/dev/null
	fi
}
rss_now() { awk '/^VmRSS:/ { print $2 * 1024 }' "/proc/$vpid/status"; }

start=$(date +%s)
end=$((start + minutes * 60))
step=$((minutes * 60 / 20))
[ "$step" -ge 5 ] || step=5
printf "%8s %14s %14s\n" seconds heap_bytes rss_bytes | tee "$tmp/table"
while :; do
	now=$(date +%s)
	t=$((now - start))
	printf "%8d %14d %14d\n" "$t" "$(heap_now)" "$(rss_now)" | tee -a "$tmp/table"
	[ "$now" -lt "$end" ] || break
	sleep "$step"
done
kill "$wpid" 2>/dev/null; wpid=
# its --duration ends it: valgrind 3.19 does not hand signals to the
# sensor's signalfd (tests/valgrind/valgrind_sensor.sh)
wait "$vpid" || true
vpid=
# the slope over the second half (the first holds the warm-up: caches and
# tables filling up to their bounds)
awk -v half=$((minutes * 30)) 'NR > 1 && $1 >= half { n++; sx += $1; sy += $2; sxx += $1 * $1; sxy += $1 * $2 }
	END { if (n < 2) { print "too few samples"; exit }
	      b = (n * sxy - sx * sy) / (n * sxx - sx * sx)
	      printf "heap slope over the second half: %.1f bytes/s (%.0f bytes/hour), %d samples\n", b, b * 3600, n }' "$tmp/table"
echo "--- valgrind's summary at exit:"
grep -E "in use at exit|definitely lost|indirectly lost|possibly lost|still reachable|ERROR SUMMARY" "$tmp/valgrind.log" || true
grep -o 'detached after.*' "$tmp/sensor.log" || true
