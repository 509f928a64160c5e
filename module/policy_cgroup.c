// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: cgroup= rules follow their path.
 *
 * A service that systemd restarts gets its cgroup removed and a new one
 * made at the same path (RestartSec defaults to 100 ms), and its first
 * task is moved in right after the mkdir.  A rule matched by a poll of
 * the path would miss the new service's start-up (its libraries, the
 * files it maps first) and an auto rule would learn from it at the wrong
 * order.  So the rule follows the kernel's own cgroup_mkdir and
 * cgroup_rmdir tracepoints: both fire under cgroup_mutex, which moving a
 * task into a cgroup takes too, so the rule holds the new cgroup before
 * its first task can be in it; and a removed cgroup is let go at its
 * rmdir (the rule matches nothing until the path is made again), so a
 * cgroup that never comes back is not pinned and nothing polls for it.
 *
 * Where the tracepoints cannot be found, the policy's poll follows the
 * path as before (policy_cgroup_follow(), every POLICY_POLL_REMOVED while
 * a rule waits).  The poll also runs the follow with the tracepoints on:
 * a rule written back while its cgroup was being made again is caught
 * there, a poll later.
 *
 * A cgroup made again is the rule's if it is on the rule's hierarchy and
 * either its parent is the removed one's parent and its name the path's
 * last component (what a restart makes, whichever cgroup namespace the
 * mkdir came from), or its path, as the tracepoint gives it, is the
 * rule's from the real root at the same depth (a parent made again too,
 * by a manager in the root cgroup namespace).
 *
 * The probes run with preemption off and under cgroup_mutex: they take
 * only a raw spinlock (also on PREEMPT_RT) and put a cgroup reference,
 * whose last put frees the cgroup after an RCU grace period (css
 * release), so a fault still matching the old pointer reads valid memory.
 */
#include <linux/cgroup.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "mmtune.h"
#include "policy.h"

/* r->cgrp, r->removed, r->parent_id and the set's gen change under it */
static DEFINE_RAW_SPINLOCK(swap_lock);

static struct tracepoint *tp_mkdir, *tp_rmdir;
/* under the policy's lock, as its callers hold */
static bool watching;
static struct policy_set __rcu **watched;	/* the probes' data */

/* The depth of @abs, a path from the root ("/" is 0, "/a/b" 2). */
static int path_level(const char *abs)
{
	int n = 0;

	for (; *abs; abs++)
		if (*abs == '/' && abs[1])
			n++;
	return n;
}

/* Whether @cgrp, just made at @path, is where removed rule @r points. */
static bool made_again(const struct policy_rule *r, struct cgroup *cgrp,
		       const char *path)
{
	const char *leaf = strrchr(r->abs, '/');
	const char *name = strrchr(path, '/');
	struct cgroup *parent = cgroup_parent(cgrp);

	if (cgrp->root != r->croot || !leaf || !name)
		return false;
	if (parent && r->parent_id && cgroup_id(parent) == r->parent_id &&
	    !strcmp(leaf + 1, name + 1))
		return true;
	return cgrp->level == path_level(r->abs) && !strcmp(path, r->abs);
}

/* Drop rule @r's cgroup (removed); returns the reference to put. */
static struct cgroup *let_go(struct policy_rule *r)
{
	struct cgroup *old = r->cgrp, *parent;

	parent = old ? cgroup_parent(old) : NULL;
	if (parent)
		r->parent_id = cgroup_id(parent);
	WRITE_ONCE(r->cgrp, NULL);
	r->removed = true;
	return old;
}

static void notrace probe_mkdir(void *data, struct cgroup *cgrp,
				const char *path)
{
	struct policy_set __rcu **cur = data;
	struct cgroup *old[POLICY_MAX_RULES];
	struct policy_set *set;
	unsigned int i, n = 0;
	bool changed = false;

	set = rcu_dereference_sched(*cur);
	if (!set || !set->nr_cgroup)
		return;
	raw_spin_lock(&swap_lock);
	for (i = 0; i < set->nr; i++) {
		struct policy_rule *r = &set->rule[i];

		if (r->kind != RULE_CGROUP || !r->removed ||
		    !made_again(r, cgrp, path))
			continue;
		cgroup_get(cgrp);
		if (r->cgrp)
			old[n++] = r->cgrp;
		WRITE_ONCE(r->cgrp, cgrp);
		r->removed = false;
		changed = true;
	}
	if (changed)
		WRITE_ONCE(set->gen, set->gen + 1);	/* cached answers go */
	raw_spin_unlock(&swap_lock);
	for (i = 0; i < n; i++)
		cgroup_put(old[i]);
}

static void notrace probe_rmdir(void *data, struct cgroup *cgrp,
				const char *path)
{
	struct policy_set __rcu **cur = data;
	struct cgroup *old[POLICY_MAX_RULES];
	struct policy_set *set;
	unsigned int i, n = 0;

	set = rcu_dereference_sched(*cur);
	if (!set || !set->nr_cgroup)
		return;
	raw_spin_lock(&swap_lock);
	for (i = 0; i < set->nr; i++) {
		struct policy_rule *r = &set->rule[i];

		if (r->kind == RULE_CGROUP && r->cgrp == cgrp)
			old[n++] = let_go(r);
	}
	if (n)
		WRITE_ONCE(set->gen, set->gen + 1);
	raw_spin_unlock(&swap_lock);
	for (i = 0; i < n; i++)
		cgroup_put(old[i]);
}

/*
 * Follow each cgroup= rule's path by looking it up (the poll's way, and
 * what a read shows as of now).  True if a rule still waits for its path
 * and nothing else will notice it made: the poll should come back soon.
 * Holds the policy's lock.
 */
bool policy_cgroup_follow(struct policy_set *set)
{
	struct cgroup *put[2 * POLICY_MAX_RULES], *cg;
	unsigned int i, n = 0;
	bool waiting = false, changed = false;

	for (i = 0; i < set->nr; i++) {
		struct policy_rule *r = &set->rule[i];

		if (r->kind != RULE_CGROUP)
			continue;
		/*
		 * The path looked up, not the cgroup's state asked: what a
		 * removed cgroup's flags say moved between kernels (7.3's
		 * css_is_dying() tests CSS_DYING, which a removed cgroup's
		 * own css did not have there), a lookup's answer did not.
		 */
		cg = cgroup_get_from_path(r->abs);
		raw_spin_lock(&swap_lock);
		if (IS_ERR(cg)) {
			if (r->cgrp) {
				put[n++] = let_go(r);
				changed = true;
			}
			waiting = true;
		} else if (cg == r->cgrp) {
			put[n++] = cg;	/* the lookup's */
			r->removed = false;
		} else {
			if (r->cgrp)
				put[n++] = r->cgrp;
			WRITE_ONCE(r->cgrp, cg);
			r->removed = false;
			changed = true;
		}
		raw_spin_unlock(&swap_lock);
	}
	if (changed) {
		raw_spin_lock(&swap_lock);
		WRITE_ONCE(set->gen, set->gen + 1);	/* cached answers go */
		raw_spin_unlock(&swap_lock);
	}
	for (i = 0; i < n; i++)
		cgroup_put(put[i]);
	return waiting && !watching;
}

/*
 * @dst's cgroup, removed state and parent as @src's now, with a reference
 * of its own: a probe may swap @src's at any time.
 */
void policy_cgroup_copy(struct policy_rule *dst, const struct policy_rule *src)
{
	raw_spin_lock(&swap_lock);
	dst->cgrp = src->cgrp;
	if (dst->cgrp)
		cgroup_get(dst->cgrp);
	dst->removed = src->removed;
	dst->parent_id = src->parent_id;
	raw_spin_unlock(&swap_lock);
}

static void find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "cgroup_mkdir"))
		tp_mkdir = tp;
	else if (!strcmp(tp->name, "cgroup_rmdir"))
		tp_rmdir = tp;
}

/*
 * Follow the tracepoints for the set that @cur points to, from now on
 * (idempotent).  Without them the poll does it.  Holds the policy's lock.
 */
void policy_cgroup_watch(struct policy_set __rcu **cur)
{
	if (watching)
		return;
	if (!tp_mkdir || !tp_rmdir)
		for_each_kernel_tracepoint(find_tp, NULL);
	if (!tp_mkdir || !tp_rmdir)
		return;
	if (tracepoint_probe_register(tp_mkdir, (void *)probe_mkdir, cur))
		return;
	if (tracepoint_probe_register(tp_rmdir, (void *)probe_rmdir, cur)) {
		tracepoint_probe_unregister(tp_mkdir, (void *)probe_mkdir, cur);
		tracepoint_synchronize_unregister();
		return;
	}
	watched = cur;
	watching = true;
}

/* No probe runs once this returns.  Holds the policy's lock. */
void policy_cgroup_unwatch(void)
{
	if (!watching)
		return;
	tracepoint_probe_unregister(tp_mkdir, (void *)probe_mkdir, watched);
	tracepoint_probe_unregister(tp_rmdir, (void *)probe_rmdir, watched);
	tracepoint_synchronize_unregister();
	watching = false;
}

bool policy_cgroup_watching(void)
{
	return watching;
}
