#!/usr/bin/env bash
# Per-program cost of plumbline's BPF programs, from the kernel's own BPF
# statistics (kernel.bpf_stats_enabled: run count and run time of every
# program), for one build or several side by side.
#
#   tests/bench/bpf_costs.sh [--rounds N] [--quick] [BUILD_DIR...]
#
# Run as root. BUILD_DIR defaults to ./build; with several, each build's
# sensor runs the same workloads, the builds taking turns round by round
# (the order rotates), so "before" and "after" are measured on the same
# machine in the same minutes. The workloads and the floor come from the
# first BUILD_DIR; only the sensor binary comes from the others.
#
# Workloads, each under every sensor and under the floor (bench_floor, an
# empty program on every hook the sensor's per-event paths use):
#   W1  bench_getppid 1000000               one thread, syscalls back to back
#   W5  bench_threads2 1000000              two threads on two CPUs at once
#   W2  bench_failopen 200000 /nonexistent/..  failing openat
#   W3  bench_execs 500 /bin/true           fork + exec + exit + wait
#   W6  bench_spawn 2000 2 bench_noop       a flood of short-lived processes
#   W7  bench_openok 200000 TMP/file        successful opens of an ordinary file
#   W8  bench_openok 200000 /etc/shadow     successful opens of a watched file
#   W9  bench_connect 20000                 refused TCP connects to loopback
#   W10 bench_spawn 1000 2 /bin/true        an exec flood of a dynamic program
# For each workload it prints every program that ran: runs per round and ns
# per run, a column pair per build, and a last row with all the programs'
# time divided by the workload's events (ns per syscall, openat or process:
# the BPF time one event costs, both threads counted for W5).
#
# Only the programs of the process measured count (their fds, from
# /proc/PID/fdinfo), not other tracers on the machine; but they run for
# every process, so other activity on the machine shows in the runs. The
# sensor's JSON goes to a file in a temporary directory (it refuses
# /dev/null). The statistics
# themselves add a few tens of ns per run (two clock reads): compare
# programs and builds with each other and with the floor, not with zero.
set -euo pipefail

usage() {
	echo "usage: $0 [--rounds N] [--quick] [BUILD_DIR...]   (N >= 1, default 3; run as root)" >&2
	exit 2
}

ROUNDS=3
QUICK=0
BUILDS=()
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds)
		[ $# -ge 2 ] || usage
		[[ "$2" =~ ^[1-9][0-9]*$ ]] || usage
		ROUNDS=$2
		shift 2
		;;
	--quick)
		QUICK=1
		shift
		;;
	-h | --help) usage ;;
	-*) usage ;;
	*)
		BUILDS+=("$1")
		shift
		;;
	esac
done
[ "${#BUILDS[@]}" -gt 0 ] || BUILDS=(build)
[ "${#BUILDS[@]}" -le 26 ] || usage

die() {
	echo "bpf_costs.sh: error: $*" >&2
	exit 1
}
[ "$(id -u)" = 0 ] || die "must run as root"
command -v bpftool >/dev/null || die "bpftool not found (scripts/install-deps.sh)"
for k in "${!BUILDS[@]}"; do
	[ -x "${BUILDS[$k]}/plumbline" ] || die "${BUILDS[$k]}/plumbline not built"
	BUILDS[k]=$(cd "${BUILDS[$k]}" && pwd)
done
BENCH="${BUILDS[0]}/tests/bench"
for f in bench_floor bench_getppid bench_threads2 bench_failopen bench_execs bench_spawn bench_noop bench_openok bench_connect; do
	[ -x "$BENCH/$f" ] || die "$BENCH/$f not built (PL_TESTS=ON)"
done
FAILPATH=/nonexistent/plumbline-bench
[ ! -e "$FAILPATH" ] || die "$FAILPATH exists; W2 needs a path that does not"

if [ "$QUICK" = 1 ]; then
	N1=200000 N5=200000 N2=50000 N3=100 N6=500 N7=50000 N8=50000 N9=5000 N10=300
else
	N1=1000000 N5=1000000 N2=200000 N3=500 N6=2000 N7=200000 N8=200000 N9=20000 N10=1000
fi
W8_PATH=/etc/shadow # watched; /etc/passwd is not
[ -r "$W8_PATH" ] || die "W8 needs $W8_PATH readable"
WORKLOADS=(W1 W5 W2 W7 W8 W9 W3 W6 W10)
[ "$(nproc)" -ge 2 ] || WORKLOADS=(W1 W2 W7 W8 W9 W3 W6 W10) # W5 needs two CPUs
declare -A DESC=([W1]="bench_getppid $N1" [W5]="bench_threads2 $N5 (2 threads, 2 CPUs)"
	[W2]="bench_failopen $N2 $FAILPATH" [W3]="bench_execs $N3 /bin/true" [W6]="bench_spawn $N6 2 bench_noop"
	[W7]="bench_openok $N7 TMP/file" [W8]="bench_openok $N8 $W8_PATH" [W9]="bench_connect $N9"
	[W10]="bench_spawn $N10 2 /bin/true")
# events: what the last row divides all the programs' time by
declare -A EVENTS=([W1]=$N1 [W5]=$((2 * N5)) [W2]=$N2 [W3]=$N3 [W6]=$N6 [W7]=$N7 [W8]=$N8 [W9]=$N9 [W10]=$N10)
declare -A EVNAME=([W1]=syscall [W5]=syscall [W2]=openat [W3]=process [W6]=process [W7]=open [W8]=open
	[W9]=connect [W10]=process)
run_workload() {
	case "$1" in
	W1) "$BENCH/bench_getppid" "$N1" ;;
	W5) "$BENCH/bench_threads2" "$N5" ;;
	W2) "$BENCH/bench_failopen" "$N2" "$FAILPATH" ;;
	W3) "$BENCH/bench_execs" "$N3" /bin/true ;;
	W6) "$BENCH/bench_spawn" "$N6" 2 "$BENCH/bench_noop" ;;
	W7) "$BENCH/bench_openok" "$N7" "$TMP/file" ;;
	W8) "$BENCH/bench_openok" "$N8" "$W8_PATH" ;;
	W9) "$BENCH/bench_connect" "$N9" ;;
	W10) "$BENCH/bench_spawn" "$N10" 2 /bin/true ;;
	esac
}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/plumbline-bpfcosts.XXXXXX")
echo plumbline >"$TMP/file" # W7's ordinary file
prev=$(sysctl -n kernel.bpf_stats_enabled)
pid=""
stop() {
	[ -n "$pid" ] || return 0
	kill -INT "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	pid=""
}
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	stop
	sysctl -qw kernel.bpf_stats_enabled="$prev"
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
sysctl -qw kernel.bpf_stats_enabled=1

# Instrumentations: "floor", and 0, 1, ... for the builds' sensors.
INSTRS=(floor "${!BUILDS[@]}")
LETTERS=ABCDEFGHIJKLMNOPQRSTUVWXYZ
label() { if [ "$1" = floor ]; then echo floor; else echo "${LETTERS:$1:1}"; fi; } # 0 -> A
start() { # INSTR
	local log="$TMP/$1.log" ready
	if [ "$1" = floor ]; then
		"$BENCH/bench_floor" >"$log" 2>&1 &
		ready='^ready$'
	else
		# a state directory per build, kept across rounds
		"${BUILDS[$1]}/plumbline" run --no-live --no-syslog --state-dir "$TMP/state.$1" --json "$TMP/out.$1.json" \
			2>"$log" &
		ready="info: attached:"
	fi
	pid=$!
	for _ in $(seq 300); do
		grep -q "$ready" "$log" 2>/dev/null && return 0
		kill -0 "$pid" 2>/dev/null || die "$(label "$1") exited: $(tail -n 3 "$log" | tr '\n' ' ')"
		sleep 0.1
	done
	die "$(label "$1") not attached after 30 s"
}
# snap PID: "prog_id run_cnt run_time_ns" for each BPF program the process
# holds an fd of (link fds name a prog_id too, but carry no run_cnt).
snap() {
	# the sensor opens and closes other fds meanwhile: one gone between the
	# glob and the read makes grep exit 2, which is not an error here
	{ grep -sHE '^(prog_id|run_cnt|run_time_ns):' /proc/"$1"/fdinfo/* || true; } |
		awk -F: '{ v = $3; gsub(/[ \t]/, "", v); f[$1, $2] = v; fds[$1] = 1 }
			END { for (fd in fds) if ((fd, "run_cnt") in f) print f[fd, "prog_id"], f[fd, "run_cnt"], f[fd, "run_time_ns"] }' |
		sort -u -n -k1,1
}
declare -A NAME CNT NS SEEN
prog_name() { # ID
	if [ -z "${NAME[$1]:-}" ]; then
		NAME[$1]=$(bpftool prog show id "$1" 2>/dev/null | sed -n 's/.*  name \([^ ]*\) .*/\1/p' | head -n 1)
		: "${NAME[$1]:=prog-$1}"
	fi
	echo "${NAME[$1]}"
}

log() { echo "$*" >&2; }
log "BPF program costs: $ROUNDS rounds, $(nproc) CPUs, kernel $(uname -r)$([ "$QUICK" = 1 ] && echo ', quick sizes')"
for w in "${WORKLOADS[@]}"; do run_workload "$w"; done # warm-up: page cache, first execs
for ((r = 0; r < ROUNDS; r++)); do
	n=${#INSTRS[@]}
	for ((k = 0; k < n; k++)); do
		i=${INSTRS[$(((k + r) % n))]}
		log "round $((r + 1))/$ROUNDS: $(label "$i")"
		start "$i"
		for w in "${WORKLOADS[@]}"; do
			snap "$pid" >"$TMP/before"
			run_workload "$w" || die "workload $w failed"
			snap "$pid" >"$TMP/after"
			while read -r id c t; do
				name=$(prog_name "$id")
				key="$i|$w|$name"
				CNT[$key]=$((${CNT[$key]:-0} + c))
				NS[$key]=$((${NS[$key]:-0} + t))
				SEEN[$name]=1
			done < <(awk 'NR == FNR { c[$1] = $2; t[$1] = $3; next }
				{ dc = $2 - c[$1]; if (dc > 0) print $1, dc, $3 - t[$1] }' "$TMP/before" "$TMP/after")
		done
		stop
	done
done

# ---- report --------------------------------------------------------------
table() { # TSV on stdin -> Markdown table, first column left-aligned
	awk -F'\t' '
	{ for (i = 1; i <= NF; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } if (NF > nf) nf = NF }
	END {
		for (r = 1; r <= NR; r++) {
			line = "|"
			for (i = 1; i <= nf; i++)
				line = line sprintf(" %" (i == 1 ? "-" : "") w[i] "s |", c[r, i])
			print line
			if (r == 1) {
				line = "|"
				for (i = 1; i <= nf; i++) {
					d = ""
					for (k = 0; k < w[i]; k++) d = d "-"
					line = line (i == 1 ? "-" d "-|" : "-" d ":|")
				}
				print line
			}
		}
	}'
}
commit_of() {
	local src
	src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$1/CMakeCache.txt" 2>/dev/null) || true
	if [ -n "$src" ] && git -C "$src" rev-parse --short HEAD >/dev/null 2>&1; then
		echo "$(git -C "$src" rev-parse --short HEAD)$(git -C "$src" diff --quiet HEAD -- . 2>/dev/null || echo ' + uncommitted changes')"
	else
		echo "unknown commit"
	fi
}

echo
echo "BPF program costs: $(nproc) CPUs, kernel $(uname -r), $ROUNDS rounds$([ "$QUICK" = 1 ] && echo ', QUICK sizes'), kernel.bpf_stats_enabled=1"
echo "floor: $BENCH/bench_floor (empty programs on tp_btf/sys_enter, the open and mmap syscall tracepoints, sock:inet_sock_set_state)"
for b in "${!BUILDS[@]}"; do
	echo "$(label "$b"): ${BUILDS[$b]}/plumbline ($(commit_of "${BUILDS[$b]}"))"
done
echo "Runs count every process on the machine, not only the workload's: where they exceed what the workload"
echo "makes (W1: one sys_enter per syscall), other activity is in the figures."
mapfile -t PROGS < <(printf '%s\n' "${!SEEN[@]}" | sort)
for w in "${WORKLOADS[@]}"; do
	echo
	echo "$w: ${DESC[$w]}: runs per round, ns per run"
	{
		printf 'program'
		for i in "${INSTRS[@]}"; do printf '\t%s runs\t%s ns/run' "$(label "$i")" "$(label "$i")"; done
		echo
		for p in "${PROGS[@]}"; do
			row="" any=0
			for i in "${INSTRS[@]}"; do
				c=${CNT[$i|$w|$p]:-0} t=${NS[$i|$w|$p]:-0}
				if [ "$c" -gt 0 ]; then
					any=1
					row+=$(awk -v c="$c" -v t="$t" -v r="$ROUNDS" 'BEGIN { printf("\t%.0f\t%.1f", c / r, t / c) }')
				else
					row+=$'\t-\t-'
				fi
			done
			[ "$any" = 0 ] || printf '%s%s\n' "$p" "$row"
		done
		printf 'all programs, ns per %s' "${EVNAME[$w]}"
		for i in "${INSTRS[@]}"; do
			t=0
			for p in "${PROGS[@]}"; do t=$((t + ${NS[$i|$w|$p]:-0})); done
			awk -v t="$t" -v r="$ROUNDS" -v e="${EVENTS[$w]}" 'BEGIN { printf("\t\t%.1f", t / r / e) }'
		done
		echo
	} | table
done
[ "$(nproc)" -ge 2 ] || echo "W5: n/a: one CPU"
