// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: per-process fault-around policy.  The rules (policy_rule.c
 * parses and renders them; their grammar, what a read gives and the
 * errors are docs/policy.md's) are matched on the fault path by the
 * rules core (rules.c), installed and polled here (for the kernel's size,
 * removed cgroups and order=auto's live processes and judgement), and
 * read and written through policy_file.c's debugfs "policy" and
 * "policy" parameter.
 *
 * Mechanism.  While rules exist, the policy holds the filemap_map_pages
 * entry hook of the hooks layer (hooks.c), also with stats off.  The
 * kernel's own fault-around size is raised to
 * the largest order a rule or the default needs, and the hook narrows
 * every window [start_pgoff, end_pgoff] around the faulting page to the
 * order of the first matching rule, or to the default order D: the order
 * that was in force when the first rule was written (the user's global
 * order), so processes without a rule see exactly what they saw before.
 * The narrowed window is the one the kernel itself computes at that order:
 * the naturally aligned block (by virtual address) around the fault,
 * clamped to the VMA and the page table.  Both are powers of two no larger
 * than a page table, so that block lies inside the kernel's own window at
 * the raised order, and the intersection of the two is exactly the
 * kernel's window at the lower order.  Narrowing only ever shrinks the
 * kernel's window, so it never crosses the VMA or the page table and
 * never maps past EOF (filemap_map_pages clamps to i_size itself).  Order
 * 0 leaves the faulting page alone in the window: filemap_map_pages maps
 * just that page (if it is cached and up to date) and the fault ends
 * there, else the kernel's ->fault path maps it; either way one fault per
 * page, as with fault-around off.
 *
 * The global order while rules exist.  The default order D is
 * fault_around.c's base order: fault_around_order and the module
 * parameter read and write it while the kernel's size stays raised, and a
 * write to the kernel's own fault_around_bytes becomes it as soon as it is
 * seen (every POLICY_POLL, every read or write of the policy file);
 * fault_around.c's lock serialises all of it.  Until a raise catches up,
 * windows are narrowed to the lower of the target and what the kernel
 * gives.  Clearing the rules or unloading puts D back into the kernel.
 * While rules exist the hooks hold an FTRACE_OPS_FL_PERMANENT ops, so
 * ftrace_enabled=0 (which would stop the narrowing) is refused.

 */
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>

#include "mmtune.h"
#include "hooks.h"
#include "auto.h"
#include "live.h"
#include "policy.h"
#include "rules.h"

/* a rule set's install, the poll, every file's read and write, init and exit */
DEFINE_MUTEX(policy_lock);
bool policy_ready, policy_exiting;
static char policy_reason[96] = "off: not initialised";

static void policy_poll(struct work_struct *work);
static DECLARE_DELAYED_WORK(poll_work, policy_poll);

/*
 * The policy as a user of the hooks: it holds filemap_map_pages while
 * rules exist, with or without stats, and keeps ftrace_enabled on.
 */
static struct mmtune_hook_user policy_user = {
	.name		= "policy",
	.slot		= MMT_SLOT_POLICY,
	.wants		= BIT(MMT_HOOK_FAULT_AROUND),
	.fn		= {
		[MMT_HOOK_FAULT_AROUND] = policy_fault_around,
		[MMT_HOOK_SET_PTE] = policy_mapped,
	},
	.permanent	= true,
};

/*
 * The policy's hook, refused unless the self-test proved that a
 * callback's change of an argument reaches the traced function here.
 */
static int policy_hooks_get(void)
{
	bool held;
	int ret;

	ret = mmtune_hooks_get(&policy_user);
	if (ret)
		return ret;
	held = mmtune_hook_held(&policy_user, MMT_HOOK_FAULT_AROUND);
	if (held && mmtune_hooks_args_writable())
		return 0;
	pr_err("policy: %s\n", !held ?
	       "the filemap_map_pages hook is unavailable (see info)" :
	       "changing filemap_map_pages' arguments failed the self-test");
	mmtune_hooks_put(&policy_user);
	return held ? -EOPNOTSUPP : -ENODEV;
}

/* ---- installing ---- */

/*
 * The kernel's size and the base order (what faults without a rule get)
 * are fault_around.c's, under its lock: a write to the knob or the
 * parameter while rules exist sets the base and the kernel stays raised;
 * a write to the kernel's own file is noticed by mmtune_fa_sync() (at
 * every poll, read and write of the policy file).
 */

/* Drop every rule; put the base order back.  Holds policy_lock. */
static void stop_locked(void)
{
	struct policy_set *old;

	old = rcu_dereference_protected(policy_active, lockdep_is_held(&policy_lock));
	if (!old)
		return;
	/* first, while unmatched faults are still narrowed to the base */
	mmtune_fa_unraise();
	RCU_INIT_POINTER(policy_active, NULL);
	policy_cgroup_unwatch();	/* its probes read the set */
	synchronize_rcu();
	policy_set_free(old);
	mmtune_hooks_put(&policy_user);
}

/* Install @set (not NULL); on error nothing changed and @set is not ours. */
static int install_locked(struct policy_set *set)
{
	struct policy_set *old;
	int ret;

	old = rcu_dereference_protected(policy_active, lockdep_is_held(&policy_lock));
	if (!old) {
		ret = policy_hooks_get();
		if (ret)
			return ret;
		mmtune_auto_forget();
	}

	set->gen = 1;		/* its cache's entries, zeroed, are of none */
	/* narrowing first, then the kernel's size: never a wider window */
	rcu_assign_pointer(policy_active, set);
	ret = mmtune_fa_raise(set->max_order);
	if (ret) {
		rcu_assign_pointer(policy_active, old);
		synchronize_rcu();
		if (!old)
			mmtune_hooks_put(&policy_user);
		return ret;
	}
	if (set->nr_cgroup)
		policy_cgroup_watch(&policy_active);
	if (old) {
		synchronize_rcu();
		mmtune_auto_carry(set, old);
		policy_set_free(old);
	} else {
		queue_delayed_work(system_power_efficient_wq, &poll_work,
				   POLICY_POLL);
	}
	return 0;
}

/*
 * Whether usefulness.c measures (it says so at enable and disable, under
 * its lock): told, not asked, so that policy.c calls nothing of it.
 */
static bool measured;

void mmtune_policy_measured(bool on)
{
	WRITE_ONCE(measured, on);
}

/*
 * Whether usefulness.c's return probe (the kretprobe way) measures: then
 * the policy's hook takes the probe's match of a call, or leaves it its
 * own (rules.c's match_once()).  Swapped, not tested: no cost without.
 */
void mmtune_policy_share_match(bool on)
{
	mmtune_hook_swap(&policy_user, MMT_HOOK_FAULT_AROUND,
			 on ? policy_fault_around_shared : policy_fault_around);
}

/*
 * Install @set (parsed, not yet counted or started; @clear: "clear"),
 * against the current set @cur.  @set is freed unless it is the policy's
 * now.
 */
int policy_install_locked(struct policy_set *set,
			  const struct policy_set *cur, bool clear)
{
	int ret = 0;

	if (!clear)
		ret = mmtune_auto_start_rules(set, cur);
	if (!ret && !clear) {
		set->ctr = __alloc_percpu(sizeof(struct policy_ctr) * (set->nr + 1),
					  __alignof__(struct policy_ctr));
		set->cache = alloc_percpu(struct policy_match);
		set->slots = policy_slots_alloc();
		if (!set->ctr || !set->cache || !set->slots)
			ret = -ENOMEM;
	}
	if (!ret && clear) {
		stop_locked();
	} else if (!ret) {
		ret = install_locked(set);
		if (!ret)
			set = NULL;	/* the policy's now */
	}
	policy_set_free(set);
	return ret;
}

/*
 * Every POLICY_POLL while rules exist: the kernel's size, live.c's walk
 * of the auto rules' live processes, their judgement, removed cgroups.
 */
static void policy_poll(struct work_struct *work)
{
	unsigned long ids[POLICY_MAX_RULES];
	struct policy_set *set;
	bool waiting = false;
	unsigned int i, n;

	mutex_lock(&policy_lock);
	set = rcu_dereference_protected(policy_active, lockdep_is_held(&policy_lock));
	if (set) {
		mmtune_fa_sync();
		for (i = 0, n = 0; i < set->nr; i++)
			if (set->rule[i].is_auto)
				ids[n++] = set->rule[i].au.id;
		if (n && READ_ONCE(measured))
			mmtune_live_poll(set, ids, n);
		mmtune_auto_judge_rules(set);
		waiting = policy_cgroup_follow(set);
	}
	if (rcu_access_pointer(policy_active) && !policy_exiting)
		queue_delayed_work(system_power_efficient_wq, &poll_work,
				   waiting ? POLICY_POLL_REMOVED : POLICY_POLL);
	mutex_unlock(&policy_lock);
}

/* ---- the life cycle: policy_file.c's init, exit and info ---- */

static int policy_init_feature(void)
{
	if (!mmtune_fa_available()) {
		strscpy(policy_reason, "off: no fault-around knob (see fault_around)",
			sizeof(policy_reason));
		return 0;
	}
	if (mmtune_hook_state(MMT_HOOK_FAULT_AROUND) == MMT_HOOK_UNAVAILABLE) {
		strscpy(policy_reason,
			"off: no filemap_map_pages hook (see hook_filemap_map_pages)",
			sizeof(policy_reason));
		return 0;
	}
	policy_ready = true;
	strscpy(policy_reason, "on", sizeof(policy_reason));
	return 0;
}

/* auto.c's counts, and whether the policy can be on (policy_ready) */
int policy_core_init(void)
{
	int ret = mmtune_auto_init();

	if (ret)
		return ret;
	return policy_init_feature();
}

void policy_core_exit(void)
{
	mutex_lock(&policy_lock);
	policy_exiting = true;
	mutex_unlock(&policy_lock);
	cancel_delayed_work_sync(&poll_work);

	mutex_lock(&policy_lock);
	stop_locked();
	mutex_unlock(&policy_lock);
	mmtune_auto_exit();
}

MMTUNE_INFO_SHOW(policy_reason, "%s", policy_reason)

enum {
	POL_RULES, POL_MAX_RULES, POL_DEFAULT_ORDER, POL_KERNEL_ORDER,
	POL_CGROUP_FOLLOW, POL_AUTO_CHANGES, POL_AUTO_LOST,
	POL_LIVE,	/* + enum mmtune_live_count */
};

/* Of the set now: the base and the kernel's order, none without rules. */
static ssize_t policy_orders_show(char *buf, unsigned int what,
				  const struct policy_set *set)
{
	unsigned int base, live;

	if (!set || mmtune_fa_get_order(&base) ||
	    mmtune_fa_kernel_order(&live))
		return -ENODATA;
	return sysfs_emit(buf, "%u\n", what == POL_DEFAULT_ORDER ? base : live);
}

/* The policy's values: none while it cannot be on (policy_reason says). */
static ssize_t policy_show(char *buf, unsigned int what)
{
	const struct policy_set *set;
	ssize_t len;

	if (!policy_ready)
		return -ENODATA;
	mutex_lock(&policy_lock);
	set = rcu_dereference_protected(policy_active, lockdep_is_held(&policy_lock));
	if (what == POL_RULES)
		len = sysfs_emit(buf, "%u\n", set ? set->nr : 0);
	else if (what == POL_MAX_RULES)
		len = sysfs_emit(buf, "%u\n", POLICY_MAX_RULES);
	else if (what == POL_DEFAULT_ORDER || what == POL_KERNEL_ORDER)
		len = policy_orders_show(buf, what, set);
	else if (what == POL_CGROUP_FOLLOW)
		len = sysfs_emit(buf, "%s\n", policy_cgroup_watching() ? "tracepoints" :
				 set && set->nr_cgroup ? "poll" : "off");
	else if (what == POL_AUTO_CHANGES)
		len = sysfs_emit(buf, "%llu\n", mmtune_auto_changes());
	else if (what == POL_AUTO_LOST)
		len = sysfs_emit(buf, "%llu\n", mmtune_auto_lost());
	else
		len = sysfs_emit(buf, "%llu\n", mmtune_live_count(what - POL_LIVE));
	mutex_unlock(&policy_lock);
	return len;
}

const struct mmtune_info policy_core_info[] = {
	{ "policy", policy_reason_show },
	{ "policy_rules", policy_show, POL_RULES },
	{ "policy_max_rules", policy_show, POL_MAX_RULES },
	{ "policy_default_order", policy_show, POL_DEFAULT_ORDER },
	{ "policy_kernel_order", policy_show, POL_KERNEL_ORDER },
	{ "policy_cgroup_follow", policy_show, POL_CGROUP_FOLLOW },
	{ "policy_auto_changes", policy_show, POL_AUTO_CHANGES },
	{ "policy_auto_lost", policy_show, POL_AUTO_LOST },
	{ "policy_live_passes", policy_show, POL_LIVE + MMT_LIVE_PASSES },
	{ "policy_live_slots", policy_show, POL_LIVE + MMT_LIVE_SLOTS },
	{ "policy_live_busy", policy_show, POL_LIVE + MMT_LIVE_BUSY },
	{ "policy_live_poll_max_us", policy_show,
	  POL_LIVE + MMT_LIVE_POLL_MAX_US },
	{ "policy_live_scanned", policy_show, POL_LIVE + MMT_LIVE_SCANNED },
	{ "policy_live_scan_rcu_max", policy_show,
	  POL_LIVE + MMT_LIVE_SCAN_RCU_MAX },
	{ }
};
