/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: the walk of live processes under order=auto rules (live.c),
 * at policy.c's poll.  Each finished pass's counts go to that auto rule
 * of the set (rules.c's mmtune_rules_credit()); a pass for a rule walks
 * the mappings whose pages are that rule's (mmtune_rules_auto_of()).
 */
#ifndef MMTUNE_LIVE_H
#define MMTUNE_LIVE_H

#include <linux/types.h>

struct policy_set;

void mmtune_live_poll(struct policy_set *set, const unsigned long *ids,
		      unsigned int nr);

/* the counts info shows as policy_live_* (policy.c); policy_lock held */
enum mmtune_live_count {
	MMT_LIVE_PASSES,	/* passes finished */
	MMT_LIVE_SLOTS,		/* PTE slots and mappings looked at */
	MMT_LIVE_BUSY,		/* passes put off: the mmap lock was taken */
	MMT_LIVE_POLL_MAX_US,	/* the longest poll */
	MMT_LIVE_SCANNED,	/* pids looked at */
	MMT_LIVE_SCAN_RCU_MAX,	/* the most pids under one RCU section */
};

u64 mmtune_live_count(enum mmtune_live_count what);

#endif /* MMTUNE_LIVE_H */
