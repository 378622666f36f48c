#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_audit_heads.py - the audit log's heads off the host, end to end.

A real rsyslogd of its own (its own config and work directory, TCP on
127.0.0.1) receives the real sensor's syslog and writes it twice: as RFC 5424
(RSYSLOG_SyslogProtocol23Format) and as rsyslog's JSON (jsonmesg, the SD
escaped in JSON strings). The sensor runs with --audit-log and a head every
second; a copy of the ground-truth helper exits 7 twice (an alert each, so
the chain grows and heads go out while it runs), then the sensor stops.

Scenarios (argv[1]):
  heads  `audit verify --heads` on each collector file: passes on the intact
         log, naming the stop head (it reached the collector); fails on the log
         cut by its last 2 lines, on the log rewritten whole (every hash
         recomputed: the chain alone says intact), and against a collector file
         without heads.
  keyed  the same sensor with a key from `audit keygen`: `verify --key` passes
         on the intact log (every line sealed), fails on an appended line with
         its hash recomputed (a copied MAC, or none) and on an old line modified
         (the hashes after it recomputed).

Needs root and BPF (the sensor) and rsyslogd; without them it skips (exit 77)
with the reason, unless PLUMBLINE_REQUIRE_BPF=1.
"""
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenario"))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, fail, finish, free_port, skip  # noqa: E402

SCENARIO, SENSOR, HELPER = sys.argv[1], sys.argv[2], sys.argv[3]


class Rsyslog:
    """rsyslogd -n with TCP on 127.0.0.1:port, writing every message to rfc5424.log and jsonmesg.log."""

    def __init__(self, d, port):
        self.d = d
        self.files = {"rfc5424": os.path.join(d, "rfc5424.log"), "json": os.path.join(d, "jsonmesg.log")}
        os.makedirs(os.path.join(d, "work"), exist_ok=True)
        conf = os.path.join(d, "rsyslog.conf")
        with open(conf, "w") as f:
            f.write('global(workDirectory="%s/work" maxMessageSize="64k")\n'
                    'module(load="imtcp")\n'
                    'input(type="imtcp" address="127.0.0.1" port="%d")\n'
                    'template(name="jm" type="list") { property(name="jsonmesg") constant(value="\\n") }\n'
                    'action(type="omfile" file="%s" template="RSYSLOG_SyslogProtocol23Format")\n'
                    'action(type="omfile" file="%s" template="jm")\n'
                    % (d, port, self.files["rfc5424"], self.files["json"]))
        self.p = subprocess.Popen(["rsyslogd", "-n", "-f", conf, "-i", os.path.join(d, "rsyslog.pid")],
                                  stdout=open(os.path.join(d, "rsyslog.log"), "a"), stderr=subprocess.STDOUT)
        sl.wait_for("rsyslogd listening on %d" % port, lambda: self.listening(port), timeout=10)

    def listening(self, port):
        if self.p.poll() is not None:
            fail("rsyslogd exited at start: " + open(os.path.join(self.d, "rsyslog.log")).read())
        try:
            socket_ = __import__("socket").create_connection(("127.0.0.1", port), timeout=1)
            socket_.close()
            return True
        except OSError:
            return False

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


def head_seqs(path):
    """The seqs of the heads in an RFC 5424 file, as a collector wrote them."""
    try:
        text = open(path, errors="replace").read()
    except FileNotFoundError:
        return []
    return [int(m.group(1)) for m in
            re.finditer(r' plumbline \d+ audit-head \[plumbline@32473 [^\]]*?seq="(\d+)"', text)]


def audit_lines(path):
    with open(path, "rb") as f:
        return f.read().split(b"\n")[:-1]


def write_lines(path, lines):
    with open(path, "wb") as f:
        f.write(b"".join(l + b"\n" for l in lines))


def seal(body):
    """A line's bytes up to its hash (everything but the 75-byte tail): the whole line, hash recomputed."""
    return body + b',"hash":"' + hashlib.sha256(body).hexdigest().encode() + b'"}'


def rechain(lines, change=None, start=0):
    """The lines with every hash from line `start` on recomputed (each prev the line before's hash),
    `change(i, body)` applied to each body first. What someone who can write the file, but has no key,
    can do: a chain that verifies."""
    out = list(lines[:start])
    prev = json.loads(lines[start - 1])["hash"].encode() if start else b"0" * 64
    for i in range(start, len(lines)):
        body = lines[i][:-75]
        body = re.sub(rb',"prev":"[0-9a-f]{64}"', b',"prev":"' + prev + b'"', body)
        if change:
            body = change(i, body)
        line = seal(body)
        out.append(line)
        prev = json.loads(line)["hash"].encode()
    return out


def verify(path, *args):
    p = subprocess.run([SENSOR, "audit", "verify", path, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=30)
    sl.log(f"verify {os.path.basename(path)} {' '.join(os.path.basename(a) for a in args)}: "
           f"exit {p.returncode}: {p.stdout.strip()}")
    return p.returncode, p.stdout


def expect(rc_out, rc, *needles):
    got_rc, out = rc_out
    if got_rc != rc:
        fail(f"verify exited {got_rc}, want {rc}: {out}")
    for n in needles:
        if n not in out:
            fail(f"no {n!r} in verify's output: {out}")


def run_helper(helper):
    r = subprocess.run([helper, "exit", "7"])
    if r.returncode != 7:
        fail(f"the helper exited {r.returncode}")


def main():
    sl.need_bpf()
    if not shutil.which("rsyslogd"):
        skip("no rsyslogd (Debian's rsyslog)")
    d = sl.temp_dir("pl-audit-heads-")
    sensor, rs, ok = None, None, False
    try:
        port = free_port()
        rs = Rsyslog(d, port)
        helper = os.path.join(d, "plaudit-helper")
        shutil.copy(HELPER, helper)
        rules, audit = os.path.join(d, "rules.yaml"), os.path.join(d, "audit.jsonl")
        with open(rules, "w") as f:
            f.write("- rule: audit probe\n"
                    "  desc: the test's copy of the helper exited with 7\n"
                    "  condition: proc.exit_code = 7 and proc.exe contains /plaudit-helper\n"
                    "  output: \"probe exited 7 (pid %proc.pid)\"\n"
                    "  priority: ERROR\n")
        extra = ["--no-baselines", "--rules", rules, "--syslog", f"tcp:127.0.0.1:{port}",
                 "--audit-log", audit, "--audit-head-interval", "1"]
        key_args = []
        if SCENARIO == "keyed":
            keyf, seedf = os.path.join(d, "audit.key"), os.path.join(d, "seed")
            p = subprocess.run([SENSOR, "audit", "keygen", "--key-file", keyf, "--seed-file", seedf],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if p.returncode != 0:
                fail(f"audit keygen exited {p.returncode}: {p.stdout}")
            if os.stat(keyf).st_mode & 0o777 != 0o600 or os.stat(seedf).st_mode & 0o777 != 0o600:
                fail("the key or seed file is not 0600")
            extra += ["--audit-key", keyf]
            key_args = ["--key", seedf]
        sensor = sl.Sensor(d, "sensor", SENSOR, defaults=False, extra=extra)
        rfc, js = rs.files["rfc5424"], rs.files["json"]

        # two alerts, a head after each at the collector while the sensor runs
        for k in range(1, 3):
            run_helper(helper)
            sl.wait_for(f"alert {k} in the audit log",
                        lambda: open(audit, "rb").read().count(b'"rule":"audit probe"') >= k)
            last = json.loads(audit_lines(audit)[-1])["seq"]
            sl.wait_for(f"a head of seq {last} at the collector", lambda: last in head_seqs(rfc), timeout=10)
        sensor.stop()
        lines = audit_lines(audit)
        stop_seq = json.loads(lines[-1])["seq"]
        if json.loads(lines[-1])["event"] != "stop":
            fail("the audit log does not end with the stop line")
        # the stop head left the host: it was sent before syslog's last drain
        sl.wait_for(f"the stop head (seq {stop_seq}) at the collector", lambda: stop_seq in head_seqs(rfc),
                    timeout=10)
        sl.wait_for("the stop head in the JSON file",
                    lambda: f'seq=\\"{stop_seq}\\"' in open(js, errors="replace").read(), timeout=10)
        rs.stop()

        want = f"last head seq {stop_seq} at "
        for heads in (rfc, js):
            expect(verify(audit, "--heads", heads, *key_args), 0, "intact", " matched, " + want)

        bad = os.path.join(d, "bad.jsonl")
        write_lines(bad, lines[:-2])  # cut by its last 2 lines
        expect(verify(bad), 0, "intact")  # the chain alone cannot tell
        for heads in (rfc, js):
            expect(verify(bad, "--heads", heads), 1, "truncated", f"seq {stop_seq - 1}..{stop_seq}")

        # rewritten whole, every hash recomputed: intact as a chain, not against the heads
        rewritten = rechain(lines, lambda i, b: b.replace(b'"rule":"audit probe"', b'"rule":"audit prose"'))
        write_lines(bad, rewritten)
        if SCENARIO == "heads":
            expect(verify(bad), 0, "intact")
        for heads in (rfc, js):
            expect(verify(bad, "--heads", heads), 1, "rewritten")

        # a collector file with no head: not verified
        nohead = os.path.join(d, "nohead.log")
        with open(rfc) as f, open(nohead, "w") as o:
            o.write("".join(l for l in f if " audit-head " not in l))
        expect(verify(audit, "--heads", nohead), 1, "holds no audit-head record", "heads: 0 of 0 matched")

        if SCENARIO == "keyed":
            expect(verify(audit, *key_args), 0, "intact", f"keyed: {len(lines)} lines sealed")
            expect(verify(audit), 0, f"keyed: {len(lines)} of {len(lines)} lines carry a MAC, not checked")
            # an appended line, chained and hashed: with a copied MAC, then with none
            last = lines[-1][:-75]
            body = re.sub(rb'"seq":\d+', b'"seq":%d' % (stop_seq + 1), last, count=1)
            body = re.sub(rb',"prev":"[0-9a-f]{64}"', b',"prev":"' + json.loads(lines[-1])["hash"].encode() + b'"',
                          body)
            write_lines(bad, lines + [seal(body)])
            expect(verify(bad), 0, "intact")
            expect(verify(bad, *key_args), 1, f"line {len(lines) + 1}: forged")
            write_lines(bad, lines + [seal(body[:-73])])  # the MAC cut off: `,"mac":"<64>"`
            expect(verify(bad, *key_args), 1, f"line {len(lines) + 1}: unsealed")
            # an old line modified, the hashes after it recomputed
            i0 = next(i for i, l in enumerate(lines) if b'"rule":"audit probe"' in l)
            write_lines(bad, rechain(lines, lambda i, b: b.replace(b'"rule":"audit probe"', b'"rule":"audit prose"')
                                     if i == i0 else b, start=i0))
            expect(verify(bad), 0, "intact")
            expect(verify(bad, *key_args), 1, f"line {i0 + 1}: forged")
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        if rs:
            rs.stop()
        finish([sensor], d, ok)


if __name__ == "__main__":
    main()
