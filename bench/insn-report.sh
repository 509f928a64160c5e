#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/insn-report.sh: the host side of bench/insn.sh (sourced
# after bench/lib.sh and tests/lib.sh, whose helpers it uses; the
# caller sets TOP, ROUNDS, ORDERS, CONFIGS, PASSES, KVER, dir, wall).
#
#   insn_join DIR        CSV seq,round,order,config,faults,pages,user,kernel,
#                        host_ns: the guest's runs (DIR/raw.txt) joined with
#                        the plugin's counts (DIR/insn.txt) by sequence number
#   insn_stats CSV       per order and configuration (TSV): runs, median
#                        instructions per fault (kernel+user), spread
#                        (max-min, % of median), kernel and user medians,
#                        ratios to a, median host wall ns per fault
#   insn_check CSV       the --short assertions: a KTAP document, then
#                        "N passed, N failed" and exit (ktap_exit)
#   insn_profile DIR O [BASE CONFIG]  per kernel function, instructions per
#                        fault of CONFIG (c_ctr) minus BASE (a) at order O
#                        (markdown)
#   insn_plot STATS SVG  gnuplot: instructions per fault by order
#   insn_write RUN       the dated section and plot as RUN.md, RUN.svg (bench_save)

# the module's commit, and whether the tree differed from it, as the run
# starts (this file is sourced before the VM boots)
INSN_MOD=$(git -C "$TOP" describe --always --dirty=", modified" 2>/dev/null || echo "not a git tree")

insn_join() {
	echo "seq,round,order,config,faults,pages,user,kernel,host_ns"
	# a run of T threads (MMT_BENCH_THREADS) has T counts, SEQ-T+1..SEQ
	awk -v T="${THREADS:-1}" 'FNR == NR { if ($1 == "emit") { u[$2] = $6; k[$2] = $8; ns[$2] = $10 }; next }
	$1 == "run" {
		split($3, f, ",")
		for (j = $2 - T + 1; j <= $2; j++)
			if (!(j in u)) { missing = 1 }
		if (missing || $4 != "faults") {
			printf "bench-insn: run %s (%s) has no count\n", $2, $3 > "/dev/stderr"
			bad = 1; missing = 0; next
		}
		su = sk = sn = 0
		for (j = $2 - T + 1; j <= $2; j++) { su += u[j]; sk += k[j]; sn += ns[j] }
		if (f[1] != "warm")
			print $2 "," f[1] "," f[2] "," f[3] "," $5 "," $7 "," su "," sk "," sn
	}
	END { exit bad }' "$1/insn.txt" "$1/raw.txt"
}

insn_stats() {
	awk -F, -v orders="$ORDERS" -v configs="$CONFIGS" "$BENCH_AWK_SORT"'
	function med(a, n) { sort(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	NR > 1 && $5 > 0 {
		key = $3 SUBSEP $4; i = ++n[key]
		t[key, i] = ($7 + $8) / $5; k[key, i] = $8 / $5; u[key, i] = $7 / $5
		w[key, i] = $9 / $5
	}
	END {
		no = split(orders, os, " "); nc = split(configs, cs, " ")
		print "order\tconfig\truns\tinsn_per_fault\tspread_pct\tkernel\tuser\tratio\tkernel_ratio\thost_ns_per_fault"
		for (x = 1; x <= no; x++) for (y = 1; y <= nc; y++) {
			key = os[x] SUBSEP cs[y]; m = n[key]
			if (!m) continue
			delete a; for (i = 1; i <= m; i++) a[i] = t[key, i]
			tm = med(a, m); sp = 100 * (a[m] - a[1]) / tm
			delete a; for (i = 1; i <= m; i++) a[i] = k[key, i]; km = med(a, m)
			delete a; for (i = 1; i <= m; i++) a[i] = u[key, i]; um = med(a, m)
			delete a; for (i = 1; i <= m; i++) a[i] = w[key, i]; wm = med(a, m)
			T[key] = tm; K[key] = km
			ak = os[x] SUBSEP "a"
			printf "%s\t%s\t%d\t%.1f\t%.3f\t%.1f\t%.1f\t%s\t%s\t%.0f\n", os[x], cs[y], m, tm, sp, km, um,
				(ak in T) ? sprintf("%.4f", tm / T[ak]) : "-",
				(ak in K) ? sprintf("%.4f", km / K[ak]) : "-", wm
		}
	}' "$1"
}

# insn_check CSV: at each order, b = a within 0.1 % and the kernel's
# instructions per fault relative to a at most INSN_LIMITS' for each
# configuration there (instruction counts are deterministic: a regression
# test, not a timing one).  c_ctr is the counters' default: nothing on a
# fault without fault-around, one callback per fault-around call; p1 and
# p32 one and 32 policy rules, none matching.  docs/benchmarks.md says
# which of these are goals met and which hold today's cost.
INSN_LIMITS="c_ctr:1.02 p1:1.02 p32:1.025"
insn_check() {
	local stats o b l c r
	stats=$(insn_stats "$1")
	echo "$stats" | column -t >&2
	ktap_begin "bench-insn --short"
	for o in $ORDERS; do
		b=$(echo "$stats" | awk -v o="$o" '$1 == o && $2 == "b" { print $9 }')
		if [ -n "$b" ] && awk -v r="$b" 'BEGIN { exit !(r >= 0.999 && r <= 1.001) }'; then
			ok "order $o: b/a = $b (within 0.1 %)"
		else
			fail "order $o: b/a = ${b:-missing} (not within 0.1 %)"
		fi
		for l in $INSN_LIMITS; do
			c=${l%%:*}
			case " $CONFIGS " in *" $c "*) ;; *) continue ;; esac
			r=$(echo "$stats" | awk -v o="$o" -v c="$c" '$1 == o && $2 == c { print $9 }')
			if [ -n "$r" ] && awk -v r="$r" -v m="${l#*:}" 'BEGIN { exit !(r <= m) }'; then
				ok "order $o: $c/a = $r (<= ${l#*:})"
			else
				fail "order $o: $c/a = ${r:-missing} (> ${l#*:})"
			fi
		done
	done
	ktap_exit
}

# insn_profile DIR ORDER [BASE CONFIG]: kernel instructions per fault by
# function, CONFIG (default c_ctr) minus BASE (default a), at ORDER, the
# largest differences either way first, each
# the mean over the rounds; blocks are attributed to the nearest symbol at
# or below their address (the guest's /proc/kallsyms; the module's and the
# trampolines' as of that run)
insn_profile() {
	local d=$1 o=$2 base=${3:-a} cfg=${4:-c_ctr}
	awk -v o="$o" -v base="$base" -v cfg="$cfg" -v top="${MMT_BENCH_TOP:-15}" -v T="${THREADS:-1}" '
	function hex(s,   i, v) {	# the low 48 bits: exact in a double
		s = tolower(substr(s, length(s) - 11)); v = 0
		for (i = 1; i <= 12; i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function find(n, A, N, v,   lo, hi, mid) {	# largest index with A[i] <= v
		lo = 1; hi = n; if (n < 1 || A[1] > v) return 0
		while (lo < hi) { mid = int((lo + hi + 1) / 2); if (A[mid] <= v) lo = mid; else hi = mid - 1 }
		return lo
	}
	function sortsym(A, N, n,   i, j, t, u, gap) {	# shell sort (100k symbols)
		for (gap = int(n / 2); gap > 0; gap = int(gap / 2))
			for (i = gap + 1; i <= n; i++) {
				t = A[i]; u = N[i]
				for (j = i; j > gap && A[j - gap] > t; j -= gap) { A[j] = A[j - gap]; N[j] = N[j - gap] }
				A[j] = t; N[j] = u
			}
	}
	FILENAME ~ /raw.txt$/ {
		if ($1 == "ksym") { nk++; KA[nk] = hex($2); KN[nk] = $3 }
		else if ($1 == "msym") { s = $2; nm[s]++; MA[s, nm[s]] = hex($3); MN[s, nm[s]] = $4 }
		else if ($1 == "run") {	# T threads: counts SEQ-T+1..SEQ, one run
			split($3, f, ",")
			if (f[2] == o && (f[3] == base || f[3] == cfg)) {
				runs[f[3]]++
				for (j = $2 - T + 1; j <= $2; j++) { want[j] = f[3]; faults[j] = $5; sseq[j] = $2 }
			}
		}
		next
	}
	FNR == 1 { sortsym(KA, KN, nk) }
	$1 == "#" {
		cur = $3; nt = 0
		if (cur in want && sseq[cur] in nm) {	# the module symbols of this run
			delete TA; delete TN; r = sseq[cur]; nt = nm[r]
			for (j = 1; j <= nt; j++) { TA[j] = MA[r, j]; TN[j] = MN[r, j] }
			sortsym(TA, TN, nt)
		}
		next
	}
	cur in want {
		v = hex($1); i = find(nk, KA, KN, v); name = i ? KN[i] : "?"; at = i ? KA[i] : 0
		j = find(nt, TA, TN, v)
		if (j && TA[j] > at) { name = TN[j]; at = TA[j] }
		if (v - at > 65536) name = "?"
		per[want[cur], name] += $2 * $3 / faults[cur] / runs[want[cur]]
		names[name] = 1
	}
	END {
		for (nme in names) {
			dd = per[cfg, nme] - per[base, nme]
			if (dd != 0) printf "%.1f\t%.1f\t%.1f\t%s\t%.1f\n", dd, per[base, nme], per[cfg, nme], nme, dd < 0 ? -dd : dd
			tb += per[base, nme]; tc += per[cfg, nme]
		}
		printf "TOTAL\t%.1f\t%.1f\t%.1f\n", tc - tb, tb, tc > "/dev/stderr"
	}' "$d/raw.txt" "$d/prof.txt" 2> "$d/prof-total.txt" | sort -t"$(printf '\t')" -k5,5 -g -r > "$d/prof-$o.tsv"
	{
		echo "| kernel function | $cfg − $base, insns/fault | $base | $cfg |"
		echo "|---|---|---|---|"
		head -n "${MMT_BENCH_TOP:-15}" "$d/prof-$o.tsv" | awk -F'\t' '{ printf "| %s | %+.1f | %.1f | %.1f |\n", $4, $1, $2, $3 }'
		awk '{ printf "| all kernel blocks | %+.1f | %.1f | %.1f |\n", $2, $3, $4 }' "$d/prof-total.txt"
	}
}

insn_plot() {
	local stats=$1 svg=$2 cfg i=0 plot=""
	command -v gnuplot > /dev/null || { echo "bench-insn: gnuplot not installed (tests/deps/bench.txt): no plot" >&2; return 0; }
	for cfg in $CONFIGS; do
		i=$((i + 1))
		# shellcheck disable=SC2154 # dir: set by the caller (bench/insn.sh)
		awk -v c="$cfg" 'NR > 1 && $2 == c { print $1, $4 }' "$stats" > "$dir/plot-$cfg.dat"
		plot="$plot${plot:+, }'$dir/plot-$cfg.dat' using 1:2 with linespoints title '$cfg'"
	done
	gnuplot <<-EOF
	set terminal svg size 720,480 dynamic noenhanced font "sans,11"
	set output '$svg'
	set title "guest instructions per read fault (kernel+user), $KVER, TCG"
	set xlabel "fault-around order (pages = 2^order)"
	set ylabel "instructions per fault"
	set logscale y
	set key top left
	set grid
	set xtics (${ORDERS// /, })
	plot $plot
	EOF
}

insn_write() {
	local run=$1 o c
	insn_stats "$dir/runs.csv" > "$dir/stats.tsv"
	insn_plot "$dir/stats.tsv" "$run.svg"
	{
		echo "## $(date -u +%Y-%m-%d) — instructions per fault, kernel $KVER under TCG ($(grep -m1 '^# guest' "$dir/raw.txt" | sed 's/^# guest: //'))"
		echo
		echo "Written by bench/insn.sh: guest instructions counted by the TCG plugin"
		echo "bench/plugin/insncount.c in faultbench's read loops (${THREADS:-1} vCPU, ${THREADS:-1} thread, a page in ${STRIDE:-1} read, $([ "${THREADS:-1}" = 1 ] && echo "-icount shift=0" || echo "no -icount: it keeps a second vCPU down")),"
		echo "$ROUNDS rounds, configurations interleaved; passes per order: $PASSES over a"
		echo "${MB} MiB tmpfs file (huge=${HUGE:-never}, written ${BS_KB:-1024} KiB a write); faults from getrusage.  Ratios are of medians of this"
		echo "run; spread is (max - min) / median of the runs.  The wall column is the"
		echo "host's time between the markers per fault, a secondary and noisy figure."
		# shellcheck disable=SC2154 # wall: set by the caller (bench/insn.sh)
		echo "VM run: ${wall} s. Module: $INSN_MOD."
		echo
		echo "| order | config | runs | insns/fault | spread % | kernel/fault | user/fault | ratio to a | kernel ratio to a | host wall ns/fault (secondary) |"
		echo "|---|---|---|---|---|---|---|---|---|---|"
		awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }' "$dir/stats.tsv"
		echo
		[ -f "$run.svg" ] && { echo "![instructions per fault by order]($(basename "$run").svg)"; echo; }
		for o in $ORDERS; do
			[ "$o" = 0 ] && continue
			# each config's own cost (minus a), and a change's (X
			# minus X_base: the same config with the other module; a
			# program's, bp* minus p1m)
			for c in c_ctr p1 p32 p1f p32f u ua uaf c_base u_base ua_base p1_base p1m_base p32_base p32m_base \
				bp0 bpr bpu bps bpl; do
				case " $CONFIGS " in *" $c "*) ;; *) continue ;; esac
				b=a
				case $c in c_base) b=$c c=c_ctr ;; *_base) b=$c c=${c%_base} ;; bp*) b=p1m ;; esac
				case " $CONFIGS " in *" $b "*) ;; *) continue ;; esac
				case " $CONFIGS " in *" $c "*) ;; *) continue ;; esac
				echo "Kernel instructions per fault by function, $c minus $b, order $o"
				echo "(the top ${MMT_BENCH_TOP:-15}; mean of the rounds):"
				echo
				insn_profile "$dir" "$o" "$b" "$c"
				echo
			done
		done
		{ cat "$dir/runs.csv"; grep -E '^# ' "$dir/raw.txt"; } | bench_details "raw counts"
	} > "$dir/section.md"
	bench_save "$run" "$dir/section.md"
}
