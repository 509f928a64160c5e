#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/bench-cell.sh CELL [--short]: tests/bench-insn.sh (`make bench`)
# on the kernel of an x86_64 matrix cell instead of Debian 12's 6.1, e.g.
# `tests/bench-cell.sh 7-x86_64`. Root on Debian 12.
#
# The cell is fetched (tests/matrix/fetch.sh) if it never was, its module
# built (tests/matrix/build.sh: 6.12 and 7.x in the trixie chroot), and
# its kernel booted under tests/vm/vng.sh with the host's root file system
# as make check-trace does: in a private mount namespace, /lib/modules is
# an overlay of the cell's Debian modules (tests/trace/modules.sh) over the
# host's, so the guest has virtio and 9p; /lib/modules itself is never
# written. The results go where bench-insn.sh puts them (MMT_BENCH_OUT,
# default bench/RESULTS.md), titled with the cell's kernel.
# x86_64 only: the guest runs the host's (amd64) user land.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$TOP/tests/matrix/lib.sh"

cell=${1:?usage: tests/bench-cell.sh CELL [--short]}
shift
case $cell in
*-x86_64) ;;
*) mdie "$cell: only x86_64 cells (the guest runs the host's user land)" ;;
esac
[ -f "$MX/cells/$cell/cell.env" ] || "$TOP/tests/matrix/fetch.sh" "$cell" >&2
"$TOP/tests/matrix/build.sh" "$cell" >&2
moddir=$("$TOP/tests/trace/modules.sh" "$cell" | tail -n 1)
kver=$(. "$MX/cells/$cell/cell.env"; echo "$KVER")

# shellcheck disable=SC2016 # the inner shell's arguments
exec unshare --mount --propagation private /bin/sh -ec '
	mount -t overlay -o "lowerdir=$1:/lib/modules" mmtune-bench /lib/modules
	shift; exec "$@"' sh "$moddir" \
	env MMT_KERNEL="/lib/modules/$kver/vmlinuz" MMT_BENCH_KO="$MX/cells/$cell/mmtune.ko" \
	"$TOP/tests/bench-insn.sh" "$@"
