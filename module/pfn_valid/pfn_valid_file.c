// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: pfn_valid's files, which run the bench (pfn_valid_bench.c)
 * and set the override (pfn_valid.c) as the cross-check allows
 * (pfn_valid_check.c): debugfs pfn_valid/, the parameters
 * pfn_valid_mode and pfn_valid_bench (the same in the place lockdown
 * leaves usable), info's values and the feature.
 *
 * debugfs mmtune/pfn_valid/:
 *   bench  write "COUNT PATTERN" to run the bench (pfn_valid_bench.c
 *          says what it does and what a read gives).
 *   mode   read: "off" or the strategy the override uses.  Write a
 *          strategy name to install the override with it, "off" to remove
 *          it.  A strategy is accepted only if every comparison so far (a
 *          full cross-check sweep, run at the first write, and every bench
 *          run) found no disagreement for it; else EINVAL and one log line.
 *
 * info: pfn_valid_impls, pfn_valid_crosscheck (per strategy
 * "disagreements/pfns compared"), pfn_valid_crosscheck_sweep and
 * pfn_valid_override.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>

#include "../mmtune.h"
#include "../mmtune_abi.h"
#include "pfn_valid.h"
#include "pfn_valid_bench.h"
#include "pfn_valid_check.h"

#ifdef CONFIG_SPARSEMEM

#define PFV_BENCH_MAX	31	/* bytes of a write to bench */
#define PFV_MODE_MAX	15	/* and to mode */

/* ---- debugfs */

static int bench_show(struct seq_file *m, void *v)
{
	mmtune_pfv_bench_show(m);
	return 0;
}

static int bench_open(struct inode *inode, struct file *file)
{
	return single_open(file, bench_show, inode->i_private);
}

static ssize_t bench_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	char *buf = mmtune_write_get(ubuf, count, ppos, PFV_BENCH_MAX, true);
	unsigned int n;
	int pattern, ret;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = mmtune_pfv_bench_parse(buf, &n, &pattern);
	kfree(buf);
	if (!ret) {
		mutex_lock(&mmtune_pfv_lock);
		ret = mmtune_pfv_bench(pattern, n);
		mutex_unlock(&mmtune_pfv_lock);
	}
	return mmtune_write_done(ret, count, ppos);
}

static const struct file_operations bench_fops = {
	.owner		= THIS_MODULE,
	.open		= bench_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= bench_write,
};

static ssize_t mode_read(struct file *file, char __user *ubuf, size_t count,
			 loff_t *ppos)
{
	char buf[16];
	int len;

	len = scnprintf(buf, sizeof(buf), "%s\n",
			mmtune_pfv_mode_name(mmtune_pfv_mode()));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/* The gate: a strategy only as the cross-check allows.  Caller holds the lock. */
static int pfv_set_mode(int mode)
{
	const char *name = mmtune_pfv_mode_name(mode), *why;
	const struct pfv_tally *t;
	int ret;

	if (mode == PFV_MODE_OFF)	/* the kernel's own again: always */
		return mmtune_pfv_override_set(mode);
	ret = mmtune_kernel_write_allowed("pfn_valid_mode");
	if (ret)
		return ret;
	why = mmtune_pfv_override_why();
	if (why) {
		pr_notice_ratelimited("pfn_valid: mode %s refused: %s\n", name, why);
		return -EOPNOTSUPP;
	}
	/*
	 * memblock is never a mode where memory hotplug is configured, which
	 * is wherever the override exists (pfn_to_online_page() is a function
	 * only then).  A hot-add or remove changes memblock's arrays under
	 * its readers, without a lock they could take or a notifier that
	 * comes first (memblock_add_node() runs before any memory notifier,
	 * and may reallocate the array the override is reading), and memory
	 * can come online at any time (virtio-mem, ACPI, dax/kmem).  The
	 * bench still measures it: a root-only measurement, documented.
	 */
	if (mode == MMTUNE_PV_MEMBLOCK && IS_ENABLED(CONFIG_MEMORY_HOTPLUG)) {
		pr_notice_ratelimited("pfn_valid: mode %s refused: memory hotplug is configured: memory added or removed changes memblock under the override's readers\n",
				      name);
		return -EOPNOTSUPP;
	}
	if (!mmtune_pfv_verified) {
		ret = mmtune_pfv_verify();
		if (ret) {
			pr_warn_ratelimited("pfn_valid: mode %s refused: the cross-check did not finish (%d)\n",
					    name, ret);
			return ret == -EINTR ? ret : -EINVAL;
		}
	}
	t = &mmtune_pfv_total[mode];
	if (t->bad || t->online_bad || !t->checked) {
		pr_warn_ratelimited("pfn_valid: mode %s refused: %llu of %llu pfns disagree with stock, %llu with pfn_to_online_page (first pfn 0x%lx)\n",
				    name, t->bad, t->checked, t->online_bad,
				    t->first_bad);
		return -EINVAL;
	}
	return mmtune_pfv_override_set(mode);
}

static ssize_t mode_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	char *buf = mmtune_write_get(ubuf, count, ppos, PFV_MODE_MAX, true);
	int mode, ret;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = mmtune_pfv_parse_mode(buf, &mode);
	kfree(buf);
	if (!ret) {
		mutex_lock(&mmtune_pfv_lock);
		ret = pfv_set_mode(mode);
		mutex_unlock(&mmtune_pfv_lock);
	}
	return mmtune_write_done(ret, count, ppos);
}

static const struct file_operations mode_fops = {
	.owner	= THIS_MODULE,
	.read	= mode_read,
	.write	= mode_write,
};

/*
 * ---- module parameter pfn_valid_mode: debugfs pfn_valid/mode in the
 * place lockdown leaves writable.  A value given at load waits for init
 * (pfv_pending); every set holds the module's parameter lock, then
 * mmtune_pfv_lock.
 */
static enum { PFV_LOADING, PFV_READY, PFV_GONE } pfv_state;
static char pfv_pending[16];

static int mode_param_set(const char *val, const struct kernel_param *kp)
{
	char buf[16];
	int mode, ret;

	if (strscpy(buf, val, sizeof(buf)) < 0)
		return -EINVAL;
	strreplace(buf, '\n', '\0');
	mutex_lock(&mmtune_pfv_lock);
	if (pfv_state == PFV_LOADING) {
		/* the strategies are not known yet: init checks the name */
		strscpy(pfv_pending, buf, sizeof(pfv_pending));
		ret = 0;
	} else if (pfv_state == PFV_GONE) {
		ret = -ENODEV;
	} else {
		ret = mmtune_pfv_parse_mode(buf, &mode);
		if (!ret)
			ret = pfv_set_mode(mode);
	}
	mutex_unlock(&mmtune_pfv_lock);
	return ret;
}

static int mode_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", mmtune_pfv_mode_name(mmtune_pfv_mode()));
}

static const struct kernel_param_ops mode_param_ops = {
	.set = mode_param_set,
	.get = mode_param_get,
};
module_param_cb(MMT_PARAM_PFN_VALID_MODE, &mode_param_ops, NULL, 0644);
mmtune_param_desc(MMT_PARAM_PFN_VALID_MODE,
		  "pfn_valid strategy behind pfn_to_online_page: off or one of info's pfn_valid_impls");

/*
 * ---- module parameter pfn_valid_bench: debugfs pfn_valid/bench in the
 * place lockdown leaves usable.  A write "COUNT PATTERN" runs the bench
 * (holding the module's parameter lock for as long: about PFV_BUDGET_NS
 * at most), a read is the last bench's text, as debugfs prints it (a
 * page holds it: a header, seven lines and a row per strategy).  A bench
 * is a measurement, not a setting: none at load.
 */
static int bench_param_set(const char *val, const struct kernel_param *kp)
{
	char buf[PFV_BENCH_MAX + 1];
	unsigned int n;
	int pattern, ret;

	if (strscpy(buf, val, sizeof(buf)) < 0)
		return -EINVAL;
	strreplace(buf, '\n', '\0');
	ret = mmtune_pfv_bench_parse(buf, &n, &pattern);
	if (ret)
		return ret;
	mutex_lock(&mmtune_pfv_lock);
	if (pfv_state == PFV_READY) {
		ret = mmtune_pfv_bench(pattern, n);
	} else if (pfv_state == PFV_GONE) {
		ret = -ENODEV;
	} else {
		pr_err("pfn_valid_bench: a bench runs once loaded, not at load\n");
		ret = -EINVAL;
	}
	mutex_unlock(&mmtune_pfv_lock);
	return ret;
}

static int bench_param_get(char *buf, const struct kernel_param *kp)
{
	struct seq_file m = { .buf = buf, .size = PAGE_SIZE };

	mmtune_pfv_bench_show(&m);
	return min(m.count, m.size);
}

static const struct kernel_param_ops bench_param_ops = {
	.set = bench_param_set,
	.get = bench_param_get,
};
module_param_cb(MMT_PARAM_PFN_VALID_BENCH, &bench_param_ops, NULL, 0600);
mmtune_param_desc(MMT_PARAM_PFN_VALID_BENCH,
		  "write COUNT PATTERN (seq, rand, holes) to bench pfn_valid's strategies; read: the last bench");

static int pfv_apply_pending(void)
{
	int mode, ret = 0;

	mutex_lock(&mmtune_pfv_lock);
	pfv_state = PFV_READY;
	if (pfv_pending[0]) {
		ret = mmtune_pfv_parse_mode(pfv_pending, &mode);
		if (!ret)
			ret = pfv_set_mode(mode);
		if (ret) {
			pr_err("cannot set pfn_valid_mode=%s at load (%d)\n",
			       pfv_pending, ret);
			mmtune_pfv_exit();
			pfv_state = PFV_GONE;
		}
	}
	mutex_unlock(&mmtune_pfv_lock);
	return ret;
}

/* ---- the feature */

static int pfv_init(struct dentry *dir)
{
	struct dentry *d;
	int ret;

	mmtune_pfv_init();
	mmtune_pfv_check_init();
	ret = pfv_apply_pending();
	if (ret)
		return ret;

	d = debugfs_create_dir("pfn_valid", dir);
	debugfs_create_file("bench", 0600, d, NULL, &bench_fops);
	debugfs_create_file("mode", 0600, d, NULL, &mode_fops);
	return 0;
}

static void pfv_exit(void)
{
	mutex_lock(&mmtune_pfv_lock);
	pfv_state = PFV_GONE;
	mmtune_pfv_exit();
	mutex_unlock(&mmtune_pfv_lock);
}

enum { PFV_INFO_IMPLS, PFV_INFO_CROSSCHECK, PFV_INFO_SWEEP, PFV_INFO_OVERRIDE };

/*
 * The strategies this kernel has (and, for the cross-check, each one's
 * "disagreements/pfns compared"), the sweep, and what the override does.
 */
static ssize_t pfv_info_show(char *buf, unsigned int what)
{
	unsigned int i, have = mmtune_pfv_have();
	const struct pfv_tally *t = mmtune_pfv_total;
	ssize_t len = 0;
	const char *why;

	mutex_lock(&mmtune_pfv_lock);
	if (what == PFV_INFO_SWEEP) {
		len = sysfs_emit(buf, "%s\n", mmtune_pfv_verified ? "done" : "not yet");
	} else if (what == PFV_INFO_OVERRIDE) {
		why = mmtune_pfv_override_why();
		len = why ? sysfs_emit(buf, "%s\n", why) :
		      sysfs_emit(buf, "pfn_to_online_page (mode %s)\n",
				 mmtune_pfv_mode_name(mmtune_pfv_mode()));
	} else {
		for (i = 0; i < MMTUNE_PV_NR; i++) {
			if (!(have & BIT(i)))
				continue;
			len += sysfs_emit_at(buf, len, "%s%s", len ? " " : "",
					     mmtune_pfv_mode_name(i));
			if (what == PFV_INFO_CROSSCHECK)
				len += sysfs_emit_at(buf, len, " %llu/%llu",
						     t[i].bad + t[i].online_bad,
						     t[i].checked);
		}
		len += sysfs_emit_at(buf, len, "\n");
	}
	mutex_unlock(&mmtune_pfv_lock);
	return len;
}

static const struct mmtune_info pfv_info[] = {
	{ "pfn_valid_impls", pfv_info_show, PFV_INFO_IMPLS },
	{ "pfn_valid_crosscheck", pfv_info_show, PFV_INFO_CROSSCHECK },
	{ "pfn_valid_crosscheck_sweep", pfv_info_show, PFV_INFO_SWEEP },
	{ "pfn_valid_override", pfv_info_show, PFV_INFO_OVERRIDE },
	{ }
};

#else /* !CONFIG_SPARSEMEM */

/* Nothing to choose from: only "off" is accepted. */
static int mode_param_set(const char *val, const struct kernel_param *kp)
{
	return sysfs_streq(val, "off") ? 0 : -EOPNOTSUPP;
}

static int mode_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "off\n");
}

static const struct kernel_param_ops mode_param_ops = {
	.set = mode_param_set,
	.get = mode_param_get,
};
module_param_cb(MMT_PARAM_PFN_VALID_MODE, &mode_param_ops, NULL, 0644);
mmtune_param_desc(MMT_PARAM_PFN_VALID_MODE,
		  "pfn_valid strategy: only off on a kernel without SPARSEMEM");

static int bench_param_set(const char *val, const struct kernel_param *kp)
{
	return -EOPNOTSUPP;
}

static int bench_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "pattern: none\n");
}

static const struct kernel_param_ops bench_param_ops = {
	.set = bench_param_set,
	.get = bench_param_get,
};
module_param_cb(MMT_PARAM_PFN_VALID_BENCH, &bench_param_ops, NULL, 0600);
mmtune_param_desc(MMT_PARAM_PFN_VALID_BENCH,
		  "pfn_valid bench: none on a kernel without SPARSEMEM");

static int pfv_init(struct dentry *dir)
{
	return 0;
}

static void pfv_exit(void)
{
}

static ssize_t pfv_impls_show(char *buf, unsigned int arg)
{
	return sysfs_emit(buf, "none\n");
}

static ssize_t pfv_override_show(char *buf, unsigned int arg)
{
	return sysfs_emit(buf, "not overridable: kernel without SPARSEMEM\n");
}

static const struct mmtune_info pfv_info[] = {
	{ "pfn_valid_impls", pfv_impls_show },
	{ "pfn_valid_override", pfv_override_show },
	{ }
};
#endif /* CONFIG_SPARSEMEM */

const struct mmtune_feature mmtune_pfn_valid_feature = {
	.name	= "pfn_valid",
	.init	= pfv_init,
	.exit	= pfv_exit,
	.info	= pfv_info,
};
