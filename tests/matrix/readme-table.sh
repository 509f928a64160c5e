#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/matrix/readme-table.sh [RESULTS]: README's "verified on" table, in
# markdown, from a `make check-matrix` run's results (default
# tests/out/matrix/results.txt; format: see tests/check-matrix.sh).
# A row per kernel series, a column per arch; a flavour (ppc64le's -64k,
# arm64's -16k, the -rt kernels) and the hash-MMU boots share their arch's
# column; riscv64 has no 6.1 (bookworm) kernel. Each cell: the Debian version, then built / loaded /
# passed / failed checks.
#
# --update README [RESULTS]: replace README's table, the lines between
# "<!-- verified-on: begin" and "<!-- verified-on: end -->", with this one
# and the run's date and wall time (a "# summary" line in RESULTS' dir's
# summary.txt, written by check-matrix.sh).
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
update=
if [ "${1:-}" = --update ]; then
	update=${2:?usage: readme-table.sh --update README [RESULTS]}
	shift 2
fi
res=${1:-$TOP/tests/out/matrix/results.txt}
[ -r "$res" ] || { echo "readme-table: no $res (run make check-matrix)" >&2; exit 1; }
if [ -n "$update" ]; then
	grep -q '^<!-- verified-on: begin' "$update" && grep -q '^<!-- verified-on: end -->' "$update" ||
		{ echo "readme-table: no verified-on markers in $update" >&2; exit 1; }
	tab=$(mktemp); trap 'rm -f "$tab"' EXIT
	{
		echo "<!-- verified-on: begin (tests/matrix/readme-table.sh --update README.md; do not edit) -->"
		sum=$(cat "$(dirname "$res")/summary.txt" 2>/dev/null || true)
		[ -z "$sum" ] || { echo "$sum"; echo; }
		"$0" "$res"
	} > "$tab"
	awk -v tab="$tab" '/^<!-- verified-on: begin/ { while ((getline l < tab) > 0) print l; skip = 1; next }
		/^<!-- verified-on: end -->/ { skip = 0 } !skip' "$update" > "$update.new"
	mv "$update.new" "$update"
	exit 0
fi
awk '
/^#/ || NF < 11 { next }
{
	cell = $1; series = $2; arch = $3; kver = $4; ver = $5; st = $6
	col = arch; sub(/-hash$/, "", col); flav = ""
	if (match(col, /-(64k|16k|rt)$/)) { flav = " " substr(col, RSTART); col = substr(col, 1, RSTART - 1) }
	psz = (NF >= 12 && $12 != "-") ? $12 : ""
	mmu = (NF >= 13 && $13 != "-") ? $13 : ""
	if (st == "passed") mark = "✓"
	else if (st == "unavailable") mark = "–"
	else mark = "✗"
	txt = mark flav
	if (st == "unavailable") txt = txt " not on the mirror used (see below)"
	else {
		txt = txt " " ver
		if (psz != "" && (col == "ppc64le" || flav ~ /k$/)) txt = txt ", " psz / 1024 " KiB pages"
		if (mmu != "") txt = txt " " mmu
		txt = txt ": " ($7 == "yes" ? "built" : "not built")
		if ($7 == "yes") txt = txt ", " ($8 == "yes" ? "loaded" : "not loaded")
		if ($7 == "yes" && $8 == "yes") txt = txt ", " $9 "/" $9 + $10 " checks"
		# light cells (tests/check-matrix.sh) skip what one cell per arch runs
		if (NF >= 14 && $14 > 0) txt = txt " (" $14 " skipped)"
		if (st != "passed") txt = txt " (" st ")"
	}
	k = series SUBSEP col
	if (k in cells) cells[k] = cells[k] "<br>" txt
	else cells[k] = txt
	seen[series] = 1
}
END {
	print "| kernel (Debian) | x86_64 | arm64 | ppc64le | s390x | riscv64 |"
	print "|---|---|---|---|---|---|"
	nc = split("x86_64 arm64 ppc64le s390x riscv64", cols, " ")
	ns = split("6.1 6.12 7", order, " ")	# oldest first, whatever order the cells ran in
	for (i = 1; i <= ns; i++) {
		s = order[i]
		if (!(s in seen)) continue
		name = s == "6.1" ? "6.1 (bookworm)" : s == "6.12" ? "6.12 (trixie)" : s == "7" ? "7.x (trixie-backports)" : s
		line = "| " name
		for (j = 1; j <= nc; j++) {
			k = s SUBSEP cols[j]
			# Debian 12 has no riscv64 kernel: riscv64 is a release
			# arch from Debian 13 on
			na = (s == "6.1" && cols[j] == "riscv64") ? "n/a (no Debian 12 riscv64)" : ""
			line = line " | " ((k in cells) ? cells[k] : na)
		}
		print line " |"
	}
}' "$res"
