#!/bin/sh
# SPDX-License-Identifier: MIT
# load.sh - the sensor under load: not a ctest gate, the figures
# depend on the machine. Run as root from the build directory's parent:
#
#   sudo tests/bench/load.sh [BUILD_DIR] [SECONDS] [HELD]
#
# Phase 1: bench_loadgen paces 1,000,000 getppid/s and 1,000 execs/s (of the
# static bench_noop) for SECONDS (default 60) under the sensor as shipped
# (rules, baselines in a temporary state dir, JSON to a temporary file).
# Reported: what the load achieved, the sensor's CPU as % of one core from
# /proc/PID/stat utime+stime over the run, peak RSS (VmHWM), losses by cause
# (the last stats record) and the loss alerts raised.
# Phase 2: HELD (default 10,000) sleeping children held at once:
# tracked_processes and RSS.
# pid_max is raised for phase 2 when fewer than 12,000 pids are free, and
# restored on exit. Targets: CPU <= 5 % of a core, RSS <= 64 MiB,
# every loss counted, a loss alert when losses happen.
set -eu
B=${1:-build}
SECS=${2:-60}
HELD=${3:-10000}
PL=$B/plumbline
GEN=$B/tests/bench/bench_loadgen
NOOP=$B/tests/bench/bench_noop
D=$(mktemp -d /tmp/pl-load-XXXXXX)
OLD_PID_MAX=
SPID=
HPID=
cleanup() {
	# the holder kills its children only at its own end: kill them by pid first
	if [ -n "$HPID" ] && kill -0 "$HPID" 2>/dev/null; then
		kill -STOP "$HPID"
		for p in $(ps -o pid= --ppid "$HPID"); do kill -9 "$p" 2>/dev/null || true; done
		kill -9 "$HPID" 2>/dev/null || true
	fi
	[ -n "$SPID" ] && kill -INT "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null || true
	[ -n "$OLD_PID_MAX" ] && echo "$OLD_PID_MAX" >/proc/sys/kernel/pid_max
	rm -rf "$D"
}
trap cleanup EXIT INT TERM
CLK=$(getconf CLK_TCK)

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
vm() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
last_stats() { grep '"type":"stats"' "$1" | tail -1; }

start_sensor() {
	"$PL" run --no-live --no-syslog --state-dir "$D/state" --json "$D/$1.jsonl" --stats-interval 5 \
		2>"$D/$1.log" &
	SPID=$!
	sleep 5 # attach and settle
}
stop_sensor() {
	kill -INT "$SPID"
	wait "$SPID" || true
	SPID=
}

echo "== phase 1: 1,000,000 syscalls/s + 1,000 execs/s for $SECS s"
start_sensor p1
c0=$(cpu_ticks "$SPID")
t0=$(date +%s.%N)
"$GEN" pace 1000000 1000 "$SECS" "$NOOP" | sed 's/^/load achieved: /'
t1=$(date +%s.%N)
c1=$(cpu_ticks "$SPID")
hwm=$(vm "$SPID" VmHWM)
stop_sensor
awk -v c="$((c1 - c0))" -v hz="$CLK" -v a="$t0" -v b="$t1" \
	'BEGIN { printf "sensor CPU: %.2f %% of one core over %.1f s (target <= 5 %%)\n", 100 * c / hz / (b - a), b - a }'
echo "sensor peak RSS (VmHWM): $hwm kB (target <= 65536 kB)"
last_stats "$D/p1.jsonl" | python3 -c '
import json, sys
st = json.loads(sys.stdin.read())
lost = {k: v for sec in ("kernel_drops", "userspace_drops") for k, v in st[sec].items() if v}
lost.update({f"{o}.dropped": st[o]["dropped"] for o in ("output", "syslog", "ocsf") if st.get(o) and st[o]["dropped"]})
print("records:", st["ringbuf_records"])
print("losses by cause:", lost or "none")'
echo "loss alerts: $(grep -c '"rule":"Sensor lost events"' "$D/p1.jsonl" || true)"
tail -1 "$D/p1.log"

echo "== phase 2: $HELD concurrently tracked processes"
pid_max=$(cat /proc/sys/kernel/pid_max)
in_use=$(ls /proc | grep -c '^[0-9]')
if [ $((pid_max - in_use)) -lt 12000 ]; then
	OLD_PID_MAX=$pid_max
	echo 65536 >/proc/sys/kernel/pid_max
	echo "pid_max raised from $pid_max to 65536 (restored on exit)"
fi
start_sensor p2
rss0=$(vm "$SPID" VmRSS)
"$GEN" hold "$HELD" 15 >"$D/hold.json" &
HPID=$!
# the holder prints once every child is started, then holds them 15 s
while [ ! -s "$D/hold.json" ] && kill -0 "$HPID" 2>/dev/null; do sleep 1; done
sleep 10
rss=$(vm "$SPID" VmRSS)
hwm=$(vm "$SPID" VmHWM)
wait "$HPID" || true
HPID=
sleep 2
stop_sensor
echo "holder: $(cat "$D/hold.json")"
echo "sensor RSS: $rss0 kB before, $rss kB with $HELD held, peak $hwm kB (target <= 65536 kB)"
grep '"type":"stats"' "$D/p2.jsonl" | python3 -c '
import json, sys
st = [json.loads(l) for l in sys.stdin]
print("tracked_processes at peak:", max(s["tracked_processes"] for s in st))
lost = {k: v for sec in ("kernel_drops", "userspace_drops") for k, v in st[-1][sec].items() if v}
print("losses by cause:", lost or "none")'
tail -1 "$D/p2.log"
