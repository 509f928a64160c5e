# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by tests/host/run.sh: suite_rss, `mmtunectl rss` against a fake
# <debugfs>/mmtune/rss (module/rss.c's text) and a fake /proc
# (MMTUNE_PROC) of status files.  Figures in pages of 4096 bytes, worked
# out by hand below.  A regular file cannot act on the selection written
# to it (pid=, cgroup=): the verb appends it there (O_APPEND), skips it
# when it reads the file, and filters by pid itself.  Needs $CTL, $T, $W,
# $PY, $TOP, fresh(), no_module() and tests/lib.sh.

# rss_tree: the fixture tree, an rss file, a policy and a fake /proc.
#   pid 100 post gres  400/250 pages: libc 100/50 + 50/20 (two lines: 150/70), "/data/my db" 250/180
#   pid 200 java       busy
#   pid 300 cc1         60/30: libc 40/20, (more) 20/10; exited (no status)
#   pid 400 cc1         81/41: "/tmp/a<TAB>tab\back<NL>nl" 30/25, libc 51/16
#   pid 500 idle        10/0:  /usr/bin/idle 10/0
# mapped/untouched, pages.  Files over all: my db 250/180, libc 241/106,
# tab 30/25, (more) 20/10, idle 10/0; total 551/321 (busy: none counted).
rss_tree() {
	local p
	fresh
	printf '%s\n' '# available 1 usefulness_enable 1 page_size 4096' \
		'pid=100 mapped=400 untouched=250 comm=post\040gres' \
		'pid=100 mapped=100 untouched=50 file=/usr/lib/libc.so.6' \
		'pid=100 mapped=250 untouched=180 file=/data/my\040db' \
		'pid=100 mapped=50 untouched=20 file=/usr/lib/libc.so.6' \
		'pid=200 busy comm=java' \
		'pid=300 mapped=60 untouched=30 comm=cc1' \
		'pid=300 mapped=40 untouched=20 file=/usr/lib/libc.so.6' \
		'pid=300 mapped=20 untouched=10 file=(more)' \
		'pid=400 mapped=81 untouched=41 comm=cc1' \
		'pid=400 mapped=30 untouched=25 file=/tmp/a\011tab\134back\012nl' \
		'pid=400 mapped=51 untouched=16 file=/usr/lib/libc.so.6' \
		'pid=500 mapped=10 untouched=0 comm=idle' \
		'pid=500 mapped=10 untouched=0 file=/usr/bin/idle' >"$T/rss"
	printf '%s\n' '# rules 3/32' '# kernel order=4' '# default order=4 hits=5 pages=-' \
		'comm=cc1 order=2 # hits=1 pages=-' 'pid=300 order=3 # hits=0 pages=-' \
		'cgroup=/mmt-x order=auto # hits=0 pages=- auto_order=4 raised=0 lowered=0 learned=0 useful=-' \
		>"$T/policy"
	rm -rf "$W/proc"
	for p in 100 200 400 500; do mkdir -p "$W/proc/$p"; done
	printf 'Name:\tpostgres\nVmRSS:\t 2000 kB\nRssAnon:\t 388 kB\nRssFile:\t 1600 kB\nRssShmem:\t 12 kB\n' >"$W/proc/100/status"
	printf 'RssFile:\t 99 kB\nRssShmem:\t 0 kB\n' >"$W/proc/200/status"
	printf 'RssFile:\t 320 kB\nRssShmem:\t 0 kB\n' >"$W/proc/400/status"
	printf 'RssFile:\t 40 kB\nRssShmem:\t 4 kB\n' >"$W/proc/500/status"
	export MMTUNE_PROC=$W/proc
}

# rss_pids: the pids of the table's rows, in order
rss_pids() { awk '/^ *total /{ exit } NR > 1 { printf "%s ", $1 }' "$W/out"; }

suite_rss() {
	local l root
	rss_tree
	run "$CTL" rss
	[ "$RC" = 0 ] && [ ! -s "$W/err" ] && ok "rss: exit 0, quiet" || fail "rss: exit $RC: $(errline)"
	t_grep "rss: the header" out '^ +PID COMM +RssFile +RssShmem +mapped +untouched +untouched%$'
	expect_eq "rss: by untouched, busy last" "$(rss_pids)" "100 400 300 500 200 "
	t_grep "rss: a row, its comm's \\040 a space, duplicate file lines in its figures" out \
		'^ +100 post gres +1600 kB +12 kB +1600 kB +1000 kB +62\.5%$'
	t_grep "rss: an exited process: - for RssFile and RssShmem" out '^ +300 cc1 +- +- +240 kB +120 kB +50\.0%$'
	t_grep "rss: busy: /proc's figures, no counts" out '^ +200 java +99 kB +0 kB +busy +- +-$'
	t_grep "rss: nothing untouched: 0.0%" out '^ +500 idle +40 kB +4 kB +40 kB +0 kB +0\.0%$'
	t_grep "rss: the total, busy ones left out" out '^ +total 5 processes +2204 kB +1284 kB +58\.3%$'
	t_grep "rss: top files: summed over processes and lines" out '^ +964 kB +424 kB +44\.0%  /usr/lib/libc\.so\.6$'
	t_grep "rss: top files: \\040 a space" out '^ +1000 kB +720 kB +72\.0%  /data/my db$'
	t_grep "rss: top files: tab and newline shown as ?, \\134 a backslash" out '^ +120 kB +100 kB +83\.3%  /tmp/a\?tab\\back\?nl$'
	t_grep "rss: top files: (more)" out '^ +80 kB +40 kB +50\.0%  \(more\)$'
	expect_eq "rss: top files: by untouched" \
		"$(sed -n '/^Top files/,$p' "$W/out" | awk 'NR > 2 { print $NF }' | tr '\n' ' ')" \
		"db /usr/lib/libc.so.6 /tmp/a?tab\\back?nl (more) /usr/bin/idle "
	grep -q '^ *[0-9].*kB.*/usr/lib/libc' <(sed '/^ *total /q' "$W/out") &&
		fail "rss: file lines without --files" || ok "rss: no file lines without --files"

	run "$CTL" rss --files --top 2
	l=$(sed -n '/^ *100 post gres/{n;p;n;p}' "$W/out")
	expect_eq "rss --files: a process's files under it, its duplicate lines summed" "$l" \
		"$(printf '%50s%12s %12s %10s  %s\n%50s%12s %12s %10s  %s' '' '1000 kB' '720 kB' '72.0%' '/data/my db' \
			'' '600 kB' '280 kB' '46.7%' '/usr/lib/libc.so.6')"
	expect_eq "rss --top 2: two files" "$(sed -n '/^Top files/,$p' "$W/out" | tail -n +3 | wc -l)" 2
	run "$CTL" rss --top 0
	[ "$RC" = 0 ] && ! grep -q '^Top files' "$W/out" && ok "rss --top 0: no top files" ||
		fail "rss --top 0: exit $RC: $(head -c 300 "$W/out")"

	run "$CTL" rss --json
	t_json "rss --json: the header's page size and usefulness_enable, the order" \
		'd["page_size"] == 4096 and d["usefulness_enable"] is True and [p["pid"] for p in d["processes"]] == [100, 400, 300, 500, 200]'
	t_json "rss --json: a process, exact, its files summed by path" \
		'd["processes"][0] == {"pid": 100, "comm": "post gres", "busy": False, "rss_file_kb": 1600, "rss_shmem_kb": 12, "mapped_bytes": 400 * 4096, "untouched_bytes": 250 * 4096, "files": [{"path": "/data/my db", "mapped_bytes": 250 * 4096, "untouched_bytes": 180 * 4096}, {"path": "/usr/lib/libc.so.6", "mapped_bytes": 150 * 4096, "untouched_bytes": 70 * 4096}]}'
	t_json "rss --json: busy: null bytes, no files" \
		'd["processes"][4] == {"pid": 200, "comm": "java", "busy": True, "rss_file_kb": 99, "rss_shmem_kb": 0, "mapped_bytes": None, "untouched_bytes": None, "files": []}'
	t_json "rss --json: exited: null kB; (more) a file" \
		'd["processes"][2]["rss_file_kb"] is None and d["processes"][2]["rss_shmem_kb"] is None and d["processes"][2]["files"][1] == {"path": "(more)", "mapped_bytes": 20 * 4096, "untouched_bytes": 10 * 4096}'
	t_json "rss --json: escapes decoded" \
		'd["processes"][1]["files"][0]["path"] == "/tmp/a\ttab\\back\nnl" and d["processes"][1]["comm"] == "cc1"'
	t_json "rss --json: top files summed, by untouched; the total" \
		'[(f["path"], f["mapped_bytes"] // 4096, f["untouched_bytes"] // 4096) for f in d["files"]] == [("/data/my db", 250, 180), ("/usr/lib/libc.so.6", 241, 106), ("/tmp/a\ttab\\back\nnl", 30, 25), ("(more)", 20, 10), ("/usr/bin/idle", 10, 0)] and d["total"] == {"mapped_bytes": 551 * 4096, "untouched_bytes": 321 * 4096}'
	expect_eq "rss --json: one line" "$(wc -l <"$W/out")" 1
	run "$CTL" rss --json --top 1
	t_json "rss --json --top 1: one top file, every process's own" \
		'len(d["files"]) == 1 and len(d["processes"][0]["files"]) == 2'

	# selections: PID and --rule N (comm= ours; pid= and cgroup= written
	# to the file, which a regular file ignores; the pid filtered here too)
	run "$CTL" rss --json 400
	t_json "rss PID: that process alone" \
		'[p["pid"] for p in d["processes"]] == [400] and d["total"] == {"mapped_bytes": 81 * 4096, "untouched_bytes": 41 * 4096} and [f["path"] for f in d["files"]] == ["/tmp/a\ttab\\back\nnl", "/usr/lib/libc.so.6"]'
	expect_eq "rss PID: the selection written (appended to the fake)" "$(tail -n 1 "$T/rss")" "pid=400"
	run "$CTL" rss --json
	t_json "rss: the appended selection line skipped" 'd["total"] == {"mapped_bytes": 551 * 4096, "untouched_bytes": 321 * 4096}'
	# under lockdown the file opens read-only alone (EPERM for writing):
	# an immutable file stands for it; PID is then kept from every process
	if chattr +i "$T/rss" 2>/dev/null; then
		run "$CTL" rss --json 400
		t_json "rss PID, the file read-only (lockdown): that process, from every process's lines" \
			'[p["pid"] for p in d["processes"]] == [400] and d["total"]["untouched_bytes"] == 41 * 4096'
		t_rc "rss --cgroup, the file read-only (lockdown): exit 1" 1 "$CTL" rss --cgroup /a/b
		chattr -i "$T/rss"
		t_grep "rss --cgroup, the file read-only: names lockdown" err 'refused \(kernel lockdown\?\)'
	else
		skip "rss PID, the file read-only (lockdown)" "chattr +i refused here"
	fi
	run "$CTL" rss --rule 1
	expect_eq "rss --rule 1 (comm=cc1): its processes" "$(rss_pids)" "400 300 "
	t_grep "rss --rule 1: their total" out '^ +total 2 processes +564 kB +284 kB +50\.4%$'
	run "$CTL" rss --json --rule 2
	t_json "rss --rule 2 (pid=300): that process" '[p["pid"] for p in d["processes"]] == [300]'
	expect_eq "rss --rule 2: pid=300 written" "$(tail -n 1 "$T/rss")" "pid=300"
	run "$CTL" rss --json --rule 3
	[ "$RC" = 0 ] && [ "$(tail -n 1 "$T/rss")" = "cgroup=/mmt-x" ] && ok "rss --rule 3 (cgroup=/mmt-x): cgroup= written, exit 0" ||
		fail "rss --rule 3: exit $RC, last line '$(tail -n 1 "$T/rss")': $(errline)"
	t_json "rss --rule 3: what the (fake) kernel gave" 'len(d["processes"]) == 5'
	run "$CTL" rss --cgroup /a/b
	[ "$RC" = 0 ] && [ "$(tail -n 1 "$T/rss")" = "cgroup=/a/b" ] && ok "rss --cgroup /a/b: written" ||
		fail "rss --cgroup /a/b: exit $RC, last line '$(tail -n 1 "$T/rss")': $(errline)"
	root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	if [ -n "$root" ] && [ "$root" != / ]; then
		run "$CTL" rss --cgroup "$root/a/b"
		expect_eq "rss --cgroup under the cgroup2 mount: its cgroup path" "$(tail -n 1 "$T/rss")" "cgroup=/a/b"
	fi
	run "$CTL" rss 999
	[ "$RC" = 0 ] && [ "$(rss_pids)" = "" ] && grep -q 'note: .*no file pages' "$W/err" &&
		ok "rss PID with no lines: exit 0, a note" || fail "rss 999: exit $RC, rows '$(rss_pids)': $(errline)"
	t_rc "rss --rule 4: no such rule, exit 2" 2 "$CTL" rss --rule 4
	t_grep "rss --rule 4: says so" err 'no rule 4: the policy has 3 rules'
	sed -i 's/^pid=300 order=3 # /&exited /' "$T/policy"
	l=$(cat "$T/rss")
	t_rc "rss --rule 2, its process exited: exit 1" 1 "$CTL" rss --rule 2
	t_grep "rss --rule 2, exited: says so" err 'rule 2: its process 300 has exited'
	expect_eq "rss --rule 2, exited: nothing written" "$(cat "$T/rss")" "$l"
	# a rule with mapping keys: the module selects its mappings (rule=N)
	cp "$T/policy" "$W/policy.keep"
	printf '%s\n' '# rules 2/32' '# kernel order=4' '# default order=4 hits=5 pages=-' \
		'comm=cc1 order=2 # hits=1 pages=-' 'comm=cc1 file=/data/x madv=random order=0 # hits=1 pages=-' >"$T/policy"
	run "$CTL" rss --json --rule 2
	[ "$RC" = 0 ] && [ "$(tail -n 1 "$T/rss")" = "rule=2" ] && ok "rss --rule 2 (comm= file= madv=): rule=2 written, exit 0" ||
		fail "rss --rule 2 of mapping keys: exit $RC, last line '$(tail -n 1 "$T/rss")': $(errline)"
	t_json "rss --rule 2 of mapping keys: what the (fake) kernel gave, no comm= filter" 'len(d["processes"]) == 5'
	if chattr +i "$T/rss" 2>/dev/null; then
		t_rc "rss --rule of mapping keys, the file read-only (lockdown): exit 1" 1 "$CTL" rss --rule 2
		chattr -i "$T/rss"
		t_grep "rss --rule of mapping keys, read-only: says why" err 'rule 2 takes mappings, which only the module can select'
	else
		skip "rss --rule of mapping keys, the file read-only (lockdown)" "chattr +i refused here"
	fi
	cp "$W/policy.keep" "$T/policy"

	# the header's limits
	sed -i '1s/.*/# available 1 usefulness_enable 0 page_size 4096/' "$T/rss"
	run "$CTL" rss
	[ "$RC" = 0 ] && [ "$(rss_pids)" = "100 400 300 500 200 " ] && ok "rss, usefulness_enable 0: exit 0, the figures" ||
		fail "rss, usefulness_enable 0: exit $RC: $(errline)"
	t_grep "rss, usefulness_enable 0: a warning, what to run" err \
		"^mmtunectl: warning: usefulness_enable is 0: .*maps old \\(arm64\\).*'mmtunectl set usefulness_enable 1'"
	run "$CTL" rss --json
	t_json "rss --json, usefulness_enable 0: false" 'd["usefulness_enable"] is False'
	sed -i '1s/.*/# available 1 usefulness_enable 1 page_size 65536/' "$T/rss"
	run "$CTL" rss --json 100
	t_json "rss: pages times the header's page_size" 'd["page_size"] == 65536 and d["total"]["untouched_bytes"] == 250 * 65536'
	echo '# available 0 usefulness_enable 0 page_size 4096' >"$T/rss"
	t_rc "rss, available 0: exit 1" 1 "$CTL" rss
	t_grep "rss, available 0: unavailable" err 'rss: unavailable on this kernel/arch'
	echo 'pid=1 mapped=1 untouched=1 comm=x' >"$T/rss"
	t_rc "rss, no header: exit 1" 1 "$CTL" rss
	: >"$T/rss"
	t_rc "rss, empty file: exit 1" 1 "$CTL" rss

	# usage: exit 2, one line, nothing written
	rss_tree
	for l in "--top -1" "--top x" "--top" "0" "abc" "-5" "4194305" "100 200" "100 --cgroup /x" \
		"--cgroup x" "--cgroup" "--rule 0" "--rule x" "--rule 1 100" "--rule 1 --cgroup /x" "--bogus"; do
		# shellcheck disable=SC2086 # the arguments, split
		t_rc "rss $l: exit 2" 2 "$CTL" rss $l
	done
	t_rc "rss --cgroup with a newline: exit 2" 2 "$CTL" rss --cgroup "$(printf '/a\nb')"
	expect_eq "rss: bad usage writes nothing" "$(tail -n 1 "$T/rss")" 'pid=500 mapped=10 untouched=0 file=/usr/bin/idle'
	t_out "rss --help: usage and the options" "$("$CTL" help rss)" "$CTL" rss --help
	t_grep "rss --help: the usage line" out '^usage: mmtunectl rss \[--json\] \[--top N\] \[--files\] \[PID \| --cgroup PATH \| --rule N\]$'

	# no module, no rss file, no debugfs: exit 1, one line
	rm "$T/rss"
	t_rc "rss: a module without the rss file: exit 1" 1 "$CTL" rss
	t_grep "rss: a module without it: says so" err 'this mmtune module has no rss file'
	rss_tree
	no_module
	t_rc "rss without the module: exit 1" 1 "$CTL" rss
	t_grep "rss without the module: names modprobe" err "modprobe mmtune"
	rss_tree
	export MMTUNE_DEBUGFS=
	t_rc "rss without debugfs: exit 1" 1 "$CTL" rss
	t_grep "rss without debugfs: says so" err 'debugfs is not mounted'
	fresh
	unset MMTUNE_PROC

	l=$($PY "$TOP/tests/host/funclen.py" "$US/ctl/rss.c" | sed -n 1p)
	[ -n "$l" ] && [ "${l%% *}" -le 80 ] && ok "userspace/ctl/rss.c: the longest function has ${l%% *} lines (${l##* })" ||
		fail "userspace/ctl/rss.c: a function over 80 lines: ${l:-funclen.py found none}"
	rss_file_orders
	rss_advise_live
}

# rss_file_orders: files an order=auto:file rule takes have " order=N"
# after the path (module/rss.c): a column "order" and a JSON field.
#   pid 700 pg     300/100: /data/seq 200/50 order 9, "/data/my sparse"
#                  60/40 order 0, libc 40/10 order 4 (and a field of a
#                  later module, skipped)
#   pid 800 other  100/60:  libc 60/50, /data/plain 40/10 (no order)
# Summed: libc 100/60 (orders differ: mixed), seq 200/50, sparse 60/40,
# plain 40/10; pages of 4096 bytes.
rss_file_orders() {
	fresh
	printf '%s\n' '# available 1 usefulness_enable 1 page_size 4096' \
		'pid=700 mapped=300 untouched=100 comm=pg' \
		'pid=700 mapped=200 untouched=50 file=/data/seq order=9' \
		'pid=700 mapped=60 untouched=40 file=/data/my\040sparse order=0' \
		'pid=700 mapped=40 untouched=10 file=/usr/lib/libc.so.6 order=4 later=1' \
		'pid=800 mapped=100 untouched=60 comm=other' \
		'pid=800 mapped=60 untouched=50 file=/usr/lib/libc.so.6' \
		'pid=800 mapped=40 untouched=10 file=/data/plain' >"$T/rss"
	run "$CTL" rss --files
	[ "$RC" = 0 ] && [ ! -s "$W/err" ] && ok "rss, file orders: exit 0, quiet" || fail "rss, file orders: exit $RC: $(errline)"
	t_grep "rss, file orders: the top files' header has the column" out '^ +mapped +untouched untouched% order  FILE$'
	t_grep "rss, file orders: a file's order" out '^ +800 kB +200 kB +25\.0% +9  /data/seq$'
	t_grep "rss, file orders: order 0, its path's \\040 a space" out '^ +240 kB +160 kB +66\.7% +0  /data/my sparse$'
	t_grep "rss, file orders: summed over lines that differ: mixed" out '^ +400 kB +240 kB +60\.0% mixed  /usr/lib/libc\.so\.6$'
	t_grep "rss, file orders: a file without: -" out '^ +160 kB +40 kB +25\.0% +-  /data/plain$'
	t_grep "rss --files, file orders: a process's file, under mapped" out \
		"^$(printf '%50s' '') +160 kB +40 kB +25\.0% +4  /usr/lib/libc\.so\.6\$"
	run "$CTL" rss --json
	t_json "rss --json, file orders: each process's files, order where the line has one" \
		'[[(f["path"], f.get("order", "none")) for f in p["files"]] for p in d["processes"]] == [[("/data/seq", 9), ("/data/my sparse", 0), ("/usr/lib/libc.so.6", 4)], [("/usr/lib/libc.so.6", "none"), ("/data/plain", "none")]]'
	t_json "rss --json, file orders: the top files, null where they differ" \
		'[(f["path"], f["untouched_bytes"] // 4096, f.get("order", "none")) for f in d["files"]] == [("/usr/lib/libc.so.6", 60, None), ("/data/seq", 50, 9), ("/data/my sparse", 40, 0), ("/data/plain", 10, "none")]'
	rss_tree
	run "$CTL" rss --json
	t_json "rss --json, no file orders: no order field" 'not any("order" in f for p in d["processes"] for f in p["files"]) and not any("order" in f for f in d["files"])'
}

# advise --pid: the rss file's files of one process; the most untouched
# first. pid 600 (pages of 4096 bytes): /data/index 512/480 (94 %
# untouched: order 0), "/data/my db" 200/150 (75 %, but a blank in the
# path: unnamed), libc 100/10 (keep).
rss_advise_live() {
	fresh
	printf '%s\n' '# available 1 usefulness_enable 1 page_size 4096' \
		'pid=600 mapped=812 untouched=640 comm=srv' \
		'pid=600 mapped=100 untouched=10 file=/usr/lib/libc.so.6' \
		'pid=600 mapped=512 untouched=480 file=/data/index' \
		'pid=600 mapped=200 untouched=150 file=/data/my\040db' >"$T/rss"
	run "$CTL" advise --pid 600
	[ "$RC" = 0 ] && [ ! -s "$W/err" ] && ok "advise --pid: exit 0, quiet" || fail "advise --pid: exit $RC: $(errline)"
	t_grep "advise --pid: the index file at order 0" out '^ +2048 +1920 +93 %  order 0  /data/index$'
	t_grep "advise --pid: a path with a blank: unnamed" out '^ +800 +600 +75 %  unnamed  /data/my db$'
	t_grep "advise --pid: libc kept" out '^ +400 +40 +10 %  keep +/usr/lib/libc.so.6$'
	t_grep "advise --pid: the rule" out '^  mmtunectl policy add "pid=600 file=/data/index order=0"$'
	expect_eq "advise --pid: one rule" "$(grep -c 'policy add' "$W/out")" 1
	"$CTL" advise --pid 600 --json >"$W/out"
	expect_eq "advise --pid --json: freed and the faults' bound" \
		"$("$PY" -c 'import json,sys; d=json.load(sys.stdin); print(d["freed_kib"], d["faults_at_most"], [(f["order"], f["nameable"]) for f in d["files"]], d["processes"])' <"$W/out")" \
		"1920 32 [(0, True), (0, False), (None, True)] pid=600"
	sed -i '1s/usefulness_enable 1/usefulness_enable 0/' "$T/rss"
	run "$CTL" advise --pid 600
	expect_eq "advise --pid, usefulness off: exit 1" "$RC" 1
	t_grep "advise --pid, usefulness off: says so" err 'usefulness is off'
	for a in "--pid 600 --budget 10" "--pid 600 --cgroup /x" "--pid abc" "--pid 600 -- true" "--cgroup x"; do
		# shellcheck disable=SC2086 # the options, split
		run "$CTL" advise $a
		expect_eq "advise $a: exit 2" "$RC" 2
	done
}
