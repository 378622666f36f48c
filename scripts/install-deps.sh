#!/bin/sh
# Install what plumbline needs to build, run and test, from Debian 12
# packages. Idempotent: installs only what is missing. Run as root.
set -eu

# librelp-dev: syslog over RELP. rsyslog, rsyslog-relp and python3: the
# syslog tests (tests/syslog/) start rsyslogd of their own, with their own
# config, socket and ports; the system's syslog service is not used.
PKGS="build-essential cmake pkg-config clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev
libyaml-dev libpcre2-dev libcmocka-dev libjson-c-dev libssl-dev linux-libc-dev
librelp-dev rsyslog rsyslog-relp python3"
# The flame graph test (cli_evidence_chromium) renders `plumbline evidence
# --svg` in headless Chromium and checks it with python3. Chromium is large
# (some 360 MB installed, with chromium-common) but only the tests need it, and CI runs them with
# skips refused (PLUMBLINE_REQUIRE_BPF=1), so it is in the default set.
PKGS="$PKGS chromium python3"
# The tests validate records against docs/schema/ with a real JSON Schema
# validator, run by Debian's own python3 (tests/schema/).
PKGS="$PKGS python3-jsonschema"
# The benchmark (tests/bench/run.sh, bpf_costs.sh) compares against
# libbpf-tools' syscount, and uses procps (pgrep, sysctl) and coreutils'
# stdbuf. bench_noop links statically: libc6-dev's libc.a, which
# build-essential already brings.
if [ "${1:-}" = "--bench" ]; then
	PKGS="$PKGS libbpf-tools procps coreutils"
fi

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "install-deps: missing packages:$missing (run as root to install them)" >&2
		exit 1
	fi
	echo "install-deps: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
