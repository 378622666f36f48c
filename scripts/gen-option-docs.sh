#!/bin/sh
# Write what is generated from the option table of `plumbline run`
# (sensor/config/options_table.c) into the files that are committed:
#   sensor/dist/plumbline.conf   = `plumbline config example`
#   docs/config.md, docs/cli.md  = `plumbline config doc-table config|cli`,
#                                  between their BEGIN/END run-options markers
# Usage: scripts/gen-option-docs.sh [--check] PLUMBLINE_BINARY
# --check writes nothing: it exits 1, saying what to run, when a committed
# copy differs from what the table gives (the ctest cli_options_docs).
set -eu
check=0
if [ "${1:-}" = "--check" ]; then
	check=1
	shift
fi
[ $# -eq 1 ] || { echo "usage: $0 [--check] PLUMBLINE_BINARY" >&2; exit 2; }
bin=$1
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stale=0

# $1: committed file, $2: its generated content (a file)
settle() {
	if cmp -s "$1" "$2"; then
		return 0
	fi
	if [ $check -eq 1 ]; then
		echo "${1#"$top"/} is out of date with sensor/config/options_table.c:" >&2
		diff -u "$1" "$2" | head -40 >&2 || true
		stale=1
	else
		cp "$2" "$1"
		echo "wrote ${1#"$top"/}"
	fi
}

# $1: markdown file, $2: table name; the lines between the markers replaced
splice() {
	"$bin" config doc-table "$2" >"$tmp/table"
	awk -v table="$tmp/table" -v name="$2" '
		$0 == "<!-- BEGIN run-options " name " (scripts/gen-option-docs.sh) -->" {
			print; while ((getline line < table) > 0) print line; skip = 1; found++; next }
		$0 == "<!-- END run-options " name " -->" { skip = 0 }
		!skip { print }
		END { if (found != 1) exit 3 }' "$1" >"$tmp/out" ||
		{ echo "$1: no BEGIN/END run-options $2 markers" >&2; exit 2; }
	settle "$1" "$tmp/out"
}

"$bin" config example >"$tmp/example"
settle "$top/sensor/dist/plumbline.conf" "$tmp/example"
splice "$top/docs/config.md" config
splice "$top/docs/cli.md" cli
if [ $stale -ne 0 ]; then
	echo "regenerate them: scripts/gen-option-docs.sh $bin (and commit the result)" >&2
	exit 1
fi
