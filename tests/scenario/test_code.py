#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_code.py - code mapped: preloads, a PAM module, the set of objects.

The real sensor with the shipped rules (loss alert on), --map-records and
--set-quiet 3 (a set is ready once no new member came for 3 s instead of
600). The test builds, with gcc, in a private temp directory under /tmp:
libplhook.so and libplhook2.so (preload objects), libplbt.so and plprog (a
program linked against that library in its "build tree", with an rpath: a
library it names, not a preload), and pam_plmaps_test.so (a PAM module that
does nothing).

  1. learning: `su -c true` as root LEARN times and plprog a few times: no
     alert at Warning or above for any of the test's processes; su's set of
     objects becomes ready (a map record of su says objects_ready);
  2. LD_PRELOAD=libplhook.so into /bin/true: "Code preloaded into a process"
     for that pid, object path libplhook.so, within 2 s;
  3. LD_PRELOAD=libplhook.so into su: "Unpackaged code in authentication" and
     "New code mapped in authentication" for su's pid (the preload rule is
     throttled per object: it said it at step 2);
  4. /etc/ld.so.preload puts one object in every process. Not done for real
     (it would load into every process on the machine): the loader maps it
     at the same place as an LD_PRELOAD object, so the same rule sees it.
     What it must not do is alert per process: libplhook2.so preloaded into
     five programs gives one "Code preloaded" alert and an alert_summary at
     shutdown counting the four others;
  5. the PAM module installed into the PAM directory (root-owned: trusted,
     but no package owns it), named in a temporary /etc/pam.d/su (restored
     byte for byte in a finally block): "Unpackaged code in authentication"
     and "New code mapped in authentication" for that su, object the
     module's path.

Nothing else at Warning or above for the test's processes. The times to
alert are measured from just before each program starts.

argv: PLUMBLINE_BINARY. Needs root, BPF, gcc, su; else skips (77) unless
PLUMBLINE_REQUIRE_BPF=1.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, fail, finish, log, skip  # noqa: E402

SENSOR = os.path.abspath(sys.argv[1])
LEARN = 24   # su runs: the baseline's min_samples (20) exits, and some
WARN = 4     # severity: Warning (lower is more severe)
BOUND_S = 2.0
PAM_SU = "/etc/pam.d/su"

HOOK = "__attribute__((constructor)) static void plhook_init(void) {}\nint plhook(void) { return 1; }\n"
LIB = "int plbt(void) { return 42; }\n"
PROG = "int plbt(void);\nint main(void) { return plbt() == 42 ? 0 : 1; }\n"
PAM = """\
/* A PAM module that does nothing: what it does once loaded is not the point. */
#define PAM_IGNORE 25
struct pam_handle;
int pam_sm_authenticate(struct pam_handle *h, int f, int argc, const char **argv)
{ (void)h; (void)f; (void)argc; (void)argv; return PAM_IGNORE; }
int pam_sm_setcred(struct pam_handle *h, int f, int argc, const char **argv)
{ (void)h; (void)f; (void)argc; (void)argv; return PAM_IGNORE; }
"""


def gcc(d, args, src, name):
    path = os.path.join(d, name + ".c")
    with open(path, "w") as f:
        f.write(src)
    subprocess.run(["gcc", "-std=gnu17", "-O1", "-w", path, *args], cwd=d, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def run(argv, env=None):
    """Run argv to its end; (pid, wall time it started)."""
    t0 = time.time_ns()
    p = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    if p.wait(timeout=30) != 0:
        fail(f"{argv} exited {p.returncode}")
    return p.pid, t0


class Records:
    """The sensor's JSONL read as it grows, parsing only what the test looks
    at: alerts and summaries, map records of the test's objects and of su,
    and the (pid, ppid) links of exec and process records (a regex: the
    machine may be busy, and a full parse of every record each poll is slow)."""

    LINK = re.compile(r'^\{"type":"(?:exec|process)","pid":(\d+),"ppid":(\d+)')

    def __init__(self, path):
        self.path, self.pos = path, 0
        self.alerts, self.maps, self.links = [], [], set()

    def poll(self):
        if not os.path.exists(self.path):
            return self
        with open(self.path, "rb") as f:
            f.seek(self.pos)
            data = f.read()
        end = data.rfind(b"\n") + 1
        self.pos += end
        for raw in data[:end].decode(errors="replace").splitlines():
            head = raw[:24]
            if head.startswith('{"type":"alert'):
                r = json.loads(raw)
                if r.get("when") != "sensor":
                    self.alerts.append(r)
            elif head.startswith('{"type":"map"'):
                if "libpl" in raw or '"comm":"su"' in raw:
                    self.maps.append(json.loads(raw))
            else:
                m = self.LINK.match(raw)
                if m:
                    self.links.add((int(m.group(1)), int(m.group(2))))
        return self

    def tree(self, roots):
        pids, grown = set(roots), True
        while grown:
            grown = False
            for pid, ppid in self.links:
                if ppid in pids and pid not in pids:
                    pids.add(pid)
                    grown = True
        return pids


def alerts(rs):
    return rs.poll().alerts


def alert_for(rs, rule, pid, timeout=5.0):
    return sl.wait_for(f"'{rule}' for pid {pid}",
                       lambda: next((a for a in alerts(rs) if a["rule"] == rule and a.get("pid") == pid), None),
                       timeout=timeout)


def pam_dir():
    for d in ("/usr/lib/x86_64-linux-gnu/security", "/lib/x86_64-linux-gnu/security", "/usr/lib64/security",
              "/lib/security", "/usr/lib/security"):
        if os.path.exists(os.path.join(d, "pam_permit.so")):
            return d
    return None


def main():
    sl.need_bpf("the sensor loads BPF")
    for tool in ("/usr/bin/gcc", "/usr/bin/su", "/bin/true"):
        if not os.access(tool, os.X_OK):
            skip(f"{tool} is needed", bpf=False)
    pamd = pam_dir()
    if not pamd or not os.path.exists(PAM_SU):
        skip("no PAM directory with pam_permit.so, or no /etc/pam.d/su", bpf=False)
    d = sl.temp_dir("plcode.")
    os.chmod(d, 0o755)
    s = None
    ok = False
    results = []
    module = os.path.join(pamd, "pam_plmaps_test.so")
    pam_orig = None
    try:
        hook, hook2 = os.path.join(d, "libplhook.so"), os.path.join(d, "libplhook2.so")
        gcc(d, ["-shared", "-fPIC", "-o", hook], HOOK, "hook")
        shutil.copy(hook, hook2)
        gcc(d, ["-shared", "-fPIC", "-o", "libplbt.so"], LIB, "bt")
        gcc(d, ["-o", "plprog", "-L.", "-lplbt", "-Wl,-rpath," + d], PROG, "prog")
        gcc(d, ["-shared", "-fPIC", "-o", "pam_plmaps_test.so"], PAM, "pam")
        prog = os.path.join(d, "plprog")

        s = sl.Sensor(d, "s", SENSOR, extra=("--map-records", "--set-quiet", "3"))
        log("sensor ready")
        rs = Records(s.json)
        mine = set()
        # 1. learning
        for _ in range(LEARN):
            mine.add(run(["/usr/bin/su", "-c", "true"])[0])
        for _ in range(3):
            mine.add(run([prog])[0])
        time.sleep(3.5)  # --set-quiet
        probe = run(["/usr/bin/su", "-c", "true"])[0]
        mine.add(probe)

        def su_ready():
            return any(r.get("pid") == probe and r["object"].get("objects_ready") for r in rs.poll().maps)
        sl.wait_for("su's set of objects ready", su_ready, timeout=10)
        maps_prog = [r for r in rs.poll().maps if r.get("exe") == prog]
        bt = [r for r in maps_prog if r["object"]["path"].endswith("/libplbt.so")]
        if len(bt) != 3 or any(r["object"]["preload"] for r in bt):
            fail(f"plprog's build-tree library: {len(bt)} map records (want 3), none a preload: {bt[:1]}")
        if any(r["object"]["preload"] for r in rs.maps if r.get("pid") in mine):
            fail("a preload during learning")
        bad = [a for a in alerts(rs) if a["severity"] <= WARN and a.get("pid") in rs.tree(mine)]
        if bad:
            fail(f"alerts at Warning+ while learning: {[(a['rule'], a['output']) for a in bad]}")
        log(f"learned: {LEARN + 1} su, 3 plprog; no Warning")

        expected = {}  # pid -> rules
        # 2. LD_PRELOAD into a program
        env = dict(os.environ, LD_PRELOAD=hook)
        pid, t0 = run(["/bin/true"], env)
        a = alert_for(rs, "Code preloaded into a process", pid)
        if a["priority"] != "Warning" or a["evidence"]["object"]["path"] != hook \
                or a["evidence"]["object"]["location"] != "tmp" or a["evidence"]["object"]["packaged"] is not False:
            fail(f"preload alert: {a}")
        results.append(("LD_PRELOAD into true", (a["time_ns"] - t0) / 1e9, BOUND_S))
        expected[pid] = {"Code preloaded into a process"}
        log("preload into true alerted")
        # 3. ... and into su
        pid, t0 = run(["/usr/bin/su", "-c", "true"], env)
        for rule in ("Unpackaged code in authentication", "New code mapped in authentication"):
            a = alert_for(rs, rule, pid)
            if a["evidence"]["object"]["path"] != hook or a["priority"] != "Warning":
                fail(f"{rule}: {a}")
            results.append((f"LD_PRELOAD into su: {rule}", (a["time_ns"] - t0) / 1e9, BOUND_S))
        expected[pid] = {"Unpackaged code in authentication", "New code mapped in authentication"}
        log("preload into su alerted")
        # 4. one object in many processes: one alert
        env2 = dict(os.environ, LD_PRELOAD=hook2)
        many = [run([p], env2)[0] for p in ("/bin/true", "/bin/ls", "/usr/bin/id", "/bin/date", "/bin/uname")]
        a = alert_for(rs, "Code preloaded into a process", many[0])
        results.append(("one object, five programs", 0.0, BOUND_S))
        for p in many:
            expected[p] = {"Code preloaded into a process"} if p == many[0] else set()
        log("one object in five programs: one alert")
        # 5. a PAM module
        shutil.copy(os.path.join(d, "pam_plmaps_test.so"), module)
        os.chmod(module, 0o644)
        with open(PAM_SU, "rb") as f:
            pam_orig = f.read()
        with open(PAM_SU, "w") as f:
            f.write("auth optional pam_plmaps_test.so\nauth sufficient pam_rootok.so\n"
                    "account required pam_permit.so\nsession required pam_permit.so\n")
        pid, t0 = run(["/usr/bin/su", "-c", "true"])
        with open(PAM_SU, "wb") as f:
            f.write(pam_orig)
        pam_orig = None
        kpath = os.path.realpath(module)
        for rule in ("Unpackaged code in authentication", "New code mapped in authentication"):
            a = alert_for(rs, rule, pid)
            o = a["evidence"]["object"]
            if o["path"] != kpath or o["trusted"] is not True or o["packaged"] is not False:
                fail(f"{rule}: object {o}, want {kpath} trusted, not packaged")
            results.append((f"PAM module in su: {rule}", (a["time_ns"] - t0) / 1e9, BOUND_S))
        expected[pid] = {"Unpackaged code in authentication", "New code mapped in authentication"}
        log("PAM module alerted")
        time.sleep(1.0)

        s.stop()
        log("sensor stopped")
        rs.poll()
        pids = rs.tree(set(expected) | mine)
        got = {}
        for a in (r for r in rs.alerts if r["type"] == "alert"):
            if a["severity"] <= WARN and a.get("pid") in pids:
                got.setdefault(a["pid"], set()).add(a["rule"])
        for pid in pids:
            if got.get(pid, set()) != expected.get(pid, set()):
                fail(f"pid {pid}: alerts {sorted(got.get(pid, set()))}, want {sorted(expected.get(pid, set()))}")
        sums = [r for r in rs.alerts if r["type"] == "alert_summary" and r.get("rule") == "Code preloaded into a process"
                and r.get("exe") == hook2]
        if len(sums) != 1 or sums[0].get("count") != 4:
            fail(f"libplhook2.so in five programs: summaries {sums}, want one counting 4")
        for what, t, bound in results:
            if t > bound:
                fail(f"{what}: {t:.2f} s to alert (bound {bound} s)")
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        if pam_orig is not None:
            with open(PAM_SU, "wb") as f:
                f.write(pam_orig)
        if os.path.exists(module):
            os.unlink(module)
        finish([s], d, ok, results)


if __name__ == "__main__":
    main()
