/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim of the kernel headers module/policy_grammar.c includes (and
 * mmtune.h, for the order helpers' declarations): tests/host/rule_unit.c
 * builds the grammar as the kernel does, with the C library's help; and
 * tests/host/module_unit.c module/'s pure arithmetic (rules_pure.h,
 * auto_judge.c).
 */
#ifndef MMT_SHIM_TYPES_H
#define MMT_SHIM_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#define __user
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#ifndef __maybe_unused
#define __maybe_unused	__attribute__((__unused__))
#endif

#endif
