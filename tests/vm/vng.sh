#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/vm/vng.sh: the one VM launcher of mmtune's tests, benches and demos.
#
#   tests/vm/vng.sh [OPTIONS] -- CMD [ARG...]
#
# Boots a kernel with virtme-ng (extracted by tests/setup.sh into
# ${MMTUNE_CACHE:-/var/cache/mmtune}/virtme-ng/current) under TCG, runs CMD as
# root inside the guest, streams its stdout/stderr here and exits with CMD's
# exit status (124: timeout; 255: the guest died, e.g. a panic, without
# reporting a status).
#
# Options:
#   --kernel VMLINUZ  kernel image (default: $MMT_KERNEL, else the newest
#                     /boot/vmlinuz-6.1.*-amd64 with headers: tests/kver.sh).
#                     Its modules are the host's /lib/modules/<release>,
#                     dkms-installed ones included (depmod'ed on the host).
#   --memory M        guest memory, qemu syntax: 2G (default), 3072M, ...
#   --cpus N          guest CPUs (default 2)
#   --numa            two NUMA nodes, half the memory and one CPU each
#                     (vng: --memory 2G --numa 1G,cpus=0 --numa 1G,cpus=1)
#   --timeout S       kill the whole VM after S seconds (default 900)
#   --append ARG      extra kernel command line (repeatable)
#   --qemu-arg ARG    extra qemu arguments, split at spaces (repeatable;
#                     e.g. '-plugin /path/libinsncount.so,out=/tmp/x' for
#                     bench/insn.sh)
#   --tcg-threads T   single (default; $MMT_TCG_THREAD) or multi: TCG's
#                     vCPUs in one host thread, round-robin, or a thread
#                     each (see below)
#   --verbose         show the kernel's boot console on stderr
#
# Single-threaded TCG by default: with a host thread per vCPU, a vCPU that
# translates text while another vCPU patches it (ftrace's and kprobes'
# text_poke_bp() on the fault path, static keys) can keep the stale
# translation after the patching is done, which real CPUs and KVM do not:
# a CPU looping on an int3 that is no longer in memory, a writer waiting for
# it.  The storm of make check-debug wedged the guest after 3 cycles so,
# and make check's guest in CI once sat in a 2-byte write to a knob file
# until the 45-minute VM timeout.  One thread keeps the guest SMP (two
# CPUs, IPIs, preemption and lock contention between them) and its text
# coherent, and takes one host core, not two: with another guest beside it
# on this 2-core host, t-40-policy took 85 s so, 135-190 s with a thread
# per vCPU (2026-12-03).
#
# What the guest sees: the host's root filesystem read-only (9p), so the work
# tree (same path) and /lib/modules; /tmp is a writable overlay of the host's
# /tmp (writes stay in the guest), /var/tmp and /run are fresh tmpfs. The
# guest's cwd is the host's cwd. Always --disable-kvm: KVM does not work
# here. Stdin is /dev/null (vng needs an openable stdin; CI has none).
# Host variables are not seen in the guest, except MMT_* ones, which this
# script puts on CMD's command line (MMT_TESTS, MMT_TEST_TIMEOUT, ...).
set -euo pipefail

CACHE=${MMTUNE_CACHE:-/var/cache/mmtune}
VNG_DIR=$CACHE/virtme-ng/current
kernel=${MMT_KERNEL:-}
memory=2G
cpus=2
numa=0
tmo=900
threads=${MMT_TCG_THREAD:-single}
verbose=0
append=()
qemu=()

usage() { sed -n '4,30p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--memory) memory=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--numa) numa=1; shift ;;
	--timeout) tmo=$2; shift 2 ;;
	--append) append+=(--append "$2"); shift 2 ;;
	--qemu-arg) qemu+=("--qemu-opts=$2"); shift 2 ;;
	--tcg-threads) threads=$2; shift 2 ;;
	--verbose) verbose=1; shift ;;
	--) shift; break ;;
	-h|--help) usage ;;
	*) echo "vng.sh: unknown option $1" >&2; usage ;;
	esac
done
[ $# -gt 0 ] || usage
case $threads in
single|multi) ;;
*) echo "vng.sh: --tcg-threads: single or multi, not '$threads'" >&2; exit 2 ;;
esac

[ -x "$VNG_DIR/usr/bin/vng" ] || {
	echo "vng.sh: virtme-ng not found in $VNG_DIR: run tests/setup.sh" >&2; exit 1; }

if [ -z "$kernel" ]; then
	kver=$("$(dirname "$0")/../kver.sh" || true)
	kernel=/boot/vmlinuz-$kver
fi
[ -r "$kernel" ] || { echo "vng.sh: no kernel image '$kernel'" >&2; exit 1; }

# Memory in MiB (for splitting between NUMA nodes).
case $memory in
*[gG]) mem_mb=$(( ${memory%[gG]} * 1024 )) ;;
*[mM]) mem_mb=${memory%[mM]} ;;
*) mem_mb=$memory ;;
esac

numa_args=()
if [ $numa = 1 ]; then
	# The nodes must add up to --memory.
	[ "$cpus" -ge 2 ] || { echo "vng.sh: --numa needs --cpus >= 2" >&2; exit 2; }
	half=$((mem_mb / 2)); mem_mb=$((half * 2))
	last=$((cpus - 1)); mid=$((cpus / 2))
	c0=0; [ $mid -gt 1 ] && c0=0-$((mid - 1))
	c1=$mid; [ $last -gt $mid ] && c1=$mid-$last
	numa_args=(--numa "${half}M,cpus=$c0" --numa "${half}M,cpus=$c1")
fi
args=(--run "$kernel" --disable-kvm --cpus "$cpus" --memory "${mem_mb}M" --user root
	"${numa_args[@]}")
[ $verbose = 1 ] && args+=(--verbose)
args+=(--qemu-opts="-accel tcg,thread=$threads")
args+=("${append[@]}" "${qemu[@]}")

# The command, quoted for the guest's bash; MMT_* variables go along.
# MMT_TCG=1: the guest runs under TCG, always here (tests/vm/lib.sh tcg_one_cpu).
export MMT_TCG=1
cmd=$(printf '%q ' "$@")
fwd=$(env | grep -E '^MMT_[A-Za-z0-9_]*=' | cut -d= -f1 || true)
for v in $fwd; do cmd="$v=$(printf '%q' "${!v}") $cmd"; done

export PYTHONPATH=$VNG_DIR/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}
export PATH=$VNG_DIR/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin

# timeout(1) signals its whole process group: vng's python and its qemu child.
# stdout and stderr go through pipes (cat): qemu opens /proc/self/fd/1 and 2
# as "file" chardevs, which on a regular file would truncate it and write at
# offset 0 from several descriptors, garbling a redirected log.
set +e
timeout -k 15 "$tmo" /usr/bin/python3 "$VNG_DIR/usr/bin/vng" "${args[@]}" --exec "$cmd" \
	</dev/null 2> >(cat >&2) | cat
rc=${PIPESTATUS[0]}
set -e
[ $rc = 124 ] && echo "vng.sh: VM killed after ${tmo}s timeout" >&2
exit $rc
