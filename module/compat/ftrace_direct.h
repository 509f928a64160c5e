/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune compat: ftrace direct calls (hooks_table.c, with hook_direct=1):
 * which architectures and versions have them, the trampoline of each (its
 * assembly), and the registration calls, renamed in 6.4.
 */
#ifndef MMTUNE_COMPAT_FTRACE_DIRECT_H
#define MMTUNE_COMPAT_FTRACE_DIRECT_H

#include <linux/errno.h>
#include <linux/ftrace.h>

/*
 * An ftrace direct call patches the function's fentry site into a call of
 * a trampoline of ours: no ftrace trampoline, no ops function in between
 * (79 of the 79+118 instructions one policy rule cost at order 4 on 6.1
 * x86_64 were those two).  The trampoline saves the argument registers as
 * an array on its stack, calls ENTRY with that array's address (ENTRY may
 * change an argument there) and restores them.  Above the array it keeps
 * MMTUNE_DIRECT_SCRATCH bytes for ENTRY's own use (hooks_table.c: the call's
 * state, which on ENTRY's stack would be zeroed by INIT_STACK_ALL_ZERO and
 * guarded by the stack protector at every call).  x86_64 (every Debian
 * kernel has DYNAMIC_FTRACE_WITH_DIRECT_CALLS there) and arm64 (from 6.12
 * on; 6.1 has none).  6.1 has the ops form as
 * register_ftrace_direct_multi() (the Kbuild sees it in ftrace.h:
 * MMTUNE_DIRECT_MULTI); 6.4 renamed it register_ftrace_direct() and gave
 * unregister a free_filters argument.  Each registration overwrites the
 * ops' flags and function: a direct ops is used for nothing else.
 */
#if defined(CONFIG_X86_64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS)
#define MMTUNE_HAVE_DIRECT	1
#include <asm/ibt.h>
#include <asm/linkage.h>
#include <asm/nospec-branch.h>
#include <linux/stringify.h>

#define MMTUNE_DIRECT_NR_ARGS	4
#define MMTUNE_DIRECT_SCRATCH	64

/* 6.2: the return-stack depth count of call depth tracking */
#ifndef CALL_DEPTH_ACCOUNT
#define CALL_DEPTH_ACCOUNT	""
#endif

/*
 * TRAMP saves rdi, rsi, rdx, rcx (arguments 0..3, in that order from its
 * stack pointer up, the scratch above) in a frame of its own, so
 * unwinders see it.  ENTRY may clobber every other caller-saved register:
 * a function with a direct call takes at most MMTUNE_DIRECT_NR_ARGS
 * arguments.  Aligned: from 6.19 (DYNAMIC_FTRACE_WITH_JMP) ftrace
 * takes an odd address for "jump to address - 1", not "call".
 */
#define MMTUNE_DIRECT_TRAMP(tramp, entry)				\
	asm(".pushsection .text, \"ax\", @progbits\n"			\
	    ".type " #tramp ", @function\n"				\
	    ".globl " #tramp "\n"					\
	    ".balign 16\n"						\
	    #tramp ":\n"						\
	    ASM_ENDBR							\
	    "pushq %rbp\n"						\
	    "movq %rsp, %rbp\n"						\
	    CALL_DEPTH_ACCOUNT						\
	    "subq $" __stringify(MMTUNE_DIRECT_SCRATCH) ", %rsp\n"	\
	    "pushq %rcx\n"						\
	    "pushq %rdx\n"						\
	    "pushq %rsi\n"						\
	    "pushq %rdi\n"						\
	    "movq %rsp, %rdi\n"						\
	    "call " #entry "\n"						\
	    "popq %rdi\n"						\
	    "popq %rsi\n"						\
	    "popq %rdx\n"						\
	    "popq %rcx\n"						\
	    "leave\n"							\
	    ASM_RET							\
	    ".size " #tramp ", .-" #tramp "\n"				\
	    ".popsection\n")
#elif defined(CONFIG_ARM64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS)
#define MMTUNE_HAVE_DIRECT	1
#include <linux/stringify.h>

#define MMTUNE_DIRECT_NR_ARGS	4
#define MMTUNE_DIRECT_SCRATCH	64

/*
 * The patched site calls TRAMP with x30 its return into the function and
 * x9 the function's own return address (the caller's lr): TRAMP saves
 * x0..x3 (arguments 0..3 from its stack pointer up, the scratch above,
 * then x9 and x30), and returns into the function with x30 as the
 * function must find it.  As on x86_64, a function with a direct call
 * takes at most MMTUNE_DIRECT_NR_ARGS arguments.  "bti c": the site may
 * reach it through ftrace_caller's br.
 */
#define MMTUNE_DIRECT_FRAME	(4 * 8 + MMTUNE_DIRECT_SCRATCH + 16)
#define MMTUNE_DIRECT_TRAMP(tramp, entry)				\
	asm(".pushsection .text, \"ax\", @progbits\n"			\
	    ".type " #tramp ", %function\n"				\
	    ".globl " #tramp "\n"					\
	    ".balign 16\n"						\
	    #tramp ":\n"						\
	    "hint 34\n"							\
	    "sub sp, sp, #" __stringify(MMTUNE_DIRECT_FRAME) "\n"	\
	    "stp x9, x30, [sp, #" __stringify(MMTUNE_DIRECT_FRAME - 16) "]\n" \
	    "stp x0, x1, [sp]\n"					\
	    "stp x2, x3, [sp, #16]\n"					\
	    "mov x0, sp\n"						\
	    "bl " #entry "\n"						\
	    "ldp x0, x1, [sp]\n"					\
	    "ldp x2, x3, [sp, #16]\n"					\
	    "ldp x30, x9, [sp, #" __stringify(MMTUNE_DIRECT_FRAME - 16) "]\n" \
	    "add sp, sp, #" __stringify(MMTUNE_DIRECT_FRAME) "\n"	\
	    "ret x9\n"							\
	    ".size " #tramp ", .-" #tramp "\n"				\
	    ".popsection\n")
#endif

#ifdef MMTUNE_HAVE_DIRECT
static inline int mmtune_register_direct(struct ftrace_ops *ops,
					 unsigned long tramp)
{
#ifdef MMTUNE_DIRECT_MULTI
	return register_ftrace_direct_multi(ops, tramp);
#else
	return register_ftrace_direct(ops, tramp);
#endif
}

/* Also frees the ops' filter, for the next registration. */
static inline void mmtune_unregister_direct(struct ftrace_ops *ops,
					    unsigned long tramp)
{
#ifdef MMTUNE_DIRECT_MULTI
	unregister_ftrace_direct_multi(ops, tramp);
	ftrace_free_filter(ops);
#else
	unregister_ftrace_direct(ops, tramp, true);
#endif
}
#else
#define MMTUNE_HAVE_DIRECT	0
#define MMTUNE_DIRECT_NR_ARGS	0
#define MMTUNE_DIRECT_SCRATCH	0
#define MMTUNE_DIRECT_TRAMP(tramp, entry)
static inline int mmtune_register_direct(struct ftrace_ops *ops,
					 unsigned long tramp)
{
	return -EOPNOTSUPP;
}

static inline void mmtune_unregister_direct(struct ftrace_ops *ops,
					    unsigned long tramp)
{
}
#endif

#endif /* MMTUNE_COMPAT_FTRACE_DIRECT_H */
