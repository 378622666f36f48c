#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1046
# tactic: discovery
# what: nc -zv 127.0.0.1 1-1024 (netcat-openbsd)
. "$AT_LIB"
command -v nc >/dev/null || { echo "no nc"; exit 77; }
nc -z -w1 127.0.0.1 1-1024 >/dev/null 2>&1 || true
