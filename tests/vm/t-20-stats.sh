#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Counters and hooks: stats_enable registers and removes every
# hook, the counters agree with the kernel's and the workload's own fault
# counts, reset, latency, and 100 toggles under load (30 in the
# matrix: MMT_TOGGLES). A light matrix cell counts over 32768 pages of
# file instead of 256 MiB (65536 pages of 4 KiB).
. "$(dirname "$0")/lib.sh"

TR=/sys/kernel/tracing
WORK=$(mktemp -d /var/tmp/mmt-stats.XXXXXX)
BG=""
cleanup() {
	for p in $BG; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	tcg_all_cpus
	umount "$WORK/shm" 2>/dev/null
	rm -rf "$WORK"
}
on_exit cleanup

mountpoint -q $TR || mount -t tracefs none $TR 2>/dev/null
stat_of() { sed -n "s/^$1 //p" $MMT/stats; }

# Can this kernel kretprobe handle_mm_fault at all?  Asked of tracefs,
# without mmtune.  Not where ftrace's call is the function's first
# instruction and kprobes cannot share it (no KPROBES_ON_FTRACE: Debian's
# riscv64): there the latency histogram is unavailable, and says so.
NOLAT=
if [ -w $TR/kprobe_events ]; then
	if echo 'r:t20lat handle_mm_fault' >> $TR/kprobe_events 2>/dev/null; then
		echo '-:t20lat' >> $TR/kprobe_events
	else
		NOLAT="the kernel refuses any kretprobe on handle_mm_fault (tracefs kprobe_events too)"
	fi
fi

# Anything of mmtune's in ftrace or kprobes: print it (empty: nothing).
registered() {
	grep -E 'mmtune|^(handle_mm_fault|filemap_map_pages|do_set_pte|set_pte_range) ' \
		$TR/enabled_functions 2>/dev/null
	grep -E 'mmtune|handle_mm_fault|filemap_map_pages|do_set_pte|set_pte_range' \
		$DBG/kprobes/list 2>/dev/null
}
expect_unregistered() {
	r=$(registered)
	if [ -z "$r" ]; then ok "$1: nothing registered"; else
		fail "$1: still registered: $(echo "$r" | head -n 1)"; fi
}



unload_module
expect_unregistered "before load"
if ! load_module; then
	fail "insmod module/mmtune.ko"
	exit 1
fi

# --- files, defaults, bad input
for f in stats:600 stats_enable:600 latency_enable:600 mapped_enable:600 latency:400; do
	expect_eq "${f%:*} mode" "$(stat -c %a $MMT/${f%:*} 2>&1)" "${f#*:}"
done
expect_eq "stats_enable off by default" "$(cat $MMT/stats_enable)" 0
expect_eq "latency_enable on by default" "$(cat $MMT/latency_enable)" 1
expect_eq "mapped_enable off by default" "$(cat $MMT/mapped_enable)" 0
expect_unregistered "loaded, stats off"
for h in filemap_map_pages set_pte handle_mm_fault_return; do
	expect_eq "info hook_$h off" "$(info hook_$h | cut -d' ' -f1)" off
done
expect_eq "info: no handle_mm_fault entry hook (faults are the kernel's count)" \
	"$(grep -c '^hook_handle_mm_fault:' $MMT/info)" 0
for c in faults fault_around_calls fault_around_pages_requested \
	 fault_around_pages_mapped; do
	[ -n "$(stat_of $c)" ] && ok "stats has $c" || fail "stats lacks $c"
done
for bad in 2 on "" "1 " 01 -1; do expect_einval $MMT/stats_enable "$bad"; done
for bad in 1 x ""; do expect_einval $MMT/stats "$bad"; done
for bad in 2 on "" "1 " 01 -1; do expect_einval $MMT/mapped_enable "$bad"; done
expect_eq "bad writes leave stats off" "$(cat $MMT/stats_enable)" 0
expect_eq "bad writes leave mapped_enable 0" "$(cat $MMT/mapped_enable)" 0

# --- on with the defaults (mapped_enable 0): no per-page hook
setter_hooked() {
	grep -qE '^(do_set_pte|set_pte_range) ' $TR/enabled_functions 2>/dev/null
}
echo 1 > $MMT/stats_enable
expect_eq "mapped_enable 0: fault_around_pages_mapped reads off" \
	"$(stat_of fault_around_pages_mapped)" off
case $(info hook_set_pte) in
off*"mapped_enable is 0"*) ok "mapped_enable 0: hook_set_pte off, says why" ;;
unavailable*) skip "mapped_enable 0: hook_set_pte" "$(info hook_set_pte)" ;;
*) fail "mapped_enable 0: hook_set_pte: $(info hook_set_pte)" ;;
esac
setter_hooked && fail "mapped_enable 0: the PTE setter is in enabled_functions" ||
	ok "mapped_enable 0: the PTE setter is not hooked"
if echo 1 > $MMT/mapped_enable 2>/dev/null; then
	fail "mapped_enable writable while stats are on"
else
	ok "mapped_enable refused while stats are on"
fi
echo 0 > $MMT/stats_enable
expect_unregistered "stats_enable 0 (mapped_enable 0)"
echo 1 > $MMT/mapped_enable
expect_eq "mapped_enable 1 while stats are off" "$(cat $MMT/mapped_enable)" 1

# --- on: every hook placed, self-tested, visible to ftrace and kprobes
echo 1 > $MMT/stats_enable
expect_eq "stats_enable reads 1" "$(cat $MMT/stats_enable)" 1
for h in filemap_map_pages set_pte handle_mm_fault_return; do
	s=$(info hook_$h)
	case $h:$s in
	handle_mm_fault_return:unavailable*) [ -n "$NOLAT" ] && skip "hook_$h: $s" "$NOLAT" ||
		fail "hook_$h: $s" ;;
	*:on*) ok "hook_$h: $s" ;;
	*) fail "hook_$h: $s" ;;
	esac
done
expect_eq "ftrace arguments verified" "$(info hook_args)" "read+write verified"
ftraced filemap_map_pages &&
	ok "filemap_map_pages in enabled_functions" ||
	fail "filemap_map_pages not in enabled_functions: $(grep -A1 '^filemap_map_pages ' $TR/enabled_functions | tr '\n\t' '  ')"
if [ -n "$NOLAT" ]; then
	skip "handle_mm_fault kretprobe in kprobes/list" "$NOLAT"
else
	grep -q 'handle_mm_fault' $DBG/kprobes/list &&
		ok "handle_mm_fault kretprobe in kprobes/list" ||
		fail "no handle_mm_fault kretprobe in kprobes/list"
fi
if echo 0 > $MMT/latency_enable 2>/dev/null; then
	fail "latency_enable writable while stats are on"
else
	ok "latency_enable refused while stats are on"
fi

# --- counting against the kernel and the workload
mkdir "$WORK/shm"
mount -t tmpfs -o size=300m,huge=never mmt "$WORK/shm"
F=$WORK/shm/f
# 256 MiB; a light cell (MMT_LIGHT=1): 32768 pages, no more than 256 MiB
# (the same counters and paths, half the order-0 faults under the
# kretprobe on 4 KiB pages: CI's time). Not fewer: the probe's own
# start-up (60 fault-around calls on 6.1 arm64) must stay within the
# checks' 5 % at order 4
MB=256
if [ "${MMT_LIGHT:-0}" = 1 ]; then
	MB=$(( 32768 * $(getconf PAGESIZE) >> 20 ))
	[ "$MB" -le 256 ] || MB=256
fi
dd if=/dev/zero of="$F" bs=1M count=$MB status=none
PROBE=${MMT_PROBE:-$WORK/faultprobe}
[ -x "$PROBE" ] || cc -O2 -o "$PROBE" "$MMT_TOP/tests/vm/probe/faultprobe.c" ||
	fail "build faultprobe"
ORIG_ORDER=$(cat $MMT/fault_around_order)

# probe_run: one run of the probe between two snapshots (a, b); its
# output in $@.  vmstat's pgfault counts the arch's fault entries, the
# module's faults handle_mm_fault's calls: a run where they differ by more
# than 2 % (7.x s390x in CI: 4167 against 4276, once) is run again, up to
# three times; the checks below judge the last run.
probe_run() {
	for _t in 1 2 3; do
		stats_snap a
		_out=$("$PROBE" "$F")
		stats_snap b
		# shellcheck disable=SC2154 # set by stats_snap (tests/vm/lib.sh, eval)
		_f=$((bf - af)) _p=$((bp - ap))
		[ $(( (_f > _p ? _f - _p : _p - _f) * 100 )) -le $(( _p * 2 )) ] && break
		echo "# run $_t: faults $_f, pgfault $_p: again"
	done
}

# order 0: no fault-around at all; every page one fault
echo 0 > $MMT/fault_around_order
echo 0 > $MMT/stats
probe_run
set -- $_out
pages=$2 minflt=$4
within "order 0: faults = /proc/vmstat pgfault delta" $((bf - af)) $((bp - ap)) 2
# slack for the probe's own start-up faults, not proportional to the
# file: 40-110 seen, 2.7 % of 6.12 ppc64le-64k's 4096 pages once (4205
# against 4096 in a CI rehearsal)
within "order 0: faults = the workload's minor faults" $((bf - af)) "$minflt" 2 128
# shellcheck disable=SC2154 # set by stats_snap (tests/vm/lib.sh, eval)
expect_eq "order 0: no fault_around_calls" $((bc - ac)) 0

for k in 2 4; do
	echo $k > $MMT/fault_around_order
	probe_run
	set -- $_out
	minflt=$4
	# shellcheck disable=SC2154 # set by stats_snap (tests/vm/lib.sh, eval)
	f=$((bf - af)) c=$((bc - ac)) r=$((br - ar)) m=$((bm - am))
	within "order $k: faults = /proc/vmstat pgfault delta" $f $((bp - ap)) 2
	within "order $k: fault_around_calls = the workload's faults" $c "$minflt" 5
	within "order $k: requested per call = 2^$k" \
		"$(awk -v r=$r -v c=$c 'BEGIN { printf "%.2f", c ? r / c : 0 }')" $((1 << k)) 5
	[ $m -le $r ] && ok "order $k: mapped <= requested ($m <= $r)" ||
		fail "order $k: mapped $m > requested $r"
	within "order $k: mapped = the file's pages (all cached)" $m "$pages" 5
done
echo "$ORIG_ORDER" > $MMT/fault_around_order

# --- latency: readable, sums agree, rows well formed
lat=$WORK/latency
cat $MMT/latency > $lat
if [ -n "$NOLAT" ]; then
expect_eq "latency state where $NOLAT" "$(sed -n 's/^state: //p' $lat)" \
	"unavailable (see info: hook_handle_mm_fault_return)"
skip "latency samples and rows" "$NOLAT"
else
expect_eq "latency state" "$(sed -n 's/^state: //p' $lat)" on
fa=$(sed -n 's/^fault_around_samples: //p' $lat)
nofa=$(sed -n 's/^no_fault_around_samples: //p' $lat)
[ "${fa:-0}" -gt 0 ] && [ "${nofa:-0}" -gt 0 ] &&
	ok "latency has both kinds of faults ($fa, $nofa)" ||
	fail "latency samples: fault_around '$fa', no_fault_around '$nofa'"
sums=$(awk '/^#/ || /:/ { next }
	    NF != 4 || $0 ~ /[^0-9 ]/ { bad++ }
	    { a += $3; b += $4 } END { print bad + 0, a + 0, b + 0 }' $lat)
expect_eq "latency rows: 4 integers each, columns sum to the totals" "$sums" "0 $fa $nofa"
# no fault of 0 ns: a clock difference that is not positive (the clock did
# not advance, or the fault ended on a CPU whose clock is behind) is no
# time, counted in untimed and in no bucket (it used to be clamped to 0
# and shown as faults of 0..1 ns, in Prometheus' le="1e-09" too)
u=$(sed -n 's/^untimed: //p' $lat)
[ -n "$u" ] && ok "latency: untimed ($u) counted apart" || fail "latency: no untimed line"
expect_eq "latency: no fault in the 0..1 ns bucket" \
	"$(awk '/^#/ || /:/ { next } $1 == 0 { print $3 + $4 }' $lat)" ""
fi	# NOLAT

# --- reset: with the hooks off nothing moves, so everything reads 0
echo 0 > $MMT/stats_enable
expect_eq "stats_enable reads 0" "$(cat $MMT/stats_enable)" 0
expect_unregistered "stats_enable 0"
echo 0 > $MMT/stats
expect_eq "reset zeroes every counter" "$(awk '{ s += $2 } END { print s + 0 }' $MMT/stats)" 0
[ -n "$NOLAT" ] && skip "reset zeroes the histogram" "$NOLAT" ||
expect_eq "reset zeroes the histogram" \
	"$(sed -n 's/^\(fault_around_samples\|no_fault_around_samples\|unclassified\|missed\|untimed\): //p' $MMT/latency | tr '\n' ' ')" \
	"0 0 0 0 0 "
"$PROBE" "$F" > /dev/null
expect_eq "off: counters do not move" "$(awk '{ s += $2 } END { print s + 0 }' $MMT/stats)" 0

# --- counters only (latency_enable 0): no kretprobe
echo 0 > $MMT/latency_enable
echo 1 > $MMT/stats_enable
grep -q handle_mm_fault $DBG/kprobes/list 2>/dev/null &&
	fail "latency_enable 0: a kretprobe is registered" ||
	ok "latency_enable 0: no kretprobe"
ftraced handle_mm_fault &&
	fail "latency_enable 0: handle_mm_fault in enabled_functions" ||
	ok "latency_enable 0: nothing on handle_mm_fault (faults: the kernel's count)"
echo 0 > $MMT/stats
stats_snap a
"$PROBE" "$F" > /dev/null
stats_snap b
within "latency_enable 0: faults = pgfault delta" $((bf - af)) $((bp - ap)) 2
echo 0 > $MMT/stats_enable
echo 1 > $MMT/latency_enable

# --- 100 toggles while two processes fault and another writes the order
# ($MMT_TOGGLES: 30 in the matrix's cells, CI's time; make check runs
# 100, check-debug's storm toggles under KASAN)
TOGGLES=${MMT_TOGGLES:-100}
# hooks unavailable before them (this arch's or kernel's: map_pages_return
# where no accessed-bit clear exists) stay out of it
unavail_before=$(grep '^hook_.*unavailable' $MMT/info | cut -d: -f1)
# Under TCG the toggles run with one CPU online (tcg_one_cpu, whose
# comment says why): the faulters, the knob writer and the toggler still
# preempt one another, but only one vCPU executes kernel text.
tcg_one_cpu
dd if=/dev/zero of="$WORK/shm/small" bs=1M count=8 status=none
faulter() { while :; do "$PROBE" "$WORK/shm/small" > /dev/null; done; }
knob() {
	while :; do
		for o in 0 3 1 4 2; do
			echo $o > $MMT/fault_around_order
			sleep 0.02
		done
	done
}
faulter & BG="$BG $!"
faulter & BG="$BG $!"
knob & BG="$BG $!"
t0=$(date +%s)
bad=0
i=0
while [ $i -lt $TOGGLES ]; do
	# every other round without the kretprobe: both hook sets toggle
	echo $((i % 2)) > $MMT/latency_enable || bad=$((bad + 1))
	echo 1 > $MMT/stats_enable || bad=$((bad + 1))
	echo 0 > $MMT/stats_enable || bad=$((bad + 1))
	i=$((i + 1))
done
for p in $BG; do kill "$p"; done
wait 2>/dev/null
BG=""
tcg_all_cpus
echo 1 > $MMT/latency_enable
echo "# $TOGGLES toggles: $(( $(date +%s) - t0 ))s"
expect_eq "toggles under load: every write succeeded" $bad 0
expect_eq "after the toggles stats_enable reads 0" "$(cat $MMT/stats_enable)" 0
expect_unregistered "after the toggles"
skipped='^$'	# the latency hook, where the kernel refuses it
[ -n "$NOLAT" ] && skipped='^hook_handle_mm_fault_return'
n=$(grep '^hook_.*unavailable' $MMT/info | grep -v "$skipped" | cut -d: -f1 |
	grep -cvxF "${unavail_before:-^}")
expect_eq "no hook became unavailable under the toggles" "$n" 0
echo "$ORIG_ORDER" > $MMT/fault_around_order

# --- unload with the hooks on removes them
echo 1 > $MMT/stats_enable
check "rmmod with stats on" rmmod mmtune
expect_unregistered "after rmmod"

# --- stats_reset=1 at load: nothing to reset yet (the counters did not
# exist), so the counts start at zero, not at whatever the reset read
check "load with stats_reset=1" load_module stats_reset=1 stats_enable=1
cat /bin/sh > /dev/null
c=$(stat_of fault_around_calls)
[ "${c:-x}" -ge 0 ] 2>/dev/null && [ "$c" -lt 1000000 ] &&
	ok "stats_reset=1 at load: sane counts (fault_around_calls $c)" ||
	fail "stats_reset=1 at load: fault_around_calls '$c'"
check "stats_reset=1 once loaded" sh -c "echo 1 > /sys/module/mmtune/parameters/stats_reset"
unload_module
