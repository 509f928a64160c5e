# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/host/run.sh: the bash completion of mmtunectl and
# mmstress as a user gets it.  complete.py types each line into an
# interactive bash on a pty with bash-completion loaded, and one TAB:
# readline splits the words itself (at '=' too), so `comm=foo` and
# `order=` arrive as they do at a real prompt.  Needs $CTL, $MMS, $T, $PY,
# $W, fresh().

# comp_in SCRIPT CMD WORD...: the line "WORD WORD ..." completed once;
# prints COMPREPLY, and leaves the edited line in $W/compline
comp_in() {
	local s=$1 cmd=$2
	shift 2
	printf '%s\n' "$*" | $PY "$TOP/tests/host/complete.py" "$s" "$cmd" >"$W/comp" 2>&1
	cut -f2 "$W/comp" >"$W/compline"
	cut -f1 "$W/comp"
}
comp() { comp_in "$US/completion/mmtunectl" mmtunectl "$@"; }
mcomp() { comp_in "$US/completion/mmstress" mmstress "$@"; }
# expect_line NAME WANT: the line as readline left it after the TAB
expect_line() { expect_eq "$1" "$(cat "$W/compline")" "$2"; }

completion_host() {
	local c v k max orders d
	if [ ! -r /usr/share/bash-completion/bash_completion ]; then
		fail "completion: bash-completion not installed (tests/deps/host.txt: bash-completion)"
		return
	fi
	fresh
	max=$(sed -n 's/^max_order: *//p' "$T/info")
	orders=$(seq -s ' ' 0 "$max")

	# ---- mmtunectl
	c=$(comp mmtunectl "")
	# the verbs of `mmtunectl --help`, so the two cannot drift apart
	v=$("$CTL" --help | awk '/^verbs:/ { t = 1; next } t && /^  [a-z]/ { printf "%s ", $1 } t && /^$/ { exit }')
	[ -n "$v" ] && [ "$c" = "${v}--help --version" ] && ok "completion: verbs = mmtunectl --help's ($v)" || fail "completion: verbs: '$c', --help has '$v'"
	c=$(comp mmtunectl policy "")
	[ "$c" = "show set add del clear load --json --help" ] && ok "completion: policy subcommands" || fail "completion: policy: '$c'"
	c=$(comp mmtunectl policy set "")
	[ "$c" = "comm= pid= cgroup= file= vma= madv=" ] && ok "completion: policy set offers the keys" || fail "completion: policy set: '$c'"
	c=$(comp mmtunectl policy set co)
	expect_line "completion: policy set co: comm=, no space" "mmtunectl policy set comm="
	# readline ends a word at '=': comm=foo is three of its words
	c=$(comp mmtunectl policy set comm=foo "")
	[ "$c" = "order= file= vma= madv=" ] && ok "completion: policy set: order= and the mapping keys after a key" || fail "completion: policy set comm=foo: '$c'"
	c=$(comp mmtunectl policy set comm=foo vma=s)
	expect_line "completion: policy set vma=s: vma=shmem" "mmtunectl policy set comm=foo vma=shmem "
	c=$(comp mmtunectl policy set pid=12 o)
	expect_line "completion: policy set pid=12 o: order=" "mmtunectl policy set pid=12 order="
	c=$(comp mmtunectl policy add comm=foo order=)
	[ "$c" = "default auto $orders" ] && ok "completion: policy order= offers default, auto and the orders of info (0..$max)" || fail "completion: policy order=: '$c'"
	expect_line "completion: policy order=: the line unchanged" "mmtunectl policy add comm=foo order="
	c=$(comp mmtunectl policy add comm=foo order=de)
	expect_line "completion: policy order=de: order=default, once" "mmtunectl policy add comm=foo order=default "
	c=$(comp mmtunectl policy set comm=foo order=a)
	expect_line "completion: policy order=a: order=auto, once" "mmtunectl policy set comm=foo order=auto "
	c=$(comp mmtunectl policy set comm=foo order=auto "")
	c2=$(comp mmtunectl policy set comm=foo order=auto learn_uid=a)
	[ "$c2" = any ] && ok "completion: policy learn_uid=a: any" || fail "completion: policy learn_uid=a: '$c2'"
	[ "$c" = "comm= pid= cgroup= file= vma= madv= learn_uid=" ] && ok "completion: policy set: a next rule or learn_uid= after order=auto" || fail "completion: policy set after an auto rule: '$c'"
	c=$(comp mmtunectl policy set comm=foo order=$max "")
	[ "$c" = "comm= pid= cgroup= file= vma= madv=" ] && ok "completion: policy set: a next rule after order=$max" || fail "completion: policy set after a rule: '$c'"
	c=$(comp mmtunectl policy del "")
	[ "$c" = "comm= pid= cgroup= file= vma= madv=" ] && ok "completion: policy del offers the keys" || fail "completion: policy del: '$c'"
	c=$(comp mmtunectl tune --)
	[ "$c" = "--orders --repeat --apply --apply-comm --verbose --json --help --" ] && ok "completion: tune options" || fail "completion: tune: '$c'"
	c=$(comp mmtunectl run --)
	[ "$c" = "--order --stats --help --" ] && ok "completion: run options" || fail "completion: run: '$c'"
	c=$(comp mmtunectl report --)
	[ "$c" = "--json --replay --help --" ] && ok "completion: report options" || fail "completion: report: '$c'"
	c=$(comp mmtunectl rec)
	[ "$c" = "record" ] && ok "completion: record" || fail "completion: rec: '$c'"
	c=$(comp mmtunectl replay --)
	[ "$c" = "--orders --whole-folio --files --json --help" ] && ok "completion: replay options" || fail "completion: replay: '$c'"
	c=$(comp mmtunectl record --)
	[ "$c" = "--output --buffer --help --" ] && ok "completion: record options" || fail "completion: record: '$c'"
	c=$(comp mmtunectl report -- bas)
	case " $c " in *" bash "*) ok "completion: report -- completes a command" ;; *) fail "completion: report -- bas: '$c'" ;; esac
	c=$(comp mmtunectl rss --)
	[ "$c" = "--json --top --files --cgroup --rule --help" ] && ok "completion: rss options" || fail "completion: rss: '$c'"
	printf '# rules 2/32\ncomm=a order=1 # hits=0 pages=-\npid=1 order=2 # hits=0 pages=-\n' >"$T/policy"
	c=$(comp mmtunectl rss --rule "")
	[ "$c" = "1 2" ] && ok "completion: rss --rule: the policy's rule numbers" || fail "completion: rss --rule: '$c'"
	rm -f "$T/policy"
	c=$(comp mmtunectl run --order "")
	[ "$c" = "$orders" ] && ok "completion: run --order from info" || fail "completion: run --order: '$c'"
	c=$(comp mmtunectl tune --apply-comm bas)
	case " $c " in *" bash "*) ok "completion: tune --apply-comm completes a name" ;; *) fail "completion: tune --apply-comm bas: '$c'" ;; esac
	c=$(comp mmtunectl tune --repeat 3 -- bas)
	case " $c " in *" bash "*) ok "completion: tune -- completes a command" ;; *) fail "completion: tune -- bas: '$c'" ;; esac
	c=$(comp mmtunectl tune -- bash "")
	case $c in *bash*) fail "completion: tune -- CMD: offers commands again: '$c'" ;; *) ok "completion: tune -- CMD offers files" ;; esac
	c=$(comp mmtunectl get "")
	for k in fault_around_order info stats stats_enable latency_enable mapped_enable latency pfn_valid/mode pfn_valid/bench; do
		case " $c " in *" $k "*) ok "completion: get offers $k" ;; *) fail "completion: get: '$c'" ;; esac
	done
	c=$(comp mmtunectl set fault_around_order "")
	[ "$c" = "default $orders" ] && ok "completion: orders from info" || fail "completion: orders: '$c'"
	c=$(comp mmtunectl set stats_enable "")
	[ "$c" = "0 1" ] && ok "completion: stats_enable values" || fail "completion: stats_enable: '$c'"
	v=$(sed -n 's/^pfn_valid_impls: *//p' "$T/info")
	c=$(comp mmtunectl set pfn_valid/mode "")
	[ -n "$v" ] && [ "$c" = "off $v" ] && ok "completion: pfn_valid strategies from info" || fail "completion: pfn_valid/mode: '$c', info has '$v'"
	c=$(comp mmtunectl pfn_valid "")
	[ "$c" = "show bench mode --json --help" ] && ok "completion: pfn_valid subcommands" || fail "completion: pfn_valid: '$c'"
	c=$(comp mmtunectl pfn_valid mode "")
	[ "$c" = "off $v" ] && ok "completion: pfn_valid mode" || fail "completion: pfn_valid mode: '$c'"
	c=$(comp mmtunectl pfn_valid bench 100 "")
	[ "$c" = "seq rand holes" ] && ok "completion: pfn_valid bench patterns" || fail "completion: pfn_valid bench: '$c'"
	c=$(comp mmtunectl stats --r)
	[ "$c" = "--rss --reset" ] && ok "completion: stats options" || fail "completion: stats options: '$c'"
	c=$(comp mmtunectl stats --re)
	[ "$c" = "--reset" ] && ok "completion: stats --re: --reset alone" || fail "completion: stats --re: '$c'"
	expect_line "completion: stats --re: --reset and a space" "mmtunectl stats --reset "
	c=$(comp mmtunectl stats --prometheus --rs)
	[ "$c" = "--rss" ] && ok "completion: stats --prometheus --rs: --rss" || fail "completion: stats --rs: '$c'"
	c=$(comp mmtunectl bpf "")
	[ "$c" = "status list load unload check --json --pin --help" ] && ok "completion: bpf subcommands" || fail "completion: bpf: '$c'"
	c=$(comp mmtunectl bpf --pin /sys/fs/bpf/x --)
	[ "$c" = "--json --pin --map --help" ] && ok "completion: bpf options after --pin PATH" || fail "completion: bpf --: '$c'"
	mkdir -p "$W/bpfc"
	: >"$W/bpfc/a.bpf.o"
	: >"$W/bpfc/a.bpf.c"
	c=$(comp mmtunectl bpf check "$W/bpfc/")
	[ "$c" = "$W/bpfc/a.bpf.o" ] && ok "completion: bpf check OBJ: the .o files" || fail "completion: bpf check: '$c'"
	c=$(comp mmtunectl bpf --pin /sys/fs/bpf/x load "$W/bpfc/")
	[ "$c" = "$W/bpfc/a.bpf.o" ] && ok "completion: bpf --pin PATH load OBJ: the .o files" || fail "completion: bpf --pin PATH load: '$c'"
	c=$(comp mmtunectl bpf unload "")
	[ -z "$c" ] && ok "completion: bpf unload takes nothing more" || fail "completion: bpf unload: '$c'"

	# ---- mmstress: workloads and options as its --help lists them
	c=$(mcomp mmstress "")
	v=$("$MMS" --help | awk '/^Workloads:/ { t = 1; next } t && /^  [a-z]/ { printf "%s ", $1 } t && /^$/ { exit }')
	[ -n "$v" ] && [ "$c " = "$v" ] && ok "completion: mmstress workloads = --help's ($v)" || fail "completion: mmstress workloads: '$c', --help has '$v'"
	c=$(mcomp mmstress -t 4 s)
	[ "$c" = "seq sparse" ] && ok "completion: mmstress -t 4 s: workloads, the option's value skipped" || fail "completion: mmstress -t 4 s: '$c'"
	c=$(mcomp mmstress seq --)
	v=$("$MMS" --help | grep -o -- '--[a-z]*' | sort -u | tr '\n' ' ')
	[ "$(echo $c | tr ' ' '\n' | sort -u | tr '\n' ' ')" = "$v" ] && ok "completion: mmstress options = --help's" || fail "completion: mmstress options: '$c', --help has '$v'"
	c=$(mcomp mmstress seq --orders "")
	[ "$c" = "$orders" ] && ok "completion: mmstress --orders 0..$max (info's ptrs_per_pte)" || fail "completion: mmstress --orders: '$c'"
	c=$(mcomp mmstress seq --orders 0,1,)
	[ "$c" = "$(seq -s ' ' -f '0,1,%g' 0 "$max")" ] && ok "completion: mmstress --orders LIST: the next element" || fail "completion: mmstress --orders 0,1,: '$c'"
	expect_line "completion: mmstress --orders 0,1,: no space (a ',' may follow)" "mmstress seq --orders 0,1,"
	c=$(mcomp mmstress seq --orders=$max)
	expect_line "completion: mmstress --orders=$max: one word, the value kept" "mmstress seq --orders=$max"
	c=$(mcomp mmstress seq -F "")
	[ "$c" = "table csv json" ] && ok "completion: mmstress -F formats" || fail "completion: mmstress -F: '$c'"
	c=$(mcomp mmstress --format=j)
	expect_line "completion: mmstress --format=j: json after '='" "mmstress --format=json "
	c=$(mcomp mmstress rand --touch "")
	[ "$c" = "word page" ] && ok "completion: mmstress --touch" || fail "completion: mmstress --touch: '$c'"
	c=$(mcomp mmstress seq --warmup "")
	[ -z "$c" ] && ok "completion: mmstress --warmup N: nothing offered" || fail "completion: mmstress --warmup: '$c'"
	d=$W/comp-dir
	mkdir -p "$d" && : >"$d/testfile"
	c=$(mcomp mmstress dio --file "$d/t")
	expect_line "completion: mmstress --file completes a path" "mmstress dio --file $d/testfile "
	c=$(mcomp mmstress dio -b 64K,)
	case " $c " in *" 64K,1M "*) ok "completion: mmstress -b LIST: block sizes" ;; *) fail "completion: mmstress -b 64K,: '$c'" ;; esac
}
completion_host
