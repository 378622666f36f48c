#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_quiet.py - "Quiet": ordinary work raises nothing.

The test starts the real sensor with the SHIPPED rules, unmodified (the
default without --rules), a fresh state directory, process and window
records, and then runs quiet_workload.sh (package queries, git, bash and dash
scripts, coreutils, compression, python3, a small cmake + make -j2 C build,
ps/top/ip/ss), one pass per child process:

  1. learning: LEARN_PASSES passes. The sensor runs with --min-samples 5 (the
     default is 20) so that every binary the workload runs at least once a
     pass has a ready lifetime baseline after five passes; nothing else is
     changed (windows keep --min-windows 60);
  2. after learning: AFTER_PASSES more passes of the same work.

Only the workload's own processes count: the descendants of each pass's
process, from the ppid of the sensor's records (other engineers' sensors and
builds may run on the same machine; what they cause is listed, not asserted).

Every match counts, not only the first of a rule's throttle window: after the
run, the records are replayed (`plumbline replay`) through a copy of the
shipped rules with every throttle set to 0, and each live alert must be among
the replay's matches. Asserted: no match at Warning or above on the workload's
processes during the whole run, and none at Notice or above after learning.
Printed: for every shipped rule, its priority, when it is judged, its matches
during learning and after over the number of the workload's records of that
kind the rule judged (a false-alert rate per rule), and the live alerts; then
every (rule, binary, phase) that matched, with one example output.

argv: PLUMBLINE_BINARY [QUIET_WORKLOAD_SH]. Environment: QUIET_LEARN_PASSES and
QUIET_AFTER_PASSES change the number of passes (defaults 5 and 3). Needs root
and BPF; without them it skips (exit 77) with the reason, unless
PLUMBLINE_REQUIRE_BPF=1. PLUMBLINE_KEEP_TEST_FILES keeps its directory
(records, sensor log, state). Under ctest the records also go to
PLUMBLINE_TEST_RECORDS_DIR, which the schema_records test validates.
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import time

SENSOR = os.path.abspath(sys.argv[1])
WORKLOAD = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else
                           os.path.join(os.path.dirname(__file__), "quiet_workload.sh"))
LEARN_PASSES = int(os.environ.get("QUIET_LEARN_PASSES", "5"))
AFTER_PASSES = int(os.environ.get("QUIET_AFTER_PASSES", "3"))
MIN_SAMPLES = 5
# Falco's priorities, most severe first; the severity number is the index
PRIORITIES = ["Emergency", "Alert", "Critical", "Error", "Warning", "Notice", "Informational", "Debug"]
WARNING, NOTICE = PRIORITIES.index("Warning"), PRIORITIES.index("Notice")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, fail, finish, log, skip, Sensor as _Sensor  # noqa: E402


def Sensor(d):
    return _Sensor(d, "sensor", SENSOR, extra=("--process-records", "--window-records", "--map-records", "--min-samples",
                                                 str(MIN_SAMPLES)))


def run_pass(phase, n):
    t = time.monotonic()
    p = subprocess.Popen(["/bin/bash", WORKLOAD, "1"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    _, err = p.communicate(timeout=120)
    if p.returncode != 0:
        fail(f"{phase} pass {n}: the workload exited {p.returncode}: {err.strip()[-2000:]}")
    log(f"{phase} pass {n}: pid {p.pid}, {time.monotonic() - t:.1f} s")
    return p.pid


def wait_record_of(sensor, pid, timeout=15):
    """Until the sensor has written the process record of pid's image (so, of all its children first)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if any(r.get("type") == "process" and r.get("pid") == pid for r in sensor.records()):
            return True
        time.sleep(0.2)
    return False


def replay_unthrottled(rules, records, d):
    """Every match of the shipped rules on records: their files copied with every throttle set to 0."""
    rdir = os.path.join(d, "rules-unthrottled")
    os.makedirs(rdir, exist_ok=True)
    for path in sorted({ru["file"] for ru in rules}):
        with open(path) as f:
            text = re.sub(r"(?m)^(\s*)throttle:.*$", r"\1throttle: 0", f.read())
        with open(os.path.join(rdir, os.path.basename(path)), "w") as f:
            f.write(text)
    # the shared lists and macros (00-common.yaml) hold no rule, so rules list names no file of theirs
    src = os.path.dirname(rules[0]["file"])
    for name in os.listdir(src):
        if name.endswith(".yaml") and not os.path.exists(os.path.join(rdir, name)):
            shutil.copyfile(os.path.join(src, name), os.path.join(rdir, name))
    r = subprocess.run([SENSOR, "replay", records, "--rules", rdir, "--json"], capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0:
        fail(f"plumbline replay exited {r.returncode}: {r.stderr[-2000:]}")
    out = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]
    return [a for a in out if a.get("type") == "alert"]


def phases_of(recs, roots):
    """pid -> phase for every process descended from a pass's root (roots: pid -> phase), by ppid."""
    phase = dict(roots)
    children = collections.defaultdict(set)
    for r in recs:
        if r.get("type") in ("process", "exec", "window") and isinstance(r.get("pid"), int):
            if isinstance(r.get("ppid"), int) and r["pid"] != r["ppid"]:
                children[r["ppid"]].add(r["pid"])
    pending = list(roots)
    while pending:
        p = pending.pop()
        for c in children.get(p, ()):
            if c not in phase:
                phase[c] = phase[p]
                pending.append(c)
    return phase


def main():
    sl.need_bpf("the sensor loads BPF")
    for tool in ("git", "make", "cc", "xz", "gzip", "tar", "dpkg", "ps", "ip", "ss"):
        if not shutil.which(tool):
            skip(f"no {tool}: the workload needs it")
    if not os.access("/usr/bin/python3", os.X_OK):
        skip("no /usr/bin/python3")

    r = subprocess.run([SENSOR, "rules", "list", "--json"], capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        print(f"FAIL: plumbline rules list: {r.stderr}", file=sys.stderr)
        sys.exit(1)
    rules = [x for x in json.loads(r.stdout) if x.get("enabled")]

    d = sl.temp_dir("pl-quiet-")
    sensor = None
    ok = False
    try:
        sensor = Sensor(d)
        log(f"sensor ready (pid {sensor.p.pid}); {len(rules)} shipped rules; {LEARN_PASSES} learning passes, "
            f"{AFTER_PASSES} after; --min-samples {MIN_SAMPLES}")
        roots = {}
        for i in range(LEARN_PASSES):
            roots[run_pass("learning", i + 1)] = "learning"
        for i in range(AFTER_PASSES):
            roots[run_pass("after", i + 1)] = "after"
        last = list(roots)[-1]
        if not wait_record_of(sensor, last):
            fail(f"no process record of the last pass (pid {last})")
        time.sleep(1.5)  # the last window tick and exit judgements
        sensor.stop()
        recs = sensor.records()
        phase = phases_of(recs, roots)

        # what each rule judged: the workload's records of the moment it is evaluated at
        judged = {ph: collections.Counter() for ph in ("learning", "after")}
        for rec in recs:
            t = rec.get("type")
            if t in ("process", "exec", "window", "map", "file") and rec.get("pid") in phase:
                judged[phase[rec["pid"]]][{"process": "exit"}.get(t, t)] += 1
        if not judged["after"]["exit"]:
            fail("no process record of the workload after learning")

        alerts = [a for a in recs if a.get("type") == "alert"]
        ours = [a for a in alerts if a.get("pid") in phase]
        # every match, not only the first per (rule, binary) and throttle window: the same records
        # replayed through the shipped rules with their throttles set to 0 (a repeat held back is
        # a false alert too, and the live summaries cannot say whose process it was)
        matches = [a for a in replay_unthrottled(rules, sensor.json, d) if a.get("pid") in phase]
        missed = {(a["rule"], a["pid"]) for a in ours} - {(a["rule"], a["pid"]) for a in matches}
        if missed:
            fail(f"live alerts that the replay does not reproduce: {sorted(missed)}")

        # how ready the workload's baselines were after learning
        after_exit = [x for x in recs if x.get("type") == "process" and phase.get(x.get("pid")) == "after"]
        ready = sum(1 for x in after_exit if (x.get("baseline") or {}).get("ready"))
        log(f"workload records: learning {dict(judged['learning'])}, after {dict(judged['after'])}; "
            f"after learning {ready} of {len(after_exit)} process records had a ready baseline")

        # the table: a false-alert rate per shipped rule
        print(f"\n{'rule':50} {'priority':13} {'when':11} {'learning':>18} {'after':>18} {'live':>5}")
        for ru in rules:
            whens = ru["when"].split(",")
            cells = []
            for ph in ("learning", "after"):
                m = [a for a in matches if a["rule"] == ru["name"] and phase[a["pid"]] == ph]
                n = sum(judged[ph][w] for w in whens)
                cells.append(f"{len(m)}/{n} {100.0 * len(m) / n if n else 0:.1f}%")
            live = sum(1 for a in ours if a["rule"] == ru["name"])
            print(f"{ru['name'][:50]:50} {ru['priority']:13} {ru['when']:11} {cells[0]:>18} {cells[1]:>18} {live:>5}")
        print("(matches / the workload's records judged at that moment; live: alerts the sensor raised, "
              "after its throttles)\n")

        by = collections.Counter((a["rule"], a.get("exe"), phase[a["pid"]]) for a in matches)
        for (rule, exe, ph), n in sorted(by.items()):
            ex = next(a for a in matches if a["rule"] == rule and a.get("exe") == exe and phase[a["pid"]] == ph)
            log(f"{ph}: {n}x {ex['priority']} {rule!r} on {exe}, e.g. {ex.get('output')}")
        others = collections.Counter((a["rule"], a.get("exe")) for a in alerts if a.get("pid") not in phase)
        if others:
            log(f"not asserted, outside the workload: {dict(others)}")

        bad = [a for a in matches if PRIORITIES.index(a["priority"]) <= WARNING]
        bad += [a for a in matches if phase[a["pid"]] == "after" and PRIORITIES.index(a["priority"]) == NOTICE]
        if bad:
            fail(f"{len(bad)} alerts at Warning or above (any phase) or Notice (after learning) on ordinary work: "
                 f"{sorted(collections.Counter((a['rule'], a.get('exe')) for a in bad).items())}")
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        finish([sensor], d, ok)


if __name__ == "__main__":
    main()
