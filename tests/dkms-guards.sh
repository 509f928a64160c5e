#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/dkms-guards.sh: dkms.conf's BUILD_EXCLUSIVE_CONFIG and _ARCH, run
# by the real dkms in a private DKMS tree (no machine state touched) against
# a copy of the 6.1 headers whose .config lacks one option at a time.
# A refusal is dkms's exit 77 with its BUILD_EXCLUSIVE message; an accepted
# kernel gets past the guard into the build, which the copy's Makefile
# stops at once (tests/deb.sh builds for real through the package).
# Prints a KTAP document (tests/lib.sh); exit 1 on a failure.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
ktap_begin dkms-guards

KVER=$(tests/kver.sh) || { fail "guards: no 6.1 kernel with headers"; ktap_finished; }
VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
X=$(mktemp -d /var/tmp/mmtune-guards.XXXXXX)
trap 'rm -rf "$X"' EXIT
mkdir -p "$X/dkms" "$X/src" "$X/inst"
cp -a "$(readlink -f "/lib/modules/$KVER/build")/." "$X/hdr"
cp "$X/hdr/.config" "$X/config.orig"
printf 'all modules clean:\n\t@echo "fake headers: the guard let the build through" >&2; exit 1\n' > "$X/hdr/Makefile"
make -s dkms-src DKMS_SRC="$X/tree/mmtune-$VER" > /dev/null
D=(dkms --dkmstree "$X/dkms" --sourcetree "$X/src" --installtree "$X/inst")
"${D[@]}" add "$X/tree/mmtune-$VER" > "$X/add.log" 2>&1 || { fail "guards: private dkms add: $(tail -n 1 "$X/add.log")"; ktap_finished; }

# attempt WANT ARCH OPTION...: build with OPTIONs unset; WANT refused|accepted
attempt() {
	local want=$1 arch=$2 o got; shift 2
	cp "$X/config.orig" "$X/hdr/.config"
	for o in "$@"; do sed -i "s/^$o=.*/# $o is not set/" "$X/hdr/.config"; done
	rm -rf "$X/dkms/mmtune/$VER/$KVER"
	"${D[@]}" build "mmtune/$VER" -k "$KVER" -a "$arch" --kernelsourcedir "$X/hdr" > "$X/b.log" 2>&1
	rc=$?
	if [ $rc = 77 ] && grep -q 'BUILD_EXCLUSIVE directive which does not match' "$X/b.log"; then
		got=refused
	elif grep -q 'the guard let the build through' "$X/b.log" "$X/dkms/mmtune/$VER/build/make.log" 2>/dev/null; then
		got=accepted
	else
		got="neither (rc $rc: $(grep -m 1 -i error "$X/b.log"))"
	fi
	local what="${*:-nothing}"
	if [ "$got" = "$want" ]; then
		ok "dkms build for $arch, .config without ${what// /, }: $got${rc:+ (exit $rc)}"
	else
		fail "dkms build for $arch, .config without ${what// /, }: $got, want $want"
	fi
}

attempt accepted x86_64
attempt refused x86_64 CONFIG_KPROBES
attempt refused x86_64 CONFIG_KRETPROBES
attempt refused x86_64 CONFIG_DYNAMIC_FTRACE
attempt accepted x86_64 CONFIG_DYNAMIC_FTRACE_WITH_ARGS
attempt accepted x86_64 CONFIG_DYNAMIC_FTRACE_WITH_REGS
attempt refused x86_64 CONFIG_DYNAMIC_FTRACE_WITH_ARGS CONFIG_DYNAMIC_FTRACE_WITH_REGS
attempt refused ppc64
attempt refused i686
attempt accepted s390x
attempt accepted riscv64

# The arch regex as dkms applies it ([[ ARCH =~ RE ]]), on uname -m names
re=$(bash -c '. ./dkms.conf 2>/dev/null; echo "$BUILD_EXCLUSIVE_ARCH"')
for a in x86_64 aarch64 ppc64le s390x riscv64; do
	if [[ $a =~ $re ]]; then ok "BUILD_EXCLUSIVE_ARCH accepts $a"; else fail "BUILD_EXCLUSIVE_ARCH refuses $a"; fi
done
for a in ppc64 arm64 armv7l i686 x86_64_v2 s390 riscv32; do
	if [[ $a =~ $re ]]; then fail "BUILD_EXCLUSIVE_ARCH accepts $a"; else ok "BUILD_EXCLUSIVE_ARCH refuses $a"; fi
done
ktap_finished
