#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_files.py - sensitive files touched, judged at the file moment (the
path classes of rules/default/05-paths.yaml, the rules of 70-files.yaml).

The real sensor, shipped rules (the loss alert on), a fresh state directory.
Before the sensor starts, a throwaway account is created whose home is a
temporary directory holding ~/.ssh/id_ed25519, so that `~` covers it. Then:

  0. ordinary work by the same tools (cat, grep, cp, python3, sh on
     ordinary files): nothing at Warning or above;
  1. cat, grep, cp and python3 read /etc/shadow, python3 reads the test
     user's ~/.ssh/id_ed25519: "Credential file read" (Warning) for each
     pid, path and op read;
  2. a make recipe reads the key: "Build step read a credential file"
     (Error), its ancestry naming make;
  3. sh writes a cron file and a systemd unit (created), appends to the
     user's authorized_keys: "Persistence location written" (Warning);
  4. sh runs `: >> /etc/ld.so.preload` (nothing is ever written into it;
     removed afterwards when it was not there): "Dynamic linker preload
     written" (Critical);
  5. python3 opens /proc/PID/mem of a sleeping child for writing:
     "Another process's memory written" (Error), target pid and exe;
  6. useradd and userdel of a second throwaway account: "Account files
     written" (Warning) for useradd.

Every alert is checked for its rule, priority, pid, path and op; nothing
else at Warning or above may fire on the test's processes (those it started
and their descendants, by the records' ppid links). Everything the test
changes is restored. Times to alert are printed.

argv: PLUMBLINE_BINARY. Needs root, BPF, make, useradd, userdel; else skips
(77) unless PLUMBLINE_REQUIRE_BPF=1.
"""
import os
import shutil
import subprocess
import sys
import time

SENSOR = os.path.abspath(sys.argv[1])
WARN = 4  # severity: Warning (lower is more severe)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario_lib as sl  # noqa: E402
from scenario_lib import fail, finish, log, skip, tree, Sensor  # noqa: E402

KEY_USER = "plfilesk"
NEW_USER = "plfilesn"
PRIO = {"Critical": 2, "Error": 3, "Warning": 4}


def run(argv, env=None, check=True):
    """Run argv to its end; its pid."""
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
    _, err = p.communicate(timeout=30)
    if check and p.returncode != 0:
        fail(f"{argv} exited {p.returncode}: {err[-500:]}")
    return p.pid


def alerts_of(recs, pids):
    return [r for r in recs if r.get("type") == "alert" and r.get("pid") in pids and r.get("when") != "sensor"]


def wait_alert(sensor, rule, pid, timeout=10):
    """The alert of rule for pid (waited for); and the records then."""
    deadline = time.time() + timeout
    while True:
        recs = sensor.records()
        got = [r for r in recs if r.get("type") == "alert" and r.get("rule") == rule and r.get("pid") == pid]
        if got:
            return got[0], recs
        if time.time() > deadline:
            mine = [(r["rule"], r.get("pid"), (r.get("evidence") or {}).get("file"))
                    for r in recs if r.get("type") == "alert" and r.get("when") != "sensor"]
            fail(f"no '{rule}' alert for pid {pid} within {timeout} s; alerts: {mine[-20:]}")
        time.sleep(0.2)


def wait_any(sensor, rule, pids_of, timeout=10):
    """The alerts of rule for any pid of pids_of(records) (waited for)."""
    deadline = time.time() + timeout
    while True:
        recs = sensor.records()
        pids = pids_of(recs)
        got = [r for r in recs if r.get("type") == "alert" and r.get("rule") == rule and r.get("pid") in pids]
        if got:
            return got, recs
        if time.time() > deadline:
            fail(f"no '{rule}' alert for pids {sorted(pids)} within {timeout} s")
        time.sleep(0.2)


def check(a, prio, path, op, recs, what):
    f = (a.get("evidence") or {}).get("file") or {}
    if a.get("priority") != prio:
        fail(f"{what}: priority {a.get('priority')}, expected {prio}")
    if f.get("path") != path or f.get("op") != op:
        fail(f"{what}: evidence file {f}, expected path {path} op {op}")
    ex = [r["time_ns"] for r in recs if r.get("type") == "exec" and r.get("pid") == a["pid"]]
    tta = (a["time_ns"] - ex[-1]) / 1e6 if ex else float("nan")
    log(f"{what}: '{a['rule']}' ({prio}) pid {a['pid']} {os.path.basename(a.get('exe') or '')} "
        f"{op} {path}, time-to-alert {tta:.0f} ms")


def main():
    sl.need_bpf("the sensor loads BPF")
    for tool in ("make", "useradd", "userdel", "sleep"):
        if not shutil.which(tool):
            skip(f"no {tool}")
    for u in (KEY_USER, NEW_USER):
        if subprocess.run(["id", u], capture_output=True).returncode == 0:
            skip(f"account {u} exists already (a previous run left it?)")

    d = sl.temp_dir("pl-files-")
    sensor = None
    ok = False
    made = []  # paths the test created, removed at the end
    dirs = []  # directories the test created
    preload_existed = os.path.exists("/etc/ld.so.preload")
    users = []
    try:
        home = os.path.join(d, "home")
        os.makedirs(os.path.join(home, ".ssh"), mode=0o700)
        key = os.path.join(home, ".ssh", "id_ed25519")
        with open(key, "w") as f:
            f.write("-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n-----END OPENSSH PRIVATE KEY-----\n")
        run(["useradd", "-M", "-N", "-d", home, "-s", "/usr/sbin/nologin", KEY_USER])
        users.append(KEY_USER)
        for dd in ("/etc/cron.d", "/etc/systemd/system"):
            if not os.path.isdir(dd):
                os.makedirs(dd)
                dirs.append(dd)
        with open(os.path.join(d, "Makefile"), "w") as f:
            f.write(f"all:\n\t@cat {key} > /dev/null\n")
        env = dict(os.environ, LC_ALL="C")
        env.pop("MAKEFLAGS", None)

        sensor = Sensor(d, "sensor", SENSOR)
        mine = []  # the roots of the test's processes

        # 0. ordinary work by the same tools
        plain = os.path.join(d, "plain.txt")
        with open(plain, "w") as f:
            f.write("root line\n")
        for argv in (["cat", "/etc/hostname"], ["grep", "-c", "root", "/etc/passwd"], ["cp", plain, plain + ".2"],
                     [sys.executable, "-c", f"open({plain!r}).read()"], ["sh", "-c", f"echo x >> {plain}"]):
            mine.append(run(argv, check=False))
        time.sleep(1)

        # 1. credential files read with ordinary tools
        cases = []
        for argv, path in ((["cat", "/etc/shadow"], "/etc/shadow"),
                           (["grep", "-c", "root", "/etc/shadow"], "/etc/shadow"),
                           (["cp", "/etc/shadow", os.path.join(d, "s.copy")], "/etc/shadow"),
                           ([sys.executable, "-c", "open('/etc/shadow').read()"], "/etc/shadow"),
                           ([sys.executable, "-c", f"open({key!r}).read()"], key)):
            pid = run(argv)
            mine.append(pid)
            cases.append(("Credential file read", pid, "Warning", path, "read", os.path.basename(argv[0])))

        # 2. a build step reads the key
        mk = run(["make", "-s", "-C", d], env=env)
        mine.append(mk)

        # 3. persistence: a cron file, a systemd unit, authorized_keys
        cron = "/etc/cron.d/plumbline-test-files"
        unit = "/etc/systemd/system/plumbline-test-files.service"
        ak = os.path.join(home, ".ssh", "authorized_keys")
        made += [cron, unit]
        for path, text, op in ((cron, "# plumbline test: never runs\n", "create"),
                               (unit, "[Unit]\\nDescription=plumbline test\\n", "create"),
                               (ak, "ssh-ed25519 AAAAplumbline test", "create")):
            pid = run(["sh", "-c", f"printf '{text}' >> {path}"])
            mine.append(pid)
            cases.append(("Persistence location written", pid, "Warning", path, op, "sh"))

        # 4. /etc/ld.so.preload opened for writing; nothing written into it
        pid = run(["sh", "-c", ": >> /etc/ld.so.preload"])
        mine.append(pid)
        if not preload_existed:
            os.unlink("/etc/ld.so.preload")
        cases.append(("Dynamic linker preload written", pid, "Critical", "/etc/ld.so.preload",
                      "write" if preload_existed else "create", "sh"))

        # 5. another process's memory opened for writing
        sleeper = subprocess.Popen(["sleep", "30"])
        time.sleep(0.3)
        pid = run([sys.executable, "-c", f"f = open('/proc/{sleeper.pid}/mem', 'r+b'); f.close()"])
        sleeper.kill()
        sleeper.wait()
        mine.append(pid)
        cases.append(("Another process's memory written", pid, "Error", f"/proc/{sleeper.pid}/mem", "write",
                      "python"))

        # 6. an account created and removed
        ua = run(["useradd", "-M", "-N", "-s", "/usr/sbin/nologin", NEW_USER])
        users.append(NEW_USER)
        ud = run(["userdel", NEW_USER])
        users.remove(NEW_USER)
        mine += [ua, ud]

        # the alerts
        for rule, pid, prio, path, op, what in cases:
            a, recs = wait_alert(sensor, rule, pid)
            check(a, prio, path, op, recs, what)
            f = (a.get("evidence") or {}).get("file") or {}
            if what == "python" and (f.get("target_pid") != sleeper.pid or f.get("target_exe") != "/usr/bin/sleep"):
                fail(f"memory write: target {f.get('target_pid')} {f.get('target_exe')}, expected {sleeper.pid} sleep")
        b, recs = wait_any(sensor, "Build step read a credential file", lambda recs: tree(recs, [mk]))
        b = b[0]
        anc = [os.path.basename(x or "") for x in (b.get("evidence") or {}).get("ancestry") or []]
        if "make" not in anc or b.get("priority") != "Error" or ((b.get("evidence") or {}).get("file") or {}).get("path") != key:
            fail(f"build alert: {b.get('priority')} ancestry {anc} file {(b.get('evidence') or {}).get('file')}")
        log(f"make: 'Build step read a credential file' (Error) pid {b['pid']} cat read {key}, ancestry {anc}")
        acc, recs = wait_any(sensor, "Account files written", lambda recs: {ua})
        paths = sorted({((r.get("evidence") or {}).get("file") or {}).get("path") for r in acc})
        if acc[0].get("priority") != "Warning" or "/etc/passwd" not in paths:
            fail(f"useradd: {acc[0].get('priority')}, paths {paths}")
        log(f"useradd: 'Account files written' (Warning) pid {ua}, paths {paths}")

        # nothing else at Warning or above on the test's processes
        want = {(rule, pid) for rule, pid, *_ in cases}
        pids = tree(recs, mine) | set(mine)
        loud = [(r["rule"], r["pid"], r.get("exe")) for r in alerts_of(recs, pids)
                if PRIO.get(r.get("priority"), 9) <= WARN and (r["rule"], r["pid"]) not in want
                and not (r["rule"] in ("Build step read a credential file", "Credential file read")
                         and r["pid"] in tree(recs, [mk]))
                and not (r["rule"] == "Account files written" and r["pid"] in (ua, ud))]
        if loud:
            fail(f"other alerts at Warning or above on the test's processes: {loud}")
        log(f"{len(cases) + 2} techniques alerted; nothing else at Warning or above on {len(pids)} test processes")
        ok = True
    finally:
        for p in made:
            if os.path.exists(p):
                os.unlink(p)
        if not preload_existed and os.path.exists("/etc/ld.so.preload"):
            os.unlink("/etc/ld.so.preload")
        for u in users:
            subprocess.run(["userdel", u], capture_output=True)
        for dd in dirs:
            shutil.rmtree(dd, ignore_errors=True)
        finish([sensor] if sensor else [], d, ok)


if __name__ == "__main__":
    main()
