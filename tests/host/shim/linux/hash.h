/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for module/'s pure files (tests/host/module_unit.c) */
#ifndef MMT_SHIM_HASH_H
#define MMT_SHIM_HASH_H
#include <linux/types.h>

#define GOLDEN_RATIO_64 0x61C8864680B583EBull

static inline u32 hash_64(u64 val, unsigned int bits)
{
	return val * GOLDEN_RATIO_64 >> (64 - bits);
}

#define hash_ptr(ptr, bits)	hash_64((unsigned long)(ptr), bits)
#endif
