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
  tls-refused, relp-tls-refused: a sensor starts against a server whose
    certificate is from the other CA: refused, said once in the log in words
    (not signed by CA FILE), the alerts wait and are counted not delivered
    (stats record, status.json, metrics); a correct server on the same port
    gets them all, none lost, none twice. Then a second sensor against a
    server whose certificate names other.example, likewise (names
    'other.example', not 'server.example'). Then a third without a
    certificate of its own: the server refuses it (mutual TLS), said in
    words; its alerts wait, and are counted lost at exit.
  tls-restart: rsyslogd stopped and started again (the same certificate)
    while alerts are raised: the closed session is noticed before the next
    frame, said once, and every alert arrives once over the new session.
  tls-files: the start-up checks, without a server: a TLS target without a
    CA, an unreadable CA, a CA file that is no PEM, a certificate without its
    key, a key that is not the certificate's, an encrypted key, TLS files for
    a target in clear: `run` exits 1 before loading BPF with the error in
    words, and `config check` says the same of a config file; `config show`
    lists the files.

Needs root and BPF (the sensor), rsyslogd with rsyslog-openssl (lmnsd_ossl)
and rsyslog-relp (imrelp), and openssl; without them it skips (exit 77).
"""
import json
import os
import shutil
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

SCENARIO, SENSOR = sys.argv[1], sys.argv[2]
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
    """The alerts wait, counted as not delivered: the stats record's queued is
    exactly the JSON output's alerts not sent, sent is what rsyslogd has, the
    metrics' queue is the stats record's, status.json's state disconnected."""
    def settled():
        st = stats(sensor)
        n = len(alerts_of(sensor))
        return (st and st[-1]["syslog"]["written"] == n and st[-1]["syslog"]["queued"] == n - st[-1]["syslog"]["sent"]
                and st[-1]["syslog"]["queued"] > 0)
    wait_for("a stats record with every alert not sent queued", settled, 10)
    st = stats(sensor)[-1]["syslog"]
    if st["state"] == "connected" or st["connect_failures"] < 1 or st["sent"] != delivered:
        fail(f"the refused server is counted as taking alerts ({delivered} at rsyslogd): {st}")
    out = wait_for("status.json saying the syslog target is down",
                   lambda: (lambda o: o if o.get("state") == "disconnected" else None)(status(d)), 5)
    queued = wait_for("the metrics' queue as the stats record's", lambda: (lambda q: q if q == stats(sensor)[-1][
        "syslog"]["queued"] else None)(metric(mport, "plumbline_syslog_queued_messages")), 5)
    if metric(mport, "plumbline_syslog_connected") != 0:
        fail("the metrics say connected while the server is refused")
    return st, out, queued


def files(d):
    """The start-up checks of the TLS files: run refuses, in words, before BPF."""
    certs = make_certs(d)
    ca, cert, key = certs["ca"] + ".pem", certs["client"] + ".pem", certs["client"] + ".key"
    junk = os.path.join(d, "junk.pem")
    with open(junk, "w") as f:
        f.write("not a certificate\n")
    enc = os.path.join(d, "encrypted.key")
    r = subprocess.run(["openssl", "pkey", "-in", key, "-aes256", "-passout", "pass:secret", "-out", enc],
                       capture_output=True, text=True)
    if r.returncode:
        fail("openssl pkey: " + r.stderr)
    target = "tls:127.0.0.1:6514"
    cases = [
        ([], "a TLS target needs --syslog-ca FILE"),
        (["--syslog-ca", os.path.join(d, "nonexistent.pem")],
         "--syslog-ca %s: cannot read it: No such file or directory" % os.path.join(d, "nonexistent.pem")),
        (["--syslog-ca", junk], "--syslog-ca %s: holds no PEM certificate" % junk),
        (["--syslog-ca", ca, "--syslog-cert", cert], "--syslog-cert and --syslog-key go together"),
        (["--syslog-ca", ca, "--syslog-cert", cert, "--syslog-key", certs["other"] + ".key"],
         "--syslog-key %s.key: does not match the certificate of --syslog-cert %s" % (certs["other"], cert)),
        (["--syslog-ca", ca, "--syslog-cert", cert, "--syslog-key", enc],
         "--syslog-key %s: holds no unencrypted PEM private key" % enc),
        (["--syslog-ca", ca, "--syslog-peer", "bad name"], "--syslog-peer 'bad name': not a host name or an address"),
    ]
    said = []
    for extra, words in cases:
        for tgt in (target, "relp+tls:127.0.0.1:2514"):
            r = subprocess.run([SENSOR, "run", "--no-live", "--no-baselines", "--duration", "1", "--runtime-dir",
                                os.path.join(d, "rt"), "--json", os.path.join(d, "out.jsonl"), "--syslog", tgt,
                                *extra], capture_output=True, text=True, timeout=30)
            if r.returncode != 1 or ("--syslog %s: %s" % (tgt, words)) not in r.stderr or "attached" in r.stderr:
                fail(f"run --syslog {tgt} {extra}: exit {r.returncode}, not the error {words!r}:\n{r.stderr}")
        said.append(r.stderr.strip().splitlines()[-1])
    r = subprocess.run([SENSOR, "run", "--no-live", "--duration", "1", "--syslog", "tcp:127.0.0.1:514",
                        "--syslog-ca", ca], capture_output=True, text=True, timeout=30)
    if r.returncode != 1 or "are for a tls: or relp+tls: target" not in r.stderr:
        fail(f"TLS files for a target in clear: exit {r.returncode}: {r.stderr}")
    # config check and show
    conf = os.path.join(d, "plumbline.conf")
    with open(conf, "w") as f:
        f.write("syslog = relp+tls:127.0.0.1:2514\nsyslog-ca = %s\nsyslog-cert = %s\nsyslog-key = %s\n"
                % (ca, cert, certs["other"] + ".key"))
    r = subprocess.run([SENSOR, "config", "check", conf], capture_output=True, text=True, timeout=30)
    if r.returncode != 1 or "does not match the certificate" not in r.stdout + r.stderr:
        fail(f"config check of a mismatched key: exit {r.returncode}: {r.stdout}{r.stderr}")
    with open(conf, "w") as f:
        f.write("syslog = relp+tls:127.0.0.1:2514\nsyslog-ca = %s\nsyslog-cert = %s\nsyslog-key = %s\n"
                "syslog-peer = logs.example\n" % (ca, cert, key))
    r = subprocess.run([SENSOR, "config", "check", conf], capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        fail(f"config check of good TLS files: exit {r.returncode}: {r.stdout}{r.stderr}")
    r = subprocess.run([SENSOR, "config", "show", conf], capture_output=True, text=True, timeout=30)
    shown = {l.split("=")[0].strip(): l for l in r.stdout.splitlines() if l.startswith("syslog")}
    for k, v in (("syslog-ca", ca), ("syslog-cert", cert), ("syslog-key", key), ("syslog-peer", "logs.example")):
        if k not in shown or v not in shown[k] or "file:" not in shown[k]:
            fail(f"config show does not list {k} = {v}: {r.stdout}")
    print("tls-files: %d refusals in words, e.g.\n  %s" % (len(cases) * 2 + 2, "\n  ".join(said)))


def main():
    if SCENARIO == "tls-files":
        if not shutil.which("openssl"):
            skip("no openssl", bpf=False)
        d = sl.temp_dir("pl-syslog-tls-")
        ok = False
        try:
            files(d)
            ok = True
        except Failure as e:
            print(f"FAIL: {e}", file=sys.stderr)
        finally:
            finish([], d, ok)
    sl.need_bpf()
    if not shutil.which("rsyslogd") or not shutil.which("openssl"):
        skip("no rsyslogd (Debian's rsyslog) or no openssl")
    mod = "imrelp.so" if RELP else "lmnsd_ossl.so"
    if not any(os.path.exists(os.path.join(p, mod)) for p in LIBDIRS):
        skip(f"no {mod} (Debian's {'rsyslog-relp' if RELP else 'rsyslog-openssl'})")
    t_begin = time.monotonic()
    d = sl.temp_dir("pl-syslog-tls-")
    live = {"rs": None, "sensors": []}
    ok = False
    try:
        certs = make_certs(d)
        runs = [("server", None)]
        if SCENARIO == "tls-restart":
            restart(os.path.join(d, "run1"), certs, live)
            runs = []
        if SCENARIO.endswith("-refused"):
            runs = [("rogue", "the server's certificate is not signed by CA %s.pem (" % certs["ca"]),
                    ("other", "the server's certificate names 'other.example', not 'server.example' (")]
        for i, (first, words) in enumerate(runs):
            one_run(os.path.join(d, "run%d" % (i + 1)), certs, first, words, live)
        if SCENARIO.endswith("-refused"):
            # mutual TLS: the server refuses a sensor that has no certificate to show
            no_cert(os.path.join(d, "run%d" % (len(runs) + 1)), certs, live)
        print(f"{SCENARIO}: {time.monotonic() - t_begin:.1f} s")
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        if live["rs"]:
            live["rs"].stop()
        finish(live["sensors"], d, ok)


def restart(d, certs, live):
    """The collector restarts while the sensor is connected: nothing lost, nothing twice."""
    os.makedirs(d)
    port = free_port()
    target = "tls:127.0.0.1:%d" % port
    rs = live["rs"] = TlsRsyslog(d, port, certs, "server")
    rs.start()
    sensor = tr.Sensor(d, target, ["--syslog-ca", certs["ca"] + ".pem", "--syslog-cert", certs["client"] + ".pem",
                                   "--syslog-key", certs["client"] + ".key", "--syslog-peer", "server.example",
                                   "--runtime-dir", os.path.join(d, "rt")])
    live["sensors"].append(sensor)
    n = tr.run_helpers(d, len(tr.HOSTILE))
    wait_for("the first alerts at rsyslogd", lambda: len(rs.received()) >= n, 10)
    rs.stop()
    n += tr.run_helpers(d, len(tr.HOSTILE))  # while it is down
    tr.wait_alerts(sensor, n)
    rs = live["rs"] = TlsRsyslog(d, port, certs, "server")
    rs.start()
    n += tr.run_helpers(d, len(tr.HOSTILE))
    tr.wait_alerts(sensor, n)
    wait_for("every alert at rsyslogd", lambda: len(tr.match(rs.received(), alerts_of(sensor),
                                                               sensor.p.pid)[0]) == len(alerts_of(sensor)), 20)
    sensor.stop()
    time.sleep(0.5)
    rs.stop()
    live["rs"] = None
    alerts = alerts_of(sensor)
    seen, dups = tr.match(rs.received(), alerts, sensor.p.pid)
    st = tr.final_stats(sensor)
    log = sensor.log_text()
    print(f"tls-restart: {len(alerts)} alerts, {len(seen)} at rsyslogd, {dups} twice; syslog stats {json.dumps(st)}")
    if len(tr.probe_alerts(alerts)) != n or len(seen) != len(alerts) or dups:
        fail(f"{n} helper runs, {len(alerts)} alerts, {len(seen)} received, {dups} twice")
    if st["reconnects"] != 1 or st["outages"] != 1 or st["sent"] != len(seen) or st["dropped"]:
        fail(f"stats at exit: {st}")
    if log.count("closed the TLS session") != 1 or log.count("takes alerts again") != 1:
        fail("the restart not said once at its start and once at its end:\n" + log)


def no_cert(d, certs, live):
    """A sensor without --syslog-cert against a server that wants one: refused,
    said in words, the alerts wait (counted) and are lost at exit, counted."""
    os.makedirs(d)
    port, mport = free_port(), free_port()
    target = "%s:127.0.0.1:%d" % ("relp+tls" if RELP else "tls", port)
    rs = live["rs"] = TlsRsyslog(d, port, certs, "server")
    rs.start()
    sensor = tr.Sensor(d, target, ["--syslog-ca", certs["ca"] + ".pem", "--syslog-peer", "server.example",
                                   "--runtime-dir", os.path.join(d, "rt"), "--metrics", "127.0.0.1:%d" % mport])
    live["sensors"].append(sensor)
    n = tr.run_helpers(d, 2)
    tr.wait_alerts(sensor, n)
    words = ("the server may refuse our certificate (none given: --syslog-cert, --syslog-key)" if RELP else
             "the server ended the session after the TLS handshake: it wants our certificate (--syslog-cert, "
             "--syslog-key)")
    wait_for("the refusal in the log", lambda: (target in sensor.log_text() and words in sensor.log_text()), 10)
    waiting = check_waiting(sensor, d, mport, 0)
    sensor.stop()
    rs.stop()
    live["rs"] = None
    st = tr.final_stats(sensor)
    alerts = alerts_of(sensor)
    log = sensor.log_text()
    print(f"{SCENARIO} (no client certificate): {len(alerts)} alerts, {len(rs.received())} received; queued "
          f"{waiting[0]['queued']} while refused; syslog stats {json.dumps(st)}")
    print("  said: " + next(line for line in log.splitlines() if "is not taking alerts" in line))
    if rs.received() or st["sent"] != 0 or st["dropped_at_exit"] != len(alerts) or st["dropped"] != len(alerts):
        fail(f"a refused session took alerts, or they were not counted lost at exit: {st}")
    if log.count("is not taking alerts") != 1:
        fail("the refusal not said once:\n" + log)


def one_run(d, certs, first, words, live):
    """A sensor and its rsyslogd serving certificate first: refused in words
    (when words) and counted, then a correct server on the same port; every
    alert arrives."""
    os.makedirs(d)
    port, mport = free_port(), free_port()
    target = "%s:127.0.0.1:%d" % ("relp+tls" if RELP else "tls", port)
    rs = live["rs"] = TlsRsyslog(d, port, certs, first)
    rs.start()
    sensor = tr.Sensor(d, target, ["--syslog-ca", certs["ca"] + ".pem", "--syslog-cert", certs["client"] + ".pem",
                                   "--syslog-key", certs["client"] + ".key", "--syslog-peer", "server.example",
                                   "--runtime-dir", os.path.join(d, "rt"), "--metrics", "127.0.0.1:%d" % mport])
    live["sensors"].append(sensor)
    n = tr.run_helpers(d, len(tr.HOSTILE))
    tr.wait_alerts(sensor, n)
    waiting = None
    if words:
        # refused, said once in words, the alerts counted as not delivered
        wait_for("the refusal in the log", lambda: "%s: %s" % (target, words) in sensor.log_text(), 10)
        waiting = check_waiting(sensor, d, mport, 0)
        # a correct server on the same port gets them all
        rs.stop()
        rs = live["rs"] = TlsRsyslog(d, port, certs, "server")
        rs.start()
    wait_for("every alert at rsyslogd", lambda: len(tr.match(rs.received(), alerts_of(sensor),
                                                               sensor.p.pid)[0]) == len(alerts_of(sensor)), 20)
    if words:
        wait_for("the end of the outage in the log", lambda: "takes alerts again" in sensor.log_text(), 5)
    sensor.stop()
    time.sleep(0.5)
    rs.stop()
    live["rs"] = None

    alerts = alerts_of(sensor)
    if len(tr.probe_alerts(alerts)) != n:
        fail(f"{len(tr.probe_alerts(alerts))} alerts in the JSON output for {n} helper runs")
    received = rs.received()
    seen, dups = tr.match(received, alerts, sensor.p.pid)
    nplain = tr.check_plain(rs.plain_lines(), alerts, seen, sensor.p.pid)
    st = tr.final_stats(sensor)
    log = sensor.log_text()
    print(f"{SCENARIO} ({first}'s certificate first): {len(alerts)} alerts, {len(received)} messages received "
          f"({dups} duplicates), {nplain} plain lines; while refused: "
          f"{'queued %d (stats), %s (status.json), queued %d (metrics)' % (waiting[0]['queued'], waiting[1]['state'], waiting[2]) if waiting else '-'}; "
          f"syslog stats {json.dumps(st)}")
    if words:
        print("  said: " + next(line for line in log.splitlines() if "is not taking alerts" in line))
    if len(seen) != len(alerts) or dups:
        fail(f"{len(alerts) - len(seen)} alerts missing, {dups} twice")
    if st["queued"] != 0 or st["dropped"] != 0 or st["sent"] != len(seen) or st["connects"] != 1:
        fail(f"stats at exit: {st}")
    if words:
        if log.count("is not taking alerts") != 1 or log.count("takes alerts again") != 1:
            fail("the refusal not said once at its start and once at its end:\n" + log)
        if st["outages"] != 1 or st["connect_failures"] < 1:
            fail(f"the refusal counted otherwise: {st}")
    elif st["outages"] != 0:
        fail(f"an outage with a correct server: {st}")
    if "seccomp refused" in log:
        fail("the sender thread made a syscall the seccomp filter refuses:\n" + log)


if __name__ == "__main__":
    main()
