/* SPDX-License-Identifier: GPL-2.0 */
/* libmmtune internals, not for the tools. */
#ifndef MMTUNE_PRIV_H
#define MMTUNE_PRIV_H

#include "mmtune.h"

/* Set the thread's message; returns err. */
int mmt__fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* floor(log2(x)), x > 0 */
static inline int mmt__ilog2(unsigned long long x)
{
	return 63 - __builtin_clzll(x);
}

#endif
