#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1574.006
# tactic: persistence
# what: /etc/ld.so.preload written (EMPTY here: a library named in it would load into every process on this shared machine), then restored at once
. "$AT_LIB"
at_backup /etc/ld.so.preload
: >>/etc/ld.so.preload
cat /etc/ld.so.preload >/dev/null
