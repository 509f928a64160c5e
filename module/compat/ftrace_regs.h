/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune compat: struct ftrace_regs, the traced function's arguments at
 * its entry (hooks_table.c reads and changes them).
 *
 * Where they are differs by version and architecture: Debian 6.1 x86_64
 * and arm64 have no DYNAMIC_FTRACE_WITH_ARGS (6.1 has no
 * ftrace_regs_get_argument() either), 6.13 made struct ftrace_regs opaque,
 * arm64 from 6.2 has WITH_ARGS but not WITH_REGS, riscv has WITH_ARGS from
 * 6.8, ppc64le and s390x keep a pt_regs inside ftrace_regs.
 */
#ifndef MMTUNE_COMPAT_FTRACE_REGS_H
#define MMTUNE_COMPAT_FTRACE_REGS_H

#include <linux/ftrace.h>
#include <linux/ptrace.h>

/*
 * With DYNAMIC_FTRACE_WITH_ARGS the argument registers are saved for every
 * callback and restored from ftrace_regs when it returns, so a callback can
 * read and also change them.  Without it (arm64 before 6.2) only an ops
 * with FTRACE_OPS_FL_SAVE_REGS gets them, through a full pt_regs.
 * No FTRACE_OPS_FL_RECURSION: with it ftrace calls the ops' function
 * through ftrace_ops_assist_func (a recursion trylock, preemption off and
 * one more indirect call: 50 of the 143 instructions a hooked call cost
 * on 6.1 x86_64, bench/RESULTS.md).  The hooks' function cannot recurse
 * (its callbacks call nothing traceable) and keeps preemption off itself
 * (hooks_table.c).
 */
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
#define MMTUNE_FTRACE_OPS_FLAGS	0
#else
#define MMTUNE_FTRACE_OPS_FLAGS	FTRACE_OPS_FL_SAVE_REGS
#endif

/* 6.13 made struct ftrace_regs opaque: arch_ftrace_regs() opens it. */
#ifdef arch_ftrace_regs
#define mmtune_arch_fregs(fregs)	arch_ftrace_regs(fregs)
#else
#define mmtune_arch_fregs(fregs)	(fregs)
#endif

/*
 * ftrace_regs_get_argument() came with 6.2: a macro on x86, powerpc and
 * for architectures without WITH_ARGS, an inline function on arm64 (which
 * has WITH_ARGS from 6.2 on) and riscv (WITH_ARGS from 6.8 on).  6.1 has
 * neither; there every ftrace_regs is a pt_regs (partly filled with
 * WITH_ARGS, the argument registers always).
 */
#if defined(CONFIG_S390)
/*
 * s390: arguments in r2..r6.  Its regs_get_kernel_argument() calls
 * regs_get_register(), which the kernel does not export.
 */
static __always_inline unsigned long mmtune_fregs_arg(struct ftrace_regs *fregs,
						      unsigned int n)
{
	return n < 5 ? mmtune_arch_fregs(fregs)->regs.gprs[2 + n] : 0;
}
#elif defined(ftrace_regs_get_argument) || \
	(defined(CONFIG_ARM64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)) || \
	(defined(CONFIG_RISCV) && defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS))
#define mmtune_fregs_arg(fregs, n)	ftrace_regs_get_argument(fregs, n)
#elif defined(CONFIG_PPC64)
/* 6.1 powerpc has no regs_get_kernel_argument(): arguments are r3..r10 */
static __always_inline unsigned long mmtune_fregs_arg(struct ftrace_regs *fregs,
						      unsigned int n)
{
	return n < 8 ? fregs->regs.gpr[3 + n] : 0;
}
#else
#define mmtune_fregs_arg(fregs, n)	regs_get_kernel_argument(&(fregs)->regs, n)
#endif

/*
 * Change argument @n (0-based) of the traced function before it runs.
 * Returns false where we do not know how (then nothing is changed).  The
 * hooks' self-test checks this on the running kernel before anyone may
 * rely on it (see mmtune_hooks_args_writable()).
 */
static __always_inline bool mmtune_fregs_set_arg(struct ftrace_regs *fregs,
						 unsigned int n,
						 unsigned long val)
{
#if defined(CONFIG_X86_64)
	/* pt_regs in every version; SysV ABI argument registers */
	struct pt_regs *regs = &mmtune_arch_fregs(fregs)->regs;

	switch (n) {
	case 0:
		regs->di = val;
		break;
	case 1:
		regs->si = val;
		break;
	case 2:
		regs->dx = val;
		break;
	case 3:
		regs->cx = val;
		break;
	case 4:
		regs->r8 = val;
		break;
	case 5:
		regs->r9 = val;
		break;
	default:
		return false;
	}
	return true;
#elif defined(CONFIG_ARM64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
	/* 6.2+: x0..x7 saved in ftrace_regs.regs[] */
	if (n >= 8)
		return false;
	mmtune_arch_fregs(fregs)->regs[n] = val;
	return true;
#elif defined(CONFIG_ARM64)
	/* 6.1: FTRACE_OPS_FL_SAVE_REGS, a full pt_regs */
	if (n >= 8)
		return false;
	fregs->regs.regs[n] = val;
	return true;
#elif defined(CONFIG_PPC64)
	/* pt_regs; arguments in r3..r10 */
	if (n >= 8)
		return false;
	mmtune_arch_fregs(fregs)->regs.gpr[3 + n] = val;
	return true;
#elif defined(CONFIG_RISCV) && defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
	/* a0..a7 saved in ftrace_regs.args[] */
	if (n >= 8)
		return false;
	mmtune_arch_fregs(fregs)->args[n] = val;
	return true;
#elif defined(CONFIG_S390)
	/* pt_regs; arguments in r2..r6 */
	if (n >= 5)
		return false;
	mmtune_arch_fregs(fregs)->regs.gprs[2 + n] = val;
	return true;
#else
	return false;
#endif
}

#endif /* MMTUNE_COMPAT_FTRACE_REGS_H */
