/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune compat: redirecting a traced function to another one
 * (pfn_valid/pfn_valid.c's override): where the instruction pointer the
 * ftrace trampoline returns to is, by architecture and ftrace flavour.
 */
#ifndef MMTUNE_COMPAT_FTRACE_REDIRECT_H
#define MMTUNE_COMPAT_FTRACE_REDIRECT_H

#include <linux/ftrace.h>
#include <linux/ptrace.h>

/*
 * Make the traced function continue in another one of the same prototype,
 * by setting the instruction pointer the ftrace trampoline returns to, as
 * livepatch does.  With DYNAMIC_FTRACE_WITH_REGS (x86_64 in every version,
 * arm64 up to 6.1) an ops with SAVE_REGS gets a full pt_regs whose ip the
 * trampoline returns to; with only WITH_ARGS (arm64 from 6.2) ftrace_regs
 * carries it, set by ftrace_regs_set_instruction_pointer() (6.2 renamed
 * ftrace_instruction_pointer_set() to that).  ppc64: the trampoline does
 * not switch the TOC to a module's (only livepatch's stub does), so no.
 */
#if defined(CONFIG_PPC64)
#define MMTUNE_FTRACE_REDIRECT		0
#define MMTUNE_FTRACE_REDIRECT_WHY	"ppc64: ftrace cannot enter module code without livepatch's TOC stub"
#elif defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS)
#define MMTUNE_FTRACE_REDIRECT		1
#define MMTUNE_FTRACE_REDIRECT_FLAGS	(FTRACE_OPS_FL_SAVE_REGS | \
					 FTRACE_OPS_FL_IPMODIFY)
static __always_inline bool mmtune_ftrace_redirect(struct ftrace_regs *fregs,
						   unsigned long ip)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);

	if (!regs)
		return false;
	instruction_pointer_set(regs, ip);
	return true;
}
#elif defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
/* Only kernels from 6.2 on have WITH_ARGS without WITH_REGS. */
#define MMTUNE_FTRACE_REDIRECT		1
#define MMTUNE_FTRACE_REDIRECT_FLAGS	FTRACE_OPS_FL_IPMODIFY
static __always_inline bool mmtune_ftrace_redirect(struct ftrace_regs *fregs,
						   unsigned long ip)
{
	ftrace_regs_set_instruction_pointer(fregs, ip);
	return true;
}
#else
#define MMTUNE_FTRACE_REDIRECT		0
#define MMTUNE_FTRACE_REDIRECT_WHY	"ftrace cannot set the instruction pointer on this kernel"
#endif

#endif /* MMTUNE_COMPAT_FTRACE_REDIRECT_H */
