/* SPDX-License-Identifier: MIT */
/*
 * fields.h - every field a rule can name: its type, unit, and when it has a
 * value. docs/rules.md is generated from the same table (`plumbline rules
 * fields`), so the documentation can't drift from the code.
 *
 * Kinds (event.h): E = exec, W = window, X = exit. A field without a value
 * at some moment (no baseline yet, a window-only field at exit) is absent:
 * every comparison with an absent field is false, and `exists` tests for it.
 *
 * Each field is read from a typed sample (common/sample.h) by
 * rl_field__num(), __str() or __list(): one switch on the field id, no
 * names, so what a field means is in one place (fields.c).
 */
#ifndef PL_RULES_FIELDS_H
#define PL_RULES_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sample.h"

enum rl_type { RL_T_NUM, RL_T_BOOL, RL_T_STR, RL_T_STRLIST };

#define RL_E 1u
#define RL_W 2u
#define RL_X 4u
#define RL_EWX 7u
#define RL_WX 6u
#define RL_EX 5u
/* the event moments (common/sample.h PL_AT_FILE, _MAP, _CONNECT) */
#define RL_F 8u
#define RL_M 16u
#define RL_C 32u
#define RL_EVENTS 56u
/* every moment: what a process is (identity, ancestry, its baseline's key) */
#define RL_ANY 63u

/* X(ID, name, type, kinds, unit, description) */
#define RL_FIELDS(X)                                                                                              \
	X(EVT_WHEN, "evt.when", STR, RL_ANY, "", "when the rule runs: exec, window, exit, file, map or connect")                     \
	X(PROC_PID, "proc.pid", NUM, RL_ANY, "", "process id (thread group id)")                                   \
	X(PROC_PPID, "proc.ppid", NUM, RL_ANY, "", "parent process id")                                           \
	X(PROC_UID, "proc.uid", NUM, RL_ANY, "", "real user id")                                                  \
	X(PROC_NAME, "proc.name", STR, RL_ANY, "", "comm: the (renamable) process name")                          \
	X(PROC_EXE, "proc.exe", STR, RL_ANY, "", "executable path")                                               \
	X(PROC_EXE_NAME, "proc.exe_name", STR, RL_ANY, "", "executable file name (renaming comm can't change it)") \
	X(PROC_CMDLINE, "proc.cmdline", STR, RL_ANY, "", "command line, arguments joined by spaces (bounded)")     \
	X(PROC_FILENAME, "proc.filename", STR, RL_ANY, "", "path given to execve")                                \
	X(PROC_BUILD_ID, "proc.build_id", STR, RL_ANY, "", "ELF build-id, hex")                                   \
	X(PROC_BINARY_ID, "proc.binary_id", STR, RL_ANY, "", "baseline identity of the executable")              \
	X(PROC_CGROUP, "proc.cgroup", STR, RL_ANY, "", "cgroup v2 path")                                          \
	X(PROC_PEXE, "proc.pexe", STR, RL_ANY, "", "parent's executable path")                                    \
	X(PROC_PNAME, "proc.pname", STR, RL_ANY, "", "parent's executable file name")                             \
	X(PROC_ANAME, "proc.aname", STRLIST, RL_ANY, "", "ancestors' executable file names, parent first (up to 8)") \
	X(PROC_APATH, "proc.apath", STRLIST, RL_ANY, "", "ancestors' executable paths, parent first (up to 8)")  \
	/* baseline keys */                                                                           \
	X(PROC_SCRIPT, "proc.script", STR, RL_ANY, "", "what an interpreter runs: script path, -c/-e, or -m MODULE") \
	X(PROC_IMAGE, "proc.image", STR, RL_ANY, "", "how the image started: exec, fork or preexisting")          \
	X(PROC_PARTIAL, "proc.partial", BOOL, RL_ANY, "", "the sensor saw only part of this image")              \
	X(PROC_EXE_KIND, "proc.exe_kind", STR, RL_ANY, "",                                                      \
	  "what the executable was at exec: file, deleted (no links left) or memfd (fileless); absent for preexisting images") \
	X(PROC_EXE_TRUSTED, "proc.exe_trusted", BOOL, RL_ANY, "",                                               \
	  "the executable is the file the kernel ran, root-owned, not group/other-writable, in root-owned directories none group/other-writable: no unprivileged user could have placed it (absent when unknown)") \
	X(PROC_EXE_MEMFD_COPY_OF, "proc.exe_memfd_copy_of", STR, RL_ANY, "",                                    \
	  "for a memfd executable: the root-installed binary (the process's previous image or its parent's) it is a sealed byte-for-byte copy of, as runc re-executes itself; absent otherwise") \
	X(PROC_STDIN_PIPE, "proc.stdin_pipe", BOOL, RL_EWX, "", "its stdin was an anonymous pipe at exec (a shell pipeline)") \
	X(PROC_STDIN_WRITER, "proc.stdin_writer", STR, RL_EWX, "",                                              \
	  "the name of the executable exec'd writing that pipe (curl, for curl piped into sh; the last one exec'd on it); absent when none is known yet: the two sides exec in either order, so a rule reads it at exec, window and exit") \
	X(PROC_STDIN_WRITER_EXE, "proc.stdin_writer_exe", STR, RL_EWX, "", "that executable's path")         \
	X(PROC_EXE_AGE_S, "proc.exe_age_s", NUM, RL_ANY, "s",                                                  \
	  "how long before the image started its executable was last written (mtime); absent when unknown") \
	X(PROC_EXE_NET_WRITTEN, "proc.exe_net_written", BOOL, RL_ANY, "",                                      \
	  "the executable was opened for write (or was the stdout) of a process that had made a TCP connect, at most 10 minutes before the exec: a download run (absent for preexisting images; a #! script's own file is judged at exec)") \
	X(PROC_CONNECTED, "proc.connected", BOOL, RL_ANY, "", "the image has attempted a TCP connect")          \
	X(PROC_CONNECTS, "proc.connects", NUM, RL_WX | RL_C, "", "TCP connect attempts of the image so far")     \
	X(PROC_CONNECT_FAILURES, "proc.connect_failures", NUM, RL_WX | RL_C, "",                                \
	  "of them, those that failed (refused, reset, timed out)")                                              \
	X(PROC_CONNECT_DESTS, "proc.connect_dests", NUM, RL_WX | RL_C, "",                                       \
	  "distinct destinations (address, port) the image tried (past 256 new ones, at 32/s, every attempt counts as new)") \
	X(NET_ADDR, "net.addr", STR, RL_C, "", "the destination address (\"127.0.0.1\", \"2001:db8::1\")")          \
	X(NET_PORT, "net.port", NUM, RL_C, "", "the destination port")                                          \
	X(NET_FAMILY, "net.family", NUM, RL_C, "", "4 or 6")                                                     \
	X(NET_CLASS, "net.class", STR, RL_C, "",                                                                 \
	  "the destination's class: loopback, private (RFC 1918, 100.64/10, fc00::/7), link-local, multicast, unspecified, public") \
	X(NET_PEER, "net.peer", STR, RL_C, "",                                                                   \
	  "the peer as the baseline learns it: CLASS:tcp/PORT (\"public:tcp/443\"), PORT \"ephemeral\" when >= 32768") \
	X(NET_OUTCOME, "net.outcome", STR, RL_C, "", "connected, or failed (refused, reset, timed out)")        \
	X(PROC_CPU_MS, "proc.cpu_ms", NUM, RL_WX, "ms", "on-CPU time of the image so far")                       \
	X(PROC_WALL_MS, "proc.wall_ms", NUM, RL_WX, "ms", "age of the image")                                    \
	X(PROC_CPU_PCT, "proc.cpu_pct", NUM, RL_WX, "%", "average CPU over the image's life (100 = one core)")   \
	X(PROC_OFFCPU_MS, "proc.offcpu_ms", NUM, RL_WX, "ms", "off-CPU thread time (blocked + run queue)")       \
	X(PROC_RUNQ_MS, "proc.runq_ms", NUM, RL_WX, "ms", "time runnable but waiting for a CPU")                 \
	X(PROC_BLOCKED_MS, "proc.blocked_ms", NUM, RL_WX, "ms", "time blocked (sleeping, waiting for I/O)")     \
	X(PROC_SYSCALLS, "proc.syscalls", NUM, RL_WX, "", "syscalls made")                                       \
	X(PROC_SYSCALL, "proc.syscall", NUM, RL_WX, "", "proc.syscall[NAME]: calls of one syscall")              \
	X(PROC_OPEN_FAILURES, "proc.open_failures", NUM, RL_WX, "", "failed open/openat/openat2/creat")         \
	X(PROC_OPEN_FAILURES_UNDER, "proc.open_failures_under", NUM, RL_X, "",                                    \
	  "proc.open_failures_under[PREFIX]: failed opens of paths that start with PREFIX (/etc/ssh/: under that " \
	  "directory), of the lifetime's kept paths (its record's open_fail_paths; at exit: a window record "     \
	  "lists only the top path, proc.top_fail_path)")                                                           \
	X(PROC_FAIL_PATHS, "proc.fail_paths", NUM, RL_WX, "", "distinct paths whose open failed")                \
	X(PROC_TOP_FAIL_PATH, "proc.top_fail_path", STR, RL_WX, "", "the path that failed most")                 \
	X(PROC_TOP_FAIL_COUNT, "proc.top_fail_count", NUM, RL_WX, "", "failures of proc.top_fail_path")          \
	X(PROC_TOP_FAIL_SHARE, "proc.top_fail_share", NUM, RL_WX, "", "its share of all failed opens, 0..1")    \
	X(PROC_CTX_SWITCHES, "proc.ctx_switches", NUM, RL_WX, "", "context switches out")                        \
	X(PROC_THREADS, "proc.threads", NUM, RL_WX, "", "threads seen")                                         \
	X(PROC_CPU_SAMPLES, "proc.cpu_samples", NUM, RL_X, "", "on-CPU stack samples taken of the image (absent when sampling is off)") \
	X(PROC_ONCPU_OBJECTS, "proc.oncpu_objects", STRLIST, RL_X, "", "files its code ran in when sampled, most samples first (up to 8)") \
	X(PROC_EXIT_CODE, "proc.exit_code", NUM, RL_X, "", "exit status (absent when killed by a signal)")      \
	X(PROC_EXIT_SIGNAL, "proc.exit_signal", NUM, RL_X, "", "the signal that killed it (absent otherwise)")  \
	X(PROC_END_REASON, "proc.end_reason", STR, RL_X, "", "exit, or exec (it replaced its image)")           \
	X(WIN_SECONDS, "win.seconds", NUM, RL_W, "s", "length of the window")                                  \
	X(WIN_CPU_MS, "win.cpu_ms", NUM, RL_W, "ms", "on-CPU time in the window")                               \
	X(WIN_CPU_PCT, "win.cpu_pct", NUM, RL_W, "%", "CPU in the window (100 = one core)")                    \
	X(WIN_BUSY_S, "win.busy_s", NUM, RL_W, "s", "busy seconds of the current streak: windows in which the process was on-CPU or runnable >= 90% (and on-CPU >= 20%); one window below that holds the streak (adds nothing) once 3 busy windows came since the last one it held through; a second one ends it") \
	X(WIN_RECENT_S, "win.recent_s", NUM, RL_W, "s", "span of the image's last whole windows, up to 20 s (its first window excluded)") \
	X(WIN_RECENT_BUSY_PCT, "win.recent_busy_pct", NUM, RL_W, "%", "on-CPU and run-queue time (wanting a CPU) in those windows over their span (100 = one core)") \
	X(WIN_RECENT_CPU_PCT, "win.recent_cpu_pct", NUM, RL_W, "%", "on-CPU time alone in those windows over their span (100 = one core)") \
	X(WIN_CLONES, "win.clones", NUM, RL_W, "", "clones of this process (descendants of its binary, shells between skipped, that lived < 5 s and wanted a CPU >= half their life) that ended in those windows") \
	X(WIN_CLONE_CPU_PCT, "win.clone_cpu_pct", NUM, RL_W, "%", "on-CPU and run-queue time of those clones over the span (100 = one core)") \
	X(WIN_SYSCALLS_PER_S, "win.syscalls_per_s", NUM, RL_W, "1/s", "syscall rate in the window, per second of the window; a window shorter than 1 s counts as 1 s")             \
	X(WIN_SYSCALL_PER_S, "win.syscall_per_s", NUM, RL_W, "1/s", "win.syscall_per_s[NAME]: rate of one syscall (per window second, at least 1 s)") \
	X(WIN_OPEN_FAILURES_PER_S, "win.open_failures_per_s", NUM, RL_W, "1/s", "failed-open rate in the window, per second of the window; a window shorter than 1 s (a process's first) counts as 1 s, so one failure is at most 1/s") \
	X(AUTH_FAILED, "auth.failed", BOOL, RL_X, "",                                                            \
	  "this exit was a failed attempt: a non-zero exit code without having executed anything (a wrong password to sudo -S or su; absent for a fork child's exit or a kill by a signal)") \
	X(AUTH_FAILURES, "auth.failures", NUM, RL_X, "",                                                       \
	  "failed attempts (auth.failed) of this binary by this user in the last 60 s, this one included") \
	X(AUTH_FAILURES_PER_MIN, "auth.failures_per_min", NUM, RL_X, "1/min",                                   \
	  "their rate over their own span (at least 1 s, and never below auth.failures): a burst reads high") \
	X(AUTH_SUCCESSES, "auth.successes", NUM, RL_X, "",                                                     \
	  "exits of this binary by this user in the last 60 s that ran something (authenticated) or exited 0") \
	X(WIN_CONNECTS_PER_S, "win.connects_per_s", NUM, RL_W, "1/s", "TCP connect attempts per second of the window (at least 1 s)") \
	X(WIN_CONNECT_FAILURES_PER_S, "win.connect_failures_per_s", NUM, RL_W, "1/s", "failed TCP connects per second of the window (at least 1 s)") \
	X(WIN_CONNECT_PORTS, "win.connect_ports", NUM, RL_W, "",                                                 \
	  "destinations (address, port) the image tried for the first time in the window: distinct ports of a scan of one host") \
	X(BIN_PROCS, "bin.procs", NUM, RL_WX, "", "processes of this binary active in the last second")          \
	X(BIN_OPEN_FAILURES_PER_S, "bin.open_failures_per_s", NUM, RL_WX, "1/s",                                 \
	  "failed opens per second by all processes of this binary, last second")                                \
	X(BIN_TOP_FAIL_PATH, "bin.top_fail_path", STR, RL_WX, "", "the path that failed most for this binary, last second") \
	X(BIN_TOP_FAIL_SHARE, "bin.top_fail_share", NUM, RL_WX, "", "its share of the binary's failed opens, 0..1") \
	X(PROC_FAILS_BIN_TOP_PATH, "proc.fails_bin_top_path", BOOL, RL_WX, "",                                  \
	  "this process's own most-failed path is bin.top_fail_path: it takes part in its binary's storm (absent when either is unknown)") \
	X(BIN_STORM_PATH, "bin.storm_path", STR, RL_WX, "",                                                     \
	  "the path new to this binary (first failed by it < 10 s ago) that the most distinct processes of it failed, last second") \
	X(BIN_STORM_PATHS, "bin.storm_paths", STR, RL_WX, "",                                                   \
	  "the new paths failed by at least half as many processes as bin.storm_path, most first, comma-separated") \
	X(BIN_STORM_PROCS, "bin.storm_procs", NUM, RL_WX, "", "distinct processes of this binary that failed bin.storm_path, last second") \
	X(BIN_STORM_FAILURES_PER_S, "bin.storm_failures_per_s", NUM, RL_WX, "1/s", "failed opens per second on bin.storm_path by this binary, last second") \
	X(BIN_STORM_NEW_BINARY, "bin.storm_new_binary", BOOL, RL_WX, "",                                         \
	  "the storm was counted while the binary was new to the sensor (known less than 10 s; binagg.h)")      \
	X(BL_KEY, "baseline.key", STR, RL_ANY, "", "the baseline's key (present when one is attached)")          \
	X(BL_READY, "baseline.ready", BOOL, RL_ANY, "", "this binary's lifetime baseline is ready (enough process samples), the same at exec, window and exit")             \
	X(BL_WINDOWS_READY, "baseline.windows_ready", BOOL, RL_ANY, "", "this binary's window baseline is ready (enough windows), the same at exec, window and exit")       \
	X(BL_SAMPLES, "baseline.samples", NUM, RL_ANY, "", "process samples learned")                          \
	X(BL_FROM_PRIOR, "baseline.from_prior", BOOL, RL_WX, "", "scored against the prior (rebuilt binary)")   \
	X(BL_CPU_MS_P50, "baseline.cpu_ms.p50", NUM, RL_EWX, "ms", "median lifetime CPU (when ready)")          \
	X(BL_CPU_MS_P90, "baseline.cpu_ms.p90", NUM, RL_EWX, "ms", "p90 lifetime CPU (when ready)")             \
	X(BL_CPU_MS_P99, "baseline.cpu_ms.p99", NUM, RL_EWX, "ms", "p99 lifetime CPU (when ready)")             \
	X(BL_WALL_MS_P50, "baseline.wall_ms.p50", NUM, RL_EWX, "ms", "median lifetime (when ready)")           \
	X(BL_WALL_MS_P99, "baseline.wall_ms.p99", NUM, RL_EWX, "ms", "p99 lifetime (when ready)")              \
	X(BL_OFFCPU_MS_P50, "baseline.offcpu_ms.p50", NUM, RL_EWX, "ms", "median off-CPU time (when ready)")   \
	X(BL_OFFCPU_MS_P99, "baseline.offcpu_ms.p99", NUM, RL_EWX, "ms", "p99 off-CPU time (when ready)")      \
	X(BL_SYSCALLS_P50, "baseline.syscalls.p50", NUM, RL_EWX, "", "median syscalls per lifetime (when ready)") \
	X(BL_SYSCALLS_P99, "baseline.syscalls.p99", NUM, RL_EWX, "", "p99 syscalls per lifetime (when ready)")  \
	X(BL_OPEN_FAILURES_P50, "baseline.open_failures.p50", NUM, RL_EWX, "", "median failed opens per lifetime (when ready)") \
	X(BL_OPEN_FAILURES_P99, "baseline.open_failures.p99", NUM, RL_EWX, "", "p99 failed opens per lifetime (when ready)") \
	X(BL_WIN_CPU_MS_P50, "baseline.win_cpu_ms.p50", NUM, RL_EWX, "ms", "median CPU per second (windows ready)") \
	X(BL_WIN_CPU_MS_P99, "baseline.win_cpu_ms.p99", NUM, RL_EWX, "ms", "p99 CPU per second (windows ready)") \
	X(BL_WIN_SYSCALLS_P50, "baseline.win_syscalls.p50", NUM, RL_EWX, "1/s", "median syscall rate (windows ready)") \
	X(BL_WIN_SYSCALLS_P99, "baseline.win_syscalls.p99", NUM, RL_EWX, "1/s", "p99 syscall rate (windows ready)") \
	X(BL_WIN_OPEN_FAILURES_P99, "baseline.win_open_failures.p99", NUM, RL_EWX, "1/s", "p99 failed-open rate (windows ready)") \
	X(BL_CPU_SCORE, "baseline.cpu.score", NUM, RL_X, "", "score of this lifetime's CPU: 0 up to p99 + noise floor, then spreads beyond")  \
	X(BL_CPU_RATIO, "baseline.cpu.ratio", NUM, RL_X, "", "this lifetime's CPU / the median")               \
	X(BL_WALL_SCORE, "baseline.wall.score", NUM, RL_X, "", "score of the lifetime (as baseline.cpu.score)")                  \
	X(BL_OFFCPU_SCORE, "baseline.offcpu.score", NUM, RL_X, "", "score of the off-CPU time (as baseline.cpu.score)")          \
	X(BL_SYSCALLS_SCORE, "baseline.syscalls.score", NUM, RL_X, "", "score of the syscall count (as baseline.cpu.score)")     \
	X(BL_OPEN_FAILURES_SCORE, "baseline.open_failures.score", NUM, RL_X, "", "score of the failed opens (as baseline.cpu.score)") \
	X(BL_WIN_CPU_SCORE, "baseline.win_cpu.score", NUM, RL_W, "", "score of this window's CPU (as baseline.cpu.score)")       \
	X(BL_WIN_CPU_RATIO, "baseline.win_cpu.ratio", NUM, RL_W, "", "this window's CPU / the median")         \
	X(BL_WIN_SYSCALLS_SCORE, "baseline.win_syscalls.score", NUM, RL_W, "", "score of the syscall rate (as baseline.cpu.score)") \
	X(BL_WIN_OPEN_FAILURES_SCORE, "baseline.win_open_failures.score", NUM, RL_W, "", "score of the failed-open rate (as baseline.cpu.score)") \
	X(BL_MAX_SCORE, "baseline.max_score", NUM, RL_WX, "", "the highest score of this sample")               \
	X(BL_MAX_FEATURE, "baseline.max_feature", STR, RL_WX, "", "the feature with that score")               \
	X(BL_MAX_FEATURE_TEXT, "baseline.max_feature_text", STR, RL_WX, "",                                    \
	  "that feature in plain words: its value, the usual (median and p99), how many times the usual")      \
	X(BL_CPU_USUAL_TEXT, "baseline.cpu_usual_text", STR, RL_EWX, "",                                      \
	  "the binary's usual CPU in words (per lifetime and per second, when ready), or that it has no ready baseline") \
	X(BL_DID_SCORE, "baseline.did_score", NUM, RL_WX, "",                                                   \
	  "the highest score of what the binary did: CPU, syscalls, failed opens (not its lifetime or off-CPU time, which its caller chose)") \
	X(BL_DID_FEATURE, "baseline.did_feature", STR, RL_WX, "", "the feature with that score")               \
	X(BL_DID_TEXT, "baseline.did_text", STR, RL_WX, "", "that feature in plain words (as baseline.max_feature_text)") \
	X(BL_ANOMALOUS, "baseline.anomalous", BOOL, RL_WX, "", "a score >= alert score, or a never-seen member") \
	X(BL_NEW_FAIL_PATHS, "baseline.new_fail_paths", STRLIST, RL_X, "", "failed paths never seen (up to 8)") \
	X(BL_NEW_SYSCALLS, "baseline.new_syscalls", STRLIST, RL_X, "", "syscalls never used before (up to 8)")  \
	X(BL_ONCPU_READY, "baseline.oncpu_ready", BOOL, RL_X, "", "the on-CPU objects set is saturated (Good-Turing, docs/baselines.md)") \
	X(BL_NEW_ONCPU_OBJECTS, "baseline.new_oncpu_objects", STRLIST, RL_X, "",                                \
	  "files its code ran in that it never ran in before (up to 8; when oncpu_ready)")                       \
	X(BL_NEW_ONCPU_SAMPLES, "baseline.new_oncpu_samples", NUM, RL_X, "",                                    \
	  "samples in those files (when oncpu_ready)")                                                           \
	X(BL_PARENT_READY, "baseline.parent_ready", BOOL, RL_EX, "", "the parent's children set is saturated (Good-Turing, docs/baselines.md)")           \
	X(BL_PARENT_NEW_CHILD, "baseline.parent_new_child", BOOL, RL_EX, "",                                   \
	  "the parent binary had never executed this binary (its children set saturated)")                                \
	/* a watched file touched (when: file; docs/rules.md "Path classes") */                 \
	X(FILE_CLASS, "file.class", STR, RL_F, "", "the path class of the file touched: credentials, accounts, persistence, preload, process_memory, or a class a rules file adds") \
	X(FILE_OP, "file.op", STR, RL_F, "", "what was done: read, write (opened for writing or truncated), create (created by the open), rename (renamed onto the path)") \
	X(FILE_PATH, "file.path", STR, RL_F, "", "the file's path from the process's root (a rename: the new name as given, made absolute with the cwd when it can be)") \
	X(FILE_NAME, "file.name", STR, RL_F, "", "the file's name, its path's last component")                   \
	X(FILE_PATH_CUT, "file.path_cut", BOOL, RL_F, "", "the path was longer than 255 bytes: file.path holds its end") \
	X(FILE_TARGET_PID, "file.target_pid", NUM, RL_F, "", "for /proc/PID/mem, environ, maps of another process: PID (absent otherwise)") \
	X(FILE_TARGET_EXE, "file.target_exe", STR, RL_F, "", "that process's executable (absent when unknown)")   \
	X(BL_FILES_READY, "baseline.files_ready", BOOL, RL_F, "", "this binary's set of files touched (class:op) is saturated (Good-Turing, docs/baselines.md)") \
	X(BL_FILE_NEW, "baseline.file_new", BOOL, RL_F, "", "this binary never touched this class this way (class:op) before, once baseline.files_ready") \
	X(BL_PEERS_READY, "baseline.peers_ready", BOOL, RL_ANY, "",                                             \
	  "the binary's set of TCP peers (class:tcp/port, \"none\" for a lifetime without connects) is saturated") \
	X(BL_PEERS_NEVER, "baseline.peers_never", BOOL, RL_ANY, "",                                             \
	  "... and holds only \"none\": the binary's lifetimes never connect")                                     \
	X(BL_PEER_NEW, "baseline.peer_new", BOOL, RL_C, "", "this connect's peer (net.peer) is not in the saturated set") \
	/* read from /proc while a process waits (window) */                                   \
	X(PROC_WAITING_S, "proc.waiting_s", NUM, RL_W, "s",                                                     \
	  "seconds since the process last used CPU or made a syscall (when its wait was read)")                   \
	X(PROC_STATE, "proc.state", STR, RL_W, "",                                                              \
	  "running, sleeping, uninterruptible, stopped, traced, zombie (when its wait was read)")                \
	X(PROC_WCHAN, "proc.wchan", STR, RL_W, "", "the kernel function its first waiting thread sleeps in")   \
	X(PROC_WAIT_FRAME, "proc.wait_frame", STR, RL_W, "",                                                     \
	  "the top kernel frame of its first waiting thread (what it waits on; its wchan if no stack)")          \
	X(PROC_WAIT_FRAMES, "proc.wait_frames", STRLIST, RL_W, "",                                               \
	  "the kernel frames of its first waiting thread, innermost first (up to 8; its wchan if no stack)") \
	/* an executable object mapped (map) */                                                    \
	X(MAP_PATH, "map.path", STR, RL_M, "", "the object's path, as the kernel named the file (mounts crossed)") \
	X(MAP_NAME, "map.name", STR, RL_M, "", "its file name (the last component of map.path)")                \
	X(MAP_DIR, "map.dir", STR, RL_M, "", "its directory (map.path without its last component)")            \
	X(MAP_BUILD_ID, "map.build_id", STR, RL_M, "", "its ELF build-id, hex (absent when none)")               \
	X(MAP_BINARY_ID, "map.binary_id", STR, RL_M, "",                                                        \
	  "its identity: build-id:HEX for a file only root could have placed, else sha256:HEX of its content (absent while hashing)") \
	X(MAP_TRUSTED, "map.trusted", BOOL, RL_M, "",                                                          \
	  "root-owned, not group/other-writable, in root-owned directories none group/other-writable: no unprivileged user could have placed it (absent when it could not be checked)") \
	X(MAP_PACKAGED, "map.packaged", BOOL, RL_M, "",                                                        \
	  "an installed package owns the file (dpkg's lists; absent when unknown: no dpkg, or its index not built yet)") \
	X(MAP_PACKAGE, "map.package", STR, RL_M, "", "the package that owns it (absent when none or unknown)")   \
	X(MAP_LOCATION, "map.location", STR, RL_M, "",                                                         \
	  "where it lies: tmp: /tmp, /var/tmp, /dev/shm; home: /home, /root, /run/user; system: /usr, /lib, /opt, /etc...; other") \
	X(MAP_OWNER_UID, "map.owner_uid", NUM, RL_M, "", "the file's owner")                                    \
	X(MAP_DELETED, "map.deleted", BOOL, RL_M, "", "the file has no links left (unlinked, O_TMPFILE, memfd)") \
	X(MAP_HOW, "map.how", STR, RL_M, "", "mmap (mapped executable) or mprotect (a file mapping made executable)") \
	X(MAP_PRELOAD, "map.preload", BOOL, RL_M, "",                                                          \
	  "mapped by an exec'd dynamic image before any library its executable names (DT_NEEDED), and not one of them: LD_PRELOAD or /etc/ld.so.preload") \
	X(BL_OBJECTS_READY, "baseline.objects_ready", BOOL, RL_M, "",                                          \
	  "the set of objects this binary's images map is saturated (Good-Turing, docs/baselines.md)")          \
	X(BL_OBJECT_NEW, "baseline.object_new", BOOL, RL_M, "",                                                \
	  "the set is saturated and never held this object's path") \
	X(BL_SOURCE, "baseline.source", STR, RL_ANY, "",                                                      \
	  "whose baseline.ready, quantiles and scores these are: host (its own), prior (a rebuilt binary's predecessor), fleet (its own not ready: the fleet's, --fleet-dir)") \
	X(FL_READY, "fleet.ready", BOOL, RL_ANY, "", "the fleet's baseline of this key (the loaded role bundle, --fleet-dir) is ready, whatever the host's own") \
	X(FL_WINDOWS_READY, "fleet.windows_ready", BOOL, RL_ANY, "", "the fleet's window baseline of this key is ready") \
	X(FL_SAMPLES, "fleet.samples", NUM, RL_ANY, "", "process samples behind the fleet's baseline, over its hosts") \
	X(FL_HOSTS, "fleet.hosts", NUM, RL_ANY, "", "hosts whose exports back the fleet's baseline of this key") \
	X(FL_ROLE, "fleet.role", STR, RL_ANY, "", "the role of the loaded fleet bundle (present when it holds this key)") \
	X(FL_CPU_MS_P50, "fleet.cpu_ms.p50", NUM, RL_EWX, "ms", "the fleet's median lifetime CPU (when ready)") \
	X(FL_CPU_MS_P90, "fleet.cpu_ms.p90", NUM, RL_EWX, "ms", "the fleet's p90 lifetime CPU (when ready)") \
	X(FL_CPU_MS_P99, "fleet.cpu_ms.p99", NUM, RL_EWX, "ms", "the fleet's p99 lifetime CPU (when ready)") \
	X(FL_WALL_MS_P50, "fleet.wall_ms.p50", NUM, RL_EWX, "ms", "the fleet's median lifetime (when ready)") \
	X(FL_WALL_MS_P99, "fleet.wall_ms.p99", NUM, RL_EWX, "ms", "the fleet's p99 lifetime (when ready)") \
	X(FL_OFFCPU_MS_P50, "fleet.offcpu_ms.p50", NUM, RL_EWX, "ms", "the fleet's median off-CPU time (when ready)") \
	X(FL_OFFCPU_MS_P99, "fleet.offcpu_ms.p99", NUM, RL_EWX, "ms", "the fleet's p99 off-CPU time (when ready)") \
	X(FL_SYSCALLS_P50, "fleet.syscalls.p50", NUM, RL_EWX, "", "the fleet's median syscalls per lifetime (when ready)") \
	X(FL_SYSCALLS_P99, "fleet.syscalls.p99", NUM, RL_EWX, "", "the fleet's p99 syscalls per lifetime (when ready)") \
	X(FL_OPEN_FAILURES_P50, "fleet.open_failures.p50", NUM, RL_EWX, "", "the fleet's median failed opens per lifetime (when ready)") \
	X(FL_OPEN_FAILURES_P99, "fleet.open_failures.p99", NUM, RL_EWX, "", "the fleet's p99 failed opens per lifetime (when ready)") \
	X(FL_WIN_CPU_MS_P50, "fleet.win_cpu_ms.p50", NUM, RL_EWX, "ms", "the fleet's median CPU per second (windows ready)") \
	X(FL_WIN_CPU_MS_P99, "fleet.win_cpu_ms.p99", NUM, RL_EWX, "ms", "the fleet's p99 CPU per second (windows ready)") \
	X(FL_WIN_SYSCALLS_P50, "fleet.win_syscalls.p50", NUM, RL_EWX, "1/s", "the fleet's median syscall rate (windows ready)") \
	X(FL_WIN_SYSCALLS_P99, "fleet.win_syscalls.p99", NUM, RL_EWX, "1/s", "the fleet's p99 syscall rate (windows ready)") \
	X(FL_WIN_OPEN_FAILURES_P99, "fleet.win_open_failures.p99", NUM, RL_EWX, "1/s", "the fleet's p99 failed-open rate (windows ready)") \
	X(FL_CPU_SCORE, "fleet.cpu.score", NUM, RL_X, "", "score of this lifetime's CPU against the fleet's (as baseline.cpu.score)") \
	X(FL_CPU_RATIO, "fleet.cpu.ratio", NUM, RL_X, "", "this lifetime's CPU / the fleet's median") \
	X(FL_WALL_SCORE, "fleet.wall.score", NUM, RL_X, "", "score of the lifetime against the fleet's") \
	X(FL_OFFCPU_SCORE, "fleet.offcpu.score", NUM, RL_X, "", "score of the off-CPU time against the fleet's") \
	X(FL_SYSCALLS_SCORE, "fleet.syscalls.score", NUM, RL_X, "", "score of the syscall count against the fleet's") \
	X(FL_OPEN_FAILURES_SCORE, "fleet.open_failures.score", NUM, RL_X, "", "score of the failed opens against the fleet's") \
	X(FL_WIN_CPU_SCORE, "fleet.win_cpu.score", NUM, RL_W, "", "score of this window's CPU against the fleet's") \
	X(FL_WIN_CPU_RATIO, "fleet.win_cpu.ratio", NUM, RL_W, "", "this window's CPU / the fleet's median") \
	X(FL_WIN_SYSCALLS_SCORE, "fleet.win_syscalls.score", NUM, RL_W, "", "score of the syscall rate against the fleet's") \
	X(FL_WIN_OPEN_FAILURES_SCORE, "fleet.win_open_failures.score", NUM, RL_W, "", "score of the failed-open rate against the fleet's")

enum rl_field {
#define RL_FIELD_ENUM(id, name, type, kinds, unit, desc) RL_F_##id,
	RL_FIELDS(RL_FIELD_ENUM)
#undef RL_FIELD_ENUM
	RL_NFIELDS
};

struct rl_field_info {
	const char *name;
	enum rl_type type;
	unsigned kinds;  /* RL_E | RL_W | RL_X */
	const char *unit;
	const char *desc;
	bool param;      /* takes [NAME]: proc.syscall[openat] */
	bool param_path; /* ... a path prefix: proc.open_failures_under[/etc/ssh/] */
};

const struct rl_field_info *rl_field__info(enum rl_field f);

#define RL_LIST_MAX 8 /* entries of the longest list field */

/*
 * The value of field f in sample s. Absent (false, NULL, -1) when the
 * sample's moment is not one of the field's kinds, or the value is unknown.
 * param is the syscall number of a [NAME] field, -1 otherwise.
 *   rl_field__num:  RL_T_NUM and RL_T_BOOL (0 or 1) fields
 *   rl_field__str:  RL_T_STR fields
 *   rl_field__list: RL_T_STRLIST fields, into buf[RL_LIST_MAX]; returns the
 *                   number of entries (entries may be NULL), -1 when absent
 */
bool rl_field__num(const struct pl_sample *s, enum rl_field f, int param, double *ret);
const char *rl_field__str(const struct pl_sample *s, enum rl_field f);
int rl_field__list(const struct pl_sample *s, enum rl_field f, const char **buf);
/* Whether field f has a value in s. */
bool rl_field__exists(const struct pl_sample *s, enum rl_field f, int param);

/* The id of the field called name[0..len), or -1. */
int rl_field__lookup(const char *name, size_t len);

/* The known field name closest to name (edit distance <= 3), or NULL. */
const char *rl_field__suggest(const char *name, size_t len);

/*
 * What to write here for a Falco field name (name[0..len), one of Falco's
 * that plumbline does not have: fd.name, evt.type, user.name, container.id,
 * ...): "file.path (a watched file), map.path (...)", or NULL for a name
 * that is not Falco's. The text names plumbline fields, or says there is
 * none yet.
 */
const char *rl_field__falco_hint(const char *name, size_t len);

/* The "unknown field" message for name[0..len) into buf: with the closest
 * field, or the Falco hint, or neither. Returns buf. */
const char *rl_field__unknown_msg(const char *name, size_t len, char *buf, size_t size);

/* Syscall number of a name for [NAME] parameters, or -1. */
int rl_field__syscall_number(const char *name);

#define RL_PATH_PARAMS 256  /* distinct [PREFIX]es of path fields, over every load of the process */
#define RL_PATH_PARAM_LEN 256

/*
 * The parameter of a path field's [PREFIX] (prefix[0..len)): the same
 * number for the same prefix, kept for the process's life (a reload's
 * rules get the same numbers). -ENAMETOOLONG past RL_PATH_PARAM_LEN bytes,
 * -ENOSPC past RL_PATH_PARAMS distinct prefixes. Not thread-safe: rules are
 * compiled on one thread.
 */
int rl_field__path_param(const char *prefix, size_t len);
/* The prefix of a path parameter, or NULL. */
const char *rl_field__path_of(int param);
/* A character a path prefix may hold in [...]: letters, digits, and / . _ - + @ : ~ */
bool rl_field__path_char(char c);

const char *rl_type__name(enum rl_type t);

#endif
