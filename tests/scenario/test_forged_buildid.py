#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_forged_buildid.py - a build-id is a claim: a program linked by an
unprivileged user with a system binary's build-id does not get its identity.

As `nobody`, in a directory of its own, a tiny C program is linked with
`-Wl,--build-id=0x<the build-id of /usr/bin/true>` (read with readelf -n).
Run by nobody under the real sensor, it execs itself once, so that parent and
child are both forged, as a forged sshd login child would be. Their records
carry the claim as `build_id`, but their `binary_id` is the content hash
("sha256:..."), never /usr/bin/true's "build-id:...", and the child's baseline
key names no build-id. /usr/bin/true itself, root's in root's directories,
is still known by its build-id.

argv: PLUMBLINE_BINARY. Needs root, BPF, cc and readelf; skips (77) otherwise
unless PLUMBLINE_REQUIRE_BPF=1.
"""
import os
import pwd
import re
import shutil
import subprocess
import sys
import time

SENSOR = os.path.abspath(sys.argv[1])
REAL = "/usr/bin/true"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario_lib as sl  # noqa: E402
from scenario_lib import fail, finish, log, skip  # noqa: E402

FORGED_C = r"""
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int st;
	pid_t pid;

	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		usleep(300000); /* alive while its hash is computed */
		return 0;
	}
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", argv[0], "child", (char *)0);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	return 0;
}
"""


def build_id_of(path):
    out = subprocess.run(["readelf", "-n", path], check=True, capture_output=True, text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    return m.group(1) if m else None


def as_user(pw):
    def drop():
        os.setgroups([])
        os.setgid(pw.pw_gid)
        os.setuid(pw.pw_uid)
    return drop


def exit_record(sensor, pid):
    for r in sensor.records():
        if r.get("type") == "process" and r.get("pid") == pid and r.get("end_reason") == "exit":
            return r
    return None


def run_forged(sensor, forged, pw, env):
    """Run the forged pair as nobody; the exit records of (parent, child)
    once both are in (the child is the parent's one child)."""
    p = subprocess.Popen([forged], preexec_fn=as_user(pw), env=env)
    if p.wait(timeout=30) != 0:
        fail(f"{forged} exited {p.returncode}")
    parent = sl.wait_for(f"the exit record of pid {p.pid}", lambda: exit_record(sensor, p.pid))
    child = sl.wait_for(f"the exit record of pid {p.pid}'s child", lambda: next(
        (r for r in sensor.records() if r.get("type") == "process" and r.get("ppid") == p.pid
         and r.get("end_reason") == "exit"), None))
    return parent, child


def main():
    sl.need_bpf()
    for tool in ("cc", "readelf"):
        if not shutil.which(tool):
            skip(f"{tool} not found", bpf=False)
    want = build_id_of(REAL)
    if not want:
        skip(f"{REAL} has no build-id", bpf=False)
    st = os.stat(REAL)
    if st.st_uid != 0 or st.st_mode & 0o022:
        skip(f"{REAL} is not root's alone", bpf=False)
    try:
        pw = pwd.getpwnam("nobody")
    except KeyError:
        skip("no user nobody", bpf=False)
    d = sl.temp_dir("pl-forged-")
    os.chmod(d, 0o755)
    home = os.path.join(d, "nobody")
    os.mkdir(home, 0o755)
    os.chown(home, pw.pw_uid, pw.pw_gid)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "TMPDIR": home}
    src, forged = os.path.join(home, "forged.c"), os.path.join(home, "forged")
    sensor = None
    ok = False
    try:
        subprocess.run(["sh", "-c", f"cat > {src}"], input=FORGED_C, text=True, check=True,
                       preexec_fn=as_user(pw), env=env)
        subprocess.run(["cc", "-O1", "-o", forged, src, f"-Wl,--build-id=0x{want}"], check=True,
                       preexec_fn=as_user(pw), env=env, cwd=home)
        if build_id_of(forged) != want:
            fail(f"the linker did not write build-id {want} into {forged}")
        log(f"{forged} (nobody's) claims {REAL}'s build-id {want}")
        sensor = sl.Sensor(d, "sensor", SENSOR)
        real = subprocess.Popen([REAL])
        real.wait(timeout=30)
        r = sl.wait_for(f"the exit record of {REAL}", lambda: exit_record(sensor, real.pid))
        if r.get("binary_id") != f"build-id:{want}":
            fail(f"{REAL} is keyed {r.get('binary_id')!r}, not by its build-id")
        # the first run's child may end before its hash is known (binary_id
        # null, docs/records.md): run again until the hash is cached
        deadline = time.monotonic() + 20
        while True:
            parent, child = run_forged(sensor, forged, pw, env)
            if child.get("binary_id") and parent.get("binary_id") or time.monotonic() > deadline:
                break
        for who, rec in (("parent", parent), ("child", child)):
            bid = rec.get("binary_id")
            log(f"forged {who} pid {rec['pid']}: build_id {rec.get('build_id')}, binary_id {bid}")
            if rec.get("build_id") != want:
                fail(f"the forged {who}'s record does not show the build-id it claims: {rec.get('build_id')!r}")
            if not bid or not re.fullmatch(r"sha256:[0-9a-f]{64}", bid):
                fail(f"the forged {who} is keyed {bid!r}, not by its content hash")
        key = (child.get("baseline") or {}).get("key")
        log(f"forged child's baseline key: {key}")
        want_key = f"{child['binary_id']}@{parent['binary_id']}"
        if key != want_key:
            fail(f"the forged child's baseline key is {key!r}, not its own and its parent's {want_key!r}")
        ok = True
    finally:
        finish([sensor], d, ok)


if __name__ == "__main__":
    main()
