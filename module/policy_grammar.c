// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: the policy's grammar (docs/policy.md).  A write's lines, each a
 * rule of KEY=VALUE words (mmtune_rule_keys.h's keys) or "clear"; each
 * word's key looked up, refused twice or unknown, its value's syntax
 * checked; the rule's keys checked together.  The caller resolves what a
 * value names word by word, in the order written (policy_rule.c), so that
 * of two errors in a line the first is told.
 *
 * The kernel's string and number helpers alone: the host builds this
 * file too (tests/host/rule_unit.c, with tests/host/shim/).
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/types.h>

#include "mmtune.h"
#include "policy_grammar.h"

#ifdef __KERNEL__
/*
 * A write's error, told with its line number (dmesg; docs/policy.md):
 * -EINVAL.  The host build's (tests/host/rule_unit.c) keeps the message
 * for its checks instead.
 */
int policy_reject(unsigned int line, const char *fmt, ...)
{
	struct va_format vaf;
	va_list ap;

	va_start(ap, fmt);
	vaf.fmt = fmt;
	vaf.va = &ap;
	pr_info_ratelimited("policy: line %u: %pV\n", line, &vaf);
	va_end(ap);
	return -EINVAL;
}
#endif

const char *const policy_vma_names[] = {
	[VMA_EXEC] = "exec", [VMA_DATA] = "data", [VMA_SHMEM] = "shmem",
};

/* The keys of the kinds in @kinds (bits) as "a=, b= or c=": @last before c= */
static const char *key_list(char *buf, size_t len, unsigned int kinds,
			    const char *last)
{
	unsigned int k, n = 0, nr = 0;
	size_t off = 0;

	for (k = 0; k < MMT_KEY_NR; k++)
		nr += !!(kinds & (1u << mmt_abi_rule_keys[k].kind));
	buf[0] = '\0';
	for (k = 0; k < MMT_KEY_NR; k++) {
		if (!(kinds & (1u << mmt_abi_rule_keys[k].kind)))
			continue;
		off += scnprintf(buf + off, len - off, "%s%s=",
				 !n ? "" : n + 1 == nr ? last : ", ",
				 mmt_abi_rule_keys[k].name);
		n++;
	}
	return buf;
}

static int rule_key_find(const char *name)
{
	int k;

	for (k = 0; k < MMT_KEY_NR; k++)
		if (!strcmp(name, mmt_abi_rule_keys[k].name))
			return k;
	return -1;
}

static int check_comm(const char *val, unsigned int line)
{
	size_t len = strlen(val), i;

	if (!len || len >= MMT_ABI_COMM_LEN)
		return policy_reject(line, "comm '%s': want 1..%d bytes", val,
				     MMT_ABI_COMM_LEN - 1);
	for (i = 0; i < len; i++)
		if ((unsigned char)val[i] <= ' ' || val[i] == 0x7f)
			return policy_reject(line, "comm: control character");
	return 0;
}

static int check_pid(const char *val, struct rule_words *w, unsigned int line)
{
	if (!*val || strspn(val, "0123456789") != strlen(val) ||
	    kstrtoint(val, 10, &w->pid) || w->pid < 0)
		return policy_reject(line, "pid '%s': want a process id", val);
	if (!w->pid)	/* what a rule reads as where its process is not seen */
		return policy_reject(line,
				     "pid=0: a rule of a process outside this pid namespace: write it from one that sees the process");
	return 0;
}

static int check_vma(const char *val, struct rule_words *w, unsigned int line)
{
	int i;

	for (i = VMA_EXEC; i <= VMA_SHMEM; i++) {
		if (!strcmp(val, policy_vma_names[i])) {
			w->vma = i;
			return 0;
		}
	}
	return policy_reject(line, "vma '%s': want exec, data or shmem", val);
}

/* learn_uid=UID|any: whose processes an auto rule learns from */
static int check_learn_uid(const char *val, struct rule_words *w,
			   unsigned int line)
{
	if (!strcmp(val, "any")) {
		w->learn_any = true;
		return 0;
	}
	if (!*val || strspn(val, "0123456789") != strlen(val) ||
	    kstrtouint(val, 10, &w->learn_uid))
		return policy_reject(line, "learn_uid '%s': want a user id or 'any'", val);
	return 0;
}

static int check_order(const char *val, struct rule_words *w, unsigned int line)
{
	/*
	 * auto:N: auto, starting at N (what `save` learned); auto:file: an
	 * order learned per file (auto_file.c)
	 */
	w->is_auto = !strncmp(val, "auto", 4) && (!val[4] || val[4] == ':');
	w->auto_file = w->is_auto && !strcmp(val + 4, ":file");
	w->auto_from = w->is_auto && val[4] == ':' && !w->auto_file;
	if ((!w->is_auto || w->auto_from) &&
	    mmtune_parse_order(w->auto_from ? val + 5 : val, &w->order))
		return policy_reject(line,
				     "order '%s': want 0..%u, 'default', 'auto', 'auto:N' or 'auto:file'",
				     val, mmtune_max_order());
	return 0;
}

/* @key's value @val: its syntax, into @w */
static int check_value(int key, const char *val, struct rule_words *w,
		       unsigned int line)
{
	switch (key) {
	case MMT_KEY_comm:
		return check_comm(val, line);
	case MMT_KEY_pid:
		return check_pid(val, w, line);
	case MMT_KEY_cgroup:
		if (val[0] != '/' || strlen(val) >= MMT_ABI_PATH_MAX)
			return policy_reject(line,
					     "cgroup '%s': want a cgroup v2 path starting with '/'",
					     val);
		return 0;
	case MMT_KEY_file:
		if (val[0] != '/' || strlen(val) >= MMT_ABI_PATH_MAX)
			return policy_reject(line, "file '%s': want an absolute path", val);
		return 0;
	case MMT_KEY_vma:
		return check_vma(val, w, line);
	case MMT_KEY_madv:
		if (strcmp(val, "random"))
			return policy_reject(line, "madv '%s': want random", val);
		w->madv_random = true;
		return 0;
	case MMT_KEY_learn_uid:
		return check_learn_uid(val, w, line);
	case MMT_KEY_order:
		return check_order(val, w, line);
	default:
		return 0;
	}
}

/* @name (a word's key): unknown, or one its rule has: refused */
static int check_key(const char *name, int key, const struct rule_words *w,
		     unsigned int line)
{
	char list[96];

	if (key < 0)
		return policy_reject(line, "unknown key '%s'", name);
	if (mmt_abi_rule_keys[key].kind == MMT_ABI_KEY_TASK && w->task >= 0)
		return policy_reject(line, "more than one of %s",
				     key_list(list, sizeof(list),
					      1u << MMT_ABI_KEY_TASK, ", "));
	if (!(w->given & (1u << key)))
		return 0;
	if (key == MMT_KEY_order)
		return policy_reject(line, "order given twice");
	return policy_reject(line, "%s= given twice", name);
}

/* The rule's keys together, once every word is read */
static int check_rule(const struct rule_words *w, unsigned int line)
{
	char list[96];

	if (w->task < 0 && !w->has_map)
		return policy_reject(line, "no %s",
				     key_list(list, sizeof(list),
					      (1u << MMT_ABI_KEY_TASK) |
					      (1u << MMT_ABI_KEY_MAP), " or "));
	if (!(w->given & (1u << MMT_KEY_order)))
		return policy_reject(line, "no order=");
	if ((w->given & (1u << MMT_KEY_learn_uid)) && !w->is_auto)
		return policy_reject(line, "learn_uid= without order=auto");
	return 0;
}

/*
 * One rule: "KEY=VALUE ... order=N" in any order, blanks between, into
 * @w; @resolve is called for each word once its syntax is checked.
 */
int policy_grammar_rule(char *text, struct rule_words *w, unsigned int line,
			rule_resolve_fn resolve, void *ctx)
{
	char *tok, *val;
	int key, ret;

	memset(w, 0, sizeof(*w));
	w->task = -1;
	while ((tok = strsep(&text, " \t")) != NULL) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return policy_reject(line, "'%s' is not KEY=VALUE", tok);
		*val++ = '\0';
		key = rule_key_find(tok);
		ret = check_key(tok, key, w, line);
		if (!ret)
			ret = check_value(key, val, w, line);
		if (ret)
			return ret;
		w->given |= 1u << key;
		if (mmt_abi_rule_keys[key].kind == MMT_ABI_KEY_TASK)
			w->task = key;
		if (mmt_abi_rule_keys[key].kind == MMT_ABI_KEY_MAP)
			w->has_map = true;
		ret = resolve(ctx, key, val, w, line);
		if (ret)
			return ret;
	}
	return check_rule(w, line);
}

/*
 * A whole write: each line's rule (after a '#', a comment) to @rule, at
 * most MMT_ABI_RULES_MAX; *clear is set for "clear".  On error the
 * caller frees what @rule made.
 */
int policy_grammar_set(char *buf, bool *clear, rule_line_fn rule, void *ctx)
{
	unsigned int line = 0, nr = 0;
	char *text, *hash;
	int ret;

	*clear = false;
	while ((text = strsep(&buf, "\n")) != NULL) {
		line++;
		hash = strchr(text, '#');
		if (hash)
			*hash = '\0';
		text = strim(text);
		if (!*text)
			continue;
		if (!strcmp(text, "clear")) {
			*clear = true;
			continue;
		}
		if (nr == MMT_ABI_RULES_MAX)
			return policy_reject(line, "more than %d rules", MMT_ABI_RULES_MAX);
		nr++;
		ret = rule(ctx, text, line);
		if (ret)
			return ret;
	}
	if (*clear && nr)
		return policy_reject(line, "'clear' must be alone");
	if (!*clear && !nr)
		return policy_reject(line, "no rule (write 'clear' to drop every rule)");
	return 0;
}
