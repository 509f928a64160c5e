// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: instantiates the trace events of mmtune_trace.h (once, here),
 * and emits the fault path's two as a user of the hooks layer (hooks.h).
 *
 * Each event fires whenever someone listens to it, whatever else is on:
 * while it has a listener its user holds the hook it needs
 * (filemap_map_pages for fault_around, the PTE setter for
 * fault_around_mapped), shared with the counters and the policy where
 * they hold it too; with no listener the event's callback is in no slot
 * and its hook is held for it by no one.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mutex.h>

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
	const struct vm_fault *vmf = (void *)mmtune_call_arg(c, 0);
	unsigned long start = mmtune_call_arg(c, 1);
	unsigned long end = mmtune_call_arg(c, 2);
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

/* One user per event: each places its own hook while it has listeners. */
static struct mmtune_hook_user trace_fa_user = {
	.name	= "trace fault_around",
	.slot	= MMT_SLOT_TRACE,
	.wants	= BIT(MMT_HOOK_FAULT_AROUND),
	.fn	= { [MMT_HOOK_FAULT_AROUND] = trace_fa_cb },
};

static struct mmtune_hook_user trace_mapped_user = {
	.name	= "trace fault_around_mapped",
	.slot	= MMT_SLOT_TRACE,
	.wants	= BIT(MMT_HOOK_SET_PTE),
	.fn	= { [MMT_HOOK_SET_PTE] = trace_mapped_cb },
};

/*
 * The tracepoint layer calls the reg functions when an event's first
 * listener comes (tracefs, perf, bpftrace: process context, under its
 * own mutexes, which are taken before ftrace's as for kprobe events) and
 * unreg when the last one goes.  It may do so before init (an event
 * enabled before the module was loaded: the tracepoints exist from the
 * module's COMING notifier on) and after exit (GOING follows exit): a
 * listener wanted then is served from init, and nothing is placed
 * outside init..exit.
 */
static DEFINE_MUTEX(trace_lock);
static bool trace_ready;
static bool trace_wanted[2];	/* fault_around, fault_around_mapped */
static struct mmtune_hook_user *const trace_users[2] = {
	&trace_fa_user, &trace_mapped_user,
};

static int trace_listen(unsigned int ev, bool on)
{
	int ret = 0;

	mutex_lock(&trace_lock);
	trace_wanted[ev] = on;
	if (trace_ready && on)
		ret = mmtune_hooks_get(trace_users[ev]);
	else if (trace_ready)
		mmtune_hooks_put(trace_users[ev]);
	if (ret)
		trace_wanted[ev] = false;
	mutex_unlock(&trace_lock);
	return ret;
}

int mmtune_trace_fa_reg(void)
{
	return trace_listen(0, true);
}

void mmtune_trace_fa_unreg(void)
{
	trace_listen(0, false);
}

int mmtune_trace_mapped_reg(void)
{
	return trace_listen(1, true);
}

void mmtune_trace_mapped_unreg(void)
{
	trace_listen(1, false);
}

static int mmt_trace_init(struct dentry *dir)
{
	unsigned int ev;
	int ret;

	mutex_lock(&trace_lock);
	trace_ready = true;
	for (ev = 0; ev < ARRAY_SIZE(trace_users); ev++) {
		if (!trace_wanted[ev])
			continue;
		ret = mmtune_hooks_get(trace_users[ev]);
		if (ret)
			pr_warn("trace: cannot place the hook of a listened event (%d)\n",
				ret);
	}
	mutex_unlock(&trace_lock);
	return 0;
}

static void mmt_trace_exit(void)
{
	unsigned int ev;

	mutex_lock(&trace_lock);
	trace_ready = false;
	for (ev = 0; ev < ARRAY_SIZE(trace_users); ev++)
		mmtune_hooks_put(trace_users[ev]);
	mutex_unlock(&trace_lock);
}

const struct mmtune_feature mmtune_trace_feature = {
	.name	= "trace",
	.init	= mmt_trace_init,
	.exit	= mmt_trace_exit,
};
