#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_load_procs.py - 10,000 processes alive at once are all tracked, within
the RSS bound, and nothing is lost uncounted (issue 11, load; the figures
with timing are tests/bench/load.sh's, not this test's).

bench_loadgen holds 10,000 sleeping children for a while, then SIGKILLs them.
Asserted:
  - while they sleep, the stats record's tracked_processes is at least 10,000;
  - every child has a process record at its end (ppid = the holder), or the
    missing ones are accounted as losses in the stats record (ringbuf_full,
    proc_map_full, proctable_full): records + lost >= 10,000, and none missing
    when nothing was lost;
  - the sensor's peak RSS (VmHWM) stays within 64 MiB.
pid_max is raised for the test when fewer than 12,000 pids are free, and
restored after.
usage: test_load_procs.py PLUMBLINE LOADGEN
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenario"))
import scenario_lib as sl  # noqa: E402

N = 10000
RSS_BOUND_KB = 64 * 1024
PID_MAX = "/proc/sys/kernel/pid_max"


def vm(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def children_of(ppid):
    kids = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == ppid:
                    kids.append(int(p))
        except (OSError, IndexError, ValueError):
            pass
    return kids


def main():
    plumbline, loadgen = sys.argv[1:3]
    if os.geteuid() != 0:
        sl.skip("needs root (BPF)")
    d = tempfile.mkdtemp(prefix="pl-load-")
    s = None
    ok = False
    old_pid_max = None
    holder = None
    try:
        with open(PID_MAX) as f:
            pid_max = int(f.read())
        in_use = len([p for p in os.listdir("/proc") if p.isdigit()])
        if pid_max - in_use < N + 2000:
            old_pid_max = pid_max
            with open(PID_MAX, "w") as f:
                f.write(str(max(pid_max * 2, 65536)))
            sl.log(f"pid_max raised from {pid_max} for the test")
        s = sl.Sensor(d, "procs", plumbline, "load_procs", ["--no-baselines", "--stats-interval", "1"])
        holder = subprocess.Popen([loadgen, "hold", str(N), "12"], stdout=subprocess.PIPE, text=True)
        info = json.loads(holder.stdout.readline())
        sl.log(f"holder: {info}")
        if info["children"] != N:
            sl.fail(f"only {info['children']} children started")
        time.sleep(3)
        tracked = max((r["tracked_processes"] for r in s.records() if r.get("type") == "stats"), default=0)
        hwm_held = vm(s.p.pid, "VmHWM")
        holder.wait(60)
        time.sleep(3)
        hwm = vm(s.p.pid, "VmHWM")
        s.stop()
        recs = s.records()
        st = [r for r in recs if r.get("type") == "stats"][-1]
        ended = {r["pid"] for r in recs if r.get("type") == "process" and r.get("ppid") == info["parent"]}
        lost = st["kernel_drops"]["ringbuf_full"] + st["kernel_drops"]["proc_map_full"] + \
            st["userspace_drops"]["proctable_full"]
        sl.log(f"tracked at peak {tracked}; process records of the children {len(ended)}; "
               f"lost (ringbuf, proc map, table) {lost}; VmHWM {hwm_held} kB while held, {hwm} kB at the end")
        if tracked < N:
            sl.fail(f"tracked_processes peaked at {tracked} with {N} children alive")
        if len(ended) + lost < N:
            sl.fail(f"{N - len(ended)} children have no process record and only {lost} losses are counted")
        if lost == 0 and len(ended) != N:
            sl.fail(f"nothing lost, yet {len(ended)} process records for {N} children")
        if hwm > RSS_BOUND_KB:
            sl.fail(f"peak RSS {hwm} kB above {RSS_BOUND_KB} kB")
        ok = True
    except sl.Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        if holder and holder.poll() is None:
            # the holder kills its children only at its own end: kill them here by their pids
            os.kill(holder.pid, signal.SIGSTOP)
            for p in children_of(holder.pid):
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            holder.kill()
            holder.wait()
        if old_pid_max is not None:
            with open(PID_MAX, "w") as f:
                f.write(str(old_pid_max))
            sl.log(f"pid_max restored to {old_pid_max}")
        sl.finish([s], d, ok)


if __name__ == "__main__":
    sys.exit(main())
