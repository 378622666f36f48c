#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_storms.py - open retry storms, with the shipped rules.

  a. A service-like process (python3) retries a missing config file in a
     tight loop: "Open retry storm" names the path and the rate, within 2 s
     of the storm's start (asserted with margin: 6 s).
  b. The same storm spread over many short-lived processes of one binary:
     `cat` run in a shell loop on a file that exists (cat's usual failures,
     the locale files it looks for, are learned as usual), then on a missing
     file: each cat fails once on it beside its usual failures, so the storm
     path is a small share of cat's failures. "Storm of a new failing path
     across processes of one binary" names it.
  c. Quiet: the usual failures alone (the cat loop on an existing file), and
     a bash that fails one open (a missing rc file) raise nothing at WARNING
     or above.
  e. The storm by a binary new to the sensor (issue 18): a `cat` the sensor
     has never seen (a copy of /bin/cat without its build-id, so its identity
     is its own content hash) starts 8 s after the sensor, in a shell loop for
     8 s (thousands of cats), each failing once on the same missing file
     beside the locale files every program fails. "Storm of a new failing
     path across processes of one binary" names it, within 2 s (asserted with
     margin: 6 s). It runs beside c's loop, which is the ordinary work that
     failed the locale files first.
  d. Not a storm: 8 running python3 processes each fail ~400 distinct paths
     a second once each (a compiler's search), after failing one shared path
     twice: the binary's failures are not "mostly" that path, so no storm
     alert at WARNING or above names them.

argv: PLUMBLINE_BINARY. Needs root and BPF; skips (77) otherwise unless
PLUMBLINE_REQUIRE_BPF=1.
"""
import json
import os
import subprocess
import sys
import time

SENSOR = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, fail, finish, log, skip, Sensor  # noqa: E402

WARN = ("EMERGENCY", "ALERT", "CRITICAL", "ERROR", "WARNING")
SERVICE = r"""
import os, sys, time
path = sys.argv[1]
go = sys.argv[2]
while not os.path.exists(go):
    time.sleep(0.05)
while True:
    try:
        open(path).close()
    except OSError:
        pass
    time.sleep(0.0005)
"""


# A search over distinct missing paths (a compiler's include path): ~150 a
# second for 3 s, each path failed once, after one shared path failed twice
# (the process's top failed path, with a count of 2).
SEARCHER = """
import os, sys, time
d, me = sys.argv[1], sys.argv[2]
for _ in range(2):
    try: open(os.path.join(d, "shared-missing.h"))
    except OSError: pass
end = time.monotonic() + 3
n = 0
while time.monotonic() < end:
    for _ in range(40):
        n += 1
        try: open(os.path.join(d, "inc%s-%d.h" % (me, n)))
        except OSError: pass
    time.sleep(0.1)
"""


TEST_DIR = None  # this run's directory: every program of the test names it in its command line


def ours(a):
    """An alert on this test's own programs at WARNING or above (not the sensor's own loss
    alert, nor other work on the machine, other tests' python3 included)."""
    exe = os.path.basename(a.get("exe") or "")
    return (a.get("when") != "sensor" and a.get("pid") != os.getpid()  # this script reads records busily
            and (a.get("priority") or "").upper() in WARN
            and (exe in ("cat", "bash") or exe.startswith("python3"))
            and TEST_DIR in json.dumps(a))


def alerts(s, rule=None):
    return [r for r in s.records() if r.get("type") == "alert" and (rule is None or r.get("rule") == rule)]


def wait_alert(s, pred, start, bound, what):
    deadline = start + 3 * bound
    while time.monotonic() < deadline:
        hit = [a for a in alerts(s) if pred(a)]
        if hit:
            return hit[0], time.monotonic() - start
        time.sleep(0.1)
    fail(f"no {what} within {3 * bound} s (bound {bound} s); alerts: "
         f"{[(a.get('rule'), a.get('pid'), a.get('exe')) for a in alerts(s)]}")


def cat_loop(d, target, seconds, cat="cat"):
    """cat TARGET as many times as it can for SECONDS, from one shell (the loop's cats share a parent)."""
    script = f'end=$(( $(date +%s) + {seconds} )); while [ $(date +%s) -lt $end ]; do ' \
             f'for i in 1 2 3 4 5 6 7 8 9 10; do {cat} "{target}"; done; done 2>/dev/null >/dev/null; true'
    return subprocess.Popen(["/bin/bash", "-c", script])


def fresh_cat(d):
    """A cat the sensor has never seen: /bin/cat without its build-id (keyed by its content hash)."""
    os.makedirs(os.path.join(d, "newbin"), mode=0o755)
    path = os.path.join(d, "newbin", "cat")
    subprocess.run(["objcopy", "--remove-section", ".note.gnu.build-id", "/bin/cat", path], check=True)
    os.chmod(path, 0o755)
    return path


def main():
    sl.need_bpf("the sensor loads BPF")
    for tool in ("/usr/bin/python3", "/bin/cat", "/bin/bash", "/usr/bin/objcopy"):
        if not os.access(tool, os.X_OK):
            skip(f"no {tool}")
    global TEST_DIR
    d = sl.temp_dir("pl-storms-")
    TEST_DIR = d
    s = None
    procs = []
    results = []
    ok = False
    try:
        newcat = fresh_cat(d)
        s = Sensor(d, "s", SENSOR, extra=("--process-records",))
        t0 = time.monotonic()
        log("sensor ready")
        # c. the usual failures of cat (and a bash failing one open) first
        exists = os.path.join(d, "present.txt")
        with open(exists, "w") as f:
            f.write("x\n")
        subprocess.run(["/bin/bash", "--rcfile", os.path.join(d, "missing-rc"), "-i", "-c", "true"],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        p = cat_loop(d, exists, 12)
        # e. meanwhile, 8 s after the sensor, the storm of a cat it has never seen
        time.sleep(max(0.0, 8 - (time.monotonic() - t0)))
        new_missing = os.path.join(d, "etc", "fresh-feature-flags.json")
        start = time.monotonic()
        e = cat_loop(d, new_missing, 8, cat=newcat)
        procs.append(e)
        a, t = wait_alert(s, lambda a: a.get("rule") == "Storm of a new failing path across processes of one binary"
                          and a.get("exe") == newcat, start, 2, "storm across the new cat's processes")
        log(f"e. after {t:.1f} s: {a.get('output')}")
        results.append(("e storm by a binary new to the sensor", t, 2))
        if new_missing not in a.get("output", ""):
            fail(f"the alert does not name {new_missing}: {a.get('output')}")
        p.wait()
        e.wait()
        fresh = [r for r in s.records() if r.get("type") == "process" and r.get("exe") == newcat]
        log(f"   {len(fresh)} new cats in 8 s, first seen {start - t0:.1f} s after the sensor")
        if len(fresh) < 200:
            fail(f"only {len(fresh)} new cat processes recorded in 8 s")
        cats = [r for r in s.records() if r.get("type") == "process" and (r.get("exe") or "").endswith("/cat")
                and r.get("exe") != newcat]
        usual = [r.get("open_failures", 0) for r in cats]
        log(f"c. {len(cats)} cats on an existing file, failed opens each: "
            f"min {min(usual) if usual else '-'} max {max(usual) if usual else '-'}")
        if len(cats) < 200:
            fail(f"only {len(cats)} cat processes recorded in 12 s")
        quiet = [a for a in alerts(s) if ours(a) and a.get("exe") != newcat]
        if quiet:
            fail(f"alerts on usual work: {[(a.get('rule'), a.get('exe'), a.get('output')) for a in quiet]}")

        # b. the storm spread over processes: each cat also fails once on a new path
        missing = os.path.join(d, "etc", "storm-feature-flags.json")
        start = time.monotonic()
        p = cat_loop(d, missing, 8)
        procs.append(p)
        a, t = wait_alert(s, lambda a: a.get("rule") == "Storm of a new failing path across processes of one binary"
                        and (a.get("exe") or "").endswith("/cat") and a.get("exe") != newcat, start, 2,
                        "storm across cat processes")
        log(f"b. after {t:.1f} s: {a.get('output')}")
        results.append(("b storm spread over cat processes", t, 2))
        if missing not in a.get("output", ""):
            fail(f"the alert does not name {missing}: {a.get('output')}")
        p.wait()
        storm_cats = [r for r in s.records() if r.get("type") == "process" and (r.get("exe") or "").endswith("/cat")
                      and missing in (r.get("cmdline") or "")]
        if storm_cats:
            r = storm_cats[-1]
            share = 1 / max(1, r.get("open_failures", 1))
            log(f"   each storm cat failed {r.get('open_failures')} opens, the storm path {share:.0%} of them")

        # a. a service retrying a missing config in a tight loop
        script = os.path.join(d, "service.py")
        with open(script, "w") as f:
            f.write(SERVICE)
        conf = os.path.join(d, "conf", "app-config.yaml")
        go = os.path.join(d, "go")
        svc = subprocess.Popen(["/usr/bin/python3", script, conf, go])
        procs.append(svc)
        time.sleep(2.5)  # a service that has been running
        start = time.monotonic()
        open(go, "w").close()
        a, t = wait_alert(s, lambda a: a.get("rule") == "Open retry storm" and a.get("pid") == svc.pid, start, 2,
                        "retry storm of the service")
        log(f"a. after {t:.1f} s: {a.get('output')}")
        results.append(("a service retrying a missing config", t, 2))
        if conf not in a.get("output", ""):
            fail(f"the alert does not name {conf}: {a.get('output')}")
        svc.kill()
        svc.wait()

        # d. not a storm: running processes of one binary each failing many
        # distinct paths once (a compiler's search paths), a shared one first
        searchers = [subprocess.Popen(["/usr/bin/python3", "-c", SEARCHER, d, str(i)]) for i in range(8)]
        procs.extend(searchers)
        for p in searchers:
            p.wait()
        time.sleep(1.5)
        pids = {p.pid for p in searchers}
        wrong = [a for a in alerts(s) if a.get("pid") in pids and ours(a)]
        if wrong:
            fail(f"a search over distinct paths called a storm: {[(a.get('rule'), a.get('output')) for a in wrong]}")
        log(f"d. 8 searchers failing distinct paths: no storm alert")
        # the service, killed within 5 s of its start once its alert came, is
        # also the short-lived process that stormed, at its exit: the same storm
        others = [a for a in alerts(s) if ours(a) and a.get("exe") != newcat and a.get("rule") not in (
            "Open retry storm", "Storm of a new failing path across processes of one binary",
            "Open retry storm across processes of one binary")
            and not (a.get("rule") == "Open retry storm in a short-lived process" and a.get("pid") == svc.pid)]
        if others:
            fail(f"other alerts: {[(a.get('rule'), a.get('exe'), a.get('output')) for a in others]}")
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        finish([s], d, ok, results)


if __name__ == "__main__":
    main()
