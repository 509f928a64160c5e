// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: the policy's rules core, on the fault path: which rule a task
 * and a mapping fall under (with a per-CPU cache of the answers), the
 * window that rule's order gives, and the per-rule counters, those of
 * the usefulness measurement's pages too (what usefulness.c and live.c
 * hand to a rule).  policy.c installs the sets (policy_active) and holds
 * the hook whose callbacks these are; policy.c's header says how the
 * narrowing works and why it never widens a window.
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
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "mmtune.h"
#include "compat/attributes.h"
#include "hooks.h"
#include "auto.h"
#include "bpf.h"
#include "policy.h"
#include "rules.h"

/* The rule set in force: policy.c's install and stop write it */
struct policy_set __rcu *policy_active;

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

/* A set's slots (policy.c's install) */
struct policy_slot *policy_slots_alloc(void)
{
	BUILD_BUG_ON(POLICY_MAX_RULES >= SLOT_TAG);
	/* the match cache's mask: a bit a rule */
	BUILD_BUG_ON(POLICY_MAX_RULES > 32);
	BUILD_BUG_ON(TASK_COMM_LEN != 2 * sizeof(u64));
	BUILD_BUG_ON(sizeof_field(struct policy_match_ent, comm) !=
		     sizeof_field(struct policy_rule, comm));
	return kvcalloc(1 << SLOT_BITS, sizeof(struct policy_slot), GFP_KERNEL);
}

/* ---- the fault path ---- */

static __always_inline struct comm_key comm_of(const struct task_struct *t)
{
	struct comm_key k;

	BUILD_BUG_ON(sizeof(k) != sizeof(t->comm));
	memcpy(&k, t->comm, sizeof(k));
	return k;
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
	u32 mask;

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
	e = &this_cpu_ptr(set->cache)->ent[rules_match_slot(tgid)];
	if (!rules_match_hit(e, gen, tgid, cgid, comm)) {
		mask = task_mask(set, comm, cg);
		rules_match_keep(e, gen, tgid, cgid, comm, mask,
				 mask ? __ffs(mask) : set->nr);
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
 * @vmf's fault, in page table slots (rules_narrow()).
 */
static __always_inline void narrow(const struct vm_fault *vmf,
				   unsigned int order, unsigned long *start,
				   unsigned long *end)
{
	rules_narrow(vmf->pgoff,
		     (vmf->address >> PAGE_SHIFT) & (PTRS_PER_PTE - 1), order,
		     start, end);
}

/*
 * One match per call.  Before 6.11 usefulness.c's return probe (the
 * kretprobe way) needs each filemap_map_pages call's window as the policy
 * narrows it, and its entry is a callback of its own (the kprobe core's
 * ftrace ops) on the site the policy's hook is on.  ftrace calls the two
 * in the order of its list (the latest registered first), one after the
 * other on this CPU with preemption off.  While the probe measures, each
 * leaves its match in this CPU's tag and the other takes it, if it is for
 * the same task, call (@vmf, on the task's stack), address and rule set:
 * then the call's rule is matched once, and both see the same rule.  A
 * tag nobody took (the kretprobe out of instances) is replaced by the
 * next call's; one taken by mistake would be the same task's at the same
 * address under the same set: the same mapping and rule, unless the task
 * was renamed in between.
 */
enum { TAG_POLICY = 1, TAG_PROBE };

struct match_tag {
	const struct vm_fault *vmf;
	const struct task_struct *task;
	const struct policy_set *set;
	unsigned long address;
	unsigned int idx;
	unsigned int order;		/* the call's, after the program */
	unsigned int by;		/* who left it (TAG_*), 0: taken */
};

static DEFINE_PER_CPU(struct match_tag, match_tag);
static DEFINE_PER_CPU(unsigned long, match_taken);

/*
 * The order of @vmf's call under rule @idx (@set->nr: none), the window
 * asked for being [@req_start, @req_end]: the rule's, or the default,
 * then what a BPF program attached makes of it (bpf.c, which can only
 * lower it).
 */
static __always_inline unsigned int
call_order(const struct policy_set *set, unsigned int idx,
	   const struct vm_fault *vmf, unsigned long req_start,
	   unsigned long req_end)
{
	unsigned int order = idx < set->nr ?
		rule_order_vma(&set->rule[idx], vmf->vma) :
		READ_ONCE(mmtune_fa_base);

	if (mmtune_bpf_attached())
		order = mmtune_bpf_decide(vmf, idx < set->nr ? idx : -1, order,
					  req_start, req_end);
	return order;
}

/*
 * The rule index for @vmf's call and its order (*@order), the tag's if
 * the other side left it: the program, if any, decides once a call too.
 */
static __always_inline unsigned int
match_once(const struct policy_set *set, const struct vm_fault *vmf,
	   unsigned int me, unsigned long req_start, unsigned long req_end,
	   unsigned int *order)
{
	struct match_tag *t = this_cpu_ptr(&match_tag);
	unsigned int idx;

	if (t->by && t->by != me && t->vmf == vmf && t->task == current &&
	    t->address == vmf->address && t->set == set) {
		t->by = 0;
		this_cpu_inc(match_taken);
		*order = t->order;
		return t->idx;
	}
	idx = match_current(set, vmf->vma);
	*order = call_order(set, idx, vmf, req_start, req_end);
	t->vmf = vmf;
	t->task = current;
	t->set = set;
	t->address = vmf->address;
	t->idx = idx;
	t->order = *order;
	t->by = me;
	return idx;
}

/* Calls whose rule the policy's hook and the return probe matched once */
unsigned long mmtune_policy_matches_shared(void)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(*per_cpu_ptr(&match_taken, cpu));
	return n;
}

/*
 * The filemap_map_pages callback, first of the hook's users: narrows the
 * window [start_pgoff, end_pgoff] (arguments 1 and 2) to the order of the
 * first rule that matches the task, or to the default order when none
 * does.  It only ever shrinks the window.  Tells the later callbacks (the
 * trace event) the window asked for, the rule (-1: none) and the order.
 * No buffer is on its stack: no stack protector either (a fault's 5
 * instructions).  @shared: the return probe measures (match_once()).
 */
static __always_inline void fault_around(struct mmtune_hook_call *c,
					 bool shared)
{
	const struct vm_fault *vmf = (void *)mmtune_call_arg(c, 0);
	struct policy_set *set;
	unsigned int idx, order;

	/* preemption is off: an RCU-sched read-side section */
	set = rcu_dereference_sched(policy_active);
	if (!set || !vmf)
		return;
	c->req_start = mmtune_call_arg(c, 1);
	c->req_end = mmtune_call_arg(c, 2);
	if (shared) {
		idx = match_once(set, vmf, TAG_POLICY, c->req_start,
				 c->req_end, &order);
	} else {
		idx = match_current(set, vmf->vma);
		order = call_order(set, idx, vmf, c->req_start, c->req_end);
	}
	this_cpu_inc(set->ctr[idx].hits);
	slot_note(set, idx);
	c->narrowed = true;
	c->rule = idx < set->nr ? idx : -1;
	c->order = order;
	/* in place: the arguments the function will see */
	narrow(vmf, order, &c->arg[1], &c->arg[2]);
}

/*
 * Two callbacks, not a test on the fault path: policy.c swaps the hook's
 * to the second while the return probe measures (the kretprobe way).
 */
void notrace __no_stack_protector
policy_fault_around(struct mmtune_hook_call *c)
{
	fault_around(c, false);
}

void notrace __no_stack_protector
policy_fault_around_shared(struct mmtune_hook_call *c)
{
	fault_around(c, true);
}

/*
 * The window filemap_map_pages(@vmf, *@start, *@end) maps once the policy
 * has narrowed it, for usefulness.c's return probe, which may see the
 * arguments before or after the policy's hook does (preemption off): the
 * call's rule is the policy's match if it came first (match_once()).
 * The call's rule goes into the task's slot here too, as the policy's
 * hook puts it there: the probe's entry counts an order-0 call at once
 * (mmtune_policy_prefaulted() reads the slot), and ftrace calls the
 * latest registered of the two first, so the slot could still say the
 * task's previous call's rule (another file's, under another rule).
 */
void notrace mmtune_policy_window(const struct vm_fault *vmf,
				  unsigned long *start, unsigned long *end)
{
	struct policy_set *set = rcu_dereference_sched(policy_active);
	unsigned int idx, order;

	if (!set)
		return;
	idx = match_once(set, vmf, TAG_PROBE, *start, *end, &order);
	slot_note(set, idx);
	narrow(vmf, order, start, end);
}

/*
 * The rule (its index) whose order the process @t, a thread group
 * leader, gets at a fault on @vma, or -1 for none: rss.c's "rule="
 * selection, outside the fault path (a walk of the rules, no cache).
 * *@file_order: under an order=auto:file rule, the order a fault on
 * @vma's file gets now (the rule's base order until the file has an
 * entry), read here since the table lives only as long as the set;
 * -1 under any other rule or none.
 */
int mmtune_policy_vma_rule(struct task_struct *t,
			   const struct vm_area_struct *vma, int *file_order)
{
	struct comm_key comm = comm_of(t);	/* as the fault path reads it */
	struct policy_set *set;
	unsigned int idx;
	int ret = -1;

	*file_order = -1;
	rcu_read_lock();			/* the task's cgroup */
	rcu_read_lock_sched();			/* the set */
	set = rcu_dereference_sched(policy_active);
	if (set) {
		idx = match(set, t, comm, vma);
		ret = idx < set->nr ? idx : -1;
		if (ret >= 0 && set->rule[idx].files)
			*file_order = mmtune_af_order(set->rule[idx].files,
						      vma);
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
void notrace policy_mapped(struct mmtune_hook_call *c)
{
	struct policy_set *set = rcu_dereference_sched(policy_active);
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
 * rule (auto.c), an auto:file rule's per file of @vma too (auto_file.c).
 */
void notrace mmtune_policy_prefaulted(const struct vm_area_struct *vma,
				      unsigned int n)
{
	struct policy_set *set = rcu_dereference_sched(policy_active);
	int idx = set ? slot_read(set) : -1;
	struct mm_struct *mm = vma->vm_mm;
	const struct policy_rule *r;

	if (idx < 0 || (unsigned int)idx > set->nr)
		return;
	this_cpu_add(set->ctr[idx].prefaulted, n);
	if (idx == set->nr || !set->rule[idx].is_auto)
		return;
	r = &set->rule[idx];
	if (likely(auto_vouched(r, mm))) {
		mmtune_auto_mapped(mm, r->au.id, n);
		if (r->files)
			mmtune_af_mapped(r->files, vma, n);
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
 * What auto.c handed over for the auto rule @id (a live pass of live.c),
 * to that rule in @set as it is now: a write since may have moved it, or
 * dropped it.  At the poll, under policy_lock.
 */
void notrace mmtune_rules_credit(struct policy_set *set, unsigned long id,
				 u64 p, u64 u, u64 runs)
{
	unsigned int idx = auto_index(set, id);

	if (idx < set->nr) {
		this_cpu_add(set->ctr[idx].auto_p, p);
		this_cpu_add(set->ctr[idx].auto_u, u);
		this_cpu_add(set->ctr[idx].auto_runs, runs);
	}
}

/* The files of the auto rule @id of @set (an auto:file rule), or NULL */
struct mmtune_auto_files *mmtune_rules_auto_files(const struct policy_set *set,
						  unsigned long id)
{
	unsigned int idx = auto_index(set, id);

	return idx < set->nr ? set->rule[idx].files : NULL;
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
unsigned long notrace mmtune_rules_auto_of(const struct policy_set *set,
					   const struct vm_area_struct *vma)
{
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
 * (mmtune_rules_auto_of(): the process took a slot under it, whoever
 * unmaps); a
 * fixed rule keeps no record of its processes, and the unmapping task's
 * own rule would be a guess (a kworker's, the truncating process's).
 * In an exit_mmap (no users left) every auto rule hears of it, also with
 * 0: that is where the process's counts for each are handed over
 * (auto.c), whichever mappings it still has.
 */
bool notrace mmtune_policy_untouched(struct vm_area_struct *vma,
				     unsigned long n)
{
	struct policy_set *set = rcu_dereference_sched(policy_active);
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
	of = mmtune_rules_auto_of(set, vma);
	i = of ? auto_index(set, of) : set->nr;
	/* an auto:file rule's file, of a process it learns from */
	if (i < set->nr && set->rule[i].files)
		mmtune_af_untouched(set->rule[i].files, vma, n,
				    !atomic_read(&mm->mm_users));
	if (n && !owner && of) {
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
