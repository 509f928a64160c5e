#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# requires: sqlite3 git python3 (programs Debian ships; the matrix's busybox guests skip this suite)
# mmtunectl advise on programs nobody here wrote (docs/replay.md,
# "Advise", the table of real programs): sqlite3 scanning a table and
# looking up random rows through its mmap, git grep over the kernel's
# UAPI headers, and a Python start-up that imports 20 modules. Each is
# recorded once, advised, and run again under the advised rules
# (--apply); the measured file read faults (its fault-around calls: a
# rule at order 0 still calls it) must be within 2 % of the prediction
# (the run's other faults, anonymous memory, are not the advisor's:
# Python's took 4268 in one run and 8056 in the next on 6.1 x86_64),
# the measured untouched pages no more than predicted (usefulness can
# only miss pages: docs/replay.md), and the advised policy no more
# faults than the best single order within the same budget. THP and
# ASLR off, as for t-63-replay; git grep in one thread (threads racing
# on one window are what a record cannot replay). The programs come
# from the guest's root: make check's guest (the host's Debian) and
# make check-trace's (MMT_TRACE_TESTS=t-68-programs: 7.x x86_64 on the
# host's root, 6.12 arm64 on bookworm's arm64 user land, which has no
# Python); the matrix's busybox guests have none of them.
. "$(dirname "$0")/lib.sh"

WORK=$(mktemp -d /var/tmp/mmt-programs.XXXXXX)
CTL=${MMT_MMTUNECTL:-$MMT_TOP/userspace/mmtunectl}
on_exit replay_loud
[ -x "$CTL" ] || { fail "no $CTL (make tools)"; exit 1; }
PY=/usr/bin/python3
# has PROGRAM: in this guest (make check-trace's arm64 user land has
# sqlite3 and git, not Python); the others are skipped, said so
has() { command -v "$1" > /dev/null 2>&1; }
if ! has sqlite3 && ! has git && ! has $PY; then
	skip "real programs" "none of sqlite3, git, $PY in this guest"
	exit 0
fi
need_cgroup2

unload_module
load_module || { fail "insmod"; exit 1; }
replay_quiet programs 300m
[ "$(order)" -ge 1 ] || echo 4 > $MMT/fault_around_order
echo "# page size $(getconf PAGESIZE), kernel order $(order), max order $(info max_order)"

# the database: 40000 rows of 200 bytes (about 9 MiB), read through
# sqlite's mmap: a scan of every row, then 200 rows by random rowid
DB=$WORK/db
if has sqlite3 && ! sqlite3 "$DB" "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);
	WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 40000)
	INSERT INTO t SELECT i, printf('%0200d', i) FROM c;"; then
	fail "sqlite3: the database"; exit 1
fi
Q=$WORK/q.sql
{
	echo "PRAGMA mmap_size=268435456;"
	echo "SELECT count(*), sum(length(v)) FROM t;"
	i=0 r=12345
	while [ $i -lt 200 ]; do
		r=$(( (r * 1103515245 + 12345) % 2147483648 ))
		echo "SELECT length(v) FROM t WHERE id = $(( r % 40000 + 1 ));"
		i=$((i + 1))
	done
} > "$Q"
# git grep: a copy of linux-libc-dev's headers (/usr/include/linux, the
# same in every guest that has git) in a repository on the tmpfs, one
# thread
SRC=$WORK/src
if has git && ! { mkdir "$SRC" && cp -r /usr/include/linux "$SRC/" &&
	git -C "$SRC" init -q && git -C "$SRC" add -A > /dev/null &&
	git -C "$SRC" -c user.name=t -c user.email=t@t commit -qm t; }; then
	fail "git: the tree"; exit 1
fi
IMPORTS="json, email.message, email.parser, http.client, urllib.request, xml.dom.minidom, sqlite3, decimal, fractions, statistics, logging, argparse, csv, zipfile, tarfile, asyncio, unittest, difflib, pprint, textwrap"

jv() { json_get "$@"; }

TABLE=$WORK/table
# MMT_PROGRAMS: which of them (default all three; CI's make check:
# sqlite3, the one whose files want different orders)
PROGRAMS=${MMT_PROGRAMS:-sqlite3 git-grep python}
# want NAME: NAME is among them, and in this guest (else a skip, said so)
want() {
	case " $PROGRAMS " in *" $1 "*) ;; *) skip "$1" "not in MMT_PROGRAMS"; return 1 ;; esac
	has "$2" || { skip "$1" "no $2 in this guest"; return 1; }
}
# program NAME CMD...: record, advise, apply; the checks and a table row
program() {
	_n=$1; shift
	sect "$_n"
	"$@" > /dev/null 2>&1	# the page cache as the runs will find it
	if ! "$CTL" advise --json --record "$WORK/rec-$_n" -- "$@" > "$WORK/adv" 2> "$WORK/err"; then
		fail "$_n: advise: $(tail -n 2 "$WORK/err")"; return
	fi
	"$CTL" advise "$WORK/rec-$_n" | sed 's/^/# /'
	_af=$(jv "$WORK/adv" advised.faults) _bf=$(jv "$WORK/adv" best_single.faults)
	[ "$_af" -le "$_bf" ] && ok "$_n: advised faults no more than the best single order's ($_af <= $_bf)" ||
		fail "$_n: advised $_af faults, the best single order $_bf"
	echo 1 > $MMT/usefulness_enable
	if ! "$CTL" advise --json --apply "$WORK/rec-$_n" -- "$@" > "$WORK/app" 2> "$WORK/err"; then
		fail "$_n: advise --apply: $(tail -n 2 "$WORK/err")"
		echo 0 > $MMT/usefulness_enable; return
	fi
	echo 0 > $MMT/usefulness_enable
	_p=$(jv "$WORK/app" advised.faults) _m=$(jv "$WORK/app" measured.faults)
	_pc=$(jv "$WORK/app" measured.predicted_fault_around_calls)
	_mc=$(jv "$WORK/app" measured.fault_around_calls)
	within "$_n: file read faults (fault-around calls), predicted vs measured" "$_pc" "$_mc" 2 2
	_pu=$(jv "$WORK/app" advised.untouched) _mu=$(jv "$WORK/app" measured.untouched)
	[ "$_mu" != null ] && [ "$_mu" -le "$_pu" ] &&
		ok "$_n: untouched pages measured ($_mu) no more than predicted ($_pu)" ||
		fail "$_n: untouched pages: predicted $_pu, measured $_mu"
	_kib=$(( $(getconf PAGESIZE) / 1024 ))
	printf '| %s | %s | %s / %s | %s / %s | %s / %s | %s: %s / %s | %s |\n' "$_n" \
		"$(json_flat "$WORK/app" | grep -c '^rules\.[0-9]*\.order ')" \
		"$_pc" "$_mc" "$_p" "$_m" "$(jv "$WORK/app" advised.untouched_kib)" "$(( _mu * _kib ))" \
		"$(jv "$WORK/app" best_single.order)" "$_bf" "$(jv "$WORK/app" best_single.untouched_kib)" \
		"$(jv "$WORK/app" order_0.faults)" >> "$TABLE"
}

want sqlite3 sqlite3 && program sqlite3 sqlite3 "$DB" ".read $Q"
want git-grep git && program git-grep git -C "$SRC" -c grep.threads=1 --no-pager grep -c -e mmap -e fault
want python $PY && program python $PY -S -c "import $IMPORTS"

echo "# programs on $(uname -r) $(uname -m): | program | file rules | file read faults predicted / measured | all faults predicted / measured | untouched KiB predicted / measured | best single order: faults / KiB | order 0: faults |"
sed 's/^/# /' "$TABLE" 2>/dev/null
