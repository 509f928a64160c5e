/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for module/'s pure files (tests/host/module_unit.c) */
#ifndef MMT_SHIM_MINMAX_H
#define MMT_SHIM_MINMAX_H
#define min(a, b) ({ __typeof__(a) a_ = (a); __typeof__(b) b_ = (b); \
		     (void)(&a_ == &b_); a_ < b_ ? a_ : b_; })
#endif
