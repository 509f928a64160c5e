#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/build-plugin.sh OUT.so: build bench/plugin/insncount.c (a QEMU TCG
# plugin) into OUT.so, for bench/insn.sh.
#
# The plugin API is one header, include/qemu/qemu-plugin.h, which Debian
# 12 ships only in its qemu source package.  It is fetched once with
# `apt-get source --download-only qemu` through a PRIVATE apt
# configuration (own deb-src sources.list for bookworm, lists, cache, empty
# dpkg status: the host's apt state is never touched) into
# ${MMTUNE_CACHE:-/var/cache/mmtune}/qemu-src, and only that header is
# extracted from the upstream tarball (Debian's patches do not touch it).
# The header must be the API of the qemu that loads the plugin: the
# source version fetched is the installed qemu-system-x86's.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${MMTUNE_CACHE:-/var/cache/mmtune}
Q=$CACHE/qemu-src
out=${1:?usage: bench-plugin.sh OUT.so}

. "$TOP/tests/lib.sh"
LOG_TAG=bench-plugin	# log

ver=$(dpkg-query -W -f='${source:Version}' qemu-system-x86 2>/dev/null) ||
	{ log "qemu-system-x86 is not installed (tests/setup.sh)"; exit 1; }
hdr=$Q/$ver/include/qemu-plugin.h

fetch() {
	local d=$Q/apt K=/usr/share/keyrings/debian-archive-keyring.gpg tarball up
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$Q/$ver/include"
	[ -e "$d/status" ] || : > "$d/status"
	cat > "$d/sources.list" <<-EOT
	deb-src [signed-by=$K] http://deb.debian.org/debian bookworm main
	deb-src [signed-by=$K] http://deb.debian.org/debian-security bookworm-security main
	deb-src [signed-by=$K] http://deb.debian.org/debian bookworm-updates main
	EOT
	local papt=(-q -o "Dir::Etc::SourceList=$d/sources.list"
		-o Dir::Etc::SourceParts=/dev/null
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
		-o "Dir::State=$d" -o "Dir::State::Lists=$d/lists"
		-o "Dir::State::status=$d/status" -o "Dir::Cache=$d/cache"
		-o APT::Architecture=amd64 -o Acquire::Languages=none
		-o APT::Sandbox::User=root)
	log "fetching the qemu $ver source (private apt config in $d)"
	apt-get "${papt[@]}" update > "$Q/update.log" 2>&1 ||
		{ log "apt-get update failed: $(tail -n 3 "$Q/update.log")"; return 1; }
	(cd "$Q" && apt-get "${papt[@]}" source --download-only "qemu=$ver") > "$Q/source.log" 2>&1 ||
		{ log "apt-get source failed: $(tail -n 3 "$Q/source.log")"; return 1; }
	up=${ver#*:}		# epoch off
	tarball=$(ls "$Q/qemu_${up%-*}".orig.tar.*)	# Debian revision off
	tar -xf "$tarball" -O --wildcards '*/include/qemu/qemu-plugin.h' > "$hdr.new"
	[ -s "$hdr.new" ] || { log "no qemu-plugin.h in $tarball"; return 1; }
	mv "$hdr.new" "$hdr"
}

[ -s "$hdr" ] || fetch
gcc -O2 -Wall -Wextra -Wno-unused-parameter -shared -fPIC -I"$(dirname "$hdr")" \
	-o "$out" "$TOP/bench/plugin/insncount.c"
