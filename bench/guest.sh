#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/guest.sh: the guest half of bench/insn.sh as the one
# suite of a matrix initramfs (bench/cell.sh, for a cell whose guest
# cannot run the host's user land): bench/insn.sh --guest prints its raw
# lines (the host reads them from the console) and this suite's one
# check says whether it ran to its end.
# the initramfs holds this file in tests/vm/, beside the guests' lib
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

d=/var/tmp/bench
mkdir -p $d
cp "$MMT_TOP/bench/faultbench" $d/
bash "$MMT_TOP/bench/insn.sh" --guest $d | tee $d/raw.txt
grep -q '^mmtune-bench-done' $d/raw.txt &&
	ok "bench-insn --guest ran to its end" ||
	fail "bench-insn --guest stopped early"
