#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_runaway.py - the shipped "CPU runaway"
rule, with and without a baseline, on real programs.

  a. Catastrophic backtracking in a real regex engine: Debian's pcre2grep with
     JIT off (`--no-jit`) matching '(a+)+$' against "aaa...a!" pins a core.
     a1. fresh state directory, no baseline at all: the alert must come
         within 10 s (asserted with margin: 20 s), for that pid, with stacks
         evidence whose objects name the engine (libpcre2-8) with a third of
         the samples at least, and nothing above it but libc's memcpy;
     a2. a second sensor, fresh state: pcre2grep learned over quick ordinary
         runs (its lifetime baseline ready, no window baseline), then the same
         backtracking: the alert comes from the lifetime branch, within 10 s.
  b. A learned long-running service: a python3 script that wakes 20 times a
     second and sleeps (its window baseline ready after --min-windows 10
     windows), then one of its threads starts burning a core: the alert
     within 15 s (asserted with margin: 30 s), its stacks naming CPython's
     evaluation loop, marked as Python's (interp).

Nothing else at WARNING or above may fire for these processes.
Learning thresholds are lowered by the documented flags (--min-samples 10,
--min-windows 10) to keep the scenario short; the rules are the shipped ones.

argv: PLUMBLINE_BINARY. Needs root, BPF and pcre2grep (pcre2-utils); skips
(77) otherwise unless PLUMBLINE_REQUIRE_BPF=1.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

SENSOR = os.path.abspath(sys.argv[1])
RULE = "CPU runaway"
PCRE2GREP = shutil.which("pcre2grep") or "/usr/bin/pcre2grep"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, fail, finish, log, skip, Sensor as _Sensor  # noqa: E402

results = []


def Sensor(d, name):
    return _Sensor(d, name, SENSOR, extra=("--min-samples", "10", "--min-windows", "10"))


def wait_alert(sensor, pid, start, bound):
    deadline = start + 2 * bound
    while time.monotonic() < deadline:
        for r in sensor.records():
            if r.get("type") == "alert" and r.get("rule") == RULE and r.get("pid") == pid:
                return r, time.monotonic() - start
        time.sleep(0.2)
    alerts = [(r.get("rule"), r.get("pid"), r.get("exe")) for r in sensor.records() if r.get("type") == "alert"]
    fail(f"no {RULE!r} for pid {pid} within {2 * bound} s (bound {bound} s); alerts: {alerts}")


def no_other_alerts(sensor, pids, allowed):
    for r in sensor.records():
        if r.get("type") != "alert" or r.get("pid") not in pids:
            continue
        if (r.get("priority") or "").upper() in ("EMERGENCY", "ALERT", "CRITICAL", "ERROR", "WARNING") and r.get("rule") not in allowed:
            fail(f"unexpected alert {r.get('rule')!r} for pid {r.get('pid')} ({r.get('exe')}): {r.get('output')}")


def check_engine_in_stacks(a):
    st = (a.get("evidence") or {}).get("stacks")
    if not st:
        fail(f"the runaway alert has no stacks evidence: {json.dumps(a.get('evidence'))[:1500]}")
    # Samples are counted by their leaf frame's object. The interpreter
    # (--no-jit) copies its backtracking frames with libc's memcpy, which
    # takes 40-55 % of the samples run to run: the engine must hold a third
    # at least, and only libc (what it calls) may hold more.
    objs = [o.get("object") or "" for o in st.get("objects") or []]
    shares = {os.path.basename(o.get("object") or ""): o.get("share") or 0 for o in st.get("objects") or []}
    engine = next((i for i, o in enumerate(objs) if "libpcre2-8" in os.path.basename(o)), None)
    if engine is None or shares[os.path.basename(objs[engine])] < 1 / 3 or \
            any(not os.path.basename(o).startswith("libc.so") for o in objs[:engine]):
        fail(f"the regex engine (libpcre2-8) does not hold the samples beside what it calls (libc): {shares}")
    fns = st.get("functions") or []
    log(f"  stacks: objects {[os.path.basename(o) for o in objs[:3]]}, first functions "
        f"{[(os.path.basename(f.get('object') or ''), f.get('function')) for f in fns[:3]]}")


def backtrack(d):
    line = os.path.join(d, "aaa.txt")
    with open(line, "w") as f:
        f.write("a" * 34 + "!\n")  # 2^34 paths: minutes of CPU, killed after the alert
    return subprocess.Popen([PCRE2GREP, "--no-jit", "--match-limit=4000000000", "--depth-limit=1000000",
                             "(a+)+$", line], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop_proc(p):
    if p.poll() is None:
        p.kill()
        p.wait()


def case_a1(d):
    s = Sensor(d, "a1")
    try:
        start = time.monotonic()
        p = backtrack(d)
        try:
            a, t = wait_alert(s, p.pid, start, 10)
        finally:
            stop_proc(p)
        log(f"a1 no baseline: {RULE!r} for pcre2grep pid {p.pid} after {t:.1f} s: {a.get('output')}")
        results.append(("a1 pcre2grep backtracking, no baseline", t, 10))
        check_engine_in_stacks(a)
        time.sleep(1.5)
        no_other_alerts(s, {p.pid}, {RULE})
    finally:
        s.stop()


def case_a2(d):
    s = Sensor(d, "a2")
    pids = []
    try:
        words = os.path.join(d, "words.txt")
        with open(words, "w") as f:
            f.write("".join(f"line {i} alpha beta gamma\n" for i in range(200)))
        for i in range(14):
            r = subprocess.run([PCRE2GREP, "--no-jit", "-c", f"line {i}[0-9]* al", words], stdout=subprocess.DEVNULL)
            if r.returncode not in (0, 1):
                fail(f"pcre2grep exited {r.returncode}")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:  # the 14 exits learned: the baseline is ready
            ready = [r for r in s.records() if r.get("type") == "process" and (r.get("exe") or "").endswith("pcre2grep")
                     and (r.get("baseline") or {}).get("ready")]
            if ready:
                break
            subprocess.run([PCRE2GREP, "-c", "alpha", words], stdout=subprocess.DEVNULL)
            time.sleep(0.3)
        else:
            fail("pcre2grep's lifetime baseline did not become ready")
        start = time.monotonic()
        p = backtrack(d)
        pids.append(p.pid)
        try:
            a, t = wait_alert(s, p.pid, start, 10)
        finally:
            stop_proc(p)
        log(f"a2 lifetime baseline ready: {RULE!r} after {t:.1f} s: {a.get('output')}")
        results.append(("a2 pcre2grep backtracking, lifetime baseline", t, 10))
        check_engine_in_stacks(a)
        time.sleep(1.5)
        no_other_alerts(s, set(pids), {RULE})
    finally:
        s.stop()


SERVICE = r"""
import os, signal, threading, time
burn = threading.Event()
def spin():
    burn.wait()
    x = 0
    while True:
        x = (x * 31 + 7) % 1000003
signal.signal(signal.SIGUSR1, lambda *a: burn.set())
threading.Thread(target=spin, daemon=True).start()
while True:
    time.sleep(0.05)
"""


def check_python_eval_in_stacks(a):
    """The burning thread runs Python bytecode: CPython's evaluation loop
    (exported by Debian's python3.11) is among the functions on CPU, marked
    as Python's evaluation (interp), with a tenth of the samples at least
    (the rest: the int arithmetic it calls, unexported)."""
    st = (a.get("evidence") or {}).get("stacks") or {}
    fns = st.get("functions") or []
    ev = [f for f in fns if f.get("function") == "_PyEval_EvalFrameDefault"]
    log(f"  stacks: eval loop {[(f.get('interp'), round(f.get('share', 0), 3)) for f in ev]}, first functions "
        f"{[(f.get('function') or hex(f.get('offset', 0)), f.get('interp')) for f in fns[:4]]}")
    if not ev or ev[0].get("interp") != "python" or ev[0].get("share", 0) < 0.1:
        fail(f"no _PyEval_EvalFrameDefault marked python with 10 % of the samples: {json.dumps(fns)[:1500]}")
    if any(f.get("interp") not in (None, "python") for f in fns):
        fail(f"a frame of the python service marked another interpreter: {json.dumps(fns)[:1500]}")


def case_b(d):
    s = Sensor(d, "b")
    svc = None
    try:
        script = os.path.join(d, "service.py")
        with open(script, "w") as f:
            f.write(SERVICE)
        svc = subprocess.Popen(["/usr/bin/python3", script])
        # --min-windows 10: ten whole idle windows learned, with margin
        time.sleep(14)
        start = time.monotonic()
        svc.send_signal(signal.SIGUSR1)
        a, t = wait_alert(s, svc.pid, start, 15)
        log(f"b learned service: {RULE!r} after {t:.1f} s: {a.get('output')}")
        results.append(("b learned idle service starts burning a core", t, 15))
        b = (a.get("evidence") or {}).get("baseline") or {}
        f = (b.get("features") or {}).get("cpu_ns_per_s") or {}
        if "+script:" not in (b.get("key") or "") or not f.get("p99") or f["p99"] > 1e8:
            fail(f"the service's alert was not judged against its own idle window baseline: {json.dumps(b)[:800]}")
        check_python_eval_in_stacks(a)
        no_other_alerts(s, {svc.pid}, {RULE})
    finally:
        if svc:
            stop_proc(svc)
        s.stop()


def main():
    sl.need_bpf("the sensor loads BPF")
    if not os.access(PCRE2GREP, os.X_OK):
        skip("no pcre2grep (Debian's pcre2-utils; scripts/install-deps.sh --tests installs it)")
    if not os.access("/usr/bin/python3", os.X_OK):
        skip("no /usr/bin/python3")
    d = sl.temp_dir("pl-runaway-")
    ok = False
    try:
        case_a1(d)
        case_a2(d)
        case_b(d)
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        finish([], d, ok, results)


if __name__ == "__main__":
    main()
