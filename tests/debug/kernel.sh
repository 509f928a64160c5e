#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/debug/kernel.sh: build (once) and cache the debug kernel of
# `make check-debug`; print the cache directory on stdout.
#
# Source: Debian's linux-source-<series> tarball, extracted once to
# $CACHE/debug/src-<version>.  6.1 (the default): the host's package
# (/usr/src/linux-source-6.1.tar.xz, tests/deps/debug.txt).  Another series
# (MMT_DEBUG_KVER=7.3): its package from trixie-backports, downloaded with
# the matrix's private apt configuration of amd64 (tests/matrix/lib.sh:
# the host's apt state is not touched, nothing is installed) and unpacked
# with dpkg-deb under $CACHE/debug/pkg-<version>.  Either is built with
# the host's compiler, as the module is then.
# Config: virtme-ng's smallest config (virtme-configkernel --allnoconfig; `vng
# --kconfig` runs its --defconfig, twice the size), then tests/debug/base.config
# (what the guest needs) and tests/debug/debug.config (the checkers, what the
# module needs) merged over it with scripts/kconfig/merge_config.sh and
# `make olddefconfig`.
# Output: $CACHE/debug/<version>-<hash of both fragments>/ with
#   build/            the O= build tree: `make module KDIR=.../build`
#   bzImage           the kernel, everything the guest needs built in (=y)
#   release           its `uname -r`
#   build-seconds     the measured wall time of the build
# Reused when present (a 'done' stamp is written last). Serialized by a flock
# on $CACHE/debug/lock. Env: MMTUNE_CACHE, MMT_DEBUG_KVER (the series,
# default 6.1), MMT_DEBUG_JOBS (default 2), MMT_DEBUG_NICE (default 19: the
# build takes what CPU others leave).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${MMTUNE_CACHE:-/var/cache/mmtune}
KVER=${MMT_DEBUG_KVER:-6.1}
FRAGS=("$TOP/tests/debug/base.config" "$TOP/tests/debug/debug.config")
VNG_DIR=$CACHE/virtme-ng/current
JOBS=${MMT_DEBUG_JOBS:-2}
NICE=${MMT_DEBUG_NICE:-19}

. "$TOP/tests/lib.sh"
LOG_TAG=debug-kernel	# log and die

# fetch_source PKG: the newest PKG (linux-source-<series>) of the matrix's
# amd64 apt configuration, downloaded and unpacked once under
# $CACHE/debug/pkg-<version>/; prints its tarball's path.
fetch_source() {
	local pkg=$1 v d
	(
		# one download and unpack at a time
		exec 8>"$CACHE/debug/fetch.lock"
		flock 8
		# shellcheck source=../matrix/lib.sh
		. "$TOP/tests/matrix/lib.sh"
		papt_update amd64 >&2
		v=$(papt amd64 apt-cache policy "$pkg" | awk '/Candidate:/ { print $2 }')
		if [ -z "$v" ] || [ "$v" = "(none)" ]; then
			mdie "no $pkg in the private apt of amd64"
		fi
		d=$CACHE/debug/pkg-$v
		if [ ! -f "$d/.unpacked" ]; then
			rm -rf "$d" "$CACHE/debug/debs"; mkdir -p "$d" "$CACHE/debug/debs"
			log "downloading $pkg $v (private apt configuration)"
			(cd "$CACHE/debug/debs" && papt amd64 apt-get download "$pkg=$v" >/dev/null) ||
				mdie "apt-get download $pkg=$v failed"
			dpkg-deb -x "$CACHE"/debug/debs/"${pkg}"_*.deb "$d"
			rm -rf "$CACHE/debug/debs"
			touch "$d/.unpacked"
		fi
		ls "$d"/usr/src/"$pkg".tar.*
	)
}

mkdir -p "$CACHE/debug"

PKG=linux-source-$KVER
if [ "$KVER" = 6.1 ]; then
	TARBALL=/usr/src/$PKG.tar.xz
	[ -r "$TARBALL" ] || die "no $TARBALL: apt-get install -t bookworm $PKG"
	ver=$(dpkg-query -W -f='${Version}' "$PKG" 2>/dev/null) ||
		die "$PKG is not installed"
else
	TARBALL=$(fetch_source "$PKG") || die "could not fetch $PKG"
	ver=${TARBALL#"$CACHE/debug/pkg-"}; ver=${ver%%/*}
fi
ver=${ver%%-*}
hash=$(cat "${FRAGS[@]}" | sha256sum | cut -c1-12)
DIR=$CACHE/debug/$ver-$hash
SRC=$CACHE/debug/src-$ver/$PKG

# A built kernel is used without the lock (the build of another series may
# hold it for twenty minutes); a build waits for it.
if [ -f "$DIR/done" ]; then
	echo "$DIR"
	exit 0
fi
exec 9>"$CACHE/debug/lock"
flock 9

if [ -f "$DIR/done" ]; then
	echo "$DIR"
	exit 0
fi

if [ ! -f "$SRC/.extracted" ]; then
	log "extracting $TARBALL to ${SRC%/*}"
	rm -rf "${SRC%/*}"; mkdir -p "${SRC%/*}"
	nice -n "$NICE" tar -xf "$TARBALL" -C "${SRC%/*}"
	touch "$SRC/.extracted"
fi

B=$DIR/build
t0=$(date +%s)
# A build cut short (no 'done') resumes: make is incremental.
if [ ! -f "$DIR/configured" ]; then
	rm -rf "$DIR"; mkdir -p "$B"
	log "config: virtme-configkernel --allnoconfig, then ${FRAGS[*]##*/}"
	(cd "$SRC" && PYTHONPATH=$VNG_DIR/usr/lib/python3/dist-packages \
		/usr/bin/python3 "$VNG_DIR/usr/bin/virtme-configkernel" --allnoconfig \
		"O=$B") >"$DIR/config.log" 2>&1 || die "virtme-configkernel failed: $DIR/config.log"
	(cd "$SRC" && scripts/kconfig/merge_config.sh -m -O "$B" "$B/.config" "${FRAGS[@]}") \
		>>"$DIR/config.log" 2>&1 || die "merge_config failed: $DIR/config.log"
	make -s -C "$SRC" O="$B" olddefconfig >>"$DIR/config.log" 2>&1

	# Every line of the fragments must have survived olddefconfig, but
	# a symbol this series does not have (7.x: PROC_SYSCTL is SYSCTL's)
	# and the "less to build" section's wishes (7.x: MICROCODE is no
	# longer a choice), which are logged.
	miss=0 wish=0
	kconfigs=$(find "$SRC" -name 'Kconfig*' -not -path '*/Documentation/*')
	while IFS= read -r l; do
		case $l in
		'# --- a distinct release; and less to build'*) wish=1; continue ;;
		CONFIG_*=*) n=${l%%=*}; grep -qxF "$l" "$B/.config" && continue ;;
		'# CONFIG_'*' is not set')
			n=${l#\# }; n=${n%% *}
			grep -q "^$n=" "$B/.config" || continue ;;
		*) continue ;;
		esac
		# shellcheck disable=SC2086 # the list of Kconfig files
		if ! grep -qx "\(menu\)\?config ${n#CONFIG_}" $kconfigs; then
			log "not in this kernel's Kconfig, ignored: $l"
		elif [ $wish = 1 ]; then
			log "not applied, ignored (less to build): $l"
		else
			log "did not apply: $l"; miss=1
		fi
	done < <(cat "${FRAGS[@]}")
	[ $miss = 0 ] || die "the fragments did not apply (see above)"
	date +%s > "$DIR/configured"
else
	log "resuming the build in $DIR"
	t0=$(cat "$DIR/configured")
fi

log "building in $B (make -j$JOBS, nice $NICE)"
nice -n "$NICE" make -C "$SRC" O="$B" -j"$JOBS" bzImage modules >>"$DIR/build.log" 2>&1 ||
	die "build failed: tail $DIR/build.log"
nice -n "$NICE" make -C "$SRC" O="$B" -j"$JOBS" modules_prepare >>"$DIR/build.log" 2>&1
cp "$B/arch/x86/boot/bzImage" "$DIR/bzImage"
make -s -C "$SRC" O="$B" kernelrelease > "$DIR/release"
if grep -q '=m$' "$B/.config"; then
	nice -n "$NICE" make -C "$SRC" O="$B" INSTALL_MOD_PATH="$DIR/mods" modules_install \
		>>"$DIR/build.log" 2>&1
fi
echo $(( $(date +%s) - t0 )) > "$DIR/build-seconds"	# wall time, resumes included
touch "$DIR/done"
log "built $(cat "$DIR/release") in $(cat "$DIR/build-seconds")s"
echo "$DIR"
