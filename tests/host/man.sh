# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/host/run.sh: the man pages against the tools.  Both
# render without a groff warning; .TH carries dkms.conf's version and a
# date no older than the page's last commit (and not in the future); each
# verb's heading of mmtunectl(8) is one line, as `mmtunectl --help` writes
# it; `stats --json`'s latency is described with the keys the output has;
# workloads are described by what they do, not by internal names.  Needs
# $CTL, $MMS, $VERSION, $PY, $W, fresh().

# render PAGE: the page as plain text, lines 1000 columns wide (a heading
# or paragraph on one line), no hyphenation
render() { groff -man -Tascii -rLL=1000n -rHY=0 -P-cbu "$1" 2>/dev/null; }

man_host() {
	local p w th date last v h m keys
	if ! command -v groff >/dev/null; then
		fail "man: groff not installed (tests/deps/host.txt: groff-base)"
		return
	fi
	for p in "$US/man/mmtunectl.8" "$US/man/mmstress.1"; do
		w=$(groff -man -ww -z "$p" 2>&1)
		[ -z "$w" ] && ok "man: ${p##*/} renders without warnings" || fail "man: ${p##*/}: $(echo "$w" | head -n 2 | tr '\n' ' ')"
		th=$(grep -m1 '^\.TH ' "$p")
		case $th in
		*" \"mmtune $VERSION\" "*) ok "man: ${p##*/} .TH says mmtune $VERSION (dkms.conf)" ;;
		*) fail "man: ${p##*/} .TH has no \"mmtune $VERSION\": $th" ;;
		esac
		date=$(echo "$th" | sed -n 's/^\.TH [A-Z]* [0-9] "\([0-9-]*\)".*/\1/p')
		last=$(git -C "$TOP" log -1 --format=%cd --date=short -- "$p" 2>/dev/null)
		if ! [[ $date =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]]; then
			fail "man: ${p##*/} .TH date is not YYYY-MM-DD: $th"
		elif [[ $date > $(date -u +%F) ]]; then
			fail "man: ${p##*/} .TH date $date is in the future"
		elif [ -n "$last" ] && [[ $date < $last ]]; then
			fail "man: ${p##*/} .TH date $date is older than its last commit ($last)"
		else
			ok "man: ${p##*/} .TH date $date: not before the page's last change (${last:-no git}), not after today"
		fi
	done
	for v in status get set stats pfn_valid policy tune run report rss; do
		grep -qE "^(\.(B|BR|BI) \"?|\\\\fB)$v" "$US/man/mmtunectl.8" && ok "man: describes $v" || fail "man: no $v"
	done
	render "$US/man/mmtunectl.8" | sed -n '/^VERBS/,/^OPTIONS/p' | grep -E '^       [a-z_]+( |$)' | sed 's/^ *//' >"$W/man-heads"
	# a heading whose options went on into the body leaves a '[' open
	w=$(awk '{ o = gsub(/\[/, "["); c = gsub(/\]/, "]"); if (o != c) print }' "$W/man-heads")
	[ -s "$W/man-heads" ] && [ -z "$w" ] && ok "man: every verb heading is whole on its line ($(wc -l <"$W/man-heads"))" ||
		fail "man: a verb heading is cut: ${w:-none found}"
	for v in status get set stats save rss; do
		h=$("$CTL" --help | sed -n "s/^  \($v\( .*\)\?\)$/\1/p" | tr A-Z a-z)
		m=$(grep -m1 -E "^$v( |$)" "$W/man-heads" | tr A-Z a-z)
		[ -n "$h" ] && [ "$h" = "$m" ] && ok "man: the heading of $v is --help's ($h)" || fail "man: heading of $v: '$m', --help has '$h'"
	done
	# SYNOPSIS: a line per verb of --help, with the same options
	render "$US/man/mmtunectl.8" | sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' >"$W/man-syn"
	for v in $("$CTL" --help | sed -n 's/^  \([a-z_]\+\)\( .*\)\?$/\1/p'); do
		h=$("$CTL" --help | grep -E "^  $v( |$)" | grep -oE -- '--[a-z-]+' | sort | tr '\n' ' ')
		m=$(grep -m1 -E "^ +mmtunectl $v( |$)" "$W/man-syn")
		if [ -z "$m" ]; then
			fail "man: SYNOPSIS has no $v"
		else
			m=$(echo "$m" | grep -oE -- '--[a-z-]+' | sort | tr '\n' ' ')
			[ "$h" = "$m" ] && ok "man: SYNOPSIS of $v has --help's options (${h:-none})" ||
				fail "man: SYNOPSIS of $v has '${m}', --help '${h}'"
		fi
	done
	# stats --json: the latency members and the bucket keys the output has
	fresh
	keys=$("$CTL" stats --json 2>/dev/null | $PY -c 'import json, sys
l = json.load(sys.stdin)["latency"]
print(" ".join(k for k in l if k != "buckets"), "|", ", ".join(l["buckets"][0]))' 2>/dev/null)
	m=$(render "$US/man/mmtunectl.8" | tr -s ' \n' '  ')
	case $m in
	*"{${keys#*| }}"*) ok "man: stats --json buckets are {${keys#*| }}, as the output's" ;;
	*) fail "man: stats --json: no {${keys#*| }} (the output's bucket keys)" ;;
	esac
	for v in ${keys%|*}; do
		case $m in *" $v"[,:\ \)]*) ;; *) fail "man: stats --json: latency member $v not named"; continue ;; esac
		ok "man: stats --json names latency's $v"
	done
	# what a user cannot know: internal seed numbers
	w=$({ "$MMS" --help; "$CTL" --help; cat "$US"/man/*.[18]; } 2>&1 | grep -inw 'seed' | head -n 2)
	[ -z "$w" ] && ok "man, --help: workloads described without seed numbers" || fail "man, --help: says seed: $w"
}
man_host
