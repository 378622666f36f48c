#!/bin/sh
# SPDX-License-Identifier: MIT
# Make the bash completion of plumbline at build time (cmake/dist.cmake) from
# the built binary's own --help texts, so that it offers every command,
# subcommand and option the binary has (the test dist_files checks it).
# Usage: scripts/gen-completion.sh PLUMBLINE_BINARY OUT
set -eu
[ $# -eq 2 ] || { echo "usage: $0 PLUMBLINE_BINARY OUT" >&2; exit 2; }
bin=$1
out=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the options of one --help text: every -x / --long on a line that starts
# (after its indent) with an option, both halves of "--live / --no-live",
# and every "[--long" anywhere (usage lines, "list [PATH...] [--json]")
options() {
	awk '/^ +-/ { n = split($0, w, /[] ,=[]+/); for (i = 1; i <= n; i++) {
		if (w[i] ~ /^--?[A-Za-z][A-Za-z0-9-]*$/) print w[i]
		else if (w[i] != "/" && w[i] !~ /^[A-Z][A-Z0-9.|:_-]*$/ && w[i] !~ /^[a-z]+(\|[a-z]+)+$/ && w[i] != "") break } }
		{ s = $0; while (match(s, /\[--?[A-Za-z][A-Za-z0-9-]*/)) { print substr(s, RSTART + 1, RLENGTH - 1); s = substr(s, RSTART + RLENGTH) } }' "$1" |
		sort -u | tr '\n' ' ' | sed 's/ $//'
}
# options taking a file or directory: the completion offers file names after them
file_options() {
	awk '/^ +-/ { n = split($0, w, /[] ,=[]+/); for (i = 1; i < n; i++)
		if (w[i] ~ /^--?[A-Za-z]/ && w[i + 1] ~ /^(PATH|FILE|DIR|OUT|PATH\|-|OUT\.svg|OUT\.html|HEADS_FILE)$/) print w[i] }' "$1" |
		sort -u | tr '\n' ' ' | sed 's/ $//'
}
# the subcommands of a command: "  NAME ..." lines of its help, or the
# words after "plumbline CMD" on its Usage lines
subcommands() {
	{
		awk '/^  [a-z][a-z-]*( |$)/ { print $1 }' "$1"
		grep -oE "plumbline $2 [a-z]+" "$1" | awk '{ print $3 }'
	} | sort -u | tr '\n' ' ' | sed 's/ $//'
}

"$bin" --help >"$tmp/top"
cmds=$(awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' "$tmp/top" | tr '\n' ' ' | sed 's/ $//')
"$bin" run --help >"$tmp/run"
{
	echo "# bash completion for plumbline(8): commands, subcommands, options."
	echo "# Generated at build time by scripts/gen-completion.sh from plumbline's --help."
	echo "_plumbline()"
	echo "{"
	echo "	local cur prev words cword cmd i opts subs fileopts"
	echo "	cur=\${COMP_WORDS[COMP_CWORD]}"
	echo "	prev=\${COMP_WORDS[COMP_CWORD-1]}"
	echo "	cmd="
	echo "	for ((i = 1; i < COMP_CWORD; i++)); do"
	echo "		case \${COMP_WORDS[i]} in"
	echo "		-*) ;;"
	echo "		*) cmd=\${COMP_WORDS[i]}; break ;;"
	echo "		esac"
	echo "	done"
	echo "	case \$cmd in"
	# no command: the commands, or run's options (plumbline alone runs the sensor)
	echo "	'')"
	echo "		subs='$cmds'"
	echo "		opts='$(options "$tmp/run") --version'"
	echo "		fileopts='$(file_options "$tmp/run")' ;;"
	for c in $cmds; do
		case $c in
		run) cp "$tmp/run" "$tmp/help" ;;
		help | version | features) : >"$tmp/help" ;;
		*) "$bin" "$c" --help >"$tmp/help" 2>/dev/null || : >"$tmp/help" ;;
		esac
		subs=""
		[ "$c" = run ] || subs=$(subcommands "$tmp/help" "$c")
		echo "	$c)"
		echo "		subs='$subs'"
		opts=$(options "$tmp/help")
		# config check|show take run's options ([RUN OPTIONS])
		[ "$c" = config ] && opts=$( (options "$tmp/help"; options "$tmp/run") | tr ' ' '\n' | sort -u | tr '\n' ' ' | sed 's/ $//')
		echo "		opts='$opts'"
		fileopts=$(file_options "$tmp/help")
		[ "$c" = config ] && fileopts=$(file_options "$tmp/run")
		echo "		fileopts='$fileopts' ;;"
	done
	echo "	*) return 0 ;;"
	echo "	esac"
	echo "	for i in \$fileopts; do"
	echo "		if [[ \$prev == \"\$i\" ]]; then"
	echo "			COMPREPLY=(\$(compgen -f -- \"\$cur\"))"
	echo "			return 0"
	echo "		fi"
	echo "	done"
	echo "	if [[ \$cur == -* ]]; then"
	echo "		COMPREPLY=(\$(compgen -W \"\$opts\" -- \"\$cur\"))"
	echo "	elif [[ -n \$subs ]] && { [[ -z \$cmd ]] || [[ \${COMP_WORDS[COMP_CWORD-1]} == \"\$cmd\" ]]; }; then"
	echo "		COMPREPLY=(\$(compgen -W \"\$subs\" -- \"\$cur\"))"
	echo "	else"
	echo "		COMPREPLY=(\$(compgen -f -- \"\$cur\"))"
	echo "	fi"
	echo "}"
	echo "complete -F _plumbline plumbline"
} >"$tmp/out"
mv "$tmp/out" "$out"
