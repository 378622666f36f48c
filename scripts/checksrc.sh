#!/bin/sh
# Reject calls we don't allow in plumbline's C (docs/contributing.md says why):
# unbounded string functions, atoi-style parsing without error checks,
# shell-outs and alloca. Prints each offending line; exits 1 if any.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2

banned='\b(sprintf|vsprintf|strcpy|strcat|gets|atoi|atol|atoll|strtok|alloca|popen)[[:space:]]*\(|(^|[^_a-zA-Z0-9.>])system[[:space:]]*\('
found=$(git ls-files -- '*.c' '*.h' 2>/dev/null | xargs -r grep -nE "$banned" | grep -vE '^\S+:[0-9]+:\s*(\*|//|/\*)')
if [ -n "$found" ]; then
	echo "checksrc: banned calls:" >&2
	echo "$found" >&2
	exit 1
fi
echo "checksrc: $(git ls-files -- '*.c' '*.h' | wc -l) files clean"
