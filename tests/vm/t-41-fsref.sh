#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A file= rule pins its file system as an open file does: umount is EBUSY
# while the rule lives (a rule as written, one copied by an edit of the
# parameter, a deleted file's rule written back) and works once the rules
# are cleared (debugfs clear, mmtunectl policy clear); a lazy umount and
# a mount namespace going away keep the file system until the rule goes;
# rmmod with such a rule frees it.  On tmpfs, ext4 on a loop device and
# an overlayfs lower file.  The kernel's log says no "Busy inodes".
# Before the fix (the rule held the inode only) umount succeeded and the
# kernel reported "VFS: Busy inodes after unmount", then a BUG in umount.
. "$(dirname "$0")/lib.sh"

WORK=$(mktemp -d /var/tmp/mmt-fsref.XXXXXX)
PARAM=/sys/module/mmtune/parameters/policy
CTL=$MMT_TOP/userspace/mmtunectl
cleanup() {
	unload_module
	for m in "$WORK"/ov/m "$WORK"/ov/l "$WORK"/x "$WORK"/t; do
		umount "$m" 2>/dev/null
	done
	[ -n "${LOOP:-}" ] && losetup -d "$LOOP" 2>/dev/null
	umount "$WORK/i" 2>/dev/null
	rm -rf "$WORK"
}
on_exit cleanup
[ -x "$CTL" ] || { fail "no $CTL (make tools)"; exit 1; }

MARK="mmtune t-41-fsref $$ $(date +%s)"
echo "$MARK" > /dev/kmsg

unload_module
load_module || { fail "insmod"; exit 1; }

# pinned NAME DIR: umount DIR fails while a rule holds a file of it, and
# leaves it mounted
pinned() {
	if umount "$2" 2> "$WORK/err"; then
		fail "$1: umount succeeded under a file= rule"
		return 1
	fi
	mountpoint -q "$2" && ok "$1: umount refused ($(tail -n 1 "$WORK/err" | grep -o -i 'busy' | head -n 1))" ||
		fail "$1: umount failed, but $2 is not mounted: $(cat "$WORK/err")"
}
# unpinned NAME DIR: umount DIR works now
unpinned() {
	check "$1: umount works" umount "$2"
}

# --- 1. tmpfs: a rule as written, a rule copied by an edit, a deleted file
sect "1. tmpfs"
mkdir "$WORK/t"
mount -t tmpfs -o size=8m mmt-fsref "$WORK/t"
echo data > "$WORK/t/f"
echo data > "$WORK/t/g"
check "file= on tmpfs" pwrite "file=$WORK/t/f order=0"
pinned "tmpfs" "$WORK/t" || exit 1
check "debugfs clear" pwrite clear
unpinned "tmpfs, after debugfs clear" "$WORK/t"

mount -t tmpfs -o size=8m mmt-fsref "$WORK/t"
echo data > "$WORK/t/f"
echo data > "$WORK/t/g"
check "file= on tmpfs, then an edit of the parameter (the rule copied)" sh -c \
	"printf 'file=$WORK/t/f order=0' > $MMT/policy && echo 'add comm=mmt-none order=1' > $PARAM"
check "the added rule dropped: the copy stays" sh -c "echo 'del 2' > $PARAM"
expect_eq "the copy" "$(rules)" "file=$WORK/t/f order=0"
pinned "tmpfs, a copied rule" "$WORK/t" || exit 1
# a deleted file's rule written back: the kept rule's path is held too
check "file= of a file to delete" pwrite "file=$WORK/t/g order=1"
rm "$WORK/t/g"
check "the read written back (the path gone, the rule kept)" sh -c \
	"grep -v '^#' $MMT/policy > '$WORK/saved'; cat '$WORK/saved' > $MMT/policy"
expect_eq "kept" "$(rules)" "file=$WORK/t/g order=1"
pinned "tmpfs, a deleted file's rule written back" "$WORK/t" || exit 1
check "mmtunectl policy clear" "$CTL" policy clear
unpinned "tmpfs, after mmtunectl policy clear" "$WORK/t"

# a lazy umount detaches the mount; the file system lives until the rule
# goes (here, with the module: rmmod frees the rules), as with an open fd
mount -t tmpfs -o size=8m mmt-fsref "$WORK/t"
echo data > "$WORK/t/f"
check "file= on tmpfs, lazily unmounted" sh -c \
	"printf 'file=$WORK/t/f order=0' > $MMT/policy && umount -l '$WORK/t'"
expect_eq "the rule stays" "$(rules)" "file=$WORK/t/f order=0"
check "rmmod with the rule of a detached mount" rmmod mmtune
load_module || { fail "insmod"; exit 1; }

# --- 2. a mount namespace that goes away under the rule
sect "2. a mount namespace"
if unshare -m true 2>/dev/null; then
	# private: the mount must not propagate back to this namespace
	check "file= on a tmpfs of a mount namespace that then ends" unshare -m sh -c \
		"{ mount --make-rprivate / 2>/dev/null || true; } && mount -t tmpfs -o size=8m mmt-fsref-ns '$WORK/t' && echo data > '$WORK/t/f' &&
		 printf 'file=$WORK/t/f order=0' > $MMT/policy"
	expect_eq "the rule stays" "$(rules)" "file=$WORK/t/f order=0"
	check "debugfs clear (the namespace's mount freed)" pwrite clear
else
	skip "a mount namespace that goes away" "no unshare -m here"
fi

# --- 3. ext4 on a loop device
sect "3. ext4 on a loop device"
modprobe loop 2>/dev/null
modprobe ext4 2>/dev/null
mkdir "$WORK/x" "$WORK/i"
# the image on tmpfs: the guest's root may be 9p
mount -t tmpfs -o size=24m mmt-fsref-img "$WORK/i"
LOOP=
why=
if ! command -v mkfs.ext4 > /dev/null; then
	why="no mkfs.ext4 here"
elif ! grep -qw ext4 /proc/filesystems; then
	why="no ext4 in this kernel"
elif ! truncate -s 16M "$WORK/i/x.img" || ! mkfs.ext4 -q -F "$WORK/i/x.img" > /dev/null 2>&1; then
	why="mkfs.ext4 failed"
elif ! LOOP=$(losetup -f --show "$WORK/i/x.img" 2>/dev/null) || [ -z "$LOOP" ]; then
	why="no loop device here"
elif ! mount -t ext4 "$LOOP" "$WORK/x" 2>/dev/null; then
	why="mount ext4 on $LOOP failed"
fi
if [ -z "$why" ]; then
	echo data > "$WORK/x/f"
	check "file= on ext4" pwrite "file=$WORK/x/f order=0"
	pinned "ext4" "$WORK/x"
	check "mmtunectl policy clear" "$CTL" policy clear
	unpinned "ext4, after clear" "$WORK/x"
else
	skip "ext4 on a loop device" "$why"
fi
[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
LOOP=
umount "$WORK/i"

# --- 4. overlayfs: a file of the lower layer, named through the overlay
sect "4. overlayfs lower file"
modprobe overlay 2>/dev/null
O=$WORK/ov
mkdir -p "$O/l"
mount -t tmpfs -o size=8m mmt-fsref-lower "$O/l"
mkdir "$O/l/lower" "$O/l/upper" "$O/l/work" "$O/m"
echo data > "$O/l/lower/f"
if mount -t overlay mmt-fsref-ov -o "lowerdir=$O/l/lower,upperdir=$O/l/upper,workdir=$O/l/work" "$O/m" 2>/dev/null; then
	check "file= of a lower file through the overlay" pwrite "file=$O/m/f order=0"
	pinned "overlayfs" "$O/m"
	# the layers' mount goes, as under an open file of the overlay: the
	# overlay holds its layers (the real inode's super block) itself
	check "the layers' tmpfs unmounted (the overlay keeps it)" umount "$O/l"
	check "debugfs clear" pwrite clear
	unpinned "overlayfs, after clear (its layers' tmpfs freed)" "$O/m"
else
	skip "overlayfs lower file" "no overlayfs here ($(grep -c overlay /proc/filesystems) in /proc/filesystems)"
	umount "$O/l"
fi

# --- 5. rmmod, and the kernel's log
sect "5. rmmod, dmesg"
mount -t tmpfs -o size=8m mmt-fsref "$WORK/t"
echo data > "$WORK/t/f"
check "file= on tmpfs, then rmmod" pwrite "file=$WORK/t/f order=0"
check "rmmod" rmmod mmtune
unpinned "tmpfs, after rmmod" "$WORK/t"
dmesg | awk -v m="$MARK" 'on; index($0, m) { on = 1 }' > "$WORK/dmesg"
bad=$(grep -E 'Busy inodes|VFS:|BUG|WARNING' "$WORK/dmesg" | head -n 1)
[ -z "$bad" ] && ok "dmesg: no busy inodes, no BUG" || fail "dmesg: $bad"
