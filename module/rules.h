/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: the policy's rules core (rules.c): the rule set in force, the
 * fault path's callbacks of the policy's hook, and the per-rule counters.
 * The lowest of the policy's files: policy.c (installing, polling),
 * policy_file.c, auto.c and live.c call in here, and it calls none of
 * them but auto.c's per-process counts.
 */
#ifndef MMTUNE_RULES_H
#define MMTUNE_RULES_H

#include <linux/compiler.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/types.h>

#include "policy.h"

struct mmtune_hook_call;
struct vm_area_struct;

extern struct policy_set __rcu *policy_active;

/* the policy's callbacks of the hooks (policy.c's policy_user) */
void policy_fault_around(struct mmtune_hook_call *c);
/* the same, taking the return probe's match (rules.c's match_once()) */
void policy_fault_around_shared(struct mmtune_hook_call *c);
void policy_mapped(struct mmtune_hook_call *c);

struct policy_slot *policy_slots_alloc(void);

/* live.c's pass of a live process, at the poll (policy_lock) */
unsigned long mmtune_rules_auto_of(const struct policy_set *set,
				   const struct vm_area_struct *vma);
void mmtune_rules_credit(struct policy_set *set, unsigned long id, u64 p,
			 u64 u, u64 runs);
struct mmtune_auto_files *mmtune_rules_auto_files(const struct policy_set *set,
						  unsigned long id);

/* The order rule @r gives now: an auto rule's moves */
static __always_inline unsigned int rule_order(const struct policy_rule *r)
{
	return r->is_auto ? READ_ONCE(r->au.order) : r->order;
}

/* ... to a fault on @vma: an auto:file rule's is the file's (auto_file.c) */
static __always_inline unsigned int rule_order_vma(const struct policy_rule *r,
						   const struct vm_area_struct *vma)
{
	if (unlikely(r->files))
		return mmtune_af_order(r->files, vma);
	return rule_order(r);
}

/* Rule @idx's counters of @set (set->nr: no match's), every CPU's */
static inline void ctr_sum(const struct policy_set *set, unsigned int idx,
			   struct policy_ctr *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct policy_ctr *c = per_cpu_ptr(set->ctr, cpu) + idx;

		sum->hits += READ_ONCE(c->hits);
		sum->pages += READ_ONCE(c->pages);
		sum->prefaulted += READ_ONCE(c->prefaulted);
		sum->untouched += READ_ONCE(c->untouched);
		sum->auto_p += READ_ONCE(c->auto_p);
		sum->auto_u += READ_ONCE(c->auto_u);
		sum->auto_runs += READ_ONCE(c->auto_runs);
		sum->untrusted += READ_ONCE(c->untrusted);
	}
}

#endif /* MMTUNE_RULES_H */
