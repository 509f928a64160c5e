/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune compat: kretprobes (hooks.c places them, usefulness_path.c's entry
 * handler reads the probed function's arguments): how many instances to
 * preallocate, and reading an argument, which the kernel gives modules
 * only on some architectures.
 */
#ifndef MMTUNE_COMPAT_KRETPROBE_H
#define MMTUNE_COMPAT_KRETPROBE_H

#include <linux/cpumask.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>

/*
 * Instances a kretprobe preallocates.  A fault may sleep (I/O, page lock)
 * inside handle_mm_fault, so allow several per CPU; a call that finds none
 * free is counted in nmissed, which the latency file shows.
 */
#define MMTUNE_KRETPROBE_MAXACTIVE	(4 * num_possible_cpus() + 64)

/*
 * Argument @n of a probed function, read in a kretprobe's entry handler:
 * x86_64 and arm64 only, where it is used (usefulness_path.c); 6.1 s390x and
 * ppc64le give modules no regs_get_kernel_argument().
 */
static __always_inline unsigned long mmtune_entry_arg(struct pt_regs *regs,
						      unsigned int n)
{
#if defined(CONFIG_X86_64) || defined(CONFIG_ARM64)
	return regs_get_kernel_argument(regs, n);
#else
	return 0;
#endif
}

#endif /* MMTUNE_COMPAT_KRETPROBE_H */
