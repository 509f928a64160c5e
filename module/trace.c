// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: instantiates the trace events of mmtune_trace.h (once, here),
 * and emits the fault path's two as a user of the hooks layer (hooks.h).
 *
 * The trace events place no hook: their callbacks ride on the hooks
 * others hold (filemap_map_pages: the counters or the policy; the PTE
 * setter: the counters), and are in the hooks' slots only while someone
 * listens to the event, so a hook call without listeners does not reach
 * them at all.
 */
#include <linux/fs.h>
#include <linux/mm.h>

#define CREATE_TRACE_POINTS
#include "mmtune_trace.h"
#include "compat.h"
#include "hooks.h"

/*
 * One fault-around call: the window before and after the policy (its
 * callback runs first, see hooks.h), the order in force (the rule's, else
 * the kernel's) and the rule (-1: none).
 */
static void notrace trace_fa_cb(struct mmtune_hook_call *c)
{
	const struct vm_fault *vmf = (void *)mmtune_fregs_arg(c->fregs, 0);
	unsigned long start = mmtune_fregs_arg(c->fregs, 1);
	unsigned long end = mmtune_fregs_arg(c->fregs, 2);
	int order = c->narrowed ? c->order : -1;
	const struct inode *inode;
	const struct file *f;

	if (order < 0)
		order = mmtune_fa_kernel_order_now();
	if (!vmf || order < 0)
		return;
	f = vmf->vma->vm_file;
	inode = f ? file_inode(f) : NULL;
	trace_fault_around(vmf, inode ? inode->i_sb->s_dev : 0,
			   inode ? inode->i_ino : 0,
			   c->narrowed ? c->req_start : start,
			   c->narrowed ? c->req_end : end, start, end, order,
			   c->narrowed ? c->rule : -1);
}

static void notrace trace_mapped_cb(struct mmtune_hook_call *c)
{
	trace_fault_around_mapped(c->nr);
}

static struct mmtune_hook_user trace_user = {
	.name	= "trace",
	.slot	= MMT_SLOT_TRACE,
	.fn	= {
		[MMT_HOOK_FAULT_AROUND] = trace_fa_cb,
		[MMT_HOOK_SET_PTE] = trace_mapped_cb,
	},
};

int mmtune_trace_fa_reg(void)
{
	mmtune_hook_listen(&trace_user, MMT_HOOK_FAULT_AROUND, true);
	return 0;
}

void mmtune_trace_fa_unreg(void)
{
	mmtune_hook_listen(&trace_user, MMT_HOOK_FAULT_AROUND, false);
}

int mmtune_trace_mapped_reg(void)
{
	mmtune_hook_listen(&trace_user, MMT_HOOK_SET_PTE, true);
	return 0;
}

void mmtune_trace_mapped_unreg(void)
{
	mmtune_hook_listen(&trace_user, MMT_HOOK_SET_PTE, false);
}
