#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Per-process fault-around policy and autotune: comm=, pid= and
# cgroup= rules seen by an independent probe while an unmatched one runs at
# the same time, the kernel's size raised and restored, bad rules rejected
# atomically, the global order changed under rules, rules with stats on and
# off, the EOF probe under rules, `mmtunectl policy show | load` round trip,
# unload; `mmtunectl tune` on mmstress seq and sparse, --apply, Ctrl-C
# (t-45-tune: tune's cgroup, run).  Small sizes: TCG is slow.
. "$(dirname "$0")/lib.sh"

PSZ=$(getconf PAGESIZE)
KFA=$DBG/fault_around_bytes
WORK=$(mktemp -d /var/tmp/mmt-pol.XXXXXX)
SHM=$WORK/shm
CG=
BG=""
cleanup() {
	for p in $BG; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "$CG" ] && { rmdir "$CG/sub" "$CG" 2>/dev/null; }
	umount "$WORK/ram" 2>/dev/null
	umount "$SHM" 2>/dev/null
	rm -rf "$WORK"
	[ -n "${ORIG:-}" ] && echo "$ORIG" > $KFA
	unload_module
}
on_exit cleanup

CTL=$MMT_TOP/userspace/mmtunectl
MMS=$MMT_TOP/userspace/mmstress
POL=$MMT/policy
for b in "$CTL" "$MMS"; do
	[ -x "$b" ] || { fail "no $b (make tools)"; exit 1; }
done

# Two copies of the rig's probe: fpolicy0 (matched by comm=) and faultprobe.
FP=$WORK/faultprobe
FPM=$WORK/fpolicy0
if [ -x "${MMT_PROBE:-}" ]; then cp "$MMT_PROBE" "$FP"; else
	cc -O2 -o "$FP" "$MMT_TOP/tests/vm/probe/faultprobe.c" || { fail "build faultprobe"; exit 1; }
fi
cp "$FP" "$FPM"
FLIP=${MMT_FLIP:-$WORK/policyflip}
[ -x "$FLIP" ] || cc -O2 -o "$FLIP" "$MMT_TOP/tests/vm/probe/policyflip.c" ||
	{ fail "build policyflip"; exit 1; }

mkdir "$SHM"
mount -t tmpfs -o size=400m,huge=never mmt-pol "$SHM"
F=$SHM/f			# 32 MiB: 8192 pages with 4 KiB pages
dd if=/dev/zero of="$F" bs=1M count=32 status=none
# Processes that run at the same time read files of their own: on one file
# a page another process holds locked is skipped by fault-around
# (folio_trylock) and faulted again, 5-40 % more faults under TCG.
FU=$SHM/fu; FC=$SHM/fc
cp "$F" "$FU"; cp "$F" "$FC"
PAGES=$(( $(stat -c %s "$F") / PSZ ))

unload_module
ORIG=$(cat $KFA)
load_module || { fail "insmod"; exit 1; }
MAX=$(info max_order)
DEF=$(info default_order)
hdr() { sed -n "s/^# $1 order=\([0-9]*\).*/\1/p" $POL; }
# ctr MATCH hits|pages: a rule's counter ("default" for unmatched faults)
ctr() {
	if [ "$1" = default ]; then sed -n "s/^# default .*$2=\([0-9-]*\).*/\1/p" $POL
	else grep "^$1 " $POL | sed -n "s/.*$2=\([0-9-]*\).*/\1/p"; fi
}
# snap: SNAP="rule|rule|/order", with builtins only
snap() {
	SNAP=""
	while IFS= read -r _l; do
		case $_l in '#'*) ;; *) SNAP="$SNAP${_l%% #*}|" ;; esac
	done < $POL
	read -r _l < $MMT/fault_around_order
	SNAP="$SNAP/$_l"
}

echo "$DEF" > $MMT/fault_around_order
expect_eq "policy mode" "$(stat -c %a $POL)" 600
expect_eq "info: policy on" "$(info policy)" on
expect_eq "no rules at load" "$(rules)" ""
expect_eq "no rules: default = kernel's order" "$(hdr default)" "$DEF"

# --- 1. comm=: two processes at once, 16x apart at order 0 vs 4
sect "1. comm= rule, matched and unmatched probe at the same time"
check "write comm=fpolicy0 order=0" pwrite "comm=fpolicy0 order=0\n"
expect_eq "rule reads back" "$(rules)" "comm=fpolicy0 order=0"
expect_eq "kernel order stays at the default ($DEF)" "$(order)" "$DEF"
expect_eq "info: policy_rules" "$(info policy_rules)" 1
"$FPM" "$F" > "$WORK/m" & a=$!
"$FP" "$FU" > "$WORK/u" & b=$!
wait $a $b
m=$(minflt "$WORK/m"); u=$(minflt "$WORK/u")
within "comm=fpolicy0 order=0: one fault per page" "$m" "$PAGES" 2
within "unmatched probe at the same time: pages/2^$DEF" "$u" $((PAGES >> DEF)) 5
# a real quotient: shell arithmetic truncates (8192/513 is 15.97, not 15)
within "ratio matched/unmatched = 2^$DEF" \
	"$(awk -v m="$m" -v u="$u" 'BEGIN { printf "%.2f", m / (u ? u : 1) }')" $((1 << DEF)) 6
# hits also count the probe's startup (exec, ld.so, libc, stack): ~150 on
# x86_64, a constant, so a slack rather than a wider percentage
STARTUP=256
within "rule hits = its faults" "$(ctr comm=fpolicy0 hits)" "$m" 2 $STARTUP
d=$(ctr default hits)
[ "${d:-0}" -ge "$u" ] && ok "default hits count the unmatched faults ($d >= $u)" ||
	fail "default hits: got '$d', want >= $u"
expect_eq "pages not counted with stats off" "$(ctr comm=fpolicy0 pages)" "-"
# comm= is the process's name (its leader's): a renamed worker thread
# reads for fpolicy0, and its own name matches nothing (a JVM's readers)
"$FPM" "$F" 0 reader > "$WORK/m"
within "comm=fpolicy0: its thread named 'reader' at order 0" "$(minflt "$WORK/m")" "$PAGES" 2 16
check "write comm=reader order=0" pwrite "comm=reader order=0"
"$FPM" "$F" 0 reader > "$WORK/m"
within "comm=reader: a thread's own name matches no rule" "$(minflt "$WORK/m")" $((PAGES >> DEF)) 5 16
check "back to comm=fpolicy0 order=0" pwrite "comm=fpolicy0 order=0"

# --- 2. a rule above the default raises the kernel's size, unmatched unchanged
sect "2. order max: kernel raised, unmatched still at the default"
check "write comm=fpolicy0 order=$MAX" pwrite "comm=fpolicy0 order=$MAX"
expect_eq "kernel order raised to $MAX" "$(cat $KFA)" $((PSZ << MAX))
expect_eq "kernel order shown" "$(hdr kernel)" "$MAX"
expect_eq "fault_around_order reads the base under rules" "$(order)" "$DEF"
expect_eq "default order shown" "$(hdr default)" "$DEF"
expect_eq "info: policy_default_order" "$(info policy_default_order)" "$DEF"
"$FPM" "$F" > "$WORK/m" & a=$!
"$FP" "$FU" > "$WORK/u" & b=$!
wait $a $b
within "matched at order $MAX: pages/2^$MAX" "$(minflt "$WORK/m")" $((PAGES >> MAX)) 25
within "unmatched at the same time: pages/2^$DEF" "$(minflt "$WORK/u")" $((PAGES >> DEF)) 5

# --- 3. first match wins; read output can be written back
sect "3. first match wins, read-back round trip"
check "two rules" pwrite "comm=fpolicy0 order=1\ncomm=fpolicy0 order=3\n"
"$FPM" "$F" > "$WORK/m"
within "first of two matching rules (order 1)" "$(minflt "$WORK/m")" $((PAGES >> 1)) 2
cat $POL > "$WORK/saved"
check "clear" pwrite "clear"
expect_eq "clear: no rules" "$(rules)" ""
check "write back what was read" sh -c "cat '$WORK/saved' > $POL"
expect_eq "round trip keeps the rules" "$(rules | tr '\n' '|')" \
	"comm=fpolicy0 order=1|comm=fpolicy0 order=3|"

# --- 4. pid=: a process held until its rule is in
sect "4. pid= rule"
mkfifo "$WORK/go"
sh -c "read x < '$WORK/go'; exec '$FP' '$F'" > "$WORK/p" & PID=$!
check "write pid=$PID order=2" pwrite "pid=$PID order=2"
expect_eq "pid rule reads back" "$(rules)" "pid=$PID order=2"
echo go > "$WORK/go"
wait $PID
within "pid=$PID order=2: pages/4" "$(minflt "$WORK/p")" $((PAGES >> 2)) 2
"$FP" "$F" > "$WORK/u"
within "another process with the same comm: default" "$(minflt "$WORK/u")" $((PAGES >> DEF)) 2
grep -q "^pid=$PID order=2 # exited" $POL && ok "exited process marked" ||
	fail "exited mark: $(grep pid= $POL)"
err=$(pwrite "pid=999999 order=1")
case $err in *"No such process"*) ok "pid of no process: ESRCH" ;; *) fail "pid=999999: '$err'" ;; esac
expect_eq "rejected pid rule changes nothing" "$(rules)" "pid=$PID order=2"
# add/del edit the rules as they are: from a pid namespace that cannot
# see the rule's process (it reads pid=0 there), the rule stays
if unshare -p -f true 2>/dev/null; then
	check "add from another pid namespace" unshare -p -f sh -c \
		"echo 'add comm=mmt-ns order=1' > /sys/module/mmtune/parameters/policy"
	expect_eq "the pid= rule kept beside it" "$(rules | tr '\n' '|')" \
		"pid=$PID order=2|comm=mmt-ns order=1|"
	check "del from there" unshare -p -f sh -c \
		"echo 'del 2' > /sys/module/mmtune/parameters/policy"
	expect_eq "the pid= rule still kept" "$(rules)" "pid=$PID order=2"
	# a read there says why the rule reads pid=0; writing that back is
	# refused with the reason, and the rule is kept
	seen=$(unshare -p -f sh -c "grep '^pid=' $POL")
	case $seen in
	"pid=0 order=2 # outside this pid namespace"*) ok "read from there: pid=0, said why" ;;
	*) fail "read from another pid namespace: '$seen'" ;;
	esac
	# dd: the write's error and exit status are dd's own in busybox too
	if unshare -p -f sh -c "echo 'pid=0 order=2' | dd of=$POL 2>/dev/null"; then
		fail "pid=0 written back: accepted"
	else
		ok "pid=0 written back: refused"
	fi
	case $(dmesg | grep 'pid=0: a rule of a process outside' | tail -n 1) in
	*"write it from one that sees"*) ok "pid=0: the reason in the log" ;;
	*) fail "pid=0: no reason logged" ;;
	esac
	expect_eq "the pid= rule kept after the refusal" "$(rules)" "pid=$PID order=2"
else
	skip "add/del from another pid namespace" "no unshare -p here"
fi

# --- 5. cgroup=: the cgroup and those below it
sect "5. cgroup= rule"
CGR=/sys/fs/cgroup
grep -q "^cgroup2 $CGR " /proc/mounts || mount -t cgroup2 none $CGR 2>/dev/null
if grep -q " $CGR cgroup2 " /proc/mounts; then
	CG=$CGR/mmt-t40
	mkdir -p "$CG/sub"
	check "write cgroup=/mmt-t40 order=1" pwrite "cgroup=/mmt-t40 order=1"
	sh -c "echo \$\$ > $CG/cgroup.procs; exec '$FP' '$F'" > "$WORK/c1" &
	sh -c "echo \$\$ > $CG/sub/cgroup.procs; exec '$FP' '$FC'" > "$WORK/c2" &
	"$FP" "$FU" > "$WORK/u"
	wait
	within "in the cgroup: pages/2" "$(minflt "$WORK/c1")" $((PAGES >> 1)) 5
	within "in a cgroup below it: pages/2" "$(minflt "$WORK/c2")" $((PAGES >> 1)) 5
	within "outside, at the same time: default" "$(minflt "$WORK/u")" $((PAGES >> DEF)) 5
	check "mmtunectl policy set cgroup=$CG (mount path)" "$CTL" policy set "cgroup=$CG order=3"
	expect_eq "mount path became the cgroup path" "$(rules)" "cgroup=/mmt-t40 order=3"
	err=$(pwrite "cgroup=/mmt-t40-nonexistent order=1")
	case $err in *"No such file"*) ok "missing cgroup: ENOENT" ;; *) fail "missing cgroup: '$err'" ;; esac
	# a service restarted by systemd: its cgroup removed, made again at
	# the same path; the rule follows the path
	check "write cgroup=/mmt-t40 order=0" pwrite "cgroup=/mmt-t40 order=0"
	case $(info policy_cgroup_follow) in
	tracepoints) ok "info: cgroup= rules follow the cgroup tracepoints" ;;
	*) fail "info: policy_cgroup_follow '$(info policy_cgroup_follow)'" ;;
	esac
	dying() { sed -n 's/^nr_dying_descendants //p' "$CGR/cgroup.stat"; }
	d0=$(dying)
	check "remove the cgroup (the rule holds a reference, not a task)" rmdir "$CG/sub" "$CG"
	# let go at its removal: a removed cgroup dies at once (rmdir's
	# offlining) unless someone holds it; nothing polls for it
	if grep -qw memory "$CGR/cgroup.subtree_control"; then
		skip "removed cgroup let go" "memcg may keep it dying (charged pages)"
	else
		n=0; while [ "$(dying)" -gt "$d0" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
		expect_eq "removed cgroup let go: nr_dying_descendants back to $d0" "$(dying)" "$d0"
	fi
	grep -q "^cgroup=/mmt-t40 order=0 # removed" $POL && ok "removed cgroup: its rule reads 'removed'" ||
		fail "removed cgroup: '$(grep cgroup= $POL)'"
	check "add beside a removed cgroup's rule (parameter)" \
		sh -c "echo 'add comm=mmt-t40x order=1' > /sys/module/mmtune/parameters/policy"
	expect_eq "the removed cgroup's rule kept" "$(rules | tr '\n' '|')" \
		"cgroup=/mmt-t40 order=0|comm=mmt-t40x order=1|"
	check "del beside it" sh -c "echo 'del 2' > /sys/module/mmtune/parameters/policy"
	check "write back what was read" sh -c "cat $POL > '$WORK/saved'; cat '$WORK/saved' > $POL"
	expect_eq "write back keeps it" "$(rules)" "cgroup=/mmt-t40 order=0"
	# made again by the reader itself, which moves in and faults within
	# microseconds (a restarted service's first task): no poll is that fast
	FAULTPROBE_CGROUP=$CG "$FP" "$F" > "$WORK/c1"
	within "the cgroup made again, its first task at once: the rule's order 0" \
		"$(minflt "$WORK/c1")" "$PAGES" 2 16
	grep -q "^cgroup=/mmt-t40 order=0 #.*removed" $POL &&
		fail "made again, still 'removed': '$(grep cgroup= $POL)'" || ok "made again: not 'removed'"
	rmdir "$CG" 2>/dev/null || true
else
	fail "no cgroup2 at $CGR"
fi

# --- 5b. the match cache: sets of 3 rules or more keep each CPU's last
# answers under the process's name, thread group, cgroup and the set; a
# probe that faulted at start-up (its answer kept), then renames itself,
# or is moved or given a new set before it reads, reads at its new rule's
# order
sect "5b. the match cache follows a rename, a cgroup move, a new set"
# The probe on CPU 0, where its start-up's answer is kept and its reads
# look; what changes its rules runs on CPU 1, so that the processes it
# starts do not take the probe's entry over (a walk would answer right)
PIN="" OTHER=""
if command -v taskset > /dev/null && taskset -c 0 true 2>/dev/null; then
	PIN="taskset -c 0"
	taskset -c 1 true 2>/dev/null && OTHER="taskset -c 1"
fi
# cache_run OUT CMD: the probe started, waiting on a FIFO once it has
# mapped its file; CMD PID run then; the probe's reads in OUT
cache_run() {
	local pid
	rm -f "$WORK/go"
	mkfifo "$WORK/go"
	FAULTPROBE_GO=$WORK/go $PIN "$FPM" "$F" > "$1" & pid=$!
	exec 3> "$WORK/go"	# returns once the probe opened it: started
	$2 "$pid"
	exec 3>&-
	wait "$pid"
}
cache_set() {
	$OTHER env printf '%b' "comm=fpolicy0 order=1\ncomm=mmt-pad1 order=$O3\ncomm=mmt-pad2 order=$O3" > $POL
}
cache_move() { echo "$1" > "$CGR/mmt-t40c/cgroup.procs"; }
O3=$(( MAX < 3 ? MAX : 3 ))
check "3 rules, fpolicy0's name in none" pwrite "comm=mmt-pad1 order=1\ncomm=mmt-pad2 order=1\ncomm=fpnew order=0"
FAULTPROBE_RENAME=fpnew $PIN "$FPM" "$F" > "$WORK/m"
within "renamed fpnew after start-up: its rule's order 0" "$(minflt "$WORK/m")" "$PAGES" 2 16
if [ "$MAX" -ge 2 ]; then
	check "3 rules, fpolicy0's the third" pwrite "comm=mmt-pad1 order=$O3\ncomm=mmt-pad2 order=$O3\ncomm=fpolicy0 order=0"
	cache_run "$WORK/m" cache_set
	within "a new set after start-up, its rule first: order 1" "$(minflt "$WORK/m")" $((PAGES >> 1)) 2 16
else
	skip "a new set after start-up" "max_order $MAX"
fi
if grep -q " $CGR cgroup2 " /proc/mounts && mkdir -p "$CGR/mmt-t40c"; then
	check "3 rules, a cgroup= third" pwrite "comm=mmt-pad1 order=1\ncomm=mmt-pad2 order=1\ncgroup=/mmt-t40c order=0"
	cache_run "$WORK/m" cache_move
	within "moved into the cgroup after start-up: order 0" "$(minflt "$WORK/m")" "$PAGES" 2 16
	pwrite clear > /dev/null
	rmdir "$CGR/mmt-t40c"
else
	fail "no cgroup2 at $CGR for the cgroup move"
fi

# rejected WRITE...: each write fails with EINVAL and leaves the rules
# and the order as they were ($GOOD, a snap taken before)
rejected() {
	local bad
	for bad in "$@"; do
		err=$(pwrite "$bad")
		case $err in
		*"Invalid argument"*) ok "'${bad:0:50}': EINVAL" ;;
		*) fail "'${bad:0:50}': '$err'" ;;
		esac
		snap
		[ "$SNAP" = "$GOOD" ] || fail "'${bad:0:40}' changed the rules or the order: $SNAP, was $GOOD"
	done
}

# --- 5c. mapping keys: file=, vma=, madv=, alone and with a task key
sect "5c. file=, vma= and madv= rules: per mapping, all keys must match"
# fpolicy0 reads one file, faultprobe another, at the same time: only the
# file= rule's file is read at its order.  Files of 2048 pages at most
# here (8 MiB of 4 KiB pages): this section runs a dozen reads on every
# matrix cell, and the keys' logic needs no more
F32=$F FU32=$FU P32=$PAGES
PAGES=$(( PAGES < 2048 ? PAGES : 2048 ))
F=$SHM/f5 FU=$SHM/fu5
dd if=/dev/zero of="$F" bs="$PSZ" count="$PAGES" status=none
cp "$F" "$FU"
check "file=$F order=0" pwrite "file=$F order=0"
expect_eq "file= reads back" "$(rules)" "file=$F order=0"
"$FP" "$F" > "$WORK/m" & a=$!
"$FPM" "$FU" > "$WORK/u" & b=$!
wait $a $b
within "file=: its file at order 0, whoever reads it" "$(minflt "$WORK/m")" "$PAGES" 2
within "file=: another file, at the same time, at the default" "$(minflt "$WORK/u")" $((PAGES >> DEF)) 5
within "file= rule's hits = its faults" "$(ctr "file=$F" hits)" "$PAGES" 2 16
check "comm=fpolicy0 file=$F order=0" pwrite "comm=fpolicy0 file=$F order=0"
expect_eq "task key first as read" "$(rules)" "comm=fpolicy0 file=$F order=0"
"$FP" "$F" > "$WORK/m"
within "comm= and file=: another process on the file at the default" "$(minflt "$WORK/m")" $((PAGES >> DEF)) 5
"$FPM" "$FU" > "$WORK/m"
within "comm= and file=: the process on another file at the default" "$(minflt "$WORK/m")" $((PAGES >> DEF)) 5
"$FPM" "$F" > "$WORK/m"
within "comm= and file=: the process on the file at order 0" "$(minflt "$WORK/m")" "$PAGES" 2
# 3 rules or more: the match cache keeps the task keys, the mapping is
# looked at each fault (a cache answer per process would be wrong here)
check "3 rules: comm=fpolicy0 file= first" pwrite "comm=mmt-pad1 order=1\ncomm=fpolicy0 file=$F order=0\ncomm=fpolicy0 order=1"
"$FPM" "$F" > "$WORK/m" && "$FPM" "$FU" > "$WORK/u"
within "cached, the file= rule's file: order 0" "$(minflt "$WORK/m")" "$PAGES" 2
within "cached, the same process's other file: the next rule, order 1" "$(minflt "$WORK/u")" $((PAGES >> 1)) 2
# vma=: the files are on tmpfs (shmem)
check "vma=data order=0" pwrite "vma=data order=0\nvma=shmem order=1"
"$FP" "$F" > "$WORK/m"
within "vma=data does not take a tmpfs file; vma=shmem does (order 1)" "$(minflt "$WORK/m")" $((PAGES >> 1)) 2
# vma=data takes a file of a file system that is not tmpfs to order 0:
# ramfs (in every kernel: rootfs may be it), fault-around's as any
# page cache's; faults: minor + major
# shellcheck disable=SC2046 # the fields, split
flt() { set -- $(cat "$1"); echo $(( $4 + $6 )); }
mkdir -p "$WORK/ram"
if mount -t ramfs mmt-pol-ram "$WORK/ram"; then
	FD=$WORK/ram/f
	cp "$F" "$FD"
	# first without the rule: the data mapping at the default
	check "vma=exec order=0" pwrite "vma=exec order=0"
	"$FP" "$FD" > "$WORK/u"
	check "vma=data order=0" pwrite "vma=data order=0"
	"$FP" "$FD" > "$WORK/m"
	within "vma=exec: a ramfs data mapping at the default" "$(flt "$WORK/u")" $((PAGES >> DEF)) 5
	within "vma=data: a ramfs file at order 0" "$(flt "$WORK/m")" "$PAGES" 2
	umount "$WORK/ram"
else
	fail "mount -t ramfs"
fi
check "vma=exec order=0" pwrite "vma=exec order=0"
"$FP" "$F" > "$WORK/m"
within "vma=exec: a read-only data mapping at the default" "$(minflt "$WORK/m")" $((PAGES >> DEF)) 5
# madv=random: MADV_RANDOM is no hint to fault-around in the kernel
check "madv=random order=0" pwrite "madv=random order=0"
FAULTPROBE_RANDOM=1 "$FP" "$F" > "$WORK/m" & a=$!
"$FPM" "$FU" > "$WORK/u" & b=$!
wait $a $b
within "madv=random: the MADV_RANDOM mapping at order 0" "$(minflt "$WORK/m")" "$PAGES" 2
within "madv=random: a plain mapping at the same time at the default" "$(minflt "$WORK/u")" $((PAGES >> DEF)) 5
# a deleted file: its rule holds the inode, says so, is written back
cp "$F" "$SHM/gone"
check "file= of a file to delete" pwrite "file=$SHM/gone order=0"
rm "$SHM/gone"
grep -q "^file=$SHM/gone order=0 # deleted" $POL && ok "a deleted file's rule: '# deleted'" ||
	fail "no '# deleted': $(grep "gone" $POL)"
check "the read written back (the path gone, the rule kept)" sh -c "grep -v '^#' $POL > '$WORK/saved'; cat '$WORK/saved' > $POL"
expect_eq "kept" "$(rules)" "file=$SHM/gone order=0"
pwrite clear > /dev/null
check "a deleted file's path without its rule: ENOENT" sh -c "! printf 'file=$SHM/gone order=0' > $POL 2>/dev/null"
# mmtunectl: keys in any order, one rule until order=; del by the keys
FR=$(readlink -f "$F")	# mmtunectl writes the path resolved
check "mmtunectl policy set 'file= comm= order=0'" "$CTL" policy set "file=$F comm=fpolicy0 order=0"
expect_eq "set: the module's order of keys" "$(rules)" "comm=fpolicy0 file=$FR order=0"
check "mmtunectl policy add 'vma=shmem madv=random order=1'" "$CTL" policy add "vma=shmem madv=random order=1"
check "mmtunectl policy del by its keys" "$CTL" policy del "vma=shmem madv=random"
expect_eq "del: the other kept" "$(rules)" "comm=fpolicy0 file=$FR order=0"
check "mmtunectl policy set 'file= order=auto' (t-61 checks what it learns)" "$CTL" policy set "file=$F order=auto"
expect_eq "set: an auto rule of a file" "$(rules)" "file=$FR order=auto"
"$CTL" policy set "file=$WORK/none order=0" 2> "$WORK/err"
expect_eq "mmtunectl: file= of no file, exit 2" "$?" 2
pwrite clear > /dev/null
# rss of a rule with mapping keys (the module's rule=N selection): of
# each process, the mappings that rule takes. Ground truth: a plain
# read's line for the file, of the process on it; the process on the
# other file, and both processes' other mappings (the next rule's), none.
if head -n 1 $MMT/rss | grep -q '^# available 1 '; then
	check "rss: comm=fpolicy0 file= first, comm=fpolicy0 after" \
		pwrite "comm=fpolicy0 file=$F order=0\ncomm=fpolicy0 order=1"
	[ -p "$WORK/rh" ] || mkfifo "$WORK/rh"
	# not madv='s outputs: the loop below would not wait for these reads
	rm -f "$WORK/m" "$WORK/u"
	FAULTPROBE_HOLD=$WORK/rh "$FPM" "$F" > "$WORK/m" & a=$!
	FAULTPROBE_HOLD=$WORK/rh "$FPM" "$FU" > "$WORK/u" & b=$!
	n=0
	while ! { [ -s "$WORK/m" ] && [ -s "$WORK/u" ]; } && [ $n -lt 150 ]; do sleep 0.2; n=$((n + 1)); done
	exec 3<>$MMT/rss
	printf 'rule=1' >&3
	grep -v '^#' <&3 > "$WORK/r1"
	exec 3>&-
	sed "s|^|# rss rule=1: |; s|$WORK/||" "$WORK/r1"
	# mapped alone: DAMON (7.x) may age a page between the two reads
	fl=$(sed -n "s|^\(pid=$a mapped=[0-9]*\) untouched=[0-9]* file=$FR\$|\1|p" $MMT/rss)
	expect_eq "rss rule=1: the process on the file, that file's pages alone" \
		"$(sed 's/ untouched=.*//' "$WORK/r1" | tr '\n' ' ')" "$fl $fl "
	expect_eq "rss rule=1: the file's line" "$(sed -n 2p "$WORK/r1" | sed 's/.* file=//')" "$FR"
	"$CTL" rss --rule 1 > "$WORK/r1t" 2> "$WORK/err"
	rc=$?
	grep -q "^ *$a fpolicy0 " "$WORK/r1t" && ! grep -q "^ *$b " "$WORK/r1t" && [ $rc = 0 ] &&
		ok "mmtunectl rss --rule 1: the process on the file, exit 0" ||
		fail "mmtunectl rss --rule 1: exit $rc: $(head -5 "$WORK/r1t" "$WORK/err")"
	# stats --prometheus --rss: the file= rule's bytes are the file's
	# pages, the comm= rule's both processes' other pages (a plain read's)
	ue0=$(cat $MMT/usefulness_enable)
	if wr $MMT/usefulness_enable 1; then
		"$CTL" stats --prometheus --rss > "$WORK/prom" 2> "$WORK/err"
		pm() { awk -v r="mmtune_rss_mapped_bytes{rule=\"$1\"}" 'index($0, r) == 1 { print $NF }' "$WORK/prom"; }
		tot() { sed -n "s/^pid=$1 mapped=\([0-9]*\) untouched=[0-9]* comm=.*/\1/p" $MMT/rss; }
		fm=${fl#*mapped=}
		expect_eq "prometheus --rss: the file= rule's bytes, the comm= rule's (the rest of both processes)" \
			"$(pm "comm=fpolicy0 file=$F order=0") $(pm "comm=fpolicy0 order=1")" \
			"$((fm * PSZ)) $(( ($(tot $a) + $(tot $b) - fm) * PSZ ))"
		wr $MMT/usefulness_enable "$ue0"
	else
		skip "prometheus --rss per rule" "usefulness_enable 1 refused"
	fi
	check "rss: a rule=N the set has not" sh -c "exec 3<>$MMT/rss; printf rule=9 >&3; ! grep -q '^pid=' <&3"
	expect_einval "rss: rule=0 refused" $MMT/rss rule=0
	echo > "$WORK/rh"
	wait $a $b
	pwrite clear > /dev/null
else
	skip "rss of a rule with mapping keys" "rss: $(head -n 1 $MMT/rss)"
fi
# bad mapping keys: EINVAL (ENOENT for a missing file), nothing changes
check "good set" pwrite "comm=fpolicy0 order=2"
snap; GOOD=$SNAP
rejected "file=relative order=0" "file=$SHM order=0" "vma=heap order=0" "madv=sequential order=0" \
	"file=$F file=$FU order=0" "vma=exec vma=data order=0" \
	"madv=random madv=random order=0" "file=$F"
err=$(pwrite "file=$SHM/none order=0")
case $err in *"No such file"*) ok "file= of no file: ENOENT" ;; *) fail "file= of no file: '$err'" ;; esac
snap
expect_eq "rules unchanged after the bad mapping keys" "$SNAP" "$GOOD"
pwrite clear > /dev/null
rm -f "$F" "$FU"
F=$F32 FU=$FU32 PAGES=$P32

# --- 6. bad rules: EINVAL, nothing changes
sect "6. bad rules are rejected atomically"
check "good set" pwrite "comm=fpolicy0 order=2\npid=1 order=3\n"
# the snapshot once two in a row agree (CI's 6.12 riscv64 cell once saw
# every later snapshot differ from the first, and not again in a rerun)
snap; GOOD=; n=0
while [ "$SNAP" != "$GOOD" ] && [ $n -lt 10 ]; do
	[ $n = 0 ] || echo "# section 6: the snapshot moved: '$GOOD' -> '$SNAP'"
	GOOD=$SNAP; sleep 0.2; snap; n=$((n + 1))
done
many=""; for i in $(seq 1 33); do many="${many}comm=p$i order=1\n"; done
rejected "comm=x order=$((MAX + 1))" "comm=x" "order=1" "foo=1 order=1" \
	"comm=x order=1 order=2" "comm=x pid=1 order=1" "comm=abcdefghijklmnop order=1" \
	"comm=x order=-1" "comm=x order=1x" "comm=x order=" "comm= order=1" "pid=x order=1" \
	"pid=-1 order=1" "cgroup=relative order=1" "clear\ncomm=x order=1" "# only a comment" \
	"comm=ok order=$MAX\ncomm=bad order=$((MAX + 1))" "$many"
snap
expect_eq "rules and order unchanged after every bad write" "$SNAP" "$GOOD"
if "$CTL" policy set "comm=x order=$((MAX + 1))" 2>/dev/null; then fail "mmtunectl took a bad order"; else
	expect_eq "mmtunectl policy set bad order: exit 2" "$?" 2; fi

# what `mmtunectl policy show` prints loads back unchanged: 32 rules, 16
# of them cgroup= paths of 200 bytes (the module's limit is 255). Not in a
# light matrix cell (CI's time): the parser and the tools are the same
# code on every kernel; make check and the full cells run it.
pwrite clear > /dev/null
if [ "${MMT_LIGHT:-0}" = 1 ]; then
	skip "show | load round trip of 32 rules, long paths" "light matrix cell: make check and the full cells run it"
elif grep -q " $CGR cgroup2 " /proc/mounts; then
	long=$(printf 'x%.0s' $(seq 1 190))
	text=""
	for i in $(seq 10 25); do
		mkdir -p "$CGR/mmt-rt-$long-$i"
		text="${text}cgroup=/mmt-rt-$long-$i order=$((i % (MAX + 1)))\n"
		text="${text}comm=rt$i order=$(((i + 1) % (MAX + 1)))\n"
	done
	check "32 rules, long cgroup paths" pwrite "$text"
	"$CTL" policy show > "$WORK/show1" 2> "$WORK/err"
	expect_eq "policy show: 32 rule lines" "$(grep -vc '^#' "$WORK/show1")" 32
	check "policy clear" "$CTL" policy clear
	check "policy load of what show printed" "$CTL" policy load "$WORK/show1"
	"$CTL" policy show > "$WORK/show2"
	strip() { grep -v '^#' "$1" | sed 's/ *#.*//; s/  */ /g'; }
	expect_eq "show | load | show: the same rules" "$(strip "$WORK/show2" | md5sum)" "$(strip "$WORK/show1" | md5sum)"
	expect_eq "show | load: what was written" "$(strip "$WORK/show2" | tr '\n' '|')" \
		"$(printf '%b' "$text" | tr '\n' '|')"
	check "policy load of the module's own file" "$CTL" policy load $POL
	expect_eq "module file | load: the same rules" "$(rules | tr '\n' '|')" "$(printf '%b' "$text" | tr '\n' '|')"
	pwrite clear > /dev/null
	for i in $(seq 10 25); do rmdir "$CGR/mmt-rt-$long-$i"; done
	# 31 rules of 240-byte paths: 7.8 KB, more than the parameter's page
	# holds; the tools read all of it and lose no rule
	long=$(printf 'y%.0s' $(seq 1 225))
	text=""
	for i in $(seq 10 40); do
		mkdir -p "$CGR/mmt-rl-$long-$i"
		text="${text}cgroup=/mmt-rl-$long-$i order=$((i % (MAX + 1)))\n"
	done
	printf '%b' "$text" > "$WORK/long"
	# one write(2): printf(1) flushes 7.8 KB in pieces, a set is one write
	check "31 rules of 240-byte paths" dd if="$WORK/long" of=$POL bs=64k status=none
	check "mmtunectl policy add beside them" "$CTL" policy add "comm=mmt-x order=1"
	expect_eq "policy/rules: 32" "$(cat /sys/kernel/mm/mmtune/policy/rules)" 32
	expect_eq "all 31 kept, the new one last" "$(rules | md5sum)" \
		"$(printf '%b' "${text}comm=mmt-x order=1\n" | md5sum)"
	check "mmtunectl policy del of the new one" "$CTL" policy del "comm=mmt-x"
	expect_eq "del: the 31 kept" "$(rules | md5sum)" "$(printf '%b' "$text" | md5sum)"
	pwrite clear > /dev/null
	for i in $(seq 10 40); do rmdir "$CGR/mmt-rl-$long-$i"; done
	# 32 rules of a 244-byte cgroup path and a 252-byte file path each:
	# over 16 KB (the limit before file=), one write, every rule kept
	lc=$(printf 'c%.0s' $(seq 1 233))
	lf=$(printf 'f%.0s' $(seq 1 $(( 252 - ${#SHM} - 9 ))))
	mkdir -p "$SHM/long"
	text=""
	for i in $(seq 10 41); do
		mkdir -p "$CGR/mmt-lf-$lc-$i"
		: > "$SHM/long/$lf-$i"
		text="${text}cgroup=/mmt-lf-$lc-$i file=$SHM/long/$lf-$i order=$((i % (MAX + 1)))\n"
	done
	printf '%b' "$text" > "$WORK/long"
	echo "# 32 rules of cgroup= and file= paths: $(wc -c < "$WORK/long") bytes"
	check "32 rules of long cgroup= and file= paths, one write" dd if="$WORK/long" of=$POL bs=64k status=none
	expect_eq "all 32 kept as written" "$(rules | md5sum)" "$(md5sum < "$WORK/long")"
	pwrite clear > /dev/null
	for i in $(seq 10 41); do rmdir "$CGR/mmt-lf-$lc-$i"; done
	rm -rf "$SHM/long"
fi

# --- 6b. sysfs rules/: a directory per rule, one edit per write
sect "6b. sysfs rules/: count, N/'s values, edit"
SR=/sys/kernel/mm/mmtune/rules
T6B=${EPOCHREALTIME/./}
# sv FILE...: the values of rules/FILEs, blank-separated, ENODATA for one
# that has none; edit LINE: one write of LINE, its error printed.  bash's
# builtins alone: a process each would take seconds under TCG.
sv() {
	local f v out=
	for f; do
		read -r v 2> /dev/null < "$SR/$f" || v=ENODATA
		out="$out${out:+ }$v"
	done
	echo "$out"
}
# shellcheck disable=SC2069 # on purpose: the error to stdout, the line to the file
edit() { echo "$1" 2>&1 > $SR/edit; }
pwrite clear > /dev/null
expect_eq "rules/edit: mode 200" "$(stat -c %a $SR/edit)" 200
expect_eq "rules/count 0, 0/match none" "$(sv count 0/match)" "0 ENODATA"
case $(cat $SR/0/match 2>&1) in
*"No data available"*) ok "rules/0/match past count: ENODATA" ;;
*) fail "rules/0/match past count: '$(cat $SR/0/match 2>&1)'" ;;
esac
check "edit: add" edit "add comm=mmt-b order=2"
check "edit: first" edit "first comm=fpolicy0 order=$MAX"
check "edit: add an auto rule" edit "add pid=1 order=auto"
R6B="comm=fpolicy0 order=$MAX|comm=mmt-b order=2|pid=1 order=auto|"
expect_eq "the rules as the edits made them" "$(rules | tr '\n' '|')" "$R6B"
expect_eq "N/match and N/order: debugfs's rules" \
	"$(for n in 0 1 2; do sv $n/match; echo " order=$(sv $n/order)|"; done | tr -d '\n')" "$R6B"
"$FPM" "$F" > /dev/null
h=$(sv 0/hits)
expect_eq "0/hits = debugfs policy's hits=, policy/hits' first" \
	"$h $h" "$(ctr comm=fpolicy0 hits) $(cut -d' ' -f1 < $SR/../policy/hits)"
check "0/hits counted the probe" test "$h" -gt 0
expect_eq "0/pages unavailable with stats off (debugfs: -)" "$(sv 0/pages)/$(ctr comm=fpolicy0 pages)" "unavailable/-"
expect_eq "2/auto_order = policy/orders' third" "$(sv 2/auto_order)" "$(cut -d' ' -f3 < $SR/../policy/orders)"
expect_eq "0/auto_order, 0/raised: -; 2/useful: - before a judgement; 3/: none" \
	"$(sv 0/auto_order 0/raised 2/useful 3/match)" "- - - ENODATA"
# bad edits: EINVAL, nothing changes (a set is the parameter's, not an edit)
for e in "add comm=x order=$((MAX + 1))" "comm=x order=1" "del 4" "clear now"; do
	expect_einval "rules/edit: '$e'" $SR/edit "$e"
done
expect_einval "rules/edit: two lines" $SR/edit "$(printf 'add comm=x order=1\ncomm=y order=1')"
expect_eq "the rules after the bad edits" "$(rules | tr '\n' '|')" "$R6B"
check "edit: drop" edit "drop comm=mmt-b"
check "edit: del 1" edit "del 1"
expect_eq "drop and del: pid=1 left, in slot 0" "$(sv count 0/match)" "1 pid=1"
# one line, one edit: ';' is the rule's own (the parameter splits there)
check "edit: a comm with a ';'" edit "add comm=a;b order=0"
expect_eq "1/match: comm=a;b" "$(sv 1/match)" "comm=a;b"
if setpriv --reuid=65534 --regid=65534 --clear-groups true 2> /dev/null; then
	r=$(setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "echo clear > $SR/edit" 2>&1)
	case $r in
	*"ermission denied"*) ok "rules/edit: a non-root write refused" ;;
	*) fail "rules/edit: a non-root write: '$r'" ;;
	esac
	expect_eq "rules/count and N/'s numbers readable by non-root" \
		"$(setpriv --reuid=65534 --regid=65534 --clear-groups cat $SR/count $SR/0/order | tr '\n' ' ')" "2 auto "
	# a match names processes, cgroups and files: root's, as the policy
	# parameter is
	case $(setpriv --reuid=65534 --regid=65534 --clear-groups cat $SR/0/match 2>&1) in
	*"ermission denied"*) ok "rules/N/match: a non-root read refused" ;;
	*) fail "rules/N/match: a non-root read: '$(setpriv --reuid=65534 --regid=65534 --clear-groups cat $SR/0/match 2>&1)'" ;;
	esac
else
	skip "rules/edit as non-root" "no setpriv --reuid here (busybox's has none)"
fi
check "edit: clear" edit clear
expect_eq "clear: count 0, 0/ none, no rules" "$(sv count 0/match)/$(rules)" "0 ENODATA/"
echo "# 6b: $(( (${EPOCHREALTIME/./} - T6B) / 1000 )) ms"

# --- 7. the global order changed under rules; clear restores it
sect "7. global order under rules, clear and unload restore"
check "rule at max" pwrite "comm=fpolicy0 order=$MAX"
echo 2 > $MMT/fault_around_order
expect_eq "setting the order under rules: new default" "$(hdr default)" 2
expect_eq "and the kernel stays raised" "$(cat $KFA)" $((PSZ << MAX))
expect_eq "fault_around_order reads the new base" "$(order)" 2
"$FP" "$F" > "$WORK/u"
within "unmatched at the new default 2" "$(minflt "$WORK/u")" $((PAGES >> 2)) 2
# an order other than the default: a size written through mmtune that
# equals the kernel's own last one stays the kernel's at unload (docs/design.md)
KO=3; [ "$DEF" = 3 ] && KO=2
echo $((PSZ << KO)) > $KFA	# through the kernel's own knob
sleep 2				# the policy checks every second
expect_eq "the kernel's own knob: new default $KO" "$(info policy_default_order)" $KO
check "clear" pwrite "clear"
expect_eq "clear restores the default order into the kernel" "$(order)" $KO
echo "$DEF" > $MMT/fault_around_order
check "rules again" pwrite "comm=fpolicy0 order=$MAX\ncomm=x order=0"
rmmod mmtune
expect_eq "unload with rules restores the kernel's value at load" "$(cat $KFA)" "$ORIG"
load_module || { fail "insmod again"; exit 1; }
echo "$DEF" > $MMT/fault_around_order

# --- 8. stats and policy together: either can go first, neither breaks the other
sect "8. stats on/off with rules"
echo 1 > $MMT/mapped_enable	# the rules' pages: the PTE setter's hook
echo 1 > $MMT/stats_enable
check "rule with stats on" pwrite "comm=fpolicy0 order=0"
echo 0 > $MMT/stats
"$FPM" "$F" > "$WORK/m"
within "stats on: rule applies" "$(minflt "$WORK/m")" "$PAGES" 2
within "stats on: counters see the narrowed windows (a call per page)" \
	"$(sed -n 's/^fault_around_calls //p' $MMT/stats)" "$PAGES" 5 $STARTUP
within "stats on: the rule's pages are counted" "$(ctr comm=fpolicy0 pages)" "$PAGES" 2 $STARTUP
echo 0 > $MMT/stats_enable
"$FPM" "$F" > "$WORK/m"
within "stats off, rules kept: rule still applies" "$(minflt "$WORK/m")" "$PAGES" 2
expect_eq "stats off: the PTE setter's hook is gone" \
	"$(info hook_set_pte | cut -d' ' -f1)" off
a=$(sed -n 's/^fault_around_calls //p' $MMT/stats)
"$FP" "$F" > /dev/null
expect_eq "stats off: counters do not move" "$(sed -n 's/^fault_around_calls //p' $MMT/stats)" "$a"
echo 1 > $MMT/stats_enable
"$FPM" "$F" > "$WORK/m"
within "stats back on: rule applies" "$(minflt "$WORK/m")" "$PAGES" 2
# 8a. a write between a fault's hooks: the PTE setter's hook and the
# usefulness end count a call's pages under the rule the call's start
# matched, in the set that was the policy then.  Two sets whose rules
# swap places, written 100 times while the probe faults at order 6 (the
# call's pages are most of its time): a call begun under one set and
# mapping under the other must not count for the rule of the same index
# in the other (mmt-none), which matches nothing.  Before the fix, 700 to
# 9000 of its pages in 100 writes (6.1 amd64, TCG).
O8=$(( MAX < 6 ? MAX : 6 ))
SW1=$(printf 'comm=fpolicy0 order=%s\ncomm=mmt-none order=2' $O8)
SW2=$(printf 'comm=mmt-none order=2\ncomm=fpolicy0 order=%s' $O8)
U8=0 u0=$(cat $MMT/usefulness_enable)
wr $MMT/usefulness_enable 1 && U8=1
pwrite "$SW1" > /dev/null
FAULTPROBE_LIVE=1024:0 "$FPM" "$F" > /dev/null & a=$!
# its reads begun (a debug kernel's exec outlasted 100 writes): past
# its start's hits, about 150
n=0
while h=$(ctr comm=fpolicy0 hits); [ "${h:-0}" -lt 1000 ] && [ $n -lt 300 ]; do
	sleep 0.1; n=$((n + 1))
done
"$FLIP" $POL 100 0 "$SW1" "$SW2" > "$WORK/flip" 2>&1
rc=$?
kill $a 2>/dev/null; wait $a 2>/dev/null
wr $MMT/usefulness_enable "$u0"
sed 's/^/# 8a. /' "$WORK/flip"
fl() { sed -n "s/^pages \([0-9]*\) prefaulted \([0-9]*\) $1\$/\\$2/p" "$WORK/flip"; }
[ $rc = 0 ] && [ "$(fl "comm=fpolicy0 order=$O8" 1)" -gt 0 ] 2>/dev/null &&
	ok "8a. 100 writes while the probe faulted, its rule's pages counted" ||
	fail "8a. policyflip: exit $rc, its rule's pages '$(fl "comm=fpolicy0 order=$O8" 1)'"
expect_eq "8a. the rule that matches nothing: no pages in any of the sets" \
	"$(fl "comm=mmt-none order=2" 1)" 0
if [ $U8 = 1 ]; then
	expect_eq "8a. nor pre-mapped pages (the usefulness end)" "$(fl "comm=mmt-none order=2" 2)" 0
else
	skip "8a. the usefulness end" "usefulness_enable 1 refused"
fi
check "clear with stats on" pwrite "clear"
expect_eq "clear with stats on: hook stays for stats" \
	"$(info hook_filemap_map_pages | cut -d' ' -f1)" on
echo 0 > $MMT/stats_enable
echo 0 > $MMT/mapped_enable
expect_eq "both off: filemap_map_pages hook off" "$(info hook_filemap_map_pages | cut -d' ' -f1)" off
TR=/sys/kernel/tracing
mountpoint -q $TR || mount -t tracefs none $TR 2>/dev/null
if grep -qE '^filemap_map_pages ' $TR/enabled_functions 2>/dev/null; then
	fail "both off: filemap_map_pages still traced"
else
	ok "both off: nothing traced"
fi

# --- 8b. the hook's mechanism: the ftrace ops by default (it shares the
# function with BPF and livepatch), a direct call with hook_direct=1 where
# the kernel has them
sect "8b. filemap_map_pages: the ftrace ops, or a direct call (hook_direct=1)"
HD=/sys/module/mmtune/parameters/hook_direct
# the kernel's own list: "direct-->" names the trampoline a site calls
direct_tramp() { grep -q 'direct.*-->mmtune_direct_fa_tramp' $TR/enabled_functions; }
case $(uname -m) in x86_64|aarch64) DARCH=1 ;; *) DARCH=0 ;; esac
if [ $DARCH = 1 ] && grep -q ' register_ftrace_direct' /proc/kallsyms; then
	expect_eq "hook_direct defaults to N" "$(cat $HD)" N
	check "rule, by default" pwrite "comm=fpolicy0 order=0"
	case $(info hook_filemap_map_pages) in
	"on (ftrace filemap_map_pages"*"hook_direct=0"*) ok "by default: the ftrace ops, said in info" ;;
	*) fail "by default: $(info hook_filemap_map_pages)" ;;
	esac
	direct_tramp && fail "by default: a direct call" || ok "by default: no direct call"
	"$FPM" "$F" > "$WORK/m"
	within "the ftrace ops: the rule applies" "$(minflt "$WORK/m")" "$PAGES" 2
	check "clear" pwrite clear
	echo 1 > $HD
	check "rule, hook_direct=1" pwrite "comm=fpolicy0 order=0"
	case $(info hook_filemap_map_pages) in
	"on (ftrace direct filemap_map_pages"*) ok "hook_direct=1: a direct call, said in info" ;;
	*) fail "hook_direct=1: $(info hook_filemap_map_pages)" ;;
	esac
	direct_tramp && ok "hook_direct=1: the site calls our trampoline" ||
		fail "hook_direct=1: no direct call of ours"
	"$FPM" "$F" > "$WORK/m"
	within "hook_direct=1: the rule applies" "$(minflt "$WORK/m")" "$PAGES" 2
	check "clear" pwrite clear
	direct_tramp && fail "clear: the direct call stays" || ok "clear: the direct call is gone"
	echo 0 > $HD
else
	check "rule" pwrite "comm=fpolicy0 order=0"
	case $(info hook_filemap_map_pages) in
	"on (ftrace filemap_map_pages"*) ok "info: the ftrace ops (no direct calls here)" ;;
	*) fail "info: $(info hook_filemap_map_pages)" ;;
	esac
	check "clear" pwrite clear
fi

# --- 9. the EOF probe with rules active
sect "9. EOF probe under rules"
for o in 0 3 "$MAX"; do
	pwrite "comm=mmstress order=$o\ncomm=fpolicy0 order=0" > /dev/null
	if out=$("$MMS" eofprobe -f "$SHM" 2>&1); then
		echo "$out" | grep -qE ' ok$' && ! echo "$out" | grep -q 'FAIL' &&
			ok "eofprobe under comm=mmstress order=$o: ok" ||
			fail "eofprobe order $o: $(echo "$out" | tail -n 1)"
	else
		fail "eofprobe order $o: exit $?: $(echo "$out" | tail -n 1)"
	fi
done
pwrite clear > /dev/null

# --- 10. mmtunectl tune
sect "10. tune"
# MMT_LIGHT=1 (the matrix's light cells, tests/check-matrix.sh): tune's
# wall-time runs are left to one cell per arch; they repeat across kernels.
if [ "${MMT_LIGHT:-0}" = 1 ]; then
	skip "10. tune" "light matrix cell: tune runs on one cell of this arch"
else
G=$SHM/g			# mmstress --file: an existing cached file
dd if=/dev/zero of="$G" bs=1M count=64 status=none
# 8 passes per run: the faults, not mmstress's start, must dominate
SEQ="$MMS seq --touch page -s 64M -r 8 --warmup 0 -f $G -q"
echo 0 > $MMT/fault_around_order	# fault-around off for everyone: tune finds out
"$CTL" tune --orders 0,4,$MAX --repeat 5 --apply -- $SEQ > "$WORK/tune.seq" 2> "$WORK/tune.err"
rc=$?
sed 's/^/# /' "$WORK/tune.seq"
[ $rc = 0 ] && ok "tune seq: exit 0" || fail "tune seq: exit $rc: $(tail -n 1 "$WORK/tune.err")"
rec=$(sed -n 's/^recommendation: order \([0-9]*\).*/\1/p' "$WORK/tune.seq")
if [ -n "$rec" ] && [ "$rec" -ge 4 ]; then
	ok "tune seq recommends a large order ($rec)"
elif [ -z "$rec" ] &&
	grep -q '^recommendation: no significant difference' "$WORK/tune.seq"; then
	# tune judges by wall time, and TCG's wall time is noise: on a loaded
	# host (7.x arm64 in CI) order 9's gain fell within order 0's spread.
	# What must not happen is a small order winning; the fault counts
	# below are the deterministic check
	ok "tune seq: no significant difference under TCG ($PSZ-byte pages; no small order recommended)"
else
	fail "tune seq: $(grep ^recommendation "$WORK/tune.seq")"
fi
f0=$(awk '$1 == "0*" { print $6 }' "$WORK/tune.seq")
fm=$(awk -v m="$MAX" '$1 == m { print $6 }' "$WORK/tune.seq")
[ "${f0:-0}" -gt $(( ${fm:-0} * 8 )) ] && ok "tune seq: faults at 0 ($f0) >> at $MAX ($fm)" ||
	fail "tune seq faults: 0: '$f0', $MAX: '$fm'"
if [ -n "$rec" ]; then
	expect_eq "tune --apply leaves exactly one rule" "$(rules)" "comm=mmstress order=$rec"
else
	expect_eq "tune --apply without a recommendation leaves the rules" "$(rules)" ""
fi
expect_eq "tune leaves the default order" "$(hdr default)" 0

pwrite clear > /dev/null
echo "$DEF" > $MMT/fault_around_order
S=$SHM/s
dd if=/dev/zero of="$S" bs=1M count=128 status=none
"$CTL" tune --orders 0,4,$MAX --repeat 3 -- "$MMS" sparse -s 128M -r 8 --warmup 0 -f "$S" -q \
	> "$WORK/tune.sp" 2> "$WORK/tune.err"
sed 's/^/# /' "$WORK/tune.sp"
grep -q '^recommendation:' "$WORK/tune.sp" || fail "tune sparse: $(tail -n 1 "$WORK/tune.err")"
grep -q "^recommendation: order $MAX " "$WORK/tune.sp" &&
	fail "tune sparse recommends the largest order" ||
	ok "tune sparse does not recommend the largest order ($(grep ^recommendation "$WORK/tune.sp" | cut -c17-60))"

# --json: one object, the same fields (python3 checks it where there is one)
"$CTL" tune --orders 0,$MAX --repeat 2 --json -- "$MMS" sparse -s 16M -r 1 --warmup 0 -f "$S" -q \
	> "$WORK/tune.json" 2> "$WORK/tune.err"
expect_eq "tune --json: exit 0" "$?" 0
expect_eq "tune --json: one line" "$(wc -l < "$WORK/tune.json")" 1
J=$(cat "$WORK/tune.json")
case $J in
'{"command":["'*'"orders":[{"order":0,'*'{"order":'$DEF',"current":true,'*'"recommended_order":'*'"applied":null}')
	ok "tune --json: command, orders 0 and $DEF (current), recommendation, nothing applied" ;;
*) fail "tune --json: '$J'" ;;
esac
if command -v python3 > /dev/null; then
	check "tune --json parses: 3 orders, one current, rules left as they were" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
o = d["orders"]
assert [x["order"] for x in o] == [0, int(sys.argv[2]), int(sys.argv[3])], o
assert [x["order"] for x in o if x["current"]] == [int(sys.argv[2])]
assert all(x["minor_faults"] > 0 and x["wall_s"] > 0 for x in o)
assert d["recommended_order"] is None or d["recommended_order"] in (0, int(sys.argv[3]))
assert d["command"][1] == "sparse" and d["repeat"] == 2' "$WORK/tune.json" "$DEF" "$MAX"
fi
expect_eq "tune --json leaves no rule" "$(rules)" ""

# Ctrl-C in the middle: rules and order as before
pwrite "comm=fpolicy0 order=1" > /dev/null
echo 2 > $MMT/fault_around_order
"$CTL" tune --orders 0,$MAX --repeat 50 -- $SEQ > /dev/null 2> "$WORK/tune.int" & TP=$!
BG=$TP
n=0
until grep -q "^cgroup=/mmtune-tune.$TP " $POL || [ $n -ge 300 ]; do sleep 0.1; n=$((n + 1)); done
case $(rules | head -n 1) in "cgroup=/mmtune-tune.$TP order="*) ok "tune's cgroup= rule seen mid-run, first" ;; *) false ;; esac ||
	fail "tune never installed its rule: $(rules | tr '\n' '|')"
[ -d "$CGR/mmtune-tune.$TP" ] && ok "tune's cgroup exists mid-run" || fail "no $CGR/mmtune-tune.$TP"
sleep 1
kill -INT $TP
wait $TP
expect_eq "Ctrl-C: tune exits 130" "$?" 130
BG=""
expect_eq "Ctrl-C: rules restored" "$(rules)" "comm=fpolicy0 order=1"
[ -d "$CGR/mmtune-tune.$TP" ] && fail "Ctrl-C left $CGR/mmtune-tune.$TP" || ok "Ctrl-C: tune's cgroup removed"
expect_eq "Ctrl-C: order restored" "$(order)" 2
running "$MMS seq" && fail "Ctrl-C left mmstress running" || ok "Ctrl-C: no mmstress left"
grep -q 'interrupted: policy restored' "$WORK/tune.int" && ok "Ctrl-C: says so" ||
	fail "Ctrl-C message: $(tail -n 1 "$WORK/tune.int")"
check "mmtunectl policy clear" "$CTL" policy clear
expect_eq "clear: back to the order set before" "$(order)" 2
echo "$DEF" > $MMT/fault_around_order
fi	# MMT_LIGHT

rmmod mmtune
expect_eq "rmmod restores the kernel's value" "$(cat $KFA)" "$ORIG"
