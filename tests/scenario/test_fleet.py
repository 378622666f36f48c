#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_fleet.py - baselines shared per role, and a host compared with its fleet
(docs/fleet.md), through the real sshd and implant of test_sshd_preload.py.

Both modes begin alike: three hosts on this machine, sensors h1, h2, h3
(separate state directories, --host-name hN, --role ssh) running at once,
learn the same clean key-based logins to a real sshd of the test's own until
each host's baseline of sshd's login child (`sshd ... -R`) is ready; each
exports its store signed (`baseline export --role ssh --host hN --sign KEY`),
and `baseline merge ... --role ssh --sign KEY --trust KEY.pub` makes the role
bundle, put into a fleet directory as rsync does (a temporary name, then a
rename).

join: a fourth host, h4, joins with an empty state (--role ssh --fleet-dir
--fleet-keys): it loads the bundle (hosts 3), and the first implant login it
sees (sshd restarted with LD_PRELOAD=libplxz.so) raises "Unexpected CPU in
authentication" for that login child's pid, scored against the fleet's
baseline (baseline.source fleet) while its own had learned nothing
(baseline.samples 0). Then, while it runs, four bundles arrive: one with one
byte flipped (refused, bad_signature, and the sensor's alert "Fleet bundle
with a bad signature"), one for another role (other_role), an older one (h1's
own export: not_newer), and a newer good merge (loaded, its time from the
rename to its use printed); status.json says the same counts. Last, the
fleet directory is replaced whole (removed, then a new one renamed in):
h4 says it is not watched, keeps its view, then watches the new one and
loads the bundle in it.

depart: a fifth host, h5, learns implant logins alone in --mode learn (its
own baseline says the slow login is normal), then runs again on its store
(mode auto) with the fleet's
bundle: its next implant login raises "Authentication costs more here than
across its fleet" (fleet.hosts 3), and "Unexpected CPU in authentication"
does not fire.

argv: MODE(join|depart) PLUMBLINE_BINARY LIBPLXZ_SO. Needs root and BPF,
sshd, ssh and ssh-keygen; skips (77) without them unless
PLUMBLINE_REQUIRE_BPF=1. PLUMBLINE_KEEP_TEST_FILES keeps its directory.
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, Sshd, fail, finish, log, wait_for, wait_login_children  # noqa: E402

MODE, SENSOR, LIB = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
COST = "Unexpected CPU in authentication"
FLEET_RULE = "Authentication costs more here than across its fleet"
BAD_SIG = "Fleet bundle with a bad signature"
MIN_SAMPLES, LEARN_LOGINS, MAX_LEARN_LOGINS, SAMPLE_HZ = 10, 12, 20, 199
ROLE = "ssh"
SENSORS = []  # every sensor started: finish() stops those still running


def plumbline(*args, check=True):
    r = subprocess.run([SENSOR, *args], capture_output=True, text=True, timeout=120)
    if check and r.returncode != 0:
        fail(f"plumbline {' '.join(args)} exited {r.returncode}: {r.stderr.strip()[:2000]}")
    return r


def host(d, name, extra=()):
    s = sl.Sensor(d, name, SENSOR, extra=[
        "--no-config", "--host-name", name, "--role", ROLE, "--min-samples", str(MIN_SAMPLES), "--set-quiet", "10",
        "--sample-hz", str(SAMPLE_HZ), "--runtime-dir", os.path.join(d, name + ".run"), *extra])
    SENSORS.append(s)
    return s


def fleet_records(s, file=None):
    return [r for r in s.records() if r.get("type") == "fleet" and (file is None or r.get("file") == file)]


def publish(src, fleet_dir, name):
    """As rsync does: the whole file under a temporary name, then a rename. The time of the rename."""
    tmp = os.path.join(fleet_dir, "." + name + ".tmp")
    shutil.copyfile(src, tmp)
    t = time.time()
    os.rename(tmp, os.path.join(fleet_dir, name))
    return t


def learn_fleet(d, sshd, key):
    """h1, h2, h3 learn the same clean logins; their signed exports, and the role bundle of the three."""
    hosts = [host(d, f"h{i}") for i in (1, 2, 3)]
    listener = sshd.start()
    n = 0

    def ready(h):
        kids = sl.login_children(h.records(), listener)
        return kids and kids[-1]["baseline"].get("ready") and kids[-1]["baseline"].get("source") == "host"

    # the same logins for the three; a record lost under load (counted in the sensor's losses)
    # costs a login more, not the test
    while n < MAX_LEARN_LOGINS:
        for _ in range(LEARN_LOGINS if n == 0 else 2):
            sshd.login()
            n += 1
        try:
            wait_for("h1, h2 and h3's login child baselines ready", lambda: all(ready(h) for h in hosts), timeout=5)
            break
        except Failure:
            log(f"after {n} logins: ready {[bool(ready(h)) for h in hosts]}")
    for h in hosts:
        kids = sl.login_children(h.records(), listener)
        if not ready(h):
            fail(f"{h.name}: the login child's baseline is not ready after {n} logins ({len(kids)} records)")
        b = kids[-1]["baseline"]
        log(f"{h.name}: {n} clean logins ({len(kids)} login child records), baseline ready at "
            f"{b['samples']} samples; cpu_ms p50 {b['quantiles']['cpu_ms']['p50']:.1f}, key {b['key'][:24]}..")
    sshd.stop()
    exports = []
    for h in hosts:
        h.stop()
        out = os.path.join(d, f"{h.name}.bundle")
        plumbline("baseline", "export", out, "--no-config", "--state-dir", h.state, "--role", ROLE, "--host",
                  h.name, "--sign", key)
        exports.append(out)
    bundle = os.path.join(d, "ssh-1.bundle")
    plumbline("baseline", "merge", *exports, "-o", bundle, "--role", ROLE, "--sign", key, "--trust", key + ".pub")
    v = plumbline("baseline", "verify", bundle, "--trust", key + ".pub")
    log(f"role bundle: {os.path.getsize(bundle)} bytes; verify: {' '.join(v.stdout.split())[:300]}")
    return hosts, exports, bundle


def wait_fleet(s, file, verdict, timeout=20):
    recs = wait_for(f"{s.name}: a fleet record for {file}",
                    lambda: fleet_records(s, file), timeout=timeout)
    if len(recs) != 1 or recs[0]["verdict"] != verdict:
        fail(f"{s.name}: fleet records for {file}: {recs}, expected one {verdict}")
    return recs[0]


def implant_login(sshd, s, listener, n_before):
    sshd.login()
    kids = wait_login_children(s, listener, n_before + 1)
    if len(kids) != n_before + 1:
        fail(f"{s.name}: {len(kids)} login child records, expected {n_before + 1}")
    return kids[-1]


def alerts_for(s, rule, pid=None):
    return [a for a in s.records() if a.get("type") == "alert" and a.get("rule") == rule
            and (pid is None or a.get("pid") == pid)]


def field(a, name):
    return (a.get("output_fields") or {}).get(name)


def check_bad_sig_forms(collector, ocsf, alert):
    """The bad signature alert as syslog (one datagram: RFC 5424, Warning, the
    alert's scalars as structured data, its output in MSG) and as an OCSF
    finding: the same alert."""
    def datagrams():
        got = []
        while True:
            try:
                got.append(collector.recv(65536).decode("utf-8", "replace"))
            except BlockingIOError:
                return [g for g in got if f'rule="{BAD_SIG}"' in g] or None

    dg = wait_for("h4's bad signature alert on syslog", datagrams, timeout=5)
    m = re.match(r'<(\d+)>1 \S+ \S+ plumbline \d+ alert \[plumbline@32473 ((?:"(?:[^"\\]|\\.)*"|[^\]"])*)\] (.*)$', dg[0], re.S)
    if len(dg) != 1 or not m or int(m.group(1)) % 8 != 4:
        fail(f"h4's bad signature datagrams: {dg}; expected one RFC 5424 alert at severity 4 (Warning)")
    sd = dict(re.findall(r'(\S+?)="((?:[^"\\]|\\.)*)"', m.group(2)))
    want = {"id": alert["id"], "rule": BAD_SIG, "priority": "Warning", "severity": "4", "when": "sensor",
            "pid": str(alert["pid"])}
    if any(sd.get(k) != v for k, v in want.items()):
        fail(f"h4's bad signature datagram's structured data {sd}; expected {want}")
    if m.group(3) != f"[WARNING] id={alert['id']} {alert['output']}" or "ssh-flipped.bundle" not in m.group(3):
        fail(f"h4's bad signature datagram's MSG {m.group(3)!r}; expected [WARNING] id={alert['id']} and its output")

    def findings():
        with open(ocsf) as f:
            got = [json.loads(ln) for ln in f if ln.strip()]
        return [x for x in got if x["finding_info"]["title"] == BAD_SIG] or None

    fs = wait_for("h4's bad signature alert as an OCSF finding", findings, timeout=5)
    if len(fs) != 1 or fs[0]["finding_info"]["uid"] != alert["id"]:
        fail(f"h4's bad signature OCSF findings: {fs}; expected one, uid {alert['id']}")
    log(f"h4's bad signature alert as syslog ({len(dg[0])} bytes, PRI {m.group(1)}) and as an OCSF finding "
        f"(severity_id {fs[0].get('severity_id')})")


def join(d, sshd, key, fleet_dir):
    _, exports, bundle = learn_fleet(d, sshd, key)
    publish(bundle, fleet_dir, "ssh-1.bundle")
    collector = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # h4's syslog (RFC 5426)
    collector.bind(("127.0.0.1", 0))
    collector.setblocking(False)
    ocsf = os.path.join(d, "h4.ocsf.jsonl")
    h4 = host(d, "h4", ["--fleet-dir", fleet_dir, "--fleet-keys", key + ".pub", "--ocsf", ocsf,
                        "--syslog", f"udp:127.0.0.1:{collector.getsockname()[1]}"])
    rec = wait_fleet(h4, "ssh-1.bundle", "loaded")
    if rec["hosts"] != 3 or rec["role"] != ROLE:
        fail(f"h4 loaded {rec}: expected hosts 3, role {ROLE}")
    log(f"h4 joined with an empty state and loaded ssh-1.bundle: {rec['baselines']} baselines from "
        f"{rec['hosts']} hosts, read in {rec['load_ns'] / 1e6:.1f} ms")
    evil = sshd.start(preload=LIB)
    kid = implant_login(sshd, h4, evil, 0)
    pid = kid["pid"]
    a = wait_for(f"h4: {COST!r} for pid {pid}", lambda: alerts_for(h4, COST, pid), timeout=10)[0]
    b = (a.get("evidence") or {}).get("baseline") or {}
    if b.get("source") != "fleet" or b.get("samples") != 0 or (b.get("fleet") or {}).get("hosts") != 3:
        fail(f"h4's alert for pid {pid}: baseline source {b.get('source')}, own samples {b.get('samples')}, "
             f"fleet {b.get('fleet')}: expected fleet, 0, hosts 3")
    # its stacks' frames are judged against the fleet's functions once the
    # fleet's set is saturated (36 logins may not saturate it: unit_learn has
    # the marking itself); whatever is marked new is the implant's, never sshd's
    frames = [f for t in ((a.get("evidence") or {}).get("stacks") or {}).get("top") or [] for f in t["frames"]
              if not f.get("kernel")]
    implant = {(f["object"], f.get("function")) for f in frames if f["object"].endswith("/libplxz.so")}
    marked = {(f["object"], f.get("function")) for f in frames if f.get("new")}
    if not implant or not marked <= implant:
        fail(f"h4's alert for pid {pid}: frames marked new {sorted(marked - implant)} outside the implant")
    log(f"h4: {len(marked)} of the implant's {len(implant)} functions in the stacks marked new against the fleet's")
    others = [x["pid"] for x in alerts_for(h4, COST) if x["pid"] != pid]
    if others:
        fail(f"h4: {COST!r} for other pids too: {others}")
    log(f"h4: {COST!r} for the first implant login child (pid {pid}, {kid['cpu_ns'] / 1e6:.0f} ms of CPU) "
        f"against the fleet's baseline (own samples 0): {a.get('output')}")
    sshd.stop()

    # while it runs: a flipped byte, another role, an older bundle, a newer one
    with open(bundle, "rb") as f:
        data = bytearray(f.read())
    at = data.index(b'"samples":', data.index(b'"baselines"')) + len(b'"samples":')
    data[at] = ord("1") if data[at] != ord("1") else ord("2")  # a digit for a digit: still JSON
    flipped = os.path.join(d, "flipped.bundle")
    with open(flipped, "wb") as f:
        f.write(data)
    publish(flipped, fleet_dir, "ssh-flipped.bundle")
    rec = wait_fleet(h4, "ssh-flipped.bundle", "bad_signature")
    a = wait_for(f"h4: {BAD_SIG!r}", lambda: alerts_for(h4, BAD_SIG), timeout=10)
    if len(a) != 1 or field(a[0], "fleet.file") != "ssh-flipped.bundle" or a[0].get("priority") != "Warning":
        fail(f"h4: the bad signature alerts: {a}")
    log(f"h4 refused ssh-flipped.bundle ({rec['why']}) and alerted: {a[0].get('output')}")
    check_bad_sig_forms(collector, ocsf, a[0])

    web = os.path.join(d, "h1-web.bundle")
    plumbline("baseline", "export", web, "--no-config", "--state-dir", os.path.join(d, "h1.state"), "--role",
              "web", "--host", "h1", "--sign", key)
    publish(web, fleet_dir, "web.bundle")
    rec = wait_fleet(h4, "web.bundle", "other_role")
    log(f"h4 refused web.bundle: {rec['why']}")

    publish(exports[0], fleet_dir, "h1-old.bundle")
    rec = wait_fleet(h4, "h1-old.bundle", "not_newer")
    log(f"h4 refused h1-old.bundle: {rec['why']}")

    newer = os.path.join(d, "ssh-2.bundle")
    plumbline("baseline", "merge", *exports, "-o", newer, "--role", ROLE, "--sign", key, "--trust", key + ".pub")
    t = publish(newer, fleet_dir, "ssh-2.bundle")
    rec = wait_fleet(h4, "ssh-2.bundle", "loaded")
    log(f"h4 loaded ssh-2.bundle {(rec['time_ns'] / 1e9 - t) * 1e3:.1f} ms after its rename into the fleet "
        f"directory (read in {rec['load_ns'] / 1e6:.1f} ms)")
    if len(alerts_for(h4, BAD_SIG)) != 1:
        fail(f"h4: {len(alerts_for(h4, BAD_SIG))} bad signature alerts, expected 1")

    def status():
        with open(os.path.join(d, "h4.run", "status.json")) as f:
            st = json.load(f).get("fleet") or {}
        return st if (st.get("bundle") or {}).get("file") == "ssh-2.bundle" else None

    st = wait_for("h4's status.json with ssh-2.bundle in use", status, timeout=5)
    want = {"bad_signature": 1, "unknown_key": 0, "unsigned": 0, "other_role": 1, "not_newer": 1, "invalid": 0}
    if st.get("refused") != want or st.get("loaded") != 2 or st["bundle"]["hosts"] != 3 or st["role"] != ROLE:
        fail(f"h4's status.json fleet: {st}; expected refused {want}, loaded 2, hosts 3")
    log(f"h4's status.json: fleet {json.dumps(st)[:400]}")

    # the directory replaced whole, as configuration management does: removed,
    # then a new one renamed into its place; the sensor (privileges dropped,
    # seccomp on) watches it again and loads what it holds
    shutil.rmtree(fleet_dir)

    def watching(want):
        with open(os.path.join(d, "h4.run", "status.json")) as f:
            st = json.load(f).get("fleet") or {}
        return st if st.get("watching") is want else None

    st = wait_for("h4's status.json: the fleet directory not watched", lambda: watching(False), timeout=5)
    if (st.get("bundle") or {}).get("file") != "ssh-2.bundle":
        fail(f"h4's view after its directory was removed: {st.get('bundle')}, expected ssh-2.bundle to stay")
    staged = fleet_dir + ".new"
    os.mkdir(staged, 0o755)
    third = os.path.join(staged, "ssh-3.bundle")
    plumbline("baseline", "merge", *exports, "-o", third, "--role", ROLE, "--sign", key, "--trust", key + ".pub")
    os.rename(staged, fleet_dir)
    rec = wait_fleet(h4, "ssh-3.bundle", "loaded")
    wait_for("h4's status.json: the fleet directory watched again", lambda: watching(True), timeout=5)
    log(f"h4 watched its fleet directory again after it was replaced, and loaded ssh-3.bundle "
        f"({rec['baselines']} baselines)")
    h4.stop()
    collector.close()
    sl.keep_records(ocsf, "h4", ocsf=True)
    with open(os.path.join(d, "h4.log"), errors="replace") as f:
        refused = [ln.strip() for ln in f if "seccomp refused" in ln]
    if refused:
        fail(f"h4's log: {refused}")


def depart(d, sshd, key, fleet_dir):
    _, _, bundle = learn_fleet(d, sshd, key)
    publish(bundle, fleet_dir, "ssh-1.bundle")
    # h5 alone learns the implant's logins: its own baseline calls them normal. In --mode learn, a
    # host's first days: in auto the preload's own rules (75-code.yaml) alert on every such login,
    # and what a rule at Warning alerted on is never learned
    h5 = host(d, "h5", ["--mode", "learn"])
    evil = sshd.start(preload=LIB)
    for _ in range(LEARN_LOGINS):
        sshd.login()
    kids = wait_login_children(h5, evil, LEARN_LOGINS, timeout=10)
    b = kids[-1]["baseline"] if kids else {}
    if not b.get("ready"):
        fail(f"h5: {len(kids)} login child records for {LEARN_LOGINS} logins, the last baseline ready "
             f"{b.get('ready')}")
    own = alerts_for(h5, COST)
    if own:
        fail(f"h5 alerted {COST!r} while it learned: {[x['pid'] for x in own]}")
    log(f"h5 learned {LEARN_LOGINS} implant logins; its own cpu_ms p50 {b['quantiles']['cpu_ms']['p50']}")
    h5.stop()
    h5f = host(d, "h5-fleet", ["--state-dir", h5.state, "--fleet-dir", fleet_dir, "--fleet-keys", key + ".pub"])
    wait_fleet(h5f, "ssh-1.bundle", "loaded")
    kid = implant_login(sshd, h5f, evil, 0)
    pid = kid["pid"]
    a = wait_for(f"h5: {FLEET_RULE!r} for pid {pid}", lambda: alerts_for(h5f, FLEET_RULE, pid), timeout=10)[0]
    b = kid["baseline"]
    fl = b.get("fleet") or {}
    if b.get("source") != "host" or fl.get("hosts") != 3 or field(a, "fleet.hosts") != 3:
        fail(f"h5: the alert's baseline source {b.get('source')}, fleet {fl}, fields {a.get('output_fields')}")
    time.sleep(1.0)
    cost = alerts_for(h5f, COST, pid)
    if cost:
        fail(f"h5: {COST!r} fired too for pid {pid}: {cost[0].get('output')}")
    log(f"h5: {FLEET_RULE!r} for pid {pid} ({kid['cpu_ns'] / 1e6:.0f} ms; own p50 "
        f"{b['quantiles']['cpu_ms']['p50']} ms, fleet p50 {fl['quantiles']['cpu_ms']['p50']} ms), "
        f"and no {COST!r}: {a.get('output')}")
    sshd.stop()
    h5f.stop()


def main():
    if MODE not in ("join", "depart"):
        print(f"usage: {sys.argv[0]} join|depart PLUMBLINE LIBPLXZ_SO", file=sys.stderr)
        sys.exit(2)
    sl.need_sshd(LIB)
    d = sl.temp_dir("pl-fleet-")
    os.chmod(d, 0o755)
    fleet_dir = os.path.join(d, "fleet")
    os.mkdir(fleet_dir, 0o755)
    sshd = None
    ok = False
    try:
        sshd = Sshd(d)
        key = os.path.join(d, "fleet.key")
        plumbline("baseline", "keygen", key)
        (join if MODE == "join" else depart)(d, sshd, key, fleet_dir)
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        if sshd:
            sshd.stop()
        finish(SENSORS, d, ok)


if __name__ == "__main__":
    main()
