#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1053.003
# tactic: persistence
# what: crontab -e style: the user's crontab replaced through crontab (EDITOR appends a line)
. "$AT_LIB"
command -v crontab >/dev/null || { echo "no crontab (Debian's cron)"; exit 77; }
at_undo "crontab -u $AT_VICTIM -r"
ed=$AT_TMP/editor.sh
printf '#!/bin/sh\nsleep 1.1\necho "@reboot /tmp/.plattack-u" >>"$1"\n' >"$ed"
chmod 755 "$ed" "$AT_TMP"
su -s /bin/sh "$AT_VICTIM" -c "EDITOR=$ed VISUAL=$ed crontab -e" </dev/null
crontab -u "$AT_VICTIM" -l | grep -q plattack
