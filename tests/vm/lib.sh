#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Sourced by every tests/vm/t-*.sh inside the guest.
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
within() {
	if awk -v g="$2" -v w="$3" -v p="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w * p / 100) }'; then
		ok "$1 ($2 vs $3)"
	else
		fail "$1: got $2, want $3 +-$4%"
	fi
}

# load_module [ARGS]: insmod the tree's build
load_module() { insmod "$MMT_TOP/module/mmtune.ko" "$@"; }
unload_module() { rmmod mmtune 2>/dev/null; true; }

mount_debugfs() { mountpoint -q $DBG || mount -t debugfs none $DBG; }
