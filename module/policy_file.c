// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: the policy's files: debugfs "policy" (a read shows the rules
 * and their counters, a write installs a whole set), the module
 * parameter "policy" (a set or one edit, where lockdown leaves a write),
 * sysfs policy/'s and rules/N/'s values and rules/edit (sysfs.c).
 * policy.c installs what they parse (policy_rule.c) under its lock; this
 * file is the policy feature's face, so its init, exit and info are
 * here, and call policy.c's.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>

#include "mmtune.h"
#include "mmtune_abi.h"
#include "hooks.h"
#include "policy.h"
#include "rules.h"

static bool policy_loading = true;	/* before init: parameters wait */
static char *policy_pending;		/* policy= given at load */

/* ---- the debugfs file ---- */

/*
 * An auto rule's order in force, its changes, the pages its ended
 * processes pre-mapped (what it learned from), the last judgement's
 * useful share and the pages it left out (processes it does not learn
 * from).
 */
static void show_auto(struct seq_file *m, const struct mmtune_auto *a,
		      const struct policy_ctr *c)
{
	seq_printf(m, " auto_order=%u raised=%llu lowered=%llu learned=%llu useful=",
		   a->order, a->raised, a->lowered, c->auto_p);
	if (a->useful < 0)
		seq_putc(m, '-');
	else
		seq_printf(m, "%d.%d%%", a->useful / 10, a->useful % 10);
	seq_printf(m, " untrusted=%llu", c->untrusted);
}

static void show_ctr(struct seq_file *m, const struct policy_set *set,
		     unsigned int idx)
{
	bool pages = mmtune_hook_state(MMT_HOOK_SET_PTE) == MMT_HOOK_ON;
	struct policy_ctr c;

	ctr_sum(set, idx, &c);
	seq_printf(m, " hits=%llu pages=", c.hits);
	if (pages)
		seq_printf(m, "%llu", c.pages);
	else
		seq_putc(m, '-');
	/* once the usefulness measurement counted for this set */
	if (c.prefaulted || c.untouched)
		seq_printf(m, " prefaulted=%llu untouched=%llu", c.prefaulted,
			   c.untouched);
	if (idx < set->nr && set->rule[idx].is_auto)
		show_auto(m, &set->rule[idx].au, &c);
	if (idx < set->nr && set->rule[idx].files)
		mmtune_af_show(m, set->rule[idx].files);
	seq_putc(m, '\n');
}

static int policy_show(struct seq_file *m, void *v)
{
	struct policy_set *set;
	unsigned int i, live, base;

	mutex_lock(&policy_lock);
	set = rcu_dereference_protected(policy_active, lockdep_is_held(&policy_lock));
	if (set) {
		mmtune_fa_sync();
		policy_cgroup_follow(set);	/* "removed" as of now */
	}
	seq_printf(m, "# rules %u/%u\n", set ? set->nr : 0, POLICY_MAX_RULES);
	if (mmtune_fa_kernel_order(&live) || mmtune_fa_get_order(&base)) {
		mutex_unlock(&policy_lock);
		return 0;
	}
	seq_printf(m, "# kernel order=%u\n", live);
	seq_printf(m, "# default order=%u", base);
	if (!set) {
		seq_putc(m, '\n');
		mutex_unlock(&policy_lock);
		return 0;
	}
	show_ctr(m, set, set->nr);
	for (i = 0; i < set->nr; i++) {
		policy_show_rule(m, &set->rule[i]);
		show_ctr(m, set, i);
	}
	mutex_unlock(&policy_lock);
	return 0;
}

static int policy_open(struct inode *inode, struct file *file)
{
	return single_open(file, policy_show, NULL);
}

/*
 * Apply @buf, a whole rule set or "clear" (NUL-terminated, modified by
 * the parse).  Nothing changes unless it is wholly valid.
 */
static int policy_apply_locked(char *buf)
{
	struct policy_set *set, *cur;
	bool clear;
	int ret;

	if (policy_exiting)
		return -ENODEV;
	set = policy_set_alloc();
	if (!set)
		return -ENOMEM;
	/*
	 * Parsed under the lock: a pid= or cgroup= rule may name an exited
	 * or removed rule of the current set (as of now: followed first).
	 */
	cur = rcu_dereference_protected(policy_active, lockdep_is_held(&policy_lock));
	if (cur)
		policy_cgroup_follow(cur);
	ret = policy_parse_set(buf, set, cur, &clear);
	if (ret) {
		policy_set_free(set);
		return ret;
	}
	return policy_install_locked(set, cur, clear);
}

static ssize_t policy_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char *buf = mmtune_write_get(ubuf, count, ppos, POLICY_WRITE_MAX, false);
	int ret;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&policy_lock);
	ret = policy_apply_locked(buf);
	mutex_unlock(&policy_lock);
	kfree(buf);
	return mmtune_write_done(ret, count, ppos);
}

static const struct file_operations policy_fops = {
	.owner		= THIS_MODULE,
	.open		= policy_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= policy_write,
};

/*
 * ---- module parameter "policy" ----
 *
 * The policy in the place lockdown leaves writable.  A sysfs write holds
 * at most a page, less than a full set may need (POLICY_WRITE_MAX), so
 * besides a whole set (rules separated by newlines or ';', as modprobe.d
 * cannot hold a newline) and "clear", a write may be one verb:
 *
 *   add RULE    append RULE to the current set
 *   del N       drop the Nth rule (counting from 1)
 *   first RULE  put RULE first (first match wins), dropping the rules of
 *               its match ("cgroup=/x" of "cgroup=/x order=2")
 *   drop MATCH  drop every rule of that match (none: nothing changes)
 *
 * first and drop are for a tool's rule of its own (mmtunectl run): one
 * write each, so that concurrent editors never lose each other's rules.
 *
 * Each edits the parsed rules: the current set's rules are copied as they
 * are (references taken: an exited pid= rule, a removed cgroup= rule, a
 * pid that the writer's pid namespace cannot see, an auto rule's id and
 * order all stay), the one added is parsed.  The counters start again,
 * as with any write.  A read gives the rules as written, one per line, as
 * many as fit a page; sysfs policy/rules says how many there are.
 */

/*
 * An edit of @cur: @add parsed (may be NULL) first when @front, last if
 * not; @cur's rules kept as they are but rule @skip (-1: none) and those
 * whose match is @drop (NULL: none), or with @front those of @add's.
 */
struct policy_edit {
	int skip;
	const char *drop;
	char *add;
	bool front;
};

static int edit_add(struct policy_set *set, const struct policy_set *cur,
		    char *text)
{
	int ret;

	if (set->nr == POLICY_MAX_RULES)
		return policy_reject(set->nr + 1, "more than %d rules", POLICY_MAX_RULES);
	ret = policy_parse_rule(text, &set->rule[set->nr++], 1, cur);
	if (!ret)
		policy_set_account(set, &set->rule[set->nr - 1]);
	return ret;
}

static int policy_edit_locked(const struct policy_set *cur,
			      const struct policy_edit *e)
{
	char match[POLICY_MATCH_MAX];
	const char *drop = e->drop;
	struct policy_set *set;
	unsigned int i;
	int ret = 0;

	set = policy_set_alloc();
	if (!set)
		return -ENOMEM;
	if (e->add && e->front) {
		ret = edit_add(set, cur, e->add);
		if (!ret)
			policy_rule_match(&set->rule[0], match, sizeof(match));
		drop = match;
	}
	for (i = 0; cur && i < cur->nr && !ret; i++) {
		if (i == e->skip || (drop && policy_rule_is(&cur->rule[i], drop)))
			continue;
		if (set->nr == POLICY_MAX_RULES) {
			ret = policy_reject(set->nr + 1, "more than %d rules", POLICY_MAX_RULES);
			break;
		}
		ret = policy_rule_dup(&set->rule[set->nr++], &cur->rule[i]);
		policy_set_account(set, &set->rule[set->nr - 1]);
	}
	if (!ret && e->add && !e->front)
		ret = edit_add(set, cur, e->add);
	if (ret) {
		policy_set_free(set);
		return ret;
	}
	return policy_install_locked(set, cur, !set->nr);
}

/* One rule of an add or first: no newline, a comment cut as in a set. */
static char *one_rule(char *text)
{
	if (strchr(text, '\n'))
		return NULL;
	if (strchr(text, '#'))
		*strchr(text, '#') = '\0';
	return strim(text);
}

/*
 * A parameter write (NUL-terminated, ';' already newlines), or with
 * @edit_only a write of sysfs rules/edit: one verb or "clear", no set.
 */
static int policy_param_apply_locked(char *val, bool edit_only)
{
	struct policy_edit e = { .skip = -1 };
	const struct policy_set *cur;
	char *text = strim(val), *verb;
	unsigned int n;

	if (!policy_ready)
		return -EOPNOTSUPP;
	verb = strsep(&text, " ");
	if (!text || (strcmp(verb, "add") && strcmp(verb, "del") &&
		      strcmp(verb, "first") && strcmp(verb, "drop"))) {
		if (text)
			text[-1] = ' ';
		if (edit_only && strcmp(verb, "clear"))
			return -EINVAL;
		return policy_apply_locked(verb);
	}
	if (policy_exiting)
		return -ENODEV;
	cur = rcu_dereference_protected(policy_active, lockdep_is_held(&policy_lock));
	text = strim(text);
	switch (verb[1]) {
	case 'd':			/* add RULE */
	case 'i':			/* first RULE: and no other of its match */
		e.add = one_rule(text);
		if (!e.add)
			return -EINVAL;		/* one rule per add */
		e.front = verb[1] == 'i';
		break;
	case 'r':			/* drop MATCH: every rule of that match */
		if (!*text || strchr(text, '\n') || strchr(text, '\t') ||
		    strstr(text, "  "))
			return -EINVAL;	/* the keys as a read shows them */
		e.drop = text;
		break;
	default:			/* del N */
		if (kstrtouint(text, 10, &n) || !n || !cur || n > cur->nr)
			return -EINVAL;
		e.skip = n - 1;
	}
	return policy_edit_locked(cur, &e);
}

static int policy_param_set(const char *val, const struct kernel_param *kp)
{
	char *buf;
	int ret = 0;

	buf = kstrdup(val, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	strreplace(buf, ';', '\n');
	mutex_lock(&policy_lock);
	if (policy_loading)
		swap(policy_pending, buf);	/* applied by init */
	else
		ret = policy_param_apply_locked(buf, false);
	mutex_unlock(&policy_lock);
	kfree(buf);
	return ret;
}

/*
 * sysfs rules/edit (sysfs.c): @line (NUL-terminated, a trailing newline
 * taken) as the parameter takes an edit.  A line is one edit, so ';' is
 * a rule's own character here, not a separator.
 */
int mmtune_policy_edit(const char *line)
{
	char *buf = kstrdup(line, GFP_KERNEL);
	int ret;

	if (!buf)
		return -ENOMEM;
	mutex_lock(&policy_lock);
	ret = policy_param_apply_locked(buf, true);
	mutex_unlock(&policy_lock);
	kfree(buf);
	return ret;
}

static int policy_param_get(char *buf, const struct kernel_param *kp)
{
	const struct policy_set *set;
	struct seq_file m = { .buf = buf, .size = PAGE_SIZE };
	unsigned int i;
	size_t len = 0;

	mutex_lock(&policy_lock);
	set = rcu_dereference_protected(policy_active, lockdep_is_held(&policy_lock));
	for (i = 0; set && i < set->nr; i++) {
		policy_show_rule_text(&m, &set->rule[i]);
		seq_putc(&m, '\n');
		if (seq_has_overflowed(&m))
			break;
		len = m.count;	/* whole lines only */
	}
	mutex_unlock(&policy_lock);
	return len;
}

/* A policy= that init never saw (an earlier part failed the load). */
static void policy_param_free(void *arg)
{
	kfree(policy_pending);
	policy_pending = NULL;
}

static const struct kernel_param_ops policy_param_ops = {
	.set = policy_param_set,
	.get = policy_param_get,
	.free = policy_param_free,
};
module_param_cb(MMT_PARAM_POLICY, &policy_param_ops, NULL, 0600);
mmtune_param_desc(MMT_PARAM_POLICY,
		  "per-process fault-around rules (';' or newline between rules), or 'clear', 'add RULE', 'del N', 'first RULE', 'drop MATCH'");

/* sysfs policy/ (sysfs.c): @what is one of MMT_ABI_POLICY's names. */
/*
 * Rule @r's value of sysfs policy/@what (counts @c) at @buf + @at: what
 * debugfs policy shows on its line.  An auto field of a rule that is not
 * order=auto, and a useful share not judged yet, read "-".
 */
static int sysfs_rule_value(char *buf, int at, const char *what,
			    const struct policy_rule *r,
			    const struct policy_ctr *c)
{
	const struct mmtune_auto *a = &r->au;

	if (!strcmp(what, "hits"))
		return sysfs_emit_at(buf, at, "%llu", c->hits);
	if (!strcmp(what, "pages"))
		return sysfs_emit_at(buf, at, "%llu", c->pages);
	if (!strcmp(what, "prefaulted"))
		return sysfs_emit_at(buf, at, "%llu", c->prefaulted);
	if (!strcmp(what, "untouched"))
		return sysfs_emit_at(buf, at, "%llu", c->untouched);
	if (!r->is_auto || (!strcmp(what, "useful") && a->useful < 0))
		return sysfs_emit_at(buf, at, "-");
	if (!strcmp(what, "auto_order"))
		return sysfs_emit_at(buf, at, "%u", rule_order(r));
	if (!strcmp(what, "raised"))
		return sysfs_emit_at(buf, at, "%llu", a->raised);
	if (!strcmp(what, "lowered"))
		return sysfs_emit_at(buf, at, "%llu", a->lowered);
	if (!strcmp(what, "learned"))
		return sysfs_emit_at(buf, at, "%llu", c->auto_p);
	if (!strcmp(what, "untrusted"))
		return sysfs_emit_at(buf, at, "%llu", c->untrusted);
	/* useful: a percentage of one decimal, as debugfs's without '%' */
	return sysfs_emit_at(buf, at, "%d.%d", a->useful / 10, a->useful % 10);
}

int mmtune_policy_sysfs(const char *what, char *buf)
{
	bool pages = mmtune_hook_state(MMT_HOOK_SET_PTE) == MMT_HOOK_ON;
	const struct policy_set *set;
	struct policy_ctr c = { };
	unsigned int i;
	int len = 0;

	mutex_lock(&policy_lock);
	set = rcu_dereference_protected(policy_active, lockdep_is_held(&policy_lock));
	if (!strcmp(what, "rules")) {
		len = sysfs_emit(buf, "%u\n", set ? set->nr : 0);
	} else if (!strcmp(what, "default_hits") ||
		   !strcmp(what, "default_pages")) {
		if (set)
			ctr_sum(set, set->nr, &c);
		if (what[8] == 'p' && !pages)
			len = sysfs_emit(buf, "unavailable\n");
		else
			len = sysfs_emit(buf, "%llu\n", what[8] == 'h' ? c.hits : c.pages);
	} else if (!strcmp(what, "orders")) {
		/* the order each rule gives now: an auto rule's moves */
		for (i = 0; set && i < set->nr; i++)
			len += sysfs_emit_at(buf, len, "%s%u", i ? " " : "",
					     rule_order(&set->rule[i]));
		len += sysfs_emit_at(buf, len, "\n");
	} else if (!strcmp(what, "pages") && !pages) {
		len = sysfs_emit(buf, "unavailable\n");
	} else {
		/* one value per rule, in rule order, as debugfs policy's */
		for (i = 0; set && i < set->nr; i++) {
			ctr_sum(set, i, &c);
			len += sysfs_emit_at(buf, len, "%s", i ? " " : "");
			len += sysfs_rule_value(buf, len, what, &set->rule[i], &c);
		}
		len += sysfs_emit_at(buf, len, "\n");
	}
	mutex_unlock(&policy_lock);
	return len;
}

/*
 * sysfs rules/N/@what (sysfs.c; one of mmt_abi_rule's names): rule @n's
 * value as policy/'s lists give it, -ENODATA past the rules.  match is
 * what drop takes (policy_rule_is()'s), order the one written.
 */
int mmtune_policy_rule_sysfs(unsigned int n, const char *what, char *buf)
{
	const struct policy_set *set;
	const struct policy_rule *r;
	struct policy_ctr c;
	int len;

	mutex_lock(&policy_lock);
	set = rcu_dereference_protected(policy_active, lockdep_is_held(&policy_lock));
	if (!set || n >= set->nr) {
		mutex_unlock(&policy_lock);
		return -ENODATA;
	}
	r = &set->rule[n];
	if (!strcmp(what, "match")) {
		policy_rule_match(r, buf, PAGE_SIZE);
		len = strlen(buf);
	} else if (!strcmp(what, "order")) {
		len = r->is_auto ? sysfs_emit(buf, r->auto_file ? "auto:file" : "auto") :
				   sysfs_emit(buf, "%u", r->order);
	} else if (!strcmp(what, "pages") &&
		   mmtune_hook_state(MMT_HOOK_SET_PTE) != MMT_HOOK_ON) {
		len = sysfs_emit(buf, "unavailable");
	} else {
		ctr_sum(set, n, &c);
		len = sysfs_rule_value(buf, 0, what, r, &c);
	}
	mutex_unlock(&policy_lock);
	return len + sysfs_emit_at(buf, len, "\n");
}

/* ---- the feature ---- */

/* policy= given at load; the lock is held. */
static int policy_apply_pending_locked(void)
{
	int ret;

	policy_loading = false;
	if (!policy_pending)
		return 0;
	ret = policy_param_apply_locked(policy_pending, false);
	if (ret)
		pr_err("cannot apply policy= at load (%d)\n", ret);
	kfree(policy_pending);
	policy_pending = NULL;
	return ret;
}

static int policy_init(struct dentry *dir)
{
	int ret = policy_core_init();

	if (ret)
		return ret;
	if (policy_ready)
		debugfs_create_file("policy", 0600, dir, NULL, &policy_fops);
	mutex_lock(&policy_lock);
	ret = policy_apply_pending_locked();
	if (ret)
		policy_exiting = true;
	mutex_unlock(&policy_lock);
	if (ret)
		policy_core_exit();
	return ret;
}

const struct mmtune_feature mmtune_policy_feature = {
	.name	= "policy",
	.init	= policy_init,
	.exit	= policy_core_exit,
	.info	= policy_core_info,
};
