#!/bin/sh
# Every record the test suite's writers produced (unit tests' outputs, the
# BPF tests' and scenarios' sensor files), collected by the suites in DIR,
# one directory per test: native records (DIR/*/*.jsonl) against
# docs/schema/ (strict), OCSF findings (DIR/*/ocsf/*.jsonl) against the
# derived OCSF class. Fails when nothing was collected.
# Usage: validate_collected.sh PYTHON3 DIR OCSF_SCHEMA
set -eu
py=$1 dir=$2 ocsf_schema=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
# The scenarios write tens of thousands of process records of one shape:
# past the first 500 of a type in a file, one in 20 is validated.
# shellcheck disable=SC2046 # one argument per test directory
"$py" "$here/validate.py" --strict --min 1 --sample-after 500 --sample-every 20 \
	"$dir" $(find "$dir" -mindepth 1 -maxdepth 1 -type d | sort)
"$py" "$here/validate.py" --against "$ocsf_schema" --min 0 \
	"$dir" $(find "$dir" -mindepth 2 -maxdepth 2 -type d -name ocsf | sort)
