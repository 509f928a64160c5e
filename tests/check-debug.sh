#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/check-debug.sh: `make check-debug`. Run as root on Debian 12.
#
#  1. tests/setup.sh (host packages, with linux-source-6.1; virtme-ng);
#  2. tests/debug/kernel.sh: Debian's 6.1 source (MMT_DEBUG_KVER=7.3, make's
#     DEBUG_KVER=7.3: trixie-backports' 7.3) built once with KASAN,
#     lockdep (PROVE_LOCKING, PROVE_RCU), DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS,
#     DEBUG_VM, PAGE_TABLE_CHECK and kmemleak (tests/debug/debug.config),
#     cached under
#     $MMTUNE_CACHE/debug/<version>-<hash of the fragment>/;
#  3. the module built against it (make module KDIR=<cache>/build), the tools,
#     and the static fuzzer tests/debug/knobfuzz.c;
#  4. boots it under TCG (tests/vm/vng.sh --kernel, 2 vCPUs on one host
#     thread, 1 GiB in two NUMA nodes,
#     movablecore= so that memory blocks can go offline, a 16 MiB log) and runs
#     tests/debug/guest.sh: every VM suite, the load/unload storm, the
#     fuzzer, memory offline/online under each pfn_valid mode, a kmemleak
#     scan, and the kernel log's verdicts.
# Prints KTAP documents (tests/lib.sh): its own build steps', the guest's
# (every VM suite's and each part's of tests/debug/guest.sh) and the
# verdict's; every kernel report (KASAN, lockdep, RCU, kmemleak) with its
# stack; the wall time; and last the sum of all their results, "N passed,
# N failed" (a guest document cut short is one more failure).
#
# Env: MMT_DEBUG_SMALL=1   CI sizes (3 cycles, 600 fuzzed writes per file,
#                          1 offline/online round per mode; the suites that
#                          drive the pfn_valid, usefulness and value-keeping
#                          code,
#                          light: MMT_LIGHT=1, 40 oracle steps);
#      MMT_DEBUG_CYCLES, MMT_DEBUG_FUZZ, MMT_DEBUG_HOTPLUG override each;
#      MMT_DEBUG_SUITES=0  skips the VM suites, a list of names runs those;
#      MMT_VM_TIMEOUT      bounds the VM run (seconds; default 21600, small 5400);
#      MMT_VERBOSE=1       streams the guest's console too.
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP" || exit 1
OUT=$TOP/tests/out/debug
rm -rf "$OUT"; mkdir -p "$OUT"
t0=$(date +%s)

. "$TOP/tests/lib.sh"
KTAP_T0=$t0 KTAP_LOGS=tests/out/debug/
logs=()	# the guest's log, once it ran: its KTAP documents are counted

if [ "${MMT_DEBUG_SMALL:-0}" = 1 ]; then
	# CI's time (.ci/run within 50 minutes warm; its run with 20 cycles
	# and t-10, t-20 and t-40 here took 3489 s): of the VM suites, those
	# that drive the module's usefulness code (its page-table walks
	# under KASAN, auto's locks under lockdep) and the value-keeping
	# oracle (t-46, every write path at random), light as the matrix's
	# light cells. pfn_valid's code runs in the hotplug part (every
	# strategy, cross-checked over every pfn, around offline/online) and
	# the storm (mode section every cycle); t-30-pfn_valid (90 s here)
	# in the default run.
	# The storm drives what t-10-knob, t-20-stats and t-40-policy test
	# (knob writes, hooks on and off, the policy's rules, stats_enable)
	# under load on this kernel every cycle; those suites, t-44-value
	# (the oracle's cases one by one), the tools' wall-time ones
	# (t-45-tune, t-mmstress, t-mmtunectl), t-05-ibt and t-50-trace run
	# in make check on Debian's kernel and on every matrix cell, and here
	# in the default run.
	export MMT_DEBUG_SUITES=${MMT_DEBUG_SUITES:-t-00-boot t-46-oracle t-60-usefulness t-61-auto t-90-lockdown}
	export MMT_DEBUG_PARTS=${MMT_DEBUG_PARTS:-storm fuzz hotplug reports}
	export MMT_LIGHT=${MMT_LIGHT:-1} MMT_ORACLE_STEPS=${MMT_ORACLE_STEPS:-40}
	export MMT_DEBUG_CYCLES=${MMT_DEBUG_CYCLES:-3}
	export MMT_DEBUG_FUZZ=${MMT_DEBUG_FUZZ:-600}
	export MMT_DEBUG_HOTPLUG=${MMT_DEBUG_HOTPLUG:-1}
	MMT_VM_TIMEOUT=${MMT_VM_TIMEOUT:-5400}
fi

ktap_begin "check-debug: build"
echo "# setup (tests/setup.sh)"
ktap_step "setup" "$OUT/setup.log" tests/setup.sh || ktap_exit

echo "# debug kernel (tests/debug/kernel.sh)"
if DIR=$(tests/debug/kernel.sh 2> >(tee "$OUT/kernel.log" | sed 's/^/# /' >&2)); then
	ok "debug kernel $(cat "$DIR/release") (built in $(cat "$DIR/build-seconds") s, cached in $DIR)"
else
	fail "debug kernel: see tests/out/debug/kernel.log"
	ktap_exit
fi

echo "# module, tools, fuzzer"
ktap_step "make module KDIR=$DIR/build" "$OUT/module.log" \
	sh -c "make clean KDIR='$DIR/build' >/dev/null 2>&1; make module KDIR='$DIR/build'" || ktap_exit
# t-52-livepatch's test livepatch, where the kernel has CONFIG_LIVEPATCH
ktap_step "tests/vm/livepatch/build.sh $DIR/build" "$OUT/livepatch.log" \
	tests/vm/livepatch/build.sh "$DIR/build" || ktap_exit
ktap_step "make tools" "$OUT/tools.log" make tools || ktap_exit
ktap_step "knobfuzz (static)" "$OUT/knobfuzz.log" \
	gcc -O2 -Wall -Wextra -static -o "$OUT/knobfuzz" tests/debug/knobfuzz.c || ktap_exit

# modprobe finds the tree's module as a DKMS install would put it: a
# modules tree of the debug release (mmtune.ko in extra/, the kernel's
# modules.builtin so that modprobe knows what is built in, depmod's index)
# laid over /lib/modules for the VM run alone, in a private mount namespace
# (the host's /lib/modules is never written). t-00-boot and t-10-knob's
# modprobe need it.
REL=$(cat "$DIR/release")
MODROOT=$OUT/modroot
stage_modules() {
	mkdir -p "$MODROOT/lib/modules/$REL/extra" &&
	cp module/mmtune.ko "$MODROOT/lib/modules/$REL/extra/" &&
	cp "$DIR/build/modules.builtin" "$DIR/build/modules.builtin.modinfo" \
		"$DIR/build/modules.order" "$MODROOT/lib/modules/$REL/" &&
	depmod -b "$MODROOT" "$REL"
}
ktap_step "modules of $REL for modprobe (depmod in tests/out/debug/modroot)" \
	"$OUT/depmod.log" stage_modules || ktap_exit

ktap_end
echo "# guest (tests/debug/guest.sh): suites ${MMT_DEBUG_SUITES:-all}; parts ${MMT_DEBUG_PARTS:-storm fuzz hotplug reports}; cycles ${MMT_DEBUG_CYCLES:-500}, fuzz ${MMT_DEBUG_FUZZ:-10000}, hotplug rounds ${MMT_DEBUG_HOTPLUG:-20}"
export MMT_DEBUG_FUZZER=$OUT/knobfuzz
# t-00-boot: the series built
MMT_BOOT_SERIES=$(echo "$REL" | cut -d. -f1,2)
export MMT_BOOT_SERIES
export MMT_TEST_TIMEOUT=${MMT_TEST_TIMEOUT:-1800}
# Single-threaded TCG, vng.sh's default (its comment says why): with a
# host thread per vCPU the storm's load/unload cycles wedged this guest
# after 3 cycles (console silent, both threads spinning).
# 1 GiB: every pfn_valid/mode write of a fresh load runs the module's
# cross-check sweep over every pfn, which with KASAN under TCG took more
# than its 8 s limit over 2 GiB while the storm's load ran (the write
# refused, EINVAL, as documented). movablecore=512M: with 256M the one
# movable block held the end of RAM and e820's reserved tail and refused to
# go offline (EINVAL); 512M gives blocks below it that go offline.
# shellcheck disable=SC2016 # the inner shell's arguments
unshare --mount --propagation private /bin/sh -ec '
	mount -t overlay -o "lowerdir=$1:/lib/modules" mmtune-debug /lib/modules
	shift; exec "$@"' sh "$MODROOT/lib/modules" \
	tests/vm/vng.sh --kernel "$DIR/bzImage" --cpus 2 --memory 1G --numa \
	--append movablecore=512M --append log_buf_len=16M --verbose \
	--timeout "${MMT_VM_TIMEOUT:-21600}" -- tests/debug/guest.sh \
	> "$OUT/guest.log" 2> "$OUT/console.log" &
vpid=$!
if [ "${MMT_VERBOSE:-0}" = 1 ]; then
	tail -f "$OUT/guest.log" "$OUT/console.log" --pid $vpid &
else
	tail -f "$OUT/guest.log" --pid $vpid | ktap_show &
fi
wait $vpid; rc=$?
sleep 1
# the guest's documents (every VM suite's, then each part's of
# tests/debug/guest.sh) are counted from its log, as make check's
logs+=("$OUT/guest.log")

ktap_begin "check-debug: verdict"
grep -q '^mmtune-debug-done' "$OUT/guest.log" ||
	fail "the guest did not finish (vng.sh exit $rc): see tests/out/debug/console.log"

# Every report of the debug kernel, with its stack, from the console (it
# has the whole log even when the guest died): those from the guest script's
# start on count; boot's own (before it: e.g. qemu's NUMA topology warning
# in smpboot.c) are shown, not counted.
REPORT_RE='BUG: KASAN|WARNING: .*lock|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|rcu: INFO|detected stall|unreferenced object|BUG: sleeping function|Invalid wait context|ODEBUG|WARNING: CPU|general protection|Oops|soft lockup|blocked for more than'
awk -v re="$REPORT_RE" '/mmtune-debug: start/ { on = 1 }
	on && $0 ~ re { n = 60; print "----" }
	n > 0 { print; n-- }' "$OUT/console.log" > "$OUT/reports.txt"
awk -v re="$REPORT_RE" '/mmtune-debug: start/ { exit }
	$0 ~ re { n = 60; print "----" }
	n > 0 { print; n-- }' "$OUT/console.log" > "$OUT/boot-reports.txt"
if [ -s "$OUT/boot-reports.txt" ]; then
	echo "# reports at boot, before the tests (not counted; tests/out/debug/boot-reports.txt):"
	grep -A1 '^----' "$OUT/boot-reports.txt" | grep -v '^----\|^--$' | sed 's/^/# boot| /'
fi
awk '/^kmemleak\| unreferenced object/ { n = 40; print "----" }
	n > 0 { print; n-- }' "$OUT/guest.log" >> "$OUT/reports.txt"
if [ -s "$OUT/reports.txt" ]; then
	echo "# kernel reports (tests/out/debug/reports.txt):"
	sed 's/^/# | /' "$OUT/reports.txt"
	fail "the debug kernel reported $(grep -c '^----' "$OUT/reports.txt") problem(s)"
else
	ok "no KASAN, lockdep, RCU, kmemleak or WARNING report on the console"
fi
ktap_exit "${logs[@]}"
