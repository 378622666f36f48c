#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
stack_quality.py - how deep and how right the sensor's user stacks are, on
the distribution's own programs.

    tests/bench/stack_quality.py BUILD_DIR [HZ]

Run as root. The real sensor (BUILD_DIR/plumbline, --sample-hz HZ, default
997) runs with one rule that asks for the stacks of every process that used
at least 20 ms of CPU, while ordinary programs do ordinary work: Python,
Perl, bash and dash loops, gzip, sort, sha256sum, find, xz, a C compile with
gcc, and pl_chain (a program without frame pointers whose call chain is
known). Per program it prints the samples its alerts carry, the share of
them whose user stack was walked to its outermost frame, the user frames
per sample, and why the other stacks were cut (the "[stack cut]" root
frame's reason). For pl_chain it also prints the share of samples holding
the whole known chain main > plchain_1 > ... > plchain_6 > plchain_spin.
"""
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

CHAIN = ["main"] + ["plchain_%d" % i for i in range(1, 7)] + ["plchain_spin"]
RULE = """- rule: every stack
  desc: the stacks of every process that used CPU
  condition: proc.cpu_ms >= 20
  output: "stacks of %proc.pid"
  priority: INFO
  evidence: [stacks]
"""


def workloads(build, tmp):
    big = os.path.join(tmp, "big")
    with open(big, "wb") as f:
        f.write(os.urandom(1 << 20) * 24)
    csrc = os.path.join(tmp, "w.c")
    with open(csrc, "w") as f:
        f.write("#include <stdio.h>\n" + "".join("int f%d(int x){return x*%d+%d;}\n" % (i, i, i) for i in range(3000))
                + "int main(void){printf(\"%d\\n\", f1(2));return 0;}\n")
    return [
        [os.path.join(build, "tests/bpf/pl_chain"), "1500"],
        ["python3", "-c", "import json\nfor i in range(3000): json.loads(json.dumps([list(range(200))] * 20))"],
        ["perl", "-e", "my %h; $h{$_ % 1000} .= $_ for 1..2000000"],
        ["bash", "-c", "x=0; for i in $(seq 150000); do x=$((x + i % 7)); done"],
        ["dash", "-c", "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done"],
        ["gzip", "-c", big],
        ["sort", "-R", big],
        ["sha256sum", big],
        ["xz", "-c", "-T1", "-3", big],
        ["find", "/usr", "-name", "*.h"],
        ["gcc", "-O1", "-c", csrc, "-o", os.path.join(tmp, "w.o")],
    ]


def main():
    if len(sys.argv) not in (2, 3) or os.geteuid() != 0:
        print(__doc__, file=sys.stderr)
        return 2
    build = os.path.abspath(sys.argv[1])
    hz = sys.argv[2] if len(sys.argv) == 3 else "997"
    tmp = tempfile.mkdtemp(prefix="plumbline-stackq.")
    try:
        rules = os.path.join(tmp, "rules.yaml")
        with open(rules, "w") as f:
            f.write(RULE)
        out = os.path.join(tmp, "out.jsonl")
        s = subprocess.Popen([os.path.join(build, "plumbline"), "run", "--no-live", "--no-syslog", "-q", "--json", out,
                              "--state-dir", os.path.join(tmp, "state"), "--rules", rules, "--sample-hz", hz])
        for _ in range(100):
            if os.path.exists(out) and os.path.getsize(out):
                break
            time.sleep(0.1)
        time.sleep(1)
        for w in workloads(build, tmp):
            subprocess.run(w, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        time.sleep(1.5)
        s.send_signal(2)
        s.wait(30)
        per = collections.defaultdict(lambda: {"samples": 0, "kept": 0, "whole": 0, "frames": 0, "chain": 0,
                                               "cuts": collections.Counter()})
        wanted = {os.path.basename(w[0]) for w in workloads(build, tmp)}
        with open(out) as f:
            for line in f:
                r = json.loads(line)
                if r.get("type") != "alert" or r.get("when") != "exit":
                    continue
                exe = os.path.basename(r.get("exe") or "?")
                st = (r.get("evidence") or {}).get("stacks")
                if not st:
                    continue
                p = per[exe]
                p["samples"] += st["samples"]
                for t in st.get("top", []):
                    fr = [x for x in t["frames"] if not x.get("kernel")]
                    n = t["samples"]
                    p["kept"] += n
                    if fr and fr[0].get("object") == "[stack cut]":
                        p["cuts"][fr[0].get("function")] += n
                        fr = fr[1:]
                    elif fr:
                        p["whole"] += n
                    p["frames"] += n * len(fr)
                    names = [x.get("function") for x in fr]
                    if any(names[i:i + len(CHAIN)] == CHAIN for i in range(len(names))):
                        p["chain"] += n
        print("%-14s %8s %8s %8s %8s  %s" % ("program", "samples", "listed", "whole", "frames", "cut by"))
        for exe in sorted(per, key=lambda e: -per[e]["samples"]):
            p = per[exe]
            if not any(exe.startswith(w) for w in wanted) or not p["kept"]:
                continue
            cuts = ", ".join("%s %d" % kv for kv in p["cuts"].most_common(3)) or "-"
            print("%-14s %8d %7.1f%% %7.1f%% %8.1f  %s" % (exe, p["samples"], 100.0 * p["kept"] / max(p["samples"], 1),
                                                       100.0 * p["whole"] / p["kept"], p["frames"] / p["kept"], cuts))
            if exe == "pl_chain":
                print("%-14s the whole known chain in %.1f%% of its samples" % ("", 100.0 * p["chain"] / p["samples"]))
        print("\nlisted: samples in the stacks an alert lists (at most 32); whole: of those, the user stack walked to its"
              " outermost frame; frames: user frames per listed sample")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
