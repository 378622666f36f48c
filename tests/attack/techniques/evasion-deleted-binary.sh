#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1070.004
# tactic: defense-evasion
# what: a dropped binary run, then deleted from disk while it runs
. "$AT_LIB"
cp "$AT_ART/burner" "$AT_TMP/.d"
"$AT_TMP/.d" burn 2 &
v=$!
sleep 0.3
rm -f "$AT_TMP/.d"
wait $v
