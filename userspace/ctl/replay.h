/* SPDX-License-Identifier: GPL-2.0 */
/*
 * replay.c's figures for another verb (advise.c): a record replayed at
 * every order, in all and per file, and what makes them bounds.
 */
#ifndef MMTUNECTL_REPLAY_H
#define MMTUNECTL_REPLAY_H

#include "ctl.h"

#define RP_MAX_ORDERS	16

/* What an order did: in all, or to one file. */
struct rp_sum {
	unsigned long long faults, calls, premapped, untouched;
	unsigned long long beyond;	/* of premapped: whole folios past the window */
};

struct rp;

/* A record replayed at orders 0..maxo (one page table's at most) */
struct replay_figs {
	struct rp *r;
	const char *command, *release, *machine;
	long psz, korder;	/* korder: the kernel's when recorded */
	int maxo, nf, whole;	/* whole: large folios mapped whole */
	unsigned long long recorded, file_faults;	/* the run's faults; its file read faults */
	struct rp_sum all[RP_MAX_ORDERS];	/* all[k]: order k for every file */
};

/* Read @name and replay it: 0, or an exit code after saying why (free it either way). */
int replay_figs(const char *name, struct replay_figs *g);
void replay_figs_free(struct replay_figs *g);
/* File @i's path (NULL: not found); *bound: its figures are bounds, not exact. */
const char *replay_file(const struct replay_figs *g, int i, int *bound);
/* File @i at order @k: its read faults (faults), calls, pages pre-mapped, untouched. */
const struct rp_sum *replay_file_sum(const struct replay_figs *g, int i, int k);
/* replay's closing lines (assumed, bound:, exact:; JSON bounds, exact): the bounds. */
int replay_verdict(const struct replay_figs *g, struct out *o);

#endif
