// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: the orders an order=auto:file rule learns per file.
 *
 * A rule such as "comm=postgres order=auto:file" gives each file its
 * processes map an order of its own: a file read in sequence goes up, a
 * file read a page here and there goes down, under the one rule.  The
 * rule keeps a table of AF_ENTRIES files (AF_SET_BITS sets of AF_WAYS,
 * by a hash of the file), keyed by the numbers (device, inode number),
 * not by a pointer: nothing in it outlives or pins an inode.  A file not
 * in the table faults at the rule's base order (what a plain order=auto
 * rule would start at); it takes an entry at its first pre-mapped pages,
 * the least recently pre-mapped file of its set is forgotten for it
 * (counted: "forgotten=").  Two files sharing a (device, inode number)
 * over time (an inode freed and its number reused) share what was
 * learned: the same as one file rewritten.
 *
 * What a file learns from, per entry: the pages pre-mapped from it
 * (usefulness.c's count at each fault-around call, p), those found
 * untouched when unmapped (its zaps, u) and those still mapped and
 * untouched at live.c's last whole pass of a process mapping it (old).
 * The judgement (auto_judge.c's, the rule's band and hysteresis) runs at
 * policy.c's poll once a pass saw the file since the last one, on
 * pre-mapped p against untouched u + old: pages pre-mapped and not yet
 * judged by a pass would read as useful, so no judgement without one.
 * Bounds of this first version: old is the last walked process's (with
 * several processes mapping one file, an estimate: the pass of another
 * replaces it), and at a process's exit its old pages are dropped from
 * old as its zaps count them.
 *
 * Lookup.  The fault path reads an entry without a lock: a seqcount per
 * entry around its key and order, the table's raw spinlock where an entry
 * changes hands.  Counts go to per-CPU counters per entry, read at the
 * poll; an entry that changes hands is rebased there (its generation).
 * The table lives as long as a rule that holds it (a write that keeps the
 * rule keeps it: a reference per rule, freed with the last rule set that
 * held it, after that set's grace period).
 */
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/kdev_t.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/refcount.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "auto_judge.h"
#include "auto_file.h"

#define AF_LIVE_RUN	10	/* passes that count as a run: auto.c's */

struct af_entry {
	seqcount_t seq;		/* around dev, ino and order */
	dev_t dev;
	unsigned long ino;	/* 0: empty */
	unsigned int order;	/* the fault path's: READ_ONCE() */
	unsigned long last;	/* jiffies of its last pre-mapped pages */
	unsigned long gen;	/* changes hands: the poll rebases */
	/* the poll's, under policy_lock */
	unsigned long seen_gen;
	u64 base_p, base_u;	/* the counters when it changed hands */
	u64 old;		/* untouched at the last pass */
	const struct mm_struct *acc_mm;	/* whose pass counts: compared */
	u64 acc_old;		/* what it counted so far */
	bool fresh;		/* a pass since the last judgement */
	u64 passes;
	struct mmtune_auto au;
};

struct af_ctr {
	u64 p[AF_ENTRIES];	/* pre-mapped */
	u64 u[AF_ENTRIES];	/* untouched at unmap */
};

struct mmtune_auto_files {
	refcount_t ref;
	raw_spinlock_t lock;	/* taking an entry */
	unsigned int base;	/* a new file's order */
	unsigned long ended;	/* entries a process's exit unmapped */
	atomic64_t forgotten;
	struct af_ctr __percpu *ctr;
	struct af_entry e[AF_ENTRIES];
};

struct mmtune_auto_files *mmtune_af_alloc(unsigned int base)
{
	struct mmtune_auto_files *t = kzalloc(sizeof(*t), GFP_KERNEL);
	unsigned int i;

	if (!t)
		return NULL;
	t->ctr = alloc_percpu(struct af_ctr);
	if (!t->ctr) {
		kfree(t);
		return NULL;
	}
	refcount_set(&t->ref, 1);
	raw_spin_lock_init(&t->lock);
	t->base = base;
	for (i = 0; i < AF_ENTRIES; i++)
		seqcount_init(&t->e[i].seq);
	return t;
}

struct mmtune_auto_files *mmtune_af_get(struct mmtune_auto_files *t)
{
	if (t)
		refcount_inc(&t->ref);
	return t;
}

/* A rule set's free: after its grace period, no fault reads it any more */
void mmtune_af_put(struct mmtune_auto_files *t)
{
	if (!t || !refcount_dec_and_test(&t->ref))
		return;
	free_percpu(t->ctr);
	kfree(t);
}

/* @vma's file as the table keys it; false: none (anonymous) */
static __always_inline bool af_key(const struct vm_area_struct *vma,
				   dev_t *dev, unsigned long *ino)
{
	const struct inode *inode;

	if (!vma->vm_file)
		return false;
	inode = file_inode(vma->vm_file);
	*dev = inode->i_sb->s_dev;
	*ino = inode->i_ino;
	return *ino != 0;
}

static __always_inline unsigned int af_set(dev_t dev, unsigned long ino)
{
	return hash_long(ino ^ ((unsigned long)dev << 16), AF_SET_BITS) *
	       AF_WAYS;
}

/* The entry of (@dev, @ino) in @t, its order in *@order, or -1 */
static __always_inline int af_find(const struct mmtune_auto_files *t,
				   dev_t dev, unsigned long ino,
				   unsigned int *order)
{
	unsigned int i, s = af_set(dev, ino), seq;
	const struct af_entry *e;
	bool hit;

	for (i = s; i < s + AF_WAYS; i++) {
		e = &t->e[i];
		do {
			seq = raw_read_seqcount_begin(&e->seq);
			hit = READ_ONCE(e->ino) == ino && READ_ONCE(e->dev) == dev;
			*order = READ_ONCE(e->order);
		} while (read_seqcount_retry(&e->seq, seq));
		if (hit)
			return i;
	}
	return -1;
}

/* The entry of @vma's file in @t, or -1 (none, or not in the table) */
static __always_inline int af_index(const struct mmtune_auto_files *t,
				    const struct vm_area_struct *vma)
{
	unsigned long ino;
	unsigned int order;
	dev_t dev;

	if (!af_key(vma, &dev, &ino))
		return -1;
	return af_find(t, dev, ino, &order);
}

/* The order of a fault on @vma under the rule of @t: its file's */
unsigned int notrace mmtune_af_order(const struct mmtune_auto_files *t,
				     const struct vm_area_struct *vma)
{
	unsigned long ino;
	unsigned int order;
	dev_t dev;

	if (!af_key(vma, &dev, &ino) || af_find(t, dev, ino, &order) < 0)
		return t->base;
	return order;
}

/*
 * (@dev, @ino) takes the least recently pre-mapped entry of its set,
 * under @t's lock (another CPU may have taken one for it meanwhile).
 */
static int af_take(struct mmtune_auto_files *t, dev_t dev, unsigned long ino)
{
	unsigned int i, s = af_set(dev, ino), lru = s, order;
	struct af_entry *e;
	int hit;

	raw_spin_lock(&t->lock);
	hit = af_find(t, dev, ino, &order);
	if (hit >= 0)
		goto out;
	for (i = s; i < s + AF_WAYS; i++) {
		if (!t->e[i].ino) {
			lru = i;
			break;
		}
		if (time_before(READ_ONCE(t->e[i].last),
				READ_ONCE(t->e[lru].last)))
			lru = i;
	}
	e = &t->e[lru];
	if (e->ino)
		atomic64_inc(&t->forgotten);
	raw_write_seqcount_begin(&e->seq);
	WRITE_ONCE(e->dev, dev);
	WRITE_ONCE(e->ino, ino);
	WRITE_ONCE(e->order, t->base);
	raw_write_seqcount_end(&e->seq);
	WRITE_ONCE(e->last, jiffies);
	WRITE_ONCE(e->gen, e->gen + 1);
	hit = lru;
out:
	raw_spin_unlock(&t->lock);
	return hit;
}

/*
 * @n pages pre-mapped from @vma's file (usefulness.c's count, preemption
 * off; 0 at an order-0 call): into its entry's counter, the entry taken
 * at its first pages.
 * Its last use is written once a jiffy at most: no shared line is
 * written at every fault.
 */
void notrace mmtune_af_mapped(struct mmtune_auto_files *t,
			      const struct vm_area_struct *vma, unsigned int n)
{
	unsigned long ino, now = jiffies;
	unsigned int order;
	dev_t dev;
	int i;

	if (!af_key(vma, &dev, &ino))
		return;
	i = af_find(t, dev, ino, &order);
	/* a file at order 0 stays in use, pre-mapping nothing */
	if (i < 0 && !n)
		return;
	if (i < 0)
		i = af_take(t, dev, ino);
	if (READ_ONCE(t->e[i].last) != now)
		WRITE_ONCE(t->e[i].last, now);
	if (n)
		this_cpu_add(t->ctr->p[i], n);
}

/*
 * @n pre-mapped pages found untouched in a zap of @vma (preemption off);
 * @ended: of an exit_mmap, whose process's pages the file's old counts
 * no more (the poll drops them).
 */
void notrace mmtune_af_untouched(struct mmtune_auto_files *t,
				 const struct vm_area_struct *vma,
				 unsigned long n, bool ended)
{
	int i = af_index(t, vma);

	if (i < 0)
		return;
	if (n)
		this_cpu_add(t->ctr->u[i], n);
	if (ended && !test_bit(i, &t->ended))
		set_bit(i, &t->ended);
}

/*
 * live.c's pass of @mm under the rule of @t (policy_lock): it counts each
 * file's old pages into the file's entry, tagged with @mm, across the
 * polls a pass may take (it resumes where the mmap lock was busy).  A
 * pass from the start forgets what an earlier one of @mm left.
 */
void mmtune_af_pass_start(struct mmtune_auto_files *t,
			  const struct mm_struct *mm)
{
	unsigned int i;

	for (i = 0; i < AF_ENTRIES; i++)
		if (t->e[i].acc_mm == mm)
			t->e[i].acc_mm = NULL;
}

/*
 * @old old pages found in @vma, of @mm.  Another process's pass under
 * way on the same file loses what it counted: the estimate the top says.
 */
void mmtune_af_pass_old(struct mmtune_auto_files *t,
			const struct mm_struct *mm,
			const struct vm_area_struct *vma, u64 old)
{
	int i = af_index(t, vma);
	struct af_entry *e;

	if (i < 0)
		return;
	e = &t->e[i];
	if (e->acc_mm != mm) {
		e->acc_mm = mm;
		e->acc_old = 0;
	}
	e->acc_old += old;
}

/* @mm's pass is done: each file it counted has its old pages, judged */
void mmtune_af_pass_end(struct mmtune_auto_files *t,
			const struct mm_struct *mm)
{
	struct af_entry *e;
	unsigned int i;

	for (i = 0; i < AF_ENTRIES; i++) {
		e = &t->e[i];
		if (e->acc_mm != mm)
			continue;
		e->acc_mm = NULL;
		e->old = e->acc_old;
		e->fresh = true;
		e->passes++;
	}
}

/* Entry @i's counts since it changed hands: every CPU's */
static void af_sum(const struct mmtune_auto_files *t, unsigned int i,
		   u64 *p, u64 *u)
{
	int cpu;

	*p = 0;
	*u = 0;
	for_each_possible_cpu(cpu) {
		const struct af_ctr *c = per_cpu_ptr(t->ctr, cpu);

		*p += READ_ONCE(c->p[i]);
		*u += READ_ONCE(c->u[i]);
	}
}

/* Entry @i's judgement, at the poll; true if its order changed */
static bool af_judge_one(struct mmtune_auto_files *t, unsigned int i,
			 unsigned int max_order)
{
	struct af_entry *e = &t->e[i];
	unsigned long gen = READ_ONCE(e->gen);
	u64 p, u;

	af_sum(t, i, &p, &u);
	if (gen != e->seen_gen) {	/* another file's since: afresh */
		e->seen_gen = gen;
		e->base_p = p;
		e->base_u = u;
		e->old = 0;
		e->acc_mm = NULL;
		e->fresh = false;
		e->passes = 0;
		mmtune_auto_start(&e->au, READ_ONCE(e->order));
		return false;
	}
	if (test_and_clear_bit(i, &t->ended))
		e->old = 0;		/* its zaps counted them */
	if (!e->fresh)
		return false;
	e->fresh = false;
	if (!mmtune_auto_judge(&e->au, p - e->base_p, u - e->base_u + e->old,
			       e->passes / AF_LIVE_RUN, max_order))
		return false;
	raw_spin_lock(&t->lock);
	if (READ_ONCE(e->gen) == gen) {
		raw_write_seqcount_begin(&e->seq);
		WRITE_ONCE(e->order, e->au.order);
		raw_write_seqcount_end(&e->seq);
	}
	raw_spin_unlock(&t->lock);
	return true;
}

/* Each file's judgement (policy_lock): the changes of order */
unsigned int mmtune_af_judge(struct mmtune_auto_files *t,
			     unsigned int max_order)
{
	unsigned int i, n = 0;

	for (i = 0; i < AF_ENTRIES; i++)
		if (READ_ONCE(t->e[i].ino))
			n += af_judge_one(t, i, max_order);
	return n;
}

/*
 * On the rule's counter line: " files=N forgotten=N" and, when it has
 * any, " file_orders=MAJOR:MINOR:INO/ORDER,...", each file's order in
 * force (policy_lock).
 */
void mmtune_af_show(struct seq_file *m, const struct mmtune_auto_files *t)
{
	unsigned int i, n = 0;
	const struct af_entry *e;

	for (i = 0; i < AF_ENTRIES; i++)
		n += !!READ_ONCE(t->e[i].ino);
	seq_printf(m, " files=%u forgotten=%lld", n,
		   (long long)atomic64_read(&t->forgotten));
	for (i = 0, n = 0; i < AF_ENTRIES; i++) {
		e = &t->e[i];
		if (!READ_ONCE(e->ino))
			continue;
		seq_printf(m, "%s%u:%u:%lu/%u", n++ ? "," : " file_orders=",
			   MAJOR(e->dev), MINOR(e->dev), e->ino,
			   READ_ONCE(e->order));
	}
}
