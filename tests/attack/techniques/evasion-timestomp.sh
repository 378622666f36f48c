#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1070.006
# tactic: defense-evasion
# what: a dropped file's times set to /bin/ls's (touch -r) and to a fixed old date (touch -t)
. "$AT_LIB"
cp "$AT_ART/burner" "$AT_TMP/.tool"
touch -r /bin/ls "$AT_TMP/.tool"
touch -a -m -t 202001010000 "$AT_TMP/.tool"
