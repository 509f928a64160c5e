/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: an order=auto rule's judgement (auto_judge.c; auto.c's header
 * says what it learns from and why the band).  Pure arithmetic on a
 * rule's counts: only <linux/types.h>-level headers, so that
 * tests/host/module_unit.c builds it on the host.
 */
#ifndef MMTUNE_AUTO_JUDGE_H
#define MMTUNE_AUTO_JUDGE_H

#include <linux/types.h>

#define AUTO_MIN_PAGES	256	/* pre-mapped pages a judgement needs */
#define AUTO_RAISE	750	/* per mille useful: raise at or above */
/*
 * Lower below a third: fault-around at 30 % useful still lost to order 0
 * (make bench-real, 2026-12-03: sqlite3 reading random rows, order 2,
 * 30.4 % useful, 1.02 times order 0's instructions), and a reader of
 * every other page (43-50 % at every order) stays inside the band.
 */
#define AUTO_LOWER	333
#define AUTO_PROBE	10	/* processes ended at order 0, then order 1 */

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

#endif /* MMTUNE_AUTO_JUDGE_H */
