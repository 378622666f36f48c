#!/usr/bin/env bash
# Per-program cost of plumbline's BPF programs, from the kernel's own BPF
# statistics (kernel.bpf_stats_enabled: run count and run time of every
# program). Runs W1-W3-like workloads under the sensor and prints ns per
# run for each program. The statistics themselves add a few tens of ns per
# run (two clock reads); compare programs with each other, not with zero.
# Usage (root): tests/bench/bpf_costs.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
sensor="$build/plumbline"
bench="$build/tests/bench"
state=$(mktemp -d)
prev=$(sysctl -n kernel.bpf_stats_enabled)
cleanup() {
	[ -n "${pid:-}" ] && kill -INT "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled="$prev"
	rm -rf "$state"
}
trap cleanup EXIT
sysctl -qw kernel.bpf_stats_enabled=1
"$sensor" run --no-live --no-syslog -q --state-dir "$state" --json /dev/null 2>"$state/log" &
pid=$!
for _ in $(seq 100); do grep -q attached "$state/log" 2>/dev/null && break; sleep 0.1; done
"$bench/bench_getppid" 1000000
"$bench/bench_failopen" 200000 /nonexistent/plumbline-bench
"$bench/bench_execs" 500 /bin/true
printf '%-18s %12s %10s\n' PROGRAM RUNS NS/RUN
bpftool -j prog show | python3 -c '
import json, sys
for p in json.load(sys.stdin):
    n = p.get("name", "")
    if n.startswith("pl_") and p.get("run_cnt", 0):
        print("%-18s %12d %10.1f" % (n, p["run_cnt"], p["run_time_ns"] / p["run_cnt"]))
'
