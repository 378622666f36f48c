#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1195.002
# tactic: initial-access
# what: held-out build variant: gcc -B DIR with a fake as in DIR (a new ELF that reads ~/.ssh/id_ed25519, then execs the real as), under make and run directly
. "$AT_LIB"
at_build_begin
mkdir -p "$AT_TMP/tc"
cp "$AT_ART/fake-as" "$AT_TMP/tc/as"
make -s -j2 CFLAGS="-std=gnu17 -O0 -w -Isrc/common -Isrc/baselines -B$AT_TMP/tc/"
gcc -std=gnu17 -O0 -w -B"$AT_TMP/tc/" -Isrc/common -c src/common/sample.c -o "$AT_TMP/direct.o"
