// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: runtime tuning of the page-fault path.
 *
 * Loading changes nothing by itself (unless fault_around_order= is given);
 * unloading restores what was found at load and removes every hook.
 */
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/seq_file.h>

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
	&mmtune_sysfs_feature,	/* last: shows all of the above */
};

static struct dentry *mmtune_dir;
static int features_up;

/* features_up only grows during init, before any file exists. */
static void mmtune_info_show(struct seq_file *m)
{
	int i;

	seq_printf(m, "version: %s\n", MMTUNE_VERSION);
	seq_printf(m, "arch: %s\n", mmtune_arch_name());
	seq_printf(m, "page_size: %lu\n", PAGE_SIZE);
	seq_printf(m, "ptrs_per_pte: %lu\n", (unsigned long)PTRS_PER_PTE);
	seq_printf(m, "max_order: %u\n", mmtune_max_order());
	seq_printf(m, "default_order: %u\n", mmtune_default_order());
	seq_printf(m, "pfn_valid: %s\n", mmtune_pfn_valid_kind());
	mmtune_symbols_info(m);
	for (i = 0; i < features_up; i++)
		if (features[i]->info)
			features[i]->info(m);
}

static int info_show(struct seq_file *m, void *v)
{
	mmtune_info_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(info);

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
	mmtune_sysfs_info_source(mmtune_info_show);
	mmtune_sysfs_bench_source(mmtune_pfn_valid_bench_show);
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
