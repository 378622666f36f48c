#!/bin/sh
# `plumbline report` without a browser: the page of a replayed alert (the
# shipped rules on tests/rules/replay/auth.jsonl) read from the JSON output
# and from the OCSF output says the same (summary, process, baseline,
# host); the page of the evidence fixture's a-burn holds its flame graph;
# stdout and -o the same bytes; -o replaced atomically, never through a
# symlink; each refusal with its exit status and message. No root, no BPF.
#
# Usage: report.sh PLUMBLINE_BIN
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
fx=$here/evidence/alerts.jsonl
. "$(dirname "$0")/cli_lib.sh"

# run NAME EXPECTED_STATUS ARGS...: stdout in $tmp/out, stderr in $tmp/err
run() {
	_run_name=$1 _run_want=$2
	shift 2
	run_bounded 10 "$_run_name" "$_run_want" "$bin" report "$@"
}

expect_err() {
	grep -qF -- "$2" "$tmp/err" || fail "$1: expected '$2' on stderr, got: $(cat "$tmp/err")"
}

expect_out() {
	grep -qF -- "$2" "$tmp/out" || fail "$1: expected '$2' in the page"
}

# one section of a page, its lines from <section id="ID"> to </section>
section() {
	sed -n "/^<section id=\"$2\">/,/^<\/section>/p" "$1"
}

# ---- a replayed alert, from the JSON and the OCSF output ----
"$bin" replay "$src/tests/rules/replay/auth.jsonl" --json >"$tmp/auth.jsonl" 2>/dev/null || fail "replay --json"
"$bin" replay "$src/tests/rules/replay/auth.jsonl" --ocsf >"$tmp/auth.ocsf" 2>/dev/null || fail "replay --ocsf"
id=$(sed -n 's/^{"type":"alert","id":"\([0-9a-f-]*\)".*"rule":"Unexpected CPU in authentication".*/\1/p' \
	"$tmp/auth.jsonl" | head -1)
[ -n "$id" ] || fail "no 'Unexpected CPU in authentication' alert in the replay"
oid=$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("class_uid") == 2004 and r["finding_info"]["title"] == "Unexpected CPU in authentication":
        print(r["metadata"]["uid"]); break' "$tmp/auth.ocsf")
[ -n "$oid" ] || fail "no 'Unexpected CPU in authentication' finding in the OCSF replay"
run json 0 "$id" "$tmp/auth.jsonl"
cp "$tmp/out" "$tmp/json.html"
expect_out json '<p class="what">sshd (pid 4001, user root) on host vm used 612 ms of CPU in one lifetime, where its baseline&apos;s p99 is 19.5 ms (31.4x).</p>'
expect_out json '<line class="marker" data-value="612" '
expect_out json '<li>/usr/lib/systemd/systemd</li>'
expect_out json '<dt>Command line</dt><dd>sshd: alice [priv]</dd>'
expect_out json 'The alert carries no stack samples'
run ocsf 0 "$oid" --records "$tmp/auth.ocsf"
cp "$tmp/out" "$tmp/ocsf.html"
for s in summary process baseline host evidence; do
	section "$tmp/json.html" $s | grep -v '<dt>Tags</dt>\|<dt>Alert id</dt>' >"$tmp/j.$s"
	section "$tmp/ocsf.html" $s | grep -v '<dt>Tags</dt>\|<dt>Alert id</dt>' >"$tmp/o.$s"
	[ -s "$tmp/j.$s" ] || fail "json: no section $s"
	diff -u "$tmp/j.$s" "$tmp/o.$s" >&2 || fail "the OCSF page's #$s differs from the JSON page's (ids aside)"
done
# ---- the fixture's stacks, by a prefix; stdout and -o the same ----
run stacks 0 a-bu "$fx"
cp "$tmp/out" "$tmp/burn.html"
expect_out stacks '<section id="flamegraph">'
expect_out stacks '&lt;script&gt;alert(1)&lt;/script&gt;'
grep -q '<script' "$tmp/burn.html" && fail "stacks: a <script> element in the page"
run output 0 a-burn --records "$fx" -o "$tmp/page.html"
cmp -s "$tmp/page.html" "$tmp/burn.html" || fail "output: -o and stdout differ"
expect_err output "wrote $tmp/page.html: "
[ ! -s "$tmp/out" ] || fail "output: something on stdout with -o"
# ---- refusals ----
ln -s "$tmp/target" "$tmp/link.html"
run symlink 1 a-burn "$fx" -o "$tmp/link.html"
expect_err symlink "Cannot write '$tmp/link.html': it is a symbolic link (not followed)"
[ ! -e "$tmp/target" ] || fail "symlink: the link's target was written"
mkdir "$tmp/dir.html"
run outdir 1 a-burn "$fx" -o "$tmp/dir.html"
expect_err outdir "it is a directory, not a regular file"
run nofile 1 a-burn
expect_err nofile "Name the file to read the alert from"
run noid 1 no-such-id "$fx"
expect_err noid "No alert with id 'no-such-id' in $fx, nor one whose id starts with it"
run ambiguous 1 a- "$fx"
expect_err ambiguous "Alert id prefix 'a-' is ambiguous in $fx"
run empty 1 "" "$fx"
expect_err empty "An empty alert id matches nothing"
mkfifo "$tmp/fifo"
run fifo 1 a-burn "$tmp/fifo"
expect_err fifo "it is a FIFO, not a regular file"
run badopt 1 a-burn "$fx" --bogus
expect_err badopt "unknown option or missing argument '--bogus' (see plumbline report --help)"
run extra 1 a-burn "$fx" more
run help 0 --help
expect_out help "Usage: plumbline report ALERT_ID [--records FILE | FILE] [-o OUT.html]"
[ "$fails" = 0 ] && echo "report: all checks passed"
[ "$fails" = 0 ]
