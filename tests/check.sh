#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/check.sh: `make check`. Run as root on Debian 12.
#
#  1. tests/setup.sh: host packages (bookworm, pinned) and virtme-ng (cache);
#  2. make tools, then tests/host/run.sh if it exists (its ok/not ok lines
#     count);
#  3. the module through DKMS for Debian's 6.1 kernel, as users do (dkms
#     remove, add ., build, install -k KVER), so that `modprobe mmtune` works
#     in the guest; and make module KDIR=/lib/modules/KVER/build, so that
#     `insmod module/mmtune.ko` does;
#     then tests/style.sh: checkpatch --strict and sparse over module/;
#  4. boots KVER under TCG with two NUMA nodes (tests/vm/vng.sh) and runs tests/vm/guest.sh.
#
# Prints every check line ("ok - ..." / "not ok - ..."), keeps the logs in
# tests/out/, and ends with "N passed, N failed". Exits non-zero when a check
# failed or the VM did not finish (no "mmtune-guest-done" sentinel).
#
# Env: MMT_TESTS="t-knob t-stats" runs only those VM tests;
#      MMT_VM_TIMEOUT (seconds, default 1500) bounds the VM run;
#      MMT_VERBOSE=1 also streams the guest's kernel console to stderr
#      (it is always saved in tests/out/console.log).
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP" || exit 1
OUT=$TOP/tests/out
rm -rf "$OUT"; mkdir -p "$OUT"
t0=$(date +%s)

passed=0 failed=0
ok()   { echo "ok - $*"; passed=$((passed + 1)); }
fail() { echo "not ok - $*"; failed=$((failed + 1)); }
finish() {
	echo "# logs in tests/out/, $(( $(date +%s) - t0 ))s in all"
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ] && exit 0
	exit 1
}
# count FILE: add FILE's check lines to the totals
count() {
	local p f
	p=$(grep -c '^ok - ' "$1"); f=$(grep -c '^not ok - ' "$1")
	passed=$((passed + p)); failed=$((failed + f))
}
# step NAME LOG CMD...: run CMD with output in LOG; one check line
step() {
	local name=$1 log=$2; shift 2
	if "$@" > "$log" 2>&1; then
		ok "$name"
	else
		fail "$name: see tests/out/${log##*/}: $(tail -n 1 "$log")"
		return 1
	fi
}

# --- 1. setup -------------------------------------------------------------
echo "# setup (tests/setup.sh)"
if ! tests/setup.sh 2>&1 | tee "$OUT/setup.log" | sed 's/^/# /'; then
	fail "setup: tests/setup.sh failed, see tests/out/setup.log"
	finish
fi
ok "setup"

KVER=$(tests/kver.sh)
KDIR=/lib/modules/$KVER/build
VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
if [ -z "$KVER" ] || [ -z "$VER" ]; then
	fail "setup: no 6.1 kernel in /lib/modules ('$KVER') or no version in dkms.conf ('$VER')"
	finish
fi
echo "# kernel $KVER, mmtune $VER"

# --- 2. userspace and host tests -----------------------------------------
step "build: make tools WERROR=1" "$OUT/tools.log" make tools WERROR=1
if [ -x tests/host/run.sh ] || [ -f tests/host/run.sh ]; then
	echo "# host tests (tests/host/run.sh)"
	bash tests/host/run.sh > "$OUT/host.log" 2>&1
	rc=$?
	grep -E '^(not )?ok - |^# ' "$OUT/host.log"
	count "$OUT/host.log"
	[ $rc = 0 ] || grep -q '^not ok - ' "$OUT/host.log" ||
		fail "host: tests/host/run.sh exit status $rc, see tests/out/host.log"
fi

# --- 3. the module: DKMS as users do it, and the tree's build -------------
# shellcheck disable=SC2317 # called through step
dkms_install() {
	local v
	# Every registered version goes, and the copy dkms add made last time.
	for v in $(dkms status -m mmtune 2>/dev/null | sed -n 's|^mmtune[/,] *\([^,:/ ]*\).*|\1|p' | sort -u); do
		dkms remove "mmtune/$v" --all || return 1
	done
	rm -rf "/usr/src/mmtune-$VER"
	rm -f "/lib/modules/$KVER/updates/dkms/mmtune.ko"*	# unregistered leftovers
	# the module's files alone (README.md, Install), not the whole checkout
	make -s dkms-src DKMS_SRC="$PWD/build/dkms-src/mmtune-$VER" &&
	dkms add "build/dkms-src/mmtune-$VER" &&
	dkms build "mmtune/$VER" -k "$KVER" &&
	dkms install "mmtune/$VER" -k "$KVER" &&
	modinfo -k "$KVER" -n mmtune
}
# dkms state is machine-wide: serialize against other check runs (clones).
# shellcheck disable=SC2317
dkms_locked() {
	flock -w 1200 9 || { echo "dkms lock busy for 20 min"; return 1; }
	dkms_install
} 9> /run/lock/mmtune-dkms.lock
if ! step "dkms: add, build, install mmtune/$VER for $KVER" "$OUT/dkms.log" dkms_locked; then
	cp "/var/lib/dkms/mmtune/$VER/build/make.log" "$OUT/dkms-make.log" 2>/dev/null
fi
step "build: make module KDIR=$KDIR" "$OUT/module.log" make module KDIR="$KDIR"
echo "# kernel style (tests/style.sh)"
tests/style.sh "$KDIR" > "$OUT/style.log" 2>&1
grep -E '^(not )?ok - ' "$OUT/style.log"
count "$OUT/style.log"

# --- 4. the VM ------------------------------------------------------------
# shellcheck disable=SC2086
echo "# VM: $KVER under TCG, tests: ${MMT_TESTS:-all}"
vmt0=$(date +%s)
if [ "${MMT_VERBOSE:-0}" = 1 ]; then
	console() { tee "$OUT/console.log" >&2; }
else
	console() { cat > "$OUT/console.log"; }
fi
# Two NUMA nodes, so that mmstress migrate runs for real.
tests/vm/vng.sh --numa --verbose --timeout "${MMT_VM_TIMEOUT:-1500}" -- tests/vm/guest.sh \
	2> >(console) | tee "$OUT/vm.log" | grep --line-buffered -v '^dmesg| '
rc=${PIPESTATUS[0]}
sed -n 's/^dmesg| //p' "$OUT/vm.log" > "$OUT/dmesg.log"
count "$OUT/vm.log"
if ! grep -qx 'mmtune-guest-done' "$OUT/vm.log"; then
	fail "vm: the guest did not finish (vng status $rc), see tests/out/console.log"
	tail -n 20 "$OUT/console.log" | sed 's/^/# console: /'
else
	echo "# VM run: $(( $(date +%s) - vmt0 ))s"
fi
finish
