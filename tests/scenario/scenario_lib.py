# SPDX-License-Identifier: MIT
"""
scenario_lib.py - what every python test shares (tests/scenario, faults,
syslog, dist): log lines stamped with the test's time, the skip / fail
conventions (exit 77 to skip, a failure instead under PLUMBLINE_REQUIRE_BPF=1),
the checks before a test that needs BPF, a private temp dir, a free loopback
port, waiting for a condition, the real sensor started with the shipped rules
and a state directory of its own (ready on sd_notify READY=1) and its JSON
records, and the copy of those records kept for schema_records.

A test outside tests/scenario imports it with
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenario"))
    import scenario_lib as sl
(docs/contributing.md#writing-a-scenario).
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

T0 = time.monotonic()
BTF = "/sys/kernel/btf/vmlinux"
SSHD = "/usr/sbin/sshd"


def log(msg):
    print(f"[{time.monotonic() - T0:5.1f}s] {msg}", flush=True)


def skip(why, bpf=True):
    """Exit 77 with the reason; under PLUMBLINE_REQUIRE_BPF=1 (CI) a failure
    instead, unless bpf=False: a reason CI may have too (PID 1 is not
    systemd)."""
    if bpf and os.environ.get("PLUMBLINE_REQUIRE_BPF") == "1":
        print(f"FAIL (PLUMBLINE_REQUIRE_BPF=1): {why}", file=sys.stderr)
        sys.exit(1)
    print(f"SKIP: {why}", file=sys.stderr)
    sys.exit(77)


class Failure(Exception):
    pass


def fail(why):
    raise Failure(why)


def need_bpf(why_root="the sensor loads BPF"):
    """Skip (or fail, under PLUMBLINE_REQUIRE_BPF=1) unless this process can run the sensor."""
    if os.geteuid() != 0:
        skip(f"not root: {why_root}")
    if not os.access(BTF, os.R_OK):
        skip(f"no kernel BTF at {BTF}")


def temp_dir(prefix):
    """A private temp dir for the test's files (finish() removes it)."""
    return tempfile.mkdtemp(prefix=prefix)


def free_port(kind=socket.SOCK_STREAM):
    """A loopback port nothing listens on now (TCP, or kind=SOCK_DGRAM)."""
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_for(what, pred, timeout=20.0, every=0.1):
    """pred()'s first true value within timeout seconds; a failure naming what otherwise."""
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > deadline:
            fail(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


def read_records(path):
    """The JSON records of a JSON Lines file written so far (the last line may be half-written)."""
    try:
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8").split("\n")
    except FileNotFoundError:
        return []
    return [json.loads(l) for l in lines[:-1] if l.strip()]


_records_ready = False


def keep_records(path, name, ocsf=False):
    """Copy the records file `path` for schema_records: into this test's
    directory (PLUMBLINE_TEST_RECORDS_DIR, set by ctest; OCSF findings into its
    ocsf/), emptied by the first call of the process so that what an earlier
    run left is not validated again (tests/helpers/test_records.h does the same
    for the C tests). Nothing outside ctest."""
    global _records_ready
    dest = os.environ.get("PLUMBLINE_TEST_RECORDS_DIR")
    if not dest:
        return
    if not _records_ready:
        for sub in (dest, os.path.join(dest, "ocsf")):
            os.makedirs(sub, exist_ok=True)
            for f in os.listdir(sub):
                if f.endswith(".jsonl"):
                    os.unlink(os.path.join(sub, f))
        _records_ready = True
    if os.path.isfile(path) and not os.path.islink(path):
        shutil.copyfile(path, os.path.join(dest, "ocsf" if ocsf else "", f"{name}-{os.getpid()}.jsonl"))


class Daemon:
    """A program that says READY=1 over sd_notify (plumbline run in any
    form): argv started with NOTIFY_SOCKET=D/NAME.notify, its stderr appended
    to D/NAME.log, ready when the constructor returns (a failure if it exits
    first or takes over 30 s)."""

    def __init__(self, d, name, argv, env=None):
        self.name = name
        self.log = os.path.join(d, f"{name}.log")
        notify = os.path.join(d, f"{name}.notify")
        ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        ns.bind(notify)
        env = dict(env if env is not None else os.environ, NOTIFY_SOCKET=notify)
        env.pop("LD_PRELOAD", None)
        self.p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=open(self.log, "a"), env=env)
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
                    fail(f"{name} exited {self.p.returncode} at start: {self.log_text()}")
                if time.time() > deadline:
                    self.kill()
                    fail(f"{name} did not get ready in 30 s: " + self.log_text())
        finally:
            os.unlink(notify)
            ns.close()

    def signal_and_wait(self, sig, needle, timeout=10):
        """Send sig, then wait for needle in what the log gets after it; that text."""
        start = len(self.log_text())
        self.p.send_signal(sig)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.log_text()[start:]
            if needle in text:
                return text
            time.sleep(0.1)
        fail(f"no {needle!r} in {self.name}'s log after signal {sig}: {self.log_text()[start:]}")

    def stop(self):
        """SIGINT and wait (killed past 30 s); a failure unless it exited 0."""
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
            try:
                self.p.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()
                fail(f"{self.name} did not stop on SIGINT")
        self.stopped()
        if self.p.returncode != 0:
            fail(f"{self.name} exited {self.p.returncode}: {self.log_text()}")

    def stopped(self):
        """What a subclass does once the process is gone, whatever its exit."""

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()

    def log_text(self):
        with open(self.log, errors="replace") as f:
            return f.read()


class Sensor(Daemon):
    """The real sensor: `plumbline run --no-live --state-dir D/NAME.state
    --json D/NAME.jsonl` with the shipped rules, its stderr in D/NAME.log.
    defaults adds --no-syslog --process-records; extra comes last. Its records
    are kept for schema_records when it stops."""

    DEFAULTS = ("--no-syslog", "--process-records")

    def __init__(self, d, name, sensor, extra=(), defaults=True, env=None):
        self.json = os.path.join(d, f"{name}.jsonl")
        self.state = os.path.join(d, f"{name}.state")
        super().__init__(d, name, [sensor, "run", "--no-live", "--state-dir", self.state, "--json", self.json,
                                   *(self.DEFAULTS if defaults else ()), *extra], env)

    def records(self):
        """The records written so far, as read_records() gives them, but read
        incrementally: only the bytes written since the last call are parsed
        (a storm's thousands of process records made each poll of a test
        re-parse megabytes, seconds that a test's time-to-alert then counted).
        A file replaced (another inode) or cut short is read again from its
        start. The records are shared between calls: don't change them."""
        try:
            f = open(self.json, "rb")
        except FileNotFoundError:
            self._recs, self._off, self._ino, self._tail = [], 0, None, b""
            return []
        with f:
            st = os.fstat(f.fileno())
            if st.st_ino != getattr(self, "_ino", None) or st.st_size < self._off:
                self._recs, self._off, self._ino, self._tail = [], 0, st.st_ino, b""
            f.seek(self._off)
            data = f.read()
        self._off += len(data)
        lines = (self._tail + data).split(b"\n")
        self._tail = lines[-1]  # the last line may be half-written
        self._recs.extend(json.loads(l.decode("utf-8")) for l in lines[:-1] if l.strip())
        return list(self._recs)

    def stopped(self):
        keep_records(self.json, self.name)


# ---- a real sshd of the test's own (test_sshd_preload.py, test_fleet.py) ----

def need_sshd(lib):
    """Skip unless the sshd scenarios can run here: BPF (need_bpf), Debian's
    sshd, ssh and ssh-keygen, and a root account that is not locked (sshd
    without PAM refuses even key logins to one); fail when the implant LIB
    was not built."""
    need_bpf("the sensor loads BPF, and sshd needs root")
    if not os.access(SSHD, os.X_OK):
        skip(f"no {SSHD} (Debian's openssh-server)")
    for tool in ("ssh", "ssh-keygen"):
        if not shutil.which(tool):
            skip(f"no {tool} (Debian's openssh-client)")
    if not os.path.exists(lib):
        print(f"FAIL: {lib} was not built", file=sys.stderr)
        sys.exit(1)
    try:
        with open("/etc/shadow") as f:
            root = next((ln.split(":") for ln in f if ln.startswith("root:")), None)
        if root and root[1].startswith("!"):
            skip("root's account is locked ('!' in /etc/shadow): sshd without PAM refuses even key logins")
    except OSError:
        pass


class Sshd:
    """Debian's sshd, on loopback, with everything of its own in d."""

    def __init__(self, d):
        self.d = d
        self.port = free_port()
        self.conf = os.path.join(d, "sshd_config")
        self.pidfile = os.path.join(d, "sshd.pid")
        self.log = os.path.join(d, "sshd.log")
        self.hostkey = os.path.join(d, "ssh_host_ed25519_key")
        self.key = os.path.join(d, "id_ed25519")
        for k in (self.hostkey, self.key):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "plumbline-test", "-f", k],
                           check=True, stdin=subprocess.DEVNULL)
        shutil.copy(self.key + ".pub", os.path.join(d, "authorized_keys"))
        with open(self.conf, "w") as f:
            f.write(f"ListenAddress 127.0.0.1\nPort {self.port}\nHostKey {self.hostkey}\n"
                    f"PidFile {self.pidfile}\nAuthorizedKeysFile {d}/authorized_keys\n"
                    "PermitRootLogin prohibit-password\nPubkeyAuthentication yes\n"
                    "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n"
                    "StrictModes no\nLogLevel ERROR\nUseDNS no\nPrintMotd no\nPrintLastLog no\n"
                    "X11Forwarding no\nSubsystem sftp internal-sftp\n")
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # the privilege-separation chroot
        self.p = None

    def start(self, preload=None):
        if os.path.exists(self.pidfile):
            os.unlink(self.pidfile)
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        if preload:
            env["LD_PRELOAD"] = preload
        self.p = subprocess.Popen([SSHD, "-D", "-f", self.conf, "-E", self.log], env=env,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # sshd writes its pid file once its socket listens: no probe connection, which would
        # start a login child of its own
        deadline = time.time() + 10
        while time.time() < deadline:
            if self.p.poll() is not None:
                fail(f"sshd exited {self.p.returncode} at start: {self.log_text()}")
            try:
                with open(self.pidfile) as f:
                    if f.read().strip() == str(self.p.pid):
                        return self.p.pid
            except FileNotFoundError:
                pass
            time.sleep(0.05)
        fail("sshd wrote no pid file")

    def login(self):
        r = subprocess.run(["ssh", "-i", self.key, "-p", str(self.port), "-o", "StrictHostKeyChecking=no",
                            "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR",
                            "-o", "IdentitiesOnly=yes", "-F", "/dev/null", "root@127.0.0.1", "true"],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            fail(f"ssh login failed ({r.returncode}): {r.stderr.strip()}; sshd log: {self.log_text()}")

    def stop(self):
        """SIGTERM the listener (its pid file), then any login child of ours still there."""
        pid = None
        try:
            with open(self.pidfile) as f:
                pid = int(f.read().strip())
        except (OSError, ValueError):
            pass
        if self.p and self.p.poll() is None:
            pid = pid or self.p.pid
        if pid:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        if self.p:
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.p = None
        # login children run in sessions of their own: find ours by our config's path
        for pid in self.children():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.unlink(self.pidfile)
        except FileNotFoundError:
            pass

    def children(self):
        mine = []
        for e in os.listdir("/proc"):
            if e.isdigit():
                try:
                    with open(f"/proc/{e}/cmdline", "rb") as f:
                        if self.conf.encode() in f.read().split(b"\0"):
                            mine.append(int(e))
                except OSError:
                    pass
        return mine

    def log_text(self):
        try:
            with open(self.log) as f:
                return f.read().strip() or "(empty)"
        except OSError:
            return "(none)"


def login_children(recs, listener):
    """The process records of the listener's per-connection children (sshd ... -R)."""
    return [r for r in recs if r.get("type") == "process" and r.get("ppid") == listener and r.get("exe") == SSHD
            and r.get("image") == "exec" and "-R" in (r.get("cmdline") or "").split()
            and r.get("end_reason") == "exit"]


def wait_login_children(sensor, listener, n, timeout=15):
    deadline = time.time() + timeout
    while True:
        kids = login_children(sensor.records(), listener)
        if len(kids) >= n or time.time() > deadline:
            return kids
        time.sleep(0.2)


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
