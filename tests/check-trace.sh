#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/check-trace.sh [CELL...]: `make check-trace`. Run as root on Debian 12.
#
# The trace-event suite (tests/vm/t-50-trace.sh) and mmtunectl's (t-45-tune,
# `mmtunectl run`) with Debian's real linux-perf, bpftrace, trace-cmd and
# hyperfine, on kernels make check does not boot (it covers Debian 12's 6.1
# amd64). CELL is a matrix cell (tests/matrix/fetch.sh); default
# "7-x86_64 6.12-arm64":
#   x86_64  the cell's kernel under tests/vm/vng.sh with the host's root file
#           system, so bookworm's tools, as a bookworm user with a backports
#           kernel has them; the kernel's own modules (virtio, 9p) from
#           tests/matrix/modules.sh, at /lib/modules/<kver> for the VM run
#           alone (an overlay in a private mount namespace: the host's
#           /lib/modules is neither written nor changed for anyone else)
#   arm64   the cell's kernel under tests/matrix/boot.sh (qemu-system-aarch64,
#           TCG) with an initramfs of tests/matrix/initramfs.sh whose user
#           land is bookworm's arm64 one with the tools
#           (tests/matrix/rootfs-bpftrace.sh) and whose /init is tests/matrix/init.sh
# Each cell: fetch.sh if the cell was never fetched, the module with
# tests/matrix/build.sh (skipped when the cell's module was built from the
# same module/ sources by this script before), the guest, then its KTAP
# documents, the dmesg verdict, the time of every phase, and the bpftrace
# map and hyperfine table t-50-trace prints, saved in tests/out/trace/ as
# CELL.bpftrace.txt and CELL.hyperfine.md. Ends with "N passed, N failed"
# (", N skipped") over every document, as make check does.
#
# Env: MMT_TRACE_TESTS (default "t-50-trace t-45-tune"), MMT_TRACE_X86_CPUS
# (the x86_64 guest's CPUs, default 1: see vm_x86), MMT_VM_TIMEOUT
# (seconds per guest, default 1500), MMT_VM_MEMORY (arm64 guest, MiB,
# default 3072: the initramfs holds the whole user land).
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP" || exit 1
OUT=$TOP/tests/out/trace
mkdir -p "$OUT"
M=$TOP/tests/matrix
CACHE=${MMTUNE_CACHE:-/var/cache/mmtune}
MX=$CACHE/matrix
T=$CACHE/trace
SUITES=${MMT_TRACE_TESTS:-t-50-trace t-45-tune}
TMO=${MMT_VM_TIMEOUT:-1500}
[ $# -gt 0 ] || set -- 7-x86_64 6.12-arm64
t0=$(date +%s)

. "$TOP/tests/lib.sh"
logs=()

# host packages (tests/deps/matrix.txt and trace.txt) and virtme-ng: what
# is missing, tests/setup.sh installs, as check-matrix does
need=()
while read -r p _; do
	case $p in ''|'#'*) continue ;; esac
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || need+=("$p")
done < <(cat "$TOP/tests/deps/matrix.txt" "$TOP/tests/deps/trace.txt")
if [ ${#need[@]} -gt 0 ] || [ ! -x "$CACHE/virtme-ng/current/usr/bin/vng" ]; then
	echo "# installing host packages: ${need[*]} (tests/setup.sh)"
	if ! "$TOP/tests/setup.sh" > "$OUT/setup.log" 2>&1; then
		ktap_begin check-trace; fail "setup: see tests/out/trace/setup.log"; ktap_end
		echo "0 passed, 1 failed"; exit 1
	fi
fi

# phase CELL NAME CMD...: CMD with its output in $OUT/CELL.NAME.log, timed;
# one check line
phase() {
	local c=$1 n=$2 s=$SECONDS rc; shift 2
	"$@" > "$OUT/$c.$n.log" 2>&1
	rc=$?
	echo "# $c: $n: $((SECONDS - s)) s"
	if [ $rc = 0 ]; then
		ok "$c: $n"
	else
		fail "$c: $n: exit status $rc, see tests/out/trace/$c.$n.log: $(tail -n 1 "$OUT/$c.$n.log")"
	fi
	return $rc
}
# show LOG: a document's lines (no build noise, no dmesg)
show() { grep -E '^(not )?ok [0-9]|^# |^1\.\.[0-9]|^K?TAP version' "$1" | grep -v '^# \(bpftrace\|hyperfine\)| '; }

# stage CELL: the tree the guest runs, build/trace/CELL: the tests, the
# cell's module, the static tools and probe of its arch (tests/matrix/build.sh).
# The cell's module is copied: a later matrix run rebuilds it in place.
stage() {
	local c=$1 d=$TOP/build/trace/$1 sum
	sum=$(cat module/Kbuild module/*.[ch] module/*/*.[ch] | sha1sum | cut -d' ' -f1)
	if [ "$(cat "$d/module.sum" 2>/dev/null)" != "$sum" ] || [ ! -f "$d/module/mmtune.ko" ] ||
	   [ -n "$(find userspace module/mmtune_abi.h module/mmtune_rule_keys.h -newer "$d/module.sum" -print -quit)" ]; then
		# The cell's build directory and tools are check-matrix's:
		# its lock, so that the two never build one cell at once.
		rm -rf "$d"; mkdir -p "$d/module" "$d/userspace"
		(
			flock -w 7200 9 || { echo "check-matrix holds $MX/.lock"; exit 1; }
			"$M/build.sh" "$c" || exit 1
			# shellcheck disable=SC1090 # written by tests/matrix/build.sh, not in the tree
			. "$MX/cells/$c/build.env"
			cp "$MX/cells/$c/mmtune.ko" "$d/module/" &&
			cp "$TOOLS/mmtunectl" "$TOOLS/mmstress" "$d/userspace/" &&
			cp "$PROBE" "$d/faultprobe"
		) 9>"$MX/.lock" || return 1
		echo "$sum" > "$d/module.sum"
	else
		echo "the module of these sources is built already: $d/module/mmtune.ko"
	fi
	rm -rf "$d/tests"; mkdir -p "$d/tests"
	cp -r tests/lib.sh tests/vm "$d/tests/"
	strings "$d/module/mmtune.ko" | grep '^vermagic='
}

# prep_x86 CELL, vm_x86 CELL: the suites under vng, the host's root file system, in a
# private mount namespace where /lib/modules is an overlay of the cell's
# modules (tests/matrix/modules.sh) over the host's: the kernel booted as
# /lib/modules/<kver>/vmlinuz, virtme-ng finds them as it finds the host's
# own kernel's and the guest has them at /lib/modules/<kver>. The guest
# says first what it has there (the suites insmod the tree's module; what
# they need of Debian's, virtme-ng's initramfs loads). One vCPU
# ($MMT_TRACE_X86_CPUS): with two, 7.3's text patching under TCG panicked
# 2 runs of 3, a vCPU running its stale translation of text_poke_bp()'s
# int3 once the patching was over ("Oops: int3" in __schedule as
# trace-cmd's pid filter hooked the scheduler, in finish_task_switch as
# perf record's per-task event did): every tool here patches kernel text.
# shellcheck disable=SC2016 # expanded in the guest
MODS='m=/lib/modules/$(uname -r); echo "# guest: $m: $(ls -d "$m/kernel" 2>&1), $(grep -c . "$m/modules.dep" 2>&1) lines in modules.dep"'
prep_x86() {
	MODDIR=$("$TOP/tests/matrix/modules.sh" "$1" | tail -n 1) && echo "modules: $MODDIR"
}
vm_x86() {
	local c=$1 kver d=$TOP/build/trace/$1
	# shellcheck disable=SC1090 # written by tests/matrix/fetch.sh, not in the tree
	kver=$(. "$MX/cells/$c/cell.env"; echo "$KVER")
	echo "# kernel /lib/modules/$kver/vmlinuz, modules $MODDIR over /lib/modules"
	# shellcheck disable=SC2016 # the inner shell's arguments
	MMT_PROBE=$d/faultprobe unshare --mount --propagation private /bin/sh -ec '
		mount -t overlay -o "lowerdir=$1:/lib/modules" mmtune-trace /lib/modules
		shift; exec "$@"' sh "$MODDIR" \
		tests/vm/vng.sh --kernel "/lib/modules/$kver/vmlinuz" --cpus "${MMT_TRACE_X86_CPUS:-1}" \
		--verbose --timeout "$TMO" -- \
		bash -c "$MODS; exec $d/tests/vm/guest.sh $SUITES" 2> "$OUT/$c.console.log"
}

# prep_arm CELL, vm_arm CELL: the suites in the initramfs guest, /init the
# matrix's
prep_arm() {
	local c=$1 d=$T/cells/$1 fs
	# shellcheck disable=SC1090 # written by tests/matrix/fetch.sh, not in the tree
	fs=$("$TOP/tests/matrix/rootfs-bpftrace.sh" "$(. "$MX/cells/$c/cell.env"; echo "$DEB_ARCH")" | tail -n 1) || return 1
	MMT_INITRAMFS=$d/initramfs.cpio MMT_MATRIX_ROOTFS=$fs MMT_MATRIX_TESTS=$SUITES \
		MMT_MATRIX_LIGHT=0 "$M/initramfs.sh" "$c" || return 1
	echo "initramfs $d/initramfs.cpio: $(du -h "$d/initramfs.cpio" | cut -f1)"
}
vm_arm() {
	local d=$T/cells/$1
	MMT_BOOT_INITRD=$d/initramfs.cpio MMT_BOOT_LOG=$OUT/$1.console.log \
		MMT_VM_MEMORY=${MMT_VM_MEMORY:-3072} MMT_BOOT_TIMEOUT=$TMO "$M/boot.sh" "$1"
}

# results CELL: the guest's documents, the saved map and table
results() {
	local c=$1 log=$OUT/$1.vm.log
	sed -n 's/^dmesg| //p' "$log" > "$OUT/$c.dmesg.log"
	sed -n 's/^# bpftrace| //p' "$log" > "$OUT/$c.bpftrace.txt"
	sed -n 's/^# hyperfine| //p' "$log" > "$OUT/$c.hyperfine.md"
	show "$log"
	logs+=("$log")
	for f in bpftrace.txt hyperfine.md; do
		[ -s "$OUT/$c.$f" ] || continue
		echo "# --- $c: tests/out/trace/$c.$f"
		sed 's/^/#   /' "$OUT/$c.$f"
	done
}

for c in "$@"; do
	ktap_begin "check-trace: $c"
	rm -f "$OUT/$c".*	# this cell's logs (another cell's of an earlier run stay)
	case $c in *-x86_64) g=x86 ;; *-arm64) g=arm ;;
	*) fail "$c: make check-trace runs x86_64 and arm64 cells"; ktap_end; continue ;;
	esac
	echo "# cell $c: $SUITES"
	mkdir -p "$T/cells/$c"
	if [ ! -f "$MX/cells/$c/cell.env" ]; then
		phase "$c" fetch "$M/fetch.sh" "$c" || { ktap_end; continue; }
	fi
	phase "$c" build stage "$c" || { ktap_end; continue; }
	phase "$c" prepare "prep_$g" "$c" || { ktap_end; continue; }
	phase "$c" vm "vm_$g" "$c"
	if grep -qx 'mmtune-guest-done' "$OUT/$c.vm.log"; then
		ok "$c: the guest finished"
	else
		fail "$c: the guest did not finish, see tests/out/trace/$c.console.log"
		tail -n 20 "$OUT/$c.console.log" | sed 's/^/# console: /'
	fi
	ktap_end
	results "$c"
done
echo "# logs in tests/out/trace/, $(( $(date +%s) - t0 )) s in all"
read -r p f s bad < <(if [ ${#logs[@]} -gt 0 ]; then ktap_count "${logs[@]}"; else echo 0 0 0 0; fi)
p=$((p + KTAP_SUM_PASS)) f=$((f + KTAP_SUM_FAIL + bad)) s=$((s + KTAP_SUM_SKIP))
[ "$bad" = 0 ] || echo "# $bad KTAP documents in tests/out/trace end without their plan"
skipped=
[ "$s" = 0 ] || skipped=", $s skipped"
echo "$p passed, $f failed$skipped"
[ "$f" = 0 ]
