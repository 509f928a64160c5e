// SPDX-License-Identifier: GPL-2.0
/*
 * mmt_lp: the test livepatch of tests/vm/t-52-livepatch.sh.  It replaces
 * filemap_map_pages with a function that maps nothing: fault-around then
 * maps no page ahead, and every page of a file faults on its own,
 * whatever mmtune's order.  A livepatch is the kernel's IPMODIFY user of
 * the function (its ftrace ops sets the instruction pointer): the suite
 * shows it and mmtune's hook placed on the same function, in either
 * order, each doing its work.
 */
#include <linux/livepatch.h>
#include <linux/mm.h>
#include <linux/module.h>

/* Returns 0, "nothing mapped": the caller goes on to the fault's own page. */
static vm_fault_t mmt_lp_map_pages(struct vm_fault *vmf, pgoff_t start_pgoff,
				   pgoff_t end_pgoff)
{
	return 0;
}

static struct klp_func mmt_lp_funcs[] = {
	{
		.old_name = "filemap_map_pages",
		.new_func = mmt_lp_map_pages,
	},
	{ }
};

static struct klp_object mmt_lp_objs[] = {
	{
		/* name NULL: vmlinux */
		.funcs = mmt_lp_funcs,
	},
	{ }
};

static struct klp_patch mmt_lp_patch = {
	.mod = THIS_MODULE,
	.objs = mmt_lp_objs,
};

static int __init mmt_lp_init(void)
{
	return klp_enable_patch(&mmt_lp_patch);
}

static void __exit mmt_lp_exit(void)
{
}

module_init(mmt_lp_init);
module_exit(mmt_lp_exit);
MODULE_DESCRIPTION("mmtune's test livepatch: filemap_map_pages maps nothing");
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
