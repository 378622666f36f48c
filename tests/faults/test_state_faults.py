# SPDX-License-Identifier: MIT
"""
test_state_faults.py - the state directory under faults, with the real sensor
on the real kernel. One case per run, named by the first argument:

  full         the state directory on a small tmpfs that fills up: the old
               baselines stay byte for byte, the failure is logged naming
               ENOSPC and a file, counted (stats save_errors), the sensor
               keeps recording; once space returns the next flush saves, and
               every file loads.
  unwritable   a read-only state directory: refused at start with the path and
               the reason; a baselines directory made immutable (chattr +i)
               while the sensor runs: reported at save (EPERM, the file), the
               sensor keeps running, and saves again once it is writable.
  others       a state directory, or its baselines/, writable by group or
               others: refused at start with the fix.
  bound        --max-baselines with the real sensor: never more held, files and
               memory agree, evictions counted and logged, a lower bound
               applied at the next start.
  sigkill      SIGKILL at the instant a save creates its temp file, repeated:
               every restart loads every file (none moved aside, a stale temp
               file removed and reported), and the audit log's chain continues
               across the kills and verifies.

Usage: test_state_faults.py CASE PLUMBLINE. Needs root (mount, chattr) and BPF;
skips (77) without them, fails instead under PLUMBLINE_REQUIRE_BPF=1.
"""
import ctypes
import glob
import hashlib
import json
import os
import random
import re
import select
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenario"))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, Sensor, fail, finish, log, need_bpf, skip, wait_for  # noqa: E402

# Distinct binaries, so that each run makes and learns several baselines.
WORKLOAD = [["/bin/true"], ["/bin/ls", "/"], ["/usr/bin/env"], ["/bin/sh", "-c", ":"], ["/bin/cat", "/dev/null"],
            ["/usr/bin/id"], ["/bin/uname"], ["/bin/date"], ["/usr/bin/whoami"], ["/bin/sleep", "0"]]


def work(rounds=3):
    for _ in range(rounds):
        for argv in WORKLOAD:
            if os.path.exists(argv[0]):
                subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def mount_tmpfs(path, size):
    os.makedirs(path, mode=0o700, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", path],
                       capture_output=True, text=True)
    if r.returncode:
        skip(f"cannot mount a tmpfs: {r.stderr.strip()}")


def umount(path):
    subprocess.run(["umount", "-l", path], capture_output=True, check=False)


def baseline_files(state):
    return sorted(glob.glob(os.path.join(state, "baselines", "*.json")))


def digests(state):
    out = {}
    for p in baseline_files(state):
        with open(p, "rb") as f:
            out[os.path.basename(p)] = hashlib.sha256(f.read()).hexdigest()
    return out


def leftovers(state):
    """Files that are neither a baseline nor the lock: temp files, .bad- copies."""
    names = os.listdir(os.path.join(state, "baselines"))
    return sorted(n for n in names if not re.fullmatch(r"[0-9a-f]{16}\.json", n))


def listed(plumbline, state):
    """The baselines `baseline list` loads, read-only, and its complaints."""
    r = subprocess.run([plumbline, "baseline", "list", "--json", "--state-dir", state], capture_output=True, text=True)
    if r.returncode:
        fail(f"baseline list exited {r.returncode}: {r.stderr}")
    out = r.stdout.strip()
    data = json.loads(out) if out.startswith("[") else [json.loads(l) for l in out.splitlines() if l.strip()]
    return data, r.stderr


def last_stats(sensor):
    st = [r for r in sensor.records() if r.get("type") == "stats"]
    return st[-1] if st else None


def start(d, name, plumbline, test, extra=()):
    try:
        return Sensor(d, name, plumbline, extra=["--flush-interval", "1", "--stats-interval", "1", *extra])
    except Failure as e:
        if "BPF" in str(e) or "Operation not permitted" in str(e) or "bpf" in str(e):
            skip(f"the sensor cannot run here: {e}")
        raise


def check_bpf(plumbline):
    need_bpf("mount, chattr and the sensor's BPF need root")


# ---- full ----

def case_full(plumbline, d):
    state = os.path.join(d, "s1.state")
    mount_tmpfs(state, "2m")
    sensors = []
    try:
        s1 = start(d, "s1", plumbline, "full")
        sensors.append(s1)
        work()
        wait_for("a first save", lambda: len(baseline_files(state)) >= 5)
        s1.stop()
        before = digests(state)
        log(f"{len(before)} baselines saved before the disk fills")
        # fill every byte left
        # (the sensor may have filled it already, learning a busy machine's
        # binaries: then even the filler's open fails, and the disk is full)
        filler = os.path.join(state, "filler")
        try:
            with open(filler, "wb") as f:
                while True:
                    f.write(b"\0" * 65536)
                    f.flush()
        except OSError:
            pass
        s2 = start(d, "s2", plumbline, "full", ["--state-dir", state])
        sensors[0] = s2
        work()
        line = wait_for("the save failure in the log", lambda: re.search(
            r"Cannot save baselines to \S+: No space left on device \(ENOSPC, first (\S+\.json)[;)]", s2.log_text()))
        log(f"logged: {line.group(0)}")
        if not line.group(1).startswith(os.path.join(state, "baselines") + "/"):
            fail(f"the failing file is not in the store: {line.group(1)}")
        # while full: the old files untouched, nothing half-written left behind
        now = digests(state)
        changed = [n for n in before if now.get(n) != before[n]]
        if changed:
            fail(f"{len(changed)} old baselines changed while the disk was full: {changed[:3]}")
        if leftovers(state):
            fail(f"left in the store while full: {leftovers(state)}")
        st = wait_for("a stats record counting the failure",
                      lambda: (lambda s: s if s and s["baselines"]["save_errors"] >= 1 else None)(last_stats(s2)))
        n_records = len([r for r in s2.records() if r.get("type") == "process"])
        work()
        wait_for("process records after the failure",
                 lambda: len([r for r in s2.records() if r.get("type") == "process"]) > n_records)
        if s2.p.poll() is not None:
            fail("the sensor stopped while the disk was full")
        # space returns
        if not os.path.exists(filler):
            fail("the sensor filled the 2 MB state disk before the test could (a machine busy with "
                 "new binaries): space cannot be given back")
        os.unlink(filler)
        wait_for("the save after space returned", lambda: "baselines saved to" in s2.log_text()
                 and "again" in s2.log_text())
        # the failures are all counted by the next stats record; none after it
        seen = len([r for r in s2.records() if r.get("type") == "stats"])
        wait_for("a stats record after the recovery",
                 lambda: len([r for r in s2.records() if r.get("type") == "stats"]) >= seen + 2)
        errors_full = last_stats(s2)["baselines"]["save_errors"]
        work(1)
        time.sleep(2.5)  # two more flushes, both saving
        s2.stop()
        final = last_stats(s2)
        files = baseline_files(state)
        data, complaints = listed(plumbline, state)
        if complaints.strip():
            fail(f"baseline list complained: {complaints}")
        log(f"old baselines: {len(before)}; save failures counted: {st['baselines']['save_errors']} at first, "
            f"{errors_full} once space returned, {final['baselines']['save_errors']} at the end; "
            f"files after: {len(files)}; held at the end: {final['baselines']['baselines']}; listed: {len(data)}")
        if len(files) != final["baselines"]["baselines"] or len(data) != len(files):
            fail(f"{len(files)} files, {final['baselines']['baselines']} held, {len(data)} listed: they differ")
        if not set(before) <= {os.path.basename(p) for p in files}:
            fail("an old baseline's file is gone")
        if leftovers(state):
            fail(f"left in the store: {leftovers(state)}")
        if final["baselines"]["save_errors"] != errors_full:
            fail(f"save errors counted after space returned: {errors_full}, then {final['baselines']['save_errors']}")
        return sensors, True
    finally:
        for s in sensors:
            try:
                s.stop()
            except Failure:
                s.kill()
        umount(state)


# ---- unwritable ----

def case_unwritable(plumbline, d):
    state = os.path.join(d, "s1.state")
    mount_tmpfs(state, "4m")
    sensors = []
    try:
        s1 = start(d, "s1", plumbline, "unwritable")
        work(1)
        wait_for("a first save", lambda: len(baseline_files(state)) >= 3)
        s1.stop()
        n_before = len(baseline_files(state))
        # a read-only state directory: refused at start
        subprocess.run(["mount", "-o", "remount,ro", state], check=True)
        try:
            start(d, "ro", plumbline, "unwritable", ["--state-dir", state])
            fail("the sensor started on a read-only state directory")
        except Failure as e:
            msg = str(e)
        finally:
            subprocess.run(["mount", "-o", "remount,rw", state], check=True)
        want = f"Cannot open the lock {state}/lock: Read-only file system"
        if want not in msg:
            fail(f"expected '{want}' at start, got: {msg}")
        log(f"read-only at start: refused ({want})")

        # immutable while running: reported at save, the sensor keeps going
        s2 = start(d, "s2", plumbline, "unwritable", ["--state-dir", state])
        sensors.append(s2)
        bdir = os.path.join(state, "baselines")
        subprocess.run(["chattr", "+i", bdir], check=True)
        try:
            work(1)
            # a binary the store has not seen, so that something is dirty
            subprocess.run(["/bin/sh", "-c", "exec /usr/bin/tty"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
            line = wait_for("the save failure in the log", lambda: re.search(
                r"Cannot save baselines to \S+: Operation not permitted \(EPERM, first (\S+\.json)[;)]",
                s2.log_text()))
            log(f"logged: {line.group(0)}")
            wait_for("a stats record counting it",
                     lambda: (lambda s: s and s["baselines"]["save_errors"] >= 1)(last_stats(s2)))
            if s2.p.poll() is not None:
                fail("the sensor stopped when its store became unwritable")
            if len(baseline_files(state)) != n_before:
                fail("the baseline files changed while immutable")
        finally:
            subprocess.run(["chattr", "-i", bdir], check=True)
        wait_for("the save once writable", lambda: "again" in s2.log_text())
        s2.stop()
        final = last_stats(s2)
        files = baseline_files(state)
        log(f"baselines before: {n_before}; after: {len(files)}; held at the end: {final['baselines']['baselines']}; "
            f"save failures counted: {final['baselines']['save_errors']}")
        if len(files) != final["baselines"]["baselines"] or leftovers(state):
            fail(f"{len(files)} files for {final['baselines']['baselines']} baselines, left: {leftovers(state)}")
        return sensors, True
    finally:
        for s in sensors:
            s.kill()
        subprocess.run(["chattr", "-i", os.path.join(state, "baselines")], capture_output=True, check=False)
        umount(state)


# ---- others ----

def case_others(plumbline, d):
    state = os.path.join(d, "s.state")
    os.makedirs(os.path.join(state, "baselines"), mode=0o700)
    os.chmod(state, 0o700)
    for target, mode in ((state, 0o777), (os.path.join(state, "baselines"), 0o770)):
        os.chmod(target, mode)
        r = subprocess.run([plumbline, "run", "--no-live", "--no-syslog", "--state-dir", state, "--duration", "1"],
                           capture_output=True, text=True, timeout=30)
        os.chmod(target, 0o700)
        want = f"writable by group or others (mode 0{mode:o}); fix: chmod 0700 {target}"
        if r.returncode == 0 or want not in r.stderr:
            fail(f"mode 0{mode:o} on {target}: exit {r.returncode}, expected '{want}' in: {r.stderr}")
        log(f"refused, exit {r.returncode}: {want}")
    return [], True


# ---- sigkill ----

IN_CREATE = 0x100
IN_MOVED_TO = 0x80


class Inotify:
    def __init__(self, path):
        libc = ctypes.CDLL(None, use_errno=True)
        self.fd = libc.inotify_init1(os.O_CLOEXEC | os.O_NONBLOCK)
        if self.fd < 0 or libc.inotify_add_watch(self.fd, path.encode(), IN_CREATE) < 0:
            fail(f"inotify on {path}: errno {ctypes.get_errno()}")

    def wait_temp(self, timeout):
        """The name of the next temp file created, or None."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            r, _, _ = select.select([self.fd], [], [], max(0.0, deadline - time.time()))
            if not r:
                return None
            buf = os.read(self.fd, 65536)
            off = 0
            while off < len(buf):
                _, _, _, n = struct.unpack_from("iIII", buf, off)
                name = buf[off + 16:off + 16 + n].rstrip(b"\0").decode()
                off += 16 + n
                if ".json.tmp." in name:
                    return name
        return None

    def close(self):
        os.close(self.fd)


def case_sigkill(plumbline, d):
    state = os.path.join(d, "k.state")
    audit = os.path.join(d, "audit.log")
    extra = ["--state-dir", state, "--audit-log", audit]
    rounds, landed, loaded_all = 6, 0, []
    rng = random.Random(11)
    s = start(d, "k0", plumbline, "sigkill", extra)
    work(1)
    wait_for("a first save", lambda: len(baseline_files(state)) >= 3)
    s.stop()
    for i in range(rounds):
        on_disk = len(baseline_files(state))
        temps_before = leftovers(state)
        s = start(d, f"k{i + 1}", plumbline, "sigkill", extra)
        text = s.log_text()
        m = re.search(r"baselines: (\d+) loaded from", text)
        if not m:
            s.kill()
            fail(f"no 'loaded' line: {text}")
        loaded = int(m.group(1))
        loaded_all.append(loaded)
        if ".bad-" in text or "moved aside" in text or any(".bad-" in n for n in os.listdir(os.path.join(state, "baselines"))):
            s.kill()
            fail(f"restart {i + 1}: a baseline file was moved aside: {text}")
        if loaded != on_disk:
            s.kill()
            fail(f"restart {i + 1}: {on_disk} files on disk, {loaded} loaded")
        for t in temps_before:
            if f"{t}: removed a temp file left by an interrupted save" not in text:
                s.kill()
                fail(f"restart {i + 1}: the temp file {t} was not reported removed: {text}")
        watch = Inotify(os.path.join(state, "baselines"))
        # Every other round, strace holds each rename 3 s at its entry
        # (delay injection), so that the SIGKILL after a temp file appears
        # lands inside that save on any machine: on an idle one a save of a
        # few small files ends before a kill sent from here arrives. The
        # other rounds kill at a random instant, as a crash would.
        tracer = None
        if i % 2 == 0:
            tracer = subprocess.Popen(["strace", "-qq", "-f", "-p", str(s.p.pid), "-o", "/dev/null",
                                       "-e", "trace=rename,renameat,renameat2",
                                       "-e", "inject=rename,renameat,renameat2:delay_enter=3000000"],
                                      stderr=subprocess.DEVNULL)
            time.sleep(0.5)  # attached to every thread
        try:
            # new binaries each round, so that there is something to save
            subprocess.run(["/bin/sh", "-c", f"for n in 1 2 3; do /bin/echo {i} >/dev/null; /bin/true; done"],
                           check=False)
            work(1)
            # at a random save of the flush (the k-th temp file), sometimes a little later
            k, name = rng.randint(1, 30), None
            if tracer:
                k = 1  # the save is held at its rename: kill now, well within the 3 s

            for _ in range(k):
                got = watch.wait_temp(3 if name else 10)
                if not got:
                    break
                name = got
            if rng.random() < 0.5 and not tracer:
                time.sleep(rng.random() * 0.002)
        finally:
            watch.close()
        s.kill()  # SIGKILL
        if tracer:
            tracer.wait(10)
        left = leftovers(state)
        landed += bool(left)
        log(f"round {i + 1}: {on_disk} files loaded whole; killed {'after the save that made' if name else 'without a save'} "
            f"({name}); left behind: {left}")
    s = start(d, "final", plumbline, "sigkill", extra)
    work(1)
    s.stop()
    text = s.log_text()
    if ".bad-" in text or "moved aside" in text:
        fail(f"the last start moved a file aside: {text}")
    r = subprocess.run([plumbline, "audit", "verify", audit], capture_output=True, text=True)
    log(f"audit verify: exit {r.returncode}: {(r.stdout + r.stderr).strip()}")
    if r.returncode != 0:
        fail(f"the audit chain does not verify after {rounds} SIGKILLs: {r.stdout}{r.stderr}")
    events = {}
    for l in open(audit, "rb"):
        e = json.loads(l)["event"]
        events[e] = events.get(e, 0) + 1
    log(f"SIGKILLs: {rounds}; landed inside a save (a temp file left): {landed}; baselines loaded at each "
        f"restart: {loaded_all}; audit events: {events}")
    if events.get("start") != rounds + 2 or events.get("stop") != 2:
        fail(f"expected {rounds + 2} starts and 2 stops in the audit log: {events}")
    if landed == 0:
        fail("no SIGKILL landed inside a save: the test proved nothing")
    return [], True


# ---- bound ----

def case_bound(plumbline, d):
    """--max-baselines with the real sensor: the store never holds more, files
    and memory agree, evictions are counted and logged; a lower bound at the
    next start is applied at load."""
    state = os.path.join(d, "b.state")
    s = start(d, "b1", plumbline, "bound", ["--state-dir", state, "--max-baselines", "5"])
    try:
        work(2)
        wait_for("evictions counted", lambda: (lambda x: x and x["baselines"]["evicted"] >= 5)(last_stats(s)))
        wait_for("evictions logged", lambda: re.search(r"baselines: \d+ evicted since the last flush", s.log_text()))
    finally:
        s.stop()
    final = last_stats(s)["baselines"]
    files = baseline_files(state)
    log(f"bound 5: held {final['baselines']}, files {len(files)}, evicted {final['evicted']}, "
        f"refused or without: {final['without_baseline']}")
    if final["baselines"] > 5 or len(files) != final["baselines"]:
        fail(f"bound 5: {final['baselines']} held, {len(files)} files")
    s = start(d, "b2", plumbline, "bound", ["--state-dir", state, "--max-baselines", "3"])
    s.stop()
    text = s.log_text()
    m = re.search(r"baselines: (\d+) loaded from", text)
    files_after = baseline_files(state)
    log(f"restart with bound 3: {m.group(1) if m else '?'} loaded, {len(files_after)} files after")
    if not m or int(m.group(1)) != len(files) or len(files_after) > 3:
        fail(f"restart with bound 3: {text}")
    if not re.search(r"\d+ evicted over the bound of 3", text):
        fail(f"the eviction at load was not logged: {text}")
    return [], True


CASES = {"bound": case_bound, "full": case_full, "unwritable": case_unwritable, "others": case_others, "sigkill": case_sigkill}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in CASES:
        print(f"usage: {sys.argv[0]} {'|'.join(CASES)} PLUMBLINE", file=sys.stderr)
        sys.exit(2)
    case, plumbline = sys.argv[1], os.path.abspath(sys.argv[2])
    check_bpf(plumbline)
    d = sl.temp_dir(f"pl-faults-{case}-")
    os.chmod(d, 0o700)
    ok = False
    try:
        _, ok = CASES[case](plumbline, d)
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
        ok = False
    finally:
        finish([], d, ok)


if __name__ == "__main__":
    main()
