#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1496
# tactic: impact
# what: a renamed python3 miner forking 2 hashing workers for 15 s
. "$AT_LIB"
cp /usr/bin/python3 "$AT_TMP/.systemd-helper"
"$AT_TMP/.systemd-helper" - <<'PYEOF'
import hashlib, os, time
kids = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        end = time.time() + 15; h = b"x"
        while time.time() < end:
            h = hashlib.sha256(h).digest()
        os._exit(0)
    kids.append(pid)
for k in kids:
    os.waitpid(k, 0)
PYEOF
