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
#include <linux/wait.h>
#include <linux/workqueue.h>

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
 * unreg only note what is wanted and queue trace_work, which places and
 * removes hooks under none of the tracepoints' locks.  Each then waits
 * for it: an event fires from its first listener's first call on (perf
 * stat -- app opens the event before app runs), and when its last
 * listener has gone the hook is gone.  The wait is bounded: trace_work
 * may wait for ftrace_lock held by a task that waits for the
 * tracepoints_mutex we hold.  Then we return after TRACE_PLACE_WAIT,
 * that task goes on, and the hook comes or goes after it.
 */
#define TRACE_PLACE_WAIT	(10 * HZ)

static void trace_work_fn(struct work_struct *work);

static DEFINE_MUTEX(trace_lock);	/* trace_held: trace_work's */
static bool trace_held[2];		/* fault_around, fault_around_mapped */
static DEFINE_SPINLOCK(trace_want_lock);	/* the rest */
static bool trace_ready;
static bool trace_wanted[2];
static int trace_err[2];	/* what the last sync's get returned */
static unsigned long trace_req, trace_done;	/* syncs asked for, done */
static DECLARE_WAIT_QUEUE_HEAD(trace_wait);
static DECLARE_WORK(trace_work, trace_work_fn);
static struct mmtune_hook_user *const trace_users[2] = {
	&trace_fa_user, &trace_mapped_user,
};

/* The hooks held made what is wanted; wakes reg's waiters. */
static void trace_sync_locked(void)
{
	bool want[2], ready;
	int err[2] = { 0, 0 };
	unsigned long req;
	unsigned int ev;

	lockdep_assert_held(&trace_lock);
	spin_lock(&trace_want_lock);
	memcpy(want, trace_wanted, sizeof(want));
	ready = trace_ready;
	req = trace_req;
	spin_unlock(&trace_want_lock);
	for (ev = 0; ev < ARRAY_SIZE(trace_users); ev++) {
		if (ready && want[ev] && !trace_held[ev]) {
			err[ev] = mmtune_hooks_get(trace_users[ev]);
			trace_held[ev] = !err[ev];
			if (err[ev])
				pr_warn_ratelimited("trace: cannot place the hook of %s (%d)\n",
						    trace_users[ev]->name, err[ev]);
		} else if (!(ready && want[ev]) && trace_held[ev]) {
			mmtune_hooks_put(trace_users[ev]);
			trace_held[ev] = false;
		}
	}
	spin_lock(&trace_want_lock);
	memcpy(trace_err, err, sizeof(err));
	trace_done = req;
	spin_unlock(&trace_want_lock);
	wake_up_all(&trace_wait);
}

static void trace_work_fn(struct work_struct *work)
{
	mutex_lock(&trace_lock);
	trace_sync_locked();
	mutex_unlock(&trace_lock);
}

static bool trace_synced(unsigned long req)
{
	bool done;

	spin_lock(&trace_want_lock);
	done = (long)(trace_done - req) >= 0;
	spin_unlock(&trace_want_lock);
	return done;
}

static int trace_listen(unsigned int ev, bool on)
{
	unsigned long req;
	bool queued;
	int ret = 0;

	spin_lock(&trace_want_lock);
	trace_wanted[ev] = on;
	req = ++trace_req;
	queued = trace_ready;	/* exit flushes after it clears ready */
	if (queued)
		schedule_work(&trace_work);
	spin_unlock(&trace_want_lock);
	if (!queued)
		return 0;
	if (!wait_event_timeout(trace_wait, trace_synced(req),
				TRACE_PLACE_WAIT)) {
		pr_info("trace: %s: its hook waits for ftrace: %s when ftrace is free\n",
			trace_users[ev]->name, on ? "placed" : "removed");
		return 0;
	}
	if (!on)
		return 0;
	/* refused: the listener is told, and no unreg will come */
	spin_lock(&trace_want_lock);
	ret = trace_err[ev];
	if (ret)
		trace_wanted[ev] = false;
	spin_unlock(&trace_want_lock);
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
