#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/debug/guest.sh: the in-VM part of `make check-debug` (runs INSIDE the
# debug kernel's guest, as root; see tests/check-debug.sh).
#
#  1. every VM suite (tests/vm/guest.sh); MMT_DEBUG_SUITES=0 none, a list
#     of names ("t-10-knob t-20-stats") those only;
#  2. the storm: MMT_DEBUG_CYCLES (default 500) cycles of insmod, a policy
#     with comm=, pid= and cgroup= rules, stats_enable 1, pfn_valid mode
#     section, rmmod; faulting workloads, /proc/kpageflags scans and writers
#     on every knob run throughout; fault_around_bytes is checked after every
#     cycle against its value before the storm;
#  3. knobfuzz (tests/debug/knobfuzz.c, built static by the host) on every
#     writable debugfs file and the module parameter, MMT_DEBUG_FUZZ writes
#     each (default 10000);
#  4. memory blocks offlined and onlined MMT_DEBUG_HOTPLUG times (default 20)
#     under each pfn_valid mode the module offers, then the module's
#     cross-check over every pfn;
#  5. a kmemleak scan after the last unload; lockdep still on; the whole log
#     free of KASAN, lockdep, RCU, kmemleak, WARNING/BUG/Oops reports.
# MMT_DEBUG_PARTS="storm fuzz hotplug reports" (the default) picks parts 2-5.
# Prints KTAP (tests/lib.sh): the VM suites' documents, then one document
# per part ("debug: storm", ...), which the host counts, the dmesg
# verdict's, and last "mmtune-debug-done".

MMT_TOP=$(cd "$(dirname "$0")/../.." && pwd)
export MMT_TOP
. "$MMT_TOP/tests/vm/lib.sh"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

CYCLES=${MMT_DEBUG_CYCLES:-500}
FUZZ=${MMT_DEBUG_FUZZ:-10000}
HOTPLUG=${MMT_DEBUG_HOTPLUG:-20}
FUZZER=${MMT_DEBUG_FUZZER:-$MMT_TOP/tests/out/debug/knobfuzz}
KO=$MMT_TOP/module/mmtune.ko
MMS=$MMT_TOP/userspace/mmstress
FAB=$DBG/fault_around_bytes
WORK=/var/tmp/mmt-debug
CGR=/sys/fs/cgroup
CG=$CGR/mmt-debug
mkdir -p "$WORK"

mount_debugfs
echo "# debug guest: $(uname -r) $(nproc) cpus, $(awk '/MemTotal/ {print int($2/1024) " MiB"}' /proc/meminfo)"
# Leaks reported from here on are ours: forget what boot left.
if [ -w $DBG/kmemleak ]; then echo scan > $DBG/kmemleak; echo clear > $DBG/kmemleak; fi
mark="mmtune-debug: start $$.$RANDOM"
echo "$mark" > /dev/kmsg
t_all=$(date +%s)

# --- 1. every VM suite ----------------------------------------------------
case ${MMT_DEBUG_SUITES:-1} in
0) ;;
*)	suites=${MMT_DEBUG_SUITES:-1}
	[ "$suites" = 1 ] && suites=
	echo "# === the VM suites (tests/vm/guest.sh ${suites:-: all})"
	# shellcheck disable=SC2086 # a list of names
	bash "$MMT_TOP/tests/vm/guest.sh" $suites 2>&1 | grep -v '^dmesg| \|^mmtune-guest-done$' ;;
esac

# --- helpers --------------------------------------------------------------
# rmmod_retry: rmmod, retried while a knob writer holds a file open (EBUSY)
rmmod_retry() {
	local i
	for i in $(seq 1 200); do
		rmmod mmtune 2>/dev/null && return 0
		[ -d /sys/module/mmtune ] || return 0
		sleep 0.05
	done
	rmmod mmtune
}
# bg CMD...: run CMD in a loop in the background until $WORK/stop exists
BG=()
bg() { ( while [ ! -e "$WORK/stop" ]; do "$@" >/dev/null 2>&1; done ) & BG+=($!); }
stop_bg() { touch "$WORK/stop"; wait "${BG[@]}" 2>/dev/null; BG=(); rm -f "$WORK/stop" "$WORK/quiet"; }

# w FILE TEXT: write, errors ignored (the knob writers)
w() { printf '%s' "$2" > "$1" 2>/dev/null; }
knob_writer() {
	local m=$MMT o=$(( RANDOM % 6 ))
	# An open mmtune file holds a module reference: rmmod gets EBUSY (as it
	# should). The storm raises "quiet" for the instant of its rmmod,
	# and for its pfn_valid mode write.
	while [ -e "$WORK/quiet" ]; do sleep 0.05; done
	w "$m/fault_around_order" "$o"
	w /sys/module/mmtune/parameters/fault_around_order "$(( (o + 1) % 6 ))"
	w "$m/fault_around_order" "default"
	w "$m/fault_around_order" "99"
	w "$m/stats_enable" "$(( RANDOM % 2 ))"
	w "$m/latency_enable" "$(( RANDOM % 2 ))"
	w "$m/mapped_enable" "$(( RANDOM % 2 ))"
	w "$m/stats" "0"
	w "$m/policy" "comm=mmstress order=$(( RANDOM % 5 ))"
	w "$m/policy" "pid=999999999 order=1"
	w "$m/pfn_valid/mode" "off"
	w "$m/pfn_valid/mode" "stock"
	w "$m/pfn_valid/bench" "1000 rand"
	cat "$m/info" "$m/stats" "$m/latency" "$m/policy" "$m/pfn_valid/bench" \
		"$m/pfn_valid/mode" /sys/module/mmtune/parameters/fault_around_order
	sleep 0.2
}
kpf_scan() { dd if=/proc/kpageflags of=/dev/null bs=64k 2>/dev/null; sleep 0.5; }

setup_cgroup() {
	grep -q " $CGR cgroup2 " /proc/mounts || mount -t cgroup2 none $CGR 2>/dev/null
	mkdir -p "$CG" 2>/dev/null
	[ -d "$CG" ]
}

# --- 2. the storm ---------------------------------------------------------
storm() {
	local i fa0 fa bad_fa=0 bad_load=0 bad_pol=0 bad_st=0 bad_mode=0 bad_unload=0 bad_ev=0 t0 pid
	local TRACEFS=/sys/kernel/tracing TRE=/sys/kernel/tracing/events/mmtune
	mountpoint -q /sys/kernel/tracing || mount -t tracefs none /sys/kernel/tracing 2>/dev/null
	local modefail=""
	echo "# === storm: $CYCLES cycles"
	t0=$(date +%s)
	fa0=$(cat $FAB)
	setup_cgroup || { fail "storm: no cgroup2 at $CGR"; return; }
	# Faulting workloads: one matched by comm= (mmstress), one by pid=, one
	# in the cgroup; plus kpageflags scans and knob writers.
	bg "$MMS" seq --size 8M --touch page -q
	bg "$MMS" rand --size 8M -q
	( echo $BASHPID > "$CG/cgroup.procs"
	  while [ ! -e "$WORK/stop" ]; do "$MMS" seq --size 4M --touch page -q >/dev/null 2>&1; done ) &
	BG+=($!)
	pid=${BG[0]}
	bg kpf_scan
	bg knob_writer
	bg knob_writer
	# the first cycles are timed step by step (where a slow storm spends it)
	ts() { [ "$i" -le 3 ] && echo "# cycle $i: $1 $(( $(date +%s%N) / 1000000 - tc ))ms"; }
	for i in $(seq 1 "$CYCLES"); do
		tc=$(( $(date +%s%N) / 1000000 ))
		if ! insmod "$KO" 2>"$WORK/err"; then
			bad_load=$((bad_load + 1)); echo "# cycle $i: insmod: $(cat "$WORK/err")"
			continue
		fi
		env printf 'comm=mmstress order=1\npid=%s order=2\ncgroup=/mmt-debug order=3\n' "$pid" \
			> $MMT/policy 2>"$WORK/err" || { bad_pol=$((bad_pol + 1)); echo "# cycle $i: policy: $(cat "$WORK/err")"; }
		ts "insmod+policy"
		echo 1 > $MMT/stats_enable 2>"$WORK/err" || { bad_st=$((bad_st + 1)); echo "# cycle $i: stats_enable: $(cat "$WORK/err")"; }
		ts "stats_enable"
		# the trace events' first listener comes under tracefs's and
		# the tracepoints' mutexes, and ftrace takes the tracepoints'
		# under its own when a pid filter is first set (trace-cmd
		# record -F): lockdep sees both here, and a hook placed under
		# the tracepoints' mutex would close a cycle. Left on at every
		# other rmmod, so that their last listener goes after the
		# module's exit.
		if [ -d $TRE ]; then
			echo 1 > $TRE/enable 2>"$WORK/err" || { bad_ev=$((bad_ev + 1)); echo "# cycle $i: events: $(cat "$WORK/err")"; }
			echo $$ > $TRACEFS/set_ftrace_pid && : > $TRACEFS/set_ftrace_pid
			[ $((i % 2)) = 0 ] && echo 0 > $TRE/enable
		fi
		# The first mode write of a load runs the cross-check sweep over
		# every pfn, seconds with KASAN under TCG: the knob writers hold
		# off, so that their own writes' sweeps do not queue before it.
		touch "$WORK/quiet"
		if ! echo section > $MMT/pfn_valid/mode 2>"$WORK/err"; then
			bad_mode=$((bad_mode + 1)); modefail=$(cat "$WORK/err")
		fi
		rm -f "$WORK/quiet"
		ts "mode section"
		touch "$WORK/quiet"
		rmmod_retry 2>"$WORK/err" || { bad_unload=$((bad_unload + 1)); echo "# cycle $i: rmmod: $(cat "$WORK/err")"; }
		rm -f "$WORK/quiet"
		ts "rmmod"
		fa=$(cat $FAB)
		[ "$fa" = "$fa0" ] || { bad_fa=$((bad_fa + 1)); echo "# cycle $i: fault_around_bytes $fa, was $fa0"; }
		[ $((i % 50)) = 0 ] && echo "# storm: $i cycles, $(( $(date +%s) - t0 ))s"
	done
	stop_bg
	rmdir "$CG" 2>/dev/null
	expect_eq "storm: $CYCLES insmod" "$bad_load" 0
	expect_eq "storm: policy with comm=, pid=, cgroup= rules accepted every cycle" "$bad_pol" 0
	expect_eq "storm: stats_enable 1 every cycle" "$bad_st" 0
	expect_eq "storm: the trace events enabled every cycle" "$bad_ev" 0
	expect_eq "storm: pfn_valid mode section every cycle${modefail:+ ($modefail)}" "$bad_mode" 0
	expect_eq "storm: rmmod every cycle" "$bad_unload" 0
	expect_eq "storm: fault_around_bytes back to $fa0 after every cycle" "$bad_fa" 0
	echo "# storm: $CYCLES cycles in $(( $(date +%s) - t0 ))s"
}

# --- 3. the fuzzer --------------------------------------------------------
fuzz1() {
	local f=$1; shift
	if "$FUZZER" -n "$FUZZ" -j 4 "$@" "$f" > "$WORK/fuzz" 2>&1; then
		ok "fuzz $(tail -n 1 "$WORK/fuzz" | sed 's/^knobfuzz: //')"
	else
		fail "fuzz ${f#$DBG/}: $(grep -c . "$WORK/fuzz") lines: $(head -n 3 "$WORK/fuzz" | tr '\n' ' ')"
	fi
	grep -v '^knobfuzz: .* writes [0-9]* refused' "$WORK/fuzz" | sed 's/^/# /' | head -n 12
}
fuzz() {
	local t0 max orders="" o P=/sys/module/mmtune/parameters/fault_around_order
	echo "# === fuzz: $FUZZ writes per file"
	[ -x "$FUZZER" ] || { fail "fuzz: no $FUZZER"; return; }
	load_module || { fail "fuzz: insmod"; return; }
	t0=$(date +%s)
	max=$(awk '$1 == "max_order:" {print $2}' $MMT/info)
	for o in 0 1 $(( max / 2 )) "$max"; do orders="$orders -v $o=>$o"; done
	# shellcheck disable=SC2086
	fuzz1 $MMT/fault_around_order $orders -v "default\\n=>" -r 4
	# shellcheck disable=SC2086
	fuzz1 $P $orders -r 4
	fuzz1 $MMT/stats_enable -v "1=>1" -v "0\\n=>0" -r 0
	fuzz1 $MMT/latency_enable -v "0=>0" -v "1\\n=>1" -r 1 -e EBUSY
	fuzz1 $MMT/stats -N -v "0=>" -v "0\\n=>"
	fuzz1 $MMT/policy -s " hits=" -e ESRCH -e ENOENT -r clear \
		-v "comm=fz order=2=>comm=fz order=2" \
		-v "pid=1 order=1\\ncomm=x order=0\\n=>pid=1 order=1" -v "clear=># rules 0/"
	fuzz1 $MMT/pfn_valid/mode -e EOPNOTSUPP -r off \
		-v "off=>off" -v "stock\\n=>stock" -v "section=>section"
	fuzz1 $MMT/pfn_valid/bench -v "1000 rand=>pattern: rand" -v "64 seq\\n=>count: 64"
	unload_module
	echo "# fuzz: $(( $(date +%s) - t0 ))s"
}

# --- 4. memory offline/online under each pfn_valid mode --------------------
# The module's own cross-check: a bench over every pfn counts the pfns where a
# strategy disagrees with stock pfn_valid() or with pfn_to_online_page().
BENCH_N=0
crosscheck() {
	local tag=$1
	# The largest count the bench accepts here (it refuses runs over ~3 s).
	[ "$BENCH_N" -gt 0 ] || BENCH_N=$(( $(awk '/^MemTotal/ {print $2}' /proc/meminfo) / 2 ))
	until echo "$BENCH_N seq" > $MMT/pfn_valid/bench 2>"$WORK/err"; do
		BENCH_N=$((BENCH_N / 2))
		[ "$BENCH_N" -ge 1024 ] || { fail "$tag: bench seq refused: $(cat "$WORK/err")"; return; }
	done
	ktap_relay < <(awk -v tag="$tag" 'p && NF >= 8 { if ($7 != 0 || $8 != 0) { bad = bad " " $1 "=" $7 "/" $8 } ; n++ }
		/^impl / { p = 1 }
		/^count:/ { c = $2 }
		END { if (n && bad == "") print "ok - " tag ": " n " strategies agree at " c " pfns";
		      else print "not ok - " tag ": disagreements (impl=stock/online):" bad " (" n " rows)" }' \
		$MMT/pfn_valid/bench)
}
# info_crosscheck TAG: the module's running tally (the mode gate's sweep over
# every pfn and every bench since load) has no disagreement
info_crosscheck() {
	ktap_relay < <(awk -v tag="$1" '$1 == "pfn_valid_crosscheck:" { for (i = 2; i < NF; i += 2) { split($(i+1), a, "/"); if (a[1] != 0 || a[2] == 0) bad = bad " " $i "=" $(i+1) }
		print (bad == "" ? "ok - " : "not ok - ") tag ": no pfn disagreed (" $0 ")" bad }' $MMT/info)
}
# block_online BLOCK: back online, movable where the kernel allows it
block_online() {
	echo online_movable > "$1/state" 2>"$WORK/err" || echo online > "$1/state" 2>"$WORK/err"
}
hotplug() {
	local blocks=() b m modes i off=0 on=0 fails=0 offfail=0 t0
	echo "# === memory offline/online: $HOTPLUG rounds per mode"
	load_module || { fail "hotplug: insmod"; return; }
	t0=$(date +%s)
	# Two blocks that can go offline, from the top (movablecore= makes
	# ZONE_MOVABLE ones; some still hold boot-time allocations or a hole
	# and refuse). Not only those that read Movable now: t-30-pfn_valid,
	# before this, puts the block it offlines back online in ZONE_NORMAL,
	# where it still goes offline (2026-12-02: memory6, while memory7 held
	# the end of RAM and memory3 was busy). Each goes back online movable
	# where it can ("online" would put it in ZONE_NORMAL, where kernel
	# allocations soon pin it).
	for b in $(ls -d /sys/devices/system/memory/memory* | sort -rV); do
		[ ${#blocks[@]} -lt 2 ] || break
		[ "$(cat "$b/online" 2>/dev/null)" = 1 ] || continue
		[ "$(cat "$b/removable" 2>/dev/null)" = 0 ] && continue
		if echo 0 > "$b/online" 2>"$WORK/err"; then
			block_online "$b" && blocks+=("$b")
		else
			echo "# ${b##*/} stays online: $(sed 's/.*: //' "$WORK/err")"
		fi
	done
	[ ${#blocks[@]} -gt 0 ] || { fail "hotplug: no memory block goes offline (movablecore= missing?)"; unload_module; return; }
	echo "# hotplug: blocks ${blocks[*]##*/}"
	modes="off $(awk '$1 == "pfn_valid_impls:" {$1 = ""; print}' $MMT/info)"
	bg kpf_scan
	for m in $modes; do
		if ! echo "$m" > $MMT/pfn_valid/mode 2>"$WORK/err"; then
			fail "hotplug: mode $m: $(cat "$WORK/err")"; continue
		fi
		fails=0
		for i in $(seq 1 "$HOTPLUG"); do
			for b in "${blocks[@]}"; do
				if echo 0 > "$b/online" 2>"$WORK/err"; then
					off=$((off + 1))
					[ "$i" = 1 ] && crosscheck "mode $m, ${b##*/} offline: bench cross-check"
					block_online "$b" || { fails=$((fails + 1)); echo "# online ${b##*/}: $(cat "$WORK/err")"; }
					on=$((on + 1))
				else
					offfail=$((offfail + 1))
					[ "$offfail" -le 3 ] && echo "# offline ${b##*/} ($(cat "$b/valid_zones")): $(cat "$WORK/err")"
				fi
			done
		done
		expect_eq "hotplug: mode $m: $HOTPLUG rounds, every offlined block back online" "$fails" 0
		crosscheck "mode $m after offline/online: bench cross-check"
		# The mode gate's sweep compares every pfn with the kernel: run it
		# afresh (reload) with a block offline.
		b=${blocks[0]}
		if echo 0 > "$b/online" 2>/dev/null; then
			rmmod_retry; load_module
			if [ "$m" = off ] || echo "$m" > $MMT/pfn_valid/mode 2>"$WORK/err"; then
				[ "$m" = off ] && echo stock > $MMT/pfn_valid/mode 2>/dev/null
				info_crosscheck "mode $m, ${b##*/} offline, fresh load: sweep over every pfn"
			else
				fail "mode $m, ${b##*/} offline, fresh load: mode refused: $(cat "$WORK/err")"
			fi
			block_online "$b"
		fi
	done
	stop_bg
	[ "$off" -gt 0 ] && ok "hotplug: $off offlines, $on onlines ($offfail offline attempts refused)" || fail "hotplug: no block went offline ($offfail refused)"
	echo off > $MMT/pfn_valid/mode
	unload_module
	echo "# hotplug: $(( $(date +%s) - t0 ))s"
}

# --- 5. the verdicts --------------------------------------------------------
reports() {
	local leaks
	echo "# === reports"
	[ -d /sys/module/mmtune ] && rmmod_retry
	expect_eq "mmtune unloaded" "$([ -d /sys/module/mmtune ] && echo loaded || echo unloaded)" unloaded
	if [ -w $DBG/kmemleak ]; then
		echo scan > $DBG/kmemleak; sleep 5; echo scan > $DBG/kmemleak
		cat $DBG/kmemleak > "$WORK/kmemleak"
		leaks=$(grep -c '^unreferenced object' "$WORK/kmemleak")
		expect_eq "kmemleak: no unreferenced object after the last unload" "$leaks" 0
		sed 's/^/kmemleak| /' "$WORK/kmemleak" | head -n 200
	else
		fail "kmemleak: $DBG/kmemleak not writable (disabled at boot?)"
	fi
	expect_eq "lockdep still on (debug_locks)" \
		"$(awk '/debug_locks:/ {print $2}' /proc/lockdep_stats 2>/dev/null)" 1
	# since the mark (boot's own reports are the kernel's, not ours), or all
	# of it if the mark scrolled away
	dmesg > "$WORK/dmesg.all"
	if grep -qF "$mark" "$WORK/dmesg.all"; then
		awk -v m="$mark" 'on; index($0, m) { on = 1 }' "$WORK/dmesg.all" > "$WORK/dmesg.new"
		mv "$WORK/dmesg.new" "$WORK/dmesg.all"
	fi
	for r in 'KASAN' 'possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|lock held when returning|bad unlock balance|sleeping function called from invalid context|Invalid wait context|possible irq lock inversion|lockdep' \
		'rcu: INFO|detected stalls|self-detected stall|soft lockup|blocked for more than' 'kmemleak.*suspected memory leak' 'ODEBUG'; do
		n=$(grep -cE "$r" "$WORK/dmesg.all")
		# lockdep's own boot banner is no report
		[ "$r" != KASAN ] && n=$(grep -E "$r" "$WORK/dmesg.all" | grep -cvE 'Lock dependency validator|lockdep: (\.|Copyright)|per task-struct memory footprint|LOCKDEP_|class-cache|KASAN init|kasan: KernelAddressSanitizer initialized')
		[ "$r" = KASAN ] && n=$(grep -E "$r" "$WORK/dmesg.all" | grep -cv 'KernelAddressSanitizer initialized')
		expect_eq "kernel log: no report matching /${r:0:40}/" "$n" 0
	done
}

for part in ${MMT_DEBUG_PARTS:-storm fuzz hotplug reports}; do
	ktap_begin "debug: $part"
	"$part"
	ktap_end
done
echo "# debug guest: $(( $(date +%s) - t_all ))s"
dmesg_verdict "$mark"
echo mmtune-debug-done
