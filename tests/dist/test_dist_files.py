#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What `cmake --install` of the build installs, and where (cmake/dist.cmake).

- `cmake --install BUILD --prefix TMP/p` installs exactly the files of
  tests/dist/prefix_files.txt (a line ending in / is an empty directory;
  share/plumbline/rules/{rules/default/*.yaml} stands for the source's shipped
  rules), the unit's ExecStart names TMP/p's binary and TMP/p's config, which
  the installed binary's `config check` accepts; the build tree gains or
  changes nothing but install_manifest.txt.
- DESTDIR=TMP/d with --prefix /usr: the same files under TMP/d, with /etc and
  /lib/systemd/system for the config and the unit, and ExecStart naming
  /usr/sbin/plumbline and /etc/plumbline/plumbline.conf.
- The man pages render clean with `groff -man -ww -z` (a deliberate warning is
  seen: the check can fail), and name every option of `plumbline run --help`
  and every key of the config file.
- The logrotate file, run by logrotate on a copy naming a temp file: the
  records renamed, then its postrotate.
- The bash completion, in a real bash: `plumbline con<TAB>` gives config,
  `plumbline run --con<TAB>` --config, ...; and for every command it offers
  every option its --help lists, and none the help does not mention.
"""
import gzip
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
RULES = "share/plumbline/rules/{rules/default/*.yaml}"


def expected(listing):
    want = []
    with open(listing) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line == RULES:
                want += [f"share/plumbline/rules/{n}" for n in os.listdir(os.path.join(SRC, "rules/default"))
                         if n.endswith(".yaml")]
            else:
                want.append(line)
    return sorted(want)


def tree(root):
    """Every file (relative) and every empty directory (with a trailing /)."""
    out = []
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        out += [os.path.normpath(os.path.join(rel, f)) for f in files]
        if not dirs and not files and d != root:
            out.append(rel + "/")
    return sorted(out)


def snapshot(build):
    """The build tree's files with their mtime and size (ctest's own Testing/ aside)."""
    snap = {}
    for d, dirs, files in os.walk(build):
        if d == build and "Testing" in dirs:
            dirs.remove("Testing")
        for f in files:
            p = os.path.join(d, f)
            try:
                st = os.lstat(p)
            except FileNotFoundError:
                continue
            snap[os.path.relpath(p, build)] = (st.st_mtime_ns, st.st_size)
    return snap


def install(build, prefix, destdir=None):
    env = dict(os.environ)
    env.pop("DESTDIR", None)
    if destdir:
        env["DESTDIR"] = destdir
    r = subprocess.run(["cmake", "--install", build, "--prefix", prefix], env=env, capture_output=True, text=True)
    if r.returncode:
        fail(f"cmake --install --prefix {prefix} failed: {r.stderr}")


def compare(got, want, where):
    if got != want:
        extra = sorted(set(got) - set(want))
        missing = sorted(set(want) - set(got))
        fail(f"{where}: installed files differ from tests/dist/prefix_files.txt: extra {extra}, missing {missing}")


def exec_start(unit, binary, conf):
    text = open(unit).read()
    m = re.search(r"^ExecStart=(\S+) run --config (\S+)$", text, re.M)
    if not m or m.group(1) != binary or m.group(2) != conf:
        fail(f"{unit}: ExecStart does not name {binary} and {conf}: {m and m.group(0)}")


def check_prefix(build, d, want):
    before = snapshot(build)
    manifest = os.path.join(build, "install_manifest.txt")
    p = os.path.join(d, "p")
    install(build, p)
    after = snapshot(build)
    changed = sorted(k for k in set(before) | set(after)
                     if before.get(k) != after.get(k) and k != "install_manifest.txt")
    if changed:
        fail(f"cmake --install wrote into the build tree: {changed[:10]}")
    got = tree(p)
    compare(got, want, f"--prefix {p}")
    exec_start(os.path.join(p, "lib/systemd/system/plumbline.service"), f"{p}/sbin/plumbline",
               f"{p}/etc/plumbline/plumbline.conf")
    listed = open(manifest).read().split()
    if f"{p}/lib/systemd/system/plumbline.service" not in listed:
        fail("install_manifest.txt does not list the unit")
    # the installed binary reads the rules of the prefix it was built for
    # (cmake --install --prefix moves files, not compiled-in defaults), so
    # the installed file is checked with the installed rules named in it
    conf = os.path.join(d, "check.conf")
    with open(f"{p}/etc/plumbline/plumbline.conf") as f, open(conf, "w") as o:
        o.write(f.read() + f"rules = {p}/share/plumbline/rules\n")
    os.chmod(conf, 0o644)
    r = subprocess.run([f"{p}/sbin/plumbline", "config", "check", conf], capture_output=True, text=True)
    if r.returncode or not re.match(rf"3 settings OK\n\d+ rules OK from {re.escape(p)}/share/plumbline/rules", r.stdout):
        fail(f"the installed config does not check: exit {r.returncode}: {r.stdout}{r.stderr}")
    print(f"--prefix: {len(got)} entries as listed, unit names {p}'s binary and config, build tree untouched")
    return p


def check_destdir(build, d, want):
    dest = os.path.join(d, "dest")
    install(build, "/usr", dest)
    moved = sorted(w if w.startswith(("etc/", "lib/systemd/")) else "usr/" + w for w in want)
    compare(tree(dest), moved, f"DESTDIR={dest} --prefix /usr")
    exec_start(os.path.join(dest, "lib/systemd/system/plumbline.service"), "/usr/sbin/plumbline",
               "/etc/plumbline/plumbline.conf")
    print(f"DESTDIR: {len(moved)} entries under {dest}, /etc and /lib/systemd/system for /usr")


def groff(text):
    r = subprocess.run(["groff", "-man", "-ww", "-Tutf8", "-z"], input=text, capture_output=True, text=True)
    return r.returncode, r.stderr.strip()


def check_man(build, p):
    run_help = subprocess.run([os.path.join(build, "plumbline"), "run", "--help"],
                              capture_output=True, text=True, check=True).stdout
    keys = subprocess.run([os.path.join(build, "plumbline"), "config", "doc-table", "config"],
                          capture_output=True, text=True, check=True).stdout
    pages = {}
    for page in ("man8/plumbline.8.gz", "man5/plumbline.conf.5.gz"):
        with gzip.open(os.path.join(p, "share/man", page), "rt") as f:
            text = f.read()
        rc, err = groff(text)
        if rc or err:
            fail(f"{page} does not render clean (exit {rc}):\n{err}")
        pages[page] = text
    rc, err = groff(pages["man8/plumbline.8.gz"] + ".NoSuchMacroForTheTest\n")
    if "NoSuchMacroForTheTest" not in err:
        fail("groff -ww does not report an undefined macro: the check proves nothing")
    opts = sorted(set(re.findall(r"(?m)^ {2}(?:-\w, )?(--[a-z][a-z0-9-]*)", run_help)))
    missing = [o for o in opts if o.replace("-", r"\-") not in pages["man8/plumbline.8.gz"]]
    if len(opts) < 40 or missing:
        fail(f"plumbline.8 lacks options of run --help ({len(opts)} found): {missing}")
    names = re.findall(r"(?m)^\| `([a-z][a-z0-9-]*)` \|", keys)
    conf5 = pages["man5/plumbline.conf.5.gz"]
    missing = [k for k in names if "\n.TP\n\\fB" + k.replace("-", "\\-") + "\\fR\n" not in conf5]
    if len(names) < 40 or missing:
        fail(f"plumbline.conf.5 lacks keys ({len(names)} found): {missing}")
    print(f"man pages: render clean with groff -ww; plumbline.8 names all {len(opts)} run options, "
          f"plumbline.conf.5 all {len(names)} keys")


def check_logrotate(p, d):
    """The installed logrotate file, run for real on a copy that names a temp
    file and, for its postrotate, a marker instead of `systemctl reload`."""
    text = open(os.path.join(p, "etc/logrotate.d/plumbline")).read()
    reload = "systemctl reload plumbline.service >/dev/null 2>&1 || true"
    if text.count("/var/log/plumbline/records.jsonl {") != 1 or text.count(reload) != 1:
        fail("etc/logrotate.d/plumbline does not rotate /var/log/plumbline/records.jsonl with systemctl reload")
    logs = os.path.join(d, "logs")
    os.makedirs(logs, mode=0o700)
    records, marker = os.path.join(logs, "records.jsonl"), os.path.join(d, "reloaded")
    with open(records, "w") as f:
        f.write('{"type":"stats"}\n')
    conf = os.path.join(d, "logrotate.conf")
    with open(conf, "w") as f:
        f.write(text.replace("/var/log/plumbline/records.jsonl", records).replace(reload, f"touch {marker}"))
    os.chmod(conf, 0o644)
    r = subprocess.run(["logrotate", "-f", "--state", os.path.join(d, "logrotate.state"), conf],
                       capture_output=True, text=True)
    if r.returncode or r.stderr.strip():
        fail(f"logrotate -f (exit {r.returncode}): {r.stderr}")
    rotated = os.path.join(logs, "records.jsonl.1")
    if not os.path.isfile(rotated) or open(rotated).read() != '{"type":"stats"}\n' or os.path.exists(records) \
            or not os.path.exists(marker):
        fail(f"logrotate did not rename the records and run postrotate: {sorted(os.listdir(logs))}")
    print("logrotate: records.jsonl renamed to records.jsonl.1 (no copytruncate), then postrotate (reload)")


def complete(script, words):
    """COMPREPLY of the completion for the command line `words` (the last one being completed)."""
    arr = " ".join("'" + w + "'" for w in words)
    prog = f"source '{script}'\nCOMP_WORDS=({arr})\nCOMP_CWORD={len(words) - 1}\n_plumbline\n" \
           "printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    r = subprocess.run(["bash", "--norc", "--noprofile", "-c", prog], capture_output=True, text=True, cwd="/")
    if r.returncode or r.stderr:
        fail(f"bash completion {words}: exit {r.returncode}: {r.stderr}")
    return [x for x in r.stdout.split("\n") if x]


def listed_options(text):
    """The options a --help lists: those that begin an option line, and every "[--opt"."""
    listed = set()
    for line in text.split("\n"):
        m = re.match(r"^ +((?:--?[A-Za-z][\w-]*)(?:, --?[A-Za-z][\w-]*| / --?[A-Za-z][\w-]*)*)", line)
        if m:
            listed |= set(re.findall(r"--?[A-Za-z][\w-]*", m.group(1)))
    return listed | set(re.findall(r"\[(--?[A-Za-z][\w-]*)", text))


def check_completion(build, p):
    script = os.path.join(p, "share/bash-completion/completions/plumbline")
    r = subprocess.run(["bash", "--norc", "-c", f"source '{script}'; complete -p plumbline"],
                       capture_output=True, text=True)
    if r.stdout.strip() != "complete -F _plumbline plumbline":
        fail(f"the completion does not register for plumbline: {r.stdout}{r.stderr}")
    for words, want in ((["plumbline", "con"], ["config"]), (["plumbline", "run", "--con"], ["--config"]),
                        (["plumbline", "--no-con"], ["--no-config"]), (["plumbline", "config", "ch"], ["check"]),
                        (["plumbline", "rules", "--mark"], ["--markdown"]),
                        (["plumbline", "audit", "k"], ["keygen"])):
        got = complete(script, words)
        if got != want:
            fail(f"completing {' '.join(words)}<TAB>: {got}, expected {want}")
    binary = os.path.join(build, "plumbline")
    top = subprocess.run([binary, "--help"], capture_output=True, text=True, check=True).stdout
    cmds = re.findall(r"(?m)^  ([a-z]+) ", top.split("Commands:\n", 1)[1].split("\n\n", 1)[0])
    if sorted(complete(script, ["plumbline", ""])) != sorted(cmds) or len(cmds) < 10:
        fail(f"plumbline <TAB> does not offer the {len(cmds)} commands of --help: {cmds}")
    run_help = subprocess.run([binary, "run", "--help"], capture_output=True, text=True, check=True).stdout
    # no command runs the sensor: run's options, and --version
    offered, listed = set(complete(script, ["plumbline", "-"])), listed_options(run_help) | {"--version"}
    if offered != listed:
        fail(f"plumbline -<TAB>: not offered {sorted(listed - offered)}, not run's {sorted(offered - listed)}")
    checked = 0
    for c in cmds:
        if c in ("help", "version", "features"):
            continue
        text = subprocess.run([binary, c, "--help"], capture_output=True, text=True).stdout
        if not text.startswith("Usage:"):
            continue
        listed = listed_options(text)
        mentioned = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", text))
        if c == "config":  # config check|show [PATH] [RUN OPTIONS]
            listed |= listed_options(run_help)
            mentioned |= set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", run_help))
        offered = set(complete(script, ["plumbline", c, "-"]))
        if not listed or listed - offered or offered - mentioned:
            fail(f"plumbline {c} -<TAB>: not offered {sorted(listed - offered)}, "
                 f"offered but not in its --help {sorted(offered - mentioned)}")
        checked += 1
    print(f"bash completion: con<TAB> -> config, the {len(cmds)} commands, the options of {checked} commands' --help")


def main():
    if len(sys.argv) != 2:
        print("usage: test_dist_files.py BUILD_DIR", file=sys.stderr)
        sys.exit(1)
    build = os.path.abspath(sys.argv[1])
    for tool in ("groff", "bash", "logrotate"):
        if not shutil.which(tool):
            sl.skip(f"{tool} not found (scripts/install-deps.sh --tests)", bpf=False)
    d = sl.temp_dir("pl-dist-")
    try:
        want = expected(os.path.join(HERE, "prefix_files.txt"))
        p = check_prefix(build, d, want)
        check_destdir(build, d, want)
        check_man(build, p)
        check_completion(build, p)
        check_logrotate(p, d)
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
