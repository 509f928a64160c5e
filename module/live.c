// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: judging the live processes of order=auto rules.
 *
 * auto.c hands a process's counts to its rule when the pages they cover
 * are judged, and a page is judged at its unmap: a service that never
 * exits and keeps its files mapped would teach its rule nothing.  So at
 * policy.c's poll, at most once a second, this walks the file mappings of
 * the live processes under auto rules and counts their present PTEs that
 * are still old: pre-mapped pages not touched so far (usefulness.c marks
 * them old; everything else the kernel maps is young).  A pass is of one
 * process and one auto rule: it counts the mappings whose pages are that
 * rule's (rules.c says which), and auto.c turns it, once finished, into
 * counts for the rule (mmtune_auto_live_pass()).
 *
 * What it costs, and its bounds:
 *  - a poll reads at most LIVE_SLOTS PTE slots (4 GiB of mappings with
 *    4 KiB pages), the passes whose last one is oldest first; a pass
 *    that does not fit goes on at the next poll where it stopped.  Each
 *    file mapping a pass looks at counts as one slot more: a pass per
 *    auto rule looks at every mapping of the process to find its rule's,
 *    and 32 rules of a process with 10,000 mappings would otherwise
 *    walk the rules 320,000 times a second, unbounded;
 *  - the reads are those of the unmap's count: a few instructions a slot,
 *    eight empty or young slots in one test; `info` shows the slots and
 *    the longest poll;
 *  - the mmap lock is only tried, never waited for: a process whose lock
 *    is taken is walked at a later poll (counted: policy_live_busy);
 *  - up to LIVE_CHUNK page tables under rcu_read_lock() (a table
 *    khugepaged retracts or an empty one the kernel reclaims is freed
 *    after a grace period); every LIVE_HOLD mappings or page tables the
 *    mmap lock is let go, cond_resched(), and tried again (live_walk()).
 *
 *  - the processes are found by pid, at most LIVE_SCAN pids a poll from
 *    where the last one stopped, LIVE_SCAN_CHUNK under one rcu_read_lock()
 *    with a cond_resched() between (live_pick() says why by number);
 *    `info` shows the pids looked at and the most under one RCU section.
 *
 * What it does not see: a process whose main thread has exited while
 * others run (it is found by its thread group leader's mm), more than
 * LIVE_PICK passes (processes and auto rules) in one poll (the rest wait
 * for later polls, the longest-waiting first), and, on a machine of more
 * than LIVE_SCAN pids, the processes past them until a later poll's scan
 * comes round.
 */
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>

#include "mmtune.h"
#include "pgwalk.h"
#include "auto.h"
#include "auto_file.h"
#include "live.h"
#include "rules.h"

#ifndef MMT_LIVE_SLOTS		/* KCFLAGS=-DMMT_LIVE_SLOTS=... to measure */
#define LIVE_SLOTS	(1024UL * 1024)
#else
#define LIVE_SLOTS	MMT_LIVE_SLOTS
#endif
#define LIVE_PICK	32	/* passes a poll considers */
#define LIVE_SCAN	32768	/* pids a poll looks at for them */
#define LIVE_SCAN_CHUNK	256	/* pids under one rcu_read_lock() */
#define LIVE_CHUNK	64	/* page tables under one rcu_read_lock() */
#define LIVE_HOLD	128	/* steps under one hold of the mmap lock */
#define LIVE_PERIOD	HZ	/* a walk at most this often */

static unsigned long live_last;		/* jiffies of the last poll's walk */
static u64 live_passes, live_slots, live_busy, live_max_ns;
static int live_cursor = 1;		/* the pid the next scan starts at */
static u64 live_scanned;		/* pids looked at, since load */
static unsigned int live_scan_max;	/* the most under one RCU section */

struct live_pick {
	struct task_struct *task;
	unsigned long id;	/* the auto rule's */
	unsigned long age;
};

/*
 * Into @pk, of @n so far, the pass of @t for @id, if it waited longer:
 * with a reference on @t (the scan leaves RCU between chunks), and the
 * reference of the pass it replaces put.
 */
static unsigned int live_pick_one(struct live_pick *pk, unsigned int n,
				  struct task_struct *t, unsigned long id,
				  unsigned long age)
{
	unsigned int i, young;

	if (n < LIVE_PICK) {
		get_task_struct(t);
		pk[n] = (struct live_pick){ .task = t, .id = id, .age = age };
		return n + 1;
	}
	for (young = 0, i = 1; i < n; i++)
		if (pk[i].age < pk[young].age)
			young = i;
	if (pk[young].age < age) {
		get_task_struct(t);
		put_task_struct(pk[young].task);
		pk[young] = (struct live_pick){ .task = t, .id = id, .age = age };
	}
	return n;
}

/*
 * Into @pk (LIVE_PICK of them), with a reference each, the thread group
 * leaders of live processes under the auto rules @ids (@nr of them)
 * whose last pass is oldest, with the rule, among the processes of at
 * most LIVE_SCAN pids from where the last poll's scan stopped.
 *
 * By pid number, not along the task list: the scan lets go of RCU every
 * LIVE_SCAN_CHUNK pids and reschedules, and a place in the task list
 * cannot be kept outside RCU without a reference, nor resumed from a task
 * that exited meanwhile (its list pointers then lead anywhere once a grace
 * period passed; the kernel's hung task scan gives up there).  A number
 * needs neither: find_ge_pid() finds the next pid in use from it under
 * RCU, as /proc's readdir goes on from a number, and a pid freed between
 * two chunks is simply not found.  Every thread has a pid: a pid whose
 * task is no thread group's leader (pid_task(PIDTYPE_TGID) is NULL) is
 * passed over, a step of the budget.  Pids made meanwhile behind the
 * scan's place wait for the next round, as processes forked behind
 * for_each_process() do.
 */
static unsigned int live_pick(struct live_pick *pk, const unsigned long *ids,
			      unsigned int nr)
{
	unsigned int n = 0, k, chunk, seen = 0;
	int from = live_cursor, next = from;
	unsigned long age, nx;
	bool wrapped = false, round = false;
	struct task_struct *t;
	struct mm_struct *mm;
	struct pid *pid;
	u64 old;

	while (!round && seen < LIVE_SCAN) {
		rcu_read_lock();
		for (chunk = 0; chunk < LIVE_SCAN_CHUNK && seen < LIVE_SCAN;
		     chunk++, seen++) {
			pid = find_ge_pid(next, &init_pid_ns);
			if (!pid && !wrapped) {
				wrapped = true;
				next = 1;
				pid = find_ge_pid(next, &init_pid_ns);
			}
			/* once round to where it began: every pid seen */
			if (!pid || (wrapped && pid_nr(pid) >= from)) {
				round = true;
				next = from;
				break;
			}
			next = pid_nr(pid) + 1;
			t = pid_task(pid, PIDTYPE_TGID);
			mm = t ? READ_ONCE(t->mm) : NULL;
			if (!mm || (t->flags & PF_KTHREAD))
				continue;
			for (k = 0; k < nr; k++)
				if (mmtune_auto_live(mm, ids[k], &nx, &old, &age))
					n = live_pick_one(pk, n, t, ids[k], age);
		}
		rcu_read_unlock();
		if (chunk > live_scan_max)
			live_scan_max = chunk;
		cond_resched();
	}
	live_cursor = next;
	live_scanned += seen;
	return n;
}

/*
 * Old PTEs of @mm's judged mappings of the auto rule @id from *@next on,
 * within *@budget slots.  True when the walk reached the last mapping;
 * else *@next is where it stopped.  Called with the mmap lock held
 * (tried); returns with it released.  Every LIVE_HOLD steps (a mapping
 * looked at, or a page table walked) it lets the lock go, reschedules and
 * tries it again, going on from the address it reached (find_vma()); a
 * lock taken by then ends the pass here for this poll (policy_live_busy).
 * @af: an auto:file rule's files, which count the old pages per file
 * too; else NULL.
 */
static bool live_walk(const struct policy_set *set, struct mm_struct *mm,
		      unsigned long id, unsigned long *next, u64 *old,
		      unsigned long *budget, struct mmtune_auto_files *af)
{
	u64 before;

	unsigned long addr = *next, stop, end;
	struct vm_area_struct *vma = NULL;
	unsigned int i, steps = 0;

	while (*budget) {
		if (steps >= LIVE_HOLD) {
			steps = 0;
			mmap_read_unlock(mm);
			cond_resched();
			if (!mmap_read_trylock(mm)) {
				live_busy++;
				*next = addr;
				return false;
			}
		}
		vma = find_vma(mm, addr);
		if (!vma)
			break;
		addr = max(addr, vma->vm_start);
		steps++;
		if (!mmtune_vma_judged(vma)) {
			addr = vma->vm_end;
			continue;
		}
		/* whose mapping: a walk of the rules, paid as a slot */
		(*budget)--;
		if (mmtune_rules_auto_of(set, vma) != id) {
			addr = vma->vm_end;
			continue;
		}
		before = *old;
		rcu_read_lock();
		for (i = 0; i < LIVE_CHUNK && addr < vma->vm_end && *budget;
		     i++, addr = stop) {
			end = pmd_addr_end(addr, vma->vm_end);
			*old += mmtune_count_old_ptes(mm, addr, end, budget,
						      &stop, NULL);
		}
		rcu_read_unlock();
		steps += i;
		if (af)
			mmtune_af_pass_old(af, mm, vma, *old - before);
	}
	mmap_read_unlock(mm);
	*next = addr;
	return !vma;
}

/* The pass of @pk, or its part that @budget allows. */
static void live_one(struct policy_set *set, const struct live_pick *pk,
		     unsigned long *budget)
{
	struct mm_struct *mm = get_task_mm(pk->task);
	unsigned long next, age, id = pk->id, before = *budget;
	struct mmtune_auto_files *af = mmtune_rules_auto_files(set, id);
	u64 old, p, u, runs;
	bool done;

	if (!mm)
		return;
	if (mmtune_auto_live(mm, id, &next, &old, &age)) {
		if (!mmap_read_trylock(mm)) {
			live_busy++;
		} else {
			if (af && !next)
				mmtune_af_pass_start(af, mm);
			/* unlocks */
			done = live_walk(set, mm, id, &next, &old, budget, af);
			if (done && af)
				mmtune_af_pass_end(af, mm);
			live_slots += before - *budget;
			if (mmtune_auto_live_pass(mm, id, next, old, done,
						  &p, &u, &runs)) {
				live_passes++;
				mmtune_rules_credit(set, id, p, u, runs);
			}
		}
	}
	/*
	 * This may be the process's last reference (it exited during the
	 * walk): then its whole exit_mmap() would run here, under the
	 * caller's policy_lock, stalling every rule write and poll behind
	 * the teardown of an address space of any size.  mmput_async()
	 * hands that last put to a kernel worker (the kernel's own code, so
	 * nothing of ours runs after rmmod); dropping the mm after the
	 * caller unlocks would need the poll to carry up to LIVE_PICK
	 * references out of policy.c, for the same effect.
	 */
	mmput_async(mm);
}

/*
 * policy.c's poll, with the auto rules @ids (@nr of them) of the set in
 * force @set and the usefulness measurement on: a walk at most every
 * LIVE_PERIOD, each finished pass's counts to its rule of @set.
 * Serialised by the caller (policy_lock): @set stays.
 */
void mmtune_live_poll(struct policy_set *set, const unsigned long *ids,
		      unsigned int nr)
{
	struct live_pick pk[LIVE_PICK];
	unsigned long budget = LIVE_SLOTS;
	unsigned int n, i;
	u64 t0, ns;

	if (live_last && time_before(jiffies, live_last + LIVE_PERIOD))
		return;
	live_last = jiffies ? jiffies : 1;
	t0 = local_clock();
	n = live_pick(pk, ids, nr);
	for (i = 0; i < n; i++) {
		if (budget)
			live_one(set, &pk[i], &budget);
		put_task_struct(pk[i].task);
	}
	ns = local_clock() - t0;
	if (ns > live_max_ns)
		live_max_ns = ns;
}

/* The poll's counts, since load (policy_lock held) */
u64 mmtune_live_count(enum mmtune_live_count what)
{
	switch (what) {
	case MMT_LIVE_PASSES:
		return live_passes;
	case MMT_LIVE_SLOTS:
		return live_slots;
	case MMT_LIVE_BUSY:
		return live_busy;
	case MMT_LIVE_POLL_MAX_US:
		return div_u64(live_max_ns, 1000);
	case MMT_LIVE_SCANNED:
		return live_scanned;
	default:
		return live_scan_max;
	}
}
