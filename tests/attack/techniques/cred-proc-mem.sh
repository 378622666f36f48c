#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1055.009
# tactic: defense-evasion
# what: python3 reads another process's /proc/PID/maps and writes into its /proc/PID/mem (the same bytes back)
. "$AT_LIB"
sleep 30 &
v=$!
at_undo "kill $v"
sleep 0.2
"$PY" - "$v" <<'PYEOF'
import sys
pid = sys.argv[1]
for line in open(f"/proc/{pid}/maps"):
    a, perms = line.split()[:2]
    if perms.startswith("rw") and "[stack]" in line:
        start = int(a.split("-")[0], 16)
        with open(f"/proc/{pid}/mem", "r+b", buffering=0) as m:
            m.seek(start); b = m.read(64)
            m.seek(start); m.write(b)
        break
PYEOF
