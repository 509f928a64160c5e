/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtune: an order=auto:file rule's orders per file (auto_file.c): a
 * bounded table per rule, keyed by the file's (device, inode number).
 * Calls nothing of the rules: rules.c (the fault path, the zaps), live.c
 * (the old pages of a pass), auto.c (the judgement) and policy_rule.c
 * (a rule's life) call in.
 */
#ifndef MMTUNE_AUTO_FILE_H
#define MMTUNE_AUTO_FILE_H

#include <linux/seq_file.h>
#include <linux/types.h>

#define AF_SET_BITS	3	/* 8 sets of AF_WAYS files */
#define AF_WAYS		4
#define AF_ENTRIES	(AF_WAYS << AF_SET_BITS)

struct mmtune_auto_files;
struct mm_struct;
struct vm_area_struct;

struct mmtune_auto_files *mmtune_af_alloc(unsigned int base);
struct mmtune_auto_files *mmtune_af_get(struct mmtune_auto_files *t);
void mmtune_af_put(struct mmtune_auto_files *t);

/* the fault path (preemption off) */
unsigned int mmtune_af_order(const struct mmtune_auto_files *t,
			     const struct vm_area_struct *vma);
void mmtune_af_mapped(struct mmtune_auto_files *t,
		      const struct vm_area_struct *vma, unsigned int n);
void mmtune_af_untouched(struct mmtune_auto_files *t,
			 const struct vm_area_struct *vma, unsigned long n,
			 bool ended);

/* live.c's pass and the poll (policy_lock) */
void mmtune_af_pass_start(struct mmtune_auto_files *t,
			  const struct mm_struct *mm);
void mmtune_af_pass_old(struct mmtune_auto_files *t,
			const struct mm_struct *mm,
			const struct vm_area_struct *vma, u64 old);
void mmtune_af_pass_end(struct mmtune_auto_files *t,
			const struct mm_struct *mm);
unsigned int mmtune_af_judge(struct mmtune_auto_files *t,
			     unsigned int max_order);
void mmtune_af_show(struct seq_file *m, const struct mmtune_auto_files *t);

#endif /* MMTUNE_AUTO_FILE_H */
