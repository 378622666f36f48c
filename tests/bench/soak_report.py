# SPDX-License-Identifier: MIT
"""
soak_report.py - soak.py's verdict: the memory figures and their slope after
warm-up, the sensor's CPU, every loss counter (stats against metrics), the
injected events against the alerts they raised, and every other alert,
sorted into those of the soak's own processes (a failure) and those of the
rest of the machine (listed). report() gives the markdown and whether the
soak passed.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scenario"))
import scenario_lib as sl  # noqa: E402

LOSS_ALERT = "Sensor lost events"
STORM_RULES = {"Open retry storm", "Open retry storm in a short-lived process",
               "Open retry storm across processes of one binary",
               "Storm of a new failing path across processes of one binary"}
DEVIATION_RULES = {"Process far outside its baseline", "Running process far outside its baseline"}
# what each injected event may raise for its own processes, and the alert it must raise
EXPECTED = {"storm": STORM_RULES | DEVIATION_RULES, "runaway": {"CPU runaway"} | DEVIATION_RULES,
            "flood": DEVIATION_RULES}
REQUIRED = {"storm": "Open retry storm", "runaway": "CPU runaway"}
EXPLAIN_AFTER_S = 120  # an injection explains its processes' alerts this long after it started
WARNING = 4  # syslog severity
TRUNCATIONS = ("kernel_drops.path_truncated", "kernel_drops.args_truncated")


def loss_counters(st):
    """Every loss counter of a stats record, as {"section.key": n} (truncations too, told apart)."""
    out = {}
    for sec in ("kernel_drops", "userspace_drops"):
        for k, v in (st.get(sec) or {}).items():
            out[f"{sec}.{k}"] = v
    for k in ("invalid_records", "binaries_untracked", "binary_paths_forgotten"):
        if k in st:
            out[k] = st[k]
    for sec, keys in (("identity", ("hash_queue_full",)), ("baselines", ("without_baseline", "save_errors")),
                      ("oncpu", ("stack_table_full", "mappings_lost", "objects_refused")),
                      ("rules", ("regex_skipped",)), ("output", ("dropped",)), ("syslog", ("dropped",)),
                      ("ocsf", ("dropped",))):
        for k in keys:
            if isinstance(st.get(sec), dict) and k in st[sec]:
                out[f"{sec}.{k}"] = st[sec][k]
    return out


def state_gauges(st):
    """What the sensor holds that may grow with the machine's work, not a leak: {"state.key": n}."""
    out = {"state.tracked_processes": st.get("tracked_processes")}
    for sec, key in (("baselines", "baselines"), ("fail_paths", "table_entries"), ("oncpu", "objects"),
                     ("oncpu", "stacks_held"), ("identity", "hashes_done")):
        if isinstance(st.get(sec), dict) and key in st[sec]:
            out[f"state.{sec}.{key}"] = st[sec][key]
    return out


def slope(points):
    """Least-squares slope of [(x, y)], or 0 with fewer than 2 points."""
    n = len(points)
    if n < 2:
        return 0.0
    sx = sum(x for x, _ in points)
    sy = sum(y for _, y in points)
    sxx = sum(x * x for x, _ in points)
    sxy = sum(x * y for x, y in points)
    d = n * sxx - sx * sx
    return (n * sxy - sx * sy) / d if d else 0.0


def memory(args, samples, lines, fails):
    warm = [s for s in samples if s["t"] >= args.warmup * 60]
    lines += ["## Memory", "", f"Warm-up {args.warmup:g} min; bound {args.bound_kb:g} KB per 10 min after it.", "",
              "| | start | after warm-up | end | max | slope after warm-up (KB/min) | verdict |",
              "|---|---|---|---|---|---|---|"]
    for key in ("rss_kb", "heap_kb", "hwm_kb", "fds", "threads"):
        v0, vw, ve = samples[0][key], (warm[0][key] if warm else None), samples[-1][key]
        b = slope([(s["t"] / 60, s[key]) for s in warm])
        verdict = ""
        if key in ("rss_kb", "heap_kb"):
            span = (warm[-1]["t"] - warm[0]["t"]) / 60 if len(warm) > 1 else 0
            grew = ve - vw if vw is not None else 0
            bad = b * 10 > args.bound_kb and grew > args.bound_kb / 10 * span / 2
            verdict = "GROWS" if bad else "flat"
            if bad:
                fails.append(f"{key} grows after warm-up: {b:.1f} KB/min, {grew} KB in {span:.0f} min")
        lines.append(f"| {key} | {v0} | {vw if vw is not None else '-'} | {ve} | {max(s[key] for s in samples)} "
                     f"| {b:.1f} | {verdict} |")
    keys = sorted({k for s in samples for k in s if k.startswith("state.")})
    if keys:
        lines += ["", "What the sensor holds (from its stats records), which grows with the machine's work:", "",
                  "| | start | after warm-up | end | RSS growth after warm-up per one more |", "|---|---|---|---|---|"]
        drss = samples[-1]["rss_kb"] - warm[0]["rss_kb"] if warm else 0
        for k in keys:
            w0, ve = (warm[0].get(k) if warm else None), samples[-1].get(k)
            per = f"{drss / (ve - w0):.1f} KB" if w0 is not None and ve is not None and ve > w0 else "-"
            lines.append(f"| {k[6:]} | {samples[0].get(k, '-')} | {'-' if w0 is None else w0} | {ve} | {per} |")
    cpu = (samples[-1]["cpu_s"] - samples[0]["cpu_s"]) / max(1.0, samples[-1]["t"] - samples[0]["t"]) * 100
    lines += ["", f"Sensor CPU: {cpu:.2f} % of one core over {samples[-1]['t'] - samples[0]['t']:.0f} s "
              f"({len(samples)} samples; metrics endpoint answered {sum(s['metrics_ok'] for s in samples)}).", ""]


def losses(stats, final_metrics, alerts, flood, fails, lines):
    last = loss_counters(stats[-1]) if stats else {}
    loss_alerts = [a for a in alerts if a.get("rule") == LOSS_ALERT]
    lines += ["## Losses", "", f"From the last stats record ({'shutdown' if stats else 'none'}), against the "
              "metrics endpoint's last scrape before shutdown (`plumbline_losses_total`, output drops).", "",
              "| counter | stats total | metrics | stats says it |", "|---|---|---|---|"]
    for k, v in sorted(last.items()):
        cause = k.split(".")[-1] if not k.endswith(".dropped") else k.replace("output.", "json.")
        m = (final_metrics or {}).get(cause)
        said = "-" if m is None else ("yes" if v >= m else "NO")
        if said == "NO":
            fails.append(f"metrics count {m:.0f} {cause} but the stats only {v}")
        if v or (m or 0):
            lines.append(f"| {k} | {v} | {'-' if m is None else int(m)} | {said} |")
    lost = sum(v for k, v in last.items() if k not in TRUNCATIONS)
    lines += ["", f"Losses in all (truncations aside): {lost}; `{LOSS_ALERT}` alerts: {len(loss_alerts)}"
              f"{' (none raised for counted losses)' if lost and not loss_alerts else ''}.", ""]
    kdrops = sum(v for k, v in last.items() if k.startswith("kernel_drops.") and k not in TRUNCATIONS)
    for f in flood:
        if f["missing"] > 0 and kdrops == 0:
            fails.append(f"flood at +{f['t']:.0f} s: {f['missing']} execs without a record and no kernel drop counted")


def attribute(soak):
    """pid -> [[image start ns, end ns or None]] of the soak's own images. An
    image's exec, window and process records give its start a few ns apart:
    starts within 1 ms are one image, whose end its process record gives."""
    by_pid = {}
    for r in soak:
        start = r.get("image_start_ns") or r.get("start_ns") or r.get("time_ns") or 0
        images = by_pid.setdefault(r["pid"], [])
        im = next((i for i in images if abs(i[0] - start) < 1e6), None)
        if im is None:
            im = [start, None]
            images.append(im)
        if r.get("end_ns"):
            im[1] = r["end_ns"]
    return by_pid


def is_soak(a, by_pid):
    """Whether the alert's pid ran an image of the soak's when it was raised (an
    exit alert comes just after the image's end)."""
    t = a["time_ns"]
    return any(start <= t + 1e9 and (end is None or end >= t - 5e9) for start, end in by_pid.get(a.get("pid"), ()))


def ringbuf_growth(stats, start, end):
    """How much kernel_drops.ringbuf_full grew from the last stats record before
    start to the first after end (wall s): the stats records, not the samples,
    which repeat the last record while the sensor is late writing the next."""
    before = [st for st in stats if st["time_ns"] / 1e9 <= start]
    after = [st for st in stats if st["time_ns"] / 1e9 >= end]
    if not before or not after:
        return None
    return after[0]["kernel_drops"]["ringbuf_full"] - before[-1]["kernel_drops"]["ringbuf_full"]


def injections(load, recs, alerts, stats, fails, lines, results):
    lines += ["## Injected events", "", "| +s | event | pid | alert | latency (s) |", "|---|---|---|---|---|"]
    trees = []
    for inj in sorted(load.injections, key=lambda i: i["wall"]):
        pids = sl.tree(recs, {inj["pid"]})
        trees.append((inj, pids))
        need = REQUIRED.get(inj["kind"])
        got = "-"
        lat = ""
        if need:
            hit = [a for a in alerts if a.get("rule") == need and a.get("pid") == inj["pid"]]
            if hit:
                lat = f"{hit[0]['time_ns'] / 1e9 - inj['wall']:.1f}"
                got = need
                results.append((inj["kind"], float(lat)))
            else:
                got = f"**NO {need}**"
                why = ""
                lost = ringbuf_growth(stats, inj["wall"] - 3, inj["wall"] + 25)
                if not any(r["pid"] == inj["pid"] for r in recs):
                    why = " (no record of its pid at all"
                elif not any(r["pid"] == inj["pid"] and r["type"] == "exec" for r in recs):
                    why = " (its exec record lost: no identity, no windows, no rule"
                if lost:
                    why = (why or " (") + f"{'; ' if why else ''}ringbuf_full grew by {lost:.0f} around it"
                if why:
                    why += ")"
                    got += why
                fails.append(f"{inj['kind']} at +{inj['t']:.0f} s (pid {inj['pid']}) raised no {need!r}{why}")
        if inj["kind"] == "runaway":  # what it got of a core: below 90 % it was no runaway
            pr = [r for r in recs if r.get("type") == "process" and r.get("pid") == inj["pid"]
                  and r.get("image") == "exec" and r.get("duration_ns")]
            if pr:
                got += f" (it got {pr[-1]['cpu_ns'] / pr[-1]['duration_ns']:.0%} of a core)"
        elif inj["kind"] == "flood":
            seen = sum(1 for r in recs if r.get("type") == "exec" and r.get("ppid") == inj["pid"]
                       and (r.get("filename") or "").startswith(inj["dir"] + "/"))
            trues = sum(1 for r in recs if r.get("type") == "exec" and r.get("filename") == "/bin/true"
                        and r.get("ppid") == inj["pid"])
            inj["missing"] = 2 * inj.get("ran", 0) - seen - trues
            got = f"exec records: {seen} of {inj.get('ran', 0)} distinct binaries, {trues} of /bin/true"
        lines.append(f"| {inj['t']:.0f} | {inj['kind']} | {inj['pid']} | {got} | {lat} |")
    if results:
        for kind in sorted({k for k, _ in results}):
            ts = [t for k, t in results if k == kind]
            lines.append(f"\n{kind}: latency min {min(ts):.1f} s, max {max(ts):.1f} s over {len(ts)}")
    lines.append("")
    return trees


def explained(a, trees):
    for inj, pids in trees:
        if a.get("pid") in pids and a.get("rule") in EXPECTED.get(inj["kind"], ()) and \
                inj["wall"] - 5 <= a["time_ns"] / 1e9 <= inj["wall"] + EXPLAIN_AFTER_S:
            return inj
    return None


def alert_table(lines, title, rows):
    lines += [f"## {title}", ""]
    if not rows:
        lines += ["none", ""]
        return
    lines += ["| rule | exe | count | first pid | max CPU pressure (some avg10 %) | output (first) |",
              "|---|---|---|---|---|---|"]
    groups = {}
    for a in rows:
        groups.setdefault((a.get("rule"), a.get("exe")), []).append(a)
    for (rule, exe), g in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        psi = max(((a.get("host") or {}).get("psi") or {}).get("cpu_some_avg10", 0) for a in g)
        lines.append(f"| {rule} | {exe} | {len(g)} | {g[0].get('pid')} | {psi:g} "
                     f"| {(g[0].get('output') or '')[:160]} |")
    lines.append("")


def report(args, samples, tail, load, final_metrics, died, exit_code):
    """The markdown report and whether the soak passed, from soak.py's Tail of the sensor's records."""
    fails = []
    lines = [f"# plumbline soak: {args.minutes:g} min", ""]
    if died:
        fails.append(f"the sensor died (exit {exit_code})")
    elif exit_code not in (0, None):
        fails.append(f"the sensor exited {exit_code} on SIGINT")
    fails += [f"injection failed: {e}" for e in load.errors]
    stats, alerts, recs = tail.stats, tail.alerts, tail.soak
    lines += [f"Load: {load.builds} builds ({load.build_failures} failed), {load.logins} logins "
              f"({load.login_failures} failed), {len(load.injections)} injected events; "
              f"load average at the end: {open('/proc/loadavg').read().split()[:3]}.", ""]
    if samples:
        memory(args, samples, lines, fails)
    else:
        fails.append("no samples")
    by_pid = attribute(recs)
    results = []
    trees = injections(load, recs, alerts, stats, fails, lines, results)
    if len(stats) > 1:  # a sensor starved of CPU writes them late
        gaps = [(b["time_ns"] - a["time_ns"]) / 1e9 for a, b in zip(stats, stats[1:])]
        lines += [f"Stats records: {len(stats)}, every {sorted(gaps)[len(gaps) // 2]:.0f} s (median), "
                  f"the largest gap {max(gaps):.0f} s (asked: every 10 s).", ""]
    losses(stats, final_metrics, alerts, [i for i in load.injections if i["kind"] == "flood"], fails, lines)
    mine, unexplained, outside = [], [], []
    for a in alerts:
        if a.get("rule") == LOSS_ALERT:
            continue
        if is_soak(a, by_pid):
            (mine if explained(a, trees) else unexplained).append(a)
        else:
            outside.append(a)
    alert_table(lines, "Alerts on soak processes explained by an injected event", mine)
    loud = [a for a in unexplained if args.strict or a.get("severity", 7) <= WARNING]
    quiet = [a for a in unexplained if a not in loud]
    alert_table(lines, "Alerts on soak processes NOT explained (failures)", loud)
    alert_table(lines, "Alerts below WARNING on soak processes not explained (listed; failures with --strict)",
                quiet)
    alert_table(lines, "Alerts on processes outside the soak (other work on this machine)", outside)
    for a in loud:
        fails.append(f"unexplained alert {a.get('rule')!r} on soak pid {a.get('pid')} ({a.get('exe')})")
    lines += ["## Verdict", ""]
    lines += [f"- FAIL: {f}" for f in fails] or ["PASS"]
    return "\n".join(lines) + "\n", not fails
