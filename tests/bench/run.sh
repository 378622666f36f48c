#!/usr/bin/env bash
# Overhead benchmark: what does watching every process cost the processes?
#
#   tests/bench/run.sh [BUILD_DIR] [--pairs N] [--quick] [--compare OTHER_BUILD_DIR]
#                      [--workloads W1,W2,...] [--floor-enter-only]
#
# Run as root, on an otherwise idle machine, after building the tree
# (cmake -S . -B build && cmake --build build). BUILD_DIR defaults to ./build.
# Builds nothing itself except W4's scratch copy of this project.
#
# Workloads (events: what "per event" counts):
#   W1  bench_getppid 1000000                 cheapest syscall, back to back      per syscall
#   W5  bench_threads2 1000000                two threads pinned to two CPUs,     per syscall
#                                             each 1000000 getppid at once        of a thread
#   W2  bench_failopen 200000 /nonexistent/.. failing openat storm                per openat
#   W3  bench_execs 2000 /bin/true            fork + exec + exit + wait           per process
#   W6  bench_spawn 4000 2 bench_noop         a flood of short-lived static       per process
#                                             processes, posix_spawn from 2 workers
#   W7  bench_openok 200000 TMP/w7-file      successful open + close of an       per open
#                                             ordinary file in /tmp
#   W8  bench_openok 200000 /etc/shadow       the same on a watched file           per open
#   W9  bench_connect 50000                   TCP connect to a closed loopback     per connect
#                                             port, refused (a scan's failures)
#   W10 bench_spawn 2000 2 /bin/true          an exec flood of a dynamically      per process
#                                             linked program (its libraries mapped)
#   W4  make -j2 of this project (PL_TESTS=OFF), after make clean
# Instrumentations:
#   floor        bench_floor: an empty program on every hook the sensor's
#                per-event paths use (tp_btf/sys_enter, the open family's and
#                mmap's syscall tracepoints, sock:inet_sock_set_state);
#                with --floor-enter-only on tp_btf/sys_enter alone (the
#                floor before issue 18)
#   plumbline    BUILD_DIR/plumbline run --no-live --json FILE
#   plumbline-B  with --compare: OTHER_BUILD_DIR/plumbline, so that two
#                builds are compared on the same machine in the same minutes
#   syscount     libbpf-tools' syscount -P (scripts/install-deps.sh --bench)
#
# For each workload, N sets (--pairs N, default 5, at least 5): one run of
# the workload alone and one with each instrumentation attached, in an order
# that rotates from set to set, so a drift in one direction does not always
# favour the same side. Every timed run is also measured in CPU time: the
# user + system time of the workload's own processes (bench_cpu, wait4's
# rusage), which on a loaded machine does not count what other processes,
# the sensor's user space among them, took of its CPUs; the "beyond the
# floor" table gives both. Each set gives, per instrumentation, a ratio
# instrumented/alone and the time added per event, (with - alone) / events,
# and per sensor the time it adds beyond the floor, (with sensor - with
# floor) / events, all from runs seconds apart; the tables show medians. Wall time only, from $EPOCHREALTIME; start-up
# and shutdown of the instrumentation are outside the timed region. The
# results are informational: the script exits 0 unless something broke.
# See docs/performance.md.
set -euo pipefail

usage() {
	echo "usage: $0 [BUILD_DIR] [--pairs N] [--quick] [--compare OTHER_BUILD_DIR] [--workloads W1,W5,...] [--floor-enter-only]" >&2
	echo "       (N >= 5 sets, --sets N the same; workloads among W1 W5 W2 W7 W8 W9 W3 W6 W10 W4; run as root)" >&2
	exit 2
}

BUILD=""
OTHER=""
PAIRS=5
QUICK=0
ONLY=""
FLOOR_ARGS="" # --floor-enter-only: the floor before issue 18, sys_enter alone
while [ $# -gt 0 ]; do
	case "$1" in
	--pairs | --sets | --compare | --workloads)
		[ $# -ge 2 ] || usage
		set -- "$1=$2" "${@:3}"
		continue
		;;
	--pairs=* | --sets=*)
		v=${1#--*=}
		[[ "$v" =~ ^[0-9]+$ ]] || usage
		PAIRS=$((10#$v))
		;;
	--compare=*)
		OTHER=${1#--compare=}
		[ -n "$OTHER" ] || usage
		;;
	--workloads=*)
		ONLY=${1#--workloads=}
		[[ "$ONLY" =~ ^W([1-9]|10)(,W([1-9]|10))*$ ]] || usage
		;;
	--quick) QUICK=1 ;;
	--floor-enter-only) FLOOR_ARGS=--enter-only ;;
	-h | --help) usage ;;
	-*) usage ;;
	*)
		[ -z "$BUILD" ] || usage
		BUILD=$1
		;;
	esac
	shift
done
BUILD=${BUILD:-./build}
if [ "$PAIRS" -lt 5 ]; then
	echo "run.sh: --pairs must be at least 5 (a median of fewer sets is noise)" >&2
	exit 2
fi

die() {
	echo "run.sh: error: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "must run as root (the sensor and the BPF programs need it)"
[ -d "$BUILD" ] || die "build directory '$BUILD' not found"
BUILD=$(cd "$BUILD" && pwd)
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BENCH="$BUILD/tests/bench"
for f in "$BUILD/plumbline" "$BENCH/bench_floor" "$BENCH/bench_getppid" "$BENCH/bench_failopen" \
	"$BENCH/bench_execs" "$BENCH/bench_threads2" "$BENCH/bench_spawn" "$BENCH/bench_noop" \
	"$BENCH/bench_openok" "$BENCH/bench_connect" "$BENCH/bench_cpu"; do
	[ -x "$f" ] || die "$f not built: cmake -S '$SRC' -B '$BUILD' && cmake --build '$BUILD' (with PL_TESTS=ON)"
done
# The sensors measured: plumbline, and with --compare plumbline-B (only its
# sensor binary is used; the workloads and the floor come from BUILD_DIR).
SENSORS=(plumbline)
declare -A SENSOR_BIN=([plumbline]="$BUILD/plumbline") SENSOR_DIR=([plumbline]="$BUILD")
if [ -n "$OTHER" ]; then
	[ -d "$OTHER" ] || die "--compare: build directory '$OTHER' not found"
	OTHER=$(cd "$OTHER" && pwd)
	[ -x "$OTHER/plumbline" ] || die "--compare: $OTHER/plumbline not built"
	[ "$OTHER" != "$BUILD" ] || die "--compare: '$OTHER' is BUILD_DIR itself"
	SENSORS+=(plumbline-B)
	SENSOR_BIN[plumbline-B]="$OTHER/plumbline"
	SENSOR_DIR[plumbline-B]="$OTHER"
fi
for t in cmake make; do
	command -v "$t" >/dev/null || die "$t not found (scripts/install-deps.sh)"
done
FAILPATH=/nonexistent/plumbline-bench
[ ! -e "$FAILPATH" ] || die "$FAILPATH exists; W2 needs a path that does not"

if [ "$QUICK" = 1 ]; then
	N1=200000 N2=50000 N3=200 N5=200000 N6=1000 N7=50000 N8=50000 N9=10000 N10=400
	W4_TARGET=pl_outputs # a few files instead of the whole tree
else
	N1=1000000 N2=200000 N3=2000 N5=1000000 N6=4000 N7=200000 N8=200000 N9=50000 N10=2000
	W4_TARGET=""
fi
W6_WORKERS=2
W8_PATH=/etc/shadow # watched (credentials); /etc/passwd is not
[ -r "$W8_PATH" ] || die "W8 needs $W8_PATH readable"

# ---- clean-up ------------------------------------------------------------
TMP=$(mktemp -d "${TMPDIR:-/tmp}/plumbline-bench.XXXXXX")
INSTR_PID=""
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if [ -n "$INSTR_PID" ] && kill -0 "$INSTR_PID" 2>/dev/null; then
		kill -INT "$INSTR_PID" 2>/dev/null || true
		for _ in $(seq 50); do
			kill -0 "$INSTR_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$INSTR_PID" 2>/dev/null || true
		wait "$INSTR_PID" 2>/dev/null || true
	fi
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
W7_PATH="$TMP/w7-file" # an ordinary file: no class of watched paths
echo plumbline >"$W7_PATH"
trap 'exit 130' INT
trap 'exit 143' TERM

log() { echo "$*" >&2; }
now_ns() { local t=$EPOCHREALTIME; echo "${t/./}000"; }

# ---- syscount availability -------------------------------------------------
SYSCOUNT=/usr/sbin/syscount
SYSCOUNT_NA=""
if [ ! -x "$SYSCOUNT" ]; then
	SYSCOUNT_NA="$SYSCOUNT not installed (scripts/install-deps.sh --bench)"
elif ! command -v stdbuf >/dev/null; then
	SYSCOUNT_NA="stdbuf (coreutils) not found: cannot see when syscount is ready"
fi

# ---- instrumentations ----------------------------------------------------
# start_instr NAME: start it in the background, return once it is attached.
# Sets INSTR_PID; INSTR_LOG/INSTR_OUT are its stderr/stdout; returns non-zero
# (with INSTR_ERR set) if it failed to start.
INSTR_ERR=""
RUN_SEQ=0
wait_for() { # PID FILE PATTERN TIMEOUT_S
	local pid=$1 file=$2 pat=$3 deadline
	deadline=$(($(now_ns) + $4 * 1000000000))
	while ! grep -q -- "$pat" "$file" 2>/dev/null; do
		if ! kill -0 "$pid" 2>/dev/null; then
			INSTR_ERR="exited before it was ready: $(tail -n 3 "$INSTR_LOG" | tr '\n' ' ')"
			return 1
		fi
		if [ "$(now_ns)" -gt "$deadline" ]; then
			INSTR_ERR="not ready after $4 s: $(tail -n 3 "$INSTR_LOG" | tr '\n' ' ')"
			return 1
		fi
		sleep 0.01
	done
}
task_cpu_ns() { # sum of the tasks' sum_exec_runtime
	local pid=$1 s total=0 f
	for f in /proc/"$pid"/task/*/schedstat; do
		read -r s _ <"$f" 2>/dev/null || continue
		total=$((total + s))
	done
	echo "$total"
}
is_sensor() { [[ "$1" == plumbline* ]]; }
start_instr() {
	RUN_SEQ=$((RUN_SEQ + 1))
	INSTR_LOG="$TMP/$1.$RUN_SEQ.err"
	INSTR_OUT="$TMP/$1.$RUN_SEQ.out"
	INSTR_JSON="$TMP/$1.$RUN_SEQ.json"
	INSTR_ERR=""
	case "$1" in
	floor)
		"$BENCH/bench_floor" $FLOOR_ARGS >"$INSTR_OUT" 2>"$INSTR_LOG" &
		INSTR_PID=$!
		wait_for "$INSTR_PID" "$INSTR_OUT" '^ready$' 30 || return 1
		;;
	plumbline*)
		# Each build keeps its baselines in a state directory of its own for
		# the whole benchmark: learned during the first runs, as a deployed
		# sensor would have them, never shared with the other build (nor
		# with the machine's /var/lib/plumbline or another sensor's lock).
		"${SENSOR_BIN[$1]}" run --no-live --state-dir "$TMP/state.$1" --json "$INSTR_JSON" \
			>"$INSTR_OUT" 2>"$INSTR_LOG" &
		INSTR_PID=$!
		wait_for "$INSTR_PID" "$INSTR_LOG" 'info: attached:' 30 || return 1
		;;
	syscount)
		# syscount prints "Tracing syscalls, ..." once attached; line-buffer
		# its stdout to see it. Its report at exit is discarded.
		stdbuf -oL "$SYSCOUNT" -P >"$INSTR_OUT" 2>"$INSTR_LOG" &
		INSTR_PID=$!
		wait_for "$INSTR_PID" "$INSTR_OUT" '^Tracing syscalls' 30 || return 1
		;;
	esac
}
# stop_instr: SIGINT, wait; non-zero if it did not exit 0.
stop_instr() {
	local rc=0
	kill -INT "$INSTR_PID" 2>/dev/null || true
	wait "$INSTR_PID" || rc=$?
	INSTR_PID=""
	return "$rc"
}

# ---- workloads -----------------------------------------------------------
W4_DIR="$TMP/w4"
setup_w4() {
	local excl=(--exclude=./.git) d
	# Leave out every CMake build tree inside the source (e.g. ./build).
	while IFS= read -r d; do
		excl+=("--exclude=./${d#"$SRC"/}")
	done < <(find "$SRC" -mindepth 2 -maxdepth 3 -name CMakeCache.txt -printf '%h\n')
	mkdir -p "$W4_DIR/src"
	tar -C "$SRC" "${excl[@]}" -cf - . | tar -C "$W4_DIR/src" -xf -
	cmake -S "$W4_DIR/src" -B "$W4_DIR/build" -DPL_TESTS=OFF >"$TMP/w4-configure.log" 2>&1 ||
		die "W4: configuring the copy failed (see below)
$(tail -n 20 "$TMP/w4-configure.log")"
}
# prep W: untimed set-up before each run; timed W: the measured part.
prep() {
	case "$1" in
	W4) make -C "$W4_DIR/build" clean >/dev/null && sync ;;
	*) : ;;
	esac
}
# timed W: the workload, under bench_cpu (its CPU time to $TMP/cpu.ns).
timed() {
	local c=("$BENCH/bench_cpu" "$TMP/cpu.ns")
	case "$1" in
	W1) "${c[@]}" "$BENCH/bench_getppid" "$N1" ;;
	W2) "${c[@]}" "$BENCH/bench_failopen" "$N2" "$FAILPATH" ;;
	W3) "${c[@]}" "$BENCH/bench_execs" "$N3" /bin/true ;;
	W4) "${c[@]}" make -C "$W4_DIR/build" -j2 $W4_TARGET >/dev/null ;;
	W5) "${c[@]}" "$BENCH/bench_threads2" "$N5" ;;
	W6) "${c[@]}" "$BENCH/bench_spawn" "$N6" "$W6_WORKERS" "$BENCH/bench_noop" ;;
	W7) "${c[@]}" "$BENCH/bench_openok" "$N7" "$W7_PATH" ;;
	W8) "${c[@]}" "$BENCH/bench_openok" "$N8" "$W8_PATH" ;;
	W9) "${c[@]}" "$BENCH/bench_connect" "$N9" ;;
	W10) "${c[@]}" "$BENCH/bench_spawn" "$N10" "$W6_WORKERS" /bin/true ;;
	esac
}
# time_workload W: sets NS (elapsed ns of the timed part) and CPUNS (the
# workload's own CPU time).
NS=0 CPUNS=0
time_workload() {
	prep "$1"
	time_workload_noprep "$1"
}
time_workload_noprep() {
	local t0 t1
	t0=$(now_ns)
	timed "$1" || die "workload $1 failed"
	t1=$(now_ns)
	NS=$((t1 - t0))
	read -r CPUNS <"$TMP/cpu.ns" || die "workload $1: no CPU time"
}
# A number from the sensor's one-line JSON stats record; 0 if absent (an
# older build may not have the field).
json_num() { # KEY LINE
	local v
	v=$(sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" <<<"$2")
	echo "${v:-0}"
}
# time_instrumented W I: sets NS, and for a sensor RUN_CPU_NS (sensor_cpu_ns
# of its last stats record minus its CPU when attached), RUN_RSS_KB and
# RUN_LOST (what
# its stats record counts as lost, as "kind=count ..." for the kinds that are
# not 0, or "0": records when the ring buffer was full, processes when the
# kernel's or user space's process table was, threads whose state could not
# be kept, output writes dropped).
# Returns non-zero, with INSTR_ERR set, if the instrumentation did not start.
RUN_CPU_NS="" RUN_RSS_KB="" RUN_LOST=""
time_instrumented() {
	local line cpu0=0 cpu dropped k v
	# Start first, so the untimed prep runs right before the timed part in
	# every leg of a set.
	start_instr "$2" || {
		if [ -n "$INSTR_PID" ]; then
			kill -KILL "$INSTR_PID" 2>/dev/null || true
			wait "$INSTR_PID" 2>/dev/null || true
			INSTR_PID=""
		fi
		return 1
	}
	prep "$1"
	! is_sensor "$2" || cpu0=$(task_cpu_ns "$INSTR_PID")
	time_workload_noprep "$1"
	stop_instr || die "$2 exited with an error: $(tail -n 3 "$INSTR_LOG" | tr '\n' ' ')"
	if is_sensor "$2"; then
		line=$(grep '"type":"stats"' "$INSTR_JSON" | tail -n 1) || die "no stats record in $2's JSON output"
		cpu=$(sed -n 's/.*"sensor_cpu_ns":\([0-9]*\).*/\1/p' <<<"$line")
		RUN_RSS_KB=$(sed -n 's/.*"sensor_maxrss_kb":\([0-9]*\).*/\1/p' <<<"$line")
		if [ -z "$cpu" ] || [ -z "$RUN_RSS_KB" ]; then
			die "stats record without sensor_cpu_ns/sensor_maxrss_kb: $line"
		fi
		RUN_CPU_NS=$((cpu - cpu0))
		dropped=$(sed -n 's/.*"output":{"written":[0-9]*,"dropped":\([0-9]*\).*/\1/p' <<<"$line")
		RUN_LOST=""
		for k in ringbuf_full proc_map_full thread_state proctable_full; do
			v=$(json_num "$k" "$line")
			[ "$v" = 0 ] || RUN_LOST+="$k=$v "
		done
		[ "${dropped:-0}" = 0 ] || RUN_LOST+="output_dropped=$dropped "
		RUN_LOST=${RUN_LOST% }
		: "${RUN_LOST:=0}"
	fi
}

# lost_sum: lines of "kind=count ..." or "0" -> "total (kind count, ...)",
# "0", or "" for no runs.
lost_sum() {
	awk '{ n++; for (i = 1; i <= NF; i++) if (split($i, kv, "=") == 2) { if (!(kv[1] in c)) o[++k] = kv[1]; c[kv[1]] += kv[2]; t += kv[2] } }
	END {
		if (!n) exit
		if (!t) { print 0; exit }
		s = ""
		for (i = 1; i <= k; i++) s = s (i > 1 ? ", " : "") o[i] " " c[o[i]]
		print t " (" s ")"
	}'
}
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
fmt() { awk -v x="$1" -v f="$2" 'BEGIN { if (x == "nan" || x == "") print "n/a"; else printf(f, x) }'; }
calc() { awk "BEGIN { $1 }" </dev/null; } # calc 'printf("%.3f", 1 / 3)'
us() { calc "x = \"$1\"; if (x == \"nan\" || x == \"\") print \"nan\"; else print x / 1000"; } # ns -> us
times115() { calc "x = \"$1\"; if (x == \"nan\" || x == \"\") print \"nan\"; else print x * 1.15"; }

# ---- what an event is, per workload ----------------------------------------
# EVENTS: the count the added time is divided by; UNIT: ns or us per EVNAME.
# W5's threads run side by side, so the wall time each syscall adds is the
# added time over the N syscalls of one thread (over both threads' 2N it
# would come out half of what each syscall costs).
declare -A EVENTS=([W1]=$N1 [W2]=$N2 [W3]=$N3 [W5]=$N5 [W6]=$N6 [W4]=0 [W7]=$N7 [W8]=$N8 [W9]=$N9 [W10]=$N10)
declare -A EVNAME=([W1]=syscall [W2]=openat [W3]=process [W5]=syscall [W6]=process [W4]=""
	[W7]=open [W8]=open [W9]=connect [W10]=process)
declare -A UNIT=([W1]=ns [W2]=ns [W3]=us [W5]=ns [W6]=us [W4]="" [W7]=ns [W8]=ns [W9]=ns [W10]=us)
declare -A DESC=(
	[W1]="bench_getppid $N1"
	[W2]="bench_failopen $N2 $FAILPATH"
	[W3]="bench_execs $N3 /bin/true"
	[W4]="make -j2 ${W4_TARGET:-all} (plumbline, PL_TESTS=OFF)"
	[W5]="bench_threads2 $N5 (2 threads, 2 CPUs)"
	[W6]="bench_spawn $N6 $W6_WORKERS bench_noop"
	[W7]="bench_openok $N7 /tmp/.../w7-file"
	[W8]="bench_openok $N8 $W8_PATH"
	[W9]="bench_connect $N9 (127.0.0.1, refused)"
	[W10]="bench_spawn $N10 $W6_WORKERS /bin/true"
)
# in_unit NS W: NS in W's unit (ns or us); per_event NS W: NS per event of W,
# in W's unit; "nan" for an absent value or a workload without events.
in_unit() { calc "x = \"$1\"; if (x == \"nan\" || x == \"\") print \"nan\"; else print x / (\"${UNIT[$2]}\" == \"us\" ? 1000 : 1)"; }
per_event() {
	if [ "${EVENTS[$2]}" = 0 ]; then echo nan; else in_unit "$(calc "x = \"$1\"; if (x == \"nan\" || x == \"\") print x; else print x / ${EVENTS[$2]}")" "$2"; fi
}
# fmt_pe VALUE W [SIGN]: "+70.1 ns" (SIGN "+") or "172.0 ns"; n/a when absent.
fmt_pe() { calc "x = \"$1\"; if (x == \"nan\" || x == \"\") print \"n/a\"; else printf(\"%${3:-}.1f %s\", x, \"${UNIT[$2]}\")"; }

# ---- the sets ------------------------------------------------------------
ALL_WORKLOADS=(W1 W5 W2 W7 W8 W9 W3 W6 W10 W4)
WORKLOADS=()
for w in "${ALL_WORKLOADS[@]}"; do
	[ -z "$ONLY" ] || [[ ",$ONLY," == *",$w,"* ]] || continue
	WORKLOADS+=("$w")
done
NA_W5=""
[ "$(nproc)" -ge 2 ] || NA_W5="n/a: one CPU"
INSTRS=(floor "${SENSORS[@]}" syscount)
# The order of the legs in set P (leg 0 is the workload alone): the P-th
# rotation of 0..NLEGS-1, reversed in every other round of NLEGS sets, so
# that over NLEGS sets each leg takes each place once.
leg_order() { # P NLEGS
	local p=$1 n=$2 k o=()
	for ((k = 0; k < n; k++)); do
		if (((p / n) % 2)); then o+=($(((2 * n - 1 - k + p) % n))); else o+=($(((k + p) % n))); fi
	done
	echo "${o[*]}"
}

t_start=$(now_ns)
log "plumbline overhead benchmark: $PAIRS sets per workload$([ "$QUICK" = 1 ] && echo ", quick sizes")"
log "machine: $(nproc) CPUs, kernel $(uname -r)"
[ -z "$SYSCOUNT_NA" ] || log "syscount: n/a: $SYSCOUNT_NA"
# The numbers are only meaningful on an otherwise idle machine: say so when
# it is not (another sensor, or other tracing BPF programs, already running).
check_idle() {
	local others progs
	others=$(pgrep -x plumbline | tr '\n' ' ' || true)
	progs=$(bpftool prog show 2>/dev/null | grep -cE '^[0-9]+: (tracing|raw_tracepoint|tracepoint|kprobe|perf_event) ' || true)
	[ -z "$others" ] || log "WARNING: other plumbline processes are running (pids $others): results will be skewed"
	[ "${progs:-0}" = 0 ] || log "WARNING: $progs tracing BPF programs already loaded: results will be skewed"
	log "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
}
check_idle
if [[ " ${WORKLOADS[*]} " == *" W4 "* ]]; then
	log "W4: configuring a copy of $SRC in $W4_DIR"
	setup_w4
fi

declare -A ALONE RATIO DNS WITH CPU CPUPP RSS LOST AB_RATIO AB_DNS BEYOND CBEYOND CDNS
for w in "${WORKLOADS[@]}"; do
	if [ "$w" = W5 ] && [ -n "$NA_W5" ]; then
		log "$w: ${DESC[$w]}: $NA_W5"
		continue
	fi
	log "$w: ${DESC[$w]}"
	# Warm-up (page cache, first exec, W4's first full build): untimed.
	prep "$w"
	timed "$w" || die "workload $w failed"
	: >"$TMP/$w.alone"
	: >"$TMP/$w.AB.ratio"
	: >"$TMP/$w.AB.dns"
	for i in "${INSTRS[@]}"; do
		for k in ratio dns with cpu cpupp rss lost; do : >"$TMP/$w.$i.$k"; done
	done
	for i in "${SENSORS[@]}"; do : >"$TMP/$w.$i.beyond"; : >"$TMP/$w.$i.cbeyond"; done
	for i in "${INSTRS[@]}"; do : >"$TMP/$w.$i.cdns"; done
	for ((p = 0; p < PAIRS; p++)); do
		# one set: the workload alone and with each instrumentation
		legs=(alone floor "${SENSORS[@]}")
		[ -n "$SYSCOUNT_NA" ] || legs+=(syscount)
		declare -A T=() C=() R=() L=() CW=()
		failed=""
		for l in $(leg_order "$p" "${#legs[@]}"); do
			i=${legs[$l]}
			if [ "$i" = alone ]; then
				time_workload "$w"
				T[alone]=$NS CW[alone]=$CPUNS
			elif time_instrumented "$w" "$i"; then
				T[$i]=$NS CW[$i]=$CPUNS
				if is_sensor "$i"; then C[$i]=$RUN_CPU_NS R[$i]=$RUN_RSS_KB L[$i]=$RUN_LOST; fi
			else
				failed=$i
				break
			fi
		done
		if [ -n "$failed" ]; then
			[ "$failed" = syscount ] || die "$failed failed to start: $INSTR_ERR"
			# go on without syscount: this set again, and no syscount figures
			SYSCOUNT_NA="syscount failed: $INSTR_ERR"
			log "  syscount: n/a: $SYSCOUNT_NA"
			for k in ratio dns with; do : >"$TMP/$w.syscount.$k"; done
			unset T C R L CW
			p=$((p - 1))
			continue
		fi
		a=${T[alone]}
		echo "$a" >>"$TMP/$w.alone"
		msg=$(printf '  %s set %d/%d: alone %.3f s' "$w" $((p + 1)) "$PAIRS" "$(calc "print $a / 1e9")")
		for i in "${legs[@]:1}"; do
			b=${T[$i]}
			r=$(calc "printf(\"%.4f\", $b / $a)")
			d=nan
			[ "${EVENTS[$w]}" = 0 ] || d=$(calc "printf(\"%.1f\", ($b - $a) / ${EVENTS[$w]})")
			echo "$b" >>"$TMP/$w.$i.with"
			echo "$r" >>"$TMP/$w.$i.ratio"
			echo "$d" >>"$TMP/$w.$i.dns"
			[ "${EVENTS[$w]}" = 0 ] ||
				calc "printf(\"%.1f\n\", (${CW[$i]} - ${CW[alone]}) / ${EVENTS[$w]})" >>"$TMP/$w.$i.cdns"
			msg+=$(printf '; %s %.3f s, ratio %s' "$i" "$(calc "print $b / 1e9")" "$r")
			[ "${EVENTS[$w]}" = 0 ] || msg+=" ($(fmt_pe "$(per_event $((b - a)) "$w")" "$w" +)/${EVNAME[$w]})"
			if is_sensor "$i"; then
				# CPU the sensor used from the start of the timed run to
				# its final stats record (start-up excluded), as % of the
				# workload's wall time, and per process for W3/W6.
				pct=$(calc "printf(\"%.2f\", 100 * ${C[$i]} / $b)")
				echo "$pct" >>"$TMP/$w.$i.cpu"
				echo "${R[$i]}" >>"$TMP/$w.$i.rss"
				echo "${L[$i]}" >>"$TMP/$w.$i.lost"
				msg+=", sensor CPU $(calc "printf(\"%.3f\", ${C[$i]} / 1e9)") s = $pct %"
				if [ "${EVNAME[$w]}" = process ]; then
					echo "$((C[$i] / EVENTS[$w]))" >>"$TMP/$w.$i.cpupp"
					msg+=" = $(calc "printf(\"%.1f\", ${C[$i]} / ${EVENTS[$w]} / 1000)") us/process"
				fi
				msg+=", maxrss ${R[$i]} KiB, lost ${L[$i]}"
				# what the sensor adds beyond the floor, in the same set
				[ "${EVENTS[$w]}" = 0 ] ||
					calc "printf(\"%.1f\n\", ($b - ${T[floor]}) / ${EVENTS[$w]})" >>"$TMP/$w.$i.beyond"
				[ "${EVENTS[$w]}" = 0 ] ||
					calc "printf(\"%.1f\n\", (${CW[$i]} - ${CW[floor]}) / ${EVENTS[$w]})" >>"$TMP/$w.$i.cbeyond"
			fi
		done
		if [ "${#SENSORS[@]}" = 2 ]; then
			# the two sensors of the same set: A/B, and what A adds over B
			calc "printf(\"%.4f\n\", ${T[plumbline]} / ${T[plumbline-B]})" >>"$TMP/$w.AB.ratio"
			[ "${EVENTS[$w]}" = 0 ] ||
				calc "printf(\"%.1f\n\", (${T[plumbline]} - ${T[plumbline-B]}) / ${EVENTS[$w]})" >>"$TMP/$w.AB.dns"
		fi
		log "$msg"
		unset T C R L CW
	done
	ALONE[$w]=$(median <"$TMP/$w.alone")
	for i in "${INSTRS[@]}"; do
		RATIO[$w.$i]=$(median <"$TMP/$w.$i.ratio")
		WITH[$w.$i]=$(median <"$TMP/$w.$i.with")
		# dns files hold ns per event (0 events: W4, no per-event figure)
		DNS[$w.$i]=nan
		[ "${EVENTS[$w]}" = 0 ] || DNS[$w.$i]=$(median <"$TMP/$w.$i.dns")
		CPU[$w.$i]=$(median <"$TMP/$w.$i.cpu")
		BEYOND[$w.$i]=nan CBEYOND[$w.$i]=nan CDNS[$w.$i]=nan
		! is_sensor "$i" || [ "${EVENTS[$w]}" = 0 ] || BEYOND[$w.$i]=$(median <"$TMP/$w.$i.beyond")
		! is_sensor "$i" || [ "${EVENTS[$w]}" = 0 ] || CBEYOND[$w.$i]=$(median <"$TMP/$w.$i.cbeyond")
		[ "${EVENTS[$w]}" = 0 ] || CDNS[$w.$i]=$(median <"$TMP/$w.$i.cdns")
		CPUPP[$w.$i]=$(median <"$TMP/$w.$i.cpupp")
		RSS[$w.$i]=$(sort -n "$TMP/$w.$i.rss" | tail -n 1)
		LOST[$w.$i]=$(lost_sum <"$TMP/$w.$i.lost")
	done
	AB_RATIO[$w]=$(median <"$TMP/$w.AB.ratio")
	AB_DNS[$w]=nan
	[ "${EVENTS[$w]}" = 0 ] || AB_DNS[$w]=$(median <"$TMP/$w.AB.dns")
done

# ---- report --------------------------------------------------------------
check_idle
elapsed=$(calc "printf(\"%.0f\", ($(now_ns) - $t_start) / 1e9)")
# table: TSV on stdin (header first) -> a Markdown table with aligned
# columns; the first two columns left-aligned, the others right-aligned.
table() {
	awk -F'\t' '
	{ for (i = 1; i <= NF; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } if (NF > nf) nf = NF }
	END {
		for (r = 1; r <= NR; r++) {
			line = "|"
			for (i = 1; i <= nf; i++)
				line = line sprintf(" %" (i <= 2 ? "-" : "") w[i] "s |", c[r, i])
			print line
			if (r == 1) {
				line = "|"
				for (i = 1; i <= nf; i++) {
					d = ""
					for (k = 0; k < w[i]; k++) d = d "-"
					line = line (i <= 2 ? "-" d "-|" : "-" d ":|")
				}
				print line
			}
		}
	}'
}
# commit: the source commit a build directory was configured from.
commit_of() {
	local src
	src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$1/CMakeCache.txt" 2>/dev/null) || true
	if [ -n "$src" ] && git -C "$src" rev-parse --short HEAD >/dev/null 2>&1; then
		echo "$(git -C "$src" rev-parse --short HEAD)$(git -C "$src" diff --quiet HEAD -- . 2>/dev/null || echo ' + uncommitted changes')"
	else
		echo "unknown commit"
	fi
}
ran() { [[ " ${WORKLOADS[*]} " == *" $1 "* ]] && { [ "$1" != W5 ] || [ -z "$NA_W5" ]; }; }

echo
echo "plumbline overhead: $(nproc) CPUs, kernel $(uname -r), $PAIRS sets per workload, medians$([ "$QUICK" = 1 ] && echo ', QUICK sizes')"
if ran W1; then
	echo "W1 alone: $(fmt "$(calc "print ${ALONE[W1]} / 1e9")" '%.3f') s for $N1 getppid = $(fmt "$(per_event "${ALONE[W1]}" W1)" '%.0f') ns per syscall (compare machines by this)"
fi
for s in "${SENSORS[@]}"; do
	printf '%-12s %s (%s)\n' "$s:" "${SENSOR_BIN[$s]}" "$(commit_of "${SENSOR_DIR[$s]}")"
done
echo
echo "Each cell: median ratio instrumented/alone, and the median time added per event."
{
	printf 'workload\tcommand\talone (s)\talone per event'
	for i in "${INSTRS[@]}"; do printf '\t%s' "$i"; done
	echo
	for w in "${ALL_WORKLOADS[@]}"; do
		[[ " ${WORKLOADS[*]} " == *" $w "* ]] || continue
		if [ "$w" = W5 ] && [ -n "$NA_W5" ]; then
			printf '%s\t%s\t%s\n' "$w" "${DESC[$w]}" "$NA_W5"
			continue
		fi
		printf '%s\t%s\t%s\t%s' "$w" "${DESC[$w]}" "$(fmt "$(calc "print ${ALONE[$w]} / 1e9")" '%.3f')" \
			"$([ "${EVENTS[$w]}" = 0 ] && echo - || echo "$(fmt_pe "$(per_event "${ALONE[$w]}" "$w")" "$w")/${EVNAME[$w]}")"
		for i in "${INSTRS[@]}"; do
			cell=$(fmt "${RATIO[$w.$i]}" '%.3f')
			if [ "$cell" != n/a ] && [ "${EVENTS[$w]}" != 0 ]; then
				cell+=" $(fmt_pe "$(in_unit "${DNS[$w.$i]}" "$w")" "$w" +)"
			fi
			printf '\t%s' "$cell"
		done
		echo
	done
} | table
[ -z "$SYSCOUNT_NA" ] || echo "syscount: n/a: $SYSCOUNT_NA"
echo "W1, W5: ns per syscall (W5: of one thread, the two run side by side); W2: ns per openat; W7, W8: ns per open;"
echo "W9: ns per connect; W3, W6, W10: us per process."

# Beyond the floor: what the sensor adds per event on top of what empty
# programs on the same hooks add. This, not the ratio, carries across
# machines. Wall: from the wall times; CPU: from the workload's own CPU time
# (the syscall path, tracepoints and BPF programs included; what the
# sensor's user space takes of the workload's CPUs on a busy machine not).
beyond() { echo "${BEYOND[$1.$2]}"; } # W SENSOR
cbeyond() { echo "${CBEYOND[$1.$2]}"; } # W SENSOR
bw=()
for w in W1 W5 W2 W7 W8 W9 W3 W6 W10; do ran "$w" && bw+=("$w"); done
if [ "${#bw[@]}" -gt 0 ]; then
	echo
	echo "Beyond the floor: per event, what the sensor adds on top of the floor's empty programs: the median over"
	echo "the sets of (with sensor - with floor) / events, both timed in the same set; wall time and the workload's CPU time."
	{
		printf 'workload\tevent\talone per event\tfloor adds (wall)\tfloor adds (CPU)'
		for s in "${SENSORS[@]}"; do printf '\t%s beyond the floor (wall)\t%s beyond the floor (CPU)' "$s" "$s"; done
		echo
		for w in "${bw[@]}"; do
			printf '%s\t%s\t%s\t%s\t%s' "$w" "${EVNAME[$w]}" "$(fmt_pe "$(per_event "${ALONE[$w]}" "$w")" "$w")" \
				"$(fmt_pe "$(in_unit "${DNS[$w.floor]}" "$w")" "$w" +)" "$(fmt_pe "$(in_unit "${CDNS[$w.floor]}" "$w")" "$w" +)"
			for s in "${SENSORS[@]}"; do
				printf '\t%s\t%s' "$(fmt_pe "$(in_unit "$(beyond "$w" "$s")" "$w")" "$w" +)" \
					"$(fmt_pe "$(in_unit "$(cbeyond "$w" "$s")" "$w")" "$w" +)"
			done
			echo
		done
	} | table
fi

echo
echo "Sensor: CPU from the start of the timed run to its last stats record (sensor_cpu_ns minus its CPU"
echo "then), as % of the instrumented run's wall time and per process (median); RSS = max sensor_maxrss_kb;"
echo "lost = what its stats records count as lost (ring buffer full, process table full in the kernel"
echo "or user space, thread state, output writes dropped), summed over the runs."
{
	printf 'workload\tsensor\tCPU (%% of run)\tCPU per process\tRSS\tlost\n'
	for w in "${WORKLOADS[@]}"; do
		ran "$w" || continue
		for s in "${SENSORS[@]}"; do
			printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$w" "$s" "$(fmt "${CPU[$w.$s]}" '%.2f %%')" \
				"$(fmt "$(us "${CPUPP[$w.$s]}")" '%.1f us')" \
				"$([ -n "${RSS[$w.$s]}" ] && echo "$((RSS[$w.$s] / 1024)) MiB" || echo n/a)" "${LOST[$w.$s]:-n/a}"
		done
	done
} | table

if ran W6; then
	echo
	rate() { calc "x = \"$1\"; if (x == \"nan\" || x == \"\") print \"n/a\"; else printf(\"%.0f\", $N6 / (x / 1e9))"; }
	echo "W6, a flood of $N6 short-lived processes from $W6_WORKERS workers: $(rate "${ALONE[W6]}") execs/s alone (median time)"
	for i in "${INSTRS[@]}"; do
		[ "${RATIO[W6.$i]}" != nan ] || continue
		line="  with $i: $(rate "${WITH[W6.$i]}") execs/s (median time), median ratio $(fmt "${RATIO[W6.$i]}" '%.3f')"
		if is_sensor "$i"; then
			line+="; sensor $(fmt "${CPU[W6.$i]}" '%.1f %%') of a CPU, $(fmt "$(us "${CPUPP[W6.$i]}")" '%.1f') us per process, lost ${LOST[W6.$i]:-n/a}"
		fi
		echo "$line"
	done
fi

if [ "${#SENSORS[@]}" = 2 ]; then
	echo
	echo "plumbline against plumbline-B, timed in the same sets (median of each set's plumbline/plumbline-B"
	echo "and of (plumbline - plumbline-B) / events; below 1 and negative: plumbline is the faster):"
	{
		printf 'workload\tevent\tplumbline / plumbline-B\tplumbline - plumbline-B\n'
		for w in "${WORKLOADS[@]}"; do
			ran "$w" || continue
			printf '%s\t%s\t%s\t%s\n' "$w" "${EVNAME[$w]:--}" "$(fmt "${AB_RATIO[$w]}" '%.3f')" \
				"$(if [ "${EVENTS[$w]}" = 0 ]; then echo -; else fmt_pe "$(in_unit "${AB_DNS[$w]}" "$w")" "$w" +; fi)"
		done
	} | table
fi

echo
echo "Targets (informational):"
verdict() { # LABEL VALUE OP LIMIT [FMT]: OP is <= or <
	local f=${5:-%.3f}
	if [ "$2" = nan ] || [ -z "$2" ] || [ "$4" = nan ] || [ -z "$4" ]; then
		printf "  %-58s %10s %-2s %-10s n/a\n" "$1" "$(fmt "$2" "$f")" "$3" "$(fmt "$4" "$f")"
	elif calc "exit !((\"$3\" == \"<\") ? ($2 < $4) : ($2 <= $4))"; then
		printf "  %-58s %10s %-2s %-10s PASS\n" "$1" "$(fmt "$2" "$f")" "$3" "$(fmt "$4" "$f")"
	else
		printf "  %-58s %10s %-2s %-10s MISS\n" "$1" "$(fmt "$2" "$f")" "$3" "$(fmt "$4" "$f")"
	fi
}
for s in "${SENSORS[@]}"; do
	if ran W1; then
		verdict "W1 $s ratio <= floor ratio x 1.15" "${RATIO[W1.$s]}" "<=" "$(times115 "${RATIO[W1.floor]}")"
		verdict "W1 $s ns per syscall beyond the floor <= 10" "$(beyond W1 "$s")" "<=" 10 '%.1f'
		verdict "W1 $s ns per syscall beyond the floor (CPU) <= 10" "$(cbeyond W1 "$s")" "<=" 10 '%.1f'
		verdict "W1 $s ratio < syscount ratio" "${RATIO[W1.$s]}" "<" "${RATIO[W1.syscount]}"
	fi
	if ran W5; then
		verdict "W5 $s ratio <= floor ratio x 1.15" "${RATIO[W5.$s]}" "<=" "$(times115 "${RATIO[W5.floor]}")"
		verdict "W5 $s ns per syscall beyond the floor <= 10" "$(beyond W5 "$s")" "<=" 10 '%.1f'
		verdict "W5 $s ns per syscall beyond the floor (CPU) <= 10" "$(cbeyond W5 "$s")" "<=" 10 '%.1f'
	fi
	if ran W2; then
		verdict "W2 $s ratio <= 1.25" "${RATIO[W2.$s]}" "<=" 1.25
		verdict "W2 $s ratio < syscount ratio" "${RATIO[W2.$s]}" "<" "${RATIO[W2.syscount]}"
	fi
	if ran W3; then
		verdict "W3 $s ratio <= 1.03" "${RATIO[W3.$s]}" "<=" 1.03
		verdict "W3 $s sensor CPU us per process <= 20" "$(us "${CPUPP[W3.$s]}")" "<=" 20 '%.1f'
	fi
	if ran W6; then
		verdict "W6 $s sensor CPU us per process <= 20" "$(us "${CPUPP[W6.$s]}")" "<=" 20 '%.1f'
	fi
	if ran W4; then
		verdict "W4 $s ratio <= 1.03" "${RATIO[W4.$s]}" "<=" 1.03
	fi
done
echo
echo "total benchmark time: ${elapsed} s"
