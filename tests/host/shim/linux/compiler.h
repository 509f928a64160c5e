/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for module/'s pure files (tests/host/module_unit.c) */
#ifndef MMT_SHIM_COMPILER_H
#define MMT_SHIM_COMPILER_H
#ifndef __always_inline	/* glibc defines it too */
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#endif
