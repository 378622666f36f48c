#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_rsyslog.py - the real sensor's alerts to a real rsyslogd.

Each scenario starts rsyslogd of its own (its own config, work directory,
socket and ports on 127.0.0.1, an omfile output written by a JSON template
with the raw message and what rsyslog parsed of it), runs the real sensor with
--syslog pointed at it and a rule that fires when a copy of the ground-truth
helper exits with 73, and runs copies of the helper under hostile names (a
quote, a bracket, a backslash, a newline, ESC). Then it checks, against the
sensor's JSON output:

  - every alert arrived (or, where the test stops the collector, was counted
    lost in the stats record), and nothing arrived that was not an alert;
  - each message is RFC 5424, by a strict parser of the grammar here, and
    rsyslog parsed the same APP-NAME, PROCID, MSGID and STRUCTURED-DATA;
  - the structured data round-trips exactly: unescaping the PARAM-VALUEs
    gives every top-level scalar of the JSON alert (rule_desc among them),
    byte for byte, and MSG is "[PRIORITY] id=ID " and its output;
  - the plain line rsyslog writes to a traditional file
    (RSYSLOG_TraditionalFileFormat, RFC 3164's form, no structured data)
    still carries each alert's priority and id, before its output.

Scenarios (argv[1]): tcp, udp, relp, unix-late (no socket when the sensor
starts: alerts wait and arrive once rsyslogd creates it), tcp-restart and
relp-restart (rsyslogd stopped and started again while alerts are sent: over
tcp, sent = received + counted lost; over relp, nothing lost at all).

Needs root and BPF (the sensor) and rsyslogd (+ imrelp for relp); without them
it skips (exit 77) with the reason, unless PLUMBLINE_REQUIRE_BPF=1.
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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenario"))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, fail, finish, free_port, skip  # noqa: E402

SENSOR, HELPER = sys.argv[2], sys.argv[3]
SCENARIO = sys.argv[1]
EXIT_CODE = 73
SD_ID = "plumbline@32473"
HOSTILE = ['q"uote', "br]acket", "back\\slash", "new\nline", "esc\x1b[2Jx", "plain"]


# ---- a strict RFC 5424 parser ----

PRINTUSASCII = re.compile(r"[\x21-\x7e]+")
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})")


def parse_5424(raw: bytes):
    """Parse one message; raise ValueError on anything RFC 5424 does not allow."""
    text = raw.decode("utf-8")  # strict: our messages are valid UTF-8
    m = re.match(r"<(\d{1,3})>1 ", text)
    if not m or int(m.group(1)) > 191 or (len(m.group(1)) > 1 and m.group(1)[0] == "0"):
        raise ValueError("bad PRI/VERSION")
    pos = m.end()
    fields = []
    for maxlen in (None, 255, 48, 128, 32):
        end = text.find(" ", pos)
        if end < 0:
            raise ValueError("header cut short")
        f = text[pos:end]
        if f != "-":
            if not PRINTUSASCII.fullmatch(f) or (maxlen and len(f) > maxlen):
                raise ValueError(f"bad header field {f!r}")
        fields.append(f)
        pos = end + 1
    ts, host, app, procid, msgid = fields
    if ts != "-" and not TIMESTAMP.fullmatch(ts):
        raise ValueError(f"bad TIMESTAMP {ts!r}")
    sd = {}
    sd_start = pos
    if text[pos] == "-":
        pos += 1
    else:
        while pos < len(text) and text[pos] == "[":
            pos += 1
            m = re.compile(r'[^\x00-\x20=\]"\x7f-\uffff]{1,32}').match(text, pos)
            if not m:
                raise ValueError("bad SD-ID")
            sdid = m.group(0)
            pos = m.end()
            params = {}
            while text[pos] == " ":
                pos += 1
                m = re.compile(r'[^\x00-\x20=\]"\x7f-\uffff]{1,32}').match(text, pos)
                if not m or text[m.end()] != "=" or text[m.end() + 1] != '"':
                    raise ValueError("bad SD-PARAM")
                name = m.group(0)
                pos = m.end() + 2
                val = []
                while True:
                    c = text[pos]
                    if c == "\\" and text[pos + 1] in '"\\]':
                        val.append(text[pos + 1])
                        pos += 2
                    elif c == "\\":
                        val.append(c)  # RFC 5424 6.3.3: a backslash before anything else is itself
                        pos += 1
                    elif c in '"]':
                        break
                    else:
                        val.append(c)
                        pos += 1
                if text[pos] != '"':
                    raise ValueError(f"unescaped ] in {name}")
                pos += 1
                if name in params:
                    raise ValueError(f"repeated param {name}")
                params[name] = "".join(val)
            if text[pos] != "]":
                raise ValueError("SD-ELEMENT not closed")
            pos += 1
            if sdid in sd:
                raise ValueError("repeated SD-ID")
            sd[sdid] = params
    sd_text = text[sd_start:pos]
    if pos == len(text):
        msg = None
    elif text[pos] == " ":
        msg = text[pos + 1 :]
    else:
        raise ValueError("no SP after STRUCTURED-DATA")
    if msg is not None and ("\n" in msg or "\x1b" in msg):
        raise ValueError("control byte in MSG")
    return dict(pri=int(text[1 : text.index(">")]), ts=ts, host=host, app=app, procid=procid,
                msgid=msgid, sd=sd, sd_text=sd_text, msg=msg)


# ---- processes ----

class Rsyslog:
    def __init__(self, d, inputs):
        self.d, self.out = d, os.path.join(d, "received.jsonl")
        self.conf, self.pidfile = os.path.join(d, "rsyslog.conf"), os.path.join(d, "rsyslog.pid")
        os.makedirs(os.path.join(d, "work"), exist_ok=True)
        mods = {"imtcp", "imudp", "imrelp", "imuxsock"} & {i.split(":")[0] for i in inputs}
        conf = ['global(workDirectory="%s/work" maxMessageSize="64k")' % d]
        for m in sorted(mods):
            conf.append('module(load="%s"%s)' % (m, ' SysSock.Use="off"' if m == "imuxsock" else ""))
        for i in inputs:
            kind, arg = i.split(":", 1)
            if kind == "imuxsock":
                conf.append('input(type="imuxsock" Socket="%s" useSpecialParser="off" '
                            'parseHostname="on" CreatePath="on")' % arg)
            else:
                conf.append('input(type="%s" address="127.0.0.1" port="%s")' % (kind, arg))
        conf.append('template(name="t" type="list" option.jsonf="on") {\n'
                    ' property(outname="raw" name="rawmsg" format="jsonf")\n'
                    ' property(outname="app" name="app-name" format="jsonf")\n'
                    ' property(outname="procid" name="procid" format="jsonf")\n'
                    ' property(outname="msgid" name="msgid" format="jsonf")\n'
                    ' property(outname="sd" name="structured-data" format="jsonf")\n'
                    ' property(outname="msg" name="msg" format="jsonf")\n'
                    ' property(outname="severity" name="syslogseverity" format="jsonf")\n'
                    ' property(outname="facility" name="syslogfacility" format="jsonf")\n}')
        conf.append('action(type="omfile" file="%s" template="t")' % self.out)
        # the plain line (RFC 3164's form) a traditional log file keeps: no SD, MSG only
        self.plain = os.path.join(d, "plain.log")
        conf.append('action(type="omfile" file="%s" template="RSYSLOG_TraditionalFileFormat")' % self.plain)
        with open(self.conf, "w") as f:
            f.write("\n".join(conf) + "\n")
        self.p = None

    def start(self):
        self.p = subprocess.Popen(["rsyslogd", "-n", "-f", self.conf, "-i", self.pidfile],
                                  stdout=open(os.path.join(self.d, "rsyslog.log"), "a"), stderr=subprocess.STDOUT)
        time.sleep(0.7)  # until its inputs listen
        if self.p.poll() is not None:
            fail("rsyslogd exited at start: " + open(os.path.join(self.d, "rsyslog.log")).read())

    def stop(self):
        if self.p and self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.p = None

    def plain_lines(self):
        if not os.path.exists(self.plain):
            return []
        with open(self.plain, "rb") as f:
            return [l for l in f.read().decode("utf-8").splitlines() if l.strip()]

    def received(self):
        if not os.path.exists(self.out):
            return []
        with open(self.out, "rb") as f:
            return [json.loads(l) for l in f.read().decode("utf-8").splitlines() if l.strip()]


def Sensor(d, target, extra=()):
    rules = os.path.join(d, "rules.yaml")
    with open(rules, "w") as f:
        f.write("- rule: syslog probe\n"
                "  desc: a copy of the helper exited with %d\n"
                "  condition: proc.exit_code = %d and proc.exe contains /plsys-\n"
                "  output: \"probe %%proc.exe_name exited %%proc.exit_code (pid %%proc.pid)\"\n"
                "  priority: ERROR\n" % (EXIT_CODE, EXIT_CODE))
    # the loss alert stays on, as shipped: the sensor's own alerts
    # (when="sensor": other tests' load on a shared machine) go to syslog
    # too, and are matched and counted like the probes' but not as probes
    return sl.Sensor(d, "sensor", SENSOR, defaults=False, extra=[
        "--no-baselines", "--rules", rules, "--syslog", target, "--stats-interval", "1", *extra])


def run_helpers(d, n, pause=0.0):
    """Run n copies of the helper under the hostile names (round robin); return their count."""
    bindir = os.path.join(d, "bin")
    os.makedirs(bindir, exist_ok=True)
    paths = []
    for name in HOSTILE:
        p = os.path.join(bindir, "plsys-" + name)
        if not os.path.exists(p):
            shutil.copy(HELPER, p)
            os.chmod(p, 0o755)
        paths.append(p)
    for i in range(n):
        r = subprocess.run([paths[i % len(paths)], "exit", str(EXIT_CODE)])
        if r.returncode != EXIT_CODE:
            fail(f"the helper exited {r.returncode}")
        if pause:
            time.sleep(pause)
    return n


def probe_alerts(records):
    """The alerts of the test's rule: every alert but the sensor's own."""
    return [r for r in records if r.get("type") == "alert" and r.get("when") != "sensor"]


def wait_alerts(sensor, n, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if len(probe_alerts(sensor.records())) >= n:
            return
        time.sleep(0.2)
    fail(f"fewer than {n} alerts in the JSON output")


def scalar_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def check_message(rec, alert, sensor_pid):
    """rec: what rsyslog wrote; alert: the JSON alert it must be."""
    m = parse_5424(rec["raw"].encode("utf-8"))
    if m["app"] != "plumbline" or m["procid"] != str(sensor_pid) or m["msgid"] != "alert":
        fail(f"header: {m}")
    if m["pri"] != 3 * 8 + alert["severity"]:
        fail(f"PRI {m['pri']} for severity {alert['severity']}")
    want = {k: scalar_text(v) for k, v in alert.items()
            if k not in ("type", "output") and v is not None and not isinstance(v, (dict, list))}
    if m["sd"] != {SD_ID: want}:
        fail(f"SD does not round-trip:\n got {m['sd']}\nwant {want}")
    # MSG leads with the priority and the alert's id (what a plain line keeps of it)
    want_msg = "[%s] id=%s %s" % (alert["priority"].upper(), alert["id"], alert["output"])
    if m["msg"] != want_msg:
        fail(f"MSG {m['msg']!r} != {want_msg!r}")
    # rsyslog parsed it as RFC 5424 too, to the same fields
    if (rec["app"], rec["procid"], rec["msgid"], rec["sd"]) != ("plumbline", str(sensor_pid), "alert", m["sd_text"]):
        fail(f"rsyslog parsed it otherwise: {rec}")
    if int(rec["severity"]) != alert["severity"] or int(rec["facility"]) != 3:
        fail(f"rsyslog's severity/facility: {rec}")


def match(received, alerts, sensor_pid):
    """Map each received message to its alert (by id); return (matched ids, duplicates)."""
    by_id = {a["id"]: a for a in alerts}
    seen, dups = set(), 0
    for rec in received:
        m = parse_5424(rec["raw"].encode("utf-8"))
        aid = m["sd"][SD_ID]["id"]
        if aid not in by_id:
            fail(f"a message that is no alert of the JSON output: {rec['raw']!r}")
        check_message(rec, by_id[aid], sensor_pid)
        if aid in seen:
            dups += 1
        seen.add(aid)
    return seen, dups


PLAIN = re.compile(r" plumbline\[(\d+)\]:? \[([A-Z]+)\] id=([0-9a-f]{16}-[0-9a-f]{16}) (.*)$")


def check_plain(lines, alerts, seen, sensor_pid):
    """Every alert received has its plain line: the priority, the id, the output."""
    by_id = {a["id"]: a for a in alerts}
    plain = {}
    for line in lines:
        m = PLAIN.search(line)
        if not m:
            fail(f"a plain line without priority and id: {line!r}")
        pid, prio, aid, out = m.groups()
        a = by_id.get(aid)
        if a is None or pid != str(sensor_pid) or prio != a["priority"].upper() or out != a["output"]:
            fail(f"plain line {line!r} is not alert {a}")
        plain[aid] = line
    if set(plain) != set(seen):
        fail(f"{len(set(seen) - set(plain))} alerts received without their plain line")
    return len(plain)


def final_stats(sensor):
    stats = [r for r in sensor.records() if r.get("type") == "stats"]
    return stats[-1]["syslog"]


def main():
    sl.need_bpf()
    if not shutil.which("rsyslogd"):
        skip("no rsyslogd (Debian's rsyslog)")
    if "relp" in SCENARIO and not any(os.path.exists(p + "/imrelp.so") for p in
                                      ("/usr/lib/x86_64-linux-gnu/rsyslog", "/usr/lib/aarch64-linux-gnu/rsyslog",
                                       "/usr/lib/rsyslog")):
        skip("no imrelp (Debian's rsyslog-relp)")
    d = sl.temp_dir("pl-syslog-")
    rs = sensor = None
    ok = False
    try:
        proto = SCENARIO.split("-")[0]
        if proto == "unix":
            sock = os.path.join(d, "sock", "log")
            rs, target = Rsyslog(d, ["imuxsock:" + sock]), "unix:" + sock
        else:
            port = free_port(socket.SOCK_DGRAM if proto == "udp" else socket.SOCK_STREAM)
            rs = Rsyslog(d, [{"tcp": "imtcp", "udp": "imudp", "relp": "imrelp"}[proto] + ":%d" % port])
            target = "%s:127.0.0.1:%d" % (proto, port)
        if SCENARIO != "unix-late":
            rs.start()
        # over tcp, a buffer of 8 KiB (a dozen alerts) overflows while rsyslogd is down
        sensor = Sensor(d, target, ["--syslog-buffer", "8192"] if SCENARIO == "tcp-restart" else [])
        if SCENARIO in ("tcp", "udp", "relp"):
            n = run_helpers(d, 2 * len(HOSTILE))
        elif SCENARIO == "unix-late":
            n = run_helpers(d, len(HOSTILE))
            wait_alerts(sensor, n)
            time.sleep(1.5)
            rs.start()  # creates the socket now; the sensor's next attempt finds it
            time.sleep(9)  # the backoff is at most 8 s by now
        else:  # a restart mid-stream
            n = run_helpers(d, 40, 0.02)
            # the first forty sent before the stop: a frame written while
            # rsyslogd is exiting is TCP's uncounted residue (docs/outputs.md),
            # not what this counts
            wait_alerts(sensor, n)
            time.sleep(0.3)
            rs.stop()
            n += run_helpers(d, 40, 0.02)  # while it is down
            time.sleep(0.5)
            rs.start()
            n += run_helpers(d, 40, 0.02)
        wait_alerts(sensor, n)
        time.sleep(2)  # the tick sends what waits
        sensor.stop()
        time.sleep(0.5)
        rs.stop()
        alerts = [r for r in sensor.records() if r.get("type") == "alert"]
        if len(probe_alerts(alerts)) != n:
            fail(f"{len(probe_alerts(alerts))} alerts in the JSON output for {n} helper runs")
        st = final_stats(sensor)
        received = rs.received()
        seen, dups = match(received, alerts, sensor.p.pid)
        nplain = check_plain(rs.plain_lines(), alerts, seen, sensor.p.pid)
        missing = len(alerts) - len(seen)
        print(f"{SCENARIO}: {len(alerts)} alerts, {len(received)} messages received ({dups} duplicates), "
              f"{nplain} plain lines with priority and id, "
              f"{missing} missing; syslog stats {json.dumps(st)}")
        if st["written"] + st["dropped_overflow"] != len(alerts):
            fail("the syslog output did not take or count every alert")
        if SCENARIO.startswith("relp"):
            if missing:
                fail(f"RELP lost {missing} alerts")
        elif SCENARIO == "tcp-restart":
            if missing != st["dropped"] or st["dropped"] != st["dropped_overflow"] or not st["dropped"]:
                fail(f"{missing} alerts missing, {st['dropped']} counted lost")
            if st["reconnects"] < 1:
                fail("no reconnect counted")
        else:
            if missing or dups:
                fail(f"{missing} missing, {dups} duplicates")
        if SCENARIO == "unix-late" and st["connect_failures"] < 1:
            fail("the missing socket was not counted as a failed connect")
        # relp: librelp's resends after a reconnect are not counted again in sent
        if st["queued"] != 0 or st["state"] != "disconnected" or st["sent"] != len(seen) + (0 if proto == "relp" else dups):
            fail(f"stats at exit: {st}")
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        if rs:
            rs.stop()
        finish([sensor], d, ok)


if __name__ == "__main__":
    main()
