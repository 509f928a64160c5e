#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/matrix/chroot.sh: the Debian 13 (trixie) build chroot for the 6.12 and
# 7.x cells, made once with debootstrap and kept in $MMTUNE_CACHE/matrix.
#
# Why: trixie's kernel headers want gcc-14 and their kbuild binaries (fixdep,
# modpost, objtool) are linked against glibc >= 2.38; Debian 12 has gcc-12 and
# glibc 2.36. Nothing from trixie is installed on the host.
#
#   tests/matrix/chroot.sh            make it if missing, print its path
#   tests/matrix/chroot.sh --run CMD  run CMD (sh -c) inside it, with /proc
#                                     mounted (7.x's objtool needs it) and
#                                     $MMTUNE_CACHE/matrix/{x,cells} bound at
#                                     the same paths, in a private mount
#                                     namespace (nothing leaks on the host)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CH=$MX/chroot-trixie
# gcc-14 native and cross, make, and what linux-kbuild-6.12/7.x link against.
PKGS=gcc-14,make,libc6-dev,libelf1t64,libssl3t64,zlib1g,pahole,gcc-14-aarch64-linux-gnu,gcc-14-powerpc64le-linux-gnu
want="v1 $PKGS"
# Cross compilers added since, installed into the chroot with its own apt
# (which checks them against the Debian keyring debootstrap installed) and
# recorded apart, in .mmtune-extra: a tree whose chroot.sh predates them
# still finds .mmtune-ready as it expects, and does not debootstrap again.
EXTRA=gcc-14-s390x-linux-gnu,gcc-14-riscv64-linux-gnu

make_chroot() {
	if [ "$(cat "$CH/.mmtune-ready" 2>/dev/null)" != "$want" ]; then
		debootstrap_chroot
	fi
	[ "$(cat "$CH/.mmtune-extra" 2>/dev/null)" = "$EXTRA" ] && return 0
	mlog "chroot: apt-get install ${EXTRA//,/ }"
	run_in "export DEBIAN_FRONTEND=noninteractive; apt-get -q update && apt-get -q -y --no-install-recommends install ${EXTRA//,/ } && apt-get clean" \
		> "$MX/chroot-apt.log" 2>&1 ||
		{ tail -n 20 "$MX/chroot-apt.log" >&2; mdie "apt-get in the chroot failed (log: $MX/chroot-apt.log)"; }
	echo "$EXTRA" > "$CH/.mmtune-extra"
}

debootstrap_chroot() {
	command -v debootstrap >/dev/null || mdie "debootstrap missing (tests/deps/matrix.txt)"
	mlog "debootstrap trixie into $CH (once; ~100 s, ~600 MB)"
	rm -rf "$CH.tmp"
	mkdir -p "$MX"
	local t0=$SECONDS
	# Own mount namespace: debootstrap's /proc, /sys mounts cannot leak.
	unshare --mount --propagation private \
		debootstrap --variant=minbase --include="$PKGS,$EXTRA" \
		--keyring="$KEYRING" trixie "$CH.tmp" "$MIRROR" \
		> "$MX/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$MX/debootstrap.log" >&2; mdie "debootstrap failed (log: $MX/debootstrap.log)"; }
	rm -rf "$CH.tmp/var/cache/apt/archives/"*.deb
	rm -rf "$CH"
	mv "$CH.tmp" "$CH"
	echo "$want" > "$CH/.mmtune-ready"
	echo "$EXTRA" > "$CH/.mmtune-extra"
	mlog "chroot ready in $((SECONDS - t0)) s ($(du -sh "$CH" | cut -f1))"
}

run_in() {
	mkdir -p "$MX/x" "$MX/cells" "$CH$MX/x" "$CH$MX/cells"
	unshare --mount --propagation private /bin/sh -ec '
		mount -t proc proc "$1/proc"
		mount --bind /dev "$1/dev"
		mount --bind "$2/x" "$1$2/x"
		mount --bind "$2/cells" "$1$2/cells"
		c=$1; shift 2
		exec chroot "$c" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C /bin/sh -c "$*"' sh "$CH" "$MX" "$@"
}

# One maker at a time: check-matrix's prefetch and a cell's build.sh may
# both get here first.
mkdir -p "$MX"
exec 8>"$MX/.chroot.lock"
flock -w 1800 8 || mdie "another chroot.sh holds $MX/.chroot.lock"
make_chroot
exec 8>&-
if [ "${1:-}" = --run ]; then
	shift
	run_in "$*"
else
	echo "$CH"
fi
