#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mmtunectl advise (docs/replay.md, "Advise"): one command records a
# shell running mmstress seq over one tmpfs file and mmstress sparse
# over another, and advises an order per file; the sequential file must
# get a high order, the sparse one a low one, within the budget (the
# untouched pages of the current order), with fewer faults than the best
# single order.  Then --apply runs the same command under the advised
# rules (through the module's first/drop edits) and the measured faults,
# fault-around calls and untouched pages (usefulness, per rule) are held
# to the prediction.  THP and ASLR off, as for t-63-replay (why there).
. "$(dirname "$0")/lib.sh"

WORK=$(mktemp -d /var/tmp/mmt-advise.XXXXXX)
CTL=${MMT_MMTUNECTL:-$MMT_TOP/userspace/mmtunectl}
MMS=$MMT_TOP/userspace/mmstress
THP=/sys/kernel/mm/transparent_hugepage/enabled
THP_WAS=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $THP 2>/dev/null)
ASLR=/proc/sys/kernel/randomize_va_space
ASLR_WAS=$(cat $ASLR)
cleanup() {
	[ -n "$THP_WAS" ] && echo "$THP_WAS" > $THP
	echo "$ASLR_WAS" > $ASLR
	[ -w $MMT/usefulness_enable ] && echo 0 > $MMT/usefulness_enable 2>/dev/null
	[ -w $MMT/policy ] && echo clear > $MMT/policy 2>/dev/null
	umount "$WORK" 2>/dev/null
	rm -rf "$WORK"
	unload_module
}
on_exit cleanup
[ -x "$CTL" ] && [ -x "$MMS" ] || { fail "no $CTL or $MMS (make tools)"; exit 1; }
command -v python3 > /dev/null || { skip "advise" "no python3 to read the JSON"; exit 0; }

need_cgroup2

unload_module
load_module || { fail "insmod"; exit 1; }
mount -t tmpfs -o size=200m,huge=never mmt-advise "$WORK" || { fail "tmpfs"; exit 1; }
[ -n "$THP_WAS" ] && echo never > $THP
echo 0 > $ASLR
[ "$(order)" -ge 1 ] || echo 4 > $MMT/fault_around_order
echo "# page size $(getconf PAGESIZE), kernel order $(order), max order $(info max_order)"

cp "$MMS" "$WORK/mmstress" && MMS=$WORK/mmstress
SEQ=$WORK/seq
SPARSE=$WORK/sparse
# existing files: mmstress uses them as they are, and the rules --apply
# writes find the same inodes
head -c 8M /dev/zero > "$SEQ"
head -c 128M /dev/zero > "$SPARSE"
set -- sh -c "$MMS seq -q -s 8M -f $SEQ > /dev/null && $MMS sparse -q -s 128M -f $SPARSE > /dev/null"
"$@" > /dev/null	# the page cache as the runs will find it

# jq_ FILE EXPR: a Python expression over the JSON document d
jq_() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"; }

sect "advise -- COMMAND: record once, advise"
if "$CTL" advise --json --record "$WORK/rec" -- "$@" > "$WORK/adv" 2> "$WORK/err"; then
	ok "advise -- COMMAND: exit 0"
else
	fail "advise -- COMMAND: $(tail -n 2 "$WORK/err")"; exit 1
fi
"$CTL" advise "$WORK/rec" | sed 's/^/# /'
ord_of() { jq_ "$WORK/adv" "([r['order'] for r in d['rules'] if r['file'] == '$1'] or [d['rest']['order']])[0]"; }
os=$(ord_of "$SEQ") op=$(ord_of "$SPARSE")
echo "# advised: sequential file at $os, sparse file at $op, the rest at $(jq_ "$WORK/adv" "d['rest']['order']")"
[ "$os" -ge 4 ] && ok "the sequential file at a high order ($os)" || fail "the sequential file at $os"
[ "$op" -le 1 ] && ok "the sparse file at a low order ($op)" || fail "the sparse file at $op"
expect_eq "within the budget" "$(jq_ "$WORK/adv" "d['advised']['untouched_kib'] <= d['budget_kib']")" True
expect_eq "fewer faults than the best single order within the budget" \
	"$(jq_ "$WORK/adv" "d['advised']['faults'] < d['best_single']['faults']")" True
echo "# advised $(jq_ "$WORK/adv" "d['advised']['faults'], d['advised']['untouched_kib']") (faults, untouched KiB); best single order $(jq_ "$WORK/adv" "d['best_single']['order'], d['best_single']['faults'], d['best_single']['untouched_kib']"); current $(jq_ "$WORK/adv" "d['current']['order'], d['current']['faults'], d['current']['untouched_kib']"); order 0 $(jq_ "$WORK/adv" "d['order_0']['faults']")"
expect_eq "the workload's files are exact" \
	"$(jq_ "$WORK/adv" "all(r['exact'] for r in d['rules'] if r['file'] in ('$SEQ', '$SPARSE'))")" True

# within WHAT PREDICTED MEASURED PCT SLACK: |p - m| <= PCT % of m, or SLACK
within() {
	d=$(( $2 > $3 ? $2 - $3 : $3 - $2 ))
	if [ $(( d * 100 )) -le $(( $3 * $4 )) ] || [ $d -le "$5" ]; then
		ok "$1: predicted $2, measured $3"
	else
		fail "$1: predicted $2, measured $3 (more than $4 % or $5 apart)"
	fi
}

sect "advise --apply RECORD -- COMMAND: measured against the prediction"
echo 1 > $MMT/usefulness_enable
if "$CTL" advise --json --apply "$WORK/rec" -- "$@" > "$WORK/app" 2> "$WORK/err"; then
	ok "advise --apply: exit 0"
else
	fail "advise --apply: $(tail -n 2 "$WORK/err")"; exit 1
fi
expect_eq "advise --apply leaves no rule" "$(rules | wc -l)" 0
p=$(jq_ "$WORK/app" "d['advised']['faults']") m=$(jq_ "$WORK/app" "d['measured']['faults']")
within "advised policy: faults" "$p" "$m" 2 2
# a rule at order 0 still calls fault-around (narrowed to the page), as record's
p=$(jq_ "$WORK/app" "d['measured']['predicted_fault_around_calls']")
m=$(jq_ "$WORK/app" "d['measured']['fault_around_calls']")
within "advised policy: fault-around calls" "$p" "$m" 2 4
# usefulness can only miss pages (unjudged past an unmap's walk budget,
# unattributed, missed fault-arounds): replay's untouched is its ceiling
p=$(jq_ "$WORK/app" "d['advised']['untouched']") m=$(jq_ "$WORK/app" "d['measured']['untouched']")
echo "# untouched: predicted $p, measured $m; usefulness: $(grep -E '^(untouched|unattributed|unjudged|unmaps_cut|missed|reclaim_scanned):' $MMT/usefulness | tr -s ' \n' ' ')"
[ "$m" != None ] && [ "$m" -le "$p" ] && ok "advised policy: untouched pages measured ($m) no more than predicted ($p)" ||
	fail "advised policy: untouched pages: predicted $p, measured $m"
jq_ "$WORK/app" "'\n'.join('# %s: calls %s, untouched %s' % (r['file'], r['fault_around_calls'], r['untouched']) for r in d['measured']['rules'])"

echo 0 > $MMT/usefulness_enable

sect "usage"
expect_eq "advise without a record or command: exit 2" "$("$CTL" advise > /dev/null 2>&1; echo $?)" 2
expect_eq "advise --apply without a command: exit 2" "$("$CTL" advise --apply "$WORK/rec" > /dev/null 2>&1; echo $?)" 2
expect_eq "advise --budget -1: exit 2" "$("$CTL" advise --budget -1 "$WORK/rec" > /dev/null 2>&1; echo $?)" 2
expect_eq "advise of a directory: exit 1" "$("$CTL" advise "$WORK" > /dev/null 2>&1; echo $?)" 1
expect_eq "advise --budget 0: every file at order 0 or the rest's at 0" \
	"$("$CTL" advise --json --budget 0 "$WORK/rec" | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["advised"]["untouched"])')" 0
