#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/bench.sh (`make bench`): what the fault-path hooks cost.
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
# The host then prints, and writes to bench/RESULTS.md, per configuration
# the median fault throughput, its spread (min..max, and the interquartile
# range in % of the median) and the ratio of medians to a.
#
# Env: MMT_BENCH_ROUNDS (default 5), MMT_BENCH_SECONDS per run (default 4),
#      MMT_BENCH_MB file size (default 64), MMT_BENCH_OUT (default
#      bench/RESULTS.md), MMT_KERNEL (see vng.sh).
# Inside the guest this script runs itself as: tests/bench.sh --guest DIR
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=${MMT_BENCH_ROUNDS:-5}
SECS=${MMT_BENCH_SECONDS:-4}
MB=${MMT_BENCH_MB:-64}
CONFIGS="a b c c_ctr d d_kfunc"

# ------------------------------------------------------------------ guest
guest() {
	local dir=$1 dbg=/sys/kernel/debug mmt=/sys/kernel/debug/mmtune
	local f=/var/tmp/bench-shm/f bt=""
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	mountpoint -q $dbg || mount -t debugfs none $dbg
	mountpoint -q /sys/kernel/tracing || mount -t tracefs none /sys/kernel/tracing
	mkdir -p /var/tmp/bench-shm
	mount -t tmpfs -o size=$((MB + 16))m,huge=never bench /var/tmp/bench-shm
	dd if=/dev/zero of=$f bs=1M count="$MB" status=none
	rmmod mmtune 2>/dev/null
	echo "# guest: $(uname -r), $(nproc) cpus, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "# fault_around_bytes $(cat $dbg/fault_around_bytes)"

	cat > /var/tmp/kprobe.bt <<-'EOF'
	kprobe:handle_mm_fault { @faults = count(); }
	kprobe:filemap_map_pages { @calls = count(); @req = sum(arg2 - arg1 + 1); }
	EOF
	cat > /var/tmp/kfunc.bt <<-'EOF'
	kfunc:handle_mm_fault { @faults = count(); }
	kfunc:filemap_map_pages { @calls = count(); @req = sum(args->end_pgoff - args->start_pgoff + 1); }
	EOF

	# bt_start SCRIPT: bpftrace attached (it prints "Attaching N probes")
	bt_start() {
		local log=/var/tmp/bt.log i
		: > $log
		bpftrace "$1" > $log 2>&1 &
		bt=$!
		for i in $(seq 1 600); do
			grep -q '^Attaching' $log && { sleep 1; return 0; }
			kill -0 $bt 2>/dev/null || break
			sleep 0.5
		done
		echo "# bpftrace $1 did not attach: $(tail -n 2 $log | tr '\n' ' ')"
		kill $bt 2>/dev/null; wait $bt 2>/dev/null; bt=""
		return 1
	}
	bt_stop() {
		[ -n "$bt" ] || return 0
		kill -INT $bt; wait $bt 2>/dev/null; bt=""
		echo "# bpftrace: $(grep -E '^@' /var/tmp/bt.log | tr '\n' ' ')"
	}
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

	# a warm-up pass, unmeasured
	"$dir/faultbench" $f 2 > /dev/null
	echo "round,config,faults,pages,seconds,faults_per_s,pages_per_s"
	local r c i out cfgs=($CONFIGS) n
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
	echo "mmtune-bench-done"
}

if [ "${1:-}" = --guest ]; then
	guest "$2"
	exit 0
fi

# ------------------------------------------------------------------- host
KVER=$(cd /lib/modules && ls -d 6.1.*-amd64 2>/dev/null | sort -V | tail -n 1)
KDIR=/lib/modules/$KVER/build
OUT=${MMT_BENCH_OUT:-$TOP/bench/RESULTS.md}
command -v bpftrace > /dev/null ||
	echo "bench: bpftrace not installed (tests/deps/bench.txt; run tests/setup.sh): d will be missing" >&2

make -s -C "$TOP" module KDIR="$KDIR" > /dev/null || { echo "bench: module build failed" >&2; exit 1; }
# /tmp is seen by the guest (an overlay of the host's /tmp)
dir=$(mktemp -d /tmp/mmt-bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cc -O2 -o "$dir/faultbench" "$TOP/bench/faultbench.c" || exit 1

echo "# bench: $ROUNDS rounds x {$CONFIGS} x ${SECS}s, ${MB} MiB file, kernel $KVER" >&2
"$TOP/tests/vm/vng.sh" --timeout 3000 -- env MMT_BENCH_ROUNDS="$ROUNDS" \
	MMT_BENCH_SECONDS="$SECS" MMT_BENCH_MB="$MB" "$TOP/tests/bench.sh" --guest "$dir" \
	> "$dir/raw.txt" 2> "$dir/console.txt"
grep -q mmtune-bench-done "$dir/raw.txt" || {
	echo "bench: the guest did not finish:" >&2; tail -n 20 "$dir/raw.txt" "$dir/console.txt" >&2; exit 1; }

summary=$(awk -F, -v configs="$CONFIGS" '
	function sort(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	}
	function q(a, n, p,   x, i) {	# linear-interpolated quantile
		x = 1 + (n - 1) * p; i = int(x)
		return i >= n ? a[n] : a[i] + (x - i) * (a[i + 1] - a[i])
	}
	/^[0-9]+,/ { n[$2]++; v[$2, n[$2]] = $6; r[$1, $2] = $6; rounds[$1] = 1 }
	END {
		nc = split(configs, cs, " ")
		printf "| config | runs | median faults/s | min..max | IQR %% of median | ratio to a | same-round ratio to a, median (min..max) |\n"
		printf "|---|---|---|---|---|---|---|\n"
		for (k = 1; k <= nc; k++) {
			c = cs[k]
			if (!n[c]) { printf "| %s | 0 | - | - | - | - | - |\n", c; continue }
			delete s
			for (i = 1; i <= n[c]; i++) s[i] = v[c, i]
			sort(s, n[c])
			med[c] = q(s, n[c], 0.5)
			iqr = q(s, n[c], 0.75) - q(s, n[c], 0.25)
			# paired: each run against a of the same round (load drifts)
			delete p; np = 0
			for (rd in rounds)
				if ((rd, c) in r && (rd, "a") in r && r[rd, "a"] > 0)
					p[++np] = r[rd, c] / r[rd, "a"]
			sort(p, np)
			printf "| %s | %d | %.0f | %.0f..%.0f | %.1f | %s | %s |\n", c, n[c], med[c],
				s[1], s[n[c]], 100 * iqr / med[c],
				med["a"] ? sprintf("%.3f", med[c] / med["a"]) : "-",
				np ? sprintf("%.3f (%.3f..%.3f)", q(p, np, 0.5), p[1], p[np]) : "-"
		}
	}' "$dir/raw.txt")

{
	echo "## $(date -u +%Y-%m-%d) — kernel $KVER under TCG ($(grep -m1 '^# guest' "$dir/raw.txt" | sed 's/^# guest: //'))"
	echo
	echo "$ROUNDS rounds, configurations interleaved (order rotated each round), ${SECS} s each,"
	echo "read faults on a ${MB} MiB cached tmpfs file at the default fault-around order."
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
	# newest run first, after the head (everything before the first dated "## ")
	awk -v sec="$dir/section.md" '
		!done && /^## [0-9]/ { while ((getline l < sec) > 0) print l; done = 1 }
		{ print }
		END { if (!done) while ((getline l < sec) > 0) print l }' "$OUT" > "$dir/new.md" &&
		cp "$dir/new.md" "$OUT"
else
	{ echo "# mmtune benchmark results"; echo; echo "Written by \`make bench\` (tests/bench.sh)."; echo; cat "$dir/section.md"; } > "$OUT"
fi
echo "# written to $OUT" >&2
