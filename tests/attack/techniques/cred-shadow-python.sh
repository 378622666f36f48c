#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1003.008
# tactic: credential-access
# what: python3 reads /etc/shadow and splits out the hashes
. "$AT_LIB"
"$PY" -c 'print(sum(1 for l in open("/etc/shadow") if l.split(":")[1] not in ("*", "!", "!*")))' >/dev/null
