# shellcheck shell=sh
# cli_lib.sh - sourced by the CLI tests that run the real plumbline binary
# (config.sh, bundle.sh, evidence.sh, report.sh): a temp directory $tmp of
# the test's own (removed on exit), failures counted rather than fatal (fail;
# the test exits non-zero at its end when $fails is not 0), and a bounded run
# whose exit status is checked and whose output lands in $tmp/out, $tmp/err.

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# run_bounded SECONDS NAME EXPECTED_STATUS COMMAND...: stdout in $tmp/out, stderr in $tmp/err
run_bounded() {
	_rb_secs=$1 _rb_name=$2 _rb_want=$3
	shift 3
	timeout "$_rb_secs" "$@" >"$tmp/out" 2>"$tmp/err"
	_rb_got=$?
	[ "$_rb_got" = "$_rb_want" ] || fail "$_rb_name: exit status $_rb_got, expected $_rb_want; stdout: $(cat "$tmp/out") stderr: $(cat "$tmp/err")"
}

# expect NAME FILE TEXT: TEXT in $tmp/FILE
expect() {
	grep -qF -- "$3" "$tmp/$2" || fail "$1: expected '$3' in $2, got: $(cat "$tmp/$2")"
}
