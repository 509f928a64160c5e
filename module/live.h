/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: the walk of live processes under order=auto rules (live.c),
 * at policy.c's poll.  Each finished pass's counts go to @credit, with
 * the auto rule's id (auto.h): policy.c adds them to that rule's.  A pass
 * for a rule walks the mappings @rule_of gives that rule.
 */
#ifndef MMTUNE_LIVE_H
#define MMTUNE_LIVE_H

#include <linux/seq_file.h>
#include <linux/types.h>

struct vm_area_struct;

typedef void (*mmtune_live_credit_fn)(unsigned long id, u64 p, u64 u,
				      u64 runs, void *arg);
/* The auto rule whose pages @vma holds (its id), 0 if none's. */
typedef unsigned long (*mmtune_live_rule_fn)(const struct vm_area_struct *vma,
					     void *arg);

void mmtune_live_poll(const unsigned long *ids, unsigned int nr,
		      mmtune_live_credit_fn credit, mmtune_live_rule_fn rule_of,
		      void *arg);
void mmtune_live_info(struct seq_file *m);

#endif /* MMTUNE_LIVE_H */
