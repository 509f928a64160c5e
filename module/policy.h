/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: the per-process fault-around policy (policy.c), as seen by the
 * fault-path hooks (hooks.c).
 */
#ifndef MMTUNE_POLICY_H
#define MMTUNE_POLICY_H

struct ftrace_regs;

/*
 * Called by the filemap_map_pages entry hook while the policy holds the
 * hooks (mmtune_hooks_policy_enable()), in the faulting task, with
 * preemption off: narrows the window [start_pgoff, end_pgoff] (arguments
 * 1 and 2) to the order of the first rule that matches the task, or to
 * the default order when none does.  It only ever shrinks the window.
 * Returns the index of that rule, -1 for none; *@order is set to the
 * order it narrowed to unless @order is NULL (left alone when no rule
 * set is in place).
 */
int mmtune_policy_fault_around(struct ftrace_regs *fregs, int *order);

/* Called by the PTE-setter hook for @nr pages mapped by fault-around. */
void mmtune_policy_mapped(unsigned long nr);

#endif /* MMTUNE_POLICY_H */
