#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1046
# tactic: discovery
# what: port scan with bash's /dev/tcp: 127.0.0.1 ports 1-1024, one connect each
. "$AT_LIB"
bash -c 'for p in $(seq 1 1024); do (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null && echo $p; done; true' >"$AT_TMP/open"
