#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mmtune beside a livepatch of filemap_map_pages (docs/design.md, "The
# hooks layer"): the project's test livepatch (tests/vm/livepatch: the
# function replaced by one that maps nothing) loads while a rule and the
# counters hold mmtune's hook on the function, and before them; while it is
# in force every page faults on its own (N pages read, N faults) and the
# rule's hook still counts each call; once it is disabled and removed the
# rule's order gives its faults again. Where the kernel has no
# CONFIG_LIVEPATCH (all but x86_64 among the matrix's), it skips.
. "$(dirname "$0")/lib.sh"

PSZ=$(getconf PAGESIZE)
POL=$MMT/policy
KLP=/sys/kernel/livepatch
LP=$MMT_TOP/tests/vm/livepatch/mmt_lp.ko
WORK=$(mktemp -d /var/tmp/mmt-lp.XXXXXX)
cleanup() {
	if [ -d $KLP/mmt_lp ]; then
		echo 0 > $KLP/mmt_lp/enabled 2>/dev/null
		for _ in $(seq 60); do [ -d $KLP/mmt_lp ] || break; sleep 0.5; done
	fi
	rmmod mmt_lp 2>/dev/null
	unload_module
	umount "$WORK/shm" 2>/dev/null
	rm -rf "$WORK"
}
on_exit cleanup

if [ ! -d $KLP ]; then
	skip "a livepatch of filemap_map_pages beside mmtune" "$(uname -r): no CONFIG_LIVEPATCH"
	exit 0
fi
[ -f "$LP" ] || { fail "no $LP (tests/vm/livepatch/build.sh)"; exit 1; }

# faultprobe, named as the rule's process
FP=$WORK/mmlp
if [ -x "${MMT_PROBE:-}" ]; then cp "$MMT_PROBE" "$FP"; else
	cc -O2 -o "$FP" "$MMT_TOP/tests/vm/probe/faultprobe.c" || { fail "build faultprobe"; exit 1; }
fi
mkdir "$WORK/shm"
mount -t tmpfs -o size=16m,huge=never mmt-lp "$WORK/shm"
F=$WORK/shm/f
dd if=/dev/zero of="$F" bs=1M count=4 2>/dev/null
P=$(( $(stat -c %s "$F") / PSZ ))
O=4
ctr() { grep '^comm=mmlp ' $POL | sed -n "s/.*$1=\([0-9-]*\).*/\1/p"; }
hookst() { info "hook_$1" | cut -d' ' -f1; }
# faults: mmlp's faults reading every page of $F
faults() { "$FP" "$F" > "$WORK/o" && minflt "$WORK/o"; }
# lp_on: the patch loaded and its transition over; lp_off: disabled, gone
lp_on() {
	insmod "$LP" 2> "$WORK/lperr" || return 1
	for _ in $(seq 60); do
		[ "$(cat $KLP/mmt_lp/transition 2>/dev/null)" = 0 ] && return 0
		sleep 0.5
	done
	echo "transition not over in 30 s" > "$WORK/lperr"
	return 1
}
lp_off() {
	echo 0 > $KLP/mmt_lp/enabled || return 1
	for _ in $(seq 60); do [ -d $KLP/mmt_lp ] || break; sleep 0.5; done
	[ ! -d $KLP/mmt_lp ] && rmmod mmt_lp
}
# (mapped_enable changes while stats are off)
rule_on() {
	env printf 'comm=mmlp order=%s\n' $O > $POL
	echo 1 > $MMT/mapped_enable
	echo 1 > $MMT/stats_enable
}
rule_off() {
	echo clear > $POL
	echo 0 > $MMT/stats_enable
	echo 0 > $MMT/mapped_enable
}
# patched NAME: under the patch, N pages read give N faults and the
# rule's hook sees each call (its hits also count mmlp's start-up: exec,
# ld.so, libc, about 150 faults)
patched() {
	case $(info hook_filemap_map_pages) in
	"on (ftrace filemap_map_pages"*) ok "$1: mmtune's hook is the ftrace ops" ;;
	*) fail "$1: $(info hook_filemap_map_pages)" ;;
	esac
	h0=$(ctr hits)
	n=$(faults)
	within "$1: under the patch, a fault a page" "$n" "$P" 2 4
	within "$1: the rule's hook sees every call" $(( $(ctr hits) - h0 )) "$P" 2 256
}

unload_module
load_module || { fail "insmod mmtune.ko"; exit 1; }

# --- mmtune first, the livepatch after
rule_on
within "the rule's faults (order $O)" "$(faults)" $((P >> O)) 10 4
if lp_on; then
	ok "mmtune first: the livepatch loads beside the rule's hook"
	patched "mmtune first"
	check "mmtune first: the livepatch disabled and removed" lp_off
	within "mmtune first: the patch gone, the rule's faults again" "$(faults)" $((P >> O)) 10 4
else
	fail "mmtune first: insmod mmt_lp.ko: $(cat "$WORK/lperr")"
	dmesg | grep -i livepatch | tail -n 3 | sed 's/^/# /'
fi

# --- the livepatch first, mmtune's hook after
rule_off
expect_eq "nothing on: filemap_map_pages unhooked" "$(hookst filemap_map_pages)" off
if lp_on; then
	ok "livepatch first: it loads"
	rule_on
	expect_eq "livepatch first: the rule's hook placed" "$(hookst filemap_map_pages)" on
	# the PTE setter's calls come from the patch's function now: its
	# self-test cannot see it fire (hooks_table.c), what info says is printed only
	echo "# livepatch first: hook_set_pte: $(info hook_set_pte)"
	patched "livepatch first"
	check "livepatch first: the livepatch disabled and removed" lp_off
	within "livepatch first: the patch gone, the rule's faults" "$(faults)" $((P >> O)) 10 4
else
	fail "livepatch first: insmod mmt_lp.ko: $(cat "$WORK/lperr")"
fi
rule_off
check "rmmod mmtune" rmmod mmtune
