#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1070.003
# tactic: defense-evasion
# what: the user's history cleared: history -c, the file truncated and removed, linked to /dev/null
. "$AT_LIB"
at_backup "$AT_VICTIM_HOME/.bash_history"
at_as_victim 'history -c; : >~/.bash_history; rm -f ~/.bash_history; ln -sf /dev/null ~/.bash_history; unset HISTFILE'
