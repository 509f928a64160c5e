// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: the adaptive order of a policy rule with order=auto.
 *
 * What it learns from.  usefulness.c counts, per fault-around call, the
 * pages pre-mapped ahead of a process, and at each unmap the pre-mapped
 * pages still untouched.  The two counts only make a ratio over the same
 * pages: a process that pre-mapped 10,000 pages and has unmapped none yet
 * has not said how many it will touch.  So the counts are kept per process
 * (its mm) and rule, and handed to the rule when the pages they cover have
 * all been judged: at exit_mmap, when the mm has no users left and every
 * page it still maps is judged, and, while it lives, at each pass of
 * live.c's walk, which counts the pre-mapped pages it still maps that are
 * untouched so far ("old").  A pass hands over the pages pre-mapped since
 * the last one, and as untouched those unmapped untouched since, plus the
 * change in old: old(now) - old(last pass).  The sum over the passes is
 * exact at each pass (every page pre-mapped so far is either unmapped
 * untouched, still old, or touched); a page pre-mapped just before a pass
 * and touched just after counts untouched until the next pass takes it back
 * (the change is negative then).  A service that never ends is judged every
 * second or so; the exit hands over the rest, less the last pass's old
 * pages, which its zap counts again.
 *
 * The per-process counts live in a table hashed by mm and rule, a slot
 * per process and auto rule: a process whose mappings fall under two
 * auto rules (a comm= rule's, a file= rule's) teaches each its own pages.
 * A process that takes over a slot still in use by a live process drops
 * that process's counts (counted: mmtune_auto_lost()).  Only the
 * processes a rule learns from take slots (rules.c's auto_vouched()):
 * another user's processes, however many, evict none.
 *
 * The judgement, at policy.c's poll (every second), once the rule's ended
 * processes pre-mapped AUTO_MIN_PAGES since the last one: useful =
 * (pre-mapped - untouched) / pre-mapped.  At or above AUTO_RAISE the
 * order goes up one, below AUTO_LOWER down one, in between it stays: the
 * gap is the hysteresis (a stride-2 reader, 43-50 % useful at every
 * order, holds still).  At order 0 nothing is pre-mapped, so nothing
 * could ever say "raise": once AUTO_PROBE of the rule's processes have
 * ended there without data, the rule tries order 1 again, and falls back
 * if that is judged useless.  Counted in processes, not in time: a
 * program run once a minute would otherwise start every run at the
 * probe's order (make bench-real's sparse reader did, 1.10 times order
 * 0's instructions), and a rule whose processes do not end has nothing
 * to judge a probe by.  A live process counts as one ended process every
 * AUTO_LIVE_RUN of its passes: a service at order 0 probes every 100 s
 * or so.
 */
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/cache.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uidgid.h>

#include "mmtune.h"
#include "auto.h"
#include "policy.h"
#include "rules.h"
#include "mmtune_trace_order.h"

#define AUTO_LIVE_RUN	10	/* a live process's passes that count as a run */

/* ---- per process (preemption off: the hooks' callbacks) ---- */

/*
 * A slot per process and auto rule, hashed by both.  The fault path's count
 * of pages pre-mapped goes to a per-CPU counter of the slot while the slot
 * is the process's (read without the lock): threads of one process faulting
 * on every CPU write no shared line and take no lock.  The slot's lock is
 * taken where a count is handed over (at exit, at a live pass) or a slot
 * changes hands, which first folds the CPUs' counters into p and p_all
 * (slot_fold()).  A fault that read the slot as its process's just as
 * another process took it over (a hash collision, at that instant) adds its
 * pages to the new owner's: as rare as it is small.
 *
 * A fold reads the counters of the CPUs whose bit the slot's CPU mask has
 * (pending_cpus), not every possible CPU's: a slot changes hands on the
 * fault path (a new process's first fault under its rule), and 4096
 * possible CPUs (a distribution's NR_CPUS, a VM's hotplug slots) would be
 * as many atomic exchanges of remote lines there, under a raw spinlock.
 * A CPU's bit is set when its counter goes from 0 (the fault path's one
 * write of a shared line, once per CPU between two folds), so a fold costs
 * a scan of the mask's words and an exchange per CPU that added since the
 * last fold: each of those paid for it with a fault.  Nothing is lost
 * (slot_fold() says why).
 */
#define AUTO_SLOT_BITS	10

struct auto_slot {
	raw_spinlock_t lock;
	const struct mm_struct *mm;	/* compared, never dereferenced */
	unsigned long id;		/* its rule's (struct mmtune_auto) */
	bool ended;			/* handed over at the mm's exit */
	const struct task_struct *exiter; /* in whose exit_mmap: compared */
	unsigned long stack;		/* and of which mm: see mm_ended() */
	const void *pgd;
	u64 p, u;			/* since the last hand-over */
	u64 p_all, u_all;		/* since the slot was taken */
	u64 old;			/* old pages at the last pass */
	u64 pass_old;			/* the pass under way: so far */
	unsigned long pass_next;	/* where it goes on; 0: none */
	unsigned long passes;		/* completed */
	unsigned long pass_at;		/* jiffies: the last one's end */
} ____cacheline_aligned_in_smp;

static struct auto_slot slots[1 << AUTO_SLOT_BITS];
/* pages pre-mapped per CPU and slot, not folded yet (alloc_percpu: see rules_pure.h's cache) */
static atomic64_t __percpu *pending;
/* per slot, BITS_TO_LONGS(nr_cpu_ids) words: the CPUs it has pending on */
static unsigned long *pending_cpus;
static unsigned int mask_words;
static atomic64_t lost;

static struct auto_slot *slot_of(const struct mm_struct *mm, unsigned long id)
{
	return &slots[hash_long((unsigned long)mm ^ id, AUTO_SLOT_BITS)];
}

static __always_inline unsigned long *slot_cpus(const struct auto_slot *s)
{
	return pending_cpus + (s - slots) * mask_words;
}

/*
 * @n pages into this CPU's counter of @s; preemption off.  The counter's
 * first pages since a fold set the CPU's bit, after the add: a fold
 * clears a bit before it exchanges the counter, so either it finds the
 * add, or the add returns 0 and sets the bit again for the next fold (a
 * fully ordered fetch-add and test-and-clear: one of the two sees the
 * other's write).
 */
static __always_inline void pending_add(struct auto_slot *s, unsigned int n)
{
	unsigned long *cpus = slot_cpus(s);
	unsigned int cpu = smp_processor_id();

	if (!atomic64_fetch_add(n, this_cpu_ptr(pending) + (s - slots)) &&
	    !test_bit(cpu, cpus))
		set_bit(cpu, cpus);
}

/*
 * Under @s's lock: the CPUs' pending pages of @s into its counts, those
 * of the CPUs whose bit is set (see above).  A CPU whose add is under
 * way meanwhile has its pages taken now, or at the next fold.
 */
static void slot_fold(struct auto_slot *s)
{
	unsigned long *cpus = slot_cpus(s);
	unsigned int i = s - slots;
	u64 n = 0;
	int cpu;

	for_each_set_bit(cpu, cpus, nr_cpu_ids)
		if (test_and_clear_bit(cpu, cpus))
			n += atomic64_xchg(per_cpu_ptr(pending, cpu) + i, 0);
	s->p += n;
	s->p_all += n;
}

/* Under @s's lock: @s is @mm's (or nobody's), for the rule @id, afresh. */
static void slot_take(struct auto_slot *s, const struct mm_struct *mm,
		      unsigned long id)
{
	WRITE_ONCE(s->mm, mm);
	WRITE_ONCE(s->id, id);
	WRITE_ONCE(s->ended, false);
	s->exiter = NULL;
	s->stack = 0;
	s->pgd = NULL;
	s->p = 0;
	s->u = 0;
	s->p_all = 0;
	s->u_all = 0;
	s->old = 0;
	s->pass_old = 0;
	s->pass_next = 0;
	s->passes = 0;
	s->pass_at = jiffies;
}

/*
 * @n pages pre-mapped in @mm (the faulting VMA's: also a fault of
 * get_user_pages in another process) under the auto rule @id.
 */
void notrace mmtune_auto_mapped(const struct mm_struct *mm, unsigned long id,
				unsigned int n)
{
	struct auto_slot *s = slot_of(mm, id);

	if (likely(READ_ONCE(s->mm) == mm && READ_ONCE(s->id) == id &&
		   !READ_ONCE(s->ended))) {
		if (n)
			pending_add(s, n);
		return;
	}
	raw_spin_lock(&s->lock);
	if (s->mm != mm || s->id != id || s->ended) {
		slot_fold(s);
		if (s->mm && !s->ended && s->p)
			atomic64_add(s->p, &lost);
		slot_take(s, mm, id);
	}
	s->p += n;
	s->p_all += n;
	raw_spin_unlock(&s->lock);
}

/*
 * @mm, a process the auto rule @id no longer learns from (rules.c's
 * auto_vouched(): it changed its uids since it took its slot), lets its
 * slot for @id go, if it has one: what it counted is dropped, so none of
 * it is handed over and the live walk passes it by.  The pages it had
 * pre-mapped so far, or 0.  Read without the lock first, as the fault
 * path's own lookup: most calls find another process's slot.
 */
u64 notrace mmtune_auto_drop(const struct mm_struct *mm, unsigned long id)
{
	struct auto_slot *s = slot_of(mm, id);
	u64 n = 0;

	if (READ_ONCE(s->mm) != mm)
		return 0;
	raw_spin_lock(&s->lock);
	if (s->mm == mm && s->id == id && !s->ended) {
		slot_fold(s);
		n = s->p;
		slot_take(s, NULL, 0);
	}
	raw_spin_unlock(&s->lock);
	return n;
}

/*
 * Whether a zap of @mm, no users left, is of the exit_mmap that @s was
 * handed over in.  The mm's and the exiting task's addresses alone do not
 * say: a task that execs twice frees its first mm and may get the same
 * address for its third, whose exit would be charged to the first one's
 * rule.  An mm's stack top (randomised at each exec) and its page table
 * root (allocated with it) tell two mm_structs at one address apart.
 */
static __always_inline bool mm_ended(const struct auto_slot *s,
				     const struct mm_struct *mm)
{
	return s->exiter == current && s->stack == mm->start_stack &&
	       s->pgd == mm->pgd;
}

/*
 * Whether @mm has a slot for the auto rule @id: it pre-mapped pages under
 * that rule.  A slot whose mm ended counts only in that mm's exit_mmap
 * (no users left): a live process at the same address is another one.
 * Read without the lock: a hint, as the fault path's read is.
 */
bool notrace mmtune_auto_owns(const struct mm_struct *mm, unsigned long id)
{
	const struct auto_slot *s = slot_of(mm, id);

	return READ_ONCE(s->mm) == mm && READ_ONCE(s->id) == id &&
	       (!READ_ONCE(s->ended) || !atomic_read(&mm->mm_users));
}

/*
 * @n pre-mapped pages of the auto rule @id found untouched in a zap of
 * @mm.  In exit_mmap (no users left) the mm's counts for @id so far are
 * handed over: true, with the pages in *@p and *@u and 1 in *@runs (the
 * process ended); the later zaps of the same exit_mmap (the same task runs
 * them all) hand over their untouched pages alone.  A slot whose mm ended is
 * nobody's: a new mm at the same address (mm_structs are reused at once:
 * the next fork gets the last freed one) counts nothing there until it
 * pre-maps pages of its own.  So a forked child, whose copy of its parent's
 * page tables holds the parent's old PTEs, never hands them over as the
 * ended process's.
 */
bool notrace mmtune_auto_unmapped(struct mm_struct *mm, unsigned long id,
				  unsigned long n, u64 *p, u64 *u, u64 *runs)
{
	struct auto_slot *s = slot_of(mm, id);
	bool handed = false;

	/* an exit_mmap asks of every auto rule: most have no slot of @mm */
	if (READ_ONCE(s->mm) != mm)
		return false;
	raw_spin_lock(&s->lock);
	if (s->mm != mm || s->id != id) {
		/* not a process of the rule, or it lost its slot */
	} else if (!s->ended) {
		s->u += n;
		s->u_all += n;
		if (!atomic_read(&mm->mm_users)) {
			slot_fold(s);
			*p = s->p;
			*u = s->u - s->old;	/* below 0 wraps: see the top */
			*runs = 1;
			s->p = 0;
			s->u = 0;
			WRITE_ONCE(s->ended, true);
			s->exiter = current;
			s->stack = mm->start_stack;
			s->pgd = mm->pgd;
			handed = true;
		}
	} else if (!atomic_read(&mm->mm_users) && mm_ended(s, mm)) {
		*p = 0;
		*u = n;
		*runs = 0;
		handed = true;
	}
	raw_spin_unlock(&s->lock);
	return handed;
}

/* ---- live processes (live.c's walk: a kworker, preemptible) ---- */

/*
 * Whether @mm is a live process of the auto rule @id: where its pass goes
 * on (*@next, 0 from the start) with the old pages it found so far, and
 * the jiffies since its last pass ended (or its slot was taken).
 */
bool mmtune_auto_live(const struct mm_struct *mm, unsigned long id,
		      unsigned long *next, u64 *old, unsigned long *age)
{
	struct auto_slot *s = slot_of(mm, id);
	bool live;

	if (READ_ONCE(s->mm) != mm)	/* most processes: not under one */
		return false;
	raw_spin_lock(&s->lock);
	live = s->mm == mm && s->id == id && !s->ended;
	if (live) {
		*next = s->pass_next;
		*old = s->pass_old;
		*age = jiffies - s->pass_at;
	}
	raw_spin_unlock(&s->lock);
	return live;
}

/*
 * live.c's pass of @mm for the auto rule @id stopped at @next, having found
 * @old old pages so far, or is @done.  A pass that is done hands over (true;
 * as mmtune_auto_unmapped): the pages pre-mapped since the last, and as
 * untouched those unmapped untouched since plus the change in old pages
 * (below 0 it wraps: see the top).  Old pages beyond those pre-mapped and
 * not unmapped are not the process's own (a forked child's copies of its
 * parent's PTEs, pages mapped before the measurement began): they are left
 * out.
 */
bool mmtune_auto_live_pass(const struct mm_struct *mm, unsigned long id,
			   unsigned long next, u64 old, bool done, u64 *p,
			   u64 *u, u64 *runs)
{
	struct auto_slot *s = slot_of(mm, id);
	bool handed = false;

	raw_spin_lock(&s->lock);
	if (s->mm != mm || s->id != id || s->ended) {
		/* it ended, or lost its slot, meanwhile */
	} else if (!done) {
		s->pass_next = next;
		s->pass_old = old;
	} else {
		slot_fold(s);
		old = min(old, s->p_all - min(s->u_all, s->p_all));
		*p = s->p;
		*u = s->u + old - s->old;
		*runs = !(++s->passes % AUTO_LIVE_RUN);
		s->p = 0;
		s->u = 0;
		s->old = old;
		s->pass_next = 0;
		s->pass_old = 0;
		s->pass_at = jiffies;
		handed = true;
	}
	raw_spin_unlock(&s->lock);
	return handed;
}

int mmtune_auto_init(void)
{
	unsigned int i;

	pending = (atomic64_t __percpu *)__alloc_percpu(sizeof(*pending) * ARRAY_SIZE(slots),
							 __alignof__(*pending));
	if (!pending)
		return -ENOMEM;
	mask_words = BITS_TO_LONGS(nr_cpu_ids);
	pending_cpus = kvcalloc(ARRAY_SIZE(slots) * mask_words,
				sizeof(*pending_cpus), GFP_KERNEL);
	if (!pending_cpus) {
		free_percpu(pending);
		pending = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < ARRAY_SIZE(slots); i++)
		raw_spin_lock_init(&slots[i].lock);
	return 0;
}

/* Once nothing calls in any more: the hooks removed, the walk stopped. */
void mmtune_auto_exit(void)
{
	free_percpu(pending);
	pending = NULL;
	kvfree(pending_cpus);
	pending_cpus = NULL;
}

/*
 * Empty every slot: when a first rule set is installed, and when the
 * usefulness measurement starts, so no count of a process that ended
 * while nobody watched is mixed with a later one at the same address.
 */
void mmtune_auto_forget(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(slots); i++) {
		struct auto_slot *s = &slots[i];

		raw_spin_lock(&s->lock);
		slot_fold(s);
		slot_take(s, NULL, 0);
		raw_spin_unlock(&s->lock);
	}
}

u64 mmtune_auto_lost(void)
{
	return atomic64_read(&lost);
}

/* ---- a rule set's auto rules (policy_lock) ---- */

static unsigned long auto_gen;		/* the last auto rule id */
static u64 auto_changes;		/* every auto rule's, since load */

/* The auto rule of @cur with @r's match, or NULL. */
static const struct policy_rule *auto_before(const struct policy_set *cur,
					     const struct policy_rule *r)
{
	const struct policy_rule *c;
	unsigned int i;

	for (i = 0; cur && i < cur->nr; i++) {
		c = &cur->rule[i];
		if (!c->is_auto || c->auto_file != r->auto_file ||
		    c->kind != r->kind || c->inode != r->inode ||
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
int mmtune_auto_start_rules(struct policy_set *set, const struct policy_set *cur)
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
			 * carried over at the install (mmtune_auto_carry)
			 */
			r->au = prev->au;
			/* and its files' (a copy of the rule holds them already) */
			if (!r->files)
				r->files = mmtune_af_get(prev->files);
			continue;
		}
		mmtune_auto_start(&r->au, r->auto_from ? r->order :
				  min(base, mmtune_max_order()));
		r->au.id = ++auto_gen;
		/* a new file's order: the rule's start */
		if (r->auto_file && !r->files)
			r->files = mmtune_af_alloc(r->au.order);
		if (r->auto_file && !r->files)
			return -ENOMEM;
	}
	return 0;
}

/*
 * What the kept auto rules of @set learned in @old (the pages their
 * processes handed over, counted in @old's per-CPU counters), once no
 * fault counts in @old any more: added to @set's, so `learned` and the
 * judgement (whose seen_* mmtune_auto_start_rules carried) go on from there.
 */
void mmtune_auto_carry(struct policy_set *set, const struct policy_set *old)
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

/* Each auto rule's judgement (auto_judge.c), at every poll. */
void mmtune_auto_judge_rules(struct policy_set *set)
{
	struct policy_rule *r;
	struct policy_ctr c;
	unsigned int i, old;

	for (i = 0; set->nr_auto && i < set->nr; i++) {
		r = &set->rule[i];
		if (!r->is_auto)
			continue;
		if (r->files)
			auto_changes += mmtune_af_judge(r->files,
							mmtune_useful_max_order());
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

u64 mmtune_auto_changes(void)
{
	return auto_changes;
}
