/* SPDX-License-Identifier: GPL-2.0 */
/*
 * advise --pid/--cgroup (advlive.c): advice for running processes from
 * the module's rss file, called by advise.c.
 */
#ifndef MMTUNECTL_ADVLIVE_H
#define MMTUNECTL_ADVLIVE_H

#include <limits.h>

struct adv_live {
	long pid;			/* 0: the cgroup */
	char cgroup[PATH_MAX];
	int json;
};

/* The advice printed: 0, or an exit code after saying why. */
int adv_live(const struct adv_live *l);

#endif
