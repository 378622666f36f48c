#!/bin/sh
# The flame graph of `plumbline evidence --svg` as a real browser sees it:
# headless Chromium (Debian's chromium) loads the SVG, its DOM must hold
# exactly the frames of the alert's stacks and no element a name could have
# smuggled in, its screenshot must show the boxes in their colours where the
# SVG put them, and every label, as Chromium lays it out in the SVG's font,
# must fit inside its box (evidence_check.py says what is checked).
#
# Without chromium or python3 the test is skipped (exit 77) with the
# reason, unless PLUMBLINE_REQUIRE_BPF=1 (CI), where a skip is a failure.
#
# Usage: evidence_chromium.sh PLUMBLINE_BIN [JSONL ALERT_ID]
# (default: the fixture tests/cli/evidence/alerts.jsonl and its alerts
# a-burn (hostile names) and a-merge (merging, cut labels, new frames);
# test_stacks passes a live sensor's output and alert)
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
fx=${2:-$here/evidence/alerts.jsonl}
ids=${3:-a-burn a-merge}

. "$here/chromium_lib.sh"
# the labels are measured by DejaVu Sans's advances: another font would fail them for its own widths
fc-match -f '%{family}' 'DejaVu Sans' 2>/dev/null | grep -q 'DejaVu Sans' ||
	skip "no DejaVu Sans for chromium: scripts/install-deps.sh --tests installs fonts-dejavu-core"

fails=0
for id in $ids; do
	"$bin" evidence "$fx" "$id" --svg "$tmp/out.svg" || {
		echo "FAIL: $id: plumbline evidence --svg exited $?" >&2
		exit 1
	}
	height=$(sed -n 's/^<svg [^>]* height="\([0-9]*\)".*/\1/p' "$tmp/out.svg")
	[ -n "$height" ] || {
		echo "FAIL: $id: no height in the SVG" >&2
		exit 1
	}
	if ! browse "$tmp/out.svg" --dump-dom >"$tmp/dom.xml"; then
		echo "FAIL: $id: chromium --dump-dom failed:" >&2
		tail -20 "$tmp/chromium.log" >&2
		exit 1
	fi
	if ! browse "$tmp/out.svg" --hide-scrollbars --window-size="1200,$height" --screenshot="$tmp/shot.png" \
		>/dev/null; then
		echo "FAIL: $id: chromium --screenshot failed:" >&2
		tail -20 "$tmp/chromium.log" >&2
		exit 1
	fi
	# the labels as laid out: a page of the SVG inlined, whose script measures them
	python3 "$here/evidence_check.py" page "$fx" "$id" "$tmp/out.svg" "$tmp/page.xhtml" || exit 1
	if ! browse "$tmp/page.xhtml" --dump-dom >"$tmp/measured.xml"; then
		echo "FAIL: $id: chromium --dump-dom of the measuring page failed:" >&2
		tail -20 "$tmp/chromium.log" >&2
		exit 1
	fi
	echo "$id:"
	python3 "$here/evidence_check.py" "$fx" "$id" "$tmp/dom.xml" "$tmp/shot.png" "$height" "$tmp/measured.xml" ||
		fails=$((fails + 1))
done
[ "$fails" = 0 ]
