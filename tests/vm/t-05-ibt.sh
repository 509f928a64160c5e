#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# IBT: every kernel function mmtune calls through a pointer (info's
# indirect_calls) must start with ENDBR64 on a kernel built with IBT, or an
# IBT CPU raises #CP ("Missing ENDBR") inside the module.  QEMU does not
# emulate IBT, but objtool's sealing (ENDBR64 -> 4-byte NOP) happens at
# boot on any CPU, so the entry bytes are read back through /proc/kcore
# (tests/vm/probe/kcoreprobe.c).  Positive control: kallsyms_lookup_name is
# sealed on Debian's IBT kernels, and the reader must see it so.
. "$(dirname "$0")/lib.sh"

case $(uname -m) in
x86_64) ;;
*)
	skip "ibt" "IBT and ENDBR64 are x86 only, this is $(uname -m)"
	exit 0 ;;
esac

WORK=/var/tmp/mmt-ibt
mkdir -p $WORK
KCORE=${MMT_KCORE:-$WORK/kcoreprobe}
[ -x "$KCORE" ] || cc -O2 -o "$KCORE" "$MMT_TOP/tests/vm/probe/kcoreprobe.c" ||
	{ fail "ibt: build kcoreprobe"; exit 1; }

# entry NAME: the first 4 bytes of the core-kernel function NAME, or "".
entry() {
	_a=$(awk -v n="$1" 'NF == 3 && $3 == n && $2 ~ /^[tT]$/ { print $1; exit }' /proc/kallsyms)
	[ -n "$_a" ] && "$KCORE" "$_a" 4
}

ENDBR=f30f1efa

up() { cut -d' ' -f1 /proc/uptime; }
t0=$(up)
load_module || { fail "ibt: insmod"; exit 1; }
echo "# ibt: insmod took $(awk -v a="$t0" -v b="$(up)" 'BEGIN { printf "%.2f", b - a }') s"
IBT=$(info ibt)
calls=$(info indirect_calls)
echo "# ibt: $IBT; indirect_calls: ${calls:-none}; checks: $(info indirect_call_checks)"
echo "# ibt: symbol_lookups: $(info symbol_lookups)"
grep -q '^indirect_calls:' $MMT/info && ok "ibt: info lists indirect_calls" ||
	fail "ibt: info lacks indirect_calls: the module's indirect calls are unknown"
# the vng guest has the kernel's config in /boot; the matrix guests do not
cfg=/boot/config-$(uname -r)
if [ -f "$cfg" ]; then
	want=no
	grep -q '^CONFIG_X86_KERNEL_IBT=y' "$cfg" && want=yes
	expect_eq "ibt: info's ibt matches $cfg" "$IBT" $want
fi

# The linker symbols mmtune resolves, and the name kallsyms prints first at
# each one's address (the module accepts such an alias only at offset 0).
awk 'BEGIN { n = split("_stext _etext _sdata _end __bss_stop", want) }
	NF == 3 { if (!($1 in first)) first[$1] = $3; at[$3] = $1 }
	END { for (i = 1; i <= n; i++) { s = want[i]
		if (s in at) print "# ibt: " s " = " at[s] ", kallsyms names it " first[at[s]]
		else print "# ibt: " s " not in kallsyms" } }' /proc/kallsyms

# Positive control: the reader can see a sealed function.
ctl=$(entry kallsyms_lookup_name)
echo "# ibt: kallsyms_lookup_name entry: ${ctl:-unreadable}"
[ -n "$ctl" ] && ok "ibt: kcore reads kallsyms_lookup_name ($ctl)" ||
	fail "ibt: kcore cannot read kallsyms_lookup_name"
if [ "$IBT" = yes ]; then
	[ -n "$ctl" ] && [ "$ctl" != $ENDBR ] &&
		ok "ibt: control: kallsyms_lookup_name is sealed ($ctl)" ||
		fail "ibt: control: kallsyms_lookup_name is not sealed ($ctl): the check below cannot fail"
fi

# For the record: other functions of the fault path and of kallsyms.
for f in kallsyms_on_each_symbol set_pte_range do_set_pte filemap_map_pages \
	 handle_mm_fault pfn_to_online_page; do
	b=$(entry $f) && echo "# ibt: $f entry: $b"
done

# Every function called through a pointer, and whether it may be.
for f in $calls; do
	b=$(entry "$f")
	echo "# ibt: $f entry: ${b:-unreadable}"
	if [ -z "$b" ]; then
		fail "ibt: $f: entry unreadable through kcore"
	elif [ "$IBT" = yes ] && [ "$b" != $ENDBR ]; then
		fail "ibt: $f is called through a pointer but has no ENDBR64 ($b): #CP on an IBT CPU"
	else
		ok "ibt: $f is a valid indirect-call target ($b)"
	fi
	case " $(info indirect_call_checks) " in
	*" $f=endbr "*|*" $f=no-ibt "*) ok "ibt: $f checked by the module" ;;
	*) fail "ibt: $f called but not checked by the module" ;;
	esac
done

# Functions refused by the module must really be sealed (no false alarm).
for c in $(info indirect_call_checks); do
	case $c in *=refused) ;; *) continue ;; esac
	f=${c%=refused}
	b=$(entry "$f")
	[ "$b" != $ENDBR ] && ok "ibt: $f refused: entry $b" ||
		fail "ibt: $f refused although it starts with ENDBR64"
done
unload_module
