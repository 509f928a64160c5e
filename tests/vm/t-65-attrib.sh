#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Whose pages (#44's smaller rows, by reading): usefulness's per-rule
# counts go to the rule of the process whose pages they are, and the live
# walk's search for processes is bounded.
#  - order 0 (6.1's kretprobe way): a process whose fault-arounds
#    alternate between a file under file=A order=auto:0 and one under
#    file=B order=1. Each order-0 call on A counts the process as one that
#    ran under the auto rule, so after 10 such processes the rule probes
#    order 1. It read the task's previous call's rule (B's): the rule
#    never heard of them and stayed at 0.
#  - untouched pages that another process unmaps (the test's shell
#    truncating the file a live faultprobe maps): for an auto rule, the
#    rule the process learned under; for a fixed rule, in no rule's count
#    but usefulness's unattributed. They went to the truncating shell's
#    rule (the default line).
#  - the live walk finds the processes of auto rules by pid, at most 256
#    under one RCU section (info policy_live_scan_rcu_max), with 300 more
#    processes than that, and still walks the auto rule's live process.
. "$(dirname "$0")/lib.sh"

PSZ=$(getconf PAGESIZE)
UE=$MMT/usefulness_enable
WORK=$(mktemp -d /var/tmp/mmt-attrib.XXXXXX)
HP='' SLEEPS=''
cleanup() {
	[ -n "$HP" ] && kill "$HP" 2> /dev/null
	# shellcheck disable=SC2086 # pids, split
	[ -n "$SLEEPS" ] && kill $SLEEPS 2> /dev/null
	wait 2> /dev/null
	[ -w $MMT/policy ] && echo clear > $MMT/policy 2> /dev/null
	rm -rf "$WORK"
	unload_module
}
on_exit cleanup
FP=$WORK/faultprobe
if [ -x "${MMT_PROBE:-}" ]; then cp "$MMT_PROBE" "$FP"; else
	cc -O2 -o "$FP" "$MMT_TOP/tests/vm/probe/faultprobe.c" || { fail "build faultprobe"; exit 1; }
fi
unload_module
load_module || { fail "insmod"; exit 1; }
if [ "$(info usefulness)" != available ]; then
	echo "# usefulness $(info usefulness): nothing to attribute here"
	exit 4
fi
MAX=$(info max_order)
echo "# max_order $MAX, usefulness_end $(info usefulness_end)"

# rf KEY FIELD: into $_v, FIELD's value on the policy line of the rule
# KEY (its text up to " #"), "default" for the default line, 0 if none;
# shell builtins only, called outside $(...): a forked shell's exit
# unmaps its copy of this one's old PTEs, which counts untouched
rf() {
	_v=0
	while IFS= read -r _l; do
		case $_l in
		"# default order="*) [ "$1" = default ] || continue ;;
		"$1 #"*) ;;
		*) continue ;;
		esac
		for _w in $_l; do
			case $_w in "$2="*) _v=${_w#*=} ;; esac
		done
	done < $MMT/policy
}
# ufv KEY: into $_v, the usefulness file's KEY, "" if none; builtins only
ufv() {
	_v=
	while read -r _k _x; do
		[ "$_k" = "$1:" ] && _v=$_x
	done < $MMT/usefulness
}
# hold_start FILE: a faultprobe of FILE, one page in 16 read, that lives on
hold_start() {
	rm -f "$WORK/hold" "$WORK/o"
	mkfifo "$WORK/hold"
	FAULTPROBE_STRIDE=16 FAULTPROBE_HOLD=$WORK/hold "$FP" "$1" > "$WORK/o" 2>&1 & HP=$!
	_n=0
	while ! grep -q '^pages' "$WORK/o" && kill -0 $HP 2> /dev/null && [ $_n -lt 300 ]; do
		sleep 0.1; _n=$((_n + 1))
	done
	grep -q '^pages' "$WORK/o"
}
# only RULE (a write that is "clear" has nothing else)
only() { pwrite "clear\n" && pwrite "$1\n"; }
hold_end() {
	: > "$WORK/hold"
	wait $HP
	HP=
}

sect "order 0 counts for this call's rule"
A=$WORK/a B=$WORK/b
dd if=/dev/zero of="$A" bs="$PSZ" count=64 2> /dev/null
dd if=/dev/zero of="$B" bs="$PSZ" count=256 2> /dev/null
# the rules before the measurement: the return probe's entry is then the
# later ftrace callback of filemap_map_pages, which ftrace calls first
check "rules: file=A order=auto:0, file=B order=1" pwrite "file=$A order=auto:0\nfile=$B order=1\n"
check "usefulness on" wr $UE 1
i=0
while [ $i -lt 11 ]; do
	FAULTPROBE_ALT=$B:2 "$FP" "$A" > "$WORK/o" 2>&1 || { fail "faultprobe: $(cat "$WORK/o")"; break; }
	i=$((i + 1))
done
sleep 1.3
echo "# after 11 runs: $(grep "^file=$A " $MMT/policy)"
rf "file=$A order=auto" auto_order; ao=$_v
rf "file=$A order=auto" raised
expect_eq "the auto rule heard of its order-0 processes: it probed order 1 (auto_order raised)" \
	"$ao $_v" "1 1"
check "usefulness off" wr $UE 0

sect "untouched pages another process unmaps"
C=$WORK/c
N=$((256 / 16 * 15))	# pre-mapped at order 4, one page in 16 read
for r in "auto:4" 4; do
	dd if=/dev/zero of="$C" bs="$PSZ" count=256 2> /dev/null
	check "rule comm=faultprobe order=$r" only "comm=faultprobe order=$r"
	check "usefulness on" wr $UE 1
	key="comm=faultprobe order=${r%:*}"
	hold_start "$C" || { fail "faultprobe: $(cat "$WORK/o")"; hold_end; continue; }
	# no fork from here to the last read: see rf
	rf "$key" prefaulted; p=$_v
	rf "$key" untouched; u0=$_v
	rf default untouched; d0=$_v
	ufv unattributed; a0=$_v
	: > "$C"	# the shell truncates the file: unmaps the probe's pages
	rf "$key" untouched; u=$((_v - u0))
	rf default untouched; d=$((_v - d0))
	ufv unattributed; a=$_v
	hold_end
	echo "# order=$r: the probe pre-mapped $p pages ($N of its file); at the truncate: the rule's untouched +$u, the default line's +$d, unattributed ${a0:-none} -> ${a:-none}"
	# large folios mapped whole (6.18+) pre-map more: at least N
	if [ "$r" = 4 ]; then
		da=$(( ${a:-0} - ${a0:-0} ))
		[ -n "$a" ] && [ $da -ge $((N * 9 / 10)) ] &&
			ok "fixed rule: its pages in unattributed (+$da of $N)" ||
			fail "fixed rule: unattributed '${a0:-none}' -> '${a:-none}', want +$N"
		[ $d -lt $((N / 2)) ] && ok "fixed rule: not the truncating shell's rule (default line +$d)" ||
			fail "fixed rule: the default line took $d of the $N pages: the truncating shell's rule"
	else
		[ $u -ge $((N * 9 / 10)) ] && ok "auto rule: the rule's untouched (+$u of $N)" ||
			fail "auto rule: the rule's untouched +$u, want +$N (the default line took $d)"
		expect_eq "auto rule: none unattributed" "${a:-none}" "${a0:-none}"
	fi
	check "usefulness off" wr $UE 0
done

sect "the live walk's search: by pid, at most 256 a RCU section"
SLEEPS=
i=0
while [ $i -lt 300 ]; do
	sleep 120 & SLEEPS="$SLEEPS $!"
	i=$((i + 1))
done
dd if=/dev/zero of="$C" bs="$PSZ" count=256 2> /dev/null
check "rule comm=faultprobe order=auto" only "comm=faultprobe order=auto"
check "usefulness on" wr $UE 1
s0=$(info policy_live_scanned) l0=$(info policy_live_passes)
hold_start "$C" || fail "faultprobe: $(cat "$WORK/o")"
sleep 3.5
procs=$(ls -d /proc/[0-9]* | wc -l)
s=$(( $(info policy_live_scanned) - ${s0:-0} )) l=$(( $(info policy_live_passes) - l0 ))
rm=$(info policy_live_scan_rcu_max)
hold_end
echo "# $procs processes: the live walk looked at $s pids in 3.5 s, at most ${rm:-?} under one RCU section; $l passes"
[ "${rm:-0}" -ge 1 ] && [ "$rm" -le 256 ] && ok "at most 256 pids under one RCU section ($rm)" ||
	fail "pids under one RCU section: '${rm:-none}', want 1..256"
[ "$s" -ge "$procs" ] 2> /dev/null && ok "a poll's search saw every process ($s pids looked at)" ||
	fail "the search looked at $s pids, $procs processes"
[ "$l" -ge 1 ] && ok "the held process was walked ($l passes)" || fail "no live pass of the held process"
# shellcheck disable=SC2086 # pids, split
kill $SLEEPS 2> /dev/null
wait 2> /dev/null
SLEEPS=
check "usefulness off" wr $UE 0
