#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test suite of mmtunectl, libmmtune and the module's pure parts
# (rule_unit.c, module_unit.c): no VM, no module.  A fake debugfs tree
# (fixtures/tree, copied per check) stands for /sys/kernel/debug through
# MMTUNE_DEBUGFS and MMTUNE_SYSFS_MODULE.
#
# Prints KTAP (tests/lib.sh): one "ok N NAME" or "not ok N NAME: why"
# line per check, the plan and the totals last; exits 1 if any failed.  The suite runs twice: a plain build, then an ASan+UBSan
# build (names prefixed "san: ") that must produce zero sanitizer reports.
# Then each libFuzzer target runs for MMT_FUZZ_SECONDS (default 10; 0
# skips them).
#
#   tests/host/run.sh                       everything
#   MMT_FUZZ_SECONDS=600 tests/host/run.sh  fuzz longer
#   MMT_HOST_SAN=0 tests/host/run.sh        skip the sanitizer pass
#   tests/host/run.sh plane policy          those suites alone (plain build)

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
FIX=$TOP/tests/host/fixtures
US=$TOP/userspace
FUZZ_SECONDS=${MMT_FUZZ_SECONDS:-10}
W=$(mktemp -d /tmp/mmtune-host.XXXXXX)
chmod 755 "$W"
UPDATER=
cleanup() {
	[ -n "$UPDATER" ] && kill "$UPDATER" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

. "$TOP/tests/lib.sh"
RUN_DIR=$W RUN_SCAN=san_scan KTAP_PREFIX=

export ASAN_OPTIONS=detect_leaks=1:exitcode=99:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99
export LC_ALL=C

# Debian's python3 first: a version manager's shim can cost seconds a call
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
PAGE=$(getconf PAGESIZE)
KMAX=$(log2 $((PAGE / 8)))		# max order without the module
KDEF=$(log2 $((65536 / PAGE)))		# the kernel's default: 64 KiB

# san_scan CMD...: after each run (tests/lib.sh), the sanitizer reports
# of its stderr are collected into $W/san-reports.
san_scan() {
	if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: (Address|Undefined)' "$W/err"; then
		{ echo "== $*"; cat "$W/err"; } >>"$W/san-reports"
	fi
}

# A fresh fake tree: module "loaded", debugfs at $T.
fresh() {
	rm -rf "$W/tree"
	cp -r "$FIX/tree" "$W/tree"
	T=$W/tree/debugfs/mmtune
	export MMTUNE_DEBUGFS=$W/tree/debugfs
	export MMTUNE_SYSFS_MODULE=$W/tree/sysmodule
}
no_module() { export MMTUNE_SYSFS_MODULE=$W/no-such-module; }

# ---------------------------------------------------------------- checks

# run_unit NAME BIN: a host unit test (tests/host/NAME.c): its checks,
# a sanitizer's report into san-reports, a non-zero exit as a failure
run_unit() {
	"$2" >"$W/$1.out" 2>"$W/err"
	RC=$?
	if grep -qE 'Sanitizer|runtime error:' "$W/err"; then
		{ echo "== $1"; cat "$W/err"; } >>"$W/san-reports"
	fi
	ktap_relay <"$W/$1.out"
	[ "$RC" = 0 ] || fail "$1: exit $RC: $(errline)"
}

# the module's rule grammar, built on the host (tests/host/rule_unit.c)
suite_rule_unit() { run_unit rule_unit "$RULE_UNIT"; }

suite_unit() {
	local f kind base nb
	"$UNIT" selftest >"$W/unit.out" 2>"$W/err"
	RC=$?
	if grep -qE 'Sanitizer|runtime error:' "$W/err"; then
		{ echo "== unit selftest"; cat "$W/err"; } >>"$W/san-reports"
	fi
	ktap_relay <"$W/unit.out"
	[ "$RC" = 0 ] || fail "unit selftest: exit $RC: $(errline)"

	# parsers against the fixture files, golden output beside each
	for f in "$FIX"/parse/*.txt; do
		base=${f%.txt}
		kind=${base##*/}
		kind=${kind%%-*}
		run "$UNIT" parse "$kind" "$f"
		if [ "$RC" = 0 ] && cmp -s "$W/out" "$base.expect"; then
			ok "parse ${base##*/}"
		else
			fail "parse ${base##*/}: exit $RC, output differs: $(diff "$base.expect" "$W/out" | head -n 4 | tr '\n' ' ')"
		fi
	done

	# oversized input, made here rather than stored
	$PY -c 'print("k" * 1000000 + ": v")' >"$W/big-key"
	run "$UNIT" parse info "$W/big-key"
	[ "$(cat "$W/out")" = EINVAL ] && ok "parse info 1 MB key" || fail "parse info 1 MB key: $(head -c 80 "$W/out")"
	$PY -c 'print("k: " + "v" * 1000000)' >"$W/big-value"
	run "$UNIT" parse info "$W/big-value"
	[ "$RC" = 0 ] && [ "$(sed -n 2p "$W/out" | wc -c)" = $((2 + 191 + 1)) ] &&
		ok "parse info 1 MB value truncated to 191" || fail "parse info 1 MB value: $(head -c 80 "$W/out")"
	$PY -c 'print("c " + "9" * 1000000)' >"$W/big-stat"
	run "$UNIT" parse stats "$W/big-stat"
	[ "$(cat "$W/out")" = EINVAL ] && ok "parse stats 1 MB value" || fail "parse stats 1 MB value: $(head -c 80 "$W/out")"
	$PY -c '
for i in range(100000): print("counter_%d %d" % (i, i))' >"$W/many-stats"
	run "$UNIT" parse stats "$W/many-stats" 50
	[ "$(head -n 1 "$W/out")" = n=50 ] && [ "$(wc -l <"$W/out")" = 51 ] &&
		ok "parse stats 100000 lines, max 50" || fail "parse stats 100000 lines: $(head -n 1 "$W/out")"
	$PY -c '
for i in range(100000): print("%d %d %d %d" % (i, i + 1, i, i))' >"$W/many-lat"
	run "$UNIT" parse latency "$W/many-lat"
	# as many as the module has (module/mmtune_abi.h)
	nb=$(sed -n 's/^#define MMT_ABI_LAT_BUCKETS[[:space:]]*\([0-9]*\).*/\1/p' "$TOP/module/mmtune_abi.h")
	[ "$(head -n 1 "$W/out")" = "n=$nb kv=0" ] && ok "parse latency 100000 buckets, kept $nb" ||
		fail "parse latency 100000 lines: $(head -n 1 "$W/out")"
	head -c 200000 /dev/urandom >"$W/random"
	for kind in info stats latency; do
		run "$UNIT" parse $kind "$W/random"
		[ "$RC" = 0 ] && ok "parse $kind random bytes (got $(head -n 1 "$W/out"))" ||
			fail "parse $kind random bytes: exit $RC"
	done

	# JSON escaping checked by a real parser
	run "$UNIT" json "$(printf 'q"b\\s\ttab\001ctl\177del\303\251 end')"
	JSON_LINES=0 t_json "json escape round trip" \
		'd[0] == d[1] == "q\"b\\s\ttab\x01ctl\x7fdel\xc3\xa9 end"'
	# the JSON writer (lib/jsonw.h): a nested document, compact and pretty
	local jw_check='d[s] == s and d["list"][:2] == [18446744073709551615, -3] and d["list"][2] == {"t": True, "n": None, "empty": []} and d["list"][3:] == [None, 1.5, 0.41] and d["o"] == {} and list(d) == [s, "list", "o"]'
	run "$UNIT" jsonw "$(printf 'q"b\\s\ttab\001ctl\nnl\177del\303\251 end')"
	JSON_LINES=1 t_json "jsonw compact: one line, escaped, nested" \
		"len(d) == 1 and (lambda s, d: $jw_check)(\"q\\\"b\\\\s\\ttab\\x01ctl\\nnl\\x7fdel\\xc3\\xa9 end\", d[0])"
	run "$UNIT" jsonw "$(printf 'q"b\\s\ttab\001ctl\nnl\177del\303\251 end')" pretty
	t_json "jsonw pretty: the same document" \
		"(lambda s: $jw_check)(\"q\\\"b\\\\s\\ttab\\x01ctl\\nnl\\x7fdel\\xc3\\xa9 end\")"
	[ "$(wc -l <"$W/out")" -gt 10 ] && grep -qE '^ +"t": true,$' "$W/out" && ok "jsonw pretty: a member a line, indented" ||
		fail "jsonw pretty: $(head -c 120 "$W/out" | tr '\n' ' ')"
}

suite_usage() {
	local v
	fresh
	t_rc "no arguments" 2 "$CTL"
	t_rc "unknown verb" 2 "$CTL" frobnicate
	t_rc "unknown option" 2 "$CTL" --bogus
	t_rc "unknown verb option" 2 "$CTL" status --bogus
	t_out "--version" "mmtunectl $VERSION" "$CTL" --version
	t_out "-V" "mmtunectl $VERSION" "$CTL" -V
	run "$CTL" --help
	[ "$RC" = 0 ] && grep -q '^usage: mmtunectl' "$W/out" && ok "--help" || fail "--help: exit $RC"
	for v in status get set stats pfn_valid run help; do
		run "$CTL" $v --help
		[ "$RC" = 0 ] && grep -q "^usage: mmtunectl $v" "$W/out" && ok "$v --help" ||
			fail "$v --help: exit $RC"
		run "$CTL" help $v
		[ "$RC" = 0 ] && grep -q "^usage: mmtunectl $v" "$W/out" && ok "help $v" ||
			fail "help $v: exit $RC"
	done
	t_rc "help unknown verb" 2 "$CTL" help nope
	t_rc "get without KNOB" 2 "$CTL" get
	t_rc "get two knobs" 2 "$CTL" get info stats
	t_rc "get ../ knob" 2 "$CTL" get ../fault_around_bytes
	t_rc "get empty knob" 2 "$CTL" get ""
	t_rc "set without arguments" 2 "$CTL" set
	t_rc "set without VALUE" 2 "$CTL" set fault_around_order
	t_rc "set three arguments" 2 "$CTL" set fault_around_order 1 2
	t_rc "set bad knob name" 2 "$CTL" set a/b 1
	t_rc "status extra argument" 2 "$CTL" status extra
	t_rc "stats extra argument" 2 "$CTL" stats extra
	t_rc "stats --watch without value" 2 "$CTL" stats --watch
	t_rc "stats --watch 0" 2 "$CTL" stats --watch 0
	t_rc "stats --watch -1" 2 "$CTL" stats --watch -1
	t_rc "stats --watch abc" 2 "$CTL" stats --watch abc
	t_rc "stats --watch 1.5" 2 "$CTL" stats --watch 1.5
	t_rc "stats --watch huge" 2 "$CTL" stats --watch 99999999999999999999
	t_rc "stats --count without --watch" 2 "$CTL" stats --count 3
	t_rc "stats --count 0" 2 "$CTL" stats --watch 1 --count 0

	# bad values: exit 2 and nothing written, module or not
	for mod in module kernel; do
		fresh
		[ $mod = kernel ] && no_module
		for v in -1 12x 99999999999999999999 -99999999999999999999 "" " 3" "3 " 0x3 3.0 + - 1e3 \
			$(( $([ $mod = module ] && echo 9 || echo "$KMAX") + 1 )) 64 DEFAULT "default "; do
			t_rc "$mod: set fault_around_order '$v'" 2 "$CTL" set fault_around_order "$v"
		done
		t_file "$mod: nothing written to fault_around_order" "$T/fault_around_order" 4
		t_file "$mod: nothing written to fault_around_bytes" "$W/tree/debugfs/fault_around_bytes" 65536
	done
	fresh
	for v in 2 -1 on "" "1 "; do
		t_rc "set stats_enable '$v'" 2 "$CTL" set stats_enable "$v"
	done
	t_file "nothing written to stats_enable" "$T/stats_enable" 0
	t_rc "set stats 5" 2 "$CTL" set stats 5
	t_rc "set latency" 2 "$CTL" set latency 0
	t_rc "set latency_enable 2" 2 "$CTL" set latency_enable 2
	t_rc "set mapped_enable 2" 2 "$CTL" set mapped_enable 2
	t_file "nothing written to mapped_enable" "$T/mapped_enable" 0
	for v in "" 0 "0 seq" "16777217 seq" "10 up" "10  seq" "10 seq " "x seq" "-1 rand"; do
		t_rc "set pfn_valid/bench '$v'" 2 "$CTL" set pfn_valid/bench "$v"
	done
	t_file "nothing written to pfn_valid/bench" "$T/pfn_valid/bench" "pattern: none"
	for v in "" ON "st ock" "../x" "aaaaaaaaaaaaaaaa"; do
		t_rc "set pfn_valid/mode '$v'" 2 "$CTL" set pfn_valid/mode "$v"
	done
	t_file "nothing written to pfn_valid/mode" "$T/pfn_valid/mode" off
	t_rc "get pfn_valid/../info" 2 "$CTL" get pfn_valid/../info
	t_rc "get /info" 2 "$CTL" get /info
	t_rc "get pfn_valid/" 2 "$CTL" get pfn_valid/
	t_rc "set info" 2 "$CTL" set info x
	t_rc "set unknown knob, control characters" 2 "$CTL" set future_knob "$(printf 'a\nb')"
	t_rc "set unknown knob, 65 characters" 2 "$CTL" set future_knob "$(printf '%065d' 0)"
	t_file "nothing written to stats" "$T/stats" "$(cat "$FIX/tree/debugfs/mmtune/stats")"
}

suite_module() {
	local cols
	fresh
	t_out "get fault_around_order" 4 "$CTL" get fault_around_order
	[ -s "$W/err" ] && fail "get fault_around_order: stderr not empty: $(errline)" || ok "get fault_around_order: quiet"
	t_rc "set fault_around_order 3" 0 "$CTL" set fault_around_order 3
	t_file "set fault_around_order 3: written" "$T/fault_around_order" 3
	t_out "get after set" 3 "$CTL" get fault_around_order
	t_rc "set fault_around_order 0" 0 "$CTL" set fault_around_order 0
	t_file "set 0: written" "$T/fault_around_order" 0
	t_rc "set fault_around_order 9 (max_order)" 0 "$CTL" set fault_around_order 9
	t_file "set 9: written" "$T/fault_around_order" 9
	t_rc "set fault_around_order default" 0 "$CTL" set fault_around_order default
	t_file "set default: written as 'default'" "$T/fault_around_order" default
	t_rc "set fault_around_order 10 > info max_order" 2 "$CTL" set fault_around_order 10
	t_file "set 10: nothing written" "$T/fault_around_order" default
	t_out "get info" "$(cat "$FIX/tree/debugfs/mmtune/info")" "$CTL" get info
	t_out "get stats_enable" 0 "$CTL" get stats_enable
	t_rc "set stats_enable 1" 0 "$CTL" set stats_enable 1
	t_file "set stats_enable 1: written" "$T/stats_enable" 1
	t_rc "get unknown knob" 2 "$CTL" get no_such_knob
	t_grep "get unknown knob: says so" err "no such knob"
	t_rc "set unknown knob" 2 "$CTL" set no_such_knob 1
	t_rc "get a directory" 2 "$CTL" get pfn_valid
	t_out "get pfn_valid/mode" off "$CTL" get pfn_valid/mode
	t_rc "set pfn_valid/mode section" 0 "$CTL" set pfn_valid/mode section
	t_file "set pfn_valid/mode: written" "$T/pfn_valid/mode" section
	t_rc "set pfn_valid/bench '1000 holes'" 0 "$CTL" set pfn_valid/bench "1000 holes"
	t_file "set pfn_valid/bench: written" "$T/pfn_valid/bench" "1000 holes"
	t_rc "set latency_enable 0" 0 "$CTL" set latency_enable 0
	t_file "set latency_enable 0: written" "$T/latency_enable" 0
	t_rc "set mapped_enable 1" 0 "$CTL" set mapped_enable 1
	t_file "set mapped_enable 1: written" "$T/mapped_enable" 1
	rm "$T/latency"
	t_rc "get a known knob the module lacks" 1 "$CTL" get latency
	t_grep "get a known knob the module lacks: says so" err "lacks it"

	# the pfn_valid verb
	fresh
	t_rc "pfn_valid" 0 "$CTL" pfn_valid
	t_grep "pfn_valid: impls from info" out '^pfn_valid_impls +stock section vmemmap$'
	t_grep "pfn_valid: mode" out '^mode: +off$'
	t_grep "pfn_valid: last bench" out '^pattern: none$'
	t_out "pfn_valid mode" off "$CTL" pfn_valid mode
	t_rc "pfn_valid mode section" 0 "$CTL" pfn_valid mode section
	t_file "pfn_valid mode section: written" "$T/pfn_valid/mode" section
	t_rc "pfn_valid mode off" 0 "$CTL" pfn_valid mode off
	t_file "pfn_valid mode off: written" "$T/pfn_valid/mode" off
	for v in memblock ON "" "sec tion"; do
		t_rc "pfn_valid mode '$v': exit 2" 2 "$CTL" pfn_valid mode "$v"
	done
	t_file "pfn_valid mode: refused ones not written" "$T/pfn_valid/mode" off
	t_rc "pfn_valid bench 4096 rand" 0 "$CTL" pfn_valid bench 4096 rand
	t_file "pfn_valid bench 4096 rand: written" "$T/pfn_valid/bench" "4096 rand"
	t_rc "pfn_valid bench 100 (seq by default)" 0 "$CTL" pfn_valid bench 100
	t_file "pfn_valid bench 100: written" "$T/pfn_valid/bench" "100 seq"
	for v in "0" "16777217" "x" "-5" "10 up" "10 seq extra"; do
		# shellcheck disable=SC2086
		t_rc "pfn_valid bench $v: exit 2" 2 "$CTL" pfn_valid bench $v
	done
	t_rc "pfn_valid bench without COUNT" 2 "$CTL" pfn_valid bench
	t_rc "pfn_valid unknown subcommand" 2 "$CTL" pfn_valid frob
	t_rc "pfn_valid mode --json" 2 "$CTL" pfn_valid --json mode
	cp "$FIX/bench-result.txt" "$T/pfn_valid/bench"
	run "$CTL" pfn_valid show --json
	t_json "pfn_valid --json: the bench table" 'd["pattern"] == "seq" and d["count"] == 4096 and d["overhead_ns"] == 0.41 and d["pfn_range"] == "0x0-0x88000" and [r["impl"] for r in d["results"]] == ["stock", "section", "vmemmap"] and d["results"][0]["median_ns"] == 2.31 and d["results"][0]["first_disagree"] is None and d["results"][2]["first_disagree"] == "0x87fff" and d["results"][2]["disagree"] == 1'
	echo "pattern: none" >"$T/pfn_valid/bench"
	run "$CTL" pfn_valid --json
	t_json "pfn_valid --json before any bench" 'd["pattern"] == "none" and "results" not in d'
	# what the text form shows: info's pfn_valid lines and the mode too
	t_json "pfn_valid --json: info's pfn_valid lines" 'd["info"] == {k: v for k, v in (l.split(": ", 1) for l in open("'"$T"'/info").read().splitlines()) if k.startswith("pfn_valid")} and len(d["info"]) == 5'
	t_json "pfn_valid --json: the mode" 'd["mode"] == open("'"$T"'/pfn_valid/mode").read().strip() == "off"'
	run "$CTL" pfn_valid bench 4096 --json
	t_json "pfn_valid bench --json: the bench alone" '"info" not in d and "mode" not in d and "results" in d'
	rm -r "$T/pfn_valid"
	t_rc "pfn_valid: module without it" 1 "$CTL" pfn_valid

	fresh
	t_rc "status" 0 "$CTL" status
	t_grep "status: module loaded" out '^module: +loaded \(version 0\.1\.0\)'
	t_grep "status: order" out '^fault_around_order: +4$'
	t_grep "status: bytes" out "^fault_around_bytes: +$((4096 << 4))$"
	t_grep "status: stats off" out '^stats: +off$'
	t_grep "status: info lines" out '^  pfn_valid: inline$'
	run "$CTL" status --json
	t_json "status --json reflects info" "$(cat <<EOF
d["module_loaded"] is True and d["module_version"] == "0.1.0" and d["via"] == "module"
and d["fault_around_order"] == 4 and d["fault_around_bytes"] == 65536
and d["max_order"] == 9 and d["default_order"] == 4 and d["stats_enable"] is False
and d["arch"] == "x86_64" and d["page_size"] == 4096 and d["debugfs"] == "$W/tree/debugfs"
and d["info"] == dict(l.split(": ", 1) for l in open("$FIX/tree/debugfs/mmtune/info").read().splitlines())
and d["missing"] == []
EOF
)"
	echo 1 >"$T/stats_enable"
	run "$CTL" status --json
	t_json "status --json stats on" 'd["stats_enable"] is True'
	t_json "status --json: the interface (debugfs: no lockdown-proof tree here)" 'd["interface"] == "debugfs"'
	# Prometheus text format: HELP and TYPE lines, _total counters, and
	# an unavailable counter left out rather than shown as 0
	run "$CTL" stats --prometheus
	t_grep "stats --prometheus: TYPE counter" out '^# TYPE mmtune_faults_total counter$'
	t_grep "stats --prometheus: HELP" out '^# HELP mmtune_fault_around_calls_total .+'
	t_grep "stats --prometheus: sample" out '^mmtune_faults_total 1200$'
	t_grep "stats --prometheus: stats_enable gauge" out '^mmtune_stats_enable 1$'
	if grep -q fault_around_pages_mapped "${RUN_DIR:-$WORK}/out"; then
		fail "stats --prometheus: unavailable counter left out"
	else
		ok "stats --prometheus: unavailable counter left out"
	fi
	if awk '/^#/ {next} !/^mmtune_[a-z_]+({.+})? [0-9.]+$/ {bad = 1} END {exit bad}' "${RUN_DIR:-$WORK}/out"; then
		ok "stats --prometheus: every sample line is NAME[{LABELS}] VALUE"
	else
		fail "stats --prometheus: every sample line is NAME[{LABELS}] VALUE"
	fi
	t_rc "stats --prometheus --json" 2 "$CTL" stats --prometheus --json
	# save: the boot's files, the previous one kept as .bak
	rm -rf "$W/sroot"; mkdir -p "$W/sroot/etc/modprobe.d"
	echo "options mmtune fault_around_order=1" > "$W/sroot/etc/modprobe.d/mmtune.conf"
	t_rc "save --root" 0 "$CTL" save --root "$W/sroot"
	if grep -qx "options mmtune fault_around_order=4 stats_enable=1" "$W/sroot/etc/modprobe.d/mmtune.conf"; then
		ok "save: modprobe.d holds the order and stats_enable in force"
	else
		fail "save: modprobe.d: $(grep -v '^#' "$W/sroot/etc/modprobe.d/mmtune.conf" | tr '\n' ' ')"
	fi
	t_file "save: the previous file kept as .bak" "$W/sroot/etc/modprobe.d/mmtune.conf.bak" "options mmtune fault_around_order=1"
	check "save: no rules, no /etc/mmtune/policy" test ! -e "$W/sroot/etc/mmtune/policy"
	run "$CTL" save --stdout
	t_grep "save --stdout" out '^options mmtune fault_around_order=4 stats_enable=1$'
	echo 1 >"$T/mapped_enable"
	run "$CTL" save --stdout
	t_grep "save --stdout: mapped_enable=1 when it is on" out '^options mmtune fault_around_order=4 stats_enable=1 mapped_enable=1$'
	echo 0 >"$T/mapped_enable"
	t_rc "save extra argument" 2 "$CTL" save extra
	cp "$FIX/parse/info-odd.txt" "$T/info"
	run "$CTL" status --json
	t_json "status --json escapes quotes, backslash, tab" \
		'd["info"]["quote"] == "say \"hi\" \\ tab\there" and d["info"]["url"] == "http://x:80/y" and d["max_order"] is None'
	printf 'garbage line\n' >"$T/info"
	t_rc "status: garbage info" 1 "$CTL" status
	$PY -c 'print("k" * 200000)' >"$T/info"
	t_rc "status: oversized info" 1 "$CTL" status
	rm "$T/info"
	t_rc "status: info missing" 1 "$CTL" status

	fresh
	t_rc "stats" 0 "$CTL" stats
	t_grep "stats: aligned lines" out '^fault_around_pages_requested +4800$'
	t_grep "stats: unavailable kept" out '^fault_around_pages_mapped +unavailable$'
	t_grep "stats: note when counting is off" err 'stats_enable 1'
	[ "$(wc -l <"$W/out")" = 4 ] && ok "stats: 4 lines" || fail "stats: $(wc -l <"$W/out") lines"
	run "$CTL" stats --json
	t_json "stats --json" 'd["stats_enable"] is False and d["stats"] == {"faults": 1200, "fault_around_calls": 300, "fault_around_pages_requested": 4800, "fault_around_pages_mapped": None}'
	t_json "stats --json latency" 'd["latency"] == {"state": "on", "unit": "ns", "fault_around_samples": 1024, "no_fault_around_samples": None, "unclassified": 0, "missed": 3, "buckets": [{"low": 1024, "high": 2048, "fault_around": 980, "no_fault_around": 12}, {"low": 2048, "high": 4096, "fault_around": 44, "no_fault_around": 5}]}'
	sed -i 's/^fault_around_pages_mapped .*/fault_around_pages_mapped off/' "$T/stats"
	run "$CTL" stats --json
	t_json "stats --json: an 'off' counter is null" 'd["stats"]["fault_around_pages_mapped"] is None and d["stats"]["faults"] == 1200'
	cp "$FIX/parse/latency-unavailable.txt" "$T/latency"
	run "$CTL" stats --json
	t_json "stats --json latency unavailable" 'd["latency"] == {"state": "unavailable (see info: hook_handle_mm_fault_return)", "buckets": []}'
	rm "$T/latency"
	run "$CTL" stats --json
	t_json "stats --json without latency" 'd["latency"] is None and len(d["stats"]) == 4'
	cp "$FIX/parse/latency-garbage.txt" "$T/latency"
	run "$CTL" stats --json
	t_json "stats --json with garbage latency" 'd["latency"] is None'
	: >"$T/stats"
	run "$CTL" stats --json
	t_json "stats --json empty" 'd["stats"] == {}'
	t_out "stats empty" "" "$CTL" stats
	cp "$FIX/parse/stats-garbage.txt" "$T/stats"
	t_rc "stats garbage" 1 "$CTL" stats
	t_grep "stats garbage: says so" err "unexpected content"
	$PY -c '
for i in range(1000): print("c%d %d" % (i, i))' >"$T/stats"
	run "$CTL" stats
	[ "$RC" = 0 ] && [ "$(wc -l <"$W/out")" -le 1000 ] && ok "stats 1000 counters: bounded ($(wc -l <"$W/out") lines)" ||
		fail "stats 1000 counters: exit $RC"
	fresh
	t_rc "stats --reset" 0 "$CTL" stats --reset
	t_file "stats --reset writes 0" "$T/stats" 0
	[ -s "$W/out" ] && fail "stats --reset: printed something" || ok "stats --reset: quiet"

	# --watch: a writer bumps the counters 5 times a second
	fresh
	echo 1 >"$T/stats_enable"
	(
		i=0
		while :; do
			i=$((i + 1))
			printf 'faults %d\nfault_around_calls %d\nfault_around_pages_requested 4800\nfault_around_pages_mapped unavailable\n' \
				$((1200 + 10 * i)) $((300 + i)) >"$T/stats.new" && mv "$T/stats.new" "$T/stats"
			sleep 0.2
		done
	) &
	UPDATER=$!
	sleep 0.5
	run "$CTL" stats --watch 1 --count 3
	if [ "$RC" = 0 ] && [ "$(wc -l <"$W/out")" = 4 ]; then ok "stats --watch 1 --count 3: header + 3 lines"
	else fail "stats --watch 1 --count 3: exit $RC, $(wc -l <"$W/out") lines: $(errline)"; fi
	cols=$(head -n 1 "$W/out" | tr -s ' ' | sed 's/^ //')
	[ "$cols" = "faults fault_around_calls fault_around_pages_requested fault_around_pages_mapped" ] &&
		ok "stats --watch: header names the counters" || fail "stats --watch header: '$cols'"
	if awk 'NR > 1 && !($1 > 0 && $2 > 0 && $3 == 0 && $4 == "-") { bad = 1 } END { exit bad }' "$W/out"; then
		ok "stats --watch: deltas (growing > 0, steady 0, gone -)"
	else
		fail "stats --watch deltas: $(tail -n 3 "$W/out" | tr '\n' '|')"
	fi
	run "$CTL" stats --watch 1 --count 2 --json
	JSON_LINES=1 t_json "stats --watch --json: one object per line" \
		'len(d) == 2 and all(x["seconds"] == 1 and x["deltas"]["faults"] > 0 and x["deltas"]["fault_around_pages_requested"] == 0 and x["deltas"]["fault_around_pages_mapped"] is None for x in d) and [x["interval"] for x in d] == [1, 2]'
	"$CTL" stats --watch 1 >"$W/out" 2>"$W/err" &
	local pid=$!
	sleep 2.5
	kill -INT $pid
	wait $pid
	RC=$?
	grep -qE 'Sanitizer|runtime error:' "$W/err" && { echo "== watch SIGINT"; cat "$W/err"; } >>"$W/san-reports"
	[ "$RC" = 0 ] && [ "$(wc -l <"$W/out")" -ge 2 ] && ok "stats --watch: SIGINT stops cleanly ($(($(wc -l <"$W/out") - 1)) intervals)" ||
		fail "stats --watch SIGINT: exit $RC, $(wc -l <"$W/out") lines: $(errline)"
	kill "$UPDATER" 2>/dev/null
	wait "$UPDATER" 2>/dev/null
	UPDATER=
	sleep 0.5	# its last mv may still be running
	rm -f "$T/stats"
	t_rc "stats --watch: stats file gone" 1 "$CTL" stats --watch 1 --count 1
}

suite_kernel() {
	fresh
	no_module
	t_out "no module: get fault_around_order" "$KDEF" "$CTL" get fault_around_order
	t_grep "no module: get says so" err 'note: mmtune module not loaded, using the kernel.s .*/fault_around_bytes'
	[ "$(wc -l <"$W/err")" = 1 ] && ok "no module: one note line" || fail "no module: $(wc -l <"$W/err") lines on stderr"
	t_rc "no module: set fault_around_order 2" 0 "$CTL" set fault_around_order 2
	t_grep "no module: set says so" err 'using the kernel.s .*/fault_around_bytes'
	t_file "no module: set 2 writes page_size << 2" "$W/tree/debugfs/fault_around_bytes" $((PAGE << 2))
	t_out "no module: get after set" 2 "$CTL" get fault_around_order
	t_rc "no module: set fault_around_order $KMAX (page size bound)" 0 "$CTL" set fault_around_order "$KMAX"
	t_file "no module: set $KMAX written" "$W/tree/debugfs/fault_around_bytes" $((PAGE << KMAX))
	t_rc "no module: set default" 0 "$CTL" set fault_around_order default
	t_file "no module: default is 64 KiB" "$W/tree/debugfs/fault_around_bytes" 65536
	t_file "no module: module file untouched" "$T/fault_around_order" 4
	echo 12288 >"$W/tree/debugfs/fault_around_bytes"
	t_out "no module: non power of two rounds down" 1 "$CTL" get fault_around_order
	echo 65536 >"$W/tree/debugfs/fault_around_bytes"
	t_rc "no module: get stats" 1 "$CTL" get stats
	t_grep "no module: get stats says modprobe" err "not loaded: run 'modprobe mmtune'"
	t_rc "no module: stats" 1 "$CTL" stats
	t_rc "no module: set stats_enable" 1 "$CTL" set stats_enable 1
	# an unknown knob is a usage error whether the module is there or not
	t_rc "no module: set an unknown knob" 2 "$CTL" set no_such_knob 1
	t_grep "no module: unknown knob: says so" err "no such knob"
	t_rc "no module: get an unknown knob" 2 "$CTL" get no_such_knob
	t_rc "no module: status" 0 "$CTL" status
	t_grep "no module: status says so" out '^module: +not loaded$'
	t_grep "no module: status via kernel" out '^via: +kernel'
	run "$CTL" status --json
	t_json "no module: status --json" "d['module_loaded'] is False and d['via'] == 'kernel' and d['info'] is None and d['fault_around_order'] == $KDEF and d['max_order'] == $KMAX and d['stats_enable'] is None"
	echo junk >"$W/tree/debugfs/fault_around_bytes"
	t_rc "no module: junk in fault_around_bytes" 1 "$CTL" get fault_around_order
	rm "$W/tree/debugfs/fault_around_bytes"
	t_rc "no module, no fault_around_bytes: get" 1 "$CTL" get fault_around_order
	t_grep "no module, no fault_around_bytes: says modprobe" err "modprobe mmtune"
	t_rc "no module, no fault_around_bytes: set" 1 "$CTL" set fault_around_order 2

	# debugfs not mounted
	fresh
	no_module
	export MMTUNE_DEBUGFS=
	t_rc "no debugfs, no module: get" 1 "$CTL" get fault_around_order
	t_grep "no debugfs, no module: says mount" err "mount -t debugfs"
	# status shows what it can read and says what is missing (on stderr;
	# in JSON, "missing" too), text and JSON alike
	t_rc "no debugfs, no module: status" 0 "$CTL" status
	t_grep "no debugfs, no module: status: order unavailable" out '^fault_around_order: +unavailable$'
	t_grep "no debugfs, no module: status: debugfs not mounted" out '^debugfs: +not mounted$'
	t_grep "no debugfs, no module: status: max_order" out "^max_order: +$KMAX\$"
	t_grep "no debugfs, no module: status: says why on stderr" err "not loaded and debugfs is not mounted"
	run "$CTL" status --json
	[ "$RC" = 0 ] && ok "no debugfs, no module: status --json exit 0" || fail "no debugfs, no module: status --json: exit $RC"
	t_json "no debugfs, no module: status --json, the document" "d['module_loaded'] is False and d['debugfs'] is None and d['fault_around_order'] is None and d['fault_around_bytes'] is None and d['via'] is None and d['info'] is None and d['page_size'] == $PAGE and d['max_order'] == $KMAX and d['default_order'] == $KDEF and d['missing'] == ['module', 'debugfs', 'fault_around_order']"
	t_grep "no debugfs, no module: status --json says why on stderr" err "not loaded and debugfs is not mounted"
	export MMTUNE_DEBUGFS=$W/nonexistent
	t_rc "debugfs path missing: get" 1 "$CTL" get fault_around_order
	fresh
	export MMTUNE_DEBUGFS=
	t_out "no debugfs, module: get uses the parameter" 4 "$CTL" get fault_around_order
	t_rc "no debugfs, module: set uses the parameter" 0 "$CTL" set fault_around_order 2
	t_file "no debugfs, module: parameter written" "$W/tree/sysmodule/parameters/fault_around_order" 2
	t_rc "no debugfs, module: get info" 1 "$CTL" get info
	t_grep "no debugfs, module: says mount" err "mount -t debugfs"
	t_rc "no debugfs, module: status" 0 "$CTL" status
}

# policy load and tune --orders against a fake policy file: every refusal
# exits 2 and leaves the file as it was
suite_policy() {
	local pol before big i
	fresh
	pol=$T/policy
	printf '# rules 1/32\n# kernel order=4\n# default order=4 hits=5 pages=-\ncomm=keep order=3 # hits=1 pages=-\n' >"$pol"
	before=$(cat "$pol")
	big=$W/big.pol
	: >"$big"
	i=0
	while [ $i -lt 1300 ]; do		# 1300 x 56 bytes: over 64 KiB, rules first
		printf 'comm=r%-4d order=2 # ..................................\n' $((i % 32)) >>"$big"
		i=$((i + 1))
	done
	t_rc "policy load: over 64 KiB refused" 2 "$CTL" policy load "$big"
	t_grep "policy load: over 64 KiB: says so" err "larger than 65536 bytes"
	t_file "policy load: over 64 KiB: nothing written" "$pol" "$before"
	printf 'comm=a order=1\n\0comm=b order=2\n' >"$W/nul.pol"
	t_rc "policy load: NUL byte refused" 2 "$CTL" policy load "$W/nul.pol"
	t_grep "policy load: NUL byte: says so" err "NUL byte"
	t_file "policy load: NUL byte: nothing written" "$pol" "$before"
	printf 'comm=a order=1 comm=b order=2\n' >"$W/two.pol"
	run "$CTL" policy load "$W/two.pol"
	[ "$RC" = 2 ] && ok "policy load: two rules on a line refused" || fail "policy load: two rules a line: exit $RC"
	t_file "policy load: two rules a line: nothing written" "$pol" "$before"
	printf 'comm=a order=99\n' >"$W/bad.pol"
	run "$CTL" policy load "$W/bad.pol"
	[ "$RC" = 2 ] && grep -q "line 1" "$W/err" && ok "policy load: bad order refused, line named" ||
		fail "policy load: bad order: exit $RC: $(errline)"
	t_file "policy load: bad order: nothing written" "$pol" "$before"
	printf '# a comment\n\ncomm=a order=1   # hits=3 pages=-\n  comm=b order=default\n' >"$W/ok.pol"
	t_rc "policy load: comments and counters dropped" 0 "$CTL" policy load "$W/ok.pol"
	t_file "policy load: canonical rules written" "$pol" "$(printf 'comm=a order=1\ncomm=b order=default')"
	printf '# rules 1/32\n# kernel order=4\n# default order=4 hits=5 pages=-\ncomm=keep order=3 # hits=1 pages=-\n' >"$pol"
	run "$CTL" policy show
	cp "$W/out" "$W/show.pol"
	t_rc "policy show output loads back" 0 "$CTL" policy load "$W/show.pol"
	t_file "policy show output: the same rule" "$pol" "comm=keep order=3"
	printf '# rules 1/32\n# kernel order=4\n# default order=4 hits=5 pages=-\ncomm=keep order=3 # hits=1 pages=-\n' >"$pol"
	for v in 10 0,10 0-10 -1 0-; do
		run "$CTL" tune --orders "$v" -- true
		[ "$RC" = 2 ] && ok "tune --orders '$v' (max 9): exit 2" || fail "tune --orders '$v': exit $RC: $(errline)"
	done
	t_file "tune bad --orders: policy untouched" "$pol" "$before"
	for v in 10 -1 x ""; do
		run "$CTL" run --order "$v" -- true
		[ "$RC" = 2 ] && ok "run --order '$v' (max 9): exit 2" || fail "run --order '$v': exit $RC: $(errline)"
	done
	t_rc "run without COMMAND" 2 "$CTL" run --order 1
	t_file "run bad usage: policy untouched" "$pol" "$before"
}

# order=auto rules (module/policy.c): the line the module prints for one
# (fixtures/policy-auto.txt), shown as text that loads back and as JSON;
# set, add and load take order=auto, with a note while usefulness_enable
# is 0
suite_policy_auto() {
	local pol want
	fresh
	pol=$T/policy
	want=$(printf 'comm=keep order=3\ncomm=cc1 order=auto\npid=1 learn_uid=999 order=auto')
	cp "$FIX/policy-auto.txt" "$pol"
	t_rc "policy auto: show" 0 "$CTL" policy show
	t_grep "policy auto: show: the auto fields after the counters" out \
		'^comm=cc1 +order=auto +# +1200 +9600 auto_order=5 raised=2 lowered=1 useful=87\.5% learned=8400$'
	t_grep "policy auto: show: no judgement yet is useful=-; learn_uid= a key, untrusted= last" out \
		'^pid=1 learn_uid=999 +order=auto +# +0 +- auto_order=4 raised=0 lowered=0 useful=- learned=0 untrusted=77$'
	t_grep "policy auto: show: other rules as before" out '^comm=keep +order=3 +# +1 +-$'
	cp "$W/out" "$W/show-auto.pol"
	t_rc "policy auto: show output loads back" 0 "$CTL" policy load "$W/show-auto.pol"
	t_file "policy auto: show output: the same rules" "$pol" "$want"
	[ -s "$W/err" ] && fail "policy auto: load without usefulness_enable: says something: $(errline)" ||
		ok "policy auto: load without usefulness_enable: quiet"
	cp "$FIX/policy-auto.txt" "$pol"
	t_rc "policy auto: the module's file loads" 0 "$CTL" policy load "$FIX/policy-auto.txt"
	t_file "policy auto: the module's file: the same rules as show's" "$pol" "$want"
	cp "$FIX/policy-auto.txt" "$pol"
	run "$CTL" policy show --json
	t_json "policy auto: --json: order \"auto\" and the auto object" \
		'd["rules"][1]["order"] == "auto" and d["rules"][1]["auto"] == {"order": 5, "raised": 2, "lowered": 1, "learned": 8400, "useful_pct": 87.5} and d["rules"][1]["hits"] == 1200 and d["rules"][1]["pages"] == 9600'
	t_json "policy auto: --json: useful_pct null before a judgement" \
		'd["rules"][2]["auto"] == {"order": 4, "raised": 0, "lowered": 0, "learned": 0, "untrusted": 77, "useful_pct": None} and d["rules"][2]["pages"] is None and d["rules"][2]["keys"] == {"pid": "1", "learn_uid": "999"}'
	t_json "policy auto: --json: other rules unchanged" \
		'd["rules"][0] == {"match": "comm", "value": "keep", "keys": {"comm": "keep"}, "order": 3, "hits": 1, "pages": None, "exited": False}'
	# a rule of several keys: match and value its first, keys all of them
	printf '# rules 1/32\n# kernel order=9\n# default order=4 hits=5 pages=-\ncomm=pg file=/srv/a.idx madv=random order=0 # hits=3 pages=-\n' >"$pol"
	run "$CTL" policy show --json
	t_json "policy: --json: a rule of mapping keys" \
		'd["rules"][0]["match"] == "comm" and d["rules"][0]["value"] == "pg" and d["rules"][0]["keys"] == {"comm": "pg", "file": "/srv/a.idx", "madv": "random"} and d["rules"][0]["order"] == 0'
	run "$CTL" policy show
	t_grep "policy: show: a rule of mapping keys as one match" out '^comm=pg file=/srv/a\.idx madv=random +order=0 +# +3 +-$'
	# keys until order=, in the module's order; refusals exit 2, nothing written
	t_rc "policy: set, keys until order=" 0 "$CTL" policy set "madv=random" "comm=x" "order=0" "vma=exec order=1"
	t_file "policy: set: keys in the module's order, two rules" "$pol" "$(printf 'comm=x madv=random order=0\nvma=exec order=1')"
	cp "$FIX/policy-auto.txt" "$pol"
	for bad in "comm=a comm=b order=1" "comm=a pid=1 order=1" "madv=seq order=0" "vma=heap order=0" \
		"file=/nonexistent/x order=0" "file=$T order=0" "vma=exec vma=data order=0"; do
		t_rc "policy: set '$bad': exit 2" 2 "$CTL" policy set "$bad"
	done
	t_file "policy: mapping key refusals: nothing written" "$pol" "$(cat "$FIX/policy-auto.txt")"
	t_rc "policy: set 'madv=random order=auto'" 0 "$CTL" policy set madv=random order=auto
	t_file "policy: set: an auto rule of mapping keys" "$pol" "madv=random order=auto"
	printf '# rules 1/32\n# kernel order=9\n# default order=4 hits=5 pages=-\npid=1 order=auto # exited hits=7 pages=- auto_order=0 raised=0 lowered=4 learned=4096 useful=100.0%%\n' >"$pol"
	run "$CTL" policy show --json
	t_json "policy auto: --json: an exited pid rule" \
		'd["rules"][0]["exited"] is True and d["rules"][0]["hits"] == 7 and d["rules"][0]["auto"] == {"order": 0, "raised": 0, "lowered": 4, "learned": 4096, "useful_pct": 100.0}'
	run "$CTL" policy show
	t_grep "policy auto: show: exited last" out '^pid=1 +order=auto +# +7 +- auto_order=0 raised=0 lowered=4 useful=100\.0% learned=4096 exited$'

	# set, add: the note while usefulness_enable is 0, not when it is 1
	cp "$FIX/policy-auto.txt" "$pol"
	echo 0 >"$T/usefulness_enable"
	t_rc "policy auto: set 'comm=x order=auto'" 0 "$CTL" policy set 'comm=x order=auto'
	t_file "policy auto: set: written" "$pol" "comm=x order=auto"
	t_grep "policy auto: set with usefulness_enable 0: the note" err \
		'^mmtunectl: note: order=auto learns only while usefulness_enable is 1 .*set usefulness_enable 1'
	[ "$(wc -l <"$W/err")" = 1 ] && ok "policy auto: set: one note line" || fail "policy auto: set: $(wc -l <"$W/err") lines on stderr"
	cp "$FIX/policy-auto.txt" "$pol"
	t_rc "policy auto: add comm=y order=auto" 0 "$CTL" policy add comm=y order=auto
	t_file "policy auto: add: after those there" "$pol" "$want$(printf '\ncomm=y order=auto')"
	t_grep "policy auto: add with usefulness_enable 0: the note" err 'usefulness_enable is 1'
	cp "$FIX/policy-auto.txt" "$pol"
	t_rc "policy auto: set a fixed order" 0 "$CTL" policy set comm=x order=2
	[ -s "$W/err" ] && fail "policy auto: set without auto: a note: $(errline)" || ok "policy auto: set without auto: no note"
	echo 1 >"$T/usefulness_enable"
	cp "$FIX/policy-auto.txt" "$pol"
	t_rc "policy auto: set with usefulness_enable 1" 0 "$CTL" policy set comm=x order=auto
	[ -s "$W/err" ] && fail "policy auto: usefulness_enable 1: a note: $(errline)" || ok "policy auto: usefulness_enable 1: no note"

	# refusals: exit 2, nothing written
	cp "$FIX/policy-auto.txt" "$pol"
	for v in autox AUTO auto1 auto=1; do
		t_rc "policy auto: set comm=x order='$v'" 2 "$CTL" policy set "comm=x" "order=$v"
	done
	# learn_uid=: after order=auto too, in the module's place; not on a fixed order
	cp "$FIX/policy-auto.txt" "$pol"
	t_rc "policy auto: set comm=x order=auto learn_uid=999" 0 "$CTL" policy set comm=x order=auto learn_uid=999
	t_file "policy auto: learn_uid= written before order=" "$pol" "comm=x learn_uid=999 order=auto"
	cp "$FIX/policy-auto.txt" "$pol"
	for v in "comm=x order=2 learn_uid=0" "comm=x learn_uid=x order=auto" "comm=x learn_uid=-1 order=auto" "learn_uid=0 order=auto"; do
		# shellcheck disable=SC2086 # the words of the rule
		t_rc "policy auto: set $v: refused" 2 "$CTL" policy set $v
	done
	run "$CTL" policy set comm=x order=autox
	t_grep "policy auto: a bad order names auto" err "order 'autox': want 0\.\.9, 'default', 'auto', 'auto:N' or 'auto:file'"
	printf 'comm=a order=auto\ncomm=b order=autox\n' >"$W/bad-auto.pol"
	run "$CTL" policy load "$W/bad-auto.pol"
	[ "$RC" = 2 ] && grep -q "line 2" "$W/err" && ok "policy auto: load: order=autox refused, line named" ||
		fail "policy auto: load order=autox: exit $RC: $(errline)"
	t_file "policy auto: refusals: nothing written" "$pol" "$(cat "$FIX/policy-auto.txt")"

	# save keeps what auto learned: the rule as auto:N, N its auto_order,
	# and usefulness_enable=1 (before: order=auto, learned order lost)
	echo 1 > "$T/usefulness_enable"
	run "$CTL" save --stdout
	t_grep "policy auto: save --stdout: the rule as order=auto:5 (learned)" out '^comm=cc1 order=auto:5$'
	t_grep "policy auto: save --stdout: usefulness_enable=1" out '^options mmtune fault_around_order=[0-9]+ .*usefulness_enable=1'
	grep -q '^pid=1' "$W/out" && fail "policy auto: save kept a pid= rule" || ok "policy auto: save leaves out pid="
	# auto:N loads back, as the module takes it
	printf 'comm=cc1 order=auto:5\n' > "$W/auto-from.pol"
	t_rc "policy auto: load order=auto:5" 0 "$CTL" policy load "$W/auto-from.pol"
	t_file "policy auto: auto:5 written as is" "$pol" "comm=cc1 order=auto:5"
	t_rc "policy auto: set order=auto:99 beyond max_order: exit 2" 2 "$CTL" policy set comm=x order=auto:99
	t_rc "policy auto: set order=auto: without N: exit 2" 2 "$CTL" policy set comm=x order=auto:
	rm -f "$T/usefulness_enable"
}

# prom_check FILE [EXPR]: FILE through a real Prometheus parser
# (python3-prometheus-client's), then what that parser lets through:
# every line a HELP, a TYPE or a sample (label names and escapes as the
# format has them); one HELP then one TYPE before a metric's samples,
# which come together; no untyped metric; counters named _total; no
# sample twice; a histogram's buckets in order, cumulative, the last +Inf
# and equal to _count.  Then EXPR holds, with S the samples ({(NAME,
# LABELS): VALUE}), v(NAME, LABEL=VALUE...) one's value (None if there is
# none) and names their names.  Silent if it all holds, else why on its
# last line.
prom_check() {
	$PY - "$1" "${2:-True}" <<'EOF' 2>&1
import math, re, sys
try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    sys.exit("no prometheus_client (tests/deps/host.txt: python3-prometheus-client)")
text = open(sys.argv[1]).read()
def bad(why):
    sys.exit(why)
try:
    fams = list(text_string_to_metric_families(text))
except Exception as e:
    bad("the parser refuses it: %s: %s" % (type(e).__name__, e))
NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
helps, types, done, cur = {}, {}, set(), None
for n, line in enumerate(text.splitlines(), 1):
    m = re.match(r"# (HELP|TYPE) (%s) (\S.*)$" % NAME, line)
    if m:
        kind, name = m.group(1), m.group(2)
        d = helps if kind == "HELP" else types
        if name in d or name in done:
            bad("line %d: a second %s line of %s" % (n, kind, name))
        if kind == "TYPE" and name not in helps:
            bad("line %d: %s's TYPE before its HELP" % (n, name))
        if kind == "HELP" and cur:
            done.add(cur)
        d[name] = m.group(3)
        cur = name
        continue
    m = re.match(r"(%s)(\{%s(,%s)*,?\})? \S+$" % (NAME, LABEL, LABEL), line)
    if not m:
        bad("line %d: neither HELP, TYPE nor a sample (labels, escapes): %s" % (n, line))
    s = m.group(1)
    fam = s if s in types else next((f for f in types if types[f] == "histogram" and
                                     s in (f + "_bucket", f + "_sum", f + "_count")), None)
    if fam is None:
        bad("line %d: %s without a TYPE line before it" % (n, s))
    if fam != cur:
        bad("line %d: %s's samples are not together" % (n, fam))
for name, t in types.items():
    if t not in ("counter", "gauge", "histogram"):
        bad("%s: type %s" % (name, t))
    if t == "counter" and not name.endswith("_total"):
        bad("counter %s: not named _total" % name)
S = {}
for f in fams:
    if f.type == "unknown" or not f.documentation:
        bad("%s: no TYPE or no HELP" % f.name)
    for s in f.samples:
        k = (s.name, tuple(sorted(s.labels.items())))
        if k in S:
            bad("%s%s: twice" % k)
        S[k] = s.value
    if f.type != "histogram":
        continue
    series = {}
    for s in f.samples:
        x = series.setdefault(tuple(sorted((a, b) for a, b in s.labels.items() if a != "le")), [[], None])
        if s.name.endswith("_bucket"):
            x[0].append((float(s.labels["le"]), s.value))
        elif s.name.endswith("_count"):
            x[1] = s.value
    for k, (b, count) in series.items():
        les, vals = [a for a, _ in b], [c for _, c in b]
        if not b or les != sorted(set(les)) or les[-1] != math.inf:
            bad("%s%s: buckets out of order or no +Inf: %s" % (f.name, k, les))
        if vals != sorted(vals):
            bad("%s%s: buckets not cumulative: %s" % (f.name, k, vals))
        if count != vals[-1]:
            bad("%s%s: _count %s, +Inf %s" % (f.name, k, count, vals[-1]))
def v(name, **labels):
    return S.get((name, tuple(sorted(labels.items()))))
names = {k[0] for k in S}
if not eval("(" + sys.argv[2] + "\n)"):
    bad("does not hold: %s; got %s" % (sys.argv[2], sorted(S.items())[:40]))
EOF
}

# t_prom NAME [EXPR]: $W/out passes prom_check (and EXPR holds)
t_prom() {
	local why
	if why=$(prom_check "$W/out" "${2:-True}"); then ok "$1"; else fail "$1: $(echo "$why" | tail -n 1)"; fi
}

# stats --prometheus beyond the counters: the orders, the usefulness
# totals, each policy rule's counters labelled with its text
# (fixtures/prom/policy: an auto rule, a rule again, a comm with a double
# quote and a backslash), the latency histogram; what the module does not
# show left out; the checker itself refuses broken output
suite_prometheus() {
	local f
	fresh
	cp "$FIX/prom/policy" "$FIX/prom/usefulness" "$FIX/prom/latency" "$T/"
	run "$CTL" stats --prometheus
	[ "$RC" = 0 ] && [ ! -s "$W/err" ] && ok "prometheus: exit 0, quiet" || fail "prometheus: exit $RC: $(errline)"
	cp "$W/out" "$W/prom.good"
	t_prom "prometheus: the whole output parses, a HELP and a TYPE per metric"
	t_prom "prometheus: the counters as before" \
		'v("mmtune_faults_total") == 1200 and "mmtune_fault_around_pages_mapped_total" not in names'
	t_prom "prometheus: order gauges (base: fault_around_order; kernel: the policy's)" \
		'v("mmtune_base_order") == 4 and v("mmtune_kernel_order") == 5'
	t_prom "prometheus: rule hits labelled with the rule's text, the default row" \
		'v("mmtune_rule_hits_total", rule="default") == 5 and v("mmtune_rule_hits_total", rule="comm=postgres order=0") == 12 and v("mmtune_rule_hits_total", rule="comm=cc1 order=auto") == 1200'
	t_prom "prometheus: a label with a double quote and a backslash round-trips" \
		'v("mmtune_rule_hits_total", rule="comm=q\"b\\n order=2") == 3'
	grep -qxF 'mmtune_rule_hits_total{rule="comm=q\"b\\n order=2"} 3' "$W/out" &&
		ok "prometheus: the label escaped as the text format wants" ||
		fail "prometheus: label escape: $(grep -F 'comm=q' "$W/out" | head -n 1)"
	t_prom "prometheus: pages where counted, none for pages=-" \
		'v("mmtune_rule_pages_total", rule="comm=cc1 order=auto") == 9600 and v("mmtune_rule_pages_total", rule="default") == 40 and v("mmtune_rule_pages_total", rule="comm=q\"b\\n order=2") is None and v("mmtune_rule_pages_total", rule="pid=1 order=auto") is None'
	t_prom "prometheus: prefaulted and untouched per rule, where the module shows them" \
		'v("mmtune_rule_prefaulted_total", rule="comm=cc1 order=auto") == 8400 and v("mmtune_rule_untouched_total", rule="comm=cc1 order=auto") == 1050 and v("mmtune_rule_prefaulted_total", rule="default") == 120 and v("mmtune_rule_untouched_total", rule="default") == 30 and v("mmtune_rule_prefaulted_total", rule="comm=postgres order=0") is None'
	t_prom "prometheus: an auto rule's learned order and usefulness" \
		'v("mmtune_rule_auto_order", rule="comm=cc1 order=auto") == 5 and v("mmtune_rule_useful_ratio", rule="comm=cc1 order=auto") == 0.875 and v("mmtune_rule_auto_order", rule="pid=1 order=auto") == 4'
	t_prom "prometheus: no usefulness before a judgement, no auto order for a fixed rule" \
		'v("mmtune_rule_useful_ratio", rule="pid=1 order=auto") is None and len([k for k in S if k[0] == "mmtune_rule_auto_order"]) == 2'
	expect_eq "prometheus: a rule again: one series, the first's" \
		"$(grep '^mmtune_rule_hits_total{rule="comm=postgres order=0"}' "$W/out")" 'mmtune_rule_hits_total{rule="comm=postgres order=0"} 12'
	t_prom "prometheus: usefulness totals" \
		'v("mmtune_usefulness_enable") == 1 and v("mmtune_prefaulted_total") == 8520 and v("mmtune_untouched_total") == 1080'
	t_prom "prometheus: latency histogram, cumulative buckets (le: a bucket's high in seconds)" \
		'[v("mmtune_fault_latency_seconds_bucket", kind="fault_around", le=l) for l in ("0.000001024", "0.000002048", "0.000004096", "0.000008192", "+Inf")] == [6, 986, 1030, 1030, 1030]'
	t_prom "prometheus: latency _count per kind, no _sum (the module keeps none)" \
		'v("mmtune_fault_latency_seconds_count", kind="fault_around") == 1030 and v("mmtune_fault_latency_seconds_count", kind="no_fault_around") == 20 and v("mmtune_fault_latency_seconds_bucket", kind="no_fault_around", le="0.000004096") == 17 and "mmtune_fault_latency_seconds_sum" not in names'
	printf 'state: on\nunit: ns\nfault_around_samples: 2\nno_fault_around_samples: 1\n%s\n%s\n' \
		'35184372088832 70368744177664 1 0' '70368744177664 140737488355328 1 1' >"$T/latency"
	run "$CTL" stats --prometheus
	t_prom "prometheus: the last bucket (2^47 ns, and longer) only in +Inf" \
		'[(s[1], S[s]) for s in sorted(S) if s[0] == "mmtune_fault_latency_seconds_bucket" and ("kind", "fault_around") in s[1]] == [((("kind", "fault_around"), ("le", "+Inf")), 2), ((("kind", "fault_around"), ("le", "70368.744177664")), 1)]'

	# the check refuses what a Prometheus server would not take
	for f in '/^# TYPE mmtune_rule_hits_total/d:a missing TYPE' \
		's/q\\"b/q"b/:a bare double quote' \
		's/^# HELP mmtune_base_order .*/&\n&/:a second HELP' \
		's/^mmtune_faults_total 1200$//;$a mmtune_faults_total 1200:a metric'\''s samples apart' \
		's/mmtune_rule_hits_total/mmtune_rule_hits/:a counter without _total' \
		's/\(kind="fault_around",le="0.000002048"}\) 986/\1 2000/:buckets not cumulative' \
		's/\(_count{kind="fault_around"}\) 1030/\1 1031/:a _count that is not +Inf'\''s'; do
		sed "${f%%:*}" "$W/prom.good" | sed '/^$/d' >"$W/prom.bad"
		if prom_check "$W/prom.bad" >/dev/null; then
			fail "prometheus: the check refuses ${f#*:}"
		else
			ok "prometheus: the check refuses ${f#*:}"
		fi
	done
	sed 's/q\\"b\\\\n/q\\"b\\n/' "$W/prom.good" >"$W/prom.bad"
	if prom_check "$W/prom.bad" 'v("mmtune_rule_hits_total", rule="comm=q\"b\\n order=2") == 3' >/dev/null; then
		fail "prometheus: the check refuses a bare backslash"
	else
		ok "prometheus: the check refuses a bare backslash"
	fi

	# what the module does not show is left out, never a 0
	fresh
	run "$CTL" stats --prometheus
	t_prom "prometheus: no policy, no usefulness file: their metrics left out" \
		'not [n for n in names if n.startswith("mmtune_rule_") or n in ("mmtune_prefaulted_total", "mmtune_untouched_total", "mmtune_usefulness_enable")]'
	t_prom "prometheus: no policy: the kernel order from info" 'v("mmtune_kernel_order") == 4 and v("mmtune_base_order") == 4'
	t_prom "prometheus: a kind the module does not tell apart left out" \
		'v("mmtune_fault_latency_seconds_count", kind="fault_around") == 1024 and not [k for k in S if ("kind", "no_fault_around") in k[1]]'
	sed 's/^unit: ns$/unit: us/' "$FIX/tree/debugfs/mmtune/latency" >"$T/latency"
	run "$CTL" stats --prometheus
	t_prom "prometheus: a latency in another unit than ns left out" \
		'not [n for n in names if n.startswith("mmtune_fault_latency")] and v("mmtune_faults_total") == 1200'
	printf 'state: unavailable (PREEMPT_RT: the page table lock sleeps there)\nprefaulted: 0\nuntouched: 0\nuseful: -\n' >"$T/usefulness"
	printf 'state: unavailable (see info: hook_handle_mm_fault_return)\n' >"$T/latency"
	rm "$T/stats_enable" "$T/fault_around_order"
	run "$CTL" stats --prometheus
	t_prom "prometheus: unavailable usefulness and latency, no stats_enable, no order: left out" \
		'names == {"mmtune_faults_total", "mmtune_fault_around_calls_total", "mmtune_fault_around_pages_requested_total", "mmtune_kernel_order"}'
	fresh
	rm "$T/latency"
	printf 'state: off\nprefaulted: 7\nuntouched: 2\nuseful: 71.4%%\n' >"$T/usefulness"
	run "$CTL" stats --prometheus
	t_prom "prometheus: no latency file: no histogram; usefulness off: its counts" \
		'not [n for n in names if n.startswith("mmtune_fault_latency")] and v("mmtune_usefulness_enable") == 0 and v("mmtune_prefaulted_total") == 7'
	printf '# rules 1/32\ncomm=a\n' >"$T/policy"
	run "$CTL" stats --prometheus
	[ "$RC" = 0 ] && grep -q "note: the policy's metrics are left out" "$W/err" &&
		ok "prometheus: an unreadable policy: left out, a note, exit 0" ||
		fail "prometheus: unreadable policy: exit $RC: $(errline)"
	t_prom "prometheus: an unreadable policy: the rest still there" \
		'v("mmtune_faults_total") == 1200 and not [n for n in names if n.startswith("mmtune_rule_")]'
}

# stats --prometheus --rss: prom_rss_tree's processes summed under the
# rule each matches first.  Pages of 4096 bytes; by hand:
#   pid=1 order=3 (exited: matches nobody)         0 processes
#   pid=300 order=3     300 (also comm cc1, /svc)  60/30  -> 1, 245760/122880 bytes
#   comm=cc1 order=2    400 (/user.slice)          81/41  -> 1, 331776/167936
#   cgroup=/svc auto    100 (/svc/db) 400/250, 1 (/svc/init) 7/3, 800 (/svc/x/y) 12/12
#                                                 419/265 -> 3, 1716224/1085440
#   comm=cc1 order=2 (again: one series, nothing it could match)
#   default             500 (/svcx: not below /svc) 10/0, 600 (gone: no
#                       cgroup file) 20/5         30/5   -> 2, 122880/20480
#   busy: 200 and 700 (700 a cc1: busy ones are not matched)  -> 2
# File lines (100's sum to its 400/250) are in their process's figures.
prom_rss_tree() {
	local p
	fresh
	printf '%s\n' '# available 1 usefulness_enable 1 page_size 4096' \
		'pid=1 mapped=7 untouched=3 comm=init' \
		'pid=100 mapped=400 untouched=250 comm=post\040gres' \
		'pid=100 mapped=150 untouched=70 file=/usr/lib/libc.so.6' \
		'pid=100 mapped=250 untouched=180 file=/data/db' \
		'pid=200 busy comm=java' \
		'pid=300 mapped=60 untouched=30 comm=cc1' \
		'pid=300 mapped=60 untouched=30 file=/usr/bin/cc1' \
		'pid=400 mapped=81 untouched=41 comm=cc1' \
		'pid=400 mapped=81 untouched=41 file=/usr/bin/cc1' \
		'pid=500 mapped=10 untouched=0 comm=idle' \
		'pid=600 mapped=20 untouched=5 comm=sh' \
		'pid=700 busy comm=cc1' \
		'pid=800 mapped=12 untouched=12 comm=idle' >"$T/rss"
	printf '%s\n' '# rules 5/32' '# kernel order=4' '# default order=4 hits=5 pages=-' \
		'pid=1 order=3 # exited hits=0 pages=-' 'pid=300 order=3 # hits=0 pages=-' \
		'comm=cc1 order=2 # hits=1 pages=-' \
		'cgroup=/svc order=auto # hits=0 pages=- auto_order=4 raised=0 lowered=0 learned=0 useful=-' \
		'comm=cc1 order=2 # hits=0 pages=-' >"$T/policy"
	rm -rf "$W/proc"
	for p in 1:/svc/init 100:/svc/db 200:/svc 300:/svc 400:/user.slice 500:/svcx 700:/svc 800:/svc/x/y; do
		mkdir -p "$W/proc/${p%%:*}"
		printf '12:memory:/v1\n0::%s\n' "${p#*:}" >"$W/proc/${p%%:*}/cgroup"
	done
	export MMTUNE_PROC=$W/proc
}

suite_prometheus_rss() {
	local r l
	prom_rss_tree
	run "$CTL" stats --prometheus --rss
	[ "$RC" = 0 ] && [ ! -s "$W/err" ] && ok "prometheus --rss: exit 0, quiet" || fail "prometheus --rss: exit $RC: $(errline)"
	t_prom "prometheus --rss: the whole output parses, a HELP and a TYPE per metric"
	t_prom "prometheus --rss: the other metrics as before" \
		'v("mmtune_faults_total") == 1200 and v("mmtune_rule_hits_total", rule="comm=cc1 order=2") == 1'
	l=$(grep -n '^mmtune_' "$W/out" | grep -v '^[0-9]*:mmtune_rss_' | tail -n 1 | cut -d: -f1)
	[ -n "$l" ] && [ "$(grep -n '^mmtune_rss_' "$W/out" | head -n 1 | cut -d: -f1)" -gt "$l" ] &&
		ok "prometheus --rss: the rss metrics after the others" || fail "prometheus --rss: rss metrics not last"
	r='rule="pid=300 order=3"'
	t_prom "prometheus --rss: pid= rule first, before comm= and cgroup= it also matches" \
		"v('mmtune_rss_mapped_bytes', $r) == 245760 and v('mmtune_rss_untouched_bytes', $r) == 122880 and v('mmtune_rss_processes', $r) == 1"
	r='rule="comm=cc1 order=2"'
	t_prom "prometheus --rss: comm= rule: the cc1 no pid= rule took, not the busy one" \
		"v('mmtune_rss_mapped_bytes', $r) == 331776 and v('mmtune_rss_untouched_bytes', $r) == 167936 and v('mmtune_rss_processes', $r) == 1"
	r='rule="cgroup=/svc order=auto"'
	t_prom "prometheus --rss: cgroup= rule: the cgroup and below it, file lines not counted twice" \
		"v('mmtune_rss_mapped_bytes', $r) == 1716224 and v('mmtune_rss_untouched_bytes', $r) == 1085440 and v('mmtune_rss_processes', $r) == 3"
	r='rule="default"'
	t_prom "prometheus --rss: default: no rule matched (/svcx not below /svc; a process gone, no cgroup)" \
		"v('mmtune_rss_mapped_bytes', $r) == 122880 and v('mmtune_rss_untouched_bytes', $r) == 20480 and v('mmtune_rss_processes', $r) == 2"
	r='rule="pid=1 order=3"'
	t_prom "prometheus --rss: an exited pid= rule matches nobody (its number's process under cgroup=)" \
		"v('mmtune_rss_mapped_bytes', $r) == 0 and v('mmtune_rss_untouched_bytes', $r) == 0 and v('mmtune_rss_processes', $r) == 0"
	t_prom "prometheus --rss: busy processes, no rule label" \
		'v("mmtune_rss_busy_processes") == 2 and len([k for k in S if k[0] == "mmtune_rss_busy_processes"]) == 1'
	t_prom "prometheus --rss: a series per distinct rule text and the default" \
		'all(len([k for k in S if k[0] == m]) == 5 for m in ("mmtune_rss_mapped_bytes", "mmtune_rss_untouched_bytes", "mmtune_rss_processes"))'
	t_prom "prometheus --rss: every non-busy process counted once" \
		'sum(S[k] for k in S if k[0] == "mmtune_rss_processes") == 7'
	sed -i '1s/.*/# available 1 usefulness_enable 1 page_size 65536/' "$T/rss"
	run "$CTL" stats --prometheus --rss
	t_prom "prometheus --rss: bytes are pages times the header's page_size" \
		'v("mmtune_rss_mapped_bytes", rule="pid=300 order=3") == 60 * 65536 and v("mmtune_rss_untouched_bytes", rule="default") == 5 * 65536'
	# a rule with mapping keys: its pages per process from the module (the
	# fake gives every process to rule=1), the rest to the process's
	# rule: here nothing (all taken); rule=1 written
	prom_rss_tree
	sed -i 's|^# rules 5/32$|# rules 6/32|; s|^# default order=4 .*|&\nfile=/data/db order=0 # hits=0 pages=-|' "$T/policy"
	run "$CTL" stats --prometheus --rss
	[ "$RC" = 0 ] && [ "$(tail -n 1 "$T/rss")" = "rule=1" ] && ok "prometheus --rss, a file= rule first: rule=1 written, exit 0" ||
		fail "prometheus --rss, a file= rule: exit $RC, last line '$(tail -n 1 "$T/rss")': $(errline)"
	t_prom "prometheus --rss, a file= rule first: its pages, every process's here" \
		"v('mmtune_rss_mapped_bytes', rule='file=/data/db order=0') == 590 * 4096 and v('mmtune_rss_untouched_bytes', rule='file=/data/db order=0') == 341 * 4096 and v('mmtune_rss_processes', rule='file=/data/db order=0') == 7"
	t_prom "prometheus --rss, a file= rule first: what it took is no other rule's" \
		"sum(S[k] for k in S if k[0] == 'mmtune_rss_mapped_bytes') == 590 * 4096 and v('mmtune_rss_processes', rule='default') == 0"
	if chattr +i "$T/rss" 2>/dev/null; then
		run "$CTL" stats --prometheus --rss
		chattr -i "$T/rss"
		[ "$RC" = 0 ] && grep -q "note: the rss metrics are left out: rules with file=.*lockdown" "$W/err" &&
			ok "prometheus --rss, a file= rule, the file read-only (lockdown): left out, a note, exit 0" ||
			fail "prometheus --rss, a file= rule, read-only: exit $RC: $(errline)"
		t_prom "prometheus --rss, a file= rule, read-only: no rss metric" 'not [n for n in names if n.startswith("mmtune_rss_")]'
	else
		skip "prometheus --rss, a file= rule, the file read-only (lockdown)" "chattr +i refused here"
	fi
	prom_rss_tree
	run "$CTL" stats --prometheus
	t_prom "prometheus without --rss: no rss metrics" \
		'v("mmtune_faults_total") == 1200 and not [n for n in names if n.startswith("mmtune_rss_")]'
	[ ! -s "$W/err" ] && ok "prometheus without --rss: quiet" || fail "prometheus without --rss: $(errline)"

	# usage: --rss only with --prometheus
	t_rc "stats --rss without --prometheus: exit 2" 2 "$CTL" stats --rss
	t_grep "stats --rss without --prometheus: says so" err '\-\-rss needs \-\-prometheus'
	t_rc "stats --json --rss: exit 2" 2 "$CTL" stats --json --rss
	t_rc "stats --prometheus --rss --json: exit 2" 2 "$CTL" stats --prometheus --rss --json
	t_rc "stats --watch 1 --rss: exit 2" 2 "$CTL" stats --watch 1 --count 1 --rss

	# what cannot be measured: left out, a note, exit 0, the rest there
	for l in 'available 0 usefulness_enable 0:unavailable on this kernel' \
		'available 1 usefulness_enable 0:usefulness_enable is 0' 'none:no rss file'; do
		prom_rss_tree
		if [ "${l%%:*}" = none ]; then rm "$T/rss"; else sed -i "1s/.*/# ${l%%:*} page_size 4096/" "$T/rss"; fi
		run "$CTL" stats --prometheus --rss
		[ "$RC" = 0 ] && [ "$(wc -l <"$W/err")" = 1 ] &&
			grep -q "^mmtunectl: note: the rss metrics are left out: .*${l#*:}" "$W/err" &&
			ok "prometheus --rss, ${l%%:*}: exit 0, one note saying why" ||
			fail "prometheus --rss, ${l%%:*}: exit $RC: $(errline)"
		t_prom "prometheus --rss, ${l%%:*}: no rss metric, not even busy; the rest there" \
			'v("mmtune_faults_total") == 1200 and v("mmtune_rule_hits_total", rule="default") == 5 and not [n for n in names if n.startswith("mmtune_rss_")]'
	done
	prom_rss_tree
	printf '# rules 1/32\ncomm=a\n' >"$T/policy"
	run "$CTL" stats --prometheus --rss
	[ "$RC" = 0 ] && grep -q "note: the rss metrics are left out: they need the policy" "$W/err" &&
		ok "prometheus --rss, an unreadable policy: exit 0, a note" || fail "prometheus --rss, unreadable policy: exit $RC: $(errline)"
	t_prom "prometheus --rss, an unreadable policy: no rss metric (nothing to sum by)" \
		'v("mmtune_faults_total") == 1200 and not [n for n in names if n.startswith("mmtune_rss_")]'
	# a file that cannot be read as the rss file: exit 1, nothing printed
	prom_rss_tree
	echo 'pid=1 mapped=1 untouched=1 comm=x' >"$T/rss"
	t_rc "prometheus --rss, no header: exit 1" 1 "$CTL" stats --prometheus --rss
	t_grep "prometheus --rss, no header: says so" err 'rss: unexpected content'
	[ ! -s "$W/out" ] && ok "prometheus --rss, no header: nothing printed" || fail "prometheus --rss, no header: printed $(head -n 1 "$W/out")"
	rm "$T/rss"
	mkdir "$T/rss"
	run "$CTL" rss
	l="$RC $(cat "$W/err")"
	run "$CTL" stats --prometheus --rss
	[ "$RC" != 0 ] && expect_eq "prometheus --rss, rss a directory: rss's exit code and message" "$RC $(cat "$W/err")" "$l" ||
		fail "prometheus --rss, rss a directory: exit $RC"
	[ ! -s "$W/out" ] && ok "prometheus --rss, rss a directory: nothing printed" ||
		fail "prometheus --rss, rss a directory: printed $(wc -l <"$W/out") lines"
	fresh
	unset MMTUNE_PROC
	for f in rssfile rssrule prom; do
		l=$($PY "$TOP/tests/host/funclen.py" "$US/ctl/$f.c" | sed -n 1p)
		[ -n "$l" ] && [ "${l%% *}" -le 50 ] && ok "userspace/ctl/$f.c: the longest function has ${l%% *} lines (${l##* })" ||
			fail "userspace/ctl/$f.c: a function over 50 lines: ${l:-funclen.py found none}"
	done
}

suite_perm() {
	if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
		skip "unprivileged: needs root and setpriv"
		return
	fi
	fresh
	chmod 700 "$W/tree/debugfs"
	local as_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	t_rc "unprivileged: get fault_around_order" 1 $as_nobody "$CTL" get fault_around_order
	t_grep "unprivileged: says run as root" err "permission denied .*: run as root"
	t_rc "unprivileged: set fault_around_order 2" 1 $as_nobody "$CTL" set fault_around_order 2
	t_file "unprivileged: nothing written" "$T/fault_around_order" 4
	t_rc "unprivileged: status" 1 $as_nobody "$CTL" status
	t_rc "unprivileged: stats" 1 $as_nobody "$CTL" stats
	t_rc "unprivileged: bad value is still usage" 2 $as_nobody "$CTL" set fault_around_order 12x
	no_module
	t_rc "unprivileged, no module: get" 1 $as_nobody "$CTL" get fault_around_order
	t_grep "unprivileged, no module: says run as root" err "run as root"
}

# ---------------------------------------------------------- build + run

VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf")
VERSION=${VERSION:-0.0.0}

# The module's pure arithmetic on the host: the window a rule's order
# gives, the match cache's key, order=auto's judgement (module_unit.c)
suite_module_unit() { run_unit module_unit "$MUNIT"; }

# build_suite DIR [SAN]: libmmtune, mmtunectl, the unit driver and the
# module's unit checks (module/'s pure files against tests/host/shim/)
build_suite() {
	local o=$1 san=${2:-} flags="-Wall -Wextra -Werror -std=gnu11 -O1 -g"
	[ -n "$san" ] && flags="$flags -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
	make -s -C "$US" O="$o" VERSION="$VERSION" WERROR=1 ${san:+SAN=1} ctl >"$W/build.log" 2>&1 &&
		${CC:-cc} $flags -I"$US/lib" "$TOP/tests/host/unit.c" "$o/lib/libmmtune.a" -o "$o/unit" >>"$W/build.log" 2>&1 &&
		${CC:-cc} $flags -D_DEFAULT_SOURCE -I"$TOP/tests/host/shim" -I"$TOP/module" \
			"$TOP/module/policy_grammar.c" "$TOP/tests/host/rule_unit.c" -o "$o/rule_unit" >>"$W/build.log" 2>&1 &&
		${CC:-cc} $flags -I"$TOP/tests/host/shim" -I"$TOP/module" "$TOP/tests/host/module_unit.c" \
			"$TOP/module/auto_judge.c" -o "$o/module_unit" >>"$W/build.log" 2>&1 &&
		${CC:-cc} $flags -I"$US/ctl" "$TOP/tests/host/advise_unit.c" "$US/ctl/advpick.c" \
			-o "$o/advise_unit" >>"$W/build.log" 2>&1
}

# The advisor's choice on the host (tests/host/advise_unit.c)
suite_advise_unit() { run_unit advise_unit "$AUNIT"; }

# The lockdown-proof interface: a fake /sys/kernel/mm/mmtune and
# parameters, and a debugfs that is not there (as under lockdown, where
# the module's debugfs files are refused): the tools read and write
# through them alone.
# plane_rules "MATCH ORDER"...: the fake tree's rules/ (in $S) holds those
# rules, count and slots, a plain rule's values ("-" where it has none)
plane_rules() {
	local i=0 r f
	rm -rf "$S/rules/"[0-9]*
	for r in "$@"; do
		mkdir -p "$S/rules/$i"
		echo "${r% *}" > "$S/rules/$i/match"
		echo "${r##* }" > "$S/rules/$i/order"
		for f in hits:0 pages:0 prefaulted:0 untouched:0 auto_order:- raised:- lowered:- learned:- useful:- untrusted:-; do
			echo "${f#*:}" > "$S/rules/$i/${f%%:*}"
		done
		i=$((i + 1))
	done
	echo $i > "$S/rules/count"
}

suite_plane() {
	local S=$W/plane/mm P=$W/plane/module/parameters d
	rm -rf "$W/plane"
	for d in info stats latency policy pfn_valid; do mkdir -p "$S/$d"; done
	mkdir -p "$P"
	cp "$FIX/tree/sysmodule/version" "$W/plane/module/"
	while IFS=': ' read -r k v; do echo "$v" > "$S/info/$k"; done < "$FIX/tree/debugfs/mmtune/info"
	echo on > "$S/info/sysfs"
	while read -r k v; do echo "$v" > "$S/stats/$k"; done < "$FIX/tree/debugfs/mmtune/stats"
	for f in fault_around_order:4 stats_enable:1 latency_enable:1 mapped_enable:0 pfn_valid_mode:off policy: stats_reset:; do
		echo "${f#*:}" > "$P/${f%%:*}"
	done
	: > "$P/policy"
	printf 'on\n' > "$S/latency/state"
	echo ns > "$S/latency/unit"
	for f in fault_around_samples:3 no_fault_around_samples:1 unclassified:0 missed:0; do
		echo "${f#*:}" > "$S/latency/${f%%:*}"
	done
	echo "0 1 2 4" > "$S/latency/bucket_low_ns"
	echo "0 0 3 0" > "$S/latency/fault_around_buckets"
	echo "0 1 0 0" > "$S/latency/no_fault_around_buckets"
	export MMTUNE_DEBUGFS=$W/no-debugfs MMTUNE_SYSFS_MODULE=$W/plane/module MMTUNE_SYSFS_MM=$S
	run "$CTL" status
	t_grep "plane: status names the interface" out "^interface: +parameters and /sys/kernel/mm/mmtune$"
	t_grep "plane: status reads info from sysfs" out '^  pfn_valid: inline$'
	run "$CTL" stats
	t_grep "plane: stats from sysfs" out '^faults +1200$'
	run "$CTL" stats --prometheus
	t_grep "plane: stats --prometheus" out '^mmtune_fault_around_calls_total 300$'
	t_rc "plane: set stats_enable 0" 0 "$CTL" set stats_enable 0
	t_file "plane: stats_enable written to its parameter" "$P/stats_enable" 0
	t_rc "plane: stats --reset" 0 "$CTL" stats --reset
	t_file "plane: the reset is stats_reset 1" "$P/stats_reset" 1
	t_rc "plane: set pfn_valid/mode stock" 0 "$CTL" set pfn_valid/mode stock
	t_file "plane: pfn_valid_mode written" "$P/pfn_valid_mode" stock
	# the policy: rules/count and rules/N/, a value a file (plane_rules);
	# the tools' edits: one line each to rules/edit, never a set
	echo 4 > "$S/info/base_order"; echo 32 > "$S/info/policy_max_rules"
	mkdir -p "$S/rules"; : > "$S/rules/edit"
	# a torn set: count says 2, slot 1 has no rule, read after read
	plane_rules "comm=a 1"; echo 2 > "$S/rules/count"
	t_rc "plane: policy show of a torn set fails" 1 "$CTL" policy show
	t_grep "plane: policy show says it changed while read" err "changed while read"
	t_rc "plane: policy del in a torn set fails" 1 "$CTL" policy del 'comm=a'
	t_file "plane: nothing edited" "$S/rules/edit" ""
	rm -rf "$W/sroot"; mkdir -p "$W/sroot/etc/mmtune" "$W/sroot/etc/modprobe.d"
	echo "comm=keep order=1" > "$W/sroot/etc/mmtune/policy"
	t_rc "plane: save with the policy unreadable fails" 1 "$CTL" save --root "$W/sroot"
	t_file "plane: save kept /etc/mmtune/policy" "$W/sroot/etc/mmtune/policy" "comm=keep order=1"
	check "plane: save left no temporary file" test -z "$(find "$W/sroot/etc/mmtune" -mindepth 1 -maxdepth 1 ! -name policy)"
	plane_rules "comm=a 1"
	t_rc "plane: policy add through rules/edit" 0 "$CTL" policy add 'comm=b order=2'
	t_file "plane: rules/edit got one add, not a whole set" "$S/rules/edit" "add comm=b order=2"
	t_file "plane: the parameter got nothing" "$P/policy" ""
	: > "$S/rules/edit"; echo 31 > "$S/rules/count"
	for d in $(seq 1 30); do cp -r "$S/rules/0" "$S/rules/$d"; echo "comm=a$d" > "$S/rules/$d/match"; done
	t_rc "plane: policy add beyond the module's limit: exit 2" 2 "$CTL" policy add 'comm=c order=2' 'comm=d order=2'
	t_file "plane: refused add wrote nothing" "$S/rules/edit" ""
	plane_rules "comm=a 1"
	t_rc "plane: policy del through rules/edit's drop" 0 "$CTL" policy del 'comm=a'
	t_file "plane: rules/edit got one drop, not a whole set" "$S/rules/edit" "drop comm=a"
	# an auto rule's fields, as debugfs shows them
	# (fixtures/plane-policy-auto.txt: rules/N/, a file a line)
	plane_rules
	while IFS=': ' read -r k v; do
		case $k in */*) mkdir -p "$S/rules/${k%/*}" ;; esac
		echo "$v" > "$S/rules/$k"
	done < "$FIX/plane-policy-auto.txt"
	run "$CTL" policy show
	t_grep "plane: policy show: an auto rule's fields" out \
		'^comm=cc1 +order=auto +# +1200 +9600 auto_order=2 raised=0 lowered=3 useful=21\.9% learned=1845$'
	t_grep "plane: policy show: no judgement yet is useful=-" out \
		'^pid=1 +order=auto +# +0 +0 auto_order=4 raised=0 lowered=0 useful=- learned=0$'
	t_grep "plane: policy show: a plain rule as before" out '^comm=keep +order=3 +# +1 +8$'
	run "$CTL" policy show --json
	t_json "plane: policy --json: the auto object, prefaulted, untouched" \
		'd["rules"][1]["auto"] == {"order": 2, "raised": 0, "lowered": 3, "learned": 1845, "useful_pct": 21.9} and d["rules"][2]["auto"]["useful_pct"] is None and d["rules"][0].get("auto") is None'
	run "$CTL" get policy
	t_grep "plane: get policy: the debugfs line" out \
		'^comm=cc1 order=auto # hits=1200 pages=9600 prefaulted=8400 untouched=1050 auto_order=2 raised=0 lowered=3 learned=1845 useful=21\.9%$'
	# a rule's file that does not read (a judgement count): that field
	# left out, the rest shown
	rm "$S/rules/1/raised" "$S/rules/1/prefaulted"
	t_rc "plane: policy show with a rule's file missing" 0 "$CTL" policy show
	rm -rf "$S/rules"
	: > "$P/policy"
	rm -f "$S"/policy/*
	unset MMTUNE_SYSFS_MM
	fresh
}

# typed_env WHERE CMD...: CMD with the typed fixture tree's roots, the
# records readable through WHERE alone (sysfs: debugfs missing, as under
# lockdown; debugfs: a module without /sys/kernel/mm/mmtune)
typed_env() {
	local where=$1 D=$W/typed/no-debugfs S=$W/typed/no-sysfs
	shift
	[ "$where" = sysfs ] && S=$W/typed/mm || D=$W/typed/debugfs
	MMTUNE_SYSFS_MODULE=$W/typed/module MMTUNE_DEBUGFS=$D MMTUNE_SYSFS_MM=$S "$@"
}

# The typed reads (libmmtune read.c, sysrec.c): each record the same
# through the sysfs files (fixtures/typed/sysfs.txt, a file a line; the
# policy's rules/N/) as through the debugfs text
# of the same state (fixtures/typed/KIND) and as parsed from that text;
# get's text made from sysfs the debugfs file's, byte for byte.
suite_typed() {
	local k line f t=$W/typed
	rm -rf "$t"
	mkdir -p "$t/module/parameters" "$t/debugfs/mmtune"
	while IFS= read -r line; do
		f=$t/mm/${line%%: *}
		mkdir -p "${f%/*}"
		printf '%s\n' "${line#*: }" > "$f"
	done < "$FIX/typed/sysfs.txt"
	echo 1 > "$t/module/parameters/stats_enable"
	for k in info stats latency policy; do
		cp "$FIX/typed/$k" "$t/debugfs/mmtune/$k"
		run typed_env sysfs "$UNIT" read $k
		cp "$W/out" "$t/$k.sysfs"
		run typed_env debugfs "$UNIT" read $k
		cp "$W/out" "$t/$k.debugfs"
		run "$UNIT" parse $k "$FIX/typed/$k"
		if cmp -s "$t/$k.sysfs" "$t/$k.debugfs" && cmp -s "$t/$k.sysfs" "$W/out" &&
		   ! grep -q '^error\|EINVAL' "$W/out"; then
			ok "typed: $k through sysfs = through debugfs = parsed ($(wc -l < "$W/out") lines)"
		else
			fail "typed: $k: $(diff "$t/$k.sysfs" "$t/$k.debugfs" | head -n 4 | tr '\n' ' ') /" \
				"$(diff "$t/$k.sysfs" "$W/out" | head -n 4 | tr '\n' ' ')"
		fi
		run typed_env sysfs "$CTL" get $k
		if [ "$RC" = 0 ] && cmp -s "$W/out" "$FIX/typed/$k"; then
			ok "typed: get $k from sysfs = the debugfs file"
		else
			fail "typed: get $k from sysfs: exit $RC: $(diff "$W/out" "$FIX/typed/$k" | head -n 4 | tr '\n' ' ')"
		fi
	done
	# a set that stays torn (rules/count counts a rule whose slot has
	# none, read after read) is refused, not taken for the set
	echo 4 > "$t/mm/rules/count"
	t_rc "typed: a policy that stays torn: refused" 1 env MMTUNE_SYSFS_MODULE="$t/module" \
		MMTUNE_DEBUGFS="$t/debugfs" MMTUNE_SYSFS_MM="$t/mm" "$CTL" policy show
	t_grep "typed: says it changed while read" err "the policy changed while read, 20 times"
}

# Every name the module and the tools share has its docs/ABI entry.
suite_abi_doc() {
	local n missing=
	for n in $(sed -n '/mmt_abi_info\[\]/,/};/p' "$TOP/module/mmtune_abi.h" | grep -o '"[a-z_]*"' | tr -d '"'); do
		grep -q "^What:.*/mmtune/info/$n\$" "$TOP/docs/ABI/sysfs-kernel-mm-mmtune" || missing="$missing info/$n"
	done
	for n in $(grep -o 'MMT_PARAM_[A-Z_]*\s*[a-z_]*$' "$TOP/module/mmtune_abi.h" | awk '{print $2}'); do
		grep -q "^What:.*/parameters/$n\$" "$TOP/docs/ABI/sysfs-module-mmtune" || missing="$missing parameters/$n"
	done
	for n in $(sed -n '/mmt_abi_counters\[\]/,/};/p' "$TOP/module/mmtune_abi.h" | grep -o '{ "[a-z_]*"' | tr -d '{ "'); do
		grep -q "^What:.*/stats/$n\$" "$TOP/docs/ABI/sysfs-kernel-mm-mmtune" || missing="$missing stats/$n"
	done
	for n in $(sed -n '/MMT_ABI_RULES_DIR/!s/^#define MMT_ABI_RULES_[A-Z]*\t*"\([a-z]*\)".*/\1/p' "$TOP/module/mmtune_abi.h") \
		 $(sed -n '/mmt_abi_rule\[\]/,/};/p' "$TOP/module/mmtune_abi.h" | grep -o '"[a-z_]*"' | tr -d '"' | sed 's,^,<N>/,'); do
		grep -q "^What:.*/mmtune/rules/$n\$" "$TOP/docs/ABI/sysfs-kernel-mm-mmtune" || missing="$missing rules/$n"
	done
	for n in $(sed -n '/mmt_abi_bpf\[\]/,/};/p' "$TOP/module/mmtune_abi.h" | grep -o '"[a-z_]*"' | tr -d '"'); do
		grep -q "^What:.*/mmtune/bpf/$n\$" "$TOP/docs/ABI/sysfs-kernel-mm-mmtune" || missing="$missing bpf/$n"
	done
	if [ -z "$missing" ]; then ok "docs/ABI: an entry for every shared name"
	else fail "docs/ABI: no entry for$missing"; fi
	# the rule keys (module/mmtune_rule_keys.h): the completion offers
	# each but order= (which it offers apart), docs/policy.md tells each
	local keys
	keys=$(sed -n 's/^MMT_RULE_KEY(\([a-z_]*\),.*/\1=/p' "$TOP/module/mmtune_rule_keys.h" | grep -vx 'order=' | tr '\n' ' ')
	expect_eq "completion: policy set offers every rule key (mmtune_rule_keys.h)" \
		"$(grep -o '"comm= [a-z_= ]*learn_uid="' "$TOP/userspace/completion/mmtunectl" | tr -d '"') " "$keys"
	missing=
	for n in $keys order=; do
		grep -q "\b$n" "$TOP/docs/policy.md" || missing="$missing $n"
	done
	if [ -z "$missing" ]; then ok "docs/policy.md: every rule key"
	else fail "docs/policy.md: no$missing"; fi
}

# bench/results.sh: the latest run of each benchmark and kernel, a run
# of some configurations only while nothing newer covers it, make bench's
# table pivoted; and bench/RESULTS.md is what it makes of bench/runs/.
suite_results() {
	local r=$W/results/runs o=$W/results/RESULTS.md t
	mkdir -p "$r"
	t='| order | config | runs | insns/fault | spread % | kernel/fault | user/fault | ratio to a | kernel ratio to a | host wall ns/fault (secondary) |
|---|---|---|---|---|---|---|---|---|---|'
	printf '## 2026-01-01 — first\n\n%s\n| 4 | a | 3 | 1 | 0.1 | 100.0 | 1 | 1 | 1.0000 | 1 |\n| 4 | p1 | 3 | 1 | 0.5 | 110.0 | 1 | 1 | 1.1000 | 1 |\n' "$t" > "$r/2026-01-01-insn-6.1.0-9-amd64.md"
	printf '## 2026-01-01 — second\n\n%s\n| 4 | a | 3 | 1 | 0.1 | 100.0 | 1 | 1 | 1.0000 | 1 |\n| 4 | p1 | 3 | 1 | 0.25 | 105.0 | 1 | 1 | 1.0500 | 1 |\n' "$t" > "$r/2026-01-01-insn-6.1.0-9-amd64.2.md"
	printf '## 2026-01-01 — same day\n\n%s\n| 4 | u | 3 | 1 | 0.1 | 1 | 1 | 1 | 1.9 | 1 |\n' "$t" > "$r/2026-01-01-insn-u-6.1.0-9-amd64.md"
	printf '## 2026-01-02 — newer u\n\n%s\n| 4 | u | 3 | 1 | 0.1 | 1 | 1 | 1 | 1.1 | 1 |\n' "$t" > "$r/2026-01-02-insn-u+u_base-6.1.0-9-amd64.md"
	printf '## 2026-01-01 — u\n\n%s\n| 4 | u | 3 | 1 | 0.1 | 1 | 1 | 1 | 1.2 | 1 |\n' "$t" > "$r/2026-01-01-insn-u-7.3.4+deb13-arm64.md"
	printf '## 2026-01-03 — w\n\n| config | runs |\n|---|---|\n| a | 5 |\n\ntext\n' > "$r/2026-01-03-wall-6.1.0-9-amd64.md"
	printf '## 2026-01-03 — Reading\n\nprose\n' > "$r/2026-01-03-notes-reading.md"
	if "$TOP/bench/results.sh" "$r" "$o" 2>"$W/results.err"; then
		expect_eq "results: the sections, latest of each benchmark and kernel" \
			"$(grep '^## ' "$o" | tr '\n' ';')" \
			"## insn on 6.1.0-9-amd64;## insn-u on 7.3.4+deb13-arm64;## insn-u+u_base on 6.1.0-9-amd64;## wall on 6.1.0-9-amd64;## Readings;"
		expect_eq "results: the day's second run, pivoted with its spread" \
			"$(grep -E '^\| (config|a|p1) \|' "$o" | head -n 3 | tr '\n' ';')" \
			"| config | order 4 |;| a | 100.0 insns |;| p1 | 1.050 ±0.25% |;"
		expect_eq "results: a wall table as it is, the note linked" \
			"$(grep -c -e '^| a | 5 |$' -e '(runs/2026-01-03-notes-reading.md)' "$o")" 2
	else
		fail "results: bench/results.sh failed: $(tail -n 2 "$W/results.err")"
	fi
	if "$TOP/bench/results.sh" "$TOP/bench/runs" "$W/results/now.md" 2>/dev/null &&
		cmp -s "$W/results/now.md" "$TOP/bench/RESULTS.md"; then
		ok "results: bench/RESULTS.md is bench/results.sh's of bench/runs/"
	else
		fail "results: bench/RESULTS.md differs from bench/results.sh's output (run it)"
	fi
	# a page to read: the latest run of each benchmark and kernel (344
	# lines with the contention and huge= runs of 2026-12-06)
	t=$(wc -l < "$TOP/bench/RESULTS.md")
	[ "$t" -le 400 ] && ok "results: bench/RESULTS.md is $t lines (400 at most)" ||
		fail "results: bench/RESULTS.md is $t lines (over 400)"
}

# report: the fixture's tree plus policy, usefulness and a latency
# histogram whose percentiles are worked out by hand below, and a fake
# /sys/kernel/mm/transparent_hugepage (MMTUNE_SYSFS_THP).
report_tree() {
	fresh
	cp "$FIX/prom/policy" "$FIX/prom/usefulness" "$T/"
	echo 1 >"$T/usefulness_enable"
	# faults with fault-around: 100 samples, 50 + 40 + 9 + 1: nearest rank
	# ceil(p * 100): p50 50th -> 1000, p90 90th -> 2000, p99 99th -> 4000,
	# p99.9 100th -> 8000.  Without: all 7 in the 2000..4000 bucket: 4000.
	printf '%s\n' 'state: on' 'unit: ns' 'fault_around_samples: 100' \
		'no_fault_around_samples: 7' '#  low high fa nofa' \
		'0 1000 50 0' '1000 2000 40 0' '2000 4000 9 7' '4000 8000 1 0' >"$T/latency"
	TH=$W/thp
	rm -rf "$TH"
	mkdir -p "$TH/hugepages-16kB" "$TH/hugepages-64kB" "$TH/hugepages-2048kB"
	echo 'always [madvise] never' >"$TH/enabled"
	echo 'always within_size advise [never] deny force' >"$TH/shmem_enabled"
	echo 'always inherit madvise [never]' >"$TH/hugepages-16kB/enabled"
	echo 'always inherit [madvise] never' >"$TH/hugepages-64kB/enabled"
	echo 'always [inherit] madvise never' >"$TH/hugepages-2048kB/enabled"
	export MMTUNE_SYSFS_THP=$TH
}

# rline LABEL: the value of a report text line "  LABEL:   value"
rline() { sed -n "s/^ *$1: *//p" "$W/out" | head -n 1; }

suite_report() {
	local s
	report_tree
	run "$CTL" report
	[ "$RC" = 0 ] && [ ! -s "$W/err" ] && ok "report: exit 0, quiet" || fail "report: exit $RC: $(errline)"
	for s in 'Kernel and configuration' 'mmtune settings and rules' \
		'Counters now \(absolute values, no command run\)' 'Usefulness' 'Fault latency'; do
		t_grep "report: section '$s'" out "^$s\$"
	done
	expect_eq "report: THP enabled: the bracketed choice" "$(rline 'THP enabled')" madvise
	expect_eq "report: THP shmem_enabled" "$(rline 'THP shmem_enabled')" never
	expect_eq "report: anon mTHP sizes not [never], by size" "$(rline 'anon mTHP sizes')" "64kB 2048kB"
	expect_eq "report: info's max_order" "$(rline max_order)" 9
	expect_eq "report: info's fault_around_bytes" "$(rline fault_around_bytes)" 65536
	expect_eq "report: a key info lacks is unavailable" "$(rline ibt)" "unavailable (not in info)"
	expect_eq "report: usefulness_enable" "$(rline usefulness_enable)" 1
	t_grep "report: a rule with its counters" out '^  comm=cc1 +auto +1200 +9600 +8400 +1050$'
	t_grep "report: the default row" out '^  default +4 +5 +40 +120 +30$'
	t_grep "report: usefulness lines" out '^  useful: +87\.3%$'
	t_grep "report: the header line says upper bound" out 'upper bound of the histogram bucket'
	t_grep "report: fault-around percentiles by hand" out '^  fault-around +100 +1000 +2000 +4000 +8000$'
	t_grep "report: no-fault-around percentiles by hand" out '^  no fault-around +7 +4000 +4000 +4000 +4000$'
	t_grep "report: absolute counters: the module's faults" out '^  faults +1200$'
	t_grep "report: absolute counters: pgfault" out '^  pgfault +[0-9]+$'

	MMTUNE_DAMON_STAT=$W/none run "$CTL" report
	expect_eq "report: DAMON_STAT absent" "$(rline DAMON_STAT)" absent
	echo Y >"$W/damon"
	MMTUNE_DAMON_STAT=$W/damon run "$CTL" report
	t_grep "report: DAMON_STAT on, and what it does" out '^  DAMON_STAT: +on \(it makes pages old'
	MMTUNE_DAMON_STAT=$W/damon run "$CTL" report --json
	t_json "report --json: damon_stat" 'd["kernel"]["damon_stat"] == "on"'

	run "$CTL" report --json
	t_json "report --json: the same figures as the text" \
		'd["kernel"]["thp_enabled"] == "madvise" and d["kernel"]["anon_mthp_sizes"] == ["64kB", "2048kB"] and d["kernel"]["module_info"]["max_order"] == 9 and d["kernel"]["module_info"]["ibt"] is None and d["settings"]["usefulness_enable"] == 1 and d["settings"]["rules"][1] == {"match": "comm=cc1", "order": "auto", "hits": 1200, "pages": 9600, "prefaulted": 8400, "untouched": 1050} and d["usefulness"]["useful"] == "87.3%" and d["latency"]["fault_around"] == {"samples": 100, "p50": 1000, "p90": 2000, "p99": 4000, "p99.9": 8000} and d["latency"]["no_fault_around"]["p50"] == 4000 and d["run"]["command"] is None and d["run"]["values"]["faults"] == 1200'
	expect_eq "report --json: one document" "$(wc -l <"$W/out")" 1

	run "$CTL" report -- true
	[ "$RC" = 0 ] && ok "report -- true: exit 0" || fail "report -- true: exit $RC: $(errline)"
	t_grep "report -- true: the run's section" out '^Run of: true$'
	t_grep "report -- true: exit status 0" out '^  exit status: +0$'
	t_grep "report -- true: wall time" out '^  wall time: +[0-9]+\.[0-9]{3} s$'
	t_grep "report -- true: deltas" out '^  counter +delta$'
	t_grep "report -- true: pgfault delta" out '^  pgfault +[0-9]+$'
	t_grep "report -- true: the module's counters did not move" out '^  fault_around_calls +0$'
	run "$CTL" report -- false
	[ "$RC" = 0 ] && ok "report -- false: report's own exit 0" || fail "report -- false: exit $RC"
	t_grep "report -- false: its exit status 1 shown" out '^  exit status: +1$'
	run "$CTL" report --json -- sh -c 'kill -9 $$'
	t_json "report --json -- CMD killed: signal 9, exit_status null" \
		'd["run"]["signal"] == 9 and d["run"]["exit_status"] is None and d["run"]["command"] == ["sh", "-c", "kill -9 $$"] and "pgfault" in d["run"]["deltas"]'

	run "$CTL" report --json -- echo from-cmd
	t_json "report --json -- echo: stdout one JSON document, exit 0" 'd["run"]["exit_status"] == 0'
	t_grep "report -- echo: CMD's output on stderr" err '^from-cmd$'
	t_rc "report -- /nonexistent: refused, exit 2, no report" 2 "$CTL" report -- /nonexistent
	t_grep "report -- /nonexistent: says why" err "cannot run '/nonexistent'"
	t_rc "report --: no command, exit 2" 2 "$CTL" report --
	t_rc "report --bogus: exit 2" 2 "$CTL" report --bogus
	t_rc "report extra: an operand without --, exit 2" 2 "$CTL" report extra
	t_out "report --help: usage and the options" "$("$CTL" help report)" "$CTL" report --help
	t_grep "report --help: --json" out '^  --json '

	# missing files: unavailable (REASON), never 0
	rm -f "$T/latency" "$T/usefulness" "$T/stats" "$TH/shmem_enabled"
	run "$CTL" report
	[ "$RC" = 0 ] && ok "report, files missing: exit 0" || fail "report, files missing: exit $RC: $(errline)"
	t_grep "report: no shmem_enabled: unavailable" out '^  THP shmem_enabled: +unavailable \(.*shmem_enabled: No such file'
	expect_eq "report: no latency file: unavailable" \
		"$(sed -n '/^Fault latency$/{n;p}' "$W/out" | sed 's/ (.*//')" "  unavailable"
	expect_eq "report: no usefulness file: unavailable" \
		"$(sed -n '/^Usefulness$/{n;p}' "$W/out" | sed 's/ (.*//')" "  unavailable"
	t_grep "report: no stats file: unavailable, not 0" out '^  stats: +unavailable \('
	grep -qE '^  faults ' "$W/out" && fail "report: no stats file: still a faults line" ||
		ok "report: no stats file: no made-up counter"
	run "$CTL" report --json
	t_json "report --json: missing sections are {unavailable: REASON}" \
		'isinstance(d["latency"]["unavailable"], str) and isinstance(d["usefulness"]["unavailable"], str) and d["kernel"]["thp_shmem_enabled"] is None'

	# without the module: printed, module sections unavailable, exit 1
	no_module
	run "$CTL" report
	[ "$RC" = 1 ] && [ "$(wc -l <"$W/err")" = 1 ] && ok "report without the module: exit 1, one line on stderr" ||
		fail "report without the module: exit $RC: $(errline)"
	t_grep "report without the module: the kernel section still there" out '^  THP enabled: +madvise$'
	unset MMTUNE_SYSFS_THP
}

# rss: `mmtunectl rss` against a fake rss file and /proc (tests/host/rss.sh)
. "$TOP/tests/host/rss.sh"
# replay: `mmtunectl replay` on hand-worked records (tests/host/replay.sh)
. "$TOP/tests/host/replay.sh"
# bpf: `mmtunectl bpf` on the programs of tests/bpf/, no module (tests/host/bpf.sh)
. "$TOP/tests/host/bpf.sh"

run_suites() {
	CTL=$1/mmtunectl
	UNIT=$1/unit
	RULE_UNIT=$1/rule_unit
	MUNIT=$1/module_unit
	AUNIT=$1/advise_unit
	suite_unit
	suite_rule_unit
	suite_module_unit
	suite_usage
	suite_module
	suite_kernel
	suite_policy
	suite_policy_auto
	suite_prometheus
	suite_prometheus_rss
	suite_perm
	suite_plane
	suite_typed
	suite_report
	suite_rss
	suite_replay
	suite_advise_unit
	suite_advise
	suite_bpf
}

# tests/host/run.sh SUITE...: those suites alone, on the plain build (no
# sanitizer pass, install, build flags, man pages or fuzzing)
HOST_SUITES="unit rule_unit module_unit usage module kernel policy policy_auto prometheus prometheus_rss perm plane typed report rss replay advise_unit advise bpf abi_doc results"
if [ $# -gt 0 ]; then
	for s in "$@"; do
		case " $HOST_SUITES " in
		*" $s "*) ;;
		*) echo "run.sh: no host suite '$s' (one of: $HOST_SUITES)" >&2; exit 2 ;;
		esac
	done
	ktap_print_header
	if build_suite "$W/plain"; then
		CTL=$W/plain/mmtunectl UNIT=$W/plain/unit RULE_UNIT=$W/plain/rule_unit MUNIT=$W/plain/module_unit
		AUNIT=$W/plain/advise_unit
		for s in "$@"; do "suite_$s"; done
	else
		fail "build: $(tail -n 5 "$W/build.log" | tr '\n' ' ')"
	fi
	ktap_finished
fi

ktap_print_header
suite_abi_doc
suite_results
if build_suite "$W/plain"; then
	ok "build (-Wall -Wextra -Werror)"
	run_suites "$W/plain"
else
	fail "build: $(tail -n 5 "$W/build.log" | tr '\n' ' ')"
fi

# install layout (needs mmstress too)
if make -s -C "$US" O="$W/inst" VERSION="$VERSION" install DESTDIR="$W/dest" PREFIX=/usr >"$W/install.log" 2>&1; then
	for f in usr/sbin/mmtunectl usr/bin/mmstress usr/share/man/man8/mmtunectl.8 \
		usr/share/man/man1/mmstress.1 usr/share/bash-completion/completions/mmtunectl \
		usr/share/bash-completion/completions/mmstress; do
		[ -f "$W/dest/$f" ] && ok "install: /$f" || fail "install: /$f missing"
	done
	[ -x "$W/dest/usr/sbin/mmtunectl" ] && ok "install: mmtunectl executable" || fail "install: mmtunectl not executable"
else
	fail "make install DESTDIR PREFIX=/usr: $(tail -n 3 "$W/install.log" | tr '\n' ' ')"
fi

# A distro build (dpkg-buildflags): the caller's CPPFLAGS, CFLAGS and
# LDFLAGS reach every compile and link beside the project's own flags
# (-I, the version), -Werror only with WERROR=1, and without VERSION=
# the version is dkms.conf's.
suite_buildflags() {
	local o=$W/flags n
	n=$(make -n -B -C "$US" O="$o" CFLAGS=-O1 CPPFLAGS=-D_FORTIFY_SOURCE=2 LDFLAGS=-Wl,-z,now all 2>&1)
	echo "$n" | grep ' -c ' >"$W/flags.cc"
	[ -s "$W/flags.cc" ] && ok "build flags: make -n shows the compiles ($(wc -l <"$W/flags.cc"))" || fail "build flags: no compile in make -n: $(echo "$n" | tail -n 2 | tr '\n' ' ')"
	expect_eq "build flags: every compile has the project's -I and dkms.conf's version, the caller's -D_FORTIFY_SOURCE=2 -O1, not the default -O2, no -Werror" \
		"$(awk -v v="$VERSION" 'index($0, "-Ilib") && index($0, "-DMMT_VERSION=\\\"" v "\\\"") && / -D_FORTIFY_SOURCE=2 / && / -O1 / && !/ -O2 / && !/-Werror/ { n++ } END { print NR - n }' "$W/flags.cc")" 0
	expect_eq "build flags: LDFLAGS in both links" "$(echo "$n" | grep -c -e '-Wl,-z,now -o .*/mmtunectl ' -e '-Wl,-z,now -o .*/mmstress ')" 2
	n=$(make -n -B -C "$US" O="$o" WERROR=1 all 2>&1)
	expect_eq "build flags: WERROR=1 puts -Werror in every compile" "$(echo "$n" | grep ' -c ' | grep -vc -e '-Werror')" 0
	if make -s -C "$US" O="$o" CFLAGS=-O1 CPPFLAGS=-D_FORTIFY_SOURCE=2 all >"$W/flags.log" 2>&1; then
		ok "build flags: make -C userspace CFLAGS=-O1 CPPFLAGS=-D_FORTIFY_SOURCE=2 builds"
		expect_eq "build flags: mmtunectl --version is dkms.conf's" "$("$o/mmtunectl" --version 2>&1)" "mmtunectl $VERSION"
		expect_eq "build flags: mmstress --version is dkms.conf's" "$("$o/mmstress" --version 2>&1)" "mmstress $VERSION"
	else
		fail "build flags: make CFLAGS=-O1 CPPFLAGS=-D_FORTIFY_SOURCE=2: $(tail -n 3 "$W/flags.log" | tr '\n' ' ')"
	fi
}
suite_buildflags

# mmstress: a reader that goes away (| head) mid-sweep must not leave the
# test file behind (it used to die by SIGPIPE with the file in place)
MMS=$W/inst/mmstress
if [ -x "$MMS" ]; then
	d=$(mktemp -d /dev/shm/mmt-host.XXXXXX 2>/dev/null || mktemp -d "$W/mms.XXXXXX")
	"$MMS" seq -s 1M -r 50 --warmup 0 -F csv -q -f "$d" 2>"$W/err" | head -n 2 >"$W/out"
	rc=${PIPESTATUS[0]}
	expect_lines=$(wc -l <"$W/out")
	[ "$expect_lines" = 2 ] && ok "mmstress | head -2: two lines read" || fail "mmstress | head -2: $expect_lines lines"
	[ -z "$(ls -A "$d")" ] && ok "mmstress | head -2: test file removed" || fail "mmstress | head -2 left $(ls "$d")"
	[ "$rc" = 141 ] && ok "mmstress | head -2: ends by SIGPIPE (141)" || fail "mmstress | head -2: exit $rc: $(errline)"
	[ -s "$W/err" ] && fail "mmstress | head -2: says something: $(errline)" || ok "mmstress | head -2: quiet"
	rm -rf "$d"
else
	fail "mmstress: not built by make install"
fi
# mmstress's results: metadata, effective orders, skips, --plot
[ -x "$MMS" ] && . "$TOP/tests/host/mmstress.sh"

# man pages against the tools
CTL=$W/plain/mmtunectl
if [ -x "$MMS" ] && [ -x "$CTL" ]; then
	. "$TOP/tests/host/man.sh"
else
	fail "man: needs mmtunectl and mmstress built"
fi
# one --orders grammar: mmtunectl and mmstress accept and refuse the same lists
if [ -x "$MMS" ] && [ -x "$CTL" ]; then
	. "$TOP/tests/host/orders.sh"
else
	fail "orders: needs mmtunectl and mmstress built"
fi

# mmstress's sources: no function over 80 lines (tests/host/funclen.py)
l=$($PY "$TOP/tests/host/funclen.py" "$US"/stress/*.c | head -n 1)
[ -n "$l" ] && [ "${l%% *}" -le 80 ] && ok "userspace/stress: the longest function has ${l%% *} lines (${l##* })" ||
	fail "userspace/stress: a function over 80 lines: ${l:-funclen.py found none}"

# bash completion, through a real readline
if [ -x "$MMS" ] && [ -x "$CTL" ]; then
	. "$TOP/tests/host/completion.sh"
else
	fail "completion: needs mmtunectl and mmstress built"
fi

# the same under ASan + UBSan
if [ "${MMT_HOST_SAN:-1}" != 0 ]; then
	KTAP_PREFIX="san: "
	: >"$W/san-reports"
	if build_suite "$W/san" san; then
		ok "build"
		run_suites "$W/san"
		if [ -s "$W/san-reports" ]; then
			fail "zero sanitizer reports: $(grep -cE 'ERROR:|runtime error:' "$W/san-reports") found:"
			head -n 40 "$W/san-reports" | sed 's/^/# /'
		else
			ok "zero sanitizer reports"
		fi
	else
		fail "build: $(tail -n 5 "$W/build.log" | tr '\n' ' ')"
	fi
	KTAP_PREFIX=
fi

# libFuzzer, a bounded time per parser
FUZZCC=
for c in clang-14 clang; do command -v $c >/dev/null && { FUZZCC=$c; break; }; done
# the library once, instrumented for the fuzzer, linked into each target
FUZZFLAGS="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -Wall -Wextra -Werror -I$US/lib -I$TOP/module"
FUZZLIB=
if [ -n "$FUZZCC" ] && [ "$FUZZ_SECONDS" != 0 ]; then
	mkdir -p "$W/fuzzlib"
	for f in "$US"/lib/*.c; do
		$FUZZCC $FUZZFLAGS -c "$f" -o "$W/fuzzlib/$(basename "$f" .c).o" >>"$W/fuzzlib.log" 2>&1 || FUZZLIB=bad
	done
	[ -z "$FUZZLIB" ] && FUZZLIB=$(echo "$W"/fuzzlib/*.o)
fi
for t in info stats latency misc policy bpfobj; do
	if [ "$FUZZ_SECONDS" = 0 ]; then
		skip "fuzz $t: MMT_FUZZ_SECONDS=0"
		continue
	fi
	if [ -z "$FUZZCC" ]; then
		fail "fuzz $t: no clang (tests/deps/host.txt: clang, libclang-rt-14-dev)"
		continue
	fi
	if [ "$FUZZLIB" = bad ]; then
		fail "fuzz $t: library build: $(tail -n 3 "$W/fuzzlib.log" | tr '\n' ' ')"
		continue
	fi
	# shellcheck disable=SC2086
	if ! $FUZZCC ${FUZZFLAGS/fuzzer-no-link/fuzzer} "$TOP/tests/fuzz/fuzz_$t.c" $FUZZLIB \
		-o "$W/fuzz_$t" >"$W/fuzz_$t.log" 2>&1; then
		fail "fuzz $t: build: $(tail -n 3 "$W/fuzz_$t.log" | tr '\n' ' ')"
		continue
	fi
	mkdir -p "$W/corpus_$t"
	cp "$FIX"/parse/*.txt "$W/corpus_$t/"
	find "$FIX/tree" -type f -exec cp {} "$W/corpus_$t/" \;
	# the objects suite_bpf built (tests/bpf/), for the object reader
	[ "$t" != bpfobj ] || find "$W/bpf" -name '*.o' -exec cp {} "$W/corpus_$t/" \; 2>/dev/null
	if (cd "$W" && ./fuzz_$t -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=1024 \
		-print_final_stats=1 "corpus_$t" >"fuzz_$t.log" 2>&1); then
		ok "fuzz $t: ${FUZZ_SECONDS}s, $(sed -n 's/^stat::number_of_executed_units: *//p' "$W/fuzz_$t.log") runs, no crash"
	else
		fail "fuzz $t: $(grep -m1 -E 'ERROR|runtime error|deadly' "$W/fuzz_$t.log")"
		grep -A 20 -m1 -E 'ERROR|runtime error' "$W/fuzz_$t.log" | sed 's/^/# /'
		ls "$W"/crash-* 2>/dev/null | head -n 3 | while read -r f; do
			echo "# crash input (base64): $(base64 -w0 "$f" | head -c 400)"
		done
	fi
done

ktap_finished
