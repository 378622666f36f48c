#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_relay_chain.py - the fleet's relay chain of docs/fleet.md, as shipped.

    sensor --RELP--> local rsyslogd (the relay) --RELP over mutual TLS, disk-assisted
    queue--> central rsyslogd --> central's alerts.jsonl (the file standing for the SIEM)

The two rsyslogd run the very files docs/fleet/rsyslog-local.conf and
docs/fleet/rsyslog-central.conf, changed only by the textual rule of
docs/fleet.md#what-to-change (their ports, the central's address, the certificate,
spool and output directories; each default must be in the file, or the test fails);
the certificates are made by docs/fleet/make-certs.sh (the openssl command) for the
names the files permit. Each rsyslogd is the test's own: a main config that includes
the drop-in, writes rsyslog's own messages to a file and its queues' counters
(impstats) to another, its own pidfile and directories, run in the foreground as a
child, ports from free_port. Before the sensor starts, central's mutual TLS is
probed: the fleet's relay certificate opens a RELP session; a certificate of the
fleet's CA for a name central does not permit, one of another CA and none at all are
refused, each said in central's log.

Scenarios (argv[1]):

  outage    alerts raised until central has them all; central stopped (SIGTERM) for
            60 s while an alert is raised every 3 s, the relay's queue seen holding
            them; central started again, the sensor stopped (it delivers what waits),
            and a bounded poll until central's file has every alert id of the
            sensor's JSON output. Asserted: that exact set (none lost, nothing else),
            each line's fields as the sensor sent them (host, pid, MSGID, severity,
            structured data, MSG), nothing counted lost by the sensor. Duplicates are
            allowed (RELP is at-least-once), counted and printed.
  impostor  central's port held by a TLS server with a certificate for central's name
            from another CA: the relay refuses it, sends it nothing and says why; then
            what rsyslog 8.2302 does next, as docs/fleet.md says: the relay's action
            is disabled, the alerts it takes are dropped (not in its queue: impstats),
            even with the real central back, until the relay is restarted; the one it
            was sending stays queued and arrives after the restart.

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
import ssl
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scenario"))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, fail, finish, free_port, log, skip, wait_for  # noqa: E402

SCENARIO, SENSOR, HELPER = sys.argv[1], sys.argv[2], sys.argv[3]
FLEET = os.path.join(HERE, "..", "..", "docs", "fleet")
EXIT_CODE = 73
CENTRAL_NAME, HOST_NAME = "central.example.org", "host1.example.org"  # the names the files permit
ROGUE_NAME = "rogue.example.net"  # a name of the fleet's CA that central does not permit
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

    def start(self):
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


def relp_open(port, ca, cert_dir):
    """A RELP client's open over TLS to central, with the relay certificate
    of cert_dir: what central answers (b"" if it closed the connection), or
    the TLS error that refused it."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(ca)
    if cert_dir:
        ctx.load_cert_chain(os.path.join(cert_dir, "relay-cert.pem"), os.path.join(cert_dir, "relay-key.pem"))
    offer = b"relp_version=0\nrelp_software=test_relay_chain\ncommands=syslog"
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            with ctx.wrap_socket(s, server_hostname=CENTRAL_NAME) as t:
                t.sendall(b"1 open %d %s\n" % (len(offer), offer))
                return t.recv(4096)
    except (ssl.SSLError, OSError) as e:
        return e


def check_central_refuses(central, port, certs):
    """Mutual TLS on central's side: the fleet's relay certificate opens a
    session; one of the fleet's CA for a name not permitted, one of another
    CA, and none at all are refused, each said in central's log."""
    ca = os.path.join(certs, "ca", "ca.pem")
    got = relp_open(port, ca, os.path.join(certs, HOST_NAME))
    if not isinstance(got, bytes) or not got.startswith(b"1 rsp ") or b" 200 OK" not in got:
        fail(f"central did not open a session for {HOST_NAME}'s certificate: {got!r}")
    cases = [(ROGUE_NAME, os.path.join(certs, ROGUE_NAME), "no permited name found', peer is 'DNSname: %s" % ROGUE_NAME),
             ("another CA", os.path.join(certs + "-other", HOST_NAME), "certificate verify failed"),
             ("no certificate", None, "peer did not return a certificate")]
    for what, cert_dir, said in cases:
        got = relp_open(port, ca, cert_dir)
        if isinstance(got, bytes) and b" 200 OK" in got:
            fail(f"central opened a session for {what}: {got!r}")
        wait_for(f"central's log to say it refused {what} ({said!r})", lambda: said in central.text("own.log"),
                 timeout=10)
        log(f"central refused {what}: {got!r}")


class Impostor:
    """A TLS server on central's port while central is down, with a
    certificate for central's name from another CA: the relay must refuse it
    and send it nothing. Counts the connections it gets and
    what came through any of them."""

    def __init__(self, port, cert_dir):
        self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.ctx.load_cert_chain(os.path.join(cert_dir, "central-cert.pem"), os.path.join(cert_dir, "central-key.pem"))
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.connections, self.handshakes, self.data = 0, 0, b""
        self.running = True
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            self.connections += 1
            conn.settimeout(5)
            try:
                with self.ctx.wrap_socket(conn, server_side=True) as t:
                    self.handshakes += 1
                    self.data += t.recv(4096)
            except (ssl.SSLError, OSError):
                pass  # refused by the relay, as it must be
            finally:
                conn.close()

    def stop(self):
        self.running = False
        self.thread.join()
        self.sock.close()


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


def syslog_stats(sensor):
    """The syslog counters of the sensor's last stats record ({} before the first)."""
    stats = [r for r in sensor.records() if r.get("type") == "stats"]
    return stats[-1]["syslog"] if stats else {}


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


def impostor(local, central, port, certs, sensor, bindir, central_ids):
    """Central's port held by a server with a certificate for central's name
    from another CA: the relay refuses it and sends it nothing (not even its
    RELP open), and says so. rsyslog 8.2302's omrelp then disables the action:
    what the relay takes afterwards is not forwarded, even to the real
    central, until the relay is restarted (docs/fleet.md). Measured here."""
    imp = Impostor(port, os.path.join(certs + "-other", CENTRAL_NAME))
    try:
        raise_alert(bindir)
        wait_for("the relay to refuse the impostor",
                 lambda: "DISABLING action" in local.text("own.log") and imp.connections >= 1)
    finally:
        imp.stop()
    said = [l for l in local.text("own.log").splitlines() if "authentication error" in l]
    log(f"the impostor: {imp.connections} connections from the relay, {imp.handshakes} handshakes done, "
        f"{len(imp.data)} bytes; the relay said: {said[:1]}")
    # librelp checks the certificate once the handshake is done (the
    # impostor sees it done) and closes before its RELP open
    if imp.data:
        fail(f"the relay sent the impostor {imp.data[:200]!r}")
    if not any("unable to get local issuer certificate" in l and "subject = /CN=%s" % CENTRAL_NAME in l
               for l in said):
        fail(f"the relay did not say why it refused the impostor: {said}")
    # the real central back: the disabled action sends nothing more
    central.start()
    central.wait_listening(port)
    for _ in range(3):
        raise_alert(bindir)
    wait_for("the alerts in the sensor's JSON output", lambda: len(probes(alerts_of(sensor))) >= 4)
    wait_for("the sensor to hand them to the relay",
             lambda: syslog_stats(sensor).get("sent", 0) >= 4)
    # the relay's retry interval is 5 s: two of them and nothing has come
    t0 = time.monotonic()
    wait_for("12 s", lambda: central_ids() or time.monotonic() - t0 > 12, timeout=20)
    lost_while_disabled = 4 - len(central_ids())
    # nor waiting in its queue, but the first (impstats' last word on the
    # queue, a second old at most): the rest were dropped
    waiting = (local.queue_sizes("plumbline_to_central") or [None])[-1]
    # a restart of the relay enables the action again
    local.stop()
    t_restart_ns = time.time_ns()
    local.start()
    local.wait_listening(local.port)
    raise_alert(bindir)
    wait_for("the sensor to hand the 5th to the relay",
             lambda: len(probes(alerts_of(sensor))) >= 5 and
             syslog_stats(sensor).get("sent", 0) >= 5, timeout=30)
    want = {a["id"] for a in probes(alerts_of(sensor))}
    last = probes(alerts_of(sensor))[-1]["id"]
    wait_for("the alert raised after the relay's restart in central's file", lambda: last in central_ids(), timeout=30)
    alerts = alerts_of(sensor)
    got = central_ids()
    # the first alert (the one being sent when the relay refused the
    # impostor) is kept in the queue and arrives after the restart; those the
    # relay took while its action was disabled are dropped; those after the
    # restart arrive
    first = alerts[0]["id"]
    dropped = [a["id"] for a in alerts[1:] if a["time_ns"] < t_restart_ns]
    after = {a["id"] for a in alerts if a["time_ns"] >= t_restart_ns}
    print(f"relay impostor: refused ({imp.connections} connections, {imp.handshakes} TLS handshakes, 0 bytes); "
          f"{lost_while_disabled} of 4 alerts not forwarded while the action was disabled ({waiting} in its "
          f"queue); after the relay's "
          f"restart central has the first alert: {first in got}, {len(set(dropped) & got)} of the {len(dropped)} "
          f"taken while disabled, {len(after & got)} of the {len(after)} raised after")
    if lost_while_disabled != 4 or waiting != 1 or first not in got or set(dropped) & got or last not in got or not got <= after | {first}:
        fail("not what docs/fleet.md says of a relay that refused central's certificate")


def main():
    if SCENARIO not in ("outage", "impostor"):
        print(f"FAIL: no scenario {SCENARIO!r} (outage, impostor)", file=sys.stderr)
        sys.exit(1)
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
        for pki, names in ((certs, [CENTRAL_NAME, HOST_NAME, ROGUE_NAME]), (certs + "-other", [CENTRAL_NAME, HOST_NAME])):
            r = subprocess.run([os.path.join(FLEET, "make-certs.sh"), pki, *names], capture_output=True, text=True)
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
        local.port = local_port
        siem_file = os.path.join(siem, "alerts.jsonl")
        central.start()
        local.start()
        central.wait_listening(central_port)
        local.wait_listening(local_port)
        check_central_refuses(central, central_port, certs)

        # the rule fires on this run's copy of the helper only (its own
        # directory), whatever other tests run meanwhile
        bindir = os.path.join(d, "bin")
        rules = os.path.join(d, "rules.yaml")
        with open(rules, "w") as f:
            f.write("- rule: relay probe\n"
                    "  desc: a copy of the helper exited with %d\n"
                    "  condition: proc.exit_code = %d and proc.exe contains %s\n"
                    "  output: \"probe %%proc.exe_name exited %%proc.exit_code (pid %%proc.pid)\"\n"
                    "  priority: ERROR\n" % (EXIT_CODE, EXIT_CODE, os.path.join(bindir, "plrelay-")))
        # the sensor's own alerts (when="sensor") go the same way and are
        # counted like the probes' (the exact set is every alert emitted)
        sensor = sl.Sensor(d, "sensor", SENSOR, defaults=False, extra=[
            "--no-baselines", "--rules", rules, "--syslog", "relp:127.0.0.1:%d" % local_port,
            "--stats-interval", "1"])

        def central_ids():
            return {m.group(1) for m in (ID.search(r.get("sd", "")) for r in central_lines(siem_file)) if m}

        if SCENARIO == "impostor":
            central.stop()
            impostor(local, central, central_port, certs, sensor, bindir, central_ids)
            ok = True
            return

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
        t_stop_ns = time.time_ns()
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
        # the relay holds every alert of the outage but the first, which its
        # worker holds while it retries: the probes raised since the stop, and
        # any alert of the sensor's own emitted meanwhile (one emitted as
        # central stopped may have reached it)
        lo = during - 1
        hi = len([a for a in alerts_of(sensor) if a["time_ns"] >= t_stop_ns]) - 1
        wait_for(f"the relay's queue to hold the outage's {lo} alerts (impstats)",
                 lambda: (local.queue_sizes("plumbline_to_central") or [0])[-1] >= lo, timeout=10)
        held = local.queue_sizes("plumbline_to_central")[-1]
        if not lo <= held <= hi:
            fail(f"the relay's queue holds {held}, not {lo}..{hi}")
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
        st = syslog_stats(sensor)
        suspended = local.text("own.log").count("plumbline_to_central' suspended")
        print(f"relay chain: {len(alerts)} alerts emitted ({n} probes, {len(alerts) - n} the sensor's own), "
              f"{len(lines)} lines in central's file, {dups} duplicates, 0 missing; "
              f"{before} in central before its restart; all there {t_converged:.1f} s after central "
              f"was back; the relay's queue held {held} at the outage's end ({during} raised, 1 in its worker); "
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
