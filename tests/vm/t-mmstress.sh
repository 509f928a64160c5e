#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# requires: python3 (output checks; the matrix's busybox guests skip this suite)
# mmstress, inside the guest: fault counts per order against
# independent counts, sweeps that restore the knob (also on SIGINT), every
# workload's CSV and JSON, dio's nr_hugepages, migrate on two NUMA nodes
# (or its skip status and record on one), the EOF/SIGBUS probe at every
# order, the metadata of the results against the guest (kernel, page size,
# tmpfs, each run's effective order, under a policy rule too), --plot, and
# bad input.  Small sizes: TCG is slow.
. "$(dirname "$0")/lib.sh"

PSZ=$(getconf PAGESIZE)
WORK=$(mktemp -d /var/tmp/mmt-mms.XXXXXX)
SHM=$WORK/shm
cleanup() {
	[ -n "${BGPID:-}" ] && kill "$BGPID" 2>/dev/null
	umount "$WORK/ext4" 2>/dev/null
	umount "$SHM" 2>/dev/null
	rm -rf "$WORK"
	unload_module
}
on_exit cleanup

# --- the binary: the tree's build, or $MMT_MMSTRESS, else build it here

MMS=${MMT_MMSTRESS:-}
c=$MMT_TOP/userspace/mmstress
[ -z "$MMS" ] && [ -f "$c" ] && [ -x "$c" ] && MMS=$c
if [ -z "$MMS" ] || [ ! -f "$MMS" ] || [ ! -x "$MMS" ]; then
	echo "# no mmstress binary (make tools): building one in $WORK"
	MMS=$WORK/mmstress
	if ! cc -O2 -std=gnu11 -I"$MMT_TOP/userspace/lib" -o "$MMS" \
		"$MMT_TOP"/userspace/stress/*.c "$MMT_TOP"/userspace/lib/*.c -lpthread -lm \
		2> "$WORK/cc.log"; then
		fail "build mmstress: $(tail -n 1 "$WORK/cc.log")"
		exit 1
	fi
fi
ok "mmstress binary: $MMS ($("$MMS" --version))"

mkdir "$SHM"
mount -t tmpfs -o size=600m,huge=never mmt-mms "$SHM"

unload_module
if ! load_module 2> "$WORK/err"; then
	fail "insmod mmtune: $(cat "$WORK/err")"
	exit 1
fi
KNOB=$MMT/fault_around_order
MAX=$(info max_order)
ALL=$(seq -s, 0 "$MAX")

# csvcol FILE COLUMN [NAME=VALUE...]: COLUMN of the data lines matching all
# filters; the '#' lines of metadata before the header are skipped (awk:
# python3 takes seconds to start under TCG)
csvcol() {
	local f=$1 col=$2
	shift 2
	awk -F, -v col="$col" -v flt="$*" '
	/^#/ { next }
	!hdr { for (i = 1; i <= NF; i++) h[$i] = i; nf = split(flt, fl, " "); hdr = 1; next }
	{ for (j = 1; j <= nf; j++) { split(fl[j], kv, "="); if ($h[kv[1]] != kv[2]) next }
	  print $h[col] }' "$f"
}
shm_empty() { [ -z "$(ls -A "$SHM")" ]; }

# --- 1. seq: faults fall by 2^order, exactly (one byte per page, aligned map)
sect "1. seq"
echo 2 > $KNOB
MB=16
PAGES=$((MB * 1024 * 1024 / PSZ))
if "$MMS" seq --touch page -s ${MB}M -t 1,2 -o "$ALL" -F csv -f "$SHM" > "$WORK/seq.csv" 2> "$WORK/err"; then
	o=0
	while [ $o -le "$MAX" ]; do
		for t in 1 2; do
			got=$(csvcol "$WORK/seq.csv" minor_faults order=$o threads=$t)
			expect_eq "seq $t thread(s) ${MB}M per thread, order $o: faults = $((t * PAGES))/2^$o" \
				"$got" $((t * PAGES >> o))
		done
		o=$((o + 1))
	done
	expect_eq "seq sweep restores the knob" "$(order)" 2
	shm_empty && ok "seq sweep leaves no file" || fail "seq sweep left $(ls "$SHM")"
else
	fail "seq sweep: exit $?: $(tail -n 1 "$WORK/err")"
fi

# --- 2. seq/rand/sparse against /proc/vmstat pgfault over the same window,
sect "2. seq/rand/sparse against /proc/vmstat pgfault over the same window,"
#        and seq against the rig's own probe (tests/vm/probe/faultprobe.c)
#        pgfault is system-wide: it holds mmstress's own faults (never fewer:
#        a count under minor_faults fails at once) plus whatever else faulted
#        in the window (a busybox exec is ~100). So the surplus over 2 % is
#        retried, up to three runs, and the last run is judged.
pgfault_pair() { # ORDER CSV: "minor_faults vm_pgfault"
	echo "$(csvcol "$2" minor_faults order=$1) $(csvcol "$2" vm_pgfault order=$1)"
}
for w in seq rand sparse; do
	size=32M; [ $w = sparse ] && size=1G
	for o in 0 3; do
		try=1
		while :; do
			if ! "$MMS" $w -s $size -o $o -F csv -f "$SHM" > "$WORK/$w.csv" 2> "$WORK/err"; then
				fail "$w -o $o: $(tail -n 1 "$WORK/err")"
				continue 2
			fi
			# shellcheck disable=SC2046 # the fields, split
			set -- $(pgfault_pair $o "$WORK/$w.csv")
			[ "$2" -lt "$1" ] && break
			awk -v m="$1" -v v="$2" 'BEGIN { exit !(v - m <= m * 2 / 100) }' && break
			[ $try -ge 3 ] && break
			echo "# $w order $o: pgfault $2 for $1 minor faults (run $try), others faulted: again"
			try=$((try + 1))
		done
		if [ "$2" -lt "$1" ]; then
			fail "$w order $o: vmstat pgfault $2 < minor_faults $1 (the window missed faults)"
		else
			within "$w order $o: minor_faults vs vmstat pgfault (run $try)" "$1" "$2" 2
		fi
	done
done
PROBE=$WORK/faultprobe
if [ -x "${MMT_PROBE:-}" ] && PROBE=$MMT_PROBE ||
	cc -O0 -o "$PROBE" "$MMT_TOP/tests/vm/probe/faultprobe.c" 2>/dev/null; then
	dd if=/dev/urandom of="$SHM/probe" bs=1M count=16 status=none
	for o in 0 4; do
		echo $o > $KNOB
		# shellcheck disable=SC2046 # the fields, split
		set -- $("$PROBE" "$SHM/probe")
		"$MMS" seq --touch page -s 16M -F csv -f "$SHM" > "$WORK/fp.csv" 2>/dev/null
		mf=$(csvcol "$WORK/fp.csv" minor_faults | tail -n 1)
		within "seq order $o: mmstress faults vs faultprobe" "$mf" "$4" 2
	done
	rm -f "$SHM/probe"
else
	echo "# no compiler in the guest: faultprobe comparison skipped"
fi

# --- 3. sparse: one fault per page table whatever the order
sect "3. sparse"
if "$MMS" sparse -s 256M -o 0,4,$MAX -F csv -f "$SHM" > "$WORK/sp.csv" 2>"$WORK/err"; then
	span=$((PSZ * (1 << MAX)))
	touches=$((256 * 1024 * 1024 / span))
	for o in 0 4 $MAX; do
		within "sparse order $o: faults = touches ($touches)" \
			"$(csvcol "$WORK/sp.csv" minor_faults order=$o)" $touches 2
	done
else
	fail "sparse sweep: $(tail -n 1 "$WORK/err")"
fi

# --- 4. SIGINT mid-sweep restores the knob and removes the file
sect "4. SIGINT mid-sweep restores the knob and removes the file"
echo 3 > $KNOB
"$MMS" seq -s 16M -o 0,1,5,7 -r 1000 -F csv -f "$SHM" > "$WORK/int.csv" 2> "$WORK/int.err" &
BGPID=$!
n=0
while [ "$(grep -vc '^#' "$WORK/int.csv")" -lt 3 ] && [ $n -lt 600 ]; do sleep 0.2; n=$((n + 1)); done
mid=$(order)
kill -INT $BGPID
wait $BGPID
rc=$?
BGPID=
expect_eq "SIGINT mid-sweep: exit status 130" $rc 130
case $mid in 0|1|5|7) ok "SIGINT mid-sweep: the sweep was running (order $mid)" ;;
	*) fail "SIGINT mid-sweep: order was $mid while running" ;; esac
expect_eq "SIGINT mid-sweep: knob restored" "$(order)" 3
shm_empty && ok "SIGINT mid-sweep: no file left" || fail "SIGINT left $(ls "$SHM")"
# an error mid-sweep (the command of build fails at order 5)
"$MMS" build --cmd 'test "$(cat '$KNOB')" != 5' -n 1 -o 0,5,7 --warmup 0 > /dev/null 2> "$WORK/err"
rc=$?
expect_eq "error mid-sweep: exit status 1" $rc 1
expect_eq "error mid-sweep: knob restored" "$(order)" 3
# and SIGTERM during setup (writing the file)
"$MMS" seq -s 256M -t 2 -o 5 -f "$SHM" > /dev/null 2>&1 &
BGPID=$!
sleep 0.3
kill -TERM $BGPID
wait $BGPID
BGPID=
expect_eq "SIGTERM early: knob restored" "$(order)" 3
shm_empty && ok "SIGTERM early: no file left" || fail "SIGTERM left $(ls "$SHM")"

# --- 5. every workload's CSV and JSON parse
sect "5. every workload's CSV and JSON parse"
modprobe loop 2>/dev/null
NODES=0
for n in /sys/devices/system/node/node[0-9]*; do
	[ -e "$n/meminfo" ] && [ "$(awk '/MemTotal/ {print $4}' "$n/meminfo")" != 0 ] && NODES=$((NODES + 1))
done
[ $NODES -ge 1 ] || NODES=1
HP0=$(cat /proc/sys/vm/nr_hugepages)
wl_args() {
	case $1 in
	seq|rand) echo "-s 8M -t 1,2 -o 0,4 --warmup 0" ;;
	sparse) echo "-s 64M -t 1,2 -o 0,4 --warmup 0" ;;
	build) echo "-n 3 -t 1,2 --warmup 0" ;;
	ebizzy) echo "-s 4M -n 20 -t 1,2 -r 2 --warmup 0" ;;
	dio) echo "-s 8M -t 1,2 --warmup 0" ;;
	migrate) echo "-s 8M -t 1,2 -n 1 --warmup 0" ;;
	pfnscan) echo "-t 1,2 --warmup 0" ;;
	eofprobe) echo "-o 0,$MAX" ;;
	esac
}
mkdir "$WORK/fmt"
for w in seq rand sparse build ebizzy dio migrate pfnscan eofprobe; do
	for fmt in csv json; do
		# shellcheck disable=SC2046
		"$MMS" $w $(wl_args $w) -F $fmt -f "$SHM" > "$WORK/fmt/$w.$fmt" 2> "$WORK/err"
		rc=$?
		if [ $rc = 77 ]; then
			ok "$w --format $fmt: skipped (77): $(tail -n 1 "$WORK/err")"
			rm "$WORK/fmt/$w.$fmt"
		elif [ $rc != 0 ]; then
			fail "$w --format $fmt: exit $rc: $(tail -n 1 "$WORK/err")"
			rm "$WORK/fmt/$w.$fmt"
		fi
	done
done
# one python3 for all of them: records, and the metadata each carries
python3 - "$(uname -r)" "$PSZ" "$(info version)" "$SHM" "$WORK"/fmt/* <<'EOF'
import csv, json, os, subprocess, sys
kernel, page, modver, shm = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
need = "workload,order,effective_order,threads,run,minor_faults,major_faults,seconds,throughput,unit".split(",")
for path in sys.argv[5:]:
    w, fmt = os.path.basename(path).split(".")
    try:
        keys = need if w != "eofprobe" else ["workload", "order", "effective_order", "pages_past_eof", "sigbus", "result"]
        if fmt == "csv":
            lines = open(path).read().splitlines()
            meta = dict(l[2:].split(": ", 1) for l in lines if l.startswith("# "))
            rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
            meta["page_size"] = int(meta["page_size"])
        else:
            subprocess.run([sys.executable, "-m", "json.tool", path], check=True, stdout=subprocess.DEVNULL)
            doc = json.load(open(path))
            meta, rows = doc["meta"], doc["runs"]
            assert meta["status"] == "done", meta["status"]
        assert meta["workload"] == w and meta["kernel"] == kernel and meta["page_size"] == page, meta
        assert meta["module_version"] == modver and meta["order_via"] == "module", meta
        if w in ("seq", "rand", "sparse", "dio", "migrate", "eofprobe"):
            assert meta["file_fs"] == "tmpfs" and meta["file"].startswith(shm + "/"), meta
        assert isinstance(rows, list) and rows, "no records"
        for r in rows:
            for k in keys:
                assert k in r, "no column " + k
            assert str(r["workload"]) == w, r["workload"]
            if str(r["order"]) not in ("", "None"):
                assert str(r["effective_order"]) == str(r["order"]), r
            if w != "eofprobe":
                float(r["seconds"]); int(r["minor_faults"]); int(r["major_faults"])
                assert float(r["throughput"]) > 0, "throughput 0"
            else:
                assert r["result"] == "ok", r
        print("ok - %s --format %s parses: %d records, metadata (kernel, page size, tmpfs)" % (w, fmt, len(rows)))
    except Exception as e:
        print("not ok - %s --format %s: %r" % (w, fmt, e))
EOF
shm_empty && ok "workloads leave no file" || fail "workloads left $(ls "$SHM")"
expect_eq "workloads leave the knob alone" "$(order)" 3

# --- 6. dio restores nr_hugepages (also on SIGINT) and runs at 64K and 1M
sect "6. dio restores nr_hugepages (also on SIGINT) and runs at 64K and 1M"
expect_eq "dio restored nr_hugepages" "$(cat /proc/sys/vm/nr_hugepages)" "$HP0"
"$MMS" dio -s 16M -F csv -f "$SHM" > "$WORK/dio.csv" 2> "$WORK/err"
rc=$?
if [ $rc = 0 ]; then
	expect_eq "dio: 64K and 1M blocks" "$(csvcol "$WORK/dio.csv" block | tr '\n' ' ')" "65536 1048576 "
	echo "# dio: $(csvcol "$WORK/dio.csv" throughput | tr '\n' ' ')MB/s; $(tail -n 1 "$WORK/err")"
	"$MMS" dio -s 16M -n 100000 -q -f "$SHM" > /dev/null 2>&1 &
	BGPID=$!
	n=0
	while [ "$(cat /proc/sys/vm/nr_hugepages)" = "$HP0" ] && [ $n -lt 300 ]; do sleep 0.2; n=$((n + 1)); done
	raised=$(cat /proc/sys/vm/nr_hugepages)
	sleep 1
	kill -INT $BGPID
	wait $BGPID
	BGPID=
	[ "$raised" != "$HP0" ] && ok "dio raised nr_hugepages to $raised" || fail "dio never raised nr_hugepages"
	expect_eq "dio SIGINT restores nr_hugepages" "$(cat /proc/sys/vm/nr_hugepages)" "$HP0"
	shm_empty && ok "dio SIGINT: no file left" || fail "dio SIGINT left $(ls "$SHM")"
	[ -z "$(losetup -a 2>/dev/null | grep mmstress)" ] && ok "dio: no loop device left" ||
		fail "dio left $(losetup -a | grep mmstress)"
	# the reader goes away mid-sweep: EPIPE stops it and everything is
	# put back (SIGPIPE used to kill it with order, file, huge pages left);
	# 40 runs: the sweep outlasts head's start under a loaded TCG
	echo 3 > $KNOB
	"$MMS" dio -s 8M -o 0,$MAX -r 10 --warmup 0 -q -F csv -f "$SHM" 2> "$WORK/pipe.err" | head -n 2 > "$WORK/pipe.csv"
	rc=${PIPESTATUS[0]}
	expect_eq "dio | head -2: two lines read" "$(wc -l < "$WORK/pipe.csv")" 2
	expect_eq "dio | head -2: ends by SIGPIPE after cleaning up (141)" "$rc" 141
	expect_eq "dio | head -2: order restored" "$(order)" 3
	expect_eq "dio | head -2: nr_hugepages restored" "$(cat /proc/sys/vm/nr_hugepages)" "$HP0"
	shm_empty && ok "dio | head -2: no file left" || fail "dio | head -2 left $(ls "$SHM")"
	[ -z "$(losetup -a 2>/dev/null | grep mmstress)" ] && ok "dio | head -2: no loop device left" ||
		fail "dio | head -2 left $(losetup -a | grep mmstress)"
	[ -s "$WORK/pipe.err" ] && fail "dio | head -2: stderr: $(tail -n 1 "$WORK/pipe.err")" ||
		ok "dio | head -2: nothing on stderr"
elif [ $rc = 77 ]; then
	ok "dio skipped here (77): $(tail -n 1 "$WORK/err")"
else
	fail "dio: exit $rc: $(tail -n 1 "$WORK/err")"
fi
expect_eq "dio leaves nr_hugepages as found" "$(cat /proc/sys/vm/nr_hugepages)" "$HP0"

# --- 7. migrate: two nodes, or the skip status
sect "7. migrate"
"$MMS" migrate -s 16M -t 1 -F csv -f "$SHM" > "$WORK/mig.csv" 2> "$WORK/err"
rc=$?
if [ "$NODES" -ge 2 ]; then
	expect_eq "migrate with $NODES nodes: exit 0" $rc 0
	if [ $rc = 0 ]; then
		echo "# migrate: $(csvcol "$WORK/mig.csv" throughput) MB/s, pgmigrate_success $(csvcol "$WORK/mig.csv" vm_pgmigrate_success)"
		ms=$(csvcol "$WORK/mig.csv" vm_pgmigrate_success)
		# 2 passes there and back over 16M: 4 x 4096 pages.  The vmstat
		# counter is global: compaction and other migrations in the
		# guest may add to it, never take from it.
		want=$((4 * 16 * 1024 * 1024 / PSZ))
		if [ "$ms" -ge "$want" ] && [ "$ms" -le $((want * 5 / 4)) ]; then
			ok "migrate: pgmigrate_success covers the pages moved ($ms >= $want)"
		else
			fail "migrate: pgmigrate_success $ms, want $want..$((want * 5 / 4))"
		fi
	fi
else
	expect_eq "migrate with one node: skip status 77" $rc 77
	grep -q "NUMA" "$WORK/err" && ok "migrate says why it skips: $(cat "$WORK/err")" ||
		fail "migrate skip message: $(cat "$WORK/err")"
	expect_eq "migrate skipped: the CSV says so" "$(grep '^# status: ' "$WORK/mig.csv")" "# status: skipped"
	"$MMS" migrate -s 16M -t 1 -F json -f "$SHM" > "$WORK/mig.json" 2> /dev/null
	check "migrate skipped: its JSON record, with the reason" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["meta"]["status"] == "skipped" and "NUMA" in d["meta"]["reason"] and d["runs"] == [], d["meta"]' "$WORK/mig.json"
	echo "# one NUMA node: boot with tests/vm/vng.sh --numa for the two-node run"
fi

# --- 8. EOF probe: SIGBUS past EOF at every order, on tmpfs and on ext4
sect "8. EOF probe"
if "$MMS" eofprobe -o "$ALL" -f "$SHM" > "$WORK/eof" 2> "$WORK/err"; then
	ok "eofprobe tmpfs, orders $ALL: $(grep -c ' ok$' "$WORK/eof") orders ok"
else
	fail "eofprobe tmpfs: $(grep FAIL "$WORK/eof" | head -n 1) $(tail -n 1 "$WORK/err")"
fi
if command -v mkfs.ext4 > /dev/null && truncate -s 64M "$SHM/ext4.img" &&
	mkfs.ext4 -q -F "$SHM/ext4.img" 2>/dev/null && mkdir -p "$WORK/ext4" &&
	mount -o loop "$SHM/ext4.img" "$WORK/ext4" 2>/dev/null; then
	if "$MMS" eofprobe -o "$ALL" -f "$WORK/ext4" > "$WORK/eof" 2> "$WORK/err"; then
		ok "eofprobe ext4, orders $ALL: $(grep -c ' ok$' "$WORK/eof") orders ok"
	else
		fail "eofprobe ext4: $(grep FAIL "$WORK/eof" | head -n 1) $(tail -n 1 "$WORK/err")"
	fi
	umount "$WORK/ext4"
	rm -f "$SHM/ext4.img"
else
	echo "# no ext4 on a loop device here: eofprobe on tmpfs only"
	rm -f "$SHM/ext4.img"
fi
expect_eq "eofprobe restores the knob" "$(order)" 3

# --- 9. what the results were measured on, against the guest
sect "9. metadata and effective orders"
echo 3 > $KNOB
THP=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
if "$MMS" seq -s 4M -t 1,2 -o 0,$MAX -r 2 --warmup 0 -q -F json -f "$SHM" > "$WORK/m.json" 2> "$WORK/err"; then
	check "metadata: kernel, arch, page size, THP, tmpfs, module, the order found; effective = set" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m, runs = d["meta"], d["runs"]
want = dict(kernel=sys.argv[2], arch=sys.argv[3], page_size=int(sys.argv[4]), file_fs="tmpfs",
            module_version=sys.argv[5], order_via="module", order_found=3, thp=sys.argv[7] or None,
            orders=[0, int(sys.argv[6])], threads=[1, 2], repeat=2, status="done", policy_rule=None)
bad = {k: (m.get(k), v) for k, v in want.items() if m.get(k) != v}
assert not bad, bad
assert m["file"].startswith(sys.argv[8] + "/"), m["file"]
assert [(r["order"], r["effective_order"], r["run"]) for r in runs] == \
    [(o, o, i) for o in (0, int(sys.argv[6])) for t in (1, 2) for i in (1, 2)], runs' \
		"$WORK/m.json" "$(uname -r)" "$(uname -m)" "$PSZ" "$(info version)" "$MAX" "$THP" "$SHM"
else
	fail "metadata sweep: $(tail -n 1 "$WORK/err")"
fi
echo 2 > $KNOB
"$MMS" seq -s 4M --warmup 0 -q -F csv -f "$SHM" > "$WORK/m.csv" 2> "$WORK/err"
expect_eq "no --orders: order empty, effective order the knob's (2)" \
	"$(csvcol "$WORK/m.csv" order),$(csvcol "$WORK/m.csv" effective_order)" ",2"
expect_eq "csv '#' lines: page size" "$(sed -n 's/^# page_size: //p' "$WORK/m.csv")" "$PSZ"
expect_eq "csv '#' lines: kernel" "$(sed -n 's/^# kernel: //p' "$WORK/m.csv")" "$(uname -r)"
expect_eq "csv '#' lines: file system" "$(sed -n 's/^# file_fs: //p' "$WORK/m.csv")" tmpfs
expect_eq "csv '#' lines: the order found" "$(sed -n 's/^# order_found: //p' "$WORK/m.csv")" 2
# a rule for mmstress is the order it has, whatever the sweep sets
if wr $MMT/policy "comm=mmstress order=1" > /dev/null; then
	"$MMS" seq --touch page -s 4M -o 0,$MAX --warmup 0 -q -F csv -f "$SHM" > "$WORK/p.csv" 2> "$WORK/err"
	expect_eq "under comm=mmstress order=1: orders set" "$(csvcol "$WORK/p.csv" order | tr '\n' ' ')" "0 $MAX "
	expect_eq "under comm=mmstress order=1: effective order 1" "$(csvcol "$WORK/p.csv" effective_order | tr '\n' ' ')" "1 1 "
	# and it is the order the faults show: one per 2 pages at both
	p4=$((4 * 1024 * 1024 / PSZ))
	expect_eq "under comm=mmstress order=1: faults $p4/2 at orders 0 and $MAX" \
		"$(csvcol "$WORK/p.csv" minor_faults | tr '\n' ' ')" "$((p4 / 2)) $((p4 / 2)) "
	expect_eq "under comm=mmstress order=1: the rule in the metadata" \
		"$(sed -n 's/^# policy_rule: //p' "$WORK/p.csv")" "comm=mmstress order=1"
	wr $MMT/policy clear > /dev/null
else
	skip "effective order under a policy rule" "policy: $(info policy)"
fi
expect_eq "metadata checks leave the knob" "$(order)" 2
echo 3 > $KNOB
if command -v gnuplot > /dev/null; then
	"$MMS" seq -s 4M -t 1,2 -o 0,2,4 --warmup 0 -q -f "$SHM" --plot "$WORK/seq.svg" > /dev/null 2> "$WORK/err"
	expect_eq "--plot: exit 0" "$?" 0
	expect_eq "--plot: an SVG with a line per thread count in each panel" \
		"$(grep -o 'id="gnuplot_plot_[0-9]*[ab]"' "$WORK/seq.svg" | sort | tr '\n' ' ')" \
		'id="gnuplot_plot_1a" id="gnuplot_plot_1b" id="gnuplot_plot_2a" id="gnuplot_plot_2b" '
	grep -q '</svg>' "$WORK/seq.svg" && grep -q '>2 threads<' "$WORK/seq.svg" &&
		ok "--plot: whole SVG, keys per thread count" || fail "--plot: $(tail -c 200 "$WORK/seq.svg")"
else
	skip "--plot" "no gnuplot here (tests/deps/mmstress.txt: gnuplot-nox)"
fi

# --- 10. bad input: exit 2, one line, nothing left, knob unchanged
sect "10. bad input"
mkdir -p "$WORK/ro"
mount -t tmpfs -o ro mmt-ro "$WORK/ro"
bad() {
	local name=$1; shift
	"$MMS" "$@" > "$WORK/bad.out" 2> "$WORK/bad.err"
	local rc=$? lines
	lines=$(wc -l < "$WORK/bad.err")
	if [ $rc = 2 ] && [ "$lines" = 1 ] && [ ! -s "$WORK/bad.out" ] && shm_empty &&
		[ -z "$(ls -A "$WORK/ro")" ] && [ "$(order)" = 3 ]; then
		ok "bad input $name: exit 2: $(cat "$WORK/bad.err")"
	else
		fail "bad input $name: exit $rc, $lines line(s), order $(order), left: $(ls -A "$SHM") $(cat "$WORK/bad.err" | head -n 2 | tr '\n' '|')"
	fi
}
bad "--size 0" seq --size 0 -o 1,2 -f "$SHM"
bad "--size -1" seq --size -1 -o 1,2 -f "$SHM"
bad "--size 12Q" seq --size 12Q -o 1,2 -f "$SHM"
bad "--threads 0" seq --threads 0 -o 1,2 -f "$SHM"
bad "--threads a,b" seq --threads a,b -o 1,2 -f "$SHM"
bad "unknown workload" frobnicate -o 1,2
bad "--orders $((MAX + 1))" seq --orders 1,$((MAX + 1)) -f "$SHM"
bad "--file on a read-only fs (dir)" seq -o 1,2 --file "$WORK/ro"
bad "--file on a read-only fs (path)" seq -o 1,2 --file "$WORK/ro/f"
bad "--file in a missing dir" seq -o 1,2 --file "$WORK/nonexistent/f"
bad "--size too large for tmpfs" seq -s 100G -o 1,2 -f "$SHM"
bad "--format xml" seq --format xml
bad "--repeat 0" seq --repeat 0
umount "$WORK/ro"

unload_module
sect "done"
