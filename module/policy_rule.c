// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: the policy's rules as text.  A write's rules parsed into a rule
 * set (each rule's match resolved: a comm's bytes, a process's struct pid,
 * a cgroup), a rule rendered back as written (what a read gives, and what
 * the parameter's "first" and "drop" compare), a rule copied with
 * references of its own.  The grammar, what a read gives and the errors
 * are docs/policy.md's; policy.c installs the sets and runs them.  The
 * words' syntax is policy_grammar.c's: here what they name is resolved.
 */
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/kernfs.h>
#include <linux/namei.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uidgid.h>

#include "mmtune.h"
#include "policy.h"
#include "policy_grammar.h"

/* ---- rule sets ---- */

void policy_rule_free(struct policy_rule *r)
{
	switch (r->kind) {
	case RULE_PID:
		put_pid(r->pid);
		break;
	case RULE_CGROUP:
		if (r->cgrp)	/* NULL: removed (policy_cgroup.c) */
			cgroup_put(r->cgrp);
		break;
	default:
		break;
	}
	kfree(r->path);
	kfree(r->abs);
	if (r->inode)
		iput(r->inode);
	/* after the inode: the mount it holds is what keeps its sb alive */
	if (r->fpath.mnt)
		path_put(&r->fpath);
	kfree(r->file);
	mmtune_af_put(r->files);
	r->files = NULL;
	r->inode = NULL;
	r->fpath.mnt = NULL;
	r->fpath.dentry = NULL;
	r->file = NULL;
	r->kind = RULE_NONE;
}

void policy_set_free(struct policy_set *set)
{
	unsigned int i;

	if (!set)
		return;
	for (i = 0; i < set->nr; i++)
		policy_rule_free(&set->rule[i]);
	free_percpu(set->ctr);
	free_percpu(set->cache);
	kvfree(set->slots);
	kfree(set);
}

struct policy_set *policy_set_alloc(void)
{
	struct policy_set *set;

	return kzalloc(struct_size(set, rule, POLICY_MAX_RULES), GFP_KERNEL);
}

/* ---- parsing ---- */

/* comm=: its bytes, zero-padded like task->comm */
static void resolve_comm(const char *val, struct policy_rule *r)
{
	BUILD_BUG_ON(MMT_ABI_COMM_LEN != TASK_COMM_LEN);
	memset(r->comm, 0, sizeof(r->comm));
	memcpy(r->comm, val, strlen(val));
	r->kind = RULE_COMM;
}

bool policy_pid_exited(struct pid *pid)
{
	bool exited;

	rcu_read_lock();
	exited = !pid_task(pid, PIDTYPE_TGID);
	rcu_read_unlock();
	return exited;
}

/*
 * An exited pid= rule of the current set @cur that shows as @nr to the
 * writer, or NULL.  Writing back what a read gave keeps such a rule bound
 * to its exited process (it matches nothing): never to a process that got
 * the number since, never ESRCH.
 */
static struct pid *exited_rule_pid(const struct policy_set *cur, int nr)
{
	unsigned int i;

	for (i = 0; cur && i < cur->nr; i++) {
		const struct policy_rule *r = &cur->rule[i];

		if (r->kind == RULE_PID && pid_vnr(r->pid) == nr &&
		    policy_pid_exited(r->pid))
			return r->pid;
	}
	return NULL;
}

/* pid=@nr (checked: > 0): the process, held */
static int resolve_pid(int nr, struct policy_rule *r, unsigned int line,
		       const struct policy_set *cur)
{
	struct task_struct *leader;
	struct pid *pid;

	pid = exited_rule_pid(cur, nr);
	if (pid) {
		r->pid = get_pid(pid);
		r->kind = RULE_PID;
		return 0;
	}
	pid = find_get_pid(nr);
	if (!pid) {
		pr_info_ratelimited("policy: line %u: no process %d\n", line, nr);
		return -ESRCH;
	}
	rcu_read_lock();
	leader = pid_task(pid, PIDTYPE_TGID);
	rcu_read_unlock();
	if (!leader) {
		pr_info_ratelimited("policy: line %u: %d is not a process (thread group) id\n",
				    line, nr);
		put_pid(pid);
		return -ESRCH;
	}
	r->pid = pid;
	r->kind = RULE_PID;
	return 0;
}

/*
 * A removed cgroup= rule of the current set @cur written as @path, or
 * NULL: writing back what a read gave (and add/del, which rewrite the
 * set) keeps such a rule, waiting for its path to come back.
 */
static const struct policy_rule *removed_rule(const struct policy_set *cur,
					      const char *path)
{
	unsigned int i;

	for (i = 0; cur && i < cur->nr; i++) {
		const struct policy_rule *r = &cur->rule[i];

		if (r->kind == RULE_CGROUP && r->removed &&
		    !strcmp(r->path, path))
			return r;
	}
	return NULL;
}

/*
 * The path of @cgrp from the real root, which the poll resolves from:
 * not cgroup_path(), which gives it from the writer's cgroup namespace.
 */
static char *cgroup_abs_path(struct cgroup *cgrp)
{
	char *buf = kmalloc(PATH_MAX, GFP_KERNEL), *abs;
	int len;

	if (!buf)
		return NULL;
	len = kernfs_path_from_node(cgrp->kn, NULL, buf, PATH_MAX);
	abs = len > 0 && len < PATH_MAX ? kstrdup(buf, GFP_KERNEL) : NULL;
	kfree(buf);
	return abs;
}

static int resolve_cgroup(const char *val, struct policy_rule *r,
			  unsigned int line, const struct policy_set *cur)
{
	const struct policy_rule *gone;
	struct cgroup *cgrp;

	r->path = kstrdup(val, GFP_KERNEL);
	if (!r->path)
		return -ENOMEM;
	cgrp = cgroup_get_from_path(val);
	gone = IS_ERR(cgrp) ? removed_rule(cur, val) : NULL;
	if (IS_ERR(cgrp) && !gone) {
		pr_info_ratelimited("policy: line %u: cgroup %s: %ld\n", line,
				    val, PTR_ERR(cgrp));
		return PTR_ERR(cgrp);
	}
	if (gone) {
		/* its cgroup (NULL once let go), as a probe leaves it */
		policy_cgroup_copy(r, gone);
		r->abs = kstrdup(gone->abs, GFP_KERNEL);
		r->croot = gone->croot;
	} else {
		r->abs = cgroup_abs_path(cgrp);
		r->croot = cgrp->root;
		r->cgrp = cgrp;
	}
	r->kind = RULE_CGROUP;	/* policy_rule_free() puts it from here on */
	return r->abs ? 0 : -ENOMEM;
}

/*
 * The file= rule of the current set @cur written as @file whose file is
 * deleted, or NULL: writing back what a read gave keeps such a rule on
 * the inode it holds (it matches only mappings still of that inode), as
 * an exited pid= rule keeps its process.
 */
static const struct policy_rule *kept_rule(const struct policy_set *cur,
					   const char *file)
{
	unsigned int i;

	for (i = 0; cur && i < cur->nr; i++) {
		const struct policy_rule *c = &cur->rule[i];

		if (c->file && c->inode && !c->inode->i_nlink &&
		    !strcmp(c->file, file))
			return c;
	}
	return NULL;
}

/*
 * file=PATH: the inode the path names now, held (a file replaced at the
 * path, as a package update does, is another inode: write the rule
 * again).  The real inode under overlayfs, the one its mappings map.
 *
 * The rule also holds the path, as an open file does: a reference to the
 * inode alone does not pin the mount, so umount would succeed and leave
 * the inode behind on a dead super block ("Busy inodes after unmount",
 * then a BUG or a fault at the rule's iput()).  Holding the vfsmount
 * makes umount EBUSY while the rule lives, a lazy umount or a mount
 * namespace going away keeps the file system until the rule goes, as for
 * an fd.  Under overlayfs the overlay's path is held: the overlay keeps
 * its layers (and so the real inode's super block) while it is mounted.
 */
static int resolve_file(const char *val, struct policy_rule *r,
			unsigned int line, const struct policy_set *cur)
{
	const struct policy_rule *kept;
	struct path path;
	struct inode *inode;
	int ret;

	r->file = kstrdup(val, GFP_KERNEL);
	if (!r->file)
		return -ENOMEM;
	ret = kern_path(val, LOOKUP_FOLLOW, &path);
	if (ret) {
		kept = ret == -ENOENT ? kept_rule(cur, val) : NULL;
		if (kept) {
			ihold(kept->inode);
			r->inode = kept->inode;
			if (kept->fpath.mnt) {
				r->fpath = kept->fpath;
				path_get(&r->fpath);
			}
			return 0;
		}
		pr_info_ratelimited("policy: line %u: file %s: %d\n", line, val, ret);
		return ret;
	}
	inode = d_real_inode(path.dentry);
	if (!S_ISREG(inode->i_mode)) {
		path_put(&path);
		return policy_reject(line, "file %s: not a regular file", val);
	}
	ihold(inode);
	r->inode = inode;
	r->fpath = path;	/* kern_path()'s reference, policy_rule_free()'s */
	return 0;
}

/*
 * learn_uid=N: the uid as the writer's user namespace names it; kept as
 * the kernel's own.
 */
static int resolve_learn_uid(const struct rule_words *w, struct policy_rule *r,
			     unsigned int line)
{
	kuid_t uid;

	if (w->learn_any)
		return 0;
	uid = make_kuid(current_user_ns(), w->learn_uid);
	if (!uid_valid(uid))
		return policy_reject(line, "learn_uid %u: not a user of this namespace",
				     w->learn_uid);
	r->learn_uid = uid;
	return 0;
}

struct resolve_ctx {
	struct policy_rule *r;
	const struct policy_set *cur;	/* for exited and removed rules */
};

/* A word of a rule, its syntax checked (policy_grammar.c): what it names */
static int resolve_key(void *ctx, enum mmt_abi_key key, const char *val,
		       const struct rule_words *w, unsigned int line)
{
	struct resolve_ctx *rc = ctx;
	struct policy_rule *r = rc->r;

	switch (key) {
	case MMT_KEY_comm:
		resolve_comm(val, r);
		return 0;
	case MMT_KEY_pid:
		return resolve_pid(w->pid, r, line, rc->cur);
	case MMT_KEY_cgroup:
		return resolve_cgroup(val, r, line, rc->cur);
	case MMT_KEY_file:
		return resolve_file(val, r, line, rc->cur);
	case MMT_KEY_learn_uid:
		return resolve_learn_uid(w, r, line);
	default:	/* vma=, madv=, order=: the grammar's words alone */
		return 0;
	}
}

/* One rule: "KEY=VALUE ... order=N" in any order, blanks between. */
int policy_parse_rule(char *text, struct policy_rule *r, unsigned int line,
		      const struct policy_set *cur)
{
	struct resolve_ctx rc = { .r = r, .cur = cur };
	struct rule_words w;
	int ret;

	ret = policy_grammar_rule(text, &w, line, resolve_key, &rc);
	if (ret)
		return ret;
	if (r->kind == RULE_NONE)
		r->kind = RULE_ANY;
	r->order = w.order;
	r->is_auto = w.is_auto;
	r->auto_from = w.auto_from;
	r->auto_file = w.auto_file;
	r->has_map = w.has_map;
	r->vma = w.vma;
	r->madv_random = w.madv_random;
	r->learn_any = w.learn_any;
	r->learn_given = w.given & (1u << MMT_KEY_learn_uid);
	/*
	 * Whom the writer vouches for: what an auto rule learns from its
	 * processes is theirs to steer (a process's name, the files it
	 * maps and how it reads them are its user's choice), so by default
	 * only the writer's own user's processes teach it.
	 */
	if (r->is_auto && !r->learn_given)
		r->learn_uid = current_euid();
	return 0;
}

/* @r, the set's last rule, in its counts of auto rules and its largest order */
void policy_set_account(struct policy_set *set, const struct policy_rule *r)
{
	if (r->is_auto)
		set->nr_auto++;
	if (r->kind == RULE_CGROUP)
		set->nr_cgroup++;
	if (r->has_map)
		set->nr_map++;
	set->max_order = max(set->max_order, r->is_auto ?
			     mmtune_max_order() : r->order);
}

struct set_ctx {
	struct policy_set *set;
	const struct policy_set *cur;
};

/* A line's rule, the set's next (the grammar counted it: there is room) */
static int parse_set_line(void *ctx, char *text, unsigned int line)
{
	struct set_ctx *sc = ctx;
	struct policy_rule *r = &sc->set->rule[sc->set->nr++];
	int ret;

	ret = policy_parse_rule(text, r, line, sc->cur);
	if (!ret)
		policy_set_account(sc->set, r);
	return ret;
}

/*
 * Parse a whole write into @set (room for POLICY_MAX_RULES) against the
 * current set @cur (for exited pid= rules).  *clear is set for "clear".
 * On error the caller frees the set.
 */
int policy_parse_set(char *buf, struct policy_set *set,
		     const struct policy_set *cur, bool *clear)
{
	struct set_ctx sc = { .set = set, .cur = cur };

	return policy_grammar_set(buf, clear, parse_set_line, &sc);
}

/* @r's mapping keys, each after a blank unless it is the first key */
static void policy_show_map_keys(struct seq_file *m, const struct policy_rule *r)
{
	const char *sep = r->kind == RULE_ANY ? "" : " ";

	if (r->file) {
		seq_printf(m, "%sfile=%s", sep, r->file);
		sep = " ";
	}
	if (r->vma != VMA_ANY) {
		seq_printf(m, "%svma=%s", sep, policy_vma_names[r->vma]);
		sep = " ";
	}
	if (r->madv_random)
		seq_printf(m, "%smadv=random", sep);
}

/*
 * An auto rule's learn_uid=, unless it is root's (what root's writes
 * without one get): as the reader's user namespace names it.
 */
static void policy_show_learn(struct seq_file *m, const struct policy_rule *r)
{
	if (!r->is_auto)
		return;
	if (r->learn_any)
		seq_puts(m, " learn_uid=any");
	else if (!uid_eq(r->learn_uid, GLOBAL_ROOT_UID))
		seq_printf(m, " learn_uid=%u",
			   from_kuid_munged(current_user_ns(), r->learn_uid));
}

/* The rule as it is written (task key first), without a newline. */
void policy_show_rule_text(struct seq_file *m, const struct policy_rule *r)
{
	switch (r->kind) {
	case RULE_COMM:
		seq_printf(m, "comm=%.*s", TASK_COMM_LEN, (const char *)r->comm);
		break;
	case RULE_PID:
		seq_printf(m, "pid=%d", pid_vnr(r->pid));
		break;
	case RULE_CGROUP:
		seq_printf(m, "cgroup=%s", r->path);
		break;
	default:
		break;
	}
	policy_show_map_keys(m, r);
	policy_show_learn(m, r);
	if (r->is_auto)
		seq_puts(m, r->auto_file ? " order=auto:file" : " order=auto");
	else
		seq_printf(m, " order=%u", r->order);
}

void policy_show_rule(struct seq_file *m, const struct policy_rule *r)
{
	policy_show_rule_text(m, r);
	seq_printf(m, " #%s", r->kind == RULE_PID && !pid_vnr(r->pid) ?
		   " outside this pid namespace" :
		   r->kind == RULE_PID && policy_pid_exited(r->pid) ?
		   " exited" : r->kind == RULE_CGROUP && r->removed ?
		   " removed" : r->inode && !r->inode->i_nlink ? " deleted" : "");
}

/* @dst as a copy of @src, with references of its own */
int policy_rule_dup(struct policy_rule *dst, const struct policy_rule *src)
{
	*dst = *src;
	dst->path = NULL;
	dst->abs = NULL;
	dst->file = NULL;
	dst->inode = NULL;	/* held below: an early return puts none */
	dst->fpath.mnt = NULL;
	dst->fpath.dentry = NULL;
	dst->files = mmtune_af_get(src->files);	/* the same files: the same rule */
	switch (src->kind) {
	case RULE_PID:
		get_pid(src->pid);
		break;
	case RULE_CGROUP:
		policy_cgroup_copy(dst, src);
		dst->path = kstrdup(src->path, GFP_KERNEL);
		dst->abs = kstrdup(src->abs, GFP_KERNEL);
		if (!dst->path || !dst->abs)
			return -ENOMEM;	/* policy_rule_free() takes it back */
		break;
	default:
		break;
	}
	if (src->inode) {
		ihold(src->inode);
		dst->inode = src->inode;
	}
	if (src->fpath.mnt) {
		dst->fpath = src->fpath;
		path_get(&dst->fpath);
	}
	if (src->file) {
		dst->file = kstrdup(src->file, GFP_KERNEL);
		if (!dst->file)
			return -ENOMEM;	/* policy_rule_free() takes it back */
	}
	return 0;
}

/* @r's match as a read renders it (its text up to " order="), or "". */
void policy_rule_match(const struct policy_rule *r, char *buf, size_t len)
{
	struct seq_file m = { .buf = buf, .size = len };
	char *order;

	policy_show_rule_text(&m, r);
	if (seq_has_overflowed(&m) || m.count >= len) {
		buf[0] = '\0';
		return;
	}
	buf[m.count] = '\0';
	order = strstr(buf, " order=");
	if (order)
		*order = '\0';
}

bool policy_rule_is(const struct policy_rule *r, const char *match)
{
	char buf[POLICY_MATCH_MAX];

	policy_rule_match(r, buf, sizeof(buf));
	return buf[0] && !strcmp(buf, match);
}
