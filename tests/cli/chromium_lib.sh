# chromium_lib.sh - sourced by the tests that look at plumbline's output in
# headless Chromium (evidence_chromium.sh, report_chromium.sh): skip (77)
# without Chromium or python3, a failure instead under PLUMBLINE_REQUIRE_BPF=1
# (CI), and browse URL [OPTIONS...] in a profile of the test's own ($tmp,
# removed on exit), bounded to 60 s.

skip() {
	if [ "${PLUMBLINE_REQUIRE_BPF:-0}" = 1 ]; then
		echo "FAIL: $* (PLUMBLINE_REQUIRE_BPF=1: no skipping)" >&2
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}

browser=$(command -v chromium || command -v chromium-browser) ||
	skip "no chromium: scripts/install-deps.sh --tests installs Debian's chromium package"
command -v python3 >/dev/null || skip "no python3 to check what chromium shows"

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

# Its own profile, caches and home: nothing of the machine's, nothing left.
# --no-sandbox: the sandbox cannot run as root. Each run is bounded.
browse() {
	url=$1
	shift
	HOME=$tmp XDG_CONFIG_HOME=$tmp/config XDG_CACHE_HOME=$tmp/cache timeout 60 "$browser" --headless \
		--no-sandbox --disable-gpu --no-first-run --disable-extensions --disable-sync \
		--user-data-dir="$tmp/profile" "$@" "file://$url" 2>>"$tmp/chromium.log"
}
