#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/real.sh (`make bench-real`): programs Debian ships, at fixed
# fault-around orders and under order=auto, in guest instructions per run.
#
# One VM run (tests/vm/vng.sh, 1 vCPU, qemu -icount shift=0, the TCG
# plugin bench/plugin/insncount.c as in bench/insn.sh): each run of
# a workload is bench/markrun.c, which counts every instruction the vCPU
# executes from before the command's fork to after its exit, user and
# kernel mode (the whole program, all its processes), on files cached in a
# tmpfs.  The workloads:
#   sqlite_scan   sqlite3, mmap_size 1 GiB, a full scan of a 43 MiB table
#   sqlite_point  the same database, 200 rows by random rowid
#   git_grep      git grep --no-index over a copy of the kernel's include/
#   python3       python3 start-up importing json, email, http.client,
#                 decimal and sqlite3 (many shared objects)
#   cc1           gcc's compiler proper, -O1, on a generated 100-function
#                 C file
#   mmstress_seq  mmstress seq, 64 MiB, every page touched
#   mmstress_sparse  mmstress sparse, one page touched per page table
# Each workload is one program, run by markrun directly (no shell in the
# count), under a comm= rule of its own, as a user would write one for a
# program: its binary is run through a symlink named f_NAME for the fixed
# orders (MMT_REAL_ORDERS, default "0 2 4 6 9", usefulness_enable 0) and
# a_NAME for auto (order=auto, usefulness_enable 1: what auto needs, and
# pays) and for "held" (the same rules with usefulness_enable 0: each
# holds the order it learned and pays no measurement, as a user who turns
# the measurement off once the orders settle), the comm being the name the
# program was started by.  Auto's rules first learn from MMT_REAL_LEARN
# runs of each workload (default 6), then every configuration runs each
# workload once per round, interleaved (the configuration rotates each
# round), MMT_REAL_ROUNDS rounds (default 3).  The auto rules stay in
# every rule set written, so they keep what they learned (a write keeps an
# auto rule that the set had).
#
# The host prints, per workload, the median instructions per run of each
# configuration as a ratio to the best fixed order, the spread
# ((max - min) / median) and the orders auto and held ran at; writes
# them, the raw runs and a plot as a run of bench/runs/ (bench/results.sh).
#
# Env: MMT_REAL_ORDERS, MMT_REAL_ROUNDS, MMT_REAL_LEARN, MMT_REAL_WORKLOADS
#      (a subset of the names above), MMT_BENCH_RUNS (default
#      bench/runs), MMT_BENCH_KEEP=1 (keep the work dir in /tmp),
#      MMT_KERNEL and MMT_BENCH_KO (another kernel: bench/cell.sh --real).
# Inside the guest this script runs itself as: bench/real.sh --guest DIR
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ORDERS=${MMT_REAL_ORDERS:-"0 2 4 6 9"}
ROUNDS=${MMT_REAL_ROUNDS:-3}
LEARN=${MMT_REAL_LEARN:-6}
WORKLOADS=${MMT_REAL_WORKLOADS:-"sqlite_scan sqlite_point git_grep python3 cc1 mmstress_seq mmstress_sparse"}
CONFIGS="$ORDERS auto held"
SECS=0 MB=64
export MMT_REAL_ORDERS="$ORDERS" MMT_REAL_LEARN="$LEARN" MMT_REAL_WORKLOADS="$WORKLOADS"
. "$TOP/bench/lib.sh"

# ------------------------------------------------------------------ guest
W=/var/tmp/real
B=$W/bin

# prepare: every workload's files, in the tmpfs, outside the counts
prepare() {
	mkdir -p $W
	mount -t tmpfs -o size=1400m,huge=never real $W
	sqlite3 $W/db <<-'EOF'
	CREATE TABLE t(a INTEGER PRIMARY KEY, b BLOB);
	WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 28000)
	INSERT INTO t SELECT x, randomblob(1500) FROM c;
	EOF
	awk 'BEGIN { srand(1); for (i = 0; i < 200; i++) printf "%s%d", i ? "," : "", 1 + int(rand() * 28000) }' \
		> $W/ids
	cp -r /usr/src/linux-headers-*-common/include $W/include 2>/dev/null ||
		cp -r "$TOP/module" $W/include
	awk 'BEGIN { for (i = 0; i < 100; i++) {
		printf "int f%d(int *a, int n) { int s = 0, i;\n", i
		printf "  for (i = 0; i < n; i++) switch (a[i] %% 4) {\n"
		printf "  case 0: s += a[i] * %d; break; case 1: s ^= a[i] >> 1; break;\n", i
		printf "  case 2: s -= a[i] / %d; break; default: s += i; }\n  return s; }\n", i + 1
	} }' > $W/big.c
	echo "# guest: $(uname -r), $(nproc) cpus; db $(du -m $W/db | cut -f1) MiB," \
		"include/ $(du -sm $W/include | cut -f1) MiB, big.c $(wc -l < $W/big.c) lines"
}

# cmd_of NAME PREFIX: the workload's command in CMD, its program run as
# PREFIX_NAME (its comm)
cmd_of() {
	local q='PRAGMA mmap_size=1073741824'
	case $1 in
	sqlite_scan) CMD=("$B/$2_sqlscan" -cmd "$q" "$W/db" 'SELECT sum(length(b)) FROM t;') ;;
	sqlite_point) CMD=("$B/$2_sqlpoint" -cmd "$q" "$W/db"
		"SELECT sum(length(b)) FROM t WHERE a IN ($(cat $W/ids));") ;;
	git_grep) CMD=("$B/$2_git" grep --no-index -c -e mmap_lock -- include) ;;
	python3) CMD=("$B/$2_python3" -c 'import json, email.parser, http.client, decimal, sqlite3') ;;
	cc1) CMD=("$B/$2_cc1" -quiet -O1 "$W/big.c" -o "$W/big.s") ;;
	mmstress_seq) CMD=("$B/$2_mmseq" seq -s 64M --touch page -q) ;;
	mmstress_sparse) CMD=("$B/$2_mmsparse" sparse -s $((256 * 512 * $(getconf PAGESIZE))) -q) ;;
	esac
}

# links: f_ and a_ symlinks to each workload's program
links() {
	local p n
	mkdir -p $B
	for n in sqlscan:sqlite3 sqlpoint:sqlite3 git:git python3:python3 \
		 cc1:"$(gcc -print-prog-name=cc1)" mmseq:"$TOP/userspace/mmstress" \
		 mmsparse:"$TOP/userspace/mmstress"; do
		p=${n#*:}
		[ "${p#/}" = "$p" ] && p=$(command -v "$p")
		ln -sf "$p" "$B/f_${n%%:*}"
		ln -sf "$p" "$B/a_${n%%:*}"
	done
}

# rules ORDER: the fixed rules at ORDER, then auto's (always there)
rules() {
	local n
	for n in sqlscan sqlpoint git python3 cc1 mmseq mmsparse; do echo "comm=f_$n order=$1"; done
	for n in sqlscan sqlpoint git python3 cc1 mmseq mmsparse; do echo "comm=a_$n order=auto"; done
}

# comm_of NAME: the workload's program name (its rule's, less the prefix)
comm_of() {
	case $1 in
	sqlite_scan) echo sqlscan ;; sqlite_point) echo sqlpoint ;; git_grep) echo git ;;
	mmstress_seq) echo mmseq ;; mmstress_sparse) echo mmsparse ;; *) echo "$1" ;;
	esac
}

guest() {
	local dir=$1 dbg=/sys/kernel/debug mmt=/sys/kernel/debug/mmtune
	local ko=${MMT_BENCH_KO:-$TOP/module/mmtune.ko} r c w i n seq=0 cfgs rc o p
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	export TMPDIR=$W
	mountpoint -q $dbg || mount -t debugfs none $dbg
	prepare
	links
	cd $W || return 1
	rmmod mmtune 2>/dev/null
	insmod "$ko" || { echo "# insmod failed"; return 1; }
	echo "# fault_around_order $(cat $mmt/fault_around_order), max_order $(sed -n 's/^max_order: //p' $mmt/info)"

	# auto learns: LEARN runs of each workload, each judged before the next
	echo 1 > $mmt/usefulness_enable
	rules 0 > /var/tmp/rules && cat /var/tmp/rules > $mmt/policy
	for i in $(seq 1 "$LEARN"); do
		for w in $WORKLOADS; do
			cmd_of "$w" a
			"${CMD[@]}" > /dev/null 2>&1
			sleep 1.3
		done
	done
	grep 'order=auto' $mmt/policy | sed 's/^/# learned: /'

	read -r -a cfgs <<< "$CONFIGS"
	n=${#cfgs[@]}
	for r in $(seq 1 "$ROUNDS"); do
		for i in $(seq 0 $((n - 1))); do
			c=${cfgs[$(( (i + r - 1) % n ))]}	# rotated every round
			if [ "$c" = auto ]; then
				echo 1 > $mmt/usefulness_enable
			elif [ "$c" = held ]; then
				echo 0 > $mmt/usefulness_enable	# orders as learned
			else
				echo 0 > $mmt/usefulness_enable
				rules "$c" > /var/tmp/rules && cat /var/tmp/rules > $mmt/policy
			fi
			for w in $WORKLOADS; do
				o=$c
				p=f
				[ "$c" = auto ] || [ "$c" = held ] && p=a &&
					o=$(sed -n "s/^comm=a_$(comm_of "$w") order=auto #.* auto_order=\([0-9]*\).*/\1/p" $mmt/policy)
				# deferred work of the last run (RCU, kworkers) and
				# auto's judgement happen here, not in the count
				sleep 1.3
				cmd_of "$w" $p
				"$dir/markrun" "${CMD[@]}" > "$dir/wl.out" 2>&1
				rc=$?
				echo "run $((++seq)) $r,$c,$w,$o rc $rc"
				[ "$rc" = 0 ] || sed 's/^/# /' "$dir/wl.out" | head -n 5
			done
		done
	done
	grep 'order=auto' $mmt/policy | sed 's/^/# at the end: /'
	echo "# policy_auto_changes $(sed -n 's/^policy_auto_changes: //p' $mmt/info)," \
		"lost $(sed -n 's/^policy_auto_lost: //p' $mmt/info)"
	echo clear > $mmt/policy
	rmmod mmtune
	cd /
	umount $W
	echo "mmtune-bench-done"
}

if [ "${1:-}" = --guest ]; then
	guest "$2"
	exit 0
fi


# ------------------------------------------------------------------- host
. "$TOP/tests/lib.sh"
BENCH_HEAD=${BENCH_HEAD:-"# mmtune benchmark results"}

for t in sqlite3 git gcc gnuplot /usr/bin/python3; do
	command -v "$t" > /dev/null ||
		{ echo "bench-real: no $t here (apt-get install -t bookworm sqlite3 git gcc gnuplot-nox python3)" >&2; exit 1; }
done
make -s -C "$TOP" tools > /dev/null || { echo "bench-real: make tools failed" >&2; exit 1; }

bench_pre_vm() {
	"$TOP/bench/build-plugin.sh" "$dir/libinsncount.so" || return 1
	cc -O2 -Wall -o "$dir/markrun" "$TOP/bench/markrun.c" || return 1
	BENCH_CPUS=1
	BENCH_QEMU="-icount shift=0 -plugin $dir/libinsncount.so,out=$dir/insn.txt"
}

# real_join: seq,round,config,workload,order,rc,user,kernel
real_join() {
	echo "seq,round,config,workload,order,rc,user,kernel"
	awk 'FNR == NR { if ($1 == "emit") { u[$2] = $6; k[$2] = $8 }; next }
	$1 == "run" {
		if (!($2 in u)) { printf "bench-real: run %s (%s) has no count\n", $2, $3 > "/dev/stderr"; bad = 1; next }
		print $2 "," $3 "," $5 "," u[$2] "," k[$2]
	}
	END { exit bad }' "$dir/insn.txt" "$dir/raw.txt"
}

# real_table CSV: per workload, each configuration's median as a ratio to
# the best fixed order's, with its spread; the orders auto and held ran at
real_table() {
	awk -F, -v configs="$CONFIGS" -v workloads="$WORKLOADS" -v what="$2" "$BENCH_AWK_SORT"'
	function med(a, n) { sort(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	NR > 1 {
		key = $4 SUBSEP $3; i = ++n[key]
		v[key, i] = what == "kernel" ? $8 : $7 + $8
		if ($3 == "auto" || $3 == "held") ao[$4, $3] = ao[$4, $3] (ao[$4, $3] == "" ? "" : ",") $5
		if ($6 != 0) bad[$4 SUBSEP $3] = 1
	}
	END {
		nc = split(configs, cs, " "); nw = split(workloads, ws, " ")
		printf "| workload |"; for (y = 1; y <= nc; y++) printf " %s |", cs[y] ~ /^[0-9]/ ? "order " cs[y] : cs[y]
		printf " best fixed | auto / best | held / best |\n|---|"; for (y = 1; y <= nc + 3; y++) printf "---|"; print ""
		for (x = 1; x <= nw; x++) {
			w = ws[x]; best = ""; bo = ""
			for (y = 1; y <= nc; y++) {
				key = w SUBSEP cs[y]; m = n[key]; if (!m) continue
				delete a; for (i = 1; i <= m; i++) a[i] = v[key, i]
				M[y] = med(a, m); S[y] = M[y] ? 100 * (a[m] - a[1]) / M[y] : 0
				if (cs[y] ~ /^[0-9]/ && (best == "" || M[y] < best)) { best = M[y]; bo = cs[y] }
			}
			printf "| %s |", w
			for (y = 1; y <= nc; y++) {
				key = w SUBSEP cs[y]
				if (!n[key]) { printf " - |"; continue }
				printf " %.3f ±%.1f%%%s%s |", M[y] / best, S[y], cs[y] !~ /^[0-9]/ ? " (" ao[w, cs[y]] ")" : "", (key in bad) ? " (failed)" : ""
				if (cs[y] == "auto") am = M[y]
				if (cs[y] == "held") hm = M[y]
			}
			printf " order %s, %.1f M |", bo, best / 1e6
			printf " %.3f | %.3f |\n", am / best, hm / best
		}
	}' "$1"
}

# real_plot CSV SVG: the total-instruction ratios, a line per workload
real_plot() {
	# one block per workload: "INDEX RATIO" per configuration
	real_table "$1" total | awk -F'|' 'NR > 2 {
		if (NR > 3) printf "\n\n"
		for (i = 3; i < NF - 3; i++) { split($i, f, " "); print i - 3, f[1] }
	}' > "$dir/plot.dat"
	gnuplot <<-EOF
	set terminal svg size 900,480 font "sans,11" noenhanced
	set output "$2"
	set title "Guest instructions per run: ratio to the best fixed order (median of $ROUNDS runs)"
	set ylabel "ratio to the best fixed order"
	set xlabel "fault-around order"
	set xtics ($(i=0; for c in $CONFIGS; do [ $i -gt 0 ] && printf ', '; printf '"%s" %d' "$c" $i; i=$((i + 1)); done))
	set key outside right
	set grid ytics
	set logscale y 2
	names = "$WORKLOADS"
	plot for [i=0:words(names)-1] "$dir/plot.dat" index i using 1:2 with linespoints title word(names, i+1)
	EOF
}

# the module's commit, and whether the tree differed from it
MOD=$(git -C "$TOP" describe --always --dirty=", modified" 2>/dev/null || echo "not a git tree")
t0=$(date +%s)
bench_vm "$TOP/bench/real.sh"
wall=$(( $(date +%s) - t0 ))
real_join > "$dir/runs.csv" || exit 1
run=$(bench_run real)
real_plot "$dir/runs.csv" "$run.svg" || echo "bench-real: no plot" >&2
{
	echo "## $(date -u +%Y-%m-%d) — real programs at fixed orders and order=auto, guest instructions per run under TCG ($(grep -m1 '^# guest' "$dir/raw.txt" | sed 's/^# guest: //'))"
	echo
	echo "\`make bench-real\` (bench/real.sh): each run counted whole (all its"
	echo "processes, user and kernel mode) by the TCG plugin on a 1-vCPU guest;"
	echo "$ROUNDS rounds, configurations interleaved; auto learned from $LEARN runs of"
	echo "each workload first, and pays the usefulness measurement it needs;"
	echo "held is the same rules with usefulness_enable 0 (each holds the order"
	echo "it learned, no measurement)."
	echo "Median of the runs as a ratio to the best fixed order's median, ±"
	echo "the spread ((max - min) / median); auto's and held's columns list the"
	echo "order in force at each of their runs. VM run: ${wall} s. Module: $MOD."
	echo
	echo "All instructions (user and kernel):"
	echo
	real_table "$dir/runs.csv" total
	echo
	echo "Kernel instructions only:"
	echo
	real_table "$dir/runs.csv" kernel
	echo
	[ -f "$run.svg" ] && { echo "![instructions per run by order]($(basename "$run").svg)"; echo; }
	{ grep -E '^(# |run )' "$dir/raw.txt"; cat "$dir/runs.csv"; } | bench_details "raw runs"
} > "$dir/section.md"
bench_save "$run" "$dir/section.md"
