#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The systemd unit, as `cmake --install` installs it.

verify: install the build into a temporary DESTDIR (prefix /usr), check the
unit is where it belongs (/lib/systemd/system) and names the installed binary
and config, then run
`systemd-analyze verify` on it, with ExecStart pointed at the binary the
install put under DESTDIR (the only change: verify checks that the binary
exists). Any output at all fails the test: systemd-analyze prints warnings
(unknown keys, bad values) without failing.

start: only where PID 1 is systemd (otherwise exit 77 with the reason): the
same unit under a name and directories of its own, started with systemctl
(Type=notify: start returns once READY=1 came), must be active, its main
process must hold NoNewPrivs and only the capabilities the sensor keeps;
then it is stopped and removed.
"""
import os
import re
import shutil
import subprocess
import sys
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenario"))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, fail  # noqa: E402

KEPT = "0000000000080004"  # CAP_DAC_READ_SEARCH | CAP_SYS_PTRACE


def install(build, destdir):
    r = subprocess.run(["cmake", "--install", build, "--prefix", "/usr"], env=dict(os.environ, DESTDIR=destdir),
                       capture_output=True, text=True)
    if r.returncode:
        fail(f"cmake --install failed: {r.stderr}")
    units = []
    for root, _, files in os.walk(destdir):
        units += [os.path.join(root, f) for f in files if f == "plumbline.service"]
    if len(units) != 1:
        fail(f"expected one installed plumbline.service, found {units}")
    rel = os.path.relpath(os.path.dirname(units[0]), destdir)
    # cmake/dist.cmake: PREFIX/lib/systemd/system, but /lib/systemd/system for
    # the prefix /usr (Debian 12's systemdsystemunitdir, the package's place)
    want = "lib/systemd/system"
    if rel != want:
        fail(f"unit installed to /{rel}, expected /{want}")
    text = open(units[0]).read()
    m = re.search(r"^ExecStart=(\S+) ", text, re.M)
    if not m or m.group(1) != "/usr/sbin/plumbline":
        fail(f"ExecStart does not name the installed binary /usr/sbin/plumbline: {m and m.group(0)}")
    # the config file alone decides: no option beside it to override its keys
    if not re.search(r"^ExecStart=\S+ run --config /etc/plumbline/plumbline\.conf$", text, re.M):
        fail("ExecStart does not name the installed config /etc/plumbline/plumbline.conf")
    binary = os.path.join(destdir, "usr/sbin/plumbline")
    if not os.access(binary, os.X_OK):
        fail(f"{binary} was not installed")
    for key in ("Type=notify", "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=read-only",
                "PrivateTmp=yes", "StateDirectory=plumbline", "LogsDirectory=plumbline",
                "ExecReload=/bin/kill -HUP $MAINPID", "Restart=on-failure"):
        if not re.search(rf"^{re.escape(key)}$", text, re.M):
            fail(f"the unit has no {key}")
    if re.search(r"^WatchdogSec=", text, re.M):
        fail("WatchdogSec= set, but the sensor sends no WATCHDOG=1")
    return text.replace("ExecStart=/usr/sbin/plumbline", f"ExecStart={binary}", 1)


def verify(text, d):
    os.makedirs(os.path.join(d, "verify"))
    path = os.path.join(d, "verify", "plumbline.service")
    with open(path, "w") as f:
        f.write(text)
    r = subprocess.run(["systemd-analyze", "verify", path], capture_output=True, text=True)
    out = (r.stdout + r.stderr).strip()
    if r.returncode or out:
        fail(f"systemd-analyze verify (exit {r.returncode}):\n{out}")
    # the check itself catches a warning: an unknown key must be reported
    with open(path, "w") as f:
        f.write(text.replace("[Service]\n", "[Service]\nNoSuchKeyForTheTest=1\n", 1))
    r = subprocess.run(["systemd-analyze", "verify", path], capture_output=True, text=True)
    if "NoSuchKeyForTheTest" not in r.stdout + r.stderr:
        fail("systemd-analyze verify does not report an unknown key: the check proves nothing")
    print("systemd-analyze verify: clean")


def start(text):
    with open("/proc/1/comm") as f:
        init = f.read().strip()
    if init != "systemd":
        sl.skip(f"PID 1 is {init!r}, not systemd: the unit cannot be started here (verify passed)", bpf=False)
    name = f"plumbline-test-{uuid.uuid4().hex[:8]}"
    text = text.replace("Directory=plumbline\n", f"Directory={name}\n")
    text = text.replace("/var/log/plumbline/", f"/var/log/{name}/")
    # the shipped config's settings for the service (json, no-live), with this test's own paths
    text = re.sub(r"^(ExecStart=\S+ run) --config \S+",
                  rf"\1 --no-config --no-live --json /var/log/{name}/records.jsonl --state-dir /var/lib/{name}",
                  text, flags=re.M)
    unit = f"/run/systemd/system/{name}.service"
    with open(unit, "w") as f:
        f.write(text)
    try:
        subprocess.run(["systemctl", "daemon-reload"], check=True)
        r = subprocess.run(["systemctl", "start", f"{name}.service"], capture_output=True, text=True, timeout=60)
        if r.returncode:
            fail(f"systemctl start: {r.stderr}")
        show = subprocess.run(["systemctl", "show", "-p", "ActiveState", "-p", "MainPID", f"{name}.service"],
                              capture_output=True, text=True, check=True).stdout
        props = dict(line.split("=", 1) for line in show.split())
        if props.get("ActiveState") != "active":
            fail(f"not active after start: {props}")
        with open(f"/proc/{props['MainPID']}/status") as f:
            status = f.read()
        for k, v in (("CapEff", KEPT), ("CapPrm", KEPT), ("CapBnd", KEPT), ("NoNewPrivs", "1"), ("Seccomp", "2")):
            if not re.search(rf"^{k}:\s+{v}$", status, re.M):
                fail(f"the service's main process: {k} is not {v}")
        print(f"{name}: active, READY=1 received, privileges dropped")
    finally:
        subprocess.run(["systemctl", "stop", f"{name}.service"], capture_output=True)
        os.unlink(unit)
        subprocess.run(["systemctl", "daemon-reload"])
        for base in ("/var/lib", "/var/log", "/run"):
            shutil.rmtree(os.path.join(base, name), ignore_errors=True)


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("verify", "start"):
        print("usage: test_systemd_unit.py BUILD_DIR verify|start", file=sys.stderr)
        sys.exit(1)
    if not shutil.which("systemd-analyze"):
        sl.skip("systemd-analyze not found (Debian's systemd package)", bpf=False)
    d = sl.temp_dir("pl-unit-")
    try:
        text = install(sys.argv[1], os.path.join(d, "dest"))
        if sys.argv[2] == "verify":
            verify(text, d)
        else:
            if os.geteuid() != 0:
                sl.skip("needs root to start a service", bpf=False)
            start(text)
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
