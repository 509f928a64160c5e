#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# README's "Quick start: use it", run as written: every command of its
# indented blocks (but the install block: make check installed the
# module through DKMS before the VM, as the packages do; make check-vm
# puts the build tree's module where modprobe finds it), each must exit
# 0, and where README shows what a command prints, the output must have
# it: a one-line output exactly, a longer one the first word of each of
# its lines, but elided lines ("...") and figures (they differ per run).
# Skipped where README is not there (the matrix's initramfs: make check
# runs it) or modprobe cannot be shown the module.
. "$(dirname "$0")/lib.sh"

README=$MMT_TOP/README.md
WORK=$(mktemp -d /var/tmp/mmt-qs.XXXXXX)

KMOD=/lib/modules/$(uname -r)
MODS=$WORK/mods
OVERLAY=
on_exit 'unload_module; if [ -n "$OVERLAY" ]; then umount "$KMOD"; umount "$MODS"; fi; rm -rf "$WORK"'
unload_module
if [ ! -r "$README" ]; then
	echo "# no $README here (the matrix's initramfs has no documents): not run"
	exit 4
fi
# make check-vm installs nothing: the module of the build tree goes under
# the kernel's modules through an overlay on a tmpfs, removed at exit, so
# that modprobe finds it as it finds a DKMS install
mods_overlay() {
	modprobe -q overlay 2>/dev/null && [ -d "$KMOD" ] && mkdir -p "$MODS" &&
		mount -t tmpfs none "$MODS" || return 1
	mkdir "$MODS/up" "$MODS/wk" && mount -t overlay overlay \
		-o "lowerdir=$KMOD,upperdir=$MODS/up,workdir=$MODS/wk" "$KMOD" ||
		{ umount "$MODS"; return 1; }
	OVERLAY=1
	mkdir -p "$KMOD/updates" && cp "$MMT_TOP/module/mmtune.ko" "$KMOD/updates/" && depmod -a
}
if ! modprobe -n -q mmtune 2>/dev/null && [ -r "$MMT_TOP/module/mmtune.ko" ] && mods_overlay; then
	echo "# the build tree's mmtune.ko in $KMOD/updates (an overlay of this suite's)"
fi
if ! modprobe -n -q mmtune 2>/dev/null; then
	echo "# modprobe finds no mmtune here (no DKMS install, no overlay): README's quick start not run"
	exit 4
fi
set -f		# README's words are not patterns
# the tools as installed: on PATH by their names
PATH=$MMT_TOP/userspace:$PATH
export PATH

# The section's blocks as steps: "cmd<TAB>COMMAND" for a command (a
# continued line joined), "out<TAB>LINE" for a line README says it
# prints, "end" after each block.
awk '
/^## / { on = ($0 == "## Quick start: use it"); next }
!on { next }
/^    / {
	l = substr($0, 5)
	if (!inblk) { inblk = 1; shown = (l ~ /^\$ /) }
	if (cont != "") { l = cont " " l; cont = "" }
	if (l ~ /\\$/) { sub(/[ \t]*\\$/, "", l); cont = l; next }
	if (shown && l ~ /^\$ /) print "cmd\t" substr(l, 3)
	else if (shown) print "out\t" l
	else print "cmd\t" l
	next
}
/^$/ { next }
{ if (inblk) print "end"; inblk = 0 }
END { if (inblk) print "end" }
' "$README" > "$WORK/steps"
n=$(grep -c '^cmd' "$WORK/steps")
[ "$n" -ge 5 ] && ok "README's quick start: $n commands" ||
	{ fail "README's quick start: $n commands found, want at least 5"; exit 1; }

# run the command held in $WORK/cmd, then judge its output against $WORK/want
judge() {
	[ -s "$WORK/cmd" ] || return 0
	c=$(cat "$WORK/cmd")
	: > "$WORK/cmd"
	case $c in
	*apt-get\ install*|make\ *) skip "quick start: $c" "an install step: ${OVERLAY:+the module of the build tree in an overlay, }make check installs the packages"; return 0 ;;
	esac
	( cd "$WORK" && sh -c "$c" ) > "$WORK/got" 2>&1
	rc=$?
	if [ $rc != 0 ]; then
		fail "quick start: '$c': exit $rc: $(head -c 200 "$WORK/got")"
		return 0
	fi
	nw=$(grep -c . "$WORK/want")
	if [ "$nw" = 0 ]; then
		ok "quick start: '$c'"
	elif [ "$nw" = 1 ] && ! grep -q '\.\.\.' "$WORK/want"; then
		expect_eq "quick start: '$c' prints what README shows" "$(cat "$WORK/got")" "$(cat "$WORK/want")"
	else
		miss=""
		while IFS= read -r w; do
			set -- $w
			[ $# -gt 0 ] || continue
			# elided, or a figure (counts differ from run to run)
			case $1 in ...|…|*[!0-9.,]*) ;; *) continue ;; esac
			case $1 in ...|…) continue ;; esac
			grep -qF -- "$1" "$WORK/got" || miss="$miss $1"
		done < "$WORK/want"
		[ -z "$miss" ] && ok "quick start: '$c' prints README's lines ($nw)" ||
			fail "quick start: '$c': its output lacks$miss"
	fi
	: > "$WORK/want"
}

: > "$WORK/cmd"
: > "$WORK/want"
while IFS="$(printf '\t')" read -r kind text; do
	case $kind in
	cmd) judge; printf '%s\n' "$text" > "$WORK/cmd" ;;
	out) printf '%s\n' "$text" >> "$WORK/want" ;;
	end) judge ;;
	esac
done < "$WORK/steps"
expect_eq "quick start leaves the module unloaded" "$(test -d /sys/module/mmtune && echo loaded)" ""
