// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: what fault-around costs in memory, now.
 *
 * debugfs rss: per process, and per file it maps, the pages its file
 * mappings map with PTEs ("mapped") and those of them that are old
 * ("untouched"): pages fault-around mapped ahead of the process that it
 * has not touched since.  usefulness.c makes every pre-mapped PTE old
 * while the measurement is on; everything else the kernel maps is young
 * (arm64's kernels also map pre-mapped pages old themselves).  So the
 * figure is what fault-around added to the process's RssFile that nobody
 * used, as of the read, within two limits the first line states:
 *  - with usefulness_enable 0 on x86, pre-mapped pages are mapped young:
 *    nothing reads as untouched;
 *  - reclaim, MGLRU aging, page idle tracking and DAMON clear accessed
 *    bits too: a touched page they aged reads as untouched.
 *  - arm64's contiguous blocks (16 PTEs of one folio, one access flag)
 *    read as one: every page touched if one was, unless the usefulness
 *    measurement split the block when it made its pages old
 *    (compat/pte.h's mmtune_unfold()).
 * Pages a huge pmd maps are not counted (there are no PTEs).
 * A file an order=auto:file rule takes has its order on its line too
 * (" order=N" after the path, whose spaces are escaped): the one the
 * rule's faults on it get now, learned, or the rule's base order while
 * the file has no entry in the rule's table (auto_file.c).
 *
 * Which processes: every one (the default), or what one write before the
 * reads of the same open file selects: "pid=N" (in the writer's pid
 * namespace) or "cgroup=PATH" (a cgroup v2 path: its processes and its
 * descendants').  Or "rule=N": every process, and of each the mappings
 * whose faults the policy's N-th rule (from 1) gives its order as the
 * read finds the rules: a rule with file=, vma= or madv= takes mappings,
 * not processes.  A rule that does not exist then takes none.  Found by
 * thread group id, in the reader's pid namespace, as /proc lists them.
 * The walk only reads page tables, under the mmap lock, which it only
 * tries at first: a process whose lock is held is shown "busy" without
 * counts.  It lets the lock go at bounded intervals and waits for it then
 * (killable): see rss_show_mm().
 */
#include <linux/cgroup.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "mmtune.h"
#include "compat/pte.h"
#include "pgwalk.h"

#define RSS_CHUNK	64	/* page tables under one rcu_read_lock() */
#define RSS_HOLD	128	/* steps under one hold of the mmap lock */
#define RSS_FILES	128	/* files a process's lines name; then "(more)" */
#define RSS_ESC		" \t\n\\"

struct rss_sel {
	struct pid *pid;	/* one process, or */
	struct cgroup *cgrp;	/* a cgroup's, or neither: every process */
	int rule;		/* rule=: its index, -1 for none */
};

struct rss_file {
	struct file *file;	/* NULL: the files past RSS_FILES */
	unsigned long mapped, old;
	int order;		/* under an auto:file rule: its order; or -1 */
};

/*
 * Old and present PTEs of [@addr, @end) of @mm into @f, at most
 * RSS_CHUNK page tables (added to *@steps): where it stopped.
 */
static unsigned long rss_range(struct mm_struct *mm, unsigned long addr,
			       unsigned long end, struct rss_file *f,
			       unsigned int *steps)
{
	unsigned long stop, budget;
	unsigned int i;

	rcu_read_lock();	/* see live.c: tables freed after a GP */
	for (i = 0; i < RSS_CHUNK && addr < end; i++, addr = stop) {
		budget = ULONG_MAX;
		f->old += mmtune_count_old_ptes(mm, addr, pmd_addr_end(addr, end),
						&budget, &stop, &f->mapped);
	}
	rcu_read_unlock();
	*steps += i;
	return addr;
}

/* @f's entry for @vma's file: found, new, or the last one (the rest). */
static struct rss_file *rss_slot(struct rss_file *f, unsigned int *n,
				 struct vm_area_struct *vma)
{
	struct inode *inode = file_inode(vma->vm_file);
	unsigned int i;

	for (i = 0; i < *n; i++)
		if (f[i].file && file_inode(f[i].file) == inode)
			return &f[i];
	if (*n < RSS_FILES - 1) {
		/* held: the walk lets go of the mmap lock, the mapping may go */
		f[*n].file = get_file(vma->vm_file);
		f[*n].order = -1;
		return &f[(*n)++];
	}
	*n = RSS_FILES;
	return &f[RSS_FILES - 1];	/* file NULL: "(more)" */
}

/*
 * @vma's pages from @addr into its file's entry of @f, if the rule @rule
 * takes the mapping (-1: every one): where the walk goes on.  The entry
 * keeps the order an order=auto:file rule gives the file now, as a
 * fault would find the rule: of the first of its mappings under one.
 */
static unsigned long rss_vma(struct task_struct *t, struct vm_area_struct *vma,
			     unsigned long addr, int rule, struct rss_file *f,
			     unsigned int *n, unsigned int *steps)
{
	struct rss_file *e;
	int r, order;

	if (!mmtune_vma_judged(vma))
		return vma->vm_end;
	r = mmtune_policy_vma_rule(t, vma, &order);	/* every mapping's order */
	if (rule >= 0 && r != rule)
		return vma->vm_end;
	e = rss_slot(f, n, vma);
	if (e->file && e->order < 0)
		e->order = order;
	return rss_range(vma->vm_mm, addr, vma->vm_end, e, steps);
}

/*
 * One process's lines, of its mappings that the rule @rule takes (-1:
 * every one).  Called with the mmap lock held (tried); returns with it
 * released.  The lock is let go and taken again every RSS_HOLD steps (a
 * mapping looked at, or a page table walked), as the kernel's
 * own long walkers do, and the walk goes on from the address it reached
 * (find_vma()): a process that maps and unmaps waits for one step's
 * worth, not for the whole walk (a jiffy's sleep lets its waiting
 * writer in).  A mapping that came or went meanwhile
 * is counted or not as the walk finds it: every address once at most.
 */
static void rss_show_mm(struct seq_file *m, struct task_struct *t,
			struct mm_struct *mm, pid_t nr, int rule,
			const char *comm, struct rss_file *f)
{
	struct rss_file all = { NULL, 0, 0, -1 };
	struct vm_area_struct *vma;
	unsigned long addr = 0;
	unsigned int i, n = 0, steps = 0;
	bool locked = true;

	memset(f, 0, sizeof(*f) * RSS_FILES);
	for (;;) {
		if (steps >= RSS_HOLD) {
			bool waited = mmap_lock_is_contended(mm);

			steps = 0;
			mmap_read_unlock(mm);
			/*
			 * A writer waits (the process maps or unmaps): let it
			 * run first.  Taken back at once, the lock would go to
			 * us again (rwsem lets a reader steal it from a writer
			 * not yet running), and cond_resched() does not
			 * reschedule under full preemption (7.x).
			 */
			if (waited)
				schedule_timeout_killable(1);
			else
				cond_resched();
			if (fatal_signal_pending(current) ||
			    mmap_read_lock_killable(mm)) {
				locked = false;
				break;
			}
		}
		vma = find_vma(mm, addr);
		if (!vma)
			break;
		addr = max(addr, vma->vm_start);
		steps++;
		addr = rss_vma(t, vma, addr, rule, f, &n, &steps);
	}
	if (locked)
		mmap_read_unlock(mm);
	for (i = 0; i < n; i++) {
		all.mapped += f[i].mapped;
		all.old += f[i].old;
	}
	if (all.mapped) {
		seq_printf(m, "pid=%d mapped=%lu untouched=%lu comm=", nr,
			   all.mapped, all.old);
		seq_escape(m, comm, RSS_ESC);
		seq_putc(m, '\n');
	}
	for (i = 0; i < n; i++) {
		if (f[i].mapped) {
			seq_printf(m, "pid=%d mapped=%lu untouched=%lu file=",
				   nr, f[i].mapped, f[i].old);
			if (f[i].file)
				seq_file_path(m, f[i].file, RSS_ESC);
			else
				seq_puts(m, "(more)");
			if (f[i].file && f[i].order >= 0)	/* not "(more)" */
				seq_printf(m, " order=%d", f[i].order);
			seq_putc(m, '\n');
		}
		if (f[i].file)
			fput(f[i].file);
	}
}

static void rss_show_task(struct seq_file *m, struct task_struct *t,
			  pid_t nr, int rule, struct rss_file *f)
{
	char comm[TASK_COMM_LEN];
	struct mm_struct *mm;

	get_task_comm(comm, t);
	mm = get_task_mm(t);
	if (!mm)
		return;
	if (mmap_read_trylock(mm)) {
		rss_show_mm(m, t, mm, nr, rule, comm, f);	/* unlocks */
	} else {
		seq_printf(m, "pid=%d busy comm=", nr);
		seq_escape(m, comm, RSS_ESC);
		seq_putc(m, '\n');
	}
	mmput(mm);
}

static bool rss_selected(const struct rss_sel *sel, struct task_struct *t)
{
	bool in;

	if (!sel->cgrp)
		return true;
	rcu_read_lock();
	in = cgroup_is_descendant(task_dfl_cgroup(t), sel->cgrp);
	rcu_read_unlock();
	return in;
}

static int rss_show(struct seq_file *m, void *v)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	const struct rss_sel *sel = m->private;
	struct task_struct *t;
	struct rss_file *f;
	struct pid *pid;
	pid_t nr = 1;

	/* no page table walk without MMTUNE_HAVE_PTE_MKOLD: see compat/pte.h */
	seq_printf(m, "# available %d usefulness_enable %d page_size %lu\n",
		   MMTUNE_HAVE_PTE_MKOLD, mmtune_useful_enabled(), PAGE_SIZE);
	if (!MMTUNE_HAVE_PTE_MKOLD)
		return 0;
	f = kmalloc_array(RSS_FILES, sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	for (;;) {
		rcu_read_lock();
		pid = sel->pid ? sel->pid : find_ge_pid(nr, ns);
		t = pid ? pid_task(pid, PIDTYPE_TGID) : NULL;
		if (t)
			get_task_struct(t);
		if (pid)
			nr = pid_nr_ns(pid, ns);
		rcu_read_unlock();
		if (t) {
			if (rss_selected(sel, t))
				rss_show_task(m, t, nr, sel->rule, f);
			put_task_struct(t);
		}
		if (!pid || sel->pid || fatal_signal_pending(current))
			break;
		nr++;
	}
	kfree(f);
	return 0;
}

static int rss_open(struct inode *inode, struct file *file)
{
	struct rss_sel *sel = kzalloc(sizeof(*sel), GFP_KERNEL);
	int ret;

	if (!sel)
		return -ENOMEM;
	sel->rule = -1;
	/* a machine's worth of lines: a smaller buffer walks it again */
	ret = single_open_size(file, rss_show, sel, 512 * 1024);
	if (ret)
		kfree(sel);
	return ret;
}

static void rss_sel_put(struct rss_sel *sel)
{
	put_pid(sel->pid);
	if (sel->cgrp)
		cgroup_put(sel->cgrp);
	sel->pid = NULL;
	sel->cgrp = NULL;
	sel->rule = -1;
}

static int rss_release(struct inode *inode, struct file *file)
{
	struct rss_sel *sel = ((struct seq_file *)file->private_data)->private;

	rss_sel_put(sel);
	kfree(sel);
	return single_release(inode, file);
}

/* "pid=N", "cgroup=PATH", "rule=N" or "all" into @sel; on error, unchanged */
static int rss_select(struct rss_sel *sel, const char *buf)
{
	struct cgroup *cgrp;
	struct pid *pid;
	int nr, ret;

	if (!strcmp(buf, "all")) {
		rss_sel_put(sel);
		return 0;
	}
	if (str_has_prefix(buf, "rule=")) {
		ret = kstrtoint(buf + 5, 10, &nr);
		if (ret || nr <= 0)
			return -EINVAL;
		rss_sel_put(sel);
		sel->rule = nr - 1;
		return 0;
	}
	if (str_has_prefix(buf, "pid=")) {
		ret = kstrtoint(buf + 4, 10, &nr);
		if (ret || nr <= 0)
			return -EINVAL;
		pid = find_get_pid(nr);
		if (!pid)
			return -ESRCH;
		rss_sel_put(sel);
		sel->pid = pid;
		return 0;
	}
	if (str_has_prefix(buf, "cgroup=/")) {
		cgrp = cgroup_get_from_path(buf + 7);
		if (IS_ERR(cgrp))
			return PTR_ERR(cgrp);
		rss_sel_put(sel);
		sel->cgrp = cgrp;
		return 0;
	}
	return -EINVAL;
}

/* A selection for this open file's reads; the position stays at 0. */
static ssize_t rss_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	char *buf = mmtune_write_get(ubuf, count, ppos, PATH_MAX, true);
	int ret;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&m->lock);	/* not under a read of the same file */
	ret = rss_select(m->private, buf);
	mutex_unlock(&m->lock);
	kfree(buf);
	return ret ? ret : count;
}

static const struct file_operations rss_fops = {
	.owner		= THIS_MODULE,
	.open		= rss_open,
	.read		= seq_read,
	.write		= rss_write,
	.llseek		= seq_lseek,
	.release	= rss_release,
};

/*
 * 0400: debugfs lets a locked-down kernel's root open a file read-only
 * whose mode has no write bit, so the whole list stays readable there;
 * the selection is a write, which root may make otherwise (its DAC
 * override), and lockdown refuses with the open for writing.
 */
static int rss_init(struct dentry *dir)
{
	debugfs_create_file("rss", 0400, dir, NULL, &rss_fops);
	return 0;
}

const struct mmtune_feature mmtune_rss_feature = {
	.name	= "rss",
	.init	= rss_init,
};
