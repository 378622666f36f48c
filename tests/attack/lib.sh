# SPDX-License-Identifier: MIT
#
# lib.sh - what every technique script (tests/attack/techniques/*.sh) shares.
# Sourced, never run. The runner (run.py) sets, for every technique:
#   AT_TMP         a scratch directory of the technique's own (removed after it)
#   AT_ART         the artifacts setup.sh built (payload ELF, libraries, fake as)
#   AT_HTTP        http://127.0.0.1:PORT, the runner's loopback web server: GET
#                  serves AT_ART/www, POST and PUT are read and thrown away
#   AT_VICTIM      the throwaway user setup.sh made (AT_VICTIM_HOME its home,
#                  AT_VICTIM_PW its password), with a fake SSH key, history and
#                  cloud credentials
#   AT_BUILD       the learned build project (make -j2), AT_BUILD_HOME its HOME
# Every change a technique makes outside AT_TMP is undone by its own trap
# (at_undo), and once more by `setup.sh down` at the end of the run.
set -euo pipefail
export LC_ALL=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
PY=/usr/bin/python3

_at_undo=()
# at_undo CMD...: run CMD (a shell string) when the technique exits, last first
at_undo() { _at_undo=("$*" "${_at_undo[@]}"); }
_at_exit() {
	local c
	for c in "${_at_undo[@]}"; do eval "$c" >/dev/null 2>&1 || true; done
}
trap _at_exit EXIT

# at_backup FILE: keep FILE (or its absence) and put it back at exit
at_backup() {
	local f=$1 k
	k="$AT_TMP/backup.$(echo "$f" | tr / _)"
	if [ -e "$f" ]; then
		cp -a "$f" "$k"
		at_undo "cp -a '$k' '$f'"
	else
		at_undo "rm -f '$f'"
	fi
}

# at_as_victim CMD: CMD run by bash as the throwaway user
at_as_victim() { su -s /bin/bash "$AT_VICTIM" -c "$1"; }

# at_listen PORT FILE: a one-shot loopback TCP listener in the background that
# sends the lines of FILE to whoever connects (a C2 operator's commands) and
# keeps what comes back in FILE.out; its pid in AT_LISTENER
at_listen() {
	"$PY" - "$1" "$2" <<'PYEOF' &
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); s.settimeout(20)
c, _ = s.accept(); c.settimeout(5)
out = open(sys.argv[2] + ".out", "wb")
for line in open(sys.argv[2], "rb"):
    c.sendall(line); time.sleep(0.3)
try:
    while True:
        b = c.recv(4096)
        if not b: break
        out.write(b)
except OSError:
    pass
PYEOF
	AT_LISTENER=$!
	at_undo "kill $AT_LISTENER"
	local i
	for i in $(seq 1 50); do
		ss -Htln "sport = :$1" | grep -q . && return 0
		sleep 0.1
	done
	echo "listener on $1 did not start" >&2
	return 1
}

# at_free_port: a loopback TCP port nothing listens on now
at_free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# at_build_begin: into the learned build project, its Makefile kept (put back
# at exit), its products cleaned, HOME its own (with ~/.ssh/id_ed25519)
at_build_begin() {
	cd "$AT_BUILD"
	export HOME=$AT_BUILD_HOME
	at_backup "$AT_BUILD/Makefile"
	at_undo "make -s -C '$AT_BUILD' clean"
	make -s clean
}

# at_makefile_edit OLD NEW: the one line of the Makefile that is exactly OLD
# (a tab before a recipe line written as \t) replaced with NEW (\n allowed)
at_makefile_edit() {
	"$PY" - "$1" "$2" <<'PYEOF'
import sys
old, new = (a.replace("\\t", "\t").replace("\\n", "\n") for a in sys.argv[1:3])
lines = open("Makefile").read().split("\n")
assert lines.count(old) == 1, f"no single line {old!r} in the Makefile"
lines[lines.index(old)] = new
open("Makefile", "w").write("\n".join(lines))
PYEOF
}
