#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
armed_time.py - how long a fresh sensor at its defaults takes to be armed, per
rule family (docs/baselines.md#armed), on ordinary work.

Starts `plumbline run` with a fresh state directory and runtime directory and
no other option but --no-live, runs quiet_workload.sh pass after pass for
SECONDS (default 600), reads status.json every 10 s and prints, per family,
when it was first armed and its active ready/learning counts at the end.
Other work on the machine counts too (its binaries are active): that is what
"armed" means on a real host.

usage: armed_time.py PLUMBLINE QUIET_WORKLOAD_SH [SECONDS] [-- EXTRA SENSOR OPTIONS]
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    plumbline, workload = args[0], args[1]
    seconds = float(args[2]) if len(args) > 2 else 600
    d = tempfile.mkdtemp(prefix="pl-armed-")
    rt = os.path.join(d, "run")
    os.makedirs(rt)
    log = open(os.path.join(d, "sensor.log"), "w")
    s = subprocess.Popen([plumbline, "run", "--no-live", "--state-dir", os.path.join(d, "state"),
                          "--runtime-dir", rt, "--json", os.path.join(d, "records.jsonl"), "--no-syslog", *extra],
                         stdout=log, stderr=log)
    first = {}
    last = {}
    passes = 0
    try:
        t0 = time.monotonic()
        w = None
        next_read = t0
        while time.monotonic() - t0 < seconds:
            if w is None or w.poll() is not None:
                if w is not None:
                    passes += 1
                w = subprocess.Popen(["bash", workload], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if s.poll() is not None:
                print(f"the sensor ended at {time.monotonic() - t0:.0f} s: exit {s.returncode}", flush=True)
                break
            if time.monotonic() >= next_read:
                next_read += 10
                try:
                    with open(os.path.join(rt, "status.json")) as f:
                        st = json.load(f)
                except (OSError, ValueError):
                    time.sleep(0.5)
                    continue
                if int(time.monotonic() - t0) % 60 < 10:
                    print(f"[{time.monotonic() - t0:6.0f} s] " + ", ".join(
                        f"{x['family']} {x['ready_pct']}%" for x in (st.get("learning") or {}).get("families", [])),
                        flush=True)
                for fam in (st.get("learning") or {}).get("families", []):
                    last[fam["family"]] = fam
                    if fam["armed"] and fam["family"] not in first:
                        first[fam["family"]] = time.monotonic() - t0
                        print(f"[{time.monotonic() - t0:6.0f} s] {fam['family']} armed: "
                              f"{fam['active_ready']} of {fam['active_ready'] + fam['active_learning']} ready",
                              flush=True)
            time.sleep(0.5)
        if w is not None and w.poll() is None:
            w.wait(120)
            passes += 1
    finally:
        s.terminate()
        s.wait(60)
        log.close()
    print(f"{passes} passes of the workload in {seconds:.0f} s; per family (at the end):")
    for name, fam in last.items():
        at = f"armed at {first[name]:.0f} s" if name in first else "not armed"
        print(f"  {name:14s} {at:18s} {fam['ready_pct']}% of samples ready; {fam['active_ready']} of "
              f"{fam['active_ready'] + fam['active_learning']} active recurring baselines ready")
    shutil.rmtree(d, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
