#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1003.008
# tactic: credential-access
# what: cat /etc/shadow (and /etc/gshadow)
. "$AT_LIB"
cat /etc/shadow /etc/gshadow >/dev/null
