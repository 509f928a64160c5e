#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel style of module/: checkpatch.pl --strict (from Debian's
# linux-source package) on each file, sparse (make C=2) and the compiler's
# extra warnings (make W=1). One KTAP result each (tests/lib.sh).
#   tests/style.sh KDIR
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
kdir=${1:?usage: style.sh KDIR}
cache=${MMTUNE_CACHE:-/var/cache/mmtune}/checkpatch
cp=$cache/checkpatch.pl
. "$top/tests/lib.sh"
ktap_print_header

if [ ! -x "$cp" ]; then
	src=$(ls /usr/src/linux-source-*.tar.* 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$src" ]; then
		fail "checkpatch: no /usr/src/linux-source-*.tar.* (install linux-source-6.1)"
		ktap_finished
	fi
	mkdir -p "$cache"
	tar -xf "$src" -C "$cache" --wildcards --strip-components=2 \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi

for f in $(cd "$top" && git ls-files 'module/*.c' 'module/*.h' 2>/dev/null ||
	   (cd "$top" && ls module/*.[ch])); do
	out=$("$cp" --strict --no-tree --terse --show-types -f "$top/$f" 2>&1 |
	      grep -v '^total:')
	if [ -z "$out" ]; then
		ok "checkpatch --strict $f"
	else
		fail "checkpatch --strict $f: $(echo "$out" | head -n 1)"
		echo "$out" | sed 's/^/# /' >&2
	fi
done

# build NAME MAKEARGS...: a build of the module whose warnings fail NAME.
# Each rebuilds every object: C=2 checks every file, and a change of the
# flags (W=1) makes kbuild recompile.
log=$(mktemp)
build() {
	local name=$1 warn
	shift
	if make -s -C "$kdir" M="$top" "$@" modules >"$log" 2>&1; then
		warn=$(grep -E 'warning:|error:' "$log")
		if [ -z "$warn" ]; then
			ok "$name clean"
		else
			fail "$name: $(echo "$warn" | head -n 1) ($(echo "$warn" | wc -l) warnings)"
			echo "$warn" | sed 's/^/# /'
		fi
	else
		fail "$name: build failed: $(tail -n 1 "$log")"
	fi
}
build "sparse (make C=2)" C=2
build "extra warnings (make W=1)" W=1
rm -f "$log"
ktap_finished
