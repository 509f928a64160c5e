#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/check-vm.sh [SUITE...]: `make check-vm T="knob policy"`. Run as root
# on Debian 12.
#
# One VM suite (or a few) alone: the module built for Debian's 6.1 kernel
# (make module KDIR=...) and the tools, that kernel booted under TCG with
# two NUMA nodes, and the named suites of tests/vm run there ("knob",
# "t-10-knob" or "t-10-knob.sh"; every suite when none is named), then the
# dmesg scan, as in make check. No host suite, DKMS install or style:
# t-10-knob's modprobe check, which needs the DKMS install, skips here;
# t-01-quickstart overlays the build tree's module (README's install
# command skips).
#
# Prints the KTAP documents and their sum on the last line, as make check
# does; logs in tests/out/check-vm/. Exits non-zero when a check failed or
# the guest did not finish.
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP" || exit 1
OUT=$TOP/tests/out/check-vm
rm -rf "$OUT"; mkdir -p "$OUT"
t0=$(date +%s)

. "$TOP/tests/lib.sh"
KTAP_T0=$t0 KTAP_LOGS=tests/out/check-vm/

for t in "$@"; do
	for c in "tests/vm/$t" "tests/vm/$t.sh" "tests/vm/t-$t.sh" tests/vm/t-[0-9][0-9]-"$t".sh; do
		[ -f "$c" ] && continue 2
	done
	echo "check-vm: no suite '$t' in tests/vm (e.g. knob, t-40-policy)" >&2
	exit 2
done

ktap_begin "check-vm: build"
ktap_step "setup" "$OUT/setup.log" tests/setup.sh || ktap_exit
KVER=$(tests/kver.sh)
KDIR=/lib/modules/$KVER/build
[ -n "$KVER" ] || { fail "setup: no 6.1 kernel with headers (tests/kver.sh)"; ktap_exit; }
ktap_step "build: make tools WERROR=1" "$OUT/tools.log" make tools WERROR=1 || ktap_exit
ktap_step "build: make bpf-examples" "$OUT/bpf.log" make bpf-examples || ktap_exit
ktap_step "build: make module KDIR=$KDIR" "$OUT/module.log" make module KDIR="$KDIR" || ktap_exit
# t-52-livepatch's test livepatch, where the kernel has CONFIG_LIVEPATCH
ktap_step "build: tests/vm/livepatch/build.sh $KDIR" "$OUT/livepatch.log" tests/vm/livepatch/build.sh "$KDIR" || ktap_exit
ktap_end

echo "# VM: $KVER under TCG, tests: ${*:-all}"
export MMT_NO_DKMS=1	# t-10-knob's modprobe check skips
tests/vm/vng.sh --numa --verbose --timeout "${MMT_VM_TIMEOUT:-2700}" -- tests/vm/guest.sh "$@" \
	2> "$OUT/console.log" | tee "$OUT/vm.log" | grep --line-buffered -v '^dmesg| '
rc=${PIPESTATUS[0]}
ktap_begin "check-vm: vm"
if grep -qx 'mmtune-guest-done' "$OUT/vm.log"; then
	ok "vm: the guest finished"
else
	fail "vm: the guest did not finish (vng status $rc), see tests/out/check-vm/console.log"
	tail -n 20 "$OUT/console.log" | sed 's/^/# console: /'
fi
ktap_exit "$OUT/vm.log"
