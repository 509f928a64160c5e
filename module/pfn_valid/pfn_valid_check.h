/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: what pfn_valid_check.c (the cross-check) gives
 * pfn_valid_bench.c (the bench) and pfn_valid_file.c (the mode gate, the
 * files).
 */
#ifndef MMTUNE_PFN_VALID_CHECK_H
#define MMTUNE_PFN_VALID_CHECK_H

#include <linux/ktime.h>
#include <linux/types.h>

#include "pfn_valid.h"

#ifdef CONFIG_SPARSEMEM

#define PFV_DEADLINE_NS	(8ULL * NSEC_PER_SEC)	/* hard stop: bench, sweep */

/* Comparisons so far, per strategy: what the mode gate decides on. */
struct pfv_tally {
	u64 checked;
	u64 bad;		/* differs from stock */
	u64 online_bad;		/* override's function differs from the kernel's */
	unsigned long first_bad;
};

/* All below under mmtune_pfv_lock (pfn_valid.c's). */
extern struct pfv_tally mmtune_pfv_total[MMTUNE_PV_NR];
extern bool mmtune_pfv_verified;	/* the sweep finished once */

/* At init: the kernel's max_pfn where it can be read, the totals at 0. */
void mmtune_pfv_check_init(void);
/* @pfn compared for every strategy, into @t[MMTUNE_PV_NR]. */
void mmtune_pfv_check_one(unsigned long pfn, struct pfv_tally *t);
void mmtune_pfv_tally_init(struct pfv_tally *t);
void mmtune_pfv_tally_add(struct pfv_tally *dst, const struct pfv_tally *src);
unsigned long mmtune_pfv_kernel_max_pfn(void);
/* The end of the range the bench and the sweep cover. */
unsigned long mmtune_pfv_end_pfn(void);
/* The sweep; 0, -EINTR or -ETIME.  Adds to mmtune_pfv_total. */
int mmtune_pfv_verify(void);

#endif /* CONFIG_SPARSEMEM */
#endif /* MMTUNE_PFN_VALID_CHECK_H */
