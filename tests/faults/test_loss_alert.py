#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_loss_alert.py - flooding the sensor makes it lose records; every loss is
counted and the "Sensor lost events" alert says so.

The real sensor runs with the smallest ring buffer (--ringbuf-kb 64) and a
2-second loss-alert interval while two bench_loadgen flood short processes
for 3 s, the sensor stopped meanwhile (SIGSTOP: starved of CPU, as on a
saturated host), so that the ring buffer fills on any machine. A dropped record carries no pid, and other processes on the host
make records too, so the drops cannot be attributed to the flood one by one:
what is exact is the consistency of the counts. Asserted:
  - records were lost (kernel_drops.ringbuf_full > 0 in the last stats record);
  - the loss alerts' counts, summed cause by cause, equal the last stats
    record's counters of class lost (every loss reported, none twice), and
    no alert names a cause of bounded detail (the flood hits
    fail_path_image_cap: counted in the record, never alerted);
  - the final log line's "lost: N records" equals ringbuf_full + invalid_records;
  - the alerts are at least 2 s apart (the rate limit), rule "Sensor lost
    events", priority Warning, and the same alerts arrive as OCSF findings;
  - the sensor is still running after the flood (and SIGCONT) and exits 0.
usage: test_loss_alert.py PLUMBLINE LOADGEN NOOP
"""
import json
import os
import signal
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenario"))
import scenario_lib as sl  # noqa: E402

STATS_NAMES = {  # the loss alert's cause -> (the stats record's section, key): class lost
    "ringbuf_full": ("kernel_drops", "ringbuf_full"),
    "proc_map_full": ("kernel_drops", "proc_map_full"),
    "fail_path_map_full": ("kernel_drops", "fail_path_map_full"),
    "thread_state": ("kernel_drops", "thread_state"),
    "invalid_records": (None, "invalid_records"),
    "proctable_full": ("userspace_drops", "proctable_full"),
    "fail_keys_unremembered": ("userspace_drops", "fail_keys_unremembered"),
    "binaries_untracked": (None, "binaries_untracked"),
}
# bounded detail (docs/records.md#lost-and-bounded-detail): counted, never in a loss alert
DETAIL = ("fail_path_image_cap", "path_fault", "sample_ring_full", "stack_copy_failed", "kstack_unreadable",
          "fail_paths_displaced", "binary_paths_forgotten", "stack_table_full", "objects_refused")


def stat_value(st, cause):
    sec, key = STATS_NAMES[cause]
    return (st[sec] if sec else st)[key]


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    plumbline, loadgen, noop = sys.argv[1:]
    sl.need_bpf()
    d = sl.temp_dir("pl-loss-")
    ocsf = os.path.join(d, "ocsf.jsonl")
    s = None
    ok = False
    try:
        s = sl.Sensor(d, "flood", plumbline, extra=
                      ["--no-baselines", "--ringbuf-kb", "64", "--loss-alert-interval", "2", "--ocsf", ocsf])
        t = time.monotonic()
        # The sensor is stopped (SIGSTOP) while the flood runs, as a sensor
        # starved of CPU would be: on an idle machine it keeps up with two
        # flooders, and the test must lose records on any machine. The
        # kernel side keeps running and finds the ring buffer full.
        os.kill(s.p.pid, signal.SIGSTOP)
        try:
            floods = [subprocess.Popen([loadgen, "flood", "3", noop], stdout=subprocess.PIPE, text=True)
                      for _ in range(2)]
            for p in floods:
                try:
                    p.wait(60)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
                sl.log(f"flood: {p.stdout.read().strip()} in {time.monotonic() - t:.1f} s (rc {p.returncode})")
                p.stdout.close()
        finally:
            os.kill(s.p.pid, signal.SIGCONT)
        time.sleep(4)
        if s.p.poll() is not None:
            sl.fail("the sensor died under the flood: " + s.log_text())
        s.stop()
        recs = s.records()
        stats = [r for r in recs if r.get("type") == "stats"]
        alerts = [r for r in recs if r.get("type") == "alert" and r.get("rule") == "Sensor lost events"]
        if not stats:
            sl.fail("no stats record")
        st = stats[-1]
        lost = st["kernel_drops"]["ringbuf_full"]
        sl.log(f"ring buffer drops {lost}, loss alerts {len(alerts)}")
        if lost == 0:
            sl.fail("the flood lost nothing with a 64 KiB ring buffer: the test proves nothing")
        if not alerts:
            sl.fail("records were lost but no loss alert was raised")
        sums = {}
        for a in alerts:
            if a["priority"] != "Warning" or a["severity"] != 4 or a["when"] != "sensor":
                sl.fail(f"loss alert shape: {a}")
            for cause, n in a["evidence"]["losses"].items():
                sums[cause] = sums.get(cause, 0) + n
        for cause in DETAIL:
            if any(cause in a["evidence"]["losses_total"] for a in alerts):
                sl.fail(f"bounded detail {cause} in a loss alert: {alerts[-1]['evidence']}")
        for cause, n in sums.items():
            if cause in STATS_NAMES and stat_value(st, cause) != n:
                sl.fail(f"{cause}: the alerts sum to {n}, the stats record says {stat_value(st, cause)}")
        for cause in STATS_NAMES:
            if stat_value(st, cause) and sums.get(cause, 0) != stat_value(st, cause):
                sl.fail(f"{cause}: {stat_value(st, cause)} in the stats record, {sums.get(cause, 0)} in alerts")
        if alerts[-1]["evidence"]["losses_total"].get("ringbuf_full") != lost:
            sl.fail("the last alert's losses_total.ringbuf_full differs from the stats record")
        for a, b in zip(alerts, alerts[1:]):
            # the last one is the shutdown's, outside the rate limit
            if b is not alerts[-1] and b["time_ns"] - a["time_ns"] < 1_900_000_000:
                sl.fail(f"loss alerts {a['id']} and {b['id']} less than 2 s apart")
        m = re.search(r"detached after .*lost: (\d+) records", s.log_text())
        if not m or int(m.group(1)) != lost + st["invalid_records"]:
            sl.fail(f"the last log line's lost records ({m and m.group(1)}) differ from the stats record ({lost})")
        with open(ocsf) as f:
            findings = [json.loads(l) for l in f if l.strip()]
        sl.keep_records(ocsf, "flood", ocsf=True)
        titles = [x["finding_info"]["title"] for x in findings]
        if titles.count("Sensor lost events") != len(alerts):
            sl.fail(f"{len(alerts)} loss alerts, {titles.count('Sensor lost events')} OCSF findings")
        sl.log(f"alerts sum by cause {sums}, equal to the stats record; final log line agrees")
        ok = True
    except sl.Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        sl.finish([s], d, ok)


if __name__ == "__main__":
    sys.exit(main())
