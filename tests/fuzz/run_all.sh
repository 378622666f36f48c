#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run_all.sh - run every libFuzzer target of a PL_FUZZ build, one at a time,
# and print a table: target, executions, seconds, exec/s, crashes, corpus size.
#
#   tests/fuzz/run_all.sh BUILD_FUZZ_DIR [--runs N] [--max-time S] [--only T1,T2] [--work-dir DIR]
#
# Every executable named fuzz_* in BUILD_FUZZ_DIR/tests/fuzz (a target added
# later included; the *_replay test programs excepted) runs for N executions
# (default 10000000) or S seconds (default 720), whichever comes first, from
# a working corpus DIR/<name> (default BUILD_FUZZ_DIR/fuzz-work) seeded with
# the tree's tests/fuzz/corpus/<name>; what it learns stays there for the next
# run, the tree's corpus is never written. A crash leaves its input in
# DIR/<name>/artifacts/ (replay it: BUILD_FUZZ_DIR/tests/fuzz/fuzz_<name> FILE).
# Exit status: 0, or 1 when any target crashed (or did not run).
set -u

usage() {
	echo "usage: $0 BUILD_FUZZ_DIR [--runs N] [--max-time S] [--only T1,T2] [--work-dir DIR]" >&2
	exit 2
}

[ $# -ge 1 ] || usage
build=$1
shift
runs=10000000
max_time=720
only=
work=
while [ $# -gt 0 ]; do
	case $1 in
	--runs) [ $# -ge 2 ] || usage; runs=$2; shift 2 ;;
	--max-time) [ $# -ge 2 ] || usage; max_time=$2; shift 2 ;;
	--only) [ $# -ge 2 ] || usage; only=$2; shift 2 ;;
	--work-dir | --jobs-dir) [ $# -ge 2 ] || usage; work=$2; shift 2 ;;
	*) usage ;;
	esac
done
case $runs$max_time in *[!0-9]*) usage ;; esac

src=$(cd "$(dirname "$0")" && pwd)
bindir=$build/tests/fuzz
[ -n "$work" ] || work=$build/fuzz-work
if [ ! -d "$bindir" ]; then
	echo "$0: no $bindir: configure with the fuzz preset (cmake --preset fuzz) and build first" >&2
	exit 2
fi
mkdir -p "$work" || exit 2

status=0
found=0
rows=
for exe in "$bindir"/fuzz_*; do
	name=$(basename "$exe")
	case $name in *_replay) continue ;; esac
	if [ ! -f "$exe" ] || [ ! -x "$exe" ]; then continue; fi
	short=${name#fuzz_}
	if [ -n "$only" ]; then
		case ",$only," in *",$short,"* | *",$name,"*) ;; *) continue ;; esac
	fi
	found=$((found + 1))
	corpus=$work/$short
	art=$corpus/artifacts
	mkdir -p "$corpus/queue" "$art"
	if [ -d "$src/corpus/$short" ]; then
		cp -n "$src/corpus/$short"/* "$corpus/queue/" 2>/dev/null
	fi
	log=$corpus/last-run.log
	# crash-, leak-, oom-, timeout- inputs (not slow-unit-: a report, no failure)
	before=$(find "$art" -type f ! -name 'slow-unit-*' | wc -l)
	echo "== $name: up to $runs executions or $max_time s" >&2
	# elapsed time from /proc/uptime (CLOCK_BOOTTIME): libFuzzer's own rate
	# is from the wall clock, wrong when the clock is stepped meanwhile
	t0=$(cut -d' ' -f1 /proc/uptime)
	# the time bound is timeout(1)'s SIGINT (libFuzzer then prints its final
	# stats and exits 72), not -max_total_time: that one reads the wall clock,
	# and a clock stepped forward would end the run at once
	timeout -s INT "$max_time" "$exe" -runs="$runs" -print_final_stats=1 \
		-artifact_prefix="$art/" "$corpus/queue" >"$log" 2>&1
	rc=$?
	[ "$rc" -eq 72 ] || [ "$rc" -eq 124 ] && rc=0
	t1=$(cut -d' ' -f1 /proc/uptime)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')
	rate=$(awk -v n="${execs:-0}" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b > a ? n / (b - a) : 0) }')
	crashes=$(($(find "$art" -type f ! -name 'slow-unit-*' | wc -l) - before))
	size=$(find "$corpus/queue" -type f | wc -l)
	if [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ]; then
		crashes=1 # it died without leaving an input: see the log
	fi
	if [ "$crashes" -ne 0 ]; then
		status=1
		echo "$name: crashed, see $log and $art" >&2
	fi
	rows="$rows$(printf '| %s | %s | %s | %s | %s | %s |' "$name" "${execs:-?}" "$secs" "$rate" "$crashes" "$size")
"
done
if [ "$found" -eq 0 ]; then
	echo "$0: no fuzz_* target in $bindir${only:+ matching $only}" >&2
	exit 1
fi
echo "| target | executions | seconds | exec/s | crashes | corpus |"
echo "|---|---:|---:|---:|---:|---:|"
printf '%s' "$rows"
exit $status
