#!/bin/sh
# SPDX-License-Identifier: MIT
#
# make-certs.sh - a small CA for the fleet's rsyslog relays, and a certificate for each of them,
# with the openssl command (docs/fleet.md#the-certificates).
#
#   make-certs.sh DIR CENTRAL_NAME HOST_NAME...
#
# makes, under DIR (which must not exist yet):
#   ca/ca.pem, ca/ca-key.pem         the fleet's CA (keep ca-key.pem off the hosts)
#   CENTRAL_NAME/                    what to install in the collector's /etc/plumbline/fleet/:
#     ca.pem, central-cert.pem, central-key.pem
#   HOST_NAME/ for each host         what to install in that host's /etc/plumbline/fleet/:
#     ca.pem, relay-cert.pem, relay-key.pem
# Each certificate carries its name as subjectAltName (DNS) and common name, which is what
# tls.authMode="name" checks; keys are ECDSA P-256, certificates valid for DAYS (default 825).
# A site with a PKI of its own uses its certificates instead: any CA works, as long as the names
# match the tls.permittedPeer lines of rsyslog-local.conf and rsyslog-central.conf.
# tests/syslog/test_relay_chain.py makes its certificates with this script.
set -eu

if [ $# -lt 3 ]; then
	echo "usage: $0 DIR CENTRAL_NAME HOST_NAME..." >&2
	exit 2
fi
dir=$1
central=$2
shift 2
days=${DAYS:-825}
if [ -e "$dir" ]; then
	echo "$0: $dir exists; give a new directory" >&2
	exit 1
fi
umask 077
mkdir -p "$dir/ca"

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

key "$dir/ca/ca-key.pem"
openssl req -x509 -new -key "$dir/ca/ca-key.pem" -out "$dir/ca/ca.pem" -days "$days" \
	-subj "/CN=plumbline fleet relay CA" \
	-addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"

# cert NAME OUTDIR BASENAME EXTENDED_KEY_USAGE
cert() {
	mkdir -p "$2"
	key "$2/$3-key.pem"
	openssl req -new -key "$2/$3-key.pem" -subj "/CN=$1" -out "$2/$3.csr"
	printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=%s\nsubjectAltName=DNS:%s\n' \
		"$4" "$1" >"$2/$3.ext"
	openssl x509 -req -in "$2/$3.csr" -CA "$dir/ca/ca.pem" -CAkey "$dir/ca/ca-key.pem" \
		-CAcreateserial -CAserial "$dir/ca/ca.srl" -days "$days" -extfile "$2/$3.ext" \
		-out "$2/$3-cert.pem" 2>/dev/null
	rm -f "$2/$3.csr" "$2/$3.ext"
	cp "$dir/ca/ca.pem" "$2/ca.pem"
}

# central is a server to the relays; a relay is a client (and a server to nobody)
cert "$central" "$dir/$central" central serverAuth
for host in "$@"; do
	cert "$host" "$dir/$host" relay clientAuth
done
echo "$dir: ca/, $central/ and $# host directories"
