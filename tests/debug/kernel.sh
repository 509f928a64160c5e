#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/debug/kernel.sh: build (once) and cache the debug kernel of
# `make check-debug`; print the cache directory on stdout.
#
# Source: Debian's linux-source-6.1 tarball (/usr/src/linux-source-6.1.tar.xz,
# tests/deps/debug.txt), extracted once to $CACHE/debug/src-<version>.
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
# on $CACHE/debug/lock. Env: MMTUNE_CACHE, MMT_DEBUG_JOBS (default 2),
# MMT_DEBUG_NICE (default 19: the build takes what CPU others leave).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${MMTUNE_CACHE:-/var/cache/mmtune}
TARBALL=/usr/src/linux-source-6.1.tar.xz
FRAGS=("$TOP/tests/debug/base.config" "$TOP/tests/debug/debug.config")
VNG_DIR=$CACHE/virtme-ng/current
JOBS=${MMT_DEBUG_JOBS:-2}
NICE=${MMT_DEBUG_NICE:-19}

. "$TOP/tests/lib.sh"
LOG_TAG=debug-kernel	# log and die

[ -r "$TARBALL" ] || die "no $TARBALL: apt-get install -t bookworm linux-source-6.1"
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
	die "linux-source-6.1 is not installed"
ver=${ver%%-*}
hash=$(cat "${FRAGS[@]}" | sha256sum | cut -c1-12)
DIR=$CACHE/debug/$ver-$hash
SRC=$CACHE/debug/src-$ver/linux-source-6.1

mkdir -p "$CACHE/debug"
exec 9>"$CACHE/debug/lock"
flock 9

if [ -f "$DIR/done" ]; then
	echo "$DIR"
	exit 0
fi

if [ ! -f "$SRC/.extracted" ]; then
	log "extracting $TARBALL to ${SRC%/*}"
	rm -rf "${SRC%/*}"; mkdir -p "${SRC%/*}"
	nice -n "$NICE" tar -xJf "$TARBALL" -C "${SRC%/*}"
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

	# Every line of the fragments must have survived olddefconfig.
	miss=0
	while IFS= read -r l; do
		case $l in
		CONFIG_*=*) grep -qxF "$l" "$B/.config" || { log "not in .config: $l"; miss=1; } ;;
		'# CONFIG_'*' is not set')
			n=${l#\# }; n=${n%% *}
			grep -q "^$n=" "$B/.config" && { log "still set: $n"; miss=1; } ;;
		esac
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
