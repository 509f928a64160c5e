/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: the adaptive fault-around order of a policy rule with
 * order=auto (auto.c, its judgement auto_judge.c).  policy.c owns the
 * rules and calls in here at an install and a poll (mmtune_auto_*_rules);
 * the per-process counts, which the rules core (rules.c) and live.c call,
 * know nothing of the rules but an auto rule's id (never reused, unlike
 * its address or index, and kept by a write that keeps the rule, so a
 * live process's counts survive a write that adds or drops another rule).
 */
#ifndef MMTUNE_AUTO_H
#define MMTUNE_AUTO_H

#include <linux/mm_types.h>
#include <linux/types.h>

#include "auto_judge.h"

/* A rule set's auto rules, under policy_lock: policy.c's install and poll */
struct policy_set;
int mmtune_auto_start_rules(struct policy_set *set,
			    const struct policy_set *cur);
void mmtune_auto_carry(struct policy_set *set, const struct policy_set *old);
void mmtune_auto_judge_rules(struct policy_set *set);
u64 mmtune_auto_changes(void);

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
