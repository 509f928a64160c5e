/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim: <linux/errno.h> is the system's own (the C library's
 * <errno.h> includes it too: this file must not stand in its way).
 */
#include_next <linux/errno.h>
