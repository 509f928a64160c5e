/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: the adaptive fault-around order of a policy rule with
 * order=auto (auto.c).  policy.c owns the rules and calls in here; this
 * file knows nothing of them but an auto rule's id (never reused, unlike
 * its address or index, and kept by a write that keeps the rule, so a
 * live process's counts survive a write that adds or drops another rule).
 */
#ifndef MMTUNE_AUTO_H
#define MMTUNE_AUTO_H

#include <linux/mm_types.h>
#include <linux/types.h>

/* One auto rule's state, written under policy_lock. */
struct mmtune_auto {
	unsigned long id;	/* never reused; kept by a write that keeps the rule */
	unsigned int order;	/* in force: READ_ONCE() on the fault path */
	u64 seen_p, seen_u;	/* the rule's learned counts already judged */
	u64 seen_runs;		/* its ended processes at the last change */
	u64 raised, lowered;	/* changes of order */
	int useful;		/* per mille at the last judgement, -1 none */
	u64 judged;		/* pre-mapped pages that judgement saw */
};

void mmtune_auto_start(struct mmtune_auto *a, unsigned int order);
bool mmtune_auto_judge(struct mmtune_auto *a, u64 p, u64 u, u64 runs,
		       unsigned int max_order);

/* Per process: what a process of an auto rule pre-mapped and left. */
void mmtune_auto_mapped(const struct mm_struct *mm, unsigned long id,
			unsigned int n);
u64 mmtune_auto_drop(const struct mm_struct *mm, unsigned long id);
bool mmtune_auto_owns(const struct mm_struct *mm, unsigned long id);
bool mmtune_auto_unmapped(struct mm_struct *mm, unsigned long id,
			  unsigned long n, u64 *p, u64 *u, u64 *runs);
bool mmtune_auto_live(const struct mm_struct *mm, unsigned long id,
		      unsigned long *next, u64 *old, unsigned long *age);
bool mmtune_auto_live_pass(const struct mm_struct *mm, unsigned long id,
			   unsigned long next, u64 old, bool done, u64 *p,
			   u64 *u, u64 *runs);
int mmtune_auto_init(void);
void mmtune_auto_exit(void);
void mmtune_auto_forget(void);
u64 mmtune_auto_lost(void);

#endif /* MMTUNE_AUTO_H */
