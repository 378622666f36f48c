#!/bin/sh
# `plumbline report` as a real browser sees it: headless Chromium (Debian's
# chromium) loads the page, its DOM must hold every section, the summary
# naming the rule and the exe, the baseline's marker at the alert's value,
# the flame graph's frames, and nothing that loads anything; its screenshot
# must be a real PNG of the window's size showing the page (report_check.py
# says what is checked).
#
# Without chromium or python3 the test is skipped (exit 77) with the
# reason, unless PLUMBLINE_REQUIRE_BPF=1 (CI), where a skip is a failure.
#
# Usage: report_chromium.sh PLUMBLINE_BIN [JSONL ALERT_ID]
# (default: the alerts `plumbline replay` raises on
# tests/rules/replay/auth.jsonl with the shipped rules - the first one with a
# scored baseline - and the alert a-burn of the fixture
# tests/cli/evidence/alerts.jsonl (stacks with hostile names), named by the
# prefix a-bu, and report/hostile.jsonl: markup, quotes and control bytes in
# every string the page shows, the exe's among them;
# test_stacks passes a live sensor's output and alert)
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
width=1280
height=2000

. "$here/chromium_lib.sh"

if [ $# -ge 3 ]; then
	set -- "$2" "$3"
else
	"$bin" replay "$src/tests/rules/replay/auth.jsonl" --json >"$tmp/auth.jsonl" 2>"$tmp/replay.log" || {
		echo "FAIL: plumbline replay exited $?:" >&2
		cat "$tmp/replay.log" >&2
		exit 1
	}
	# the first alert with a scored baseline
	auth=$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "alert" and ((r.get("evidence") or {}).get("baseline") or {}).get("features"):
        print(r["id"]); break' "$tmp/auth.jsonl")
	[ -n "$auth" ] || {
		echo "FAIL: no alert with a scored baseline from the replay of auth.jsonl" >&2
		exit 1
	}
	set -- "$tmp/auth.jsonl" "$auth" "$here/evidence/alerts.jsonl" a-bu "$here/report/hostile.jsonl" h-
fi

fails=0
while [ $# -ge 2 ]; do
	fx=$1 id=$2
	shift 2
	rm -f "$tmp/report.html" "$tmp/report.png"
	"$bin" report "$id" --records "$fx" -o "$tmp/report.html" || {
		echo "FAIL: $id: plumbline report exited $?" >&2
		exit 1
	}
	# stdout and the FILE argument give the same page
	"$bin" report "$id" "$fx" >"$tmp/stdout.html" && cmp -s "$tmp/stdout.html" "$tmp/report.html" || {
		echo "FAIL: $id: plumbline report ID FILE to stdout differs from -o" >&2
		exit 1
	}
	if ! browse "$tmp/report.html" --dump-dom >"$tmp/dom.html"; then
		echo "FAIL: $id: chromium --dump-dom failed:" >&2
		tail -20 "$tmp/chromium.log" >&2
		exit 1
	fi
	if ! browse "$tmp/report.html" --hide-scrollbars --window-size="$width,$height" \
		--screenshot="$tmp/report.png" >/dev/null; then
		echo "FAIL: $id: chromium --screenshot failed:" >&2
		tail -20 "$tmp/chromium.log" >&2
		exit 1
	fi
	[ -s "$tmp/report.png" ] || {
		echo "FAIL: $id: chromium took no screenshot" >&2
		exit 1
	}
	echo "$id:"
	python3 "$here/report_check.py" "$fx" "$id" "$tmp/dom.html" "$tmp/report.png" "$width" "$height" ||
		fails=$((fails + 1))
done
[ "$fails" = 0 ]
