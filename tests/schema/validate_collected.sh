#!/bin/sh
# Every record the test suite's writers produced (unit tests' outputs, the
# BPF tests' and scenarios' sensor files), collected by the suites in DIR,
# one directory per test: native records (DIR/TEST/*.jsonl) against
# docs/schema/ (strict), OCSF findings (DIR/TEST/ocsf/*.jsonl) against the
# derived OCSF class. The tests named (a test that did not run has no
# directory: skipped), or every directory of DIR. Fails when nothing was
# collected.
# Usage: validate_collected.sh PYTHON3 DIR OCSF_SCHEMA [TEST...]
set -eu
py=$1 dir=$2 ocsf_schema=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
if [ $# -eq 0 ]; then
	for d in "$dir"/*/; do
		[ -d "$d" ] && set -- "$@" "$(basename "$d")"
	done
fi
native="" ocsf=""
for t in "$@"; do
	[ -d "$dir/$t" ] && native="$native $dir/$t"
	[ -d "$dir/$t/ocsf" ] && ocsf="$ocsf $dir/$t/ocsf"
done
# The scenarios write tens of thousands of process records of one shape:
# past the first 200 of a type in a file, one in 20 is validated (each takes
# jsonschema about 2.5 ms: every record of the suite would take minutes).
# shellcheck disable=SC2086 # one argument per test directory
"$py" "$here/validate.py" --strict --min 1 --sample-after 200 --sample-every 20 "$dir" $native
# shellcheck disable=SC2086
"$py" "$here/validate.py" --against "$ocsf_schema" --min 0 "$dir" $ocsf
