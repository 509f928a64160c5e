#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# requires: python3 (output checks; the matrix's busybox guests skip this suite)
# mmtunectl, inside the guest: without the module get/set use the
# kernel's knob and say so; with it, set/get round trips for every knob,
# status --json against info, stats --watch deltas during a workload, bad
# values refused before anything is written, and a clear error (exit 1)
# for an unprivileged user.
. "$(dirname "$0")/lib.sh"

KFA=$DBG/fault_around_bytes
PSZ=$(getconf PAGESIZE)
WORK=$(mktemp -d /var/tmp/mmt-ctl.XXXXXX)
chmod 755 "$WORK"
BGPID=
cleanup() {
	[ -n "$BGPID" ] && kill "$BGPID" 2>/dev/null
	[ -n "${RP:-}" ] && kill "$RP" 2>/dev/null
	unload_module
	[ -n "${ORIG:-}" ] && echo "$ORIG" > $KFA
	rm -rf "$WORK"
}
on_exit cleanup

# --- the binary: the tree's build, or $MMT_MMTUNECTL, else build it here
CTL=${MMT_MMTUNECTL:-$MMT_TOP/userspace/mmtunectl}
if [ ! -f "$CTL" ] || [ ! -x "$CTL" ]; then
	echo "# no mmtunectl at $CTL: building one in $WORK"
	CTL=$WORK/mmtunectl
	if ! cc -O2 -std=gnu11 -I"$MMT_TOP/userspace/lib" -I"$MMT_TOP/userspace/ctl" -I"$MMT_TOP/module" \
		-o "$CTL" "$MMT_TOP"/userspace/ctl/*.c "$MMT_TOP"/userspace/lib/*.c 2> "$WORK/cc.log"; then
		fail "build mmtunectl: $(tail -n 1 "$WORK/cc.log")"
		exit 1
	fi
fi
ok "mmtunectl binary: $CTL ($("$CTL" --version))"

# show: the last run's stdout, as "# | " lines
show() { sed 's/^/# | /' "$WORK/out"; }

unload_module
ORIG=$(cat $KFA)
KMAX=$(log2 $((PSZ / 8)))

# --- without the module: the kernel's own fault_around_bytes
t_out "no module: get fault_around_order" "$(log2 $((ORIG / PSZ)))" "$CTL" get fault_around_order
t_grep "no module: get says it uses fault_around_bytes" err "note: mmtune module not loaded, using the kernel's $KFA"
t_rc "no module: set fault_around_order 2" 0 "$CTL" set fault_around_order 2
t_grep "no module: set says so" err "using the kernel's $KFA"
expect_eq "no module: kernel knob = page_size << 2" "$(cat $KFA)" $((PSZ << 2))
t_out "no module: get after set" 2 "$CTL" get fault_around_order
t_rc "no module: set default" 0 "$CTL" set fault_around_order default
expect_eq "no module: default is 64 KiB" "$(cat $KFA)" 65536
echo $((PSZ << 2)) > $KFA
t_rc "no module: set $((KMAX + 1)) refused" 2 "$CTL" set fault_around_order $((KMAX + 1))
expect_eq "no module: refused value changes nothing" "$(cat $KFA)" $((PSZ << 2))
t_rc "no module: get stats says so" 1 "$CTL" get stats
t_grep "no module: names modprobe" err "modprobe mmtune"
t_rc "no module: stats" 1 "$CTL" stats
t_rc "no module: status" 0 "$CTL" status
t_grep "no module: status says not loaded" out '^module: +not loaded'
run "$CTL" status --json
t_json "no module: status --json" "d['module_loaded'] is False and d['via'] == 'kernel' and d['fault_around_order'] == 2 and d['info'] is None"
echo "$ORIG" > $KFA

# --- with the module
if ! load_module 2> "$WORK/err"; then
	fail "insmod mmtune: $(errline)"
	exit 1
fi
MAX=$(info max_order)
DEF=$(info default_order)
o=0
while [ $o -le "$MAX" ]; do
	run "$CTL" set fault_around_order $o
	if [ "$RC" = 0 ] && [ ! -s "$WORK/err" ]; then
		t_out "order $o: get reads it back" $o "$CTL" get fault_around_order
		expect_eq "order $o: the module's file" "$(cat $MMT/fault_around_order)" $o
		expect_eq "order $o: kernel's bytes" "$(cat $KFA)" $((PSZ << o))
	else
		fail "set fault_around_order $o: exit $RC: $(errline)"
	fi
	o=$((o + 1))
done
echo 2 > $MMT/fault_around_order
for bad in -1 $((MAX + 1)) 12x 99999999999999999999 "" " 3" 0x3 DEFAULT; do
	t_rc "set fault_around_order '$bad': exit 2" 2 "$CTL" set fault_around_order "$bad"
	expect_eq "set '$bad' changes nothing" "$(cat $MMT/fault_around_order)/$(cat $KFA)" "2/$((PSZ << 2))"
done
t_rc "set fault_around_order default" 0 "$CTL" set fault_around_order default
expect_eq "default gives default_order" "$(cat $MMT/fault_around_order)" "$DEF"
echo $((PSZ << 3)) > $KFA
t_out "get follows the kernel's own knob" 3 "$CTL" get fault_around_order

# status against info
run "$CTL" status
t_grep "status: module loaded" out '^module: +loaded'
t_grep "status: order 3" out '^fault_around_order: +3$'
show
run "$CTL" status --json
t_json "status --json reflects info" "d['module_loaded'] is True and d['via'] == 'module' and d['info'] == info and d['fault_around_order'] == 3 and d['fault_around_bytes'] == $((PSZ << 3)) and d['max_order'] == $MAX == int(info['max_order']) and d['default_order'] == $DEF and d['arch'] == info['arch'] and d['page_size'] == $PSZ and d['stats_enable'] is False"

# every other knob: set, then get reads it back
for k in stats_enable latency_enable; do
	if [ -e $MMT/$k ]; then
		for v in 1 0 1 0; do
			t_rc "set $k $v" 0 "$CTL" set $k $v
			t_out "get $k: $v" $v "$CTL" get $k
			expect_eq "$k file: $v" "$(cat $MMT/$k)" $v
		done
		t_rc "set $k 2: exit 2" 2 "$CTL" set $k 2
	else
		fail "$k: the module has no $MMT/$k"
	fi
done
t_rc "set stats 0 (reset)" 0 "$CTL" set stats 0
t_rc "set stats 1: exit 2" 2 "$CTL" set stats 1
t_rc "set info: exit 2" 2 "$CTL" set info 1
t_rc "set latency: exit 2" 2 "$CTL" set latency 0
t_out "get info = the info file" "$(cat $MMT/info)" "$CTL" get info
if [ -d $MMT/pfn_valid ]; then
	t_out "get pfn_valid/mode" "$(cat $MMT/pfn_valid/mode)" "$CTL" get pfn_valid/mode
	t_rc "set pfn_valid/mode off" 0 "$CTL" set pfn_valid/mode off
	t_out "get pfn_valid/mode: off" off "$CTL" get pfn_valid/mode
	t_rc "set pfn_valid/mode nosuch: kernel refuses, exit 2" 2 "$CTL" set pfn_valid/mode nosuch
	t_rc "set pfn_valid/bench '4096 seq'" 0 "$CTL" set pfn_valid/bench "4096 seq"
	run "$CTL" get pfn_valid/bench
	t_grep "get pfn_valid/bench: count 4096" out '^count: 4096$'
	t_rc "set pfn_valid/bench '0 seq': exit 2" 2 "$CTL" set pfn_valid/bench "0 seq"
fi
t_rc "get no_such_knob: exit 2" 2 "$CTL" get no_such_knob

# --- the pfn_valid verb
if [ -d $MMT/pfn_valid ]; then
	IMPLS=$(info pfn_valid_impls)
	t_rc "pfn_valid" 0 "$CTL" pfn_valid
	t_grep "pfn_valid: shows the strategies" out "^pfn_valid_impls +$IMPLS\$"
	t_grep "pfn_valid: shows the mode" out '^mode: +off$'
	t_rc "pfn_valid bench 8192 holes --json" 0 "$CTL" pfn_valid bench 8192 holes --json
	t_json "pfn_valid bench --json: a row per strategy, none disagrees" "d['pattern'] == 'holes' and d['count'] == 8192 and [r['impl'] for r in d['results']] == '$IMPLS'.split() and all(r['disagree'] == 0 and r['online_disagree'] == 0 and r['first_disagree'] is None and r['median_ns'] > 0 for r in d['results'])"
	sed 's/^/# | /' "$WORK/out"
	t_rc "pfn_valid bench 0: exit 2" 2 "$CTL" pfn_valid bench 0
	t_out "pfn_valid mode: off" off "$CTL" pfn_valid mode
	t_rc "pfn_valid mode nosuch: exit 2" 2 "$CTL" pfn_valid mode nosuch
	t_rc "pfn_valid mode section" 0 "$CTL" pfn_valid mode section
	t_out "pfn_valid mode: section" section "$CTL" pfn_valid mode
	t_rc "pfn_valid mode off" 0 "$CTL" pfn_valid mode off
	t_out "pfn_valid mode: off again" off "$CTL" pfn_valid mode
fi

# --- stats --watch during a workload (exec-heavy: every exec faults its
# binary and libraries in, through fault-around)
t_rc "set stats_enable 1" 0 "$CTL" set stats_enable 1
t_rc "stats --reset" 0 "$CTL" stats --reset
( while :; do for _ in 1 2 3 4 5 6 7 8 9 10; do /bin/true; done; done ) &
BGPID=$!
run "$CTL" stats --watch 1 --count 3
if [ "$RC" = 0 ] && [ "$(wc -l < "$WORK/out")" = 4 ]; then
	ok "stats --watch 1 --count 3: header + 3 lines"
else
	fail "stats --watch 1 --count 3: exit $RC, $(wc -l < "$WORK/out") lines: $(errline)"
fi
show
# the faults column (named in the header) grows in every interval
col=$(head -n 1 "$WORK/out" | awk '{ for (i = 1; i <= NF; i++) if ($i == "faults") print i }')
if [ -n "$col" ] && awk -v c="$col" 'NR > 1 && !($c > 0) { bad = 1 } END { exit bad || NR < 2 }' "$WORK/out"; then
	ok "stats --watch: faults delta > 0 in every interval"
else
	fail "stats --watch: faults deltas: $(tail -n 3 "$WORK/out" | tr '\n' '|')"
fi
col=$(head -n 1 "$WORK/out" | awk '{ for (i = 1; i <= NF; i++) if ($i == "fault_around_calls") print i }')
if [ -n "$col" ] && awk -v c="$col" 'NR > 1 && !($c > 0 || $c == "-") { bad = 1 } END { exit bad }' "$WORK/out"; then
	ok "stats --watch: fault_around_calls delta > 0 (or unavailable)"
else
	fail "stats --watch: fault_around_calls deltas: $(tail -n 3 "$WORK/out" | tr '\n' '|')"
fi
run "$CTL" stats --json
t_json "stats --json: counters and latency" "d['stats_enable'] is True and d['stats']['faults'] > 0 and (d['latency'] is None or isinstance(d['latency']['buckets'], list))"
# stats --prometheus against the module's own files: per-rule samples
# labelled with the rule's text, the orders in force; parsed by
# prometheus_client where the guest has it
check "a rule for the metrics" pwrite "comm=mmt-prom order=1"
run "$CTL" stats --prometheus
if [ "$RC" = 0 ] && /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null; then
	if /usr/bin/python3 - "$WORK/out" "$(cat $DBG/mmtune/fault_around_order)" > "$WORK/err" 2>&1 <<-'EOF'
	import sys
	from prometheus_client.parser import text_string_to_metric_families as parse
	s = {(x.name, x.labels.get("rule")): x.value
	     for f in parse(open(sys.argv[1]).read()) for x in f.samples}
	assert s[("mmtune_rule_hits_total", "comm=mmt-prom order=1")] == 0, s
	assert s[("mmtune_rule_hits_total", "default")] > 0, s
	assert s[("mmtune_base_order", None)] == int(sys.argv[2]), s
	assert ("mmtune_kernel_order", None) in s, s
	EOF
	then
		ok "stats --prometheus: parsed; the rule's and default's hits, the base order"
	else
		fail "stats --prometheus: $(tail -n 1 "$WORK/err")"
	fi
elif [ "$RC" = 0 ]; then
	t_grep "stats --prometheus: the rule's hits labelled" out '^mmtune_rule_hits_total\{rule="comm=mmt-prom order=1"\} 0$'
	skip "stats --prometheus parsed" "no python3-prometheus-client in the guest"
else
	fail "stats --prometheus: exit $RC: $(errline)"
fi
# report against the module: a reader run under the rule, its deltas (the
# module's fault-around calls moved), the rule's row, the order in force
run env TMPDIR="$WORK" "$CTL" report --json -- "$MMT_TOP/userspace/mmstress" seq -s 4M -q -F csv
if [ "$RC" = 0 ] && /usr/bin/python3 - "$WORK/out" "$(cat $DBG/mmtune/fault_around_order)" \
	> "$WORK/err" 2>&1 <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert d["kernel"]["module_info"]["order"] == int(sys.argv[2]), d["kernel"]
	assert d["run"]["exit_status"] == 0, d["run"]
	calls = d["run"]["deltas"]["fault_around_calls"]
	assert calls > 0 if int(sys.argv[2]) > 0 else calls >= 0, d["run"]["deltas"]
	assert d["run"]["deltas"]["pgfault"] > 0, d["run"]["deltas"]
	assert any(r["match"] == "comm=mmt-prom" for r in d["settings"]["rules"]), d["settings"]
	EOF
then
	ok "report --json -- mmstress: the run's deltas, the rule, the order in force"
else
	fail "report --json: exit $RC: $(tail -n 1 "$WORK/err")"
fi
# usefulness off (it is, until the rss part below): the run's useful share
# says why there is none, not "nothing prefaulted"
run env TMPDIR="$WORK" "$CTL" report -- "$MMT_TOP/userspace/mmstress" seq -s 1M -q -F csv
if grep -qx 'state: off' "$MMT/usefulness"; then
	t_grep "report, usefulness off: says so" out 'useful over the run: *unavailable \(usefulness is off: mmtunectl set usefulness_enable 1\)'
else	# rt, and arches without an accessed-bit clear
	t_grep "report, usefulness unavailable: says so" out 'useful over the run: *unavailable \(usefulness is unavailable here'
fi
pwrite clear > /dev/null
"$CTL" stats --watch 1 > "$WORK/out" 2> "$WORK/err" &
wpid=$!
sleep 2.5
kill -INT $wpid
wait $wpid
RC=$?
[ "$RC" = 0 ] && [ "$(wc -l < "$WORK/out")" -ge 2 ] && ok "stats --watch: Ctrl-C stops it, exit 0" ||
	fail "stats --watch SIGINT: exit $RC, $(wc -l < "$WORK/out") lines: $(errline)"
kill $BGPID 2>/dev/null
wait $BGPID 2>/dev/null
BGPID=
t_rc "set stats_enable 0" 0 "$CTL" set stats_enable 0

# --- rss: a process that read one page in 4 of a cached file and holds
# it mapped (faultprobe); the verb's untouched bytes for it are the
# module's rss file's (its file lines' untouched pages times the page
# size, read just before and just after), the file named
if head -n 1 $MMT/rss | grep -q '^# available 1 '; then
	RSSP=$WORK/rssprobe
	if [ -x "${MMT_PROBE:-}" ]; then cp "$MMT_PROBE" "$RSSP"; else
		cc -O2 -o "$RSSP" "$MMT_TOP/tests/vm/probe/faultprobe.c" -lpthread; fi
	dd if=/dev/zero of="$WORK/rssfile" bs="$PSZ" count=256 status=none
	mkfifo "$WORK/rsshold"
	UON=0
	"$CTL" set usefulness_enable 1 2> "$WORK/err" && UON=1	# x86_64 and arm64
	FAULTPROBE_STRIDE=4 FAULTPROBE_LIVE=1:0 FAULTPROBE_HOLD=$WORK/rsshold \
		"$RSSP" "$WORK/rssfile" > "$WORK/rssout" & RP=$!
	n=0
	while ! [ -s "$WORK/rssout" ] && [ $n -lt 150 ]; do sleep 0.2; n=$((n + 1)); done
	# kpages: the sum of the untouched pages of $RP's file lines in the module's file
	kpages() {
		exec 3<>$MMT/rss
		printf 'pid=%s' "$RP" >&3
		cat <&3 > "$WORK/krss"
		exec 3>&-
		sed -n "s/^pid=$RP mapped=[0-9]* untouched=\([0-9]*\) file=.*/\1/p" "$WORK/krss" |
			awk '{ s += $1 } END { print s + 0 }'
	}
	k1=$(kpages)
	run "$CTL" rss --json "$RP"
	k2=$(kpages)
	t_json "rss --json PID: untouched_bytes = the module's file lines' pages x $PSZ ($k1, $k2 pages)" \
		"[p['pid'] for p in d['processes']] == [$RP] and d['processes'][0]['untouched_bytes'] in ($k1 * $PSZ, $k2 * $PSZ)"
	if [ $UON = 1 ]; then
		t_json "rss --json PID: untouched_bytes > 0, some of them in the file it read" \
			"d['processes'][0]['untouched_bytes'] > 0 and any(f['path'] == '$WORK/rssfile' and f['untouched_bytes'] > 0 for f in d['processes'][0]['files'])"
	else
		skip "rss --json PID: untouched_bytes > 0" "usefulness_enable 1 refused: $(errline)"
	fi
	run "$CTL" rss "$RP"
	[ "$RC" = 0 ] && grep -qF "$WORK/rssfile" "$WORK/out" && ok "rss PID: exit 0, the file named" ||
		fail "rss PID: exit $RC: $(errline)"
	show
	echo > "$WORK/rsshold"
	wait $RP
	RP=
	true & dead=$!
	wait $dead
	t_rc "rss PID of no process: exit 1" 1 "$CTL" rss "$dead"
	t_grep "rss PID of no process: says so" err "no process $dead"
	t_rc "rss --cgroup of no cgroup: exit 1" 1 "$CTL" rss --cgroup /mmt-no-such-cgroup
	t_grep "rss --cgroup of no cgroup: says so" err "no cgroup /mmt-no-such-cgroup"
	if [ $UON = 1 ]; then "$CTL" set usefulness_enable 0; fi
else
	t_rc "rss, available 0: exit 1" 1 "$CTL" rss
	t_grep "rss, available 0: says so" err "unavailable on this kernel/arch"
fi

# --- an unprivileged user: a clear error, exit 1, for what is root's
# (debugfs, every write, the policy's parameter); what the kernel shows
# everyone (the order's parameter, /sys/kernel/mm/mmtune) reads
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
for args in "set fault_around_order 2" "set stats_enable 1" "policy show" "stats --reset" "rss"; do
	# shellcheck disable=SC2086
	t_rc "unprivileged: $args: exit 1" 1 $NOBODY "$CTL" $args
	t_grep "unprivileged: $args: says run as root" err "run as root"
done
for args in "get fault_around_order" "status" "stats"; do
	# shellcheck disable=SC2086
	t_rc "unprivileged: $args: exit 0 (world-readable files)" 0 $NOBODY "$CTL" $args
done
t_rc "unprivileged: bad value is still exit 2" 2 $NOBODY "$CTL" set fault_around_order 12x
expect_eq "unprivileged: nothing changed" "$(cat $MMT/fault_around_order)" 3
# info/ for everyone: each read is the value now, root's and everyone's
# (a value's show takes only its own lock: sysfs.c's value_show())
SI=/sys/kernel/mm/mmtune/info
if [ -r $SI/order ]; then
	$NOBODY cat $SI/order > /dev/null
	echo 2 > $MMT/fault_around_order
	expect_eq "info/order for root: at once" "$(cat $SI/order)" 2
	sleep 0.3
	expect_eq "info/order for everyone: within a tenth of a second" "$($NOBODY cat $SI/order)" 2
	echo 3 > $MMT/fault_around_order
fi
unload_module
# shellcheck disable=SC2086
t_rc "unprivileged, no module: get: exit 1" 1 $NOBODY "$CTL" get fault_around_order
t_grep "unprivileged, no module: says run as root" err "run as root"
