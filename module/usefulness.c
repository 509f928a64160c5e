// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: fault-around's usefulness.  Of the pages fault-around maps
 * ahead of a process (every page of its window but the one that
 * faulted), how many does the process touch before they are unmapped?
 *
 * The hardware answers it, with the accessed ("young") bit of each PTE,
 * if the pre-mapped PTEs start old.  arm64 maps them old where its CPU
 * sets the bit itself, but not those in the faulting folio's run (6.5+);
 * x86 maps every one young.  So while the measurement is on:
 *
 *  - around filemap_map_pages (a kretprobe): at its entry, which PTEs of
 *    its window (as the policy narrows it: the kernel's size is raised
 *    to the largest rule's, and a walk of that would cost a rule of
 *    order 0 512 PTE reads a fault) are not empty; at its return, each
 *    that it filled but the faulting page's has its accessed bit
 *    cleared, under the page table lock, and is counted: "prefaulted".
 *    The faulting thread has not returned to user space, so no access of
 *    its own is lost.  From 6.18 the call also maps the whole of a large
 *    folio the window reaches (in the VMA and the page table): the
 *    window's end folios are looked up at entry, the range widened to
 *    them, and their pages past the window counted apart too
 *    ("beyond_window").  On arm64 without a hardware access flag the
 *    process's first touch of such a page is an access-flag fault (a
 *    minor fault, counted as one).
 *
 *  - at the entry of unmap_page_range (7.x: __zap_vma_range, the same
 *    arguments; ftrace), before the zap of a file
 *    mapping's range (munmap, exit, MADV_DONTNEED, truncation), every
 *    present PTE in the range that is still old is counted: "untouched".
 *    The faulting page and every other page the kernel maps are young,
 *    so an old PTE is a pre-mapped page nobody touched.
 *
 * useful = (prefaulted - untouched) / prefaulted, exact for the pages
 * that were both mapped and unmapped while the measurement was on, when
 * nothing else cleared accessed bits: reclaim (and MGLRU's aging, page
 * idle tracking and DAMON) do, and a touched page they aged reads as
 * untouched (a pre-mapped page that reclaim then took away reads as
 * touched).  So the file shows the pages reclaim scanned meanwhile
 * (reclaim_scanned): 0 means the figure is exact.  Pages still mapped are
 * judged when they are unmapped: read after the workload's exit.
 *
 * Why this and not a per-page record: the two counts need no memory per
 * page, nothing on the fault path but two reads of the window's PTEs and
 * the bit clear, and no walk of any process's page tables but those the
 * kernel is about to zap (under the same locks the zap holds).  The
 * price is the assumption above, which the reclaim figure makes
 * checkable, and that a PTE counts once, at its unmap.
 *
 * Why around filemap_map_pages and not at the PTE setter's return (where
 * it was first): the setter maps one page per call (6.1, and every
 * small folio later), so a probe there cost a kprobe hit per page, up to
 * 511 per fault at order 9 (2.1 times the kernel's instructions per
 * fault under make bench); this costs one per fault-around.  The price:
 * between filemap_map_pages dropping the page table lock and the return
 * handler taking it, another thread of the process may load one of the
 * new PTEs into its TLB; x86 then clears the bit without a flush, and
 * that thread's touches until the entry leaves its TLB go unseen (the
 * page reads untouched).  A window of a few hundred instructions, for
 * threads faulting in the same 2 MiB at the same moment.
 *
 * The fault path and the unmap are usefulness_path.c's; this file turns
 * them on and off and shows their counts.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/pgtable.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/sysfs.h>
#include <linux/tracepoint.h>
#include <linux/xarray.h>

#include "mmtune.h"
#include "mmtune_abi.h"
#include "compat/pte.h"
#include "compat/vmstat.h"
#include "hooks.h"
#include "auto.h"
#include "usefulness.h"

static DEFINE_MUTEX(useful_lock);
static bool useful_on;		/* under useful_lock */
static u64 pgscan_from;		/* the kernel's pgscan at enable */
static unsigned long missed_from;	/* the kretprobe's at enable */
static unsigned long shared_from;	/* rules.c's shared matches at enable */
static enum { USEFUL_LOADING, USEFUL_READY, USEFUL_GONE } useful_state;
static int pending_enable = -1;

/* ---- on and off ---- */

static bool tp_on;		/* under useful_lock: the tracepoint way is on */

/*
 * The tracepoint way, if the kernel has its tracepoint and the
 * filemap_map_pages hook reads arguments here: the entry hook first, so
 * the probe's first call finds a stash.  0 with tp_on false: use the
 * kretprobe way.
 */
static int tp_way_get(void)
{
	int ret;

	if (!useful_tp_ready())
		return 0;
	useful_way(true);
	ret = mmtune_hooks_get(&useful_user);
	if (ret)
		return ret;
	if (!mmtune_hook_held(&useful_user, MMT_HOOK_FAULT_AROUND) ||
	    !mmtune_hooks_args_writable()) {
		mmtune_hooks_put(&useful_user);
		return 0;
	}
	ret = useful_tp_register();
	if (ret) {
		pr_err("usefulness: cannot register on mm_filemap_map_pages (%d)\n",
		       ret);
		mmtune_hooks_put(&useful_user);
		return ret;
	}
	tp_on = true;
	return 0;
}

static void tp_way_put(void)
{
	useful_tp_unregister();
	tp_on = false;
}

/*
 * Both ends of filemap_map_pages and the zap hook, or nothing: marking
 * pages old without judging them (or the reverse) would count nothing
 * true.  A fresh start clears the counts.
 */
static int useful_enable_locked(void)
{
	int ret;

	if (useful_on)
		return 0;
	if (!MMTUNE_HAVE_PTE_MKOLD || IS_ENABLED(CONFIG_PREEMPT_RT))
		return -EOPNOTSUPP;
	ret = tp_way_get();
	if (!ret && !tp_on) {
		useful_way(false);
		ret = mmtune_hooks_get(&useful_user);
	}
	if (ret)
		return ret;
	if ((!tp_on && !mmtune_hook_held(&useful_user, MMT_HOOK_MAP_RETURN)) ||
	    !mmtune_hook_held(&useful_user, MMT_HOOK_ZAP)) {
		if (tp_on)
			tp_way_put();
		mmtune_hooks_put(&useful_user);
		pr_err("usefulness: a hook is unavailable (see info)\n");
		return -ENODEV;
	}
	useful_counters_clear();
	mmtune_auto_forget();	/* the hooks just placed: no count of before */
	pgscan_from = mmtune_kernel_pgscan();
	missed_from = mmtune_hook_missed(MMT_HOOK_MAP_RETURN);
	shared_from = mmtune_policy_matches_shared();
	useful_on = true;
	mmtune_policy_measured(true);
	mmtune_policy_share_match(!tp_on);
	return 0;
}

static int useful_set_locked(bool on)
{
	if (on)
		return useful_enable_locked();
	if (useful_on) {
		if (tp_on)
			tp_way_put();	/* before the entry hook: see tp_way_get */
		mmtune_policy_share_match(false);
		mmtune_hooks_put(&useful_user);
		useful_on = false;
		mmtune_policy_measured(false);
	}
	return 0;
}

/* ---- files ---- */

/* Whether pre-mapped pages are being marked and judged now. */
bool mmtune_useful_enabled(void)
{
	return READ_ONCE(useful_on);
}

static const char *useful_absent(void)
{
	if (!MMTUNE_HAVE_PTE_MKOLD)
		return "unavailable (no accessed-bit clear for this arch)";
	/*
	 * The return probe runs with preemption off (rethook) and takes the
	 * page table's spinlock_t, a sleeping lock on PREEMPT_RT: refused
	 * there rather than sleeping in atomic context on every fault.
	 */
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return "unavailable (PREEMPT_RT: the page table lock sleeps there)";
	if (mmtune_hook_state(MMT_HOOK_MAP_RETURN) == MMT_HOOK_UNAVAILABLE ||
	    mmtune_hook_state(MMT_HOOK_ZAP) == MMT_HOOK_UNAVAILABLE)
		return "unavailable (a hook is: see info)";
	return NULL;
}

/* One decimal: (p - u) / p in per mille, u clamped to p. */
static void show_ratio(struct seq_file *m, u64 p, u64 u)
{
	u64 pm;

	if (!p) {
		seq_puts(m, "useful: -\n");
		return;
	}
	pm = div64_u64((p - min(u, p)) * 1000, p);
	seq_printf(m, "useful: %llu.%llu%%\n", pm / 10, pm % 10);
}

static int useful_show(struct seq_file *m, void *v)
{
	const char *absent = useful_absent();
	unsigned long walk_slots;
	struct useful_pcpu s;
	u64 walk_ns;

	mutex_lock(&useful_lock);
	seq_printf(m, "state: %s\n", useful_on ? "on" : absent ? absent : "off");
	useful_sum(&s);
	useful_walk_max(&walk_slots, &walk_ns);
	seq_printf(m, "prefaulted: %llu\n", s.prefaulted);
	seq_printf(m, "untouched: %llu\n", s.untouched);
	show_ratio(m, s.prefaulted, s.untouched);
	seq_printf(m, "beyond_window: %llu\n", s.beyond);
	seq_printf(m, "unfolded: %llu\n", s.unfolded);
	seq_printf(m, "unattributed: %llu\n", s.unattributed);
	seq_printf(m, "unmaps: %llu\n", s.zaps);
	seq_printf(m, "unjudged: %llu\n", s.unjudged);
	seq_printf(m, "unmaps_cut: %llu\n", s.cut);
	seq_printf(m, "longest_walk: %lu ptes %llu ns\n",
		   walk_slots, walk_ns);
	if (useful_on) {
		seq_printf(m, "missed: %llu\n", s.missed + (tp_on ? 0 :
			   mmtune_hook_missed(MMT_HOOK_MAP_RETURN) - missed_from));
		seq_printf(m, "reclaim_scanned: %llu\n",
			   mmtune_kernel_pgscan() - pgscan_from);
		/* the kretprobe way: calls whose rule was matched once */
		if (!tp_on)
			seq_printf(m, "shared_matches: %lu\n",
				   mmtune_policy_matches_shared() - shared_from);
	}
	mutex_unlock(&useful_lock);
	return 0;
}

static int useful_open(struct inode *inode, struct file *file)
{
	return single_open(file, useful_show, NULL);
}

static const struct file_operations useful_fops = {
	.owner		= THIS_MODULE,
	.open		= useful_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static ssize_t enable_read(struct file *file, char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	return mmtune_read_bool(ubuf, count, ppos, READ_ONCE(useful_on));
}

static ssize_t enable_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	bool on;
	int ret;

	ret = mmtune_write_get_bool(ubuf, count, ppos, &on);
	if (!ret) {
		mutex_lock(&useful_lock);
		ret = useful_set_locked(on);
		mutex_unlock(&useful_lock);
	}
	return mmtune_write_done(ret, count, ppos);
}

static const struct file_operations enable_fops = {
	.owner	= THIS_MODULE,
	.read	= enable_read,
	.write	= enable_write,
};

/* ---- the parameter: the same, where lockdown leaves it writable ---- */

static int enable_param_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = 0;

	if (kstrtobool(val, &on))
		return -EINVAL;
	mutex_lock(&useful_lock);
	if (useful_state == USEFUL_LOADING)
		pending_enable = on;	/* applied by init */
	else if (useful_state == USEFUL_GONE)
		ret = -ENODEV;
	else
		ret = useful_set_locked(on);
	mutex_unlock(&useful_lock);
	return ret;
}

static int enable_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(useful_on));
}

static const struct kernel_param_ops enable_param_ops = {
	.set = enable_param_set,
	.get = enable_param_get,
};
module_param_cb(MMT_PARAM_USEFULNESS_ENABLE, &enable_param_ops, NULL, 0644);
mmtune_param_desc(MMT_PARAM_USEFULNESS_ENABLE,
		  "1 maps fault-around's extra pages old and counts those untouched at unmap (as debugfs usefulness_enable)");

/* ---- the feature ---- */

static int useful_init(struct dentry *dir)
{
	int ret = 0;

	ret = useful_path_init();
	if (ret)
		return ret;
	mutex_lock(&useful_lock);
	useful_state = USEFUL_READY;
	if (pending_enable > 0)
		ret = useful_set_locked(true);
	/*
	 * Not on this kernel (PREEMPT_RT, no PTE setter hook): a setting
	 * saved where it worked (mmtunectl save) must not cost the module
	 * its load and every other setting with it.
	 */
	if (ret == -EOPNOTSUPP || ret == -ENODEV) {
		pr_info("usefulness_enable=1 at load: not available on this kernel (%d), loading without it\n",
			ret);
		ret = 0;
	}
	if (ret)
		useful_state = USEFUL_GONE;
	mutex_unlock(&useful_lock);
	if (ret) {
		pr_err("cannot apply usefulness_enable=1 at load (%d)\n", ret);
		useful_path_exit();
		return ret;
	}
	debugfs_create_file("usefulness", 0400, dir, NULL, &useful_fops);
	debugfs_create_file("usefulness_enable", 0600, dir, NULL, &enable_fops);
	return 0;
}

static void useful_exit(void)
{
	mutex_lock(&useful_lock);
	useful_state = USEFUL_GONE;
	useful_set_locked(false);	/* waits for the hooks' callbacks */
	mutex_unlock(&useful_lock);
	useful_path_exit();
}

MMTUNE_INFO_SHOW(useful_enable, "%d", READ_ONCE(useful_on))

static ssize_t useful_avail_show(char *buf, unsigned int arg)
{
	const char *absent = useful_absent();

	return sysfs_emit(buf, "%s\n", absent ? absent : "available");
}

MMTUNE_INFO_SHOW(useful_max_order, "%u", mmtune_useful_max_order())

/* the way in use, or the one enable tries first */
static ssize_t useful_end_show(char *buf, unsigned int arg)
{
	return sysfs_emit(buf, "%s\n",
			  (READ_ONCE(useful_on) ? READ_ONCE(tp_on) : useful_tp_ready()) ?
			  "tracepoint mm_filemap_map_pages" :
			  "kretprobe filemap_map_pages");
}

/* arm64's contiguous blocks: split to be judged (compat/pte.h) */
MMTUNE_INFO_SHOW(useful_contpte, "%s",
		 IS_ENABLED(CONFIG_ARM64_CONTPTE) ? "unfold" : "none")

static const struct mmtune_info useful_info[] = {
	{ "usefulness_enable", useful_enable_show },
	{ "usefulness", useful_avail_show },
	{ "usefulness_max_order", useful_max_order_show },
	{ "usefulness_end", useful_end_show },
	{ "usefulness_contpte", useful_contpte_show },
	{ }
};

const struct mmtune_feature mmtune_usefulness_feature = {
	.name	= "usefulness",
	.init	= useful_init,
	.exit	= useful_exit,
	.info	= useful_info,
};
