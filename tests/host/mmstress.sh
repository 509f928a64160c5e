# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/host/run.sh: mmstress's results and plots on the host,
# against the fake debugfs tree (the sweep writes the fixture's knob, the
# workloads run on the host's kernel): the metadata of JSON and CSV against
# uname, getconf and the tmpfs the file is on, each run's effective order
# (the knob, or the first policy rule matching mmstress), the record of a
# skipped run, and --plot (a valid SVG, a line per thread count; no
# gnuplot or a failing one leaves no file).  Needs $MMS, $PY, $W, fresh().

# mms_json NAME PYEXPR: like t_json, with m = d["meta"], runs = d["runs"]
mms_json() {
	t_json "$1" "(lambda m, runs: $2)(d['meta'], d['runs'])"
}

# csv_meta: the '#' lines of $W/out as JSON {key: value} on stdout
csv_meta() {
	$PY -c 'import json, sys
print(json.dumps(dict(l[2:].rstrip("\n").split(": ", 1) for l in open(sys.argv[1]) if l.startswith("# "))))' "$W/out"
}

# fmt_size BYTES: as mmstress writes a size (64M, 8K, 4097)
fmt_size() {
	local b=$1
	if [ $((b % (1 << 30))) = 0 ]; then echo $((b >> 30))G
	elif [ $((b % (1 << 20))) = 0 ]; then echo $((b >> 20))M
	elif [ $((b % 1024)) = 0 ]; then echo $((b >> 10))K
	else echo "$b"; fi
}

mms_host() {
	local shm dir cg kv uname_r uname_m before nodes
	shm=/dev/shm
	dir=$(mktemp -d "$shm/mmt-host.XXXXXX" 2>/dev/null) || { skip "mmstress results" "no /dev/shm"; return; }
	uname_r=$(uname -r)
	uname_m=$(uname -m)
	fresh
	before=$(cat "$T/fault_around_order")

	# --- the metadata against the machine, and each run's order
	run "$MMS" seq -s 1M -t 1,2 -o 0,3 -r 2 --warmup 0 -q -F json -f "$dir"
	expect_eq "mmstress json: exit 0" "$RC" 0
	check "mmstress json: python3 -m json.tool takes it" $PY -m json.tool "$W/out"
	mms_json "mmstress json: kernel, arch, page size, tmpfs, version" \
		"m['kernel'] == '$uname_r' and m['arch'] == '$uname_m' and m['page_size'] == $PAGE and m['file'].startswith('$dir/mmstress.') and m['file_fs'] == ('tmpfs' if '$(stat -f -c %T "$dir")' == 'tmpfs' else m['file_fs']) and m['mmtune_version'] == '$VERSION' and m['module_version'] == '0.1.0' and m['order_via'] == 'module'"
	expect_eq "mmstress json: /dev/shm is tmpfs here" "$(stat -f -c %T "$dir")" tmpfs
	mms_json "mmstress json: THP mode as sysfs says" \
		"m['thp'] == '$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)' or not m['thp']"
	mms_json "mmstress json: the sweep as asked, the order found, status done" \
		"m['orders'] == [0, 3] and m['threads'] == [1, 2] and m['repeat'] == 2 and m['order_found'] == $before and m['status'] == 'done' and m['reason'] is None and m['workload'] == 'seq' and m['command'][1:3] == ['seq', '-s']"
	mms_json "mmstress json: each run's effective order is the order set, run = 1..repeat" \
		"[(r['order'], r['effective_order'], r['threads'], r['run']) for r in runs] == [(o, o, t, i) for o in (0, 3) for t in (1, 2) for i in (1, 2)]"
	t_file "mmstress json: the knob restored" "$T/fault_around_order" "$before"

	# --- the policy's first matching rule is the effective order
	cg=$(sed -n 's/^0:://p' /proc/self/cgroup)
	printf '# rules 3/32\n# kernel order=6\n# default order=4 hits=0 pages=-\ncomm=other order=5 # hits=0 pages=-\ncgroup=/no/such/mmt order=6 # hits=0 pages=-\ncomm=mmstress order=1 # hits=0 pages=-\n' > "$T/policy"
	run "$MMS" seq -s 1M -o 0,3 --warmup 0 -q -F json -f "$dir"
	mms_json "mmstress under comm=mmstress order=1: effective order 1" \
		"m['policy_rule'] == 'comm=mmstress order=1' and [(r['order'], r['effective_order']) for r in runs] == [(0, 1), (3, 1)]"
	printf '# rules 3/32\ncomm=other order=auto # hits=0 pages=- auto_order=2 raised=0 lowered=2 learned=900 useful=10.0%%\ncomm=mmstress order=auto # hits=0 pages=- auto_order=7 raised=3 lowered=0 learned=9000 useful=99.0%%\ncomm=mmstress order=1 # hits=0 pages=-\n' > "$T/policy"
	run "$MMS" seq -s 1M -o 0 --warmup 0 -q -F json -f "$dir"
	mms_json "mmstress under comm=mmstress order=auto: effective order its auto_order (7)" \
		"m['policy_rule'] == 'comm=mmstress order=auto' and [r['effective_order'] for r in runs] == [7]"
	if [ -n "$cg" ]; then
		printf '# rules 2/32\ncgroup=%s order=2 # hits=0 pages=-\ncomm=mmstress order=1 # hits=0 pages=-\n' "$cg" > "$T/policy"
		run "$MMS" seq -s 1M -o 0 --warmup 0 -q -F json -f "$dir"
		mms_json "mmstress: the first matching rule wins (cgroup=$cg order=2)" \
			"m['policy_rule'] == 'cgroup=$cg order=2' and [r['effective_order'] for r in runs] == [2]"
	fi
	rm -f "$T/policy"

	# --- without --orders: no order, the knob's as effective order
	run "$MMS" seq -s 1M --warmup 0 -q -F json -f "$dir"
	mms_json "mmstress without --orders: order null, effective order the knob's ($before)" \
		"m['orders'] is None and [(r['order'], r['effective_order']) for r in runs] == [(None, $before)]"

	# --- CSV: the same metadata as '#' lines, then the header
	run "$MMS" seq -s 1M -t 1,2 -o 0,3 --warmup 0 -q -F csv -f "$dir"
	expect_eq "mmstress csv: exit 0" "$RC" 0
	kv=$(csv_meta)
	$PY -c 'import json, sys
m = json.loads(sys.argv[1])
assert m["kernel"] == sys.argv[2] and m["page_size"] == sys.argv[3] and m["file_fs"] == "tmpfs", m
assert m["orders"] == "0,3" and m["threads"] == "1,2" and m["order_found"] == sys.argv[4], m' \
		"$kv" "$uname_r" "$PAGE" "$before" 2>"$W/py.err" &&
		ok "mmstress csv: '#' lines hold kernel, page size, tmpfs, the sweep" ||
		fail "mmstress csv: '#' lines: $(tail -n 1 "$W/py.err")"
	expect_eq "mmstress csv: '#' lines first, then the header" \
		"$(grep -v '^#' "$W/out" | head -n 1 | cut -d, -f1-5)" "workload,order,effective_order,threads,run"
	expect_eq "mmstress csv: effective order of each row" \
		"$(grep -v '^#' "$W/out" | awk -F, 'NR > 1 { printf "%s=%s ", $2, $3 }')" "0=0 0=0 3=3 3=3 "
	run "$MMS" seq -s 1M -t 1,2 -o 0,3 --warmup 0 -q -F json -f "$dir"
	$PY -c 'import json, sys
j = set(json.load(open(sys.argv[1]))["meta"]) - {"status", "reason"}
c = set(json.loads(sys.argv[2]))
assert j == c, (j ^ c)' "$W/out" "$kv" 2>"$W/py.err" &&
		ok "mmstress: CSV '#' keys are JSON's meta keys" || fail "mmstress: CSV vs JSON keys: $(tail -n 1 "$W/py.err")"

	# --- a skipped run still writes its record, with the reason
	nodes=$(tr ',' '\n' < /sys/devices/system/node/has_memory 2>/dev/null | grep -c .)
	if [ "${nodes:-1}" -le 1 ] && ! grep -q - /sys/devices/system/node/has_memory 2>/dev/null; then
		run "$MMS" migrate -s 1M -q -F json -f "$dir"
		expect_eq "mmstress migrate, one node: exit 77" "$RC" 77
		mms_json "mmstress migrate skipped: record with status and reason" \
			"m['status'] == 'skipped' and 'NUMA' in m['reason'] and runs == [] and m['workload'] == 'migrate'"
		run "$MMS" migrate -s 1M -q -F csv -f "$dir"
		expect_eq "mmstress migrate skipped, csv: status line" "$(grep '^# status: ' "$W/out")" "# status: skipped"
		t_grep "mmstress migrate skipped, csv: reason line" out '^# reason: .*NUMA'
		expect_eq "mmstress migrate skipped, csv: the header, no row" "$(grep -v '^#' "$W/out" | cut -d, -f1)" workload
	else
		skip "mmstress skip record" "this host has several NUMA nodes (t-mmstress checks it in a one-node guest)"
	fi

	# --- --plot: an SVG, one line per thread count
	if ! command -v gnuplot > /dev/null; then
		fail "mmstress --plot: gnuplot not installed (tests/deps/mmstress.txt: gnuplot-nox)"
	else
		run "$MMS" seq -s 1M -t 1,2,3 -o 0,2,4 --warmup 0 -q -F csv -f "$dir" --plot "$W/p.svg"
		expect_eq "mmstress --plot: exit 0" "$RC" 0
		$PY - "$W/p.svg" <<-'EOF' 2>"$W/py.err" && ok "mmstress --plot: SVG, 3 lines a panel, one per thread count" || fail "mmstress --plot: $(tail -n 1 "$W/py.err")"
		import re, sys, xml.etree.ElementTree as ET
		root = ET.parse(sys.argv[1]).getroot()
		assert root.tag.endswith("svg"), root.tag
		ids = [g.get("id") for g in root.iter() if re.match(r"gnuplot_plot_\d+[ab]$", g.get("id") or "")]
		assert sorted(ids) == sorted("gnuplot_plot_%d%s" % (i, p) for i in (1, 2, 3) for p in "ab"), ids
		text = "".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
		for k in ("1 thread", "2 threads", "3 threads", "minor faults", "fault-around order"):
		    assert k in text, "no " + k
		EOF
		ls "$W"/p.svg.* > /dev/null 2>&1 && fail "mmstress --plot left $(ls "$W"/p.svg.*)" || ok "mmstress --plot: no temporary file left"
		# no gnuplot: says so, exit 1, before the sweep (knob, file untouched)
		echo 7 > "$T/fault_around_order"
		t_rc "mmstress --plot without gnuplot: exit 1" 1 env PATH=/nonexistent "$MMS" seq -s 1M -o 0 -q -f "$dir" --plot "$W/q.svg"
		t_grep "mmstress --plot without gnuplot: names gnuplot-nox" err gnuplot-nox
		[ -e "$W/q.svg" ] && fail "mmstress --plot without gnuplot wrote q.svg" || ok "mmstress --plot without gnuplot: no file"
		t_file "mmstress --plot without gnuplot: knob untouched" "$T/fault_around_order" 7
		# a gnuplot that fails half way: the old file stays, no partial one
		mkdir -p "$W/fakebin"
		printf '#!/bin/sh\nout=$(sed -n "s/^set output .\\(.*\\).$/\\1/p")\necho "<svg" > "$out"\necho "gnuplot: broken" >&2\nexit 1\n' > "$W/fakebin/gnuplot"
		chmod +x "$W/fakebin/gnuplot"
		echo old > "$W/q.svg"
		run env PATH="$W/fakebin:$PATH" "$MMS" seq -s 1M -o 0 -q -f "$dir" --plot "$W/q.svg"
		expect_eq "mmstress --plot, gnuplot fails: exit 1" "$RC" 1
		t_file "mmstress --plot, gnuplot fails: the old file stays" "$W/q.svg" old
		ls "$W"/q.svg.* > /dev/null 2>&1 && fail "mmstress --plot, gnuplot fails: left $(ls "$W"/q.svg.*)" ||
			ok "mmstress --plot, gnuplot fails: no partial file"
	fi
	# --- a --size that is not whole page tables (sparse) or pages: rounded
	# up, said on stderr, and the records carry the size used
	local span ptes
	fresh
	ptes=$(sed -n 's/^ptrs_per_pte: *//p' "$T/info")
	span=$((ptes * PAGE))
	run "$MMS" sparse -s $((span / 2)) --warmup 0 -q -F json -f "$dir"
	expect_eq "mmstress sparse -s span/2: exit 0" "$RC" 0
	t_grep "mmstress sparse -s span/2: stderr says the size is rounded up to the span ($span)" err \
		"^mmstress: warning: sparse: --size $(fmt_size $((span / 2))) rounded up to $(fmt_size $span) per thread: .*page table"
	mms_json "mmstress sparse -s span/2: the runs' size is the span" "[r['size'] for r in runs] == [$span]"
	run "$MMS" sparse -s $span --warmup 0 -q -F csv -f "$dir"
	expect_eq "mmstress sparse -s span: nothing on stderr" "$(cat "$W/err")" ""
	run "$MMS" seq -s $((PAGE + 1)) --warmup 0 -q -F csv -f "$dir"
	t_grep "mmstress seq -s page+1: stderr says whole pages" err \
		"^mmstress: warning: seq: --size $((PAGE + 1)) rounded up to $(fmt_size $((PAGE * 2))) per thread: whole pages"
	t_rc "mmstress --plot in a missing directory: exit 2" 2 "$MMS" seq -s 1M --plot "$W/no/such/p.svg" -f "$dir"
	t_rc "mmstress eofprobe --plot: exit 2" 2 "$MMS" eofprobe --plot "$W/e.svg" -f "$dir"
	[ -z "$(ls -A "$dir")" ] && ok "mmstress results: no test file left" || fail "mmstress results left $(ls "$dir")"
	rm -rf "$dir"
}
mms_host
