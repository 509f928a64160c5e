/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune_bpf.h: what a BPF program that chooses the fault-around order
 * sees and returns (docs/bpf.md).  Shared by the module, the programs
 * and mmtunectl: fixed-size fields only, no kernel types.
 *
 * The module calls the program at each filemap_map_pages call the
 * policy's hook narrows, after the rules: with the fault, its mapping,
 * its task and the rule's order in a struct mmtune_fault_ctx.  The
 * program writes the order it wants for this call into ->order.  The
 * module takes it only if it is no more than ->rule_order: a program
 * narrows as a rule does; anything above is refused and the rule's
 * order stays (counted, bpf/refused).
 *
 * A program is a writable raw tracepoint program on the tracepoint the
 * module names in /sys/kernel/mm/mmtune/bpf/tracepoint: write it with
 * MMTUNE_ORDER_PROG() so that the section and the context are right.
 */
#ifndef MMTUNE_BPF_H
#define MMTUNE_BPF_H

#include <linux/types.h>

/* the tracepoint's name up to 7.1; from 7.2 the kernel appends "_tp" */
#define MMTUNE_BPF_TP		"mmtune_order"

struct mmtune_fault_ctx {
	__u64 address;		/* the faulting address */
	__u64 pgoff;		/* its page in the file */
	__u64 vm_start;		/* the mapping [vm_start, vm_end) */
	__u64 vm_end;
	__u64 vm_pgoff;		/* the file page at vm_start */
	__u64 vm_flags;		/* the mapping's VM_* flags */
	__u64 ino;		/* the file's inode number */
	__u64 cgroup_id;	/* the task's cgroup v2 id */
	__u64 req_start;	/* the window the kernel asked for, file pages */
	__u64 req_end;		/* (inclusive) */
	__u32 dev;		/* the file's device, as stat(2)'s st_dev */
	__u32 tgid;		/* the process, in the initial pid namespace */
	__u32 uid;		/* its real uid, in the initial user namespace */
	__s32 rule;		/* the rule that matched (rules/N), -1: none */
	__u32 rule_order;	/* the order the rule (or the base) gives */
	__u32 order;		/* in: rule_order; out: the order for this call */
	__u32 page_shift;	/* the page size's log2 */
	__u32 max_order;	/* the largest order this machine has */
	__u64 reserved[2];	/* zero */
};

#ifdef __bpf__
/*
 * MMTUNE_ORDER_PROG(name) { ...; ctx->order = N; return 0; } declares
 * the program: its section, and its context as ctx.  After
 * <bpf/bpf_helpers.h> (SEC(), __always_inline).  A program that leaves
 * ctx->order alone leaves the rule's order.
 */
#define MMTUNE_ORDER_PROG(name)						\
	static __always_inline int					\
	name##_decide(struct mmtune_fault_ctx *ctx);			\
	SEC("raw_tp.w/" MMTUNE_BPF_TP)					\
	int name(__u64 *args)						\
	{								\
		return name##_decide((struct mmtune_fault_ctx *)	\
				     (unsigned long)args[0]);		\
	}								\
	static __always_inline int					\
	name##_decide(struct mmtune_fault_ctx *ctx)
#endif

#endif /* MMTUNE_BPF_H */
