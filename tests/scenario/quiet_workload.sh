#!/bin/bash
# SPDX-License-Identifier: MIT
#
# quiet_workload.sh - one pass of ordinary admin and developer work, for the
# "Quiet" scenario (scenario 6): what a sensor must NOT alert on.
#
# Usage: quiet_workload.sh [PASSES]   (default 1)
#
# Everything comes from Debian 12 packages and works offline: package queries
# (dpkg, apt-cache from the local cache), git in a scratch repository, bash and
# dash scripts (loops, pipes, subshells, command substitution), coreutils and
# friends, compression (gzip, xz, zstd when installed, tar), python3 one-liners
# and a small script, a small generated multi-file C project built with cmake
# and make -j2 (plain make when cmake is missing), and a look at the system
# (ps, top -bn1, ip addr, ss -tln); and what the families that watch files,
# mapped code, the network, logins and chains see on an ordinary host
# (issue 18): logins (su -c as root; sudo as root, which asks no password,
# when sudo is installed; key-based ssh to an sshd of the pass's own on
# loopback when openssh-server is), one's own dotfiles read, a local web
# server (python3 -m http.server on loopback) fetched with curl and wget and
# cloned from with git, libraries loaded the ordinary way (python3 imports of
# C modules, perl modules), crontab -l, `ps e`, more package queries. A pass
# takes about 15-20 s on an idle 2-core machine. Each pass works in a fresh temporary directory, removed at
# its end; nothing outside it is changed. The same pass is run every time: the
# project, the files and the commands do not change from one pass to the next
# (only the temporary directory's name does), so that a sensor that has
# learned one pass has learned them all.
#
# Standalone: run it under a running sensor (`plumbline run ...`) as often as
# you like, then look at the alerts. tests/scenario/test_quiet.py runs it under
# the shipped rules and measures the false-alert rate of every rule.
set -euo pipefail
export LC_ALL=C.UTF-8 TZ=UTC
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=quiet GIT_AUTHOR_EMAIL=quiet@example.invalid
export GIT_COMMITTER_NAME=quiet GIT_COMMITTER_EMAIL=quiet@example.invalid
export GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
PY=/usr/bin/python3 # Debian's, not a version manager's shim

passes=${1:-1}

packages() {
	dpkg -l >/dev/null
	dpkg -l bash coreutils | tail -n 2 >/dev/null
	dpkg -S /bin/ls >/dev/null
	dpkg -L coreutils | wc -l >/dev/null
	dpkg-query -W -f='${Package} ${Version}\n' bash dash >/dev/null
	apt-cache policy bash >/dev/null 2>&1 || true
	apt-cache show coreutils >/dev/null 2>&1 || true
}

git_work() {
	local r=$1/repo
	mkdir -p "$r"
	cd "$r"
	git init -q -b main .
	git config user.name quiet
	git config user.email quiet@example.invalid
	for i in 1 2 3 4 5; do
		printf 'line %d\n' $(seq 1 $((i * 20))) >"file$i.txt"
		git add "file$i.txt"
		git commit -q -m "add file$i"
	done
	git log --oneline >/dev/null
	sed -i 's/line 3$/line three/' file2.txt
	git diff --stat >/dev/null
	git status --short >/dev/null
	git commit -q -am "edit file2"
	git branch feature
	git checkout -q feature
	echo feature >>file1.txt
	git commit -q -am "feature"
	git checkout -q main
	git merge -q --no-edit feature
	git log --graph --oneline --all >/dev/null
	git show HEAD~1 >/dev/null
	git gc -q
	git count-objects -v >/dev/null
	cd - >/dev/null
}

shells() {
	local d=$1
	cat >"$d/s.sh" <<'EOF'
#!/bin/bash
total=0
for i in $(seq 1 200); do total=$((total + i)); done
words=$(printf '%s\n' alpha beta gamma delta alpha beta | sort | uniq -c | sort -rn | head -n 1)
( cd /tmp && pwd >/dev/null )
n=$(ls /usr/bin | wc -l)
while read -r a b; do : "$a$b"; done < <(printf '1 2\n3 4\n')
echo "$total $words $n" >/dev/null
EOF
	cat >"$d/s.dash" <<'EOF'
i=0
while [ $i -lt 100 ]; do i=$((i + 1)); done
x=$(echo hello | tr a-z A-Z)
(echo sub; echo shell) | cat >/dev/null
for f in /etc/hostname /etc/os-release; do [ -r "$f" ] && head -n 1 "$f" >/dev/null; done
echo "$i $x" >/dev/null
EOF
	for _ in 1 2 3; do
		bash "$d/s.sh"
		dash "$d/s.dash"
		sh -c 'echo $(( 6 * 7 ))' >/dev/null
	done
}

coreutils_work() {
	local d=$1/cu
	mkdir -p "$d/a/b/c"
	seq 1 5000 >"$d/nums"
	cat "$d/nums" | head -n 100 | sed 's/^/n=/' | awk -F= '{ s += $2 } END { print s }' >/dev/null
	sort -r "$d/nums" | uniq | tail -n 3 >/dev/null
	for i in $(seq 1 20); do echo "$i" >"$d/a/b/c/f$i"; done
	find "$d" -type f -name 'f*' | xargs cat | wc -l >/dev/null
	find "$d" -type f -name 'f1*' -print0 | xargs -0 -n 4 stat -c '%s %n' >/dev/null
	cp -r "$d/a" "$d/copy"
	mv "$d/copy" "$d/moved"
	ls -la "$d" "$d/moved/b/c" >/dev/null
	du -sh "$d" >/dev/null
	df -h / >/dev/null
	date -u +%FT%TZ >/dev/null
	cut -d: -f1 /etc/passwd | sort | head -n 5 >/dev/null
	grep -c root /etc/passwd >/dev/null
	md5sum "$d/nums" >/dev/null
	sha256sum "$d/nums" >/dev/null
	rm -rf "$d/moved"
	mkdir -p "$d/x" && rmdir "$d/x"
	touch "$d/t" && ln -s "$d/t" "$d/l" && readlink "$d/l" >/dev/null
}

compression() {
	local d=$1/z
	mkdir -p "$d/src"
	seq 1 40000 >"$d/src/big.txt"
	cp /etc/services "$d/src/" 2>/dev/null || cp /etc/passwd "$d/src/services"
	gzip -k -6 "$d/src/big.txt" && gzip -t "$d/src/big.txt.gz" && gunzip -c "$d/src/big.txt.gz" >/dev/null
	xz -k -T1 "$d/src/big.txt" && xz -t "$d/src/big.txt.xz" && xz -dc "$d/src/big.txt.xz" >/dev/null
	if command -v zstd >/dev/null; then
		zstd -q -k "$d/src/big.txt" && zstd -q -t "$d/src/big.txt.zst" && zstd -q -dc "$d/src/big.txt.zst" >/dev/null
	fi
	tar -C "$d" -czf "$d/src.tgz" src
	tar -C "$d" -cJf "$d/src.txz" src
	tar -tzf "$d/src.tgz" >/dev/null
	mkdir -p "$d/out" && tar -C "$d/out" -xJf "$d/src.txz"
	cmp "$d/src/big.txt" "$d/out/src/big.txt"
}

python_work() {
	local d=$1
	$PY -c 'print(sum(range(1000)))' >/dev/null
	$PY -c 'import json, sys; json.dump({"a": [1, 2, 3]}, sys.stdout)' >/dev/null
	$PY -c 'import os; print(len(os.listdir("/usr/bin")))' >/dev/null
	cat >"$d/count.py" <<'EOF'
import collections, hashlib, pathlib, sys
words = collections.Counter()
for p in sorted(pathlib.Path(sys.argv[1]).rglob("*.txt")):
    words.update(p.read_text(errors="replace").split())
print(len(words), hashlib.sha256(str(sorted(words.items())[:50]).encode()).hexdigest())
EOF
	$PY "$d/count.py" "$d" >/dev/null
}

c_build() {
	local d=$1/proj
	mkdir -p "$d/src" "$d/include"
	for i in 1 2 3 4 5 6; do
		cat >"$d/src/m$i.c" <<EOF
#include <stdio.h>
#include <string.h>
#include "proj.h"
int m$i(int x)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%d", x * $i);
	return (int)strlen(buf) + x % $((i + 1));
}
EOF
	done
	{
		echo '#ifndef PROJ_H'
		echo '#define PROJ_H'
		for i in 1 2 3 4 5 6; do echo "int m$i(int x);"; done
		echo '#endif'
	} >"$d/include/proj.h"
	cat >"$d/src/main.c" <<'EOF'
#include <stdio.h>
#include "proj.h"
int main(void)
{
	int s = 0;
	for (int i = 0; i < 1000; i++)
		s += m1(i) + m2(i) + m3(i) + m4(i) + m5(i) + m6(i);
	printf("%d\n", s);
	return 0;
}
EOF
	if command -v cmake >/dev/null; then
		cat >"$d/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.13)
project(quiet C)
add_library(m STATIC src/m1.c src/m2.c src/m3.c src/m4.c src/m5.c src/m6.c)
target_include_directories(m PUBLIC include)
add_executable(quiet src/main.c)
target_link_libraries(quiet m)
EOF
		cmake -S "$d" -B "$d/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
		make -s -C "$d/build" -j2 >/dev/null
		"$d/build/quiet" >/dev/null
	else
		cat >"$d/Makefile" <<'EOF'
OBJS = src/m1.o src/m2.o src/m3.o src/m4.o src/m5.o src/m6.o src/main.o
CFLAGS = -O2 -Iinclude
quiet: $(OBJS)
	$(CC) -o $@ $(OBJS)
EOF
		make -s -C "$d" -j2 >/dev/null
		"$d/quiet" >/dev/null
	fi
}

system_look() {
	ps -ef >/dev/null
	ps aux --sort=-%cpu | head -n 5 >/dev/null
	top -bn1 | head -n 15 >/dev/null
	ip addr >/dev/null
	ip route >/dev/null 2>&1 || true
	ss -tln >/dev/null
	uname -a >/dev/null
	id >/dev/null
	free -m >/dev/null
	uptime >/dev/null
}

logins() {
	su -s /bin/sh nobody -c 'id -u' >/dev/null
	su -c 'true' root
	su -l -c 'pwd' root >/dev/null
	if command -v sudo >/dev/null; then
		sudo -n true
		sudo -n -u nobody id >/dev/null
	fi
}

free_tcp_port() {
	$PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# key-based ssh to an sshd of the pass's own on loopback (its own host key,
# config and authorized key in the pass's directory), two logins
ssh_login() {
	local d=$1/ssh port i
	[ -x /usr/sbin/sshd ] && command -v ssh >/dev/null && command -v ssh-keygen >/dev/null || return 0
	mkdir -p "$d" /run/sshd
	ssh-keygen -q -t ed25519 -N '' -C quiet -f "$d/host" </dev/null
	ssh-keygen -q -t ed25519 -N '' -C quiet -f "$d/id" </dev/null
	cp "$d/id.pub" "$d/authorized_keys"
	port=$(free_tcp_port)
	printf '%s\n' "ListenAddress 127.0.0.1" "Port $port" "HostKey $d/host" "PidFile $d/sshd.pid" \
		"AuthorizedKeysFile $d/authorized_keys" "PermitRootLogin prohibit-password" \
		"PasswordAuthentication no" "KbdInteractiveAuthentication no" "UsePAM no" "StrictModes no" \
		"LogLevel ERROR" "UseDNS no" "PrintMotd no" >"$d/sshd_config"
	/usr/sbin/sshd -f "$d/sshd_config" -E "$d/sshd.log"
	for i in $(seq 1 50); do
		[ -s "$d/sshd.pid" ] && break
		sleep 0.1
	done
	local rc=0
	for i in 1 2; do
		ssh -i "$d/id" -p "$port" -F /dev/null -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
			-o BatchMode=yes -o LogLevel=ERROR -o IdentitiesOnly=yes root@127.0.0.1 'uname -r' >/dev/null || rc=$?
	done
	kill "$(cat "$d/sshd.pid")" 2>/dev/null || true # never left running, even when a login failed
	return $rc
}

own_files() {
	local f
	for f in ~/.bashrc ~/.profile ~/.gitconfig ~/.config/git/config ~/.ssh/known_hosts; do
		if [ -r "$f" ]; then head -n 5 "$f" >/dev/null; fi
	done
	ls -la ~ >/dev/null
	grep -c . /etc/hostname /etc/os-release >/dev/null
}

# python3's own web server on loopback: fetched with curl and wget, and the
# pass's git repository cloned from it over dumb HTTP
local_server() {
	local d=$1 port pid i
	git -C "$d/repo" update-server-info
	port=$(free_tcp_port)
	$PY -m http.server --bind 127.0.0.1 --directory "$d" "$port" >/dev/null 2>&1 &
	pid=$!
	for i in $(seq 1 50); do
		curl -fsS -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null && break
		sleep 0.1
	done
	curl -fsS "http://127.0.0.1:$port/count.py" >/dev/null
	if command -v wget >/dev/null; then wget -q -O "$d/dl.py" "http://127.0.0.1:$port/count.py"; fi
	git clone -q "http://127.0.0.1:$port/repo/.git" "$d/clone"
	git -C "$d/clone" log --oneline >/dev/null
	kill "$pid"
	wait "$pid" 2>/dev/null || true
}

libraries() {
	$PY -c 'import ssl, sqlite3, decimal, ctypes, hashlib, zlib, json, socket; print(ssl.OPENSSL_VERSION)' >/dev/null
	$PY -c 'import sqlite3; c = sqlite3.connect(":memory:"); print(c.execute("select 1").fetchone())' >/dev/null
	perl -MPOSIX -MData::Dumper -MFile::Find -e 'print floor(2.5), Dumper([1])' >/dev/null
}

more_looks() {
	if command -v crontab >/dev/null; then crontab -l >/dev/null 2>&1 || true; fi
	ps axe >/dev/null # the environment of every process (ps e is the tty's only)
	ps axo pid,user,comm | head -n 5 >/dev/null
	dpkg -L bash >/dev/null
	apt-cache depends bash >/dev/null 2>&1 || true
	getent passwd root >/dev/null
	ss -tan >/dev/null
}

one_pass() {
	local d
	d=$(mktemp -d /tmp/pl-quiet-work.XXXXXX)
	packages
	git_work "$d"
	shells "$d"
	coreutils_work "$d"
	compression "$d"
	python_work "$d"
	c_build "$d"
	system_look
	logins
	ssh_login "$d"
	own_files
	local_server "$d"
	libraries
	more_looks
	rm -rf "$d"
}

for ((p = 1; p <= passes; p++)); do
	one_pass
done
