#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_memfd_copy.py - runc's shape (a sealed memfd copy of its own binary,
re-executed) is not fileless malware; the same exec with anything else is.

The real sensor, shipped rules. A small C program, built by the test into a
root-owned directory (so that its binary is one only root could have
placed), copies a binary into a memfd and execs it from there, as runc does
at every container start since its fix for CVE-2019-5736:

  self-sealed    its own binary, sealed (write, grow, shrink, seal): no alert,
                 the exec record says exe_kind memfd;
  self-unsealed  its own binary, not sealed: "Fileless or deleted executable";
  other-sealed   /bin/sleep's content (not its previous image's, not its
                 parent's), sealed: the alert.

Each variant's re-executed image lives 1.5 s (the sensor reads its seals and
content through /proc/PID/exe). Exact: one alert per alerting variant, for
its pid, at exec; none for the sealed copy.

argv: PLUMBLINE_BINARY. Needs root, BPF, gcc; else skips (77).
"""
import os
import shutil
import subprocess
import sys
import time

SENSOR = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, fail, finish, log, skip  # noqa: E402

RULE = "Fileless or deleted executable"

PROG = r"""
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		usleep(1500 * 1000); /* the re-executed image: long enough to be looked at */
		return 0;
	}
	if (argc < 2)
		return 2;
	int sealed = strcmp(argv[1], "self-unsealed") != 0;
	const char *src = strcmp(argv[1], "other-sealed") == 0 ? "/bin/sleep" : "/proc/self/exe";
	/* each its own name: the rule's throttle is per executable */
	int in = open(src, O_RDONLY | O_CLOEXEC), fd = memfd_create(argv[1], MFD_CLOEXEC | (sealed ? MFD_ALLOW_SEALING : 0));
	struct stat st;
	if (in < 0 || fd < 0 || fstat(in, &st) < 0)
		return 3;
	for (off_t off = 0; off < st.st_size;)
		if (sendfile(fd, in, &off, (size_t)(st.st_size - off)) <= 0)
			return 4;
	if (sealed && fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) < 0)
		return 5;
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	printf("%d\n", (int)getpid());
	fflush(stdout);
	/* sleep's child mode is its argument: 1.5 s too */
	char *args_self[] = { argv[0], "child", NULL }, *args_sleep[] = { "sleep", "1.5", NULL };
	fcntl(fd, F_SETFD, 0);
	execv(path, src[1] == 'b' ? args_sleep : args_self);
	return 6;
}
"""


def main():
    sl.need_bpf("the sensor loads BPF")
    if not shutil.which("gcc"):
        skip("no gcc")
    d = sl.temp_dir("pl-memfd-")
    sensor = None
    ok = False
    try:
        os.chmod(d, 0o755)
        src, prog = os.path.join(d, "reexec.c"), os.path.join(d, "bin", "reexec")
        os.makedirs(os.path.dirname(prog), mode=0o755)
        with open(src, "w") as f:
            f.write(PROG)
        subprocess.run(["gcc", "-O1", "-o", prog, src], check=True)
        os.chmod(prog, 0o755)
        sensor = sl.Sensor(d, "sensor", SENSOR)
        pids = {}
        for mode in ("self-sealed", "self-unsealed", "other-sealed"):
            out = subprocess.run([prog, mode], capture_output=True, text=True, timeout=20)
            if out.returncode != 0:
                fail(f"reexec {mode} exited {out.returncode}: {out.stderr}")
            pids[mode] = int(out.stdout.split()[0])
        want = {pids["self-unsealed"], pids["other-sealed"]}
        deadline = time.time() + 10
        while True:
            recs = sensor.records()
            alerts = [r for r in recs if r.get("type") == "alert" and r.get("rule") == RULE
                      and r.get("pid") in pids.values()]
            if {a["pid"] for a in alerts} >= want or time.time() > deadline:
                break
            time.sleep(0.2)
        time.sleep(1)
        recs = sensor.records()
        alerts = [r for r in recs if r.get("type") == "alert" and r.get("rule") == RULE
                  and r.get("pid") in pids.values()]
        for mode, pid in pids.items():
            ex = [r for r in recs if r.get("type") == "exec" and r.get("pid") == pid and r.get("exe_kind") == "memfd"]
            if not ex:
                fail(f"{mode}: no memfd exec record for pid {pid}")
            got = [a for a in alerts if a["pid"] == pid]
            n_want = 0 if mode == "self-sealed" else 1
            if len(got) != n_want:
                fail(f"{mode} (pid {pid}): {len(got)} '{RULE}' alerts, expected {n_want}: "
                     f"{[a.get('output') for a in got]}")
            if got and got[0].get("when") != "exec":
                fail(f"{mode}: alert raised at {got[0].get('when')}, not at exec")
            tta = f", time-to-alert {(got[0]['time_ns'] - ex[0]['time_ns']) / 1e6:.0f} ms" if got else ""
            log(f"{mode}: pid {pid}, exe {ex[0].get('exe')}, {len(got)} alert(s){tta}")
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        finish([sensor], d, ok)


if __name__ == "__main__":
    main()
