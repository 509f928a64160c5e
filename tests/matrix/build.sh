#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/matrix/build.sh CELL: build module/mmtune.ko for one cell (after
# fetch.sh) into $MX/cells/CELL/build, from a fresh copy of module/.
#
# 6.1 cells build on the host (bookworm's gcc-12 and its cross compilers);
# 6.12 and 7.x cells in the trixie chroot (gcc-14, kbuild needs glibc 2.38).
# Cross builds need no emulation: Debian's flavour headers + -common + the
# amd64 linux-kbuild, `make -C <common> O=<flavour> CROSS_COMPILE=...`.
# Also builds the static probes (faultprobe, kcoreprobe, policyflip, stallprobe) and
# userspace tools of the arch (host cross gcc-12; a static binary runs on
# every kernel). Log: $MX/cells/CELL/build.log.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cell=${1:?usage: build.sh CELL}
out=$MX/cells/$cell
[ -f "$out/cell.env" ] || mdie "$cell: run fetch.sh first"
. "$out/cell.env"
VERSION_MMT=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$MMT_TOP/dkms.conf")
cross=$(cross_prefix "$BASE_ARCH")
karch=$(kbuild_arch "$BASE_ARCH")
jobs=${MMT_JOBS:-2}

# the -common the flavour's headers were made with (their Makefile includes
# it): another one builds and loads, and reads the wrong fields (rt)
inc=$(sed -n 's|^include .*/\([^/]*\)/Makefile$|\1|p' "$KDIR/Makefile")
[ -z "$inc" ] || [ "$inc" = "$(basename "$KCOMMON")" ] ||
	mdie "$cell: $KDIR includes $inc, not $(basename "$KCOMMON") (run fetch.sh again)"

b=$out/build
cmd="make -s -j$jobs -C $KCOMMON O=$KDIR M=$b ARCH=$karch"
[ -n "$cross" ] && cmd="$cmd CROSS_COMPILE=$cross"
cmd="$cmd MMTUNE_VERSION=$VERSION_MMT modules"
log=$out/build.log
# The module's inputs: its sources, the kernel (release and package
# version) and the command. The same as the last build's: that build's
# mmtune.ko is this one (a warm CI run whose commit left module/ alone
# builds no cell: about 25 s a cell under load).
key=$( { echo "$KVER $VERSION $cmd"
	 cd "$MMT_TOP/module" && sha256sum Kbuild ./*.[ch] ./*/*.[ch] | grep -v '\.mod\.c$'; } | sha256sum | cut -c1-64)
{
	echo "# $cell: $KVER ($VERSION)"
	echo "# $cmd"
} > "$log"
if [ -f "$out/mmtune.ko" ] && [ "$(cat "$out/build.key" 2>/dev/null)" = "$key" ]; then
	echo "# the same inputs as the last build's (key $key): its mmtune.ko kept" >> "$log"
else
	rm -rf "$b" "$out/mmtune.ko" "$out/build.key"
	mkdir -p "$b"
	# module/ with its folders (module/pfn_valid/)
	(cd "$MMT_TOP/module" && cp --parents Kbuild ./*.[ch] ./*/*.[ch] "$b/")
	rm -f "$b"/*.mod.c
	case $SERIES in
	6.1) (cd "$b" && $cmd) >> "$log" 2>&1 ;;
	*) "$(dirname "$0")/chroot.sh" --run "cd $b && $cmd" >> "$log" 2>&1 ;;
	esac || { tail -n 30 "$log" >&2; exit 1; }
	[ -f "$b/mmtune.ko" ] || { tail -n 30 "$log" >&2; mdie "$cell: no mmtune.ko"; }
	cp "$b/mmtune.ko" "$out/mmtune.ko"
	echo "$key" > "$out/build.key"
fi
# t-52-livepatch's test livepatch (tests/vm/livepatch), built the same
# way where the kernel has CONFIG_LIVEPATCH=y (x86_64's); else none, and
# the suite skips
lp=$out/lpbuild
lpcmd=${cmd/M=$b /M=$lp }
lpkey=$( { echo "$KVER $VERSION $lpcmd"
	   cd "$MMT_TOP/tests/vm/livepatch" && sha256sum Kbuild ./*.c; } | sha256sum | cut -c1-64)
if ! grep -q '^CONFIG_LIVEPATCH=y' "$KDIR/.config"; then
	rm -rf "$lp" "$out/mmt_lp.ko" "$out/lp.key"
	echo "# no CONFIG_LIVEPATCH=y: no test livepatch" >> "$log"
elif [ ! -f "$out/mmt_lp.ko" ] || [ "$(cat "$out/lp.key" 2>/dev/null)" != "$lpkey" ]; then
	rm -rf "$lp" "$out/mmt_lp.ko" "$out/lp.key"
	mkdir -p "$lp"
	cp "$MMT_TOP"/tests/vm/livepatch/Kbuild "$MMT_TOP"/tests/vm/livepatch/*.c "$lp/"
	echo "# $lpcmd" >> "$log"
	case $SERIES in
	6.1) (cd "$lp" && $lpcmd) >> "$log" 2>&1 ;;
	*) "$(dirname "$0")/chroot.sh" --run "cd $lp && $lpcmd" >> "$log" 2>&1 ;;
	esac || { tail -n 30 "$log" >&2; exit 1; }
	cp "$lp/mmt_lp.ko" "$out/mmt_lp.ko"
	echo "$lpkey" > "$out/lp.key"
fi
vm=$(strings "$out/mmtune.ko" | sed -n 's/^vermagic=//p')
echo "# vermagic: $vm" >> "$log"
case $vm in "$KVER "*) ;; *) mdie "$cell: vermagic '$vm' is not $KVER" ;; esac

# The static probes (tests/vm/probe) and tools, once per arch: one cell of
# the arch at a time builds or checks them (check-matrix runs cells side by
# side). A probe is named by its source's content: trees with different
# probes (worktrees sharing this cache) each get their own, where a name
# per arch with a time test gave one tree's newer build to another (a
# faultprobe without the FAULTPROBE_UID of the tree that ran it).
exec 6>"$MX/.tools-$BASE_ARCH.lock"
flock 6
psum() { sha256sum "$MMT_TOP/tests/vm/probe/$1.c" | cut -c1-16; }
probe=$MX/probe-$BASE_ARCH-$(psum faultprobe)
kcore=$MX/kcoreprobe-$BASE_ARCH-$(psum kcoreprobe)
flip=$MX/policyflip-$BASE_ARCH-$(psum policyflip)
stall=$MX/stallprobe-$BASE_ARCH-$(psum stallprobe)
for p in "$probe:faultprobe" "$kcore:kcoreprobe" "$flip:policyflip" "$stall:stallprobe"; do
	bin=${p%%:*} src=$MMT_TOP/tests/vm/probe/${p#*:}.c
	if [ ! -x "$bin" ]; then
		${cross}gcc -O2 -static -pthread -o "$bin.tmp" "$src" >> "$log" 2>&1 ||
			{ tail -n 5 "$log" >&2; mdie "cannot build the static ${p#*:} for $BASE_ARCH"; }
		mv "$bin.tmp" "$bin"
	fi
done
# The userspace tools (mmtunectl, mmstress), static, once per arch and
# change of userspace/ or of the names it shares with the module
# (module/mmtune_abi.h, module/mmtune_rule_keys.h): the suites that drive
# the module through them.
# The change is told by content (a fresh clone's files are all new).
tools=$MX/tools-$BASE_ARCH
tkey=$( { echo "$cross $VERSION_MMT"
	  cd "$MMT_TOP" && find userspace -type f \( -name '*.[ch]' -o -name Makefile \) |
		sort | xargs sha256sum module/mmtune_abi.h module/mmtune_rule_keys.h; } | sha256sum | cut -c1-64)
if [ ! -x "$tools/mmtunectl" ] || [ ! -x "$tools/mmstress" ] ||
   [ "$(cat "$tools/.key" 2>/dev/null)" != "$tkey" ]; then
	rm -rf "$tools"; mkdir -p "$tools"
	make -s -C "$MMT_TOP/userspace" O="$tools" CC="${cross}gcc" LDFLAGS=-static \
		VERSION="$VERSION_MMT" >> "$log" 2>&1 ||
		{ tail -n 5 "$log" >&2; mdie "cannot build the static userspace tools for $BASE_ARCH"; }
	echo "$tkey" > "$tools/.key"
fi
exec 6>&-
echo "PROBE=$probe" > "$out/build.env"
echo "KCORE=$kcore" >> "$out/build.env"
echo "FLIP=$flip" >> "$out/build.env"
echo "STALL=$stall" >> "$out/build.env"
echo "TOOLS=$tools" >> "$out/build.env"
