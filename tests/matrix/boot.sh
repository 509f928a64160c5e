#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/matrix/boot.sh CELL: boot the cell's kernel with its initramfs under
# TCG (no KVM), print the guest's console on stdout (CRs stripped) and exit 0
# if the guest reached its sentinel "mmtune-guest-done", 124 on timeout
# ($MMT_BOOT_TIMEOUT, default 900 s; 1800 s for s390x and riscv64, whose
# TCG runs every suite 2-4 times slower: a full riscv64 cell ran past 900 s
# on a loaded 2-core host), 1 otherwise (panic, no sentinel).
#   x86_64   qemu-system-x86_64 -M q35, console ttyS0; -cpu $MMT_X86_CPU,
#            default qemu64 as with vng (with -cpu max, QEMU 7.2's TCG, 6.1
#            soft-locked up in t-20-stats' hook toggles, both CPUs spinning
#            on do_set_pte's patched ftrace call)
#   arm64    qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on, ttyAMA0
#            (pauth-impdef: QARMA pointer auth is very slow under TCG)
#   ppc64le  qemu-system-ppc64 -M pseries with x-vof (no SLOF) and the
#            spectre caps TCG cannot provide set off, console hvc0; the
#            MMU is radix (POWER10 default cpu); -hash cells (or
#            $MMT_PPC_MMU=hash) boot with disable_radix
#   s390x    qemu-system-s390x -M s390-ccw-virtio -cpu max (z/Architecture,
#            big-endian), console ttysclp0 (the SCLP line console QEMU
#            puts on -serial)
#   riscv64  qemu-system-riscv64 -M virt -cpu rv64, OpenSBI of
#            qemu-system-data as the firmware (-bios default), console
#            ttyS0; the kernel picks the widest paging mode the cpu has
# Env: MMT_BOOT_INITRD, MMT_BOOT_LOG: another initramfs than the cell's
# initramfs.gz, another console log than its console.log (make check-trace);
# MMT_QEMU_ARGS: more qemu arguments, split at spaces (bench/cell.sh:
# -icount and the TCG plugin); MMT_VM_CPUS, MMT_VM_MEMORY (MiB);
# MMT_TCG_THREAD: single or multi (a host thread per vCPU; the default
# is single but on riscv64, see below).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cell=${1:?usage: boot.sh CELL}
out=$MX/cells/$cell
. "$out/cell.env"
mem=${MMT_VM_MEMORY:-1024}
# 16 KiB pages: the suites' files of N pages are 4 times as large
case $cell in *-16k) mem=${MMT_VM_MEMORY:-2048} ;; esac
smp=${MMT_VM_CPUS:-2}
# loglevel=5: the console shows warnings, oopses and their traces, not the
# info chatter; a soft lockup panics (the VM stops at once, with the trace).
append="panic=-1 loglevel=5 softlockup_panic=1 ${MMT_APPEND:-}"
case $BASE_ARCH in
x86_64)
	q=(qemu-system-x86_64 -M q35 -cpu "${MMT_X86_CPU:-qemu64}")
	append="console=ttyS0 $append" ;;
arm64)
	q=(qemu-system-aarch64 -M virt -cpu "max,pauth-impdef=on")
	append="console=ttyAMA0 $append" ;;
ppc64le)
	q=(qemu-system-ppc64 -M "pseries,x-vof=on,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off")
	append="console=hvc0 $append"
	[ "${MMU:-}" = hash ] || [ "${MMT_PPC_MMU:-}" = hash ] &&
		append="$append disable_radix" ;;
s390x)
	q=(qemu-system-s390x -M s390-ccw-virtio -cpu max)
	append="console=ttysclp0 $append" ;;
riscv64)
	q=(qemu-system-riscv64 -M virt -cpu rv64 -bios default)
	append="console=ttyS0 $append" ;;
esac
# Single-threaded TCG, as in tests/vm/vng.sh (whose comment says why): a
# vCPU of its own thread can keep running text another one patched live
# (x86's text_poke_bp(), ppc64's and s390x's patching, arm64's ftrace).
# In .ci/run of 2026-12-03 the arm64, s390x, x86_64 and radix ppc64le
# cells took 0.74-1.04 times their time with threads so.  stop_machine()
# crawls on one thread (presumably each CPU spins out its round-robin
# turn waiting for the other), which two kinds of cell meet:
# - riscv64 keeps a thread per vCPU: its cells took 1604 s (6.12) and
#   1268 s (7.x) on one thread, against 484 s and 280 s, most of it in
#   t-10-knob and t-44-value; its 6.12 patches ftrace and kprobe sites
#   inside stop_machine(), where the hazard cannot arise.
# - ppc64le's hash MMU boots with one CPU: on one thread its 6.1 boot
#   stalled in a stop_machine() (multi_cpu_stop) 25 s in, a hard then a
#   soft lockup, killed at 900 s; with a thread per vCPU its t-44-value
#   once found the module gone between two checks of a section that
#   unloads nothing, which no other cell or run did.
#   The radix cells keep ppc64le's SMP coverage; the hash cell is there
#   for the hash MMU's page tables.
tcg=single
case $BASE_ARCH/${MMU:-}/${MMT_PPC_MMU:-} in
riscv64/*) tcg=multi ;;
ppc64le/hash/*|ppc64le/*/hash) smp=${MMT_VM_CPUS:-1} ;;
esac
# -icount (bench/cell.sh) takes one thread: "No MTTCG when icount is
# enabled", QEMU says otherwise
case " ${MMT_QEMU_ARGS:-} " in *" -icount "*) tcg=single ;; esac
q+=(-accel "tcg,thread=${MMT_TCG_THREAD:-$tcg}")
# shellcheck disable=SC2206 # MMT_QEMU_ARGS: more qemu arguments, split at spaces
q+=(${MMT_QEMU_ARGS:-})
q+=(-m "$mem" -smp "$smp" -display none -monitor none -serial stdio -no-reboot
    -kernel "$IMAGE" -initrd "${MMT_BOOT_INITRD:-$out/initramfs.gz}" -append "$append")
echo "# ${q[*]}" >&2
case $BASE_ARCH in s390x|riscv64) tmo=${MMT_BOOT_TIMEOUT:-1800} ;; *) tmo=${MMT_BOOT_TIMEOUT:-900} ;; esac
rc=0
log=${MMT_BOOT_LOG:-$out/console.log}
# pipefail: rc is timeout's status (124 when it killed the VM); reading
# PIPESTATUS after `|| rc=$?` gave the assignment's 0, and a VM killed at
# the timeout was reported as crashed.
timeout -k 10 "$tmo" "${q[@]}" </dev/null 2>&1 | tr -d '\r' > "$log" || rc=$?
cat "$log"
if [ "$rc" = 124 ]; then
	echo "boot.sh: $cell: VM killed after ${tmo}s" >&2
	exit 124
fi
grep -q '^mmtune-guest-done' "$log" || exit 1
