// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: fault-path counters and the latency histogram.
 *
 * debugfs files (all root-only):
 *   stats           "name value" lines; "unavailable" instead of the value
 *                   when the hook that feeds the counter cannot be placed on
 *                   this kernel.  Writing "0" resets every counter and the
 *                   latency histogram.
 *   stats_enable    "0" (default) or "1": "1" asks the hooks layer (hooks.c)
 *                   for the hooks below, "0" gives every one of them back.
 *   latency_enable  "1" (default) or "0": whether "stats_enable 1" also
 *                   times handle_mm_fault (a kretprobe, dearer than the
 *                   counters).  Can be changed only while stats are off.
 *   mapped_enable   "0" (default) or "1": whether "stats_enable 1" also
 *                   counts the pages fault-around mapped (a callback per
 *                   call of the PTE setter: per page on 6.1).  Can be
 *                   changed only while stats are off.
 *   latency         the histogram, format in latency.c.
 *
 * The counters are per CPU and only ever written by their own CPU (with
 * preemption off, inside the hooks); readers sum them.  A reset does not
 * write them: it records the current sums as a base that later reads
 * subtract, so a reset cannot race with an increment on another CPU.
 *
 * What each counter costs on the fault path (bench/RESULTS.md measures it
 * in guest instructions per fault):
 *   faults          nothing: the kernel's own PGFAULT event (/proc/vmstat
 *                   pgfault, counted at the top of handle_mm_fault) while
 *                   stats are on, read from its per-CPU counters.
 *   fault_around_calls, fault_around_pages_requested
 *                   one ftrace callback per fault-around call, at the
 *                   entry of filemap_map_pages.
 *   fault_around_pages_mapped
 *                   only with mapped_enable 1 ("off" in stats otherwise):
 *                   one callback per call of the PTE setter from
 *                   fault-around, once per page on 6.1 (do_set_pte), once
 *                   per run of a folio's pages from 6.5 (set_pte_range).
 *                   16 callbacks a fault at order 4 cost more than the
 *                   fault-around call itself, hence its own switch.
 * Two users of the hooks layer: the counters and the latency (a
 * kretprobe on handle_mm_fault).
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>

#include "mmtune.h"
#include "mmtune_abi.h"
#include "compat/vmstat.h"
#include "hooks.h"
#include "stats.h"

/* allocated at init, never NULL while a hook is held */
static struct mmtune_pcpu_stats __percpu *mmtune_pcpu;

static __always_inline void ctr_add(enum mmtune_ctr c, u64 n)
{
	this_cpu_add(mmtune_pcpu->ctr[c], n);
}

/* ---- latency: which fault did fault-around ---- */

/*
 * The kretprobe times handle_mm_fault; the filemap_map_pages callback must
 * tell it "this fault did fault-around".  A fault can sleep and move to
 * another CPU, so per-CPU state would misattribute; instead each task
 * marks a slot chosen by hashing its task_struct pointer: the entry
 * writes the pointer, filemap_map_pages sets bit 0 if the slot still
 * holds it, and the return reads it back.  A slot taken over by another
 * task in between (two tasks with the same hash faulting at once) no
 * longer holds our pointer: that fault is counted as unclassified, never
 * in the wrong column.  One slot per cache line, so CPUs do not share.
 */
#define LAT_SLOT_BITS	8

struct lat_slot {
	unsigned long v;
} ____cacheline_aligned_in_smp;

static struct lat_slot lat_slots[1 << LAT_SLOT_BITS];
static bool lat_classify;	/* the filemap_map_pages callback marks slots */

static __always_inline struct lat_slot *lat_slot_of_current(void)
{
	return &lat_slots[hash_ptr(current, LAT_SLOT_BITS)];
}

/* ---- the callbacks ---- */

/* After the policy's: the window filemap_map_pages gets. */
static void notrace fault_around_cb(struct mmtune_hook_call *c)
{
	unsigned long start = mmtune_call_arg(c, 1);
	unsigned long end = mmtune_call_arg(c, 2);

	ctr_add(MMT_CTR_FA_CALLS, 1);
	if (end >= start)
		ctr_add(MMT_CTR_FA_REQUESTED, end - start + 1);
	if (READ_ONCE(lat_classify)) {
		struct lat_slot *s = lat_slot_of_current();
		unsigned long me = (unsigned long)current;

		if (READ_ONCE(s->v) == me)
			WRITE_ONCE(s->v, me | 1);
	}
}

static void notrace set_pte_cb(struct mmtune_hook_call *c)
{
	ctr_add(MMT_CTR_FA_MAPPED, c->nr);
}

struct lat_data {
	u64 t0;
};

static int notrace lat_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct lat_data *d = (struct lat_data *)ri->data;

	WRITE_ONCE(lat_slot_of_current()->v, (unsigned long)current);
	d->t0 = local_clock();
	return 0;
}

NOKPROBE_SYMBOL(lat_entry);

static int notrace lat_return(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct lat_data *d = (struct lat_data *)ri->data;
	u64 now = local_clock();
	unsigned long v = READ_ONCE(lat_slot_of_current()->v);
	unsigned int b;

	/*
	 * No time measured: the fault returned on a CPU whose clock is
	 * behind the one it entered on, or the clock did not advance (an
	 * unstable sched_clock, under emulation).  Not a fault of 0 ns: it
	 * is left out of the histogram and counted apart (untimed), so that
	 * the histogram and its exports (Prometheus) hold real times only.
	 */
	if (now <= d->t0) {
		ctr_add(MMT_CTR_LAT_UNTIMED, 1);
		return 0;
	}
	b = min_t(unsigned int, fls64(now - d->t0), MMT_LAT_BUCKETS - 1);
	if ((v & ~1UL) != (unsigned long)current || !READ_ONCE(lat_classify))
		ctr_add(MMT_CTR_LAT_UNCLASSIFIED, 1);
	else
		this_cpu_inc(mmtune_pcpu->lat[v & 1 ? MMT_LAT_FA : MMT_LAT_NOFA][b]);
	return 0;
}

NOKPROBE_SYMBOL(lat_return);

static struct mmtune_hook_user counters_user = {
	.name	= "stats",
	.slot	= MMT_SLOT_STATS,
	.fn	= {
		[MMT_HOOK_FAULT_AROUND] = fault_around_cb,
		[MMT_HOOK_SET_PTE] = set_pte_cb,
	},
};

static struct mmtune_hook_user latency_user = {
	.name		= "latency",
	.slot		= MMT_SLOT_STATS,
	.wants		= BIT(MMT_HOOK_LATENCY),
	.krp_entry	= lat_entry,
	.krp_return	= lat_return,
	.krp_data_size	= sizeof(struct lat_data),
};

static DEFINE_MUTEX(stats_lock);
static bool stats_on;	/* under stats_lock */

/*
 * The settings that change only while stats are off (EBUSY otherwise):
 * which of the dearer hooks "stats_enable 1" asks for.  @on is under
 * stats_lock; @pending is a value given at load, applied by init (-1:
 * none); @off_note is what info says of @hook while @on is 0.
 */
enum { OPT_LATENCY, OPT_MAPPED, OPT_NR };

struct stats_opt {
	enum mmtune_hook_id hook;
	const char *off_note;
	bool on;
	int pending;
};

static struct stats_opt opts[OPT_NR] = {
	[OPT_LATENCY] = { MMT_HOOK_LATENCY, "latency_enable is 0", true, -1 },
	[OPT_MAPPED] = { MMT_HOOK_SET_PTE, "mapped_enable is 0", false, -1 },
};

/* ---- faults: the kernel's own count ---- */

/*
 * faults_acc: the PGFAULT events of the earlier periods with stats on;
 * faults_from: the events' sum when the current one began.  Under
 * stats_lock.
 */
static u64 faults_acc, faults_from;

static u64 faults_now_locked(void)
{
	return faults_acc + (stats_on ? mmtune_kernel_pgfaults() - faults_from : 0);
}

static struct mmtune_pcpu_stats base;	/* sums at the last reset */
static unsigned long base_missed;

/*
 * Whether the parameters below act now (READY), wait for init (LOADING:
 * modprobe's values arrive before it) or are refused (GONE: unloading).
 */
static enum { STATS_LOADING, STATS_READY, STATS_GONE } stats_state;
static int pending_enable = -1;

/* Sum of every CPU's counters into @sum.  Caller holds stats_lock. */
static void stats_sum(struct mmtune_pcpu_stats *sum)
{
	unsigned int i, k, b;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct mmtune_pcpu_stats *p = per_cpu_ptr(mmtune_pcpu, cpu);

		for (i = 0; i < MMT_CTR_NR; i++)
			sum->ctr[i] += READ_ONCE(p->ctr[i]);
		for (k = 0; k < MMT_LAT_KINDS; k++)
			for (b = 0; b < MMT_LAT_BUCKETS; b++)
				sum->lat[k][b] += READ_ONCE(p->lat[k][b]);
	}
	sum->ctr[MMT_CTR_FAULTS] = faults_now_locked();
}

/* The counters since the last reset.  Caller holds stats_lock. */
static void stats_since_reset(struct mmtune_pcpu_stats *s)
{
	unsigned int i, k, b;

	stats_sum(s);
	for (i = 0; i < MMT_CTR_NR; i++)
		s->ctr[i] -= base.ctr[i];
	for (k = 0; k < MMT_LAT_KINDS; k++)
		for (b = 0; b < MMT_LAT_BUCKETS; b++)
			s->lat[k][b] -= base.lat[k][b];
}

/* ---- stats ---- */

static void stats_reset_locked(void)
{
	lockdep_assert_held(&stats_lock);
	stats_sum(&base);
	base_missed = mmtune_hook_missed(MMT_HOOK_LATENCY);
}

static void stats_reset(void)
{
	mutex_lock(&stats_lock);
	stats_reset_locked();
	mutex_unlock(&stats_lock);
}

/*
 * The counters and histogram since the last reset into @s (allocated by
 * the caller: it is too large for the stack), and the faults the latency
 * kretprobe missed since then into @missed (may be NULL).
 */
void mmtune_stats_snapshot(struct mmtune_pcpu_stats *s, unsigned long *missed)
{
	unsigned long m;

	mutex_lock(&stats_lock);
	stats_since_reset(s);
	m = mmtune_hook_missed(MMT_HOOK_LATENCY) - base_missed;
	mutex_unlock(&stats_lock);
	if (missed)
		*missed = m;
}

/*
 * The name of counter @i in stats (NULL: not a stats line): mmtune_abi.h's
 * table, in enum mmtune_ctr's order; MMT_CTR_LAT_UNCLASSIFIED and
 * MMT_CTR_LAT_UNTIMED, past its end, are in latency.
 */
const char *mmtune_ctr_name(unsigned int i)
{
	BUILD_BUG_ON(ARRAY_SIZE(mmt_abi_counters) != MMT_CTR_LAT_UNCLASSIFIED + 1);
	return i < MMT_CTR_LAT_UNCLASSIFIED ? mmt_abi_counters[i].name : NULL;
}

static int stats_show(struct seq_file *m, void *v)
{
	struct mmtune_pcpu_stats *s;
	unsigned int i;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	mmtune_stats_snapshot(s, NULL);
	for (i = 0; i < MMT_CTR_NR; i++) {
		const char *name = mmtune_ctr_name(i);

		if (!name)
			continue;
		if (mmtune_ctr_absent(i))
			seq_printf(m, "%s %s\n", name, mmtune_ctr_absent(i));
		else
			seq_printf(m, "%s %llu\n", name, s->ctr[i]);
	}
	kfree(s);
	return 0;
}

static int stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, stats_show, NULL);
}

static ssize_t stats_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	bool one;
	int ret;

	ret = mmtune_write_get_bool(ubuf, count, ppos, &one);
	if (!ret && one)
		ret = -EINVAL;		/* only "0": reset */
	if (!ret)
		stats_reset();
	return mmtune_write_done(ret, count, ppos);
}

static const struct file_operations stats_fops = {
	.owner		= THIS_MODULE,
	.open		= stats_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= stats_write,
};

/* ---- stats_enable, latency_enable ---- */

/* Latency first: the counters' hooks then count its self-test's fault. */
static int stats_enable_locked(void)
{
	int ret;

	if (stats_on)
		return 0;
	if (opts[OPT_LATENCY].on) {
		ret = mmtune_hooks_get(&latency_user);
		if (ret)
			return ret;
	}
	counters_user.wants = BIT(MMT_HOOK_FAULT_AROUND);
	if (opts[OPT_MAPPED].on)
		counters_user.wants |= BIT(MMT_HOOK_SET_PTE);
	ret = mmtune_hooks_get(&counters_user);
	if (ret) {
		mmtune_hooks_put(&latency_user);
		return ret;
	}
	WRITE_ONCE(lat_classify,
		   mmtune_hook_held(&latency_user, MMT_HOOK_LATENCY) &&
		   mmtune_hook_held(&counters_user, MMT_HOOK_FAULT_AROUND));
	faults_from = mmtune_kernel_pgfaults();
	stats_on = true;
	return 0;
}

/* The kretprobe first, while the ftrace hooks still count. */
static void stats_disable_locked(void)
{
	if (!stats_on)
		return;
	faults_acc = faults_now_locked();
	WRITE_ONCE(lat_classify, false);
	mmtune_hooks_put(&latency_user);
	mmtune_hooks_put(&counters_user);
	stats_on = false;
}

static int set_enable_locked(bool on)
{
	if (on)
		return stats_enable_locked();
	stats_disable_locked();
	return 0;
}

static int set_opt_locked(struct stats_opt *o, bool on)
{
	if (stats_on)
		return -EBUSY;
	o->on = on;
	mmtune_hook_user_note(o->hook, on ? NULL : o->off_note);
	return 0;
}

static bool stats_enabled(void)
{
	return READ_ONCE(stats_on);
}

static bool stats_latency_wanted(void)
{
	return READ_ONCE(opts[OPT_LATENCY].on);
}

static ssize_t enable_read(struct file *file, char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	return mmtune_read_bool(ubuf, count, ppos, stats_enabled());
}

static ssize_t enable_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	bool on;
	int ret;

	ret = mmtune_write_get_bool(ubuf, count, ppos, &on);
	if (!ret) {
		mutex_lock(&stats_lock);
		ret = set_enable_locked(on);
		mutex_unlock(&stats_lock);
	}
	return mmtune_write_done(ret, count, ppos);
}

static const struct file_operations enable_fops = {
	.owner	= THIS_MODULE,
	.read	= enable_read,
	.write	= enable_write,
};

/* latency_enable and mapped_enable: the option is the file's data. */
static ssize_t opt_read(struct file *file, char __user *ubuf, size_t count,
			loff_t *ppos)
{
	const struct stats_opt *o = file->private_data;

	return mmtune_read_bool(ubuf, count, ppos, READ_ONCE(o->on));
}

static ssize_t opt_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	bool on;
	int ret;

	ret = mmtune_write_get_bool(ubuf, count, ppos, &on);
	if (!ret) {
		mutex_lock(&stats_lock);
		ret = set_opt_locked(file->private_data, on);
		mutex_unlock(&stats_lock);
	}
	return mmtune_write_done(ret, count, ppos);
}

static const struct file_operations opt_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= opt_read,
	.write	= opt_write,
};

/* ---- latency ---- */

/* The histogram since the last reset: latency.c prints it. */
static int latency_show(struct seq_file *m, void *v)
{
	enum mmtune_hook_state st = mmtune_hook_state(MMT_HOOK_LATENCY);
	struct mmtune_pcpu_stats *s;
	unsigned long missed;

	if (st == MMT_HOOK_UNAVAILABLE) {
		seq_puts(m, "state: unavailable (see info: hook_handle_mm_fault_return)\n");
		return 0;
	}
	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	mutex_lock(&stats_lock);
	stats_since_reset(s);
	missed = mmtune_hook_missed(MMT_HOOK_LATENCY) - base_missed;
	mutex_unlock(&stats_lock);
	mmtune_latency_print(m, s, missed, st == MMT_HOOK_ON ? "on" :
			     stats_latency_wanted() ? "off" :
			     "off (latency_enable is 0)");
	kfree(s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(latency);

/*
 * ---- module parameters: stats_enable, latency_enable, mapped_enable,
 * stats_reset ----
 *
 * The same settings as the debugfs files, in the place lockdown leaves
 * writable (/sys/module/mmtune/parameters/).  The module's parameter lock
 * (kernel_param_lock) is held around every set; stats_lock orders them
 * against init and exit.
 */
static int enable_param_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = 0;

	if (kstrtobool(val, &on))
		return -EINVAL;
	mutex_lock(&stats_lock);
	if (stats_state == STATS_LOADING)
		pending_enable = on;	/* applied by init */
	else if (stats_state == STATS_GONE)
		ret = -ENODEV;
	else
		ret = set_enable_locked(on);
	mutex_unlock(&stats_lock);
	return ret;
}

static int enable_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", stats_enabled());
}

static const struct kernel_param_ops enable_param_ops = {
	.set = enable_param_set,
	.get = enable_param_get,
};
module_param_cb(MMT_PARAM_STATS_ENABLE, &enable_param_ops, NULL, 0644);
mmtune_param_desc(MMT_PARAM_STATS_ENABLE,
		  "1 places the fault-path hooks and counts, 0 removes them (as debugfs stats_enable)");

/* latency_enable= and mapped_enable=: the option is the parameter's arg. */
static int opt_param_set(const char *val, const struct kernel_param *kp)
{
	struct stats_opt *o = kp->arg;
	bool on;
	int ret = 0;

	if (kstrtobool(val, &on))
		return -EINVAL;
	mutex_lock(&stats_lock);
	if (stats_state == STATS_LOADING)
		o->pending = on;
	else if (stats_state == STATS_GONE)
		ret = -ENODEV;
	else
		ret = set_opt_locked(o, on);
	mutex_unlock(&stats_lock);
	return ret;
}

static int opt_param_get(char *buf, const struct kernel_param *kp)
{
	const struct stats_opt *o = kp->arg;

	return sysfs_emit(buf, "%d\n", READ_ONCE(o->on));
}

static const struct kernel_param_ops opt_param_ops = {
	.set = opt_param_set,
	.get = opt_param_get,
};
module_param_cb(MMT_PARAM_LATENCY_ENABLE, &opt_param_ops,
		&opts[OPT_LATENCY], 0644);
mmtune_param_desc(MMT_PARAM_LATENCY_ENABLE,
		  "1 (default): stats_enable also times faults; changes only while stats are off");
module_param_cb(MMT_PARAM_MAPPED_ENABLE, &opt_param_ops,
		&opts[OPT_MAPPED], 0644);
mmtune_param_desc(MMT_PARAM_MAPPED_ENABLE,
		  "1: stats_enable also counts the pages fault-around mapped (a callback per PTE setter call); changes only while stats are off");

/* Writing 1 resets the counters (as "0" to debugfs stats); no value to read. */
static int reset_param_set(const char *val, const struct kernel_param *kp)
{
	bool one;
	int ret = 0;

	if (kstrtobool(val, &one) || !one)
		return -EINVAL;
	/*
	 * One lock section: the state checked and the counters read
	 * together, so an unload between the two cannot free them under
	 * the read.  At load (stats_reset=1 on the command line) they do not
	 * exist yet and start at zero: nothing to reset.
	 */
	mutex_lock(&stats_lock);
	if (stats_state == STATS_GONE)
		ret = -ENODEV;
	else if (stats_state == STATS_READY)
		stats_reset_locked();
	mutex_unlock(&stats_lock);
	return ret;
}

static const struct kernel_param_ops reset_param_ops = {
	.set = reset_param_set,
};
module_param_cb(MMT_PARAM_STATS_RESET, &reset_param_ops, NULL, 0200);
mmtune_param_desc(MMT_PARAM_STATS_RESET,
		  "write 1 to reset the counters and the latency histogram");

/* stats_enable=, latency_enable= and mapped_enable= given at load. */
static int stats_apply_pending(void)
{
	unsigned int i;
	int ret = 0;

	mutex_lock(&stats_lock);
	stats_state = STATS_READY;
	/* the options first: they say what stats_enable places */
	for (i = 0; i < OPT_NR && !ret; i++)
		ret = set_opt_locked(&opts[i], opts[i].pending >= 0 ?
				     opts[i].pending : opts[i].on);
	if (!ret && pending_enable >= 0)
		ret = set_enable_locked(pending_enable);
	if (ret)
		stats_state = STATS_GONE;
	mutex_unlock(&stats_lock);
	if (ret)
		pr_err("cannot apply stats_enable=%d latency_enable=%d mapped_enable=%d at load (%d)\n",
		       pending_enable, opts[OPT_LATENCY].pending,
		       opts[OPT_MAPPED].pending, ret);
	return ret;
}

/* ---- the feature ---- */

static const char *absent_if_unavailable(enum mmtune_hook_id id)
{
	return mmtune_hook_state(id) == MMT_HOOK_UNAVAILABLE ?
	       "unavailable" : NULL;
}

/*
 * NULL where counter @c counts (or would, with stats on); else the word
 * shown instead of its value: "unavailable" (its hook cannot be placed
 * on this kernel) or "off" (its option is 0).
 */
const char *mmtune_ctr_absent(enum mmtune_ctr c)
{
	switch (c) {
	case MMT_CTR_FAULTS:
		return IS_ENABLED(CONFIG_VM_EVENT_COUNTERS) ? NULL : "unavailable";
	case MMT_CTR_FA_CALLS:
	case MMT_CTR_FA_REQUESTED:
		return absent_if_unavailable(MMT_HOOK_FAULT_AROUND);
	case MMT_CTR_FA_MAPPED:
		if (absent_if_unavailable(MMT_HOOK_SET_PTE))
			return "unavailable";
		return READ_ONCE(opts[OPT_MAPPED].on) ? NULL : "off";
	case MMT_CTR_LAT_UNCLASSIFIED:
	case MMT_CTR_LAT_UNTIMED:
		return absent_if_unavailable(MMT_HOOK_LATENCY);
	default:
		return "unavailable";
	}
}

static int stats_init(struct dentry *dir)
{
	int ret;

	mmtune_pcpu = alloc_percpu(struct mmtune_pcpu_stats);
	if (!mmtune_pcpu)
		return -ENOMEM;
	ret = stats_apply_pending();
	if (ret) {
		mutex_lock(&stats_lock);
		stats_disable_locked();
		mutex_unlock(&stats_lock);
		free_percpu(mmtune_pcpu);
		mmtune_pcpu = NULL;
		return ret;
	}
	debugfs_create_file("stats", 0600, dir, NULL, &stats_fops);
	debugfs_create_file("stats_enable", 0600, dir, NULL, &enable_fops);
	debugfs_create_file("latency_enable", 0600, dir, &opts[OPT_LATENCY],
			    &opt_fops);
	debugfs_create_file("mapped_enable", 0600, dir, &opts[OPT_MAPPED],
			    &opt_fops);
	debugfs_create_file("latency", 0400, dir, NULL, &latency_fops);
	return 0;
}

static void stats_exit(void)
{
	mutex_lock(&stats_lock);
	stats_state = STATS_GONE;
	/* every hook given back (and waited for) before the counters go */
	stats_disable_locked();
	mutex_unlock(&stats_lock);
	free_percpu(mmtune_pcpu);
	mmtune_pcpu = NULL;
}

MMTUNE_INFO_SHOW(stats_enable, "%d", stats_enabled())
MMTUNE_INFO_SHOW(latency_enable, "%d", stats_latency_wanted())
MMTUNE_INFO_SHOW(mapped_enable, "%d", READ_ONCE(opts[OPT_MAPPED].on))

/* the switches, then the hooks they place */
static const struct mmtune_info stats_info[] = {
	{ "stats_enable", stats_enable_show },
	{ "latency_enable", latency_enable_show },
	{ "mapped_enable", mapped_enable_show },
	{ .more = mmtune_hooks_info },
	{ }
};

const struct mmtune_feature mmtune_stats_feature = {
	.name	= "stats",
	.init	= stats_init,
	.exit	= stats_exit,
	.info	= stats_info,
};
