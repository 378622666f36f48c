#!/bin/sh
# Install what plumbline needs to build, run and test, from Debian 12
# packages. Idempotent: installs only what is missing. Run as root.
set -eu

PKGS="build-essential cmake pkg-config clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev
libyaml-dev libpcre2-dev libcmocka-dev libjson-c-dev libssl-dev linux-libc-dev"
# The tests validate records against docs/schema/ with a real JSON Schema
# validator, run by Debian's own python3 (tests/schema/).
PKGS="$PKGS python3 python3-jsonschema"
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
