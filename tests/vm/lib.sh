#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # sourced by dash, busybox sh and bash: POSIX sh and local
# Sourced by every tests/vm/t-*.sh inside the guest, and by the runners
# (tests/vm/guest.sh, tests/matrix/init.sh). The checks (ok, fail, skip,
# check, expect_eq, within, t_rc, t_out, t_grep, t_json...) and the KTAP
# output are tests/lib.sh's; these are the guest's helpers.
#
# A suite prints one result line per check; its runner frames them into a
# KTAP document (run_suite), and the host adds up every document's results
# into "N passed, N failed". A suite that cannot run at all on this kernel
# says why in a "# " line and exits 4 (KSFT_SKIP) without a check.

MMT_TOP=${MMT_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
DBG=/sys/kernel/debug
MMT=$DBG/mmtune
. "$MMT_TOP/tests/lib.sh"

# info KEY: the value of KEY's line in the module's info file ("" for
# "indirect_calls:" with no name after it)
info() { sed -n "s/^$1: *//p" $MMT/info; }
order() { cat $MMT/fault_around_order; }
# sect TEXT: a section of a suite, with the seconds since it started
# shellcheck disable=SC3028 # bash's; "?" in dash and busybox sh, which have none
sect() { echo "# [${SECONDS:-?}s] $*"; }

# running ERE: whether a process whose command line (its arguments joined
# by spaces) matches ERE is alive, this shell aside: pgrep -f without
# procps, which the matrix's busybox guests lack (pgrep there was "not
# found", so a check built on it could not fail).  The pids are those
# alive at the start: the grep that reads a command line is not among them.
running() {
	for _p in /proc/[0-9]*; do
		[ "$_p" = "/proc/$$" ] && continue
		_c=$(tr '\0' ' ' < "$_p/cmdline" 2>/dev/null) || continue
		printf '%s\n' "$_c" | grep -Eq -- "$1" && return 0
	done
	return 1
}

# rules: the policy's rule lines, without its comments and counters
rules() { grep -v '^#' $MMT/policy | sed 's/ *#.*//'; }
# pwrite TEXT: write TEXT (printf %b escapes) to the policy in one
# write(2) (printf(1): bash's builtin writes line by line); prints the error
# shellcheck disable=SC2069 # on purpose: the error to stdout, the text to the file
pwrite() { env printf '%b' "$1" 2>&1 > $MMT/policy; }
# minflt FILE: the minor faults of a faultprobe run (its output's 4th field)
# shellcheck disable=SC2046 # the fields, split
minflt() { set -- $(cat "$1"); echo "$4"; }

# wr FILE VALUE: write like echo, but print the write's error (printf(1)
# reports errno; the shell's builtin may not).
# shellcheck disable=SC2069 # on purpose: the error to stdout, the value to FILE
wr() { env printf '%s\n' "$2" 2>&1 > "$1"; }

# expect_einval [NAME] FILE VALUE: writing VALUE to FILE fails with EINVAL
# (NAME defaults to "write 'VALUE' to FILE's name").
expect_einval() {
	[ $# -ge 3 ] || set -- "write '$2' to ${1##*/}" "$1" "$2"
	if _err=$(wr "$2" "$3"); then
		fail "$1: accepted"
	else
		case $_err in
		*"Invalid argument"*) ok "$1: EINVAL" ;;
		*) fail "$1: $_err" ;;
		esac
	fi
}

# ftraced FN: FN has an ftrace callback of ours. x86 names the callback
# ("tramp: ... (mmtune_...)" or "->mmtune_..."); arm64 and ppc64 without
# per-ops trampolines list only the function and its count, so a line that
# names no callback at all counts too (nothing else traces in the guest).
# A direct call is named on a line of its own below, indented:
# "direct-->mmtune_direct_fa_tramp".
ftraced() {
	awk -v f="$1" '$1 == f { if ($0 ~ /mmtune/ || $0 !~ /->|tramp:/) ok = 1; in_f = 1; next }
		in_f && /^[ \t]/ { if ($0 ~ /mmtune/) ok = 1; next }
		{ in_f = 0 }
		END { exit !ok }' /sys/kernel/tracing/enabled_functions 2>/dev/null
}

# load_module [ARGS]: insmod the tree's build
# stats_snap PREFIX: the counters (PREFIXf, c, r, m) and /proc/vmstat
# pgfault (PREFIXp) with shell builtins only,
# so that taking the snapshot itself takes no page fault. pgfault is read
# before and after the counters, again until the two agree (5 tries): so
# no other process's faults (the suite watchdog's date and sleep, about
# 50 each on riscv64) fall between the two files.
_snap_pgfault() {
	while read -r _k _v; do
		[ "$_k" = pgfault ] && { _pgf=$_v; return; }
	done < /proc/vmstat
}
stats_snap() {
	_try=0
	while :; do
		_snap_pgfault
		_pgf0=$_pgf
		while read -r _k _v; do
			case $_k in
			faults) eval "${1}f=\$_v" ;;
			fault_around_calls) eval "${1}c=\$_v" ;;
			fault_around_pages_requested) eval "${1}r=\$_v" ;;
			fault_around_pages_mapped) eval "${1}m=\$_v" ;;
			esac
		done < $MMT/stats
		_snap_pgfault
		_try=$((_try + 1))
		[ "$_pgf" = "$_pgf0" ] || [ $_try -ge 5 ] && break
	done
	eval "${1}p=\$_pgf"
}

# on_exit 'CMDS': the test's EXIT trap, run by the test's own shell
# only.  A background job killed before it has exec'd is still a fork of
# this shell, and bash runs the EXIT trap in it too: the test's cleanup
# (rmmod, rm -rf) in the middle of the test.  t-44-value's ns_last_pid
# loop lost its module so (CI, 6.12 ppc64le-64k).  The pid is the
# kernel's (a builtin's read of /proc/self): bash 5.2's $BASHPID can
# still read the parent's in such a fork.
# shellcheck disable=SC2064,SC2154 # $$ and CMDS now, $_xpid at the exit
on_exit() {
	trap "read -r _xpid _ < /proc/self/stat; if [ \"\$_xpid\" = $$ ]; then $1; fi" EXIT
}

load_module() { insmod "$MMT_TOP/module/mmtune.ko" "$@"; }
unload_module() { rmmod mmtune 2>/dev/null; true; }

mount_debugfs() { mountpoint -q $DBG || mount -t debugfs none $DBG; }

# need_cgroup2: cgroup2 at /sys/fs/cgroup (the matrix's busybox guests may
# have none mounted: mounted here), else a failure and the suite's end
# (record and run put their command in a cgroup of their own)
need_cgroup2() {
	grep -q " /sys/fs/cgroup cgroup2 " /proc/mounts ||
		mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
	grep -q " /sys/fs/cgroup cgroup2 " /proc/mounts ||
		{ fail "no cgroup2 at /sys/fs/cgroup"; exit 1; }
}

# replay_quiet NAME SIZE: what a replay is held to needs a quiet machine:
# THP off (whether an anonymous region gets a huge page moves a run's
# other faults by hundreds, and replay takes those from the recorded run)
# and ASLR off (a library's windows depend on where it is mapped);
# $WORK a tmpfs of SIZE without huge pages, named mmt-NAME.
# replay_loud, the suite's cleanup, undoes it all: THP and ASLR back,
# usefulness off, the rules cleared, $WORK unmounted and removed, the
# module unloaded.
replay_quiet() {
	_thp=/sys/kernel/mm/transparent_hugepage/enabled
	THP_WAS=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $_thp 2>/dev/null)
	ASLR_WAS=$(cat /proc/sys/kernel/randomize_va_space)
	mount -t tmpfs -o "size=$2,huge=never" "mmt-$1" "$WORK" || { fail "tmpfs"; exit 1; }
	[ -n "$THP_WAS" ] && echo never > $_thp
	echo 0 > /proc/sys/kernel/randomize_va_space
}
replay_loud() {
	[ -n "${THP_WAS:-}" ] && echo "$THP_WAS" > /sys/kernel/mm/transparent_hugepage/enabled
	[ -n "${ASLR_WAS:-}" ] && echo "$ASLR_WAS" > /proc/sys/kernel/randomize_va_space
	[ -w $MMT/usefulness_enable ] && echo 0 > $MMT/usefulness_enable 2>/dev/null
	[ -w $MMT/policy ] && echo clear > $MMT/policy 2>/dev/null
	umount "$WORK" 2>/dev/null
	rm -rf "$WORK"
	unload_module
}

# tcg_one_cpu: under TCG (MMT_TCG=1: tests/vm/vng.sh and the matrix's
# init.sh boot nothing else) take every CPU but the first offline and
# list them in $TCG_OFFLINE; tcg_all_cpus brings them back.  A vCPU that
# meets text being patched (text_poke_bp()'s int3 on x86, the patched
# branch on ppc64 and arm64) while another vCPU patches it can go on
# running its stale translation after the patching is done: seen as a
# soft lockup at handle_mm_fault+0x0 on x86_64, "Return address not
# found" in rethook on 7.x ppc64le and a hook that missed its self-test
# on 6.12 ppc64le, each while hooks were toggled under load.  Real CPUs
# and KVM follow the cross-modifying-code protocol; TCG's cross-vCPU
# invalidation does not cover a translation already running.  Those were
# seen with a host thread per vCPU; tests/vm/vng.sh and the matrix's
# boot.sh now run every vCPU in one thread (MMT_TCG_THREAD=multi brings
# the threads back), where the hazard should not arise; these suites keep
# one CPU for their toggles all the same, for runs with threads.
TCG_OFFLINE=""
tcg_one_cpu() {
	local c
	[ "${MMT_TCG:-0}" = 1 ] || return 0
	for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
		[ -f "$c" ] && [ "$(cat "$c")" = 1 ] && echo 0 > "$c" &&
			TCG_OFFLINE="$TCG_OFFLINE $c"
	done
	echo "# TCG guest: one CPU online (tests/vm/lib.sh tcg_one_cpu)"
}
tcg_all_cpus() {
	local c
	for c in $TCG_OFFLINE; do echo 1 > "$c"; done
	TCG_OFFLINE=""
}

# --- the runners (tests/vm/guest.sh under vng, tests/matrix/init.sh in the
# matrix's busybox guests)

# run_suite NAME CMD...: CMD (the suite under a timeout) as the KTAP
# document NAME: its results renumbered in order (ktap_relay), then one
# more failure for a timeout, a suite that ran no check, or one that
# failed without saying which check (a suite that exits 4 with no check
# is skipped), its time, the plan and the totals. mmtune left loaded is
# unloaded.
run_suite() {
	_name=$1; shift
	: > /var/tmp/mmt-suite.rc
	suite_watchdog "$_name" &
	_wd=$!
	{ "$@" 2>&1; echo $? > /var/tmp/mmt-suite.rc; } | suite_document "$_name" "$(date +%s)"
	kill "$_wd" 2>/dev/null
	wait "$_wd" 2>/dev/null
	if [ -d /sys/module/mmtune ]; then
		echo "# $_name left mmtune loaded: unloading"
		rmmod mmtune 2>&1 | sed 's/^/# /'
	fi
}
# suite_watchdog NAME: a suite stuck in the kernel (a task in D state, a
# CPU spinning in kernel mode) outlives timeout(1)'s SIGKILL, and the guest
# would sit silent until the host's VM timeout (45 min in make check).
# 70 s past the suite's timeout (60 s past timeout's SIGKILL) this says
# so as a KTAP failure, has the kernel dump its blocked tasks and every
# CPU's stack (sysrq w, l), prints the log's last 200 lines as
# "# stuck| " and powers the guest off: the run fails in minutes, with
# the stacks in its output.  It sleeps in 5 s steps: a "sleep N" of its
# own must not look like one a suite checks for (t-45-tune's
# "^sleep 100").  Only where MMT_TCG=1 says this is one of the test
# guests (tests/vm/vng.sh, tests/matrix/init.sh).
suite_watchdog() {
	[ "${MMT_TCG:-0}" = 1 ] || return 0	# in a test guest only, never a host
	_end=$(( $(date +%s) + ${MMT_TEST_TIMEOUT:-600} + 10 + 60 ))
	while [ "$(date +%s)" -lt "$_end" ]; do sleep 5; done
	echo "not ok 999 $1: still running 70 s past its timeout (60 s past its SIGKILL): stuck"
	echo w > /proc/sysrq-trigger
	echo l > /proc/sysrq-trigger
	sleep 5
	dmesg | tail -n 200 | sed 's/^/# stuck| /'
	echo "# $1: the guest is powered off (sysrq o)"
	sleep 1
	echo o > /proc/sysrq-trigger
}
suite_document() {
	ktap_begin "$1"
	ktap_relay
	read -r _rc < /var/tmp/mmt-suite.rc
	case ${_rc:-137} in
	124|137|143) fail "$1: timed out after ${MMT_TEST_TIMEOUT:-600}s" ;;
	*)	if [ "$KTAP_TESTNO" = 1 ]; then
			if [ "$_rc" = 4 ]; then skip "$1" "the suite cannot run here"
			else fail "$1: ran no check (exit status $_rc)"; fi
		elif [ "$_rc" != 0 ] && [ "$KTAP_CNT_FAIL" = 0 ]; then
			fail "$1: exit status $_rc"
		fi ;;
	esac
	echo "# $1: $(( $(date +%s) - $2 ))s"
	ktap_end
}

# dmesg_verdict MARK: the kernel log since MARK (all of it if MARK scrolled
# away) has no WARNING, BUG, Oops, call trace or GPF: the document "dmesg";
# then the log, as "dmesg| " lines.
dmesg_verdict() {
	dmesg > /var/tmp/mmt-dmesg.all
	if grep -qF "$1" /var/tmp/mmt-dmesg.all; then
		awk -v m="$1" 'on; index($0, m) { on = 1 }' /var/tmp/mmt-dmesg.all > /var/tmp/mmt-dmesg
	else
		cp /var/tmp/mmt-dmesg.all /var/tmp/mmt-dmesg
	fi
	_bad=$(grep -E '\bWARNING\b|\bBUG\b|Oops|Call Trace|general protection' /var/tmp/mmt-dmesg | head -n 1)
	ktap_begin dmesg
	if [ -z "$_bad" ]; then ok "dmesg clean"; else fail "dmesg clean: $_bad"; fi
	ktap_end
	sed 's/^/dmesg| /' /var/tmp/mmt-dmesg
}
