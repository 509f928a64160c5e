#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/demo.sh: `make demo`. Run as root on Debian 12.
#
# Sets up what it needs (tests/setup.sh mmstress: the VM's packages and
# gnuplot, nothing the matrix or the style check needs), builds the tools and the module
# for Debian's 6.1 kernel, boots that kernel under TCG with virtme-ng
# (tests/vm/vng.sh), loads mmtune and runs the seed-000 sweep: seq, rand
# and sparse at fault-around orders 0,1,3,4,5,7 with 1 and 2 threads, and
# prints the tables in the seed's layout and the wall time, each followed
# by the table mmtunectl replay computes from one order-0 run of the same
# workload (docs/replay.md: no sweep needed). Each sweep is
# also drawn (mmstress --plot: faults and throughput by order, a line per
# thread count) into tests/out/demo/{seq,rand,sparse}.svg: the guest sees the
# host's files read-only, so it prints each SVG between marker lines and the
# host writes them out (docs/benchmarks.md's plot, bench/demo-seq.svg, is
# tests/out/demo/seq.svg of a run).
#
# Env: MMT_DEMO_SEQ_SIZE (default 64M per thread), MMT_DEMO_RAND_SIZE (64M),
#      MMT_DEMO_SPARSE_SIZE (512M: 256 page tables per thread; only the
#      fault-around windows are cached), MMT_DEMO_ORDERS (0,1,3,4,5,7),
#      MMT_DEMO_THREADS (1,2), MMT_DEMO_REPEAT (1: runs per point; more gives
#      mean and relative standard deviation).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MMT_TOP=$TOP
. "$TOP/tests/vm/lib.sh"	# info (in the guest), log and die
LOG_TAG=demo
ORDERS=${MMT_DEMO_ORDERS:-0,1,3,4,5,7}
THREADS=${MMT_DEMO_THREADS:-1,2}
REPEAT=${MMT_DEMO_REPEAT:-1}

# ---------------------------------------------------------------- in the VM
if [ "${1:-}" = --guest ]; then
	MMS=$MMT_MMSTRESS
	CTL=$TOP/userspace/mmtunectl
	DBG=/sys/kernel/debug
	mountpoint -q $DBG || mount -t debugfs none $DBG
	insmod "$TOP/module/mmtune.ko"
	dir=$(mktemp -d /var/tmp/mmt-demo.XXXXXX)
	mount -t tmpfs -o size=1200m,huge=never mmt-demo "$dir"
	trap 'umount "$dir"; rmdir "$dir"; rmmod mmtune' EXIT
	echo "guest: Linux $(uname -r) $(uname -m), $(nproc) CPUs, $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB, page $(info page_size) B," \
		"ptrs_per_pte $(info ptrs_per_pte); mmtune loaded, default order $(info default_order), now $(cat $DBG/mmtune/fault_around_order)"
	echo
	for w in seq rand sparse; do
		case $w in
		seq) size=${MMT_DEMO_SEQ_SIZE:-64M} ;;
		rand) size=${MMT_DEMO_RAND_SIZE:-64M} ;;
		sparse) size=${MMT_DEMO_SPARSE_SIZE:-512M} ;;
		esac
		plot=
		command -v gnuplot > /dev/null && plot="--plot $dir/$w.svg"
		# shellcheck disable=SC2086
		"$MMS" "$w" --orders "$ORDERS" --threads "$THREADS" --size "$size" --repeat "$REPEAT" \
			--file "$dir" --quiet $plot
		if [ -n "$plot" ] && [ -s "$dir/$w.svg" ]; then
			echo "@@mmt-file $w.svg"
			sed 's/^/@@ /' "$dir/$w.svg"
			echo "@@mmt-end"
			rm -f "$dir/$w.svg"
		fi
		# the same workload recorded once at order 0, every order replayed
		# from it (docs/replay.md): one run, 1 thread, the whole process
		if "$CTL" record -o "$dir/$w.rec" -- "$MMS" "$w" --threads 1 --size "$size" --warmup 0 \
			--file "$dir" --quiet > /dev/null 2> "$dir/rec.err"; then
			echo "replayed from one order-0 run of $w (1 thread, the whole process's faults):"
			"$CTL" replay --orders "$ORDERS" "$dir/$w.rec" | tail -n +4
			rm -f "$dir/$w.rec"
		else
			echo "mmtunectl record failed: $(tail -n 1 "$dir/rec.err")"
		fi
		echo
	done
	command -v gnuplot > /dev/null || echo "no gnuplot (apt-get install gnuplot-nox): no plots"
	echo "fault_around_order after the sweeps: $(cat $DBG/mmtune/fault_around_order) (restored)"
	exit 0
fi

# ---------------------------------------------------------------- on the host
t0=$(date +%s)
[ "$(id -u)" = 0 ] || die "must run as root (sudo make demo)"
cd "$TOP"
OUT=$TOP/tests/out/demo
mkdir -p "$OUT"

log "setup (tests/setup.sh mmstress: the VM's packages and the plots', log in tests/out/demo/setup.log)"
# its own lines ("setup: install ...") shown as they come, apt's in the log
set +e
tests/setup.sh mmstress 2>&1 | tee "$OUT/setup.log" | grep --line-buffered '^setup: ' >&2
st=${PIPESTATUS[0]}
set -e
[ "$st" = 0 ] || die "tests/setup.sh failed: $(tail -n 1 "$OUT/setup.log")"
KVER=$(cd /lib/modules && ls -d 6.1.*[0-9]-amd64 2>/dev/null | sort -V | tail -n 1)
[ -n "$KVER" ] || die "no Debian 6.1 kernel installed"

log "build: make tools, make module KDIR=/lib/modules/$KVER/build"
make tools > "$OUT/build.log" 2>&1 || log "make tools failed (see tests/out/demo/build.log)"
MMS=
# in the source tree make puts it next to its sources
c=$TOP/userspace/mmstress
[ -f "$c" ] && [ -x "$c" ] && MMS=$c
if [ -z "$MMS" ]; then
	# the tree's build did not leave the binary: build mmstress alone
	MMS=$OUT/mmstress
	cc -O2 -std=gnu11 -I userspace/lib -DMMT_VERSION="\"$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)\"" \
		-o "$MMS" userspace/stress/*.c userspace/lib/*.c -lpthread -lm >> "$OUT/build.log" 2>&1 ||
		die "cannot build mmstress: $(tail -n 1 "$OUT/build.log")"
fi
make module KDIR="/lib/modules/$KVER/build" >> "$OUT/build.log" 2>&1 ||
	die "make module failed: $(tail -n 1 "$OUT/build.log")"

log "booting $KVER under TCG (tests/vm/vng.sh), then the sweep: this takes a few minutes"
rm -f "$OUT"/*.svg
# the guest's marked files (its SVGs) into $OUT, everything else through
MMT_MMSTRESS=$MMS tests/vm/vng.sh --memory 2G --cpus 2 --timeout 900 -- "$TOP/tests/demo.sh" --guest |
	awk -v out="$OUT" '
	/^@@mmt-file / { f = out "/" $2; printf "" > f; next }
	/^@@mmt-end/ { close(f); print "demo: plot " f; f = ""; next }
	f != "" { sub(/^@@ /, ""); sub(/\r$/, ""); print >> f; next }
	{ print }' || rc=${PIPESTATUS[0]}
[ "${rc:-0}" = 0 ] || die "the guest's sweep failed (exit $rc)"
echo "wall time: $(( $(date +%s) - t0 ))s (setup, build, VM boot and sweep)"
