/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The advisor's choice (advpick.c), apart from the record and the
 * output so that tests/host/advise_unit.c checks it alone: given each
 * file's read faults and untouched pages at every order (replay's
 * figures), an order per file and one for the rest, the fewest faults
 * within a budget of untouched pages, at most max_rules files with an
 * order of their own.
 */
#ifndef MMTUNECTL_ADVPICK_H
#define MMTUNECTL_ADVPICK_H

#define ADV_MAX_ORDERS	16
#define ADV_CELLS	(1UL << 22)	/* the DP's table, when in->cells is 0 */

/* A file at one order: its read faults and the untouched pages it adds. */
struct adv_at {
	unsigned long long faults, untouched;
};

struct adv_file {
	struct adv_at at[ADV_MAX_ORDERS];
	int ruleable;		/* 0: no rule can name it: it takes the rest's order */
};

struct adv_in {
	const struct adv_file *f;
	int nf, norders;	/* orders 0..norders - 1 */
	int max_rules;		/* files with an order of their own, at most */
	unsigned long long budget;	/* untouched pages, at most */
	unsigned long cells;	/* the DP's table at most (0: ADV_CELLS) */
};

struct adv_out {
	int rest;		/* the order of the files without a rule */
	int *order;		/* nf, the caller's: each file's order (rest: no rule) */
	int rules;		/* files whose order is not rest's */
	unsigned long long faults, untouched;	/* summed over the files */
	unsigned long unit;	/* the budget's unit in pages: 1 is exact */
	int over;		/* nothing fits the budget: the least untouched instead */
};

/* The advice into @out: 0, or -1 without memory. */
int adv_pick(const struct adv_in *in, struct adv_out *out);
/* The order of fewest faults within the budget for every file, or -1. */
int adv_single(const struct adv_in *in, unsigned long long *faults, unsigned long long *untouched);
/* Whether file @f's figures are the same at every order of @in. */
int adv_flat(const struct adv_in *in, const struct adv_file *f);

#endif
