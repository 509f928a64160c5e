#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Smoke test: the guest booted Debian's 6.1 kernel (or the series in
# $MMT_BOOT_SERIES: check-debug's 7.3) and sees the work tree.
. "$(dirname "$0")/lib.sh"

want=${MMT_BOOT_SERIES:-6.1}
case $(uname -r) in
"$want".*) ok "boot: kernel $(uname -r)" ;;
*) fail "boot: kernel $(uname -r), want $want.*" ;;
esac
mount_debugfs
check "boot: debugfs mounted" mountpoint -q $DBG
check "boot: work tree visible" test -f "$MMT_TOP/tests/vm/lib.sh"
check "boot: modules of $(uname -r) visible" test -f "/lib/modules/$(uname -r)/modules.dep"
