#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_clock_step.py - CLOCK_REALTIME stepped back 1 h during a run.

The sensor measures with CLOCK_MONOTONIC and stamps records with
real time (mono_to_real(), read again for each stamp), so a step moves the
stamps and nothing else. Asserted:
  - the sensor keeps running and stats records keep coming every second
    through the step (uptime_ns strictly increasing, in steps of ~1 s);
  - no negative duration in any record: process and window records'
    durations (cpu, off-CPU, run queue, blocked, wall) never wrap, and a
    window's duration_ns stays below the run's length;
  - records stamped after the step carry the stepped time (about 1 h
    earlier), as docs/operations.md says;
  - a rule throttled for an hour (on this NOOP's exits, beside the shipped
    rules) alerts once for the runs before the step and not again for the
    runs after it: its window runs on a clock the step does not move.
The real clock is restored in a `finally:` from CLOCK_MONOTONIC: the real
time at the start plus the monotonic time elapsed since.
usage: test_clock_step.py PLUMBLINE NOOP
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenario"))
import scenario_lib as sl  # noqa: E402

STEP_NS = 3600 * 10**9
PROBE = "Clock step throttle probe"
SHIPPED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "rules", "default")


def main():
    plumbline, noop = sys.argv[1:3]
    sl.need_bpf("the sensor's BPF and clock_settime need root")
    d = sl.temp_dir("pl-clock-")
    s = None
    ok = False
    stepped = False
    real0, mono0 = time.clock_gettime_ns(time.CLOCK_REALTIME), time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    try:
        probe = os.path.join(d, "probe.yaml")
        with open(probe, "w") as f:
            f.write(f"- rule: {PROBE}\n  desc: d\n  condition: proc.exe = {os.path.realpath(noop)}\n"
                    "  output: \"noop %proc.pid\"\n  priority: NOTICE\n  when: exit\n  throttle: 3600\n")
        s = sl.Sensor(d, "clock", plumbline, extra=["--no-baselines", "--stats-interval", "1",
                                                             "--window-records", "--rules", SHIPPED,
                                                             "--rules", probe])
        for _ in range(5):
            subprocess.run([noop])
        time.sleep(2.2)
        t_step = time.clock_gettime_ns(time.CLOCK_REALTIME)
        time.clock_settime_ns(time.CLOCK_REALTIME, t_step - STEP_NS)
        stepped = True
        sl.log("CLOCK_REALTIME stepped back 1 h")
        for _ in range(5):
            subprocess.run([noop])
        time.sleep(3.2)
        if s.p.poll() is not None:
            sl.fail("the sensor exited after the clock step: " + s.log_text())
        s.stop()
        recs = s.records()
        stats = [r for r in recs if r.get("type") == "stats"]
        if len(stats) < 5:
            sl.fail(f"only {len(stats)} stats records across the step")
        up = [r["uptime_ns"] for r in stats]
        for a, b in zip(up, up[1:]):
            if b <= a:
                sl.fail(f"uptime_ns went backwards: {a} then {b}")
        after = [r for r in stats if r["time_ns"] < t_step - STEP_NS / 2]
        if not after:
            sl.fail("no stats record carries the stepped-back time")
        limit = (time.clock_gettime_ns(time.CLOCK_MONOTONIC) - mono0) + 10**9
        n = 0
        durations = ("duration_ns", "wall_ns", "cpu_ns", "offcpu_ns", "runq_ns", "blocked_ns")
        for r in recs:
            if r.get("type") not in ("process", "window"):
                continue
            for k in durations:
                v = r.get(k)
                if isinstance(v, int):
                    n += 1
                    # a negative difference in u64 would wrap past 2^63; processes older
                    # than the sensor may have lived longer than the test
                    if v < 0 or v >= 2**62:
                        sl.fail(f"{r['type']} {k} = {v}: a negative duration, wrapped")
            if r.get("type") == "window" and isinstance(r.get("duration_ns"), int):
                if not 0 <= r["duration_ns"] <= limit:
                    sl.fail(f"{r['type']} duration_ns {r['duration_ns']} outside [0, {limit}]")
        sl.log(f"{len(stats)} stats records, {len(after)} after the step, {n} durations checked, none negative")
        probes = [r for r in recs if r.get("type") == "alert" and r.get("rule") == PROBE]
        if len(probes) != 1:
            sl.fail(f"{len(probes)} alerts of the rule throttled for 1 h across the step, not 1: "
                    f"{[(r.get('pid'), r.get('time_ns')) for r in probes]}")
        held = [r for r in recs if r.get("type") == "alert_summary" and r.get("rule") == PROBE]
        if not held or held[0].get("count", 0) < 9:
            sl.fail(f"the throttled runs were not all held back: {held}")
        sl.log(f"the throttled rule alerted once; {held[0]['count']} runs held back across the step")
        ok = True
    except sl.Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        if stepped:
            now = real0 + (time.clock_gettime_ns(time.CLOCK_MONOTONIC) - mono0)
            time.clock_settime_ns(time.CLOCK_REALTIME, now)
            sl.log("CLOCK_REALTIME restored")
        sl.finish([s], d, ok)


if __name__ == "__main__":
    sys.exit(main())
