# SPDX-License-Identifier: MIT
"""
scenario_lib.py - what the scenario tests share: the real sensor started with
the shipped rules and a state directory of its own (ready on sd_notify
READY=1), its JSON records, and the skip / fail conventions (exit 77 to skip,
a failure under PLUMBLINE_REQUIRE_BPF=1).
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import traceback

T0 = time.monotonic()


def log(msg):
    print(f"[{time.monotonic() - T0:5.1f}s] {msg}", flush=True)


def skip(why):
    if os.environ.get("PLUMBLINE_REQUIRE_BPF") == "1":
        print(f"FAIL (PLUMBLINE_REQUIRE_BPF=1): {why}", file=sys.stderr)
        sys.exit(1)
    print(f"SKIP: {why}", file=sys.stderr)
    sys.exit(77)


class Failure(Exception):
    pass


def fail(why):
    raise Failure(why)


class Sensor:
    def __init__(self, d, name, sensor, test, extra=()):
        self.name = name
        self.json = os.path.join(d, f"{name}.jsonl")
        self.log = os.path.join(d, f"{name}.log")
        notify = os.path.join(d, f"{name}.notify")
        ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        ns.bind(notify)
        env = dict(os.environ, NOTIFY_SOCKET=notify)
        env.pop("LD_PRELOAD", None)
        self.test = test
        self.p = subprocess.Popen([sensor, "run", "--no-live", "--no-syslog", "--state-dir",
                                   os.path.join(d, f"{name}.state"), "--json", self.json, "--process-records",
                                   *extra],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(self.log, "a"),
                                  env=env)
        ns.settimeout(0.5)
        deadline = time.time() + 30
        try:
            while True:
                try:
                    if b"READY=1" in ns.recv(64):
                        break
                except socket.timeout:
                    pass
                if self.p.poll() is not None:
                    fail(f"the sensor exited {self.p.returncode} at start: {self.log_text()}")
                if time.time() > deadline:
                    self.kill()
                    fail("the sensor did not get ready in 30 s: " + self.log_text())
        finally:
            ns.close()

    def records(self):
        try:
            with open(self.json, "rb") as f:
                lines = f.read().decode("utf-8").split("\n")
        except FileNotFoundError:
            return []
        return [json.loads(l) for l in lines[:-1] if l.strip()]

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
            try:
                self.p.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()
                fail("the sensor did not stop on SIGINT")
        if self.p.returncode != 0:
            fail(f"the sensor exited {self.p.returncode}: {self.log_text()}")
        dest = os.environ.get("PLUMBLINE_TEST_RECORDS_DIR")
        if dest and os.path.isdir(dest) and os.path.isfile(self.json):
            shutil.copyfile(self.json, os.path.join(dest, f"{self.test}-{self.name}-{os.getpid()}.jsonl"))

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()

    def log_text(self):
        with open(self.log) as f:
            return f.read()




def tree(recs, roots):
    """Pids descending from roots, by the records' ppid links."""
    pids = set(roots)
    links = {(r["pid"], r["ppid"]) for r in recs if r.get("type") in ("exec", "process") and "ppid" in r}
    grown = True
    while grown:
        grown = False
        for pid, ppid in links:
            if ppid in pids and pid not in pids:
                pids.add(pid)
                grown = True
    return pids


def run_make(args, cwd, env):
    """make -s ARGS in cwd (its output dropped, a failure fails the test); its pid."""
    p = subprocess.Popen(["make", "-s"] + args, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    _, err = p.communicate(timeout=120)
    if p.returncode != 0:
        fail(f"make {args} exited {p.returncode}: {err[-2000:]}")
    return p.pid


def settle(sensor, pid, timeout=10):
    """Wait for the exit record of pid (so its tree's records are in)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if any(r.get("type") == "process" and r.get("pid") == pid and r.get("end_reason") == "exit"
               for r in sensor.records()):
            time.sleep(0.5)
            return
        time.sleep(0.2)
    fail(f"no exit record for pid {pid} in {timeout} s")


def finish(sensors, d, ok, results=()):
    """Stop the sensors (their records go to PLUMBLINE_TEST_RECORDS_DIR), print
    the measured times to alert, keep or remove D, and exit: 0 when ok.
    Called from a `finally:`, it reports an exception on its way out (a bug
    in the test itself) before the exit would swallow it."""
    exc = sys.exc_info()[1]
    if exc is not None and not isinstance(exc, (Failure, SystemExit)):
        traceback.print_exc()
        ok = False
    for s in sensors:
        if not s:
            continue
        try:
            s.stop()
        except Failure as e:
            print(f"FAIL: {e}", file=sys.stderr)
            ok = False
        finally:
            s.kill()
    if results:
        print("time to alert:", file=sys.stderr)
        for what, t, bound in results:
            print(f"  {what}: {t:.1f} s (bound {bound} s)", file=sys.stderr)
    if os.environ.get("PLUMBLINE_KEEP_TEST_FILES"):
        print(f"kept {d}", file=sys.stderr)
    else:
        shutil.rmtree(d, ignore_errors=True)
    log("PASS" if ok else "FAILED")
    sys.exit(0 if ok else 1)
