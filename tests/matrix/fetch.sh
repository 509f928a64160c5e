#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/matrix/fetch.sh CELL: resolve and fetch one cell's Debian packages.
#
# CELL is SERIES-ARCH: SERIES 6.1 (bookworm, bookworm-security), 6.12
# (trixie, trixie-security) or 7 (the newest 7.x of trixie-backports); ARCH
# x86_64, arm64, ppc64le, or a flavour of one: ppc64le-64k, arm64-16k,
# x86_64-rt or arm64-rt (PREEMPT_RT; tests/matrix/lib.sh flavour); a ppc64le ARCH
# may end in -hash: the same kernel, booted with the hash MMU.
#
# Picks the newest linux-headers-<abi>-<flavour> of the series whose -common
# (-common-rt for rt flavours),
# amd64 linux-kbuild and linux-image of the same version the private apt
# configuration can download (7.x: the linux-binary-* the linux-image-*
# metapackage depends on holds the kernel), and the static busybox of the arch
# (bookworm; trixie for riscv64, see userland_suite in lib.sh).
# The .debs go to $MX/debs, each is extracted once under $MX/x, and
# $MX/cells/CELL/cell.env records what was chosen. Exit 3: nothing of this
# series for this arch on the mirror ("unavailable", not a failure of mmtune).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cell=${1:?usage: fetch.sh CELL}
series=${cell%%-*}
arch=${cell#*-}
mmu=
case $arch in *-hash) mmu='hash'; arch=${arch%-hash} ;; esac
base_arch=$(base_arch "$arch")
[ -z "$mmu" ] || [ "$base_arch" = ppc64le ] || mdie "$cell: -hash is for ppc64le cells"
darch=$(deb_arch "$base_arch")
flav=$(flavour "$arch")
case $series in
6.1) pat='6\.1\.0-[0-9]+' ;;
6.12) pat='6\.12\.[0-9]+\+deb13' ;;
7) pat='7\.[0-9]+\.[0-9]+\+deb13' ;;
*) mdie "unknown series '$series' (6.1, 6.12, 7)" ;;
esac
out=$MX/cells/$cell
mkdir -p "$MX/debs" "$MX/x" "$out"

papt_update "$darch"

IDX=$MX/apt-$darch/index

# has PKG ARCH VER: the index lists that package version.
has() { awk -v p="$1" -v a="$2" -v v="$3" '$2 == p && $3 == a && $4 == v { f = 1 } END { exit !f }' "$IDX"; }

# fetch PKG ARCH VER: download and extract once (apt-get download checks the
# .deb against the signed index); prints the directory. Of a kernel image
# package only the kernel and the modules.* lists are kept (the modules
# themselves are not needed: everything the guest uses is built in). The
# .deb is deleted once extracted.
fetch() {
	local deb dir
	deb=$MX/debs/${1}_${3//:/%3a}_$2.deb
	dir=$MX/x/$(basename "$deb" .deb)
	if [ ! -e "$dir/.done" ]; then
		if [ ! -s "$deb" ]; then
			mlog "download $1:$2=$3"
			(cd "$MX/debs" && papt "$darch" apt-get download "$1:$2=$3" >/dev/null) ||
				{ mlog "download of $1:$2=$3 failed"; return 1; }
			[ -s "$deb" ] || { mlog "$1: $deb not there after download"; return 1; }
		fi
		rm -rf "$dir"; mkdir -p "$dir"
		case $1 in
		linux-image-*|linux-binary-*)
			dpkg-deb --fsys-tarfile "$deb" | tar -t |
				grep -E '^\./(boot/vmlinu|(usr/)?lib/modules/[^/]+/(vmlinu|modules\.(builtin|builtin\.modinfo|order)$))' \
				> "$dir/.members" || true
			[ -s "$dir/.members" ] || { mlog "$1: no kernel in $deb"; return 1; }
			dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir" -T "$dir/.members" ;;
		*)
			dpkg-deb -x "$deb" "$dir" ;;
		esac || { mlog "$1: cannot extract $deb"; return 1; }
		touch "$dir/.done"
		rm -f "$deb"
	fi
	touch "$dir" "$dir/.done"	# in use: see prune in check-matrix.sh
	echo "$dir"
}

# Candidates, newest first: "VERSION PACKAGE KBUILD".
cands=$(awk -v a="$darch" -v re="^linux-headers-$pat-$flav\$" \
	'$3 == a && $2 ~ re { print $4, $2, $5 }' "$IDX" | sort -rV | uniq)
while read -r ver h kbuild; do
	[ -n "$ver" ] || continue
	abi=${h#linux-headers-}; abi=${abi%-"$flav"}
	img=linux-image-$abi-$flav
	has "$img" "$darch" "$ver" || { mlog "$h $ver: no $img of that version"; continue; }
	bin=$(awk -v p="$img" -v a="$darch" -v v="$ver" '$2 == p && $3 == a && $4 == v { print $6; exit }' "$IDX")
	if [ -n "$bin" ] && [ "$bin" != - ]; then
		has "$bin" "$darch" "$ver" || { mlog "$h $ver: no $bin of that version"; continue; }
		img=$bin
	fi
	# PREEMPT_RT changes the headers (task_struct among them): an rt
	# flavour's headers include -common-rt, and a module built against
	# plain -common reads the wrong fields (a 6.1 rt guest's GPF)
	common=linux-headers-$abi-common
	case $flav in rt-*) common=$common-rt ;; esac
	has "$common" all "$ver" || { mlog "$h $ver: no $common"; continue; }
	has "$kbuild" amd64 "$ver" || { mlog "$h $ver: no amd64 $kbuild $ver"; continue; }
	hdir=$(fetch "$h" "$darch" "$ver") &&
	cdir=$(fetch "$common" all "$ver") &&
	kdir=$(fetch "$kbuild" amd64 "$ver") &&
	idir=$(fetch "$img" "$darch" "$ver") || continue
	break
done <<< "$cands"
if [ -z "${idir:-}" ]; then
	why=
	# a suite apt left out (its index failed to verify: a stale or
	# mid-sync mirror) is the usual reason; say which
	bad=$(grep -oE "Failed to fetch [^ ]*/dists/[^/]+/main/binary-$darch/Packages[^ ]* +File has unexpected size \([0-9]+ != [0-9]+\)" \
		"$MX/apt-$darch/update.log" 2>/dev/null | sed -E 's|.*/dists/([^/]+)/.*\((.*)\)|\1 (size \2)|' | tr '\n' ' ')
	[ -z "$bad" ] || why="; apt left out these $darch indexes that failed to verify against their InRelease: ${bad% }"
	echo "no usable linux-headers-$pat-$flav for $darch on the mirror$why" > "$out/unavailable"
	mlog "$cell: unavailable: $(cat "$out/unavailable")"
	exit 3
fi
rm -f "$out/unavailable"
bbver=$(awk -v a="$darch" -v s="$(userland_suite "$darch")" '$1 == s && $2 == "busybox-static" && $3 == a { print $4 }' "$IDX" | sort -V | tail -n 1)
bbdir=$(fetch busybox-static "$darch" "$bbver") || mdie "no busybox-static for $darch"
bb=$bbdir/bin/busybox	# trixie's is in /usr/bin
[ -f "$bb" ] || bb=$bbdir/usr/bin/busybox
[ -f "$bb" ] || mdie "no busybox in $bbdir"

# One root for kbuild: flavour headers + common + amd64 kbuild (symlinks in
# the flavour dir point to ../linux-headers-<abi>-common and
# ../../lib/linux-kbuild-<v>); hard links, so it costs no space.
root=$MX/x/root-$abi-$flav
if [ ! -e "$root/.done" ] || [ ! -d "$root/usr/src/$common" ]; then
	rm -rf "$root"; mkdir -p "$root"
	for d in "$hdir" "$cdir" "$kdir"; do cp -al "$d/." "$root/"; done
	touch "$root/.done"
fi
touch "$root"
kver=$abi-$flav
img_file=
for f in "$idir/boot/vmlinuz-$kver" "$idir/boot/vmlinux-$kver" \
	 "$idir/usr/lib/modules/$kver/vmlinuz" "$idir/usr/lib/modules/$kver/vmlinux"; do
	[ -f "$f" ] && img_file=$f && break
done
[ -n "$img_file" ] || mdie "$cell: no kernel image in $idir ($img)"

cat > "$out/cell.env" <<EOT
CELL=$cell
SERIES=$series
ARCH=$arch
BASE_ARCH=$base_arch
MMU=$mmu
DEB_ARCH=$darch
FLAVOUR=$flav
VERSION=$ver
KVER=$kver
KDIR=$root/usr/src/linux-headers-$kver
KCOMMON=$root/usr/src/$common
IMAGE=$img_file
MODULES=$idir/lib/modules/$kver
BUSYBOX=$bb
EOT
mlog "$cell: $kver ($ver)"
