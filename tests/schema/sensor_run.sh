#!/bin/sh
# The real sensor, twice, with every record kind on (--process-records
# --window-records), a JSON and an OCSF output, and a rule that fires at
# exec and exit on a marker process run 5 times: every line of both
# files validates (native: strict against docs/schema/; OCSF: against the
# class derived from OCSF 1.6.0), each run wrote each record type, the
# dedupe windows reported the 4 repeats of each alert at shutdown, the
# OCSF file holds the same findings (created, then updated), and no
# id repeats within or across the two runs.
# Needs root and BPF: skips (77) without, unless PLUMBLINE_REQUIRE_BPF=1.
# Usage: sensor_run.sh PLUMBLINE PYTHON3 OCSF_SCHEMA
set -eu
bin=$1 py=$2 ocsf_schema=$3
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" != 0 ] || [ ! -r /sys/kernel/btf/vmlinux ]; then
	echo "sensor_run: needs root and kernel BTF"
	[ "${PLUMBLINE_REQUIRE_BPF:-}" = 1 ] && exit 1
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
marker=plumbline-schema-marker-$$
cat >"$tmp/rules.yaml" <<YAML
- rule: Schema marker exec
  desc: the schema test's marker process started
  condition: proc.cmdline contains "$marker"
  output: marker %proc.pid started, %proc.cmdline
  priority: NOTICE
  when: exec
  evidence: [ancestry]
  throttle: 600
- rule: Schema marker exit
  desc: the schema test's marker process ended
  condition: proc.cmdline contains "$marker"
  output: marker %proc.pid used %proc.cpu_ms ms and %proc.syscall[openat] openat
  priority: WARNING
  when: exit
  evidence: [fail_paths, syscalls, baseline, ancestry]
  throttle: 600
YAML

run() { # $1: run number
	"$bin" run --json "$tmp/native$1.jsonl" --ocsf "$tmp/ocsf$1.jsonl" --process-records --window-records \
		--no-live --no-syslog --state-dir "$tmp/state" --rules "$tmp/rules.yaml" --stats-interval 1 \
		--duration 4 2>"$tmp/log$1" &
	pid=$!
	# the markers only once every program is attached (--duration counts
	# from then): loading and verifying them takes seconds on a busy machine
	n=0
	until grep -q 'attached: watching every process' "$tmp/log$1"; do
		kill -0 "$pid" 2>/dev/null || { echo "run $1: the sensor exited before attaching:"; cat "$tmp/log$1"; exit 1; }
		n=$((n + 1))
		[ "$n" -le 600 ] || { echo "run $1: not attached after 60 s:"; cat "$tmp/log$1"; exit 1; }
		sleep 0.1
	done
	for i in 1 2 3 4 5; do
		# a shell whose cmdline carries the marker, failing an open and spinning a little
		sh -c ": $marker; cat /nonexistent/$marker 2>/dev/null; i=0; while [ \$i -lt 20000 ]; do i=\$((i+1)); done" || true
	done
	wait "$pid" || { echo "run $1: the sensor failed:"; cat "$tmp/log$1"; exit 1; }
}
run 1
run 2
for r in 1 2; do
	"$py" "$here/validate.py" --strict --min 10 "$tmp/native$r.jsonl"
	"$py" "$here/validate.py" --against "$ocsf_schema" --min 4 "$tmp/ocsf$r.jsonl"
	for t in exec process window stats alert alert_summary; do
		grep -q "^{\"type\":\"$t\"," "$tmp/native$r.jsonl" || { echo "run $r wrote no $t record"; exit 1; }
	done
	# each rule, for each binary whose cmdline carries the marker (the sh and
	# its cat): one alert, its 4 repeats summarized at shutdown. Only the
	# marker rules' alerts count: the sensor's own ("Sensor lost events")
	# tell of whatever else the shared machine runs.
	a=$(grep '^{"type":"alert",' "$tmp/native$r.jsonl" | grep -c '"rule":"Schema marker ')
	s=$(grep '^{"type":"alert_summary",' "$tmp/native$r.jsonl" | grep '"rule":"Schema marker ' |
		grep -c '"count":4,.*"reason":"shutdown"')
	[ "$a" = 4 ] && [ "$s" = 4 ] || { echo "run $r: $a alerts and $s summaries of 4, expected 4 and 4"; exit 1; }
	# the OCSF file: the same findings, created then updated
	[ "$(grep '"activity_id":1,' "$tmp/ocsf$r.jsonl" | grep -c 'Schema marker ')" = 4 ] &&
		[ "$(grep '"activity_id":2,' "$tmp/ocsf$r.jsonl" | grep -c 'Schema marker ')" = 4 ] ||
		{ echo "run $r: OCSF findings"; exit 1; }
done
dups=$(cat "$tmp"/native?.jsonl | grep -oE '"id":"[0-9a-f]{16}-[0-9a-f]{16}"' | sort | uniq -d)
[ -z "$dups" ] || { echo "ids written twice: $dups"; exit 1; }
echo "sensor_run: ok"
