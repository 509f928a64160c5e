#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/matrix/initramfs.sh CELL: the cell's initramfs (after build.sh):
# static busybox of the arch, /dev/console, tests/matrix/init.sh as /init,
# bookworm's own /bin/sh (dash) and the GNU tools the suites were written
# against, of the arch (tests/matrix/userland.sh: `env printf` reporting a
# write's errno, getconf, perl; busybox's sh would run its own applets even
# where a GNU binary is installed), busybox filling in every other command,
# the tests (tests/lib.sh, tests/vm/lib.sh and the suites in $MMT_MATRIX_TESTS, default
# every tests/vm/t-*.sh but t-00-boot, which checks the vng rig, and those
# with a "# requires: ..." line; a name with a slash is a path), the static userspace
# tools in /mmtune/userspace, the module
# at /mmtune/module/mmtune.ko and installed as
# /lib/modules/<kver>/updates/mmtune.ko (depmod'ed, for `modprobe mmtune`),
# the static faultprobe, kcoreprobe, policyflip and stallprobe, and a mountpoint(1) (neither busybox
# nor the above has it).
# No kernel module of Debian's is needed: debugfs, tmpfs, kprobes and the
# serial console are built in on every flavour.
# Env: MMT_INITRAMFS, the file to write (default the cell's initramfs.gz; a
# name not ending in .gz is an uncompressed cpio), and MMT_MATRIX_ROOTFS, a
# tree to copy in instead of userland.sh's (make check-trace: the tracing
# tools' user land, tests/matrix/rootfs-bpftrace.sh); MMT_MATRIX_FILES, more files
# of the tree ("SRC[:DST]", DST relative to /mmtune) and MMT_MATRIX_ENV,
# more VAR=VALUE lines (one a line) the guest's suites get in their
# environment (bench/cell.sh).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cell=${1:?usage: initramfs.sh CELL}
out=$MX/cells/$cell
. "$out/cell.env"
. "$out/build.env"

dst=${MMT_INITRAMFS:-$out/initramfs.gz}
r=$dst.d
rm -rf "$r"
mkdir -p "$r"/{bin,dev,proc,sys,tmp,var/tmp,mmtune/module,mmtune/tests/vm}
cp "$BUSYBOX" "$r/bin/busybox"
cp "$PROBE" "$r/bin/faultprobe"
cp "$KCORE" "$r/bin/kcoreprobe"
cp "$FLIP" "$r/bin/policyflip"
cp "$STALL" "$r/bin/stallprobe"
mknod -m 600 "$r/dev/console" c 5 1
mknod -m 666 "$r/dev/null" c 1 3
cp "$MMT_TOP/tests/matrix/init.sh" "$r/init"
chmod 755 "$r/init"
cp -a "${MMT_MATRIX_ROOTFS:-$("$(dirname "$0")/userland.sh" "$DEB_ARCH")}/." "$r/"
cat > "$r/bin/mountpoint" <<'EOT'
#!/bin/sh
# mountpoint [-q] DIR: busybox's Debian build lacks it.
q=0; [ "$1" = -q ] && { q=1; shift; }
d=$(cd "$1" 2>/dev/null && pwd -P) || { [ $q = 1 ] || echo "mountpoint: $1: No such file or directory" >&2; exit 1; }
if awk -v d="$d" '$2 == d { f = 1 } END { exit !f }' /proc/mounts; then
	[ $q = 1 ] || echo "$1 is a mountpoint"; exit 0
fi
[ $q = 1 ] || echo "$1 is not a mountpoint"; exit 32
EOT
chmod 755 "$r/bin/mountpoint"
cp "$out/mmtune.ko" "$r/mmtune/module/"
mkdir -p "$r/mmtune/userspace"
cp "$TOOLS/mmtunectl" "$TOOLS/mmstress" "$r/mmtune/userspace/"
cp "$MMT_TOP/tests/lib.sh" "$r/mmtune/tests/"
# light cell or full (tests/check-matrix.sh, MMT_MATRIX_FULL)
echo "MMT_LIGHT=${MMT_MATRIX_LIGHT:-0}" > "$r/mmtune/tests/env"
# more settings, one VAR=VALUE a line, exported to the suites
while IFS= read -r l; do
	[ -n "$l" ] && printf 'export %s=%q\n' "${l%%=*}" "${l#*=}"
done <<< "${MMT_MATRIX_ENV:-}" >> "$r/mmtune/tests/env"
# more files: SRC[:DST], DST under /mmtune (default SRC's path in the tree)
for f in ${MMT_MATRIX_FILES:-}; do
	s=${f%%:*} d=${f#*:}
	[ "$d" = "$f" ] && d=$s
	case $s in /*) ;; *) s=$MMT_TOP/$s ;; esac
	mkdir -p "$r/mmtune/$(dirname "$d")"
	cp "$s" "$r/mmtune/$d"
done
cp "$MMT_TOP/tests/vm/lib.sh" "$r/mmtune/tests/vm/"
# the BPF examples t-72-bpf loads (make bpf-examples: both byte orders)
if ls "$MMT_TOP"/examples/bpf/*.o > /dev/null 2>&1; then
	mkdir -p "$r/mmtune/examples/bpf"
	cp "$MMT_TOP"/examples/bpf/*.o "$r/mmtune/examples/bpf/"
fi
tests=${MMT_MATRIX_TESTS:-}
if [ -z "$tests" ]; then
	for t in "$MMT_TOP"/tests/vm/t-*.sh; do
		n=$(basename "$t" .sh)
		[ "$n" = t-00-boot ] && continue
		# a suite that cannot run without a program the busybox guest
		# lacks (python3, sqlite3) says so in a "# requires: ..." line
		grep -q '^# requires:' "$t" && continue
		tests="$tests $n"
	done
fi
# t-9N suites change the boot for good (lockdown): last, as in guest.sh
tests="$(for n in $tests; do case ${n##*/} in t-9[0-9]-*) ;; *) echo "$n" ;; esac; done)
$(for n in $tests; do case ${n##*/} in t-9[0-9]-*) echo "$n" ;; esac; done)"
for n in $tests; do
	f=$n
	case $f in */*) ;; *) f=$MMT_TOP/tests/vm/${n%.sh}.sh ;; esac
	[ -f "$f" ] || mdie "no test $f"
	cp "$f" "$r/mmtune/tests/vm/"
	basename "$f" .sh
done > "$r/mmtune/tests/list"
[ -d "$MMT_TOP/tests/vm/probe" ] && cp -r "$MMT_TOP/tests/vm/probe" "$r/mmtune/tests/vm/"
# t-52-livepatch's test livepatch, where build.sh made one
if [ -f "$out/mmt_lp.ko" ]; then
	mkdir -p "$r/mmtune/tests/vm/livepatch"
	cp "$out/mmt_lp.ko" "$r/mmtune/tests/vm/livepatch/"
fi
m=$r/lib/modules/$KVER
mkdir -p "$m/updates"
cp "$out/mmtune.ko" "$m/updates/"
for f in modules.builtin modules.builtin.modinfo modules.order; do
	[ -f "$MODULES/$f" ] && cp "$MODULES/$f" "$m/"
done
depmod -b "$r" "$KVER" 2>>"$out/build.log"
case $dst in *.gz) z=(gzip -1) ;; *) z=(cat) ;; esac
(cd "$r" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | "${z[@]}" > "$dst"
rm -rf "$r"
