#!/bin/sh
# Install what plumbline needs to build, run and test, from Debian 12
# packages. Idempotent: installs only what is missing. Run as root.
set -eu

usage() {
	echo "usage: $0 [--tests] [--bench]" >&2
	echo "  (none)   what building and running the sensor needs" >&2
	echo "  --tests  and what the tests use: servers they start, validators, a browser" >&2
	echo "  --bench  and what the benchmarks use" >&2
	exit 2
}

# Building and running: the compilers, libbpf and bpftool, and the libraries
# the sensor links (librelp-dev: syslog over RELP).
PKGS="build-essential cmake pkg-config clang llvm bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev
libyaml-dev libpcre2-dev libcmocka-dev libjson-c-dev libssl-dev linux-libc-dev librelp-dev"
# libcap-ng-dev and libseccomp-dev: the sensor drops its capabilities and
# installs a seccomp filter once attached (sensor/hardening/privilege.c).
PKGS="$PKGS libcap-ng-dev libseccomp-dev"
# libmicrohttpd-dev: the HTTP server of the metrics endpoint (--metrics).
PKGS="$PKGS libmicrohttpd-dev"
# liblzma-dev: MiniDebugInfo (.gnu_debugdata) sections are xz (sensor/stacks/minidebug.c);
# xz-utils: the unit tests' symbol objects are built with the build, not only
# when the tests run (tests/unit/make_symfixtures.sh: xz, and binutils'
# nm, objcopy, strip and readelf from build-essential).
PKGS="$PKGS liblzma-dev xz-utils"
for arg in "$@"; do
	case "$arg" in
	--tests)
		# The syslog tests (tests/syslog/) start an rsyslogd of their own
		# (rsyslog-relp for imrelp), with their own config, socket and ports;
		# the xz scenario (tests/scenario/) a real sshd on loopback and an ssh
		# client; the runaway scenario pcre2grep (pcre2-utils) for a real
		# catastrophic backtrack with JIT off. The tests validate records against docs/schema/ with
		# Debian's python3-jsonschema, and render the flame graph SVG in
		# headless Chromium (some 360 MB installed: only the tests need it),
		# with the font whose advances the SVG's labels are measured by
		# (fonts-dejavu-core: outputs/flamegraph.c).
		PKGS="$PKGS rsyslog rsyslog-relp openssh-server openssh-client pcre2-utils python3 python3-jsonschema chromium"
		PKGS="$PKGS fonts-dejavu-core"
		# The syslog TLS tests (tests/syslog/test_tls.py): rsyslogd's imtcp
		# in TLS mode needs its OpenSSL stream driver (lmnsd_ossl), and the
		# test makes its certificates with the openssl command.
		PKGS="$PKGS rsyslog-openssl openssl"
		# The Quiet scenario's ordinary work (tests/scenario/quiet_workload.sh):
		# git, compression, ps/top, ip/ss.
		PKGS="$PKGS git xz-utils zstd gzip tar procps iproute2"
		# ... and its logins, local web server and library loading (sudo,
		# curl, wget, perl, cron's crontab -l); the attack technique suite
		# (tests/attack/run.py, docs/coverage.md) uses the same tools and
		# netcat-openbsd (a port scan), iputils-ping, passwd (useradd).
		PKGS="$PKGS sudo curl wget perl cron netcat-openbsd iputils-ping passwd"
		# The files scenario (tests/scenario/test_files.py): useradd/userdel
		# (passwd) and make.
		PKGS="$PKGS passwd make"
		# systemd_unit: systemd-analyze verify on the installed unit.
		PKGS="$PKGS systemd"
		# dist_files renders the man pages with groff -ww (groff-base) and
		# runs the logrotate file with logrotate;
		# dist_deb builds the package with cpack (cmake; dpkg-shlibdeps from
		# dpkg-dev) and checks it with lintian.
		PKGS="$PKGS groff-base logrotate dpkg-dev lintian"
		# promtool (Debian's prometheus package) checks the metrics
		# endpoint's exposition (tests/scenario/test_metrics.py).
		PKGS="$PKGS prometheus"
		# The fault tests (tests/faults/): mount for a small tmpfs, chattr for an immutable store.
		PKGS="$PKGS mount e2fsprogs"
		# valgrind_sensor runs the real sensor under memcheck (leaks and
		# memory errors that the sanitized unit tests cannot reach).
		PKGS="$PKGS valgrind"
		# Issue 18's scenarios: the brute force (sudo -S, su through ptys,
		# throwaway users: passwd's useradd/chpasswd, util-linux's setpriv),
		# the pipe chains (curl, wget, perl), the canary (make, gcc, curl,
		# wget), runc's shape (gcc builds the test program).
		PKGS="$PKGS sudo passwd util-linux curl wget perl make gcc"
		# faults_sigkill_during_save: strace holds the sensor's renames
		# (delay injection) so that a SIGKILL lands inside a save.
		PKGS="$PKGS strace"
		# scenario_network: curl downloads, nc -z scans (the nc step is skipped without it).
		PKGS="$PKGS curl netcat-openbsd"
		;;
	--bench)
		# The benchmark (tests/bench/run.sh, bpf_costs.sh) compares against
		# libbpf-tools' syscount, and uses procps (pgrep, sysctl) and
		# coreutils' stdbuf. bench_noop links statically: libc6-dev's
		# libc.a, which build-essential already brings.
		PKGS="$PKGS libbpf-tools procps coreutils"
		;;
	*) usage ;;
	esac
done

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
