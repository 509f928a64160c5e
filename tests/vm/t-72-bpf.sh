#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The BPF decision point (docs/bpf.md): bpf/ at load; each example of
# examples/bpf loaded with mmtunectl bpf and the faults it should give,
# counted by faultprobe (a page a read of a file on tmpfs, the mapping
# aligned to a page table): range (half a file at order 0), uid (user
# 65534 at order 0), startup (order 0 for a process's first 3 s), learn
# (a sequential reader climbs to the rule's order, a stride-2 reader
# stays at 0); an order above the rule's refused; one program at a time;
# rmmod refused while a program is attached; a program while the rules
# change and usefulness learns; a non-root load refused.
. "$(dirname "$0")/lib.sh"

CTL=$MMT_TOP/userspace/mmtunectl
SB=/sys/kernel/mm/mmtune/bpf
WORK=$(mktemp -d /var/tmp/mmt-bpf.XXXXXX)
SHM=$WORK/shm
PIN=/sys/fs/bpf/mmtune_order
cleanup() {
	"$CTL" bpf unload > /dev/null 2>&1
	rm -f "$PIN"
	[ -w $MMT/policy ] && echo clear > $MMT/policy 2>/dev/null
	unload_module
	umount "$SHM" 2>/dev/null
	rm -rf "$WORK"
}
on_exit cleanup
[ -x "$CTL" ] || { fail "no $CTL (make tools)"; exit 1; }

# the examples as this machine's byte order wants them (make bpf-examples)
case $(uname -m) in s390*) EXT=bpfeb.o ;; *) EXT=bpf.o ;; esac
EX=$MMT_TOP/examples/bpf
for p in range uid startup learn; do
	[ -f "$EX/$p.$EXT" ] || { fail "no $EX/$p.$EXT (make bpf-examples)"; exit 1; }
done
FP=$WORK/faultprobe
if [ -x "${MMT_PROBE:-}" ]; then cp "$MMT_PROBE" "$FP"; else
	cc -O2 -o "$FP" "$MMT_TOP/tests/vm/probe/faultprobe.c" || { fail "build faultprobe"; exit 1; }
fi
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf || { fail "mount bpffs"; exit 1; }

unload_module
load_module || { fail "insmod"; exit 1; }
PSZ=$(getconf PAGESIZE)
DEF=$(info default_order)
PAGES=2048
mkdir -p "$SHM"
mount -t tmpfs -o size=64m,huge=never mmt-bpf "$SHM" || { fail "tmpfs"; exit 1; }
F=$SHM/f
dd if=/dev/zero of="$F" bs="$PSZ" count=$PAGES status=none
INO=$(stat -c %i "$F")

# faults N [ENV...]: faultprobe's faults over $F (or $FILE)
faults() { env "$@" "$FP" "${FILE:-$F}" | { read -r _ _ _ m _; echo "$m"; }; }
sb() { cat "$SB/$1"; }
load() { "$CTL" bpf load "$EX/$1.$EXT" "${@:2}" > "$WORK/load.out" 2>&1; }

sect "bpf/ at load"
expect_eq "nothing attached" "$(sb attached) $(sb calls) $(sb refused)" "0 0 0"
case $(sb tracepoint) in
mmtune_order | mmtune_order_tp) ok "tracepoint: $(sb tracepoint)" ;;
*) fail "tracepoint: '$(sb tracepoint)'" ;;
esac
expect_eq "decisions: one count per order 0..max_order" \
	"$(sb decisions | wc -w)" "$(( $(info max_order) + 1 ))"
grep -q "^attached: 0" $MMT/bpf && ok "debugfs bpf" || fail "debugfs bpf: $(cat $MMT/bpf)"

sect "range: half the file at order 0"
check "rule file=\$F order=$DEF" pwrite "file=$F order=$DEF"
within "no program: the rule's order" "$(faults)" $((PAGES >> DEF)) 2 2
half=$((PAGES / 2))
check "load range" load range --map "range:1=$INO" --map "range:2=0" \
	--map "range:3=$((half - 1))" --map "range:4=0" --map "range:5=$DEF"
expect_eq "attached" "$(sb attached)" 1
within "range: first half a fault a page, the rest at $DEF" "$(faults)" \
	$((half + (half >> DEF))) 2 2
read -r d0 _ < "$SB/decisions"
within "decisions at order 0: the first half's calls" "$d0" $half 2 2
"$CTL" bpf status > "$WORK/st" 2>&1 && grep -q "attached" "$WORK/st" &&
	ok "mmtunectl bpf status" || fail "bpf status: $(cat "$WORK/st")"
"$CTL" status > "$WORK/st" 2>&1 && grep -q "^bpf: *attached, [1-9][0-9]* calls decided" "$WORK/st" &&
	ok "mmtunectl status: attached" || fail "status: $(grep bpf "$WORK/st")"
"$CTL" policy > "$WORK/st" 2>&1 && grep -q "^# a BPF program lowers these orders" "$WORK/st" &&
	ok "mmtunectl policy: says a program decides" || fail "policy: $(cat "$WORK/st")"
"$CTL" stats --prometheus > "$WORK/st" 2>&1
grep -q '^mmtune_bpf_attached 1$' "$WORK/st" && grep -q '^mmtune_bpf_decisions_total{order="0"} [1-9]' "$WORK/st" &&
	ok "stats --prometheus: attached, decisions by order" || fail "prometheus: $(grep bpf "$WORK/st")"
if load uid; then fail "a second program loaded"; else
	grep -q "unload" "$WORK/load.out" && ok "one program at a time: $(head -1 "$WORK/load.out")" ||
		fail "second load: $(cat "$WORK/load.out")"
fi
if rmmod mmtune 2> "$WORK/rm"; then
	fail "rmmod with a program attached succeeded"
	load_module
else
	ok "rmmod refused while attached: $(cat "$WORK/rm")"
fi
check "unload" "$CTL" bpf unload
expect_eq "detached" "$(sb attached)" 0
within "unloaded: the rule's order again" "$(faults)" $((PAGES >> DEF)) 2 2

sect "an order above the rule's is refused"
O1=$(( DEF < 2 ? DEF : 2 ))
check "rule order=$O1" pwrite "file=$F order=$O1"
r0=$(sb refused)
check "load range asking 0 and 4294967295" load range --map "range:1=$INO" --map "range:2=0" \
	--map "range:3=$((half - 1))" --map "range:4=0" --map "range:5=4294967295"
within "the second half at the rule's order $O1" "$(faults)" $((half + (half >> O1))) 2 2
within "refused: the second half's calls" $(( $(sb refused) - r0 )) $((half >> O1)) 2 2
check "unload" "$CTL" bpf unload

sect "uid: user 65534 at order 0"
check "rule file=\$F order=$DEF" pwrite "file=$F order=$DEF"
check "load uid" load uid --map "uid_order:65534=0"
chmod 755 "$WORK" "$FP"
within "root: the rule's order" "$(faults)" $((PAGES >> DEF)) 2 2
within "uid 65534 (faultprobe's FAULTPROBE_UID): a fault a page" "$(faults FAULTPROBE_UID=65534)" $PAGES 2 2
check "unload" "$CTL" bpf unload
if setpriv --reuid=65534 --regid=65534 --clear-groups true 2> /dev/null; then
	if setpriv --reuid=65534 --regid=65534 --clear-groups "$CTL" bpf load "$EX/uid.$EXT" \
		> "$WORK/nr" 2>&1; then fail "a non-root load succeeded"
	else
		grep -qi "permi\|root" "$WORK/nr" && ok "non-root load refused: $(head -1 "$WORK/nr")" ||
			fail "non-root load: $(cat "$WORK/nr")"
	fi
	expect_eq "nothing attached after it" "$(sb attached)" 0
else
	skip "non-root load" "no setpriv --reuid here"
fi

sect "startup: order 0 for a process's first 3 s"
check "load startup" load startup --map "cfg:0=3"
within "a new process: a fault a page" "$(faults)" $PAGES 2 2
mkfifo "$WORK/go"
FAULTPROBE_GO=$WORK/go "$FP" "$F" > "$WORK/late" & pid=$!
exec 3> "$WORK/go"
sleep 4
exec 3>&-
wait "$pid"
read -r _ _ _ m _ < "$WORK/late"
within "after 3 s: the rule's order" "$m" $((PAGES >> DEF)) 2 2
check "unload" "$CTL" bpf unload

sect "learn: each file earns its order"
A=$SHM/a B=$SHM/b
cp "$F" "$A"; cp "$F" "$B"
check "rules for a and b at $DEF" pwrite "file=$A order=$DEF\nfile=$B order=$DEF"
check "load learn" load learn
m=$(FILE=$A faults)
within "a sequential reader climbs to $DEF in $DEF calls" "$m" $(( (PAGES >> DEF) + DEF )) 2 2
m=$(FILE=$B faults FAULTPROBE_STRIDE=2)
within "a stride-2 reader stays at 0: a fault a read" "$m" $((PAGES / 2)) 2 2
check "unload" "$CTL" bpf unload
m=$(FILE=$B faults FAULTPROBE_STRIDE=2)
within "stride-2 without it: the rule's order" "$m" $((PAGES >> DEF)) 2 2

sect "a program while the rules change and usefulness learns"
check "load learn" load learn
[ -w $MMT/usefulness_enable ] && echo 1 > $MMT/usefulness_enable
for i in $(seq 10); do
	pwrite "file=$A order=$((i % (DEF + 1)))\ncomm=x$i order=auto" > /dev/null
	faults > /dev/null
	FILE=$B faults FAULTPROBE_STRIDE=2 > /dev/null
done
[ -w $MMT/usefulness_enable ] && echo 0 > $MMT/usefulness_enable
ok "10 rule sets under the program: $(sb calls) calls decided"
check "clear" pwrite clear
check "unload" "$CTL" bpf unload
check "rmmod once detached" rmmod mmtune
