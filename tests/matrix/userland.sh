#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/matrix/userland.sh DEB_ARCH: bookworm's (riscv64: trixie's) dash, bash, coreutils, grep,
# sed, mawk, findutils, perl-base and libc-bin of DEB_ARCH with their
# libraries (apt resolves the closure, we keep the packages of that arch),
# extracted into one tree without docs; prints its path. Built once per arch
# and package list, under $MX.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

darch=${1:?usage: userland.sh DEB_ARCH}
pkgs=${MMT_MATRIX_USERLAND:-dash bash coreutils grep sed mawk findutils perl-base libc-bin}
u=$MX/userland-$darch
want="v1 $pkgs"
# one maker of an arch's tree at a time (check-matrix's cells side by side)
exec 6>"$u.lock"
flock 6
if [ "$(cat "$u/.mmtune-ready" 2>/dev/null)" = "$want" ]; then
	touch "$u"; echo "$u"; exit 0
fi
papt_update "$darch"
specs=()
for p in $pkgs; do specs+=("$p:$darch"); done
# "Inst NAME[:ARCH] (VERSION SUITE [ARCH])": keep DEB_ARCH and all.
list=$(papt "$darch" apt-get install -s --no-install-recommends -t "$(userland_suite "$darch")" "${specs[@]}" |
	sed -n 's/^Inst \([^ :]*\)\(:[^ ]*\)\{0,1\} (\([^ ]*\) [^[]*\[\([^]]*\)\].*/\1 \3 \4/p' |
	awk -v a="$darch" '$3 == a || $3 == "all"')
[ -n "$list" ] || mdie "userland: apt resolved nothing for ${specs[*]}"
mkdir -p "$MX/debs"
rm -rf "$u.tmp"; mkdir -p "$u.tmp"
while read -r p v a; do
	deb=$MX/debs/${p}_${v//:/%3a}_$a.deb
	if [ ! -s "$deb" ]; then
		mlog "download $p:$a=$v"
		(cd "$MX/debs" && papt "$darch" apt-get download "$p:$a=$v" >/dev/null)
	fi
	dpkg-deb -x "$deb" "$u.tmp"
	rm -f "$deb"
done <<< "$list"
rm -rf "$u.tmp"/usr/share/{doc,man,info,locale,lintian,bug} "$u.tmp"/usr/lib/*/gconv
# trixie's packages install under /usr alone (the /bin and /lib links are
# the base system's, not in any of these packages): the initramfs's /bin
# is a directory of busybox links, so put the programs there too (hard
# links) and the dynamic loader where the binaries look for it.
for d in bin sbin; do
	[ -d "$u.tmp/usr/$d" ] || continue
	mkdir -p "$u.tmp/$d"
	cp -aln "$u.tmp/usr/$d/." "$u.tmp/$d/"
done
for f in "$u.tmp"/usr/lib/ld-linux*.so* "$u.tmp"/usr/lib64/ld-linux*.so*; do
	[ -e "$f" ] || continue
	l=${f#"$u.tmp"/usr/}
	[ -e "$u.tmp/$l" ] && continue
	mkdir -p "$u.tmp/$(dirname "$l")"
	ln -s "/usr/$l" "$u.tmp/$l"
done
echo "$want" > "$u.tmp/.mmtune-ready"
rm -rf "$u"; mv "$u.tmp" "$u"
mlog "userland $darch: $(echo "$list" | awk '{print $1}' | tr '\n' ' ')($(du -sh "$u" | cut -f1))"
echo "$u"
