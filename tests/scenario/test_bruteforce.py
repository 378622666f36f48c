#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_bruteforce.py - a password brute force against sudo and su is a rate
rule; a typo or two is not.

The real sensor, shipped rules. Three throwaway users made by the test
(useradd, a password set with chpasswd; removed at the end, with what sudo
keeps of them):

  1. typos: user A runs `sudo -S -k true` twice with a wrong password (each
     sudo makes one attempt and exits 1): no brute-force alert for A;
  2. sudo brute force: user B runs 6 `sudo -S` at once, each fed a wrong
     password (T1110.001 as an attacker with a shell scripts it): exactly one
     "Password brute force against an authentication binary" alert, for one of
     B's sudo pids, at exit, saying at least 5 failures;
  3. su brute force: user C runs `su -c true A` 6 times at once through a pty,
     each given a wrong password: exactly one alert, for one of C's su pids.

Every process is started with setpriv (which execs, so the pid the test knows
is sudo's or su's). Debian's PAM has no faillock; sudo leaves no timestamp
after a failure; the test removes /var/lib/sudo/lectured/USER and
/run/sudo/ts/USER anyway, and the users.

argv: PLUMBLINE_BINARY. Needs root, BPF, sudo, su, setpriv, useradd; else skips.
"""
import os
import pty
import pwd
import secrets
import shutil
import subprocess
import sys
import time

SENSOR = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, fail, finish, log, skip  # noqa: E402

RULE = "Password brute force against an authentication binary"
TRIES = 6


def add_user(name, password):
    subprocess.run(["useradd", "-M", "-d", "/nonexistent", "-s", "/bin/sh", name], check=True)
    subprocess.run(["chpasswd"], input=f"{name}:{password}\n", text=True, check=True)
    pw = pwd.getpwnam(name)
    return pw.pw_uid, pw.pw_gid


def del_user(name):
    subprocess.run(["userdel", name], stderr=subprocess.DEVNULL)
    for p in (f"/var/lib/sudo/lectured/{name}", f"/run/sudo/ts/{name}"):
        try:
            os.unlink(p)
        except OSError:
            pass


def as_user(uid, gid, argv):
    return ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"] + argv


def sudo_wrong(uid, gid, n):
    """n sudo -S at once, each fed one wrong password; their pids."""
    ps = [subprocess.Popen(as_user(uid, gid, ["sudo", "-S", "-k", "-p", "", "true"]), stdin=subprocess.PIPE,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
                           env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"}) for _ in range(n)]
    for p in ps:
        p.stdin.write("not-the-password\n")
        p.stdin.close()
    for p in ps:
        if p.wait(timeout=30) != 1:
            fail(f"sudo -S with a wrong password exited {p.returncode}, expected 1")
    return [p.pid for p in ps]


def su_wrong(uid, gid, target, n):
    """n `su -c true TARGET` at once through ptys, each given one wrong password; their pids."""
    kids = []
    for _ in range(n):
        pid, fd = pty.fork()
        if pid == 0:
            argv = as_user(uid, gid, ["su", "-c", "true", target])
            os.execve("/usr/bin/setpriv", argv, {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"})
        kids.append((pid, fd))
    for pid, fd in kids:
        buf, deadline = b"", time.time() + 15
        while b"assword" not in buf and time.time() < deadline:
            try:
                buf += os.read(fd, 256)
            except OSError:
                break
        os.write(fd, b"not-the-password\n")
    for pid, fd in kids:
        _, status = os.waitpid(pid, 0)
        try:
            while os.read(fd, 256):
                pass
        except OSError:
            pass
        os.close(fd)
        if os.waitstatus_to_exitcode(status) != 1:
            fail(f"su with a wrong password exited {os.waitstatus_to_exitcode(status)}, expected 1")
    return [pid for pid, _ in kids]


def alerts_for(recs, pids):
    return [r for r in recs if r.get("type") == "alert" and r.get("rule") == RULE and r.get("pid") in pids]


def main():
    sl.need_bpf("the sensor loads BPF")
    for tool in ("sudo", "su", "setpriv", "useradd", "userdel", "chpasswd"):
        if not shutil.which(tool):
            skip(f"no {tool}")
    d = sl.temp_dir("pl-brute-")
    tag = secrets.token_hex(3)
    users = [f"plbf{c}{tag}" for c in "abc"]
    sensor = None
    ok = False
    try:
        ids = [add_user(u, secrets.token_hex(8)) for u in users]
        sensor = sl.Sensor(d, "sensor", SENSOR)

        # 1. two typos
        typo = sudo_wrong(*ids[0], 1) + sudo_wrong(*ids[0], 1)
        # 2. sudo, 6 at once
        t = time.time()
        brute = sudo_wrong(*ids[1], TRIES)
        log(f"{TRIES} wrong sudo passwords by uid {ids[1][0]} in {time.time() - t:.1f} s")
        # 3. su, 6 at once through ptys
        t = time.time()
        brute_su = su_wrong(*ids[2], users[0], TRIES)
        log(f"{TRIES} wrong su passwords by uid {ids[2][0]} in {time.time() - t:.1f} s")

        everyone = set(typo) | set(brute) | set(brute_su)
        sl.wait_for("the exit records", lambda: everyone <= {
            r["pid"] for r in sensor.records() if r.get("type") == "process" and r.get("end_reason") == "exit"},
            timeout=15)
        sl.wait_for("the alerts", lambda: len(alerts_for(sensor.records(), everyone)) >= 2, timeout=5)
        time.sleep(0.5)
        recs = sensor.records()
        if alerts_for(recs, set(typo)):
            fail(f"two typos raised '{RULE}'")
        for what, pids, uid in (("sudo", brute, ids[1][0]), ("su", brute_su, ids[2][0])):
            got = alerts_for(recs, set(pids))
            if len(got) != 1:
                fail(f"{what}: {len(got)} '{RULE}' alerts for {TRIES} wrong passwords, expected 1: "
                     f"{[a.get('output') for a in got]}")
            a = got[0]
            if os.path.basename(a.get("exe") or "") != what or a.get("when") != "exit":
                fail(f"{what}: the alert is for {a.get('exe')} at {a.get('when')}")
            if f"by uid {uid} " not in a["output"] or not any(f"{n} failed attempts" in a["output"]
                                                              for n in range(5, TRIES + 1)):
                fail(f"{what}: the alert does not say uid {uid} and 5..{TRIES} failures: {a['output']}")
            ex = next(r for r in recs if r.get("type") == "process" and r.get("pid") == a["pid"])
            log(f"{what}: '{RULE}' for pid {a['pid']}: {a['output'][:120]}...; time-to-alert "
                f"{(a['time_ns'] - ex['end_ns']) / 1e6:.0f} ms after its exit")
        other = [a for a in recs if a.get("type") == "alert" and a.get("pid") in everyone and a.get("rule") != RULE
                 and a.get("severity", 9) <= 4]
        if other:
            fail(f"other alerts at Warning or above: {[(a['rule'], a['exe']) for a in other]}")
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        for u in users:  # before finish(), which exits
            del_user(u)
        finish([sensor], d, ok)


if __name__ == "__main__":
    main()
