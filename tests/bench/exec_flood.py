# SPDX-License-Identifier: MIT
"""
exec_flood.py - issue 17's exec flood at the sensor's defaults, measured
(docs/performance.md "An exec flood by one user").

N distinct tiny static binaries (tests/faults/test_exec_flood.py's, one per
build-id) are run by `nobody` from four shell loops at once, as fast as they
go, against the real sensor with its default options (but a stats record
every second); then the sensor is watched for WAIT seconds (past the first
baseline flush, every 60 s). Printed as one JSON object: records lost
(kernel ringbuf_full), the sensor's RSS before, at its peak and after,
tracked_processes after and the processes alive, the largest gap between
stats records, baselines held, refused and evicted, and the baseline files
left in the state directory.

Usage: exec_flood.py PLUMBLINE N [WAIT] (root and BPF). The binaries are
made once under /var/tmp/pl-exec-flood-N and kept for the next run.
"""
import glob
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "faults"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenario"))
import test_exec_flood as tf  # noqa: E402
from scenario_lib import Sensor, finish, log, need_bpf, temp_dir  # noqa: E402

LOOPS = 4


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def make_binaries(n):
    where = f"/var/tmp/pl-exec-flood-{n}"
    names = [os.path.join(where, f"b{i}") for i in range(n)]
    if not os.path.exists(names[-1]):
        os.makedirs(where, 0o755, exist_ok=True)
        os.chmod(where, 0o755)
        data, at = tf.build(where)
        for i, p in enumerate(names):
            tf.copy_with_id(data, at, i + 1, p)
    return names


def main():
    plumbline, n = sys.argv[1], int(sys.argv[2])
    wait = float(sys.argv[3]) if len(sys.argv) > 3 else 75
    need_bpf()
    names = make_binaries(n)
    d = temp_dir("pl-bench-flood-")
    s = Sensor(d, "bench", plumbline, extra=["--stats-interval", "1"])
    try:
        time.sleep(3)
        before = rss_kb(s.p.pid)
        t0 = time.time()
        loop = 'for f in "$@"; do "$f"; done'
        runners = [subprocess.Popen(["/bin/sh", "-c", loop, "sh", *names[k::LOOPS]], user=tf.NOBODY,
                                    group=tf.NOBODY, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                   for k in range(LOOPS)]
        for r in runners:
            r.wait()
        t1 = time.time()
        log(f"flood: {n} execs in {t1 - t0:.1f} s")
        time.sleep(wait)
        after = rss_kb(s.p.pid)
        st = tf.stats_of(s)
        last = st[-1]
        times = [r["time_ns"] / 1e9 for r in st if r["time_ns"] / 1e9 >= t0 - 1]
        out = {
            "execs": n, "flood_s": round(t1 - t0, 1),
            "records_lost": last["kernel_drops"]["ringbuf_full"],
            "rss_kb_before": before, "rss_kb_peak": last["sensor_maxrss_kb"], "rss_kb_after": after,
            "tracked_processes_after": last["tracked_processes"], "alive": tf.alive(),
            "largest_stats_gap_s": round(max(b - a for a, b in zip(times, times[1:])), 2),
            "baselines": last["baselines"], "baseline_files": len(glob.glob(os.path.join(s.state, "baselines",
                                                                                        "*.json"))),
        }
        print(json.dumps(out))
    finally:
        finish([s], d, True)


if __name__ == "__main__":
    sys.exit(main())
