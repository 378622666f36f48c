#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_rule_perms.py - a rule file or directory other users may write is
refused: at start the sensor exits non-zero with an error
naming the path and the fix; on SIGHUP the old rules keep running.

  1. a rule file of mode 0666 -> refused at start (exit != 0), path named;
  2. a rule directory of mode 0777 -> refused at start;
  3. a rule file owned by uid 65534 -> refused at start;
  4. a sensor running with a good file, then the file made 0666 and SIGHUP:
     "refused" and "keep running" in its log, and the old rule still alerts
     on a run of bench_noop.
usage: test_rule_perms.py PLUMBLINE NOOP
"""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenario"))
import scenario_lib as sl  # noqa: E402

RULE = """- rule: noop ran
  desc: bench_noop exited
  condition: proc.exe_name = bench_noop
  output: "bench_noop exited (pid %proc.pid)"
  priority: NOTICE
  when: exit
"""


def refused_at_start(plumbline, d, rules, what):
    r = subprocess.run([plumbline, "run", "--no-live", "--no-syslog", "--no-baselines", "--state-dir",
                        os.path.join(d, "st"), "--rules", rules, "--duration", "5"],
                       capture_output=True, text=True, timeout=60)
    if r.returncode == 0:
        sl.fail(f"{what}: the sensor ran (exit 0): {r.stderr}")
    if "refused" not in r.stderr or rules not in r.stderr:
        sl.fail(f"{what}: no clear error naming {rules}: {r.stderr}")
    sl.log(f"{what}: refused, exit {r.returncode}: {r.stderr.strip().splitlines()[-1]}")


def alerts_for(s, pid):
    return [r for r in s.records() if r.get("type") == "alert" and r.get("rule") == "noop ran" and r.get("pid") == pid]


def main():
    plumbline, noop = sys.argv[1:3]
    sl.need_bpf("the sensor's BPF and chown need root")
    d = sl.temp_dir("pl-ruleperm-")
    s = None
    ok = False
    try:
        rdir = os.path.join(d, "rules")
        os.mkdir(rdir, 0o700)
        f = os.path.join(rdir, "r.yaml")
        with open(f, "w") as fh:
            fh.write(RULE)
        os.chmod(f, 0o666)
        refused_at_start(plumbline, d, f, "a rule file of mode 0666")
        os.chmod(f, 0o644)
        os.chmod(rdir, 0o777)
        refused_at_start(plumbline, d, rdir, "a rule directory of mode 0777")
        os.chmod(rdir, 0o700)
        os.chown(f, 65534, 65534)
        refused_at_start(plumbline, d, f, "a rule file owned by uid 65534")
        os.chown(f, 0, 0)

        s = sl.Sensor(d, "perm", plumbline, extra=["--no-baselines", "--rules", f])
        first = subprocess.Popen([noop])
        first.wait()
        time.sleep(2.5)
        if len(alerts_for(s, first.pid)) != 1:
            sl.fail(f"the good rule did not alert on bench_noop pid {first.pid}")
        os.chmod(f, 0o666)
        s.p.send_signal(signal.SIGHUP)
        time.sleep(1)
        log = s.log_text()
        if "refused" not in log or "keep running" not in log:
            sl.fail(f"SIGHUP with a 0666 rule file: no refusal in the log: {log}")
        second = subprocess.Popen([noop])
        second.wait()
        time.sleep(2.5)
        if len(alerts_for(s, second.pid)) != 1:
            sl.fail("after the refused SIGHUP the old rule no longer alerts")
        sl.log("SIGHUP with a 0666 rule file: refused, the old rule keeps alerting")
        ok = True
    except sl.Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        if os.path.isdir(d):
            for root, dirs, files in os.walk(d):
                for n in dirs + files:
                    try:
                        os.chown(os.path.join(root, n), 0, 0)
                    except OSError:
                        pass
        sl.finish([s], d, ok)


if __name__ == "__main__":
    sys.exit(main())
