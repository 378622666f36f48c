#!/bin/sh
# `plumbline evidence` on the fixture tests/cli/evidence/alerts.jsonl (an
# alert with stacks and hostile names, alerts without stacks, a duplicate
# id, a broken one) and interp.jsonl (python and dash frames): the text
# summary and the folded stacks against exact expected files, the SVG
# written atomically and never through a symlink, and each refusal with
# its exit status and message. No root, no BPF.
#
# Usage: evidence.sh PLUMBLINE_BIN
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
fx=$here/evidence/alerts.jsonl
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# run NAME EXPECTED_STATUS ARGS...: stdout in $tmp/out, stderr in $tmp/err
run() {
	name=$1 want=$2
	shift 2
	timeout 10 "$bin" evidence "$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	[ "$got" = "$want" ] || fail "$name: exit status $got, expected $want; stderr: $(cat "$tmp/err")"
}

expect_err() {
	grep -qF -- "$2" "$tmp/err" || fail "$1: expected '$2' on stderr, got: $(cat "$tmp/err")"
}

# ---- what it prints ----
run summary 0 "$fx" a-burn
diff -u "$here/evidence/a-burn.txt" "$tmp/out" >&2 || fail "summary differs from evidence/a-burn.txt"
run folded 0 "$fx" a-burn --folded
diff -u "$here/evidence/a-burn.folded" "$tmp/out" >&2 || fail "folded stacks differ from evidence/a-burn.folded"
[ ! -s "$tmp/err" ] || fail "folded: unexpected stderr: $(cat "$tmp/err")"
# an interpreter's evaluation frames marked, unnamed frames of a stripped
# binary told apart by their offsets (evidence/interp.jsonl)
run interp 0 "$here/evidence/interp.jsonl" a-interp
diff -u "$here/evidence/a-interp.txt" "$tmp/out" >&2 || fail "summary differs from evidence/a-interp.txt"

# ---- the SVG ----
run svg 0 "$fx" a-burn --svg "$tmp/out.svg"
head -c 100 "$tmp/out.svg" | grep -q '<svg xmlns="http://www.w3.org/2000/svg"' || fail "svg: not an SVG document"
[ "$(stat -c %a "$tmp/out.svg")" = 644 ] || fail "svg: mode $(stat -c %a "$tmp/out.svg"), expected 644"
grep -q '<title>burn_cpu (libburn.so.1+0x24)' "$tmp/out.svg" || fail "svg: no burn_cpu frame"
! grep -q '<script' "$tmp/out.svg" || fail "svg: a name became an element"
# replaced whole: an old file of that name is gone, no temp file is left
echo old >"$tmp/old.svg"
run svg-replace 0 "$fx" a-burn --svg "$tmp/old.svg"
cmp -s "$tmp/out.svg" "$tmp/old.svg" || fail "svg-replace: the old file was not replaced by the same drawing"
[ "$(find "$tmp" -name '*.tmp.*' | wc -l)" = 0 ] || fail "svg: a temp file was left behind"
# --folded with --svg: both
run svg-and-folded 0 "$fx" a-burn --svg "$tmp/both.svg" --folded
diff -q "$here/evidence/a-burn.folded" "$tmp/out" >/dev/null || fail "svg-and-folded: folded output differs"
[ -s "$tmp/both.svg" ] || fail "svg-and-folded: no SVG"

# a symlink at OUT is refused, and its target left alone
echo target >"$tmp/target"
ln -s "$tmp/target" "$tmp/link.svg"
run svg-symlink 1 "$fx" a-burn --svg "$tmp/link.svg"
expect_err svg-symlink "it is a symbolic link (not followed)"
[ "$(cat "$tmp/target")" = target ] || fail "svg-symlink: the symlink's target was written"
[ -L "$tmp/link.svg" ] || fail "svg-symlink: the symlink was replaced"
mkdir "$tmp/dir.svg"
run svg-directory 1 "$fx" a-burn --svg "$tmp/dir.svg"
expect_err svg-directory "it is a directory, not a regular file"
run svg-no-dir 1 "$fx" a-burn --svg "$tmp/no/such/dir/out.svg"
expect_err svg-no-dir "No such file or directory"

# ---- which alert ----
run unknown-id 1 "$fx" nope
expect_err unknown-id "No alert with id 'nope' in $fx (6 alerts read)"
run hostile-id 1 "$fx" "$(printf 'x\033[31m')"
expect_err hostile-id "No alert with id 'x\\x1B[31m'"
run duplicate-id 0 "$fx" a-dup --folded
expect_err duplicate-id "2 alerts in $fx have the id 'a-dup': showing the first, line 5"
[ "$(cat "$tmp/out")" = "main;burn_cpu 7" ] || fail "duplicate-id: printed $(cat "$tmp/out")"
run no-stacks 1 "$fx" a-nostacks --svg "$tmp/none.svg"
expect_err no-stacks "alert a-nostacks carries no stack samples"
[ ! -e "$tmp/none.svg" ] || fail "no-stacks: an SVG was written"
run empty-top 1 "$fx" a-empty
expect_err empty-top "alert a-empty carries no stack samples"
run malformed 1 "$fx" a-bad
expect_err malformed "alert a-bad: cannot read its stack evidence: evidence.stacks.top[0].frames[1].offset: not a non-negative integer"

# ---- what it reads ----
mkfifo "$tmp/fifo"
run fifo 1 "$tmp/fifo" a-burn # a writer never comes: it must not wait for one
expect_err fifo "it is a FIFO, not a regular file"
run device 1 /dev/null a-burn
expect_err device "it is a character device, not a regular file"
run missing 1 "$tmp/nothing.jsonl" a-burn
expect_err missing "No such file or directory"
# a line over the 4 MiB bound is skipped and named; the alert after it is found
{
	head -c $((5 * 1024 * 1024)) /dev/zero | tr '\0' x
	echo
	cat "$fx"
} >"$tmp/long.jsonl"
run long-line 0 "$tmp/long.jsonl" a-burn --folded
expect_err long-line "$tmp/long.jsonl:1: line longer than the 4 MiB limit, skipped"
diff -q "$here/evidence/a-burn.folded" "$tmp/out" >/dev/null || fail "long-line: folded output differs"

# ---- usage ----
run no-args 1
expect_err no-args "Usage: plumbline evidence JSONL_FILE ALERT_ID"
run unknown-option 1 "$fx" a-burn --bogus
expect_err unknown-option "'--bogus'"
run help 0 --help
grep -qF -- "--svg OUT.svg" "$tmp/out" || fail "help: no --svg"

if [ "$fails" -gt 0 ]; then
	echo "evidence.sh: $fails failures" >&2
	exit 1
fi
echo "evidence.sh: all checks passed"
