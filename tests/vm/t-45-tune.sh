#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mmtunectl tune and run on their cgroup: the order covers the whole
# process tree (a shell's child), strays are killed, the cgroup and tune's
# own rule go on every exit (SIGTERM, SIGHUP, a user's pid= rule whose
# process exits meanwhile) and the user's rules stay as found; --orders
# bounds, --apply refused for shells, --apply-comm.  Small sizes: TCG.
. "$(dirname "$0")/lib.sh"

PSZ=$(getconf PAGESIZE)
WORK=$(mktemp -d /var/tmp/mmt-tune.XXXXXX)
SHM=$WORK/shm
CGR=/sys/fs/cgroup
BG=""
cleanup() {
	for p in $BG; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -e "$POL" ] && echo clear > "$POL" 2>/dev/null
	umount "$SHM" 2>/dev/null
	rm -rf "$WORK"
	unload_module
}
on_exit cleanup

CTL=$MMT_TOP/userspace/mmtunectl
POL=$MMT/policy
[ -x "$CTL" ] || { fail "no $CTL (make tools)"; exit 1; }
FP=$WORK/faultprobe
if [ -x "${MMT_PROBE:-}" ]; then cp "$MMT_PROBE" "$FP"; else
	cc -O2 -o "$FP" "$MMT_TOP/tests/vm/probe/faultprobe.c" || { fail "build faultprobe"; exit 1; }
fi
mkdir "$SHM"
mount -t tmpfs -o size=100m,huge=never mmt-tune "$SHM"
F=$SHM/f			# 32 MiB: 8192 pages with 4 KiB pages
dd if=/dev/zero of="$F" bs=1M count=32 status=none
PAGES=$(( $(stat -c %s "$F") / PSZ ))
# vng's guest has cgroup2 at /sys/fs/cgroup; the matrix's busybox guests
# may not: tune needs it, so mount it here
if grep -q " $CGR cgroup2 " /proc/mounts; then
	echo "# cgroup2 at $CGR: mounted by the guest"
else
	mount -t cgroup2 none $CGR 2>/dev/null && echo "# cgroup2 at $CGR: mounted here"
fi
grep -q " $CGR cgroup2 " /proc/mounts || { fail "no cgroup2 at $CGR"; exit 1; }

unload_module
load_module || { fail "insmod"; exit 1; }
MAX=$(info max_order)

sect "1. tune: bounds, --apply, the process tree, strays, --apply-comm, a dead pid rule"
# bounds from info, checked before anything is written
pwrite "comm=fpolicy0 order=1" > /dev/null
for v in $((MAX + 1)) 0,$((MAX + 1)) 0-$((MAX + 1)); do
	"$CTL" tune --orders "$v" -- true > /dev/null 2>&1
	expect_eq "tune --orders $v (max $MAX): exit 2" "$?" 2
done
"$CTL" tune --apply -- sh -c true > /dev/null 2> "$WORK/tune.err"
expect_eq "tune --apply -- sh: exit 2 (comm=sh would match every shell)" "$?" 2
grep -q -- '--apply-comm' "$WORK/tune.err" && ok "tune --apply -- sh: names --apply-comm" ||
	fail "tune --apply -- sh: $(tail -n 1 "$WORK/tune.err")"
expect_eq "refused tune: rules untouched" "$(rules)" "comm=fpolicy0 order=1"
ls -d $CGR/mmtune-tune.* > /dev/null 2>&1 && fail "refused tune left a cgroup" || ok "refused tune: no cgroup"

# the whole process tree: a shell whose child does the faults (a pid= rule
# covered the shell alone: the same faults at every order)
"$CTL" tune --orders 0,$MAX --repeat 1 -- sh -c "'$FP' '$F' > /dev/null; true" > "$WORK/tune.sh" 2> "$WORK/tune.err"
expect_eq "tune -- sh -c 'PROBE; true': exit 0" "$?" 0
sed 's/^/# /' "$WORK/tune.sh"
f0=$(awk '$1 == "0" || $1 == "0*" { print $6 }' "$WORK/tune.sh")
fm=$(awk -v m="$MAX" '$1 == m || $1 == m"*" { print $6 }' "$WORK/tune.sh")
[ "${f0:-0}" -gt $(( ${fm:-0} * 4 )) ] && [ "${f0:-0}" -ge $((PAGES / 2)) ] &&
	ok "tune covers the shell's child: faults at 0 ($f0) >> at $MAX ($fm)" ||
	fail "tune -- sh: faults at 0: '$f0', at $MAX: '$fm' (child not covered?)"
expect_eq "tune -- sh: rules as found" "$(rules)" "comm=fpolicy0 order=1"
ls -d $CGR/mmtune-tune.* > /dev/null 2>&1 && fail "tune left $(ls -d $CGR/mmtune-tune.*)" ||
	ok "tune -- sh: cgroup removed"
# what the command leaves running is killed with the cgroup
"$CTL" tune --orders 0 --repeat 1 -- sh -c "sleep 1000 & true" > /dev/null 2> "$WORK/tune.err"
expect_eq "tune of a command leaving a daemon: exit 0" "$?" 0
running "^sleep 1000" && fail "tune left 'sleep 1000' running" || ok "tune killed what the command left"

# --apply-comm NAME: that rule, put first, the user's rules kept after it
"$CTL" tune --orders 0,$MAX --repeat 2 --apply-comm fpolicy0x -- sh -c "'$FP' '$F' > /dev/null; true" \
	> "$WORK/tune.ac" 2> "$WORK/tune.err"
expect_eq "tune --apply-comm: exit 0" "$?" 0
rec=$(sed -n 's/^recommendation: order \([0-9]*\).*/\1/p' "$WORK/tune.ac")
if [ -n "$rec" ]; then
	expect_eq "tune --apply-comm: its rule first, the user's kept" "$(rules | tr '\n' '|')" \
		"comm=fpolicy0x order=$rec|comm=fpolicy0 order=1|"
else
	expect_eq "tune --apply-comm, no recommendation: rules as found" "$(rules)" "comm=fpolicy0 order=1"
fi

# a user's pid= rule whose process exits while tune runs: tune's own rule
# never stays; the module keeps the dead rule (exit 0) or refuses it, and
# then tune drops it and says so (exit 1)
sleep 1000 & SP=$!
BG=$SP
check "a user's pid= rule" pwrite "comm=fpolicy0 order=1\npid=$SP order=2"
"$CTL" tune --orders 0,$MAX --repeat 3 -- sh -c "sleep 0.3" > /dev/null 2> "$WORK/tune.dead" & TP=$!
BG="$SP $TP"
n=0
until grep -q "^cgroup=/mmtune-tune.$TP " $POL || [ $n -ge 300 ]; do sleep 0.1; n=$((n + 1)); done
kill $SP			# its process exits while tune runs
wait $SP 2>/dev/null
wait $TP
rc=$?
BG=""
case $rc in
0) expect_eq "dead pid rule: kept as found (exit 0)" "$(rules | tr '\n' '|')" "comm=fpolicy0 order=1|pid=$SP order=2|" ;;
1) grep -q "pid=$SP" "$WORK/tune.dead" && ok "dead pid rule refused: tune names it (exit 1)" ||
	fail "dead pid rule: exit 1 without naming it: $(tail -n 1 "$WORK/tune.dead")"
   expect_eq "dead pid rule refused: the rest as found" "$(rules)" "comm=fpolicy0 order=1" ;;
*) fail "dead pid rule: exit $rc: $(tail -n 2 "$WORK/tune.dead" | tr '\n' ' ')" ;;
esac
grep -q '^cgroup=/mmtune-tune' $POL && fail "dead pid rule: tune's rule left behind" ||
	ok "dead pid rule: tune's own rule removed"
ls -d $CGR/mmtune-tune.* > /dev/null 2>&1 && fail "dead pid rule: cgroup left" || ok "dead pid rule: cgroup removed"
pwrite clear > /dev/null

sect "2. tune: SIGTERM and SIGHUP"
pwrite "comm=fpolicy0 order=1" > /dev/null
# SIGTERM and SIGHUP end the same way (128 + the signal)
for sig in TERM HUP; do
	"$CTL" tune --orders 0,$MAX --repeat 50 -- sh -c "sleep 0.3; true" > /dev/null 2> "$WORK/tune.int" & TP=$!
	BG=$TP
	n=0
	until grep -q "^cgroup=/mmtune-tune.$TP " $POL || [ $n -ge 300 ]; do sleep 0.1; n=$((n + 1)); done
	kill -$sig $TP
	wait $TP
	rc=$?
	BG=""
	expect_eq "SIG$sig: tune exits 128 + the signal" "$rc" $((128 + $(kill -l $sig)))
	expect_eq "SIG$sig: rules restored" "$(rules)" "comm=fpolicy0 order=1"
	[ -d "$CGR/mmtune-tune.$TP" ] && fail "SIG$sig left $CGR/mmtune-tune.$TP" || ok "SIG$sig: cgroup removed"
done

sect "3. run"
# mmtunectl run: the command's children at the order, its exit status, the
# rules as found, the cgroup gone (also on SIGTERM)
pwrite "comm=fpolicy0 order=1" > /dev/null
for o in 0 $MAX; do
	"$CTL" run --order $o --stats -- sh -c "'$FP' '$F' > '$WORK/run$o'; true" 2> "$WORK/run.err"
	expect_eq "run --order $o: exit 0" "$?" 0
	within "run --order $o: the shell's child at order $o" "$(minflt "$WORK/run$o")" $((PAGES >> o)) 5 4
	grep -q "^mmtunectl: run: order $o: .*minor_faults [0-9]" "$WORK/run.err" && ok "run --stats: counters" ||
		fail "run --stats: $(tail -n 1 "$WORK/run.err")"
done
"$CTL" run --order 0 -- sh -c 'exit 7'
expect_eq "run: COMMAND's exit status" "$?" 7
"$CTL" run -- /nonexistent/cmd 2> /dev/null
expect_eq "run: a missing COMMAND: 127" "$?" 127
expect_eq "run: rules as found" "$(rules)" "comm=fpolicy0 order=1"
"$CTL" run --order 0 -- sleep 100 & RP=$!
BG=$RP
n=0
until grep -q "^cgroup=/mmtune-run.$RP " $POL || [ $n -ge 300 ]; do sleep 0.1; n=$((n + 1)); done
expect_eq "run: its cgroup= rule, first" "$(rules | head -n 1)" "cgroup=/mmtune-run.$RP order=0"
kill -TERM $RP
wait $RP
expect_eq "run SIGTERM: 128 + 15" "$?" 143
BG=""
expect_eq "run SIGTERM: rules as found" "$(rules)" "comm=fpolicy0 order=1"
ls -d $CGR/mmtune-run.* > /dev/null 2>&1 && fail "run left $(ls -d $CGR/mmtune-run.*)" || ok "run: cgroup removed"
running "^sleep 100" && fail "run SIGTERM left sleep running" || ok "run SIGTERM: nothing left running"
# under nohup SIGHUP stays ignored, for run and for its command (it used
# to be caught, and forwarded as SIGTERM)
if command -v nohup > /dev/null; then
	rm -f "$WORK/alive"
	nohup "$CTL" run --order 0 -- sh -c "kill -HUP \$PPID; kill -HUP \$\$; sleep 0.5; echo alive > '$WORK/alive'" \
		> /dev/null 2>&1
	expect_eq "run under nohup: SIGHUP ignored, exit 0" "$?" 0
	[ -e "$WORK/alive" ] && ok "run under nohup: the command lived on" ||
		fail "run under nohup: the command did not finish"
fi
# the parameter's verbs for a tool's own rule: first (its match dropped
# elsewhere) and drop, each one write
PAR=/sys/module/mmtune/parameters/policy
pwrite "comm=mmt-a order=1
comm=mmt-b order=2" > /dev/null
check "policy parameter: first" wr $PAR "first comm=mmt-b order=0"
expect_eq "first: the rule first, its old one gone" "$(rules | tr '\n' '|')" "comm=mmt-b order=0|comm=mmt-a order=1|"
expect_einval "first: a bad rule refused" $PAR "first comm=mmt-c order=99"
check "policy parameter: drop" wr $PAR "drop comm=mmt-b"
check "policy parameter: drop of a match no rule has" wr $PAR "drop comm=mmt-zz"
expect_eq "drop: the others kept" "$(rules)" "comm=mmt-a order=1"
# concurrent editors: runs putting and taking out rules of their own while
# rules are added; none is lost, no run's is left and none fails (runs used
# to read, edit and write back the whole set; policy add read the set
# first and failed when editors beside it changed it and back between its
# reads).  Three loops of short runs churn the set while the adds go in.
bad=""
for round in 1 2; do
	pwrite clear > /dev/null
	churn=""
	for l in 1 2 3; do
		( for k in 1 2 3 4 5 6; do
			"$CTL" run --order 0 -- true > /dev/null 2>> "$WORK/cl$l.err" ||
				echo "run $k: exit $?" >> "$WORK/cl$l.err"
		  done ) &
		churn="$churn $!"
	done
	adds=""
	for i in 1 2 3 4 5 6; do
		( "$CTL" policy add "comm=mmt-c$i order=1" > /dev/null 2> "$WORK/ca$i.err"
		  echo $? >> "$WORK/ca$i.err" ) &
		adds="$adds $!"
		sleep 0.0$i
	done
	wait $churn $adds
	got=$(rules | sort | tr '\n' '|')
	[ "$got" = "comm=mmt-c1 order=1|comm=mmt-c2 order=1|comm=mmt-c3 order=1|comm=mmt-c4 order=1|comm=mmt-c5 order=1|comm=mmt-c6 order=1|" ] ||
		bad="$bad round $round: rules '$got';"
	for e in "$WORK"/ca?.err; do
		[ "$(tail -n 1 "$e")" = 0 ] || bad="$bad round $round: $(basename "$e" .err): $(tr '\n' ' ' < "$e");"
	done
	for e in "$WORK"/cl?.err; do
		[ -s "$e" ] && bad="$bad round $round: $(basename "$e" .err): $(tr '\n' ' ' < "$e");"
		rm -f "$e"
	done
done
expect_eq "concurrent runs and adds, 2 rounds: every added rule kept, no run's left, every command exit 0" "$bad" ""
pwrite clear > /dev/null

