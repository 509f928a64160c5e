#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/lib.sh: what bench/wall.sh, bench/wall-policy.sh and
# bench/insn.sh share.
# Sourced; the caller sets TOP and CONFIGS, and may set ROUNDS, SECS and
# MB.  Otherwise (the wall-clock benches) they come from MMT_BENCH_ROUNDS
# (default 5), MMT_BENCH_SECONDS per run (default 4) and MMT_BENCH_MB, the
# file's size (default 64).  MMT_BENCH_RUNS: where the runs are written
# (default bench/runs: bench/results.sh).
#
# In the guest: bench_mount_file prepares the cached tmpfs file and prints
# the "# guest:" line; bench_rounds runs faultbench under each
# configuration, interleaved (the order rotates every round), calling the
# caller's setup CONFIG / teardown CONFIG around each run.
# On the host: bench_vm SCRIPT builds the module and faultbench and runs
# SCRIPT --guest DIR in one VM (sets $KVER and $dir, the raw lines in
# $dir/raw.txt; a caller's bench_pre_vm, if defined, runs first and may
# set BENCH_CPUS and BENCH_QEMU, more qemu arguments); bench_table prints
# the markdown table of a raw file; bench_run names a run's file,
# bench_write and bench_save write it (bench/runs/, bench/results.sh).
# BENCH_AWK_SORT: awk's sort(a, n) of a[1..n] (insertion sort), for the
# awk programs here and in bench/insn-report.sh.

ROUNDS=${ROUNDS:-${MMT_BENCH_ROUNDS:-5}}
SECS=${SECS:-${MMT_BENCH_SECONDS:-4}}
MB=${MB:-${MMT_BENCH_MB:-64}}
# the tmpfs's huge= and dd's block size in KiB (docs/benchmarks.md)
HUGE=${MMT_BENCH_HUGE:-never}
BS_KB=${MMT_BENCH_BS_KB:-1024}
BENCH_F=/var/tmp/bench-shm/f
BENCH_MX=${MMTUNE_CACHE:-/var/cache/mmtune}/matrix	# tests/matrix/lib.sh's MX
BENCH_AWK_SORT='
	function sort(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	}
'

# bench_mount_file: a $MB MiB file on tmpfs, huge=$HUGE (never by
# default), written $BS_KB KiB a write
bench_mount_file() {
	mkdir -p /var/tmp/bench-shm
	mount -t tmpfs -o size=$((MB + 16))m,huge="$HUGE" bench /var/tmp/bench-shm
	dd if=/dev/zero of=$BENCH_F bs="${BS_KB}k" count=$((MB * 1024 / BS_KB)) status=none
	rmmod mmtune 2>/dev/null
	echo "# guest: $(uname -r), $(nproc) cpus, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "# fault_around_bytes $(cat /sys/kernel/debug/fault_around_bytes)"
}

# The bpftrace configurations (d: kprobes, d_kfunc: kfunc probes) count
# what the counters do without a module: faults, fault-around calls and
# pages requested, in per-CPU maps.  bench_bt_scripts writes their
# scripts; bt_start SCRIPT returns once bpftrace says it attached (its
# pid in $bt); bt_stop stops it and prints its maps as a comment.
bench_bt_scripts() {
	cat > /var/tmp/kprobe.bt <<-'EOF'
	kprobe:handle_mm_fault { @faults = count(); }
	kprobe:filemap_map_pages { @calls = count(); @req = sum(arg2 - arg1 + 1); }
	EOF
	cat > /var/tmp/kfunc.bt <<-'EOF'
	kfunc:handle_mm_fault { @faults = count(); }
	kfunc:filemap_map_pages { @calls = count(); @req = sum(args->end_pgoff - args->start_pgoff + 1); }
	EOF
}
bt=""
bt_start() {
	local log=/var/tmp/bt.log i
	: > $log
	bpftrace "$1" > $log 2>&1 &
	bt=$!
	for i in $(seq 1 600); do
		grep -q '^Attaching' $log && { sleep 1; return 0; }
		kill -0 $bt 2>/dev/null || break
		sleep 0.5
	done
	echo "# bpftrace $1 did not attach: $(tail -n 2 $log | tr '\n' ' ')"
	kill $bt 2>/dev/null; wait $bt 2>/dev/null; bt=""
	return 1
}
bt_stop() {
	[ -n "$bt" ] || return 0
	kill -INT $bt; wait $bt 2>/dev/null; bt=""
	echo "# bpftrace: $(grep -E '^@' /var/tmp/bt.log | tr '\n' ' ')"
}

# bench_rounds DIR: a warm-up pass, then CSV lines
# round,config,faults,pages,seconds,faults_per_s,pages_per_s
bench_rounds() {
	local dir=$1 r c i res cfgs n
	read -r -a cfgs <<< "$CONFIGS"
	n=${#cfgs[@]}
	"$dir/faultbench" $BENCH_F 2 > /dev/null
	echo "round,config,faults,pages,seconds,faults_per_s,pages_per_s"
	for r in $(seq 1 "$ROUNDS"); do
		for i in $(seq 0 $((n - 1))); do
			c=${cfgs[$(( (i + r - 1) % n ))]}	# rotated every round
			if setup "$c"; then
				# shellcheck disable=SC2207 # faultbench's one line of "name value" words
				res=($("$dir/faultbench" $BENCH_F "$SECS"))
				echo "$r,$c,${res[1]},${res[3]},${res[5]},${res[7]},${res[9]}"
			else
				echo "# round $r: $c could not be set up"
			fi
			teardown "$c"
		done
	done
	umount /var/tmp/bench-shm
}

# bench_vm SCRIPT: one VM run of SCRIPT --guest DIR: under vng.sh with the
# host's root file system, or with $MMT_BENCH_CELL in that matrix cell's
# initramfs (bench_boot_cell)
bench_vm() {
	local name cc=${MMT_BENCH_CC:-cc}
	name=$(basename "$1" .sh)
	if [ -n "${MMT_BENCH_CELL:-}" ]; then
		# shellcheck disable=SC1090 # written by tests/matrix/fetch.sh, not in the tree
		KVER=$(. "$BENCH_MX/cells/$MMT_BENCH_CELL/cell.env"; echo "$KVER")
	elif [ -n "${MMT_BENCH_KO:-}" ]; then
		# another kernel's build of the module, that kernel booted
		# (MMT_KERNEL, bench/cell.sh)
		KVER=$(modinfo -F vermagic "$MMT_BENCH_KO" | cut -d' ' -f1)
	else
		KVER=$(cd /lib/modules && ls -d 6.1.*[0-9]-amd64 2>/dev/null | sort -V | tail -n 1)
		make -s -C "$TOP" module KDIR="/lib/modules/$KVER/build" > /dev/null ||
			{ echo "$name: module build failed" >&2; exit 1; }
	fi
	# /tmp is seen by the guest (an overlay of the host's /tmp)
	dir=$(mktemp -d "/tmp/mmt-$name.XXXXXX")
	[ -n "${MMT_BENCH_KEEP:-}" ] && echo "# keeping $dir" >&2 || trap 'rm -rf "$dir"' EXIT
	"$cc" -O2 ${MMT_BENCH_CELL:+-static} -o "$dir/faultbench" "$TOP/bench/faultbench.c" -lpthread || exit 1
	if [ -n "${MMT_BENCH_KO:-}" ]; then
		# the guest sees the host's /tmp, not the matrix cache (vng
		# mounts its own /var/cache), and check-matrix may rebuild it
		cp "$MMT_BENCH_KO" "$dir/mmtune.ko" || exit 1
		MMT_BENCH_KO=$dir/mmtune.ko
	fi
	BENCH_CPUS=2 BENCH_QEMU=""	# a caller's bench_pre_vm may change them
	if declare -F bench_pre_vm > /dev/null; then bench_pre_vm || exit 1; fi
	echo "# $name: $ROUNDS rounds x {$CONFIGS} x ${SECS}s, ${MB} MiB file, kernel $KVER" >&2
	if [ -n "${MMT_BENCH_CELL:-}" ]; then
		bench_boot_cell "$1"
	else
		"$TOP/tests/vm/vng.sh" --timeout 3000 --cpus "$BENCH_CPUS" \
			${BENCH_QEMU:+--qemu-arg "$BENCH_QEMU"} -- env MMT_BENCH_ROUNDS="$ROUNDS" \
			MMT_BENCH_SECONDS="$SECS" MMT_BENCH_MB="$MB" "$1" --guest "$dir" \
			> "$dir/raw.txt" 2> "$dir/console.txt"
	fi
	grep -q mmtune-bench-done "$dir/raw.txt" || {
		echo "$name: the guest did not finish:" >&2
		tail -n 20 "$dir/raw.txt" "$dir/console.txt" >&2
		exit 1
	}
}

# bench_boot_cell SCRIPT: SCRIPT's guest half as the one suite
# (bench/guest.sh) of an initramfs of $MMT_BENCH_CELL whose user
# land is make check-trace's (tests/matrix/rootfs-bpftrace.sh: bash, bpftrace),
# booted by tests/matrix/boot.sh; the console is $dir/raw.txt.  The
# guest's dmesg is scanned there (tests/matrix/init.sh): not clean, no
# results.
bench_boot_cell() {
	local c=$MMT_BENCH_CELL darch fs
	# shellcheck disable=SC1090 # written by tests/matrix/fetch.sh, not in the tree
	darch=$(. "$BENCH_MX/cells/$c/cell.env"; echo "$DEB_ARCH")
	fs=$("$TOP/tests/matrix/rootfs-bpftrace.sh" "$darch" | tail -n 1) || exit 1
	MMT_INITRAMFS=$dir/initramfs.cpio MMT_MATRIX_ROOTFS=$fs \
		MMT_MATRIX_TESTS=$TOP/bench/guest.sh \
		MMT_MATRIX_FILES="bench/$(basename "$1") bench/lib.sh $dir/faultbench:bench/faultbench" \
		MMT_MATRIX_ENV="MMT_TEST_TIMEOUT=3000
MMT_BENCH_ROUNDS=$ROUNDS
MMT_BENCH_SECONDS=$SECS
MMT_BENCH_MB=$MB
MMT_BENCH_ORDERS=${MMT_BENCH_ORDERS:-}
MMT_BENCH_CONFIGS=${MMT_BENCH_CONFIGS:-}
MMT_BENCH_PASSES=${MMT_BENCH_PASSES:-}
MMT_BENCH_SHORT=${MMT_BENCH_SHORT:-0}
MMT_BENCH_HUGE=$HUGE
MMT_BENCH_BS_KB=$BS_KB" \
		"$TOP/tests/matrix/initramfs.sh" "$c" > /dev/null || exit 1
	MMT_BOOT_INITRD=$dir/initramfs.cpio MMT_BOOT_LOG=$dir/console.txt \
		MMT_VM_CPUS=$BENCH_CPUS MMT_VM_MEMORY=3072 MMT_BOOT_TIMEOUT=3600 \
		MMT_QEMU_ARGS="$BENCH_QEMU" "$TOP/tests/matrix/boot.sh" "$c" \
		> "$dir/raw.txt" 2>/dev/null
	grep -q '^ok [0-9]* dmesg clean' "$dir/raw.txt" || {
		echo "$(basename "$1" .sh): the guest's dmesg is not clean:" >&2
		grep -m 3 '^not ok' "$dir/raw.txt" >&2
		exit 1
	}
}

# bench_table RAW: per configuration the median faults/s, min..max, the
# interquartile range in % of the median, the ratio of medians to a, and
# the median (min..max) of each run's ratio to a of the same round (the
# host's load drifts between rounds)
bench_table() {
	awk -F, -v configs="$CONFIGS" "$BENCH_AWK_SORT"'
	function q(a, n, p,   x, i) {	# linear-interpolated quantile
		x = 1 + (n - 1) * p; i = int(x)
		return i >= n ? a[n] : a[i] + (x - i) * (a[i + 1] - a[i])
	}
	/^[0-9]+,/ { n[$2]++; v[$2, n[$2]] = $6; r[$1, $2] = $6; rounds[$1] = 1 }
	END {
		nc = split(configs, cs, " ")
		printf "| config | runs | median faults/s | min..max | IQR %% of median | ratio to a | same-round ratio to a, median (min..max) |\n"
		printf "|---|---|---|---|---|---|---|\n"
		for (k = 1; k <= nc; k++) {
			c = cs[k]
			if (!n[c]) { printf "| %s | 0 | - | - | - | - | - |\n", c; continue }
			delete s
			for (i = 1; i <= n[c]; i++) s[i] = v[c, i]
			sort(s, n[c])
			med[c] = q(s, n[c], 0.5)
			iqr = q(s, n[c], 0.75) - q(s, n[c], 0.25)
			delete p; np = 0
			for (rd in rounds)
				if ((rd, c) in r && (rd, "a") in r && r[rd, "a"] > 0)
					p[++np] = r[rd, c] / r[rd, "a"]
			sort(p, np)
			printf "| %s | %d | %.0f | %.0f..%.0f | %.1f | %s | %s |\n", c, n[c], med[c],
				s[1], s[n[c]], 100 * iqr / med[c],
				med["a"] ? sprintf("%.3f", med[c] / med["a"]) : "-",
				np ? sprintf("%.3f (%.3f..%.3f)", q(p, np, 0.5), p[1], p[np]) : "-"
		}
	}' "$1"
}

# bench_run NAME: this run's file in the runs directory (MMT_BENCH_RUNS,
# default bench/runs; bench/results.sh), without its .md:
# DATE-NAME-KERNEL, or DATE-NAME-KERNEL.N for the day's Nth run of it
bench_run() {
	local d=${MMT_BENCH_RUNS:-$TOP/bench/runs} base f n=2
	mkdir -p "$d"
	base=$d/$(date -u +%Y-%m-%d)-$1-$KVER
	f=$base
	while [ -e "$f.md" ]; do
		f=$base.$n
		n=$((n + 1))
	done
	echo "$f"
}

# bench_write RUN TITLE INTRO: a dated section (TITLE, INTRO lines, the
# table, the raw runs) as the run's file RUN.md (bench_run), printed too.
bench_write() {
	local run=$1 title=$2 intro=$3
	{
		echo "## $(date -u +%Y-%m-%d) — $title under TCG ($(grep -m1 '^# guest' "$dir/raw.txt" | sed 's/^# guest: //'))"
		echo
		echo "$ROUNDS rounds, configurations interleaved (order rotated each round), ${SECS} s each,"
		echo "$intro"
		echo
		bench_table "$dir/raw.txt"
		echo
		grep -vE '^mmtune-bench-done' "$dir/raw.txt" | bench_details "raw runs"
	} > "$dir/section.md"
	bench_save "$run" "$dir/section.md"
}

# bench_details SUMMARY: standard input as a folded code block
bench_details() {
	echo "<details><summary>$1</summary>"
	echo
	echo '```'
	cat
	echo '```'
	echo '</details>'
	echo
}

# bench_save RUN SECTION: SECTION printed and saved as RUN.md, and
# bench/RESULTS.md (or RESULTS.md beside another runs directory) made
# again from the runs
bench_save() {
	local run=$1 d
	d=$(dirname "$run")
	cat "$2"
	cp "$2" "$run.md"
	echo "# written to $run.md" >&2
	"$TOP/bench/results.sh" "$d" "$(dirname "$d")/RESULTS.md"
}
