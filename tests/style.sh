#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel style of module/: checkpatch.pl --strict (from Debian's
# linux-source package) on each file, sparse (make C=2) and the compiler's
# extra warnings (make W=1); shellcheck -S warning on the tree's sh and bash
# scripts. One KTAP result each (tests/lib.sh).
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

# module/ and its folders (module/pfn_valid/): git's pathspec * spans a /
for f in $(cd "$top" && git ls-files 'module/*.c' 'module/*.h' 2>/dev/null ||
	   (cd "$top" && ls module/*.[ch] module/*/*.[ch])); do
	out=$("$cp" --strict --no-tree --terse --show-types -f "$top/$f" 2>&1 |
	      grep -v '^total:')
	if [ -z "$out" ]; then
		ok "checkpatch --strict $f"
	else
		fail "checkpatch --strict $f: $(echo "$out" | head -n 1)"
		echo "$out" | sed 's/^/# /' >&2
	fi
done

# Every sh and bash script of the tree through shellcheck -S warning (its
# settings in .shellcheckrc): git's files, else those under tests/, bench/ and
# .ci/, named like these, whose first line is a sh or bash shebang
scripts=$(cd "$top" && { git ls-files '*.sh' .ci/run 'tests/debug/*' 2>/dev/null ||
	find tests bench .ci -path tests/out -prune -o -type f \
		\( -name '*.sh' -o -path .ci/run -o -path 'tests/debug/*' \) -print 2>/dev/null; } |
	while read -r f; do
		head -n 1 "$f" | grep -qE '^#!.*\b(ba)?sh\b' && echo "$f"
	done)
n=$(echo "$scripts" | wc -w)
if ! command -v shellcheck > /dev/null; then
	fail "shellcheck -S warning ($n scripts): no shellcheck (apt-get install -t bookworm shellcheck)"
else
	# shellcheck disable=SC2086 # the names, split (none has a space)
	out=$(cd "$top" && shellcheck -S warning -f gcc $scripts 2>&1)
	if [ -z "$out" ]; then
		ok "shellcheck -S warning ($n scripts)"
	else
		fail "shellcheck -S warning ($n scripts): $(echo "$out" | wc -l) findings: $(echo "$out" | head -n 3 | awk 'NR > 1 { printf " | " } { printf "%s", $0 }')"
		echo "$out" | sed 's/^/# /' >&2
	fi
fi

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
