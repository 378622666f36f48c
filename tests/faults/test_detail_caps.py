#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_detail_caps.py - bounded detail is counted, never a loss: an idle sensor
run that hits the detail caps raises no "Sensor lost events" alert, and its
exit line, stats record, metrics and alerts agree.

The real sensor at its defaults (on-CPU sampling at 49 Hz, shipped rules,
the loss alert on at its default interval, metrics on loopback) runs for
about 20 s while a few short programs run: a shell pipeline, a CPU burner
(python, many distinct stacks), and one process failing to open 600 distinct
missing paths, which is beyond an image's share of the failed-path table (a
burst of 256 new keys, then 32 per second), so fail_path_image_cap is hit
for sure. Asserted:
  - kernel_drops.fail_path_image_cap in the last stats record is at least
    600 - 256 - 32 x (seconds the failer ran + 1) (the cap was hit, counted);
  - plumbline_detail_capped_total{cause="fail_path_image_cap"} says the same
    count at the last scrape, and plumbline_losses_total has no such cause;
  - every loss counter of class lost in the stats record is 0 exactly when
    no loss alert was raised and the exit line says "nothing lost" (on an
    idle machine they are 0; a flood elsewhere on a shared machine can lose
    records for real: then the alerts sum to them and the exit line says so);
  - no loss alert names a cause of bounded detail.
usage: test_detail_caps.py PLUMBLINE
"""
import os
import re
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenario"))
import scenario_lib as sl  # noqa: E402

LOST = {  # class lost (outputs/stats_json.c): (the stats record's section, key)
    "ringbuf_full": ("kernel_drops", "ringbuf_full"),
    "proc_map_full": ("kernel_drops", "proc_map_full"),
    "fail_path_map_full": ("kernel_drops", "fail_path_map_full"),
    "thread_state": ("kernel_drops", "thread_state"),
    "invalid_records": (None, "invalid_records"),
    "proctable_full": ("userspace_drops", "proctable_full"),
    "fail_keys_unremembered": ("userspace_drops", "fail_keys_unremembered"),
    "binaries_untracked": (None, "binaries_untracked"),
}
DETAIL = ("fail_path_image_cap", "path_fault", "sample_ring_full", "stack_copy_failed", "kstack_unreadable",
          "fail_paths_displaced", "binary_paths_forgotten", "stack_table_full", "objects_refused")
PATHS = 600
FAILER = f"""
import os, time
t = time.monotonic()
for i in range({PATHS}):
    try:
        os.open("/nonexistent-pl-detail/%d" % i, os.O_RDONLY)
    except OSError:
        pass
print("%.3f" % (time.monotonic() - t))
"""
BURNER = """
import random, time
def f(n):
    return n if n < 1 else f(n - random.randint(1, 3)) + 1
end = time.monotonic() + 4
while time.monotonic() < end:
    f(random.randint(10, 300))
"""


def scrape(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        return r.read().decode()


def metric(text, name, cause):
    m = re.search(r'^%s\{cause="%s"\} (\d+)$' % (name, cause), text, re.M)
    return int(m.group(1)) if m else None


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    plumbline = sys.argv[1]
    sl.need_bpf()
    d = sl.temp_dir("pl-detail-")
    port = sl.free_port()
    s = None
    ok = False
    try:
        s = sl.Sensor(d, "idle", plumbline, extra=["--metrics", f"127.0.0.1:{port}"])
        sl.wait_for("metrics", lambda: _up(port), timeout=15)
        t0 = time.monotonic()
        subprocess.run(["sh", "-c", "ls /usr/bin | sort | head -3 >/dev/null; cat /etc/hostname >/dev/null"],
                       check=True)
        burner = subprocess.Popen([sys.executable, "-c", BURNER])
        out = subprocess.run([sys.executable, "-c", FAILER], check=True, capture_output=True, text=True)
        took = float(out.stdout.strip())
        burner.wait(30)
        # stay idle to 20 s from the start, so the loss alert's ticks (1 s) have seen everything
        time.sleep(max(0.0, 20 - (time.monotonic() - t0) - 2))
        text = scrape(port)
        s.stop()
        recs = s.records()
        stats = [r for r in recs if r.get("type") == "stats"]
        if not stats:
            sl.fail("no stats record")
        st = stats[-1]
        capped = st["kernel_drops"]["fail_path_image_cap"]
        least = PATHS - 256 - 32 * (int(took) + 1)
        sl.log(f"failer ran {took:.2f} s; fail_path_image_cap {capped} (at least {least}); "
               f"detail in the record: " + ", ".join(f"{c}={_val(st, c)}" for c in DETAIL if _val(st, c)))
        if capped < least:
            sl.fail(f"fail_path_image_cap {capped}, expected at least {least}: the cap was not hit")
        m = metric(text, "plumbline_detail_capped_total", "fail_path_image_cap")
        if m is None or m < least:
            sl.fail(f"plumbline_detail_capped_total{{cause=fail_path_image_cap}} is {m}, expected >= {least}")
        for c in DETAIL:
            if metric(text, "plumbline_losses_total", c) is not None:
                sl.fail(f"bounded detail {c} is a cause of plumbline_losses_total")
        alerts = [r for r in recs if r.get("type") == "alert" and r.get("rule") == "Sensor lost events"]
        lost = {c: (st[sec] if sec else st)[k] for c, (sec, k) in LOST.items()}
        lost["output_dropped"] = st["output"]["dropped"] if st.get("output") else 0
        nothing = re.search(r"detached after .*nothing lost", s.log_text()) is not None
        sl.log(f"lost counters {dict((c, n) for c, n in lost.items() if n)}; loss alerts {len(alerts)}; "
               f"exit line says nothing lost: {nothing}")
        for a in alerts:
            for c in DETAIL:
                if c in a["evidence"]["losses_total"]:
                    sl.fail(f"a loss alert names bounded detail {c}: {a['output']}")
        if any(lost.values()):
            # other work on a shared machine (a flood) can make even this run lose records: then the
            # alerts, the record and the exit line must still agree, and name no detail (checked above)
            sums = {}
            for a in alerts:
                for c, n in a["evidence"]["losses"].items():
                    sums[c] = sums.get(c, 0) + n
            for c, n in lost.items():
                if n and sums.get(c, 0) != n:
                    sl.fail(f"{c}: {n} lost in the stats record, {sums.get(c, 0)} in loss alerts")
            if nothing:
                sl.fail(f"the exit line says nothing lost, the stats record says {lost}")
            sl.log(f"real losses from other work on the machine ({lost}): alerts, record and exit line agree")
        else:
            if alerts:
                sl.fail(f"loss alerts with nothing lost: {[a['output'] for a in alerts]}")
            if not nothing:
                sl.fail("the exit line does not say nothing lost: " + s.log_text()[-400:])
        sl.log("detail caps hit, counted in the record and the metric; no loss alert; exit line agrees")
        ok = True
    except sl.Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        sl.finish([s], d, ok)


def _val(st, cause):
    for sec in ("kernel_drops", "userspace_drops", None, "oncpu"):
        o = st.get(sec) if sec else st
        if isinstance(o, dict) and isinstance(o.get(cause), int):
            return o[cause]
    return 0


def _up(port):
    try:
        scrape(port)
        return True
    except OSError:
        return False


if __name__ == "__main__":
    sys.exit(main())
