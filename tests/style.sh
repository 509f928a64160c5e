#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel style of module/: checkpatch.pl --strict (from Debian's
# linux-source package) and sparse (make C=2).  One ok/not ok line each.
#   tests/style.sh KDIR
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
kdir=${1:?usage: style.sh KDIR}
cache=${MMTUNE_CACHE:-/var/cache/mmtune}/checkpatch
cp=$cache/checkpatch.pl

if [ ! -x "$cp" ]; then
	src=$(ls /usr/src/linux-source-*.tar.* 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$src" ]; then
		echo "not ok - checkpatch: no /usr/src/linux-source-*.tar.* (install linux-source-6.1)"
		exit 1
	fi
	mkdir -p "$cache"
	tar -xf "$src" -C "$cache" --wildcards --strip-components=2 \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi

rc=0
for f in $(cd "$top" && git ls-files 'module/*.c' 'module/*.h' 2>/dev/null ||
	   (cd "$top" && ls module/*.[ch])); do
	out=$("$cp" --strict --no-tree --terse --show-types -f "$top/$f" 2>&1 |
	      grep -v '^total:')
	if [ -z "$out" ]; then
		echo "ok - checkpatch --strict $f"
	else
		echo "not ok - checkpatch --strict $f: $(echo "$out" | head -n 1)"
		echo "$out" | sed 's/^/# /' >&2
		rc=1
	fi
done

log=$(mktemp)
if make -s -C "$kdir" M="$top" C=2 modules >"$log" 2>&1; then
	warn=$(grep -E 'warning:|error:' "$log")
	if [ -z "$warn" ]; then
		echo "ok - sparse (make C=2) clean"
	else
		echo "not ok - sparse: $(echo "$warn" | head -n 1)"
		rc=1
	fi
else
	echo "not ok - sparse build failed: $(tail -n 1 "$log")"
	rc=1
fi
rm -f "$log"
exit $rc
