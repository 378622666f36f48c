#!/bin/sh
# Signed baseline bundles through the real plumbline binary: keygen, export
# from three hosts' state directories (--role, --host, --sign), verify, merge
# --trust into a role bundle (hosts and samples add up exactly), import, and
# every refusal (a flipped byte, an unknown key, an unsigned input, another
# role), each naming the file and writing nothing. openssl pkeyutl then
# checks a signature over the bytes docs/baselines.md says are signed, so
# the documentation is proved right by a second implementation.
#
# The hosts' baselines are real: the sensor's own baseline files of the fuzz
# seed corpus (tests/fuzz/corpus/baseline/sensor_*.json, learned_*.json),
# wrapped in a bundle as plumbline wrote them before fleets (no header),
# which `import` must still take.
#
# Usage: bundle.sh PLUMBLINE_BIN SOURCE_DIR
set -u
bin=$1
src=$2
. "$(dirname "$0")/cli_lib.sh"

# run NAME EXPECTED_STATUS ARGS...: stdout in $tmp/out, stderr in $tmp/err
run() {
	_run_name=$1 _run_want=$2
	shift 2
	run_bounded 60 "$_run_name" "$_run_want" "$bin" baseline --no-config "$@"
}

# a field of every baseline of a bundle, "key=value" lines sorted
fields() { # BUNDLE FIELD
	python3 - "$1" "$2" <<'P'
import json, sys
for b in sorted(json.load(open(sys.argv[1]))["baselines"], key=lambda b: b["key"]):
    print(b["key"], b.get(sys.argv[2], 1 if sys.argv[2] == "hosts" else None))
P
}

# ---- the old bundle, from real baseline files ----
python3 - "$tmp/old.json" "$src"/tests/fuzz/corpus/baseline/sensor_*.json "$src"/tests/fuzz/corpus/baseline/learned_*.json <<'P'
import json, sys
bs = []
for f in sys.argv[2:]:
    b = json.load(open(f))
    del b["format"]
    bs.append(b)
open(sys.argv[1], "w").write(json.dumps({"format": "plumbline-baselines", "version": 1, "baselines": bs},
                                        separators=(",", ":")))
P
nb=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["baselines"]))' "$tmp/old.json")
[ "$nb" -ge 5 ] || fail "the seed corpus gave $nb baselines"
for h in a b c; do
	mkdir -m 0700 "$tmp/st_$h"
	run "import old into $h" 0 --state-dir "$tmp/st_$h" import "$tmp/old.json"
	expect "import old into $h" err "import: $nb baselines, $tmp/old.json, 1 host"
done

# ---- keys ----
run keygen 0 keygen "$tmp/fleet.key"
expect keygen err "(private, keep it secret)"
[ "$(stat -c %a "$tmp/fleet.key")" = 600 ] || fail "private key mode $(stat -c %a "$tmp/fleet.key")"
[ "$(stat -c %a "$tmp/fleet.key.pub")" = 644 ] || fail "public key mode $(stat -c %a "$tmp/fleet.key.pub")"
grep -q 'BEGIN PRIVATE KEY' "$tmp/fleet.key" || fail "private key not PKCS#8 PEM"
cp "$tmp/fleet.key" "$tmp/fleet.key.before"
run keygen_again 1 keygen "$tmp/fleet.key"
expect keygen_again err "exists already; not overwritten"
cmp -s "$tmp/fleet.key" "$tmp/fleet.key.before" || fail "keygen overwrote the private key"
run keygen_json 0 --json keygen "$tmp/other.key"
id_other=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key_id"])' "$tmp/out")
# the key id is the SHA-256 of the raw public key (the last 32 bytes of its DER)
id=$(openssl pkey -pubin -in "$tmp/fleet.key.pub" -outform DER | tail -c 32 | sha256sum | cut -c1-16)
[ "$id" != "$id_other" ] || fail "two keys, one id"

# ---- exports ----
for h in a b c; do
	run "export $h" 0 --state-dir "$tmp/st_$h" export "$tmp/$h.json" --role ssh --host "host-$h" --sign "$tmp/fleet.key"
	expect "export $h" err "export: $nb baselines, $tmp/$h.json, role ssh, 1 host, signed by key $id"
	run "verify $h" 0 verify "$tmp/$h.json" --trust "$tmp/fleet.key.pub"
	expect "verify $h" out "role:       ssh"
	expect "verify $h" out "host:       host-$h"
	expect "verify $h" out "hosts:      1"
	expect "verify $h" out "baselines:  $nb"
	expect "verify $h" out "signature:  good (key $id)"
done
grep -qE '^created:    20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-9:]{8}\.[0-9]{9}Z$' "$tmp/out" || fail "created: $(cat "$tmp/out")"
# without --trust: read, not checked, exit 0 (docs/cli.md)
run verify_untrusted 0 verify "$tmp/a.json"
expect verify_untrusted out "signature:  not checked (no --trust) (key $id)"
# the host name defaults to the machine's
run export_default_host 0 --state-dir "$tmp/st_a" export "$tmp/default.json" --role ssh
run verify_default_host 0 --json verify "$tmp/default.json"
[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["host"])' "$tmp/out")" = "$(hostname)" ] ||
	fail "default host: $(cat "$tmp/out"), not $(hostname)"
run export_bad_role 1 --state-dir "$tmp/st_a" export "$tmp/x.json" --role "ssh servers"
expect export_bad_role err "invalid role 'ssh servers'"
[ ! -e "$tmp/x.json" ] || fail "export with a bad role wrote its file"

# ---- the signed bytes, as docs/baselines.md says, checked by openssl ----
n=$(grep -bo ',"signature":' "$tmp/a.json" | tail -n 1 | cut -d: -f1)
head -c "$n" "$tmp/a.json" >"$tmp/signed"
python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["signature"]["value"])' "$tmp/a.json" | base64 -d >"$tmp/sig"
[ "$(wc -c <"$tmp/sig")" = 64 ] || fail "signature of $(wc -c <"$tmp/sig") bytes"
openssl pkeyutl -verify -pubin -inkey "$tmp/fleet.key.pub" -rawin -in "$tmp/signed" -sigfile "$tmp/sig" \
	>"$tmp/ossl" 2>&1 || fail "openssl pkeyutl does not verify the documented bytes: $(cat "$tmp/ossl")"
grep -q "Signature Verified Successfully" "$tmp/ossl" || fail "openssl: $(cat "$tmp/ossl")"
# and one flipped byte (a sample count's digit) is refused by both
python3 - "$tmp/a.json" "$tmp/tampered.json" <<'P'
import sys
t = open(sys.argv[1], "rb").read()
i = t.index(b'"samples":') + len(b'"samples":')
t = t[:i] + bytes([t[i] ^ 1]) + t[i + 1:]
open(sys.argv[2], "wb").write(t)
P
head -c "$n" "$tmp/tampered.json" >"$tmp/signed"
openssl pkeyutl -verify -pubin -inkey "$tmp/fleet.key.pub" -rawin -in "$tmp/signed" -sigfile "$tmp/sig" \
	>"$tmp/ossl" 2>&1 && fail "openssl verifies a tampered bundle"
run verify_tampered 1 verify "$tmp/tampered.json" --trust "$tmp/fleet.key.pub"
expect verify_tampered out "signature:  bad signature (key $id)"
run verify_other_key 1 verify "$tmp/a.json" --trust "$tmp/other.key.pub"
expect verify_other_key out "signature:  signed by an unknown key (key $id)"
# a directory of trusted keys
mkdir -m 0700 "$tmp/keys"
cp "$tmp/other.key.pub" "$tmp/fleet.key.pub" "$tmp/keys/"
run verify_dir 0 verify "$tmp/a.json" --trust "$tmp/keys"
expect verify_dir out "signature:  good (key $id)"

# ---- merge ----
run merge 0 merge "$tmp/a.json" "$tmp/b.json" "$tmp/c.json" -o "$tmp/ssh.json" --role ssh \
	--trust "$tmp/fleet.key.pub" --sign "$tmp/fleet.key"
expect merge err "merge: $nb baselines, $tmp/ssh.json, role ssh, 3 hosts, signed by key $id"
run verify_merge 0 verify "$tmp/ssh.json" --trust "$tmp/fleet.key.pub"
expect verify_merge out "hosts seen: host-a, host-b, host-c"
expect verify_merge out "hosts:      3"
expect verify_merge out "baselines:  $nb"
expect verify_merge out "signature:  good (key $id)"
# each key: 3 hosts, three times the samples of one
fields "$tmp/old.json" samples | awk '{ print $1, 3 * $2 }' >"$tmp/want"
fields "$tmp/ssh.json" samples >"$tmp/got"
diff -u "$tmp/want" "$tmp/got" >&2 || fail "merged samples are not 3x"
fields "$tmp/old.json" hosts | awk '{ print $1, 3 }' >"$tmp/want"
fields "$tmp/ssh.json" hosts >"$tmp/got"
diff -u "$tmp/want" "$tmp/got" >&2 || fail "merged hosts are not 3"
# a merge of merges sums their hosts
run merge_of_merges 0 merge "$tmp/ssh.json" "$tmp/a.json" -o "$tmp/ssh4.json" --trust "$tmp/fleet.key.pub"
expect merge_of_merges err "role ssh, 4 hosts"
# --min-hosts: a host that learned only the two learned_* keys; the others are backed by one host
python3 - "$tmp/old.json" "$tmp/part.json" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
d["baselines"] = d["baselines"][-2:]
open(sys.argv[2], "w").write(json.dumps(d, separators=(",", ":")))
P
mkdir -m 0700 "$tmp/st_p"
run import_part 0 --state-dir "$tmp/st_p" import "$tmp/part.json"
run export_part 0 --state-dir "$tmp/st_p" export "$tmp/p.json" --role ssh --host host-p --sign "$tmp/fleet.key"
run merge_min_hosts 0 merge "$tmp/a.json" "$tmp/p.json" -o "$tmp/min2.json" --min-hosts 2 --trust "$tmp/fleet.key.pub"
expect merge_min_hosts err "merge: $((nb - 2)) baselines backed by fewer than 2 hosts left out"
expect merge_min_hosts err "merge: 2 baselines, $tmp/min2.json, role ssh, 2 hosts"
fields "$tmp/part.json" hosts | awk '{ print $1, 2 }' >"$tmp/want"
fields "$tmp/min2.json" hosts >"$tmp/got"
diff -u "$tmp/want" "$tmp/got" >&2 || fail "--min-hosts kept other keys"
run merge_min_hosts_bad 1 merge "$tmp/a.json" -o "$tmp/no.json" --min-hosts 0
expect merge_min_hosts_bad err "invalid value '0' for --min-hosts"
# refusals: each names the file, and OUT is not written
run merge_tampered 1 merge "$tmp/a.json" "$tmp/tampered.json" -o "$tmp/no.json" --role ssh --trust "$tmp/fleet.key.pub"
expect merge_tampered err "Refusing '$tmp/tampered.json': bad signature (key $id)"
run merge_unknown 1 merge "$tmp/a.json" -o "$tmp/no.json" --role ssh --trust "$tmp/other.key.pub"
expect merge_unknown err "Refusing '$tmp/a.json': signed by an unknown key (key $id)"
run merge_unsigned 1 merge "$tmp/a.json" "$tmp/old.json" -o "$tmp/no.json" --trust "$tmp/fleet.key.pub"
expect merge_unsigned err "Refusing '$tmp/old.json': unsigned"
run export_build 0 --state-dir "$tmp/st_c" export "$tmp/build.json" --role build --sign "$tmp/fleet.key"
run merge_role 1 merge "$tmp/a.json" "$tmp/build.json" -o "$tmp/no.json" --role ssh --trust "$tmp/fleet.key.pub"
expect merge_role err "Refusing '$tmp/build.json': its role is 'build', not ssh"
run merge_mixed 1 merge "$tmp/a.json" "$tmp/build.json" -o "$tmp/no.json"
expect merge_mixed err "Refusing '$tmp/build.json': its role is 'build', not ssh"
[ ! -e "$tmp/no.json" ] || fail "a refused merge wrote its output"

# ---- import ----
mkdir -m 0700 "$tmp/st_d" "$tmp/st_e"
run import_role 0 --state-dir "$tmp/st_d" import "$tmp/ssh.json" --trust "$tmp/fleet.key.pub" --role ssh
expect import_role err "import: $nb baselines, $tmp/ssh.json, role ssh, 3 hosts, signed by key $id"
run export_d 0 --state-dir "$tmp/st_d" export "$tmp/d.json"
fields "$tmp/ssh.json" samples >"$tmp/want"
fields "$tmp/d.json" samples >"$tmp/got"
diff -u "$tmp/want" "$tmp/got" >&2 || fail "imported samples differ"
fields "$tmp/d.json" hosts | awk '$2 != 3' | grep -q . && fail "imported hosts are not 3"
run import_tampered 1 --state-dir "$tmp/st_e" import "$tmp/tampered.json" --trust "$tmp/fleet.key.pub"
expect import_tampered err "Refusing '$tmp/tampered.json': bad signature (key $id)"
run import_role_other 1 --state-dir "$tmp/st_e" import "$tmp/build.json" --trust "$tmp/fleet.key.pub" --role ssh
expect import_role_other err "its role is 'build', not ssh"
run list_e 0 --state-dir "$tmp/st_e" list --json
[ "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d if isinstance(d, list) else d["baselines"]))' "$tmp/out")" = 0 ] ||
	fail "a refused import changed the store: $(cat "$tmp/out")"
# signed, without --trust: taken (as before fleets)
run import_unchecked 0 --state-dir "$tmp/st_e" import "$tmp/a.json"

[ "$fails" = 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "bundle: all checks passed ($nb baselines, key $id)"
