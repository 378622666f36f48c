#!/bin/sh
# The objects test_symbols names frames in, built the way distributions
# build theirs: a small shared object with exported and static functions,
# then stripped copies that carry their names elsewhere:
#   mdi.so          MiniDebugInfo as Fedora's find-debuginfo.sh makes it
#                   (the .symtab of the functions .dynsym lacks, xz, in
#                   .gnu_debugdata), .symtab stripped
#   mdi-trunc.so    .gnu_debugdata: that xz stream cut in half
#   mdi-garbage.so  .gnu_debugdata: bytes that are not xz
#   mdi-bomb.so     .gnu_debugdata: xz of 65 MiB of zeros (past the 64 MiB cap)
#   mdi-notelf.so   .gnu_debugdata: a valid xz stream of text, not an ELF
#   mdi-innercut.so .gnu_debugdata: a valid xz stream of the MiniDebugInfo
#                   ELF cut before its section headers
#   link/dot.so     .gnu_debuglink to link/.debug/dot.debug
#   link/root.so    .gnu_debuglink to a file under ROOT/<dir of link/>/
#   link/stale.so   .gnu_debuglink to link/.debug/stale.debug, changed since (CRC differs)
#   link/foreign.so .gnu_debuglink to link/.debug/foreign.debug, the debug file of
#                   another object (its CRC recorded, its build-id not ours)
#   bid.so          stripped; its debug file in ROOT/.build-id/xx/yyyy.debug
#   prec.so         MiniDebugInfo, a debuglink resolved under ROOT and ROOT-BID,
#                   and a build-id debug file under ROOT-BID only: one object
#                   for the order of precedence
# Each has a build-id of its own (0x5e..NN) so that one struct symbols can
# hold them all. expect.txt: "NAME VADDR" of each function, from nm on the
# unstripped object (the ground truth the test holds names to).
#
# Usage: make_symfixtures.sh OUTDIR CC
set -eu
out=$1
cc=$2
for tool in xz nm objcopy strip readelf; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "make_symfixtures.sh: $tool not found (scripts/install-deps.sh installs it)" >&2
		exit 1
	}
done
rm -rf "$out"
mkdir -p "$out/link/.debug" "$out/root" "$out/root-bid/.build-id"
cd "$out"
out=$(pwd)

cat >fix.c <<'EOF'
/* Functions that stay out of line at -O2 and have bodies of their own. */
static volatile int sink;

__attribute__((noinline, used)) static int fix_hidden_alpha(int x)
{
	for (int i = 0; i < x; i++)
		sink += i * 3;
	return sink;
}

__attribute__((noinline, used)) static int fix_hidden_beta(int x)
{
	for (int i = 0; i < x; i++)
		sink ^= i * 5;
	return sink + 1;
}

/* an exported C name like bash's executor: an interpreter's only in bash */
int execute_fixture(int x);
int execute_fixture(int x)
{
	return fix_hidden_alpha(x) + 2;
}

int fix_exported(int x);
int fix_exported(int x)
{
	return fix_hidden_alpha(x) + fix_hidden_beta(x);
}
EOF

# build NAME ID: NAME.full.so, unstripped, with build-id 5e..ID
build() {
	"$cc" -O2 -fPIC -shared -fno-omit-frame-pointer -Wl,--build-id=0x5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e"$2" \
		-o "$1.full.so" fix.c
}

# minidebug FULL OUT.xz: the xz'd MiniDebugInfo of FULL (find-debuginfo.sh's add_minidebug)
minidebug() {
	nm -D "$1" --format=posix --defined-only | awk '{ print $1 }' | sort >"$1.dynsyms"
	nm "$1" --format=posix --defined-only | awk '{ if ($2 == "T" || $2 == "t" || $2 == "D") print $1 }' |
		sort >"$1.funcsyms"
	comm -13 "$1.dynsyms" "$1.funcsyms" >"$1.keep"
	objcopy --only-keep-debug "$1" "$1.debug"
	objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols="$1.keep" \
		"$1.debug" "$1.mini"
	xz -c "$1.mini" >"$2"
}

# with_debugdata FULL SECTION OUT: FULL stripped, SECTION as .gnu_debugdata
with_debugdata() {
	strip --strip-all -o "$3" "$1"
	objcopy --add-section .gnu_debugdata="$2" "$3"
}

build mdi 01
nm --defined-only mdi.full.so | awk '$3 ~ /^(fix_|execute_fixture)/ { print $3, $1 }' >expect.txt
minidebug mdi.full.so mdi.xz
with_debugdata mdi.full.so mdi.xz mdi.so

build trunc 02
minidebug trunc.full.so trunc.xz
head -c $(($(wc -c <trunc.xz) / 2)) trunc.xz >trunc.half.xz
with_debugdata trunc.full.so trunc.half.xz mdi-trunc.so

build garbage 03
printf 'not xz at all, just text where a stream should be\n' >garbage.bin
with_debugdata garbage.full.so garbage.bin mdi-garbage.so

build bomb 04
head -c $((65 * 1024 * 1024)) /dev/zero | xz -0 -c >bomb.xz
with_debugdata bomb.full.so bomb.xz mdi-bomb.so

# streams for the decoder's ratio bound: 2 MiB that compress ~20 times
# (100 KiB of random bytes, then zeros), and 2 MiB of zeros (~5000 times)
{
	head -c 102400 /dev/urandom
	head -c $((2 * 1024 * 1024 - 102400)) /dev/zero
} | xz -c >ratio20.xz
head -c $((2 * 1024 * 1024)) /dev/zero | xz -c >zeros2m.xz

build notelf 05
printf 'a valid xz stream that holds no ELF\n' | xz -c >notelf.xz
with_debugdata notelf.full.so notelf.xz mdi-notelf.so

# debuglink LINKED DEBUGFILE: LINKED.full.so stripped into link/LINKED.so, linked to DEBUGFILE
debuglink() {
	strip --strip-all -o "link/$1.so" "$1.full.so"
	objcopy --add-gnu-debuglink="$2" "link/$1.so"
}

build innercut 0d
minidebug innercut.full.so innercut.xz
head -c $(($(wc -c <innercut.full.so.mini) / 2)) innercut.full.so.mini | xz -c >innercut.cut.xz
with_debugdata innercut.full.so innercut.cut.xz mdi-innercut.so

build dot 06
objcopy --only-keep-debug dot.full.so link/.debug/dot.debug
debuglink dot link/.debug/dot.debug

build root 07
mkdir -p "root$out/link"
objcopy --only-keep-debug root.full.so "root$out/link/root.debug"
debuglink root "root$out/link/root.debug"

build stale 08
objcopy --only-keep-debug stale.full.so link/.debug/stale.debug
debuglink stale link/.debug/stale.debug
printf 'x' >>link/.debug/stale.debug

build foreign 09
build other 0a
objcopy --only-keep-debug other.full.so link/.debug/foreign.debug
debuglink foreign link/.debug/foreign.debug

build bid 0b
bid=$(readelf -n bid.full.so | awk '/Build ID/ { print $3 }')
mkdir -p "root/.build-id/$(echo "$bid" | cut -c1-2)"
objcopy --only-keep-debug bid.full.so "root/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug"
strip --strip-all -o bid.so bid.full.so

build prec 0c
minidebug prec.full.so prec.xz
mkdir -p "root$out"
objcopy --only-keep-debug prec.full.so "root$out/prec.debug"
strip --strip-all -o prec.so prec.full.so
objcopy --add-gnu-debuglink="root$out/prec.debug" prec.so
objcopy --add-section .gnu_debugdata=prec.xz prec.so
pbid=$(readelf -n prec.full.so | awk '/Build ID/ { print $3 }')
mkdir -p "root-bid/.build-id/$(echo "$pbid" | cut -c1-2)"
objcopy --only-keep-debug prec.full.so "root-bid/.build-id/$(echo "$pbid" | cut -c1-2)/$(echo "$pbid" | cut -c3-).debug"
mkdir -p "root-bid$out"
cp "root$out/prec.debug" "root-bid$out/prec.debug"
touch stamp
