#!/usr/bin/env bash
# Overhead benchmark: what does watching every process cost the processes?
#
#   tests/bench/run.sh [BUILD_DIR] [--pairs N] [--quick]
#
# Run as root, on an otherwise idle machine, after building the tree
# (cmake -S . -B build && cmake --build build). BUILD_DIR defaults to ./build.
# Builds nothing itself except W4's scratch copy of this project.
#
# Workloads:
#   W1  bench_getppid 1000000                 cheapest syscall, back to back
#   W2  bench_failopen 200000 /nonexistent/.. failing openat storm
#   W3  bench_execs 2000 /bin/true            fork + exec + exit + wait
#   W4  make -j2 of this project (PL_TESTS=OFF), after make clean
# Instrumentations, each compared with the workload alone in its own pairs:
#   floor      bench_floor: an empty tp_btf/sys_enter program
#   plumbline  plumbline run --no-live --json FILE
#   syscount   libbpf-tools' syscount -P (scripts/install-deps.sh --bench)
#
# For each workload and instrumentation, N pairs (default 5, at least 5):
# one run of the workload alone and one with the instrumentation attached,
# baseline first on even pairs, instrumented first on odd pairs. The pair's
# ratio is instrumented/alone; the table shows the median ratio. Wall time
# only, from $EPOCHREALTIME; instrumentation start-up and shutdown are
# outside the timed region. The results are informational: the script exits
# 0 unless something broke. See docs/performance.md.
set -euo pipefail

usage() {
	echo "usage: $0 [BUILD_DIR] [--pairs N] [--quick]   (N >= 5; run as root)" >&2
	exit 2
}

BUILD=""
PAIRS=5
QUICK=0
while [ $# -gt 0 ]; do
	case "$1" in
	--pairs)
		[ $# -ge 2 ] || usage
		[[ "$2" =~ ^[0-9]+$ ]] || usage
		PAIRS=$((10#$2))
		shift 2
		;;
	--pairs=*)
		v=${1#--pairs=}
		[[ "$v" =~ ^[0-9]+$ ]] || usage
		PAIRS=$((10#$v))
		shift
		;;
	--quick)
		QUICK=1
		shift
		;;
	-h | --help) usage ;;
	-*) usage ;;
	*)
		[ -z "$BUILD" ] || usage
		BUILD=$1
		shift
		;;
	esac
done
BUILD=${BUILD:-./build}
if [ "$PAIRS" -lt 5 ]; then
	echo "run.sh: --pairs must be at least 5 (a median of fewer pairs is noise)" >&2
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
PLUMBLINE="$BUILD/plumbline"
for f in "$PLUMBLINE" "$BENCH/bench_floor" "$BENCH/bench_getppid" "$BENCH/bench_failopen" "$BENCH/bench_execs"; do
	[ -x "$f" ] || die "$f not built: cmake -S '$SRC' -B '$BUILD' && cmake --build '$BUILD' (with PL_TESTS=ON)"
done
for t in cmake make; do
	command -v "$t" >/dev/null || die "$t not found (scripts/install-deps.sh)"
done
FAILPATH=/nonexistent/plumbline-bench
[ ! -e "$FAILPATH" ] || die "$FAILPATH exists; W2 needs a path that does not"

if [ "$QUICK" = 1 ]; then
	N1=200000 N2=50000 N3=200
	W4_TARGET=pl_outputs # a few files instead of the whole tree
else
	N1=1000000 N2=200000 N3=2000
	W4_TARGET=""
fi

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
INSTR_CPU0=0
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
start_instr() {
	RUN_SEQ=$((RUN_SEQ + 1))
	INSTR_LOG="$TMP/$1.$RUN_SEQ.err"
	INSTR_OUT="$TMP/$1.$RUN_SEQ.out"
	INSTR_JSON="$TMP/$1.$RUN_SEQ.json"
	INSTR_ERR=""
	case "$1" in
	floor)
		"$BENCH/bench_floor" >"$INSTR_OUT" 2>"$INSTR_LOG" &
		INSTR_PID=$!
		wait_for "$INSTR_PID" "$INSTR_OUT" '^ready$' 30 || return 1
		;;
	plumbline)
		"$PLUMBLINE" run --no-live --json "$INSTR_JSON" >"$INSTR_OUT" 2>"$INSTR_LOG" &
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
# prep_W: untimed set-up before each run; timed_W: the measured part.
prep() {
	case "$1" in
	W4) make -C "$W4_DIR/build" clean >/dev/null && sync ;;
	*) : ;;
	esac
}
timed() {
	case "$1" in
	W1) "$BENCH/bench_getppid" "$N1" ;;
	W2) "$BENCH/bench_failopen" "$N2" "$FAILPATH" ;;
	W3) "$BENCH/bench_execs" "$N3" /bin/true ;;
	W4) make -C "$W4_DIR/build" -j2 $W4_TARGET >/dev/null ;;
	esac
}
# time_workload W: sets NS (elapsed ns of the timed part).
NS=0
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
}
# time_instrumented W I: sets NS, and for plumbline CPU_NS (sensor_cpu_ns of
# its last stats record), CPU0_NS (its CPU when attached) and RSS_KB.
# Returns non-zero, with INSTR_ERR set, if the instrumentation did not start.
CPU_NS="" CPU0_NS="" RSS_KB=""
time_instrumented() {
	local line
	# Start first, so the untimed prep runs right before the timed part in
	# both legs of a pair.
	start_instr "$2" || {
		if [ -n "$INSTR_PID" ]; then
			kill -KILL "$INSTR_PID" 2>/dev/null || true
			wait "$INSTR_PID" 2>/dev/null || true
			INSTR_PID=""
		fi
		return 1
	}
	prep "$1"
	[ "$2" != plumbline ] || INSTR_CPU0=$(task_cpu_ns "$INSTR_PID")
	time_workload_noprep "$1"
	stop_instr || die "$2 exited with an error: $(tail -n 3 "$INSTR_LOG" | tr '\n' ' ')"
	if [ "$2" = plumbline ]; then
		line=$(grep '"type":"stats"' "$INSTR_JSON" | tail -n 1) || die "no stats record in plumbline's JSON output"
		CPU_NS=$(sed -n 's/.*"sensor_cpu_ns":\([0-9]*\).*/\1/p' <<<"$line")
		RSS_KB=$(sed -n 's/.*"sensor_maxrss_kb":\([0-9]*\).*/\1/p' <<<"$line")
		CPU0_NS=$INSTR_CPU0
		if [ -z "$CPU_NS" ] || [ -z "$RSS_KB" ]; then
			die "stats record without sensor_cpu_ns/sensor_maxrss_kb: $line"
		fi
	fi
}

median() { sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
fmt() { awk -v x="$1" -v f="$2" 'BEGIN { if (x == "nan" || x == "") print "n/a"; else printf(f, x) }'; }

# ---- main loop -----------------------------------------------------------
declare -A ALONE RATIO CPU RSS
INSTRS=(floor plumbline syscount)
WORKLOADS=(W1 W2 W3 W4)
declare -A DESC=(
	[W1]="bench_getppid $N1"
	[W2]="bench_failopen $N2 $FAILPATH"
	[W3]="bench_execs $N3 /bin/true"
	[W4]="make -j2 ${W4_TARGET:-all} (plumbline, PL_TESTS=OFF)"
)

t_start=$(now_ns)
log "plumbline overhead benchmark: $PAIRS pairs per workload and instrumentation$([ "$QUICK" = 1 ] && echo ", quick sizes")"
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
log "W4: configuring a copy of $SRC in $W4_DIR"
setup_w4

for w in "${WORKLOADS[@]}"; do
	log "$w: ${DESC[$w]}"
	# Warm-up (page cache, first exec, W4's first full build): untimed.
	prep "$w"
	timed "$w" || die "workload $w failed"
	: >"$TMP/$w.alone"
	for i in "${INSTRS[@]}"; do
		: >"$TMP/$w.$i.ratio"
		: >"$TMP/$w.$i.cpu"
		: >"$TMP/$w.$i.rss"
		if [ "$i" = syscount ] && [ -n "$SYSCOUNT_NA" ]; then
			continue
		fi
		for ((p = 0; p < PAIRS; p++)); do
			a="" b="" failed=0
			for leg in 0 1; do
				# even pairs: alone first; odd pairs: instrumented first
				if [ $(((p + leg) % 2)) = 0 ]; then
					time_workload "$w"
					a=$NS
				elif time_instrumented "$w" "$i"; then
					b=$NS
				else
					failed=1
					break
				fi
			done
			if [ "$failed" = 1 ]; then
				[ "$i" = syscount ] || die "$i failed to start: $INSTR_ERR"
				SYSCOUNT_NA="syscount failed: $INSTR_ERR"
				log "  syscount: n/a: $SYSCOUNT_NA"
				: >"$TMP/$w.$i.ratio"
				break
			fi
			echo "$a" >>"$TMP/$w.alone"
			r=$(awk -v a="$a" -v b="$b" 'BEGIN { printf("%.4f", b / a) }')
			echo "$r" >>"$TMP/$w.$i.ratio"
			extra=""
			if [ "$i" = plumbline ]; then
				# CPU the sensor used from the start of the timed run to its
				# final stats record (start-up excluded), as % of the
				# workload's wall time.
				pct=$(awk -v c="$CPU_NS" -v c0="$CPU0_NS" -v b="$b" 'BEGIN { printf("%.2f", 100 * (c - c0) / b) }')
				echo "$pct" >>"$TMP/$w.$i.cpu"
				echo "$RSS_KB" >>"$TMP/$w.$i.rss"
				extra=$(printf '; sensor CPU %.3f s in all, %s%% of the run; maxrss %s KiB' \
					"$(awk -v x="$CPU_NS" 'BEGIN { print x / 1e9 }')" "$pct" "$RSS_KB")
			fi
			log "$(printf '  %s %-9s pair %d/%d: alone %.3f s, with %.3f s, ratio %s%s' "$w" "$i" $((p + 1)) "$PAIRS" \
				"$(awk -v x="$a" 'BEGIN { print x / 1e9 }')" "$(awk -v x="$b" 'BEGIN { print x / 1e9 }')" "$r" "$extra")"
		done
	done
	ALONE[$w]=$(median <"$TMP/$w.alone")
	for i in "${INSTRS[@]}"; do
		RATIO[$w.$i]=$(median <"$TMP/$w.$i.ratio")
	done
	CPU[$w]=$(median <"$TMP/$w.plumbline.cpu")
	RSS[$w]=$(sort -n "$TMP/$w.plumbline.rss" | tail -n 1)
done

# ---- report --------------------------------------------------------------
check_idle
elapsed=$(awk -v a="$t_start" -v b="$(now_ns)" 'BEGIN { printf("%.0f", (b - a) / 1e9) }')
echo
echo "plumbline overhead: $(nproc) CPUs, kernel $(uname -r), $PAIRS pairs, median ratios (instrumented/alone)$([ "$QUICK" = 1 ] && echo ', QUICK sizes')"
echo
printf '| %-8s | %-49s | %9s | %11s | %15s | %14s | %10s | %10s |\n' workload command "alone (s)" "floor ratio" "plumbline ratio" "syscount ratio" "sensor CPU" "sensor RSS"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' "----------" "---------------------------------------------------" "-----------" "-------------" "-----------------" "----------------" "------------" "------------"
for w in "${WORKLOADS[@]}"; do
	printf '| %-8s | %-49s | %9s | %11s | %15s | %14s | %10s | %10s |\n' "$w" "${DESC[$w]}" \
		"$(fmt "$(awk -v x="${ALONE[$w]}" 'BEGIN { print x / 1e9 }')" '%.3f')" \
		"$(fmt "${RATIO[$w.floor]}" '%.3f')" "$(fmt "${RATIO[$w.plumbline]}" '%.3f')" \
		"$(fmt "${RATIO[$w.syscount]}" '%.3f')" "$(fmt "${CPU[$w]}" '%.2f %%')" \
		"$([ -n "${RSS[$w]}" ] && echo "$((RSS[$w] / 1024)) MiB" || echo n/a)"
done
[ -z "$SYSCOUNT_NA" ] || echo "syscount: n/a: $SYSCOUNT_NA"
echo
echo "sensor CPU = the sensor's CPU time from the start of the timed run to its last stats record"
echo "(sensor_cpu_ns minus its CPU then), % of the instrumented run's wall time, median; sensor RSS = max sensor_maxrss_kb."
echo
echo "Targets (informational):"
target() { # LABEL VALUE LIMIT
	local v=$2 lim=$3
	if [ "$v" = nan ] || [ -z "$v" ] || [ "$lim" = nan ] || [ -z "$lim" ]; then
		printf '  %-48s %8s <= %-8s n/a\n' "$1" "$(fmt "$v" '%.3f')" "$(fmt "$lim" '%.3f')"
	elif awk -v v="$v" -v l="$lim" 'BEGIN { exit !(v <= l) }'; then
		printf '  %-48s %8.3f <= %-8.3f PASS\n' "$1" "$v" "$lim"
	else
		printf '  %-48s %8.3f <= %-8.3f MISS\n' "$1" "$v" "$lim"
	fi
}
fl=${RATIO[W1.floor]}
target "W1 plumbline ratio <= floor ratio x 1.15" "${RATIO[W1.plumbline]}" \
	"$(awk -v f="$fl" 'BEGIN { if (f == "nan") print "nan"; else print f * 1.15 }')"
if [ "${RATIO[W1.syscount]}" = nan ]; then
	printf '  %-48s %8s\n' "W1 plumbline ratio < syscount ratio" "n/a (syscount unavailable)"
elif awk -v v="${RATIO[W1.plumbline]}" -v l="${RATIO[W1.syscount]}" 'BEGIN { exit !(v < l) }'; then
	printf '  %-48s %8.3f <  %-8.3f PASS\n' "W1 plumbline ratio < syscount ratio" "${RATIO[W1.plumbline]}" "${RATIO[W1.syscount]}"
else
	printf '  %-48s %8.3f <  %-8.3f MISS\n' "W1 plumbline ratio < syscount ratio" "${RATIO[W1.plumbline]}" "${RATIO[W1.syscount]}"
fi
target "W2 plumbline ratio <= 1.25" "${RATIO[W2.plumbline]}" 1.25
target "W3 plumbline ratio <= 1.03" "${RATIO[W3.plumbline]}" 1.03
target "W4 plumbline ratio <= 1.03" "${RATIO[W4.plumbline]}" 1.03
echo
echo "total benchmark time: ${elapsed} s"
