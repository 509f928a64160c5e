/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune compat: compiler attributes that the kernel's
 * compiler_attributes.h does not define in every supported version
 * (policy.c, hooks_table.c).
 */
#ifndef MMTUNE_COMPAT_ATTRIBUTES_H
#define MMTUNE_COMPAT_ATTRIBUTES_H

/* __no_stack_protector came to compiler_attributes.h within 6.1.y. */
#ifndef __no_stack_protector
#if __has_attribute(__no_stack_protector__)
#define __no_stack_protector	__attribute__((__no_stack_protector__))
#else
#define __no_stack_protector
#endif
#endif

#endif /* MMTUNE_COMPAT_ATTRIBUTES_H */
