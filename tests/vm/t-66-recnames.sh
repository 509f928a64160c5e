#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mmtunectl record names every file its command faulted, of processes
# that ended, or unmapped and removed the file, before record's reader
# read their faults (docs/replay.md, "record"). The reader is held
# (SIGSTOP) while the command runs, so that it reads every fault late:
# three faultprobes, each mapping a file of its own until it exits, and
# an mmstress that unmaps its file and removes it before it exits. Each
# file must have its path and size in the record, and replay none as
# "not found". The reader traces the command (ptrace), so a command
# whose tracer is held waits for it (until one of its processes is seen
# in a tracing stop, 10 s at most): the suite also checks the command ran
# whole. Runs on every cell: the seccomp filter is
# per arch.
. "$(dirname "$0")/lib.sh"

WORK=$(mktemp -d /var/tmp/mmt-recnames.XXXXXX)
CTL=${MMT_MMTUNECTL:-$MMT_TOP/userspace/mmtunectl}
MMS=$MMT_TOP/userspace/mmstress
cleanup() {
	[ -n "${RD:-}" ] && kill -CONT "$RD" 2>/dev/null
	umount "$WORK" 2>/dev/null
	rm -rf "$WORK"
	unload_module
}
on_exit cleanup
[ -x "$CTL" ] && [ -x "$MMS" ] || { fail "no $CTL or $MMS (make tools)"; exit 1; }
need_cgroup2

unload_module
load_module || { fail "insmod"; exit 1; }
mount -t tmpfs -o size=64m mmt-recnames "$WORK" || { fail "tmpfs"; exit 1; }
FP=$WORK/faultprobe
if [ -x "${MMT_PROBE:-}" ]; then cp "$MMT_PROBE" "$FP"; else
	cc -O2 -o "$FP" "$MMT_TOP/tests/vm/probe/faultprobe.c" -lpthread || { fail "build faultprobe"; exit 1; }
fi
cp "$MMS" "$WORK/mmstress"
PSZ=$(getconf PAGESIZE)
for i in 1 2 3; do
	dd if=/dev/zero of="$WORK/n$i" bs="$PSZ" count=64 status=none
done

# child_of PID COMM: PID's child named COMM (the first, by pid)
child_of() {
	for p in /proc/[0-9]*; do
		[ "$(sed -n 's/^PPid:[[:space:]]*//p' "$p/status" 2>/dev/null)" = "$1" ] &&
			[ "$(cat "$p/comm" 2>/dev/null)" = "$2" ] && echo "${p#/proc/}"
	done | sort -n | head -n 1
}

# The command waits on a FIFO: once it runs (sh, record's child), the
# reader has traced it; the reader is held, then the command goes on.
mkfifo "$WORK/go"
"$CTL" record -o "$WORK/rec" --buffer 1024 -- sh -c "read x < $WORK/go; for i in 1 2 3; do $FP $WORK/n\$i > /dev/null; done;
	$WORK/mmstress seq -q -s 1M -f $WORK/n4 > /dev/null; echo done > $WORK/ran" \
	> /dev/null 2> "$WORK/rec.err" &
RP=$!
n=0
while [ -z "$(child_of $RP sh)" ] && [ $n -lt 600 ]; do
	sleep 0.1
	n=$((n + 1))
done
RD=$(child_of $RP mmtunectl)	# the reader: forked before the command
if [ -z "$RD" ] || [ -z "$(child_of $RP sh)" ]; then
	fail "record's reader or command not found (children of $RP: reader '$RD')"
	kill $RP; echo > "$WORK/go"; wait $RP
	exit 1
fi
CG=/sys/fs/cgroup$(sed -n 's/^0:://p' "/proc/$(child_of $RP sh)/cgroup")
# held: whether a process of the command sits in a tracing stop ("t")
held() {
	for p in $(cat "$CG/cgroup.procs" 2>/dev/null); do
		[ "$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f1)" = t ] && return 0
	done
	return 1
}
kill -STOP "$RD"
echo go > "$WORK/go"
# untraced, the command ends meanwhile; traced, it waits for its tracer
n=0
while [ ! -e "$WORK/ran" ] && ! held && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
echo "# the command $([ -e "$WORK/ran" ] && echo ended || echo waited) while the reader was held ($n tenths of a second)"
kill -CONT "$RD"
RD=
wait $RP
rc=$?
sed 's/^/# record: /' "$WORK/rec.err"
expect_eq "record: exit 0" "$rc" 0
expect_eq "record: the command ran whole" "$(cat "$WORK/ran" 2>/dev/null)" "done"
grep '^file ' "$WORK/rec" | sed 's/^/# /'
for f in n1 n2 n3 n4; do
	# file ID MAJ:MIN INO SIZE CACHED PATH: the path and a size
	if grep -Eq "^file [0-9]+ [0-9]+:[0-9]+ [0-9]+ [1-9][0-9]* [0-9]+ $WORK/$f\$" "$WORK/rec"; then
		ok "record: $f named, its size read"
	else
		fail "record: $f not named: $(grep "^file .* $WORK/$f" "$WORK/rec" || echo 'no file line')"
	fi
done
if ! "$CTL" replay --json "$WORK/rec" > "$WORK/rp" 2> "$WORK/rp.err"; then
	fail "replay: $(tail -n 1 "$WORK/rp.err")"
elif grep -q 'was not found' "$WORK/rp"; then
	fail "replay: a file not found: $(grep -o '[^"]*was not found[^"]*' "$WORK/rp" | head -n 2 | tr '\n' ' ')"
else
	ok "replay: every file found"
fi
