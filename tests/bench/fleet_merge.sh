#!/bin/sh
# SPDX-License-Identifier: MIT
# The fleet merge benchmark (docs/performance.md, "Fleet bundles"): NHOSTS
# signed per-host exports of each shape (bench_fleet_gen: a build host's
# store and an SSH server's, learned with the real baseline code), then
# `plumbline baseline merge --trust --sign` of all of them into one role
# bundle, timed, with its peak memory (/usr/bin/time -v: the merge's own
# maximum RSS), and the sizes of the inputs and of the bundle. Then verify
# and import of that bundle, timed too. Not a ctest test: minutes of wall
# time and gigabytes of files, and the figures depend on the machine.
#
# Usage: tests/bench/fleet_merge.sh BUILD_DIR [NHOSTS (1000)] [WORKDIR (a temp dir, removed)]
set -eu
build=$(cd "$1" && pwd)
nhosts=${2:-1000}
work=${3:-}
bin=$build/plumbline
gen=$build/tests/bench/bench_fleet_gen
[ -x "$bin" ] && [ -x "$gen" ] || { echo "build plumbline and bench_fleet_gen first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian's time package)" >&2; exit 2; }
if [ -z "$work" ]; then
	work=$(mktemp -d /var/tmp/pl-fleet-merge-XXXXXX)
	trap 'rm -rf "$work"' EXIT INT TERM
fi
mkdir -p "$work"

"$bin" baseline --no-config keygen "$work/fleet.key" 2>/dev/null

# field NAME FILE: a value of /usr/bin/time -v's report
field() { sed -n "s/^[[:space:]]*$1: //p" "$2"; }
# wall seconds of "Elapsed (wall clock) time (h:mm:ss or m:ss): M:SS.ss"
wall() { field 'Elapsed (wall clock) time (h:mm:ss or m:ss)' "$1" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }'; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

printf '| role | hosts | baselines per export | export (mean) | inputs | merged baselines | bundle | merge wall | merge CPU | merge max RSS | verify | import |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for role in ssh build; do
	dir=$work/$role
	"$gen" "$role" "$nhosts" "$dir" "$work/fleet.key" >"$work/$role.bytes"
	in_bytes=$(cat "$work/$role.bytes")
	per=$("$bin" baseline --no-config --json verify "$dir/$role-0000.json" --trust "$work/fleet.key.pub" |
		sed 's/.*"baselines":\([0-9]*\).*/\1/')
	sync
	# the files are in the page cache (just written): the merge's cost, not the disk's
	/usr/bin/time -v "$bin" baseline --no-config merge "$dir"/*.json -o "$work/$role-bundle.json" --role "$role" \
		--trust "$work/fleet.key.pub" --sign "$work/fleet.key" 2>"$work/$role.time" >/dev/null ||
		{ cat "$work/$role.time" >&2; exit 1; }
	merged=$(sed -n 's/.*merge: \([0-9]*\) baselines.*/\1/p' "$work/$role.time")
	grep -q "role $role, $nhosts hosts, signed by key" "$work/$role.time" || { cat "$work/$role.time" >&2; exit 1; }
	mw=$(wall "$work/$role.time")
	mcpu=$(awk -v u="$(field 'User time (seconds)' "$work/$role.time")" -v s="$(field 'System time (seconds)' "$work/$role.time")" 'BEGIN { print u + s }')
	rss=$(field 'Maximum resident set size (kbytes)' "$work/$role.time")
	out_bytes=$(stat -c %s "$work/$role-bundle.json")
	/usr/bin/time -v "$bin" baseline --no-config verify "$work/$role-bundle.json" --trust "$work/fleet.key.pub" \
		>/dev/null 2>"$work/$role.vtime"
	mkdir -m 0700 "$work/$role-state"
	/usr/bin/time -v "$bin" baseline --no-config --state-dir "$work/$role-state" import "$work/$role-bundle.json" \
		--trust "$work/fleet.key.pub" --role "$role" 2>"$work/$role.itime" >/dev/null ||
		{ cat "$work/$role.itime" >&2; exit 1; }
	printf '| %s | %s | %s | %s KiB | %s MiB | %s | %s MiB | %s s | %s s | %s MiB | %s s | %s s |\n' "$role" "$nhosts" "$per" \
		"$(awk -v b="$in_bytes" -v n="$nhosts" 'BEGIN { printf "%.0f", b / n / 1024 }')" "$(mib "$in_bytes")" \
		"$merged" "$(mib "$out_bytes")" "$mw" "$mcpu" "$(awk -v k="$rss" 'BEGIN { printf "%.0f", k / 1024 }')" \
		"$(wall "$work/$role.vtime")" "$(wall "$work/$role.itime")"
	rm -rf "$dir" # the next shape's inputs need the room
done
