#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/matrix/readme-table.sh [RESULTS]: README's "verified on" table, in
# markdown, from a `make check-matrix` run's results (default
# tests/out/matrix/results.txt; format: see tests/check-matrix.sh).
# A row per kernel series, a column per arch; ppc64le's -64k flavour and the
# hash-MMU boots share the ppc64le column. Each cell: the Debian version, then built / loaded /
# passed / failed checks.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
res=${1:-$TOP/tests/out/matrix/results.txt}
[ -r "$res" ] || { echo "readme-table: no $res (run make check-matrix)" >&2; exit 1; }
awk '
/^#/ || NF < 11 { next }
{
	cell = $1; series = $2; arch = $3; kver = $4; ver = $5; st = $6
	col = arch; sub(/-hash$/, "", col); sub(/-64k$/, "", col)
	flav = (arch ~ /-64k/) ? " -64k" : ""
	psz = (NF >= 12 && $12 != "-") ? $12 : ""
	mmu = (NF >= 13 && $13 != "-") ? $13 : ""
	if (st == "passed") mark = "✓"
	else if (st == "unavailable") mark = "–"
	else mark = "✗"
	txt = mark flav
	if (st == "unavailable") txt = txt " not on the mirror"
	else {
		txt = txt " " ver
		if (psz != "" && col == "ppc64le") txt = txt ", " psz / 1024 " KiB pages"
		if (mmu != "") txt = txt " " mmu
		txt = txt ": " ($7 == "yes" ? "built" : "not built")
		if ($7 == "yes") txt = txt ", " ($8 == "yes" ? "loaded" : "not loaded")
		if ($7 == "yes" && $8 == "yes") txt = txt ", " $9 "/" $9 + $10 " checks"
		if (st != "passed") txt = txt " (" st ")"
	}
	k = series SUBSEP col
	if (k in cells) cells[k] = cells[k] "<br>" txt
	else cells[k] = txt
	if (!(series in seen)) { seen[series] = 1; order[++ns] = series }
}
END {
	print "| kernel (Debian) | x86_64 | arm64 | ppc64le |"
	print "|---|---|---|---|"
	split("x86_64 arm64 ppc64le", cols, " ")
	for (i = 1; i <= ns; i++) {
		s = order[i]
		name = s == "6.1" ? "6.1 (bookworm)" : s == "6.12" ? "6.12 (trixie)" : s == "7" ? "7.x (trixie-backports)" : s
		line = "| " name
		for (j = 1; j <= 3; j++) {
			k = s SUBSEP cols[j]
			line = line " | " ((k in cells) ? cells[k] : "")
		}
		print line " |"
	}
}' "$res"
