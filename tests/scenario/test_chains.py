#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_chains.py - a shell fed by a network tool: `curl URL | bash`,
`wget -O- URL | sh`, `curl URL | python3`, and what is not one.

The real sensor, shipped rules. A local python http.server serves a small
shell script and a Python one. Each pipeline is run by sh -c, as a user
pastes it:

  curl -s URL/x.sh | bash        "Shell ran commands piped from a network tool"
  wget -qO- URL/x.sh | sh        the alert (for dash, the writer wget)
  curl -s URL/x.py | python3     the alert (for python3.x)
  (sleep 0.5; wget -qO- URL/x.pl) | perl   the alert, once wget is exec'd
                                 after perl (at perl's window or exit)
  cat x.sh | bash                none (not a network tool)
  curl -s URL/j.json | python3 -m json.tool   none (an interpreter given a program only reads data)

Exact: one alert for each of the first three, for the reader's pid, naming
its writer; none for the others. The two sides of a pipe exec in either
order: the test does not care which came first (the rule is judged at exec,
window and exit).

argv: PLUMBLINE_BINARY. Needs root, BPF, curl, wget, bash, python3; else skips (77).
"""
import os
import shutil
import subprocess
import sys
import time

SENSOR = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, Daemon, fail, finish, log, skip  # noqa: E402

RULE = "Shell ran commands piped from a network tool"


def main():
    sl.need_bpf("the sensor loads BPF")
    for tool in ("curl", "wget", "bash", "sh"):
        if not shutil.which(tool):
            skip(f"no {tool}")
    d = sl.temp_dir("pl-chains-")
    www = os.path.join(d, "www")
    os.makedirs(www)
    marker = os.path.join(d, "ran")
    with open(os.path.join(www, "x.sh"), "w") as f:
        f.write(f"echo sh >> {marker}\nsleep 0.2\n")
    with open(os.path.join(www, "x.py"), "w") as f:
        f.write(f"open('{marker}', 'a').write('py\\n')\n")
    with open(os.path.join(www, "x.pl"), "w") as f:
        f.write(f'open(my $f, ">>", "{marker}"); print $f "pl\\n";\n')
    with open(os.path.join(www, "j.json"), "w") as f:
        f.write('{"a": 1}\n')
    port = sl.free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", "-b", "127.0.0.1", str(port), "-d", www],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sensor = None
    ok = False
    try:
        url = f"http://127.0.0.1:{port}"
        sl.wait_for("the web server", lambda: subprocess.run(["curl", "-sf", "-o", "/dev/null", url + "/j.json"])
                    .returncode == 0, timeout=10)
        sensor = sl.Sensor(d, "sensor", SENSOR)
        cases = [
            ("curl|bash", f"curl -s {url}/x.sh | bash", "bash", "curl"),
            ("wget|sh", f"wget -qO- {url}/x.sh | sh", "dash", "wget"),
            ("curl|python3", f"curl -s {url}/x.py | python3", "python3", "curl"),
            # the writer execs after the reader: judged when it comes (window, exit)
            ("late wget|perl", f"(sleep 0.5; wget -qO- {url}/x.pl) | perl", "perl", "wget"),
            ("cat|bash", f"cat {www}/x.sh | bash", None, None),
            ("curl|python3 -m json.tool", f"curl -s {url}/j.json | python3 -m json.tool", None, None),
        ]
        roots = {}
        for name, cmd, _, _ in cases:
            p = subprocess.Popen(["sh", "-c", cmd], stdout=subprocess.DEVNULL)
            if p.wait(timeout=20) != 0:
                fail(f"{name}: exited {p.returncode}")
            roots[name] = p.pid
        with open(marker) as f:
            ran = f.read().split()
        if ran != ["sh", "sh", "py", "pl", "sh"]:
            fail(f"the piped scripts did not all run: {ran}")

        def pids_of(name):
            return sl.tree(sensor.records(), [roots[name]]) - {roots[name]}

        want = {name for name, _, reader, _ in cases if reader}
        def alerted():
            recs = sensor.records()
            got = {name for name in want
                   if any(r.get("type") == "alert" and r.get("rule") == RULE and r.get("pid") in pids_of(name)
                          for r in recs)}
            return got == want
        sl.wait_for("the chain alerts", alerted, timeout=10)
        time.sleep(1)
        recs = sensor.records()
        for name, _, reader, writer in cases:
            pids = sl.tree(recs, [roots[name]]) - {roots[name]}
            got = [r for r in recs if r.get("type") == "alert" and r.get("rule") == RULE and r.get("pid") in pids]
            if not reader:
                if got:
                    fail(f"{name}: '{RULE}' raised: {[a['output'] for a in got]}")
                log(f"{name}: no alert ({len(pids)} processes)")
                continue
            if len(got) != 1:
                fail(f"{name}: {len(got)} '{RULE}' alerts, expected 1: {[a['output'] for a in got]}")
            a = got[0]
            exe = os.path.basename(a.get("exe") or "")
            if not exe.startswith(reader) or f"piped from {writer} " not in a["output"]:
                fail(f"{name}: the alert is for {exe}, output {a['output']!r}; expected {reader} fed by {writer}")
            ex = next(r for r in recs if r.get("type") == "exec" and r.get("pid") == a["pid"])
            if name.startswith("late") and a.get("when") == "exec":
                fail(f"{name}: alerted at exec, before its writer was exec'd?")
            log(f"{name}: alert for {exe} pid {a['pid']} at {a.get('when')}, time-to-alert "
                f"{(a['time_ns'] - ex['time_ns']) / 1e6:.0f} ms after its exec")
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        server.terminate()
        server.wait(timeout=10)
        finish([sensor], d, ok)


if __name__ == "__main__":
    main()
