#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/check-matrix.sh [CELL...]: `make check-matrix`. Root on Debian 12.
#
# Every kernel x arch cell: Debian's 6.1 (bookworm[-security]), 6.12
# (trixie[-security]) and 7.x (trixie-backports) on x86_64, arm64, ppc64le
# (and 6.12's ppc64le -64k flavour) and s390x (big-endian), and 6.12 and 7.x
# on riscv64 (a release arch from Debian 13 on); and the flavours where
# what differs lives: the PREEMPT_RT kernels of 6.1 and 6.12 on amd64
# (spinlock_t sleeps: usefulness refuses there), 6.12's arm64-16k (2048
# PTEs a table, max_order 11: usefulness's marks, auto's ceiling), and
# ppc64le's hash MMU (6.1) and 64 KiB pages (6.12). The
# flavour cells run the suites that touch what differs (FLAVOUR_TESTS
# below: knob, stats, policy, usefulness, auto; dmesg as every cell), not
# all: CI's time. Per cell (tests/matrix/):
#   fetch.sh      headers, -common, amd64 linux-kbuild and the image through a
#                 private apt configuration (cached in $MMTUNE_CACHE/matrix)
#   build.sh      module/mmtune.ko against those headers (cross where foreign;
#                 6.12 and 7.x inside the trixie chroot, chroot.sh)
#   initramfs.sh  busybox + dash/coreutils + the module + the sh suites of
#                 tests/vm
#   boot.sh       the kernel under TCG; the guest runs the suites and scans
#                 dmesg (tests/matrix/init.sh)
# and prints one line: built / loaded / passed N / failed N (the sums of
# the guest's KTAP documents, tests/lib.sh ktap_count; a document cut
# short, without its plan, is one more failure). A summary table
# follows; results go to tests/out/matrix/results.txt (one line per cell,
# tests/matrix/readme-table.sh turns it into README's "verified on" table),
# logs to tests/out/matrix/<cell>.{build,console}.log.
#
# CELL: SERIES-ARCH, SERIES 6.1, 6.12 or 7, ARCH x86_64, arm64, ppc64le,
# ppc64le-64k, arm64-16k, x86_64-rt, arm64-rt, s390x or riscv64, for
# ppc64le optionally followed by -hash (boot with the hash
# MMU: 256 PTEs a table instead of radix's 32 with 64 KiB pages). Default:
# every cell above ("all" says the same); or $MMT_MATRIX_CELLS.
# A cell whose packages the mirror does not have is "unavailable": listed,
# not failed (MMT_MATRIX_STRICT=1 fails it). Exit 1 if any cell failed.
# Light cells: each suite's checks differ by arch and kernel, but
# mmtunectl tune's wall-time runs (t-45-tune, t-40-policy's tune section)
# and most oracle steps only repeat: they run in full on one cell per arch
# ($MMT_MATRIX_FULL, "all" for every cell); the other cells skip them (as
# KTAP skips) and take 20 oracle steps instead of 40, 15 toggles under
# load instead of 30, a 16 MiB file for t-10-knob's fault counts instead
# of 64 and 20000 pfns for t-30-pfn_valid's cross-check instead of 100000.
# Cells run side by side: MMT_MATRIX_JOBS workers (default 2, a TCG guest
# keeps about one host core busy) take the next cell from one queue; worker
# 2 and later start once the file $MMT_MATRIX_GATE exists, if it is set
# (.ci/run: when its other lane no longer needs the second core).
# MMT_MATRIX_SHARD=I/N runs the I-th of every N cells: N CI jobs, each
# with its own cache, cover the matrix in about 1/N of its wall time.
# Env: MMTUNE_CACHE, MMT_MATRIX_TESTS (suites to run), MMT_BOOT_TIMEOUT,
#      MMT_MATRIX_OUT (instead of tests/out/matrix),
#      MMT_JOBS (make -j, default 2).
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
M=$TOP/tests/matrix
. "$M/lib.sh"
. "$TOP/tests/lib.sh"
OUT=${MMT_MATRIX_OUT:-$TOP/tests/out/matrix}
rm -rf "$OUT"; mkdir -p "$OUT"
t0=$(date +%s)

# The cells, the slowest first (a stop's CI of 2026-12-07: 6.12 arm64
# 442 s, 6.12 riscv64 304, 7.x x86_64 299 ... 6.1 x86_64 16; 6.12
# x86_64 and 6.1's -rt since, without t-61 and t-40 there), so that
# side-by-side workers end together: the second starts late
# (MMT_MATRIX_GATE), and a long cell taken last held the end 57 s.
ALL="6.12-arm64 6.12-riscv64 7-x86_64 7-s390x 6.12-s390x 6.12-arm64-16k 7-riscv64 6.1-s390x 7-arm64 6.12-x86_64 6.12-ppc64le 6.1-arm64 6.12-x86_64-rt 7-ppc64le 6.1-ppc64le 6.1-ppc64le-hash 6.12-ppc64le-64k 6.1-x86_64-rt 6.1-x86_64"
# One full cell, 6.12 arm64; the others are light (tests/matrix/init.sh).
# What a full cell adds is mmtunectl tune's wall-time sweeps and the
# parser's long-rule round trip (userspace and the parser, the same code
# on every arch; 100 s of s390x's 6.1 cell and 300 s of riscv64's 6.12
# under TCG), and CI's 50 minutes warm took the flavour cells instead;
# x86_64's and ppc64le's 6.12 cells went light on 2026-12-07 (a stop's CI
# took 3118 s; a full one cost 100 s and 80 s more), make check runs
# x86_64 in full on 6.1. t-45-tune runs in a full x86_64 cell alone
# (tests/matrix/init.sh): MMT_MATRIX_FULL=6.12-x86_64 to run it.
FULL=${MMT_MATRIX_FULL:-6.12-arm64}
# The suites of a flavour cell (-rt, -16k, and ppc64le's -hash and -64k,
# whose other suites run on the plain radix cells of their kernel since
# 2026-12-07, 45 s a cell: CI's time): the ones that touch what the
# flavour changes. MMT_MATRIX_TESTS, when set, wins for every cell.
FLAVOUR_TESTS="t-10-knob t-20-stats t-40-policy t-60-usefulness t-61-auto"
# 6.1's -rt cell: what PREEMPT_RT changes on the kernel of make check
# (the knob, the per-CPU counters, usefulness's refusal); the rules and
# auto under RT run on 6.12's -rt cell (44 s a cell, CI's time).
RT61_TESTS="t-10-knob t-20-stats t-60-usefulness"
# The cell of the kernel make check boots (Debian 12's newest amd64 kernel,
# every suite run there) runs t-10-knob alone, for CI's time: what it
# adds is the busybox guest's boot and the build on the cell's headers.
SAME_AS_CHECK=${MMT_MATRIX_SAME_AS_CHECK:-6.1-x86_64}
[ $# -gt 0 ] || set -- ${MMT_MATRIX_CELLS:-$ALL}
[ "$*" = all ] && set -- $ALL
# MMT_MATRIX_SHARD=I/N: the I-th of every N cells (CI's parallel jobs).
if [ -n "${MMT_MATRIX_SHARD:-}" ]; then
	si=${MMT_MATRIX_SHARD%/*} sn=${MMT_MATRIX_SHARD#*/}
	case $si/$sn in
	*[!0-9/]*|/*|*/) echo "check-matrix: bad MMT_MATRIX_SHARD '$MMT_MATRIX_SHARD' (I/N)" >&2; exit 2 ;;
	esac
	[ "$si" -ge 1 ] && [ "$si" -le "$sn" ] ||
		{ echo "check-matrix: bad MMT_MATRIX_SHARD '$MMT_MATRIX_SHARD' (1 <= I <= N)" >&2; exit 2; }
	shard=() k=0
	for c in "$@"; do
		[ $((k % sn + 1)) = "$si" ] && shard+=("$c")
		k=$((k + 1))
	done
	set -- "${shard[@]}"
fi
for c in "$@"; do
	case $c in
	6.1-*|6.12-*|7-*) ;;
	*) echo "check-matrix: bad cell '$c'" >&2; exit 2 ;;
	esac
done

# --- host packages (tests/deps/matrix.txt; tests/setup.sh installs them)
need=()
while read -r p _; do
	case $p in ''|'#'*) continue ;; esac
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || need+=("$p")
done < "$TOP/tests/deps/matrix.txt"
if [ ${#need[@]} -gt 0 ]; then
	echo "# installing host packages: ${need[*]} (tests/setup.sh)"
	"$TOP/tests/setup.sh" > "$OUT/setup.log" 2>&1 ||
		{ ktap_begin check-matrix; fail "setup: see tests/out/matrix/setup.log"; ktap_finished; }
fi
# the BPF examples t-72-bpf loads (both byte orders; initramfs.sh copies them)
make -s -C "$TOP" bpf-examples > "$OUT/bpf-examples.log" 2>&1 ||
	{ ktap_begin check-matrix; fail "make bpf-examples: see tests/out/matrix/bpf-examples.log"; ktap_finished; }
mkdir -p "$MX/cells"
# One run at a time per cache (CI and a developer on the same machine).
exec 9>"$MX/.lock"
flock -n 9 || { echo "# waiting for another check-matrix on $MX"; flock -w 7200 9; } ||
	{ ktap_begin check-matrix; fail "another check-matrix holds $MX/.lock"; ktap_finished; }

# --- fetch ahead: downloads (and the chroot) overlap the VM runs.
for c in "$@"; do rm -f "$MX/cells/$c/fetch.rc"; done
(
	for c in "$@"; do
		mkdir -p "$MX/cells/$c"
		"$M/fetch.sh" "$c" > "$MX/cells/$c/fetch.log" 2>&1
		echo $? > "$MX/cells/$c/fetch.rc"
	done
	for c in "$@"; do
		case $c in 6.1-*) ;; *) "$M/chroot.sh" > "$OUT/chroot.log" 2>&1; break ;; esac
	done
) &
prefetch=$!
trap 'kill $prefetch 2>/dev/null' EXIT

# cell_test CELL: build, initramfs and boot of a fetched cell; sets built,
# loaded, passed, failed, skipped, status, psz and mmu.
cell_test() {
	local c=$1 light brc cut g
	if ! "$M/build.sh" "$c" > "$OUT/$c.build.log" 2>&1; then
		cat "$MX/cells/$c/build.log" >> "$OUT/$c.build.log" 2>/dev/null
		status=build-failed
		return
	fi
	built=yes
	cat "$MX/cells/$c/build.log" >> "$OUT/$c.build.log"
	light=1
	case " $FULL " in *" $c "*|*" all "*) light=0 ;; esac
	local tests=${MMT_MATRIX_TESTS:-}
	case $c in
	6.1-*-rt) tests=${tests:-$RT61_TESTS} ;;
	*-rt|*-16k|*-hash|*-64k) tests=${tests:-$FLAVOUR_TESTS} ;;
	esac
	case " $SAME_AS_CHECK " in *" $c "*) tests=${tests:-t-10-knob} ;; esac
	if ! MMT_MATRIX_TESTS=$tests MMT_MATRIX_LIGHT=$light "$M/initramfs.sh" "$c" >> "$OUT/$c.build.log" 2>&1; then
		status=initramfs-failed
		return
	fi
	"$M/boot.sh" "$c" > "$OUT/$c.console.log" 2>&1
	brc=$?
	read -r passed failed skipped cut < <(ktap_count "$OUT/$c.console.log")
	failed=$((failed + cut))
	grep -qE '^ok [0-9]+ load: insmod mmtune.ko' "$OUT/$c.console.log" && loaded=yes
	g=$(grep -m1 '^# guest: ' "$OUT/$c.console.log")
	# digits and letters alone: a kernel message may land in the middle
	# of the line on the serial console
	case $g in *"page size "*) psz=${g#*page size }; psz=${psz%%[!0-9]*} ;; esac
	case $g in *", mmu "*) mmu=${g#*, mmu }; mmu=${mmu%%[!a-z]*} ;; esac
	if [ $brc = 124 ]; then status=timeout
	elif [ $brc != 0 ]; then status=crashed
	elif [ "$failed" != 0 ]; then status=failed
	else status=passed
	fi
}

# run_cell CELL: one cell, once its prefetch is done; its line (and what
# went wrong) on stdout, its results line in $OUT/CELL.res, $OUT/.bad
# touched if it failed.
run_cell() {
	local c=$1 s0 d frc secs
	local built=no loaded=no passed=0 failed=0 skipped=0 kver=- ver=- status='' psz=- mmu=-
	s0=$(date +%s)
	d=$MX/cells/$c
	while [ ! -e "$d/fetch.rc" ]; do
		kill -0 $prefetch 2>/dev/null || break
		sleep 2
	done
	frc=$(cat "$d/fetch.rc" 2>/dev/null || echo 1)
	cp "$d/fetch.log" "$OUT/$c.fetch.log" 2>/dev/null
	if [ "$frc" = 3 ]; then
		status=unavailable
	elif [ "$frc" != 0 ]; then
		status=fetch-failed
	else
		. "$d/cell.env"
		kver=$KVER ver=$VERSION
		cell_test "$c"
	fi
	secs=$(( $(date +%s) - s0 ))
	case $status in
	passed) ;;
	unavailable) [ "${MMT_MATRIX_STRICT:-0}" = 1 ] && touch "$OUT/.bad" ;;
	*) touch "$OUT/.bad" ;;
	esac
	printf '%-18s %-26s %-8s %-6s %-6s %6s %6s %6s\n' \
		"$c" "$kver" "$status" $built $loaded "$passed" "$failed" "$secs"
	[ "$status" = failed ] && ktap_failed "$OUT/$c.console.log" | head -n 20
	[ "$status" = unavailable ] && sed 's/^/#   /' "$d/unavailable" 2>/dev/null
	case $status in build-failed|crashed|timeout|initramfs-failed|fetch-failed)
		echo "#   see tests/out/matrix/$c.*.log" ;;
	esac
	echo "$c ${c%%-*} ${c#*-} $kver $ver $status $built $loaded $passed $failed $secs $psz $mmu $skipped" > "$OUT/$c.res"
}

# next_cell: the index of the next cell nobody took yet (exit 1: none left).
next_cell() {
	local n
	exec 7>>"$OUT/.queue.lock"
	flock 7
	n=$(cat "$OUT/.queue")
	echo $((n + 1)) > "$OUT/.queue"
	[ "$n" -lt ${#cells[@]} ] && echo "$n"
}

# worker W: cells from the queue until none is left; a cell's lines are
# printed whole when it ends. Worker 2 and later wait for $MMT_MATRIX_GATE,
# if set, to exist (.ci/run: its other lane is done, the second core free).
worker() {
	local w=$1 i c
	if [ "$w" -gt 1 ] && [ -n "${MMT_MATRIX_GATE:-}" ]; then
		while [ ! -e "$MMT_MATRIX_GATE" ]; do
			[ "$(cat "$OUT/.queue")" -lt ${#cells[@]} ] || return 0
			sleep 5
		done
	fi
	while i=$(next_cell); do
		c=${cells[$i]}
		run_cell "$c" > "$OUT/$c.line"
		flock "$OUT/.queue.lock" cat "$OUT/$c.line"
	done
}

printf '%-18s %-26s %-8s %-6s %-6s %6s %6s %6s\n' \
	"# cell" kernel status built loaded passed failed secs
cells=("$@")
echo 0 > "$OUT/.queue"
jobs=${MMT_MATRIX_JOBS:-2}
case $jobs in ''|*[!0-9]*|0) echo "check-matrix: bad MMT_MATRIX_JOBS '$jobs'" >&2; exit 2 ;; esac
wk=()
for w in $(seq "$jobs"); do
	worker "$w" &
	wk+=($!)
done
trap 'kill $prefetch "${wk[@]}" 2>/dev/null' EXIT
wait "${wk[@]}"
res=$OUT/results.txt
echo "# cell series arch kernel_release debian_version status built loaded passed failed seconds page_size mmu skipped" > "$res"
for c in "$@"; do
	cat "$OUT/$c.res" >> "$res" 2>/dev/null ||
		{ echo "$c ${c%%-*} ${c#*-} - - lost no no 0 0 0 - - 0" >> "$res"; touch "$OUT/.bad"; }
done
bad=0
[ -e "$OUT/.bad" ] && bad=1
wait $prefetch 2>/dev/null
trap - EXIT

# Packages no cell used for 14 days (superseded by Debian updates) go.
find "$MX/debs" -maxdepth 1 -name '*.deb' -mtime +14 -delete 2>/dev/null
find "$MX/x" -mindepth 1 -maxdepth 1 -type d -mtime +14 -exec rm -rf {} + 2>/dev/null

wall=$(( $(date +%s) - t0 ))
npass=$(awk '!/^#/ && $6 == "passed"' "$res" | wc -l)
nunav=$(awk '!/^#/ && $6 == "unavailable"' "$res" | wc -l)
nchk=$(awk '!/^#/ { n += $9 } END { print n + 0 }' "$res")
# one line for README (tests/matrix/readme-table.sh --update)
echo "Run of $(date -u +%Y-%m-%d), $npass of $# cells passed, $nunav unavailable, $(( $# - npass - nunav )) failed ($nchk checks), ${wall} s wall time under TCG on $(nproc) host cores (mmtune $(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf"), $(git -C "$TOP" describe --always --dirty 2>/dev/null || echo "no git"))." \
	> "$OUT/summary.txt"
echo
echo "# summary (${wall}s in all; results in tests/out/matrix/results.txt)"
"$M/readme-table.sh" "$res"
# The failed checks again, last: a cell's lines print when it ends, and
# what reads only the tail of CI's output (CI of 2026-12-07: a cell that
# failed two checks early) lost which checks they were. Its console log
# is copied beside the cache's, which outlives CI's clean clone.
for c in "$@"; do
	grep -qs ' failed ' "$OUT/$c.res" || continue
	echo "# $c failed:"
	ktap_failed "$OUT/$c.console.log" | head -n 20
	cp "$OUT/$c.console.log" "$MX/cells/$c/failed-console.log" 2>/dev/null
done
# The closing line .ci/run adds up: the cells' checks, and a cell that
# failed without a failed check (build, boot, timeout) as one failure.
nfchk=$(awk '!/^#/ { n += $10; if ($6 != "passed" && $6 != "unavailable" && $10 == 0) n++ } END { print n + 0 }' "$res")
echo "$nchk passed, $nfchk failed"
exit $bad
