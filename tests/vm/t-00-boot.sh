#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Smoke test: the guest booted Debian's 6.1 kernel and sees the work tree.
. "$(dirname "$0")/lib.sh"

case $(uname -r) in
6.1.*) ok "boot: kernel $(uname -r)" ;;
*) fail "boot: kernel $(uname -r), want 6.1.*" ;;
esac
mount_debugfs
check "boot: debugfs mounted" mountpoint -q $DBG
check "boot: work tree visible" test -f "$MMT_TOP/tests/vm/lib.sh"
check "boot: modules of $(uname -r) visible" test -f "/lib/modules/$(uname -r)/modules.dep"
