#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
soak.py - the real sensor under a realistic mixed load for a long run
(default 60 minutes): is its memory flat after warm-up, is every loss counted,
and are the alerts the ones the load asks for and no others. A benchmark, not
a ctest: it takes an hour and its figures depend on the machine
(docs/performance.md, "Soak").

The sensor runs as shipped (its rules and defaults, a state dir of its own,
JSON output with --process-records, --stats-interval 10, --metrics on a free
loopback port). The load runs in a cgroup v2 group of its own, so that its
processes can be told from everything else on the machine; the driver (this
script) moves itself into it once the sensor is up, and every load process
inherits it:

  builds   `make -j2` of a copy of this tree's kernel-free C sources
           (common/, rules/, baselines/) with a plain Makefile, in a loop;
  logins   an sshd of its own on a loopback port (tests/scenario/
           test_sshd_preload.py's), `ssh -i KEY root@127.0.0.1 true` every 5 s;
  storms   every cycle, three times, a service retrying a missing config in a
           tight loop for 10 s (tests/scenario/test_storms.py's, as a binary of
           its own: rules throttle per binary, and other work storms with python3);
  runaway  every cycle, a spinner binary of its own on-CPU for 15 s (builds
           paused; SCHED_FIFO, so that it gets the core a runaway would get);
  flood    every cycle, 2000 execs of distinct tiny static binaries (no
           build-id: each is hashed) and 2000 of /bin/true, as nobody;
  idle     every cycle, 90 s with no builds and no logins.

One cycle is 10 minutes (CYCLE below). Every 10 s it samples the sensor's
VmRSS, VmHWM, heap (the [heap] and anonymous mappings of /proc/PID/smaps),
open fds, threads, CPU time, and the loss counters of its last stats record
and of its metrics endpoint. At the end, a markdown report on stdout and in
OUT/report.md, the samples in OUT/samples.csv, the injected events in
OUT/events.log, the sensor's records and log in OUT/.

Exit status 1 when: RSS or heap grew after warm-up beyond the bound (a
least-squares slope above --bound-kb per 10 minutes, with the net growth
after warm-up above half of what that slope allows: sustained, not one
step); an injected storm or runaway was not alerted; an alert at WARNING or
above on a soak process that no injected event explains (below WARNING too
with --strict: the deviation notices, which a loaded machine raises on
ordinary work, are listed apart); a loss the stats did not count (an
exec of the flood without its record and no loss counter grown, or a
metrics loss counter above the stats' own); or the sensor died. 2 on a
usage or setup error.

Usage (root, BPF, cgroup v2, sshd, ssh, cc, make, setpriv, chrt):
  tests/bench/soak.py [--minutes 60] [--warmup MIN] [--bound-kb 2048]
                      [--out DIR] [--strict] [--sensor-nice N] [--sensor build/plumbline]
"""
import argparse
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "scenario"))
import scenario_lib as sl  # noqa: E402
import soak_report as rep  # noqa: E402

_argv, sys.argv = sys.argv, [sys.argv[0], "-", "-"]  # its module reads argv at import
import test_sshd_preload as sshd_mod  # noqa: E402
sys.argv = _argv

CYCLE = 600
# (offset in the cycle, kind); builds pause over [BUILD_PAUSE), logins over [IDLE)
SCHEDULE = [(60, "storm"), (150, "flood"), (240, "storm"), (305, "runaway"), (450, "storm")]
BUILD_PAUSE = (295, 420)
IDLE = (330, 420)
SAMPLE_S = 10
LOGIN_EVERY_S = 5
STORM_S, SPIN_S, FLOOD_N = 10, 15, 2000

SPIN_C = r"""
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? strtol(argv[1], NULL, 10) : 15);
	volatile unsigned long x = 0;
	while (time(NULL) < end)
		x = x * 31 + 7;
	return 0;
}
"""
# test_storms.py's service retrying a missing config, as a binary of the soak's
# own: a rule's throttle is per binary, and other work on the machine storms
# with python3 too
STORM_C = r"""
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	while (access(argv[2], F_OK))
		usleep(50000);
	time_t end = time(NULL) + strtol(argv[3], NULL, 10);
	while (time(NULL) < end) {
		int fd = open(argv[1], O_RDONLY);
		if (fd >= 0)
			close(fd);
		usleep(500);
	}
	return 0;
}
"""
TINY_C = "void _start(void) { __asm__ volatile(\"mov $60, %eax\\n\\txor %edi, %edi\\n\\tsyscall\"); }\n"
MAKEFILE = """# the soak's build: every source compiled, archived
SRCS := $(wildcard common/*.c rules/*.c baselines/*.c)
OBJS := $(SRCS:.c=.o)
CFLAGS := -std=gnu17 -D_GNU_SOURCE -O2 -g -Icommon -Irules -Ibaselines -Ioutputs -Ibpf -I/usr/include/json-c
libsoak.a: $(OBJS)
\tar rcs $@ $^
%.o: %.c
\t$(CC) $(CFLAGS) -c $< -o $@
clean:
\trm -f $(OBJS) libsoak.a
"""


class Events:
    """The injected events, each logged with its time (OUT/events.log and stdout)."""

    def __init__(self, path, t0):
        self.f = open(path, "a")
        self.t0 = t0
        self.items = []
        self.lock = threading.Lock()

    def add(self, kind, detail="", **kw):
        # t on the monotonic clock (other work on a shared machine may step the
        # wall clock); wall to match the alerts' time_ns
        now, t = time.time(), time.monotonic() - self.t0
        ev = dict(kind=kind, detail=detail, wall=now, t=t, **kw)
        with self.lock:
            self.items.append(ev)
            line = f"{time.strftime('%H:%M:%S', time.gmtime(now))} +{t:7.1f}s {kind:9} {detail}"
            self.f.write(line + "\n")
            self.f.flush()
        print(line, flush=True)
        return ev


class Tail:
    """A growing JSONL file of the sensor's, read incrementally, keeping only
    what the report needs (a busy machine writes gigabytes in an hour): the
    stats records, the alerts, and the few fields of the soak's own records."""

    KEEP = ("type", "pid", "ppid", "filename", "image", "cpu_ns", "duration_ns", "start_ns", "image_start_ns",
            "time_ns", "end_ns", "end_reason")

    def __init__(self, path, cgroup):
        self.path, self.off, self.buf = path, 0, b""
        self.mark = b'"cgroup":' + json.dumps(cgroup).encode()
        self.stats, self.alerts, self.soak = [], [], []

    def read(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.off)
                data = f.read(64 << 20)
        except FileNotFoundError:
            return self
        self.off += len(data)
        lines = (self.buf + data).split(b"\n")
        self.buf = lines.pop()
        for line in lines:
            if line.startswith(b'{"type":"stats"'):
                self.stats.append(json.loads(line))
            elif line.startswith(b'{"type":"alert"'):
                self.alerts.append(json.loads(line))
            elif self.mark in line:
                r = json.loads(line)
                self.soak.append({k: r.get(k) for k in self.KEEP})
        return self

    def read_all(self):
        while self.read() and self.buf_pending():
            pass
        return self

    def buf_pending(self):
        try:
            return os.path.getsize(self.path) > self.off
        except OSError:
            return False


class Cgroup:
    """A cgroup v2 group of the soak's own, killed and removed on exit."""

    def __init__(self):
        mnt = None
        with open("/proc/mounts") as f:
            for line in f:
                p = line.split()
                if p[2] == "cgroup2":
                    mnt = p[1]
                    break
        if not mnt:
            sys.exit("soak: no cgroup v2 mount: the load cannot be told apart")
        self.rel = f"/plumbline-soak-{os.getpid()}"
        self.path = mnt + self.rel
        self.root = mnt
        os.mkdir(self.path)

    def enter(self):
        with open(os.path.join(self.path, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))

    def pids(self):
        try:
            with open(os.path.join(self.path, "cgroup.procs")) as f:
                return [int(x) for x in f.read().split()]
        except OSError:
            return []

    def remove(self):
        with open(os.path.join(self.root, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
        for _ in range(100):
            pids = self.pids()
            if not pids:
                break
            for p in pids:
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.1)
        try:
            os.rmdir(self.path)
        except OSError as e:
            print(f"soak: cannot remove {self.path}: {e}", file=sys.stderr)


class Load:
    """The load's loops (builds, logins) and its injections, each on a thread."""

    def __init__(self, work, events):
        self.work, self.ev = work, events
        self.stop = threading.Event()
        self.builds_on = threading.Event()
        self.logins_on = threading.Event()
        self.builds_on.set()
        self.logins_on.set()
        self.threads = []
        self.injections = []  # dicts: kind, wall, pid(s) of the injection
        self.logins = self.login_failures = self.builds = self.build_failures = 0
        self.sshd = None
        self.errors = []

    def setup(self):
        w = self.work
        src = os.path.join(w, "src")
        os.makedirs(src)
        for sub in ("common", "rules", "baselines", "outputs", "bpf"):
            shutil.copytree(os.path.join(TOP, sub), os.path.join(src, sub),
                            ignore=shutil.ignore_patterns("*.o", "*.a"))
        with open(os.path.join(src, "Makefile"), "w") as f:
            f.write(MAKEFILE)
        self.src = src
        for name, text, flags in (("spin", SPIN_C, ["-O1"]), ("storm", STORM_C, ["-O1"]),
                                  ("tiny", TINY_C, ["-static", "-nostdlib", "-Os", "-Wl,--build-id=none"])):
            c = os.path.join(w, name + ".c")
            with open(c, "w") as f:
                f.write(text)
            subprocess.run(["cc", *flags, "-o", os.path.join(w, name), c], check=True)
        self.flood_dir = os.path.join(w, "flood")
        os.makedirs(self.flood_dir)
        with open(os.path.join(w, "tiny"), "rb") as f:
            tiny = f.read()
        for i in range(FLOOD_N):  # distinct contents: trailing bytes past the ELF's segments
            p = os.path.join(self.flood_dir, f"b{i:05d}")
            with open(p, "wb") as f:
                f.write(tiny + i.to_bytes(4, "little"))
            os.chmod(p, 0o755)
        for p in (w, self.flood_dir):
            os.chmod(p, 0o755)
        os.makedirs(os.path.join(w, "ssh"))
        self.sshd = sshd_mod.Sshd(os.path.join(w, "ssh"))

    def start(self):
        self.sshd.start()
        self.ev.add("sshd", f"listening on 127.0.0.1:{self.sshd.port}, pid {self.sshd.p.pid}")
        for fn in (self.build_loop, self.login_loop):
            t = threading.Thread(target=fn, daemon=True)
            t.start()
            self.threads.append(t)

    def build_loop(self):
        while not self.stop.is_set():
            if not self.builds_on.wait(1):
                continue
            subprocess.run(["make", "-s", "clean"], cwd=self.src, stdout=subprocess.DEVNULL)
            t = time.monotonic()
            r = subprocess.run(["make", "-s", "-j2"], cwd=self.src, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
            self.builds += 1
            if r.returncode != 0:
                self.build_failures += 1
                self.ev.add("build", f"make failed ({r.returncode}): {r.stderr[-300:]}")
            elif self.builds % 10 == 1:
                self.ev.add("build", f"build {self.builds} took {time.monotonic() - t:.0f} s")
            self.stop.wait(5)

    def login_loop(self):
        while not self.stop.is_set():
            if self.logins_on.wait(1):
                try:
                    self.sshd.login()
                    self.logins += 1
                except (sl.Failure, subprocess.TimeoutExpired) as e:
                    self.login_failures += 1
                    self.ev.add("login", f"failed: {e}"[:300])
                self.stop.wait(LOGIN_EVERY_S)

    def inject(self, kind):
        def guarded():
            try:
                getattr(self, f"inject_{kind}")()
            except Exception as e:  # a broken injection fails the soak, it does not end it
                self.errors.append(f"{kind}: {e!r}")
                self.ev.add("error", f"{kind} injection failed: {e!r}")
        t = threading.Thread(target=guarded, daemon=True)
        t.start()
        self.threads.append(t)

    def inject_storm(self):
        n = sum(1 for i in self.injections if i["kind"] == "storm")
        conf = os.path.join(self.work, "conf", f"app-config-{n}.yaml")
        go = os.path.join(self.work, f"go-{n}")
        p = subprocess.Popen([os.path.join(self.work, "storm"), conf, go, str(STORM_S)])
        self.stop.wait(2.5)  # a service that has been running
        open(go, "w").close()
        ev = self.ev.add("storm", f"pid {p.pid} retries {conf} for {STORM_S} s", pid=p.pid, path=conf)
        self.injections.append(ev)
        p.wait()

    def inject_runaway(self):
        # SCHED_FIFO: at normal priority on a loaded machine the spinner gets a
        # fraction of a core, below the rule's 90 % (the kernel's RT throttling
        # still leaves 5 % of that core to the rest)
        spin = [os.path.join(self.work, "spin"), str(SPIN_S)]
        p = subprocess.Popen(["chrt", "-f", "1", *spin] if shutil.which("chrt") else spin)
        ev = self.ev.add("runaway", f"pid {p.pid} spins for {SPIN_S} s", pid=p.pid)
        self.injections.append(ev)
        p.wait()

    def inject_flood(self):
        script = f'n=0; for f in {self.flood_dir}/b*; do "$f" && n=$((n+1)); /bin/true; done; echo $n'
        t = time.monotonic()
        p = subprocess.Popen(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                              "/bin/sh", "-c", script], stdout=subprocess.PIPE, text=True)
        ev = self.ev.add("flood", f"pid {p.pid}: {FLOOD_N} distinct binaries + {FLOOD_N} /bin/true as nobody",
                         pid=p.pid, dir=self.flood_dir)
        out, _ = p.communicate()
        ev["ran"] = int(out.strip() or 0)
        ev["end_wall"] = time.time()
        self.injections.append(ev)
        self.ev.add("flood", f"done: {ev['ran']} of {FLOOD_N} ran, {time.monotonic() - t:.1f} s")

    def shutdown(self):
        self.stop.set()
        self.builds_on.set()
        self.logins_on.set()
        for t in self.threads:
            t.join(30)
        if self.sshd:
            self.sshd.stop()


def proc_sample(pid):
    """VmRSS, VmHWM, heap (KiB), fds, threads, CPU seconds of pid."""
    st = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            st[k] = v.split()
    heap = 0
    with open(f"/proc/{pid}/smaps") as f:
        counted = False
        for line in f:
            p = line.split()
            if "-" in p[0] and not p[0].endswith(":"):
                counted = len(p) < 6 or p[5] == "[heap]"  # anonymous mapping or the heap
            elif counted and p[0] == "Rss:":
                heap += int(p[1])
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return dict(rss_kb=int(st["VmRSS"][0]), hwm_kb=int(st["VmHWM"][0]), heap_kb=heap,
                fds=len(os.listdir(f"/proc/{pid}/fd")), threads=int(st["Threads"][0]),
                cpu_s=(int(stat[11]) + int(stat[12])) / ticks)


def scrape(port):
    """The metrics endpoint's loss counters {cause: n} and output drops, or None."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
            text = r.read().decode()
    except OSError:
        return None
    out = {}
    for line in text.splitlines():
        for name in ("plumbline_losses_total{cause=", "plumbline_output_records_dropped_total{output="):
            if line.startswith(name):
                label = line[len(name) + 1:line.index('"', len(name) + 1)]
                key = label if "losses" in name else f"{label}.dropped"
                out[key] = float(line.rsplit(" ", 1)[1])
    return out


def in_window(t, lo_hi):
    return lo_hi[0] <= t < lo_hi[1]


def run(args, events, load, sensor, metrics_port, tail):
    """The load's schedule and the samples, until the run's end or the sensor's death; the samples."""
    samples = []
    t0 = time.monotonic()
    end = t0 + args.minutes * 60
    done = set()
    next_sample = t0
    while time.monotonic() < end:
        now = time.monotonic()
        t = now - t0
        c, off = int(t // CYCLE), t % CYCLE
        for at, kind in SCHEDULE:
            if off >= at and (c, at) not in done:
                done.add((c, at))
                load.inject(kind)
        build = not in_window(off, BUILD_PAUSE)
        login = not in_window(off, IDLE)
        if build != load.builds_on.is_set():
            (load.builds_on.set if build else load.builds_on.clear)()
            events.add("builds", "on" if build else "paused")
        if login != load.logins_on.is_set():
            (load.logins_on.set if login else load.logins_on.clear)()
            events.add("idle", "over" if login else "no builds, no logins")
        if now >= next_sample:
            next_sample += SAMPLE_S
            if sensor.p.poll() is not None:
                events.add("sensor", f"DIED: exit {sensor.p.returncode}")
                return samples
            s = dict(t=round(t, 1), wall=round(time.time(), 1), **proc_sample(sensor.p.pid))
            tail.read()
            if tail.stats:
                s.update(rep.loss_counters(tail.stats[-1]))
                s.update(rep.state_gauges(tail.stats[-1]))
            m = scrape(metrics_port)
            s["metrics_ok"] = int(m is not None)
            samples.append(s)
        time.sleep(0.5)
    return samples


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--warmup", type=float, help="minutes (default: 10, or a third of a shorter run)")
    ap.add_argument("--bound-kb", type=float, default=2048, help="allowed growth per 10 minutes after warm-up")
    ap.add_argument("--out", help="results directory (default: /tmp/plumbline-soak-TIME)")
    ap.add_argument("--strict", action="store_true",
                    help="fail on unexplained alerts below WARNING too (deviation notices)")
    ap.add_argument("--sensor-nice", type=int, default=0,
                    help="the sensor's nice value (default 0, as shipped): -10 tells starvation from defects")
    ap.add_argument("--sensor", default=os.path.join(TOP, "build", "plumbline"))
    args = ap.parse_args()
    if args.warmup is None:
        args.warmup = min(10.0, args.minutes / 3)
    sl.need_bpf()
    for tool in ("sshd", "ssh", "ssh-keygen", "cc", "make", "setpriv", "chrt", "python3"):
        if not shutil.which(tool) and not os.access(f"/usr/sbin/{tool}", os.X_OK):
            sys.exit(f"soak: no {tool}")
    out = os.path.abspath(args.out or time.strftime("/tmp/plumbline-soak-%Y%m%d-%H%M%S", time.gmtime()))
    os.makedirs(out, exist_ok=True)
    work = sl.temp_dir("pl-soak-work-")
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(130))
    cg = load = sensor = None
    code = 2
    try:
        events = Events(os.path.join(out, "events.log"), time.monotonic())
        load = Load(work, events)
        load.setup()
        port = sl.free_port()
        sensor = sl.Sensor(out, "sensor", os.path.abspath(args.sensor),
                           extra=("--stats-interval", str(SAMPLE_S), "--metrics", f"127.0.0.1:{port}"))
        for tid in os.listdir(f"/proc/{sensor.p.pid}/task") if args.sensor_nice else ():
            os.setpriority(os.PRIO_PROCESS, int(tid), args.sensor_nice)  # nice is per thread
        events.add("sensor", f"pid {sensor.p.pid} ready (nice {args.sensor_nice}), metrics on 127.0.0.1:{port}, records {sensor.json}")
        events.t0 = time.monotonic()
        cg = Cgroup()
        cg.enter()
        events.add("cgroup", f"{cg.rel} (the driver and all its load)")
        load.start()
        tail = Tail(sensor.json, cg.rel)
        samples = run(args, events, load, sensor, port, tail)
        died = sensor.p.poll() is not None
        load.shutdown()
        final_metrics = None if died else scrape(port)
        time.sleep(3)  # the last exits' records
        if not died:
            sensor.p.send_signal(signal.SIGINT)
            try:
                sensor.p.wait(60)
            except subprocess.TimeoutExpired:
                sensor.kill()
        with open(os.path.join(out, "samples.csv"), "w", newline="") as f:
            keys = sorted({k for s in samples for k in s}, key=lambda k: (k != "t", k))
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            w.writerows(samples)
        text, ok = rep.report(args, samples, tail.read_all(), load, final_metrics,
                              died=died, exit_code=sensor.p.returncode)
        with open(os.path.join(out, "report.md"), "w") as f:
            f.write(text)
        print(text)
        print(f"results in {out}")
        code = 0 if ok else 1
    except sl.Failure as e:  # the setup: sshd, the sensor
        print(f"soak: {e}", file=sys.stderr)
        code = 2
    except (KeyboardInterrupt, SystemExit) as e:
        print(f"soak: interrupted ({e!r}); cleaning up", file=sys.stderr)
        code = 130
    finally:
        if load:
            load.stop.set()
            if load.sshd:
                load.sshd.stop()
        if cg:
            cg.remove()
        if sensor:
            sensor.kill()
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(code)


if __name__ == "__main__":
    main()
