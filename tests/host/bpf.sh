# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by tests/host/run.sh: suite_bpf, `mmtunectl bpf` without the
# module (the host cannot load it): the programs of tests/bpf/ built with
# clang and read by `bpf check` (no bpf(2) call), the objects load must
# refuse and what it says, objects cut short or with bytes changed, and
# status, load's refusals and unload against a fake sysfs bpf/
# (MMTUNE_SYSFS_MM).  The real attach is t-NN in a VM.  Needs $CTL, $W,
# $PY, $TOP, fresh(), no_module() and tests/lib.sh.

BPF_CLANG=
BPF_O=

# bpf_cc NAME: the program on stdin built into $BPF_O/adhoc/NAME.o (this
# host's byte order), for an object tests/bpf/ should not hold
bpf_cc() {
	mkdir -p "$BPF_O/adhoc"
	$BPF_CLANG -O2 -g -target "$(bpf_target)" -I"$TOP/module" -idirafter "/usr/include/$(gcc -dumpmachine)" \
		-x c -c - -o "$BPF_O/adhoc/$1.o" 2>>"$W/bpf-build.log"
}

bpf_target() {
	[ "$(printf '\001\000' | od -An -tu2 | tr -d ' ')" = 1 ] && echo bpfel || echo bpfeb
}

# bpf_refused NAME OBJ MESSAGE: check refuses OBJ, exit 2, one line saying MESSAGE
bpf_refused() {
	t_rc "bpf check $1: refused, exit 2" 2 "$CTL" bpf check "$2"
	t_grep "bpf check $1: says so" err "$3"
}

# The ld_imm64 relocations readelf sees in OBJ's program: "INSN SYMBOL"
# (the byte offset / 8; type 1, which binutils names R_BPF_INSN_64).
bpf_readelf_reloc() {
	local off info
	readelf -rW "$1" | awk '/^Relocation section/ { p = index($0, "'"'"'.relraw_tp.w/") > 0; next }
		p && $2 ~ /00000001$/ { print $1, $5 }' | while read -r off info; do
		echo "$((16#$off / 8)) $info"
	done
}

bpf_build() {
	local c
	for c in clang clang-14; do command -v $c >/dev/null && { BPF_CLANG=$c; break; }; done
	if [ -z "$BPF_CLANG" ] || [ ! -r /usr/include/bpf/bpf_helpers.h ]; then
		fail "bpf: needs clang and libbpf-dev's <bpf/bpf_helpers.h> (tests/deps/host.txt)"
		return 1
	fi
	BPF_O=$W/bpf
	if ! make -s -C "$TOP/tests/bpf" O="$BPF_O" CLANG="$BPF_CLANG" >"$W/bpf-build.log" 2>&1; then
		fail "bpf: make -C tests/bpf: $(tail -n 3 "$W/bpf-build.log" | tr '\n' ' ')"
		return 1
	fi
	ok "bpf: make -C tests/bpf builds $(find "$BPF_O" -name '*.o' | wc -l) objects"
}

# Every program of tests/bpf/ and examples/bpf/: what load needs is there.
bpf_programs() {
	local f n
	make -s -C "$TOP/examples/bpf" O="$BPF_O/examples" CLANG="$BPF_CLANG" >"$W/bpf-ex.log" 2>&1 ||
		fail "bpf: make -C examples/bpf: $(tail -n 3 "$W/bpf-ex.log" | tr '\n' ' ')"
	for f in "$BPF_O"/*.bpf.o "$BPF_O"/examples/*.bpf.o; do
		n=${f##*/}
		run "$CTL" bpf check --json "$f"
		t_json "bpf check $n: a raw_tp.w/ program of some instructions, a license" \
			'd["section"].startswith("raw_tp.w/") and d["instructions"] > 0 and d["license"] != "" and d["object"].endswith("'"$n"'")'
	done
	run "$CTL" bpf check --json "$BPF_O/order_const.bpf.o"
	t_json "bpf check order_const: order_const, no map, no relocation" \
		'd["program"] == "order_const" and d["section"] == "raw_tp.w/mmtune_order" and d["maps"] == [] and d["relocations"] == [] and d["license"] == "GPL"'
	run "$CTL" bpf check --json "$BPF_O/order_keep.bpf.o"
	t_json "bpf check order_keep (bench/insn.sh's bp0): order_keep, no map, no relocation, 2 instructions" \
		'd["program"] == "order_keep" and d["maps"] == [] and d["relocations"] == [] and d["instructions"] == 2'
	run "$CTL" bpf check --json "$BPF_O/examples/uid.bpf.o"
	t_json "bpf check uid (examples/bpf): the hash map uid_order, key 4, value 4, 256 entries" \
		'd["maps"] == [{"name": "uid_order", "type": 1, "type_name": "hash", "key_size": 4, "value_size": 4, "max_entries": 256, "flags": 0}]'
	expect_eq "bpf check uid: the ld_imm64 readelf shows relocated to uid_order" \
		"$($PY -c 'import json, sys; d = json.load(open(sys.argv[1])); print("\n".join("%d %s" % (r["insn"], r["map"]) for r in d["relocations"]))' "$W/out")" \
		"$(bpf_readelf_reloc "$BPF_O/examples/uid.bpf.o")"
	run "$CTL" bpf check "$BPF_O/examples/uid.bpf.o"
	[ "$RC" = 0 ] && ok "bpf check uid (text): exit 0" || fail "bpf check uid: exit $RC: $(errline)"
	t_grep "bpf check uid (text): the map" out '^map: +uid_order hash key 4 value 4 max_entries 256 flags 0$'
	t_grep "bpf check uid (text): the relocation" out '^relocation: +instruction [0-9]+: ld_imm64 of map uid_order$'
	t_grep "bpf check uid (text): instructions" out '^instructions: +[1-9][0-9]*$'
}

# Objects load must refuse, each with what to change.
bpf_refusals() {
	local other
	bpf_refused "global data" "$BPF_O/bad/global_data.bpf.o" 'global data is not supported: make it a map'
	bpf_refused "a call" "$BPF_O/bad/call.bpf.o" 'calls to other functions are not supported: make them static __always_inline'
	bpf_refused "no raw_tp.w/ section" "$BPF_O/bad/no_prog.bpf.o" 'no program section "raw_tp.w/\.\.\.": declare the program with MMTUNE_ORDER_PROG'
	if [ "$(bpf_target)" = bpfel ]; then
		other=$BPF_O/order_const.bpfeb.o
		bpf_refused "big-endian object on $(uname -m)" "$other" 'a big-endian BPF object on a little-endian host: build it with clang -target bpfel$'
	else
		skip "bpf check: the other byte order" "a big-endian host"
	fi
	bpf_refused "an ELF file of the host (mmtunectl)" "$CTL" 'not a BPF object \(ELF machine [0-9]+\)'
	printf 'not an object\n' >"$W/bpf-text"
	bpf_refused "a text file" "$W/bpf-text" 'not an ELF file: build the program with clang -target bpf -c$'
	: >"$W/bpf-empty"
	bpf_refused "an empty file" "$W/bpf-empty" 'not an ELF file'
	bpf_refused "a directory" "$W" 'not a regular file'
	t_rc "bpf check: no such file, exit 1" 1 "$CTL" bpf check "$W/no-such.o"
	bpf_cc no_license <<'EOF'
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include "mmtune_bpf.h"
MMTUNE_ORDER_PROG(no_license) { ctx->order = 0; return 0; }
EOF
	bpf_refused "no license" "$BPF_O/adhoc/no_license.o" 'no license: add char LICENSE\[\] SEC\("license"\) = "GPL";'
	bpf_cc two <<'EOF'
#include <linux/types.h>
#include "mmtune_bpf.h"
char LICENSE[] __attribute__((section("license"), used)) = "GPL";
__attribute__((section("raw_tp.w/a"), used)) int one(__u64 *a) { return 0; }
__attribute__((section("raw_tp.w/b"), used)) int two(__u64 *a) { return 0; }
EOF
	bpf_refused "two programs" "$BPF_O/adhoc/two.o" 'two programs \(raw_tp.w/a and raw_tp.w/b\): one program a machine'
	bpf_cc pinning <<'EOF'
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "mmtune_bpf.h"
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 1); __type(key, __u32); __type(value, __u32);
	 __uint(pinning, LIBBPF_PIN_BY_NAME); } pinned SEC(".maps");
char LICENSE[] SEC("license") = "GPL";
MMTUNE_ORDER_PROG(pinning) { __u32 k = 0, *v = bpf_map_lookup_elem(&pinned, &k); if (v) ctx->order = *v; return 0; }
EOF
	bpf_refused "a map member it cannot make (pinning)" "$BPF_O/adhoc/pinning.o" "map pinned: member 'pinning' is not supported"
	bpf_cc rodata <<'EOF'
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include "mmtune_bpf.h"
char LICENSE[] __attribute__((section("license"), used)) = "GPL";
const volatile __u32 table[4] = { 1, 2, 3, 4 };
MMTUNE_ORDER_PROG(rodata) { ctx->order = table[ctx->uid & 3]; return 0; }
EOF
	bpf_refused "const data (.rodata)" "$BPF_O/adhoc/rodata.o" 'uses table in \.rodata: global data is not supported: make it a map'
}

# Objects cut short and with bytes changed: refused (2) or read (0), no crash.
bpf_damaged() {
	local f=$BPF_O/examples/uid.bpf.o size n bad=
	size=$(stat -c %s "$f")
	for n in $(seq 0 61 $((size - 1))); do
		head -c "$n" "$f" >"$W/bpf-cut.o"
		run "$CTL" bpf check "$W/bpf-cut.o"
		[ "$RC" = 2 ] || bad="$bad $n:$RC"
	done
	[ -z "$bad" ] && ok "bpf check: uid cut at every 61st byte: refused, exit 2" ||
		fail "bpf check: uid cut short: exit codes$bad"
	bad=
	mkdir -p "$W/bpf-flip"
	$PY -c 'import random, sys
b0 = open(sys.argv[1], "rb").read()
for n in range(1, 201):
    r = random.Random(n); b = bytearray(b0)
    for _ in range(8): b[r.randrange(len(b))] = r.randrange(256)
    open("%s/%d.o" % (sys.argv[2], n), "wb").write(b)' "$f" "$W/bpf-flip"
	for n in $(seq 1 200); do
		run "$CTL" bpf check "$W/bpf-flip/$n.o"
		case $RC in 0 | 2) ;; *) bad="$bad seed$n:$RC" ;; esac
	done
	[ -z "$bad" ] && ok "bpf check: uid with 8 bytes changed, 200 seeds: read or refused, never a crash" ||
		fail "bpf check: bytes changed: exit codes$bad"
}

# A fake sysfs bpf/ (the module's files as module/mmtune_abi.h names them).
bpf_fake() {
	fresh
	export MMTUNE_SYSFS_MM=$W/bpf-mm
	rm -rf "$MMTUNE_SYSFS_MM"
	mkdir -p "$MMTUNE_SYSFS_MM/bpf"
	echo 0 >"$MMTUNE_SYSFS_MM/bpf/attached"
	echo 1200 >"$MMTUNE_SYSFS_MM/bpf/calls"
	echo 3 >"$MMTUNE_SYSFS_MM/bpf/refused"
	echo "1000 0 150 0 47 0 0 0 0 0" >"$MMTUNE_SYSFS_MM/bpf/decisions"
	echo mmtune_order_no_such_tp >"$MMTUNE_SYSFS_MM/bpf/tracepoint"
}

bpf_state() {
	local n
	bpf_fake
	# every file of mmt_abi_bpf[] is one the fake has
	for n in $(sed -n '/mmt_abi_bpf\[\]/,/};/p' "$TOP/module/mmtune_abi.h" | grep -o '"[a-z_]*"' | tr -d '"'); do
		[ -f "$MMTUNE_SYSFS_MM/bpf/$n" ] || fail "bpf: the fake bpf/ lacks $n (module/mmtune_abi.h)"
	done
	run "$CTL" bpf status --pin "$W/no-pin"
	[ "$RC" = 0 ] && ok "bpf status: exit 0" || fail "bpf status: exit $RC: $(errline)"
	t_grep "bpf status: attached no" out '^attached: +no$'
	t_grep "bpf status: calls" out '^calls: +1200$'
	t_grep "bpf status: order 2's decisions" out '^  order 2 +150$'
	t_grep "bpf status: no pin" out '^pin: +none$'
	run "$CTL" bpf list --json --pin "$W/no-pin"
	t_json "bpf list --json: the same figures, decisions per order" \
		'd == {"attached": False, "tracepoint": "mmtune_order_no_such_tp", "calls": 1200, "refused": 3, "decisions": [1000, 0, 150, 0, 47, 0, 0, 0, 0, 0], "pin": None}'
	: >"$W/a-pin"
	run "$CTL" bpf --json status --pin "$W/a-pin"
	t_json "bpf status --json: the pin when there" 'd["pin"] == "'"$W/a-pin"'"'
	run "$CTL" bpf check --json "$BPF_O/order_const.bpf.o"
	t_json "bpf check: the module's tracepoint" 'd["tracepoint"] == "mmtune_order_no_such_tp"'
	run "$CTL" stats --prometheus
	t_grep "stats --prometheus: mmtune_bpf_attached" out '^mmtune_bpf_attached 0$'
	t_grep "stats --prometheus: decisions by order" out '^mmtune_bpf_decisions_total\{order="2"\} 150$'
	t_grep "stats --prometheus: refused" out '^mmtune_bpf_refused_total 3$'
	run "$CTL" status --json
	t_json "status --json: the BPF program" 'd["bpf"] == {"attached": False, "calls": 1200, "refused": 3}'
	run "$CTL" status
	t_grep "status: the BPF program" out '^bpf: +none, 1200 calls decided, 3 refused$'

	echo 1 >"$MMTUNE_SYSFS_MM/bpf/attached"
	run "$CTL" status --json
	t_json "status --json: attached" 'd["bpf"]["attached"] is True'
	t_rc "bpf load while attached is 1: exit 1" 1 "$CTL" bpf load "$BPF_O/order_const.bpf.o" --pin "$W/p"
	t_grep "bpf load while attached: says to unload first" err 'a program is attached: mmtunectl bpf unload first$'
	t_rc "bpf load of a bad object: exit 2 before the module is asked" 2 "$CTL" bpf load "$BPF_O/bad/global_data.bpf.o"
	echo 0 >"$MMTUNE_SYSFS_MM/bpf/attached"
	t_rc "bpf load --pin outside a bpffs: exit 1" 1 "$CTL" bpf load "$BPF_O/order_const.bpf.o" --pin "$W/p"
	t_grep "bpf load --pin outside a bpffs: says so" err "$W is not on a bpf file system"
	t_rc "bpf load --pin in a directory that is not there: exit 1" 1 "$CTL" bpf load "$BPF_O/order_const.bpf.o" --pin "$W/no-dir/p"
	t_grep "bpf load --pin in a directory that is not there: says so" err "no directory $W/no-dir: make it under a bpf file system$"
	if [ "$(stat -f -c %T /sys/fs/bpf 2>/dev/null)" != bpf_fs ]; then
		t_rc "bpf load, /sys/fs/bpf no bpffs: exit 1" 1 "$CTL" bpf load "$BPF_O/order_const.bpf.o"
		t_grep "bpf load, /sys/fs/bpf no bpffs: how to mount it" err 'mount -t bpf bpf /sys/fs/bpf$'
	else
		skip "bpf load without a bpffs" "/sys/fs/bpf is one here"
	fi
	echo 2 >"$MMTUNE_SYSFS_MM/bpf/attached"
	t_rc "bpf status, attached 2: exit 1" 1 "$CTL" bpf status
	t_grep "bpf status, attached 2: unexpected content" err 'unexpected content in .*/bpf/$'
	rm -r "$MMTUNE_SYSFS_MM/bpf"
	t_rc "bpf status, a module without bpf/: exit 1" 1 "$CTL" bpf status
	t_grep "bpf status, a module without bpf/: says it is older" err 'has no BPF programs \(no .*/bpf/\): it is older than mmtunectl$'
	t_rc "bpf load, a module without bpf/: exit 1" 1 "$CTL" bpf load "$BPF_O/order_const.bpf.o" --pin "$W/p"
	no_module
	t_rc "bpf status without the module: exit 1" 1 "$CTL" bpf status
	t_grep "bpf status without the module: modprobe" err "run 'modprobe mmtune'"
	run "$CTL" bpf check "$BPF_O/order_const.bpf.o"
	[ "$RC" = 0 ] && ok "bpf check without the module: exit 0 (no module needed)" || fail "bpf check without the module: exit $RC: $(errline)"
	unset MMTUNE_SYSFS_MM

	t_rc "bpf unload, no pin: exit 1" 1 "$CTL" bpf unload --pin "$W/no-pin"
	t_grep "bpf unload, no pin: says so" err "no program pinned at $W/no-pin$"
	t_rc "bpf unload of a file outside a bpffs: exit 2" 2 "$CTL" bpf unload --pin "$W/a-pin"
	[ -e "$W/a-pin" ] && ok "bpf unload outside a bpffs: the file stays" || fail "bpf unload removed $W/a-pin"
}

bpf_usage() {
	t_rc "bpf check without OBJ: exit 2" 2 "$CTL" bpf check
	t_rc "bpf load with two objects: exit 2" 2 "$CTL" bpf load a.o b.o
	t_rc "bpf unknown subcommand: exit 2" 2 "$CTL" bpf frob
	t_rc "bpf status extra: exit 2" 2 "$CTL" bpf status extra
	t_rc "bpf --pin '': exit 2" 2 "$CTL" bpf --pin '' status
	t_rc "bpf --pin without a value: exit 2" 2 "$CTL" bpf status --pin
	local m
	for m in x x:1 :1=2 x:a=2 x:1=-2 x:1=2y x:=2; do
		t_rc "bpf load --map '$m': exit 2" 2 "$CTL" bpf load a.o --map "$m"
	done
	t_grep "bpf load --map: says what it wants" err "want NAME:KEY=VALUE|is not a number"
	t_rc "bpf status --map: exit 2" 2 "$CTL" bpf status --map x:1=2
	t_grep "bpf status --map: load's alone" err "--map is for load"
	t_out "bpf --help: help bpf's" "$("$CTL" help bpf)" "$CTL" bpf --help
	t_grep "bpf --help: the exit status" out '^Exit status: 0 done'
}

suite_bpf() {
	bpf_usage
	bpf_build || return
	bpf_programs
	bpf_refusals
	bpf_damaged
	bpf_state
}
