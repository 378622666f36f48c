#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_tls.py - the real sensor's alerts over TLS to a real rsyslogd.

The test makes its certificates with the openssl command: a CA, a server
certificate from it for server.example, a client certificate for
sensor.example; a second CA and a server.example certificate from it; a
certificate from the first CA for other.example. Its rsyslogd (its own
config, files and port on 127.0.0.1) takes RFC 5425 syslog over TLS (imtcp,
StreamDriver "ossl", authmode x509/name: it checks the sensor's certificate,
mutual TLS) or RELP over TLS (imrelp tls="on", tls.authmode "name", the
sensor as its permitted peer), and writes what it received as
test_rsyslog.py's does; the messages are checked by its code (strict RFC
5424, the structured data round-tripping each JSON alert, the plain lines).
The sensor connects to 127.0.0.1 with --syslog-peer server.example.

Scenarios (argv[1]):
  tls, relp-tls: every alert arrives, as over tcp: and relp:.
  tls-refused, relp-tls-refused: the sensor starts against a server whose
    certificate is from the other CA: refused, said once in the log in words
    (not signed by CA FILE), the alerts wait and are counted not delivered
    (stats record, status.json, metrics); a correct server on the same port
    gets them all; then one whose certificate names other.example: refused
    again, in words (names 'other.example', not 'server.example'), counted;
    the correct server again gets every alert. None lost, none twice.

Needs root and BPF (the sensor), rsyslogd with rsyslog-openssl (lmnsd_ossl)
and rsyslog-relp (imrelp), and openssl; without them it skips (exit 77).
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scenario"))
sys.path.insert(0, HERE)
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, fail, finish, free_port, skip, wait_for  # noqa: E402
import test_rsyslog as tr  # noqa: E402

SCENARIO = sys.argv[1]
RELP = SCENARIO.startswith("relp")
LIBDIRS = ("/usr/lib/x86_64-linux-gnu/rsyslog", "/usr/lib/aarch64-linux-gnu/rsyslog", "/usr/lib/rsyslog")


def make_certs(d):
    """The certificates, made with the openssl command; their paths by name."""
    c = os.path.join(d, "certs")
    os.makedirs(c)

    def run(*args):
        r = subprocess.run(["openssl", *args], cwd=c, capture_output=True, text=True)
        if r.returncode:
            fail(f"openssl {' '.join(args)}: {r.stderr}")

    def ca(name):
        run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".pem",
            "-days", "2", "-subj", "/CN=plumbline test " + name)

    def cert(name, by, dns):
        run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".csr",
            "-subj", "/CN=" + dns)
        with open(os.path.join(c, name + ".ext"), "w") as f:
            f.write("subjectAltName=DNS:%s\nbasicConstraints=CA:FALSE\n" % dns)
        run("x509", "-req", "-in", name + ".csr", "-CA", by + ".pem", "-CAkey", by + ".key", "-CAcreateserial",
            "-out", name + ".pem", "-days", "2", "-extfile", name + ".ext")

    ca("ca")
    ca("ca2")
    cert("server", "ca", "server.example")
    cert("client", "ca", "sensor.example")
    cert("rogue", "ca2", "server.example")  # the right name, the wrong CA
    cert("other", "ca", "other.example")  # the right CA, the wrong name
    return {n: os.path.join(c, n) for n in ("ca", "ca2", "server", "client", "rogue", "other")}


class TlsRsyslog(tr.Rsyslog):
    """test_rsyslog.py's rsyslogd and its outputs, with a TLS input: imtcp over
    OpenSSL, or imrelp with tls on; serving cert (a name of make_certs)."""

    def __init__(self, d, port, certs, cert):
        super().__init__(d, [])
        ca, crt, key = certs["ca"] + ".pem", certs[cert] + ".pem", certs[cert] + ".key"
        with open(self.conf) as f:
            lines = f.read().splitlines()
        if RELP:
            tls = ['module(load="imrelp" tls.tlslib="openssl")',
                   'input(type="imrelp" address="127.0.0.1" port="%d" tls="on" tls.cacert="%s" tls.mycert="%s" '
                   'tls.myprivkey="%s" tls.authmode="name" tls.permittedpeer=["sensor.example"])'
                   % (port, ca, crt, key)]
        else:
            lines[0] = lines[0][:-1] + (' DefaultNetstreamDriverCAFile="%s" DefaultNetstreamDriverCertFile="%s" '
                                        'DefaultNetstreamDriverKeyFile="%s")' % (ca, crt, key))
            tls = ['module(load="imtcp" StreamDriver.Name="ossl" StreamDriver.Mode="1" '
                   'StreamDriver.AuthMode="x509/name" PermittedPeer=["sensor.example"])',
                   'input(type="imtcp" address="127.0.0.1" port="%d")' % port]
        with open(self.conf, "w") as f:
            f.write("\n".join(lines[:1] + tls + lines[1:]) + "\n")


def stats(sensor):
    return [r for r in sensor.records() if r.get("type") == "stats"]


def alerts_of(sensor):
    return [r for r in sensor.records() if r.get("type") == "alert"]


def metric(port, name):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=5) as r:
        for line in r.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    fail(f"no {name} in the metrics")


def status(d):
    try:
        with open(os.path.join(d, "rt", "status.json")) as f:
            return json.load(f)["watching"]["outputs"]["syslog"]
    except (OSError, ValueError, KeyError):
        return {}


def check_waiting(sensor, d, mport, delivered):
    """The alerts raised since the refusal wait, counted as not delivered: the
    stats record's queued is exactly the JSON output's alerts not sent (over
    tls: not at rsyslogd; over RELP, an alert librelp took into a session the
    old server never acknowledged is sent, and comes again on the next), the
    metrics' queue the same, status.json's state disconnected."""
    def settled():
        st = stats(sensor)
        n = len(alerts_of(sensor))
        return (st and st[-1]["syslog"]["written"] == n and st[-1]["syslog"]["queued"] == n - st[-1]["syslog"]["sent"]
                and st[-1]["syslog"]["queued"] > 0)
    wait_for("a stats record with every alert not sent queued", settled, 10)
    st = stats(sensor)[-1]["syslog"]
    if st["state"] == "connected" or st["connect_failures"] < 1 or \
            (st["sent"] != delivered if not RELP else not delivered <= st["sent"] <= delivered + 1):
        fail(f"the refused server is counted as taking alerts ({delivered} at rsyslogd): {st}")
    out = wait_for("status.json saying the syslog target is down",
                   lambda: (lambda o: o if o.get("state") == "disconnected" else None)(status(d)), 5)
    queued = wait_for("the metrics' queue as the stats record's", lambda: (lambda q: q if q == stats(sensor)[-1][
        "syslog"]["queued"] else None)(metric(mport, "plumbline_syslog_queued_messages")), 5)
    if metric(mport, "plumbline_syslog_connected") != 0:
        fail("the metrics say connected while the server is refused")
    return st, out, queued, delivered


def main():
    sl.need_bpf()
    if not shutil.which("rsyslogd") or not shutil.which("openssl"):
        skip("no rsyslogd (Debian's rsyslog) or no openssl")
    mod = "imrelp.so" if RELP else "lmnsd_ossl.so"
    if not any(os.path.exists(os.path.join(p, mod)) for p in LIBDIRS):
        skip(f"no {mod} (Debian's {'rsyslog-relp' if RELP else 'rsyslog-openssl'})")
    t_begin = time.monotonic()
    d = sl.temp_dir("pl-syslog-tls-")
    rs = sensor = None
    ok = False
    try:
        certs = make_certs(d)
        port, mport = free_port(), free_port()
        target = "%s:127.0.0.1:%d" % ("relp+tls" if RELP else "tls", port)
        refused = SCENARIO.endswith("-refused")
        rs = TlsRsyslog(d, port, certs, "rogue" if refused else "server")
        rs.start()
        sensor = tr.Sensor(d, target, ["--syslog-ca", certs["ca"] + ".pem", "--syslog-cert", certs["client"] + ".pem",
                                       "--syslog-key", certs["client"] + ".key", "--syslog-peer", "server.example",
                                       "--runtime-dir", os.path.join(d, "rt"),
                                       "--metrics", "127.0.0.1:%d" % mport])
        n = tr.run_helpers(d, len(tr.HOSTILE))
        tr.wait_alerts(sensor, n)
        figures = []
        if refused:
            # the other CA: refused, said once, counted
            ca_words = "%s: the server's certificate is not signed by CA %s.pem" % (target, certs["ca"])
            wait_for("the refusal in the log", lambda: ca_words in sensor.log_text(), 10)
            figures.append(check_waiting(sensor, d, mport, 0))
            # a correct server on the same port gets them all
            rs.stop()
            rs = TlsRsyslog(d, port, certs, "server")
            rs.start()
            wait_for("every alert at rsyslogd", lambda: len(tr.match(rs.received(), alerts_of(sensor),
                                                                       sensor.p.pid)[0]) == len(alerts_of(sensor)), 20)
            wait_for("the end of the outage in the log", lambda: "takes alerts again" in sensor.log_text(), 5)
            delivered = len(rs.received())
            # the wrong name: refused, said in its words, counted
            rs.stop()
            rs = TlsRsyslog(d, port, certs, "other")
            rs.start()
            n += tr.run_helpers(d, len(tr.HOSTILE))
            tr.wait_alerts(sensor, n)
            name_words = "%s: the server's certificate names 'other.example', not 'server.example'" % target
            wait_for("the second refusal in the log", lambda: name_words in sensor.log_text(), 15)
            figures.append(check_waiting(sensor, d, mport, delivered))
            rs.stop()
            rs = TlsRsyslog(d, port, certs, "server")
            rs.start()
        wait_for("every alert at rsyslogd", lambda: len(tr.match(rs.received(), alerts_of(sensor),
                                                                   sensor.p.pid)[0]) == len(alerts_of(sensor)), 20)
        sensor.stop()
        time.sleep(0.5)
        rs.stop()

        alerts = alerts_of(sensor)
        if len(tr.probe_alerts(alerts)) != n:
            fail(f"{len(tr.probe_alerts(alerts))} alerts in the JSON output for {n} helper runs")
        received = rs.received()
        seen, dups = tr.match(received, alerts, sensor.p.pid)
        nplain = tr.check_plain(rs.plain_lines(), alerts, seen, sensor.p.pid)
        st = tr.final_stats(sensor)
        log = sensor.log_text()
        print(f"{SCENARIO}: {len(alerts)} alerts, {len(received)} messages received ({dups} duplicates), "
              f"{nplain} plain lines; while refused (stats, status, metrics): "
              f"{[(f[0]['queued'], f[1].get('state'), f[2], f[0]['sent'] - f[3]) for f in figures]}; syslog stats {json.dumps(st)}; "
              f"{time.monotonic() - t_begin:.1f} s")
        # RELP is at-least-once: what librelp had not seen acknowledged when its
        # server went (acknowledgements it had not read yet, too) comes again
        if len(seen) != len(alerts) or (dups and not RELP):
            fail(f"{len(alerts) - len(seen)} alerts missing, {dups} twice")
        if st["queued"] != 0 or st["dropped"] != 0 or st["sent"] != len(seen):
            fail(f"stats at exit: {st}")
        if refused:
            if log.count("is not taking alerts") != 2 or log.count("takes alerts again") != 2:
                fail("each refusal not said once at its start and once at its end:\n" + log)
            if st["outages"] != 2 or st["connects"] != 2:
                fail(f"two refusals, two connections to the correct server, counted otherwise: {st}")
        elif st["outages"] != 0 or st["connects"] != 1:
            fail(f"an outage or a reconnect with a correct server: {st}")
        if "seccomp refused" in log:
            fail("the sender thread made a syscall the seccomp filter refuses:\n" + log)
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        if rs:
            rs.stop()
        finish([sensor], d, ok)


if __name__ == "__main__":
    main()
