#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1546.004
# tactic: persistence
# what: a line added to ~/.bashrc (by the user) and a script dropped into /etc/profile.d
. "$AT_LIB"
at_backup "$AT_VICTIM_HOME/.bashrc"
at_undo "rm -f /etc/profile.d/plattack.sh"
at_as_victim 'echo "(/tmp/.plattack-u &) 2>/dev/null # plattack" >>~/.bashrc'
echo '(/tmp/.plattack-u &) 2>/dev/null # plattack' >/etc/profile.d/plattack.sh
