// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: fault-path counters and the latency histogram.
 *
 * debugfs files (all root-only):
 *   stats           "name value" lines; "unavailable" instead of the value
 *                   when the hook that feeds the counter cannot be placed on
 *                   this kernel.  Writing "0" resets every counter and the
 *                   latency histogram.
 *   stats_enable    "0" (default) or "1": "1" places the hooks (hooks.c),
 *                   "0" removes every one of them.
 *   latency_enable  "1" (default) or "0": whether "stats_enable 1" also
 *                   times handle_mm_fault (a kretprobe, dearer than the
 *                   counters).  Can be changed only while stats are off.
 *   latency         the histogram, format below.
 *
 * The counters are per CPU and only ever written by their own CPU (with
 * preemption off, inside the hooks); readers sum them.  A reset does not
 * write them: it records the current sums as a base that later reads
 * subtract, so a reset cannot race with an increment on another CPU.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>

#include "mmtune.h"
#include "mmtune_abi.h"
#include "hooks.h"

struct mmtune_pcpu_stats __percpu *mmtune_pcpu;

static DEFINE_MUTEX(stats_lock);
static struct mmtune_pcpu_stats base;	/* sums at the last reset */
static unsigned long base_missed;

/*
 * Whether the parameters below act now (READY), wait for init (LOADING:
 * modprobe's values arrive before it) or are refused (GONE: unloading).
 */
static enum { STATS_LOADING, STATS_READY, STATS_GONE } stats_state;
static int pending_enable = -1, pending_latency = -1;

/* Sum of every CPU's counters into @sum. */
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

/* "0" or "1" with at most one trailing newline; anything else EINVAL. */
static int parse_bool_write(const char __user *ubuf, size_t count,
			    loff_t *ppos, bool *val)
{
	char *buf = mmtune_write_get(ubuf, count, ppos, 2, true);
	int ret = 0;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (strcmp(buf, "0") && strcmp(buf, "1"))
		ret = -EINVAL;
	*val = buf[0] == '1';
	kfree(buf);
	return ret;
}

/* ---- stats ---- */

static void stats_reset(void)
{
	mutex_lock(&stats_lock);
	stats_sum(&base);
	base_missed = mmtune_hooks_latency_missed();
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
	m = mmtune_hooks_latency_missed() - base_missed;
	mutex_unlock(&stats_lock);
	/* faults the kretprobe missed are faults all the same */
	s->ctr[MMT_CTR_FAULTS] += m;
	if (missed)
		*missed = m;
}

/*
 * The name of counter @i in stats (NULL: not a stats line): mmtune_abi.h's
 * table, in enum mmtune_ctr's order; MMT_CTR_LAT_UNCLASSIFIED, past its
 * end, is in latency.
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
		if (mmtune_ctr_available(i))
			seq_printf(m, "%s %llu\n", name, s->ctr[i]);
		else
			seq_printf(m, "%s unavailable\n", name);
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

	ret = parse_bool_write(ubuf, count, ppos, &one);
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

static ssize_t bool_read(char __user *ubuf, size_t count, loff_t *ppos,
			 bool val)
{
	char buf[2] = { val ? '1' : '0', '\n' };

	return simple_read_from_buffer(ubuf, count, ppos, buf, sizeof(buf));
}

static int set_enable_locked(bool on)
{
	if (on)
		return mmtune_hooks_enable();
	mmtune_hooks_disable();
	return 0;
}

static ssize_t enable_read(struct file *file, char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	return bool_read(ubuf, count, ppos, mmtune_hooks_enabled());
}

static ssize_t enable_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	bool on;
	int ret;

	ret = parse_bool_write(ubuf, count, ppos, &on);
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

static ssize_t latency_enable_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	return bool_read(ubuf, count, ppos, mmtune_hooks_latency_wanted());
}

static ssize_t latency_enable_write(struct file *file,
				    const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	bool on;
	int ret;

	ret = parse_bool_write(ubuf, count, ppos, &on);
	if (!ret)
		ret = mmtune_hooks_set_latency(on);
	return mmtune_write_done(ret, count, ppos);
}

static const struct file_operations latency_enable_fops = {
	.owner	= THIS_MODULE,
	.read	= latency_enable_read,
	.write	= latency_enable_write,
};

/* ---- latency ---- */

/*
 * The latency file, for people and for parsers (mmtunectl):
 *
 *   state: on                       on, off or unavailable
 *   unit: ns
 *   fault_around_samples: 1024      faults that called filemap_map_pages
 *   no_fault_around_samples: 17     all other faults
 *   unclassified: 0                 timed, but not attributable (rare)
 *   missed: 0                       not timed (no kretprobe instance free)
 *   #       low       high  fault_around  no_fault_around
 *          1024       2048           980               12
 *          2048       4096            44                5
 *
 * Parsing: a line starting with '#' is a comment; "key: value" lines come
 * first; every other line is a bucket, four unsigned integers separated
 * by blanks: LOW HIGH FAULT_AROUND NO_FAULT_AROUND, counting faults that
 * took LOW <= ns < HIGH.  Buckets are powers of two (the first is 0..1);
 * the last bucket, HIGH = 2^47, also holds everything longer.  Only the
 * buckets from the first to the last non-empty one are shown.  Values
 * are since the last reset.  The clock is local_clock(), as ftrace's: where
 * sched_clock is unstable (e.g. under emulation) it may not advance during
 * a short fault, which then lands in the 0..1 bucket.
 */
static void bucket_bounds(unsigned int b, u64 *low, u64 *high)
{
	*low = b ? 1ULL << (b - 1) : 0;
	*high = 1ULL << b;
}

static int latency_show(struct seq_file *m, void *v)
{
	enum mmtune_hook_state st = mmtune_hook_state(MMT_HOOK_LATENCY);
	struct mmtune_pcpu_stats *s;
	u64 tot[MMT_LAT_KINDS] = { 0 }, low, high;
	unsigned long missed;
	int b, first = -1, last = -1;
	unsigned int k;

	if (st == MMT_HOOK_UNAVAILABLE) {
		seq_puts(m, "state: unavailable (see info: hook_handle_mm_fault_return)\n");
		return 0;
	}
	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	mutex_lock(&stats_lock);
	stats_since_reset(s);
	missed = mmtune_hooks_latency_missed() - base_missed;
	mutex_unlock(&stats_lock);

	for (b = 0; b < MMT_LAT_BUCKETS; b++) {
		for (k = 0; k < MMT_LAT_KINDS; k++) {
			tot[k] += s->lat[k][b];
			if (s->lat[k][b]) {
				if (first < 0)
					first = b;
				last = b;
			}
		}
	}
	seq_printf(m, "state: %s\n", st == MMT_HOOK_ON ? "on" :
		   mmtune_hooks_latency_wanted() ? "off" :
		   "off (latency_enable is 0)");
	seq_puts(m, "unit: ns\n");
	if (mmtune_hooks_latency_classified()) {
		seq_printf(m, "fault_around_samples: %llu\n", tot[MMT_LAT_FA]);
		seq_printf(m, "no_fault_around_samples: %llu\n",
			   tot[MMT_LAT_NOFA]);
	} else {
		seq_puts(m, "fault_around_samples: unavailable\n");
		seq_puts(m, "no_fault_around_samples: unavailable\n");
	}
	seq_printf(m, "unclassified: %llu\n",
		   s->ctr[MMT_CTR_LAT_UNCLASSIFIED]);
	seq_printf(m, "missed: %lu\n", missed);
	seq_printf(m, "# %10s %12s %13s %16s\n", "low", "high",
		   "fault_around", "no_fault_around");
	for (b = first; b >= 0 && b <= last; b++) {
		bucket_bounds(b, &low, &high);
		seq_printf(m, "%12llu %12llu %13llu %16llu\n", low, high,
			   s->lat[MMT_LAT_FA][b], s->lat[MMT_LAT_NOFA][b]);
	}
	kfree(s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(latency);

/*
 * ---- module parameters: stats_enable, latency_enable, stats_reset ----
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
	return sysfs_emit(buf, "%d\n", mmtune_hooks_enabled());
}

static const struct kernel_param_ops enable_param_ops = {
	.set = enable_param_set,
	.get = enable_param_get,
};
module_param_cb(MMT_PARAM_STATS_ENABLE, &enable_param_ops, NULL, 0644);
mmtune_param_desc(MMT_PARAM_STATS_ENABLE,
		  "1 places the fault-path hooks and counts, 0 removes them (as debugfs stats_enable)");

static int latency_param_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = 0;

	if (kstrtobool(val, &on))
		return -EINVAL;
	mutex_lock(&stats_lock);
	if (stats_state == STATS_LOADING)
		pending_latency = on;
	else if (stats_state == STATS_GONE)
		ret = -ENODEV;
	else
		ret = mmtune_hooks_set_latency(on);
	mutex_unlock(&stats_lock);
	return ret;
}

static int latency_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", mmtune_hooks_latency_wanted());
}

static const struct kernel_param_ops latency_param_ops = {
	.set = latency_param_set,
	.get = latency_param_get,
};
module_param_cb(MMT_PARAM_LATENCY_ENABLE, &latency_param_ops, NULL, 0644);
mmtune_param_desc(MMT_PARAM_LATENCY_ENABLE,
		  "1 (default): stats_enable also times faults; changes only while stats are off");

/* Writing 1 resets the counters (as "0" to debugfs stats); no value to read. */
static int reset_param_set(const char *val, const struct kernel_param *kp)
{
	bool one;
	int ret = 0;

	if (kstrtobool(val, &one) || !one)
		return -EINVAL;
	mutex_lock(&stats_lock);
	if (stats_state == STATS_GONE)
		ret = -ENODEV;
	mutex_unlock(&stats_lock);
	if (!ret)
		stats_reset();	/* at load: nothing to reset, harmless */
	return ret;
}

static const struct kernel_param_ops reset_param_ops = {
	.set = reset_param_set,
};
module_param_cb(MMT_PARAM_STATS_RESET, &reset_param_ops, NULL, 0200);
mmtune_param_desc(MMT_PARAM_STATS_RESET,
		  "write 1 to reset the counters and the latency histogram");

/* stats_enable= and latency_enable= given at load. */
static int stats_apply_pending(void)
{
	int ret = 0;

	mutex_lock(&stats_lock);
	stats_state = STATS_READY;
	if (pending_latency >= 0)
		ret = mmtune_hooks_set_latency(pending_latency);
	if (!ret && pending_enable >= 0)
		ret = set_enable_locked(pending_enable);
	if (ret)
		stats_state = STATS_GONE;
	mutex_unlock(&stats_lock);
	if (ret)
		pr_err("cannot apply stats_enable=%d latency_enable=%d at load (%d)\n",
		       pending_enable, pending_latency, ret);
	return ret;
}

/* ---- the feature ---- */

static int stats_init(struct dentry *dir)
{
	int ret;

	mmtune_pcpu = alloc_percpu(struct mmtune_pcpu_stats);
	if (!mmtune_pcpu)
		return -ENOMEM;
	ret = mmtune_hooks_init();
	if (ret) {
		free_percpu(mmtune_pcpu);
		mmtune_pcpu = NULL;
		return ret;
	}
	ret = stats_apply_pending();
	if (ret) {
		mmtune_hooks_exit();
		free_percpu(mmtune_pcpu);
		mmtune_pcpu = NULL;
		return ret;
	}
	debugfs_create_file("stats", 0600, dir, NULL, &stats_fops);
	debugfs_create_file("stats_enable", 0600, dir, NULL, &enable_fops);
	debugfs_create_file("latency_enable", 0600, dir, NULL,
			    &latency_enable_fops);
	debugfs_create_file("latency", 0400, dir, NULL, &latency_fops);
	return 0;
}

static void stats_exit(void)
{
	mutex_lock(&stats_lock);
	stats_state = STATS_GONE;
	mutex_unlock(&stats_lock);
	/* every hook is gone (and waited for) before the counters go */
	mmtune_hooks_exit();
	free_percpu(mmtune_pcpu);
	mmtune_pcpu = NULL;
}

static void stats_info(struct seq_file *m)
{
	seq_printf(m, "stats_enable: %d\n", mmtune_hooks_enabled());
	seq_printf(m, "latency_enable: %d\n", mmtune_hooks_latency_wanted());
	mmtune_hooks_info(m);
}

const struct mmtune_feature mmtune_stats_feature = {
	.name	= "stats",
	.init	= stats_init,
	.exit	= stats_exit,
	.info	= stats_info,
};
