#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_json_full.py - the JSON output's filesystem fills up during a run.
The JSON file is on an 8 MiB tmpfs mounted in a private
temp dir; a filler file takes the rest of it while the sensor runs, then is
deleted. Asserted:
  - the failure is reported once per episode ("Cannot write records to PATH:
    No space left on device"), not per record: on a filesystem with a few
    bytes left a short record may still fit where a long one did not, and
    each such episode ends with its own "Recovered" and count;
  - the sensor keeps running, and writing resumes once space returns
    ("Recovered: ... N records lost meanwhile");
  - the counts add up exactly: the last stats record's output.dropped equals
    N, and the lines in the file equal its output.written + 1 (the stats
    record itself); every line in the file is whole JSON;
  - the last loss alert's losses_total.output_dropped is the same N (the
    alerts raised while the disk was full were lost too, and counted).
usage: test_json_full.py PLUMBLINE NOOP
"""
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenario"))
import scenario_lib as sl  # noqa: E402


def main():
    plumbline, noop = sys.argv[1:3]
    sl.need_bpf("the sensor's BPF and mount need root")
    d = sl.temp_dir("pl-jsonfull-")
    mnt = os.path.join(d, "mnt")
    os.mkdir(mnt)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m,mode=0700", "pl-jsonfull", mnt]).returncode != 0:
        sl.skip("cannot mount a tmpfs")
    s = None
    ok = False
    try:
        path = os.path.join(mnt, "records.jsonl")
        # the last --json wins: the harness's own is replaced by the tmpfs
        s = sl.Sensor(d, "full", plumbline, extra=
                      ["--no-baselines", "--stats-interval", "1", "--loss-alert-interval", "1", "--json", path])
        s.json = path
        time.sleep(1.5)
        filler = os.path.join(mnt, "filler")
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            while True:
                os.write(fd, b"\0" * 4096)
        except OSError as e:
            sl.log(f"filler: {os.path.getsize(filler)} bytes, then {e.strerror}")
        finally:
            os.close(fd)
        for _ in range(20):
            subprocess.run([noop])
        time.sleep(3)
        if s.p.poll() is not None:
            sl.fail("the sensor exited with its JSON filesystem full: " + s.log_text())
        log = s.log_text()
        fails = re.findall(r"Cannot write records to (\S+): No space left on device", log)
        if not fails or set(fails) != {s.json}:
            sl.fail(f"expected ENOSPC reports naming {s.json}, got {fails}: {log}")
        os.unlink(filler)
        for _ in range(5):
            subprocess.run([noop])
        time.sleep(2.5)
        log = s.log_text()
        fails = re.findall(r"Cannot write records to (\S+): No space left on device", log)
        rec = re.findall(r"Recovered: records to (\S+) are written again; (\d+) records lost meanwhile", log)
        if not rec or len(rec) != len(fails) or {p for p, _ in rec} != {s.json}:
            sl.fail(f"{len(fails)} failure reports, {len(rec)} recoveries after space returned: {log}")
        lost = sum(int(n) for _, n in rec)
        s.stop()
        with open(s.json) as f:
            lines = f.read().split("\n")
        if lines[-1] != "":
            sl.fail("the file does not end with a whole line")
        recs = [json.loads(l) for l in lines[:-1]]
        if recs[-1].get("type") != "stats":
            sl.fail(f"the last line is not the final stats record ({recs[-1].get('type')}): the file system filled again?")
        st = recs[-1]
        if st["output"]["dropped"] != lost:
            sl.fail(f"stats output.dropped {st['output']['dropped']} != {lost} reported lost")
        if len(recs) != st["output"]["written"] + 1:
            sl.fail(f"{len(recs)} lines in the file, stats output.written {st['output']['written']} + 1")
        la = [r for r in recs if r.get("rule") == "Sensor lost events"]
        # alerts raised while the disk was full were themselves lost (and counted):
        # the last one, written after space returned, has the whole count
        got = la[-1]["evidence"]["losses_total"].get("output_dropped", 0) if la else 0
        if got != lost:
            sl.fail(f"the last loss alert counts {got} output_dropped, {lost} were lost")
        sl.log(f"{lost} records lost while full, {len(fails)} episode(s) each reported once; {st['output']['written']} written; "
               f"{len(la)} loss alert(s) agree")
        ok = True
    except sl.Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        try:
            sl.finish([s], d, ok)
        finally:
            subprocess.run(["umount", "-l", mnt])


if __name__ == "__main__":
    sys.exit(main())
