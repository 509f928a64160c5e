#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Oracle of "whose value is it" (docs/design.md): seeded random interleavings of
# writes through every path (fault_around_order, the module parameter, the
# kernel's own fault_around_bytes, mmtunectl set), policy set and clear
# (the file and mmtunectl), short mmstress --orders sweeps, and mmstress
# killed by SIGINT, SIGTERM, SIGKILL and SIGPIPE.  A model keeps M, the
# last order a user set; after every step, with no tool running:
#   fault_around_order reads M;
#   the kernel holds M, or max(M, largest rule order) while rules exist;
# and after the last step, clear gives M and unload keeps M if the user
# set it through the kernel's own file (else the size found at load).
# SIGINT, SIGTERM and SIGPIPE (its reader gone: EPIPE) must restore M.
# A tool that cannot restore (SIGKILL) leaves what it set last: one of the
# orders it was given or the one it found, and that is then M (set by
# mmstress).
#
# MMT_ORACLE_STEPS (default 500), MMT_ORACLE_SEED (default: from the
# clock; printed, and printed again with any failure to replay it).
. "$(dirname "$0")/lib.sh"

STEPS=${MMT_ORACLE_STEPS:-500}
SEED=${MMT_ORACLE_SEED:-$(( $(date +%s) % 100000 ))}
RANDOM=$SEED
echo "# oracle: seed $SEED, $STEPS steps (replay: MMT_ORACLE_SEED=$SEED)"

PSZ=$(getconf PAGESIZE)
KFA=$DBG/fault_around_bytes
PAR=/sys/module/mmtune/parameters/fault_around_order
KNOB=$MMT/fault_around_order
POL=$MMT/policy
CTL=$MMT_TOP/userspace/mmtunectl
MMS=$MMT_TOP/userspace/mmstress
WORK=$(mktemp -d /var/tmp/mmt-orc.XXXXXX)
cleanup() {
	[ -w $POL ] && echo clear > $POL 2>/dev/null
	rm -rf "$WORK"
	unload_module
	[ -n "${ORIG:-}" ] && echo "$ORIG" > $KFA
}
on_exit cleanup
for b in "$CTL" "$MMS"; do
	[ -x "$b" ] || { fail "no $b (make tools)"; exit 1; }
done

unload_module
ORIG=$(cat $KFA)
load_module || { fail "insmod"; exit 1; }
MAX=$(info max_order)
DEF=$(info default_order)
LOADED=$(info loaded_order)

M=$LOADED	# the last order a user set
VIA=kernel	# through which: kernel (stays at unload) or mmtune
K=$LOADED	# the last order the kernel's own file held from the user
RULE=""		# largest rule order, "" without rules
LOG=()		# the steps so far, for a failure report
# Builtins only on the way of every step: a fork costs tens of ms under TCG.
rnd() { R=$((RANDOM % ($1 + 1))); }	# R = 0..$1
kernel_now() { KN=$M; [ -n "$RULE" ] && [ "$RULE" -gt "$M" ] && KN=$RULE; }

# oracle_die STEP WHY: the failure, with the seed that replays it and the
# last steps; exit 1
oracle_die() {
	fail "seed $SEED step $1: $2 (replay: MMT_ORACLE_SEED=$SEED)"
	n=${#LOG[@]}
	printf '# %s\n' "${LOG[@]:$((n > 12 ? n - 12 : 0))}"
	exit 1
}

# invariant STEP: no tool runs here; a read of the policy file first makes
# the policy notice a write to the kernel's own file and raise again.
invariant() {
	read -r _ < $POL
	read -r k < $KNOB; read -r b < $KFA
	kernel_now
	[ "$k" = "$M" ] || oracle_die "$1" "fault_around_order reads $k, the model says $M"
	[ "$b" = $((PSZ << KN)) ] ||
		oracle_die "$1" "kernel holds $b bytes, the model says order $KN (M=$M rules=${RULE:-none})"
}

# a random order list of 1..3 orders for mmstress
orders() {
	rnd 2; n=$((R + 1)); rnd "$MAX"; o=$R
	while [ $n -gt 1 ]; do rnd "$MAX"; o="$o,$R"; n=$((n - 1)); done
}

# one mmstress run stopped by signal $2 after a random delay; $1 the step
mms_kill() {
	orders
	sig=$2
	if [ "$sig" = PIPE ]; then
		"$MMS" seq --orders "$o,$o,$o" --size 64K --warmup 0 --repeat 3 --quiet \
			--format csv 2> /dev/null | head -n 1 > /dev/null
		rc=0
	else
		"$MMS" seq --orders "$o,$o,$o" --size 64K --warmup 0 --repeat 3 --quiet \
			> /dev/null 2>&1 & p=$!
		rnd 5; sleep "0.$R"
		kill -"$sig" $p 2>/dev/null
		{ wait $p; } 2>/dev/null; rc=$?
	fi
	LOG+=("$1: mmstress SIG$sig --orders $o (exit $rc)")
	case $sig in
	INT|TERM|PIPE) ;;	# restored: M stays (checked after the step)
	*)			# left what it set last: one of $o or M
		read -r k < $KNOB
		case ",$o,$M," in *",$k,"*) ;; *) oracle_die "$1" "after SIG$sig: order $k is neither M=$M nor one of $o" ;; esac
		[ "$k" != "$M" ] && VIA=mmtune
		M=$k ;;
	esac
}

step() {
	rnd 99; r=$R
	rnd "$MAX"; o=$R
	if [ "$r" -lt 20 ]; then
		echo "$o" > $KNOB || oracle_die "$1" "knob write $o failed"
		M=$o VIA=mmtune; LOG+=("$1: knob $o")
	elif [ "$r" -lt 34 ]; then
		rnd 4; [ "$R" = 0 ] && o=default
		echo "$o" > $PAR || oracle_die "$1" "parameter write $o failed"
		[ "$o" = default ] && o=$DEF
		M=$o VIA=mmtune; LOG+=("$1: parameter $o")
	elif [ "$r" -lt 54 ]; then
		# Writing exactly the size the kernel holds changes nothing there
		# and cannot be seen (docs/design.md): under rules, the raised size is
		# not a value of the user's, so another order is taken.
		kernel_now
		if [ -n "$RULE" ] && [ "$o" = "$KN" ] && [ "$o" != "$M" ]; then
			o=$(( (o + 1) % (MAX + 1) ))
			[ "$o" = "$KN" ] && o=$M
		fi
		[ "$o" != "$KN" ] && VIA=kernel K=$o
		echo $((PSZ << o)) > $KFA || oracle_die "$1" "fault_around_bytes write failed"
		M=$o; LOG+=("$1: fault_around_bytes order $o")
	elif [ "$r" -lt 58 ]; then
		"$CTL" set fault_around_order "$o" > /dev/null 2>&1 || oracle_die "$1" "mmtunectl set $o failed"
		M=$o VIA=mmtune; LOG+=("$1: mmtunectl set $o")
	elif [ "$r" -lt 68 ]; then
		a=$o; rnd "$MAX"; b=$R
		rnd 1
		if [ "$R" = 0 ]; then
			env printf 'comm=mmt-orc-a order=%s\ncomm=mmt-orc-b order=%s\n' "$a" "$b" > $POL ||
				oracle_die "$1" "policy write failed"
		else
			"$CTL" policy set "comm=mmt-orc-a order=$a" "comm=mmt-orc-b order=$b" > /dev/null 2>&1 ||
				oracle_die "$1" "mmtunectl policy set failed"
		fi
		RULE=$(( a > b ? a : b )); LOG+=("$1: rules $a,$b")
	elif [ "$r" -lt 74 ]; then
		rnd 1
		if [ "$R" = 0 ]; then echo clear > $POL || oracle_die "$1" "policy clear failed"
		else "$CTL" policy clear > /dev/null 2>&1 || oracle_die "$1" "mmtunectl policy clear failed"; fi
		RULE=""; LOG+=("$1: clear")
	elif [ "$r" -lt 82 ]; then
		orders
		"$MMS" seq --orders "$o" --size 64K --warmup 0 --quiet > /dev/null 2>&1 ||
			oracle_die "$1" "mmstress --orders $o failed"
		LOG+=("$1: mmstress --orders $o")
	elif [ "$r" -lt 86 ]; then
		mms_kill "$1" INT
	elif [ "$r" -lt 90 ]; then
		mms_kill "$1" TERM
	elif [ "$r" -lt 95 ]; then
		mms_kill "$1" KILL
	else
		mms_kill "$1" PIPE
	fi
}

# time per kind of step (ms), printed at the end: where a run's time goes
declare -A T N
invariant 0
for i in $(seq 1 "$STEPS"); do
	t0=${EPOCHREALTIME/./}
	step "$i"
	invariant "$i"
	t1=${EPOCHREALTIME/./}
	k=${LOG[-1]#*: }; k=${k%% [0-9]*}; k=${k%% --*}; k=${k%%,*}
	T[$k]=$(( ${T[$k]:-0} + (${t1:-0} - ${t0:-0}) / 1000 )); N[$k]=$(( ${N[$k]:-0} + 1 ))
	[ $((i % 100)) = 0 ] && echo "# [${SECONDS}s] step $i: M=$M rules=${RULE:-none}"
done
ok "oracle: $STEPS steps, the kernel held the user's value after each (seed $SEED)"
for k in "${!T[@]}"; do echo "# $k: ${N[$k]} steps, $(( T[$k] / N[$k] )) ms each"; done

echo clear > $POL
expect_eq "oracle: clear at the end leaves M=$M" "$(cat $KFA)" $((PSZ << M))
# a size set through mmtune that equals the kernel's own last one is the
# kernel's (docs/design.md): it stays too
want=$M
[ "$VIA" = mmtune ] && [ "$M" != "$K" ] && want=$LOADED
rmmod mmtune
expect_eq "oracle: unload (last set through $VIA)" "$(cat $KFA)" $((PSZ << want))
