#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/results.sh [RUNS_DIR [OUT]]: bench/RESULTS.md from the raw runs.
#
# Every benchmark run writes a file of its own to bench/runs/ (bench/lib.sh,
# bench_save), named DATE-BENCH-KERNEL[.N].md: N counts the runs of one
# day, BENCH is insn (`make bench`), real (`make bench-real`), wall and
# wall-policy (`make bench-wall`), check-bench, or insn-CONFIGS for a run
# of some of make bench's configurations; notes-* files are readings of
# runs, written by hand.  RESULTS.md is made from them, never edited: the
# latest run of each benchmark and kernel, its table (make bench's as one
# line per configuration, kernel instructions per fault relative to no
# module at each order, ± the runs' spread), its plot (a link to it for a
# run of some configurations) and a link to the whole run.  A run of some configurations only (insn-*, check-bench) is
# shown while no full make bench on its kernel is newer.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=${1:-$TOP/bench/runs}
out=${2:-$TOP/bench/RESULTS.md}

# "KEY DATE.N FILE" per run, KEY = BENCH KERNEL; the kernel is what
# follows the first "-DIGIT" after the date
list_runs() {
	local f b rest bench kern n
	for f in "$runs"/*.md; do
		[ -e "$f" ] || continue
		b=$(basename "$f" .md)
		case $b in ????-??-??-notes-*) continue ;; esac
		n=1
		[[ $b =~ \.([0-9]+)$ ]] && { n=${BASH_REMATCH[1]}; b=${b%."$n"}; }
		rest=${b:11}
		bench=$(sed -E 's/-[0-9].*//' <<< "$rest")
		kern=${rest#"$bench"-}
		[ "$kern" != "$rest" ] || continue
		printf '%s %s %s.%03d %s\n' "$bench" "$kern" "${b:0:10}" "$n" "$(basename "$f")"
	done
}

# the latest run of each BENCH KERNEL, in the order of the page; a run of
# some configurations (insn-C1+C2, check-bench) only while it is newer
# than its kernel's make bench and than any run of its configurations
latest() {
	sort -k1,2 -k3,3r | awk '!seen[$1 " " $2]++' |
	awk '
		{ r[NR] = $0; b[NR] = $1; k[NR] = $2; d[NR] = $3
		  if ($1 == "insn") full[$2] = substr($3, 1, 10) }
		function covered(i,   j, n, c, m) {
			if (b[i] == "check-bench") return 0
			n = split(substr(b[i], 6), c, "+")
			for (j = 1; j <= NR; j++) {
				if (j == i || b[j] !~ /^insn-/ || k[j] != k[i] || d[j] <= d[i])
					continue
				for (m = 1; m <= n; m++)
					if (index("+" substr(b[j], 6) "+", "+" c[m] "+") == 0)
						break
				if (m > n) return 1
			}
			return 0
		}
		END {
			for (i = 1; i <= NR; i++) {
				sub_run = b[i] ~ /^insn-/ || b[i] == "check-bench"
				if (sub_run && (k[i] in full) && full[k[i]] >= substr(d[i], 1, 10))
					continue
				if (sub_run && covered(i))
					continue
				rank = 5
				if (b[i] == "insn") rank = 1
				else if (b[i] ~ /^insn-/) rank = 2
				else if (b[i] == "real") rank = 3
				else if (b[i] == "check-bench") rank = 4
				print rank, r[i]
			}
		}' | sort -k1,1n -k2,2 -k3,3 | cut -d' ' -f2-
}

# make bench's table of FILE as one row per configuration: kernel
# instructions per fault relative to a at each order, ± the spread
insn_pivot() {
	awk -F' *\\| *' '
		/^\| order \| config \|/ {
			for (i = 2; i < NF; i++) col[$i] = i
			on = 1; next
		}
		on && /^\|---/ { next }
		on && /^\|/ {
			o = $col["order"]; c = $col["config"]
			if (!(o in os)) { os[o] = 1; ord[++no] = o }
			if (!(c in cs)) { cs[c] = 1; cfg[++nc] = c }
			v[c, o] = sprintf("%.3f ±%.2f%%", $col["kernel ratio to a"], $col["spread %"])
			ins[c, o] = $col["kernel/fault"]
			next
		}
		on { on = 0 }
		END {
			if (!nc) exit 1
			printf "| config |"; for (j = 1; j <= no; j++) printf " order %s |", ord[j]
			printf "\n|---|"; for (j = 1; j <= no; j++) printf "---|"
			printf "\n"
			for (i = 1; i <= nc; i++) {
				printf "| %s |", cfg[i]
				for (j = 1; j <= no; j++)
					printf " %s |", cfg[i] == "a" ? ins[cfg[i], ord[j]] " insns" : v[cfg[i], ord[j]]
				printf "\n"
			}
		}' "$1"
}

# the first markdown table of FILE, as it is
first_table() {
	awk '/^\|/ { p = 1; print; next } p { exit }' "$1"
}

section() {
	local bench=$1 kern=$2 f=$3 title img
	title=$(head -n 1 "$runs/$f" | sed 's/^## [0-9-]* — //')
	echo "## $bench on $kern"
	echo
	echo "$(echo "$f" | cut -c1-10): $title."
	img=$(grep -m1 -o '!\[[^]]*\]([^)]*\.svg)' "$runs/$f" || true)
	# a run of some configurations links its plot, a full one shows it:
	# the page stays one to read (tests/host/run.sh's 400 lines)
	if [[ $bench == insn-* ]] && [ -n "$img" ]; then
		img=${img#*](}
		echo "The whole run: [runs/$f](runs/$f), its plot [runs/${img%)}](runs/${img%)})."
		img=
	else
		echo "The whole run: [runs/$f](runs/$f)."
	fi
	echo
	if [ "$bench" != check-bench ] && [[ $bench == insn* ]] && insn_pivot "$runs/$f" > /dev/null; then
		echo "Kernel instructions per fault relative to a (no module), ± the runs'"
		echo "spread ((max - min) / median); row a: a's own count."
		echo
		insn_pivot "$runs/$f"
	else
		first_table "$runs/$f"
	fi
	[ -n "$img" ] && { echo; echo "${img/](/](runs/}"; }
	echo
}

{
	cat <<-'EOT'
	# mmtune benchmark results

	Generated by bench/results.sh from the raw runs in [runs/](runs/): the
	latest run of each benchmark on each kernel.  Do not edit; a benchmark
	run writes its file to runs/ and makes this page again.  What each
	benchmark measures, its configurations (a, b, c_ctr, p1, ...) and how
	to read the figures: [docs/benchmarks.md](../docs/benchmarks.md).
	Instruction counts are the TCG plugin's and do not depend on the
	host's load; wall-clock figures (wall, wall-policy) do, and spread by
	15-40 %.

	EOT
	list_runs | latest | while read -r bench kern _ f; do
		section "$bench" "$kern" "$f"
	done
	notes=$(find "$runs" -maxdepth 1 -name '????-??-??-notes-*.md' | sort)
	[ -z "$notes" ] || {
		echo "## Readings"
		echo
		echo "What the runs above and older ones showed, in the words of their day:"
		echo
	}
	for f in $notes; do
		echo "- [$(head -n 1 "$f" | sed 's/^## //')](runs/$(basename "$f"))"
	done
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "# bench/results.sh: $(wc -l < "$out") lines in $out" >&2
