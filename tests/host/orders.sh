# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by tests/host/run.sh: the order-list grammar every tool's
# --orders takes (libmmtune's mmt_parse_orders): mmtunectl (replay, on a
# record of 512-entry tables: orders 0..9) and mmstress (seq, on the fake
# tree's info: ptrs_per_pte 512, orders 0..9) accept the same lists and
# refuse the same ones with exit 2 and one line on stderr.  mmtunectl
# takes the list as a set (sorted, each once), mmstress as the sweep's
# sequence (as given, repeats too).  Needs $CTL, $MMS, $PY, $W, fresh(),
# rec_a and rec_tail (tests/host/replay.sh).

# ctl_orders LIST: the orders mmtunectl replay --json shows for LIST, one line
ctl_orders() {
	"$CTL" replay --json --orders "$1" "$W/orders.rec" 2>"$W/err" |
		$PY -c 'import json, sys; print(*[o["order"] for o in json.load(sys.stdin)["orders"]])'
}
# mms_orders LIST: the orders of mmstress seq's runs for LIST, in the order run
mms_orders() {
	"$MMS" seq --orders "$1" -s 64K --warmup 0 -q -F csv -f "$2" 2>"$W/err" |
		$PY -c 'import csv, sys; print(*[r["order"] for r in csv.DictReader(l for l in sys.stdin if not l.startswith("#"))])'
}

suite_orders() {
	local dir l want ctl mms
	dir=$(mktemp -d /dev/shm/mmt-orders.XXXXXX 2>/dev/null || mktemp -d "$W/orders.XXXXXX")
	fresh
	{ rec_a; rec_tail 100; } >"$W/orders.rec"
	# LIST|mmstress's sweep (as given, ranges rising)
	for l in '0|0' '9|9' '0,2,4|0 2 4' '0-9|0 1 2 3 4 5 6 7 8 9' '0-3,9|0 1 2 3 9' \
		'4,0|4 0' '4,4,4|4 4 4' '3-3|3' '9,0-2|9 0 1 2' ',0,,2,|0 2'; do
		want=${l#*|}
		l=${l%%|*}
		mms=$(mms_orders "$l" "$dir")
		expect_eq "orders: mmstress --orders '$l': swept as given" "$mms" "$want"
		ctl=$(ctl_orders "$l")
		expect_eq "orders: mmtunectl replay --orders '$l': the same orders, sorted, each once" \
			"$ctl" "$(tr ' ' '\n' <<<"$want" | sort -n | uniq | tr '\n' ' ' | sed 's/ $//')"
	done
	for l in '' ',' 10 0-10 9-0 -1 -3 0- 1-2-3 x '0, 2' ' 0' 0x3 '0;1' '0 2' 1.0 0-3-5 \
		99999999999999999999; do
		t_rc "orders: mmtunectl replay --orders '$l': exit 2" 2 "$CTL" replay --orders "$l" "$W/orders.rec"
		t_rc "orders: mmstress --orders '$l': exit 2" 2 "$MMS" seq --orders "$l" -s 64K --warmup 0 -q -f "$dir"
	done
	run "$CTL" replay --orders 0-10 "$W/orders.rec"
	t_grep "orders: mmtunectl says what the grammar wants" err "^mmtunectl: --orders '0-10': want orders 0\.\.9 like 0,2,4 or 0-9 "
	run "$MMS" seq --orders 0-10 -f "$dir"
	t_grep "orders: mmstress says the same" err "^mmstress: --orders '0-10': want orders 0\.\.9 like 0,2,4 or 0-9 "
	# the tools' own bound on the list: mmstress sweeps at most 64 orders,
	# mmtunectl's set has at most 10 here whatever the repeats
	l=$(printf '0-9,%.0s' 1 2 3 4 5 6)0-4
	t_rc "orders: mmstress --orders of 65 orders: exit 2" 2 "$MMS" seq --orders "$l" -f "$dir"
	t_grep "orders: mmstress says at most 64" err '^mmstress: --orders: at most 64 orders '
	expect_eq "orders: mmtunectl replay --orders of 65 orders: the 10 once" "$(ctl_orders "$l")" "0 1 2 3 4 5 6 7 8 9"
	[ -z "$(ls -A "$dir")" ] && ok "orders: no test file left" || fail "orders: left $(ls "$dir")"
	rm -rf "$dir"
}
suite_orders
