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
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#define CREATE_TRACE_POINTS
#include "mmtune_trace.h"
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
 * listener comes (tracefs, perf, bpftrace: process context) and unreg
 * when the last one goes, under its tracepoints_mutex.  It may do so
 * before init (an event enabled before the module was loaded: the
 * tracepoints exist from the module's COMING notifier on) and after exit
 * (GOING follows exit): a listener wanted then is served from init, and
 * nothing is placed outside init..exit.
 *
 * Placing a hook takes ftrace_lock, and ftrace takes tracepoints_mutex
 * under ftrace_lock (a write to set_ftrace_pid, as trace-cmd record -F
 * does, registers a sched_switch probe): placing from reg would take the
 * two in both orders, a deadlock when both happen at once.  So reg and
 * unreg only note what is wanted, queue trace_work, which places and
 * removes hooks under none of the tracepoints' locks, and return: they
 * never wait for it.  The kernel calls them under event_mutex and
 * tracepoints_mutex, which every tracefs write, perf or BPF attach and
 * module load takes: a wait there for ftrace (busy for seconds while
 * the function tracer patches every call site) stalled all of those
 * machine-wide.  So an event fires from the moment its hook is placed,
 * just after its first listener came (a listener that must count from
 * a workload's first call enables the event before starting it: see
 * docs/tracing.md), and its hook goes just after its last listener
 * has gone.  A hook that cannot be placed is said in the kernel log;
 * the listener gets no events, and the next reg or unreg tries again.
 * exit flushes trace_work and removes what it placed.
 */
static void trace_work_fn(struct work_struct *work);

static DEFINE_MUTEX(trace_lock);	/* trace_held: trace_work's */
static bool trace_held[2];		/* fault_around, fault_around_mapped */
static DEFINE_SPINLOCK(trace_want_lock);	/* the rest */
static bool trace_ready;
static bool trace_wanted[2];
static DECLARE_WORK(trace_work, trace_work_fn);
static struct mmtune_hook_user *const trace_users[2] = {
	&trace_fa_user, &trace_mapped_user,
};

/* The hooks held made what is wanted. */
static void trace_sync_locked(void)
{
	bool want[2], ready;
	unsigned int ev;
	int err;

	lockdep_assert_held(&trace_lock);
	spin_lock(&trace_want_lock);
	memcpy(want, trace_wanted, sizeof(want));
	ready = trace_ready;
	spin_unlock(&trace_want_lock);
	for (ev = 0; ev < ARRAY_SIZE(trace_users); ev++) {
		if (ready && want[ev] && !trace_held[ev]) {
			err = mmtune_hooks_get(trace_users[ev]);
			trace_held[ev] = !err;
			if (err)
				pr_warn_ratelimited("trace: cannot place the hook of %s (%d): the event records nothing\n",
						    trace_users[ev]->name, err);
		} else if (!(ready && want[ev]) && trace_held[ev]) {
			mmtune_hooks_put(trace_users[ev]);
			trace_held[ev] = false;
		}
	}
}

static void trace_work_fn(struct work_struct *work)
{
	mutex_lock(&trace_lock);
	trace_sync_locked();
	mutex_unlock(&trace_lock);
}

/* Under event_mutex and tracepoints_mutex: note, queue, return. */
static void trace_listen(unsigned int ev, bool on)
{
	spin_lock(&trace_want_lock);
	trace_wanted[ev] = on;
	if (trace_ready)	/* exit flushes after it clears ready */
		schedule_work(&trace_work);
	spin_unlock(&trace_want_lock);
}

int mmtune_trace_fa_reg(void)
{
	trace_listen(0, true);
	return 0;
}

void mmtune_trace_fa_unreg(void)
{
	trace_listen(0, false);
}

int mmtune_trace_mapped_reg(void)
{
	trace_listen(1, true);
	return 0;
}

void mmtune_trace_mapped_unreg(void)
{
	trace_listen(1, false);
}

static int mmt_trace_init(struct dentry *dir)
{
	spin_lock(&trace_want_lock);
	trace_ready = true;
	spin_unlock(&trace_want_lock);
	mutex_lock(&trace_lock);
	trace_sync_locked();
	mutex_unlock(&trace_lock);
	return 0;
}

static void mmt_trace_exit(void)
{
	spin_lock(&trace_want_lock);
	trace_ready = false;
	spin_unlock(&trace_want_lock);
	flush_work(&trace_work);	/* none is queued after this */
	mutex_lock(&trace_lock);
	trace_sync_locked();
	mutex_unlock(&trace_lock);
}

const struct mmtune_feature mmtune_trace_feature = {
	.name	= "trace",
	.init	= mmt_trace_init,
	.exit	= mmt_trace_exit,
};
