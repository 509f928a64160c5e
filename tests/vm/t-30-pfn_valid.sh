#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# pfn_valid strategies: the bench and its cross-check, the mode
# gate, the pfn_to_online_page override against /proc/kpageflags' NOPAGE
# bit, memory offline/online and soft-offline with the override on, and
# unload removing it.
. "$(dirname "$0")/lib.sh"

P=$MMT/pfn_valid
TR=$DBG/tracing
MEM=/sys/devices/system/memory
WORK=$(mktemp -d /var/tmp/mmt-pv.XXXXXX)
OFFLINED=
cleanup() {
	[ -n "$OFFLINED" ] && echo online > "$MEM/$OFFLINED/state" 2>/dev/null
	[ -w "$P/mode" ] && echo off > "$P/mode" 2>/dev/null
	rm -rf "$WORK"
}
on_exit cleanup

# kpageflags words are u64 in the kernel's byte order: the byte of bits
# 8k..8k+7 is byte k of the word on a little-endian kernel, byte 7-k on a
# big-endian one (s390x).  KPF_BYTE, a perl function kbyte(k), is shared by
# nopage() and by the check of it below.
KPF_BYTE='sub kbyte { my $k = shift; unpack("C", pack("L", 1)) ? $k : 7 - $k }'
# The pfns from $NP_FROM on (0: all) whose KPF_NOPAGE (bit 20) is set, as
# hex ranges; nothing else of the flags (they change from read to read).
# The words are ANDed with bit 20 in one string operation, then the runs
# of words left with it found by a literal search (with every other byte
# zero, the word matches only at a word's start): not a byte at a time.
nopage() {
	perl -e "$KPF_BYTE"'
	my $from = shift; my $o = "";
	open(my $f, "<:raw", "/proc/kpageflags") or die "$!\n";
	seek($f, $from * 8, 0) or die "seek: $!\n";
	local $/; my $b = <$f> // "";
	my $w = "\0" x 8; substr($w, kbyte(2), 1) = "\x10";
	$b &= $w x (length($b) / 8);
	$o .= sprintf("%x-%x ", $from + $-[0] / 8, $from + $+[0] / 8 - 1) while $b =~ /(?:\Q$w\E)+/g;
	$o =~ s/ $//; print "$o\n";' "${NP_FROM:-0}"
}
# KPF_MMAP (bit 11) and KPF_ANON (bit 12) of the page holding a string
# perl has just written, read through kbyte(1) (pagemap gives its pfn):
# "18" when kbyte() finds the bytes where this kernel puts them.
kpf_mine() {
	perl -e "$KPF_BYTE"'
	my $psz = shift; my $s = "x" x 65536;
	my $va = unpack("J", pack("p", $s));
	open(my $m, "<:raw", "/proc/self/pagemap") or die "pagemap: $!\n";
	sysseek($m, int($va / $psz) * 8, 0); sysread($m, my $e, 8) == 8 or die "pagemap: short\n";
	my $w = unpack("Q", $e); ($w >> 63) or die "pagemap: not present\n";
	my $pfn = $w & ((1 << 55) - 1);
	open(my $f, "<:raw", "/proc/kpageflags") or die "kpageflags: $!\n";
	sysseek($f, $pfn * 8, 0); sysread($f, my $k, 8) == 8 or die "kpageflags: short\n";
	printf("%02x\n", ord(substr($k, kbyte(1), 1)) & 0x18);' "$(getconf PAGESIZE)"
}
hooked() { grep -q '^pfn_to_online_page' $TR/enabled_functions 2>/dev/null; }
last_log() { dmesg | tail -n 3 | grep "mmtune: pfn_valid: $1"; }
T0=$(date +%s)
mark() { echo "# +$(($(date +%s) - T0))s $*"; }

unload_module

# --- what docs/pfn_valid.md says of this kernel, checked here (each big file
# read once: slow under emulation)
grep -E ' (t pfn_valid|T pfn_to_online_page)$' /proc/kallsyms > $WORK/syms
grep -E '^(pfn_valid|pfn_to_online_page)( |$)' $TR/available_filter_functions > $WORK/traceable
echo "# kallsyms: $(grep -c ' t pfn_valid$' $WORK/syms) local 't pfn_valid' (per-file copies of the inline)"
grep -q '^pfn_valid' $WORK/traceable && fail "pfn_valid is traceable here" ||
	ok "pfn_valid is not traceable (inline => notrace)"
check "pfn_to_online_page is exported" grep -q ' T pfn_to_online_page$' $WORK/syms
check "pfn_to_online_page is traceable" grep -qx pfn_to_online_page $WORK/traceable

check "insmod module/mmtune.ko" load_module
expect_eq "pfn_valid/bench mode" "$(stat -c %a $P/bench)" 600
expect_eq "pfn_valid/mode mode" "$(stat -c %a $P/mode)" 600
expect_eq "mode is off at load" "$(cat $P/mode)" off
expect_eq "bench before any run" "$(cat $P/bench)" "pattern: none"
IMPLS=$(info pfn_valid_impls)
echo "# impls: $IMPLS; override: $(info pfn_valid_override)"
case $(uname -m) in
x86_64)
	expect_eq "x86_64 strategies" "$IMPLS" "stock section vmemmap"
	expect_eq "info: the override's target" "$(info pfn_valid_override)" \
		"pfn_to_online_page (mode off)"
	;;
esac
hooked && fail "hooked before any mode" || ok "no hook at load"

# --- bad input
for bad in "" "abc seq" "0 seq" "10" "10 foo" "10 seq x" "99999999999 seq"; do
	expect_einval "bench '$bad'" $P/bench "$bad"
done
expect_einval "bench: count that would run for minutes" $P/bench "16777216 holes"
last_log "bench 16777216 holes would take" >/dev/null &&
	ok "bench: the refusal is logged" || fail "bench: no log line for the refusal"
# memblock is a strategy only where the kernel keeps memblock after boot
# (ARCH_KEEP_MEMBLOCK: arm64, ppc64); elsewhere it is a bad name too.
case " $IMPLS " in *" memblock "*) BADMODES="bogus" ;; *) BADMODES="bogus memblock" ;; esac
for bad in $BADMODES "stock "; do
	expect_einval "mode '$bad'" $P/mode "$bad"
done
mark "bad input done"

# --- the bench: every strategy reports, stock and section agree
# Counts fitting the time budget under TCG; halve until accepted.
bench() {
	c=$2
	while [ "$c" -ge 1000 ]; do
		wr $P/bench "$c $1" >/dev/null && return 0
		c=$((c / 2))
	done
	return 1
}
# field FILE IMPL COLUMN: one cell of a bench table
field() {
	awk -v i="$2" -v c="$3" '$1 == "impl" { for (k = 1; k <= NF; k++) col[$k] = k; t = 1; next }
		t && $1 == i { print $col[c] }' "$1"
}
# verify PATTERN FILE: the table's checks, one awk for all (processes are
# slow under emulation)
verify() {
	awk -v p="$1" -v impls="$IMPLS" '
	function ok(s) { print "ok - bench " p ": " s }
	function no(s) { print "not ok - bench " p ": " s }
	/^pattern: / { pat = $2 } /^repeats: / { rep = $2 }
	$1 == "impl" { for (k = 1; k <= NF; k++) col[$k] = k; t = 1; next }
	t { row[$1] = $0; for (c in col) v[$1, c] = $col[c]
	    good = NF == 9
	    for (k = 2; k <= 4; k++) if ($k !~ /^[0-9]+\.[0-9][0-9]$/) good = 0
	    for (k = 5; k <= 8; k++) if ($k !~ /^[0-9]+$/) good = 0
	    if (!($3 <= $2 && $2 <= $4)) good = 0
	    ok_row[$1] = good }
	END {
		if (pat == p) ok("pattern"); else no("pattern " pat)
		if (rep == 5) ok("repeats"); else no("repeats " rep)
		n = split(impls, im, " ")
		for (k = 1; k <= n; k++)
			if (ok_row[im[k]]) ok(im[k] " reports (" row[im[k]] ")")
			else no(im[k] " row \"" row[im[k]] "\"")
		if (v["stock", "disagree"] == "0") ok("stock vs stock"); else no("stock vs stock")
		if (v["section", "disagree"] == "0") ok("section disagrees nowhere")
		else no("section disagrees at " v["section", "disagree"] " pfns")
		if (v["section", "valid"] == v["stock", "valid"]) ok("section finds what stock finds")
		else no("section valid " v["section", "valid"] " stock " v["stock", "valid"])
		for (k = 1; k <= n; k++) {
			i = im[k]; d = v[i, "online_disagree"]
			if (i == "vmemmap" || i == "memblock") {
				if (v[i, "disagree"] ~ /^[0-9]+$/)
					ok(i " disagreements reported: " v[i, "disagree"] ", override with it: " d)
				else no(i ": no disagreement count")
			} else if (d == "0") ok("override with " i " = pfn_to_online_page")
			else no("override with " i ": " d " pfns differ from pfn_to_online_page")
		}
	}' "$2"
}
# a light matrix cell (tests/matrix/init.sh) cross-checks 20000 pfns a
# pattern, not 100000: the same code paths, CI's time (the slow
# strategies run into the module's 8 s cap under TCG)
NPFN=100000
[ "${MMT_LIGHT:-0}" = 1 ] && NPFN=20000
for pat in seq rand holes; do
	if ! bench $pat $NPFN; then
		fail "bench $pat: refused down to 1000 pfns"
		continue
	fi
	B=$WORK/bench.$pat
	cat $P/bench > "$B"
	sed "s/^/# $pat: /" "$B"
	mark "bench $pat"
	verify $pat "$B"
done

# --- the mode gate
expect_eq "mode still off after benches" "$(cat $P/mode)" off
OVR=$(info pfn_valid_override)
case $OVR in
"not overridable: "*)
	# ppc64: ftrace may not redirect into module code (no TOC stub
	# without livepatch). Every mode but off is refused, nothing hooks;
	# the bench above is what this kernel offers.
	echo "# $OVR"
	for m in $IMPLS; do
		if err=$(wr $P/mode $m); then
			fail "mode $m accepted where the override is impossible"
		else
			case $err in
			*"Operation not supported"*) ok "mode $m: EOPNOTSUPP" ;;
			*) fail "mode $m: $err" ;;
			esac
		fi
	done
	expect_eq "refused modes leave it off" "$(cat $P/mode)" off
	hooked && fail "a refused mode hooked pfn_to_online_page" || ok "nothing hooked"
	check "mode off is accepted" wr $P/mode off
	check "rmmod" rmmod mmtune
	mark "done (no override here)"
	exit 0
	;;
esac
check "mode section (runs the cross-check sweep)" wr $P/mode section
mark "cross-check sweep"
echo "# crosscheck: $(info pfn_valid_crosscheck)"
expect_eq "cross-check sweep done" "$(info pfn_valid_crosscheck_sweep)" "done"
expect_eq "info: override with section" "$(info pfn_valid_override)" \
	"pfn_to_online_page (mode section)"
check "hooked: enabled_functions lists pfn_to_online_page" hooked
grep '^pfn_to_online_page' $TR/enabled_functions | sed 's/^/# /'
# the strategies the sweep may refuse: taken with no disagreement, else
# EINVAL with a log line and the previous mode kept
# memblock is never a mode where memory hotplug is configured (every
# kernel the override exists on): memory hot-added or removed changes
# memblock under the override's readers. Refused with its reason; it used
# to be taken like the others.
case " $IMPLS " in *" memblock "*)
	wr $P/mode section
	check "mode memblock refused (memory hotplug)" sh -c "! echo memblock > $P/mode 2>/dev/null"
	last_log "mode memblock refused: memory hotplug" >/dev/null &&
		ok "mode memblock: the reason logged" || fail "mode memblock: no log line for the refusal"
	expect_eq "mode memblock refused: section kept" "$(cat $P/mode)" section ;;
esac
m=vmemmap
case " $IMPLS " in *" $m "*)
	wr $P/mode section
	vm=$(info pfn_valid_crosscheck | sed -n "s/.* $m \\([0-9]*\\)\\/.*/\\1/p")
	if [ "$vm" = 0 ]; then
		check "mode $m (no disagreement found)" wr $P/mode $m
		expect_eq "mode reads $m" "$(cat $P/mode)" $m
	else
		expect_einval "mode $m with $vm disagreements" $P/mode $m
		last_log "mode $m refused" >/dev/null &&
			ok "mode $m: refusal logged" ||
			fail "mode $m: no log line for the refusal"
		expect_eq "refused mode leaves section" "$(cat $P/mode)" section
	fi
	;;
esac
check "mode stock" wr $P/mode stock
check "mode section" wr $P/mode section

# --- /proc/kpageflags: first, that nopage() reads it in this kernel's
# byte order: a page perl maps reads back as mapped and anonymous through
# the same kbyte().
expect_eq "kpageflags in this kernel's byte order: a page perl maps has KPF_MMAP|KPF_ANON" \
	"$(kpf_mine 2>&1)" 18
# Then the same pfns without a page with the override on and off.  A block
# offline makes that set non-empty; without one (the VM refuses to
# offline) it is compared as it is.
# The blocks offline is tried on: the top 6.  Reading the whole of
# kpageflags takes the kernel about 8 s on 6.12 riscv64 under TCG (its
# 512 Ki pfns of hole below RAM included), 4 reads a run: a light cell
# (tests/matrix/init.sh) reads from the lowest of these blocks on.
BS=$((0x$(cat $MEM/block_size_bytes)))
PSZ=$(getconf PAGESIZE)
CAND=$(ls -d $MEM/memory* 2>/dev/null | sed 's/.*memory//' | sort -rn | head -n 6)
NP_FROM=0
[ "${MMT_LIGHT:-0}" = 1 ] && [ -n "$CAND" ] &&
	NP_FROM=$(( $(echo "$CAND" | tail -n 1) * BS / PSZ ))
wr $P/mode off
hooked && fail "mode off leaves the hook" || ok "mode off removes the hook"
OFF0=$(nopage)
echo "# NOPAGE ranges from pfn $(printf '0x%x' $NP_FROM): ${OFF0:-none}"
wr $P/mode section
for b in $CAND; do
	[ "$(cat $MEM/memory$b/state 2>/dev/null)" = online ] || continue
	if echo offline > $MEM/memory$b/state 2>/dev/null; then
		OFFLINED=memory$b
		break
	fi
done
mark "NOPAGE off, offline"
if [ -z "$OFFLINED" ]; then
	echo "# no memory block could be offlined here: skipping hotplug checks"
	expect_eq "KPF_NOPAGE pfns: override on = off" "$(nopage)" "$OFF0"
else
	ok "offline $OFFLINED with the override on"
	n=${OFFLINED#memory}
	first=$((n * BS / PSZ)); last=$(((n + 1) * BS / PSZ - 1))
	# soft_offline_page is there with CONFIG_MEMORY_FAILURE only (not
	# on s390x, for one)
	NOSOFT=
	[ -e $MEM/soft_offline_page ] ||
		NOSOFT="no $MEM/soft_offline_page: kernel without CONFIG_MEMORY_FAILURE"
	ON1=$(nopage)
	# soft-offline of an offline pfn: EIO from pfn_to_online_page, both ways
	addr=$(printf '0x%x' $(((first + 16) * PSZ)))
	e_on=$(wr $MEM/soft_offline_page $addr)
	wr $P/mode off
	OFF1=$(nopage)
	e_off=$(wr $MEM/soft_offline_page $addr)
	blk=$(printf '%x-%x' $first $last)
	covers() { case " $1 " in *"$(printf '%x' $first)-"*|*"-$(printf '%x' $last) "*) return 0 ;; esac; return 1; }
	if covers "$ON1"; then
		ok "NOPAGE covers the offline block ($blk)"
	elif ! covers "$OFF1"; then
		# 7.x: kpageflags no longer reports offline pfns as NOPAGE,
		# with or without the override; on = off below still holds
		ok "NOPAGE: this kernel does not flag the offline block $blk, override on or off"
	else
		fail "NOPAGE misses the offline block $blk with the override on: $ON1"
	fi
	expect_eq "KPF_NOPAGE pfns (a block offline): override on = off" "$ON1" "$OFF1"
	if [ -n "$NOSOFT" ]; then
		skip "soft-offline of an offline pfn" "$NOSOFT"
	else
		expect_eq "soft-offline of an offline pfn: same error on and off" "$e_on" "$e_off"
		echo "# soft_offline_page $addr: $e_on"
	fi
	mark "NOPAGE on/off"
	wr $P/mode section
	if echo online > $MEM/$OFFLINED/state; then
		OFFLINED=
		ok "online memory$n with the override on"
	else
		fail "online memory$n again"
	fi
	expect_eq "KPF_NOPAGE pfns after onlining (override on) = before offlining" \
		"$(nopage)" "$OFF0"
	mark "online"
	# soft-offline an online (free) page through the override, then without
	if [ -n "$NOSOFT" ]; then
		skip "soft-offline an online pfn, override on and off" "$NOSOFT"
	else
		check "soft-offline an online pfn, override on" \
			wr $MEM/soft_offline_page "$(printf '0x%x' $(((first + 100) * PSZ)))"
		wr $P/mode off
		check "soft-offline an online pfn, override off" \
			wr $MEM/soft_offline_page "$(printf '0x%x' $(((first + 200) * PSZ)))"
		wr $P/mode section
	fi
fi

# --- other consumers of pfn_to_online_page, with the override on
pfns=$(( $(wc -c < /proc/kpagecount) / 8 ))
expect_eq "kpagecount: as many pfns as kpageflags" "$pfns" "$(( $(wc -c < /proc/kpageflags) / 8 ))"
check "read /proc/pagetypeinfo" cat /proc/pagetypeinfo
check "the bench after all that (holes)" bench holes 20000
cat $P/bench > $WORK/bench.after
awk 't && $8 != "0" { bad = bad " " $1 "=" $8 } $1 == "impl" { t = 1 }
     END { if (bad == "") print "ok - after hotplug: the override = pfn_to_online_page with every strategy"
	   else print "not ok - after hotplug: override differs from pfn_to_online_page:" bad }' $WORK/bench.after

# --- who may send pfn_valid's callers elsewhere or run the bench:
# CAP_SYS_ADMIN (a root that lost it, as in a container that sees /sys
# read-write, gets EPERM); "off", the kernel's own again, always. Before,
# any writer the file's mode let in was served.
PARM=/sys/module/mmtune/parameters
if command -v dd > /dev/null &&
   setpriv --bounding-set -sys_admin --inh-caps -sys_admin true 2> /dev/null; then
	nocap() { printf '%s' "$1" | setpriv --bounding-set -sys_admin --inh-caps -sys_admin \
		dd of="$2" status=none 2>&1; }
	wr $P/mode off
	for f in "$PARM/pfn_valid_mode stock" "$P/mode stock" \
		 "$PARM/pfn_valid_bench 1000 seq" "$P/bench 1000 seq"; do
		r=$(nocap "${f#* }" "${f%% *}")
		case $r in
		*"not permitted"*) ok "no CAP_SYS_ADMIN: '${f#* }' > ${f%% *} refused (EPERM)" ;;
		*) fail "no CAP_SYS_ADMIN: '${f#* }' > ${f%% *}: '$r'" ;;
		esac
	done
	expect_eq "no CAP_SYS_ADMIN: the mode stays off" "$(cat $P/mode)" off
	wr $P/mode section
	r=$(nocap off $PARM/pfn_valid_mode)
	[ -z "$r" ] && ok "no CAP_SYS_ADMIN: off is taken" || fail "no CAP_SYS_ADMIN: off: '$r'"
	expect_eq "no CAP_SYS_ADMIN: the mode is off" "$(cat $P/mode)" off
	wr $P/mode section	# for the unload's check
else
	skip "pfn_valid writes without CAP_SYS_ADMIN" "no setpriv --bounding-set here (busybox's has none)"
fi

# --- unload removes the override
hooked && ok "hooked before rmmod" || fail "not hooked before rmmod"
check "rmmod with the override on" rmmod mmtune
hooked && fail "rmmod leaves the hook" || ok "rmmod removes the hook"
mark "done"
