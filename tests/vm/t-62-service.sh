#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# requires: sqlite3 python3 (programs Debian ships; the matrix's busybox guests skip this suite)
# A service that never exits, as README's worked example runs it: one
# sqlite3 process with its database mapped (mmap_size), answering a batch
# of random-row lookups every 0.3 s from a FIFO, under comm=sqlite3
# order=auto. Learn: the rule's order falls while the process runs (a
# random reader touches few of the pages fault-around maps ahead). Read:
# mmtunectl rss shows the database's untouched pages, as debugfs rss
# does. Hold: usefulness off keeps the learned order. The figures are
# printed for README (docs/policy.md says what they mean).
. "$(dirname "$0")/lib.sh"

WORK=$(mktemp -d /var/tmp/mmt-svc.XXXXXX)
CTL=${MMT_MMTUNECTL:-$MMT_TOP/userspace/mmtunectl}
SP=
cleanup() {
	exec 4>&- 2>/dev/null
	[ -n "$SP" ] && kill "$SP" 2>/dev/null
	[ -w $MMT/policy ] && echo clear > $MMT/policy 2>/dev/null
	umount "$WORK" 2>/dev/null
	rm -rf "$WORK"
	unload_module
}
on_exit cleanup
command -v sqlite3 > /dev/null || { skip "a sqlite3 service" "no sqlite3 (apt-get install -t bookworm sqlite3)"; exit 0; }
[ -x "$CTL" ] || { fail "no $CTL (make tools)"; exit 1; }

unload_module
load_module || { fail "insmod"; exit 1; }
if [ "$(info usefulness)" != available ]; then
	skip "a sqlite3 service" "usefulness $(info usefulness)"
	exit 0
fi
D=$(order)
mount -t tmpfs -o size=256m,huge=never mmt-svc "$WORK" || { fail "tmpfs"; exit 1; }
# 28000 rows of 1500 bytes: a 43 MiB table, two rows a page
sqlite3 "$WORK/db" <<-'EOF'
CREATE TABLE t(a INTEGER PRIMARY KEY, b BLOB);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 28000)
INSERT INTO t SELECT x, randomblob(1500) FROM c;
EOF
echo "# database: $(du -m "$WORK/db" | cut -f1) MiB, default order $D"

sect "learn: comm=sqlite3 order=auto, the service running"
check "usefulness on" "$CTL" set usefulness_enable 1
check "the rule" "$CTL" policy set 'comm=sqlite3 order=auto'
mkfifo "$WORK/q"
sqlite3 -cmd 'PRAGMA mmap_size=268435456' "$WORK/db" < "$WORK/q" > "$WORK/answers" & SP=$!
exec 4> "$WORK/q"	# the service's input, open until the end
# batch: 50 lookups of random rows, one query
batch() {
	awk -v s="$1" 'BEGIN { srand(s); printf "SELECT count(*), sum(length(b)) FROM t WHERE a IN ("
		for (i = 0; i < 50; i++) printf "%s%d", i ? "," : "", 1 + int(rand() * 28000); print ");" }' >&4
}
# rule FIELD: a field of the comm=sqlite3 rule's line
rule() { sed -n "s/^comm=sqlite3 order=auto #.* $1=\([^ ]*\).*/\1/p" $MMT/policy; }
i=0
while [ $i -lt 100 ] && [ "$(rule auto_order)" != 0 ]; do
	batch $i; sleep 0.3; i=$((i + 1))
done
echo "# after $i batches ($((i * 3 / 10)) s): $(grep '^comm=sqlite3' $MMT/policy)"
kill -0 $SP 2>/dev/null && alive=alive || alive=exited
expect_eq "learn: the order fell to 0 while the service ran" "$(rule auto_order) $alive" "0 alive"
expect_eq "learn: one order a judgement" "$(rule raised) $(rule lowered)" "0 $D"

sect "read: the memory fault-around added, now"
exec 3<>$MMT/rss
printf 'pid=%s' $SP >&3
cat <&3 > "$WORK/rss"
exec 3>&-
# shellcheck disable=SC2046 # the two fields, split
set -- $(sed -n "s|^pid=$SP mapped=\([0-9]*\) untouched=\([0-9]*\) file=$WORK/db\$|\1 \2|p" "$WORK/rss")
echo "# debugfs rss, the database: mapped $1 untouched $2 pages"
[ "${2:-0}" -gt 0 ] && [ "$2" -lt "$1" ] && ok "rss: the database's untouched pages (${2:-} of ${1:-})" ||
	fail "rss: database line '$*'"
if "$CTL" rss --json $SP > "$WORK/json"; then
	u=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["processes"][0]["untouched_bytes"])' < "$WORK/json")
	expect_eq "mmtunectl rss --json: the process's untouched bytes, as the kernel's" \
		"$u" "$(awk -v p="$(getconf PAGESIZE)" -v s=$SP '$1 == "pid=" s && $NF ~ /^comm=/ { sub("untouched=", "", $3); print $3 * p }' "$WORK/rss")"
	"$CTL" rss $SP | sed 's/^/# | /'
else
	fail "mmtunectl rss --json $SP"
fi

sect "hold: usefulness off keeps the learned order"
check "usefulness off" "$CTL" set usefulness_enable 0
for j in 1 2 3 4 5 6; do batch $((i + j)); sleep 0.3; done
sleep 1.3
expect_eq "hold: still 0, no change" "$(rule auto_order) $(rule lowered)" "0 $D"
exec 4>&-
wait $SP
SP=
# a line for the PRAGMA, one a batch
expect_eq "it answered every batch" "$(wc -l < "$WORK/answers")" "$((i + 7))"
