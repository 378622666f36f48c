#!/bin/sh
# Keep the libraries layered (docs/contributing.md, "Dependencies between files"):
#
#  - no cycle between the .c files of common/, rules/, baselines/, outputs/
#    and sensor/: of two files, at most one calls into the other (longer loops
#    are refused too). Which file defines and which uses each global symbol comes from nm
#    on the object files of a build tree, so it sees what the compiler saw;
#  - a file of rules/, baselines/ or outputs/ calls only into its own
#    directory and common/, and common/ only into itself;
#  - those four include no header of sensor/ or bpf/, no BPF skeleton and
#    nothing of libbpf's, and common/ includes none of rules/, baselines/ or
#    outputs/;
#  - sensor/'s folders are layered: a file calls and includes only its own
#    folder, the folders before it in $sensor_order, log.c and the libraries;
#  - in sensor/, only bpfsensor.c (the BPF lifecycle) and kfeatures.c (the
#    feature probes) include or call libbpf.
#
# Usage: scripts/checkdeps.sh [BUILD_DIR]   (default: build; built first)
# Prints each problem; exits 1 if there is any, 2 if it can't check.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
build=$(cd "$build" 2>/dev/null && pwd) || {
	echo "checkdeps: no build directory '${1:-build}'" >&2
	exit 2
}
cd "$top" || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
mods="common rules baselines outputs sensor"

# ---- the files: "object source" for each object of the four libraries ----
for m in $mods; do
	dir="$build/CMakeFiles/pl_$m.dir"
	[ -d "$dir" ] || continue
	find "$dir" -name '*.o' | sort | while read -r o; do
		rel=${o#"$dir"/}
		rel=${rel%.o}
		# an object whose source is gone (renamed, deleted) is stale: skip it
		if [ -e "$rel" ]; then
			echo "$o $rel"
		elif [ -e "$build/$rel" ]; then
			echo "$o $m/${rel##*/}" # generated into the build tree
		fi
	done
done >"$tmp/objs"
if [ ! -s "$tmp/objs" ]; then
	echo "checkdeps: no object files of pl_common, pl_rules, pl_baselines or pl_outputs under $build: build first" >&2
	exit 2
fi

# ---- "from to symbol,symbol..." for each file that uses another's global symbols ----
awk '{ print $1 }' "$tmp/objs" | xargs nm -A -P | awk '
	NR == FNR { src[$1 ":"] = $2; next }
	!($1 in src) { next }
	$3 == "U" { use[++n] = $2; user[n] = src[$1]; next }
	$3 ~ /^[A-TV-Z]$/ { def[$2] = src[$1] }
	END {
		for (i = 1; i <= n; i++) {
			s = use[i]
			if (!(s in def) || def[s] == user[i])
				continue
			k = user[i] " " def[s]
			if (k in syms)
				syms[k] = syms[k] "," s
			else
				syms[k] = s
		}
		for (k in syms)
			print k, syms[k]
	}' "$tmp/objs" - | sort >"$tmp/edges"

# two files that call each other; else any longer loop (tsort names its files)
awk '
	{ e[$1 " " $2] = $3 }
	END {
		for (k in e) {
			split(k, p, " ")
			r = p[2] " " p[1]
			if ((r in e) && p[1] < p[2])
				printf "checkdeps: cycle: %s and %s call each other\n  %s -> %s: %s\n  %s -> %s: %s\n",
				    p[1], p[2], p[1], p[2], e[k], p[2], p[1], e[r]
		}
	}' "$tmp/edges" >"$tmp/problems"
if [ ! -s "$tmp/problems" ] && ! awk '{ print $1, $2 }' "$tmp/edges" | tsort >/dev/null 2>"$tmp/loop"; then
	echo "checkdeps: cycle through these files:" >>"$tmp/problems"
	sed -n 's/^tsort: \([^ ]*\)$/  \1/p' "$tmp/loop" >>"$tmp/problems"
fi

# libbpf: called from sensor/probes/bpfsensor.c and sensor/probes/kfeatures.c only
awk '$2 ~ /^sensor\// && $2 != "sensor/probes/bpfsensor.c" && $2 != "sensor/probes/kfeatures.c" { print $1, $2 }' "$tmp/objs" |
	while read -r o src; do
		nm -P -u "$o" | awk -v src="$src" '$1 ~ /^(bpf_|btf__|libbpf_|ring_buffer__|perf_buffer__|bpf_object__|bpf_program__|bpf_map__|bpf_link__)/ {
			printf "checkdeps: %s calls %s: only sensor/probes/bpfsensor.c and sensor/probes/kfeatures.c call libbpf\n", src, $1 }'
	done >>"$tmp/problems"

# calls across modules: only into common/
awk '{
	split($1, a, "/"); split($2, b, "/")
	if (a[1] != "sensor" && a[1] != b[1] && b[1] != "common")
		printf "checkdeps: %s calls into %s (%s): %s/ calls only into itself%s\n",
		    $1, $2, $3, a[1], a[1] == "common" ? "" : " and common/"
}' "$tmp/edges" >>"$tmp/problems"

# sensor/'s folders, in the order they may use each other
# (docs/architecture.md, "The tree"): a file of sensor/F/ calls into and
# includes from its own folder, the folders before F, sensor/log.c and the
# libraries; sensor/run.c and sensor/main.c use everything.
sensor_order="identity stacks process probes hardening pipeline config telemetry cli"
folder_rank='
	BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
	function folder(p, s, k) {
		k = split(p, s, "/")
		if (s[1] != "sensor")
			return ""
		if (k == 2)
			return p == "sensor/log.c" || p == "sensor/log.h" ? "(log)" : "(top)"
		return s[2]
	}
	function r(f) { return f == "(log)" ? 0 : f == "(top)" ? 1000 : (f in rank) ? rank[f] : -1 }'
awk -v order="$sensor_order" "$folder_rank"'
	{
		a = folder($1); b = folder($2)
		if (a == "" || b == "" || a == b || r(a) > r(b))
			next
		printf "checkdeps: %s calls into %s (%s): sensor/%s/ uses only the folders before it (%s)\n", $1, $2, $3, a, order
	}' "$tmp/edges" >>"$tmp/problems"
find sensor -mindepth 2 -name '*.[ch]' | sort | xargs grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z_]+/' /dev/null |
	awk -v order="$sensor_order" "$folder_rank"'
	{
		file = $0; sub(/:.*/, "", file)
		line = $0; sub(/^[^:]*:/, "", line); sub(/:.*/, "", line)
		inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
		a = folder(file); b = inc; sub(/\/.*/, "", b)
		if (!(b in rank) || a == b || r(a) > r(b))
			next
		printf "checkdeps: %s:%s includes \"%s\": sensor/%s/ uses only the folders before it (%s)\n", file, line, inc, a, order
	}' >>"$tmp/problems"

# ---- includes ----
# A quoted include resolves as the compiler would find it: next to the file,
# then in common/, then anywhere else in the tree (where it would be found
# only through an include path or a relative path it shouldn't have). A
# header found nowhere in the tree is a system or generated one.
find common rules baselines outputs sensor bpf -name '*.h' >"$tmp/headers"
# shellcheck disable=SC2086
find $mods -name '*.[ch]' | sort | xargs grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' /dev/null |
	awk '
	function norm(p,    n, i, k, seg, out) {
		n = split(p, seg, "/")
		k = 0
		for (i = 1; i <= n; i++) {
			if (seg[i] == "." || seg[i] == "")
				continue
			if (seg[i] == ".." && k > 0) { k--; continue }
			out[++k] = seg[i]
		}
		p = out[1]
		for (i = 2; i <= k; i++)
			p = p "/" out[i]
		return p
	}
	NR == FNR { known[$0] = 1; next }
	{
		file = $0; sub(/:.*/, "", file)
		line = $0; sub(/^[^:]*:/, "", line); sub(/:.*/, "", line)
		inc = $0; sub(/^[^<"]*[<"]/, "", inc); sub(/[>"].*/, "", inc)
		m = file; sub(/\/.*/, "", m)
		dir = file; sub(/\/[^\/]*$/, "", dir)
		# sensor/ may use anything, but only its BPF modules talk to libbpf
		bpfmod = file == "sensor/probes/bpfsensor.c" || file == "sensor/probes/kfeatures.c"
		if ($0 ~ /include[[:space:]]*</) {
			if ((inc ~ /^bpf\// || inc == "linux/bpf.h") && !bpfmod)
				printf "checkdeps: %s:%s includes <%s>: no libbpf or BPF headers in %s\n", file, line, inc,
				    m == "sensor" ? "sensor/ but bpfsensor.c and kfeatures.c" : m "/"
			next
		}
		if (m == "sensor" && !(inc ~ /\.skel\.h$/ && !bpfmod))
			next
		if (inc ~ /\.skel\.h$/) {
			printf "checkdeps: %s:%s includes \"%s\": no BPF skeleton in %s/\n", file, line, inc, m
			next
		}
		target = ""
		n = split(dir " common rules baselines outputs sensor bpf", dirs, " ")
		for (i = 1; i <= n && target == ""; i++)
			if (norm(dirs[i] "/" inc) in known)
				target = norm(dirs[i] "/" inc)
		if (target == "")
			next
		tm = target; sub(/\/.*/, "", tm)
		if (tm != m && (m == "common" || tm != "common"))
			printf "checkdeps: %s:%s includes \"%s\" (%s): %s/ includes only its own headers%s\n",
			    file, line, inc, target, m, m == "common" ? "" : " and common/'"'"'s"
	}' "$tmp/headers" - >>"$tmp/problems"

if [ -s "$tmp/problems" ]; then
	cat "$tmp/problems" >&2
	echo "checkdeps: FAILED (docs/contributing.md, \"Dependencies between files\", says why)" >&2
	exit 1
fi
echo "checkdeps: $(wc -l <"$tmp/objs") files, $(wc -l <"$tmp/edges") dependencies between them, no cycle; includes clean"
