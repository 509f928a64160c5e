/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: the rules core's pure arithmetic (rules.c): the window a rule's
 * order gives, and the match cache's entry, its key and its hash.  Only
 * <linux/types.h>-level headers, so that tests/host/module_unit.c builds
 * it on the host (tests/host/shim/ stands for those headers there).
 */
#ifndef MMTUNE_RULES_PURE_H
#define MMTUNE_RULES_PURE_H

#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/types.h>

struct pid;

/*
 * Narrow [*@start, *@end] to the aligned block of 2^@order pages holding
 * the fault at page offset @pgoff, whose page table slot is @slot; nothing
 * if it is not a window around the fault.  A narrowed window stays as it
 * is: it only ever shrinks.
 */
static __always_inline void rules_narrow(unsigned long pgoff,
					 unsigned long slot,
					 unsigned int order,
					 unsigned long *start,
					 unsigned long *end)
{
	unsigned long nr = 1UL << order, before, after;

	if (*start > pgoff || pgoff > *end)
		return;
	/* "before" slots of the block precede the faulting page */
	before = slot & (nr - 1);
	after = nr - 1 - before;
	if (pgoff - *start > before)
		*start = pgoff - before;
	if (*end - pgoff > after)
		*end = pgoff + after;
}

/*
 * A process's name as two words, compared with a rule's comm: by value,
 * so that the fault path keeps it in registers (an array would be on the
 * stack, and bring the stack protector with it).
 */
struct comm_key {
	u64 w0, w1;
};

/*
 * rules.c's match cache, per CPU and per set: the last answers, hashed
 * by thread group.  Dynamic per-CPU memory, as every per-CPU datum of the
 * module: a static one is reached PC-relative where the kernel does not
 * make modules' per-CPU variables weak (s390 from 7.x), and a module's
 * text is too far from the per-CPU area for that.
 */
#define POLICY_MATCH_BITS	2	/* 4 entries a CPU */

struct policy_match_ent {
	u64 comm[2];			/* COMM_WORDS (policy.h) */
	const struct pid *tgid;
	u64 cgid;
	unsigned long gen;
	u32 mask;			/* BIT(i): rule i's task key matches */
	unsigned int idx;		/* the first of @mask, or the set's nr */
};

struct policy_match {
	struct policy_match_ent ent[1 << POLICY_MATCH_BITS];
};

/* The entry of a CPU's cache that the thread group @tgid's answer takes */
static __always_inline unsigned int rules_match_slot(const struct pid *tgid)
{
	return hash_ptr(tgid, POLICY_MATCH_BITS);
}

/* Whether @e holds the answer for these keys (of the set's generation @gen) */
static __always_inline bool rules_match_hit(const struct policy_match_ent *e,
					    unsigned long gen,
					    const struct pid *tgid, u64 cgid,
					    struct comm_key comm)
{
	return e->gen == gen && e->tgid == tgid && e->cgid == cgid &&
	       e->comm[0] == comm.w0 && e->comm[1] == comm.w1;
}

/* Key @e with these, its answer being @mask, whose first rule is @idx */
static __always_inline void rules_match_keep(struct policy_match_ent *e,
					     unsigned long gen,
					     const struct pid *tgid, u64 cgid,
					     struct comm_key comm, u32 mask,
					     unsigned int idx)
{
	e->mask = mask;
	e->idx = idx;
	e->gen = gen;
	e->tgid = tgid;
	e->cgid = cgid;
	e->comm[0] = comm.w0;
	e->comm[1] = comm.w1;
}

#endif /* MMTUNE_RULES_PURE_H */
