// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: runtime tuning of the page-fault path.
 *
 * Loading changes nothing by itself (unless fault_around_order= is given);
 * unloading restores what was found at load and removes every hook.
 */
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/sysfs.h>

#include "mmtune.h"
#include "hooks.h"

/*
 * Brought up in this order, taken down in reverse.  The hooks layer
 * (hooks.c) is up before the first and down after the last, so the users
 * of its hooks (stats, policy) may come in any order.
 */
static const struct mmtune_feature *const features[] = {
	&mmtune_fault_around_feature,
	&mmtune_pfn_valid_feature,
	&mmtune_stats_feature,
	&mmtune_policy_feature,
	&mmtune_usefulness_feature,
	&mmtune_rss_feature,
	&mmtune_trace_feature,
	&mmtune_bpf_feature,
	&mmtune_sysfs_feature,	/* last: shows all of the above */
};

static struct dentry *mmtune_dir;
static int features_up;

MMTUNE_INFO_SHOW(version, "%s", MMTUNE_VERSION)
MMTUNE_INFO_SHOW(arch, "%s", mmtune_arch_name())
MMTUNE_INFO_SHOW(page_size, "%lu", PAGE_SIZE)
MMTUNE_INFO_SHOW(ptrs_per_pte, "%lu", (unsigned long)PTRS_PER_PTE)
MMTUNE_INFO_SHOW(max_order, "%u", mmtune_max_order())
MMTUNE_INFO_SHOW(default_order, "%u", mmtune_default_order())
MMTUNE_INFO_SHOW(pfn_valid, "%s", mmtune_pfn_valid_kind())

/* info's values before the features': the module's and the kernel's */
static const struct mmtune_info main_info[] = {
	{ "version", version_show },
	{ "arch", arch_show },
	{ "page_size", page_size_show },
	{ "ptrs_per_pte", ptrs_per_pte_show },
	{ "max_order", max_order_show },
	{ "default_order", default_order_show },
	{ "pfn_valid", pfn_valid_show },
	{ .more = mmtune_symbols_info },
	{ }
};

/* A "NAME: value" line per value of @v that has one now; @buf: a page. */
static void info_lines(struct seq_file *m, const struct mmtune_info *v,
		       char *buf)
{
	ssize_t len;

	for (; v->name || v->more; v++) {
		if (!v->name) {
			info_lines(m, v->more, buf);
			continue;
		}
		len = v->show(buf, v->arg);
		if (len > 1)
			seq_printf(m, "%s: %s", v->name, buf);
		else if (len >= 0)
			seq_printf(m, "%s:\n", v->name);
	}
}

/* features_up only grows during init, before any file exists. */
static int info_show(struct seq_file *m, void *v)
{
	char *buf = (char *)__get_free_page(GFP_KERNEL);
	int i;

	if (!buf)
		return -ENOMEM;
	info_lines(m, main_info, buf);
	for (i = 0; i < features_up; i++)
		if (features[i]->info)
			info_lines(m, features[i]->info, buf);
	free_page((unsigned long)buf);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(info);

/*
 * sysfs info/@name's value (sysfs.c), or NULL.  Every feature's table is
 * searched: sysfs.c looks its files' values up at its init, before
 * features_up counts it, and a search shows nothing.
 */
static const struct mmtune_info *info_find(const char *name)
{
	const struct mmtune_info *v = mmtune_info_find(main_info, name);
	unsigned int i;

	for (i = 0; !v && i < ARRAY_SIZE(features); i++)
		if (features[i]->info)
			v = mmtune_info_find(features[i]->info, name);
	return v;
}

static void features_down(void)
{
	while (features_up > 0) {
		const struct mmtune_feature *f = features[--features_up];

		if (f->exit)
			f->exit();
	}
}

static int __init mmtune_init(void)
{
	int ret;

	ret = mmtune_symbols_init();
	if (ret)
		return ret;
	ret = mmtune_hooks_init();
	if (ret) {
		mmtune_symbols_done();
		return ret;
	}

	/*
	 * Without debugfs (disabled, or refused under lockdown) the module
	 * still works through its parameter; the files are then simply absent.
	 */
	mmtune_sysfs_values(info_find, mmtune_pfn_valid_bench_info);
	mmtune_dir = debugfs_create_dir("mmtune", NULL);
	if (IS_ERR(mmtune_dir))
		pr_info("no debugfs (%ld): only the module parameter is available\n",
			PTR_ERR(mmtune_dir));

	for (features_up = 0; features_up < ARRAY_SIZE(features); features_up++) {
		const struct mmtune_feature *f = features[features_up];

		ret = f->init(mmtune_dir);
		if (ret) {
			pr_err("%s: init failed (%d)\n", f->name, ret);
			goto unwind;
		}
	}
	mmtune_symbols_done();
	debugfs_create_file("info", 0400, mmtune_dir, NULL, &info_fops);
	return 0;

unwind:
	mmtune_symbols_done();
	debugfs_remove_recursive(mmtune_dir);
	features_down();
	mmtune_hooks_exit();
	return ret;
}

static void __exit mmtune_exit(void)
{
	/* No file can reach a feature once the directory is gone. */
	debugfs_remove_recursive(mmtune_dir);
	features_down();
	mmtune_hooks_exit();	/* every user has given its hooks back */
}

module_init(mmtune_init);
module_exit(mmtune_exit);

MODULE_DESCRIPTION("Runtime fault-around and pfn_valid tuning with fault-path counters");
MODULE_AUTHOR("mmtune maintainers <mmtune@example.org>");
MODULE_LICENSE("GPL");
MODULE_VERSION(MMTUNE_VERSION);
