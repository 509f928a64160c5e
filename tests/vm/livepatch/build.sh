#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/vm/livepatch/build.sh KDIR: build mmt_lp.ko, the test livepatch of
# tests/vm/t-52-livepatch.sh, here against KDIR, as make module builds
# mmtune.ko. A kernel without CONFIG_LIVEPATCH=y gets none (said on
# stdout; the suite skips there). tests/matrix/build.sh builds the
# matrix cells' own.
set -e
dir=$(cd "$(dirname "$0")" && pwd)
kdir=${1:?usage: build.sh KDIR}
rm -f "$dir/mmt_lp.ko"
if ! grep -q '^CONFIG_LIVEPATCH=y' "$kdir/.config" 2>/dev/null; then
	echo "# $kdir: no CONFIG_LIVEPATCH=y: no test livepatch"
	exit 0
fi
make -C "$kdir" M="$dir" modules
