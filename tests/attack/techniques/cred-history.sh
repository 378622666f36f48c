#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1552.003
# tactic: credential-access
# what: read other users' shell history for passwords (cat, grep)
. "$AT_LIB"
cat "$AT_VICTIM_HOME/.bash_history" >/dev/null
grep -hE 'pass|-p[^ ]|SECRET|TOKEN' /root/.bash_history "$AT_VICTIM_HOME"/.*history >/dev/null 2>&1 || true
