#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/setup.sh [NEED...]: install what the targets need on Debian 12
# (root): the VM's base, plus tests/deps/NEED.txt for each NEED named, or
# every tests/deps/*.txt when none is (make check and CI). make demo names
# only mmstress. Says what it installs before it does.
#
# Idempotent and fast when everything is there (no apt call at all then).
#  - host packages come from bookworm only, always pinned with -t: the kernel
#    (linux-image-amd64, linux-headers-amd64) from bookworm-security, the rest
#    from bookworm, plus every package named one per line in tests/deps/*.txt;
#  - virtme-ng is not in bookworm: its arch-all .deb is fetched from trixie
#    through a PRIVATE apt configuration (own sources.list, lists, cache and
#    an empty dpkg status; the host's apt state is never touched) and
#    extracted with dpkg-deb -x under $MMTUNE_CACHE (default
#    /var/cache/mmtune), where tests/vm/vng.sh finds it. Nothing from trixie
#    is ever installed on the host.
#
# Env: MMTUNE_CACHE (cache dir), MMT_SETUP_FORCE=1 (re-fetch virtme-ng).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${MMTUNE_CACHE:-/var/cache/mmtune}
VNG_WANT=1.35-1		# tried first; else whatever trixie has
export DEBIAN_FRONTEND=noninteractive

. "$TOP/tests/lib.sh"
LOG_TAG=setup	# log and die

[ "$(id -u)" = 0 ] || die "must run as root"

# --- host packages --------------------------------------------------------

# virtme-ng's Depends (python3-argcomplete, python3-pkg-resources,
# python3-requests, file, kmod) are all in bookworm.  busybox-static: vng
# builds an initramfs (9p/virtio are modules in Debian's kernel).
# dkms (deps/deb.txt) and sparse (deps/style.txt) are make check's, not
# the VM's.
bookworm_pkgs=(qemu-system-x86 udev kmod python3 build-essential
	busybox-static file python3-argcomplete python3-pkg-resources
	python3-requests procps)
security_pkgs=(linux-image-amd64 linux-headers-amd64)

needs=()
for n in "$@"; do
	[ -f "$TOP/tests/deps/$n.txt" ] || die "no tests/deps/$n.txt (one of: $(cd "$TOP/tests/deps" && ls ./*.txt | sed 's|^\./||; s|\.txt$||' | tr '\n' ' '))"
	needs+=("$TOP/tests/deps/$n.txt")
done
shopt -s nullglob
[ $# -gt 0 ] || needs=("$TOP"/tests/deps/*.txt)
for f in "${needs[@]}"; do
	while read -r p _; do
		case $p in ''|'#'*) continue ;; esac
		bookworm_pkgs+=("$p")
	done < "$f"
done
shopt -u nullglob

installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]; }

# Wait for other apt/dpkg runs (unattended-upgrades, a parallel install).
apt_wait() {
	local n=0
	while pgrep -x 'apt|apt-get|dpkg|unattended-upgr' >/dev/null 2>&1; do
		[ $n = 0 ] && log "waiting for another apt/dpkg to finish"
		n=$((n + 1)); [ $n -lt 360 ] || die "apt/dpkg busy for 30 min"
		sleep 5
	done
}
APT_OPTS=(-y -q --no-install-recommends -o DPkg::Lock::Timeout=1800
	-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)

missing_bw=(); missing_sec=()
for p in "${bookworm_pkgs[@]}"; do installed "$p" || missing_bw+=("$p"); done
for p in "${security_pkgs[@]}"; do installed "$p" || missing_sec+=("$p"); done

if [ ${#missing_bw[@]} -gt 0 ] || [ ${#missing_sec[@]} -gt 0 ]; then
	apt_wait
	log "apt-get update"
	apt-get -q update >&2 || log "warning: apt-get update reported errors"
	if [ ${#missing_sec[@]} -gt 0 ]; then
		log "install (bookworm-security): ${missing_sec[*]}"
		apt_wait
		apt-get install "${APT_OPTS[@]}" -t bookworm-security "${missing_sec[@]}" >&2
	fi
	if [ ${#missing_bw[@]} -gt 0 ]; then
		log "install (bookworm): ${missing_bw[*]}"
		# with their dependencies: apt's own count and download size
		log "that is $(apt-get -s "${APT_OPTS[@]}" -t bookworm install "${missing_bw[@]}" 2>/dev/null |
			sed -n 's/^[0-9]* upgraded, \([0-9]* newly installed\).*/\1 packages/p')"
		apt_wait
		apt-get install "${APT_OPTS[@]}" -t bookworm "${missing_bw[@]}" >&2
	fi
fi

# The 6.1 kernel the VM boots.
"$TOP/tests/kver.sh" >/dev/null ||
	die "no Debian 6.1 kernel with headers found (linux-image/headers-amd64)"

# --- virtme-ng from trixie, extracted into the cache ---------------------

vng_root=$CACHE/virtme-ng
if [ "${MMT_SETUP_FORCE:-0}" != 1 ] && [ -x "$vng_root/current/usr/bin/vng" ]; then
	exit 0
fi

apt_dir=$CACHE/apt-trixie
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/etc" "$vng_root"
cat > "$apt_dir/etc/sources.list" <<'EOF'
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
EOF
: > "$apt_dir/status"
PAPT=(-q -o "Dir::Etc::SourceList=$apt_dir/etc/sources.list"
	-o Dir::Etc::SourceParts=/dev/null
	-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
	-o "Dir::State=$apt_dir" -o "Dir::State::Lists=$apt_dir/lists"
	-o "Dir::State::status=$apt_dir/status" -o "Dir::Cache=$apt_dir/cache"
	-o APT::Architecture=amd64 -o APT::Architectures=amd64
	-o Acquire::Languages=none -o APT::Sandbox::User=root)

log "fetching virtme-ng from trixie (private apt config in $apt_dir)"
apt-get "${PAPT[@]}" update >&2
dl=$(mktemp -d "$CACHE/dl.XXXXXX")
trap 'rm -rf "$dl"' EXIT
(cd "$dl" && { apt-get "${PAPT[@]}" download "virtme-ng=$VNG_WANT" >&2 2>/dev/null ||
	apt-get "${PAPT[@]}" download virtme-ng >&2; })
deb=$(ls "$dl"/virtme-ng_*_all.deb)
ver=$(dpkg-deb -f "$deb" Version)
log "virtme-ng $ver; Depends: $(dpkg-deb -f "$deb" Depends)"
rm -rf "${vng_root:?}/${ver:?}.new"
dpkg-deb -x "$deb" "$vng_root/$ver.new"
rm -rf "${vng_root:?}/${ver:?}"
mv "$vng_root/$ver.new" "$vng_root/$ver"
ln -sfn "$ver" "$vng_root/current"
PYTHONPATH=$vng_root/current/usr/lib/python3/dist-packages \
	/usr/bin/python3 "$vng_root/current/usr/bin/vng" --version >&2 ||
	die "extracted virtme-ng does not run"
