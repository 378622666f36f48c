#!/bin/sh
# SPDX-License-Identifier: MIT
# Make the man pages plumbline(8) and plumbline.conf(5) at build time
# (cmake/dist.cmake): the templates docs/man/*.in, configured by CMake (paths,
# version), with their option lists filled in from the built binary itself,
# so that every option it has is listed and none it lacks:
#   .\" GENERATED: commands      `plumbline --help`'s commands
#   .\" GENERATED: run-options   `plumbline run --help`, as .TP entries
#   .\" GENERATED: command-help  each other command's --help, verbatim
#   .\" GENERATED: config-keys   `plumbline config doc-table config`
# Usage: scripts/gen-man.sh PLUMBLINE_BINARY TEMPLATE OUT
set -eu
[ $# -eq 3 ] || { echo "usage: $0 PLUMBLINE_BINARY TEMPLATE OUT" >&2; exit 2; }
bin=$1
tmpl=$2
out=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# roff escapes of one line of text (awk): \ as \e, - as \-, a leading . or '
# protected by \&
ESC='function esc(s) { gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s); if (s ~ /^[.\047]/) s = "\\&" s; return s }'

# `plumbline --help`'s "Commands:" section: "  NAME   what it does"
commands() {
	"$bin" --help | awk "$ESC"'
		/^Commands:/ { on = 1; next }
		on && /^$/ { exit }
		on { name = $1; sub(/^ *[^ ]+ +/, ""); print ".TP"; print "\\fB" esc(name) "\\fR"; print esc($0) }'
}

# `plumbline run --help`: a heading line ("Output:") is a .SS, an option line
# ("  --json PATH|-     write ...": the description from column 26 on, or on
# the next lines when the option is longer) a .TP, a line indented 25 a
# continuation of the description, any other line text.
run_options() {
	"$bin" run --help | awk "$ESC"'
		NR == 1 && /^Usage:/ { next }
		/^$/ { if (!para) print ".PP"; para = 1; next }
		{ para = 0 }
		/^[^ ].*:$/ { sub(/:$/, ""); print ".SS \"" esc($0) "\""; para = 1; next }
		/^  -/ {
			if (length($0) > 25 && substr($0, 25, 1) == " " && substr($0, 26, 1) != " ") {
				spec = substr($0, 3, 23); desc = substr($0, 26)
			} else {
				spec = substr($0, 3); desc = ""
			}
			sub(/ +$/, "", spec)
			print ".TP"; print "\\fB" esc(spec) "\\fR"
			if (desc != "") print esc(desc)
			next
		}
		/^                         [^ ]/ { sub(/^ +/, ""); print esc($0); next }
		{ sub(/^ +/, ""); print esc($0) }'
}

# every command but run whose --help is a usage text, as it prints it
command_help() {
	for c in $("$bin" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }'); do
		[ "$c" = run ] || [ "$c" = help ] || [ "$c" = version ] && continue
		"$bin" "$c" --help >"$tmp/help" 2>/dev/null || continue
		head -n 1 "$tmp/help" | grep -q '^Usage:' || continue
		echo ".SS \"plumbline $c\""
		echo ".EX"
		awk "$ESC"'{ print esc($0) }' "$tmp/help"
		echo ".EE"
	done
}

# `config doc-table config`: | `key` | default | live | meaning |
config_keys() {
	"$bin" config doc-table config | awk -F' [|] ' "$ESC"'
		function roff(s) { s = esc(s); while (match(s, /`[^`]*`/)) s = substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 1, RLENGTH - 2) "\\fR" substr(s, RSTART + RLENGTH); return s }
		NR <= 2 { next }
		{
			key = $1; sub(/^[|] /, "", key); meaning = $4; sub(/ [|]$/, "", meaning)
			print ".TP"; print roff(key)
			print roff(meaning) "."
			print "Default: " roff($2) "."
			if ($3 == "yes") print "A SIGHUP applies a change at once."
		}'
}

commands >"$tmp/commands"
run_options >"$tmp/run-options"
command_help >"$tmp/command-help"
config_keys >"$tmp/config-keys"
awk -v dir="$tmp" '
	/^\.\\" GENERATED: / { f = dir "/" $3; while ((getline line < f) > 0) print line; close(f); next }
	{ print }' "$tmpl" >"$tmp/out"
mv "$tmp/out" "$out"
