#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/insn.sh [--short] (`make bench`; --short: `make check-bench`):
# what the fault-path hooks cost, in guest instructions per fault.
#
# Wall-clock figures under TCG follow the host's other load (bench/RESULTS.md
# saw 15-40 % spreads); the instructions the guest executes do not.  One VM
# run (tests/vm/vng.sh, 1 vCPU, qemu -icount shift=0 so that guest time,
# hence the timer tick, follows instructions, not the host) loads the QEMU
# TCG plugin bench/plugin/insncount.c (built by bench/build-plugin.sh),
# which counts the instructions bench/faultbench.c --markers executes in its
# read loops, user and kernel mode apart.  Per order (fault_around_bytes,
# the kernel's own knob) and configuration, interleaved and repeated:
#   a       no module
#   b       mmtune loaded, everything off
#   c_ctr   stats_enable 1, latency_enable 0 (counters)
#   c_map   c_ctr with mapped_enable 1 (pages mapped too: the PTE setter's
#           hook, a callback per setter call)
#   c       stats_enable 1, latency_enable 1 (counters and latency)
#   u       usefulness_enable 1 alone (the measurement mode: at the entry
#           and the end of filemap_map_pages, the kernel's tracepoint from
#           6.11 or a kretprobe before, fault-around's extra PTEs made
#           old; its walk at unmap runs outside the markers)
#   t       c_map with the trace events mmtune:fault_around and
#           fault_around_mapped enabled, recorded into the ring buffer
#           (overwrite mode) with no reader: a reader would run between
#           the markers on the one vCPU and count its own work (runs of
#           it spread 11-14 %); c_ctr and c_map run them disabled, at
#           the cost of their static-key NOPs
#   c_base  c_ctr with the module $MMT_BENCH_BASE_KO (another build, e.g.
#           of the commit before a change: that change's cost, same run)
#   u_base  u with the module $MMT_BENCH_BASE_KO
#   p1_base, p1m_base, p32_base, p32m_base  p1, p1m, p32, p32m with it
#   p1f     one rule of faultbench's file (file=), matching
#   p32f    32 rules, the last matching faultbench and its file (30
#           comm=, a pid=, comm=faultbench file=): a mapping key's cost
#   p1      one policy rule, not matching faultbench
#   p1m     one rule matching faultbench
#   p32     32 rules, none matching (30 comm=, a pid=, a cgroup=)
#   p32m    32 rules, the last matching (30 comm=, a pid=, comm=faultbench)
#   rec     p1m with the mmtune:fault_around event on in a tracefs
#           instance of its own, filtered on the rule, as mmtunectl record
#           has it (docs/replay.md), recorded into its ring buffer with no
#           reader (record's reader, a process, parses them apart); at
#           order 0 the kernel's own order is 4 and the rule narrows it
#           to 0, as under record (against a, order 0 without
#           fault-around: what a recorded run costs a fault)
#   ua      u with an auto rule matching faultbench (comm=faultbench
#           order=auto): with MMT_BENCH_STRIDE=2 it holds the order
#           under test (docs/policy.md: 43-50 % useful at every order)
#   ua_base ua with the module $MMT_BENCH_BASE_KO
#   uaf     ua with the rule learning per file (order=auto:file): a
#           file lookup at each fault-around call and each count of
#           pre-mapped pages (docs/policy-design.md, "An order per file")
#   bp0     p1m with a BPF program attached (docs/bpf.md) that leaves
#           every order as the rule's: tests/bpf/order_keep.bpf.o, the
#           program's call alone (against p1m; order_const's order 0
#           would change the window)
#   bpr     p1m with examples/bpf/range.bpf.o on faultbench's file: its
#           first half inside, the rest outside, both at the order under
#           test (the whole decision computed, the rule's order kept)
#   bpu     p1m with examples/bpf/uid.bpf.o, an entry for uid 65534 only
#           (faultbench runs as root: a hash lookup that misses)
#   bps     p1m with examples/bpf/startup.bpf.o, cfg 0 seconds: a process's
#           first call at order 0 (first_seen's insertion), every other
#           one an LRU lookup that keeps the rule's order
#   bpl     p1m with examples/bpf/learn.bpf.o as it is: it changes orders
#           by design (each file from 0, one up per sequential call to
#           the rule's, halved by any other), so its faults differ from
#           p1m's a little; its cost per fault includes that
#           (each bp* mounts bpffs, loads with userspace/mmtunectl bpf,
#           prints the module's bpf counters and unloads at teardown; the
#           host builds the tools and objects first)
#   d       no module: bpftrace counting faults, fault-around calls and
#           pages requested with kprobes (bench/lib.sh)
#   d_kfunc the same with kfunc (fentry) probes
# (every rule at the order under test: the window is what a's is).
# The host joins the guest's runs (faults from getrusage) with the plugin's
# counts, prints the table (medians, spread, ratios to a of the same run),
# a gnuplot SVG and a per-function profile of c_ctr minus a (kernel blocks
# attributed to the guest's /proc/kallsyms), and writes them with the raw
# counts as a run of bench/runs/ (bench/results.sh): named insn, or
# insn-C1+C2... for a run of some of the configurations.
#
# --short: orders 0 and 4, configurations a, b, c_ctr, p1, p32; asserts
# kernel instructions per fault relative to a: b within 0.1 %, the others
# under bench/insn-report.sh's INSN_LIMITS: a KTAP document (tests/lib.sh),
# "N passed, N failed"; exit 1 on a failure; writes no results file.
#
# Env: MMT_BENCH_ROUNDS (default 3), MMT_BENCH_MB file size (default 64),
#      MMT_BENCH_PASSES passes per order (default "0:1 4:4 9:8"),
#      MMT_BENCH_ORDERS, MMT_BENCH_CONFIGS (override the lists),
#      MMT_BENCH_BASE_KO (the module of the X_base configs, never a default),
#      MMT_BENCH_STRIDE (faultbench reads one page in K, default 1),
#      MMT_BENCH_THREADS (T threads of one faultbench on T vCPUs, each
#      counted on its own: the run's count is their sum; default 1),
#      MMT_BENCH_PROCS=1 (the T readers are processes, each mapping the
#      file itself: T mms faulting one file; named -pT instead of -tT;
#      T > 1 runs without -icount, which keeps a second vCPU down),
#      MMT_BENCH_HUGE, MMT_BENCH_BS_KB (the tmpfs's huge=, default never,
#      and the KiB a write fills it with, default 1024: named -hH, -bB),
#      MMT_BENCH_RUNS (default bench/runs), MMT_BENCH_TOP (profile
#      lines, default 15), MMT_BENCH_KEEP=1 (keep the work dir in /tmp),
#      MMT_KERNEL (see vng.sh), MMT_BENCH_KO (a module built for that
#      kernel instead of the tree's for 6.1: bench/cell.sh).
# Inside the guest this script runs itself as: bench/insn.sh --guest DIR
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHORT=${MMT_BENCH_SHORT:-0}
[ "${1:-}" = --short ] && { SHORT=1; shift; }
export MMT_BENCH_SHORT=$SHORT
ROUNDS=${MMT_BENCH_ROUNDS:-3}
MB=${MMT_BENCH_MB:-64}
SECS=0
PASSES=${MMT_BENCH_PASSES:-"0:1 4:4 9:8"}
INSN_ALL="a b c_ctr c_map c u t p1 p1m p32 p32m rec d d_kfunc"
if [ "$SHORT" = 1 ]; then
	ORDERS=${MMT_BENCH_ORDERS:-"0 4"}
	CONFIGS=${MMT_BENCH_CONFIGS:-"a b c_ctr p1 p32"}
else
	ORDERS=${MMT_BENCH_ORDERS:-"0 4 9"}
	CONFIGS=${MMT_BENCH_CONFIGS:-$INSN_ALL}
fi
STRIDE=${MMT_BENCH_STRIDE:-1}
THREADS=${MMT_BENCH_THREADS:-1}
PROCS=${MMT_BENCH_PROCS:-0}
export MMT_BENCH_PASSES="$PASSES" MMT_BENCH_ORDERS="$ORDERS" MMT_BENCH_CONFIGS="$CONFIGS"
export MMT_BENCH_STRIDE="$STRIDE" MMT_BENCH_THREADS="$THREADS" MMT_BENCH_PROCS="$PROCS"
. "$TOP/bench/lib.sh"

# ------------------------------------------------------------------ guest
guest() {
	local dir=$1 dbg=/sys/kernel/debug mmt=/sys/kernel/debug/mmtune
	local cg=/sys/fs/cgroup ko=${MMT_BENCH_KO:-$TOP/module/mmtune.ko}
	local trc=/sys/kernel/tracing tev=/sys/kernel/tracing/events/mmtune fa=events/mmtune/fault_around
	local r o c i n nr seq=0 cfgs out fab
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	mountpoint -q $dbg || mount -t debugfs none $dbg
	mountpoint -q $trc || mount -t tracefs none $trc
	grep -q " $cg cgroup2 " /proc/mounts || mount -t cgroup2 none $cg
	mkdir -p $cg/mmt-bench
	bench_mount_file
	bench_bt_scripts
	echo 0 > /proc/sys/kernel/kptr_restrict
	awk '$2 ~ /^[tT]$/ { print "ksym", $1, $3, $4 }' /proc/kallsyms

	# rules N MATCH ORDER: N rules at ORDER, the last one MATCH (or none)
	rules() {
		local k
		for k in $(seq 1 $(($1 > 2 ? $1 - 2 : 0))); do echo "comm=nomatch$k order=$3"; done
		[ "$1" -gt 2 ] && echo "pid=1 order=$3"
		if [ "$2" = 2 ] && [ "$1" = 1 ]; then echo "file=$BENCH_F order=$3"
		elif [ "$2" = 2 ]; then echo "comm=faultbench file=$BENCH_F order=$3"
		elif [ "$2" = 1 ]; then echo "comm=faultbench order=$3"
		elif [ "$1" -gt 1 ]; then echo "cgroup=/mmt-bench order=$3"
		else echo "comm=nomatch order=$3"
		fi
	}
	# setup CONFIG ORDER; policy files are written with one write(2)
	setup() {
		echo $((4096 << $2)) > $dbg/fault_around_bytes
		case $1 in
		a) ;;
		b) insmod "$ko" ;;
		c_ctr) insmod "$ko" && echo 0 > $mmt/latency_enable && echo 1 > $mmt/stats_enable ;;
		c_map) insmod "$ko" && echo 0 > $mmt/latency_enable && echo 1 > $mmt/mapped_enable &&
			echo 1 > $mmt/stats_enable ;;
		c) insmod "$ko" && echo 1 > $mmt/latency_enable && echo 1 > $mmt/stats_enable ;;
		u) insmod "$ko" && echo 1 > $mmt/usefulness_enable ;;
		c_base) insmod "${MMT_BENCH_BASE_KO:?}" && echo 0 > $mmt/latency_enable &&
			echo 1 > $mmt/stats_enable ;;
		u_base) insmod "${MMT_BENCH_BASE_KO:?}" && echo 1 > $mmt/usefulness_enable ;;
		rec) [ "$2" = 0 ] && echo $((4096 << 4)) > $dbg/fault_around_bytes
			insmod "$ko" && echo "comm=faultbench order=$2" > $mmt/policy &&
			mkdir $trc/instances/mmt-rec && echo 'rule == 0' > $trc/instances/mmt-rec/$fa/filter &&
			echo 1 > $trc/instances/mmt-rec/$fa/enable ;;
		ua) insmod "$ko" && echo 1 > $mmt/usefulness_enable &&
			echo "comm=faultbench order=auto" > $mmt/policy ;;
		ua_base) insmod "${MMT_BENCH_BASE_KO:?}" && echo 1 > $mmt/usefulness_enable &&
			echo "comm=faultbench order=auto" > $mmt/policy ;;
		uaf) insmod "$ko" && echo 1 > $mmt/usefulness_enable &&
			echo "comm=faultbench order=auto:file" > $mmt/policy ;;
		t) insmod "$ko" && echo 0 > $mmt/latency_enable && echo 1 > $mmt/mapped_enable &&
			echo 1 > $mmt/stats_enable && echo > $trc/trace &&
			echo 1 > $tev/fault_around/enable && echo 1 > $tev/fault_around_mapped/enable ;;
		d) bt_start /var/tmp/kprobe.bt ;;
		d_kfunc) bt_start /var/tmp/kfunc.bt ;;
		p1|p1m|p1f|p32|p32m|p32f|p1_base|p1m_base|p32_base|p32m_base)
			pc=${1%_base}; nr=${pc#p}; nr=${nr%[mf]}
			case $pc in *m) mt=1 ;; *f) mt=2 ;; *) mt=0 ;; esac
			rules "$nr" "$mt" "$2" > /var/tmp/rules
			pk=$ko; [ "$pc" = "$1" ] || pk=${MMT_BENCH_BASE_KO:?}
			insmod "$pk" && cat /var/tmp/rules > $mmt/policy ;;
		bp0|bpr|bpu|bps|bpl) rules 1 1 "$2" > /var/tmp/rules
			insmod "$ko" && cat /var/tmp/rules > $mmt/policy && bpf_attach "$1" "$2" ;;
		esac
	}
	# bpf_attach CONFIG ORDER: CONFIG's program, set to keep ORDER (the
	# rule's) for faultbench's calls; mmtunectl's lines as comments
	bpf_attach() {
		local ctl=$TOP/userspace/mmtunectl ex=$TOP/examples/bpf pages
		local -a a
		mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf || return 1
		pages=$(( $(stat -c %s $BENCH_F) / $(getconf PAGESIZE) ))
		case $1 in
		bp0) a=("$TOP/tests/bpf/order_keep.bpf.o") ;;
		bpr) a=("$ex/range.bpf.o" --map "range:1=$(stat -c %i $BENCH_F)" --map range:2=0
			--map "range:3=$((pages / 2 - 1))" --map "range:4=$2" --map "range:5=$2") ;;
		bpu) a=("$ex/uid.bpf.o" --map uid_order:65534=0) ;;
		bps) a=("$ex/startup.bpf.o" --map cfg:0=0) ;;
		bpl) a=("$ex/learn.bpf.o") ;;
		esac
		"$ctl" bpf load "${a[@]}" 2>&1 | sed "s/^/# $1 load: /"
		[ "${PIPESTATUS[0]}" = 0 ]
	}
	teardown() {
		local k
		case $1 in
		c|c_ctr|c_map|c_base) echo "# $1 stats: $(tr '\n' ' ' < $mmt/stats)" ;;
		u|u_base) echo "# $1 usefulness: $(tr '\n' ' ' < $mmt/usefulness)" ;;
		ua|ua_base|uaf) echo "# $1 policy: $(grep -m1 faultbench $mmt/policy)" ;;
		rec) echo 0 > $trc/instances/mmt-rec/$fa/enable
			echo "# rec events: $(grep -c ' fault_around' $trc/instances/mmt-rec/trace) in the buffer"
			rmdir $trc/instances/mmt-rec ;;
		t) echo 0 > $tev/enable; echo "# t events: $(grep -c ' fault_around' $trc/trace) in the buffer"
			echo > $trc/trace ;;
		p*) echo "# $1 policy: $(grep -cE '^(comm|pid|cgroup)=' $mmt/policy) rules; $(grep -m1 faultbench $mmt/policy)" ;;
		d*) bt_stop ;;
		bp*) echo "# $1 policy: $(grep -m1 faultbench $mmt/policy); bpf: $(tr '\n' ' ' < $mmt/bpf)"
			"$TOP/userspace/mmtunectl" bpf unload > /dev/null
			# the link is freed from a work item after the pin goes
			for k in $(seq 1 50); do rmmod mmtune 2>/dev/null && break; sleep 0.1; done ;;
		esac
		rmmod mmtune 2>/dev/null
		true
	}
	local procs_arg=
	[ "${MMT_BENCH_PROCS:-0}" = 1 ] && [ "$THREADS" -gt 1 ] && procs_arg=--procs
	# run SEQ LABEL ORDER: faultbench with markers; the plugin emits SEQ
	run() {
		local pn=1 kv
		for kv in $PASSES; do [ "${kv%%:*}" = "$3" ] && pn=${kv#*:}; done
		# let deferred work of the setup (text pokes of static keys,
		# kworkers) run before, not during, the measured loops
		sleep 1
		out=$(taskset -c 0-$((THREADS - 1)) "$dir/faultbench" --passes "$pn" --markers \
			--stride "$STRIDE" --threads "$THREADS" ${procs_arg:-} $BENCH_F) ||
			echo "# run $1 failed"
		echo "run $1 $2 $out"
	}

	read -r -a cfgs <<< "$CONFIGS"
	n=${#cfgs[@]}
	echo 65536 > $dbg/fault_around_bytes
	# a run's SEQ is its last count's: its T threads emit one each
	run $((seq += THREADS)) warm,4,warm 4
	for r in $(seq 1 "$ROUNDS"); do
		for o in $ORDERS; do
			for i in $(seq 0 $((n - 1))); do
				c=${cfgs[$(( (i + r - 1) % n ))]}	# rotated every round
				if setup "$c" "$o"; then
					fab=$(cat $dbg/fault_around_bytes)
					[ "$fab" = $((4096 << o)) ] ||
						echo "# warning: $c order $o: fault_around_bytes $fab"
					# the module's text and ftrace/kprobe trampolines, for
					# the profile (they move between loads)
					case $c in c|c_ctr|c_map|p1|p1m|p1f|p32|p32m|p32f|u|ua|uaf|bp*|*_base) awk -v s=$((seq + THREADS)) \
						'$2 ~ /^[tT]$/ && NF == 4 { print "msym", s, $1, $3 }' /proc/kallsyms ;;
					esac
					run $((seq += THREADS)) "$r,$o,$c" "$o"
				else
					echo "# round $r order $o: $c could not be set up"
				fi
				teardown "$c"
			done
		done
	done
	umount /var/tmp/bench-shm
	rmdir $cg/mmt-bench
	echo "mmtune-bench-done"
}

if [ "${1:-}" = --guest ]; then
	guest "$2"
	exit 0
fi

# ------------------------------------------------------------------- host
. "$TOP/tests/lib.sh"
. "$TOP/bench/insn-report.sh"

bench_pre_vm() {
	"$TOP/bench/build-plugin.sh" "$dir/libinsncount.so" || return 1
	# the bp* configurations' tool and programs, run from the tree
	case " $CONFIGS " in *" bp"[0-9a-z]" "*)
		{ make -s -C "$TOP" tools bpf-examples && make -s -C "$TOP/tests/bpf"; } > /dev/null || return 1 ;;
	esac
	BENCH_CPUS=$THREADS
	BENCH_QEMU="-plugin $dir/libinsncount.so,out=$dir/insn.txt,profile=$dir/prof.txt"
	# -icount with more than one vCPU: Debian 12's qemu (7.2) never
	# brings the second one up ("Booting SMP configuration", 2026-12-06)
	if [ "$THREADS" = 1 ]; then
		BENCH_QEMU="-icount shift=0 $BENCH_QEMU"
	fi
}
t0=$(date +%s)
bench_vm "$TOP/bench/insn.sh"
wall=$(( $(date +%s) - t0 ))
insn_join "$dir" > "$dir/runs.csv" || exit 1
if [ "$SHORT" = 1 ]; then
	echo "# bench-insn --short: VM run ${wall} s"
	insn_check "$dir/runs.csv"	# exits (ktap_exit)
fi
# the run's name (bench/results.sh): insn for every configuration, else
# insn-C1+C2... (a, the reference, left out of the name)
if [ "$CONFIGS" = "$INSN_ALL" ]; then
	name=insn
else
	name=insn-$(printf '%s\n' $CONFIGS | grep -vx a | paste -sd+)
fi
if [ "$THREADS" != 1 ] && [ "$PROCS" = 1 ]; then
	name=$name-p$THREADS
elif [ "$THREADS" != 1 ]; then
	name=$name-t$THREADS
fi
[ "$STRIDE" = 1 ] || name=$name-s$STRIDE
[ "$HUGE" = never ] || name=$name-h$HUGE
[ "$BS_KB" = 1024 ] || name=$name-b$BS_KB
insn_write "$(bench_run "$name")"
