#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/kver.sh [PATTERN]: print the newest installed kernel release matching
# PATTERN (default 6.1.*[0-9]-amd64, Debian 12's kernel: not its -rt flavour,
# 6.1.0-N-rt-amd64, which sorts above it) that has both
# /boot/vmlinuz-RELEASE and headers (/lib/modules/RELEASE/build); exit 1 if none.
pat=${1:-6.1.*[0-9]-amd64}
for k in $(cd /lib/modules 2>/dev/null && find . -maxdepth 1 -name "$pat" -printf '%f\n' | sort -rV); do
	if [ -f "/boot/vmlinuz-$k" ] && [ -d "/lib/modules/$k/build" ]; then
		echo "$k"
		exit 0
	fi
done
exit 1
