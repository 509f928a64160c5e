/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: fault-around's usefulness, its fault path and unmap
 * (usefulness_path.c), for the part that turns it on and off and shows
 * it (usefulness.c).  Private to those two.
 */
#ifndef MMTUNE_USEFULNESS_H
#define MMTUNE_USEFULNESS_H

#include <linux/types.h>

struct useful_pcpu {
	u64 prefaulted;		/* pre-mapped PTEs made old */
	u64 untouched;		/* old PTEs found at unmap */
	u64 zaps;		/* unmap_page_range calls on file mappings */
	u64 unjudged;		/* pages of their ranges past the walk's budget */
	u64 cut;		/* zaps whose walk the budget cut short */
	u64 missed;		/* ends seen without their entry's stash */
	u64 beyond;		/* of prefaulted: whole folios past the window */
	u64 unfolded;		/* arm64's contiguous blocks split to judge */
	u64 unattributed;	/* of untouched: in no rule's (rules.c) */
};

/*
 * The hooks' user: .wants and .fn[MMT_HOOK_FAULT_AROUND] are set at
 * enable (useful_way()), for the tracepoint way or the kretprobe way.
 */
extern struct mmtune_hook_user useful_user;
void useful_way(bool tp);
bool useful_tp_ready(void);
int useful_tp_register(void);
/* Returns when no probe runs any more. */
void useful_tp_unregister(void);

void useful_counters_clear(void);
/* Every CPU's counts into @sum. */
void useful_sum(struct useful_pcpu *sum);
/* The most PTE slots one zap's walk read, and its time, since enable. */
void useful_walk_max(unsigned long *slots, u64 *ns);

/* At load and unload: the counts, and the tracepoint way's stash. */
int useful_path_init(void);
void useful_path_exit(void);

#endif /* MMTUNE_USEFULNESS_H */
