# SPDX-License-Identifier: MIT
"""
test_exec_flood.py - an exec flood by one unprivileged user against a small
baseline store, with the real sensor on the real kernel.

A tiny static binary is built once and copied N times with its build-id note
patched (N distinct binaries, as a hostile user would link them). A known
binary (its own build-id) is run by root until its baseline is ready; then
`nobody` runs the N binaries as fast as two shell loops go, into a 64 KiB ring
buffer (so records are lost, end records among them). Then:

  - the known binary's ready baseline is still in the store (a flood of new
    binaries never evicts a current ready baseline);
  - nobody's new baselines beyond its share (1/8 of the store) were refused
    and counted for uid 65534 (stats baselines.refused_users), and said once
    in the log;
  - the stats interval held (no gap over 2 intervals: saves are off the loop);
  - tracked_processes came back near the number of processes alive (entries
    of processes whose end record was lost are swept);
  - the state directory holds no more baseline files than the store's bound.

Usage: test_exec_flood.py PLUMBLINE. Needs root and BPF (skips, 77, without).
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenario"))
from scenario_lib import Failure, Sensor, fail, finish, log, need_bpf, skip, temp_dir, wait_for  # noqa: E402

STORE = 200            # --max-baselines: nobody's share is 25
FLOOD = 1200           # distinct binaries run by nobody
NOBODY = 65534
MARKER = bytes.fromhex("5eed" * 10)  # the build-id the binary is linked with, patched per copy

TINY_C = r"""
void _start(void)
{
	__asm__ volatile("mov $60, %eax\n\txor %edi, %edi\n\tsyscall");
}
"""


def build(d):
    """The tiny binary, linked with MARKER as its build-id; its bytes and where MARKER is."""
    src, out = os.path.join(d, "tiny.c"), os.path.join(d, "tiny")
    with open(src, "w") as f:
        f.write(TINY_C)
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        skip("no C compiler to build the flood's binaries", bpf=False)
    r = subprocess.run([cc, "-Os", "-static", "-nostdlib", "-o", out, src,
                        "-Wl,--build-id=0x" + MARKER.hex()], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"cc failed: {r.stderr}")
    data = open(out, "rb").read()
    at = data.find(MARKER)
    if at < 0 or data.find(MARKER, at + 1) >= 0:
        fail("the build-id marker is not in the binary exactly once")
    return data, at


def copy_with_id(data, at, n, path):
    ident = n.to_bytes(4, "big") + b"\xf1\x00\xd0" * 5 + b"\x01"
    # the mode at creation: a chmod each costs more than the write
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o755)
    with os.fdopen(fd, "wb") as f:
        f.write(data[:at] + ident[:len(MARKER)] + data[at + len(MARKER):])


def stats_of(sensor):
    return [r for r in sensor.records() if r.get("type") == "stats"]


def alive():
    return sum(1 for e in os.listdir("/proc") if e.isdigit())


def baseline_files(state):
    return glob.glob(os.path.join(state, "baselines", "*.json"))


def known_baseline(state, exe):
    for p in baseline_files(state):
        try:
            b = json.load(open(p))
        except (OSError, ValueError):
            continue
        if b.get("exe") == exe:
            return b
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    need_bpf()
    os.umask(0o022)
    d = temp_dir("pl-exec-flood-")
    os.chmod(d, 0o755)  # nobody runs what is in it
    s, ok = None, False
    try:
        data, at = build(d)
        flood_dir = os.path.join(d, "flood")
        os.mkdir(flood_dir, 0o755)
        for i in range(FLOOD):
            copy_with_id(data, at, i + 1, os.path.join(flood_dir, f"b{i}"))
        known = os.path.join(d, "known")
        copy_with_id(data, at, 0, known)
        log(f"{FLOOD} binaries made")

        s = Sensor(d, "flood", sys.argv[1],
                   extra=["--max-baselines", str(STORE), "--min-samples", "3", "--ringbuf-kb", "64",
                          "--stats-interval", "1", "--flush-interval", "1"])
        log("sensor ready")
        # run until ready: a run whose records were lost (the small ring buffer,
        # other work on the machine) is not learned
        def ready():
            subprocess.run([known], check=True)
            return (known_baseline(s.state, known) or {}).get("samples", 0) >= 3
        wait_for("the known binary's baseline ready on disk", ready, timeout=20, every=0.05)
        before = known_baseline(s.state, known)
        log(f"known baseline ready: {before['key']} ({before['samples']} samples)")

        t0 = time.time()
        loop = 'for f in "$@"; do "$f"; done'
        names = [os.path.join(flood_dir, f"b{i}") for i in range(FLOOD)]
        runners = [subprocess.Popen(["/bin/sh", "-c", loop, "sh", *names[k::2]], user=NOBODY, group=NOBODY,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for k in range(2)]
        for r in runners:
            r.wait(timeout=120)
        t1 = time.time()
        log(f"flood: {FLOOD} binaries run by uid {NOBODY} in {t1 - t0:.1f} s")

        # tracked_processes back near what is alive (swept within a few passes)
        problems = []

        def settled():
            st = stats_of(s)
            if not st or st[-1]["time_ns"] / 1e9 < t1 + 1:
                return None
            return st[-1] if st[-1]["tracked_processes"] <= alive() * 1.1 + 32 else None
        try:
            wait_for("tracked_processes back near the processes alive", settled, timeout=20)
        except Failure as e:
            problems.append(str(e))
        last = stats_of(s)[-1]
        log(f"after: tracked_processes {last['tracked_processes']} with {alive()} alive, "
            f"processes_swept {last.get('processes_swept')}, ringbuf_full {last['kernel_drops']['ringbuf_full']}, "
            f"sensor_maxrss_kb {last['sensor_maxrss_kb']}")
        bl = last["baselines"]
        log(f"baselines: {bl}")
        s.stop()
        log("sensor stopped")

        after = known_baseline(s.state, known)
        if not after or after["key"] != before["key"] or after["samples"] < before["samples"]:
            problems.append(f"the ready baseline of the known binary was evicted by the flood ({after})")
        top = bl.get("refused_users") or [{}]
        if bl.get("refused_user", 0) < FLOOD // 4 or top[0].get("uid") != NOBODY:
            problems.append("nobody's new baselines beyond its share were not refused and counted")
        said = s.log_text().count(f"uid {NOBODY} holds its share")
        if said != 1:
            problems.append(f"the refusals of uid {NOBODY} were said {said} times in the log, not once")
        times = [r["time_ns"] / 1e9 for r in stats_of(s) if r["time_ns"] / 1e9 >= t0 - 1]
        gap = max(b - a for a, b in zip(times, times[1:]))
        log(f"stats: largest gap {gap:.2f} s over {len(times)} records from the flood on")
        if gap > 2.0:
            problems.append(f"a {gap:.1f} s gap between stats records (interval 1 s)")
        files = len(baseline_files(s.state))
        log(f"state directory: {files} baseline files (bound {STORE})")
        if files > STORE:
            problems.append(f"{files} baseline files left for a store of {STORE}")
        if problems:
            fail("; ".join(problems))
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        finish([s], d, ok)


if __name__ == "__main__":
    sys.exit(main())
