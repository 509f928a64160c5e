// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit checks of the policy's grammar (module/policy_grammar.c),
 * built as the kernel builds it but against tests/host/shim/: each
 * key's words, each error as the module tells it (docs/policy.md; the
 * VM suite t-40-policy checks the same words in dmesg), whole writes.
 *
 *   rule_unit    prints "ok - rule: NAME" / "not ok - rule: NAME: why";
 *                exits 1 if any failed
 *
 * What the grammar leaves to the module (a pid's process, a cgroup, a
 * file, a user of the namespace) is a stub here that records its calls.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <linux/kernel.h>

#include "policy_grammar.h"
#include "unit_check.h"

#define MAX_ORDER	9	/* the stub's max_order, as x86-64's */
#define DEF_ORDER	4	/* and its default */

static char msg[512];		/* the last policy_reject()'s message */
static unsigned int msg_line;
static char calls[512];		/* the resolver's calls: "key=val;" each */
static int fail_key = -1;	/* the resolver refuses this key (-ESRCH) */

unsigned int mmtune_max_order(void)
{
	return MAX_ORDER;
}

int mmtune_parse_order(const char *buf, unsigned int *order)
{
	unsigned int v;

	if (!strcmp(buf, "default")) {
		*order = DEF_ORDER;
		return 0;
	}
	if (!*buf || strspn(buf, "0123456789") != strlen(buf) ||
	    kstrtouint(buf, 10, &v) || v > MAX_ORDER)
		return -EINVAL;
	*order = v;
	return 0;
}

int policy_reject(unsigned int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	msg_line = line;
	return -EINVAL;
}

static int resolve(void *ctx, enum mmt_abi_key key, const char *val,
		   const struct rule_words *w, unsigned int line)
{
	size_t n = strlen(calls);

	(void)ctx;
	(void)w;
	snprintf(calls + n, sizeof(calls) - n, "%s=%s;",
		 mmt_abi_rule_keys[key].name, val);
	if ((int)key == fail_key) {
		msg_line = line;
		snprintf(msg, sizeof(msg), "resolver refused %s", val);
		return -ESRCH;
	}
	return 0;
}

#define check(name, cond, ...)	unit_check("rule", name, cond, __VA_ARGS__)

/* @text (copied: the grammar cuts it up) as line 7 */
static int parse(const char *text, struct rule_words *w)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s", text);
	msg[0] = '\0';
	calls[0] = '\0';
	msg_line = 0;
	return policy_grammar_rule(buf, w, 7, resolve, NULL);
}

/* @text refused with exactly @want, on its line */
static void rejected(const char *text, const char *want)
{
	struct rule_words w;
	char name[160];
	int ret = parse(text, &w);

	snprintf(name, sizeof(name), "'%.60s' refused: %.60s", text, want);
	check(name, ret == -EINVAL && !strcmp(msg, want) && msg_line == 7,
	      "returned %d, said '%s' (line %u)", ret, msg, msg_line);
}

static void valid_keys(void)
{
	struct rule_words w;
	int ret;

	ret = parse("comm=foo order=3", &w);
	check("comm=foo order=3", !ret && w.task == MMT_KEY_comm && w.order == 3 &&
	      !w.is_auto && !w.has_map, "ret %d task %d order %u: %s", ret, w.task, w.order, msg);
	ret = parse("comm=abcdefghijklmno order=0", &w);
	check("comm= of 15 bytes", !ret && w.order == 0, "ret %d: %s", ret, msg);
	ret = parse("pid=42 order=default", &w);
	check("pid=42 order=default", !ret && w.task == MMT_KEY_pid && w.pid == 42 &&
	      w.order == DEF_ORDER, "ret %d pid %d order %u: %s", ret, w.pid, w.order, msg);
	ret = parse("cgroup=/system.slice/x.service order=9", &w);
	check("cgroup=PATH order=max", !ret && w.task == MMT_KEY_cgroup && w.order == 9,
	      "ret %d: %s", ret, msg);
	ret = parse("file=/usr/bin/x vma=exec madv=random order=2", &w);
	check("file= vma= madv=, no task key", !ret && w.task < 0 && w.has_map &&
	      w.vma == VMA_EXEC && w.madv_random, "ret %d: %s", ret, msg);
	check("the resolver sees each word once, as written",
	      !strcmp(calls, "file=/usr/bin/x;vma=exec;madv=random;order=2;"), "calls '%s'", calls);
	ret = parse("  vma=shmem\t\torder=1  ", &w);
	check("blanks and tabs between words", !ret && w.vma == VMA_SHMEM, "ret %d: %s", ret, msg);
	ret = parse("comm=x vma=data order=auto", &w);
	check("order=auto", !ret && w.is_auto && !w.auto_from && w.vma == VMA_DATA,
	      "ret %d: %s", ret, msg);
	ret = parse("comm=x order=auto:file", &w);
	check("order=auto:file", !ret && w.is_auto && w.auto_file && !w.auto_from,
	      "ret %d: %s", ret, msg);
	ret = parse("comm=x order=auto:3", &w);
	check("order=auto:3", !ret && w.is_auto && w.auto_from && w.order == 3,
	      "ret %d: %s", ret, msg);
	ret = parse("learn_uid=1000 comm=x order=auto", &w);
	check("learn_uid=1000 (before the task key)", !ret && w.learn_uid == 1000 && !w.learn_any &&
	      (w.given & (1u << MMT_KEY_learn_uid)), "ret %d: %s", ret, msg);
	ret = parse("comm=x order=auto learn_uid=any", &w);
	check("learn_uid=any after order=auto", !ret && w.learn_any, "ret %d: %s", ret, msg);
}

static void key_errors(void)
{
	char longpath[MMT_ABI_PATH_MAX + 16], text[MMT_ABI_PATH_MAX + 64], want[MMT_ABI_PATH_MAX + 80];

	rejected("foo=1 order=1", "unknown key 'foo'");
	rejected("comm=x Order=1", "unknown key 'Order'");
	rejected("comm order=1", "'comm' is not KEY=VALUE");
	rejected("comm=x pid=1 order=1", "more than one of comm=, pid=, cgroup=");
	rejected("comm=x comm=y order=1", "more than one of comm=, pid=, cgroup=");
	rejected("comm=x order=1 order=2", "order given twice");
	rejected("file=/a file=/b order=1", "file= given twice");
	rejected("vma=exec vma=exec order=1", "vma= given twice");
	rejected("madv=random madv=random order=1", "madv= given twice");
	rejected("comm=x learn_uid=1 learn_uid=any order=auto", "learn_uid= given twice");
	rejected("comm=x", "no order=");
	rejected("order=1", "no comm=, pid=, cgroup=, file=, vma= or madv=");
	rejected("learn_uid=0 order=auto", "no comm=, pid=, cgroup=, file=, vma= or madv=");
	rejected("comm=x learn_uid=5 order=1", "learn_uid= without order=auto");
	rejected("comm=abcdefghijklmnop order=1", "comm 'abcdefghijklmnop': want 1..15 bytes");
	rejected("comm= order=1", "comm '': want 1..15 bytes");
	rejected("comm=a\001b order=1", "comm: control character");
	rejected("pid=x order=1", "pid 'x': want a process id");
	rejected("pid=-1 order=1", "pid '-1': want a process id");
	rejected("pid=99999999999 order=1", "pid '99999999999': want a process id");
	rejected("pid=0 order=1",
		 "pid=0: a rule of a process outside this pid namespace: write it from one that sees the process");
	rejected("cgroup=relative order=1", "cgroup 'relative': want a cgroup v2 path starting with '/'");
	rejected("file=rel order=1", "file 'rel': want an absolute path");
	rejected("vma=stack order=1", "vma 'stack': want exec, data or shmem");
	rejected("madv=sequential order=1", "madv 'sequential': want random");
	rejected("comm=x learn_uid=root order=auto", "learn_uid 'root': want a user id or 'any'");
	rejected("comm=x learn_uid=4294967296 order=auto",
		 "learn_uid '4294967296': want a user id or 'any'");

	/* a path is MMT_ABI_PATH_MAX bytes with its NUL, no more */
	memset(longpath, 'p', MMT_ABI_PATH_MAX);
	longpath[0] = '/';
	longpath[MMT_ABI_PATH_MAX - 1] = '\0';
	snprintf(text, sizeof(text), "cgroup=%s order=1", longpath);
	{
		struct rule_words w;
		int ret = parse(text, &w);

		check("cgroup= of 255 bytes", !ret, "ret %d: %s", ret, msg);
	}
	longpath[MMT_ABI_PATH_MAX - 1] = 'p';
	longpath[MMT_ABI_PATH_MAX] = '\0';
	snprintf(text, sizeof(text), "file=%s order=1", longpath);
	snprintf(want, sizeof(want), "file '%s': want an absolute path", longpath);
	rejected(text, want);
}

static void order_errors(void)
{
	static const char *const bad[] = {
		"10", "-1", "1x", "", "auto:", "auto:10", "autox", "auto3", " 1", "default:1",
		"auto:filex", "auto:fil",
	};
	char text[64], want[128];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "comm=x order=%s", bad[i]);
		snprintf(want, sizeof(want), "order '%s': want 0..%u, 'default', 'auto', 'auto:N' or 'auto:file'",
			 bad[i], MAX_ORDER);
		if (bad[i][0] == ' ')	/* a blank ends the word: "order=" then "1" */
			snprintf(want, sizeof(want), "order '': want 0..%u, 'default', 'auto', 'auto:N' or 'auto:file'",
				 MAX_ORDER);
		rejected(text, want);
	}
}

/* The first error of a line is told: the resolver's too, in word order */
static void first_error(void)
{
	struct rule_words w;
	int ret;

	rejected("foo=1 bar=2 order=1", "unknown key 'foo'");
	rejected("comm=toolongtoolongtoolong foo=1", "comm 'toolongtoolongtoolong': want 1..15 bytes");
	fail_key = MMT_KEY_pid;
	ret = parse("pid=5 foo=1 order=1", &w);
	check("a resolver's error stops the rule at its word",
	      ret == -ESRCH && !strcmp(msg, "resolver refused 5") && !strcmp(calls, "pid=5;"),
	      "ret %d msg '%s' calls '%s'", ret, msg, calls);
	ret = parse("foo=1 pid=5 order=1", &w);
	check("an error before the resolver's word is told instead",
	      ret == -EINVAL && !strcmp(msg, "unknown key 'foo'") && !calls[0],
	      "ret %d msg '%s' calls '%s'", ret, msg, calls);
	fail_key = -1;
}

struct set_log {
	int n;
	unsigned int line[MMT_ABI_RULES_MAX + 2];
	int fail_at;		/* the rule callback refuses this rule (1-based) */
};

static int set_line(void *ctx, char *text, unsigned int line)
{
	struct set_log *log = ctx;
	struct rule_words w;

	log->line[log->n++] = line;
	if (log->n == log->fail_at)
		return -ENOMEM;
	return policy_grammar_rule(text, &w, line, resolve, NULL);
}

static int parse_set(const char *text, struct set_log *log, bool *clear)
{
	static char buf[8192];

	snprintf(buf, sizeof(buf), "%s", text);
	memset(log, 0, sizeof(*log));
	msg[0] = '\0';
	return policy_grammar_set(buf, clear, set_line, log);
}

static void sets(void)
{
	char many[4096] = "";
	struct set_log log;
	bool clear;
	int ret, i;

	ret = parse_set("comm=a order=1\n# a comment\n\n  comm=b order=2 # hits=3\n", &log, &clear);
	check("set: two rules, comments and blank lines skipped",
	      !ret && !clear && log.n == 2 && log.line[0] == 1 && log.line[1] == 4,
	      "ret %d n %d: %s", ret, log.n, msg);
	ret = parse_set("clear\n", &log, &clear);
	check("set: clear", !ret && clear && !log.n, "ret %d: %s", ret, msg);
	ret = parse_set("clear\ncomm=x order=1", &log, &clear);
	check("set: 'clear' must be alone", ret == -EINVAL && !strcmp(msg, "'clear' must be alone") &&
	      msg_line == 2, "ret %d: '%s' line %u", ret, msg, msg_line);
	ret = parse_set("# only a comment\n", &log, &clear);
	check("set: no rule", ret == -EINVAL &&
	      !strcmp(msg, "no rule (write 'clear' to drop every rule)"), "ret %d: '%s'", ret, msg);
	ret = parse_set("comm=ok order=1\ncomm=bad order=10\n", &log, &clear);
	check("set: a bad rule's line number", ret == -EINVAL && msg_line == 2 &&
	      !strncmp(msg, "order '10'", 10), "ret %d: '%s' line %u", ret, msg, msg_line);
	for (i = 1; i <= MMT_ABI_RULES_MAX; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "comm=p%d order=1\n", i);
	ret = parse_set(many, &log, &clear);
	check("set: MMT_ABI_RULES_MAX rules", !ret && log.n == MMT_ABI_RULES_MAX, "ret %d: %s", ret, msg);
	snprintf(many + strlen(many), sizeof(many) - strlen(many), "comm=p%d order=1\n", i);
	ret = parse_set(many, &log, &clear);
	check("set: one more is refused before it is parsed",
	      ret == -EINVAL && !strcmp(msg, "more than 32 rules") &&
	      msg_line == MMT_ABI_RULES_MAX + 1 && log.n == MMT_ABI_RULES_MAX,
	      "ret %d n %d: '%s' line %u", ret, log.n, msg, msg_line);
	ret = parse_set("comm=a order=1\ncomm=b order=1\n", &log, &clear);
	check("set: the rule callback's error ends the write", !ret, "ret %d", ret);
	memset(&log, 0, sizeof(log));
	log.fail_at = 1;
	{
		char buf[] = "comm=a order=1\ncomm=b order=1\n";

		ret = policy_grammar_set(buf, &clear, set_line, &log);
	}
	check("set: the rule callback's error is the write's", ret == -ENOMEM && log.n == 1,
	      "ret %d n %d", ret, log.n);
}

/*
 * The key table: the words a rule is shown with (mmtune_rule_keys.h's
 * order) parse back to the same words.
 */
static void table_round_trip(void)
{
	static const char *const texts[] = {
		"comm=x file=/bin/sh vma=exec madv=random order=3",
		"pid=12 vma=data learn_uid=1000 order=auto",
		"cgroup=/a/b learn_uid=any order=auto:2",
		"file=/f order=default",
	};
	char first[512], again[512], shown[512];
	struct rule_words w;
	size_t i;
	int k;

	for (k = 0; k < MMT_KEY_NR; k++)
		if (mmt_abi_rule_keys[k].kind == MMT_ABI_KEY_TASK && k && mmt_abi_rule_keys[k - 1].kind != MMT_ABI_KEY_TASK)
			break;
	check("table: the task keys first, order= last, as a rule is shown",
	      k == MMT_KEY_NR && MMT_KEY_order == MMT_KEY_NR - 1 &&
	      sizeof(mmt_abi_rule_keys) / sizeof(mmt_abi_rule_keys[0]) == MMT_KEY_NR,
	      "key %d out of place", k);
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char *p, *save = NULL;
		int ret = parse(texts[i], &w);

		snprintf(first, sizeof(first), "%s", calls);
		/* the words in the table's order, as the module shows them */
		shown[0] = '\0';
		for (k = 0; k < MMT_KEY_NR; k++) {
			char pre[32], c[512];

			snprintf(pre, sizeof(pre), "%s=", mmt_abi_rule_keys[k].name);
			snprintf(c, sizeof(c), "%s", first);
			for (p = strtok_r(c, ";", &save); p; p = strtok_r(NULL, ";", &save))
				if (!strncmp(p, pre, strlen(pre)))
					snprintf(shown + strlen(shown), sizeof(shown) - strlen(shown),
						 "%s%s", shown[0] ? " " : "", p);
		}
		ret |= parse(shown, &w);
		snprintf(again, sizeof(again), "%s", calls);
		check(texts[i], !ret && !strcmp(shown, texts[i]) && !strcmp(first, again),
		      "shown '%s', '%s' then '%s': %s", shown, first, again, msg);
	}
}

int main(void)
{
	valid_keys();
	key_errors();
	order_errors();
	first_error();
	sets();
	table_round_trip();
	return unit_failed;
}
