#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_metrics.py - the metrics endpoint and `plumbline status` on the
real sensor.

The sensor runs with one rule of its own (an exec of a marker binary, no
throttle) and a JSON output that then holds only that rule's alerts. The
marker runs N times. Then:
  - /metrics passes `promtool check metrics` with no lint problem;
  - alerts by rule == N == the alerts in the JSON output; records written to
    the JSON output == its lines; evaluations of the rule == samples judged;
  - the RSS is /proc/PID/statm's; the losses that would lose records are 0,
    and every loss counter of the stats record has its `cause`;
  - 404 off /metrics, 405 for POST; a non-loopback address is refused
    without --metrics-allow-remote;
  - `plumbline status` (text and --json) shows the same last alerts as the
    JSON output; after the sensor stops, or when its pid is gone, it says no
    sensor runs and exits 1.
Usage: test_metrics.py PLUMBLINE
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, fail, finish, free_port, log, skip  # noqa: E402

N = 5
RULE = 'Metrics "marker" exec'


def http(port, path, method="GET"):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                 data=b"x" if method == "POST" else None)
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.headers.get("Content-Type"), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), ""


def unescape_label(v):
    return re.sub(r'\\(.)', lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), v)


def parse(text):
    """{(name, frozenset(labels)): value}"""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$', line)
        if not m:
            fail(f"unparsable line: {line!r}")
        labels = frozenset((k, unescape_label(v)) for k, v in
                           re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def val(metrics, name, **labels):
    key = (name, frozenset(labels.items()))
    if key not in metrics:
        fail(f"no sample {name}{labels}")
    return metrics[key]


def promtool(text, d):
    path = os.path.join(d, "scrape.txt")
    with open(path, "w") as f:
        f.write(text)
    r = subprocess.run(["promtool", "check", "metrics"], stdin=open(path), capture_output=True, text=True)
    if r.returncode != 0 or r.stdout.strip() or r.stderr.strip():
        fail(f"promtool check metrics: exit {r.returncode}: {r.stdout}{r.stderr}")


def status(sensor, rdir, *extra):
    return subprocess.run([sensor, "status", "--runtime-dir", rdir, *extra], capture_output=True, text=True,
                          timeout=10)


def alerts_of(path):
    with open(path) as f:
        recs = [json.loads(l) for l in f if l.strip()]
    return recs, [r for r in recs if r.get("type") == "alert"]


def main():
    sensor = os.path.abspath(sys.argv[1])
    sl.need_bpf()
    if not shutil.which("promtool"):
        skip("promtool not installed (Debian's prometheus package: scripts/install-deps.sh --tests)")
    d = sl.temp_dir("pl-metrics-")
    p = None
    ok = False
    try:
        # a non-loopback address is refused before anything is loaded
        port = free_port()
        r = subprocess.run([sensor, "run", "--no-live", "--metrics", f"0.0.0.0:{port}", "--duration", "1"],
                           capture_output=True, text=True, timeout=20)
        if r.returncode == 0 or "--metrics-allow-remote" not in r.stderr:
            fail(f"--metrics 0.0.0.0 was not refused: exit {r.returncode}, {r.stderr!r}")
        log("non-loopback address refused: " + r.stderr.strip().splitlines()[-1][:100])
        # ... and allowed with --metrics-allow-remote: the next check of the command line speaks instead
        r = subprocess.run([sensor, "run", "--no-live", "--metrics", f"0.0.0.0:{port}", "--metrics-allow-remote",
                            "--no-rules", "--ocsf", "/dev/null"], capture_output=True, text=True, timeout=20)
        if r.returncode == 0 or "--metrics" in r.stderr or "--no-rules raises none" not in r.stderr:
            fail(f"--metrics-allow-remote did not allow 0.0.0.0: exit {r.returncode}, {r.stderr!r}")

        marker_name = f"plmetrics{os.getpid()}"
        marker = os.path.join(d, marker_name)
        shutil.copy("/bin/true", marker)
        rules = os.path.join(d, "rules.yaml")
        with open(rules, "w") as f:
            f.write(f"""- rule: '{RULE}'
  desc: the metrics test's marker binary started
  condition: proc.exe_name = {marker_name}
  output: marker %proc.pid started
  priority: NOTICE
  when: exec
  throttle: 0
""")
        rdir = os.path.join(d, "run")
        port = free_port()
        sensor_run = sl.Sensor(d, "sensor", sensor, defaults=False, extra=[
            "--no-syslog", "--rules", rules, "--metrics", f"127.0.0.1:{port}", "--runtime-dir", rdir])
        p, out = sensor_run.p, sensor_run.json
        log(f"sensor pid {p.pid}, metrics on 127.0.0.1:{port}")
        st = os.stat(rdir)
        if st.st_mode & 0o777 != 0o755:
            fail(f"runtime directory mode {st.st_mode & 0o777:o}, expected 755")

        code, ctype, _ = http(port, "/")
        if code != 404:
            fail(f"GET / answered {code}, expected 404")
        code, _, _ = http(port, "/metricsx")
        if code != 404:
            fail(f"GET /metricsx answered {code}, expected 404")
        code, _, _ = http(port, "/metrics", "POST")
        if code != 405:
            fail(f"POST /metrics answered {code}, expected 405")

        for _ in range(N):
            subprocess.run([marker], check=True)
        deadline = time.time() + 20
        while True:
            code, ctype, text = http(port, "/metrics")
            m = parse(text) if code == 200 else {}
            if code == 200 and m.get(("plumbline_rule_alerts_total", frozenset({("rule", RULE)}))) == N:
                break
            if time.time() > deadline:
                fail(f"alerts by rule did not reach {N} in 20 s: {code}, "
                     f"{m.get(('plumbline_rule_alerts_total', frozenset({('rule', RULE)})))}")
            time.sleep(0.3)
        if ctype != "text/plain; version=0.0.4; charset=utf-8":
            fail(f"Content-Type {ctype!r}")
        time.sleep(2.2)  # a tick later (and a status.json rewrite): still exactly N
        code, _, text = http(port, "/metrics")
        m = parse(text)
        promtool(text, d)
        log(f"promtool check metrics: clean ({len(text)} bytes, {len(m)} samples)")

        recs, alerts = alerts_of(out)
        # the sensor's own alerts (when "sensor": "Sensor lost events") tell of
        # the rest of the machine, not of this test's processes: not counted here
        alerts = [a for a in alerts if a.get("when") != "sensor"]
        mine = [a for a in alerts if a["rule"] == RULE]
        if len(mine) != N or len(alerts) != N:
            fail(f"the JSON output has {len(mine)} alerts of the rule ({len(alerts)} of rules in all), expected {N}")
        got = val(m, "plumbline_rule_alerts_total", rule=RULE)
        written = val(m, "plumbline_output_records_written_total", output="json")
        if got != N or written != len(recs):
            fail(f"metrics say {got} alerts and {written} records written; JSON has {N} alerts in {len(recs)} lines")
        evals = val(m, "plumbline_rule_evaluations_total", rule=RULE)
        judged = val(m, "plumbline_rule_samples_total")
        if evals != judged or evals < N:
            fail(f"evaluations {evals} of the only rule != samples judged {judged} (or < {N})")
        if val(m, "plumbline_rule_throttled_total", rule=RULE) != 0:
            fail("throttled matches of a rule with throttle 0")
        if val(m, "plumbline_rules_loaded", enabled="true") != 1:
            fail("rules loaded != 1")
        log(f"alerts by rule {got:.0f} == JSON alerts {len(mine)}; records written {written:.0f} == lines "
            f"{len(recs)}; evaluations {evals:.0f} == samples judged {judged:.0f}")

        # RSS: read by the server at the scrape, against statm read around it
        page = os.sysconf("SC_PAGE_SIZE")
        for attempt in range(8):
            with open(f"/proc/{p.pid}/statm") as f:
                before = int(f.read().split()[1]) * page
            _, _, text = http(port, "/metrics")
            with open(f"/proc/{p.pid}/statm") as f:
                after = int(f.read().split()[1]) * page
            rss = val(parse(text), "plumbline_process_resident_memory_bytes")
            if before == after == rss:
                break
            time.sleep(1.1)
        else:
            fail(f"RSS {rss} != statm's {before}/{after}")
        log(f"RSS {rss / 1048576:.1f} MiB == /proc/{p.pid}/statm")
        cpu = val(m, "plumbline_process_cpu_seconds_total")
        if not 0 < cpu < 60:
            fail(f"process CPU {cpu} s")

        # the losses of this run's records and processes (other causes, such as thread_state, depend on
        # what else the machine runs: they are checked against the stats record below)
        for cause in ("ringbuf_full", "invalid_records", "proc_map_full", "proctable_full"):
            if val(m, "plumbline_losses_total", cause=cause) != 0:
                fail(f"loss {cause} = {val(m, 'plumbline_losses_total', cause=cause)}")
        if val(m, "plumbline_output_records_dropped_total", output="json") != 0:
            fail("JSON output drops")
        if val(m, "plumbline_build_info", version=re.search(r'version="([^"]+)"', text).group(1),
               libbpf=re.search(r'libbpf="([^"]+)"', text).group(1)) != 1:
            fail("build_info")
        for name in ("plumbline_uptime_seconds", "plumbline_start_time_seconds", "plumbline_tracked_processes"):
            if val(m, name) <= 0:
                fail(f"{name} <= 0")
        if not any(k[0] == "plumbline_baselines" for k in m):
            fail("no baselines by state")
        if os.path.exists("/proc/pressure/cpu") and not any(k[0] == "plumbline_host_pressure_some_avg10_ratio"
                                                            for k in m):
            fail("no host PSI")

        # plumbline status, while it runs
        r = status(sensor, rdir, "--json")
        if r.returncode != 0:
            fail(f"status --json exited {r.returncode}: {r.stderr}")
        sj = json.loads(r.stdout)
        if sj["pid"] != p.pid or sj["state"] != "running":
            fail(f"status.json pid {sj['pid']} state {sj['state']}")
        want = [{"id": a["id"], "time_ns": a["time_ns"], "rule": a["rule"], "priority": a["priority"],
                 "exe": a["exe"], "pid": a["pid"]} for a in reversed(mine)]
        if sj["last_alerts"] != want:
            fail(f"status last_alerts {sj['last_alerts']} != the JSON output's {want}")
        if sj["watching"]["rules_loaded"] != 1 or sj["alerts"] != N:
            fail(f"status rules_loaded {sj['watching']['rules_loaded']} alerts {sj['alerts']}")
        if sj["watching"]["outputs"]["json"]["state"] != "ok":
            fail("status: json output not ok")
        if sj["learning"]["baselines"] != sj["learning"]["ready"] + sj["learning"]["learning"]:
            fail("status: baselines != ready + learning")
        for t in sj["learning"]["closest_to_ready"]:
            if not t["samples"] < t["needed"]:
                fail(f"closest to ready {t}: not learning")
        mode = os.stat(os.path.join(rdir, "status.json")).st_mode & 0o777
        if mode != 0o640:
            fail(f"status.json mode {mode:o}, expected 640")
        r = status(sensor, rdir)
        if r.returncode != 0:
            fail(f"status exited {r.returncode}: {r.stderr}")
        for word in ("Watching", "Learning", "Losses", "Last alerts", RULE, f"pid {p.pid}"):
            if word not in r.stdout:
                fail(f"status text lacks {word!r}:\n{r.stdout}")
        for a in mine:
            if f"(pid {a['pid']})" not in r.stdout:
                fail(f"status text lacks alert pid {a['pid']}:\n{r.stdout}")
        log("status (text and --json): the last alerts match the JSON output")

        p.send_signal(signal.SIGINT)
        p.wait(30)
        if p.returncode != 0:
            fail(f"the sensor exited {p.returncode}")
        # every loss counter of the stats record is a cause of plumbline_losses_total (lost) or of
        # plumbline_detail_capped_total (bounded detail), never of both
        recs, _ = alerts_of(out)
        stats = [x for x in recs if x.get("type") == "stats"][-1]
        keys = set(stats["kernel_drops"]) - {"path_truncated", "args_truncated"}
        keys |= set(stats["userspace_drops"]) | {"invalid_records", "binaries_untracked", "binary_paths_forgotten",
                                                  "hash_queue_full", "without_baseline"}
        if stats.get("oncpu"):
            keys |= {"stack_table_full", "mappings_lost", "objects_refused"}
        causes = {dict(k[1])["cause"] for k in m if k[0] == "plumbline_losses_total"}
        capped = {dict(k[1])["cause"] for k in m if k[0] == "plumbline_detail_capped_total"}
        if keys - causes - capped:
            fail(f"loss counters of the stats record in neither metric: {keys - causes - capped}")
        if causes & capped:
            fail(f"causes both lost and bounded detail: {causes & capped}")
        for c in ("sample_ring_full", "stack_copy_failed", "kstack_unreadable", "fail_path_image_cap"):
            if c not in capped:
                fail(f"{c} is not a cause of plumbline_detail_capped_total")
        # the same counters, not recounted: the scrape's value is at most the final record's
        flat = dict(stats["kernel_drops"], **stats["userspace_drops"], invalid_records=stats["invalid_records"],
                    binaries_untracked=stats["binaries_untracked"],
                    binary_paths_forgotten=stats["binary_paths_forgotten"],
                    hash_queue_full=stats["identity"]["hash_queue_full"],
                    without_baseline=stats["baselines"]["without_baseline"])
        for cause in (causes | capped) & set(flat):
            v = val(m, "plumbline_losses_total" if cause in causes else "plumbline_detail_capped_total",
                    cause=cause)
            if v > flat[cause]:
                fail(f"loss {cause}: scraped {v} > the final stats record's {flat[cause]}")

        r = status(sensor, rdir)
        if r.returncode != 1 or "no sensor running" not in r.stderr or "stopped" not in r.stderr:
            fail(f"status after stop: exit {r.returncode}, {r.stderr!r}")
        log("after stop: " + r.stderr.strip())
        # a sensor that died without stopping: its pid is gone
        dead = subprocess.Popen(["true"])
        dead.wait()
        sj["state"] = "running"
        sj["pid"] = dead.pid
        fake = os.path.join(d, "fake")
        os.mkdir(fake)
        with open(os.path.join(fake, "status.json"), "w") as f:
            json.dump(sj, f)
        r = status(sensor, fake, "--json")
        if r.returncode != 1 or "no sensor running" not in r.stderr or r.stdout:
            fail(f"status with a dead pid: exit {r.returncode}, {r.stderr!r}, {r.stdout!r}")
        log("dead pid: " + r.stderr.strip()[:120])
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
        try:
            print(open(os.path.join(d, "sensor.log")).read(), file=sys.stderr)
        except OSError:
            pass
    finally:
        if p and p.poll() is None:
            p.kill()
            p.wait()
        finish([], d, ok)


if __name__ == "__main__":
    main()
