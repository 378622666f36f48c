#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_relp_stall.py - a RELP collector that takes the session and never
acknowledges costs the sensor nothing but the alerts it holds.

Any local user can be that collector: here it is a process run as `nobody`
on a loopback port (the configured collector being down). It answers the
client's `open` with a valid offer, so librelp opens the session, then reads
every frame and acknowledges none. The real sensor sends to it with
--syslog relp:127.0.0.1:PORT, the shipped rules beside a probe rule.

  1. 200 probe alerts (a copy of the helper exiting 73): the first 128 fill
     librelp's window, after which each send would wait out its 2 s timeout.
  2. The stall is counted (`syslog.stalls`) and reported in the log, once, as
     the start of an outage.
  3. A workload the shipped rules must alert on, during the stall: a service
     retrying a missing config ("Open retry storm"). Its alert reaches the
     JSON output within 6 s of the storm's start.
  4. Meanwhile the loop kept its pace: no gap over 2 s between stats records
     (--stats-interval 1), and every record of the test's own processes
     arrived (each probe has its alert, the service its storm).
  5. The fake collector is replaced by a real rsyslogd (imrelp) on the same
     port: every alert of the JSON output arrives there, checked field by
     field as test_rsyslog.py does, and the end of the outage is reported.

argv: relp-stall PLUMBLINE_BINARY PL_HELPER (test_rsyslog.py's layout, whose
helpers this reuses). Needs root, BPF, rsyslogd and imrelp; skips (77)
otherwise unless PLUMBLINE_REQUIRE_BPF=1.
"""
import json
import os
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_rsyslog as tr  # noqa: E402  (reads the same argv)
from test_rsyslog import Rsyslog, fail, finish, free_port, match, probe_alerts, run_helpers, skip, sl  # noqa: E402

DEFAULT_RULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "rules", "default")
PROBES = 200  # more than librelp's window of 128

# The collector nobody runs: RELP frames are TXNR SP COMMAND SP DATALEN [SP DATA] LF.
FAKE = r"""
import re, selectors, socket, sys
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", int(sys.argv[1])))
srv.listen(16)
sel = selectors.DefaultSelector()
sel.register(srv, selectors.EVENT_READ)
bufs = {}
print("ready", flush=True)
HEAD = re.compile(rb"(\d+) ([a-z]+) (\d+)")
while True:
    for key, _ in sel.select():
        if key.fileobj is srv:
            c, _ = srv.accept()
            bufs[c] = b""
            sel.register(c, selectors.EVENT_READ)
            continue
        c = key.fileobj
        d = c.recv(65536)
        if not d:
            sel.unregister(c)
            c.close()
            del bufs[c]
            continue
        b = bufs[c] + d
        while True:
            m = HEAD.match(b)
            if not m:
                break
            n = int(m.group(3))
            end = m.end() + (n + 1 if n else 0) + 1
            if len(b) < end:
                break
            if m.group(2) == b"open":
                offer = b"200 OK\nrelp_version=0\nrelp_software=never-acks\ncommands=syslog"
                c.sendall(m.group(1) + b" rsp %d " % len(offer) + offer + b"\n")
            b = b[end:]  # and never a word about the syslog frames
        bufs[c] = b
"""


class FakeCollector:
    def __init__(self, d, port):
        self.p = subprocess.Popen(["/usr/bin/python3", "-c", FAKE, str(port)], user="nobody", group="nogroup",
                                  cwd="/", stdout=subprocess.PIPE,
                                  stderr=open(os.path.join(d, "fake.log"), "w"), text=True)
        if self.p.stdout.readline().strip() != "ready":
            fail("the fake collector did not start: " + open(os.path.join(d, "fake.log")).read())

    def stop(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


def stats(sensor):
    return [r for r in sensor.records() if r.get("type") == "stats"]


def wait_for(what, pred, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(0.1)
    fail(f"{what}: not within {timeout} s")


def arrived(received, records, sensor_pid):
    """(alerts of the JSON output, those at rsyslogd (checked field by field), duplicates). The
    summaries that other workloads' throttled alerts bring are matched by id alone."""
    alerts = [r for r in records if r.get("type") == "alert"]
    summaries = {r["id"] for r in records if r.get("type") == "alert_summary"}
    for rec in received:
        if rec["msgid"] != "alert" and tr.parse_5424(rec["raw"].encode())["sd"][tr.SD_ID]["id"] not in summaries:
            fail(f"a message that is no record of the JSON output: {rec['raw']!r}")
    seen, dups = match([r for r in received if r["msgid"] == "alert"], alerts, sensor_pid)
    return alerts, seen, dups


def all_arrived(rs, sensor):
    """Whether every alert of the JSON output is at rsyslogd. What rsyslogd has is read first: an
    alert is in the JSON output before it is sent."""
    received = rs.received()
    alerts, seen, _ = arrived(received, sensor.records(), sensor.p.pid)
    return len(seen) == len(alerts)


def storm(d):
    """A service retrying a missing config in a tight loop (test_storms.py's); (process, start time)."""
    script = os.path.join(d, "service.py")
    with open(script, "w") as f:
        f.write("import os, sys, time\n"
                "while not os.path.exists(sys.argv[2]):\n    time.sleep(0.05)\n"
                "while True:\n    try:\n        open(sys.argv[1]).close()\n    except OSError:\n        pass\n"
                "    time.sleep(0.0005)\n")
    go = os.path.join(d, "go")
    svc = subprocess.Popen(["/usr/bin/python3", script, os.path.join(d, "conf", "app-config.yaml"), go])
    time.sleep(1.0)  # a service that has been running
    open(go, "w").close()
    return svc, time.monotonic()


def main():
    sl.need_bpf()
    if not shutil.which("rsyslogd"):
        skip("no rsyslogd (Debian's rsyslog)")
    if not any(os.path.exists(p + "/imrelp.so") for p in ("/usr/lib/x86_64-linux-gnu/rsyslog",
                                                         "/usr/lib/aarch64-linux-gnu/rsyslog", "/usr/lib/rsyslog")):
        skip("no imrelp (Debian's rsyslog-relp)")
    d = sl.temp_dir("pl-relp-stall-")
    fake = rs = sensor = svc = None
    ok = False
    t_begin = time.monotonic()
    try:
        port = free_port()
        fake = FakeCollector(d, port)
        sensor = tr.Sensor(d, "relp:127.0.0.1:%d" % port, ["--rules", DEFAULT_RULES])
        t0 = time.monotonic()
        n = run_helpers(d, PROBES)
        tr.wait_alerts(sensor, n)
        t_alerts = time.monotonic() - t0
        # 2. the stall: counted, and said once as an outage
        wait_for("a stall counted in the stats record",
                 lambda: stats(sensor) and stats(sensor)[-1]["syslog"].get("stalls", 0) >= 1, 10)
        wait_for("the outage in the log", lambda: "is not taking alerts" in sensor.log_text(), 5)
        # 3. the shipped rules still alert, in time
        svc, start = storm(d)
        a = wait_for("an Open retry storm alert for the service", lambda: next(
            (a for a in probe_alerts(sensor.records()) if a.get("rule") == "Open retry storm"
             and a.get("pid") == svc.pid), None), 6)
        latency = time.monotonic() - start
        svc.kill()
        svc.wait()
        # 5. the real collector on the same port
        fake.stop()
        rs = Rsyslog(d, ["imrelp:%d" % port])
        rs.start()
        wait_for("every alert at rsyslogd", lambda: all_arrived(rs, sensor), 35)
        wait_for("the end of the outage in the log", lambda: "takes alerts again" in sensor.log_text(), 5)
        sensor.stop()
        time.sleep(0.5)
        rs.stop()

        recs = sensor.records()
        alerts, seen, dups = arrived(rs.received(), recs, sensor.p.pid)
        st = stats(sensor)
        times = [r["time_ns"] for r in st]
        gaps = [(b - a) / 1e9 for a, b in zip(times, times[1:])]
        span = (st[-1]["uptime_ns"] - st[0]["uptime_ns"]) / 1e9
        last = st[-1]
        # in the JSON output, how far apart the alerts past librelp's window came
        probe_t = sorted(a["time_ns"] for a in alerts if a.get("rule") == "syslog probe")
        past_window = (probe_t[-1] - probe_t[127]) / 1e9 / (len(probe_t) - 128) if len(probe_t) > 128 else 0
        log = sensor.log_text()
        print(f"relp-stall: {len(alerts)} alerts ({n} probes in {t_alerts:.1f} s, "
              f"{past_window * 1000:.1f} ms apart past the window), storm alerted after {latency:.2f} s, "
              f"largest stats gap {max(gaps):.2f} s, {len(st)} records over {span:.1f} s, "
              f"{len(seen)} at rsyslogd ({dups} duplicates); ringbuf_full {last['kernel_drops']['ringbuf_full']}; "
              f"syslog {json.dumps(last['syslog'])}; {time.monotonic() - t_begin:.1f} s")
        if len([a for a in alerts if a.get("rule") == "syslog probe"]) != n:
            fail(f"{len(probe_t)} probe alerts for {n} probes: a record of ours was lost")
        # and they cover the stall: from the probes (a tick a second) to past the storm's alert
        if times[0] - probe_t[0] > 2e9 or times[-1] < a["time_ns"]:
            fail("the stats records do not cover the time from the probes to the storm: the loop stalled")
        if max(gaps) > 2.0 or len(st) < span - 1:
            fail(f"{len(st)} stats records over {span:.1f} s, the largest gap {max(gaps):.2f} s: the loop stalled")
        if len(seen) != len(alerts):
            fail(f"{len(alerts) - len(seen)} alerts never reached rsyslogd")
        if last["syslog"]["stalls"] < 1 or last["syslog"]["outages"] < 1 or last["syslog"]["dropped"] != 0:
            fail(f"stats at exit: {last['syslog']}")
        if log.count("is not taking alerts") != 1 or log.count("takes alerts again") != 1:
            fail("the outage not said once at its start and once at its end:\n" + log)
        if "seccomp refused" in log:
            fail("the sender thread made a syscall the seccomp filter refuses:\n" + log)
        if "a stall" not in log:
            fail("the stall is not named in the log:\n" + log)
        ok = True
    except tr.Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        if svc and svc.poll() is None:
            svc.kill()
        if fake:
            fake.stop()
        if rs:
            rs.stop()
        finish([sensor], d, ok)


if __name__ == "__main__":
    main()
