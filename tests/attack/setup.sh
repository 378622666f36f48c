#!/bin/bash
# SPDX-License-Identifier: MIT
#
# setup.sh up|down ART - what the technique suite needs around it, and its undoing.
#
# up: the throwaway user plvictim (password in ART/victim.pw) with what an
# attacker looks for in a home: ~/.ssh/id_ed25519 (a fake key), ~/.bash_history,
# ~/.aws/credentials, ~/.config/gcloud/credentials.db, ~/.docker/config.json;
# and, compiled from tests/attack/src into ART: the payload ELF the web server
# serves (www/update), a preload library, a PAM module that returns PAM_IGNORE,
# a fake `as`, a CPU burner. Run before the sensor starts, so that none of it
# is part of the learning.
#
# down: removes the user, its home, and every file any technique may have left
# (each undoes its own changes; this is the second line), and ART.
set -euo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
here=$(cd "$(dirname "$0")" && pwd)
cmd=${1:?usage: setup.sh up|down ART}
art=${2:?usage: setup.sh up|down ART}
VICTIM=plvictim

down() {
	for u in "$VICTIM" plbackdoor; do
		pkill -KILL -u "$u" 2>/dev/null || true
		id "$u" >/dev/null 2>&1 && userdel -r -f "$u" >/dev/null 2>&1 || true
		rm -rf "/home/$u"
	done
	rm -f /etc/cron.d/plattack /var/spool/cron/crontabs/"$VICTIM" /etc/sudoers.d/plattack \
		/etc/systemd/system/plattack.service /etc/systemd/system/multi-user.target.wants/plattack.service \
		/etc/profile.d/plattack.sh /lib/security/pam_plattack.so /usr/lib/x86_64-linux-gnu/security/pam_plattack.so
	# files a technique restores from its backup; if one was killed before
	# its trap ran, the backup is in its AT_TMP, gone: these hold no marker
	# of ours but the technique's, removed here
	if [ -f /etc/rc.local ] && grep -q plattack /etc/rc.local; then rm -f /etc/rc.local; fi
	if [ -f /etc/ld.so.preload ] && [ ! -s /etc/ld.so.preload ]; then rm -f /etc/ld.so.preload; fi
	for f in /etc/pam.d/su /etc/pam.d/sudo /root/.bashrc; do
		[ -f "$f" ] && sed -i '/plattack/d' "$f"
	done
	rm -rf "$art"
}

up() {
	down
	mkdir -p "$art/www"
	useradd -m -s /bin/bash "$VICTIM"
	pw="Corr3ct-h0rse-$RANDOM"
	echo "$VICTIM:$pw" | chpasswd
	echo "$pw" >"$art/victim.pw"
	h=/home/$VICTIM
	install -d -m 700 -o "$VICTIM" -g "$VICTIM" "$h/.ssh" "$h/.aws" "$h/.config" "$h/.config/gcloud" "$h/.docker"
	printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAbm90IGEga2V5\n-----END OPENSSH PRIVATE KEY-----\n' >"$h/.ssh/id_ed25519"
	echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPlumblineFakeKey plvictim@bench" >"$h/.ssh/id_ed25519.pub"
	cp "$h/.ssh/id_ed25519.pub" "$h/.ssh/authorized_keys"
	printf 'ls\nmysql -u admin -pHunter2 prod\nexport AWS_SECRET_ACCESS_KEY=fake\n' >"$h/.bash_history"
	printf '[default]\naws_access_key_id = AKIAFAKEFAKEFAKEFAKE\naws_secret_access_key = fake/fake/fake\n' >"$h/.aws/credentials"
	echo "not a database" >"$h/.config/gcloud/credentials.db"
	echo '{"auths":{"registry.example":{"auth":"ZmFrZTpmYWtl"}}}' >"$h/.docker/config.json"
	chown -R "$VICTIM:$VICTIM" "$h"
	chmod 600 "$h/.ssh/id_ed25519" "$h/.aws/credentials" "$h/.bash_history"
	cc() { gcc -std=gnu17 -O1 -Wall -Werror "$@"; }
	cc -o "$art/www/update" "$here/src/payload.c"
	cp "$art/www/update" "$art/burner"
	cc -shared -fPIC -o "$art/libhook.so" "$here/src/hook.c"
	cc -shared -fPIC -o "$art/pam_plattack.so" "$here/src/pam_plattack.c"
	cc -o "$art/fake-as" "$here/src/fake_as.c"
	printf '#!/bin/sh\nid >/dev/null; uname -a >/dev/null; cat /etc/hostname >/dev/null\necho stage2 ok\n' >"$art/www/payload.sh"
}

"$cmd"
