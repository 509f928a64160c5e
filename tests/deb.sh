#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/deb.sh (make check-deb): the Debian packages as a fleet gets them.
#
#  1. make deb; lintian (no error, no warning); what each package holds.
#  2. dkms.conf's BUILD_EXCLUSIVE guards (tests/dkms-guards.sh).
#  3. Under /run/lock/mmtune-dkms.lock (make check's DKMS lock), from
#     leftovers removed to purge: apt-get install of both packages (DKMS
#     builds, and signs if it has a key, for tests/kver.sh's kernel),
#     systemd-analyze verify, then a VM (tests/vm/deb-guest.sh) loads the
#     packaged module and runs the boot-time files; apt-get purge leaves
#     nothing behind.
# Prints KTAP documents (tests/lib.sh): its own ("check-deb: packages",
# "check-deb: install", "check-deb: vm and purge"), tests/dkms-guards.sh's
# (step 2) and the guest's (deb-guest, dmesg); ends with the sum of all
# their results, "N passed, N failed"; exit 1 on a failure.
# Needs root, dpkg-dev, debhelper, dh-dkms, lintian (tests/deps/deb.txt).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
TOP=$PWD
. "$TOP/tests/lib.sh"
KTAP_T0=$(date +%s)
logs=()	# the logs of the guards' and the guest's documents
t0=0
phase() { echo "# time: $1 $((SECONDS - t0)) s"; t0=$SECONDS; }

ktap_begin "check-deb: packages"
KVER=$(tests/kver.sh) || { fail "setup: no 6.1 kernel with headers (tests/kver.sh)"; ktap_exit; }
VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
DEB=$TOP/build/deb
W=$(mktemp -d /var/tmp/mmtune-deb.XXXXXX)
LOCK=/run/lock/mmtune-dkms.lock
installed=0
policy=0	# /etc/mmtune/policy is ours to remove

# ---- 1. build and lint
if make deb > "$W/deb.log" 2>&1; then
	ok "make deb"
else
	fail "make deb: $(tail -n 1 "$W/deb.log")"; ktap_exit
fi
DKMS_DEB=$DEB/mmtune-dkms_${VER}_all.deb
tools_debs=("$DEB"/mmtune-tools_"${VER}"_*.deb)
TOOLS_DEB=${tools_debs[0]}
check "both packages built" test -f "$DKMS_DEB" -a -f "$TOOLS_DEB"
if lintian --fail-on error,warning "$DEB"/mmtune_"${VER}"_*.changes > "$W/lintian.log" 2>&1; then
	ok "lintian: no error, no warning ($(grep -c '^[IPX]:' "$W/lintian.log") info/pedantic tags)"
else
	fail "lintian: $(grep -m 1 '^[EW]:' "$W/lintian.log")"
fi
sed 's/^/# lintian: /' "$W/lintian.log"
phase "make deb and lintian"

# /usr/src/mmtune-VER holds make dkms-src's files, nothing else
make -s dkms-src DKMS_SRC="$W/dkms-src" > /dev/null
(cd "$W/dkms-src" && find . -type f | sed 's|^\./||' | sort) > "$W/want"
dpkg -c "$DKMS_DEB" | awk '$1 !~ /^d/ {print $6}' | sed -n "s|^\./usr/src/mmtune-$VER/||p" | sort > "$W/got"
if cmp -s "$W/want" "$W/got" && [ -s "$W/got" ]; then
	ok "mmtune-dkms: /usr/src/mmtune-$VER holds the module's sources alone ($(wc -l < "$W/got") files)"
else
	fail "mmtune-dkms: /usr/src/mmtune-$VER differs from make dkms-src: $(diff "$W/want" "$W/got" | head -n 3 | tr '\n' ' ')"
fi
dpkg -c "$DKMS_DEB" | awk '$1 !~ /^d/ {print $6}' | grep -v -e "^\./usr/src/mmtune-$VER/" -e '^\./usr/share/doc/mmtune-dkms/' > "$W/other"
check "mmtune-dkms: nothing outside /usr/src and its doc" test ! -s "$W/other"
dpkg -c "$TOOLS_DEB" | awk '{print $6}' > "$W/tools"
for f in usr/sbin/mmtunectl usr/bin/mmstress usr/share/man/man8/mmtunectl.8.gz \
	usr/share/man/man1/mmstress.1.gz usr/share/bash-completion/completions/mmtunectl \
	usr/share/bash-completion/completions/mmstress \
	lib/systemd/system/mmtune.service etc/modprobe.d/mmtune.conf etc/modules-load.d/mmtune.conf; do
	grep -qx "\./$f" "$W/tools" || fail "mmtune-tools: no /$f"
done
ok "mmtune-tools: tools, man pages, completion, unit and /etc examples"

ktap_end

# ---- 2. BUILD_EXCLUSIVE guards (private DKMS tree: no machine state):
# their document, counted at the end
tests/dkms-guards.sh > "$W/guards.log" 2>&1
grc=$?
ktap_show "$W/guards.log"
logs+=("$W/guards.log")
phase "BUILD_EXCLUSIVE guards"

# ---- 3. install, VM, purge: the machine's DKMS state, under make check's lock
# shellcheck disable=SC2317 # called through trap
cleanup() {
	[ "$installed" = 1 ] && DEBIAN_FRONTEND=noninteractive apt-get purge -y mmtune-dkms mmtune-tools > /dev/null 2>&1
	[ "$policy" = 1 ] && { rm -f /etc/mmtune/policy; rmdir /etc/mmtune 2>/dev/null; }
	rm -rf "$W"
}
trap cleanup EXIT
ktap_begin "check-deb: install"
[ $grc = 0 ] || grep -q '^not ok ' "$W/guards.log" ||
	fail "dkms-guards: tests/dkms-guards.sh exit status $grc without a failed check"
exec 9> "$LOCK"
flock -w 1200 9 || { fail "dkms lock $LOCK busy for 20 min"; ktap_exit "${logs[@]}"; }

# make check's registration (it re-adds its own) and any earlier run's
for p in mmtune-dkms mmtune-tools; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'installed\|config-files' &&
		DEBIAN_FRONTEND=noninteractive apt-get purge -y "$p" > /dev/null 2>&1
done
for v in $(dkms status -m mmtune 2>/dev/null | sed -n 's|^mmtune[/,] *\([^,:/ ]*\).*|\1|p' | sort -u); do
	dkms remove "mmtune/$v" --all > /dev/null 2>&1
done
for d in /usr/src/mmtune-*; do
	[ -e "$d" ] && ! dpkg -S "$d" > /dev/null 2>&1 && rm -rf "$d"
done
rm -f /lib/modules/*/updates/dkms/mmtune.ko*
check "no mmtune in DKMS before install" test -z "$(dkms status -m mmtune 2>/dev/null)"
phase "lock and leftovers"
if [ -e /etc/mmtune ]; then
	fail "/etc/mmtune exists before install: not touching it"; ktap_exit "${logs[@]}"
fi

installed=1
if DEBIAN_FRONTEND=noninteractive apt-get install -y -t bookworm --no-install-recommends \
	"$DKMS_DEB" "$TOOLS_DEB" > "$W/install.log" 2>&1; then
	ok "apt-get install mmtune-dkms mmtune-tools"
else
	fail "apt-get install: $(tail -n 1 "$W/install.log")"
	sed 's/^/# install: /' "$W/install.log" | tail -n 30
fi
st=$(dkms status -m mmtune -k "$KVER" 2>&1)
case $st in
*"$VER"*"$KVER"*installed*) ok "dkms status: $st" ;;
*) fail "dkms status for $KVER: '$st'" ;;
esac
check "/lib/modules/$KVER/updates/dkms/mmtune.ko" test -f "/lib/modules/$KVER/updates/dkms/mmtune.ko"
if [ -f /var/lib/dkms/mok.key ]; then
	signer=$(modinfo -k "$KVER" -F signer mmtune 2>/dev/null)
	check "signed with DKMS's MOK key (signer: ${signer:-none})" test -n "$signer"
else
	echo "# no /var/lib/dkms/mok.key: this dkms does not sign"
fi
if out=$(systemd-analyze verify /lib/systemd/system/mmtune.service 2>&1) && [ -z "$out" ]; then
	ok "systemd-analyze verify mmtune.service: clean"
else
	fail "systemd-analyze verify mmtune.service: $(echo "$out" | head -n 1)"
fi

phase "apt-get install (DKMS build) and checks"

ktap_end

# the policy mmtune.service applies (the guest sees this /etc)
policy=1
mkdir -p /etc/mmtune
printf '# written by tests/deb.sh\ncomm=mmtune-deb-t order=2\n' > /etc/mmtune/policy
MMT_DEB_VERSION=$VER tests/vm/vng.sh --timeout 600 -- tests/vm/guest.sh deb-guest > "$W/vm.log" 2>&1
vrc=$?
ktap_show "$W/vm.log"
logs+=("$W/vm.log")
ktap_begin "check-deb: vm and purge"
grep -q '^mmtune-guest-done' "$W/vm.log" || { fail "vm: no end (rc $vrc)"; tail -n 20 "$W/vm.log" | sed 's/^/# vm: /'; }

phase "VM"
if DEBIAN_FRONTEND=noninteractive apt-get purge -y mmtune-dkms mmtune-tools > "$W/purge.log" 2>&1; then
	ok "apt-get purge mmtune-dkms mmtune-tools"
	installed=0
else
	fail "apt-get purge: $(tail -n 1 "$W/purge.log")"
fi
check "dkms status: no mmtune" test -z "$(dkms status -m mmtune 2>&1)"
left=$(ls -d /usr/src/mmtune* /lib/modules/*/updates/dkms/mmtune* /var/lib/dkms/mmtune \
	/etc/mmtune /etc/modprobe.d/mmtune.conf /etc/modules-load.d/mmtune.conf \
	/lib/systemd/system/mmtune.service /etc/systemd/system/*/mmtune.service 2>/dev/null)
check "purge leaves nothing (${left:-no files})" test -z "$left"
phase "purge and checks"
flock -u 9
ktap_exit "${logs[@]}"
