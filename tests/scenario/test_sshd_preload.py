#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_sshd_preload.py - the xz-utils backdoor's shape, through a real sshd.

The test starts Debian's sshd (OpenSSH 9.2) of its own on 127.0.0.1 (its own
config, host key, client key, authorized_keys, pid file and port) and the real
sensor with the shipped rules, then:

  1. learning: key-based logins as root (`ssh ... true`), one after another,
     until the baseline of sshd's login child (the `sshd ... -R` image that the
     listener forks and re-executes per connection) is ready and has learned
     where its code runs (`oncpu_ready`); no authentication alert may fire;
  2. attack: sshd stopped and started again, the same binary and config, with
     LD_PRELOAD=libplxz.so (plxz.c, built without frame pointers: it
     interposes getpwnam(), and when the -R image looks up the user logging in
     (getpwnamallow(), sshd's own code) it burns ~300 ms in
     plxz_decode_payload() before calling the real one), and a few more
     logins.
  3. clean again: sshd restarted without the preload, 30 more logins: no
     alert at all, of any rule, for any sshd process.

The first attack login's alerts must come within 2 s of the login's end (the
ssh client's return; asserted with margin, 6 s), and the time is printed.

Then, after each login child has exited, the alerts must say exactly where the
time went:

  - "New code on CPU in authentication" for the first attack login child's pid,
    whose stacks evidence has plxz_decode_payload in .../libplxz.so as its
    first function, libplxz.so among its objects with new: true and
    baseline_share 0, and plxz_decode_payload as the leaf (last user frame) of
    its top stack;
  - in both alerts' stacks, at least 90 % of the samples whose leaf user frame
    is plxz_decode_payload are in whole stacks (not rooted in `[stack cut]`)
    that run from sshd's code (frames in /usr/sbin/sshd, unnamed: Debian's has
    no symbols) through getpwnam in libplxz.so, the frame just outside
    plxz_decode_payload; samples the functions table counts there beyond the
    top stacks count against it;
  - "Unexpected CPU in authentication" for the same pid;
  - no authentication alert for any other process: not during learning, not
    for the listener, the privilege-separation or session children;
  - every attack login child's process record has libplxz.so on CPU, among its
    baseline's new objects;
  - `plumbline evidence OUT ID --folded`, for that alert's id, has a stack
    that runs from sshd's frames (`[unknown] (sshd)`) through getpwnam to
    plxz_decode_payload, not cut.

argv: PLUMBLINE_BINARY LIBPLXZ_SO. Needs root and BPF (the sensor), sshd, ssh
and ssh-keygen (Debian's openssh-server and openssh-client); without them it
skips (exit 77) with the reason, unless PLUMBLINE_REQUIRE_BPF=1. Set
PLUMBLINE_KEEP_TEST_FILES to keep its directory (records, logs, config). Under ctest
the sensor's records also go to PLUMBLINE_TEST_RECORDS_DIR, which the
schema_records test validates against docs/schema/ (scenario_lib.keep_records).
"""
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario_lib as sl  # noqa: E402
from scenario_lib import SSHD, Failure, Sshd, fail, finish, log, login_children, wait_login_children  # noqa: E402,F401

SENSOR, LIB = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
AUTH_RULES = ("New code on CPU in authentication", "Unexpected CPU in authentication")
BURN_FN = "plxz_decode_payload"
HOOK_FN = "getpwnam"  # plxz.c interposes it: the -R image calls it from getpwnamallow() per login
LEARN_LOGINS, MAX_LEARN_LOGINS, ATTACK_LOGINS, CLEAN_AFTER = 30, 45, 3, 30
ALERT_BOUND_S = 2  # the alert within 2 s of the login ending (asserted with margin: 3x)
MIN_SAMPLES, SAMPLE_HZ = 10, 199
def Sensor(d):
    # the shipped rules: the default without --rules
    return sl.Sensor(d, "sensor", SENSOR, extra=[
        "--min-samples", str(MIN_SAMPLES),
        "--set-quiet", "10",  # learning compressed into a minute (docs/baselines.md: set saturation)
        "--sample-hz", str(SAMPLE_HZ)])


def objects(rec):
    return [o["object"] for o in (rec.get("oncpu") or {}).get("objects", [])]


def describe(rec):
    """One line of what a process record says about an sshd child, for the log and for failures."""
    b = rec.get("baseline") or {}
    oc = rec.get("oncpu") or {}
    return (f"pid {rec['pid']} ppid {rec['ppid']} image {rec['image']} cpu {rec['cpu_ns'] / 1e6:.1f} ms, "
            f"{oc.get('samples', 0)} samples ({oc.get('unattributed', 0)} unattributed) in "
            f"{[(os.path.basename(o['object']), o['samples']) for o in oc.get('objects', [])]}; baseline "
            f"{b.get('key', '?')[:24]}.. ready {b.get('ready')} oncpu_ready {b.get('oncpu_ready')} "
            f"samples {b.get('samples')} learned {b.get('learned')} new_oncpu {b.get('new_oncpu_objects')} "
            f"({b.get('new_oncpu_samples')}) cpu_ms p50 {((b.get('quantiles') or {}).get('cpu_ms') or {}).get('p50')}")


def sshd_records(recs):
    return [r for r in recs if r.get("type") == "process" and r.get("exe") == SSHD]


def dump_sshd(recs, why):
    print(f"--- {why}: the sensor's sshd process records ---", file=sys.stderr)
    for r in sshd_records(recs):
        print("  " + describe(r) + f" cmdline {r.get('cmdline')!r}", file=sys.stderr)
    for a in recs:
        if a.get("type") == "alert":
            print(f"  alert {a.get('rule')!r} pid {a.get('pid')} exe {a.get('exe')}", file=sys.stderr)


def check_alert_evidence(a):
    st = (a.get("evidence") or {}).get("stacks")
    if not st:
        fail(f"alert {a['rule']!r} has no stacks evidence: {json.dumps(a.get('evidence'))[:2000]}")
    fns, objs, top = st.get("functions") or [], st.get("objects") or [], st.get("top") or []
    if not fns or fns[0].get("function") != BURN_FN or not (fns[0].get("object") or "").endswith("/libplxz.so"):
        fail(f"{a['rule']!r}: the first function is {fns[:1]}, not {BURN_FN} in libplxz.so")
    mine = [o for o in objs if (o.get("object") or "").endswith("/libplxz.so")]
    if len(mine) != 1 or mine[0].get("new") is not True or mine[0].get("baseline_share") != 0:
        fail(f"{a['rule']!r}: libplxz.so in objects: {mine} (all: {objs})")
    if objs[0] is not mine[0]:
        fail(f"{a['rule']!r}: libplxz.so is not the object with the most samples: {objs}")
    if not top:
        fail(f"{a['rule']!r}: no top stacks")
    user = [f for f in top[0].get("frames", []) if not f.get("kernel")]
    if not user or user[-1].get("function") != BURN_FN or not user[-1].get("object", "").endswith("/libplxz.so"):
        fail(f"{a['rule']!r}: the top stack's leaf is {user[-1:]}, not {BURN_FN}")
    check_burn_stacks(a["rule"], st)
    return st


def is_lib(f):
    return (f.get("object") or "").endswith("/libplxz.so")


def user_frames(frames):
    return [f for f in frames if not f.get("kernel")]


def burn_stack_whole(frames):
    """None if a stack whose leaf user frame is BURN_FN runs whole from sshd's code through HOOK_FN in
    libplxz.so, else why not."""
    user = user_frames(frames)
    if user[0].get("object") == "[stack cut]":
        return f"cut ({user[0].get('function')})"
    if len(user) < 2 or user[-2].get("function") != HOOK_FN or not is_lib(user[-2]):
        return f"the frame outside {BURN_FN} is {user[-2:-1]}, not {HOOK_FN} in libplxz.so"
    lib = next(i for i, f in enumerate(user) if is_lib(f))
    if not any(f.get("object") == SSHD for f in user[:lib]):
        return f"no frame in {SSHD} outside the libplxz.so frames"
    return None


def check_burn_stacks(rule, st):
    """At least 90 % of the samples whose leaf user frame is BURN_FN are in whole stacks from sshd's
    code through HOOK_FN. Samples the functions table counts in BURN_FN beyond those of the top
    stacks count against it: a stack not kept cannot pass for a whole one."""
    burn = [t for t in st["top"] if (user_frames(t.get("frames") or []) or [{}])[-1].get("function") == BURN_FN]
    in_top = sum(t["samples"] for t in burn)
    leaf = sum(f["samples"] for f in st["functions"] if f.get("function") == BURN_FN and is_lib(f))
    total = max(in_top, leaf)
    broken = [(t["samples"], burn_stack_whole(t["frames"])) for t in burn if burn_stack_whole(t["frames"])]
    whole = in_top - sum(n for n, _ in broken)
    if not total or whole < 0.9 * total:
        fail(f"{rule!r}: {whole} of {total} samples in {BURN_FN} ({in_top} in the top stacks) are in whole "
             f"stacks from {SSHD} through {HOOK_FN}; the others: {broken}")
    log(f"{rule!r}: {whole} of {total} samples in {BURN_FN} are in whole stacks from sshd through {HOOK_FN}")


STOP_REASONS = {"truncated", "no_mapping", "no_cfi", "no_file", "bad_cfi", "depth"}  # docs/records.md


def folded_whole(line, sshd_names):
    """Is a `plumbline evidence --folded` line a whole stack from sshd's code through HOOK_FN to
    BURN_FN? sshd_names: what sshd's frames read as there (`[unknown] (sshd)` for Debian's, which
    has no symbols; the names of any the sensor did name)."""
    frames = line.rsplit(" ", 1)[0].split(";")
    while frames and frames[-1].endswith("_[k]"):
        frames.pop()
    if len(frames) < 3 or frames[-2:] != [HOOK_FN, BURN_FN] or frames[0] in STOP_REASONS:
        return False
    return any(f in sshd_names for f in frames[:-2])


def main():
    sl.need_sshd(LIB)

    d = sl.temp_dir("pl-sshd-")
    os.chmod(d, 0o755)
    sshd = sensor = None
    ok = False
    try:
        sshd = Sshd(d)
        sensor = Sensor(d)
        log(f"sensor ready (pid {sensor.p.pid}); sshd on 127.0.0.1:{sshd.port}")

        # 1. learning
        clean = sshd.start()
        n = 0
        while True:
            target = LEARN_LOGINS if n == 0 else n + 5
            while n < target:
                sshd.login()
                n += 1
            kids = wait_login_children(sensor, clean, n)
            last = kids[-1]["baseline"] if kids else {}
            if (last.get("ready") and last.get("oncpu_ready")) or n >= MAX_LEARN_LOGINS:
                break
            log(f"{n} logins, the login child's baseline is not ready yet: "
                f"{describe(kids[-1]) if kids else 'no records'}")
        recs = sensor.records()
        if len(kids) != n:
            dump_sshd(recs, "learning")
            fail(f"{len(kids)} records of login children for {n} logins")
        log(f"{n} clean logins; the last login child: {describe(kids[-1])}")
        if not (last.get("ready") and last.get("oncpu_ready")):
            dump_sshd(recs, "learning")
            fail(f"after {n} logins the login child's baseline is not ready (ready {last.get('ready')}, "
                 f"oncpu_ready {last.get('oncpu_ready')})")
        keys = {k["baseline"]["key"] for k in kids}
        if len(keys) != 1:
            fail(f"the login children have {len(keys)} baselines: {keys}")
        learn_alerts = [a for a in recs if a.get("type") == "alert" and a.get("rule") in AUTH_RULES]
        if learn_alerts:
            dump_sshd(recs, "learning")
            fail(f"{len(learn_alerts)} authentication alerts on clean logins: "
                 f"{[(a['rule'], a['pid'], a.get('output')) for a in learn_alerts]}")
        # not asserted: what other rules said of sshd on clean logins (see the report in docs/detections.md)
        other = [a for a in recs if a.get("type") == "alert" and a.get("exe") == SSHD]
        if other:
            log(f"NOTE: {len(other)} other alerts on clean sshd processes: "
                f"{[(a['rule'], a['pid'], a.get('output')) for a in other]}")

        # 2. attack: the same sshd, with the library preloaded
        sshd.stop()
        evil = sshd.start(preload=LIB)
        log(f"sshd restarted with LD_PRELOAD={LIB} (pid {evil})")
        ended = []
        for _ in range(ATTACK_LOGINS):
            sshd.login()
            ended.append(time.time())
        bad = wait_login_children(sensor, evil, ATTACK_LOGINS)
        if len(bad) != ATTACK_LOGINS:
            dump_sshd(sensor.records(), "attack")
            fail(f"{len(bad)} records of login children for {ATTACK_LOGINS} attack logins")
        first = bad[0]["pid"]
        deadline = time.time() + 10
        while True:
            recs = sensor.records()
            alerts = [a for a in recs if a.get("type") == "alert" and a.get("rule") in AUTH_RULES]
            fired = {a["rule"] for a in alerts if a.get("pid") == first}
            if fired == set(AUTH_RULES) or time.time() > deadline:
                break
            time.sleep(0.2)
        for k in bad:
            log("attack login child: " + describe(k))

        # every attack login child ran code in libplxz.so, new to its baseline
        for k in bad:
            b = k["baseline"]
            if not [o for o in objects(k) if o.endswith("/libplxz.so")]:
                dump_sshd(recs, "attack")
                fail(f"login child {k['pid']} has no sample in libplxz.so: {objects(k)}")
            if not any(o.endswith("/libplxz.so") for o in b.get("new_oncpu_objects") or []) or \
                    (b.get("new_oncpu_samples") or 0) < 5:
                dump_sshd(recs, "attack")
                fail(f"login child {k['pid']}: libplxz.so is not new code to its baseline: {describe(k)}")
            if k["cpu_ns"] < 300e6:
                fail(f"login child {k['pid']} used {k['cpu_ns'] / 1e6:.1f} ms: the library did not burn")

        # the alerts: both rules for the first attack login child, none for anything else
        if fired != set(AUTH_RULES):
            dump_sshd(recs, "attack")
            fail(f"for login child {first}: alerts {sorted(fired)}, expected {sorted(AUTH_RULES)}")
        stray = [a for a in alerts if a["pid"] not in {k["pid"] for k in bad}]
        if stray:
            dump_sshd(recs, "attack")
            fail(f"authentication alerts for other processes: {[(a['rule'], a['pid'], a['exe']) for a in stray]}")
        for rule in AUTH_RULES:
            a = next(a for a in alerts if a["pid"] == first and a["rule"] == rule)
            if a.get("exe") != SSHD or a.get("when") != "exit":
                fail(f"{rule!r}: exe {a.get('exe')}, when {a.get('when')}: not sshd's exit")
            st = check_alert_evidence(a)
            if st["samples"] != bad[0]["oncpu"]["samples"]:
                fail(f"{rule!r}: {st['samples']} samples, its process record {bad[0]['oncpu']['samples']}")
            log(f"alert {rule!r} for pid {first}: {st['samples']} samples at {st['rate_hz']} Hz; top function "
                f"{st['functions'][0]['function']} ({st['functions'][0]['samples']} samples, share "
                f"{st['functions'][0]['share']:.2f}); objects "
                f"{[(os.path.basename(o['object']), o['samples'], o['new']) for o in st['objects']]}")
            log(f"  top stack: {' ; '.join((f.get('function') or hex(f.get('offset') or 0)) + '@' + os.path.basename(f.get('object') or '?') for f in st['top'][0]['frames'])}")
            log(f"  output: {a.get('output')}")

        # time to alert: from the first attack login's end (the client's return) to the alert
        tta = max(a["time_ns"] / 1e9 for a in alerts if a["pid"] == first) - ended[0]
        log(f"time to alert: {tta:.2f} s after the login ended (bound {ALERT_BOUND_S} s)")
        if tta > 3 * ALERT_BOUND_S:
            fail(f"the alerts came {tta:.2f} s after the login ended (bound {ALERT_BOUND_S} s, asserted 3x)")

        # 3. clean again: the same sshd without the library; no alert at all for any sshd process
        sshd.stop()
        again = sshd.start()
        t_clean = time.time()
        log(f"sshd restarted clean (pid {again}); {CLEAN_AFTER} logins")
        for _ in range(CLEAN_AFTER):
            sshd.login()
        kids = wait_login_children(sensor, again, CLEAN_AFTER)
        if len(kids) != CLEAN_AFTER:
            dump_sshd(sensor.records(), "clean after the attack")
            fail(f"{len(kids)} records of login children for {CLEAN_AFTER} clean logins")
        time.sleep(1.5)
        recs = sensor.records()
        late = [a for a in recs if a.get("type") == "alert" and a.get("exe") == SSHD and a["time_ns"] / 1e9 >= t_clean]
        if late:
            dump_sshd(recs, "clean after the attack")
            fail(f"{len(late)} alerts on clean logins after the attack: "
                 f"{[(a['rule'], a['priority'], a['pid'], a.get('output')) for a in late]}")
        log(f"{CLEAN_AFTER} clean logins after the attack: no alert")

        # the same evidence through `plumbline evidence --folded`
        a = next(a for a in alerts if a["pid"] == first and a["rule"] == AUTH_RULES[0])
        if not isinstance(a.get("id"), str):
            fail(f"the alert has no id: {sorted(a)}")
        sensor.stop()
        r = subprocess.run([SENSOR, "evidence", sensor.json, a["id"], "--folded"], capture_output=True,
                           text=True, timeout=30)
        sshd_names = {"[unknown] (sshd)"} | {f["function"] for t in a["evidence"]["stacks"]["top"]
                                             for f in t["frames"] if f.get("object") == SSHD and f.get("function")}
        lines = [l for l in r.stdout.splitlines() if folded_whole(l, sshd_names)]
        if r.returncode != 0 or not lines:
            fail(f"plumbline evidence --folded exited {r.returncode}, no stack runs from sshd's code through "
                 f"{HOOK_FN} to {BURN_FN}: {r.stdout[:2000]} {r.stderr[:2000]}")
        log(f"plumbline evidence {a['id']} --folded: {len(lines)} of {len(r.stdout.splitlines())} stacks "
            f"run from sshd through {HOOK_FN} to {BURN_FN}, e.g. {lines[0]}")
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        if sshd:
            sshd.stop()
        finish([sensor], d, ok)


if __name__ == "__main__":
    main()
