#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/matrix/lib.sh: sourced by the tests/matrix scripts (host side, bash).
#
# Everything downloaded or built lives under $MMTUNE_CACHE/matrix (default
# /var/cache/mmtune/matrix) and is reused by later runs:
#   apt-<arch>/    a PRIVATE apt configuration per target arch (own
#                  sources.list, lists, archive cache, empty dpkg status,
#                  APT::Architectures = <arch> and amd64): the host's apt
#                  state and dpkg architectures are never touched
#   debs/          .debs being downloaded (apt-get download; deleted once
#                  extracted)
#   x/<deb>/       each .deb extracted (of kernel images: the kernel alone)
#   chroot-trixie/ the Debian 13 build chroot (tests/matrix/chroot.sh)
#   cells/<cell>/  per-cell build root, module, probe, initramfs, logs

# shellcheck disable=SC2034 # for the scripts that source this (build.sh, initramfs.sh)
MMT_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${MMTUNE_CACHE:-/var/cache/mmtune}
MX=$CACHE/matrix
MIRROR=${MMT_MIRROR:-http://deb.debian.org/debian}
MIRROR_SEC=${MMT_MIRROR_SEC:-http://deb.debian.org/debian-security}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
export DEBIAN_FRONTEND=noninteractive LC_ALL=C

mlog() { echo "matrix: $*" >&2; }
mdie() { echo "matrix: error: $*" >&2; exit 1; }

# base_arch ARCH: a cell arch without its flavour (-64k, -16k, -rt).
base_arch() {
	case $1 in *-64k|*-16k|*-rt) echo "${1%-*}" ;; *) echo "$1" ;; esac
}
# Debian arch name of a cell arch.
deb_arch() {
	case $1 in
	x86_64) echo amd64 ;; arm64) echo arm64 ;; ppc64le) echo ppc64el ;;
	s390x) echo s390x ;; riscv64) echo riscv64 ;;
	*) mdie "unknown arch $1" ;;
	esac
}
# The Debian release the guest's userland (busybox, dash, coreutils...) comes
# from: bookworm, but for riscv64, a release arch only from Debian 13 on.
userland_suite() {
	case $1 in riscv64) echo trixie ;; *) echo bookworm ;; esac
}
# Kernel image flavour of a cell: arch and optional variant (ppc64le's -64k,
# arm64's -16k, amd64's and arm64's PREEMPT_RT -rt).
flavour() {
	case $1 in
	x86_64) echo amd64 ;; arm64) echo arm64 ;; ppc64le) echo powerpc64le ;;
	ppc64le-64k) echo powerpc64le-64k ;; arm64-16k) echo arm64-16k ;;
	x86_64-rt) echo rt-amd64 ;; arm64-rt) echo rt-arm64 ;;
	s390x) echo s390x ;; riscv64) echo riscv64 ;;
	*) mdie "unknown arch $1" ;;
	esac
}
cross_prefix() {
	case $1 in
	x86_64) echo "" ;; arm64) echo aarch64-linux-gnu- ;;
	ppc64le*) echo powerpc64le-linux-gnu- ;;
	s390x) echo s390x-linux-gnu- ;; riscv64) echo riscv64-linux-gnu- ;;
	esac
}
kbuild_arch() {
	case $1 in
	x86_64) echo x86 ;; arm64) echo arm64 ;; ppc64le*) echo powerpc ;;
	s390x) echo s390 ;; riscv64) echo riscv ;;
	esac
}

# papt ARCH apt-get|apt-cache ARGS...: apt with the private configuration of ARCH.
papt() {
	local a=$1 tool=$2; shift 2
	local d=$MX/apt-$a
	# one apt of an arch at a time (cells fetch and build side by side)
	mkdir -p "$d"
	flock "$d/.lock" "$tool" -q -o "Dir::Etc::SourceList=$d/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null \
		-o "Dir::State=$d" -o "Dir::State::Lists=$d/lists" \
		-o "Dir::State::status=$d/status" -o "Dir::Cache=$d/cache" \
		-o Dir::Cache::pkgcache=pkgcache.bin -o Dir::Cache::srcpkgcache= \
		-o APT::Architecture=amd64 -o "APT::Architectures=amd64,$a" \
		-o Acquire::Languages=none -o APT::Sandbox::User=root \
		-o Acquire::Retries=3 "$@"
}

# papt_update ARCH: (re)create the private config, refresh its lists when
# older than $MMT_APT_MAX_AGE seconds (default 1 day) or missing.  A suite
# whose index fails to verify (a mirror mid-sync) is left out by apt; the
# cells then use what the other suites offer, or report "unavailable".
papt_update() {
	local a=$1 d stamp
	d=$MX/apt-$a
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	cat > "$d/sources.list.new" <<-EOT
	deb [signed-by=$KEYRING] $MIRROR bookworm main
	deb [signed-by=$KEYRING] $MIRROR_SEC bookworm-security main
	deb [signed-by=$KEYRING] $MIRROR trixie main
	deb [signed-by=$KEYRING] $MIRROR_SEC trixie-security main
	deb [signed-by=$KEYRING] $MIRROR trixie-backports main
	EOT
	if ! cmp -s "$d/sources.list.new" "$d/sources.list"; then
		mv "$d/sources.list.new" "$d/sources.list"; rm -f "$d/stamp"
	else
		rm -f "$d/sources.list.new"
	fi
	[ -e "$d/status" ] || : > "$d/status"
	stamp=$(stat -c %Y "$d/stamp" 2>/dev/null || echo 0)
	if [ $(( $(date +%s) - stamp )) -lt "${MMT_APT_MAX_AGE:-86400}" ]; then
		return 0
	fi
	mlog "apt update ($a, private config in $d)"
	papt "$a" apt-get update > "$d/update.log" 2>&1 ||
		mlog "warning: apt update ($a) had errors: $(grep -E '^(E|Err):' "$d/update.log" | head -n 3 | tr '\n' ' ')"
	# The few packages the matrix looks at, one line each (apt-cache
	# takes seconds per call on a loaded machine):
	# SUITE PACKAGE ARCH VERSION KBUILD-DEPENDENCY BINARY-DEPENDENCY
	# (7.x's linux-image-* is a metapackage: the kernel is in the
	# linux-binary-* it depends on)
	papt "$a" apt-get indextargets --format '$(CODENAME) $(FILENAME)' 'Created-By: Packages' |
	while read -r suite f; do
		/usr/lib/apt/apt-helper cat-file "$f" | awk -v s="$suite" '
			BEGIN { k = b = "-" }
			/^Package: / { p = $2 } /^Architecture: / { a = $2 } /^Version: / { v = $2 }
			/^Depends: / {
				if (match($0, /linux-kbuild-[^ ,]*/)) k = substr($0, RSTART, RLENGTH)
				if (match($0, /linux-binary-[^ ,]*/)) b = substr($0, RSTART, RLENGTH)
			}
			/^$/ { if (p ~ /^(linux-(headers|image|kbuild|binary)-|busybox-static$)/) print s, p, a, v, k, b
			       p = a = v = ""; k = b = "-" }'
	done > "$d/index.new"
	mv "$d/index.new" "$d/index"
	touch "$d/stamp"
}
