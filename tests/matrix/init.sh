#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox sh (ash): dash is the nearest shell shellcheck knows
# tests/matrix/init.sh: /init of the matrix guests' busybox initramfs (runs
# INSIDE the guest, busybox sh, as PID 1).
#
# The matrix's counterpart of tests/vm/guest.sh (which needs bash and the
# host's root over 9p): mounts what the tests need, marks the kernel log,
# checks that the module loads and unloads (the document "load"),
# runs each tests/vm/t-*.sh named in /mmtune/tests/list with /bin/sh (dash,
# as on Debian: busybox's sh would prefer its own applets to GNU's) or bash,
# then the final check "dmesg clean", prints the kernel log since the mark
# as "dmesg| " lines, the sentinel "mmtune-guest-done" and powers off.
/bin/busybox mkdir -p /proc /sys /dev /tmp /var/tmp /usr/bin /usr/sbin /sbin /run
/bin/busybox --install -s
export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /var/tmp
mount -t debugfs debugfs /sys/kernel/debug
echo 1 > /proc/sys/kernel/panic_on_oops 2>/dev/null

export MMT_TOP=/mmtune MMT_PROBE=/bin/faultprobe MMT_KCORE=/bin/kcoreprobe MMT_FLIP=/bin/policyflip MMT_STALL=/bin/stallprobe
# tests/matrix/boot.sh boots every cell under TCG (tcg_one_cpu in lib.sh)
export MMT_TCG=1
# t-46-oracle: 40 random steps a cell (500, its default, in make check)
export MMT_ORACLE_STEPS=40
# t-20-stats: 30 toggles under load a cell, full cells too (make check
# runs 100, check-debug's storm toggles under KASAN): 100 took 68-76 s in
# the 6.12 x86_64 and arm64 full cells, 30 18-22 s; CI's time
export MMT_TOGGLES=30
# On PREEMPT_RT a toggle beside the faulters on one CPU takes about 2.3 s
# (30: 69-72 s of the -rt cells' 2.5 minutes): 10 there
case $(uname -r) in *-rt-*) export MMT_TOGGLES=10 ;; esac
# A light cell (tests/check-matrix.sh writes MMT_LIGHT=1 here): what only
# repeats across the kernels of one arch runs on one cell of it:
# t-40-policy's tune section and its long rules' round trip are skipped,
# the oracle takes 20 steps. t-45-tune: below.
[ -f "$MMT_TOP/tests/env" ] && . "$MMT_TOP/tests/env"
export MMT_LIGHT=${MMT_LIGHT:-0}
[ "$MMT_LIGHT" = 1 ] && export MMT_ORACLE_STEPS=20
# and 10 toggles under load (30 in a full cell; 15 before 2026-12-07),
# a 16 MiB file for
# t-10-knob's fault counts (64), 20000 pfns for t-30-pfn_valid's
# cross-check (100000), its KPF_NOPAGE reads from the blocks it may
# offline on (all pfns): CI's time, the same checks
[ "$MMT_LIGHT" = 1 ] && [ "$MMT_TOGGLES" -gt 10 ] && export MMT_TOGGLES=10
. "$MMT_TOP/tests/vm/lib.sh"

mmu=$(awk -F': *' '/^MMU/ { print tolower($2); exit }' /proc/cpuinfo)
echo "# guest: $(uname -r) $(uname -m) $(nproc) cpus, $(awk '/MemTotal/ {print int($2/1024) " MiB"}' /proc/meminfo), page size $(getconf PAGESIZE)${mmu:+, mmu $mmu}"
mark="mmtune-guest: start $$.$(date +%s)"
echo "<6>$mark" > /dev/kmsg
# From here the console carries the suites' KTAP alone. A kernel message
# (the module's error at a test's bad parameter) written into the middle
# of an "ok" line cut that check from the count: ppc64's hvc console
# writes 16 bytes at a time (CI of 2026-12-06, 6.12 ppc64le-64k, 647 of
# 648 counted). An oops or a panic still reaches the console (the kernel
# turns it verbose for them); dmesg_verdict reads the rest at the end.
dmesg -n 1

# The matrix's own first check: does the module load (and unload) at all.
ktap_begin load
if insmod "$MMT_TOP/module/mmtune.ko" 2>/var/tmp/mmt-insmod.err; then
	ok "load: insmod mmtune.ko"
	rmmod mmtune || fail "load: rmmod mmtune"
else
	fail "load: insmod mmtune.ko: $(cat /var/tmp/mmt-insmod.err)"
fi
ktap_end

for name in $(cat "$MMT_TOP/tests/list"); do
	t=$MMT_TOP/tests/vm/$name.sh
	# t-45-tune times a command's runs at each order from userspace: the
	# same code on every arch, run by make check and a full x86_64 cell
	# (MMT_MATRIX_FULL; CI's time: 30-35 s a cell)
	if [ "$name" = t-45-tune ] && { [ "$MMT_LIGHT" = 1 ] || [ "$(uname -m)" != x86_64 ]; }; then
		ktap_begin "$name"
		skip "$name" "matrix: make check and a full x86_64 cell run it"
		ktap_end
		continue
	fi
	# t-63-replay (a replay against measured runs at 4 orders) and
	# t-65-attrib (whose pages: an order-0 call's rule, an unmap by
	# another task, the live walk's scan) run where their contracts
	# differ: make check (6.1: the kretprobe way), 6.12 arm64's full cell
	# and 7.x x86_64 (the tracepoint way, __zap_vma_range); elsewhere
	# the same code, for CI's time
	# t-67-advise (replay's figures against an --apply run) where
	# t-63-replay runs; t-72-bpf (the BPF decision point: the same
	# code on every arch, docs/bpf.md's kernels) there too
	# t-66-recnames (record's tracer and seccomp filter, whose syscall
	# numbers are the arch's): make check and one 6.12 cell an arch
	# t-61-auto (auto's judgement, over usefulness's figures, which
	# t-60-usefulness checks on every cell): make check (6.1 x86_64),
	# 7.x x86_64, 6.12 arm64 (full), -16k and the -rt cell of 6.12; not
	# 6.1's and 7.x's light arm64 cells (57 s each) nor 6.12's light
	# x86_64 (63 s, between the two x86_64 kernels that run it): CI's
	# time
	# t-41-fsref (a file= rule's hold on its file system) and
	# t-90-lockdown (the parameters and sysfs with debugfs closed): the
	# same code on every arch; make check, 6.12 arm64 (full) and 7.x
	# x86_64 run them. t-44-value (whose value the kernel keeps; knob
	# writes racing policy writes, where a weakly ordered arch may
	# differ): make check and one cell an arch (CI's time: 7, 15 and
	# 14 s a cell)
	case $name:$(uname -m):$MMT_LIGHT:$(uname -r) in
	t-41-fsref:aarch64:0:*|t-41-fsref:x86_64:*:7.*) ;;
	t-90-lockdown:aarch64:0:*|t-90-lockdown:x86_64:*:7.*) ;;
	t-44-value:aarch64:0:*|t-44-value:x86_64:*:7.*|t-44-value:*:*:6.12*-powerpc64le) ;;
	t-44-value:*:*:6.12*-s390x|t-44-value:*:*:6.12*-riscv64) ;;
	t-41-fsref:*|t-90-lockdown:*)
		ktap_begin "$name"
		skip "$name" "matrix: make check, 6.12 arm64's full cell and 7.x x86_64 run it"
		ktap_end
		continue ;;
	t-44-value:*)
		ktap_begin "$name"
		skip "$name" "matrix: make check and one cell an arch run it"
		ktap_end
		continue ;;
	t-61-auto:aarch64:1:6.1.*|t-61-auto:aarch64:1:7.*|t-61-auto:x86_64:1:6.12.*+deb13-amd64)
		ktap_begin "$name"
		skip "$name" "matrix: make check, 7.x x86_64 and 6.12 arm64's cells run it"
		ktap_end
		continue ;;
	t-63-replay:aarch64:0:*|t-63-replay:x86_64:*:7.*) ;;
	t-72-bpf:aarch64:0:*|t-72-bpf:x86_64:*:7.*) ;;
	t-67-advise:aarch64:0:*|t-67-advise:x86_64:*:7.*) ;;
	t-65-attrib:aarch64:0:*|t-65-attrib:x86_64:*:7.*) ;;
	t-66-recnames:aarch64:0:*|t-66-recnames:*:*:6.12*-powerpc64le) ;;
	t-66-recnames:*:*:6.12*-s390x|t-66-recnames:*:*:6.12*-riscv64) ;;
	t-63-replay:*|t-65-attrib:*|t-67-advise:*|t-72-bpf:*)
		ktap_begin "$name"
		skip "$name" "matrix: make check, 6.12 arm64's full cell and 7.x x86_64 run it"
		ktap_end
		continue ;;
	t-66-recnames:*)
		ktap_begin "$name"
		skip "$name" "matrix: make check and one 6.12 cell an arch run it"
		ktap_end
		continue ;;
	esac
	interp=/bin/sh
	head -n 1 "$t" | grep -q bash && interp=/bin/bash
	run_suite "$name" timeout "${MMT_TEST_TIMEOUT:-600}" $interp "$t"
done

dmesg_verdict "$mark"
echo mmtune-guest-done
sync
poweroff -f
