#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/cell.sh CELL [--short]: bench/insn.sh (`make bench`)
# on the kernel of a matrix cell instead of Debian 12's 6.1, e.g.
# `bench/cell.sh 7-x86_64` or `bench/cell.sh 6.12-arm64`. Root
# on Debian 12.
# bench/cell.sh CELL --real: bench/real.sh (`make bench-real`) there
# instead, x86_64 cells only (its programs are the host's).
#
# The cell is fetched (tests/matrix/fetch.sh) if it never was and its
# module built (tests/matrix/build.sh: 6.12 and 7.x in the trixie chroot).
#   x86_64  its kernel under tests/vm/vng.sh with the host's root file
#           system, as make check-trace does: in a private mount namespace,
#           /lib/modules is an overlay of the cell's Debian modules
#           (tests/matrix/modules.sh) over the host's, so the guest has
#           virtio and 9p; /lib/modules itself is never written.
#   others  its kernel under tests/matrix/boot.sh (qemu-system-ARCH, with
#           the same plugin, -icount and one vCPU), the guest half of
#           bench/insn.sh the one suite (bench/guest.sh) of an
#           initramfs with make check-trace's user land of that arch
#           (tests/matrix/rootfs-bpftrace.sh); faultbench cross-built, static.
# The results go where bench/insn.sh puts them (MMT_BENCH_RUNS, default
# bench/runs), named by the cell's kernel.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$TOP/tests/matrix/lib.sh"

cell=${1:?usage: bench/cell.sh CELL [--short | --real]}
shift
script=insn.sh
[ "${1:-}" = --real ] && { script=real.sh; shift; }
# fetched and built under check-matrix's lock, as check-trace does: both
# build in the cell's directory of the matrix cache
(
	flock -w 7200 9 || mdie "check-matrix holds $MX/.lock"
	[ -f "$MX/cells/$cell/cell.env" ] || "$TOP/tests/matrix/fetch.sh" "$cell" >&2
	"$TOP/tests/matrix/build.sh" "$cell" >&2
) 9>"$MX/.lock"
# shellcheck disable=SC1090 # written by tests/matrix/fetch.sh, not in the tree
. "$MX/cells/$cell/cell.env"

if [ "$BASE_ARCH" != x86_64 ]; then
	[ "$script" = insn.sh ] || mdie "$cell: --real needs an x86_64 cell"
	exec env MMT_BENCH_CELL="$cell" MMT_BENCH_CC="$(cross_prefix "$BASE_ARCH")gcc" \
		"$TOP/bench/insn.sh" "$@"
fi
moddir=$("$TOP/tests/matrix/modules.sh" "$cell" | tail -n 1)
# shellcheck disable=SC2016 # the inner shell's arguments
exec unshare --mount --propagation private /bin/sh -ec '
	mount -t overlay -o "lowerdir=$1:/lib/modules" mmtune-bench /lib/modules
	shift; exec "$@"' sh "$moddir" \
	env MMT_KERNEL="/lib/modules/$KVER/vmlinuz" MMT_BENCH_KO="$MX/cells/$cell/mmtune.ko" \
	"$TOP/bench/$script" "$@"
