#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_config_reload.py - the real sensor run from a config file (docs/config.md),
then SIGHUP after each change of it:

  0. start: `plumbline run --config FILE` and nothing else on the command
     line; the JSON output is where the file says, and the file's rule raises
     its alert (a helper, a copy of sh named plcfgexit, exits 7);
  a. the file names another rule file: applied, the new rule alerts (exit 9),
     the old one no longer does;
  b. the file is broken (an unknown key): the error is logged as
     FILE:LINE:COL, and the previous configuration keeps running: the rule of
     (a) still alerts;
  c. a key that needs a restart changed (sample-hz): logged as needing a
     restart, with the value still in use;
  d. live keys besides the rules: a new JSON path (the output reopened
     there, the next alert in it) and stats-interval (stats records appear).

Only the helper's own pids are matched, so other sensors and workloads on the
machine do not matter. About 15 s.
Usage: test_config_reload.py PLUMBLINE
"""
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, fail, finish, log, skip  # noqa: E402

RULE = """- rule: cfg exit {code}
  desc: the config test's helper exited with {code}
  condition: proc.exe_name = plcfgexit and proc.exit_code = {code}
  output: "plcfgexit exited {code} (pid %proc.pid)"
  priority: NOTICE
"""


def write_conf(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.rename(tmp, path)


def alerts(json_path):
    return [r for r in sl.read_records(json_path) if r.get("type") == "alert"]


def helper_exits(helper, code):
    p = subprocess.Popen([helper, "-c", f"exit {code}"])
    p.wait()
    return p.pid


def wait_alert(json_path, rule, pid, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        for a in alerts(json_path):
            if a.get("rule") == rule and a.get("pid") == pid:
                return a
        time.sleep(0.2)
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    plumbline = os.path.abspath(sys.argv[1])
    sl.need_bpf("the sensor loads BPF")
    probe = subprocess.run([plumbline, "features"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if probe.returncode != 0:
        skip("`plumbline features`: a required kernel feature is missing")
    d = sl.temp_dir("pl-config-")
    os.chmod(d, 0o700)
    conf = os.path.join(d, "plumbline.conf")
    out = os.path.join(d, "from-config.jsonl")
    rules_a, rules_b = os.path.join(d, "a.yaml"), os.path.join(d, "b.yaml")
    helper = os.path.join(d, "plcfgexit")
    shutil.copy(shutil.which("dash") or "/bin/sh", helper)
    for path, code in ((rules_a, 7), (rules_b, 9)):
        with open(path, "w") as f:
            f.write(RULE.format(code=code))
    base = ("# the config test\n"
            f"json = {out}\n"
            "no-live = true\nno-syslog = true\nno-baselines = true\n"
            "sample-hz = 0\n")
    write_conf(conf, base + f"rules = {rules_a}\n")
    ok = False
    run = None
    try:
        run = sl.Daemon(d, "sensor", [plumbline, "run", "--config", conf])
        log(f"started from {conf}")

        pid = helper_exits(helper, 7)
        if not wait_alert(out, "cfg exit 7", pid):
            fail(f"no alert of rule A in {out} (the JSON path of the file): {run.log_text()}")
        log("0: the file's JSON path and rules are in effect")

        write_conf(conf, base + f"rules = {rules_b}\n")
        text = run.signal_and_wait(signal.SIGHUP, "SIGHUP: 1 rules loaded")
        if f"config: rules changed: now {rules_b}" not in text:
            fail(f"the rules change was not reported: {text}")
        pid9 = helper_exits(helper, 9)
        pid7 = helper_exits(helper, 7)
        if not wait_alert(out, "cfg exit 9", pid9):
            fail(f"(a) the new rule B raised no alert: {run.log_text()}")
        time.sleep(1)
        if wait_alert(out, "cfg exit 7", pid7, timeout=0.1):
            fail("(a) the old rule A still raised an alert after the reload")
        log("a: a changed rule set is applied on SIGHUP")

        write_conf(conf, base + f"rules = {rules_a}\nbogus-key = 1\n")
        text = run.signal_and_wait(signal.SIGHUP, "nothing of it is applied")
        want = f"{conf}:8:1: unknown key 'bogus-key'"
        if want not in text:
            fail(f"(b) no '{want}' in the log: {text}")
        if "rules loaded" in text or "rules changed" in text:
            fail(f"(b) the broken file changed the rules: {text}")
        pid9 = helper_exits(helper, 9)
        if not wait_alert(out, "cfg exit 9", pid9):
            fail(f"(b) after a broken config the running rules (B) raised no alert: {run.log_text()}")
        log("b: a broken config is reported as FILE:LINE:COL and the old one keeps running")

        write_conf(conf, base.replace("sample-hz = 0", "sample-hz = 19") + f"rules = {rules_b}\n")
        text = run.signal_and_wait(signal.SIGHUP, "config: sample-hz changed: needs a restart (still using 0)")
        if "rules changed" in text:
            fail(f"(c) the rules did not change, yet were said to: {text}")
        log("c: a restart-only key is reported as needing a restart")
        pid9 = helper_exits(helper, 9)
        if not wait_alert(out, "cfg exit 9", pid9):
            fail("(c) rule B stopped alerting")

        # d: live keys besides the rules: a new JSON path (reopened there) and a stats interval
        out2 = os.path.join(d, "moved.jsonl")
        write_conf(conf, base.replace(out, out2) + "stats-interval = 1\n" + f"rules = {rules_b}\n")
        text = run.signal_and_wait(signal.SIGHUP, f"SIGHUP: reopened {out2}")
        for want in (f"config: json changed: now {out2}", "config: stats-interval changed: now 1"):
            if want not in text:
                fail(f"(d) no '{want}' in the log: {text}")
        pid9 = helper_exits(helper, 9)
        if not wait_alert(out2, "cfg exit 9", pid9):
            fail(f"(d) no alert in the new JSON file {out2}")
        deadline = time.time() + 5
        while not any(r.get("type") == "stats" for r in sl.read_records(out2)) and time.time() < deadline:
            time.sleep(0.2)
        if not any(r.get("type") == "stats" for r in sl.read_records(out2)):
            fail("(d) no stats record within 5 s of stats-interval = 1")
        log("d: json and stats-interval applied live")
        ok = True
        run.stop()
        for f in (out, out2):
            sl.keep_records(f, os.path.basename(f)[:-len(".jsonl")])
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        finish([run], d, ok)


if __name__ == "__main__":
    main()
