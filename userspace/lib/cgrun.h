/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `mmtunectl tune` (and a command runner on the same machinery) needs
 * to give a command and every process it starts an order of their own:
 * a cgroup v2 of mmtunectl's own (cgroup.c) and a cgroup= rule for it in
 * front of the user's rules (ownrule.c).  Same conventions as libmmtune.h:
 * 0 or a negative MMT_E* code, mmt_errmsg() says why.
 */
#ifndef MMTUNE_CGRUN_H
#define MMTUNE_CGRUN_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

/* The mount point of cgroup2 (the unified hierarchy), or NULL. */
const char *mmt_cgroup2_root(void);

struct mmt_cg {
	char dir[PATH_MAX];	/* the directory, under the cgroup2 mount */
	char path[128];		/* its cgroup path, as cgroup= rules take it */
	char match[160];	/* "cgroup=PATH" */
	int made;
};

/* Make <cgroup2>/mmtune-TAG.PID (our pid). */
int mmt_cg_create(struct mmt_cg *cg, const char *tag);
/* Move process pid into it (between fork and exec). */
int mmt_cg_enter(const struct mmt_cg *cg, pid_t pid);
/* SIGKILL whatever is left in it and wait (bounded) until it is empty. */
int mmt_cg_kill(const struct mmt_cg *cg);
/* Kill what is left and remove it; a no-op if it was not made. */
int mmt_cg_remove(struct mmt_cg *cg);

/*
 * Put "MATCH order=ORDER" first in the policy (order < 0: take it out),
 * by one edit the module makes to its rules as they are (rules/edit's
 * "first" and "drop"): the user's rules stay, in their order.  On
 * failure errno holds the kernel's error.
 */
int mmt_policy_own(const char *match, int order);

#endif
