#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The lockdown-proof interface: the module's parameters (every tunable)
# and /sys/kernel/mm/mmtune/ (state and counters) agree with debugfs, then
# the kernel is locked down (integrity, as Debian does under Secure Boot)
# and every tunable, every counter and the tools still work while debugfs
# writes are refused.  Sorted last: lockdown cannot be lifted in a boot,
# and no module can be loaded after it (unsigned).
. "$(dirname "$0")/lib.sh"

LD=/sys/kernel/security/lockdown
PAR=/sys/module/mmtune/parameters
SYS=/sys/kernel/mm/mmtune
CTL=${MMT_TOOLS:-$MMT_TOP/userspace}/mmtunectl
WORK=$(mktemp -d /var/tmp/mmt-ld.XXXXXX)
on_exit 'rm -rf "$WORK"'

mountpoint -q /sys/kernel/security 2>/dev/null ||
	mount -t securityfs none /sys/kernel/security 2>/dev/null
if [ ! -e $LD ]; then
	echo "# no $LD: a kernel without the lockdown LSM (or no securityfs)"
	exit 4
fi
if ! grep -qw lockdown /sys/kernel/security/lsm 2>/dev/null; then
	echo "# lockdown is not in the LSM list: $(cat /sys/kernel/security/lsm 2>/dev/null)"
	exit 4
fi
if ! grep -q '\[none\]' $LD; then
	echo "# the kernel is locked down already ($(cat $LD)): no module can be loaded"
	exit 4
fi

sysv() { cat "$SYS/$1" 2>/dev/null; }
# stats line NAME of debugfs stats
dstat() { sed -n "s/^$1 //p" $MMT/stats; }
# a few thousand page faults: map a file and touch it
# page faults, file-backed ones among them: run a few programs
faults() { for _ in 1 2 3 4 5 6 7 8; do sh -c true; "$CTL" --help > /dev/null; done; }

unload_module
# --- a failed load leaves no /sys/kernel/mm/mmtune
if load_module policy="comm=x order=999" 2>/dev/null; then
	fail "a load with a bad policy= fails"; unload_module
else
	ok "a load with a bad policy= fails"
fi
check "no $SYS after the failed load" test ! -e $SYS

# --- parameters at load
check "insmod with stats_enable=1 latency_enable=0 mapped_enable=1 policy=2 rules" \
	load_module stats_enable=1 latency_enable=0 mapped_enable=1 'policy="comm=mmt-a order=1;comm=mmt-b order=0"'
expect_eq "stats_enable=1 at load" "$(cat $MMT/stats_enable)" 1
expect_eq "latency_enable=0 at load" "$(cat $MMT/latency_enable)" 0
expect_eq "mapped_enable=1 at load" "$(cat $MMT/mapped_enable)" 1
expect_eq "mapped_enable=1 at load: the PTE setter hooked" "$(info hook_set_pte | cut -d' ' -f1)" on
expect_eq "policy= at load: 2 rules" "$(sysv policy/rules)" 2
expect_eq "policy parameter reads the rules" "$(cat $PAR/policy | tr '\n' ';')" "comm=mmt-a order=1;comm=mmt-b order=0;"
check "info/sysfs is on" test "$(sysv info/sysfs)" = on
wr $PAR/stats_enable 0 > /dev/null
wr $PAR/policy clear > /dev/null
wr $PAR/latency_enable 1 > /dev/null

# --- before lockdown: the new files agree with debugfs
for k in version arch page_size ptrs_per_pte max_order default_order pfn_valid \
	 fault_around order base_order mapped_enable hook_set_pte pfn_valid_impls policy; do
	expect_eq "info/$k = debugfs info" "$(sysv info/$k)" "$(info $k)"
done
for k in fault_around_order stats_enable latency_enable mapped_enable; do
	expect_eq "parameter $k = debugfs" "$(cat $PAR/$k)" "$(cat $MMT/$k)"
done
expect_eq "parameter pfn_valid_mode = debugfs" "$(cat $PAR/pfn_valid_mode)" "$(cat $MMT/pfn_valid/mode)"
wr $PAR/stats_enable 1 > /dev/null
expect_eq "stats_enable through the parameter: debugfs says 1" "$(cat $MMT/stats_enable)" 1
faults
wr $PAR/stats_enable 0 > /dev/null
expect_eq "stats_enable 0 through the parameter" "$(cat $MMT/stats_enable)" 0
for c in faults fault_around_calls fault_around_pages_requested fault_around_pages_mapped; do
	expect_eq "stats/$c = debugfs stats" "$(sysv stats/$c)" "$(dstat $c)"
done
check "faults were counted" test "$(sysv stats/faults)" -gt 0
# Where the kernel refuses the return probe (6.12 riscv64) the histogram is
# unavailable: debugfs says so in its one line, and every sysfs file too.
LATOFF=off
if [ "$(sysv latency/state)" = unavailable ]; then
	LATOFF=unavailable
	check "debugfs latency: state unavailable alone" \
		test "$(grep -c . $MMT/latency)" = 1 -a -n "$(grep '^state: unavailable' $MMT/latency)"
	for f in fault_around_samples no_fault_around_samples fault_around_buckets missed; do
		expect_eq "latency/$f unavailable, as debugfs" "$(sysv latency/$f)" unavailable
	done
else
	sum=0
	for n in $(sysv latency/fault_around_buckets) $(sysv latency/no_fault_around_buckets); do sum=$((sum + n)); done
	expect_eq "latency buckets add up to the samples" "$sum" \
		"$(( $(sysv latency/fault_around_samples) + $(sysv latency/no_fault_around_samples) ))"
	expect_eq "latency/fault_around_samples = debugfs" "$(sysv latency/fault_around_samples)" \
		"$(sed -n 's/^fault_around_samples: //p' $MMT/latency)"
	expect_eq "latency/missed = debugfs" "$(sysv latency/missed)" "$(sed -n 's/^missed: //p' $MMT/latency)"
fi
expect_eq "mmtunectl stats: faults = debugfs" "$("$CTL" stats 2>/dev/null | awk '$1 == "faults" {print $2}')" "$(dstat faults)"
"$CTL" status > "$WORK/st" 2>&1
expect_eq "status: interface" "$(sed -n 's/^interface: *//p' "$WORK/st")" "parameters and $SYS"
expect_eq "status: lockdown none" "$(sed -n 's/^lockdown: *//p' "$WORK/st")" none

# --- lock down
if echo integrity > $LD 2>"$WORK/err"; then
	ok "lockdown: $(cat $LD)"
else
	fail "echo integrity > $LD: $(cat "$WORK/err")"
	exit 1
fi
# every debugfs file with a write bit is refused, reads included
if (echo 1 > $MMT/stats_enable) 2>/dev/null; then fail "debugfs write refused"; else ok "debugfs write refused"; fi
if cat $MMT/stats > /dev/null 2>&1; then fail "debugfs stats read refused"; else ok "debugfs stats read refused"; fi
# rss (0400) stays readable, every process; its selection, a write, is refused
head -n 1 $MMT/rss > "$WORK/rss" 2>&1
check "debugfs rss readable under lockdown" grep -q '^# available ' "$WORK/rss"
if (echo pid=1 > $MMT/rss) 2>/dev/null; then fail "debugfs rss selection refused"; else ok "debugfs rss selection refused"; fi
# where the module cannot walk page tables (# available 0) the tool says
# so and exits 1, under lockdown as before it
if grep -q '^# available 0 ' "$WORK/rss"; then
	"$CTL" rss $$ > "$WORK/rss" 2>&1
	r=$?
	if [ $r = 1 ] && grep -q 'rss: unavailable on this kernel/arch' "$WORK/rss"; then
		ok "mmtunectl rss PID under lockdown: unavailable here, says so (exit 1)"
	else
		fail "mmtunectl rss PID under lockdown, unavailable: exit $r: $(head -c 200 "$WORK/rss")"
	fi
elif "$CTL" rss $$ > "$WORK/rss" 2>&1 && grep -q "^ *$$ " "$WORK/rss"; then
	ok "mmtunectl rss PID under lockdown: every process read, PID kept"
else
	fail "mmtunectl rss PID under lockdown: $(head -c 200 "$WORK/rss")"
fi

# --- every tunable through its parameter
MAX=$(sysv info/max_order)
for o in 0 "$MAX" default; do
	check "fault_around_order $o" wr $PAR/fault_around_order $o
done
expect_eq "order default reads back" "$(cat $PAR/fault_around_order)" "$(sysv info/default_order)"
expect_einval "order out of range refused" $PAR/fault_around_order $((MAX + 1))
check "stats_enable 1" wr $PAR/stats_enable 1
expect_eq "stats_enable reads 1" "$(cat $PAR/stats_enable)" 1
check "latency_enable refused while stats are on" sh -c "! echo 0 > $PAR/latency_enable 2>/dev/null"
faults
check "faults counted under lockdown" test "$(sysv stats/faults)" -gt 0
check "stats_reset 1" wr $PAR/stats_reset 1
check "stats_enable 0" wr $PAR/stats_enable 0
check "latency_enable 0" wr $PAR/latency_enable 0
expect_eq "latency state $LATOFF" "$(sysv latency/state)" $LATOFF
check "latency_enable 1" wr $PAR/latency_enable 1
check "policy: a set of two" wr $PAR/policy "comm=mmt-a order=1
comm=mmt-b order=0"
check "policy: add" wr $PAR/policy "add comm=mmt-c order=2"
expect_eq "policy/rules 3" "$(sysv policy/rules)" 3
check "policy: del 1" wr $PAR/policy "del 1"
expect_eq "policy after del" "$(cat $PAR/policy | tr '\n' ';')" "comm=mmt-b order=0;comm=mmt-c order=2;"
expect_eq "policy/hits: one per rule" "$(sysv policy/hits | wc -w)" 2
expect_einval "policy: bad rule refused" $PAR/policy "add comm=x order=99"
expect_eq "policy unchanged by the bad rule" "$(sysv policy/rules)" 2
check "policy: clear" wr $PAR/policy clear
expect_eq "policy/rules 0" "$(sysv policy/rules)" 0
check "rules/edit: add" wr $SYS/rules/edit "add comm=mmt-d order=1"
expect_eq "rules/count 1, rules/0/match" "$(sysv rules/count) $(sysv rules/0/match)" "1 comm=mmt-d"
check "rules/edit: clear" wr $SYS/rules/edit clear
check "pfn_valid_mode off" wr $PAR/pfn_valid_mode off
expect_einval "pfn_valid_mode: unknown refused" $PAR/pfn_valid_mode nosuch
case $(sysv info/pfn_valid_override) in
pfn_to_online_page*)
	# sending pfn_valid's callers elsewhere changes the running kernel's
	# code: refused under lockdown (it used to be taken)
	check "pfn_valid_mode stock refused under lockdown" sh -c "! echo stock > $PAR/pfn_valid_mode 2>/dev/null"
	expect_eq "pfn_valid_mode still off" "$(cat $PAR/pfn_valid_mode)" off
	check "pfn_valid_mode off again" wr $PAR/pfn_valid_mode off ;;
*)	echo "# no pfn_valid override here: $(sysv info/pfn_valid_override)" ;;
esac
expect_eq "bench_pattern readable" "$(sysv pfn_valid/bench_pattern)" none
expect_eq "pfn_valid_bench parameter: no bench yet" "$(cat $PAR/pfn_valid_bench)" "pattern: none"
expect_einval "pfn_valid_bench: a bad pattern refused" $PAR/pfn_valid_bench "1000 nosuch"
expect_einval "pfn_valid_bench: count 0 refused" $PAR/pfn_valid_bench "0 seq"
expect_eq "pfn_valid_bench: nothing run by the refused writes" "$(sysv pfn_valid/bench_pattern)" none

# --- the tools
if "$CTL" stats > "$WORK/stats" 2>&1; then
	ok "mmtunectl stats under lockdown"
else
	fail "mmtunectl stats under lockdown: $(head -c 200 "$WORK/stats")"
fi
check "mmtunectl stats shows faults" grep -q '^faults' "$WORK/stats"
check "mmtunectl set stats_enable 1" "$CTL" set stats_enable 1
expect_eq "set went through the parameter" "$(cat $PAR/stats_enable)" 1
check "mmtunectl set stats_enable 0" "$CTL" set stats_enable 0
check "mmtunectl set fault_around_order 2" "$CTL" set fault_around_order 2
expect_eq "order 2" "$(cat $PAR/fault_around_order)" 2
"$CTL" status > "$WORK/st" 2>&1
expect_eq "status works (exit 0)" "$?" 0
expect_eq "status: interface under lockdown" "$(sed -n 's/^interface: *//p' "$WORK/st")" "parameters and $SYS"
expect_eq "status: lockdown integrity" "$(sed -n 's/^lockdown: *//p' "$WORK/st")" integrity
check "mmtunectl policy show" "$CTL" policy show
# pfn_valid: the bench runs the override's function too: refused under
# lockdown (it used to run), and show reads without debugfs
"$CTL" pfn_valid bench 4096 rand > "$WORK/pfv" 2>&1
r=$?
[ $r != 0 ] && ok "mmtunectl pfn_valid bench refused under lockdown (exit $r)" ||
	fail "mmtunectl pfn_valid bench ran under lockdown: $(head -c 200 "$WORK/pfv")"
expect_eq "no bench in sysfs" "$(sysv pfn_valid/bench_pattern)" none
"$CTL" pfn_valid show > "$WORK/pfs" 2>&1
expect_eq "mmtunectl pfn_valid show under lockdown (exit 0)" "$?" 0
check "pfn_valid show: info's impls" grep -q '^pfn_valid_impls ' "$WORK/pfs"
check "pfn_valid show: the mode" grep -Eq '^mode: +off$' "$WORK/pfs"
check "pfn_valid show: no bench" grep -q '^pattern: none$' "$WORK/pfs"
# an auto rule's order, learned or not, readable without debugfs
check "policy: an auto rule" wr $PAR/policy "comm=mmt-a order=2
comm=mmt-b order=auto"
expect_eq "policy/orders: each rule's, the auto one's its order now" \
	"$(sysv policy/orders)" "2 $(sysv info/base_order)"
"$CTL" policy show > "$WORK/pol" 2>&1
grep -Eq "^comm=mmt-b order=auto .* auto_order=$(sysv info/base_order)( |\$)" "$WORK/pol" &&
	ok "mmtunectl policy show: the auto rule's auto_order" ||
	fail "mmtunectl policy show: no auto_order: $(grep mmt-b "$WORK/pol")"
check "policy: clear the auto rule" wr $PAR/policy clear
# the tools' edits, one write of rules/edit each: there a ';' is the
# rule's own (a comm may hold one); the parameter would split the rule in
# two, and debugfs, which took such a rule before, is closed now
check "mmtunectl policy add under lockdown, a ';' in the comm" \
	"$CTL" policy add 'comm=mmt;c order=3'
expect_eq "rules/0/match: the rule as written" "$(sysv rules/0/match)" "comm=mmt;c"
expect_eq "rules/0/order" "$(sysv rules/0/order)" 3
check "mmtunectl policy del under lockdown" "$CTL" policy del 'comm=mmt;c'
expect_eq "rules/count: none left" "$(sysv rules/count)" 0
# a set longer than the parameter's page (32 rules of 200-byte paths):
# read from rules/N/, which has no page limit, with debugfs closed
long=/var/tmp/mmt-lock-$(printf '%0200d' 0)
for i in $(seq 1 32); do
	: > "$long-$i"
	wr $SYS/rules/edit "add file=$long-$i order=1" > /dev/null
done
expect_eq "32 long rules in" "$(sysv rules/count)" 32
"$CTL" policy show > "$WORK/pol" 2>&1
expect_eq "mmtunectl policy show of a set longer than a page (exit 0)" "$?" 0
expect_eq "policy show: all 32 rules" "$(grep -c "^file=$long-" "$WORK/pol")" 32
check "policy: clear the long rules" wr $PAR/policy clear
rm -f "$long"-*

# a BPF program under lockdown (docs/bpf.md): integrity refuses no part
# of loading, attaching or pinning a writable raw tracepoint program
case $(uname -m) in s390*) BO=bpfeb.o ;; *) BO=bpf.o ;; esac
OBJ=$MMT_TOP/examples/bpf/uid.$BO
if [ -f "$OBJ" ]; then
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
	check "policy: a rule whose calls the program sees" wr $SYS/rules/edit "add vma=exec order=1"
	check "mmtunectl bpf load under lockdown" "$CTL" bpf load "$OBJ" --map uid_order:0=0
	expect_eq "bpf/attached" "$(sysv bpf/attached)" 1
	faults
	[ "$(sysv bpf/calls)" -gt 0 ] && ok "bpf/calls: $(sysv bpf/calls) decided" ||
		fail "bpf/calls: none after a few programs ran"
	check "mmtunectl bpf unload under lockdown" "$CTL" bpf unload
	check "policy: clear the rule" wr $PAR/policy clear
else
	fail "no $OBJ (make bpf-examples)"
fi

check "rmmod under lockdown" rmmod mmtune
check "no $SYS after unload" test ! -e $SYS
