/* SPDX-License-Identifier: GPL-2.0 */
/* libmmtune internals, not for the tools. */
#ifndef MMTUNE_PRIV_H
#define MMTUNE_PRIV_H

#include "libmmtune.h"

/*
 * base.c, the bottom layer (it calls nothing else here): the message,
 * errno mapping, file I/O and roots.
 */
/* Set the thread's message; returns err. */
int mmt__fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The errno behind the thread's last mmt_errno_to_err(); 0 for none. */
extern __thread int mmt__last_errno;

/* Echo-like write (0, -1/errno); the read is libmmtune.h's mmt_read_path. */
int mmt__write_path(const char *path, const char *value);

/*
 * plane.c: a knob through the lockdown-proof files (module parameters and
 * /sys/kernel/mm/mmtune/), in the text debugfs would give.  Read: bytes,
 * or < 0 when those files cannot serve it (the caller tries debugfs).
 * Write: MMT_OK, an MMT_E* code, or MMT__NOPLANE to try debugfs.
 */
#define MMT__NOPLANE	(-100)
long mmt__plane_read(const char *knob, char *buf, size_t len);
int mmt__plane_write(const char *knob, const char *value);

/* floor(log2(x)), x > 0 */
static inline int mmt__ilog2(unsigned long long x)
{
	return 63 - __builtin_clzll(x);
}

#endif
