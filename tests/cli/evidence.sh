#!/bin/sh
# `plumbline evidence` on the fixture tests/cli/evidence/alerts.jsonl (an
# alert with stacks and hostile names, one whose frames merge by function
# with frames new to the baseline, alerts without stacks, a duplicate id, a
# broken one) and interp.jsonl (python and dash frames): the text summary
# and the folded stacks against exact expected files, the SVG's merged
# boxes, labels and grey boxes exactly, the SVG written atomically and never
# through a symlink, each refusal with its exit status and message, an id
# prefix (unique, ambiguous with its candidates listed, matching none), and
# an OCSF file (an alert's finding found by its id and by a prefix, a
# summary's finding never taken for an alert, a native line beside them).
# No root, no BPF.
#
# Usage: evidence.sh PLUMBLINE_BIN
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
fx=$here/evidence/alerts.jsonl
. "$(dirname "$0")/cli_lib.sh"

# run NAME EXPECTED_STATUS ARGS...: stdout in $tmp/out, stderr in $tmp/err
run() {
	_run_name=$1 _run_want=$2
	shift 2
	run_bounded 10 "$_run_name" "$_run_want" "$bin" evidence "$@"
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
run merge-summary 0 "$fx" a-merge
diff -u "$here/evidence/a-merge.txt" "$tmp/out" >&2 || fail "merge-summary differs from evidence/a-merge.txt"
run merge-folded 0 "$fx" a-merge --folded
diff -u "$here/evidence/a-merge.folded" "$tmp/out" >&2 || fail "merge-folded differs from evidence/a-merge.folded"
run mark-new 0 "$fx" a-merge --mark-new --folded
diff -u "$here/evidence/a-merge.marked" "$tmp/out" >&2 || fail "mark-new differs from evidence/a-merge.marked"
run mark-new-alone 1 "$fx" a-merge --mark-new
expect_err mark-new-alone "--mark-new marks folded stacks: use it with --folded"

# ---- the SVG ----
run svg 0 "$fx" a-burn --svg "$tmp/out.svg"
head -c 100 "$tmp/out.svg" | grep -q '<svg xmlns="http://www.w3.org/2000/svg"' || fail "svg: not an SVG document"
[ "$(stat -c %a "$tmp/out.svg")" = 644 ] || fail "svg: mode $(stat -c %a "$tmp/out.svg"), expected 644"
grep -q '<title>burn_cpu (libburn.so.1+0x24)' "$tmp/out.svg" || fail "svg: no burn_cpu frame"
! grep -q '<script' "$tmp/out.svg" || fail "svg: a name became an element"
# the grey boxes say what they hold; the subtitle why samples have no stack
tr '\n' '|' <"$tmp/out.svg" >"$tmp/flat"
for want in \
	"<title>[stack not kept]|2 the kernel&apos;s sample ring was full, 1 a new stack past the stack tables&apos; bounds|3 samples, 2.44%</title>" \
	"123 samples at 49 Hz, 3 with no stack (2 sample ring full, 1 stack tables full)</text>" \
	"<title>burn_cpu (libburn.so.1+0x24)|/usr/lib/x86_64-linux-gnu/libburn.so.1|100 samples, 81.30%|new: the baseline never saw this function on CPU</title>" \
	"<title>[unknown] (libburn.so.1+0x1a2b)|/usr/lib/x86_64-linux-gnu/libburn.so.1|5 samples, 4.07%</title>"; do
	grep -qF -- "$want" "$tmp/flat" || fail "svg: no '$want'"
done
# merged by function: one box per (object, function) under a parent whatever
# the offsets, one per object for unnamed code; labels whole where they fit
# (by DejaVu Sans's advances), cut with .. where they do not
run svg-merge 0 "$fx" a-merge --svg "$tmp/merge.svg"
tr '\n' '|' <"$tmp/merge.svg" >"$tmp/flat"
for want in \
	'<title>__strchr_avx2 (libc.so.6)|/usr/lib/x86_64-linux-gnu/libc.so.6|50 samples, 55.56%</title><rect x="442.67" y="76" width="655.56" height="15" rx="2" fill="rgb(253,202,8)"/><text x="445.67" y="87.5">__strchr_avx2</text>' \
	'<title>evalcmd (dash)|/usr/bin/dash|56 samples, 62.22%</title>' \
	'<title>[unknown] (dash)|/usr/bin/dash|18 samples, 20.00%</title><rect x="154.22" y="92" width="236.00" height="15" rx="2" fill="rgb(252,181,5)"/><text x="157.22" y="103.5">[unknown] (dash)</text>' \
	'<title>[other stacks]|stacks kept, past the top 8 the alert carries|2 samples, 2.22%</title>' \
	'<text x="39.22" y="119.5">[stack not k..</text>' \
	'<text x="1101.22" y="87.5">hook_spin</text>' \
	'<text x="1101.22" y="71.5">asm_sysv..</text>' \
	'<text x="131.00" y="103.5">W..</text>' \
	'<text x="393.22" y="103.5">__me..</text>' \
	'purple: new, a function the baseline never saw on CPU'; do
	grep -qF -- "$want" "$tmp/flat" || fail "svg-merge: no '$want'"
done
[ "$(grep -c '<g class="n">' "$tmp/merge.svg")" = 12 ] || fail "svg-merge: $(grep -c '<g class="n">' "$tmp/merge.svg") boxes, expected 12"
grep -q 'iiiiiiiiiiiiiiiiiiii (dash+0x3)|/usr/bin/dash|1 sample, 1.11%</title><rect [^>]*/></g>' "$tmp/flat" ||
	fail "svg-merge: the 13 px box of iii.. has a label (not even i.. fits)"
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
expect_err unknown-id "No alert with id 'nope' in $fx, nor one whose id starts with it (7 alerts read)"
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

# ---- a prefix of the id, as git takes a commit's ----
run prefix-unique 0 "$fx" a-bu --folded
diff -q "$here/evidence/a-burn.folded" "$tmp/out" >/dev/null || fail "prefix-unique: folded output differs"
run prefix-summary 0 "$fx" a-m
diff -u "$here/evidence/a-merge.txt" "$tmp/out" >&2 || fail "prefix-summary: the summary of a-merge differs"
# a-dup twice is one alert (its first shown, the repeat said); a- names six
run prefix-dup 0 "$fx" a-du --folded
expect_err prefix-dup "2 alerts in $fx have the id 'a-dup': showing the first, line 5"
run prefix-ambiguous 1 "$fx" a-
expect_err prefix-ambiguous "Alert id prefix 'a-' is ambiguous in $fx: 6 alerts have ids that start with it; give more of the id:"
for id in a-burn a-nostacks a-empty a-dup a-bad a-merge; do
	grep -qxF "plumbline: error:   $id" "$tmp/err" || fail "prefix-ambiguous: candidate $id not listed: $(cat "$tmp/err")"
done
[ ! -s "$tmp/out" ] || fail "prefix-ambiguous: printed $(cat "$tmp/out")"
run prefix-none 1 "$fx" b-
expect_err prefix-none "No alert with id 'b-' in $fx, nor one whose id starts with it (7 alerts read)"
run empty-id 1 "$fx" ""
expect_err empty-id "An empty alert id matches nothing"

# ---- the OCSF output ----
# a-burn as the OCSF output carries it (outputs/alert_ocsf.c: metadata.uid,
# finding_info.title, message, the native fields in unmapped), a summary's
# Update finding whose id shares the prefix (not an alert: never a
# candidate), and a native alert, in one file: each line told apart
python3 - "$fx" "$tmp/ocsf.jsonl" <<'PY' || fail "ocsf: cannot write the OCSF file"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
burn = next(r for r in recs if r.get("id") == "a-burn")
merge = next(r for r in recs if r.get("id") == "a-merge")
def finding(a, uid, activity):
    return {"activity_id": activity, "category_uid": 2, "class_uid": 2004, "type_uid": 200400 + activity,
            "severity_id": 5, "time": a["time_ns"] // 1000000, "message": a.get("output", ""),
            "metadata": {"product": {"name": "plumbline"}, "version": "1.6.0", "uid": uid, "log_name": "alerts"},
            "device": {"hostname": "web1", "uid": "3d1219c7c4c5404aaa1f6d2a48adfda4", "type_id": 1},
            "finding_info": {"uid": uid if activity == 1 else "4f3a000000000001-0000000000000001",
                             "title": a["rule"]},
            "unmapped": {k: a[k] for k in ("time_ns", "priority", "severity", "when", "pid", "exe", "binary_id",
                                           "evidence") if k in a}}
with open(sys.argv[2], "w") as f:
    f.write(json.dumps(finding(burn, "4f3a000000000001-0000000000000001", 1)) + "\n")
    f.write(json.dumps(finding(burn, "4f3a000000000001-0000000000000002", 2)) + "\n")
    f.write(json.dumps(merge) + "\n")
PY
run ocsf-exact 0 "$tmp/ocsf.jsonl" 4f3a000000000001-0000000000000001
sed 's/^Alert a-burn:/Alert 4f3a000000000001-0000000000000001:/' "$here/evidence/a-burn.txt" >"$tmp/want.txt"
diff -u "$tmp/want.txt" "$tmp/out" >&2 || fail "ocsf-exact: the summary differs from evidence/a-burn.txt"
run ocsf-prefix 0 "$tmp/ocsf.jsonl" 4f3a --folded
diff -q "$here/evidence/a-burn.folded" "$tmp/out" >/dev/null || fail "ocsf-prefix: folded output differs"
[ ! -s "$tmp/err" ] || fail "ocsf-prefix: the summary's finding counted: $(cat "$tmp/err")"
run ocsf-native 0 "$tmp/ocsf.jsonl" a-merge --folded
diff -q "$here/evidence/a-merge.folded" "$tmp/out" >/dev/null || fail "ocsf-native: folded output differs"
run ocsf-update-is-no-alert 1 "$tmp/ocsf.jsonl" 4f3a000000000001-0000000000000002
expect_err ocsf-update-is-no-alert "No alert with id '4f3a000000000001-0000000000000002' in $tmp/ocsf.jsonl, nor one whose id starts with it (2 alerts read)"

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
grep -qF -- "--mark-new" "$tmp/out" || fail "help: no --mark-new"

if [ "$fails" -gt 0 ]; then
	echo "evidence.sh: $fails failures" >&2
	exit 1
fi
echo "evidence.sh: all checks passed"
