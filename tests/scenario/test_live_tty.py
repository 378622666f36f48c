#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_live_tty.py - the live view as a person sees it: on a terminal, redrawn
in place like top; into a pipe, plain lines.

The real sensor, a rule of this test's own (an exec of a program named
pl-live-mark) and the shipped defaults otherwise. First on a pseudo-terminal
of 100 x 30: every drawing starts at the cursor's home (the first one also
clears the screen), every line ends with erase-to-end-of-line and fits in 99
columns, no drawing is taller than 29 lines, the sensor's own row is
"(plumbline itself)", the alert line of pl-live-mark is drawn inside the view
(under "alerts:") and the legend says what CPU% and WAIT% mean. Then with
stdout a pipe: not one escape sequence, the legend once, and the alert as a
plain line.

argv: PLUMBLINE_BINARY. Needs root and BPF; else skips (77).
"""
import fcntl
import os
import pty
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import termios
import time

SENSOR = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, fail, log  # noqa: E402

COLS, ROWS = 100, 30
RULE = """- rule: Live mark ran
  desc: the live view test's marker program ran
  condition: proc.exe_name = pl-live-mark
  output: "pl-live-mark ran (pid %proc.pid)"
  priority: WARNING
"""
ESC = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def run_sensor(d, argv, stdout, mark):
    """The sensor with stdout as given, until 3 refreshes after the marker ran; its output (master side of a pty, or a pipe)."""
    env = dict(os.environ, TERM="xterm")
    env.pop("LD_PRELOAD", None)
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=stdout["w"], stderr=open(os.path.join(d, "sensor.log"), "a"),
                         env=env)
    os.close(stdout["w"])
    out = b""
    marked = False
    deadline = time.monotonic() + 40
    try:
        while time.monotonic() < deadline:
            r, _, _ = select.select([stdout["r"]], [], [], 0.2)
            if r:
                try:
                    chunk = os.read(stdout["r"], 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
            if not marked and b"BINARY (busiest" in out:
                subprocess.run([mark], check=True)  # the sensor is attached: its first table is out
                marked = True
                marked_at = len(out)
            if marked and out.count(b"BINARY (busiest", marked_at) >= 3:
                break
        else:
            fail(f"no 3 tables after the marker in 40 s; sensor log: {open(os.path.join(d, 'sensor.log')).read()[-2000:]}")
    finally:
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        os.close(stdout["r"])
    return out.decode("utf-8", "replace")


def check_tty(text):
    if not text.startswith("\x1b[H\x1b[2J"):
        fail(f"the first drawing does not clear the screen: {text[:40]!r}")
    text = text.replace("\r\n", "\n")  # the terminal's own newline translation (onlcr)
    frames = text.split("\x1b[H")[1:]
    if len(frames) < 4:
        fail(f"{len(frames)} drawings, expected 4 or more")
    if any(f.startswith("\x1b[2J") for f in frames[1:]):
        fail("a later drawing clears the screen (it flickers): it should only go home and overwrite")
    seen_alert = seen_self = False
    for n, f in enumerate(frames[:-1]):  # the last may be cut by the stop
        body = f.split("\x1b[J")[0]
        if n == 0:
            body = body[len("\x1b[2J"):]
        lines = body.split("\n")
        if lines[-1] != "":
            fail(f"drawing {n} does not end with a newline before erasing the rest: {lines[-1]!r}")
        lines = lines[:-1]
        if len(lines) >= ROWS:
            fail(f"drawing {n} is {len(lines)} lines on a {ROWS}-line terminal: it scrolls")
        for line in lines:
            if not line.endswith("\x1b[K"):
                fail(f"drawing {n}: a line not erased to its end: {line!r}")
            plain = ESC.sub("", line)
            if len(plain) >= COLS:
                fail(f"drawing {n}: a line of {len(plain)} columns on a {COLS}-column terminal: {plain!r}")
        plain = [ESC.sub("", x) for x in lines]
        if not plain[0].startswith("BINARY (busiest, last interval)") or not plain[0].endswith("PROCS"):
            fail(f"drawing {n}: header {plain[0]!r}")
        if not any(x.startswith("CPU% and WAIT%: time on CPU and off it") for x in plain):
            fail(f"drawing {n} has no legend: {plain}")
        seen_self |= any(x.startswith("(plumbline itself) ") for x in plain)
        if "alerts:" in "\n".join(plain):
            after = plain[[i for i, x in enumerate(plain) if x.startswith("alerts: ")][0] + 1:]
            seen_alert |= any("Live mark ran" in x and "pl-live-mark ran (pid " in x for x in after)
    if not seen_self:
        fail("no drawing has the sensor's own row, (plumbline itself)")
    if not seen_alert:
        fail("the marker's alert line is not drawn inside the view under 'alerts:'")
    # nothing of the alert outside a drawing: it was drawn, not scrolled past
    outside = [f.split("\x1b[J", 1)[1] for f in frames[:-1] if "\x1b[J" in f]
    if any("Live mark ran" in o for o in outside):
        fail("an alert line was printed outside the drawing")
    log(f"tty: {len(frames)} drawings, each within {COLS}x{ROWS}, the alert drawn under 'alerts:'")


def check_pipe(text):
    if "\x1b" in text:
        fail(f"an escape sequence in the plain form: {text[text.index(chr(27)) - 20:][:60]!r}")
    if text.count("CPU% and WAIT%: time on CPU") != 1:
        fail(f"the legend {text.count('CPU% and WAIT%: time on CPU')} times in the plain form, expected once")
    if not re.search(r"^ALERT Warning Live mark ran: pl-live-mark ran \(pid \d+\)", text, re.M) and \
            not re.search(r"^ALERT .*Live mark ran", text, re.M):
        fail(f"no plain alert line: {text[-1500:]}")
    log(f"pipe: {text.count('BINARY (busiest')} tables as plain lines, the legend once, the alert a line")


def main():
    sl.need_bpf("the sensor loads BPF")
    d = sl.temp_dir("pl-livetty-")
    ok = False
    try:
        rules = os.path.join(d, "live.yaml")
        with open(rules, "w") as f:
            f.write(RULE)
        mark = os.path.join(d, "pl-live-mark")
        shutil.copy("/bin/true", mark)
        argv = [SENSOR, "run", "--no-config", "--no-baselines", "--rules", rules, "--interval", "1",
                "--no-syslog"]
        m, s = pty.openpty()
        fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        check_tty(run_sensor(d, argv, {"r": m, "w": s}, mark))
        r, w = os.pipe()
        check_pipe(run_sensor(d, argv + ["--live"], {"r": r, "w": w}, mark))
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        if ok:
            shutil.rmtree(d, ignore_errors=True)
        else:
            print(f"kept {d}", file=sys.stderr)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
