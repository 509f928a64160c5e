#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The page-table walks let go of the mmap lock at bounded intervals
# (module/rss.c, live.c): debugfs rss of a process with 20000 mappings,
# read over and over while the process unmaps and maps one of them again
# and again (stallprobe churn). No crash; figures plausible (its file's
# mapped pages about its mappings, untouched no more than mapped); and the
# process's mmap/munmap go on during a read: rss lets the lock go every
# 128 steps. It used to hold it across the walk: none went through.
. "$(dirname "$0")/lib.sh"

WORK=$(mktemp -d /var/tmp/mmt-walks.XXXXXX)
STALL=${MMT_STALL:-$WORK/stallprobe}
CP=
cleanup() {
	[ -n "$CP" ] && kill "$CP" 2> /dev/null
	wait 2> /dev/null
	rm -rf "$WORK"
	unload_module
}
on_exit cleanup
[ -x "$STALL" ] || cc -O2 -pthread -o "$STALL" "$MMT_TOP/tests/vm/probe/stallprobe.c" 2> /dev/null ||
	{ skip "rss of a process that maps and unmaps" "no stallprobe (no cc here)"; exit 0; }
unload_module
load_module || { fail "insmod module/mmtune.ko"; exit 1; }
if ! head -n 1 $MMT/rss | grep -q '^# available 1 '; then
	skip "rss of a process that maps and unmaps" "rss: $(head -n 1 $MMT/rss)"
	exit 0
fi

sect "rss of a process with 20000 mappings that maps and unmaps"
N=20000
F=$WORK/f
dd if=/dev/zero of="$F" bs=64k count=1 2> /dev/null
"$STALL" churn "$F" $N 3600 > "$WORK/c" 2> "$WORK/c.err" & CP=$!
n=0
while ! grep -q ready "$WORK/c" && kill -0 $CP 2> /dev/null && [ $n -lt 600 ]; do
	sleep 0.2; n=$((n + 1))
done
grep -q ready "$WORK/c" || { fail "stallprobe churn: not ready: $(head -n 2 "$WORK/c.err")"; exit 1; }
P=$(head -n 1 "$WORK/c")
# reads by pid= (one process); the figures of the file's line.
# A read that finds the lock taken (the first take is only tried) shows
# "busy": read again, up to 40 reads for 8 with figures.
reads=0 busy=0 bad=0
while [ $reads -lt 8 ] && [ $((reads + busy)) -lt 40 ]; do
	sh -c "exec 3<>$MMT/rss; printf pid=$P >&3; grep -v '^#' <&3" > "$WORK/r" 2>&1 ||
		{ fail "rss read: $(head -n 2 "$WORK/r")"; break; }
	if grep -q "^pid=$P busy " "$WORK/r"; then
		busy=$((busy + 1))
		continue
	fi
	reads=$((reads + 1))
	l=$(sed -n "s|^pid=$P mapped=\([0-9]*\) untouched=\([0-9]*\) file=$F\$|\1 \2|p" "$WORK/r")
	# shellcheck disable=SC2086 # two numbers, split
	set -- $l
	if [ -z "${1:-}" ] || [ "$1" -lt $((N / 2)) ] || [ "$1" -gt $((2 * N)) ] ||
	   [ "$2" -gt "$1" ]; then
		bad=$((bad + 1))
		echo "# read $reads: '$l' for $N mappings: $(head -n 3 "$WORK/r" | tr '\n' ' ')"
	fi
done
[ $reads -ge 1 ] && ok "rss read the process $reads times (and found it busy $busy times)" ||
	{ fail "rss found the process busy $busy times, never read it"; exit 1; }
kill -0 $CP 2> /dev/null && ok "the process lived through $reads reads" ||
	fail "the process ended: $(head -n 2 "$WORK/c.err")"
kill $CP 2> /dev/null
wait $CP 2> /dev/null
CP=
expect_eq "rss: its file's mapped pages within $((N / 2))..$((2 * N)), untouched no more" $bad 0

sect "the process maps and unmaps while a read walks it"
# a thread of the process reads its rss over and over for 20 s while the
# process maps and unmaps one mapping a millisecond: the most mmap+munmap
# pairs done during one read. A read that holds the lock throughout lets
# two at most through (one in flight when it began, one waiting when it
# ends); one that lets it go every 128 steps lets them through as they
# come (6.1 VM: 2 before, 13 after).
"$STALL" churn "$F" $N 20 $MMT/rss > "$WORK/c" 2> "$WORK/c.err"
l=$(sed -n 's/^ops \([0-9]*\) max_us \([0-9]*\) reads \([0-9]*\) busy \([0-9]*\) read_us_avg \([0-9]*\) read_us_max \([0-9]*\) read_ops_max \([0-9]*\)$/\1 \2 \3 \4 \5 \6 \7/p' "$WORK/c")
# shellcheck disable=SC2086 # seven numbers, split
set -- $l
echo "# churn: ${1:-?} mmap+munmap, the longest ${2:-?} us; rss beside: ${3:-?} reads (${4:-?} busy), ${5:-?} us on average, the longest ${6:-?} us; at most ${7:-?} mmap+munmap during one read"
if [ -z "${7:-}" ]; then
	fail "stallprobe churn: no result: $(head -n 2 "$WORK/c.err")"
elif [ "$3" -lt 2 ] || [ "$6" -lt 20000 ]; then
	skip "mmap/munmap during an rss read" "$3 reads, the longest ${6} us here: too few or too short to tell"
else
	[ "$7" -ge 5 ] &&
		ok "mmap+munmap went on during a read ($7 during the longest-running)" ||
		fail "at most $7 mmap+munmap during a read of up to $6 us: the read held the lock throughout"
fi
