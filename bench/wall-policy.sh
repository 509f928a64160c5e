#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/wall-policy.sh: what the per-process policy's rule lookup costs on
# the fault path, in the style of bench/wall.sh.
#
# One VM run (tests/vm/vng.sh, TCG), in which bench/faultbench.c (read one
# byte per page of a cached tmpfs file, mapped aligned, at the default
# fault-around order) runs under each configuration, interleaved (the
# order rotates every round) and repeated:
#   a        no module
#   p0       mmtune loaded, no rules (no hook: must cost nothing)
#   p1       one rule that does not match faultbench: every fault-around
#            call takes the filemap_map_pages and PTE-setter hooks, one
#            comm compare, and is narrowed to the default order (a no-op)
#   p16      sixteen rules, none matching (14 comm=, a pid= and a
#            cgroup=): every call walks all of them
#   p1m      one comm= rule that matches faultbench, at the default order
# Stats stay off throughout.  The host prints, and writes as a run of
# bench/runs/, per configuration the median fault throughput, its
# spread (min..max, and the interquartile range in % of the median) and
# the ratio of medians to a.
#
# Env: MMT_BENCH_ROUNDS, _SECONDS, _MB and _RUNS (bench/lib.sh), MMT_KERNEL
#      (see vng.sh).
# Inside the guest this script runs itself as: bench/wall-policy.sh --guest DIR
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$TOP/bench/lib.sh"
# no module, loaded without rules, 1 rule, 16 rules, 1 matching rule
CONFIGS="a p0 p1 p16 p1m"

# ------------------------------------------------------------------ guest
guest() {
	local dir=$1 dbg=/sys/kernel/debug mmt=/sys/kernel/debug/mmtune
	local cg=/sys/fs/cgroup
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	mountpoint -q $dbg || mount -t debugfs none $dbg
	grep -q " $cg cgroup2 " /proc/mounts || mount -t cgroup2 none $cg
	mkdir -p $cg/mmt-bench
	bench_mount_file

	local r16="" i
	for i in $(seq 1 14); do r16="${r16}comm=nomatch$i order=2\n"; done
	r16="${r16}pid=1 order=2\ncgroup=/mmt-bench order=2\n"
	# printf(1) for the rules: one write(2); bash's builtin writes line by line
	setup() {
		case $1 in
		a) ;;
		p0) insmod "$TOP/module/mmtune.ko" ;;
		p1) insmod "$TOP/module/mmtune.ko" && printf 'comm=nomatch order=2\n' > $mmt/policy ;;
		p16) insmod "$TOP/module/mmtune.ko" && env printf '%b' "$r16" > $mmt/policy ;;
		p1m) insmod "$TOP/module/mmtune.ko" && printf 'comm=faultbench order=default\n' > $mmt/policy ;;
		esac
	}
	teardown() {
		case $1 in
		p1|p16|p1m) echo "# $1 policy: $(grep -v '^# rules' $mmt/policy | tr '\n' ' ' | cut -c1-200)" ;;
		esac
		rmmod mmtune 2>/dev/null
		true
	}

	bench_rounds "$dir"
	rmdir $cg/mmt-bench
	echo "mmtune-bench-done"
}

if [ "${1:-}" = --guest ]; then
	guest "$2"
	exit 0
fi

# ------------------------------------------------------------------- host
bench_vm "$TOP/bench/wall-policy.sh"
bench_write "$(bench_run wall-policy)" "policy lookup, kernel $KVER" \
	"read faults on a ${MB} MiB cached tmpfs file at the default fault-around order, stats off.
a: no module; p0: loaded, no rules; p1: one rule, not matching; p16: sixteen rules
(14 comm=, pid=, cgroup=), none matching; p1m: one matching comm= rule at the default order."
