/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim: what the kernel's <linux/seq_file.h> brings mmtune.h, whose
 * prototypes name these structs (the grammar uses none of them).
 */
#ifndef MMT_SHIM_SEQ_FILE_H
#define MMT_SHIM_SEQ_FILE_H

struct seq_file;
struct vm_fault;
struct mm_struct;
struct vm_area_struct;
struct task_struct;

#endif
