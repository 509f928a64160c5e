#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Record and replay (docs/replay.md): mmtunectl record runs a workload at
# order 0 and writes its file read faults; replay predicts, for each
# order, the faults and fault-around calls the workload would have had.
# Checked against the same workload run at each order (mmtunectl run
# --order K --stats: the process tree's faults and its rule's calls):
# within 2 % for mmstress seq, rand, seq --stride 4 and sparse (faults;
# fault-around calls within 2 % or 4). THP is
# off meanwhile: whether the kernel finds a huge page for an anonymous
# region changes a run's other faults by hundreds, and replay takes those
# from the recorded run. So is ASLR: a library's windows depend on where
# it is mapped (at order 1, on its start's parity: sparse's calls moved
# by 10 of 300 between runs), and replay computes the recorded run's. Then the record file's errors: truncated, not a
# record, a bad line.
. "$(dirname "$0")/lib.sh"

WORK=$(mktemp -d /var/tmp/mmt-replay.XXXXXX)
CTL=${MMT_MMTUNECTL:-$MMT_TOP/userspace/mmtunectl}
MMS=$MMT_TOP/userspace/mmstress
cleanup() {
	umount "$WORK/huge" 2>/dev/null
	replay_loud
}
on_exit cleanup
[ -x "$CTL" ] && [ -x "$MMS" ] || { fail "no $CTL or $MMS (make tools)"; exit 1; }

need_cgroup2

unload_module
load_module || { fail "insmod"; exit 1; }
replay_quiet replay 160m
PSZ=$(getconf PAGESIZE)
MAXO=$(info max_order)
ORDERS="0 1 4 $MAXO"
[ "$(order)" -ge 1 ] || echo 4 > $MMT/fault_around_order
echo "# page size $PSZ, kernel order $(order), orders $ORDERS"

# within2 WHAT PREDICTED MEASURED [SLACK]: |p - m| <= 2 % of m, or SLACK (2)
within2() {
	d=$(( $2 > $3 ? $2 - $3 : $3 - $2 ))
	if [ $(( d * 100 )) -le $(( $3 * 2 )) ] || [ $d -le "${4:-2}" ]; then
		ok "$1: replayed $2, measured $3"
	else
		fail "$1: replayed $2, measured $3 (more than 2 % apart)"
	fi
}
# pred FILE ORDER FIELD: FIELD of ORDER's line of replay's JSON in FILE
pred() {
	tr '{' '\n' < "$1" | grep "\"order\":$2," | head -n 1 |
		sed -n "s/.*\"$3\":\([0-9]*\).*/\1/p"
}
# meas NAME ARGS...: run ARGS at order $O; "faults calls" of the run
meas() {
	"$CTL" run --order "$O" --stats -- "$@" > /dev/null 2> "$WORK/run.err" ||
		{ echo "- -"; return; }
	sed -n 's/.* minor_faults \([0-9]*\) major_faults \([0-9]*\) fault_around_calls \([0-9-]*\).*/\1 \2 \3/p' \
		"$WORK/run.err" | { read -r mi ma ca; echo "$((mi + ma)) $ca"; }
}

# shmem_allocs [alloc|fallback]: large shmem folios allocated (or fallen
# back to order 0) since boot, every size; empty without mTHP's stats
shmem_allocs() {
	set -- /sys/kernel/mm/transparent_hugepage/hugepages-*/stats/shmem_"${1:-alloc}"
	[ -r "$1" ] && cat "$@" | awk '{ s += $1 } END { print s }'
}

# rec_fid: the record's id of the file $F, empty if it was not found
rec_fid() {
	sed -n "s|^file \([0-9]*\) [0-9:]* [0-9]* [0-9]* [0-9]* $F\$|\1|p" "$WORK/rec"
}

# case NAME ARGS...: record ARGS, replay, measure each order
case_() {
	name=$1; shift
	sect "$name: record at order 0, replay, measure at $ORDERS"
	"$@" > /dev/null	# the page cache as the runs will find it
	if ! "$CTL" record -o "$WORK/rec" -- "$@" > /dev/null 2> "$WORK/rec.err"; then
		fail "$name: record: $(tail -n 2 "$WORK/rec.err")"; return
	fi
	ok "$name: recorded ($(grep -c '^f ' "$WORK/rec") faults)"
	"$CTL" replay --json --orders "$(echo $ORDERS | tr ' ' ,)" "$WORK/rec" > "$WORK/rp" ||
		{ fail "$name: replay"; return; }
	"$CTL" replay --orders "$(echo $ORDERS | tr ' ' ,)" "$WORK/rec" | sed 's/^/# /'
	# the workload's file (tmpfs, written before it is mapped) is exact;
	# the programs' own files may not be (the guest's root is the host's)
	tr -d '\n' < "$WORK/rp" | sed 's/.*"bounds"://' | grep -q "$F" &&
		fail "$name: replay bounds the workload's file: $(tr -d '\n' < "$WORK/rp" | sed 's/.*"bounds"://' | cut -c1-300)" ||
		ok "$name: the workload's file exact (nothing lost, its cache as at its first fault)"
	grep -q '"lost":0,' "$WORK/rp" && ok "$name: no event lost" || fail "$name: events lost"
	for O in $ORDERS; do
		m=$(meas "$@")
		pf=$(pred "$WORK/rp" "$O" faults)
		pc=$(pred "$WORK/rp" "$O" fault_around_calls)
		echo "# order $O: replayed faults $pf calls $pc, measured $m"
		if [ "${m% *}" = - ] || [ -z "$pf" ]; then
			fail "$name order $O: no figure (run: $(tail -n 1 "$WORK/run.err"))"; continue
		fi
		within2 "$name order $O: faults" "$pf" "${m% *}"
		# calls: 2 % or 4 (a library's data mapped anew, the odd
		# scheduling of a start-up thread)
		[ "$O" = 0 ] || within2 "$name order $O: fault-around calls" "$pc" "${m#* }" 4
	done
}

# mmstress from the tmpfs: the guest's root is the host's, whose page
# cache in the guest comes and goes (major faults every run)
cp "$MMS" "$WORK/mmstress" && MMS=$WORK/mmstress
F=$WORK/f
case_ seq "$MMS" seq -q -s 8M -f "$F"
case_ rand "$MMS" rand -q -s 8M -f "$F"
case_ stride4 "$MMS" seq -q -s 8M --stride 4 -f "$F"
case_ sparse "$MMS" sparse -q -s 128M -f "$F"

# Large folios: a tmpfs with huge=within_size holds folios as large as
# its writes (mmstress writes 1 MiB at a time: 256-page folios; 7.x and
# 6.18 here), PMD-sized ones or none before.  record writes their layout; kernels from 6.18 map a folio
# whole where fault-around reaches it, and replay models that (with its
# bound: the pages a recorded fault mapped whole, their reads unseen).
sect "large folios: their layout in the record, replayed where the kernel maps them whole"
mkdir "$WORK/huge"
if mount -t tmpfs -o size=32m,huge=within_size mmt-replay-huge "$WORK/huge"; then
	F=$WORK/huge/f
	"$MMS" seq -q -s 8M -f "$F" > /dev/null
	# A guest that has run the other suites may have no free run of 256
	# pages (the 7.x matrix cell once): compact first, and count what
	# the kernel made (mTHP's shmem_alloc, 6.11+) as the ground truth.
	# record reads a file's folios at its first fault, by the path in
	# the process's maps: an mmstress that ended (and removed its file)
	# before the reader looked leaves the file "-", no folios line (CI's
	# 7.3 x86_64 cell; 3 of 7 records there since): record again, up to
	# 5 times.
	for try in 1 2 3 4 5; do
		echo 1 > /proc/sys/vm/compact_memory 2> /dev/null
		a0=$(shmem_allocs)
		"$CTL" record -o "$WORK/rec" -- "$MMS" seq -q -s 8M -f "$F" > /dev/null 2>&1
		a1=$(shmem_allocs)
		fid=$(rec_fid)
		[ -n "$fid" ] && break
		echo "# record $try: the file was not found (mmstress had ended): $(grep '^file ' "$WORK/rec" | tr '\n' ' ')"
	done
	nfo=$(sed -n "s/^folios ${fid:-x} \([0-9-]*\) 1\$/\1/p" "$WORK/rec")
	wf=$(sed -n 's/^whole_folio //p' "$WORK/rec")
	echo "# large folios in the tmpfs file: ${nfo:-none} (shmem_alloc ${a0:-?} -> ${a1:-?}), kernel maps whole folios: $wf"
	grep '^folio ' "$WORK/rec" | head -n 3 | sed 's/^/# /'
	if [ -z "$fid" ]; then
		skip "record: large folios" "record did not find the file in 5 tries: mmstress had ended before the reader looked"
	elif [ "${nfo:-0}" -gt 0 ]; then
		ok "record: the huge tmpfs file's $nfo large folios"
	elif [ "$wf" = 1 ] && [ "${a1:-0}" = "${a0:-0}" ] && [ -n "$a0" ]; then
		skip "record: large folios" "the kernel allocated none (shmem_alloc $a0 before and after; fallbacks $(shmem_allocs fallback))"
	elif [ "$wf" = 1 ]; then
		fail "record: no large folio on a huge=within_size tmpfs, the kernel allocated $((${a1:-0} - ${a0:-0})) (folios line: '$(grep '^folios ' "$WORK/rec" | tr '\n' ' ')')"
	else
		skip "record: large folios" "this kernel made none on a huge=within_size tmpfs"
	fi
	if [ "$wf" = 1 ] && [ "${nfo:-0}" -gt 0 ]; then
		case_ seq_folios "$MMS" seq -q -s 8M -f "$F"
		# record reads a file's path (and its folios) from the process's
		# maps: a process that has ended by then leaves it "not found"
		if [ -n "$(rec_fid)" ]; then
			grep -q 'pages of large folios were mapped whole' "$WORK/rp" &&
				ok "seq_folios: the folios its own faults mapped whole are a bound" ||
				fail "seq_folios: no bound for the folios mapped whole"
		else
			skip "seq_folios: the bound of folios mapped whole" "record did not find the file: mmstress had ended"
		fi
	else
		skip "seq_folios: replayed against runs" "the kernel maps no whole folios (before 6.18): a PMD-sized folio is a bound"
	fi
	umount "$WORK/huge"
else
	skip "large folios" "no tmpfs with huge=within_size here"
fi

# Real programs, where the guest has them (make check's; not the matrix's
# busybox): sqlite3 scanning a 43 MiB table and looking up 200 random
# rows through its mmap, git grep over a copy of headers
if command -v sqlite3 > /dev/null; then
	sqlite3 "$WORK/db" <<-'EOF'
	CREATE TABLE t(a INTEGER PRIMARY KEY, b BLOB);
	WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 28000)
	INSERT INTO t SELECT x, randomblob(1500) FROM c;
	EOF
	Q='PRAGMA mmap_size=1073741824'
	F=$WORK/db
	case_ sqlite_scan sqlite3 -cmd "$Q" "$WORK/db" 'SELECT sum(length(b)) FROM t;'
	IDS=$(awk 'BEGIN { srand(1); for (i = 0; i < 200; i++) printf "%s%d", i ? "," : "", 1 + int(rand() * 28000) }')
	case_ sqlite_point sqlite3 -cmd "$Q" "$WORK/db" "SELECT sum(length(b)) FROM t WHERE a IN ($IDS);"
	rm -f "$WORK/db"
else
	skip "sqlite3 scan and point" "no sqlite3 here"
fi
if command -v git > /dev/null && [ -d /usr/include/linux ]; then
	cp -r /usr/include/linux "$WORK/inc"
	F=$WORK/inc
	# one thread: git grep's threads fault their own memory differently from
	# run to run (±11 faults of 790 at order 0, 1.4 %)
	case_ git_grep git -C "$WORK" grep --threads 1 --no-index -c -e mmap -- inc
	rm -rf "$WORK/inc"
else
	skip "git grep" "no git or /usr/include/linux here"
fi

sect "bad record files: clear errors, exit 1"
head -n 20 "$WORK/rec" > "$WORK/trunc"
expect_eq "a truncated record: exit 1" "$("$CTL" replay "$WORK/trunc" > /dev/null 2> "$WORK/e"; echo $?)" 1
grep -q "truncated" "$WORK/e" && ok "a truncated record: says so" || fail "truncated: '$(cat "$WORK/e")'"
echo hello > "$WORK/bad"
expect_eq "not a record: exit 1" "$("$CTL" replay "$WORK/bad" > /dev/null 2> "$WORK/e"; echo $?)" 1
grep -q "not an mmtunectl record" "$WORK/e" && ok "not a record: says so" || fail "bad: '$(cat "$WORK/e")'"
sed 's/^f 0 /f 999999 /' "$WORK/rec" > "$WORK/badf"
expect_eq "a fault of no VMA: exit 1" "$("$CTL" replay "$WORK/badf" > /dev/null 2> "$WORK/e"; echo $?)" 1
grep -q ":[0-9]*: a bad fault line" "$WORK/e" && ok "a bad line: its number" || fail "badf: '$(cat "$WORK/e")'"
expect_eq "replay --orders 99: exit 2" "$("$CTL" replay --orders 99 "$WORK/rec" > /dev/null 2>&1; echo $?)" 2
expect_eq "record without a command: exit 2" "$("$CTL" record > /dev/null 2>&1; echo $?)" 2
expect_eq "record leaves no rule" "$(rules | wc -l)" 0
expect_eq "record leaves no tracefs instance" \
	"$(ls -d /sys/kernel/tracing/instances/mmtune-record.* /sys/kernel/debug/tracing/instances/mmtune-record.* 2>/dev/null | wc -l)" 0
