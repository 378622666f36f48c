#!/bin/sh
# Replay one case's records through the shipped rules and compare the rules
# that fired, in order, with <case>.expected.
# Usage: run_case.sh PLUMBLINE RULES_DIR CASE_DIR CASE
set -eu
bin=$1 rules=$2 dir=$3 case=$4
# alerts only: the alert_summary records of dedupe windows name rules too
got=$("$bin" replay "$dir/$case.jsonl" --rules "$rules" --json 2>/dev/null | grep '^{"type":"alert",' |
	grep -o '"rule":"[^"]*"' | sed 's/^"rule":"//; s/"$//') || true
want=$(cat "$dir/$case.expected")
if [ "$got" != "$want" ]; then
	echo "case $case: the rules that fired differ"
	echo "--- expected"; echo "$want"
	echo "--- got"; echo "$got"
	exit 1
fi
echo "case $case: $(printf '%s' "$want" | grep -c . || true) alerts as expected"
