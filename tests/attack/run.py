#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
run.py - the attack technique suite: how many attack techniques plumbline
alerts on, and how much it alerts on ordinary work (docs/coverage.md).

  1. setup.sh up: a throwaway user (plvictim) with a fake SSH key, shell
     history and cloud credentials; the payloads compiled (tests/attack/src);
     a build project (this repository's common/ and baselines/ C files and
     tests/attack/build/Makefile); a loopback web server of this process's
     own (GET serves the payloads, POST and PUT are read and thrown away).
  2. the real sensor, SHIPPED rules, a fresh state directory, the loss
     alert on, process records (tests/scenario/scenario_lib.py's Sensor);
  3. learning for --learn seconds (default 600, the issue's 10 minutes):
     tests/scenario/quiet_workload.sh passes, each followed by a clean make
     -j2 of the build project (the build host's ordinary work);
  4. each technique (tests/attack/techniques/*.sh, or --only), one after
     another: the script run by bash as root with the AT_* environment of
     lib.sh, a scratch directory of its own, every change undone by its
     trap; then --grace seconds for alerts raised at exit or in the next
     window;
  5. ordinary work again (--after passes of the workload and the build):
     noise after the attacks;
  6. the sensor stopped, setup.sh down; then the table.

Attribution: an alert belongs to a technique when its pid descends (by the
records' ppid links) from the technique's script, and it was raised between
the script's start and the end of its grace period. Ordinary-work alerts the
same way from each pass's pids. Warning-or-above alerts that belong to
neither (other work on this machine, the sensor's own loss alert) are listed
apart as "elsewhere".

The table (markdown, on stdout and in --out): technique, ATT&CK id, the
Warning+ alerts (rule, priority, seconds from the technique's start), the
lower-priority alerts, and the Warning+ matches with every throttle off (the
suite's own exec and process records replayed through rules/default with
throttle 0: a throttle is per binary, so another engineer's curl alerted an
hour ago holds the suite's back; window rules are not replayed, the sensor
writes no window records); totals; every Warning+ alert on ordinary work
during learning and after. The records are read line by line (a busy
machine makes gigabytes of them in 10 minutes); --analyze DIR does the table
again from a run kept with --keep.

Usage: run.py [--plumbline PATH] [--learn SEC] [--quick] [--only NAME,...]
       [--list] [--check] [--analyze DIR] [--after N] [--grace SEC] [--sensor-arg ARG]... [--out FILE] [--keep]
Needs root and BPF (exit 77 otherwise). Not part of ctest: a full run takes
about 17 minutes, --quick about 6.
"""
import argparse
import glob
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "scenario"))
import scenario_lib as sl  # noqa: E402

WARNING = 4  # severity: Warning; lower is more severe
VICTIM = "plvictim"
TECH_TIMEOUT = 90


TACTICS = ("credential-access", "persistence", "privilege-escalation", "execution", "command-and-control",
           "discovery", "defense-evasion", "impact", "exfiltration", "initial-access")


def check(tech):
    """--check (the attack_suite_check test): every script has its headers, a
    real ATT&CK id and tactic, sources lib.sh, and parses (bash -n), as do
    lib.sh and setup.sh; every name is unique. The problems, one a line."""
    import re
    bad = []
    for name, m in tech.items():
        if not re.fullmatch(r"T[0-9]{4}(\.[0-9]{3})?", m["attack"]):
            bad.append(f"{name}: attack {m['attack']!r} is no ATT&CK technique id")
        if m["tactic"] not in TACTICS:
            bad.append(f"{name}: tactic {m['tactic']!r} not one of {', '.join(TACTICS)}")
        if not m["what"]:
            bad.append(f"{name}: no '# what:' line")
        with open(m["path"]) as f:
            if '. "$AT_LIB"' not in f.read():
                bad.append(f"{name}: does not source $AT_LIB")
    for path in [m["path"] for m in tech.values()] + [os.path.join(HERE, "lib.sh"), os.path.join(HERE, "setup.sh")]:
        r = subprocess.run(["bash", "-n", path], capture_output=True, text=True)
        if r.returncode != 0:
            bad.append(f"{os.path.basename(path)}: {r.stderr.strip()}")
    if len(tech) < 30:
        bad.append(f"only {len(tech)} techniques")
    return bad


def techniques():
    """name -> {path, attack, tactic, what}, from the scripts' headers, sorted by name."""
    out = {}
    for path in sorted(glob.glob(os.path.join(HERE, "techniques", "*.sh"))):
        name = os.path.basename(path)[:-3]
        meta = {"path": path, "attack": "", "tactic": "", "what": ""}
        with open(path) as f:
            for line in f:
                for k in ("attack", "tactic", "what"):
                    if line.startswith(f"# {k}: "):
                        meta[k] = line[len(k) + 4:].strip()
        out[name] = meta
    return out


class Web(http.server.BaseHTTPRequestHandler):
    """The loopback web server: GET from www, POST and PUT swallowed."""
    root = None

    def log_message(self, *a):
        pass

    def do_GET(self):
        p = os.path.join(self.root, os.path.basename(self.path.split("?")[0]))
        if not os.path.isfile(p):
            self.send_error(404)
            return
        with open(p, "rb") as f:
            body = f.read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _swallow(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            self.rfile.read(n)
        elif "chunked" in (self.headers.get("Transfer-Encoding") or ""):
            while True:
                size = int(self.rfile.readline().strip() or b"0", 16)
                self.rfile.read(size + 2)
                if size == 0:
                    break
        self.send_response(201)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = _swallow
    do_PUT = _swallow


def build_project(d):
    proj = os.path.join(d, "build")
    for sub in ("common", "baselines"):
        os.makedirs(os.path.join(proj, "src", sub))
        for f in glob.glob(os.path.join(REPO, sub, "*.[ch]")):
            shutil.copy(f, os.path.join(proj, "src", sub))
    for f in ("Makefile", "main.c"):
        shutil.copy(os.path.join(HERE, "build", f), proj)
    home = os.path.join(d, "buildhome")
    os.makedirs(os.path.join(home, ".ssh"), mode=0o700)
    with open(os.path.join(home, ".ssh", "id_ed25519"), "w") as f:
        f.write("-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n-----END OPENSSH PRIVATE KEY-----\n")
    os.chmod(os.path.join(home, ".ssh", "id_ed25519"), 0o600)
    return proj, home


def clean_env():
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    env["LC_ALL"] = "C.UTF-8"
    return env


def ordinary_pass(phase, n, proj, home, spans):
    """One pass of the quiet workload, then a clean build; each one's span."""
    env = clean_env()
    for what, argv, cwd, e in (
            ("workload", ["/bin/bash", os.path.join(REPO, "tests", "scenario", "quiet_workload.sh"), "1"], None, env),
            ("build", ["/bin/sh", "-c", "make -s clean && make -s -j2"], proj, dict(env, HOME=home))):
        t0 = time.time_ns()
        p = subprocess.Popen(argv, cwd=cwd, env=e, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        _, err = p.communicate(timeout=300)
        spans.append({"phase": phase, "what": f"{what} {n}", "pid": p.pid, "start": t0, "end": time.time_ns()})
        if p.returncode != 0:
            sl.fail(f"{phase} {what} pass {n} exited {p.returncode}: {err.strip()[-1500:]}")
    sl.log(f"{phase} pass {n} done")


def run_technique(name, meta, base_env, art, grace):
    tmp = tempfile.mkdtemp(prefix=f"pl-attack-{name}-")
    os.chmod(tmp, 0o755)  # the throwaway user works in it too
    env = dict(base_env, AT_TMP=tmp)
    t0 = time.time_ns()
    p = subprocess.Popen(["/bin/bash", meta["path"]], cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=TECH_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        out, _ = p.communicate()
        out += f"\n(killed after {TECH_TIMEOUT} s)"
    t1 = time.time_ns()
    time.sleep(grace)
    shutil.rmtree(tmp, ignore_errors=True)
    rc = p.returncode
    state = "ran" if rc == 0 else ("skipped" if rc == 77 else f"exit {rc}")
    sl.log(f"{name}: {state} in {(t1 - t0) / 1e9:.1f} s" + (f": {out.strip()[-300:]}" if rc else ""))
    return {"name": name, "pid": p.pid, "start": t0, "end": t1 + int(grace * 1e9), "ran_s": (t1 - t0) / 1e9,
            "state": state, "output": out.strip()[-500:]}


class Records:
    """What the report needs of a sensor's JSON Lines file, read line by line
    (a 10-minute run on a busy machine writes gigabytes of process records
    for everything on it): the ppid links of every process, the alerts (less
    their evidence), and the exec records of the suite's own roots (the
    technique scripts, the workload passes, the builds) for --analyze."""

    ROOT_MARKS = ("/techniques/", "quiet_workload.sh", "make -s clean && make -s -j2")

    def __init__(self, path):
        self.children = {}
        self.alerts = []
        self.roots = []
        self.matches = None  # replay_unthrottled
        with open(path, "rb") as f:
            for raw in f:
                if not raw.endswith(b"\n"):
                    break  # half-written last line
                # the sensor writes "type" first: the rest is parsed only for the records wanted
                t = raw[8:20] if raw.startswith(b'{"type":') else b'"' + json.loads(raw).get("type", "").encode() + b'"'
                if t.startswith(b'"alert"'):
                    r = json.loads(raw)
                    r.pop("evidence", None)
                    self.alerts.append(r)
                elif t.startswith((b'"exec"', b'"process"')):
                    r = json.loads(raw)
                    pid, ppid = r.get("pid"), r.get("ppid")
                    # when the link held: pids are reused over a long run on a busy machine
                    when = r.get("time_ns") if r["type"] == "exec" else r.get("start_ns") or r.get("end_ns")
                    if isinstance(pid, int) and isinstance(ppid, int) and pid != ppid and isinstance(when, int):
                        self.children.setdefault(ppid, []).append((pid, when))
                    if r["type"] == "exec" and any(m in (r.get("cmdline") or "") for m in self.ROOT_MARKS):
                        self.roots.append({"pid": pid, "time_ns": r["time_ns"], "cmdline": r["cmdline"]})

    def tree(self, root, start, end):
        """root and its descendants by the links made between start (less a second) and end."""
        pids, todo = {root}, [root]
        while todo:
            for c, when in self.children.get(todo.pop(), ()):
                if c not in pids and start - 10**9 <= when <= end:
                    pids.add(c)
                    todo.append(c)
        return pids

    def attribute(self, span, matches=False):
        pids = self.tree(span["pid"], span["start"], span["end"])
        return [a for a in (self.matches or [] if matches else self.alerts)
                if a.get("pid") in pids and span["start"] <= a.get("time_ns", 0) <= span["end"]]


def replay_unthrottled(recs, path, spans, plumbline, d):
    """Every match of the shipped rules on the suite's own records, throttles
    off: a rule's throttle is per binary, so one alert on curl anywhere on the
    machine (another engineer's build) holds back the suite's curl for an
    hour. The records of the spans' processes are copied (a second read of
    the file) and replayed (`plumbline replay`) through rules/default with
    every throttle set to 0; the matches go to recs.matches."""
    import re
    want = {}
    for sp in spans:
        for pid in recs.tree(sp["pid"], sp["start"], sp["end"]):
            want.setdefault(pid, []).append((sp["start"], sp["end"]))
    sub = os.path.join(d, "suite-records.jsonl")
    with open(path, "rb") as f, open(sub, "wb") as out:
        for raw in f:
            if not raw.endswith(b"\n") or not raw.startswith((b'{"type":"exec"', b'{"type":"process"', b'{"type":"window"')):
                continue
            r = json.loads(raw)
            when = r.get("time_ns") or r.get("end_ns") or r.get("window_end_ns") or 0
            if any(a - 10**9 <= when <= b for a, b in want.get(r.get("pid"), ())):
                out.write(raw)
    rdir = os.path.join(d, "rules-unthrottled")
    os.makedirs(rdir, exist_ok=True)
    src = os.path.join(REPO, "rules", "default")
    for name in os.listdir(src):
        if name.endswith(".yaml"):
            with open(os.path.join(src, name)) as f:
                text = re.sub(r"(?m)^(\s*)throttle:.*$", r"\1throttle: 0", f.read())
            with open(os.path.join(rdir, name), "w") as f:
                f.write(text)
    r = subprocess.run([plumbline, "replay", sub, "--rules", rdir, "--json"], capture_output=True, text=True,
                       timeout=600)
    if r.returncode != 0:
        sl.fail(f"plumbline replay exited {r.returncode}: {r.stderr[-1500:]}")
    recs.matches = [a for a in (json.loads(l) for l in r.stdout.splitlines() if l.strip())
                    if a.get("type") == "alert"]


def spans_from_records(recs, tech):
    """For --analyze of a run kept without results.json: the techniques and
    the ordinary passes found by their roots' exec records (the scripts' and
    passes' command lines), each span ending where the next root starts."""
    roots = sorted(recs.roots, key=lambda r: r["time_ns"])
    results, spans = [], []
    def is_tech(c):
        return c.startswith("/bin/bash /") and "/techniques/" in c

    first_tech = min((r["time_ns"] for r in roots if is_tech(r["cmdline"])), default=None)
    for i, r in enumerate(roots):
        end = roots[i + 1]["time_ns"] if i + 1 < len(roots) else r["time_ns"] + 60 * 10**9
        c = r["cmdline"]
        if is_tech(c):
            name = os.path.basename(c.split()[1])[:-3]
            if name in tech:
                results.append({"name": name, "pid": r["pid"], "start": r["time_ns"], "end": end,
                                "ran_s": None, "state": "ran", "output": ""})
        elif c.startswith("/bin/bash /") and c.endswith("quiet_workload.sh 1") or c.startswith("/bin/sh -c make -s clean"):
            phase = "learn" if first_tech is None or r["time_ns"] < first_tech else "after"
            n = sum(1 for s in spans if s["phase"] == phase) // 2 + 1
            spans.append({"phase": phase, "what": f"{'workload' if 'quiet' in c else 'build'} {n}",
                          "pid": r["pid"], "start": r["time_ns"], "end": end})
    return results, spans


def fmt_alert(a, t0):
    return f"{a['rule']} ({a['priority']}, {(a['time_ns'] - t0) / 1e9:.1f} s)"


def report(tech, results, spans, recs, sensor_args, learn_s, total_s):
    lines = []
    w = lines.append
    w(f"## plumbline attack technique suite ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})")
    w("")
    w(f"Learning {learn_s:.0f} s of ordinary work ({sum(1 for s in spans if s['phase'] == 'learn')} runs"
      f" of quiet_workload.sh and the build), sensor args: {' '.join(sensor_args) or '(defaults)'};"
      f" whole run {total_s / 60:.1f} min.")
    w("")
    rp = recs.matches is not None
    w("| technique | ATT&CK | Warning+ (rule, priority, s to alert) | lower-priority alerts |"
      + (" Warning+ matches, throttles off |" if rp else ""))
    w("|---|---|---|---|" + ("---|" if rp else ""))
    detected = ran = matched = 0
    for r in results:
        meta = tech[r["name"]]
        got = sorted(recs.attribute(r), key=lambda a: a["time_ns"])
        hi = [a for a in got if a.get("severity", 9) <= WARNING]
        lo = [a for a in got if a.get("severity", 9) > WARNING]
        if r["state"] != "skipped":
            ran += 1
            detected += bool(hi)
        if r["state"] == "skipped":
            hi_s = f"skipped: {r['output'].splitlines()[-1] if r['output'] else ''}"
        else:
            seen = []
            for a in hi:
                if a["rule"] not in [s["rule"] for s in seen]:
                    seen.append(a)
            hi_s = "; ".join(fmt_alert(a, r["start"]) for a in seen) or "**missed**"
            if r["state"] != "ran":
                hi_s += f" (technique {r['state']})"
        lo_rules = sorted({f"{a['rule']} ({a['priority']})" for a in lo})
        extra = ""
        if rp:
            m = sorted({a["rule"] for a in recs.attribute(r, matches=True) if a.get("severity", 9) <= WARNING})
            matched += bool(m) and r["state"] != "skipped"
            extra = f" {'; '.join(m) or '-'} |"
        w(f"| {r['name']} | {meta['attack']} | {hi_s} | {'; '.join(lo_rules) or '-'} |{extra}")
    w("")
    w(f"**Detected at Warning or above: {detected} of {ran} techniques run**"
      f" ({len(results) - ran} skipped)."
      + (f" With every throttle off (the records replayed: a throttle is per binary, so an alert on the"
         f" same binary elsewhere on the machine can hold the technique's back): {matched} of {ran}." if rp else ""))
    w("")
    for phase, title in (("learn", "during learning"), ("after", "after the attacks")):
        noise = []
        for s in spans:
            if s["phase"] == phase:
                noise += [(s, a) for a in recs.attribute(s) if a.get("severity", 9) <= WARNING]
        nm = sum(1 for s in spans if s["phase"] == phase
                 for a in recs.attribute(s, matches=True) if a.get("severity", 9) <= WARNING) if rp else None
        w(f"Noise {title}: {len(noise)} Warning+ alert(s) on ordinary work"
          + (f" ({nm} Warning+ matches with throttles off)" if rp else "") + (":" if noise else "."))
        for s, a in noise:
            w(f"- {s['what']}: {a['rule']} ({a['priority']}) on {a.get('exe')} pid {a.get('pid')}:"
              f" {a.get('output', '')[:200]}")
        w("")
    ours = set()
    for s in list(spans) + list(results):
        ours |= {id(a) for a in recs.attribute(s)}
    elsewhere = [a for a in recs.alerts if a.get("severity", 9) <= WARNING and id(a) not in ours]
    by = {}
    for a in elsewhere:
        k = (a["rule"], os.path.basename(a.get("exe") or "?"))
        by[k] = by.get(k, 0) + 1
    w(f"Elsewhere (not the suite's processes: other work on the machine, the sensor's own alerts):"
      f" {len(elsewhere)} Warning+ alert(s)" + (":" if by else "."))
    for (rule, exe), n in sorted(by.items()):
        w(f"- {rule} on {exe}: {n}")
    return "\n".join(lines) + "\n"


def main():
    tech = techniques()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plumbline", default=os.path.join(REPO, "build", "plumbline"))
    ap.add_argument("--learn", type=float, default=None, help="seconds of learning (default 600; --quick 90)")
    ap.add_argument("--quick", action="store_true",
                    help="development: 90 s of learning, --set-quiet 30 --min-samples 5 for the sensor")
    ap.add_argument("--only", action="append", default=[], help="technique name(s), comma-separated")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--check", action="store_true", help="check the scripts (headers, bash -n) and exit")
    ap.add_argument("--after", type=int, default=2, help="ordinary passes after the attacks (default 2)")
    ap.add_argument("--grace", type=float, default=3.0, help="seconds after each technique (default 3)")
    ap.add_argument("--sensor-arg", action="append", default=[], help="an extra sensor argument (repeatable)")
    ap.add_argument("--out", help="also write the table to this file")
    ap.add_argument("--keep", action="store_true", help="keep the run's directory (records, logs)")
    ap.add_argument("--analyze", metavar="DIR", help="only the table again, from a run kept with --keep")
    args = ap.parse_args()
    if args.check:
        bad = check(tech)
        for b in bad:
            print(b, file=sys.stderr)
        print(f"{len(tech)} techniques, {len(bad)} problem(s)")
        return 1 if bad else 0
    if args.analyze:
        recs = Records(os.path.join(args.analyze, "sensor.jsonl"))
        try:
            with open(os.path.join(args.analyze, "results.json")) as f:
                res = json.load(f)
            results, spans = res["techniques"], res["ordinary"]
            sargs, learn_s, total_s = res["sensor_args"], res["learn_s"], res["total_s"]
        except FileNotFoundError:
            results, spans = spans_from_records(recs, tech)
            sargs, total_s = ["(unknown)"], 0
            learn = [s for s in spans if s["phase"] == "learn"]
            learn_s = (learn[-1]["end"] - learn[0]["start"]) / 1e9 if learn else 0
        replay_unthrottled(recs, os.path.join(args.analyze, "sensor.jsonl"), spans + results,
                           os.path.abspath(args.plumbline), args.analyze)
        text = report(tech, results, spans, recs, sargs, learn_s, total_s)
        print(text)
        if args.out:
            with open(args.out, "w") as f:
                f.write(text)
        return 0
    if args.list:
        for n, m in tech.items():
            print(f"{n:28} {m['attack']:10} {m['tactic']:22} {m['what']}")
        return 0
    names = [n for o in args.only for n in o.split(",") if n] or list(tech)
    unknown = [n for n in names if n not in tech]
    if unknown:
        print(f"unknown technique(s): {', '.join(unknown)} (see --list)", file=sys.stderr)
        return 2
    learn_s = args.learn if args.learn is not None else (90 if args.quick else 600)
    if args.quick:
        args.sensor_arg = ["--set-quiet", "30", "--min-samples", "5"] + args.sensor_arg
    sl.need_bpf()
    if not os.access(args.plumbline, os.X_OK):
        sl.skip(f"no sensor binary at {args.plumbline} (build first, or --plumbline)", bpf=False)

    t_start = time.monotonic()
    d = tempfile.mkdtemp(prefix="pl-attack-run-")
    os.chmod(d, 0o755)
    art = os.path.join(d, "art")
    setup = os.path.join(HERE, "setup.sh")
    sensor = web = None
    ok = False
    try:
        subprocess.run(["/bin/bash", setup, "up", art], check=True, stdout=subprocess.DEVNULL)
        proj, home = build_project(d)
        Web.root = os.path.join(art, "www")
        web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Web)
        threading.Thread(target=web.serve_forever, daemon=True).start()
        with open(os.path.join(art, "victim.pw")) as f:
            pw = f.read().strip()
        base_env = dict(clean_env(), AT_LIB=os.path.join(HERE, "lib.sh"), AT_ART=art,
                        AT_HTTP=f"http://127.0.0.1:{web.server_address[1]}", AT_VICTIM=VICTIM,
                        AT_VICTIM_HOME=f"/home/{VICTIM}", AT_VICTIM_PW=pw, AT_BUILD=proj, AT_BUILD_HOME=home)
        sensor = sl.Sensor(d, "sensor", os.path.abspath(args.plumbline), extra=tuple(args.sensor_arg))
        sl.log(f"sensor up; learning for {learn_s:.0f} s")
        spans = []
        t_learn = time.monotonic()
        n = 0
        while n == 0 or time.monotonic() - t_learn < learn_s:
            n += 1
            ordinary_pass("learn", n, proj, home, spans)
        learn_real = time.monotonic() - t_learn
        results = [run_technique(name, tech[name], base_env, art, args.grace) for name in names]
        for i in range(args.after):
            ordinary_pass("after", i + 1, proj, home, spans)
        time.sleep(args.grace)
        sensor.stop()
        sensor = None
        with open(os.path.join(d, "results.json"), "w") as f:
            json.dump({"techniques": results, "ordinary": spans, "sensor_args": args.sensor_arg,
                       "learn_s": learn_real, "total_s": time.monotonic() - t_start}, f)
        sl.log("sensor stopped; reading its records")
        recs = Records(os.path.join(d, "sensor.jsonl"))
        replay_unthrottled(recs, os.path.join(d, "sensor.jsonl"), spans + results, os.path.abspath(args.plumbline), d)
        text = report(tech, results, spans, recs, args.sensor_arg, learn_real, time.monotonic() - t_start)
        print(text)
        if args.out:
            with open(args.out, "w") as f:
                f.write(text)
        ok = True
    except sl.Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        if sensor:
            sensor.kill()
        if web:
            web.shutdown()
        subprocess.run(["/bin/bash", setup, "down", art], stdout=subprocess.DEVNULL)
        if args.keep:
            print(f"kept {d}", file=sys.stderr)
        else:
            shutil.rmtree(d, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
