#!/bin/sh
# `plumbline config check|show` and `run --config` on real files: exit
# statuses, the exact FILE:LINE:COL output of check, show's values and their
# sources, the shipped example valid as shipped, and the refusals (missing
# --config file, a file others can write, a FIFO). No BPF: `run` is only
# asked to fail before it loads anything. The owner check needs root (a file
# of another user) and is skipped without it.
#
# Usage: config.sh PLUMBLINE_BIN SOURCE_DIR
set -u
bin=$1
src=$2
. "$(dirname "$0")/cli_lib.sh"

# run NAME EXPECTED_STATUS ARGS...: stdout in $tmp/out, stderr in $tmp/err
run() {
	_run_name=$1 _run_want=$2
	shift 2
	run_bounded 10 "$_run_name" "$_run_want" "$bin" "$@"
}

conf() { # write stdin to $tmp/c.conf, mode 0644
	cat >"$tmp/c.conf"
	chmod 0644 "$tmp/c.conf"
}

# ---- check: valid, then each kind of error at its place ----
# the shipped file sets what plumbline.service needs (json, no-live), and its
# rules (the shipped ones) are loaded and checked too
run shipped 0 config check "$src/sensor/dist/plumbline.conf"
[ "$(head -n 1 "$tmp/out")" = "2 settings OK" ] || fail "shipped example: $(cat "$tmp/out")"
n=$(find "$src/rules/default" -name '*.yaml' -exec grep -c '^- rule:' {} + | awk -F: '{ s += $NF } END { print s }')
grep -q "^$n rules OK from $src/rules/default" "$tmp/out" || fail "shipped example's rules ($n): $(cat "$tmp/out")"

mkdir -p "$tmp/a" "$tmp/b # x" "$tmp/local"
rule='- rule: R\n  desc: r\n  condition: proc.pid > 0\n  output: r\n  priority: INFO\n'
printf -- "$rule" >"$tmp/a/r.yaml"
printf -- "$rule" | sed 's/R$/S/' >"$tmp/b # x/s.yaml"
conf <<C
json = /var/log/plumbline/records.jsonl   # a comment
rules = $tmp/a
rules = "$tmp/b # x"
local-rules = $tmp/local
quiet = true
C
run valid 0 config check "$tmp/c.conf"
[ "$(cat "$tmp/out")" = "5 settings OK
2 rules OK from $tmp/a, $tmp/b # x, $tmp/local (0 warnings)" ] || fail "valid: $(cat "$tmp/out")"

# rules list --config: the rules that config runs, its switches applied; the
# local rules add to them, and change one with override:
printf -- '- rule: L\n  desc: l\n  condition: proc.pid > 0\n  output: l\n  priority: ERROR\n- rule: R\n  priority: DEBUG\n  override:\n    priority: replace\n' >"$tmp/local/l.yaml"
echo 'disable-rule = S' >>"$tmp/c.conf"
run list_config 0 rules list --config "$tmp/c.conf"
cat >"$tmp/want" <<W
on  Debug         exec,window,exit R
off Informational exec,window,exit S
on  Error         exec,window,exit L
W
diff -u "$tmp/want" "$tmp/out" >&2 || fail "rules list --config differs"
run list_paths 0 rules list --json "$tmp/a"
[ "$(python3 -c 'import json,sys; print(*[r["name"] for r in json.load(open(sys.argv[1]))])' "$tmp/out")" = R ] ||
	fail "rules list --json PATH: $(cat "$tmp/out")"
run list_both 1 rules list --config "$tmp/c.conf" "$tmp/a"
expect list_both err "give rule paths or --config, not both"
run list_bad 1 rules list --bogus
expect list_bad err "unknown option '--bogus'"

conf <<'C'
sample-hz = 4x9
smaple-hz = 3
  verbose = yes
bad line
rules = "open
C
run errors 1 config check "$tmp/c.conf"
cat >"$tmp/want" <<W
$tmp/c.conf:1:13: error: invalid value '4x9' for --sample-hz: expected an integer in [0, 10000]
$tmp/c.conf:2:1: error: unknown key 'smaple-hz' (did you mean 'sample-hz'?)
$tmp/c.conf:3:13: error: 'verbose' takes true or false
$tmp/c.conf:4:5: error: expected '=' after 'bad'
$tmp/c.conf:5:9: error: unterminated quoted value: no closing '"'
5 errors
W
diff -u "$tmp/want" "$tmp/out" >&2 || fail "check errors differ"

# ---- run refuses the same file, says so, and starts nothing ----
run run_broken 1 run --config "$tmp/c.conf"
expect run_broken err "$tmp/c.conf:2:1: unknown key 'smaple-hz'"
expect run_broken err "not starting with a config file that has errors"
run run_missing 1 run --config "$tmp/nonexistent.conf"
expect run_missing err "$tmp/nonexistent.conf: cannot open: No such file or directory"
run check_missing 1 config check "$tmp/nonexistent.conf"

# ---- who may write it ----
conf <<'C'
sample-hz = 49
C
chmod 0666 "$tmp/c.conf"
run writable 1 config check "$tmp/c.conf"
expect writable out "$tmp/c.conf: error: writable by group or others (mode 0666); fix: chmod go-w $tmp/c.conf"
run run_writable 1 run --config "$tmp/c.conf"
expect run_writable err "writable by group or others"
chmod 0644 "$tmp/c.conf"
if [ "$(id -u)" = 0 ]; then
	chown 65534 "$tmp/c.conf"
	run owner 1 config check "$tmp/c.conf"
	expect owner out "owned by uid 65534, not by root or uid 0 that runs plumbline"
	expect owner out "fix: chown root $tmp/c.conf"
	chown 0 "$tmp/c.conf"
fi
mkfifo "$tmp/fifo"
run fifo 1 config check "$tmp/fifo"
expect fifo out "$tmp/fifo: error: it is a FIFO, not a regular file"

# ---- show: every key, its value and its source ----
mkdir -p "$tmp/r1" "$tmp/r #2"
conf <<C
json = /var/log/x.jsonl
sample-hz = 19
rules = $tmp/r1
rules = "$tmp/r #2"
C
run show 0 config show "$tmp/c.conf" --sample-hz 7 -q
expect show out "# the configuration of \`plumbline run\`: file $tmp/c.conf"
grep -Eq '^json += /var/log/x.jsonl +# file:1$' "$tmp/out" || fail "show: json: $(cat "$tmp/out")"
grep -Eq '^sample-hz += 7 +# command line$' "$tmp/out" || fail "show: sample-hz"
grep -Eq "^rules += $tmp/r1 +# file:3\$" "$tmp/out" || fail "show: rules 1"
grep -Eq "^rules += \"$tmp/r #2\" +# file:4\$" "$tmp/out" || fail "show: rules 2"
grep -Eq '^quiet += true +# command line$' "$tmp/out" || fail "show: quiet"
grep -Eq '^max-procs += 32768 +# default$' "$tmp/out" || fail "show: max-procs"
grep -Eq '^# ocsf +\(not set\) +# default$' "$tmp/out" || fail "show: ocsf"
# what show prints reads back as a config file with the same values
grep -v '^#' "$tmp/out" | sed 's/ *# [a-z: 0-9]*$//' >"$tmp/back.conf"
chmod 0644 "$tmp/back.conf"
run show_reads_back 0 config check "$tmp/back.conf"
run show_no_config 0 config show --no-config
grep -Eq '^sample-hz += 49 +# default$' "$tmp/out" || fail "show --no-config: $(cat "$tmp/out")"
run show_broken_cli 1 config show --no-config --sample-hz x
expect show_broken_cli err "invalid value 'x' for --sample-hz"

# ---- the help lists the command and the options ----
run help 0 --help
expect help out "  config "
run run_help 0 run --help
expect run_help out "--config PATH"
expect run_help out "--no-config"

[ "$fails" = 0 ] || exit 1
echo "config: all checks passed"
