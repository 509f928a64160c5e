#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Trace events (docs/tracing.md): mmtune:fault_around,
# fault_around_mapped, order_change and auto_order (t-61-auto fires it)
# in tracefs with their fields; every
# order change and its source; the events between two trace markers equal
# the stats counters' deltas; two processes under two rules seen with the
# right order, rule and count (the rules' hits); a hist trigger; and, where
# the tools exist (the default VM and make check-trace's guests, not the
# matrix's busybox ones), perf list/stat/record, a bpftrace one-liner keyed
# by order, trace-cmd, and hyperfine and perf stat -r over mmtunectl run.
. "$(dirname "$0")/lib.sh"

TR=/sys/kernel/tracing
E=$TR/events/mmtune
POL=$MMT/policy
PSZ=$(getconf PAGESIZE)
WORK=$(mktemp -d /var/tmp/mmt-trace.XXXXXX)
HIST='hist:keys=comm,order,rule:vals=hitcount'
BG=""
cleanup() {
	for p in $BG; do kill "$p" 2>/dev/null; done
	tcg_all_cpus
	wait 2>/dev/null
	if [ -d $E ]; then
		echo "!$HIST" > $E/fault_around/trigger 2>/dev/null
		echo 0 > $E/enable 2>/dev/null
	fi
	hold_off
	[ -n "${FT_BG:-}" ] && { kill "$FT_BG" 2>/dev/null; wait "$FT_BG" 2>/dev/null; }
	[ -n "${FT_ON:-}" ] && echo nop > $TR/current_tracer 2>/dev/null
	[ -n "${ORIG:-}" ] && echo "$ORIG" > $DBG/fault_around_bytes
	unload_module
	rm -rf "$WORK"
}
on_exit cleanup

mountpoint -q $TR || mount -t tracefs none $TR 2>/dev/null
MMS=$MMT_TOP/userspace/mmstress
[ -x "$MMS" ] || { fail "no $MMS (make tools)"; exit 1; }
# Two copies: their comms (mmsa, mmsb) are what the rules match.
cp "$MMS" "$WORK/mmsa" && cp "$MMS" "$WORK/mmsb" || { fail "copy mmstress"; exit 1; }
# A file of our own, so the events' dev and ino can be checked.
F=$WORK/file
dd if=/dev/zero of="$F" bs=1M count=4 2>/dev/null
FDEV=$(stat -c '%Hd:%Ld' "$F") FINO=$(stat -c %i "$F")
seqrun() { "$WORK/$1" seq -s 4M -f "$F" -q > /dev/null; }

# An event's hook is placed by a kernel worker after its first listener
# comes, and the listener's enable does not wait for it (trace.c): checks
# that count from a workload's first call hold a listener of their own
# first, in a tracefs instance (trace-cmd's and the checks' resets of the
# top buffer's events leave it), and wait until it records. hold_on:
# that listener on both fault-path events, once its hook records;
# hold_off: gone. wait_hook NAME STATE: hook_NAME in info, within 10 s.
HOLD=$TR/instances/mmt-hold
hold_on() {
	mkdir -p $HOLD 2>/dev/null && echo 64 > $HOLD/buffer_size_kb &&
		echo 1 > $HOLD/events/mmtune/fault_around/enable &&
		echo 1 > $HOLD/events/mmtune/fault_around_mapped/enable ||
		{ fail "a tracefs instance listening to mmtune's events"; return 1; }
	for _ in $(seq 100); do
		"$MMS" seq -s 256K -f "$F" -q > /dev/null	# comm mmstress: no rule's
		grep -q ' fault_around: ' $HOLD/trace && return 0
		sleep 0.1
	done
	fail "the held listener's hook recorded nothing within 10 s"
}
hold_off() {
	[ -d $HOLD ] || return 0
	echo 0 > $HOLD/events/mmtune/enable 2>/dev/null
	rmdir $HOLD 2>/dev/null
}
wait_hook() {
	for _ in $(seq 100); do
		[ "$(info "hook_$1" | cut -d' ' -f1)" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

ORIG=$(cat $DBG/fault_around_bytes)
unload_module
load_module || { fail "insmod module/mmtune.ko"; exit 1; }

# --- the events and their fields
for ev in fault_around fault_around_mapped order_change auto_order; do
	[ -d $E/$ev ] && ok "tracefs has mmtune:$ev" || fail "tracefs lacks mmtune:$ev"
done
[ -d $E/fault_around ] || exit 1
for f in "pid_t pid" "char comm" "dev_t dev" "unsigned long ino" \
	 "unsigned long pgoff" "unsigned long req_start" "unsigned long req_end" \
	 "unsigned long start" "unsigned long end" "unsigned int order" "int rule"; do
	grep -q "field:${f}[;[]" $E/fault_around/format && ok "fault_around field $f" ||
		fail "fault_around lacks field $f"
done
for f in "unsigned int rule" "unsigned int old_order" "unsigned int new_order" \
	 "int useful" "u64 pages"; do
	grep -q "field:$f;" $E/auto_order/format 2>/dev/null && ok "auto_order field $f" ||
		fail "auto_order lacks field $f"
done

# --- order_change: one event per change, with its source
max=$(info max_order)
echo > $TR/trace
echo 1 > $E/order_change/enable
o0=$(order)
o1=$((o0 == 2 ? 3 : 2))
echo $o1 > $MMT/fault_around_order
echo $o0 > /sys/module/mmtune/parameters/fault_around_order
echo $((PSZ << o1)) > $DBG/fault_around_bytes
order > /dev/null			# mmtune notices the kernel's file
echo "comm=mmsa order=$max" > $POL
echo clear > $POL
echo 0 > $E/order_change/enable
oc() { grep -c "order_change: old=$1 new=$2 base=$3 source=$4\$" $TR/trace; }
expect_eq "order_change knob" "$(oc $o0 $o1 $o1 knob)" 1
expect_eq "order_change parameter" "$(oc $o1 $o0 $o0 parameter)" 1
expect_eq "order_change kernel_file" "$(oc $o0 $o1 $o1 kernel_file)" 1
expect_eq "order_change policy_raise" "$(oc $o1 $max $o1 policy_raise)" 1
expect_eq "order_change policy_restore" "$(oc $max $o1 $o1 policy_restore)" 1
expect_eq "order_change: no other event" "$(grep -c order_change: $TR/trace)" 5

# --- with nothing else on (no counters, no rules), a listener gets events:
# the event places its hook, and the last listener's leaving takes it back
# (the events used to ride on the counters' hooks: 0 events here)
hookst() { info "hook_$1" | cut -d' ' -f1; }
echo 0 > $MMT/stats_enable
echo 4 > $MMT/fault_around_order
expect_eq "no listener, nothing on: filemap_map_pages unhooked" "$(hookst filemap_map_pages)" off
o=4
echo > $TR/trace
echo 1 > $E/fault_around/enable
echo 1 > $E/fault_around_mapped/enable
wait_hook filemap_map_pages on
expect_eq "a listener: filemap_map_pages hooked" "$(hookst filemap_map_pages)" on
wait_hook set_pte on
expect_eq "a listener: the PTE setter hooked" "$(hookst set_pte)" on
seqrun mmsa
echo 0 > $E/fault_around/enable
echo 0 > $E/fault_around_mapped/enable
wait_hook filemap_map_pages off
wait_hook set_pte off
n=$(grep -c ' fault_around: .* comm=mmsa ' $TR/trace)
m=$(awk '/ fault_around_mapped: / { sub(/.*nr=/, ""); m += $0 } END { print m + 0 }' $TR/trace)
P=$(( $(stat -c %s "$F") / PSZ ))
[ "$n" -ge $(( P >> (o + 1) )) ] && [ "$n" -le "$P" ] &&
	ok "stats off, no rules: fault_around events ($n for $P pages at order $o)" ||
	fail "stats off, no rules: $n fault_around events for $P pages at order $o"
[ "$m" -gt 0 ] && ok "stats off, no rules: fault_around_mapped events ($m pages)" ||
	fail "stats off, no rules: no fault_around_mapped event"
expect_eq "the last listener gone: filemap_map_pages unhooked" "$(hookst filemap_map_pages)" off
expect_eq "the last listener gone: the PTE setter unhooked" "$(hookst set_pte)" off

# --- an enable or disable does not wait for ftrace (trace.c): while a task
# holds ftrace_lock (stallprobe: a set_ftrace_pid write whose buffer's page
# a userfaultfd holds back), the event's enable and disable return at
# once, and the hook comes or goes once ftrace is free. They used to wait
# for the worker, up to 10 s, under event_mutex and tracepoints_mutex,
# which every tracefs write, perf or BPF attach and module load takes.
STALL=${MMT_STALL:-$WORK/stallprobe}
[ -x "$STALL" ] || cc -O2 -pthread -o "$STALL" "$MMT_TOP/tests/vm/probe/stallprobe.c" 2> /dev/null
if [ ! -x "$STALL" ]; then
	skip "enable while ftrace is busy" "no stallprobe (no cc here)"
elif [ ! -w $TR/set_ftrace_pid ]; then
	skip "enable while ftrace is busy" "no set_ftrace_pid in this kernel"
else
	for v in 1 0; do
		st=off; [ $v = 1 ] && st=on
		r=$("$STALL" ftrace $TR/set_ftrace_pid $E/fault_around/enable $v 2> $WORK/stall.err)
		rc=$?
		if [ $rc = 3 ]; then
			skip "enable while ftrace is busy" "$(head -n 1 $WORK/stall.err)"
			break
		elif [ $rc != 0 ]; then
			fail "stallprobe ftrace: exit $rc: $(head -n 1 $WORK/stall.err)"
			break
		fi
		# write_us N held H
		set -- $r
		if [ "${4:-}" != 1 ]; then
			skip "enable while ftrace is busy" "ftrace_lock was not held throughout ($r)"
			wait_hook filemap_map_pages $st
			break
		fi
		[ "${2:-99999999}" -lt 1000000 ] &&
			ok "echo $v > enable returns while ftrace_lock is held (${2} us)" ||
			fail "echo $v > enable took ${2:-?} us while ftrace_lock was held"
		wait_hook filemap_map_pages $st &&
			ok "... and the hook is $st once ftrace is free" ||
			fail "... the hook is not $st 10 s after ftrace is free: $(info hook_filemap_map_pages)"
	done
	echo 0 > $E/fault_around/enable
	wait_hook filemap_map_pages off
fi

# --- events between two markers = the counters' deltas (all processes)
echo 4 > $MMT/fault_around_order
echo 1 > $MMT/mapped_enable	# the counters of the PTE setter's calls
echo 1 > $MMT/stats_enable
hold_on
echo 1 > $E/fault_around/enable
echo 1 > $E/fault_around_mapped/enable
for try in 1 2 3; do
	echo > $TR/trace
	stats_snap w			# warm: the next snaps run code already mapped
	echo mmt-start > $TR/trace_marker
	stats_snap a
	seqrun mmsa
	stats_snap b
	echo mmt-stop > $TR/trace_marker
	awk '/mmt-start/ { on = 1 } /mmt-stop/ { on = 0 }
		on && / fault_around: / { n++ }
		on && / fault_around_mapped: / { sub(/.*nr=/, ""); m += $0 }
		END { print n + 0, m + 0 }' $TR/trace > $WORK/cnt
	read -r n m < $WORK/cnt
	# shellcheck disable=SC2154 # set by stats_snap (tests/vm/lib.sh, eval)
	[ "$n" = $((bc - ac)) ] && [ "$m" = $((bm - am)) ] && break
	echo "# try $try: $n events vs $((bc - ac)) calls, $m pages vs $((bm - am))"
done
[ "$n" -gt 0 ] && ok "fault_around events seen ($n)" || fail "no fault_around event"
expect_eq "fault_around events = fault_around_calls delta" "$n" $((bc - ac))
expect_eq "fault_around_mapped nr sum = fault_around_pages_mapped delta" "$m" $((bm - am))
grep ' fault_around: ' $TR/trace | grep "comm=mmsa " > $WORK/a
l=$(grep -m1 "dev=$FDEV ino=$FINO " $WORK/a)
[ -n "$l" ] && ok "fault_around: the file's dev $FDEV and ino $FINO" ||
	fail "fault_around: no event with dev=$FDEV ino=$FINO: $(head -n 1 $WORK/a)"
expect_eq "fault_around without rules: order 4, rule -1" \
	"$(grep -vc ' order=4 rule=-1 ' $WORK/a)" 0
expect_eq "fault_around without rules: window = request" \
	"$(awk '{ for (i = 1; i <= NF; i++) { if ($i ~ /^req=/) r = substr($i, 5); if ($i ~ /^win=/) w = substr($i, 5) } if (r != w) n++ } END { print n + 0 }' $WORK/a)" 0
echo 0 > $E/enable
echo 0 > $MMT/stats_enable
echo 0 > $MMT/mapped_enable

# --- two processes under two rules: order, rule, window and count
# two_rules: the two rules again (their hits start at 0); hits NAME: a
# rule's. (one write: a second write to the file is EINVAL; printf(1) buffers)
two_rules() { env printf 'comm=mmsa order=2\ncomm=mmsb order=5\n' > $POL; }
hits() { sed -n "s/^comm=$1 order=[0-9]* #.* hits=\([0-9]*\).*/\1/p" $POL; }
echo > $TR/trace
two_rules
echo 1 > $E/fault_around/enable
seqrun mmsa; seqrun mmsb
echo 0 > $E/fault_around/enable
ha=$(hits mmsa) hb=$(hits mmsb)
[ "$ha" -gt 0 ] && [ "$hb" -gt 0 ] && ok "rules hit ($ha, $hb)" || fail "rules hit: $ha, $hb"
for c in "mmsa 2 0 $ha" "mmsb 5 1 $hb"; do
	set -- $c
	grep " fault_around: .* comm=$1 " $TR/trace > $WORK/r
	expect_eq "$1: events = its rule's hits" "$(grep -c . $WORK/r)" "$4"
	expect_eq "$1: every event order=$2 rule=$3" "$(grep -vc " order=$2 rule=$3 " $WORK/r)" 0
	# the window after the policy: inside the request, at most 2^order pages
	# (no ^ nor pow(): busybox awk may lack math)
	expect_eq "$1: window within request and 2^$2 pages" "$(awk -v p=$((1 << $2)) '{
		for (i = 1; i <= NF; i++) { if ($i ~ /^req=/) r = substr($i, 5); if ($i ~ /^win=/) w = substr($i, 5) }
		split(r, R, "-"); split(w, W, "-")
		if (W[1] < R[1] || W[2] > R[2] || W[2] - W[1] + 1 > p) n++ } END { print n + 0 }' $WORK/r)" 0
done

# --- a hist trigger, keyed by comm, order and rule
if [ -e $E/fault_around/hist ]; then
	two_rules
	echo "$HIST" > $E/fault_around/trigger
	seqrun mmsa; seqrun mmsb
	cat $E/fault_around/hist > $WORK/hist
	echo "!$HIST" > $E/fault_around/trigger
	# "{ comm: mmsa , order: 2, rule: 0 } hitcount: 64" (padded)
	hv() { awk -v c="$1" -v o="$2" '/^[{] comm:/ { gsub(/[{},]/, " ")
		if ($2 == c && $4 == o) print $NF }' $WORK/hist; }
	expect_eq "hist mmsa order 2 = rule hits" "$(hv mmsa 2)" "$(hits mmsa)"
	expect_eq "hist mmsb order 5 = rule hits" "$(hv mmsb 5)" "$(hits mmsb)"
else
	skip "hist trigger" "no CONFIG_HIST_TRIGGERS in this kernel"
fi

# --- perf
if command -v perf > /dev/null && perf version > /dev/null 2>&1; then
	expect_eq "perf list shows the 4 events" \
		"$(perf list 'mmtune:*' 2>/dev/null | grep -c 'mmtune:[a-z_]* *\[Tracepoint event\]')" 4
	two_rules
	perf stat -x, -e mmtune:fault_around -o $WORK/ps -- "$WORK/mmsa" seq -s 4M -f "$F" -q > /dev/null 2>&1
	expect_eq "perf stat -e mmtune:fault_around = the rule's hits" \
		"$(awk -F, '$3 == "mmtune:fault_around" { print $1 }' $WORK/ps)" "$(hits mmsa)"
	two_rules
	(cd $WORK && perf record -q -e mmtune:fault_around -o $WORK/pr -- "$WORK/mmsb" seq -s 4M -f "$F" -q > /dev/null 2>&1)
	expect_eq "perf record + script: events = the rule's hits" \
		"$(perf script -i $WORK/pr 2>/dev/null | grep -c 'mmtune:fault_around:.* order=5 rule=1 ')" "$(hits mmsb)"
else
	skip "perf list/stat/record" "no working perf here"
fi

# --- bpftrace: one map keyed by order sees two processes as two keys
if command -v bpftrace > /dev/null; then
	two_rules
	# "Attaching" comes before the probes are; output read back comes
	# after: wait for the interval probe's "ready"
	bpftrace -e 'tracepoint:mmtune:fault_around /comm == "mmsa" || comm == "mmsb"/ { @[args->order] = count(); }
		interval:ms:500 { printf("ready\n"); }' > $WORK/bt 2>&1 &
	BT=$!; BG="$BG $BT"
	for _ in $(seq 300); do grep -q ready $WORK/bt && break; kill -0 $BT 2>/dev/null || break; sleep 1; done
fi
# A bpftrace that cannot run on this kernel at all (not even a BEGIN
# probe, no event of mmtune's) is the tool's limit, not mmtune's: skipped
# with its error.
# So is a kernel with neither BTF nor headers (the debug kernel of make
# check-debug): bpftrace cannot type the event's pid_t and dev_t fields.
BTWHY=
if command -v bpftrace > /dev/null && ! grep -q ready $WORK/bt &&
   ! timeout 300 bpftrace -e 'BEGIN { printf("up\n"); exit(); }' > $WORK/btup 2>&1; then
	BTWHY="$(bpftrace --version 2>&1 | head -n 1) cannot run on $(uname -r): $(grep -v '^Attaching' $WORK/btup | head -n 2 | tr '\n' ' ')"
	echo "# bpftrace -e 'BEGIN { ... }':"; sed 's/^/# /' $WORK/btup | head -n 20
elif command -v bpftrace > /dev/null && ! grep -q ready $WORK/bt &&
     [ ! -e /sys/kernel/btf/vmlinux ] && [ ! -d "/lib/modules/$(uname -r)/build" ] &&
     grep -q 'missing type definitions' $WORK/bt; then
	BTWHY="$(uname -r) has no BTF and no headers: bpftrace cannot type the event's fields ($(grep -m 1 'error:' $WORK/bt | sed 's/.*error: //'))"
fi
if [ -n "$BTWHY" ]; then
	kill $BT 2>/dev/null; wait $BT 2>/dev/null
	skip "bpftrace one-liner" "$BTWHY"
elif command -v bpftrace > /dev/null; then
	seqrun mmsa; seqrun mmsb
	kill -INT $BT; wait $BT
	# the map as bpftrace prints it (make check-trace saves these lines)
	grep -v -e '^ready$' -e '^$' $WORK/bt | sed 's/^/# bpftrace| /'
	bt() { sed -n "s/^@\[$1\]: //p" $WORK/bt; }
	expect_eq "bpftrace @[2] = mmsa's rule hits" "$(bt 2)" "$(hits mmsa)"
	expect_eq "bpftrace @[5] = mmsb's rule hits" "$(bt 5)" "$(hits mmsb)"
	expect_eq "bpftrace: two keys" "$(grep -c '^@\[' $WORK/bt)" 2
else
	skip "bpftrace one-liner" "no bpftrace here"
fi

# --- trace-cmd
# record -F filters by pid: the kernel then hooks the scheduler's
# tracepoints, patching __schedule with text_poke_bp() while the other vCPU
# runs it. Under TCG a vCPU can go on running its stale translation of
# the int3 after the patching is done ("Oops: int3" at __schedule, seen on
# 7.3 x86_64; t-20-stats' toggles met the same): so under TCG trace-cmd
# runs with one CPU online, as those toggles do. The buffer is emptied
# first, with every CPU online: trace-cmd resets the online CPUs' alone, and
# it reads the offline one's too (the two rules' events of above were there).
echo > $TR/trace
command -v trace-cmd > /dev/null && tcg_one_cpu
if command -v trace-cmd > /dev/null; then
	two_rules
	(cd $WORK && trace-cmd record -q -b 4096 -e mmtune:fault_around -o $WORK/tc.dat -c -F "$WORK/mmsa" seq -s 4M -f "$F" -q > /dev/null 2>&1)
	trace-cmd report -i $WORK/tc.dat > $WORK/tc 2>&1
	n=$(grep -c 'fault_around:.* order=2 rule=0 ' $WORK/tc)
	[ "$n" = "$(hits mmsa)" ] || { echo "# trace-cmd report:"; head -n 5 $WORK/tc | sed 's/^/# /'; grep -i lost $WORK/tc | head -n 3 | sed 's/^/# /'; }
	expect_eq "trace-cmd record -c -F: events = the rule's hits" "$n" "$(hits mmsa)"
else
	skip "trace-cmd record" "no trace-cmd here"
fi
tcg_all_cpus
echo clear > $POL
hold_off

# --- filemap_map_pages shared with BPF: bpftrace's kfunc: and kretfunc:
# probes (BPF fentry and fexit: a BPF trampoline, the function's direct
# call, which calls the function itself for fexit) attach while a rule, the
# counters, the events and usefulness hold mmtune's hook, and before them;
# both count the same calls and the rule gives its faults. Before the hook
# was a plain ftrace ops by default, the first failed: "Error attaching
# probe: 'kfunc:vmlinux:filemap_map_pages'" (EBUSY: one direct caller a
# function, ours).
FPR=$WORK/fp/mmsa	# faultprobe, named as the rule's process
mkdir -p $WORK/fp
if [ -x "${MMT_PROBE:-}" ]; then cp "$MMT_PROBE" "$FPR"; else
	cc -O2 -o "$FPR" "$MMT_TOP/tests/vm/probe/faultprobe.c" 2>/dev/null
fi
P=$(( $(stat -c %s "$F") / PSZ ))
# bk_start: bpftrace counting mmsa's calls and returns, once it says it
# attached
bk_start() {
	bpftrace -e 'kfunc:filemap_map_pages /comm == "mmsa"/ { @calls = count(); }
		kretfunc:filemap_map_pages /comm == "mmsa"/ { @rets = count(); }
		interval:ms:500 { printf("ready\n"); }' > $WORK/bk 2>&1 &
	BK=$!; BG="$BG $BK"
	for _ in $(seq 300); do grep -q ready $WORK/bk && return 0; kill -0 $BK 2>/dev/null || break; sleep 1; done
	kill $BK 2>/dev/null; wait $BK 2>/dev/null
	return 1
}
bk_why() { grep -v -e '^Attaching' -e '^ready' $WORK/bk | head -n 2 | tr '\n' ' '; }
# all_on / all_off: a rule, the counters, the events, usefulness
all_on() {
	env printf 'comm=mmsa order=2\n' > $POL
	echo 1 > $MMT/mapped_enable; echo 1 > $MMT/stats_enable
	echo 1 > $E/enable
	echo 1 > $MMT/usefulness_enable 2>/dev/null
}
all_off() {
	echo clear > $POL
	echo 0 > $MMT/stats_enable; echo 0 > $MMT/mapped_enable
	echo 0 > $E/enable
	echo 0 > $MMT/usefulness_enable 2>/dev/null
}
# bk_round NAME: mmsa reads $F beside the probe: the probe's calls = the
# rule's hits, mmsa's faults those of order 2
bk_round() {
	case $(info hook_filemap_map_pages) in
	"on (ftrace filemap_map_pages"*) ok "$1: mmtune's hook is the ftrace ops" ;;
	*) fail "$1: $(info hook_filemap_map_pages)" ;;
	esac
	h0=$(hits mmsa)
	"$FPR" "$F" > $WORK/fpo
	kill -INT $BK; wait $BK
	h1=$(hits mmsa) n=$(sed -n 's/^@calls: //p' $WORK/bk)
	expect_eq "$1: bpftrace's calls = the rule's hits" "${n:-0}" $((h1 - h0))
	expect_eq "$1: bpftrace's returns (fexit) = its calls" "$(sed -n 's/^@rets: //p' $WORK/bk)" "${n:-0}"
	within "$1: the rule's faults (order 2)" "$(minflt $WORK/fpo)" $((P >> 2)) 10 4
}
if [ -n "$BTWHY" ] || ! command -v bpftrace > /dev/null; then
	skip "bpftrace kfunc:filemap_map_pages beside mmtune" "${BTWHY:-no bpftrace here}"
elif [ ! -x "$FPR" ]; then
	fail "build faultprobe"
else
	all_off
	expect_eq "nothing on: filemap_map_pages unhooked" "$(hookst filemap_map_pages)" off
	if ! bk_start; then
		# the kernel's own lack (no BTF, no BPF trampolines), with no
		# hook of ours there
		skip "bpftrace kfunc:filemap_map_pages beside mmtune" \
			"the kfunc probe does not attach with mmtune's hook off: $(bk_why)"
	else
		# bpftrace first, mmtune after
		all_on
		bk_round "bpftrace first"
		all_off
		# mmtune first, bpftrace after
		all_on
		if bk_start; then
			ok "mmtune first: bpftrace's kfunc probe attaches"
			bk_round "mmtune first"
		else
			fail "mmtune first: bpftrace's kfunc probe: $(bk_why)"
		fi
		all_off
	fi
fi

# --- mmtunectl run under hyperfine and perf stat -r (docs/tracing.md examples)
CTL=$MMT_TOP/userspace/mmtunectl
grep -q " /sys/fs/cgroup cgroup2 " /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
APP="$WORK/mmsa seq -s 1M -f $F -q"
if command -v hyperfine > /dev/null; then
	(cd $WORK && hyperfine -N --runs 2 --warmup 0 --style none \
		--export-json $WORK/hf.json --export-markdown $WORK/hf.md \
		-L o 0,4,$max "$CTL run --order {o} -- $APP" > $WORK/hf 2>&1)
	expect_eq "hyperfine -L o 0,4,$max 'mmtunectl run --order {o} -- app': exit status" $? 0
	# its table (make check-trace saves these lines)
	sed 's/^/# hyperfine| /' $WORK/hf.md
	expect_eq "hyperfine: 3 commands timed" "$(grep -c '"command":' $WORK/hf.json)" 3
	expect_eq "hyperfine: no rule left" "$(grep -cE '^(comm|pid|cgroup)=' $POL)" 0
else
	skip "hyperfine over mmtunectl run" "no hyperfine here"
fi
if command -v perf > /dev/null && perf version > /dev/null 2>&1; then
	# the app's fault-around calls, at order 0, 3 times
	perf stat -r 3 -e mmtune:fault_around -o $WORK/psr -- $CTL run --order 0 -- $APP > /dev/null 2>&1
	expect_eq "perf stat -r 3 mmtunectl run --order 0 -- app: exit status" $? 0
	grep -q "(3 runs)" $WORK/psr && ok "perf stat -r 3: 3 runs" || fail "perf stat -r 3: $(head -n 3 $WORK/psr | tr '\n' ' ')"
	expect_eq "perf stat -r: no rule left" "$(grep -cE '^(comm|pid|cgroup)=' $POL)" 0
else
	skip "perf stat -r over mmtunectl run" "no working perf here"
fi

# --- unload with an event enabled: the events go with the module
echo 1 > $E/order_change/enable
check "rmmod with order_change enabled" rmmod mmtune
[ ! -d $E ] && ok "events/mmtune gone after unload" || fail "events/mmtune left after unload"
