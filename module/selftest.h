/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: the hooks' self-test (selftest.c), for the layer (hooks.c).
 */
#ifndef MMTUNE_SELFTEST_H
#define MMTUNE_SELFTEST_H

#include "hooks.h"

/*
 * The function the self-test hook is placed on (global for that only:
 * nothing but selftest.c calls it), and its address.
 */
unsigned long mmtune_selftest_target(unsigned long a, unsigned long b,
				     unsigned long c);
unsigned long mmtune_selftest_direct_target(unsigned long a, unsigned long b,
					    unsigned long c);
/* The function the ftrace test hooks, or the direct call's (@direct). */
unsigned long mmtune_selftest_target_addr(bool direct);

/* The self-test hook's callback: checks and changes the arguments. */
void mmtune_selftest_entry(struct mmtune_hook_call *c);

/*
 * Calls the target (@direct: the direct call's) with known arguments (its
 * hook must be placed):
 * whether the callback read them right and whether its change arrived.
 */
void mmtune_selftest_args(bool direct, bool *read, bool *written);

/* What one self-test fault went through (see selftest.c). */
struct mmtune_selftest_result {
	bool faulted;		/* page 0 took a fault */
	bool fault_around;	/* ... and it mapped page 1 as well */
};

int mmtune_selftest_fault(struct mmtune_selftest_result *r);

#endif /* MMTUNE_SELFTEST_H */
