# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# tests/lib.sh: the test library, sourced (POSIX sh: bash, dash, busybox
# sh) by the host suite (tests/host/run.sh), the VM suites through
# tests/vm/lib.sh, their runners (tests/vm/guest.sh, tests/matrix/init.sh,
# tests/debug/guest.sh), tests/style.sh, tests/dkms-guards.sh and the
# runners of make's check targets (tests/check.sh, check-matrix.sh,
# check-debug.sh, deb.sh, bench/insn.sh --short). Every test helper is
# defined here, or in tests/vm/lib.sh for those only a guest needs.
#
# Output is KTAP, as the kernel's kselftest ktap_helpers.sh prints it:
#
#	TAP version 13
#	ok 1 NAME
#	not ok 2 NAME: why
#	ok 3 NAME # SKIP
#	not ok 4 NAME # TODO why it is expected
#	1..4
#	# Totals: pass:1 fail:1 xfail:1 xpass:0 skip:1 error:0
#
# The plan comes last (TAP allows a trailing plan): a suite does not know
# how many checks it makes until it has made them (loops over what the
# kernel offers, checks that stop early), and counting ahead would have
# to run every loop twice. A document is what ktap_begin opens and
# ktap_end closes; a VM suite's document is framed by its runner
# (run_suite in tests/vm/lib.sh), which numbers its results in order, so
# that checks made in a subshell or printed by awk ("ok - NAME") count too.
# The runners add up every document's results (ktap_count) and end with
# "N passed, N failed" (ktap_exit); an expected failure (# TODO) counts in
# neither.

KTAP_TESTNO=1 KTAP_CNT_PASS=0 KTAP_CNT_FAIL=0 KTAP_CNT_SKIP=0 KTAP_CNT_XFAIL=0
KTAP_SUM_PASS=0 KTAP_SUM_FAIL=0 KTAP_SUM_SKIP=0 KTAP_OPEN=
KSFT_PASS=0 KSFT_FAIL=1 KSFT_SKIP=4

ktap_print_header() { echo "TAP version 13"; }
ktap_print_msg() { echo "# $*"; }

# ktap_begin NAME: a new document (NAME as a "# --- NAME" line before it)
ktap_begin() {
	echo "# --- $1"
	ktap_print_header
	KTAP_TESTNO=1 KTAP_CNT_PASS=0 KTAP_CNT_FAIL=0 KTAP_CNT_SKIP=0 KTAP_CNT_XFAIL=0
	KTAP_OPEN=1
}

# ktap_result pass|fail|skip|xfail DESC: one numbered result line
ktap_result() {
	case $1 in
	pass) printf 'ok %d %s\n' "$KTAP_TESTNO" "$2"; KTAP_CNT_PASS=$((KTAP_CNT_PASS + 1)) ;;
	fail) printf 'not ok %d %s\n' "$KTAP_TESTNO" "$2"; KTAP_CNT_FAIL=$((KTAP_CNT_FAIL + 1)) ;;
	skip) printf 'ok %d %s\n' "$KTAP_TESTNO" "$2"; KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1)) ;;
	xfail) printf 'not ok %d %s\n' "$KTAP_TESTNO" "$2"; KTAP_CNT_XFAIL=$((KTAP_CNT_XFAIL + 1)) ;;
	esac
	KTAP_TESTNO=$((KTAP_TESTNO + 1))
}

# ok NAME / fail NAME: why / skip NAME [REASON] / xfail NAME REASON (a
# known failure, not counted as one). KTAP_PREFIX, when set, goes before
# every NAME (the host suite's "san: " pass).
ok()   { ktap_result pass "${KTAP_PREFIX:-}$*"; }
fail() { ktap_result fail "${KTAP_PREFIX:-}$*"; }
skip() { ktap_result skip "${KTAP_PREFIX:-}$1 # SKIP${2:+ $2}"; }
xfail() { ktap_result xfail "${KTAP_PREFIX:-}$1 # TODO $2"; }
ktap_test_pass() { ok "$@"; }
ktap_test_fail() { fail "$@"; }
ktap_test_skip() { skip "$@"; }
ktap_test_xfail() { xfail "$@"; }

ktap_print_totals() {
	echo "# Totals: pass:$KTAP_CNT_PASS fail:$KTAP_CNT_FAIL xfail:$KTAP_CNT_XFAIL xpass:0 skip:$KTAP_CNT_SKIP error:0"
}

# ktap_end: the plan and the totals; the document's counts go to KTAP_SUM_*
ktap_end() {
	echo "1..$((KTAP_TESTNO - 1))"
	ktap_print_totals
	KTAP_SUM_PASS=$((KTAP_SUM_PASS + KTAP_CNT_PASS))
	KTAP_SUM_FAIL=$((KTAP_SUM_FAIL + KTAP_CNT_FAIL))
	KTAP_SUM_SKIP=$((KTAP_SUM_SKIP + KTAP_CNT_SKIP))
	KTAP_OPEN=
}

# ktap_finished: ktap_end, then exit as a kselftest does: 1 if a check
# failed, 4 (KSFT_SKIP) if every check was skipped, else 0
ktap_finished() {
	ktap_end
	[ "$KTAP_CNT_FAIL" = 0 ] || exit $KSFT_FAIL
	[ "$KTAP_CNT_PASS" != 0 ] || [ "$KTAP_CNT_SKIP" = 0 ] || exit $KSFT_SKIP
	exit $KSFT_PASS
}

# ktap_relay: copy stdin to stdout, results renumbered into the current
# document: "ok N NAME", "not ok N NAME" (a nested document's) and the
# unnumbered "ok - NAME" / "not ok - NAME" (awk, python, unit.c); "# SKIP"
# and "# TODO" keep their directive. A nested document's header, plan and
# totals go.
ktap_relay() {
	while IFS= read -r _l || [ -n "$_l" ]; do
		case $_l in
		"not ok "*) _k=fail _d=${_l#not ok } ;;
		"ok "*) _k=pass _d=${_l#ok } ;;
		"TAP version "*|"KTAP version "*|"# Totals: "*|1..[0-9]*) continue ;;
		*) printf '%s\n' "$_l"; continue ;;
		esac
		case $_d in
		"- "*) _d=${_d#- } ;;
		[0-9]*) _d=${_d#"${_d%%[!0-9]*}"}; _d=${_d# } ;;
		*) printf '%s\n' "$_l"; continue ;;
		esac
		case $_k$_d in
		pass*" # SKIP"*|pass*" # skip"*) _k=skip ;;
		fail*" # TODO"*|fail*" # todo"*) _k=xfail ;;
		esac
		ktap_result $_k "$_d"
	done
}

# ktap_count FILE...: "PASS FAIL SKIP BAD" over every KTAP document in
# FILE; BAD counts documents whose plan is missing or does not match their
# results (a suite cut short), and results outside any document. An
# expected failure ("not ok N NAME # TODO") is in none of them.
ktap_count() { ktap_awk 0 "$@"; }

# ktap_failed [FILE...]: what ktap_count counts as failed, a "#   " line
# each: the not-ok lines, and each document whose count is not its plan
# (a check's line cut, a suite that died), named by its "# --- NAME"
ktap_failed() { ktap_awk 1 "$@"; }

# ktap_awk SHOW [FILE...]: the one reader of the KTAP documents of both
ktap_awk() {
	_ktap_show=$1
	shift
	awk -v show="$_ktap_show" '
	function close_doc() {
		if (open && plan != n) {
			bad++
			if (show) print "#   " d ": " n " checks counted, plan " (plan < 0 ? "none" : plan)
		}
		open = 0
	}
	FNR == 1 { close_doc() }
	/^# --- / { t = $3 }
	/^K?TAP version [0-9]/ { close_doc(); open = 1; n = 0; plan = -1; d = t; next }
	/^(not )?ok [0-9]+/ {
		if (open) n++; else bad++
		if ($0 ~ /^not ok/) {
			if ($0 !~ / # [Tt][Oo][Dd][Oo]/) { f++; if (show) print "#   " (t ? t ": " : "") $0 }
		} else if ($0 ~ / # [Ss][Kk][Ii][Pp]/) s++
		else p++
		next
	}
	/^1\.\.[0-9]+/ { if (open) plan = substr($1, 4) + 0; next }
	END { close_doc(); if (!show) print p + 0, f + 0, s + 0, bad + 0 }' "$@"
}

# ktap_show [FILE]: FILE's (or stdin's, line by line) KTAP lines and "# "
# notes, without the build noise or the kernel log around them
ktap_show() { grep --line-buffered -E '^(not )?ok [0-9]|^# |^1\.\.[0-9]|^K?TAP version' "$@"; }

# ktap_exit [LOG...]: a runner's end. The open document closed; with
# KTAP_T0 (the run's start, date +%s) set, "# logs in KTAP_LOGS, N s in
# all"; then the sum of this run's own documents (KTAP_SUM_*) and of every
# document in each LOG (ktap_count; one cut short is one more failure)
# alone on the last line, "N passed, N failed" (", N skipped" when some
# were); then exit as ktap_finished does.
ktap_exit() {
	local names='' l
	[ -z "$KTAP_OPEN" ] || ktap_end
	[ -z "${KTAP_T0:-}" ] ||
		echo "# ${KTAP_LOGS:+logs in $KTAP_LOGS, }$(( $(date +%s) - KTAP_T0 ))s in all"
	for l in "$@"; do names="$names ${l##*/}"; done
	if [ $# -gt 0 ]; then
		# shellcheck disable=SC2046 # four numbers
		set -- $(ktap_count "$@")
	else
		set -- 0 0 0 0
	fi
	[ "$4" = 0 ] || echo "# $4 KTAP documents in$names end without their plan"
	set -- $(($1 + KTAP_SUM_PASS)) $(($2 + KTAP_SUM_FAIL + $4)) $(($3 + KTAP_SUM_SKIP))
	if [ "$3" = 0 ]; then echo "$1 passed, $2 failed"; else echo "$1 passed, $2 failed, $3 skipped"; fi
	[ "$2" = 0 ] || exit $KSFT_FAIL
	[ "$1" != 0 ] || [ "$3" = 0 ] || exit $KSFT_SKIP
	exit $KSFT_PASS
}

# ktap_step NAME LOG CMD...: run CMD with its output in LOG; one check,
# whose failure names LOG (relative to $TOP) and its last line
ktap_step() {
	local name=$1 log=$2 rel=$2
	shift 2
	case $log in "${TOP:-/nonexistent}"/*) rel=${log#"$TOP"/} ;; esac
	if "$@" >"$log" 2>&1; then
		ok "$name"
	else
		fail "$name: see $rel: $(tail -n 1 "$log")"
		return 1
	fi
}

# log TEXT / die TEXT: a tool's messages on stderr (tests/setup.sh,
# tests/debug/kernel.sh...), "LOG_TAG: TEXT" (LOG_TAG: the script's name
# without .sh by default); die says "LOG_TAG: error: TEXT" and exits 1
log() { echo "${LOG_TAG:-$(basename "$0" .sh)}: $*" >&2; }
die() { log "error: $*"; exit 1; }

# ---- checks

# check NAME CMD...: run CMD, pass if it exits 0.
check() {
	_name=$1; shift
	if _out=$("$@" 2>&1); then ok "$_name"; else fail "$_name: $(echo "$_out" | tail -n 1)"; fi
}

# expect_eq NAME GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1: got '$2', want '$3'"; fi
}

# in_range GOT WANT PCT [SLACK]: within's test, no output
in_range() {
	awk -v g="$1" -v w="$2" -v p="$3" -v s="${4:-0}" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w * p / 100 + s) }'
}

# within NAME GOT WANT PCT [SLACK]: |GOT - WANT| <= WANT * PCT / 100 + SLACK.
# SLACK absorbs a fixed number of events not proportional to the work (a
# probe's own startup faults): a few percent of 8192 pages, but of only 512
# with 64 KiB pages.
within() {
	if in_range "$2" "$3" "$4" "${5:-0}"; then
		ok "$1 ($2 vs $3)"
	else
		fail "$1: got $2, want $3 +-$4%${5:+ +-$5}"
	fi
}

log2() { _n=$1 _o=0; while [ $((_n >>= 1)) -gt 0 ]; do _o=$((_o + 1)); done; echo $_o; }

# ---- checks of a command's output. RUN_DIR holds its out and err files
# (default $WORK); RUN_SCAN, when set, is a command run after each (the
# host suite's sanitizer report collector).

# run CMD...: stdout in $RUN_DIR/out, stderr in $RUN_DIR/err, status in RC
run() {
	"$@" >"${RUN_DIR:-$WORK}/out" 2>"${RUN_DIR:-$WORK}/err"
	RC=$?
	[ -z "${RUN_SCAN:-}" ] || $RUN_SCAN "$@"
}
errline() { head -c 300 "${RUN_DIR:-$WORK}/err" | tr '\n' ' '; }

# t_rc NAME WANT CMD...: exit status WANT; on failure statuses, exactly
# one line on stderr and nothing on stdout.
t_rc() {
	local name=$1 want=$2 d=${RUN_DIR:-$WORK}
	shift 2
	run "$@"
	if [ "$RC" != "$want" ]; then
		fail "$name: exit $RC, want $want: $(errline)"
	elif [ "$want" != 0 ] && [ "$(wc -l <"$d/err")" != 1 ]; then
		fail "$name: $(wc -l <"$d/err") lines on stderr, want 1: $(errline)"
	elif [ "$want" != 0 ] && [ -s "$d/out" ]; then
		fail "$name: stdout not empty on failure"
	else
		ok "$name"
	fi
}

# t_out NAME WANT CMD...: exit 0 and stdout exactly WANT
t_out() {
	local name=$1 want=$2 d=${RUN_DIR:-$WORK}
	shift 2
	run "$@"
	if [ "$RC" != 0 ]; then
		fail "$name: exit $RC: $(errline)"
	elif [ "$(cat "$d/out")" != "$want" ]; then
		fail "$name: got '$(head -c 200 "$d/out")', want '$want'"
	else
		ok "$name"
	fi
}

# t_file NAME FILE WANT: FILE's content (trailing newline ignored) is WANT
t_file() {
	local got
	got=$(cat "$2" 2>/dev/null)
	if [ "$got" = "$3" ]; then ok "$1"; else fail "$1: $2 holds '$got', want '$3'"; fi
}

# t_grep NAME WHERE(out|err) REGEX
t_grep() {
	local d=${RUN_DIR:-$WORK}
	if grep -qE -- "$3" "$d/$2"; then ok "$1"; else fail "$1: no /$3/ in std$2: $(head -c 200 "$d/$2" | tr '\n' ' ')"; fi
}

# json_flat [FILE]: a JSON document as one "PATH VALUE" line per scalar,
# PATH its keys and array indexes joined by dots (rules.0.file), a
# string's VALUE without its quotes (escapes as written): for guests
# without python3 (the matrix's busybox), whose awk reads it.
json_flat() {
	awk 'BEGIN { RS = "\001" }
	function path(  k, p) { for (k = 1; k <= d; k++) p = p (k > 1 ? "." : "") key[k]; return p }
	function done_value() { if (d > 0) { if (typ[d] == "a") key[d]++; else want_key[d] = 1 } }
	{
		s = $0; n = length(s); d = 0
		for (i = 1; i <= n; i++) {
			c = substr(s, i, 1)
			if (index(" \t\r\n,:", c)) continue
			if (c == "{") { d++; typ[d] = "o"; want_key[d] = 1; continue }
			if (c == "[") { d++; typ[d] = "a"; key[d] = 0; continue }
			if (c == "}" || c == "]") { d--; done_value(); continue }
			if (c == "\"") {
				for (j = i + 1; j <= n && (ch = substr(s, j, 1)) != "\""; j++)
					if (ch == "\\") j++
				str = substr(s, i + 1, j - i - 1); i = j
				if (typ[d] == "o" && want_key[d]) { key[d] = str; want_key[d] = 0; continue }
				print path() " " str; done_value(); continue
			}
			for (j = i; j <= n && !index(",}] \t\r\n", substr(s, j, 1)); j++)
				;
			print path() " " substr(s, i, j - i); i = j - 1; done_value()
		}
	}' "$@"
}

# json_get FILE PATH: PATH's value in the JSON document FILE (json_flat),
# empty if it has none
json_get() {
	json_flat "$1" | awk -v p="$2" '$1 == p { sub(/^[^ ]* /, ""); print; exit }'
}

# t_json NAME PYEXPR: stdout is JSON (one document, or one per line with
# JSON_LINES=1) and PYEXPR holds, evaluated with d = the document (or the
# list of them) and info = the module's info file as a dict ($MMT/info,
# read now; empty without it). python3: $PY, default python3.
t_json() {
	local why
	if why=$(${PY:-python3} - "${RUN_DIR:-$WORK}/out" "$2" "${JSON_LINES:-0}" "${MMT:-/nonexistent}/info" <<'EOF' 2>&1
import json, os, sys
text = open(sys.argv[1]).read()
if sys.argv[3] == "1":
    d = [json.loads(l) for l in text.splitlines()]
else:
    d = json.loads(text)
info = {}
if os.path.exists(sys.argv[4]):
    info = dict(l.split(": ", 1) for l in open(sys.argv[4]).read().splitlines() if ": " in l)
if not eval("(" + sys.argv[2] + "\n)"):
    sys.exit("does not hold: %s; got %s" % (sys.argv[2], json.dumps(d)[:400]))
EOF
	); then ok "$1"; else fail "$1: $(echo "$why" | tail -n 1)"; fi
}
