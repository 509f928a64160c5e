#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Sourced by every tests/vm/t-*.sh inside the guest, and by the runners
# (tests/vm/guest.sh, tests/matrix/init.sh) for their verdicts.
# Each check prints exactly one line, "ok - NAME" or "not ok - NAME: why";
# the host counts these lines and prints "N passed, N failed".

MMT_TOP=${MMT_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
DBG=/sys/kernel/debug
MMT=$DBG/mmtune

ok()   { echo "ok - $*"; }
fail() { echo "not ok - $*"; }

# check NAME CMD...: run CMD, pass if it exits 0.
check() {
	_name=$1; shift
	if _out=$("$@" 2>&1); then ok "$_name"; else fail "$_name: $(echo "$_out" | tail -n 1)"; fi
}

# expect_eq NAME GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1: got '$2', want '$3'"; fi
}

# within NAME GOT WANT PERCENT: |GOT-WANT| <= WANT*PERCENT/100
# within NAME GOT WANT PCT [SLACK]: |GOT - WANT| <= WANT * PCT / 100 + SLACK.
# SLACK absorbs a fixed number of events not proportional to the work (a
# probe's own startup faults): a few percent of 8192 pages, but of only 512
# with 64 KiB pages.
within() {
	if awk -v g="$2" -v w="$3" -v p="$4" -v s="${5:-0}" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w * p / 100 + s) }'; then
		ok "$1 ($2 vs $3)"
	else
		fail "$1: got $2, want $3 +-$4%${5:+ +-$5}"
	fi
}

# ftraced FN: FN has an ftrace callback of ours. x86 names the callback
# ("tramp: ... (mmtune_...)" or "->mmtune_..."); arm64 and ppc64 without
# per-ops trampolines list only the function and its count, so a line that
# names no callback at all counts too (nothing else traces in the guest).
ftraced() {
	awk -v f="$1" '$1 == f { if ($0 ~ /mmtune/ || $0 !~ /->|tramp:/) ok = 1 }
		END { exit !ok }' /sys/kernel/tracing/enabled_functions 2>/dev/null
}

# load_module [ARGS]: insmod the tree's build
load_module() { insmod "$MMT_TOP/module/mmtune.ko" "$@"; }
unload_module() { rmmod mmtune 2>/dev/null; true; }

mount_debugfs() { mountpoint -q $DBG || mount -t debugfs none $DBG; }

# --- the runners' verdicts (tests/vm/guest.sh under vng, tests/matrix/init.sh
# in the matrix's busybox guests)

# suite_verdict NAME RC LOG START: a suite's failures are its own checks';
# this adds one for a timeout, a suite that ran no check, or one that
# failed without saying which check. Then its time; mmtune left loaded is
# unloaded.
suite_verdict() {
	if [ "$2" = 124 ] || [ "$2" = 137 ] || [ "$2" = 143 ]; then
		fail "$1: timed out after ${MMT_TEST_TIMEOUT:-600}s"
	elif ! grep -qE '^(not )?ok - ' "$3"; then
		fail "$1: ran no check (exit status $2)"
	elif [ "$2" != 0 ] && ! grep -q '^not ok - ' "$3"; then
		fail "$1: exit status $2"
	fi
	echo "# $1: $(( $(date +%s) - $4 ))s"
	if [ -d /sys/module/mmtune ]; then
		echo "# $1 left mmtune loaded: unloading"
		rmmod mmtune 2>&1 | sed 's/^/# /'
	fi
}

# dmesg_verdict MARK: the kernel log since MARK (all of it if MARK scrolled
# away) has no WARNING, BUG, Oops, call trace or GPF; printed as "dmesg| ".
dmesg_verdict() {
	dmesg > /var/tmp/mmt-dmesg.all
	if grep -qF "$1" /var/tmp/mmt-dmesg.all; then
		awk -v m="$1" 'on; index($0, m) { on = 1 }' /var/tmp/mmt-dmesg.all > /var/tmp/mmt-dmesg
	else
		cp /var/tmp/mmt-dmesg.all /var/tmp/mmt-dmesg
	fi
	_bad=$(grep -E '\bWARNING\b|\bBUG\b|Oops|Call Trace|general protection' /var/tmp/mmt-dmesg | head -n 1)
	if [ -z "$_bad" ]; then ok "dmesg clean"; else fail "dmesg clean: $_bad"; fi
	sed 's/^/dmesg| /' /var/tmp/mmt-dmesg
}
