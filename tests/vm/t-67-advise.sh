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
on_exit replay_loud
[ -x "$CTL" ] && [ -x "$MMS" ] || { fail "no $CTL or $MMS (make tools)"; exit 1; }

need_cgroup2

unload_module
load_module || { fail "insmod"; exit 1; }
replay_quiet advise 200m
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

# jv FILE PATH: a value of the JSON document FILE (tests/lib.sh's
# json_get: the matrix's guests have no python3)
jv() { json_get "$@"; }
# rule_of FILE: the index of FILE's rule in $WORK/adv, empty if none
rule_of() { json_flat "$WORK/adv" | awk -v f="$1" '$1 ~ /^rules\.[0-9]+\.file$/ && substr($0, index($0, " ") + 1) == f { split($1, a, "."); print a[2]; exit }'; }

sect "advise -- COMMAND: record once, advise"
if "$CTL" advise --json --record "$WORK/rec" -- "$@" > "$WORK/adv" 2> "$WORK/err"; then
	ok "advise -- COMMAND: exit 0"
else
	fail "advise -- COMMAND: $(tail -n 2 "$WORK/err")"; exit 1
fi
"$CTL" advise "$WORK/rec" | sed 's/^/# /'
ord_of() {
	_i=$(rule_of "$1")
	if [ -n "$_i" ]; then jv "$WORK/adv" "rules.$_i.order"; else jv "$WORK/adv" rest.order; fi
}
os=$(ord_of "$SEQ") op=$(ord_of "$SPARSE")
echo "# advised: sequential file at $os, sparse file at $op, the rest at $(jv "$WORK/adv" rest.order)"
[ "$os" -ge 4 ] && ok "the sequential file at a high order ($os)" || fail "the sequential file at $os"
[ "$op" -le 1 ] && ok "the sparse file at a low order ($op)" || fail "the sparse file at $op"
au=$(jv "$WORK/adv" advised.untouched_kib) bk=$(jv "$WORK/adv" budget_kib)
[ "$au" -le "$bk" ] && ok "within the budget ($au KiB of $bk)" || fail "over the budget: $au KiB of $bk"
af=$(jv "$WORK/adv" advised.faults) bf=$(jv "$WORK/adv" best_single.faults)
[ "$af" -lt "$bf" ] && ok "fewer faults than the best single order within the budget ($af < $bf)" ||
	fail "advised $af faults, the best single order $bf"
echo "# advised $af faults, $au untouched KiB; best single order $(jv "$WORK/adv" best_single.order): $bf, $(jv "$WORK/adv" best_single.untouched_kib) KiB; current $(jv "$WORK/adv" current.order): $(jv "$WORK/adv" current.faults), $(jv "$WORK/adv" current.untouched_kib) KiB; order 0 $(jv "$WORK/adv" order_0.faults)"
ex=
for f in "$SEQ" "$SPARSE"; do
	_i=$(rule_of "$f")
	[ -z "$_i" ] || ex="$ex $(jv "$WORK/adv" "rules.$_i.exact")"
done
expect_eq "the workload's files with a rule are exact ($ex )" "$(for e in $ex; do [ "$e" = true ] || echo "$e"; done | wc -l)" 0


sect "advise --apply RECORD -- COMMAND: measured against the prediction"
echo 1 > $MMT/usefulness_enable
if "$CTL" advise --json --apply "$WORK/rec" -- "$@" > "$WORK/app" 2> "$WORK/err"; then
	ok "advise --apply: exit 0"
else
	fail "advise --apply: $(tail -n 2 "$WORK/err")"; exit 1
fi
expect_eq "advise --apply leaves no rule" "$(rules | wc -l)" 0
p=$(jv "$WORK/app" advised.faults) m=$(jv "$WORK/app" measured.faults)
within "advised policy: faults, predicted vs measured" "$p" "$m" 2 2
# a rule at order 0 still calls fault-around (narrowed to the page), as record's
p=$(jv "$WORK/app" measured.predicted_fault_around_calls)
m=$(jv "$WORK/app" measured.fault_around_calls)
within "advised policy: fault-around calls, predicted vs measured" "$p" "$m" 2 4
# usefulness can only miss pages (unjudged past an unmap's walk budget,
# unattributed, missed fault-arounds): replay's untouched is its ceiling
p=$(jv "$WORK/app" advised.untouched) m=$(jv "$WORK/app" measured.untouched)
echo "# untouched: predicted $p, measured $m; usefulness: $(grep -E '^(untouched|unattributed|unjudged|unmaps_cut|missed|reclaim_scanned):' $MMT/usefulness | tr -s ' \n' ' ')"
[ "$m" != null ] && [ "$m" -le "$p" ] && ok "advised policy: untouched pages measured ($m) no more than predicted ($p)" ||
	fail "advised policy: untouched pages: predicted $p, measured $m"
json_flat "$WORK/app" | awk '$1 ~ /^measured\.rules\.[0-9]+\./ { split($1, a, "."); v[a[3], a[4]] = substr($0, index($0, " ") + 1); if (a[3] + 1 > n) n = a[3] + 1 }
	END { for (i = 0; i < n; i++) printf "# %s: calls %s, untouched %s\n", v[i, "file"], v[i, "fault_around_calls"], v[i, "untouched"] }'

echo 0 > $MMT/usefulness_enable

sect "advise --pid: a process that runs now"
# faultprobe reads file A page by page and, after each, a page of B one
# page table apart (FAULTPROBE_ALT), then holds its mappings: A's windows
# are read whole, B's one page in 2^order. The live advice: B at order 0,
# A kept, from the rss file's pages (usefulness on before the reads).
PSZ=$(getconf PAGESIZE)
FP=$WORK/faultprobe
if [ -x "${MMT_PROBE:-}" ]; then cp "$MMT_PROBE" "$FP"; else
	cc -O2 -o "$FP" "$MMT_TOP/tests/vm/probe/faultprobe.c" -lpthread; fi
head -c $((1024 * PSZ)) /dev/zero > "$WORK/la"
head -c $((8 * PSZ * PSZ / 8)) /dev/zero > "$WORK/lb"
[ -p "$WORK/hold" ] || mkfifo "$WORK/hold"
echo 1 > $MMT/usefulness_enable
rm -f "$WORK/o"
FAULTPROBE_ALT=$WORK/lb:$((PSZ / 8)) FAULTPROBE_HOLD=$WORK/hold "$FP" "$WORK/la" > "$WORK/o" 2>&1 & lp=$!
n=0
while ! [ -s "$WORK/o" ] && [ $n -lt 150 ]; do sleep 0.2; n=$((n + 1)); done
"$CTL" advise --pid $lp --json > "$WORK/live" 2> "$WORK/err"
expect_eq "advise --pid: exit 0" "$?" 0
"$CTL" advise --pid $lp | sed 's/^/# /'
# lorder PATH: the advised order of PATH's row ("null": keep)
lorder() { json_flat "$WORK/live" | awk -v f="$1" '$1 ~ /^files\.[0-9]+\.file$/ && substr($0, index($0, " ") + 1) == f { split($1, a, "."); k = a[2] } $1 == "files." k ".order" && k != "" { print $2; exit }'; }
expect_eq "advise --pid: the file read one page a table at order 0" "$(lorder "$WORK/lb")" 0
expect_eq "advise --pid: the file read whole kept" "$(lorder "$WORK/la")" null
fk=$(jv "$WORK/live" freed_kib)
[ "${fk:-0}" -gt 0 ] && ok "advise --pid: order 0 maps $fk KiB less ahead" || fail "advise --pid: freed_kib '$fk'"
echo > "$WORK/hold"; wait $lp
echo 0 > $MMT/usefulness_enable
expect_eq "advise --pid of no process: exit 1" "$("$CTL" advise --pid 999999 > /dev/null 2>&1; echo $?)" 1

sect "usage"
expect_eq "advise without a record or command: exit 2" "$("$CTL" advise > /dev/null 2>&1; echo $?)" 2
expect_eq "advise --apply without a command: exit 2" "$("$CTL" advise --apply "$WORK/rec" > /dev/null 2>&1; echo $?)" 2
expect_eq "advise --budget -1: exit 2" "$("$CTL" advise --budget -1 "$WORK/rec" > /dev/null 2>&1; echo $?)" 2
expect_eq "advise of a directory: exit 1" "$("$CTL" advise "$WORK" > /dev/null 2>&1; echo $?)" 1
expect_eq "advise --budget 0: every file at order 0 or the rest's at 0" \
	"$("$CTL" advise --json --budget 0 "$WORK/rec" > "$WORK/b0"; jv "$WORK/b0" advised.untouched)" 0
