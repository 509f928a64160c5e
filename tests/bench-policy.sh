#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/bench-policy.sh: what the per-process policy's rule lookup costs on
# the fault path (issue 7), in the style of tests/bench.sh.
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
# Stats stay off throughout.  The host prints, and writes to
# bench/policy.md, per configuration the median fault throughput, its
# spread (min..max, and the interquartile range in % of the median) and
# the ratio of medians to a.
#
# Env: MMT_BENCH_ROUNDS (default 5), MMT_BENCH_SECONDS per run (default 4),
#      MMT_BENCH_MB file size (default 64), MMT_BENCH_POLICY_OUT (default
#      bench/policy.md), MMT_KERNEL (see vng.sh).
# Inside the guest this script runs itself as: tests/bench-policy.sh --guest DIR
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=${MMT_BENCH_ROUNDS:-5}
SECS=${MMT_BENCH_SECONDS:-4}
MB=${MMT_BENCH_MB:-64}
CONFIGS="a p0 p1 p16 p1m"

# ------------------------------------------------------------------ guest
guest() {
	local dir=$1 dbg=/sys/kernel/debug mmt=/sys/kernel/debug/mmtune
	local f=/var/tmp/bench-shm/f cg=/sys/fs/cgroup
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	mountpoint -q $dbg || mount -t debugfs none $dbg
	grep -q " $cg cgroup2 " /proc/mounts || mount -t cgroup2 none $cg
	mkdir -p $cg/mmt-bench /var/tmp/bench-shm
	mount -t tmpfs -o size=$((MB + 16))m,huge=never bench /var/tmp/bench-shm
	dd if=/dev/zero of=$f bs=1M count="$MB" status=none
	rmmod mmtune 2>/dev/null
	echo "# guest: $(uname -r), $(nproc) cpus, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "# fault_around_bytes $(cat $dbg/fault_around_bytes)"

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

	# a warm-up pass, unmeasured
	"$dir/faultbench" $f 2 > /dev/null
	echo "round,config,faults,pages,seconds,faults_per_s,pages_per_s"
	local r c out cfgs=($CONFIGS) n
	n=${#cfgs[@]}
	for r in $(seq 1 "$ROUNDS"); do
		for i in $(seq 0 $((n - 1))); do
			c=${cfgs[$(( (i + r - 1) % n ))]}	# rotated every round
			if setup "$c"; then
				out=($("$dir/faultbench" $f "$SECS"))
				echo "$r,$c,${out[1]},${out[3]},${out[5]},${out[7]},${out[9]}"
			else
				echo "# round $r: $c could not be set up"
			fi
			teardown "$c"
		done
	done
	umount /var/tmp/bench-shm
	rmdir $cg/mmt-bench
	echo "mmtune-bench-done"
}

if [ "${1:-}" = --guest ]; then
	guest "$2"
	exit 0
fi

# ------------------------------------------------------------------- host
KVER=$(cd /lib/modules && ls -d 6.1.*-amd64 2>/dev/null | sort -V | tail -n 1)
KDIR=/lib/modules/$KVER/build
OUT=${MMT_BENCH_POLICY_OUT:-$TOP/bench/policy.md}

make -s -C "$TOP" module KDIR="$KDIR" > /dev/null || { echo "bench-policy: module build failed" >&2; exit 1; }
# /tmp is seen by the guest (an overlay of the host's /tmp)
dir=$(mktemp -d /tmp/mmt-bench-policy.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cc -O2 -o "$dir/faultbench" "$TOP/bench/faultbench.c" || exit 1

echo "# bench-policy: $ROUNDS rounds x {$CONFIGS} x ${SECS}s, ${MB} MiB file, kernel $KVER" >&2
"$TOP/tests/vm/vng.sh" --timeout 3000 -- env MMT_BENCH_ROUNDS="$ROUNDS" \
	MMT_BENCH_SECONDS="$SECS" MMT_BENCH_MB="$MB" "$TOP/tests/bench-policy.sh" --guest "$dir" \
	> "$dir/raw.txt" 2> "$dir/console.txt"
grep -q mmtune-bench-done "$dir/raw.txt" || {
	echo "bench-policy: the guest did not finish:" >&2; tail -n 20 "$dir/raw.txt" "$dir/console.txt" >&2; exit 1; }

summary=$(awk -F, -v configs="$CONFIGS" '
	function sort(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	}
	function q(a, n, p,   x, i) {	# linear-interpolated quantile
		x = 1 + (n - 1) * p; i = int(x)
		return i >= n ? a[n] : a[i] + (x - i) * (a[i + 1] - a[i])
	}
	/^[0-9]+,/ { n[$2]++; v[$2, n[$2]] = $6 }
	END {
		nc = split(configs, cs, " ")
		printf "| config | runs | median faults/s | min..max | IQR %% of median | ratio to a |\n"
		printf "|---|---|---|---|---|---|\n"
		for (k = 1; k <= nc; k++) {
			c = cs[k]
			if (!n[c]) { printf "| %s | 0 | - | - | - | - |\n", c; continue }
			delete s
			for (i = 1; i <= n[c]; i++) s[i] = v[c, i]
			sort(s, n[c])
			med[c] = q(s, n[c], 0.5)
			iqr = q(s, n[c], 0.75) - q(s, n[c], 0.25)
			printf "| %s | %d | %.0f | %.0f..%.0f | %.1f | %s |\n", c, n[c], med[c],
				s[1], s[n[c]], 100 * iqr / med[c],
				med["a"] ? sprintf("%.3f", med[c] / med["a"]) : "-"
		}
	}' "$dir/raw.txt")

{
	echo "## $(date -u +%Y-%m-%d) — policy lookup, kernel $KVER under TCG ($(grep -m1 '^# guest' "$dir/raw.txt" | sed 's/^# guest: //'))"
	echo
	echo "$ROUNDS rounds, configurations interleaved (order rotated each round), ${SECS} s each,"
	echo "read faults on a ${MB} MiB cached tmpfs file at the default fault-around order, stats off."
	echo "a: no module; p0: loaded, no rules; p1: one rule, not matching; p16: sixteen rules"
	echo "(14 comm=, pid=, cgroup=), none matching; p1m: one matching comm= rule at the default order."
	echo
	echo "$summary"
	echo
	echo '<details><summary>raw runs</summary>'
	echo
	echo '```'
	grep -vE '^mmtune-bench-done' "$dir/raw.txt"
	echo '```'
	echo '</details>'
	echo
} > "$dir/section.md"
cat "$dir/section.md"
if [ -f "$OUT" ]; then
	# newest run first, after the file's head (everything before the first "## ")
	awk -v sec="$dir/section.md" '
		!done && /^## / { while ((getline l < sec) > 0) print l; done = 1 }
		{ print }
		END { if (!done) while ((getline l < sec) > 0) print l }' "$OUT" > "$dir/new.md" &&
		cp "$dir/new.md" "$OUT"
else
	{ echo "# mmtune policy-lookup benchmark results"; echo
	  echo "Written by tests/bench-policy.sh (to join \`make bench\`)."; echo
	  cat "$dir/section.md"; } > "$OUT"
fi
echo "# written to $OUT" >&2
