#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/matrix/rootfs-bpftrace.sh DEB_ARCH: the user land of make check-trace's
# foreign-arch guest (tests/check-trace.sh): bookworm's linux-perf, bpftrace,
# trace-cmd and hyperfine of DEB_ARCH, t-63-replay's real programs (sqlite3,
# git, and linux-libc-dev's headers for git grep to search), with the shell
# and tools the suites were written against, their whole dependency closure
# resolved by apt with DEB_ARCH as the native architecture (a private
# configuration: papt in tests/matrix/lib.sh; with amd64 native, as for the
# matrix's smaller tests/matrix/userland.sh, perl's Multi-Arch packages do
# not resolve) and extracted into one tree without docs (dpkg-deb -x: no
# maintainer script runs, so nothing of DEB_ARCH has to run on the host).
# Prints its path: $MMTUNE_CACHE/trace/rootfs-DEB_ARCH, made once per
# package list.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

darch=${1:?usage: rootfs.sh DEB_ARCH}
pkgs="dash bash coreutils grep sed mawk findutils perl-base libc-bin procps util-linux kmod"
pkgs="$pkgs linux-perf bpftrace trace-cmd hyperfine sqlite3 git linux-libc-dev"
T=$CACHE/trace
u=$T/rootfs-$darch
want="v1 $pkgs"
if [ "$(cat "$u/.mmtune-ready" 2>/dev/null)" = "$want" ]; then
	touch "$u"; echo "$u"; exit 0
fi
papt_update "$darch"
native=(-o "APT::Architecture=$darch" -o "APT::Architectures=$darch")
# shellcheck disable=SC2086 # the package list
list=$(papt "$darch" apt-get "${native[@]}" install -s --no-install-recommends -t bookworm $pkgs |
	sed -n 's/^Inst \([^ :]*\)\(:[^ ]*\)\{0,1\} (\([^ ]*\) [^[]*\[\([^]]*\)\].*/\1 \3 \4/p')
[ -n "$list" ] || mdie "trace rootfs: apt resolved nothing for $pkgs"
mkdir -p "$T/debs"
rm -rf "$u.tmp"; mkdir -p "$u.tmp"
t0=$SECONDS
while read -r p v a; do
	deb=$T/debs/${p}_${v//:/%3a}_$a.deb
	if [ ! -s "$deb" ]; then
		(cd "$T/debs" && papt "$darch" apt-get "${native[@]}" download "$p:$a=$v" >/dev/null) ||
			mdie "trace rootfs: download of $p:$a=$v failed"
	fi
	dpkg-deb -x "$deb" "$u.tmp"
done <<< "$list"
rm -rf "$u.tmp"/usr/share/{doc,man,info,locale,lintian,bug}
echo "$want" > "$u.tmp/.mmtune-ready"
rm -rf "$u"; mv "$u.tmp" "$u"
rm -f "$T"/debs/*_"$darch".deb "$T"/debs/*_all.deb
mlog "trace rootfs $darch: $(echo "$list" | wc -l) packages in $((SECONDS - t0)) s ($(du -sh "$u" | cut -f1))"
echo "$u"
