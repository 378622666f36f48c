#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_build_keys.py - a build's tools get one key each, however late the
sensor handles their records.

A build tool's key carries "+build:DIR", DIR the top build driver's
directory; an interpreter's carries its script's absolute path; an image
exec'd by a relative name is named by its absolute path. Each must come from
what the kernel captured at exec, not from /proc when the record is handled:
by then the driver, the script and the program may all have exited.

The race made certain: the real sensor (a 64 MiB ring buffer) is stopped
(SIGSTOP) while a real make + gcc build runs to its end, then continued, so
every record of the build is handled after every process of it is gone. The
same build is run once with the sensor running as the reference, and once
more stopped from another directory as `make -C proj`. The recipes run:
gcc compiling and linking (gcc, cc1, as, collect2, ld), a shell script by a
relative path from a sub-directory (`cd tools && sh ./gen.sh`), and the
built program by a relative name (`./prog`).

  1. every image of each build tool in the three builds has the same key, and
     that key carries "+build:<realpath of proj>@";
  2. the script's key is "+script:<proj>/tools/gen.sh#sha256:..." in all three;
  3. ./prog is named <proj>/prog in all three.

argv: PLUMBLINE_BINARY. Needs root, BPF, make, gcc; else skips (77) unless
PLUMBLINE_REQUIRE_BPF=1.
"""
import os
import shutil
import signal
import sys

SENSOR = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, fail, finish, log, run_make, settle, skip, tree, Sensor  # noqa: E402

MAKEFILE = """\
CC = gcc
OBJS = a.o b.o c.o

all: prog gen.out

%.o: %.c
\t$(CC) -O0 -c $< -o $@

prog: $(OBJS)
\t$(CC) $(OBJS) -o $@
\t./prog

gen.out:
\tcd tools && sh ./gen.sh > ../gen.out

clean:
\trm -f $(OBJS) prog gen.out
"""

SOURCES = {
    "a.c": "int a(void) { return 1; }\n",
    "b.c": "int b(void) { return 2; }\n",
    "c.c": "int a(void); int b(void);\nint main(void) { return a() + b() - 3; }\n",
}

# the tools whose every image must carry the build's key (by exe base name)
TOOLS = ("make", "gcc", "cc1", "as", "collect2", "ld")


def tool_of(exe):
    b = os.path.basename(exe or "")
    for t in TOOLS:
        if b == t or b.startswith(t + "-") or b.startswith("x86_64-linux-gnu-" + t):
            return t
    return None


def images(recs, root):
    """The exec images of the build rooted at root (their end records)."""
    pids = tree(recs, [root])
    return [r for r in recs if r.get("type") == "process" and r.get("pid") in pids and r.get("image") == "exec"]


def key(r):
    return (r.get("baseline") or {}).get("key") or ""


def main():
    sl.need_bpf("the sensor loads BPF")
    for tool in ("make", "gcc"):
        if not shutil.which(tool):
            skip(f"no {tool}")

    d = os.path.realpath(sl.temp_dir("pl-buildkeys-"))
    sensor = None
    ok = False
    try:
        proj = os.path.join(d, "proj")
        os.makedirs(os.path.join(proj, "tools"))
        with open(os.path.join(proj, "Makefile"), "w") as f:
            f.write(MAKEFILE)
        for name, text in SOURCES.items():
            with open(os.path.join(proj, name), "w") as f:
                f.write(text)
        with open(os.path.join(proj, "tools", "gen.sh"), "w") as f:
            f.write("echo generated\n")
        env = dict(os.environ, LC_ALL="C")
        env.pop("MAKEFLAGS", None)
        env.pop("MFLAGS", None)

        sensor = Sensor(d, "sensor", SENSOR, extra=("--ringbuf-kb", "65536"))
        log("sensor ready")

        # the reference: the sensor handles records as they come
        roots = [run_make([], proj, env)]
        settle(sensor, roots[-1], 30)
        run_make(["clean"], proj, env)

        # the race, certain: every process of the build is gone before the
        # sensor handles its first record
        for args, cwd in (([], proj), (["-C", "proj"], d)):
            sensor.p.send_signal(signal.SIGSTOP)
            try:
                roots.append(run_make(args, cwd, env))
            finally:
                sensor.p.send_signal(signal.SIGCONT)
            settle(sensor, roots[-1], 30)
            run_make(["clean"], proj, env)  # after: the files are there, their processes gone
        log(f"three builds: one live, two handled after they ended ({roots})")

        recs = sensor.records()
        builds = [images(recs, root) for root in roots]
        want = "+build:" + proj + "@"
        keys = {}
        for i, imgs in enumerate(builds):
            for r in imgs:
                t = tool_of(r.get("exe"))
                if t:
                    keys.setdefault((t, r.get("exe")), set()).add((key(r), i))
        seen = {t for t, _ in keys}
        if seen != set(TOOLS):
            fail(f"build tools missing from the records: {sorted(set(TOOLS) - seen)} (saw {sorted(keys)})")
        bad = []
        for (t, exe), ks in sorted(keys.items()):
            distinct = {k for k, _ in ks}
            runs = {i for _, i in ks}
            log(f"{t} ({exe}): {len(distinct)} key over builds {sorted(runs)}: {sorted(distinct)}")
            if len(distinct) != 1 or want not in next(iter(distinct)) or runs != {0, 1, 2}:
                bad.append((t, exe, sorted(distinct), sorted(runs)))
        if bad:
            fail(f"build tools not keyed once by the build ({want!r}): {bad}")

        gen = os.path.join(proj, "tools", "gen.sh")
        for i, imgs in enumerate(builds):
            scripts = [key(r) for r in imgs if r.get("script") and r["script"].endswith("gen.sh")]
            if not scripts or any(f"+script:{gen}#sha256:" not in k for k in scripts):
                fail(f"build {i}: the relative script is not keyed by its absolute path {gen}: {scripts}")
            progs = [r.get("exe") for r in imgs if r.get("filename") == "./prog"]
            if progs != [os.path.join(proj, "prog")]:
                fail(f"build {i}: ./prog is not named {os.path.join(proj, 'prog')}: {progs}")
        log(f"script keyed {scripts[0]!r}; ./prog named {progs[0]} in every build")
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        finish([sensor], d, ok)


if __name__ == "__main__":
    main()
