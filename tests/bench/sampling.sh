#!/usr/bin/env bash
# The cost of on-CPU sampling, per sample and at the default rate, for one
# build or several side by side (before and after a change).
#
#   tests/bench/sampling.sh [--rounds N] [--seconds S] [--rates R,R...] BUILD_DIR...
#
# Run as root. BUILD_DIR defaults to ./build. The workload is two spinners,
# one per CPU, each for S seconds of CPU (default 6): pl_chain (a C program
# without frame pointers, seven functions deep) and a Python loop. For each
# round, each build (the order rotates) and each rate (default 0,49,997
# Hz per CPU), a sensor of that build runs with --sample-hz RATE while the
# workload runs, and the floor runs alone: bench_floor --sample-hz RATE (an
# empty BPF program on the same cpu-clock events). Measured:
#
#   - the sensor's CPU (sensor_cpu_ns of its stats records, from the one before the
#     workload to the one after) minus the same build's at rate 0 in the same round,
#     divided by the samples taken (oncpu.samples over the same records): the
#     user-space cost of one sample (the record drained, the stack walked and named,
#     the stack merged);
#   - the sampling program's own run time per run (kernel.bpf_stats_enabled,
#     run_time_ns / run_cnt of pl_oncpu_sample, the fds of the sensor), beside the
#     floor's (floor_sample): the kernel's cost of a sample beyond an empty program;
#   - the sensor's CPU at each rate as a share of one CPU: what always-on sampling
#     costs at the default 49 Hz;
#   - how deep and how right the stacks are: of the samples, the share whose user
#     stack the walk finished (oncpu.stacks_complete / samples taken with a user
#     stack), and the user frames per sample.
#
# Medians over the rounds. The statistics add a few tens of ns per run (two
# clock reads): compare with the floor, not with zero. Numbers depend on the
# machine; the per-event time of the machine alone is printed first
# (bench_getppid: one syscall back to back).
set -euo pipefail

usage() {
	echo "usage: $0 [--rounds N] [--seconds S] [--rates R,R...] [BUILD_DIR...]   (run as root)" >&2
	exit 2
}

ROUNDS=3
SECS=6
RATES=0,49,997
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) ROUNDS=${2:?}; shift 2 ;;
	--seconds) SECS=${2:?}; shift 2 ;;
	--rates) RATES=${2:?}; shift 2 ;;
	-h|--help) usage ;;
	--*) usage ;;
	*) break ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "$0: needs root (BPF)" >&2; exit 2; }
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ && "$SECS" =~ ^[1-9][0-9]*$ ]] || usage
BUILDS=("$@")
[ ${#BUILDS[@]} -gt 0 ] || BUILDS=(build)
FIRST=${BUILDS[0]}
CHAIN=$FIRST/tests/bpf/pl_chain
FLOOR=$FIRST/tests/bench/bench_floor
for b in "${BUILDS[@]}"; do
	[ -x "$b/plumbline" ] || { echo "$0: no $b/plumbline" >&2; exit 2; }
done
for x in "$CHAIN" "$FLOOR" "$FIRST/tests/bench/bench_getppid"; do
	[ -x "$x" ] || { echo "$0: no $x (make -C $FIRST)" >&2; exit 2; }
done
IFS=, read -r -a RATE_LIST <<<"$RATES"
TMP=$(mktemp -d /tmp/plumbline-sampling.XXXXXX)
prev=$(sysctl -n kernel.bpf_stats_enabled)
cleanup() {
	sysctl -qw kernel.bpf_stats_enabled="$prev"
	rm -rf "$TMP"
}
trap cleanup EXIT
sysctl -qw kernel.bpf_stats_enabled=1

# prog_stats PID NAME: "run_cnt run_time_ns" of PID's BPF program NAME (the
# kernel's 15-character name), read with bpftool from the programs its fds hold
prog_stats() {
	local ids
	ids=$(sed -n 's/^prog_id:[[:space:]]*//p' /proc/"$1"/fdinfo/* 2>/dev/null | sort -u | tr '\n' ' ')
	python3 - "$2" $ids <<'EOF'
import json, subprocess, sys
cnt = ns = 0
for i in sys.argv[2:]:
    r = subprocess.run(["bpftool", "-j", "prog", "show", "id", i], capture_output=True, text=True)
    try:
        p = json.loads(r.stdout)
    except ValueError:
        continue
    if p.get("name") == sys.argv[1]:
        cnt += p.get("run_cnt", 0)
        ns += p.get("run_time_ns", 0)
print(cnt, ns)
EOF
}

workload() {
	"$CHAIN" $((SECS * 1000)) >/dev/null &
	local a=$!
	python3 -c "
import time
def spin(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
end = time.thread_time() + $SECS
while time.thread_time() < end:
    spin(20000)
" &
	local b=$!
	wait "$a" "$b"
}

# one_run BUILD RATE -> "cpu_ns samples complete with_user user_frames bpf_cnt bpf_ns"
one_run() {
	local b=$1 rate=$2 dir=$TMP/run pid
	rm -rf "$dir"
	mkdir -p "$dir"
	"$b/plumbline" run --no-live --no-syslog --no-rules --json "$dir/o.jsonl" --state-dir "$dir/state" \
		--sample-hz "$rate" --stats-interval 1 -q &
	pid=$!
	# ready: its first stats record
	for _ in $(seq 100); do
		grep -q '"type":"stats"' "$dir/o.jsonl" 2>/dev/null && break
		sleep 0.1
	done
	sleep 1.1
	local before after s0 s1
	before=$(grep -c '"type":"stats"' "$dir/o.jsonl")
	s0=$(prog_stats "$pid" pl_oncpu_sample)
	workload
	s1=$(prog_stats "$pid" pl_oncpu_sample)
	sleep 1.2
	after=$(grep -c '"type":"stats"' "$dir/o.jsonl")
	kill -INT "$pid"
	wait "$pid" || true
	python3 - "$dir/o.jsonl" "$before" "$after" "$s0" "$s1" <<'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if '"type":"stats"' in l]
a, b = recs[int(sys.argv[2]) - 1], recs[int(sys.argv[3]) - 1]
c0, n0 = map(int, sys.argv[4].split()); c1, n1 = map(int, sys.argv[5].split())
oa, ob = a.get("oncpu") or {}, b.get("oncpu") or {}
d = lambda k: (ob.get(k) or 0) - (oa.get(k) or 0)
cut = sum(d(k) for k in ob if k.startswith("cut_"))
print(b["sensor_cpu_ns"] - a["sensor_cpu_ns"], d("samples"), d("stacks_complete"), d("stacks_complete") + cut,
      d("user_frames"), c1 - c0, n1 - n0, (b["time_ns"] - a["time_ns"]))
EOF
}

# floor_run RATE -> "bpf_cnt bpf_ns"
floor_run() {
	local rate=$1 pid s0 s1
	[ "$rate" -gt 0 ] || { echo "0 0"; return; }
	"$FLOOR" --sample-hz "$rate" >"$TMP/floor.out" &
	pid=$!
	for _ in $(seq 100); do
		grep -q ready "$TMP/floor.out" 2>/dev/null && break
		kill -0 "$pid" 2>/dev/null || { echo "$0: bench_floor failed" >&2; exit 1; }
		sleep 0.1
	done
	s0=$(prog_stats "$pid" floor_sample)
	workload
	s1=$(prog_stats "$pid" floor_sample)
	kill -INT "$pid"
	wait "$pid" || true
	echo "$(( ${s1% *} - ${s0% *} )) $(( ${s1#* } - ${s0#* } ))"
}

median() { sort -g | awk '{v[NR]=$1} END {if (!NR) print "nan"; else print (NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

t0=$(date +%s%N)
"$FIRST/tests/bench/bench_getppid" 1000000
gp=$((($(date +%s%N) - t0) / 1000000))
echo "On-CPU sampling: $(nproc) CPUs, kernel $(uname -r), $ROUNDS rounds of ${SECS} s CPU x 2 spinners; builds: ${BUILDS[*]}"
echo "machine alone: bench_getppid 1000000: ${gp} ns per getppid (wall, with start-up)"
: >"$TMP/results"
for r in $(seq "$ROUNDS"); do
	n=${#BUILDS[@]}
	for k in $(seq 0 $((n - 1))); do
		b=${BUILDS[$(((k + r) % n))]}
		for rate in "${RATE_LIST[@]}"; do
			echo "round $r: $b at $rate Hz" >&2
			echo "$r $b $rate $(one_run "$b" "$rate")" >>"$TMP/results"
		done
	done
	for rate in "${RATE_LIST[@]}"; do
		echo "round $r: floor at $rate Hz" >&2
		echo "$r floor $rate $(floor_run "$rate")" >>"$TMP/results"
	done
done

python3 - "$TMP/results" "$RATES" "${BUILDS[@]}" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
rates, builds = sys.argv[2].split(","), sys.argv[3:]
med = lambda xs: statistics.median(xs) if xs else float("nan")
print("\n%-26s %5s %10s %12s %10s %11s %12s %9s %7s" % ("build", "Hz", "samples/s", "sensor %CPU", "ns/sample",
      "BPF ns/run", "floor ns/run", "complete", "frames"))
for b in builds:
    runs = {(r[0], r[2]): list(map(float, r[3:])) for r in rows if r[1] == b}
    for rate in rates:
        mine = [(k[0], v) for k, v in runs.items() if k[1] == rate]
        # v: cpu samples complete with_user frames bpf_cnt bpf_ns dt
        sps = med([v[1] / (v[7] / 1e9) for _, v in mine])
        pct = med([100 * v[0] / v[7] for _, v in mine])
        ns = med([(v[0] / v[7] - runs[(rnd, "0")][0] / runs[(rnd, "0")][7]) * v[7] / v[1]
                  for rnd, v in mine if v[1] > 0 and (rnd, "0") in runs])
        bpf = med([v[6] / v[5] for _, v in mine if v[5] > 0])
        fl = med([float(r[4]) / float(r[3]) for r in rows if r[1] == "floor" and r[2] == rate and float(r[3]) > 0])
        comp = med([100 * v[2] / v[3] for _, v in mine if v[3] > 0])
        fr = med([v[4] / v[1] for _, v in mine if v[1] > 0])
        print("%-26s %5s %10.0f %11.3f%% %10.0f %11.0f %12.0f %8.1f%% %7.1f" % (b[-26:], rate, sps, pct, ns, bpf, fl,
              comp, fr))
EOF
echo
echo "ns/sample: the sensor's CPU per second beyond its rate-0 run of the same round, per sample taken (user space)."
echo "BPF ns/run: pl_oncpu_sample's run time per sample; floor: an empty program on the same cpu-clock events."
echo "complete: user stacks walked to their outermost frame, of those with a user stack; frames: user frames per sample."
