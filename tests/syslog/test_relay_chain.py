#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_relay_chain.py - the fleet's relay chain of docs/fleet.md, as shipped.

    sensor --RELP--> local rsyslogd --RELP over mutual TLS, disk-assisted queue--> central
    rsyslogd --> central's alerts.jsonl (the file standing for the SIEM)

The two rsyslogd run the very files docs/fleet/rsyslog-local.conf and
docs/fleet/rsyslog-central.conf, changed only by the textual rule of
docs/fleet.md#what-to-change (their ports, the central's address, the certificate,
spool and output directories; each default must be in the file, or the test fails);
the certificates are made by docs/fleet/make-certs.sh (the openssl command) for the
names the files permit. Each rsyslogd is the test's own: a main config that includes
the drop-in and writes rsyslog's own messages to a file, its own pidfile and
directories, run in the foreground as a child, ports from free_port.

The run: alerts raised (a copy of the ground-truth helper exiting 73 under a rule of
the test) until central has them all; then central stopped (SIGTERM) for 60 s while
alerts go on being raised, one every 3 s, and halfway through the local rsyslogd
stopped and started again: its queue must then be on disk (the .qi file and a queue
file in its spool directory), and read back. Central started again, the sensor stopped
(it delivers what waits), and a bounded poll until central's file has every alert id
of the sensor's own JSON output. Asserted: that exact set (none lost, nothing else),
each line's fields as the sensor sent them (host, pid, MSGID, priority, the id in the
structured data and MSG), nothing counted lost by the sensor. Duplicates are allowed
(RELP is at-least-once) and counted, and printed with the other figures.

Needs root and BPF (the sensor), rsyslogd with imrelp/omrelp (Debian's rsyslog-relp)
and openssl; without them it skips (exit 77) with the reason, unless
PLUMBLINE_REQUIRE_BPF=1.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scenario"))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, fail, finish, free_port, log, skip, wait_for  # noqa: E402

SCENARIO, SENSOR, HELPER = sys.argv[1], sys.argv[2], sys.argv[3]
FLEET = os.path.join(HERE, "..", "..", "docs", "fleet")
EXIT_CODE = 73
CENTRAL_NAME, HOST_NAME = "central.example.org", "host1.example.org"  # the names the files permit
OUTAGE_S, EVERY_S = 60.0, 3.0
SD_ID = "plumbline@32473"
ID = re.compile(r'\[plumbline@32473 id="([0-9a-f]{16}-[0-9a-f]{16})"')


def substitute(src, dst, rules):
    """Copy the shipped file src to dst with each documented default replaced
    (docs/fleet.md#what-to-change); a default missing from src is a failure:
    the docs and the files have drifted apart."""
    with open(src) as f:
        text = f.read()
    for old, new in rules:
        if old not in text:
            fail(f"{os.path.basename(src)} has no {old!r}: docs/fleet.md's rule no longer fits it")
        text = text.replace(old, new)
    with open(dst, "w") as f:
        f.write(text)


class Rsyslog:
    """rsyslogd -n of the test's own: D/rsyslog.conf includes the shipped
    drop-in (substituted) and writes rsyslog's own messages to D/own.log."""

    def __init__(self, d, name, dropin, rules):
        self.d, self.name = d, name
        self.spool = os.path.join(d, "spool")
        os.makedirs(self.spool)
        self.dropin = os.path.join(d, "60-plumbline-%s.conf" % name)
        substitute(dropin, self.dropin, [(o, n.format(spool=self.spool)) for o, n in rules])
        self.own = os.path.join(d, "own.log")
        self.stats = os.path.join(d, "stats.log")
        self.conf, self.pidfile = os.path.join(d, "rsyslog.conf"), os.path.join(d, "rsyslog.pid")
        with open(self.conf, "w") as f:
            # processInternalMessages: rsyslog's own messages stay in this
            # instance (not the system's log), for own.log below
            f.write('global(workDirectory="%s" processInternalMessages="on")\n' % self.spool +
                    # each second, every queue's counters as JSON lines in D/stats.log
                    'module(load="impstats" interval="1" format="json" log.syslog="off" '
                    'log.file="%s")\n' % self.stats +
                    'include(file="%s")\n' % self.dropin +
                    # the default ruleset gets nothing but rsyslog's own messages here
                    '*.* action(type="omfile" file="%s")\n' % self.own)
        self.p = None
        self.starts = 0

    def start(self):
        self.starts += 1
        self.p = subprocess.Popen(["rsyslogd", "-n", "-f", self.conf, "-i", self.pidfile],
                                  stdin=subprocess.DEVNULL, stdout=open(os.path.join(self.d, "stderr.log"), "a"),
                                  stderr=subprocess.STDOUT)

    def wait_listening(self, port):
        """Until a socket listens on the port (read from /proc/net/tcp*, so
        no probe connection shows in rsyslog's log as a broken session or
        handshake); a failure if rsyslogd exits first."""
        def up():
            if self.p.poll() is not None:
                fail(f"{self.name} rsyslogd exited {self.p.returncode} at start: {self.text('stderr.log')}")
            for table in ("/proc/net/tcp", "/proc/net/tcp6"):
                with open(table) as f:
                    for line in f.readlines()[1:]:
                        local, state = line.split()[1], line.split()[3]
                        if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:
                            return True
            return False
        wait_for(f"{self.name} rsyslogd listening on {port}", up, timeout=20)

    def stop(self):
        """SIGTERM, as systemd stops it, and wait (a failure past 30 s)."""
        if self.p and self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(30)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
                fail(f"{self.name} rsyslogd did not stop on SIGTERM in 30 s")
        self.p = None

    def queue_sizes(self, name):
        """The sizes impstats has said so far of queue NAME (in memory and on disk)."""
        sizes = []
        for line in self.text("stats.log").splitlines():
            try:
                rec = json.loads(line[line.index("{"):])
            except ValueError:
                continue  # a line cut short as it is written
            if rec.get("name") == name + " queue" and "size" in rec:
                sizes.append(int(rec["size"]))
        return sizes

    def text(self, name):
        try:
            with open(os.path.join(self.d, name), errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""


def raise_alert(bindir):
    p = os.path.join(bindir, "plrelay-probe")
    if not os.path.exists(p):
        os.makedirs(bindir, exist_ok=True)
        shutil.copy(HELPER, p)
        os.chmod(p, 0o755)
    r = subprocess.run([p, "exit", str(EXIT_CODE)])
    if r.returncode != EXIT_CODE:
        fail(f"the helper exited {r.returncode}")


def alerts_of(sensor):
    return [r for r in sensor.records() if r.get("type") == "alert"]


def probes(alerts):
    return [a for a in alerts if a.get("when") != "sensor"]


def central_lines(path):
    """central's file: one JSON object per line (the last may be half-written)."""
    return sl.read_records(path)


def check_line(rec, alert, sensor_pid):
    """A line of central's file against the alert the sensor emitted."""
    want = {"app": "plumbline", "procid": str(sensor_pid), "msgid": "alert", "host": socket.gethostname(),
            "relay": "127.0.0.1", "severity": str(alert["severity"]),
            "msg": "[%s] id=%s %s" % (alert["priority"].upper(), alert["id"], alert["output"])}
    got = {k: str(rec.get(k)) for k in want}
    if got != want:
        fail(f"central's line is not the alert as sent:\n got {got}\nwant {want}")
    if ('rule="%s"' % alert["rule"]) not in rec["sd"] or not rec["sd"].startswith("[%s " % SD_ID):
        fail(f"structured data {rec['sd']!r} is not alert {alert['id']}'s")


def main():
    sl.need_bpf()
    for prog, why in (("rsyslogd", "no rsyslogd (Debian's rsyslog)"), ("openssl", "no openssl command")):
        if not shutil.which(prog):
            skip(why)
    if not any(os.path.exists(p + "/omrelp.so") and os.path.exists(p + "/imrelp.so") for p in
               ("/usr/lib/x86_64-linux-gnu/rsyslog", "/usr/lib/aarch64-linux-gnu/rsyslog", "/usr/lib/rsyslog")):
        skip("no imrelp/omrelp (Debian's rsyslog-relp)")
    d = sl.temp_dir("pl-relay-")
    local = central = sensor = None
    ok = False
    try:
        certs = os.path.join(d, "certs")
        r = subprocess.run([os.path.join(FLEET, "make-certs.sh"), certs, CENTRAL_NAME, HOST_NAME],
                           capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"make-certs.sh exited {r.returncode}: {r.stderr}")
        local_port, central_port = free_port(), free_port()
        while central_port == local_port:
            central_port = free_port()
        siem = os.path.join(d, "central", "log")
        central = Rsyslog(os.path.join(d, "central"), "central", os.path.join(FLEET, "rsyslog-central.conf"), [
            ('port="20514"', 'port="%d"' % central_port),
            ("/etc/plumbline/fleet/", os.path.join(certs, CENTRAL_NAME) + "/"),
            ("/var/log/plumbline/", siem + "/"),
            ("/var/spool/rsyslog", "{spool}")])
        local = Rsyslog(os.path.join(d, "local"), "local", os.path.join(FLEET, "rsyslog-local.conf"), [
            ('port="2514"', 'port="%d"' % local_port),
            ('target="central.example.org"', 'target="127.0.0.1"'),
            ('port="20514"', 'port="%d"' % central_port),
            ("/etc/plumbline/fleet/", os.path.join(certs, HOST_NAME) + "/"),
            ("/var/spool/rsyslog", "{spool}")])
        siem_file = os.path.join(siem, "alerts.jsonl")
        central.start()
        local.start()
        central.wait_listening(central_port)
        local.wait_listening(local_port)

        rules = os.path.join(d, "rules.yaml")
        with open(rules, "w") as f:
            f.write("- rule: relay probe\n"
                    "  desc: a copy of the helper exited with %d\n"
                    "  condition: proc.exit_code = %d and proc.exe contains /plrelay-\n"
                    "  output: \"probe %%proc.exe_name exited %%proc.exit_code (pid %%proc.pid)\"\n"
                    "  priority: ERROR\n" % (EXIT_CODE, EXIT_CODE))
        # the sensor's own alerts (when="sensor") go the same way and are
        # counted like the probes' (the exact set is every alert emitted)
        sensor = sl.Sensor(d, "sensor", SENSOR, defaults=False, extra=[
            "--no-baselines", "--rules", rules, "--syslog", "relp:127.0.0.1:%d" % local_port,
            "--stats-interval", "1"])
        bindir = os.path.join(d, "bin")

        def central_ids():
            return {m.group(1) for m in (ID.search(r.get("sd", "")) for r in central_lines(siem_file)) if m}

        # 1. the chain works: alerts raised, all in central's file
        n = 0
        for _ in range(10):
            raise_alert(bindir)
            n += 1
        wait_for("the first alerts in the sensor's JSON output", lambda: len(probes(alerts_of(sensor))) >= n)
        wait_for("the first alerts in central's file",
                 lambda: {a["id"] for a in alerts_of(sensor)} <= central_ids(), timeout=30)
        log(f"{n} alerts through the chain")

        # 2. central down for 60 s while alerts are raised, one every 3 s; the
        #    relay holds them in its queue (impstats says its size each second)
        central.stop()
        t_down = time.monotonic()
        during = 0
        log("central stopped")
        while time.monotonic() - t_down < OUTAGE_S:
            raise_alert(bindir)
            n += 1
            during += 1
            time.sleep(max(0.0, t_down + during * EVERY_S - time.monotonic()))
        wait_for("every alert in the sensor's JSON output", lambda: len(probes(alerts_of(sensor))) >= n)
        # the sensor has handed every alert to the relay, which holds them all
        # but the one (or few) its retrying worker holds: its queue's size
        # reaches that and stays there until central is back
        held = wait_for("the relay's queue holding the outage's alerts",
                        lambda: max(local.queue_sizes("plumbline_to_central") or [0]) >= during - 2, timeout=10)
        held = max(local.queue_sizes("plumbline_to_central"))
        before = len(central_ids())
        central.start()
        central.wait_listening(central_port)
        t_up = time.monotonic()
        log(f"central started again ({n} alerts raised; {before} in its file)")

        # 3. the sensor stopped (it delivers what waits), then every alert it
        #    emitted must reach central's file
        sensor.stop()
        alerts = alerts_of(sensor)
        if len(probes(alerts)) != n:
            fail(f"{len(probes(alerts))} probe alerts in the JSON output for {n} helper runs")
        want = {a["id"] for a in alerts}
        wait_for(f"all {len(want)} alerts in central's file", lambda: want <= central_ids(), timeout=90)
        t_converged = time.monotonic() - t_up
        lines = central_lines(siem_file)
        by_id = {a["id"]: a for a in alerts}
        seen, dups = set(), 0
        for rec in lines:
            m = ID.search(rec.get("sd", ""))
            if not m or m.group(1) not in by_id:
                fail(f"a line in central's file that is no alert of the sensor's: {rec}")
            check_line(rec, by_id[m.group(1)], sensor.p.pid)
            dups += m.group(1) in seen
            seen.add(m.group(1))
        if seen != want:
            fail(f"central's ids differ: {len(want - seen)} missing, {len(seen - want)} unknown")
        st = [r for r in sensor.records() if r.get("type") == "stats"][-1]["syslog"]
        suspended = local.text("own.log").count("plumbline_to_central' suspended")
        print(f"relay chain: {len(alerts)} alerts emitted ({n} probes, {len(alerts) - n} the sensor's own), "
              f"{len(lines)} lines in central's file, {dups} duplicates, 0 missing; "
              f"{before} in central before its restart; all there {t_converged:.1f} s after central "
              f"was back; the relay's queue held up to {held} during the outage ({during} raised then); "
              f"suspensions said by the relay {suspended}; "
              f"sensor's syslog stats {json.dumps(st)}")
        if st["dropped"] or st["written"] != len(alerts):
            fail(f"the sensor did not hand every alert to the relay: {st}")
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
        for rs in (local, central):
            if rs:
                print(f"--- {rs.name} rsyslogd's own log:\n{rs.text('own.log')[-3000:]}"
                      f"{rs.text('stderr.log')[-2000:]}", file=sys.stderr)
    finally:
        for rs in (local, central):
            if rs:
                try:
                    rs.stop()
                except Failure as e:
                    print(f"FAIL: {e}", file=sys.stderr)
                    ok = False
        finish([sensor], d, ok)


if __name__ == "__main__":
    main()
