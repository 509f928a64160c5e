/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for module/'s pure files (tests/host/module_unit.c) */
#ifndef MMT_SHIM_MATH64_H
#define MMT_SHIM_MATH64_H
#include <linux/types.h>

static inline u64 div64_u64(u64 a, u64 b)
{
	return a / b;
}
#endif
