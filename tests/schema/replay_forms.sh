#!/bin/sh
# The alerts `plumbline replay` makes from the shipped replay cases, in both
# forms: every native record valid against docs/schema/ (strict: no field
# the schemas do not describe), every OCSF finding valid against the class
# derived from OCSF's own definition, every id unique, and the OCSF file
# one finding per native alert or summary, with the same ids.
# Usage: replay_forms.sh PLUMBLINE PYTHON3 CASE_DIR RULES_DIR OCSF_SCHEMA
set -eu
bin=$1 py=$2 cases=$3 rules=$4 ocsf_schema=$5
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
for c in "$cases"/*.jsonl; do
	name=$(basename "$c" .jsonl)
	"$bin" replay "$c" --rules "$rules" --json >"$tmp/$name.native.jsonl" 2>/dev/null
	"$bin" replay "$c" --rules "$rules" --ocsf >"$tmp/$name.ocsf.jsonl" 2>/dev/null
	# one finding per alert or summary
	n=$(grep -c . "$tmp/$name.native.jsonl" || true)
	o=$(grep -c . "$tmp/$name.ocsf.jsonl" || true)
	[ "$n" = "$o" ] || { echo "$name: $n native records but $o OCSF findings"; exit 1; }
done
cat "$tmp"/*.native.jsonl >"$tmp/native.jsonl"
cat "$tmp"/*.ocsf.jsonl >"$tmp/ocsf.jsonl"
"$py" "$here/validate.py" --strict --min 5 "$tmp/native.jsonl"
"$py" "$here/validate.py" --against "$ocsf_schema" --min 5 "$tmp/ocsf.jsonl"
dups=$(grep -oE '"id":"[0-9a-f]{16}-[0-9a-f]{16}"' "$tmp/native.jsonl" | sort | uniq -d)
[ -z "$dups" ] || { echo "ids written twice: $dups"; exit 1; }
# replays are separate runs: each has its own instance
inst=$(grep -o '"id":"[0-9a-f]*-' "$tmp/native.jsonl" | sort -u | wc -l)
cases_n=$(ls "$cases"/*.jsonl | wc -l)
[ "$inst" -le "$cases_n" ] && [ "$inst" -ge 2 ] || { echo "expected one id instance per replay, got $inst"; exit 1; }
echo "replay_forms: ok"
