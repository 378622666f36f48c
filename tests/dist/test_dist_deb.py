#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Debian package (cmake/package.cmake), built and installed for real.

Builds the source in a build tree of its own (-DCMAKE_INSTALL_PREFIX=/usr
-DPL_TESTS=OFF: the binary only) and `cpack -G DEB` twice, at revisions 1 and
2; checks the package's files against tests/dist/deb_files.txt, its conffiles,
its Depends (dpkg-shlibdeps': a package for every library the binary links),
and lintian (errors and warnings fail; the package's overrides give their
reasons). Then, as root: dpkg -i; `plumbline config check` with no argument
finds the installed config; --version; the conffile edited, upgraded to
revision 2 with --force-confold, the edit kept; dpkg -r leaves only the
conffiles, dpkg -P nothing the package made (the operator's rules.d and the
state in /var/lib/plumbline included). The package is always purged at the
end. Skipped (77) when not root or without dpkg-deb or lintian (a failure
under PLUMBLINE_REQUIRE_BPF=1), and when plumbline is installed on this host
already or its paths exist: the test does not touch a real installation.
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenario"))
import scenario_lib as sl  # noqa: E402
from scenario_lib import Failure, fail  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
RULES_DIR, RULESD = "/usr/share/plumbline/rules", "/etc/plumbline/rules.d"
# the shipped rules' count, from the source's files
SHIPPED_RULES = sum(len(re.findall(r"^- rule:", open(os.path.join(SRC, "rules", "default", f)).read(), re.M))
                    for f in os.listdir(os.path.join(SRC, "rules", "default")) if f.endswith(".yaml"))
RULES = "usr/share/plumbline/rules/{rules/default/*.yaml}"
CONFFILES = ["/etc/logrotate.d/plumbline", "/etc/plumbline/plumbline.conf"]
CONF = "/etc/plumbline/plumbline.conf"
# what the maintainer scripts and the operator add beside the package's files
EXTRA = ["/var/lib/plumbline", "/usr/share/plumbline", "/usr/share/doc/plumbline",
         "/etc/systemd/system/multi-user.target.wants/plumbline.service",
         "/etc/systemd/system/plumbline.service"]
ENV = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
ENV.pop("DESTDIR", None)


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, env=ENV, **kw)
    if r.returncode:
        fail(f"{' '.join(cmd)}: exit {r.returncode}:\n{(r.stdout + r.stderr)[-3000:]}")
    return r.stdout


def build(tree):
    debs = []
    for rev in (1, 2):
        run(["cmake", "-S", SRC, "-B", tree, "-DCMAKE_INSTALL_PREFIX=/usr", "-DPL_TESTS=OFF",
             f"-DPL_DEB_REVISION={rev}"])
        run(["make", "-C", tree, "-j2"])
        run(["cpack", "-G", "DEB"], cwd=tree)
        deb = os.path.join(tree, f"plumbline_{version()}-{rev}_{arch()}.deb")
        if not os.path.isfile(deb):
            fail(f"cpack made no {deb}")
        keep = os.path.join(os.path.dirname(tree), os.path.basename(deb))
        shutil.move(deb, keep)
        debs.append(keep)
    return debs


def version():
    text = open(os.path.join(SRC, "CMakeLists.txt")).read()
    return re.search(r"project\(plumbline VERSION (\S+)", text).group(1)


def arch():
    return run(["dpkg", "--print-architecture"]).strip()


def listing(deb):
    """The package's paths: files, and directories that hold nothing (with a /)."""
    entries = []
    for line in run(["dpkg-deb", "-c", deb]).splitlines():
        mode, path = line.split()[0], line.split()[5]
        entries.append((mode, path[2:] if path.startswith("./") else path))
    paths = [p for _, p in entries if p]
    out = []
    for mode, p in entries:
        if not p:
            continue
        if mode.startswith("d"):
            if not any(q != p and q.startswith(p) for q in paths):
                out.append(p)
        else:
            out.append(p)
    return sorted(out), dict((p, m) for m, p in entries)


def expected():
    want = []
    for line in open(os.path.join(HERE, "deb_files.txt")):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line == RULES:
            want += [f"usr/share/plumbline/rules/{n}" for n in os.listdir(os.path.join(SRC, "rules/default"))
                     if n.endswith(".yaml")]
        else:
            want.append(line)
    return sorted(want)


def check_package(deb, tree):
    got, modes = listing(deb)
    want = expected()
    if got != want:
        fail(f"dpkg-deb -c differs from tests/dist/deb_files.txt: extra {sorted(set(got) - set(want))}, "
             f"missing {sorted(set(want) - set(got))}")
    for path, mode in (("usr/sbin/plumbline", "-rwxr-xr-x"), ("etc/plumbline/plumbline.conf", "-rw-r--r--"),
                       ("lib/systemd/system/plumbline.service", "-rw-r--r--")):
        if modes.get(path) != mode:
            fail(f"{path}: mode {modes.get(path)}, expected {mode}")
    ctl = os.path.join(tree, "..", "control")
    run(["dpkg-deb", "-e", deb, ctl])
    conffiles = sorted(open(os.path.join(ctl, "conffiles")).read().split())
    if conffiles != CONFFILES:
        fail(f"conffiles: {conffiles}, expected {CONFFILES}")
    depends = run(["dpkg-deb", "-f", deb, "Depends"]).strip()
    # dpkg-shlibdeps': the package of every library the binary links, versioned from its shlibs
    needed = re.findall(r"NEEDED\s+(\S+)", run(["objdump", "-p", os.path.join(tree, "plumbline")]))
    if not depends or len(needed) < 5:
        fail(f"Depends {depends!r}, NEEDED {needed}")
    names = [d.split()[0] for d in depends.split(", ")]
    resolved = dict(re.findall(r"^\s*(\S+) => (/\S+)", run(["ldd", os.path.join(tree, "plumbline")]), re.M))
    for soname in needed:
        if soname not in resolved:
            fail(f"ldd does not resolve {soname}")
        r = subprocess.run(["dpkg", "-S", resolved[soname]], capture_output=True, text=True)
        if r.returncode:
            r = subprocess.run(["dpkg", "-S", os.path.realpath(resolved[soname])], capture_output=True, text=True)
        owner = r.stdout.split(":")[0]
        if r.returncode or owner not in names:
            fail(f"Depends has no {owner} (the package of {soname}): {depends}")
    if not re.search(r"libc6 \(>= [0-9.]+\)", depends):
        fail(f"Depends has no versioned libc6, as dpkg-shlibdeps gives: {depends}")
    r = subprocess.run(["lintian", "--fail-on", "error,warning", "--tag-display-limit", "0", deb],
                       capture_output=True, text=True)
    tags = [line for line in r.stdout.splitlines() if re.match(r"^[EW]: ", line)]
    if r.returncode or tags:
        fail(f"lintian (exit {r.returncode}):\n{r.stdout}{r.stderr}")
    print(f"package: {len(got)} paths as listed, conffiles {conffiles}, Depends covers {len(needed)} libraries, "
          "lintian clean")
    return got


def installed():
    r = subprocess.run(["dpkg-query", "-W", "-f", "${Status} ${Version}", "plumbline"], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ""


def lifecycle(debs, paths):
    before = {p for p in paths + EXTRA if os.path.lexists("/" + p.lstrip("/"))}
    run(["dpkg", "-i", debs[0]])
    if installed() != f"install ok installed {version()}-1":
        fail(f"after dpkg -i: {installed()!r}")
    # the installed file, its two settings (json, no-live: the unit's), and the
    # installed rules with the empty local directory after them
    out = run(["/usr/sbin/plumbline", "config", "check"])
    if out != f"2 settings OK\n{SHIPPED_RULES} rules OK from {RULES_DIR}, {RULESD} (0 warnings)\n":
        fail(f"plumbline config check with no argument: {out!r}")
    out = run(["/usr/sbin/plumbline", "--version"])
    if not out.startswith(f"plumbline {version()} "):
        fail(f"plumbline --version: {out!r}")
    wants = "/etc/systemd/system/multi-user.target.wants/plumbline.service"
    if shutil.which("deb-systemd-helper") and not os.path.islink(wants):
        fail(f"postinst did not enable the unit ({wants})")
    # the operator's: a setting in the conffile, a rule, and state the sensor made
    with open(CONF, "a") as f:
        f.write("sample-hz = 49\n")
    with open(f"{RULESD}/local.yaml", "w") as f:  # a rule of the site's own, and a shipped one changed
        f.write("- rule: Site rule\n  desc: the site's\n  condition: proc.exe_name = site-tool\n"
                "  output: site-tool ran\n  priority: NOTICE\n"
                "- rule: Open retry storm\n  priority: DEBUG\n  override:\n    priority: replace\n")
    os.makedirs("/var/lib/plumbline", mode=0o700, exist_ok=True)
    with open("/var/lib/plumbline/state", "w") as f:
        f.write("x\n")
    run(["dpkg", "-i", "--force-confold", debs[1]])
    if installed() != f"install ok installed {version()}-2":
        fail(f"after the upgrade: {installed()!r}")
    if not open(CONF).read().endswith("sample-hz = 49\n"):
        fail("the upgrade lost the edit of the conffile")
    out = run(["/usr/sbin/plumbline", "config", "check"])
    if out != f"3 settings OK\n{SHIPPED_RULES + 1} rules OK from {RULES_DIR}, {RULESD} (0 warnings)\n":
        fail(f"plumbline config check after the upgrade: {out!r}")
    # the local rules add to the shipped ones and change one: what run loads
    listed = run(["/usr/sbin/plumbline", "rules", "list"]).splitlines()
    if len(listed) != SHIPPED_RULES + 1 or not listed[-1].endswith(" Site rule") or \
            not any(x.startswith("on  Debug ") and x.endswith(" Open retry storm") for x in listed):
        fail(f"rules list after the local rules: {listed}")
    run(["dpkg", "-r", "plumbline"])
    if not installed().startswith("deinstall ok config-files"):
        fail(f"after dpkg -r: {installed()!r}")
    left = sorted(p for p in paths if os.path.lexists("/" + p) and "/" + p not in CONFFILES
                  and not os.path.isdir("/" + p) and p not in before)
    if left or not all(os.path.isfile(c) for c in CONFFILES):
        fail(f"after dpkg -r: left {left}; the conffiles must stay")
    run(["dpkg", "-P", "plumbline"])
    if installed() not in ("", "unknown ok not-installed"):
        fail(f"after dpkg -P: {installed()!r}")
    left = sorted(p for p in paths + EXTRA if os.path.lexists("/" + p.lstrip("/")) and p not in before)
    if left or os.path.lexists("/etc/plumbline"):
        fail(f"after dpkg -P, still there: {left}")
    print(f"dpkg: installed, config check finds {CONF}, upgrade -1 to -2 kept the conffile edit, "
          "remove kept only the conffiles, purge left nothing")


def main():
    if os.geteuid() != 0:
        sl.skip("not root: dpkg -i needs root")
    for tool in ("dpkg-deb", "lintian", "cpack", "objdump", "ldd"):
        if not shutil.which(tool):
            sl.skip(f"{tool} not found (scripts/install-deps.sh --tests)")
    if installed() and not installed().startswith("unknown ok not-installed"):
        sl.skip(f"plumbline is installed on this host ({installed()}): not touching it", bpf=False)
    for p in ("/etc/plumbline", "/usr/share/plumbline", "/usr/sbin/plumbline", "/var/lib/plumbline",
              "/lib/systemd/system/plumbline.service"):
        if os.path.lexists(p):
            sl.skip(f"{p} exists (an installation not from the package): not touching it", bpf=False)
    d = sl.temp_dir("pl-deb-")
    try:
        debs = build(os.path.join(d, "build"))
        paths = check_package(debs[0], os.path.join(d, "build"))
        lifecycle(debs, paths)
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
    finally:
        if installed() and not installed().startswith("unknown ok not-installed"):
            subprocess.run(["dpkg", "-P", "plumbline"], capture_output=True, env=ENV)
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
