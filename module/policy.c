// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: per-process fault-around policy.  The rules (policy_rule.c
 * parses and renders them; their grammar, what a read gives and the
 * errors are docs/policy.md's) are matched on the fault path here,
 * installed, polled for the kernel's size and for removed cgroups, and
 * read and written through debugfs "policy" and the "policy" parameter.
 *
 * Mechanism.  While rules exist, the policy holds the filemap_map_pages
 * entry hook of the hooks layer (hooks.c), also with stats off.  The
 * kernel's own fault-around size is raised to
 * the largest order a rule or the default needs, and the hook narrows
 * every window [start_pgoff, end_pgoff] around the faulting page to the
 * order of the first matching rule, or to the default order D: the order
 * that was in force when the first rule was written (the user's global
 * order), so processes without a rule see exactly what they saw before.
 * The narrowed window is the one the kernel itself computes at that order:
 * the naturally aligned block (by virtual address) around the fault,
 * clamped to the VMA and the page table.  Both are powers of two no larger
 * than a page table, so that block lies inside the kernel's own window at
 * the raised order, and the intersection of the two is exactly the
 * kernel's window at the lower order.  Narrowing only ever shrinks the
 * kernel's window, so it never crosses the VMA or the page table and
 * never maps past EOF (filemap_map_pages clamps to i_size itself).  Order
 * 0 leaves the faulting page alone in the window: filemap_map_pages maps
 * just that page (if it is cached and up to date) and the fault ends
 * there, else the kernel's ->fault path maps it; either way one fault per
 * page, as with fault-around off.
 *
 * The global order while rules exist.  The default order D is
 * fault_around.c's base order: fault_around_order and the module
 * parameter read and write it while the kernel's size stays raised, and a
 * write to the kernel's own fault_around_bytes becomes it as soon as it is
 * seen (every POLICY_POLL, every read or write of the policy file);
 * fault_around.c's lock serialises all of it.  Until a raise catches up,
 * windows are narrowed to the lower of the target and what the kernel
 * gives.  Clearing the rules or unloading puts D back into the kernel.
 * While rules exist the hooks hold an FTRACE_OPS_FL_PERMANENT ops, so
 * ftrace_enabled=0 (which would stop the narrowing) is refused.
 *
 * Lookup.  The rules are an array behind an RCU pointer; the hook runs with
 * preemption off (hooks.c's ftrace function), an RCU-sched read-side
 * section; a write builds a new array, publishes it, waits for a grace
 * period and frees the old one.  comm is two 8-byte compares, pid one
 * pointer compare (the struct pid held by the rule), cgroup an ancestor
 * lookup in the task's default-hierarchy cgroup (cgroup_is_descendant(),
 * O(1)) against the cgroup the rule holds.
 */
#include <linux/cache.h>
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "mmtune.h"
#include "mmtune_abi.h"
#include "compat/attributes.h"
#include "hooks.h"
#include "auto.h"
#include "live.h"
#include "policy.h"
#include "mmtune_trace_order.h"

static struct policy_set __rcu *policy;
static DEFINE_MUTEX(policy_lock);
static bool policy_ready, policy_exiting;
static bool policy_loading = true;	/* before init: parameters wait */
static char *policy_pending;		/* policy= given at load */
static char policy_reason[96] = "off: not initialised";
static unsigned long policy_gen;	/* the last auto rule id; policy_lock */
static u64 auto_changes;		/* every auto rule's, since load */

static void policy_poll(struct work_struct *work);
static DECLARE_DELAYED_WORK(poll_work, policy_poll);

/*
 * Which rule the current task's last fault-around call matched, for the
 * PTE-setter hook and the return probe that follow it in the same call: a
 * slot per task hash holding the task pointer with the rule index in its
 * low bits (a task_struct is aligned to a cache line).  A slot that
 * another task took over in between no longer holds our pointer: those
 * pages go uncounted.  Not a slot per CPU: a task that moved to another
 * CPU within the call would read there what it (or an exited task at
 * the same address) noted at an earlier call, maybe another rule.
 *
 * The slots are the set's, not global: a write may install a new set
 * between the call's start and its PTEs (the start is outside
 * filemap_map_pages' RCU section, a grace period does not wait for it),
 * and in the new set the index may be another rule's.  The new set's
 * slots, zeroed, hold nothing of a call begun under the old one.
 */
#define SLOT_BITS	8
#define SLOT_TAG	(L1_CACHE_BYTES - 1UL)

struct policy_slot {
	unsigned long v;
} ____cacheline_aligned_in_smp;

static __always_inline struct policy_slot *
slot_of_current(const struct policy_set *set)
{
	return &set->slots[hash_ptr(current, SLOT_BITS)];
}

/*
 * The task's slot in @set says @idx.  Written only when it says something
 * else: a thread that keeps faulting under one rule keeps its slot's line
 * clean, and a CPU whose task hashes to the same slot (or the task
 * itself, moved to another CPU) does not have to fetch it again at every
 * fault.
 */
static __always_inline void slot_note(const struct policy_set *set,
				      unsigned int idx)
{
	struct policy_slot *slot = slot_of_current(set);
	unsigned long v = (unsigned long)current | idx;

	if (READ_ONCE(slot->v) != v)
		WRITE_ONCE(slot->v, v);
}

/* The rule index the current task's slot in @set holds, or -1 for none. */
static __always_inline int slot_read(const struct policy_set *set)
{
	unsigned long v = READ_ONCE(slot_of_current(set)->v);

	if ((v & ~SLOT_TAG) != (unsigned long)current)
		return -1;
	return v & SLOT_TAG;
}

static struct policy_slot *slots_alloc(void)
{
	return kvcalloc(1 << SLOT_BITS, sizeof(struct policy_slot), GFP_KERNEL);
}

/* ---- the fault path ---- */

/*
 * A process's name as two words, compared with a rule's comm: by value,
 * so that the fault path keeps it in registers (an array would be on the
 * stack, and bring the stack protector with it).
 */
struct comm_key {
	u64 w0, w1;
};

static __always_inline struct comm_key comm_of(const struct task_struct *t)
{
	struct comm_key k;

	BUILD_BUG_ON(sizeof(k) != sizeof(t->comm));
	memcpy(&k, t->comm, sizeof(k));
	return k;
}

static __always_inline unsigned int rule_order(const struct policy_rule *r)
{
	return r->is_auto ? READ_ONCE(r->au.order) : r->order;
}

/*
 * Whether @r's task key matches the task @t (the current one, but for
 * rss.c), whose process's name is @comm and whose cgroup is *@cg (NULL:
 * looked up here if a cgroup= rule needs it).
 */
static __always_inline bool task_match(const struct policy_rule *r,
				       struct task_struct *t, struct comm_key comm,
				       struct cgroup **cg)
{
	switch (r->kind) {
	case RULE_COMM:
		return r->comm[0] == comm.w0 && r->comm[1] == comm.w1;
	case RULE_PID:
		return task_tgid(t) == r->pid;
	case RULE_CGROUP: {
		struct cgroup *rc = READ_ONCE(r->cgrp);	/* NULL: removed */

		if (!rc)
			return false;
		if (!*cg)
			*cg = task_dfl_cgroup(t);
		return cgroup_is_descendant(*cg, rc);
	}
	case RULE_ANY:
		return true;
	default:
		return false;
	}
}

/* Whether a file mapping @vma is on tmpfs: shmem, memfd, SysV or POSIX */
static __always_inline bool vma_on_tmpfs(const struct vm_area_struct *vma)
{
	return file_inode(vma->vm_file)->i_sb->s_magic == TMPFS_MAGIC;
}

/*
 * Whether @r's mapping keys match @vma (fault-around's: a file mapping).
 * The file is its inode, the mapped one (an overlayfs file's real inode).
 */
static __always_inline bool map_match(const struct policy_rule *r,
				      const struct vm_area_struct *vma)
{
	if (r->inode && file_inode(vma->vm_file) != r->inode)
		return false;
	if (r->madv_random && !(vma->vm_flags & VM_RAND_READ))
		return false;
	switch (r->vma) {
	case VMA_EXEC:
		return vma->vm_flags & VM_EXEC;
	case VMA_DATA:
		return !(vma->vm_flags & VM_EXEC) && !vma_on_tmpfs(vma);
	case VMA_SHMEM:
		return vma_on_tmpfs(vma);
	default:
		return true;
	}
}

/* BIT(i) for each rule i of @set whose task key matches the current task */
static __always_inline u32 task_mask(const struct policy_set *set,
				     struct comm_key comm, struct cgroup *cg)
{
	unsigned int i;
	u32 mask = 0;

	for (i = 0; i < set->nr; i++)
		if (task_match(&set->rule[i], current, comm, &cg))
			mask |= BIT(i);
	return mask;
}

/*
 * Index of the first rule of @set in @mask whose mapping keys match @vma
 * (a rule without any matches), or set->nr.
 */
static __always_inline unsigned int first_of(const struct policy_set *set,
					     u32 mask,
					     const struct vm_area_struct *vma)
{
	unsigned int i;

	for (; mask; mask &= mask - 1) {
		i = __ffs(mask);
		if (!set->rule[i].has_map || (vma && map_match(&set->rule[i], vma)))
			return i;
	}
	return set->nr;
}

/*
 * Index of the first rule of @set matching the task @t (the current one,
 * but for rss.c), whose process's name is @comm, and @vma (NULL: a rule
 * with mapping keys matches no mapping), or set->nr.  The walk of small
 * sets.
 */
static __always_inline unsigned int match(const struct policy_set *set,
					  struct task_struct *t,
					  struct comm_key comm,
					  const struct vm_area_struct *vma)
{
	struct cgroup *cg = NULL;
	unsigned int i;

	for (i = 0; i < set->nr; i++) {
		const struct policy_rule *r = &set->rule[i];

		if (task_match(r, t, comm, &cg) &&
		    (!r->has_map || (vma && map_match(r, vma))))
			return i;
	}
	return i;
}

/*
 * The match cache.  Which rules' task keys match a task depends on its
 * process's name, its thread group, its cgroup and the rule set, and none
 * of them changes from one fault to the next of a running service.  The
 * answer, those rules as a mask, is kept per CPU, a few entries hashed by
 * thread group, under those inputs: a fault that finds them unchanged
 * walks no rule but the mask's rules with mapping keys (file=, vma=,
 * madv=: the fault's mapping is no key of the cache), and none in a set
 * without such keys (32 rules cost what 3 do).  The cgroup is keyed by
 * its id, never reused, not by its address.  Each set has a cache of its
 * own (a new set starts empty) and a generation that cgroup= rules
 * following their path change (cgroup_follow_locked).  Sets of
 * MATCH_DIRECT rules or fewer walk: that is as cheap as a lookup.
 * Preemption is off in every caller, so an entry is this CPU's alone.
 */
#define MATCH_DIRECT	2

/*
 * Index of the first rule of @set matching the current task and @vma (see
 * match()), or set->nr: the sets larger than MATCH_DIRECT.  Out of line:
 * the small sets' walk, inlined into the fault path's callback, then
 * keeps to a few registers and no stack.
 */
static noinline unsigned int notrace
match_cached(const struct policy_set *set, const struct vm_area_struct *vma)
{
	struct task_struct *t = current;
	const struct pid *tgid;
	struct cgroup *cg = NULL;
	struct policy_match_ent *e;
	struct comm_key comm;
	unsigned long gen;
	u64 cgid = 0;

	/*
	 * The process's name as ps shows it, the thread-group leader's:
	 * threads renamed with pthread_setname_np() (a JVM's, tokio's
	 * workers) fault for the process they belong to, and usefulness
	 * is kept per process too.  Read once: the answer cached is the
	 * one for the name and cgroup it is keyed by.
	 */
	comm = comm_of(READ_ONCE(t->group_leader));
	if (set->nr_cgroup) {
		cg = task_dfl_cgroup(t);
		cgid = cgroup_id(cg);
	}
	/*
	 * Once, before the walk: a cgroup= rule that moves to a new cgroup
	 * while the walk reads the old one changes the generation after an
	 * RCU grace period, so the walk's answer is never kept under the
	 * new one.
	 */
	gen = READ_ONCE(set->gen);
	tgid = task_tgid(t);
	e = &this_cpu_ptr(set->cache)->ent[hash_ptr(tgid, POLICY_MATCH_BITS)];
	if (e->gen != gen || e->tgid != tgid || e->cgid != cgid ||
	    e->comm[0] != comm.w0 || e->comm[1] != comm.w1) {
		e->mask = task_mask(set, comm, cg);
		e->idx = e->mask ? __ffs(e->mask) : set->nr;
		e->gen = gen;
		e->tgid = tgid;
		e->cgid = cgid;
		e->comm[0] = comm.w0;
		e->comm[1] = comm.w1;
	}
	/* the mapping is no key of the cache: its rules' keys, each call */
	if (likely(!set->nr_map))
		return e->idx;
	return first_of(set, e->mask, vma);
}

/* Index of the first rule of @set matching the current task and @vma. */
static __always_inline unsigned int
match_current(const struct policy_set *set, const struct vm_area_struct *vma)
{
	if (set->nr > MATCH_DIRECT)
		return match_cached(set, vma);
	/* the process's name, as match_cached() reads it */
	return match(set, current, comm_of(READ_ONCE(current->group_leader)),
		     vma);
}

/*
 * Narrow [*@start, *@end] to the aligned block of 2^@order pages holding
 * @vmf's fault, in page table slots; nothing if it is not a window around
 * the fault.  A narrowed window stays as it is.
 */
static __always_inline void narrow(const struct vm_fault *vmf,
				   unsigned int order, unsigned long *start,
				   unsigned long *end)
{
	unsigned long pgoff = vmf->pgoff, nr = 1UL << order, before, after;

	if (*start > pgoff || pgoff > *end)
		return;
	/* "before" slots of the block precede the faulting page */
	before = ((vmf->address >> PAGE_SHIFT) & (PTRS_PER_PTE - 1)) & (nr - 1);
	after = nr - 1 - before;
	if (pgoff - *start > before)
		*start = pgoff - before;
	if (*end - pgoff > after)
		*end = pgoff + after;
}

/*
 * The filemap_map_pages callback, first of the hook's users: narrows the
 * window [start_pgoff, end_pgoff] (arguments 1 and 2) to the order of the
 * first rule that matches the task, or to the default order when none
 * does.  It only ever shrinks the window.  Tells the later callbacks (the
 * trace event) the window asked for, the rule (-1: none) and the order.
 * No buffer is on its stack: no stack protector either (a fault's 5
 * instructions).
 */
static void notrace __no_stack_protector
policy_fault_around(struct mmtune_hook_call *c)
{
	const struct vm_fault *vmf = (void *)mmtune_call_arg(c, 0);
	struct policy_set *set;
	unsigned int idx, order;

	/* preemption is off: an RCU-sched read-side section */
	set = rcu_dereference_sched(policy);
	if (!set || !vmf)
		return;
	idx = match_current(set, vmf->vma);
	order = idx < set->nr ? rule_order(&set->rule[idx]) :
		READ_ONCE(mmtune_fa_base);
	this_cpu_inc(set->ctr[idx].hits);
	slot_note(set, idx);
	c->narrowed = true;
	c->req_start = mmtune_call_arg(c, 1);
	c->req_end = mmtune_call_arg(c, 2);
	c->rule = idx < set->nr ? idx : -1;
	c->order = order;
	/* in place: the arguments the function will see */
	narrow(vmf, order, &c->arg[1], &c->arg[2]);
}

/*
 * The window filemap_map_pages(@vmf, *@start, *@end) maps once the policy
 * has narrowed it, for usefulness.c's return probe, which may see the
 * arguments before or after the policy's hook does (preemption off).
 * The call's rule goes into the task's slot here too, as the policy's
 * hook puts it there: the probe's entry counts an order-0 call at once
 * (mmtune_policy_prefaulted() reads the slot), and ftrace calls the
 * latest registered of the two first, so the slot could still say the
 * task's previous call's rule (another file's, under another rule).
 */
void notrace mmtune_policy_window(const struct vm_fault *vmf,
				  unsigned long *start, unsigned long *end)
{
	struct policy_set *set = rcu_dereference_sched(policy);
	unsigned int idx;

	if (!set)
		return;
	idx = match_current(set, vmf->vma);
	slot_note(set, idx);
	narrow(vmf, idx < set->nr ? rule_order(&set->rule[idx]) :
	       READ_ONCE(mmtune_fa_base), start, end);
}

/*
 * The rule (its index) whose order the process @t, a thread group
 * leader, gets at a fault on @vma, or -1 for none: rss.c's "rule="
 * selection, outside the fault path (a walk of the rules, no cache).
 */
int mmtune_policy_vma_rule(struct task_struct *t,
			   const struct vm_area_struct *vma)
{
	struct comm_key comm = comm_of(t);	/* as the fault path reads it */
	struct policy_set *set;
	unsigned int idx;
	int ret = -1;

	rcu_read_lock();			/* the task's cgroup */
	rcu_read_lock_sched();			/* the set */
	set = rcu_dereference_sched(policy);
	if (set) {
		idx = match(set, t, comm, vma);
		ret = idx < set->nr ? idx : -1;
	}
	rcu_read_unlock_sched();
	rcu_read_unlock();
	return ret;
}

/*
 * The PTE setter's callback: @c->nr pages mapped by fault-around, for the
 * rule the task's last filemap_map_pages call matched.  That hook is the
 * counters' (a call per PTE that the policy alone does not pay for): the
 * policy only listens to it while stats_enable is 1.
 */
static void notrace policy_mapped(struct mmtune_hook_call *c)
{
	struct policy_set *set = rcu_dereference_sched(policy);
	int idx = set ? slot_read(set) : -1;

	if (idx < 0 || (unsigned int)idx > set->nr)
		return;
	this_cpu_add(set->ctr[idx].pages, c->nr);
}

/*
 * Whether the auto rule @r learns from the current task's pre-mapped
 * pages in @mm: a process of the user its writer vouched for (the
 * writer's effective uid, or learn_uid=), its real and effective uids
 * both, so that neither a process another user started (a setuid
 * program: its arguments, its files are that user's) nor one running
 * as another user teaches it; in its own mm (get_user_pages of another
 * process's, as ptrace and process_vm_readv do, is not that process
 * reading; nor a kernel thread's faults in a process's memory, as
 * vhost's, which that process's user steers).  A comm=, file=, vma= or
 * madv= key is no such boundary: any user may name a process so, map a
 * world-readable file, or madvise.  The task's own objective
 * credentials: only it changes them, so they are read without a lock.
 * Only auto rules' calls, with the usefulness measurement on, ask.
 */
static __always_inline bool auto_vouched(const struct policy_rule *r,
					 const struct mm_struct *mm)
{
	const struct cred *cred;

	if (r->learn_any)
		return true;
	/* a kernel thread in a process's memory (vhost) works for its user */
	if (mm != current->mm || (current->flags & PF_KTHREAD))
		return false;
	cred = current_real_cred();
	return uid_eq(cred->uid, r->learn_uid) &&
	       uid_eq(cred->euid, r->learn_uid);
}

/*
 * usefulness.c's counts per rule, with preemption off: pages fault-around
 * pre-mapped in @mm, for the rule the task's last filemap_map_pages call
 * matched (as policy_mapped), and pre-mapped pages found untouched at
 * unmap, for the rule of the process whose pages they were
 * (mmtune_policy_untouched()).  An auto rule's counts are kept per mm and
 * rule (auto.c).
 */
void notrace mmtune_policy_prefaulted(struct mm_struct *mm, unsigned int n)
{
	struct policy_set *set = rcu_dereference_sched(policy);
	int idx = set ? slot_read(set) : -1;
	const struct policy_rule *r;

	if (idx < 0 || (unsigned int)idx > set->nr)
		return;
	this_cpu_add(set->ctr[idx].prefaulted, n);
	if (idx == set->nr || !set->rule[idx].is_auto)
		return;
	r = &set->rule[idx];
	if (likely(auto_vouched(r, mm))) {
		mmtune_auto_mapped(mm, r->au.id, n);
		return;
	}
	/*
	 * Its order applies (the writer chose it for whatever matches), but
	 * it teaches nothing, takes no slot (so it cannot evict a vouched
	 * process's) and costs the live walk nothing.  A process that had a
	 * slot and is no longer vouched for (a setuid() since) drops it; a
	 * fault in another process's memory, or a kernel thread's, leaves
	 * that process's alone.
	 */
	if (mm == current->mm && !(current->flags & PF_KTHREAD))
		n += mmtune_auto_drop(mm, r->au.id);
	this_cpu_add(set->ctr[idx].untrusted, n);
}

/* The index in @set of the auto rule @id, or set->nr: a write may have dropped it */
static __always_inline unsigned int auto_index(const struct policy_set *set,
					       unsigned long id)
{
	unsigned int idx;

	for (idx = 0; idx < set->nr; idx++)
		if (set->rule[idx].is_auto && set->rule[idx].au.id == id)
			break;
	return idx;
}

/*
 * What auto.c handed over for the auto rule @id, to that rule in @set as
 * it is now: a write since may have moved it, or dropped it.  From the
 * fault path (preemption off) and from the poll.
 */
static void notrace auto_credit(struct policy_set *set, unsigned long id,
				u64 p, u64 u, u64 runs)
{
	unsigned int idx = auto_index(set, id);

	if (idx < set->nr) {
		this_cpu_add(set->ctr[idx].auto_p, p);
		this_cpu_add(set->ctr[idx].auto_u, u);
		this_cpu_add(set->ctr[idx].auto_runs, runs);
	}
}

/*
 * The auto rule of @set (its id) whose pages @vma holds in its process,
 * or 0: what live.c's walk and a zap hand to an auto rule.  It is the
 * first rule that the process and @vma match, as at the fault, but the
 * process is not the current task (the walk's is another, an exit_mmap
 * may run in whoever dropped the last reference): its process key is
 * not looked at.  An auto rule matches the process if the process
 * pre-mapped pages under it (auto.c has its slot).  A fixed rule with
 * mapping keys may have taken @vma: 0, less to learn from, nothing
 * counted wrong.  A fixed rule without is passed over: had the process
 * matched it, no later rule would have had its faults.
 */
static unsigned long notrace auto_rule_of(const struct vm_area_struct *vma,
					  void *arg)
{
	const struct policy_set *set = arg;
	const struct policy_rule *r;
	unsigned int i;

	for (i = 0; i < set->nr; i++) {
		r = &set->rule[i];
		if (r->has_map && !map_match(r, vma))
			continue;
		if (r->is_auto && mmtune_auto_owns(vma->vm_mm, r->au.id))
			return r->au.id;
		if (!r->is_auto && r->has_map)
			return 0;
	}
	return 0;
}

/*
 * Whether a zap of @mm runs in its own process, whose task keys are then
 * the current task's: a munmap, an madvise or a truncate of its own, or
 * its exit (exit_mm() has set current->mm to NULL by the exit_mmap(), the
 * task still runs on the mm: active_mm).  Not a kernel thread (a
 * kworker's mmput_async(), the OOM reaper, a kthread_use_mm() user such
 * as vhost: its active_mm may be @mm, borrowed), another process's
 * truncate or last mmput() (a /proc reader's), nor an exec's teardown of
 * the old image (current->mm is the new one by then).
 */
static __always_inline bool zap_by_owner(const struct mm_struct *mm)
{
	if (current->flags & PF_KTHREAD)
		return false;
	return current->mm == mm || (!current->mm && current->active_mm == mm);
}

/*
 * @n untouched pages in a zap of the file mapping @vma: for the rule the
 * process whose pages they are matches with @vma, true, or false if that
 * cannot be told (usefulness.c counts them apart, "unattributed").  The
 * rule is the one the unmapping task matches where that task is of the
 * process (zap_by_owner()); else the auto rule whose pages @vma holds
 * (auto_rule_of(): the process took a slot under it, whoever unmaps); a
 * fixed rule keeps no record of its processes, and the unmapping task's
 * own rule would be a guess (a kworker's, the truncating process's).
 * In an exit_mmap (no users left) every auto rule hears of it, also with
 * 0: that is where the process's counts for each are handed over
 * (auto.c), whichever mappings it still has.
 */
bool notrace mmtune_policy_untouched(struct vm_area_struct *vma,
				     unsigned long n)
{
	struct policy_set *set = rcu_dereference_sched(policy);
	struct mm_struct *mm = vma->vm_mm;
	bool owner = zap_by_owner(mm), credited = owner;
	unsigned long id, of;
	unsigned int i;
	u64 p, u, runs;

	if (!set)
		return owner;
	if (n && owner)
		this_cpu_add(set->ctr[match_current(set, vma)].untouched, n);
	if (!set->nr_auto)
		return owner;
	of = auto_rule_of(vma, set);
	if (n && !owner && of) {
		i = auto_index(set, of);
		credited = i < set->nr;
		if (credited)
			this_cpu_add(set->ctr[i].untouched, n);
	}
	if (!of && atomic_read(&mm->mm_users))
		return credited;
	for (i = 0; i < set->nr; i++) {
		id = set->rule[i].is_auto ? set->rule[i].au.id : 0;
		if (!id || (id != of && atomic_read(&mm->mm_users)))
			continue;
		if (!mmtune_auto_unmapped(mm, id, id == of ? n : 0, &p, &u,
					  &runs))
			continue;
		this_cpu_add(set->ctr[i].auto_p, p);
		this_cpu_add(set->ctr[i].auto_u, u);
		this_cpu_add(set->ctr[i].auto_runs, runs);
	}
	return credited;
}

/*
 * The policy as a user of the hooks: it holds filemap_map_pages while
 * rules exist, with or without stats, and keeps ftrace_enabled on.
 */
static struct mmtune_hook_user policy_user = {
	.name		= "policy",
	.slot		= MMT_SLOT_POLICY,
	.wants		= BIT(MMT_HOOK_FAULT_AROUND),
	.fn		= {
		[MMT_HOOK_FAULT_AROUND] = policy_fault_around,
		[MMT_HOOK_SET_PTE] = policy_mapped,
	},
	.permanent	= true,
};

/*
 * The policy's hook, refused unless the self-test proved that a
 * callback's change of an argument reaches the traced function here.
 */
static int policy_hooks_get(void)
{
	bool held;
	int ret;

	ret = mmtune_hooks_get(&policy_user);
	if (ret)
		return ret;
	held = mmtune_hook_held(&policy_user, MMT_HOOK_FAULT_AROUND);
	if (held && mmtune_hooks_args_writable())
		return 0;
	pr_err("policy: %s\n", !held ?
	       "the filemap_map_pages hook is unavailable (see info)" :
	       "changing filemap_map_pages' arguments failed the self-test");
	mmtune_hooks_put(&policy_user);
	return held ? -EOPNOTSUPP : -ENODEV;
}

/* ---- counters ---- */

static void ctr_sum(const struct policy_set *set, unsigned int idx,
		    struct policy_ctr *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct policy_ctr *c = per_cpu_ptr(set->ctr, cpu) + idx;

		sum->hits += READ_ONCE(c->hits);
		sum->pages += READ_ONCE(c->pages);
		sum->prefaulted += READ_ONCE(c->prefaulted);
		sum->untouched += READ_ONCE(c->untouched);
		sum->auto_p += READ_ONCE(c->auto_p);
		sum->auto_u += READ_ONCE(c->auto_u);
		sum->auto_runs += READ_ONCE(c->auto_runs);
		sum->untrusted += READ_ONCE(c->untrusted);
	}
}

/* ---- installing ---- */

/* The auto rule of @cur with @r's match, or NULL. */
static const struct policy_rule *auto_before(const struct policy_set *cur,
					     const struct policy_rule *r)
{
	const struct policy_rule *c;
	unsigned int i;

	for (i = 0; cur && i < cur->nr; i++) {
		c = &cur->rule[i];
		if (!c->is_auto || c->kind != r->kind || c->inode != r->inode ||
		    c->vma != r->vma || c->madv_random != r->madv_random ||
		    c->learn_any != r->learn_any ||
		    !uid_eq(c->learn_uid, r->learn_uid))
			continue;
		if ((r->kind == RULE_COMM && !memcmp(c->comm, r->comm, sizeof(r->comm))) ||
		    (r->kind == RULE_PID && c->pid == r->pid) ||
		    (r->kind == RULE_CGROUP && !strcmp(c->abs, r->abs)) ||
		    r->kind == RULE_ANY)
			return c;
	}
	return NULL;
}

/*
 * A new set's auto rules: one that the current set @cur has too (the
 * same match, also order=auto) keeps its order and its counts of changes
 * (a write that adds or drops another rule forgets nothing); the others
 * start at the default order (what the task had without a rule), or at
 * N for order=auto:N (an order learned before a reboot, `save`'s).  A
 * kept rule keeps its id too: auto.c's counts of its processes still
 * running go on counting for it (a new rule gets a new id, so nothing
 * of another rule's ever counts for it).
 */
static int auto_start(struct policy_set *set, const struct policy_set *cur)
{
	const struct policy_rule *prev;
	struct policy_rule *r;
	unsigned int i, base;
	int ret;

	ret = mmtune_fa_get_order(&base);
	if (ret)
		return ret;
	for (i = 0; i < set->nr; i++) {
		r = &set->rule[i];
		if (!r->is_auto)
			continue;
		prev = auto_before(cur, r);
		if (prev) {
			/*
			 * all of it, the id too: its live processes' counts
			 * go on counting for it, and what it learned is
			 * carried over at the install (auto_carry)
			 */
			r->au = prev->au;
			continue;
		}
		mmtune_auto_start(&r->au, r->auto_from ? r->order :
				  min(base, mmtune_max_order()));
		r->au.id = ++policy_gen;
	}
	return 0;
}

/*
 * The kernel's size and the base order (what faults without a rule get)
 * are fault_around.c's, under its lock: a write to the knob or the
 * parameter while rules exist sets the base and the kernel stays raised;
 * a write to the kernel's own file is noticed by mmtune_fa_sync() (at
 * every poll, read and write of the policy file).
 */

/* Drop every rule; put the base order back.  Holds policy_lock. */
static void stop_locked(void)
{
	struct policy_set *old;

	old = rcu_dereference_protected(policy, lockdep_is_held(&policy_lock));
	if (!old)
		return;
	/* first, while unmatched faults are still narrowed to the base */
	mmtune_fa_unraise();
	RCU_INIT_POINTER(policy, NULL);
	policy_cgroup_unwatch();	/* its probes read the set */
	synchronize_rcu();
	policy_set_free(old);
	mmtune_hooks_put(&policy_user);
}

/*
 * What the kept auto rules of @set learned in @old (the pages their
 * processes handed over, counted in @old's per-CPU counters), once no
 * fault counts in @old any more: added to @set's, so `learned` and the
 * judgement (whose seen_* auto_start carried) go on from there.
 */
static void auto_carry(struct policy_set *set, const struct policy_set *old)
{
	struct policy_ctr c, *to;
	unsigned int i, j;

	for (i = 0; set->nr_auto && i < set->nr; i++) {
		if (!set->rule[i].is_auto)
			continue;
		for (j = 0; j < old->nr; j++) {
			if (!old->rule[j].is_auto ||
			    old->rule[j].au.id != set->rule[i].au.id)
				continue;
			ctr_sum(old, j, &c);
			to = per_cpu_ptr(set->ctr, get_cpu());
			to[i].auto_p += c.auto_p;
			to[i].auto_u += c.auto_u;
			to[i].auto_runs += c.auto_runs;
			put_cpu();
			break;
		}
	}
}

/* Install @set (not NULL); on error nothing changed and @set is not ours. */
static int install_locked(struct policy_set *set)
{
	struct policy_set *old;
	int ret;

	old = rcu_dereference_protected(policy, lockdep_is_held(&policy_lock));
	if (!old) {
		ret = policy_hooks_get();
		if (ret)
			return ret;
		mmtune_auto_forget();
	}

	set->gen = 1;		/* its cache's entries, zeroed, are of none */
	/* narrowing first, then the kernel's size: never a wider window */
	rcu_assign_pointer(policy, set);
	ret = mmtune_fa_raise(set->max_order);
	if (ret) {
		rcu_assign_pointer(policy, old);
		synchronize_rcu();
		if (!old)
			mmtune_hooks_put(&policy_user);
		return ret;
	}
	if (set->nr_cgroup)
		policy_cgroup_watch(&policy);
	if (old) {
		synchronize_rcu();
		auto_carry(set, old);
		policy_set_free(old);
	} else {
		queue_delayed_work(system_power_efficient_wq, &poll_work,
				   POLICY_POLL);
	}
	return 0;
}

/*
 * Whether usefulness.c measures (it says so at enable and disable, under
 * its lock): told, not asked, so that policy.c calls nothing of it.
 */
static bool measured;

void mmtune_policy_measured(bool on)
{
	WRITE_ONCE(measured, on);
}

/* Each auto rule's judgement (auto.c), at every poll. */
static void auto_judge_locked(struct policy_set *set)
{
	struct policy_rule *r;
	struct policy_ctr c;
	unsigned int i, old;

	for (i = 0; set->nr_auto && i < set->nr; i++) {
		r = &set->rule[i];
		if (!r->is_auto)
			continue;
		ctr_sum(set, i, &c);
		old = r->au.order;
		/* never above an order whose windows go unmeasured */
		if (!mmtune_auto_judge(&r->au, c.auto_p, c.auto_u, c.auto_runs,
				       mmtune_useful_max_order()))
			continue;
		auto_changes++;
		trace_auto_order(i + 1, old, r->au.order, r->au.useful,
				 r->au.judged);
	}
}

/* live.c's credit: policy_lock is held, @arg is the set */
static void live_credit(unsigned long id, u64 p, u64 u, u64 runs, void *arg)
{
	auto_credit(arg, id, p, u, runs);
}

static void policy_poll(struct work_struct *work)
{
	unsigned long ids[POLICY_MAX_RULES];
	struct policy_set *set;
	bool waiting = false;
	unsigned int i, n;

	mutex_lock(&policy_lock);
	set = rcu_dereference_protected(policy, lockdep_is_held(&policy_lock));
	if (set) {
		mmtune_fa_sync();
		for (i = 0, n = 0; i < set->nr; i++)
			if (set->rule[i].is_auto)
				ids[n++] = set->rule[i].au.id;
		if (n && READ_ONCE(measured))
			mmtune_live_poll(ids, n, live_credit, auto_rule_of, set);
		auto_judge_locked(set);
		waiting = policy_cgroup_follow(set);
	}
	if (rcu_access_pointer(policy) && !policy_exiting)
		queue_delayed_work(system_power_efficient_wq, &poll_work,
				   waiting ? POLICY_POLL_REMOVED : POLICY_POLL);
	mutex_unlock(&policy_lock);
}

/* ---- the debugfs file ---- */

/*
 * An auto rule's order in force, its changes, the pages its ended
 * processes pre-mapped (what it learned from), the last judgement's
 * useful share and the pages it left out (processes it does not learn
 * from).
 */
static void show_auto(struct seq_file *m, const struct mmtune_auto *a,
		      const struct policy_ctr *c)
{
	seq_printf(m, " auto_order=%u raised=%llu lowered=%llu learned=%llu useful=",
		   a->order, a->raised, a->lowered, c->auto_p);
	if (a->useful < 0)
		seq_putc(m, '-');
	else
		seq_printf(m, "%d.%d%%", a->useful / 10, a->useful % 10);
	seq_printf(m, " untrusted=%llu", c->untrusted);
}

static void show_ctr(struct seq_file *m, const struct policy_set *set,
		     unsigned int idx)
{
	bool pages = mmtune_hook_state(MMT_HOOK_SET_PTE) == MMT_HOOK_ON;
	struct policy_ctr c;

	ctr_sum(set, idx, &c);
	seq_printf(m, " hits=%llu pages=", c.hits);
	if (pages)
		seq_printf(m, "%llu", c.pages);
	else
		seq_putc(m, '-');
	/* once the usefulness measurement counted for this set */
	if (c.prefaulted || c.untouched)
		seq_printf(m, " prefaulted=%llu untouched=%llu", c.prefaulted,
			   c.untouched);
	if (idx < set->nr && set->rule[idx].is_auto)
		show_auto(m, &set->rule[idx].au, &c);
	seq_putc(m, '\n');
}

static int policy_show(struct seq_file *m, void *v)
{
	struct policy_set *set;
	unsigned int i, live, base;

	mutex_lock(&policy_lock);
	set = rcu_dereference_protected(policy, lockdep_is_held(&policy_lock));
	if (set) {
		mmtune_fa_sync();
		policy_cgroup_follow(set);	/* "removed" as of now */
	}
	seq_printf(m, "# rules %u/%u\n", set ? set->nr : 0, POLICY_MAX_RULES);
	if (mmtune_fa_kernel_order(&live) || mmtune_fa_get_order(&base)) {
		mutex_unlock(&policy_lock);
		return 0;
	}
	seq_printf(m, "# kernel order=%u\n", live);
	seq_printf(m, "# default order=%u", base);
	if (!set) {
		seq_putc(m, '\n');
		mutex_unlock(&policy_lock);
		return 0;
	}
	show_ctr(m, set, set->nr);
	for (i = 0; i < set->nr; i++) {
		policy_show_rule(m, &set->rule[i]);
		show_ctr(m, set, i);
	}
	mutex_unlock(&policy_lock);
	return 0;
}

static int policy_open(struct inode *inode, struct file *file)
{
	return single_open(file, policy_show, NULL);
}

/*
 * Install @set (parsed, not yet counted or started; @clear: "clear"),
 * against the current set @cur.  @set is freed unless it is the policy's
 * now.
 */
static int set_install_locked(struct policy_set *set,
			      const struct policy_set *cur, bool clear)
{
	int ret = 0;

	if (!clear)
		ret = auto_start(set, cur);
	if (!ret && !clear) {
		set->ctr = __alloc_percpu(sizeof(struct policy_ctr) * (set->nr + 1),
					  __alignof__(struct policy_ctr));
		set->cache = alloc_percpu(struct policy_match);
		set->slots = slots_alloc();
		if (!set->ctr || !set->cache || !set->slots)
			ret = -ENOMEM;
	}
	if (!ret && clear) {
		stop_locked();
	} else if (!ret) {
		ret = install_locked(set);
		if (!ret)
			set = NULL;	/* the policy's now */
	}
	policy_set_free(set);
	return ret;
}

/*
 * Apply @buf, a whole rule set or "clear" (NUL-terminated, modified by
 * the parse).  Nothing changes unless it is wholly valid.
 */
static int policy_apply_locked(char *buf)
{
	struct policy_set *set, *cur;
	bool clear;
	int ret;

	if (policy_exiting)
		return -ENODEV;
	set = policy_set_alloc();
	if (!set)
		return -ENOMEM;
	/*
	 * Parsed under the lock: a pid= or cgroup= rule may name an exited
	 * or removed rule of the current set (as of now: followed first).
	 */
	cur = rcu_dereference_protected(policy, lockdep_is_held(&policy_lock));
	if (cur)
		policy_cgroup_follow(cur);
	ret = policy_parse_set(buf, set, cur, &clear);
	if (ret) {
		policy_set_free(set);
		return ret;
	}
	return set_install_locked(set, cur, clear);
}

static ssize_t policy_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char *buf = mmtune_write_get(ubuf, count, ppos, POLICY_WRITE_MAX, false);
	int ret;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&policy_lock);
	ret = policy_apply_locked(buf);
	mutex_unlock(&policy_lock);
	kfree(buf);
	return mmtune_write_done(ret, count, ppos);
}

static const struct file_operations policy_fops = {
	.owner		= THIS_MODULE,
	.open		= policy_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= policy_write,
};

/*
 * ---- module parameter "policy" ----
 *
 * The policy in the place lockdown leaves writable.  A sysfs write holds
 * at most a page, less than a full set may need (POLICY_WRITE_MAX), so
 * besides a whole set (rules separated by newlines or ';', as modprobe.d
 * cannot hold a newline) and "clear", a write may be one verb:
 *
 *   add RULE    append RULE to the current set
 *   del N       drop the Nth rule (counting from 1)
 *   first RULE  put RULE first (first match wins), dropping the rules of
 *               its match ("cgroup=/x" of "cgroup=/x order=2")
 *   drop MATCH  drop every rule of that match (none: nothing changes)
 *
 * first and drop are for a tool's rule of its own (mmtunectl run): one
 * write each, so that concurrent editors never lose each other's rules.
 *
 * Each edits the parsed rules: the current set's rules are copied as they
 * are (references taken: an exited pid= rule, a removed cgroup= rule, a
 * pid that the writer's pid namespace cannot see, an auto rule's id and
 * order all stay), the one added is parsed.  The counters start again,
 * as with any write.  A read gives the rules as written, one per line, as
 * many as fit a page; sysfs policy/rules says how many there are.
 */

/*
 * An edit of @cur: @add parsed (may be NULL) first when @front, last if
 * not; @cur's rules kept as they are but rule @skip (-1: none) and those
 * whose match is @drop (NULL: none), or with @front those of @add's.
 */
struct policy_edit {
	int skip;
	const char *drop;
	char *add;
	bool front;
};

static int edit_add(struct policy_set *set, const struct policy_set *cur,
		    char *text)
{
	int ret;

	if (set->nr == POLICY_MAX_RULES)
		return policy_reject(set->nr + 1, "more than %d rules", POLICY_MAX_RULES);
	ret = policy_parse_rule(text, &set->rule[set->nr++], 1, cur);
	if (!ret)
		policy_set_account(set, &set->rule[set->nr - 1]);
	return ret;
}

static int policy_edit_locked(const struct policy_set *cur,
			      const struct policy_edit *e)
{
	char match[POLICY_MATCH_MAX];
	const char *drop = e->drop;
	struct policy_set *set;
	unsigned int i;
	int ret = 0;

	set = policy_set_alloc();
	if (!set)
		return -ENOMEM;
	if (e->add && e->front) {
		ret = edit_add(set, cur, e->add);
		if (!ret)
			policy_rule_match(&set->rule[0], match, sizeof(match));
		drop = match;
	}
	for (i = 0; cur && i < cur->nr && !ret; i++) {
		if (i == e->skip || (drop && policy_rule_is(&cur->rule[i], drop)))
			continue;
		if (set->nr == POLICY_MAX_RULES) {
			ret = policy_reject(set->nr + 1, "more than %d rules", POLICY_MAX_RULES);
			break;
		}
		ret = policy_rule_dup(&set->rule[set->nr++], &cur->rule[i]);
		policy_set_account(set, &set->rule[set->nr - 1]);
	}
	if (!ret && e->add && !e->front)
		ret = edit_add(set, cur, e->add);
	if (ret) {
		policy_set_free(set);
		return ret;
	}
	return set_install_locked(set, cur, !set->nr);
}

/* One rule of an add or first: no newline, a comment cut as in a set. */
static char *one_rule(char *text)
{
	if (strchr(text, '\n'))
		return NULL;
	if (strchr(text, '#'))
		*strchr(text, '#') = '\0';
	return strim(text);
}

/* A parameter write (NUL-terminated, ';' already newlines). */
static int policy_param_apply_locked(char *val)
{
	struct policy_edit e = { .skip = -1 };
	const struct policy_set *cur;
	char *text = strim(val), *verb;
	unsigned int n;

	if (!policy_ready)
		return -EOPNOTSUPP;
	verb = strsep(&text, " ");
	if (!text || (strcmp(verb, "add") && strcmp(verb, "del") &&
		      strcmp(verb, "first") && strcmp(verb, "drop"))) {
		if (text)
			text[-1] = ' ';
		return policy_apply_locked(verb);
	}
	if (policy_exiting)
		return -ENODEV;
	cur = rcu_dereference_protected(policy, lockdep_is_held(&policy_lock));
	text = strim(text);
	switch (verb[1]) {
	case 'd':			/* add RULE */
	case 'i':			/* first RULE: and no other of its match */
		e.add = one_rule(text);
		if (!e.add)
			return -EINVAL;		/* one rule per add */
		e.front = verb[1] == 'i';
		break;
	case 'r':			/* drop MATCH: every rule of that match */
		if (!*text || strchr(text, '\n') || strchr(text, '\t') ||
		    strstr(text, "  "))
			return -EINVAL;	/* the keys as a read shows them */
		e.drop = text;
		break;
	default:			/* del N */
		if (kstrtouint(text, 10, &n) || !n || !cur || n > cur->nr)
			return -EINVAL;
		e.skip = n - 1;
	}
	return policy_edit_locked(cur, &e);
}

static int policy_param_set(const char *val, const struct kernel_param *kp)
{
	char *buf;
	int ret = 0;

	buf = kstrdup(val, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	strreplace(buf, ';', '\n');
	mutex_lock(&policy_lock);
	if (policy_loading)
		swap(policy_pending, buf);	/* applied by init */
	else
		ret = policy_param_apply_locked(buf);
	mutex_unlock(&policy_lock);
	kfree(buf);
	return ret;
}

static int policy_param_get(char *buf, const struct kernel_param *kp)
{
	const struct policy_set *set;
	struct seq_file m = { .buf = buf, .size = PAGE_SIZE };
	unsigned int i;
	size_t len = 0;

	mutex_lock(&policy_lock);
	set = rcu_dereference_protected(policy, lockdep_is_held(&policy_lock));
	for (i = 0; set && i < set->nr; i++) {
		policy_show_rule_text(&m, &set->rule[i]);
		seq_putc(&m, '\n');
		if (seq_has_overflowed(&m))
			break;
		len = m.count;	/* whole lines only */
	}
	mutex_unlock(&policy_lock);
	return len;
}

/* A policy= that init never saw (an earlier part failed the load). */
static void policy_param_free(void *arg)
{
	kfree(policy_pending);
	policy_pending = NULL;
}

static const struct kernel_param_ops policy_param_ops = {
	.set = policy_param_set,
	.get = policy_param_get,
	.free = policy_param_free,
};
module_param_cb(MMT_PARAM_POLICY, &policy_param_ops, NULL, 0600);
mmtune_param_desc(MMT_PARAM_POLICY,
		  "per-process fault-around rules (';' or newline between rules), or 'clear', 'add RULE', 'del N', 'first RULE', 'drop MATCH'");

/* sysfs policy/ (sysfs.c): @what is one of MMT_ABI_POLICY's names. */
/*
 * Rule @r's value of sysfs policy/@what (counts @c) at @buf + @at: what
 * debugfs policy shows on its line.  An auto field of a rule that is not
 * order=auto, and a useful share not judged yet, read "-".
 */
static int sysfs_rule_value(char *buf, int at, const char *what,
			    const struct policy_rule *r,
			    const struct policy_ctr *c)
{
	const struct mmtune_auto *a = &r->au;

	if (!strcmp(what, "hits"))
		return sysfs_emit_at(buf, at, "%llu", c->hits);
	if (!strcmp(what, "pages"))
		return sysfs_emit_at(buf, at, "%llu", c->pages);
	if (!strcmp(what, "prefaulted"))
		return sysfs_emit_at(buf, at, "%llu", c->prefaulted);
	if (!strcmp(what, "untouched"))
		return sysfs_emit_at(buf, at, "%llu", c->untouched);
	if (!r->is_auto || (!strcmp(what, "useful") && a->useful < 0))
		return sysfs_emit_at(buf, at, "-");
	if (!strcmp(what, "raised"))
		return sysfs_emit_at(buf, at, "%llu", a->raised);
	if (!strcmp(what, "lowered"))
		return sysfs_emit_at(buf, at, "%llu", a->lowered);
	if (!strcmp(what, "learned"))
		return sysfs_emit_at(buf, at, "%llu", c->auto_p);
	if (!strcmp(what, "untrusted"))
		return sysfs_emit_at(buf, at, "%llu", c->untrusted);
	/* useful: a percentage of one decimal, as debugfs's without '%' */
	return sysfs_emit_at(buf, at, "%d.%d", a->useful / 10, a->useful % 10);
}

int mmtune_policy_sysfs(const char *what, char *buf)
{
	bool pages = mmtune_hook_state(MMT_HOOK_SET_PTE) == MMT_HOOK_ON;
	const struct policy_set *set;
	struct policy_ctr c = { };
	unsigned int i;
	int len = 0;

	mutex_lock(&policy_lock);
	set = rcu_dereference_protected(policy, lockdep_is_held(&policy_lock));
	if (!strcmp(what, "rules")) {
		len = sysfs_emit(buf, "%u\n", set ? set->nr : 0);
	} else if (!strcmp(what, "default_hits") ||
		   !strcmp(what, "default_pages")) {
		if (set)
			ctr_sum(set, set->nr, &c);
		if (what[8] == 'p' && !pages)
			len = sysfs_emit(buf, "unavailable\n");
		else
			len = sysfs_emit(buf, "%llu\n", what[8] == 'h' ? c.hits : c.pages);
	} else if (!strcmp(what, "orders")) {
		/* the order each rule gives now: an auto rule's moves */
		for (i = 0; set && i < set->nr; i++)
			len += sysfs_emit_at(buf, len, "%s%u", i ? " " : "",
					     rule_order(&set->rule[i]));
		len += sysfs_emit_at(buf, len, "\n");
	} else if (!strcmp(what, "pages") && !pages) {
		len = sysfs_emit(buf, "unavailable\n");
	} else {
		/* one value per rule, in rule order, as debugfs policy's */
		for (i = 0; set && i < set->nr; i++) {
			ctr_sum(set, i, &c);
			len += sysfs_emit_at(buf, len, "%s", i ? " " : "");
			len += sysfs_rule_value(buf, len, what, &set->rule[i], &c);
		}
		len += sysfs_emit_at(buf, len, "\n");
	}
	mutex_unlock(&policy_lock);
	return len;
}

/* ---- the feature ---- */

static int policy_init_feature(struct dentry *dir)
{
	BUILD_BUG_ON(POLICY_MAX_RULES >= SLOT_TAG);
	/* the match cache's mask: a bit a rule */
	BUILD_BUG_ON(POLICY_MAX_RULES > 32);
	BUILD_BUG_ON(TASK_COMM_LEN != 2 * sizeof(u64));

	if (!mmtune_fa_available()) {
		strscpy(policy_reason, "off: no fault-around knob (see fault_around)",
			sizeof(policy_reason));
		return 0;
	}
	if (mmtune_hook_state(MMT_HOOK_FAULT_AROUND) == MMT_HOOK_UNAVAILABLE) {
		strscpy(policy_reason,
			"off: no filemap_map_pages hook (see hook_filemap_map_pages)",
			sizeof(policy_reason));
		return 0;
	}
	policy_ready = true;
	strscpy(policy_reason, "on", sizeof(policy_reason));
	debugfs_create_file("policy", 0600, dir, NULL, &policy_fops);
	return 0;
}

/* policy= given at load; the lock is held. */
static int policy_apply_pending_locked(void)
{
	int ret;

	policy_loading = false;
	if (!policy_pending)
		return 0;
	ret = policy_param_apply_locked(policy_pending);
	if (ret)
		pr_err("cannot apply policy= at load (%d)\n", ret);
	kfree(policy_pending);
	policy_pending = NULL;
	return ret;
}

static int policy_init(struct dentry *dir)
{
	int ret = mmtune_auto_init();

	if (ret)
		return ret;
	ret = policy_init_feature(dir);
	mutex_lock(&policy_lock);
	if (!ret)
		ret = policy_apply_pending_locked();
	if (ret) {
		policy_exiting = true;
		stop_locked();
	}
	mutex_unlock(&policy_lock);
	if (ret) {
		cancel_delayed_work_sync(&poll_work);
		mmtune_auto_exit();
	}
	return ret;
}

static void policy_exit(void)
{
	mutex_lock(&policy_lock);
	policy_exiting = true;
	mutex_unlock(&policy_lock);
	cancel_delayed_work_sync(&poll_work);

	mutex_lock(&policy_lock);
	stop_locked();
	mutex_unlock(&policy_lock);
	mmtune_auto_exit();
}

static void policy_info(struct seq_file *m)
{
	struct policy_set *set;
	unsigned int base, live;

	seq_printf(m, "policy: %s\n", policy_reason);
	if (!policy_ready)
		return;
	mutex_lock(&policy_lock);
	set = rcu_dereference_protected(policy, lockdep_is_held(&policy_lock));
	seq_printf(m, "policy_rules: %u\n", set ? set->nr : 0);
	seq_printf(m, "policy_max_rules: %u\n", POLICY_MAX_RULES);
	if (set && !mmtune_fa_get_order(&base) &&
	    !mmtune_fa_kernel_order(&live)) {
		seq_printf(m, "policy_default_order: %u\n", base);
		seq_printf(m, "policy_kernel_order: %u\n", live);
	}
	seq_printf(m, "policy_cgroup_follow: %s\n",
		   policy_cgroup_watching() ? "tracepoints" :
		   set && set->nr_cgroup ? "poll" : "off");
	seq_printf(m, "policy_auto_changes: %llu\n", auto_changes);
	seq_printf(m, "policy_auto_lost: %llu\n", mmtune_auto_lost());
	mmtune_live_info(m);
	mutex_unlock(&policy_lock);
}

const struct mmtune_feature mmtune_policy_feature = {
	.name	= "policy",
	.init	= policy_init,
	.exit	= policy_exit,
	.info	= policy_info,
};
