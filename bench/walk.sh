#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/walk.sh (`make bench`, after bench/insn.sh): what the walk of an
# auto rule's live processes costs (module/live.c), in guest instructions
# per PTE slot it reads.  The walk runs in a kworker once a second, off the
# fault path: it costs the machine slots x instructions a slot a second,
# not each fault something.
#
# One VM run (1 vCPU, -icount shift=0, the TCG plugin bench/plugin/
# insncount.c, as bench/insn.sh).  A holder process (tests/vm/probe/
# faultprobe.c, FAULTPROBE_LIVE) maps the bench file COPIES times, reads
# one page in STRIDE of each, and holds them; then bench/markrun.c counts
# every instruction the vCPU runs during `sleep WINDOW`: the walks that
# fall in it, the timer ticks and whatever else the idle guest does.  Per
# round, interleaved:
#   h     usefulness on, the holder under comm=faultprobe order=4: no walk
#   w1    usefulness on, the holder (every page read) under an auto rule
#   w2    the same, the holder reading one page in 2 (old and young PTEs
#         alternate: the slowest case of the eight-slot tests)
# The walk's cost: a w run's kernel instructions minus h's median, over
# the slots walked in the window (its passes, from the plugin's execution
# count of mmtune_auto_live_pass's first block, times the slots a pass
# reads, policy_live_slots / policy_live_passes); and the instructions of
# live.c's own functions alone (the profile), over the same slots.
#
# Env: MMT_BENCH_ROUNDS (default 5), MMT_BENCH_MB file size (default 64),
#      MMT_BENCH_COPIES (default 16: 1 GiB of mappings, 262144 slots a
#      pass with 4 KiB pages), MMT_BENCH_WINDOW (seconds, default 3),
#      MMT_BENCH_RUNS, MMT_BENCH_KEEP, MMT_KERNEL, MMT_BENCH_KO (bench/lib.sh).
# Inside the guest this script runs itself as: bench/walk.sh --guest DIR
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=${MMT_BENCH_ROUNDS:-5}
MB=${MMT_BENCH_MB:-64}
SECS=0
COPIES=${MMT_BENCH_COPIES:-16}
WINDOW=${MMT_BENCH_WINDOW:-3}
CONFIGS="h w1 w2"
export MMT_BENCH_COPIES="$COPIES" MMT_BENCH_WINDOW="$WINDOW"
. "$TOP/bench/lib.sh"

# ------------------------------------------------------------------ guest
guest() {
	local dir=$1 mmt=/sys/kernel/debug/mmtune dbg=/sys/kernel/debug
	local ko=${MMT_BENCH_KO:-$TOP/module/mmtune.ko}
	local r c seq=0 hp k rule p0 s0
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	mountpoint -q $dbg || mount -t debugfs none $dbg
	bench_mount_file
	echo 65536 > $dbg/fault_around_bytes
	insmod "$ko" && echo 1 > $mmt/usefulness_enable || { echo "# insmod failed"; return; }
	echo 0 > /proc/sys/kernel/kptr_restrict
	awk '$2 ~ /^[tT]$/ && NF == 4 { print "msym", $1, $3 }' /proc/kallsyms
	mkfifo /var/tmp/walk-hold
	for r in $(seq 1 "$ROUNDS"); do
		for c in $CONFIGS; do
			case $c in
			h) rule="comm=faultprobe order=4" k=2 ;;
			w1) rule="comm=faultprobe order=auto" k=1 ;;
			w2) rule="comm=faultprobe order=auto" k=2 ;;
			esac
			echo clear > $mmt/policy
			echo "$rule" > $mmt/policy
			rm -f /var/tmp/walk-out
			FAULTPROBE_STRIDE=$k FAULTPROBE_LIVE=$COPIES:0 \
				FAULTPROBE_HOLD=/var/tmp/walk-hold \
				"$dir/faultprobe" "$BENCH_F" > /var/tmp/walk-out & hp=$!
			while ! [ -s /var/tmp/walk-out ]; do sleep 0.2; done
			sleep 1.5	# its first pass, outside the window
			p0=$(sed -n 's/^policy_live_passes: //p' $mmt/info)
			s0=$(sed -n 's/^policy_live_slots: //p' $mmt/info)
			"$dir/markrun" sleep "$WINDOW"
			echo "run $((++seq)) $r,$c $p0 $s0 $(sed -n 's/^policy_live_passes: //p' $mmt/info)" \
				"$(sed -n 's/^policy_live_slots: //p' $mmt/info)"
			echo > /var/tmp/walk-hold
			wait $hp
		done
	done
	echo "# policy: $(grep -c order= $mmt/policy) rule; info: $(grep '^policy_live' $mmt/info | tr '\n' ' ')"
	echo clear > $mmt/policy
	rmmod mmtune
	umount /var/tmp/bench-shm
	echo "mmtune-bench-done"
}

if [ "${1:-}" = --guest ]; then
	guest "$2"
	exit 0
fi

# ------------------------------------------------------------------- host
. "$TOP/tests/lib.sh"

bench_pre_vm() {
	"$TOP/bench/build-plugin.sh" "$dir/libinsncount.so" || return 1
	cc -O2 -o "$dir/faultprobe" "$TOP/tests/vm/probe/faultprobe.c" -lpthread || return 1
	cc -O2 -o "$dir/markrun" "$TOP/bench/markrun.c" || return 1
	BENCH_CPUS=1
	BENCH_QEMU="-icount shift=0 -plugin $dir/libinsncount.so,out=$dir/insn.txt,profile=$dir/prof.txt"
}

# walk_join DIR: "config round kernel passes_in_window slots_per_pass
# live_insns" per run: the plugin's count and profile joined with the
# guest's lines
walk_join() {
	awk '
	function hex(s,   i, v) {	# the low 48 bits: exact in a double
		s = tolower(substr(s, length(s) - 11)); v = 0
		for (i = 1; i <= 12; i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	FILENAME ~ /insn.txt$/ { if ($1 == "emit") k[$2] = $8; next }
	FILENAME ~ /raw.txt$/ {
		if ($1 == "msym") {	# the module text symbols, kept sorted
			for (i = ++ns; i > 1 && SA[i - 1] > hex($2); i--) { SA[i] = SA[i - 1]; SN[i] = SN[i - 1] }
			SA[i] = hex($2); SN[i] = $3
			if ($3 == "mmtune_auto_live_pass") pass_at = hex($2)
		}
		if ($1 == "run") { run[$2] = $3; dp[$2] = $6 - $4; ds[$2] = $7 - $5 }
		next
	}
	$1 == "#" { cur = $3; next }
	{
		v = hex($1)
		if (v == pass_at) passes[cur] += $3
		lo = 1; hi = ns	# the nearest module symbol at or below v
		if (ns < 1 || SA[1] > v || v - SA[ns] > 65536) next
		while (lo < hi) { mid = int((lo + hi + 1) / 2); if (SA[mid] <= v) lo = mid; else hi = mid - 1 }
		if (SN[lo] ~ /^(live_|mmtune_live_poll|mmtune_auto_live)/) live[cur] += $2 * $3
	}
	END {
		for (s in run) {
			split(run[s], f, ",")
			printf "%s %s %s %d %.1f %d\n", f[2], f[1], k[s], passes[s] + 0,
				(dp[s] > 0 ? ds[s] / dp[s] : 0), live[s] + 0
		}
	}' "$1/insn.txt" "$1/raw.txt" "$1/prof.txt" | sort -k1,1 -k2,2n
}

# walk_table JOINED: per w configuration, the medians and spreads
walk_table() {
	awk "$BENCH_AWK_SORT"'
	function med(a, n) { sort(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	$1 == "h" { h[++nh] = $3; next }
	$4 > 0 && $5 > 0 { i = ++n[$1]; slots = $4 * $5; W[$1, i] = $3; S[$1, i] = slots; L[$1, i] = $6 / slots; P[$1, i] = $5 }
	END {
		hm = med(h, nh)
		print "| config | runs | slots a pass | kernel insns a slot walked (window − h) | spread % | live.c alone, insns a slot | spread % |"
		print "|---|---|---|---|---|---|---|"
		for (c in n) {
			m = n[c]
			delete a; for (i = 1; i <= m; i++) a[i] = (W[c, i] - hm) / S[c, i]
			t = med(a, m); st = 100 * (a[m] - a[1]) / t
			delete a; for (i = 1; i <= m; i++) a[i] = L[c, i]
			l = med(a, m); sl = 100 * (a[m] - a[1]) / l
			delete a; for (i = 1; i <= m; i++) a[i] = P[c, i]
			printf "| %s | %d | %.0f | %.2f | %.1f | %.2f | %.1f |\n", c, m, med(a, m), t, st, l, sl
		}
		printf "\nh (no walk): %d runs, median %.0f kernel instructions in the %s s window.\n", nh, hm, window
	}' window="$WINDOW" "$1"
}

t0=$(date +%s)
bench_vm "$TOP/bench/walk.sh"
wall=$(( $(date +%s) - t0 ))
walk_join "$dir" > "$dir/runs.txt" || exit 1
run=$(bench_run walk)
{
	echo "## $(date -u +%Y-%m-%d) — the walk of live processes, kernel $KVER under TCG ($(grep -m1 '^# guest' "$dir/raw.txt" | sed 's/^# guest: //'))"
	echo
	echo "Written by bench/walk.sh: guest instructions counted by the TCG plugin during"
	echo "\`sleep $WINDOW\` beside a process holding a ${MB} MiB tmpfs file mapped $COPIES times (1 vCPU,"
	echo "-icount shift=0), $ROUNDS rounds, configurations interleaved.  Spread is (max - min) /"
	echo "median of the runs.  VM run: ${wall} s.  Module: $(git -C "$TOP" describe --always --dirty=", modified")."
	echo
	walk_table "$dir/runs.txt"
	echo
	{ echo "config round kernel passes slots_per_pass live_insns"; cat "$dir/runs.txt"; grep -E '^(# |run )' "$dir/raw.txt"; } |
		bench_details "raw counts"
} > "$dir/section.md"
bench_save "$run" "$dir/section.md"
