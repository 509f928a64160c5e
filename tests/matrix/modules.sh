#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/matrix/modules.sh CELL: the Debian kernel modules of a matrix cell
# (after tests/matrix/fetch.sh CELL), for a guest that boots that kernel with
# the host's root file system (tests/vm/vng.sh): virtio, 9p and the rest are
# modules in Debian's kernels, and fetch.sh keeps only the kernel of its
# image package. Downloads that package again (the private apt configuration
# of tests/matrix/lib.sh), extracts its lib/modules/<kver> into
# $MMTUNE_CACHE/trace/modules/<kver>/lib/modules/<kver> and depmods it there.
# Prints the directory to stack over /lib/modules; the kernel is linked in
# as <kver>/vmlinuz. tests/check-trace.sh mounts it, in a private mount
# namespace for the VM run alone, as an overlay's lower layer above the
# host's /lib/modules: /lib/modules is never written. (virtme-ng's other
# way, a kernel outside /lib/modules with lib/modules beside it, left the
# guest without /lib/modules/<kver>: its init links them into a tmpfs on
# /lib/modules while its overlay on /lib, started in the background, may
# not be mounted yet, and then hides it.)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cell=${1:?usage: modules.sh CELL}
env=$MX/cells/$cell/cell.env
[ -f "$env" ] || mdie "$cell: no $env (tests/matrix/fetch.sh $cell)"
# shellcheck disable=SC1090 # written by tests/matrix/fetch.sh, not in the tree
. "$env"
T=$CACHE/trace
r=$T/modules/$KVER
out=$r/lib/modules
if [ -e "$r/.done" ]; then
	touch "$r"; echo "$out"; exit 0
fi
mkdir -p "$T/debs"
rm -rf "$r"; mkdir -p "$r"
# 6.x: linux-image-<kver> has the modules; 7.x splits it into
# linux-binary- (the kernel), linux-modules- and linux-base- (modules.*)
n=0
for pkg in "linux-image-$KVER" "linux-modules-$KVER" "linux-base-$KVER"; do
	papt "$DEB_ARCH" apt-cache show "$pkg:$DEB_ARCH=$VERSION" > /dev/null 2>&1 || continue
	deb=$T/debs/${pkg}_${VERSION//:/%3a}_$DEB_ARCH.deb
	if [ ! -s "$deb" ]; then
		mlog "download $pkg:$DEB_ARCH=$VERSION (modules)"
		(cd "$T/debs" && papt "$DEB_ARCH" apt-get download "$pkg:$DEB_ARCH=$VERSION" >/dev/null) ||
			mdie "download of $pkg:$DEB_ARCH=$VERSION failed"
	fi
	dpkg-deb -x "$deb" "$r" || mdie "cannot extract $deb"
	rm -f "$deb"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || mdie "$cell: no linux-image-$KVER of $VERSION"
rm -rf "${r:?}/boot" "${r:?}/usr/share" "${r:?}/etc" "${r:?}/usr/lib/modules"/*/vmlinu[xz]
# a /usr-merged package: the tree depmod -b wants is lib/modules
if [ -d "$r/usr/lib/modules/$KVER" ] && [ ! -d "$r/lib/modules/$KVER" ]; then
	mkdir -p "$r/lib"; mv "$r/usr/lib/modules" "$r/lib/modules"; rm -rf "${r:?}/usr"
fi
[ -d "$out/$KVER/kernel" ] || mdie "$cell: no lib/modules/$KVER/kernel in its packages"
# virtme-ng's initramfs loads the virtio and 9p modules with busybox
# insmod, which hands the kernel the file as it is: uncompressed, they load
# whatever the kernel's CONFIG_MODULE_DECOMPRESS
find "$out/$KVER" -name '*.ko.xz' -print0 | xargs -0 -r -n 256 xz -d
command -v zstd > /dev/null && find "$out/$KVER" -name '*.ko.zst' -print0 | xargs -0 -r -n 256 zstd -q -d --rm
depmod -b "$r" "$KVER"
# the kernel beside its modules, as 7.x's own package has it: booted as
# /lib/modules/<kver>/vmlinuz (tests/check-trace.sh), virtme-ng takes the
# modules of the guest's root file system, the host's
ln -f "$IMAGE" "$out/$KVER/vmlinuz" 2>/dev/null || cp "$IMAGE" "$out/$KVER/vmlinuz"
touch "$r/.done"
mlog "$cell: modules of $KVER in $out ($(du -sh "$r" | cut -f1))"
echo "$out"
