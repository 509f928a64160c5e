#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/vm/deb-guest.sh: the guest half of tests/deb.sh (not a t-* suite:
# it needs the mmtune-dkms and mmtune-tools packages installed on the host,
# whose root the guest sees read-only). Checks that the packaged module and
# tools work and that the boot-time files the package ships do what they
# say, run the way the boot runs them: the guest's /etc is the host's
# (read-only), so the commented examples are uncommented into copies.
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

# /etc/modules-load.d/mmtune.conf uncommented, as systemd-modules-load reads it
sed 's/^# *mmtune$/mmtune/' /etc/modules-load.d/mmtune.conf > /run/modules-load.d/mmtune.conf
check "systemd-modules-load with the modules-load.d example uncommented" \
	/lib/systemd/systemd-modules-load
check "... loaded mmtune" test -d /sys/module/mmtune
rm -f /run/modules-load.d/mmtune.conf
rmmod mmtune 2>/dev/null

# mmtune.service's commands, in its order, with /etc/mmtune/policy
# (tests/deb.sh wrote it on the host): no systemd as PID 1 here
unit_cmds() { sed -n "s/^$1=-\{0,1\}//p" "$UNIT"; }
rule=$(grep -v '^#' /etc/mmtune/policy | head -n 1)
for c in ExecStartPre ExecStart; do
	cmd=$(unit_cmds $c)
	check "mmtune.service $c: $cmd" $cmd
done
if /usr/sbin/mmtunectl policy show | grep -qF "$rule"; then
	ok "mmtune.service start: the policy holds '$rule'"
else
	fail "mmtune.service start: '$rule' not in the policy: $(/usr/sbin/mmtunectl policy show 2>&1 | head -n 3)"
fi
cmd=$(unit_cmds ExecStop)
check "mmtune.service ExecStop: $cmd" $cmd
if /usr/sbin/mmtunectl policy show | grep -qF "$rule"; then
	fail "mmtune.service stop: the policy still holds '$rule'"
else
	ok "mmtune.service stop: the policy is empty"
fi
rmmod mmtune
