/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: the walk of live processes under order=auto rules (live.c),
 * at policy.c's poll.  Each finished pass's counts go to that auto rule
 * of the set (rules.c's mmtune_rules_credit()); a pass for a rule walks
 * the mappings whose pages are that rule's (mmtune_rules_auto_of()).
 */
#ifndef MMTUNE_LIVE_H
#define MMTUNE_LIVE_H

#include <linux/seq_file.h>
#include <linux/types.h>

struct policy_set;

void mmtune_live_poll(struct policy_set *set, const unsigned long *ids,
		      unsigned int nr);
void mmtune_live_info(struct seq_file *m);

#endif /* MMTUNE_LIVE_H */
