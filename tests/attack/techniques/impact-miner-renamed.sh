#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1496
# tactic: impact
# what: a miner-like CPU burner (a hashing loop) copied as kswapd0 into /dev/shm and run for 15 s
. "$AT_LIB"
at_undo "rm -f /dev/shm/kswapd0"
cp "$AT_ART/burner" /dev/shm/kswapd0
/dev/shm/kswapd0 burn 15
