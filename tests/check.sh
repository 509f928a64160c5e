#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/check.sh: `make check`. Run as root on Debian 12.
#
#  1. tests/setup.sh: host packages (bookworm, pinned) and virtme-ng (cache);
#  2. make tools, then tests/host/run.sh if it exists;
#  3. the module through DKMS for Debian's 6.1 kernel, as users do (dkms
#     remove, add ., build, install -k KVER), so that `modprobe mmtune` works
#     in the guest; and make module KDIR=/lib/modules/KVER/build, so that
#     `insmod module/mmtune.ko` does;
#     then tests/style.sh: checkpatch --strict and sparse over module/;
#  4. boots KVER under TCG with two NUMA nodes (tests/vm/vng.sh) and runs tests/vm/guest.sh.
#
# Prints KTAP documents (tests/lib.sh): its own steps' (setup, module, vm),
# the host suite's, style's and each VM suite's, keeps the logs in
# tests/out/, and ends with the sum of all their results, alone on a line:
# "N passed, N failed" (", N skipped" when some were). A document whose
# plan does not match its results (a suite cut short) is one more failure.
# Exits non-zero when a check failed or the VM did not finish (no
# "mmtune-guest-done" sentinel).
#
# Env: MMT_TESTS="knob stats" (or "t-10-knob t-20-stats") runs only those
#      VM tests;
#      MMT_VM_TIMEOUT (seconds, default 2700) bounds the VM run;
#      MMT_VERBOSE=1 also streams the guest's kernel console to stderr
#      (it is always saved in tests/out/console.log).
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP" || exit 1
OUT=$TOP/tests/out
# Its own logs go; other targets' directories (matrix/, debug/) stay:
# .ci/run runs check-matrix beside it.
mkdir -p "$OUT"; find "$OUT" -maxdepth 1 -type f -delete
t0=$(date +%s)

. "$TOP/tests/lib.sh"
KTAP_T0=$t0 KTAP_LOGS=tests/out/
logs=()	# the logs of the documents of host, style and the VM

# --- 1. setup -------------------------------------------------------------
ktap_begin "make check: setup"
echo "# setup (tests/setup.sh)"
if ! tests/setup.sh 2>&1 | tee "$OUT/setup.log" | sed 's/^/# /'; then
	fail "setup: tests/setup.sh failed, see tests/out/setup.log"
	ktap_exit "${logs[@]}"
fi
ok "setup"

KVER=$(tests/kver.sh)
KDIR=/lib/modules/$KVER/build
VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
if [ -z "$KVER" ] || [ -z "$VER" ]; then
	fail "setup: no 6.1 kernel in /lib/modules ('$KVER') or no version in dkms.conf ('$VER')"
	ktap_exit "${logs[@]}"
fi
echo "# kernel $KVER, mmtune $VER"

# --- 2. userspace and host tests -----------------------------------------
ktap_step "build: make tools WERROR=1" "$OUT/tools.log" make tools WERROR=1
ktap_step "build: make bpf-examples" "$OUT/bpf.log" make bpf-examples
if [ -x tests/host/run.sh ] || [ -f tests/host/run.sh ]; then
	bash tests/host/run.sh > "$OUT/host.log" 2>&1
	rc=$?
	[ $rc = 0 ] || grep -q '^not ok ' "$OUT/host.log" ||
		fail "host: tests/host/run.sh exit status $rc, see tests/out/host.log"
	ktap_end
	echo "# --- host (tests/host/run.sh)"
	ktap_show "$OUT/host.log"
	logs+=("$OUT/host.log")
fi
[ -z "$KTAP_OPEN" ] || ktap_end

# --- 3. the module: DKMS as users do it, and the tree's build -------------
ktap_begin "make check: module"
# shellcheck disable=SC2317 # called through ktap_step
dkms_install() {
	local v
	# Every registered version goes, and the copy dkms add made last time.
	for v in $(dkms status -m mmtune 2>/dev/null | sed -n 's|^mmtune[/,] *\([^,:/ ]*\).*|\1|p' | sort -u); do
		dkms remove "mmtune/$v" --all || return 1
	done
	rm -rf "/usr/src/mmtune-$VER"
	rm -f "/lib/modules/$KVER/updates/dkms/mmtune.ko"*	# unregistered leftovers
	# the module's files alone (docs/admin-guide.md, Install), not the whole checkout
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
if ! ktap_step "dkms: add, build, install mmtune/$VER for $KVER" "$OUT/dkms.log" dkms_locked; then
	cp "/var/lib/dkms/mmtune/$VER/build/make.log" "$OUT/dkms-make.log" 2>/dev/null
fi
ktap_step "build: make module KDIR=$KDIR" "$OUT/module.log" make module KDIR="$KDIR"
# t-52-livepatch's test livepatch, where the kernel has CONFIG_LIVEPATCH
ktap_step "build: tests/vm/livepatch/build.sh $KDIR" "$OUT/livepatch.log" tests/vm/livepatch/build.sh "$KDIR"
ktap_end
echo "# --- style (tests/style.sh)"
tests/style.sh "$KDIR" > "$OUT/style.log" 2>&1
ktap_show "$OUT/style.log"
logs+=("$OUT/style.log")

# --- 4. the VM ------------------------------------------------------------
# shellcheck disable=SC2086
echo "# VM: $KVER under TCG, tests: ${MMT_TESTS:-all}"
vmt0=$(date +%s)
if [ "${MMT_VERBOSE:-0}" = 1 ]; then
	console() { tee "$OUT/console.log" >&2; }
else
	console() { cat > "$OUT/console.log"; }
fi
# Two NUMA nodes, so that mmstress migrate runs for real.  The timeout is
# for a hung guest: the suites take about 1300 s on an idle 2-core host,
# and a loaded one (a fresh CI's matrix fetching and building beside it)
# had them cut short at 1500.
tests/vm/vng.sh --numa --verbose --timeout "${MMT_VM_TIMEOUT:-2700}" -- tests/vm/guest.sh \
	2> >(console) | tee "$OUT/vm.log" | grep --line-buffered -v '^dmesg| '
rc=${PIPESTATUS[0]}
sed -n 's/^dmesg| //p' "$OUT/vm.log" > "$OUT/dmesg.log"
logs+=("$OUT/vm.log")
ktap_begin "make check: vm"
if ! grep -qx 'mmtune-guest-done' "$OUT/vm.log"; then
	fail "vm: the guest did not finish (vng status $rc), see tests/out/console.log"
	tail -n 20 "$OUT/console.log" | sed 's/^/# console: /'
else
	ok "vm: the guest finished"
	echo "# VM run: $(( $(date +%s) - vmt0 ))s"
fi
ktap_exit "${logs[@]}"
