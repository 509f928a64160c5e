# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by tests/host/run.sh: suite_replay, `mmtunectl replay` on
# records written here, their figures worked out by hand below.  Needs
# $CTL, $W, $PY and tests/lib.sh.

# rec_head: a record's header (4096-byte pages, 512 a table)
rec_head() {
	printf '%s\n' 'mmtune-record 1' 'release 6.1.0-test' 'machine x86_64' 'page_size 4096' \
		'ptes 512' 'kernel_order 4' 'command ./app -x'
}
# rec_tail MINOR: the footer, MINOR faults in all
rec_tail() { printf '%s\n' "faults $1 0" 'events 0' 'odd 0' 'lost 0' 'end'; }

# A: one file of 64 pages, all cached, a VMA of 64 pages at a 2 MiB
# boundary, pages 0, 2, ..., 62 read (32 read faults), 100 faults in all.
#   order 1: each fault's window is its pair: 32 calls, 32 ahead, 32 untouched, faults 100
#   order 4: windows of 16 at 0, 16, 32, 48: 4 calls, 60 ahead, 28 of them read
#            later, 32 untouched; faults 100 - 28 = 72
#   order 9: one window, clipped to the VMA: 1 call, 63 ahead, 31 read, 32 untouched, 69
# B: as A with the VMA starting 8 pages before a table's end (start
#   0x101f8000): order 4's windows are clipped to the table, then aligned:
#   [0,7] [8,23] [24,39] [40,55] [56,63]: 5 calls, 59 ahead, 27 read, 32 untouched, 73
# C: A's file with only pages 0-31 cached: order 9 maps 1-31 ahead (15
#   read) and faults each of 32..62 (16 faults): 17 calls, 31 ahead, 16
#   untouched, faults 100 - 15 = 85; the cache changed (end_cached 64): a bound
# D: A's faults twice over (a second pass after munmap/mmap at the same
#   address): each pass as A's, 164 faults in all: order 4: 164 - 56 = 108
rec_a() {
	local start=${1:-0x10000000} end=${2:-0x10040000}
	rec_head
	echo 'file 0 0:33 12 64 64 /data/f'
	echo 'cached 0 0 64'
	echo "vma 0 100 0 $start $end 0 0x8000071"
	for i in $(seq 0 2 62); do echo "f 0 $i"; done
}
# E: A on a file of 16-page folios at 0, 16, 32, 48 (rec_e: after A's
# file lines; SHMEM 1: on tmpfs), --whole-folio:
#   order 0: a fault maps its folio whole: faults 0, 16, 32 map 15 each
#            ahead, past the window; the folio at 48 ends at the file's last
#            page: not whole but on tmpfs, so 48, 50, ..., 62 fault: 11
#            file faults, 21 spared: faults 79, 45 ahead, 24 untouched
#   order 1: as 0, and each of the 8 faults at 48-62 maps its pair: 53
#            ahead, 32 untouched, 42 of them beyond the window
#   order 4: the windows hold the folios: A's figures, none beyond
#   SHMEM 1: the folio at 48 too: order 0: 4 faults, 60 ahead, 72
# F: E's folios in B's VMA (8 pages before a table's end): the folio at 0
#   spans two tables: order 0: 8 + 1 + 1 + 8 file faults, 14 spared: 86
# G: E's faults as a kernel mapping whole folios records them (whole_folio
#   1): 0, 16, 32, 48, 50, ..., 62, 79 faults in all; order 0: 45 ahead,
#   all untouched (a bound); order 4: 72 faults, 60 ahead, 53 untouched
rec_e() {	# rec_e SHMEM [FAULTS...]: E's record on A's VMA, or $VMA
	local shmem=$1 f; shift
	rec_head | sed 's/^mmtune-record 1$/mmtune-record 2/'
	echo 'file 0 0:33 12 64 64 /data/f'
	echo 'cached 0 0 64'
	printf 'folio 0 %s 16\n' 0 16 32 48
	echo "folios 0 4 $shmem"
	echo "vma 0 100 0 ${VMA:-0x10000000 0x10040000} 0 0x8000071"
	for f in "${@:-$(seq 0 2 62)}"; do echo "f 0 $f"; done
}
rp_field() {	# rp_field ORDER FIELD: from replay --json's output in $W/out
	$PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
print([o for o in d["orders"] if o["order"] == int(sys.argv[2])][0][sys.argv[3]])' "$W/out" "$1" "$2"
}
rp_row() {	# rp_row ORDER: "faults calls premapped untouched"
	echo "$(rp_field "$1" faults) $(rp_field "$1" fault_around_calls) $(rp_field "$1" premapped) $(rp_field "$1" untouched)"
}

suite_replay() {
	local r=$W/rec
	{ rec_a; rec_tail 100; } >"$r"
	check "replay: a record" "$CTL" replay --orders 0,1,4,9 "$r"
	"$CTL" replay --json --orders 0,1,4,9 "$r" >"$W/out"
	expect_eq "replay: order 0" "$(rp_row 0)" "100 0 0 0"
	expect_eq "replay: order 1, pairs" "$(rp_row 1)" "100 32 32 32"
	expect_eq "replay: order 4, windows of 16" "$(rp_row 4)" "72 4 60 32"
	expect_eq "replay: order 9, one window clipped to the VMA" "$(rp_row 9)" "69 1 63 32"
	expect_eq "replay: untouched bytes" "$(rp_field 4 untouched_bytes)" $((32 * 4096))
	expect_eq "replay: exact" "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["exact"])' "$W/out")" True
	"$CTL" replay --orders 0 "$r" | grep -q '^exact: ' && ok "replay: says exact" || fail "replay: no exact line"

	{ rec_a 0x101f8000 0x10238000; rec_tail 100; } >"$r"
	"$CTL" replay --json --orders 4 "$r" >"$W/out"
	expect_eq "replay: windows clipped to the page table" "$(rp_row 4)" "73 5 59 32"

	{ rec_a | sed 's/^cached 0 0 64$/cached 0 0 32/; s/^file 0 0:33 12 64 64 /file 0 0:33 12 64 32 /'; echo 'end_cached 0 64'; rec_tail 100; } >"$r"
	"$CTL" replay --json --orders 9 "$r" >"$W/out"
	expect_eq "replay: uncached pages are not mapped" "$(rp_row 9)" "85 17 31 16"
	grep -q '"exact":false' "$W/out" && grep -q 'cached at its first fault, 64 at the end' "$W/out" &&
		ok "replay: a cache that changed is a bound" || fail "replay: bound: $(cat "$W/out")"

	{ rec_a; for i in $(seq 0 2 62); do echo "f 0 $i"; done; rec_tail 164; } >"$r"
	"$CTL" replay --json --orders 4 "$r" >"$W/out"
	expect_eq "replay: a page faulted again: the VMA mapped again" "$(rp_row 4)" "108 8 120 64"
	expect_eq "replay: refaults counted" "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["refaults"])' "$W/out")" 1

	suite_replay_folios
	{ rec_a; rec_tail 100; } | head -n 20 >"$r"
	expect_eq "replay: a truncated record: exit 1" "$("$CTL" replay "$r" >/dev/null 2>"$W/err"; echo $?)" 1
	grep -q "rec:20: the record is truncated" "$W/err" && ok "replay: truncated, with the line" ||
		fail "replay: truncated: $(cat "$W/err")"
	{ rec_a; echo 'f 0 64'; rec_tail 100; } >"$r"
	expect_eq "replay: a page beyond its VMA: exit 1" "$("$CTL" replay "$r" >/dev/null 2>"$W/err"; echo $?)" 1
	grep -q "rec:43: a bad fault line" "$W/err" && ok "replay: the bad line's number" ||
		fail "replay: bad line: $(cat "$W/err")"
	echo 'hello' >"$r"
	expect_eq "replay: not a record: exit 1" "$("$CTL" replay "$r" >/dev/null 2>&1; echo $?)" 1
	expect_eq "replay: a directory: exit 1" "$("$CTL" replay "$W" >/dev/null 2>"$W/err"; echo $?)" 1
	grep -q "is a directory, not a record" "$W/err" && ok "replay: a directory, said so" ||
		fail "replay: a directory: $(cat "$W/err")"
	expect_eq "replay: no file: exit 1" "$("$CTL" replay "$W/none" >/dev/null 2>&1; echo $?)" 1
	expect_eq "replay: two files: exit 2" "$("$CTL" replay "$r" "$r" >/dev/null 2>&1; echo $?)" 2
	{ rec_a; rec_tail 100; } >"$r"
	expect_eq "replay --orders 10 (a table of 512): exit 2" "$("$CTL" replay --orders 10 "$r" >/dev/null 2>&1; echo $?)" 2
	{ rec_a; rec_tail 100; } >"$r"
	"$CTL" report --json --replay "$r" >"$W/out" 2>/dev/null
	expect_eq "report --replay: the replay section, orders 0-9" \
		"$($PY -c 'import json,sys; d = json.load(open(sys.argv[1]))["replay"]; print(len(d["orders"]), d["orders"][4]["faults"])' "$W/out")" "10 72"
	echo hello >"$W/bad"
	expect_eq "report --replay BAD: exit 1, no report" \
		"$("$CTL" report --replay "$W/bad" 2>/dev/null | wc -c; echo "${PIPESTATUS[0]}")" "0
1"
	expect_eq "record without a command: exit 2" "$("$CTL" record >/dev/null 2>&1; echo $?)" 2
	expect_eq "record --buffer 1: exit 2" "$("$CTL" record --buffer 1 -- true >/dev/null 2>&1; echo $?)" 2
}

suite_replay_folios() {
	local r=$W/rec
	{ rec_e 0 $(seq 0 2 62); rec_tail 100; } >"$r"
	"$CTL" replay --json --orders 0,4 "$r" >"$W/out"
	expect_eq "replay: folios, not modelled by default (6.1)" "$(rp_row 0) $(rp_row 4)" "100 0 0 0 72 4 60 32"
	"$CTL" replay --json --whole-folio --orders 0,1,4 "$r" >"$W/out"
	expect_eq "replay --whole-folio: order 0 maps folios whole" "$(rp_row 0) $(rp_field 0 beyond_window)" "79 0 45 24 45"
	expect_eq "replay --whole-folio: order 1" "$(rp_row 1) $(rp_field 1 beyond_window)" "79 11 53 32 42"
	expect_eq "replay --whole-folio: order 4 (the windows hold the folios)" "$(rp_row 4) $(rp_field 4 beyond_window)" "72 4 60 32 0"
	"$CTL" replay --whole-folio --orders 0 "$r" | grep -q '^ *0 .* 45$' &&
		ok "replay --whole-folio: the beyond window column" || fail "replay --whole-folio: text: $("$CTL" replay --whole-folio --orders 0 "$r")"
	{ rec_e 1 $(seq 0 2 62); rec_tail 100; } >"$r"
	"$CTL" replay --json --whole-folio --orders 0 "$r" >"$W/out"
	expect_eq "replay --whole-folio: tmpfs maps the folio at EOF whole" "$(rp_row 0)" "72 0 60 32"
	{ VMA="0x101f8000 0x10238000" rec_e 0 $(seq 0 2 62); rec_tail 100; } >"$r"
	"$CTL" replay --json --whole-folio --orders 0 "$r" >"$W/out"
	expect_eq "replay --whole-folio: a folio across two page tables is not whole" "$(rp_row 0)" "86 0 30 16"
	{ rec_e 0 0 16 32 $(seq 48 2 62) | sed 's/^kernel_order 4$/&\nwhole_folio 1/'; rec_tail 79; } >"$r"
	"$CTL" replay --json --orders 0,4 "$r" >"$W/out"
	expect_eq "replay: a record of a whole-folio kernel, order 0 and 4" "$(rp_row 0) $(rp_row 4)" "79 0 45 45 72 4 60 53"
	grep -q '"exact":false' "$W/out" && grep -q '45 pages of large folios were mapped whole' "$W/out" &&
		ok "replay: folios mapped whole by the record's faults: a bound" || fail "replay: hidden: $(cat "$W/out")"
	{ rec_e 0 $(seq 0 2 62) | sed 's/^folios 0 4 0$/folios 0 -1 0/; /^folio /d'; rec_tail 100; } >"$r"
	"$CTL" replay --json --whole-folio --orders 0 "$r" >"$W/out"
	grep -q 'its folio sizes are not known' "$W/out" && expect_eq "replay: folios unknown: single pages" "$(rp_row 0)" "100 0 0 0" ||
		fail "replay: folios unknown: $(cat "$W/out")"
	{ rec_e 0 | sed 's/^folio 0 16 16$/folio 0 8 16/'; rec_tail 100; } >"$r"
	expect_eq "replay: a folio not aligned: exit 1" "$("$CTL" replay "$r" >/dev/null 2>"$W/err"; echo $?)" 1
	grep -q "rec:11: a folio out of place" "$W/err" && ok "replay: the bad folio's line" ||
		fail "replay: bad folio: $(cat "$W/err")"
	{ rec_e 0 | sed 's/^folios 0 4 0$/folios 0 3 0/'; rec_tail 100; } >"$r"
	expect_eq "replay: a folios count that is not its lines': exit 1" "$("$CTL" replay "$r" >/dev/null 2>&1; echo $?)" 1
	{ rec_head | sed 's/^mmtune-record 1$/mmtune-record 2/'; echo 'file 0 0:33 12 1024 1024 /data/f'
	  echo 'cached 0 0 1024'; echo 'folio 0 0 512'; echo 'folios 0 1 0'
	  echo 'vma 0 100 0 0x10000000 0x10400000 0 0x8000071'; echo 'f 0 0'; rec_tail 10; } >"$r"
	"$CTL" replay --json --orders 0 "$r" >"$W/out"
	grep -q '1 folios of a page table.s size' "$W/out" && ok "replay: a PMD-sized folio is a bound" ||
		fail "replay: PMD folio: $(cat "$W/out")"
}

# The advisor's record: /data/seq, 64 pages at a 2 MiB boundary, each
# read in turn; /data/sparse, 4096 pages at a 16 MiB boundary, page 100
# of each of its 8 page tables read; 200 faults in all (128 not file
# read faults).
#   seq at order k: 64 / 2^k faults (1 from order 6), nothing untouched
#   sparse: 8 faults at every order, 8 (2^k - 1) pages untouched
#   order 4 (the fixture's): 128 + 4 + 8 = 140 faults, 120 untouched (480 KiB)
#   advised: seq at 6 (its fewest faults, the lowest such order), sparse
#   at 0 (its least untouched): 137 faults, none untouched; the rest at 0
#   on the tie with "rest at 6, sparse ruled at 0"; best single order
#   within 480 KiB: 4 (order 5 leaves 248 pages)
rec_adv() {
	rec_head | sed 's/^mmtune-record 1$/mmtune-record 2/'
	printf '%s\n' 'file 0 0:33 12 64 64 /data/seq' 'cached 0 0 64' 'folios 0 0 0' \
		'vma 0 100 0 0x10000000 0x10040000 0 0x8000071'
	for i in $(seq 0 63); do echo "f 0 $i"; done
	printf '%s\n' 'file 1 0:33 13 4096 4096 /data/sparse' 'cached 1 0 4096' 'folios 1 0 0' \
		'vma 1 100 1 0x20000000 0x21000000 0 0x8000071'
	for i in $(seq 100 512 4095); do echo "f 1 $i"; done
	rec_tail 200
}

# adv_q EXPR: a Python expression over advise's JSON in $W/out (d)
adv_q() { $PY -c "import json, sys; d = json.load(open(sys.argv[1])); print(($1))" "$W/out"; }

suite_advise() {
	local r=$W/rec
	fresh
	rec_adv >"$r"
	check "advise: a record" "$CTL" advise "$r"
	"$CTL" advise --json "$r" >"$W/out"
	expect_eq "advise: the current order is the module's (4), its untouched the budget" \
		"$(adv_q "d['current_order'], d['budget_kib'], d['current']['faults']")" "(4, 480, 140)"
	expect_eq "advise: /data/seq at 6, the rest (sparse) at 0" \
		"$(adv_q "[(x['file'], x['order'], x['faults'], x['untouched']) for x in d['rules']], d['rest']['order'], d['rest']['files']")" \
		"([('/data/seq', 6, 1, 0)], 0, 1)"
	expect_eq "advise: 137 faults, none untouched, one rule" \
		"$(adv_q "d['advised']['faults'], d['advised']['untouched'], d['advised']['rules']")" "(137, 0, 1)"
	# what the matrix's guests read it with (no python3 there): tests/lib.sh
	expect_eq "advise: json_flat/json_get read what Python reads" \
		"$(json_get "$W/out" advised.faults) $(json_get "$W/out" rules.0.file) $(json_get "$W/out" exact) $(json_flat "$W/out" | grep -c '^rules\.0\.')" \
		"137 /data/seq true $(adv_q "len(d['rules'][0])")"
	expect_eq "advise: the best single order within 480 KiB is 4; order 0: 200 faults" \
		"$(adv_q "d['best_single']['order'], d['best_single']['faults'], d['order_0']['faults']")" "(4, 140, 200)"
	expect_eq "advise: exact figures, found exactly" \
		"$(adv_q "d['exact'], d['advised']['exact'], d['budget_unit_pages'], d['over_budget']")" "(True, True, 1, False)"
	"$CTL" advise --json --budget 992 "$r" >"$W/out"
	expect_eq "advise --budget 992: order 5 fits as the best single order" \
		"$(adv_q "d['best_single']['order'], d['best_single']['faults'], d['advised']['faults']")" "(5, 138, 137)"
	no_module
	export MMTUNE_DEBUGFS=$W/no-debugfs
	"$CTL" advise --json "$r" >"$W/out"
	expect_eq "advise without the module: order 4 assumed, said so" \
		"$(adv_q "d['current_order'], 'assumed' in d['current_order_from']")" "(4, True)"
	"$CTL" advise "$r" | grep -q "^ *6 *1 *1 *0 *0 *exact  file=/data/seq$" &&
		ok "advise: text lists the rule, its order and figures" || fail "advise: text: $("$CTL" advise "$r" | grep seq)"
	"$CTL" advise "$r" | grep -q '^  mmtunectl policy add "file=/data/seq order=6"$' &&
		ok "advise: says how to set the rule" || fail "advise: no policy add line"
	fresh
	expect_eq "advise without a record or command: exit 2" "$("$CTL" advise >/dev/null 2>&1; echo $?)" 2
	expect_eq "advise --apply without a command: exit 2" "$("$CTL" advise --apply "$r" >/dev/null 2>&1; echo $?)" 2
	expect_eq "advise --budget x: exit 2" "$("$CTL" advise --budget x "$r" >/dev/null 2>&1; echo $?)" 2
	expect_eq "advise of a directory: exit 1" "$("$CTL" advise "$W" >/dev/null 2>&1; echo $?)" 1
	expect_eq "advise --help: exit 0, its usage" "$("$CTL" advise --help 2>&1 | head -n 1 | cut -d' ' -f1-3)" "usage: mmtunectl advise"
}
