#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1053.003
# tactic: persistence
# what: a job file dropped into /etc/cron.d
. "$AT_LIB"
at_undo "rm -f /etc/cron.d/plattack"
echo "*/5 * * * * root $AT_TMP/plattack-update >/dev/null 2>&1" >/etc/cron.d/plattack
