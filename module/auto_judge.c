// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: an order=auto rule's judgement, at policy.c's poll (auto.c's
 * mmtune_auto_judge_rules()), under policy_lock.  auto.c's header says
 * what the counts are and why the band; this is the arithmetic alone,
 * built on the host too (tests/host/module_unit.c).
 */
#include <linux/compiler.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/types.h>

#include "auto_judge.h"

void mmtune_auto_start(struct mmtune_auto *a, unsigned int order)
{
	memset(a, 0, sizeof(*a));
	a->order = order;
	a->useful = -1;
}

/*
 * @p and @u: the rule's pre-mapped and untouched pages of its ended
 * processes since the rule was written, @runs those processes.  True if
 * the order changed.
 */
bool mmtune_auto_judge(struct mmtune_auto *a, u64 p, u64 u, u64 runs,
		       unsigned int max_order)
{
	u64 dp = p - a->seen_p, du = u - a->seen_u;
	unsigned int order = a->order;

	/* live passes take back what they counted untouched: below 0 is 0 */
	if ((s64)du < 0)
		du = 0;

	if (dp < AUTO_MIN_PAGES) {
		if (order || max_order < 1 || runs - a->seen_runs < AUTO_PROBE)
			return false;
		a->seen_runs = runs;
		a->useful = -1;
		a->judged = 0;
		order = 1;	/* a probe */
	} else {
		a->seen_runs = runs;
		a->seen_p = p;
		a->seen_u = u;
		a->judged = dp;
		a->useful = div64_u64((dp - min(du, dp)) * 1000, dp);
		if (a->useful >= AUTO_RAISE && order < max_order)
			order++;
		else if (a->useful < AUTO_LOWER && order > 0)
			order--;
	}
	if (order == a->order)
		return false;
	if (order > a->order)
		a->raised++;
	else
		a->lowered++;
	WRITE_ONCE(a->order, order);
	return true;
}
