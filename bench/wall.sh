#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/wall.sh (`make bench-wall`): what the fault-path hooks cost, in
# wall-clock throughput (`make bench` counts instructions: bench/insn.sh).
#
# One VM run (tests/vm/vng.sh, TCG), in which a read-fault workload
# (bench/faultbench.c: read one byte per page of a cached tmpfs file,
# mapped aligned, at the default fault-around order) runs under each
# configuration, interleaved (the order rotates every round) and repeated:
#   a        no module
#   b        mmtune loaded, stats off
#   c        stats on (counters and the latency kretprobe: the default)
#   c_ctr    stats on with latency_enable 0 (counters only)
#   d        bpftrace counting handle_mm_fault and filemap_map_pages
#            (calls, pages requested) in per-CPU maps, with kprobes
#   d_kfunc  the same with kfunc (fentry) probes, where bpftrace has them
# The host then prints, and writes as a run of bench/runs/, per configuration
# the median fault throughput, its spread (min..max, and the interquartile
# range in % of the median) and the ratio of medians to a.
#
# Env: MMT_BENCH_ROUNDS, _SECONDS, _MB and _RUNS (bench/lib.sh), MMT_KERNEL
#      (see vng.sh).
# Inside the guest this script runs itself as: bench/wall.sh --guest DIR
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CONFIGS="a b c c_ctr d d_kfunc"
. "$TOP/bench/lib.sh"

# ------------------------------------------------------------------ guest
guest() {
	local dir=$1 dbg=/sys/kernel/debug mmt=/sys/kernel/debug/mmtune
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	mountpoint -q $dbg || mount -t debugfs none $dbg
	mountpoint -q /sys/kernel/tracing || mount -t tracefs none /sys/kernel/tracing
	bench_mount_file

	bench_bt_scripts

	setup() {
		case $1 in
		a) ;;
		b) insmod "$TOP/module/mmtune.ko" ;;
		c) insmod "$TOP/module/mmtune.ko" && echo 1 > $mmt/stats_enable ;;
		c_ctr) insmod "$TOP/module/mmtune.ko" && echo 0 > $mmt/latency_enable &&
			echo 1 > $mmt/stats_enable ;;
		d) bt_start /var/tmp/kprobe.bt ;;
		d_kfunc) bt_start /var/tmp/kfunc.bt ;;
		esac
	}
	teardown() {
		case $1 in
		c|c_ctr) echo "# $1 stats: $(tr '\n' ' ' < $mmt/stats)" ;;
		esac
		bt_stop
		rmmod mmtune 2>/dev/null
		true
	}

	bench_rounds "$dir"
	echo "mmtune-bench-done"
}

if [ "${1:-}" = --guest ]; then
	guest "$2"
	exit 0
fi

# ------------------------------------------------------------------- host
command -v bpftrace > /dev/null ||
	echo "bench: bpftrace not installed (tests/deps/bench.txt; run tests/setup.sh): d will be missing" >&2
bench_vm "$TOP/bench/wall.sh"
bench_write "$(bench_run wall)" "wall clock, kernel $KVER" \
	"read faults on a ${MB} MiB cached tmpfs file at the default fault-around order."
