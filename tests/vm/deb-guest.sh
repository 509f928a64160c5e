#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/vm/deb-guest.sh: the guest half of tests/deb.sh (not a t-* suite:
# it needs the mmtune-dkms and mmtune-tools packages installed on the host,
# whose root the guest sees read-only). Checks that the packaged module and
# tools work and that the boot-time files the package ships do what they
# say, run the way the boot runs them: the guest's /etc is the host's
# (read-only), so the commented examples are uncommented into copies.
# shellcheck source=tests/vm/lib.sh
. "$MMT_TOP/tests/vm/lib.sh"

UNIT=/lib/systemd/system/mmtune.service
W=/var/tmp/mmtune-deb
mkdir -p "$W/modprobe.d" /run/modules-load.d
rmmod mmtune 2>/dev/null

path=$(modinfo -n mmtune 2>&1)
case $path in
*/lib/modules/"$(uname -r)"/updates/dkms/mmtune.ko*) ok "modinfo: the packaged module ($path)" ;;
*) fail "modinfo: not the packaged module: $path" ;;
esac
check "modprobe mmtune (the DKMS build)" modprobe mmtune
check "/usr/sbin/mmtunectl status" /usr/sbin/mmtunectl status
ver=$(/usr/sbin/mmtunectl --version 2>&1)
expect_eq "mmtunectl --version is the package's" "$ver" "mmtunectl ${MMT_DEB_VERSION:-?}"
dflt=$(cat /sys/module/mmtune/parameters/fault_around_order 2>&1)
rmmod mmtune

# /etc/modprobe.d/mmtune.conf, its example uncommented: modprobe applies it
sed 's/^# *options /options /' /etc/modprobe.d/mmtune.conf > "$W/modprobe.d/mmtune.conf"
opt=$(grep '^options mmtune' "$W/modprobe.d/mmtune.conf")
want=${opt##*fault_around_order=}
if [ -n "$opt" ] && modprobe -C "$W/modprobe.d" --showconfig | grep -qx "$opt"; then
	ok "modprobe.d example, uncommented: modprobe --showconfig has '$opt'"
else
	fail "modprobe.d example, uncommented: no 'options mmtune' in modprobe --showconfig"
fi
check "modprobe -C (the uncommented example) mmtune" modprobe -C "$W/modprobe.d" mmtune
if [ "$dflt" = "$want" ]; then
	fail "the example's order $want is this kernel's default: it proves nothing here"
else
	expect_eq "fault_around_order from the modprobe.d example (default $dflt)" \
		"$(cat /sys/module/mmtune/parameters/fault_around_order 2>&1)" "$want"
fi
rmmod mmtune

# /etc/modules-load.d/mmtune.conf uncommented, as systemd-modules-load reads
# it (under another name: /etc's mmtune.conf would mask /run's)
sed 's/^# *mmtune$/mmtune/' /etc/modules-load.d/mmtune.conf > /run/modules-load.d/mmtune-example.conf
check "systemd-modules-load with the modules-load.d example uncommented" \
	/lib/systemd/systemd-modules-load
check "systemd-modules-load loaded mmtune" test -d /sys/module/mmtune
rm -f /run/modules-load.d/mmtune-example.conf
rmmod mmtune 2>/dev/null

# mmtune.service's commands, in its order, with /etc/mmtune/policy
# (tests/deb.sh wrote it on the host): no systemd as PID 1 here
unit_cmds() { sed -n "s/^$1=-\{0,1\}//p" "$UNIT"; }
rule=$(grep -v '^#' /etc/mmtune/policy | head -n 1)	# "comm=NAME order=N"
# policy show: "rules: N of M ..." then "#  rule  order  hits  pages" rows
# `policy show` prints "# rules N of MAX, ..." and then one writable line a
# rule: "comm=NAME order=K   # hits pages"
has_rule() { /usr/sbin/mmtunectl policy show | awk -v m="${rule% order=*}" -v o="order=${rule##*order=}" \
	'$1 == m && $2 == o { f = 1 } END { exit !f }'; }
nrules() { /usr/sbin/mmtunectl policy show | sed -n 's/^# rules \([0-9]*\) of.*/\1/p'; }
for c in ExecStartPre ExecStart; do
	cmd=$(unit_cmds $c)
	# shellcheck disable=SC2086 # the unit's command line, split as systemd does
	check "mmtune.service $c: $cmd" $cmd
done
if has_rule; then
	ok "mmtune.service start: the policy holds '$rule' ($(nrules) rule)"
else
	fail "mmtune.service start: '$rule' not in the policy: $(/usr/sbin/mmtunectl policy show 2>&1 | tr '\n' '|')"
fi
cmd=$(unit_cmds ExecStop)
# shellcheck disable=SC2086 # as above
check "mmtune.service ExecStop: $cmd" $cmd
expect_eq "mmtune.service stop: rules left" "$(nrules)" 0
rmmod mmtune

# Lockdown, which Debian's kernel enters when booted with Secure Boot
# (docs/admin-guide.md, "Secure Boot"): raised here at run time, one-way, this guest
# only. The module loaded before it stays; its parameter still works,
# read-only debugfs files stay readable, writable ones are refused, and a
# module signed by a key the kernel does not trust (DKMS's MOK key, not
# enrolled here) no longer loads.
modprobe mmtune
mountpoint -q /sys/kernel/security || mount -t securityfs none /sys/kernel/security
echo integrity > /sys/kernel/security/lockdown 2>/dev/null
check "lockdown=integrity raised" grep -q '\[integrity\]' /sys/kernel/security/lockdown
P=/sys/module/mmtune/parameters/fault_around_order
echo 2 > $P 2>/dev/null
expect_eq "lockdown: the module parameter still sets the order" "$(cat $P 2>&1)" 2
echo default > $P 2>/dev/null
for f in info latency; do check "lockdown: $MMT/$f (0400) readable" cat $MMT/$f; done
for f in policy stats fault_around_order; do
	if out=$(cat $MMT/$f 2>&1); then
		fail "lockdown: $MMT/$f (0600) still readable"
	else
		ok "lockdown: $MMT/$f (0600) refused (${out##*: })"
	fi
done
/usr/sbin/mmtunectl status > /dev/null 2>&1
echo "# mmtunectl status under lockdown: exit $?"
check "lockdown: rmmod mmtune" rmmod mmtune
if out=$(modprobe mmtune 2>&1); then
	fail "lockdown: the module, signed with a key the kernel does not trust, loaded"
	rmmod mmtune
else
	ok "lockdown: modprobe of the DKMS-signed module refused without its key enrolled (${out##*: })"
fi
