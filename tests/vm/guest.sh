#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/vm/guest.sh [TEST...]: the in-VM test driver (runs INSIDE the guest,
# as root; see tests/vm/vng.sh).
#
# Mounts debugfs, marks the kernel log, runs each tests/vm/t-*.sh (all,
# sorted, or the ones named: "t-10-knob", "t-10-knob.sh" or "knob"; $MMT_TESTS is
# used when no argument is given) with MMT_TOP exported, then the final check
# "dmesg clean" (no WARNING, BUG, Oops, Call Trace or general protection
# fault since the mark), then prints the kernel log since the mark prefixed
# with "dmesg| ", and last the sentinel line "mmtune-guest-done".
#
# Each test's results become a KTAP document (run_suite in tests/vm/lib.sh):
# a test that exits non-zero without a "not ok" line, prints no check at
# all, or runs past $MMT_TEST_TIMEOUT seconds (default 600) gets a "not ok"
# line there. A test that leaves mmtune loaded gets it unloaded (and a "# "
# note).

MMT_TOP=$(cd "$(dirname "$0")/../.." && pwd)
export MMT_TOP
VM=$MMT_TOP/tests/vm
. "$VM/lib.sh"

mount_debugfs
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
echo "# guest: $(uname -r) $(nproc) cpus, $(awk '/MemTotal/ {print int($2/1024) " MiB"}' /proc/meminfo)"

mark="mmtune-guest: start $$.$RANDOM"
echo "$mark" > /dev/kmsg

[ $# -gt 0 ] || set -- ${MMT_TESTS:-}
tests=() missing=
if [ $# -eq 0 ]; then
	for t in "$VM"/t-*.sh; do [ -e "$t" ] && tests+=("$t"); done
else
	for n in "$@"; do
		for c in "$VM/$n" "$VM/$n.sh" "$VM/t-$n.sh" "$VM"/t-[0-9][0-9]-"$n".sh; do
			[ -f "$c" ] && { tests+=("$c"); continue 2; }
		done
		missing="$missing $n"
	done
fi
# t-9N suites change the boot for good (t-90-lockdown: lockdown cannot be
# lifted, and no unsigned module loads after it): after every other suite,
# whatever the order given or the glob's (t-9... sorts before t-m...).
last=() first=()
for t in "${tests[@]}"; do
	case $(basename "$t") in t-9[0-9]-*) last+=("$t") ;; *) first+=("$t") ;; esac
done
tests=("${first[@]}" "${last[@]}")
if [ -n "${missing:-}" ]; then
	ktap_begin guest
	for n in $missing; do fail "$n: no such test in tests/vm"; done
	ktap_end
fi

for t in "${tests[@]}"; do
	interp='sh'
	head -n 1 "$t" | grep -q bash && interp=bash
	run_suite "$(basename "$t" .sh)" timeout -k 10 "${MMT_TEST_TIMEOUT:-600}" "$interp" "$t"
done

dmesg_verdict "$mark"
echo mmtune-guest-done
